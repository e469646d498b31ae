/* test_types.c -- the storage-type table's public query, and the structs
 * that grow (include/sinpe.h, "Structs that grow"): sizes the library
 * refuses, callers with a newer header's longer structs, 0.1 layouts, and
 * the tuning records the documentation quotes.  The 0.1 program itself
 * runs in check-abi (tests/abi/old_caller.c). */
#include "test_util.h"

#include "sinpe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xA5
#define EXTRA 64 /* bytes a newer header might have appended */

/* Whether the n bytes at p are all byte. */
static int all_bytes(const unsigned char *p, size_t n, unsigned char byte)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != byte)
            return 0;
    return 1;
}

#define all_poison(p, n) all_bytes((p), (n), POISON)
#define all_zero(p, n) all_bytes((p), (n), 0)

/* The type table against what the header states of each type. */
START_TEST(dtype_query_states_the_header)
{
    static const struct {
        sinpe_dtype t;
        const char *name;
        size_t values, bytes;
        int quantized;
        sinpe_dtype_scales scales;
        double largest;
    } want[] = {
        {SINPE_F32, "f32", 1, 4, 0, SINPE_DTYPE_SCALES_NONE, 3.4028234663852886e38},
        {SINPE_F16, "f16", 1, 2, 0, SINPE_DTYPE_SCALES_NONE, 65504.0},
        {SINPE_BF16, "bf16", 1, 2, 0, SINPE_DTYPE_SCALES_NONE, 3.3895313892515355e38},
        {SINPE_I8, "i8", 1, 1, 1, SINPE_DTYPE_SCALES_ROW, 127.0},
        {SINPE_Q8_0, "q8_0", 32, 34, 1, SINPE_DTYPE_SCALES_BLOCK, 127.0},
        {SINPE_FP8_E4M3, "fp8_e4m3", 1, 1, 1, SINPE_DTYPE_SCALES_ROW_OR_TENSOR, 448.0},
        {SINPE_FP8_E5M2, "fp8_e5m2", 1, 1, 1, SINPE_DTYPE_SCALES_ROW_OR_TENSOR, 57344.0},
        {SINPE_Q4_0, "q4_0", 32, 18, 1, SINPE_DTYPE_SCALES_BLOCK, 8.0},
        {SINPE_Q4_1, "q4_1", 32, 20, 1, SINPE_DTYPE_SCALES_BLOCK, 15.0},
        {SINPE_Q5_0, "q5_0", 32, 22, 1, SINPE_DTYPE_SCALES_BLOCK, 16.0},
        {SINPE_Q5_1, "q5_1", 32, 24, 1, SINPE_DTYPE_SCALES_BLOCK, 31.0},
        {SINPE_Q4_K, "q4_k", 256, 144, 1, SINPE_DTYPE_SCALES_BLOCK, 15.0},
        {SINPE_Q5_K, "q5_k", 256, 176, 1, SINPE_DTYPE_SCALES_BLOCK, 31.0},
        {SINPE_Q6_K, "q6_k", 256, 210, 1, SINPE_DTYPE_SCALES_BLOCK, 32.0},
    };
    size_t n = sizeof want / sizeof want[0];
    ck_assert_uint_eq(sinpe_dtype_count(), n);
    for (size_t k = 0; k < n; k++) {
        sinpe_dtype_info info;
        memset(&info, POISON, sizeof info);
        TU_OK(sinpe_dtype_query(want[k].t, &info, sizeof info));
        ck_assert_str_eq(info.name, want[k].name);
        ck_assert_uint_eq(info.block_values, want[k].values);
        ck_assert_uint_eq(info.block_bytes, want[k].bytes);
        ck_assert_int_eq(info.quantized, want[k].quantized);
        ck_assert_int_eq(info.output, !want[k].quantized);
        ck_assert_int_eq(info.scales, want[k].scales);
        ck_assert_msg(info.largest == want[k].largest, "%s largest %g", info.name, info.largest);
        /* The same table answers sinpe_dtype_bytes. */
        ck_assert_uint_eq(sinpe_dtype_bytes(want[k].t, 3 * info.block_values),
                          3 * info.block_bytes);
    }
}
END_TEST

START_TEST(dtype_query_rejects)
{
    sinpe_dtype_info info;
    unsigned char buf[sizeof info + EXTRA];
    /* No type past the count: info untouched. */
    memset(&info, POISON, sizeof info);
    TU_STATUS(sinpe_dtype_query((sinpe_dtype)sinpe_dtype_count(), &info, sizeof info),
              SINPE_INVALID_DTYPE);
    TU_STATUS(sinpe_dtype_query((sinpe_dtype)-1, &info, sizeof info), SINPE_INVALID_DTYPE);
    ck_assert(all_poison((const unsigned char *)&info, sizeof info));
    TU_STATUS(sinpe_dtype_query(SINPE_F32, NULL, sizeof info), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_dtype_query(SINPE_F32, &info, offsetof(sinpe_dtype_info, largest)),
              SINPE_INVALID_STRUCT_SIZE);
    TU_MESSAGE_HAS("info");
    ck_assert(all_poison((const unsigned char *)&info, sizeof info));
    /* A newer header's longer struct: the fields this library lacks are 0. */
    memset(buf, POISON, sizeof buf);
    TU_OK(sinpe_dtype_query(SINPE_Q8_0, (sinpe_dtype_info *)(void *)buf, sizeof buf));
    memcpy(&info, buf, sizeof info);
    ck_assert_uint_eq(info.block_bytes, 34);
    ck_assert(all_zero(buf + sizeof info, EXTRA));
}
END_TEST

/* The _sized functions write struct_size bytes, no more, zero what a newer
   header added, and write nothing for a size they refuse. */
START_TEST(init_writes_the_callers_size)
{
    unsigned char buf[sizeof(sinpe_embed_args) + EXTRA];
    sinpe_embed_args a;
    size_t longer = SINPE_STRUCT_SIZE(sinpe_embed_args) + EXTRA;

    memset(buf, POISON, sizeof buf);
    sinpe_embed_args_init_sized((sinpe_embed_args *)(void *)buf, longer);
    memcpy(&a, buf, sizeof a);
    ck_assert_uint_eq(a.struct_size, longer);
    ck_assert(a.token_scale == 1.0f && a.weights_scale == 1.0f && a.vocab_total == 0);
    ck_assert(all_zero(buf + sizeof a, EXTRA));
    /* An update (a preset) leaves those fields to the caller. */
    memset(buf + sizeof a, POISON, EXTRA);
    TU_OK(sinpe_embed_args_preset((sinpe_embed_args *)(void *)buf, SINPE_PRESET_VASWANI, 64, 0));
    memcpy(&a, buf, sizeof a);
    ck_assert(a.token_scale == 8.0f);
    ck_assert(all_poison(buf + sizeof a, EXTRA));

    memset(buf, POISON, sizeof buf);
    sinpe_embed_args_init_sized((sinpe_embed_args *)(void *)buf, sizeof a); /* untagged */
    ck_assert(all_poison(buf, sizeof buf));
    TU_MESSAGE_HAS("untagged");
    sinpe_spec_init_sized((sinpe_spec *)(void *)buf, 8, SINPE_STRUCT_TAG | 16);
    ck_assert(all_poison(buf, sizeof buf));
    TU_MESSAGE_HAS("spec: struct_size 16 is below");
    TU_STATUS(sinpe_spec_preset_sized((sinpe_spec *)(void *)buf, SINPE_PRESET_FAIRSEQ, 8,
                                      SINPE_STRUCT_TAG | 16),
              SINPE_INVALID_STRUCT_SIZE);
    ck_assert(all_poison(buf, sizeof buf));
}
END_TEST

/* The 0.1 entry points write the 0.1 layout: the struct without its first
   field, and nothing past it. */
START_TEST(v0_1_init_writes_the_old_layout)
{
    unsigned char buf[sizeof(sinpe_embed_args)];
    size_t old = sizeof(sinpe_embed_args) - sizeof(size_t);
    sinpe_embed_args a;

    memset(buf, POISON, sizeof buf);
    (sinpe_embed_args_init)(buf);
    ck_assert(all_poison(buf + old, sizeof buf - old));
    memset(&a, 0, sizeof a);
    memcpy((unsigned char *)&a + sizeof(size_t), buf, old);
    ck_assert(a.token_scale == 1.0f && a.weights_scale == 1.0f && a.n_seqs == 0 &&
              a.vocab_total == 0);

    memset(buf, POISON, sizeof buf);
    (sinpe_spec_init)(buf, 12);
    ck_assert(all_poison(buf + sizeof(sinpe_spec_v0_1), sizeof buf - sizeof(sinpe_spec_v0_1)));
    ck_assert_uint_eq(((sinpe_spec_v0_1 *)(void *)buf)->dim, 12);
    ck_assert(((sinpe_spec_v0_1 *)(void *)buf)->base == 10000.0);
    ck_assert_uint_eq((sinpe_table_spec)(NULL).dim, 0);
    TU_MESSAGE_HAS("table is NULL");
}
END_TEST

/* A struct_size below the first sized layout is refused where the struct
   is read, with the argument named, before anything else happens. */
START_TEST(short_sizes_are_refused)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_command_queue q = tu_queue(ctx);
    sinpe_context_options o;
    sinpe_spec s;
    sinpe_embed_args a;
    sinpe_table *t = NULL;
    sinpe_context *c2 = NULL;

    sinpe_context_options_init(&o);
    o.struct_size = SINPE_STRUCT_TAG | offsetof(sinpe_context_options, tuning);
    TU_STATUS(sinpe_context_create(&o, &c2), SINPE_INVALID_STRUCT_SIZE);
    TU_MESSAGE_HAS("options: struct_size");
    ck_assert_ptr_null(c2);

    sinpe_spec_init(&s, 16);
    s.struct_size = SINPE_STRUCT_TAG | sizeof(size_t);
    TU_STATUS(sinpe_table_create(ctx, &s, 0, &t), SINPE_INVALID_STRUCT_SIZE);
    TU_MESSAGE_HAS("spec: struct_size 8 is below");
    sinpe_spec_init(&s, 16);
    TU_OK(sinpe_table_create(ctx, &s, 0, &t));

    sinpe_embed_args_init(&a);
    a.struct_size = SINPE_STRUCT_TAG | offsetof(sinpe_embed_args, vocab_total);
    TU_STATUS(sinpe_enqueue_embed(t, q, &a, 0, NULL, NULL), SINPE_INVALID_STRUCT_SIZE);
    TU_MESSAGE_HAS("args: struct_size");
    TU_STATUS(sinpe_embed_args_preset(&a, SINPE_PRESET_VASWANI, 16, 0),
              SINPE_INVALID_STRUCT_SIZE);
    memset(&s, POISON, sizeof s);
    TU_STATUS(sinpe_table_spec_sized(t, &s, SINPE_STRUCT_TAG | 4), SINPE_INVALID_STRUCT_SIZE);
    ck_assert(all_poison((const unsigned char *)&s, sizeof s));
    ck_assert_uint_eq(sinpe_table_spec(t).dim, 16);

    sinpe_table_release(t);
    clReleaseCommandQueue(q);
    sinpe_context_release(ctx);
}
END_TEST

/* Every tuning record quoted in the header and the READMEs parses: a
   quoted string that sets a parameter ("seqs = ..."), its comment line
   breaks joined; one that ends in "..." only shows the form. */
START_TEST(documented_records_parse)
{
    static const char *const files[] = {"include/sinpe.h", "README.md", "tuning/README.md"};
    int seen = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char *text = tu_read_text(files[f]);
        if (!text) {
            char up[64];
            snprintf(up, sizeof up, "../%s", files[f]);
            text = tu_read_text(up);
        }
        ck_assert_msg(text != NULL, "cannot read %s", files[f]);
        for (char *q = strchr(text, '"'); q; q = strchr(q + 1, '"')) {
            char rec[256];
            size_t n = 0;
            char *p = q + 1;
            for (; *p && *p != '"' && n < sizeof rec - 1; p++) {
                if (*p == '\n') { /* a comment's next line: drop " * " */
                    while (p[1] == ' ' || p[1] == '*')
                        p++;
                    rec[n++] = ' ';
                    continue;
                }
                rec[n++] = *p;
            }
            rec[n] = '\0';
            if (*p != '"')
                break;
            q = p; /* the next string starts after this one */
            if (!strstr(rec, "seqs") || !strchr(rec, '=') || strstr(rec, "..."))
                continue;
            sinpe__record r;
            ck_assert_msg(sinpe__record_parse(rec, &r) == 0, "%s: \"%s\": %s", files[f], rec,
                          r.why);
            seen++;
        }
        free(text);
    }
    ck_assert_int_ge(seen, 3);
}
END_TEST

TU_SUITE(types, 5)
{
    Suite *s = suite_create("types");
    TCase *tc = tcase_create("dtype");
    TU_ADD(tc, dtype_query_states_the_header, dtype_query_rejects);
    suite_add_tcase(s, tc);
    tc = tcase_create("structs");
    TU_ADD(tc, init_writes_the_callers_size, v0_1_init_writes_the_old_layout,
           short_sizes_are_refused, documented_records_parse);
    suite_add_tcase(s, tc);
    return s;
}
