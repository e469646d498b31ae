/* embed.h -- what the calls that launch through a sink share: embed.c,
   embed_args.c, rope.c, record.c, rows.c, timesteps.c. */
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

/* Launches on a queue, each waiting for the one before (the first for the
   caller's wait list): the queue may be out of order.  prev is the last
   launch's event once it is in (the caller's event is a second reference);
   the caller gives back the table's scratch with it (sinpe__scratch_give)
   and then releases it.  The one path by which launches are enqueued. */
typedef struct {
    sinpe__sink base;
    cl_command_queue queue;
    cl_uint nwait;
    const cl_event *wait;
    cl_event prev;
    cl_event *event;
} sinpe__queue_sink;
sinpe_status sinpe__queue_emit(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                               const void *args, size_t size, int last);

/* PE(row0 + r) into row r of out (r < nrows), into sink (rows.c): the
   anchors of the blocks the rows touch into a buffer of their own, then the
   rows, whose launch is the last when last is set.  A recording's table
   holds out and the anchors. */
sinpe_status sinpe__rows_emit(sinpe_table *t, sinpe__sink *sink, cl_int row0, size_t nrows,
                              cl_mem out, size_t out_offset, size_t out_stride,
                              sinpe_dtype out_dtype, int last);

/* A buffer of at least bytes for slot 0 (rows past the table) or 1
   (anchors) of the call into sink, *mem the caller's reference: the
   table's own when the call may hold them (see rows.c), else new. */
sinpe_status sinpe__scratch_take(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 cl_mem *mem);
/* The call into sink is in, done its last launch's event (NULL: none). */
void sinpe__scratch_give(sinpe_table *t, const sinpe__sink *sink, cl_event done);

/* Checks and runs the call of mode (SINPE_MODE_*) into sink. */
sinpe_status sinpe__embed_run(sinpe_table *t, int mode, const sinpe_embed_args *a,
                              sinpe__sink *sink);
/* The same for the rotation (rope.c), args a sinpe_rope_args. */
sinpe_status sinpe__rope_run(sinpe_table *t, const void *args, sinpe__sink *sink);

#endif
