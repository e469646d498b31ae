/*
 * timesteps.c -- diffusion timestep embeddings from real-valued timesteps.
 */
#include "call.h"

#include <stdint.h>

sinpe_status sinpe_enqueue_timesteps(sinpe_table *table, cl_command_queue queue,
                                     cl_mem timesteps, size_t ts_offset, size_t count,
                                     cl_mem out, size_t out_offset, size_t out_stride,
                                     sinpe_dtype out_dtype, cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__table_is(table, SINPE__TABLE_ENCODING, "timesteps"));
    sinpe_context *ctx = table->ctx;
    size_t dim = table->spec.dim, stride = out_stride ? out_stride : dim;
    SINPE_FORWARD(sinpe__check_queue(ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(ctx, num_events_in_wait_list, event_wait_list));
    SINPE_CHECK(count == 0, SINPE_INVALID_SHAPE, "count is 0");
    SINPE_CHECK(count > (size_t)INT32_MAX, SINPE_INVALID_SHAPE, "count exceeds 2^31 - 1");
    SINPE_FORWARD(sinpe__check_values(ctx, timesteps, "timesteps", ts_offset, count, SINPE_F32));
    SINPE_FORWARD(sinpe__check_out(ctx, out, out_offset, count, dim, stride, out_dtype));

    const sinpe__timesteps_kargs v = {.ts = timesteps, .ts_off = ts_offset, .out = out,
                                      .out_off = out_offset, .out_stride = stride,
                                      .dim = (cl_uint)dim, .n = (cl_uint)count,
                                      .coef = table->desc};
    const size_t n[2] = {dim, count};
    sinpe__queue_sink q;
    sinpe__launch l;
    SINPE_FORWARD(sinpe__plan_fixed(&ctx->info, &ctx->prog, SINPE_FORM_TIMESTEPS, (int)out_dtype, 2,
                                    n, &l));
    sinpe__queue_open(&q, table, queue, num_events_in_wait_list, event_wait_list, event);
    return sinpe__queue_close(&q, q.base.emit(&q.base, ctx, &l, &v, sizeof v, 1));
}
