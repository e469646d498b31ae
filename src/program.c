/*
 * program.c -- builds the embedded kernel source once per context.
 */
#include "sinpe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[3] = {"f32", "f16", "bf16"};

/* The kernel function name of slot k, as the kernel files define it. */
static void kernel_name(int k, char *buf, size_t n)
{
    if (k == SINPE_K_TABLE_FILL)
        snprintf(buf, n, "sinpe_table_fill");
    else if (k == SINPE_K_MAKE_POS)
        snprintf(buf, n, "sinpe_make_positions");
    else if (k < SINPE_K_EMBED)
        snprintf(buf, n, "sinpe_timesteps_%s", dtype_names[k - SINPE_K_TIMESTEPS]);
    else if (k < SINPE_K_GATHER)
        snprintf(buf, n, "sinpe_embed_%s_%s", dtype_names[(k - SINPE_K_EMBED) / 3],
                 dtype_names[(k - SINPE_K_EMBED) % 3]);
    else if (k < SINPE_K_ADD)
        snprintf(buf, n, "sinpe_gather_%s_%s", dtype_names[(k - SINPE_K_GATHER) / 3],
                 dtype_names[(k - SINPE_K_GATHER) % 3]);
    else
        snprintf(buf, n, "sinpe_add_%s", dtype_names[k - SINPE_K_ADD]);
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

sinpe_status sinpe__program_build(cl_context ctx, cl_device_id dev, sinpe_math math,
                                  sinpe__program *prog)
{
    const char *src = sinpe__kernel_source;
    size_t len = (size_t)sinpe__kernel_source_len;
    char options[128];
    cl_int err;
    sinpe_status st = SINPE_SUCCESS;

    memset(prog, 0, sizeof *prog);
    /* Never -cl-fast-relaxed-math: the encoding's accuracy depends on IEEE rounding. */
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DSINPE_FP64=%d",
             math == SINPE_MATH_FP64 ? 1 : 0);
    prog->program = clCreateProgramWithSource(ctx, 1, &src, &len, &err);
    SINPE_CL_CHECK(err, "clCreateProgramWithSource");
    err = clBuildProgram(prog->program, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        st = build_failure(prog->program, dev, err);
        goto fail;
    }
    for (int k = 0; k < SINPE_K_COUNT; k++) {
        char name[64];
        kernel_name(k, name, sizeof name);
        prog->kernels[k] = clCreateKernel(prog->program, name, &err);
        if (err != CL_SUCCESS) {
            st = sinpe__cl_fail(err, "clCreateKernel");
            goto fail;
        }
        err = clGetKernelWorkGroupInfo(prog->kernels[k], dev, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof prog->wg[k], &prog->wg[k], NULL);
        if (err != CL_SUCCESS) {
            st = sinpe__cl_fail(err, "clGetKernelWorkGroupInfo");
            goto fail;
        }
    }
    return SINPE_SUCCESS;
fail:
    sinpe__program_release(prog);
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
