/*
 * cases.c -- what each embedding case enqueues, and the bytes it must move.
 */
#include "bench.h"

/*
 * Bytes that must move, with the embedding and output rows in their storage
 * type and the PE rows always float32 (the table's type).  Fused: ids (4 B
 * per token), the gathered rows, the distinct PE rows, the output, plus the
 * positions (4 B per token) when explicit.  Unfused: the same plus the
 * intermediate round trip of the output (gather writes it, add reads it
 * back before writing it again).  Gather alone: the fused traffic without
 * PE rows and positions.  Add alone: the output read and written,
 * the distinct PE rows and the positions.  On the fly: the fused traffic
 * without any PE row, since none is read.  Rows read twice (a token id that
 * repeats) count twice: a gather kernel has no way to share them.
 */
double bench_bytes_fused(const bench_traffic *t)
{
    return 4.0 * t->tokens + t->tokens * (t->in_row + t->out_row) + t->distinct * t->pe_row +
           (t->explicit_pos ? 4.0 * t->tokens : 0.0);
}

static double bytes_gather(const bench_traffic *t)
{
    return 4.0 * t->tokens + t->tokens * (t->in_row + t->out_row);
}

static double bytes_unfused(const bench_traffic *t)
{
    return bench_bytes_fused(t) + 2.0 * t->tokens * t->out_row;
}

static double bytes_add(const bench_traffic *t)
{
    return 2.0 * t->tokens * t->out_row + t->distinct * t->pe_row +
           (t->explicit_pos ? 4.0 * t->tokens : 0.0);
}

static double bytes_otf(const bench_traffic *t)
{
    return bench_bytes_fused(t) - t->distinct * t->pe_row;
}

typedef sinpe_status (*enqueue_fn)(sinpe_table *, cl_command_queue, const sinpe_embed_args *,
                                   cl_uint, const cl_event *, cl_event *);

/* One sinpe call on table into output out of the shape run. */
static int run_one(bench_shape_run *sr, sinpe_table *table, enqueue_fn call, int out,
                   cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    sinpe_embed_args a = sr->args;
    a.out = sr->out[out];
    CHECK(call(table, queue, &a, 0, NULL, &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

static int run_fused(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    bench_shape_run *sr = user;
    return run_one(sr, sr->table, sinpe_enqueue_embed, BENCH_OUT_FUSED, queue, events, n_events);
}

/* The gather alone, into the unfused output (the unfused case, after it,
   writes that output again). */
static int run_gather(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    bench_shape_run *sr = user;
    return run_one(sr, sr->table, sinpe_enqueue_gather, BENCH_OUT_UNFUSED, queue, events,
                   n_events);
}

/* Gather then add, the add waiting on the gather's event: the order holds
   even on an out-of-order queue. */
static int run_unfused(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    bench_shape_run *sr = user;
    sinpe_embed_args a = sr->args;
    a.out = sr->out[BENCH_OUT_UNFUSED];
    CHECK(sinpe_enqueue_gather(sr->table, queue, &a, 0, NULL, &events[0]));
    *n_events = 1;
    CHECK(sinpe_enqueue_add_positions(sr->table, queue, &a, 1, &events[0], &events[1]));
    *n_events = 2;
    return 0;
fail:
    return -1;
}

/* In place on an output of its own, so that the compared outputs stay as
   fused and unfused left them. */
static int run_add(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    bench_shape_run *sr = user;
    return run_one(sr, sr->table, sinpe_enqueue_add_positions, BENCH_OUT_ADD, queue, events,
                   n_events);
}

/* The fused call on a table of 0 rows: every position is computed in the
   kernel, none is read from memory. */
static int run_otf(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    bench_shape_run *sr = user;
    return run_one(sr, sr->otf_table, sinpe_enqueue_embed, BENCH_OUT_OTF, queue, events,
                   n_events);
}

const bench_case bench_cases[] = {
    {"fused", run_fused, bench_bytes_fused, BENCH_OUT_FUSED, 1},
    {"gather", run_gather, bytes_gather, BENCH_OUT_UNFUSED, 0},
    {"unfused", run_unfused, bytes_unfused, BENCH_OUT_UNFUSED, 1},
    {"add", run_add, bytes_add, BENCH_OUT_ADD, 1},
    {"fused_otf", run_otf, bytes_otf, BENCH_OUT_OTF, 1},
};
const size_t bench_n_cases = sizeof bench_cases / sizeof bench_cases[0];
