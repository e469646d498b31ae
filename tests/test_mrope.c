/*
 * test_mrope.c -- rotary embeddings with several positions per token
 * (spec.axes and spec.sections: M-RoPE, interleaved M-RoPE, N-D rope).
 *
 * Frequencies: MROPE and MROPE_INTERLEAVED keep the one-axis frequencies
 * bit for bit; AXES_ND gives each section the rule's frequencies for its
 * own rotary dimension, checked bit for bit against one-axis specs of that
 * dimension (their lists' parts), and against base^(-j / s) in float64.
 * Rotation: each pair at the position of its lane (the lane rule written
 * here from the header's words): bit for bit against the header's
 * operation order run on the host from table rows read at the lanes'
 * positions, and near m cos(p w), m sin(p w) in long double within the
 * header's bound; lanes from a buffer (both lane strides), from start + t
 * (text), past the table and negative; every pairing, layout and storage
 * type.  The device functions sinpe_rope_lane() and sinpe_rope_cos_sin()
 * give the rotation's cos and sin bit for bit.  Presets; bad specs and
 * calls with their exact status, nothing written.
 */
#include "test_util.h"
#include "family_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sinpe_rope_spec axes_spec(int axes, size_t R, size_t s0, size_t s1, size_t s2, size_t s3)
{
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, R);
    s.axes = (sinpe_rope_axes)axes;
    s.sections[0] = s0, s.sections[1] = s1, s.sections[2] = s2, s.sections[3] = s3;
    return s;
}

START_TEST(mrope_frequencies)
{
    static double lst[32], lng[32];
    static float given[32];
    for (int k = 0; k < 32; k++)
        lst[k] = 1.0 + 0.03 * k, lng[k] = 2.0 + 0.5 * k, given[k] = 1.0f / (float)(k + 1);
    for (int rule = 0; rule < 6; rule++) {
        sinpe_rope_spec one = axes_spec(0, 64, 0, 0, 0, 0);
        one.rule = (sinpe_rope_rule)rule, one.factor = 4, one.original_max_positions = 2048;
        one.max_positions = 2048, one.length = 5000, one.base = 5e5;
        one.short_factor = lst, one.long_factor = lng, one.n_short_factor = one.n_long_factor = 32;
        if (rule == 0)
            one.inv_freq = given, one.n_inv_freq = 32;
        double w1[32], w[32], m1, m;
        TU_OK(sinpe_rope_frequencies(&one, w1, &m1));
        for (int axes = 1; axes <= 2; axes++) { /* over all pairs: the one-axis values */
            sinpe_rope_spec s = one;
            s.axes = (sinpe_rope_axes)axes;
            s.sections[0] = 12, s.sections[1] = 10, s.sections[2] = 10;
            TU_OK(sinpe_rope_frequencies(&s, w, &m));
            ck_assert_msg(!memcmp(w, w1, sizeof w) && m == m1, "rule %d axes %d", rule, axes);
        }
        static const size_t sec[4] = {6, 16, 0, 10};
        sinpe_rope_spec s = one;
        s.axes = SINPE_ROPE_AXES_ND;
        memcpy(s.sections, sec, sizeof sec);
        TU_OK(sinpe_rope_frequencies(&s, w, &m));
        for (size_t i = 0, k0 = 0; i < 4; k0 += sec[i++]) {
            if (!sec[i])
                continue;
            sinpe_rope_spec a = one;
            a.rotary_dim = 2 * sec[i];
            a.short_factor = lst + k0, a.long_factor = lng + k0;
            a.n_short_factor = a.n_long_factor = sec[i];
            if (a.inv_freq)
                a.inv_freq = given + k0, a.n_inv_freq = sec[i];
            double wa[32], ma;
            TU_OK(sinpe_rope_frequencies(&a, wa, &ma));
            ck_assert_msg(!memcmp(w + k0, wa, sec[i] * sizeof *w) && m == ma,
                          "rule %d: AXES_ND section %zu is not the one-axis spec of R %zu", rule,
                          i, 2 * sec[i]);
            for (size_t j = 0; rule == 0 && !one.inv_freq && j < sec[i]; j++)
                ck_assert(fabs(w[k0 + j] - pow(5e5, -(double)j / (double)sec[i])) <=
                          4e-16 * w[k0 + j]);
        }
    }
}
END_TEST

static const struct {
    sinpe_rope_preset p;
    size_t head, R;
    int axes, pairing;
    double base;
    size_t sec[4];
} presets[] = {
    {SINPE_ROPE_PRESET_QWEN2_VL, 128, 128, 1, 0, 1e6, {16, 24, 24}},
    {SINPE_ROPE_PRESET_QWEN2_5_VL, 128, 128, 1, 0, 1e6, {16, 24, 24}},
    {SINPE_ROPE_PRESET_QWEN3_VL, 128, 128, 2, 0, 5e6, {24, 20, 20}},
    {SINPE_ROPE_PRESET_QWEN3_5, 256, 64, 2, 0, 1e7, {11, 11, 10}},
    {SINPE_ROPE_PRESET_QWEN2_VL_VISION, 80, 80, 3, 0, 1e4, {20, 20}},
    {SINPE_ROPE_PRESET_FLUX, 128, 128, 3, 1, 1e4, {8, 28, 28}},
    {SINPE_ROPE_PRESET_HUNYUAN_VIDEO, 128, 128, 3, 1, 256, {8, 28, 28}},
    {SINPE_ROPE_PRESET_WAN, 128, 128, 3, 1, 1e4, {22, 21, 21}},
    {SINPE_ROPE_PRESET_COGVIDEOX, 64, 64, 3, 1, 1e4, {8, 12, 12}},
};

START_TEST(mrope_presets)
{
    sinpe_rope_spec s;
    TU_OK(sinpe_rope_preset(&s, presets[_i].p, presets[_i].head));
    ck_assert_uint_eq(s.rotary_dim, presets[_i].R);
    ck_assert_int_eq(s.axes, presets[_i].axes);
    ck_assert_int_eq(s.pairing, presets[_i].pairing);
    ck_assert(s.base == presets[_i].base && s.rule == SINPE_ROPE_DEFAULT);
    ck_assert_msg(!memcmp(s.sections, presets[_i].sec, sizeof s.sections), "%s sections",
                  sinpe_rope_preset_name(presets[_i].p));
    TU_OK(sinpe_rope_frequencies(&s, NULL, NULL));
    if (presets[_i].p == SINPE_ROPE_PRESET_WAN) { /* any head: c - 2 floor(c/3), floor(c/3) x2 */
        TU_OK(sinpe_rope_preset(&s, presets[_i].p, 96));
        ck_assert(s.sections[0] == 16 && s.sections[1] == 16 && s.sections[2] == 16);
    } else if (presets[_i].p == SINPE_ROPE_PRESET_QWEN2_VL_VISION) {
        TU_STATUS(sinpe_rope_preset(&s, presets[_i].p, 78), SINPE_INVALID_SPEC);
    } else if (presets[_i].p == SINPE_ROPE_PRESET_COGVIDEOX) { /* any multiple of 16 */
        TU_OK(sinpe_rope_preset(&s, presets[_i].p, 96));
        ck_assert(s.sections[0] == 12 && s.sections[1] == 18 && s.sections[2] == 18);
        TU_STATUS(sinpe_rope_preset(&s, presets[_i].p, 72), SINPE_INVALID_SPEC);
        ck_assert_msg(strstr(sinpe_last_error(), "head_dim 72"), "%s", sinpe_last_error());
    } else {
        TU_STATUS(sinpe_rope_preset(&s, presets[_i].p, 96), SINPE_INVALID_SPEC);
        ck_assert_msg(strstr(sinpe_last_error(), "head_dim"), "%s", sinpe_last_error());
    }
}
END_TEST

/* ---- the rotation ---------------------------------------------------------- */

typedef struct {
    int axes;
    size_t sec[4], R, head_dim, q_heads, kv_heads, n_seqs, seq_len;
    int pairing, layout;
    sinpe_dtype dt;
    size_t lane_pad; /* lane_stride = tokens + lane_pad (0: lane_stride 0) */
    int positions, seq_starts, out_of_place;
    size_t rows;
} mcase;

static const mcase cases[] = {
    {1, {16, 24, 24}, 128, 128, 4, 2, 2, 9, 0, 0, SINPE_F32, 0, 1, 0, 0, 64},
    {2, {24, 20, 20}, 128, 128, 3, 1, 3, 5, 0, 1, SINPE_BF16, 5, 1, 1, 0, 0},
    {2, {11, 11, 10}, 64, 256, 2, 1, 1, 11, 0, 0, SINPE_F16, 0, 1, 0, 1, 300},
    {3, {8, 28, 28}, 128, 128, 2, 2, 2, 7, 1, 0, SINPE_F32, 3, 1, 1, 0, 128},
    {3, {5, 3, 0, 4}, 24, 24, 3, 0, 4, 3, 1, 1, SINPE_F16, 0, 1, 0, 1, 8},
    {1, {10, 6}, 32, 40, 2, 2, 3, 6, 0, 0, SINPE_BF16, 0, 0, 1, 1, 16},
    {3, {20, 20}, 80, 80, 1, 1, 1, 13, 0, 1, SINPE_F32, 0, 1, 0, 0, 40},
};

/* Row p of tab (R floats), read through sinpe_enqueue_table_rows. */
static void table_row(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, size_t R,
                      cl_int p, float *row)
{
    cl_mem out = tu_poisoned_buffer(ctx, q, R);
    TU_OK(sinpe_enqueue_table_rows(tab, q, p, 1, out, 0, 0, SINPE_F32, 0, NULL, NULL));
    tu_read(q, out, 0, R * sizeof *row, row);
    clReleaseMemObject(out);
}

START_TEST(mrope_rotation_bits)
{
    const mcase *c = &cases[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("mrope_rotation");
    size_t n = c->n_seqs * c->seq_len, hd = c->head_dim, e = fr_dtype_size(c->dt), h = c->R / 2;
    size_t heads = c->q_heads + c->kv_heads, width = heads * hd, ls = n + c->lane_pad;
    sinpe_rope_spec s = axes_spec(c->axes, c->R, c->sec[0], c->sec[1], c->sec[2], c->sec[3]);
    s.pairing = (sinpe_rope_pairing)c->pairing, s.layout = (sinpe_rope_layout)c->layout;
    s.base = 1e4 + 37.0 * _i;
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, c->rows, &tab));
    double w[128], m;
    TU_OK(sinpe_rope_frequencies(&s, w, &m));

    /* q and k packed in one row of width, values in [-4, 4) in dtype. */
    unsigned char *in = tu_malloc(n * width * e), *got = tu_malloc(n * width * e);
    unsigned char *want = tu_malloc(n * width * e);
    for (size_t i = 0; i < n * width; i++)
        fr_store(in, i, c->dt, tu_rng_float(&rng, -4.0f, 4.0f));
    int32_t *pos = tu_malloc(4 * ls * sizeof *pos), starts[8];
    for (size_t i = 0; i < 4 * ls; i++)
        pos[i] = tu_rng_int(&rng, 0, 3) ? tu_rng_int(&rng, 0, (int32_t)(2 * c->rows + 2))
                                        : tu_rng_int(&rng, -50, (1 << 24) - 100);
    tu_rng_ints(&rng, starts, 8, -20, 70000);
    cl_mem im = tu_buffer(ctx, n * width * e, in);
    cl_mem om = c->out_of_place ? tu_poisoned_buffer(ctx, q, (n * width * e + 3) / 4) : NULL;
    cl_mem pm = tu_buffer(ctx, 4 * ls * sizeof *pos, pos), sm = tu_buffer(ctx, sizeof starts, starts);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = c->n_seqs, a.seq_len = c->seq_len, a.head_dim = hd, a.dtype = c->dt, a.start = 3;
    a.q = im, a.q_heads = c->q_heads, a.q_stride = width;
    a.k = c->kv_heads ? im : NULL, a.kv_heads = c->kv_heads, a.k_stride = width;
    a.k_offset = c->q_heads * hd;
    if (om)
        a.q_out = om, a.q_out_stride = width, a.k_out = c->kv_heads ? om : NULL,
        a.k_out_stride = width, a.k_out_offset = a.k_offset;
    a.positions = c->positions ? pm : NULL, a.lane_stride = c->lane_pad ? ls : 0;
    a.seq_starts = c->seq_starts ? sm : NULL;
    /* Each token's cos and sin too, in the layout _i mod 4, rows padded. */
    int L = _i % 4;
    size_t cs_stride = c->R + 3, cs_words = (n * cs_stride * e + 3) / 4;
    cl_mem cm = tu_poisoned_buffer(ctx, q, cs_words);
    a.cos_sin = cm, a.cos_sin_stride = cs_stride, a.cos_sin_layout = (sinpe_rope_layout)L;
    unsigned char *cs_got = tu_malloc(cs_words * 4), *cs_want = tu_malloc(cs_words * 4);
    tu_fill_poison((float *)(void *)cs_want, cs_words);
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    tu_read(q, om ? om : im, 0, n * width * e, got);
    tu_read(q, cm, 0, cs_words * 4, cs_got);

    memcpy(want, in, n * width * e);
    float rows[4][128];
    for (size_t r = 0; r < n; r++) {
        size_t b = r / c->seq_len, t = r % c->seq_len;
        cl_int p[4];
        for (int l = 0; l < 4; l++) {
            p[l] = (cl_int)(3u + (c->positions ? (uint32_t)pos[l * ls + r] : (uint32_t)t) +
                            (c->seq_starts ? (uint32_t)starts[b] : 0u));
            table_row(ctx, q, tab, c->R, p[l], rows[l]);
        }
        for (size_t k = 0; k < h; k++) {
            unsigned l = (unsigned)ref_rope_lane(c->axes, c->sec, k);
            size_t cc = c->layout ? 2 * k : k, sc = c->layout ? 2 * k + 1 : k + h;
            float co = rows[l][cc], si = rows[l][sc];
            long double ang = (long double)p[l] * (long double)w[k];
            double tol = (1.5e-7 + ldexp(fabs((double)ang), -53)) * m;
            TU_CHECK(fabs(co - m * (double)cosl(ang)) <= tol && fabs(si - m * (double)sinl(ang)) <= tol,
                     "case %d token %zu pair %zu (lane %u, p %d): cos %.9g sin %.9g", _i, r, k,
                     l, (int)p[l], (double)co, (double)si);
            size_t o1 = r * cs_stride + (L == 1 ? 2 * k : k), o2 = o1 + (L == 1 ? 1 : h);
            fr_store(cs_want, o1, c->dt, L == 3 ? si : co);
            fr_store(cs_want, o2, c->dt, L == 2 ? co : si);
            size_t i1 = c->pairing ? 2 * k : k, i2 = c->pairing ? 2 * k + 1 : k + h;
            for (size_t hh = 0; hh < heads; hh++) {
                size_t o = r * width + hh * hd;
                float x1 = fr_load(in, o + i1, c->dt), x2 = fr_load(in, o + i2, c->dt);
                fr_store(want, o + i1, c->dt, fmaf(x1, co, -(x2 * si)));
                fr_store(want, o + i2, c->dt, fmaf(x2, co, x1 * si));
            }
        }
    }
    for (size_t i = 0; i < n * width; i++)
        TU_CHECK(!memcmp(got + i * e, want + i * e, e), "case %d element %zu (token %zu col %zu)",
                 _i, i, i / width, i % hd);
    ck_assert_msg(!memcmp(cs_got, cs_want, cs_words * 4), "case %d: cos_sin (layout %d) differs",
                  _i, L);
    TU_FREE(in, got, want, pos, cs_got, cs_want);
    TU_RELEASE(ctx, q, tab, im, om, pm, sm, cm);
}
END_TEST

/* Text: lanes that hold one value rotate as the one-axis table does. */
START_TEST(mrope_text_is_one_axis)
{
    enum { N = 40, HD = 64 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("mrope_text");
    float x[N * HD], a1[N * HD], a2[N * HD];
    int32_t pos[3 * N];
    tu_rng_floats(&rng, x, N * HD, -2.0f, 2.0f);
    for (int r = 0; r < N; r++)
        pos[r] = pos[N + r] = pos[2 * N + r] = tu_rng_int(&rng, -5, 1 << 22);
    sinpe_rope_spec one = axes_spec(0, HD, 0, 0, 0, 0);
    sinpe_rope_spec multi = axes_spec(_i + 1, HD, 12, 10, 10, 0);
    one.base = multi.base = 1e6;
    sinpe_table *t1 = NULL, *t2 = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &one, 100, &t1));
    TU_OK(sinpe_rope_table_create(ctx, &multi, 100, &t2));
    ck_assert_ptr_ne(t1, t2);
    cl_mem xm = tu_buffer(ctx, sizeof x, x), pm = tu_buffer(ctx, sizeof pos, pos);
    cl_mem o1 = tu_poisoned_buffer(ctx, q, N * HD), o2 = tu_poisoned_buffer(ctx, q, N * HD);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 1, a.seq_len = N, a.head_dim = HD, a.q = xm, a.q_heads = 1, a.positions = pm;
    a.q_out = o1;
    TU_OK(sinpe_enqueue_rope(t1, q, &a, 0, NULL, NULL));
    a.q_out = o2;
    TU_OK(sinpe_enqueue_rope(t2, q, &a, 0, NULL, NULL));
    tu_read(q, o1, 0, sizeof a1, a1), tu_read(q, o2, 0, sizeof a2, a2);
    ck_assert_msg(!memcmp(a1, a2, sizeof a1), "axes %d: text tokens differ from one axis", _i + 1);
    sinpe_table_release(t2);
    TU_RELEASE(ctx, q, t1, xm, pm, o1, o2);
}
END_TEST

/* The device functions: a host kernel's cos and sin of each pair at its
   lane's position are the rotation's (a unit vector rotated gives them). */
START_TEST(mrope_device_functions)
{
    enum { N = 24, R = 48, H = R / 2 };
    static const int axes[3] = {1, 2, 3};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("mrope_device");
    sinpe_rope_spec s = axes_spec(axes[_i], R, 8, 8, 8, 0);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 30, &tab));
    int32_t pl[4 * N], lanes[3 * N];
    for (int r = 0; r < N; r++)
        for (int l = 0; l < 4; l++)
            pl[4 * r + l] = l < 3 ? (lanes[l * N + r] = tu_rng_int(&rng, -9, 60)) : 0;
    float ones[N * R], via_rope[N * R];
    for (int i = 0; i < N * R; i++)
        ones[i] = i % R < H ? 1.0f : 0.0f; /* x1 = 1, x2 = 0: y1 = cos, y2 = sin */
    cl_mem xm = tu_buffer(ctx, sizeof ones, ones), lm = tu_buffer(ctx, sizeof lanes, lanes);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 1, a.seq_len = N, a.head_dim = R, a.q = xm, a.q_heads = 1, a.positions = lm;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    tu_read(q, xm, 0, sizeof via_rope, via_rope);
    static const cl_uint sec[4] = {8, 8, 8, 0};
    float *via_fn = tu_rope_probe(ctx, q, tab, R, (cl_uint)axes[_i], sec, pl, N);
    for (int i = 0; i < N * R; i++)
        TU_CHECK(tu_same_bits(via_fn[i], via_rope[i]), "axes %d token %d col %d: %a, rotation %a",
                 axes[_i], i / R, i % R, (double)via_fn[i], (double)via_rope[i]);
    free(via_fn);
    TU_RELEASE(ctx, q, tab, xm, lm);
}
END_TEST

/* ---- bad input --------------------------------------------------------------- */

START_TEST(mrope_bad_input)
{
    static const struct {
        int axes;
        size_t R, sec[4];
        int rule;
        const char *names;
    } specs[] = {
        {1, 64, {16, 10, 10}, 0, "add up to 36"},     {3, 64, {16, 16, 16, 16}, 0, "add up"},
        {0, 64, {32}, 0, "sections[0]"},              {4, 64, {32}, 0, "spec.axes"},
        {2, 64, {8, 12, 12}, 0, "interleaved rule"},  {3, 64, {31, 1}, 2, "DYNAMIC"},
        {1, 64, {40, 0, 0, 0}, 0, "sections[0] 40"},
    };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sinpe_rope_spec s = axes_spec(specs[i].axes, specs[i].R, specs[i].sec[0], specs[i].sec[1],
                                      specs[i].sec[2], specs[i].sec[3]);
        s.rule = (sinpe_rope_rule)specs[i].rule, s.factor = 2, s.max_positions = 64;
        sinpe_table *t = (sinpe_table *)&t;
        TU_STATUS(sinpe_rope_table_create(ctx, &s, 8, &t), SINPE_INVALID_SPEC);
        ck_assert_ptr_null(t);
        ck_assert_msg(strstr(sinpe_last_error(), specs[i].names), "spec %zu: \"%s\" lacks \"%s\"",
                      i, sinpe_last_error(), specs[i].names);
    }
    enum { N = 6, HD = 16 };
    sinpe_rope_spec s = axes_spec(1, HD, 3, 3, 2, 0);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 8, &tab));
    cl_mem x = tu_poisoned_buffer(ctx, q, N * HD), lanes = tu_zero_buffer(ctx, 3 * N - 1);
    cl_mem enough = tu_zero_buffer(ctx, 3 * N + 4);
    float *before = tu_read_floats(q, x, N * HD);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 2, a.seq_len = N / 2, a.head_dim = HD, a.q = x, a.q_heads = 1, a.positions = lanes;
    TU_STATUS(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL), SINPE_BUFFER_TOO_SMALL);
    ck_assert_msg(strstr(sinpe_last_error(), "args->positions"), "%s", sinpe_last_error());
    a.positions = enough, a.lane_stride = N - 1;
    TU_STATUS(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL), SINPE_INVALID_SHAPE);
    ck_assert_msg(strstr(sinpe_last_error(), "lane_stride"), "%s", sinpe_last_error());
    a.lane_stride = N + 3; /* lane 2 ends at 2 (N + 3) + N = 3 N + 6 > 3 N + 4 */
    TU_STATUS(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL), SINPE_BUFFER_TOO_SMALL);
    a.lane_stride = (size_t)-1 / 2;
    TU_STATUS(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL), SINPE_BUFFER_TOO_SMALL);
    /* cos_sin: its layout, stride, size, overlap; no heads without it. */
    a.lane_stride = N + 2;
    cl_mem cs = tu_poisoned_buffer(ctx, q, N * HD), small = tu_poisoned_buffer(ctx, q, N * HD - 1);
    float *cs_before = tu_read_floats(q, cs, N * HD);
    static const struct {
        sinpe_status want;
        const char *names;
    } bad[] = {{SINPE_INVALID_OPTION, "args->cos_sin_layout 4"},
               {SINPE_INVALID_SHAPE, "args->cos_sin_stride 15"},
               {SINPE_BUFFER_TOO_SMALL, "args->cos_sin"},
               {SINPE_BUFFERS_OVERLAP, "args->q and args->cos_sin"},
               {SINPE_INVALID_SHAPE, "no args->cos_sin"}};
    for (int i = 0; i < 5; i++) {
        sinpe_rope_args b = a;
        b.cos_sin = i == 2 ? small : i == 3 ? x : cs;
        b.cos_sin_layout = (sinpe_rope_layout)(i == 0 ? 4 : 0);
        b.cos_sin_stride = i == 1 ? HD - 1 : 0;
        if (i == 4)
            b.cos_sin = NULL, b.q_heads = 0;
        TU_STATUS(sinpe_enqueue_rope(tab, q, &b, 0, NULL, NULL), bad[i].want);
        TU_MESSAGE_HAS(bad[i].names);
    }
    TU_CL(clFinish(q));
    float *after = tu_read_floats(q, x, N * HD), *cs_after = tu_read_floats(q, cs, N * HD);
    ck_assert_msg(!memcmp(before, after, N * HD * sizeof *after), "a refused call wrote q");
    ck_assert_msg(!memcmp(cs_before, cs_after, N * HD * sizeof *after), "a refused call wrote cos_sin");
    a.lane_stride = N + 2; /* exactly enough */
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    /* cos_sin alone (no heads) gives what it gives beside the rotation. */
    sinpe_rope_args c = a;
    c.cos_sin = cs, c.q_heads = 0;
    TU_OK(sinpe_enqueue_rope(tab, q, &c, 0, NULL, NULL));
    float *alone = tu_read_floats(q, cs, N * HD), *beside;
    c.q_heads = 1, c.cos_sin = tu_poisoned_buffer(ctx, q, N * HD);
    TU_OK(sinpe_enqueue_rope(tab, q, &c, 0, NULL, NULL));
    beside = tu_read_floats(q, c.cos_sin, N * HD);
    ck_assert_msg(!memcmp(alone, beside, N * HD * sizeof *alone), "cos_sin alone differs");
    TU_FREE(before, after, cs_before, cs_after, alone, beside);
    TU_RELEASE(ctx, q, tab, x, lanes, enough, cs, small, c.cos_sin);
}
END_TEST

/* Lanes from a grid: the same bits as the lanes written out on the host
   (frame, row, column of t - grid_start; start on a text prefix). */
START_TEST(mrope_grid_lanes)
{
    static const struct {
        size_t sec[4], frames, rows, cols, prefix, n_seqs;
    } g[] = {{{22, 21, 21}, 3, 4, 5, 0, 2}, {{20, 20}, 1, 6, 7, 0, 1},
             {{8, 28, 28}, 1, 4, 4, 9, 2}, {{4, 10, 9, 9}, 2, 2, 3, 2, 1}};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("mrope_grid");
    size_t R = 0, lanes = 0, L = g[_i].prefix + g[_i].frames * g[_i].rows * g[_i].cols;
    for (int l = 0; l < 4; l++)
        R += 2 * g[_i].sec[l], lanes = g[_i].sec[l] ? (size_t)l + 1 : lanes;
    size_t n = g[_i].n_seqs * L, hd = R;
    sinpe_rope_spec s = axes_spec(SINPE_ROPE_AXES_ND, R, g[_i].sec[0], g[_i].sec[1],
                                  g[_i].sec[2], g[_i].sec[3]);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 6, &tab));
    float *x = tu_malloc(n * hd * sizeof *x), *a1 = tu_malloc(n * hd * 4), *a2 = tu_malloc(n * hd * 4);
    int32_t *pos = tu_malloc(lanes * n * sizeof *pos), starts[2] = {3, 1000};
    tu_rng_floats(&rng, x, n * hd, -2.0f, 2.0f);
    for (size_t r = 0; r < n; r++) {
        size_t t = r % L, cell = g[_i].rows * g[_i].cols, gi = t - g[_i].prefix;
        size_t coord[3] = {gi / cell, gi / g[_i].cols % g[_i].rows, gi % g[_i].cols};
        for (size_t l = 0; l < lanes; l++) {
            size_t from_last = lanes - 1 - l;
            pos[l * n + r] = t < g[_i].prefix || from_last > 2 ? 0 : (int32_t)coord[2 - from_last];
        }
    }
    cl_mem xm = tu_buffer(ctx, n * hd * 4, x), pm = tu_buffer(ctx, lanes * n * 4, pos);
    cl_mem sm = tu_buffer(ctx, sizeof starts, starts);
    cl_mem o1 = tu_poisoned_buffer(ctx, q, n * hd), o2 = tu_poisoned_buffer(ctx, q, n * hd);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = g[_i].n_seqs, a.seq_len = L, a.head_dim = hd, a.q = xm, a.q_heads = 1;
    a.start = 5, a.seq_starts = sm, a.q_out = o1, a.positions = pm;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    a.positions = NULL, a.q_out = o2;
    a.grid_rows = g[_i].rows, a.grid_cols = g[_i].cols, a.grid_start = g[_i].prefix;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    tu_read(q, o1, 0, n * hd * 4, a1), tu_read(q, o2, 0, n * hd * 4, a2);
    for (size_t i = 0; i < n * hd; i++)
        TU_CHECK(tu_same_bits(a1[i], a2[i]), "grid %d: element %zu: grid %a, lanes %a", _i, i,
                 (double)a2[i], (double)a1[i]);
    /* Bad grids: their status, nothing written. */
    float *before = tu_read_floats(q, o2, n * hd);
    for (int i = 0; i < 4; i++) {
        sinpe_rope_args b = a;
        sinpe_status want = SINPE_INVALID_SHAPE;
        switch (i) {
        case 0: b.positions = pm, want = SINPE_INVALID_OPTION; break;
        case 1: b.grid_rows = 0; break;
        case 2: b.grid_start = g[_i].prefix + 1; break;
        case 3: b.grid_cols = g[_i].cols + 1; break;
        }
        TU_STATUS(sinpe_enqueue_rope(tab, q, &b, 0, NULL, NULL), want);
        ck_assert_msg(strstr(sinpe_last_error(), i ? "grid_" : "positions"), "%s",
                      sinpe_last_error());
    }
    float *after = tu_read_floats(q, o2, n * hd);
    ck_assert_msg(!memcmp(before, after, n * hd * 4), "a refused grid wrote q_out");
    TU_FREE(x, a1, a2, pos, before, after);
    TU_RELEASE(ctx, q, tab, xm, pm, sm, o1, o2);
}
END_TEST

/* The position builder: the header's example (HF's get_rope_index
   docstring: a 3 x 4 x 4 video at 50 positions a frame, text after it
   from 101), then bad prompts with their status, lanes untouched. */
START_TEST(mrope_positions_builder)
{
    enum { V = 7, S = 12 + 5 };
    int32_t ids[S], lanes[3 * S], deltas[1] = {-7};
    for (int t = 0; t < S; t++)
        ids[t] = t < 12 ? V : 100 + t;
    static const int32_t grid[3] = {3, 4, 4};
    static const double spg[1] = {2.0};
    sinpe_mrope_prompt p;
    sinpe_mrope_prompt_init(&p);
    ck_assert(p.tokens_per_second == 2.0 && p.spatial_merge_size == 2);
    p.rule = SINPE_MROPE_QWEN2_5_VL, p.n_seqs = 1, p.seq_len = S, p.ids = ids;
    p.image_token = 6, p.video_token = V, p.video_grid_thw = grid, p.n_videos = 1;
    p.second_per_grid = spg, p.tokens_per_second = 25;
    TU_OK(sinpe_mrope_positions(&p, lanes, deltas));
    for (int t = 0; t < 12; t++) {
        ck_assert_int_eq(lanes[t], t / 4 * 50);
        ck_assert_int_eq(lanes[S + t], t / 2 % 2);
        ck_assert_int_eq(lanes[2 * S + t], t % 2);
    }
    for (int t = 12; t < S; t++)
        ck_assert(lanes[t] == 89 + t && lanes[S + t] == 89 + t && lanes[2 * S + t] == 89 + t);
    ck_assert_int_eq(deltas[0], 106 - S);
    static const int32_t odd[3] = {3, 3, 4}, zero[3] = {0, 4, 4}, big[3] = {4, 4, 4};
    static const double bad_spg[1] = {-1.0};
    for (int i = 0; i < 9; i++) {
        sinpe_mrope_prompt b = p;
        int32_t *out = lanes;
        const sinpe_mrope_prompt *bp = &b;
        sinpe_status want = SINPE_INVALID_SHAPE;
        const char *names = "video_grid_thw[0]";
        switch (i) {
        case 0: bp = NULL, want = SINPE_NULL_ARGUMENT, names = "prompt"; break;
        case 1: out = NULL, want = SINPE_NULL_ARGUMENT, names = "lanes"; break;
        case 2: b.rule = (sinpe_mrope_rule)3, want = SINPE_INVALID_OPTION, names = "rule"; break;
        case 3: b.video_grid_thw = odd; break;
        case 4: b.video_grid_thw = zero; break;
        case 5: b.video_grid_thw = big; break; /* 16 tokens, 12 there */
        case 6: b.second_per_grid = bad_spg, names = "second_per_grid"; break;
        case 7: b.spatial_merge_size = 0, names = "spatial_merge_size"; break;
        case 8: b.video_grid_thw = NULL, want = SINPE_NULL_ARGUMENT, names = "video_grid_thw"; break;
        }
        for (int t = 0; t < 3 * S; t++)
            lanes[t] = -99;
        TU_STATUS(sinpe_mrope_positions(bp, out, NULL), want);
        ck_assert_msg(strstr(sinpe_last_error(), names), "case %d: \"%s\" lacks %s", i,
                      sinpe_last_error(), names);
        for (int t = 0; t < 3 * S; t++)
            ck_assert_msg(lanes[t] == -99, "case %d wrote lane element %d", i, t);
    }
}
END_TEST

TU_SUITE(mrope, 120)
{
    Suite *s = suite_create("mrope");
    TCase *tc = tu_tcase(s, "mrope", NULL);
    tcase_add_test(tc, mrope_frequencies);
    tcase_add_loop_test(tc, mrope_presets, 0, (int)(sizeof presets / sizeof presets[0]));
    tcase_add_loop_test(tc, mrope_device_functions, 0, 3);
    TU_ADD(tc, mrope_bad_input, mrope_positions_builder);
    /* The rotation's kernel under every record that launches it otherwise. */
    tc = tu_tcase(s, "mrope-rotation", "rope");
    tcase_add_loop_test(tc, mrope_rotation_bits, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, mrope_text_is_one_axis, 0, 2);
    tcase_add_loop_test(tc, mrope_grid_lanes, 0, 4);
    return s;
}
