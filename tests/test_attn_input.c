/*
 * test_attn_input.c -- the attention input stage (sinpe_enqueue_attn_input).
 *
 * Bits: every case against the unfused chain written out, with the same
 * random inputs (the seed printed by tu_rng): the header's norm on the
 * host in its stated order (fmaf and float32), rounded to dtype,
 * sinpe_enqueue_rope() on the normed values, the norm after it where the
 * case asks, the cache rows written on the host through the slot mapping
 * (one rounding to the cache's type; Q8_0 by sinpe_quantize()); every
 * output poisoned first and every byte compared.  The chain's k leaves
 * rope in dtype, so the cases keep cache_dtype == dtype or dtype F32 (one
 * rounding either way).  Float64: the norm within one float32 ulp of
 * x w' / sqrt(mean(x^2) + eps) per element over wide magnitudes; the
 * temperature within 2^-21 of sinpe_rope_temperature().  Bad arguments:
 * the exact status, the argument named, nothing written.
 */
#include "test_util.h"
#include "family_ref.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float rnd(float x, sinpe_dtype dt)
{
    unsigned char b[4];
    fr_store(b, 0, dt, x);
    return fr_load(b, 0, dt);
}

/* The header's norm of n values in place, step by step as it states. */
static void host_norm(float *x, size_t n, const float *w, int kind, float eps)
{
    float hs[32] = {0}, ls[32] = {0}; /* lane l: columns l, l + 32, ... */
    for (size_t c = 0; c < n; c++) {
        float p = x[c] * x[c], pe = fmaf(x[c], x[c], -p), h = hs[c % 32];
        float s = h + p, b = s - h, e = (h - (s - b)) + (p - b);
        hs[c % 32] = s;
        ls[c % 32] = ls[c % 32] + (e + pe);
    }
    for (int w2 = 16; w2 > 0; w2 /= 2) /* merged as a tree */
        for (int l = 0; l < w2; l++) {
            float s = hs[l] + hs[l + w2], t = s - hs[l];
            float e = (hs[l] - (s - t)) + (hs[l + w2] - t);
            hs[l] = s;
            ls[l] = (ls[l] + ls[l + w2]) + e;
        }
    float hi = hs[0], lo = ls[0];
    float nf = (float)n, inv = 1.0f / nf; /* C's quotient is correctly rounded */
    float q = hi * inv, ql = (fmaf(-q, nf, hi) + lo) * inv;
    float s = q + eps, b = s - q, e = (q - (s - b)) + (eps - b) + ql;
    float mh = s + e, ml = e - (mh - s), rh, rl;
    if (!(mh > 0.0f) || isinf(mh)) {
        rh = mh == 0.0f ? INFINITY : isinf(mh) ? 0.0f : NAN;
        rl = 0.0f;
    } else {
        float r = fr_bits_f32(0x5f375a86u - (fr_f32_bits(mh) >> 1));
        for (int i = 0; i < 3; i++)
            r = r * (1.5f - 0.5f * mh * r * r);
        float ah = r * r, al = fmaf(r, r, -ah);
        float d = fmaf(mh, ah, -1.0f) + (mh * al + ml * ah);
        rh = r;
        rl = -0.5f * r * d;
    }
    for (size_t c = 0; c < n; c++) {
        float th = x[c], tl = 0.0f;
        if (kind == SINPE_QK_NORM_RMS || kind == SINPE_QK_NORM_RMS_GEMMA) {
            float p = x[c] * w[c], pl = fmaf(x[c], w[c], -p);
            th = p, tl = pl;
            if (kind == SINPE_QK_NORM_RMS_GEMMA) {
                float s2 = x[c] + p, b2 = s2 - x[c];
                th = s2;
                tl = ((x[c] - (s2 - b2)) + (p - b2)) + pl;
            }
        }
        x[c] = fmaf(th, rh, fmaf(th, rl, tl * rh));
    }
}

typedef struct {
    size_t n_seqs, seq_len, hd, R, qh, kh;
    sinpe_dtype dt, ct;
    int norm, after, pairing, rotate, in_place, packed, slots, positions;
    sinpe_rope_preset preset; /* 0: DEFAULT base 10000 of R */
    size_t off;               /* rotary_offset: the first rotated column */
    int deepseek;             /* 1: DeepSeek-V3's spec (YaRN, R 64) from sinpe_rope_model_layer */
} ac_case;

static const ac_case cases[] = {
    /* Qwen3: RMS before, GQA 4:1, f32 and f16 caches */
    {2, 9, 128, 128, 4, 1, SINPE_F32, SINPE_F32, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0},
    {2, 9, 128, 128, 4, 1, SINPE_F32, SINPE_F16, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0},
    {3, 5, 128, 128, 4, 2, SINPE_F16, SINPE_F16, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0},
    {1, 17, 64, 64, 2, 2, SINPE_BF16, SINPE_BF16, 2, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    /* Gemma (1 + w), partial rotary, interleaved */
    {2, 6, 96, 64, 3, 1, SINPE_F32, SINPE_BF16, 2, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0},
    /* Llama 4: L2 after the rotation; a NoPE layer */
    {2, 7, 128, 128, 2, 1, SINPE_F32, SINPE_F32, 3, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0},
    {2, 7, 128, 128, 2, 1, SINPE_F16, SINPE_F16, 3, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0},
    /* no norm: the rotation and the cache write alone; Q8_0 caches */
    {4, 3, 64, 64, 2, 2, SINPE_F32, SINPE_F32, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0},
    {2, 9, 128, 128, 4, 1, SINPE_F32, SINPE_Q8_0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0},
    {3, 4, 64, 64, 2, 2, SINPE_F32, SINPE_Q8_0, 2, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0},
    /* rules and lanes: YaRN, Llama 3, Qwen2-VL's three lanes */
    {2, 8, 128, 128, 4, 2, SINPE_F32, SINPE_F16, 1, 0, 0, 1, 0, 1, 1, 1,
     SINPE_ROPE_PRESET_QWEN2_YARN, 0, 0},
    {2, 8, 128, 128, 4, 2, SINPE_BF16, SINPE_BF16, 1, 0, 0, 1, 1, 1, 1, 1,
     SINPE_ROPE_PRESET_LLAMA3_1, 0, 0},
    {2, 8, 128, 128, 4, 2, SINPE_F32, SINPE_F32, 1, 0, 0, 1, 0, 1, 1, 1,
     SINPE_ROPE_PRESET_QWEN2_VL, 0, 0},
    /* 16 times an odd number wide on the vector path: the norm's last
       sixteen columns in lanes 0 .. 15 */
    {2, 5, 80, 64, 3, 1, SINPE_F16, SINPE_F16, 1, 0, 0, 1, 0, 1, 1, 1, 0, 16, 0},
    {2, 5, 80, 64, 2, 2, SINPE_F32, SINPE_F32, 3, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0},
    /* widths that are not multiples of 16 (or R of 32): the scalar path */
    {2, 5, 72, 40, 3, 1, SINPE_F32, SINPE_F32, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0},
    {2, 5, 80, 48, 2, 2, SINPE_F16, SINPE_F16, 3, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0},
    {3, 3, 40, 40, 2, 1, SINPE_BF16, SINPE_BF16, 2, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0},
    /* more heads than a work-item's sixteen (attn_input.cl): q 40 = 16 + 16 + 8, kv 17 =
       16 + 1; norm after with a Q8_0 cache (k and v by columns, q by sixteens) */
    {2, 3, 64, 64, 40, 17, SINPE_F16, SINPE_F16, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0},
    {2, 3, 64, 64, 20, 17, SINPE_F32, SINPE_Q8_0, 3, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0},
    /* decode: one token per sequence */
    {16, 1, 128, 128, 8, 2, SINPE_F16, SINPE_F16, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0},
    /* DeepSeek-V3's rotated slice: q and k heads [nope 128 | pe 64], pe alone
       rotated (rotary_offset 128), YaRN, interleaved; slices from 16 and 48
       (starting in the second half of the norm's 32 lanes), from 8 and 40
       (the scalar path; 40 + 40 ends at head_dim) */
    {2, 6, 192, 64, 3, 3, SINPE_F32, SINPE_F32, 0, 0, 1, 1, 0, 1, 1, 1, 0, 128, 1},
    {3, 4, 192, 64, 2, 2, SINPE_BF16, SINPE_BF16, 1, 0, 1, 1, 1, 0, 1, 1, 0, 128, 1},
    {2, 5, 192, 64, 2, 2, SINPE_F32, SINPE_F16, 3, 1, 1, 1, 0, 1, 1, 1, 0, 128, 1},
    {2, 5, 192, 64, 2, 1, SINPE_F32, SINPE_Q8_0, 2, 1, 1, 1, 0, 1, 1, 1, 0, 128, 1},
    {2, 6, 96, 64, 3, 1, SINPE_F16, SINPE_F16, 1, 0, 0, 1, 0, 1, 1, 1, 0, 16, 0},
    {2, 6, 128, 64, 2, 2, SINPE_F32, SINPE_F32, 3, 1, 1, 1, 1, 0, 1, 1, 0, 48, 0},
    {2, 5, 72, 40, 3, 1, SINPE_F32, SINPE_BF16, 2, 0, 0, 1, 0, 1, 1, 1, 0, 8, 0},
    {2, 5, 80, 40, 2, 2, SINPE_F16, SINPE_F16, 3, 1, 1, 1, 1, 0, 0, 1, 0, 40, 0},
};

/* The norm (norm_after as asked) of every q and k head of xq and xk, each
   rounded to dt: the chain's norm step. */
static void chain_norm(const ac_case *c, size_t n, float *xq, float *xk, const float *qwt,
                       const float *kwt, float eps)
{
    for (size_t h = 0; h < n * (c->qh + c->kh); h++) {
        int isq = h < n * c->qh;
        float *p = isq ? xq + h * c->hd : xk + (h - n * c->qh) * c->hd;
        host_norm(p, c->hd, isq ? qwt : kwt, c->norm, eps);
        for (size_t j = 0; j < c->hd; j++)
            p[j] = rnd(p[j], c->dt);
    }
}

/* The chain's rotation: sinpe_enqueue_rope() in place on xq and xk, on
   each head's slice from c->off (rope rotates a head's first R columns:
   its heads start off columns later, in buffers off elements longer). */
static void chain_rope(const ac_case *c, sinpe_context *ctx, cl_command_queue q,
                       sinpe_table *tab, size_t n, float *xq, float *xk, cl_mem positions)
{
    size_t qw = c->qh * c->hd, kw = c->kh * c->hd, e = fr_dtype_size(c->dt);
    unsigned char *hq = tu_malloc((n * qw + c->off) * e), *hk = tu_malloc((n * kw + c->off) * e);
    for (size_t i = 0; i < n * qw + c->off; i++)
        fr_store(hq, i, c->dt, i < n * qw ? xq[i] : 0.0f);
    for (size_t i = 0; i < n * kw + c->off; i++)
        fr_store(hk, i, c->dt, i < n * kw ? xk[i] : 0.0f);
    cl_mem rq = tu_buffer(ctx, (n * qw + c->off) * e, hq);
    cl_mem rk = tu_buffer(ctx, (n * kw + c->off) * e, hk);
    sinpe_rope_args ra;
    sinpe_rope_args_init(&ra);
    ra.n_seqs = c->n_seqs, ra.seq_len = c->seq_len, ra.head_dim = c->hd, ra.dtype = c->dt;
    ra.q = rq, ra.q_offset = c->off, ra.q_stride = qw, ra.q_heads = c->qh;
    ra.k = rk, ra.k_offset = c->off, ra.k_stride = kw, ra.kv_heads = c->kh;
    ra.start = 3, ra.positions = positions;
    TU_OK(sinpe_enqueue_rope(tab, q, &ra, 0, NULL, NULL));
    tu_read(q, rq, 0, n * qw * e, hq);
    tu_read(q, rk, 0, n * kw * e, hk);
    for (size_t i = 0; i < n * qw; i++)
        xq[i] = fr_load(hq, i, c->dt);
    for (size_t i = 0; i < n * kw; i++)
        xk[i] = fr_load(hk, i, c->dt);
    TU_FREE(hq, hk);
    TU_RELEASE(NULL, NULL, NULL, rq, rk);
}

/* Each case under attn_heads = 1, then 16 (_i past the cases), set as a
   user sets it (SINPE_TUNING, after what the run put there): the same
   bits as the chain under both. */
#define N_CASES (sizeof cases / sizeof cases[0])
START_TEST(attn_chain_bits)
{
    static const char *const env[] = {"SINPE_TUNING"};
    char *saved[1], text[4096], want[32];
    tu_env_save(env, 1, saved);
    const char *heads = (size_t)_i < N_CASES ? "1" : "16";
    snprintf(text, sizeof text, "%s%sattn_heads = %s", saved[0] ? saved[0] : "",
             saved[0] && *saved[0] ? "; " : "", heads);
    ck_assert_int_eq(setenv("SINPE_TUNING", text, 1), 0);
    _i %= (int)N_CASES;
    const ac_case *c = &cases[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    snprintf(want, sizeof want, "; attn_heads=%s", heads);
    ck_assert_msg(strstr(sinpe_context_tuning(ctx), want), "%s lacks %s",
                  sinpe_context_tuning(ctx), want);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("attn_chain_bits");
    size_t n = c->n_seqs * c->seq_len, hd = c->hd, e = fr_dtype_size(c->dt);
    size_t qw = c->qh * hd, kw = c->kh * hd, W = qw + 2 * kw, rows = n + 4;
    size_t stride = c->packed ? W + 3 : 0, off = c->packed ? 2 : 0;
    sinpe_rope_spec s;
    sinpe_rope_layer ly;
    if (c->deepseek) {
        TU_OK(sinpe_rope_model_layer(SINPE_ROPE_MODEL_DEEPSEEK_V3, 0, &s, &ly));
        ck_assert(ly.head_dim == hd && ly.rotary_offset == c->off && s.rotary_dim == c->R);
    } else if (c->preset) {
        TU_OK(sinpe_rope_preset(&s, c->preset, hd));
    } else {
        sinpe_rope_spec_init(&s, c->R);
        s.pairing = (sinpe_rope_pairing)c->pairing;
    }
    size_t lanes = s.axes ? 3 : 1;
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 64, &tab));

    /* Inputs rounded to dtype: x[r][q | k | v] as floats. */
    float *x = tu_malloc(n * W * 4), *qwt = tu_malloc(hd * 4), *kwt = tu_malloc(hd * 4);
    for (size_t i = 0; i < n * W; i++)
        x[i] = rnd(tu_rng_float(&rng, -3.0f, 3.0f) * (i % 7 == 3 ? 40.0f : 1.0f), c->dt);
    tu_rng_floats(&rng, qwt, hd, -1.5f, 1.5f);
    tu_rng_floats(&rng, kwt, hd, -1.5f, 1.5f);
    int32_t *pos = tu_malloc(lanes * n * 4), *slot = tu_malloc(n * 4);
    for (size_t i = 0; i < lanes * n; i++)
        pos[i] = tu_rng_int(&rng, -5, 200);
    for (size_t r = 0; r < n; r++) /* unique rows; some skipped, some past the cache */
        slot[r] = r % 5 == 4 ? -1 : r % 7 == 6 ? (int32_t)rows + 2 : (int32_t)(n + 3 - r);

    /* Device inputs: one packed buffer, or q, k and v apart. */
    size_t tot = c->packed ? off + n * stride : 0;
    unsigned char *pk = tu_malloc((tot ? tot : 1) * e);
    unsigned char *hq = tu_malloc(n * qw * e), *hk = tu_malloc(n * kw * e + 1),
                  *hv = tu_malloc(n * kw * e + 1);
    for (size_t i = 0; i < tot; i++)
        fr_store(pk, i, c->dt, 0.25f);
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < W; j++) {
            float v = x[r * W + j];
            if (c->packed)
                fr_store(pk, off + r * stride + j, c->dt, v);
            if (j < qw)
                fr_store(hq, r * qw + j, c->dt, v);
            else if (j < qw + kw)
                fr_store(hk, r * kw + j - qw, c->dt, v);
            else
                fr_store(hv, r * kw + j - qw - kw, c->dt, v);
        }
    cl_mem pm = c->packed ? tu_buffer(ctx, tot * e, pk) : NULL;
    cl_mem qm = c->packed ? pm : tu_buffer(ctx, n * qw * e, hq);
    cl_mem km = c->packed ? pm : tu_buffer(ctx, n * kw * e, hk);
    cl_mem vm = c->packed ? pm : tu_buffer(ctx, n * kw * e, hv);
    cl_mem wq = tu_buffer(ctx, hd * 4, qwt), wk = tu_buffer(ctx, hd * 4, kwt);
    cl_mem posm = tu_buffer(ctx, lanes * n * 4, pos), sm = tu_buffer(ctx, n * 4, slot);
    size_t qo_f = (n * qw * e + 3) / 4, cache_b = sinpe_dtype_bytes(c->ct, rows * kw);
    size_t cache_f = (cache_b + 3) / 4, got_n = c->in_place && c->packed ? tot : n * qw;
    cl_mem qo = c->in_place ? NULL : tu_poisoned_buffer(ctx, q, qo_f);
    cl_mem kc = tu_poisoned_buffer(ctx, q, cache_f), vc = tu_poisoned_buffer(ctx, q, cache_f);

    sinpe_attn_input_args a;
    sinpe_attn_input_args_init(&a);
    a.n_seqs = c->n_seqs, a.seq_len = c->seq_len, a.head_dim = hd, a.dtype = c->dt;
    a.q = qm, a.q_offset = off, a.q_stride = stride, a.q_heads = c->qh;
    a.k = km, a.k_offset = off + (c->packed ? qw : 0), a.k_stride = stride, a.kv_heads = c->kh;
    a.v = vm, a.v_offset = off + (c->packed ? qw + kw : 0), a.v_stride = stride;
    a.q_out = qo;
    a.rotate = c->rotate, a.norm = (sinpe_qk_norm)c->norm, a.norm_after = c->after;
    a.eps = 1e-6, a.q_norm_weight = wq, a.k_norm_weight = wk;
    a.slot_mapping = c->slots ? sm : NULL;
    a.k_cache = kc, a.v_cache = vc, a.cache_rows = rows, a.cache_dtype = c->ct;
    a.start = 3, a.positions = c->positions ? posm : NULL;
    a.rotary_offset = c->off;
    if (!c->off && _i % 2 == 0) { /* a caller built before rotary_offset: 0, whatever follows */
        a.struct_size = SINPE_STRUCT_TAG | offsetof(sinpe_attn_input_args, rotary_offset);
        a.rotary_offset = 64;
    }
    TU_OK(sinpe_enqueue_attn_input(tab, q, &a, 0, NULL, NULL));
    unsigned char *got_q = tu_malloc(got_n * e);
    tu_read(q, c->in_place ? qm : qo, 0, got_n * e, got_q);
    unsigned char *got_k = tu_malloc(cache_f * 4), *got_v = tu_malloc(cache_f * 4);
    tu_read(q, kc, 0, cache_f * 4, got_k);
    tu_read(q, vc, 0, cache_f * 4, got_v);

    /* The chain: norm on the host, rope on the device, norm after. */
    float *xq = tu_malloc(n * qw * 4), *xk = tu_malloc(n * kw * 4 + 4);
    for (size_t r = 0; r < n; r++) {
        memcpy(xq + r * qw, x + r * W, qw * 4);
        memcpy(xk + r * kw, x + r * W + qw, kw * 4);
    }
    if (c->norm && !c->after)
        chain_norm(c, n, xq, xk, qwt, kwt, (float)a.eps);
    if (c->rotate)
        chain_rope(c, ctx, q, tab, n, xq, xk, a.positions);
    if (c->norm && c->after)
        chain_norm(c, n, xq, xk, qwt, kwt, (float)a.eps);

    /* Expected bytes: q's output (or the packed buffer with q replaced) and
       the caches, poison where nothing is written. */
    unsigned char *want_q = tu_malloc(got_n * e);
    if (c->in_place && c->packed)
        memcpy(want_q, pk, tot * e);
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < qw; j++)
            fr_store(want_q, c->in_place && c->packed ? off + r * stride + j : r * qw + j, c->dt,
                xq[r * qw + j]);
    float *want_k = tu_malloc(cache_f * 4), *want_v = tu_malloc(cache_f * 4);
    tu_fill_poison(want_k, cache_f);
    tu_fill_poison(want_v, cache_f);
    for (size_t r = 0; r < n; r++) {
        long row = c->slots ? slot[r] : (long)r;
        if (row < 0 || row >= (long)rows)
            continue;
        for (size_t h = 0; h < 2 * c->kh; h++) {
            const float *src =
                h < c->kh ? xk + r * kw + h * hd : x + r * W + qw + kw + (h - c->kh) * hd;
            unsigned char *dst = (unsigned char *)(h < c->kh ? want_k : want_v);
            size_t at = ((size_t)row * c->kh + h % c->kh) * hd;
            if (c->ct == SINPE_Q8_0)
                TU_OK(sinpe_quantize(SINPE_Q8_0, src, 1, hd, dst + at / 32 * 34, hd / 32 * 34,
                                     NULL, SINPE_F32));
            else
                for (size_t j = 0; j < hd; j++)
                    fr_store(dst, at + j, c->ct, src[j]);
        }
    }
    for (size_t i = 0; i < got_n * e; i++)
        TU_CHECK(got_q[i] == want_q[i], "case %d: q byte %zu (element %zu): %.9g, want %.9g", _i,
                 i, i / e, (double)fr_load(got_q, i / e, c->dt),
                 (double)fr_load(want_q, i / e, c->dt));
    for (size_t i = 0; i < cache_b; i++) {
        TU_CHECK(got_k[i] == ((unsigned char *)want_k)[i],
                 "case %d: k_cache byte %zu: %02x, want %02x", _i, i, got_k[i],
                 ((unsigned char *)want_k)[i]);
        TU_CHECK(got_v[i] == ((unsigned char *)want_v)[i],
                 "case %d: v_cache byte %zu: %02x, want %02x", _i, i, got_v[i],
                 ((unsigned char *)want_v)[i]);
    }
    TU_FREE(x, qwt, kwt, pos, slot, pk, hq, hk, hv, got_q, got_k, got_v, xq, xk, want_q, want_k,
            want_v);
    TU_RELEASE(ctx, q, tab, c->packed ? pm : qm, c->packed ? NULL : km, c->packed ? NULL : vm,
               wq, wk, posm, sm, qo, kc, vc);
    tu_env_restore(env, 1, saved);
}
END_TEST

/* The norm alone (a NoPE layer, F32) against float64: one float32 ulp of
   x w' / sqrt(mean(x^2) + eps) per element (eps and w as float32), values
   of wide magnitudes, every kind, head widths to 512; k's through the
   cache. */
START_TEST(attn_norm_ulp)
{
    static const size_t dims[] = {64, 72, 192, 256, 512}; /* 72: the scalar path */
    static const double epss[] = {1e-6, 0.0, 1e-2};
    size_t hd = dims[_i % 5];
    int kind = 1 + _i % 3;
    enum { N = 6, QH = 3 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("attn_norm_ulp");
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, 64);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 0, &tab));
    size_t nq = N * QH * hd, nk = N * hd;
    float *xq = tu_malloc(nq * 4), *xk = tu_malloc(nk * 4), *w = tu_malloc(hd * 4);
    int scale_row = tu_rng_int(&rng, -20, 20);
    for (size_t i = 0; i < nq + nk; i++) {
        float v = ldexpf(tu_rng_float(&rng, 1.0f, 2.0f), tu_rng_int(&rng, -8, 8) + scale_row);
        v = tu_rng_int(&rng, 0, 1) ? -v : v;
        if (i < nq)
            xq[i] = v;
        else
            xk[i - nq] = v;
    }
    tu_rng_floats(&rng, w, hd, -2.0f, 2.0f);
    cl_mem qm = tu_buffer(ctx, nq * 4, xq), km = tu_buffer(ctx, nk * 4, xk);
    cl_mem vm = tu_buffer(ctx, nk * 4, xk), wm = tu_buffer(ctx, hd * 4, w);
    cl_mem qo = tu_poisoned_buffer(ctx, q, nq), kc = tu_poisoned_buffer(ctx, q, nk);
    cl_mem vc = tu_poisoned_buffer(ctx, q, nk);
    sinpe_attn_input_args a;
    sinpe_attn_input_args_init(&a);
    a.n_seqs = 2, a.seq_len = N / 2, a.head_dim = hd, a.q = qm, a.q_heads = QH, a.k = km,
    a.kv_heads = 1, a.v = vm, a.q_out = qo, a.k_cache = kc, a.v_cache = vc, a.cache_rows = N;
    a.rotate = 0, a.norm = (sinpe_qk_norm)kind, a.eps = epss[_i % 3];
    a.q_norm_weight = wm, a.k_norm_weight = wm;
    TU_OK(sinpe_enqueue_attn_input(tab, q, &a, 0, NULL, NULL));
    float *gq = tu_read_floats(q, qo, nq), *gk = tu_read_floats(q, kc, nk);
    double eps = (double)(float)a.eps, worst = 0.0;
    for (size_t h = 0; h < N * (QH + 1); h++) {
        const float *x = h < N * QH ? xq + h * hd : xk + (h - N * QH) * hd;
        const float *g = h < N * QH ? gq + h * hd : gk + (h - N * QH) * hd;
        double ss = 0.0;
        for (size_t j = 0; j < hd; j++)
            ss += (double)x[j] * x[j]; /* exact enough: 2^-53 relative per term */
        double r = 1.0 / sqrt(ss / (double)hd + eps);
        for (size_t j = 0; j < hd; j++) {
            double wj = kind == 1 ? w[j] : kind == 2 ? 1.0 + (double)w[j] : 1.0;
            double y = (double)x[j] * wj * r;
            double ulp = ldexp(1.0, ilogb(y) - 23);
            worst = fmax(worst, fabs(g[j] - y) / ulp);
            TU_CHECK(fabs(g[j] - y) <= ulp, "dim %zu kind %d eps %g: head %zu col %zu: %.9g, "
                     "float64 %.17g (%.3f ulp)", hd, kind, eps, h, j, (double)g[j], y,
                     fabs(g[j] - y) / ulp);
        }
    }
    printf("attn_norm_ulp: dim %zu kind %d eps %g: worst %.3f ulp\n", hd, kind, eps, worst);
    TU_FREE(xq, xk, w, gq, gk);
    TU_RELEASE(ctx, q, tab, qm, km, vm, wm, qo, kc, vc);
}
END_TEST

/* Llama 4's temperature on a NoPE layer's q: q = x tau(p) within 2^-21
   tau of sinpe_rope_temperature() (plus q's own rounding), at positions
   across the int32 range; k untouched by it. */
START_TEST(attn_temperature)
{
    enum { N = 40, HD = 64 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("attn_temperature");
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, HD);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 0, &tab));
    float x[N * HD];
    int32_t pos[N];
    tu_rng_floats(&rng, x, N * HD, -3.0f, 3.0f);
    for (int r = 0; r < N; r++)
        pos[r] = r < 8 ? r * 8191 - 2 : tu_rng_int(&rng, -3, 2147483646);
    cl_mem xm = tu_buffer(ctx, sizeof x, x), pm = tu_buffer(ctx, sizeof pos, pos);
    cl_mem kc = tu_poisoned_buffer(ctx, q, N * HD), vc = tu_poisoned_buffer(ctx, q, N * HD);
    sinpe_attn_input_args a;
    sinpe_attn_input_args_init(&a);
    a.n_seqs = 1, a.seq_len = N, a.head_dim = HD, a.q = xm, a.q_heads = 1, a.k = xm,
    a.kv_heads = 0, a.rotate = 0, a.temperature = 1, a.attn_scale = 0.1, a.floor_scale = 8192;
    a.positions = pm;
    (void)kc, (void)vc;
    TU_OK(sinpe_enqueue_attn_input(tab, q, &a, 0, NULL, NULL));
    float *g = tu_read_floats(q, xm, N * HD);
    for (int r = 0; r < N; r++) {
        double t;
        TU_OK(sinpe_rope_temperature(pos[r], 0.1, 8192, &t));
        for (int j = 0; j < HD; j++) {
            double y = (double)x[r * HD + j] * t;
            TU_CHECK(fabs(g[r * HD + j] - y) <= fabs(y) * (ldexp(1, -21) + ldexp(1, -24)),
                     "position %d: %.9g, want %.12g (t %.12g)", pos[r], (double)g[r * HD + j],
                     y, t);
        }
    }
    free(g);
    TU_RELEASE(ctx, q, tab, xm, pm, kc, vc);
}
END_TEST

/* Each bad argument: its exact status, the argument named in the message,
   and nothing written (q and both caches keep their bytes). */
START_TEST(attn_bad_args)
{
    enum { N = 4, HD = 32, QH = 2, KH = 1, ROWS = 6 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, HD);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 8, &tab));
    float x[N * (QH + 2 * KH) * HD], w[HD];
    cl_int slots[N] = {0, 1, 2, 3};
    tu_rng rng = tu_rng_for("attn_bad_args");
    tu_rng_floats(&rng, x, sizeof x / 4, -1.0f, 1.0f);
    tu_rng_floats(&rng, w, HD, -1.0f, 1.0f);
    cl_mem xm = tu_buffer(ctx, sizeof x, x), wm = tu_buffer(ctx, sizeof w, w);
    cl_mem small_w = tu_buffer(ctx, (HD - 1) * 4, w), sm = tu_buffer(ctx, sizeof slots, slots);
    cl_mem small_s = tu_buffer(ctx, (N - 1) * 4, slots);
    cl_mem kc = tu_poisoned_buffer(ctx, q, ROWS * KH * HD);
    cl_mem vc = tu_poisoned_buffer(ctx, q, ROWS * KH * HD);
    size_t W = (QH + 2 * KH) * HD;
    sinpe_attn_input_args good;
    sinpe_attn_input_args_init(&good);
    good.n_seqs = 1, good.seq_len = N, good.head_dim = HD, good.q = xm, good.q_stride = W,
    good.q_heads = QH, good.k = xm, good.k_offset = QH * HD, good.k_stride = W, good.kv_heads = KH,
    good.v = xm, good.v_offset = (QH + KH) * HD, good.v_stride = W;
    good.norm = SINPE_QK_NORM_RMS, good.q_norm_weight = wm, good.k_norm_weight = wm;
    good.slot_mapping = sm, good.k_cache = kc, good.v_cache = vc, good.cache_rows = ROWS;
    struct bad {
        const char *name;
        sinpe_status want;
        const char *names;
    } bads[] = {
        {"q weight short", SINPE_BUFFER_TOO_SMALL, "args->q_norm_weight"},
        {"k weight NULL", SINPE_NULL_ARGUMENT, "args->k_norm_weight"},
        {"eps NaN", SINPE_INVALID_OPTION, "args->eps"},
        {"eps negative", SINPE_INVALID_OPTION, "args->eps"},
        {"eps infinite", SINPE_INVALID_OPTION, "args->eps"},
        {"slots short", SINPE_BUFFER_TOO_SMALL, "args->slot_mapping"},
        {"cache I8", SINPE_INVALID_DTYPE, "args->cache_dtype"},
        {"cache 99", SINPE_INVALID_DTYPE, "args->cache_dtype"},
        {"k over q", SINPE_BUFFERS_OVERLAP, "args->k"},
        {"caches one", SINPE_BUFFERS_OVERLAP, "args->v_cache"},
        {"q_out over k", SINPE_BUFFERS_OVERLAP, "args->q_out"},
        {"head_dim 513", SINPE_INVALID_SHAPE, "args->head_dim"},
        {"q8_0 head_dim 48", SINPE_INVALID_SHAPE, "args->head_dim"},
        {"floor_scale 0.5", SINPE_INVALID_OPTION, "args->floor_scale"},
        {"norm 7", SINPE_INVALID_OPTION, "args->norm"},
        {"cache rows past buffer", SINPE_BUFFER_TOO_SMALL, "args->k_cache"},
        {"v NULL", SINPE_NULL_ARGUMENT, "args->v"},
        {"dtype q8_0", SINPE_INVALID_DTYPE, "args->dtype"},
        {"rotary_offset 1 past R", SINPE_INVALID_SHAPE, "args->rotary_offset"},
        {"rotary_offset SIZE_MAX", SINPE_INVALID_SHAPE, "args->rotary_offset"},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        sinpe_attn_input_args a = good;
        switch (i) {
        case 0: a.q_norm_weight = small_w; break;
        case 1: a.k_norm_weight = NULL; break;
        case 2: a.eps = NAN; break;
        case 3: a.eps = -1e-6; break;
        case 4: a.eps = INFINITY; break;
        case 5: a.slot_mapping = small_s; break;
        case 6: a.cache_dtype = SINPE_I8; break;
        case 7: a.cache_dtype = (sinpe_dtype)99; break;
        case 8: a.k_offset = QH * HD - 1; break;
        case 9: a.v_cache = kc; break;
        case 10: a.q_out = xm, a.q_out_offset = QH * HD, a.q_out_stride = W; break;
        case 11: a.head_dim = 513; break;
        case 12:
            a.cache_dtype = SINPE_Q8_0, a.head_dim = 48, a.norm = SINPE_QK_NORM_NONE;
            a.q_stride = a.k_stride = a.v_stride = 0;
            break;
        case 13: a.temperature = 1, a.attn_scale = 0.1, a.floor_scale = 0.5; break;
        case 14: a.norm = (sinpe_qk_norm)7; break;
        case 15: a.cache_rows = ROWS + 1; break;
        case 16: a.v = NULL; break;
        case 17: a.dtype = SINPE_Q8_0; break;
        case 18: a.rotary_offset = 1; break;
        case 19: a.rotary_offset = SIZE_MAX; break;
        }
        sinpe_status st = sinpe_enqueue_attn_input(tab, q, &a, 0, NULL, NULL);
        ck_assert_msg(st == bads[i].want, "%s: status %d (%s), want %d: %s", bads[i].name,
                      (int)st, sinpe_status_string(st), (int)bads[i].want, sinpe_last_error());
        ck_assert_msg(strstr(sinpe_last_error(), bads[i].names) != NULL,
                      "%s: the message \"%s\" lacks %s", bads[i].name, sinpe_last_error(),
                      bads[i].names);
    }
    TU_STATUS(sinpe_enqueue_attn_input(tab, q, NULL, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_enqueue_attn_input(NULL, q, &good, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_CL(clFinish(q));
    float *gx = tu_read_floats(q, xm, sizeof x / 4);
    ck_assert_msg(memcmp(gx, x, sizeof x) == 0, "a refused call wrote q, k or v");
    tu_check_buffer_poison(q, kc, ROWS * KH * HD, "k_cache");
    tu_check_buffer_poison(q, vc, ROWS * KH * HD, "v_cache");
    /* The same arguments, good, run; a NoPE layer does not read rotary_offset. */
    TU_OK(sinpe_enqueue_attn_input(tab, q, &good, 0, NULL, NULL));
    sinpe_attn_input_args nope = good;
    nope.rotate = 0, nope.rotary_offset = SIZE_MAX;
    TU_OK(sinpe_enqueue_attn_input(tab, q, &nope, 0, NULL, NULL));
    free(gx);
    TU_RELEASE(ctx, q, tab, xm, wm, small_w, sm, small_s, kc, vc);
}
END_TEST

TU_SUITE(attn_input, 34)
{
    Suite *s = suite_create("attn_input");
    TCase *tc = tu_tcase(s, "attn_input", NULL);
    tcase_add_loop_test(tc, attn_chain_bits, 0, 2 * (int)N_CASES);
    tcase_add_loop_test(tc, attn_norm_ulp, 0, 15);
    TU_ADD(tc, attn_temperature, attn_bad_args);
    return s;
}
