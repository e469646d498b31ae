/* test_context.c -- device selection, math paths, contexts made inside the
 * host's own cl_context, accessors and lifetimes. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Helpers ---- */

static void get_info_str(cl_device_id dev, cl_platform_id plat, char *buf, size_t size,
                         int platform_name)
{
    buf[0] = '\0';
    if (platform_name)
        TU_CL(clGetPlatformInfo(plat, CL_PLATFORM_NAME, size, buf, NULL));
    else
        TU_CL(clGetDeviceInfo(dev, CL_DEVICE_NAME, size, buf, NULL));
    buf[size - 1] = '\0';
}

/* Whether a PoCL platform is installed; the name selectors below need it. */
static int have_pocl(void)
{
    cl_platform_id plats[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, plats, &n) != CL_SUCCESS)
        return 0;
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[256];
        get_info_str(NULL, plats[i], name, sizeof name, 1);
        if (tu_contains_nocase(name, "portable"))
            return 1;
    }
    return 0;
}

/* The first device of the first platform: what "0:0" names. */
static cl_device_id device_0_0(cl_platform_id *plat)
{
    cl_device_id dev = NULL;
    cl_uint n = 0;
    TU_CL(clGetPlatformIDs(1, plat, &n));
    ck_assert_uint_ge(n, 1);
    TU_CL(clGetDeviceIDs(*plat, CL_DEVICE_TYPE_ALL, 1, &dev, &n));
    ck_assert_uint_ge(n, 1);
    return dev;
}

/* Asserts that the last call left no message; after names it. */
static void no_message(const char *after)
{
    ck_assert_msg(sinpe_last_error()[0] == '\0', "\"%s\" after %s", sinpe_last_error(), after);
}

static sinpe_status create_with(const char *device, sinpe_math math, sinpe_context **ctx)
{
    sinpe_context_options o;
    sinpe_context_options_init(&o);
    o.device = device;
    o.math = math;
    *ctx = NULL;
    return sinpe_context_create(&o, ctx);
}

/* ---- Device selection ---- */

START_TEST(create_default_device)
{
    /* Without a selector: the first GPU, else accelerator, else CPU. */
    unsetenv("SINPE_DEVICE");
    cl_platform_id plats[16];
    cl_uint np = 0;
    TU_CL(clGetPlatformIDs(16, plats, &np));
    cl_device_type have = 0;
    for (cl_uint i = 0; i < np && i < 16; i++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint j = 0; j < nd && j < 16; j++) {
            cl_device_type t = 0;
            TU_CL(clGetDeviceInfo(devs[j], CL_DEVICE_TYPE, sizeof t, &t, NULL));
            have |= t;
        }
    }
    cl_device_type want = (have & CL_DEVICE_TYPE_GPU)           ? CL_DEVICE_TYPE_GPU
                          : (have & CL_DEVICE_TYPE_ACCELERATOR) ? CL_DEVICE_TYPE_ACCELERATOR
                                                                : CL_DEVICE_TYPE_CPU;

    sinpe_context *ctx = NULL;
    TU_OK(sinpe_context_create(NULL, &ctx));
    ck_assert_ptr_nonnull(ctx);
    cl_device_type got = 0;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_TYPE, sizeof got, &got, NULL));
    ck_assert_msg(got & want, "default device has type 0x%llx, expected 0x%llx",
                  (unsigned long long)got, (unsigned long long)want);
    ck_assert_int_eq(sinpe_context_math(ctx), SINPE_MATH_FLOAT);
    no_message("a default create");
    sinpe_context_release(ctx);
}
END_TEST

static const char *const good_selectors[] = {"pthread", "PThread", "portable", "0:0"};

START_TEST(create_with_selector)
{
    const char *sel = good_selectors[_i];
    if (!have_pocl() && strcmp(sel, "0:0") != 0) {
        printf("create_with_selector: no PoCL platform, \"%s\" not tried\n", sel);
        return;
    }
    sinpe_context *ctx = NULL;
    sinpe_status st = create_with(sel, SINPE_MATH_AUTO, &ctx);
    ck_assert_msg(st == SINPE_SUCCESS, "device \"%s\": %d (%s): %s", sel, (int)st,
                  sinpe_status_string(st), sinpe_last_error());
    cl_device_id dev = sinpe_context_device(ctx);
    cl_platform_id plat = NULL;
    TU_CL(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL));
    if (strcmp(sel, "0:0") == 0) {
        cl_platform_id p0;
        cl_device_id d0 = device_0_0(&p0);
        ck_assert_msg(dev == d0 && plat == p0, "\"0:0\" picked another device");
    } else {
        char dname[512], pname[512];
        get_info_str(dev, plat, dname, sizeof dname, 0);
        get_info_str(dev, plat, pname, sizeof pname, 1);
        ck_assert_msg(tu_contains_nocase(dname, sel) || tu_contains_nocase(pname, sel),
                      "\"%s\" picked device \"%s\" of platform \"%s\"", sel, dname, pname);
    }
    sinpe_context_release(ctx);
}
END_TEST

/* Selectors of no device, and a malformed one. */
static const struct {
    const char *sel;
    sinpe_status want;
} bad_selectors[] = {{"9:9", SINPE_DEVICE_NOT_FOUND},
                     {"0:99", SINPE_DEVICE_NOT_FOUND},
                     {"nonexistent-device", SINPE_DEVICE_NOT_FOUND},
                     {"1:", SINPE_INVALID_OPTION}};

START_TEST(create_selector_refused)
{
    const char *sel = bad_selectors[_i].sel;
    sinpe_context *ctx = NULL;
    TU_STATUS(create_with(sel, SINPE_MATH_AUTO, &ctx), bad_selectors[_i].want);
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "no message for device \"%s\"", sel);
}
END_TEST

START_TEST(create_selector_from_environment)
{
    /* options.device NULL reads SINPE_DEVICE; a non-NULL one overrides it. */
    static const char *const name[] = {"SINPE_DEVICE"};
    char *saved[1];
    tu_env_save(name, 1, saved);
    sinpe_context *ctx = NULL;

    ck_assert_int_eq(setenv("SINPE_DEVICE", "nonexistent-device", 1), 0);
    TU_STATUS(sinpe_context_create(NULL, &ctx), SINPE_DEVICE_NOT_FOUND);
    TU_STATUS(create_with(NULL, SINPE_MATH_AUTO, &ctx), SINPE_DEVICE_NOT_FOUND);

    ck_assert_int_eq(setenv("SINPE_DEVICE", "1:", 1), 0);
    TU_STATUS(sinpe_context_create(NULL, &ctx), SINPE_INVALID_OPTION);

    ck_assert_int_eq(setenv("SINPE_DEVICE", "nonexistent-device", 1), 0);
    TU_OK(create_with("0:0", SINPE_MATH_AUTO, &ctx));
    sinpe_context_release(ctx);

    ck_assert_int_eq(setenv("SINPE_DEVICE", "0:0", 1), 0);
    TU_OK(sinpe_context_create(NULL, &ctx));
    cl_platform_id p0;
    ck_assert_msg(sinpe_context_device(ctx) == device_0_0(&p0),
                  "SINPE_DEVICE=0:0 picked another device");
    sinpe_context_release(ctx);

    tu_env_restore(name, 1, saved);
}
END_TEST

/* ---- Math paths ---- */

START_TEST(create_math_paths)
{
    static const sinpe_math asked[] = {SINPE_MATH_FLOAT, SINPE_MATH_FP64, SINPE_MATH_AUTO};
    static const sinpe_math reported[] = {SINPE_MATH_FLOAT, SINPE_MATH_FP64, SINPE_MATH_FLOAT};
    sinpe_context *ctx = NULL;
    sinpe_status st = create_with(NULL, asked[_i], &ctx);
    if (asked[_i] == SINPE_MATH_FP64 && st == SINPE_UNSUPPORTED) {
        /* Only acceptable on a device without fp64. */
        sinpe_context *probe = tu_context(SINPE_MATH_FLOAT);
        ck_assert_msg(!tu_device_has_fp64(sinpe_context_device(probe)),
                      "SINPE_MATH_FP64 refused on a device with cl_khr_fp64: %s",
                      sinpe_last_error());
        sinpe_context_release(probe);
        return;
    }
    ck_assert_msg(st == SINPE_SUCCESS, "math %d: %d (%s): %s", (int)asked[_i], (int)st,
                  sinpe_status_string(st), sinpe_last_error());
    ck_assert_msg(sinpe_context_math(ctx) == reported[_i], "math %d reported as %d",
                  (int)asked[_i], (int)sinpe_context_math(ctx));
    sinpe_context_release(ctx);
}
END_TEST

/* ---- Host-owned cl_context ---- */

START_TEST(create_from_cl_outlives_host_references)
{
    cl_platform_id plat;
    cl_device_id dev = device_0_0(&plat);
    cl_context clctx = tu_cl_context(dev);

    sinpe_context_options o;
    sinpe_context_options_init(&o);
    o.math = _i == 0 ? SINPE_MATH_FLOAT : SINPE_MATH_FP64;
    if (o.math == SINPE_MATH_FP64 && !tu_device_has_fp64(dev)) {
        clReleaseContext(clctx);
        return;
    }
    sinpe_context *ctx = NULL;
    TU_OK(sinpe_context_create_from_cl(clctx, dev, &o, &ctx));
    ck_assert_msg(sinpe_context_cl_context(ctx) == clctx, "not the host's cl_context");
    ck_assert_msg(sinpe_context_device(ctx) == dev, "not the host's device");
    ck_assert_int_eq(sinpe_context_math(ctx), o.math);

    /* The host lets go of everything it made; sinpe holds its own references. */
    TU_CL(clReleaseContext(clctx));
    TU_CL(clReleaseDevice(dev));

    tu_check_context_works(ctx);
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(create_from_cl_device_not_in_context)
{
    /* A sub-device is not part of a context made for its parent. */
    cl_platform_id plat;
    cl_device_id dev = device_0_0(&plat);
    cl_uint units = 0;
    TU_CL(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
    cl_device_partition_property part[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_device_id sub[64];
    cl_uint nsub = 0;
    if (units < 2 || clCreateSubDevices(dev, part, 64, sub, &nsub) != CL_SUCCESS || nsub == 0) {
        printf("create_from_cl_device_not_in_context: no sub-devices here, not tried\n");
        return;
    }
    cl_context clctx = tu_cl_context(dev);
    sinpe_context *ctx = NULL;
    TU_STATUS(sinpe_context_create_from_cl(clctx, sub[0], NULL, &ctx), SINPE_CONTEXT_MISMATCH);
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "no message for a foreign device");

    clReleaseContext(clctx);
    for (cl_uint i = 0; i < nsub && i < 64; i++)
        clReleaseDevice(sub[i]);
}
END_TEST

START_TEST(create_from_cl_null_arguments)
{
    cl_platform_id plat;
    cl_device_id dev = device_0_0(&plat);
    cl_context clctx = tu_cl_context(dev);
    sinpe_context *ctx = NULL;
    TU_STATUS(sinpe_context_create_from_cl(NULL, dev, NULL, &ctx), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_context_create_from_cl(clctx, NULL, NULL, &ctx), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_context_create_from_cl(clctx, dev, NULL, NULL), SINPE_NULL_ARGUMENT);
    clReleaseContext(clctx);
}
END_TEST

/* ---- Accessors and lifetime ---- */

START_TEST(context_queue_properties)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = sinpe_context_queue(ctx);
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_nonnull(sinpe_context_cl_context(ctx));
    ck_assert_ptr_nonnull(sinpe_context_device(ctx));

    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    TU_CL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL));
    TU_CL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL));
    TU_CL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    ck_assert_msg(qctx == sinpe_context_cl_context(ctx), "queue of another cl_context");
    ck_assert_msg(qdev == sinpe_context_device(ctx), "queue of another device");
    ck_assert_msg(props & CL_QUEUE_PROFILING_ENABLE, "queue without profiling");
    ck_assert_msg(!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), "queue is out of order");

    cl_uint ndev = 0;
    cl_device_id cdev = NULL;
    TU_CL(clGetContextInfo(sinpe_context_cl_context(ctx), CL_CONTEXT_NUM_DEVICES, sizeof ndev,
                           &ndev, NULL));
    ck_assert_uint_ge(ndev, 1);
    if (ndev == 1) {
        TU_CL(clGetContextInfo(sinpe_context_cl_context(ctx), CL_CONTEXT_DEVICES, sizeof cdev,
                               &cdev, NULL));
        ck_assert_msg(cdev == sinpe_context_device(ctx), "device not in the cl_context");
    }
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(context_lives_while_tables_do)
{
    /* Releasing the context first keeps it alive for its tables. */
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_spec spec = tu_spec(16, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 1e4, 1.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, 8);
    cl_command_queue q = tu_queue(ctx); /* retains the cl_context for us */
    cl_context clctx = sinpe_context_cl_context(ctx);
    TU_CL(clRetainContext(clctx));
    sinpe_context_release(ctx);

    enum { SL = 20 };
    double ref[SL * 16];
    float host[SL * 16];
    int32_t ids[SL] = {0};
    float w[16] = {0};
    tu_ref_embed(&spec, 1, SL, ids, w, 0, 16, 1, 1.0f, 0, NULL, 0, 1, ref);

    /* The host call runs on the (released) context's own queue. */
    tu_fill_poison(host, SL * 16);
    TU_OK(sinpe_embed_host(tab, ids, 1, SL, w, 1, 1.0f, 0, NULL, host));
    tu_check_rows(host, 0, 16, SL, 16, ref, TU_EMBED_TOL, TU_EMBED_TOL,
                  "embed_host after context release");

    /* Growth still works: it needs the context's programs and queue. */
    TU_OK(sinpe_table_reserve(tab, 100));
    ck_assert_uint_ge(sinpe_table_rows(tab), 100);

    float zeros[SL * 16] = {0};
    cl_int err;
    cl_mem out = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zeros,
                                zeros, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    sinpe_embed_args a = tu_args(1, SL, NULL, NULL, 0, out);
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
    float *got = tu_read_floats(q, out, SL * 16);
    tu_check_rows(got, 0, 16, SL, 16, ref, TU_PE_TOL, 0.0, "add_positions after context release");
    free(got);
    TU_RELEASE(NULL, q, tab, out);
    clReleaseContext(clctx);
}
END_TEST

START_TEST(released_objects_hold_nothing)
{
    /* Once a context, its tables and the host's buffers are released, every
     * buffer, kernel and event reference taken since was given back: every
     * call with an event, positions past a table (the lent scratch), growth,
     * rows, timesteps and a rotation. */
    enum { DIM = 16, SL = 40 };
    const tu_refs refs0 = tu_refs_now();
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, DIM, 8), *rope = NULL;
    sinpe_rope_spec rs;
    sinpe_rope_spec_init(&rs, DIM);
    TU_OK(sinpe_rope_table_create(ctx, &rs, 8, &rope));
    int32_t ids[SL] = {0};
    float w[DIM] = {0}, ts[SL] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem ts_m = tu_buffer(ctx, sizeof ts, ts), out = tu_zero_buffer(ctx, SL * DIM);
    sinpe_embed_args a = tu_args(1, SL, ids_m, w_m, 1, out);
    a.start = 100; /* past the table's rows */
    sinpe_rope_args r;
    sinpe_rope_args_init(&r);
    r.n_seqs = 1, r.seq_len = SL, r.head_dim = DIM, r.q = out, r.q_heads = 1;
    cl_event ev[7] = {NULL};
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, &ev[0]));
    TU_OK(sinpe_enqueue_gather(tab, q, &a, 0, NULL, &ev[1]));
    TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, &ev[2]));
    TU_OK(sinpe_enqueue_table_rows(tab, q, 1000, SL, out, 0, 0, SINPE_F32, 0, NULL, &ev[3]));
    TU_OK(sinpe_enqueue_timesteps(tab, q, ts_m, 0, SL, out, 0, 0, SINPE_F32, 0, NULL, &ev[4]));
    TU_OK(sinpe_enqueue_rope(rope, q, &r, 0, NULL, &ev[5]));
    TU_OK(sinpe_table_reserve(tab, 300));
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, &ev[6]));
    TU_CL(clWaitForEvents(7, ev));
    for (int i = 0; i < 7; i++)
        TU_CL(clReleaseEvent(ev[i]));
    sinpe_table_release(rope);
    TU_RELEASE(ctx, q, tab, ids_m, w_m, ts_m, out);
    tu_refs_returned(refs0, "a context's life");
}
END_TEST

START_TEST(host_allocations_fail_in_turn)
{
    /* Each host allocation (malloc, calloc, realloc) failing in turn
     * through a context's life (with a quantized type's program and a rotary
     * spec's attention factor): every call returns success or
     * SINPE_OUT_OF_HOST_MEMORY (a failed call's status stands even when its
     * message cannot be allocated), and once what was made is released,
     * every buffer, kernel and event is given back.  The steps after a
     * failed one are not run; the walk ends when nothing failed.  A
     * context and its SINPE_I8 program are made once before the walk, so
     * that where sinpe's program cache is in use (tests/main.c: not on
     * pocl, which caches its own builds) every context of the walk finds
     * its programs there, and a failed allocation costs no build from
     * source (src/cache.c): a compiler without a cache of its own (Intel's)
     * takes over a minute to build a context's programs. */
    enum { DIM = 16, SL = 40, STEPS = 10 };
    int k = 0, failed = 0;
    sinpe_context *warm = NULL;
    TU_OK(sinpe_context_create(NULL, &warm));
    TU_OK(sinpe_context_prepare(warm, SINPE_I8));
    sinpe_context_release(warm);
    for (;; k++) {
        const tu_refs refs0 = tu_refs_now();
        sinpe_context *ctx = NULL;
        sinpe_table *tab = NULL, *rope = NULL;
        cl_command_queue q = NULL;
        cl_mem out = NULL, ts = NULL;
        sinpe_spec spec;
        sinpe_rope_spec rs;
        sinpe_embed_args a;
        sinpe_rope_args r;
        sinpe_status st[STEPS];
        double att = 0.0;
        int n = 0;
        sinpe_spec_init(&spec, DIM);
        sinpe_rope_spec_init(&rs, DIM);
        sinpe_embed_args_init(&a);
        sinpe_rope_args_init(&r);
        tu_fail_host_skip = k, tu_fail_host = 1; /* tests/fault.c */
        st[n++] = sinpe_context_create(NULL, &ctx);
        if (st[n - 1] == SINPE_SUCCESS) {
            cl_context clctx = sinpe_context_cl_context(ctx);
            q = clCreateCommandQueue(clctx, sinpe_context_device(ctx), 0, NULL);
            out = clCreateBuffer(clctx, CL_MEM_READ_WRITE, SL * DIM * 4, NULL, NULL);
            ts = clCreateBuffer(clctx, CL_MEM_READ_WRITE, SL * 4, NULL, NULL);
        }
        a.n_seqs = 1, a.seq_len = SL, a.out = out, a.start = 1000; /* past the rows */
        r.n_seqs = 1, r.seq_len = SL, r.head_dim = DIM, r.q = out, r.q_heads = 1;
        /* Each step runs while every step before it succeeded. */
#define STEP(call) if (st[n - 1] == SINPE_SUCCESS) st[n++] = (call)
        STEP(sinpe_context_prepare(ctx, SINPE_I8)); /* a program built now */
        STEP(sinpe_table_create(ctx, &spec, 8, &tab));
        STEP(sinpe_rope_frequencies(&rs, NULL, &att));
        STEP(sinpe_rope_table_create(ctx, &rs, 8, &rope));
        STEP(sinpe_enqueue_add_positions(tab, q, &a, 0, NULL, NULL));
        STEP(sinpe_enqueue_rope(rope, q, &r, 0, NULL, NULL));
        STEP(sinpe_table_reserve(tab, 300));
        STEP(sinpe_enqueue_timesteps(tab, q, ts, 0, SL, out, 0, 0, SINPE_F32, 0, NULL, NULL));
        /* a refusal, whose message is allocated */
        STEP(sinpe_table_reserve(NULL, 1) == SINPE_NULL_ARGUMENT ? SINPE_SUCCESS
                                                                 : SINPE_INVALID_OPTION);
#undef STEP
        int done = tu_fail_host == 1; /* no allocation was left to fail */
        tu_fail_host = 0, tu_fail_host_skip = 0;
        if (q)
            TU_CL(clFinish(q));
        sinpe_table_release(rope);
        TU_RELEASE(ctx, q, tab, out, ts);
        for (int i = 0; i < n; i++)
            ck_assert_msg(st[i] == SINPE_SUCCESS || (st[i] == SINPE_OUT_OF_HOST_MEMORY && i == n - 1),
                          "allocation %d failing: step %d returned %d (%s)", k, i, (int)st[i],
                          sinpe_status_string(st[i]));
        failed += st[n - 1] != SINPE_SUCCESS;
        tu_refs_returned(refs0, "a context's life, host allocations failing");
        if (done)
            break;
    }
    printf("host allocations: %d failed in turn, %d of them failed their call\n", k, failed);
    ck_assert_msg(failed > 0, "no allocation failure reached a caller");
}
END_TEST

START_TEST(last_error_cleared_by_success)
{
    sinpe_context *ctx = NULL;
    sinpe_table *tab = NULL;
    sinpe_spec spec;
    sinpe_spec_init(&spec, 8);
    TU_STATUS(sinpe_table_create(NULL, &spec, 1, &tab), SINPE_NULL_ARGUMENT);
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "no message after a failure");

    TU_OK(sinpe_context_create(NULL, &ctx));
    no_message("a successful create");

    spec.dim = 0;
    TU_STATUS(sinpe_table_create(ctx, &spec, 1, &tab), SINPE_INVALID_SPEC);
    TU_MESSAGE_HAS("dim");

    spec.dim = 8;
    TU_OK(sinpe_table_create(ctx, &spec, 1, &tab));
    no_message("a successful table create");

    TU_STATUS(sinpe_table_reserve(NULL, 4), SINPE_NULL_ARGUMENT);
    TU_OK(sinpe_table_reserve(tab, 0));
    no_message("a successful reserve");

    sinpe_table_release(tab);
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(build_failure_returns_the_log)
{
    /* A program that cannot compile: the status says so, and the message
     * carries the compiler's log, which names the offending identifier. */
    char path[] = "/tmp/sinpe-src-XXXXXX";
    tu_temp_file(path, "kernel void k(global float *x) { x[0] = no_such_symbol_q7; }\n");
    setenv("SINPE_KERNEL_SOURCE", path, 1);
    sinpe_context *ctx = (sinpe_context *)0x1;
    TU_STATUS(sinpe_context_create(NULL, &ctx), SINPE_BUILD_FAILED);
    ck_assert_msg(ctx == NULL, "a failed create left a handle");
    TU_MESSAGE_HAS("no_such_symbol_q7");
    unsetenv("SINPE_KERNEL_SOURCE");
    unlink(path);
}
END_TEST

START_TEST(kernel_source_override)
{
    /* kernels/sinpe.cl from disk, the program's other files found beside
     * it, makes a working context; an unreadable path is an option error. */
    FILE *f = fopen("kernels/sinpe.cl", "rb");
    ck_assert_msg(f != NULL, "kernels/sinpe.cl not found: run the tests from the repository root");
    fclose(f);
    setenv("SINPE_KERNEL_SOURCE", "kernels/sinpe.cl", 1);
    sinpe_context *ctx = NULL;
    TU_OK(sinpe_context_create(NULL, &ctx));
    sinpe_table *tab = tu_table(ctx, 6, 3);
    ck_assert_uint_eq(sinpe_table_spec(tab).dim, 6);
    sinpe_table_release(tab);
    sinpe_context_release(ctx);

    setenv("SINPE_KERNEL_SOURCE", "/nonexistent/sinpe/kernels.cl", 1);
    TU_STATUS(sinpe_context_create(NULL, &ctx), SINPE_INVALID_OPTION);
    TU_MESSAGE_HAS("SINPE_KERNEL_SOURCE");
    unsetenv("SINPE_KERNEL_SOURCE");
}
END_TEST

TU_SUITE(context, 113)
{
    Suite *s = suite_create("context");

    TCase *tc = tu_tcase(s, "select", NULL);
    tcase_add_test(tc, create_default_device);
    tcase_add_loop_test(tc, create_with_selector, 0,
                        (int)(sizeof good_selectors / sizeof good_selectors[0]));
    tcase_add_loop_test(tc, create_selector_refused, 0,
                        (int)(sizeof bad_selectors / sizeof bad_selectors[0]));
    tcase_add_test(tc, create_selector_from_environment);
    tcase_add_loop_test(tc, create_math_paths, 0, 3);

    tc = tu_tcase(s, "from_cl", NULL);
    tcase_add_loop_test(tc, create_from_cl_outlives_host_references, 0, 2);
    TU_ADD(tc, create_from_cl_device_not_in_context, create_from_cl_null_arguments);

    tc = tu_tcase(s, "lifetime", NULL);
    TU_ADD(tc, context_queue_properties, context_lives_while_tables_do,
           released_objects_hold_nothing, host_allocations_fail_in_turn,
           last_error_cleared_by_success, build_failure_returns_the_log);

    /* Tag "cold": built from source on purpose (no program cache serves an
       overridden source), 92 to 227 s on Intel's compiler. */
    tc = tu_tcase(s, "source", "cold");
    tcase_add_test(tc, kernel_source_override);

    suite_add_tcase(s, tcase_quiet());
    return s;
}
