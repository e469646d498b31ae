/*
 * program.c -- builds the embedded kernel source once per context, or loads
 * the binary of an earlier build from the disk cache (cache.c).
 */
#include "sinpe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[3] = {"f32", "f16", "bf16"};
static const char *const part_suffix[SINPE_PARTS] = {"_fast",   "",
                                                      "_otf",    "_stream",
                                                      "_table_stream", "_row"};

/* The kernel function name of slot k, as the kernel files define it. */
static void kernel_name(int k, char *buf, size_t n)
{
    const char *const *d = dtype_names;
    if (k == SINPE_K_TABLE_ANCHORS)
        snprintf(buf, n, "sinpe_table_anchors");
    else if (k < SINPE_K_MAKE_POS)
        snprintf(buf, n, "sinpe_table_rows_%s", d[k - SINPE_K_TABLE_ROWS]);
    else if (k == SINPE_K_MAKE_POS)
        snprintf(buf, n, "sinpe_make_positions");
    else if (k < SINPE_K_COUNT_BAD)
        snprintf(buf, n, "sinpe_timesteps_%s", d[k - SINPE_K_TIMESTEPS]);
    else if (k == SINPE_K_COUNT_BAD)
        snprintf(buf, n, "sinpe_count_bad_ids");
    else if (k < SINPE_K_ADD) {
        int i = k < SINPE_K_GATHER ? k - SINPE_K_EMBED : k - SINPE_K_GATHER;
        snprintf(buf, n, "sinpe_%s_%s_%s%s", k < SINPE_K_GATHER ? "embed" : "gather",
                 d[i / (3 * SINPE_PARTS)], d[i / SINPE_PARTS % 3], part_suffix[i % SINPE_PARTS]);
    } else
        snprintf(buf, n, "sinpe_add_%s%s", d[(k - SINPE_K_ADD) / SINPE_PARTS],
                 part_suffix[(k - SINPE_K_ADD) % SINPE_PARTS]);
}

/* Whether the kernel files define slot k in a build with this tuning. */
static int kernel_exists(int k, const sinpe__tuning *tune)
{
    if (k < SINPE_K_EMBED)
        return 1;
    int part = (k - SINPE_K_EMBED) % SINPE_PARTS;
    if (part == SINPE_PART_OTF)
        return k < SINPE_K_GATHER || k >= SINPE_K_ADD;
    if (part == SINPE_PART_STREAM)
        return k < SINPE_K_ADD && tune->stream;
    if (part == SINPE_PART_TABLE_STREAM)
        return k < SINPE_K_GATHER && tune->stream && !tune->one_pass;
    if (part == SINPE_PART_ROW)
        return k < SINPE_K_ADD && tune->row;
    return 1;
}

static sinpe_status build_failure(cl_program program, cl_device_id dev, cl_int err)
{
    size_t len = 0;
    char *log = NULL;
    sinpe_status st;
    if (clGetProgramBuildInfo(program, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
        (log = calloc(len + 1, 1)) != NULL)
        clGetProgramBuildInfo(program, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    st = sinpe__fail_long(SINPE_BUILD_FAILED,
                          err == CL_BUILD_PROGRAM_FAILURE
                              ? "clBuildProgram failed; build log:"
                              : "clBuildProgram failed with an OpenCL error; build log:",
                          log ? log : "(no log)");
    free(log);
    return st;
}

/* Creates every kernel of prog->program; on failure names the call in *what. */
static cl_int make_kernels(cl_device_id dev, const sinpe__tuning *tune, sinpe__program *prog,
                           const char **what)
{
    cl_int err = CL_SUCCESS;
    for (int k = 0; k < SINPE_K_COUNT; k++) {
        char name[64];
        if (!kernel_exists(k, tune))
            continue;
        kernel_name(k, name, sizeof name);
        prog->kernels[k] = clCreateKernel(prog->program, name, &err);
        if (err != CL_SUCCESS) {
            *what = "clCreateKernel";
            return err;
        }
        err = clGetKernelWorkGroupInfo(prog->kernels[k], dev, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof prog->wg[k], &prog->wg[k], NULL);
        if (err != CL_SUCCESS) {
            *what = "clGetKernelWorkGroupInfo";
            return err;
        }
    }
    return CL_SUCCESS;
}

/*
 * A program from the disk cache, kernels and all; 0 on a miss.  A binary the
 * runtime accepted but whose kernels cannot be made is deleted too, silently:
 * the caller then builds from source, and any error is reported from there.
 */
static int load_cached(const sinpe__cache *cache, cl_context ctx, cl_device_id dev,
                       const char *options, const sinpe__tuning *tune, sinpe__program *prog)
{
    const char *what;
    if (!(prog->program = sinpe__cache_load(cache, ctx, dev, options)))
        return 0;
    if (make_kernels(dev, tune, prog, &what) == CL_SUCCESS) {
        prog->from_disk = 1;
        return 1;
    }
    sinpe__program_release(prog);
    sinpe__cache_discard(cache);
    return 0;
}

/*
 * Developers may replace the embedded kernels with the file named by
 * SINPE_KERNEL_SOURCE (the kernel files concatenated); the disk cache is
 * then bypassed, since its key describes the embedded source.
 */
static sinpe_status source_override(char **text, size_t *len)
{
    const char *path = getenv("SINPE_KERNEL_SOURCE");
    FILE *f;
    long n;
    *text = NULL;
    if (!path || !*path)
        return SINPE_SUCCESS;
    f = fopen(path, "rb");
    SINPE_CHECK(!f, SINPE_INVALID_OPTION, "SINPE_KERNEL_SOURCE \"%s\" cannot be read", path);
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(*text = malloc((size_t)n + 1)) || fread(*text, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(*text);
        *text = NULL;
        return sinpe__fail(SINPE_INVALID_OPTION, "SINPE_KERNEL_SOURCE \"%s\" cannot be read",
                           path);
    }
    fclose(f);
    (*text)[n] = '\0';
    *len = (size_t)n;
    return SINPE_SUCCESS;
}

sinpe_status sinpe__program_build(cl_context ctx, cl_device_id dev, sinpe_math math,
                                  const sinpe__tuning *tune, int disk_cache,
                                  sinpe__program *prog)
{
    const char *src = sinpe__kernel_source, *what = NULL;
    size_t len = (size_t)sinpe__kernel_source_len;
    char options[320], *override;
    sinpe__cache cache;
    cl_int err;
    sinpe_status st = SINPE_SUCCESS;

    memset(prog, 0, sizeof *prog);
    memset(&cache, 0, sizeof cache);
    SINPE_FORWARD(source_override(&override, &len));
    if (override) {
        src = override;
        disk_cache = 0;
    }
    /* Never -cl-fast-relaxed-math: the encoding's accuracy depends on IEEE rounding. */
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DSINPE_FP64=%d -DSINPE_STEP_SHIFT=%d -DSINPE_VEC=%u "
             "-DSINPE_TABLE_VEC=%u -DSINPE_SEQS=%u -DSINPE_ONE_PASS=%d -DSINPE_ROW_TILE=%u "
             "-DSINPE_ALIGNED_IO=%d -DSINPE_COL_BF16=%d -DSINPE_ROW=%d -DSINPE_STREAM=%d",
             math == SINPE_MATH_FP64 ? 1 : 0, SINPE_STEP_SHIFT, tune->vec, tune->table_vec,
             tune->seqs, tune->one_pass, tune->row_tile, tune->aligned, tune->col_bf16,
             tune->row, tune->stream != 0);
    if (disk_cache) {
        sinpe__cache_open(&cache, dev, options);
        if (load_cached(&cache, ctx, dev, options, tune, prog))
            goto done;
    }
    prog->program = clCreateProgramWithSource(ctx, 1, &src, &len, &err);
    if (err != CL_SUCCESS) {
        st = sinpe__cl_fail(err, "clCreateProgramWithSource");
        goto fail;
    }
    err = clBuildProgram(prog->program, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        st = build_failure(prog->program, dev, err);
        goto fail;
    }
    if ((err = make_kernels(dev, tune, prog, &what)) != CL_SUCCESS) {
        st = sinpe__cl_fail(err, what);
        goto fail;
    }
    sinpe__cache_store(&cache, prog->program, dev);
done:
    sinpe__cache_close(&cache);
    free(override);
    return SINPE_SUCCESS;
fail:
    sinpe__cache_close(&cache);
    sinpe__program_release(prog);
    free(override);
    return st;
}

void sinpe__program_release(sinpe__program *prog)
{
    for (int k = 0; k < SINPE_K_COUNT; k++)
        if (prog->kernels[k])
            clReleaseKernel(prog->kernels[k]);
    if (prog->program)
        clReleaseProgram(prog->program);
    memset(prog, 0, sizeof *prog);
}
