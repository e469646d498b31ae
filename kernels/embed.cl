/*
 * embed.cl -- the fused embedding and the unfused pair (gather, add).
 *
 * Work-item (v, g, t) handles columns [SINPE_VEC v, SINPE_VEC (v + 1)) of
 * token t of sequence g (sinpe_embed_body), or in the _fast parts of the
 * SINPE_SEQS sequences from SINPE_SEQS g (sinpe_fast_body in embed_fast.cl,
 * which also holds, for CPUs, a scalar form for bf16 and a whole-row form).
 * The sequences of one t are neighbours in the range, so a PE row is
 * fetched from memory once per position and found in cache by the other
 * work-items.  Global sizes are rounded up to the work-group size, hence
 * the guard.
 *
 * The body is branch-free on purpose (clamped indices, selects): CPU
 * runtimes vectorise across work-items only then, and not at all around a
 * function call.  Each kernel therefore comes in parts:
 *   "_fast"  every position from the table, no padding policy: the host
 *            uses it when it can prove positions start + t lie in the table
 *            and no policy is set (positions are clamped anyway, so no read
 *            leaves the table);
 *   (plain)  every position source and policy; built with SINPE_ONE_PASS=0
 *            (CPUs) it writes only the elements whose position lies in the
 *            table, SINPE_SEQS sequences per work-item (sinpe_table_body
 *            in embed_two_pass.cl); with SINPE_ONE_PASS=1 (GPUs) it computes
 *            the others on the fly behind a branch and is the only launch
 *            (sinpe_embed_body);
 *   "_otf"   the two-pass complement: writes only the elements whose
 *            position lies outside the table, computed on the fly, one
 *            token per work-item (sinpe_otf_body in embed_two_pass.cl);
 *            for decode-sized calls launched alone, writing every token;
 *   "_stream" (builds with SINPE_STREAM: CPUs) the _fast fused and gather
 *            parts with non-temporal stores, for large aligned outputs
 *            (embed_fast.cl), and "_table_stream" the fused plain part
 *            likewise (two-pass builds, embed_two_pass.cl);
 *   "_row"   (builds with SINPE_ROW: CPUs) the _fast fused and gather
 *            parts with a whole row per work-item, for decode-sized calls
 *            (embed_fast.cl).
 * gather reads no position: it has _fast (no padding policy) and plain
 * (sinpe_embed_body).
 * Two-pass, the host enqueues plain then _otf (decode-sized calls: _otf
 * alone).  Either way every element is written once, by the same
 * operations whichever part writes it.
 *
 * gather followed by add performs exactly the fused kernel's operations
 * (FP_CONTRACT is off, see pe_math.cl):
 *     fused:  o = scale * e + pe       gather: o = scale * e     add: o = o + pe
 * A token id outside the rows held is never read (row 0 is read and the
 * value discarded): its embedding counts as zero.  Counting bad ids is a
 * separate kernel, so the hot kernels hold no atomics.
 */
#define SINPE_MODE_FUSED 0
#define SINPE_MODE_GATHER 1
#define SINPE_MODE_ADD 2

#define SINPE_HAS_POS 1
#define SINPE_POS_BROADCAST 2
#define SINPE_HAS_SEQ_START 8
#define SINPE_HAS_PAD_COUNT 16
#define SINPE_SKIP_PE 32
#define SINPE_ONE_LAUNCH 64 /* the _otf part writes every token (sinpe_otf_body) */
#define SINPE_ALIGNED 128 /* four-column accesses are aligned (see sinpe_load4) */

#define SINPE_PAD_NONE 0
#define SINPE_PAD_ZERO_PE 1
#define SINPE_PAD_ZERO_OUTPUT 2
#define SINPE_PAD_ZERO_EMBEDDING 3

typedef struct {
    ulong ids_off, e_off, e_stride, out_off, out_stride, pos_off, seq_start_off, pad_count_off;
    int vocab, vocab_start, tab_rows, start, pad_id, pad_policy, flags;
    uint dim, seq_len, n_seqs;
    float scale;
} sinpe_embed_params;

/* Position of token (b, t); sums wrap modulo 2^32 like the host's int32. */
inline int sinpe_position(const sinpe_embed_params *a, global const int *restrict pos,
                          global const int *restrict seq_start,
                          global const int *restrict pad_count, size_t b, uint t)
{
    uint p = (uint)a->start;
    if (a->flags & SINPE_HAS_POS)
        p += (uint)pos[a->pos_off + ((a->flags & SINPE_POS_BROADCAST) ? t : b * a->seq_len + t)];
    else
        p += t;
    if (a->flags & SINPE_HAS_SEQ_START)
        p += (uint)seq_start[a->seq_start_off + b];
    if (a->flags & SINPE_HAS_PAD_COUNT)
        p -= (uint)pad_count[a->pad_count_off + b];
    return (int)p;
}

#define SINPE_PART_FAST 0
#define SINPE_PART_TABLE 1
#define SINPE_PART_OTF 2

#ifndef SINPE_SEQS
#define SINPE_SEQS 1
#endif
#ifndef SINPE_ONE_PASS
#define SINPE_ONE_PASS 0
#endif

/* The token of a work-item of the general parts. */
typedef struct {
    size_t r;    /* row of the token in ids and out */
    size_t o, e; /* element offsets of column c in out and in E */
    int p;       /* position */
    bool live;   /* this kernel part writes the token */
    bool ok, add_pe, zero, otf;
    bool al;     /* four-column accesses are aligned */
} sinpe_token;

/* Token t of sequence b: its position and whether this part writes it. */
inline sinpe_token sinpe_token_at(const int mode, const int part,
                                  global const int *restrict pos,
                                  global const int *restrict seq_start,
                                  global const int *restrict pad_count,
                                  const sinpe_embed_params *a, size_t b, uint t, int c)
{
    sinpe_token k;
    k.r = b * a->seq_len + t;
    k.al = (a->flags & SINPE_ALIGNED) != 0;
    k.o = a->out_off + k.r * a->out_stride + c;
    bool want_pe = mode != SINPE_MODE_GATHER && !(a->flags & SINPE_SKIP_PE);
    k.p = want_pe ? sinpe_position(a, pos, seq_start, pad_count, b, t) : a->start + (int)t;
    bool in = !want_pe || (k.p >= 0 && k.p < a->tab_rows);
    k.otf = !in;
    /* Two-pass mode: the table part writes the tokens in the table, _otf the others. */
    k.live = SINPE_ONE_PASS || in == (part == SINPE_PART_TABLE);
    return k;
}

/* The token's id: whether its row is read, and what is added or zeroed. */
inline void sinpe_token_id(const int mode, global const int *restrict ids,
                           const sinpe_embed_params *a, int c, sinpe_token *k)
{
    bool want_pe = mode != SINPE_MODE_GATHER && !(a->flags & SINPE_SKIP_PE);
    bool need_id = mode != SINPE_MODE_ADD || a->pad_policy != SINPE_PAD_NONE;
    int id = need_id ? ids[a->ids_off + k->r] : -1;
    int rel = (int)((uint)id - (uint)a->vocab_start); /* vocab_start: 0 outside shards */
    bool is_pad = a->pad_policy != SINPE_PAD_NONE && id == a->pad_id;
    k->ok = id >= 0 && rel >= 0 && rel < a->vocab &&
            !(is_pad && a->pad_policy == SINPE_PAD_ZERO_EMBEDDING);
    k->add_pe = want_pe && !(is_pad && a->pad_policy == SINPE_PAD_ZERO_PE);
    k->zero = is_pad && a->pad_policy == SINPE_PAD_ZERO_OUTPUT;
    k->e = a->e_off + (size_t)(k->ok ? rel : 0) * a->e_stride + c;
}

/* Whether sinpe_embed_body computes a token's PE rather than reading it:
   in one-pass builds, for tokens past the table.  Two-pass builds hold no
   call in it at all (their _otf part is sinpe_otf_body). */
#define SINPE_COMPUTES(k) (SINPE_ONE_PASS && (k).otf)

/* PE of column c at position p: computed, else the (clamped) table row. */
inline float sinpe_pe_at(bool computes, int p, int c, global const float *restrict tab,
                         int tab_rows, uint dim, global const float *restrict coef)
{
    if (computes)
        return sinpe_pe(p, c, dim, coef);
    return tab[(size_t)clamp(p, 0, max(tab_rows - 1, 0)) * dim + c];
}

inline float4 sinpe_pe_at4(bool computes, bool aligned, int p, int c,
                           global const float *restrict tab, int tab_rows, uint dim,
                           global const float *restrict coef)
{
    if (computes)
        return (float4)(sinpe_pe(p, c, dim, coef), sinpe_pe(p, c + 1, dim, coef),
                        sinpe_pe(p, c + 2, dim, coef), sinpe_pe(p, c + 3, dim, coef));
    return sinpe_load4((global const uchar *)tab,
                       (size_t)clamp(p, 0, max(tab_rows - 1, 0)) * dim + c, SINPE_F32, aligned);
}

/* Four columns at offset off of token k's row: the scaled embedding (zero
   for an id not held), or for add the output's values. */
inline float4 sinpe_value4(const int mode, const int et, const int ot,
                           global const uchar *restrict E, global uchar *restrict out,
                           const sinpe_token *k, size_t off, float scale)
{
    if (mode == SINPE_MODE_ADD)
        return sinpe_load4(out, k->o + off, ot, k->al);
    float4 v = scale * sinpe_load4(E, k->e + off, et, k->al);
    return k->ok ? v : (float4)(0.0f);
}

/* The same for the first n (1 to 4) columns at offset off, the other lanes
   zero (see sinpe_load_part4): the per-token row loops. */
inline float4 sinpe_value_part4(const int mode, const int et, const int ot,
                                global const uchar *restrict E, global uchar *restrict out,
                                const sinpe_token *k, size_t off, int n, float scale)
{
    if (mode == SINPE_MODE_ADD)
        return sinpe_load_part4(out, k->o + off, n, ot);
    float4 v = scale * sinpe_load_part4(E, k->e + off, n, et);
    return k->ok ? v : (float4)(0.0f);
}

inline float4 sinpe_plus_pe4(const sinpe_token *k, float4 x, float4 pe)
{
    return k->add_pe ? x + pe : x;
}

/* Stores x (zero under the ZERO_OUTPUT policy) at offset off of k's output row. */
inline void sinpe_put4(const int ot, global uchar *restrict out, const sinpe_token *k,
                       size_t off, float4 x)
{
    sinpe_store4(k->zero ? (float4)(0.0f) : x, out, k->o + off, ot, k->al);
}

/* The first n lanes of x so (see sinpe_store_part4). */
inline void sinpe_put_part4(const int ot, global uchar *restrict out, const sinpe_token *k,
                            size_t off, int n, float4 x)
{
    sinpe_store_part4(k->zero ? (float4)(0.0f) : x, out, k->o + off, n, ot);
}

/*
 * Token k's whole row with its PE read from the table (k->p in the table):
 * the whole-row forms, one work-item per token (sinpe_row_body in
 * embed_fast.cl, the one-launch _otf part in embed_two_pass.cl).  The
 * operations of sinpe_embed_body, four columns per step.
 */
inline void sinpe_table_row(const int mode, const int et, const int ot,
                            global const uchar *restrict E, global uchar *restrict out,
                            global const float *restrict tab, const sinpe_embed_params *a,
                            const sinpe_token *k)
{
    bool read_pe = mode != SINPE_MODE_GATHER && k->add_pe;
    size_t pe = (size_t)k->p * a->dim;
    int dim = (int)a->dim, c = 0;
    for (; c + 4 <= dim; c += 4) {
        float4 x = sinpe_value4(mode, et, ot, E, out, k, c, a->scale);
        if (read_pe)
            x += vload4(0, tab + pe + c);
        sinpe_put4(ot, out, k, c, x);
    }
    if (c < dim) {
        int n = dim - c;
        float4 x = sinpe_value_part4(mode, et, ot, E, out, k, c, n, a->scale);
        if (read_pe)
            x += sinpe_load_part4((global const uchar *)tab, pe + c, n, SINPE_F32);
        sinpe_put_part4(ot, out, k, c, n, x);
    }
}

/*
 * The general parts: work-item (v, g, t) writes columns [SINPE_VEC v,
 * SINPE_VEC (v + 1)) of token t of sequence g, if this part writes it.
 */
inline void sinpe_embed_body(const int mode, const int et, const int ot, const int part,
                             global const int *restrict ids, global const uchar *restrict E,
                             global uchar *restrict out, global const float *restrict tab,
                             global const float *restrict coef, global const int *restrict pos,
                             global const int *restrict seq_start,
                             global const int *restrict pad_count, sinpe_embed_params a)
{
    int c = (int)get_global_id(0) * SINPE_VEC;
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b >= a.n_seqs || t >= a.seq_len)
        return;
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    sinpe_token k = sinpe_token_at(mode, part, pos, seq_start, pad_count, &a, b, t, c);
    if (!k.live)
        return;
    sinpe_token_id(mode, ids, &a, c, &k);
    bool computes = SINPE_COMPUTES(k);

#if SINPE_VEC >= 4
    /* SINPE_VEC / 4 blocks of four columns, straight-line. */
    if (c + SINPE_VEC <= (int)a.dim) {
        for (int q = 0; q < SINPE_VEC / 4; q++) {
            float4 x = sinpe_value4(mode, et, ot, E, out, &k, 4 * q, a.scale);
            if (want_pe)
                x = sinpe_plus_pe4(&k, x,
                                   sinpe_pe_at4(computes, k.al, k.p, c + 4 * q, tab, a.tab_rows,
                                                a.dim, coef));
            sinpe_put4(ot, out, &k, 4 * q, x);
        }
        return;
    }
#endif
    /* The last columns of a row, up to four at a time (see sinpe_load_part4). */
    for (int j = 0; j < SINPE_VEC && c + j < (int)a.dim; j += 4) {
        int n = min(min(SINPE_VEC - j, 4), (int)a.dim - c - j);
        float4 x = mode == SINPE_MODE_ADD ? sinpe_load_part4(out, k.o + j, n, ot)
                                           : a.scale * sinpe_load_part4(E, k.e + j, n, et);
        if (mode != SINPE_MODE_ADD)
            x = k.ok ? x : (float4)(0.0f);
        if (want_pe) {
            int p = k.p, r = a.tab_rows;
            uint d = a.dim;
            float4 pe = (float4)(sinpe_pe_at(computes, p, c + j, tab, r, d, coef),
                                 n > 1 ? sinpe_pe_at(computes, p, c + j + 1, tab, r, d, coef) : 0.0f,
                                 n > 2 ? sinpe_pe_at(computes, p, c + j + 2, tab, r, d, coef) : 0.0f,
                                 n > 3 ? sinpe_pe_at(computes, p, c + j + 3, tab, r, d, coef) : 0.0f);
            x = k.add_pe ? x + pe : x;
        }
        sinpe_store_part4(k.zero ? (float4)(0.0f) : x, out, k.o + j, n, ot);
    }
}
