/*
 * check_ggml_rope.c -- sinpe_enqueue_rope() against ggml_rope_ext and
 * ggml_rope_multi on ggml's CPU backend (see check_ggml.c).
 *
 * Each case rotates the same heads (float32, or fp16 values in F16
 * tensors) at the same positions (ggml's four int32 lanes per token, which
 * sinpe reads as they are) with ggml and with sinpe's spec of the same
 * model.  sinpe is measured against long double cos and sin of its float64
 * frequencies, which must be the long double value of the rule as the
 * header (HF's modeling_rope_utils) defines it, with ggml's lane and
 * frequency index; ggml against long double of its own definition of the
 * parameters it is given, whose largest relative difference from the
 * rule's is printed ("ggml def"), so that a disagreement between the two
 * definitions shows as a number.  sinpe passes within the bound derived
 * from the header's (plus half an fp16 ulp for F16 heads, rounded once),
 * and agrees with ggml below position 64, where ggml's float32 angles are
 * still close: within 1e-5 (plus one fp16 ulp for F16 heads, each rounding
 * its own float32 value); another pairing, lane, frequency or scale is off
 * by far more there.
 *
 * How ggml's parameters map onto the spec:
 *   YaRN     freq_scale = 1/factor, ext_factor 1, beta_fast and beta_slow,
 *            n_ctx_orig = original_max_positions.  ggml forms the
 *            correction dims as HF does (floored and ceiled, i.e. truncate
 *            1; it has no untruncated form), in float32, and divides the
 *            ramp by max(0.001, hi - lo) where HF adds 0.001 to hi when hi
 *            == lo: the same for hi >= lo.  ggml multiplies cos and sin by
 *            attn_factor (1 + 0.1 ln(1/freq_scale)), as sinpe applies m:
 *            attn_factor is m / (1 + 0.1 ln factor) (1 for Qwen's m, the
 *            ratio llama.cpp passes for DeepSeek's mscale_all_dim).
 *            ext_factor between 0 and 1, which HF has not, is not checked.
 *   factors  ggml's freq_factors divide pair k's frequency.  Llama 3.1:
 *            the per-pair factors base^-e_k / w_k of the LLAMA3 rule, as a
 *            GGUF stores them (float32, so within 2^-24 of the rule);
 *            Phi-3.5: LONGROPE's long_factor (float32 values already), with
 *            attn_factor its m.
 *   VISION   with YaRN (no model has both; HF's vision towers have no
 *            scaling): sinpe's AXES_ND gives each axis the rule of a rope of
 *            2 s_l dimensions, the ramp's index restarting with the
 *            frequency's; ggml ramps over the pair's index in the whole
 *            head, so that the second axis is interpolated where sinpe
 *            extrapolates.  The case shows how far apart that is.
 * "ggml def" is then the largest relative difference of a frequency or m
 * between the two definitions in long double: 0 where ggml's float32
 * parameters hold the rule's values exactly (factor 4), else the float32
 * rounding of what ggml is given (1/40, the Llama 3.1 factors, m), a few
 * 1e-8; a wrong mapping would show as 1e-3 or more.
 */
#include "check_ggml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_TOK = 384, N_SMALL = 128, N_HEADS = 2 }; /* the first N_SMALL tokens: lanes below 64 */

enum scaling { PLAIN, YARN_X4, YARN_MLA, LLAMA3_FACTORS, LONG_FACTORS };

typedef struct rope_case {
    const char *name;
    int mode;                  /* ggml's rope mode */
    sinpe_rope_preset preset;  /* sinpe's spec of the same model */
    int head_dim;
    int sections[4];           /* ggml's; all 0 for one lane */
    int rotary_dim;            /* 0: the preset's; else this R with the sections above */
    enum scaling scaling;      /* YARN_X4: factor 4, orig 32768; YARN_MLA: factor 40,
                                  orig 4096, mscale 1 and 1 (m = 1) */
    int f16;                   /* heads in fp16 */
    int ggml_differs;          /* ggml defines it otherwise (see above): the agreement
                                  below position 64 is printed, not required */
} rope_case;

#define G(mode) GGML_ROPE_TYPE_##mode
#define P(preset) SINPE_ROPE_PRESET_##preset
static const rope_case rope_cases[] = {
    {"NORMAL gpt-j, R 64 of 128", G(NORMAL), P(GPTJ), 128, {0}, .scaling = PLAIN},
    {"NEOX   qwen2, head 128", G(NEOX), P(QWEN2), 128, {0}, .scaling = PLAIN},
    {"NEOX   pythia, R 32 of 128", G(NEOX), P(GPT_NEOX), 128, {0}, .scaling = PLAIN},
    {"MROPE  qwen2-vl 16/24/24", G(MROPE), P(QWEN2_VL), 128, {16, 24, 24, 0}, .scaling = PLAIN},
#ifdef GGML_ROPE_TYPE_IMROPE
    {"IMROPE qwen3-vl 24/20/20", G(IMROPE), P(QWEN3_VL), 128, {24, 20, 20, 0}, .scaling = PLAIN},
    {"IMROPE qwen3.5 11/11/10, R 64 of 256", G(IMROPE), P(QWEN3_5), 256, {11, 11, 10, 0},
     .scaling = PLAIN},
#endif
    {"VISION qwen2-vl tower, head 80", G(VISION), P(QWEN2_VL_VISION), 80, {20, 20, 0, 0},
     .scaling = PLAIN},
    {"VISION head 128", G(VISION), P(QWEN2_VL_VISION), 128, {32, 32, 0, 0}, .scaling = PLAIN},
    {"YARN   qwen2.5 x4, NEOX head 128", G(NEOX), P(QWEN2_YARN), 128, {0}, .scaling = YARN_X4},
    {"YARN   x4 NEOX, R 64 of 128", G(NEOX), P(QWEN2_YARN), 128, {0},
     .rotary_dim = 64, .scaling = YARN_X4},
    {"YARN   deepseek x40 m 1, NORMAL 64", G(NORMAL), P(GPTJ), 64, {0}, .scaling = YARN_MLA},
    {"YARN   MROPE qwen2-vl 16/24/24 x4", G(MROPE), P(QWEN2_VL), 128, {16, 24, 24, 0},
     .scaling = YARN_X4},
#ifdef GGML_ROPE_TYPE_IMROPE
    {"YARN   IMROPE qwen3-vl 24/20/20 x4", G(IMROPE), P(QWEN3_VL), 128, {24, 20, 20, 0},
     .scaling = YARN_X4},
#endif
    {"YARN   VISION head 128 x4", G(VISION), P(QWEN2_VL_VISION), 128, {32, 32, 0, 0},
     .scaling = YARN_X4, .ggml_differs = 1},
    {"FREQS  llama3.1 factors, NEOX 128", G(NEOX), P(LLAMA3_1), 128, {0},
     .scaling = LLAMA3_FACTORS},
    {"FREQS  phi3.5 long factors, NEOX 96", G(NEOX), P(PHI3_LONGROPE), 96, {0},
     .scaling = LONG_FACTORS},
    {"MROPE  8/12/12, R 64 of 128", G(MROPE), P(QWEN2_VL), 128, {8, 12, 12, 0}, .rotary_dim = 64},
    {"F16 NORMAL gpt-j, R 64 of 128", G(NORMAL), P(GPTJ), 128, {0}, .f16 = 1},
    {"F16 NEOX qwen2, head 128", G(NEOX), P(QWEN2), 128, {0}, .f16 = 1},
    {"F16 MROPE qwen2-vl 16/24/24", G(MROPE), P(QWEN2_VL), 128, {16, 24, 24, 0}, .f16 = 1},
#ifdef GGML_ROPE_TYPE_IMROPE
    {"F16 IMROPE qwen3.5, R 64 of 256", G(IMROPE), P(QWEN3_5), 256, {11, 11, 10, 0}, .f16 = 1},
#endif
    {"F16 VISION head 80", G(VISION), P(QWEN2_VL_VISION), 80, {20, 20, 0, 0}, .f16 = 1},
    {"F16 YARN qwen2.5 x4, NEOX 128", G(NEOX), P(QWEN2_YARN), 128, {0},
     .scaling = YARN_X4, .f16 = 1},
    {"F16 FREQS llama3.1, NEOX 128", G(NEOX), P(LLAMA3_1), 128, {0},
     .scaling = LLAMA3_FACTORS, .f16 = 1},
};

/* ggml's parameters of a case. */
typedef struct rope_params {
    int n_dims, n_ctx_orig;
    float freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;
    const float *factors; /* freq_factors, or NULL */
} rope_params;

/* ggml's four lanes of N_TOK tokens: text tokens (every lane the same)
   and image tokens (s, s + row, s + column), the first N_SMALL below 64,
   the others up to 1e6 (1e6 itself among them).  The fourth lane repeats
   the first: ggml's IMROPE reads it for the pairs the interleaving leaves
   over (Qwen3-VL's 61 and 62), where HF transformers and sinpe read the
   first. */
static void make_positions(int32_t *pos)
{
    for (int r = 0; r < N_TOK; r++) {
        int small = r < N_SMALL, text = r % 4 == 0;
        int32_t s = small ? rng_int(0, text ? 63 : 39) : rng_int(0, text ? 1000000 : 998999);
        int32_t span = small ? 24 : 1000;
        if (r == N_TOK - 1)
            s = 1000000, text = 1;
        pos[r] = s;
        pos[N_TOK + r] = text ? s : s + rng_int(0, span - 1);
        pos[2 * N_TOK + r] = text ? s : s + rng_int(0, span - 1);
        pos[3 * N_TOK + r] = s;
    }
}

/* Lane and frequency index of pair k as ggml.h documents its modes. */
static int ggml_lane(const rope_case *c, int k, int *j)
{
    const int *s = c->sections;
    *j = k;
    if (c->mode == GGML_ROPE_TYPE_NORMAL || c->mode == GGML_ROPE_TYPE_NEOX)
        return 0;
#ifdef GGML_ROPE_TYPE_IMROPE
    if (c->mode == GGML_ROPE_TYPE_IMROPE) {
        int l = k % 3;
        return k < 3 * s[l] ? l : 3;
    }
#endif
    for (int l = 0, end = 0; l < 4; end += s[l++])
        if (k < end + s[l]) {
            *j = c->mode == GGML_ROPE_TYPE_VISION ? k - end : k; /* VISION: j restarts */
            return l;
        }
    return 3;
}

static double fp16_ulp(double v) /* of a normal or subnormal fp16 value near v */
{
    int e;
    frexp(fabs(v), &e);
    return ldexp(1.0, (e - 11 < -24 ? -24 : e - 11));
}

/* ggml's rotation of x on its CPU backend, into y (float32 or fp16 values). */
static void ggml_rotate(const rope_case *c, const rope_params *p, float base, const float *x,
                        const int32_t *pos, float *y)
{
    int hd = c->head_dim, multi = c->sections[0] != 0;
    size_t n = (size_t)hd * N_HEADS * N_TOK;
    struct ggml_init_params ip = {64u << 20, NULL, false};
    struct ggml_context *g = ggml_init(ip);
    struct ggml_tensor *a =
        ggml_new_tensor_3d(g, c->f16 ? GGML_TYPE_F16 : GGML_TYPE_F32, hd, N_HEADS, N_TOK);
    struct ggml_tensor *b = ggml_new_tensor_1d(g, GGML_TYPE_I32, multi ? 4 * N_TOK : N_TOK);
    struct ggml_tensor *f = NULL;
    for (size_t i = 0; i < n; i++)
        if (c->f16)
            ((ggml_fp16_t *)a->data)[i] = ggml_fp32_to_fp16(x[i]);
        else
            ((float *)a->data)[i] = x[i];
    memcpy(b->data, pos, (size_t)(multi ? 4 : 1) * N_TOK * sizeof *pos);
    if (p->factors) {
        f = ggml_new_tensor_1d(g, GGML_TYPE_F32, p->n_dims / 2);
        memcpy(f->data, p->factors, (size_t)p->n_dims / 2 * sizeof(float));
    }
    struct ggml_tensor *o =
        multi ? ggml_rope_multi(g, a, b, f, p->n_dims, (int *)c->sections, c->mode, p->n_ctx_orig,
                                base, p->freq_scale, p->ext_factor, p->attn_factor, p->beta_fast,
                                p->beta_slow)
              : ggml_rope_ext(g, a, b, f, p->n_dims, c->mode, p->n_ctx_orig, base, p->freq_scale,
                              p->ext_factor, p->attn_factor, p->beta_fast, p->beta_slow);
    struct ggml_cgraph *gf = ggml_new_graph(g);
    ggml_build_forward_expand(gf, o);
    need(ggml_graph_compute_with_ctx(g, gf, 2) == GGML_STATUS_SUCCESS, "ggml compute", 0);
    for (size_t i = 0; i < n; i++)
        y[i] = c->f16 ? ggml_fp16_to_fp32(((ggml_fp16_t *)o->data)[i]) : ((float *)o->data)[i];
    ggml_free(g);
}

static void sinpe_rotate(sinpe_context *ctx, const sinpe_rope_spec *spec, const rope_case *c,
                         const float *x, const int32_t *pos, float *y)
{
    size_t n = (size_t)c->head_dim * N_HEADS * N_TOK, es = c->f16 ? 2 : 4;
    ggml_fp16_t *h = malloc(n * sizeof *h);
    sinpe_table *t = NULL;
    OK(sinpe_rope_table_create(ctx, spec, 4096, &t));
    for (size_t i = 0; c->f16 && i < n; i++)
        h[i] = ggml_fp32_to_fp16(x[i]);
    cl_mem xm = buffer(ctx, n * es, c->f16 ? (const void *)h : x), ym = buffer(ctx, n * es, NULL);
    cl_mem pm = buffer(ctx, 4 * N_TOK * sizeof *pos, pos);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 1, a.seq_len = N_TOK, a.head_dim = (size_t)c->head_dim;
    a.dtype = c->f16 ? SINPE_F16 : SINPE_F32;
    a.q = xm, a.q_heads = N_HEADS, a.q_out = ym, a.positions = pm;
    OK(sinpe_enqueue_rope(t, sinpe_context_queue(ctx), &a, 0, NULL, NULL));
    if (c->f16) {
        read_back(ctx, ym, n * es, h);
        for (size_t i = 0; i < n; i++)
            y[i] = ggml_fp16_to_fp32(h[i]);
    } else {
        read_back(ctx, ym, n * es, y);
    }
    clReleaseMemObject(xm), clReleaseMemObject(ym), clReleaseMemObject(pm);
    sinpe_table_release(t);
    free(h);
}

/* The case's spec, and ggml's parameters of the same model (factors: room
   for R/2 floats). */
static void case_spec(const rope_case *c, sinpe_rope_spec *spec, rope_params *p, float *factors)
{
    OK(sinpe_rope_preset(spec, c->preset, (size_t)c->head_dim));
    if (c->rotary_dim) {
        spec->rotary_dim = (size_t)c->rotary_dim;
        for (int l = 0; l < 4 && spec->axes != SINPE_ROPE_ONE_AXIS; l++)
            spec->sections[l] = (size_t)c->sections[l];
    }
    if (c->scaling == YARN_X4 || c->scaling == YARN_MLA) {
        spec->rule = SINPE_ROPE_YARN;
        spec->factor = c->scaling == YARN_X4 ? 4 : 40;
        spec->original_max_positions = c->scaling == YARN_X4 ? 32768 : 4096;
        spec->mscale = spec->mscale_all_dim = c->scaling == YARN_MLA;
    }
    int R = (int)spec->rotary_dim;
    *p = (rope_params){c->mode == GGML_ROPE_TYPE_VISION ? c->head_dim / 2 : R, 0, 1, 0, 1, 0, 0,
                     NULL};
    if (spec->rule == SINPE_ROPE_YARN) {
        p->n_ctx_orig = (int)spec->original_max_positions;
        p->freq_scale = (float)(1.0 / spec->factor), p->ext_factor = 1;
        p->beta_fast = (float)spec->beta_fast, p->beta_slow = (float)spec->beta_slow;
    }
    double w[256], m;
    OK(sinpe_rope_frequencies(spec, w, &m)); /* m only: w is checked against the rule */
    if (spec->rule == SINPE_ROPE_YARN)
        p->attn_factor = (float)(m / (1.0 + 0.1 * log(spec->factor)));
    if (spec->rule == SINPE_ROPE_LONGROPE)
        p->attn_factor = (float)m;
    if (spec->rule == SINPE_ROPE_LLAMA3 || spec->rule == SINPE_ROPE_LONGROPE)
        p->factors = factors;
}

/* Pair k's frequency (index j, of a rotation of D dimensions) as the
   header defines the spec's rule, in long double; *m its attention factor. */
static long double rule_frequency(const sinpe_rope_spec *s, int k, int j, int D, long double *m)
{
    long double base = s->base, f = s->factor, orig = (long double)s->original_max_positions;
    long double x = powl(base, -2.0L * j / D), pi2 = 2 * 3.14159265358979323846264338327950288L;
    *m = 1;
    if (s->rule == SINPE_ROPE_YARN) {
        long double lo = D * logl(orig / (s->beta_fast * pi2)) / (2 * logl(base));
        long double hi = D * logl(orig / (s->beta_slow * pi2)) / (2 * logl(base));
        lo = s->truncate ? floorl(lo) : lo, hi = s->truncate ? ceill(hi) : hi;
        lo = fmaxl(lo, 0), hi = fminl(hi, D - 1), hi += hi == lo ? 0.001L : 0;
        int i = s->axes == SINPE_ROPE_AXES_ND ? j : k; /* AXES_ND: each axis its own rope */
        long double ramp = fminl(fmaxl((i - lo) / (hi - lo), 0), 1);
        *m = s->mscale != 0 && s->mscale_all_dim != 0
                 ? (0.1L * s->mscale * logl(f) + 1) / (0.1L * s->mscale_all_dim * logl(f) + 1)
                 : 0.1L * logl(f) + 1;
        return x / f * ramp + x * (1 - ramp);
    }
    if (s->rule == SINPE_ROPE_LLAMA3) {
        long double l = pi2 / x, lo = orig / s->low_freq_factor, hi = orig / s->high_freq_factor;
        long double sm =
            (orig / l - s->low_freq_factor) / (s->high_freq_factor - s->low_freq_factor);
        return l > lo ? x / f : l < hi ? x : (1 - sm) * x / f + sm * x;
    }
    if (s->rule == SINPE_ROPE_LONGROPE) {
        long double F = f != 0 ? f : (long double)s->max_positions / orig;
        *m = F <= 1 ? 1 : sqrtl(1 + logl(F) / logl(orig));
        return x / (s->length > s->original_max_positions ? s->long_factor[k] : s->short_factor[k]);
    }
    return x;
}

/* The same pair as ggml defines it for its parameters p, in long double. */
static long double ggml_frequency(const rope_params *p, float base, int k, int j, long double *m)
{
    long double x = powl(base, -2.0L * j / p->n_dims) / (p->factors ? p->factors[k] : 1.0f);
    *m = p->attn_factor;
    if (p->ext_factor == 0)
        return p->freq_scale * x;
    float dims[2];
    ggml_rope_yarn_corr_dims(p->n_dims, p->n_ctx_orig, base, p->beta_fast, p->beta_slow, dims);
    long double y = (k - dims[0]) / fmaxl(0.001L, (long double)dims[1] - dims[0]);
    long double mix = (1 - fminl(1, fmaxl(0, y))) * p->ext_factor;
    *m *= 1 + 0.1L * logl(1.0L / p->freq_scale);
    return p->freq_scale * x * (1 - mix) + x * mix;
}

/* (x1, x2) rotated by angle p w, times m, in long double. */
static void rotate_ld(long double p, long double w, long double m, long double x1,
                      long double x2, long double *y)
{
    long double co = m * cosl(p * w), si = m * sinl(p * w);
    y[0] = x1 * co - x2 * si, y[1] = x2 * co + x1 * si;
}

static void check_rope(sinpe_context *ctx, const rope_case *c)
{
    sinpe_rope_spec spec;
    rope_params gp;
    float factors[256];
    case_spec(c, &spec, &gp, factors);
    int hd = c->head_dim, R = (int)spec.rotary_dim, h = R / 2, D = gp.n_dims;
    size_t n = (size_t)hd * N_HEADS * N_TOK;
    double w[256], m = 1.0, ggml_def = 0;
    OK(sinpe_rope_frequencies(&spec, w, &m));
    long double wg[256], mg = 1; /* ggml's own definition, its reference */
    int lane[256], freq_bad = 0;
    for (int k = 0; k < h; k++) { /* the long double rule, ggml's lane and index */
        int j;
        long double want_m;
        lane[k] = ggml_lane(c, k, &j);
        long double want = rule_frequency(&spec, k, j, D, &want_m);
        factors[k] = (float)(powl(spec.base, -2.0L * j / D) / want); /* the GGUF's factors */
        if (spec.rule == SINPE_ROPE_LONGROPE)
            factors[k] = (float)spec.long_factor[k];
        long double e = 2.0L * j / D;
        long double tol = want * (ldexpl(1, -50) + logl((long double)spec.base) * ldexpl(e, -51));
        freq_bad += fabsl((long double)w[k] - want) > tol;
        freq_bad += fabsl(m - want_m) > ldexpl(want_m, -50);
        wg[k] = ggml_frequency(&gp, (float)spec.base, k, j, &mg);
        ggml_def = fmax(ggml_def, (double)fmaxl(fabsl(wg[k] / want - 1), fabsl(mg / want_m - 1)));
    }
    float *x = malloc(n * 4), *yg = malloc(n * 4), *ys = malloc(n * 4);
    int32_t pos[4 * N_TOK];
    for (size_t i = 0; i < n; i++) /* fp16 heads: values an fp16 holds */
        x[i] = c->f16 ? ggml_fp16_to_fp32(ggml_fp32_to_fp16(rng_float())) : rng_float();
    make_positions(pos);
    ggml_rotate(c, &gp, (float)spec.base, x, pos, yg);
    sinpe_rotate(ctx, &spec, c, x, pos, ys);

    double eg[2] = {0, 0}, es[2] = {0, 0}, agree = 0, worst_ratio = 0;
    long over = 0, kept_bad = 0, disagree = 0, bits_differ = 0, values = (long)N_TOK * N_HEADS * R;
    for (int r = 0; r < N_TOK; r++)
        for (int hh = 0; hh < N_HEADS; hh++) {
            size_t o = ((size_t)r * N_HEADS + hh) * hd;
            for (int k = 0; k < h; k++) {
                int i1 = c->mode == GGML_ROPE_TYPE_NORMAL ? 2 * k : k;
                int i2 = c->mode == GGML_ROPE_TYPE_NORMAL ? 2 * k + 1 : k + h;
                long double p = pos[lane[k] * N_TOK + r], ang = p * (long double)w[k];
                long double x1 = x[o + i1], x2 = x[o + i2], want[2], want_g[2];
                rotate_ld(p, w[k], m, x1, x2, want);
                rotate_ld(p, wg[k], mg, x1, x2, want_g);
                double tol = (1.5e-7 + ldexp(fabs((double)ang), -53)) * m;
                double bound = (double)(fabsl(x1) + fabsl(x2)) * (tol + ldexp(m + tol, -23));
                for (int e = 0; e < 2; e++) {
                    size_t i = o + (e ? i2 : i1);
                    double dg = (double)fabsl(yg[i] - want_g[e]);
                    double ds = (double)fabsl(ys[i] - want[e]);
                    double b = c->f16 ? bound + fp16_ulp(fabsl(want[e]) + bound) / 2 : bound;
                    eg[r >= N_SMALL] = fmax(eg[r >= N_SMALL], dg);
                    es[r >= N_SMALL] = fmax(es[r >= N_SMALL], ds);
                    over += ds > b;
                    worst_ratio = fmax(worst_ratio, ds / b);
                    if (r >= N_SMALL)
                        continue;
                    double d = fabs((double)ys[i] - (double)yg[i]);
                    agree = fmax(agree, d), bits_differ += ys[i] != yg[i];
                    double ulp = c->f16 ? fp16_ulp(fmax(fabsf(ys[i]), fabsf(yg[i]))) : 0;
                    disagree += d > 1e-5 + ulp; /* each rounds its float32 value once */
                }
            }
            for (int col = R; col < hd; col++) /* passed through by both */
                kept_bad += ys[o + col] != x[o + col] || yg[o + col] != x[o + col];
        }
    printf("%-36s %ld values: ggml-f64 %.3g (p<64) %.3g (to 1e6) | sinpe-f64 %.3g %.3g, "
           "%.2f of its bound | sinpe-ggml %.3g (p<64",
           c->name, values, eg[0], eg[1], es[0], es[1], worst_ratio, agree);
    if (c->f16)
        printf(", %ld of %d differ", bits_differ, N_SMALL * N_HEADS * R);
    printf(") | ggml def %.2g\n", ggml_def);
    fail_if(freq_bad != 0, "sinpe's float64 frequencies or m are not the rule's");
    fail_if(over != 0, "sinpe outside the header's bound");
    if (c->ggml_differs)
        printf("%36s ggml's own definition, not sinpe's: %ld of %d values below position 64 "
               "differ by more than 1e-5\n", "", disagree, N_SMALL * N_HEADS * R);
    else
        fail_if(disagree != 0, "sinpe and ggml differ by more than 1e-5 (and an fp16 ulp) below "
                           "position 64");
    fail_if(kept_bad != 0, "a column past the rotary part changed");
#ifdef GGML_ROPE_TYPE_IMROPE
    if (c->mode == GGML_ROPE_TYPE_IMROPE && !c->f16) { /* ggml's fourth lane 0, not the first */
        long moved = 0, elsewhere = 0;
        for (int r = 0; r < N_TOK; r++)
            pos[3 * N_TOK + r] = 0;
        ggml_rotate(c, &gp, (float)spec.base, x, pos, yg);
        for (size_t i = 0; i < (size_t)N_SMALL * N_HEADS * hd; i++) {
            int col = (int)(i % (size_t)hd), k = col < h ? col : col - h;
            int mv = col < R && fabsf(ys[i] - yg[i]) > 1e-5f;
            moved += mv && lane[k] == 3, elsewhere += mv && lane[k] != 3;
        }
        printf("%36s then with its fourth lane 0: %ld values of pairs it reads there move, "
               "%ld others\n", "", moved, elsewhere);
        fail_if(elsewhere != 0, "ggml's IMROPE reads its fourth lane for other pairs too");
    }
#endif
    free(x), free(yg), free(ys);
}

void check_rope_all(sinpe_context *ctx)
{
    for (size_t i = 0; i < sizeof rope_cases / sizeof rope_cases[0]; i++)
        check_rope(ctx, &rope_cases[i]);
}
