/*
 * mpi_vocab.c -- vocabulary-parallel embedding over MPI: each rank holds a
 * shard of the embedding table, embeds the whole batch with it on its own
 * OpenCL device, and one MPI_Allreduce combines the shards' outputs into
 * the result a single device holding the whole table gives, bit for bit.
 *
 *     mpicc -std=c99 mpi_vocab.c $(pkg-config --cflags --libs sinpe) -o mpi_vocab
 *     mpirun -n 3 ./mpi_vocab [seed]
 *
 * The pattern (see README, "Vocabulary-parallel embedding"):
 *  - rank r of N holds rows [start_r, start_r + rows_r) of a vocabulary of
 *    V rows, V / N each and one more for the first V % N ranks;
 *  - it embeds with vocab_shard = SINPE_SHARD_OWNER: a token whose id it
 *    holds is written in full (token_scale * E + PE, padding as unsharded),
 *    every other token as +0.0 in every column.  Ids no rank holds belong to
 *    the first rank (negative ids) or the last (ids >= V), which write them
 *    as the unsharded call does (zero embedding + PE) and count them in
 *    bad_ids;
 *  - the outputs are read back to host memory (MPI takes no cl_mem) and
 *    combined element-wise: exactly one rank contributes each value.
 *
 * Every rank generates the same random table and ids from one seed (rank
 * 0's, broadcast; printed so that a failure can be rerun) and keeps its
 * rows.  Weights are stored in the output's type (F32, F16 or BF16), as a
 * model usually keeps both, converted from the float32 table by
 * sinpe_quantize().  Rank 0 then embeds with the whole table
 * (SINPE_SHARD_NONE) and compares the combined result with it bit for bit,
 * and the float32 result with a float64 evaluation of the presets'
 * formulas.  Checked besides: every rank writes every element, writes
 * +0.0 for the tokens it does not own, and the bad-id counts add up to the
 * unsharded one.  Exit status 0 when everything agrees; a failed call ends
 * all ranks through MPI_Abort.
 */
#include <sinpe.h>

#include <mpi.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { VOCAB = 257, SEQS = 4, LEN = 37, TOKENS = SEQS * LEN, PAD = 1, TABLE_ROWS = 64 };

static const sinpe_preset presets[] = {SINPE_PRESET_FAIRSEQ, SINPE_PRESET_VASWANI};
static const size_t dims[] = {96, 95}; /* both presets define odd widths */
static const sinpe_dtype dtypes[] = {SINPE_F32, SINPE_F16, SINPE_BF16};
static const char *const dtype_names[] = {"f32", "f16", "bf16"};

static int rank, ranks;

#define FAIL(...)                                                                       \
    do {                                                                                \
        fprintf(stderr, "rank %d: ", rank);                                             \
        fprintf(stderr, __VA_ARGS__);                                                   \
        fputc('\n', stderr);                                                            \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
    } while (0)

#define CHECK(call)                                                                     \
    do {                                                                                \
        sinpe_status s_ = (call);                                                       \
        if (s_ != SINPE_SUCCESS)                                                        \
            FAIL("%s: %s (%s)", #call, sinpe_status_string(s_), sinpe_last_error());    \
    } while (0)

#define CHECK_CL(call)                                                                  \
    do {                                                                                \
        cl_int e_ = (call);                                                             \
        if (e_ != CL_SUCCESS)                                                           \
            FAIL("%s: OpenCL error %d", #call, (int)e_);                                \
    } while (0)

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        FAIL("out of host memory (%zu bytes)", bytes);
    return p;
}

/* splitmix64: the same stream on every rank for the same seed. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Rows [start, start + rows) of the vocabulary belong to rank r. */
static void shard_of(int r, size_t *start, size_t *rows)
{
    size_t base = VOCAB / ranks, extra = VOCAB % ranks, ur = (size_t)r;
    *rows = base + (ur < extra);
    *start = ur * base + (ur < extra ? ur : extra);
}

/* The rank that writes a token with this id under SINPE_SHARD_OWNER. */
static int owner_of(int32_t id)
{
    if (id < 0)
        return 0;
    if (id >= VOCAB)
        return ranks - 1;
    for (int r = 0; r < ranks; r++) {
        size_t start, rows;
        shard_of(r, &start, &rows);
        if ((size_t)id < start + rows)
            return r;
    }
    return ranks - 1;
}

/* Random ids in [0, VOCAB); under FAIRSEQ one left-padded and one
 * right-padded sequence; and five ids that no shard holds, on non-pad
 * tokens.  Returns how many ids lie outside [0, VOCAB). */
static int make_ids(sinpe_preset preset, uint64_t seed, int32_t *ids)
{
    static const struct { int seq, t; int64_t id; } outside[] = {
        {0, 3, -1}, {1, 20, VOCAB}, {2, 5, INT32_MIN}, {3, 11, INT32_MAX}, {3, 36, VOCAB + 40},
    };
    int bad = 0;
    for (int i = 0; i < TOKENS; i++)
        ids[i] = (int32_t)(next(&seed) % VOCAB);
    if (preset == SINPE_PRESET_FAIRSEQ)
        for (int t = 0; t < LEN; t++) {
            if (t < 6)
                ids[1 * LEN + t] = PAD;
            if (t >= LEN - 9)
                ids[2 * LEN + t] = PAD;
        }
    for (size_t k = 0; k < sizeof outside / sizeof outside[0]; k++)
        ids[outside[k].seq * LEN + outside[k].t] = (int32_t)outside[k].id;
    for (int i = 0; i < TOKENS; i++)
        bad += ids[i] < 0 || ids[i] >= VOCAB;
    return bad;
}

/* One rank's OpenCL objects for a (preset, dim) pair. */
typedef struct job {
    sinpe_context *ctx;
    cl_command_queue queue;
    sinpe_table *table;
    sinpe_preset preset;
    size_t dim;
    const float *weights; /* the whole float32 table, VOCAB x dim */
    cl_mem ids;
} job;

/* Embeds the batch with rows [start, start + rows) of the table stored as
 * type (shard: OWNER, else the whole table without a shard), output of the
 * same type read back into out, the bad-id count into *bad.  Every output
 * element is poisoned (all bits set, a NaN no call produces) first.
 * Returns the wall time of the second of two equal calls, from enqueue to
 * completion. */
static double embed(const job *j, sinpe_dtype type, int shard, size_t start, size_t rows,
                    void *out, cl_int *bad)
{
    cl_context cl = sinpe_context_cl_context(j->ctx);
    size_t w_bytes = sinpe_dtype_bytes(type, rows * j->dim);
    size_t o_bytes = sinpe_dtype_bytes(type, (size_t)TOKENS * j->dim);
    void *w = xmalloc(w_bytes);
    cl_int err, zero = 0;

    CHECK(sinpe_quantize(type, j->weights + start * j->dim, rows, j->dim, w, w_bytes, NULL,
                         SINPE_F32));
    memset(out, 0xff, o_bytes);
    cl_mem w_mem = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w_bytes, w, &err);
    CHECK_CL(err);
    cl_mem out_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, o_bytes, out, &err);
    CHECK_CL(err);
    cl_mem bad_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
    CHECK_CL(err);

    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    CHECK(sinpe_embed_args_preset(&a, j->preset, j->dim, PAD));
    a.n_seqs = SEQS;
    a.seq_len = LEN;
    a.ids = j->ids;
    a.weights = w_mem;
    a.weights_dtype = type;
    a.out = out_mem;
    a.out_dtype = type;
    a.bad_ids = bad_mem;
    a.vocab = rows;
    if (shard) {
        a.vocab_shard = SINPE_SHARD_OWNER;
        a.vocab_start = start;
        a.vocab_total = VOCAB;
    }

    /* A first call warms up what the runtime does lazily; the timed one
     * writes into the buffers poisoned again. */
    CHECK(sinpe_enqueue_embed(j->table, j->queue, &a, 0, NULL, NULL));
    CHECK_CL(clEnqueueWriteBuffer(j->queue, out_mem, CL_FALSE, 0, o_bytes, out, 0, NULL, NULL));
    CHECK_CL(clEnqueueWriteBuffer(j->queue, bad_mem, CL_TRUE, 0, sizeof zero, &zero, 0, NULL,
                                  NULL));
    double t0 = MPI_Wtime();
    CHECK(sinpe_enqueue_embed(j->table, j->queue, &a, 0, NULL, NULL));
    CHECK_CL(clFinish(j->queue));
    double elapsed = MPI_Wtime() - t0;

    CHECK_CL(clEnqueueReadBuffer(j->queue, out_mem, CL_TRUE, 0, o_bytes, out, 0, NULL, NULL));
    CHECK_CL(clEnqueueReadBuffer(j->queue, bad_mem, CL_TRUE, 0, sizeof *bad, bad, 0, NULL, NULL));
    clReleaseMemObject(bad_mem);
    clReleaseMemObject(out_mem);
    clReleaseMemObject(w_mem);
    free(w);
    return elapsed;
}

static uint32_t bits_at(const void *p, size_t i, size_t size)
{
    if (size == 4) {
        uint32_t v;
        memcpy(&v, (const unsigned char *)p + 4 * i, 4);
        return v;
    }
    uint16_t h;
    memcpy(&h, (const unsigned char *)p + 2 * i, 2);
    return h;
}

/* Counts the elements of this rank's output left unwritten (still all
 * ones) and those of tokens it does not own that are not +0.0. */
static int check_local(const job *j, const int32_t *ids, const void *out, size_t size)
{
    uint32_t poison = size == 4 ? 0xffffffffu : 0xffffu;
    int wrong = 0;
    for (size_t i = 0; i < (size_t)TOKENS * j->dim; i++) {
        uint32_t b = bits_at(out, i, size);
        int mine = owner_of(ids[i / j->dim]) == rank;
        if (b == poison || (!mine && b != 0)) {
            if (wrong++ == 0)
                fprintf(stderr, "rank %d: token %zu (id %d, owner %d), column %zu: bits 0x%x\n",
                        rank, i / j->dim, (int)ids[i / j->dim], owner_of(ids[i / j->dim]),
                        i % j->dim, (unsigned)b);
        }
    }
    return wrong;
}

/* The encoding of the preset at (pos, col), in float64: fairseq's
 * get_embedding ([sin | cos], shift 1, odd width: a zero last column) and
 * XLM's create_sinusoidal_embeddings (interleaved, 10000^(-2 floor(c/2) / d)). */
static double pe_ref(sinpe_preset preset, size_t dim, double pos, size_t col)
{
    if (preset == SINPE_PRESET_VASWANI) {
        double w = pow(10000.0, -2.0 * (double)(col / 2) / (double)dim);
        return col % 2 == 0 ? sin(pos * w) : cos(pos * w);
    }
    size_t half = dim / 2;
    if (col >= 2 * half)
        return 0.0;
    size_t k = col < half ? col : col - half;
    double w = exp(-(double)k * log(10000.0) / (double)(half - 1));
    return col < half ? sin(pos * w) : cos(pos * w);
}

/* The unsharded float32 output against float64: with e = token_scale * E
 * (0 for an id outside the vocabulary) and PE accurate to 1.5e-7, the two
 * roundings of float32 allow |out - ref| <= 2e-7 + 2^-23 (|e| + |ref|).
 * FAIRSEQ pads get e alone; other tokens count positions from PAD + 1. */
static int check_reference(const job *j, const int32_t *ids, const float *out)
{
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    CHECK(sinpe_embed_args_preset(&a, j->preset, j->dim, PAD));
    int wrong = 0;
    for (int b = 0; b < SEQS; b++) {
        int pos = j->preset == SINPE_PRESET_FAIRSEQ ? PAD : -1;
        for (int t = 0; t < LEN; t++) {
            int32_t id = ids[b * LEN + t];
            int pad = j->preset == SINPE_PRESET_FAIRSEQ && id == PAD;
            pos += !pad;
            for (size_t c = 0; c < j->dim; c++) {
                double e = id >= 0 && id < VOCAB ? (double)a.token_scale * j->weights[id * j->dim + c]
                                                 : 0.0;
                double ref = e + (pad ? 0.0 : pe_ref(j->preset, j->dim, pos, c));
                double got = out[(size_t)(b * LEN + t) * j->dim + c];
                if (!(fabs(got - ref) <= 2e-7 + ldexp(fabs(e) + fabs(ref), -23)) &&
                    wrong++ == 0)
                    fprintf(stderr, "reference: token (%d, %d) column %zu: %.9g, float64 %.9g\n",
                            b, t, c, got, ref);
            }
        }
    }
    return wrong;
}

/* The first element where the combined and the unsharded outputs differ,
 * or -1. */
static long first_difference(const void *a, const void *b, size_t count, size_t size)
{
    if (memcmp(a, b, count * size) == 0)
        return -1;
    for (size_t i = 0; i < count; i++)
        if (bits_at(a, i, size) != bits_at(b, i, size))
            return (long)i;
    return -1;
}

/* One (preset, dim, type) case on every rank; returns 1 when it agrees
 * (the answer of rank 0, the only rank that compares, broadcast). */
static int run_case(const job *j, const int32_t *ids, int expected_bad, int t)
{
    sinpe_dtype type = dtypes[t];
    size_t size = sinpe_dtype_bytes(type, 1), count = (size_t)TOKENS * j->dim;
    size_t start, rows;
    shard_of(rank, &start, &rows);
    void *out = xmalloc(count * size);
    cl_int bad;
    double times[2];

    times[0] = embed(j, type, 1, start, rows, out, &bad);
    int ok = check_local(j, ids, out, size) == 0;

    /* The combine.  F32: MPI_FLOAT with MPI_SUM, the sum of one value and
     * N - 1 zeros, which is that value (a -0.0 would come back as +0.0,
     * since -0.0 + +0.0 is +0.0).  F16 and BF16: MPI_BOR on the 16-bit
     * patterns, chosen over widening to float32 and over a user-defined
     * MPI_Op: a predefined operation on a predefined type (which every MPI
     * implements and optimises), no conversion passes, half the bytes of
     * float32 on the wire, and exact for every pattern, -0.0 and NaN
     * payloads included, because the other ranks' patterns are all zero.
     * The barrier keeps the ranks' waiting for each other out of the time. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (type == SINPE_F32)
        MPI_Allreduce(MPI_IN_PLACE, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Allreduce(MPI_IN_PLACE, out, (int)count, MPI_UINT16_T, MPI_BOR, MPI_COMM_WORLD);
    times[1] = MPI_Wtime() - t0;

    int bad_total, local_ok = ok;
    MPI_Allreduce(&bad, &bad_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&local_ok, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    double *all = rank == 0 ? xmalloc(2 * (size_t)ranks * sizeof *all) : NULL;
    MPI_Gather(times, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        void *whole = xmalloc(count * size);
        cl_int whole_bad;
        embed(j, type, 0, 0, VOCAB, whole, &whole_bad);
        uint32_t poison = size == 4 ? 0xffffffffu : 0xffffu;
        for (size_t i = 0; i < count; i++)
            if (bits_at(whole, i, size) == poison) {
                fprintf(stderr, "unsharded: element %zu not written\n", i);
                ok = 0;
                break;
            }
        if (type == SINPE_F32 && check_reference(j, ids, whole) != 0)
            ok = 0;
        if (bad_total != whole_bad || whole_bad != expected_bad) {
            fprintf(stderr, "bad ids: shards %d, unsharded %d, expected %d\n", bad_total,
                    (int)whole_bad, expected_bad);
            ok = 0;
        }
        long d = first_difference(out, whole, count, size);
        if (d >= 0) {
            size_t tok = (size_t)d / j->dim;
            fprintf(stderr,
                    "mismatch at token (%zu, %zu) id %d, column %zu: combined 0x%x, "
                    "unsharded 0x%x\n",
                    tok / LEN, tok % LEN, (int)ids[tok], (size_t)d % j->dim,
                    (unsigned)bits_at(out, (size_t)d, size),
                    (unsigned)bits_at(whole, (size_t)d, size));
            ok = 0;
        }
        printf("%-8s d=%-3zu %-4s embed ms", sinpe_preset_name(j->preset), j->dim,
               dtype_names[t]);
        for (int r = 0; r < ranks; r++)
            printf(" %6.2f", 1e3 * all[2 * r]);
        printf("  all-reduce ms");
        for (int r = 0; r < ranks; r++)
            printf(" %5.2f", 1e3 * all[2 * r + 1]);
        printf("  bad ids %d  %s\n", bad_total, ok ? "bit-identical" : "MISMATCH");
        fflush(stdout);
        free(whole);
        free(all);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(out);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks > VOCAB)
        FAIL("%d ranks for a vocabulary of %d rows: every shard needs one", ranks, VOCAB);

    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0)
                                       : (unsigned long long)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);

    job j;
    memset(&j, 0, sizeof j);
    CHECK(sinpe_context_create(NULL, &j.ctx));
    j.queue = sinpe_context_queue(j.ctx);
    if (rank == 0) {
        printf("mpi_vocab: %d rank%s, vocabulary %d rows, %d x %d tokens, seed %llu\n", ranks,
               ranks == 1 ? "" : "s", VOCAB, SEQS, LEN, seed);
        for (int r = 0; r < ranks; r++) {
            size_t start, rows;
            shard_of(r, &start, &rows);
            printf("  rank %d: rows [%zu, %zu)\n", r, start, start + rows);
        }
        fflush(stdout);
    }

    /* The first all-reduce of a size sets up MPI's transfers; done here,
     * that time stays out of the figures below. */
    float *warm = xmalloc((size_t)TOKENS * dims[0] * sizeof *warm);
    memset(warm, 0, (size_t)TOKENS * dims[0] * sizeof *warm);
    MPI_Allreduce(MPI_IN_PLACE, warm, TOKENS * (int)dims[0], MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, warm, TOKENS * (int)dims[0], MPI_UINT16_T, MPI_BOR,
                  MPI_COMM_WORLD);
    free(warm);

    int ok = 1;
    int32_t ids[TOKENS];
    for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++)
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
            uint64_t s = seed ^ (0x100 * p + d + 1) * 0x2545f4914f6cdd1du;
            float *w = xmalloc((size_t)VOCAB * dims[d] * sizeof *w);
            for (size_t i = 0; i < (size_t)VOCAB * dims[d]; i++)
                w[i] = (float)((int64_t)(next(&s) >> 40) - (1 << 23)) * 0x1p-23f;
            int expected_bad = make_ids(presets[p], next(&s), ids);

            sinpe_spec spec;
            cl_int err;
            j.preset = presets[p];
            j.dim = dims[d];
            j.weights = w;
            CHECK(sinpe_spec_preset(&spec, j.preset, j.dim));
            CHECK(sinpe_table_create(j.ctx, &spec, TABLE_ROWS, &j.table));
            j.ids = clCreateBuffer(sinpe_context_cl_context(j.ctx),
                                   CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ids, ids,
                                   &err);
            CHECK_CL(err);
            for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++)
                ok &= run_case(&j, ids, expected_bad, (int)t);
            clReleaseMemObject(j.ids);
            sinpe_table_release(j.table);
            free(w);
        }

    sinpe_context_release(j.ctx);
    if (rank == 0)
        printf("mpi_vocab: %s (seed %llu)\n", ok ? "all cases bit-identical" : "FAILED", seed);
    MPI_Finalize();
    return ok ? 0 : 1;
}
