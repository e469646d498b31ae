/*
 * rope.c -- the rotation of q and k by a rotary table (kernels/rope.cl):
 * the arguments' defaults and checks, the one launch, the public functions.
 */
#include "call.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* args as a struct that grows (sinpe__kind): its first layout ends at the field named. */
#define ROPE_ARGS SINPE__KIND(sinpe_rope_args, seq_starts_offset)

void sinpe_rope_args_init_sized(sinpe_rope_args *args, size_t struct_size)
{
    static const sinpe_rope_args own; /* F32 is 0 */
    sinpe__struct_init(ROPE_ARGS, args, struct_size, &own, "args");
}

/* Whether a and b may share an element: their spans meet and, with one
   stride, their columns meet modulo it (conservative otherwise). */
int sinpe__regions_overlap(const sinpe__region *a, const sinpe__region *b)
{
    if (!a->mem || a->mem != b->mem || !a->width || !b->width)
        return 0;
    size_t a_end = a->off + (a->rows - 1) * a->stride + a->width;
    size_t b_end = b->off + (b->rows - 1) * b->stride + b->width;
    if (a_end <= b->off || b_end <= a->off)
        return 0;
    if (a->stride != b->stride)
        return 1;
    size_t s = a->stride, x = a->off % s, y = b->off % s;
    size_t d = y >= x ? y - x : y + s - x; /* b's columns start d after a's */
    return d < a->width || s - d < b->width;
}

sinpe_status sinpe__check_region(const sinpe_context *ctx, sinpe__region *g, size_t heads,
                                 size_t head_dim, sinpe_dtype dt)
{
    g->width = heads * head_dim;
    g->stride = g->stride ? g->stride : g->width;
    if (!heads)
        return SINPE_SUCCESS;
    SINPE_CHECK(g->stride < g->width, SINPE_INVALID_SHAPE,
                "%s_stride %zu is below its heads' width %zu", g->name, g->stride, g->width);
    SINPE_CHECK(g->rows - 1 > (SIZE_MAX - g->width) / g->stride, SINPE_BUFFER_TOO_SMALL,
                "%s: rows * stride overflows", g->name);
    return sinpe__check_values(ctx, g->mem, g->name, g->off, (g->rows - 1) * g->stride + g->width,
                               dt);
}

/* Checks a against t and fills p and the five regions (q, k, q_out, k_out,
   cos_sin). */
static sinpe_status validate(const sinpe_table *t, const sinpe_rope_args *a, sinpe_rope_params *p,
                             sinpe__region *g)
{
    const sinpe_context *ctx = t->ctx;
    size_t R = t->spec.dim, n;

    int layout = (int)t->rope->layout, pairing = (int)t->rope->pairing;
    size_t lanes = 1; /* 1 + the last lane with pairs */
    for (size_t i = 1; i < 4; i++)
        lanes = t->rope->sections[i] != 0.0 ? i + 1 : lanes;
    SINPE_CHECK(layout != SINPE_ROPE_COS_SIN && layout != SINPE_ROPE_PAIRS, SINPE_INVALID_SPEC,
                "table's layout %d holds cos or sin alone: the rotation reads COS_SIN or PAIRS",
                layout);
    SINPE_FORWARD(sinpe__tokens_check(a->n_seqs, a->seq_len));
    n = a->n_seqs * a->seq_len;
    SINPE_CHECK(a->head_dim < R || a->head_dim > UINT_MAX / 2, SINPE_INVALID_SHAPE,
                "args->head_dim %zu is below the table's rotary_dim %zu (or too large)",
                a->head_dim, R);
    SINPE_CHECK(a->q_heads == 0 && a->kv_heads == 0 && !a->cos_sin, SINPE_INVALID_SHAPE,
                "args->q_heads and args->kv_heads are both 0 (and no args->cos_sin)");
    SINPE_CHECK((unsigned)a->cos_sin_layout > SINPE_ROPE_SIN_TWICE, SINPE_INVALID_OPTION,
                "args->cos_sin_layout %d is not a sinpe_rope_layout", (int)a->cos_sin_layout);
    SINPE_CHECK(a->q_heads > UINT_MAX / 2 || a->kv_heads > UINT_MAX / 2, SINPE_INVALID_SHAPE,
                "args->q_heads or args->kv_heads is too large");
    SINPE_CHECK(a->dtype != SINPE_F32 && a->dtype != SINPE_F16 && a->dtype != SINPE_BF16,
                SINPE_INVALID_DTYPE, "args->dtype %d is not F32, F16 or BF16", (int)a->dtype);
    SINPE_CHECK(a->k_rows && !a->k_out, SINPE_INVALID_SHAPE,
                "args->k_rows is given without args->k_out");
    SINPE_CHECK(a->k_rows && a->k_out_rows == 0, SINPE_INVALID_SHAPE,
                "args->k_out_rows is 0 with args->k_rows");

    g[0] = (sinpe__region){"args->q", a->q, a->q_offset, a->q_stride, 0, n};
    g[1] = (sinpe__region){"args->k", a->k, a->k_offset, a->k_stride, 0, n};
    g[2] = (sinpe__region){"args->q_out", a->q_out, a->q_out_offset, a->q_out_stride, 0, n};
    g[3] = (sinpe__region){"args->k_out", a->k_out, a->k_out_offset, a->k_out_stride, 0,
                    a->k_rows ? a->k_out_rows : n};
    g[4] = (sinpe__region){"args->cos_sin", a->cos_sin, a->cos_sin_offset, a->cos_sin_stride, 0, n};
    SINPE_FORWARD(sinpe__check_region(ctx, &g[4], a->cos_sin != NULL, R, a->dtype));
    SINPE_FORWARD(sinpe__check_region(ctx, &g[0], a->q_heads, a->head_dim, a->dtype));
    SINPE_FORWARD(sinpe__check_region(ctx, &g[1], a->kv_heads, a->head_dim, a->dtype));
    /* An output the same as its input is the rotation in place. */
    for (int i = 2; i < 4; i++) {
        if (g[i].mem && g[i].mem == g[i - 2].mem && g[i].off == g[i - 2].off &&
            (g[i].stride ? g[i].stride : g[i - 2].stride) == g[i - 2].stride && !a->k_rows)
            g[i].mem = NULL;
        if (g[i].mem)
            SINPE_FORWARD(sinpe__check_region(ctx, &g[i], i == 2 ? a->q_heads : a->kv_heads,
                                              a->head_dim, a->dtype));
        else
            g[i].width = 0;
    }
    SINPE_FORWARD(sinpe__regions_apart(g, 5));

    const sinpe__positions src = SINPE__ROPE_POSITIONS(a, lanes);
    SINPE_FORWARD(sinpe__positions_check(ctx, &src));
    memset(p, 0, sizeof *p);
    p->pos = sinpe__positions_params(&src);
    p->axes = (cl_uint)t->rope->axes;
    for (int i = 0; i < 4; i++)
        p->sections[i] = (cl_uint)t->rope->sections[i];
    if (a->k_rows) {
        SINPE_FORWARD(sinpe__check_ints(ctx, a->k_rows, "args->k_rows", a->k_rows_offset, n));
        p->flags |= SINPE_ROPE_K_ROWS;
        p->k_rows_off = a->k_rows_offset;
        SINPE_CHECK(a->k_out_rows > INT_MAX, SINPE_INVALID_SHAPE,
                    "args->k_out_rows exceeds 2^31 - 1");
        p->ko_rows = (cl_uint)a->k_out_rows;
    }
    p->flags |= (g[2].mem ? 0 : SINPE_ROPE_Q_IN_PLACE) | (g[3].mem ? 0 : SINPE_ROPE_K_IN_PLACE) |
                (a->cos_sin ? SINPE_ROPE_CS_OUT : 0);
    p->cs_off = g[4].off;
    p->cs_stride = g[4].stride;
    p->cs_layout = (cl_uint)a->cos_sin_layout;
    p->q_off = g[0].off;
    p->q_stride = g[0].stride;
    p->k_off = g[1].off;
    p->k_stride = g[1].stride;
    p->qo_off = g[2].mem ? g[2].off : g[0].off;
    p->qo_stride = g[2].mem ? g[2].stride : g[0].stride;
    p->ko_off = g[3].mem ? g[3].off : g[1].off;
    p->ko_stride = g[3].mem ? g[3].stride : g[1].stride;
    p->rot = (cl_uint)R;
    p->head_dim = (cl_uint)a->head_dim;
    p->q_heads = (cl_uint)a->q_heads;
    p->kv_heads = (cl_uint)a->kv_heads;
    p->tokens = (cl_uint)n;
    p->layout = (cl_uint)layout;
    p->pairing = (cl_uint)pairing;
    return SINPE_SUCCESS;
}

/* The rotation with the caller's arguments args into sink. */
/* The rotation of pairs pairs and copies columns past them of every head of
   tokens tokens in dtype; the kernel's count of work-items per token in
   *slots.  Work-item (g, r): pairs [P g, P g + P) of every head of token
   r, or for g past them four columns past the rotary dimension (rope.cl). */
static sinpe_status plan(const sinpe_context *ctx, sinpe_dtype dtype, size_t pairs,
                         size_t copies, size_t tokens, sinpe__launch *l, cl_uint *slots)
{
    size_t P = sinpe__plan_choice(&ctx->tune, SINPE_FORM_ROPE, (int)dtype, NULL);
    const size_t n[2] = {(pairs + P - 1) / P + (copies + 3) / 4, tokens};
    *slots = (cl_uint)n[0];
    return sinpe__plan_fixed(&ctx->info, &ctx->prog, SINPE_FORM_ROPE, (int)dtype, 2, n, l);
}

static sinpe_status rope_run(sinpe_table *t, const sinpe_rope_args *args, sinpe__sink *sink)
{
    sinpe_rope_args a;
    sinpe_rope_params p;
    sinpe__region g[5];
    size_t rows = 0;
    cl_mem tab = NULL;
    sinpe__launch l;
    sinpe_status st;

    sinpe_rope_args_init(&a);
    SINPE_FORWARD(sinpe__struct_in(ROPE_ARGS, &a, args, "args"));
    SINPE_FORWARD(validate(t, &a, &p, g));
    sinpe_context *ctx = t->ctx;
    /* The columns past the rotary dimension are copied out of place only. */
    size_t copies = g[2].mem || g[3].mem ? a.head_dim - p.rot : 0;
    SINPE_FORWARD(plan(ctx, a.dtype, p.rot / 2, copies, p.tokens, &l, &p.slots));
    sinpe__table_snapshot(t, &tab, &rows);
    st = sinpe__keep(sink, tab);
    p.tab_rows = (cl_int)rows;

    cl_mem d = ctx->dummy;
    const SINPE__KARGS(SINPE_SIG_ROPE) v = {.q = a.q_heads && g[2].mem ? g[0].mem : d,
                                 .k = a.kv_heads && g[3].mem ? g[1].mem : d,
                                 .q_out = !a.q_heads ? d : g[2].mem ? g[2].mem : g[0].mem,
                                 .k_out = !a.kv_heads ? d : g[3].mem ? g[3].mem : g[1].mem,
                                 .tab = tab ? tab : d, .coef = t->desc,
                                 .pos = a.positions ? a.positions : d,
                                 .seq_start = a.seq_starts ? a.seq_starts : d,
                                 .k_rows = a.k_rows ? a.k_rows : d,
                                 .cs = a.cos_sin ? a.cos_sin : d, .a = p};
    if (st == SINPE_SUCCESS)
        st = sink->emit(sink, ctx, &l, &v, sizeof v, 1);
    if (tab)
        clReleaseMemObject(tab);
    return st;
}

sinpe_status sinpe_enqueue_rope(sinpe_table *t, cl_command_queue q, const sinpe_rope_args *a,
                                cl_uint nwait, const cl_event *wait, cl_event *event)
{
    sinpe__queue_sink s;
    SINPE_FORWARD(sinpe__enqueue_open(SINPE__OP_ROPE, t, q, a, nwait, wait, event, &s));
    return sinpe__queue_close(&s, rope_run(t, a, &s.base));
}

sinpe_status sinpe_record_rope(sinpe_table *t, cl_command_queue q,
                               struct _cl_command_buffer_khr *cb, const sinpe_rope_args *a,
                               cl_uint n, const cl_uint *sync, cl_uint *point)
{
    sinpe__record_sink r;
    SINPE_FORWARD(sinpe__record_open(SINPE__OP_ROPE, t, q, cb, a, n, sync, point, &r));
    return sinpe__record_close(&r, rope_run(t, a, &r.base));
}

sinpe_status sinpe__regions_apart(const sinpe__region *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            SINPE_CHECK(sinpe__regions_overlap(&g[i], &g[j]), SINPE_BUFFERS_OVERLAP,
                        "%s and %s overlap in one buffer", g[i].name, g[j].name);
    return SINPE_SUCCESS;
}
