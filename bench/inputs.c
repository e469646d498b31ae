/*
 * inputs.c -- the shapes the benchmark and the tuner time, and their token
 * ids and positions, the same for every dim, storage type and work shape.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* The order fixes each shape's random ids; bench/peers.py draws the same ones. */
const bench_shape bench_shapes[] = {
    {"decode", 64, 1},
    {"mid", 32, 512},
    {"prefill", 4, 2048},
};
const size_t bench_n_shapes = sizeof bench_shapes / sizeof bench_shapes[0];

/* splitmix64: a small, well-mixed generator; the sequence is fixed by the seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) by the multiply-shift method (bias below 2^-32 * n). */
static cl_int random_below(uint64_t *state, size_t n)
{
    return (cl_int)(((next_random(state) >> 32) * (uint64_t)n) >> 32);
}

static int cmp_cl_int(const void *a, const void *b)
{
    cl_int x = *(const cl_int *)a, y = *(const cl_int *)b;
    return (x > y) - (x < y);
}

/* The number of distinct values in v[0..n) (sorts v). */
static size_t count_distinct(cl_int *v, size_t n)
{
    size_t i, d = n > 0;
    qsort(v, n, sizeof *v, cmp_cl_int);
    for (i = 1; i < n; i++)
        d += v[i] != v[i - 1];
    return d;
}

int bench_inputs_make(bench_env *env, size_t si, int explicit_pos, bench_inputs *in)
{
    const bench_shape *sh = &bench_shapes[si];
    size_t tokens = sh->seqs * sh->seq_len, b, t;
    uint64_t rng = env->opts->seed ^ (0xA0761D6478BD642Full * (uint64_t)(si + 1));
    cl_int *ids = malloc(tokens * sizeof *ids), *pos = malloc(tokens * sizeof *pos);
    cl_int err;

    memset(in, 0, sizeof *in);
    CHECK_AS("malloc (ids)", (ids && pos) ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (t = 0; t < tokens; t++)
        ids[t] = random_below(&rng, BENCH_VOCAB);
    /* Explicit positions place each sequence at a random offset. */
    for (b = 0; b < sh->seqs; b++) {
        cl_int start = explicit_pos ? random_below(&rng, BENCH_CONTEXT - sh->seq_len + 1) : 0;
        for (t = 0; t < sh->seq_len; t++)
            pos[b * sh->seq_len + t] = start + (cl_int)t;
    }
    in->ids = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             tokens * sizeof *ids, ids, &err);
    CHECK_AS("clCreateBuffer(ids)", err);
    if (explicit_pos) {
        in->pos = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 tokens * sizeof *pos, pos, &err);
        CHECK_AS("clCreateBuffer(positions)", err);
    }
    in->distinct = count_distinct(pos, tokens); /* uploaded: sorting it is safe */
    free(ids);
    free(pos);
    return 0;
fail:
    free(ids);
    free(pos);
    bench_inputs_release(in);
    return -1;
}

void bench_inputs_release(bench_inputs *in)
{
    if (in->ids)
        clReleaseMemObject(in->ids);
    if (in->pos)
        clReleaseMemObject(in->pos);
    memset(in, 0, sizeof *in);
}
