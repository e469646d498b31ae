/*
 * env.c -- the state the benchmark and the tuner share: a sinpe context on
 * the chosen device, a profiling queue of their own, the helper kernels,
 * the device's facts, and the JSON file.
 */
#include "bench.h"

#include <errno.h>
#include <string.h>

static int device_info(bench_env *env)
{
    cl_platform_id platform;
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->device_name,
                          env->device_name, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DRIVER_VERSION, sizeof env->driver_version,
                          env->driver_version, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof env->max_alloc,
                          &env->max_alloc, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof env->device_type,
                          &env->device_type, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof env->cache_bytes,
                          &env->cache_bytes, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL));
    CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof env->platform_name,
                            env->platform_name, NULL));
    env->device_name[sizeof env->device_name - 1] = '\0';
    env->driver_version[sizeof env->driver_version - 1] = '\0';
    env->platform_name[sizeof env->platform_name - 1] = '\0';
    return 0;
fail:
    return -1;
}

int bench_env_open(bench_env *env, const bench_opts *opts, const char *program)
{
    sinpe_context_options copts;
    cl_int err;

    memset(env, 0, sizeof *env);
    env->opts = opts;
    env->program_name = program;
    sinpe_context_options_init(&copts);
    copts.device = opts->device;
    copts.no_disk_cache = opts->no_disk_cache;
    if (opts->json_path) {
        env->json = fopen(opts->json_path, "w");
        if (!env->json) {
            fprintf(stderr, "%s: cannot open %s: %s\n", program, opts->json_path,
                    strerror(errno));
            return -1;
        }
    }
    CHECK(sinpe_context_create(&copts, &env->ctx));
    env->cl_ctx = sinpe_context_cl_context(env->ctx);
    env->device = sinpe_context_device(env->ctx);
    env->queue = clCreateCommandQueue(env->cl_ctx, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK_AS("clCreateCommandQueue(profiling)", err);
    env->marker = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    CHECK_AS("clCreateBuffer(marker)", err);
    if (device_info(env) != 0 || bench_kernels_build(env) != 0)
        goto fail;
    return 0;
fail:
    return -1;
}

int bench_make_buffer(bench_env *env, size_t bytes, const char *what, cl_mem *mem)
{
    cl_int err;
    *mem = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_AS(what, err);
    return 0;
fail:
    *mem = NULL;
    return -1;
}

int bench_env_close(bench_env *env)
{
    int rc = 0;
    if (env->json && fclose(env->json) != 0) {
        fprintf(stderr, "%s: writing %s failed\n", env->program_name, env->opts->json_path);
        rc = -1;
    }
    bench_kernels_release(env);
    if (env->marker)
        clReleaseMemObject(env->marker);
    if (env->queue)
        clReleaseCommandQueue(env->queue);
    sinpe_context_release(env->ctx);
    memset(env, 0, sizeof *env);
    return rc;
}
