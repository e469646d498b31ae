/*
 * context.c -- the sinpe context: an OpenCL context, device and queue,
 * the built program, and the table cache.
 */
#include "sinpe_internal.h"

#include <stdlib.h>
#include <string.h>

void sinpe_context_options_init(sinpe_context_options *options)
{
    sinpe__clear_error();
    if (!options)
        return;
    memset(options, 0, sizeof *options);
    options->math = SINPE_MATH_AUTO;
    options->device = NULL;
}

static void context_destroy(sinpe_context *ctx)
{
    sinpe__program_release(&ctx->prog);
    if (ctx->dummy)
        clReleaseMemObject(ctx->dummy);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->device)
        clReleaseDevice(ctx->device);
    if (ctx->cl_ctx)
        clReleaseContext(ctx->cl_ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

/* An environment override of a tuning value: one of the allowed values, else dflt. */
static unsigned env_choice(const char *name, const char *const *allowed, unsigned dflt)
{
    const char *v = getenv(name);
    for (unsigned i = 0; v && allowed[i]; i++)
        if (strcmp(v, allowed[i]) == 0)
            return (unsigned)strtoul(v, NULL, 10);
    return dflt;
}

/*
 * The work shape of the kernels, from the device type (measured choices;
 * bench/RESULTS.md has the figures behind them, `make bench-sweep` measures
 * them on another device).
 *   CPU runtimes (pocl) run a work-group as a loop on one core (these
 *   bodies run as float4 code per work-item; pocl's loop vectoriser leaves
 *   them alone): four columns per work-item (one column measured
 *   11x slower with fp16 output), four sequences per work-item in the
 *   _fast kernels (fused mid 32x512 d4096 21.5 against 32.3 ms with one;
 *   eight: 27 ms) and in the table part of the other fused and add calls
 *   (explicit fused mid d4096 55.6 -> 42.9 ms; 36.7 ms once the on-the-fly
 *   part took one token per work-item), where a work-item takes sixteen
 *   columns (table_vec; 36 -> 31 ms, explicit add 23 -> 16.5 ms), the
 *   largest work-group,
 *   branch-free two-pass general kernels (a call to the evaluation stops
 *   the vectoriser), one table value per work-item.  The _fast fused and
 *   gather kernels with bf16 weights and output are the exception (when
 *   every position comes from the table): scalar code, one column of one
 *   sequence per work-item, which pocl does vectorise (eight lanes; bf16
 *   rounding is integer work, and in 128-bit operations it was the
 *   bottleneck): fused mid 32x512 d4096 bf16 22.0 -> 15.4 ms.  With fp32
 *   or fp16 data the float4 body stays ahead (memory-bound, or conversions
 *   through calls the vectoriser cannot widen).  Large outputs of the
 *   _fast fused and gather calls and of the fused table part are stored
 *   non-temporally (stream 1):
 *   a plain store reads each line before writing it, which costs a
 *   memory-bound kernel a third of its traffic (fused mid 32x512 d4096
 *   fp32 21.1 -> 13.8 ms, gather alike; a 256 MiB copy 21.8 -> 16.0 ms).
 *   Below SINPE_STREAM_BYTES (16 MiB) they store plainly: the kernel gains
 *   nothing measurable there (decode), and the caller's next step finds
 *   the output in cache (an add after a streamed decode gather: 24 -> 103
 *   us at d1024).  At 16 MiB streaming pays even for a caller that reads
 *   the output next (fp16 prefill 4x2048 d1024: fused 1.79 -> 1.05 ms, the
 *   gather + add pair 2.04 -> 2.02 ms).  add reads its output first, and
 *   streamed stores made it 3x slower.  Streamed 16-bit outputs take
 *   eight columns per work-item and one 16-byte store per sequence (fused
 *   fp16 mid d4096 13.0 -> 7.4 ms, bf16 14.6 -> 10.9-12.8 ms against the
 *   scalar body).  Decode-sized calls (at most SINPE_ROW_TOKENS tokens and
 *   below SINPE_STREAM_BYTES) take whole-row forms instead (row 1), one
 *   token per work-item: the _fast fused and gather kernels with fp32 or
 *   fp16 output (the four-sequence body pays the id and offsets per four
 *   columns: decode 64x1 ran 21 -> 13.6 us at d1024, 56 -> 34 us at d4096;
 *   bf16 and add were slower so), and the calls with positions to check
 *   run the _otf part alone over every token instead of the table part and
 *   _otf (one launch: explicit decode fused d1024 39.9 -> 16.0 us, wall
 *   clock 127 -> 42 us).  At 256 tokens the row form was as fast or
 *   faster at dims 256 to 4096; from 1024 tokens it lost at dim 256 (133
 *   against 161 us, 64x16) and won at 4096, so 256 is the limit.
 *   GPUs: four columns, through vector pointers where the call's offsets
 *   allow (16-byte fp32 accesses; vload4 through a float pointer ran 10% slower),
 *   two sequences per work-item in the _fast kernels so that each thread
 *   keeps two row loads in flight (four: fp16 8% slower, fp32 1% faster),
 *   work-groups of 256, one-pass general kernels (the branch to the
 *   evaluation costs nothing, a second launch does), table rows in 8 x 8
 *   tiles (an eighth of the cache loads per value).
 *   GPUs do not stream (stream 0): their stores do not read the line
 *   first, and nothing was measured there.
 * SINPE_VEC, SINPE_TABLE_VEC, SINPE_SEQS, SINPE_ONE_PASS, SINPE_WG,
 * SINPE_ROW_TILE, SINPE_ALIGNED_IO, SINPE_COL_BF16, SINPE_ROW and SINPE_STREAM
 * override each choice:
 * the tests run the GPU shape on a CPU device and stream every call they
 * can, the sweep times every shape.  A value
 * outside the allowed ones is ignored.
 */
static void tuning_pick(const sinpe__device_info *info, sinpe__tuning *t)
{
    static const char *const vecs[] = {"1", "4", "8", NULL};
    static const char *const table_vecs[] = {"1", "4", "8", "16", NULL};
    static const char *const seqs[] = {"1", "2", "4", "8", NULL};
    static const char *const bits[] = {"0", "1", NULL};
    static const char *const trits[] = {"0", "1", "2", NULL};
    static const char *const tiles[] = {"1", "2", "4", "8", NULL};
    static const char *const wgs[] = {"0", "32", "64", "128", "256", "512", "1024", NULL};
    int cpu = (info->type & CL_DEVICE_TYPE_CPU) != 0;
    t->vec = env_choice("SINPE_VEC", vecs, 4);
    t->table_vec = env_choice("SINPE_TABLE_VEC", table_vecs, cpu ? 16 : 4);
    t->seqs = env_choice("SINPE_SEQS", seqs, cpu ? 4 : 2);
    t->one_pass = (int)env_choice("SINPE_ONE_PASS", bits, cpu ? 0 : 1);
    t->wg_cap = env_choice("SINPE_WG", wgs, cpu ? 0 : 256);
    t->row_tile = env_choice("SINPE_ROW_TILE", tiles, cpu ? 1 : 8);
    t->aligned = (int)env_choice("SINPE_ALIGNED_IO", bits, cpu ? 0 : 1);
    t->col_bf16 = (int)env_choice("SINPE_COL_BF16", bits, cpu ? 1 : 0);
    t->row = (int)env_choice("SINPE_ROW", bits, cpu ? 1 : 0);
    t->stream = (int)env_choice("SINPE_STREAM", trits, cpu ? 1 : 0);
}

/* Everything after the cl_context and device exist; takes ownership of them. */
static sinpe_status context_finish(cl_context cl_ctx, cl_device_id dev,
                                   const sinpe_context_options *options, sinpe_context **out)
{
    sinpe_context_options defaults;
    sinpe_context *ctx;
    sinpe_status st;
    cl_int err;

    if (!options) {
        sinpe_context_options_init(&defaults);
        options = &defaults;
    }
    ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        clReleaseDevice(dev);
        clReleaseContext(cl_ctx);
        return sinpe__fail(SINPE_OUT_OF_HOST_MEMORY, "no memory for a context");
    }
    pthread_mutex_init(&ctx->lock, NULL);
    ctx->cl_ctx = cl_ctx;
    ctx->device = dev;
    ctx->refs = 1;

    if ((st = sinpe__device_query(dev, &ctx->info)) != SINPE_SUCCESS)
        goto fail;
    switch (options->math) {
    case SINPE_MATH_AUTO:
    case SINPE_MATH_FLOAT:
        ctx->math = SINPE_MATH_FLOAT;
        break;
    case SINPE_MATH_FP64:
        if (!ctx->info.has_fp64) {
            st = sinpe__fail(SINPE_UNSUPPORTED, "options.math: SINPE_MATH_FP64 requested but "
                                                "device \"%s\" has no double precision",
                             ctx->info.name);
            goto fail;
        }
        ctx->math = SINPE_MATH_FP64;
        break;
    default:
        st = sinpe__fail(SINPE_INVALID_OPTION, "options.math: unknown value %d",
                         (int)options->math);
        goto fail;
    }
    ctx->queue = clCreateCommandQueue(cl_ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        st = sinpe__cl_fail(err, "clCreateCommandQueue");
        goto fail;
    }
    ctx->dummy = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (err != CL_SUCCESS) {
        st = sinpe__cl_fail(err, "clCreateBuffer");
        goto fail;
    }
    tuning_pick(&ctx->info, &ctx->tune);
    if ((st = sinpe__program_build(cl_ctx, dev, ctx->math, &ctx->tune, !options->no_disk_cache,
                                   &ctx->prog)) != SINPE_SUCCESS)
        goto fail;
    *out = ctx;
    return SINPE_SUCCESS;
fail:
    context_destroy(ctx);
    return st;
}

sinpe_status sinpe_context_create(const sinpe_context_options *options, sinpe_context **context)
{
    cl_platform_id platform;
    cl_device_id dev;
    cl_context cl_ctx;
    cl_int err;

    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context: the output pointer is NULL");
    *context = NULL;
    SINPE_FORWARD(sinpe__device_pick(options ? options->device : NULL, &platform, &dev));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    SINPE_CL_CHECK(err, "clCreateContext");
    clRetainDevice(dev);
    return context_finish(cl_ctx, dev, options, context);
}

sinpe_status sinpe_context_create_from_cl(cl_context cl_ctx, cl_device_id device,
                                          const sinpe_context_options *options,
                                          sinpe_context **context)
{
    cl_uint n = 0;
    cl_device_id devs[64];
    int found = 0;

    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context: the output pointer is NULL");
    *context = NULL;
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
    return context_finish(cl_ctx, device, options, context);
}

void sinpe__context_retain(sinpe_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->refs++;
    pthread_mutex_unlock(&ctx->lock);
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

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

/* The largest divisor of n in [lo, hi], or 0.  By quotient, smallest
   first: a row that fits takes one step, and no search runs past n / lo
   (launches call this on the hot path). */
static size_t divisor_within(size_t n, size_t lo, size_t hi)
{
    for (size_t q = (n + hi - 1) / hi; q > 0 && n / q >= lo; q++)
        if (n % q == 0)
            return n / q;
    return 0;
}

/*
 * Local sizes for n[0..dims): powers of two within the kernel's limit, dim 0
 * first, and 1 from dimension group_dims on.  Groups along dimension 0
 * only (group_dims 1: the scalar kernels' rows, the _otf part's single
 * tokens) take the largest divisor of n[0] of at least 64 (or n[0] itself)
 * instead, so that no group is partial: a partial group runs the guarded
 * copy of the scalar kernels' step, which pocl does not vectorise (bf16
 * fused mid 32x512: whole rows per group 3.1 ms at dim 768 and 4.3 ms at
 * dim 1000, against 5.5 and 5.9 ms in groups of 1024).
 */
static void local_size(const sinpe_context *ctx, int k, cl_uint dims, cl_uint group_dims,
                       const size_t *n, size_t *local, size_t *global)
{
    /* The kernel's limit, under the device's cap (see tuning_pick). */
    size_t cap = ctx->prog.wg[k];
    if (ctx->tune.wg_cap && cap > ctx->tune.wg_cap)
        cap = ctx->tune.wg_cap;
    if (cap < 1)
        cap = 1;
    for (cl_uint i = 0; i < dims; i++) {
        size_t lim = cap < ctx->info.max_item[i] ? cap : ctx->info.max_item[i];
        size_t l = pow2_at_least(n[i]);
        if (l > lim)
            l = lim;
        if (i == 0 && group_dims == 1) {
            size_t d = divisor_within(n[0], n[0] < 64 ? n[0] : 64, lim);
            if (d)
                l = d;
        }
        if (i >= group_dims)
            l = 1;
        local[i] = l < 1 ? 1 : l;
        cap /= local[i];
        global[i] = round_up(n[i], local[i]);
    }
}

sinpe_status sinpe__context_launch(sinpe_context *ctx, cl_command_queue queue, int k,
                                   cl_uint nargs, const void *const *args,
                                   const size_t *sizes, size_t cols, size_t rows,
                                   cl_uint nwait, const cl_event *wait, cl_event *event)
{
    size_t n[2] = {cols, rows}, local[2], global[2];
    local_size(ctx, k, 2, 2, n, local, global);
    return sinpe__context_launch_at(ctx, queue, k, 2, nargs, args, sizes, global, local, nwait,
                                    wait, event);
}

sinpe_status sinpe__context_launch3(sinpe_context *ctx, cl_command_queue queue, int k,
                                    cl_uint nargs, const void *const *args, const size_t *sizes,
                                    const size_t *n, cl_uint group_dims, cl_uint nwait,
                                    const cl_event *wait, cl_event *event)
{
    size_t local[3], global[3];
    local_size(ctx, k, 3, group_dims, n, local, global);
    return sinpe__context_launch_at(ctx, queue, k, 3, nargs, args, sizes, global, local, nwait,
                                    wait, event);
}

sinpe_status sinpe__context_launch_at(sinpe_context *ctx, cl_command_queue queue, int k,
                                      cl_uint work_dim, cl_uint nargs, const void *const *args,
                                      const size_t *sizes, const size_t *global,
                                      const size_t *local, cl_uint nwait,
                                      const cl_event *wait, cl_event *event)
{
    cl_kernel kernel = ctx->prog.kernels[k];
    cl_int err = CL_SUCCESS;

    pthread_mutex_lock(&ctx->lock);
    for (cl_uint i = 0; i < nargs && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, i, sizes[i], args[i]);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(queue, kernel, work_dim, NULL, global, local, nwait, wait,
                                     event);
    pthread_mutex_unlock(&ctx->lock);
    SINPE_CL_CHECK(err, "clEnqueueNDRangeKernel");
    return SINPE_SUCCESS;
}
