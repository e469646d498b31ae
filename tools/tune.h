/*
 * tune.h -- what the files of sinpe-tune share (measure.c: its device,
 * inputs and timing; tune.c: the cases and their timing under a record;
 * tune_main.c: the search, the check of the result, main).  It stands on
 * the public API and the library's tuning interface (src/tuning.h: the
 * parameters, the record format, the database and the plan's queries),
 * and times the benchmark's cases as the benchmark does, with its own
 * measuring.
 */
#ifndef SINPE_TUNE_H
#define SINPE_TUNE_H

#include "sinpe.h"
#include "tuning.h"

#include <stdint.h>
#include <stdio.h>

/* The benchmark's model (bench/bench.h): vocabulary rows of the weights,
   rows of the table, and the context that explicit positions place each
   sequence in; and its seed, which fixes the ids and positions. */
#define TUNE_VOCAB 32000
#define TUNE_TABLE_ROWS 8192
#define TUNE_CONTEXT 4096
#define TUNE_SEED 20240601u
#define TUNE_N_DTYPES 16 /* arrays by sinpe_dtype have room for this many */

/* ---- measure.c ----------------------------------------------------------- */

/* The benchmark's shapes, by name. */
typedef struct tune_shape {
    const char *name;
    size_t seqs, seq_len;
} tune_shape;
enum { DECODE, MID, PREFILL, N_SHAPES };
extern const tune_shape tune_shapes[N_SHAPES];

/* The device: a context (whose cl_context the candidates share) and a
   profiling queue of the tuner's own. */
typedef struct tune_env {
    sinpe_context *ctx;
    cl_context cl_ctx;      /* borrowed from ctx */
    cl_device_id device;    /* borrowed from ctx */
    cl_command_queue queue; /* in order, profiling */
    cl_mem marker;          /* 4 bytes that bracketing markers fill */
    cl_device_type device_type;
    char device_name[256], platform_name[256], driver_version[128];
    FILE *json;             /* NULL without --json */
    const char *json_path;
} tune_env;

/* 0, or -1 after saying why; close it even after a failed open (-1 when
   the JSON write failed). */
int tune_env_open(tune_env *env, const char *device, const char *json_path);
int tune_env_close(tune_env *env);
double tune_now_s(void);

/* The ids and positions (NULL when implicit) of shape si. */
typedef struct tune_inputs {
    cl_mem ids, pos;
} tune_inputs;
int tune_inputs_make(tune_env *env, size_t si, int explicit_pos, uint64_t seed, tune_inputs *in);
void tune_inputs_release(tune_inputs *in);
/* Fills n values of dtype (a float type) in buf, in [-1, 1), and waits. */
int tune_fill(tune_env *env, cl_mem buf, size_t n, cl_uint seed, sinpe_dtype dtype);

/* One call to time: run() enqueues it on queue with its event in *event
   (0, or -1 after saying why).  Bracketed, its time runs from a marker
   enqueued before it, so that every launch of the call counts. */
typedef struct tune_job {
    int (*run)(void *user, cl_command_queue queue, cl_event *event);
    void *user;
    int bracket;
} tune_job;
#define TUNE_MAX_REPS 64
/* warmup calls, then the median device time of reps timed calls. */
int tune_time(tune_env *env, const tune_job *job, int warmup, int reps, double *median_us);

/* Every OpenCL and sinpe call goes through CHECK, which prints the call
   and sinpe_last_error() and jumps to the function's fail: label. */
void tune_error(const char *what, int status, const char *file, int line);
#define CHECK_AS(what, status)                                      \
    do {                                                            \
        int check_status_ = (int)(status);                          \
        if (check_status_ != 0) {                                   \
            tune_error((what), check_status_, __FILE__, __LINE__);  \
            goto fail;                                              \
        }                                                           \
    } while (0)
#define CHECK(call) CHECK_AS(#call, call)

/* ---- the tuner ----------------------------------------------------------- */

#define MAX_DIMS 4
#define MAX_CASES 96
#define MAX_RECORDS 12 /* distinct records timed together */
#define MAX_ROUNDS 9

enum { OP_FUSED, OP_GATHER, OP_ADD, OP_TABLE, OP_ROPE, OP_GRID, OP_ATTN };
extern const char *const tune_op_names[];

/* One thing to time at one dim. */
typedef struct tune_case {
    int op, shape, explicit_pos; /* shape: index of tune_shapes (none for table) */
    sinpe_dtype dtype;
    size_t dim;
    int final;                   /* one of the benchmark's fp32 cases, verified last */
    double best_us;              /* fastest in the search, under best */
    char best[SINPE__VARIANT];
} tune_case;

/* A record's context and its tables, one per dim, its rotary table and
   its grid's, each made when a case first runs under the record and needs
   it. */
typedef struct candidate {
    char text[SINPE__VARIANT];
    sinpe_context *ctx;
    sinpe_table *table[MAX_DIMS], *rope, *grid;
} candidate;

/* The rotary case: q and k of TUNE_ROPE_TOKENS tokens, 32 q and 8 kv heads
   of 128 in place, one row a token (the benchmark's rope rows). */
#define TUNE_ROPE_HEAD 128
#define TUNE_ROPE_Q 32
#define TUNE_ROPE_KV 8
#define TUNE_ROPE_SEQS 4
#define TUNE_ROPE_LEN 512

/* The attention input case: the rotary case's q and k, normed (RMS) and
   rotated, q to an output and k and v to fp32 cache rows (attn_out: q's
   output, the caches, then v). */

/* The grid case: the benchmark's DiT-XL/2 patches, 32 images of 16 x 16
   tokens of 1152 values (fp32), the 2-D encoding added in place. */
#define TUNE_GRID_IMAGES 32
#define TUNE_GRID_SIDE 16
#define TUNE_GRID_D 1152
#define TUNE_GRID_BASE 16.0

typedef struct tuner {
    tune_env env;
    const char *device, *json_path; /* --device, --json */
    size_t dims[MAX_DIMS], n_dims;
    unsigned dtypes;
    int rounds;
    int save; /* 0 --dry-run, 1 at the end, 2 also after each parameter (--save-each) */
    double margin;
    tune_inputs inputs[N_SHAPES][2];        /* [shape][explicit] */
    cl_mem weights[MAX_DIMS][TUNE_N_DTYPES], out[MAX_DIMS][TUNE_N_DTYPES][2];
    cl_mem rows_out[MAX_DIMS], rope_qk, grid_x, attn_out;
    tune_case cases[MAX_CASES];
    size_t n_cases;
    candidate held; /* the current record's, open from one search to the next */
    double t0;
} tuner;

/* tune.c */
/* The output types (1u << sinpe_dtype), and a type's name as the
   benchmark writes it ("fp32", "fp16", "bf16"). */
unsigned tune_output_types(void);
const char *tune_dtype_name(sinpe_dtype dtype);
void tune_make_cases(tuner *tu);
/* Case c as the plan sees the call (src/tuning.h). */
sinpe__call tune_call(const tune_case *c);
/* Whether parameter p decides case c under the current record cur. */
int tune_decides(const tuner *tu, size_t p, const sinpe__tuning *cur, const tune_case *c);
void tune_case_name(const tune_case *c, char *buf, size_t n);
int tune_candidate_open(tuner *tu, candidate *cand, const char *text);
void tune_candidate_close(candidate *cand);
/* Round r (from 0) of the cases sel[0 .. n) under the candidates,
   interleaved: us[k][c] becomes the fastest of case k's round medians so
   far under candidate c, where ok[k][c] (else 0). */
int tune_time_round(tuner *tu, candidate *cands, size_t n_cands, tune_case **sel, size_t n,
                    int (*ok)[MAX_RECORDS], int r, double (*us)[MAX_RECORDS]);
void tune_json(tuner *tu, const char *phase, const tune_case *c, const char *role,
               const char *record, double us);

#endif
