/* test_positions.c -- the position sources of sinpe_embed_args (seq_starts,
 * explicit (B, S) and broadcast (1, S) positions, pad_counts, fairseq's
 * make_positions) and the padding policies, through the fused kernel and the
 * unfused pair, against the float64 reference of the header's rules
 * (ref_embed, tests/grind/ref.c).
 *
 * Tolerances: TU_EMBED_TOL for embeddings, TU_PE_TOL where the output is PE
 * alone; zeroed rows must be exactly zero, gather + add must equal the fused
 * kernel bit for bit (float32 output).  Outputs are poisoned before each run;
 * every element outside the written rows must keep the poison. */
#include "embed_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int32_t *random_ids(tu_rng *rng, size_t n, size_t vocab, int32_t avoid)
{
    int32_t *ids = tu_malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++) {
        do
            ids[i] = tu_rng_int(rng, 0, (int32_t)vocab - 1);
        while (ids[i] == avoid);
    }
    return ids;
}

static float *random_weights(tu_rng *rng, size_t n)
{
    float *w = tu_malloc(n * sizeof *w);
    tu_rng_floats(rng, w, n, -1.0f, 1.0f);
    return w;
}

static int32_t *random_ints(tu_rng *rng, size_t n, int32_t lo, int32_t hi)
{
    int32_t *v = tu_malloc(n * sizeof *v);
    tu_rng_ints(rng, v, n, lo, hi);
    return v;
}

/* ---- Position sources ---- */

START_TEST(positions_seq_starts)
{
    tu_rng rng = tu_rng_for("positions_seq_starts");
    pcase c = {.name = "seq_starts",
               .spec = tu_spec(70, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0),
               .table_rows = 64, .n_seqs = 5, .seq_len = 37, .vocab = 60, .ids_offset = 3,
               .out_offset = 2, .out_stride = 73, .token_scale = 2.5f, .start = -4,
               .seq_starts_offset = 3};
    int32_t *ids = random_ids(&rng, pc_rows(&c), c.vocab, -1);
    float *w = random_weights(&rng, c.vocab * c.spec.dim);
    int32_t *ss = random_ints(&rng, c.n_seqs, 0, 3000);
    ss[0] = 0;
    ss[1] = 20; /* rows straddle the table's end */
    c.ids = ids, c.w = w, c.seq_starts = ss;
    pc_run_and_check(NULL, NULL, &c);
    TU_FREE(ids, w, ss);
}
END_TEST

START_TEST(positions_explicit)
{
    /* _i: 0 (B, S); 1 broadcast (1, S); 2 broadcast + seq_starts;
     * 3 broadcast + pad_counts. */
    static const char *const names[] = {"explicit (B,S)", "broadcast (1,S)",
                                        "broadcast + seq_starts", "broadcast + pad_counts"};
    tu_rng rng = tu_rng_for(names[_i]);
    /* 11 sequences: more than one group of sequences sharing positions. */
    pcase c = {.name = names[_i],
               .spec = tu_spec(33, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 0.0, 1e4, 1.0),
               .table_rows = 100, .n_seqs = _i == 0 ? 3 : 11, .seq_len = _i == 0 ? 29 : 23,
               .vocab = 40, .out_stride = 35, .token_scale = sqrtf(33.0f),
               .start = _i == 3 ? 5 : 0};
    int32_t *ids = random_ids(&rng, pc_rows(&c), c.vocab, -1);
    float *w = random_weights(&rng, c.vocab * c.spec.dim);
    int32_t *pos = _i == 0 ? random_ints(&rng, pc_rows(&c), -50, 5000)
                           : random_ints(&rng, c.seq_len, 0, 300);
    int32_t *per_seq = random_ints(&rng, c.n_seqs, 0, 200);
    c.ids = ids, c.w = w, c.positions = pos;
    c.positions_offset = _i == 0 ? 4 : 6;
    c.broadcast = _i != 0;
    if (_i == 2)
        c.seq_starts = per_seq, c.seq_starts_offset = 1;
    else if (_i == 3)
        c.pad_counts = per_seq, c.pad_counts_offset = 2;
    pc_run_and_check(NULL, NULL, &c);
    TU_FREE(ids, w, pos, per_seq);
}
END_TEST

START_TEST(positions_pad_counts)
{
    /* A left-padded batch corrected per row (FasterTransformer style); _i = 1
     * adds per-sequence decode offsets too. */
    tu_rng rng = tu_rng_for(_i ? "pad_counts + seq_starts" : "pad_counts");
    pcase c = {.name = _i ? "pad_counts + seq_starts" : "pad_counts", .table_rows = 32,
               .n_seqs = 6, .seq_len = 31, .vocab = 50, .token_scale = sqrtf(48.0f), .pad_id = 0};
    sinpe_spec_init(&c.spec, 48);
    int32_t *ids = random_ids(&rng, pc_rows(&c), c.vocab, 0);
    int32_t *pc = random_ints(&rng, c.n_seqs, 0, (int32_t)c.seq_len);
    pc[0] = 0;
    pc[1] = (int32_t)c.seq_len; /* all pads */
    pc[2] = (int32_t)c.seq_len - 1;
    for (size_t b = 0; b < c.n_seqs; b++)
        for (int32_t t = 0; t < pc[b]; t++)
            ids[b * c.seq_len + (size_t)t] = 0;
    int32_t *ss = random_ints(&rng, c.n_seqs, 0, 100);
    float *w = random_weights(&rng, c.vocab * c.spec.dim);
    c.ids = ids, c.w = w, c.pad_counts = pc, c.pad_counts_offset = 7;
    if (_i)
        c.seq_starts = ss, c.seq_starts_offset = 0;
    pc_run_and_check(NULL, NULL, &c);
    TU_FREE(ids, pc, ss, w);
}
END_TEST
/* Fills ids for a fairseq batch: sequence b gets pattern b % 6. */
static void fairseq_batch(tu_rng *rng, int32_t *ids, size_t n_seqs, size_t seq_len,
                          size_t vocab, int32_t pad)
{
    for (size_t b = 0; b < n_seqs; b++) {
        int32_t *x = ids + b * seq_len;
        size_t k = seq_len > 1 ? (size_t)tu_rng_int(rng, 1, (int32_t)seq_len - 1) : 0;
        for (size_t t = 0; t < seq_len; t++) {
            int32_t id;
            do
                id = tu_rng_int(rng, 0, (int32_t)vocab - 1);
            while (id == pad);
            int pad_here = b % 6 == 1   ? t < k                  /* left-padded */
                           : b % 6 == 2 ? t >= seq_len - k       /* right-padded */
                           : b % 6 == 3 ? 1                      /* all pads */
                           : b % 6 == 4 ? tu_rng_unit(rng) < 0.3 /* pads anywhere */
                           : b % 6 == 5 ? t + 1 < seq_len        /* one real token, last */
                                        : 0;                     /* unpadded */
            x[t] = pad_here ? pad : id;
        }
    }
}

START_TEST(positions_fairseq)
{
    /* Long sequences make the device scan cross many segments.  The last two
       cover the other padding policies (at dim 20 the TABLE form's whole
       vectors and its row end; streamed too under records with stream). */
    static const struct {
        size_t n_seqs, seq_len;
        int32_t pad, start;
        sinpe_pad_policy policy;
    } cfg[] = {
        {6, 700, 1, 0, SINPE_PAD_ZERO_PE},
        {7, 257, 0, 3, SINPE_PAD_NONE},
        {4, 1, 1, 0, SINPE_PAD_ZERO_PE},
        {6, 256, 2, -2, SINPE_PAD_ZERO_PE},
        {5, 130, 1, 0, SINPE_PAD_ZERO_OUTPUT},
        {3, 97, 2, 4, SINPE_PAD_ZERO_EMBEDDING},
    };
    char name[64];
    snprintf(name, sizeof name, "fairseq %zux%zu pad %d start %d", cfg[_i].n_seqs,
             cfg[_i].seq_len, (int)cfg[_i].pad, (int)cfg[_i].start);
    tu_rng rng = tu_rng_for(name);
    pcase c = {.name = name,
               .spec = tu_spec(20, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0),
               .table_rows = 64, .n_seqs = cfg[_i].n_seqs, .seq_len = cfg[_i].seq_len,
               .vocab = 40, .ids_offset = 5, .token_scale = sqrtf(20.0f), .start = cfg[_i].start,
               .rule = SINPE_POSITIONS_FAIRSEQ, .policy = cfg[_i].policy, .pad_id = cfg[_i].pad};
    int32_t *ids = tu_malloc(pc_rows(&c) * sizeof *ids);
    fairseq_batch(&rng, ids, c.n_seqs, c.seq_len, c.vocab, c.pad_id);
    float *w = random_weights(&rng, c.vocab * c.spec.dim);
    c.ids = ids, c.w = w;
    pc_run_and_check(NULL, NULL, &c);
    TU_FREE(ids, w);
}
END_TEST

START_TEST(positions_beyond_table)
{
    /* A 16-row table; positions up to 2^24 - 1 (and negative ones) are made
     * on the fly and must meet the same bar, then equal the rows a grown
     * table holds, bit for bit. */
    sinpe_spec specs[4];
    sinpe_spec_init(&specs[0], 64);
    specs[1] = tu_spec(33, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0);
    specs[2] = tu_spec(31, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_EXTRA_SIN, 0.0, 10000.0, 1.0);
    specs[3] = tu_spec(16, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 0.0, 500.0, 2.5);
    const sinpe_spec *spec = &specs[_i];
    size_t dim = spec->dim;
    char sbuf[256], what[400];
    tu_spec_str(spec, sbuf, sizeof sbuf);
    tu_rng rng = tu_rng_for(sbuf);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table_of(ctx, spec, 16);

    enum { NS = 2, SL = 48, N = NS * SL };
    static const int32_t special[] = {0,        15,       16,        17,        4095,
                                      4096,     4097,     65535,     65536,     (1 << 23) - 1,
                                      1 << 23,  (1 << 24) - 2, (1 << 24) - 1, -1, -16,
                                      -4096,    -4097,    -(1 << 20), -((1 << 24) - 1)};
    const size_t n_special = sizeof special / sizeof special[0];
    int32_t pos[N], ids[N] = {0};
    float zero[64] = {0};
    for (size_t r = 0; r < N; r++)
        pos[r] = r < n_special ? special[r] : tu_rng_int(&rng, 0, (1 << 24) - 1);

    pcase c = {.name = "beyond the table", .spec = *spec, .n_seqs = NS, .seq_len = SL,
               .vocab = 1, .token_scale = 1.0f, .ids = ids, .w = zero, .positions = pos};
    float *got = pc_run(ctx, q, tab, &c, PM_FUSED, NULL, NULL, NULL);
    double *ref = tu_pe_rows(spec, pos, 0, N);
    snprintf(what, sizeof what, "beyond the table, %s", sbuf);
    tu_check_rows(got, 0, dim, N, dim, ref, TU_PE_TOL, 0.0, what);
    tu_check_layout(got, pc_out(&c), 0, dim, N, dim, what);
    TU_FREE(got, ref);

    /* Positions in [16, 2000) on the fly, then from the grown table. */
    tu_rng_ints(&rng, pos, N, 16, 1999);
    pos[0] = 16;
    pos[1] = 1999;
    got = pc_run(ctx, q, tab, &c, PM_FUSED, NULL, NULL, NULL);
    TU_OK(sinpe_table_reserve(tab, 2000));
    float *rows = tu_table_read(tab, q, 2000);
    for (size_t r = 0; r < N; r++)
        for (size_t col = 0; col < dim; col++)
            TU_CHECK(got[r * dim + col] == rows[(size_t)pos[r] * dim + col],
                     "%s: position %d col %zu: on the fly %.9g, table row %.9g", sbuf,
                     (int)pos[r], col, (double)got[r * dim + col],
                     (double)rows[(size_t)pos[r] * dim + col]);
    TU_FREE(rows, got);
    tu_release(ctx, q, tab, NULL, 0);
}
END_TEST

/* ---- Padding policies ---- */

static const char *const policy_names[] = {"NONE", "ZERO_PE", "ZERO_OUTPUT", "ZERO_EMBEDDING"};

START_TEST(pad_policies)
{
    /* _i % 4: the policy; _i / 4: positions by index with pad_counts, or by
     * fairseq's rule.  Left and right padding share the batch. */
    sinpe_pad_policy policy = (sinpe_pad_policy)(_i % 4);
    int fairseq = _i / 4;
    char name[96];
    snprintf(name, sizeof name, "pad policy %s, %s positions", policy_names[policy],
             fairseq ? "fairseq" : "index + pad_counts");
    tu_rng rng = tu_rng_for(name);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);

    enum { NS = 6, SL = 24, VOCAB = 45, DIM = 30 };
    const int32_t pad = 3;
    /* Leading and trailing pads per sequence. */
    static const int lead[NS] = {5, 0, 0, SL, 1, 0};
    static const int trail[NS] = {0, 7, 0, 0, 2, SL - 1};
    int32_t ids[NS * SL], pc[NS];
    for (size_t b = 0; b < NS; b++) {
        pc[b] = lead[b];
        for (int t = 0; t < SL; t++) {
            int32_t id;
            do
                id = tu_rng_int(&rng, 0, VOCAB - 1);
            while (id == pad);
            if (t < lead[b] || t >= SL - trail[b])
                id = pad;
            ids[b * SL + (size_t)t] = id;
        }
    }
    /* Ids outside the vocabulary on tokens that are not pads: zero
       embeddings.  The weights buffer holds a row past the vocabulary, huge,
       so that reading it shows. */
    ids[2 * SL + 3] = VOCAB;
    ids[4 * SL + 10] = -1;
    ids[5 * SL] = INT32_MAX;
    float *w = random_weights(&rng, (VOCAB + 1) * DIM);
    for (size_t i = 0; i < DIM; i++)
        w[VOCAB * DIM + i] = 1e30f;

    pcase c = {.name = name,
               .spec = tu_spec(DIM, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0),
               .table_rows = 20, .n_seqs = NS, .seq_len = SL, .vocab = VOCAB, .out_offset = 1,
               .out_stride = DIM + 2, .token_scale = 1.75f, .ids = ids, .w = w,
               .w_rows = VOCAB + 1, .policy = policy, .pad_id = pad,
               .rule = fairseq ? SINPE_POSITIONS_FAIRSEQ : SINPE_POSITIONS_INDEX};
    if (!fairseq)
        c.pad_counts = pc, c.start = 2;
    pc_run_and_check(ctx, q, &c);

    /* add_positions alone, on a prefilled output: it reads the ids. */
    sinpe_table *tab = tu_table_of(ctx, &c.spec, c.table_rows);
    float *x = random_weights(&rng, NS * SL * DIM);
    for (int no_weights = 0; no_weights < 2; no_weights++) {
        c.no_weights = no_weights; /* weights NULL and vocab 0 are allowed */
        double *ref;
        float *got = pc_run(ctx, q, tab, &c, PM_ADD, x, &ref, NULL);
        char what[160];
        snprintf(what, sizeof what, "%s, add_positions%s", name,
                 no_weights ? " without weights" : "");
        pc_check(&c, got, ref, x, what);
        TU_FREE(got, ref);
    }
    TU_FREE(x, w);
    tu_release(ctx, q, tab, NULL, 0);
}
END_TEST

/* ---- Refused arguments ---- */

enum { E_NS = 2, E_SL = 9, E_VOCAB = 12, E_DIM = 8, E_N = E_NS * E_SL };

/* A valid call with a poisoned output, which the tests below break. */
typedef struct errfix {
    sinpe_context *ctx;
    cl_command_queue q;
    sinpe_table *tab;
    cl_mem ids, w, out, pos;
    sinpe_embed_args a;
} errfix;

static void errfix_init(errfix *f)
{
    int32_t ids[E_N], pos[E_N];
    float w[E_VOCAB * E_DIM];
    for (size_t i = 0; i < E_N; i++) {
        ids[i] = (int32_t)(i % E_VOCAB);
        pos[i] = (int32_t)i;
    }
    for (size_t i = 0; i < E_VOCAB * E_DIM; i++)
        w[i] = (float)i * 0.01f;
    f->ctx = tu_context(SINPE_MATH_AUTO);
    f->q = tu_queue(f->ctx);
    f->tab = tu_table(f->ctx, E_DIM, 8);
    f->ids = tu_buffer(f->ctx, sizeof ids, ids);
    f->w = tu_buffer(f->ctx, sizeof w, w);
    f->pos = tu_buffer(f->ctx, sizeof pos, pos);
    f->out = tu_poisoned_buffer(f->ctx, f->q, E_N * E_DIM);
    f->a = tu_args(E_NS, E_SL, f->ids, f->w, E_VOCAB, f->out);
}

static void errfix_release(errfix *f)
{
    TU_RELEASE(f->ctx, f->q, f->tab, f->ids, f->w, f->pos, f->out);
}

/* Expects status want from the calls k = 0, step, ... below 3 with args a
 * (step 2: embed and add_positions, which compute positions), each with no
 * event, a message, and the output untouched. */
static void expect_refused(errfix *f, int step, const sinpe_embed_args *a, sinpe_status want,
                           const char *what)
{
    char msg[256];
    for (int k = 0; k < 3; k += step) {
        cl_event ev = NULL;
        sinpe_status st = tu_embed_calls[k](f->tab, f->q, a, 0, NULL, &ev);
        snprintf(msg, sizeof msg, "%s: %s", tu_embed_call_names[k], what);
        ck_assert_msg(st == want, "%s returned %d (%s), expected %d (%s)", msg, (int)st,
                      sinpe_status_string(st), (int)want, sinpe_status_string(want));
        ck_assert_msg(ev == NULL, "%s: a rejected call returned an event", msg);
        ck_assert_msg(sinpe_last_error()[0] != '\0', "%s: no message in sinpe_last_error()", msg);
        tu_check_buffer_poison(f->q, f->out, E_N * E_DIM, msg);
    }
}

START_TEST(pad_id_invalid)
{
    errfix f;
    errfix_init(&f);
    const int32_t bad_pads[] = {-1, E_VOCAB, E_VOCAB + 5, INT32_MAX, INT32_MIN};
    char what[128];
    sinpe_embed_args a;
    for (int pol = SINPE_PAD_ZERO_PE; pol <= SINPE_PAD_ZERO_EMBEDDING; pol++) {
        for (size_t i = 0; i < sizeof bad_pads / sizeof bad_pads[0]; i++) {
            a = f.a;
            a.pad_policy = (sinpe_pad_policy)pol, a.pad_id = bad_pads[i];
            snprintf(what, sizeof what, "policy %s, pad_id %d", policy_names[pol],
                     (int)bad_pads[i]);
            expect_refused(&f, 1, &a, SINPE_INVALID_PAD, what);
        }
    }
    /* fairseq's rule uses the pad id whatever the policy. */
    a = f.a;
    a.position_rule = SINPE_POSITIONS_FAIRSEQ, a.pad_id = -1;
    expect_refused(&f, 2, &a, SINPE_INVALID_PAD, "FAIRSEQ rule, policy NONE, pad_id -1");
    /* Unknown policies. */
    const int bad_policies[] = {4, -1, 1000};
    for (size_t i = 0; i < 3; i++) {
        a = f.a;
        a.pad_policy = (sinpe_pad_policy)bad_policies[i];
        snprintf(what, sizeof what, "pad_policy %d", bad_policies[i]);
        expect_refused(&f, 1, &a, SINPE_INVALID_PAD, what);
    }
    /* The edges of the vocabulary are valid. */
    a = f.a;
    a.pad_policy = SINPE_PAD_ZERO_OUTPUT;
    a.pad_id = E_VOCAB - 1;
    TU_OK(sinpe_enqueue_embed(f.tab, f.q, &a, 0, NULL, NULL));
    a.pad_id = 0;
    TU_OK(sinpe_enqueue_embed(f.tab, f.q, &a, 0, NULL, NULL));
    TU_CL(clFinish(f.q));
    errfix_release(&f);
}
END_TEST

START_TEST(fairseq_pad_id_past_vocab)
{
    /* The header: pad_id "must lie in [0, vocab) (SINPE_INVALID_PAD
     * otherwise)"; fairseq's rule uses it even under policy NONE. */
    errfix f;
    errfix_init(&f);
    sinpe_embed_args a = f.a;
    a.position_rule = SINPE_POSITIONS_FAIRSEQ, a.pad_id = E_VOCAB;
    expect_refused(&f, 2, &a, SINPE_INVALID_PAD, "FAIRSEQ rule, policy NONE, pad_id vocab");
    errfix_release(&f);
}
END_TEST

START_TEST(fairseq_rule_with_positions)
{
    errfix f;
    errfix_init(&f);
    sinpe_embed_args a = f.a;
    a.position_rule = SINPE_POSITIONS_FAIRSEQ, a.pad_id = 1, a.positions = f.pos;
    expect_refused(&f, 2, &a, SINPE_INVALID_OPTION, "FAIRSEQ rule with positions");
    a.pad_policy = SINPE_PAD_ZERO_PE, a.positions_broadcast = 1;
    expect_refused(&f, 2, &a, SINPE_INVALID_OPTION, "FAIRSEQ rule with broadcast positions");
    const int bad_rules[] = {2, -1, 77};
    for (size_t i = 0; i < 3; i++) {
        a = f.a;
        a.position_rule = (sinpe_position_rule)bad_rules[i];
        expect_refused(&f, 2, &a, SINPE_INVALID_OPTION, "unknown position_rule");
    }
    errfix_release(&f);
}
END_TEST

TU_SUITE(positions, 73)
{
    Suite *s = suite_create("positions");

    TCase *tc = tu_tcase(s, "sources", NULL);
    tcase_add_test(tc, positions_seq_starts);
    tcase_add_loop_test(tc, positions_explicit, 0, 4);
    tcase_add_loop_test(tc, positions_pad_counts, 0, 2);
    tcase_add_loop_test(tc, positions_fairseq, 0, 6);
    tcase_add_loop_test(tc, positions_beyond_table, 0, 4);

    tcase_add_loop_test(tu_tcase(s, "padding", NULL), pad_policies, 0, 8);

    tc = tu_tcase(s, "errors", NULL);
    TU_ADD(tc, pad_id_invalid, fairseq_pad_id_past_vocab, fairseq_rule_with_positions);
    return s;
}
