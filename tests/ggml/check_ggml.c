/*
 * check_ggml.c -- sinpe against ggml's own CPU backend (make check-ggml
 * GGML_DIR=<ggml install prefix>; not in make test: CI has no ggml).
 *
 * Rotary: check_ggml_rope.c, ggml_rope_ext and ggml_rope_multi against
 * sinpe_enqueue_rope() with the spec of the same model.  Block types:
 * ggml_quantize_chunk()'s blocks decoded by ggml's to_float and by sinpe's
 * gather and fused call, bit for bit; sinpe_quantize()'s bytes against
 * ggml's.
 */
#include "check_ggml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int failures;
uint64_t rng_state = 0x9e3779b97f4a7c15u;

void fail_if(int bad, const char *what)
{
    if (bad)
        failures++, printf("  FAIL: %s\n", what);
}

void need(int good, const char *call, long code)
{
    if (!good) {
        fprintf(stderr, "%s failed (%ld): %s\n", call, code, sinpe_last_error());
        exit(2);
    }
}

uint32_t rng_u32(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

cl_mem buffer(sinpe_context *ctx, size_t bytes, const void *host)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(sinpe_context_cl_context(ctx),
                              CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)host, &err);
    need(err == CL_SUCCESS, "clCreateBuffer", err);
    return m;
}

/* --- block types ------------------------------------------------------- */

typedef struct block_case {
    const char *name;
    enum ggml_type gt;
    sinpe_dtype st;
    int quantize; /* sinpe_quantize writes it */
} block_case;

static const block_case block_cases[] = {
    {"Q4_0", GGML_TYPE_Q4_0, SINPE_Q4_0, 1}, {"Q4_1", GGML_TYPE_Q4_1, SINPE_Q4_1, 1},
    {"Q5_0", GGML_TYPE_Q5_0, SINPE_Q5_0, 1}, {"Q5_1", GGML_TYPE_Q5_1, SINPE_Q5_1, 1},
    {"Q8_0", GGML_TYPE_Q8_0, SINPE_Q8_0, 1}, {"Q4_K", GGML_TYPE_Q4_K, SINPE_Q4_K, 0},
    {"Q5_K", GGML_TYPE_Q5_K, SINPE_Q5_K, 0}, {"Q6_K", GGML_TYPE_Q6_K, SINPE_Q6_K, 0},
};

enum { ROWS = 64, DIM = 1024, IDS = ROWS + 32 };

/* Rows of sums of uniforms (near normal), row scales from 1e-3 to 1e3;
   row 1 starts with a block of zeros, row 2 is zeros (-0 and +0 mixed),
   row 3 one value repeated. */
static void make_rows(float *x)
{
    for (int r = 0; r < ROWS; r++) {
        float s = (float)pow(10.0, (r % 7) - 3.0);
        for (int c = 0; c < DIM; c++)
            x[r * DIM + c] = s * (rng_float() + rng_float() + rng_float());
    }
    for (int c = 0; c < DIM; c++) { /* zeros of both signs; one value */
        x[2 * DIM + c] = c % 3 ? 0.0f : -0.0f, x[3 * DIM + c] = 0.75f;
        if (c < 32)
            x[DIM + c] = c % 2 ? 0.0f : -0.0f;
    }
}

/* sinpe_quantize()'s blocks against ggml's bytes q.  Allowed: a d of -0
   against +0 in a zero block, and Q8_0 codes one apart under the same d
   (sinpe divides by the stored fp16 d, ggml multiplies by 1/d of the
   float32 d before its rounding to fp16). */
static void check_quantize(const block_case *b, const float *x, const unsigned char *q,
                           size_t bytes)
{
    size_t bb = ggml_type_size(b->gt);
    unsigned char *mine = malloc(bytes);
    long blocks = (long)(bytes / bb), bad = 0, neg_zero = 0, one_apart = 0, codes = 0;
    OK(sinpe_quantize(b->st, x, ROWS, DIM, mine, bytes, NULL, SINPE_F32));
    for (long k = 0; k < blocks; k++) {
        const unsigned char *g = q + k * bb, *s = mine + k * bb;
        if (!memcmp(g, s, bb))
            continue;
        if (!memcmp(g + 2, s + 2, bb - 2) && (g[0] | s[0]) == 0 && (g[1] ^ s[1]) == 0x80) {
            neg_zero += (g[1] | s[1]) == 0x80, bad += (g[1] | s[1]) != 0x80;
            continue;
        }
        int near = b->gt == GGML_TYPE_Q8_0 && !memcmp(g, s, 2);
        for (int j = 0; near && j < 32; j++)
            near = abs((signed char)g[2 + j] - (signed char)s[2 + j]) <= 1,
            codes += g[2 + j] != s[2 + j];
        one_apart += near, bad += !near;
    }
    printf("; sinpe_quantize's blocks against ggml's: %ld of %ld differ (d -0/+0 in a zero "
           "block: %ld; Q8_0 codes one apart: %ld blocks, %ld codes)",
           bad + neg_zero + one_apart, blocks, neg_zero, one_apart, codes);
    fail_if(bad != 0, "sinpe_quantize's bytes differ from ggml's");
    free(mine);
}

static void check_blocks(sinpe_context *ctx, const block_case *b, const float *x)
{
    cl_command_queue cq = sinpe_context_queue(ctx);
    size_t bytes = ROWS * ggml_row_size(b->gt, DIM), out = (size_t)IDS * DIM * 4;
    unsigned char *q = malloc(bytes);
    float *dq = malloc((size_t)ROWS * DIM * 4), *got = malloc(out), nan = NAN;
    ggml_quantize_chunk(b->gt, x, q, 0, ROWS, DIM, NULL);
    ggml_get_type_traits(b->gt)->to_float(q, dq, (int64_t)ROWS * DIM);
    fail_if(sinpe_dtype_bytes(b->st, (size_t)ROWS * DIM) != bytes, "block size differs");
    int32_t ids[IDS]; /* every row, then some again */
    for (int i = 0; i < IDS; i++)
        ids[i] = i < ROWS ? i : rng_int(0, ROWS - 1);
    sinpe_spec spec;
    sinpe_spec_init(&spec, DIM);
    sinpe_table *t = NULL;
    OK(sinpe_table_create(ctx, &spec, 8, &t));
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    a.n_seqs = 1, a.seq_len = IDS, a.vocab = ROWS, a.weights_dtype = b->st;
    a.ids = buffer(ctx, sizeof ids, ids), a.weights = buffer(ctx, bytes, q);
    a.out = buffer(ctx, out, NULL);
    long differ[2] = {0, 0};
    for (int call = 0; call < 2; call++) { /* gather, then fused with PE skipped */
        need(clEnqueueFillBuffer(cq, a.out, &nan, 4, 0, out, 0, NULL, NULL) == CL_SUCCESS,
             "clEnqueueFillBuffer", 0);
        a.skip_pe = call;
        OK(call ? sinpe_enqueue_embed(t, cq, &a, 0, NULL, NULL)
                : sinpe_enqueue_gather(t, cq, &a, 0, NULL, NULL));
        read_back(ctx, a.out, out, got);
        for (int i = 0; i < IDS; i++)
            differ[call] += memcmp(got + (size_t)i * DIM, dq + (size_t)ids[i] * DIM, DIM * 4) != 0;
    }
    printf("%-5s %d rows x %d: decode of ggml's blocks, rows differing from ggml's to_float: "
           "gather %ld, fused %ld of %d",
           b->name, ROWS, DIM, differ[0], differ[1], IDS);
    fail_if(differ[0] || differ[1], "sinpe's decode differs from ggml's to_float");
    if (b->quantize)
        check_quantize(b, x, q, bytes);
    printf("\n");
    clReleaseMemObject(a.ids), clReleaseMemObject(a.weights), clReleaseMemObject(a.out);
    sinpe_table_release(t);
    free(q), free(dq), free(got);
}

int main(void)
{
    sinpe_context *ctx = NULL;
    char dev[256] = "";
    OK(sinpe_context_create(NULL, &ctx));
    clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_NAME, sizeof dev - 1, dev, NULL);
    printf("sinpe %s on %s against ggml %s (CPU backend); seed 0x%016llx\n",
           sinpe_version_string(), dev, ggml_version(), (unsigned long long)rng_state);
    check_rope_all(ctx);
    float *x = malloc((size_t)ROWS * DIM * 4);
    make_rows(x);
    for (size_t i = 0; i < sizeof block_cases / sizeof block_cases[0]; i++)
        check_blocks(ctx, &block_cases[i], x);
    free(x);
    sinpe_context_release(ctx);
    printf("check-ggml: %s (%d failed)\n", failures ? "FAILED" : "passed", failures);
    return failures != 0;
}
