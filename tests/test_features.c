/* test_features.c -- sinpe_context_features(): each bit says what the
 * device does, found independently here (fp64 from the extension string,
 * recording from whether sinpe_record_embed() accepts a real command
 * buffer), no unknown bit is set, and a NULL context gives 0 with the
 * message the accessors record.  (The version calls against the header's
 * macros: test_status.c.) */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

typedef void *(CL_API_CALL *create_fn)(cl_uint nq, const cl_command_queue *queues,
                                       const cl_ulong *properties, cl_int *err);
typedef cl_int(CL_API_CALL *release_fn)(void *cb);

/* Whether sinpe records on the context's device: a recording of args with
 * n_seqs 0 into a fresh command buffer passes the device checks and stops
 * at the shape (INVALID_SHAPE), or is refused (UNSUPPORTED). */
static int records(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab)
{
    cl_platform_id platform;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_PLATFORM, sizeof platform,
                          &platform, NULL));
    create_fn create = (create_fn)clGetExtensionFunctionAddressForPlatform(
        platform, "clCreateCommandBufferKHR");
    release_fn release = (release_fn)clGetExtensionFunctionAddressForPlatform(
        platform, "clReleaseCommandBufferKHR");
    if (!create || !release)
        return 0;
    cl_int err;
    void *cb = create(1, &q, NULL, &err);
    if (err != CL_SUCCESS)
        return 0;
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    sinpe_status st = sinpe_record_embed(tab, q, cb, &a, 0, NULL, NULL);
    release(cb);
    ck_assert_msg(st == SINPE_INVALID_SHAPE || st == SINPE_UNSUPPORTED,
                  "sinpe_record_embed with n_seqs 0: %d (%s)", (int)st, sinpe_last_error());
    return st == SINPE_INVALID_SHAPE;
}

START_TEST(features_match_device)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_table *tab = tu_table(ctx, 8, 4);

    unsigned f = sinpe_context_features(ctx);
    ck_assert_str_eq(sinpe_last_error(), "");
    int fp64 = tu_device_has_fp64(sinpe_context_device(ctx));
    int rec = records(ctx, q, tab);
    printf("features: 0x%x; the device reports fp64 %d, sinpe records on it %d\n", f, fp64,
           rec);
    unsigned want = (fp64 ? (unsigned)SINPE_FEATURE_FP64 : 0u) |
                    (rec ? (unsigned)SINPE_FEATURE_COMMAND_BUFFER : 0u);
    ck_assert_uint_eq(f, want);
    /* Asking again changes nothing and records no failure. */
    ck_assert_uint_eq(sinpe_context_features(ctx), want);
    ck_assert_str_eq(sinpe_last_error(), "");

    tu_release(ctx, q, tab, NULL, 0);
}
END_TEST

START_TEST(features_null_context)
{
    ck_assert_uint_eq(sinpe_context_features(NULL), 0);
    ck_assert_str_eq(sinpe_last_error(), "context is NULL");
}
END_TEST

/* The bits are part of the ABI: hosts test them by value. */
START_TEST(feature_values_pinned)
{
    ck_assert_int_eq(SINPE_FEATURE_FP64, 1);
    ck_assert_int_eq(SINPE_FEATURE_COMMAND_BUFFER, 2);
}
END_TEST

TU_SUITE(features, 4)
{
    Suite *s = suite_create("features");
    TCase *tc = tu_tcase(s, "features", NULL);
    TU_ADD(tc, features_match_device, features_null_context, feature_values_pinned);
    return s;
}
