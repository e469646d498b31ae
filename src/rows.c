/*
 * rows.c -- generating rows of the encoding on the device: two passes, the
 * anchors of the SINPE_STEP_ROWS-row blocks the rows touch, then the rows in
 * tiles of steps x blocks per work-item (the record's table_tile, plan.c).
 * Table growth and sinpe_enqueue_table_rows() both come here.
 */
#include "embed.h"

#include <limits.h>
#include <stdint.h>

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

sinpe_status sinpe__scratch_take(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 cl_mem *mem)
{
    cl_int err = CL_SUCCESS;
    *mem = NULL;
    pthread_mutex_lock(&t->lock);
    if (!t->lent_to && !sink->recording) {
        cl_command_queue queue = ((sinpe__queue_sink *)sink)->queue;
        for (int i = 0; i < 2 && !free_for(t->scratch_use, queue); i++) {
            if (t->scratch[i])
                clReleaseMemObject(t->scratch[i]); /* its commands hold it */
            t->scratch[i] = NULL;
            t->scratch_bytes[i] = 0;
        }
        t->lent_to = sink;
    }
    if (t->lent_to == sink) {
        if (t->scratch_bytes[slot] < bytes) {
            if (t->scratch[slot])
                clReleaseMemObject(t->scratch[slot]);
            t->scratch[slot] = clCreateBuffer(t->ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
            t->scratch_bytes[slot] = err == CL_SUCCESS ? bytes : 0;
        }
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

void sinpe__scratch_give(sinpe_table *t, const sinpe__sink *sink, cl_event done)
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

sinpe_status sinpe__rows_emit(sinpe_table *t, sinpe__sink *sink, cl_int row0, size_t nrows,
                              cl_mem out, size_t out_offset, size_t out_stride,
                              sinpe_dtype out_dtype, int last)
{
    sinpe_context *ctx = t->ctx;
    int64_t first = (int64_t)row0 >> SINPE_STEP_SHIFT;
    int64_t final = ((int64_t)row0 + (int64_t)nrows - 1) >> SINPE_STEP_SHIFT;
    size_t blocks = (size_t)(final - first + 1), dim = t->spec.dim;
    sinpe__launch l[2];

    SINPE_FORWARD(sinpe__plan_rows(&ctx->tune, &ctx->info, &ctx->prog, out_dtype, dim, row0, nrows,
                                   blocks, l));
    cl_mem anc;
    SINPE_FORWARD(sinpe__scratch_take(t, sink, 1, blocks * dim * 4 * sizeof(float), &anc));
    const sinpe__anchors_kargs v1 = {.anc = anc, .dim = (cl_uint)dim,
                                     .base = (cl_int)(first * SINPE_STEP_ROWS),
                                     .nblocks = (cl_uint)blocks, .coef = t->desc};
    const sinpe__rows_kargs v2 = {.out = out, .out_off = out_offset, .out_stride = out_stride,
                                  .dim = (cl_uint)dim, .row0 = row0, .nrows = (cl_uint)nrows,
                                  .coef = t->desc, .anc = anc, .nblocks = (cl_uint)blocks};
    sinpe_status st = sink->recording ? sinpe__table_keep(t, out, 0) : SINPE_SUCCESS;
    if (st == SINPE_SUCCESS && sink->recording)
        st = sinpe__table_keep(t, anc, 0);
    if (st == SINPE_SUCCESS)
        st = sink->emit(sink, ctx, &l[0], &v1, sizeof v1, 0);
    if (st == SINPE_SUCCESS)
        st = sink->emit(sink, ctx, &l[1], &v2, sizeof v2, last);
    clReleaseMemObject(anc); /* the commands (and a recording's table) hold it */
    return st;
}

sinpe_status sinpe__table_rows(sinpe_table *t, cl_command_queue queue, cl_int row0,
                               size_t nrows, cl_mem out, size_t out_offset, size_t out_stride,
                               sinpe_dtype out_dtype, cl_uint nwait, const cl_event *wait,
                               cl_event *event)
{
    sinpe__queue_sink q = {{sinpe__queue_emit, 0}, queue, nwait, wait, NULL, event};
    sinpe_status st = sinpe__rows_emit(t, &q.base, row0, nrows, out, out_offset, out_stride,
                                       out_dtype, 1);
    sinpe__scratch_give(t, &q.base, q.prev);
    if (q.prev)
        clReleaseEvent(q.prev);
    return st;
}

sinpe_status sinpe_enqueue_table_rows(sinpe_table *table, cl_command_queue queue, cl_int row0,
                                      size_t nrows, cl_mem out, size_t out_offset,
                                      size_t out_stride, sinpe_dtype out_dtype,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list, cl_event *event)
{
    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    size_t dim = table->spec.dim, stride = out_stride ? out_stride : dim;
    SINPE_FORWARD(sinpe__check_queue(table->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(table->ctx, num_events_in_wait_list, event_wait_list));
    SINPE_CHECK(nrows == 0, SINPE_INVALID_SHAPE, "nrows is 0");
    SINPE_CHECK(nrows > (size_t)INT_MAX || (int64_t)row0 + (int64_t)(nrows - 1) > INT_MAX,
                SINPE_INVALID_SHAPE, "row0 %d + nrows - 1 exceeds the largest position 2^31 - 1",
                (int)row0);
    SINPE_CHECK(stride < dim, SINPE_INVALID_SHAPE, "out_stride %zu is below dim %zu", stride,
                dim);
    SINPE_CHECK(!sinpe__dtype(out_dtype) || !sinpe__dtype(out_dtype)->output,
                SINPE_INVALID_DTYPE, "out_dtype %d is not an output type (F32, F16, BF16)",
                (int)out_dtype);
    SINPE_CHECK(nrows - 1 > (SIZE_MAX - dim) / stride, SINPE_BUFFER_TOO_SMALL,
                "out: nrows * out_stride overflows");
    SINPE_FORWARD(sinpe__check_values(table->ctx, out, "out", out_offset,
                                      (nrows - 1) * stride + dim, out_dtype));
    return sinpe__table_rows(table, queue, row0, nrows, out, out_offset, stride, out_dtype,
                             num_events_in_wait_list, event_wait_list, event);
}
