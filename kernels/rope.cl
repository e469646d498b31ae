/*
 * rope.cl -- rotary position embeddings: each pair of q and k rotated by
 * the exact cos and sin of its token's position (include/sinpe.h, "Rotary
 * position embeddings").  Work-item (j, r): pair slot j of token r, for
 * every head of q and then of k, so that one cos and sin serve them all.
 * Slots past R/2 copy the columns past R (out of place only).
 */
#ifndef SINPE_ROPE_CL
#define SINPE_ROPE_CL

#include "abi.h"
#include "device.cl"
#include "dtype.cl"

#pragma OPENCL FP_CONTRACT OFF

SINPE_INLINE void sinpe_body_ROPE(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ROPE))
{
    uint j = get_global_id(0), r = get_global_id(1);
    if (j >= a.slots || r >= a.tokens)
        return;
    uint npairs = a.rot / 2, b = r / a.seq_len;
    uint p = (uint)a.start +
             ((a.flags & SINPE_HAS_POS) ? (uint)pos[a.pos_off + r] : r - b * a.seq_len);
    if (a.flags & SINPE_HAS_SEQ_START)
        p += (uint)seq_start[a.seq_start_off + b];
    int krow = (int)r;
    if (a.flags & SINPE_ROPE_K_ROWS) {
        krow = k_rows[a.k_rows_off + r];
        krow = krow < (int)a.ko_rows ? krow : -1; /* past k_out: skipped as negative */
    }
    int rotate = j < npairs;
    float2 cs = (float2)(1.0f, 0.0f);
    uint i1 = a.rot + 2 * (j - npairs), i2 = i1 + 1;
    if (rotate) {
        cs = sinpe_rope_cos_sin(tab, a.tab_rows, coef, a.rot, a.layout, (int)p, j);
        i1 = a.pairing ? 2 * j : j;
        i2 = a.pairing ? 2 * j + 1 : j + npairs;
    }
    int pair = i2 < a.head_dim;
    for (uint h = 0; h < a.q_heads + a.kv_heads; h++) {
        int isq = h < a.q_heads;
        uint hh = isq ? h : h - a.q_heads;
        int in_place = (a.flags & (isq ? SINPE_ROPE_Q_IN_PLACE : SINPE_ROPE_K_IN_PLACE)) != 0;
        if ((!isq && krow < 0) || (!rotate && in_place))
            continue;
        global const uchar *src = isq ? (in_place ? q_out : q) : (in_place ? k_out : k);
        global uchar *dst = isq ? q_out : k_out;
        size_t so = isq ? a.q_off + r * a.q_stride : a.k_off + r * a.k_stride;
        size_t d = isq ? a.qo_off + r * a.qo_stride : a.ko_off + (size_t)krow * a.ko_stride;
        so += (size_t)hh * a.head_dim;
        d += (size_t)hh * a.head_dim;
        float x1 = sinpe_load1(src, so + i1, ot);
        float x2 = pair ? sinpe_load1(src, so + i2, ot) : 0.0f;
        float y1 = rotate ? fma(x1, cs.x, -(x2 * cs.y)) : x1;
        float y2 = rotate ? fma(x2, cs.x, x1 * cs.y) : x2;
        sinpe_store1(y1, dst, d + i1, ot);
        if (pair)
            sinpe_store1(y2, dst, d + i2, ot);
    }
}

#endif /* SINPE_ROPE_CL */
