/*
 * check_ggml_rope.c -- sinpe_enqueue_rope() against ggml_rope_ext and
 * ggml_rope_multi on ggml's CPU backend (see check_ggml.c): NORMAL, NEOX,
 * MROPE, IMROPE and VISION graphs and sinpe's matching preset rotate the
 * same float32 heads at the same positions (ggml's four int32 lanes per
 * token, which sinpe reads as they are), both measured against long double
 * cos and sin of sinpe's float64 frequencies, which must be ggml's formula
 * base^(-2j/D).  sinpe passes within the bound derived from the header's,
 * and within 1e-5 of ggml below position 64, where ggml's float32 angles
 * are still close: another pairing, lane or frequency index is off by far
 * more there.
 */
#include "check_ggml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_TOK = 384, N_SMALL = 128, N_HEADS = 2 }; /* the first N_SMALL tokens: lanes below 64 */

typedef struct rope_case {
    const char *name;
    int mode;                  /* ggml's rope mode */
    sinpe_rope_preset preset;  /* sinpe's spec of the same model */
    int head_dim;
    int sections[4];           /* ggml's; all 0 for one lane */
} rope_case;

#define G(mode) GGML_ROPE_TYPE_##mode
#define P(preset) SINPE_ROPE_PRESET_##preset
static const rope_case rope_cases[] = {
    {"NORMAL gpt-j, R 64 of 128", G(NORMAL), P(GPTJ), 128, {0}},
    {"NEOX   qwen2, head 128", G(NEOX), P(QWEN2), 128, {0}},
    {"NEOX   pythia, R 32 of 128", G(NEOX), P(GPT_NEOX), 128, {0}},
    {"MROPE  qwen2-vl 16/24/24", G(MROPE), P(QWEN2_VL), 128, {16, 24, 24, 0}},
#ifdef GGML_ROPE_TYPE_IMROPE
    {"IMROPE qwen3-vl 24/20/20", G(IMROPE), P(QWEN3_VL), 128, {24, 20, 20, 0}},
    {"IMROPE qwen3.5 11/11/10, R 64 of 256", G(IMROPE), P(QWEN3_5), 256, {11, 11, 10, 0}},
#endif
    {"VISION qwen2-vl tower, head 80", G(VISION), P(QWEN2_VL_VISION), 80, {20, 20, 0, 0}},
    {"VISION head 128", G(VISION), P(QWEN2_VL_VISION), 128, {32, 32, 0, 0}},
};

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

/* ggml's rotation of x (n_dims D) on its CPU backend, into y. */
static void ggml_rotate(const rope_case *c, int D, float base, const float *x, const int32_t *pos,
                        float *y)
{
    int hd = c->head_dim, multi = c->sections[0] != 0;
    struct ggml_init_params ip = {64u << 20, NULL, false};
    struct ggml_context *g = ggml_init(ip);
    struct ggml_tensor *a = ggml_new_tensor_3d(g, GGML_TYPE_F32, hd, N_HEADS, N_TOK);
    struct ggml_tensor *b = ggml_new_tensor_1d(g, GGML_TYPE_I32, multi ? 4 * N_TOK : N_TOK);
    memcpy(a->data, x, (size_t)hd * N_HEADS * N_TOK * sizeof *x);
    memcpy(b->data, pos, (size_t)(multi ? 4 : 1) * N_TOK * sizeof *pos);
    struct ggml_tensor *o =
        multi ? ggml_rope_multi(g, a, b, NULL, D, (int *)c->sections, c->mode, 0, base, 1.0f, 0.0f,
                                1.0f, 0.0f, 0.0f)
              : ggml_rope_ext(g, a, b, NULL, D, c->mode, 0, base, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    struct ggml_cgraph *gf = ggml_new_graph(g);
    ggml_build_forward_expand(gf, o);
    need(ggml_graph_compute_with_ctx(g, gf, 2) == GGML_STATUS_SUCCESS, "ggml compute", 0);
    memcpy(y, o->data, (size_t)hd * N_HEADS * N_TOK * sizeof *y);
    ggml_free(g);
}

static void sinpe_rotate(sinpe_context *ctx, const sinpe_rope_spec *spec, int hd,
                         const float *x, const int32_t *pos, float *y)
{
    size_t n = (size_t)hd * N_HEADS * N_TOK;
    sinpe_table *t = NULL;
    OK(sinpe_rope_table_create(ctx, spec, 4096, &t));
    cl_mem xm = buffer(ctx, n * 4, x), ym = buffer(ctx, n * 4, NULL);
    cl_mem pm = buffer(ctx, 4 * N_TOK * sizeof *pos, pos);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 1, a.seq_len = N_TOK, a.head_dim = (size_t)hd;
    a.q = xm, a.q_heads = N_HEADS, a.q_out = ym, a.positions = pm;
    OK(sinpe_enqueue_rope(t, sinpe_context_queue(ctx), &a, 0, NULL, NULL));
    read_back(ctx, ym, n * 4, y);
    clReleaseMemObject(xm), clReleaseMemObject(ym), clReleaseMemObject(pm);
    sinpe_table_release(t);
}

static void check_rope(sinpe_context *ctx, const rope_case *c)
{
    sinpe_rope_spec spec;
    OK(sinpe_rope_preset(&spec, c->preset, (size_t)c->head_dim));
    int hd = c->head_dim, R = (int)spec.rotary_dim, h = R / 2;
    int D = c->mode == GGML_ROPE_TYPE_VISION ? hd / 2 : R; /* ggml's n_dims */
    size_t n = (size_t)hd * N_HEADS * N_TOK;
    double w[512], m = 1.0;
    OK(sinpe_rope_frequencies(&spec, w, &m));
    int lane[256], freq_bad = 0;
    for (int k = 0; k < h; k++) {
        int j; /* the float64 formula: e = 2j / D rounded, then base^-e */
        lane[k] = ggml_lane(c, k, &j);
        long double e = 2.0L * j / D, want = powl((long double)spec.base, -e);
        long double tol = want * (ldexpl(1, -52) + logl((long double)spec.base) * ldexpl(e, -53));
        freq_bad += fabsl((long double)w[k] - want) > tol;
    }
    float *x = malloc(n * 4), *yg = malloc(n * 4), *ys = malloc(n * 4);
    int32_t pos[4 * N_TOK];
    for (size_t i = 0; i < n; i++)
        x[i] = rng_float();
    make_positions(pos);
    ggml_rotate(c, D, (float)spec.base, x, pos, yg);
    sinpe_rotate(ctx, &spec, hd, x, pos, ys);

    double eg[2] = {0, 0}, es[2] = {0, 0}, agree = 0, worst_ratio = 0;
    long over = 0, kept_bad = 0, values = (long)N_TOK * N_HEADS * R;
    for (int r = 0; r < N_TOK; r++)
        for (int hh = 0; hh < N_HEADS; hh++) {
            size_t o = ((size_t)r * N_HEADS + hh) * hd;
            for (int k = 0; k < h; k++) {
                int i1 = c->mode == GGML_ROPE_TYPE_NORMAL ? 2 * k : k;
                int i2 = c->mode == GGML_ROPE_TYPE_NORMAL ? 2 * k + 1 : k + h;
                long double ang = (long double)pos[lane[k] * N_TOK + r] * (long double)w[k];
                long double co = m * cosl(ang), si = m * sinl(ang);
                long double x1 = x[o + i1], x2 = x[o + i2];
                long double want[2] = {x1 * co - x2 * si, x2 * co + x1 * si};
                double tol = (1.5e-7 + ldexp(fabs((double)ang), -53)) * m;
                double bound = (double)(fabsl(x1) + fabsl(x2)) * (tol + ldexp(m + tol, -23));
                for (int e = 0; e < 2; e++) {
                    size_t i = o + (e ? i2 : i1);
                    double dg = (double)fabsl(yg[i] - want[e]), ds = (double)fabsl(ys[i] - want[e]);
                    eg[r >= N_SMALL] = fmax(eg[r >= N_SMALL], dg);
                    es[r >= N_SMALL] = fmax(es[r >= N_SMALL], ds);
                    over += ds > bound;
                    worst_ratio = fmax(worst_ratio, ds / bound);
                    if (r < N_SMALL)
                        agree = fmax(agree, fabs((double)ys[i] - (double)yg[i]));
                }
            }
            for (int col = R; col < hd; col++) /* passed through by both */
                kept_bad += ys[o + col] != x[o + col] || yg[o + col] != x[o + col];
        }
    printf("%-38s %ld values: ggml-f64 %.3g (p<64) %.3g (to 1e6) | sinpe-f64 %.3g %.3g, "
           "%.2f of its bound | sinpe-ggml %.3g (p<64)\n",
           c->name, values, eg[0], eg[1], es[0], es[1], worst_ratio, agree);
    fail_if(freq_bad != 0, "sinpe's float64 frequencies are not ggml's formula");
    fail_if(over != 0, "sinpe outside the header's bound");
    fail_if(agree > 1e-5, "sinpe and ggml differ by more than 1e-5 below position 64");
    fail_if(kept_bad != 0, "a column past the rotary part changed");
#ifdef GGML_ROPE_TYPE_IMROPE
    if (c->mode == GGML_ROPE_TYPE_IMROPE) { /* ggml's fourth lane 0, not the first */
        long moved = 0, elsewhere = 0;
        for (int r = 0; r < N_TOK; r++)
            pos[3 * N_TOK + r] = 0;
        ggml_rotate(c, D, (float)spec.base, x, pos, yg);
        for (size_t i = 0; i < (size_t)N_SMALL * N_HEADS * hd; i++) {
            int col = (int)(i % (size_t)hd), k = col < h ? col : col - h;
            int mv = col < R && fabsf(ys[i] - yg[i]) > 1e-5f;
            moved += mv && lane[k] == 3, elsewhere += mv && lane[k] != 3;
        }
        printf("%38s then with its fourth lane 0: %ld values of pairs it reads there move, "
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
