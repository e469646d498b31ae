/* test_quant.c -- the quantized weight types (I8 with row scales, ggml's
 * Q8_0 blocks, OCP FP8 E4M3 and E5M2) and sinpe_quantize.
 *
 * The decoders (ref_load, tests/grind/ref.c) are written from the layouts'
 * public descriptions (OCP 8-bit floating point specification, ggml's
 * block_q8_0), in float64, apart from the library's.  Every FP8 code and
 * every int8 value is decoded through the fused call and compared with
 * them; then the fused, gather and add calls over quantized weights are
 * compared byte for byte with the same calls over the float32 table that
 * holds the decoded weights, which the other suites check against float64
 * references: the kernels compute token_scale * w + PE from the same w
 * either way. */
#include "family_ref.h"
#include "sinpe_internal.h"
#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- A quantized table on the device ---- */

typedef struct qtab {
    sinpe_dtype type;
    size_t rows, dim;
    unsigned char *bytes;  /* the layout */
    float *scales;         /* per row (F32), or NULL */
    uint16_t *scales16;    /* per row (F16), or NULL */
    float tensor_scale;    /* FP8 without row scales */
    float *w;              /* the weights, decoded and scaled, as float32 */
} qtab;

/* The float32 weight of row r, column c: v rounded once with its scale. */
static float ref_weight(const qtab *q, size_t r, size_t c)
{
    double v = ref_load(q->type, q->bytes, r * q->dim + c);
    double s = q->scales     ? q->scales[r]
               : q->scales16 ? fr_f16_to_f32(q->scales16[r])
               : q->type == SINPE_FP8_E4M3 || q->type == SINPE_FP8_E5M2 ? q->tensor_scale
                                                                          : 1.0;
    return (float)(v * s); /* v and s exact: one rounding */
}

static void qtab_decode(qtab *q)
{
    q->w = tu_malloc(q->rows * q->dim * sizeof *q->w);
    for (size_t r = 0; r < q->rows; r++)
        for (size_t c = 0; c < q->dim; c++)
            q->w[r * q->dim + c] = ref_weight(q, r, c);
}

/* Frees the decoded weights and the row scales, keeping the layout. */
static void qtab_drop_scales(qtab *q)
{
    TU_FREE(q->w, q->scales, q->scales16);
    q->w = NULL, q->scales = NULL, q->scales16 = NULL;
}

/* An empty table of rows x dim values of type: the layout's bytes unset. */
static void qtab_new(qtab *q, sinpe_dtype type, size_t rows, size_t dim)
{
    *q = (qtab){.type = type, .rows = rows, .dim = dim,
                .bytes = tu_malloc(ref_dtype_bytes(type, rows * dim))};
}

static void qtab_free(qtab *q)
{
    qtab_drop_scales(q);
    free(q->bytes);
}

/* The arguments of a call on q's weights (the buffers made in ctx). */
static void q_args(sinpe_embed_args *a, sinpe_context *ctx, const qtab *q, cl_mem *bufs)
{
    bufs[0] = tu_buffer(ctx, ref_dtype_bytes(q->type, q->rows * q->dim), q->bytes);
    bufs[1] = q->scales     ? tu_buffer(ctx, q->rows * 4, q->scales)
              : q->scales16 ? tu_buffer(ctx, q->rows * 2, q->scales16)
                            : NULL;
    a->weights = bufs[0];
    a->weights_dtype = q->type;
    a->vocab = q->rows;
    a->weight_scales = bufs[1];
    a->weight_scales_dtype = q->scales16 ? SINPE_F16 : SINPE_F32;
    a->weights_scale = q->tensor_scale;
}

/* Decodes q's weights, then asserts that every token's fused output with PE
 * left out and token_scale 1, fp32, holds them bit for bit (NaN for NaN):
 * row t % rows for token t. */
static void check_decoded(sinpe_context *ctx, qtab *q, size_t tokens, const char *what)
{
    cl_command_queue cq = tu_queue(ctx);
    cl_mem bufs[2];
    int32_t *ids = tu_malloc(tokens * sizeof *ids);
    for (size_t t = 0; t < tokens; t++)
        ids[t] = (int32_t)(t % q->rows);
    qtab_decode(q);
    sinpe_table *tab = tu_table(ctx, q->dim, 4);
    sinpe_embed_args a = tu_args(1, tokens, tu_buffer(ctx, tokens * sizeof *ids, ids), NULL, 0,
                                 tu_poisoned_buffer(ctx, cq, tokens * q->dim));
    q_args(&a, ctx, q, bufs);
    a.skip_pe = 1;
    TU_OK(sinpe_enqueue_embed(tab, cq, &a, 0, NULL, NULL));
    float *got = tu_read_floats(cq, a.out, tokens * q->dim);
    TU_RELEASE(NULL, cq, tab, a.ids, a.out, bufs[0], bufs[1]);
    free(ids);
    for (size_t t = 0; t < tokens; t++)
        for (size_t c = 0; c < q->dim; c++) {
            float want = q->w[(t % q->rows) * q->dim + c], g = got[t * q->dim + c];
            TU_CHECK(isnan(want) ? isnan(g) : fr_f32_bits(g) == fr_f32_bits(want),
                     "%s: row %zu col %zu: got %a (0x%08x), want %a (0x%08x)", what,
                     t % q->rows, c, (double)g, fr_f32_bits(g), (double)want,
                     fr_f32_bits(want));
        }
    free(got);
}

/* ---- Every code ---- */

/* _i: 0 E4M3, 1 E5M2; each with scale 1, a tensor scale, fp32 row scales
   and fp16 row scales (subnormal to largest). */
START_TEST(quant_fp8_every_code)
{
    static const float tensor_scales[] = {1.0f, 0.3f};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    qtab q;
    qtab_new(&q, _i ? SINPE_FP8_E5M2 : SINPE_FP8_E4M3, 256, 16);
    for (size_t r = 0; r < q.rows; r++) /* row r starts at code r, every code in each column */
        for (size_t c = 0; c < q.dim; c++)
            q.bytes[r * q.dim + c] = (unsigned char)(r + 17 * c);
    for (int mode = 0; mode < 4; mode++) {
        char what[64];
        tu_rng rng;
        tu_rng_init(&rng, "fp8 scales");
        qtab_drop_scales(&q);
        q.tensor_scale = tensor_scales[mode & 1];
        if (mode == 2) {
            q.scales = tu_malloc(q.rows * sizeof *q.scales);
            for (size_t r = 0; r < q.rows; r++)
                q.scales[r] = ldexpf(tu_rng_float(&rng, 1.0f, 2.0f), tu_rng_int(&rng, -60, 60));
        } else if (mode == 3) {
            q.scales16 = tu_malloc(q.rows * sizeof *q.scales16);
            for (size_t r = 0; r < q.rows; r++)
                q.scales16[r] = (uint16_t)tu_rng_int(&rng, 0x0001, 0x7bff);
        }
        snprintf(what, sizeof what, "%s, scale mode %d", _i ? "E5M2" : "E4M3", mode);
        check_decoded(ctx, &q, q.rows, what);
    }
    qtab_free(&q);
    sinpe_context_release(ctx);
}
END_TEST

/* Every int8 value, under fp32 scales from the smallest normal to 1e37
   and fp16 scales from the smallest subnormal to 65504. */
START_TEST(quant_i8_every_value)
{
    static const float f32_scales[] = {0x1p-126f, 3e-30f, 1e-3f, 0.75f, 1.0f, 1234.5f, 1e30f,
                                       1e37f};
    static const uint16_t f16_scales[] = {0x0001, 0x03ff, 0x0400, 0x2e66, 0x3c00, 0x7bff};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    qtab q;
    qtab_new(&q, SINPE_I8, 14, 256);
    for (size_t r = 0; r < q.rows; r++)
        for (size_t c = 0; c < q.dim; c++)
            q.bytes[r * q.dim + c] = (unsigned char)(c + r);
    for (int f16 = 0; f16 < 2; f16++) {
        qtab_drop_scales(&q);
        if (f16) {
            q.scales16 = tu_malloc(q.rows * sizeof *q.scales16);
            for (size_t r = 0; r < q.rows; r++)
                q.scales16[r] = f16_scales[r % 6];
        } else {
            q.scales = tu_malloc(q.rows * sizeof *q.scales);
            for (size_t r = 0; r < q.rows; r++)
                q.scales[r] = (r & 1 ? -1.0f : 1.0f) * f32_scales[r % 8];
        }
        check_decoded(ctx, &q, 2 * q.rows, f16 ? "I8, fp16 scales" : "I8, fp32 scales");
    }
    qtab_free(&q);
    sinpe_context_release(ctx);
}
END_TEST

/* Q8_0 blocks with random values and scales, subnormal and negative d
   among them, two blocks a row. */
START_TEST(quant_q80_blocks)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    tu_rng rng;
    qtab q;
    tu_rng_init(&rng, "q8_0");
    qtab_new(&q, SINPE_Q8_0, 40, 64);
    for (size_t b = 0; b < q.rows * q.dim / 32; b++) {
        uint16_t d = (uint16_t)tu_rng_int(&rng, 0, 0xfbff);
        if ((d & 0x7c00) == 0x7c00)
            d ^= 0x4000; /* no infinity or NaN scales here */
        q.bytes[34 * b] = (unsigned char)(d & 0xff);
        q.bytes[34 * b + 1] = (unsigned char)(d >> 8);
        for (int j = 0; j < 32; j++)
            q.bytes[34 * b + 2 + j] = (unsigned char)tu_rng_int(&rng, 0, 255);
    }
    check_decoded(ctx, &q, q.rows, "Q8_0");
    qtab_free(&q);
    sinpe_context_release(ctx);
}
END_TEST

/* ---- Every call, against the float32 table of the same weights ---- */

/* A random table of q's type: rows x dim (dim a multiple of 32). */
static void random_qtab(qtab *q, sinpe_dtype type, size_t rows, size_t dim, int f16_scales,
                        tu_rng *rng)
{
    float *x = tu_malloc(rows * dim * sizeof *x);
    qtab_new(q, type, rows, dim);
    q->tensor_scale = 1.0f;
    for (size_t i = 0; i < rows * dim; i++)
        x[i] = tu_rng_float(rng, -3.0f, 3.0f);
    if (type == SINPE_I8 || (type != SINPE_Q8_0 && f16_scales >= 0)) {
        if (f16_scales > 0)
            q->scales16 = tu_malloc(rows * 2);
        else
            q->scales = tu_malloc(rows * 4);
    }
    TU_OK(sinpe_quantize(type, x, rows, dim, q->bytes, ref_dtype_bytes(type, rows * dim),
                         q->scales16 ? (void *)q->scales16 : (void *)q->scales,
                         q->scales16 ? SINPE_F16 : SINPE_F32));
    qtab_decode(q);
    free(x);
}

/* The position sources, padding policies and shards each type runs under:
 * implicit positions (FAST), explicit ones with padding, a ROWS shard, a
 * (1, S) row of positions with per-sequence starts and pad counts, FAIRSEQ
 * positions, an OWNER shard.  positions: the explicit positions; starts:
 * seq_starts and pad_counts too. */
static const struct {
    int positions, broadcast, starts;
    sinpe_vocab_shard shard;
    sinpe_position_rule rule;
    int32_t pad_id;
    sinpe_pad_policy pad;
} qcases[] = {
    {0, 0, 0, SINPE_SHARD_NONE, SINPE_POSITIONS_INDEX, 0, SINPE_PAD_NONE},
    {1, 0, 0, SINPE_SHARD_NONE, SINPE_POSITIONS_INDEX, 7, SINPE_PAD_ZERO_PE},
    {1, 0, 0, SINPE_SHARD_ROWS, SINPE_POSITIONS_INDEX, 0, SINPE_PAD_NONE},
    {1, 1, 1, SINPE_SHARD_NONE, SINPE_POSITIONS_INDEX, 7, SINPE_PAD_ZERO_EMBEDDING},
    {0, 0, 0, SINPE_SHARD_NONE, SINPE_POSITIONS_FAIRSEQ, 1, SINPE_PAD_ZERO_OUTPUT},
    {1, 0, 0, SINPE_SHARD_OWNER, SINPE_POSITIONS_INDEX, 1, SINPE_PAD_ZERO_OUTPUT},
};
#define QC_N (int)(sizeof qcases / sizeof qcases[0])

/* Loop index _i: type (I8, Q8_0, E4M3, E5M2) x output type.  For each case,
 * fused, gather then add, and add alone over the quantized weights give the
 * bytes of the same calls over the decoded float32 table. */
START_TEST(quant_calls_match_float_table)
{
    static const sinpe_dtype types[] = {SINPE_I8, SINPE_Q8_0, SINPE_FP8_E4M3, SINPE_FP8_E5M2};
    sinpe_dtype type = types[_i / 3], ot = (sinpe_dtype)(_i % 3);
    enum { NS = 3, SL = 21, DIM = 64, ROWS = 50 };
    size_t n = NS * SL;
    tu_rng rng;
    qtab q;
    tu_rng_init(&rng, "quant calls");
    /* Row scales in fp32 or fp16; FP8 with a tensor scale in a third of the runs. */
    int fp8 = type == SINPE_FP8_E4M3 || type == SINPE_FP8_E5M2;
    random_qtab(&q, type, ROWS, DIM, fp8 && _i % 3 == 2 ? -1 : _i & 1, &rng);
    if (fp8 && _i % 3 == 2) {
        q.tensor_scale = 0.625f;
        free(q.w);
        qtab_decode(&q);
    }
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 40);
    int32_t ids[NS * SL], pos[NS * SL], starts[NS], pads[NS];
    for (size_t t = 0; t < n; t++) {
        ids[t] = tu_rng_int(&rng, -2, ROWS + 2); /* a few outside the rows held */
        pos[t] = tu_rng_int(&rng, 0, 80);        /* some past the table's 40 rows */
    }
    for (size_t b = 0; b < NS; b++) {
        starts[b] = tu_rng_int(&rng, 0, 30);
        pads[b] = tu_rng_int(&rng, 0, 4);
    }
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), pos_m = tu_buffer(ctx, sizeof pos, pos);
    cl_mem starts_m = tu_buffer(ctx, sizeof starts, starts);
    cl_mem pads_m = tu_buffer(ctx, sizeof pads, pads);
    cl_mem f32_m = tu_buffer(ctx, ROWS * DIM * sizeof(float), q.w), qbufs[2];
    size_t bytes = n * DIM * (ot == SINPE_F32 ? 4 : 2);
    for (int c = 0; c < QC_N; c++) {
        sinpe_embed_args a = tu_args(NS, SL, ids_m, NULL, 0, NULL), f;
        a.out_dtype = ot;
        a.token_scale = 5.5f;
        a.start = 2;
        a.positions = qcases[c].positions ? pos_m : NULL;
        a.positions_broadcast = qcases[c].broadcast;
        a.seq_starts = qcases[c].starts ? starts_m : NULL;
        a.pad_counts = qcases[c].starts ? pads_m : NULL;
        a.vocab_shard = qcases[c].shard;
        a.vocab_start = qcases[c].shard ? 10 : 0;
        a.vocab_total = qcases[c].shard ? ROWS + 5 : 0;
        a.position_rule = qcases[c].rule;
        a.pad_id = qcases[c].pad_id;
        a.pad_policy = qcases[c].pad;
        q_args(&a, ctx, &q, qbufs);
        f = a;
        f.weights = f32_m;
        f.weights_dtype = SINPE_F32;
        f.weight_scales = NULL;
        if (qcases[c].shard)
            a.vocab = f.vocab = ROWS - 10;
        for (int call = 0; call < 3; call++) {
            unsigned char *got[2];
            for (int side = 0; side < 2; side++) {
                const sinpe_embed_args *s = side ? &f : &a;
                sinpe_embed_args o = *s;
                unsigned char poison = side ? 0x5a : 0xa5;
                o.out = tu_buffer(ctx, bytes, NULL);
                TU_CL(clEnqueueFillBuffer(cq, o.out, &poison, 1, 0, bytes, 0, NULL, NULL));
                if (call == 0) {
                    TU_OK(sinpe_enqueue_embed(tab, cq, &o, 0, NULL, NULL));
                } else {
                    TU_OK(sinpe_enqueue_gather(tab, cq, &o, 0, NULL, NULL));
                    if (call == 2)
                        TU_OK(sinpe_enqueue_add_positions(tab, cq, &o, 0, NULL, NULL));
                }
                got[side] = tu_malloc(bytes);
                tu_read(cq, o.out, 0, bytes, got[side]);
                clReleaseMemObject(o.out);
            }
            ck_assert_msg(memcmp(got[0], got[1], bytes) == 0,
                          "%s weights, out %d, case %d, call %d: the bytes differ from the "
                          "float32 table's (or an element was left unwritten)",
                          sinpe__dtype(type)->name, (int)ot, c, call);
            TU_FREE(got[0], got[1]);
        }
        TU_RELEASE(NULL, NULL, NULL, qbufs[0], qbufs[1]);
    }
    TU_RELEASE(ctx, cq, tab, ids_m, pos_m, starts_m, pads_m, f32_m);
    qtab_free(&q);
}
END_TEST

/* ---- Bad input, the token scale's rounding, sinpe_quantize ---- */

START_TEST(quant_bad_input)
{
    enum { DIM = 32, ROWS = 4, N = 6 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 8);
    int32_t ids[N] = {0, 1, 2, 3, 0, 1};
    unsigned char wq[ROWS * 34];
    memset(wq, 1, sizeof wq);
    float sc[ROWS] = {1, 2, 3, 4};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof wq, wq);
    cl_mem sc_m = tu_buffer(ctx, sizeof sc, sc), small_m = tu_buffer(ctx, 3 * sizeof(float), sc);
    cl_mem out_m = tu_poisoned_buffer(ctx, cq, N * DIM);
    sinpe_embed_args base, a;
    base = tu_args(2, 3, ids_m, w_m, ROWS, out_m);

#define EXPECT(field_change, status, words)                                              \
    do {                                                                                 \
        a = base;                                                                        \
        field_change;                                                                    \
        TU_STATUS(sinpe_enqueue_embed(tab, cq, &a, 0, NULL, NULL), status);              \
        ck_assert_msg(strstr(sinpe_last_error(), words) != NULL, "message \"%s\" lacks \"%s\"", \
                      sinpe_last_error(), words);                                        \
        TU_STATUS(sinpe_enqueue_gather(tab, cq, &a, 0, NULL, NULL), status);             \
    } while (0)
    EXPECT(a.weights_dtype = SINPE_I8, SINPE_NULL_ARGUMENT, "weight_scales");
    EXPECT((a.weights_dtype = SINPE_I8, a.weight_scales = small_m), SINPE_BUFFER_TOO_SMALL,
           "weight_scales");
    EXPECT((a.weights_dtype = SINPE_I8, a.weight_scales = sc_m, a.weight_scales_offset = 1),
           SINPE_BUFFER_TOO_SMALL, "weight_scales");
    EXPECT((a.weights_dtype = SINPE_FP8_E4M3, a.weight_scales = sc_m,
            a.weight_scales_dtype = SINPE_BF16),
           SINPE_INVALID_DTYPE, "weight_scales_dtype");
    EXPECT((a.weights_dtype = SINPE_FP8_E5M2, a.weights_scale = NAN), SINPE_INVALID_OPTION,
           "weights_scale");
    EXPECT((a.weights_dtype = SINPE_FP8_E4M3, a.weights_scale = INFINITY), SINPE_INVALID_OPTION,
           "weights_scale");
    EXPECT((a.weights_dtype = SINPE_Q8_0, a.weights_offset = 16), SINPE_INVALID_SHAPE,
           "multiples of its block");
    EXPECT((a.weights_dtype = SINPE_Q8_0, a.weights_stride = 48), SINPE_INVALID_SHAPE,
           "multiples of its block");
    EXPECT((a.weights_dtype = SINPE_Q8_0, a.vocab = ROWS + 1), SINPE_BUFFER_TOO_SMALL,
           "args->weights");
    EXPECT((a.weights_dtype = SINPE_FP8_E4M3, a.vocab = 5 * ROWS), SINPE_BUFFER_TOO_SMALL,
           "args->weights");
    EXPECT(a.out_dtype = SINPE_Q8_0, SINPE_INVALID_DTYPE, "weights-only");
    EXPECT((a.weights_dtype = SINPE_I8, a.weight_scales = sc_m,
            a.token_scale_rounding = SINPE_SCALE_WEIGHTS),
           SINPE_INVALID_OPTION, "token_scale_rounding");
    EXPECT((a.weights_dtype = SINPE_FP8_E4M3, a.token_scale_rounding = (sinpe_scale_rounding)3),
           SINPE_INVALID_OPTION, "token_scale_rounding");
#undef EXPECT
    /* A Q8_0 table at a dim that is no multiple of 32. */
    {
        sinpe_table *odd = tu_table(ctx, 48, 8);
        a = base;
        a.weights_dtype = SINPE_Q8_0;
        TU_STATUS(sinpe_enqueue_embed(odd, cq, &a, 0, NULL, NULL), SINPE_INVALID_SHAPE);
        sinpe_table_release(odd);
    }
    tu_check_buffer_poison(cq, out_m, N * DIM, "quantized bad input");
    TU_RELEASE(ctx, cq, tab, ids_m, w_m, sc_m, small_m, out_m);
}
END_TEST

/* token_scale_rounding: sqrt(3072) = 55.4256 rounded to bf16 is 55.5 (HF
 * Gemma's normalizer); the rounded call equals the call given 55.5, and
 * differs from the exact one.  Rounding to the weights' fp16: 55.4375. */
START_TEST(quant_token_scale_rounding)
{
    enum { DIM = 16, N = 8 };
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 16);
    int32_t ids[N] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint16_t w16[N * DIM];
    tu_rng rng;
    tu_rng_init(&rng, "token scale rounding");
    for (size_t i = 0; i < N * DIM; i++)
        w16[i] = fr_f32_to_f16(tu_rng_float(&rng, -1.0f, 1.0f));
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof w16, w16);
    static const struct {
        sinpe_scale_rounding rounding;
        sinpe_dtype out;
        float as;
    } cases[] = {{SINPE_SCALE_OUTPUT, SINPE_BF16, 55.5f},
                 {SINPE_SCALE_WEIGHTS, SINPE_BF16, 55.4375f},
                 {SINPE_SCALE_OUTPUT, SINPE_F32, 0.0f}};
    for (size_t k = 0; k < 3; k++) {
        uint16_t got[2][N * DIM * 2];
        for (int side = 0; side < 2; side++) {
            sinpe_embed_args a = tu_args(1, N, ids_m, w_m, N, NULL);
            a.weights_dtype = SINPE_F16;
            a.out_dtype = cases[k].out;
            a.token_scale = sqrtf(3072.0f);
            if (side == 0)
                a.token_scale_rounding = cases[k].rounding;
            else if (cases[k].as > 0.0f)
                a.token_scale = cases[k].as;
            size_t bytes = N * DIM * (cases[k].out == SINPE_F32 ? 4 : 2);
            a.out = tu_buffer(ctx, bytes, NULL);
            TU_OK(sinpe_enqueue_embed(tab, cq, &a, 0, NULL, NULL));
            tu_read(cq, a.out, 0, bytes, got[side]);
            clReleaseMemObject(a.out);
        }
        ck_assert_msg(memcmp(got[0], got[1], N * DIM * (cases[k].out == SINPE_F32 ? 4 : 2)) == 0,
                      "rounding case %zu: the output differs from the call given %g", k,
                      (double)cases[k].as);
    }
    ck_assert_float_eq(sinpe__round_to(SINPE_BF16, sqrtf(3072.0f)), 55.5f);
    ck_assert_float_eq(sinpe__round_to(SINPE_F16, sqrtf(3072.0f)), 55.4375f);
    TU_RELEASE(ctx, cq, tab, ids_m, w_m);
}
END_TEST

/* The largest |x[i]| of n values. */
static double max_abs(const float *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* The nearest FP8 code to v (ties to the even code), by search. */
static unsigned nearest_fp8(double v, sinpe_dtype t)
{
    unsigned best = 0;
    double best_err = INFINITY;
    for (unsigned c = 0; c < 256; c++) {
        unsigned char code = (unsigned char)c;
        double d = ref_load(t, &code, 0), err = fabs(d - v);
        if (isnan(d) || isinf(d) || (d == 0.0 && signbit(d) != signbit(v)))
            continue;
        if (err < best_err || (err == best_err && !(c & 1))) {
            best = c;
            best_err = err;
        }
    }
    return best;
}

/* sinpe_quantize: every layout against its definition (scales max-abs over
   the largest finite value, stored, then values to nearest even). */
START_TEST(quant_quantize)
{
    enum { ROWS = 6, DIM = 64 };
    float x[ROWS * DIM], s32[ROWS];
    uint16_t s16[ROWS];
    unsigned char out[ROWS * DIM * 2];
    tu_rng rng;
    tu_rng_init(&rng, "quantize");
    for (size_t i = 0; i < ROWS * DIM; i++)
        x[i] = ldexpf(tu_rng_float(&rng, -1.0f, 1.0f), tu_rng_int(&rng, -8, 8));
    for (size_t c = 0; c < DIM; c++)
        x[3 * DIM + c] = 0.0f; /* a row of zeros: scale 0, values 0 */

    TU_OK(sinpe_quantize(SINPE_I8, x, ROWS, DIM, out, sizeof out, s32, SINPE_F32));
    for (size_t r = 0; r < ROWS; r++) {
        ck_assert_float_eq(s32[r], (float)(max_abs(x + r * DIM, DIM) / 127.0));
        for (size_t c = 0; c < DIM; c++) {
            double q = s32[r] ? nearbyint(x[r * DIM + c] / (double)s32[r]) : 0.0;
            ck_assert_int_eq((signed char)out[r * DIM + c], (int)q);
        }
    }
    TU_OK(sinpe_quantize(SINPE_Q8_0, x, ROWS, DIM, out, sizeof out, NULL, SINPE_F32));
    for (size_t b = 0; b < ROWS * DIM / 32; b++) {
        uint16_t h = (uint16_t)(out[34 * b] | out[34 * b + 1] << 8);
        ck_assert_uint_eq(h, fr_f32_to_f16((float)(max_abs(x + 32 * b, 32) / 127.0)));
        double d = fr_f16_to_f32(h);
        for (int j = 0; j < 32; j++) {
            double q = d ? fmin(127.0, fmax(-127.0, nearbyint(x[32 * b + j] / d))) : 0.0;
            ck_assert_int_eq((signed char)out[34 * b + 2 + j], (int)q);
        }
    }
    for (int t = SINPE_FP8_E4M3; t <= SINPE_FP8_E5M2; t++) {
        double largest = t == SINPE_FP8_E4M3 ? 448.0 : 57344.0;
        TU_OK(sinpe_quantize((sinpe_dtype)t, x, ROWS, DIM, out, sizeof out, s16, SINPE_F16));
        for (size_t r = 0; r < ROWS; r++) {
            double s = fr_f16_to_f32(s16[r]);
            ck_assert_uint_eq(s16[r], fr_f32_to_f16((float)(max_abs(x + r * DIM, DIM) / largest)));
            for (size_t c = 0; c < DIM; c++) {
                double v = s ? fmin(largest, fmax(-largest, x[r * DIM + c] / s)) : 0.0;
                ck_assert_uint_eq(out[r * DIM + c], nearest_fp8(v, (sinpe_dtype)t));
            }
        }
    }
    /* Errors. */
    TU_STATUS(sinpe_quantize(SINPE_I8, x, ROWS, DIM, out, sizeof out, NULL, SINPE_F32),
              SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_quantize(SINPE_Q8_0, x, ROWS, 48, out, sizeof out, NULL, SINPE_F32),
              SINPE_INVALID_SHAPE);
    TU_STATUS(sinpe_quantize(SINPE_F16, x, ROWS, DIM, out, ROWS * DIM * 2 - 1, NULL, SINPE_F32),
              SINPE_BUFFER_TOO_SMALL);
    TU_STATUS(sinpe_quantize(SINPE_I8, x, ROWS, DIM, out, sizeof out, s32, SINPE_BF16),
              SINPE_INVALID_DTYPE);
    TU_STATUS(sinpe_quantize((sinpe_dtype)sinpe_dtype_count(), x, ROWS, DIM, out, sizeof out, NULL, SINPE_F32),
              SINPE_INVALID_DTYPE);
    x[5] = NAN;
    TU_STATUS(sinpe_quantize(SINPE_FP8_E4M3, x, ROWS, DIM, out, sizeof out, NULL, SINPE_F32),
              SINPE_INVALID_OPTION);
    TU_MESSAGE_HAS("src[5]");
}
END_TEST

/* A scale that overflows fp16 (an F16 row scale, a Q8_0 block's d) is
   refused before anything is written: row 0 is fine, the fault lies in a
   later row (and block), and dst and scales keep their poison. */
START_TEST(quant_quantize_scale_overflow)
{
    enum { ROWS = 3, DIM = 64 };
    float x[ROWS * DIM];
    uint16_t s16[ROWS];
    unsigned char out[ROWS * DIM * 2];
    static const struct {
        sinpe_dtype type;
        float largest; /* the type's: max |x| 65520 * largest makes the scale overflow */
        const char *where;
    } cases[] = {
        {SINPE_I8, 127.0f, "src row 1:"},
        {SINPE_FP8_E4M3, 448.0f, "src row 1:"},
        {SINPE_FP8_E5M2, 57344.0f, "src row 1:"},
        {SINPE_Q8_0, 127.0f, "src row 1, block 1:"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (size_t i = 0; i < ROWS * DIM; i++)
            x[i] = (float)((int)(i % 7) - 3);
        x[DIM + 40] = -65520.0f * cases[k].largest;
        memset(out, 0xa5, sizeof out);
        memset(s16, 0xa5, sizeof s16);
        TU_STATUS(sinpe_quantize(cases[k].type, x, ROWS, DIM, out, sizeof out, s16, SINPE_F16),
                  SINPE_INVALID_OPTION);
        ck_assert_msg(strstr(sinpe_last_error(), cases[k].where) != NULL, "type %d: %s",
                      (int)cases[k].type, sinpe_last_error());
        for (size_t i = 0; i < sizeof out; i++)
            ck_assert_msg(out[i] == 0xa5, "type %d: dst byte %zu written", (int)cases[k].type,
                          i);
        for (size_t r = 0; r < ROWS; r++)
            ck_assert_uint_eq(s16[r], 0xa5a5);
        /* Just below the overflow: accepted, the scale finite. */
        x[DIM + 40] = -65504.0f * cases[k].largest;
        TU_OK(sinpe_quantize(cases[k].type, x, ROWS, DIM, out, sizeof out, s16, SINPE_F16));
        if (cases[k].type == SINPE_Q8_0)
            ck_assert_uint_eq(out[34 * 3] | out[34 * 3 + 1] << 8, 0x7bff);
        else
            ck_assert_uint_eq(s16[1], 0x7bff);
    }
}
END_TEST

/* sinpe_dtype_bytes: the layouts' sizes, a partial Q8_0 block counted whole,
   0 for a value that is no type, SIZE_MAX on overflow. */
START_TEST(quant_dtype_bytes)
{
    static const size_t per_value[] = {4, 2, 2, 1, 0, 1, 1};
    for (int t = SINPE_F32; t <= SINPE_FP8_E5M2; t++) {
        for (size_t n = 0; n < 200; n += 32)
            ck_assert_uint_eq(sinpe_dtype_bytes((sinpe_dtype)t, n),
                              t == SINPE_Q8_0 ? n / 32 * 34 : n * per_value[t]);
        ck_assert_uint_eq(sinpe_dtype_bytes((sinpe_dtype)t, SIZE_MAX), SIZE_MAX);
    }
    ck_assert_uint_eq(sinpe_dtype_bytes(SINPE_Q8_0, 1), 34);
    ck_assert_uint_eq(sinpe_dtype_bytes(SINPE_Q8_0, 33), 68);
    ck_assert_uint_eq(sinpe_dtype_bytes((sinpe_dtype)sinpe_dtype_count(), 10), 0);
    ck_assert_uint_eq(sinpe_dtype_bytes((sinpe_dtype)-1, 10), 0);
}
END_TEST

/* A quantized type's kernels are built on its first call: a build that
 * fails there is reported by that call (and by sinpe_context_prepare) with
 * the log, and nothing is enqueued; the other types are not affected.  The
 * kernel source is the repository's with an #error for Q8_0's program
 * (a head of its own, the other files linked beside it). */
START_TEST(quant_lazy_build)
{
    enum { DIM = 32, ROWS = 4, N = 6 };
    char cwd[4096], text[4400], dir[256], from[4400], path[600];
    ck_assert_msg(getcwd(cwd, sizeof cwd) != NULL, "getcwd failed");
    tu_scratch_dir(dir, sizeof dir, "sinpe-lazy-");
    DIR *kernels = opendir("kernels");
    for (struct dirent *e; kernels && (e = readdir(kernels)) != NULL;) {
        snprintf(from, sizeof from, "%s/kernels/%s", cwd, e->d_name);
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ck_assert(e->d_name[0] == '.' || symlink(from, path) == 0);
    }
    closedir(kernels);
    snprintf(text, sizeof text,
             "#if defined(SINPE_WEIGHTS) && SINPE_WEIGHTS == 4\n"
             "#error q8_0 kernels refused on purpose\n"
             "#endif\n"
             "#include \"%s/kernels/sinpe.cl\"\n",
             cwd);
    snprintf(path, sizeof path, "%s/head.cl", dir);
    tu_write_file(path, text, strlen(text));
    setenv("SINPE_KERNEL_SOURCE", path, 1);

    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue cq = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 8);
    int32_t ids[N] = {0, 1, 2, 3, 0, 1}, zero = 0;
    unsigned char wq[ROWS * 34];
    memset(wq, 0, sizeof wq);
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof wq, wq);
    cl_mem bad_m = tu_buffer(ctx, sizeof zero, &zero);
    cl_mem out_m = tu_poisoned_buffer(ctx, cq, N * DIM);
    sinpe_embed_args a = tu_args(2, 3, ids_m, w_m, ROWS, out_m);
    a.weights_dtype = SINPE_Q8_0;
    a.bad_ids = bad_m;

    TU_STATUS(sinpe_context_prepare(ctx, SINPE_Q8_0), SINPE_BUILD_FAILED);
    TU_MESSAGE_HAS("refused on purpose");
    TU_STATUS(sinpe_enqueue_embed(tab, cq, &a, 0, NULL, NULL), SINPE_BUILD_FAILED);
    TU_STATUS(sinpe_enqueue_gather(tab, cq, &a, 0, NULL, NULL), SINPE_BUILD_FAILED);
    TU_CL(clFinish(cq));
    float out[N * DIM];
    int32_t bad = -1;
    tu_read(cq, out_m, 0, sizeof out, out);
    tu_read(cq, bad_m, 0, sizeof bad, &bad);
    tu_check_all_poison(out, N * DIM, "output after a failed lazy build");
    ck_assert_int_eq(bad, 0);

    /* Another quantized type builds and runs; so do the float ones. */
    TU_OK(sinpe_context_prepare(ctx, SINPE_FP8_E5M2));
    TU_OK(sinpe_context_prepare(ctx, SINPE_FP8_E5M2));
    TU_OK(sinpe_context_prepare(ctx, SINPE_F16));
    a.weights_dtype = SINPE_FP8_E5M2;
    TU_OK(sinpe_enqueue_embed(tab, cq, &a, 0, NULL, NULL));
    TU_CL(clFinish(cq));
    tu_read(cq, out_m, 0, sizeof out, out);
    for (size_t i = 0; i < N * DIM; i++)
        ck_assert_msg(!tu_is_poison(out[i]), "element %zu left unwritten", i);

    TU_STATUS(sinpe_context_prepare(NULL, SINPE_I8), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_context_prepare(ctx, (sinpe_dtype)sinpe_dtype_count()), SINPE_INVALID_DTYPE);
    TU_MESSAGE_HAS("weights_dtype");

    unsetenv("SINPE_KERNEL_SOURCE");
    tu_remove_tree(dir);
    TU_RELEASE(ctx, cq, tab, ids_m, w_m, bad_m, out_m);
}
END_TEST

TU_SUITE(quant, 112)
{
    Suite *s = suite_create("quant");
    TCase *tc = tcase_create("host");
    TU_ADD(tc, quant_quantize, quant_quantize_scale_overflow, quant_dtype_bytes);
    suite_add_tcase(s, tc);
    tc = tu_tcase(s, "device", NULL);
    tcase_add_loop_test(tc, quant_fp8_every_code, 0, 2);
    TU_ADD(tc, quant_i8_every_value, quant_q80_blocks);
    tcase_add_loop_test(tc, quant_calls_match_float_table, 0, 12);
    TU_ADD(tc, quant_bad_input, quant_token_scale_rounding);
    tc = tu_tcase(s, "lazy", NULL); /* a program built from source, no cache */
    tcase_set_timeout(tc, TU_TIMEOUT_COLD);
    tcase_add_test(tc, quant_lazy_build);
    return s;
}
