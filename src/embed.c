/*
 * embed.c -- validation and launch of the fused kernel and the unfused pair.
 * Everything is checked before anything is enqueued.
 */
#include "sinpe_internal.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* Must match sinpe_embed_params in kernels/embed.cl field for field. */
typedef struct {
    cl_ulong ids_off, e_off, e_stride, out_off, out_stride, pos_off, bad_off;
    cl_int vocab, tab_rows, start, has_pos, has_bad;
    cl_uint dim, seq_len, nrows;
    cl_float scale;
} embed_params;

void sinpe_embed_args_init(sinpe_embed_args *args)
{
    if (!args)
        return;
    memset(args, 0, sizeof *args);
    args->token_scale = 1.0f;
}

/* a * b + c without overflow, or SIZE_MAX. */
static size_t mul_add(size_t a, size_t b, size_t c)
{
    if (b && a > (SIZE_MAX - c) / b)
        return SIZE_MAX;
    return a * b + c;
}

/*
 * Checks that buf belongs to ctx and holds `elems` elements of 4 bytes
 * starting at element `offset`.
 */
static sinpe_status check_buffer(const sinpe_context *ctx, cl_mem buf, const char *name,
                                 size_t offset, size_t elems)
{
    cl_context owner = NULL;
    size_t bytes = 0, need;
    SINPE_CHECK(!buf, SINPE_NULL_ARGUMENT, "args->%s is NULL", name);
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err != CL_SUCCESS)
        return sinpe__fail((sinpe_status)err, "args->%s is not a valid buffer (%s)", name,
                           sinpe_status_string((sinpe_status)err));
    SINPE_CHECK(owner != ctx->cl_ctx, SINPE_CONTEXT_MISMATCH,
                "args->%s belongs to another OpenCL context", name);
    need = offset <= SIZE_MAX - elems ? mul_add(offset + elems, 4, 0) : SIZE_MAX;
    SINPE_CHECK(need > bytes, SINPE_BUFFER_TOO_SMALL,
                "args->%s holds %zu bytes but offset + extent needs %s%zu", name, bytes,
                need == SIZE_MAX ? "more than " : "", need);
    return SINPE_SUCCESS;
}

static sinpe_status check_queue(const sinpe_context *ctx, cl_command_queue queue)
{
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    SINPE_CHECK(!queue, SINPE_NULL_ARGUMENT, "queue is NULL");
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err != CL_SUCCESS)
        return sinpe__fail((sinpe_status)err, "queue is not a valid command queue (%s)",
                           sinpe_status_string((sinpe_status)err));
    SINPE_CHECK(qctx != ctx->cl_ctx, SINPE_CONTEXT_MISMATCH,
                "queue belongs to another OpenCL context than the table");
    SINPE_CHECK(qdev != ctx->device, SINPE_CONTEXT_MISMATCH,
                "queue belongs to another device than the table");
    return SINPE_SUCCESS;
}

/* Validates args for kernel k and fills the kernel parameters. */
static sinpe_status validate(const sinpe_table *t, int k, const sinpe_embed_args *a,
                             embed_params *p)
{
    const sinpe_context *ctx = t->ctx;
    size_t dim = t->spec.dim, n, e_stride, o_stride;

    SINPE_CHECK(!a, SINPE_NULL_ARGUMENT, "args is NULL");
    SINPE_CHECK(a->n_seqs == 0, SINPE_INVALID_SHAPE, "args->n_seqs is 0");
    SINPE_CHECK(a->seq_len == 0, SINPE_INVALID_SHAPE, "args->seq_len is 0");
    SINPE_CHECK(a->n_seqs > (size_t)INT_MAX / a->seq_len, SINPE_INVALID_SHAPE,
                "args->n_seqs * args->seq_len exceeds 2^31 - 1 tokens");
    n = a->n_seqs * a->seq_len;
    o_stride = a->out_stride ? a->out_stride : dim;
    SINPE_CHECK(o_stride < dim, SINPE_INVALID_SHAPE, "args->out_stride %zu is below dim %zu",
                o_stride, dim);
    memset(p, 0, sizeof *p);

    if (k != SINPE_K_ADD) {
        e_stride = a->weights_stride ? a->weights_stride : dim;
        SINPE_CHECK(a->vocab == 0, SINPE_INVALID_SHAPE, "args->vocab is 0");
        SINPE_CHECK(a->vocab > (size_t)INT_MAX, SINPE_INVALID_SHAPE,
                    "args->vocab %zu exceeds 2^31 - 1", a->vocab);
        SINPE_CHECK(e_stride < dim, SINPE_INVALID_SHAPE,
                    "args->weights_stride %zu is below dim %zu", e_stride, dim);
        SINPE_FORWARD(check_buffer(ctx, a->ids, "ids", a->ids_offset, n));
        SINPE_FORWARD(check_buffer(ctx, a->weights, "weights", a->weights_offset,
                                   mul_add(a->vocab - 1, e_stride, dim)));
        if (a->bad_ids)
            SINPE_FORWARD(check_buffer(ctx, a->bad_ids, "bad_ids", a->bad_ids_offset, 1));
        p->ids_off = a->ids_offset;
        p->e_off = a->weights_offset;
        p->e_stride = e_stride;
        p->vocab = (cl_int)a->vocab;
        p->bad_off = a->bad_ids_offset;
        p->has_bad = a->bad_ids != NULL;
    }
    if (k != SINPE_K_GATHER) {
        if (a->positions)
            SINPE_FORWARD(check_buffer(ctx, a->positions, "positions", a->positions_offset, n));
        else
            SINPE_CHECK((int64_t)a->start + (int64_t)(a->seq_len - 1) > INT_MAX,
                        SINPE_INVALID_SHAPE,
                        "args->start %d + seq_len - 1 exceeds the largest position 2^31 - 1",
                        (int)a->start);
        p->pos_off = a->positions_offset;
        p->has_pos = a->positions != NULL;
        p->start = a->start;
    }
    SINPE_FORWARD(check_buffer(ctx, a->out, "out", a->out_offset,
                               mul_add(n - 1, o_stride, dim)));
    p->out_off = a->out_offset;
    p->out_stride = o_stride;
    p->dim = (cl_uint)dim;
    p->seq_len = (cl_uint)a->seq_len;
    p->nrows = (cl_uint)n;
    p->scale = a->token_scale;
    return SINPE_SUCCESS;
}

static sinpe_status enqueue(sinpe_table *t, int k, cl_command_queue queue,
                            const sinpe_embed_args *a, cl_uint nwait, const cl_event *wait,
                            cl_event *event)
{
    embed_params p;
    cl_mem tab = NULL;
    size_t rows = 0;
    sinpe_status st;

    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(check_queue(t->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(nwait, wait));
    SINPE_FORWARD(validate(t, k, a, &p));

    sinpe_context *ctx = t->ctx;
    if (k != SINPE_K_GATHER)
        sinpe__table_snapshot(t, &tab, &rows);
    p.tab_rows = (cl_int)rows;
    cl_mem dummy = ctx->dummy;
    const cl_mem bufs[7] = {
        k != SINPE_K_ADD ? a->ids : dummy,     k != SINPE_K_ADD ? a->weights : dummy,
        a->out,                                tab ? tab : dummy,
        t->desc,                               p.has_pos ? a->positions : dummy,
        p.has_bad ? a->bad_ids : dummy,
    };
    const void *args[8];
    size_t sizes[8];
    for (int i = 0; i < 7; i++) {
        args[i] = &bufs[i];
        sizes[i] = sizeof(cl_mem);
    }
    args[7] = &p;
    sizes[7] = sizeof p;
    /* One work-item per 4 columns of a token row. */
    st = sinpe__context_launch(ctx, queue, k, 8, args, sizes, (t->spec.dim + 3) / 4, p.nrows,
                               nwait, wait, event);
    if (tab)
        clReleaseMemObject(tab); /* the enqueued kernel keeps its own hold */
    return st;
}

sinpe_status sinpe_enqueue_embed(sinpe_table *table, cl_command_queue queue,
                                 const sinpe_embed_args *args, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, SINPE_K_EMBED, queue, args, num_events_in_wait_list, event_wait_list,
                   event);
}

sinpe_status sinpe_enqueue_gather(sinpe_table *table, cl_command_queue queue,
                                  const sinpe_embed_args *args, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, SINPE_K_GATHER, queue, args, num_events_in_wait_list,
                   event_wait_list, event);
}

sinpe_status sinpe_enqueue_add_positions(sinpe_table *table, cl_command_queue queue,
                                         const sinpe_embed_args *args,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, SINPE_K_ADD, queue, args, num_events_in_wait_list, event_wait_list,
                   event);
}
