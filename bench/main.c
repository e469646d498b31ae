/*
 * main.c -- sinpe_bench: device time, wall time and bandwidth of the fused
 * embedding against the unfused pair, the add alone and the on-the-fly
 * encoding, on the shapes an inference server sees, in float32, float16
 * and bfloat16 storage, plus table generation, read against copy and write
 * ceilings measured in the same run.
 *
 * What runs, in order:
 *   1. the ceilings (ceiling.c): a float4 copy and a float4 write;
 *   2. for each dim in dims[]: table generation (table.c), then for each
 *      storage type, shape in shapes[] and positions mode, every case in
 *      bench_cases[] (cases.c);
 *   3. the ceilings again, to show whether the machine stayed quiet.
 * After its cases, every shape checks its outputs (verdict.c, check.c):
 * fused against unfused (byte for byte in float32, within the
 * double-rounding bound in float16 and bfloat16), and the on-the-fly output
 * against the table path's, byte for byte.  Any failure decides the exit
 * status.  The goals are read against the figures at the end (verdict.c).
 */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_shape {
    const char *name;
    size_t seqs, seq_len;
} bench_shape;

/* The order fixes each shape's random ids (see run_shape); bench/peers.py
   draws the same ones. */
static const bench_shape shapes[] = {
    {"decode", 64, 1},
    {"mid", 32, 512},
    {"prefill", 4, 2048},
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

static const size_t dims[] = {1024, 4096};
#define N_DIMS (sizeof dims / sizeof dims[0])

#define N_CASES_MAX 8

/* splitmix64: a small, well-mixed generator; the sequence is fixed by the seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) by the multiply-shift method (bias below 2^-32 * n). */
static cl_int random_below(uint64_t *state, size_t n)
{
    return (cl_int)(((next_random(state) >> 32) * (uint64_t)n) >> 32);
}

static int cmp_cl_int(const void *a, const void *b)
{
    cl_int x = *(const cl_int *)a, y = *(const cl_int *)b;
    return (x > y) - (x < y);
}

/* The number of distinct values in v[0..n) (sorts v). */
static size_t count_distinct(cl_int *v, size_t n)
{
    size_t i, d = n > 0;
    qsort(v, n, sizeof *v, cmp_cl_int);
    for (i = 1; i < n; i++)
        d += v[i] != v[i - 1];
    return d;
}

/* The table of one dim, and the float32 GB/s the 16-bit rows are read
   against: [shape][explicit][case]. */
typedef struct dim_state {
    size_t dim;
    sinpe_table *table;
    double fp32_gbps[N_SHAPES][2][N_CASES_MAX];
} dim_state;

/* The buffers of one dim and storage type. */
typedef struct dtype_state {
    sinpe_dtype dtype;
    cl_mem weights;
    cl_mem out[BENCH_N_OUT];
} dtype_state;

/*
 * What runs by default: both position modes in fp32 but implicit positions
 * only in fp16 and bf16, and fused_otf in fp32 with implicit positions on
 * batches of at most OTF_MAX_TOKENS tokens (decode and prefill, not mid);
 * --positions applies to every storage type, --full runs everything.  On
 * a CPU device the full matrix takes several times as long, most of it in
 * the on-the-fly case, which computes every sin and cos.
 */
#define OTF_MAX_TOKENS 8192

static int positions_selected(const bench_opts *o, sinpe_dtype dtype, int explicit_pos)
{
    unsigned bit = explicit_pos ? BENCH_POS_EXPLICIT : BENCH_POS_IMPLICIT;
    if (o->positions)
        return (o->positions & bit) != 0;
    return o->full || !explicit_pos || dtype == SINPE_F32;
}

static int case_selected(const bench_opts *o, size_t c, sinpe_dtype dtype,
                         const bench_shape *sh, int explicit_pos)
{
    if (bench_cases[c].out != BENCH_OUT_OTF || o->full)
        return 1;
    return dtype == SINPE_F32 && !explicit_pos && sh->seqs * sh->seq_len <= OTF_MAX_TOKENS;
}

/*
 * Times every case for one shape in one storage type and positions mode,
 * then checks the outputs.
 */
static int run_shape(bench_env *env, dim_state *ds, const dtype_state *ts, size_t si,
                     int explicit_pos, check_tally *tally, goal_tally *goals)
{
    const bench_shape *sh = &shapes[si];
    size_t tokens = sh->seqs * sh->seq_len, distinct, b, t, es = bench_dtype_size(ts->dtype);
    size_t out_bytes = tokens * ds->dim * es;
    /* The same ids for every dim and storage type of a shape. */
    uint64_t rng = env->opts->seed ^ (0xA0761D6478BD642Full * (uint64_t)(si + 1));
    cl_int *ids = malloc(tokens * sizeof *ids), *pos = malloc(tokens * sizeof *pos);
    cl_mem ids_mem = NULL, pos_mem = NULL;
    bench_stats fused = {0};
    bench_traffic tr;
    bench_shape_run sr;
    sinpe_spec spec;
    cl_uchar poison[2] = {0x00, 0xFF};
    cl_int err;
    size_t c;
    int otf_ran = 0;
    char what[128];

    memset(&sr, 0, sizeof sr);
    CHECK_AS("malloc (ids)", (ids && pos) ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (t = 0; t < tokens; t++)
        ids[t] = random_below(&rng, BENCH_VOCAB);
    for (b = 0; b < sh->seqs; b++) {
        cl_int start = explicit_pos ? random_below(&rng, BENCH_CONTEXT - sh->seq_len + 1) : 0;
        for (t = 0; t < sh->seq_len; t++)
            pos[b * sh->seq_len + t] = start + (cl_int)t;
    }

    ids_mem = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             tokens * sizeof *ids, ids, &err);
    CHECK_AS("clCreateBuffer(ids)", err);
    if (explicit_pos) {
        pos_mem = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 tokens * sizeof *pos, pos, &err);
        CHECK_AS("clCreateBuffer(positions)", err);
    }
    distinct = count_distinct(pos, tokens); /* pos is uploaded: sorting it is safe */
    tr.tokens = (double)tokens;
    tr.distinct = (double)distinct;
    tr.pe_row = (double)(ds->dim * sizeof(float));
    tr.in_row = (double)(ds->dim * es);
    tr.out_row = tr.in_row;
    tr.explicit_pos = explicit_pos;

    /* A spec no table has yet (the cache would hand back a table with
       rows), created empty: fused_otf computes every position. */
    sinpe_spec_init(&spec, ds->dim);
    spec.angle_scale = 1.0 + (double)(++env->serial) * 1e-7;
    CHECK(sinpe_table_create(env->ctx, &spec, 0, &sr.otf_table));

    sinpe_embed_args_init(&sr.args);
    sr.table = ds->table;
    sr.args.n_seqs = sh->seqs;
    sr.args.seq_len = sh->seq_len;
    sr.args.ids = ids_mem;
    sr.args.weights = ts->weights;
    sr.args.vocab = BENCH_VOCAB;
    sr.args.token_scale = sqrtf((float)ds->dim);
    sr.args.positions = pos_mem; /* NULL: implicit positions 0 .. seq_len-1 */
    sr.args.weights_dtype = ts->dtype;
    sr.args.out_dtype = ts->dtype;
    memcpy(sr.out, ts->out, sizeof sr.out);

    /* Different poison in each pair of compared outputs: an element that
       one path leaves unwritten makes them differ. */
    CHECK(clEnqueueFillBuffer(env->queue, ts->out[BENCH_OUT_FUSED], &poison[0], 1, 0,
                              out_bytes, 0, NULL, NULL));
    CHECK(clEnqueueFillBuffer(env->queue, ts->out[BENCH_OUT_UNFUSED], &poison[1], 1, 0,
                              out_bytes, 0, NULL, NULL));
    CHECK(clEnqueueFillBuffer(env->queue, ts->out[BENCH_OUT_OTF], &poison[1], 1, 0, out_bytes,
                              0, NULL, NULL));
    CHECK(clFinish(env->queue));

    for (c = 0; c < bench_n_cases; c++) {
        /* A call with explicit positions may enqueue two kernels (sinpe.h:
           two-pass on CPU devices, or with SINPE_ONE_PASS=0) and returns the
           last one's event, so it is bracketed whatever the device; the
           others count START to END of each returned event (unfused: gather
           plus add, the gap between them left out). */
        bench_job job = {bench_cases[c].run, NULL, &sr, explicit_pos};
        bench_row row;
        if (!case_selected(env->opts, c, ts->dtype, sh, explicit_pos))
            continue;
        otf_ran |= bench_cases[c].out == BENCH_OUT_OTF;
        memset(&row, 0, sizeof row);
        if (bench_time(env, &job, &row.stats) != 0)
            goto fail;
        if (bench_cases[c].out == BENCH_OUT_FUSED)
            fused = row.stats;
        row.name = bench_cases[c].name;
        row.positions = explicit_pos ? "explicit" : "implicit";
        row.shape = sh->name;
        row.dtype = bench_dtype_name(ts->dtype);
        row.seqs = sh->seqs;
        row.seq_len = sh->seq_len;
        row.dim = ds->dim;
        row.distinct_positions = distinct;
        row.bytes = bench_cases[c].bytes(&tr);
        if (bench_cases[c].out == BENCH_OUT_ADD)
            row.task_bytes = row.bytes; /* add alone is its own task */
        else
            row.task_bytes = bench_bytes_fused(&tr);
        if (bench_cases[c].out == BENCH_OUT_UNFUSED) {
            row.speedup_device = row.stats.median_us / fused.median_us;
            row.speedup_wall = row.stats.wall_us / fused.wall_us;
        }
        if (c < N_CASES_MAX) {
            double gbps = bench_gbps(row.bytes, row.stats.median_us);
            if (ts->dtype == SINPE_F32)
                ds->fp32_gbps[si][explicit_pos][c] = gbps;
            else if (ds->fp32_gbps[si][explicit_pos][c] > 0.0)
                row.vs_fp32 = gbps / ds->fp32_gbps[si][explicit_pos][c];
        }
        bench_goal_row(env, goals, &row);
        bench_report_row(env, &row);
    }

    snprintf(what, sizeof what, "dim %zu, %s, %s, %s positions", ds->dim,
             bench_dtype_name(ts->dtype), sh->name, explicit_pos ? "explicit" : "implicit");
    if (bench_check_shape(env, &sr, ts->dtype, tokens * ds->dim, otf_ran, what, tally) != 0)
        goto fail;

    sinpe_table_release(sr.otf_table);
    clReleaseMemObject(ids_mem);
    if (pos_mem)
        clReleaseMemObject(pos_mem);
    free(ids);
    free(pos);
    return 0;
fail:
    sinpe_table_release(sr.otf_table);
    if (ids_mem)
        clReleaseMemObject(ids_mem);
    if (pos_mem)
        clReleaseMemObject(pos_mem);
    free(ids);
    free(pos);
    return -1;
}

static int make_buffer(bench_env *env, size_t bytes, const char *what, cl_mem *mem)
{
    cl_int err;
    *mem = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_AS(what, err);
    return 0;
fail:
    *mem = NULL;
    return -1;
}

static void dtype_state_release(dtype_state *ts)
{
    size_t i;
    if (ts->weights)
        clReleaseMemObject(ts->weights);
    for (i = 0; i < BENCH_N_OUT; i++)
        if (ts->out[i])
            clReleaseMemObject(ts->out[i]);
    memset(ts, 0, sizeof *ts);
}

/* Every shape and positions mode in one storage type; the weights and
   outputs are made once here, sized for the largest shape. */
static int run_dtype(bench_env *env, dim_state *ds, sinpe_dtype dtype, check_tally *tally,
                     goal_tally *goals)
{
    static const char *const out_names[BENCH_N_OUT] = {
        "clCreateBuffer(fused output)", "clCreateBuffer(unfused output)",
        "clCreateBuffer(add output)", "clCreateBuffer(on-the-fly output)"};
    size_t es = bench_dtype_size(dtype), max_tokens = 0, i;
    size_t weights_bytes = (size_t)BENCH_VOCAB * ds->dim * es, out_bytes;
    dtype_state ts;
    int pass;

    memset(&ts, 0, sizeof ts);
    ts.dtype = dtype;
    for (i = 0; i < N_SHAPES; i++) {
        size_t n = shapes[i].seqs * shapes[i].seq_len;
        max_tokens = n > max_tokens ? n : max_tokens;
    }
    out_bytes = max_tokens * ds->dim * es;
    if (weights_bytes > env->max_alloc || out_bytes > env->max_alloc) {
        printf("dim %zu %s skipped: a %zu-byte buffer exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE\n",
               ds->dim, bench_dtype_name(dtype),
               weights_bytes > out_bytes ? weights_bytes : out_bytes);
        return 0;
    }

    if (make_buffer(env, weights_bytes, "clCreateBuffer(weights)", &ts.weights) != 0)
        goto fail;
    for (i = 0; i < BENCH_N_OUT; i++)
        if (make_buffer(env, out_bytes, out_names[i], &ts.out[i]) != 0)
            goto fail;
    if (bench_fill(env, ts.weights, weights_bytes / es, (cl_uint)ds->dim, dtype) != 0 ||
        bench_fill(env, ts.out[BENCH_OUT_ADD], out_bytes / es, 7u, dtype) != 0)
        goto fail;

    for (i = 0; i < N_SHAPES; i++)
        for (pass = 0; pass < 2; pass++)
            if (positions_selected(env->opts, dtype, pass))
                if (run_shape(env, ds, &ts, i, pass, tally, goals) != 0)
                    goto fail;

    dtype_state_release(&ts);
    return 0;
fail:
    dtype_state_release(&ts);
    return -1;
}

/* Table generation, then every storage type, at one dim. */
static int run_dim(bench_env *env, size_t di, check_tally *tally, goal_tally *goals)
{
    dim_state *ds = calloc(1, sizeof *ds);
    size_t dim = dims[di];
    sinpe_spec spec;
    size_t i, rows = BENCH_CONTEXT; /* explicit positions lie below it */
    double ratio;
    int d;

    CHECK_AS("calloc (dim state)", ds ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    ds->dim = dim;
    for (i = 0; i < N_SHAPES; i++)
        rows = shapes[i].seq_len > rows ? shapes[i].seq_len : rows;

    /* Every position the cases use is in the table before timing starts. */
    sinpe_spec_init(&spec, dim);
    CHECK(sinpe_table_create(env->ctx, &spec, rows, &ds->table));

    if (bench_table_cases(env, ds->table, dim, &ratio) != 0)
        goto fail;
    bench_goal_table(goals, dim, ratio);
    for (d = 0; d < BENCH_N_DTYPES; d++)
        if (env->opts->dtypes & (1u << d))
            if (run_dtype(env, ds, (sinpe_dtype)d, tally, goals) != 0)
                goto fail;

    sinpe_table_release(ds->table);
    free(ds);
    return 0;
fail:
    if (ds)
        sinpe_table_release(ds->table);
    free(ds);
    return -1;
}

static int device_info(bench_env *env)
{
    cl_platform_id platform;
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->device_name,
                          env->device_name, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DRIVER_VERSION, sizeof env->driver_version,
                          env->driver_version, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof env->max_alloc,
                          &env->max_alloc, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof env->device_type,
                          &env->device_type, NULL));
    CHECK(clGetDeviceInfo(env->device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL));
    CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof env->platform_name,
                            env->platform_name, NULL));
    env->device_name[sizeof env->device_name - 1] = '\0';
    env->driver_version[sizeof env->driver_version - 1] = '\0';
    env->platform_name[sizeof env->platform_name - 1] = '\0';
    return 0;
fail:
    return -1;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_env env;
    sinpe_context_options copts;
    check_tally tally;
    goal_tally goals;
    int rc = BENCH_EXIT_ERROR, mismatch, usage_rc;
    size_t d;
    cl_int err;

    usage_rc = bench_parse_args(argc, argv, &opts);
    if (usage_rc < 0) {
        bench_usage(stdout);
        return 0;
    }
    if (usage_rc > 0) {
        fprintf(stderr, "sinpe_bench: try --help\n");
        return usage_rc;
    }

    memset(&env, 0, sizeof env);
    memset(&tally, 0, sizeof tally);
    memset(&goals, 0, sizeof goals);
    env.opts = &opts;
    sinpe_context_options_init(&copts);
    copts.device = opts.device;
    if (opts.json_path) {
        env.json = fopen(opts.json_path, "w");
        if (!env.json) {
            fprintf(stderr, "sinpe_bench: cannot open %s: %s\n", opts.json_path,
                    strerror(errno));
            goto fail;
        }
    }
    CHECK(sinpe_context_create(&copts, &env.ctx));
    env.cl_ctx = sinpe_context_cl_context(env.ctx);
    env.device = sinpe_context_device(env.ctx);
    env.queue = clCreateCommandQueue(env.cl_ctx, env.device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK_AS("clCreateCommandQueue(profiling)", err);
    env.marker = clCreateBuffer(env.cl_ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    CHECK_AS("clCreateBuffer(marker)", err);
    if (device_info(&env) != 0 || bench_kernels_build(&env) != 0)
        goto fail;

    bench_report_header(&env);
    if (bench_ceilings(&env, 0) != 0)
        goto fail;
    for (d = 0; d < N_DIMS; d++)
        if (run_dim(&env, d, &tally, &goals) != 0)
            goto fail;
    if (bench_ceilings(&env, 1) != 0)
        goto fail;

    bench_report_goals(env.device_type, &goals);
    mismatch = bench_report_checks(&tally);
    rc = mismatch ? BENCH_EXIT_MISMATCH : 0;
fail:
    if (env.json && fclose(env.json) != 0) {
        fprintf(stderr, "sinpe_bench: writing %s failed\n", opts.json_path);
        rc = BENCH_EXIT_ERROR;
    }
    bench_kernels_release(&env);
    if (env.marker)
        clReleaseMemObject(env.marker);
    if (env.queue)
        clReleaseCommandQueue(env.queue);
    sinpe_context_release(env.ctx);
    return rc;
}
