/*
 * embed.h -- shared by the two halves of the embedding calls: embed_args.c
 * (the arguments: defaults and validation) hands embed.c (the choice of
 * kernel and its launch) the kernels' parameter block.
 */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "sinpe_internal.h"

/* Must match sinpe_embed_params in kernels/embed.cl field for field. */
typedef struct {
    cl_ulong ids_off, e_off, e_stride, out_off, out_stride, pos_off, seq_start_off,
        pad_count_off;
    cl_int vocab, vocab_start, tab_rows, start, pad_id, pad_policy, flags;
    cl_uint dim, seq_len, n_seqs;
    cl_float scale;
} embed_params;

/* flags: the SINPE_HAS_POS ... SINPE_ALIGNED bits of kernels/embed.cl. */
enum { F_POS = 1, F_BROADCAST = 2, F_SEQ_START = 8, F_PAD_COUNT = 16, F_SKIP_PE = 32,
       F_ONE_LAUNCH = 64, F_ALIGNED = 128 };

enum { MODE_FUSED, MODE_GATHER, MODE_ADD };

static inline size_t dtype_size(sinpe_dtype t) { return t == SINPE_F32 ? 4 : 2; }

/* Checks a call of the given mode on table t and fills *p from it: the
   fields the call sets, then flags and offsets (tab_rows is left 0). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   embed_params *p);

#endif
