/* test_timesteps.c -- sinpe_enqueue_timesteps with the diffusion presets
 * (DIFFUSERS, DIFFUSERS_FLIP, GGML_TIMESTEP) against float64 transcriptions
 * of diffusers' get_timestep_embedding and ggml's timestep_embedding
 * (family_ref.c), at fractional timesteps and odd widths.
 *
 * float32 output: |got - float64| <= 1.5e-7 (TU_PE_TOL).  float16 and
 * bfloat16 output: the bits of the host's round-to-nearest-even conversion
 * of the float32 result of a separate F32 call.  Outputs are poisoned; gap
 * columns (out_stride > dim) and elements before out_offset must keep it. */
#include "family_ref.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>

static const sinpe_preset ts_presets[3] = {SINPE_PRESET_DIFFUSERS, SINPE_PRESET_DIFFUSERS_FLIP,
                                           SINPE_PRESET_GGML_TIMESTEP};
static const size_t ts_dims[] = {1, 2, 3, 7, 64, 513, 1024};

/* Fixed timesteps first, then random ones in [0, 1000). */
static const float fixed_ts[] = {0.0f,    0.5f,     1.0f,     999.75f,   999.0f,    250.25f,
                                 1e-3f,   0.1f,     -0.5f,    -999.75f,  1.0e6f,    65535.5f,
                                 12345.678f, 8388607.5f, 16777215.0f};
enum { N_FIXED = sizeof fixed_ts / sizeof fixed_ts[0], N_TS = 40, TS_OFF = 3, OUT_OFF = 5 };

/* Runs one call and returns the whole output buffer (raw, dtype ot). */
static void *run_ts(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, cl_mem ts_m,
                    size_t count, size_t dim, size_t stride, sinpe_dtype ot, size_t *n_out)
{
    size_t no = OUT_OFF + (count - 1) * stride + dim, sz = fr_dtype_size(ot);
    cl_mem out_m = fr_poisoned_buffer(ctx, no, ot);
    cl_event ev = NULL;
    TU_OK(sinpe_enqueue_timesteps(tab, q, ts_m, TS_OFF, count, out_m, OUT_OFF, stride, ot, 0,
                                  NULL, &ev));
    ck_assert_ptr_nonnull(ev);
    TU_CL(clWaitForEvents(1, &ev));
    clReleaseEvent(ev);
    void *buf = tu_malloc(no * sz);
    tu_read(q, out_m, 0, no * sz, buf);
    clReleaseMemObject(out_m);
    *n_out = no;
    return buf;
}

/* Whether element i lies in a written row and column. */
static int inside(size_t i, size_t count, size_t dim, size_t stride)
{
    if (i < OUT_OFF)
        return 0;
    size_t j = i - OUT_OFF;
    return j / stride < count && j % stride < dim;
}

/* The timesteps buffer: TS_OFF values that would show if read by mistake,
 * then fixed[0 .. n_fixed) and random ones in [0, hi) up to N_TS; tsd gets
 * those N_TS in float64 (the frameworks take timesteps.float()). */
static cl_mem ts_buffer(sinpe_context *ctx, tu_rng *rng, const float *fixed, size_t n_fixed,
                        float hi, double *tsd)
{
    float ts[TS_OFF + N_TS];
    for (size_t i = 0; i < TS_OFF; i++)
        ts[i] = 1e30f;
    for (size_t i = 0; i < N_TS; i++) {
        ts[TS_OFF + i] = i < n_fixed ? fixed[i] : tu_rng_float(rng, 0.0f, hi);
        tsd[i] = (double)ts[TS_OFF + i];
    }
    return tu_buffer(ctx, sizeof ts, ts);
}

/* The float32 output of run_ts (no elements) against the framework's ref,
 * and every element outside the rows still poison. */
static void check_f32(const float *f32, size_t no, const double *ref, const double *tsd,
                      size_t dim, size_t stride, const char *name)
{
    for (size_t n = 0; n < N_TS; n++) {
        for (size_t c = 0; c < dim; c++) {
            double g = f32[OUT_OFF + n * stride + c], e = ref[n * dim + c];
            TU_CHECK(fabs(g - e) <= TU_PE_TOL,
                     "%s dim %zu t %.9g col %zu: got %.9g, framework %.12g, |diff| %.3g", name,
                     dim, tsd[n], c, g, e, fabs(g - e));
        }
    }
    for (size_t i = 0; i < no; i++)
        TU_CHECK(tu_is_poison(f32[i]) != inside(i, N_TS, dim, stride),
                 "%s dim %zu f32: element %zu %s", name, dim, i,
                 inside(i, N_TS, dim, stride) ? "never written" : "overwritten");
}

START_TEST(timesteps_match_framework)
{
    sinpe_preset p = ts_presets[_i];
    const char *name = sinpe_preset_name(p) ? sinpe_preset_name(p) : "(null)";
    tu_rng rng = tu_rng_for(name);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);

    double tsd[N_TS];
    cl_mem ts_m = ts_buffer(ctx, &rng, fixed_ts, N_FIXED, 1000.0f, tsd);

    for (size_t di = 0; di < sizeof ts_dims / sizeof ts_dims[0]; di++) {
        size_t dim = ts_dims[di];
        /* diffusers with downscale_freq_shift 1 divides 0 by 0 for d = 2, 3:
         * nothing to compare with. */
        if (fr_family_defined(p, dim) != FR_OK)
            continue;
        size_t stride = dim + 3;
        sinpe_table *tab = tu_preset_table(ctx, p, dim, di % 2 ? 0 : 16, NULL);

        size_t no = 0;
        float *f32 = run_ts(ctx, q, tab, ts_m, N_TS, dim, stride, SINPE_F32, &no);
        double *ref = tu_malloc(N_TS * dim * sizeof *ref);
        fr_family_ref(p, dim, N_TS, tsd, ref);
        check_f32(f32, no, ref, tsd, dim, stride, name);

        /* 16-bit outputs: the rounding of the float32 result. */
        for (int k = 1; k <= 2; k++) {
            sinpe_dtype ot = (sinpe_dtype)k;
            size_t no16 = 0;
            uint16_t *h = run_ts(ctx, q, tab, ts_m, N_TS, dim, stride, ot, &no16);
            ck_assert_uint_eq(no16, no);
            for (size_t i = 0; i < no; i++) {
                if (!inside(i, N_TS, dim, stride)) {
                    TU_CHECK(h[i] == fr_poison_raw(ot), "%s dim %zu %s: element %zu "
                             "outside the rows overwritten", name, dim, fr_dtype_name(ot), i);
                    continue;
                }
                uint16_t want = (uint16_t)fr_round(f32[i], ot);
                TU_CHECK(h[i] == want,
                         "%s dim %zu %s: element %zu: 0x%04x, rounding of %.9g is 0x%04x",
                         name, dim, fr_dtype_name(ot), i, (unsigned)h[i], (double)f32[i],
                         (unsigned)want);
            }
            free(h);
        }
        TU_FREE(ref, f32);
        sinpe_table_release(tab);
    }
    TU_RELEASE(ctx, q, NULL, ts_m);
}
END_TEST

START_TEST(timesteps_overridden_parameters)
{
    /* The header maps a family's parameters onto the spec: base = max_period,
     * angle_scale = scale, shift = downscale_freq_shift.  _i: 0 diffusers
     * with scale 1000 (Grad-TTS); 1 flip_sin_to_cos with shift 1 and
     * max_period 5000; 2 ggml with max_period 5000. */
    static const char *const names[] = {"diffusers scale 1000", "diffusers flip shift 1 period 5000",
                                        "ggml period 5000"};
    tu_rng rng = tu_rng_for(names[_i]);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);

    /* |t * scale| < 2^24 holds for all of them. */
    static const float fixed[] = {0.0f, 0.5f, 0.999f, 1e-4f, 0.25f, 16.0f, 16777.0f, 999.75f};
    double tsd[N_TS];
    cl_mem ts_m = ts_buffer(ctx, &rng, fixed, 8, _i == 0 ? 1.0f : 1000.0f, tsd);

    const size_t dims[] = {7, 64, 320};
    for (size_t di = 0; di < 3; di++) {
        size_t dim = dims[di], stride = dim + 1;
        sinpe_spec spec;
        double *ref = tu_malloc(N_TS * dim * sizeof *ref);
        if (_i == 0) {
            TU_OK(sinpe_spec_preset(&spec, SINPE_PRESET_DIFFUSERS, dim));
            spec.angle_scale = 1000.0;
            fr_diffusers(dim, 0, 1.0, 1000.0, 10000.0, N_TS, tsd, ref);
        } else if (_i == 1) {
            TU_OK(sinpe_spec_preset(&spec, SINPE_PRESET_DIFFUSERS_FLIP, dim));
            spec.shift = 1.0, spec.base = 5000.0;
            fr_diffusers(dim, 1, 1.0, 1.0, 5000.0, N_TS, tsd, ref);
        } else {
            TU_OK(sinpe_spec_preset(&spec, SINPE_PRESET_GGML_TIMESTEP, dim));
            spec.base = 5000.0;
            fr_ggml(dim, 5000.0, N_TS, tsd, ref);
        }
        sinpe_table *tab = tu_table_of(ctx, &spec, 0);
        size_t no = 0;
        float *f32 = run_ts(ctx, q, tab, ts_m, N_TS, dim, stride, SINPE_F32, &no);
        check_f32(f32, no, ref, tsd, dim, stride, names[_i]);
        TU_FREE(f32, ref);
        sinpe_table_release(tab);
    }
    TU_RELEASE(ctx, q, NULL, ts_m);
}
END_TEST

START_TEST(timesteps_errors)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    enum { DIM = 8, NTS = 10, NOUT = 12 * DIM };
    sinpe_table *tab = tu_preset_table(ctx, SINPE_PRESET_DIFFUSERS_FLIP, DIM, 0, NULL);
    float ts[NTS];
    for (size_t i = 0; i < NTS; i++)
        ts[i] = (float)i * 100.0f;
    cl_mem ts_m = tu_buffer(ctx, sizeof ts, ts);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, NOUT);

#define TS_CALL(tab_, ts_, off_, count_, out_, oo_, os_, dt_)                                 \
    sinpe_enqueue_timesteps((tab_), q, (ts_), (off_), (count_), (out_), (oo_), (os_), (dt_), 0, \
                            NULL, NULL)
    /* The timesteps buffer holds 10 floats. */
    TU_STATUS(TS_CALL(tab, ts_m, 3, 8, out_m, 0, 0, SINPE_F32), SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(TS_CALL(tab, ts_m, 0, 11, out_m, 0, 0, SINPE_F32), SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(TS_CALL(tab, ts_m, 10, 1, out_m, 0, 0, SINPE_F32), SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(TS_CALL(tab, ts_m, (size_t)-1, 2, out_m, 0, 0, SINPE_F32),
              SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(TS_CALL(tab, ts_m, 0, 0, out_m, 0, 0, SINPE_F32), SINPE_INVALID_SHAPE);
    /* The output holds 12 rows of 8 floats. */
    TU_STATUS(TS_CALL(tab, ts_m, 0, 10, out_m, 0, 11, SINPE_F32), SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(TS_CALL(tab, ts_m, 0, 10, out_m, 17, 0, SINPE_F32), SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(TS_CALL(tab, ts_m, 0, 10, out_m, 0, DIM - 1, SINPE_F32), SINPE_INVALID_SHAPE);
    TU_STATUS(TS_CALL(tab, ts_m, 0, 10, out_m, 0, 0, (sinpe_dtype)sinpe_dtype_count()), SINPE_INVALID_DTYPE);
    TU_STATUS(TS_CALL(tab, NULL, 0, 10, out_m, 0, 0, SINPE_F32), SINPE_NULL_ARGUMENT);
    TU_STATUS(TS_CALL(tab, ts_m, 0, 10, NULL, 0, 0, SINPE_F32), SINPE_NULL_ARGUMENT);
    TU_STATUS(TS_CALL(NULL, ts_m, 0, 10, out_m, 0, 0, SINPE_F32), SINPE_NULL_ARGUMENT);
    tu_check_buffer_poison(q, out_m, NOUT, "rejected timesteps calls");

    /* The limits themselves are accepted: the last timestep, the whole output. */
    TU_OK(TS_CALL(tab, ts_m, 9, 1, out_m, NOUT - DIM, 0, SINPE_F32));
    TU_OK(TS_CALL(tab, ts_m, 0, 10, out_m, 0, 0, SINPE_F16));
    TU_CL(clFinish(q));
#undef TS_CALL

    TU_RELEASE(ctx, q, tab, ts_m, out_m);
}
END_TEST

TU_SUITE(timesteps, 23)
{
    Suite *s = suite_create("timesteps");
    TCase *tc = tu_tcase(s, "values", NULL);
    tcase_add_loop_test(tc, timesteps_match_framework, 0, 3);
    tcase_add_loop_test(tc, timesteps_overridden_parameters, 0, 3);
    tcase_add_test(tc, timesteps_errors);
    return s;
}
