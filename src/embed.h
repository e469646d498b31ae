/* embed.h -- shared by the calls that launch through a sink: the embedding
   calls (embed.c, embed_args.c), the rotation (rope.c), record.c. */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "sinpe_internal.h"

/* Checks a call of mode (SINPE_MODE_*) on table t and fills *p from it
   (tab_rows left 0). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p);

/* Where the launches of one call go, each after the one before: a queue
   (embed.c) or a command buffer being recorded (record.c).  emit sets l's
   arguments (the struct of its signature) and enqueues or records it;
   last marks the launch that gives the caller's event or sync point. */
typedef struct sinpe__sink sinpe__sink;
struct sinpe__sink {
    sinpe_status (*emit)(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                         const void *args, size_t size, int last);
    int recording; /* no temporary buffers; the table snapshot is kept */
};

/* Checks and runs the call of mode (SINPE_MODE_*) into sink. */
sinpe_status sinpe__embed_run(sinpe_table *t, int mode, const sinpe_embed_args *a,
                              sinpe__sink *sink);
/* The same for the rotation (rope.c), args a sinpe_rope_args. */
sinpe_status sinpe__rope_run(sinpe_table *t, const void *args, sinpe__sink *sink);

#endif
