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
 *      shape in shapes[] and positions mode, every case in bench_cases[]
 *      (cases.c) in each storage type, the types of one case timed in
 *      interleaved rounds (the 16-bit rows are read against fp32's); then
 *      the fused call into fp16 output from each weight type, quantized
 *      ones included (weights.c);
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

/* The state of one storage type on one shape: its call's arguments, its
   rows and its fused row's stats (the others are read against it). */
typedef struct type_run {
    const dtype_state *ts;
    bench_shape_run sr;
    bench_row row[N_CASES_MAX];
    int timed[N_CASES_MAX];
    int otf_ran;
} type_run;

/* The rows of case c: each type's, its time over the fused call's of the
   same type, and the 16-bit types' GB/s over fp32's, round by round. */
static void case_rows(bench_env *env, type_run *tr, const int *who, int n, size_t c,
                      const bench_rounds *rounds, const bench_stats *st, const bench_traffic *t0,
                      const bench_inputs *in, const bench_shape *sh, size_t dim, goal_tally *goals)
{
    int k32 = -1;
    for (int k = 0; k < n; k++)
        if (tr[who[k]].ts->dtype == SINPE_F32)
            k32 = k;
    for (int k = 0; k < n; k++) {
        type_run *r = &tr[who[k]];
        bench_row *row = &r->row[c];
        bench_traffic t = *t0;
        sinpe_dtype dt = r->ts->dtype;
        double fused_us = r->row[0].stats.median_us;

        t.in_row = t.out_row = (double)(dim * bench_dtype_size(dt));
        memset(row, 0, sizeof *row);
        row->stats = st[k];
        row->name = bench_cases[c].name;
        row->positions = t.explicit_pos ? "explicit" : "implicit";
        row->shape = sh->name;
        row->dtype = bench_dtype_name(dt);
        row->seqs = sh->seqs;
        row->seq_len = sh->seq_len;
        row->dim = dim;
        row->distinct_positions = in->distinct;
        row->bytes = bench_cases[c].bytes(&t);
        /* add alone is its own task */
        row->task_bytes = bench_cases[c].out == BENCH_OUT_ADD ? row->bytes : bench_bytes_fused(&t);
        if (bench_cases[c].out == BENCH_OUT_OTF && r->timed[0])
            row->vs_table = row->stats.median_us / fused_us;
        if (strcmp(bench_cases[c].name, "unfused") == 0 && r->timed[0]) {
            row->speedup_device = row->stats.median_us / fused_us;
            row->speedup_wall = row->stats.wall_us / r->row[0].stats.wall_us;
        }
        if (k32 >= 0 && k != k32) {
            bench_traffic t32 = *t0;
            t32.in_row = t32.out_row = (double)(dim * sizeof(float));
            row->vs_fp32 = row->bytes / bench_cases[c].bytes(&t32) *
                           bench_round_ratio(rounds, k32, k);
        }
        r->timed[c] = 1;
        bench_goal_row(env, goals, row);
    }
}

/*
 * Times every case for one shape and positions mode in every storage type
 * (types[0 .. nt)), each case's types in interleaved rounds so that the
 * 16-bit rows' ratios to fp32 are read from the same stretch of time;
 * then prints the rows, type by type, and checks each type's outputs.
 */
static int run_shape(bench_env *env, size_t dim, sinpe_table *table, const dtype_state *types,
                     int nt, size_t si, int explicit_pos, check_tally *tally, goal_tally *goals)
{
    const bench_shape *sh = &shapes[si];
    size_t tokens = sh->seqs * sh->seq_len, c;
    bench_inputs in = {NULL, NULL, 0};
    bench_traffic t;
    type_run tr[BENCH_N_DTYPES];
    cl_uchar poison[2] = {0x00, 0xFF};
    int rc = -1, j;
    char what[128];

    memset(tr, 0, sizeof tr);
    if (bench_inputs_make(env, si, explicit_pos, &in) != 0)
        goto done;
    t.tokens = (double)tokens;
    t.distinct = (double)in.distinct;
    t.pe_row = (double)(dim * sizeof(float));
    t.in_row = t.out_row = 0.0; /* each type's, in case_rows */
    t.explicit_pos = explicit_pos;

    for (j = 0; j < nt; j++) {
        bench_shape_run *sr = &tr[j].sr;
        const dtype_state *ts = &types[j];
        size_t out_bytes = tokens * dim * bench_dtype_size(ts->dtype);
        sinpe_spec spec;

        tr[j].ts = ts;
        if (!positions_selected(env->opts, ts->dtype, explicit_pos))
            continue;
        /* A spec no table has yet (the cache would hand back a table with
           rows), created empty: fused_otf computes every position. */
        sinpe_spec_init(&spec, dim);
        spec.angle_scale = 1.0 + (double)(++env->serial) * 1e-7;
        CHECK(sinpe_table_create(env->ctx, &spec, 0, &sr->otf_table));
        sinpe_embed_args_init(&sr->args);
        sr->table = table;
        sr->args.n_seqs = sh->seqs;
        sr->args.seq_len = sh->seq_len;
        sr->args.ids = in.ids;
        sr->args.weights = ts->weights;
        sr->args.vocab = BENCH_VOCAB;
        sr->args.token_scale = sqrtf((float)dim);
        sr->args.positions = in.pos; /* NULL: implicit positions 0 .. seq_len-1 */
        sr->args.weights_dtype = ts->dtype;
        sr->args.out_dtype = ts->dtype;
        memcpy(sr->out, ts->out, sizeof sr->out);
        /* Different poison in each pair of compared outputs: an element
           that one path leaves unwritten makes them differ. */
        CHECK(clEnqueueFillBuffer(env->queue, ts->out[BENCH_OUT_FUSED], &poison[0], 1, 0,
                                  out_bytes, 0, NULL, NULL));
        CHECK(clEnqueueFillBuffer(env->queue, ts->out[BENCH_OUT_UNFUSED], &poison[1], 1, 0,
                                  out_bytes, 0, NULL, NULL));
        CHECK(clEnqueueFillBuffer(env->queue, ts->out[BENCH_OUT_OTF], &poison[1], 1, 0,
                                  out_bytes, 0, NULL, NULL));
    }
    CHECK(clFinish(env->queue));

    for (c = 0; c < bench_n_cases && c < N_CASES_MAX; c++) {
        /* A call with explicit positions may enqueue two kernels (sinpe.h:
           two-pass on CPU devices, or with SINPE_ONE_PASS=0), and fused_otf
           writes its rows first (two more), each returning the last one's
           event, so they are bracketed whatever the device; the others
           count START to END of each returned event (unfused: gather plus
           add, the gap between them left out). */
        int bracket = explicit_pos || bench_cases[c].out == BENCH_OUT_OTF;
        bench_job jobs[BENCH_N_DTYPES];
        bench_stats st[BENCH_N_DTYPES];
        bench_rounds rounds;
        int who[BENCH_N_DTYPES], n = 0;

        for (j = 0; j < nt; j++)
            if (tr[j].sr.otf_table && case_selected(env->opts, c, types[j].dtype, sh, explicit_pos)) {
                jobs[n] = (bench_job){bench_cases[c].run, NULL, &tr[j].sr, bracket};
                tr[j].otf_ran |= bench_cases[c].out == BENCH_OUT_OTF;
                who[n++] = j;
            }
        if (n == 0)
            continue;
        if (bench_time_rounds(env, jobs, n, st, &rounds) != 0)
            goto done;
        case_rows(env, tr, who, n, c, &rounds, st, &t, &in, sh, dim, goals);
    }

    for (j = 0; j < nt; j++) {
        if (!tr[j].sr.otf_table)
            continue;
        for (c = 0; c < N_CASES_MAX; c++)
            if (tr[j].timed[c])
                bench_report_row(env, &tr[j].row[c]);
        snprintf(what, sizeof what, "dim %zu, %s, %s, %s positions", dim,
                 bench_dtype_name(types[j].dtype), sh->name,
                 explicit_pos ? "explicit" : "implicit");
        if (bench_check_shape(env, &tr[j].sr, types[j].dtype, tokens * dim, tr[j].otf_ran, what,
                              tally) != 0)
            goto done;
    }
    rc = 0;
fail:
done:
    for (j = 0; j < nt; j++)
        sinpe_table_release(tr[j].sr.otf_table);
    bench_inputs_release(&in);
    return rc;
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

/* The weights and outputs of one storage type at dim, sized for the
   largest shape: 0, 1 when a buffer is over the device's limit (skipped,
   said), -1 on failure. */
static int dtype_state_make(bench_env *env, size_t dim, sinpe_dtype dtype, dtype_state *ts)
{
    static const char *const out_names[BENCH_N_OUT] = {
        "clCreateBuffer(fused output)", "clCreateBuffer(unfused output)",
        "clCreateBuffer(add output)", "clCreateBuffer(on-the-fly output)"};
    size_t es = bench_dtype_size(dtype), max_tokens = 0, i;
    size_t weights_bytes = (size_t)BENCH_VOCAB * dim * es, out_bytes;

    memset(ts, 0, sizeof *ts);
    ts->dtype = dtype;
    for (i = 0; i < N_SHAPES; i++) {
        size_t n = shapes[i].seqs * shapes[i].seq_len;
        max_tokens = n > max_tokens ? n : max_tokens;
    }
    out_bytes = max_tokens * dim * es;
    if (weights_bytes > env->max_alloc || out_bytes > env->max_alloc) {
        printf("dim %zu %s skipped: a %zu-byte buffer exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE\n",
               dim, bench_dtype_name(dtype), weights_bytes > out_bytes ? weights_bytes : out_bytes);
        return 1;
    }
    if (bench_make_buffer(env, weights_bytes, "clCreateBuffer(weights)", &ts->weights) != 0)
        goto fail;
    for (i = 0; i < BENCH_N_OUT; i++)
        if (bench_make_buffer(env, out_bytes, out_names[i], &ts->out[i]) != 0)
            goto fail;
    if (bench_fill(env, ts->weights, weights_bytes / es, (cl_uint)dim, dtype) != 0 ||
        bench_fill(env, ts->out[BENCH_OUT_ADD], out_bytes / es, 7u, dtype) != 0)
        goto fail;
    return 0;
fail:
    dtype_state_release(ts);
    return -1;
}

/* Table generation, then every storage type, at one dim. */
static int run_dim(bench_env *env, size_t dim, check_tally *tally, goal_tally *goals)
{
    sinpe_table *table = NULL;
    sinpe_spec spec;
    dtype_state ts[BENCH_N_DTYPES];
    size_t i, rows = BENCH_CONTEXT; /* explicit positions lie below it */
    double ratio[2];
    int d, nt = 0, pass, rc = -1;

    for (i = 0; i < N_SHAPES; i++)
        rows = shapes[i].seq_len > rows ? shapes[i].seq_len : rows;

    /* Every position the cases use is in the table before timing starts. */
    sinpe_spec_init(&spec, dim);
    CHECK(sinpe_table_create(env->ctx, &spec, rows, &table));

    if (bench_table_cases(env, table, dim, ratio) != 0)
        goto fail;
    bench_goal_table(goals, dim, ratio);
    for (d = 0; d < BENCH_N_DTYPES; d++)
        if (env->opts->dtypes & (1u << d)) {
            int made = dtype_state_make(env, dim, (sinpe_dtype)d, &ts[nt]);
            if (made < 0)
                goto fail;
            nt += made == 0;
        }
    for (i = 0; i < N_SHAPES; i++)
        for (pass = 0; pass < 2; pass++)
            if (run_shape(env, dim, table, ts, nt, i, pass, tally, goals) != 0)
                goto fail;
    for (; nt > 0; nt--)
        dtype_state_release(&ts[nt - 1]);
    if (bench_weight_cases(env, table, dim, tally, goals) != 0 ||
        bench_decode_paths(env, table, dim, goals) != 0)
        goto fail;
    rc = 0;
fail:
    for (; nt > 0; nt--)
        dtype_state_release(&ts[nt - 1]);
    sinpe_table_release(table);
    return rc;
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
    for (d = 0; d < N_DIMS && !opts.rope_only && !opts.attn_only; d++)
        if (run_dim(&env, dims[d], &tally, &goals) != 0)
            goto fail;
    if (!opts.attn_only &&
        (bench_rope_cases(&env, &tally, &goals) != 0 || bench_grid_cases(&env, &tally) != 0))
        goto fail;
    if (bench_attn_cases(&env, &tally) != 0)
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
