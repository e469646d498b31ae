/*
 * table.c -- the device-resident tables, the encoding's and rotary ones:
 * shared per (context, contents), generated on the device, grown on demand.
 */
#include "sinpe_internal.h"
#include "record.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Positions are cl_int on the device, so a table never holds more rows. */
#define SINPE_MAX_ROWS ((size_t)INT_MAX)

static void table_free(sinpe_table *t)
{
    for (struct sinpe__held *h = t->held, *next; h; h = next) {
        for (int i = 0; i < h->n; i++)
            if (h->item[i].kernel)
                clReleaseKernel((cl_kernel)h->item[i].obj);
            else
                clReleaseMemObject((cl_mem)h->item[i].obj);
        next = h->next;
        free(h);
    }
    for (int i = 0; i < 2; i++)
        if (t->scratch[i])
            clReleaseMemObject(t->scratch[i]);
    if (t->scratch_use)
        clReleaseEvent(t->scratch_use);
    if (t->mem)
        clReleaseMemObject(t->mem);
    if (t->desc)
        clReleaseMemObject(t->desc);
    pthread_mutex_destroy(&t->grow);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

static sinpe_status table_new(sinpe_context *ctx, const sinpe_spec *spec,
                              const sinpe__rope_key *rope, size_t rope_bytes,
                              const sinpe__column *col, double amp, sinpe_table **out)
{
    size_t bytes = SINPE__COEF_FLOATS(spec->dim) * sizeof(float);
    float *desc;
    cl_int err;
    sinpe_table *t;

    SINPE_CHECK(bytes > ctx->info.max_alloc, SINPE_TOO_LARGE,
                "spec.dim %zu: the coefficients exceed the device's max allocation",
                spec->dim);
    desc = calloc(1, bytes); /* the padding of each row written too */
    t = calloc(1, sizeof *t + rope_bytes);
    if (!desc || !t) {
        free(desc);
        free(t);
        return sinpe__fail(SINPE_OUT_OF_HOST_MEMORY, "no memory for a table");
    }
    t->kind = rope ? SINPE__TABLE_ROTARY : SINPE__TABLE_ENCODING;
    if (rope)
        t->rope = memcpy(t->rope_data, rope, rope_bytes);
    t->rope_bytes = rope_bytes;
    sinpe__coefficients(col, spec->dim, amp, desc);
    t->pairs = sinpe__column_pairs(col, spec->dim);
    t->desc = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, desc,
                             &err);
    free(desc);
    pthread_mutex_init(&t->grow, NULL);
    pthread_mutex_init(&t->lock, NULL);
    t->ctx = ctx;
    t->spec = *spec;
    t->refs = 1;
    if (err != CL_SUCCESS) {
        t->desc = NULL;
        table_free(t);
        return sinpe__cl_fail(err, "clCreateBuffer(table descriptors)");
    }
    *out = t;
    return SINPE_SUCCESS;
}

static void table_unref(sinpe_table *table)
{
    sinpe_context *ctx = table->ctx;
    int last;
    pthread_mutex_lock(&ctx->lock);
    last = --table->refs == 0;
    if (last) {
        sinpe_table **p = &ctx->tables;
        while (*p != table)
            p = &(*p)->next;
        *p = table->next;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (last) {
        table_free(table);
        sinpe__context_unref(ctx);
    }
}

static int same_table(const sinpe_table *t, const sinpe_spec *spec, const sinpe__rope_key *rope,
                      size_t rope_bytes)
{
    if (rope || t->rope)
        return rope && t->rope && t->rope_bytes == rope_bytes &&
               !memcmp(t->rope, rope, rope_bytes);
    return sinpe__spec_equal(&t->spec, spec);
}

sinpe_status sinpe__table_open(sinpe_context *context, const sinpe_spec *spec,
                               const sinpe__rope_key *rope, size_t rope_bytes,
                               const sinpe__column *col, double amp, size_t rows,
                               sinpe_table **table)
{
    sinpe_table *t = NULL, *fresh = NULL;
    sinpe_status st;

    SINPE_FORWARD(table_new(context, spec, rope, rope_bytes, col, amp, &fresh));
    pthread_mutex_lock(&context->lock);
    for (t = context->tables; t; t = t->next)
        if (same_table(t, spec, rope, rope_bytes))
            break;
    if (t) {
        t->refs++;
    } else {
        t = fresh;
        fresh = NULL;
        t->next = context->tables;
        context->tables = t;
        context->refs++;
    }
    pthread_mutex_unlock(&context->lock);
    if (fresh)
        table_free(fresh);

    st = sinpe_table_reserve(t, rows);
    if (st == SINPE_SUCCESS)
        *table = t;
    else
        table_unref(t); /* keeps the reserve's message */
    return st;
}

sinpe_status sinpe_table_create(sinpe_context *context, const sinpe_spec *spec, size_t rows,
                                sinpe_table **table)
{
    sinpe_spec own;
    sinpe__column *col;
    sinpe_status st;

    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table: the output pointer is NULL");
    *table = NULL;
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context is NULL");
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    sinpe_spec_init(&own, 0);
    SINPE_FORWARD(sinpe__struct_in(SINPE__SPEC, &own, spec, "spec"));
    SINPE_FORWARD(sinpe__spec_validate(&own));
    col = malloc(own.dim * sizeof *col);
    SINPE_CHECK(!col, SINPE_OUT_OF_HOST_MEMORY, "no memory for a table");
    sinpe__spec_columns(&own, col);
    st = sinpe__table_open(context, &own, NULL, 0, col, 1.0, rows, table);
    free(col);
    return st;
}

void sinpe_table_release(sinpe_table *table)
{
    sinpe__clear_error();
    if (table)
        table_unref(table);
}

/* Fills a new buffer of n rows: copies the old rows, generates the rest. */
static sinpe_status table_build(sinpe_table *t, cl_mem old, size_t old_rows, size_t n, cl_mem *out)
{
    sinpe_context *ctx = t->ctx;
    size_t dim = t->spec.dim;
    cl_event ev = NULL;
    cl_int err;
    sinpe_status st;
    cl_mem mem = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, n * dim * sizeof(float), NULL,
                                &err);
    SINPE_CL_CHECK(err, "clCreateBuffer(table)");
    err = old_rows ? clEnqueueCopyBuffer(ctx->queue, old, mem, 0, 0, old_rows * dim * sizeof(float),
                                         0, NULL, NULL)
                   : CL_SUCCESS;
    st = err != CL_SUCCESS ? sinpe__cl_fail(err, "clEnqueueCopyBuffer(table)")
                           : sinpe__table_rows(t, ctx->queue, (cl_int)old_rows, n - old_rows, mem,
                                               old_rows * dim, dim, SINPE_F32, 0, NULL, &ev);
    if (st == SINPE_SUCCESS) {
        /* The queue is in order: the copy has finished when the rows have. */
        err = clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        if (err != CL_SUCCESS)
            st = sinpe__cl_fail(err, "clWaitForEvents(table rows)");
    }
    if (st == SINPE_SUCCESS)
        *out = mem;
    else
        clReleaseMemObject(mem);
    return st;
}

sinpe_status sinpe_table_reserve(sinpe_table *table, size_t rows)
{
    size_t have, want, limit;
    cl_ulong by_alloc;
    cl_mem old = NULL, mem = NULL;
    sinpe_status st = SINPE_SUCCESS;

    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    /* The most rows the device holds for this dim, whole blocks only. */
    by_alloc = table->ctx->info.max_alloc / (table->spec.dim * sizeof(float));
    limit = (by_alloc < SINPE_MAX_ROWS ? (size_t)by_alloc : SINPE_MAX_ROWS) / SINPE_STEP_ROWS *
            SINPE_STEP_ROWS;
    SINPE_CHECK(rows > limit, SINPE_TOO_LARGE,
                "rows %zu x dim %zu exceeds the device's limit of %zu rows for this dim", rows,
                table->spec.dim, limit);

    pthread_mutex_lock(&table->grow);
    sinpe__table_snapshot(table, &old, &have);
    if (rows > have) {
        /* Grow by half again at least, in whole anchor blocks, to amortise;
         * new rows then always start on an anchor. */
        want = have + have / 2;
        if (want < rows)
            want = rows;
        want = (want + SINPE_STEP_ROWS - 1) / SINPE_STEP_ROWS * SINPE_STEP_ROWS;
        if (want > limit)
            want = limit;
        st = table_build(table, old, have, want, &mem);
        if (st == SINPE_SUCCESS) {
            pthread_mutex_lock(&table->lock);
            if (table->mem)
                clReleaseMemObject(table->mem);
            table->mem = mem;
            table->rows = want;
            pthread_mutex_unlock(&table->lock);
        }
    }
    pthread_mutex_unlock(&table->grow);
    if (old)
        clReleaseMemObject(old);
    return st;
}

void sinpe__table_snapshot(sinpe_table *t, cl_mem *mem, size_t *rows)
{
    pthread_mutex_lock(&t->lock);
    *mem = t->mem;
    *rows = t->rows;
    if (*mem)
        clRetainMemObject(*mem);
    pthread_mutex_unlock(&t->lock);
}

sinpe_status sinpe_table_borrow(sinpe_table *table, cl_mem *mem, size_t *rows)
{
    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_CHECK(!mem, SINPE_NULL_ARGUMENT, "mem: the output pointer is NULL");
    SINPE_CHECK(!rows, SINPE_NULL_ARGUMENT, "rows: the output pointer is NULL");
    sinpe__table_snapshot(table, mem, rows);
    return SINPE_SUCCESS;
}

size_t sinpe_table_rows(const sinpe_table *table)
{
    size_t rows;
    if (!sinpe__enter_with(table, "table"))
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&table->lock);
    rows = table->rows;
    pthread_mutex_unlock((pthread_mutex_t *)&table->lock);
    return rows;
}

sinpe_status sinpe_table_spec_sized(const sinpe_table *table, sinpe_spec *spec, size_t struct_size)
{
    sinpe_spec s;
    sinpe__clear_error();
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    if (table && table->kind == SINPE__TABLE_ENCODING)
        s = table->spec;
    else
        memset(&s, 0, sizeof s);
    SINPE_FORWARD(sinpe__struct_out(SINPE__SPEC, spec, struct_size, &s, SINPE__FILL, "spec"));
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_CHECK(table->kind != SINPE__TABLE_ENCODING, SINPE_INVALID_SPEC,
                "table is a rotary table: it has no sinpe_spec");
    return SINPE_SUCCESS;
}

sinpe_status sinpe_table_constants(sinpe_table *table, cl_mem *consts)
{
    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_CHECK(!consts, SINPE_NULL_ARGUMENT, "consts: the output pointer is NULL");
    clRetainMemObject(table->desc);
    *consts = table->desc;
    return SINPE_SUCCESS;
}
