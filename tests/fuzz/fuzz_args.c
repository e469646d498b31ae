/* fuzz_args.c -- libFuzzer harness for the argument checks of sinpe's public
 * entry points.
 *
 * Each input is decoded into one call: sinpe_enqueue_embed, _gather,
 * _add_positions, _timesteps, _table_rows, sinpe_table_create,
 * sinpe_table_reserve, sinpe_spec_preset, sinpe_embed_args_preset or
 * sinpe_embed_host, with sizes, offsets, strides, storage types, enums,
 * wait-list shapes (events of another context among them), NULL handles
 * and buffers of random small sizes (often within a few elements of what
 * the call needs) taken from the input.
 *
 * For every call the harness aborts when
 *   - the status is neither SINPE_SUCCESS nor one the header documents for
 *     that function;
 *   - sinpe_last_error() is empty after a failure or not empty after a
 *     success;
 *   - an independent model of the documented preconditions says the call is
 *     valid and it failed, or invalid and it succeeded (where the header and
 *     the implementation may reasonably differ, either outcome is allowed);
 *   - a failed call touched any buffer (all are compared after clFinish) or
 *     a host array;
 *   - a successful call wrote outside its output rows, or (positions below
 *     2^24) produced values the float64 reference (tests/grind/ref.c)
 *     disagrees with, or a wrong bad-id count.
 * Device work stays tiny: dims <= 16, at most 32 tokens, 64 table rows.
 * The context, tables and a second cl_context (for foreign objects) are
 * made once, in LLVMFuzzerInitialize. */
#include "ref.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_TABLES 8
#define MAX_BUF_BYTES 4096

static sinpe_context *ctx;
static cl_context cl, foreign_cl;
static cl_device_id dev;
static cl_command_queue queue, foreign_queue;
static cl_mem foreign_buf;
static sinpe_table *tables[N_TABLES];
static cl_ulong max_alloc;
static cl_event done_events[3], foreign_event;
static unsigned char scratch[MAX_BUF_BYTES]; /* a device buffer read back */

/* ---- Failing loudly ---- */

enum { B_IDS, B_WEIGHTS, B_OUT, B_POS, B_BAD, B_STARTS, B_PADS, B_TS, B_COUNT };

typedef struct buf {
    cl_mem mem;         /* NULL, foreign_buf or our own */
    int own;            /* ours: host copy valid        */
    size_t bytes;
    unsigned char *host; /* content before the call      */
} buf;

static const char *call_name = "";
static const buf *cur_bufs; /* their sizes are printed with cur_args */
static const sinpe_embed_args *cur_args; /* printed when an embed call fails a check */
static size_t cur_dim;

static void dump_args(const sinpe_embed_args *a)
{
    fprintf(stderr,
            "  dim %zu n_seqs %zu seq_len %zu vocab %zu | ids %p+%zu | weights %p+%zu stride %zu "
            "dtype %d | out %p+%zu stride %zu dtype %d\n"
            "  scale %g start %d | positions %p+%zu broadcast %d | bad_ids %p+%zu | "
            "seq_starts %p+%zu | pad_counts %p+%zu\n"
            "  rule %d pad_policy %d pad_id %d | shard %d start %zu | skip_pe %d\n",
            cur_dim, a->n_seqs, a->seq_len, a->vocab, (void *)a->ids, a->ids_offset,
            (void *)a->weights, a->weights_offset, a->weights_stride, (int)a->weights_dtype,
            (void *)a->out, a->out_offset, a->out_stride, (int)a->out_dtype,
            (double)a->token_scale, (int)a->start, (void *)a->positions, a->positions_offset,
            a->positions_broadcast, (void *)a->bad_ids, a->bad_ids_offset, (void *)a->seq_starts,
            a->seq_starts_offset, (void *)a->pad_counts, a->pad_counts_offset,
            (int)a->position_rule, (int)a->pad_policy, (int)a->pad_id, a->vocab_shard,
            a->vocab_start, a->skip_pe);
}

static void die(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fuzz_args: %s: ", call_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    if (cur_args)
        dump_args(cur_args);
    if (cur_bufs)
        for (int i = 0; i < B_COUNT; i++)
            fprintf(stderr, "  buffer %d: %s, %zu bytes\n", i,
                    !cur_bufs[i].mem ? "NULL" : cur_bufs[i].own ? "own" : "foreign",
                    cur_bufs[i].bytes);
    abort();
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

static void cl_must(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        die("%s failed with OpenCL error %d", what, (int)err);
}

/* ---- Input decoding ---- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
    uint64_t rng; /* seeded from the input, for bulk data */
} reader;

static uint32_t u8(reader *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

static uint32_t u32(reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | u8(r);
    return v;
}

/* Mostly [0, small]; sometimes a value near an overflow. */
static size_t pick_size(reader *r, size_t small)
{
    static const size_t wild[] = {SIZE_MAX,
                                  SIZE_MAX / 2,
                                  SIZE_MAX / 4 + 1,
                                  (size_t)INT_MAX,
                                  (size_t)INT_MAX + 1,
                                  (size_t)UINT32_MAX + 1,
                                  (size_t)1 << 40,
                                  SIZE_MAX / 16 + 3};
    uint32_t s = u8(r);
    if (s < 232)
        return s % (small + 1);
    return wild[s % 8];
}

static int32_t pick_int(reader *r, int32_t lo, int32_t hi)
{
    static const int32_t wild[] = {INT32_MIN, INT32_MAX, INT32_MAX - 3, -1, 0, 1 << 24,
                                   -(1 << 24), 1 << 30};
    uint32_t s = u8(r);
    if (s < 232)
        return lo + (int32_t)(u32(r) % (uint32_t)((int64_t)hi - lo + 1));
    return wild[s % 8];
}

/* An enum value: mostly valid, sometimes just past the end, sometimes wild. */
static int pick_enum(reader *r, int count)
{
    uint32_t s = u8(r);
    if (s < 200)
        return (int)(s % (uint32_t)count);
    if (s < 230)
        return count;
    return (int)u32(r);
}

/* ---- Buffers ---- */


/* offset + elems in elements of esize bytes, saturating. */
static size_t extent_bytes(size_t offset, size_t elems, size_t esize)
{
    if (offset > SIZE_MAX - elems || offset + elems > SIZE_MAX / esize)
        return SIZE_MAX;
    return (offset + elems) * esize;
}

/* a * b + c, saturating. */
static size_t mul_add(size_t a, size_t b, size_t c)
{
    if (b && a > (SIZE_MAX - c) / b)
        return SIZE_MAX;
    return a * b + c;
}

/* A buffer for a use that needs `need` bytes: NULL, a foreign one, or one of
 * our own within a few elements of the need (or of a random small size). */
static void make_buf(reader *r, buf *b, size_t need, size_t esize, int allow_null)
{
    uint32_t s = u8(r) % 16;
    memset(b, 0, sizeof *b);
    if (s == 0 && allow_null)
        return;
    if (s == 1) {
        b->mem = foreign_buf;
        return;
    }
    size_t bytes;
    if (s < 12 && need <= MAX_BUF_BYTES) {
        int delta = (int)(u8(r) % 7) - 3 + (s < 8 ? 3 : 0); /* mostly big enough */
        long long want = (long long)need + (long long)delta * (long long)esize;
        bytes = want < 1 ? 1 : (size_t)want;
    } else {
        bytes = 1 + u8(r) * 2;
    }
    if (bytes > MAX_BUF_BYTES)
        bytes = MAX_BUF_BYTES;
    b->bytes = bytes;
    b->own = 1;
    b->host = xcalloc(1, bytes);
}

static void upload(buf *b)
{
    cl_int err;
    if (!b->own)
        return;
    b->mem = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b->bytes, b->host,
                            &err);
    if (err != CL_SUCCESS)
        die("clCreateBuffer(%zu bytes) failed with OpenCL error %d", b->bytes, (int)err);
}

/* Whether the buffer's device content still equals its host copy. */
static int unchanged(const buf *b)
{
    if (!b->own)
        return 1;
    cl_must(clEnqueueReadBuffer(queue, b->mem, CL_TRUE, 0, b->bytes, scratch, 0, NULL, NULL),
            "clEnqueueReadBuffer");
    return memcmp(scratch, b->host, b->bytes) == 0;
}

static void free_buf(buf *b)
{
    if (b->own && b->mem)
        clReleaseMemObject(b->mem);
    free(b->host);
    memset(b, 0, sizeof *b);
}

/* Whether buffer b can serve `need` bytes for a call of this context. */
static int buf_ok(const buf *b, size_t need)
{
    return b->mem && b->own && need <= b->bytes;
}

/* ---- Status sets ---- */

static const sinpe_status embed_codes[] = {
    SINPE_NULL_ARGUMENT, SINPE_INVALID_SHAPE,     SINPE_BUFFER_TOO_SMALL, SINPE_INVALID_WAIT_LIST,
    SINPE_CONTEXT_MISMATCH, SINPE_INVALID_DTYPE, SINPE_INVALID_PAD,      SINPE_INVALID_OPTION};
static const sinpe_status timesteps_codes[] = {SINPE_NULL_ARGUMENT,     SINPE_INVALID_SHAPE,
                                               SINPE_BUFFER_TOO_SMALL,  SINPE_INVALID_WAIT_LIST,
                                               SINPE_CONTEXT_MISMATCH, SINPE_INVALID_DTYPE};
static const sinpe_status table_codes[] = {
    SINPE_NULL_ARGUMENT, SINPE_INVALID_SPEC, SINPE_TOO_LARGE, SINPE_OUT_OF_HOST_MEMORY,
    (sinpe_status)CL_MEM_OBJECT_ALLOCATION_FAILURE, (sinpe_status)CL_OUT_OF_RESOURCES,
    (sinpe_status)CL_OUT_OF_HOST_MEMORY, (sinpe_status)CL_INVALID_BUFFER_SIZE};
static const sinpe_status preset_codes[] = {SINPE_NULL_ARGUMENT, SINPE_UNKNOWN_PRESET,
                                            SINPE_INVALID_SPEC};
static const sinpe_status host_codes[] = {
    SINPE_NULL_ARGUMENT, SINPE_INVALID_SHAPE, SINPE_ID_OUT_OF_RANGE, SINPE_TOO_LARGE,
    SINPE_OUT_OF_HOST_MEMORY, SINPE_INVALID_PAD, SINPE_INVALID_OPTION, SINPE_BUFFER_TOO_SMALL,
    (sinpe_status)CL_MEM_OBJECT_ALLOCATION_FAILURE, (sinpe_status)CL_OUT_OF_RESOURCES,
    (sinpe_status)CL_OUT_OF_HOST_MEMORY};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum { V_OK, V_BAD, V_EITHER };

/* The common checks on every returned status: a documented code, a message
 * exactly when it failed, and agreement with the model's verdict. */
static void judge(sinpe_status st, const sinpe_status *codes, size_t ncodes, int verdict)
{
    const char *msg = sinpe_last_error();
    if (st != SINPE_SUCCESS) {
        size_t i = 0;
        while (i < ncodes && codes[i] != st)
            i++;
        if (i == ncodes)
            die("returned %d (%s), which the header does not document here; message: %s",
                (int)st, sinpe_status_string(st), msg);
        if (!msg || !*msg)
            die("failed with %d but sinpe_last_error() is empty", (int)st);
        if (verdict == V_OK)
            die("rejected a valid call: %d (%s): %s", (int)st, sinpe_status_string(st), msg);
    } else {
        if (!msg || *msg)
            die("succeeded but sinpe_last_error() holds \"%s\"", msg ? msg : "(NULL)");
        if (verdict == V_BAD)
            die("accepted an invalid call");
    }
}

/* ---- Wait lists and queues ---- */

typedef struct waits {
    cl_uint n;
    const cl_event *list;
    cl_event storage[3];
    int valid;
} waits;

static void make_waits(reader *r, waits *w)
{
    uint32_t s = u8(r) % 8;
    memset(w, 0, sizeof *w);
    w->valid = 1;
    if (s < 4)
        return; /* (0, NULL) */
    cl_uint n = 1 + u8(r) % 3;
    for (cl_uint i = 0; i < n; i++)
        w->storage[i] = done_events[i];
    if (s == 4) { /* (0, list) */
        w->list = w->storage;
        w->valid = 0;
    } else if (s == 5) { /* (n, NULL) */
        w->n = n;
        w->valid = 0;
    } else if (s == 6) { /* a NULL entry */
        w->n = n;
        w->storage[u8(r) % n] = NULL;
        w->list = w->storage;
        w->valid = 0;
    } else {
        w->n = n;
        w->list = w->storage;
        if (u8(r) % 4 == 0) { /* an event of the foreign context */
            w->storage[u8(r) % n] = foreign_event;
            w->valid = 0;
        }
    }
}

/* Our queue (valid), NULL, or a queue of the foreign context. */
static cl_command_queue pick_queue(reader *r, int *valid)
{
    uint32_t s = u8(r) % 32;
    *valid = s > 1;
    return s == 0 ? NULL : s == 1 ? foreign_queue : queue;
}

static sinpe_table *pick_table(reader *r, size_t *dim)
{
    uint32_t s = u8(r) % 64;
    if (s == 0) {
        *dim = 0;
        return NULL;
    }
    sinpe_table *t = tables[s % N_TABLES];
    *dim = sinpe_table_spec(t).dim;
    return t;
}

static float pick_scale(reader *r)
{
    static const float scales[] = {1.0f, 0.5f, 2.0f, 8.0f, -1.0f, 0.0f, 3.0f, 0.25f};
    return scales[u8(r) % 8];
}

/* ---- sinpe_enqueue_embed / _gather / _add_positions ---- */

static int positions_small(const ref_inputs *in)
{
    const sinpe_embed_args *a = in->args;
    for (size_t b = 0; b < a->n_seqs; b++)
        for (size_t t = 0; t < a->seq_len; t++) {
            int32_t p = ref_position(in, b, t);
            if (p > (1 << 24) || p < -(1 << 24))
                return 0;
        }
    return 1;
}

/* The model of the documented checks. */
static int embed_verdict(int mode, sinpe_table *tab, size_t dim, int queue_ok, int args_null,
                         const sinpe_embed_args *a, const waits *w, const buf *bs)
{
    int either = 0;
    if (!tab || !queue_ok || args_null || !w->valid)
        return V_BAD;
    if (a->n_seqs == 0 || a->seq_len == 0 || a->n_seqs > (size_t)INT_MAX / a->seq_len)
        return V_BAD;
    size_t n = a->n_seqs * a->seq_len;
    size_t o_stride = a->out_stride ? a->out_stride : dim;
    if (o_stride < dim || (unsigned)a->out_dtype > SINPE_BF16)
        return V_BAD;
    if ((unsigned)a->pad_policy > SINPE_PAD_ZERO_EMBEDDING)
        return V_BAD;
    /* pad_id matters under a padding policy and for fairseq positions. */
    int pad_by_policy = a->pad_policy != SINPE_PAD_NONE;
    int pad_by_rule = a->position_rule == SINPE_POSITIONS_FAIRSEQ;
    if (pad_by_policy && a->pad_id < 0)
        return V_BAD;
    if (pad_by_rule && a->pad_id < 0) {
        if (mode == REF_GATHER)
            either = 1; /* gather ignores positions */
        else
            return V_BAD;
    }
    if (mode != REF_ADD || a->vocab) {
        if (a->vocab == 0 || a->vocab > (size_t)INT_MAX)
            return V_BAD;
        if (a->vocab_shard && a->vocab_start > (size_t)INT_MAX - a->vocab)
            return V_BAD;
        /* [0, vocab) unless a shard, whose pad id may lie in another shard. */
        if (!a->vocab_shard && a->pad_id >= 0 && (size_t)a->pad_id >= a->vocab) {
            if (pad_by_policy || (pad_by_rule && mode != REF_GATHER))
                return V_BAD;
            if (pad_by_rule)
                either = 1;
        }
    }
    int need_ids = mode != REF_ADD || a->pad_policy != SINPE_PAD_NONE ||
                   a->position_rule == SINPE_POSITIONS_FAIRSEQ;
    if (need_ids && !buf_ok(&bs[B_IDS], extent_bytes(a->ids_offset, n, 4)))
        return V_BAD;
    if (mode != REF_ADD) {
        size_t e_stride = a->weights_stride ? a->weights_stride : dim;
        if ((unsigned)a->weights_dtype > SINPE_BF16 || e_stride < dim)
            return V_BAD;
        size_t es = ref_dtype_size(a->weights_dtype);
        if (!buf_ok(&bs[B_WEIGHTS],
                    extent_bytes(a->weights_offset, mul_add(a->vocab - 1, e_stride, dim), es)))
            return V_BAD;
        if (a->bad_ids && !buf_ok(&bs[B_BAD], extent_bytes(a->bad_ids_offset, 1, 4)))
            return V_BAD;
    } else {
        /* add_positions ignores weights and bad_ids; whether it may check them is open. */
        size_t e_stride = a->weights_stride ? a->weights_stride : dim;
        if ((unsigned)a->weights_dtype > SINPE_BF16 || e_stride < dim || a->weights || a->bad_ids)
            either = 1;
    }
    if (mode != REF_GATHER) {
        if ((unsigned)a->position_rule > SINPE_POSITIONS_FAIRSEQ)
            return V_BAD;
        if (a->position_rule == SINPE_POSITIONS_FAIRSEQ && a->positions)
            return V_BAD;
        if (a->positions &&
            !buf_ok(&bs[B_POS], extent_bytes(a->positions_offset,
                                             a->positions_broadcast ? a->seq_len : n, 4)))
            return V_BAD;
        if (!a->positions && a->position_rule == SINPE_POSITIONS_INDEX &&
            (int64_t)a->start + (int64_t)(a->seq_len - 1) > INT_MAX)
            return V_BAD;
        if (a->seq_starts && !buf_ok(&bs[B_STARTS], extent_bytes(a->seq_starts_offset, a->n_seqs, 4)))
            return V_BAD;
        if (a->pad_counts && !buf_ok(&bs[B_PADS], extent_bytes(a->pad_counts_offset, a->n_seqs, 4)))
            return V_BAD;
    } else {
        /* Position fields are ignored by gather; a check of them is allowed too. */
        if ((unsigned)a->position_rule > SINPE_POSITIONS_FAIRSEQ || a->positions ||
            a->seq_starts || a->pad_counts ||
            (int64_t)a->start + (int64_t)(a->seq_len - 1) > INT_MAX)
            either = 1;
    }
    if (!buf_ok(&bs[B_OUT], extent_bytes(a->out_offset, mul_add(n - 1, o_stride, dim),
                                         ref_dtype_size(a->out_dtype))))
        return V_BAD;
    return either ? V_EITHER : V_OK;
}

static void fill_ints(buf *b, reader *r, int32_t lo, int32_t hi)
{
    if (!b->own)
        return;
    for (size_t i = 0; i + 4 <= b->bytes; i += 4) {
        int32_t v = ref_int(&r->rng, lo, hi);
        memcpy(b->host + i, &v, 4);
    }
}

static void fill_values(buf *b, reader *r, sinpe_dtype t)
{
    if (!b->own)
        return;
    size_t es = (unsigned)t <= SINPE_BF16 ? ref_dtype_size(t) : 4;
    for (size_t i = 0; i + es <= b->bytes; i += es)
        ref_store_random((unsigned)t <= SINPE_BF16 ? t : SINPE_F32, b->host, i / es, &r->rng);
}

/* Reads out back: the elements outside its rows keep their host bytes, those
   inside are close to ref (when values). */
static void check_rows_out(const buf *out, sinpe_dtype t, size_t offset, size_t stride,
                           size_t rows, size_t dim, const double *ref, int values)
{
    size_t es = ref_dtype_size(t);
    cl_must(clEnqueueReadBuffer(queue, out->mem, CL_TRUE, 0, out->bytes, scratch, 0, NULL, NULL),
            "clEnqueueReadBuffer");
    for (size_t i = 0; i < out->bytes / es; i++) {
        size_t k = i - offset, r = k / stride, c = k % stride;
        int inside = i >= offset && r < rows && c < dim;
        if (!inside) {
            if (memcmp(scratch + i * es, out->host + i * es, es) != 0)
                die("wrote element %zu, outside every output row", i);
        } else if (values && !ref_close(t, ref_load(t, scratch, i), ref[r * dim + c])) {
            die("row %zu col %zu: got %.9g, reference %.12g", r, c, ref_load(t, scratch, i),
                ref[r * dim + c]);
        }
    }
}

static void fuzz_embed(reader *r)
{
    int mode = (int)(u8(r) % 3);
    size_t dim;
    int queue_ok, args_null = u8(r) % 64 == 0;
    sinpe_table *tab = pick_table(r, &dim);
    cl_command_queue q = pick_queue(r, &queue_ok);
    sinpe_embed_args a;
    buf bs[B_COUNT];
    waits w;
    cl_event ev = NULL;
    int want_event = u8(r) & 1;
    size_t tdim = dim ? dim : 1;

    memset(bs, 0, sizeof bs);
    call_name = mode == REF_FUSED ? "sinpe_enqueue_embed"
                : mode == REF_GATHER ? "sinpe_enqueue_gather"
                                     : "sinpe_enqueue_add_positions";
    sinpe_embed_args_init(&a);
    a.n_seqs = pick_size(r, 4);
    a.seq_len = pick_size(r, 8);
    a.vocab = pick_size(r, 24);
    a.ids_offset = pick_size(r, 5);
    a.weights_offset = pick_size(r, 5);
    a.weights_stride = u8(r) % 4 == 0 ? 0 : pick_size(r, tdim + 3);
    a.out_offset = pick_size(r, 5);
    a.out_stride = u8(r) % 4 == 0 ? 0 : pick_size(r, tdim + 3);
    a.token_scale = pick_scale(r);
    a.start = pick_int(r, -300, 3000);
    a.positions_offset = pick_size(r, 4);
    a.bad_ids_offset = pick_size(r, 3);
    a.weights_dtype = (sinpe_dtype)pick_enum(r, 3);
    a.out_dtype = (sinpe_dtype)pick_enum(r, 3);
    a.positions_broadcast = u8(r) & 1;
    a.seq_starts_offset = pick_size(r, 3);
    a.pad_counts_offset = pick_size(r, 3);
    a.position_rule = (sinpe_position_rule)pick_enum(r, 2);
    a.pad_policy = (sinpe_pad_policy)pick_enum(r, 4);
    a.pad_id = pick_int(r, -2, 26);
    a.vocab_shard = u8(r) % 4 == 0;
    a.vocab_start = pick_size(r, 20);
    a.skip_pe = u8(r) % 8 == 0;

    /* What each buffer needs, for sizes near the boundary (saturating). */
    size_t n = a.n_seqs && a.seq_len && a.n_seqs <= SIZE_MAX / a.seq_len ? a.n_seqs * a.seq_len
                                                                        : SIZE_MAX;
    size_t e_stride = a.weights_stride ? a.weights_stride : tdim;
    size_t o_stride = a.out_stride ? a.out_stride : tdim;
    size_t wes = (unsigned)a.weights_dtype <= SINPE_BF16 ? ref_dtype_size(a.weights_dtype) : 4;
    size_t oes = (unsigned)a.out_dtype <= SINPE_BF16 ? ref_dtype_size(a.out_dtype) : 4;
    make_buf(r, &bs[B_IDS], extent_bytes(a.ids_offset, n, 4), 4, 1);
    make_buf(r, &bs[B_WEIGHTS],
             extent_bytes(a.weights_offset, mul_add(a.vocab ? a.vocab - 1 : 0, e_stride, tdim),
                          wes),
             wes, mode == REF_ADD);
    make_buf(r, &bs[B_OUT], extent_bytes(a.out_offset, mul_add(n - 1, o_stride, tdim), oes), oes,
             1);
    make_buf(r, &bs[B_POS],
             extent_bytes(a.positions_offset, a.positions_broadcast ? a.seq_len : n, 4), 4, 1);
    make_buf(r, &bs[B_BAD], extent_bytes(a.bad_ids_offset, 1, 4), 4, 1);
    make_buf(r, &bs[B_STARTS], extent_bytes(a.seq_starts_offset, a.n_seqs, 4), 4, 1);
    make_buf(r, &bs[B_PADS], extent_bytes(a.pad_counts_offset, a.n_seqs, 4), 4, 1);
    /* Optional buffers are absent more often than not. */
    if (u8(r) % 2)
        free_buf(&bs[B_POS]);
    if (u8(r) % 2)
        free_buf(&bs[B_BAD]);
    if (u8(r) % 3)
        free_buf(&bs[B_STARTS]);
    if (u8(r) % 3)
        free_buf(&bs[B_PADS]);
    int32_t id_lo = a.vocab_shard ? (int32_t)(a.vocab_start > 100 ? 0 : a.vocab_start) : 0;
    fill_ints(&bs[B_IDS], r, id_lo - 2, id_lo + (int32_t)(a.vocab > 30 ? 30 : a.vocab) + 1);
    fill_values(&bs[B_WEIGHTS], r, a.weights_dtype);
    fill_values(&bs[B_OUT], r, a.out_dtype);
    fill_ints(&bs[B_POS], r, -200, 5000);
    fill_ints(&bs[B_BAD], r, 0, 5);
    fill_ints(&bs[B_STARTS], r, 0, 400);
    fill_ints(&bs[B_PADS], r, 0, 8);
    for (int i = 0; i < B_COUNT; i++)
        upload(&bs[i]);
    a.ids = bs[B_IDS].mem;
    a.weights = bs[B_WEIGHTS].mem;
    a.out = bs[B_OUT].mem;
    a.positions = bs[B_POS].mem;
    a.bad_ids = bs[B_BAD].mem;
    a.seq_starts = bs[B_STARTS].mem;
    a.pad_counts = bs[B_PADS].mem;
    make_waits(r, &w);

    int verdict = embed_verdict(mode, tab, dim, queue_ok, args_null, &a, &w, bs);
    cur_args = &a;
    cur_dim = dim;
    cur_bufs = bs;
    const sinpe_embed_args *ap = args_null ? NULL : &a;
    cl_event *evp = want_event ? &ev : NULL;
    sinpe_status st = mode == REF_FUSED    ? sinpe_enqueue_embed(tab, q, ap, w.n, w.list, evp)
                      : mode == REF_GATHER ? sinpe_enqueue_gather(tab, q, ap, w.n, w.list, evp)
                                           : sinpe_enqueue_add_positions(tab, q, ap, w.n, w.list,
                                                                         evp);
    judge(st, embed_codes, COUNT(embed_codes), verdict);
    cl_must(clFinish(queue), "clFinish");
    if (ev)
        clReleaseEvent(ev);
    if (st == SINPE_SUCCESS && want_event && !ev)
        die("succeeded without returning its event");

    for (int i = 0; i < B_COUNT; i++) {
        if (st == SINPE_SUCCESS && (i == B_OUT || (i == B_BAD && mode != REF_ADD)))
            continue;
        if (!unchanged(&bs[i]))
            die("%s changed buffer %d (status %d)", st ? "a failed call" : "the call", i,
                (int)st);
    }
    if (st == SINPE_SUCCESS) {
        /* Layout and values of the output, and the bad-id count. */
        sinpe_spec spec = sinpe_table_spec(tab);
        double *ref = xcalloc(n * dim, sizeof *ref);
        long bad = 0;
        ref_inputs in = {&spec,
                         &a,
                         (const int32_t *)bs[B_IDS].host,
                         (const int32_t *)bs[B_POS].host,
                         (const int32_t *)bs[B_STARTS].host,
                         (const int32_t *)bs[B_PADS].host,
                         bs[B_WEIGHTS].host,
                         NULL,
                         bs[B_OUT].host};
        int values = mode == REF_GATHER || a.skip_pe || positions_small(&in);
        ref_embed(&in, mode, ref, &bad);
        check_rows_out(&bs[B_OUT], a.out_dtype, a.out_offset, o_stride, n, dim, ref, values);
        if (a.bad_ids && mode != REF_ADD) {
            int32_t before, after;
            memcpy(&before, bs[B_BAD].host + 4 * a.bad_ids_offset, 4);
            cl_must(clEnqueueReadBuffer(queue, a.bad_ids, CL_TRUE, 4 * a.bad_ids_offset, 4,
                                        &after, 0, NULL, NULL),
                    "clEnqueueReadBuffer");
            if (after - before != bad)
                die("bad_ids grew by %d, expected %ld", (int)(after - before), bad);
        }
        free(ref);
    }
    for (int i = 0; i < B_COUNT; i++)
        free_buf(&bs[i]);
    cur_args = NULL;
    cur_bufs = NULL;
}

/* ---- sinpe_enqueue_timesteps and sinpe_enqueue_table_rows ---- */

/* sinpe_enqueue_timesteps (timesteps) or sinpe_enqueue_table_rows: count
 * rows of PE into out, of timesteps read from ts or of the table's rows
 * from row0. */
static void fuzz_rows(reader *r, int timesteps)
{
    size_t dim;
    int queue_ok;
    sinpe_table *tab = pick_table(r, &dim);
    cl_command_queue q = pick_queue(r, &queue_ok);
    size_t tdim = dim ? dim : 1;
    cl_int row0 = timesteps ? 0 : pick_int(r, -200, 3000);
    size_t count = pick_size(r, timesteps ? 8 : 12), ts_off = timesteps ? pick_size(r, 4) : 0;
    size_t out_off = pick_size(r, 5);
    size_t stride = u8(r) % 4 == 0 ? 0 : pick_size(r, tdim + 3);
    sinpe_dtype ot = (sinpe_dtype)pick_enum(r, 3);
    size_t oes = (unsigned)ot <= SINPE_BF16 ? ref_dtype_size(ot) : 4;
    size_t st_ = stride ? stride : tdim;
    buf ts, out;
    waits w;
    cl_event ev = NULL;

    call_name = timesteps ? "sinpe_enqueue_timesteps" : "sinpe_enqueue_table_rows";
    memset(&ts, 0, sizeof ts); /* table_rows: none */
    if (timesteps)
        make_buf(r, &ts, extent_bytes(ts_off, count, 4), 4, 1);
    make_buf(r, &out, extent_bytes(out_off, mul_add(count ? count - 1 : 0, st_, tdim), oes), oes,
             1);
    if (ts.own)
        for (size_t i = 0; i + 4 <= ts.bytes; i += 4) {
            float t = (float)(4000.0 * ref_unit(&r->rng) - 2000.0);
            memcpy(ts.host + i, &t, 4);
        }
    fill_values(&out, r, ot);
    upload(&ts);
    upload(&out);
    make_waits(r, &w);

    int verdict = V_OK;
    if (!tab || !queue_ok || !w.valid || count == 0 || st_ < dim || (unsigned)ot > SINPE_BF16 ||
        !buf_ok(&out, extent_bytes(out_off, mul_add(count - 1, st_, dim), oes)))
        verdict = V_BAD;
    if (timesteps && (count > (size_t)INT32_MAX || !buf_ok(&ts, extent_bytes(ts_off, count, 4))))
        verdict = V_BAD;
    if (!timesteps &&
        (count > (size_t)INT_MAX || (int64_t)row0 + (int64_t)count - 1 > INT_MAX))
        verdict = V_BAD;
    cl_event *evp = u8(r) & 1 ? &ev : NULL;
    sinpe_status st =
        timesteps ? sinpe_enqueue_timesteps(tab, q, ts.mem, ts_off, count, out.mem, out_off,
                                            stride, ot, w.n, w.list, evp)
                  : sinpe_enqueue_table_rows(tab, q, row0, count, out.mem, out_off, stride, ot,
                                             w.n, w.list, evp);
    judge(st, timesteps_codes, COUNT(timesteps_codes), verdict);
    cl_must(clFinish(queue), "clFinish");
    if (ev)
        clReleaseEvent(ev);
    if (!unchanged(&ts) || (st != SINPE_SUCCESS && !unchanged(&out)))
        die("a buffer changed (status %d)", (int)st);
    if (st == SINPE_SUCCESS) {
        sinpe_spec spec = sinpe_table_spec(tab);
        double *ref = xcalloc(count * dim, sizeof *ref);
        int values = 1;
        if (timesteps) {
            ref_timesteps(&spec, (const float *)(ts.host + 4 * ts_off), count, ref);
        } else {
            for (size_t i = 0; i < count; i++)
                ref_pe_row(&spec, (double)row0 + (double)i, ref + i * dim);
            values = row0 > -(1 << 24) && (int64_t)row0 + (int64_t)count < (1 << 24);
        }
        check_rows_out(&out, ot, out_off, st_, count, dim, ref, values);
        free(ref);
    }
    free_buf(&ts);
    free_buf(&out);
}

/* ---- Tables, presets, the host call ---- */

static double pick_real(reader *r, double usual)
{
    static const double wild[] = {0.0, -1.0, 1e300, -1e300, 1e-300, 2.0, 0.5, 10000.0};
    uint32_t s = u8(r);
    if (s < 200)
        return usual;
    if (s < 210)
        return NAN;
    if (s < 220)
        return s & 1 ? INFINITY : -INFINITY;
    return wild[s % 8];
}

static int spec_verdict(const sinpe_spec *s)
{
    if (s->dim < 1 || s->dim > 65536 || (unsigned)s->layout > SINPE_LAYOUT_SPLIT_COS_SIN ||
        (unsigned)s->odd_dim > SINPE_ODD_ERROR)
        return V_BAD;
    if (s->odd_dim == SINPE_ODD_ERROR && (s->dim & 1))
        return V_BAD;
    if (!(s->base > 0.0) || !isfinite(s->base) || !isfinite(s->shift) ||
        !isfinite(s->angle_scale))
        return V_BAD;
    size_t h = s->dim / 2;
    int extra = s->odd_dim == SINPE_ODD_EXTRA_SIN && (s->dim & 1);
    size_t n_sin = h + (extra ? 1 : 0);
    double d = (extra ? (double)s->dim / 2.0 : (double)h) - s->shift;
    if ((n_sin > 1 || h > 1) && !(d > 0.0))
        return V_BAD;
    return V_OK;
}

static void fuzz_table_create(reader *r)
{
    sinpe_spec spec;
    sinpe_table *t = NULL;
    static const size_t big_dims[] = {65537, (1u << 20) + 1, SIZE_MAX / 2, SIZE_MAX};
    uint32_t s = u8(r);
    size_t dim = s < 240 ? s % 17 : big_dims[s % 4];
    size_t rows;
    uint32_t rs = u8(r);
    int null_ctx = u8(r) % 32 == 0, null_spec = u8(r) % 32 == 0, null_out = u8(r) % 32 == 0;

    call_name = "sinpe_table_create";
    sinpe_spec_init(&spec, dim);
    spec.layout = (sinpe_layout)pick_enum(r, 3);
    spec.odd_dim = (sinpe_odd_dim)pick_enum(r, 3);
    spec.shift = pick_real(r, (double)(u8(r) % 3));
    spec.base = pick_real(r, 10000.0);
    spec.angle_scale = pick_real(r, 1.0);
    /* Small tables, or ones far past the device's allocation limit. */
    rows = rs < 240 ? rs % 200 : (size_t)(max_alloc / 4) + 1 + (size_t)(rs % 7);
    if (rs >= 248)
        rows = SIZE_MAX - (rs % 3);

    int verdict = null_ctx || null_spec || null_out ? V_BAD : spec_verdict(&spec);
    if (verdict == V_OK && (rows > (size_t)INT_MAX || rows > max_alloc / (4 * dim)))
        verdict = V_BAD; /* SINPE_TOO_LARGE */
    sinpe_status st = sinpe_table_create(null_ctx ? NULL : ctx, null_spec ? NULL : &spec, rows,
                                         null_out ? NULL : &t);
    judge(st, table_codes, COUNT(table_codes), verdict);
    if (st == SINPE_SUCCESS) {
        if (!t || sinpe_table_rows(t) < rows)
            die("a table of %zu rows holds %zu", rows, sinpe_table_rows(t));
        sinpe_table_release(t);
    } else if (!null_out && t) {
        die("failed but left a table in *table");
    }
}

static void fuzz_table_reserve(reader *r)
{
    size_t dim;
    sinpe_table *t = pick_table(r, &dim);
    uint32_t rs = u8(r);
    size_t rows = rs < 240 ? rs % 300 : SIZE_MAX - (rs % 5);
    if (rs >= 240 && rs < 245 && dim)
        rows = (size_t)(max_alloc / (4 * dim)) + 1;

    call_name = "sinpe_table_reserve";
    size_t before = sinpe_table_rows(t);
    int verdict = !t ? V_BAD : (dim && rows > max_alloc / (4 * dim)) ? V_BAD : V_OK;
    sinpe_status st = sinpe_table_reserve(t, rows);
    judge(st, table_codes, COUNT(table_codes), verdict);
    if (t && st == SINPE_SUCCESS && sinpe_table_rows(t) < rows)
        die("reserve(%zu) left %zu rows", rows, sinpe_table_rows(t));
    if (t && st != SINPE_SUCCESS && sinpe_table_rows(t) != before)
        die("a failed reserve changed the row count");
}

static void fuzz_presets(reader *r)
{
    int which = u8(r) & 1;
    int preset = pick_enum(r, 11);
    size_t dim = pick_size(r, 20);
    int null_ptr = u8(r) % 16 == 0;
    int known = preset >= SINPE_PRESET_VASWANI && preset <= SINPE_PRESET_MAE;

    if (which == 0) {
        sinpe_spec spec;
        call_name = "sinpe_spec_preset";
        int verdict = V_OK;
        if (null_ptr || !known || dim == 0 || dim > 65536 ||
            ((dim & 1) && (preset == SINPE_PRESET_WHISPER || preset == SINPE_PRESET_OPENNMT ||
                           preset == SINPE_PRESET_MAE)))
            verdict = V_BAD;
        sinpe_status st = sinpe_spec_preset(null_ptr ? NULL : &spec, (sinpe_preset)preset, dim);
        judge(st, preset_codes, COUNT(preset_codes), verdict);
        if (st == SINPE_SUCCESS && (spec.dim != dim || spec_verdict(&spec) != V_OK))
            die("preset %d gave a spec that is not valid", preset);
        if ((sinpe_preset_name((sinpe_preset)preset) != NULL) != known)
            die("sinpe_preset_name(%d) disagrees with the preset list", preset);
    } else {
        sinpe_embed_args a;
        call_name = "sinpe_embed_args_preset";
        sinpe_embed_args_init(&a);
        sinpe_embed_args before = a;
        cl_int pad = pick_int(r, -2, 10);
        sinpe_status st = sinpe_embed_args_preset(null_ptr ? NULL : &a, (sinpe_preset)preset,
                                                  dim, pad);
        judge(st, preset_codes, COUNT(preset_codes), null_ptr || !known ? V_BAD : V_OK);
        if (st != SINPE_SUCCESS && memcmp(&a, &before, sizeof a) != 0)
            die("a failed call changed the args");
        if (st == SINPE_SUCCESS && (a.ids || a.out || a.n_seqs || a.seq_len || a.vocab))
            die("the preset touched buffers or shapes");
    }
}

/* The position builder on a small hostile prompt: image and video tokens
 * (7, 8) among text, grids and counts that may not fit, masks, rules past
 * the end: a documented status, and a refused call writes no lane while
 * an accepted one writes every lane (ASan watches the reads). */
static void fuzz_mrope_positions(reader *r)
{
    enum { S = 24 };
    int32_t ids[2 * S], mask[2 * S], grids[3 * 4], lanes[3 * 2 * S], deltas[2];
    double spg[2] = {(double)pick_int(r, -1, 3) / 2.0, 1.0};
    static const sinpe_status codes[] = {SINPE_NULL_ARGUMENT, SINPE_INVALID_OPTION,
                                         SINPE_INVALID_SHAPE, SINPE_INVALID_STRUCT_SIZE};
    sinpe_mrope_prompt p;
    sinpe_mrope_prompt_init(&p);
    p.rule = (sinpe_mrope_rule)pick_enum(r, 3);
    p.n_seqs = 1 + u8(r) % 2;
    p.seq_len = u8(r) % (S + 1);
    for (int i = 0; i < 2 * S; i++) {
        uint8_t v = u8(r);
        ids[i] = v < 160 ? 7 : v < 200 ? 8 : (int32_t)(v % 5);
        mask[i] = u8(r) % 8 != 0;
    }
    for (int i = 0; i < 12; i++)
        grids[i] = pick_int(r, 0, 6);
    p.ids = u8(r) % 16 ? ids : NULL;
    p.mask = u8(r) & 1 ? mask : NULL;
    p.image_token = 7, p.video_token = 8;
    p.n_images = u8(r) % 3, p.n_videos = u8(r) % 3;
    p.image_grid_thw = grids, p.video_grid_thw = grids + 6;
    p.second_per_grid = u8(r) & 1 ? spg : NULL;
    p.spatial_merge_size = u8(r) % 3;
    for (int i = 0; i < 3 * 2 * S; i++)
        lanes[i] = INT32_MIN;
    call_name = "sinpe_mrope_positions";
    sinpe_status st = sinpe_mrope_positions(&p, lanes, deltas);
    judge(st, codes, COUNT(codes), p.ids && p.seq_len ? V_EITHER : V_BAD);
    size_t n = 3 * p.n_seqs * p.seq_len;
    for (size_t i = 0; i < n; i++)
        if ((st == SINPE_SUCCESS) != (lanes[i] != INT32_MIN))
            die(st == SINPE_SUCCESS ? "lane element %zu unwritten" : "a refused call wrote lane %zu",
                i);
}

static void fuzz_host(reader *r)
{
    size_t dim;
    sinpe_table *t = pick_table(r, &dim);
    size_t n_seqs = u8(r) % 5, seq_len = u8(r) % 9, vocab = u8(r) % 21;
    uint32_t shape = u8(r) % 32;
    int32_t start = pick_int(r, -100, 2000);
    float scale = pick_scale(r);
    int null_ids = u8(r) % 32 == 0, null_w = u8(r) % 32 == 0, null_out = u8(r) % 32 == 0;
    int with_pos = u8(r) & 1;
    int overflow = 0;

    call_name = "sinpe_embed_host";
    /* Shapes the call must refuse before it reads the (then tiny) arrays. */
    if (shape == 0) {
        n_seqs = (size_t)1 << 20;
        seq_len = (size_t)1 << 20;
        overflow = 1;
    } else if (shape == 1) {
        vocab = SIZE_MAX;
        overflow = 1;
    } else if (shape == 2) {
        vocab = (size_t)1 << 31; /* one over the largest vocabulary */
        overflow = 1;
    }
    size_t n = overflow || !n_seqs || !seq_len ? 1 : n_seqs * seq_len;
    size_t nw = overflow || !vocab || !dim ? 1 : vocab * dim;
    int32_t *ids = xcalloc(n, sizeof *ids), *pos = xcalloc(n, sizeof *pos);
    float *w = xcalloc(nw, sizeof *w), *out = xcalloc(n * (dim ? dim : 1), sizeof *out);
    float *out0 = xcalloc(n * (dim ? dim : 1), sizeof *out0);
    int any_bad_id = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t top = vocab == 0 ? 0 : vocab > 30 ? 30 : (int32_t)vocab - 1;
        ids[i] = ref_int(&r->rng, u8(r) % 8 == 0 ? -1 : 0, top);
        if (u8(r) % 16 == 0)
            ids[i] = (int32_t)vocab;
        any_bad_id |= ids[i] < 0 || (size_t)ids[i] >= vocab;
        pos[i] = ref_int(&r->rng, -100, 4000);
    }
    for (size_t i = 0; i < nw; i++)
        ref_store_random(SINPE_F32, w, i, &r->rng);
    ref_poison(SINPE_F32, out, n * (dim ? dim : 1));
    memcpy(out0, out, n * (dim ? dim : 1) * sizeof *out);

    int verdict = V_OK;
    if (!t || null_ids || null_w || null_out || overflow || !n_seqs || !seq_len || !vocab ||
        any_bad_id)
        verdict = V_BAD;
    else if (!with_pos && (int64_t)start + (int64_t)seq_len - 1 > INT_MAX)
        verdict = V_EITHER;
    sinpe_status st = sinpe_embed_host(t, null_ids ? NULL : ids, n_seqs, seq_len,
                                       null_w ? NULL : w, vocab, scale, start,
                                       with_pos ? pos : NULL, null_out ? NULL : out);
    judge(st, host_codes, COUNT(host_codes), verdict);
    if (st != SINPE_SUCCESS && memcmp(out, out0, n * (dim ? dim : 1) * sizeof *out) != 0)
        die("a failed call wrote to out");
    if (st == SINPE_SUCCESS) {
        sinpe_spec spec = sinpe_table_spec(t);
        sinpe_embed_args a;
        long bad;
        double *ref = xcalloc(n * dim, sizeof *ref);
        sinpe_embed_args_init(&a);
        a.n_seqs = n_seqs;
        a.seq_len = seq_len;
        a.vocab = vocab;
        a.token_scale = scale;
        a.start = start;
        a.positions = with_pos ? foreign_buf : NULL; /* only tested for NULL */
        ref_inputs in = {&spec, &a, ids, pos, NULL, NULL, w, NULL, NULL};
        ref_embed(&in, REF_FUSED, ref, &bad);
        for (size_t i = 0; i < n * dim && positions_small(&in); i++)
            if (!ref_close(SINPE_F32, out[i], ref[i]))
                die("element %zu: got %.9g, reference %.12g", i, out[i], ref[i]);
        free(ref);
    }
    free(ids);
    free(pos);
    free(w);
    free(out);
    free(out0);
}

/* ------------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    cl_int err;
    (void)argc;
    (void)argv;
    call_name = "setup";
    if (sinpe_context_create(NULL, &ctx) != SINPE_SUCCESS)
        die("no sinpe context: %s", sinpe_last_error());
    cl = sinpe_context_cl_context(ctx);
    dev = sinpe_context_device(ctx);
    cl_must(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                            NULL),
            "clGetDeviceInfo");
    queue = clCreateCommandQueue(cl, dev, 0, &err);
    cl_must(err, "clCreateCommandQueue");
    foreign_cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_must(err, "clCreateContext");
    foreign_queue = clCreateCommandQueue(foreign_cl, dev, 0, &err);
    cl_must(err, "clCreateCommandQueue(foreign)");
    foreign_buf = clCreateBuffer(foreign_cl, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_must(err, "clCreateBuffer(foreign)");
    foreign_event = clCreateUserEvent(foreign_cl, &err);
    cl_must(err, "clCreateUserEvent(foreign)");
    cl_must(clSetUserEventStatus(foreign_event, CL_COMPLETE), "clSetUserEventStatus(foreign)");
    for (int i = 0; i < 3; i++) {
        done_events[i] = clCreateUserEvent(cl, &err);
        cl_must(err, "clCreateUserEvent");
        cl_must(clSetUserEventStatus(done_events[i], CL_COMPLETE), "clSetUserEventStatus");
    }
    static const size_t dims[N_TABLES] = {1, 2, 3, 5, 8, 13, 16, 7};
    for (int i = 0; i < N_TABLES; i++) {
        sinpe_spec s;
        sinpe_spec_init(&s, dims[i]);
        s.layout = (sinpe_layout)(i % 3);
        s.odd_dim = i % 2 ? SINPE_ODD_EXTRA_SIN : SINPE_ODD_ZERO_LAST;
        s.shift = (double)(i % 2);
        if (sinpe_table_create(ctx, &s, i % 3 ? 64 : 0, &tables[i]) != SINPE_SUCCESS)
            die("sinpe_table_create: %s", sinpe_last_error());
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0x9E3779B97F4A7C15ull};
    for (size_t i = 0; i < size; i++)
        r.rng = r.rng * 0x100000001B3ull ^ data[i];
    switch (u8(&r) % 10) {
    case 0:
    case 1:
    case 2:
        fuzz_embed(&r);
        break;
    case 3:
        fuzz_rows(&r, 1);
        break;
    case 4:
        fuzz_rows(&r, 0);
        break;
    case 5:
        fuzz_table_create(&r);
        break;
    case 6:
        fuzz_table_reserve(&r);
        break;
    case 7:
        fuzz_presets(&r);
        break;
    case 8:
        fuzz_mrope_positions(&r);
        break;
    default:
        fuzz_host(&r);
        break;
    }
    return 0;
}
