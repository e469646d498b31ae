/*
 * ceiling.c -- the bench's own kernels: the copy and write-only bandwidth
 * ceilings, and device-side fills for the embedding weights in each
 * storage type.
 *
 * The ceilings are the best this device does in this run at copying
 * (every byte read once and written once) and at writing a constant, over
 * buffers far larger than any cache, among several ways: a float4 kernel,
 * the same with streamed stores where the compiler has clang's
 * non-temporal store builtin (CPU runtimes such as pocl: a plain store
 * there first reads the line it writes), and the runtime's own
 * clEnqueueCopyBuffer and clEnqueueFillBuffer.  They are roofs for the
 * embedding cases, which read and write in the same proportions, and for
 * table generation, which only writes; table.c also runs the write kernel
 * over the table's own bytes, for its ratio.  Bytes count as 1e9 per GB.
 */
#include "bench.h"

#include <math.h>
#include <string.h>

static const char kernel_source[] =
    "__kernel void bench_copy(__global const float4 *restrict src,\n"
    "                         __global float4 *restrict dst)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    dst[i] = src[i];\n"
    "}\n"
    "\n"
    "__kernel void bench_empty(__global int *x)\n"
    "{\n"
    "}\n"
    "\n"
    "__kernel void bench_write(__global float4 *restrict dst, float v)\n"
    "{\n"
    "    dst[get_global_id(0)] = (float4)(v);\n"
    "}\n"
    "\n"
    "#if defined(__has_builtin)\n"
    "#if __has_builtin(__builtin_nontemporal_store)\n"
    "__kernel void bench_copy_stream(__global const float4 *restrict src,\n"
    "                                __global float4 *restrict dst)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    __builtin_nontemporal_store(src[i], dst + i);\n"
    "}\n"
    "\n"
    "__kernel void bench_write_stream(__global float4 *restrict dst, float v)\n"
    "{\n"
    "    __builtin_nontemporal_store((float4)(v), dst + get_global_id(0));\n"
    "}\n"
    "\n"
    "__kernel void bench_copy_line(__global const float16 *restrict src,\n"
    "                              __global float16 *restrict dst)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "#if __has_builtin(__builtin_prefetch)\n"
    "    __builtin_prefetch(src + i + 16);\n"
    "#endif\n"
    "    __builtin_nontemporal_store(src[i], dst + i);\n"
    "}\n"
    "#endif\n"
    "#endif\n"
    "\n"
    /* Values in [-1, 1) from a hash of the index, so that 512 MiB of
       weights need neither a host copy nor a transfer.  The half and
       bfloat16 fills round the same float32 values to nearest even; half
       goes through vstore_half, which needs no cl_khr_fp16. */
    "float bench_value(size_t i, uint seed)\n"
    "{\n"
    "    uint x = ((uint)i ^ (uint)(i >> 32)) * 0x9E3779B9u ^ seed;\n"
    "    x ^= x >> 16;  x *= 0x7FEB352Du;\n"
    "    x ^= x >> 15;  x *= 0x846CA68Bu;\n"
    "    x ^= x >> 16;\n"
    "    return (float)(x >> 8) * (1.0f / 8388608.0f) - 1.0f;\n"
    "}\n"
    "\n"
    "__kernel void bench_fill(__global float *restrict dst, uint seed)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    dst[i] = bench_value(i, seed);\n"
    "}\n"
    "\n"
    "__kernel void bench_fill_f16(__global half *restrict dst, uint seed)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    vstore_half_rte(bench_value(i, seed), i, dst);\n"
    "}\n"
    "\n"
    "__kernel void bench_fill_bf16(__global ushort *restrict dst, uint seed)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    uint u = as_uint(bench_value(i, seed));\n"
    "    dst[i] = (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);\n"
    "}\n";

/* Prints the build log of the bench's own program. */
static void print_build_log(const bench_env *env, cl_program program)
{
    size_t size = 0;
    char log[8192];
    if (clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
        CL_SUCCESS)
        return;
    if (size > sizeof log)
        size = sizeof log;
    if (clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
        CL_SUCCESS) {
        log[sizeof log - 1] = '\0';
        fprintf(stderr, "build log:\n%s\n", log);
    }
}

int bench_kernels_build(bench_env *env)
{
    const char *src = kernel_source;
    cl_int err;

    env->program = clCreateProgramWithSource(env->cl_ctx, 1, &src, NULL, &err);
    CHECK_AS("clCreateProgramWithSource(bench kernels)", err);
    err = clBuildProgram(env->program, 1, &env->device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS)
        print_build_log(env, env->program);
    CHECK_AS("clBuildProgram(bench kernels)", err);
    env->k_copy = clCreateKernel(env->program, "bench_copy", &err);
    CHECK_AS("clCreateKernel(bench_copy)", err);
    env->k_write = clCreateKernel(env->program, "bench_write", &err);
    CHECK_AS("clCreateKernel(bench_write)", err);
    env->k_empty = clCreateKernel(env->program, "bench_empty", &err);
    CHECK_AS("clCreateKernel(bench_empty)", err);
    /* Absent where the compiler lacks the builtin: no streamed ceilings then. */
    env->k_copy_stream = clCreateKernel(env->program, "bench_copy_stream", &err);
    env->k_write_stream = env->k_copy_stream
                              ? clCreateKernel(env->program, "bench_write_stream", &err)
                              : NULL;
    env->k_copy_line = env->k_copy_stream
                           ? clCreateKernel(env->program, "bench_copy_line", &err)
                           : NULL;
    env->k_fill[SINPE_F32] = clCreateKernel(env->program, "bench_fill", &err);
    CHECK_AS("clCreateKernel(bench_fill)", err);
    env->k_fill[SINPE_F16] = clCreateKernel(env->program, "bench_fill_f16", &err);
    CHECK_AS("clCreateKernel(bench_fill_f16)", err);
    env->k_fill[SINPE_BF16] = clCreateKernel(env->program, "bench_fill_bf16", &err);
    CHECK_AS("clCreateKernel(bench_fill_bf16)", err);
    return 0;
fail:
    return -1;
}

void bench_kernels_release(bench_env *env)
{
    int i;
    if (env->k_copy)
        clReleaseKernel(env->k_copy);
    if (env->k_write)
        clReleaseKernel(env->k_write);
    if (env->k_empty)
        clReleaseKernel(env->k_empty);
    if (env->k_copy_stream)
        clReleaseKernel(env->k_copy_stream);
    if (env->k_write_stream)
        clReleaseKernel(env->k_write_stream);
    if (env->k_copy_line)
        clReleaseKernel(env->k_copy_line);
    for (i = 0; i < BENCH_N_DTYPES; i++)
        if (env->k_fill[i])
            clReleaseKernel(env->k_fill[i]);
    if (env->program)
        clReleaseProgram(env->program);
    memset(env->k_fill, 0, sizeof env->k_fill);
    env->k_copy = env->k_write = env->k_copy_stream = env->k_write_stream = NULL;
    env->k_copy_line = NULL;
    env->k_empty = NULL;
    env->program = NULL;
}

int bench_fill(bench_env *env, cl_mem buf, size_t n, cl_uint seed, sinpe_dtype dtype)
{
    cl_kernel k = env->k_fill[dtype];
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    CHECK(clSetKernelArg(k, 1, sizeof seed, &seed));
    CHECK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    return 0;
fail:
    return -1;
}

int bench_enqueue_write(bench_env *env, cl_command_queue queue, cl_mem buf, size_t bytes,
                        cl_uint n_wait, const cl_event *wait, cl_event *event)
{
    static const cl_float4 one = {{1.0f, 1.0f, 1.0f, 1.0f}};
    size_t n_vec = bytes / (4 * sizeof(float));
    cl_kernel k = env->k_write_best;
    float v = 1.0f;
    if (!k) {
        CHECK(clEnqueueFillBuffer(queue, buf, &one, sizeof one, 0, bytes, n_wait, wait, event));
        return 0;
    }
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    CHECK(clSetKernelArg(k, 1, sizeof v, &v));
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &n_vec, NULL, n_wait, wait, event));
    return 0;
fail:
    return -1;
}

int bench_enqueue_copy(bench_env *env, cl_command_queue queue, cl_mem src, cl_mem dst,
                       size_t bytes, cl_event *event)
{
    cl_kernel k = env->k_copy_best;
    size_t n_vec = k ? bytes / env->copy_best_unit : 0;
    if (!k) {
        CHECK(clEnqueueCopyBuffer(queue, src, dst, 0, 0, bytes, 0, NULL, event));
        return 0;
    }
    CHECK(clSetKernelArg(k, 0, sizeof src, &src));
    CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
    CHECK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &n_vec, NULL, 0, NULL, event));
    return 0;
fail:
    return -1;
}

/*
 * One way to copy or write n_vec float4 elements: a kernel whose arguments
 * are set (kernel != NULL), else the runtime's own clEnqueueCopyBuffer
 * (src set) or clEnqueueFillBuffer.
 */
typedef struct ceiling_job {
    cl_kernel kernel;
    size_t n_vec, unit; /* work-items, bytes each */
    cl_mem src, dst;
} ceiling_job;

static int run_ceiling(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    ceiling_job *cj = user;
    static const cl_float4 one = {{1.0f, 1.0f, 1.0f, 1.0f}};
    size_t bytes = cj->n_vec * cj->unit;
    if (cj->kernel)
        CHECK(clEnqueueNDRangeKernel(queue, cj->kernel, 1, NULL, &cj->n_vec, NULL, 0, NULL,
                                     &events[0]));
    else if (cj->src)
        CHECK(clEnqueueCopyBuffer(queue, cj->src, cj->dst, 0, 0, bytes, 0, NULL, &events[0]));
    else
        CHECK(clEnqueueFillBuffer(queue, cj->dst, &one, sizeof one, 0, bytes, 0, NULL,
                                  &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

/*
 * Buffer size for the ceilings: 256 MiB (16 MiB with --quick), far above
 * any last-level cache, but at most a quarter of the device's largest
 * allocation.
 */
static size_t ceiling_bytes(const bench_env *env)
{
    const size_t mib = (size_t)1 << 20;
    size_t bytes = (env->opts->quick ? 16 : 256) * mib;
    size_t cap = (size_t)(env->max_alloc / 4) / mib * mib;
    if (cap < mib)
        cap = mib;
    return bytes < cap ? bytes : cap;
}

/* Ceiling drift beyond this fraction between start and end gets a warning. */
#define DRIFT_WARN 0.2

/*
 * The ways this device copies and writes, each timed over the same
 * buffers: the plain float4 kernels, the streamed ones (where the compiler
 * has the builtin; the copy also by whole 64-byte lines, each asking for
 * the line 1 KiB ahead where it has __builtin_prefetch), and the runtime's
 * own copy and fill.  The copy and write ceilings are the fastest of each
 * kind in this run, so that they are roofs: a case that reads above 100%
 * of them got some of its bytes from a cache.
 */
enum { N_WAYS = 7 };

int bench_ceilings(bench_env *env, int at_end)
{
    static const struct {
        const char *name;
        int copy, runtime;
        size_t unit; /* bytes a work-item */
    } ways[N_WAYS] = {{"copy", 1, 0, 16},         {"write", 0, 0, 16},
                      {"copy_stream", 1, 0, 16},  {"write_stream", 0, 0, 16},
                      {"copy_line", 1, 0, 64},    {"copy_runtime", 1, 1, 16},
                      {"fill_runtime", 0, 1, 16}};
    cl_kernel kernels[N_WAYS] = {env->k_copy,        env->k_write, env->k_copy_stream,
                                 env->k_write_stream, env->k_copy_line, NULL, NULL};
    size_t bytes = ceiling_bytes(env);
    cl_mem src = NULL, dst = NULL;
    ceiling_job cj[N_WAYS];
    bench_job jobs[N_WAYS];
    bench_stats st[N_WAYS];
    bench_rounds rounds;
    bench_row rows[N_WAYS];
    double best[2] = {0.0, 0.0};
    const char *best_name[2] = {NULL, NULL};
    cl_kernel best_write = NULL, best_copy = NULL;
    size_t best_unit = 16;
    float v = 1.0f;
    cl_int err;
    int k, n = 0, way[N_WAYS], ran[N_WAYS] = {0};

    src = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_AS("clCreateBuffer(ceiling source)", err);
    dst = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_AS("clCreateBuffer(ceiling destination)", err);
    /* Touch both buffers once, so first-use page faults stay out of the figures. */
    if (bench_fill(env, src, bytes / sizeof(float), 1u, SINPE_F32) != 0 ||
        bench_fill(env, dst, bytes / sizeof(float), 2u, SINPE_F32) != 0)
        goto fail;

    /* The ways this device has, timed in interleaved rounds. */
    memset(rows, 0, sizeof rows);
    for (k = 0; k < N_WAYS; k++) {
        ceiling_job *c = &cj[n];
        if (!kernels[k] && !ways[k].runtime)
            continue;
        c->kernel = kernels[k];
        c->unit = ways[k].unit;
        c->n_vec = bytes / c->unit;
        c->src = ways[k].copy ? src : NULL;
        c->dst = dst;
        if (c->kernel && ways[k].copy) {
            CHECK(clSetKernelArg(c->kernel, 0, sizeof src, &src));
            CHECK(clSetKernelArg(c->kernel, 1, sizeof dst, &dst));
        } else if (c->kernel) {
            CHECK(clSetKernelArg(c->kernel, 0, sizeof dst, &dst));
            CHECK(clSetKernelArg(c->kernel, 1, sizeof v, &v));
        }
        jobs[n] = (bench_job){run_ceiling, NULL, c, 0};
        way[n++] = k;
    }
    if (bench_time_rounds(env, jobs, n, st, &rounds) != 0)
        goto fail;
    for (int j = 0; j < n; j++) {
        int copy = ways[way[j]].copy;
        k = way[j];
        ran[k] = 1;
        rows[k].stats = st[j];
        rows[k].name = ways[k].name;
        rows[k].phase = at_end ? "end" : "start";
        rows[k].bytes = copy ? 2.0 * (double)bytes : (double)bytes; /* copy: read + write */
        if (bench_gbps(rows[k].bytes, rows[k].stats.median_us) > best[!copy]) {
            best[!copy] = bench_gbps(rows[k].bytes, rows[k].stats.median_us);
            best_name[!copy] = ways[k].name;
            if (!copy) {
                best_write = kernels[k];
            } else {
                best_copy = kernels[k];
                best_unit = ways[k].unit;
            }
        }
    }
    /* The cases are read against the start figures; the end rows' %copy and
       %write columns then show how far the machine drifted meanwhile. */
    if (!at_end) {
        env->copy_gbps = best[0];
        env->write_gbps = best[1];
        env->copy_name = best_name[0];
        env->write_name = best_name[1];
        env->k_write_best = best_write;
        env->k_copy_best = best_copy;
        env->copy_best_unit = best_unit;
    }
    for (k = 0; k < N_WAYS; k++)
        if (ran[k])
            bench_report_row(env, &rows[k]);
    printf("  ceilings: copy %.2f GB/s (%s), write %.2f GB/s (%s)%s\n", env->copy_gbps,
           env->copy_name, env->write_gbps, env->write_name,
           at_end ? ", from the start of the run" : "; %copy and %wr use these");
    if (at_end && (fabs(best[0] / env->copy_gbps - 1.0) > DRIFT_WARN ||
                   fabs(best[1] / env->write_gbps - 1.0) > DRIFT_WARN))
        printf("warning: the ceilings moved by more than %.0f%% during the run; other load\n"
               "on the machine makes these figures unreliable\n",
               100.0 * DRIFT_WARN);

    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    return 0;
fail:
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    return -1;
}

/*
 * The launch floor: one work-item of an empty kernel, enqueued and waited
 * for like every case.  Its wall clock is what any call costs on this queue
 * whatever its kernel does; decode steps are read against it.
 */
int bench_launch_floor(bench_env *env)
{
    ceiling_job cj = {env->k_empty, 1, 16, NULL, NULL};
    bench_job job = {run_ceiling, NULL, &cj, 0};
    bench_row row;
    CHECK(clSetKernelArg(env->k_empty, 0, sizeof env->marker, &env->marker));
    memset(&row, 0, sizeof row);
    row.name = "empty";
    row.shape = "launch";
    if (bench_time(env, &job, &row.stats) != 0)
        goto fail;
    env->empty_wall_us = row.stats.wall_us;
    bench_report_row(env, &row);
    return 0;
fail:
    return -1;
}
