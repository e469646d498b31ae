/*
 * rows.c -- generating rows of the encoding on the device: two passes, the
 * anchors of the SINPE_STEP_ROWS-row blocks the rows touch, then the rows in
 * tiles of steps x blocks per work-item (the record's table_tile, plan.c).
 * Table growth, sinpe_enqueue_table_rows() and an embedding call's
 * positions past its table all come here.
 */
#include "call.h"

#include <limits.h>
#include <stdint.h>

void sinpe__rows_args(const sinpe_table *t, cl_int row0, size_t nrows, cl_mem out,
                      size_t out_offset, size_t out_stride, cl_mem anc,
                      sinpe__anchors_kargs *v1, sinpe__rows_kargs *v2)
{
    cl_uint blocks = (cl_uint)sinpe__rows_blocks(row0, nrows), dim = (cl_uint)t->spec.dim;
    *v1 = (sinpe__anchors_kargs){
        .anc = anc, .dim = dim, .nblocks = blocks, .coef = t->desc,
        .base = (cl_int)(((int64_t)row0 >> SINPE_STEP_SHIFT) * SINPE_STEP_ROWS)};
    *v2 = (sinpe__rows_kargs){.out = out, .out_off = out_offset, .out_stride = out_stride,
                              .dim = dim, .row0 = row0, .nrows = (cl_uint)nrows,
                              .coef = t->desc, .anc = anc, .nblocks = blocks};
}

sinpe_status sinpe__table_rows(sinpe_table *t, cl_command_queue queue, cl_int row0,
                               size_t nrows, cl_mem out, size_t out_offset, size_t out_stride,
                               sinpe_dtype out_dtype, cl_uint nwait, const cl_event *wait,
                               cl_event *event)
{
    sinpe_context *ctx = t->ctx;
    size_t blocks = sinpe__rows_blocks(row0, nrows), dim = t->spec.dim;
    sinpe__queue_sink q;
    sinpe__launch l[2];
    sinpe__anchors_kargs v1;
    sinpe__rows_kargs v2;
    cl_mem anc;

    SINPE_FORWARD(sinpe__plan_rows(&ctx->tune, &ctx->info, &ctx->prog, out_dtype, dim, row0, nrows,
                                   blocks, l));
    sinpe__queue_open(&q, t, queue, nwait, wait, event);
    sinpe_status st = sinpe__scratch_take(t, &q.base, 1, blocks * dim * 4 * sizeof(float), &anc);
    if (st == SINPE_SUCCESS) {
        sinpe__rows_args(t, row0, nrows, out, out_offset, out_stride, anc, &v1, &v2);
        st = q.base.emit(&q.base, ctx, &l[0], &v1, sizeof v1, 0);
        if (st == SINPE_SUCCESS)
            st = q.base.emit(&q.base, ctx, &l[1], &v2, sizeof v2, 1);
        clReleaseMemObject(anc); /* the commands hold it */
    }
    return sinpe__queue_close(&q, st);
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
    SINPE_FORWARD(sinpe__check_out(table->ctx, out, out_offset, nrows, dim, stride, out_dtype));
    return sinpe__table_rows(table, queue, row0, nrows, out, out_offset, stride, out_dtype,
                             num_events_in_wait_list, event_wait_list, event);
}
