/*
 * embed_kernels.cl -- the entry points of every embedding kernel, and the
 * choice of body each one runs (after embed.cl, embed_fast.cl and
 * embed_two_pass.cl).
 */

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
#define SINPE_TABLE_PART(mode, et, ot, stream) \
    sinpe_embed_body(mode, et, ot, SINPE_PART_TABLE, SINPE_EMBED_PASS)
#else
#define SINPE_TABLE_PART(mode, et, ot, stream) \
    sinpe_table_body(mode, et, ot, stream, ids, E, out, tab, pos, seq_start, pad_count, a)
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
        SINPE_TABLE_PART(SINPE_MODE_FUSED, ET, OT, 0);                            \
    }                                                                             \
    kernel void sinpe_embed_##ETN##_##OTN##_otf(SINPE_EMBED_ARGS)                 \
    {                                                                             \
        sinpe_otf_body(SINPE_MODE_FUSED, ET, OT, ids, E, out, tab, coef, pos,     \
                       seq_start, pad_count, a);                                  \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN##_fast(SINPE_EMBED_ARGS)               \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_GATHER, ET, OT, 0);                                 \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN(SINPE_EMBED_ARGS)                      \
    {                                                                             \
        sinpe_embed_body(SINPE_MODE_GATHER, ET, OT, SINPE_PART_TABLE, SINPE_EMBED_PASS); \
    }

/* The _fast fused and gather kernels, and the fused table part of
   two-pass builds, with non-temporal stores: only in builds with
   SINPE_STREAM (the host creates them only then). */
#if SINPE_ONE_PASS
#define SINPE_TABLE_STREAM_KERNEL(ET, ETN, OT, OTN)
#else
#define SINPE_TABLE_STREAM_KERNEL(ET, ETN, OT, OTN)                               \
    kernel void sinpe_embed_##ETN##_##OTN##_table_stream(SINPE_EMBED_ARGS)        \
    {                                                                             \
        SINPE_TABLE_PART(SINPE_MODE_FUSED, ET, OT, 1);                            \
    }
#endif
#if SINPE_STREAM
#define SINPE_STREAM_KERNELS(ET, ETN, OT, OTN)                                    \
    kernel void sinpe_embed_##ETN##_##OTN##_stream(SINPE_EMBED_ARGS)              \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_FUSED, ET, OT, 1);                                  \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN##_stream(SINPE_EMBED_ARGS)             \
    {                                                                             \
        SINPE_FAST(SINPE_MODE_GATHER, ET, OT, 1);                                 \
    }                                                                             \
    SINPE_TABLE_STREAM_KERNEL(ET, ETN, OT, OTN)
#else
#define SINPE_STREAM_KERNELS(ET, ETN, OT, OTN)
#endif
/* The _fast fused and gather calls in whole-row form (sinpe_row_body):
   only in builds with SINPE_ROW (the host creates them only then). */
#if SINPE_ROW
#define SINPE_ROW_KERNELS(ET, ETN, OT, OTN)                                       \
    kernel void sinpe_embed_##ETN##_##OTN##_row(SINPE_EMBED_ARGS)                 \
    {                                                                             \
        sinpe_row_body(SINPE_MODE_FUSED, ET, OT, ids, E, out, tab, a);            \
    }                                                                             \
    kernel void sinpe_gather_##ETN##_##OTN##_row(SINPE_EMBED_ARGS)                \
    {                                                                             \
        sinpe_row_body(SINPE_MODE_GATHER, ET, OT, ids, E, out, tab, a);           \
    }
#else
#define SINPE_ROW_KERNELS(ET, ETN, OT, OTN)
#endif
#define SINPE_PAIR_KERNELS(ET, ETN, OT, OTN) \
    SINPE_EMBED_KERNELS(ET, ETN, OT, OTN)    \
    SINPE_STREAM_KERNELS(ET, ETN, OT, OTN)   \
    SINPE_ROW_KERNELS(ET, ETN, OT, OTN)

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
        SINPE_TABLE_PART(SINPE_MODE_ADD, SINPE_F32, OT, 0);                       \
    }                                                                             \
    kernel void sinpe_add_##OTN##_otf(SINPE_EMBED_ARGS)                           \
    {                                                                             \
        sinpe_otf_body(SINPE_MODE_ADD, SINPE_F32, OT, ids, E, out, tab, coef, pos, \
                       seq_start, pad_count, a);                                  \
    }
SINPE_ADD_KERNELS(SINPE_F32, f32)
SINPE_ADD_KERNELS(SINPE_F16, f16)
SINPE_ADD_KERNELS(SINPE_BF16, bf16)
