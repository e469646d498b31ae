/*
 * test_rope.c -- rotary position embeddings.
 *
 * Frequencies: each rule against a float64 transcription of HF
 * transformers' modeling_rope_utils written here in that file's own terms
 * (the Python suite runs HF's code itself).  Tables: every layout's values
 * against long double m cos(p w) and m sin(p w) within the header's bound,
 * at positions from 0 to 2^24 - 1 and negative ones, with the same bits
 * from a table without rows (all on the fly) as from the rows.  Rotation:
 * poisoned outputs, every element checked, bit for bit against the
 * header's operation order run on the host from the table's cos and sin
 * (fmaf, one rounding to the storage type), and near the float64 rotation
 * of the same inputs; pairings, layouts, storage types, in place and not,
 * grouped heads, packed QKV rows, explicit positions, sequence starts, key
 * rows.  Bad arguments: their exact status with nothing written.
 */
#include "test_util.h"
#include "family_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI 6.283185307179586476925286766559

/* ---- HF's frequencies in float64 ---------------------------------------- */

static void hf_inv_freq(const sinpe_rope_spec *s, double *inv, double *att)
{
    int dim = (int)s->rotary_dim;
    double base = s->base, factor = s->factor, orig = (double)s->original_max_positions;
    *att = 1.0;
    if (s->rule == SINPE_ROPE_DYNAMIC) {
        double seq = (double)(s->length > s->max_positions ? s->length : s->max_positions);
        base =
            base * pow(factor * seq / (double)s->max_positions - (factor - 1), dim / (dim - 2.0));
    }
    double low = 0, high = 0;
    if (s->rule == SINPE_ROPE_YARN) {
        low = dim * log(orig / (s->beta_fast * TWO_PI)) / (2 * log(base));
        high = dim * log(orig / (s->beta_slow * TWO_PI)) / (2 * log(base));
        if (s->truncate)
            low = floor(low), high = ceil(high);
        low = fmax(low, 0);
        high = fmin(high, dim - 1);
        if (low == high)
            high += 0.001;
#define GET_MSCALE(sc, m) ((sc) <= 1 ? 1.0 : 0.1 * (m)*log(sc) + 1.0)
        *att = (s->mscale != 0 && s->mscale_all_dim != 0)
                   ? GET_MSCALE(factor, s->mscale) / GET_MSCALE(factor, s->mscale_all_dim)
                   : GET_MSCALE(factor, 1);
    }
    if (s->rule == SINPE_ROPE_LONGROPE) {
        double f = factor != 0 ? factor : (double)s->max_positions / orig;
        *att = f <= 1.0 ? 1.0 : sqrt(1 + log(f) / log(orig));
    }
    for (int i = 0; i < dim / 2; i++) {
        double pos_freq = pow(base, (2.0 * i) / dim), x = 1.0 / pos_freq;
        if (s->rule == SINPE_ROPE_LINEAR)
            x /= factor;
        if (s->rule == SINPE_ROPE_YARN) {
            double ramp = fmin(fmax((i - low) / (high - low), 0), 1), extra = 1 - ramp;
            x = (1.0 / (factor * pos_freq)) * (1 - extra) + (1.0 / pos_freq) * extra;
        }
        if (s->rule == SINPE_ROPE_LLAMA3) {
            double wl = TWO_PI / x, lo_wl = orig / s->low_freq_factor,
                   hi_wl = orig / s->high_freq_factor;
            double llama = wl > lo_wl ? x / factor : x;
            double smooth =
                (orig / wl - s->low_freq_factor) / (s->high_freq_factor - s->low_freq_factor);
            if (!(wl < hi_wl) && !(wl > lo_wl))
                llama = (1 - smooth) * llama / factor + smooth * llama;
            x = llama;
        }
        if (s->rule == SINPE_ROPE_LONGROPE)
            x = 1.0 /
                ((s->length > s->original_max_positions ? s->long_factor : s->short_factor)[i] *
                 pos_freq);
        inv[i] = s->inv_freq ? (double)s->inv_freq[i] : x;
    }
    if (s->attention_factor != 0)
        *att = s->attention_factor;
}

static double short_f[64], long_f[64];
static float given_f[64];

/* Case i of the rules: a spec of rotary_dim R. */
enum { N_RULES = 10 };
static sinpe_rope_spec rule_spec(int i, size_t R)
{
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, R);
    for (size_t k = 0; k < 64; k++) {
        short_f[k] = 1.0 + 0.01 * (double)k;
        long_f[k] = 1.0 + 0.37 * (double)k;
        given_f[k] = (float)pow(10000.0, -2.0 * (double)k / (double)R);
    }
    switch (i) {
    case 1: s.rule = SINPE_ROPE_LINEAR, s.factor = 4; break;
    case 2:
        s.rule = SINPE_ROPE_DYNAMIC, s.factor = 2, s.max_positions = 2048, s.length = 9000;
        break;
    case 3: s.rule = SINPE_ROPE_YARN, s.factor = 4, s.original_max_positions = 4096; break;
    case 4:
        s.rule = SINPE_ROPE_YARN, s.factor = 40, s.original_max_positions = 4096;
        s.mscale = 1, s.mscale_all_dim = 0.707, s.truncate = 0, s.base = 1e6;
        break;
    case 5:
        s.rule = SINPE_ROPE_LLAMA3, s.factor = 8, s.original_max_positions = 8192, s.base = 5e5;
        break;
    case 6:
        s.rule = SINPE_ROPE_LONGROPE, s.original_max_positions = 4096;
        s.max_positions = 131072, s.length = 5000;
        s.short_factor = short_f, s.long_factor = long_f;
        s.n_short_factor = s.n_long_factor = R / 2;
        break;
    case 7: s = rule_spec(6, R), s.length = 100, s.factor = 2.5; break;
    case 8: s.inv_freq = given_f, s.n_inv_freq = R / 2, s.attention_factor = 0.75; break;
    case 9: s.base = 1e6; break;
    default: break;
    }
    return s;
}

/* sinpe's frequencies and attention factor of s against HF's. */
static void check_frequencies(const sinpe_rope_spec *s, const char *what)
{
    double got[64], want[64], m = -1, want_m;
    TU_OK(sinpe_rope_frequencies(s, got, &m));
    hf_inv_freq(s, want, &want_m);
    ck_assert_msg(fabs(m - want_m) <= 1e-15 * want_m, "%s: m %.17g, HF %.17g", what, m, want_m);
    for (size_t k = 0; k < s->rotary_dim / 2; k++)
        TU_CHECK(fabs(got[k] - want[k]) <= 4e-16 * want[k], "%s: w[%zu] %.17g, HF %.17g", what,
                 k, got[k], want[k]);
}

START_TEST(rope_frequencies_match_hf)
{
    for (size_t R = 4; R <= 128; R *= 2) {
        sinpe_rope_spec s = rule_spec(_i, R);
        char what[64];
        snprintf(what, sizeof what, "rule case %d R %zu", _i, R);
        check_frequencies(&s, what);
    }
}
END_TEST

/* Every preset: a valid spec whose frequencies are HF's for its fields. */
START_TEST(rope_presets_match_hf)
{
    sinpe_rope_preset pr = (sinpe_rope_preset)(_i + 1);
    size_t head_dim = pr == SINPE_ROPE_PRESET_PHI3_LONGROPE ? 96
                      : pr == SINPE_ROPE_PRESET_GPTJ        ? 256
                                                            : 128;
    sinpe_rope_spec s;
    TU_OK(sinpe_rope_preset(&s, pr, head_dim));
    ck_assert_ptr_nonnull(sinpe_rope_preset_name(pr));
    ck_assert_uint_eq(s.rotary_dim, pr == SINPE_ROPE_PRESET_GPT_NEOX ? 32
                                    : pr == SINPE_ROPE_PRESET_GPTJ   ? 64
                                                                     : head_dim);
    check_frequencies(&s, sinpe_rope_preset_name(pr));
    if (pr == SINPE_ROPE_PRESET_PHI3_LONGROPE) {
        ck_assert(s.long_factor && s.short_factor);
        ck_assert(s.long_factor[0] == (double)1.08f && s.short_factor[47] == 2.8399994373321533);
        TU_STATUS(sinpe_rope_preset(&s, pr, 128), SINPE_INVALID_SPEC);
    }
}
END_TEST

/* ---- tables ---------------------------------------------------------------- */

/* Reads rows [row0, row0 + n) of tab (R columns) as floats. */
static float *table_rows(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, size_t R,
                         cl_int row0, size_t n)
{
    cl_mem out = tu_poisoned_buffer(ctx, q, n * R);
    TU_OK(sinpe_enqueue_table_rows(tab, q, row0, n, out, 0, 0, SINPE_F32, 0, NULL, NULL));
    float *got = tu_read_floats(q, out, n * R);
    clReleaseMemObject(out);
    return got;
}

/* Column c of layout: pair k and whether it holds sin. */
static size_t column_pair(sinpe_rope_layout layout, size_t R, size_t c, int *is_sin)
{
    *is_sin = layout == SINPE_ROPE_PAIRS       ? (int)(c & 1)
              : layout == SINPE_ROPE_SIN_TWICE ? 1
              : layout == SINPE_ROPE_COS_SIN   ? c >= R / 2
                                               : 0;
    return layout == SINPE_ROPE_PAIRS ? c / 2 : c % (R / 2);
}

START_TEST(rope_table_exact_and_same_bits)
{
    enum { BLOCK = 40 };
    static const cl_int starts[] = {0, 1000, 131000, 1000000, (1 << 24) - BLOCK, -300};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    size_t R = _i % 2 ? 96 : 64;
    sinpe_rope_spec s = rule_spec(_i % N_RULES, R);
    s.layout = (sinpe_rope_layout)(_i % 4);
    double w[64], m;
    TU_OK(sinpe_rope_frequencies(&s, w, &m));
    sinpe_table *fly = NULL, *held = NULL;
    enum { NB = sizeof starts / sizeof starts[0] };
    float *otf[NB];
    TU_OK(sinpe_rope_table_create(ctx, &s, 0, &fly));
    ck_assert_uint_eq(sinpe_table_rows(fly), 0);
    for (size_t b = 0; b < NB; b++)
        otf[b] = table_rows(ctx, q, fly, R, starts[b], BLOCK);
    s.attention_factor = m == 1.0 ? 0.0 : m; /* the same contents: the same table */
    TU_OK(sinpe_rope_table_create(ctx, &s, 2000, &held));
    ck_assert_ptr_eq(fly, held);
    sinpe_table_release(held);
    for (size_t b = 0; b < NB; b++) {
        float *a = otf[b], *t = NULL;
        if (starts[b] >= 0 && starts[b] + BLOCK <= 2000)
            t = table_rows(ctx, q, fly, R, starts[b], BLOCK);
        for (size_t r = 0; r < BLOCK; r++)
            for (size_t c = 0; c < R; c++) {
                int is_sin;
                size_t k = column_pair(s.layout, R, c, &is_sin);
                long double ang = (long double)(starts[b] + (cl_int)r) * (long double)w[k];
                double want = m * (double)(is_sin ? sinl(ang) : cosl(ang));
                double tol = (1.5e-7 + ldexp(fabs((double)ang), -53)) * m + 1e-12;
                float got = a[r * R + c];
                TU_CHECK(fabs((double)got - want) <= tol,
                              "case %d p %d col %zu: %.9g, float64 %.12g", _i, starts[b] + (int)r,
                              c, (double)got, want);
                if (t)
                    TU_CHECK(memcmp(&got, &t[r * R + c], 4) == 0,
                                  "case %d p %d col %zu: on the fly %a, table %a", _i,
                                  starts[b] + (int)r, c, (double)got, (double)t[r * R + c]);
            }
        free(a);
        free(t);
    }
    TU_RELEASE(ctx, q, fly);
}
END_TEST

/* ---- the rotation ---------------------------------------------------------- */

typedef struct rot_case {
    size_t n_seqs, seq_len, head_dim, R, q_heads, kv_heads;
    sinpe_dtype dt;
    int pairing, layout, out_of_place, packed, positions, seq_starts, k_rows, rows;
} rot_case;

static const rot_case rot_cases[] = {
    {2, 33, 64, 64, 4, 2, SINPE_F32, 0, 0, 0, 0, 0, 0, 0, 64},
    {3, 17, 80, 32, 3, 1, SINPE_F32, 1, 1, 1, 0, 1, 1, 0, 16},
    {1, 40, 128, 128, 2, 2, SINPE_F16, 0, 0, 1, 1, 0, 0, 0, 0},
    {4, 9, 96, 24, 5, 0, SINPE_BF16, 1, 0, 0, 0, 0, 1, 0, 256},
    {2, 21, 70, 16, 0, 3, SINPE_F16, 0, 1, 1, 0, 1, 0, 1, 8},
    {64, 1, 128, 128, 8, 2, SINPE_BF16, 0, 0, 0, 1, 0, 1, 0, 128},
    {5, 7, 64, 64, 2, 1, SINPE_F32, 1, 0, 1, 0, 0, 1, 1, 0},
    {3, 11, 96, 72, 3, 2, SINPE_F16, 1, 1, 1, 0, 1, 0, 1, 32}, /* 36 pairs: 16, 16, 4 */
};

static int same_value(const void *a, const void *b, size_t i, sinpe_dtype dt)
{
    size_t e = fr_dtype_size(dt);
    return memcmp((const char *)a + i * e, (const char *)b + i * e, e) == 0;
}

START_TEST(rope_rotation_bits)
{
    const rot_case *c = &rot_cases[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("rope_rotation");
    size_t n = c->n_seqs * c->seq_len, hd = c->head_dim, e = fr_dtype_size(c->dt);
    size_t qw = c->q_heads * hd, kw = c->kv_heads * hd;
    /* Packed: one row of q | k | (v) with a stride; else each tight. */
    size_t q_stride = c->packed ? qw + 2 * kw + 3 : qw, k_stride = c->packed ? q_stride : kw;
    size_t q_off = c->packed ? 5 : 2, k_off = c->packed ? q_off + qw : 1;
    size_t ko_rows = c->k_rows ? 2 * n + 3 : n;
    size_t in_n = q_off + n * q_stride, k_n = c->packed ? 0 : k_off + n * k_stride;
    size_t k_sz = (k_n ? k_n : 1) * e; /* bytes of k's host copies */
    size_t qo_n = q_off + n * qw, ko_n = 1 + ko_rows * kw;

    sinpe_rope_spec s = rule_spec((_i * 3) % N_RULES, c->R);
    s.pairing = (sinpe_rope_pairing)c->pairing;
    s.layout = (sinpe_rope_layout)c->layout;
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, (size_t)c->rows, &tab));

    /* Inputs: values in [-4, 4) rounded to the storage type; poison around. */
    unsigned char *qin = tu_malloc(in_n * e), *kin = tu_malloc(k_sz);
    for (size_t i = 0; i < in_n; i++)
        fr_store(qin, i, c->dt, tu_rng_float(&rng, -4.0f, 4.0f));
    for (size_t i = 0; i < k_n; i++)
        fr_store(kin, i, c->dt, tu_rng_float(&rng, -4.0f, 4.0f));
    int32_t *pos = tu_malloc(n * 4), starts[64], *krows = tu_malloc(n * 4);
    for (size_t r = 0; r < n; r++) {
        pos[r] = tu_rng_int(&rng, -50, 300000);
        krows[r] = r % 5 == 4 ? -1 : (int32_t)(2 * r + (r & 1));
    }
    tu_rng_ints(&rng, starts, c->n_seqs, 0, 70000);

    cl_mem qm = tu_buffer(ctx, in_n * e, qin);
    cl_mem km = c->packed ? qm : tu_buffer(ctx, k_sz, kin);
    cl_mem pm = tu_buffer(ctx, n * 4, pos), sm = tu_buffer(ctx, sizeof starts, starts);
    cl_mem rm = tu_buffer(ctx, n * 4, krows);
    size_t qo_f = (qo_n * e + 3) / 4, ko_f = (ko_n * e + 3) / 4;
    cl_mem qo = c->out_of_place ? tu_poisoned_buffer(ctx, q, qo_f) : NULL;
    cl_mem ko = c->out_of_place ? tu_poisoned_buffer(ctx, q, ko_f) : NULL;

    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = c->n_seqs, a.seq_len = c->seq_len, a.head_dim = hd, a.dtype = c->dt;
    a.q = c->q_heads ? qm : NULL, a.q_offset = q_off, a.q_stride = q_stride;
    a.k = c->kv_heads ? km : NULL, a.k_offset = k_off, a.k_stride = k_stride;
    a.q_heads = c->q_heads, a.kv_heads = c->kv_heads, a.start = 7;
    if (c->out_of_place) {
        a.q_out = qo, a.q_out_offset = q_off, a.k_out = ko, a.k_out_offset = 1;
        if (c->k_rows)
            a.k_rows = rm, a.k_rows_offset = 0, a.k_out_rows = ko_rows;
    }
    a.positions = c->positions ? pm : NULL, a.seq_starts = c->seq_starts ? sm : NULL;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    unsigned char *qr = tu_malloc(in_n * e), *kr = tu_malloc(k_sz);
    unsigned char *qor = tu_malloc(qo_f * 4), *kor = tu_malloc(ko_f * 4);
    tu_read(q, qm, 0, in_n * e, qr);
    if (k_n)
        tu_read(q, km, 0, k_n * e, kr);
    if (qo)
        tu_read(q, qo, 0, qo_f * 4, qor), tu_read(q, ko, 0, ko_f * 4, kor);

    /* The expected buffers: the inputs (or poison) with each head rewritten. */
    unsigned char *wq = tu_malloc(in_n * e), *wk = tu_malloc(k_sz);
    unsigned char *wqo = tu_malloc(qo_f * 4), *wko = tu_malloc(ko_f * 4);
    memcpy(wq, qin, in_n * e);
    memcpy(wk, kin, k_sz);
    tu_fill_poison((float *)(void *)wqo, qo_f), tu_fill_poison((float *)(void *)wko, ko_f);
    float *cs = NULL;
    for (size_t r = 0; r < n; r++) {
        size_t b = r / c->seq_len, t = r % c->seq_len;
        uint32_t p = 7u + (c->positions ? (uint32_t)pos[r] : (uint32_t)t) +
                     (c->seq_starts ? (uint32_t)starts[b] : 0u);
        free(cs);
        cs = table_rows(ctx, q, tab, c->R, (cl_int)p, 1);
        for (size_t h = 0; h < c->q_heads + c->kv_heads; h++) {
            int isq = h < c->q_heads;
            size_t hh = isq ? h : h - c->q_heads;
            const unsigned char *src = isq || c->packed ? qin : kin;
            size_t so = (isq ? q_off + r * q_stride : k_off + r * k_stride) + hh * hd;
            unsigned char *dst = c->out_of_place ? (isq ? wqo : wko) : (isq || c->packed ? wq : wk);
            long krow = c->k_rows && c->out_of_place ? krows[r] : (long)r;
            if (!isq && krow < 0)
                continue;
            size_t d =
                c->out_of_place ? (isq ? q_off + r * qw : 1 + (size_t)krow * kw) + hh * hd : so;
            for (size_t j = 0; j < hd; j++) /* the columns past R */
                if (c->out_of_place && j >= c->R)
                    memcpy(dst + (d + j) * e, src + (so + j) * e, e);
            for (size_t k = 0; k < c->R / 2; k++) {
                size_t i1 = c->pairing ? 2 * k : k, i2 = c->pairing ? 2 * k + 1 : k + c->R / 2;
                size_t cc = c->layout ? 2 * k : k, sc = c->layout ? 2 * k + 1 : k + c->R / 2;
                float co = cs[cc], si = cs[sc];
                float x1 = fr_load(src, so + i1, c->dt), x2 = fr_load(src, so + i2, c->dt);
                float y1 = fmaf(x1, co, -(x2 * si)), y2 = fmaf(x2, co, x1 * si);
                fr_store(dst, d + i1, c->dt, y1);
                fr_store(dst, d + i2, c->dt, y2);
                /* fmaf: half an ulp of x2 sin (|x2 sin| <= 6) and of y1 */
                double y64 = (double)x1 * co - (double)x2 * si;
                TU_CHECK(fabs((double)y1 - y64) <= ldexp(fabs(y64) + 6.0, -24) * 1.0001,
                              "case %d: y1 %.9g, float64 %.12g", _i, (double)y1, y64);
            }
        }
    }
    free(cs);
    for (size_t i = 0; i < in_n; i++)
        TU_CHECK(same_value(qr, wq, i, c->dt),
                      "case %d: q buffer element %zu: %.9g, want %.9g", _i, i,
                      (double)fr_load(qr, i, c->dt), (double)fr_load(wq, i, c->dt));
    for (size_t i = 0; i < k_n; i++)
        TU_CHECK(same_value(kr, wk, i, c->dt),
                      "case %d: k buffer element %zu: %.9g, want %.9g", _i, i,
                      (double)fr_load(kr, i, c->dt), (double)fr_load(wk, i, c->dt));
    if (qo) {
        ck_assert_msg(memcmp(qor, wqo, qo_f * 4) == 0, "case %d: q_out differs", _i);
        ck_assert_msg(memcmp(kor, wko, ko_f * 4) == 0, "case %d: k_out differs", _i);
    }
    TU_FREE(qin, kin, pos, krows, qr, kr, qor, kor, wq, wk, wqo, wko);
    TU_RELEASE(ctx, q, tab, qm, pm, sm, rm, c->packed ? NULL : km, qo, ko); /* NULL: skipped */
}
END_TEST

/* k_rows values at or past k_out_rows skip their token's keys, as negative
   ones do: k_out is poisoned beyond k_out_rows too, and only the rows that
   tokens name inside it change, to the bits of the same tokens' keys
   written row by row. */
START_TEST(rope_k_rows_past_k_out)
{
    enum { N = 7, HD = 16, KO = 4, SPARE = 3 };
    static const cl_int rows[N] = {0, KO, 3, KO + 1, 2147483647, -1, KO + SPARE};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("rope_k_rows_past_k_out");
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, HD);
    sinpe_table *tab = NULL;
    TU_OK(sinpe_rope_table_create(ctx, &s, 8, &tab));
    float kin[N * HD];
    cl_int ident[N];
    tu_rng_floats(&rng, kin, N * HD, -4.0f, 4.0f);
    for (int r = 0; r < N; r++)
        ident[r] = r;
    cl_mem km = tu_buffer(ctx, sizeof kin, kin), rm = tu_buffer(ctx, sizeof rows, rows);
    cl_mem im = tu_buffer(ctx, sizeof ident, ident);
    cl_mem out = tu_poisoned_buffer(ctx, q, (KO + SPARE) * HD);
    cl_mem ref = tu_poisoned_buffer(ctx, q, N * HD);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = 1, a.seq_len = N, a.head_dim = HD, a.start = 5;
    a.k = km, a.kv_heads = 1, a.k_out = ref, a.k_rows = im, a.k_out_rows = N;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    a.k_out = out, a.k_rows = rm, a.k_out_rows = KO;
    TU_OK(sinpe_enqueue_rope(tab, q, &a, 0, NULL, NULL));
    float *got = tu_read_floats(q, out, (KO + SPARE) * HD), *want = tu_read_floats(q, ref, N * HD);
    float poison[HD];
    tu_fill_poison(poison, HD);
    for (int row = 0; row < KO + SPARE; row++) {
        int token = -1;
        for (int r = 0; r < N; r++)
            if (rows[r] == row && row < KO)
                token = r;
        const float *w = token >= 0 ? want + token * HD : poison;
        ck_assert_msg(memcmp(got + row * HD, w, sizeof poison) == 0,
                      "k_out row %d: %s", row, token >= 0 ? "not token's keys" : "written");
    }
    TU_FREE(got, want);
    TU_RELEASE(ctx, q, tab, km, rm, im, out, ref);
}
END_TEST

/* ---- bad arguments ----------------------------------------------------------- */

/* A spec case that the table must refuse, and the field it names. */
static void refuse_spec(sinpe_context *ctx, const sinpe_rope_spec *s, const char *field)
{
    sinpe_table *t = (sinpe_table *)&t;
    TU_STATUS(sinpe_rope_table_create(ctx, s, 8, &t), SINPE_INVALID_SPEC);
    ck_assert_ptr_null(t);
    ck_assert_msg(strstr(sinpe_last_error(), field), "\"%s\" does not name %s",
                  sinpe_last_error(), field);
}

START_TEST(rope_bad_specs)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_rope_spec s;
    double bad_list[64];
    for (int i = 0; i < 64; i++)
        bad_list[i] = 1.0;
    bad_list[5] = NAN;
#define REFUSE(rule, field, ...)                                                             \
    do {                                                                                     \
        s = rule_spec(rule, 64);                                                             \
        __VA_ARGS__;                                                                         \
        refuse_spec(ctx, &s, field);                                                         \
    } while (0)
    REFUSE(0, "rotary_dim", s.rotary_dim = 63);
    REFUSE(0, "rotary_dim", s.rotary_dim = 0);
    REFUSE(0, "rotary_dim", s.rotary_dim = 65538);
    REFUSE(0, "base", s.base = NAN);
    REFUSE(0, "base", s.base = 1.0);
    REFUSE(0, "rule", s.rule = (sinpe_rope_rule)7);
    REFUSE(0, "pairing", s.pairing = (sinpe_rope_pairing)2);
    REFUSE(0, "layout", s.layout = (sinpe_rope_layout)4);
    REFUSE(1, "factor", s.factor = 0);
    REFUSE(1, "factor", s.factor = -2);
    REFUSE(3, "factor", s.factor = NAN);
    REFUSE(6, "factor", s.factor = -1);
    REFUSE(2, "rotary_dim", s.rotary_dim = 2);
    REFUSE(2, "max_positions", s.max_positions = 0);
    REFUSE(3, "original_max_positions", s.original_max_positions = 0);
    REFUSE(3, "beta_fast", s.beta_fast = 1, s.beta_slow = 1);
    REFUSE(3, "beta_fast", s.beta_slow = NAN);
    REFUSE(4, "mscale", s.mscale = INFINITY);
    REFUSE(5, "low_freq_factor", s.low_freq_factor = 5);
    REFUSE(5, "original_max_positions", s.original_max_positions = 1);
    REFUSE(6, "short_factor", s.short_factor = NULL, s.n_short_factor = 0);
    REFUSE(6, "long_factor[5]", s.long_factor = bad_list);
    REFUSE(0, "attention_factor", s.attention_factor = -1);
    REFUSE(8, "inv_freq[5]", given_f[5] = 0.0f);
#undef REFUSE
    s = rule_spec(0, 64);
    s.struct_size = sizeof s; /* untagged: no 0.1 layout to read */
    sinpe_table *t = NULL;
    TU_STATUS(sinpe_rope_table_create(ctx, &s, 8, &t), SINPE_INVALID_STRUCT_SIZE);
    TU_STATUS(sinpe_rope_frequencies(NULL, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_rope_preset(&s, (sinpe_rope_preset)99, 128), SINPE_UNKNOWN_PRESET);
    TU_STATUS(sinpe_rope_preset(&s, SINPE_ROPE_PRESET_GPT_NEOX, 6), SINPE_INVALID_SPEC);
    TU_STATUS(sinpe_rope_preset(&s, SINPE_ROPE_PRESET_GPTJ, 32), SINPE_INVALID_SPEC);
    ck_assert_ptr_null(sinpe_rope_preset_name((sinpe_rope_preset)0));
    sinpe_context_release(ctx);
}
END_TEST

/* Each bad call: its status and the argument its message names; the
   poisoned q_out and q must be untouched afterwards (nothing enqueued). */
START_TEST(rope_bad_calls)
{
    enum { NS = 2, SL = 3, N = NS * SL, HD = 16, QH = 2, KH = 1 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, 8);
    sinpe_table *tab = NULL, *twice = NULL, *embed = tu_table(ctx, 16, 8);
    TU_OK(sinpe_rope_table_create(ctx, &s, 16, &tab));
    s.layout = SINPE_ROPE_SIN_TWICE;
    TU_OK(sinpe_rope_table_create(ctx, &s, 16, &twice));
    cl_mem qm = tu_poisoned_buffer(ctx, q, N * QH * HD), km = tu_poisoned_buffer(ctx, q, N * KH * HD);
    cl_mem qo = tu_poisoned_buffer(ctx, q, N * QH * HD), small = tu_poisoned_buffer(ctx, q, 5);
    cl_mem packed = tu_poisoned_buffer(ctx, q, N * (QH + KH) * HD);
    sinpe_rope_args good;
    sinpe_rope_args_init(&good);
    good.n_seqs = NS, good.seq_len = SL, good.head_dim = HD;
    good.q = qm, good.q_heads = QH, good.k = km, good.kv_heads = KH, good.q_out = qo;
    TU_OK(sinpe_enqueue_rope(tab, q, &good, 0, NULL, NULL));
    TU_CL(clFinish(q));
    float *q0 = tu_read_floats(q, qm, N * QH * HD), *o0 = tu_read_floats(q, qo, N * QH * HD);
    tu_write(q, qo, 0, N * QH * HD * sizeof(float), q0); /* a known state to compare with */
    free(o0);
    o0 = tu_read_floats(q, qo, N * QH * HD);

    static const struct {
        int what;
        sinpe_status want;
        const char *names;
    } bad[] = {
        {0, SINPE_INVALID_SHAPE, "n_seqs"},      {1, SINPE_INVALID_SHAPE, "seq_len"},
        {2, SINPE_INVALID_SHAPE, "head_dim"},    {3, SINPE_INVALID_SHAPE, "kv_heads"},
        {4, SINPE_INVALID_DTYPE, "dtype"},       {5, SINPE_NULL_ARGUMENT, "args->q"},
        {6, SINPE_BUFFER_TOO_SMALL, "args->k"},  {7, SINPE_INVALID_SHAPE, "q_stride"},
        {8, SINPE_BUFFERS_OVERLAP, "q and"},     {9, SINPE_BUFFERS_OVERLAP, "q_out"},
        {10, SINPE_INVALID_SHAPE, "k_rows"},     {11, SINPE_INVALID_SPEC, "rotary table"},
        {12, SINPE_INVALID_SPEC, "layout"},      {13, SINPE_INVALID_SHAPE, "start"},
        {14, SINPE_BUFFER_TOO_SMALL, "positions"}, {15, SINPE_INVALID_STRUCT_SIZE, "args"},
        {16, SINPE_NULL_ARGUMENT, "args"},       {17, SINPE_INVALID_WAIT_LIST, "event"},
        {18, SINPE_BUFFERS_OVERLAP, "k_out"},    {19, SINPE_BUFFER_TOO_SMALL, "k_out"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sinpe_rope_args a = good;
        sinpe_table *t = tab;
        cl_uint nwait = 0;
        const sinpe_rope_args *ap = &a;
        switch (bad[i].what) {
        case 0: a.n_seqs = 0; break;
        case 1: a.seq_len = 0; break;
        case 2: a.head_dim = 6; break;
        case 3: a.q_heads = 0, a.kv_heads = 0; break;
        case 4: a.dtype = SINPE_I8; break;
        case 5: a.q = NULL; break;
        case 6: a.k = small; break;
        case 7: a.q_stride = HD; break;
        case 8: /* packed rows whose k starts inside q's columns */
            a.q = a.k = packed, a.q_stride = a.k_stride = (QH + KH) * HD;
            a.k_offset = HD, a.q_out = NULL;
            break;
        case 9: /* q_out shifted over q's columns */
            a.q = a.q_out = packed, a.q_stride = a.q_out_stride = (QH + KH) * HD;
            a.q_out_offset = 8;
            break;
        case 10: a.k_rows = km; break;
        case 11: t = embed; break;
        case 12: t = twice; break;
        case 13: a.start = 2147483647 - 1; break;
        case 14: a.positions = small; break;
        case 15: a.struct_size = sizeof a; break;
        case 16: ap = NULL; break;
        case 17: nwait = 1; break;
        case 18: a.k_out = qo; break; /* k_out inside q_out */
        case 19: a.k_out = small; break;
        }
        TU_STATUS(sinpe_enqueue_rope(t, q, ap, nwait, NULL, NULL), bad[i].want);
        ck_assert_msg(strstr(sinpe_last_error(), bad[i].names), "case %zu: \"%s\" lacks \"%s\"",
                      i, sinpe_last_error(), bad[i].names);
    }
    /* The embedding and timesteps calls refuse a rotary table. */
    sinpe_embed_args e = tu_args(1, 1, km, km, 1, qo);
    TU_STATUS(sinpe_enqueue_embed(tab, q, &e, 0, NULL, NULL), SINPE_INVALID_SPEC);
    TU_STATUS(sinpe_enqueue_timesteps(tab, q, km, 0, 1, qo, 0, 0, SINPE_F32, 0, NULL, NULL),
              SINPE_INVALID_SPEC);
    sinpe_spec sp;
    TU_STATUS(sinpe_table_spec_sized(tab, &sp, SINPE_STRUCT_SIZE(sinpe_spec)), SINPE_INVALID_SPEC);
    TU_CL(clFinish(q));
    float *q1 = tu_read_floats(q, qm, N * QH * HD), *o1 = tu_read_floats(q, qo, N * QH * HD);
    ck_assert_msg(!memcmp(q0, q1, N * QH * HD * sizeof(float)), "a refused call changed q");
    ck_assert_msg(!memcmp(o0, o1, N * QH * HD * sizeof(float)), "a refused call changed q_out");
    TU_FREE(q0, q1, o0, o1);
    sinpe_table_release(twice), sinpe_table_release(embed);
    TU_RELEASE(ctx, q, tab, qm, km, qo, small, packed);
}
END_TEST

TU_SUITE(rope, 139)
{
    Suite *s = suite_create("rope");
    TCase *tc = tu_tcase(s, "rope", NULL);
    tcase_add_loop_test(tc, rope_frequencies_match_hf, 0, N_RULES);
    tcase_add_loop_test(tc, rope_presets_match_hf, 0, SINPE_ROPE_PRESET_PHI3_LONGROPE);
    tcase_add_loop_test(tc, rope_table_exact_and_same_bits, 0, 2 * N_RULES);
    TU_ADD(tc, rope_bad_specs, rope_bad_calls);
    suite_add_tcase(s, tcase_rope_spec());
    /* The rotation's kernel under every record that launches it otherwise. */
    tc = tu_tcase(s, "rotation", "rope");
    tcase_add_loop_test(tc, rope_rotation_bits, 0, (int)(sizeof rot_cases / sizeof rot_cases[0]));
    tcase_add_test(tc, rope_k_rows_past_k_out);
    return s;
}
