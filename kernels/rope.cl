/*
 * rope.cl -- rotary position embeddings: each pair of q and k rotated by
 * the exact cos and sin of its token's position (include/sinpe.h, "Rotary
 * position embeddings").  Work-item (g, r): pairs [P g, P g + P) of every
 * head of token r, P = SINPE_ROPE_PAIRS (the record's rope_pairs), q's
 * heads then k's, so that one set of cos and sin (read from the table, or
 * computed past it) serves every head.  P = 4 (GPUs: neighbours in a group
 * touch neighbouring columns) as four-lane vectors; P = 64 (CPUs: a
 * work-item walks each head's pairs in the order of memory) sixteen pairs
 * at a time, as the pocl vectoriser does best (bench/RESULTS.md).  Slots
 * g past the pairs copy four of the columns past R each (out of place
 * only).
 */
#ifndef SINPE_ROPE_CL
#define SINPE_ROPE_CL

#include "abi.h"
#include "device.cl"
#include "pe_math16.cl"
#include "dtype.cl"
#include "positions.cl"

#pragma OPENCL FP_CONTRACT OFF

#ifndef SINPE_ROPE_PAIRS
#define SINPE_ROPE_PAIRS 4
#endif

/* n <= 4 pairs from pair k0 of the head at element so: first and second
   members (HALVES: k and k + R/2; INTERLEAVED: 2k and 2k + 1). */
SINPE_INLINE void sinpe_rope_load(global const uchar *src, size_t so, uint k0, uint npairs,
                                  int n, uint pairing, const int ot, float4 *x1, float4 *x2)
{
    if (!pairing) {
        *x1 = sinpe_load_n(src, so + k0, n, ot, false);
        *x2 = sinpe_load_n(src, so + npairs + k0, n, ot, false);
        return;
    }
    float4 a = sinpe_load_n(src, so + 2 * k0, min(2 * n, 4), ot, false);
    float4 b = n > 2 ? sinpe_load_n(src, so + 2 * k0 + 4, 2 * n - 4, ot, false) : (float4)(0.0f);
    *x1 = (float4)(a.x, a.z, b.x, b.z);
    *x2 = (float4)(a.y, a.w, b.y, b.w);
}

SINPE_INLINE void sinpe_rope_store(global uchar *dst, size_t d, uint k0, uint npairs, int n,
                                   uint pairing, const int ot, float4 y1, float4 y2)
{
    if (!pairing) {
        sinpe_store_n(y1, dst, d + k0, n, ot, false);
        sinpe_store_n(y2, dst, d + npairs + k0, n, ot, false);
        return;
    }
    sinpe_store_n((float4)(y1.x, y2.x, y1.y, y2.y), dst, d + 2 * k0, min(2 * n, 4), ot, false);
    if (n > 2)
        sinpe_store_n((float4)(y1.z, y2.z, y1.w, y2.w), dst, d + 2 * k0 + 4, 2 * n - 4, ot,
                      false);
}

/* The heads [h0, h1) of one token: from src at so, to dst at d. */
SINPE_INLINE void sinpe_rope_heads(global const uchar *src, size_t so, global uchar *dst,
                                   size_t d, uint heads, uint head_dim, uint k0, uint npairs,
                                   int n, uint pairing, const int ot, float4 c, float4 s)
{
    if (n == 4 && !pairing) { /* the common case, without the lane counts' branches */
        for (uint h = 0; h < heads; h++, so += head_dim, d += head_dim) {
            float4 x1 = sinpe_load4(src, so + k0, ot, false);
            float4 x2 = sinpe_load4(src, so + npairs + k0, ot, false);
            sinpe_store4(fma(x1, c, -(x2 * s)), dst, d + k0, ot, false);
            sinpe_store4(fma(x2, c, x1 * s), dst, d + npairs + k0, ot, false);
        }
        return;
    }
    for (uint h = 0; h < heads; h++, so += head_dim, d += head_dim) {
        float4 x1, x2;
        sinpe_rope_load(src, so, k0, npairs, n, pairing, ot, &x1, &x2);
        sinpe_rope_store(dst, d, k0, npairs, n, pairing, ot, fma(x1, c, -(x2 * s)),
                         fma(x2, c, x1 * s));
    }
}

/* The cos and sin of n <= 4 pairs from k0 into a host's row at d, in
   layout (sinpe_rope_layout: COS_SIN, PAIRS, COS_TWICE, SIN_TWICE). */
SINPE_INLINE void sinpe_rope_cs_out(global uchar *dst, size_t d, uint k0, uint npairs, int n,
                                    uint layout, const int ot, float4 c, float4 s)
{
    sinpe_rope_store(dst, d, k0, npairs, n, layout == 1, ot, layout == 3 ? s : c,
                     layout == 2 ? c : s);
}

/* Columns [c0, c0 + n) of each of the heads, copied. */
SINPE_INLINE void sinpe_rope_copy(global const uchar *src, size_t so, global uchar *dst, size_t d,
                                  uint heads, uint head_dim, uint c0, int n, const int ot)
{
    for (uint h = 0; h < heads; h++, so += head_dim, d += head_dim)
        sinpe_store_n(sinpe_load_n(src, so + c0, n, ot, false), dst, d + c0, n, ot, false);
}

/* The cos and sin of n pairs from k0 at position p past the table, to
   c[0 .. n) and s[0 .. n): sinpe_rope_cos_sin's values through
   sinpe_pe_pair, which the compiler inlines and vectorises (the device
   functions' past-table branch is a call it may keep). */
SINPE_INLINE void sinpe_rope_cs_past(global const float *coef, const sinpe_rope_params *a, int p,
                                     uint k0, int n, float *c, float *s)
{
    SINPE_LANES16
    for (int l = 0; l < n; l++) {
        float2 cs = sinpe_pe_pair(p, (int)sinpe_rope_cols(a->rot, a->layout, k0 + (uint)l).y,
                                  a->rot, coef);
        c[l] = cs.x;
        s[l] = cs.y;
    }
}

/* The cos and sin of n pairs from k0, pair k at the position of its lane,
   pl[sinpe_rope_lane(k)]: from the lane's row of the table or past it. */
SINPE_INLINE void sinpe_rope_cs_lanes(global const float *tab, global const float *coef,
                                      const sinpe_rope_params *a, const int *pl, uint k0, int n,
                                      float *c, float *s)
{
    uint4 sec = (uint4)(a->sections[0], a->sections[1], a->sections[2], a->sections[3]);
    for (int l = 0; l < n; l++) {
        uint k = k0 + (uint)l;
        int p = pl[sinpe_rope_lane(a->axes, sec, k)];
        uint2 col = sinpe_rope_cols(a->rot, a->layout, k);
        float2 cs = p >= 0 && p < a->tab_rows
                        ? (float2)(tab[(size_t)p * a->rot + col.x], tab[(size_t)p * a->rot + col.y])
                        : sinpe_pe_pair(p, (int)col.y, a->rot, coef);
        c[l] = cs.x;
        s[l] = cs.y;
    }
}

/* The cos and sin of n <= 4 pairs from k0 at the positions pl (pl[0] with
   one lane): the table's row, or computed past it. */
SINPE_INLINE void sinpe_rope_cs4(global const float *tab, global const float *coef,
                                 const sinpe_rope_params *a, const int *pl, uint k0, int n,
                                 float4 *c, float4 *s)
{
    uint npairs = a->rot / 2;
    int p = pl[0];
    if (a->axes) {
        float cc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, ss[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        sinpe_rope_cs_lanes(tab, coef, a, pl, k0, n, cc, ss);
        *c = vload4(0, cc);
        *s = vload4(0, ss);
        return;
    }
    if (p >= 0 && p < a->tab_rows) {
        global const uchar *row = (global const uchar *)(tab + (size_t)p * a->rot);
        sinpe_rope_load(row, 0, k0, npairs, n, a->layout, SINPE_F32, c, s);
        return;
    }
    float cc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, ss[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    sinpe_rope_cs_past(coef, a, p, k0, n, cc, ss);
    *c = vload4(0, cc);
    *s = vload4(0, ss);
}

/* Sixteen pairs from k0 of the head at element so, as sinpe_rope_load. */
SINPE_INLINE void sinpe_rope_load16(global const uchar *src, size_t so, uint k0, uint npairs,
                                    uint pairing, const int ot, float16 *x1, float16 *x2)
{
    if (!pairing) {
        *x1 = sinpe_load16(src, so + k0, ot);
        *x2 = sinpe_load16(src, so + npairs + k0, ot);
        return;
    }
    float16 a = sinpe_load16(src, so + 2 * k0, ot), b = sinpe_load16(src, so + 2 * k0 + 16, ot);
    *x1 = (float16)(a.even, b.even);
    *x2 = (float16)(a.odd, b.odd);
}

/* The cos and sin of sixteen pairs from k at position p, from its row of
   the table (p in the table). */
SINPE_INLINE void sinpe_rope_row16(global const float *tab, const sinpe_rope_params *a, int p,
                                   uint k, float16 *c, float16 *s)
{
    global const uchar *row = (global const uchar *)(tab + (size_t)p * a->rot);
    sinpe_rope_load16(row, 0, k, a->rot / 2, a->layout, SINPE_F32, c, s);
}

SINPE_INLINE void sinpe_rope_store16(global uchar *dst, size_t d, uint k0, uint npairs,
                                     uint pairing, const int ot, float16 y1, float16 y2)
{
    if (!pairing) {
        sinpe_store16(y1, dst, d + k0, ot);
        sinpe_store16(y2, dst, d + npairs + k0, ot);
        return;
    }
    const uint16 lo = (uint16)(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    sinpe_store16(shuffle2(y1, y2, lo), dst, d + 2 * k0, ot);
    sinpe_store16(shuffle2(y1, y2, lo + 8u), dst, d + 2 * k0 + 16, ot);
}

/* Sixteen pairs from k at the positions of their lanes: where every lane's
   position is in the table, its row's sixteen values blended by lane (the
   rows stay in cache for every head), else pair by pair; the same values. */
SINPE_INLINE void sinpe_rope_lanes16(global const float *tab, global const float *coef,
                                     const sinpe_rope_params *a, const int *pl, uint k,
                                     float16 *c, float16 *s)
{
    int in = 1;
    for (int l = 0; l < 4; l++)
        in &= pl[l] >= 0 && pl[l] < a->tab_rows;
    if (!in) {
        float cc[16], ss[16];
        sinpe_rope_cs_lanes(tab, coef, a, pl, k, 16, cc, ss);
        *c = vload16(0, cc);
        *s = vload16(0, ss);
        return;
    }
    const uint *sec = a->sections;
    int16 kk = (int16)((int)k) + (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int16 lane; /* sinpe_rope_lane() of each (comparisons give -1 for true) */
    int lo, hi; /* the lanes of the sixteen: [lo, hi] */
    if (a->axes == 2) {
        int n = sec[3] ? 4 : sec[2] ? 3 : sec[1] ? 2 : 1;
        int r = (int)k % n; /* k + i mod n for i < 16: (r + i) - n floor((r + i) / n) */
        int16 t = (int16)r + (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        int16 l = t - (int16)n * ((t * (int16)((64 + n - 1) / n)) >> 6);
        int16 sl = select(select((int16)((int)sec[3]), (int16)((int)sec[2]), l == (int16)2),
                          (int16)((int)sec[1]), l == (int16)1);
        lane = select((int16)0, l, (l != (int16)0) & (kk < (int16)n * sl));
        lo = 0, hi = n - 1;
    } else { /* blocked: a sixteen within one section reads its lane's row alone */
        int b1 = (int)sec[0], b2 = b1 + (int)sec[1], b3 = b2 + (int)sec[2], e = (int)k + 15;
        lo = ((int)k >= b1) + ((int)k >= b2) + ((int)k >= b3);
        hi = (e >= b1) + (e >= b2) + (e >= b3);
        if (lo == hi) {
            sinpe_rope_row16(tab, a, pl[lo], k, c, s);
            return;
        }
        lane = -((kk >= (int16)b1) + (kk >= (int16)b2) + (kk >= (int16)b3));
    }
    *c = *s = (float16)(0.0f);
    for (int l = lo; l <= hi; l++) {
        int16 here = lane == (int16)l;
        float16 cl, sl;
        sinpe_rope_row16(tab, a, pl[l], k, &cl, &sl);
        *c = select(*c, cl, here);
        *s = select(*s, sl, here);
    }
}

/* Pairs [k0, k0 + 16 m) of every head of one token at position p, m <=
   SINPE_ROPE_PAIRS / 16, sixteen at a time, in the order of memory; the
   same pairs of the next token's row (ahead elements on) asked for. */
#define SINPE_ROPE_WIDE (SINPE_ROPE_PAIRS / 16 > 0 ? SINPE_ROPE_PAIRS / 16 : 1)
SINPE_INLINE void sinpe_rope_wide_heads(global const uchar *src, size_t so, global uchar *dst,
                                        size_t d, uint heads, const sinpe_rope_params *a,
                                        uint k0, uint m, const int ot, const float16 *c,
                                        const float16 *s, size_t ahead)
{
    uint npairs = a->rot / 2;
    size_t es = ot == SINPE_F32 ? 4 : 2;
    for (uint h = 0; h < heads; h++, so += a->head_dim, d += a->head_dim) {
        global const uchar *next = src + (so + ahead) * es;
        if (a->pairing)
            sinpe_prefetch(1, next + 2 * k0 * es, 32 * m * es);
        else {
            sinpe_prefetch(1, next + k0 * es, 16 * m * es);
            sinpe_prefetch(1, next + (npairs + k0) * es, 16 * m * es);
        }
#pragma unroll
        for (uint j = 0; j < SINPE_ROPE_WIDE; j++) {
            float16 x1, x2;
            uint k = k0 + 16 * j;
            if (j >= m) /* a guard, not a break: the loop unrolls, c and s stay in registers */
                continue;
            sinpe_rope_load16(src, so, k, npairs, a->pairing, ot, &x1, &x2);
            sinpe_rope_store16(dst, d, k, npairs, a->pairing, ot, fma(x1, c[j], -(x2 * s[j])),
                               fma(x2, c[j], x1 * s[j]));
        }
    }
}

/* The cos and sin of sixteen pairs from k at position p past the table:
   sinpe_rope_cs_past's values, sixteen lanes at a time (sinpe_anchor16),
   each coefficient row's sin columns read as a row of the table is. */
SINPE_INLINE void sinpe_rope_past16(global const float *coef, const sinpe_rope_params *a, int p,
                                    uint k, float16 *c, float16 *s)
{
    size_t S = SINPE_COEF_STRIDE(a->rot);
    float16 f[11], unused; /* descriptor fields 0 .. 6, then step j's four components */
    for (int i = 0; i < 11; i++) {
        size_t row = i < 7 ? (size_t)i : (size_t)(8 + 4 * (p & (SINPE_STEP_ROWS - 1)) + i - 7);
        sinpe_rope_load16((global const uchar *)(coef + row * S), 0, k, a->rot / 2, a->layout,
                          SINPE_F32, &unused, &f[i]);
    }
    sinpe_anchor16_t an = sinpe_anchor16(p & ~(SINPE_STEP_ROWS - 1), f[0], f[1], f[2], f[3], f[4],
                                         f[5], f[6]);
    *c = sinpe_pair16(an, f[7], f[8], f[9], f[10], s);
}

/* The cos and sin of sixteen pairs from k at the positions pl: the lanes'
   rows, the table's row, or computed past it. */
SINPE_INLINE void sinpe_rope_cs16(global const float *tab, global const float *coef,
                                  const sinpe_rope_params *a, const int *pl, uint k, float16 *c,
                                  float16 *s)
{
    int p = pl[0];
    if (a->axes) {
        sinpe_rope_lanes16(tab, coef, a, pl, k, c, s);
    } else if (p >= 0 && p < a->tab_rows) {
        sinpe_rope_row16(tab, a, p, k, c, s);
    } else {
        sinpe_rope_past16(coef, a, p, k, c, s);
    }
}

SINPE_INLINE void sinpe_rope_wide(global const uchar *qs, size_t qo, global uchar *q_out,
                                  size_t qd, global const uchar *ks, size_t ko,
                                  global uchar *k_out, size_t kd, uint kh,
                                  global const float *tab, global const float *coef,
                                  const sinpe_rope_params *a, const int *pl, uint k0, uint m,
                                  const int ot, global uchar *cs, size_t cd)
{
    uint npairs = a->rot / 2;
    float16 c[SINPE_ROPE_WIDE], s[SINPE_ROPE_WIDE];
#pragma unroll
    for (uint j = 0; j < SINPE_ROPE_WIDE; j++)
        if (j < m)
            sinpe_rope_cs16(tab, coef, a, pl, k0 + 16 * j, &c[j], &s[j]);
#pragma unroll
    for (uint j = 0; j < SINPE_ROPE_WIDE; j++) /* the host's copy, in its layout */
        if (j < m && (a->flags & SINPE_ROPE_CS_OUT))
            sinpe_rope_store16(cs, cd, k0 + 16 * j, npairs, a->cs_layout == 1, ot,
                               a->cs_layout == 3 ? s[j] : c[j], a->cs_layout == 2 ? c[j] : s[j]);
    sinpe_rope_wide_heads(qs, qo, q_out, qd, a->q_heads, a, k0, m, ot, c, s, a->q_stride);
    sinpe_rope_wide_heads(ks, ko, k_out, kd, kh, a, k0, m, ot, c, s, a->k_stride);
}

SINPE_INLINE void sinpe_body_ROPE(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ROPE))
{
    uint g = get_global_id(0), r = get_global_id(1);
    if (g >= a.slots || r >= a.tokens)
        return;
    uint npairs = a.rot / 2, groups = (npairs + SINPE_ROPE_PAIRS - 1) / SINPE_ROPE_PAIRS;
    uint b = r / a.pos.seq_len;
    int krow = (int)r;
    if (a.flags & SINPE_ROPE_K_ROWS) {
        krow = k_rows[a.k_rows_off + r];
        krow = krow < (int)a.ko_rows ? krow : -1; /* past k_out: skipped as negative */
    }
    int q_in = (a.flags & SINPE_ROPE_Q_IN_PLACE) != 0, k_in = (a.flags & SINPE_ROPE_K_IN_PLACE) != 0;
    global const uchar *qs = q_in ? q_out : q, *ks = k_in ? k_out : k;
    size_t qo = a.q_off + r * a.q_stride, qd = a.qo_off + r * a.qo_stride;
    size_t ko = a.k_off + r * a.k_stride, kd = a.ko_off + (size_t)krow * a.ko_stride;
    uint kh = krow < 0 ? 0 : a.kv_heads;
    if (g >= groups) { /* columns past R */
        uint c0 = a.rot + 4 * (g - groups);
        int n = (int)min(4u, a.head_dim - c0);
        if (!q_in)
            sinpe_rope_copy(qs, qo, q_out, qd, a.q_heads, a.head_dim, c0, n, ot);
        if (!k_in)
            sinpe_rope_copy(ks, ko, k_out, kd, kh, a.head_dim, c0, n, ot);
        return;
    }
    /* The lanes' positions (one without axes).  No pad counts: seq_start
       stands in for their buffer, never read. */
    int pl[4];
    uint t = r - b * a.pos.seq_len;
    pl[0] = sinpe_position(&a.pos, pos, seq_start, seq_start, b, t);
    for (uint l = 1; l < 4; l++) /* only the table's lanes are read */
        pl[l] = l < a.pos.lanes ? sinpe_position_lane(&a.pos, pos, seq_start, seq_start, b, t, l)
                                : pl[0];
    uint k0 = SINPE_ROPE_PAIRS * g, k1 = min(k0 + SINPE_ROPE_PAIRS, npairs);
    uint m = SINPE_ROPE_PAIRS >= 16 ? (k1 - k0) / 16 : 0; /* whole sixteens */
    size_t cd = a.cs_off + (size_t)r * a.cs_stride;
    if (m) {
        sinpe_rope_wide(qs, qo, q_out, qd, ks, ko, k_out, kd, kh, tab, coef, &a, pl, k0, m, ot,
                        cs, cd);
        k0 += 16 * m;
    }
    for (; k0 < k1; k0 += 4) {
        int n = (int)min(4u, npairs - k0);
        float4 c, s;
        sinpe_rope_cs4(tab, coef, &a, pl, k0, n, &c, &s);
        if (a.flags & SINPE_ROPE_CS_OUT)
            sinpe_rope_cs_out(cs, cd, k0, npairs, n, a.cs_layout, ot, c, s);
        sinpe_rope_heads(qs, qo, q_out, qd, a.q_heads, a.head_dim, k0, npairs, n, a.pairing, ot,
                         c, s);
        sinpe_rope_heads(ks, ko, k_out, kd, kh, a.head_dim, k0, npairs, n, a.pairing, ot, c, s);
    }
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_ROPE
kernel void sinpe_rope_f32(SINPE_PARAMS(SINPE_SIG_ROPE)) { SINPE_BODY(ROPE, F32); }
kernel void sinpe_rope_f16(SINPE_PARAMS(SINPE_SIG_ROPE)) { SINPE_BODY(ROPE, F16); }
kernel void sinpe_rope_bf16(SINPE_PARAMS(SINPE_SIG_ROPE)) { SINPE_BODY(ROPE, BF16); }
#endif
#endif

#endif /* SINPE_ROPE_CL */
