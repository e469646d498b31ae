/*
 * embed.cl -- the fused embedding and the unfused pair (gather, add).
 *
 * Work-item (v, g) handles columns [4v, 4v + 4) at token index
 * t = g % seq_len, for the sequences b of group g / seq_len (seq_group of
 * them).  The host groups sequences only when their positions agree, so a
 * PE row is read once per position, not once per sequence.  Global sizes are
 * rounded up to the work-group size, hence the guards.
 *
 * The three kernels share one body specialised by compile-time mode and
 * storage types, so gather followed by add performs exactly the fused
 * kernel's operations (FP_CONTRACT is off, see pe_math.cl):
 *     fused:  o = scale * e + pe       gather: o = scale * e     add: o = o + pe
 *
 * A token id outside the rows held is never read: its embedding counts as
 * zero (and, unless the table is a vocabulary shard, as a bad id).
 * Positions inside [0, tab_rows) read the table; any other position is
 * computed on the fly by the same function that filled the table.
 */
#define SINPE_MODE_FUSED 0
#define SINPE_MODE_GATHER 1
#define SINPE_MODE_ADD 2

#define SINPE_HAS_POS 1
#define SINPE_POS_BROADCAST 2
#define SINPE_HAS_BAD 4
#define SINPE_HAS_SEQ_START 8
#define SINPE_HAS_PAD_COUNT 16
#define SINPE_SKIP_PE 32
#define SINPE_SHARD 64

#define SINPE_PAD_NONE 0
#define SINPE_PAD_ZERO_PE 1
#define SINPE_PAD_ZERO_OUTPUT 2
#define SINPE_PAD_ZERO_EMBEDDING 3

typedef struct {
    ulong ids_off, e_off, e_stride, out_off, out_stride, pos_off, bad_off, seq_start_off,
        pad_count_off;
    int vocab, vocab_start, tab_rows, start, pad_id, pad_policy, flags;
    uint dim, seq_len, nrows, n_seqs, seq_group;
    float scale;
} sinpe_embed_params;

inline float4 sinpe_pe4(int p, int c0, global const float *restrict tab, int tab_rows,
                        uint dim, global const float8 *restrict desc)
{
    if (p >= 0 && p < tab_rows)
        return vload4(0, tab + (size_t)p * dim + c0);
    return (float4)(sinpe_pe(p, desc[c0]), sinpe_pe(p, desc[c0 + 1]),
                    sinpe_pe(p, desc[c0 + 2]), sinpe_pe(p, desc[c0 + 3]));
}

inline float sinpe_pe1(int p, int c, global const float *restrict tab, int tab_rows, uint dim,
                       global const float8 *restrict desc)
{
    if (p >= 0 && p < tab_rows)
        return tab[(size_t)p * dim + c];
    return sinpe_pe(p, desc[c]);
}

/* Position of token (b, t); two's-complement wrap like the host's int32. */
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

inline void sinpe_embed_body(const int mode, const int et, const int ot,
                             global const int *restrict ids, global const uchar *restrict E,
                             global uchar *restrict out, global const float *restrict tab,
                             global const float8 *restrict desc, global const int *restrict pos,
                             global int *restrict bad, global const int *restrict seq_start,
                             global const int *restrict pad_count, sinpe_embed_params a)
{
    size_t v = get_global_id(0);
    size_t g = get_global_id(1);
    int c0 = (int)(v * 4);
    uint t = (uint)(g % a.seq_len);
    size_t b0 = g / a.seq_len * a.seq_group;
    if (c0 >= (int)a.dim || b0 >= a.n_seqs)
        return;
    size_t b1 = min(b0 + a.seq_group, (size_t)a.n_seqs);
    bool vec = c0 + 4 <= (int)a.dim;
    bool want_pe = mode != SINPE_MODE_GATHER && !(a.flags & SINPE_SKIP_PE);
    bool need_id = mode != SINPE_MODE_ADD || a.pad_policy != SINPE_PAD_NONE;

    /* Sequences in one group share the position, hence the PE values. */
    int p = sinpe_position(&a, pos, seq_start, pad_count, b0, t);
    float4 pe4 = (float4)(0.0f);
    if (want_pe && vec)
        pe4 = sinpe_pe4(p, c0, tab, a.tab_rows, a.dim, desc);

    for (size_t b = b0; b < b1; b++) {
        size_t r = b * a.seq_len + t;
        bool ok = false, is_pad = false;
        size_t row = 0;
        if (need_id) {
            int id = ids[a.ids_off + r];
            int rel = (a.flags & SINPE_SHARD) ? id - a.vocab_start : id;
            ok = rel >= 0 && rel < a.vocab && id >= 0;
            row = ok ? (size_t)rel : 0;
            is_pad = a.pad_policy != SINPE_PAD_NONE && id == a.pad_id;
            if (mode != SINPE_MODE_ADD && (a.flags & SINPE_HAS_BAD) && c0 == 0 &&
                (id < 0 || (!ok && !(a.flags & SINPE_SHARD))))
                atomic_inc(bad + a.bad_off);
            if (is_pad && a.pad_policy == SINPE_PAD_ZERO_EMBEDDING)
                ok = false;
        }
        bool add_pe = want_pe && !(is_pad && a.pad_policy == SINPE_PAD_ZERO_PE);
        bool zero = is_pad && a.pad_policy == SINPE_PAD_ZERO_OUTPUT;
        size_t o = a.out_off + r * a.out_stride + c0;
        size_t e = a.e_off + row * a.e_stride + c0;

        if (vec) {
            float4 x;
            if (mode == SINPE_MODE_ADD)
                x = sinpe_load4(out, o, ot);
            else
                x = ok ? a.scale * sinpe_load4(E, e, et) : (float4)(0.0f);
            if (add_pe)
                x = x + pe4;
            if (zero)
                x = (float4)(0.0f);
            sinpe_store4(x, out, o, ot);
        } else {
            for (int j = 0; c0 + j < (int)a.dim; j++) {
                float x;
                if (mode == SINPE_MODE_ADD)
                    x = sinpe_load1(out, o + j, ot);
                else
                    x = ok ? a.scale * sinpe_load1(E, e + j, et) : 0.0f;
                if (add_pe)
                    x = x + sinpe_pe1(p, c0 + j, tab, a.tab_rows, a.dim, desc);
                if (zero)
                    x = 0.0f;
                sinpe_store1(x, out, o + j, ot);
            }
        }
    }
}

#define SINPE_EMBED_ARGS                                                                      \
    global const int *restrict ids, global const uchar *restrict E, global uchar *restrict out, \
        global const float *restrict tab, global const float8 *restrict desc,                   \
        global const int *restrict pos, global int *restrict bad,                               \
        global const int *restrict seq_start, global const int *restrict pad_count,             \
        sinpe_embed_params a
#define SINPE_EMBED_PASS ids, E, out, tab, desc, pos, bad, seq_start, pad_count, a

#define SINPE_EMBED_KERNELS(ET, ETN, OT, OTN)                                     \
    kernel void sinpe_embed_##ETN##_##OTN(SINPE_EMBED_ARGS)                       \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_FUSED, ET, OT, SINPE_EMBED_PASS);             \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN(SINPE_EMBED_ARGS)                      \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_GATHER, ET, OT, SINPE_EMBED_PASS);            \
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

#define SINPE_ADD_KERNEL(OT, OTN)                                                 \
    kernel void sinpe_add_##OTN(SINPE_EMBED_ARGS)                                 \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_ADD, SINPE_F32, OT, SINPE_EMBED_PASS);        \
    }
SINPE_ADD_KERNEL(SINPE_F32, f32)
SINPE_ADD_KERNEL(SINPE_F16, f16)
SINPE_ADD_KERNEL(SINPE_BF16, bf16)
