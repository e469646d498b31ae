/*
 * check.c -- argument checks shared by the enqueue calls.  They run before
 * anything is enqueued and name the argument they reject.
 */
#include "sinpe_internal.h"

#include <stdint.h>

sinpe_status sinpe__check_wait_list(const sinpe_context *ctx, cl_uint n, const cl_event *list)
{
    /* pocl and oclgrind crash on these instead of returning an error. */
    SINPE_CHECK((n == 0) != !list, SINPE_INVALID_WAIT_LIST,
                "event_wait_list is %sNULL but num_events_in_wait_list is %u", list ? "not " : "",
                n);
    for (cl_uint i = 0; i < n; i++) {
        cl_context owner = NULL;
        SINPE_CHECK(!list[i], SINPE_INVALID_WAIT_LIST, "event_wait_list[%u] is NULL", i);
        cl_int err = clGetEventInfo(list[i], CL_EVENT_CONTEXT, sizeof owner, &owner, NULL);
        SINPE_CHECK(err != CL_SUCCESS, SINPE_INVALID_WAIT_LIST,
                    "event_wait_list[%u] is not a valid event (%s)", i,
                    sinpe_status_string((sinpe_status)err));
        /* OpenCL answers CL_INVALID_CONTEXT here, but pocl runs the command
           and some drivers crash: the buffers' and queue's check, for events. */
        SINPE_CHECK(owner != ctx->cl_ctx, SINPE_CONTEXT_MISMATCH,
                    "event_wait_list[%u] belongs to another OpenCL context", i);
    }
    return SINPE_SUCCESS;
}

sinpe_status sinpe__check_values(const sinpe_context *ctx, cl_mem buf, const char *name,
                                 size_t offset, size_t values, sinpe_dtype dtype)
{
    /* SIZE_MAX: more than any buffer holds. */
    size_t need = offset <= SIZE_MAX - values ? sinpe_dtype_bytes(dtype, offset + values)
                                              : SIZE_MAX;
    cl_context owner = NULL;
    size_t bytes = 0;
    SINPE_CHECK(!buf, SINPE_NULL_ARGUMENT, "%s is NULL", name);
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err != CL_SUCCESS)
        return sinpe__fail((sinpe_status)err, "%s is not a valid buffer (%s)", name,
                           sinpe_status_string((sinpe_status)err));
    SINPE_CHECK(owner != ctx->cl_ctx, SINPE_CONTEXT_MISMATCH,
                "%s belongs to another OpenCL context", name);
    SINPE_CHECK(need > bytes, SINPE_BUFFER_TOO_SMALL,
                "%s holds %zu bytes but offset + extent needs %s%zu", name, bytes,
                need == SIZE_MAX ? "more than " : "", need);
    return SINPE_SUCCESS;
}

sinpe_status sinpe__check_out(const sinpe_context *ctx, cl_mem out, size_t offset, size_t n,
                              size_t dim, size_t stride, sinpe_dtype dtype)
{
    SINPE_CHECK(stride < dim, SINPE_INVALID_SHAPE, "out_stride %zu is below dim %zu", stride,
                dim);
    SINPE_CHECK(!sinpe__dtype(dtype) || !sinpe__dtype(dtype)->output, SINPE_INVALID_DTYPE,
                "out_dtype %d is not an output type (F32, F16, BF16)", (int)dtype);
    SINPE_CHECK(n - 1 > (SIZE_MAX - dim) / stride, SINPE_BUFFER_TOO_SMALL,
                "out: %zu rows of out_stride %zu overflow", n, stride);
    return sinpe__check_values(ctx, out, "out", offset, (n - 1) * stride + dim, dtype);
}

sinpe_status sinpe__check_queue(const sinpe_context *ctx, cl_command_queue queue)
{
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    SINPE_CHECK(!queue, SINPE_NULL_ARGUMENT, "queue is NULL");
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err != CL_SUCCESS)
        return sinpe__fail((sinpe_status)err, "queue is not a valid command queue (%s)",
                           sinpe_status_string((sinpe_status)err));
    SINPE_CHECK(qctx != ctx->cl_ctx, SINPE_CONTEXT_MISMATCH,
                "queue belongs to another OpenCL context than the table");
    SINPE_CHECK(qdev != ctx->device, SINPE_CONTEXT_MISMATCH,
                "queue belongs to another device than the table");
    return SINPE_SUCCESS;
}
