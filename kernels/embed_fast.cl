/* embed_fast.cl -- the table-only forms FAST, COL and ROW (kernels/abi.h). */
#ifndef SINPE_EMBED_FAST_CL
#define SINPE_EMBED_FAST_CL

#include "embed.cl"

/*
 * FAST: work-item (v, g, t) writes columns [4 v, 4 v + 4) of token t of the
 * S = SINPE_SEQS sequences from S g ([16 v, 16 v + 16) into a 16-bit
 * output with wide16 = 16).  The PE row (one position for all S)
 * is loaded once, then the S ids and rows, before anything is stored, so S
 * row loads are in flight at once.  Sequences past the end repeat the
 * last one (the same values to the same place), which keeps every store
 * unconditional; rows are read whatever the id, since a load under a
 * condition is slower on GPUs.  pocl vectorises the unrolled loops better.
 */
/* The output offsets and ids of a FAST work-item's S sequences at column c. */
SINPE_INLINE void sinpe_fast_seqs(const int mode, const int et, global const int *ids,
                                  const sinpe_src *src, const sinpe_embed_params *a,
                                  size_t b0, uint t, int c, size_t *o, sinpe_id *k)
{
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++) {
        size_t r = min(b0 + s, (size_t)a->n_seqs - 1) * a->pos.seq_len + t;
        o[s] = a->out_off + r * a->out_stride + c;
        k[s] = sinpe_id_rule(mode, et, false, ids, src, a, r, c);
    }
}

SINPE_INLINE void sinpe_fast_cols(const int mode, const int et, const int ot, const int n,
                                  global const int *ids, const sinpe_src *src,
                                  global uchar *out, global const float *tab,
                                  const sinpe_embed_params *a, size_t b0, uint t, int c)
{
    bool want_pe = sinpe_wants_pe(mode, a);
    bool al = (a->flags & SINPE_ALIGNED) != 0;
    /* Position start + t, in the table (the host checked). */
    float4 pe = mode == SINPE_MODE_GATHER
                    ? (float4)(0.0f)
                    : sinpe_load_n((global const uchar *)tab,
                                   sinpe_pe_row(a, a->pos.start + (int)t) + c, n, SINPE_F32, al);
    size_t o[SINPE_SEQS];
    sinpe_id k[SINPE_SEQS];
    float4 x[SINPE_SEQS];
    sinpe_fast_seqs(mode, et, ids, src, a, b0, t, c, o, k);
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++)
        x[s] = mode == SINPE_MODE_ADD ? sinpe_load_n(out, o[s], n, ot, al)
                                      : sinpe_load_n(k[s].E, k[s].e, n, et, al);
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++) {
        if (mode != SINPE_MODE_ADD)
            x[s] = k[s].ok ? a->scale * (k[s].w * x[s]) : (float4)(0.0f);
        x[s] = want_pe ? x[s] + pe : x[s];
        sinpe_store_n(x[s], out, o[s], n, ot, al);
    }
}

/* The same on sixteen columns (the FAST form into a 16-bit output with
   wide16 = 16): sixteen-lane conversions where four-lane ones cost CPUs
   per work-item what the bytes do not.  Loads through sinpe_load16. */
SINPE_INLINE void sinpe_fast_cols16(const int mode, const int et, const int ot,
                                    global const int *ids, const sinpe_src *src,
                                    global uchar *out, global const float *tab,
                                    const sinpe_embed_params *a,
                                    size_t b0, uint t, int c)
{
    bool want_pe = sinpe_wants_pe(mode, a);
    float16 pe = mode == SINPE_MODE_GATHER
                     ? (float16)(0.0f)
                     : vload16(0, tab + sinpe_pe_row(a, a->pos.start + (int)t) + c);
    size_t o[SINPE_SEQS];
    sinpe_id k[SINPE_SEQS];
    float16 x[SINPE_SEQS];
    sinpe_fast_seqs(mode, et, ids, src, a, b0, t, c, o, k);
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++)
        x[s] = mode == SINPE_MODE_ADD ? sinpe_load16(out, o[s], ot)
                                      : sinpe_load16(k[s].E, k[s].e, et);
#pragma unroll
    for (int s = 0; s < SINPE_SEQS; s++) {
        if (mode != SINPE_MODE_ADD)
            x[s] = k[s].ok ? a->scale * (k[s].w * x[s]) : (float16)(0.0f);
        x[s] = want_pe ? x[s] + pe : x[s];
        sinpe_store16(x[s], out, o[s], ot);
    }
}

SINPE_INLINE void sinpe_body_FAST(const int mode, const int et, const int ot,
                            SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    const bool wide = (ot != SINPE_F32) & (SINPE_WIDE16 == 16);
    int c = (int)get_global_id(0) * (wide ? 16 : 4);
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.pos.seq_len)
        return;
    const sinpe_src src = SINPE_SRC;
    if (wide && c + 16 <= (int)a.dim) {
        sinpe_fast_cols16(mode, et, ot, ids, &src, out, tab, &a, b0, t, c);
        return;
    }
    if (wide) { /* a row's last columns */
        for (; c < (int)a.dim; c += 4)
            sinpe_fast_cols(mode, et, ot, min(4, (int)a.dim - c), ids, &src, out, tab, &a, b0,
                            t, c);
        return;
    }
    /* n a constant apart from the row's end: no lane checks. */
    if (c + 4 <= (int)a.dim)
        sinpe_fast_cols(mode, et, ot, 4, ids, &src, out, tab, &a, b0, t, c);
    else
        sinpe_fast_cols(mode, et, ot, (int)a.dim - c, ids, &src, out, tab, &a, b0, t, c);
}

/*
 * COL: work-item (c, b, t) writes column c of token t of sequence b, in
 * work-groups spanning columns only, as scalar code that pocl vectorises
 * across work-items (the four-column bodies run bf16 rounding as 128-bit
 * integer work).  The vectoriser needs the id and offsets computed before
 * any branch, no early return, and the column guard decided per
 * work-group (a group inside the row takes a copy of the step without it).
 */

/* Column c: the scaled embedding of id k, plus PE at pe, stored at o. */
SINPE_INLINE void sinpe_col_step(const int mode, const int et, const int ot,
                           global uchar *out, global const float *tab,
                           const sinpe_embed_params *a, const sinpe_id *k, size_t pe, size_t o)
{
    float x = k->ok ? a->scale * sinpe_load1(k->E, k->e, et) : 0.0f;
    if (sinpe_wants_pe(mode, a))
        x += tab[pe];
    sinpe_store1(x, out, o, ot);
}

SINPE_INLINE void sinpe_body_COL(const int mode, const int et, const int ot,
                           SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    size_t c = get_global_id(0);
    bool live = get_global_id(1) < a.n_seqs && get_global_id(2) < a.pos.seq_len;
    size_t b = min(get_global_id(1), (size_t)a.n_seqs - 1);
    uint t = (uint)min(get_global_id(2), (size_t)a.pos.seq_len - 1);
    size_t r = b * a.pos.seq_len + t;
    const sinpe_src src = SINPE_SRC;
    sinpe_id k = sinpe_id_rule(mode, et, false, ids, &src, &a, r, (int)c);
    size_t pe = sinpe_pe_row(&a, a.pos.start + (int)t) + c;
    size_t o = a.out_off + r * a.out_stride + c;
    bool whole = (get_group_id(0) + 1) * get_local_size(0) <= a.dim;
    if (!live) /* not a return: see above */
        ;
    else if (whole)
        sinpe_col_step(mode, et, ot, out, tab, &a, &k, pe, o);
    else if (c < a.dim)
        sinpe_col_step(mode, et, ot, out, tab, &a, &k, pe, o);
}

/* ROW: whole rows (sinpe_token_row), a work-item per group, sequences
   first: those of one position follow each other, its PE row in cache. */
SINPE_INLINE void sinpe_body_ROW(const int mode, const int et, const int ot,
                           SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    sinpe_token_row(mode, et, ot, true, SINPE_ARGS(SINPE_SIG_EMBED));
}

/* FAST into 16-bit outputs writes sixteen lanes a work-item (wide16 =
   16): vectorised as written, which vec_type_hint tells a compiler that
   would merge work-items (Intel's CPU runtime did, 16 x 16 lanes, and took
   five times as long). */
#if SINPE_WIDE16 == 16
#define SINPE_AS_WRITTEN __attribute__((vec_type_hint(float16)))
#else
#define SINPE_AS_WRITTEN
#endif

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_FAST
kernel void sinpe_add_fast_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, ADD, F32); }
SINPE_AS_WRITTEN
kernel void sinpe_add_fast_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, ADD, F16); }
SINPE_AS_WRITTEN
kernel void sinpe_add_fast_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, ADD, BF16); }
#endif
#else /* the kernels of weights SINPE_WEIGHTS */
#if SINPE_HAS_FAST
kernel void sinpe_embed_fast_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, FUSED, F32); }
SINPE_AS_WRITTEN
kernel void sinpe_embed_fast_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, FUSED, F16); }
SINPE_AS_WRITTEN
kernel void sinpe_embed_fast_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, FUSED, BF16); }
kernel void sinpe_gather_fast_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, GATHER, F32); }
SINPE_AS_WRITTEN
kernel void sinpe_gather_fast_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, GATHER, F16); }
SINPE_AS_WRITTEN
kernel void sinpe_gather_fast_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, GATHER, BF16); }
#endif
#if SINPE_HAS_COL
kernel void sinpe_embed_col_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(COL, FUSED, BF16); }
kernel void sinpe_gather_col_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(COL, GATHER, BF16); }
#endif
#if SINPE_HAS_ROW
kernel void sinpe_embed_row_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, FUSED, F32); }
kernel void sinpe_embed_row_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, FUSED, F16); }
kernel void sinpe_embed_row_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, FUSED, BF16); }
kernel void sinpe_gather_row_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, GATHER, F32); }
kernel void sinpe_gather_row_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, GATHER, F16); }
kernel void sinpe_gather_row_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, GATHER, BF16); }
#endif
#endif

#endif /* SINPE_EMBED_FAST_CL */
