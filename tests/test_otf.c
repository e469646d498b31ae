/* test_otf.c -- positions past the table's rows without a positions buffer
 * (start + t, per-sequence starts, padding counts) and from one (runs of
 * positions, positions token by token): the on-the-fly path shares its
 * anchors between the tokens of a tile or a run, and must give the same
 * bits as the same call once the table holds every row.  Each call runs
 * twice on poisoned outputs: against a table of FIRST rows, then after
 * sinpe_table_reserve() covers every position; the two outputs must be
 * equal byte for byte, fully written, and near the float64 reference. */
#include "embed_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { FIRST = 100, VOCAB = 50 };

typedef struct otf_case {
    size_t dim, n_seqs, seq_len;
    int32_t start;
    int seq_starts;  /* per-sequence offsets (and pad counts) */
    int add;         /* add_positions instead of the fused call */
    int buffer;      /* positions from a buffer: 1 each sequence's run from
                        a random offset, against a table of no rows; 2 each
                        token's own */
} otf_case;

/* dims with a partial last tile (7, 513) and whole ones (64); sequences
   one to five; runs across a block edge (start 120, 1000); decode-sized;
   positions from a buffer past a run's 1024 columns (1100); each token's
   own position in the three layouts (the split ones' halves paired, one
   of them past 1024 columns). */
static const otf_case cases[] = {
    {64, 4, 300, 0, 0, 0, 0},   {7, 3, 200, 120, 0, 0, 0},    {513, 2, 150, 1000, 0, 0, 0},
    {64, 5, 130, 90, 1, 0, 0},  {64, 64, 1, 250, 0, 0, 0},    {64, 9, 1, 5000, 1, 0, 0},
    {64, 4, 300, 0, 0, 1, 0},   {513, 3, 40, 131, 1, 1, 0},   {64, 4, 300, 7, 0, 0, 1},
    {1100, 2, 200, 0, 0, 1, 1}, {70, 3, 300, 0, 0, 0, 2},     {64, 3, 300, 0, 0, 1, 2},
    {96, 2, 200, 0, 0, 0, 2},   {128, 3, 200, 0, 0, 0, 2},    {2048, 2, 150, 0, 0, 1, 2},
};

START_TEST(otf_tiles_equal_table_bits)
{
    const otf_case *c = &cases[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_FLOAT);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("otf_tiles");
    size_t dim = c->dim, rows = c->n_seqs * c->seq_len, n = rows * dim;
    sinpe_spec spec = tu_spec(dim, (sinpe_layout)(_i % 3),
                              _i % 2 ? SINPE_ODD_EXTRA_SIN : SINPE_ODD_ZERO_LAST, 0.0, 10000.0,
                              1.0 + 1e-7 * (double)_i);
    int32_t *ids = tu_malloc(rows * sizeof *ids), *pos = tu_malloc(rows * sizeof *pos);
    int32_t starts[64], pads[64];
    float *w = tu_malloc((size_t)VOCAB * dim * sizeof *w), *init = tu_malloc(n * sizeof *init);
    tu_rng_floats(&rng, init, n, -1.0f, 1.0f);
    tu_rng_ints(&rng, ids, rows, 0, VOCAB - 1);
    tu_rng_floats(&rng, w, (size_t)VOCAB * dim, -1.0f, 1.0f);
    for (size_t b = 0; b < c->n_seqs; b++) {
        starts[b] = tu_rng_int(&rng, 0, 3000);
        pads[b] = tu_rng_int(&rng, 0, 20);
    }
    for (size_t r = 0; r < rows; r++)
        pos[r] = c->buffer == 1 ? starts[r / c->seq_len] + (int32_t)(r % c->seq_len)
                                : tu_rng_int(&rng, 0, 3000);
    sinpe_table *tab = tu_table_of(ctx, &spec, c->buffer == 1 ? 0 : FIRST);
    ck_assert_uint_lt(sinpe_table_rows(tab), (size_t)c->start + c->seq_len);
    pcase pc = {.name = "otf_tiles", .spec = spec, .n_seqs = c->n_seqs, .seq_len = c->seq_len,
                .vocab = VOCAB, .token_scale = 1.5f, .start = c->start, .out_stride = dim,
                .ids = ids, .w = w, .positions = c->buffer ? pos : NULL,
                .seq_starts = c->seq_starts ? starts : NULL,
                .pad_counts = c->seq_starts ? pads : NULL};
    pmode mode = c->add ? PM_ADD : PM_FUSED;
    double *ref;
    float *fly = pc_run(ctx, q, tab, &pc, mode, init, &ref, NULL);
    TU_OK(sinpe_table_reserve(tab, (size_t)c->start + c->seq_len + 3000));
    float *held = pc_run(ctx, q, tab, &pc, mode, init, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        TU_CHECK(tu_same_bits(fly[i], held[i]),
                 "case %d: row %zu col %zu on the fly %.9g, from the table %.9g", _i,
                 i / dim, i % dim, (double)fly[i], (double)held[i]);
    pc_check(&pc, fly, ref, NULL, "on the fly");
    TU_FREE(fly, held, ref, ids, pos, w, init);
    tu_release(ctx, q, tab, NULL, 0);
}
END_TEST

/* The buffers of the rows past the table are the table's, lent to one call
 * at a time (src/rows.c): a call on the queue of the last borrower borrows
 * them again (no allocation), a call that may overlap the last borrower's
 * launches (another queue, or an out-of-order queue, while those are held
 * by a user event) gets buffers of its own.  Every output is checked. */
enum { SCRATCH_SEQS = 2, SCRATCH_LEN = 300, SCRATCH_DIM = 64 };

typedef struct scratch_call {
    cl_command_queue q;
    int32_t start;
    cl_mem out;
    long allocations; /* clCreateBuffer calls of the enqueue */
} scratch_call;

/* The output is poisoned through idle, a queue with nothing held (a
   blocking write on a queue that holds a call may wait for it). */
static void scratch_enqueue(sinpe_context *ctx, sinpe_table *tab, sinpe_embed_args a,
                            scratch_call *c, cl_event gate, cl_command_queue idle)
{
    c->out = tu_poisoned_buffer(ctx, idle, SCRATCH_SEQS * SCRATCH_LEN * SCRATCH_DIM);
    a.out = c->out, a.start = c->start;
    long before = tu_allocations;
    TU_OK(sinpe_enqueue_embed(tab, c->q, &a, gate ? 1 : 0, gate ? &gate : NULL, NULL));
    TU_CL(clFlush(c->q));
    c->allocations = tu_allocations - before;
}

START_TEST(otf_scratch_lent_to_one_call)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_FLOAT);
    cl_context clctx = sinpe_context_cl_context(ctx);
    cl_int err;
    tu_rng rng = tu_rng_for("otf_scratch");
    size_t rows = SCRATCH_SEQS * SCRATCH_LEN, dim = SCRATCH_DIM, n = rows * dim;
    sinpe_spec spec = tu_spec(dim, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 10000.0,
                              1.0 + 3e-7);
    int32_t ids[SCRATCH_SEQS * SCRATCH_LEN];
    float *w = tu_malloc((size_t)VOCAB * dim * sizeof *w);
    tu_rng_ints(&rng, ids, rows, 0, VOCAB - 1);
    tu_rng_floats(&rng, w, (size_t)VOCAB * dim, -1.0f, 1.0f);
    cl_mem idm = tu_buffer(ctx, sizeof ids, ids);
    cl_mem wm = tu_buffer(ctx, (size_t)VOCAB * dim * sizeof *w, w);
    sinpe_table *tab = tu_table_of(ctx, &spec, FIRST);
    sinpe_embed_args a = tu_args(SCRATCH_SEQS, SCRATCH_LEN, idm, wm, VOCAB, NULL);
    a.token_scale = 1.5f;

    cl_command_queue q1 = tu_queue(ctx), q2 = tu_queue(ctx), qi = tu_queue(ctx);
    cl_command_queue qo = clCreateCommandQueue(clctx, sinpe_context_device(ctx),
                                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err != CL_SUCCESS) {
        printf("otf_scratch_lent_to_one_call: no out-of-order queue here (%d); that leg "
               "not run\n", (int)err);
        qo = NULL;
    }
    cl_event gate = clCreateUserEvent(clctx, &err), gate_o = clCreateUserEvent(clctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    scratch_call c[6] = {{q1, 500, NULL, 0}, {q1, 700, NULL, 0}, {q1, 900, NULL, 0},
                         {q2, 1100, NULL, 0}, {qo, 1300, NULL, 0}, {qo, 1500, NULL, 0}};
    int n_calls = qo ? 6 : 4;

    scratch_enqueue(ctx, tab, a, &c[0], NULL, qi);
    TU_CL(clFinish(q1));
    scratch_enqueue(ctx, tab, a, &c[1], NULL, qi);
    ck_assert_msg(c[1].allocations == 0,
                  "a call on the last borrower's in-order queue made %ld buffers",
                  c[1].allocations);
    scratch_enqueue(ctx, tab, a, &c[2], gate, qi); /* held until the gate opens */
    ck_assert_msg(c[2].allocations == 0,
                  "a call on the last borrower's in-order queue made %ld buffers",
                  c[2].allocations);
    scratch_enqueue(ctx, tab, a, &c[3], NULL, qi);
    ck_assert_msg(c[3].allocations > 0,
                  "a call on another queue borrowed the buffers of a call still held");
    /* Open the gate first: a runtime may order q2's call after the held one
       (they share the ids and weights). */
    TU_CL(clSetUserEventStatus(gate, CL_COMPLETE));
    TU_CL(clFinish(q1));
    TU_CL(clFinish(q2));
    if (qo) {
        scratch_enqueue(ctx, tab, a, &c[4], gate_o, qi);
        scratch_enqueue(ctx, tab, a, &c[5], NULL, qi);
        ck_assert_msg(c[5].allocations > 0, "a call on an out-of-order queue borrowed the "
                                            "buffers of a call held on that queue");
        TU_CL(clSetUserEventStatus(gate_o, CL_COMPLETE));
        TU_CL(clFinish(qo));
    }

    double *ref = tu_malloc(n * sizeof *ref), *pe = tu_malloc(dim * sizeof *pe);
    for (int k = 0; k < n_calls; k++) {
        float *got = tu_read_floats(c[k].q, c[k].out, n);
        for (size_t r = 0; r < rows; r++) {
            tu_pe_row(&spec, (double)(c[k].start + (int32_t)(r % SCRATCH_LEN)), pe);
            for (size_t col = 0; col < dim; col++)
                ref[r * dim + col] = pe[col] + 1.5 * (double)w[(size_t)ids[r] * dim + col];
        }
        tu_check_rows(got, 0, dim, rows, dim, ref, TU_EMBED_TOL, TU_EMBED_TOL, "call");
        free(got);
        clReleaseMemObject(c[k].out);
    }
    clReleaseEvent(gate);
    clReleaseEvent(gate_o);
    if (qo)
        clReleaseCommandQueue(qo);
    clReleaseCommandQueue(q2);
    clReleaseCommandQueue(qi);
    TU_FREE(ref, pe, w);
    TU_RELEASE(ctx, q1, tab, idm, wm);
}
END_TEST

/* Positions far out, on the fly, against the rows sinpe_enqueue_table_rows
 * writes for them (the table's definition) and the float64 formula: runs
 * from a buffer near 2^24, up to INT32_MAX and down from INT32_MIN (each
 * run's anchors shared), positions scattered over the whole int32 range,
 * a decode-sized call, and positions start + t with per-sequence starts
 * and padding counts from 2^24 - 130 (the OTF tiles on CPU records).  A
 * table of no rows; the weights are zero, so each output row is its PE. */
typedef struct far_case {
    size_t dim, n_seqs, seq_len;
    int kind; /* 0 runs from offsets[], 1 scattered, 2 start + t with offsets */
    int32_t offsets[4];
} far_case;

static const far_case far_cases[] = {
    {64, 3, 300, 0, {(1 << 24) - 150, INT32_MAX - 299, -(1 << 24) - 77}},
    {1100, 2, 200, 0, {(1 << 30) + 1000, INT32_MIN}},
    {48, 3, 200, 1, {0}},
    {64, 64, 1, 1, {0}},
    {72, 4, 260, 2, {(1 << 24) - 130}},
};

START_TEST(otf_far_positions_equal_rows)
{
    const far_case *c = &far_cases[_i];
    sinpe_context *ctx = tu_context(SINPE_MATH_FLOAT);
    cl_command_queue q = tu_queue(ctx);
    tu_rng rng = tu_rng_for("otf_far");
    size_t dim = c->dim, rows = c->n_seqs * c->seq_len, n = rows * dim;
    sinpe_spec spec;
    sinpe_spec_init(&spec, dim);
    int32_t *pos = tu_malloc(rows * sizeof *pos), starts[4], pads[4];
    float *zero = calloc(dim, sizeof *zero);
    for (size_t b = 0; b < c->n_seqs && b < 4; b++) {
        starts[b] = tu_rng_int(&rng, 0, 1000);
        pads[b] = tu_rng_int(&rng, 0, 20);
    }
    for (size_t r = 0; r < rows; r++) {
        size_t b = r / c->seq_len, t = r % c->seq_len;
        uint32_t p = c->kind == 0 ? (uint32_t)c->offsets[b] + (uint32_t)t
                     : c->kind == 1 ? (uint32_t)tu_rng_int(&rng, INT32_MIN, INT32_MAX)
                                    : (uint32_t)c->offsets[0] + (uint32_t)t +
                                          (uint32_t)starts[b] - (uint32_t)pads[b];
        pos[r] = (int32_t)p;
    }
    int32_t *idv = calloc(rows, sizeof *idv);
    ck_assert_msg(zero && idv, "out of memory");
    cl_mem idm = tu_buffer(ctx, rows * sizeof *idv, idv), wm = tu_buffer(ctx, dim * sizeof *zero, zero);
    cl_mem posm = tu_buffer(ctx, rows * sizeof *pos, pos);
    cl_mem sm = tu_buffer(ctx, sizeof starts, starts), pm = tu_buffer(ctx, sizeof pads, pads);
    cl_mem out = tu_poisoned_buffer(ctx, q, n), want = tu_poisoned_buffer(ctx, q, n);
    sinpe_table *tab = tu_table_of(ctx, &spec, 0);
    sinpe_embed_args a = tu_args(c->n_seqs, c->seq_len, idm, wm, 1, out);
    a.token_scale = 3.0f, a.out_stride = dim;
    if (c->kind == 2)
        a.start = c->offsets[0], a.seq_starts = sm, a.pad_counts = pm;
    else
        a.positions = posm;
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    for (size_t r = 0; r < rows; r++)
        TU_OK(sinpe_enqueue_table_rows(tab, q, pos[r], 1, want, r * dim, 0, SINPE_F32, 0, NULL,
                                       NULL));
    float *got = tu_read_floats(q, out, n), *rowv = tu_read_floats(q, want, n);
    for (size_t i = 0; i < n; i++)
        TU_CHECK(got[i] == rowv[i], "case %d: position %d col %zu on the fly %.9g, its row %.9g",
                 _i, (int)pos[i / dim], i % dim, (double)got[i], (double)rowv[i]);
    /* The header's bound against float64: 1.5e-7 + 2^-53 |p w|, w <= 1 here. */
    double *ref = tu_pe_rows(&spec, pos, 0, rows);
    for (size_t r = 0; r < rows; r++)
        tu_check_rows(got + r * dim, 0, dim, 1, dim, ref + r * dim,
                      TU_PE_TOL + ldexp(fabs((double)pos[r]), -53), 0.0,
                      "far positions on the fly");
    TU_FREE(got, rowv, ref, pos, zero, idv);
    TU_RELEASE(ctx, q, tab, idm, wm, posm, sm, pm, out, want);
}
END_TEST

TU_SUITE(otf, 70)
{
    Suite *s = suite_create("otf");
    tcase_add_loop_test(tu_tcase(s, "tiles", NULL), otf_tiles_equal_table_bits, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tu_tcase(s, "far", NULL), otf_far_positions_equal_rows, 0,
                        (int)(sizeof far_cases / sizeof far_cases[0]));
    tcase_add_test(tu_tcase(s, "scratch", NULL), otf_scratch_lent_to_one_call);
    return s;
}
