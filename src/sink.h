/* sink.h -- where the launches of one call go (sink.c, record.c). */
#ifndef SINPE_SINK_H
#define SINPE_SINK_H

#include "sinpe_internal.h"

/* Where the launches of one call go, each after the one before: a queue
   (sink.c) or a command buffer being recorded (record.c).  emit sets l's
   arguments (the struct of its signature) and enqueues or records it;
   last marks the launch that gives the caller's event or sync point. */
typedef struct sinpe__sink sinpe__sink;
struct sinpe__sink {
    sinpe_status (*emit)(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                         const void *args, size_t size, int last);
    /* NULL on a queue.  A recording's: holds mem, a buffer its commands
       read, until the table goes, so that growth never frees it (record.c).
       A call into a recording takes no temporary buffers. */
    sinpe_status (*keep)(sinpe__sink *s, cl_mem mem);
};

/* Has a recording hold mem (may be NULL); nothing on a queue. */
static inline sinpe_status sinpe__keep(sinpe__sink *s, cl_mem mem)
{
    return s->keep && mem ? s->keep(s, mem) : SINPE_SUCCESS;
}

/* Launches on a queue, each waiting for the one before (the first for the
   caller's wait list): the queue may be out of order.  prev is the last
   launch's event once it is in (the caller's event is a second reference).
   The one path by which launches are enqueued. */
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

/* A buffer of at least bytes for slot 0 (rows past the table) or 1
   (anchors) of the call into sink, *mem the caller's reference: the
   table's own when the call may hold them (see sink.c), else new. */
sinpe_status sinpe__scratch_take(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 cl_mem *mem);
/* The call of table t into q is in, each launch or none: gives back the
   scratch it took with its last launch's event, and releases that event. */
void sinpe__queue_done(sinpe_table *t, sinpe__queue_sink *q);

#endif
