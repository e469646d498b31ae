/*
 * blocks.cl -- ggml's 4-, 5- and 6-bit block types, decoded to the float32
 * value ggml's dequantization computes (ggml-quants.c, and the gguf
 * package's gguf/quants.py, whose order of operations this follows).
 * d, m and dmin are fp16 (little-endian), q the block's unsigned codes.
 *   Q4_0  18 bytes / 32: d, qs[16]: value j the low nibble of qs[j % 16]
 *         (j < 16) or its high one; v = d * (q - 8)
 *   Q4_1  20 bytes / 32: d, m, qs[16] as Q4_0; v = d * q + m
 *   Q5_0  22 bytes / 32: d, qh (32 bits), qs[16]; q = nibble | bit j of
 *         qh << 4; v = d * (q - 16)
 *   Q5_1  24 bytes / 32: d, m, qh, qs; v = d * q + m
 *   Q4_K  144 bytes / 256: d, dmin, scales[12] (eight 6-bit scales sc and
 *         mins mn, ggml's get_scale_min_k4), qs[128]: sub-block s of 32
 *         values from qs[32 (s / 2)], low nibbles for even s; v =
 *         (d * sc) * q - dmin * mn
 *   Q5_K  176 bytes / 256: Q4_K with qh[32] before qs; bit s of qh[j % 32]
 *         is bit 4 of q
 *   Q6_K  210 bytes / 256: ql[128], qh[64], int8 sc[16], d; half h of 128
 *         values: w = j % 128, q = (nibble w / 64 of ql[64 h + w % 64]) |
 *         (bits 2 (w / 32) of qh[32 h + w % 32]) << 4, minus 32; v =
 *         (d * sc[j / 16]) * q
 * Every product above is exact in float32 (d has 11 significant bits, sc
 * at most 7, q at most 5, and d * sc, q * d or d * sc * q at most 23), so a
 * value is rounded at most once, at the add of m or dmin * mn: a compiler
 * that contracts d * q - m into an fma (ggml's C may) gives the same bits
 * as the separate operations (the gguf package's NumPy), and the adds are
 * written as gguf does them.  The host keeps offsets, strides and rows
 * whole blocks, so four or sixteen values from element i (i a multiple of
 * 4 or 16) share their scales and lie in one block.
 */
#ifndef SINPE_BLOCKS_CL
#define SINPE_BLOCKS_CL

#include "abi.h"

/* The fp16 value of the two bytes at p, through a four-value conversion
   (a scalar vload_half stops pocl's vectoriser). */
inline float sinpe_half_at(global const uchar *p)
{
    ushort4 u = (ushort4)((ushort)(p[0] | (p[1] << 8)), 0, 0, 0);
    return vload_half4(0, (const half *)&u).x;
}

/* Sixteen fp16 values widened, and sixteen floats rounded to fp16 (to
   nearest even), as bits: one AVX-512 conversion each where the device
   compiler targets AVX-512 (__AVX512F__; pocl), where vload_half16 and
   vstore_half16_rte are two eight-lane F16C conversions joined by an
   insert or split by an extract.  Elsewhere the OpenCL built-ins.  (The
   widening is exact, 4 its "current direction" operand; the rounding's
   0 is to nearest even whatever MXCSR says, as vstore_half16_rte.) */
#if defined(__AVX512F__) && defined(__has_builtin)
#if __has_builtin(__builtin_ia32_vcvtph2ps512_mask) &&                                         \
    __has_builtin(__builtin_ia32_vcvtps2ph512_mask)
#define SINPE_F16_512 1
#endif
#endif

inline float16 sinpe_f16_widen16(ushort16 h)
{
#ifdef SINPE_F16_512
    return __builtin_ia32_vcvtph2ps512_mask(as_short16(h), (float16)(0.0f), (ushort)0xffff, 4);
#else
    return vload_half16(0, (const half *)&h);
#endif
}

inline float4 sinpe_f16_widen4(ushort4 h)
{
    return vload_half4(0, (const half *)&h);
}

inline ushort4 sinpe_f16_round4(float4 x)
{
    ushort4 u;
    vstore_half4_rte(x, 0, (half *)&u);
    return u;
}

inline ushort16 sinpe_f16_round16(float16 x)
{
#ifdef SINPE_F16_512
    return as_ushort16(__builtin_ia32_vcvtps2ph512_mask(x, 0, (short16)(0), (ushort)0xffff));
#else
    ushort16 u;
    vstore_half16_rte(x, 0, (half *)&u);
    return u;
#endif
}

/* Whether dt is one of ggml's block types (Q8_0 too), and their blocks. */
#define SINPE_BLOCK_TYPE(dt) ((dt) == SINPE_Q8_0 || ((dt) >= SINPE_Q4_0 && (dt) <= SINPE_Q6_K))
#define SINPE_BLOCK_VALUES(dt) ((dt) >= SINPE_Q4_K ? 256 : 32)
#define SINPE_BLOCK_BYTES(dt)                                                            \
    ((dt) == SINPE_Q8_0   ? 34                                                           \
     : (dt) == SINPE_Q4_0 ? 18                                                           \
     : (dt) == SINPE_Q4_1 ? 20                                                           \
     : (dt) == SINPE_Q5_0 ? 22                                                           \
     : (dt) == SINPE_Q5_1 ? 24                                                           \
     : (dt) == SINPE_Q4_K ? 144                                                          \
     : (dt) == SINPE_Q5_K ? 176                                                          \
                          : 210)

/* The block that holds element i. */
inline global const uchar *sinpe_block_at(global const uchar *base, size_t i, const int dt)
{
    return base + i / SINPE_BLOCK_VALUES(dt) * SINPE_BLOCK_BYTES(dt);
}

/* The bytes from the start of the block that holds element i to the end
   of the one that holds element i + n - 1: where n values of a k-quant's
   block lie apart (Q6_K's high bits and scales at the block's end). */
inline size_t sinpe_block_span(size_t i, size_t n, const int dt)
{
    size_t v = SINPE_BLOCK_VALUES(dt);
    return ((i + n - 1) / v - i / v + 1) * SINPE_BLOCK_BYTES(dt);
}

/* Scale k (0 to 7) of a Q4_K or Q5_K block's twelve bytes at s, and its
   min: the three bytes read whatever k (s[k & 3] is s[k - 4] for k >= 4),
   then a select, not a branch around a load. */
inline float2 sinpe_k4_scale_min(global const uchar *s, uint k)
{
    uint x = s[k], y = s[k + 4], z = s[k & 3];
    uint sc = k < 4 ? x & 63 : (y & 15) | (z >> 6) << 4;
    uint mn = k < 4 ? y & 63 : (y >> 4) | (x >> 6) << 4;
    return (float2)((float)sc, (float)mn);
}

/* Bits [r, r + w) of each of 16 bytes (r + w <= 8; mask: the w low bits
   set in both bytes of a 16-bit word), shifted in 16-bit lanes: a byte
   shift by a variable costs x86 the making of a mask besides. */
inline uchar16 sinpe_bits16(uchar16 v, uint r, ushort mask)
{
    return as_uchar16((as_ushort8(v) >> (ushort)r) & mask);
}

/* Bit 4 of sixteen Q5_0 or Q5_1 codes: bit l % 8 of byte at[l] of the
   block's four qh bytes for lane l, as 16 or 0.  Byte lanes throughout
   (a byte shuffle, an and, a compare): the same bits taken through 32-bit
   lanes cost x86 a variable shift and a narrowing in 512-bit registers. */
inline uchar16 sinpe_qh_bits(uchar4 qh, uchar16 at)
{
    uchar16 bit = (uchar16)(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128);
    return as_uchar16((shuffle(qh, at) & bit) != (uchar)0) & (uchar)16;
}

/* N values from element i of a block type other than Q8_0; lane l of
   SINPE_IOTA##N is l. */
#define SINPE_IOTA4 (uint4)(0, 1, 2, 3)
#define SINPE_IOTA16 (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define SINPE_BLOCKS_N(N)                                                                 \
    SINPE_INLINE float##N sinpe_block##N(global const uchar *base, size_t i, const int dt) \
    {                                                                                     \
        global const uchar *b = sinpe_block_at(base, i, dt);                              \
        uint j = (uint)(i % SINPE_BLOCK_VALUES(dt));                                      \
        if (dt == SINPE_Q6_K) {                                                           \
            uint h = j >> 7, w = j & 127;                                                 \
            uchar##N lo = (vload##N(0, b + 64 * h + (w & 63)) >> (uchar)(w >> 6 << 2)) &  \
                          (uchar)15;                                                      \
            uchar##N hi = (vload##N(0, b + 128 + 32 * h + (w & 31)) >> (uchar)(w >> 5 << 1)) & \
                          (uchar)3;                                                       \
            float d = sinpe_half_at(b + 208) * (float)as_char(b[192 + (j >> 4)]);         \
            return d * (convert_float##N(lo | hi << (uchar)4) - 32.0f);                   \
        }                                                                                 \
        if (dt == SINPE_Q4_K || dt == SINPE_Q5_K) {                                       \
            uint s = j >> 5;                                                              \
            float2 sm = sinpe_k4_scale_min(b + 4, s);                                     \
            global const uchar *qs = b + (dt == SINPE_Q5_K ? 48 : 16) + 32 * (s >> 1);    \
            uchar##N q = (vload##N(0, qs + (j & 31)) >> (uchar)((s & 1) << 2)) & (uchar)15;   \
            if (dt == SINPE_Q5_K)                                                         \
                q |= ((vload##N(0, b + 16 + (j & 31)) >> (uchar)s) & (uchar)1) << (uchar)4;   \
            float d = sinpe_half_at(b) * sm.x, m = sinpe_half_at(b + 2) * sm.y;           \
            return d * convert_float##N(q) - m;                                           \
        }                                                                                 \
        bool one = dt == SINPE_Q4_1 || dt == SINPE_Q5_1; /* with a min m */               \
        global const uchar *qs = b + (one ? 4 : 2) + (dt >= SINPE_Q5_0 ? 4 : 0);          \
        uchar##N q = (vload##N(0, qs + (j & 15)) >> (uchar)(j >> 4 << 2)) & (uchar)15;    \
        if (dt == SINPE_Q5_0 || dt == SINPE_Q5_1) {                                       \
            global const uchar *p = b + (one ? 4 : 2);                                    \
            uint qh = p[0] | (uint)p[1] << 8 | (uint)p[2] << 16 | (uint)p[3] << 24;       \
            q |= convert_uchar##N(((uint##N)(qh) >> (j + SINPE_IOTA##N)) & 1u) << (uchar)4;   \
        }                                                                                 \
        float d = sinpe_half_at(b);                                                       \
        if (one)                                                                          \
            return d * convert_float##N(q) + sinpe_half_at(b + 2);                        \
        return d * (convert_float##N(q) - (dt == SINPE_Q4_0 ? 8.0f : 16.0f));             \
    }
SINPE_BLOCKS_N(4)
SINPE_BLOCKS_N(16)
#undef SINPE_BLOCKS_N

/* The 32 values from element i (a multiple of 32) of a block type other
   than Q8_0, as sinpe_block16 decodes them, with the block's scales read
   and unpacked once: one block of the 32-value types, one sub-block (one
   scale pair) of Q4_K and Q5_K, two 16-value scales of Q6_K under one d.
   The low nibble of each of 16 bytes gives lo and the high one hi (Q4_0
   to Q5_1), or 32 bytes give 32 values (the k-quants). */
SINPE_INLINE void sinpe_block32(global const uchar *base, size_t i, const int dt, float16 *lo,
                                float16 *hi)
{
    global const uchar *b = sinpe_block_at(base, i, dt);
    uint j = (uint)(i % SINPE_BLOCK_VALUES(dt));
    if (dt == SINPE_Q6_K) {
        uint h = j >> 7, w = j & 127;
        global const uchar *ql = b + 64 * h + (w & 63), *qh = b + 128 + 32 * h;
        uint sl = w >> 6 << 2, sh = w >> 5 << 1;
        uchar16 q0 = sinpe_bits16(vload16(0, ql), sl, 0x0f0f) |
                     sinpe_bits16(vload16(0, qh), sh, 0x0303) << (uchar)4;
        uchar16 q1 = sinpe_bits16(vload16(1, ql), sl, 0x0f0f) |
                     sinpe_bits16(vload16(1, qh), sh, 0x0303) << (uchar)4;
        float d = sinpe_half_at(b + 208);
        /* q - 32 as a signed byte: the same exact value as the float subtraction */
        *lo = d * (float)as_char(b[192 + (j >> 4)]) * convert_float16(as_char16(q0 - (uchar)32));
        *hi = d * (float)as_char(b[193 + (j >> 4)]) * convert_float16(as_char16(q1 - (uchar)32));
        return;
    }
    if (dt == SINPE_Q4_K || dt == SINPE_Q5_K) {
        uint s = j >> 5;
        float2 sm = sinpe_k4_scale_min(b + 4, s);
        global const uchar *qs = b + (dt == SINPE_Q5_K ? 48 : 16) + 32 * (s >> 1);
        uint sn = (s & 1) << 2;
        uchar16 q0 = sinpe_bits16(vload16(0, qs), sn, 0x0f0f);
        uchar16 q1 = sinpe_bits16(vload16(1, qs), sn, 0x0f0f);
        if (dt == SINPE_Q5_K) {
            q0 |= sinpe_bits16(vload16(0, b + 16), s, 0x0101) << (uchar)4;
            q1 |= sinpe_bits16(vload16(1, b + 16), s, 0x0101) << (uchar)4;
        }
        float d = sinpe_half_at(b) * sm.x, m = sinpe_half_at(b + 2) * sm.y;
        *lo = d * convert_float16(q0) - m;
        *hi = d * convert_float16(q1) - m;
        return;
    }
    bool one = dt == SINPE_Q4_1 || dt == SINPE_Q5_1; /* with a min m */
    uchar16 c = vload16(0, b + (one ? 4 : 2) + (dt >= SINPE_Q5_0 ? 4 : 0));
    uchar16 q0 = c & (uchar)15, q1 = c >> (uchar)4;
    if (dt == SINPE_Q5_0 || dt == SINPE_Q5_1) {
        uchar4 qh = vload4(0, b + (one ? 4 : 2));
        q0 |= sinpe_qh_bits(qh, (uchar16)(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
        q1 |= sinpe_qh_bits(qh, (uchar16)(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    }
    float d = sinpe_half_at(b);
    if (one) {
        float m = sinpe_half_at(b + 2);
        *lo = d * convert_float16(q0) + m;
        *hi = d * convert_float16(q1) + m;
        return;
    }
    float z = dt == SINPE_Q4_0 ? 8.0f : 16.0f;
    *lo = d * (convert_float16(q0) - z);
    *hi = d * (convert_float16(q1) - z);
}

/* Sixteen Q6_K values of scale s: the low four bits of each code in lo,
   its high two at bits 4 and 5 of hi (its other bits ignored), q - 32 as
   a signed byte as in sinpe_block32. */
inline float16 sinpe_q6k16(uchar16 lo, uchar16 hi, float s)
{
    return s * convert_float16(as_char16((lo | (hi & (uchar)0x30)) - (uchar)32));
}

/* The 128 values of half of a Q6_K block from element i (a multiple of
   128), v[k] values 16 k to 16 k + 15, as sinpe_block32 gives them, but
   in ggml's order: the half's 64 ql bytes and 32 qh bytes read once, and
   quarter k (32 values) from ql[32 (k % 2) + l] (nibble k / 2) and bits
   2 k of qh[l], constant shifts.  sinpe_block32, a quarter at a time,
   reads the ql bytes twice and the qh bytes four times over the half, with
   variable shifts each time: most of Q6_K's decode work. */
SINPE_INLINE void sinpe_q6k_half(global const uchar *base, size_t i, float16 *v)
{
    global const uchar *b = sinpe_block_at(base, i, SINPE_Q6_K);
    uint h = (uint)(i % 256) >> 7;
    global const uchar *ql = b + 64 * h, *qh = b + 128 + 32 * h;
    uchar16 l0 = vload16(0, ql), l1 = vload16(1, ql), l2 = vload16(2, ql), l3 = vload16(3, ql);
    uchar16 h0 = vload16(0, qh), h1 = vload16(1, qh);
    /* d * sc, lane by lane: sinpe_block32's product */
    float8 s = sinpe_half_at(b + 208) *
               convert_float8(vload8(0, (global const char *)b + 192 + 8 * h));
    v[0] = sinpe_q6k16(l0 & (uchar)15, h0 << (uchar)4, s.s0);
    v[1] = sinpe_q6k16(l1 & (uchar)15, h1 << (uchar)4, s.s1);
    v[2] = sinpe_q6k16(l2 & (uchar)15, h0 << (uchar)2, s.s2);
    v[3] = sinpe_q6k16(l3 & (uchar)15, h1 << (uchar)2, s.s3);
    v[4] = sinpe_q6k16(l0 >> (uchar)4, h0, s.s4);
    v[5] = sinpe_q6k16(l1 >> (uchar)4, h1, s.s5);
    v[6] = sinpe_q6k16(l2 >> (uchar)4, h0 >> (uchar)2, s.s6);
    v[7] = sinpe_q6k16(l3 >> (uchar)4, h1 >> (uchar)2, s.s7);
}

/* Sixteen Q4_K or Q5_K values: the codes q (low five bits), d * sc and
   dmin * mn, by sinpe_block32's expression. */
inline float16 sinpe_k4_16(uchar16 q, float d, float m)
{
    return d * convert_float16(q) - m;
}

/* The 128 values of half of a Q4_K or Q5_K block from element i (a
   multiple of 128), v[k] values 16 k to 16 k + 15, as sinpe_block32 gives
   them, in ggml's order: the half's 64 qs bytes (its two 64-value pairs,
   low nibbles the pair's first 32 values), for Q5_K its bits of the 32 qh
   bytes, and its four scale and min pairs, each read and unpacked once,
   constant shifts.  sinpe_block32, a sub-block at a time, reads the qs
   bytes twice and the qh bytes four times over the half, with variable
   shifts, and unpacks each scale and min pair through scalar selects. */
SINPE_INLINE void sinpe_k4_half(global const uchar *base, size_t i, const int dt, float16 *v)
{
    global const uchar *b = sinpe_block_at(base, i, dt);
    bool h = (uint)(i % 256) >= 128;
    global const uchar *qs = b + (dt == SINPE_Q5_K ? 48 : 16) + 64 * h;
    uchar16 l0 = vload16(0, qs), l1 = vload16(1, qs), l2 = vload16(2, qs), l3 = vload16(3, qs);
    /* scales and mins 4 h to 4 h + 3, as sinpe_k4_scale_min unpacks them */
    uchar4 x = vload4(0, b + 4), y = vload4(1, b + 4), z = vload4(2, b + 4);
    uchar4 sc = h ? (z & (uchar)15) | (x >> (uchar)6) << (uchar)4 : x & (uchar)63;
    uchar4 mn = h ? (z >> (uchar)4) | (y >> (uchar)6) << (uchar)4 : y & (uchar)63;
    /* d * sc and dmin * mn, lane by lane: sinpe_block32's products */
    float4 d = sinpe_half_at(b) * convert_float4(sc);
    float4 m = sinpe_half_at(b + 2) * convert_float4(mn);
    uchar16 q[8] = {l0 & (uchar)15, l1 & (uchar)15, l0 >> (uchar)4, l1 >> (uchar)4,
                    l2 & (uchar)15, l3 & (uchar)15, l2 >> (uchar)4, l3 >> (uchar)4};
    if (dt == SINPE_Q5_K) { /* sub-block 4 h + k's bit 4: bit 4 h + k of qh[l] */
        uchar16 h0 = vload16(0, b + 16), h1 = vload16(1, b + 16);
        h0 = h ? h0 >> (uchar)4 : h0;
        h1 = h ? h1 >> (uchar)4 : h1;
#pragma unroll
        for (int k = 0; k < 8; k++)
            q[k] |= ((k & 1 ? h1 : h0) << (uchar)(4 - k / 2)) & (uchar)16;
    }
    v[0] = sinpe_k4_16(q[0], d.s0, m.s0);
    v[1] = sinpe_k4_16(q[1], d.s0, m.s0);
    v[2] = sinpe_k4_16(q[2], d.s1, m.s1);
    v[3] = sinpe_k4_16(q[3], d.s1, m.s1);
    v[4] = sinpe_k4_16(q[4], d.s2, m.s2);
    v[5] = sinpe_k4_16(q[5], d.s2, m.s2);
    v[6] = sinpe_k4_16(q[6], d.s3, m.s3);
    v[7] = sinpe_k4_16(q[7], d.s3, m.s3);
}

/* Half a k-quant block (Q4_K, Q5_K or Q6_K) from element i, a multiple of
   128, decoded at once: STREAM's lines where they cover whole halves. */
SINPE_INLINE void sinpe_half128(global const uchar *base, size_t i, const int dt, float16 *v)
{
    if (dt == SINPE_Q6_K)
        sinpe_q6k_half(base, i, v);
    else
        sinpe_k4_half(base, i, dt, v);
}

#endif /* SINPE_BLOCKS_CL */
