/* test_parts.c -- the weights in several buffers (weights_count,
 * weights_list, weights_rows): a table split over three buffers gives the
 * bytes of the same table in one, for every weight type (the block types
 * split at row boundaries, which are block boundaries), through the
 * fused, gather and gather-then-add calls, with bad ids at both ends
 * counted once and positions in and past the table; over sub-buffers of
 * one allocation; inside the shards of both kinds; past a device's
 * largest allocation; and the hostile lists refused with nothing written.
 * A poisoned element left unwritten, or a row read from the wrong buffer
 * or at the wrong place in it, fails the comparison. */
#include "family_ref.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NS = 2, SL = 11, N = NS * SL, PARTS = 3 };

/* A table of rows rows of type t, row r at off + r * stride values, in
   one host allocation of *bytes: random blocks for ggml's block types
   (valid, every code), else random floats in [-2, 2) written by
   sinpe_quantize as one row of every value (I8: one scale for all). */
static unsigned char *random_table(sinpe_dtype t, size_t rows, size_t off, size_t stride,
                                   tu_rng *rng, size_t *bytes)
{
    sinpe_dtype_info f;
    TU_OK(sinpe_dtype_query(t, &f, sizeof f));
    size_t values = off + rows * stride;
    unsigned char *w = tu_malloc(*bytes = sinpe_dtype_bytes(t, values));
    if (t >= SINPE_Q4_K) {
        tu_random_blocks(t, w, values / f.block_values, rng);
        return w;
    }
    float *x = tu_malloc(values * sizeof *x), scale;
    tu_rng_floats(rng, x, values, -2.0f, 2.0f);
    TU_OK(sinpe_quantize(t, x, 1, values, w, *bytes, &scale, SINPE_F32));
    free(x);
    return w;
}

/* The call (0 fused, 1 gather, 2 gather then add) with a's arguments
   into a poisoned output of bytes and a zeroed bad-id counter, read back
   (free() it) with the count. */
static unsigned char *run(sinpe_context *ctx, sinpe_table *tab, cl_command_queue q,
                          sinpe_embed_args a, int call, size_t bytes, int32_t *bad)
{
    int32_t zero = 0;
    a.bad_ids = tu_buffer(ctx, sizeof zero, &zero);
    unsigned char *out = tu_call_bytes(ctx, tab, q, &a, call, bytes, 0xa5);
    tu_read(q, a.bad_ids, 0, sizeof *bad, bad);
    clReleaseMemObject(a.bad_ids);
    return out;
}

/* The rows of part j of PARTS over vocab rows: vocab / PARTS, the first
   vocab % PARTS one larger. */
static size_t part_rows(size_t vocab, size_t j)
{
    return vocab / PARTS + (j < vocab % PARTS);
}

/* The PARTS buffers of the rows of the one-buffer table w (off, stride
   in values, as the call gives them), each from its first row's start. */
static void split(sinpe_context *ctx, sinpe_dtype t, const unsigned char *w, size_t vocab,
                  size_t off, size_t stride, cl_mem *list, size_t *rows)
{
    for (size_t j = 0, first = 0; j < PARTS; first += rows[j++]) {
        rows[j] = part_rows(vocab, j);
        list[j] = tu_buffer(ctx, sinpe_dtype_bytes(t, off + rows[j] * stride),
                            w + sinpe_dtype_bytes(t, first * stride));
    }
}

/* Asserts the bytes and bad-id counts of the one-buffer call (one) and
   the three-buffer call (parts) equal, for each of the three calls. */
static void same_calls(sinpe_context *ctx, sinpe_table *tab, cl_command_queue q,
                       const sinpe_embed_args *one, const sinpe_embed_args *parts,
                       size_t bytes, const char *what)
{
    for (int call = 0; call < 3; call++) {
        int32_t bad[2];
        unsigned char *want = run(ctx, tab, q, *one, call, bytes, &bad[0]);
        unsigned char *got = run(ctx, tab, q, *parts, call, bytes, &bad[1]);
        for (size_t i = 0; i < bytes; i++)
            TU_CHECK(got[i] == want[i], "%s, call %d: byte %zu is 0x%02x in three buffers, "
                     "0x%02x in one", what, call, i, got[i], want[i]);
        ck_assert_msg(bad[0] == bad[1], "%s, call %d: %d bad ids counted in three buffers, "
                      "%d in one", what, call, (int)bad[1], (int)bad[0]);
        ck_assert_msg(call == 2 || parts->vocab_shard || bad[0] > 0,
                      "%s: the ids hold no bad id to count", what);
        TU_FREE(want, got);
    }
}

/* Loop index _i: the weight type x two position sources: explicit ones,
   some past the table, into F32 (the general kernels); implicit start + t
   in the table (the lean ones) into F16.  I8 and FP8 rows take their
   scales from one buffer of vocab scales. */
START_TEST(parts_every_type)
{
    sinpe_dtype t = (sinpe_dtype)(_i / 2);
    int implicit = _i % 2;
    sinpe_dtype_info f;
    TU_OK(sinpe_dtype_query(t, &f, sizeof f));
    enum { VOCAB = 13 };
    size_t bv = f.block_values, dim = bv == 1 ? 38 : 2 * bv, off = bv, stride = dim + bv;
    sinpe_dtype ot = implicit ? SINPE_F16 : SINPE_F32;
    size_t bytes = N * dim * (ot == SINPE_F32 ? 4 : 2), wbytes;
    char what[64];
    snprintf(what, sizeof what, "%s weights, %s positions", f.name,
             implicit ? "implicit" : "explicit");
    tu_rng rng = tu_rng_for(what);
    unsigned char *w = random_table(t, VOCAB, off, stride, &rng, &wbytes);
    float scales[VOCAB + 2];
    tu_rng_floats(&rng, scales, VOCAB + 2, 0.25f, 2.0f);
    int32_t ids[N], pos[N];
    for (size_t k = 0; k < N; k++) {
        ids[k] = tu_rng_int(&rng, -2, VOCAB + 1); /* a few outside the rows, both ends */
        pos[k] = tu_rng_int(&rng, 0, 30);         /* some past the table's 16 rows */
    }
    ids[0] = -1;
    ids[1] = VOCAB;

    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, dim, 16);
    cl_mem list[PARTS];
    size_t rows[PARTS];
    split(ctx, t, w, VOCAB, off, stride, list, rows);
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), pos_m = tu_buffer(ctx, sizeof pos, pos);
    cl_mem scales_m = tu_buffer(ctx, sizeof scales, scales);
    sinpe_embed_args one = tu_args(NS, SL, ids_m, tu_buffer(ctx, wbytes, w), VOCAB, NULL);
    one.weights_dtype = t;
    one.weights_offset = off;
    one.weights_stride = stride;
    one.out_dtype = ot;
    one.token_scale = 1.5f;
    one.positions = implicit ? NULL : pos_m;
    one.start = implicit ? 3 : 0;
    if (f.scales == SINPE_DTYPE_SCALES_ROW || f.scales == SINPE_DTYPE_SCALES_ROW_OR_TENSOR) {
        one.weight_scales = scales_m;
        one.weight_scales_offset = 2;
    }
    sinpe_embed_args parts = one;
    parts.weights = NULL;
    parts.weights_count = PARTS;
    parts.weights_list = list;
    parts.weights_rows = rows;
    same_calls(ctx, tab, q, &one, &parts, bytes, what);

    TU_RELEASE(ctx, q, tab, ids_m, pos_m, scales_m, one.weights, list[0], list[1], list[2]);
    free(w);
}
END_TEST

/* The three buffers are sub-buffers of one allocation, at origins that
   are rows' starts (the row stride a multiple of the device's base
   alignment), with a weights_offset inside each; and the list of one
   buffer, which is that buffer. */
START_TEST(parts_sub_buffers)
{
    enum { VOCAB = 12, DIM = 64, OFF = 8 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    cl_uint align_bits = 0;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                          sizeof align_bits, &align_bits, NULL));
    size_t align = align_bits / 8 < 2 ? 2 : align_bits / 8;
    size_t stride = (DIM * 2 + align - 1) / align * align / 2; /* fp16 values */
    size_t values = OFF + VOCAB * stride, bytes = N * DIM * 4;
    tu_rng rng = tu_rng_for("parts sub-buffers");
    float *x = tu_malloc(values * sizeof *x);
    uint16_t *w = tu_malloc(values * sizeof *w);
    tu_rng_floats(&rng, x, values, -2.0f, 2.0f);
    TU_OK(sinpe_quantize(SINPE_F16, x, 1, values, w, values * 2, NULL, SINPE_F32));
    int32_t ids[N];
    tu_rng_ints(&rng, ids, N, -1, VOCAB);
    ids[N / 2] = -1; /* a bad id to count whatever the draw (else none in 1 of 6 seeds) */
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), whole = tu_buffer(ctx, values * 2, w);
    sinpe_table *tab = tu_table(ctx, DIM, 32);
    cl_mem list[PARTS];
    size_t rows[PARTS];
    for (size_t j = 0, first = 0; j < PARTS; first += rows[j++]) {
        cl_int err;
        const cl_buffer_region region = {first * stride * 2,
                                         (OFF + (rows[j] = part_rows(VOCAB, j)) * stride) * 2};
        list[j] = clCreateSubBuffer(whole, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION,
                                    &region, &err);
        TU_CL(err);
    }
    sinpe_embed_args one = tu_args(NS, SL, ids_m, whole, VOCAB, NULL);
    one.weights_dtype = SINPE_F16;
    one.weights_offset = OFF;
    one.weights_stride = stride;
    sinpe_embed_args parts = one;
    parts.weights = NULL;
    parts.weights_count = PARTS;
    parts.weights_list = list;
    parts.weights_rows = rows;
    same_calls(ctx, tab, q, &one, &parts, bytes, "fp16 sub-buffers");
    parts.weights_count = 1; /* the list of one: the whole allocation */
    parts.weights_list = &whole;
    parts.weights_rows = &(size_t){VOCAB};
    same_calls(ctx, tab, q, &one, &parts, bytes, "a list of one buffer");

    TU_RELEASE(ctx, q, tab, list[0], list[1], list[2], whole, ids_m);
    TU_FREE(x, w);
}
END_TEST

/* Loop index _i: shard kind (ROWS, OWNER) x preset (FAIRSEQ: padding and
   positions from the ids; VASWANI).  A vocabulary of 23 in three shards,
   each shard's rows in three buffers: each shard's call equals its call
   on one buffer, the ids spread over every shard and past both ends. */
START_TEST(parts_in_shards)
{
    enum { V = 23, DIM = 36, K = 3 };
    int kind = _i % 2 ? SINPE_SHARD_OWNER : SINPE_SHARD_ROWS;
    sinpe_preset preset = _i / 2 ? SINPE_PRESET_VASWANI : SINPE_PRESET_FAIRSEQ;
    size_t bytes = N * DIM * 2;
    char what[80];
    tu_rng rng = tu_rng_for("parts in shards");
    float w[V * DIM];
    tu_rng_floats(&rng, w, V * DIM, -2.0f, 2.0f);
    int32_t ids[N];
    tu_rng_ints(&rng, ids, N, -2, V + 1);
    ids[3] = ids[9] = 1; /* FAIRSEQ's pad id */
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_preset_table(ctx, preset, DIM, 16, NULL);
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    sinpe_embed_args a = tu_args(NS, SL, ids_m, NULL, 0, NULL);
    TU_OK(sinpe_embed_args_preset(&a, preset, DIM, 1));
    a.out_dtype = SINPE_F16;
    a.vocab_shard = kind;
    a.vocab_total = kind == SINPE_SHARD_OWNER ? V : 0;
    for (size_t k = 0, start = 0; k < K; start += V / K + (k < V % K), k++) {
        sinpe_embed_args one = a, parts;
        cl_mem list[PARTS];
        size_t rows[PARTS];
        one.vocab = V / K + (k < V % K);
        one.vocab_start = start;
        one.skip_pe = kind == SINPE_SHARD_ROWS && k > 0;
        one.weights = tu_buffer(ctx, one.vocab * DIM * 4, w + start * DIM);
        split(ctx, SINPE_F32, (const unsigned char *)(w + start * DIM), one.vocab, 0, DIM,
              list, rows);
        parts = one;
        parts.weights = NULL;
        parts.weights_count = PARTS;
        parts.weights_list = list;
        parts.weights_rows = rows;
        snprintf(what, sizeof what, "%s shard %zu of %s",
                 kind == SINPE_SHARD_OWNER ? "OWNER" : "ROWS", k, sinpe_preset_name(preset));
        same_calls(ctx, tab, q, &one, &parts, bytes, what);
        for (int j = 0; j < PARTS; j++)
            clReleaseMemObject(list[j]);
        clReleaseMemObject(one.weights);
    }
    TU_RELEASE(ctx, q, tab, ids_m);
}
END_TEST

/*
 * A table larger than the device's largest allocation
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE), in three buffers each within it, read
 * exactly (a gather of fp16 weights into fp32 is the weights' values).
 * Where that allocation is large (8 GiB on pocl), the table is sized
 * against a limit of 1 MiB instead, the same logic at a size a test can
 * afford; a device whose limit is at most 256 MiB gets the real thing,
 * and the one buffer the table would need is shown to be refused.
 */
START_TEST(parts_past_one_allocation)
{
    enum { DIM = 256 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    cl_ulong max_alloc = 0;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                          sizeof max_alloc, &max_alloc, NULL));
    int real = max_alloc <= ((cl_ulong)256 << 20);
    size_t limit = real ? (size_t)max_alloc : (size_t)1 << 20, row = DIM * 2;
    size_t per = limit / row, vocab = 2 * per + per / 2; /* 2.5 allocations */
    size_t rows[PARTS] = {per, per, vocab - 2 * per};
    ck_assert_msg(vocab * row > limit, "the table fits one allocation of %zu", limit);
    if (real) {
        cl_int err;
        cl_mem too_big = clCreateBuffer(sinpe_context_cl_context(ctx), CL_MEM_READ_ONLY,
                                        vocab * row, NULL, &err);
        ck_assert_msg(too_big == NULL && err != CL_SUCCESS,
                      "a buffer of %zu bytes, over CL_DEVICE_MAX_MEM_ALLOC_SIZE %zu, was made",
                      vocab * row, (size_t)max_alloc);
    }
    cl_mem list[PARTS];
    uint16_t *rowv = tu_malloc(row);
    for (size_t j = 0, first = 0; j < PARTS; first += rows[j++]) {
        cl_int err;
        list[j] = clCreateBuffer(sinpe_context_cl_context(ctx), CL_MEM_READ_ONLY, rows[j] * row,
                                 NULL, &err);
        TU_CL(err);
        /* Row r holds r's low and high 16 bits as fp16 bit patterns (finite ones). */
        for (size_t r = first; r < first + rows[j]; r += rows[j] - 1) {
            for (size_t c = 0; c < DIM; c++)
                rowv[c] = (uint16_t)((c % 2 ? r >> 8 : r) & 0x3bff);
            tu_write(q, list[j], (r - first) * row, row, rowv);
            if (rows[j] == 1)
                break;
        }
    }
    /* The first and last row of each buffer. */
    int32_t ids[2 * PARTS];
    for (size_t j = 0, first = 0; j < PARTS; first += rows[j++]) {
        ids[2 * j] = (int32_t)first;
        ids[2 * j + 1] = (int32_t)(first + rows[j] - 1);
    }
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, 2 * PARTS * DIM);
    sinpe_table *tab = tu_table(ctx, DIM, 4);
    sinpe_embed_args a = tu_args(1, 2 * PARTS, ids_m, NULL, vocab, out_m);
    a.weights_dtype = SINPE_F16;
    a.weights_count = PARTS;
    a.weights_list = list;
    a.weights_rows = rows;
    TU_OK(sinpe_enqueue_gather(tab, q, &a, 0, NULL, NULL));
    float *got = tu_read_floats(q, out_m, 2 * PARTS * DIM);
    for (size_t k = 0; k < 2 * PARTS; k++)
        for (size_t c = 0; c < DIM; c++) {
            uint16_t h = (uint16_t)((c % 2 ? (uint32_t)ids[k] >> 8 : (uint32_t)ids[k]) & 0x3bff);
            float want = fr_f16_to_f32(h);
            TU_CHECK(got[k * DIM + c] == want, "row %d col %zu (limit %zu, %s): got %a, want %a",
                     (int)ids[k], c, limit, real ? "the device's" : "assumed",
                     (double)got[k * DIM + c], (double)want);
        }
    TU_RELEASE(ctx, q, tab, ids_m, out_m, list[0], list[1], list[2]);
    TU_FREE(got, rowv);
}
END_TEST

/* Hostile lists: each call refused with its status, the argument named,
   nothing written (the output keeps its poison, the counter its zero). */
START_TEST(parts_bad_input)
{
    enum { DIM = 8, VOCAB = 6 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 8);
    int32_t ids[4] = {0, 3, 2, 5}, zero = 0;
    float w[VOCAB * DIM] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), out_m = tu_poisoned_buffer(ctx, q, 4 * DIM);
    cl_mem bad_m = tu_buffer(ctx, sizeof zero, &zero);
    cl_mem list[SINPE_WEIGHTS_MAX + 1], small = tu_buffer(ctx, 2 * DIM * 4 - 4, w);
    size_t rows[SINPE_WEIGHTS_MAX + 1] = {2, 2, 2};
    for (int j = 0; j < SINPE_WEIGHTS_MAX + 1; j++)
        list[j] = tu_buffer(ctx, 2 * DIM * 4, w);
    cl_int err;
    cl_context octx = tu_other_cl_context(ctx);
    cl_mem other = clCreateBuffer(octx, CL_MEM_READ_WRITE, 2 * DIM * 4, NULL, &err);
    TU_CL(err);
    sinpe_embed_args base = tu_args(1, 4, ids_m, NULL, VOCAB, out_m), a;
    base.bad_ids = bad_m;
    base.weights_count = 3;
    base.weights_list = list;
    base.weights_rows = rows;
    TU_OK(sinpe_enqueue_embed(tab, q, &base, 0, NULL, NULL)); /* the base is valid */
    TU_CL(clFinish(q));
    tu_write(q, bad_m, 0, sizeof zero, &zero);
    TU_CL(clReleaseMemObject(out_m));
    base.out = out_m = tu_poisoned_buffer(ctx, q, 4 * DIM);

    size_t sum_low[3] = {2, 2, 1}, sum_high[3] = {2, 2, 3}, a_zero[3] = {2, 0, 4};
    size_t ones[SINPE_WEIGHTS_MAX + 1];
    for (int j = 0; j < SINPE_WEIGHTS_MAX + 1; j++)
        ones[j] = 1;
#define EXPECT(change, status, words) \
    (a = base, change, tu_expect_refused(tab, q, &a, 1, status, words, #change))
    EXPECT(a.weights_rows = sum_low, SINPE_INVALID_SHAPE, "weights_rows sum to 5, not vocab 6");
    EXPECT(a.weights_rows = sum_high, SINPE_INVALID_SHAPE, "weights_rows[2]");
    EXPECT(a.weights_rows = a_zero, SINPE_INVALID_SHAPE, "weights_rows[1]");
    EXPECT(a.vocab = 7, SINPE_INVALID_SHAPE, "not vocab 7");
    cl_mem hostile[3][3] = {{list[0], NULL, list[2]}, {list[0], list[1], small},
                            {other, list[1], list[2]}};
    EXPECT(a.weights_list = hostile[0], SINPE_NULL_ARGUMENT, "args->weights_list[1] is NULL");
    EXPECT(a.weights_list = hostile[1], SINPE_BUFFER_TOO_SMALL, "args->weights_list[2]");
    EXPECT(a.weights_list = hostile[2], SINPE_CONTEXT_MISMATCH, "args->weights_list[0]");
    EXPECT((a.weights_count = SINPE_WEIGHTS_MAX + 1, a.weights_rows = ones,
            a.vocab = SINPE_WEIGHTS_MAX + 1),
           SINPE_TOO_LARGE, "SINPE_WEIGHTS_MAX");
    EXPECT(a.weights_list = NULL, SINPE_NULL_ARGUMENT, "args->weights_list is NULL");
    EXPECT(a.weights_rows = NULL, SINPE_NULL_ARGUMENT, "args->weights_rows is NULL");
    EXPECT(a.weights = list[0], SINPE_INVALID_OPTION, "args->weights is given");
    EXPECT(a.weights_stride = DIM + 1, SINPE_BUFFER_TOO_SMALL, "args->weights_list[0]");
#undef EXPECT
    /* At the limit: SINPE_WEIGHTS_MAX buffers of one row each. */
    a = base;
    a.weights_count = SINPE_WEIGHTS_MAX;
    a.weights_rows = ones;
    a.vocab = SINPE_WEIGHTS_MAX;
    TU_CL(clFinish(q));
    tu_check_buffer_poison(q, out_m, 4 * DIM, "refused lists");
    int32_t count = -1;
    tu_read(q, bad_m, 0, sizeof count, &count);
    ck_assert_msg(count == 0, "a refused call counted %d bad ids", (int)count);
    /* Buffer j's one row holds j + 1 in every column: the gather of ids
       0, 3, 2, 5 reads the first, fourth and third buffers, and a bad id. */
    for (int j = 0; j < SINPE_WEIGHTS_MAX; j++) {
        float v = (float)(j + 1);
        TU_CL(clEnqueueFillBuffer(q, list[j], &v, sizeof v, 0, DIM * sizeof v, 0, NULL, NULL));
    }
    TU_OK(sinpe_enqueue_gather(tab, q, &a, 0, NULL, NULL));
    float *got = tu_read_floats(q, out_m, 4 * DIM);
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < DIM; c++)
            TU_CHECK(got[k * DIM + c] == (ids[k] < SINPE_WEIGHTS_MAX ? ids[k] + 1.0f : 0.0f),
                     "%d buffers: id %d col %d reads %g", SINPE_WEIGHTS_MAX, (int)ids[k], c,
                     (double)got[k * DIM + c]);
    free(got);

    for (int j = 0; j < SINPE_WEIGHTS_MAX + 1; j++)
        clReleaseMemObject(list[j]);
    TU_RELEASE(ctx, q, tab, ids_m, out_m, bad_m, small, other);
    clReleaseContext(octx);
}
END_TEST

void tcase_shard_parts(Suite *s)
{
    /* Tag "cold": every weights type's program, built from source on a
       compiler without a cache of its own (8 min on Intel's): make
       check-intel, check-records and check-asan leave it out, make test
       runs it.  The other cases need the F16 weights' program alone. */
    TCase *tc = tu_tcase(s, "parts_types", "cold");
    tcase_add_loop_test(tc, parts_every_type, 0, 2 * SINPE_Q6_K + 2);
    tc = tu_tcase(s, "parts", NULL);
    tcase_add_test(tc, parts_sub_buffers);
    tcase_add_loop_test(tc, parts_in_shards, 0, 4);
    tcase_add_test(tc, parts_past_one_allocation);
    tcase_add_test(tc, parts_bad_input);
}
