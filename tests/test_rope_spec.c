/*
 * test_rope_spec.c -- the rotary spec's lists and their counts (part of the
 * rope suite; the rules' frequencies and the other fields: test_rope.c).
 *
 * Every list (short_factor, long_factor, inv_freq) lives on the heap with
 * exactly the values its count gives, so that under ASan (make check-asan)
 * a read of one value more stops the run.  A count other than R/2 is
 * refused with SINPE_INVALID_SPEC and the exact message, by
 * sinpe_rope_frequencies() and sinpe_rope_table_create() alike, whatever
 * the rule; R/2 values are taken.  A struct of the header before the
 * counts, allocated at its own size, is read as before.
 */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { R = 64, H = R / 2 };

/* n doubles (at least one allocated, so that a count of 0 still has a
   non-NULL list): 1 + k / 100, valid factors. */
static double *factors(size_t n)
{
    double *v = tu_malloc((n ? n : 1) * sizeof *v);
    for (size_t k = 0; k < (n ? n : 1); k++)
        v[k] = 1.0 + 0.01 * (double)k;
    return v;
}

static float *freqs(size_t n)
{
    float *v = tu_malloc((n ? n : 1) * sizeof *v);
    for (size_t k = 0; k < (n ? n : 1); k++)
        v[k] = 1.0f / (float)(k + 1);
    return v;
}

/* A LONGROPE spec of rotary dim R with both lists (H values each, on the
   heap: free them) and, with given, inv_freq too. */
static sinpe_rope_spec longrope(int given)
{
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, R);
    s.rule = SINPE_ROPE_LONGROPE, s.original_max_positions = 4096;
    s.max_positions = 131072, s.length = 5000;
    s.short_factor = factors(H), s.long_factor = factors(H);
    s.n_short_factor = s.n_long_factor = H;
    if (given)
        s.inv_freq = freqs(H), s.n_inv_freq = H;
    return s;
}

static void free_lists(sinpe_rope_spec *s)
{
    TU_FREE((void *)s->short_factor, (void *)s->long_factor, (void *)s->inv_freq);
}

/* Both calls refuse s with SINPE_INVALID_SPEC and exactly the message want. */
static void refused(sinpe_context *ctx, const sinpe_rope_spec *s, const char *want)
{
    double w[H];
    sinpe_table *t = (sinpe_table *)&t;
    TU_STATUS(sinpe_rope_frequencies(s, w, NULL), SINPE_INVALID_SPEC);
    ck_assert_str_eq(sinpe_last_error(), want);
    TU_STATUS(sinpe_rope_table_create(ctx, s, 8, &t), SINPE_INVALID_SPEC);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(sinpe_last_error(), want);
}

static const char *const names[] = {"short_factor", "long_factor", "inv_freq"};

/* The list of index i of s, and its count. */
static const void **list_of(sinpe_rope_spec *s, int i, size_t **count)
{
    *count = i == 0 ? &s->n_short_factor : i == 1 ? &s->n_long_factor : &s->n_inv_freq;
    return i == 0 ? (const void **)&s->short_factor
           : i == 1 ? (const void **)&s->long_factor
                    : (const void **)&s->inv_freq;
}

/* List _i with 31, 33, 16 and 0 values, then without values but a count;
   under LONGROPE and under DEFAULT (where the rule reads no factor list). */
START_TEST(rope_list_counts)
{
    static const size_t lens[] = {H - 1, H + 1, H / 2, 0};
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    char want[160];
    for (int rule = 0; rule < 2; rule++)
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
            sinpe_rope_spec s = longrope(_i == 2);
            if (rule)
                s.rule = SINPE_ROPE_DEFAULT;
            size_t *count;
            const void **list = list_of(&s, _i, &count);
            free((void *)*list);
            *list = _i == 2 ? (const void *)freqs(lens[j]) : (const void *)factors(lens[j]);
            *count = lens[j];
            snprintf(want, sizeof want, "spec.%s has %zu values; rotary dim %d needs %d",
                     names[_i], lens[j], R, H);
            refused(ctx, &s, want);
            free_lists(&s);
        }
    sinpe_rope_spec s = longrope(_i == 2);
    size_t *count;
    const void **list = list_of(&s, _i, &count);
    free((void *)*list);
    *list = NULL; /* a count without its list */
    snprintf(want, sizeof want, "spec.n_%s is %d but spec.%s is NULL", names[_i], H, names[_i]);
    refused(ctx, &s, want);
    free_lists(&s);
    sinpe_context_release(ctx);
}
END_TEST

/* R/2 values with the count R/2: taken, and used (inv_freq as given; the
   factor lists as the rule's divisors, the long ones past orig). */
START_TEST(rope_list_counts_right)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_rope_spec s = longrope(1);
    double w[H], m;
    sinpe_table *t = NULL;
    TU_OK(sinpe_rope_frequencies(&s, w, &m));
    for (size_t k = 0; k < H; k++)
        ck_assert(w[k] == (double)s.inv_freq[k]);
    free((void *)s.inv_freq);
    s.inv_freq = NULL, s.n_inv_freq = 0;
    TU_OK(sinpe_rope_frequencies(&s, w, &m));
    ck_assert(w[H - 1] == 1.0 / (s.long_factor[H - 1] * pow(10000.0, (double)(R - 2) / R)));
    TU_OK(sinpe_rope_table_create(ctx, &s, 8, &t));
    sinpe_table_release(t);
    free_lists(&s);
    sinpe_context_release(ctx);
}
END_TEST

/* A struct of the header before the counts, on the heap at its own size:
   its lists are taken as R/2 values, as that header said (the same
   frequencies and the same table as with the counts), its NULL lists as
   absent, and a preset fills it; nothing past it is read or written. */
START_TEST(rope_list_counts_older_struct)
{
    const size_t old = offsetof(sinpe_rope_spec, inv_freq) + sizeof(const float *);
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_rope_spec s = longrope(1), *o = tu_malloc(old);
    double w[H], w_old[H], m, m_old;
    sinpe_table *t = NULL, *t_old = NULL;
    memcpy(o, &s, old);
    o->struct_size = SINPE_STRUCT_TAG | old;
    TU_OK(sinpe_rope_frequencies(&s, w, &m));
    TU_OK(sinpe_rope_frequencies(o, w_old, &m_old));
    ck_assert(memcmp(w, w_old, sizeof w) == 0 && m == m_old);
    TU_OK(sinpe_rope_table_create(ctx, &s, 8, &t));
    TU_OK(sinpe_rope_table_create(ctx, o, 8, &t_old));
    ck_assert_ptr_eq(t, t_old);
    sinpe_table_release(t_old), sinpe_table_release(t);
    o->inv_freq = NULL, o->short_factor = o->long_factor = NULL;
    TU_STATUS(sinpe_rope_frequencies(o, w_old, NULL), SINPE_INVALID_SPEC);
    ck_assert_str_eq(sinpe_last_error(), "spec.short_factor is NULL");
    o->rule = SINPE_ROPE_DEFAULT;
    TU_OK(sinpe_rope_frequencies(o, w_old, NULL));
    TU_OK(sinpe_rope_preset_sized(o, SINPE_ROPE_PRESET_PHI3_LONGROPE, 96, o->struct_size));
    ck_assert(o->short_factor && o->long_factor);
    TU_OK(sinpe_rope_table_create(ctx, o, 8, &t_old));
    sinpe_table_release(t_old);
    /* This header's struct gets the preset's counts. */
    free_lists(&s);
    TU_OK(sinpe_rope_preset(&s, SINPE_ROPE_PRESET_PHI3_LONGROPE, 96));
    ck_assert_uint_eq(s.n_short_factor, 48);
    ck_assert_uint_eq(s.n_long_factor, 48);
    ck_assert_uint_eq(s.n_inv_freq, 0);
    free(o), sinpe_context_release(ctx);
}
END_TEST

TCase *tcase_rope_spec(void)
{
    TCase *tc = tcase_create("spec");
    tcase_set_timeout(tc, TU_TIMEOUT);
    tcase_add_loop_test(tc, rope_list_counts, 0, 3);
    TU_ADD(tc, rope_list_counts_right, rope_list_counts_older_struct);
    return tc;
}
