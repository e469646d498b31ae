/*
 * table.c -- table generation at one dim, read against the write-only
 * kernel on the same bytes.
 *
 * Three rows per dim, all for BENCH_TABLE_ROWS rows of dim float32 values:
 *   table_write   the bench's float4 write-only kernel (the write ceiling's)
 *                 over a buffer of exactly those bytes;
 *   table         sinpe_enqueue_table_rows() into that same buffer,
 *                 preallocated and already written, so no page is touched
 *                 for the first time; the goal is table <= 2 x table_write;
 *   table_create  sinpe_table_create() of a spec never seen before, host
 *                 wall clock: allocation and first touch of a fresh table
 *                 buffer included, the cost a first create really has.
 *
 * How table and table_write are timed.  sinpe_enqueue_table_rows() enqueues
 * two kernels (the anchors of every 128-row block, then the rows) and
 * returns the event of the last one only, so START to END of that event
 * would miss the first kernel.  Both rows are therefore bracketed (see
 * bench_job): END of the call's event minus END of a marker enqueued just
 * before it, the host's enqueue work (sinpe allocates the anchors' buffer
 * and sets arguments) kept outside.  table_write is bracketed the same way,
 * so the ratio compares like with like; its bracket holds one kernel,
 * sinpe's two.
 */
#include "bench.h"

#include <string.h>

/* One bracketed generation call: sinpe's, or the write kernel's. */
typedef struct gen_job {
    bench_env *env;
    sinpe_table *table;
    cl_mem out;     /* rows * dim float32, already written */
    size_t rows, dim;
    int sinpe;      /* 1: sinpe_enqueue_table_rows(), 0: the write kernel */
} gen_job;

static int run_gen(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    gen_job *g = user;
    if (g->sinpe)
        CHECK(sinpe_enqueue_table_rows(g->table, queue, 0, g->rows, g->out, 0, 0, SINPE_F32, 0,
                                       NULL, &events[0]));
    else if (bench_enqueue_write(g->env, queue, g->out, g->rows * g->dim * sizeof(float), 0,
                                 NULL, &events[0]) != 0)
        goto fail;
    *n_events = 1;
    return 0;
fail:
    return -1;
}

/* sinpe_table_create() of a new spec each call; the table is released by
   create_after(), outside the timed region. */
typedef struct create_job {
    bench_env *env;
    size_t dim;
    sinpe_table *made;
} create_job;

static int run_create(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    create_job *cj = user;
    sinpe_spec spec;
    (void)queue;
    (void)events;
    *n_events = 0;
    sinpe_spec_init(&spec, cj->dim);
    /* A distinct angle_scale per call defeats the table cache. */
    spec.angle_scale = 1.0 + (double)(++cj->env->serial) / 1048576.0;
    CHECK(sinpe_table_create(cj->env->ctx, &spec, BENCH_TABLE_ROWS, &cj->made));
    return 0;
fail:
    return -1;
}

static void create_after(void *user)
{
    create_job *cj = user;
    sinpe_table_release(cj->made);
    cj->made = NULL;
}

static void gen_row(bench_row *row, const char *name, size_t dim, double bytes)
{
    memset(row, 0, sizeof *row);
    row->name = name;
    row->shape = "gen";
    row->dtype = "fp32";
    row->seqs = 1;
    row->seq_len = BENCH_TABLE_ROWS;
    row->dim = dim;
    row->distinct_positions = BENCH_TABLE_ROWS;
    row->bytes = bytes; /* written once, nothing read */
}

int bench_table_cases(bench_env *env, sinpe_table *table, size_t dim, double ratio[2])
{
    size_t bytes = (size_t)BENCH_TABLE_ROWS * dim * sizeof(float);
    gen_job g, gen[2];
    bench_job jobs[2];
    bench_stats st[2];
    bench_rounds rounds;
    create_job cj = {NULL, 0, NULL};
    bench_job job;
    bench_row write_row, table_row, create_row;
    cl_int err;

    memset(&g, 0, sizeof g);
    ratio[0] = ratio[1] = 0.0;
    if (bytes > env->max_alloc) {
        printf("table cases at dim %zu skipped: %zu bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE\n",
               dim, bytes);
        return 0;
    }
    g.env = env;
    g.table = table;
    g.rows = BENCH_TABLE_ROWS;
    g.dim = dim;
    g.out = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_AS("clCreateBuffer(table output)", err);
    if (bench_fill(env, g.out, bytes / sizeof(float), 3u, SINPE_F32) != 0)
        goto fail;

    /* The write and the table in interleaved rounds: their ratio is the
       goal's. */
    gen[0] = g;
    gen[1] = g;
    gen[1].sinpe = 1;
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 2; i++) {
        jobs[i].run = run_gen;
        jobs[i].user = &gen[i];
        jobs[i].bracket = 1;
    }
    gen_row(&write_row, "table_write", dim, (double)bytes);
    gen_row(&table_row, "table", dim, (double)bytes);
    if (bench_time_rounds(env, jobs, 2, st, &rounds) != 0)
        goto fail;
    write_row.stats = st[0];
    table_row.stats = st[1];
    table_row.ref_us = write_row.stats.median_us;
    table_row.vs_ref = bench_round_ratio(&rounds, 1, 0);
    bench_report_row(env, &write_row);
    bench_report_row(env, &table_row);

    memset(&job, 0, sizeof job);
    cj.env = env;
    cj.dim = dim;
    job.run = run_create;
    job.after = create_after;
    job.user = &cj;
    job.bracket = 0;
    gen_row(&create_row, "table_create", dim, (double)bytes);
    if (bench_time(env, &job, &create_row.stats) != 0)
        goto fail;
    bench_report_row(env, &create_row);

    /* The ceiling's time for these bytes: a reference that a write the
       cache absorbs (a table that fits in it) does not move. */
    ratio[0] = table_row.vs_ref;
    ratio[1] = env->write_gbps > 0.0
                   ? table_row.stats.median_us / ((double)bytes / (env->write_gbps * 1e3))
                   : 0.0;
    printf("  table generation, dim %zu: %.1f us for %.1f MiB, %.2fx the write of the same "
           "bytes, %.2fx the write ceiling's time for them (the ceiling's way: %s)\n",
           dim, table_row.stats.median_us, (double)bytes / (1024.0 * 1024.0), ratio[0],
           ratio[1], env->write_name);
    fflush(stdout);

    clReleaseMemObject(g.out);
    return 0;
fail:
    if (g.out)
        clReleaseMemObject(g.out);
    return -1;
}
