/*
 * call.c -- the path of an operation's call into a queue: the checks every
 * call makes, the sink that enqueues each launch after the one before, and
 * the table's temporary buffers lent to one call at a time.  A command
 * buffer being recorded is the other sink (record.c).
 */
#include "call.h"

#include <string.h>

/*
 * The buffers of a call's intermediate rows and anchors.  A new buffer
 * costs an allocation on a GPU and, on a CPU device, a page fault for each
 * 4 KiB the kernel first touches (the rows of a 4 x 2048 prefill at d4096:
 * 8192 faults, more than the call's kernels take on pocl).  So a table
 * keeps one buffer of each and lends them to one call at a time, when its
 * last borrower's launches have finished or were enqueued on the same
 * in-order queue (whose order then keeps the two calls apart); the lent
 * buffers are replaced if they are too small or another queue's call may
 * still use them.  A call that cannot borrow them (another call holds them
 * now, or it is being recorded: a recording keeps its buffers) gets its own.
 */
static int free_for(cl_event last, cl_command_queue queue)
{
    cl_int status = CL_COMPLETE;
    cl_command_queue q = NULL;
    cl_command_queue_properties props = 0;
    if (!last)
        return 1;
    if (clGetEventInfo(last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) ==
            CL_SUCCESS &&
        status == CL_COMPLETE)
        return 1;
    return clGetEventInfo(last, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL) == CL_SUCCESS &&
           q == queue &&
           clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) ==
               CL_SUCCESS &&
           !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

sinpe_status sinpe__scratch_kept(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 const void *key, size_t key_bytes, cl_mem *mem, int *kept)
{
    cl_int err = CL_SUCCESS;
    *mem = NULL;
    *kept = 0;
    pthread_mutex_lock(&t->lock);
    if (!t->lent_to && !sink->keep) {
        cl_command_queue queue = ((sinpe__queue_sink *)sink)->queue;
        for (int i = 0; i < 2 && !free_for(t->scratch_use, queue); i++) {
            if (t->scratch[i])
                clReleaseMemObject(t->scratch[i]); /* its commands hold it */
            t->scratch[i] = NULL;
            t->scratch_bytes[i] = t->scratch_key_bytes[i] = 0;
        }
        t->lent_to = sink;
    }
    if (t->lent_to == sink) {
        if (t->scratch_bytes[slot] < bytes) {
            if (t->scratch[slot])
                clReleaseMemObject(t->scratch[slot]);
            t->scratch[slot] = clCreateBuffer(t->ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
            t->scratch_bytes[slot] = err == CL_SUCCESS ? bytes : 0;
            t->scratch_key_bytes[slot] = 0;
        }
        *kept = err == CL_SUCCESS && key_bytes && key_bytes == t->scratch_key_bytes[slot] &&
                !memcmp(key, t->scratch_key[slot], key_bytes);
        if (!*kept) /* the caller writes it */
            t->scratch_key_bytes[slot] = 0;
        if (err == CL_SUCCESS) {
            *mem = t->scratch[slot];
            clRetainMemObject(*mem);
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (!*mem && err == CL_SUCCESS)
        *mem = clCreateBuffer(t->ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    SINPE_CL_CHECK(err, slot ? "clCreateBuffer(anchors)" : "clCreateBuffer(rows past the table)");
    return SINPE_SUCCESS;
}

sinpe_status sinpe__scratch_take(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 cl_mem *mem)
{
    int kept;
    return sinpe__scratch_kept(t, sink, slot, bytes, NULL, 0, mem, &kept);
}

void sinpe__scratch_keep(sinpe_table *t, const sinpe__sink *sink, int slot, const void *key,
                         size_t key_bytes)
{
    pthread_mutex_lock(&t->lock);
    if (t->lent_to == sink && t->scratch[slot] && key_bytes <= SINPE__SCRATCH_KEY) {
        memcpy(t->scratch_key[slot], key, key_bytes);
        t->scratch_key_bytes[slot] = key_bytes;
    }
    pthread_mutex_unlock(&t->lock);
}

/* The call into sink is in, done its last launch's event (NULL: none). */
static void scratch_give(sinpe_table *t, const sinpe__sink *sink, cl_event done)
{
    pthread_mutex_lock(&t->lock);
    if (t->lent_to == sink) {
        if (t->scratch_use)
            clReleaseEvent(t->scratch_use);
        if (done)
            clRetainEvent(done);
        t->scratch_use = done;
        t->lent_to = NULL;
    }
    pthread_mutex_unlock(&t->lock);
}

static sinpe_status queue_emit(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                               const void *args, size_t size, int last)
{
    sinpe__queue_sink *q = (sinpe__queue_sink *)s;
    cl_event done = NULL;
    /* Under the context lock: clSetKernelArg on a shared kernel is not thread-safe. */
    pthread_mutex_lock(&ctx->lock);
    cl_int err = sinpe__set_args(l->kernel, l->k, args, size);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q->queue, l->kernel, l->dims, NULL, l->global, l->local,
                                     q->prev ? 1 : q->nwait, q->prev ? &q->prev : q->wait,
                                     &done);
    pthread_mutex_unlock(&ctx->lock);
    SINPE_CL_CHECK(err, "clEnqueueNDRangeKernel");
    if (q->prev)
        clReleaseEvent(q->prev);
    q->prev = done;
    if (last && q->event) {
        clRetainEvent(done);
        *q->event = done;
    }
    return SINPE_SUCCESS;
}

void sinpe__queue_open(sinpe__queue_sink *q, sinpe_table *t, cl_command_queue queue, cl_uint nwait,
                       const cl_event *wait, cl_event *event)
{
    const sinpe__queue_sink fresh = {{queue_emit, NULL}, t, queue, nwait, wait, NULL, event};
    *q = fresh;
}

sinpe_status sinpe__queue_close(sinpe__queue_sink *q, sinpe_status st)
{
    scratch_give(q->table, &q->base, q->prev);
    if (q->prev)
        clReleaseEvent(q->prev);
    return st;
}

sinpe_status sinpe__table_is(const sinpe_table *t, int kind, const char *name)
{
    SINPE_CHECK(t->kind != kind && kind == SINPE__TABLE_ROTARY, SINPE_INVALID_SPEC,
                "table is not a rotary table: %s needs one (sinpe_rope_table_create())", name);
    SINPE_CHECK(t->kind != kind, SINPE_INVALID_SPEC,
                "table is a rotary table: %s needs one of a sinpe_spec", name);
    return SINPE_SUCCESS;
}

sinpe_status sinpe__enqueue_open(int op, sinpe_table *t, cl_command_queue queue, const void *args,
                                 cl_uint nwait, const cl_event *wait, cl_event *event,
                                 sinpe__queue_sink *q)
{
    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__check_queue(t->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(t->ctx, nwait, wait));
    SINPE_CHECK(!args, SINPE_NULL_ARGUMENT, "args is NULL");
    SINPE_FORWARD(sinpe__table_is(t, sinpe__op_row(op)->table, sinpe__op_row(op)->name));
    sinpe__queue_open(q, t, queue, nwait, wait, event);
    return SINPE_SUCCESS;
}
