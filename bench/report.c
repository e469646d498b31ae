/*
 * report.c -- the human table on stdout, one JSON object per line for
 * --json, and error messages on stderr.
 *
 * Bandwidth figures.  Every row carries two byte counts:
 *   bytes       the case's own traffic: what its kernels must read and
 *               write (for unfused, the intermediate write and re-read of
 *               the output included).  "GB/s" and "%copy" use these: how
 *               well the case's kernels use the memory system.
 *   task_bytes  the fused case's mandatory traffic for the same shape: the
 *               least any implementation must move to produce the output.
 *               "task GB/s" uses these for fused and unfused alike: how fast
 *               the job gets done, so the two are directly comparable.
 * For the fused case the two are the same.  GB is 1e9 bytes.  "%copy" and
 * "%write" divide the case's own GB/s by the ceilings; the write ceiling is
 * the roof for table generation, which only writes.
 */
#include "bench.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

sinpe_dtype_info bench_dtype_info(sinpe_dtype dtype)
{
    sinpe_dtype_info info;
    if (sinpe_dtype_query(dtype, &info, sizeof info) != SINPE_SUCCESS)
        sinpe_dtype_query(SINPE_F32, &info, sizeof info);
    return info;
}

/* The report's names, from the library's: "f32" -> "fp32", "fp8_e4m3" ->
   "e4m3", the others as they are (the results files use these). */
const char *bench_dtype_name(sinpe_dtype dtype)
{
    static char names[BENCH_N_DTYPES][24];
    const char *name = bench_dtype_info(dtype).name;
    char *buf = names[(unsigned)dtype < BENCH_N_DTYPES ? dtype : 0];
    if (!strncmp(name, "fp8_", 4))
        return name + 4;
    if (name[0] == 'f' && isdigit((unsigned char)name[1]))
        snprintf(buf, sizeof names[0], "fp%s", name + 1);
    else
        snprintf(buf, sizeof names[0], "%s", name);
    return buf;
}

size_t bench_dtype_size(sinpe_dtype dtype)
{
    return sinpe_dtype_bytes(dtype, 1);
}

unsigned bench_types(int output)
{
    unsigned mask = output ? 0u : 1u << SINPE_F16;
    size_t n = sinpe_dtype_count();
    for (size_t t = 0; t < n && t < BENCH_N_DTYPES; t++) {
        sinpe_dtype_info info = bench_dtype_info((sinpe_dtype)t);
        if (output ? info.output : info.quantized)
            mask |= 1u << t;
    }
    return mask;
}

double bench_gbps(double bytes, double us)
{
    return us > 0.0 ? bytes / (us * 1e3) : 0.0;
}

static double pct(double part, double whole)
{
    return whole > 0.0 ? 100.0 * part / whole : 0.0;
}

/*
 * Whether some of a row's bytes came from a cache: its bytes fit in the
 * device's global memory cache (a case repeated on the same buffers keeps
 * them there), or it moved them faster than the copy ceiling, which no
 * traffic from memory can.  Ceiling rows are never marked.
 */
static int from_cache(const bench_env *env, const bench_row *r)
{
    double gbps = bench_gbps(r->bytes, r->stats.median_us);
    if (r->phase || r->bytes <= 0.0)
        return 0;
    return r->bytes <= (double)env->cache_bytes || pct(gbps, env->copy_gbps) > 100.0;
}

void bench_error(const char *what, int status, const char *file, int line)
{
    const char *detail = sinpe_last_error();
    fprintf(stderr, "sinpe_bench: %s:%d: %s failed: %s (%d)\n", file, line, what,
            sinpe_status_string((sinpe_status)status), status);
    if (detail && detail[0])
        fprintf(stderr, "sinpe_bench: detail: %s\n", detail);
}

#define ROW_HEAD "%-12s %-3s %-7s %-7s %4s %-5s %7s %4s %8s %8s %8s %8s %7s %6s %5s %7s %9s %5s\n"

void bench_report_header(const bench_env *env)
{
    const bench_opts *o = env->opts;
    printf("sinpe %s benchmark\n", sinpe_version_string());
    printf("device:   %s\n", env->device_name);
    printf("platform: %s, driver %s\n", env->platform_name, env->driver_version);
    printf("math:     %s\n",
           sinpe_context_math(env->ctx) == SINPE_MATH_FP64 ? "fp64" : "float");
    printf("tuning:   %s\n", sinpe_context_tuning(env->ctx));
    printf("seed:     %llu\n", (unsigned long long)o->seed);
    if (o->reps > 0)
        printf("reps:     %d timed, %d warm-up\n", o->reps, o->warmup);
    else
        printf("reps:     %d to %d timed (%.1f s budget per case), %d warm-up\n",
               BENCH_REPS_MIN, BENCH_REPS_MAX, BENCH_CASE_BUDGET_S, o->warmup);
    if (o->full)
        printf("matrix:   every case, storage type and positions mode (--full)\n");
    else if (o->positions)
        printf("matrix:   %s positions in every storage type; fused_otf in fp32 with\n"
               "          implicit positions, decode and prefill only (--full: everywhere)\n",
               o->positions == BENCH_POS_IMPLICIT   ? "implicit"
               : o->positions == BENCH_POS_EXPLICIT ? "explicit"
                                                    : "implicit and explicit");
    else
        printf("matrix:   fp32 with implicit and explicit positions, fp16 and bf16 with\n"
               "          implicit ones; fused_otf in fp32 with implicit positions, decode\n"
               "          and prefill only (--full: everything)\n");
    printf("times in microseconds.  med/min/max: device time from profiling events,\n"
           "START to END summed over the kernels a case enqueues (unfused: gather\n"
           "plus add).  Where one sinpe call may enqueue several kernels (table\n"
           "rows: anchors then rows; explicit positions: on CPU devices a table\n"
           "part then an on-the-fly part) but returns the last one's event only,\n"
           "the call is bracketed instead: END of its event minus END of a marker\n"
           "enqueued just before it, gaps included.  table_create: host\n"
           "wall clock, allocation included.  wall: median host wall clock per\n"
           "call, enqueue + clFinish.\n"
           "GB/s: the case's own bytes (fp16/bf16 rows count 2 B per value, PE rows\n"
           "4 B); task: GB/s on the fused case's mandatory bytes for the same shape;\n"
           "fused x: unfused time over fused time (device/wall); vs32: GB/s over the\n"
           "fp32 row's of the same case and shape (fused_otf: tN, its time over the\n"
           "fused call's from the table).  Weights rows (type w:i8 etc.):\n"
           "the fused call into fp16 output from weights of that type, the types\n"
           "timed call by call in rounds, vs32 the median of the rounds' time over\n"
           "the fp16 weights' (w:fp16) on the same shape; their bytes count the\n"
           "weights' own row size.  Rotary rows (rope, rope_otf, rope_unfused,\n"
           "rope_host, rope_copy, mrope (three lanes a token), rope_engine (float32\n"
           "angle, device cos/sin): 32 q and 8 kv heads per token, dim the\n"
           "head_dim): task on q and k read and written, for all seven (GB/s:\n"
           "rope_unfused's own bytes add its cos/sin cache and table rows); rope's\n"
           "vs is cN, its GB/s over rope_copy's (the same bytes); rope_otf's tN its\n"
           "time over rope's with every position past the table; the others' fused\n"
           "x their time over rope's.  %%copy and %%wr: GB/s over the fastest copy\n"
           "and write of the ceiling rows; a trailing c marks a row some of whose\n"
           "bytes came from a cache (they fit in the device's %.0f MiB, or it beat\n"
           "the copy ceiling).\n"
           "The ceilings run at the start and again at the end; percentages use\n"
           "the start figures, so the end rows show any drift.\n\n",
           (double)env->cache_bytes / (1024.0 * 1024.0));
    printf(ROW_HEAD, "case", "pos", "shape", "seqs", "dim", "type", "MiB", "reps", "med",
           "min", "max", "wall", "GB/s", "%copy", "%wr", "task", "fused x", "vs32");
    printf(ROW_HEAD, "", "", "", "x len", "", "", "", "", "us", "us", "us", "us", "", "", "",
           "GB/s", "dev/wall", "");
    fflush(stdout);
}

/* Writes s as a JSON string literal. */
static void json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_number_or_null(FILE *f, const char *key, double v)
{
    if (v > 0.0)
        fprintf(f, ",\"%s\":%.4f", key, v);
    else
        fprintf(f, ",\"%s\":null", key);
}

static void json_row(const bench_env *env, const bench_row *r)
{
    FILE *f = env->json;
    const bench_stats *s = &r->stats;
    double gbps = bench_gbps(r->bytes, s->median_us);
    double task_gbps = bench_gbps(r->task_bytes, s->median_us);

    fputs("{\"device\":", f);
    json_string(f, env->device_name);
    fputs(",\"case\":", f);
    json_string(f, r->name);
    if (r->phase) {
        fputs(",\"phase\":", f);
        json_string(f, r->phase);
    }
    fputs(",\"positions\":", f);
    json_string(f, r->positions);
    fputs(",\"shape\":", f);
    json_string(f, r->shape);
    fprintf(f, ",\"seqs\":%zu,\"seq_len\":%zu,\"dim\":%zu,\"dtype\":", r->seqs, r->seq_len,
            r->dim);
    json_string(f, r->dtype);
    fputs(",\"weights\":", f);
    json_string(f, r->weights ? r->weights : r->dtype);
    fputs(",\"path\":", f);
    json_string(f, r->path);
    fprintf(f, ",\"distinct_positions\":%zu", r->distinct_positions);
    fprintf(f, ",\"timing\":\"%s\",\"reps\":%d",
            s->timing == BENCH_TIMING_HOST      ? "host"
            : s->timing == BENCH_TIMING_BRACKET ? "bracket"
                                                : "device",
            s->reps);
    fprintf(f, ",\"median_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"wall_us\":%.3f",
            s->median_us, s->min_us, s->max_us, s->wall_us);
    fprintf(f, ",\"bytes\":%.0f,\"gbps\":%.4f", r->bytes, gbps);
    fprintf(f, ",\"pct_of_copy\":%.2f,\"pct_of_write\":%.2f", pct(gbps, env->copy_gbps),
            pct(gbps, env->write_gbps));
    fprintf(f, ",\"from_cache\":%s", from_cache(env, r) ? "true" : "false");
    fprintf(f, ",\"task_bytes\":%.0f", r->task_bytes);
    json_number_or_null(f, "task_gbps", task_gbps);
    json_number_or_null(f, "speedup_device", r->speedup_device);
    json_number_or_null(f, "speedup_wall", r->speedup_wall);
    json_number_or_null(f, "vs_fp32", r->vs_fp32);
    json_number_or_null(f, "time_vs_table", r->vs_table);
    json_number_or_null(f, "time_vs_fp16_weights", r->vs_weights);
    json_number_or_null(f, "gbps_vs_fp16_weights", r->vs_weights_gbps);
    json_number_or_null(f, "write_us", r->ref_us);
    json_number_or_null(f, "vs_write", r->vs_ref);
    json_number_or_null(f, "gbps_vs_copy", r->vs_copy);
    fprintf(f, ",\"seed\":%llu,\"tuning\":", (unsigned long long)env->opts->seed);
    json_string(f, sinpe_context_tuning(env->ctx));
    fputs("}\n", f);
    fflush(f);
}

/* A time in a column of 8: one decimal below 10^4 us, none above. */
static void fmt_us(char *buf, size_t size, double us)
{
    snprintf(buf, size, us < 1e4 ? "%.1f" : "%.0f", us);
}

void bench_report_row(bench_env *env, const bench_row *r)
{
    const bench_stats *s = &r->stats;
    double gbps = bench_gbps(r->bytes, s->median_us);
    /* Ceiling rows show when they ran where the others show their shape. */
    const char *label = r->shape ? r->shape : r->phase ? r->phase : "-";
    char seqs[48] = "-", dim[24] = "-", task[48] = "-", speedup[96] = "-", vs[32] = "-";
    char type[32];
    char mib[32], reps[24], med[32], lo[32], hi[32], wall[32], rate[32], pc[32], pw[32];

    if (r->dim > 0)
        snprintf(dim, sizeof dim, "%zu", r->dim);
    if (r->seqs > 0)
        snprintf(seqs, sizeof seqs, "%zux%zu", r->seqs, r->seq_len);
    if (r->task_bytes > 0.0)
        snprintf(task, sizeof task, "%.2f", bench_gbps(r->task_bytes, s->median_us));
    if (r->speedup_device > 0.0)
        snprintf(speedup, sizeof speedup, "%.2f/%.2f", r->speedup_device, r->speedup_wall);
    if (r->vs_fp32 > 0.0 || r->vs_weights > 0.0)
        snprintf(vs, sizeof vs, "%.2f", r->weights ? r->vs_weights : r->vs_fp32);
    else if (r->vs_table > 0.0)
        snprintf(vs, sizeof vs, "t%.1f", r->vs_table);
    else if (r->vs_copy > 0.0)
        snprintf(vs, sizeof vs, "c%.2f", r->vs_copy);
    if (r->weights)
        snprintf(type, sizeof type, "w:%s", r->weights);
    else
        snprintf(type, sizeof type, "%s", r->dtype ? r->dtype : "-");
    snprintf(mib, sizeof mib, "%.1f", r->bytes / (1024.0 * 1024.0));
    snprintf(reps, sizeof reps, "%d", s->reps);
    fmt_us(med, sizeof med, s->median_us);
    fmt_us(lo, sizeof lo, s->min_us);
    fmt_us(hi, sizeof hi, s->max_us);
    fmt_us(wall, sizeof wall, s->wall_us);
    snprintf(rate, sizeof rate, "%.2f", gbps);
    snprintf(pc, sizeof pc, "%.1f%s", pct(gbps, env->copy_gbps), from_cache(env, r) ? "c" : "");
    snprintf(pw, sizeof pw, "%.1f", pct(gbps, env->write_gbps));

    printf(ROW_HEAD, r->name, r->positions ? (r->positions[0] == 'e' ? "exp" : "imp") : "-",
           label, seqs, dim, type, mib, reps, med, lo, hi, wall, rate, pc,
           pw, task, speedup, vs);
    fflush(stdout);
    if (env->json)
        json_row(env, r);
}
