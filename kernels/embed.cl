/*
 * embed.cl -- the fused embedding and the unfused pair (gather, add).
 *
 * Work-item (v, b, t) handles columns [SINPE_VEC v, SINPE_VEC (v + 1)) of
 * token t of sequence b.  The sequences of one t are neighbours in the
 * range, so a PE row is fetched from memory once per position and found in
 * cache by the other sequences.  Global sizes are rounded up to the
 * work-group size, hence the guard.
 *
 * The body is branch-free on purpose (clamped indices, selects): CPU
 * runtimes vectorise across work-items only then, and not at all around a
 * function call.  Each kernel therefore comes in parts:
 *   "_fast"  every position from the table, no padding policy: the host
 *            uses it when it can prove positions start + t lie in the table
 *            and no policy is set (positions are clamped anyway, so no read
 *            leaves the table);
 *   (plain)  every position source and policy; writes only the elements
 *            whose position lies in the table;
 *   "_otf"   the same, writing only the elements whose position lies
 *            outside it, computed on the fly.
 * The host enqueues plain then _otf: every element is written once, by the
 * same operations whichever part writes it.
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
#define SINPE_SHARD 64

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

/* PE of column c at position p: on the fly in the _otf part, else the (clamped) table row. */
inline float sinpe_pe_at(const int part, int p, int c, global const float *restrict tab,
                         int tab_rows, uint dim, global const float *restrict coef)
{
    if (part == SINPE_PART_OTF)
        return sinpe_pe(p, c, dim, coef);
    return tab[(size_t)clamp(p, 0, max(tab_rows - 1, 0)) * dim + c];
}

inline float4 sinpe_pe_at4(const int part, int p, int c, global const float *restrict tab,
                           int tab_rows, uint dim, global const float *restrict coef)
{
    if (part == SINPE_PART_OTF)
        return (float4)(sinpe_pe(p, c, dim, coef), sinpe_pe(p, c + 1, dim, coef),
                        sinpe_pe(p, c + 2, dim, coef), sinpe_pe(p, c + 3, dim, coef));
    return vload4(0, tab + (size_t)clamp(p, 0, max(tab_rows - 1, 0)) * dim + c);
}

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
    size_t r = b * a.seq_len + t;
    const int fast = part == SINPE_PART_FAST;
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    bool need_id = mode != SINPE_MODE_ADD || a.pad_policy != SINPE_PAD_NONE;
    int p = fast ? a.start + (int)t : sinpe_position(&a, pos, seq_start, pad_count, b, t);
    /* The table and on-the-fly parts split the elements between them. */
    if (mode != SINPE_MODE_GATHER && part != SINPE_PART_FAST) {
        bool in = !want_pe || (p >= 0 && p < a.tab_rows);
        if (in != (part == SINPE_PART_TABLE))
            return;
    }

    int id = need_id ? ids[a.ids_off + r] : -1;
    int rel = (a.flags & SINPE_SHARD) ? id - a.vocab_start : id;
    bool is_pad = !fast && a.pad_policy != SINPE_PAD_NONE && id == a.pad_id;
    bool ok = id >= 0 && rel >= 0 && rel < a.vocab &&
              !(is_pad && a.pad_policy == SINPE_PAD_ZERO_EMBEDDING);
    bool add_pe = want_pe && !(is_pad && a.pad_policy == SINPE_PAD_ZERO_PE);
    bool zero = is_pad && a.pad_policy == SINPE_PAD_ZERO_OUTPUT;
    size_t o = a.out_off + r * a.out_stride + c;
    size_t e = a.e_off + (size_t)(ok ? rel : 0) * a.e_stride + c;

#if SINPE_VEC == 4
    if (c + 4 <= (int)a.dim) {
        float4 x = mode == SINPE_MODE_ADD ? sinpe_load4(out, o, ot)
                                           : a.scale * sinpe_load4(E, e, et);
        if (mode != SINPE_MODE_ADD)
            x = ok ? x : (float4)(0.0f);
        if (want_pe) {
            float4 pe = sinpe_pe_at4(part, p, c, tab, a.tab_rows, a.dim, coef);
            x = add_pe ? x + pe : x;
        }
        sinpe_store4(zero ? (float4)(0.0f) : x, out, o, ot);
        return;
    }
#endif
    for (int j = 0; j < SINPE_VEC && c + j < (int)a.dim; j++) {
        float x = mode == SINPE_MODE_ADD ? sinpe_load1(out, o + j, ot)
                                          : a.scale * sinpe_load1(E, e + j, et);
        if (mode != SINPE_MODE_ADD)
            x = ok ? x : 0.0f;
        if (want_pe) {
            float pe = sinpe_pe_at(part, p, c + j, tab, a.tab_rows, a.dim, coef);
            x = add_pe ? x + pe : x;
        }
        sinpe_store1(zero ? 0.0f : x, out, o + j, ot);
    }
}

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
        sinpe_embed_body(SINPE_MODE_FUSED, ET, OT, SINPE_PART_FAST, SINPE_EMBED_PASS); \
    }                                                                             \
    kernel void sinpe_embed_##ETN##_##OTN(SINPE_EMBED_ARGS)                       \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_FUSED, ET, OT, SINPE_PART_TABLE, SINPE_EMBED_PASS); \
    }                                                                             \
    kernel void sinpe_embed_##ETN##_##OTN##_otf(SINPE_EMBED_ARGS)                 \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_FUSED, ET, OT, SINPE_PART_OTF, SINPE_EMBED_PASS); \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN(SINPE_EMBED_ARGS)                      \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_GATHER, ET, OT, SINPE_PART_TABLE, SINPE_EMBED_PASS); \
    }

SINPE_EMBED_KERNELS(SINPE_F32, f32, SINPE_F32, f32)
SINPE_EMBED_KERNELS(SINPE_F32, f32, SINPE_F16, f16)
SINPE_EMBED_KERNELS(SINPE_F32, f32, SINPE_BF16, bf16)
SINPE_EMBED_KERNELS(SINPE_F16, f16, SINPE_F32, f32)
SINPE_EMBED_KERNELS(SINPE_F16, f16, SINPE_F16, f16)
SINPE_EMBED_KERNELS(SINPE_F16, f16, SINPE_BF16, bf16)
SINPE_EMBED_KERNELS(SINPE_BF16, bf16, SINPE_F32, f32)
SINPE_EMBED_KERNELS(SINPE_BF16, bf16, SINPE_F16, f16)
SINPE_EMBED_KERNELS(SINPE_BF16, bf16, SINPE_BF16, bf16)

#define SINPE_ADD_KERNELS(OT, OTN)                                                \
    kernel void sinpe_add_##OTN##_fast(SINPE_EMBED_ARGS)                          \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_ADD, SINPE_F32, OT, SINPE_PART_FAST, SINPE_EMBED_PASS); \
    }                                                                             \
    kernel void sinpe_add_##OTN(SINPE_EMBED_ARGS)                                 \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_ADD, SINPE_F32, OT, SINPE_PART_TABLE, SINPE_EMBED_PASS); \
    }                                                                             \
    kernel void sinpe_add_##OTN##_otf(SINPE_EMBED_ARGS)                           \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_ADD, SINPE_F32, OT, SINPE_PART_OTF, SINPE_EMBED_PASS); \
    }
SINPE_ADD_KERNELS(SINPE_F32, f32)
SINPE_ADD_KERNELS(SINPE_F16, f16)
SINPE_ADD_KERNELS(SINPE_BF16, bf16)
