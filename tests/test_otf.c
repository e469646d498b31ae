/*
 * test_otf.c -- positions past the table's rows without a positions buffer
 * (start + t, per-sequence starts, padding counts): the on-the-fly path
 * shares its anchors between the tokens of a tile, and must give the same
 * bits as the same call once the table holds every row.  Each call runs
 * twice on poisoned outputs: against a table of FIRST rows, then after
 * sinpe_table_reserve() covers every position; the two outputs must be
 * equal byte for byte, fully written, and near the float64 reference.
 */
#include "test_util.h"

#include <string.h>

enum { FIRST = 100, VOCAB = 50 };

typedef struct otf_case {
    size_t dim, n_seqs, seq_len;
    int32_t start;
    int seq_starts;  /* per-sequence offsets (and pad counts) */
    int add;         /* add_positions instead of the fused call */
} otf_case;

/* dims with a partial last tile (7, 513) and whole ones (64); sequences
   one to five; runs across a block edge (start 120, 1000); decode-sized. */
static const otf_case cases[] = {
    {64, 4, 300, 0, 0, 0},  {7, 3, 200, 120, 0, 0},  {513, 2, 150, 1000, 0, 0},
    {64, 5, 130, 90, 1, 0}, {64, 64, 1, 250, 0, 0},  {64, 9, 1, 5000, 1, 0},
    {64, 4, 300, 0, 0, 1},  {513, 3, 40, 131, 1, 1},
};

/* Runs the call into an output that holds init (add_positions), else the
   poison, and returns it (n floats). */
static float *run(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab,
                  const sinpe_embed_args *a, const float *init, size_t n)
{
    int add = init != NULL;
    cl_mem out = add ? tu_buffer(ctx, n * sizeof *init, init) : tu_poisoned_buffer(ctx, q, n);
    sinpe_embed_args b = *a;
    b.out = out;
    if (add)
        TU_OK(sinpe_enqueue_add_positions(tab, q, &b, 0, NULL, NULL));
    else
        TU_OK(sinpe_enqueue_embed(tab, q, &b, 0, NULL, NULL));
    float *got = tu_read_floats(q, out, n);
    clReleaseMemObject(out);
    return got;
}

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
    int32_t *ids = tu_malloc(rows * sizeof *ids), starts[64], pads[64];
    float *w = tu_malloc((size_t)VOCAB * dim * sizeof *w), *init = tu_malloc(n * sizeof *init);
    tu_rng_floats(&rng, init, n, -1.0f, 1.0f);
    tu_rng_ints(&rng, ids, rows, 0, VOCAB - 1);
    tu_rng_floats(&rng, w, (size_t)VOCAB * dim, -1.0f, 1.0f);
    for (size_t b = 0; b < c->n_seqs; b++) {
        starts[b] = tu_rng_int(&rng, 0, 3000);
        pads[b] = tu_rng_int(&rng, 0, 20);
    }
    cl_mem idm = tu_buffer(ctx, rows * sizeof *ids, ids);
    cl_mem wm = tu_buffer(ctx, (size_t)VOCAB * dim * sizeof *w, w);
    cl_mem sm = tu_buffer(ctx, sizeof starts, starts), pm = tu_buffer(ctx, sizeof pads, pads);

    sinpe_table *tab = tu_table_of(ctx, &spec, FIRST);
    ck_assert_uint_lt(sinpe_table_rows(tab), (size_t)c->start + c->seq_len);
    sinpe_embed_args a = tu_args(c->n_seqs, c->seq_len, idm, wm, VOCAB, NULL);
    a.start = c->start, a.token_scale = 1.5f, a.out_stride = dim;
    if (c->seq_starts)
        a.seq_starts = sm, a.pad_counts = pm;
    float *fly = run(ctx, q, tab, &a, c->add ? init : NULL, n);
    TU_OK(sinpe_table_reserve(tab, (size_t)c->start + c->seq_len + 3000));
    float *held = run(ctx, q, tab, &a, c->add ? init : NULL, n);

    double *ref = tu_malloc(n * sizeof *ref), *pe = tu_malloc(dim * sizeof *pe);
    for (size_t r = 0; r < rows; r++) {
        size_t b = r / c->seq_len, t = r % c->seq_len;
        int32_t p = c->start + (int32_t)t + (c->seq_starts ? starts[b] - pads[b] : 0);
        tu_pe_row(&spec, (double)p, pe);
        for (size_t col = 0; col < dim; col++)
            ref[r * dim + col] = pe[col] + (c->add ? (double)init[r * dim + col]
                                                   : 1.5 * (double)w[(size_t)ids[r] * dim + col]);
    }
    for (size_t i = 0; i < n; i++)
        TU_CHECK(memcmp(&fly[i], &held[i], sizeof(float)) == 0,
                 "case %d: row %zu col %zu on the fly %.9g, from the table %.9g", _i,
                 i / dim, i % dim, (double)fly[i], (double)held[i]);
    tu_check_rows(fly, 0, dim, rows, dim, ref, TU_EMBED_TOL, TU_EMBED_TOL, "on the fly");
    TU_FREE(fly, held, ref, pe, ids, w, init);
    TU_RELEASE(ctx, q, tab, idm, wm, sm, pm);
}
END_TEST

Suite *suite_otf(void)
{
    Suite *s = suite_create("otf");
    tcase_add_loop_test(tu_tcase(s, "tiles", NULL), otf_tiles_equal_table_bits, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    return s;
}
