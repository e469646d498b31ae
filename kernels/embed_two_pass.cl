/*
 * embed_two_pass.cl -- the forms that write only the tokens whose position
 * lies in the table: TABLE, several sequences per work-item, and STREAM,
 * one sequence per work-item with non-temporal stores; and OTF, which
 * writes the others, computed on the fly, one token per work-item, after
 * them.  Every element is written once, by the same operations as
 * sinpe_body_GENERAL.
 */
#ifndef SINPE_EMBED_TWO_PASS_CL
#define SINPE_EMBED_TWO_PASS_CL

#include "abi.h"
#include "embed.cl"

/*
 * Sequence b0 + s of a TABLE or STREAM work-item (the last one when past
 * the end), column c of token t: its output offset, its id, whether it is
 * written (a sequence that exists, whose position lies in the table when
 * the call adds PE; the others are OTF's) and the offset of its PE.
 */
typedef struct {
    size_t o, pe;
    sinpe_id id;
    bool live;
} sinpe_seq;

SINPE_INLINE sinpe_seq sinpe_seq_at(const int mode, const int et, const bool policy,
                              global const int *restrict ids, global const int *restrict pos,
                              global const int *restrict seq_start,
                              global const int *restrict pad_count,
                              global const uchar *restrict ws, const sinpe_embed_params *a,
                              size_t b0, int s, uint t, int c)
{
    sinpe_seq q;
    size_t bs = min(b0 + s, (size_t)a->n_seqs - 1), r = bs * a->seq_len + t;
    int p = sinpe_position(a, pos, seq_start, pad_count, bs, t);
    q.o = a->out_off + r * a->out_stride + c;
    q.id = sinpe_id_rule(mode, et, policy, ws, a, sinpe_id_at(mode, policy, ids, a, r), c);
    q.live = b0 + s < a->n_seqs && (!sinpe_wants_pe(mode, a) || (p >= 0 && p < a->tab_rows));
    q.pe = sinpe_pe_row(a, p) + c;
    return q;
}

/* The S sequences of a work-item into q[0 .. S): without the padding and
   owner checks when the call has neither. */
SINPE_INLINE void sinpe_seqs_at(const int mode, const int et, const int S, sinpe_seq *q,
                          global const int *restrict ids, global const int *restrict pos,
                          global const int *restrict seq_start,
                          global const int *restrict pad_count,
                          global const uchar *restrict ws, const sinpe_embed_params *a,
                          size_t b0, uint t, int c)
{
    if (a->pad_policy == SINPE_PAD_NONE && !(a->flags & SINPE_OWNER)) {
#pragma unroll
        for (int s = 0; s < S; s++)
            q[s] = sinpe_seq_at(mode, et, false, ids, pos, seq_start, pad_count, ws, a, b0, s,
                                t, c);
    } else {
#pragma unroll
        for (int s = 0; s < S; s++)
            q[s] = sinpe_seq_at(mode, et, true, ids, pos, seq_start, pad_count, ws, a, b0, s, t,
                                c);
    }
}

/*
 * TABLE: work-item (v, g, t) writes columns [16 v, 16 v + 16) of token t of
 * the S = SINPE_TABLE_SEQS sequences from S g (the record's table_seqs),
 * as in sinpe_body_FAST, but each sequence has its own position, PE row
 * and padding decision, and writes only if it is live.  Sixteen columns
 * per work-item pay each sequence's position, id and checks once per
 * sixteen.
 */
#define SINPE_TABLE_COLS 16

/* The n columns (4, but at a row's end) at offset at of every sequence. */
SINPE_INLINE void sinpe_table_cols(const int mode, const int et, const int ot, const int n,
                             global const uchar *restrict E, global uchar *restrict out,
                             global const float *restrict tab, const sinpe_embed_params *a,
                             const sinpe_seq *q, size_t at)
{
    /* A table without rows is a 64-byte placeholder: nothing to read (and
       every sequence then writes only without PE). */
    bool read_pe = sinpe_wants_pe(mode, a) && a->tab_rows > 0;
    bool al = (a->flags & SINPE_ALIGNED) != 0;
    float4 x[SINPE_TABLE_SEQS], pe[SINPE_TABLE_SEQS];
#pragma unroll
    for (int s = 0; s < SINPE_TABLE_SEQS; s++) {
        x[s] = mode == SINPE_MODE_ADD ? sinpe_load_n(out, q[s].o + at, n, ot, al)
                                      : sinpe_load_n(E, q[s].id.e + at, n, et, al);
        pe[s] = read_pe ? sinpe_load_n((global const uchar *)tab, q[s].pe + at, n, SINPE_F32, al)
                        : (float4)(0.0f);
    }
#pragma unroll
    for (int s = 0; s < SINPE_TABLE_SEQS; s++) {
        if (!q[s].live)
            continue;
        if (mode != SINPE_MODE_ADD)
            x[s] = q[s].id.ok ? a->scale * (q[s].id.w * x[s]) : (float4)(0.0f);
        x[s] = q[s].id.add_pe ? x[s] + pe[s] : x[s];
        sinpe_store_n(q[s].id.zero ? (float4)(0.0f) : x[s], out, q[s].o + at, n, ot, al);
    }
}

SINPE_INLINE void sinpe_body_TABLE(const int mode, const int et, const int ot,
                             SINPE_PARAMS(SINPE_SIG_EMBED))
{
    int c = (int)get_global_id(0) * SINPE_TABLE_COLS;
    size_t b0 = get_global_id(1) * SINPE_TABLE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_seq q[SINPE_TABLE_SEQS];
    sinpe_seqs_at(mode, et, SINPE_TABLE_SEQS, q, ids, pos, seq_start, pad_count, ws, &a, b0, t,
                  c);
    /* Whole vectors apart from the row's end: with n a constant the loads
       and stores lose their lane checks. */
    if (c + SINPE_TABLE_COLS <= (int)a.dim) {
        for (int at = 0; at < SINPE_TABLE_COLS; at += 4)
            sinpe_table_cols(mode, et, ot, 4, E, out, tab, &a, q, at);
        return;
    }
    for (int j = 0; j < SINPE_TABLE_COLS && c + j < (int)a.dim; j += 4)
        sinpe_table_cols(mode, et, ot, min(min(SINPE_TABLE_COLS - j, 4), (int)a.dim - c - j), E,
                         out, tab, &a, q, j);
}

/*
 * STREAM: work-item (v, g, t) writes one 64-byte line of token t of each
 * of the S = SINPE_SEQS sequences from S g (the record's seqs) that is
 * live: columns [16 v, 16 v + 16) of an fp32 output, [32 v, 32 v + 32) of
 * a 16-bit one, each line with one non-temporal store.  Whole lines, and
 * every load (rows and PE, the rows whatever the id: one not held reads
 * row 0 and is zeroed after) before the first store: a store of part of a
 * line, or loads between the stores, defeats the write-combining of some
 * CPUs.  The host takes this form for large fused and gather outputs whose
 * row length, offset and stride are whole lines on a 64-byte aligned base,
 * so no line is partial.
 */
SINPE_INLINE void sinpe_body_STREAM(const int mode, const int et, const int ot,
                              SINPE_PARAMS(SINPE_SIG_EMBED))
{
    int c = (int)get_global_id(0) * (ot == SINPE_F32 ? 16 : 32);
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool read_pe = sinpe_wants_pe(mode, &a) && a.tab_rows > 0;
    sinpe_seq q[SINPE_SEQS];
    float16 x[SINPE_SEQS], y[SINPE_SEQS], p[SINPE_SEQS], r[SINPE_SEQS];
    sinpe_seqs_at(mode, et, SINPE_SEQS, q, ids, pos, seq_start, pad_count, ws, &a, b0, t, c);
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++) {
        x[s] = sinpe_load16(E, q[s].id.e, et);
        y[s] = ot == SINPE_F32 ? (float16)(0.0f) : sinpe_load16(E, q[s].id.e + 16, et);
        x[s] = q[s].id.ok ? a.scale * (q[s].id.w * x[s]) : (float16)(0.0f);
        y[s] = q[s].id.ok ? a.scale * (q[s].id.w * y[s]) : (float16)(0.0f);
        p[s] = read_pe ? vload16(0, tab + q[s].pe) : (float16)(0.0f);
        r[s] = read_pe && ot != SINPE_F32 ? vload16(1, tab + q[s].pe) : (float16)(0.0f);
    }
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++) {
        if (!q[s].live)
            continue;
        sinpe_id k = q[s].id;
        x[s] = k.zero ? (float16)(0.0f) : k.add_pe ? x[s] + p[s] : x[s];
        y[s] = k.zero ? (float16)(0.0f) : k.add_pe ? y[s] + r[s] : y[s];
        if (ot == SINPE_F32)
            sinpe_stream_f32(x[s], (global float *)out + q[s].o);
        else
            sinpe_stream_16(x[s], y[s], (global ushort *)out + q[s].o, ot);
    }
}

/*
 * OTF: work-item (0, b, t) writes token t of sequence b if its position
 * lies outside the table, four columns at a time, computed on the fly; any
 * other token costs one check.  With SINPE_ONE_LAUNCH (decode-sized calls)
 * the form runs alone and writes the other tokens too, from the table.
 */
SINPE_INLINE void sinpe_body_OTF(const int mode, const int et, const int ot,
                           SINPE_PARAMS(SINPE_SIG_EMBED))
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (get_global_id(0) > 0 || b >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_token k = sinpe_token_at(mode, pos, seq_start, pad_count, &a, b, t, 0);
    if (!k.otf && !(a.flags & SINPE_ONE_LAUNCH))
        return;
    k.id = sinpe_token_id(mode, et, ids, ws, &a, &k, 0);
    sinpe_token_row(mode, et, ot, E, out, tab, coef, &a, &k);
}

#endif /* SINPE_EMBED_TWO_PASS_CL */
