/*
 * dtype.cl -- loads and stores of the storage types.  Arithmetic is always
 * float; a value is rounded once, at the store.  float16 goes through
 * vload_half/vstore_half (NVIDIA has no cl_khr_fp16), or AVX-512's
 * sixteen-lane conversions where the device compiler targets them
 * (blocks.cl's sinpe_f16_widen16 and sinpe_f16_round16: the same bits);
 * bfloat16 is kept as ushort and rounded to nearest even.  The quantized
 * weight types load through quant.cl.
 */
#ifndef SINPE_DTYPE_CL
#define SINPE_DTYPE_CL

#include "abi.h"
#include "quant.cl"

/* Before a loop over values whose trips compute the same operations:
   vectorised sixteen lanes wide where clang compiles it (its own choice
   on AVX-512 CPUs is eight, slower for the anchors' arithmetic).
   A loop given a transformation (this, #pragma unroll) that clang's first
   pass cannot make yet is made once the device compiler has inlined its
   library (pocl's second pass); the warning the first pass would write
   into every build log is off from here on. */
#if defined(__clang__)
#define SINPE_LANES16 _Pragma("clang loop vectorize_width(16)")
#pragma clang diagnostic ignored "-Wpass-failed"
#else
#define SINPE_LANES16
#endif

/* A hint that the n bytes from p will be read soon, one per 64-byte line,
   where the record asks for the caller's kind: bit 0 of SINPE_PREFETCH is
   the record's prefetch (the rotation's), bit 1 its stream_prefetch
   (STREAM's).  A hint reads nothing and changes no value; with the bit
   clear, or no builtin, it is nothing.  Nor on a SPIR target (__SPIR__:
   portable IR that another program runs, as oclgrind does): there the
   builtin's llvm.prefetch may be unknown to the IR's consumer, and
   oclgrind 21.10 refuses the kernels that call it at clCreateKernel. */
#ifndef SINPE_PREFETCH
#define SINPE_PREFETCH 0
#endif
inline void sinpe_prefetch(const int bit, global const uchar *p, size_t n)
{
#if SINPE_PREFETCH && defined(__has_builtin) && !defined(__SPIR__)
#if __has_builtin(__builtin_prefetch)
    for (size_t b = 0; (SINPE_PREFETCH & bit) && b < n; b += 64)
        __builtin_prefetch(p + b);
#endif
#endif
}

/* Rounded to nearest even: 0x7fff added, and one more where the kept
   half is odd (a test and a masked add on AVX-512, where a shift and a mask
   took two operations); a NaN stays a (quiet) NaN.  The NaN test is f != f
   (true exactly where (u & 0x7fffffff) > 0x7f800000): one unordered compare
   on x86 against two integer operations. */
inline ushort sinpe_to_bf16(float f)
{
    uint u = as_uint(f), r = u + 0x7fffu;
    r = (u & 0x10000u) ? r + 1u : r;
    return (ushort)((f != f ? u | 0x400000u : r) >> 16);
}

/* The same on N values, as 32-bit lanes or narrowed, and N values rounded
   to either 16-bit type, as bits; branch-free, for CPU vectorisers. */
#define SINPE_TO_16_N(N)                                                                  \
    inline uint##N sinpe_bf16_words_##N(float##N f) /* the bf16 in each high half */      \
    {                                                                                     \
        uint##N u = as_uint##N(f), r = u + (uint##N)(0x7fffu);                            \
        r = select(r, r + (uint##N)(1u), (u & (uint##N)(0x10000u)) != (uint##N)(0u));    \
        return select(r, u | (uint##N)(0x400000u), f != f);                               \
    }                                                                                     \
    inline ushort##N sinpe_to_bf16_##N(float##N f)                                       \
    {                                                                                     \
        return convert_ushort##N(sinpe_bf16_words_##N(f) >> 16);                          \
    }                                                                                     \
    inline ushort##N sinpe_to_16_##N(float##N x, const int dt)                           \
    {                                                                                     \
        ushort##N u;                                                                      \
        if (dt == SINPE_F16)                                                              \
            u = sinpe_f16_round##N(x);                                                    \
        else                                                                              \
            u = sinpe_to_bf16_##N(x);                                                     \
        return u;                                                                         \
    }
SINPE_TO_16_N(4)
SINPE_TO_16_N(16)
#undef SINPE_TO_16_N

/* The bf16 bits of sixteen values (of 32: lo's, then hi's), the high
   halves of the rounded words picked by word shuffles (vpermw, vpermt2w)
   where the compiler has shuffles of any vector; else shifted down and
   narrowed, two operations each sixteen and more to pair them. */
#if defined(__clang__) && defined(__ENDIAN_LITTLE__)
#define SINPE_WORD_SHUFFLES 1
typedef ushort sinpe_words32 __attribute__((ext_vector_type(32)));
#define SINPE_HIGH_WORDS 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#endif

inline ushort16 sinpe_bf16_16(float16 f)
{
#ifdef SINPE_WORD_SHUFFLES
    sinpe_words32 w = __builtin_astype(sinpe_bf16_words_16(f), sinpe_words32);
    return __builtin_shufflevector(w, w, SINPE_HIGH_WORDS);
#else
    return sinpe_to_bf16_16(f);
#endif
}

inline uint16 sinpe_bf16_32(float16 lo, float16 hi)
{
#ifdef SINPE_WORD_SHUFFLES
    sinpe_words32 a = __builtin_astype(sinpe_bf16_words_16(lo), sinpe_words32);
    sinpe_words32 b = __builtin_astype(sinpe_bf16_words_16(hi), sinpe_words32);
    return __builtin_astype(__builtin_shufflevector(a, b, SINPE_HIGH_WORDS, 33, 35, 37, 39, 41,
                                                    43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63),
                            uint16);
#else
    return (uint16)(as_uint8(sinpe_to_bf16_16(lo)), as_uint8(sinpe_to_bf16_16(hi)));
#endif
}

/* Four values at element i.  With aligned (i a multiple of 4 and the
   buffer 16-byte aligned: the host checks) through a vector pointer, whose
   alignment a GPU compiler can see (vload4's it cannot), unless the build
   has SINPE_ALIGNED_IO 0. */
#ifndef SINPE_ALIGNED_IO
#define SINPE_ALIGNED_IO 0
#endif

inline float4 sinpe_load4(global const uchar *base, size_t i, const int dt, bool aligned)
{
    if (!SINPE_FLOAT_TYPE(dt))
        return sinpe_qload4(base, i, dt);
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

/* The first n (1 to 4) values at element i, the other lanes zero, and the
   store of the first n (a row's last columns), through the four-value
   conversions: a scalar vload_half or vstore_half stops pocl's vectoriser. */
inline float4 sinpe_load_part4(global const uchar *base, size_t i, int n, const int dt)
{
    if (!SINPE_FLOAT_TYPE(dt))
        return sinpe_qload_part4(base, i, n, dt);
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

inline void sinpe_store_part4(float4 x, global uchar *base, size_t i, int n, const int dt)
{
    uint4 w = dt == SINPE_F32 ? as_uint4(x) : convert_uint4(sinpe_to_16_4(x, dt));
    uint v[4] = {w.x, w.y, w.z, w.w};
    for (int j = 0; j < n; j++)
        if (dt == SINPE_F32)
            ((global uint *)base)[i + j] = v[j];
        else
            ((global ushort *)base)[i + j] = (ushort)v[j];
}

/* Four 16-bit values at any 2-byte aligned address, stored as one vector
   that keeps the element's alignment (a typedef may lower alignment in
   clang, as in GCC): pocl turns vstore4 of a ushort4 into four 2-byte
   stores, this into one 8-byte store on x86.  Only in builds without
   SINPE_ALIGNED_IO (the CPU records): the GPU records keep vstore4 for
   offsets that are not 16-byte aligned. */
#if !SINPE_ALIGNED_IO
typedef ushort4 __attribute__((aligned(2))) sinpe_ushort4_a2;
#endif

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
#if SINPE_ALIGNED_IO
        vstore4(sinpe_to_bf16_4(x), 0, (global ushort *)base + i);
#else
        *(global sinpe_ushort4_a2 *)((global ushort *)base + i) = sinpe_to_bf16_4(x);
#endif
}

/* Sixteen values at any element (the FAST form into 16-bit outputs with
   wide16 = 16): vstore16 of a ushort16 is element by element in pocl, a
   store through an element-aligned vector pointer one vector store.  fp16
   too is rounded first and stored as bits, as bf16 is: one store path for
   both 16-bit types, and on x86 pocl a faster loop than vstore_half16 to
   global memory (bench/RESULTS.md). */
#if !SINPE_ALIGNED_IO
typedef ushort16 __attribute__((aligned(2))) sinpe_ushort16_a2;
#endif

inline void sinpe_store16(float16 x, global uchar *base, size_t i, const int dt)
{
    if (dt == SINPE_F32) {
        vstore16(x, 0, (global float *)base + i);
        return;
    }
    ushort16 h = dt == SINPE_F16 ? sinpe_to_16_16(x, dt) : sinpe_bf16_16(x);
#if SINPE_ALIGNED_IO
    vstore16(h, 0, (global ushort *)base + i);
#else
    *(global sinpe_ushort16_a2 *)((global ushort *)base + i) = h;
#endif
}

/* Non-temporal stores of one 64-byte line (STREAM), past the cache (a
   plain store first reads the line), where the compiler has the builtin:
   sixteen fp32 values, or 32 16-bit ones in two halves.  Else plain stores. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define SINPE_NT_STORE 1
#endif
#endif

inline float16 sinpe_load16(global const uchar *base, size_t i, const int dt)
{
    if (!SINPE_FLOAT_TYPE(dt))
        return sinpe_qload16(base, i, dt);
    if (dt == SINPE_F32)
        return vload16(0, (global const float *)base + i);
    if (dt == SINPE_F16)
#ifdef SINPE_F16_512
        return sinpe_f16_widen16(vload16(0, (global const ushort *)base + i));
#else
        return vload_half16(0, (global const half *)base + i);
#endif
    return as_float16(convert_uint16(vload16(0, (global const ushort *)base + i)) << 16);
}

inline void sinpe_stream_f32(float16 x, global float *p)
{
#ifdef SINPE_NT_STORE
    __builtin_nontemporal_store(x, (global float16 *)p);
#else
    vstore16(x, 0, p);
#endif
}

/* Thirty-two values rounded to a 16-bit type, stored as 32-bit words (past
   the caches where the build asks): a narrowing store of bf16 would let
   clang fold it into a truncating store, which drops the hint. */
inline void sinpe_stream_16(float16 lo, float16 hi, global ushort *p, const int dt)
{
    uint16 w = dt == SINPE_BF16 ? sinpe_bf16_32(lo, hi)
                                : (uint16)(as_uint8(sinpe_to_16_16(lo, dt)),
                                           as_uint8(sinpe_to_16_16(hi, dt)));
#ifdef SINPE_NT_STORE
    __builtin_nontemporal_store(w, (global uint16 *)p);
#else
    vstore16(w, 0, (global uint *)p);
#endif
}

/* n values at element i: four (sinpe_load4) or a row's end. */
inline float4 sinpe_load_n(global const uchar *base, size_t i, int n, const int dt, bool aligned)
{
    return n == 4 ? sinpe_load4(base, i, dt, aligned) : sinpe_load_part4(base, i, n, dt);
}

inline void sinpe_store_n(float4 x, global uchar *base, size_t i, int n, const int dt, bool aligned)
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
