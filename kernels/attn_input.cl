/*
 * attn_input.cl -- the attention input stage (include/sinpe.h,
 * sinpe_attn_input_args): work-item (g, r) takes up to sixteen heads of one
 * kind (q, k or v) of token r, runs the header's steps on each (device.cl's
 * norm and temperature, rope.cl's cos and sin with device.cl's rotation),
 * and writes it to q's output or to the token's cache row, rounding once to
 * the cache's type (Q8_0 blocks here).
 */
#ifndef SINPE_ATTN_INPUT_CL
#define SINPE_ATTN_INPUT_CL

#include "abi.h"
#include "device.cl"
#include "dtype.cl"
#include "positions.cl"
#include "rope.cl"

#pragma OPENCL FP_CONTRACT OFF

#define SINPE_ATTN_MAX_DIM 512
#define SINPE_ATTN_GROUP 16 /* heads a work-item takes: one a lane of its scales */

/* The fp16 bits of x rounded to nearest even, and an fp16's value. */
SINPE_INLINE ushort sinpe_attn_f16_bits(float x)
{
    ushort h;
    vstore_half_rte(x, 0, (half *)&h);
    return h;
}

SINPE_INLINE float sinpe_attn_f16(ushort h)
{
    return vload_half(0, (const half *)&h);
}

/* The n values of x rounded to dt and widened back. */
SINPE_INLINE void sinpe_attn_round(float *x, uint n, const int dt)
{
    for (uint c = 0; c < n && dt != SINPE_F32; c++)
        x[c] = dt == SINPE_F16 ? sinpe_attn_f16(sinpe_attn_f16_bits(x[c]))
                               : as_float((uint)sinpe_to_bf16(x[c]) << 16);
}

/* The 32 lane sums merged as a tree (device.cl's norm order). */
SINPE_INLINE float2 sinpe_attn_merge(float *hi, float *lo)
{
    for (int s = 16; s > 0; s /= 2)
        for (int l = 0; l < s; l++) {
            float2 m = sinpe_norm_merge((float2)(hi[l], lo[l]), (float2)(hi[l + s], lo[l + s]));
            hi[l] = m.x;
            lo[l] = m.y;
        }
    return (float2)(hi[0], lo[0]);
}

/* The norm of n values in place, weights w (kinds 1 and 2). */
SINPE_INLINE void sinpe_attn_norm(float *x, uint n, global const float *w, uint kind, float eps)
{
    float hi[32], lo[32];
    for (int l = 0; l < 32; l++)
        hi[l] = lo[l] = 0.0f;
    for (uint c = 0; c < n; c++) {
        float2 t = sinpe_norm_square((float2)(hi[c % 32], lo[c % 32]), x[c]);
        hi[c % 32] = t.x;
        lo[c % 32] = t.y;
    }
    float2 r = sinpe_norm_scale(sinpe_attn_merge(hi, lo), n, eps);
    for (uint c = 0; c < n; c++)
        x[c] = sinpe_norm_value(x[c], kind == 3 ? 1.0f : w[c], kind, r);
}

/* The R columns from x (the head's rotated slice) rotated by the cos and
   sin of the positions pl, the pairs of the table's pairing. */
SINPE_INLINE void sinpe_attn_rotate(float *x, global const float *tab, global const float *coef,
                                    const sinpe_rope_params *ra, const int *pl)
{
    uint npairs = ra->rot / 2;
    for (uint k0 = 0; k0 < npairs; k0 += 4) {
        int n = (int)min(4u, npairs - k0);
        float4 c4, s4;
        float c[4], s[4];
        sinpe_rope_cs4(tab, coef, ra, pl, k0, n, &c4, &s4);
        vstore4(c4, 0, c);
        vstore4(s4, 0, s);
        for (int l = 0; l < n; l++) {
            uint k = k0 + (uint)l;
            uint i1 = ra->pairing ? 2 * k : k, i2 = ra->pairing ? 2 * k + 1 : k + npairs;
            float2 y = sinpe_rope_turn(x[i1], x[i2], c[l], s[l]);
            x[i1] = y.x;
            x[i2] = y.y;
        }
    }
}

/* 32 values as one Q8_0 block at blk: d = max |x| / 127 to the nearest
   fp16 (ties to even; the candidates around the float32 quotient compared
   by exact residuals), q = x / d to the nearest integer (the same way),
   within [-127, 127]. */
SINPE_INLINE void sinpe_attn_q8_0(const float *x, global uchar *blk)
{
    float amax = 0.0f;
    for (int j = 0; j < 32; j++)
        amax = fmax(amax, fabs(x[j]));
    ushort h0 = sinpe_attn_f16_bits(amax / 127.0f), hb = h0;
    float best = fabs(fma(127.0f, sinpe_attn_f16(h0), -amax));
    for (int e = -1; e <= 1; e += 2) {
        ushort hc = (ushort)(h0 + e);
        float err = fabs(fma(127.0f, sinpe_attn_f16(hc), -amax));
        if (err < best || (err == best && !(hc & 1))) {
            best = err;
            hb = hc;
        }
    }
    float d = sinpe_attn_f16(hb);
    blk[0] = (uchar)(hb & 0xff);
    blk[1] = (uchar)(hb >> 8);
    for (int j = 0; j < 32; j++) {
        float q0 = d != 0.0f ? rint(x[j] / d) : 0.0f, q = q0;
        float qbest = fabs(fma(-q0, d, x[j]));
        for (float e = -1.0f; e <= 1.0f && d != 0.0f; e += 2.0f) {
            float err = fabs(fma(-(q0 + e), d, x[j]));
            if (err < qbest || (err == qbest && fmod(q0 + e, 2.0f) == 0.0f)) {
                qbest = err;
                q = q0 + e;
            }
        }
        blk[2 + j] = (uchar)(char)(int)clamp(q, -127.0f, 127.0f);
    }
}

/* ---- sixteen at a time: heads whose widths are multiples of 16 ---------- */

/* Sixteen values rounded to dt and widened back. */
SINPE_INLINE float16 sinpe_attn_round16(float16 x, const int dt)
{
    if (dt == SINPE_F16) {
        ushort16 h = sinpe_to_16_16(x, dt);
        return vload_half16(0, (const half *)&h);
    }
    if (dt == SINPE_BF16)
        return as_float16(convert_uint16(sinpe_bf16_16(x)) << 16);
    return x;
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

/* The lanes' tree of sinpe_attn_merge() in vectors: the head's sum. */
SINPE_INLINE float2 sinpe_attn_merge32(sinpe_attn_sums *a)
{
    sinpe_attn_merge_float16(&a->h0, &a->l0, a->h1, a->l1);
    float8 h8 = a->h0.lo, l8 = a->l0.lo;
    sinpe_attn_merge_float8(&h8, &l8, a->h0.hi, a->l0.hi);
    float4 h4 = h8.lo, l4 = l8.lo;
    sinpe_attn_merge_float4(&h4, &l4, h8.hi, l8.hi);
    float2 h2 = h4.lo, l2 = l4.lo;
    sinpe_attn_merge_float2(&h2, &l2, h4.hi, l4.hi);
    float h1 = h2.x, l1 = l2.x;
    sinpe_attn_merge_float(&h1, &l1, h2.y, l2.y);
    return (float2)(h1, l1);
}

/* sinpe_norm_scale_inv() on the sums (hi[j], lo[j]) of sixteen heads, one
   a lane, in place: the same operations lane by lane, so the same bits,
   without one scalar chain a head (inv = sinpe_norm_inv(n)). */
SINPE_INLINE void sinpe_attn_scale_lanes(float *hi, float *lo, uint n, float inv, float eps)
{
    float16 ah = vload16(0, hi), al = vload16(0, lo), nf = (float16)((float)n);
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
    vstore16(select(r, odd, bad), 0, hi);
    vstore16(select(rl, (float16)(0.0f), bad), 0, lo);
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
    *y1 = fma(x1, c, -(x2 * s));
    *y2 = fma(x2, c, x1 * s);
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

/* The first norm's sum of q's or k's head (lanes c mod 32: columns c and
   c + 16 of each 32). */
SINPE_INLINE float2 sinpe_attn_sum1(const sinpe_attn_head *h, uint D, const int ot)
{
    const float16 z = (float16)(0.0f);
    sinpe_attn_sums a = {z, z, z, z};
    uint c = 0;
    for (; c + 32 <= D; c += 32) {
        sinpe_attn_square16(&a.h0, &a.l0, sinpe_load16(h->src, h->so + c, ot));
        sinpe_attn_square16(&a.h1, &a.l1, sinpe_load16(h->src, h->so + c + 16, ot));
    }
    if (c < D)
        sinpe_attn_square16(&a.h0, &a.l0, sinpe_load16(h->src, h->so + c, ot));
    return sinpe_attn_merge32(&a);
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
    return sinpe_attn_merge32(&a);
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

/* One head by one column (any width, Q8_0 caches): x its D values from
   src at so, into dst at d. */
SINPE_INLINE void sinpe_attn_run1(float *x, global const uchar *src, size_t so, global uchar *dst,
                                  size_t d, const int dt, int kind, int temp, float tau,
                                  global const float *w, global const float *tab,
                                  global const float *coef, const int *pl, const int ot,
                                  const sinpe_attn_params *ap)
{
    const sinpe_rope_params *ra = &ap->rope;
    uint D = ra->head_dim;
    int before = ap->norm && !ap->norm_after, after = ap->norm && ap->norm_after;
    for (uint c = 0; c < D; c++)
        x[c] = sinpe_load1(src, so + c, ot);
    if (kind < 2) {
        if (before) {
            sinpe_attn_norm(x, D, w, ap->norm, ap->eps);
            if (ap->rotate || temp)
                sinpe_attn_round(x, D, ot);
        }
        if (ap->rotate) {
            sinpe_attn_rotate(x + ap->rot_off, tab, coef, ra, pl);
            if (after || temp)
                sinpe_attn_round(x, D, ot);
        }
        if (after) {
            sinpe_attn_norm(x, D, w, ap->norm, ap->eps);
            if (temp)
                sinpe_attn_round(x, D, ot);
        }
        for (uint c = 0; c < D && temp; c++)
            x[c] *= tau;
    }
    if (dt == SINPE_Q8_0) {
        for (uint c = 0; c < D; c += 32)
            sinpe_attn_q8_0(x + c, dst + (d + c) / 32 * 34);
        return;
    }
    for (uint c = 0; c < D; c++)
        sinpe_store1(x[c], dst, d + c, dt);
}

/* Work-item (g, r): up to SINPE_ATTN_GROUP heads of one kind of token r,
   g counting q's groups, then k's, then v's (src/attn_input.c's launch):
   their position once, their norm scales as the lanes of one vector. */
SINPE_INLINE void sinpe_body_ATTN(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ATTN))
{
    const sinpe_rope_params *ra = &a.rope;
    uint g = get_global_id(0), r = get_global_id(1);
    uint qh = ra->q_heads, kh = ra->kv_heads, D = ra->head_dim;
    uint qg = (qh + SINPE_ATTN_GROUP - 1) / SINPE_ATTN_GROUP;
    uint kg = (kh + SINPE_ATTN_GROUP - 1) / SINPE_ATTN_GROUP;
    if (g >= qg + 2 * kg || r >= ra->tokens)
        return;
    int kind = g < qg ? 0 : g < qg + kg ? 1 : 2; /* q, k, v */
    uint h0 = SINPE_ATTN_GROUP * (kind == 0 ? g : kind == 1 ? g - qg : g - qg - kg);
    uint nh = min((uint)SINPE_ATTN_GROUP, (kind ? kh : qh) - h0);
    int slot = (int)r;
    if (ra->flags & SINPE_ROPE_K_ROWS) {
        slot = slots[ra->k_rows_off + r];
        slot = slot < (int)ra->ko_rows ? slot : -1; /* past the cache: skipped */
    }
    if (kind && slot < 0)
        return;
    global const uchar *src = kind == 2 ? v : kind == 1 ? k
                              : (ra->flags & SINPE_ROPE_Q_IN_PLACE) ? q_out : q;
    size_t so = kind == 2 ? a.v_off + r * a.v_stride
                : kind == 1 ? ra->k_off + r * ra->k_stride : ra->q_off + r * ra->q_stride;
    so += (size_t)h0 * D;
    global uchar *dst = kind == 0 ? q_out : kind == 1 ? k_cache : v_cache;
    size_t d = kind == 0 ? ra->qo_off + r * ra->qo_stride + (size_t)h0 * D
                         : (kind == 1 ? a.kc_off : a.vc_off) + ((size_t)slot * kh + h0) * D;
    const int dt = kind == 0 ? ot : (int)a.cache_type;
    int vec = D % 16 == 0 && (!a.rotate || (ra->rot % 32 == 0 && a.rot_off % 16 == 0)) &&
              dt != SINPE_Q8_0;
    if (vec && kind == 2) {
        for (uint c = 0; c < nh * D; c += 16)
            sinpe_store16(sinpe_load16(src, so + c, ot), dst, d + c, dt);
        return;
    }
    int before = a.norm && !a.norm_after, after = a.norm && a.norm_after;
    int temp = kind == 0 && a.temperature;
    global const float *w = kind ? kw + a.kw_off : qw + a.qw_off;
    uint b = r / ra->pos.seq_len, t = r - b * ra->pos.seq_len;
    int pl[4]; /* no pad counts: seq_start stands in for their buffer */
    pl[0] = sinpe_position(&ra->pos, pos, seq_start, seq_start, b, t);
    for (uint l = 1; l < 4; l++)
        pl[l] = l < ra->pos.lanes
                    ? sinpe_position_lane(&ra->pos, pos, seq_start, seq_start, b, t, l)
                    : pl[0];
    float tau = temp ? sinpe_attn_temperature(pl[0], a.attn_scale, a.floor_scale) : 1.0f;
    if (!vec) {
        float x[SINPE_ATTN_MAX_DIM];
        for (uint j = 0; j < nh; j++)
            sinpe_attn_run1(x, src, so + j * D, dst, d + j * D, dt, kind, temp, tau, w, tab,
                            coef, pl, ot, &a);
        return;
    }
    uint R = a.rotate ? ra->rot : 0;
    float inv = sinpe_norm_inv(D);
    float h1[SINPE_ATTN_GROUP], l1[SINPE_ATTN_GROUP], h2[SINPE_ATTN_GROUP], l2[SINPE_ATTN_GROUP];
    sinpe_attn_head hd = {src, so, w, a.rot_off, R / 2, a.norm, before, after,
                          a.rotate || temp, after || temp, (float2)(0.0f), (float2)(0.0f)};
    for (uint j = 0; j < SINPE_ATTN_GROUP; j++) { /* lanes past nh: (1, 0), unused */
        hd.so = so + j * D;
        float2 m = before && j < nh ? sinpe_attn_sum1(&hd, D, ot) : (float2)(1.0f, 0.0f);
        h1[j] = m.x, l1[j] = m.y;
    }
    if (before)
        sinpe_attn_scale_lanes(h1, l1, D, inv, a.eps);
    for (uint j = 0; j < SINPE_ATTN_GROUP; j++) {
        hd.so = so + j * D, hd.r1 = (float2)(h1[j], l1[j]);
        float2 m = after && j < nh ? sinpe_attn_sum2(&hd, D, R, tab, coef, ra, pl, ot)
                                   : (float2)(1.0f, 0.0f);
        h2[j] = m.x, l2[j] = m.y;
    }
    if (after)
        sinpe_attn_scale_lanes(h2, l2, D, inv, a.eps);
    for (uint j = 0; j < nh; j++) {
        hd.so = so + j * D, hd.r1 = (float2)(h1[j], l1[j]), hd.r2 = (float2)(h2[j], l2[j]);
        sinpe_attn_run16(&hd, D, R, dst, d + j * D, dt, temp, tau, tab, coef, ra, pl, ot);
    }
}

#endif /* SINPE_ATTN_INPUT_CL */
