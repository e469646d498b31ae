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
    size_t n = a->n_seqs * a->seq_len, wg = 1;
    size_t cap = ctx->prog.wg[SINPE_K_MAKE_POS];
    cl_int err;
    while (wg * 2 <= cap && wg * 2 <= 256 && wg * 2 <= ctx->info.max_item[0])
        wg *= 2;
    *pos = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, n * sizeof(cl_int), NULL, &err);
    SINPE_CL_CHECK(err, "clCreateBuffer(positions)");
    cl_ulong ids_off = a->ids_offset;
    cl_uint seq_len = (cl_uint)a->seq_len;
    const void *args[] = {&a->ids, &ids_off, pos, &seq_len, &a->pad_id, &a->start, NULL};
    const size_t sizes[] = {sizeof(cl_mem), sizeof ids_off, sizeof(cl_mem), sizeof seq_len,
                            sizeof(cl_int), sizeof(cl_int), wg * sizeof(cl_int)};
    const sinpe__launch l = {ctx->prog.kernels[SINPE_K_MAKE_POS], 2, {wg, a->n_seqs, 1},
                             {wg, 1, 1}};
    return sink->emit(sink, ctx, &l, 7, args, sizes, 0);
}

/* Adds the out-of-range ids to the caller's counter (its own small kernel):
   both ends unsharded, the negative ids for a ROWS shard, the ends an
   OWNER shard owns (p->flags, from validation). */
static sinpe_status count_bad_ids(sinpe_context *ctx, sinpe__sink *sink,
                                  const sinpe_embed_args *a, const sinpe_embed_params *p)
{
    cl_ulong ids_off = a->ids_offset, bad_off = a->bad_ids_offset;
    cl_uint n = (cl_uint)(a->n_seqs * a->seq_len);
    int owner = (p->flags & SINPE_OWNER) != 0;
    cl_int end = p->vocab_start + p->vocab;
    cl_int below = !owner || (p->flags & SINPE_OWNS_BELOW) != 0;
    cl_int above = !a->vocab_shard || (p->flags & SINPE_OWNS_ABOVE) != 0;
    const void *args[] = {&a->ids, &ids_off, &n, &below, &above, &end, &a->bad_ids, &bad_off};
    const size_t sizes[] = {sizeof(cl_mem), sizeof ids_off, sizeof n, sizeof below,
                            sizeof above, sizeof end, sizeof(cl_mem), sizeof bad_off};
    const size_t cols[2] = {n, 1};
    sinpe__launch l;
    sinpe__plan_local(ctx, &ctx->prog, SINPE_K_COUNT_BAD, 2, 2, cols, &l);
    return sink->emit(sink, ctx, &l, 8, args, sizes, 0);
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
    size_t word;
    int fairseq;

    if (a) { /* the caller's struct, of any layout, as ours */
        sinpe_embed_args_init(&own);
        SINPE_FORWARD(sinpe__struct_in(SINPE__ARGS, &own, a, &word, "args"));
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
    if (st == SINPE_SUCCESS && fairseq) {
        st = make_positions(ctx, sink, a, &made_pos);
        p.flags |= SINPE_HAS_POS;
        p.pos_off = 0;
        p.start = 0;
    }
    if (st != SINPE_SUCCESS) {
        if (tab)
            clReleaseMemObject(tab);
        if (made_pos)
            clReleaseMemObject(made_pos);
        return st;
    }
    p.tab_rows = (cl_int)rows;
    sinpe__plan_embed(ctx, prog, mode, a, &p, &plan);
    p.flags |= plan.flags;

    cl_mem d = ctx->dummy;
    const cl_mem bufs[9] = {
        a->ids ? a->ids : d,
        mode != SINPE_MODE_ADD ? a->weights : d,
        a->out,
        tab ? tab : d,
        t->desc,
        made_pos ? made_pos : (p.flags & SINPE_HAS_POS) ? a->positions : d,
        (p.flags & SINPE_HAS_SEQ_START) ? a->seq_starts : d,
        (p.flags & SINPE_HAS_PAD_COUNT) ? a->pad_counts : d,
        p.ws_type != SINPE_SCALES_NONE ? a->weight_scales : d,
    };
    const void *args[10];
    size_t sizes[10];
    for (int i = 0; i < 9; i++) {
        args[i] = &bufs[i];
        sizes[i] = sizeof(cl_mem);
    }
    args[9] = &p;
    sizes[9] = sizeof p;
    /* Two launches (TABLE, then OTF) run one after the other. */
    for (int i = 0; i < plan.n && st == SINPE_SUCCESS; i++)
        st = sink->emit(sink, ctx, &plan.launch[i], 10, args, sizes, i == plan.n - 1);
    /* The enqueued commands keep their own hold on these. */
    if (tab)
        clReleaseMemObject(tab);
    if (made_pos)
        clReleaseMemObject(made_pos);
    return st;
}

/* Launches on a queue, each waiting for the one before (the first for the
   caller's wait list): the queue may be out of order. */
typedef struct {
    sinpe__sink base;
    cl_command_queue queue;
    cl_uint nwait;
    const cl_event *wait;
    cl_event prev;
    cl_event *event;
} queue_sink;

static sinpe_status queue_emit(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                               cl_uint nargs, const void *const *args, const size_t *sizes,
                               int last)
{
    queue_sink *q = (queue_sink *)s;
    cl_event done = NULL;
    sinpe_status st = sinpe__context_enqueue(ctx, q->queue, l, nargs, args, sizes,
                                             q->prev ? 1 : q->nwait,
                                             q->prev ? &q->prev : q->wait,
                                             last ? q->event : &done);
    if (q->prev)
        clReleaseEvent(q->prev);
    q->prev = done;
    return st;
}

static sinpe_status enqueue(sinpe_table *t, int mode, cl_command_queue queue,
                            const sinpe_embed_args *a, cl_uint nwait, const cl_event *wait,
                            cl_event *event)
{
    queue_sink q = {{queue_emit, 0}, queue, nwait, wait, NULL, event};
    sinpe_status st;

    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__check_queue(t->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(t->ctx, nwait, wait));
    st = sinpe__embed_run(t, mode, a, &q.base);
    if (q.prev)
        clReleaseEvent(q.prev);
    return st;
}

sinpe_status sinpe_enqueue_embed(sinpe_table *table, cl_command_queue queue,
                                 const sinpe_embed_args *args, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, SINPE_MODE_FUSED, queue, args, num_events_in_wait_list,
                   event_wait_list, event);
}

sinpe_status sinpe_enqueue_gather(sinpe_table *table, cl_command_queue queue,
                                  const sinpe_embed_args *args, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, SINPE_MODE_GATHER, queue, args, num_events_in_wait_list,
                   event_wait_list, event);
}

sinpe_status sinpe_enqueue_add_positions(sinpe_table *table, cl_command_queue queue,
                                         const sinpe_embed_args *args,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, SINPE_MODE_ADD, queue, args, num_events_in_wait_list,
                   event_wait_list, event);
}
