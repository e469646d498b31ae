/*
 * attn16.cl -- the attention input stage sixteen columns at a time
 * (attn_input.cl's heads whose widths are multiples of 16): device.cl's
 * norm steps on float16 lanes, rope.cl's cos and sin sixteen pairs at a
 * time, and the lanes of several heads' norm scales in one vector.
 */
#ifndef SINPE_ATTN16_CL
#define SINPE_ATTN16_CL

#include "abi.h"
#include "device.cl"
#include "dtype.cl"
#include "rope.cl"

#pragma OPENCL FP_CONTRACT OFF

/* Sixteen values rounded to dt and widened back. */
SINPE_INLINE float16 sinpe_attn_round16(float16 x, const int dt)
{
    if (dt == SINPE_F16)
        return sinpe_f16_widen16(sinpe_f16_round16(x));
    if (dt == SINPE_BF16)
        return as_float16(convert_uint16(sinpe_bf16_16(x)) << 16);
    return x;
}

/* sinpe_load16 and sinpe_store16, fp32 through an element-aligned vector
   pointer in builds without aligned I/O: one access on x86 PoCL, where
   vload16/vstore16 of floats are two to four, with inserts or extracts. */
#if !SINPE_ALIGNED_IO
typedef float16 __attribute__((aligned(4))) sinpe_attn_float16_a4;
#endif

SINPE_INLINE float16 sinpe_attn_load16(global const uchar *base, size_t i, const int dt)
{
#if !SINPE_ALIGNED_IO
    if (dt == SINPE_F32)
        return *(global const sinpe_attn_float16_a4 *)((global const float *)base + i);
#endif
    return sinpe_load16(base, i, dt);
}

SINPE_INLINE void sinpe_attn_store16(float16 x, global uchar *base, size_t i, const int dt)
{
#if !SINPE_ALIGNED_IO
    if (dt == SINPE_F32) {
        *(global sinpe_attn_float16_a4 *)((global float *)base + i) = x;
        return;
    }
#endif
    sinpe_store16(x, base, i, dt);
}

/* device.cl's sinpe_norm_square and sinpe_norm_value, lane by lane. */
SINPE_INLINE void sinpe_attn_square16(float16 *hi, float16 *lo, float16 x)
{
    float16 p = x * x, pe = fma(x, x, -p);
    float16 s = *hi + p, b = s - *hi;
    float16 e = (*hi - (s - b)) + (p - b);
    *hi = s;
    *lo = *lo + (e + pe);
}

SINPE_INLINE float16 sinpe_attn_value16(float16 x, float16 w, uint kind, float2 r)
{
    float16 th = x, tl = (float16)(0.0f);
    if (kind == 1 || kind == 2) {
        float16 p = x * w, pl = fma(x, w, -p);
        th = p;
        tl = pl;
        if (kind == 2) {
            float16 s = x + p, b = s - x;
            th = s;
            tl = ((x - (s - b)) + (p - b)) + pl;
        }
    }
    return fma(th, (float16)(r.x), fma(th, (float16)(r.y), tl * r.x));
}

/* sinpe_norm_merge() on each lane of a vector type. */
#define SINPE_ATTN_MERGE(T)                                                   \
    SINPE_INLINE void sinpe_attn_merge_##T(T *ah, T *al, T bh, T bl)          \
    {                                                                         \
        T s = *ah + bh, t = s - *ah;                                          \
        T e = (*ah - (s - t)) + (bh - t);                                     \
        *ah = s;                                                              \
        *al = (*al + bl) + e;                                                 \
    }
SINPE_ATTN_MERGE(float16)
SINPE_ATTN_MERGE(float8)
SINPE_ATTN_MERGE(float4)
SINPE_ATTN_MERGE(float2)
SINPE_ATTN_MERGE(float)

/* The 32 lane sums of device.cl's norm order in registers: lanes 0 .. 15
   in (h0, l0), 16 .. 31 in (h1, l1).  (A private array indexed by the
   column kept them in memory on PoCL: each step waited on a store.) */
typedef struct {
    float16 h0, l0, h1, l1;
} sinpe_attn_sums;

/* Sixteen columns' squares into lanes 16 .. 31 (upper) or 0 .. 15. */
SINPE_INLINE void sinpe_attn_add16(sinpe_attn_sums *a, uint upper, float16 x)
{
    float16 h = upper ? a->h1 : a->h0, l = upper ? a->l1 : a->l0;
    sinpe_attn_square16(&h, &l, x);
    a->h0 = upper ? a->h0 : h, a->l0 = upper ? a->l0 : l;
    a->h1 = upper ? h : a->h1, a->l1 = upper ? l : a->l1;
}

/* device.cl's rotation of a pair, lane by lane. */
SINPE_INLINE void sinpe_attn_rotate16(float16 x1, float16 x2, float16 c, float16 s, float16 *y1,
                                      float16 *y2)
{
    *y1 = fma(x1, c, -(x2 * s));
    *y2 = fma(x2, c, x1 * s);
}

/* The lanes' tree of sinpe_attn_merge() in vectors from its second level
   (lanes 0 .. 15 left, (h, l)): the head's sum. */
SINPE_INLINE float2 sinpe_attn_merge16(float16 h, float16 l)
{
    float8 h8 = h.lo, l8 = l.lo;
    sinpe_attn_merge_float8(&h8, &l8, h.hi, l.hi);
    float4 h4 = h8.lo, l4 = l8.lo;
    sinpe_attn_merge_float4(&h4, &l4, h8.hi, l8.hi);
    float2 h2 = h4.lo, l2 = l4.lo;
    sinpe_attn_merge_float2(&h2, &l2, h4.hi, l4.hi);
    float h1 = h2.x, l1 = l2.x;
    sinpe_attn_merge_float(&h1, &l1, h2.y, l2.y);
    return (float2)(h1, l1);
}

/* Level s (8, 4, 2 or 1) of the tree on two vectors of 16 / s heads' 2 s
   lane sums each: lane i with i & s clear takes lane i + s, giving 32 / s
   heads' s lanes (sinpe_attn_merge16's operations, heads side by side). */
SINPE_INLINE void sinpe_attn_fold(float16 ah, float16 al, float16 bh, float16 bl, uint s,
                                  float16 *h, float16 *l)
{
    const uint16 i = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint16 x = ((i & (uint16)(~(s - 1))) << 1) | (i & (uint16)(s - 1)), y = x + s;
    float16 xh = shuffle2(ah, bh, x), xl = shuffle2(al, bl, x);
    sinpe_attn_merge_float16(&xh, &xl, shuffle2(ah, bh, y), shuffle2(al, bl, y));
    *h = xh, *l = xl;
}

/* sinpe_norm_scale_inv() on sixteen sums (ah, al), one a lane, in place:
   the same operations lane by lane, so the same bits, without one scalar
   chain a head (inv = sinpe_norm_inv(n)). */
SINPE_INLINE void sinpe_attn_scale16(float16 *hi, float16 *lo, uint n, float inv, float eps)
{
    float16 ah = *hi, al = *lo, nf = (float16)((float)n);
    float16 q = ah * inv, ql = (fma(-q, nf, ah) + al) * inv;
    float16 s = q + eps, b = s - q;
    float16 e = (q - (s - b)) + (eps - b) + ql;
    float16 mh = s + e, ml = e - (mh - s);
    float16 r = as_float16((uint16)(0x5f375a86u) - (as_uint16(mh) >> 1));
    for (int i = 0; i < 3; i++)
        r = r * (1.5f - 0.5f * mh * r * r);
    float16 sq = r * r, sl = fma(r, r, -sq);
    float16 d = fma(mh, sq, (float16)(-1.0f)) + (mh * sl + ml * sq);
    float16 rl = -0.5f * r * d;
    int16 inf = isinf(mh), bad = ~(mh > 0.0f) | inf;
    float16 odd = select(select((float16)(NAN), (float16)(0.0f), inf), (float16)(INFINITY),
                         mh == 0.0f);
    *hi = select(r, odd, bad);
    *lo = select(rl, (float16)(0.0f), bad);
}

/* One head's steps, shared by its passes. */
typedef struct {
    global const uchar *src;
    size_t so;
    global const float *w;
    uint off, npairs, kind, before, after; /* off: the first rotated column */
    int rb, rr; /* round after the first norm, after the rotation */
    float2 r1, r2;
} sinpe_attn_head;

/* Pair group g (pairs 16 g ..) after the first norm and the rotation. */
SINPE_INLINE void sinpe_attn_pairs16(const sinpe_attn_head *h, uint g, global const float *tab,
                                     global const float *coef, const sinpe_rope_params *ra,
                                     const int *pl, const int ot, float16 *y1, float16 *y2)
{
    float16 x1, x2, w1, w2, c, s;
    sinpe_rope_load16(h->src, h->so + h->off, 16 * g, h->npairs, ra->pairing, ot, &x1, &x2);
    if (h->before) {
        w1 = w2 = (float16)(1.0f);
        if (h->kind != 3) /* L2: no weight buffer */
            sinpe_rope_load16((global const uchar *)(h->w + h->off), 0, 16 * g, h->npairs,
                              ra->pairing, SINPE_F32, &w1, &w2);
        x1 = sinpe_attn_value16(x1, w1, h->kind, h->r1);
        x2 = sinpe_attn_value16(x2, w2, h->kind, h->r1);
        if (h->rb)
            x1 = sinpe_attn_round16(x1, ot), x2 = sinpe_attn_round16(x2, ot);
    }
    sinpe_rope_cs16(tab, coef, ra, pl, 16 * g, &c, &s);
    sinpe_attn_rotate16(x1, x2, c, s, y1, y2);
    if (h->rr)
        *y1 = sinpe_attn_round16(*y1, ot), *y2 = sinpe_attn_round16(*y2, ot);
}

/* Columns [c, c + 16) outside the rotated ones after the first norm. */
SINPE_INLINE float16 sinpe_attn_tail16(const sinpe_attn_head *h, uint c, const int ot)
{
    float16 x = sinpe_load16(h->src, h->so + c, ot);
    if (h->before) {
        float16 w = h->kind != 3 ? vload16(0, h->w + c) : (float16)(1.0f);
        x = sinpe_attn_value16(x, w, h->kind, h->r1);
        x = h->rb ? sinpe_attn_round16(x, ot) : x;
    }
    return x;
}

/* The second norm, rounding and temperature of sixteen values of columns
   w (the weights'), ready to store. */
SINPE_INLINE float16 sinpe_attn_last16(const sinpe_attn_head *h, float16 y, float16 w, int temp,
                                       float tau, const int ot)
{
    if (h->after) {
        y = sinpe_attn_value16(y, w, h->kind, h->r2);
        y = temp ? sinpe_attn_round16(y, ot) : y;
    }
    return temp ? y * tau : y;
}

/* Columns [c, c + 16) outside the rotated ones, ready to store. */
SINPE_INLINE float16 sinpe_attn_plain16(const sinpe_attn_head *h, uint c, int temp, float tau,
                                        const int ot)
{
    float16 w = h->after && h->kind != 3 ? vload16(0, h->w + c) : (float16)(1.0f);
    return sinpe_attn_last16(h, sinpe_attn_tail16(h, c, ot), w, temp, tau, ot);
}

/* The first norm's lane sums of q's or k's head at so (lanes c mod 32:
   columns c and c + 16 of each 32) after the tree's first level. */
SINPE_INLINE void sinpe_attn_sum16(global const uchar *src, size_t so, uint D, const int ot,
                                   float16 *h, float16 *l)
{
    const float16 z = (float16)(0.0f);
    sinpe_attn_sums a = {z, z, z, z};
    uint c = 0;
    for (; c + 32 <= D; c += 32) {
        sinpe_attn_square16(&a.h0, &a.l0, sinpe_attn_load16(src, so + c, ot));
        sinpe_attn_square16(&a.h1, &a.l1, sinpe_attn_load16(src, so + c + 16, ot));
    }
    if (c < D)
        sinpe_attn_square16(&a.h0, &a.l0, sinpe_attn_load16(src, so + c, ot));
    sinpe_attn_merge_float16(&a.h0, &a.l0, a.h1, a.l1);
    *h = a.h0, *l = a.l0;
}

/* The first norm's sum of one head. */
SINPE_INLINE float2 sinpe_attn_sum1(const sinpe_attn_head *h, uint D, const int ot)
{
    float16 sh, sl;
    sinpe_attn_sum16(h->src, h->so, D, ot, &sh, &sl);
    return sinpe_attn_merge16(sh, sl);
}

/* The first norm's sums of nh <= 16 heads D apart from so, head j in lane
   j (lanes past nh: 0): the heads' trees level by level, side by side. */
SINPE_INLINE void sinpe_attn_sums16(global const uchar *src, size_t so, uint D, uint nh,
                                    const int ot, float16 *h, float16 *l)
{
    float16 ph[8], pl[8];
#pragma unroll
    for (uint k = 0; k < 8; k++) {
        float16 ah = (float16)(0.0f), al = ah, bh = ah, bl = ah;
        if (2 * k < nh)
            sinpe_attn_sum16(src, so + 2 * k * D, D, ot, &ah, &al);
        if (2 * k + 1 < nh)
            sinpe_attn_sum16(src, so + (2 * k + 1) * D, D, ot, &bh, &bl);
        sinpe_attn_fold(ah, al, bh, bl, 8, &ph[k], &pl[k]);
    }
#pragma unroll
    for (uint s = 4; s > 0; s /= 2)
#pragma unroll
        for (uint k = 0; k < s; k++)
            sinpe_attn_fold(ph[2 * k], pl[2 * k], ph[2 * k + 1], pl[2 * k + 1], s, &ph[k], &pl[k]);
    *h = ph[0], *l = pl[0];
}

/* The second norm's sum: the squares of the first steps' values, in
   column order, R columns from h->off rotated. */
SINPE_INLINE float2 sinpe_attn_sum2(const sinpe_attn_head *h, uint D, uint R,
                                    global const float *tab, global const float *coef,
                                    const sinpe_rope_params *ra, const int *pl, const int ot)
{
    const uint16 lo_cols = (uint16)(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    uint G = R / 32, o = h->off / 16; /* o: the rotated columns' first lane half */
    const float16 z = (float16)(0.0f);
    sinpe_attn_sums a = {z, z, z, z};
    float16 y1, y2;
    for (uint c = 0; c < h->off; c += 16)
        sinpe_attn_add16(&a, c / 16 % 2, sinpe_attn_tail16(h, c, ot));
    for (uint second = 0; second < 2 - ra->pairing; second++)
        for (uint g = 0; g < G; g++) {
            sinpe_attn_pairs16(h, g, tab, coef, ra, pl, ot, &y1, &y2);
            if (ra->pairing) {
                sinpe_attn_add16(&a, o % 2, shuffle2(y1, y2, lo_cols));
                sinpe_attn_add16(&a, (o + 1) % 2, shuffle2(y1, y2, lo_cols + 8u));
            } else { /* columns off + R/2 second + 16 g */
                sinpe_attn_add16(&a, (o + second * G + g) % 2, second ? y2 : y1);
            }
        }
    for (uint c = h->off + R; c < D; c += 16)
        sinpe_attn_add16(&a, c / 16 % 2, sinpe_attn_tail16(h, c, ot));
    sinpe_attn_merge_float16(&a.h0, &a.l0, a.h1, a.l1);
    return sinpe_attn_merge16(a.h0, a.l0);
}

/* q's or k's head (kind 0 or 1) by sixteens, its scales in h, R columns
   from h->off rotated (R = 0: none), into dst at d in type dt. */
SINPE_INLINE void sinpe_attn_run16(const sinpe_attn_head *h, uint D, uint R, global uchar *dst,
                                   size_t d, const int dt, int temp, float tau,
                                   global const float *tab, global const float *coef,
                                   const sinpe_rope_params *ra, const int *pl, const int ot)
{
    uint G = R / 32;
    float16 y1, y2, w1, w2;
    for (uint g = 0; g < G; g++) {
        sinpe_attn_pairs16(h, g, tab, coef, ra, pl, ot, &y1, &y2);
        w1 = w2 = (float16)(1.0f);
        if (h->after && h->kind != 3)
            sinpe_rope_load16((global const uchar *)(h->w + h->off), 0, 16 * g, h->npairs,
                              ra->pairing, SINPE_F32, &w1, &w2);
        sinpe_rope_store16(dst, d + h->off, 16 * g, h->npairs, ra->pairing, dt,
                           sinpe_attn_last16(h, y1, w1, temp, tau, ot),
                           sinpe_attn_last16(h, y2, w2, temp, tau, ot));
    }
    for (uint c = 0; c < h->off; c += 16)
        sinpe_store16(sinpe_attn_plain16(h, c, temp, tau, ot), dst, d + c, dt);
    for (uint c = h->off + R; c < D; c += 16)
        sinpe_store16(sinpe_attn_plain16(h, c, temp, tau, ot), dst, d + c, dt);
}

/* q's or k's head in the common form: the norm of kind 1 or 2 before a
   rotation of every column (R = D), cos and sin from the table's row, no
   temperature: sinpe_attn_run16's steps for it, with nothing on the way
   to test per vector (r: the head's scale). */
SINPE_INLINE void sinpe_attn_plain_head(global const uchar *src, size_t so, global const float *w,
                                        global const float *row, uint npairs, uint pairing,
                                        uint layout, uint kind, float2 r, global uchar *dst,
                                        size_t d, const int dt, const int ot)
{
    float16 x1, x2, w1, w2, c, s, y1, y2;
    global const uchar *wb = (global const uchar *)w, *rb = (global const uchar *)row;
    for (uint k = 0; k < npairs; k += 16) {
        if (pairing) {
            sinpe_rope_load16(src, so, k, npairs, 1, ot, &x1, &x2);
            sinpe_rope_load16(wb, 0, k, npairs, 1, SINPE_F32, &w1, &w2);
        } else {
            x1 = sinpe_attn_load16(src, so + k, ot);
            x2 = sinpe_attn_load16(src, so + npairs + k, ot);
            w1 = sinpe_attn_load16(wb, k, SINPE_F32);
            w2 = sinpe_attn_load16(wb, npairs + k, SINPE_F32);
        }
        x1 = sinpe_attn_round16(sinpe_attn_value16(x1, w1, kind, r), ot);
        x2 = sinpe_attn_round16(sinpe_attn_value16(x2, w2, kind, r), ot);
        if (layout) {
            sinpe_rope_load16(rb, 0, k, npairs, 1, SINPE_F32, &c, &s);
        } else {
            c = sinpe_attn_load16(rb, k, SINPE_F32);
            s = sinpe_attn_load16(rb, npairs + k, SINPE_F32);
        }
        sinpe_attn_rotate16(x1, x2, c, s, &y1, &y2);
        if (pairing) {
            sinpe_rope_store16(dst, d, k, npairs, 1, dt, y1, y2);
        } else {
            sinpe_attn_store16(y1, dst, d + k, dt);
            sinpe_attn_store16(y2, dst, d + npairs + k, dt);
        }
    }
}

/* The same for nh heads D apart, kind a constant where inlined. */
SINPE_INLINE void sinpe_attn_plain_heads(global const uchar *src, size_t so, global const float *w,
                                         global const float *row, const sinpe_rope_params *ra,
                                         uint nh, uint kind, float16 rh, float16 rl,
                                         global uchar *dst, size_t d, const int dt, const int ot)
{
    float h[16], l[16];
    vstore16(rh, 0, h);
    vstore16(rl, 0, l);
    uint D = ra->head_dim;
    /* Halves, a COS_SIN table and the output's own type (q, and k into a
       cache of its type) as constants: no test left in the loop. */
    int plain = !ra->pairing && !ra->layout && dt == ot;
    for (uint j = 0; j < nh; j++) {
        float2 r = (float2)(h[j], l[j]);
        if (plain)
            sinpe_attn_plain_head(src, so + j * D, w, row, D / 2, 0, 0, kind, r, dst, d + j * D,
                                  ot, ot);
        else
            sinpe_attn_plain_head(src, so + j * D, w, row, D / 2, ra->pairing, ra->layout, kind,
                                  r, dst, d + j * D, dt, ot);
    }
}

#endif /* SINPE_ATTN16_CL */
