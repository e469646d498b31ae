/* test_status.c -- status codes and texts, the version, the per-thread last
 * error and the *_init() defaults.  Nothing here needs an OpenCL device. */
#include "test_util.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct {
    sinpe_status code;
    const char *name;
    const char *text;
} own_codes[] = {
#define X(name, value, text) {SINPE_##name, #name, text},
    SINPE_STATUS_MAP(X)
#undef X
};
#define N_OWN (sizeof own_codes / sizeof own_codes[0])

START_TEST(status_codes_are_pinned)
{
    /* Released codes keep their values: a changed number breaks callers. */
    static const struct {
        sinpe_status code;
        int value;
    } pinned[] = {
        {SINPE_SUCCESS, 0},                {SINPE_NULL_ARGUMENT, -2001},
        {SINPE_INVALID_SPEC, -2002},       {SINPE_INVALID_SHAPE, -2003},
        {SINPE_BUFFER_TOO_SMALL, -2004},   {SINPE_INVALID_WAIT_LIST, -2005},
        {SINPE_CONTEXT_MISMATCH, -2006},   {SINPE_ID_OUT_OF_RANGE, -2007},
        {SINPE_DEVICE_NOT_FOUND, -2008},   {SINPE_BUILD_FAILED, -2009},
        {SINPE_OUT_OF_HOST_MEMORY, -2010}, {SINPE_TOO_LARGE, -2011},
        {SINPE_UNSUPPORTED, -2012},        {SINPE_INVALID_OPTION, -2013},
        {SINPE_UNKNOWN_PRESET, -2014},     {SINPE_INVALID_DTYPE, -2015},
        {SINPE_INVALID_PAD, -2016},        {SINPE_IO_ERROR, -2017},
        {SINPE_INVALID_STRUCT_SIZE, -2018}, {SINPE_BUFFERS_OVERLAP, -2019},
    };
    ck_assert_uint_eq(N_OWN, sizeof pinned / sizeof pinned[0]);
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
        ck_assert_msg((int)pinned[i].code == pinned[i].value, "code %zu is %d, pinned at %d", i,
                      (int)pinned[i].code, pinned[i].value);
    for (size_t i = 1; i < N_OWN; i++)
        ck_assert_msg((int)own_codes[i].code <= -2001 && (int)own_codes[i].code >= -2099,
                      "SINPE_%s = %d lies outside [-2099, -2001]", own_codes[i].name,
                      (int)own_codes[i].code);
}
END_TEST

START_TEST(status_strings_distinct_and_match_header)
{
    for (size_t i = 0; i < N_OWN; i++) {
        const char *s = sinpe_status_string(own_codes[i].code);
        ck_assert_msg(s && s[0] && strcmp(s, own_codes[i].text) == 0,
                      "SINPE_%s reads \"%s\", header says \"%s\"", own_codes[i].name,
                      s ? s : "(null)", own_codes[i].text);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(s, sinpe_status_string(own_codes[j].code)) != 0,
                          "SINPE_%s and SINPE_%s share the string \"%s\"", own_codes[i].name,
                          own_codes[j].name, s);
    }
}
END_TEST

START_TEST(status_string_names_opencl_codes)
{
    /* Every OpenCL 1.2 error code gives its own CL_* name. */
    static const struct {
        cl_int code;
        const char *name;
    } cl_codes[] = {
#define CLN(c) {c, #c}
        CLN(CL_DEVICE_NOT_FOUND), CLN(CL_DEVICE_NOT_AVAILABLE), CLN(CL_COMPILER_NOT_AVAILABLE),
        CLN(CL_MEM_OBJECT_ALLOCATION_FAILURE), CLN(CL_OUT_OF_RESOURCES),
        CLN(CL_OUT_OF_HOST_MEMORY), CLN(CL_PROFILING_INFO_NOT_AVAILABLE),
        CLN(CL_MEM_COPY_OVERLAP), CLN(CL_IMAGE_FORMAT_MISMATCH),
        CLN(CL_IMAGE_FORMAT_NOT_SUPPORTED), CLN(CL_BUILD_PROGRAM_FAILURE), CLN(CL_MAP_FAILURE),
        CLN(CL_MISALIGNED_SUB_BUFFER_OFFSET), CLN(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        CLN(CL_COMPILE_PROGRAM_FAILURE), CLN(CL_LINKER_NOT_AVAILABLE),
        CLN(CL_LINK_PROGRAM_FAILURE), CLN(CL_DEVICE_PARTITION_FAILED),
        CLN(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), CLN(CL_INVALID_VALUE),
        CLN(CL_INVALID_DEVICE_TYPE), CLN(CL_INVALID_PLATFORM), CLN(CL_INVALID_DEVICE),
        CLN(CL_INVALID_CONTEXT), CLN(CL_INVALID_QUEUE_PROPERTIES),
        CLN(CL_INVALID_COMMAND_QUEUE), CLN(CL_INVALID_HOST_PTR), CLN(CL_INVALID_MEM_OBJECT),
        CLN(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), CLN(CL_INVALID_IMAGE_SIZE),
        CLN(CL_INVALID_SAMPLER), CLN(CL_INVALID_BINARY), CLN(CL_INVALID_BUILD_OPTIONS),
        CLN(CL_INVALID_PROGRAM), CLN(CL_INVALID_PROGRAM_EXECUTABLE),
        CLN(CL_INVALID_KERNEL_NAME), CLN(CL_INVALID_KERNEL_DEFINITION), CLN(CL_INVALID_KERNEL),
        CLN(CL_INVALID_ARG_INDEX), CLN(CL_INVALID_ARG_VALUE), CLN(CL_INVALID_ARG_SIZE),
        CLN(CL_INVALID_KERNEL_ARGS), CLN(CL_INVALID_WORK_DIMENSION),
        CLN(CL_INVALID_WORK_GROUP_SIZE), CLN(CL_INVALID_WORK_ITEM_SIZE),
        CLN(CL_INVALID_GLOBAL_OFFSET), CLN(CL_INVALID_EVENT_WAIT_LIST), CLN(CL_INVALID_EVENT),
        CLN(CL_INVALID_OPERATION), CLN(CL_INVALID_GL_OBJECT), CLN(CL_INVALID_BUFFER_SIZE),
        CLN(CL_INVALID_MIP_LEVEL), CLN(CL_INVALID_GLOBAL_WORK_SIZE), CLN(CL_INVALID_PROPERTY),
        CLN(CL_INVALID_IMAGE_DESCRIPTOR), CLN(CL_INVALID_COMPILER_OPTIONS),
        CLN(CL_INVALID_LINKER_OPTIONS), CLN(CL_INVALID_DEVICE_PARTITION_COUNT),
#undef CLN
    };
    for (size_t i = 0; i < sizeof cl_codes / sizeof cl_codes[0]; i++) {
        const char *s = sinpe_status_string((sinpe_status)cl_codes[i].code);
        ck_assert_msg(s && strcmp(s, cl_codes[i].name) == 0, "code %d gives \"%s\", expected \"%s\"",
                      (int)cl_codes[i].code, s ? s : "(null)", cl_codes[i].name);
    }
}
END_TEST

START_TEST(status_string_unknown_codes)
{
    /* Neither sinpe's (unassigned values of its range included) nor OpenCL's. */
    static const int unknown[] = {-2000, -2050, -2099, -2100, -3000, -100000, 1, 7, 2001};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = sinpe_status_string((sinpe_status)unknown[i]);
        ck_assert_msg(s && strcmp(s, "unknown status") == 0,
                      "code %d gives \"%s\", the header promises \"unknown status\"", unknown[i],
                      s ? s : "(null)");
    }
}
END_TEST

START_TEST(version_matches_macros)
{
    char expect[64];
    ck_assert_uint_eq(sinpe_version_number(), SINPE_VERSION_NUMBER);
    ck_assert_uint_eq(SINPE_VERSION_NUMBER, SINPE_VERSION_MAJOR * 10000u +
                                                SINPE_VERSION_MINOR * 100u + SINPE_VERSION_PATCH);
    snprintf(expect, sizeof expect, "%d.%d.%d", SINPE_VERSION_MAJOR, SINPE_VERSION_MINOR,
             SINPE_VERSION_PATCH);
    ck_assert_ptr_nonnull(sinpe_version_string());
    ck_assert_str_eq(sinpe_version_string(), expect);
}
END_TEST

/* ---- Last error ---- */

typedef struct thread_result {
    const char *before;  /* last error on the fresh thread, copied */
    char before_copy[256];
    sinpe_status status; /* of the thread's own failing call */
    char after[512];     /* last error after it */
} thread_result;

static void *other_thread(void *arg)
{
    thread_result *res = arg;
    const char *s = sinpe_last_error();
    res->before = s;
    snprintf(res->before_copy, sizeof res->before_copy, "%s", s ? s : "(null)");
    res->status = sinpe_table_reserve(NULL, 5);
    s = sinpe_last_error();
    snprintf(res->after, sizeof res->after, "%s", s ? s : "(null)");
    return NULL;
}

START_TEST(last_error_is_per_thread)
{
    const char *s = sinpe_last_error();
    ck_assert_msg(s != NULL, "sinpe_last_error() is NULL");

    sinpe_table *tab = NULL;
    TU_STATUS(sinpe_table_create(NULL, NULL, 0, &tab), SINPE_NULL_ARGUMENT);
    char mine[512];
    s = sinpe_last_error();
    ck_assert_msg(s != NULL && s[0] != '\0', "no message after a failed call");
    snprintf(mine, sizeof mine, "%s", s);

    thread_result res;
    memset(&res, 0, sizeof res);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, other_thread, &res), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);

    ck_assert_msg(res.before != NULL, "last error is NULL on a fresh thread");
    ck_assert_msg(res.before_copy[0] == '\0',
                  "a fresh thread sees another thread's error: \"%s\"", res.before_copy);
    ck_assert_msg(res.status == SINPE_NULL_ARGUMENT, "reserve(NULL) gave %d (%s)",
                  (int)res.status, sinpe_status_string(res.status));
    ck_assert_msg(res.after[0] != '\0', "no message on the other thread after its failure");
    ck_assert_msg(strcmp(sinpe_last_error(), mine) == 0,
                  "this thread's message changed from \"%s\" to \"%s\" by another thread", mine,
                  sinpe_last_error());
}
END_TEST

START_TEST(null_arguments_without_device)
{
    /* Handles and pointers checked before any OpenCL call. */
    sinpe_context *ctx = NULL;
    sinpe_table *tab = NULL;
    sinpe_spec spec;
    sinpe_embed_args args;
    cl_mem mem = NULL;
    size_t rows = 99;
    int32_t ids[1] = {0};
    float w[4] = {0}, out[4];
    sinpe_spec_init(&spec, 4);
    sinpe_embed_args_init(&args);

    TU_STATUS(sinpe_context_create(NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_context_create_from_cl(NULL, NULL, NULL, &ctx), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_table_create(NULL, &spec, 4, &tab), SINPE_NULL_ARGUMENT);
    ck_assert_msg(strlen(sinpe_last_error()) > 0, "no message for a NULL context");
    TU_STATUS(sinpe_table_reserve(NULL, 4), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_table_borrow(NULL, &mem, &rows), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_enqueue_embed(NULL, NULL, &args, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_enqueue_gather(NULL, NULL, &args, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_enqueue_add_positions(NULL, NULL, &args, 0, NULL, NULL),
              SINPE_NULL_ARGUMENT);
    tu_fill_poison(out, 4);
    TU_STATUS(sinpe_embed_host(NULL, ids, 1, 1, w, 1, 1.0f, 0, NULL, out), SINPE_NULL_ARGUMENT);
    tu_check_all_poison(out, 4, "embed_host(NULL table) output");
    ck_assert_uint_eq(sinpe_table_rows(NULL), 0);

    /* Releasing NULL is a no-op. */
    sinpe_table_release(NULL);
    sinpe_context_release(NULL);
}
END_TEST

/* ---- Defaults ---- */

START_TEST(spec_init_is_the_paper)
{
    sinpe_spec s;
    memset(&s, 0x5A, sizeof s);
    sinpe_spec_init(&s, 4096);
    ck_assert_uint_eq(s.dim, 4096);
    ck_assert_int_eq(s.layout, SINPE_LAYOUT_INTERLEAVED);
    ck_assert_int_eq(s.odd_dim, SINPE_ODD_ZERO_LAST);
    ck_assert_msg(s.base == 10000.0, "base %g", s.base);
    ck_assert_msg(s.shift == 0.0, "shift %g", s.shift);
    ck_assert_msg(s.angle_scale == 1.0, "angle_scale %g", s.angle_scale);
}
END_TEST

/* Every field but token_scale starts zero (NULL, SINPE_F32, SINPE_PAD_NONE,
   SINPE_POSITIONS_INDEX: each 0 in the header's enums). */
START_TEST(embed_args_init_defaults)
{
#define Z(f) {offsetof(sinpe_embed_args, f), sizeof(((sinpe_embed_args *)0)->f), #f}
    static const struct {
        size_t at, size;
        const char *name;
    } zero[] = {
        Z(n_seqs), Z(seq_len), Z(ids), Z(weights), Z(out), Z(positions), Z(bad_ids),
        Z(ids_offset), Z(weights_offset), Z(weights_stride), Z(vocab), Z(out_offset),
        Z(out_stride), Z(positions_offset), Z(bad_ids_offset), Z(start), Z(weights_dtype),
        Z(out_dtype), Z(positions_broadcast), Z(seq_starts), Z(seq_starts_offset),
        Z(pad_counts), Z(pad_counts_offset), Z(position_rule), Z(pad_policy), Z(vocab_shard),
        Z(vocab_start), Z(skip_pe),
    };
#undef Z
    sinpe_embed_args a;
    memset(&a, 0x5A, sizeof a);
    sinpe_embed_args_init(&a);
    ck_assert_msg(a.token_scale == 1.0f, "token_scale %g", (double)a.token_scale);
    ck_assert(SINPE_F32 == 0 && SINPE_POSITIONS_INDEX == 0 && SINPE_PAD_NONE == 0);
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        for (size_t b = 0; b < zero[i].size; b++)
            ck_assert_msg(((const unsigned char *)&a)[zero[i].at + b] == 0, "%s is not zero",
                          zero[i].name);
}
END_TEST

START_TEST(context_options_init_defaults)
{
    sinpe_context_options o;
    memset(&o, 0x5A, sizeof o);
    sinpe_context_options_init(&o);
    ck_assert_int_eq(o.math, SINPE_MATH_AUTO);
    ck_assert_ptr_null(o.device);
}
END_TEST

TU_SUITE(status, 2)
{
    Suite *s = suite_create("status");

    TCase *tc = tcase_create("codes");
    TU_ADD(tc, status_codes_are_pinned, status_strings_distinct_and_match_header,
           status_string_names_opencl_codes, status_string_unknown_codes, version_matches_macros);
    suite_add_tcase(s, tc);

    tc = tcase_create("last_error");
    TU_ADD(tc, last_error_is_per_thread, null_arguments_without_device);
    suite_add_tcase(s, tc);

    tc = tcase_create("defaults");
    TU_ADD(tc, spec_init_is_the_paper, embed_args_init_defaults, context_options_init_defaults);
    suite_add_tcase(s, tc);
    return s;
}
