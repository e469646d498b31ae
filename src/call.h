/*
 * call.h -- what the operations share: the table of operations, the one
 * path from a public call to its launches (a sink: a queue, call.c, or a
 * command buffer, record.c), the position source (positions.c) and the
 * rows of the encoding (rows.c).  Each operation's own file includes this
 * header and no other operation's.
 */
#ifndef SINPE_CALL_H
#define SINPE_CALL_H

#include "sinpe_internal.h"

/* ---- the operations called with an argument struct ----------------------- */

/* A new operation is a row here, its own file (its checks, parameter
   block, plan and public functions) and its kernels (its own
   kernels/<op>.cl, which the build finds; its form, signature and
   SINPE_KERNEL_LIST entries in kernels/abi.h), its declarations in
   include/sinpe.h, its suite (tests/test_<op>.c, TU_SUITE) and its Python
   module, imported by python/sinpe/__init__.py.  A row: its name in
   messages, the kind of table it reads (SINPE__TABLE_*). */
typedef struct sinpe__op {
    const char *name;
    int table;
} sinpe__op;

enum {
    SINPE__OP_EMBED,
    SINPE__OP_GATHER,
    SINPE__OP_ADD,
    SINPE__OP_ROPE,
    SINPE__OP_ATTN,
    SINPE__OPS
};

static inline const sinpe__op *sinpe__op_row(int op)
{
    static const sinpe__op ops[SINPE__OPS] = {
        [SINPE__OP_EMBED] = {"the embedding", SINPE__TABLE_ENCODING}, /* embed.c */
        [SINPE__OP_GATHER] = {"the gather", SINPE__TABLE_ENCODING},   /* embed.c */
        [SINPE__OP_ADD] = {"adding positions", SINPE__TABLE_ENCODING}, /* embed.c */
        [SINPE__OP_ROPE] = {"the rotation", SINPE__TABLE_ROTARY},     /* rope.c */
        [SINPE__OP_ATTN] = {"the attention input stage", SINPE__TABLE_ROTARY}, /* attn_input.c */
    };
    return &ops[op];
}

/* ---- sinks: where the launches of one call go ---------------------------- */

/* Each launch after the one before.  emit sets l's arguments (args, the
   struct of its signature, size bytes) and enqueues or records it; last
   marks the launch that gives the caller's event or sync point. */
typedef struct sinpe__sink sinpe__sink;
struct sinpe__sink {
    sinpe_status (*emit)(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                         const void *args, size_t size, int last);
    /* NULL on a queue.  A recording's: holds mem, a buffer its commands
       read, until the table goes, so that growth never frees it (record.c).
       A call into a recording takes no temporary buffers. */
    sinpe_status (*keep)(sinpe__sink *s, cl_mem mem);
};

/* Has a recording hold mem (may be NULL); nothing on a queue. */
static inline sinpe_status sinpe__keep(sinpe__sink *s, cl_mem mem)
{
    return s->keep && mem ? s->keep(s, mem) : SINPE_SUCCESS;
}

/* Launches on a queue, each waiting for the one before (the first for the
   caller's wait list): the queue may be out of order.  prev is the last
   launch's event once it is in (the caller's event is a second reference). */
typedef struct {
    sinpe__sink base;
    sinpe_table *table;
    cl_command_queue queue;
    cl_uint nwait;
    const cl_event *wait;
    cl_event prev;
    cl_event *event;
} sinpe__queue_sink;

/* Opens a sink on queue (checked) for a call on table t; closing gives
   back the scratch the call took, with its last launch's event, and
   returns st. */
void sinpe__queue_open(sinpe__queue_sink *q, sinpe_table *t, cl_command_queue queue, cl_uint nwait,
                       const cl_event *wait, cl_event *event);
sinpe_status sinpe__queue_close(sinpe__queue_sink *q, sinpe_status st);

/* clCommandNDRangeKernelKHR; properties are cl_properties under either name
   (cl_ndrange_kernel_command_properties_khr before 0.9.5, then
   cl_command_properties_khr).  The queue, the properties and the mutable
   handle are NULL, which every version accepts for a one-queue buffer. */
typedef cl_int(CL_API_CALL *sinpe__record_kernel_fn)(void *cb, cl_command_queue queue,
                                                     const cl_ulong *properties, cl_kernel kernel,
                                                     cl_uint work_dim, const size_t *offset,
                                                     const size_t *global, const size_t *local,
                                                     cl_uint n_sync, const cl_uint *sync_list,
                                                     cl_uint *sync_point, void **mutable_handle);

/* Launches recorded into a command buffer (record.c), each after the one
   before (the first after the caller's sync points); held lists what the
   call's commands use, which its table keeps until it goes. */
typedef struct {
    sinpe__sink base;
    void *cb;
    sinpe__record_kernel_fn record;
    cl_uint nsync;
    const cl_uint *sync;
    cl_uint prev;
    int have_prev;
    cl_uint *sync_point;
    struct sinpe__held *held;
    sinpe_table *table;
} sinpe__record_sink;

/* A buffer of at least bytes for slot 0 (rows past the table) or 1
   (anchors) of the call into sink, *mem the caller's reference: the
   table's own when the call may hold them (see call.c), else new. */
sinpe_status sinpe__scratch_take(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 cl_mem *mem);

/* The same for a call whose writes into slot are a function of key alone
   (key_bytes of it, at most SINPE__SCRATCH_KEY): *kept is 1 when the
   buffer lent is the table's own and still holds what the last call to
   name the same key wrote into it (nothing took it since), so the call may
   skip those writes.  After enqueuing them a call names what it wrote with
   sinpe__scratch_keep(); any other take of the slot forgets it. */
sinpe_status sinpe__scratch_kept(sinpe_table *t, sinpe__sink *sink, int slot, size_t bytes,
                                 const void *key, size_t key_bytes, cl_mem *mem, int *kept);
void sinpe__scratch_keep(sinpe_table *t, const sinpe__sink *sink, int slot, const void *key,
                         size_t key_bytes);

/* ---- the operations ------------------------------------------------------ */

/*
 * An operation called with an argument struct (its row above) has its
 * public functions in its own file.  Each opens a sink through the row (the
 * checks every call makes), runs the operation with the caller's struct as
 * its own type (copy, check, build the parameter block once, plan every
 * launch, emit them), then closes the sink:
 *
 *     SINPE_FORWARD(sinpe__enqueue_open(SINPE__OP_ROPE, t, queue, args, ..., &q));
 *     return sinpe__queue_close(&q, rope_run(t, args, &q.base));
 */
/* The checks of a call of op on table t with args, then a sink on queue
   (call.c) or one recording into command buffer cb (record.c); closing
   a recording hands what its commands use to t. */
sinpe_status sinpe__enqueue_open(int op, sinpe_table *t, cl_command_queue queue, const void *args,
                                 cl_uint nwait, const cl_event *wait, cl_event *event,
                                 sinpe__queue_sink *q);
sinpe_status sinpe__record_open(int op, sinpe_table *t, cl_command_queue queue,
                                struct _cl_command_buffer_khr *cb, const void *args,
                                cl_uint nsync, const cl_uint *sync, cl_uint *sync_point,
                                sinpe__record_sink *r);
sinpe_status sinpe__record_close(sinpe__record_sink *r, sinpe_status st);

/* Whether t is of kind (SINPE__TABLE_*), else the failure naming what the
   operation called name needs. */
sinpe_status sinpe__table_is(const sinpe_table *t, int kind, const char *name);

/* ---- rope.c: the rotation's regions, shared with attn_input.c ----------- */

/* One tensor's rows in a buffer: row r at off + r * stride, width elements
   (or bytes: any unit, the same for the regions compared). */
typedef struct {
    const char *name;
    cl_mem mem;
    size_t off, stride, width, rows;
} sinpe__region;

/* Whether a and b (of one unit) may share an element. */
int sinpe__regions_overlap(const sinpe__region *a, const sinpe__region *b);
/* SINPE_BUFFERS_OVERLAP naming the first two of the n regions that may share an element. */
sinpe_status sinpe__regions_apart(const sinpe__region *g, int n);
/* The position source of a rotary call's args a (sinpe_rope_args or
   sinpe_attn_input_args: the same fields) with lanes lanes. */
#define SINPE__ROPE_POSITIONS(a, lanes_)                                                   \
    {.start = (a)->start, .positions = (a)->positions,                                   \
     .positions_offset = (a)->positions_offset, .seq_starts = (a)->seq_starts,           \
     .seq_starts_offset = (a)->seq_starts_offset, .n_seqs = (a)->n_seqs,                 \
     .seq_len = (a)->seq_len, .lanes = (lanes_), .lane_stride = (a)->lane_stride,        \
     .grid_rows = (a)->grid_rows, .grid_cols = (a)->grid_cols,                          \
     .grid_start = (a)->grid_start}

/* Sets g's width to heads * head_dim and its stride (0: the width), checks
   the stride and that the buffer holds g's rows of dt. */
sinpe_status sinpe__check_region(const sinpe_context *ctx, sinpe__region *g, size_t heads,
                                 size_t head_dim, sinpe_dtype dt);

/* ---- positions.c: the position source ------------------------------------ */

/*
 * Where the positions of n_seqs sequences of seq_len tokens come from, as
 * a call's arguments give it: the rule, start, a buffer of positions (per
 * token, or one row for every sequence; lanes of them, lane_stride apart),
 * per-sequence starts and pad counts.  Checked once (the messages name args->...), then written once
 * into the parameter block's sinpe_pos_params.
 */
typedef struct sinpe__positions {
    int rule; /* sinpe_position_rule: FAIRSEQ's are made on the device */
    cl_int start;
    cl_mem positions, seq_starts, pad_counts;
    size_t positions_offset, seq_starts_offset, pad_counts_offset;
    int broadcast;
    size_t n_seqs, seq_len;
    size_t lanes, lane_stride; /* positions per token (0 or 1: one); lane_stride 0: the tokens */
    size_t grid_rows, grid_cols, grid_start; /* lanes from a grid (grid_cols > 0) */
} sinpe__positions;

sinpe_status sinpe__positions_check(const sinpe_context *ctx, const sinpe__positions *s);
sinpe_pos_params sinpe__positions_params(const sinpe__positions *s);
/* The checks of n_seqs x seq_len tokens (neither 0, at most 2^31 - 1). */
sinpe_status sinpe__tokens_check(size_t n_seqs, size_t seq_len);

/* ---- rows.c: rows of the encoding on the device -------------------------- */

/* The arguments of the two launches of those rows into out (dim columns
   of table t), anchors in anc: the anchors' (v1) and the rows' (v2). */
void sinpe__rows_args(const sinpe_table *t, cl_int row0, size_t nrows, cl_mem out,
                      size_t out_offset, size_t out_stride, cl_mem anc,
                      sinpe__anchors_kargs *v1, sinpe__rows_kargs *v2);

#endif /* SINPE_CALL_H */
