/* threads.c -- concurrency stress on one shared sinpe context.
 *
 * For THREADS_SECONDS (default 30):
 *   - WORKERS threads, each with its own in-order queue on the context's
 *     cl_context and device, enqueue the fused kernel and the unfused pair
 *     (gather, then add_positions waiting on the gather's event) with
 *     random shapes, storage types, offsets and strides, mostly on one
 *     shared table and at positions past its rows.  Every result is
 *     compared with the float64 reference, and with float32 output the
 *     fused result must equal gather + add bit for bit, whether the rows
 *     came from the table or were computed on the fly.  Where the device
 *     records (cl_khr_command_buffer), one call in five is recorded
 *     instead, replayed twice and checked the same way;
 *   - two growers call sinpe_table_reserve on the shared table in steps
 *     while the workers read it (fairseq issue 5555: a positional table
 *     resized by one thread under another's forward pass), and the workers
 *     sometimes reserve too before they enqueue, as fairseq does;
 *   - a churner creates and releases other contexts and tables, and
 *     tables of the shared context whose specs the workers also use.
 * Then, on the main thread:
 *   - an out-of-order queue (when the device offers one) with explicit event
 *     dependencies: write -> gather -> add -> read, beside an independent
 *     fused call;
 *   - wait lists gated on a user event: after 200 ms the commands must not
 *     have run (status still queued or submitted, output still poison),
 *     and after clSetUserEventStatus the results must be right.
 * Exits 1 on any failure; prints the work done. */
#include "harness.h"
#include "ref.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORKERS 8
#define MAX_REPORTS 20

static sinpe_context *ctx;
static sinpe_table *shared; /* the table the growers grow */
static sinpe_spec shared_spec;
static double deadline;

/* cl_khr_command_buffer (0.9.0 to 1.0.0), looked up once; create is NULL without it. */
typedef void *(CL_API_CALL *cb_create_fn)(cl_uint nq, const cl_command_queue *queues,
                                          const cl_ulong *properties, cl_int *err);
typedef cl_int(CL_API_CALL *cb_fn)(void *cb);
typedef cl_int(CL_API_CALL *cb_replay_fn)(cl_uint nq, cl_command_queue *queues, void *cb,
                                          cl_uint nwait, const cl_event *wait, cl_event *event);
static cb_create_fn cb_create;
static cb_fn cb_finalize, cb_release;
static cb_replay_fn cb_replay;
static long recorded;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long failures, calls, grows, churns;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

const char *const harness_name = "threads";

void fail(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&mu);
    if (failures++ < MAX_REPORTS) {
        printf("FAIL: ");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    }
    pthread_mutex_unlock(&mu);
}

static void count(long *what, long n)
{
    pthread_mutex_lock(&mu);
    *what += n;
    pthread_mutex_unlock(&mu);
}

/* Releases the n events of evs that are not NULL. */
static void release_events(const cl_event *evs, int n)
{
    for (int i = 0; i < n; i++)
        if (evs[i])
            clReleaseEvent(evs[i]);
}

static sinpe_spec spec_variant(int k)
{
    sinpe_spec s;
    sinpe_spec_init(&s, (size_t)(5 + 7 * k));
    s.layout = (sinpe_layout)(k % 3);
    s.odd_dim = SINPE_ODD_EXTRA_SIN;
    s.shift = 1.0;
    return s;
}

/* ---- One random embedding job, checked ---- */

typedef struct job {
    sinpe_spec spec;
    sinpe_embed_args a;
    int32_t *ids, *positions;
    unsigned char *w, *poison;
    size_t n, o_elems, o_bytes, w_elems;
    cl_mem m_ids, m_w, m_pos, m_out1, m_out2;
} job;

static void job_free(job *j)
{
    cl_mem mems[] = {j->m_ids, j->m_w, j->m_pos, j->m_out1, j->m_out2};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    free(j->ids), free(j->positions), free(j->w), free(j->poison);
    memset(j, 0, sizeof *j);
}

/* Random shape, types and data; device buffers made; out1/out2 poisoned. */
static int job_make(job *j, const sinpe_spec *spec, uint64_t *rng, int f32_out)
{
    sinpe_embed_args *a = &j->a;
    size_t dim = spec->dim;

    memset(j, 0, sizeof *j);
    j->spec = *spec;
    sinpe_embed_args_init(a);
    /* One draw after another, in this order (commas sequence them). */
    a->n_seqs = (size_t)ref_int(rng, 1, 6), a->seq_len = (size_t)ref_int(rng, 1, 40);
    a->vocab = (size_t)ref_int(rng, 1, 50), a->weights_dtype = (sinpe_dtype)ref_int(rng, 0, 2);
    a->out_dtype = f32_out ? SINPE_F32 : (sinpe_dtype)ref_int(rng, 0, 2);
    a->ids_offset = (size_t)ref_int(rng, 0, 3), a->weights_offset = (size_t)ref_int(rng, 0, 3);
    a->weights_stride = dim + (size_t)ref_int(rng, 0, 2);
    a->out_offset = (size_t)ref_int(rng, 0, 3), a->out_stride = dim + (size_t)ref_int(rng, 0, 2);
    a->token_scale = (float)ref_int(rng, 1, 8) * 0.5f, a->start = ref_int(rng, -100, 6000);
    j->n = a->n_seqs * a->seq_len;
    j->w_elems = a->weights_offset + (a->vocab - 1) * a->weights_stride + dim;
    j->o_elems = a->out_offset + (j->n - 1) * a->out_stride + dim;
    j->o_bytes = j->o_elems * ref_dtype_size(a->out_dtype);

    j->ids = xcalloc(a->ids_offset + j->n, sizeof *j->ids);
    for (size_t i = 0; i < a->ids_offset + j->n; i++)
        j->ids[i] = ref_int(rng, -2, (int32_t)a->vocab); /* a few out of range */
    j->w = xcalloc(j->w_elems, ref_dtype_size(a->weights_dtype));
    for (size_t i = 0; i < j->w_elems; i++)
        ref_store_random(a->weights_dtype, j->w, i, rng);
    if (ref_int(rng, 0, 2) == 0) {
        a->positions_broadcast = ref_int(rng, 0, 1);
        size_t np = a->positions_broadcast ? a->seq_len : j->n;
        j->positions = xcalloc(np, sizeof *j->positions);
        for (size_t i = 0; i < np; i++)
            j->positions[i] = ref_int(rng, -50, 9000);
        j->m_pos = buffer_from(ctx, j->positions, np * sizeof *j->positions);
        a->positions = j->m_pos;
        if (!j->m_pos)
            return 0;
    }
    j->poison = xcalloc(j->o_elems, ref_dtype_size(a->out_dtype));
    ref_poison(a->out_dtype, j->poison, j->o_elems);
    j->m_ids = buffer_from(ctx, j->ids, (a->ids_offset + j->n) * sizeof *j->ids);
    j->m_w = buffer_from(ctx, j->w, j->w_elems * ref_dtype_size(a->weights_dtype));
    j->m_out1 = buffer_from(ctx, j->poison, j->o_bytes);
    j->m_out2 = buffer_from(ctx, j->poison, j->o_bytes);
    a->ids = j->m_ids, a->weights = j->m_w, a->out = j->m_out1;
    return j->m_ids && j->m_w && j->m_out1 && j->m_out2;
}

/* Compares out (fused) with the reference, and out2 (gather + add) with it. */
static void job_check(const job *j, const void *out1, const void *out2, const char *where)
{
    const sinpe_embed_args *a = &j->a;
    size_t dim = j->spec.dim;
    double *ref = xcalloc(j->n * dim, sizeof *ref);
    long bad;
    ref_inputs in = {&j->spec, a, j->ids, j->positions, NULL, NULL, j->w, NULL, NULL};
    ref_embed(&in, REF_FUSED, ref, &bad);
    for (size_t i = 0; i < j->o_elems; i++) {
        size_t k = i - a->out_offset, r = k / a->out_stride, c = k % a->out_stride;
        int inside = i >= a->out_offset && r < j->n && c < dim;
        if (!inside) {
            if (!ref_is_poison(a->out_dtype, out1, i))
                fail("%s: element %zu outside the output rows was written", where, i);
            continue;
        }
        double got = ref_load(a->out_dtype, out1, i), want = ref[r * dim + c];
        if (!ref_close(a->out_dtype, got, want)) {
            fail("%s: dim %zu %s->%s row %zu col %zu position %d: got %.9g, ref %.12g", where,
                 dim, ref_dtype_name(a->weights_dtype), ref_dtype_name(a->out_dtype), r, c,
                 (int)ref_position(&in, r / a->seq_len, r % a->seq_len), got, want);
            break;
        }
    }
    if (out2 && memcmp(out1, out2, j->o_bytes) != 0)
        fail("%s: gather + add differs from the fused result (dim %zu, start %d)", where, dim,
             (int)a->start);
    free(ref);
}

/* Fused into out1; gather then add (waiting on the gather) into out2. */
static int job_run(job *j, cl_command_queue q, sinpe_table *tab, const char *where)
{
    cl_event e_fused = NULL, e_gather = NULL, e_add = NULL;
    unsigned char *out1 = xcalloc(j->o_bytes, 1), *out2 = NULL;
    int unfused = j->a.out_dtype == SINPE_F32, good = 0;

    if (!ok(sinpe_enqueue_embed(tab, q, &j->a, 0, NULL, &e_fused), "sinpe_enqueue_embed"))
        goto done;
    sinpe_embed_args b = j->a;
    b.out = j->m_out2;
    if (unfused) {
        if (!ok(sinpe_enqueue_gather(tab, q, &b, 0, NULL, &e_gather), "sinpe_enqueue_gather") ||
            !ok(sinpe_enqueue_add_positions(tab, q, &b, 1, &e_gather, &e_add),
                "sinpe_enqueue_add_positions"))
            goto done;
    }
    if (!cl_ok(clEnqueueReadBuffer(q, j->m_out1, CL_FALSE, 0, j->o_bytes, out1, 1, &e_fused,
                                   NULL),
               "clEnqueueReadBuffer"))
        goto done;
    if (unfused) {
        out2 = xcalloc(j->o_bytes, 1);
        if (!cl_ok(clEnqueueReadBuffer(q, j->m_out2, CL_FALSE, 0, j->o_bytes, out2, 1, &e_add,
                                       NULL),
                   "clEnqueueReadBuffer"))
            goto done;
    }
    if (!cl_ok(clFinish(q), "clFinish"))
        goto done;
    job_check(j, out1, out2, where);
    good = 1;
done:
    if (!good)
        clFinish(q);
    release_events((cl_event[]){e_fused, e_gather, e_add}, 3);
    free(out1), free(out2);
    return good;
}

/* The fused call recorded into a command buffer of q's, replayed twice
   (the table may grow between the two) into out1; checked as job_run. */
static int job_run_recorded(job *j, cl_command_queue q, sinpe_table *tab, const char *where)
{
    unsigned char *out1 = xcalloc(j->o_bytes, 1);
    int good = 0;
    cl_int err;
    void *cb = cb_create(1, &q, NULL, &err);

    if (!cl_ok(err, "clCreateCommandBufferKHR"))
        goto done;
    if (!ok(sinpe_record_embed(tab, q, cb, &j->a, 0, NULL, NULL), "sinpe_record_embed") ||
        !cl_ok(cb_finalize(cb), "clFinalizeCommandBufferKHR"))
        goto done;
    for (int replay = 0; replay < 2; replay++)
        if (!cl_ok(cb_replay(0, NULL, cb, 0, NULL, NULL), "clEnqueueCommandBufferKHR") ||
            !cl_ok(clEnqueueReadBuffer(q, j->m_out1, CL_TRUE, 0, j->o_bytes, out1, 0, NULL,
                                       NULL),
                   "clEnqueueReadBuffer"))
            goto done;
    job_check(j, out1, NULL, where);
    good = 1;
done:
    clFinish(q);
    if (cb)
        cb_release(cb);
    free(out1);
    return good;
}

/* ---- Threads ---- */

static void *worker(void *arg)
{
    long id = (long)(size_t)arg, done = 0;
    uint64_t rng = 0x1234ULL * (uint64_t)(id + 1);
    cl_int err;
    cl_device_id dev = sinpe_context_device(ctx);
    cl_command_queue q = clCreateCommandQueue(sinpe_context_cl_context(ctx), dev, 0, &err);
    char where[64];

    if (!cl_ok(err, "clCreateCommandQueue"))
        return NULL;
    snprintf(where, sizeof where, "worker %ld", id);
    while (now() < deadline) {
        sinpe_table *tab = shared, *own = NULL;
        sinpe_spec spec = shared_spec;
        job j;
        if (ref_int(&rng, 0, 3) == 0) {
            /* A table of the same context that the churner also makes. */
            spec = spec_variant(ref_int(&rng, 0, 4));
            if (!ok(sinpe_table_create(ctx, &spec, (size_t)ref_int(&rng, 0, 200), &own),
                    "sinpe_table_create"))
                break;
            tab = own;
        }
        if (job_make(&j, &spec, &rng, ref_int(&rng, 0, 1))) {
            if (tab == shared && ref_int(&rng, 0, 4) == 0 && j.a.start >= 0)
                /* fairseq's lazy growth: make room for the positions just before
                   use (a negative start has none to make room for). */
                ok(sinpe_table_reserve(shared, (size_t)j.a.start + j.a.seq_len + 1),
                   "sinpe_table_reserve");
            if (cb_create && ref_int(&rng, 0, 4) == 0) {
                if (job_run_recorded(&j, q, tab, where)) {
                    done++;
                    count(&recorded, 1);
                }
            } else if (job_run(&j, q, tab, where))
                done++;
        }
        job_free(&j);
        sinpe_table_release(own);
    }
    clReleaseCommandQueue(q);
    count(&calls, done);
    return NULL;
}

static void *grower(void *arg)
{
    long n = 0;
    size_t step = (size_t)arg;
    size_t target = 64;
    while (now() < deadline) {
        target += step;
        if (target > 12000)
            target = 64; /* smaller requests are no-ops; keep asking */
        if (!ok(sinpe_table_reserve(shared, target), "sinpe_table_reserve"))
            break;
        n++;
        sleep_ms(5);
    }
    count(&grows, n);
    return NULL;
}

static void *churner(void *arg)
{
    long n = 0;
    uint64_t rng = 0xABCDULL;
    (void)arg;
    while (now() < deadline) {
        sinpe_context *other = NULL;
        sinpe_table *t = NULL, *u = NULL;
        sinpe_spec s = spec_variant(ref_int(&rng, 0, 4));
        if (!ok(sinpe_context_create(NULL, &other), "sinpe_context_create(other)"))
            break;
        ok(sinpe_table_create(other, &s, (size_t)ref_int(&rng, 0, 100), &t),
           "sinpe_table_create(other)");
        ok(sinpe_table_create(ctx, &s, (size_t)ref_int(&rng, 0, 300), &u),
           "sinpe_table_create(shared context)");
        sinpe_context_release(other), sinpe_table_release(t), sinpe_table_release(u);
        n++;
    }
    count(&churns, n);
    return NULL;
}

/* ---- Out-of-order queue and user events ---- */

static void out_of_order(void)
{
    cl_int err;
    cl_device_id dev = sinpe_context_device(ctx);
    cl_command_queue_properties props = 0;
    uint64_t rng = 0x0DDULL;

    clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        printf("threads: note: the device has no out-of-order queues; that part is skipped\n");
        return;
    }
    cl_command_queue q = clCreateCommandQueue(sinpe_context_cl_context(ctx), dev,
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err == CL_INVALID_QUEUE_PROPERTIES) {
        printf("threads: note: out-of-order queue refused; that part is skipped\n");
        return;
    }
    if (!cl_ok(err, "clCreateCommandQueue(out of order)"))
        return;
    for (int it = 0; it < 40; it++) {
        job j, k;
        cl_event w = NULL, g = NULL, ad = NULL, rd = NULL, f = NULL, rf = NULL;
        if (!job_make(&j, &shared_spec, &rng, 1) || !job_make(&k, &shared_spec, &rng, 0)) {
            job_free(&j), job_free(&k);
            break;
        }
        unsigned char *got = xcalloc(j.o_bytes, 1), *ref_side = xcalloc(k.o_bytes, 1);
        unsigned char *fused = xcalloc(j.o_bytes, 1);
        /* Re-upload ids without blocking: every later command must wait for it. */
        sinpe_embed_args b = j.a;
        b.out = j.m_out2;
        if (cl_ok(clEnqueueWriteBuffer(q, j.m_ids, CL_FALSE, 0,
                                       (j.a.ids_offset + j.n) * sizeof(int32_t), j.ids, 0, NULL,
                                       &w),
                  "clEnqueueWriteBuffer") &&
            ok(sinpe_enqueue_gather(shared, q, &b, 1, &w, &g), "gather (out of order)") &&
            ok(sinpe_enqueue_add_positions(shared, q, &b, 1, &g, &ad), "add (out of order)") &&
            cl_ok(clEnqueueReadBuffer(q, j.m_out2, CL_FALSE, 0, j.o_bytes, got, 1, &ad, &rd),
                  "clEnqueueReadBuffer") &&
            ok(sinpe_enqueue_embed(shared, q, &j.a, 1, &w, NULL), "fused (out of order)") &&
            ok(sinpe_enqueue_embed(shared, q, &k.a, 0, NULL, &f), "independent fused") &&
            cl_ok(clEnqueueReadBuffer(q, k.m_out1, CL_FALSE, 0, k.o_bytes, ref_side, 1, &f,
                                      &rf),
                  "clEnqueueReadBuffer")) {
            /* The fused call into out1 had no event: a barrier orders its read. */
            cl_event bar = NULL;
            if (cl_ok(clEnqueueBarrierWithWaitList(q, 0, NULL, &bar), "clEnqueueBarrier") &&
                cl_ok(clEnqueueReadBuffer(q, j.m_out1, CL_TRUE, 0, j.o_bytes, fused, 1, &bar,
                                          NULL),
                      "clEnqueueReadBuffer") &&
                cl_ok(clWaitForEvents(1, &rd), "clWaitForEvents") &&
                cl_ok(clWaitForEvents(1, &rf), "clWaitForEvents")) {
                job_check(&j, fused, got, "out-of-order chain");
                job_check(&k, ref_side, NULL, "out-of-order independent");
                count(&calls, 2);
            }
            release_events(&bar, 1);
        }
        clFinish(q);
        release_events((cl_event[]){w, g, ad, rd, f, rf}, 6);
        free(got), free(ref_side), free(fused);
        job_free(&j), job_free(&k);
    }
    clReleaseCommandQueue(q);
    printf("threads: out-of-order queue: 40 chains checked\n");
}

static cl_int exec_status(cl_event e)
{
    cl_int st = -1;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    return st;
}

/* The fused call (and, with fairseq positions, its make_positions step) and
 * the gather + add pair, all gated on one user event. */
static void gated(int fairseq)
{
    cl_int err;
    cl_context cl = sinpe_context_cl_context(ctx);
    cl_device_id dev = sinpe_context_device(ctx);
    cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
    cl_command_queue q2 = NULL;
    cl_event user = NULL, e_fused = NULL, e_gather = NULL, e_add = NULL, peek = NULL;
    uint64_t rng = fairseq ? 0xFA1ULL : 0x6A7EULL;
    unsigned char *seen = NULL;
    sinpe_embed_args b;
    job j;

    memset(&j, 0, sizeof j);
    const char *what = fairseq ? "gated (fairseq positions)" : "gated";

    if (!cl_ok(err, "clCreateCommandQueue"))
        return;
    q2 = clCreateCommandQueue(cl, dev, 0, &err);
    if (!cl_ok(err, "clCreateCommandQueue")) {
        clReleaseCommandQueue(q);
        return;
    }
    if (!job_make(&j, &shared_spec, &rng, 1))
        goto done;
    if (fairseq) {
        j.a.positions = NULL, j.a.position_rule = SINPE_POSITIONS_FAIRSEQ;
        j.a.pad_id = 1, j.a.start = 0, j.a.pad_policy = SINPE_PAD_ZERO_PE;
        if (j.a.vocab < 2)
            goto done;
        free(j.positions), j.positions = NULL;
    }
    user = clCreateUserEvent(cl, &err);
    if (!cl_ok(err, "clCreateUserEvent"))
        goto done;
    b = j.a;
    b.out = j.m_out2;
    if (!ok(sinpe_enqueue_embed(shared, q, &j.a, 1, &user, &e_fused), "sinpe_enqueue_embed") ||
        !ok(sinpe_enqueue_gather(shared, q, &b, 1, &user, &e_gather), "sinpe_enqueue_gather") ||
        !ok(sinpe_enqueue_add_positions(shared, q, &b, 1, &e_gather, &e_add),
            "sinpe_enqueue_add_positions"))
        goto release_user;
    clFlush(q);
    sleep_ms(200);
    cl_event evs[] = {e_fused, e_gather, e_add};
    for (int i = 0; i < 3; i++) {
        cl_int st = exec_status(evs[i]);
        if (st == CL_COMPLETE || st == CL_RUNNING || st < 0)
            fail("%s: command %d has status %d before the user event was set", what, i,
                 (int)st);
    }
    /* Look at the output through another queue without waiting on anything. */
    seen = xcalloc(j.o_bytes, 1);
    if (cl_ok(clEnqueueReadBuffer(q2, j.m_out1, CL_FALSE, 0, j.o_bytes, seen, 0, NULL, &peek),
              "clEnqueueReadBuffer(peek)")) {
        clFlush(q2);
        double until = now() + 1.0;
        while (exec_status(peek) != CL_COMPLETE && now() < until)
            sleep_ms(5);
        if (exec_status(peek) == CL_COMPLETE) {
            if (memcmp(seen, j.poison, j.o_bytes) != 0)
                fail("%s: the output changed before the user event was set", what);
            else
                printf("threads: %s: nothing ran in 200 ms before the user event; "
                       "output still poison\n",
                       what);
        } else {
            printf("threads: note: %s: the runtime holds a read of the gated buffer until "
                   "the gated commands end; only their status was checked\n",
                   what);
        }
    }
release_user:
    clSetUserEventStatus(user, CL_COMPLETE);
    if (e_add) {
        unsigned char *out1 = xcalloc(j.o_bytes, 1), *out2 = xcalloc(j.o_bytes, 1);
        if (cl_ok(clEnqueueReadBuffer(q, j.m_out1, CL_TRUE, 0, j.o_bytes, out1, 1, &e_fused,
                                      NULL),
                  "clEnqueueReadBuffer") &&
            cl_ok(clEnqueueReadBuffer(q, j.m_out2, CL_TRUE, 0, j.o_bytes, out2, 1, &e_add,
                                      NULL),
                  "clEnqueueReadBuffer"))
            job_check(&j, out1, out2, what);
        free(out1), free(out2);
    }
    clFinish(q);
    if (peek) {
        clWaitForEvents(1, &peek);
        clReleaseEvent(peek);
    }
    free(seen);
done:
    release_events((cl_event[]){user, e_fused, e_gather, e_add}, 4);
    clFinish(q2);
    clReleaseCommandQueue(q2);
    clReleaseCommandQueue(q);
    job_free(&j);
}

int main(void)
{
    const char *env = getenv("THREADS_SECONDS");
    double seconds = env && *env ? atof(env) : 30.0;
    pthread_t tw[WORKERS], tg[2], tc;
    char name[256] = "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!ok(sinpe_context_create(NULL, &ctx), "sinpe_context_create"))
        return 1;
    clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    printf("threads: device \"%s\", %d workers, 2 growers, 1 churner, %.0f s\n", name, WORKERS,
           seconds);
    if (sinpe_context_features(ctx) & SINPE_FEATURE_COMMAND_BUFFER) {
        cl_platform_id p;
        clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_PLATFORM, sizeof p, &p, NULL);
        cb_finalize = (cb_fn)clGetExtensionFunctionAddressForPlatform(p, "clFinalizeCommandBufferKHR");
        cb_release = (cb_fn)clGetExtensionFunctionAddressForPlatform(p, "clReleaseCommandBufferKHR");
        cb_replay = (cb_replay_fn)clGetExtensionFunctionAddressForPlatform(p, "clEnqueueCommandBufferKHR");
        if (cb_finalize && cb_release && cb_replay)
            cb_create = (cb_create_fn)clGetExtensionFunctionAddressForPlatform(
                p, "clCreateCommandBufferKHR");
    }
    shared_spec = spec_variant(2);
    shared_spec.odd_dim = SINPE_ODD_ZERO_LAST;
    if (!ok(sinpe_table_create(ctx, &shared_spec, 16, &shared), "sinpe_table_create"))
        return 1;

    deadline = now() + seconds;
    for (long i = 0; i < WORKERS; i++)
        pthread_create(&tw[i], NULL, worker, (void *)(size_t)i);
    pthread_create(&tg[0], NULL, grower, (void *)(size_t)97);
    pthread_create(&tg[1], NULL, grower, (void *)(size_t)331);
    pthread_create(&tc, NULL, churner, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(tw[i], NULL);
    pthread_join(tg[0], NULL), pthread_join(tg[1], NULL), pthread_join(tc, NULL);
    printf("threads: %ld checked calls (%ld recorded), %ld reserves, %ld context churns; table "
           "now %zu rows\n",
           calls, recorded, grows, churns, sinpe_table_rows(shared));

    out_of_order();
    gated(0);
    gated(1);

    sinpe_table_release(shared);
    sinpe_context_release(ctx);
    printf("threads: %s (%ld failures)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
