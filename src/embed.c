/*
 * embed.c -- the launch of the fused kernel and the unfused pair: which
 * kernel part and body a call takes (kernels/embed*.cl), and the passes
 * ahead of it.  The arguments are checked first (embed_args.c).
 */
#include "embed.h"

#include <stdint.h>

/* Whether buf's first byte is 16-byte aligned: always for memory the OpenCL
 * runtime allocates; a CL_MEM_USE_HOST_PTR buffer may sit anywhere. */
static int base_aligned(cl_mem buf)
{
    void *host = NULL;
    if (clGetMemObjectInfo(buf, CL_MEM_HOST_PTR, sizeof host, &host, NULL) != CL_SUCCESS)
        return 0;
    return (uintptr_t)host % 16 == 0;
}

/* Whether every store of unit elements is aligned to its size: the
   dimension, output offset and stride are multiples of unit and the
   output's base 16-byte aligned. */
static int stores_aligned(const sinpe_embed_args *a, const embed_params *p, cl_ulong unit)
{
    return p->dim % unit == 0 && p->out_off % unit == 0 && p->out_stride % unit == 0 &&
           base_aligned(a->out);
}

/* Whether every four-column access of the call is aligned to its size
   (kernels/dtype.cl): the weights' too.  The table is ours. */
static int accesses_aligned(int mode, const sinpe_embed_args *a, const embed_params *p)
{
    if (mode != MODE_ADD && (p->e_off % 4 || p->e_stride % 4 || !base_aligned(a->weights)))
        return 0;
    return stores_aligned(a, p, 4);
}

/* The element multiple that the stores of a _stream or _table_stream kernel
   need for their 16-byte alignment: four floats, or eight values of a 16-bit
   type, which those kernels write eight at a time (kernels/embed_fast.cl,
   sinpe_stream16_body; kernels/embed_two_pass.cl). */
static cl_ulong stream_unit(sinpe_dtype out_dtype)
{
    return out_dtype == SINPE_F32 ? 4 : 8;
}

/* Whether a _fast kernel runs in scalar form, one column per work-item in
   groups along the row: SINPE_TAKES_COL in kernels/embed_fast.cl. */
static int takes_col(const sinpe__tuning *tu, int mode, const sinpe_embed_args *a)
{
    return tu->col_bf16 && mode != MODE_ADD && a->weights_dtype == SINPE_BF16 &&
           a->out_dtype == SINPE_BF16;
}

/* Whether the call's output is below SINPE_STREAM_BYTES. */
static int small_output(const sinpe_embed_args *a, size_t dim)
{
    return a->n_seqs * a->seq_len * dim * dtype_size(a->out_dtype) < SINPE_STREAM_BYTES;
}

/* Whether a call that can stream (with aligned stores) does: by the size
   of its output (tune.stream, sinpe__tuning). */
static int streams(const sinpe__tuning *tu, const sinpe_embed_args *a, size_t dim)
{
    return tu->stream == 2 || (tu->stream == 1 && !small_output(a, dim));
}

/* Whether the call is decode-sized, for the whole-row forms (tune.row). */
static int row_sized(const sinpe__tuning *tu, const sinpe_embed_args *a, size_t dim)
{
    return tu->row && a->n_seqs * a->seq_len <= SINPE_ROW_TOKENS && small_output(a, dim);
}

/* fairseq positions into a temporary buffer, one work-group per sequence. */
static sinpe_status make_positions(sinpe_context *ctx, cl_command_queue queue,
                                   const sinpe_embed_args *a, cl_mem *pos, cl_uint nwait,
                                   const cl_event *wait, cl_event *done)
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
    const size_t global[2] = {wg, a->n_seqs}, local[2] = {wg, 1};
    sinpe_status st = sinpe__context_launch_at(ctx, queue, SINPE_K_MAKE_POS, 2, 7, args, sizes,
                                               global, local, nwait, wait, done);
    if (st != SINPE_SUCCESS) {
        clReleaseMemObject(*pos);
        *pos = NULL;
    }
    return st;
}

/* Adds the out-of-range ids to the caller's counter (its own small kernel). */
static sinpe_status count_bad_ids(sinpe_context *ctx, cl_command_queue queue,
                                  const sinpe_embed_args *a, cl_uint nwait, const cl_event *wait,
                                  cl_event *done)
{
    cl_ulong ids_off = a->ids_offset, bad_off = a->bad_ids_offset;
    cl_uint n = (cl_uint)(a->n_seqs * a->seq_len);
    cl_int vocab = (cl_int)a->vocab, vocab_start = a->vocab_shard ? (cl_int)a->vocab_start : 0;
    cl_int shard = a->vocab_shard != 0;
    const void *args[] = {&a->ids, &ids_off, &n, &vocab, &vocab_start, &shard, &a->bad_ids,
                          &bad_off};
    const size_t sizes[] = {sizeof(cl_mem), sizeof ids_off, sizeof n, sizeof vocab,
                            sizeof vocab_start, sizeof shard, sizeof(cl_mem), sizeof bad_off};
    return sinpe__context_launch(ctx, queue, SINPE_K_COUNT_BAD, 8, args, sizes, n, 1, nwait,
                                 wait, done);
}

/*
 * The fast kernels may be used when every position is start + t, all of
 * them lie in the table's rows, and no padding policy applies.
 */
static int fast_kernels_apply(const sinpe_embed_args *a, size_t rows)
{
    return a->position_rule == SINPE_POSITIONS_INDEX && !a->positions && !a->seq_starts &&
           !a->pad_counts && a->pad_policy == SINPE_PAD_NONE && a->start >= 0 &&
           (size_t)a->start + a->seq_len <= rows;
}

static sinpe_status enqueue(sinpe_table *t, int mode, cl_command_queue queue,
                            const sinpe_embed_args *a, cl_uint nwait, const cl_event *wait,
                            cl_event *event)
{
    embed_params p;
    cl_mem tab = NULL, made_pos = NULL;
    cl_event pre = NULL;
    size_t rows = 0;
    sinpe_status st;
    int k;

    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__check_queue(t->ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(t->ctx, nwait, wait));
    SINPE_FORWARD(sinpe__embed_validate(t, mode, a, &p));

    sinpe_context *ctx = t->ctx;
    /* Pre-passes chain through events: the caller's queue may be out of order. */
    if (mode != MODE_ADD && a->bad_ids) {
        SINPE_FORWARD(count_bad_ids(ctx, queue, a, nwait, wait, &pre));
        nwait = 1;
        wait = &pre;
    }
    if (mode != MODE_GATHER && a->position_rule == SINPE_POSITIONS_FAIRSEQ) {
        cl_event made = NULL;
        st = make_positions(ctx, queue, a, &made_pos, nwait, wait, &made);
        if (pre)
            clReleaseEvent(pre);
        pre = made;
        SINPE_FORWARD(st);
        p.flags |= F_POS;
        p.pos_off = 0;
        p.start = 0;
        nwait = 1;
        wait = &pre;
    }
    if (mode != MODE_GATHER)
        sinpe__table_snapshot(t, &tab, &rows);
    p.tab_rows = (cl_int)rows;
    p.flags |= ctx->tune.aligned && accesses_aligned(mode, a, &p) ? F_ALIGNED : 0;
    /* gather reads no position: only a padding policy rules its _fast part out. */
    const sinpe__tuning *tu = &ctx->tune;
    int fast = mode == MODE_GATHER ? a->pad_policy == SINPE_PAD_NONE : fast_kernels_apply(a, rows);
    int general = !fast && (mode == MODE_GATHER || tu->one_pass); /* else a table part */
    int part = fast ? SINPE_PART_FAST : SINPE_PART_TABLE;
    /* Streamed: the _fast fused and gather calls, the fused table part.
       The size first: the alignment check asks the runtime about the buffer. */
    if ((fast ? mode != MODE_ADD : mode == MODE_FUSED && !general) && streams(tu, a, p.dim) &&
        stores_aligned(a, &p, stream_unit(a->out_dtype)))
        part = fast ? SINPE_PART_STREAM : SINPE_PART_TABLE_STREAM;
    /* Decode-sized calls take the whole-row forms (tune.row): the _fast
       kernels' (below), and in two-pass builds the _otf part alone, writing
       every token (one launch instead of the table part and _otf). */
    int small = row_sized(tu, a, p.dim);
    int one_launch = small && part == SINPE_PART_TABLE && !general;
    p.flags |= one_launch ? F_ONE_LAUNCH : 0;
    /* bf16 output and add stay on their _fast bodies (faster there). */
    if (small && part == SINPE_PART_FAST && mode != MODE_ADD && a->out_dtype != SINPE_BF16)
        part = SINPE_PART_ROW;

    cl_mem d = ctx->dummy;
    const cl_mem bufs[8] = {
        a->ids ? a->ids : d,
        mode != MODE_ADD ? a->weights : d,
        a->out,
        tab ? tab : d,
        t->desc,
        made_pos ? made_pos : (p.flags & F_POS) ? a->positions : d,
        (p.flags & F_SEQ_START) ? a->seq_starts : d,
        (p.flags & F_PAD_COUNT) ? a->pad_counts : d,
    };
    const void *args[9];
    size_t sizes[9];
    for (int i = 0; i < 8; i++) {
        args[i] = &bufs[i];
        sizes[i] = sizeof(cl_mem);
    }
    args[8] = &p;
    sizes[8] = sizeof p;
    /* weights_dtype is checked (and meaningful) only when weights are read. */
    if (mode == MODE_ADD)
        k = SINPE_K_ADD + SINPE_PARTS * (int)a->out_dtype + part;
    else
        k = (mode == MODE_GATHER ? SINPE_K_GATHER : SINPE_K_EMBED) +
            SINPE_PARTS * (3 * (int)a->weights_dtype + (int)a->out_dtype) + part;
    /* The body that runs (kernels/embed*.cl): the _fast one (or its scalar
     * bf16 form, col, or for _stream kernels with 16-bit output its
     * eight-column form, wide); the _row kernels' whole rows, row; the
     * one-token general body (one-pass builds, the gather's plain part);
     * else, in two-pass builds, the four-sequence table part (table_vec
     * columns) and then the per-token _otf part, or that part alone.
     * Work-item (v, g, t): V columns of token t of S sequences from S g. */
    int wide = part == SINPE_PART_STREAM && a->out_dtype != SINPE_F32;
    int col = fast && !wide && takes_col(tu, mode, a);
    int row = part == SINPE_PART_ROW;
    size_t V = row    ? t->spec.dim
               : col  ? 1
               : wide ? 8
                      : (!fast && !general) ? tu->table_vec : tu->vec;
    size_t S = col || row || general ? 1 : tu->seqs;
    const size_t n[3] = {(t->spec.dim + V - 1) / V, (a->n_seqs + S - 1) / S, a->seq_len};
    /* The _otf part: one token per work-item and per work-group (a token
       past the table is a long loop: in groups of 64 tokens, decode's
       fused_otf ran on one core, 1.77 against 0.89 ms at dim 1024). */
    const size_t n_otf[3] = {1, a->n_seqs, a->seq_len};
    if (fast || general) {
        st = sinpe__context_launch3(ctx, queue, k, 9, args, sizes, n, col || row ? 1 : 3, nwait,
                                    wait, event);
    } else if (one_launch) {
        st = sinpe__context_launch3(ctx, queue, k - part + SINPE_PART_OTF, 9, args, sizes, n_otf,
                                    1, nwait, wait, event);
    } else {
        /* Elements in the table, then (skipping the others) the elements
         * past it, computed on the fly; chained by an event. */
        cl_event table_done = NULL;
        st = sinpe__context_launch3(ctx, queue, k, 9, args, sizes, n, 3, nwait, wait,
                                    &table_done);
        if (st == SINPE_SUCCESS) {
            st = sinpe__context_launch3(ctx, queue, k - part + SINPE_PART_OTF, 9, args, sizes,
                                        n_otf, 1, 1, &table_done, event);
            clReleaseEvent(table_done);
        }
    }
    /* The enqueued commands keep their own hold on these. */
    if (tab)
        clReleaseMemObject(tab);
    if (made_pos)
        clReleaseMemObject(made_pos);
    if (pre)
        clReleaseEvent(pre);
    return st;
}

sinpe_status sinpe_enqueue_embed(sinpe_table *table, cl_command_queue queue,
                                 const sinpe_embed_args *args, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, MODE_FUSED, queue, args, num_events_in_wait_list, event_wait_list,
                   event);
}

sinpe_status sinpe_enqueue_gather(sinpe_table *table, cl_command_queue queue,
                                  const sinpe_embed_args *args, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, MODE_GATHER, queue, args, num_events_in_wait_list, event_wait_list,
                   event);
}

sinpe_status sinpe_enqueue_add_positions(sinpe_table *table, cl_command_queue queue,
                                         const sinpe_embed_args *args,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list, cl_event *event)
{
    return enqueue(table, MODE_ADD, queue, args, num_events_in_wait_list, event_wait_list,
                   event);
}
