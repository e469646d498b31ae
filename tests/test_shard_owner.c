/* test_shard_owner.c -- the OWNER shard rule: the vocabulary split over K
 * shards (K = 1, 2, 3, the first V % K one row larger), each shard's call
 * run alone, the K outputs combined element by element.  Every element
 * must be written by at most one shard (the others leave +0.0, all bits
 * zero), so the bitwise OR of the K outputs is their sum in any order, and
 * it must equal the unsharded output bit for bit in fp32, fp16 and bf16,
 * for a preset with padding (FAIRSEQ: pad id 1, positions from the ids) and
 * one without (VASWANI), with ids out of range at both ends and positions
 * past the table's rows.  The bad-id counts of the shards must add up to
 * the unsharded count.  A poisoned element that a shard left unwritten
 * fails the comparison. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V = 23, NS = 4, SL = 29, N = NS * SL, ROWS = 16, MAX_K = 3 };

/* The bits of element i of a buffer of values of size bytes each. */
static uint32_t bits_at(const unsigned char *buf, size_t size, size_t i)
{
    uint32_t u32 = 0;
    uint16_t u16 = 0;
    if (size == 4) {
        memcpy(&u32, buf + i * 4, 4);
        return u32;
    }
    memcpy(&u16, buf + i * 2, 2);
    return u16;
}

/* Runs the call a (its out, bad_ids set here) and reads the output and count back. */
static void run(sinpe_context *ctx, sinpe_table *tab, cl_command_queue q, sinpe_embed_args a,
                size_t bytes, unsigned char *out, int32_t *bad)
{
    int32_t zero = 0;
    a.out = tu_poisoned_buffer(ctx, q, bytes / 4);
    a.bad_ids = tu_buffer(ctx, sizeof zero, &zero);
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
    tu_read(q, a.out, 0, bytes, out);
    tu_read(q, a.bad_ids, 0, sizeof *bad, bad);
    clReleaseMemObject(a.out);
    clReleaseMemObject(a.bad_ids);
}

START_TEST(owner_bits)
{
    /* _i: output type (F32, F16, BF16) x preset (FAIRSEQ, VASWANI). */
    static const sinpe_dtype outs[] = {SINPE_F32, SINPE_F16, SINPE_BF16};
    static const sinpe_preset presets[] = {SINPE_PRESET_FAIRSEQ, SINPE_PRESET_VASWANI};
    sinpe_dtype ot = outs[_i % 3];
    sinpe_preset preset = presets[_i / 3];
    size_t dim = preset == SINPE_PRESET_FAIRSEQ ? 37 : 36, size = ot == SINPE_F32 ? 4 : 2;
    size_t bytes = N * dim * size;
    char name[64];
    snprintf(name, sizeof name, "owner %s %s", sinpe_preset_name(preset),
             ot == SINPE_F32 ? "f32" : ot == SINPE_F16 ? "f16" : "bf16");
    tu_rng rng = tu_rng_for(name);

    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_preset_table(ctx, preset, dim, ROWS, NULL);

    float *w = tu_malloc(V * dim * sizeof *w);
    for (size_t i = 0; i < V * dim; i++)
        w[i] = tu_rng_float(&rng, -2.0f, 2.0f);
    int32_t ids[N];
    for (size_t r = 0; r < N; r++) {
        ids[r] = tu_rng_int(&rng, 0, V - 1);
        if (r % 7 == 3)
            ids[r] = 1; /* FAIRSEQ's pad id */
        else if (r % 11 == 5)
            ids[r] = r % 2 ? -1 - (int32_t)r : V + (int32_t)r;
    }
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);

    sinpe_embed_args a = tu_args(NS, SL, ids_m, NULL, 0, NULL);
    TU_OK(sinpe_embed_args_preset(&a, preset, dim, 1)); /* leaves the shape as it is */
    a.out_dtype = ot;
    a.start = 2; /* implicit positions run past the table's ROWS */

    unsigned char *want = tu_malloc(bytes), *got = tu_malloc(bytes), *acc = tu_malloc(bytes);
    int32_t want_bad, bad;
    sinpe_embed_args u = a;
    u.weights = tu_buffer(ctx, V * dim * sizeof *w, w);
    u.vocab = V;
    run(ctx, tab, q, u, bytes, want, &want_bad);
    clReleaseMemObject(u.weights);

    for (size_t K = 1; K <= MAX_K; K++) {
        size_t start = 0;
        int32_t bad_sum = 0;
        memset(acc, 0, bytes);
        for (size_t k = 0; k < K; k++) {
            size_t rows = V / K + (k < V % K);
            sinpe_embed_args s = a;
            s.weights = tu_buffer(ctx, rows * dim * sizeof *w, w + start * dim);
            s.vocab = rows;
            s.vocab_shard = SINPE_SHARD_OWNER;
            s.vocab_start = start;
            s.vocab_total = V;
            run(ctx, tab, q, s, bytes, got, &bad);
            clReleaseMemObject(s.weights);
            bad_sum += bad;
            for (size_t i = 0; i < N * dim; i++) {
                uint32_t g = bits_at(got, size, i), have = bits_at(acc, size, i);
                TU_CHECK(!(g && have),
                         "%s K=%zu: token %zu (id %d) col %zu written by shard %zu "
                         "and an earlier one (0x%x, 0x%x)",
                         name, K, i / dim, (int)ids[i / dim], i % dim, k, (unsigned)g,
                         (unsigned)have);
                g |= have;
                memcpy(acc + i * size, size == 4 ? (void *)&g : (void *)&(uint16_t){(uint16_t)g},
                       size);
            }
            start += rows;
        }
        for (size_t i = 0; i < N * dim; i++)
            TU_CHECK(bits_at(acc, size, i) == bits_at(want, size, i),
                     "%s K=%zu: token %zu (id %d) col %zu: shards give 0x%x, "
                     "unsharded 0x%x",
                     name, K, i / dim, (int)ids[i / dim], i % dim,
                     (unsigned)bits_at(acc, size, i), (unsigned)bits_at(want, size, i));
        ck_assert_msg(bad_sum == want_bad, "%s K=%zu: shards count %d bad ids, unsharded %d",
                      name, K, (int)bad_sum, (int)want_bad);
    }
    ck_assert_msg(want_bad > 0, "%s: the ids hold no bad id to count", name);

    TU_FREE(w, want, got, acc);
    TU_RELEASE(ctx, q, tab, ids_m);
}
END_TEST

START_TEST(owner_bad_input)
{
    enum { DIM = 8 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 4);
    int32_t ids[4] = {0, 1, 2, 3};
    float w[4 * DIM] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, 4 * DIM);
    sinpe_embed_args base, a;
    base = tu_args(1, 4, ids_m, w_m, 4, out_m);
    base.vocab_shard = SINPE_SHARD_OWNER;
    base.vocab_start = 4;
    base.vocab_total = 12;

#define EXPECT(change, status, words) \
    (a = base, change, tu_expect_refused(tab, q, &a, 0, status, words, #change))
    EXPECT(a.vocab_shard = 3, SINPE_INVALID_OPTION, "vocab_shard");
    EXPECT(a.vocab_shard = -1, SINPE_INVALID_OPTION, "vocab_shard");
    EXPECT(a.vocab_total = 7, SINPE_INVALID_OPTION, "vocab_total");
    EXPECT(a.vocab_total = 0, SINPE_INVALID_OPTION, "vocab_total");
    EXPECT(a.vocab_total = (size_t)INT32_MAX + 1, SINPE_INVALID_OPTION, "vocab_total");
    EXPECT(a.skip_pe = 1, SINPE_INVALID_OPTION, "skip_pe");
    EXPECT((a.pad_policy = SINPE_PAD_ZERO_PE, a.pad_id = 12), SINPE_INVALID_PAD, "pad_id");
#undef EXPECT
    a = base;
    a.vocab_total = 5;
    TU_STATUS(sinpe_enqueue_gather(tab, q, &a, 0, NULL, NULL), SINPE_INVALID_OPTION);
    tu_check_buffer_poison(q, out_m, 4 * DIM, "refused OWNER calls");
    /* The edges: vocab_total exactly vocab_start + vocab, and pad id just below it. */
    a = base;
    a.vocab_total = 8;
    a.pad_policy = SINPE_PAD_ZERO_PE;
    a.pad_id = 7;
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));

    TU_RELEASE(ctx, q, tab, ids_m, w_m, out_m);
}
END_TEST

TCase *tcase_shard_owner(void)
{
    TCase *tc = tu_tcase(NULL, "owner", NULL);
    tcase_add_loop_test(tc, owner_bits, 0, 6);
    tcase_add_test(tc, owner_bad_input);
    return tc;
}
