/* churn.c -- resource churn: contexts and tables created and released in a
 * loop, and the process's resident memory and open descriptors must stay
 * flat.
 *
 * Phase 1 creates and releases contexts, alternately with
 * sinpe_context_create() and with sinpe_context_create_from_cl() on a host
 * cl_context that the host releases at once (sinpe keeps its own
 * reference), each with two tables, and runs a small fused embedding
 * (checked against the float64 reference) in every third one.  Phase 2
 * creates and releases tables of changing specs on one context, growing
 * some, borrowing some buffers and embedding with some.
 *
 * No other context lives during phase 1: pocl 3.1 keeps about 13 KiB per
 * program built and released while another context of the same device
 * stays alive (plain OpenCL, without sinpe, shows the same), which would
 * hide sinpe's own figure.
 *
 * Each phase measures, after a warm-up (WARMUP context cycles; SPEC_PERIOD
 * table cycles, every spec once) and at the end of each third of its
 * cycles, the process's resident memory (/proc/self/statm) and, with glibc,
 * the heap's bytes in use (mallinfo2), both after malloc_trim(0).
 * Untrimmed, RSS is mostly memory the allocator keeps free after each
 * program build: it moved by 8-40 MiB between samples with not one byte
 * more in use, and failed a CI run; trimmed, RSS stays within 0.1 MiB and
 * the heap within 2 KiB over hundreds of cycles.  A leak grows in every
 * window; a cache that fills up (the heap grows by about 20 KiB over the
 * first round of table specs, then stays) or a one-time step grows in one.
 * So a phase fails when RSS grew by more than RSS_STEP_MIB, or the heap by
 * more than HEAP_STEP_KIB, in at least two of the three windows (a table's
 * 720-byte struct leaked at each release grows it by 80-260 KiB a window),
 * or when a descriptor stayed open (/proc/self/fd after the warm-up and at
 * the end).  The number of context cycles is 1,000 unless an iteration is
 * so slow that they would not fit in CHURN_SECONDS (default 80); then as
 * many as fit, never fewer than 200, and the count is printed.  Table
 * cycles are never fewer than 1,000.  Environment: CHURN_CONTEXTS,
 * CHURN_TABLES and CHURN_SECONDS override the defaults. */
#include "ref.h"

#include <dirent.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 50
#define SPEC_PERIOD 462 /* spec_for(i) repeats with this period: 2 * 3 * 7 * 11 */
#define RSS_STEP_MIB 2.0
#define HEAP_STEP_KIB 16.0
#define MIN_CONTEXTS 200

static long failures;
static uint64_t rng = 0xC0FFEEULL;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double rss_mib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2) {
        if (f)
            fclose(f);
        return -1.0;
    }
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* Gives the allocator's free memory back to the system, then returns the
 * heap's bytes in use in KiB, or -1 where glibc's mallinfo2 is missing. */
static double trimmed_heap_kib(void)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
    malloc_trim(0);
    struct mallinfo2 mi = mallinfo2();
    return (double)(mi.uordblks + mi.hblkhd) / 1024.0;
#else
    return -1.0;
#endif
}

/* Open descriptors, not counting the one opendir() itself holds. */
static int fd_count(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;
}

static long env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : fallback;
}

static int check(sinpe_status st, const char *what)
{
    if (st == SINPE_SUCCESS)
        return 1;
    printf("FAIL: %s returned %d (%s): %s\n", what, (int)st, sinpe_status_string(st),
           sinpe_last_error());
    failures++;
    return 0;
}

static int check_cl(cl_int err, const char *what)
{
    if (err == CL_SUCCESS)
        return 1;
    printf("FAIL: %s failed with OpenCL error %d\n", what, (int)err);
    failures++;
    return 0;
}

/* A small fused embedding on the context's own queue, checked. */
static void small_embed(sinpe_context *ctx, sinpe_table *tab)
{
    enum { SEQS = 2, LEN = 3, VOCAB = 4, N = SEQS * LEN };
    sinpe_spec spec = sinpe_table_spec(tab);
    size_t dim = spec.dim;
    int32_t ids[N];
    float w[VOCAB * 64], out[N * 64];
    double ref[N * 64];
    long bad;
    cl_int err;
    cl_context cl = sinpe_context_cl_context(ctx);
    cl_mem m_ids = NULL, m_w = NULL, m_out = NULL;
    sinpe_embed_args a;

    if (dim > 64)
        return;
    for (int i = 0; i < N; i++)
        ids[i] = ref_int(&rng, 0, VOCAB - 1);
    for (size_t i = 0; i < VOCAB * dim; i++)
        ref_store_random(SINPE_F32, w, i, &rng);
    m_ids = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ids, ids, &err);
    if (err == CL_SUCCESS)
        m_w = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             VOCAB * dim * sizeof(float), w, &err);
    if (err == CL_SUCCESS)
        m_out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, N * dim * sizeof(float), NULL, &err);
    if (!check_cl(err, "clCreateBuffer"))
        goto done;
    sinpe_embed_args_init(&a);
    a.n_seqs = SEQS;
    a.seq_len = LEN;
    a.ids = m_ids;
    a.weights = m_w;
    a.vocab = VOCAB;
    a.out = m_out;
    a.token_scale = 2.0f;
    a.start = 3;
    if (!check(sinpe_enqueue_embed(tab, sinpe_context_queue(ctx), &a, 0, NULL, NULL),
               "sinpe_enqueue_embed"))
        goto done;
    if (!check_cl(clEnqueueReadBuffer(sinpe_context_queue(ctx), m_out, CL_TRUE, 0,
                                      N * dim * sizeof(float), out, 0, NULL, NULL),
                  "clEnqueueReadBuffer"))
        goto done;
    ref_inputs in = {&spec, &a, ids, NULL, NULL, NULL, w, NULL, NULL};
    ref_embed(&in, REF_FUSED, ref, &bad);
    for (size_t i = 0; i < N * dim; i++)
        if (!ref_close(SINPE_F32, out[i], ref[i])) {
            printf("FAIL: embedding element %zu: got %.9g, ref %.12g\n", i, out[i], ref[i]);
            failures++;
            break;
        }
done:
    if (m_ids)
        clReleaseMemObject(m_ids);
    if (m_w)
        clReleaseMemObject(m_w);
    if (m_out)
        clReleaseMemObject(m_out);
}

static sinpe_spec spec_for(long i)
{
    sinpe_spec s;
    sinpe_spec_init(&s, (size_t)(4 + (i % 7) * 5));
    s.layout = (sinpe_layout)(i % 3);
    s.shift = (double)(i % 2);
    s.base = 10000.0 + (double)(i % 11); /* a new spec on most iterations */
    return s;
}

/* One context cycle: create (two ways), two tables, maybe an embedding. */
static void context_cycle(long i, cl_device_id dev)
{
    sinpe_context *ctx = NULL;
    sinpe_table *t1 = NULL, *t2 = NULL;
    sinpe_status st;
    if (i % 2) {
        cl_int err;
        cl_context host = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        if (!check_cl(err, "clCreateContext"))
            return;
        st = sinpe_context_create_from_cl(host, dev, NULL, &ctx);
        clReleaseContext(host);
    } else {
        st = sinpe_context_create(NULL, &ctx);
    }
    if (!check(st, i % 2 ? "sinpe_context_create_from_cl" : "sinpe_context_create"))
        return;
    sinpe_spec s1 = spec_for(i), s2 = spec_for(i + 3);
    if (check(sinpe_table_create(ctx, &s1, (size_t)(16 + i % 50), &t1), "sinpe_table_create") &&
        check(sinpe_table_create(ctx, &s2, 0, &t2), "sinpe_table_create") && i % 3 == 0)
        small_embed(ctx, t1);
    sinpe_table_release(t1);
    /* The context goes first: the last table release must destroy it. */
    sinpe_context_release(ctx);
    sinpe_table_release(t2);
}

/* One table cycle on a shared context. */
static void table_cycle(long i, sinpe_context *ctx)
{
    sinpe_table *t = NULL, *again = NULL;
    sinpe_spec s = spec_for(i);
    if (!check(sinpe_table_create(ctx, &s, (size_t)(i % 100), &t), "sinpe_table_create"))
        return;
    if (i % 4 == 1)
        check(sinpe_table_reserve(t, (size_t)(100 + i % 300)), "sinpe_table_reserve");
    if (i % 5 == 2) {
        /* A second create of an equal spec shares the table. */
        if (check(sinpe_table_create(ctx, &s, 10, &again), "sinpe_table_create(again)") &&
            again != t) {
            printf("FAIL: an equal spec did not share its table\n");
            failures++;
        }
        sinpe_table_release(again);
    }
    if (i % 6 == 3) {
        cl_mem mem = NULL;
        size_t rows = 0;
        if (check(sinpe_table_borrow(t, &mem, &rows), "sinpe_table_borrow") && mem)
            clReleaseMemObject(mem);
    }
    if (i % 7 == 0)
        small_embed(ctx, t);
    sinpe_table_release(t);
}

static void context_cycle_arg(long i, void *dev) { context_cycle(i, (cl_device_id)dev); }
static void table_cycle_arg(long i, void *ctx) { table_cycle(i, (sinpe_context *)ctx); }

typedef struct {
    const char *name;
    long warmup, cycles;
    double rss[4], heap[4]; /* after the warm-up and after each third of the cycles */
    double seconds;
    int fd0, fd1;
} phase;

/* Memory sample w: the heap, then RSS after the heap's trim. */
static void sample(phase *p, int w)
{
    p->heap[w] = trimmed_heap_kib();
    p->rss[w] = rss_mib();
}

/* Runs cycle(p->warmup + i, arg) for i < p->cycles, sampling memory. */
static void run_phase(phase *p, void (*cycle)(long, void *), void *arg)
{
    sample(p, 0);
    p->fd0 = fd_count();
    double t = now();
    for (int w = 1; w <= 3; w++) {
        for (long i = (w - 1) * p->cycles / 3; i < w * p->cycles / 3; i++)
            cycle(p->warmup + i, arg);
        sample(p, w);
    }
    p->seconds = now() - t;
    p->fd1 = fd_count();
}

/* The windows in which x grew by more than step. */
static int windows_over(const double x[4], double step)
{
    int over = 0;
    for (int w = 1; w <= 3; w++)
        over += x[w] - x[w - 1] > step;
    return over;
}

static void report(const phase *p)
{
    const double *r = p->rss, *h = p->heap;
    int rss_over = windows_over(r, RSS_STEP_MIB), heap_over = windows_over(h, HEAP_STEP_KIB);
    printf("churn: %-8s %5ld cycles after %ld warm-up, %.1f s (%.2f ms each): "
           "RSS %.2f -> %.2f MiB (%+.2f %+.2f %+.2f by thirds), heap %.0f -> %.0f KiB "
           "(%+.1f %+.1f %+.1f), fds %d -> %d\n",
           p->name, p->cycles, p->warmup, p->seconds, 1e3 * p->seconds / (double)p->cycles, r[0],
           r[3], r[1] - r[0], r[2] - r[1], r[3] - r[2], h[0], h[3], h[1] - h[0], h[2] - h[1],
           h[3] - h[2], p->fd0, p->fd1);
    if (r[0] < 0 || p->fd0 < 0) {
        printf("FAIL: cannot read /proc/self/statm or /proc/self/fd\n");
        failures++;
    }
    if (rss_over >= 2) {
        printf("FAIL: %s: RSS grew by more than %.1f MiB in %d of 3 windows\n", p->name,
               RSS_STEP_MIB, rss_over);
        failures++;
    }
    if (h[0] >= 0 && heap_over >= 2) {
        printf("FAIL: %s: the heap grew by more than %.0f KiB in %d of 3 windows\n", p->name,
               HEAP_STEP_KIB, heap_over);
        failures++;
    }
    if (p->fd1 > p->fd0) {
        printf("FAIL: %s: %d descriptors more than after the warm-up\n", p->name,
               p->fd1 - p->fd0);
        failures++;
    }
}

int main(void)
{
    long want_contexts = env_long("CHURN_CONTEXTS", 1000);
    long want_tables = env_long("CHURN_TABLES", 1000);
    double budget = (double)env_long("CHURN_SECONDS", 80);
    sinpe_context *probe = NULL, *shared = NULL;
    cl_context host = NULL;
    cl_device_id dev = NULL;
    cl_int err;
    phase ph;
    char name[256] = "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!check(sinpe_context_create(NULL, &probe), "sinpe_context_create"))
        return 1;
    dev = sinpe_context_device(probe);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clRetainDevice(dev);
    sinpe_context_release(probe);
    printf("churn: device \"%s\"\n", name);

    /* Phase 1: contexts. */
    double t = now();
    for (long i = 0; i < WARMUP; i++)
        context_cycle(i, dev);
    double per = (now() - t) / WARMUP;
    long n = want_contexts;
    if (per * (double)n > budget) {
        n = (long)(budget / per);
        if (n < MIN_CONTEXTS)
            n = MIN_CONTEXTS;
        printf("churn: a context cycle takes %.3f s; running %ld instead of %ld to stay "
               "near %.0f s\n",
               per, n, want_contexts, budget);
    }
    memset(&ph, 0, sizeof ph);
    ph.name = "contexts";
    ph.warmup = WARMUP;
    ph.cycles = n;
    run_phase(&ph, context_cycle_arg, dev);
    report(&ph);

    /* Phase 2: tables on one context. */
    host = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!check_cl(err, "clCreateContext") ||
        !check(sinpe_context_create_from_cl(host, dev, NULL, &shared),
               "sinpe_context_create_from_cl"))
        return 1;
    clReleaseContext(host);
    for (long i = 0; i < SPEC_PERIOD; i++)
        table_cycle(i, shared);
    memset(&ph, 0, sizeof ph);
    ph.name = "tables";
    ph.warmup = SPEC_PERIOD;
    ph.cycles = want_tables;
    run_phase(&ph, table_cycle_arg, shared);
    report(&ph);

    sinpe_context_release(shared);
    clReleaseDevice(dev);
    printf("churn: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
