/*
 * verdict.c -- what a run concludes: the output checks (fused against
 * unfused, on the fly against the table) and the performance goals the
 * figures are read against.  The checks decide the exit status; the goals
 * do not, they are reported.
 *
 * Goals (from the benchmark's issue), on this run's own figures:
 *   - fused >= GOAL_PCT_CPU % (CPU devices, after make tune; GOAL_PCT_CPU_DB %
 *     under a database record) or GOAL_PCT_GPU % (others) of the copy
 *     ceiling on its mandatory bytes, fp32, implicit positions, prefill and
 *     mid shapes; and >= GOAL_SPEEDUP x the unfused pair's device time on
 *     the same rows (the same with explicit positions is reported beside
 *     them);
 *   - decode: fused wall clock per call <= GOAL_DECODE_FLOOR x an empty
 *     kernel's on the same queue (and, reported, fused over unfused);
 *   - decode paths (paths.c): the host's one-launch kernel <= GOAL_DECODE_FLOOR
 *     x the empty kernel's wall clock, a replayed recording <= GOAL_REPLAY x
 *     an empty recording's;
 *   - every position on the fly (fused_otf): at prefill and mid shapes
 *     >= GOAL_OTF_BIG x the GB/s of the same call from a table (explicit
 *     positions, run with --full: GOAL_OTF_SCATTERED x); at decode, device
 *     time <= GOAL_OTF_DECODE x the table call's;
 *   - table generation within GOAL_TABLE_RATIO x the write of its bytes (the
 *     fastest write of the ceilings, on the same buffer), with its time over
 *     the write ceiling's for those bytes beside it: where the cache absorbs
 *     the write of a table that fits in it, only the first moves;
 *   - 16-bit storage within 10% of fp32's GB/s (fused, gather, add: the
 *     unfused pair is both of the last two), each type timed with fp32 in
 *     interleaved rounds;
 *   - weights section, fp16 output, mid and prefill: from int8, Q8_0 and
 *     fp8 weights, fused GB/s on each type's mandatory bytes >= GOAL_W_GBPS x
 *     the fp16 weights'; from the types under a byte a value (the 4-, 5- and
 *     6-bit blocks, whose decode costs more instructions a byte) >=
 *     GOAL_W_GBPS_PACKED x.  The time over theirs is reported beside it with
 *     the ratio of the mandatory bytes, which bounds it: int8 and Q8_0 move
 *     0.76-0.80x the fp16 case's bytes, so no kernel reaches a time ratio
 *     below that (the earlier 0.75x time goal was unreachable);
 *   - rotary embeddings (rope.c), prefill and mid, every storage type:
 *     sinpe_enqueue_rope() in place >= GOAL_ROPE_PCT_CPU % (CPU devices) or
 *     GOAL_ROPE_PCT_GPU % (others) of the GB/s of a copy of the same bytes
 *     in the same run, and >= GOAL_ROPE_SPEEDUP x the unfused pair's
 *     device time (a cos/sin gather, then the rotation from it).  With 40
 *     heads of 128 the pair moves only 1.03x to 1.06x the fused call's
 *     bytes, so the speedup goal holds only where the fused call runs
 *     nearer the memory's speed than the pair does (or at decode, where
 *     the launches count): the report prints beside it the most the call
 *     can gain on each row, the pair's time over the same-bytes copy's
 *     (or the gain itself, where rope beats the copy).
 */
#include "bench.h"

#include <string.h>

#define GOAL_PCT_CPU 80.0
#define GOAL_PCT_CPU_DB 60.0
#define GOAL_PCT_GPU 90.0
#define GOAL_SPEEDUP 1.8
#define GOAL_DECODE_WALL 2.0
#define GOAL_DECODE_FLOOR 1.15
#define GOAL_REPLAY 1.1
#define GOAL_TABLE_RATIO 2.0
#define GOAL_VS_FP32 0.9
#define GOAL_W_GBPS 0.9
#define GOAL_W_GBPS_PACKED 0.7
#define GOAL_OTF_BIG 0.5
#define GOAL_OTF_SCATTERED 0.25
#define GOAL_OTF_DECODE 2.0
#define GOAL_ROPE_PCT_CPU 70.0
#define GOAL_ROPE_PCT_GPU 90.0
#define GOAL_ROPE_SPEEDUP 1.5

/* The weights goal of type t: GOAL_W_GBPS_PACKED under a byte a value. */
static double w_goal(int t)
{
    sinpe_dtype_info i = bench_dtype_info((sinpe_dtype)t);
    return i.block_bytes < i.block_values ? GOAL_W_GBPS_PACKED : GOAL_W_GBPS;
}

/* goal > 0: met at goal or more; goal < 0: met at -goal or less. */
static void range_add(bench_range *r, double v, double goal)
{
    if (r->rows == 0 || v < r->min)
        r->min = v;
    if (r->rows == 0 || v > r->max)
        r->max = v;
    r->rows++;
    r->met += goal > 0.0 ? v >= goal : v <= -goal;
}

void bench_goal_row(const bench_env *env, goal_tally *g, const bench_row *row)
{
    int fp32 = row->dtype && strcmp(row->dtype, "fp32") == 0;
    int implicit = row->positions && strcmp(row->positions, "implicit") == 0;
    int explicit_pos = row->positions && strcmp(row->positions, "explicit") == 0;
    int big = row->shape && (strcmp(row->shape, "prefill") == 0 || strcmp(row->shape, "mid") == 0);
    int decode = row->shape && strcmp(row->shape, "decode") == 0;
    double goal_pct = (env->device_type & CL_DEVICE_TYPE_CPU) ? GOAL_PCT_CPU : GOAL_PCT_GPU;

    if (row->weights) {
        int t;
        for (t = 0; t < (int)sinpe_dtype_count() && t < BENCH_N_DTYPES; t++)
            if (row->vs_weights > 0.0 && bench_dtype_info((sinpe_dtype)t).quantized &&
                !strcmp(row->weights, bench_dtype_name((sinpe_dtype)t))) {
                range_add(&g->w_time[t], row->vs_weights, 0.0);
                range_add(&g->w_gbps[t], row->vs_weights_gbps, w_goal(t));
                range_add(&g->w_bytes[t], row->vs_weights * row->vs_weights_gbps, 0.0);
            }
        return;
    }
    if (row->vs_table > 0.0) {
        if (decode)
            range_add(&g->otf_decode, row->vs_table, -GOAL_OTF_DECODE);
        else if (big)
            range_add(&g->otf_big[explicit_pos], 1.0 / row->vs_table,
                      explicit_pos ? GOAL_OTF_SCATTERED : GOAL_OTF_BIG);
    }
    if (row->vs_fp32 > 0.0 && strcmp(row->name, "fused_otf") != 0 &&
        strcmp(row->name, "unfused") != 0) { /* the goal's rows: fused, gather, add */
        int d = strcmp(row->dtype, "fp16") == 0 ? SINPE_F16 : SINPE_BF16;
        range_add(&g->vs_fp32[d], row->vs_fp32, GOAL_VS_FP32);
    }
    if (!fp32 || !(implicit || explicit_pos))
        return;
    if (big && strcmp(row->name, "fused") == 0) {
        double gbps = bench_gbps(row->bytes, row->stats.median_us);
        if (env->copy_gbps > 0.0)
            range_add(&g->pct_copy[explicit_pos], 100.0 * gbps / env->copy_gbps, goal_pct);
    }
    if (big && row->speedup_device > 0.0)
        range_add(&g->speedup[explicit_pos], row->speedup_device, GOAL_SPEEDUP);
    if (decode && implicit && row->speedup_wall > 0.0)
        range_add(&g->decode_wall, row->speedup_wall, GOAL_DECODE_WALL);
    if (decode && strcmp(row->name, "fused") == 0 && env->empty_wall_us > 0.0)
        range_add(&g->decode_floor[explicit_pos], row->stats.wall_us / env->empty_wall_us,
                  -GOAL_DECODE_FLOOR);
}

void bench_goal_rope(const bench_env *env, goal_tally *g, const bench_row *fused,
                     double speedup, double reach, double otf_ratio)
{
    double goal = (env->device_type & CL_DEVICE_TYPE_CPU) ? GOAL_ROPE_PCT_CPU : GOAL_ROPE_PCT_GPU;
    range_add(&g->rope_otf, otf_ratio, 0.0);
    if (!fused->shape || strcmp(fused->shape, "decode") == 0)
        return;
    range_add(&g->rope_copy, 100.0 * fused->vs_copy, goal);
    range_add(&g->rope_speedup, speedup, GOAL_ROPE_SPEEDUP);
    reach = reach > speedup ? reach : speedup; /* it may already beat the copy */
    range_add(&g->rope_reach, reach, GOAL_ROPE_SPEEDUP);
}

void bench_goal_path(goal_tally *g, int replay, double ratio)
{
    range_add(&g->path_floor[replay != 0], ratio, replay ? -GOAL_REPLAY : -GOAL_DECODE_FLOOR);
}

void bench_goal_table(goal_tally *g, size_t dim, const double ratio[2])
{
    if (g->n_table < BENCH_MAX_TABLE_DIMS && ratio[0] > 0.0) {
        g->table_dim[g->n_table] = dim;
        g->table_ratio[g->n_table][0] = ratio[0];
        g->table_ratio[g->n_table++][1] = ratio[1];
    }
}

static void report_range(const char *what, const bench_range *r, const char *unit,
                         double goal)
{
    if (r->rows > 0 && goal == 0.0)
        printf("  %s: %.2f%s to %.2f%s over %d rows\n", what, r->min, unit, r->max, unit,
               r->rows);
    else if (r->rows > 0)
        printf("  %s: %.2f%s to %.2f%s; %d of %d rows at %.2f%s or %s (goal)\n", what, r->min,
               unit, r->max, unit, r->met, r->rows, goal > 0.0 ? goal : -goal, unit,
               goal > 0.0 ? "more" : "less");
}

void bench_report_goals(cl_device_type type, const goal_tally *g)
{
    printf("\ngoals (read against this run's figures; they do not set the exit status):\n");
    double pct = (type & CL_DEVICE_TYPE_CPU) ? GOAL_PCT_CPU : GOAL_PCT_GPU;
    report_range("fused % of copy, fp32, implicit, prefill and mid", &g->pct_copy[0], "%", pct);
    report_range("fused over unfused, device time, same rows", &g->speedup[0], "x",
                 GOAL_SPEEDUP);
    report_range("with explicit positions: fused % of copy", &g->pct_copy[1], "%", pct);
    report_range("  fused over unfused, device time", &g->speedup[1], "x", GOAL_SPEEDUP);
    if (type & CL_DEVICE_TYPE_CPU)
        printf("  (fused %% of copy: %.0f%% or more after make tune, %.0f%% with a database "
               "record)\n",
               GOAL_PCT_CPU, GOAL_PCT_CPU_DB);
    report_range("decode, fused wall time over an empty kernel's", &g->decode_floor[0], "x",
                 -GOAL_DECODE_FLOOR);
    report_range("  the same with explicit positions", &g->decode_floor[1], "x",
                 -GOAL_DECODE_FLOOR);
    report_range("fused over unfused, wall time, decode (reported)", &g->decode_wall, "x",
                 GOAL_DECODE_WALL);
    report_range("decode 64x1: the host's one-launch kernel over an empty kernel, wall",
                 &g->path_floor[0], "x", -GOAL_DECODE_FLOOR);
    report_range("decode 64x1: a replayed recording over an empty one's, wall",
                 &g->path_floor[1], "x", -GOAL_REPLAY);
    report_range("fused_otf, prefill and mid: GB/s over the same call's from the table",
                 &g->otf_big[0], "x", GOAL_OTF_BIG);
    report_range("  explicit positions (--full)", &g->otf_big[1], "x", GOAL_OTF_SCATTERED);
    report_range("fused_otf, decode: device time over the table call's", &g->otf_decode, "x",
                 -GOAL_OTF_DECODE);
    for (size_t i = 0; i < g->n_table; i++)
        printf("  table generation, dim %zu: %.2fx the write of the same bytes "
               "(goal <= %.0f: %s; %.2fx the write ceiling's time for them)\n",
               g->table_dim[i], g->table_ratio[i][0], GOAL_TABLE_RATIO,
               g->table_ratio[i][0] <= GOAL_TABLE_RATIO ? "met" : "missed",
               g->table_ratio[i][1]);
    report_range("fp16 GB/s over fp32's (fused, gather, add)", &g->vs_fp32[SINPE_F16], "",
                 GOAL_VS_FP32);
    report_range("bf16 GB/s over fp32's (fused, gather, add)", &g->vs_fp32[SINPE_BF16], "",
                 GOAL_VS_FP32);
    report_range("rope in place, prefill and mid: % of the same-bytes copy", &g->rope_copy, "%",
                 (type & CL_DEVICE_TYPE_CPU) ? GOAL_ROPE_PCT_CPU : GOAL_ROPE_PCT_GPU);
    report_range("rope over the unfused pair (gather + rotate), device time", &g->rope_speedup,
                 "x", GOAL_ROPE_SPEEDUP);
    if (g->rope_reach.rows > 0)
        printf("    (where rope is not faster than the copy of its bytes already, the most it\n"
               "    can gain is the pair's time over the copy's: %.2fx to %.2fx a row, so %.2fx\n"
               "    is within reach on %d of %d rows)\n",
               g->rope_reach.min, g->rope_reach.max, GOAL_ROPE_SPEEDUP, g->rope_reach.met,
               g->rope_reach.rows);
    report_range("rope with every position past the table (rope_otf): device time over "
                 "rope's (reported)",
                 &g->rope_otf, "x", 0.0);
    for (int t = 0; t < (int)sinpe_dtype_count() && t < BENCH_N_DTYPES; t++) {
        char what[96];
        if (!bench_dtype_info((sinpe_dtype)t).quantized)
            continue;
        snprintf(what, sizeof what, "%s weights, fused GB/s on their bytes over fp16 weights'",
                 bench_dtype_name((sinpe_dtype)t));
        report_range(what, &g->w_gbps[t], "x", w_goal(t));
        report_range("  time over theirs (reported)", &g->w_time[t], "x", 0.0);
        if (g->w_bytes[t].rows > 0)
            printf("    (its mandatory bytes are %.2fx to %.2fx theirs: the time over theirs "
                   "at the same GB/s)\n",
                   g->w_bytes[t].min, g->w_bytes[t].max);
    }
}

/* Compares fused with unfused, and (when it ran) the on-the-fly output
   with a fused run of the same spec from a table. */
int bench_check_shape(bench_env *env, bench_shape_run *sr, sinpe_dtype dtype, size_t n,
                      int otf_ran, const char *what, check_tally *tally)
{
    bench_diff d;
    sinpe_embed_args a = sr->args;
    int exact = dtype == SINPE_F32;

    if (bench_compare(env, sr->out[BENCH_OUT_FUSED], sr->out[BENCH_OUT_UNFUSED], n, dtype,
                      exact ? 0.0 : 2.0, &d) != 0)
        return -1;
    if (exact) {
        tally->exact_runs++;
        tally->exact_bad += d.differ > 0;
        if (d.differ > 0)
            printf("MISMATCH: fused and unfused outputs differ in %zu of %zu values (%s)\n",
                   d.differ, d.n, what);
    } else {
        tally->near_runs++;
        tally->near_bad += d.over > 0;
        tally->near_differ += (double)d.differ;
        tally->near_n += (double)d.n;
        if (d.max_ulps > tally->near_max_ulps)
            tally->near_max_ulps = d.max_ulps;
        if (d.over > 0)
            printf("MISMATCH: fused and unfused outputs differ beyond 2 ulps in %zu of %zu "
                   "values (%s)\n",
                   d.over, d.n, what);
    }

    if (!otf_ran)
        return 0;
    /* The on-the-fly table, now given its rows: the same spec from memory.
       The unfused output has been compared and is free to take the result. */
    CHECK(sinpe_table_reserve(sr->otf_table, sinpe_table_rows(sr->table)));
    a.out = sr->out[BENCH_OUT_UNFUSED];
    CHECK(sinpe_enqueue_embed(sr->otf_table, env->queue, &a, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    if (bench_compare(env, sr->out[BENCH_OUT_OTF], sr->out[BENCH_OUT_UNFUSED], n, dtype, 0.0,
                      &d) != 0)
        return -1;
    tally->otf_runs++;
    tally->otf_bad += d.differ > 0;
    if (d.differ > 0)
        printf("MISMATCH: on-the-fly and table outputs differ in %zu of %zu values (%s)\n",
               d.differ, d.n, what);
    return 0;
fail:
    return -1;
}

/* The verdicts of the output checks; returns non-zero when one failed. */
int bench_report_checks(const check_tally *t)
{
    printf("\noutput checks:\n");
    if (t->exact_runs > 0)
        printf("  fused == unfused, fp32, byte for byte:      %s (%d of %d shapes)\n",
               t->exact_bad ? "no" : "yes", t->exact_runs - t->exact_bad, t->exact_runs);
    if (t->near_runs > 0)
        printf("  fused ~ unfused, fp16/bf16, within 2 ulps:  %s (%d of %d shapes; %.2f%% of "
               "values differ, by at most %.2f ulp)\n",
               t->near_bad ? "no" : "yes", t->near_runs - t->near_bad, t->near_runs,
               t->near_n > 0.0 ? 100.0 * t->near_differ / t->near_n : 0.0, t->near_max_ulps);
    if (t->otf_runs > 0)
        printf("  fused_otf == fused from a table, bytes:     %s (%d of %d shapes)\n",
               t->otf_bad ? "no" : "yes", t->otf_runs - t->otf_bad, t->otf_runs);
    if (t->rope_runs > 0)
        printf("  rope == rope_unfused and rope_host, bytes:  %s (%d of %d shapes, types, ways)\n",
               t->rope_bad ? "no" : "yes", t->rope_runs - t->rope_bad, t->rope_runs);
    if (t->rope_ref_runs > 0)
        printf("  rope ~ float64 rotation, within bound:      %s (%d of %d; largest error %.2f "
               "of its bound)\n",
               t->rope_ref_bad ? "no" : "yes", t->rope_ref_runs - t->rope_ref_bad,
               t->rope_ref_runs, t->rope_ref_worst);
    if (t->grid_runs > 0)
        printf("  grid_add == plain add of its encoding, bytes: %s (%d of %d shapes, types)\n",
               t->grid_bad ? "no" : "yes", t->grid_runs - t->grid_bad, t->grid_runs);
    if (t->near_runs > 0)
        printf("  (16-bit outputs: the unfused pair rounds twice, so it may differ from the\n"
               "  fused result by up to 2 ulps at magnitude max(|fused|, |unfused|) + 1;\n"
               "  see bench/check.c)\n");
    return t->exact_bad || t->near_bad || t->otf_bad || t->rope_bad || t->rope_ref_bad ||
           t->grid_bad;
}
