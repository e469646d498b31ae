/*
 * attn_input.cl -- the attention input stage (include/sinpe.h,
 * sinpe_attn_input_args): work-item (g, r) takes up to SINPE_ATTN_HEADS
 * heads (the record's attn_heads) of one kind (q, k or v) of token r, runs the header's steps on each (device.cl's
 * norm and temperature, rope.cl's cos and sin with device.cl's rotation),
 * and writes it to q's output or to the token's cache row, rounding once to
 * the cache's type (Q8_0 blocks here).
 */
#ifndef SINPE_ATTN_INPUT_CL
#define SINPE_ATTN_INPUT_CL

#include "abi.h"
#include "attn16.cl"
#include "device.cl"
#include "dtype.cl"
#include "positions.cl"
#include "rope.cl"

#pragma OPENCL FP_CONTRACT OFF

#define SINPE_ATTN_MAX_DIM 512
/* Heads a work-item takes: 1, or 16, one a lane of their norm scales. */
#ifndef SINPE_ATTN_HEADS
#define SINPE_ATTN_HEADS 1
#endif
#if SINPE_ATTN_HEADS != 1 && SINPE_ATTN_HEADS != 16
#error "SINPE_ATTN_HEADS: 1 or 16"
#endif

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

/* The norm scales of a work-item's heads from their sums (hi[j], lo[j]),
   in place: sixteen as the lanes of one vector, or one as device.cl does. */
SINPE_INLINE void sinpe_attn_scale_heads(float *hi, float *lo, uint n, float inv, float eps)
{
#if SINPE_ATTN_HEADS == 16
    float16 h = vload16(0, hi), l = vload16(0, lo);
    sinpe_attn_scale16(&h, &l, n, inv, eps);
    vstore16(h, 0, hi);
    vstore16(l, 0, lo);
#else
    float2 r = sinpe_norm_scale_inv((float2)(hi[0], lo[0]), n, inv, eps);
    hi[0] = r.x, lo[0] = r.y;
#endif
}

/* Work-item (g, r): up to SINPE_ATTN_HEADS heads of one kind of token r,
   g counting q's groups, then k's, then v's (src/attn_input.c's launch):
   their position once, their norm scales as the lanes of one vector. */
SINPE_INLINE void sinpe_body_ATTN(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ATTN))
{
    const sinpe_rope_params *ra = &a.rope;
    uint g = get_global_id(0), r = get_global_id(1);
    uint qh = ra->q_heads, kh = ra->kv_heads, D = ra->head_dim;
    uint qg = (qh + SINPE_ATTN_HEADS - 1) / SINPE_ATTN_HEADS;
    uint kg = (kh + SINPE_ATTN_HEADS - 1) / SINPE_ATTN_HEADS;
    if (g >= qg + 2 * kg || r >= ra->tokens)
        return;
    int kind = g < qg ? 0 : g < qg + kg ? 1 : 2; /* q, k, v */
    uint h0 = SINPE_ATTN_HEADS * (kind == 0 ? g : kind == 1 ? g - qg : g - qg - kg);
    uint nh = min((uint)SINPE_ATTN_HEADS, (kind ? kh : qh) - h0);
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
            sinpe_attn_store16(sinpe_attn_load16(src, so + c, ot), dst, d + c, dt);
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
#if SINPE_ATTN_HEADS == 16
    if (before && a.norm != 3 && !after && !temp && R == D && !ra->axes && pl[0] >= 0 &&
        pl[0] < ra->tab_rows) { /* (L2 before a rotation: no model's form) */
        global const float *row = tab + (size_t)pl[0] * R;
        float16 rh, rl;
        sinpe_attn_sums16(src, so, D, nh, ot, &rh, &rl);
        sinpe_attn_scale16(&rh, &rl, D, inv, a.eps);
        if (a.norm == 2) /* (1 + w): the norm kinds as constants */
            sinpe_attn_plain_heads(src, so, w, row, ra, nh, 2, rh, rl, dst, d, dt, ot);
        else
            sinpe_attn_plain_heads(src, so, w, row, ra, nh, 1, rh, rl, dst, d, dt, ot);
        return;
    }
#endif
    float h1[SINPE_ATTN_HEADS], l1[SINPE_ATTN_HEADS], h2[SINPE_ATTN_HEADS], l2[SINPE_ATTN_HEADS];
    sinpe_attn_head hd = {src, so, w, a.rot_off, R / 2, a.norm, before, after,
                          a.rotate || temp, after || temp, (float2)(0.0f), (float2)(0.0f)};
    for (uint j = 0; j < SINPE_ATTN_HEADS; j++) { /* lanes past nh: (1, 0), unused */
        hd.so = so + j * D;
        float2 m = before && j < nh ? sinpe_attn_sum1(&hd, D, ot) : (float2)(1.0f, 0.0f);
        h1[j] = m.x, l1[j] = m.y;
    }
    if (before)
        sinpe_attn_scale_heads(h1, l1, D, inv, a.eps);
    for (uint j = 0; j < SINPE_ATTN_HEADS; j++) {
        hd.so = so + j * D, hd.r1 = (float2)(h1[j], l1[j]);
        float2 m = after && j < nh ? sinpe_attn_sum2(&hd, D, R, tab, coef, ra, pl, ot)
                                   : (float2)(1.0f, 0.0f);
        h2[j] = m.x, l2[j] = m.y;
    }
    if (after)
        sinpe_attn_scale_heads(h2, l2, D, inv, a.eps);
    for (uint j = 0; j < nh; j++) {
        hd.so = so + j * D, hd.r1 = (float2)(h1[j], l1[j]), hd.r2 = (float2)(h2[j], l2[j]);
        sinpe_attn_run16(&hd, D, R, dst, d + j * D, dt, temp, tau, tab, coef, ra, pl, ot);
    }
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_ATTN
kernel void sinpe_attn_input_f32(SINPE_PARAMS(SINPE_SIG_ATTN)) { SINPE_BODY(ATTN, F32); }
kernel void sinpe_attn_input_f16(SINPE_PARAMS(SINPE_SIG_ATTN)) { SINPE_BODY(ATTN, F16); }
kernel void sinpe_attn_input_bf16(SINPE_PARAMS(SINPE_SIG_ATTN)) { SINPE_BODY(ATTN, BF16); }
#endif
#endif

#endif /* SINPE_ATTN_INPUT_CL */
