/*
 * embed.h -- shared by the embedding calls: embed_args.c (the arguments:
 * defaults and validation) hands embed.c the kernels' parameter block
 * (kernels/abi.h), which plan.c turns into launches.
 */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "sinpe_internal.h"

/* Checks a call of the given mode (SINPE_MODE_*) on table t and fills *p
   from it: the fields the call sets, then flags and offsets (tab_rows is
   left 0). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p);

/*
 * Where the launches of one call go, each after the one before: a queue
 * (embed.c: events) or a command buffer being recorded (record.c: sync
 * points).  emit sets the arguments (args: the struct of l's signature,
 * size bytes) and enqueues or records l; last marks the call's final
 * launch, which gives the caller's event or sync point.
 */
typedef struct sinpe__sink sinpe__sink;
struct sinpe__sink {
    sinpe_status (*emit)(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                         const void *args, size_t size, int last);
    int recording; /* no temporary buffers; the table snapshot is kept */
};

/* Checks and runs the call of mode (SINPE_MODE_*) into sink. */
sinpe_status sinpe__embed_run(sinpe_table *t, int mode, const sinpe_embed_args *a,
                              sinpe__sink *sink);

#endif
