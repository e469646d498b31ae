/*
 * tune.h -- what the files of sinpe-tune share (tune.c: the cases and
 * their timing; tune_main.c: the search, the check of the result, main).
 * It reads and compares records through the library's tuning API and the
 * plan's queries (src/tuning.h), and times through bench/.
 */
#ifndef SINPE_TUNE_H
#define SINPE_TUNE_H

#include "bench.h"
#include "tuning.h"

#define MAX_DIMS 4
#define MAX_CASES 96
#define MAX_RECORDS 12 /* distinct records timed together */
#define MAX_ROUNDS 9

enum { OP_FUSED, OP_GATHER, OP_ADD, OP_TABLE, OP_ROPE };
extern const char *const tune_op_names[];

/* One thing to time at one dim. */
typedef struct tune_case {
    int op, shape, explicit_pos; /* shape: index of bench_shapes (none for table) */
    sinpe_dtype dtype;
    size_t dim;
    int final;                   /* one of the benchmark's fp32 cases, verified last */
    double best_us;              /* fastest in the search, under best */
    char best[SINPE__VARIANT];
} tune_case;

/* A record's context and its tables, one per dim, and its rotary table,
   each made when a case first runs under the record and needs it. */
typedef struct candidate {
    char text[SINPE__VARIANT];
    sinpe_context *ctx;
    sinpe_table *table[MAX_DIMS], *rope;
} candidate;

/* The rotary case: q and k of TUNE_ROPE_TOKENS tokens, 32 q and 8 kv heads
   of 128 in place, one row a token (the benchmark's rope rows). */
#define TUNE_ROPE_HEAD 128
#define TUNE_ROPE_Q 32
#define TUNE_ROPE_KV 8
#define TUNE_ROPE_SEQS 4
#define TUNE_ROPE_LEN 512

typedef struct tuner {
    bench_env env;
    bench_opts opts;
    size_t dims[MAX_DIMS], n_dims;
    unsigned dtypes;
    int rounds;
    int save; /* 0 --dry-run, 1 at the end, 2 also after each parameter (--save-each) */
    double margin;
    bench_inputs inputs[3][2];             /* [shape][explicit] */
    cl_mem weights[MAX_DIMS][BENCH_N_DTYPES], out[MAX_DIMS][BENCH_N_DTYPES][2];
    cl_mem rows_out[MAX_DIMS], rope_qk;
    tune_case cases[MAX_CASES];
    size_t n_cases;
    candidate held; /* the current record's, open from one search to the next */
    double t0;
} tuner;


/* The benchmark's shapes by name (bench_shapes). */
enum { DECODE, MID, PREFILL };

/* tune.c */
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
