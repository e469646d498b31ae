/*
 * test_grid.c -- the 2-D sincos encoding of a patch grid.
 *
 * Each value against the header's formula: the float32 position formed on
 * the host (IEEE division, as diffusers forms it), sin or cos of it times
 * the MAE frequencies in long double, within the header's bound; the add
 * equal bit for bit to out + the written encoding rounded once; poisoned
 * outputs, every element checked; grids square and not, fractional
 * positions (base_size, interpolation_scale), SD3's centre crop, class
 * tokens, batches, strides, every output type; video grids (CogVideoX's
 * 3-D layout: a frame table's encoding first).  Bad arguments: their exact
 * status with nothing written.
 */
#include "test_util.h"
#include "family_ref.h"
#include "sinpe_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t D, rows, cols, extra, n_seqs, max_size, pad;
    double base, interp;
    sinpe_dtype dt;
    size_t frames, Dt; /* video: frames and the frame table's width (0: 2-D) */
    double tinterp;
} gcase;

static const gcase cases[] = {
    {64, 16, 16, 0, 1, 0, 0, 0.0, 1.0, SINPE_F32, 0, 0, 1.0},   /* MAE: integer positions */
    {96, 8, 8, 1, 2, 0, 5, 4.0, 2.0, SINPE_F32, 0, 0, 1.0}, /* DiT-like: fractional, a class token */
    {48, 6, 10, 0, 1, 0, 0, 8.0, 1.0, SINPE_F16, 0, 0, 1.0}, /* not square: each axis its own scale */
    {64, 10, 14, 0, 1, 24, 3, 8.0, 1.0, SINPE_BF16, 0, 0, 1.0}, /* SD3: crop of 24 x 24 */
    {32, 3, 5, 2, 3, 7, 0, 3.0, 0.75, SINPE_F32, 0, 0, 1.0},
    {144, 5, 7, 3, 2, 0, 1, 0.0, 1.875, SINPE_F32, 4, 48, 1.0}, /* CogVideoX-2b's scales */
    {96, 4, 3, 0, 1, 0, 0, 0.0, 1.0, SINPE_BF16, 6, 32, 2.0},   /* 16 columns cross the parts */
};

/* diffusers' float32 position of grid index n. */
static float position(size_t n, size_t G, double base, double interp)
{
    volatile float s1 = (float)(base > 0.0 ? (double)G / base : 1.0), s2 = (float)interp;
    volatile float q = (float)n / s1;
    return q / s2;
}

/* The encoding of a's grid written in F32 with a's offsets, total floats. */
static float *got32(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab,
                    const sinpe_grid_args *a, size_t total)
{
    sinpe_grid_args b = *a;
    b.dtype = SINPE_F32, b.add = 0, b.out = tu_poisoned_buffer(ctx, q, total);
    TU_OK(sinpe_enqueue_grid(tab, q, &b, 0, NULL, NULL));
    float *v = tu_read_floats(q, b.out, total);
    clReleaseMemObject(b.out);
    return v;
}

/* Case c's tables in ctx (ft NULL for a 2-D grid) and its arguments into
   out from element 2 on; its tokens' rows' stride in *stride, the
   elements out needs in *total. */
static void case_args(sinpe_context *ctx, const gcase *c, sinpe_table **tab, sinpe_table **ft,
                      sinpe_grid_args *a, size_t *stride, size_t *total)
{
    size_t frames = c->frames ? c->frames : 1;
    size_t n = c->n_seqs * (c->extra + frames * c->rows * c->cols);
    sinpe_spec spec;
    *stride = c->Dt + c->D + c->pad, *total = 2 + n * *stride;
    TU_OK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, c->D / 2));
    *tab = *ft = NULL;
    TU_OK(sinpe_table_create(ctx, &spec, 16, tab));
    if (c->Dt) {
        TU_OK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, c->Dt));
        TU_OK(sinpe_table_create(ctx, &spec, 0, ft));
    }
    sinpe_grid_args_init(a);
    ck_assert(a->interpolation_scale == 1.0 && a->frame_interpolation_scale == 1.0 &&
              a->dtype == SINPE_F32 && !a->add && !a->frames && !a->frame_table);
    a->n_seqs = c->n_seqs, a->rows = c->rows, a->cols = c->cols, a->extra_tokens = c->extra;
    a->base_size = c->base, a->interpolation_scale = c->interp, a->max_size = c->max_size;
    a->dtype = c->dt, a->out_offset = 2, a->out_stride = c->pad ? *stride : 0;
    a->frames = c->frames, a->frame_table = *ft, a->frame_interpolation_scale = c->tinterp;
}

START_TEST(grid_values_and_add)
{
    const gcase *c = &cases[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("grid");
    size_t d = c->D / 2, frames = c->frames ? c->frames : 1, W = c->Dt + c->D;
    size_t per = c->extra + frames * c->rows * c->cols, n = c->n_seqs * per;
    size_t stride, e = fr_dtype_size(c->dt), total;
    sinpe_table *tab, *ft;
    sinpe_grid_args a;
    case_args(ctx, c, &tab, &ft, &a, &stride, &total);
    size_t words = (total * e + 3) / 4;
    cl_mem out = tu_poisoned_buffer(ctx, q, words);
    a.out = out;
    TU_OK(sinpe_enqueue_grid(tab, q, &a, 0, NULL, NULL));
    unsigned char *got = tu_malloc(words * 4), *want = tu_malloc(words * 4);
    tu_read(q, out, 0, words * 4, got);
    tu_fill_poison((float *)(void *)want, words);
    size_t Gr = c->max_size ? c->max_size : c->rows, Gc = c->max_size ? c->max_size : c->cols;
    for (size_t r = 0; r < n; r++) {
        size_t t = r % per, g = t - c->extra, f = g / (c->rows * c->cols);
        g %= c->rows * c->cols;
        for (size_t cw = 0; cw < W; cw++) {
            size_t col = cw - c->Dt, i = 2 + r * stride + cw;
            if (t < c->extra) {
                TU_CHECK(fr_load(got, i, c->dt) == 0.0f, "case %d token %zu col %zu: %g", _i, r,
                         cw, (double)fr_load(got, i, c->dt));
                memcpy(want + i * e, got + i * e, e);
                continue;
            }
            /* the part: the frame's (width Dt), the column's, the row's (d) */
            int part = cw < c->Dt ? 0 : col < d ? 1 : 2;
            size_t h = part == 0 ? c->Dt / 2 : d / 2, in = part == 0 ? cw : part == 1 ? col : col - d;
            volatile float fz = (float)f, ts = (float)c->tinterp;
            float x = part == 0 ? fz / ts
                    : part == 1 ? position(g % c->cols + (Gc - c->cols) / 2, Gc, c->base, c->interp)
                                : position(g / c->cols + (Gr - c->rows) / 2, Gr, c->base, c->interp);
            long double w = powl(10000.0L, -(long double)(in % h) / (long double)h);
            long double ang = (long double)x * w;
            double ref = (double)(in < h ? sinl(ang) : cosl(ang));
            double tol = 1.5e-7 + ldexp(fabs((double)ang), -53) +
                         (c->dt == SINPE_F16 ? ldexp(1.0, -11) : c->dt == SINPE_BF16 ? ldexp(1.0, -8) : 0.0);
            float v = fr_load(got, i, c->dt);
            TU_CHECK(fabs((double)v - ref) <= tol, "case %d token %zu col %zu (x %a): %.9g, want %.12g",
                     _i, r, cw, (double)x, (double)v, ref);
            memcpy(want + i * e, got + i * e, e);
        }
    }
    ck_assert_msg(!memcmp(got, want, words * 4), "case %d: written outside the rows", _i);

    /* The encoding in F32: the 16-bit one is it rounded once, and the add
       onto random values is out + it, rounded once. */
    float *v32 = got32(ctx, q, tab, &a, total);
    for (size_t r = 0; c->dt != SINPE_F32 && r < n; r++)
        for (size_t col = 0; col < W; col++) {
            size_t i = 2 + r * stride + col;
            unsigned char one[4];
            fr_store(one, 0, c->dt, v32[i]);
            TU_CHECK(!memcmp(one, got + i * e, e), "case %d element %zu: not F32's rounded", _i,
                     i);
        }
    unsigned char *base = tu_malloc(words * 4), *sum = tu_malloc(words * 4);
    for (size_t i = 0; i < total; i++)
        fr_store(base, i, c->dt, tu_rng_float(&rng, -3.0f, 3.0f));
    memcpy(want, base, words * 4);
    for (size_t r = 0; r < n; r++)
        for (size_t col = 0; r % per >= c->extra && col < W; col++) {
            size_t i = 2 + r * stride + col;
            fr_store(want, i, c->dt, fr_load(base, i, c->dt) + v32[i]);
        }
    tu_write(q, out, 0, words * 4, base);
    a.add = 1;
    TU_OK(sinpe_enqueue_grid(tab, q, &a, 0, NULL, NULL));
    tu_read(q, out, 0, words * 4, sum);
    for (size_t i = 0; i < total; i++)
        TU_CHECK(!memcmp(sum + i * e, want + i * e, e), "case %d add: element %zu %g, want %g",
                 _i, i, (double)fr_load(sum, i, c->dt), (double)fr_load(want, i, c->dt));
    TU_FREE(got, want, base, sum, v32);
    sinpe_table_release(ft);
    TU_RELEASE(ctx, q, tab, out);
}
END_TEST

/* SINPE_TUNING set to the run's record (run, may be NULL) and then more,
   as a user adds lines. */
static void tuning_after(const char *run, const char *more)
{
    size_t len = (run ? strlen(run) : 0) + strlen(more) + 3;
    char *text = tu_malloc(len);
    snprintf(text, len, "%s%s%s", run ? run : "", run && *run ? "; " : "", more);
    ck_assert_int_eq(setenv("SINPE_TUNING", text, 1), 0);
    free(text);
}

/* Case c written, then added onto the same random values, under the
   run's record with grid_span = span, set as a user sets it (SINPE_TUNING,
   after what the run put there): the two outputs' bytes, one after the
   other, each *bytes long. */
static unsigned char *grid_under(const gcase *c, const char *run, const char *span, size_t *bytes)
{
    char want[64];
    snprintf(want, sizeof want, "grid_span = %s", span);
    tuning_after(run, want);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    snprintf(want, sizeof want, "; grid_span=%s", span);
    ck_assert_msg(strstr(sinpe_context_tuning(ctx), want), "%s lacks %s",
                  sinpe_context_tuning(ctx), want);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("grid_span");
    size_t stride, total;
    sinpe_table *tab, *ft;
    sinpe_grid_args a;
    case_args(ctx, c, &tab, &ft, &a, &stride, &total);
    size_t n = (total * fr_dtype_size(c->dt) + 3) / 4 * 4;
    unsigned char *got = tu_malloc(2 * n);
    a.out = tu_poisoned_buffer(ctx, q, n / 4);
    TU_OK(sinpe_enqueue_grid(tab, q, &a, 0, NULL, NULL));
    tu_read(q, a.out, 0, n, got);
    for (size_t i = 0; i < total; i++)
        fr_store(got + n, i, c->dt, tu_rng_float(&rng, -3.0f, 3.0f));
    tu_write(q, a.out, 0, n, got + n);
    a.add = 1;
    TU_OK(sinpe_enqueue_grid(tab, q, &a, 0, NULL, NULL));
    tu_read(q, a.out, 0, n, got + n);
    *bytes = n;
    sinpe_table_release(ft);
    TU_RELEASE(ctx, q, tab, a.out);
    return got;
}

/* The record's grid_span changes the work shape, never a bit of the
   output: a column, then sixteen, per work-item, against whole rows, and
   whole rows through an image's table (a batch's cases). */
START_TEST(grid_span_same_bits)
{
    static const char *const env[] = {"SINPE_TUNING"}, *const spans[] = {"rows", "image"};
    const gcase *c = &cases[_i];
    char *saved[1];
    size_t half;
    tu_env_save(env, 1, saved);
    unsigned char *cols = grid_under(c, saved[0], "columns", &half);
    for (int s = 0; s < 2; s++) {
        unsigned char *other = grid_under(c, saved[0], spans[s], &half);
        for (size_t i = 0; i < 2 * half; i++)
            TU_CHECK(cols[i] == other[i], "case %d %s byte %zu: columns %u, %s %u", _i,
                     i < half ? "write" : "add", i % half, cols[i], spans[s], other[i]);
        free(other);
    }
    free(cols);
    tu_env_restore(env, 1, saved);
}
END_TEST

/* The bytes b writes into a fresh poisoned buffer of total elements
   through tab, or (tab NULL) through a new table of c's in ctx beside a
   new frame table of c's with base frame_base (0: the preset's). */
static unsigned char *grid_bytes(sinpe_context *ctx, cl_command_queue q, const gcase *c,
                                 sinpe_table *tab, sinpe_grid_args b, double frame_base,
                                 size_t total)
{
    size_t n = (total * fr_dtype_size(c->dt) + 3) / 4 * 4, stride, all;
    sinpe_grid_args own;
    sinpe_table *t = tab, *ft = NULL;
    if (!tab) {
        case_args(ctx, c, &t, &ft, &own, &stride, &all);
        if (ft && frame_base > 0.0) {
            sinpe_spec spec = ft->spec;
            spec.base = frame_base;
            sinpe_table_release(ft);
            TU_OK(sinpe_table_create(ctx, &spec, 0, &ft));
        }
        b.frame_table = ft;
    }
    b.out = tu_poisoned_buffer(ctx, q, n / 4);
    TU_OK(sinpe_enqueue_grid(t, q, &b, 0, NULL, NULL));
    unsigned char *v = tu_malloc(n);
    tu_read(q, b.out, 0, n, v);
    clReleaseMemObject(b.out);
    if (!tab)
        sinpe_table_release(t);
    sinpe_table_release(ft);
    return v;
}

/* A batch's image table (under a record that writes one: grid_span =
   image, a table of up to 1 MiB) stays in the table for the next call of
   the same grid, and only for it: calls of other grids (scale, crop, frame table,
   a single image's half-rows over the kept table) in between, each equal
   to the same call through new tables of another context (a context
   shares its tables: creating c's table again in ctx returns tab). */
START_TEST(grid_image_kept)
{
    static const char *const env[] = {"SINPE_TUNING"};
    const gcase *c = &cases[_i ? 5 : 1];
    char *saved[1];
    tu_env_save(env, 1, saved);
    tuning_after(saved[0], "grid_span = image; grid_image_bytes = 1048576");
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO), *fresh = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx), fq = tu_queue(fresh);
    size_t stride, total;
    sinpe_table *tab, *ft, *ft2 = NULL;
    sinpe_grid_args a;
    case_args(ctx, c, &tab, &ft, &a, &stride, &total);
    if (ft) {
        sinpe_spec spec = ft->spec;
        spec.base = 100.0;
        TU_OK(sinpe_table_create(ctx, &spec, 0, &ft2));
    }
    enum { SAME, SCALE, CROP, ONE, FRAMES, N_OTHER };
    for (int k = 0; k < 2 * N_OTHER; k++) {
        sinpe_grid_args b = a;
        int other = k % 2 ? k / 2 : SAME;
        if (other == SCALE)
            b.interpolation_scale = 1.5;
        if (other == CROP)
            b.max_size = c->rows + 4;
        if (other == ONE) /* a larger grid: its half-rows cover the kept table */
            b.n_seqs = 1, b.rows = b.cols = 3 * c->rows;
        if (other == FRAMES && !ft2)
            continue;
        if (other == FRAMES)
            b.frame_table = ft2;
        size_t frames = c->frames ? c->frames : 1;
        total = 2 + b.n_seqs * (c->extra + frames * b.rows * b.cols) * stride;
        unsigned char *got = grid_bytes(ctx, q, c, tab, b, 0.0, total);
        unsigned char *want = grid_bytes(fresh, fq, c, NULL, b, other == FRAMES ? 100.0 : 0.0,
                                         total);
        size_t n = (total * fr_dtype_size(c->dt) + 3) / 4 * 4;
        for (size_t i = 0; i < n; i++)
            TU_CHECK(got[i] == want[i], "case %d call %d byte %zu: %u, new tables %u", _i, k, i,
                     got[i], want[i]);
        /* what the table keeps: a batch's image, not a single image's half-rows */
        ck_assert_msg(!tab->scratch_key_bytes[0] == (other == ONE), "call %d: key bytes %zu", k,
                      tab->scratch_key_bytes[0]);
        TU_FREE(got, want);
    }
    sinpe_table_release(ft);
    sinpe_table_release(ft2);
    clReleaseCommandQueue(fq);
    sinpe_context_release(fresh);
    TU_RELEASE(ctx, q, tab);
    tu_env_restore(env, 1, saved);
}
END_TEST

START_TEST(grid_bad_args)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, 16, 8), *rope = NULL;
    sinpe_rope_spec rs;
    sinpe_rope_spec_init(&rs, 16);
    TU_OK(sinpe_rope_table_create(ctx, &rs, 8, &rope));
    cl_mem out = tu_poisoned_buffer(ctx, q, 4 * 4 * 32), small = tu_poisoned_buffer(ctx, q, 31);
    sinpe_context *other = tu_context(SINPE_MATH_AUTO);
    sinpe_table *other_tab = tu_table(other, 16, 8);
    float *before = tu_read_floats(q, out, 4 * 4 * 32);
    sinpe_grid_args good;
    sinpe_grid_args_init(&good);
    good.n_seqs = 1, good.rows = 4, good.cols = 4, good.out = out;
    static const struct {
        sinpe_status want;
        const char *names;
    } bad[] = {
        {SINPE_INVALID_SHAPE, "rows"},          {SINPE_INVALID_SHAPE, "n_seqs"},
        {SINPE_INVALID_SHAPE, "max_size"},      {SINPE_INVALID_OPTION, "base_size"},
        {SINPE_INVALID_OPTION, "interpolation_scale"}, {SINPE_BUFFER_TOO_SMALL, "out"},
        {SINPE_NULL_ARGUMENT, "args->out"},     {SINPE_INVALID_SPEC, "rotary"},
        {SINPE_INVALID_DTYPE, "out_dtype"},     {SINPE_INVALID_SHAPE, "out_stride"},
        {SINPE_INVALID_OPTION, "base_size"},    {SINPE_NULL_ARGUMENT, "args"},
        {SINPE_NULL_ARGUMENT, "frame_table"},   {SINPE_INVALID_SPEC, "args->frame_table"},
        {SINPE_CONTEXT_MISMATCH, "frame_table"}, {SINPE_INVALID_OPTION, "frame_interpolation_scale"},
        {SINPE_INVALID_SHAPE, "frames"},        {SINPE_BUFFER_TOO_SMALL, "out"},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        sinpe_grid_args b = good;
        sinpe_table *t = tab;
        const sinpe_grid_args *bp = &b;
        switch (i) {
        case 0: b.rows = 0; break;
        case 1: b.n_seqs = 0; break;
        case 2: b.max_size = 3; break;
        case 3: b.base_size = NAN; break;
        case 4: b.interpolation_scale = 0.0; break;
        case 5: b.out = small; break;
        case 6: b.out = NULL; break;
        case 7: t = rope; break;
        case 8: b.dtype = SINPE_I8; break;
        case 9: b.out_stride = 31; break;
        case 10: b.base_size = 1e-300; break; /* 4 / base_size overflows float32 */
        case 11: bp = NULL; break;
        case 12: b.frames = 2; break;
        case 13: b.frame_table = rope; break;
        case 14: b.frame_table = other_tab; break;
        case 15: b.frame_table = tab, b.frame_interpolation_scale = -1.0; break;
        case 16: b.frame_table = tab, b.frames = (size_t)1 << 28; break;
        case 17: b.frame_table = tab; break; /* 16 + 32 columns: out holds 16 x 32 */
        }
        TU_STATUS(sinpe_enqueue_grid(t, q, bp, 0, NULL, NULL), bad[i].want);
        ck_assert_msg(strstr(sinpe_last_error(), bad[i].names), "case %d: \"%s\" lacks %s", i,
                      sinpe_last_error(), bad[i].names);
    }
    TU_CL(clFinish(q));
    float *after = tu_read_floats(q, out, 4 * 4 * 32);
    ck_assert_msg(!memcmp(before, after, 4 * 4 * 32 * sizeof(float)), "a refused call wrote out");
    TU_FREE(before, after);
    sinpe_table_release(rope);
    sinpe_table_release(other_tab);
    sinpe_context_release(other);
    TU_RELEASE(ctx, q, tab, out, small);
}
END_TEST

TU_SUITE(grid, 34)
{
    Suite *s = suite_create("grid");
    TCase *tc = tu_tcase(s, "grid", NULL);
    tcase_add_loop_test(tc, grid_values_and_add, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, grid_span_same_bits, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, grid_image_kept, 0, 2);
    tcase_add_test(tc, grid_bad_args);
    return s;
}
