/*
 * bench.h -- declarations shared by the files of the sinpe benchmark.
 *
 * The benchmark is a standalone program: it uses only the public API in
 * sinpe.h plus plain OpenCL, creates its own profiling queue in the sinpe
 * context, and measures its own bandwidth ceilings on the same device so
 * that every figure it prints can be read against a roof measured in the
 * same run.  It needs nothing but a C compiler, the OpenCL ICD loader and a
 * driver.
 */
#ifndef SINPE_BENCH_H
#define SINPE_BENCH_H

#include "sinpe.h"

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* The most events one timed call may produce (the unfused pair needs two,
   a bracketed call its marker and its last command). */
#define BENCH_MAX_EVENTS 3

/* The model: vocabulary rows of the embedding table, and the rows of PE
   the table cases generate. */
#define BENCH_VOCAB 32000
#define BENCH_TABLE_ROWS 8192

/* Explicit positions place each sequence at a random offset in a context
   of this many tokens, as a batch of requests of different ages would. */
#define BENCH_CONTEXT 4096

/* Exit statuses (0 is success). */
#define BENCH_EXIT_ERROR 1    /* an OpenCL or sinpe call failed */
#define BENCH_EXIT_USAGE 2    /* bad command line */
#define BENCH_EXIT_MISMATCH 3 /* fused and unfused (or on-the-fly) outputs differ */

/* Position modes, as bits of bench_opts.positions. */
#define BENCH_POS_IMPLICIT 1u
#define BENCH_POS_EXPLICIT 2u

/* Storage types, as bits (1u << sinpe_dtype) of bench_opts.dtypes (the
   output types: bench_types(1)) and bench_opts.weights (the weights
   section's, fp16 and the quantized types: bench_types(0)); arrays by
   sinpe_dtype have room for BENCH_N_DTYPES (bench_types leaves out any
   past it). */
#define BENCH_N_DTYPES 16

/* Command-line settings. */
typedef struct bench_opts {
    int reps;            /* timed runs per case; 0: adaptive, BENCH_REPS_MIN..MAX */
    int warmup;          /* untimed runs before the timed ones */
    int quick;           /* smoke run: few reps, small ceiling buffers */
    unsigned positions;  /* BENCH_POS_* bits; 0: explicit in fp32 only (the default) */
    int full;            /* every storage type x positions mode x case */
    unsigned dtypes;     /* 1u << SINPE_F32 etc. */
    unsigned weights;    /* weight types of the weights section, 1u << sinpe_dtype */
    uint64_t seed;       /* seed of the token ids and positions */
    const char *json_path;
    const char *device;  /* sinpe device selector; NULL: SINPE_DEVICE or best */
    int no_disk_cache;   /* the context skips the binary cache (the tuner's) */
    int rope_only;       /* the ceilings and the rotary section alone */
    int attn_only;       /* the ceilings and the attention input rows alone */
} bench_opts;

/*
 * Default repetition policy.  Without --reps each case runs at least
 * BENCH_REPS_MIN timed calls and keeps going, up to BENCH_REPS_MAX, while
 * its timed calls have used less than BENCH_CASE_BUDGET_S seconds: short
 * cases get many samples, the big shapes stay at the minimum.
 */
#define BENCH_REPS_MIN 20
#define BENCH_REPS_MAX 200
#define BENCH_CASE_BUDGET_S 0.5
#define BENCH_WARMUP 3

/* State shared by the whole run. */
typedef struct bench_env {
    const bench_opts *opts;
    sinpe_context *ctx;
    cl_context cl_ctx;        /* borrowed from ctx */
    cl_device_id device;      /* borrowed from ctx */
    cl_command_queue queue;   /* the bench's own in-order profiling queue */
    cl_mem marker;            /* 4 bytes that bracketing markers fill */
    cl_program program;       /* the bench's helper kernels */
    cl_kernel k_copy, k_write, k_empty;
    cl_kernel k_copy_stream, k_write_stream, k_copy_line; /* NULL without the builtin */
    cl_kernel k_write_best;   /* the write ceiling's kernel; NULL: the runtime's fill */
    cl_kernel k_copy_best;    /* the copy ceiling's kernel; NULL: the runtime's copy */
    size_t copy_best_unit;    /* bytes a work-item of k_copy_best copies */
    cl_kernel k_fill[BENCH_N_DTYPES]; /* by sinpe_dtype */
    cl_ulong max_alloc;       /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    cl_device_type device_type;
    char device_name[256];
    char platform_name[256];
    char driver_version[128];
    double copy_gbps;         /* ceilings: the fastest copy and write at the */
    double write_gbps;        /* start of the run (bench_ceilings) */
    const char *copy_name, *write_name; /* which way each was */
    cl_ulong cache_bytes;     /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
    double empty_wall_us;     /* the launch floor (bench_launch_floor) */
    unsigned serial;          /* makes every throw-away spec new */
    FILE *json;               /* NULL without --json */
    const char *program_name; /* for messages */
} bench_env;

/* env.c: opens the state for opts (the device, the queue, the helper
   kernels, the JSON file); returns 0, or -1 after saying why.  Close it
   even after a failed open; close returns -1 when the JSON write failed. */
int bench_env_open(bench_env *env, const bench_opts *opts, const char *program);
int bench_env_close(bench_env *env);
/* A read-write buffer of bytes in the context; 0, or -1 after naming what. */
int bench_make_buffer(bench_env *env, size_t bytes, const char *what, cl_mem *mem);

/* How a case's median/min/max were taken. */
typedef enum bench_timing {
    BENCH_TIMING_DEVICE,  /* sum of the call's events, START to END */
    BENCH_TIMING_BRACKET, /* END of the call's last event minus END of a marker */
    BENCH_TIMING_HOST     /* no events: host wall clock */
} bench_timing;

/* Statistics of one timed case, all times in microseconds. */
typedef struct bench_stats {
    int reps;            /* timed calls */
    double median_us;    /* device time (see timing) */
    double min_us;
    double max_us;
    double wall_us;      /* median host wall clock: enqueue + clFinish */
    bench_timing timing;
} bench_stats;

/*
 * One thing to time.  run() enqueues one call on queue and returns the
 * events that make up its device time; it may return none for a blocking
 * host call.  With bracket set, bench_time() enqueues a marker just before
 * the call and the device time is END(the call's last event) - END(marker),
 * which covers every command the call made in between, including ones
 * whose events it does not return (a sinpe call may enqueue several
 * kernels and returns the last one's event).
 * after(), when not NULL, runs after each call outside the timed region (to
 * free what run() made).  run() returns 0, or -1 after printing the error;
 * *n_events counts the events made even then, so that the caller can
 * release them.
 */
typedef struct bench_job {
    int (*run)(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events);
    void (*after)(void *user);
    void *user;
    int bracket;
} bench_job;

/* One result line: a row of the human table and one JSON object. */
typedef struct bench_row {
    const char *name;         /* case (bench_cases[], "table", "copy", ...) */
    const char *phase;        /* ceilings: "start" or "end" of the run; else NULL */
    const char *positions;    /* "implicit", "explicit", or NULL */
    const char *shape;        /* shape name, or NULL */
    const char *dtype;        /* storage of weights and output; NULL: none */
    const char *weights;      /* weights section: the weights' type (dtype: the output's) */
    const char *path;         /* decode paths: "plain", "replay", "host_kernel", ... */
    size_t seqs, seq_len, dim;
    size_t distinct_positions;
    double bytes;             /* the case's own bytes that must move */
    double task_bytes;        /* fused mandatory bytes of the same shape (0: none) */
    double speedup_device;    /* unfused rows: unfused / fused median device time */
    double speedup_wall;      /* unfused rows: unfused / fused median wall time */
    double vs_fp32;           /* fp16/bf16 rows: GB/s over fp32's, same case and shape */
    double vs_table;          /* fused_otf rows: device time over the fused call's from
                                 a table, same shape */
    double vs_weights;        /* weights rows: time over the fp16 weights', same shape */
    double vs_weights_gbps;   /* and GB/s over theirs */
    double ref_us;            /* table: median of the write of the same bytes */
    double vs_ref;            /* table: median_us / ref_us (goal <= 3) */
    double vs_copy;           /* rope: GB/s over the copy of the same bytes, same run */
    bench_stats stats;
} bench_row;

/* The traffic of one configuration, from which each case's bytes follow. */
typedef struct bench_traffic {
    double tokens;    /* tokens in the batch */
    double distinct;  /* distinct positions among them */
    double pe_row;    /* bytes of one table row: dim float32 values */
    double in_row;    /* bytes of one embedding row in the weights' dtype */
    double out_row;   /* bytes of one output row in the output's dtype */
    int explicit_pos; /* positions read from a buffer (4 B per token) */
} bench_traffic;

/* The outputs a shape's cases write: fused and unfused are compared after
   timing, add works in place on one of its own, and the on-the-fly output
   is compared with the table path's. */
enum { BENCH_OUT_FUSED, BENCH_OUT_UNFUSED, BENCH_OUT_ADD, BENCH_OUT_OTF, BENCH_N_OUT };

/* The state a case's run() gets for one (dim, dtype, shape, positions). */
typedef struct bench_shape_run {
    sinpe_table *table;     /* holds every position the shape uses */
    sinpe_table *otf_table; /* 0 rows: every position computed on the fly */
    sinpe_embed_args args;  /* everything but out, which each case sets */
    cl_mem out[BENCH_N_OUT];
} bench_shape_run;

/*
 * The cases timed for every shape, in order.  fused comes first: the
 * others' speedup and task bandwidth are read against it.  run() takes a
 * bench_shape_run; bytes() gives what the case must move (report.c says
 * how that feeds the GB/s columns).
 */
typedef struct bench_case {
    const char *name;
    int (*run)(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events);
    double (*bytes)(const bench_traffic *t);
    int out;       /* BENCH_OUT_* */
    int positions; /* whether it reads positions (else explicit = implicit) */
} bench_case;

/* inputs.c: the shapes, and the ids and positions of shape si (positions
   NULL when implicit), the same in every run with the same seed. */
typedef struct bench_shape {
    const char *name;
    size_t seqs, seq_len;
} bench_shape;
extern const bench_shape bench_shapes[];
extern const size_t bench_n_shapes;

typedef struct bench_inputs {
    cl_mem ids, pos;
    size_t distinct; /* distinct positions among the tokens */
} bench_inputs;
int bench_inputs_make(bench_env *env, size_t si, int explicit_pos, bench_inputs *in);
void bench_inputs_release(bench_inputs *in);

/* cases.c */
extern const bench_case bench_cases[];
extern const size_t bench_n_cases;
double bench_bytes_fused(const bench_traffic *t);

/* table.c: table generation at one dim, next to the write of the same bytes;
   ratio gets table time / write time and table time / the write ceiling's
   time for those bytes (0 when skipped). */
int bench_table_cases(bench_env *env, sinpe_table *table, size_t dim, double ratio[2]);

/* verdict.c: the output checks over the run (they decide the exit status)
   and the goals the figures are read against (reported only). */
typedef struct check_tally {
    int exact_runs, exact_bad;     /* float32 fused vs unfused, byte for byte */
    int near_runs, near_bad;       /* 16-bit fused vs unfused, within tolerance */
    double near_max_ulps;
    double near_differ, near_n;    /* elements that differ, elements compared */
    int otf_runs, otf_bad;         /* on the fly vs table, byte for byte */
    int rope_runs, rope_bad;       /* rope vs the unfused pair and the host kernel, bytes */
    int rope_ref_runs, rope_ref_bad; /* rope vs a float64 rotation, within bound */
    double rope_ref_worst;         /* the largest error over its bound */
    int grid_runs, grid_bad;       /* grid_add vs the plain add of its encoding, bytes */
} check_tally;

typedef struct bench_range {
    int rows, met;
    double min, max;
} bench_range;

#define BENCH_MAX_TABLE_DIMS 8
typedef struct goal_tally {
    /* [0]: implicit positions, [1]: explicit (reported, not the rows) */
    bench_range pct_copy[2];       /* fused, fp32, prefill/mid: % of copy */
    bench_range speedup[2];        /* unfused / fused device time, same rows */
    bench_range decode_wall;       /* unfused / fused wall time, fp32 implicit decode */
    bench_range otf_big[2];        /* fused_otf, prefill/mid: table time over its own */
    bench_range otf_decode;        /* fused_otf, decode: its time over the table's */
    bench_range decode_floor[2];   /* fused wall time over the empty kernel's, fp32 decode */
    bench_range vs_fp32[BENCH_N_DTYPES]; /* 16-bit GB/s over fp32's */
    bench_range w_time[BENCH_N_DTYPES]; /* weights rows: time over fp16 weights' */
    bench_range w_gbps[BENCH_N_DTYPES]; /* and GB/s over theirs */
    bench_range w_bytes[BENCH_N_DTYPES]; /* mandatory bytes over theirs */
    bench_range path_floor[2]; /* decode paths: host kernel over the empty kernel's wall
                                  time, replay over the empty recording's */
    bench_range rope_copy;     /* rope, prefill and mid: GB/s over the same-bytes copy's */
    bench_range rope_speedup;  /* rope_unfused over rope, device time, same rows */
    bench_range rope_reach;    /* the most rope_speedup can be: rope_unfused over rope_copy
                                  (rope's bytes), or itself where rope beats the copy */
    bench_range rope_otf;      /* rope_otf over rope, device time, every shape */
    size_t n_table, table_dim[BENCH_MAX_TABLE_DIMS];
    double table_ratio[BENCH_MAX_TABLE_DIMS][2]; /* over the write kernel, the ceiling */
} goal_tally;

int bench_check_shape(bench_env *env, bench_shape_run *sr, sinpe_dtype dtype, size_t n,
                      int otf_ran, const char *what, check_tally *tally);
int bench_report_checks(const check_tally *t);
void bench_goal_row(const bench_env *env, goal_tally *g, const bench_row *row);
void bench_goal_table(goal_tally *g, size_t dim, const double ratio[2]);
void bench_goal_path(goal_tally *g, int replay, double ratio);
void bench_goal_rope(const bench_env *env, goal_tally *g, const bench_row *fused,
                     double speedup, double reach, double otf_ratio);
void bench_report_goals(cl_device_type type, const goal_tally *g);

/* rope.c: sinpe_enqueue_rope() in place against the unfused pair and a
   copy of the same bytes (checked as a shape is). */
int bench_rope_cases(bench_env *env, check_tally *tally, goal_tally *goals);

/* grid.c: the patch grid's encoding added in place (DiT-XL, SD3) against the
   plain add of a precomputed encoding and a float32-formula kernel. */
int bench_grid_cases(bench_env *env, check_tally *tally);

/* attn_input.c: the attention input stage (norm, rope, cache write) against
   the unfused chain and the copy of its bytes; mismatches count as rope's. */
int bench_attn_cases(bench_env *env, check_tally *tally);

/* weights.c: the fused call into fp16 output from every weight type of
   opts->weights, decode, mid and prefill, at one dim (checked as a shape is). */
int bench_weight_cases(bench_env *env, sinpe_table *table, size_t dim, check_tally *tally,
                       goal_tally *goals);

/* paths.c: the decode step by each path a host can take, at one dim. */
int bench_decode_paths(bench_env *env, sinpe_table *table, size_t dim, goal_tally *goals);

/* check.c: compares two outputs of n elements of dtype, read back from the
   device.  tol_ulps 0 asks for equal bytes; else see check.c. */
typedef struct bench_diff {
    size_t n;            /* elements compared */
    size_t differ;       /* elements whose bytes differ */
    size_t over;         /* elements beyond the tolerance (0: pass) */
    double max_ulps;     /* largest difference, in ulps at magnitude M + 1 */
} bench_diff;
int bench_compare(bench_env *env, cl_mem a, cl_mem b, size_t n, sinpe_dtype dtype,
                  double tol_ulps, bench_diff *diff);

/* options.c: returns 0, -1 for --help, or BENCH_EXIT_USAGE after saying why. */
int bench_parse_args(int argc, char **argv, bench_opts *opts);
void bench_usage(FILE *f);

/* timing.c */
double bench_now_s(void);
int bench_time(bench_env *env, const bench_job *job, bench_stats *stats);
/* Jobs whose times are compared, timed call by call in rounds (one call
   of each job a round): t[i][r] is job i's device time in round r. */
#define BENCH_ROUNDS 40      /* rounds without --reps */
#define BENCH_MAX_ROUNDS 200 /* and with it */
#define BENCH_MAX_JOBS (BENCH_N_DTYPES + 1) /* the weights section: a type each, and a split */
typedef struct bench_rounds {
    int n;
    double t[BENCH_MAX_JOBS][BENCH_MAX_ROUNDS];
} bench_rounds;
int bench_time_rounds(bench_env *env, const bench_job *jobs, int n, bench_stats *stats,
                      bench_rounds *rounds);
double bench_round_ratio(const bench_rounds *rounds, int a, int b);

/* The median of v[0 .. n), n > 0; sorts v in place. */
double bench_median(double *v, int n);

/* ceiling.c */
int bench_kernels_build(bench_env *env);
void bench_kernels_release(bench_env *env);
/* Fills n elements of buf (of dtype) with values in [-1, 1) and waits. */
int bench_fill(bench_env *env, cl_mem buf, size_t n, cl_uint seed, sinpe_dtype dtype);
/* Enqueues the write ceiling's way (the fastest write, bench_ceilings) over
   bytes (a multiple of 16) of buf. */
int bench_enqueue_write(bench_env *env, cl_command_queue queue, cl_mem buf, size_t bytes,
                        cl_uint n_wait, const cl_event *wait, cl_event *event);
/* Enqueues the copy ceiling's way over bytes (a multiple of 64) from src
   to dst. */
int bench_enqueue_copy(bench_env *env, cl_command_queue queue, cl_mem src, cl_mem dst,
                       size_t bytes, cl_event *event);
/* Measures and reports the copy and write ceilings; the first call (at_end
   0) sets env->copy_gbps and write_gbps (the fastest way of each), the
   second only reports (drift). */
int bench_ceilings(bench_env *env, int at_end);
/* Times and reports an empty kernel's launch, setting env->empty_wall_us. */
int bench_launch_floor(bench_env *env);

/* report.c */
const char *bench_dtype_name(sinpe_dtype dtype);
size_t bench_dtype_size(sinpe_dtype dtype);
/* The library's properties of a storage type (sinpe_dtype_query). */
sinpe_dtype_info bench_dtype_info(sinpe_dtype dtype);
/* The output types (output 1), or fp16 and the quantized types (0), as bits. */
unsigned bench_types(int output);
void bench_report_header(const bench_env *env);
void bench_report_row(bench_env *env, const bench_row *row);
double bench_gbps(double bytes, double us);

/*
 * Error reporting.  Every OpenCL and sinpe call in the bench goes through
 * CHECK, which prints the failing call with sinpe_status_string() (it names
 * OpenCL codes too) and sinpe_last_error(), then jumps to the enclosing
 * function's fail: label, which frees what was made and returns -1.
 * CHECK_AS names the call itself, for errcode_ret out-parameters.
 */
void bench_error(const char *what, int status, const char *file, int line);

#define CHECK_AS(what, status)                                        \
    do {                                                              \
        int check_status_ = (int)(status);                            \
        if (check_status_ != 0) {                                     \
            bench_error((what), check_status_, __FILE__, __LINE__);   \
            goto fail;                                                \
        }                                                             \
    } while (0)

#define CHECK(call) CHECK_AS(#call, call)

#endif /* SINPE_BENCH_H */
