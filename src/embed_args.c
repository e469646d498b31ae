/*
 * embed_args.c -- the arguments of the embedding calls: their defaults, and
 * every check made before anything is enqueued.
 */
#include "embed.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The header's limit is the kernels' number of weights buffers. */
typedef char sinpe__weights_max_agree[SINPE_WEIGHTS_MAX == SINPE_WEIGHTS_BUFFERS ? 1 : -1];

void sinpe_embed_args_init_sized(sinpe_embed_args *args, size_t struct_size)
{
    /* F32, INDEX, PAD_NONE and SCALE_EXACT are 0 */
    static const sinpe_embed_args own = {.token_scale = 1.0f, .weights_scale = 1.0f};
    sinpe__struct_init(SINPE__ARGS, args, struct_size, &own, "args");
}

/* a * b + c, or SIZE_MAX on overflow. */
static size_t mul_add(size_t a, size_t b, size_t c)
{
    if (b && a > (SIZE_MAX - c) / b)
        return SIZE_MAX;
    return a * b + c;
}

static sinpe_status check_dtype(sinpe_dtype t, const char *name, int output)
{
    SINPE_CHECK(!sinpe__dtype(t), SINPE_INVALID_DTYPE, "args->%s %d is not a sinpe_dtype",
                name, (int)t);
    SINPE_CHECK(output && !sinpe__dtype(t)->output, SINPE_INVALID_DTYPE,
                "args->%s %s is a weights-only type", name, sinpe__dtype(t)->name);
    return SINPE_SUCCESS;
}

/* The weights' buffers: weights, or the weights_count of weights_list,
   each holding its rows at weights_offset, every e_stride. */
static sinpe_status check_buffers(const sinpe_context *ctx, const sinpe_embed_args *a,
                                  size_t dim, size_t e_stride)
{
    size_t sum = 0, n = a->weights_count;
    char name[48];
    if (!n)
        return sinpe__check_values(ctx, a->weights, "args->weights", a->weights_offset,
                                   mul_add(a->vocab - 1, e_stride, dim), a->weights_dtype);
    SINPE_CHECK(a->weights != NULL, SINPE_INVALID_OPTION,
                "args->weights is given with weights_count %zu: the rows lie in weights_list "
                "alone (weights NULL)", n);
    SINPE_CHECK(n > SINPE_WEIGHTS_MAX, SINPE_TOO_LARGE,
                "args->weights_count %zu exceeds SINPE_WEIGHTS_MAX (%d)", n, SINPE_WEIGHTS_MAX);
    SINPE_CHECK(!a->weights_list || !a->weights_rows, SINPE_NULL_ARGUMENT,
                "args->%s is NULL with weights_count %zu",
                a->weights_list ? "weights_rows" : "weights_list", n);
    for (size_t j = 0; j < n; j++) {
        size_t rows = a->weights_rows[j];
        SINPE_CHECK(rows == 0 || rows > a->vocab - sum, SINPE_INVALID_SHAPE,
                    "args->weights_rows[%zu] is %zu: each buffer holds at least one row, and "
                    "the rows sum to vocab %zu", j, rows, a->vocab);
        snprintf(name, sizeof name, "args->weights_list[%zu]", j);
        SINPE_FORWARD(sinpe__check_values(ctx, a->weights_list[j], name, a->weights_offset,
                                          mul_add(rows - 1, e_stride, dim), a->weights_dtype));
        sum += rows;
    }
    SINPE_CHECK(sum != a->vocab, SINPE_INVALID_SHAPE,
                "args->weights_rows sum to %zu, not vocab %zu", sum, a->vocab);
    return SINPE_SUCCESS;
}

/* The weights' type, layout and scales, into p (ws_*, wscale; the caller
   set SCALES_NONE and 1). */
static sinpe_status validate_weights(const sinpe_context *ctx, const sinpe_embed_args *a,
                                     size_t dim, size_t e_stride, sinpe_embed_params *p)
{
    const sinpe_dtype_info *w;
    SINPE_FORWARD(check_dtype(a->weights_dtype, "weights_dtype", 0));
    w = sinpe__dtype(a->weights_dtype);
    SINPE_CHECK(dim % w->block_values || a->weights_offset % w->block_values ||
                    e_stride % w->block_values,
                SINPE_INVALID_SHAPE,
                "%s weights: dim %zu, weights_offset %zu and weights_stride %zu must be "
                "multiples of its block of %zu values",
                w->name, dim, a->weights_offset, e_stride, w->block_values);
    SINPE_FORWARD(check_buffers(ctx, a, dim, e_stride));
    SINPE_CHECK(w->scales == SINPE_DTYPE_SCALES_ROW && !a->weight_scales, SINPE_NULL_ARGUMENT,
                "args->weight_scales is NULL: %s weights need one scale per row", w->name);
    if (a->weight_scales && (w->scales == SINPE_DTYPE_SCALES_ROW ||
                             w->scales == SINPE_DTYPE_SCALES_ROW_OR_TENSOR)) {
        sinpe_dtype st = a->weight_scales_dtype;
        SINPE_CHECK(st != SINPE_F32 && st != SINPE_F16, SINPE_INVALID_DTYPE,
                    "args->weight_scales_dtype %d: scales are SINPE_F32 or SINPE_F16", (int)st);
        SINPE_FORWARD(sinpe__check_values(ctx, a->weight_scales, "args->weight_scales",
                                          a->weight_scales_offset, a->vocab, st));
        p->ws_type = st == SINPE_F32 ? SINPE_SCALES_F32 : SINPE_SCALES_F16;
        p->ws_off = a->weight_scales_offset;
    } else if (w->scales == SINPE_DTYPE_SCALES_ROW_OR_TENSOR) {
        SINPE_CHECK(!isfinite(a->weights_scale), SINPE_INVALID_OPTION,
                    "args->weights_scale %g is not finite", (double)a->weights_scale);
        p->wscale = a->weights_scale;
    }
    return SINPE_SUCCESS;
}

/* token_scale as the call uses it: rounded as args->token_scale_rounding says. */
static sinpe_status token_scale(const sinpe_embed_args *a, int mode, float *scale)
{
    sinpe_dtype to = a->token_scale_rounding == SINPE_SCALE_WEIGHTS ? a->weights_dtype
                                                                    : a->out_dtype;
    SINPE_CHECK((unsigned)a->token_scale_rounding > SINPE_SCALE_OUTPUT, SINPE_INVALID_OPTION,
                "args->token_scale_rounding %d is not a sinpe_scale_rounding",
                (int)a->token_scale_rounding);
    SINPE_CHECK(a->token_scale_rounding == SINPE_SCALE_WEIGHTS && mode != SINPE_MODE_ADD &&
                    !sinpe__dtype(to)->output,
                SINPE_INVALID_OPTION,
                "args->token_scale_rounding: SINPE_SCALE_WEIGHTS with %s weights, which are "
                "no float type", sinpe__dtype(to)->name);
    *scale = a->token_scale_rounding == SINPE_SCALE_EXACT || mode == SINPE_MODE_ADD
                 ? a->token_scale
                 : sinpe__round_to(to, a->token_scale);
    return SINPE_SUCCESS;
}

/* The id-side fields: ids, weights, vocabulary, padding, bad-id counter. */
static sinpe_status validate_ids(const sinpe_context *ctx, int mode, const sinpe_embed_args *a,
                                 size_t dim, size_t n, sinpe_embed_params *p)
{
    int uses_pad = a->pad_policy != SINPE_PAD_NONE || a->position_rule == SINPE_POSITIONS_FAIRSEQ;
    int need_ids = mode != SINPE_MODE_ADD || uses_pad;

    SINPE_CHECK((unsigned)a->vocab_shard > SINPE_SHARD_OWNER, SINPE_INVALID_OPTION,
                "args->vocab_shard %d is not a sinpe_vocab_shard", a->vocab_shard);
    SINPE_CHECK((unsigned)a->pad_policy > SINPE_PAD_ZERO_EMBEDDING, SINPE_INVALID_PAD,
                "args->pad_policy %d is not a sinpe_pad_policy", (int)a->pad_policy);
    SINPE_CHECK(uses_pad && a->pad_id < 0, SINPE_INVALID_PAD, "args->pad_id %d is negative",
                (int)a->pad_id);
    if (mode != SINPE_MODE_ADD || a->vocab) {
        SINPE_CHECK(a->vocab == 0, SINPE_INVALID_SHAPE, "args->vocab is 0");
        SINPE_CHECK(a->vocab > (size_t)INT_MAX, SINPE_INVALID_SHAPE,
                    "args->vocab %zu exceeds 2^31 - 1", a->vocab);
        SINPE_CHECK(a->vocab_shard && a->vocab_start > (size_t)INT_MAX - a->vocab,
                    SINPE_INVALID_OPTION, "args->vocab_start + vocab exceeds 2^31 - 1");
        if (a->vocab_shard == SINPE_SHARD_OWNER) {
            SINPE_CHECK(a->vocab_total < a->vocab_start + a->vocab ||
                            a->vocab_total > (size_t)INT_MAX,
                        SINPE_INVALID_OPTION,
                        "args->vocab_total %zu is below vocab_start + vocab (%zu) or over "
                        "2^31 - 1", a->vocab_total, a->vocab_start + a->vocab);
            SINPE_CHECK(a->skip_pe, SINPE_INVALID_OPTION,
                        "args->skip_pe must be 0 for an OWNER shard (the owner adds PE)");
            SINPE_CHECK(uses_pad && (size_t)a->pad_id >= a->vocab_total, SINPE_INVALID_PAD,
                        "args->pad_id %d lies outside the vocabulary [0, %zu)",
                        (int)a->pad_id, a->vocab_total);
        }
        /* A shard cannot know the whole vocabulary: its pad id may lie in another shard. */
        SINPE_CHECK(uses_pad && !a->vocab_shard && (size_t)a->pad_id >= a->vocab,
                    SINPE_INVALID_PAD, "args->pad_id %d lies outside the vocabulary [0, %zu)",
                    (int)a->pad_id, a->vocab);
    }
    if (need_ids)
        SINPE_FORWARD(sinpe__check_ints(ctx, a->ids, "args->ids", a->ids_offset, n));
    if (mode != SINPE_MODE_ADD) {
        size_t e_stride = a->weights_stride ? a->weights_stride : dim;
        SINPE_CHECK(e_stride < dim, SINPE_INVALID_SHAPE,
                    "args->weights_stride %zu is below dim %zu", e_stride, dim);
        SINPE_FORWARD(validate_weights(ctx, a, dim, e_stride, p));
        if (a->bad_ids)
            SINPE_FORWARD(
                sinpe__check_ints(ctx, a->bad_ids, "args->bad_ids", a->bad_ids_offset, 1));
        p->e_off = a->weights_offset;
        p->e_stride = e_stride;
        p->vocab_start = a->vocab_shard ? (cl_int)a->vocab_start : 0;
        if (a->vocab_shard == SINPE_SHARD_OWNER)
            p->flags |= SINPE_OWNER | (a->vocab_start == 0 ? SINPE_OWNS_BELOW : 0) |
                        (a->vocab_start + a->vocab == a->vocab_total ? SINPE_OWNS_ABOVE : 0);
        for (size_t j = 0, first = 0; j < SINPE_WEIGHTS_BUFFERS - 1; j++) {
            first += j < a->weights_count ? a->weights_rows[j] : 0;
            p->part[j] = j + 1 < a->weights_count ? (cl_int)first : INT_MAX;
        }
    }
    p->vocab = (cl_int)a->vocab;
    p->ids_off = a->ids_offset;
    p->pad_id = a->pad_id;
    p->pad_policy = a->pad_policy;
    return SINPE_SUCCESS;
}

sinpe__positions sinpe__embed_positions(int mode, const sinpe_embed_args *a)
{
    sinpe__positions s = {.n_seqs = a->n_seqs, .seq_len = a->seq_len};
    if (mode == SINPE_MODE_GATHER)
        return s;
    s.rule = (int)a->position_rule;
    s.start = a->start;
    s.positions = a->positions;
    s.positions_offset = a->positions_offset;
    s.broadcast = a->positions_broadcast;
    s.seq_starts = a->seq_starts;
    s.seq_starts_offset = a->seq_starts_offset;
    s.pad_counts = a->pad_counts;
    s.pad_counts_offset = a->pad_counts_offset;
    return s;
}

sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p)
{
    const sinpe_context *ctx = t->ctx;
    size_t dim = t->spec.dim, n, o_stride;

    SINPE_FORWARD(sinpe__tokens_check(a->n_seqs, a->seq_len));
    n = a->n_seqs * a->seq_len;
    o_stride = a->out_stride ? a->out_stride : dim;
    SINPE_CHECK(o_stride < dim, SINPE_INVALID_SHAPE, "args->out_stride %zu is below dim %zu",
                o_stride, dim);
    SINPE_FORWARD(check_dtype(a->out_dtype, "out_dtype", 1));
    memset(p, 0, sizeof *p);
    p->wscale = 1.0f;
    for (size_t j = 0; j < SINPE_WEIGHTS_BUFFERS - 1; j++)
        p->part[j] = INT_MAX; /* one buffer */
    SINPE_FORWARD(validate_ids(ctx, mode, a, dim, n, p));
    if (mode != SINPE_MODE_GATHER) {
        const sinpe__positions s = sinpe__embed_positions(mode, a);
        SINPE_FORWARD(sinpe__positions_check(ctx, &s));
        p->flags |= a->skip_pe ? SINPE_SKIP_PE : 0;
    }
    SINPE_FORWARD(sinpe__check_values(ctx, a->out, "args->out", a->out_offset,
                                      mul_add(n - 1, o_stride, dim), a->out_dtype));
    p->out_off = a->out_offset;
    p->out_stride = o_stride;
    p->dim = (cl_uint)dim;
    p->n_seqs = (cl_uint)a->n_seqs;
    SINPE_FORWARD(token_scale(a, mode, &p->scale));
    return SINPE_SUCCESS;
}
