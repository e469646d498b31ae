/*
 * dtype.cl -- loads and stores of the storage types.  Arithmetic is always
 * float; a value is rounded once, at the store.  float16 goes through
 * vload_half/vstore_half only (NVIDIA has no cl_khr_fp16); bfloat16 is kept
 * as ushort and rounded to nearest even.
 */
#ifndef SINPE_DTYPE_CL
#define SINPE_DTYPE_CL

#include "abi.h"

inline ushort sinpe_to_bf16(float f)
{
    uint u = as_uint(f);
    uint rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16; /* round to nearest even */
    uint quiet_nan = (u >> 16) | 0x40u;                    /* NaN stays a (quiet) NaN */
    return (ushort)((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

/* The same on N values at once, as 32-bit lanes (sinpe_bf16_bits_4 and _8)
   or narrowed (sinpe_to_bf16_4 and _8), and N values rounded to either
   16-bit type, as bits (sinpe_to_16_4, sinpe_to_16_8).  All are
   branch-free: CPU runtimes vectorise across work-items only then. */
#define SINPE_TO_16_N(N)                                                                  \
    inline uint##N sinpe_bf16_bits_##N(float##N f)                                       \
    {                                                                                     \
        uint##N u = as_uint##N(f);                                                        \
        uint##N rounded = (u + (uint##N)(0x7fffu) + ((u >> 16) & (uint##N)(1u))) >> 16;   \
        uint##N quiet_nan = (u >> 16) | (uint##N)(0x40u);                                 \
        return select(rounded, quiet_nan, (u & (uint##N)(0x7fffffffu)) > (uint##N)(0x7f800000u)); \
    }                                                                                     \
    inline ushort##N sinpe_to_bf16_##N(float##N f)                                       \
    {                                                                                     \
        return convert_ushort##N(sinpe_bf16_bits_##N(f));                                 \
    }                                                                                     \
    inline ushort##N sinpe_to_16_##N(float##N x, const int dt)                           \
    {                                                                                     \
        ushort##N u;                                                                      \
        if (dt == SINPE_F16)                                                              \
            vstore_half##N##_rte(x, 0, (half *)&u);                                       \
        else                                                                              \
            u = sinpe_to_bf16_##N(x);                                                     \
        return u;                                                                         \
    }
SINPE_TO_16_N(4)
SINPE_TO_16_N(8)
#undef SINPE_TO_16_N

/*
 * Four values at element i.  With aligned (i a multiple of 4 and the buffer
 * 16-byte aligned, established by the host) the access goes through a
 * vector pointer, whose alignment a GPU compiler can see (vload4 through a
 * float pointer it cannot).  Builds with SINPE_ALIGNED_IO 0 never take
 * that path.
 */
#ifndef SINPE_ALIGNED_IO
#define SINPE_ALIGNED_IO 0
#endif

inline float4 sinpe_load4(global const uchar *base, size_t i, const int dt, bool aligned)
{
    if (SINPE_ALIGNED_IO && aligned) {
        if (dt == SINPE_F32)
            return *(global const float4 *)((global const float *)base + i);
        ushort4 u = *(global const ushort4 *)((global const ushort *)base + i);
        if (dt == SINPE_F16)
            return vload_half4(0, (const half *)&u);
        return as_float4(convert_uint4(u) << 16);
    }
    if (dt == SINPE_F32)
        return vload4(0, (global const float *)base + i);
    if (dt == SINPE_F16)
        return vload_half4(0, (global const half *)base + i);
    return as_float4(convert_uint4(vload4(0, (global const ushort *)base + i)) << 16);
}

/*
 * The first n (1 to 4) values at element i, the other lanes zero, and the
 * store of the first n: the last columns of a row whose length is not a
 * multiple of four.  They convert through the four-value forms even for one
 * value: a scalar vload_half or vstore_half anywhere in a kernel stops
 * pocl's vectoriser.
 */
inline float4 sinpe_load_part4(global const uchar *base, size_t i, int n, const int dt)
{
    if (dt == SINPE_F32) {
        global const float *p = (global const float *)base + i;
        return (float4)(p[0], n > 1 ? p[1] : 0.0f, n > 2 ? p[2] : 0.0f, n > 3 ? p[3] : 0.0f);
    }
    global const ushort *p = (global const ushort *)base + i;
    ushort4 u = (ushort4)(p[0], n > 1 ? p[1] : 0, n > 2 ? p[2] : 0, n > 3 ? p[3] : 0);
    if (dt == SINPE_F16)
        return vload_half4(0, (const half *)&u);
    return as_float4(convert_uint4(u) << 16);
}

/* The first n lanes of the vector v to p[0 .. n - 1]. */
#define SINPE_STORE_LANES(p, v, n) \
    do {                           \
        (p)[0] = (v).x;            \
        if ((n) > 1)               \
            (p)[1] = (v).y;        \
        if ((n) > 2)               \
            (p)[2] = (v).z;        \
        if ((n) > 3)               \
            (p)[3] = (v).w;        \
    } while (0)

inline void sinpe_store_part4(float4 x, global uchar *base, size_t i, int n, const int dt)
{
    if (dt == SINPE_F32) {
        SINPE_STORE_LANES((global float *)base + i, x, n);
        return;
    }
    ushort4 u = sinpe_to_16_4(x, dt);
    SINPE_STORE_LANES((global ushort *)base + i, u, n);
}

inline void sinpe_store4(float4 x, global uchar *base, size_t i, const int dt, bool aligned)
{
    if (SINPE_ALIGNED_IO && aligned) {
        if (dt == SINPE_F32)
            *(global float4 *)((global float *)base + i) = x;
        else
            *(global ushort4 *)((global ushort *)base + i) = sinpe_to_16_4(x, dt);
        return;
    }
    if (dt == SINPE_F32)
        vstore4(x, 0, (global float *)base + i);
    else if (dt == SINPE_F16)
        vstore_half4_rte(x, 0, (global half *)base + i);
    else
        vstore4(sinpe_to_bf16_4(x), 0, (global ushort *)base + i);
}

/*
 * Four float values at element i stored non-temporally where the compiler
 * has the builtin (the _stream forms), past the cache: a plain store first
 * reads the line it writes.  The host takes these forms only for outputs
 * it will not read back soon and only when the access is 16-byte aligned.
 * Without the builtin, a plain store.  16-bit outputs stream eight values
 * at a time (sinpe_stream8).
 */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define SINPE_NT_STORE 1
#endif
#endif

inline void sinpe_stream4(float4 x, global float *p)
{
#ifdef SINPE_NT_STORE
    __builtin_nontemporal_store(x, (global float4 *)p);
#else
    vstore4(x, 0, p);
#endif
}

/*
 * Eight values at element i, and their non-temporal store in any output
 * type: the _stream kernels with 16-bit output and the _table_stream ones.
 * fp32 takes two 16-byte stores, fp16 and bf16 one (the access must be
 * 16-byte aligned: the host checks).
 */
inline float8 sinpe_load8(global const uchar *base, size_t i, const int dt)
{
    if (dt == SINPE_F32)
        return vload8(0, (global const float *)base + i);
    if (dt == SINPE_F16)
        return vload_half8(0, (global const half *)base + i);
    return as_float8(convert_uint8(vload8(0, (global const ushort *)base + i)) << 16);
}

inline void sinpe_stream8(float8 x, global uchar *base, size_t i, const int dt)
{
    if (dt == SINPE_F32) {
        sinpe_stream4(x.lo, (global float *)base + i);
        sinpe_stream4(x.hi, (global float *)base + i + 4);
        return;
    }
#if defined(SINPE_NT_STORE) && defined(__ENDIAN_LITTLE__)
    /* bf16 packed by hand: clang folds the narrowing below into a
       truncating store and drops the non-temporal hint.  Lane 2k is the
       low half of word k. */
    if (dt == SINPE_BF16) {
        uint8 r = sinpe_bf16_bits_8(x);
        __builtin_nontemporal_store(r.even | (r.odd << 16),
                                    (global uint4 *)((global ushort *)base + i));
        return;
    }
#endif
    ushort8 u = sinpe_to_16_8(x, dt);
#ifdef SINPE_NT_STORE
    __builtin_nontemporal_store(u, (global ushort8 *)((global ushort *)base + i));
#else
    vstore8(u, 0, (global ushort *)base + i);
#endif
}

/* n values at element i: a whole vector (n == 4, aligned as for
   sinpe_load4) or the end of a row (sinpe_load_part4). */
inline float4 sinpe_load_n(global const uchar *base, size_t i, int n, const int dt, bool aligned)
{
    return n == 4 ? sinpe_load4(base, i, dt, aligned) : sinpe_load_part4(base, i, n, dt);
}

inline void sinpe_store_n(float4 x, global uchar *base, size_t i, int n, const int dt,
                          bool aligned)
{
    if (n == 4)
        sinpe_store4(x, base, i, dt, aligned);
    else
        sinpe_store_part4(x, base, i, n, dt);
}

/* One value at element i (the scalar forms and table rows). */
inline float sinpe_load1(global const uchar *base, size_t i, const int dt)
{
    if (dt == SINPE_F32)
        return ((global const float *)base)[i];
    if (dt == SINPE_F16)
        return vload_half(i, (global const half *)base);
    return as_float((uint)((global const ushort *)base)[i] << 16);
}

inline void sinpe_store1(float x, global uchar *base, size_t i, const int dt)
{
    if (dt == SINPE_F32)
        ((global float *)base)[i] = x;
    else if (dt == SINPE_F16)
        vstore_half_rte(x, 0, (global half *)base + i);
    else
        ((global ushort *)base)[i] = sinpe_to_bf16(x);
}

#endif /* SINPE_DTYPE_CL */
