/*
 * embed_two_pass.cl -- the bodies that two-pass builds (CPUs) launch for
 * every fused and add call that is not _fast: the table part, several
 * sequences per work-item, then the _otf part for positions past the
 * table.  After embed_fast.cl (SINPE_EACH_SEQ).
 */

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
 *
 * A work-item takes SINPE_TABLE_VEC columns (16 on CPUs), not SINPE_VEC:
 * each sequence's position, id and checks are paid once per 16 columns
 * (explicit fused mid d4096, positions at random offsets: 36 -> 31 ms;
 * the explicit add 23 -> 16.5 ms; fp16 fused 32 -> 18 ms).  With stream
 * (the fused _table_stream kernels, for outputs the host would stream),
 * whole rows of eight columns are computed as float8 and stored
 * non-temporally, four fp32 or eight 16-bit values per store: 31 -> 20 ms.
 */
#ifndef SINPE_TABLE_VEC
#define SINPE_TABLE_VEC SINPE_VEC
#endif
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
    pe[s] = read_pe ? sinpe_load_n((global const uchar *)tab, pe_at[s] + at, n, SINPE_F32, al) \
                    : (float4)(0.0f);
#define SINPE_POS_STORE(s)                                                              \
    if (live[s]) {                                                                      \
        if (mode != SINPE_MODE_ADD)                                                     \
            x[s] = ok[s] ? a.scale * x[s] : (float4)(0.0f);                             \
        x[s] = add_pe[s] ? x[s] + pe[s] : x[s];                                         \
        sinpe_store_n(zero[s] ? (float4)(0.0f) : x[s], out, o[s] + at, n, ot, al);      \
    }
/* The streamed form (fused only): the whole vectors of a row, eight
   columns at a time, written out once with PE loads and once without (the
   choice per load cost this loop 4-5%). */
#define SINPE_POS_LOAD8(s)                                                              \
    x[s] = sinpe_load8(E, e[s] + at, et);                                               \
    pe[s] = with_pe ? vload8(0, tab + pe_at[s] + at) : (float8)(0.0f);
#define SINPE_POS_STORE8(s)                                                             \
    if (live[s]) {                                                                      \
        x[s] = ok[s] ? a.scale * x[s] : (float8)(0.0f);                                 \
        x[s] = add_pe[s] ? x[s] + pe[s] : x[s];                                         \
        sinpe_stream8(zero[s] ? (float8)(0.0f) : x[s], out, o[s] + at, ot);             \
    }
#define SINPE_POS_LOOP8(read)                                                           \
    for (int q = 0; q < SINPE_TABLE_VEC / 8; q++) {                                     \
        const bool with_pe = (read);                                                    \
        size_t at = 8 * q;                                                              \
        float8 x[SINPE_SEQS], pe[SINPE_SEQS];                                           \
        SINPE_EACH_SEQ(SINPE_POS_LOAD8)                                                 \
        SINPE_EACH_SEQ(SINPE_POS_STORE8)                                                \
    }

inline void sinpe_table_body(const int mode, const int et, const int ot, const int stream,
                                global const int *restrict ids, global const uchar *restrict E,
                                global uchar *restrict out, global const float *restrict tab,
                                global const int *restrict pos,
                                global const int *restrict seq_start,
                                global const int *restrict pad_count, sinpe_embed_params a)
{
    int c = (int)get_global_id(0) * SINPE_TABLE_VEC;
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = !(a.flags & SINPE_SKIP_PE);
    /* A table without rows is a 64-byte placeholder: nothing to read (and
       every sequence then writes only without PE). */
    bool read_pe = want_pe && a.tab_rows > 0;
    bool need_id = mode != SINPE_MODE_ADD || a.pad_policy != SINPE_PAD_NONE;
    bool al = (a.flags & SINPE_ALIGNED) != 0;
    size_t o[SINPE_SEQS], e[SINPE_SEQS], pe_at[SINPE_SEQS];
    bool ok[SINPE_SEQS], live[SINPE_SEQS], add_pe[SINPE_SEQS], zero[SINPE_SEQS];
    if (a.pad_policy == SINPE_PAD_NONE) {
        SINPE_EACH_SEQ(SINPE_POS_TOKEN_NOPAD)
    } else {
        SINPE_EACH_SEQ(SINPE_POS_TOKEN)
    }
#if SINPE_TABLE_VEC >= 8
    if (stream && mode == SINPE_MODE_FUSED && c + SINPE_TABLE_VEC <= (int)a.dim) {
        if (read_pe) {
            SINPE_POS_LOOP8(true)
        } else {
            SINPE_POS_LOOP8(false)
        }
        return;
    }
#endif
    /* Whole vectors apart from the row's end, as in sinpe_fast_body: with
       n a constant the loads and stores lose their lane checks (explicit
       fused mid d4096: 34.4 -> 31.0 ms in the harness). */
#if SINPE_TABLE_VEC >= 4
    if (c + SINPE_TABLE_VEC <= (int)a.dim) {
        for (int q = 0; q < SINPE_TABLE_VEC / 4; q++) {
            const int n = 4;
            size_t at = 4 * q;
            float4 x[SINPE_SEQS], pe[SINPE_SEQS];
            SINPE_EACH_SEQ(SINPE_POS_LOAD)
            SINPE_EACH_SEQ(SINPE_POS_STORE)
        }
        return;
    }
#endif
    for (int j = 0; j < SINPE_TABLE_VEC && c + j < (int)a.dim; j += 4) {
        int n = min(min(SINPE_TABLE_VEC - j, 4), (int)a.dim - c - j);
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
#undef SINPE_POS_LOAD8
#undef SINPE_POS_STORE8
#undef SINPE_POS_LOOP8
#undef SINPE_EACH_SEQ

/*
 * The _otf parts (launched by two-pass builds only, after the table part):
 * work-item (0, b, t) writes token t of sequence b if its position lies
 * outside the table, four columns at a time, computed on the fly; any other
 * token costs one check.  (Over a range of four-column blocks those checks
 * took 7.6 ms of a 45 ms explicit call whose positions all lay in the
 * table, mid 32x512 d4096.)  Its steps are shared with sinpe_table_row
 * (sinpe_value_part4, sinpe_put_part4): with one work-item per token they
 * cost nothing measurable (fused_otf rows of the benchmark, minima within
 * 1%), unlike in the vectorised bodies (bench/RESULTS.md, tuning log 26).
 * With SINPE_ONE_LAUNCH (decode-sized calls, the host's tune.row) the part
 * is launched alone and writes the other tokens too, from the table
 * (sinpe_table_row).
 */
inline void sinpe_otf_body(const int mode, const int et, const int ot,
                           global const int *restrict ids, global const uchar *restrict E,
                           global uchar *restrict out, global const float *restrict tab,
                           global const float *restrict coef, global const int *restrict pos,
                           global const int *restrict seq_start,
                           global const int *restrict pad_count, sinpe_embed_params a)
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (get_global_id(0) > 0 || b >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_token k = sinpe_token_at(mode, SINPE_PART_OTF, pos, seq_start, pad_count, &a, b, t, 0);
    bool every = (a.flags & SINPE_ONE_LAUNCH) != 0;
    if (!k.live && !every)
        return;
    sinpe_token_id(mode, ids, &a, 0, &k);
    if (!k.otf) {
        sinpe_table_row(mode, et, ot, E, out, tab, &a, &k);
        return;
    }
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    for (int c = 0; c < (int)a.dim; c += 4) {
        int n = min(4, (int)a.dim - c);
        float4 x = sinpe_value_part4(mode, et, ot, E, out, &k, c, n, a.scale);
        if (want_pe) {
            float4 pe = (float4)(sinpe_pe(k.p, c, a.dim, coef),
                                 n > 1 ? sinpe_pe(k.p, c + 1, a.dim, coef) : 0.0f,
                                 n > 2 ? sinpe_pe(k.p, c + 2, a.dim, coef) : 0.0f,
                                 n > 3 ? sinpe_pe(k.p, c + 3, a.dim, coef) : 0.0f);
            x = k.add_pe ? x + pe : x;
        }
        sinpe_put_part4(ot, out, &k, c, n, x);
    }
}
