/*
 * test_rope_model.c -- a model's rotary rules layer by layer
 * (sinpe_rope_model_layer(), sinpe_rope_model_type()), the PROPORTIONAL
 * rule's zero frequencies (cos exactly 1 and sin exactly 0 from the table,
 * on the fly and from the device function), DeepSeek's softmax factor and
 * Llama 4's temperature (sinpe_rope_temperature()), and their refusals.
 *
 * The expected facts are written here from the published configurations
 * (config.json of Qwen3-8B, gemma-3-27b, DeepSeek-V3, gpt-oss-120b,
 * Llama-4-Scout-17B-16E; HF's Gemma4TextConfig defaults), independently of
 * src/rope_model.c's table.  The frequencies are checked against float64
 * formulas written from HF's modeling_rope_utils; python/tests/
 * test_rope_model_hf.py runs HF's own code.
 */
#include "test_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TWO_PI 6.283185307179586476925286766559

/* One layer's expected facts. */
typedef struct want_layer {
    sinpe_layer_type type;
    size_t window;
    int rotates, temperature;
    size_t head_dim, R, offset, pairs;
    double base;
    sinpe_rope_rule rule;
    sinpe_rope_pairing pairing;
    double factor, m, softmax;
} want_layer;

static want_layer expect(sinpe_rope_model model, size_t i)
{
    want_layer w;
    memset(&w, 0, sizeof w);
    w.rotates = 1, w.m = 1, w.softmax = 1;
    switch (model) {
    case SINPE_ROPE_MODEL_QWEN3:
        w.head_dim = w.R = 128, w.base = 1e6;
        break;
    case SINPE_ROPE_MODEL_GEMMA3:
        w.head_dim = w.R = 128;
        if ((i + 1) % 6 == 0)
            w.base = 1e6, w.rule = SINPE_ROPE_LINEAR, w.factor = 8;
        else
            w.type = SINPE_LAYER_SLIDING, w.window = 1024, w.base = 1e4;
        break;
    case SINPE_ROPE_MODEL_GEMMA4:
        if ((i + 1) % 6 == 0 || i == 29)
            w.head_dim = w.R = 512, w.pairs = 64, w.base = 1e6, w.factor = 1,
            w.rule = SINPE_ROPE_PROPORTIONAL;
        else
            w.type = SINPE_LAYER_SLIDING, w.window = 512, w.head_dim = w.R = 256, w.base = 1e4;
        break;
    case SINPE_ROPE_MODEL_DEEPSEEK_V3:
        w.head_dim = 192, w.R = 64, w.offset = 128, w.base = 1e4, w.rule = SINPE_ROPE_YARN;
        w.pairing = SINPE_ROPE_INTERLEAVED, w.factor = 40;
        w.softmax = (0.1 * log(40.0) + 1) * (0.1 * log(40.0) + 1);
        break;
    case SINPE_ROPE_MODEL_GPT_OSS:
        w.head_dim = w.R = 64, w.base = 150000, w.rule = SINPE_ROPE_YARN, w.factor = 32;
        w.m = 0.1 * log(32.0) + 1;
        if (i % 2 == 0)
            w.type = SINPE_LAYER_SLIDING, w.window = 128;
        break;
    case SINPE_ROPE_MODEL_LLAMA4_SCOUT:
        w.head_dim = w.R = 128, w.base = 5e5, w.rule = SINPE_ROPE_LLAMA3, w.factor = 16;
        w.pairing = SINPE_ROPE_INTERLEAVED;
        if ((i + 1) % 4 == 0)
            w.rotates = 0, w.temperature = 1;
        else
            w.type = SINPE_LAYER_CHUNKED, w.window = 8192;
        break;
    }
    return w;
}

/* The float64 frequency of pair k, written from HF's rope functions for the
   models' parameters. */
static double want_freq(sinpe_rope_model model, const want_layer *w, size_t k)
{
    double R = (double)w->R, x = pow(w->base, -2.0 * (double)k / R);
    switch (w->rule) {
    case SINPE_ROPE_LINEAR: return x / w->factor;
    case SINPE_ROPE_PROPORTIONAL: return k < w->pairs ? x / w->factor : 0.0;
    case SINPE_ROPE_LLAMA3: return TWO_PI / x > 8192.0 ? x / w->factor : x; /* low = high = 1 */
    case SINPE_ROPE_YARN: {
        double lo = R * log(4096 / (32 * TWO_PI)) / (2 * log(w->base));
        double hi = R * log(4096 / (1 * TWO_PI)) / (2 * log(w->base));
        if (model == SINPE_ROPE_MODEL_DEEPSEEK_V3) /* truncate true */
            lo = floor(lo), hi = ceil(hi);
        lo = fmax(lo, 0), hi = fmin(hi, R - 1);
        double ramp = fmin(fmax(((double)k - lo) / (hi - lo), 0), 1);
        return x / w->factor * ramp + x * (1 - ramp);
    }
    default: return x;
    }
}

static const size_t n_layers[] = {0, 36, 62, 30, 61, 36, 48};
static const char *const names[] = {NULL, "qwen3", "gemma3", "gemma4", "deepseek-v3", "gpt-oss",
                                    "llama4-scout"};

START_TEST(rope_model_layers)
{
    sinpe_rope_model model = (sinpe_rope_model)(_i + 1);
    ck_assert_str_eq(sinpe_rope_model_name(model), names[model]);
    for (size_t i = 0; i < n_layers[model]; i++) {
        want_layer w = expect(model, i);
        sinpe_rope_spec s;
        sinpe_rope_layer l;
        double f[256], m;
        TU_OK(sinpe_rope_model_layer(model, i, &s, &l));
        ck_assert_uint_eq(l.struct_size, SINPE_STRUCT_SIZE(sinpe_rope_layer));
        ck_assert_uint_eq(l.layers, n_layers[model]);
        ck_assert_msg(l.type == w.type && l.window == w.window && l.rotates == w.rotates &&
                          l.head_dim == w.head_dim && l.rotary_offset == w.offset,
                      "%s layer %zu: type %d window %zu rotates %d head %zu offset %zu",
                      names[model], i, (int)l.type, l.window, l.rotates, l.head_dim,
                      l.rotary_offset);
        ck_assert_int_eq(l.temperature, w.temperature);
        ck_assert(l.attn_scale == (w.temperature ? 0.1 : 0.0));
        ck_assert(l.floor_scale == (w.temperature ? 8192.0 : 0.0));
        ck_assert_msg(fabs(l.softmax_factor - w.softmax) <= 1e-15 * w.softmax,
                      "%s: softmax factor %.17g, want %.17g", names[model], l.softmax_factor,
                      w.softmax);
        ck_assert_msg(s.rotary_dim == w.R && s.base == w.base && s.rule == w.rule &&
                          s.pairing == w.pairing && s.rotated_pairs == w.pairs &&
                          s.layout == SINPE_ROPE_COS_SIN && s.axes == SINPE_ROPE_ONE_AXIS,
                      "%s layer %zu: R %zu base %g rule %d pairing %d pairs %zu", names[model], i,
                      s.rotary_dim, s.base, (int)s.rule, (int)s.pairing, s.rotated_pairs);
        ck_assert_int_eq(s.truncate, model != SINPE_ROPE_MODEL_GPT_OSS);
        TU_OK(sinpe_rope_frequencies(&s, f, &m));
        ck_assert_msg(fabs(m - w.m) <= 1e-15, "%s: m %.17g, want %.17g", names[model], m, w.m);
        for (size_t k = 0; k < w.R / 2; k++) {
            double want = want_freq(model, &w, k);
            TU_CHECK(fabs(f[k] - want) <= 4e-16 * want, "%s layer %zu: w[%zu] %.17g, want %.17g",
                     names[model], i, k, f[k], want);
        }
        double sf;
        TU_OK(sinpe_rope_softmax_factor(&s, &sf));
        ck_assert(sf == l.softmax_factor);
    }
}
END_TEST

/* By type: the first layer of the type, and a type the model lacks refused. */
START_TEST(rope_model_types)
{
    static const struct {
        sinpe_rope_model model;
        sinpe_layer_type type;
        size_t layer; /* SIZE_MAX: refused */
    } cases[] = {
        {SINPE_ROPE_MODEL_QWEN3, SINPE_LAYER_FULL, 0},
        {SINPE_ROPE_MODEL_QWEN3, SINPE_LAYER_SLIDING, SIZE_MAX},
        {SINPE_ROPE_MODEL_GEMMA3, SINPE_LAYER_SLIDING, 0},
        {SINPE_ROPE_MODEL_GEMMA3, SINPE_LAYER_FULL, 5},
        {SINPE_ROPE_MODEL_GEMMA4, SINPE_LAYER_FULL, 5},
        {SINPE_ROPE_MODEL_GPT_OSS, SINPE_LAYER_FULL, 1},
        {SINPE_ROPE_MODEL_LLAMA4_SCOUT, SINPE_LAYER_CHUNKED, 0},
        {SINPE_ROPE_MODEL_LLAMA4_SCOUT, SINPE_LAYER_FULL, 3},
        {SINPE_ROPE_MODEL_DEEPSEEK_V3, SINPE_LAYER_CHUNKED, SIZE_MAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sinpe_rope_spec s, t;
        sinpe_rope_layer l, u;
        memset(&s, 0x5a, sizeof s), memset(&l, 0x5a, sizeof l);
        sinpe_status st = sinpe_rope_model_type(cases[c].model, cases[c].type, &s, &l);
        if (cases[c].layer == SIZE_MAX) {
            ck_assert_int_eq(st, SINPE_INVALID_OPTION);
            TU_MESSAGE_HAS("no such layer");
            memset(&t, 0x5a, sizeof t), memset(&u, 0x5a, sizeof u);
            ck_assert(!memcmp(&s, &t, sizeof s) && !memcmp(&l, &u, sizeof l));
            continue;
        }
        TU_OK(st);
        TU_OK(sinpe_rope_model_layer(cases[c].model, cases[c].layer, &t, &u));
        ck_assert_msg(!memcmp(&s, &t, sizeof s) && !memcmp(&l, &u, sizeof l),
                      "case %zu: not layer %zu's", c, cases[c].layer);
    }
}
END_TEST

/* Refusals: the status, the argument named, nothing written. */
START_TEST(rope_model_bad_calls)
{
    sinpe_rope_spec s, s0;
    sinpe_rope_layer l, l0;
    memset(&s0, 0xa5, sizeof s0), memset(&l0, 0xa5, sizeof l0);
    s = s0, l = l0;
#define UNTOUCHED() ck_assert(!memcmp(&s, &s0, sizeof s) && !memcmp(&l, &l0, sizeof l))
    TU_STATUS(sinpe_rope_model_layer((sinpe_rope_model)0, 0, &s, &l), SINPE_UNKNOWN_PRESET);
    TU_MESSAGE_HAS("model 0");
    TU_STATUS(sinpe_rope_model_layer((sinpe_rope_model)7, 0, &s, &l), SINPE_UNKNOWN_PRESET);
    TU_STATUS(sinpe_rope_model_layer((sinpe_rope_model)-1, 0, &s, &l), SINPE_UNKNOWN_PRESET);
    TU_MESSAGE_HAS("model -1");
    TU_STATUS(sinpe_rope_model_type((sinpe_rope_model)9, SINPE_LAYER_FULL, &s, &l),
              SINPE_UNKNOWN_PRESET);
    UNTOUCHED();
    TU_STATUS(sinpe_rope_model_layer(SINPE_ROPE_MODEL_QWEN3, 0, NULL, &l), SINPE_NULL_ARGUMENT);
    TU_MESSAGE_HAS("spec");
    TU_STATUS(sinpe_rope_model_layer(SINPE_ROPE_MODEL_QWEN3, 0, &s, NULL), SINPE_NULL_ARGUMENT);
    TU_MESSAGE_HAS("info");
    TU_STATUS(sinpe_rope_model_type(SINPE_ROPE_MODEL_QWEN3, SINPE_LAYER_FULL, NULL, &l),
              SINPE_NULL_ARGUMENT);
    UNTOUCHED();
    for (int m = 1; m <= 6; m++) {
        TU_STATUS(sinpe_rope_model_layer((sinpe_rope_model)m, n_layers[m], &s, &l),
                  SINPE_INVALID_SHAPE);
        char words[64];
        snprintf(words, sizeof words, "layer %zu: %s has layers 0 .. %zu", n_layers[m],
                 names[m], n_layers[m] - 1);
        TU_MESSAGE_HAS(words);
    }
    TU_STATUS(sinpe_rope_model_layer(SINPE_ROPE_MODEL_GEMMA3, SIZE_MAX, &s, &l),
              SINPE_INVALID_SHAPE);
    TU_STATUS(sinpe_rope_model_type(SINPE_ROPE_MODEL_GEMMA3, (sinpe_layer_type)3, &s, &l),
              SINPE_INVALID_OPTION);
    TU_MESSAGE_HAS("type 3");
    TU_STATUS(sinpe_rope_model_type(SINPE_ROPE_MODEL_GEMMA3, (sinpe_layer_type)-1, &s, &l),
              SINPE_INVALID_OPTION);
    UNTOUCHED();
    /* A struct size of no header: refused before either struct is written. */
    TU_STATUS(sinpe_rope_model_layer_sized(SINPE_ROPE_MODEL_QWEN3, 0, &s, sizeof s, &l,
                                           SINPE_STRUCT_SIZE(sinpe_rope_layer)),
              SINPE_INVALID_STRUCT_SIZE);
    TU_MESSAGE_HAS("spec");
    TU_STATUS(sinpe_rope_model_layer_sized(SINPE_ROPE_MODEL_QWEN3, 0, &s,
                                           SINPE_STRUCT_SIZE(sinpe_rope_spec), &l,
                                           SINPE_STRUCT_TAG | 8),
              SINPE_INVALID_STRUCT_SIZE);
    TU_MESSAGE_HAS("info");
    UNTOUCHED();
#undef UNTOUCHED
    double f = 7;
    TU_STATUS(sinpe_rope_softmax_factor(NULL, &f), SINPE_NULL_ARGUMENT);
    TU_OK(sinpe_rope_model_layer(SINPE_ROPE_MODEL_DEEPSEEK_V3, 0, &s, &l));
    TU_STATUS(sinpe_rope_softmax_factor(&s, NULL), SINPE_NULL_ARGUMENT);
    TU_MESSAGE_HAS("factor");
    s.factor = -1;
    TU_STATUS(sinpe_rope_softmax_factor(&s, &f), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("spec.factor");
    ck_assert(f == 7);
    s.factor = 40, s.mscale_all_dim = 0; /* no split: the scores keep their scale */
    TU_OK(sinpe_rope_softmax_factor(&s, &f));
    ck_assert(f == 1.0);
    s.mscale_all_dim = 0.707;
    TU_OK(sinpe_rope_softmax_factor(&s, &f));
    ck_assert(fabs(f - pow(0.0707 * log(40.0) + 1, 2)) <= 1e-15);
}
END_TEST

/* PROPORTIONAL's own refusals, and LLAMA3's low == high now taken. */
START_TEST(rope_model_rule_checks)
{
    sinpe_rope_spec s;
    sinpe_rope_layer l;
    double w[256], m;
    TU_OK(sinpe_rope_model_type(SINPE_ROPE_MODEL_GEMMA4, SINPE_LAYER_FULL, &s, &l));
    s.rotated_pairs = 0;
    TU_STATUS(sinpe_rope_frequencies(&s, w, &m), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("spec.rotated_pairs 0 must be 1 .. 256");
    s.rotated_pairs = 257;
    TU_STATUS(sinpe_rope_frequencies(&s, w, &m), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("rotated_pairs 257");
    s.rotated_pairs = 256, s.factor = 0;
    TU_STATUS(sinpe_rope_frequencies(&s, w, &m), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("spec.factor");
    s.factor = 2; /* all pairs rotate: DEFAULT's frequencies over 2 */
    TU_OK(sinpe_rope_frequencies(&s, w, &m));
    for (size_t k = 0; k < 256; k++)
        TU_CHECK(w[k] == pow(1e6, -2.0 * (double)k / 512) / 2, "w[%zu] %.17g", k, w[k]);
    s.rotary_dim = 64, s.rotated_pairs = 32, s.axes = SINPE_ROPE_AXES_ND;
    s.sections[0] = s.sections[1] = 16;
    TU_STATUS(sinpe_rope_frequencies(&s, w, &m), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("AXES_ND");
    s.axes = SINPE_ROPE_MROPE; /* lanes share one axis's frequencies: taken */
    TU_OK(sinpe_rope_frequencies(&s, w, &m));
    TU_OK(sinpe_rope_model_layer(SINPE_ROPE_MODEL_LLAMA4_SCOUT, 0, &s, &l));
    s.low_freq_factor = 2; /* above high */
    TU_STATUS(sinpe_rope_frequencies(&s, w, &m), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("low <= high");
}
END_TEST

/* Llama 4's temperature: exact at chosen positions, every int32 defined. */
START_TEST(rope_model_temperature)
{
    static const struct {
        int32_t p;
        double scale, floor_scale, n; /* want log1p(n) scale + 1 */
    } cases[] = {
        {0, 0.1, 8192, 0},           {8190, 0.1, 8192, 0},       {8191, 0.1, 8192, 1},
        {16382, 0.1, 8192, 1},       {16383, 0.1, 8192, 2},      {INT_MAX, 0.1, 8192, 262144},
        {INT_MAX - 1, 0.1, 8192, 262143}, {-1, 0.1, 8192, 0},    {-2, 0.1, 8192, 0},
        {-8193, 0.1, 8192, 0},       {INT_MIN, 0.1, 8192, 0},    {INT_MIN, -3, 1, 0},
        /* 3 / 0.1 rounds to 30 in float64; the real quotient, with 0.1's
           double just above 1/10, is below 30: the floor is 29. */
        {2, 1, 0.1, 29},             {29, 0.5, 3, 10},           {INT_MAX, 1, 1, 2147483648.0},
        {1000, 0, 7, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double t = -5, want = log1p(cases[c].n) * cases[c].scale + 1;
        TU_OK(sinpe_rope_temperature(cases[c].p, cases[c].scale, cases[c].floor_scale, &t));
        ck_assert_msg(t == want, "p %d scale %g floor %g: %.17g, want %.17g", (int)cases[c].p,
                      cases[c].scale, cases[c].floor_scale, t, want);
    }
    /* Finite and >= 1 for every int32 with Scout's parameters, by steps. */
    for (int64_t p = INT_MIN; p <= INT_MAX; p += 65537) {
        double t;
        TU_OK(sinpe_rope_temperature((int32_t)p, 0.1, 8192, &t));
        TU_CHECK(isfinite(t) && t >= 1.0, "p %lld: %g", (long long)p, t);
    }
    double t = 42;
    TU_STATUS(sinpe_rope_temperature(0, 0.1, 8192, NULL), SINPE_NULL_ARGUMENT);
    TU_MESSAGE_HAS("factor");
    TU_STATUS(sinpe_rope_temperature(0, NAN, 8192, &t), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("attn_scale");
    TU_STATUS(sinpe_rope_temperature(0, INFINITY, 8192, &t), SINPE_INVALID_SPEC);
    TU_STATUS(sinpe_rope_temperature(0, 0.1, 0, &t), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("floor_scale");
    TU_STATUS(sinpe_rope_temperature(0, 0.1, -8192, &t), SINPE_INVALID_SPEC);
    TU_STATUS(sinpe_rope_temperature(0, 0.1, INFINITY, &t), SINPE_INVALID_SPEC);
    TU_STATUS(sinpe_rope_temperature(0, 0.1, NAN, &t), SINPE_INVALID_SPEC);
    ck_assert(t == 42);
}
END_TEST

/* ---- zero frequencies: cos 1 and sin 0 exactly everywhere ------------------ */

/* cs: n positions' rows in COS_SIN of R columns; pairs [first, R/2) hold
   cos 1 and sin +0 exactly. */
static void check_unit(const float *cs, size_t n, size_t R, size_t first, const int32_t *pos,
                       const char *what)
{
    for (size_t t = 0; t < n; t++)
        for (size_t k = first; k < R / 2; k++) {
            float c = cs[t * R + k], s = cs[t * R + R / 2 + k];
            TU_CHECK(c == 1.0f && s == 0.0f && !signbit(s),
                     "%s: p %d pair %zu: cos %a sin %a", what, (int)pos[t], k, (double)c,
                     (double)s);
        }
}

START_TEST(rope_model_zero_frequencies)
{
    enum { N = 12, ROWS = 64 };
    static const int32_t pos[N] = {0, 1, 63, 64, 65, 1000, 131071, 1 << 24, INT_MAX,
                                   -1, -77777, INT_MIN};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_rope_spec s;
    sinpe_rope_layer l;
    TU_OK(sinpe_rope_model_type(SINPE_ROPE_MODEL_GEMMA4, SINPE_LAYER_FULL, &s, &l));
    size_t R = s.rotary_dim, H = R / 2;
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, ROWS, &tab));
    /* The table's rows and rows past it (on the fly), read as rows. */
    float *cs = tu_malloc(N * R * sizeof *cs);
    cl_mem out = tu_poisoned_buffer(ctx, q, R);
    for (size_t t = 0; t < N; t++) {
        TU_OK(sinpe_enqueue_table_rows(tab, q, pos[t], 1, out, 0, 0, SINPE_F32, 0, NULL, NULL));
        tu_read(q, out, 0, R * sizeof(float), cs + t * R);
    }
    check_unit(cs, N, R, s.rotated_pairs, pos, "table rows");
    /* The device function. */
    int32_t pl[4 * N] = {0};
    for (size_t t = 0; t < N; t++)
        pl[4 * t] = pos[t];
    static const cl_uint no_sec[4] = {0};
    free(cs);
    cs = tu_rope_probe(ctx, q, tab, (cl_uint)R, 0, no_sec, pl, N);
    check_unit(cs, N, R, s.rotated_pairs, pos, "device function");
    /* The rotation: the unrotated pairs come back unchanged (a head of
       random values, through the table's rows and on the fly). */
    tu_rng rng = tu_rng_for("rope_model_zero");
    float *x = tu_malloc(N * R * sizeof *x), *y = tu_malloc(N * R * sizeof *y);
    tu_rng_floats(&rng, x, N * R, -4.0f, 4.0f);
    cl_mem xm = tu_buffer(ctx, N * R * sizeof *x, x), pm = tu_buffer(ctx, sizeof pos, pos);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 1, a.seq_len = N, a.head_dim = R, a.q = xm, a.q_heads = 1, a.positions = pm;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    tu_read(q, xm, 0, N * R * sizeof *y, y);
    for (size_t t = 0; t < N; t++)
        for (size_t kk = s.rotated_pairs; kk < H; kk++)
            TU_CHECK(tu_same_bits(y[t * R + kk], x[t * R + kk]) &&
                         tu_same_bits(y[t * R + H + kk], x[t * R + H + kk]),
                     "rotation: p %d pair %zu changed", (int)pos[t], kk);
    TU_FREE(cs, x, y);
    TU_RELEASE(ctx, q, tab, pm, out, xm);
}
END_TEST

TU_SUITE(rope_model, 28)
{
    Suite *s = suite_create("rope_model");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, TU_TIMEOUT);
    tcase_add_loop_test(tc, rope_model_layers, 0, 6);
    tcase_add_test(tc, rope_model_types);
    tcase_add_test(tc, rope_model_bad_calls);
    tcase_add_test(tc, rope_model_rule_checks);
    tcase_add_test(tc, rope_model_temperature);
    tcase_add_test(tc, rope_model_zero_frequencies);
    suite_add_tcase(s, tc);
    return s;
}
