/*
 * paths.c -- the decode step (64 x 1, fp32, implicit positions) by each way
 * a host can run it, wall clock per step: sinpe's plain call; a replay of
 * the same call recorded into a command buffer (cl_khr_command_buffer)
 * against a replay of an empty kernel's recording; and the host's own
 * one-launch kernel built on sinpe's device functions (examples/prenorm.cl:
 * embedding and LayerNorm) against the empty kernel (the launch floor,
 * bench_launch_floor).  The JSON lines name the path.  The recording rows
 * need the extension at a version sinpe records with, the host row the
 * example's source (read from examples/, so run from the source tree);
 * without them those rows are skipped with a line saying why.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define GROUP 64 /* the example's work-group size */

typedef void *(CL_API_CALL *cb_create_fn)(cl_uint nq, const cl_command_queue *queues,
                                          const cl_ulong *properties, cl_int *err);
typedef cl_int(CL_API_CALL *cb_fn)(void *cb);
typedef cl_int(CL_API_CALL *cb_replay_fn)(cl_uint nq, cl_command_queue *queues, void *cb,
                                          cl_uint nwait, const cl_event *wait, cl_event *event);
typedef cl_int(CL_API_CALL *cb_kernel_fn)(void *cb, cl_command_queue queue,
                                          const cl_ulong *properties, cl_kernel kernel,
                                          cl_uint dims, const size_t *offset,
                                          const size_t *global, const size_t *local,
                                          cl_uint nsync, const cl_uint *sync, cl_uint *point,
                                          void **handle);

typedef struct paths_state {
    sinpe_table *table;
    sinpe_embed_args args;
    cb_replay_fn replay;
    void *cb;                  /* the recorded call, or the empty kernel */
    cl_kernel host;            /* the example's kernel, arguments set */
    size_t host_global;
} paths_state;

static int run_plain(void *user, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    paths_state *s = user;
    CHECK(sinpe_enqueue_embed(s->table, q, &s->args, 0, NULL, &ev[0]));
    *n = 1;
    return 0;
fail:
    return -1;
}

static int run_replay(void *user, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    paths_state *s = user;
    (void)q;
    CHECK(s->replay(0, NULL, s->cb, 0, NULL, &ev[0]));
    *n = 1;
    return 0;
fail:
    return -1;
}

static int run_host(void *user, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    paths_state *s = user;
    size_t local = GROUP;
    CHECK(clEnqueueNDRangeKernel(q, s->host, 1, NULL, &s->host_global, &local, 0, NULL, &ev[0]));
    *n = 1;
    return 0;
fail:
    return -1;
}

/* Times run as row name of path and reports it; *wall gets its wall clock. */
static int time_path(bench_env *env, const char *name, const char *path, size_t dim,
                     int (*run)(void *, cl_command_queue, cl_event *, cl_uint *),
                     paths_state *s, double *wall)
{
    const bench_shape *sh = &bench_shapes[0];
    bench_job job = {run, NULL, s, 0};
    bench_row row;
    memset(&row, 0, sizeof row);
    if (bench_time(env, &job, &row.stats) != 0)
        return -1;
    row.name = name;
    row.path = path;
    row.positions = "implicit";
    row.shape = sh->name;
    row.dtype = bench_dtype_name(SINPE_F32);
    row.seqs = sh->seqs;
    row.seq_len = sh->seq_len;
    row.dim = dim;
    row.distinct_positions = 1;
    bench_report_row(env, &row);
    *wall = row.stats.wall_us;
    return 0;
}

/* The extension's entry points on the bench's platform (0: none). */
static int cb_api(bench_env *env, cb_create_fn *create, cb_fn *finalize, cb_fn *release,
                  cb_replay_fn *replay, cb_kernel_fn *record)
{
    cl_platform_id p;
    if (clGetDeviceInfo(env->device, CL_DEVICE_PLATFORM, sizeof p, &p, NULL) != CL_SUCCESS)
        return 0;
    *create = (cb_create_fn)clGetExtensionFunctionAddressForPlatform(p, "clCreateCommandBufferKHR");
    *finalize = (cb_fn)clGetExtensionFunctionAddressForPlatform(p, "clFinalizeCommandBufferKHR");
    *release = (cb_fn)clGetExtensionFunctionAddressForPlatform(p, "clReleaseCommandBufferKHR");
    *replay = (cb_replay_fn)clGetExtensionFunctionAddressForPlatform(p, "clEnqueueCommandBufferKHR");
    *record = (cb_kernel_fn)clGetExtensionFunctionAddressForPlatform(p, "clCommandNDRangeKernelKHR");
    return *create && *finalize && *release && *replay && *record;
}

/* The replay rows: the recorded call, then an empty kernel's recording. */
static int replay_rows(bench_env *env, paths_state *s, size_t dim, goal_tally *g)
{
    cb_create_fn create;
    cb_fn finalize, release;
    cb_kernel_fn record;
    cl_kernel empty = NULL;
    void *call_cb = NULL, *empty_cb = NULL;
    double call_wall = 0.0, empty_wall = 0.0;
    cl_int err;
    size_t one = 1;
    int rc = -1;

    if (!cb_api(env, &create, &finalize, &release, &s->replay, &record)) {
        printf("decode paths, dim %zu: no cl_khr_command_buffer, replay rows skipped\n", dim);
        return 0;
    }
    call_cb = create(1, &env->queue, NULL, &err);
    CHECK_AS("clCreateCommandBufferKHR", err);
    sinpe_status st = sinpe_record_embed(s->table, env->queue, call_cb, &s->args, 0, NULL, NULL);
    if (st == SINPE_UNSUPPORTED) {
        printf("decode paths, dim %zu: replay rows skipped: %s\n", dim, sinpe_last_error());
        rc = 0;
        goto fail;
    }
    CHECK(st);
    CHECK(finalize(call_cb));
    empty = clCreateKernel(env->program, "bench_empty", &err);
    CHECK_AS("clCreateKernel(bench_empty)", err);
    CHECK(clSetKernelArg(empty, 0, sizeof env->marker, &env->marker));
    empty_cb = create(1, &env->queue, NULL, &err);
    CHECK_AS("clCreateCommandBufferKHR", err);
    CHECK(record(empty_cb, NULL, NULL, empty, 1, NULL, &one, NULL, 0, NULL, NULL, NULL));
    CHECK(finalize(empty_cb));

    s->cb = call_cb;
    if (time_path(env, "path:replay", "replay", dim, run_replay, s, &call_wall) != 0)
        goto fail;
    s->cb = empty_cb;
    if (time_path(env, "path:empty_rec", "empty_replay", dim, run_replay, s, &empty_wall) != 0)
        goto fail;
    if (empty_wall > 0.0)
        bench_goal_path(g, 1, call_wall / empty_wall);
    rc = 0;
fail:
    if (call_cb)
        release(call_cb);
    if (empty_cb)
        release(empty_cb);
    if (empty)
        clReleaseKernel(empty);
    return rc;
}

/* The example's kernel, built after sinpe's device functions, its
   arguments set for the step, into *kernel (NULL when the example is not
   at hand).  Returns 0, or -1 after saying why. */
static int host_kernel(bench_env *env, paths_state *s, size_t dim, cl_mem *bufs,
                       cl_kernel *kernel)
{
    FILE *f = fopen("examples/prenorm.cl", "rb");
    char *text = NULL, opts[64];
    size_t len = 0, n = 0;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_int err;
    *kernel = NULL;
    if (!f) {
        printf("decode paths, dim %zu: examples/prenorm.cl not found (run from the source "
               "tree), host kernel row skipped\n", dim);
        return 0;
    }
    CHECK(sinpe_device_source(env->ctx, NULL, 0, &len));
    text = malloc(len + 65536);
    CHECK_AS("malloc (program text)", text ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    CHECK(sinpe_device_source(env->ctx, text, len + 1, &len));
    n = fread(text + len, 1, 65535, f);
    text[len + n] = '\0';
    const char *src = text;
    prog = clCreateProgramWithSource(env->cl_ctx, 1, &src, NULL, &err);
    CHECK_AS("clCreateProgramWithSource(prenorm)", err);
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DPRENORM_GROUP=%d", GROUP);
    CHECK(clBuildProgram(prog, 1, &env->device, opts, NULL, NULL));
    k = clCreateKernel(prog, "prenorm_embed_ln", &err);
    CHECK_AS("clCreateKernel(prenorm_embed_ln)", err);
    size_t rows;
    CHECK(sinpe_table_borrow(s->table, &bufs[0], &rows));
    CHECK(sinpe_table_constants(s->table, &bufs[1]));
    cl_int nrows = (cl_int)rows;
    cl_uint udim = (cl_uint)dim;
    float eps = 1e-5f;
    const void *v[] = {&s->args.ids, &bufs[2], &s->args.weights, &s->args.token_scale,
                       &bufs[0],     &nrows,   &bufs[1],         &udim,
                       &bufs[3],     &bufs[3], &eps,             &bufs[4],
                       &bufs[5]};
    const size_t z[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(float),
                        sizeof(cl_mem), sizeof nrows,   sizeof(cl_mem), sizeof udim,
                        sizeof(cl_mem), sizeof(cl_mem), sizeof eps,     sizeof(cl_mem),
                        sizeof(cl_mem)};
    for (cl_uint i = 0; i < 13; i++)
        CHECK(clSetKernelArg(k, i, z[i], v[i]));
    CHECK(clSetKernelArg(k, 13, dim * sizeof(float), NULL));
    CHECK(clSetKernelArg(k, 14, GROUP * sizeof(float), NULL));
    fclose(f);
    free(text);
    clReleaseProgram(prog); /* the kernel holds it */
    *kernel = k;
    return 0;
fail:
    fclose(f);
    free(text);
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    return -1;
}

int bench_decode_paths(bench_env *env, sinpe_table *table, size_t dim, goal_tally *g)
{
    const bench_shape *sh = &bench_shapes[0]; /* decode */
    size_t tokens = sh->seqs * sh->seq_len;
    bench_inputs in = {NULL, NULL, 0};
    paths_state s;
    cl_mem w = NULL, out = NULL, bufs[6] = {NULL};
    double wall = 0.0;
    cl_int err;
    int rc = -1;

    memset(&s, 0, sizeof s);
    s.table = table;
    if (bench_inputs_make(env, 0, 0, &in) != 0)
        return -1;
    w = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY, (size_t)BENCH_VOCAB * dim * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(weights)", err);
    out = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, tokens * dim * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(output)", err);
    if (bench_fill(env, w, (size_t)BENCH_VOCAB * dim, 7u, SINPE_F32) != 0)
        goto fail;
    sinpe_embed_args_init(&s.args);
    s.args.n_seqs = sh->seqs;
    s.args.seq_len = sh->seq_len;
    s.args.ids = in.ids;
    s.args.weights = w;
    s.args.vocab = BENCH_VOCAB;
    s.args.token_scale = 32.0f;
    s.args.out = out;

    if (time_path(env, "path:plain", "plain", dim, run_plain, &s, &wall) != 0)
        goto fail;
    if (replay_rows(env, &s, dim, g) != 0)
        goto fail;
    /* The host's kernel: positions (all 0 here: start + t), gamma = beta
       = the same dim floats, its two outputs. */
    bufs[2] = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, tokens * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(positions)", err);
    CHECK(clEnqueueFillBuffer(env->queue, bufs[2], &(cl_int){0}, 4, 0, tokens * 4, 0, NULL,
                              NULL));
    bufs[3] = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, dim * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(gamma)", err);
    CHECK(clEnqueueFillBuffer(env->queue, bufs[3], &(cl_float){1.0f}, 4, 0, dim * 4, 0, NULL,
                              NULL));
    for (int i = 4; i < 6; i++) {
        bufs[i] = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, tokens * dim * 4, NULL, &err);
        CHECK_AS("clCreateBuffer(host kernel output)", err);
    }
    if (host_kernel(env, &s, dim, bufs, &s.host) != 0)
        goto fail;
    s.host_global = tokens * GROUP;
    if (s.host) {
        if (time_path(env, "path:host", "host_kernel", dim, run_host, &s, &wall) != 0)
            goto fail;
        if (env->empty_wall_us > 0.0)
            bench_goal_path(g, 0, wall / env->empty_wall_us);
    }
    rc = 0;
fail:
    if (s.host)
        clReleaseKernel(s.host);
    for (int i = 0; i < 6; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    if (w)
        clReleaseMemObject(w);
    if (out)
        clReleaseMemObject(out);
    bench_inputs_release(&in);
    return rc;
}
