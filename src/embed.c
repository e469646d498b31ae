/*
 * embed.c -- the embedding calls (fused, gather, add positions): the facts
 * the plan needs, every launch of the plan with its arguments, and the
 * public functions.  The checks and the parameter block: embed_args.c.
 */
#include "embed.h"

#include <stdint.h>

/* Positions start + t: no buffer of positions, sequence starts or pad
   counts of the device's. */
static int start_plus_t(const sinpe_embed_args *a)
{
    return a->position_rule == SINPE_POSITIONS_INDEX && !a->positions && !a->seq_starts &&
           !a->pad_counts;
}

/* Whether buf's first byte is aligned to bytes (16 or 64): always for
 * memory the OpenCL runtime allocates (CL_DEVICE_MEM_BASE_ADDR_ALIGN is at
 * least 128 bytes on the devices that stream); a CL_MEM_USE_HOST_PTR buffer
 * may sit anywhere. */
static int base_aligned(cl_mem buf, uintptr_t bytes)
{
    void *host = NULL;
    if (clGetMemObjectInfo(buf, CL_MEM_HOST_PTR, sizeof host, &host, NULL) != CL_SUCCESS)
        return 0;
    return (uintptr_t)host % bytes == 0;
}

/* Whether the first byte of every weights buffer is aligned to 16. */
static int weights_aligned(const sinpe_embed_args *a)
{
    for (size_t j = 0; j < a->weights_count; j++)
        if (!base_aligned(a->weights_list[j], 16))
            return 0;
    return a->weights_count || base_aligned(a->weights, 16);
}

/* Whether every store of unit elements is aligned to its size: the
   dimension, output offset and stride are multiples of unit and the
   output's base aligned to bytes. */
static int stores_aligned(const sinpe_embed_args *a, const sinpe_embed_params *p, cl_ulong unit,
                          uintptr_t bytes)
{
    return p->dim % unit == 0 && p->out_off % unit == 0 && p->out_stride % unit == 0 &&
           base_aligned(a->out, bytes);
}

/*
 * The call of mode (p from its checked arguments, on a table of rows rows)
 * as the plan sees it under ctx's record (tuning.h), pre-passes included.
 * Positions start + t that leave the table: rather than compute each
 * element's anchor in the embedding kernel, the call first writes the rows
 * of its positions, [start, start + seq_len), into a buffer of its own
 * with the table's two launches (rows.c: the same operations, so the same
 * bits), then reads them as it reads the table, positions counted from
 * start (past).  Not when the rows exceed one allocation: those positions
 * stay on the fly (OTF).
 */
static sinpe__call embed_call(const sinpe_context *ctx, int mode, const sinpe_embed_args *a,
                              const sinpe_embed_params *p, size_t rows)
{
    size_t tokens = a->n_seqs * a->seq_len;
    sinpe__call c = {.mode = mode, .weights = (int)a->weights_dtype, .out = (int)a->out_dtype,
                     .tokens = tokens,
                     .out_bytes = sinpe_dtype_bytes(a->out_dtype, tokens * p->dim),
                     .n_seqs = a->n_seqs, .seq_len = a->seq_len, .dim = p->dim,
                     .start = a->start};
    c.past = mode != SINPE_MODE_GATHER && !(p->flags & SINPE_SKIP_PE) && start_plus_t(a) &&
             (a->start < 0 || (size_t)a->start + a->seq_len > rows) &&
             a->seq_len * p->dim * sizeof(float) <= ctx->info.max_alloc;
    c.fairseq = mode != SINPE_MODE_GATHER && a->position_rule == SINPE_POSITIONS_FAIRSEQ;
    c.bad_ids = mode != SINPE_MODE_ADD && a->bad_ids;
    /* What the output's launches read: the rows made, from 0, or the table. */
    cl_int start = c.past ? 0 : a->start;
    size_t tab_rows = c.past ? a->seq_len : rows;
    /* The FAST-family forms: every position start + t in the table, and no
       padding policy (gather reads no position: only a padding policy rules
       them out), nor an OWNER shard. */
    int in_table = start_plus_t(a) && start >= 0 && (size_t)start + a->seq_len <= tab_rows;
    c.fast = !(p->flags & SINPE_OWNER) && a->pad_policy == SINPE_PAD_NONE &&
             (mode == SINPE_MODE_GATHER || in_table);
    c.ordered = !a->positions && a->position_rule == SINPE_POSITIONS_INDEX;
    /* No position can lie in the table: it has no rows, or every position
       is start + t and the first is past its rows. */
    c.computed = mode != SINPE_MODE_GATHER &&
                 (tab_rows == 0 || (start_plus_t(a) && (size_t)start >= tab_rows &&
                                    start >= 0));
    c.lines = ctx->tune.stream && mode != SINPE_MODE_ADD && /* no query unless it matters */
              stores_aligned(a, p, 64 / sinpe_dtype_bytes(a->out_dtype, 1), 64);
    /* Every four-column access aligned to its size (kernels/dtype.cl), the
       weights' too (the table is ours). */
    c.aligned = ctx->tune.aligned &&
                (mode == SINPE_MODE_ADD ||
                 (p->e_off % 4 == 0 && p->e_stride % 4 == 0 && weights_aligned(a))) &&
                stores_aligned(a, p, 4, 16);
    return c;
}

/* The buffers a call's launches use beyond the caller's. */
typedef struct {
    cl_mem tab;  /* what the output's launches read as the table */
    cl_mem made; /* the rows past the table (the steps' output), or NULL */
    cl_mem anc;  /* their anchors */
    cl_mem pos;  /* fairseq's positions, or NULL */
} buffers;

/* Takes the buffers of plan c (the only steps that allocate, before any
   launch is in, so that a failed allocation leaves nothing enqueued). */
static sinpe_status take(sinpe_table *t, sinpe__sink *sink, const sinpe__call *c,
                         const sinpe__plan *plan, buffers *b)
{
    sinpe_context *ctx = t->ctx;
    size_t dim = t->spec.dim;
    cl_int err = CL_SUCCESS;
    if (c->past) {
        SINPE_FORWARD(sinpe__scratch_take(t, sink, 0, c->seq_len * dim * sizeof(float), &b->made));
        SINPE_FORWARD(sinpe__scratch_take(t, sink, 1, plan->blocks * dim * 4 * sizeof(float),
                                          &b->anc));
        SINPE_FORWARD(sinpe__keep(sink, b->made));
        SINPE_FORWARD(sinpe__keep(sink, b->anc));
    }
    if (c->fairseq)
        b->pos = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, c->tokens * sizeof(cl_int), NULL,
                                &err);
    SINPE_CL_CHECK(err, "clCreateBuffer(positions)");
    return sinpe__keep(sink, b->made ? b->made : b->tab);
}

/* Emits launch l of the call (a its arguments, p its parameter block). */
static sinpe_status emit(sinpe_table *t, sinpe__sink *sink, const sinpe__plan *plan,
                         const sinpe__launch *l, const sinpe_embed_args *a,
                         const sinpe_embed_params *p, const buffers *b)
{
    sinpe_context *ctx = t->ctx;
    cl_mem d = ctx->dummy;
    int last = l == &plan->launch[plan->n - 1];
    sinpe__anchors_kargs va;
    sinpe__rows_kargs vr;
    switch (l->step) {
    case SINPE__STEP_ANCHORS:
    case SINPE__STEP_ROWS:
        sinpe__rows_args(t, a->start, a->seq_len, b->made, 0, t->spec.dim, b->anc, &va, &vr);
        return l->step == SINPE__STEP_ANCHORS ? sink->emit(sink, ctx, l, &va, sizeof va, last)
                                              : sink->emit(sink, ctx, l, &vr, sizeof vr, last);
    case SINPE__STEP_POSITIONS: {
        const sinpe__positions_kargs v = {
            .ids = a->ids, .ids_off = a->ids_offset, .pos = b->pos,
            .seq_len = (cl_uint)a->seq_len, .pad = a->pad_id, .start = a->start,
            .scan = l->local[0] * sizeof(cl_int)};
        return sink->emit(sink, ctx, l, &v, sizeof v, last);
    }
    case SINPE__STEP_BAD_IDS: {
        /* Both ends unsharded, the negative ids for a ROWS shard, the ends
           an OWNER shard owns. */
        int owner = (p->flags & SINPE_OWNER) != 0;
        const sinpe__bad_ids_kargs v = {
            .ids = a->ids, .ids_off = a->ids_offset, .n = (cl_uint)(a->n_seqs * a->seq_len),
            .below = !owner || (p->flags & SINPE_OWNS_BELOW) != 0,
            .above = !a->vocab_shard || (p->flags & SINPE_OWNS_ABOVE) != 0,
            .end = p->vocab_start + p->vocab, .bad = a->bad_ids, .bad_off = a->bad_ids_offset};
        return sink->emit(sink, ctx, l, &v, sizeof v, last);
    }
    default: {
        /* The weights' buffers: weights, or weights_list (E1 .. E3 past
           the list: E again, never read). */
        cl_mem e[SINPE_WEIGHTS_BUFFERS];
        for (size_t j = 0; j < SINPE_WEIGHTS_BUFFERS; j++)
            e[j] = !p->e_stride ? d /* add */
                   : j < a->weights_count ? a->weights_list[j]
                   : j ? e[0] : a->weights;
        const sinpe__embed_kargs v = {
            .ids = a->ids ? a->ids : d, .E = e[0], .E1 = e[1], .E2 = e[2], .E3 = e[3],
            .out = a->out,
            .tab = b->made ? b->made : b->tab ? b->tab : d, .coef = t->desc,
            .pos = b->pos ? b->pos : (p->pos.flags & SINPE_HAS_POS) ? a->positions : d,
            .seq_start = (p->pos.flags & SINPE_HAS_SEQ_START) ? a->seq_starts : d,
            .pad_count = (p->pos.flags & SINPE_HAS_PAD_COUNT) ? a->pad_counts : d,
            .ws = p->ws_type != SINPE_SCALES_NONE ? a->weight_scales : d, .a = *p};
        return sink->emit(sink, ctx, l, &v, sizeof v, last);
    }
    }
}

/* The call of mode with the caller's arguments args into sink. */
static sinpe_status embed_run(sinpe_table *t, int mode, const sinpe_embed_args *args,
                              sinpe__sink *sink)
{
    sinpe_context *ctx = t->ctx;
    sinpe_embed_args a;
    sinpe_embed_params p;
    const sinpe__program *prog = &ctx->prog;
    sinpe__plan plan;
    buffers b = {NULL, NULL, NULL, NULL};
    size_t rows = 0;

    sinpe_embed_args_init(&a); /* the caller's struct, of any layout, as ours */
    SINPE_FORWARD(sinpe__struct_in(SINPE__ARGS, &a, args, "args"));
    SINPE_FORWARD(sinpe__embed_validate(t, mode, &a, &p));
    if (mode == SINPE_MODE_ADD) /* adding reads no weights */
        a.weights_count = 0;
    SINPE_CHECK(sink->keep && mode != SINPE_MODE_GATHER &&
                    a.position_rule == SINPE_POSITIONS_FAIRSEQ,
                SINPE_UNSUPPORTED,
                "args->position_rule FAIRSEQ cannot be recorded (its positions need a "
                "buffer of each call's own)");
    if (mode != SINPE_MODE_ADD) /* before anything is enqueued */
        SINPE_FORWARD(sinpe__context_weights(ctx, a.weights_dtype, &prog));
    if (mode != SINPE_MODE_GATHER)
        sinpe__table_snapshot(t, &b.tab, &rows);
    const sinpe__call c = embed_call(ctx, mode, &a, &p, rows);
    sinpe_status st = sinpe__plan_embed(&ctx->tune, &ctx->info, &ctx->prog, prog, &c, &plan);
    if (st == SINPE_SUCCESS)
        st = take(t, sink, &c, &plan, &b);
    if (st == SINPE_SUCCESS) {
        /* The parameter block's last fields, each written once: where the
           output's launches find positions and rows after the pre-passes. */
        sinpe__positions src = sinpe__embed_positions(mode, &a);
        if (c.past)
            src.start = 0;
        if (c.fairseq) {
            const sinpe__positions made = {.positions = b.pos, .seq_starts = a.seq_starts,
                                           .seq_starts_offset = a.seq_starts_offset,
                                           .pad_counts = a.pad_counts,
                                           .pad_counts_offset = a.pad_counts_offset,
                                           .n_seqs = a.n_seqs, .seq_len = a.seq_len};
            src = made;
        }
        p.pos = sinpe__positions_params(&src);
        p.tab_rows = (cl_int)(c.past ? a.seq_len : rows);
        p.flags |= plan.flags | t->pairs;
    }
    for (int i = 0; st == SINPE_SUCCESS && i < plan.n; i++)
        st = emit(t, sink, &plan, &plan.launch[i], &a, &p, &b);
    /* The enqueued commands keep their own hold on these. */
    const cl_mem mine[4] = {b.tab, b.made, b.anc, b.pos};
    for (int i = 0; i < 4; i++)
        if (mine[i])
            clReleaseMemObject(mine[i]);
    return st;
}

static sinpe_status enqueue(int op, int mode, sinpe_table *t, cl_command_queue queue,
                            const sinpe_embed_args *a, cl_uint nwait, const cl_event *wait,
                            cl_event *event)
{
    sinpe__queue_sink q;
    SINPE_FORWARD(sinpe__enqueue_open(op, t, queue, a, nwait, wait, event, &q));
    return sinpe__queue_close(&q, embed_run(t, mode, a, &q.base));
}

static sinpe_status record(int op, int mode, sinpe_table *t, cl_command_queue queue,
                           struct _cl_command_buffer_khr *cb, const sinpe_embed_args *a,
                           cl_uint nsync, const cl_uint *sync, cl_uint *point)
{
    sinpe__record_sink r;
    SINPE_FORWARD(sinpe__record_open(op, t, queue, cb, a, nsync, sync, point, &r));
    return sinpe__record_close(&r, embed_run(t, mode, a, &r.base));
}

sinpe_status sinpe_enqueue_embed(sinpe_table *t, cl_command_queue q, const sinpe_embed_args *a,
                                 cl_uint nwait, const cl_event *wait, cl_event *event)
{
    return enqueue(SINPE__OP_EMBED, SINPE_MODE_FUSED, t, q, a, nwait, wait, event);
}

sinpe_status sinpe_enqueue_gather(sinpe_table *t, cl_command_queue q, const sinpe_embed_args *a,
                                  cl_uint nwait, const cl_event *wait, cl_event *event)
{
    return enqueue(SINPE__OP_GATHER, SINPE_MODE_GATHER, t, q, a, nwait, wait, event);
}

sinpe_status sinpe_enqueue_add_positions(sinpe_table *t, cl_command_queue q,
                                         const sinpe_embed_args *a, cl_uint nwait,
                                         const cl_event *wait, cl_event *event)
{
    return enqueue(SINPE__OP_ADD, SINPE_MODE_ADD, t, q, a, nwait, wait, event);
}

sinpe_status sinpe_record_embed(sinpe_table *t, cl_command_queue q,
                                struct _cl_command_buffer_khr *cb, const sinpe_embed_args *a,
                                cl_uint n, const cl_uint *sync, cl_uint *point)
{
    return record(SINPE__OP_EMBED, SINPE_MODE_FUSED, t, q, cb, a, n, sync, point);
}

sinpe_status sinpe_record_gather(sinpe_table *t, cl_command_queue q,
                                 struct _cl_command_buffer_khr *cb, const sinpe_embed_args *a,
                                 cl_uint n, const cl_uint *sync, cl_uint *point)
{
    return record(SINPE__OP_GATHER, SINPE_MODE_GATHER, t, q, cb, a, n, sync, point);
}

sinpe_status sinpe_record_add_positions(sinpe_table *t, cl_command_queue q,
                                        struct _cl_command_buffer_khr *cb,
                                        const sinpe_embed_args *a, cl_uint n,
                                        const cl_uint *sync, cl_uint *point)
{
    return record(SINPE__OP_ADD, SINPE_MODE_ADD, t, q, cb, a, n, sync, point);
}
