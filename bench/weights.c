/*
 * weights.c -- the fused call into fp16 output from each weight storage
 * type: fp16, int8 with fp32 row scales, ggml's blocks (Q8_0, Q4_0 ..
 * Q6_K), and fp8 E4M3 and E5M2 with fp32 row scales, on the decode, mid
 * and prefill shapes with implicit positions.  The goal reads mid and
 * prefill (verdict.c); the decode rows, a launch of 64 rows, are reported.
 *
 * Every type's weights are sinpe_quantize() of the same float32 table,
 * drawn from the seed, so the types differ by their rounding only; the
 * k-quants, which sinpe_quantize does not write, are random valid blocks.  A row's
 * bytes are the fused case's (cases.c) with the weights' own row size, row
 * scale included.  Each shape's fused output is checked against the unfused
 * pair from the same weights, within 2 ulps as for fp16 storage (check.c).
 * The ratios the goals read (verdict.c) are over the fp16-weights row of
 * the same shape, timed in the same interleaved rounds (run_shape).
 * Beside the fp16 row, "f16 in 3 buffers": the same table as three
 * sub-buffers of its buffer (weights_list), which a table larger than
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE needs; its time covers all its launches
 * (bracketed), its ratio is over the one buffer's.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_ROWS 512

/* The shapes this section times (indices into bench_shapes). */
static const size_t shape_ids[] = {0, 1, 2}; /* decode, mid, prefill */
#define N_SHAPES (sizeof shape_ids / sizeof shape_ids[0])
#define N_TYPES BENCH_N_DTYPES

static int has_row_scales(sinpe_dtype t)
{
    sinpe_dtype_scales s = bench_dtype_info(t).scales;
    return s == SINPE_DTYPE_SCALES_ROW || s == SINPE_DTYPE_SCALES_ROW_OR_TENSOR;
}

/* A 32-bit xorshift step; values in [-1, 1) from its top 24 bits. */
static float next_value(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return (float)(*x >> 8) * 0x1p-23f - 1.0f;
}

/* bytes of random k-quant blocks of type (Q4_K, Q5_K, Q6_K): random codes,
   sub-scales and mins, the fp16 d (and dmin) 2^-6. */
static void kquant_blocks(sinpe_dtype type, unsigned char *dst, size_t bytes, uint32_t *x)
{
    size_t bb = sinpe_dtype_bytes(type, 256), b, k;
    for (k = 0; k < bytes; k++)
        dst[k] = (unsigned char)(next_value(x) * 127.0f);
    for (b = 0; b < bytes / bb; b++) {
        unsigned char *d = dst + b * bb + (type == SINPE_Q6_K ? 208 : 0);
        d[0] = 0x00, d[1] = 0x24;
        if (type != SINPE_Q6_K)
            d[2] = 0x00, d[3] = 0x24;
    }
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
        if (bench_dtype_info(type).block_values == 256)
            kquant_blocks(type, dst, n * row_bytes, &x);
        else
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

/* One weights type of the section: its buffers, made once per dim. */
typedef struct wtype {
    sinpe_dtype type;
    cl_mem w, sc;
} wtype;

/* The weights of the split row: SPLIT sub-buffers of one buffer of
   BENCH_VOCAB rows, at row boundaries (fp16 rows are whole multiples of
   the 128-byte base alignment at the bench's dims). */
#define SPLIT 3
typedef struct split {
    cl_mem list[SPLIT];
    size_t rows[SPLIT];
} split;

static int make_split(bench_env *env, cl_mem w, size_t row_bytes, split *s)
{
    cl_int err = CL_SUCCESS;
    for (size_t j = 0, first = 0; j < SPLIT; first += s->rows[j++]) {
        s->rows[j] = BENCH_VOCAB / SPLIT + (j < BENCH_VOCAB % SPLIT);
        const cl_buffer_region r = {first * row_bytes, s->rows[j] * row_bytes};
        s->list[j] = clCreateSubBuffer(w, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &r,
                                       &err);
        CHECK_AS("clCreateSubBuffer(weights)", err);
    }
    (void)env;
    return 0;
fail:
    return -1;
}

static void release_split(split *s)
{
    for (int j = 0; j < SPLIT; j++)
        if (s->list[j])
            clReleaseMemObject(s->list[j]);
}

/* The fused call of type ty on shape sr: args of this type, out[0]. */
static void set_type(bench_shape_run *sr, const wtype *ty)
{
    sr->args.weights = ty->w;
    sr->args.weight_scales = ty->sc;
    sr->args.weights_dtype = ty->type;
}

/*
 * Times the fused call of every type on shape k in interleaved rounds
 * (bench_time_rounds): a type's ratio is the median of its rounds' ratios
 * to the fp16 weights' (ty[0] when fp16 is timed).  Then each type's fused
 * output, poisoned first, is checked against the unfused pair from the
 * same weights.
 */
static int run_shape(bench_env *env, sinpe_table *table, size_t dim, size_t k,
                     const wtype *ty, int n, cl_mem out[2], check_tally *tally,
                     goal_tally *goals)
{
    const bench_shape *sh = &bench_shapes[shape_ids[k]];
    size_t tokens = sh->seqs * sh->seq_len;
    cl_uchar poison[2] = {0x00, 0xFF};
    bench_inputs in = {NULL, NULL, 0};
    bench_shape_run sr, srt[N_TYPES + 1];
    bench_job jobs[N_TYPES + 1];
    bench_stats st[N_TYPES + 1];
    bench_rounds rounds;
    int has_fp16 = ty[0].type == SINPE_F16;
    split sp = {{NULL, NULL, NULL}, {0, 0, 0}};

    memset(&sr, 0, sizeof sr);
    if (bench_inputs_make(env, shape_ids[k], 0, &in) != 0)
        return -1;
    sinpe_embed_args_init(&sr.args);
    sr.table = table;
    sr.args.n_seqs = sh->seqs;
    sr.args.seq_len = sh->seq_len;
    sr.args.ids = in.ids;
    sr.args.vocab = BENCH_VOCAB;
    sr.args.token_scale = 32.0f; /* sqrt(1024); a power of two at either dim */
    sr.args.out_dtype = SINPE_F16;
    sr.out[BENCH_OUT_FUSED] = out[0];
    sr.out[BENCH_OUT_UNFUSED] = out[1];
    for (int i = 0; i < n; i++) {
        srt[i] = sr;
        set_type(&srt[i], &ty[i]);
        jobs[i] = (bench_job){bench_cases[0].run, NULL, &srt[i], 0};
    }
    if (has_fp16) { /* job n: the fp16 table in SPLIT buffers */
        if (make_split(env, ty[0].w, sinpe_dtype_bytes(SINPE_F16, dim), &sp) != 0)
            goto fail;
        srt[n] = srt[0];
        srt[n].args.weights = NULL;
        srt[n].args.weights_count = SPLIT;
        srt[n].args.weights_list = sp.list;
        srt[n].args.weights_rows = sp.rows;
        jobs[n] = (bench_job){bench_cases[0].run, NULL, &srt[n], 1};
    }
    if (bench_time_rounds(env, jobs, n + has_fp16, st, &rounds) != 0)
        goto fail;

    for (int i = 0; i < n + has_fp16; i++) {
        const wtype *t = &ty[i < n ? i : 0];
        bench_traffic tr = {(double)tokens, (double)in.distinct, 4.0 * (double)dim,
                            (double)sinpe_dtype_bytes(t->type, dim) + (t->sc ? 4.0 : 0.0),
                            2.0 * (double)dim, 0};
        bench_traffic tr16 = tr;
        bench_row row;
        sinpe_embed_args a;
        char what[96];

        memset(&row, 0, sizeof row);
        tr16.in_row = (double)sinpe_dtype_bytes(SINPE_F16, dim);
        row.stats = st[i];
        row.name = "fused";
        row.positions = "implicit";
        row.shape = sh->name;
        row.dtype = bench_dtype_name(SINPE_F16);
        row.weights = i < n ? bench_dtype_name(t->type) : "f16 in 3 buffers";
        row.seqs = sh->seqs;
        row.seq_len = sh->seq_len;
        row.dim = dim;
        row.distinct_positions = in.distinct;
        row.bytes = row.task_bytes = bench_bytes_fused(&tr);
        if (i == n) {
            row.vs_weights = bench_round_ratio(&rounds, n, 0);
            row.vs_weights_gbps = 1.0 / row.vs_weights;
        } else if (has_fp16 && i > 0) {
            row.vs_weights = bench_round_ratio(&rounds, i, 0);
            row.vs_weights_gbps = row.bytes / bench_bytes_fused(&tr16) / row.vs_weights;
        }
        if (shape_ids[k] != 0) /* not decode */
            bench_goal_row(env, goals, &row);
        bench_report_row(env, &row);

        /* The fused call once more into a poisoned output, then the
           unfused pair from the same weights, untimed, for the check. */
        for (int o = 0; o < 2; o++)
            CHECK(clEnqueueFillBuffer(env->queue, out[o], &poison[o], 1, 0, tokens * dim * 2,
                                      0, NULL, NULL));
        a = srt[i].args;
        a.out = out[0];
        CHECK(sinpe_enqueue_embed(table, env->queue, &a, 0, NULL, NULL));
        a.out = out[1];
        CHECK(sinpe_enqueue_gather(table, env->queue, &a, 0, NULL, NULL));
        CHECK(sinpe_enqueue_add_positions(table, env->queue, &a, 0, NULL, NULL));
        CHECK(clFinish(env->queue));
        snprintf(what, sizeof what, "dim %zu, %s weights, fp16 output, %s", dim, row.weights,
                 sh->name);
        if (bench_check_shape(env, &srt[i], SINPE_F16, tokens * dim, 0, what, tally) != 0)
            goto fail;
    }
    bench_inputs_release(&in);
    release_split(&sp);
    return 0;
fail:
    bench_inputs_release(&in);
    release_split(&sp);
    return -1;
}

int bench_weight_cases(bench_env *env, sinpe_table *table, size_t dim, check_tally *tally,
                       goal_tally *goals)
{
    size_t tokens = 0, k;
    cl_mem out[2] = {NULL, NULL};
    wtype ty[N_TYPES];
    cl_int err;
    int t, n = 0, rc = -1;

    for (k = 0; k < N_SHAPES; k++) {
        const bench_shape *sh = &bench_shapes[shape_ids[k]];
        tokens = sh->seqs * sh->seq_len > tokens ? sh->seqs * sh->seq_len : tokens;
    }
    for (k = 0; k < 2; k++) {
        out[k] = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, tokens * dim * 2, NULL, &err);
        CHECK_AS("clCreateBuffer(output)", err);
    }
    /* fp16 first: the other types' ratios are read against it. */
    for (k = 0; k <= sinpe_dtype_count() && k <= BENCH_N_DTYPES; k++) {
        t = k == 0 ? SINPE_F16 : (int)k - 1;
        if ((k > 0 && t == SINPE_F16) || !(env->opts->weights & (1u << t)))
            continue;
        if ((size_t)BENCH_VOCAB * sinpe_dtype_bytes((sinpe_dtype)t, dim) > env->max_alloc) {
            printf("dim %zu %s weights skipped: over CL_DEVICE_MAX_MEM_ALLOC_SIZE\n", dim,
                   bench_dtype_name((sinpe_dtype)t));
            continue;
        }
        ty[n] = (wtype){(sinpe_dtype)t, NULL, NULL};
        if (make_weights(env, (sinpe_dtype)t, dim, &ty[n].w, &ty[n].sc) != 0) {
            n++; /* released below */
            goto fail;
        }
        n++;
    }
    for (k = 0; k < N_SHAPES && n > 0; k++)
        if (run_shape(env, table, dim, k, ty, n, out, tally, goals) != 0)
            goto fail;
    rc = 0;
fail:
    for (k = 0; k < 2; k++)
        if (out[k])
            clReleaseMemObject(out[k]);
    for (t = 0; t < n; t++) {
        if (ty[t].w)
            clReleaseMemObject(ty[t].w);
        if (ty[t].sc)
            clReleaseMemObject(ty[t].sc);
    }
    return rc;
}
