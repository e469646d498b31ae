/* test_table.c -- the device-resident table against the float64 reference,
 * positions far past it (computed on the fly), sharing and growth. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t dims[] = {1, 2, 3, 7, 64, 513, 4096};
#define N_DIMS (sizeof dims / sizeof dims[0])

/* Rows per table: long for narrow tables, a few hundred for d = 4096, so
 * that the whole loop stays within seconds on two CPU cores. */
static size_t rows_for(size_t dim)
{
    size_t r = ((size_t)1 << 20) / dim;
    return r < 300 ? 300 : r > 20000 ? 20000 : r;
}

/* Reads n rows of a borrowed table buffer back. */
static float *read_table(sinpe_context *ctx, cl_mem mem, size_t rows, size_t dim)
{
    size_t bytes = 0;
    TU_CL(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    ck_assert_msg(bytes >= rows * dim * sizeof(float),
                  "table buffer holds %zu bytes, %zu rows of %zu need %zu", bytes, rows, dim,
                  rows * dim * sizeof(float));
    float *host = tu_malloc(rows * dim * sizeof *host);
    tu_read(sinpe_context_queue(ctx), mem, 0, rows * dim * sizeof *host, host);
    return host;
}

/* Asserts rows [0, rows) of host against the reference of spec. */
static void check_table_rows(const sinpe_spec *spec, const float *host, size_t rows,
                             const char *what)
{
    char sbuf[256], msg[512];
    snprintf(msg, sizeof msg, "%s [%s]", what, tu_spec_str(spec, sbuf, sizeof sbuf));
    double *ref = tu_pe_rows(spec, NULL, 0, rows);
    tu_check_rows(host, 0, spec->dim, rows, spec->dim, ref, TU_PE_TOL, 0.0, msg);
    free(ref);
}

/* Borrows tab's buffer, asserts it holds at least rows rows and checks every
 * row it holds against spec; returns the buffer (release it). */
static cl_mem check_borrowed(sinpe_context *ctx, sinpe_table *tab, const sinpe_spec *spec,
                             size_t rows, const char *what)
{
    cl_mem mem = NULL;
    size_t have = 0;
    TU_OK(sinpe_table_borrow(tab, &mem, &have));
    ck_assert_ptr_nonnull(mem);
    ck_assert_uint_ge(have, rows);
    float *host = read_table(ctx, mem, have, spec->dim);
    check_table_rows(spec, host, have, what);
    free(host);
    return mem;
}

/* Creates the table of spec with rows rows and checks every row it holds. */
static void check_table(sinpe_context *ctx, const sinpe_spec *spec, size_t rows)
{
    char sbuf[256];
    sinpe_table *tab = NULL;
    sinpe_status st = sinpe_table_create(ctx, spec, rows, &tab);
    ck_assert_msg(st == SINPE_SUCCESS, "table_create [%s] rows %zu: %d (%s): %s",
                  tu_spec_str(spec, sbuf, sizeof sbuf), rows, (int)st, sinpe_status_string(st),
                  sinpe_last_error());
    ck_assert_uint_ge(sinpe_table_rows(tab), rows);
    cl_mem mem = check_borrowed(ctx, tab, spec, rows, "table");
    tu_release(NULL, NULL, tab, &mem, 1);
}

/* ---- Values ---- */

START_TEST(table_matches_reference)
{
    /* _i: math (FLOAT, FP64) x layout. */
    sinpe_context *ctx = tu_context(tu_math(_i / 3));
    sinpe_layout layout = (sinpe_layout)(_i % 3);
    static const double shifts[] = {0.0, 1.0};
    static const double bases[] = {10000.0, 500000.0};
    for (size_t di = 0; di < N_DIMS; di++) {
        size_t dim = dims[di];
        int n_odd = dim % 2 ? 2 : 1; /* ZERO_LAST, EXTRA_SIN only differ for odd d */
        for (int oi = 0; oi < n_odd; oi++)
            for (size_t si = 0; si < 2; si++)
                for (size_t bi = 0; bi < 2; bi++) {
                    sinpe_spec spec = tu_spec(dim, layout, (sinpe_odd_dim)oi, shifts[si],
                                              bases[bi], 1.0);
                    check_table(ctx, &spec, rows_for(dim));
                }
    }
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(table_angle_scale)
{
    /* angle_scale multiplies every w_k, w_0 included (also when D = 0). */
    sinpe_context *ctx = tu_context(tu_math(_i));
    static const tu_spec_row cases[] = {
        {64, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.7},
        {7, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 0.0, 10000.0, 0.3},
        {2, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 2.5},
        {3, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 0.75},
        {1, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 1.0, 10000.0, 1.25},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sinpe_spec spec = tu_spec_of(&cases[i]);
        check_table(ctx, &spec, 3000);
    }
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(table_odd_dim_error_policy)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    for (size_t di = 0; di < N_DIMS; di++) {
        for (int layout = 0; layout < 3; layout++) {
            sinpe_spec spec = tu_spec(dims[di], (sinpe_layout)layout, SINPE_ODD_ERROR, 1.0,
                                      10000.0, 1.0);
            if (dims[di] % 2) {
                sinpe_table *tab = NULL;
                sinpe_status st = sinpe_table_create(ctx, &spec, 4, &tab);
                ck_assert_msg(st == SINPE_INVALID_SPEC,
                              "odd dim %zu under SINPE_ODD_ERROR gave %d (%s)", dims[di],
                              (int)st, sinpe_status_string(st));
                ck_assert_msg(strlen(sinpe_last_error()) > 0, "no message for odd dim");
            } else {
                check_table(ctx, &spec, 64);
            }
        }
    }
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(table_widest_dim)
{
    /* 65536 is the largest dim the header allows. */
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_spec spec =
        tu_spec(65536, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0);
    check_table(ctx, &spec, 3);
    sinpe_context_release(ctx);
}
END_TEST

/* ---- Positions past the table ---- */

START_TEST(long_positions_on_the_fly)
{
    /* Positions up to 2^24 - 1 in magnitude meet the same bar as the table. */
    sinpe_context *ctx = tu_context(tu_math(_i));
    static const tu_spec_row cases[] = {
        {64, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 10000.0, 1.0},
        {7, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_EXTRA_SIN, 1.0, 500000.0, 1.0},
        {2, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 10000.0, 1.0},
        {513, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0},
        {4096, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0},
    };
    enum { N = 160 };
    int32_t pos[N];
    tu_rng rng = tu_rng_for("long_positions_on_the_fly");
    for (size_t i = 0; i < N; i++) {
        if (i < 40)
            pos[i] = 16777215 - (int32_t)i; /* just below 2^24 */
        else if (i < 56)
            pos[i] = (int32_t)(i - 40); /* inside the table */
        else if (i < 80)
            pos[i] = -tu_rng_int(&rng, 1, 16777215);
        else if (i < 90)
            pos[i] = -16777215 + (int32_t)(i - 80);
        else
            pos[i] = tu_rng_int(&rng, 16, 16777215);
    }
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        sinpe_spec spec = tu_spec_of(&cases[ci]);
        size_t dim = spec.dim, n = dim >= 4096 ? 40 : N; /* keep d = 4096 cheap */
        sinpe_table *tab = tu_table_of(ctx, &spec, 16);
        double *ref = tu_pe_rows(&spec, pos, 0, n);
        char sbuf[256], what[400];
        tu_spec_str(&spec, sbuf, sizeof sbuf);

        for (int fused = 0; fused < 2; fused++) {
            float *got = tu_pe_at(ctx, tab, pos, n, fused);
            snprintf(what, sizeof what, "%s [%s]",
                     fused ? "embed, zero embedding" : "add_positions", sbuf);
            tu_check_rows(got, 0, dim, n, dim, ref, TU_PE_TOL, 0.0, what);
            free(got);
        }
        free(ref);
        sinpe_table_release(tab);
    }
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(on_the_fly_bits_equal_table_bits)
{
    /* "positions past the table's rows ... are computed on the fly with
     * identical results": compare with the rows the table later holds. */
    sinpe_context *ctx = tu_context(tu_math(_i));
    static const size_t cdims[] = {64, 7, 513};
    enum { FIRST = 100, N = 1200 };
    int32_t pos[N];
    for (size_t i = 0; i < N; i++)
        pos[i] = (int32_t)i;
    for (size_t ci = 0; ci < sizeof cdims / sizeof cdims[0]; ci++) {
        sinpe_spec spec = tu_spec(cdims[ci], (sinpe_layout)(ci % 3),
                                  ci == 1 ? SINPE_ODD_EXTRA_SIN : SINPE_ODD_ZERO_LAST,
                                  (double)(ci % 2), 10000.0, 1.0);
        size_t dim = spec.dim;
        sinpe_table *tab = tu_table_of(ctx, &spec, FIRST);
        size_t held = sinpe_table_rows(tab);
        ck_assert_msg(held < N, "table already holds %zu rows; the test needs fewer", held);

        float *fly = tu_pe_at(ctx, tab, pos, N, 0);
        TU_OK(sinpe_table_reserve(tab, N));
        cl_mem mem;
        size_t have;
        TU_OK(sinpe_table_borrow(tab, &mem, &have));
        ck_assert_uint_ge(have, N);
        float *table = read_table(ctx, mem, N, dim);
        for (size_t i = 0; i < (size_t)N * dim; i++)
            TU_CHECK(memcmp(&fly[i], &table[i], sizeof(float)) == 0,
                     "dim %zu position %zu col %zu: on the fly %.9g, table %.9g", dim,
                     i / dim, i % dim, (double)fly[i], (double)table[i]);
        TU_FREE(fly, table);
        tu_release(NULL, NULL, tab, &mem, 1);
    }
    sinpe_context_release(ctx);
}
END_TEST

/* ---- Sharing and growth ---- */

START_TEST(table_shared_per_spec)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_spec spec = tu_spec(48, SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0);
    sinpe_spec same = spec, other = spec;
    other.base = 20000.0;

    sinpe_table *t1 = tu_table_of(ctx, &spec, 100), *t2 = tu_table_of(ctx, &same, 700);
    ck_assert_msg(t1 == t2, "equal specs gave two tables");
    ck_assert_uint_ge(sinpe_table_rows(t1), 700);
    sinpe_table *t3 = tu_table_of(ctx, &other, 10);
    ck_assert_msg(t3 != t1, "different bases share a table");

    sinpe_spec back = sinpe_table_spec(t1);
    ck_assert_uint_eq(back.dim, spec.dim);
    ck_assert_int_eq(back.layout, spec.layout);
    ck_assert_int_eq(back.odd_dim, spec.odd_dim);
    ck_assert_msg(back.base == spec.base && back.shift == spec.shift &&
                      back.angle_scale == spec.angle_scale,
                  "spec copy differs: base %g shift %g angle_scale %g", back.base, back.shift,
                  back.angle_scale);
    back = sinpe_table_spec(t3);
    ck_assert_msg(back.base == 20000.0, "spec copy of the other table has base %g", back.base);

    /* One reference dropped: the other still holds a working table. */
    sinpe_table_release(t1);
    TU_OK(sinpe_table_reserve(t2, 900));
    cl_mem mem = check_borrowed(ctx, t2, &spec, 900, "shared table after growth");
    cl_mem mem3 = check_borrowed(ctx, t3, &other, 0, "other table");
    sinpe_table_release(t2);
    TU_RELEASE(ctx, NULL, t3, mem, mem3);
}
END_TEST

START_TEST(table_reserve_grows_and_old_buffer_stays)
{
    sinpe_context *ctx = tu_context(tu_math(_i));
    sinpe_spec spec = tu_spec(33, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 0.0, 1e4, 1.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, 50);

    cl_mem old_mem;
    size_t old_rows;
    TU_OK(sinpe_table_borrow(tab, &old_mem, &old_rows));
    ck_assert_uint_ge(old_rows, 50);
    float *before = read_table(ctx, old_mem, old_rows, spec.dim);
    check_table_rows(&spec, before, old_rows, "table before growth");

    TU_OK(sinpe_table_reserve(tab, 5000));
    size_t rows = sinpe_table_rows(tab);
    ck_assert_uint_ge(rows, 5000);

    /* A smaller request changes nothing. */
    TU_OK(sinpe_table_reserve(tab, 10));
    ck_assert_uint_eq(sinpe_table_rows(tab), rows);

    cl_mem new_mem;
    size_t new_rows;
    TU_OK(sinpe_table_borrow(tab, &new_mem, &new_rows));
    ck_assert_uint_eq(new_rows, rows);
    float *after = read_table(ctx, new_mem, new_rows, spec.dim);
    check_table_rows(&spec, after, new_rows, "table after growth");

    /* The buffer borrowed before growth is still valid and unchanged. */
    float *again = read_table(ctx, old_mem, old_rows, spec.dim);
    ck_assert_msg(memcmp(before, again, old_rows * spec.dim * sizeof(float)) == 0,
                  "the buffer borrowed before growth changed");
    TU_FREE(before, after, again);
    sinpe_table_release(tab);
    /* Still readable after the table is gone: the caller holds a reference. */
    again = read_table(ctx, old_mem, old_rows, spec.dim);
    check_table_rows(&spec, again, old_rows, "borrowed buffer after table release");
    free(again);
    TU_RELEASE(ctx, NULL, NULL, old_mem, new_mem);
}
END_TEST

START_TEST(table_with_zero_rows)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    sinpe_spec spec = tu_spec(20, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0);
    sinpe_table *tab = tu_table_of(ctx, &spec, 0);
    ck_assert_ptr_nonnull(tab);

    /* Every position on the fly. */
    enum { N = 64 };
    int32_t pos[N];
    for (size_t i = 0; i < N; i++)
        pos[i] = (int32_t)(i * 37) - 300;
    double *ref = tu_pe_rows(&spec, pos, 0, N);
    float *got = tu_pe_at(ctx, tab, pos, N, 0);
    tu_check_rows(got, 0, 20, N, 20, ref, TU_PE_TOL, 0.0, "zero-row table, add_positions");
    TU_FREE(got, ref);

    TU_OK(sinpe_table_reserve(tab, 64));
    ck_assert_uint_ge(sinpe_table_rows(tab), 64);
    cl_mem mem = check_borrowed(ctx, tab, &spec, 64, "zero-row table after reserve");
    TU_RELEASE(ctx, NULL, tab, mem);
}
END_TEST

TU_SUITE(table, 49)
{
    Suite *s = suite_create("table");

    TCase *tc = tu_tcase(s, "values", "rows");
    tcase_add_loop_test(tc, table_matches_reference, 0, 6);
    tcase_add_loop_test(tc, table_angle_scale, 0, 2);
    TU_ADD(tc, table_odd_dim_error_policy, table_widest_dim);

    tc = tu_tcase(s, "on_the_fly", NULL);
    tcase_add_loop_test(tc, long_positions_on_the_fly, 0, 2);
    tcase_add_loop_test(tc, on_the_fly_bits_equal_table_bits, 0, 2);

    tc = tu_tcase(s, "sharing", NULL);
    tcase_add_test(tc, table_shared_per_spec);
    tcase_add_loop_test(tc, table_reserve_grows_and_old_buffer_stays, 0, 2);
    tcase_add_test(tc, table_with_zero_rows);
    return s;
}
