/*
 * measure.c -- what sinpe-tune measures with: its context and profiling
 * queue on the device, the benchmark's inputs made again (the same ids,
 * positions and weights for the same seed), and the timing of one call:
 * warm-up calls, then the median device time of the timed ones.
 */
#include "tune.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The benchmark's shapes, in its order: the order fixes each one's ids. */
const tune_shape tune_shapes[N_SHAPES] = {
    {"decode", 64, 1},
    {"mid", 32, 512},
    {"prefill", 4, 2048},
};

void tune_error(const char *what, int status, const char *file, int line)
{
    const char *detail = sinpe_last_error();
    fprintf(stderr, "sinpe-tune: %s:%d: %s failed: %s (%d)\n", file, line, what,
            sinpe_status_string((sinpe_status)status), status);
    if (detail && detail[0])
        fprintf(stderr, "sinpe-tune: detail: %s\n", detail);
}

double tune_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the device ------------------------------------------------------------ */

int tune_env_open(tune_env *env, const char *device, const char *json_path)
{
    sinpe_context_options o;
    cl_platform_id platform;
    cl_int err;

    memset(env, 0, sizeof *env);
    env->json_path = json_path;
    if (json_path && !(env->json = fopen(json_path, "w"))) {
        fprintf(stderr, "sinpe-tune: cannot open %s: %s\n", json_path, strerror(errno));
        return -1;
    }
    sinpe_context_options_init(&o);
    o.device = device;
    /* It only lends its cl_context to the candidates' contexts: storing its
       binary would make pocl compile every kernel for nothing. */
    o.no_disk_cache = 1;
    CHECK(sinpe_context_create(&o, &env->ctx));
    env->cl_ctx = sinpe_context_cl_context(env->ctx);
    env->device = sinpe_context_device(env->ctx);
    env->queue = clCreateCommandQueue(env->cl_ctx, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK_AS("clCreateCommandQueue(profiling)", err);
    env->marker = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    CHECK_AS("clCreateBuffer(marker)", err);
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->device_name - 1,
                          env->device_name, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DRIVER_VERSION, sizeof env->driver_version - 1,
                          env->driver_version, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof env->device_type,
                          &env->device_type, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL));
    CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof env->platform_name - 1,
                            env->platform_name, NULL));
    return 0;
fail:
    return -1;
}

int tune_env_close(tune_env *env)
{
    int rc = 0;
    if (env->json && fclose(env->json) != 0) {
        fprintf(stderr, "sinpe-tune: writing %s failed\n", env->json_path);
        rc = -1;
    }
    if (env->marker)
        clReleaseMemObject(env->marker);
    if (env->queue)
        clReleaseCommandQueue(env->queue);
    sinpe_context_release(env->ctx);
    memset(env, 0, sizeof *env);
    return rc;
}

/* ---- inputs ---------------------------------------------------------------- */

/* splitmix64, as the benchmark draws its ids and offsets. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static cl_int below(uint64_t *state, size_t n)
{
    return (cl_int)(((next_random(state) >> 32) * (uint64_t)n) >> 32);
}

int tune_inputs_make(tune_env *env, size_t si, int explicit_pos, uint64_t seed, tune_inputs *in)
{
    const tune_shape *sh = &tune_shapes[si];
    size_t tokens = sh->seqs * sh->seq_len;
    uint64_t rng = seed ^ (0xA0761D6478BD642Full * (uint64_t)(si + 1));
    cl_int *ids = malloc(tokens * sizeof *ids), *pos = malloc(tokens * sizeof *pos), err;

    memset(in, 0, sizeof *in);
    CHECK_AS("malloc (ids)", ids && pos ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (size_t t = 0; t < tokens; t++)
        ids[t] = below(&rng, TUNE_VOCAB);
    /* Explicit positions place each sequence at a random offset. */
    for (size_t b = 0; b < sh->seqs; b++) {
        cl_int start = explicit_pos ? below(&rng, TUNE_CONTEXT - sh->seq_len + 1) : 0;
        for (size_t t = 0; t < sh->seq_len; t++)
            pos[b * sh->seq_len + t] = start + (cl_int)t;
    }
    in->ids = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             tokens * sizeof *ids, ids, &err);
    CHECK_AS("clCreateBuffer(ids)", err);
    if (explicit_pos) {
        in->pos = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 tokens * sizeof *pos, pos, &err);
        CHECK_AS("clCreateBuffer(positions)", err);
    }
    free(ids);
    free(pos);
    return 0;
fail:
    free(ids);
    free(pos);
    tune_inputs_release(in);
    return -1;
}

void tune_inputs_release(tune_inputs *in)
{
    if (in->ids)
        clReleaseMemObject(in->ids);
    if (in->pos)
        clReleaseMemObject(in->pos);
    memset(in, 0, sizeof *in);
}

/* Value i of a buffer filled with seed: in [-1, 1), from a hash of the
   index, the benchmark's fill, so that the weights are its weights. */
static float fill_value(size_t i, cl_uint seed)
{
    cl_uint x = ((cl_uint)i ^ (cl_uint)(i >> 32)) * 0x9E3779B9u ^ seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return (float)(x >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

/* The 16-bit types rounded to nearest even by sinpe_quantize, as the
   benchmark's device fill rounds them. */
int tune_fill(tune_env *env, cl_mem buf, size_t n, cl_uint seed, sinpe_dtype dtype)
{
    enum { CHUNK = 1 << 20 };
    size_t es = sinpe_dtype_bytes(dtype, 1);
    float *src = malloc(CHUNK * sizeof *src);
    void *dst = malloc(CHUNK * es);
    CHECK_AS("malloc (fill)", src && dst ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t m = n - at < CHUNK ? n - at : CHUNK;
        for (size_t j = 0; j < m; j++)
            src[j] = fill_value(at + j, seed);
        CHECK(sinpe_quantize(dtype, src, 1, m, dst, CHUNK * es, NULL, SINPE_F32));
        CHECK(clEnqueueWriteBuffer(env->queue, buf, CL_TRUE, at * es, m * es, dst, 0, NULL,
                                   NULL));
    }
    free(src);
    free(dst);
    return 0;
fail:
    free(src);
    free(dst);
    return -1;
}

/* ---- timing ---------------------------------------------------------------- */

static int event_ns(cl_event ev, cl_profiling_info what, cl_ulong *t)
{
    cl_int exec = CL_COMPLETE;
    CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
    CHECK_AS("the timed command (execution status)", exec);
    CHECK(clGetEventProfilingInfo(ev, what, sizeof *t, t, NULL));
    return 0;
fail:
    return -1;
}

/*
 * One call of job, then clFinish, so that calls never overlap; its device
 * time in *us: END - START of its event, or, bracketed, END of its event
 * minus END of a marker enqueued just before it.  The marker waits on a
 * user event until the call is enqueued, so that the time the host takes
 * to enqueue stays out of the bracket; the queue is in order.
 */
static int call_us(tune_env *env, const tune_job *job, double *us)
{
    cl_event gate = NULL, marker = NULL, ev = NULL;
    cl_ulong a = 0, b = 0;
    cl_int zero = 0, err;
    int rc = -1;

    if (job->bracket) {
        gate = clCreateUserEvent(env->cl_ctx, &err);
        CHECK_AS("clCreateUserEvent(gate)", err);
        CHECK(clEnqueueFillBuffer(env->queue, env->marker, &zero, sizeof zero, 0, sizeof zero,
                                  1, &gate, &marker));
    }
    err = job->run(job->user, env->queue, &ev);
    if (gate) {
        clSetUserEventStatus(gate, CL_COMPLETE);
        clReleaseEvent(gate);
        gate = NULL;
    }
    if (err != 0)
        goto fail;
    CHECK(clFinish(env->queue));
    if (event_ns(ev, CL_PROFILING_COMMAND_END, &b) != 0 ||
        event_ns(marker ? marker : ev, marker ? CL_PROFILING_COMMAND_END
                                              : CL_PROFILING_COMMAND_START, &a) != 0)
        goto fail;
    *us = b > a ? (double)(b - a) * 1e-3 : 0.0;
    rc = 0;
fail:
    if (gate) {
        clSetUserEventStatus(gate, CL_COMPLETE);
        clReleaseEvent(gate);
    }
    if (rc != 0)
        clFinish(env->queue);
    if (marker)
        clReleaseEvent(marker);
    if (ev)
        clReleaseEvent(ev);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int tune_time(tune_env *env, const tune_job *job, int warmup, int reps, double *median_us)
{
    double t[TUNE_MAX_REPS];
    if (reps < 1 || reps > TUNE_MAX_REPS)
        return -1;
    for (int i = 0; i < warmup + reps; i++)
        if (call_us(env, job, &t[i < warmup ? 0 : i - warmup]) != 0)
            return -1;
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    *median_us = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return 0;
}
