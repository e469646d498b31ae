/*
 * timing.c -- the one timing loop every case goes through.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void release_events(cl_event *events, cl_uint n)
{
    cl_uint i;
    for (i = 0; i < n; i++)
        clReleaseEvent(events[i]);
}

static int event_time(cl_event ev, cl_profiling_info what, cl_ulong *t)
{
    cl_int exec = CL_COMPLETE;
    CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL));
    CHECK_AS("the timed command (execution status)", exec);
    CHECK(clGetEventProfilingInfo(ev, what, sizeof *t, t, NULL));
    return 0;
fail:
    return -1;
}

/*
 * Device time of one call in microseconds.  Normally the sum over its
 * events of END - START: for the unfused pair this is gather plus add,
 * leaving out the gap between the two kernels, so the figure is the
 * kernels' own cost and not the queue's scheduling latency (the wall clock
 * shows that).  A bracketed call (see bench_job) is END of its last event
 * minus END of the marker before it instead, gaps included.
 */
static int device_us(const cl_event *events, cl_uint n, int bracket, double *us)
{
    cl_uint i;
    double sum = 0.0;
    cl_ulong start = 0, end = 0;
    if (bracket) {
        if (n < 2) {
            bench_error("a bracketed call (fewer than two events)", SINPE_INVALID_SHAPE,
                        __FILE__, __LINE__);
            return -1;
        }
        if (event_time(events[0], CL_PROFILING_COMMAND_END, &start) != 0 ||
            event_time(events[n - 1], CL_PROFILING_COMMAND_END, &end) != 0)
            return -1;
        *us = end > start ? (double)(end - start) * 1e-3 : 0.0;
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (event_time(events[i], CL_PROFILING_COMMAND_START, &start) != 0 ||
            event_time(events[i], CL_PROFILING_COMMAND_END, &end) != 0)
            return -1;
        sum += (double)(end - start) * 1e-3;
    }
    *us = sum;
    return 0;
}

/*
 * The marker that opens a bracketed call: a 4-byte fill held back by a user
 * event (*gate) until the caller has enqueued the call behind it, so that
 * the time the host spends enqueueing does not fall inside the bracket.
 * The bench queue is in order: the call's commands start after the marker
 * ends.
 */
static int open_bracket(bench_env *env, cl_event *gate, cl_event *marker)
{
    cl_int zero = 0, err;
    *gate = clCreateUserEvent(env->cl_ctx, &err);
    CHECK_AS("clCreateUserEvent(gate)", err);
    err = clEnqueueFillBuffer(env->queue, env->marker, &zero, sizeof zero, 0, sizeof zero, 1,
                              gate, marker);
    if (err != CL_SUCCESS) {
        clReleaseEvent(*gate);
        *gate = NULL;
    }
    CHECK_AS("clEnqueueFillBuffer(marker)", err);
    return 0;
fail:
    return -1;
}

/*
 * One call of job, followed by clFinish on the bench queue, so that calls
 * never overlap and the wall-clock sample covers one enqueue plus its
 * completion.  *dev: its device time (the wall clock where it made no
 * events, *host_timed then 1).
 */
static int time_call(bench_env *env, const bench_job *job, double *dev, double *wall,
                     int *host_timed)
{
    cl_event events[BENCH_MAX_EVENTS];
    cl_event gate = NULL;
    cl_uint n_events = 0, made = 0;
    double t0, t1, us = 0.0;
    int rc;
    cl_int err;

    if (job->bracket && open_bracket(env, &gate, &events[0]) != 0)
        return -1;
    n_events = job->bracket ? 1 : 0;
    t0 = bench_now_s();
    rc = job->run(job->user, env->queue, events + n_events, &made);
    n_events += made;
    if (gate) {
        clSetUserEventStatus(gate, CL_COMPLETE);
        clReleaseEvent(gate);
    }
    if (rc != 0) {
        /* run() reports the events it made before failing; drain them. */
        clFinish(env->queue);
        release_events(events, n_events);
        return -1;
    }
    err = clFinish(env->queue);
    t1 = bench_now_s();
    rc = err == CL_SUCCESS ? 0 : -1;
    if (rc != 0)
        bench_error("clFinish(bench queue)", err, __FILE__, __LINE__);
    else if (n_events > 0)
        rc = device_us(events, n_events, job->bracket, &us);
    release_events(events, n_events);
    if (job->after)
        job->after(job->user);
    *wall = (t1 - t0) * 1e6;
    *dev = n_events > 0 ? us : *wall;
    *host_timed = n_events == 0;
    return rc;
}

static void set_timing(bench_stats *stats, const bench_job *job, int host_timed)
{
    stats->timing = host_timed   ? BENCH_TIMING_HOST
                    : job->bracket ? BENCH_TIMING_BRACKET
                                   : BENCH_TIMING_DEVICE;
}

/*
 * Runs job warm-up times untimed, then times it: a fixed number of calls
 * with --reps, else between BENCH_REPS_MIN and BENCH_REPS_MAX calls within
 * BENCH_CASE_BUDGET_S seconds.
 */
int bench_time(bench_env *env, const bench_job *job, bench_stats *stats)
{
    const bench_opts *o = env->opts;
    int reps_min = o->reps > 0 ? o->reps : BENCH_REPS_MIN;
    int reps_max = o->reps > 0 ? o->reps : BENCH_REPS_MAX;
    double *dev = malloc((size_t)reps_max * sizeof *dev);
    double *wall = malloc((size_t)reps_max * sizeof *wall);
    double spent = 0.0;
    int done = 0, i, host_timed = 0;

    memset(stats, 0, sizeof *stats);
    CHECK_AS("malloc (timing samples)", (dev && wall) ? 0 : SINPE_OUT_OF_HOST_MEMORY);

    for (i = 0; i < o->warmup + reps_max; i++) {
        if (time_call(env, job, &dev[done], &wall[done], &host_timed) != 0)
            goto fail;
        if (i < o->warmup)
            continue;
        spent += wall[done] * 1e-6;
        done++;
        if (done >= reps_min && spent >= BENCH_CASE_BUDGET_S)
            break;
    }

    stats->reps = done;
    set_timing(stats, job, host_timed);
    stats->wall_us = bench_median(wall, done);
    stats->median_us = bench_median(dev, done); /* sorted from here on */
    stats->min_us = dev[0];
    stats->max_us = dev[done - 1];
    free(dev);
    free(wall);
    return 0;
fail:
    free(dev);
    free(wall);
    return -1;
}

/*
 * Times jobs[0 .. n) (n <= BENCH_MAX_JOBS) call by call: one untimed call
 * of each, then rounds->n rounds (--reps, at most BENCH_MAX_ROUNDS, else
 * BENCH_ROUNDS) that call every job once, the order rotating.  A change in
 * the machine's speed then falls on neighbouring calls of every job alike,
 * and a ratio of two jobs is the median of their calls' ratios round by
 * round (bench_round_ratio).  stats[i]: the median, min and max of job i's
 * calls.  One job is timed as bench_time does.
 */
int bench_time_rounds(bench_env *env, const bench_job *jobs, int n, bench_stats *stats,
                      bench_rounds *rounds)
{
    int reps = env->opts->reps, r, j, host_timed = 0;
    double wall[BENCH_MAX_JOBS][BENCH_MAX_ROUNDS];

    if (n > BENCH_MAX_JOBS) {
        bench_error("bench_time_rounds: more jobs than BENCH_MAX_JOBS", SINPE_TOO_LARGE,
                    __FILE__, __LINE__);
        return -1;
    }
    if (n == 1) {
        rounds->n = 1;
        int rc = bench_time(env, &jobs[0], &stats[0]);
        rounds->t[0][0] = stats[0].median_us;
        return rc;
    }
    rounds->n = reps <= 0 ? BENCH_ROUNDS : reps < BENCH_MAX_ROUNDS ? reps : BENCH_MAX_ROUNDS;
    memset(stats, 0, (size_t)n * sizeof *stats);
    for (r = -1; r < rounds->n; r++) /* r = -1: the untimed calls */
        for (j = 0; j < n; j++) {
            int i = (j + (r < 0 ? 0 : r)) % n, k = r < 0 ? 0 : r;
            if (time_call(env, &jobs[i], &rounds->t[i][k], &wall[i][k], &host_timed) != 0)
                return -1;
            set_timing(&stats[i], &jobs[i], host_timed);
        }
    for (j = 0; j < n; j++) {
        double d[BENCH_MAX_ROUNDS];
        memcpy(d, rounds->t[j], (size_t)rounds->n * sizeof *d);
        stats[j].reps = rounds->n;
        stats[j].wall_us = bench_median(wall[j], rounds->n);
        stats[j].median_us = bench_median(d, rounds->n); /* sorted from here on */
        stats[j].min_us = d[0];
        stats[j].max_us = d[rounds->n - 1];
    }
    return 0;
}

/* The median over the rounds of job a's time over job b's. */
double bench_round_ratio(const bench_rounds *rounds, int a, int b)
{
    double q[BENCH_MAX_ROUNDS];
    for (int r = 0; r < rounds->n; r++)
        q[r] = rounds->t[a][r] / rounds->t[b][r];
    return bench_median(q, rounds->n);
}
