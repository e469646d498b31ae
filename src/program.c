/*
 * program.c -- builds a program of the embedded kernel source (a context's
 * base program, or one weights type's), or loads the binary of an earlier
 * build from the disk cache (cache.c); hands the device functions
 * (kernels/device.cl) to hosts.
 */
#include "sinpe_internal.h"
#include "cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sinpe_status build_failure(cl_program program, cl_device_id dev, cl_int err)
{
    size_t len = 0;
    char *log = NULL;
    sinpe_status st;
    if (clGetProgramBuildInfo(program, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
        (log = calloc(len + 1, 1)) != NULL)
        clGetProgramBuildInfo(program, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    st = sinpe__fail(SINPE_BUILD_FAILED, "%s; build log:\n%s",
                     err == CL_BUILD_PROGRAM_FAILURE ? "clBuildProgram failed"
                                                     : "clBuildProgram failed with an OpenCL error",
                     log ? log : "(no log)");
    free(log);
    return st;
}

/* Creates every kernel of prog->program; on failure names the call in *what. */
static cl_int make_kernels(cl_device_id dev, const sinpe__tuning *tune, int weights,
                           sinpe__program *prog, const char **what)
{
    cl_int err = CL_SUCCESS;
    for (int k = 0; k < sinpe__kernel_count; k++) {
        if (!sinpe__kernel_held(tune, weights, k))
            continue;
        prog->kernels[k] = clCreateKernel(prog->program, sinpe__kernels[k].name, &err);
        if (err == CL_SUCCESS)
            err = clGetKernelWorkGroupInfo(prog->kernels[k], dev, CL_KERNEL_WORK_GROUP_SIZE,
                                           sizeof prog->wg[k], &prog->wg[k], NULL);
        if (err != CL_SUCCESS) {
            *what = prog->kernels[k] ? "clGetKernelWorkGroupInfo" : "clCreateKernel";
            return err;
        }
    }
    return CL_SUCCESS;
}

/* SINPE_KERNEL_SOURCE (include/sinpe.h): that file in place of the head,
   kernels/sinpe.cl, then an #include of each other file of the program
   that is beside it (a file alone builds alone); the disk cache is then
   bypassed, since its key describes the embedded source. */
static sinpe_status source_override(char **text, size_t *len)
{
    const char *path = getenv("SINPE_KERNEL_SOURCE");
    FILE *f;
    long n = 0;
    size_t more = 0;
    *text = NULL;
    if (!path || !*path)
        return SINPE_SUCCESS;
    for (int i = 1; sinpe__kernel_source_roots[i]; i++)
        more += strlen(sinpe__kernel_source_roots[i]) + sizeof "#include \"\"\n";
    if ((f = fopen(path, "rb")) != NULL) {
        if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
            !(*text = malloc((size_t)n + more + 2)) || fread(*text, 1, (size_t)n, f) != (size_t)n) {
            free(*text);
            *text = NULL;
        }
        fclose(f);
    }
    SINPE_CHECK(!*text, SINPE_INVALID_OPTION, "SINPE_KERNEL_SOURCE \"%s\" cannot be read", path);
    *len = (size_t)n;
    (*text)[(*len)++] = '\n';
    const char *slash = strrchr(path, '/');
    for (int i = 1; sinpe__kernel_source_roots[i]; i++) {
        char beside[4096];
        snprintf(beside, sizeof beside, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path,
                 sinpe__kernel_source_roots[i]);
        if ((f = fopen(beside, "rb")) != NULL && !fclose(f))
            *len += (size_t)sprintf(*text + *len, "#include \"%s\"\n", sinpe__kernel_source_roots[i]);
    }
    (*text)[*len] = '\0';
    return SINPE_SUCCESS;
}

static sinpe_status build_source(cl_context ctx, cl_device_id dev, const char *src, size_t len,
                                 const char *options, const sinpe__tuning *tune, int weights,
                                 sinpe__program *prog)
{
    const char *what = NULL;
    cl_int err;
    prog->program = clCreateProgramWithSource(ctx, 1, &src, &len, &err);
    SINPE_CL_CHECK(err, "clCreateProgramWithSource");
    err = clBuildProgram(prog->program, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS)
        return build_failure(prog->program, dev, err);
    err = make_kernels(dev, tune, weights, prog, &what);
    SINPE_CL_CHECK(err, what);
    return SINPE_SUCCESS;
}

sinpe_status sinpe__program_build(cl_context ctx, cl_device_id dev, sinpe_math math,
                                  const sinpe__tuning *tune, int weights, int disk_cache,
                                  sinpe__program *prog)
{
    const char *src = sinpe__kernel_source, *what;
    size_t len = (size_t)sinpe__kernel_source_len;
    char options[1024], *override;
    sinpe__cache cache;
    sinpe_status st = SINPE_SUCCESS;

    memset(prog, 0, sizeof *prog);
    memset(&cache, 0, sizeof cache);
    SINPE_FORWARD(source_override(&override, &len));
    sinpe__plan_options(tune, math, weights, options, sizeof options);
    if (override) {
        /* The file's includes are found beside it. */
        const char *path = getenv("SINPE_KERNEL_SOURCE"), *slash = strrchr(path, '/');
        size_t used = strlen(options);
        snprintf(options + used, sizeof options - used, " -I %.*s",
                 slash ? (int)(slash - path) : 1, slash ? path : ".");
        src = override;
        disk_cache = 0;
    }
    if (disk_cache)
        sinpe__cache_open(&cache, dev, options);
    /* A binary the runtime accepted but whose kernels cannot be made is
       deleted too, silently: the source is then built, and reports any error. */
    prog->program = sinpe__cache_load(&cache, ctx, dev, options);
    if (prog->program && make_kernels(dev, tune, weights, prog, &what) == CL_SUCCESS) {
        prog->from_disk = 1;
    } else {
        if (prog->program)
            sinpe__cache_discard(&cache);
        sinpe__program_release(prog);
        st = build_source(ctx, dev, src, len, options, tune, weights, prog);
        if (st == SINPE_SUCCESS)
            sinpe__cache_store(&cache, prog->program, dev);
        else
            sinpe__program_release(prog);
    }
    sinpe__cache_close(&cache);
    free(override);
    return st;
}

void sinpe__program_release(sinpe__program *prog)
{
    for (int k = 0; k < SINPE_K_MAX; k++)
        if (prog->kernels[k])
            clReleaseKernel(prog->kernels[k]);
    if (prog->program)
        clReleaseProgram(prog->program);
    memset(prog, 0, sizeof *prog);
}

sinpe_status sinpe_device_source(const sinpe_context *context, char *dst, size_t dst_size,
                                 size_t *length)
{
    char head[96];
    int n;
    size_t total;

    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context is NULL");
    SINPE_CHECK(!length, SINPE_NULL_ARGUMENT, "length: the output pointer is NULL");
    n = snprintf(head, sizeof head, "#define SINPE_FP64 %d\n",
                 context->math == SINPE_MATH_FP64 ? 1 : 0);
    total = (size_t)n + sinpe__device_text_len;
    *length = total;
    if (!dst && dst_size == 0)
        return SINPE_SUCCESS;
    SINPE_CHECK(!dst, SINPE_NULL_ARGUMENT, "dst is NULL with dst_size %zu", dst_size);
    SINPE_CHECK(dst_size <= total, SINPE_BUFFER_TOO_SMALL,
                "dst_size %zu: the source takes %zu bytes with its NUL", dst_size, total + 1);
    memcpy(dst, head, (size_t)n);
    memcpy(dst + n, sinpe__device_text, sinpe__device_text_len + 1);
    return SINPE_SUCCESS;
}
