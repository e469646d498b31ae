/* test_prenorm.c -- examples/prenorm.cl, the host's one-launch embedding +
 * LayerNorm built on sinpe's device functions, against sinpe_enqueue_embed()
 * followed by the example's own LayerNorm kernel: the pre-norm sums equal
 * bit for bit, and so do the normalised outputs; the sums also meet the
 * float64 reference (TU_EMBED_TOL) and the outputs a float64 LayerNorm of
 * the reference (within 2e-5 relative to the row's scale).  Positions run
 * past the table's rows (computed on the fly) and up to 2^24. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { GROUP = 64, NS = 3, SL = 11, N = NS * SL, V = 50 };

static void run_kernel(cl_command_queue q, cl_kernel k, size_t dim)
{
    size_t global = N * GROUP, local = GROUP;
    cl_uint nargs;
    TU_CL(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
    TU_CL(clSetKernelArg(k, nargs - 2, dim * sizeof(float), NULL));
    TU_CL(clSetKernelArg(k, nargs - 1, GROUP * sizeof(float), NULL));
    TU_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
}

START_TEST(prenorm_matches_sinpe)
{
    /* _i: the spec (VASWANI d 96, TENSOR2TENSOR d 77). */
    sinpe_preset preset = _i == 0 ? SINPE_PRESET_VASWANI : SINPE_PRESET_TENSOR2TENSOR;
    size_t dim = _i == 0 ? 96 : 77;
    const float eps = 1e-5f, scale = sqrtf((float)dim);
    char name[64];
    snprintf(name, sizeof name, "prenorm %s d%zu", sinpe_preset_name(preset), dim);
    tu_rng rng = tu_rng_for(name);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_spec spec;
    sinpe_table *tab = tu_preset_table(ctx, preset, dim, 32, &spec);

    /* The program: sinpe's functions, then the example. */
    char *example = tu_read_text("examples/prenorm.cl");
    ck_assert_msg(example != NULL, "examples/prenorm.cl not found");
    char opts[64];
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DPRENORM_GROUP=%d", GROUP);
    cl_program prog = tu_device_program(ctx, example, opts, "examples/prenorm.cl");
    cl_int err;

    float *E = tu_malloc(V * dim * sizeof *E), *gamma = tu_malloc(dim * sizeof *gamma);
    float *beta = tu_malloc(dim * sizeof *beta);
    tu_rng_floats(&rng, E, V * dim, -0.1f, 0.1f);
    for (size_t c = 0; c < dim; c++) {
        gamma[c] = tu_rng_float(&rng, 0.5f, 1.5f);
        beta[c] = tu_rng_float(&rng, -0.2f, 0.2f);
    }
    int32_t ids[N], pos[N];
    for (int r = 0; r < N; r++) {
        ids[r] = tu_rng_int(&rng, 0, V - 1);
        pos[r] = r % 4 == 0 ? tu_rng_int(&rng, 0, 31)
                 : r % 4 == 1 ? tu_rng_int(&rng, 32, 1 << 24)
                 : r % 4 == 2 ? (1 << 24) - r
                              : tu_rng_int(&rng, 0, 4000);
    }
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), pos_m = tu_buffer(ctx, sizeof pos, pos);
    cl_mem E_m = tu_buffer(ctx, V * dim * sizeof *E, E);
    cl_mem g_m = tu_buffer(ctx, dim * sizeof *gamma, gamma);
    cl_mem b_m = tu_buffer(ctx, dim * sizeof *beta, beta);
    cl_mem x1 = tu_poisoned_buffer(ctx, q, N * dim), y1 = tu_poisoned_buffer(ctx, q, N * dim);
    cl_mem x2 = tu_poisoned_buffer(ctx, q, N * dim), y2 = tu_poisoned_buffer(ctx, q, N * dim);
    cl_mem table_m, consts_m;
    size_t rows;
    TU_OK(sinpe_table_borrow(tab, &table_m, &rows));
    TU_OK(sinpe_table_constants(tab, &consts_m));
    cl_int nrows = (cl_int)rows;
    cl_uint udim = (cl_uint)dim;

    /* 1: the host's one launch. */
    cl_kernel fused = clCreateKernel(prog, "prenorm_embed_ln", &err);
    TU_CL(err);
    const void *fv[] = {&ids_m, &pos_m, &E_m, &scale, &table_m, &nrows, &consts_m, &udim,
                        &g_m,   &b_m,   &eps, &x1,    &y1};
    const size_t fs[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof scale,
                         sizeof(cl_mem), sizeof nrows,   sizeof(cl_mem), sizeof udim,
                         sizeof(cl_mem), sizeof(cl_mem), sizeof eps,     sizeof(cl_mem),
                         sizeof(cl_mem)};
    tu_kernel_args(fused, 13, fv, fs);
    run_kernel(q, fused, dim);
    /* 2: sinpe's fused call, then the example's LayerNorm alone. */
    sinpe_embed_args a = tu_args(NS, SL, ids_m, E_m, V, x2);
    a.positions = pos_m, a.token_scale = scale;
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    cl_kernel ln = clCreateKernel(prog, "prenorm_ln", &err);
    TU_CL(err);
    const void *lv[] = {&x2, &udim, &g_m, &b_m, &eps, &y2};
    const size_t ls[] = {sizeof(cl_mem), sizeof udim, sizeof(cl_mem),
                         sizeof(cl_mem), sizeof eps,  sizeof(cl_mem)};
    tu_kernel_args(ln, 6, lv, ls);
    run_kernel(q, ln, dim);
    TU_CL(clFinish(q));

    float *hx1 = tu_read_floats(q, x1, N * dim), *hy1 = tu_read_floats(q, y1, N * dim);
    float *hx2 = tu_read_floats(q, x2, N * dim), *hy2 = tu_read_floats(q, y2, N * dim);
    double *ref = tu_malloc(N * dim * sizeof *ref);
    tu_ref_embed(&spec, NS, SL, ids, E, 0, dim, V, scale, 0, pos, 1, 1, ref);
    tu_check_rows(hx1, 0, dim, N, dim, ref, TU_EMBED_TOL, TU_EMBED_TOL, name);
    for (size_t r = 0; r < N; r++) {
        double mean = 0.0, var = 0.0;
        for (size_t c = 0; c < dim; c++)
            mean += ref[r * dim + c];
        mean /= (double)dim;
        for (size_t c = 0; c < dim; c++)
            var += (ref[r * dim + c] - mean) * (ref[r * dim + c] - mean);
        double inv = 1.0 / sqrt(var / (double)dim + eps);
        for (size_t c = 0; c < dim; c++) {
            size_t e = r * dim + c;
            double want = (ref[e] - mean) * inv * gamma[c] + beta[c];
            TU_CHECK(tu_same_bits(hx1[e], hx2[e]),
                     "%s: token %zu (p %d) col %zu: pre-norm sum %a here, %a from sinpe",
                     name, r, (int)pos[r], c, (double)hx1[e], (double)hx2[e]);
            TU_CHECK(tu_same_bits(hy1[e], hy2[e]),
                     "%s: token %zu col %zu: LayerNorm %a here, %a after sinpe", name, r,
                     c, (double)hy1[e], (double)hy2[e]);
            TU_CHECK(fabs(hy1[e] - want) <= 2e-5 * (fabs(gamma[c]) * 4.0 + 1.0),
                     "%s: token %zu col %zu: LayerNorm %.9g, float64 %.9g", name, r, c,
                     (double)hy1[e], want);
        }
    }

    TU_FREE(hx1, hy1, hx2, hy2, ref, E, gamma, beta, example);
    clReleaseKernel(fused);
    clReleaseKernel(ln);
    clReleaseProgram(prog);
    TU_RELEASE(ctx, q, tab, ids_m, pos_m, E_m, g_m, b_m, x1, y1, x2, y2, table_m, consts_m);
}
END_TEST

TU_SUITE(device, 46)
{
    Suite *s = suite_create("device");
    suite_add_tcase(s, tcase_device_fn());
    suite_add_tcase(s, tcase_record());
    tcase_add_loop_test(tu_tcase(s, "prenorm", NULL), prenorm_matches_sinpe, 0, 2);
    return s;
}
