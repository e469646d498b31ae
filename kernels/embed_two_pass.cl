/*
 * embed_two_pass.cl -- the forms that write only the tokens whose position
 * lies in the table: TABLE, several sequences per work-item, and STREAM,
 * one sequence per work-item with non-temporal stores; and OTF, which
 * writes the others, computed on the fly, one token per work-item, after
 * them.  Every element is written once, by the same operations as
 * sinpe_general_body.
 */
#ifndef SINPE_EMBED_TWO_PASS_CL
#define SINPE_EMBED_TWO_PASS_CL

#include "embed_fast.cl"

/*
 * TABLE: work-item (v, g, t) writes columns [16 v, 16 v + 16) of token t of
 * the S = SINPE_TABLE_SEQS sequences from S g (the record's table_seqs),
 * as in sinpe_fast_body, but each
 * sequence has its own position, PE row and padding decision, and writes
 * only if its position lies in the table (and it is not past the last
 * sequence).  Sixteen columns per work-item pay each sequence's position,
 * id and checks once per sixteen.
 */
#define SINPE_TABLE_COLS 16
#ifndef SINPE_TABLE_SEQS
#define SINPE_TABLE_SEQS 4
#endif
#if SINPE_TABLE_SEQS == 2
#define SINPE_EACH_TSEQ(X) X(0) X(1)
#elif SINPE_TABLE_SEQS == 4
#define SINPE_EACH_TSEQ(X) X(0) X(1) X(2) X(3)
#else
#error "SINPE_TABLE_SEQS must be 2 or 4"
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
        w[s] = mode == SINPE_MODE_ADD ? 1.0f : sinpe_row_scale(et, &a, ws, ok[s] ? rel : 0); \
        add_pe[s] = want_pe && !(is_pad && a.pad_policy == SINPE_PAD_ZERO_PE);          \
        zero[s] = (is_pad && a.pad_policy == SINPE_PAD_ZERO_OUTPUT) || !sinpe_owns(&a, id, rel); \
        SINPE_POS_AT(s)                                                                 \
    }
/* The same without a padding policy or an OWNER shard. */
#define SINPE_POS_TOKEN_NOPAD(s)                                                        \
    {                                                                                   \
        SINPE_POS_ROW(s)                                                                \
        int id = mode == SINPE_MODE_ADD ? -1 : ids[a.ids_off + r];                      \
        int rel = (int)((uint)id - (uint)a.vocab_start); /* 0 outside shards */         \
        ok[s] = id >= 0 && rel >= 0 && rel < a.vocab;                                   \
        w[s] = mode == SINPE_MODE_ADD ? 1.0f : sinpe_row_scale(et, &a, ws, ok[s] ? rel : 0); \
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
            x[s] = ok[s] ? a.scale * (w[s] * x[s]) : (float4)(0.0f);                    \
        x[s] = add_pe[s] ? x[s] + pe[s] : x[s];                                         \
        sinpe_store_n(zero[s] ? (float4)(0.0f) : x[s], out, o[s] + at, n, ot, al);      \
    }
inline void sinpe_table_body(const int mode, const int et, const int ot, SINPE_BODY_PARAMS)
{
    int c = (int)get_global_id(0) * SINPE_TABLE_COLS;
    size_t b0 = get_global_id(1) * SINPE_TABLE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = sinpe_wants_pe(mode, &a);
    /* A table without rows is a 64-byte placeholder: nothing to read (and
       every sequence then writes only without PE). */
    bool read_pe = want_pe && a.tab_rows > 0;
    bool need_id = mode != SINPE_MODE_ADD || a.pad_policy != SINPE_PAD_NONE;
    bool al = (a.flags & SINPE_ALIGNED) != 0;
    size_t o[SINPE_TABLE_SEQS], e[SINPE_TABLE_SEQS], pe_at[SINPE_TABLE_SEQS];
    bool ok[SINPE_TABLE_SEQS], live[SINPE_TABLE_SEQS], add_pe[SINPE_TABLE_SEQS];
    bool zero[SINPE_TABLE_SEQS];
    float w[SINPE_TABLE_SEQS];
    if (a.pad_policy == SINPE_PAD_NONE && !(a.flags & SINPE_OWNER)) {
        SINPE_EACH_TSEQ(SINPE_POS_TOKEN_NOPAD)
    } else {
        SINPE_EACH_TSEQ(SINPE_POS_TOKEN)
    }
    /* Whole vectors apart from the row's end: with n a constant the loads
       and stores lose their lane checks. */
    if (c + SINPE_TABLE_COLS <= (int)a.dim) {
        for (int q = 0; q < SINPE_TABLE_COLS / 4; q++) {
            const int n = 4;
            size_t at = 4 * q;
            float4 x[SINPE_TABLE_SEQS], pe[SINPE_TABLE_SEQS];
            SINPE_EACH_TSEQ(SINPE_POS_LOAD)
            SINPE_EACH_TSEQ(SINPE_POS_STORE)
        }
        return;
    }
    for (int j = 0; j < SINPE_TABLE_COLS && c + j < (int)a.dim; j += 4) {
        int n = min(min(SINPE_TABLE_COLS - j, 4), (int)a.dim - c - j);
        size_t at = j;
        float4 x[SINPE_TABLE_SEQS], pe[SINPE_TABLE_SEQS];
        SINPE_EACH_TSEQ(SINPE_POS_LOAD)
        SINPE_EACH_TSEQ(SINPE_POS_STORE)
    }
}
/*
 * STREAM: work-item (v, g, t) writes one 64-byte line of token t of each
 * of the S = SINPE_SEQS sequences from S g (the record's seqs) whose
 * position lies in the table (the others are OTF's): columns [16 v, 16 v +
 * 16) of an fp32 output, [32 v, 32 v + 32) of a 16-bit one, each line with
 * one non-temporal store.  Whole lines, and every load (rows and PE, the
 * rows whatever the id: one not held reads row 0 and is zeroed after)
 * before the first store: a store of part of a line, or loads between the
 * stores, defeats the write-combining of some CPUs.  The host takes this form for large fused and gather
 * outputs whose row length, offset and stride are whole lines on a 64-byte
 * aligned base, so no line is partial.
 */
#define SINPE_STREAM_LOAD(s)                                                            \
    x[s] = sinpe_load16(E, e[s], et);                                                   \
    y[s] = ot == SINPE_F32 ? (float16)(0.0f) : sinpe_load16(E, e[s] + 16, et);          \
    x[s] = ok[s] ? a.scale * (w[s] * x[s]) : (float16)(0.0f);                            \
    y[s] = ok[s] ? a.scale * (w[s] * y[s]) : (float16)(0.0f);                            \
    p[s] = read_pe ? vload16(0, tab + pe_at[s]) : (float16)(0.0f);                       \
    q[s] = read_pe && ot != SINPE_F32 ? vload16(1, tab + pe_at[s]) : (float16)(0.0f);
#define SINPE_STREAM_STORE(s)                                                           \
    if (live[s]) {                                                                      \
        x[s] = zero[s] ? (float16)(0.0f) : add_pe[s] ? x[s] + p[s] : x[s];              \
        y[s] = zero[s] ? (float16)(0.0f) : add_pe[s] ? y[s] + q[s] : y[s];              \
        if (ot == SINPE_F32)                                                            \
            sinpe_stream_f32(x[s], (global float *)out + o[s]);                         \
        else                                                                            \
            sinpe_stream_16(x[s], y[s], (global ushort *)out + o[s], ot);               \
    }

inline void sinpe_stream_body(const int mode, const int et, const int ot, SINPE_BODY_PARAMS)
{
    int c = (int)get_global_id(0) * (ot == SINPE_F32 ? 16 : 32);
    size_t b0 = get_global_id(1) * SINPE_SEQS;
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b0 >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = sinpe_wants_pe(mode, &a);
    bool read_pe = want_pe && a.tab_rows > 0;
    bool need_id = true; /* fused and gather only */
    size_t o[SINPE_SEQS], e[SINPE_SEQS], pe_at[SINPE_SEQS];
    bool ok[SINPE_SEQS], live[SINPE_SEQS], add_pe[SINPE_SEQS], zero[SINPE_SEQS];
    float w[SINPE_SEQS];
    float16 x[SINPE_SEQS], y[SINPE_SEQS], p[SINPE_SEQS], q[SINPE_SEQS];
    if (a.pad_policy == SINPE_PAD_NONE && !(a.flags & SINPE_OWNER)) {
        SINPE_EACH_SEQ(SINPE_POS_TOKEN_NOPAD)
    } else {
        SINPE_EACH_SEQ(SINPE_POS_TOKEN)
    }
    SINPE_EACH_SEQ(SINPE_STREAM_LOAD)
    SINPE_EACH_SEQ(SINPE_STREAM_STORE)
}
#undef SINPE_STREAM_LOAD
#undef SINPE_STREAM_STORE

#undef SINPE_POS_ROW
#undef SINPE_POS_AT
#undef SINPE_POS_TOKEN
#undef SINPE_POS_TOKEN_NOPAD
#undef SINPE_POS_LOAD
#undef SINPE_POS_STORE
#undef SINPE_EACH_TSEQ
#undef SINPE_EACH_SEQ

/*
 * OTF: work-item (0, b, t) writes token t of sequence b if its position
 * lies outside the table, four columns at a time, computed on the fly; any
 * other token costs one check.  With SINPE_ONE_LAUNCH (decode-sized calls)
 * the form runs alone and writes the other tokens too, from the table
 * (sinpe_table_row).
 */
inline void sinpe_otf_body(const int mode, const int et, const int ot, SINPE_BODY_PARAMS)
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (get_global_id(0) > 0 || b >= a.n_seqs || t >= a.seq_len)
        return;
    sinpe_token k = sinpe_token_at(mode, pos, seq_start, pad_count, &a, b, t, 0);
    if (!k.otf && !(a.flags & SINPE_ONE_LAUNCH))
        return;
    sinpe_token_id(mode, et, ids, ws, &a, 0, &k);
    if (!k.otf) {
        sinpe_table_row(mode, et, ot, E, out, tab, &a, &k);
        return;
    }
    bool want_pe = sinpe_wants_pe(mode, &a);
    for (int c = 0; c < (int)a.dim; c += 4) {
        int n = min(4, (int)a.dim - c);
        float4 x = sinpe_value_part4(mode, et, ot, E, out, &k, c, n, a.scale);
        if (want_pe) {
            float4 pe = sinpe_pe_part4(true, k.p, c, n, tab, a.tab_rows, a.dim, coef);
            x = k.add_pe ? x + pe : x;
        }
        sinpe_put_part4(ot, out, &k, c, n, x);
    }
}

#endif /* SINPE_EMBED_TWO_PASS_CL */
