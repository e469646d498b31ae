/* test_dtype.c -- storage types of the weights and of the output, all nine
 * pairs, checked bit for bit: the output must be the host's round-to-
 * nearest-even conversion of the float32 value
 *
 *     x = (float)(token_scale * e) + pe
 *
 * where e is the stored weight widened to float and pe the float32 value in
 * the device table (read back from the table buffer).  The edge cases are
 * aimed at the rounding itself: binary16 subnormals and ties, overflow to
 * infinity from 65520, bfloat16 ties and overflow, NaN staying NaN.  The
 * converters in family_ref.c are checked on their own first, exhaustively
 * where that is cheap, so that a wrong converter cannot hide a wrong kernel. */
#include "family_ref.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sinpe_dtype dtypes[3] = {SINPE_F32, SINPE_F16, SINPE_BF16};

/* ---- The host converters ---- */

START_TEST(converters_self_check)
{
    /* Known values: binary16, then bfloat16 (bf16 set); the 0x3F80 and
     * 0x3F81 inputs are ties, to even and up. */
    const struct {
        float f;
        uint16_t want;
        int bf16;
    } known[] = {
        {1.0f, 0x3C00, 0}, {-2.0f, 0xC000, 0}, {0.1f, 0x2E66, 0}, {65504.0f, 0x7BFF, 0},
        {65520.0f, 0x7C00, 0}, {nextafterf(65520.0f, 0.0f), 0x7BFF, 0}, {-65520.0f, 0xFC00, 0},
        {0x1p-24f, 0x0001, 0}, {0x1p-25f, 0x0000, 0}, {nextafterf(0x1p-25f, 1.0f), 0x0001, 0},
        {0x1.8p-24f, 0x0002, 0}, {-0.0f, 0x8000, 0}, {1.0f, 0x3F80, 1}, {0.1f, 0x3DCD, 1},
        {FLT_MAX, 0x7F80, 1}, {fr_bits_f32(0x7F7F7FFFu), 0x7F7F, 1},
        {fr_bits_f32(0x3F808000u), 0x3F80, 1}, {fr_bits_f32(0x3F818000u), 0x3F82, 1},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        uint16_t got = known[i].bf16 ? fr_f32_to_bf16(known[i].f) : fr_f32_to_f16(known[i].f);
        ck_assert_msg(got == known[i].want, "%a to %s: 0x%04x, want 0x%04x", (double)known[i].f,
                      known[i].bf16 ? "bf16" : "f16", (unsigned)got, (unsigned)known[i].want);
    }
    ck_assert(fr_bf16_is_nan(fr_f32_to_bf16(fr_bits_f32(0x7F800001u))));
    ck_assert(fr_f16_is_nan(fr_f32_to_f16(fr_bits_f32(0x7F800001u))));

    /* binary16: every value round-trips; every midpoint goes to the even
     * neighbour and its float neighbours to the nearer one. */
    for (uint32_t h = 0; h <= 0xFFFFu; h++) {
        float f = fr_f16_to_f32((uint16_t)h);
        if (fr_f16_is_nan((uint16_t)h)) {
            ck_assert_msg(isnan(f), "f16 0x%04x widens to a non-NaN", (unsigned)h);
            ck_assert(fr_f16_is_nan(fr_f32_to_f16(f)));
            continue;
        }
        TU_CHECK(fr_f32_to_f16(f) == h, "f16 0x%04x does not round-trip (0x%04x)",
                 (unsigned)h, (unsigned)fr_f32_to_f16(f));
        if ((h & 0x7FFFu) < 0x7BFFu) {
            float g = fr_f16_to_f32((uint16_t)(h + 1));
            float mid = (f + g) / 2.0f; /* exact: one bit more than binary16 */
            uint16_t even = (h & 1u) ? (uint16_t)(h + 1) : (uint16_t)h;
            TU_CHECK(fr_f32_to_f16(mid) == even, "f16 midpoint after 0x%04x", (unsigned)h);
            TU_CHECK(fr_f32_to_f16(nextafterf(mid, f)) == h, "f16 below the midpoint after 0x%04x",
                     (unsigned)h);
            TU_CHECK(fr_f32_to_f16(nextafterf(mid, g)) == h + 1,
                     "f16 above the midpoint after 0x%04x", (unsigned)h);
        }
    }
    /* bfloat16 likewise. */
    for (uint32_t b = 0; b <= 0xFFFFu; b++) {
        float f = fr_bf16_to_f32((uint16_t)b);
        if (fr_bf16_is_nan((uint16_t)b)) {
            ck_assert(fr_bf16_is_nan(fr_f32_to_bf16(f)));
            continue;
        }
        TU_CHECK(fr_f32_to_bf16(f) == b, "bf16 0x%04x does not round-trip", (unsigned)b);
        if ((b & 0x7FFFu) < 0x7F7Fu) {
            uint32_t lo = fr_f32_bits(f), mid_bits = lo + 0x8000u;
            uint16_t even = (b & 1u) ? (uint16_t)(b + 1) : (uint16_t)b;
            TU_CHECK(fr_f32_to_bf16(fr_bits_f32(mid_bits)) == even,
                     "bf16 midpoint after 0x%04x", (unsigned)b);
            TU_CHECK(fr_f32_to_bf16(fr_bits_f32(mid_bits - 1)) == b,
                     "bf16 below the midpoint after 0x%04x", (unsigned)b);
            TU_CHECK(fr_f32_to_bf16(fr_bits_f32(mid_bits + 1)) == b + 1,
                     "bf16 above the midpoint after 0x%04x", (unsigned)b);
        }
    }

#if defined(__FLT16_MAX__) && defined(__x86_64__)
    /* Where the compiler has _Float16, its conversion (IEEE, round to
     * nearest even) must agree on random floats of every magnitude. */
    tu_rng rng = tu_rng_for("converters_self_check");
    for (int i = 0; i < 200000; i++) {
        uint32_t u = (uint32_t)tu_rng_next(&rng);
        if (i % 2)
            u = (u & 0x807FFFFFu) | ((uint32_t)tu_rng_int(&rng, 90, 145) << 23);
        float f = fr_bits_f32(u);
        if (isnan(f))
            continue;
        _Float16 hf = (_Float16)f;
        uint16_t want;
        memcpy(&want, &hf, sizeof want);
        TU_CHECK(fr_f32_to_f16(f) == want, "f32 0x%08x: converter 0x%04x, _Float16 0x%04x",
                 (unsigned)u, (unsigned)fr_f32_to_f16(f), (unsigned)want);
    }
#endif
}
END_TEST

/* ---- Device runs ---- */

static int device_has_denorm(sinpe_context *ctx)
{
    cl_device_fp_config cfg = 0;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_SINGLE_FP_CONFIG, sizeof cfg,
                          &cfg, NULL));
    return (cfg & CL_FP_DENORM) != 0;
}

/* One run: weights given as raw storage of wt, one token per weight row. */
typedef struct drun {
    const char *name;
    sinpe_dtype wt, ot;
    size_t dim, vocab, n_seqs, seq_len;
    const void *w;      /* vocab * dim elements of wt */
    const int32_t *ids; /* n_seqs * seq_len */
    float token_scale;
    int32_t start;
    int skip_pe;
    size_t out_offset, out_stride;
    int explicit_pos; /* the positions (start + t) from a buffer: the table part */
} drun;

/* Runs r with the paper's split layout at r->dim and checks every element of
 * the output buffer, bit for bit. */
static void run_drun(sinpe_context *ctx, cl_command_queue q, const drun *r)
{
    size_t dim = r->dim, n = r->n_seqs * r->seq_len;
    size_t ost = r->out_stride ? r->out_stride : dim;
    size_t no = r->out_offset + (n - 1) * ost + dim;
    size_t osz = fr_dtype_size(r->ot), wsz = fr_dtype_size(r->wt);
    size_t rows = (size_t)r->start + r->seq_len; /* every position inside the table */
    char what[256];
    snprintf(what, sizeof what, "%s (weights %s, out %s, dim %zu, scale %g%s%s)", r->name,
             fr_dtype_name(r->wt), fr_dtype_name(r->ot), dim, (double)r->token_scale,
             r->skip_pe ? ", skip_pe" : "", r->explicit_pos ? ", positions buffer" : "");

    sinpe_spec spec =
        tu_spec(dim, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, rows);
    float *pe = tu_table_read(tab, q, rows);
    cl_mem ids_m = tu_buffer(ctx, n * sizeof(int32_t), r->ids);
    cl_mem w_m = tu_buffer(ctx, r->vocab * dim * wsz, r->w);
    cl_mem out_m = fr_poisoned_buffer(ctx, no, r->ot);

    sinpe_embed_args a = tu_args(r->n_seqs, r->seq_len, ids_m, w_m, r->vocab, out_m);
    a.out_offset = r->out_offset;
    a.out_stride = r->out_stride;
    a.token_scale = r->token_scale;
    a.start = r->start;
    a.weights_dtype = r->wt;
    a.out_dtype = r->ot;
    a.skip_pe = r->skip_pe;
    cl_mem pos_m = NULL;
    if (r->explicit_pos) {
        int32_t *pos = tu_malloc(n * sizeof *pos);
        for (size_t i = 0; i < n; i++)
            pos[i] = (int32_t)(i % r->seq_len);
        pos_m = tu_buffer(ctx, n * sizeof *pos, pos);
        free(pos);
        a.positions = pos_m;
    }
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
    void *got = tu_malloc(no * osz);
    tu_read(q, out_m, 0, no * osz, got);

    uint32_t poison = fr_poison_raw(r->ot);
    for (size_t i = 0; i < no; i++) {
        size_t j = i - r->out_offset, row = j / ost, col = j % ost;
        uint32_t raw = fr_raw(got, i, r->ot);
        if (i < r->out_offset || col >= dim) {
            TU_CHECK(raw == poison, "%s: element %zu outside the rows changed to 0x%x",
                     what, i, (unsigned)raw);
            continue;
        }
        size_t t = row % r->seq_len;
        int32_t id = r->ids[row];
        int held = id >= 0 && (size_t)id < r->vocab; /* an id not held embeds as zero */
        volatile float e = held ? fr_load(r->w, (size_t)id * dim + col, r->wt) : 0.0f;
        volatile float prod = held ? r->token_scale * e : 0.0f;
        volatile float x = prod;
        if (!r->skip_pe)
            x = prod + pe[((size_t)r->start + t) * dim + col];
        uint32_t want = fr_round(x, r->ot);
        if (isnan(x)) {
            ck_assert_msg(fr_raw_is_nan(raw, r->ot) && raw != poison,
                          "%s: row %zu col %zu: weight %.9g (NaN) gave 0x%x, not a NaN", what,
                          row, col, (double)e, (unsigned)raw);
        } else {
            TU_CHECK(raw == want,
                     "%s: row %zu col %zu: weight %.9g (stored 0x%x), x = %.9g "
                     "(0x%08x): device 0x%x, expected 0x%x",
                     what, row, col, (double)e,
                     held ? (unsigned)fr_raw(r->w, (size_t)id * dim + col, r->wt) : 0u,
                     (double)x, (unsigned)fr_f32_bits(x), (unsigned)raw, (unsigned)want);
        }
    }

    TU_FREE(got, pe);
    TU_RELEASE(NULL, NULL, tab, ids_m, w_m, out_m, pos_m);
}

/* A float of random sign and magnitude 2^lo .. 2^hi. */
static float wide_float(tu_rng *rng, int lo, int hi)
{
    float m = tu_rng_float(rng, 1.0f, 2.0f);
    float v = ldexpf(m, tu_rng_int(rng, lo, hi));
    return tu_rng_unit(rng) < 0.5 ? -v : v;
}

START_TEST(dtype_pairs_random)
{
    sinpe_dtype wt = dtypes[_i / 3], ot = dtypes[_i % 3];
    char salt[64];
    snprintf(salt, sizeof salt, "dtype_pairs_random %d", _i);
    tu_rng rng = tu_rng_for(salt);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);

    const size_t dims[2] = {37, 64}; /* a tail of one column, and whole vectors */
    const float scales[2] = {1.0f, 0.7f};
    for (int di = 0; di < 2; di++) {
        size_t dim = dims[di], vocab = 30;
        void *w = tu_malloc(vocab * dim * 4);
        for (size_t i = 0; i < vocab * dim; i++) {
            float v;
            double u = tu_rng_unit(&rng);
            if (u < 0.5)
                v = tu_rng_float(&rng, -2.0f, 2.0f);
            else if (u < 0.8)
                v = wide_float(&rng, -26, 3); /* near and below the f16 normal range */
            else
                v = wide_float(&rng, 4, 17); /* around the f16 overflow at 65520 */
            fr_store(w, i, wt, v);
        }
        int32_t ids[3 * 20];
        for (size_t i = 0; i < 60; i++)
            ids[i] = tu_rng_int(&rng, 0, (int32_t)vocab - 1);
        /* Ids not held, in each sequence: below, just past and far past the vocabulary. */
        ids[4] = -1;
        ids[27] = (int32_t)vocab;
        ids[53] = INT32_MAX;
        /* The second and third runs' outputs are aligned at dim 64 (offset
           and stride multiples of eight): the vector-pointer and streamed
           stores; the third reads its positions from a buffer (the table
           part of CPU builds). */
        for (int si = 0; si < 3; si++) {
            size_t off = si ? 8 : 3, stride = dim + (si ? 8 : 5);
            drun r = {"random", wt,  ot, dim, vocab, 3, 20, w, ids, scales[si % 2], 5, 0,
                      off,      stride, si == 2};
            run_drun(ctx, q, &r);
        }
        free(w);
    }
    tu_release(ctx, q, NULL, NULL, 0);
}
END_TEST

/* Edge weights per storage type, as raw bits. */
static const uint32_t edge_f32[] = {
    /* binary16 subnormals and their ties */
    0x358637BDu, /* 1e-6 */
    0x3380D959u, /* 6e-8 */
    0x33800000u, /* 2^-24, the smallest f16 subnormal */
    0x33000000u, /* 2^-25: tie between 0 and 2^-24, to 0 */
    0x33000001u, /* just above: 2^-24 */
    0x33C00000u, /* 1.5 * 2^-24: tie, to 2 * 2^-24 */
    0x34200000u, /* 2.5 * 2^-24: tie, to 2 * 2^-24 */
    0x387FC000u, /* 2^-14 - 2^-24: the largest f16 subnormal */
    0x387FE000u, /* tie between it and 2^-14: to 2^-14 (even) */
    0x38800000u, /* 2^-14 */
    0xB3800000u, /* -2^-24 */
    0xB2FFFFFFu, /* just below -2^-25 in magnitude: -0 */
    /* binary16 overflow */
    0x477FE000u, /* 65504 */
    0x477FEFFFu, /* just below 65520: 65504 */
    0x477FF000u, /* 65520: +inf */
    0xC77FF000u, /* -65520: -inf */
    0x47C35000u, /* 1e5 */
    0x7F7FFFFFu, /* FLT_MAX: f16 inf, bf16 inf (rounds up) */
    0x7F7F7FFFu, /* rounds down in bf16 */
    0x7F7F8000u, /* tie in bf16, odd below: inf */
    0xFF7FFFFFu, /* -FLT_MAX */
    0x7F800000u, 0xFF800000u, /* +-inf */
    /* normal ties */
    0x3F801000u, /* 1 + 2^-11: f16 tie, to 1 */
    0x3F803000u, /* 1 + 3 * 2^-11: f16 tie, up */
    0x3F801001u, /* just above the tie: up */
    0x45001000u, /* 2049: f16 tie, to 2048 */
    0x45003000u, /* 2051: f16 tie, to 2052 */
    0x3F808000u, /* 1 + 2^-8: bf16 tie, to 1 */
    0x3F818000u, /* 1 + 3 * 2^-8: bf16 tie, up */
    0x3F808001u, /* just above: up */
    0xBF7F8000u, /* bf16 tie that carries into the exponent: -1 */
    /* signed zeros and NaNs (payloads unlike the poisons) */
    0x00000000u, 0x80000000u, 0x7FC00001u, 0xFFC12345u, 0x7F800001u,
    0x7FFFFFFFu, 0xFFFFFFFFu, /* a careless bf16 rounding carries these out of NaN */
    /* plain values */
    0x3DCCCCCDu, 0xC0490FDBu,
};

/* float32 subnormals: only where the device keeps them (CL_FP_DENORM). */
static const uint32_t edge_f32_denorm[] = {
    0x00008000u, /* bf16 tie: to 0 */
    0x00018000u, /* bf16 tie: up to 0x0002 */
    0x007FFFFFu, /* rounds to the smallest normal bf16 */
    0x80000001u,
};

static const uint16_t edge_f16[] = {
    0x0001, 0x0002, 0x03FF, 0x0400, 0x8001, 0x83FF, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
    0x7E01, 0xFE37, 0x7C01, 0x0000, 0x8000, 0x3C00, 0x3C01, 0x3555, 0xC248, 0x1234,
};

static const uint16_t edge_bf16[] = {
    0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC1, 0xFFA0, 0x7F81, 0x0000, 0x8000,
    0x3F80, 0x3F81, 0x3DCD, 0x4780, 0x477F, 0x4780, 0x33C0, 0x3380, 0xC049,
    0x0080, 0x8080,
};

static const uint16_t edge_bf16_denorm[] = {0x0001, 0x807F, 0x0040};

START_TEST(dtype_edges)
{
    sinpe_dtype wt = dtypes[_i / 3], ot = dtypes[_i % 3];
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    int denorm = device_has_denorm(ctx);

    /* The edge values, then (where kept) subnormal floats, padded with 1s to
     * whole rows: of dim 6, where columns 0-3 take the vector path and 4-5
     * the tail, and of dim 8 with an aligned output (offset and stride
     * multiples of eight), where whole vectors take the vector-pointer and
     * streamed stores in the shapes that have them. */
    enum { MAXV = 96 };
    for (size_t dim = 6; dim <= 8; dim += 2) {
        uint32_t raw[MAXV];
        size_t nv = 0;
#define APPEND(list) for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) raw[nv++] = list[i]
        if (wt == SINPE_F32) {
            APPEND(edge_f32);
            if (denorm)
                APPEND(edge_f32_denorm);
        } else if (wt == SINPE_F16) {
            APPEND(edge_f16);
        } else {
            APPEND(edge_bf16);
            if (denorm)
                APPEND(edge_bf16_denorm);
        }
#undef APPEND
        size_t vocab = (nv + dim - 1) / dim;
        void *w = tu_malloc(vocab * dim * 4);
        for (size_t i = 0; i < vocab * dim; i++) {
            uint32_t v = i < nv ? raw[i] : (wt == SINPE_F32 ? 0x3F800000u
                                            : wt == SINPE_F16 ? 0x3C00u : 0x3F80u);
            if (wt == SINPE_F32)
                ((uint32_t *)w)[i] = v;
            else
                ((uint16_t *)w)[i] = (uint16_t)v;
        }
        /* Every row once per sequence, in two sequences (one reversed). */
        int32_t *ids = tu_malloc(2 * vocab * sizeof *ids);
        for (size_t t = 0; t < vocab; t++) {
            ids[t] = (int32_t)t;
            ids[vocab + t] = (int32_t)(vocab - 1 - t);
        }
        /* Without PE the rounding of the weight itself shows; with PE (positions
         * from 0, so sin columns of row 0 add exactly 0) the sum is rounded. */
        for (int with_pe = 0; with_pe < 2; with_pe++) {
            size_t off = dim == 8 ? 8 : 1, stride = dim == 8 ? 16 : dim + 1;
            drun r = {"edges", wt, ot, dim, vocab, 2, vocab, w, ids, 1.0f, 0, !with_pe, off, stride,
                      0};
            run_drun(ctx, q, &r);
        }
        free(ids);
        free(w);
    }
    tu_release(ctx, q, NULL, NULL, 0);
}
END_TEST

START_TEST(dtype_unfused_rounds_twice)
{
    /* With 16-bit output the unfused pair stores scale * E rounded, then adds
     * PE to the rounded value and rounds again (the header says so); with
     * float32 output both paths agree bit for bit.  The weights are stored
     * in the output's type; one id is not held. */
    sinpe_dtype ot = dtypes[_i];
    tu_rng rng = tu_rng_for("dtype_unfused_rounds_twice");
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    enum { DIM = 13, VOCAB = 17, NS = 2, SL = 11, N = NS * SL };
    size_t osz = fr_dtype_size(ot);
    sinpe_table *tab = tu_table(ctx, DIM, SL);
    float *pe = tu_table_read(tab, q, SL);

    float w[VOCAB * DIM]; /* elements of type ot */
    int32_t ids[N];
    for (size_t i = 0; i < VOCAB * DIM; i++)
        fr_store(w, i, ot, tu_rng_float(&rng, -3.0f, 3.0f));
    for (size_t i = 0; i < N; i++)
        ids[i] = tu_rng_int(&rng, 0, VOCAB - 1);
    ids[N - 4] = VOCAB;
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem out_m = fr_poisoned_buffer(ctx, N * DIM, ot);
    sinpe_embed_args a = tu_args(NS, SL, ids_m, w_m, VOCAB, out_m);
    a.token_scale = 0.3f;
    a.weights_dtype = ot;
    a.out_dtype = ot;
    cl_event ev = NULL;
    TU_OK(sinpe_enqueue_gather(tab, q, &a, 0, NULL, &ev));
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 1, &ev, NULL));
    TU_CL(clFinish(q));
    clReleaseEvent(ev);
    void *got = tu_malloc(N * DIM * osz);
    tu_read(q, out_m, 0, N * DIM * osz, got);
    for (size_t r = 0; r < N; r++) {
        for (size_t c = 0; c < DIM; c++) {
            volatile float g = ids[r] < VOCAB ? 0.3f * fr_load(w, (size_t)ids[r] * DIM + c, ot)
                                              : 0.0f;
            uint16_t gh = 0;
            float gs = g;
            if (ot != SINPE_F32) {
                fr_store(&gh, 0, ot, g);
                gs = fr_load(&gh, 0, ot);
            }
            volatile float x = gs + pe[(r % SL) * DIM + c];
            uint32_t want = fr_round(x, ot);
            ck_assert_msg(fr_raw(got, r * DIM + c, ot) == want,
                          "%s: row %zu col %zu: 0x%x, expected 0x%x", fr_dtype_name(ot), r, c,
                          (unsigned)fr_raw(got, r * DIM + c, ot), (unsigned)want);
        }
    }
    TU_FREE(got, pe);
    TU_RELEASE(ctx, q, tab, ids_m, w_m, out_m);
}
END_TEST

START_TEST(dtype_invalid)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    enum { DIM = 8, VOCAB = 4, N = 6 };
    sinpe_table *tab = tu_table(ctx, DIM, 8);
    int32_t ids[N] = {0, 1, 2, 3, 0, 1};
    float w[VOCAB * DIM] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, N * DIM);
    sinpe_embed_args base = tu_args(2, 3, ids_m, w_m, VOCAB, out_m);

    /* Not a type at all, and (outputs) the weights-only quantized types. */
    const int none = (int)sinpe_dtype_count(); /* one past the last type */
    const int bad_weights[] = {none, 99, -1}, bad_out[] = {none, SINPE_I8, SINPE_Q4_K, -1};
    for (size_t i = 0; i < 4; i++) {
        for (int field = 0; field < 2; field++) {
            sinpe_embed_args a = base;
            if (field == 0 && i == 3)
                continue;
            if (field == 0)
                a.weights_dtype = (sinpe_dtype)bad_weights[i];
            else
                a.out_dtype = (sinpe_dtype)bad_out[i];
            TU_STATUS(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL), SINPE_INVALID_DTYPE);
            TU_STATUS(sinpe_enqueue_gather(tab, q, &a, 0, NULL, NULL), SINPE_INVALID_DTYPE);
            if (field == 1)
                TU_STATUS(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL),
                          SINPE_INVALID_DTYPE);
        }
    }
    tu_check_buffer_poison(q, out_m, N * DIM, "invalid dtypes");
    TU_RELEASE(ctx, q, tab, ids_m, w_m, out_m);
}
END_TEST

TU_SUITE(dtype, 69)
{
    Suite *s = suite_create("dtype");

    TCase *tc = tcase_create("host");
    tcase_add_test(tc, converters_self_check);
    suite_add_tcase(s, tc);

    tc = tu_tcase(s, "device", "col");
    tcase_add_loop_test(tc, dtype_pairs_random, 0, 9);
    tcase_add_loop_test(tc, dtype_edges, 0, 9);
    tcase_add_loop_test(tc, dtype_unfused_rounds_twice, 0, 3);
    tcase_add_test(tc, dtype_invalid);
    return s;
}
