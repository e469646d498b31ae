/*
 * attn_input.cl -- the attention input stage (include/sinpe.h,
 * sinpe_attn_input_args): work-item (h, r) takes head h of token r (q's
 * heads, then k's, then v's) into private memory, runs the header's steps
 * on it (device.cl's norm and temperature, rope.cl's cos and sin with
 * device.cl's rotation), and writes it to q's output or to the token's
 * cache row, rounding once to the cache's type (Q8_0 blocks here).
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

/* The norm of n values in place, weights w (kinds 1 and 2). */
SINPE_INLINE void sinpe_attn_norm(float *x, uint n, global const float *w, uint kind, float eps)
{
    float2 acc = (float2)(0.0f);
    for (uint c = 0; c < n; c++)
        acc = sinpe_norm_square(acc, x[c]);
    float2 r = sinpe_norm_scale(acc, n, eps);
    for (uint c = 0; c < n; c++)
        x[c] = sinpe_norm_value(x[c], kind == 3 ? 1.0f : w[c], kind, r);
}

/* The first R columns rotated by the cos and sin of the positions pl, the
   pairs of the table's pairing. */
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

SINPE_INLINE void sinpe_body_ATTN(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ATTN))
{
    const sinpe_rope_params *ra = &a.rope;
    uint h = get_global_id(0), r = get_global_id(1);
    uint qh = ra->q_heads, kh = ra->kv_heads, D = ra->head_dim;
    if (h >= qh + 2 * kh || r >= ra->tokens)
        return;
    int kind = h < qh ? 0 : h < qh + kh ? 1 : 2; /* q, k, v */
    uint hh = kind == 0 ? h : kind == 1 ? h - qh : h - qh - kh;
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
    so += (size_t)hh * D;
    float x[SINPE_ATTN_MAX_DIM];
    for (uint c = 0; c < D; c++)
        x[c] = sinpe_load1(src, so + c, ot);
    if (kind < 2) {
        global const float *w = kind ? kw + a.kw_off : qw + a.qw_off;
        int before = a.norm && !a.norm_after, after = a.norm && a.norm_after;
        int temp = kind == 0 && a.temperature;
        uint b = r / ra->pos.seq_len, t = r - b * ra->pos.seq_len;
        int pl[4]; /* no pad counts: seq_start stands in for their buffer */
        pl[0] = sinpe_position(&ra->pos, pos, seq_start, seq_start, b, t);
        for (uint l = 1; l < 4; l++)
            pl[l] = l < ra->pos.lanes
                        ? sinpe_position_lane(&ra->pos, pos, seq_start, seq_start, b, t, l)
                        : pl[0];
        if (before) {
            sinpe_attn_norm(x, D, w, a.norm, a.eps);
            if (a.rotate || temp)
                sinpe_attn_round(x, D, ot);
        }
        if (a.rotate) {
            sinpe_attn_rotate(x, tab, coef, ra, pl);
            if (after || temp)
                sinpe_attn_round(x, D, ot);
        }
        if (after) {
            sinpe_attn_norm(x, D, w, a.norm, a.eps);
            if (temp)
                sinpe_attn_round(x, D, ot);
        }
        if (temp) {
            float tau = sinpe_attn_temperature(pl[0], a.attn_scale, a.floor_scale);
            for (uint c = 0; c < D; c++)
                x[c] *= tau;
        }
    }
    if (kind == 0) {
        size_t d = ra->qo_off + r * ra->qo_stride + (size_t)hh * D;
        for (uint c = 0; c < D; c++)
            sinpe_store1(x[c], q_out, d + c, ot);
        return;
    }
    global uchar *dst = kind == 1 ? k_cache : v_cache;
    size_t d = (kind == 1 ? a.kc_off : a.vc_off) + ((size_t)slot * kh + hh) * D;
    if (a.cache_type == SINPE_Q8_0) {
        for (uint c = 0; c < D; c += 32)
            sinpe_attn_q8_0(x + c, dst + (d + c) / 32 * 34);
        return;
    }
    for (uint c = 0; c < D; c++)
        sinpe_store1(x[c], dst, d + c, (int)a.cache_type);
}

#endif /* SINPE_ATTN_INPUT_CL */
