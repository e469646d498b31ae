/*
 * rope_attention.cl -- the attention side of a rotary model as a host
 * writes it with sinpe's device functions: q and k are rotated in
 * registers as they are loaded, so that no rotated copy of either is ever
 * stored, and the scores of causal attention are formed from them:
 *
 *     s[h, i, j] = scale * sum_c rot(q[i, h])[c] * rot(k[j, h / group])[c],
 *     j <= i within a sequence (the others are left as they are).
 *
 * The program is the text of sinpe_device_source() followed by this file.
 * The rotation follows the operation order of include/sinpe.h
 * (sinpe_rope_args): cos and sin from sinpe_rope_cos_sin(), the stored
 * values as float, y1 = fma(x1, cos, -(x2 * sin)), y2 = fma(x2, cos,
 * x1 * sin), each product and fma rounded to float (contraction off): the
 * rotated values are sinpe_enqueue_rope()'s, bit for bit, at every
 * position, inside the table's rows or past them.
 *
 * Layout (float32 storage, the pairing HALVES, a COS_SIN table): token r
 * holds q_heads heads of head_dim at q + r * q_heads * head_dim, and
 * kv_heads heads at k + r * kv_heads * head_dim; its position is pos[r];
 * tokens form sequences of seq_len.  q head h reads kv head h / group,
 * group = q_heads / kv_heads (grouped-query attention).
 */

/* The rotation's products and fma are rounded one by one, as sinpe's. */
#pragma OPENCL FP_CONTRACT OFF

/* Element c of head x (head_dim floats at x) rotated for position p: the
   columns past rot_dim pass through. */
float rope_rotated(global const float *x, uint c, uint rot_dim, int p,
                   global const float *table, int rows, global const float *consts)
{
    uint half_r = rot_dim / 2;
    if (c >= rot_dim)
        return x[c];
    uint k = c < half_r ? c : c - half_r;
    float2 cs = sinpe_rope_cos_sin(table, rows, consts, rot_dim, 0u, p, k);
    float x1 = x[k], x2 = x[k + half_r];
    return c < half_r ? fma(x1, cs.x, -(x2 * cs.y)) : fma(x2, cs.x, x1 * cs.y);
}

/* Rotated q and k written out (what sinpe_enqueue_rope() writes out of
   place): work-item (c, r) does column c of every head of token r. */
kernel void rope_rotate_qk(global const float *q, global const float *k, global const int *pos,
                           uint q_heads, uint kv_heads, uint head_dim, uint rot_dim,
                           global const float *table, int rows, global const float *consts,
                           global float *q_out, global float *k_out)
{
    uint c = get_global_id(0), r = get_global_id(1);
    int p = pos[r];
    for (uint h = 0; h < q_heads; h++) {
        size_t at = ((size_t)r * q_heads + h) * head_dim;
        q_out[at + c] = rope_rotated(q + at, c, rot_dim, p, table, rows, consts);
    }
    for (uint h = 0; h < kv_heads; h++) {
        size_t at = ((size_t)r * kv_heads + h) * head_dim;
        k_out[at + c] = rope_rotated(k + at, c, rot_dim, p, table, rows, consts);
    }
}

/* The causal scores with q and k rotated in registers: work-item (j, i, h)
   is key token j, query token i, q head h; s is [q_heads, tokens, tokens]. */
kernel void rope_scores(global const float *q, global const float *k, global const int *pos,
                        uint q_heads, uint kv_heads, uint head_dim, uint rot_dim, uint seq_len,
                        float scale, global const float *table, int rows,
                        global const float *consts, global float *s)
{
    uint j = get_global_id(0), i = get_global_id(1), h = get_global_id(2);
    uint n = get_global_size(0);
    if (j / seq_len != i / seq_len || j > i)
        return;
    global const float *qi = q + ((size_t)i * q_heads + h) * head_dim;
    global const float *kj = k + ((size_t)j * kv_heads + h / (q_heads / kv_heads)) * head_dim;
    float acc = 0.0f;
    for (uint c = 0; c < head_dim; c++)
        acc += rope_rotated(qi, c, rot_dim, pos[i], table, rows, consts) *
               rope_rotated(kj, c, rot_dim, pos[j], table, rows, consts);
    s[((size_t)h * n + i) * n + j] = scale * acc;
}

/* The same scores from q and k rotated beforehand (by sinpe_enqueue_rope()),
   the same products summed by the same loop.  The compiler chooses the
   order of both sums (an implicit vectorizer may split them differently),
   so the two need not agree bit for bit: rope_demo.c holds each within
   the float32 bound of a sum of head_dim products. */
kernel void plain_scores(global const float *q, global const float *k, uint q_heads,
                         uint kv_heads, uint head_dim, uint seq_len, float scale,
                         global float *s)
{
    uint j = get_global_id(0), i = get_global_id(1), h = get_global_id(2);
    uint n = get_global_size(0);
    if (j / seq_len != i / seq_len || j > i)
        return;
    global const float *qi = q + ((size_t)i * q_heads + h) * head_dim;
    global const float *kj = k + ((size_t)j * kv_heads + h / (q_heads / kv_heads)) * head_dim;
    float acc = 0.0f;
    for (uint c = 0; c < head_dim; c++)
        acc += qi[c] * kj[c];
    s[((size_t)h * n + i) * n + j] = scale * acc;
}
