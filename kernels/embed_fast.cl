/*
 * embed_fast.cl -- the bodies of the table-only forms (every position
 * start + t in the table, no padding policy): FAST, several sequences per
 * work-item; COL, one column per work-item; ROW, a whole row per
 * work-item.
 */
#ifndef SINPE_EMBED_FAST_CL
#define SINPE_EMBED_FAST_CL

#include "embed.cl"

/*
 * Sequences per work-item, S = SINPE_SEQS (the tuning record's seqs).  The
 * per-sequence steps are written out, not looped: pocl vectorises the
 * written-out form better.
 */
#ifndef SINPE_SEQS
#define SINPE_SEQS 4
#endif
#if SINPE_SEQS == 2
#define SINPE_EACH_SEQ(X) X(0) X(1)
#elif SINPE_SEQS == 4
#define SINPE_EACH_SEQ(X) X(0) X(1) X(2) X(3)
#else
#error "SINPE_SEQS must be 2 or 4"
#endif

/*
 * FAST: work-item (v, g, t) writes columns [4 v, 4 v + 4) of token t of the
 * S sequences from S g.  The PE row (one position for all
 * S) is loaded first and once, then the S ids, then the S rows, before
 * anything is stored, so S row loads are in flight at once.  In the last
 * group, sequences past the end repeat the last one: the same work-item
 * writes the same values to the same place again, which keeps every store
 * unconditional.  Rows are read whatever the id (a bad one reads row 0)
 * and the value is dropped after: a load under a condition is slower on
 * GPUs.
 */

/* Sequence b0 + s (the last one past the end): offsets, id check. */
#define SINPE_FAST_TOKEN(s)                                                             \
    {                                                                                   \
        size_t r = min(b0 + (s), (size_t)a.n_seqs - 1) * a.seq_len + t;                 \
        o[s] = a.out_off + r * a.out_stride + c;                                        \
        int id = mode == SINPE_MODE_ADD ? 0 : ids[a.ids_off + r];                       \
        int rel = (int)((uint)id - (uint)a.vocab_start); /* 0 outside shards */         \
        ok[s] = id >= 0 && rel >= 0 && rel < a.vocab;                                   \
        e[s] = a.e_off + (size_t)(ok[s] ? rel : 0) * a.e_stride + c;                    \
        w[s] = mode == SINPE_MODE_ADD ? 1.0f : sinpe_row_scale(et, &a, ws, ok[s] ? rel : 0); \
    }
/* The n columns (n == 4 but at a row's end): the row (or for add the
   output), then the scaled value or zero, plus PE, stored. */
#define SINPE_FAST_LOAD(s)                                                              \
    x[s] = mode == SINPE_MODE_ADD ? sinpe_load_n(out, o[s], n, ot, al)                  \
                                  : sinpe_load_n(E, e[s], n, et, al);
#define SINPE_FAST_STORE(s)                                                             \
    if (mode != SINPE_MODE_ADD)                                                         \
        x[s] = ok[s] ? a.scale * (w[s] * x[s]) : (float4)(0.0f);                        \
    x[s] = want_pe ? x[s] + pe : x[s];                                                  \
    sinpe_store_n(x[s], out, o[s], n, ot, al);
/* The PE values of those columns, when the kernel adds any. */
#define SINPE_FAST_PE()                                                                 \
    (mode == SINPE_MODE_GATHER                                                          \
         ? (float4)(0.0f)                                                               \
         : sinpe_load_n((global const uchar *)tab, pe_at, n, SINPE_F32, al))

inline void sinpe_fast_body(const int mode, const int et, const int ot, SINPE_BODY_PARAMS)
{
    int c = (int)get_global_id(0) * 4;
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = sinpe_wants_pe(mode, &a);
    bool al = (a.flags & SINPE_ALIGNED) != 0;
    /* The row of position start + t: the host checked that it is in the
       table; clamped all the same, so no read can leave it. */
    size_t pe_at = (size_t)clamp(a.start + (int)t, 0, max(a.tab_rows - 1, 0)) * a.dim + c;
    size_t o[SINPE_SEQS], e[SINPE_SEQS];
    bool ok[SINPE_SEQS];
    float w[SINPE_SEQS];
    float4 x[SINPE_SEQS];

    if (c + 4 <= (int)a.dim) {
        const int n = 4;
        float4 pe = SINPE_FAST_PE();
        SINPE_EACH_SEQ(SINPE_FAST_TOKEN)
        SINPE_EACH_SEQ(SINPE_FAST_LOAD)
        SINPE_EACH_SEQ(SINPE_FAST_STORE)
        return;
    }
    /* The last columns of a row (see sinpe_load_part4). */
    int n = (int)a.dim - c;
    float4 pe = SINPE_FAST_PE();
    SINPE_EACH_SEQ(SINPE_FAST_TOKEN)
    SINPE_EACH_SEQ(SINPE_FAST_LOAD)
    SINPE_EACH_SEQ(SINPE_FAST_STORE)
}
#undef SINPE_FAST_LOAD
#undef SINPE_FAST_STORE
#undef SINPE_FAST_PE

#undef SINPE_FAST_TOKEN

/*
 * COL: work-item (c, b, t) writes column c of token t of sequence b, in
 * work-groups spanning columns only (the host sizes the range and the
 * groups to match), as scalar code that pocl vectorises across
 * work-items, where the four-column bodies run bf16 rounding as 128-bit
 * integer work.  The vectoriser needs the id and offsets computed first,
 * for every work-item and before any branch (they are then seen fixed
 * along the row), no early return, and the column guard decided per
 * work-group (a group inside the row takes a copy of the step without it).
 */

/* Column c of a row: the scaled embedding at element e (zero if not ok),
   plus the PE at element pe unless the kernel adds none, stored at o. */
inline void sinpe_col_step(const int mode, const int et, const int ot,
                           global const uchar *restrict E, global uchar *restrict out,
                           global const float *restrict tab, const sinpe_embed_params *a,
                           bool ok, size_t e, size_t pe, size_t o)
{
    float x = ok ? a->scale * sinpe_load1(E, e, et) : 0.0f;
    if (sinpe_wants_pe(mode, a))
        x += tab[pe];
    sinpe_store1(x, out, o, ot);
}

inline void sinpe_col_body(const int mode, const int et, const int ot, SINPE_BODY_PARAMS)
{
    size_t c = get_global_id(0);
    bool live = get_global_id(1) < a.n_seqs && get_global_id(2) < a.seq_len;
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
 * ROW: work-item (0, b, t) writes the whole row of token t of sequence b,
 * four columns per step (sinpe_table_row), and reads its id once.  The
 * host launches one work-item per work-group, sequences first, so the
 * work-items of one position follow each other and find its PE row in
 * cache.
 */
inline void sinpe_row_body(const int mode, const int et, const int ot, SINPE_BODY_PARAMS)
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (b >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_token k;
    k.r = b * a.seq_len + t;
    k.o = a.out_off + k.r * a.out_stride;
    k.p = clamp(a.start + (int)t, 0, max(a.tab_rows - 1, 0));
    k.otf = false;
    k.al = (a.flags & SINPE_ALIGNED) != 0;
    sinpe_token_id(mode, et, ids, ws, &a, 0, &k);
    sinpe_table_row(mode, et, ot, E, out, tab, &a, &k);
}

#endif /* SINPE_EMBED_FAST_CL */
