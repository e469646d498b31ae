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
 *      bench_cases[] (cases.c); then the fused call into fp16 output from
 *      each weight type, quantized ones included (weights.c);
 *   3. rotary embeddings (rope.c): sinpe_enqueue_rope() in place on q and
 *      k against the unfused pair and a copy of the same bytes;
 *   4. the ceilings again, to show whether the machine stayed quiet.
 * After its cases, every shape checks its outputs (verdict.c, check.c):
 * fused against unfused (byte for byte in float32, within the
 * double-rounding bound in float16 and bfloat16), and the on-the-fly output
 * against the table path's, byte for byte.  Any failure decides the exit
 * status.  The goals are read against the figures at the end (verdict.c).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const size_t dims[] = {1024, 4096};
#define N_DIMS (sizeof dims / sizeof dims[0])

#define N_CASES_MAX 8
#define N_SHAPES 3 /* bench_n_shapes (inputs.c), checked in main() */
#define shapes bench_shapes

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
    /* gather reads no position: its implicit row covers the explicit one. */
    if (!bench_cases[c].positions)
        return !explicit_pos;
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
    size_t tokens = sh->seqs * sh->seq_len, es = bench_dtype_size(ts->dtype);
    size_t out_bytes = tokens * ds->dim * es;
    bench_inputs in = {NULL, NULL, 0};
    bench_stats fused = {0};
    bench_traffic tr;
    bench_shape_run sr;
    sinpe_spec spec;
    cl_uchar poison[2] = {0x00, 0xFF};
    size_t c;
    int otf_ran = 0;
    char what[128];

    memset(&sr, 0, sizeof sr);
    if (bench_inputs_make(env, si, explicit_pos, &in) != 0)
        goto fail;
    tr.tokens = (double)tokens;
    tr.distinct = (double)in.distinct;
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
    sr.args.ids = in.ids;
    sr.args.weights = ts->weights;
    sr.args.vocab = BENCH_VOCAB;
    sr.args.token_scale = sqrtf((float)ds->dim);
    sr.args.positions = in.pos; /* NULL: implicit positions 0 .. seq_len-1 */
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
           two-pass on CPU devices, or with SINPE_ONE_PASS=0), and fused_otf
           writes its rows first (two more), each returning the last one's
           event, so they are bracketed whatever the device; the others
           count START to END of each returned event (unfused: gather plus
           add, the gap between them left out). */
        int bracket = explicit_pos || bench_cases[c].out == BENCH_OUT_OTF;
        bench_job job = {bench_cases[c].run, NULL, &sr, bracket};
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
        row.distinct_positions = in.distinct;
        row.bytes = bench_cases[c].bytes(&tr);
        if (bench_cases[c].out == BENCH_OUT_ADD)
            row.task_bytes = row.bytes; /* add alone is its own task */
        else
            row.task_bytes = bench_bytes_fused(&tr);
        if (bench_cases[c].out == BENCH_OUT_OTF && fused.median_us > 0.0)
            row.vs_table = row.stats.median_us / fused.median_us;
        if (strcmp(bench_cases[c].name, "unfused") == 0) {
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
    bench_inputs_release(&in);
    return 0;
fail:
    sinpe_table_release(sr.otf_table);
    bench_inputs_release(&in);
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

    if (bench_make_buffer(env, weights_bytes, "clCreateBuffer(weights)", &ts.weights) != 0)
        goto fail;
    for (i = 0; i < BENCH_N_OUT; i++)
        if (bench_make_buffer(env, out_bytes, out_names[i], &ts.out[i]) != 0)
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
    if (bench_weight_cases(env, ds->table, dim, tally, goals) != 0)
        goto fail;
    if (bench_decode_paths(env, ds->table, dim, goals) != 0)
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

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_env env;
    check_tally tally;
    goal_tally goals;
    int rc = BENCH_EXIT_ERROR, mismatch, usage_rc;
    size_t d;

    if (bench_n_shapes != N_SHAPES)
        return BENCH_EXIT_ERROR;
    usage_rc = bench_parse_args(argc, argv, &opts);
    if (usage_rc < 0) {
        bench_usage(stdout);
        return 0;
    }
    if (usage_rc > 0) {
        fprintf(stderr, "sinpe_bench: try --help\n");
        return usage_rc;
    }

    memset(&tally, 0, sizeof tally);
    memset(&goals, 0, sizeof goals);
    if (bench_env_open(&env, &opts, "sinpe_bench") != 0)
        goto fail;

    bench_report_header(&env);
    if (bench_ceilings(&env, 0) != 0 || bench_launch_floor(&env) != 0)
        goto fail;
    for (d = 0; d < N_DIMS && !opts.rope_only; d++)
        if (run_dim(&env, d, &tally, &goals) != 0)
            goto fail;
    if (bench_rope_cases(&env, &tally, &goals) != 0)
        goto fail;
    if (bench_ceilings(&env, 1) != 0)
        goto fail;

    bench_report_goals(env.device_type, &goals);
    mismatch = bench_report_checks(&tally);
    rc = mismatch ? BENCH_EXIT_MISMATCH : 0;
fail:
    if (bench_env_close(&env) != 0)
        rc = BENCH_EXIT_ERROR;
    return rc;
}
