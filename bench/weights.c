/*
 * weights.c -- the fused call into fp16 output from each weight storage
 * type: fp16, int8 with fp32 row scales, Q8_0 blocks, and fp8 E4M3 and
 * E5M2 with fp32 row scales, on the mid and prefill shapes with implicit
 * positions.
 *
 * Every type's weights are sinpe_quantize() of the same float32 table,
 * drawn from the seed, so the types differ by their rounding only.  A row's
 * bytes are the fused case's (cases.c) with the weights' own row size, row
 * scale included.  Each shape's fused output is checked against the unfused
 * pair from the same weights, within 2 ulps as for fp16 storage (check.c).
 * The ratios the goals read (verdict.c) are over the fp16-weights row of
 * the same shape in the same run.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_ROWS 512

/* The shapes this section times (indices into bench_shapes). */
static const size_t shape_ids[] = {1, 2}; /* mid, prefill */
#define N_SHAPES (sizeof shape_ids / sizeof shape_ids[0])

static int has_row_scales(sinpe_dtype t)
{
    return t == SINPE_I8 || t == SINPE_FP8_E4M3 || t == SINPE_FP8_E5M2;
}

/* A 32-bit xorshift step; values in [-1, 1) from its top 24 bits. */
static float next_value(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return (float)(*x >> 8) * 0x1p-23f - 1.0f;
}

/* The weights (and row scales) of type at dim, quantized on the host a
   chunk of rows at a time and written to new buffers. */
static int make_weights(bench_env *env, sinpe_dtype type, size_t dim, cl_mem *w, cl_mem *sc)
{
    size_t row_bytes = sinpe_dtype_bytes(type, dim), r0, i;
    float *src = malloc(CHUNK_ROWS * dim * sizeof *src);
    unsigned char *dst = malloc(CHUNK_ROWS * row_bytes);
    float scales[CHUNK_ROWS];
    uint32_t x = (uint32_t)(env->opts->seed ^ (env->opts->seed >> 32)) ^ (uint32_t)dim;
    cl_int err;

    x = x ? x : 1u;
    *sc = NULL;
    *w = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY, BENCH_VOCAB * row_bytes, NULL, &err);
    CHECK_AS("clCreateBuffer(weights)", err);
    if (has_row_scales(type)) {
        *sc = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY, BENCH_VOCAB * sizeof(float), NULL,
                             &err);
        CHECK_AS("clCreateBuffer(weight scales)", err);
    }
    CHECK_AS("malloc (weights)", src && dst ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (r0 = 0; r0 < BENCH_VOCAB; r0 += CHUNK_ROWS) {
        size_t n = BENCH_VOCAB - r0 < CHUNK_ROWS ? BENCH_VOCAB - r0 : CHUNK_ROWS;
        for (i = 0; i < n * dim; i++)
            src[i] = next_value(&x);
        CHECK(sinpe_quantize(type, src, n, dim, dst, n * row_bytes, *sc ? scales : NULL,
                             SINPE_F32));
        CHECK(clEnqueueWriteBuffer(env->queue, *w, CL_TRUE, r0 * row_bytes, n * row_bytes, dst,
                                   0, NULL, NULL));
        if (*sc)
            CHECK(clEnqueueWriteBuffer(env->queue, *sc, CL_TRUE, r0 * sizeof(float),
                                       n * sizeof(float), scales, 0, NULL, NULL));
    }
    free(src);
    free(dst);
    return 0;
fail:
    free(src);
    free(dst);
    return -1;
}

/* Times the fused call of one shape, checks it against the unfused pair,
   and reports the row; fp16[k] holds the fp16 weights' time and GB/s on
   shape k. */
static int run_shape(bench_env *env, sinpe_table *table, size_t dim, sinpe_dtype type,
                     size_t k, cl_mem w, cl_mem sc, cl_mem out[2], double (*fp16)[2],
                     check_tally *tally, goal_tally *goals)
{
    const bench_shape *sh = &bench_shapes[shape_ids[k]];
    size_t tokens = sh->seqs * sh->seq_len;
    cl_uchar poison[2] = {0x00, 0xFF};
    bench_inputs in = {NULL, NULL, 0};
    bench_shape_run sr;
    bench_traffic tr;
    bench_row row;
    bench_job job;
    sinpe_embed_args a;
    char what[96];

    memset(&sr, 0, sizeof sr);
    memset(&row, 0, sizeof row);
    if (bench_inputs_make(env, shape_ids[k], 0, &in) != 0)
        return -1;
    sinpe_embed_args_init(&sr.args);
    sr.table = table;
    sr.args.n_seqs = sh->seqs;
    sr.args.seq_len = sh->seq_len;
    sr.args.ids = in.ids;
    sr.args.weights = w;
    sr.args.weight_scales = sc;
    sr.args.weights_dtype = type;
    sr.args.vocab = BENCH_VOCAB;
    sr.args.token_scale = 32.0f; /* sqrt(1024); a power of two at either dim */
    sr.args.out_dtype = SINPE_F16;
    sr.out[BENCH_OUT_FUSED] = out[0];
    sr.out[BENCH_OUT_UNFUSED] = out[1];
    for (int i = 0; i < 2; i++)
        CHECK(clEnqueueFillBuffer(env->queue, out[i], &poison[i], 1, 0, tokens * dim * 2, 0,
                                  NULL, NULL));

    job = (bench_job){bench_cases[0].run, NULL, &sr, 0};
    if (bench_time(env, &job, &row.stats) != 0)
        goto fail;
    tr = (bench_traffic){(double)tokens, (double)in.distinct, 4.0 * (double)dim,
                         (double)sinpe_dtype_bytes(type, dim) + (sc ? 4.0 : 0.0),
                         2.0 * (double)dim, 0};
    row.name = "fused";
    row.positions = "implicit";
    row.shape = sh->name;
    row.dtype = bench_dtype_name(SINPE_F16);
    row.weights = bench_dtype_name(type);
    row.seqs = sh->seqs;
    row.seq_len = sh->seq_len;
    row.dim = dim;
    row.distinct_positions = in.distinct;
    row.bytes = row.task_bytes = bench_bytes_fused(&tr);
    if (type == SINPE_F16) {
        fp16[k][0] = row.stats.median_us;
        fp16[k][1] = bench_gbps(row.bytes, row.stats.median_us);
    } else if (fp16[k][0] > 0.0) {
        row.vs_weights = row.stats.median_us / fp16[k][0];
        row.vs_weights_gbps = bench_gbps(row.bytes, row.stats.median_us) / fp16[k][1];
    }
    bench_goal_row(env, goals, &row);
    bench_report_row(env, &row);

    /* The unfused pair from the same weights, untimed, for the check. */
    a = sr.args;
    a.out = out[1];
    CHECK(sinpe_enqueue_gather(table, env->queue, &a, 0, NULL, NULL));
    CHECK(sinpe_enqueue_add_positions(table, env->queue, &a, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    snprintf(what, sizeof what, "dim %zu, %s weights, fp16 output, %s", dim, row.weights,
             sh->name);
    if (bench_check_shape(env, &sr, SINPE_F16, tokens * dim, 0, what, tally) != 0)
        goto fail;
    bench_inputs_release(&in);
    return 0;
fail:
    bench_inputs_release(&in);
    return -1;
}

int bench_weight_cases(bench_env *env, sinpe_table *table, size_t dim, check_tally *tally,
                       goal_tally *goals)
{
    size_t tokens = 0, k;
    double fp16[N_SHAPES][2] = {{0}};
    cl_mem out[2] = {NULL, NULL}, w = NULL, sc = NULL;
    cl_int err;
    int t, rc = -1;

    for (k = 0; k < N_SHAPES; k++) {
        const bench_shape *sh = &bench_shapes[shape_ids[k]];
        tokens = sh->seqs * sh->seq_len > tokens ? sh->seqs * sh->seq_len : tokens;
    }
    for (k = 0; k < 2; k++) {
        out[k] = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, tokens * dim * 2, NULL, &err);
        CHECK_AS("clCreateBuffer(output)", err);
    }
    /* fp16 first: the other types' ratios are read against it. */
    for (t = SINPE_F16; t <= SINPE_FP8_E5M2; t++) {
        if (t == SINPE_BF16 || !(env->opts->weights & (1u << t)))
            continue;
        if ((size_t)BENCH_VOCAB * sinpe_dtype_bytes((sinpe_dtype)t, dim) > env->max_alloc) {
            printf("dim %zu %s weights skipped: over CL_DEVICE_MAX_MEM_ALLOC_SIZE\n", dim,
                   bench_dtype_name((sinpe_dtype)t));
            continue;
        }
        if (make_weights(env, (sinpe_dtype)t, dim, &w, &sc) != 0)
            goto fail;
        for (k = 0; k < N_SHAPES; k++)
            if (run_shape(env, table, dim, (sinpe_dtype)t, k, w, sc, out, fp16, tally,
                          goals) != 0)
                goto fail;
        clReleaseMemObject(w);
        if (sc)
            clReleaseMemObject(sc);
        w = sc = NULL;
    }
    rc = 0;
fail:
    for (k = 0; k < 2; k++)
        if (out[k])
            clReleaseMemObject(out[k]);
    if (w)
        clReleaseMemObject(w);
    if (sc)
        clReleaseMemObject(sc);
    return rc;
}
