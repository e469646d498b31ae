/*
 * embed.h -- shared by the embedding calls: embed_args.c (the arguments:
 * defaults and validation) hands embed.c the kernels' parameter block
 * (kernels/abi.h), and plan.c turns the call into launches.
 */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "sinpe_internal.h"

static inline size_t dtype_size(sinpe_dtype t) { return t == SINPE_F32 ? 4 : 2; }

/* Checks a call of the given mode (SINPE_MODE_*) on table t and fills *p
   from it: the fields the call sets, then flags and offsets (tab_rows is
   left 0). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p);

/* The launches of one embedding call. */
typedef struct sinpe__plan {
    int n;                   /* 1, or 2 (TABLE or TABLE_STREAM, then OTF) */
    sinpe__launch launch[2];
    cl_int flags;            /* SINPE_ALIGNED, SINPE_ONE_LAUNCH: for the parameter block */
    cl_uint dim;
} sinpe__plan;

/* The plan of a checked call of mode on a table of p->tab_rows rows. */
void sinpe__plan_embed(const sinpe_context *ctx, const sinpe__program *prog, int mode,
                       const sinpe_embed_args *a, const sinpe_embed_params *p,
                       sinpe__plan *plan);

#endif
