/*
 * embed.c -- the fused call and the unfused pair: their pre-passes, then
 * the launches that plan.c chose for the call.  The arguments are checked
 * first (embed_args.c).
 */
#include "embed.h"

/* fairseq positions into a temporary buffer, one work-group per sequence. */
static sinpe_status make_positions(sinpe_context *ctx, sinpe__sink *sink,
                                   const sinpe_embed_args *a, cl_mem *pos)
{
    sinpe__launch l;
    cl_int err;
    SINPE_FORWARD(sinpe__plan_positions(&ctx->info, &ctx->prog, a->n_seqs, &l));
    *pos = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, a->n_seqs * a->seq_len * sizeof(cl_int),
                          NULL, &err);
    SINPE_CL_CHECK(err, "clCreateBuffer(positions)");
    const sinpe__positions_kargs v = {.ids = a->ids, .ids_off = a->ids_offset, .pos = *pos,
                                      .seq_len = (cl_uint)a->seq_len, .pad = a->pad_id,
                                      .start = a->start, .scan = l.local[0] * sizeof(cl_int)};
    return sink->emit(sink, ctx, &l, &v, sizeof v, 0);
}

/* Adds the out-of-range ids to the caller's counter (its own small kernel):
   both ends unsharded, the negative ids for a ROWS shard, the ends an
   OWNER shard owns (p->flags, from validation). */
static sinpe_status count_bad_ids(sinpe_context *ctx, sinpe__sink *sink,
                                  const sinpe_embed_args *a, const sinpe_embed_params *p)
{
    int owner = (p->flags & SINPE_OWNER) != 0;
    const sinpe__bad_ids_kargs v = {.ids = a->ids, .ids_off = a->ids_offset,
                                    .n = (cl_uint)(a->n_seqs * a->seq_len),
                                    .below = !owner || (p->flags & SINPE_OWNS_BELOW) != 0,
                                    .above = !a->vocab_shard || (p->flags & SINPE_OWNS_ABOVE) != 0,
                                    .end = p->vocab_start + p->vocab, .bad = a->bad_ids,
                                    .bad_off = a->bad_ids_offset};
    const size_t n[2] = {v.n, 1};
    sinpe__launch l;
    SINPE_FORWARD(sinpe__plan_fixed(&ctx->info, &ctx->prog, SINPE_FORM_BAD_IDS, SINPE_F32, 2, n,
                                    &l));
    return sink->emit(sink, ctx, &l, &v, sizeof v, 0);
}

/*
 * Positions start + t (no buffer, offset or count of the device's) that
 * leave the table: rather than compute each element's anchor in the
 * embedding kernel, the call first writes the rows of its positions,
 * [start, start + seq_len), into a buffer of its own with the table's two
 * launches (rows.c: the same operations, so the same bits), then reads
 * them as it reads the table, positions counted from start.  Not when the
 * rows exceed one allocation: those positions stay on the fly (OTF).
 */
static int past_table(const sinpe_context *ctx, int mode, const sinpe_embed_args *a,
                      const sinpe_embed_params *p, size_t rows)
{
    return mode != SINPE_MODE_GATHER && !(p->flags & SINPE_SKIP_PE) &&
           a->position_rule == SINPE_POSITIONS_INDEX && !a->positions && !a->seq_starts &&
           !a->pad_counts && (a->start < 0 || (size_t)a->start + a->seq_len > rows) &&
           a->seq_len * p->dim * sizeof(float) <= ctx->info.max_alloc;
}

/* The rows of positions [a->start, a->start + seq_len) into *rows_out
   (released by the caller; a recording's table holds it and the anchors). */
static sinpe_status past_rows(sinpe_table *t, sinpe__sink *sink, const sinpe_embed_args *a,
                              cl_mem *rows_out)
{
    size_t dim = t->spec.dim;
    cl_mem mem;
    SINPE_FORWARD(sinpe__scratch_take(t, sink, 0, a->seq_len * dim * sizeof(float), &mem));
    sinpe_status st = sinpe__rows_emit(t, sink, a->start, a->seq_len, mem, 0, dim, SINPE_F32, 0);
    if (st == SINPE_SUCCESS)
        *rows_out = mem;
    else
        clReleaseMemObject(mem);
    return st;
}

sinpe_status sinpe__embed_run(sinpe_table *t, int mode, const sinpe_embed_args *a,
                              sinpe__sink *sink)
{
    sinpe_embed_params p;
    const sinpe__program *prog;
    sinpe__plan plan;
    cl_mem tab = NULL, made_pos = NULL;
    size_t rows = 0;
    sinpe_status st = SINPE_SUCCESS;
    sinpe_embed_args own;
    int fairseq;

    if (a) { /* the caller's struct, of any layout, as ours */
        sinpe_embed_args_init(&own);
        SINPE_FORWARD(sinpe__struct_in(SINPE__ARGS, &own, a, "args"));
        a = &own;
    }
    fairseq = mode != SINPE_MODE_GATHER && a && a->position_rule == SINPE_POSITIONS_FAIRSEQ;
    SINPE_FORWARD(sinpe__embed_validate(t, mode, a, &p));
    SINPE_CHECK(sink->recording && fairseq, SINPE_UNSUPPORTED,
                "args->position_rule FAIRSEQ cannot be recorded (its positions need a "
                "buffer of each call's own)");
    sinpe_context *ctx = t->ctx;
    prog = &ctx->prog;
    if (mode != SINPE_MODE_ADD) /* before anything is enqueued */
        SINPE_FORWARD(sinpe__context_weights(ctx, a->weights_dtype, &prog));
    if (mode != SINPE_MODE_GATHER)
        sinpe__table_snapshot(t, &tab, &rows);
    if (tab && sink->recording)
        st = sinpe__table_keep(t, tab, 0);
    if (st == SINPE_SUCCESS && mode != SINPE_MODE_ADD && a->bad_ids)
        st = count_bad_ids(ctx, sink, a, &p);
    if (st == SINPE_SUCCESS && past_table(ctx, mode, a, &p, rows)) {
        cl_mem own_rows = NULL;
        st = past_rows(t, sink, a, &own_rows);
        if (st == SINPE_SUCCESS) {
            if (tab)
                clReleaseMemObject(tab);
            tab = own_rows;
            rows = a->seq_len;
            own.start = 0; /* a is &own */
            p.start = 0;
        }
    }
    if (st == SINPE_SUCCESS && fairseq) {
        st = make_positions(ctx, sink, a, &made_pos);
        p.flags |= SINPE_HAS_POS;
        p.pos_off = 0;
        p.start = 0;
    }
    if (st == SINPE_SUCCESS) {
        p.tab_rows = (cl_int)rows;
        st = sinpe__plan_embed(&ctx->tune, &ctx->info, prog, mode, a, &p, &plan);
        p.flags |= plan.flags | t->pairs;
    }
    cl_mem d = ctx->dummy;
    const sinpe__embed_kargs v = {
        .ids = a->ids ? a->ids : d, .E = mode != SINPE_MODE_ADD ? a->weights : d, .out = a->out,
        .tab = tab ? tab : d, .coef = t->desc,
        .pos = made_pos ? made_pos : (p.flags & SINPE_HAS_POS) ? a->positions : d,
        .seq_start = (p.flags & SINPE_HAS_SEQ_START) ? a->seq_starts : d,
        .pad_count = (p.flags & SINPE_HAS_PAD_COUNT) ? a->pad_counts : d,
        .ws = p.ws_type != SINPE_SCALES_NONE ? a->weight_scales : d, .a = p};
    /* Two launches (TABLE, then OTF) run one after the other. */
    for (int i = 0; st == SINPE_SUCCESS && i < plan.n; i++)
        st = sink->emit(sink, ctx, &plan.launch[i], &v, sizeof v, i == plan.n - 1);
    /* The enqueued commands keep their own hold on these. */
    if (tab)
        clReleaseMemObject(tab);
    if (made_pos)
        clReleaseMemObject(made_pos);
    return st;
}

sinpe_status sinpe__queue_emit(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                               const void *args, size_t size, int last)
{
    sinpe__queue_sink *q = (sinpe__queue_sink *)s;
    cl_event done = NULL;
    /* Under the context lock: clSetKernelArg on a shared kernel is not thread-safe. */
    pthread_mutex_lock(&ctx->lock);
    cl_int err = sinpe__set_args(l->kernel, l->k, args, size);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q->queue, l->kernel, l->dims, NULL, l->global, l->local,
                                     q->prev ? 1 : q->nwait, q->prev ? &q->prev : q->wait,
                                     &done);
    pthread_mutex_unlock(&ctx->lock);
    SINPE_CL_CHECK(err, "clEnqueueNDRangeKernel");
    if (q->prev)
        clReleaseEvent(q->prev);
    q->prev = done;
    if (last && q->event) {
        clRetainEvent(done);
        *q->event = done;
    }
    return SINPE_SUCCESS;
}

static sinpe_status enqueue_call(sinpe_table *t, int mode, cl_command_queue queue, const void *a,
                                 cl_uint nwait, const cl_event *wait, cl_event *event)
{
    sinpe__queue_sink q = {{sinpe__queue_emit, 0}, queue, nwait, wait, NULL, event};
    sinpe_status st;

    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__check_queue(t->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(t->ctx, nwait, wait));
    st = mode == SINPE_MODE_NONE ? sinpe__rope_run(t, a, &q.base)
                                 : sinpe__embed_run(t, mode, a, &q.base);
    sinpe__scratch_give(t, &q.base, q.prev);
    if (q.prev)
        clReleaseEvent(q.prev);
    return st;
}

sinpe_status sinpe_enqueue_embed(sinpe_table *t, cl_command_queue q, const sinpe_embed_args *a,
                                 cl_uint nwait, const cl_event *wait, cl_event *event)
{
    return enqueue_call(t, SINPE_MODE_FUSED, q, a, nwait, wait, event);
}

sinpe_status sinpe_enqueue_gather(sinpe_table *t, cl_command_queue q, const sinpe_embed_args *a,
                                  cl_uint nwait, const cl_event *wait, cl_event *event)
{
    return enqueue_call(t, SINPE_MODE_GATHER, q, a, nwait, wait, event);
}

sinpe_status sinpe_enqueue_add_positions(sinpe_table *t, cl_command_queue q,
                                         const sinpe_embed_args *a, cl_uint nwait,
                                         const cl_event *wait, cl_event *event)
{
    return enqueue_call(t, SINPE_MODE_ADD, q, a, nwait, wait, event);
}

sinpe_status sinpe_enqueue_rope(sinpe_table *t, cl_command_queue q, const sinpe_rope_args *a,
                                cl_uint nwait, const cl_event *wait, cl_event *event)
{
    return enqueue_call(t, SINPE_MODE_NONE, q, a, nwait, wait, event);
}
