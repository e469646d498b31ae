/*
 * embed_fast.cl -- the table-only bodies of the embedding kernels: the
 * _fast one (every position start + t in the table, no padding policy),
 * its eight-column form for streamed 16-bit outputs, its scalar bf16 form
 * and its whole-row form.  After embed.cl, whose parameters and token
 * logic they use; SINPE_EACH_SEQ stays defined for embed_two_pass.cl.
 */

/*
 * The _fast parts (every position start + t in the table, no padding
 * policy): work-item (v, g, t) writes columns [SINPE_VEC v, SINPE_VEC
 * (v + 1)) of token t of the S = SINPE_SEQS sequences from S g.  The PE row
 * (one position for all S) is loaded first and once, then the S ids, then
 * the S rows, before anything is stored, so S row loads are in flight at
 * once.  In the last group, sequences past the end repeat the last one: the
 * same work-item writes the same values to the same place again, which
 * keeps every store unconditional (CPU vectorisers need that).  Rows are
 * read whatever the id (a bad one reads row 0) and the value is dropped
 * after: a load under a condition cost the H200 8%.
 *
 * The per-sequence steps are written out by SINPE_EACH_SEQ rather than
 * looped: pocl ran the loop form of this body 20% slower (mid 32x512
 * d4096, four sequences: 26 against 21.5 ms).  With stream (the _stream
 * kernels) whole vectors are stored non-temporally (sinpe_stream4).
 */
#if SINPE_SEQS == 1
#define SINPE_EACH_SEQ(X) X(0)
#elif SINPE_SEQS == 2
#define SINPE_EACH_SEQ(X) X(0) X(1)
#elif SINPE_SEQS == 4
#define SINPE_EACH_SEQ(X) X(0) X(1) X(2) X(3)
#else
#define SINPE_EACH_SEQ(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#endif

/* Sequence b0 + s (the last one past the end): offsets, id check. */
#define SINPE_FAST_TOKEN(s)                                                             \
    {                                                                                   \
        size_t r = min(b0 + (s), (size_t)a.n_seqs - 1) * a.seq_len + t;                 \
        o[s] = a.out_off + r * a.out_stride + c;                                        \
        int id = mode == SINPE_MODE_ADD ? 0 : ids[a.ids_off + r];                       \
        int rel = (int)((uint)id - (uint)a.vocab_start); /* 0 outside shards */         \
        ok[s] = id >= 0 && rel >= 0 && rel < a.vocab;                                   \
        e[s] = a.e_off + (size_t)(ok[s] ? rel : 0) * a.e_stride + c;                    \
    }
/* The n columns from column offset at (n == 4 but at a row's end): the row
   (or for add the output), then the scaled value or zero, plus PE, stored. */
#define SINPE_FAST_LOAD(s)                                                              \
    x[s] = mode == SINPE_MODE_ADD ? sinpe_load_n(out, o[s] + at, n, ot, al)             \
                                  : sinpe_load_n(E, e[s] + at, n, et, al);
#define SINPE_FAST_STORE(s)                                                             \
    if (mode != SINPE_MODE_ADD)                                                         \
        x[s] = ok[s] ? a.scale * x[s] : (float4)(0.0f);                                 \
    x[s] = want_pe ? x[s] + pe : x[s];                                                  \
    if (stream && ot == SINPE_F32 && n == 4)                                            \
        sinpe_stream4(x[s], (global float *)out + o[s] + at);                           \
    else                                                                                \
        sinpe_store_n(x[s], out, o[s] + at, n, ot, al);
/* The PE values of those columns, when the kernel adds any. */
#define SINPE_FAST_PE()                                                                 \
    (mode == SINPE_MODE_GATHER                                                          \
         ? (float4)(0.0f)                                                               \
         : sinpe_load_n((global const uchar *)tab, pe_at + at, n, SINPE_F32, al))

inline void sinpe_fast_body(const int mode, const int et, const int ot, const int stream,
                            global const int *restrict ids, global const uchar *restrict E,
                            global uchar *restrict out, global const float *restrict tab,
                            sinpe_embed_params a)
{
    int c = (int)get_global_id(0) * SINPE_VEC;
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    bool al = (a.flags & SINPE_ALIGNED) != 0;
    /* The row of position start + t: the host checked that it is in the
       table; clamped all the same, so no read can leave it. */
    size_t pe_at = (size_t)clamp(a.start + (int)t, 0, max(a.tab_rows - 1, 0)) * a.dim + c;
    size_t o[SINPE_SEQS], e[SINPE_SEQS];
    bool ok[SINPE_SEQS];

#if SINPE_VEC >= 4
    if (c + SINPE_VEC <= (int)a.dim) {
        for (int q = 0; q < SINPE_VEC / 4; q++) {
            const int n = 4;
            size_t at = 4 * q;
            float4 x[SINPE_SEQS], pe = SINPE_FAST_PE();
            if (q == 0) {
                SINPE_EACH_SEQ(SINPE_FAST_TOKEN)
            }
            SINPE_EACH_SEQ(SINPE_FAST_LOAD)
            SINPE_EACH_SEQ(SINPE_FAST_STORE)
        }
        return;
    }
#endif
    /* The last columns of a row, up to four at a time (see sinpe_load_part4). */
    SINPE_EACH_SEQ(SINPE_FAST_TOKEN)
    for (int j = 0; j < SINPE_VEC && c + j < (int)a.dim; j += 4) {
        int n = min(min(SINPE_VEC - j, 4), (int)a.dim - c - j);
        size_t at = j;
        float4 x[SINPE_SEQS], pe = SINPE_FAST_PE();
        SINPE_EACH_SEQ(SINPE_FAST_LOAD)
        SINPE_EACH_SEQ(SINPE_FAST_STORE)
    }
}
#undef SINPE_FAST_LOAD
#undef SINPE_FAST_STORE
#undef SINPE_FAST_PE

/*
 * The _stream kernels with fp16 or bf16 output (CPU builds): as
 * sinpe_fast_body, but eight columns per work-item in float8 arithmetic and
 * one 16-byte non-temporal store per sequence (sinpe_stream8); the host
 * sizes the range for eight columns and takes these kernels only when the
 * row length, offset and stride are multiples of eight.  pocl, fused fp16
 * mid 32x512 d4096 (harness): 13 ms through sinpe_fast_body with streamed
 * 8-byte stores, 10.5 ms with eight columns and plain stores, 8 ms so.
 */
#define SINPE_S16_LOAD(s) x[s] = sinpe_load8(E, e[s], et);
#define SINPE_S16_STORE(s)                                                              \
    x[s] = ok[s] ? a.scale * x[s] : (float8)(0.0f);                                     \
    sinpe_stream8(want_pe ? x[s] + pe : x[s], out, o[s], ot);

inline void sinpe_stream16_body(const int mode, const int et, const int ot,
                                global const int *restrict ids, global const uchar *restrict E,
                                global uchar *restrict out, global const float *restrict tab,
                                sinpe_embed_params a)
{
    int c = (int)get_global_id(0) * 8;
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    size_t pe_at = (size_t)clamp(a.start + (int)t, 0, max(a.tab_rows - 1, 0)) * a.dim + c;
    size_t o[SINPE_SEQS], e[SINPE_SEQS];
    bool ok[SINPE_SEQS];
    float8 x[SINPE_SEQS], pe = want_pe ? vload8(0, tab + pe_at) : (float8)(0.0f);
    SINPE_EACH_SEQ(SINPE_FAST_TOKEN)
    SINPE_EACH_SEQ(SINPE_S16_LOAD)
    SINPE_EACH_SEQ(SINPE_S16_STORE)
}
#undef SINPE_S16_LOAD
#undef SINPE_S16_STORE
#undef SINPE_FAST_TOKEN

/*
 * The _fast fused and gather kernels in scalar form, for bf16 in CPU
 * builds (SINPE_COL_BF16): work-item (c, b, t) writes column c of token t
 * of sequence b, in work-groups spanning columns only (the host sizes the
 * range and the groups to match).  pocl vectorises this body across
 * work-items (eight lanes), where the float4 body above runs bf16 rounding
 * as 128-bit integer work: fused and gather bf16 about 1.5-1.8x faster
 * (mid 32x512 d4096).  Measured cliffs, each 2-17x slower: several
 * sequences per work-item (merged into 4-lane operations before the
 * work-item loop is formed, which then stays scalar), work-groups spanning
 * several sequences, a guard on the column per work-item around the step,
 * an early return, and the row's id read inside a guarded branch (the
 * row's address then looks varying and is gathered).  Hence the id and
 * offsets first, for every work-item, and a column guard decided per
 * work-group (a group inside the row takes a copy of the step without
 * it).  add stays on the float4 body (scalar: 20 against 14 ms).
 */
#ifndef SINPE_COL_BF16
#define SINPE_COL_BF16 0
#endif
#define SINPE_TAKES_COL(mode, et, ot) \
    (SINPE_COL_BF16 && (mode) != SINPE_MODE_ADD && (et) == SINPE_BF16 && (ot) == SINPE_BF16)

/* Column c of a row: the scaled embedding at element e (zero if not ok),
   plus the PE at element pe unless the kernel adds none, stored at o. */
inline void sinpe_col_step(const int mode, const int et, const int ot,
                           global const uchar *restrict E, global uchar *restrict out,
                           global const float *restrict tab, const sinpe_embed_params *a,
                           bool ok, size_t e, size_t pe, size_t o)
{
    float x = ok ? a->scale * sinpe_load1(E, e, et) : 0.0f;
    if (mode != SINPE_MODE_GATHER && !(a->flags & SINPE_SKIP_PE))
        x += tab[pe];
    sinpe_store1(x, out, o, ot);
}

inline void sinpe_col_body(const int mode, const int et, const int ot,
                           global const int *restrict ids, global const uchar *restrict E,
                           global uchar *restrict out, global const float *restrict tab,
                           sinpe_embed_params a)
{
    size_t c = get_global_id(0);
    bool live = get_global_id(1) < a.n_seqs && get_global_id(2) < a.seq_len;
    /* The row's id and offsets, for every work-item (clamped) and before
       any branch: the vectoriser then sees them fixed along the row. */
    size_t b = min(get_global_id(1), (size_t)a.n_seqs - 1);
    uint t = (uint)min(get_global_id(2), (size_t)a.seq_len - 1);
    size_t r = b * a.seq_len + t;
    int id = ids[a.ids_off + r];
    int rel = (int)((uint)id - (uint)a.vocab_start); /* 0 outside shards */
    bool ok = id >= 0 && rel >= 0 && rel < a.vocab;
    size_t e = a.e_off + (size_t)(ok ? rel : 0) * a.e_stride + c;
    size_t pe = (size_t)clamp(a.start + (int)t, 0, max(a.tab_rows - 1, 0)) * a.dim + c;
    size_t o = a.out_off + r * a.out_stride + c;
    bool whole = (get_group_id(0) + 1) * get_local_size(0) <= a.dim;
    if (!live) /* not a return: see above */
        ;
    else if (whole)
        sinpe_col_step(mode, et, ot, E, out, tab, &a, ok, e, pe, o);
    else if (c < a.dim)
        sinpe_col_step(mode, et, ot, E, out, tab, &a, ok, e, pe, o);
}

/*
 * The _row kernels (CPU builds, SINPE_ROW): the _fast fused and gather
 * calls in whole-row form, which the host takes for decode-sized calls (at
 * most 256 tokens, less than 16 MiB) with fp32 or fp16 output.  Work-item
 * (0, b, t) writes the whole row of token t of sequence b, four columns
 * per step (sinpe_table_row), and reads its id once.  The host launches one
 * work-item per work-group, sequences first, so the work-items of one
 * position follow each other and find its PE row in cache.
 * sinpe_fast_body pays the id, its checks and the offsets of its
 * sequences for every four columns: pocl, decode 64x1, medians of 300
 * launches: 21 against 13.6 us at dim 1024, 56 against 34 us at dim 4096;
 * gather the same.  With more tokens its four sequences per work-item pay
 * off again (64x16 d256: 133 against 161 us).  bf16 outputs keep their
 * bodies (4x128 d1024 bf16 pair: 112 us scalar, 165 row), and so does add
 * (decode d1024: 7 against 13 us).
 */
#ifndef SINPE_ROW
#define SINPE_ROW 0
#endif

inline void sinpe_row_body(const int mode, const int et, const int ot,
                           global const int *restrict ids, global const uchar *restrict E,
                           global uchar *restrict out, global const float *restrict tab,
                           sinpe_embed_params a)
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (b >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_token k;
    k.r = b * a.seq_len + t;
    k.o = a.out_off + k.r * a.out_stride;
    k.p = clamp(a.start + (int)t, 0, max(a.tab_rows - 1, 0));
    k.live = true;
    k.otf = false;
    k.al = (a.flags & SINPE_ALIGNED) != 0;
    sinpe_token_id(mode, ids, &a, 0, &k);
    sinpe_table_row(mode, et, ot, E, out, tab, &a, &k);
}
