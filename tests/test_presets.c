/* test_presets.c -- each sinpe_preset against an independent float64
 * transcription of its framework's code (family_ref.c), the spec and embed
 * argument fields the header documents for it, and the framework's whole
 * input stage (token scale, position origin, padding) end to end.
 *
 * Tolerance: the header's bar, |table - float64| <= 1.5e-7 (TU_PE_TOL), for
 * table rows and for positions past them up to 2^24 - 1; end to end
 * TU_EMBED_TOL. */
#include "family_ref.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sinpe_preset all_presets[] = {
    SINPE_PRESET_VASWANI,   SINPE_PRESET_TENSOR2TENSOR, SINPE_PRESET_FAIRSEQ,
    SINPE_PRESET_WHISPER,   SINPE_PRESET_MARIAN_HF,     SINPE_PRESET_OPENNMT,
    SINPE_PRESET_DIFFUSERS, SINPE_PRESET_DIFFUSERS_FLIP, SINPE_PRESET_GGML_TIMESTEP,
    SINPE_PRESET_MAE,
};
#define N_PRESETS (sizeof all_presets / sizeof all_presets[0])

static const size_t test_dims[] = {1, 2, 3, 7, 64, 513, 1024};
#define N_DIMS (sizeof test_dims / sizeof test_dims[0])

/* What the header documents for each preset's spec. */
typedef struct spec_doc {
    sinpe_preset preset;
    sinpe_layout layout;
    sinpe_odd_dim odd;
    double shift;
} spec_doc;

static const spec_doc spec_docs[] = {
    {SINPE_PRESET_VASWANI, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 0.0},
    {SINPE_PRESET_TENSOR2TENSOR, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0},
    {SINPE_PRESET_FAIRSEQ, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0},
    {SINPE_PRESET_WHISPER, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ERROR, 1.0},
    {SINPE_PRESET_MARIAN_HF, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_EXTRA_SIN, 0.0},
    {SINPE_PRESET_OPENNMT, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ERROR, 1.0},
    {SINPE_PRESET_DIFFUSERS, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0},
    {SINPE_PRESET_DIFFUSERS_FLIP, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 0.0},
    {SINPE_PRESET_GGML_TIMESTEP, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 0.0},
    {SINPE_PRESET_MAE, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ERROR, 0.0},
};

static const char *pname(sinpe_preset p)
{
    const char *n = sinpe_preset_name(p);
    return n ? n : "(null)";
}

/* Rows to compare per width: more rows where they are cheap. */
static size_t rows_for(size_t dim)
{
    return dim <= 7 ? 3000 : dim <= 64 ? 1500 : 96;
}

/* Compares n rows of got (float32, dim wide, row stride dim) with the
   framework's PE of p at positions pos. */
static void check_pe_rows(const float *got, const double *pos, size_t n, size_t dim,
                          sinpe_preset p, const char *where)
{
    double *ref = tu_malloc(n * dim * sizeof *ref);
    fr_family_ref(p, dim, n, pos, ref);
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < dim; c++) {
            double g = got[i * dim + c], e = ref[i * dim + c];
            TU_CHECK(fabs(g - e) <= TU_PE_TOL,
                     "%s %s dim %zu position %.17g col %zu: got %.9g, framework %.12g, "
                     "|diff| %.3g",
                     pname(p), where, dim, pos[i], c, g, e, fabs(g - e));
        }
    }
    free(ref);
}

/* ---- Tables against the frameworks ---- */

START_TEST(preset_table_matches_framework)
{
    sinpe_preset p = all_presets[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("preset_table_matches_framework");

    for (size_t di = 0; di < N_DIMS; di++) {
        size_t dim = test_dims[di];
        sinpe_spec spec;
        fr_defined def = fr_family_defined(p, dim);
        /* sinpe refuses the widths the framework refuses (Whisper asserts
         * and OpenNMT raises on an odd one; the fields: preset_spec_fields). */
        sinpe_status st = sinpe_spec_preset(&spec, p, dim);
        sinpe_status want = def == FR_REJECTS ? SINPE_INVALID_SPEC : SINPE_SUCCESS;
        ck_assert_msg(st == want, "%s dim %zu: sinpe_spec_preset returned %d (%s), expected %d: %s",
                      pname(p), dim, (int)st, sinpe_status_string(st), (int)want,
                      sinpe_last_error());
        /* Where the original divides by zero (fairseq d = 2, 3; Whisper and
         * OpenNMT d = 2; diffusers with shift 1, d = 2, 3) there is no
         * framework value to compare with. */
        if (def != FR_OK)
            continue;

        /* Table rows [0, rows). */
        size_t rows = rows_for(dim);
        sinpe_table *tab = tu_table_of(ctx, &spec, rows);
        size_t held = sinpe_table_rows(tab);
        float *got = tu_table_read(tab, q, rows);
        double *pos = tu_malloc(rows * sizeof *pos);
        for (size_t r = 0; r < rows; r++)
            pos[r] = (double)r;
        check_pe_rows(got, pos, rows, dim, p, "table row");
        TU_FREE(got, pos);

        /* Positions past the table, up to the largest the bar covers. */
        enum { NP = 24 };
        int32_t ip[NP] = {0, 1, (int32_t)held - 1, (int32_t)held, 4095, 4096, 4097, 65535,
                          65536, 1000000, (1 << 23) + 1, (1 << 24) - 1};
        for (size_t i = 12; i < NP; i++)
            ip[i] = tu_rng_int(&rng, 0, (1 << 24) - 1);
        double dp[NP];
        for (size_t i = 0; i < NP; i++)
            dp[i] = (double)ip[i];
        float *far = tu_pe_at(ctx, tab, ip, NP, 1);
        check_pe_rows(far, dp, NP, dim, p, "on-the-fly");
        free(far);
        sinpe_table_release(tab);
    }
    tu_release(ctx, q, NULL, NULL, 0);
}
END_TEST

/* ---- Spec and argument fields ---- */

START_TEST(preset_spec_fields)
{
    for (size_t i = 0; i < sizeof spec_docs / sizeof spec_docs[0]; i++) {
        const spec_doc *d = &spec_docs[i];
        for (size_t di = 0; di < N_DIMS; di++) {
            size_t dim = test_dims[di];
            sinpe_spec s;
            memset(&s, 0xA5, sizeof s);
            sinpe_status st = sinpe_spec_preset(&s, d->preset, dim);
            if (d->odd == SINPE_ODD_ERROR && dim % 2) {
                ck_assert_msg(st == SINPE_INVALID_SPEC, "%s dim %zu: got %d", pname(d->preset),
                              dim, (int)st);
                continue;
            }
            ck_assert_msg(st == SINPE_SUCCESS, "%s dim %zu: %d (%s)", pname(d->preset), dim,
                          (int)st, sinpe_last_error());
            ck_assert_msg(s.dim == dim && s.layout == d->layout && s.odd_dim == d->odd &&
                              s.shift == d->shift && s.base == 10000.0 && s.angle_scale == 1.0,
                          "%s dim %zu: spec {dim %zu layout %d odd %d shift %g base %g scale %g} "
                          "differs from the header's {layout %d odd %d shift %g base 1e4 scale 1}",
                          pname(d->preset), dim, s.dim, (int)s.layout, (int)s.odd_dim, s.shift,
                          s.base, s.angle_scale, (int)d->layout, (int)d->odd, d->shift);
        }
        /* dim 0 is invalid for every family. */
        sinpe_spec s;
        TU_STATUS(sinpe_spec_preset(&s, d->preset, 0), SINPE_INVALID_SPEC);
    }
}
END_TEST

START_TEST(preset_dim_limits)
{
    /* The spec's documented range is 1 <= dim <= 65536. */
    sinpe_spec s;
    TU_OK(sinpe_spec_preset(&s, SINPE_PRESET_VASWANI, 65536));
    TU_OK(sinpe_spec_preset(&s, SINPE_PRESET_FAIRSEQ, 65535));
    TU_STATUS(sinpe_spec_preset(&s, SINPE_PRESET_VASWANI, 65537), SINPE_INVALID_SPEC);
    TU_STATUS(sinpe_spec_preset(&s, SINPE_PRESET_WHISPER, 65538), SINPE_INVALID_SPEC);
}
END_TEST

START_TEST(preset_unknown_and_names)
{
    const int unknown[] = {0, 99, -1, 11, 0x7fffffff};
    sinpe_spec s;
    sinpe_embed_args a;
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        sinpe_preset p = (sinpe_preset)unknown[i];
        sinpe_embed_args_init(&a);
        TU_STATUS(sinpe_spec_preset(&s, p, 64), SINPE_UNKNOWN_PRESET);
        TU_STATUS(sinpe_embed_args_preset(&a, p, 64, 1), SINPE_UNKNOWN_PRESET);
        ck_assert_msg(sinpe_preset_name(p) == NULL, "sinpe_preset_name(%d) is \"%s\", not NULL",
                      unknown[i], sinpe_preset_name(p));
    }
    TU_STATUS(sinpe_spec_preset(NULL, SINPE_PRESET_VASWANI, 64), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_embed_args_preset(NULL, SINPE_PRESET_VASWANI, 64, 1), SINPE_NULL_ARGUMENT);

    for (size_t i = 0; i < N_PRESETS; i++) {
        const char *n = sinpe_preset_name(all_presets[i]);
        ck_assert_msg(n != NULL && n[0] != '\0', "preset %d has no name", (int)all_presets[i]);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(n, sinpe_preset_name(all_presets[j])) != 0,
                          "presets %d and %d share the name \"%s\"", (int)all_presets[i],
                          (int)all_presets[j], n);
        /* A success clears the thread's last error. */
        TU_STATUS(sinpe_spec_preset(&s, (sinpe_preset)0, 64), SINPE_UNKNOWN_PRESET);
        ck_assert_str_ne(sinpe_last_error(), "");
        TU_OK(sinpe_spec_preset(&s, all_presets[i], 64));
        ck_assert_str_eq(sinpe_last_error(), "");
    }
    ck_assert_str_eq(sinpe_preset_name(SINPE_PRESET_FAIRSEQ), "fairseq");
}
END_TEST

/* The header's word for each text family: scale sqrt(d) or 1, origin, rule, padding. */
typedef struct args_doc {
    sinpe_preset preset;
    int sqrt_scale;
    cl_int start;
    sinpe_position_rule rule;
    sinpe_pad_policy pad;
    int pad_fixed; /* >= 0: the family's own pad id, whatever is passed; -1: the passed one;
                      -2: not specified */
    sinpe_scale_rounding rounding;
} args_doc;

static const args_doc args_docs[] = {
    {SINPE_PRESET_VASWANI, 1, 0, SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -2, SINPE_SCALE_EXACT},
    {SINPE_PRESET_TENSOR2TENSOR, 1, 0, SINPE_POSITIONS_INDEX, SINPE_PAD_ZERO_EMBEDDING, 0,
     SINPE_SCALE_OUTPUT},
    {SINPE_PRESET_FAIRSEQ, 1, 0, SINPE_POSITIONS_FAIRSEQ, SINPE_PAD_ZERO_PE, -1, SINPE_SCALE_EXACT},
    {SINPE_PRESET_WHISPER, 0, 0, SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -2, SINPE_SCALE_EXACT},
    {SINPE_PRESET_MARIAN_HF, 1, 0, SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -2, SINPE_SCALE_EXACT},
    {SINPE_PRESET_OPENNMT, 1, 1, SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -2, SINPE_SCALE_OUTPUT},
};

/* Shape and buffer fields set to recognisable values; presets must leave them. */
static void fill_shape_fields(sinpe_embed_args *a)
{
    a->n_seqs = 3, a->seq_len = 17, a->vocab = 1234;
    a->ids = (cl_mem)(uintptr_t)0x1000, a->ids_offset = 5;
    a->weights = (cl_mem)(uintptr_t)0x2000, a->weights_offset = 6, a->weights_stride = 99;
    a->out = (cl_mem)(uintptr_t)0x3000, a->out_offset = 7, a->out_stride = 101;
    a->positions_offset = 8;
    a->bad_ids = (cl_mem)(uintptr_t)0x4000, a->bad_ids_offset = 9;
    a->weights_dtype = SINPE_BF16, a->out_dtype = SINPE_F16;
    a->seq_starts = (cl_mem)(uintptr_t)0x5000, a->seq_starts_offset = 10;
    a->pad_counts = (cl_mem)(uintptr_t)0x6000, a->pad_counts_offset = 11;
    a->vocab_shard = 1, a->vocab_start = 12, a->skip_pe = 1;
}

/* a's buffer and shape fields as fill_shape_fields set them, positions NULL
   and not broadcast: a with those fields so set is a, byte for byte. */
static void check_shape_fields(const sinpe_embed_args *a, const char *what)
{
    sinpe_embed_args w;
    memcpy(&w, a, sizeof w);
    fill_shape_fields(&w);
    w.positions = NULL;
    w.positions_broadcast = 0;
    ck_assert_msg(memcmp(&w, a, sizeof w) == 0,
                  "%s: sinpe_embed_args_preset changed a buffer or shape field", what);
}

START_TEST(preset_embed_args)
{
    const size_t dims[] = {1, 7, 64, 512, 1000, 1024};
    const cl_int pads[] = {1, 7};
    char what[128];
    for (size_t i = 0; i < sizeof args_docs / sizeof args_docs[0]; i++) {
        const args_doc *d = &args_docs[i];
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            for (size_t pi = 0; pi < 2; pi++) {
                size_t dim = dims[di];
                sinpe_embed_args a;
                sinpe_embed_args_init(&a);
                fill_shape_fields(&a);
                /* Fields the preset sets, primed with other valid values. */
                a.token_scale = 3.5f;
                a.start = 77;
                a.position_rule = d->rule == SINPE_POSITIONS_FAIRSEQ ? SINPE_POSITIONS_INDEX
                                                                     : SINPE_POSITIONS_FAIRSEQ;
                a.pad_policy = d->pad == SINPE_PAD_ZERO_OUTPUT ? SINPE_PAD_NONE
                                                               : SINPE_PAD_ZERO_OUTPUT;
                a.pad_id = 55;
                a.token_scale_rounding = d->rounding == SINPE_SCALE_EXACT ? SINPE_SCALE_WEIGHTS
                                                                          : SINPE_SCALE_EXACT;
                snprintf(what, sizeof what, "%s dim %zu pad %d", pname(d->preset), dim,
                         (int)pads[pi]);
                TU_OK(sinpe_embed_args_preset(&a, d->preset, dim, pads[pi]));
                float want = d->sqrt_scale ? (float)sqrt((double)dim) : 1.0f;
                ck_assert_msg(a.token_scale == want, "%s: token_scale %.9g, expected %.9g", what,
                              (double)a.token_scale, (double)want);
                ck_assert_msg(a.start == d->start, "%s: start %d, expected %d", what,
                              (int)a.start, (int)d->start);
                ck_assert_msg(a.position_rule == d->rule, "%s: position_rule %d, expected %d",
                              what, (int)a.position_rule, (int)d->rule);
                ck_assert_msg(a.pad_policy == d->pad, "%s: pad_policy %d, expected %d", what,
                              (int)a.pad_policy, (int)d->pad);
                ck_assert_msg(a.token_scale_rounding == d->rounding,
                              "%s: token_scale_rounding %d, expected %d", what,
                              (int)a.token_scale_rounding, (int)d->rounding);
                if (d->pad_fixed >= 0)
                    ck_assert_msg(a.pad_id == d->pad_fixed, "%s: pad_id %d, expected %d", what,
                                  (int)a.pad_id, d->pad_fixed);
                else if (d->pad_fixed == -1)
                    ck_assert_msg(a.pad_id == pads[pi], "%s: pad_id %d, expected %d", what,
                                  (int)a.pad_id, (int)pads[pi]);
                check_shape_fields(&a, what);
            }
        }
    }

    /* The timestep presets and MAE leave freshly initialised args as they are. */
    const sinpe_preset ts[] = {SINPE_PRESET_DIFFUSERS, SINPE_PRESET_DIFFUSERS_FLIP,
                               SINPE_PRESET_GGML_TIMESTEP, SINPE_PRESET_MAE};
    for (size_t i = 0; i < 4; i++) {
        sinpe_embed_args a, init;
        sinpe_embed_args_init(&a);
        sinpe_embed_args_init(&init);
        TU_OK(sinpe_embed_args_preset(&a, ts[i], 320, 1));
        ck_assert_msg(memcmp(&a, &init, sizeof a) == 0, "%s: changed the initialised args",
                      pname(ts[i]));
    }
}
END_TEST

/* ---- End to end: each text family's input stage ---- */

/* The framework's own input stage in float64:
 *   Vaswani, Marian: sqrt(d) E[id] + PE(t)
 *   t2t:     sqrt(d) E[id] * (id != 0) + timing_signal(t)
 *   fairseq: sqrt(d) E[id] + table[make_positions(ids)], table row pad zero
 *   Whisper: E[id] + sinusoids(t)          (the encoder adds no scale)
 *   OpenNMT: sqrt(d) E[id] + encode(t + 1) */
static void family_stage(sinpe_preset p, size_t dim, size_t n_seqs, size_t seq_len,
                         const int32_t *ids, const float *w, int32_t pad, double *ref)
{
    double scale = p == SINPE_PRESET_WHISPER ? 1.0 : sqrt((double)dim);
    double *pos = tu_malloc(seq_len * sizeof *pos);
    double *pe = tu_malloc(seq_len * dim * sizeof *pe);
    for (size_t b = 0; b < n_seqs; b++) {
        const int32_t *x = ids + b * seq_len;
        int64_t count = 0;
        for (size_t t = 0; t < seq_len; t++) {
            if (p == SINPE_PRESET_FAIRSEQ) {
                /* utils.make_positions: cumsum(mask) * mask + padding_idx */
                int mask = x[t] != pad;
                count += mask;
                pos[t] = (double)(count * mask + pad);
            } else {
                pos[t] = (double)t + (p == SINPE_PRESET_OPENNMT ? 1.0 : 0.0);
            }
        }
        fr_family_ref(p, dim, seq_len, pos, pe);
        for (size_t t = 0; t < seq_len; t++) {
            double *o = ref + (b * seq_len + t) * dim;
            int is_pad = x[t] == pad;
            for (size_t c = 0; c < dim; c++) {
                double e = scale * (double)w[(size_t)x[t] * dim + c];
                double pv = pe[t * dim + c];
                if (p == SINPE_PRESET_TENSOR2TENSOR && x[t] == 0)
                    e = 0.0; /* symbol_modality zeroes the pad embedding */
                if (p == SINPE_PRESET_FAIRSEQ && is_pad)
                    pv = 0.0; /* weights[padding_idx] is the zero row */
                o[c] = e + pv;
            }
        }
    }
    TU_FREE(pos, pe);
}

START_TEST(preset_end_to_end)
{
    const sinpe_preset text[] = {SINPE_PRESET_VASWANI, SINPE_PRESET_TENSOR2TENSOR,
                                 SINPE_PRESET_FAIRSEQ,  SINPE_PRESET_WHISPER,
                                 SINPE_PRESET_MARIAN_HF, SINPE_PRESET_OPENNMT};
    sinpe_preset p = text[_i / 2];
    /* An odd width where the family defines one, else a second even one. */
    size_t dim = (_i % 2 == 0) ? 64 : (fr_family_defined(p, 33) == FR_OK ? 33 : 40);
    enum { NS = 4, SL = 41, VOCAB = 50 };
    const int32_t pad_arg = 1;
    char what[128];
    snprintf(what, sizeof what, "%s end to end, dim %zu", pname(p), dim);

    tu_rng rng = tu_rng_for(what);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_preset_table(ctx, p, dim, 16, NULL);

    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    TU_OK(sinpe_embed_args_preset(&a, p, dim, pad_arg));
    /* t2t fixes its own pad id (0); the families without padding may leave
     * pad_id as they like, and their "pads" are then ordinary tokens. */
    int32_t pad = a.pad_id >= 0 && a.pad_id < VOCAB ? a.pad_id : pad_arg;

    /* Sequence 0 unpadded, 1 left-padded, 2 right-padded, 3 random pads. */
    int32_t ids[NS * SL];
    for (size_t b = 0; b < NS; b++) {
        for (size_t t = 0; t < SL; t++) {
            int32_t id = tu_rng_int(&rng, 0, VOCAB - 1);
            while (id == 0 || id == pad_arg)
                id = tu_rng_int(&rng, 0, VOCAB - 1);
            if ((b == 1 && t < 9) || (b == 2 && t >= SL - 13) ||
                (b == 3 && tu_rng_unit(&rng) < 0.3))
                id = pad;
            ids[b * SL + t] = id;
        }
    }
    float *w = tu_malloc(VOCAB * dim * sizeof *w);
    for (size_t i = 0; i < VOCAB * dim; i++)
        w[i] = tu_rng_float(&rng, -0.5f, 0.5f);

    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem w_m = tu_buffer(ctx, VOCAB * dim * sizeof *w, w);
    size_t ostride = dim + 3, n_out = (NS * SL - 1) * ostride + dim;
    cl_mem out_m = tu_poisoned_buffer(ctx, q, n_out);
    a.n_seqs = NS, a.seq_len = SL, a.ids = ids_m, a.weights = w_m, a.vocab = VOCAB;
    a.out = out_m, a.out_stride = ostride;
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));

    float *got = tu_read_floats(q, out_m, n_out);
    double *ref = tu_malloc(NS * SL * dim * sizeof *ref);
    family_stage(p, dim, NS, SL, ids, w, pad, ref);
    tu_check_rows(got, 0, ostride, NS * SL, dim, ref, TU_EMBED_TOL, TU_EMBED_TOL, what);
    tu_check_layout(got, n_out, 0, ostride, NS * SL, dim, what);

    TU_FREE(got, ref, w);
    TU_RELEASE(ctx, q, tab, ids_m, w_m, out_m);
}
END_TEST

TU_SUITE(presets, 41)
{
    Suite *s = suite_create("presets");

    TCase *tc = tcase_create("fields");
    TU_ADD(tc, preset_spec_fields, preset_dim_limits, preset_unknown_and_names, preset_embed_args);
    suite_add_tcase(s, tc);
    tcase_add_loop_test(tu_tcase(s, "tables", NULL), preset_table_matches_framework, 0,
                        (int)N_PRESETS);
    tcase_add_loop_test(tu_tcase(s, "end_to_end", NULL), preset_end_to_end, 0, 12);
    return s;
}
