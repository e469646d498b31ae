/*
 * embed.h -- shared by the embedding calls: embed_args.c (the arguments:
 * defaults and validation) hands embed.c the kernels' parameter block
 * (kernels/abi.h), and plan.c turns the call into launches.
 */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "sinpe_internal.h"

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

/*
 * Where the launches of one call go, each after the one before: a queue
 * (embed.c: events) or a command buffer being recorded (record.c: sync
 * points).  emit sets the arguments and enqueues or records l; last marks
 * the call's final launch, which gives the caller's event or sync point.
 */
typedef struct sinpe__sink sinpe__sink;
struct sinpe__sink {
    sinpe_status (*emit)(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                         cl_uint nargs, const void *const *args, const size_t *sizes,
                         int last);
    int recording; /* no temporary buffers; the table snapshot is kept */
};

/* Checks and runs the call of mode (SINPE_MODE_*) into sink. */
sinpe_status sinpe__embed_run(sinpe_table *t, int mode, const sinpe_embed_args *a,
                              sinpe__sink *sink);

#endif
