/* test_shard.c -- vocabulary-parallel lookup: the embedding table split in
 * two shards on one device, each run with vocab_shard = 1, PE added by the
 * first only (skip_pe on the second).  Summing the two outputs on the host
 * (the all-reduce) must give the unsharded fused output.  For every token at
 * most one shard contributes an embedding and the other writes +0 or PE
 * alone, so the sum performs exactly the unsharded float operations: the
 * outputs must agree bit for bit (and the unsharded one must meet
 * TU_EMBED_TOL against the float64 reference).
 *
 * Bad ids: in shard mode an id outside the shard is normal (another shard
 * owns it) and does not count; a negative id still does. */
#include "test_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three runs of a, in this order: unsharded over w[0] (V rows); the
 * first shard over w[1] (rows [0, half), adding PE); the second over w[2]
 * (rows [half, V) from element b_off, without PE).  Run k writes out[k] and
 * counts into bad[k] (bad NULL: no counts).  Returns the n * dim outputs. */
static void run_shards(sinpe_table *tab, cl_command_queue q, const sinpe_embed_args *a,
                       const cl_mem w[3], size_t V, size_t half, size_t b_off,
                       const cl_mem out[3], const cl_mem *bad, size_t elems, float *got[3])
{
    sinpe_embed_args run[3] = {*a, *a, *a};
    for (int k = 0; k < 3; k++) {
        run[k].weights = w[k];
        run[k].vocab = k == 0 ? V : k == 1 ? half : V - half;
        run[k].vocab_shard = k > 0;
        run[k].vocab_start = k == 2 ? half : 0;
        run[k].out = out[k];
        run[k].bad_ids = bad ? bad[k] : NULL;
    }
    run[2].weights_offset = b_off;
    run[2].skip_pe = 1;
    for (int k = 0; k < 3; k++)
        TU_OK(sinpe_enqueue_embed(tab, q, &run[k], 0, NULL, NULL));
    TU_CL(clFinish(q));
    for (int k = 0; k < 3; k++)
        got[k] = tu_read_floats(q, out[k], elems);
}

/* Element i (of token i / dim): the shards' sum is the unsharded value. */
static void check_sum(const char *name, float *const got[3], const int32_t *ids, size_t i,
                      size_t dim)
{
    float sum = got[1][i] + got[2][i];
    TU_CHECK(tu_same_bits(sum, got[0][i]) || (sum == 0.0f && got[0][i] == 0.0f),
             "%s: token %zu (id %d) col %zu: shards %.9g + %.9g = %.9g, unsharded %.9g", name,
             i / dim, (int)ids[i / dim], i % dim, (double)got[1][i], (double)got[2][i],
             (double)sum, (double)got[0][i]);
}

typedef struct shard_cfg {
    const char *name;
    size_t dim, vocab, n_seqs, seq_len;
    sinpe_layout layout;
    double shift;
} shard_cfg;

static const shard_cfg shard_cfgs[] = {
    {"shard d64 V101", 64, 101, 3, 33, SINPE_LAYOUT_INTERLEAVED, 0.0},
    {"shard d30 V40", 30, 40, 4, 21, SINPE_LAYOUT_SPLIT_SIN_COS, 1.0},
};

START_TEST(shard_sum_equals_unsharded)
{
    const shard_cfg *cfg = &shard_cfgs[_i];
    size_t dim = cfg->dim, V = cfg->vocab, half = V / 2, n = cfg->n_seqs * cfg->seq_len;
    const size_t b_off = 7; /* the second shard sits at an offset in its buffer */
    const float scale = sqrtf((float)dim);
    tu_rng rng = tu_rng_for(cfg->name);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_spec spec = tu_spec(dim, cfg->layout, SINPE_ODD_ZERO_LAST, cfg->shift, 10000.0, 1.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, 16);

    float *w = tu_malloc(V * dim * sizeof *w);
    for (size_t i = 0; i < V * dim; i++)
        w[i] = tu_rng_float(&rng, -1.0f, 1.0f);
    /* Ids: mostly valid, plus ids past the vocabulary and negative ones. */
    static const int32_t past[] = {0, 10, INT32_MAX}; /* added to V */
    static const int32_t neg[] = {-1, -5, INT32_MIN};
    int32_t *ids = tu_malloc(n * sizeof *ids);
    int n_neg = 0, n_past = 0;
    for (size_t r = 0; r < n; r++) {
        ids[r] = tu_rng_int(&rng, 0, (int32_t)V - 1);
        if (r % 11 == 4) {
            ids[r] = past[n_past % 3] == INT32_MAX ? INT32_MAX : (int32_t)V + past[n_past % 3];
            n_past++;
        } else if (r % 13 == 6) {
            ids[r] = neg[n_neg % 3];
            n_neg++;
        }
    }
    ids[0] = 0;
    ids[1] = (int32_t)half - 1;
    ids[2] = (int32_t)half;
    ids[3] = (int32_t)V - 1;

    float *wb = tu_malloc((b_off + (V - half) * dim) * sizeof *wb);
    for (size_t i = 0; i < b_off; i++)
        wb[i] = 1e30f;
    memcpy(wb + b_off, w + half * dim, (V - half) * dim * sizeof *wb);
    cl_mem ids_m = tu_buffer(ctx, n * sizeof *ids, ids);
    cl_mem w_m[3] = {tu_buffer(ctx, V * dim * sizeof *w, w),
                     tu_buffer(ctx, half * dim * sizeof *w, w),
                     tu_buffer(ctx, (b_off + (V - half) * dim) * sizeof *wb, wb)};
    cl_mem out_m[3], bad_m[3];
    int32_t zero = 0;
    for (int k = 0; k < 3; k++) {
        out_m[k] = tu_poisoned_buffer(ctx, q, n * dim);
        bad_m[k] = tu_buffer(ctx, sizeof zero, &zero);
    }

    sinpe_embed_args a = tu_args(cfg->n_seqs, cfg->seq_len, ids_m, NULL, 0, NULL);
    a.token_scale = scale;
    a.start = 3;

    float *got[3];
    int32_t bad[3];
    run_shards(tab, q, &a, w_m, V, half, b_off, out_m, bad_m, n * dim, got);
    for (int k = 0; k < 3; k++) {
        tu_read(q, bad_m[k], 0, sizeof bad[k], &bad[k]);
        tu_check_layout(got[k], n * dim, 0, dim, n, dim, k == 0 ? "unsharded" : "shard");
    }

    double *ref = tu_malloc(n * dim * sizeof *ref);
    tu_ref_embed(&spec, cfg->n_seqs, cfg->seq_len, ids, w, 0, dim, V, scale, 3, NULL, 1, 1,
                 ref);
    tu_check_rows(got[0], 0, dim, n, dim, ref, TU_EMBED_TOL, TU_EMBED_TOL, "unsharded");
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c < dim; c++) {
            size_t i = r * dim + c;
            check_sum(cfg->name, got, ids, i, dim);
            /* The shard that does not own the id contributes no embedding. */
            int owner = ids[r] >= 0 && (size_t)ids[r] < half     ? 1
                        : ids[r] >= 0 && (size_t)ids[r] < V      ? 2
                                                                 : 0;
            if (owner != 2)
                TU_CHECK(got[2][i] == 0.0f, "%s: token %zu (id %d) col %zu: second shard "
                         "wrote %.9g for an id it does not hold", cfg->name, r,
                         (int)ids[r], c, (double)got[2][i]);
        }
    }
    ck_assert_msg(bad[0] == n_neg + n_past, "unsharded bad_ids %d, expected %d", (int)bad[0],
                  n_neg + n_past);
    ck_assert_msg(bad[1] == n_neg, "first shard bad_ids %d, expected %d (negative ids only)",
                  (int)bad[1], n_neg);
    ck_assert_msg(bad[2] == n_neg, "second shard bad_ids %d, expected %d (negative ids only)",
                  (int)bad[2], n_neg);

    for (int k = 0; k < 3; k++) {
        free(got[k]);
        TU_RELEASE(NULL, NULL, NULL, out_m[k], bad_m[k]);
    }
    TU_FREE(ref, w, wb, ids);
    TU_RELEASE(ctx, q, tab, ids_m, w_m[0], w_m[1], w_m[2]);
}
END_TEST

START_TEST(shard_with_padding)
{
    /* Every rank runs the same arguments, with the global pad id, as
     * Megatron-style code does; the pad id belongs to the second shard (the
     * one without PE), so the first shard must apply the policy to a pad id
     * it does not hold.  Positions by fairseq's rule on both shards.  The sum
     * must still equal the unsharded output bit for bit.  _i: the policy
     * (ZERO_PE, ZERO_OUTPUT, ZERO_EMBEDDING). */
    static const sinpe_pad_policy pols[] = {SINPE_PAD_ZERO_PE, SINPE_PAD_ZERO_OUTPUT,
                                            SINPE_PAD_ZERO_EMBEDDING};
    static const char *const pol_names[] = {"ZERO_PE", "ZERO_OUTPUT", "ZERO_EMBEDDING"};
    enum { DIM = 24, V = 30, HALF = V / 2, NS = 3, SL = 19, N = NS * SL };
    const int32_t pad = V - 2; /* held by the second shard */
    char name[64];
    snprintf(name, sizeof name, "sharded padding %s", pol_names[_i]);
    tu_rng rng = tu_rng_for(name);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_preset_table(ctx, SINPE_PRESET_FAIRSEQ, DIM, 8, NULL);

    float w[V * DIM];
    int32_t ids[N];
    for (size_t i = 0; i < V * DIM; i++)
        w[i] = tu_rng_float(&rng, -1.0f, 1.0f);
    for (size_t b = 0; b < NS; b++)
        for (size_t t = 0; t < SL; t++) {
            int32_t id;
            do
                id = tu_rng_int(&rng, 0, V - 1);
            while (id == pad);
            /* left-padded, right-padded, unpadded */
            if ((b == 0 && t < 4) || (b == 1 && t >= SL - 6))
                id = pad;
            ids[b * SL + t] = id;
        }
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem w_m[3] = {tu_buffer(ctx, sizeof w, w), tu_buffer(ctx, HALF * DIM * sizeof *w, w),
                     tu_buffer(ctx, (V - HALF) * DIM * sizeof *w, w + HALF * DIM)};
    cl_mem out_m[3];
    for (int k = 0; k < 3; k++)
        out_m[k] = tu_poisoned_buffer(ctx, q, N * DIM);

    sinpe_embed_args a = tu_args(NS, SL, ids_m, NULL, 0, NULL);
    TU_OK(sinpe_embed_args_preset(&a, SINPE_PRESET_FAIRSEQ, DIM, pad));
    a.pad_policy = pols[_i];
    float *got[3];
    run_shards(tab, q, &a, w_m, V, HALF, 0, out_m, NULL, N * DIM, got);
    for (size_t i = 0; i < N * DIM; i++)
        check_sum(name, got, ids, i, DIM);
    for (int k = 0; k < 3; k++) {
        free(got[k]);
        clReleaseMemObject(out_m[k]);
    }
    TU_RELEASE(ctx, q, tab, ids_m, w_m[0], w_m[1], w_m[2]);
}
END_TEST

START_TEST(shard_range_limit)
{
    /* vocab_start + vocab past 2^31 - 1 is an invalid option. */
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_spec spec;
    sinpe_spec_init(&spec, 8);
    sinpe_table *tab = tu_table_of(ctx, &spec, 4);
    int32_t ids[4] = {0, 1, 2, 3};
    float w[4 * 8] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, 4 * 8);
    sinpe_embed_args a = tu_args(1, 4, ids_m, w_m, 4, out_m);
    a.vocab_shard = 1;
    a.vocab_start = (size_t)INT32_MAX - 3;
    TU_STATUS(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL), SINPE_INVALID_OPTION);
    tu_check_buffer_poison(q, out_m, 4 * 8, "shard past 2^31 - 1");
    /* Ending exactly at 2^31 - 1 is fine, and every id then misses the shard. */
    a.vocab_start = (size_t)INT32_MAX - 4;
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
    float *got = tu_read_floats(q, out_m, 4 * 8);
    double ref[4 * 8];
    tu_ref_embed(&spec, 1, 4, ids, w, 0, 8, 4, 1.0f, 0, NULL, 0, 1, ref);
    tu_check_rows(got, 0, 8, 4, 8, ref, TU_EMBED_TOL, TU_EMBED_TOL, "shard at the top");
    free(got);
    TU_RELEASE(ctx, q, tab, ids_m, w_m, out_m);
}
END_TEST

TU_SUITE(shard, 37)
{
    Suite *s = suite_create("shard");
    TCase *tc = tu_tcase(s, "shards", NULL);
    tcase_add_loop_test(tc, shard_sum_equals_unsharded, 0,
                        (int)(sizeof shard_cfgs / sizeof shard_cfgs[0]));
    tcase_add_loop_test(tc, shard_with_padding, 0, 3);
    tcase_add_test(tc, shard_range_limit);
    suite_add_tcase(s, tcase_shard_owner());
    tcase_shard_parts(s);
    return s;
}
