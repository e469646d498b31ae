/*
 * options.c -- the command line.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEED 20240601u
#define MAX_COUNT 100000ull

void bench_usage(FILE *f)
{
    fprintf(f,
            "usage: sinpe_bench [options]\n"
            "\n"
            "Times sinpe's fused embedding + positional encoding against the unfused\n"
            "gather + add pair, the add alone and the fused call with every position\n"
            "computed on the fly, at dims 1024 and 4096, vocab %d, on shapes decode\n"
            "64x1, mid 32x512 and prefill 4x2048, with implicit and explicit positions,\n"
            "in fp32, fp16 and bf16 storage; the generation of %d table rows next\n"
            "to the write of the same bytes; and rotary embeddings: q and k rotated\n"
            "in place by sinpe_enqueue_rope, against a cos/sin gather plus a\n"
            "rotation and a copy of the same bytes.  Copy and write bandwidth\n"
            "ceilings are measured in the same run.  The device is sinpe's default:\n"
            "SINPE_DEVICE, else the first GPU, accelerator or CPU.\n"
            "\n"
            "options:\n"
            "  --reps N          timed runs per case (default: %d to %d, %.1f s per case;\n"
            "                    rows whose times are compared, as the storage types of\n"
            "                    one case, run call by call in N rounds, at most %d,\n"
            "                    or %d: each a call of every row, after one untimed\n"
            "                    call of each; a ratio is the median of the rounds')\n"
            "  --warmup N        untimed runs before timing (default %d)\n"
            "  --positions P     implicit, explicit or both, in every storage type\n"
            "                    (default: both in fp32, implicit in fp16 and bf16)\n"
            "  --explicit        the same as --positions both (kept for old scripts)\n"
            "  --dtypes LIST     storage types, from fp32,fp16,bf16 (default all three)\n"
            "  --weights LIST    weight types of the weights section (fused into fp16\n"
            "                    output, decode, mid and prefill), from fp16,i8,q8_0,\n"
            "                    e4m3,e5m2,q4_0,q4_1,q5_0,q5_1,q4_k,q5_k,q6_k (default\n"
            "                    all), or none\n"
            "  --full            every storage type with both position modes, and\n"
            "                    fused_otf in all of them and on every shape (default:\n"
            "                    fp32, implicit positions, decode and prefill only);\n"
            "                    several times longer on a CPU device\n"
            "  --json FILE       write one JSON object per line to FILE\n"
            "  --seed N          seed of the random ids and positions (default %u)\n"
            "  --device SEL      device selector, as SINPE_DEVICE (\"P:D\" or a name part)\n"
            "  --rope-only       the ceilings and the rotary rows alone (rope, in place\n"
            "                    on 32 q and 8 kv heads of 128, against the unfused\n"
            "                    pair and a copy of the same bytes)\n"
            "  --attn-only       the ceilings and the attention input rows alone (the\n"
            "                    stage against its unfused chain and a copy of its bytes)\n"
            "  --quick           smoke run: 5 reps, 1 warm-up, 16 MiB ceiling buffers\n"
            "  --help            this text\n"
            "\n"
            "exit status: %d success, %d OpenCL or sinpe error, %d bad usage,\n"
            "%d an output check failed (fused against unfused, or on the fly against\n"
            "the table).\n",
            BENCH_VOCAB, BENCH_TABLE_ROWS, BENCH_REPS_MIN, BENCH_REPS_MAX, BENCH_CASE_BUDGET_S,
            BENCH_MAX_ROUNDS, BENCH_ROUNDS,
            BENCH_WARMUP, DEFAULT_SEED, 0, BENCH_EXIT_ERROR, BENCH_EXIT_USAGE,
            BENCH_EXIT_MISMATCH);
}

/* --dtypes and --weights: a comma-separated list of the names of the
   types in allowed (bits 1u << sinpe_dtype); "none" for the empty set when
   allowed has none_ok. */
static int parse_dtypes(const char *s, unsigned allowed, int none_ok, unsigned *mask)
{
    *mask = 0;
    if (none_ok && s && !strcmp(s, "none"))
        return 0;
    while (s && *s) {
        size_t n = strcspn(s, ",");
        int d, found = 0;
        for (d = 0; d < (int)sinpe_dtype_count() && d < BENCH_N_DTYPES; d++) {
            if (!(allowed & (1u << d)))
                continue;
            const char *name = bench_dtype_name((sinpe_dtype)d);
            if (n == strlen(name) && !strncmp(s, name, n)) {
                *mask |= 1u << d;
                found = 1;
            }
        }
        if (!found)
            return -1;
        s += n;
        if (*s == ',')
            s++;
    }
    return *mask ? 0 : -1;
}

/* Parses an unsigned integer in [min, max] (decimal, or 0x hex). */
static int parse_count(const char *s, unsigned long long min, unsigned long long max,
                       unsigned long long *v)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return (errno || *end || *v < min || *v > max) ? -1 : 0;
}

/* Options that take a number, with their ranges. */
static int number_option(const char *name, const char *val, bench_opts *o)
{
    unsigned long long v;
    if (!strcmp(name, "--seed")) {
        if (parse_count(val, 0, ~0ull, &v) != 0)
            goto bad;
        o->seed = v;
    } else if (!strcmp(name, "--reps")) {
        if (parse_count(val, 1, MAX_COUNT, &v) != 0)
            goto bad;
        o->reps = (int)v;
    } else {
        if (parse_count(val, 0, MAX_COUNT, &v) != 0)
            goto bad;
        o->warmup = (int)v;
    }
    return 0;
bad:
    fprintf(stderr, "sinpe_bench: %s needs a number%s\n", name,
            !strcmp(name, "--seed")   ? ""
            : !strcmp(name, "--reps") ? " from 1 to 100000"
                                      : " from 0 to 100000");
    return -1;
}

int bench_parse_args(int argc, char **argv, bench_opts *o)
{
    int i, reps_set = 0, warmup_set = 0;

    memset(o, 0, sizeof *o);
    o->warmup = BENCH_WARMUP;
    o->seed = DEFAULT_SEED;
    o->dtypes = bench_types(1);
    o->weights = bench_types(0);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return -1;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--rope-only")) {
            o->rope_only = 1;
        } else if (!strcmp(a, "--attn-only")) {
            o->attn_only = 1;
        } else if (!strcmp(a, "--full")) {
            o->full = 1;
        } else if (!strcmp(a, "--explicit")) {
            o->positions = BENCH_POS_IMPLICIT | BENCH_POS_EXPLICIT;
        } else if (!strcmp(a, "--positions")) {
            if (val && !strcmp(val, "implicit"))
                o->positions = BENCH_POS_IMPLICIT;
            else if (val && !strcmp(val, "explicit"))
                o->positions = BENCH_POS_EXPLICIT;
            else if (val && !strcmp(val, "both"))
                o->positions = BENCH_POS_IMPLICIT | BENCH_POS_EXPLICIT;
            else {
                fprintf(stderr, "sinpe_bench: --positions needs implicit, explicit or both\n");
                return BENCH_EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--dtypes")) {
            if (parse_dtypes(val, bench_types(1), 0, &o->dtypes) != 0) {
                fprintf(stderr, "sinpe_bench: --dtypes needs a comma-separated list of "
                                "fp32, fp16 and bf16\n");
                return BENCH_EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--weights")) {
            if (parse_dtypes(val, bench_types(0), 1, &o->weights) != 0) {
                fprintf(stderr, "sinpe_bench: --weights needs none or a comma-separated "
                                "list of fp16, i8, q8_0, e4m3 and e5m2\n");
                return BENCH_EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--reps") || !strcmp(a, "--warmup") || !strcmp(a, "--seed")) {
            if (number_option(a, val, o) != 0)
                return BENCH_EXIT_USAGE;
            reps_set |= !strcmp(a, "--reps");
            warmup_set |= !strcmp(a, "--warmup");
            i++;
        } else if (!strcmp(a, "--json") || !strcmp(a, "--device")) {
            if (!val) {
                fprintf(stderr, "sinpe_bench: %s needs a value\n", a);
                return BENCH_EXIT_USAGE;
            }
            if (!strcmp(a, "--json"))
                o->json_path = val;
            else
                o->device = val;
            i++;
        } else {
            fprintf(stderr, "sinpe_bench: unknown option '%s'\n", a);
            return BENCH_EXIT_USAGE;
        }
    }
    if (o->quick && !reps_set)
        o->reps = 5;
    if (o->quick && !warmup_set)
        o->warmup = 1;
    return 0;
}
