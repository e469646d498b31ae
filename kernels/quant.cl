/*
 * quant.cl -- the quantized weight types, decoded to float exactly: the
 * values before the row's scale (embed.cl, sinpe_row_scale, applies that).
 *   I8       int8 q: q
 *   Q8_0     ggml's blocks: 34 bytes per 32 values, an fp16 scale d then
 *            32 int8 q; value q * d (one rounding: d and q are exact
 *            floats)
 *   Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K
 *            ggml's other block types (blocks.cl), the row scale 1
 *   E4M3     OCP FP8 E4M3 ("fn"): bias 7, subnormals, no infinities,
 *            S.1111.111 is NaN; largest finite 448
 *   E5M2     OCP FP8 E5M2: the upper byte of an IEEE half (bias 15,
 *            infinities, NaNs); largest finite 57344
 * Element i is the i-th value of the buffer: byte i, or for Q8_0 byte
 * 34 (i / 32) + 2 + i % 32 of its block.  A four- or sixteen-value load
 * never crosses a Q8_0 block: the host keeps offsets, strides and row
 * lengths whole blocks.
 */
#ifndef SINPE_QUANT_CL
#define SINPE_QUANT_CL

#include "abi.h"

/* Bytes of a Q8_0 block, and the block that holds element i. */
#define SINPE_Q8_0_BYTES 34
inline global const uchar *sinpe_q8_0_block(global const uchar *base, size_t i)
{
    return base + (i >> 5) * SINPE_Q8_0_BYTES;
}

#include "blocks.cl"

/* For N values at a time: E4M3 codes as floats (the code sign-extended
   and shifted left 7 is a half with its sign, exponent field and mantissa,
   whose value is the code's over 2^8, subnormals included; the NaN code's
   half, 0x3f80 and the sign, is the only one that carries into bit 14 when
   0x80 is added, and that bit makes it a half NaN: 16-bit lanes, no float
   compare); N bytes as values (E4M3, E5M2, the upper byte of a half, else
   int8: I8, and Q8_0's q before its block scale); N values at element i
   (dt I8, Q8_0, E4M3 or E5M2). */
#define SINPE_QUANT_N(N)                                                                  \
    inline float##N sinpe_e4m3_##N(uchar##N c)                                           \
    {                                                                                     \
        ushort##N h = as_ushort##N(convert_short##N(as_char##N(c)) << (short)7);          \
        h &= (ushort)0xbf80;                                                              \
        h |= (h + (ushort)0x80) & (ushort)0x4000;                                         \
        return sinpe_f16_widen##N(h) * 0x1p8f;                                            \
    }                                                                                     \
    inline float##N sinpe_qdecode_##N(uchar##N c, const int dt)                          \
    {                                                                                     \
        if (dt == SINPE_FP8_E4M3)                                                         \
            return sinpe_e4m3_##N(c);                                                     \
        if (dt == SINPE_FP8_E5M2) {                                                       \
            ushort##N h = convert_ushort##N(c) << (ushort)8;                              \
            return sinpe_f16_widen##N(h);                                                 \
        }                                                                                 \
        return convert_float##N(as_char##N(c));                                           \
    }                                                                                     \
    SINPE_INLINE float##N sinpe_qload##N(global const uchar *base, size_t i, const int dt) \
    {                                                                                     \
        if (SINPE_BLOCK_TYPE(dt) && dt != SINPE_Q8_0)                                     \
            return sinpe_block##N(base, i, dt);                                           \
        if (dt != SINPE_Q8_0)                                                             \
            return sinpe_qdecode_##N(vload##N(0, base + i), dt);                          \
        global const uchar *b = sinpe_q8_0_block(base, i);                                \
        return sinpe_half_at(b) * sinpe_qdecode_##N(vload##N(0, b + 2 + (i & 31)), dt);   \
    }
SINPE_QUANT_N(4)
SINPE_QUANT_N(16)
#undef SINPE_QUANT_N

/* The 32 values of a block type from element i (a multiple of 32): a
   Q8_0 block, its scale read once for both halves, or sinpe_block32. */
SINPE_INLINE void sinpe_qload32(global const uchar *base, size_t i, const int dt, float16 *lo,
                                float16 *hi)
{
    if (dt != SINPE_Q8_0) {
        sinpe_block32(base, i, dt, lo, hi);
        return;
    }
    global const uchar *b = sinpe_q8_0_block(base, i);
    float d = sinpe_half_at(b);
    *lo = d * sinpe_qdecode_16(vload16(0, b + 2), SINPE_Q8_0);
    *hi = d * sinpe_qdecode_16(vload16(1, b + 2), SINPE_Q8_0);
}

/* The first n (1 to 4) values at element i, the other lanes zero. */
SINPE_INLINE float4 sinpe_qload_part4(global const uchar *base, size_t i, int n, const int dt)
{
    if (SINPE_BLOCK_TYPE(dt) && dt != SINPE_Q8_0) { /* rows are whole blocks: n is 4 */
        float4 v = sinpe_block4(base, i, dt);
        return (float4)(v.x, n > 1 ? v.y : 0.0f, n > 2 ? v.z : 0.0f, n > 3 ? v.w : 0.0f);
    }
    global const uchar *p = dt == SINPE_Q8_0 ? sinpe_q8_0_block(base, i) + 2 + (i & 31) : base + i;
    uchar4 c = (uchar4)(p[0], n > 1 ? p[1] : 0, n > 2 ? p[2] : 0, n > 3 ? p[3] : 0);
    float s = dt == SINPE_Q8_0 ? sinpe_half_at(sinpe_q8_0_block(base, i)) : 1.0f;
    return s * sinpe_qdecode_4(c, dt);
}

#endif /* SINPE_QUANT_CL */
