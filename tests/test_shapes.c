/* test_shapes.c -- the work shape (the tuning record, src/plan.c) changes
 * how the work is split, never a bit of the result: the same calls in a
 * context of the device's own record and in contexts of every record the
 * database reaches (tu_variants: each record with every call in
 * its plain forms, decode-sized and streamed) give equal bytes, for every
 * kernel form and every output type.
 *
 * Under SINPE_TUNING (the runs of "make test" under each record that adds
 * a kernel form, and "make check-records") the one record compared is that
 * one; without it, every record of tu_variants is.  The case is tagged with
 * every form, so that each such run compares its record, and "make test"
 * leaves it out of the run under the device's own record (tag "records").
 *
 * The calls have an odd sequence count (5) against 1, 2 and 4 sequences
 * per work-item, a dim of 4k + 2 (the scalar tail of four-column work-items)
 * and one of 8k (whole vector accesses, aligned where the record allows;
 * six fp32 or three 16-bit lines, against four lines per STREAM work-item),
 * positions past the table (the on-the-fly forms), padding policies, and
 * table rows that start and end inside 128-row blocks (partial tiles).
 * The two runs of a comparison poison their outputs with different bytes,
 * so an element left unwritten by either makes them differ. */
#include "test_util.h"
#include "variants.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_SEQS 5
#define SEQ_LEN 37
#define MAX_DIM 96 /* the dims: 66, then 96 */
#define VOCAB 50
#define TABLE_ROWS 100
#define ROW0 77   /* table rows case: rows ROW0 .. ROW0 + N_ROWS - 1 */
#define N_ROWS 300
#define ROW_STRIDE(dim) ((dim) + 3)
#define MAX_VARIANTS 32

static char variants[MAX_VARIANTS][SINPE__VARIANT];
static size_t n_variants;

/* A context of the record given (NULL: the device's own). */
static sinpe_context *shape_context(const char *record)
{
    sinpe_context_options options;
    sinpe_context *ctx = NULL;
    sinpe_context_options_init(&options);
    options.tuning = record ? record : "";
    TU_OK(sinpe_context_create(&options, &ctx));
    return ctx;
}

typedef struct inputs {
    int32_t ids[N_SEQS * SEQ_LEN];
    int32_t pos[N_SEQS * SEQ_LEN];
    float weights[VOCAB * MAX_DIM];
    float init[N_SEQS * SEQ_LEN * MAX_DIM]; /* the output's contents before add_positions */
} inputs;

enum { CASE_FAST, CASE_EXPLICIT, CASE_EXPLICIT_PAD, CASE_CROSSING, CASE_GATHER, CASE_ADD,
       CASE_ROWS, N_CASES };
static const char *const case_names[N_CASES] = {
    "implicit in the table", "explicit past the table", "explicit, pad ZERO_PE",
    "implicit crossing the table's end, pad ZERO_OUTPUT", "gather, pad ZERO_EMBEDDING",
    "add_positions", "table rows"};

static size_t case_bytes(int c, sinpe_dtype dt, size_t dim)
{
    size_t elem = dt == SINPE_F32 ? 4 : 2;
    return c == CASE_ROWS ? (size_t)N_ROWS * ROW_STRIDE(dim) * elem
                          : (size_t)N_SEQS * SEQ_LEN * dim * elem;
}

/* Runs case c with output type dt in ctx, into a buffer filled with the
   byte poison; returns the output's bytes (malloc'd). */
static unsigned char *run_case(sinpe_context *ctx, const inputs *in, int c, sinpe_dtype dt,
                               size_t dim, unsigned char poison)
{
    size_t bytes = case_bytes(c, dt, dim);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *table = tu_table(ctx, dim, TABLE_ROWS);
    cl_mem out = tu_buffer(ctx, bytes, NULL);
    TU_CL(clEnqueueFillBuffer(q, out, &poison, 1, 0, bytes, 0, NULL, NULL));
    if (c == CASE_ROWS) {
        TU_OK(sinpe_enqueue_table_rows(table, q, ROW0, N_ROWS, out, 0, ROW_STRIDE(dim), dt, 0,
                                       NULL, NULL));
    } else {
        cl_mem ids = tu_buffer(ctx, sizeof in->ids, in->ids);
        cl_mem pos = tu_buffer(ctx, sizeof in->pos, in->pos);
        cl_mem w = tu_buffer(ctx, sizeof in->weights, in->weights);
        sinpe_embed_args a = tu_args(N_SEQS, SEQ_LEN, ids, w, VOCAB, out);
        a.out_dtype = dt, a.token_scale = 1.75f, a.start = 3, a.pad_id = 7;
        if (c == CASE_EXPLICIT || c == CASE_EXPLICIT_PAD)
            a.positions = pos, a.start = 0;
        if (c == CASE_EXPLICIT_PAD)
            a.pad_policy = SINPE_PAD_ZERO_PE;
        if (c == CASE_CROSSING)
            a.start = TABLE_ROWS - 20, a.pad_policy = SINPE_PAD_ZERO_OUTPUT;
        if (c == CASE_GATHER) {
            a.pad_policy = SINPE_PAD_ZERO_EMBEDDING;
            TU_OK(sinpe_enqueue_gather(table, q, &a, 0, NULL, NULL));
        } else if (c == CASE_ADD) {
            /* The same starting values in both runs (the output type's rounding of init). */
            cl_mem init = tu_buffer(ctx, sizeof in->init, in->init);
            sinpe_embed_args g = a;
            g.weights = init, g.vocab = N_SEQS * SEQ_LEN, g.token_scale = 1.0f;
            g.ids = pos; /* row r of init for token r: pos holds a permutation here */
            TU_OK(sinpe_enqueue_gather(table, q, &g, 0, NULL, NULL));
            TU_OK(sinpe_enqueue_add_positions(table, q, &a, 0, NULL, NULL));
            TU_CL(clFinish(q));
            clReleaseMemObject(init);
        } else {
            TU_OK(sinpe_enqueue_embed(table, q, &a, 0, NULL, NULL));
        }
        TU_CL(clFinish(q));
        TU_RELEASE(NULL, NULL, NULL, ids, pos, w);
    }
    unsigned char *got = tu_malloc(bytes);
    tu_read(q, out, 0, bytes, got);
    TU_RELEASE(NULL, q, table, out);
    return got;
}

/* Rows case: each row's dim elements equal, the stride gap of each left
   as its own run's poison. */
static void compare_rows(const unsigned char *a, const unsigned char *b, size_t elem,
                         size_t dim, unsigned char pa, unsigned char pb, const char *what)
{
    for (size_t r = 0; r < N_ROWS; r++) {
        const unsigned char *x = a + r * ROW_STRIDE(dim) * elem;
        const unsigned char *y = b + r * ROW_STRIDE(dim) * elem;
        ck_assert_msg(memcmp(x, y, dim * elem) == 0, "%s: row %zu differs", what, r);
        for (size_t i = dim * elem; r + 1 < N_ROWS && i < ROW_STRIDE(dim) * elem; i++)
            TU_CHECK(x[i] == pa && y[i] == pb, "%s: row %zu: the gap was written", what,
                     r);
    }
}

/* Every variant is compared (the list has room for them all). */
START_TEST(shapes_variants_fit)
{
    ck_assert_uint_ge(n_variants, 1);
    ck_assert_msg(n_variants <= MAX_VARIANTS, "%zu variants, room for %d", n_variants,
                  MAX_VARIANTS);
}
END_TEST

/* Loop index: variant _i / 2, at dim 66, then at dim 96. */
START_TEST(shapes_equal_bytes)
{
    const char *shape = variants[_i / 2];
    size_t dim = _i % 2 ? 96 : 66;
    inputs *in = tu_malloc(sizeof *in);
    tu_rng rng = tu_rng_for("shapes");
    for (size_t i = 0; i < N_SEQS * SEQ_LEN; i++) {
        in->ids[i] = tu_rng_int(&rng, 0, VOCAB - 1);
        in->pos[i] = tu_rng_int(&rng, 0, 3 * TABLE_ROWS);
    }
    tu_rng_floats(&rng, in->weights, VOCAB * dim, -2.0f, 2.0f);
    tu_rng_floats(&rng, in->init, N_SEQS * SEQ_LEN * dim, -2.0f, 2.0f);

    sinpe_context *base = shape_context(NULL), *other = shape_context(shape);
    const sinpe_dtype dts[3] = {SINPE_F32, SINPE_F16, SINPE_BF16};
    for (int c = 0; c < N_CASES; c++) {
        /* add_positions reads init rows through a gather whose ids must be
           in range: a permutation of the tokens. */
        if (c == CASE_ADD)
            for (int32_t i = 0; i < N_SEQS * SEQ_LEN; i++)
                in->pos[i] = (i * 7) % (N_SEQS * SEQ_LEN);
        for (int d = 0; d < 3; d++) {
            char what[512];
            snprintf(what, sizeof what, "%s, out %s, dim %zu, record \"%s\"", case_names[c],
                     d == 0 ? "f32" : d == 1 ? "f16" : "bf16", dim, shape);
            unsigned char *a = run_case(base, in, c, dts[d], dim, 0xA5);
            unsigned char *b = run_case(other, in, c, dts[d], dim, 0x5A);
            if (c == CASE_ROWS)
                compare_rows(a, b, dts[d] == SINPE_F32 ? 4 : 2, dim, 0xA5, 0x5A, what);
            else
                ck_assert_msg(memcmp(a, b, case_bytes(c, dts[d], dim)) == 0,
                              "%s: the outputs differ (or one left elements unwritten)", what);
            TU_FREE(a, b);
        }
    }
    sinpe_context_release(base);
    sinpe_context_release(other);
    free(in);
}
END_TEST

/* Vector-pointer accesses need 16-byte aligned buffers; a CL_MEM_USE_HOST_PTR
 * buffer may sit anywhere, and the host must notice.  Weights in host memory
 * 4 bytes past an aligned address, in a context with the aligned path on,
 * against the device's own shape with an ordinary buffer. */
START_TEST(shapes_misaligned_host_memory)
{
    enum { DIM = 64, ROWS = 40, N = N_SEQS * SEQ_LEN };
    sinpe_context *base = shape_context(NULL);
    sinpe_context *other = shape_context("aligned = 1; stream = 1; stream_bytes = 0");
    tu_rng rng = tu_rng_for("misaligned");
    float *store = tu_malloc((VOCAB * DIM + 8) * sizeof *store);
    float *w = (float *)(((uintptr_t)store + 15) / 16 * 16) + 1; /* 4 bytes past 16 */
    int32_t ids[N];
    tu_rng_floats(&rng, w, VOCAB * DIM, -2.0f, 2.0f);
    tu_rng_ints(&rng, ids, N, 0, VOCAB - 1);

    float *out[2];
    sinpe_context *ctxs[2] = {base, other};
    for (int k = 0; k < 2; k++) {
        sinpe_context *ctx = ctxs[k];
        cl_command_queue q = tu_queue(ctx);
        sinpe_table *table = tu_table(ctx, DIM, ROWS);
        cl_int err;
        cl_mem wbuf = k ? clCreateBuffer(sinpe_context_cl_context(ctx),
                                         CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                         VOCAB * DIM * sizeof *w, w, &err)
                        : tu_buffer(ctx, VOCAB * DIM * sizeof *w, w);
        if (k)
            TU_CL(err);
        cl_mem ibuf = tu_buffer(ctx, sizeof ids, ids);
        cl_mem obuf = tu_buffer(ctx, (size_t)N * DIM * sizeof(float), NULL);
        float poison = k ? -7.0f : 7.0f;
        TU_CL(clEnqueueFillBuffer(q, obuf, &poison, sizeof poison, 0,
                                  (size_t)N * DIM * sizeof(float), 0, NULL, NULL));
        sinpe_embed_args a = tu_args(N_SEQS, SEQ_LEN, ibuf, wbuf, VOCAB, obuf);
        a.token_scale = 8.0f;
        TU_OK(sinpe_enqueue_embed(table, q, &a, 0, NULL, NULL));
        out[k] = tu_read_floats(q, obuf, (size_t)N * DIM);
        TU_RELEASE(NULL, q, table, wbuf, ibuf, obuf);
    }
    ck_assert_msg(memcmp(out[0], out[1], (size_t)N * DIM * sizeof(float)) == 0,
                  "weights in misaligned host memory: the outputs differ");
    TU_FREE(out[0], out[1], store);
    sinpe_context_release(base);
    sinpe_context_release(other);
}
END_TEST

TU_SUITE(shapes, 8)
{
    Suite *s = suite_create("shapes");
    TCase *tc = tu_tcase(s, "equal bytes", "records " TU_FORMS_ALL);
    const char *env = getenv("SINPE_TUNING");
    if (env && *env)
        snprintf(variants[0], sizeof variants[0], "%s", env), n_variants = 1;
    else
        n_variants = tu_variants(variants, MAX_VARIANTS);
    tcase_add_test(tc, shapes_variants_fit);
    tcase_add_loop_test(tc, shapes_equal_bytes, 0,
                        2 * (int)(n_variants < MAX_VARIANTS ? n_variants : MAX_VARIANTS));
    tc = tu_tcase(s, "misaligned", NULL);
    tcase_add_test(tc, shapes_misaligned_host_memory);
    return s;
}
