/*
 * embed_two_pass.cl -- TABLE and STREAM, which write the tokens whose
 * position lies in the table before OTF writes the others
 * (kernels/embed_otf.cl, kernels/abi.h), each element once, by
 * sinpe_body_GENERAL's operations.
 */
#ifndef SINPE_EMBED_TWO_PASS_CL
#define SINPE_EMBED_TWO_PASS_CL

#include "embed.cl"

/* Sequence b0 + s (the last one when past the end) of a TABLE or STREAM
   work-item, column c of token t: its output offset, its id, whether it is
   written here (it exists, and its PE, if any, is in the table) and the
   offset of its PE. */
typedef struct {
    size_t o, pe;
    sinpe_id id;
    bool live;
} sinpe_seq;

SINPE_INLINE sinpe_seq sinpe_seq_at(const int mode, const int et, const bool policy,
                                    global const int *ids, global const int *pos,
                                    global const int *seq_start, global const int *pad_count,
                                    const sinpe_src *src, const sinpe_embed_params *a, size_t b0,
                                    int s, uint t, int c)
{
    sinpe_seq q;
    size_t bs = min(b0 + s, (size_t)a->n_seqs - 1), r = bs * a->pos.seq_len + t;
    int p = sinpe_position(&a->pos, pos, seq_start, pad_count, bs, t);
    q.o = a->out_off + r * a->out_stride + c;
    q.id = sinpe_id_rule(mode, et, policy, ids, src, a, r, c);
    q.live = b0 + s < a->n_seqs && (!sinpe_wants_pe(mode, a) || (p >= 0 && p < a->tab_rows));
    q.pe = sinpe_pe_row(a, p) + c;
    return q;
}

/* The S sequences of a work-item, without the padding and owner checks
   when the call has neither. */
SINPE_INLINE void sinpe_seqs_at(const int mode, const int et, const int S, sinpe_seq *q,
                                global const int *ids, global const int *pos,
                                global const int *seq_start, global const int *pad_count,
                                const sinpe_src *src, const sinpe_embed_params *a, size_t b0,
                                uint t, int c)
{
    if (a->pad_policy == SINPE_PAD_NONE && !(a->flags & SINPE_OWNER)) {
#pragma unroll
        for (int s = 0; s < S; s++)
            q[s] = sinpe_seq_at(mode, et, false, ids, pos, seq_start, pad_count, src, a, b0, s,
                                t, c);
    } else {
#pragma unroll
        for (int s = 0; s < S; s++)
            q[s] = sinpe_seq_at(mode, et, true, ids, pos, seq_start, pad_count, src, a, b0, s, t,
                                c);
    }
}

/*
 * TABLE: work-item (v, g, t) writes columns [16 v, 16 v + 16) of token t of
 * the S = SINPE_TABLE_SEQS sequences from S g, as sinpe_body_FAST, but
 * each sequence has its own position, PE row and padding decision, paid
 * once per sixteen columns, and writes only if it is live.
 */
#define SINPE_TABLE_COLS 16

/* The n columns (4, but at a row's end) at offset at of every sequence. */
SINPE_INLINE void sinpe_table_cols(const int mode, const int et, const int ot, const int n,
                             global uchar *out,
                             global const float *tab, const sinpe_embed_params *a,
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
                                      : sinpe_load_n(q[s].id.E, q[s].id.e + at, n, et, al);
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
                             SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    int c = (int)get_global_id(0) * SINPE_TABLE_COLS;
    size_t b0 = get_global_id(1) * SINPE_TABLE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.pos.seq_len)
        return;
    sinpe_seq q[SINPE_TABLE_SEQS];
    const sinpe_src src = SINPE_SRC;
    sinpe_seqs_at(mode, et, SINPE_TABLE_SEQS, q, ids, pos, seq_start, pad_count, &src, &a, b0, t,
                  c);
    /* n a constant apart from the row's end: no lane checks. */
    if (c + SINPE_TABLE_COLS <= (int)a.dim) {
        for (int at = 0; at < SINPE_TABLE_COLS; at += 4)
            sinpe_table_cols(mode, et, ot, 4, out, tab, &a, q, at);
        return;
    }
    for (int j = 0; j < SINPE_TABLE_COLS && c + j < (int)a.dim; j += 4)
        sinpe_table_cols(mode, et, ot, min(4, (int)a.dim - c - j), out, tab, &a, q, j);
}

/* With stream_prefetch, STREAM work-items v < 8 into a 16-bit output ask
   for their columns of the next S sequences' rows (token t + 1's first
   after the last), whose start no hardware prefetcher sees coming
   (bench/RESULTS.md). */
SINPE_INLINE void sinpe_stream_ahead(const int mode, const int et, global const int *ids,
                                     const sinpe_src *src, const sinpe_embed_params *a, size_t b,
                                     uint t, int c)
{
    size_t eb = et == SINPE_F32 ? 4 : SINPE_FLOAT_TYPE(et) ? 2 : 1, n = a->n_seqs;
    t += (b += SINPE_SEQS) >= n;
    for (int s = 0; s < SINPE_SEQS && t < a->pos.seq_len; s++) {
        size_t r = min(b < n ? b + s : s, n - 1) * a->pos.seq_len + t;
        sinpe_id k = sinpe_id_rule(mode, et, false, ids, src, a, r, c); /* row 0 for a bad id */
        size_t i = k.e;
        sinpe_prefetch(2, SINPE_BLOCK_TYPE(et) ? sinpe_block_at(k.E, i, et) : k.E + i * eb,
                       SINPE_BLOCK_TYPE(et) ? sinpe_block_span(i, 32 * SINPE_STREAM_LINES, et)
                                            : 32 * eb * SINPE_STREAM_LINES);
    }
}

/* STREAM's lines from k-quant weights (Q4_K, Q5_K, Q6_K) into a 16-bit
   output where a work-item's columns are whole halves of blocks (the host
   keeps rows, offsets and strides whole blocks, so c and e are multiples of
   128): each half decoded at once (sinpe_half128), then its four lines as
   sinpe_body_STREAM writes them, each after the loads of its values.
   Sequence by sequence: the halves of all S sequences (32 registers of 16
   floats) would spill. */
SINPE_INLINE void sinpe_stream_half(const int et, const int ot, global uchar *out,
                                    global const float *tab, const sinpe_embed_params *a,
                                    const sinpe_seq *q, int c, bool read_pe)
{
    for (int d = 0; d < 32 * SINPE_STREAM_LINES && c + d < (int)a->dim; d += 128) {
#pragma unroll
        for (int s = 0; s < SINPE_SEQS; s++) {
            float16 v[8], p[8];
            sinpe_half128(q[s].id.E, q[s].id.e + d, et, v);
#pragma unroll
            for (int k = 0; k < 8; k++) {
                v[k] = q[s].id.ok ? a->scale * (q[s].id.w * v[k]) : (float16)(0.0f);
                p[k] = read_pe ? vload16(k, tab + q[s].pe + d) : (float16)(0.0f);
            }
            if (!q[s].live)
                continue;
#pragma unroll
            for (int k = 0; k < 8; k += 2) {
                float16 x = q[s].id.zero ? (float16)(0.0f) : q[s].id.add_pe ? v[k] + p[k] : v[k];
                float16 y = q[s].id.zero   ? (float16)(0.0f)
                            : q[s].id.add_pe ? v[k + 1] + p[k + 1]
                                             : v[k + 1];
                sinpe_stream_16(x, y, (global ushort *)out + q[s].o + d + 16 * k, ot);
            }
        }
    }
}

/*
 * STREAM: work-item (v, g, t) writes L = SINPE_STREAM_LINES 64-byte lines
 * (16 L fp32 or 32 L 16-bit columns from line L v on; fewer at a row's end)
 * of token t of each live one of the S = SINPE_SEQS sequences from S g,
 * each line one non-temporal store after the loads of its round: a partial
 * line, or loads between a line's stores, defeats the write-combining of
 * some CPUs (the host takes this form only where no line is partial).
 * L > 1 spreads a work-item's fixed cost over more bytes.
 */
SINPE_INLINE void sinpe_body_STREAM(const int mode, const int et, const int ot,
                              SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    const int W = ot == SINPE_F32 ? 16 : 32; /* columns a line */
    int c = (int)get_global_id(0) * W * SINPE_STREAM_LINES;
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.pos.seq_len)
        return;
    bool read_pe = sinpe_wants_pe(mode, &a) && a.tab_rows > 0;
    sinpe_seq q[SINPE_SEQS];
    float16 x[SINPE_SEQS], y[SINPE_SEQS], p[SINPE_SEQS], r[SINPE_SEQS];
    const sinpe_src src = SINPE_SRC;
    sinpe_seqs_at(mode, et, SINPE_SEQS, q, ids, pos, seq_start, pad_count, &src, &a, b0, t, c);
    if ((SINPE_PREFETCH & 2) && ot != SINPE_F32 && get_global_id(0) < 8)
        sinpe_stream_ahead(mode, et, ids, &src, &a, b0, t, c);
#if SINPE_STREAM_LINES % 4 == 0 /* whole halves of k-quant blocks */
    if (et >= SINPE_Q4_K && et <= SINPE_Q6_K && ot != SINPE_F32) {
        sinpe_stream_half(et, ot, out, tab, &a, q, c, read_pe);
        return;
    }
#endif
    for (int d = 0; d < W * SINPE_STREAM_LINES && c + d < (int)a.dim; d += W) {
#pragma unroll
        for (int s = 0; s < SINPE_SEQS; s++) {
            if (SINPE_BLOCK_TYPE(et) && ot != SINPE_F32) { /* a line: 32 values of a block */
                sinpe_qload32(q[s].id.E, q[s].id.e + d, et, &x[s], &y[s]);
            } else {
                x[s] = sinpe_load16(q[s].id.E, q[s].id.e + d, et);
                y[s] = ot == SINPE_F32 ? (float16)(0.0f)
                                       : sinpe_load16(q[s].id.E, q[s].id.e + d + 16, et);
            }
            x[s] = q[s].id.ok ? a.scale * (q[s].id.w * x[s]) : (float16)(0.0f);
            y[s] = q[s].id.ok ? a.scale * (q[s].id.w * y[s]) : (float16)(0.0f);
            p[s] = read_pe ? vload16(0, tab + q[s].pe + d) : (float16)(0.0f);
            r[s] = read_pe && ot != SINPE_F32 ? vload16(1, tab + q[s].pe + d) : (float16)(0.0f);
        }
#pragma unroll
        for (int s = 0; s < SINPE_SEQS; s++) {
            if (!q[s].live)
                continue;
            x[s] = q[s].id.zero ? (float16)(0.0f) : q[s].id.add_pe ? x[s] + p[s] : x[s];
            y[s] = q[s].id.zero ? (float16)(0.0f) : q[s].id.add_pe ? y[s] + r[s] : y[s];
            if (ot == SINPE_F32)
                sinpe_stream_f32(x[s], (global float *)out + q[s].o + d);
            else
                sinpe_stream_16(x[s], y[s], (global ushort *)out + q[s].o + d, ot);
        }
    }
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_TABLE
kernel void sinpe_add_table_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, ADD, F32); }
kernel void sinpe_add_table_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, ADD, F16); }
kernel void sinpe_add_table_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, ADD, BF16); }
#endif
#else /* the kernels of weights SINPE_WEIGHTS */
#if SINPE_HAS_STREAM
kernel void sinpe_embed_stream_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, FUSED, F32); }
kernel void sinpe_embed_stream_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, FUSED, F16); }
kernel void sinpe_embed_stream_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, FUSED, BF16); }
kernel void sinpe_gather_stream_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, GATHER, F32); }
kernel void sinpe_gather_stream_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, GATHER, F16); }
kernel void sinpe_gather_stream_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, GATHER, BF16); }
#endif
#if SINPE_HAS_TABLE
kernel void sinpe_embed_table_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, FUSED, F32); }
kernel void sinpe_embed_table_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, FUSED, F16); }
kernel void sinpe_embed_table_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, FUSED, BF16); }
#endif
#endif

#endif /* SINPE_EMBED_TWO_PASS_CL */
