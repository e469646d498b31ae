/* test_errors.c -- every validation error with its exact status, the
 * argument named in sinpe_last_error(), and nothing touched: after each
 * rejected call the output still holds its poison and the bad-id counter its
 * zero, even after clFinish on the queue. */
#include "test_util.h"
#include "sinpe_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIM = 16, NS = 2, SL = 5, VOCAB = 10, ROWS = NS * SL };

/* A valid baseline made by the checked fixture (it runs in the forked child,
 * so it may create OpenCL objects); each test breaks exactly one thing. */
static sinpe_context *ctx;
static sinpe_table *tab;
static cl_command_queue q;
static cl_mem ids_m, w_m, out_m, pos_m, bad_m;
static sinpe_embed_args args;

static void setup(void)
{
    int32_t ids[ROWS], pos[ROWS], zero = 0;
    float w[VOCAB * DIM];
    tu_rng rng = tu_rng_for("errors");
    for (size_t i = 0; i < ROWS; i++) {
        ids[i] = tu_rng_int(&rng, 0, VOCAB - 1);
        pos[i] = tu_rng_int(&rng, 0, 100);
    }
    tu_rng_floats(&rng, w, VOCAB * DIM, -1.0f, 1.0f);

    ctx = tu_context(SINPE_MATH_AUTO);
    tab = tu_table(ctx, DIM, 8);
    q = tu_queue(ctx);
    ids_m = tu_buffer(ctx, sizeof ids, ids);
    w_m = tu_buffer(ctx, sizeof w, w);
    out_m = tu_poisoned_buffer(ctx, q, ROWS * DIM);
    pos_m = tu_buffer(ctx, sizeof pos, pos);
    bad_m = tu_buffer(ctx, sizeof zero, &zero);

    args = tu_args(NS, SL, ids_m, w_m, VOCAB, out_m);
    args.token_scale = 4.0f;
    args.positions = pos_m;
    args.bad_ids = bad_m;
}

static void teardown(void)
{
    TU_RELEASE(ctx, q, tab, ids_m, w_m, out_m, pos_m, bad_m);
}

/* Asserts that the baseline's output and counter were not touched. */
static void check_untouched(const char *what)
{
    tu_check_buffer_poison(q, out_m, ROWS * DIM, what);
    int32_t bad = -1;
    tu_read(q, bad_m, 0, sizeof bad, &bad);
    ck_assert_msg(bad == 0, "%s: bad_ids counter changed to %d", what, (int)bad);
}

/* Marks a call that does not apply (the argument is not used by it). */
#define NOT_USED ((sinpe_status)1)

/* Asserts that the call fn returned want.  No event may come back from a
 * failed call, which must leave a message, one that contains name when name
 * is not NULL.  A success's event is released. */
static void check_call(const char *fn, sinpe_status st, cl_event ev, sinpe_status want,
                       const char *name)
{
    ck_assert_msg(st == want, "%s returned %d (%s), expected %d (%s); last error: %s", fn,
                  (int)st, sinpe_status_string(st), (int)want, sinpe_status_string(want),
                  sinpe_last_error());
    if (ev)
        clReleaseEvent(ev);
    if (st == SINPE_SUCCESS)
        return;
    ck_assert_msg(!ev, "%s failed with an event", fn);
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "%s failed without a message", fn);
    if (name)
        ck_assert_msg(strstr(sinpe_last_error(), name) != NULL,
                      "%s: the message does not name \"%s\": \"%s\"", fn, name,
                      sinpe_last_error());
}

/* The three enqueue functions with (t, queue, a, wait list), each expected
 * to return its status by check_call() (NOT_USED skips one). */
static void expect3(sinpe_table *t, cl_command_queue queue, const sinpe_embed_args *a,
                    cl_uint n_wait, const cl_event *wait, sinpe_status e_embed,
                    sinpe_status e_gather, sinpe_status e_add, const char *name)
{
    const sinpe_status want[3] = {e_embed, e_gather, e_add};
    for (int f = 0; f < 3; f++) {
        if (want[f] == NOT_USED)
            continue;
        cl_event ev = NULL;
        sinpe_status st = tu_embed_calls[f](t, queue, a, n_wait, wait, &ev);
        check_call(tu_embed_call_names[f], st, ev, want[f], name);
    }
}

#define S_OK SINPE_SUCCESS

/* expect3 with the baseline's queue and no wait list on a copy a of the
 * baseline's args changed by the statements that follow name. */
#define EXPECT_CHANGED(e_embed, e_gather, e_add, name, ...)                                 \
    do {                                                                                   \
        sinpe_embed_args a = args;                                                         \
        __VA_ARGS__;                                                                       \
        expect3(tab, q, &a, 0, NULL, e_embed, e_gather, e_add, name);                      \
    } while (0)
#define NULL_ARG SINPE_NULL_ARGUMENT
#define SHAPE SINPE_INVALID_SHAPE

/* ---- Baseline and NULLs ---- */

START_TEST(baseline_is_valid)
{
    /* Without this, every test below could pass for the wrong reason. */
    expect3(tab, q, &args, 0, NULL, S_OK, S_OK, S_OK, NULL);
    TU_CL(clFinish(q));
    int32_t bad = -1;
    tu_read(q, bad_m, 0, sizeof bad, &bad);
    ck_assert_int_eq(bad, 0); /* every id valid, counted by embed and gather */
}
END_TEST

START_TEST(null_handles)
{
    expect3(NULL, q, &args, 0, NULL, NULL_ARG, NULL_ARG, NULL_ARG, "table");
    expect3(tab, NULL, &args, 0, NULL, NULL_ARG, NULL_ARG, NULL_ARG, "queue");
    expect3(tab, q, NULL, 0, NULL, NULL_ARG, NULL_ARG, NULL_ARG, "args");
    check_untouched("after NULL handles");
}
END_TEST

START_TEST(null_buffers)
{
    EXPECT_CHANGED(NULL_ARG, NULL_ARG, NOT_USED, "ids", a.ids = NULL);
    EXPECT_CHANGED(NULL_ARG, NULL_ARG, NOT_USED, "weights", a.weights = NULL);
    EXPECT_CHANGED(NULL_ARG, NULL_ARG, NULL_ARG, "out", a.out = NULL);
    check_untouched("after NULL buffers");

    /* add_positions does not need ids, weights or vocab. */
    sinpe_embed_args a = args;
    a.ids = NULL, a.weights = NULL, a.vocab = 0, a.positions = NULL, a.bad_ids = NULL;
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
}
END_TEST

/* ---- Shapes ---- */

START_TEST(shape_zero_counts)
{
    EXPECT_CHANGED(SHAPE, SHAPE, SHAPE, "n_seqs", a.n_seqs = 0);
    EXPECT_CHANGED(SHAPE, SHAPE, SHAPE, "seq_len", a.seq_len = 0);
    EXPECT_CHANGED(SHAPE, SHAPE, NOT_USED, "vocab", a.vocab = 0);
    check_untouched("after zero counts");
}
END_TEST

START_TEST(shape_strides_below_dim)
{
    EXPECT_CHANGED(SHAPE, SHAPE, SHAPE, "out_stride", a.out_stride = DIM - 1);
    EXPECT_CHANGED(SHAPE, SHAPE, NOT_USED, "weights_stride", a.weights_stride = DIM - 1);
    EXPECT_CHANGED(SHAPE, SHAPE, SHAPE, "out_stride", a.out_stride = 1);
    check_untouched("after strides below dim");
}
END_TEST

START_TEST(shape_over_int_range)
{
    /* Sizes are checked before buffers: the extents below would not even fit
     * the buffers' sizes.  2^31 - 1 is the largest vocab; 2^16 x 2^15 are
     * 2^31 rows; SIZE_MAX / 2 sequences overflow n_seqs * seq_len. */
    EXPECT_CHANGED(SHAPE, SHAPE, NOT_USED, "vocab", a.vocab = (size_t)1 << 31);
    EXPECT_CHANGED(SHAPE, SHAPE, SHAPE, NULL, a.n_seqs = (size_t)1 << 16, a.seq_len = 1 << 15);
    EXPECT_CHANGED(SHAPE, SHAPE, SHAPE, NULL, a.n_seqs = SIZE_MAX / 2);
    check_untouched("after sizes over the int range");
}
END_TEST

/* ---- Buffers too small ---- */

START_TEST(buffer_too_small)
{
    /* Each case leaves the buffer one element short of offset + extent; the
     * call that does not use the buffer is not made. */
    static const struct {
        const char *name;
        int unused; /* 1: gather, 2: add_positions, 0: all three use it */
    } cases[] = {
        {"ids", 2},       {"ids", 2},  {"weights", 2}, {"weights", 2},
        {"weights", 2},   {"out", 0},  {"out", 0},     {"out", 0},
        {"positions", 1}, {"positions", 1}, {"bad_ids", 2}, {"out", 0},
    };
    sinpe_embed_args a = args;
    cl_mem small = NULL;
    switch (_i) {
    case 0: a.ids = small = tu_buffer(ctx, (ROWS - 1) * sizeof(int32_t), NULL); break;
    case 1: a.ids_offset = 1; break;
    case 2: a.weights = small = tu_buffer(ctx, (VOCAB * DIM - 1) * sizeof(float), NULL); break;
    case 3: a.weights_offset = 1; break;
    case 4: a.weights_stride = DIM + 1; break; /* needs (VOCAB - 1) * (DIM + 1) + DIM */
    case 5: a.out = small = tu_poisoned_buffer(ctx, q, ROWS * DIM - 1); break;
    case 6: a.out_offset = 1; break;
    case 7: a.out_stride = DIM + 1; break;
    case 8: a.positions = small = tu_buffer(ctx, (ROWS - 1) * sizeof(int32_t), NULL); break;
    case 9: a.positions_offset = 1; break;
    case 10: a.bad_ids_offset = 1; break; /* one cl_int at offset 1 */
    default: a.out_offset = SIZE_MAX - 3; break; /* a huge offset must not wrap around */
    }
    sinpe_status e[3] = {SINPE_BUFFER_TOO_SMALL, SINPE_BUFFER_TOO_SMALL, SINPE_BUFFER_TOO_SMALL};
    if (cases[_i].unused)
        e[cases[_i].unused] = NOT_USED;
    expect3(tab, q, &a, 0, NULL, e[0], e[1], e[2], cases[_i].name);
    check_untouched("after a buffer too small");
    if (_i == 5)
        tu_check_buffer_poison(q, small, ROWS * DIM - 1, "the short output buffer");
    if (small)
        clReleaseMemObject(small);
}
END_TEST

START_TEST(buffer_positions_broadcast_extent)
{
    /* Broadcast (1, S) positions need seq_len entries, not n_seqs * seq_len. */
    int32_t pos[2 + SL] = {0};
    cl_mem pm = tu_buffer(ctx, sizeof pos, pos);
    const sinpe_status small = SINPE_BUFFER_TOO_SMALL;
    /* Broadcast at offset 3 is one short; unbroadcast, SL + 2 < ROWS entries. */
    EXPECT_CHANGED(small, NOT_USED, small, "positions", a.positions = pm, a.positions_offset = 3,
                   a.positions_broadcast = 1);
    EXPECT_CHANGED(small, NOT_USED, small, "positions", a.positions = pm);
    check_untouched("after short positions");
    EXPECT_CHANGED(S_OK, S_OK, S_OK, NULL, a.positions = pm, a.positions_offset = 2,
                   a.positions_broadcast = 1);
    TU_CL(clFinish(q));
    clReleaseMemObject(pm);
}
END_TEST

START_TEST(buffer_exact_size_accepted)
{
    /* The tight extent, offset + (n - 1) * stride + dim, is enough. */
    sinpe_embed_args a = args;
    size_t wn = 3 + (VOCAB - 1) * (DIM + 2) + DIM;
    size_t on = 5 + (ROWS - 1) * (DIM + 4) + DIM;
    int32_t ids[1 + ROWS] = {0}, pos[2 + ROWS] = {0}, bad[3] = {0, 0, 0};
    cl_mem w2 = tu_zero_buffer(ctx, wn), o2 = tu_poisoned_buffer(ctx, q, on);
    cl_mem i2 = tu_buffer(ctx, sizeof ids, ids), p2 = tu_buffer(ctx, sizeof pos, pos);
    cl_mem b2 = tu_buffer(ctx, sizeof bad, bad);
    a.weights = w2, a.weights_offset = 3, a.weights_stride = DIM + 2;
    a.out = o2, a.out_offset = 5, a.out_stride = DIM + 4;
    a.ids = i2, a.ids_offset = 1;
    a.positions = p2, a.positions_offset = 2;
    a.bad_ids = b2, a.bad_ids_offset = 2;
    expect3(tab, q, &a, 0, NULL, S_OK, S_OK, S_OK, NULL);
    TU_CL(clFinish(q));
    TU_RELEASE(NULL, NULL, NULL, w2, o2, i2, p2, b2);
}
END_TEST

/* ---- Wait lists ---- */

START_TEST(wait_list_inconsistent)
{
    /* Never forwarded: pocl and oclgrind crash on (1, NULL). */
    const sinpe_status bad = SINPE_INVALID_WAIT_LIST;
    cl_event ev = tu_complete_event(sinpe_context_cl_context(ctx));
    expect3(tab, q, &args, 1, NULL, bad, bad, bad, NULL);
    expect3(tab, q, &args, 0, &ev, bad, bad, bad, NULL);
    expect3(tab, q, &args, 3, NULL, bad, bad, bad, NULL);
    check_untouched("after inconsistent wait lists");
    clReleaseEvent(ev);
}
END_TEST

/* The five enqueue calls with one wait list, each expected to return want
 * (naming name when not NULL); table_rows and timesteps write the
 * baseline's output, so a call that wrongly succeeds shows in
 * check_untouched() too. */
static void expect_all_wait(cl_uint n_wait, const cl_event *wait, sinpe_status want,
                            const char *name)
{
    cl_mem ts_m = tu_zero_buffer(ctx, ROWS);
    cl_event ev = NULL;
    expect3(tab, q, &args, n_wait, wait, want, want, want, name);
    sinpe_status st = sinpe_enqueue_table_rows(tab, q, 0, ROWS, out_m, 0, 0, SINPE_F32, n_wait,
                                               wait, &ev);
    check_call("enqueue_table_rows", st, ev, want, name);
    ev = NULL;
    st = sinpe_enqueue_timesteps(tab, q, ts_m, 0, ROWS, out_m, 0, 0, SINPE_F32, n_wait, wait, &ev);
    check_call("enqueue_timesteps", st, ev, want, name);
    TU_CL(clFinish(q));
    clReleaseMemObject(ts_m);
}

START_TEST(wait_list_event_of_other_context)
{
    /* OpenCL calls such a list invalid (CL_INVALID_CONTEXT); pocl runs the
     * command anyway and other drivers crash, so sinpe checks it. */
    cl_context other = tu_other_cl_context(ctx);
    cl_event foreign = tu_complete_event(other);
    cl_event own = tu_complete_event(sinpe_context_cl_context(ctx));

    expect_all_wait(1, &foreign, SINPE_CONTEXT_MISMATCH, "event_wait_list[0]");
    cl_event mixed[3] = {own, own, foreign};
    expect_all_wait(3, mixed, SINPE_CONTEXT_MISMATCH, "event_wait_list[2]");
    check_untouched("after a wait list with a foreign event");

    /* The same lists with the context's own events are accepted. */
    mixed[2] = own;
    expect_all_wait(3, mixed, SINPE_SUCCESS, NULL);
    clReleaseEvent(own);
    clReleaseEvent(foreign);
    clReleaseContext(other);
}
END_TEST

/* ---- Context mismatch ---- */

/* A queue of a second cl_context (*other) on the fixture's device. */
static cl_command_queue foreign_queue(cl_context *other)
{
    cl_int err;
    *other = tu_other_cl_context(ctx);
    cl_command_queue oq = clCreateCommandQueue(*other, sinpe_context_device(ctx), 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return oq;
}

START_TEST(queue_from_other_context)
{
    cl_context other;
    cl_command_queue oq = foreign_queue(&other);
    const sinpe_status mismatch = SINPE_CONTEXT_MISMATCH;
    expect3(tab, oq, &args, 0, NULL, mismatch, mismatch, mismatch, "queue");
    TU_CL(clFinish(oq));
    check_untouched("after a foreign queue");
    clReleaseCommandQueue(oq);
    clReleaseContext(other);
}
END_TEST

START_TEST(buffer_from_other_context)
{
    /* _i picks the buffer: ids, weights, out, positions, bad_ids.  The
     * foreign buffer has the right size, so only its context is wrong. */
    static const char *const names[] = {"ids", "weights", "out", "positions", "bad_ids"};
    cl_context other;
    cl_command_queue oq = foreign_queue(&other);
    cl_int err;
    size_t bytes = _i == 1 ? VOCAB * DIM * sizeof(float)
                   : _i == 2 ? ROWS * DIM * sizeof(float)
                             : ROWS * sizeof(int32_t);
    float *poison = tu_malloc(bytes);
    tu_fill_poison(poison, bytes / sizeof(float));
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                                    poison, &err);
    ck_assert_int_eq(err, CL_SUCCESS);

    sinpe_embed_args a = args;
    sinpe_status e[3] = {SINPE_CONTEXT_MISMATCH, SINPE_CONTEXT_MISMATCH, SINPE_CONTEXT_MISMATCH};
    static const int unused[] = {2, 2, 0, 1, 2}; /* the call that ignores it, if any */
    cl_mem *field[] = {&a.ids, &a.weights, &a.out, &a.positions, &a.bad_ids};
    *field[_i] = foreign;
    if (unused[_i])
        e[unused[_i]] = NOT_USED;
    expect3(tab, q, &a, 0, NULL, e[0], e[1], e[2], names[_i]);
    check_untouched("after a foreign buffer");
    float *back = tu_malloc(bytes);
    TU_CL(clEnqueueReadBuffer(oq, foreign, CL_TRUE, 0, bytes, back, 0, NULL, NULL));
    ck_assert_msg(memcmp(back, poison, bytes) == 0, "the foreign %s buffer was written",
                  names[_i]);
    TU_FREE(back, poison);
    TU_RELEASE(NULL, oq, NULL, foreign);
    clReleaseContext(other);
}
END_TEST

START_TEST(table_from_other_context_with_queue)
{
    /* A table of a second sinpe context used with this context's queue. */
    sinpe_context *ctx2 = tu_context(SINPE_MATH_AUTO);
    sinpe_table *tab2 = tu_table(ctx2, DIM, 8);
    ck_assert_msg(tab2 != tab, "tables of two contexts are shared");
    const sinpe_status mismatch = SINPE_CONTEXT_MISMATCH;
    expect3(tab2, q, &args, 0, NULL, mismatch, mismatch, mismatch, NULL);
    check_untouched("after a table of another context");
    tu_release(ctx2, NULL, tab2, NULL, 0);
}
END_TEST

/* ---- The host-memory call ---- */

/* sinpe_embed_host(tab, ids, ...) with the given sizes expects want, a
 * message naming name, and out still poisoned. */
static void expect_host(const int32_t *ids, size_t n_seqs, size_t seq_len, const float *w,
                        size_t vocab, int32_t start, sinpe_status want, const char *name)
{
    float out[SL * DIM];
    tu_fill_poison(out, SL * DIM);
    sinpe_status st = sinpe_embed_host(tab, ids, n_seqs, seq_len, w, vocab, 1.0f, start, NULL,
                                       out);
    ck_assert_msg(st == want,
                  "embed_host(%zu x %zu, vocab %zu, start %d) returned %d (%s), expected %d "
                  "(%s); last error: %s",
                  n_seqs, seq_len, vocab, (int)start, (int)st, sinpe_status_string(st),
                  (int)want, sinpe_status_string(want), sinpe_last_error());
    TU_MESSAGE_HAS(name);
    tu_check_all_poison(out, SL * DIM, "embed_host output after a rejected call");
}

START_TEST(embed_host_checks_before_upload)
{
    /* weights and ids hold a few values only: a call that uploaded
     * vocab * dim floats or scanned n ids would read far past them.  Every
     * size must be rejected, with its own status, before any of that. */
    float w[2 * DIM] = {0};
    int32_t ids[SL] = {0, 1, 0, 1, 0};
    cl_ulong max_alloc = tu_max_alloc(ctx);

    expect_host(ids, 1, SL, w, (size_t)1 << 31, 0, SINPE_INVALID_SHAPE, "vocab");
    expect_host(ids, 1, SL, w, SIZE_MAX, 0, SINPE_INVALID_SHAPE, "vocab");
    expect_host(ids, 1, SL, w, 2, INT32_MAX - 2, SINPE_INVALID_SHAPE, "start");
    expect_host(ids, (size_t)1 << 16, (size_t)1 << 15, w, 2, 0, SINPE_INVALID_SHAPE,
                "n_seqs");
    /* One row more than the device's largest buffer holds. */
    cl_ulong rows = max_alloc / (DIM * sizeof(float)) + 1;
    if (rows <= INT32_MAX) {
        expect_host(ids, 1, SL, w, (size_t)rows, 0, SINPE_TOO_LARGE, "weights");
        expect_host(ids, 1, (size_t)rows, w, 2, 0, SINPE_TOO_LARGE, "out");
    }

    /* The sizes that fit are accepted (start + seq_len - 1 = 2^31 - 1). */
    float out[SL * DIM];
    TU_OK(sinpe_embed_host(tab, ids, 1, SL, w, 2, 1.0f, INT32_MAX - (SL - 1), NULL, out));
}
END_TEST

/* ---- sinpe_last_error() after calls that cannot fail ---- */

/* Leaves a failure's message as the calling thread's last error. */
static void fail_once(void)
{
    TU_STATUS(sinpe_table_reserve(NULL, 1), SINPE_NULL_ARGUMENT);
    ck_assert_msg(sinpe_last_error()[0] != '\0', "no message after a failure");
}

/* After a failure, call must leave sinpe_last_error() empty. */
#define EXPECT_CLEARED(call)                                                           \
    do {                                                                               \
        fail_once();                                                                   \
        call;                                                                          \
        ck_assert_msg(sinpe_last_error()[0] == '\0', "%s left the message \"%s\"", #call, \
                      sinpe_last_error());                                             \
    } while (0)

START_TEST(last_error_cleared_by_every_call)
{
    sinpe_spec s;
    sinpe_embed_args a;
    sinpe_context_options o;
    sinpe_table *t = NULL;
    cl_mem mem = NULL;
    size_t rows = 0;

    /* The functions that return no status, with and without NULL. */
    EXPECT_CLEARED(sinpe_spec_init(&s, DIM));
    EXPECT_CLEARED(sinpe_spec_init(NULL, DIM));
    EXPECT_CLEARED(sinpe_embed_args_init(&a));
    EXPECT_CLEARED(sinpe_embed_args_init(NULL));
    EXPECT_CLEARED(sinpe_context_options_init(&o));
    EXPECT_CLEARED(sinpe_context_options_init(NULL));
    EXPECT_CLEARED(ck_assert_ptr_nonnull(sinpe_context_cl_context(ctx)));
    EXPECT_CLEARED(ck_assert_ptr_nonnull(sinpe_context_device(ctx)));
    EXPECT_CLEARED(ck_assert_ptr_nonnull(sinpe_context_queue(ctx)));
    EXPECT_CLEARED(ck_assert_int_ne(sinpe_context_math(ctx), SINPE_MATH_AUTO));
    EXPECT_CLEARED(ck_assert_str_ne(sinpe_context_tuning(ctx), ""));
    EXPECT_CLEARED(ck_assert_uint_ge(sinpe_table_rows(tab), 8));
    EXPECT_CLEARED(ck_assert_uint_eq(sinpe_table_spec(tab).dim, DIM));
    EXPECT_CLEARED(sinpe_table_release(NULL));
    EXPECT_CLEARED(sinpe_context_release(NULL));
    /* A release that only drops a reference (the fixture keeps its own). */
    sinpe_spec_init(&s, DIM);
    TU_OK(sinpe_table_create(ctx, &s, 0, &t));
    ck_assert_ptr_eq(t, tab);
    EXPECT_CLEARED(sinpe_table_release(t));
    /* And a few that return a status. */
    EXPECT_CLEARED(TU_OK(sinpe_spec_preset(&s, SINPE_PRESET_FAIRSEQ, DIM)));
    EXPECT_CLEARED(TU_OK(sinpe_embed_args_preset(&a, SINPE_PRESET_FAIRSEQ, DIM, 1)));
    EXPECT_CLEARED(TU_OK(sinpe_table_borrow(tab, &mem, &rows)));
    clReleaseMemObject(mem);
}
END_TEST

START_TEST(last_error_kept_by_describing_calls)
{
    /* The five calls a failure is reported with leave its message alone,
     * in whichever order the caller's printf evaluates them. */
    fail_once();
    const char *msg = sinpe_last_error();
    char copy[512];
    snprintf(copy, sizeof copy, "%s", msg);
    ck_assert_ptr_nonnull(sinpe_status_string(SINPE_NULL_ARGUMENT));
    ck_assert_ptr_nonnull(sinpe_preset_name(SINPE_PRESET_FAIRSEQ));
    ck_assert_ptr_null(sinpe_preset_name((sinpe_preset)99));
    ck_assert_uint_eq(sinpe_version_number(), SINPE_VERSION_NUMBER);
    ck_assert_ptr_nonnull(sinpe_version_string());
    ck_assert_str_eq(sinpe_last_error(), copy);
    ck_assert_str_eq(msg, copy); /* the same string, still valid */

    /* A table create whose growth fails reports the growth's message,
     * not the silence of the release that undoes it. */
    sinpe_spec s;
    sinpe_spec_init(&s, 1000);
    sinpe_table *t = NULL;
    TU_STATUS(sinpe_table_create(ctx, &s, SIZE_MAX / 8, &t), SINPE_TOO_LARGE);
    TU_MESSAGE_HAS("rows");
}
END_TEST

START_TEST(accessors_given_null)
{
    /* They answer a value no real handle gives, and say why. */
    sinpe_spec s;
    fail_once();
#define ANSWERS(call, message)                                                                \
    do {                                                                                      \
        call;                                                                                 \
        ck_assert_str_eq(sinpe_last_error(), message);                                        \
    } while (0)
    ANSWERS(ck_assert_ptr_null(sinpe_context_cl_context(NULL)), "context is NULL");
    ANSWERS(ck_assert_ptr_null(sinpe_context_device(NULL)), "context is NULL");
    ANSWERS(ck_assert_ptr_null(sinpe_context_queue(NULL)), "context is NULL");
    ANSWERS(ck_assert_int_eq(sinpe_context_math(NULL), SINPE_MATH_AUTO), "context is NULL");
    ANSWERS(ck_assert_str_eq(sinpe_context_tuning(NULL), ""), "context is NULL");
    ANSWERS(ck_assert_uint_eq(sinpe_table_rows(NULL), 0), "table is NULL");
    ANSWERS(sinpe_context_release(NULL), "");
    ANSWERS(s = sinpe_table_spec(NULL), "table is NULL");
#undef ANSWERS
    ck_assert_uint_eq(s.dim, 0);
    ck_assert_int_eq(s.layout, 0);
    ck_assert_int_eq(s.odd_dim, 0);
    ck_assert_msg(s.base == 0.0 && s.shift == 0.0 && s.angle_scale == 0.0,
                  "spec of NULL: base %g shift %g angle_scale %g", s.base, s.shift,
                  s.angle_scale);
}
END_TEST

/* ---- Edges that are not errors ---- */

START_TEST(device_selector_empty_is_default)
{
    /* "" means what NULL means: SINPE_DEVICE, else the default order. */
    sinpe_context_options o;
    sinpe_context *c2 = NULL;
    sinpe_context_options_init(&o);
    o.device = "";
    TU_OK(sinpe_context_create(&o, &c2));
    ck_assert_str_eq(sinpe_last_error(), "");
    ck_assert_ptr_eq(sinpe_context_device(c2), sinpe_context_device(ctx));
    sinpe_context_release(c2);
}
END_TEST

/* PE(p) of the fixture's spec (the paper's, dim DIM) in long double: p * w
 * is then exact to 2^-33 for any int32 p, which float64 is not near 2^31. */
static void pe_row_ld(cl_int p, double *row)
{
    for (size_t c = 0; c < DIM; c++) {
        double w = pow(10000.0, -(double)(c / 2) / (DIM / 2));
        long double a = (long double)p * (long double)w;
        row[c] = (double)((c & 1) ? cosl(a) : sinl(a));
    }
}

START_TEST(table_rows_any_int32_row0)
{
    /* Every int32 row is a position, negative ones included: PE(p) with
     * the bits that the embedding calls give position p, and as exact
     * there as anywhere.  _i: row0 = INT_MIN, the top rows, then rows
     * from -131 (neither a block's nor a four-row run's first). */
    enum { N = 130 }; /* two anchor blocks */
    const cl_int row0 = _i == 0 ? INT32_MIN : _i == 1 ? INT32_MAX - (N - 1) : -131;
    cl_mem rows_m = tu_poisoned_buffer(ctx, q, N * DIM);
    TU_OK(sinpe_enqueue_table_rows(tab, q, row0, N, rows_m, 0, 0, SINPE_F32, 0, NULL, NULL));
    float *rows = tu_read_floats(q, rows_m, N * DIM);

    /* The same positions through add_positions onto zeros: 0 + PE(p). */
    cl_mem sum_m = tu_zero_buffer(ctx, N * DIM);
    sinpe_embed_args a = tu_args(1, N, NULL, NULL, 0, sum_m);
    a.start = row0;
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
    float *sums = tu_read_floats(q, sum_m, N * DIM);

    double *ref = tu_malloc(N * DIM * sizeof *ref);
    for (size_t r = 0; r < N; r++)
        pe_row_ld((cl_int)((int64_t)row0 + (int64_t)r), ref + r * DIM);
    tu_check_rows(rows, 0, DIM, N, DIM, ref, TU_PE_TOL, 0.0, "table_rows at the int32 ends");
    for (size_t i = 0; i < N * DIM; i++)
        TU_CHECK(rows[i] == sums[i], "position %lld col %zu: table_rows %.9g, add %.9g",
                 (long long)row0 + (long long)(i / DIM), i % DIM, (double)rows[i],
                 (double)sums[i]);

    /* One row more runs past 2^31 - 1. */
    TU_STATUS(sinpe_enqueue_table_rows(tab, q, INT32_MAX - (N - 1), N + 1, rows_m, 0, 0,
                                       SINPE_F32, 0, NULL, NULL),
              SINPE_INVALID_SHAPE);
    TU_FREE(rows, sums, ref);
    TU_RELEASE(NULL, NULL, NULL, rows_m, sum_m);
}
END_TEST

START_TEST(calls_keep_no_event)
{
    /* A call returns holding no event: the caller's is the one reference it
     * took, and with event NULL it took none.  The positions run past the
     * table, so the embedding calls lend the table's scratch as well. */
    cl_mem ts_m = tu_buffer(ctx, ROWS * sizeof(float), NULL);
    for (int with = 0; with < 2; with++)
        for (int f = 0; f < 5; f++) {
            cl_event ev = NULL;
            long before = tu_event_refs;
            sinpe_status st =
                f < 3 ? tu_embed_calls[f](tab, q, &args, 0, NULL, with ? &ev : NULL)
                : f == 3 ? sinpe_enqueue_table_rows(tab, q, 5, ROWS, out_m, 0, 0, SINPE_F32, 0,
                                                    NULL, with ? &ev : NULL)
                         : sinpe_enqueue_timesteps(tab, q, ts_m, 0, ROWS, out_m, 0, 0, SINPE_F32,
                                                   0, NULL, with ? &ev : NULL);
            TU_OK(st);
            ck_assert_msg(tu_event_refs - before == with, "call %d (event %s) holds %ld events",
                          f, with ? "asked" : "NULL", tu_event_refs - before - with);
            if (ev)
                TU_CL(clReleaseEvent(ev));
        }
    TU_CL(clFinish(q));
    TU_RELEASE(NULL, NULL, NULL, ts_m);
}
END_TEST

/* ---- Specs and table sizes ---- */

static sinpe_spec bad_spec(int i, const char **field)
{
    sinpe_spec s;
    sinpe_spec_init(&s, 64);
    switch (i) {
    case 0: s.dim = 0; *field = "dim"; break;
    case 1: s.dim = 65537; *field = "dim"; break;
    case 2: s.base = 0.0; *field = "base"; break;
    case 3: s.base = -10000.0; *field = "base"; break;
    case 4: s.base = NAN; *field = "base"; break;
    case 5: s.base = INFINITY; *field = "base"; break;
    case 6: s.angle_scale = NAN; *field = "angle_scale"; break;
    case 7: s.angle_scale = -INFINITY; *field = "angle_scale"; break;
    case 8: s.shift = NAN; *field = "shift"; break;
    case 9: s.shift = INFINITY; *field = "shift"; break;
    case 10: s.layout = (sinpe_layout)7; *field = "layout"; break;
    case 11: s.layout = (sinpe_layout)-1; *field = "layout"; break;
    case 12: s.odd_dim = (sinpe_odd_dim)3; *field = "odd_dim"; break;
    case 13: /* H = 32 frequencies, D = 32 - 32 = 0 */
        s.shift = 32.0; *field = "shift"; break;
    case 14: /* D < 0 */
        s.shift = 40.0; *field = "shift"; break;
    case 15: /* D = 0 under EXTRA_SIN: d/2 - shift = 3.5 - 3.5 */
        s.dim = 7; s.odd_dim = SINPE_ODD_EXTRA_SIN; s.shift = 3.5; *field = "shift"; break;
    default: /* odd d rejected by policy */
        s.dim = 7; s.odd_dim = SINPE_ODD_ERROR; *field = NULL; break;
    }
    return s;
}
#define N_BAD_SPECS 17

START_TEST(spec_invalid)
{
    const char *field = NULL;
    sinpe_spec s = bad_spec(_i, &field);
    char sbuf[256];
    sinpe_table *t = NULL;
    sinpe_status st = sinpe_table_create(ctx, &s, 4, &t);
    ck_assert_msg(st == SINPE_INVALID_SPEC, "spec %d [%s] gave %d (%s)", _i,
                  tu_spec_str(&s, sbuf, sizeof sbuf), (int)st, sinpe_status_string(st));
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "spec %d: no message", _i);
    if (field)
        ck_assert_msg(strstr(sinpe_last_error(), field) != NULL,
                      "spec %d: the message does not name %s: \"%s\"", _i, field,
                      sinpe_last_error());
}
END_TEST

START_TEST(spec_valid_edges)
{
    /* Accepted corners: one frequency with D <= 0, a negative angle_scale,
     * a fractional shift, dim 1 and 65536 (the latter in test_table.c).  In
     * order: one frequency (D unused); H = 1, D = 0; one sin column, D < 0;
     * no frequency at all; a base below 1 (finite and > 0). */
    static const tu_spec_row ok[] = {
        {2, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 5.0, 1e4, 1.0},
        {3, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0},
        {1, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_EXTRA_SIN, 1.0, 1e4, 1.0},
        {1, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 0.0, 1e4, 1.0},
        {64, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 0.5, 1e4, -2.0},
        {64, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, -3.0, 0.5, 1.0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sinpe_spec s = tu_spec_of(&ok[i]);
        char sbuf[256];
        sinpe_table *t = NULL;
        sinpe_status st = sinpe_table_create(ctx, &s, 16, &t);
        ck_assert_msg(st == SINPE_SUCCESS, "[%s] refused: %d (%s): %s",
                      tu_spec_str(&s, sbuf, sizeof sbuf), (int)st, sinpe_status_string(st),
                      sinpe_last_error());
        float *got = tu_table_read(t, q, 16);
        double *ref = tu_pe_rows(&s, NULL, 0, 16);
        tu_check_rows(got, 0, s.dim, 16, s.dim, ref, TU_PE_TOL, 0.0, sbuf);
        TU_FREE(got, ref);
        sinpe_table_release(t);
    }
}
END_TEST

START_TEST(table_null_arguments)
{
    sinpe_spec s;
    sinpe_spec_init(&s, DIM);
    sinpe_table *t = NULL;
    cl_mem mem = NULL;
    size_t rows = 0;
    TU_STATUS(sinpe_table_create(ctx, NULL, 4, &t), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_table_create(ctx, &s, 4, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_table_borrow(tab, NULL, &rows), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_table_borrow(tab, &mem, NULL), SINPE_NULL_ARGUMENT);
}
END_TEST

/* After a failed reserve: the table still holds old_rows correct rows in the
 * same buffer (old_mem, released here) and still serves all three calls. */
static void expect_table_intact(cl_mem old_mem, size_t old_rows, const char *after)
{
    cl_mem mem;
    size_t rows;
    TU_OK(sinpe_table_borrow(tab, &mem, &rows));
    ck_assert_uint_eq(rows, old_rows);
    ck_assert_msg(mem == old_mem, "%s replaced the table buffer", after);
    float *got = tu_read_floats(q, mem, rows * DIM);
    sinpe_spec ts;
    sinpe_spec_init(&ts, DIM);
    double *ref = tu_pe_rows(&ts, NULL, 0, rows);
    tu_check_rows(got, 0, DIM, rows, DIM, ref, TU_PE_TOL, 0.0, after);
    TU_FREE(got, ref);
    TU_RELEASE(NULL, NULL, NULL, mem, old_mem);
    expect3(tab, q, &args, 0, NULL, S_OK, S_OK, S_OK, NULL);
}

START_TEST(table_too_large)
{
    cl_ulong max_alloc = tu_max_alloc(ctx);
    size_t just_over = (size_t)(max_alloc / (DIM * sizeof(float))) + 1;
    size_t before = sinpe_table_rows(tab);
    cl_mem old_mem;
    size_t old_rows;
    TU_OK(sinpe_table_borrow(tab, &old_mem, &old_rows));

    TU_STATUS(sinpe_table_reserve(tab, just_over), SINPE_TOO_LARGE);
    TU_STATUS(sinpe_table_reserve(tab, SIZE_MAX), SINPE_TOO_LARGE);
    TU_STATUS(sinpe_table_reserve(tab, SIZE_MAX / DIM + 1), SINPE_TOO_LARGE); /* wraps * dim */
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "no message for a reserve too large");
    ck_assert_uint_eq(sinpe_table_rows(tab), before);

    sinpe_spec s;
    sinpe_spec_init(&s, 1000);
    sinpe_table *t = NULL;
    TU_STATUS(sinpe_table_create(ctx, &s, SIZE_MAX / 8, &t), SINPE_TOO_LARGE);
    TU_STATUS(sinpe_table_create(ctx, &s, (size_t)(max_alloc / 4000) + 1, &t), SINPE_TOO_LARGE);

    expect_table_intact(old_mem, old_rows, "a failed reserve");
    TU_CL(clFinish(q));
}
END_TEST

START_TEST(table_growth_out_of_memory)
{
    /* A device allocation failure while growing (injected: pocl never
     * fails it on demand) returns the OpenCL status and leaves the old
     * buffer in place, intact and in use; the next reserve grows. */
    size_t before = sinpe_table_rows(tab);
    cl_mem old_mem;
    size_t old_rows;
    TU_OK(sinpe_table_borrow(tab, &old_mem, &old_rows));

    tu_fail_allocations = 1; /* tests/fault.c */
    TU_STATUS(sinpe_table_reserve(tab, before + 1000), CL_MEM_OBJECT_ALLOCATION_FAILURE);
    ck_assert_int_eq(tu_fail_allocations, 0);
    TU_MESSAGE_HAS("clCreateBuffer(table)");
    expect_table_intact(old_mem, old_rows, "a failed growth");

    TU_OK(sinpe_table_reserve(tab, before + 1000));
    ck_assert_uint_ge(sinpe_table_rows(tab), before + 1000);
    TU_CL(clFinish(q));
}
END_TEST

START_TEST(call_out_of_memory_enqueues_nothing)
{
    /* Each allocation of a call failing in turn (injected), on a table of
     * its own without rows, so with no buffers to lend yet: the call returns
     * the OpenCL status having launched nothing, the bad-id counter keeps its
     * zero (one id is out of range) and the output its poison.  The calls:
     * embed with rows past the table (the table's scratch), embed with
     * fairseq positions (a buffer of the call's own), add past the table,
     * rows of the table, a rotation past its table. */
    int32_t ids[ROWS];
    for (size_t i = 0; i < ROWS; i++)
        ids[i] = (int32_t)(i % VOCAB);
    ids[3] = VOCAB;
    cl_mem ids2_m = tu_buffer(ctx, sizeof ids, ids);
    sinpe_embed_args a = args;
    a.ids = ids2_m, a.positions = NULL, a.start = 1000; /* past the table's rows */
    sinpe_rope_args r;
    sinpe_rope_args_init(&r);
    r.n_seqs = NS, r.seq_len = SL, r.head_dim = DIM, r.q_heads = 1, r.start = 1000;
    int failed = 0;
    for (int call = 0; call < 5; call++)
        for (int k = 0;; k++) {
            const double base = 1000.0 + 10 * call + k; /* a table of its own */
            sinpe_table *t = NULL;
            sinpe_spec spec;
            sinpe_rope_spec rs;
            sinpe_spec_init(&spec, DIM);
            sinpe_rope_spec_init(&rs, DIM);
            spec.base = rs.base = base;
            if (call < 4)
                t = tu_table_of(ctx, &spec, 0);
            else
                TU_OK(sinpe_rope_table_create(ctx, &rs, 0, &t));
            int32_t zero = 0;
            cl_mem out = tu_poisoned_buffer(ctx, q, ROWS * DIM);
            cl_mem bad = tu_buffer(ctx, sizeof zero, &zero);
            a.position_rule = call == 1 ? SINPE_POSITIONS_FAIRSEQ : SINPE_POSITIONS_INDEX;
            a.out = r.q = out, a.bad_ids = bad;
            long launches = tu_launches;
            tu_fail_skip = k, tu_fail_allocations = 1; /* tests/fault.c */
            sinpe_status st =
                call < 2 ? sinpe_enqueue_embed(t, q, &a, 0, NULL, NULL)
                : call == 2 ? sinpe_enqueue_add_positions(t, q, &a, 0, NULL, NULL)
                : call == 3 ? sinpe_enqueue_table_rows(t, q, 1000, ROWS, out, 0, 0, SINPE_F32, 0,
                                                       NULL, NULL)
                            : sinpe_enqueue_rope(t, q, &r, 0, NULL, NULL);
            int done = tu_fail_allocations == 1; /* no allocation was left to fail */
            tu_fail_allocations = 0, tu_fail_skip = 0;
            TU_CL(clFinish(q));
            float *got = tu_read_floats(q, out, ROWS * DIM);
            tu_read(q, bad, 0, sizeof zero, &zero);
            sinpe_table_release(t);
            TU_RELEASE(NULL, NULL, NULL, out, bad);
            if (done) {
                TU_OK(st);
                free(got);
                break;
            }
            ck_assert_msg(st == CL_MEM_OBJECT_ALLOCATION_FAILURE && tu_launches == launches,
                          "call %d, allocation %d failing: status %d, %ld launches", call, k,
                          (int)st, tu_launches - launches);
            ck_assert_msg(zero == 0, "call %d: the bad-id counter reads %d", call, (int)zero);
            tu_check_all_poison(got, ROWS * DIM, "the output of a call that failed");
            free(got);
            failed++;
        }
    /* Rows and anchors for embed, add; positions; anchors for the rows. */
    ck_assert_msg(failed >= 6, "only %d allocations failed", failed);
    TU_RELEASE(NULL, NULL, NULL, ids2_m);
}
END_TEST

TU_SUITE(errors, 91)
{
    Suite *s = suite_create("errors");

    TCase *tc = tu_tcase(s, "enqueue", NULL);
    tcase_add_checked_fixture(tc, setup, teardown);
    TU_ADD(tc, baseline_is_valid, null_handles, null_buffers, shape_zero_counts,
           shape_strides_below_dim, shape_over_int_range);
    tcase_add_loop_test(tc, buffer_too_small, 0, 12);
    TU_ADD(tc, buffer_positions_broadcast_extent, buffer_exact_size_accepted,
           wait_list_inconsistent, wait_list_event_of_other_context, queue_from_other_context);
    tcase_add_loop_test(tc, buffer_from_other_context, 0, 5);
    TU_ADD(tc, table_from_other_context_with_queue, embed_host_checks_before_upload,
           last_error_cleared_by_every_call, last_error_kept_by_describing_calls,
           accessors_given_null, device_selector_empty_is_default);
    tcase_add_loop_test(tc, table_rows_any_int32_row0, 0, 3);
    tcase_add_test(tc, calls_keep_no_event);

    tc = tu_tcase(s, "spec", NULL);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, spec_invalid, 0, N_BAD_SPECS);
    TU_ADD(tc, spec_valid_edges, table_null_arguments, table_too_large, table_growth_out_of_memory,
           call_out_of_memory_enqueues_nothing);
    return s;
}
