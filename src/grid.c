/*
 * grid.c -- the 2-D and 3-D sincos encodings of a patch grid
 * (kernels/grid.cl): the arguments' defaults and checks, the positions'
 * float32 scales, the launches (the distinct half-rows into the
 * table's scratch, then every token's row from them, or from one image's
 * whole encoding written from them after them, which the table keeps for
 * the next batch of the same grid).
 */
#include "call.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* args as a struct that grows (sinpe__kind): its first layout ends at the field named. */
#define GRID_ARGS SINPE__KIND(sinpe_grid_args, out_stride)

void sinpe_grid_args_init_sized(sinpe_grid_args *args, size_t struct_size)
{
    sinpe_grid_args own = {0};
    own.interpolation_scale = own.frame_interpolation_scale = 1.0;
    sinpe__struct_init(GRID_ARGS, args, struct_size, &own, "args");
}

/* (float)(G / base_size), diffusers' divisor of a grid of G (G itself
   without a base_size): refused unless a finite float32 above 0. */
static sinpe_status scale_of(size_t G, double base_size, const char *axis, float *s)
{
    double q = base_size > 0.0 ? (double)G / base_size : 1.0;
    *s = (float)q;
    SINPE_CHECK(!(isfinite(*s) && *s > 0.0f), SINPE_INVALID_OPTION,
                "args->base_size %g: the %s grid's %zu / base_size is not a float32 above 0",
                base_size, axis, G);
    return SINPE_SUCCESS;
}

/* An interpolation scale: a finite float32 above 0. */
static sinpe_status scale_in(double v, const char *name, float *s)
{
    *s = (float)v;
    SINPE_CHECK(!(isfinite(v) && v > 0.0 && *s > 0.0f && isfinite(*s)), SINPE_INVALID_OPTION,
                "args->%s %g must be a float32 above 0", name, v);
    return SINPE_SUCCESS;
}

/* The video grid's frame table: an encoding table of the same context. */
static sinpe_status frames_in(const sinpe_table *t, const sinpe_grid_args *a)
{
    SINPE_CHECK(a->frames > 1 && !a->frame_table, SINPE_NULL_ARGUMENT,
                "args->frame_table is NULL with args->frames %zu", a->frames);
    if (!a->frame_table)
        return SINPE_SUCCESS;
    SINPE_FORWARD(sinpe__table_is(a->frame_table, SINPE__TABLE_ENCODING, "args->frame_table"));
    SINPE_CHECK(a->frame_table->ctx != t->ctx, SINPE_CONTEXT_MISMATCH,
                "args->frame_table belongs to another sinpe_context than table");
    return SINPE_SUCCESS;
}

/* The grid encoding's launches for p in dtype, *n of them (two, or three
   through an image's table), each with its phase; p->cols0, p->span set.
   Work-item (c, r) of phase 0: columns [cols0 c, cols0 (c + 1)) of half-row
   r, one, or all (its position once, its columns in vector lanes); of
   phase 1: 16 span columns of token r's row, sixteen, or all (its indices,
   five divisions, once).  Under grid_span = image a batch whose one-image
   table is at most grid_image_bytes: phase 2 its row r, then phase 3 token
   r's from it. */
static sinpe_status plan(const sinpe_context *ctx, sinpe_dtype dtype, sinpe_grid_params *p,
                         sinpe__launch l[3], cl_uint phase[3], int *n)
{
    int steps;
    size_t last = sinpe__plan_choice(&ctx->tune, SINPE_FORM_GRID, (int)dtype, &steps);
    size_t wide = p->d_t > p->d ? p->d_t : p->d, sixteens = (p->d_t + 2 * p->d + 15) / 16;
    size_t places = p->per_seq - p->extra;
    int image = steps == 2 && p->tokens / p->per_seq > 1 &&
                places * sixteens * 64 <= ctx->tune.grid_image_bytes;
    p->cols0 = (cl_uint)(last ? 1 : wide);
    p->span = (cl_uint)(last ? last / 16 : sixteens);
    const size_t spans = (sixteens + p->span - 1) / p->span;
    const size_t dims[3][2] = {{(wide + p->cols0 - 1) / p->cols0, p->rows + p->cols + p->frames},
                               {spans, places}, {spans, p->tokens}};
    for (int i = *n = 0; i < 3; i++)
        if (i != 1 || image) {
            phase[*n] = i == 0 ? 0 : image ? (cl_uint)i + 1 : 1;
            SINPE_FORWARD(sinpe__plan_fixed(&ctx->info, &ctx->prog, SINPE_FORM_GRID, (int)dtype,
                                            2, dims[i], &l[(*n)++]));
        }
    return SINPE_SUCCESS;
}

/* What one image's table in the scratch is a function of: the grid's
   parameters but the output's and the call's, and the frame table's spec
   (the table's own is fixed). */
typedef struct {
    sinpe_grid_params p;
    sinpe_spec frame;
} grid_image;

static void image_key(const sinpe_grid_params *p, const sinpe_table *frame_table, grid_image *k)
{
    memset(k, 0, sizeof *k); /* the padding compared too */
    k->p = *p;
    k->p.out_off = k->p.out_stride = 0;
    k->p.tokens = k->p.add = k->p.phase = 0;
    if (frame_table)
        k->frame = frame_table->spec;
}

typedef char sinpe__grid_key_fits[sizeof(grid_image) <= SINPE__SCRATCH_KEY ? 1 : -1];

sinpe_status sinpe_enqueue_grid(sinpe_table *t, cl_command_queue queue,
                                const sinpe_grid_args *args, cl_uint nwait,
                                const cl_event *wait, cl_event *event)
{
    sinpe_grid_args a;
    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_CHECK(!args, SINPE_NULL_ARGUMENT, "args is NULL");
    SINPE_FORWARD(sinpe__table_is(t, SINPE__TABLE_ENCODING, "the patch grid"));
    sinpe_context *ctx = t->ctx;
    SINPE_FORWARD(sinpe__check_queue(ctx, queue));
    SINPE_FORWARD(sinpe__check_wait_list(ctx, nwait, wait));
    sinpe_grid_args_init(&a);
    SINPE_FORWARD(sinpe__struct_in(GRID_ARGS, &a, args, "args"));
    SINPE_CHECK(!a.out, SINPE_NULL_ARGUMENT, "args->out is NULL");
    SINPE_CHECK(!a.rows || !a.cols, SINPE_INVALID_SHAPE, "args->rows %zu or args->cols %zu is 0",
                a.rows, a.cols);
    SINPE_FORWARD(frames_in(t, &a));
    size_t frames = a.frames ? a.frames : 1, d_t = a.frame_table ? a.frame_table->spec.dim : 0;
    SINPE_CHECK(a.rows > INT_MAX / a.cols || frames > INT_MAX / (a.rows * a.cols),
                SINPE_INVALID_SHAPE, "args->frames x rows x cols exceeds 2^31 - 1");
    size_t per = frames * a.rows * a.cols + a.extra_tokens, dim = d_t + 2 * t->spec.dim;
    SINPE_CHECK(a.extra_tokens > INT_MAX || per > INT_MAX, SINPE_INVALID_SHAPE,
                "args->extra_tokens %zu: a sequence past 2^31 - 1 tokens", a.extra_tokens);
    SINPE_FORWARD(sinpe__tokens_check(a.n_seqs, per));
    SINPE_CHECK(a.max_size && (a.max_size < a.rows || a.max_size < a.cols), SINPE_INVALID_SHAPE,
                "args->max_size %zu is below the grid's rows %zu or cols %zu", a.max_size,
                a.rows, a.cols);
    SINPE_CHECK(!(isfinite(a.base_size) && a.base_size >= 0.0), SINPE_INVALID_OPTION,
                "args->base_size %g must be finite and >= 0", a.base_size);
    float s2, s_t;
    SINPE_FORWARD(scale_in(a.interpolation_scale, "interpolation_scale", &s2));
    SINPE_FORWARD(scale_in(a.frame_interpolation_scale, "frame_interpolation_scale", &s_t));
    size_t n = a.n_seqs * per, stride = a.out_stride ? a.out_stride : dim;
    SINPE_FORWARD(sinpe__check_out(ctx, a.out, a.out_offset, n, dim, stride, a.dtype));

    size_t Gr = a.max_size ? a.max_size : a.rows, Gc = a.max_size ? a.max_size : a.cols;
    sinpe_grid_params p = {.out_off = a.out_offset, .out_stride = stride,
                           .d = (cl_uint)t->spec.dim, .d_t = (cl_uint)d_t,
                           .tokens = (cl_uint)n, .per_seq = (cl_uint)per,
                           .extra = (cl_uint)a.extra_tokens, .rows = (cl_uint)a.rows,
                           .cols = (cl_uint)a.cols, .frames = d_t ? (cl_uint)frames : 0,
                           .top = (cl_uint)((Gr - a.rows) / 2),
                           .left = (cl_uint)((Gc - a.cols) / 2), .add = a.add != 0,
                           .s2 = s2, .s_t = s_t};
    SINPE_FORWARD(scale_of(Gr, a.base_size, "rows'", &p.s1_rows));
    SINPE_FORWARD(scale_of(Gc, a.base_size, "columns'", &p.s1_cols));
    sinpe__queue_sink q;
    sinpe__launch l[3];
    cl_uint phase[3];
    int nl;
    SINPE_FORWARD(plan(ctx, a.dtype, &p, l, phase, &nl));
    sinpe__queue_open(&q, t, queue, nwait, wait, event);
    SINPE__KARGS(SINPE_SIG_GRID) v = {.out = a.out, .coef = t->desc,
                           .coef_t = a.frame_table ? a.frame_table->desc : t->desc, .a = p};
    /* The half-rows, then (phase 2) the image's table of per - extra rows,
       which the table keeps for the next batch of the same grid. */
    size_t halves = (a.rows + a.cols) * t->spec.dim + p.frames * d_t;
    size_t scratch = (halves + (nl == 3 ? (per - a.extra_tokens) * dim : 0)) * sizeof(float);
    grid_image key, *image = nl == 3 ? &key : NULL;
    if (image)
        image_key(&p, a.frame_table, image);
    int kept;
    sinpe_status st = sinpe__scratch_kept(t, &q.base, 0, scratch, image, image ? sizeof key : 0,
                                          &v.half_rows, &kept);
    for (int i = kept ? nl - 1 : 0; i < nl && st == SINPE_SUCCESS; i++) {
        v.a.phase = phase[i];
        st = q.base.emit(&q.base, ctx, &l[i], &v, sizeof v, i == nl - 1);
    }
    if (st == SINPE_SUCCESS && image && !kept)
        sinpe__scratch_keep(t, &q.base, 0, &key, sizeof key);
    if (v.half_rows)
        clReleaseMemObject(v.half_rows);
    return sinpe__queue_close(&q, st);
}
