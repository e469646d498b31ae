/*
 * context.c -- the sinpe context: an OpenCL context, device and queue,
 * the built program, and the table cache; the checks that a call's
 * buffers, queue and events belong to it, made before anything is
 * enqueued and naming the argument they reject.
 */
#include "sinpe_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void sinpe_context_options_init_sized(sinpe_context_options *options, size_t struct_size)
{
    static const sinpe_context_options own; /* SINPE_MATH_AUTO is 0 */
    sinpe__struct_init(SINPE__OPTIONS, options, struct_size, &own, "options");
}

/* The start of both creators: *context NULL, then the caller's options
   (NULL: the defaults) as this library's struct. */
static sinpe_status enter(const sinpe_context_options *options, sinpe_context_options *own,
                          sinpe_context **context)
{
    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context: the output pointer is NULL");
    *context = NULL;
    sinpe_context_options_init(own);
    return options ? sinpe__struct_in(SINPE__OPTIONS, own, options, "options")
                   : SINPE_SUCCESS;
}

static void context_destroy(sinpe_context *ctx)
{
    sinpe__program_release(&ctx->prog);
    for (int w = 0; sinpe__dtype((sinpe_dtype)w); w++)
        sinpe__program_release(&ctx->wprog[w]);
    if (ctx->dummy)
        clReleaseMemObject(ctx->dummy);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    clReleaseDevice(ctx->device);
    clReleaseContext(ctx->cl_ctx);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->build_lock);
    free(ctx);
}

/* The rest of a context, once its cl_context and device are in place;
   lazy: no weights type's program until a call needs it. */
static sinpe_status context_init(sinpe_context *ctx, const sinpe_context_options *options,
                                 int lazy)
{
    char from[SINPE__FROM];
    cl_int err;
    SINPE_FORWARD(sinpe__device_query(ctx->device, &ctx->info));
    SINPE_CHECK((unsigned)options->math > SINPE_MATH_FP64, SINPE_INVALID_OPTION,
                "options.math: unknown value %d", (int)options->math);
    SINPE_CHECK(options->math == SINPE_MATH_FP64 && !ctx->info.has_fp64, SINPE_UNSUPPORTED,
                "options.math: SINPE_MATH_FP64 requested but device \"%s\" has no double "
                "precision",
                ctx->info.name);
    ctx->math = options->math == SINPE_MATH_FP64 ? SINPE_MATH_FP64 : SINPE_MATH_FLOAT;
    ctx->queue = clCreateCommandQueue(ctx->cl_ctx, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
    SINPE_CL_CHECK(err, "clCreateCommandQueue");
    ctx->dummy = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    SINPE_CL_CHECK(err, "clCreateBuffer");
    SINPE_FORWARD(sinpe__tuning_pick(ctx->device, &ctx->info, options->tuning, &ctx->tune, from));
    size_t n = (size_t)snprintf(ctx->tune_text, sizeof ctx->tune_text, "from=%s; ", from);
    if (n < sizeof ctx->tune_text)
        sinpe__tuning_format(&ctx->tune, ctx->tune_text + n, sizeof ctx->tune_text - n);
    ctx->disk_cache = !options->no_disk_cache;
    SINPE_FORWARD(sinpe__program_build(ctx->cl_ctx, ctx->device, ctx->math, &ctx->tune, -1,
                                       ctx->disk_cache, &ctx->prog));
    /* The float types' kernels now; the quantized types' on first use. */
    for (int w = 0; !lazy && sinpe__dtype((sinpe_dtype)w); w++) {
        const sinpe__program *p;
        if (!sinpe__dtype((sinpe_dtype)w)->quantized)
            SINPE_FORWARD(sinpe__context_weights(ctx, (sinpe_dtype)w, &p));
    }
    return SINPE_SUCCESS;
}

/* Takes ownership of cl_ctx and dev, whatever happens. */
static sinpe_status context_finish(cl_context cl_ctx, cl_device_id dev,
                                   const sinpe_context_options *options, int lazy,
                                   sinpe_context **out)
{
    sinpe_context *ctx = calloc(1, sizeof *ctx);
    sinpe_status st;
    if (!ctx) {
        clReleaseDevice(dev);
        clReleaseContext(cl_ctx);
        return sinpe__fail(SINPE_OUT_OF_HOST_MEMORY, "no memory for a context");
    }
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->build_lock, NULL);
    ctx->cl_ctx = cl_ctx;
    ctx->device = dev;
    ctx->refs = 1;
    if ((st = context_init(ctx, options, lazy)) != SINPE_SUCCESS)
        context_destroy(ctx);
    else
        *out = ctx;
    return st;
}

sinpe_status sinpe_context_create(const sinpe_context_options *options, sinpe_context **context)
{
    cl_platform_id platform;
    cl_device_id dev;
    cl_context cl_ctx;
    cl_int err;
    sinpe_context_options own;

    SINPE_FORWARD(enter(options, &own, context));
    SINPE_FORWARD(sinpe__device_pick(own.device, &platform, &dev));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    SINPE_CL_CHECK(err, "clCreateContext");
    clRetainDevice(dev);
    return context_finish(cl_ctx, dev, &own, 0, context);
}

static sinpe_status create_from_cl(cl_context cl_ctx, cl_device_id device,
                                   const sinpe_context_options *options, int lazy,
                                   sinpe_context **context)
{
    cl_uint n = 0;
    cl_device_id devs[64];
    int found = 0;
    sinpe_context_options own;

    SINPE_FORWARD(enter(options, &own, context));
    SINPE_CHECK(!cl_ctx, SINPE_NULL_ARGUMENT, "cl_ctx is NULL");
    SINPE_CHECK(!device, SINPE_NULL_ARGUMENT, "device is NULL");
    SINPE_CL_CHECK(clGetContextInfo(cl_ctx, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL),
                   "clGetContextInfo(cl_ctx)");
    if (n > 64)
        n = 64;
    SINPE_CL_CHECK(clGetContextInfo(cl_ctx, CL_CONTEXT_DEVICES, n * sizeof devs[0], devs, NULL),
                   "clGetContextInfo(cl_ctx)");
    for (cl_uint i = 0; i < n; i++)
        found |= devs[i] == device;
    SINPE_CHECK(!found, SINPE_CONTEXT_MISMATCH, "device is not a device of cl_ctx");
    SINPE_CL_CHECK(clRetainContext(cl_ctx), "clRetainContext");
    clRetainDevice(device);
    return context_finish(cl_ctx, device, &own, lazy, context);
}

sinpe_status sinpe_context_create_from_cl(cl_context cl_ctx, cl_device_id device,
                                          const sinpe_context_options *options,
                                          sinpe_context **context)
{
    return create_from_cl(cl_ctx, device, options, 0, context);
}

sinpe_status sinpe__context_create_lazy(cl_context cl_ctx, cl_device_id device,
                                        const sinpe_context_options *options,
                                        sinpe_context **context)
{
    return create_from_cl(cl_ctx, device, options, 1, context);
}

void sinpe__context_unref(sinpe_context *ctx)
{
    unsigned left;
    pthread_mutex_lock(&ctx->lock);
    left = --ctx->refs;
    pthread_mutex_unlock(&ctx->lock);
    if (left == 0)
        context_destroy(ctx);
}

void sinpe_context_release(sinpe_context *context)
{
    sinpe__clear_error();
    if (context)
        sinpe__context_unref(context);
}

cl_context sinpe_context_cl_context(const sinpe_context *c)
{
    return sinpe__enter_with(c, "context") ? c->cl_ctx : NULL;
}
cl_device_id sinpe_context_device(const sinpe_context *c)
{
    return sinpe__enter_with(c, "context") ? c->device : NULL;
}
cl_command_queue sinpe_context_queue(const sinpe_context *c)
{
    return sinpe__enter_with(c, "context") ? c->queue : NULL;
}
sinpe_math sinpe_context_math(const sinpe_context *c)
{
    return sinpe__enter_with(c, "context") ? c->math : SINPE_MATH_AUTO;
}

sinpe_status sinpe__context_weights(sinpe_context *ctx, sinpe_dtype et, const sinpe__program **prog)
{
    sinpe__program *p = &ctx->wprog[et];
    sinpe_status st = SINPE_SUCCESS;
    pthread_mutex_lock(&ctx->build_lock);
    if (!p->program)
        st = sinpe__program_build(ctx->cl_ctx, ctx->device, ctx->math, &ctx->tune, (int)et,
                                  ctx->disk_cache, p);
    pthread_mutex_unlock(&ctx->build_lock);
    *prog = p;
    return st;
}

sinpe_status sinpe_context_prepare(sinpe_context *context, sinpe_dtype weights_dtype)
{
    const sinpe__program *prog;
    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context is NULL");
    SINPE_CHECK(!sinpe__dtype(weights_dtype), SINPE_INVALID_DTYPE,
                "weights_dtype %d is not a sinpe_dtype", (int)weights_dtype);
    return sinpe__context_weights(context, weights_dtype, &prog);
}

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
