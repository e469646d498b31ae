/*
 * embed.c -- the fused call and the unfused pair: their pre-passes, then
 * the launches that plan.c chose for the call.  The arguments are checked
 * first (embed_args.c).
 */
#include "embed.h"

#include <stdint.h>

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

/* Positions start + t: no buffer of positions, sequence starts or pad
   counts of the device's. */
static int start_plus_t(const sinpe_embed_args *a)
{
    return a->position_rule == SINPE_POSITIONS_INDEX && !a->positions && !a->seq_starts &&
           !a->pad_counts;
}

/*
 * Positions start + t that leave the table: rather than compute each
 * element's anchor in the embedding kernel, the call first writes the rows
 * of its positions, [start, start + seq_len), into a buffer of its own
 * with the table's two launches (rows.c: the same operations, so the same
 * bits), then reads them as it reads the table, positions counted from
 * start.  Not when the rows exceed one allocation: those positions stay on
 * the fly (OTF).
 */
static int past_table(const sinpe_context *ctx, int mode, const sinpe_embed_args *a,
                      const sinpe_embed_params *p, size_t rows)
{
    return mode != SINPE_MODE_GATHER && !(p->flags & SINPE_SKIP_PE) && start_plus_t(a) &&
           (a->start < 0 || (size_t)a->start + a->seq_len > rows) &&
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

/* Whether every store of unit elements is aligned to its size: the
   dimension, output offset and stride are multiples of unit and the
   output's base aligned to bytes. */
static int stores_aligned(const sinpe_embed_args *a, const sinpe_embed_params *p, cl_ulong unit,
                          uintptr_t bytes)
{
    return p->dim % unit == 0 && p->out_off % unit == 0 && p->out_stride % unit == 0 &&
           base_aligned(a->out, bytes);
}

/* The call of mode (p from its arguments, on a table of p->tab_rows rows)
   as the plan sees it under t (tuning.h). */
static sinpe__call embed_call(const sinpe__tuning *t, int mode, const sinpe_embed_args *a,
                              const sinpe_embed_params *p)
{
    size_t tokens = a->n_seqs * a->seq_len;
    sinpe__call c = {.mode = mode, .weights = (int)a->weights_dtype, .out = (int)a->out_dtype,
                     .tokens = tokens,
                     .out_bytes = sinpe_dtype_bytes(a->out_dtype, tokens * p->dim),
                     .n_seqs = a->n_seqs, .seq_len = a->seq_len, .dim = p->dim};
    /* The FAST-family forms: every position start + t in the table, and no
       padding policy (gather reads no position: only a padding policy rules
       them out), nor an OWNER shard. */
    int in_table = start_plus_t(a) && a->start >= 0 &&
                   (size_t)a->start + a->seq_len <= (size_t)p->tab_rows;
    c.fast = !(p->flags & SINPE_OWNER) && a->pad_policy == SINPE_PAD_NONE &&
             (mode == SINPE_MODE_GATHER || in_table);
    c.ordered = !a->positions && a->position_rule == SINPE_POSITIONS_INDEX;
    /* No position can lie in the table: it has no rows, or every position
       is start + t and the first is past its rows. */
    c.computed = mode != SINPE_MODE_GATHER &&
                 (p->tab_rows == 0 || (start_plus_t(a) && a->start >= p->tab_rows));
    c.lines = t->stream && mode != SINPE_MODE_ADD && /* no query unless it matters */
              stores_aligned(a, p, 64 / sinpe_dtype_bytes(a->out_dtype, 1), 64);
    /* Every four-column access aligned to its size (kernels/dtype.cl), the
       weights' too (the table is ours). */
    c.aligned = t->aligned &&
                (mode == SINPE_MODE_ADD ||
                 (p->e_off % 4 == 0 && p->e_stride % 4 == 0 && base_aligned(a->weights, 16))) &&
                stores_aligned(a, p, 4, 16);
    return c;
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
    SINPE_CHECK(sink->keep && fairseq, SINPE_UNSUPPORTED,
                "args->position_rule FAIRSEQ cannot be recorded (its positions need a "
                "buffer of each call's own)");
    sinpe_context *ctx = t->ctx;
    prog = &ctx->prog;
    if (mode != SINPE_MODE_ADD) /* before anything is enqueued */
        SINPE_FORWARD(sinpe__context_weights(ctx, a->weights_dtype, &prog));
    if (mode != SINPE_MODE_GATHER)
        sinpe__table_snapshot(t, &tab, &rows);
    st = sinpe__keep(sink, tab);
    /* The steps that allocate come first (at most one of them applies), so
       that a failed allocation leaves nothing enqueued. */
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
    if (st == SINPE_SUCCESS && mode != SINPE_MODE_ADD && a->bad_ids)
        st = count_bad_ids(ctx, sink, a, &p);
    if (st == SINPE_SUCCESS) {
        p.tab_rows = (cl_int)rows;
        const sinpe__call c = embed_call(&ctx->tune, mode, a, &p);
        st = sinpe__plan_embed(&ctx->tune, &ctx->info, prog, &c, &plan);
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

static sinpe_status enqueue_call(sinpe_table *t, int mode, cl_command_queue queue, const void *a,
                                 cl_uint nwait, const cl_event *wait, cl_event *event)
{
    sinpe__queue_sink q = {{sinpe__queue_emit, NULL}, queue, nwait, wait, NULL, event};
    sinpe_status st;

    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__check_queue(t->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(t->ctx, nwait, wait));
    st = mode == SINPE_MODE_NONE ? sinpe__rope_run(t, a, &q.base)
                                 : sinpe__embed_run(t, mode, a, &q.base);
    sinpe__queue_done(t, &q);
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
