/* test_device_fn.c -- the device functions handed to hosts
 * (sinpe_device_source(), kernels/device.cl), built into a program of the
 * test's own:
 *   - their values equal, bit for bit, sinpe's table rows and sinpe's own
 *     kernels past the table (add_positions on a zero buffer), for every
 *     position preset, both math modes, positions from INT32_MIN to
 *     INT32_MAX (2^24 and its neighbours included), with the table read and
 *     without it (rows 0);
 *   - the accuracy bound of the header in terms of the angle, at
 *     angle_scale 1000 up to p = 2^24 - 1;
 *   - examples/prenorm.cl: the one-launch embedding + LayerNorm equals
 *     sinpe_enqueue_embed() followed by the same LayerNorm, bit for bit,
 *     and both meet float64 references;
 *   - the calls' bad arguments. */
#include "test_util.h"
#include "sinpe_internal.h" /* SINPE_STEP_SHIFT */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN_ROWS 200

static const char probe_src[] =
    "kernel void probe(global const float *table, int rows, global const float *consts,\n"
    "                  uint dim, global const int *pos, global float *one, global float *run)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    int p = pos[i];\n"
    "    for (uint c = 0; c < dim; c++)\n"
    "        one[i * dim + c] = sinpe_pe_value(table, rows, consts, dim, p, c);\n"
    "    float buf[5];\n"
    "    for (uint c = 0; c < dim; c += 5) {\n"
    "        uint n = min(5u, dim - c);\n"
    "        sinpe_pe_run(table, rows, consts, dim, p, c, n, buf);\n"
    "        for (uint j = 0; j < n; j++)\n"
    "            run[i * dim + c + j] = buf[j];\n"
    "    }\n"
    "}\n";

/* The probe's values (one and run, npos x dim each) for table, reading
   its rows or (use_rows 0) none. */
static void probe(sinpe_context *ctx, cl_command_queue q, cl_program prog, sinpe_table *tab,
                  int use_rows, const int32_t *pos, size_t npos, float *one, float *run)
{
    cl_int err;
    cl_mem table_m, consts_m;
    size_t rows;
    TU_OK(sinpe_table_borrow(tab, &table_m, &rows));
    TU_OK(sinpe_table_constants(tab, &consts_m));
    cl_uint dim = (cl_uint)sinpe_table_spec(tab).dim;
    cl_int nrows = use_rows ? (cl_int)rows : 0;
    size_t bytes = npos * dim * sizeof(float);
    cl_mem pos_m = tu_buffer(ctx, npos * sizeof *pos, pos);
    cl_mem one_m = tu_poisoned_buffer(ctx, q, npos * dim);
    cl_mem run_m = tu_poisoned_buffer(ctx, q, npos * dim);
    cl_kernel k = clCreateKernel(prog, "probe", &err);
    TU_CL(err);
    const void *vals[] = {&table_m, &nrows, &consts_m, &dim, &pos_m, &one_m, &run_m};
    const size_t sizes[] = {sizeof(cl_mem), sizeof nrows, sizeof(cl_mem), sizeof dim,
                            sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem)};
    tu_kernel_args(k, 7, vals, sizes);
    TU_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &npos, NULL, 0, NULL, NULL));
    tu_read(q, one_m, 0, bytes, one);
    tu_read(q, run_m, 0, bytes, run);
    clReleaseKernel(k);
    TU_RELEASE(NULL, NULL, NULL, pos_m, one_m, run_m, table_m, consts_m);
}

/* sinpe's own values at pos: add_positions on zeros (table rows or on the fly). */
static void sinpe_values(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab,
                         const int32_t *pos, size_t npos, float *out)
{
    size_t dim = sinpe_table_spec(tab).dim;
    cl_mem out_m = tu_zero_buffer(ctx, npos * dim);
    cl_mem pos_m = tu_buffer(ctx, npos * sizeof *pos, pos);
    sinpe_embed_args a = tu_args(npos, 1, NULL, NULL, 0, out_m);
    a.positions = pos_m;
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
    tu_read(q, out_m, 0, npos * dim * sizeof *out, out);
    TU_RELEASE(NULL, NULL, NULL, out_m, pos_m);
}

static int same(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (a == 0.0f && b == 0.0f);
}

START_TEST(device_fn_bits)
{
    /* _i: the six position presets x (float, fp64 math). */
    sinpe_preset preset = (sinpe_preset)(SINPE_PRESET_VASWANI + _i % 6);
    sinpe_math math = _i < 6 ? SINPE_MATH_FLOAT : SINPE_MATH_FP64;
    sinpe_context *ctx = tu_context(math);
    cl_command_queue q = tu_queue(ctx);
    size_t dim = preset == SINPE_PRESET_OPENNMT || preset == SINPE_PRESET_WHISPER ? 48 : 45;
    char name[64];
    snprintf(name, sizeof name, "device fn %s %s", sinpe_preset_name(preset),
             math == SINPE_MATH_FLOAT ? "float" : "fp64");
    tu_rng rng = tu_rng_for(name);
    sinpe_table *tab = tu_preset_table(ctx, preset, dim, FN_ROWS, NULL);

    enum { FIXED = 17, NPOS = FIXED + 40 };
    int32_t pos[NPOS] = {0,   1,    FN_ROWS - 1, FN_ROWS, 127,       128,       129,
                         -1,  -128, -129,        1 << 24, (1 << 24) - 1, (1 << 24) + 1,
                         -(1 << 24), INT32_MAX, INT32_MIN, 3 << 20};
    for (int i = FIXED; i < NPOS; i++)
        pos[i] = tu_rng_int(&rng, -(1 << 24), 1 << 24);
    float *want = tu_malloc(NPOS * dim * sizeof *want);
    float *one = tu_malloc(NPOS * dim * sizeof *one), *run = tu_malloc(NPOS * dim * sizeof *run);
    float *row = tu_malloc(dim * sizeof *row);
    sinpe_values(ctx, q, tab, pos, NPOS, want);
    cl_program prog = tu_device_program(ctx, probe_src, "-cl-std=CL1.2", "device functions");

    for (int use_rows = 1; use_rows >= 0; use_rows--) {
        probe(ctx, q, prog, tab, use_rows, pos, NPOS, one, run);
        for (size_t i = 0; i < NPOS; i++)
            for (size_t c = 0; c < dim; c++) {
                size_t e = i * dim + c;
                TU_CHECK(same(one[e], want[e]) && same(run[e], want[e]),
                         "%s (rows %s): p %d col %zu: value %a, run %a, sinpe %a", name,
                         use_rows ? "read" : "0", (int)pos[i], c, (double)one[e],
                         (double)run[e], (double)want[e]);
            }
    }
    /* The table itself, for the positions it holds. */
    cl_mem table_m;
    size_t rows;
    TU_OK(sinpe_table_borrow(tab, &table_m, &rows));
    for (size_t i = 0; i < NPOS; i++) {
        if (pos[i] < 0 || (size_t)pos[i] >= rows)
            continue;
        tu_read(q, table_m, (size_t)pos[i] * dim * sizeof *row, dim * sizeof *row, row);
        for (size_t c = 0; c < dim; c++)
            ck_assert_msg(same(row[c], want[i * dim + c]), "%s: table row %d col %zu", name,
                          (int)pos[i], c);
    }
    clReleaseProgram(prog);
    TU_FREE(want, one, run, row);
    TU_RELEASE(ctx, q, tab, table_m);
}
END_TEST

START_TEST(device_fn_angle_bound)
{
    /* |error| <= 1.5e-7 + 2^-53 |p w| (include/sinpe.h), at angle_scale
       1000: angles up to 1.7e10 rad. */
    enum { DIM = 64, NPOS = 24 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("device fn angle bound");
    sinpe_spec spec = tu_spec(DIM, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 1e4, 1000.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, 16);
    int32_t pos[NPOS] = {(1 << 24) - 1, (1 << 24) - 2, (1 << 23) + 5, 1000003};
    for (int i = 4; i < NPOS; i++)
        pos[i] = tu_rng_int(&rng, 1 << 20, (1 << 24) - 1);
    float *one = tu_malloc(NPOS * DIM * sizeof *one), *run = tu_malloc(NPOS * DIM * sizeof *run);
    cl_program prog = tu_device_program(ctx, probe_src, "-cl-std=CL1.2", "device functions");
    probe(ctx, q, prog, tab, 1, pos, NPOS, one, run);
    double ref[DIM], worst = 0.0;
    for (int i = 0; i < NPOS; i++) {
        tu_pe_row(&spec, pos[i], ref);
        for (int c = 0; c < DIM; c++) {
            double w = spec.angle_scale * pow(spec.base, -(double)(c / 2) / (DIM / 2));
            double bound = 1.5e-7 + ldexp(fabs((double)pos[i] * w), -53);
            double err = fabs((double)one[i * DIM + c] - ref[c]);
            ck_assert_msg(err <= bound, "p %d col %d: error %.3g over the bound %.3g", (int)pos[i],
                          c, err, bound);
            if (err / bound > worst)
                worst = err / bound;
        }
    }
    ck_assert_msg(worst > 0.0, "no error at all: the reference is suspect");
    clReleaseProgram(prog);
    TU_FREE(one, run);
    tu_release(ctx, q, tab, NULL, 0);
}
END_TEST

START_TEST(device_fn_source_args)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    size_t len = 0;
    char small[8];
    TU_STATUS(sinpe_device_source(NULL, NULL, 0, &len), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_device_source(ctx, NULL, 0, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_device_source(ctx, NULL, 16, &len), SINPE_NULL_ARGUMENT);
    TU_OK(sinpe_device_source(ctx, NULL, 0, &len));
    ck_assert_uint_gt(len, 1000);
    memset(small, 'x', sizeof small);
    TU_STATUS(sinpe_device_source(ctx, small, sizeof small, &len), SINPE_BUFFER_TOO_SMALL);
    TU_MESSAGE_HAS("dst_size");
    for (size_t i = 0; i < sizeof small; i++)
        ck_assert_int_eq(small[i], 'x');
    char *text = tu_malloc(len + 1);
    TU_STATUS(sinpe_device_source(ctx, text, len, &len), SINPE_BUFFER_TOO_SMALL);
    TU_OK(sinpe_device_source(ctx, text, len + 1, &len));
    char head[64];
    snprintf(head, sizeof head, "#define SINPE_STEP_SHIFT %d\n", SINPE_STEP_SHIFT);
    ck_assert_msg(strstr(text, head) != NULL, "no %s in the source", head);
    ck_assert_ptr_nonnull(strstr(text, "sinpe_pe_value("));
    ck_assert_ptr_nonnull(strstr(text, "sinpe_pe_run("));
    free(text);

    cl_mem consts = NULL;
    TU_STATUS(sinpe_table_constants(NULL, &consts), SINPE_NULL_ARGUMENT);
    ck_assert_ptr_null(consts);
    sinpe_table *tab = tu_table(ctx, 8, 4);
    TU_STATUS(sinpe_table_constants(tab, NULL), SINPE_NULL_ARGUMENT);
    TU_OK(sinpe_table_constants(tab, &consts));
    ck_assert_ptr_nonnull(consts);
    TU_RELEASE(ctx, NULL, tab, consts);
}
END_TEST

TCase *tcase_device_fn(void)
{
    TCase *tc = tu_tcase(NULL, "device functions", NULL); /* suite_device adds it */
    tcase_add_loop_test(tc, device_fn_bits, 0, 12);
    TU_ADD(tc, device_fn_angle_bound, device_fn_source_args);
    return tc;
}
