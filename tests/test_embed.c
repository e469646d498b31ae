/* test_embed.c -- the fused kernel and the unfused pair against the float64
 * reference, with offsets, strides, positions, bad ids and events, plus the
 * host-memory convenience call and concurrent use from several threads.
 * Outputs start poisoned: the rows must meet TU_EMBED_TOL, every other
 * element keep the poison (pc_check, tests/embed_case.c). */
#include "embed_case.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- One configuration, run end to end ---- */

static const char *const mode_names[] = {"fused", "unfused", "gather"}; /* pmode's first */

/* A run (its arrays made by make_inputs) and how its inputs are drawn. */
typedef struct ecase {
    pcase p;
    int explicit_positions; /* else start + t */
    int32_t pos_lo, pos_hi; /* explicit positions drawn from [pos_lo, pos_hi] */
    size_t n_bad;           /* how many out-of-range ids to plant */
} ecase;

/* Host copies of one case's inputs, and the run they make. */
typedef struct ehost {
    pcase p;
    int32_t *ids, *pos;
    float *w;
} ehost;

/* Planted in turn, then vocab and vocab + 3. */
static const int32_t bad_values[] = {-1, INT32_MIN, INT32_MAX, -7};

static void make_inputs(const ecase *e, ehost *h)
{
    const pcase *c = &e->p;
    tu_rng rng = tu_rng_for(c->name);
    size_t dim = c->spec.dim, rows = c->n_seqs * c->seq_len;
    size_t wstride = c->weights_stride ? c->weights_stride : dim;
    /* Tight sizes: the last row ends exactly at the end of the buffer. */
    size_t n_w = c->weights_offset + (c->vocab - 1) * wstride + dim;

    h->ids = tu_malloc(rows * sizeof *h->ids);
    tu_rng_ints(&rng, h->ids, rows, 0, (int32_t)c->vocab - 1);
    for (size_t k = 0; k < e->n_bad; k++) {
        size_t r = (k * 7919 + 3) % rows;
        h->ids[r] = k % 6 < 4 ? bad_values[k % 6] : (int32_t)c->vocab + (k % 6 == 5 ? 3 : 0);
    }

    /* Padding in the embedding table is huge, so reading it shows. */
    h->w = tu_malloc(n_w * sizeof *h->w);
    for (size_t i = 0; i < n_w; i++)
        h->w[i] = 1e30f;
    for (size_t v = 0; v < c->vocab; v++)
        for (size_t col = 0; col < dim; col++)
            h->w[c->weights_offset + v * wstride + col] = tu_rng_float(&rng, -1.0f, 1.0f);

    h->pos = tu_malloc(rows * sizeof *h->pos);
    tu_rng_ints(&rng, h->pos, rows, e->pos_lo, e->pos_hi);

    h->p = *c;
    h->p.ids = h->ids, h->p.w = h->w, h->p.positions = e->explicit_positions ? h->pos : NULL;
}

/* Runs c in mode (PM_FUSED, PM_UNFUSED or PM_GATHER) on ctx and checks
 * values, untouched gaps and the counter.  Returns the raw output buffer
 * (free() it) when keep is set. */
static float *run_case(sinpe_context *ctx, const ecase *e, pmode mode, int keep)
{
    const pcase *c = &e->p;
    char sbuf[256], what[512];
    ehost h;
    make_inputs(e, &h);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table_of(ctx, &c->spec, c->table_rows);
    double *ref;
    int32_t bad = 0;
    float *got = pc_run(ctx, q, tab, &h.p, mode, NULL, &ref, &bad);
    snprintf(what, sizeof what, "%s (%s, %s)", c->name, mode_names[mode],
             tu_spec_str(&c->spec, sbuf, sizeof sbuf));
    pc_check(&h.p, got, ref, NULL, what);
    if (c->use_bad_ids)
        ck_assert_msg(bad == (int32_t)e->n_bad, "%s: bad_ids counted %d, %zu planted", what,
                      (int)bad, e->n_bad);
    TU_FREE(ref, h.ids, h.w, h.pos);
    tu_release(NULL, q, tab, NULL, 0);
    if (keep)
        return got;
    free(got);
    return NULL;
}

/* A plain case: the paper's spec at dim, the given sizes, implicit positions. */
static ecase base_case(const char *name, size_t dim)
{
    ecase c = {.p = {.name = name, .table_rows = 32, .n_seqs = 3, .seq_len = 45, .vocab = 97,
                     .token_scale = 1.0f}};
    sinpe_spec_init(&c.p.spec, dim);
    return c;
}

/* ---- Values ---- */

/* The value cases: c with its spec made from dim, layout, shift and base
 * (odd columns zero), run in each of its first modes (fused, unfused,
 * gather) under each of its first maths (float, fp64), mode fastest. */
typedef struct vcase {
    ecase c;
    size_t dim;
    sinpe_layout layout;
    double shift, base;
    int modes, maths;
} vcase;

/* Calls the FAST forms can take: implicit positions in the table. */
static const vcase fast_cases[] = {
    {{.p = {.name = "embed_basic", .table_rows = 32, .n_seqs = 3, .seq_len = 45, .vocab = 97,
            .token_scale = 8.0f /* sqrt(64) */}},
     64, SINPE_LAYOUT_INTERLEAVED, 0.0, 1e4, 3, 2},
    /* Out-of-range ids are counted and contribute a zero embedding: the
     * fused and unfused rows equal PE, the gathered rows 0.  12 bad ids:
     * -1, INT32_MIN, INT32_MAX, -7, vocab, vocab+3, twice. */
    {{.p = {.name = "embed_bad_ids", .table_rows = 32, .n_seqs = 3, .seq_len = 45, .vocab = 19,
            .ids_offset = 2, .token_scale = 2.0f, .use_bad_ids = 1, .bad_ids_offset = 4},
      .n_bad = 12},
     24, SINPE_LAYOUT_INTERLEAVED, 0.0, 1e4, 3, 1},
};

/* A 16 MiB output, aligned: the size from which records with stream 1 store
 * it non-temporally (the tests' small outputs reach that form under the
 * records that set stream_bytes 0, so it carries no form tag). */
static const vcase large_case[] = {
    {{.p = {.name = "embed_large_output", .table_rows = 1024, .n_seqs = 4, .seq_len = 1024,
            .vocab = 97, .token_scale = 32.0f}},
     1024, SINPE_LAYOUT_INTERLEAVED, 0.0, 1e4, 3, 1},
};

/* Calls the GENERAL forms take (TABLE and OTF in two-pass records):
   explicit positions, positions outside the table. */
static const vcase general_cases[] = {
    /* Every offset and stride, explicit positions, the bad-id counter. */
    {{.p = {.name = "embed_offsets_and_strides", .table_rows = 32, .n_seqs = 3, .seq_len = 45,
            .vocab = 97, .ids_offset = 5, .weights_offset = 13, .weights_stride = 53,
            .out_offset = 7, .out_stride = 61, .token_scale = 6.9282032f /* sqrtf(48) */,
            .positions_offset = 9, .use_bad_ids = 1, .bad_ids_offset = 3},
      .explicit_positions = 1, .pos_lo = -100, .pos_hi = 300,
      .n_bad = 6 /* each bad value, vocab included */},
     48, SINPE_LAYOUT_SPLIT_SIN_COS, 1.0, 1e4, 3, 1},
    /* Positions -40 .. 23 around a 10-row table. */
    {{.p = {.name = "embed_negative_start", .table_rows = 10, .n_seqs = 2, .seq_len = 64,
            .vocab = 97, .out_stride = 41, .token_scale = -0.5f, .start = -40}},
     40, SINPE_LAYOUT_SPLIT_COS_SIN, 0.0, 1e4, 3, 2},
    /* Implicit positions just below 2^24, far past a small table. */
    {{.p = {.name = "embed_large_start", .table_rows = 32, .n_seqs = 2, .seq_len = 50,
            .vocab = 97, .token_scale = 1.0f, .start = 16777215 - 50}},
     30, SINPE_LAYOUT_INTERLEAVED, 0.0, 500000.0, 2, 2},
    /* Explicit positions with an offset, and a start added to them; most
     * lie outside the table, some negative. */
    {{.p = {.name = "embed_explicit_positions", .table_rows = 100, .n_seqs = 3, .seq_len = 45,
            .vocab = 97, .token_scale = 3.0f, .start = 17, .positions_offset = 3},
      .explicit_positions = 1, .pos_lo = -5000, .pos_hi = 5000},
     66, SINPE_LAYOUT_SPLIT_SIN_COS, 0.0, 1e4, 2, 2},
    /* A table of no rows, with implicit and with explicit positions. */
    {{.p = {.name = "embed_zero_row_table", .table_rows = 0, .n_seqs = 3, .seq_len = 45,
            .vocab = 97, .token_scale = 1.0f, .start = 1000}},
     32, SINPE_LAYOUT_INTERLEAVED, 0.0, 1e4, 3, 1},
    {{.p = {.name = "embed_zero_row_table explicit", .table_rows = 0, .n_seqs = 3,
            .seq_len = 45, .vocab = 97, .token_scale = 1.0f, .start = 1000},
      .explicit_positions = 1, .pos_lo = 0, .pos_hi = 40},
     32, SINPE_LAYOUT_INTERLEAVED, 0.0, 1e4, 3, 1},
};

#define N_CASES(t) (sizeof t / sizeof t[0])

/* How many runs the n cases make: their loop's end. */
static int value_runs(const vcase *cases, size_t n)
{
    int runs = 0;
    for (size_t k = 0; k < n; k++)
        runs += cases[k].modes * cases[k].maths;
    return runs;
}

/* Run i of cases, counted as value_runs() counts them. */
static void run_value(const vcase *cases, int i)
{
    for (; i >= cases->modes * cases->maths; cases++)
        i -= cases->modes * cases->maths;
    ecase c = cases->c;
    c.p.spec = tu_spec(cases->dim, cases->layout, SINPE_ODD_ZERO_LAST, cases->shift,
                       cases->base, 1.0);
    sinpe_context *ctx = tu_context(tu_math(i / cases->modes));
    run_case(ctx, &c, (pmode)(i % cases->modes), 0);
    sinpe_context_release(ctx);
}

START_TEST(embed_fast_values)
{
    run_value(fast_cases, _i);
}
END_TEST

START_TEST(embed_general_values)
{
    run_value(general_cases, _i);
}
END_TEST

START_TEST(embed_large_output)
{
    run_value(large_case, _i);
}
END_TEST

/* Odd dims, every layout and policy, d = 1 and d = 4096 through the kernels. */
static const struct {
    tu_spec_row spec;
    sinpe_math math;
} shape_cases[] = {
    {{1, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 0.0, 1e4, 1.0}, SINPE_MATH_FLOAT},
    {{1, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0}, SINPE_MATH_FP64},
    {{3, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_EXTRA_SIN, 1.0, 5e5, 1.0}, SINPE_MATH_FLOAT},
    {{3, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 0.0, 1e4, 1.0}, SINPE_MATH_FP64},
    {{7, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_EXTRA_SIN, 0.0, 1e4, 1.0}, SINPE_MATH_FLOAT},
    {{7, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 1.0, 5e5, 1.0}, SINPE_MATH_FP64},
    {{2, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0}, SINPE_MATH_FLOAT},
    {{513, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 1.0, 1e4, 1.0}, SINPE_MATH_FLOAT},
    {{513, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 0.0, 5e5, 1.0}, SINPE_MATH_FP64},
    {{4096, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 5e5, 1.0}, SINPE_MATH_FLOAT},
    {{4096, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 1e4, 1.0}, SINPE_MATH_FP64},
};
#define N_SHAPES ((int)(sizeof shape_cases / sizeof shape_cases[0]))

START_TEST(embed_shapes)
{
    sinpe_context *ctx = tu_context(shape_cases[_i].math);
    ecase c = base_case("embed_shapes", shape_cases[_i].spec.dim);
    c.p.spec = tu_spec_of(&shape_cases[_i].spec);
    size_t dim = c.p.spec.dim;
    c.p.n_seqs = 2;
    if (dim >= 4096)
        c.p.seq_len = 40, c.p.vocab = 13, c.p.table_rows = 30;
    else
        c.p.seq_len = 67, c.p.table_rows = 50;
    c.p.token_scale = sqrtf((float)dim);
    c.p.out_stride = dim + 2, c.p.out_offset = 1;
    for (int m = 0; m < 3; m++)
        run_case(ctx, &c, (pmode)m, 0);
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(positions_wrap_in_int32)
{
    /* Implicit start + t past INT32_MAX is a host-visible overflow and is
     * rejected with nothing written; start + positions[r] (which only the
     * device sees) wraps to INT32_MIN and gives the same bits as those
     * wrapped positions given explicitly with start 0. */
    enum { SL = 12, D = 16 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_table *tab = tu_table(ctx, D, 4);
    cl_command_queue q = tu_queue(ctx);
    int32_t start = INT32_MAX - 5;
    int32_t wrapped[SL], index[SL];
    for (size_t t = 0; t < SL; t++) {
        wrapped[t] = (int32_t)((uint32_t)start + (uint32_t)t);
        index[t] = (int32_t)t;
    }
    float zeros[SL * D] = {0};
    cl_mem o_implicit = tu_zero_buffer(ctx, SL * D), o_offset = tu_zero_buffer(ctx, SL * D);
    cl_mem o_explicit = tu_zero_buffer(ctx, SL * D);
    cl_mem wm = tu_buffer(ctx, sizeof wrapped, wrapped), im = tu_buffer(ctx, sizeof index, index);
    sinpe_embed_args a = tu_args(1, SL, NULL, NULL, 0, o_implicit);
    a.start = start;
    ck_assert_int_eq(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL),
                     SINPE_INVALID_SHAPE);
    TU_MESSAGE_HAS("start");
    a.out = o_offset;
    a.positions = im;
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
    a.out = o_explicit;
    a.start = 0;
    a.positions = wm;
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
    float *g_implicit = tu_read_floats(q, o_implicit, SL * D);
    float *g_offset = tu_read_floats(q, o_offset, SL * D);
    float *g_explicit = tu_read_floats(q, o_explicit, SL * D);
    ck_assert_msg(memcmp(g_implicit, zeros, sizeof zeros) == 0,
                  "a rejected call wrote to the output");
    ck_assert_msg(memcmp(g_offset, g_explicit, sizeof zeros) == 0,
                  "start + positions[r] past INT32_MAX differs from the wrapped positions");
    TU_FREE(g_implicit, g_offset, g_explicit);
    TU_RELEASE(ctx, q, tab, o_implicit, o_offset, o_explicit, wm, im);
}
END_TEST

START_TEST(add_positions_alone)
{
    /* ids and weights may be NULL (and vocab 0); out gets += PE in place. */
    sinpe_context *ctx = tu_context(tu_math(_i));
    enum { NS = 3, SL = 21, DIM = 17, ROWS = NS * SL };
    tu_rng rng = tu_rng_for("add_positions_alone");
    float init[ROWS * DIM];
    int32_t pos[2 + ROWS];
    tu_rng_floats(&rng, init, ROWS * DIM, -4.0f, 4.0f);
    tu_rng_ints(&rng, pos, 2 + ROWS, -300, 3000);
    pcase c = {.name = "add_positions_alone",
               .spec = tu_spec(DIM, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_EXTRA_SIN, 1.0, 1e4, 1.0),
               .n_seqs = NS, .seq_len = SL, .out_offset = 5, .out_stride = 20, .start = -7,
               .positions = pos + 2, .positions_offset = 2, .no_weights = 1};
    sinpe_table *tab = tu_table_of(ctx, &c.spec, 200);
    cl_command_queue q = tu_queue(ctx);
    double *ref;
    float *got = pc_run(ctx, q, tab, &c, PM_ADD, init, &ref, NULL);
    pc_check(&c, got, ref, init, "add_positions");
    TU_FREE(got, ref);
    tu_release(ctx, q, tab, NULL, 0);
}
END_TEST

START_TEST(fused_equals_unfused_bits)
{
    /* "gather followed by add_positions gives the same bits": compare whole
     * output buffers, gaps included. */
    static const struct {
        size_t dim;
        sinpe_layout layout;
        sinpe_odd_dim odd;
        float scale;
        int explicit_positions;
    } cfg[] = {
        {64, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 8.0f, 0},
        {7, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_EXTRA_SIN, 2.6457513f, 1},
        {513, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 22.649503f, 1},
    };
    sinpe_context *ctx = tu_context(tu_math(_i));
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        ecase c = base_case("fused_equals_unfused_bits", cfg[i].dim);
        c.p.spec = tu_spec(cfg[i].dim, cfg[i].layout, cfg[i].odd, 1.0, 1e4, 1.0);
        c.p.token_scale = cfg[i].scale, c.p.start = 5;
        c.p.weights_stride = cfg[i].dim + 1, c.p.out_stride = cfg[i].dim + 3;
        c.p.out_offset = 2;
        c.explicit_positions = cfg[i].explicit_positions, c.pos_lo = -2000, c.pos_hi = 100000;
        c.p.use_bad_ids = 1, c.n_bad = 2;
        c.p.n_seqs = 2, c.p.seq_len = 40;
        float *fused = run_case(ctx, &c, PM_FUSED, 1);
        float *unfused = run_case(ctx, &c, PM_UNFUSED, 1);
        for (size_t k = 0; k < pc_out(&c.p); k++)
            TU_CHECK(tu_same_bits(fused[k], unfused[k]),
                     "dim %zu element %zu: fused %a, unfused %a",
                     cfg[i].dim, k, (double)fused[k], (double)unfused[k]);
        TU_FREE(fused, unfused);
    }
    sinpe_context_release(ctx);
}
END_TEST

/* ---- Events ---- */

/* Inputs for the event tests: out is zero for add_positions (0 + PE), else
 * poison. */
typedef struct evsetup {
    sinpe_context *ctx;
    ecase c;
    ehost h;
    float *zeros;
    sinpe_table *tab;
    cl_command_queue q;
    sinpe_embed_args a;
} evsetup;

static const pmode ev_modes[] = {PM_FUSED, PM_GATHER, PM_ADD}; /* tu_embed_calls' */

static sinpe_context *ev_setup(evsetup *s, int which)
{
    sinpe_context *ctx = s->ctx = tu_context(SINPE_MATH_AUTO);
    s->c = base_case("events", 16);
    s->c.p.n_seqs = 2, s->c.p.seq_len = 10, s->c.p.vocab = 5;
    make_inputs(&s->c, &s->h);
    s->q = tu_queue(ctx);
    s->zeros = calloc(pc_out(&s->h.p), sizeof(float));
    s->a = pc_args(ctx, &s->h.p, ev_modes[which], s->zeros);
    s->tab = tu_table_of(ctx, &s->c.p.spec, 8);
    return ctx;
}

static void ev_check(evsetup *s, int which)
{
    size_t rows = pc_rows(&s->h.p), dim = s->c.p.spec.dim;
    float *got = tu_read_floats(s->q, s->a.out, pc_out(&s->h.p));
    double *ref = pc_ref(&s->h.p, &s->a, ev_modes[which], s->zeros, NULL);
    tu_check_rows(got, 0, dim, rows, dim, ref, TU_EMBED_TOL, TU_EMBED_TOL,
                  tu_embed_call_names[which]);
    TU_FREE(ref, got);
}

static void ev_teardown(evsetup *s)
{
    pc_release(&s->a);
    TU_FREE(s->h.ids, s->h.w, s->h.pos, s->zeros);
    tu_release(s->ctx, s->q, s->tab, NULL, 0);
}

START_TEST(event_is_returned_and_completes)
{
    evsetup s;
    ev_setup(&s, _i);
    cl_event ev = NULL;
    TU_OK(tu_embed_calls[_i](s.tab, s.q, &s.a, 0, NULL, &ev));
    ck_assert_msg(ev != NULL, "%s returned no event", tu_embed_call_names[_i]);
    TU_CL(clWaitForEvents(1, &ev));

    cl_int status = -1;
    cl_command_type type = 0;
    cl_command_queue evq = NULL;
    TU_CL(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    TU_CL(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    TU_CL(clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof evq, &evq, NULL));
    ck_assert_msg(status == CL_COMPLETE, "event status %d after wait", (int)status);
    ck_assert_msg(type == CL_COMMAND_NDRANGE_KERNEL, "%s event is of command type 0x%x, not a kernel",
                  tu_embed_call_names[_i], (unsigned)type);
    ck_assert_msg(evq == s.q, "event of another queue");
    ev_check(&s, _i);
    clReleaseEvent(ev);
    ev_teardown(&s);
}
END_TEST

START_TEST(wait_list_holds_the_kernel)
{
    /* Nothing runs before the user event completes. */
    evsetup s;
    sinpe_context *ctx = ev_setup(&s, _i);
    cl_int err;
    cl_event gate = clCreateUserEvent(sinpe_context_cl_context(ctx), &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event ev = NULL;
    TU_OK(tu_embed_calls[_i](s.tab, s.q, &s.a, 1, &gate, &ev));
    ck_assert_ptr_nonnull(ev);
    TU_CL(clFlush(s.q));
    tu_sleep_ms(300);

    cl_int status = -1;
    TU_CL(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    ck_assert_msg(status == CL_QUEUED || status == CL_SUBMITTED,
                  "%s ran before its wait list completed (status %d)", tu_embed_call_names[_i],
                  (int)status);

    /* Read through a second queue that does not wait on the first.  The
     * read is non-blocking: a runtime that orders it after the gated kernel
     * (allowed for a buffer shared between queues) would otherwise hang. */
    cl_command_queue q2 = tu_queue(ctx);
    float *now = tu_malloc(pc_out(&s.h.p) * sizeof *now);
    cl_event rev = NULL;
    TU_CL(clEnqueueReadBuffer(q2, s.a.out, CL_FALSE, 0, pc_out(&s.h.p) * sizeof *now, now, 0, NULL,
                              &rev));
    TU_CL(clFlush(q2));
    cl_int rstatus = -1;
    for (int tries = 0; tries < 100; tries++) {
        TU_CL(clGetEventInfo(rev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof rstatus, &rstatus,
                             NULL));
        if (rstatus == CL_COMPLETE)
            break;
        tu_sleep_ms(20);
    }
    int read_early = rstatus == CL_COMPLETE;
    if (read_early && _i == 2) {
        for (size_t k = 0; k < pc_out(&s.h.p); k++)
            ck_assert_msg(now[k] == 0.0f, "add_positions wrote element %zu before the gate", k);
    } else if (read_early) {
        tu_check_all_poison(now, pc_out(&s.h.p), "output before the gate opened");
    } else {
        printf("wait_list_holds_the_kernel: the runtime orders the second queue's read after "
               "the kernel; only the event status was checked\n");
    }

    TU_CL(clSetUserEventStatus(gate, CL_COMPLETE));
    TU_CL(clWaitForEvents(1, &ev));
    TU_CL(clWaitForEvents(1, &rev));
    free(now);
    clReleaseEvent(rev);
    ev_check(&s, _i);
    clReleaseEvent(ev);
    clReleaseEvent(gate);
    clReleaseCommandQueue(q2);
    ev_teardown(&s);
}
END_TEST

/* ---- Host memory ---- */

START_TEST(embed_host_matches_reference)
{
    sinpe_context *ctx = tu_context(tu_math(_i));
    enum { NS = 3, SL = 33, DIM = 50, VOCAB = 41 };
    sinpe_spec spec = tu_spec(DIM, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0);
    tu_rng rng = tu_rng_for("embed_host_matches_reference");
    int32_t ids[NS * SL], pos[NS * SL];
    float *w = tu_malloc(VOCAB * DIM * sizeof *w);
    float *out = tu_malloc(NS * SL * DIM * sizeof *out);
    double *ref = tu_malloc(NS * SL * DIM * sizeof *ref);
    for (size_t i = 0; i < NS * SL; i++) {
        ids[i] = tu_rng_int(&rng, 0, VOCAB - 1);
        pos[i] = tu_rng_int(&rng, -50, 4000);
    }
    tu_rng_floats(&rng, w, VOCAB * DIM, -1.0f, 1.0f);
    sinpe_table *tab = tu_table_of(ctx, &spec, 20);

    /* Implicit positions with a negative start, then explicit positions. */
    static const struct {
        float scale;
        int32_t start;
        int explicit_positions;
        const char *what;
    } calls[] = {{7.0710678f, -9, 0, "embed_host implicit"}, {1.0f, 2, 1, "embed_host explicit"}};
    for (size_t k = 0; k < 2; k++) {
        const int32_t *p = calls[k].explicit_positions ? pos : NULL;
        tu_fill_poison(out, NS * SL * DIM);
        TU_OK(sinpe_embed_host(tab, ids, NS, SL, w, VOCAB, calls[k].scale, calls[k].start, p, out));
        tu_ref_embed(&spec, NS, SL, ids, w, 0, DIM, VOCAB, calls[k].scale, calls[k].start, p, 1, 1,
                     ref);
        tu_check_rows(out, 0, DIM, NS * SL, DIM, ref, TU_EMBED_TOL, TU_EMBED_TOL, calls[k].what);
    }
    TU_FREE(w, out, ref);
    tu_release(ctx, NULL, tab, NULL, 0);
}
END_TEST

START_TEST(embed_host_id_out_of_range)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    enum { SL = 20, DIM = 8, VOCAB = 10 };
    static const int32_t bad[] = {VOCAB, -1, 777777};
    sinpe_table *tab = tu_table(ctx, DIM, 20);
    float w[VOCAB * DIM] = {0}, out[SL * DIM];
    int32_t ids[SL];
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        for (size_t i = 0; i < SL; i++)
            ids[i] = (int32_t)(i % VOCAB);
        ids[13] = bad[b];
        tu_fill_poison(out, SL * DIM);
        TU_STATUS(sinpe_embed_host(tab, ids, 1, SL, w, VOCAB, 1.0f, 0, NULL, out),
                  SINPE_ID_OUT_OF_RANGE);
        tu_check_all_poison(out, SL * DIM, "embed_host output after a bad id");
        char val[32];
        snprintf(val, sizeof val, "%d", (int)bad[b]);
        ck_assert_msg(strstr(sinpe_last_error(), val) != NULL ||
                          strstr(sinpe_last_error(), "13") != NULL,
                      "message names neither id %s nor index 13: \"%s\"", val,
                      sinpe_last_error());
    }
    tu_release(ctx, NULL, tab, NULL, 0);
}
END_TEST

START_TEST(embed_host_bad_arguments)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    enum { SL = 4, DIM = 8, VOCAB = 3 };
    sinpe_table *tab = tu_table(ctx, DIM, 4);
    float w[VOCAB * DIM] = {0}, out[SL * DIM];
    int32_t ids[SL] = {0, 1, 2, 0};
    tu_fill_poison(out, SL * DIM);
    const sinpe_status null_arg = SINPE_NULL_ARGUMENT, shape = SINPE_INVALID_SHAPE;

    TU_STATUS(sinpe_embed_host(NULL, ids, 1, SL, w, VOCAB, 1.0f, 0, NULL, out), null_arg);
    TU_STATUS(sinpe_embed_host(tab, NULL, 1, SL, w, VOCAB, 1.0f, 0, NULL, out), null_arg);
    TU_STATUS(sinpe_embed_host(tab, ids, 1, SL, NULL, VOCAB, 1.0f, 0, NULL, out), null_arg);
    TU_STATUS(sinpe_embed_host(tab, ids, 1, SL, w, VOCAB, 1.0f, 0, NULL, NULL), null_arg);
    TU_STATUS(sinpe_embed_host(tab, ids, 0, SL, w, VOCAB, 1.0f, 0, NULL, out), shape);
    TU_STATUS(sinpe_embed_host(tab, ids, 1, 0, w, VOCAB, 1.0f, 0, NULL, out), shape);
    /* vocab 0 is a shape error for the enqueue calls; here every id is also
     * out of range, so either answer is consistent with the header. */
    sinpe_status st = sinpe_embed_host(tab, ids, 1, SL, w, 0, 1.0f, 0, NULL, out);
    ck_assert_msg(st == SINPE_INVALID_SHAPE || st == SINPE_ID_OUT_OF_RANGE,
                  "embed_host with vocab 0 gave %d (%s)", (int)st, sinpe_status_string(st));
    tu_check_all_poison(out, SL * DIM, "embed_host output after bad arguments");

    /* And then a good call works. */
    TU_OK(sinpe_embed_host(tab, ids, 1, SL, w, VOCAB, 1.0f, 0, NULL, out));
    ck_assert_str_eq(sinpe_last_error(), "");
    tu_release(ctx, NULL, tab, NULL, 0);
}
END_TEST

/* ---- Threads ---- */

enum { TH_WORKERS = 3, TH_ITERS = 6, TH_DIM = 40, TH_SL = 30, TH_VOCAB = 23 };

typedef struct worker {
    int id;
    sinpe_table *tab;
    sinpe_spec spec;
    cl_command_queue q;
    cl_mem ids, w, out;
    float weights[TH_VOCAB * TH_DIM];
    char error[512]; /* first failure, empty if none */
} worker;

static void *worker_main(void *arg)
{
    worker *wk = arg;
    char salt[32];
    snprintf(salt, sizeof salt, "worker %d", wk->id);
    tu_rng rng = tu_rng_for(salt);
    int32_t ids[TH_SL];
    float got[TH_SL * TH_DIM];
    double pe[TH_DIM];
    for (int it = 0; it < TH_ITERS && !wk->error[0]; it++) {
        tu_rng_ints(&rng, ids, TH_SL, 0, TH_VOCAB - 1);
        int32_t start = tu_rng_int(&rng, -100, 20000);
        cl_int err = clEnqueueWriteBuffer(wk->q, wk->ids, CL_TRUE, 0, sizeof ids, ids, 0, NULL,
                                          NULL);
        sinpe_embed_args a = tu_args(1, TH_SL, wk->ids, wk->w, TH_VOCAB, wk->out);
        a.start = start;
        sinpe_status st = SINPE_SUCCESS;
        if (it % 2 == 0) {
            st = sinpe_enqueue_embed(wk->tab, wk->q, &a, 0, NULL, NULL);
        } else {
            st = sinpe_enqueue_gather(wk->tab, wk->q, &a, 0, NULL, NULL);
            if (st == SINPE_SUCCESS)
                st = sinpe_enqueue_add_positions(wk->tab, wk->q, &a, 0, NULL, NULL);
        }
        if (err != CL_SUCCESS || st != SINPE_SUCCESS) {
            snprintf(wk->error, sizeof wk->error, "iteration %d: write %d, enqueue %d (%s): %s",
                     it, (int)err, (int)st, sinpe_status_string(st), sinpe_last_error());
            break;
        }
        err = clEnqueueReadBuffer(wk->q, wk->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(wk->error, sizeof wk->error, "iteration %d: read %d", it, (int)err);
            break;
        }
        for (size_t t = 0; t < TH_SL && !wk->error[0]; t++) {
            tu_pe_row(&wk->spec, (double)start + (double)t, pe);
            for (size_t c = 0; c < TH_DIM; c++) {
                double ref = (double)wk->weights[(size_t)ids[t] * TH_DIM + c] + pe[c];
                double g = got[t * TH_DIM + c];
                if (!(fabs(g - ref) <= TU_EMBED_TOL * (1.0 + fabs(ref)))) {
                    snprintf(wk->error, sizeof wk->error,
                             "iteration %d row %zu col %zu: got %.9g ref %.12g", it, t, c, g,
                             ref);
                    break;
                }
            }
        }
    }
    return NULL;
}

typedef struct grower {
    sinpe_table *tab;
    sinpe_status status;
    size_t rows;
} grower;

static void *grower_main(void *arg)
{
    grower *g = arg;
    g->status = SINPE_SUCCESS;
    for (size_t rows = 64; rows <= 40000 && g->status == SINPE_SUCCESS; rows *= 3)
        g->status = sinpe_table_reserve(g->tab, rows);
    g->rows = sinpe_table_rows(g->tab);
    return NULL;
}

START_TEST(concurrent_enqueue_and_growth)
{
    /* Several threads enqueue with one table while another grows it. */
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_spec spec = tu_spec(TH_DIM, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 1e4, 1.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, 16);
    worker *wk = calloc(TH_WORKERS, sizeof *wk);
    ck_assert_ptr_nonnull(wk);
    tu_rng rng = tu_rng_for("concurrent_enqueue_and_growth");
    for (int i = 0; i < TH_WORKERS; i++) {
        wk[i].id = i, wk[i].tab = tab, wk[i].spec = spec;
        wk[i].q = tu_queue(ctx);
        tu_rng_floats(&rng, wk[i].weights, TH_VOCAB * TH_DIM, -1.0f, 1.0f);
        wk[i].ids = tu_buffer(ctx, TH_SL * sizeof(int32_t), NULL);
        wk[i].w = tu_buffer(ctx, sizeof wk[i].weights, wk[i].weights);
        wk[i].out = tu_buffer(ctx, TH_SL * TH_DIM * sizeof(float), NULL);
    }
    grower g = {.tab = tab};
    pthread_t th[TH_WORKERS + 1];
    for (int i = 0; i < TH_WORKERS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &wk[i]), 0);
    ck_assert_int_eq(pthread_create(&th[TH_WORKERS], NULL, grower_main, &g), 0);
    for (int i = 0; i <= TH_WORKERS; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);

    ck_assert_msg(g.status == SINPE_SUCCESS, "reserve during enqueues: %d (%s)", (int)g.status,
                  sinpe_status_string(g.status));
    ck_assert_uint_ge(g.rows, 40000 / 3);
    for (int i = 0; i < TH_WORKERS; i++)
        ck_assert_msg(wk[i].error[0] == '\0', "worker %d: %s", i, wk[i].error);

    for (int i = 0; i < TH_WORKERS; i++)
        TU_RELEASE(NULL, wk[i].q, NULL, wk[i].ids, wk[i].w, wk[i].out);
    free(wk);
    tu_release(ctx, NULL, tab, NULL, 0);
}
END_TEST

TU_SUITE(embed, 95)
{
    Suite *s = suite_create("embed");

    TCase *tc = tu_tcase(s, "fast_values", TU_FORMS_FAST);
    tcase_add_loop_test(tc, embed_fast_values, 0, value_runs(fast_cases, N_CASES(fast_cases)));

    tc = tu_tcase(s, "general_values", TU_FORMS_GENERAL);
    tcase_add_loop_test(tc, embed_general_values, 0,
                        value_runs(general_cases, N_CASES(general_cases)));

    tc = tu_tcase(s, "values", NULL);
    tcase_add_loop_test(tc, embed_large_output, 0, value_runs(large_case, 1));
    tcase_add_loop_test(tc, embed_shapes, 0, N_SHAPES);
    tcase_add_loop_test(tc, add_positions_alone, 0, 2);
    tcase_add_test(tc, positions_wrap_in_int32);
    tcase_add_loop_test(tc, fused_equals_unfused_bits, 0, 2);

    tc = tu_tcase(s, "events", NULL);
    tcase_add_loop_test(tc, event_is_returned_and_completes, 0, 3);
    tcase_add_loop_test(tc, wait_list_holds_the_kernel, 0, 3);

    tc = tu_tcase(s, "host", NULL);
    tcase_add_loop_test(tc, embed_host_matches_reference, 0, 2);
    TU_ADD(tc, embed_host_id_out_of_range, embed_host_bad_arguments);

    tcase_add_test(tu_tcase(s, "threads", NULL), concurrent_enqueue_and_growth);
    return s;
}
