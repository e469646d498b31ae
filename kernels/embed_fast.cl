/*
 * embed_fast.cl -- the table-only (_fast) bodies of the embedding kernels,
 * and the entry points of every embedding kernel (after embed.cl, whose
 * parameters, token logic and general body they use).
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
 * one 16-byte non-temporal store per sequence (sinpe_stream8_16); the host
 * sizes the range for eight columns and takes these kernels only when the
 * row length, offset and stride are multiples of eight.  pocl, fused fp16
 * mid 32x512 d4096 (harness): 13 ms through sinpe_fast_body with streamed
 * 8-byte stores, 10.5 ms with eight columns and plain stores, 8 ms so.
 */
#define SINPE_S16_LOAD(s) x[s] = sinpe_load8(E, e[s], et);
#define SINPE_S16_STORE(s)                                                              \
    x[s] = ok[s] ? a.scale * x[s] : (float8)(0.0f);                                     \
    sinpe_stream8_16(want_pe ? x[s] + pe : x[s], out, o[s], ot);

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
 * The table part of the fused and add kernels in two-pass builds (CPUs),
 * for every call that is not _fast (positions per sequence, padding
 * policies, positions past the table), followed by the _otf part:
 * work-item (v, g, t) as in sinpe_fast_body, but each of the S sequences
 * has its own position, PE row and padding decision, and writes only if
 * its position lies in the table (and it is not past the last sequence).
 * The same operations as sinpe_embed_body (see sinpe_token_id).  The
 * general body, one token per work-item, took 45-51 ms for an explicit
 * table part (mid 32x512 d4096), this one 32 ms without a padding policy
 * and 36 ms with one (one token step for both: 38 ms).
 */
/* Sequence b0 + s (the last one past the end): its row and output offset,
   then its id step (with or without a padding policy), then its position. */
#define SINPE_POS_ROW(s)                                                                \
    size_t bs = min(b0 + (s), (size_t)a.n_seqs - 1);                                    \
    size_t r = bs * a.seq_len + t;                                                      \
    o[s] = a.out_off + r * a.out_stride + c;
#define SINPE_POS_AT(s)                                                                 \
    e[s] = a.e_off + (size_t)(ok[s] ? rel : 0) * a.e_stride + c;                        \
    int p = sinpe_position(&a, pos, seq_start, pad_count, bs, t);                       \
    live[s] = b0 + (s) < a.n_seqs && (!want_pe || (p >= 0 && p < a.tab_rows));          \
    pe_at[s] = (size_t)clamp(p, 0, max(a.tab_rows - 1, 0)) * a.dim + c;
#define SINPE_POS_TOKEN(s)                                                              \
    {                                                                                   \
        SINPE_POS_ROW(s)                                                                \
        int id = need_id ? ids[a.ids_off + r] : -1;                                     \
        int rel = (int)((uint)id - (uint)a.vocab_start); /* 0 outside shards */         \
        bool is_pad = a.pad_policy != SINPE_PAD_NONE && id == a.pad_id;                 \
        ok[s] = id >= 0 && rel >= 0 && rel < a.vocab &&                                 \
                !(is_pad && a.pad_policy == SINPE_PAD_ZERO_EMBEDDING);                  \
        add_pe[s] = want_pe && !(is_pad && a.pad_policy == SINPE_PAD_ZERO_PE);          \
        zero[s] = is_pad && a.pad_policy == SINPE_PAD_ZERO_OUTPUT;                      \
        SINPE_POS_AT(s)                                                                 \
    }
/* The same without a padding policy. */
#define SINPE_POS_TOKEN_NOPAD(s)                                                        \
    {                                                                                   \
        SINPE_POS_ROW(s)                                                                \
        int id = mode == SINPE_MODE_ADD ? -1 : ids[a.ids_off + r];                      \
        int rel = (int)((uint)id - (uint)a.vocab_start); /* 0 outside shards */         \
        ok[s] = id >= 0 && rel >= 0 && rel < a.vocab;                                   \
        add_pe[s] = want_pe;                                                            \
        zero[s] = false;                                                                \
        SINPE_POS_AT(s)                                                                 \
    }
#define SINPE_POS_LOAD(s)                                                               \
    x[s] = mode == SINPE_MODE_ADD ? sinpe_load_n(out, o[s] + at, n, ot, al)             \
                                  : sinpe_load_n(E, e[s] + at, n, et, al);              \
    pe[s] = sinpe_load_n((global const uchar *)tab, pe_at[s] + at, n, SINPE_F32, al);
#define SINPE_POS_STORE(s)                                                              \
    if (live[s]) {                                                                      \
        if (mode != SINPE_MODE_ADD)                                                     \
            x[s] = ok[s] ? a.scale * x[s] : (float4)(0.0f);                             \
        x[s] = add_pe[s] ? x[s] + pe[s] : x[s];                                         \
        sinpe_store_n(zero[s] ? (float4)(0.0f) : x[s], out, o[s] + at, n, ot, al);      \
    }

inline void sinpe_table_body(const int mode, const int et, const int ot,
                                global const int *restrict ids, global const uchar *restrict E,
                                global uchar *restrict out, global const float *restrict tab,
                                global const int *restrict pos,
                                global const int *restrict seq_start,
                                global const int *restrict pad_count, sinpe_embed_params a)
{
    int c = (int)get_global_id(0) * SINPE_VEC;
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = !(a.flags & SINPE_SKIP_PE);
    bool need_id = mode != SINPE_MODE_ADD || a.pad_policy != SINPE_PAD_NONE;
    bool al = (a.flags & SINPE_ALIGNED) != 0;
    size_t o[SINPE_SEQS], e[SINPE_SEQS], pe_at[SINPE_SEQS];
    bool ok[SINPE_SEQS], live[SINPE_SEQS], add_pe[SINPE_SEQS], zero[SINPE_SEQS];
    if (a.pad_policy == SINPE_PAD_NONE) {
        SINPE_EACH_SEQ(SINPE_POS_TOKEN_NOPAD)
    } else {
        SINPE_EACH_SEQ(SINPE_POS_TOKEN)
    }
    /* Whole vectors apart from the row's end, as in sinpe_fast_body: with
       n a constant the loads and stores lose their lane checks (explicit
       fused mid d4096: 34.4 -> 31.0 ms in the harness). */
#if SINPE_VEC >= 4
    if (c + SINPE_VEC <= (int)a.dim) {
        for (int q = 0; q < SINPE_VEC / 4; q++) {
            const int n = 4;
            size_t at = 4 * q;
            float4 x[SINPE_SEQS], pe[SINPE_SEQS];
            SINPE_EACH_SEQ(SINPE_POS_LOAD)
            SINPE_EACH_SEQ(SINPE_POS_STORE)
        }
        return;
    }
#endif
    for (int j = 0; j < SINPE_VEC && c + j < (int)a.dim; j += 4) {
        int n = min(min(SINPE_VEC - j, 4), (int)a.dim - c - j);
        size_t at = j;
        float4 x[SINPE_SEQS], pe[SINPE_SEQS];
        SINPE_EACH_SEQ(SINPE_POS_LOAD)
        SINPE_EACH_SEQ(SINPE_POS_STORE)
    }
}
#undef SINPE_POS_ROW
#undef SINPE_POS_AT
#undef SINPE_POS_TOKEN
#undef SINPE_POS_TOKEN_NOPAD
#undef SINPE_POS_LOAD
#undef SINPE_POS_STORE
#undef SINPE_EACH_SEQ

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
 * The _otf parts (launched by two-pass builds only, after the table part):
 * work-item (0, b, t) writes token t of sequence b if its position lies
 * outside the table, four columns at a time, computed on the fly; any other
 * token costs one check.  (Over a range of four-column blocks those checks
 * took 7.6 ms of a 45 ms explicit call whose positions all lay in the
 * table, mid 32x512 d4096.)  The operations of sinpe_embed_body's row
 * end, written out rather than shared: moving that body's steps into a
 * function cost pocl 1.6-3x (bench/RESULTS.md, tuning log 26).
 */
inline void sinpe_otf_body(const int mode, const int et, const int ot,
                           global const int *restrict ids, global const uchar *restrict E,
                           global uchar *restrict out, global const float *restrict coef,
                           global const int *restrict pos, global const int *restrict seq_start,
                           global const int *restrict pad_count, sinpe_embed_params a)
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (get_global_id(0) > 0 || b >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_token k = sinpe_token_at(mode, SINPE_PART_OTF, pos, seq_start, pad_count, &a, b, t, 0);
    if (!k.live)
        return;
    sinpe_token_id(mode, ids, &a, 0, &k);
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    for (int c = 0; c < (int)a.dim; c += 4) {
        int n = min(4, (int)a.dim - c);
        float4 x = mode == SINPE_MODE_ADD ? sinpe_load_part4(out, k.o + c, n, ot)
                                           : a.scale * sinpe_load_part4(E, k.e + c, n, et);
        if (mode != SINPE_MODE_ADD)
            x = k.ok ? x : (float4)(0.0f);
        if (want_pe) {
            float4 pe = (float4)(sinpe_pe(k.p, c, a.dim, coef),
                                 n > 1 ? sinpe_pe(k.p, c + 1, a.dim, coef) : 0.0f,
                                 n > 2 ? sinpe_pe(k.p, c + 2, a.dim, coef) : 0.0f,
                                 n > 3 ? sinpe_pe(k.p, c + 3, a.dim, coef) : 0.0f);
            x = k.add_pe ? x + pe : x;
        }
        sinpe_store_part4(k.zero ? (float4)(0.0f) : x, out, k.o + c, n, ot);
    }
}

/* The body of a _fast or _stream kernel (the conditions are constants).
   _stream kernels with 16-bit output take eight columns per work-item,
   bf16 pairs included (fused bf16 mid d4096: 10.9-12.8 ms against 14.6-14.9
   for the scalar body with plain stores).  The scalar kernels hold their
   body alone: a branch ahead of it, even one never taken, cost pocl's
   vectoriser 5x. */
#define SINPE_FAST(mode, et, ot, stream)                            \
    if ((stream) && (ot) != SINPE_F32)                              \
        sinpe_stream16_body(mode, et, ot, ids, E, out, tab, a);     \
    else if (SINPE_TAKES_COL(mode, et, ot))                         \
        sinpe_col_body(mode, et, ot, ids, E, out, tab, a);          \
    else                                                            \
        sinpe_fast_body(mode, et, ot, stream, ids, E, out, tab, a)

/* The body of a plain (table part) fused or add kernel: in two-pass builds
   sinpe_table_body (the host sizes its range for SINPE_SEQS sequences
   per work-item), in one-pass builds the general body. */
#if SINPE_ONE_PASS
#define SINPE_TABLE_PART(mode, et, ot) \
    sinpe_embed_body(mode, et, ot, SINPE_PART_TABLE, SINPE_EMBED_PASS)
#else
#define SINPE_TABLE_PART(mode, et, ot) \
    sinpe_table_body(mode, et, ot, ids, E, out, tab, pos, seq_start, pad_count, a)
#endif

/* Adds the number of ids outside the rows held to *bad (shards: negative ids only). */
kernel void sinpe_count_bad_ids(global const int *restrict ids, ulong ids_off, uint n,
                                int vocab, int vocab_start, int shard, global int *bad,
                                ulong bad_off)
{
    size_t r = get_global_id(0);
    if (r >= n)
        return;
    int id = ids[ids_off + r];
    bool out_of_range = shard ? id < 0 : (id < 0 || id >= vocab);
    if (out_of_range)
        atomic_inc(bad + bad_off);
}

#define SINPE_EMBED_ARGS                                                                      \
    global const int *restrict ids, global const uchar *restrict E, global uchar *restrict out, \
        global const float *restrict tab, global const float *restrict coef,                    \
        global const int *restrict pos, global const int *restrict seq_start,                   \
        global const int *restrict pad_count, sinpe_embed_params a
#define SINPE_EMBED_PASS ids, E, out, tab, coef, pos, seq_start, pad_count, a

#define SINPE_EMBED_KERNELS(ET, ETN, OT, OTN)                                     \
    kernel void sinpe_embed_##ETN##_##OTN##_fast(SINPE_EMBED_ARGS)                \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_FUSED, ET, OT, 0);                                  \
    }                                                                             \
    kernel void sinpe_embed_##ETN##_##OTN(SINPE_EMBED_ARGS)                       \
    {                                                                             \
        SINPE_TABLE_PART(SINPE_MODE_FUSED, ET, OT);                               \
    }                                                                             \
    kernel void sinpe_embed_##ETN##_##OTN##_otf(SINPE_EMBED_ARGS)                 \
    {                                                                             \
        sinpe_otf_body(SINPE_MODE_FUSED, ET, OT, ids, E, out, coef, pos, seq_start,   \
                       pad_count, a);                                             \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN##_fast(SINPE_EMBED_ARGS)               \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_GATHER, ET, OT, 0);                                 \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN(SINPE_EMBED_ARGS)                      \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_GATHER, ET, OT, SINPE_PART_TABLE, SINPE_EMBED_PASS); \
    }

/* The _fast fused and gather kernels with non-temporal stores: only in
   builds with SINPE_STREAM (the host creates them only then). */
#if SINPE_STREAM
#define SINPE_STREAM_KERNELS(ET, ETN, OT, OTN)                                    \
    kernel void sinpe_embed_##ETN##_##OTN##_stream(SINPE_EMBED_ARGS)              \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_FUSED, ET, OT, 1);                                  \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN##_stream(SINPE_EMBED_ARGS)             \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_GATHER, ET, OT, 1);                                 \
    }
#else
#define SINPE_STREAM_KERNELS(ET, ETN, OT, OTN)
#endif
#define SINPE_PAIR_KERNELS(ET, ETN, OT, OTN) \
    SINPE_EMBED_KERNELS(ET, ETN, OT, OTN)    \
    SINPE_STREAM_KERNELS(ET, ETN, OT, OTN)

SINPE_PAIR_KERNELS(SINPE_F32, f32, SINPE_F32, f32)
SINPE_PAIR_KERNELS(SINPE_F32, f32, SINPE_F16, f16)
SINPE_PAIR_KERNELS(SINPE_F32, f32, SINPE_BF16, bf16)
SINPE_PAIR_KERNELS(SINPE_F16, f16, SINPE_F32, f32)
SINPE_PAIR_KERNELS(SINPE_F16, f16, SINPE_F16, f16)
SINPE_PAIR_KERNELS(SINPE_F16, f16, SINPE_BF16, bf16)
SINPE_PAIR_KERNELS(SINPE_BF16, bf16, SINPE_F32, f32)
SINPE_PAIR_KERNELS(SINPE_BF16, bf16, SINPE_F16, f16)
SINPE_PAIR_KERNELS(SINPE_BF16, bf16, SINPE_BF16, bf16)

#define SINPE_ADD_KERNELS(OT, OTN)                                                \
    kernel void sinpe_add_##OTN##_fast(SINPE_EMBED_ARGS)                          \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_ADD, SINPE_F32, OT, 0);                             \
    }                                                                             \
    kernel void sinpe_add_##OTN(SINPE_EMBED_ARGS)                                 \
    {                                                                             \
        SINPE_TABLE_PART(SINPE_MODE_ADD, SINPE_F32, OT);                          \
    }                                                                             \
    kernel void sinpe_add_##OTN##_otf(SINPE_EMBED_ARGS)                           \
    {                                                                             \
        sinpe_otf_body(SINPE_MODE_ADD, SINPE_F32, OT, ids, E, out, coef, pos, seq_start, \
                       pad_count, a);                                             \
    }
SINPE_ADD_KERNELS(SINPE_F32, f32)
SINPE_ADD_KERNELS(SINPE_F16, f16)
SINPE_ADD_KERNELS(SINPE_BF16, bf16)
