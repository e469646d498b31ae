/*
 * attn_input.c -- the attention input stage (kernels/attn_input.cl): q/k
 * norm, rotation, temperature and the cache write in one launch; the
 * arguments' defaults and checks, the launch, the public functions.
 */
#include "call.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_HEAD_DIM 512 /* attn_input.cl's SINPE_ATTN_MAX_DIM */

/* args as a struct that grows (sinpe__kind): its first layout ends at the field named. */
#define ATTN_ARGS SINPE__KIND(sinpe_attn_input_args, grid_start)

void sinpe_attn_input_args_init_sized(sinpe_attn_input_args *args, size_t struct_size)
{
    static const sinpe_attn_input_args own = {.rotate = 1, .eps = 1e-6}; /* F32 is 0 */
    sinpe__struct_init(ATTN_ARGS, args, struct_size, &own, "args");
}

/* Region g (of elements of dt) in bytes, for the overlap checks. */
static sinpe__region in_bytes(sinpe__region g, sinpe_dtype dt)
{
    g.off = sinpe_dtype_bytes(dt, g.off);
    g.stride = sinpe_dtype_bytes(dt, g.stride);
    g.width = sinpe_dtype_bytes(dt, g.width);
    return g;
}

static sinpe_status check_norm(const sinpe_context *ctx, const sinpe_attn_input_args *a)
{
    SINPE_CHECK((unsigned)a->norm > SINPE_QK_NORM_L2, SINPE_INVALID_OPTION,
                "args->norm %d is not a sinpe_qk_norm", (int)a->norm);
    if (a->norm == SINPE_QK_NORM_NONE)
        return SINPE_SUCCESS;
    SINPE_CHECK(!(isfinite(a->eps) && a->eps >= 0.0 && isfinite((float)a->eps)),
                SINPE_INVALID_OPTION, "args->eps %g must be finite and >= 0", a->eps);
    if (a->norm == SINPE_QK_NORM_L2)
        return SINPE_SUCCESS;
    if (a->q_heads)
        SINPE_FORWARD(sinpe__check_values(ctx, a->q_norm_weight, "args->q_norm_weight",
                                          a->q_norm_weight_offset, a->head_dim, SINPE_F32));
    if (a->kv_heads)
        SINPE_FORWARD(sinpe__check_values(ctx, a->k_norm_weight, "args->k_norm_weight",
                                          a->k_norm_weight_offset, a->head_dim, SINPE_F32));
    return SINPE_SUCCESS;
}

static sinpe_status check_cache(const sinpe_context *ctx, const sinpe_attn_input_args *a, size_t n)
{
    sinpe_dtype ct = a->cache_dtype;
    SINPE_CHECK(ct != SINPE_F32 && ct != SINPE_F16 && ct != SINPE_BF16 && ct != SINPE_Q8_0,
                SINPE_INVALID_DTYPE, "args->cache_dtype %d is not F32, F16, BF16 or Q8_0",
                (int)ct);
    if (!a->kv_heads)
        return SINPE_SUCCESS;
    SINPE_CHECK(ct == SINPE_Q8_0 && (a->head_dim % 32 || a->k_cache_offset % 32 ||
                                      a->v_cache_offset % 32),
                SINPE_INVALID_SHAPE,
                "args->head_dim %zu, k_cache_offset or v_cache_offset is not a multiple of "
                "32 (Q8_0 blocks)", a->head_dim);
    SINPE_CHECK(a->cache_rows == 0 || a->cache_rows > INT_MAX, SINPE_INVALID_SHAPE,
                "args->cache_rows %zu is 0 or above 2^31 - 1", a->cache_rows);
    size_t row = a->kv_heads * a->head_dim;
    SINPE_CHECK(a->cache_rows > SIZE_MAX / row, SINPE_BUFFER_TOO_SMALL,
                "args->cache_rows * kv_heads * head_dim overflows");
    SINPE_FORWARD(sinpe__check_values(ctx, a->k_cache, "args->k_cache", a->k_cache_offset,
                                      a->cache_rows * row, ct));
    SINPE_FORWARD(sinpe__check_values(ctx, a->v_cache, "args->v_cache", a->v_cache_offset,
                                      a->cache_rows * row, ct));
    if (a->slot_mapping)
        SINPE_FORWARD(sinpe__check_ints(ctx, a->slot_mapping, "args->slot_mapping",
                                        a->slot_mapping_offset, n));
    return SINPE_SUCCESS;
}

/* Checks a against t and fills p. */
static sinpe_status validate(const sinpe_table *t, const sinpe_attn_input_args *a,
                             sinpe_attn_params *p)
{
    const sinpe_context *ctx = t->ctx;
    size_t R = t->spec.dim, lanes = 1, n;
    int layout = (int)t->rope->layout;
    for (size_t i = 1; i < 4; i++)
        lanes = t->rope->sections[i] != 0.0 ? i + 1 : lanes;
    SINPE_CHECK(layout != SINPE_ROPE_COS_SIN && layout != SINPE_ROPE_PAIRS, SINPE_INVALID_SPEC,
                "table's layout %d holds cos or sin alone: the rotation reads COS_SIN or PAIRS",
                layout);
    SINPE_FORWARD(sinpe__tokens_check(a->n_seqs, a->seq_len));
    n = a->n_seqs * a->seq_len;
    SINPE_CHECK(a->head_dim == 0 || a->head_dim > MAX_HEAD_DIM, SINPE_INVALID_SHAPE,
                "args->head_dim %zu is 0 or above %d", a->head_dim, MAX_HEAD_DIM);
    SINPE_CHECK(a->rotate && a->head_dim < R, SINPE_INVALID_SHAPE,
                "args->head_dim %zu is below the table's rotary_dim %zu", a->head_dim, R);
    SINPE_CHECK(a->rotate && a->rotary_offset > a->head_dim - R, SINPE_INVALID_SHAPE,
                "args->rotary_offset %zu + the table's rotary_dim %zu is above head_dim %zu",
                a->rotary_offset, R, a->head_dim);
    SINPE_CHECK(a->q_heads == 0 && a->kv_heads == 0, SINPE_INVALID_SHAPE,
                "args->q_heads and args->kv_heads are both 0");
    SINPE_CHECK(a->q_heads > UINT_MAX / 4 || a->kv_heads > UINT_MAX / 4, SINPE_INVALID_SHAPE,
                "args->q_heads or args->kv_heads is too large");
    SINPE_CHECK(a->dtype != SINPE_F32 && a->dtype != SINPE_F16 && a->dtype != SINPE_BF16,
                SINPE_INVALID_DTYPE, "args->dtype %d is not F32, F16 or BF16", (int)a->dtype);
    SINPE_FORWARD(check_norm(ctx, a));
    if (a->temperature) {
        SINPE_CHECK(!isfinite(a->attn_scale) || !isfinite((float)a->attn_scale),
                    SINPE_INVALID_OPTION, "args->attn_scale %g is not finite", a->attn_scale);
        SINPE_CHECK(!(a->floor_scale >= 1.0 && a->floor_scale <= INT_MAX &&
                      a->floor_scale == floor(a->floor_scale)),
                    SINPE_INVALID_OPTION, "args->floor_scale %g is not an integer in [1, 2^31 - 1]",
                    a->floor_scale);
    }
    SINPE_FORWARD(check_cache(ctx, a, n));

    sinpe__region g[6] = {
        {"args->q", a->q, a->q_offset, a->q_stride, 0, n},
        {"args->k", a->k, a->k_offset, a->k_stride, 0, n},
        {"args->v", a->v, a->v_offset, a->v_stride, 0, n},
        {"args->q_out", a->q_out, a->q_out_offset, a->q_out_stride, 0, n},
        {"args->k_cache", a->k_cache, a->k_cache_offset, 0, 0, a->cache_rows},
        {"args->v_cache", a->v_cache, a->v_cache_offset, 0, 0, a->cache_rows}};
    SINPE_FORWARD(sinpe__check_region(ctx, &g[0], a->q_heads, a->head_dim, a->dtype));
    SINPE_FORWARD(sinpe__check_region(ctx, &g[1], a->kv_heads, a->head_dim, a->dtype));
    SINPE_FORWARD(sinpe__check_region(ctx, &g[2], a->kv_heads, a->head_dim, a->dtype));
    /* q_out the same as q is the stage in place. */
    if (g[3].mem == g[0].mem && g[3].off == g[0].off &&
        (g[3].stride ? g[3].stride : g[0].stride) == g[0].stride)
        g[3].mem = NULL;
    if (g[3].mem)
        SINPE_FORWARD(sinpe__check_region(ctx, &g[3], a->q_heads, a->head_dim, a->dtype));
    for (int i = 4; i < 6; i++) /* checked by check_cache: widths only */
        g[i].width = g[i].stride = a->kv_heads * a->head_dim;
    sinpe__region b[6];
    for (int i = 0; i < 6; i++)
        b[i] = in_bytes(g[i], i < 4 ? a->dtype : a->cache_dtype);
    SINPE_FORWARD(sinpe__regions_apart(b, 6));

    const sinpe__positions src = SINPE__ROPE_POSITIONS(a, lanes);
    SINPE_FORWARD(sinpe__positions_check(ctx, &src));
    memset(p, 0, sizeof *p);
    sinpe_rope_params *r = &p->rope;
    r->pos = sinpe__positions_params(&src);
    r->axes = (cl_uint)t->rope->axes;
    for (int i = 0; i < 4; i++)
        r->sections[i] = (cl_uint)t->rope->sections[i];
    r->flags = (a->slot_mapping ? SINPE_ROPE_K_ROWS : 0) | (g[3].mem ? 0 : SINPE_ROPE_Q_IN_PLACE);
    r->k_rows_off = a->slot_mapping_offset;
    r->ko_rows = (cl_uint)a->cache_rows;
    r->q_off = g[0].off;
    r->q_stride = g[0].stride;
    r->k_off = g[1].off;
    r->k_stride = g[1].stride;
    r->qo_off = g[3].mem ? g[3].off : g[0].off;
    r->qo_stride = g[3].mem ? g[3].stride : g[0].stride;
    r->rot = (cl_uint)R;
    r->head_dim = (cl_uint)a->head_dim;
    r->q_heads = (cl_uint)a->q_heads;
    r->kv_heads = (cl_uint)a->kv_heads;
    r->tokens = (cl_uint)n;
    r->layout = (cl_uint)layout;
    r->pairing = (cl_uint)t->rope->pairing;
    p->v_off = g[2].off;
    p->v_stride = g[2].stride;
    p->kc_off = a->k_cache_offset;
    p->vc_off = a->v_cache_offset;
    p->qw_off = a->q_norm_weight_offset;
    p->kw_off = a->k_norm_weight_offset;
    p->cache_type = (cl_uint)a->cache_dtype;
    p->norm = (cl_uint)a->norm;
    p->norm_after = a->norm_after != 0;
    p->rotate = a->rotate != 0;
    p->rot_off = a->rotate ? (cl_uint)a->rotary_offset : 0;
    p->temperature = a->temperature != 0;
    p->floor_scale = a->temperature ? (cl_uint)a->floor_scale : 1;
    p->eps = (float)a->eps;
    p->attn_scale = (float)a->attn_scale;
    return SINPE_SUCCESS;
}

/* The stage with the caller's arguments args into sink. */
/* The stage's launch: q_heads and kv_heads heads of tokens tokens in dtype;
   work-item (g, r): attn_heads heads of q, k or v of token r, q's first
   (attn_input.cl). */
static sinpe_status plan(const sinpe_context *ctx, sinpe_dtype dtype, size_t q_heads,
                         size_t kv_heads, size_t tokens, sinpe__launch *l)
{
    size_t H = sinpe__plan_choice(&ctx->tune, SINPE_FORM_ATTN, (int)dtype, NULL);
    const size_t n[2] = {(q_heads + H - 1) / H + 2 * ((kv_heads + H - 1) / H), tokens};
    return sinpe__plan_fixed(&ctx->info, &ctx->prog, SINPE_FORM_ATTN, (int)dtype, 2, n, l);
}

static sinpe_status attn_run(sinpe_table *t, const sinpe_attn_input_args *args, sinpe__sink *sink)
{
    sinpe_attn_input_args a;
    sinpe_attn_params p;
    size_t rows = 0;
    cl_mem tab = NULL;
    sinpe__launch l;
    sinpe_status st;

    sinpe_attn_input_args_init(&a);
    SINPE_FORWARD(sinpe__struct_in(ATTN_ARGS, &a, args, "args"));
    SINPE_FORWARD(validate(t, &a, &p));
    sinpe_context *ctx = t->ctx;
    SINPE_FORWARD(plan(ctx, a.dtype, a.q_heads, a.kv_heads, p.rope.tokens, &l));
    sinpe__table_snapshot(t, &tab, &rows);
    st = sinpe__keep(sink, tab);
    p.rope.tab_rows = (cl_int)rows;

    cl_mem d = ctx->dummy;
    int norm_w = a.norm == SINPE_QK_NORM_RMS || a.norm == SINPE_QK_NORM_RMS_GEMMA;
    const SINPE__KARGS(SINPE_SIG_ATTN) v = {
        .q = a.q_heads && !(p.rope.flags & SINPE_ROPE_Q_IN_PLACE) ? a.q : d,
        .k = a.kv_heads ? a.k : d, .v = a.kv_heads ? a.v : d,
        .q_out = !a.q_heads                                     ? d
                 : (p.rope.flags & SINPE_ROPE_Q_IN_PLACE) ? a.q
                                                          : a.q_out,
        .k_cache = a.kv_heads ? a.k_cache : d, .v_cache = a.kv_heads ? a.v_cache : d,
        .qw = norm_w && a.q_heads ? a.q_norm_weight : d,
        .kw = norm_w && a.kv_heads ? a.k_norm_weight : d, .tab = tab ? tab : d,
        .coef = t->desc, .pos = a.positions ? a.positions : d,
        .seq_start = a.seq_starts ? a.seq_starts : d,
        .slots = a.slot_mapping ? a.slot_mapping : d, .a = p};
    if (st == SINPE_SUCCESS)
        st = sink->emit(sink, ctx, &l, &v, sizeof v, 1);
    if (tab)
        clReleaseMemObject(tab);
    return st;
}

sinpe_status sinpe_enqueue_attn_input(sinpe_table *t, cl_command_queue q,
                                      const sinpe_attn_input_args *a, cl_uint nwait,
                                      const cl_event *wait, cl_event *event)
{
    sinpe__queue_sink s;
    SINPE_FORWARD(sinpe__enqueue_open(SINPE__OP_ATTN, t, q, a, nwait, wait, event, &s));
    return sinpe__queue_close(&s, attn_run(t, a, &s.base));
}

sinpe_status sinpe_record_attn_input(sinpe_table *t, cl_command_queue q,
                                     struct _cl_command_buffer_khr *cb,
                                     const sinpe_attn_input_args *a, cl_uint n,
                                     const cl_uint *sync, cl_uint *point)
{
    sinpe__record_sink r;
    SINPE_FORWARD(sinpe__record_open(SINPE__OP_ATTN, t, q, cb, a, n, sync, point, &r));
    return sinpe__record_close(&r, attn_run(t, a, &r.base));
}
