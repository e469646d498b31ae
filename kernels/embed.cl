/*
 * embed.cl -- what the embedding kernels share: positions, the token logic
 * of the general forms, the whole-row loop, and the GENERAL body.
 *
 * The forms (kernels/abi.h) perform the same operations on every element,
 * whichever writes it, so their results are the same bits; gather then add
 * performs the fused kernel's (FP_CONTRACT is off, see pe_math.cl):
 *     fused:  o = scale * e + pe       gather: o = scale * e     add: o = o + pe
 * A token id outside the rows held reads row 0 and the value is discarded.
 * Counting bad ids is a kernel of its own: the hot kernels hold no atomics.
 * Bodies that CPU runtimes must vectorise are branch-free (clamped indices,
 * selects): pocl vectorises across work-items only then.  Global sizes are
 * rounded up to the work-group size, hence the guards.
 */
#ifndef SINPE_EMBED_CL
#define SINPE_EMBED_CL

#include "abi.h"
#include "pe_math.cl"
#include "dtype.cl"
#include "positions.cl"

/* The bad-id counter: ids negative (below != 0) or at least end (above != 0). */
SINPE_INLINE void sinpe_body_BAD_IDS(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_BAD_IDS))
{
    size_t r = get_global_id(0);
    if (r >= n)
        return;
    int id = ids[ids_off + r];
    if ((below && id < 0) || (above && id >= end))
        atomic_inc(bad + bad_off);
}

/* What a token's row is read from: the weights' buffers (E, E1 .. E3 of
   the signature, the parts of a table past one allocation; the unused
   ones E again) and the row scales. */
typedef struct {
    global const uchar *E, *E1, *E2, *E3, *ws;
} sinpe_src;
#define SINPE_SRC {E, E1, E2, E3, ws}

/* The scale of weights row rel of type et: 1 for the float types and
   ggml's block types (whose scales are in their blocks; a constant folded away), else from the
   scales buffer, else wscale.  A weight is scale * (row scale * value). */
inline float sinpe_row_scale(const int et, const sinpe_embed_params *a,
                             global const uchar *ws, int rel)
{
    if (SINPE_FLOAT_TYPE(et) || SINPE_BLOCK_TYPE(et))
        return 1.0f;
    if (a->ws_type == SINPE_SCALES_F32)
        return ((global const float *)ws)[a->ws_off + (size_t)rel];
    if (a->ws_type == SINPE_SCALES_F16)
        return sinpe_half_at(ws + 2 * (a->ws_off + (size_t)rel));
    return a->wscale;
}

/* Whether a call of this mode adds PE at all. */
inline bool sinpe_wants_pe(const int mode, const sinpe_embed_params *a)
{
    return mode != SINPE_MODE_GATHER && !(a->flags & SINPE_SKIP_PE);
}

/* The offset of the table row of position p, clamped into the table. */
SINPE_INLINE size_t sinpe_pe_row(const sinpe_embed_params *a, int p)
{
    return (size_t)clamp(p, 0, max(a->tab_rows - 1, 0)) * a->dim;
}

/* Whether this call writes a token of id id (rel = id - vocab_start): all
   do but an OWNER shard's, for the ids another shard owns. */
inline bool sinpe_owns(const sinpe_embed_params *a, int id, int rel)
{
    if (!(a->flags & SINPE_OWNER))
        return true;
    if (id < 0)
        return (a->flags & SINPE_OWNS_BELOW) != 0;
    return rel >= 0 && (rel < a->vocab || (a->flags & SINPE_OWNS_ABOVE));
}

/* What a token's id decides: whether its row counts (else zero), the
   buffer E its row lies in and the offset of column c there, the row's
   scale, whether PE is added, whether the output is zeroed. */
typedef struct {
    bool ok, add_pe, zero;
    global const uchar *E;
    size_t e;
    float w;
} sinpe_id;

/* The token rule of the token in row r of ids: its id (none read for an
   add call without a padding policy) against the shard's rows, the pad id
   and the owner.  policy false: the host ruled out a padding policy and an
   OWNER shard, and the checks fold away. */
SINPE_INLINE sinpe_id sinpe_id_rule(const int mode, const int et, const bool policy,
                                    global const int *ids, const sinpe_src *src,
                                    const sinpe_embed_params *a, size_t r, int c)
{
    sinpe_id k;
    bool need_id = mode != SINPE_MODE_ADD || (policy && a->pad_policy != SINPE_PAD_NONE);
    int id = need_id ? ids[a->ids_off + r] : -1;
    int rel = (int)((uint)id - (uint)a->vocab_start); /* vocab_start: 0 outside shards */
    bool is_pad = policy && a->pad_policy != SINPE_PAD_NONE && id == a->pad_id;
    k.ok = id >= 0 && rel >= 0 && rel < a->vocab &&
           !(is_pad && a->pad_policy == SINPE_PAD_ZERO_EMBEDDING);
    k.add_pe = sinpe_wants_pe(mode, a) && !(is_pad && a->pad_policy == SINPE_PAD_ZERO_PE);
    k.zero = policy &&
             ((is_pad && a->pad_policy == SINPE_PAD_ZERO_OUTPUT) || !sinpe_owns(a, id, rel));
    /* The buffer of the row: selects, not an array (which GPUs would keep
       in memory); a row past part[0] only with a list of buffers. */
    int row = k.ok ? rel : 0;
    int j = (row >= a->part[0]) + (row >= a->part[1]) + (row >= a->part[2]);
    int first = j == 0 ? 0 : j == 1 ? a->part[0] : j == 2 ? a->part[1] : a->part[2];
    k.E = j == 0 ? src->E : j == 1 ? src->E1 : j == 2 ? src->E2 : src->E3;
    k.e = a->e_off + (size_t)(row - first) * a->e_stride + c;
    k.w = mode == SINPE_MODE_ADD ? 1.0f : sinpe_row_scale(et, a, src->ws, row);
    return k;
}

/* The token of a work-item of the general forms. */
typedef struct {
    size_t r;    /* row of the token in ids and out */
    size_t o;    /* element offset of column c in out */
    int p;       /* position */
    bool otf;    /* the position lies outside the table: computed */
    bool al;     /* four-column accesses are aligned */
    sinpe_id id;
} sinpe_token;

/* Token t of sequence b, column c, but its id (sinpe_id_rule).  in_table:
   the host checked that every position is start + t, in the table. */
SINPE_INLINE sinpe_token sinpe_token_at(const int mode, const bool in_table, global const int *pos,
                                        global const int *seq_start, global const int *pad_count,
                                        const sinpe_embed_params *a, size_t b, uint t, int c)
{
    sinpe_token k;
    bool want_pe = !in_table && sinpe_wants_pe(mode, a);
    k.r = b * a->pos.seq_len + t;
    k.al = (a->flags & SINPE_ALIGNED) != 0;
    k.o = a->out_off + k.r * a->out_stride + c;
    k.p = want_pe ? sinpe_position(&a->pos, pos, seq_start, pad_count, b, t)
                  : a->pos.start + (int)t;
    k.otf = want_pe && (k.p < 0 || k.p >= a->tab_rows);
    return k;
}

/* PE of the n columns (4, or 1 to 3 at a row's end, the other lanes zero)
   from c at position p: computed, else from the (clamped) table row. */
SINPE_INLINE float4 sinpe_pe_n(bool computes, bool aligned, int p, int c, int n,
                         global const float *tab, const sinpe_embed_params *a,
                         global const float *coef)
{
    uint dim = a->dim;
    if (computes)
        return (float4)(sinpe_pe(p, c, dim, coef), n > 1 ? sinpe_pe(p, c + 1, dim, coef) : 0.0f,
                        n > 2 ? sinpe_pe(p, c + 2, dim, coef) : 0.0f,
                        n > 3 ? sinpe_pe(p, c + 3, dim, coef) : 0.0f);
    return sinpe_load_n((global const uchar *)tab, sinpe_pe_row(a, p) + c, n, SINPE_F32, aligned);
}

/* The n columns at offset off of token k's row: the scaled embedding, or
   for add the output's values. */
SINPE_INLINE float4 sinpe_value_n(const int mode, const int et, const int ot,
                            global uchar *out,
                            const sinpe_token *k, size_t off, int n, float scale)
{
    if (mode == SINPE_MODE_ADD)
        return sinpe_load_n(out, k->o + off, n, ot, k->al);
    float4 v = scale * (k->id.w * sinpe_load_n(k->id.E, k->id.e + off, n, et, k->al));
    return k->id.ok ? v : (float4)(0.0f);
}

/* Stores n lanes of x (or zeros, k.id.zero) at offset off of k's row. */
SINPE_INLINE void sinpe_put_n(const int ot, global uchar *out, const sinpe_token *k,
                        size_t off, int n, float4 x)
{
    sinpe_store_n(k->id.zero ? (float4)(0.0f) : x, out, k->o + off, n, ot, k->al);
}

/* The n columns at offset off of token k's row (PE column pc): the
   value, plus PE unless the call adds none, stored. */
SINPE_INLINE void sinpe_token_cols(const int mode, const int et, const int ot,
                             global uchar *out,
                             global const float *tab, global const float *coef,
                             const sinpe_embed_params *a, const sinpe_token *k, int pc,
                             size_t off, int n)
{
    float4 x = sinpe_value_n(mode, et, ot, out, k, off, n, a->scale);
    if (sinpe_wants_pe(mode, a)) {
        float4 pe = sinpe_pe_n(k->otf, k->al, k->p, pc, n, tab, a, coef);
        x = k->id.add_pe ? x + pe : x;
    }
    sinpe_put_n(ot, out, k, off, n, x);
}

/* The sixteen columns at offset off of token k's row: sinpe_value_n's
   operations, sixteen lanes at a time. */
SINPE_INLINE float16 sinpe_value16(const int mode, const int et, const int ot,
                                   global uchar *out,
                                   const sinpe_token *k, size_t off, float scale)
{
    float16 x = mode == SINPE_MODE_ADD
                    ? sinpe_load16(out, k->o + off, ot)
                    : scale * (k->id.w * sinpe_load16(k->id.E, k->id.e + off, et));
    return mode != SINPE_MODE_ADD && !k->id.ok ? (float16)(0.0f) : x;
}

/* Sixteen columns from c of token k's row, PE from the table: the
   operations of sinpe_token_cols, sixteen lanes at a time (ROW with
   wide16 = 16; FAST into 16-bit outputs alike: kernels/embed_fast.cl). */
SINPE_INLINE void sinpe_token_cols16(const int mode, const int et, const int ot,
                                     global uchar *out,
                                     global const float *tab, const sinpe_embed_params *a,
                                     const sinpe_token *k, int c)
{
    float16 x = sinpe_value16(mode, et, ot, out, k, c, a->scale);
    if (sinpe_wants_pe(mode, a) && k->id.add_pe)
        x = x + vload16(0, tab + sinpe_pe_row(a, k->p) + c);
    sinpe_store16(k->id.zero ? (float16)(0.0f) : x, out, k->o + c, ot);
}

/* Work-item (0, b, t) of ROW writes token t of sequence b whole, every
   position in the table (in_table: ROW passes true; as a literal here it
   left, after oclgrind 21.10's optimiser, a noalias scope intrinsic that
   oclgrind cannot run), four columns per step, or sixteen where the
   record's wide16 says. */
SINPE_INLINE void sinpe_token_row(const int mode, const int et, const int ot, const bool in_table,
                                  SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (b >= a.n_seqs || t >= a.pos.seq_len)
        return;
    sinpe_token k = sinpe_token_at(mode, in_table, pos, seq_start, pad_count, &a, b, t, 0);
    const sinpe_src src = SINPE_SRC;
    k.id = sinpe_id_rule(mode, et, true, ids, &src, &a, k.r, 0);
    int c = 0;
    if (SINPE_WIDE16 == 16)
        for (; c + 16 <= (int)a.dim; c += 16)
            sinpe_token_cols16(mode, et, ot, out, tab, &a, &k, c);
    for (; c < (int)a.dim; c += 4)
        sinpe_token_cols(mode, et, ot, out, tab, coef, &a, &k, c, c, min(4, (int)a.dim - c));
}

/* GENERAL: work-item (v, b, t) writes columns [4 v, 4 v + 4) of token t
   of sequence b, PE from the table or past it computed behind a branch. */
SINPE_INLINE void sinpe_body_GENERAL(const int mode, const int et, const int ot,
                               SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    int c = (int)get_global_id(0) * 4;
    size_t b = get_global_id(1);
    uint t = (uint)get_global_id(2);
    if (c >= (int)a.dim || b >= a.n_seqs || t >= a.pos.seq_len)
        return;
    sinpe_token k = sinpe_token_at(mode, false, pos, seq_start, pad_count, &a, b, t, c);
    const sinpe_src src = SINPE_SRC;
    k.id = sinpe_id_rule(mode, et, true, ids, &src, &a, k.r, c);
    sinpe_token_cols(mode, et, ot, out, tab, coef, &a, &k, c, 0, min(4, (int)a.dim - c));
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_BAD_IDS
kernel void sinpe_count_bad_ids(SINPE_PARAMS(SINPE_SIG_BAD_IDS)) { SINPE_BODY(BAD_IDS, F32); }
#endif
#if SINPE_HAS_GENERAL
kernel void sinpe_add_general_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, ADD, F32); }
kernel void sinpe_add_general_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, ADD, F16); }
kernel void sinpe_add_general_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, ADD, BF16); }
#endif
#else /* the kernels of weights SINPE_WEIGHTS */
#if SINPE_HAS_GENERAL
kernel void sinpe_embed_general_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, FUSED, F32); }
kernel void sinpe_embed_general_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, FUSED, F16); }
kernel void sinpe_embed_general_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, FUSED, BF16); }
kernel void sinpe_gather_general_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, GATHER, F32); }
kernel void sinpe_gather_general_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, GATHER, F16); }
kernel void sinpe_gather_general_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, GATHER, BF16); }
#endif
#endif

#endif /* SINPE_EMBED_CL */
