/*
 * check_ggml.c -- sinpe against ggml's own CPU backend (make check-ggml
 * GGML_DIR=<ggml install prefix>; not in make test: CI has no ggml).
 *
 * Rotary: ggml_rope_ext (NORMAL, NEOX) and ggml_rope_multi (MROPE, IMROPE,
 * VISION) graphs and sinpe_enqueue_rope() with the matching preset rotate
 * the same float32 heads at the same positions (ggml's four int32 lanes
 * per token, which sinpe reads as they are), both measured against long
 * double cos and sin of sinpe's float64 frequencies, which must be ggml's
 * formula base^(-2j/D).  sinpe passes within the bound derived from the
 * header's, and within 1e-5 of ggml below position 64, where ggml's float32
 * angles are still close: another pairing, lane or frequency index is off
 * by far more there.  Block types: ggml_quantize_chunk()'s blocks decoded
 * by ggml's to_float and by sinpe's gather and fused call, bit for bit;
 * sinpe_quantize()'s bytes against ggml's.
 */
#include "ggml-cpu.h"
#include "ggml.h"
#include "sinpe.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_TOK = 384, N_SMALL = 128, N_HEADS = 2 }; /* the first N_SMALL tokens: lanes below 64 */

static int failures;

static void fail_if(int bad, const char *what)
{
    if (bad)
        failures++, printf("  FAIL: %s\n", what);
}

/* A call that must succeed: else the program stops (exit status 2). */
static void need(int good, const char *call, long code)
{
    if (!good) {
        fprintf(stderr, "%s failed (%ld): %s\n", call, code, sinpe_last_error());
        exit(2);
    }
}
#define OK(call) do { sinpe_status s_ = (call); need(s_ == SINPE_SUCCESS, #call, s_); } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rng_u32(void) /* xorshift64 */
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
#define rng_int(lo, hi) ((lo) + (int32_t)(rng_u32() % (uint32_t)((hi) - (lo) + 1))) /* inclusive */
#define rng_float() ((float)((double)(rng_u32() >> 8) / 8388608.0 - 1.0))          /* [-1, 1) */

static cl_mem buffer(sinpe_context *ctx, size_t bytes, const void *host)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(sinpe_context_cl_context(ctx),
                              CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)host, &err);
    need(err == CL_SUCCESS, "clCreateBuffer", err);
    return m;
}

#define read_back(ctx, m, bytes, host)                                                        \
    need(clEnqueueReadBuffer(sinpe_context_queue(ctx), m, CL_TRUE, 0, bytes, host, 0, NULL, \
                             NULL) == CL_SUCCESS, "clEnqueueReadBuffer", 0)

/* --- rotary ------------------------------------------------------------ */

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

/* --- block types ------------------------------------------------------- */

typedef struct block_case {
    const char *name;
    enum ggml_type gt;
    sinpe_dtype st;
    int quantize; /* sinpe_quantize writes it */
} block_case;

static const block_case block_cases[] = {
    {"Q4_0", GGML_TYPE_Q4_0, SINPE_Q4_0, 1}, {"Q4_1", GGML_TYPE_Q4_1, SINPE_Q4_1, 1},
    {"Q5_0", GGML_TYPE_Q5_0, SINPE_Q5_0, 1}, {"Q5_1", GGML_TYPE_Q5_1, SINPE_Q5_1, 1},
    {"Q8_0", GGML_TYPE_Q8_0, SINPE_Q8_0, 1}, {"Q4_K", GGML_TYPE_Q4_K, SINPE_Q4_K, 0},
    {"Q5_K", GGML_TYPE_Q5_K, SINPE_Q5_K, 0}, {"Q6_K", GGML_TYPE_Q6_K, SINPE_Q6_K, 0},
};

enum { ROWS = 64, DIM = 1024, IDS = ROWS + 32 };

/* Rows of sums of uniforms (near normal), row scales from 1e-3 to 1e3;
   row 1 starts with a block of zeros, row 2 is zeros (-0 and +0 mixed),
   row 3 one value repeated. */
static void make_rows(float *x)
{
    for (int r = 0; r < ROWS; r++) {
        float s = (float)pow(10.0, (r % 7) - 3.0);
        for (int c = 0; c < DIM; c++)
            x[r * DIM + c] = s * (rng_float() + rng_float() + rng_float());
    }
    for (int c = 0; c < DIM; c++) { /* zeros of both signs; one value */
        x[2 * DIM + c] = c % 3 ? 0.0f : -0.0f, x[3 * DIM + c] = 0.75f;
        if (c < 32)
            x[DIM + c] = c % 2 ? 0.0f : -0.0f;
    }
}

/* sinpe_quantize()'s blocks against ggml's bytes q.  Allowed: a d of -0
   against +0 in a zero block, and Q8_0 codes one apart under the same d
   (sinpe divides by the stored fp16 d, ggml multiplies by 1/d of the
   float32 d before its rounding to fp16). */
static void check_quantize(const block_case *b, const float *x, const unsigned char *q,
                           size_t bytes)
{
    size_t bb = ggml_type_size(b->gt);
    unsigned char *mine = malloc(bytes);
    long blocks = (long)(bytes / bb), bad = 0, neg_zero = 0, one_apart = 0, codes = 0;
    OK(sinpe_quantize(b->st, x, ROWS, DIM, mine, bytes, NULL, SINPE_F32));
    for (long k = 0; k < blocks; k++) {
        const unsigned char *g = q + k * bb, *s = mine + k * bb;
        if (!memcmp(g, s, bb))
            continue;
        if (!memcmp(g + 2, s + 2, bb - 2) && (g[0] | s[0]) == 0 && (g[1] ^ s[1]) == 0x80) {
            neg_zero += (g[1] | s[1]) == 0x80, bad += (g[1] | s[1]) != 0x80;
            continue;
        }
        int near = b->gt == GGML_TYPE_Q8_0 && !memcmp(g, s, 2);
        for (int j = 0; near && j < 32; j++)
            near = abs((signed char)g[2 + j] - (signed char)s[2 + j]) <= 1,
            codes += g[2 + j] != s[2 + j];
        one_apart += near, bad += !near;
    }
    printf("; sinpe_quantize's blocks against ggml's: %ld of %ld differ (d -0/+0 in a zero "
           "block: %ld; Q8_0 codes one apart: %ld blocks, %ld codes)",
           bad + neg_zero + one_apart, blocks, neg_zero, one_apart, codes);
    fail_if(bad != 0, "sinpe_quantize's bytes differ from ggml's");
    free(mine);
}

static void check_blocks(sinpe_context *ctx, const block_case *b, const float *x)
{
    cl_command_queue cq = sinpe_context_queue(ctx);
    size_t bytes = ROWS * ggml_row_size(b->gt, DIM), out = (size_t)IDS * DIM * 4;
    unsigned char *q = malloc(bytes);
    float *dq = malloc((size_t)ROWS * DIM * 4), *got = malloc(out), nan = NAN;
    ggml_quantize_chunk(b->gt, x, q, 0, ROWS, DIM, NULL);
    ggml_get_type_traits(b->gt)->to_float(q, dq, (int64_t)ROWS * DIM);
    fail_if(sinpe_dtype_bytes(b->st, (size_t)ROWS * DIM) != bytes, "block size differs");
    int32_t ids[IDS]; /* every row, then some again */
    for (int i = 0; i < IDS; i++)
        ids[i] = i < ROWS ? i : rng_int(0, ROWS - 1);
    sinpe_spec spec;
    sinpe_spec_init(&spec, DIM);
    sinpe_table *t = NULL;
    OK(sinpe_table_create(ctx, &spec, 8, &t));
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    a.n_seqs = 1, a.seq_len = IDS, a.vocab = ROWS, a.weights_dtype = b->st;
    a.ids = buffer(ctx, sizeof ids, ids), a.weights = buffer(ctx, bytes, q);
    a.out = buffer(ctx, out, NULL);
    long differ[2] = {0, 0};
    for (int call = 0; call < 2; call++) { /* gather, then fused with PE skipped */
        need(clEnqueueFillBuffer(cq, a.out, &nan, 4, 0, out, 0, NULL, NULL) == CL_SUCCESS,
             "clEnqueueFillBuffer", 0);
        a.skip_pe = call;
        OK(call ? sinpe_enqueue_embed(t, cq, &a, 0, NULL, NULL)
                : sinpe_enqueue_gather(t, cq, &a, 0, NULL, NULL));
        read_back(ctx, a.out, out, got);
        for (int i = 0; i < IDS; i++)
            differ[call] += memcmp(got + (size_t)i * DIM, dq + (size_t)ids[i] * DIM, DIM * 4) != 0;
    }
    printf("%-5s %d rows x %d: decode of ggml's blocks, rows differing from ggml's to_float: "
           "gather %ld, fused %ld of %d",
           b->name, ROWS, DIM, differ[0], differ[1], IDS);
    fail_if(differ[0] || differ[1], "sinpe's decode differs from ggml's to_float");
    if (b->quantize)
        check_quantize(b, x, q, bytes);
    printf("\n");
    clReleaseMemObject(a.ids), clReleaseMemObject(a.weights), clReleaseMemObject(a.out);
    sinpe_table_release(t);
    free(q), free(dq), free(got);
}

int main(void)
{
    sinpe_context *ctx = NULL;
    char dev[256] = "";
    OK(sinpe_context_create(NULL, &ctx));
    clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_NAME, sizeof dev - 1, dev, NULL);
    printf("sinpe %s on %s against ggml %s (CPU backend); seed 0x%016llx\n",
           sinpe_version_string(), dev, ggml_version(), (unsigned long long)rng_state);
    for (size_t i = 0; i < sizeof rope_cases / sizeof rope_cases[0]; i++)
        check_rope(ctx, &rope_cases[i]);
    float *x = malloc((size_t)ROWS * DIM * 4);
    make_rows(x);
    for (size_t i = 0; i < sizeof block_cases / sizeof block_cases[0]; i++)
        check_blocks(ctx, &block_cases[i], x);
    free(x);
    sinpe_context_release(ctx);
    printf("check-ggml: %s (%d failed)\n", failures ? "FAILED" : "passed", failures);
    return failures != 0;
}
