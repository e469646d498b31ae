/* test_kquant.c -- ggml's 4-, 5- and 6-bit block types (Q4_0, Q4_1, Q5_0,
 * Q5_1, Q4_K, Q5_K, Q6_K) as weights, and sinpe_quantize's Q4_0 .. Q5_1.
 *
 * The reference decoder (ref_load, tests/grind/ref.c) is written from
 * ggml's block layouts in float64, each value rounded once to float32:
 * the device's gather of random valid blocks (every code, fp16 scales
 * subnormal and negative among them) equals it bit for bit; the fused,
 * gather and add calls equal the same calls over the float32 table of the
 * decoded weights; hostile shapes get their statuses with nothing
 * written.  python/tests/test_kquant_gguf.py checks the same decoders and
 * the quantizer against the gguf package's. */
#include "family_ref.h"
#include "sinpe_internal.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sinpe_dtype kq_types[] = {SINPE_Q4_0, SINPE_Q4_1, SINPE_Q5_0, SINPE_Q5_1,
                                       SINPE_Q4_K, SINPE_Q5_K, SINPE_Q6_K};
#define KQ_N (int)(sizeof kq_types / sizeof kq_types[0])

/* Loop index _i: the type.  rows x dim weights of random blocks, read
   from an offset of one block with a stride of three rows' blocks; the
   gather (token_scale 1, fp32) writes every value as ref_load gives it,
   into poison, each token's row in turn. */
START_TEST(kquant_decode_exact)
{
    sinpe_dtype t = kq_types[_i];
    const sinpe_dtype_info *f = sinpe__dtype(t);
    size_t bv = f->block_values, dim = 2 * bv, rows = 24, stride = 3 * bv, off = bv;
    size_t values = off + rows * stride, tokens = rows + 5;
    tu_rng rng;
    tu_rng_init(&rng, f->name);
    unsigned char *w = tu_malloc(sinpe_dtype_bytes(t, values));
    tu_random_blocks(t, w, values / bv, &rng);
    int32_t *ids = tu_malloc(tokens * sizeof *ids);
    for (size_t k = 0; k < tokens; k++)
        ids[k] = (int32_t)((k * 7) % rows);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, dim, 4);
    sinpe_embed_args a =
        tu_args(1, tokens, tu_buffer(ctx, tokens * sizeof *ids, ids),
                tu_buffer(ctx, sinpe_dtype_bytes(t, values), w), rows,
                tu_poisoned_buffer(ctx, cq, tokens * dim));
    a.weights_dtype = t;
    a.weights_offset = off;
    a.weights_stride = stride;
    for (int call = 0; call < 2; call++) { /* gather; fused with PE left out */
        TU_CL(clEnqueueFillBuffer(cq, a.out, &(float){tu_poison()}, 4, 0, tokens * dim * 4, 0,
                                  NULL, NULL));
        a.skip_pe = call;
        TU_OK(call ? sinpe_enqueue_embed(tab, cq, &a, 0, NULL, NULL)
                   : sinpe_enqueue_gather(tab, cq, &a, 0, NULL, NULL));
        float *got = tu_read_floats(cq, a.out, tokens * dim);
        for (size_t k = 0; k < tokens; k++)
            for (size_t c = 0; c < dim; c++) {
                float want = (float)ref_load(t, w, off + (size_t)ids[k] * stride + c);
                float g = got[k * dim + c];
                TU_CHECK(fr_f32_bits(g) == fr_f32_bits(want),
                         "%s call %d: row %d col %zu: got %a (0x%08x), want %a (0x%08x)",
                         f->name, call, ids[k], c, (double)g, fr_f32_bits(g), (double)want,
                         fr_f32_bits(want));
            }
        free(got);
    }
    TU_RELEASE(ctx, cq, tab, a.ids, a.weights, a.out);
    TU_FREE(w, ids);
}
END_TEST

/* A context under a record whose fused and gather calls take STREAM
   wherever the output allows it: the 32-value lines of sinpe_qload32,
   which calls this small never reach under a device's own record. */
static sinpe_context *kq_streamed_context(void)
{
    sinpe_context_options options;
    sinpe_context *ctx = NULL;
    sinpe_context_options_init(&options);
    options.tuning = "aligned = 1; stream = 1; stream_bytes = 0";
    TU_OK(sinpe_context_create(&options, &ctx));
    return ctx;
}

/* Loop index _i: type x output type, under the device's record then
   streamed.  Fused, gather then add, with explicit positions some past
   the table, a token scale, a few bad ids: the bytes of the same calls
   over the float32 table of the decoded weights (which the other suites
   check against float64). */
START_TEST(kquant_calls_match_float_table)
{
    int streamed = _i >= 3 * KQ_N;
    sinpe_dtype t = kq_types[_i / 3 % KQ_N], ot = (sinpe_dtype)(_i % 3);
    const sinpe_dtype_info *f = sinpe__dtype(t);
    enum { NS = 2, SL = 13, ROWS = 20 };
    size_t dim = 2 * f->block_values, n = NS * SL, bytes = n * dim * (ot == SINPE_F32 ? 4 : 2);
    tu_rng rng;
    tu_rng_init(&rng, "kquant calls");
    unsigned char *w = tu_malloc(sinpe_dtype_bytes(t, ROWS * dim));
    float *wf = tu_malloc(ROWS * dim * sizeof *wf);
    tu_random_blocks(t, w, ROWS * dim / f->block_values, &rng);
    for (size_t i = 0; i < ROWS * dim; i++)
        wf[i] = (float)ref_load(t, w, i);
    int32_t ids[NS * SL], pos[NS * SL];
    for (size_t k = 0; k < n; k++) {
        ids[k] = tu_rng_int(&rng, -1, ROWS); /* a few outside the rows */
        pos[k] = tu_rng_int(&rng, 0, 40);    /* some past the table's 24 rows */
    }
    sinpe_context *ctx = streamed ? kq_streamed_context() : tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, dim, 24);
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), pos_m = tu_buffer(ctx, sizeof pos, pos);
    cl_mem w_m = tu_buffer(ctx, sinpe_dtype_bytes(t, ROWS * dim), w);
    cl_mem wf_m = tu_buffer(ctx, ROWS * dim * sizeof *wf, wf);
    for (int call = 0; call < 3; call++) {
        unsigned char *got[2];
        for (int side = 0; side < 2; side++) { /* the blocks, then the float32 table */
            sinpe_embed_args a = tu_args(NS, SL, ids_m, side ? wf_m : w_m, ROWS, NULL);
            a.weights_dtype = side ? SINPE_F32 : t;
            a.out_dtype = ot;
            a.token_scale = 3.25f;
            a.positions = pos_m;
            got[side] = tu_call_bytes(ctx, tab, cq, &a, call, bytes, side ? 0x5a : 0xa5);
        }
        ck_assert_msg(memcmp(got[0], got[1], bytes) == 0,
                      "%s weights, out %d, call %d%s: the bytes differ from the float32 "
                      "table's (or an element was left unwritten)",
                      f->name, (int)ot, call, streamed ? ", streamed" : "");
        TU_FREE(got[0], got[1]);
    }
    TU_RELEASE(ctx, cq, tab, ids_m, pos_m, w_m, wf_m);
    TU_FREE(w, wf);
}
END_TEST

/* Loop index _i: the type.  Shapes inside a block, a buffer too small, a
   block type as output: each call refused with its status and the
   argument named, the output untouched. */
START_TEST(kquant_bad_input)
{
    sinpe_dtype t = kq_types[_i];
    const sinpe_dtype_info *f = sinpe__dtype(t);
    size_t bv = f->block_values, dim = 2 * bv, rows = 4;
    enum { N = 6 };
    int32_t ids[N] = {0, 1, 2, 3, 0, 1};
    size_t wbytes = sinpe_dtype_bytes(t, rows * dim);
    unsigned char *w = tu_malloc(wbytes);
    memset(w, 0x11, wbytes);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, dim, 8);
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, wbytes, w);
    cl_mem out_m = tu_poisoned_buffer(ctx, cq, N * dim);
    sinpe_embed_args base = tu_args(2, 3, ids_m, w_m, rows, out_m), a;
    base.weights_dtype = t;

#define EXPECT(field_change, status, words) \
    (a = base, field_change, tu_expect_refused(tab, cq, &a, 1, status, words, #field_change))
    EXPECT(a.weights_offset = bv / 2, SINPE_INVALID_SHAPE, "weights_offset");
    EXPECT(a.weights_offset = 4, SINPE_INVALID_SHAPE, "weights_offset");
    EXPECT(a.weights_stride = dim + bv / 2, SINPE_INVALID_SHAPE, "weights_stride");
    EXPECT(a.vocab = rows + 1, SINPE_BUFFER_TOO_SMALL, "args->weights");
    EXPECT((a.weights_offset = bv, a.vocab = rows), SINPE_BUFFER_TOO_SMALL, "args->weights");
    EXPECT(a.out_dtype = t, SINPE_INVALID_DTYPE, "weights-only");
#undef EXPECT
    /* A table whose dim is no whole number of blocks. */
    {
        sinpe_table *odd = tu_table(ctx, dim + bv / 2, 8);
        a = base;
        TU_STATUS(sinpe_enqueue_embed(odd, cq, &a, 0, NULL, NULL), SINPE_INVALID_SHAPE);
        TU_MESSAGE_HAS("dim");
        TU_STATUS(sinpe_enqueue_gather(odd, cq, &a, 0, NULL, NULL), SINPE_INVALID_SHAPE);
        sinpe_table_release(odd);
    }
    tu_check_buffer_poison(cq, out_m, N * dim, f->name);
    TU_RELEASE(ctx, cq, tab, ids_m, w_m, out_m);
    free(w);
}
END_TEST

/* ---- sinpe_quantize ---- */

/* Blocks whose codes ggml's reference quantizer gives by hand:
 *   Q4_0, x_j = j - 16: max -16, d = 2, q = trunc(x / 2 + 8.5) = (j + 1) / 2,
 *         15 at most;
 *   Q4_1, x_j = j % 16: min 0, d = 1, q = x;
 *   Q5_0, x_j = j - 16: d = 1, q = trunc(x + 16.5) = j;
 *   Q5_1, x_j = j: d = 1, q = j.
 * d (and m, 0) as fp16 first, then the nibbles, the fifth bits in qh. */
START_TEST(kquant_quantize_by_hand)
{
    static const sinpe_dtype types[] = {SINPE_Q4_0, SINPE_Q4_1, SINPE_Q5_0, SINPE_Q5_1};
    for (int k = 0; k < 4; k++) {
        sinpe_dtype t = types[k];
        const sinpe_dtype_info *f = sinpe__dtype(t);
        int with_min = t == SINPE_Q4_1 || t == SINPE_Q5_1, five = t == SINPE_Q5_0 || t == SINPE_Q5_1;
        float x[32];
        unsigned char got[24], want[24];
        unsigned code[32];
        uint32_t qh = 0;
        for (int j = 0; j < 32; j++) {
            x[j] = t == SINPE_Q4_0 || t == SINPE_Q5_0 ? (float)(j - 16)
                   : t == SINPE_Q4_1                  ? (float)(j % 16)
                                                      : (float)j;
            code[j] = t == SINPE_Q4_1 ? (unsigned)j % 16 : (unsigned)j;
            if (t == SINPE_Q4_0)
                code[j] = j == 31 ? 15u : ((unsigned)j + 1) / 2;
        }
        memset(want, 0, sizeof want);
        want[1] = t == SINPE_Q4_0 ? 0x40 : 0x3c; /* fp16 2.0, 1.0; m = +0 */
        unsigned char *qs = want + 2 + 2 * with_min + 4 * five;
        for (int j = 0; j < 16; j++) {
            qs[j] = (unsigned char)((code[j] & 15) | (code[j + 16] & 15) << 4);
            qh |= (uint32_t)(code[j] >> 4) << j | (uint32_t)(code[j + 16] >> 4) << (j + 16);
        }
        for (int b = 0; five && b < 4; b++)
            want[2 + 2 * with_min + b] = (unsigned char)(qh >> 8 * b);
        memset(got, 0xee, sizeof got);
        TU_OK(sinpe_quantize(t, x, 1, 32, got, f->block_bytes, NULL, SINPE_F32));
        for (size_t b = 0; b < f->block_bytes; b++)
            TU_CHECK(got[b] == want[b], "%s byte %zu: 0x%02x, want 0x%02x", f->name, b, got[b],
                     want[b]);
        TU_CHECK(f->block_bytes == sizeof got || got[f->block_bytes] == 0xee,
                 "%s wrote past its block", f->name);
    }
}
END_TEST

/* Random rows through sinpe_quantize decode to within half a step d of
   each value (plus the fp16 rounding of d and m), every block. */
START_TEST(kquant_quantize_round_trip)
{
    static const sinpe_dtype types[] = {SINPE_Q4_0, SINPE_Q4_1, SINPE_Q5_0, SINPE_Q5_1};
    enum { ROWS = 6, DIM = 96 };
    tu_rng rng;
    tu_rng_init(&rng, "kquant quantize");
    float x[ROWS * DIM];
    tu_rng_floats(&rng, x, ROWS * DIM, -4.0f, 4.0f);
    for (int k = 0; k < 4; k++) {
        sinpe_dtype t = types[k];
        const sinpe_dtype_info *f = sinpe__dtype(t);
        size_t bytes = sinpe_dtype_bytes(t, ROWS * DIM);
        unsigned char *q = tu_malloc(bytes);
        TU_OK(sinpe_quantize(t, x, ROWS, DIM, q, bytes, NULL, SINPE_F32));
        for (size_t b = 0; b < ROWS * DIM / 32; b++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int j = 0; j < 32; j++) {
                lo = fmin(lo, x[32 * b + j]);
                hi = fmax(hi, x[32 * b + j]);
            }
            double step = (hi - lo) / f->largest, tol = step * 0.51 + 1e-2 * (hi - lo);
            for (int j = 0; j < 32; j++) {
                double v = ref_load(t, q, 32 * b + j), e = fabs(v - x[32 * b + j]);
                TU_CHECK(e <= tol, "%s value %zu: %g decodes to %g", f->name, 32 * b + j,
                         (double)x[32 * b + j], v);
            }
        }
        free(q);
    }
}
END_TEST

/* The k-quants are not written; a d or m past fp16, a value not finite, a
   dim of no whole block and a small dst are refused, nothing written. */
START_TEST(kquant_quantize_refusals)
{
    float x[64];
    unsigned char dst[2 * 210];
    for (int j = 0; j < 64; j++)
        x[j] = (float)j;
    for (int k = 0; k < KQ_N; k++) {
        sinpe_dtype t = kq_types[k];
        const sinpe_dtype_info *f = sinpe__dtype(t);
        size_t need = sinpe_dtype_bytes(t, 64);
        memset(dst, 0xee, sizeof dst);
        if (f->block_values == 256) {
            TU_STATUS(sinpe_quantize(t, x, 1, 256, dst, sizeof dst, NULL, SINPE_F32),
                      SINPE_INVALID_DTYPE);
            TU_MESSAGE_HAS("k-quant");
        } else {
            TU_STATUS(sinpe_quantize(t, x, 1, 48, dst, sizeof dst, NULL, SINPE_F32),
                      SINPE_INVALID_SHAPE);
            TU_STATUS(sinpe_quantize(t, x, 1, 64, dst, need - 1, NULL, SINPE_F32),
                      SINPE_BUFFER_TOO_SMALL);
            TU_MESSAGE_HAS("dst");
            x[40] = 1e7f; /* the second block's d past fp16's 65504 */
            TU_STATUS(sinpe_quantize(t, x, 1, 64, dst, need, NULL, SINPE_F32),
                      SINPE_INVALID_OPTION);
            TU_MESSAGE_HAS("block 1");
            x[40] = NAN;
            TU_STATUS(sinpe_quantize(t, x, 1, 64, dst, need, NULL, SINPE_F32),
                      SINPE_INVALID_OPTION);
            TU_MESSAGE_HAS("src[40]");
            x[40] = 40.0f;
        }
        for (size_t b = 0; b < sizeof dst; b++)
            TU_CHECK(dst[b] == 0xee, "%s: byte %zu written by a refused call", f->name, b);
    }
}
END_TEST

/* sinpe_dtype_bytes: whole blocks, a partial one counted whole. */
START_TEST(kquant_dtype_bytes)
{
    static const size_t bytes[KQ_N] = {18, 20, 22, 24, 144, 176, 210};
    for (int k = 0; k < KQ_N; k++) {
        size_t bv = sinpe__dtype(kq_types[k])->block_values;
        ck_assert_uint_eq(sinpe_dtype_bytes(kq_types[k], 3 * bv), 3 * bytes[k]);
        ck_assert_uint_eq(sinpe_dtype_bytes(kq_types[k], 3 * bv + 1), 4 * bytes[k]);
    }
}
END_TEST

/*
 * Loop index _i: the type.  Per-layer embeddings (Gemma 3n): a table of
 * [ROWS, LAYERS x width] values, each row the layers' slices side by
 * side; layer l's slice is weights_offset l x width, weights_stride
 * LAYERS x width, dim width.  With width one block (256 values for the
 * k-quants) every layer's gather is ref_load's values, from one buffer
 * and from the table in three; a width of half a block puts the slices'
 * edges inside blocks and is refused, naming dim and weights_offset.
 */
START_TEST(kquant_per_layer_slice)
{
    enum { ROWS = 9, LAYERS = 3, N = 7 };
    sinpe_dtype t = kq_types[_i];
    const sinpe_dtype_info *f = sinpe__dtype(t);
    size_t width = f->block_values, stride = LAYERS * width;
    size_t wbytes = sinpe_dtype_bytes(t, ROWS * stride);
    tu_rng rng;
    tu_rng_init(&rng, "per-layer slices");
    unsigned char *w = tu_malloc(wbytes);
    tu_random_blocks(t, w, ROWS * LAYERS, &rng);
    int32_t ids[N] = {0, 8, 3, 4, 5, 1, 7};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, width, 8), *half = tu_table(ctx, width / 2, 8);
    cl_mem list[3];
    size_t rows[3] = {3, 3, 3};
    for (int j = 0; j < 3; j++)
        list[j] = tu_buffer(ctx, wbytes / 3, w + j * (wbytes / 3));
    sinpe_embed_args a = tu_args(1, N, tu_buffer(ctx, sizeof ids, ids),
                                 tu_buffer(ctx, wbytes, w), ROWS,
                                 tu_poisoned_buffer(ctx, cq, N * width));
    a.weights_dtype = t;
    a.weights_stride = stride;
    for (int parts = 0; parts < 2; parts++)
        for (size_t l = 0; l < LAYERS; l++) {
            sinpe_embed_args s = a;
            s.weights_offset = l * width;
            if (parts) {
                s.weights = NULL;
                s.weights_count = 3;
                s.weights_list = list;
                s.weights_rows = rows;
            }
            TU_OK(sinpe_enqueue_gather(tab, cq, &s, 0, NULL, NULL));
            float *got = tu_read_floats(cq, a.out, N * width);
            for (size_t k = 0; k < N; k++)
                for (size_t c = 0; c < width; c++) {
                    float want = (float)ref_load(t, w, (size_t)ids[k] * stride + l * width + c);
                    TU_CHECK(fr_f32_bits(got[k * width + c]) == fr_f32_bits(want),
                             "%s layer %zu (%s): row %d col %zu: got %a, want %a", f->name, l,
                             parts ? "three buffers" : "one", ids[k], c,
                             (double)got[k * width + c], (double)want);
                }
            free(got);
        }
    TU_CL(clEnqueueFillBuffer(cq, a.out, &(float){tu_poison()}, 4, 0, N * width * 4, 0, NULL,
                              NULL));
    a.weights_stride = LAYERS * (width / 2);
    a.weights_offset = width / 2; /* layer 1 of slices half a block wide */
    tu_expect_refused(half, cq, &a, 1, SINPE_INVALID_SHAPE, "multiples of its block",
                      "a slice inside a block");
    TU_MESSAGE_HAS("weights_offset");
    tu_check_buffer_poison(cq, a.out, N * width, "refused slices");
    TU_RELEASE(ctx, cq, tab, a.ids, a.weights, a.out, list[0], list[1], list[2]);
    sinpe_table_release(half);
    free(w);
}
END_TEST

TU_SUITE(kquant, 52)
{
    Suite *s = suite_create("kquant");
    TCase *tc = tcase_create("host");
    TU_ADD(tc, kquant_quantize_by_hand, kquant_quantize_round_trip, kquant_quantize_refusals,
           kquant_dtype_bytes);
    suite_add_tcase(s, tc);
    tc = tu_tcase(s, "device", NULL);
    tcase_add_loop_test(tc, kquant_decode_exact, 0, KQ_N);
    tcase_add_loop_test(tc, kquant_calls_match_float_table, 0, 6 * KQ_N);
    tcase_add_loop_test(tc, kquant_bad_input, 0, KQ_N);
    tcase_add_loop_test(tc, kquant_per_layer_slice, 0, KQ_N);
    return s;
}
