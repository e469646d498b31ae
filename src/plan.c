/*
 * plan.c -- what a tuning record means, said once: each call's launches,
 * chosen by choose(); the kernels a program holds (those choose() reaches
 * for some call, so no call reaches a kernel its program lacks); the build
 * options; whether two records launch a call alike (plan_records.c asks
 * that of every kind of call).
 */
#include "sinpe_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The kernels' padding policies are the public enum's. */
typedef char sinpe__pads_agree[SINPE_PAD_NONE == 0 && SINPE_PAD_ZERO_PE == 1 &&
                               SINPE_PAD_ZERO_OUTPUT == 2 && SINPE_PAD_ZERO_EMBEDDING == 3 ? 1 : -1];

/* ---- the choice ---------------------------------------------------------- */

/* A launch of a form: cols columns (0: a whole row), seqs sequences and
   run tokens per work-item (0: all; table rows: seqs is the tile), groups
   along group_dims of at most group work-items (0: MAX_GROUP). */
typedef struct step {
    int form;
    size_t cols, seqs, run;
    cl_uint group_dims;
    size_t group;
} step;
typedef struct choice {
    int n, aligned, tiles;
    size_t row16; /* ROW: values a step (wide16); the kernel reads
                     SINPE_WIDE16, this tells sinpe__plan_same */
    size_t prefetch; /* the record's prefetch or stream_prefetch, where the form reads it */
    step s[2];
} choice;

static void add(choice *ch, int form, size_t cols, size_t seqs, size_t run, cl_uint group_dims)
{
    ch->s[ch->n++] = (step){form, cols, seqs, run, group_dims, 0};
}

/* Work-items that take whole tokens (ROW, OTF over positions from a
   buffer) go TOKEN_GROUP to a group: one a group, a runtime's cost per
   group (about 70 ns on Intel's CPU runtime) added up over a decode's
   tokens; sixteen still leave a 64-token call four groups to share. */
#define TOKEN_GROUP 16
static void add_tokens(choice *ch, int form, size_t run)
{
    ch->s[ch->n++] = (step){form, 0, 1, run, 3, TOKEN_GROUP};
}

/* Tokens of one sequence per work-item of the OTF tiles. */
#define OTF_RUN 16

/*
 * The OTF launch (alone in a call, it writes every token: SINPE_ONE_LAUNCH).
 * Positions without a buffer run in order in each sequence, so tiles of
 * sixteen columns over OTF_RUN tokens of table_seqs sequences (few, a
 * decode-sized call: all of them) share their anchors; positions from a
 * buffer may lie anywhere: a work-item takes OTF_RUN tokens of one
 * sequence (few: one) whole, and an anchor serves the next tokens while
 * their positions stay in its block (kernels/embed_otf.cl).
 */
static void add_otf(choice *ch, const sinpe__tuning *t, const sinpe__call *c, int few)
{
    if (!c->ordered) {
        add_tokens(ch, SINPE_FORM_OTF, few ? 1 : OTF_RUN);
        return;
    }
    add(ch, SINPE_FORM_OTF, 16, few ? 0 : t->table_seqs, few ? 0 : OTF_RUN, few ? 1 : 3);
    ch->tiles = 1;
}

/* The launches of call c under t. */
static void choose(const sinpe__tuning *t, const sinpe__call *c, choice *ch)
{
    size_t S = t->seqs;
    /* STREAM: stream_lines 64-byte lines (16 fp32 or 32 16-bit values) a sequence. */
    size_t stream_cols = 64 / sinpe_dtype_bytes((sinpe_dtype)c->out, 1) * t->stream_lines;
    int big = t->stream && c->mode != SINPE_MODE_ADD && c->out_bytes >= t->stream_bytes &&
              c->lines;
    int decode = t->decode == SINPE_DECODE_ROWS && c->tokens <= t->decode_tokens;

    memset(ch, 0, sizeof *ch);
    ch->aligned = t->aligned && c->aligned;
    if (c->mode == SINPE_MODE_NONE) {
        /* Table rows: a tile of T steps x T blocks per work-item (table.cl);
           the rotation: rope_pairs pairs of every head (rope.cl); the grid
           encoding: sixteen columns of a token's row, or all (0; grid.cl),
           after an image's table of whole rows under grid_span = image; the
           attention input: attn_heads heads (attn_input.cl). */
        size_t cols = c->form == SINPE_FORM_ROPE ? t->rope_pairs
                      : c->form == SINPE_FORM_ATTN ? t->attn_heads
                                                   : 1;
        if (c->form == SINPE_FORM_GRID)
            cols = t->grid_span == SINPE_GRID_COLUMNS ? 16 : 0;
        if (c->form == SINPE_FORM_GRID && t->grid_span == SINPE_GRID_IMAGE)
            add(ch, c->form, 0, 1, 1, 3);
        add(ch, c->form, cols, c->form == SINPE_FORM_ROWS ? t->table_tile : 1, 1, 3);
        ch->prefetch = c->form == SINPE_FORM_ROPE && t->rope_pairs >= 16 ? t->prefetch : 0;
    } else if (c->fast) {
        if (big)
            add(ch, SINPE_FORM_STREAM, stream_cols, S, 1, 3);
        else if (decode && c->mode != SINPE_MODE_ADD) {
            add_tokens(ch, SINPE_FORM_ROW, 1);
            ch->row16 = t->wide16;
        }
        else if (t->bf16 == SINPE_BF16_SCALAR && c->mode != SINPE_MODE_ADD &&
                 c->weights == SINPE_BF16 && c->out == SINPE_BF16)
            add(ch, SINPE_FORM_COL, 1, 1, 1, 1);
        else
            add(ch, SINPE_FORM_FAST, c->out != SINPE_F32 ? t->wide16 : 4, S, 1, 3);
    } else if (c->mode == SINPE_MODE_GATHER || t->general == SINPE_ONE_PASS) {
        add(ch, SINPE_FORM_GENERAL, 4, 1, 1, 3);
    } else if (decode && !big) {
        add_otf(ch, t, c, 1);
    } else if (c->computed) {
        /* The one launch that writes tokens (a table pass would only read). */
        add_otf(ch, t, c, 0);
    } else {
        /* Two launches: the tokens in the table, then the others. */
        if (big)
            add(ch, SINPE_FORM_STREAM, stream_cols, S, 1, 3);
        else
            add(ch, SINPE_FORM_TABLE, 16, t->table_seqs, 1, 3);
        add_otf(ch, t, c, 0);
    }
    if (ch->s[0].form == SINPE_FORM_STREAM && c->out != SINPE_F32)
        ch->prefetch = t->stream_prefetch; /* the next rows' first lines */
}

/* The most tokens or bytes of a call, below any threshold's "never". */
#define LARGEST (SINPE__NEVER - 1)

sinpe__call sinpe__plan_kind(int mode, int weights, int out, int bits)
{
    const int form = mode != SINPE_MODE_NONE ? SINPE_FORM_ROWS
                     : (bits & 3) == 3         ? SINPE_FORM_ATTN
                     : bits & 1                ? SINPE_FORM_ROPE
                     : bits & 2                ? SINPE_FORM_GRID
                                               : SINPE_FORM_ROWS;
    const sinpe__call c = {.mode = mode, .form = form, .weights = weights, .out = out,
                           .fast = bits & 1, .lines = (bits >> 1) & 1,
                           .aligned = (bits >> 2) & 1, .tokens = bits & 8 ? 1 : LARGEST,
                           .out_bytes = bits & 16 ? 1 : LARGEST, .ordered = (bits >> 5) & 1,
                           .computed = (bits >> 6) & 1};
    return c;
}

/* Whether some call of (mode, weights, out) takes form under t. */
static int reaches(const sinpe__tuning *t, int form, int mode, int weights, int out)
{
    for (int bits = 0; bits < SINPE__KIND_BITS; bits++) {
        const sinpe__call c = sinpe__plan_kind(mode, weights, out, bits);
        choice ch;
        choose(t, &c, &ch);
        for (int j = 0; j < ch.n; j++)
            if (ch.s[j].form == form)
                return 1;
    }
    return 0;
}

int sinpe__kernel_held(const sinpe__tuning *t, int weights, int k)
{
    const sinpe__kernel *e = &sinpe__kernels[k];
    if (e->mode == SINPE_MODE_NONE)
        return weights < 0;
    if ((e->mode == SINPE_MODE_ADD) != (weights < 0))
        return 0;
    return !t || reaches(t, e->form, e->mode, weights < 0 ? SINPE_F32 : weights, e->ot);
}

void sinpe__plan_options(const sinpe__tuning *t, sinpe_math math, int weights, char *buf, size_t n)
{
#define FORM_NAME(form, sig) #form,
    static const char *const forms[SINPE_FORMS] = {SINPE_FORM_LIST(FORM_NAME)};
#undef FORM_NAME
    sinpe__tuning first; /* every parameter at its first value, for t NULL */
    const sinpe__tuning *v = t ? t : &first;
    int held[SINPE_FORMS] = {0};
    for (size_t i = 0; i < sinpe__n_params; i++)
        sinpe__param_value(i, 0, sinpe__param_field(&first, i));
    for (int k = 0; k < sinpe__kernel_count; k++)
        held[sinpe__kernels[k].form] |= sinpe__kernel_held(t, weights, k);
    /* Never -cl-fast-relaxed-math: the encoding's accuracy depends on IEEE rounding.
       -w (OpenCL's own option, so every implementation takes it): a clang-based
       compiler prints "N warnings generated." on the host's stderr, which the
       build log does not catch; on x86 targets without AVX-512 each 16-wide
       vector call draws a -Wpsabi warning.  Errors still fill the build log. */
    size_t used = (size_t)snprintf(buf, n,
                                   "-cl-std=CL1.2 -w -DSINPE_FP64=%d -DSINPE_SEQS=%zu "
                                   "-DSINPE_TABLE_SEQS=%zu -DSINPE_TABLE_TILE=%zu "
                                   "-DSINPE_ALIGNED_IO=%zu -DSINPE_WIDE16=%zu "
                                   "-DSINPE_ROPE_PAIRS=%zu -DSINPE_PREFETCH=%zu "
                                   "-DSINPE_STREAM_LINES=%zu -DSINPE_ATTN_HEADS=%zu",
                                   math == SINPE_MATH_FP64 ? 1 : 0, v->seqs, v->table_seqs,
                                   v->table_tile, v->aligned, v->wide16, v->rope_pairs,
                                   v->prefetch | v->stream_prefetch << 1, v->stream_lines,
                                   v->attn_heads);
    for (int f = 0; f < SINPE_FORMS && used < n; f++)
        used += (size_t)snprintf(buf + used, n - used, " -DSINPE_HAS_%s=%d", forms[f], held[f]);
    if (weights >= 0 && used < n)
        snprintf(buf + used, n - used, " -DSINPE_WEIGHTS=%d", weights);
}

int sinpe__plan_same(const sinpe__tuning *t, const sinpe__tuning *u, const sinpe__call *c)
{
    choice a, b;
    choose(t, c, &a);
    choose(u, c, &b);
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- launches ------------------------------------------------------------ */

/* The largest divisor of n in [lo, hi], or 0.  By quotient, smallest
   first: a row that fits takes one step, and no search runs past n / lo
   (launches call this on the hot path). */
static size_t divisor_within(size_t n, size_t lo, size_t hi)
{
    for (size_t q = (n + hi - 1) / hi; q > 0 && n / q >= lo; q++)
        if (n % q == 0)
            return n / q;
    return 0;
}

/* The largest work-group: as fast as the kernel's limit wherever measured
   (bench/RESULTS.md), and fewer shapes mean fewer of pocl's compiles. */
#define MAX_GROUP 256

/*
 * The launch of kernel (form, mode, ot) of prog over n[0..dims): local
 * sizes powers of two within the kernel's limit and most (0: MAX_GROUP),
 * dim 0 first, and 1 from dimension group_dims on.  Groups along dimension
 * 0 only (group_dims 1: COL's columns, OTF's tiles of a few tokens) take
 * the largest divisor of n[0] of at least 64 (or n[0] itself) instead, so
 * that no group is partial: COL runs a partial group through a guarded
 * copy of its step, which CPU vectorisers leave alone.  A kernel that prog
 * lacks is an error of the plan's, reported, never launched.
 */
static sinpe_status plan_local(const sinpe__device_info *dev, const sinpe__program *prog,
                               int form, int mode, int ot, cl_uint dims, cl_uint group_dims,
                               size_t most, const size_t *n, sinpe__launch *l)
{
    int k = 0;
    while (k < sinpe__kernel_count && (sinpe__kernels[k].form != form ||
                                       sinpe__kernels[k].mode != mode || sinpe__kernels[k].ot != ot))
        k++;
    if (k == sinpe__kernel_count || !prog->kernels[k])
        return sinpe__cl_fail(CL_INVALID_KERNEL, "the plan: a kernel its program lacks");
    most = most ? most : MAX_GROUP;
    size_t cap = prog->wg[k] < most ? prog->wg[k] : most;
    cap = cap < 1 ? 1 : cap;
    l->k = k;
    l->kernel = prog->kernels[k];
    l->dims = dims;
    for (cl_uint i = 0; i < dims; i++) {
        size_t lim = cap < dev->max_item[i] ? cap : dev->max_item[i], s = 1;
        while (s < n[i])
            s <<= 1;
        if (s > lim)
            s = lim;
        if (i == 0 && group_dims == 1) {
            size_t d = divisor_within(n[0], n[0] < 64 ? n[0] : 64, lim);
            if (d)
                s = d;
        }
        if (i >= group_dims)
            s = 1;
        l->local[i] = s < 1 ? 1 : s;
        cap /= l->local[i];
        l->global[i] = (n[i] + l->local[i] - 1) / l->local[i] * l->local[i];
    }
    return SINPE_SUCCESS;
}

size_t sinpe__rows_blocks(cl_int row0, size_t nrows)
{
    int64_t first = (int64_t)row0 >> SINPE_STEP_SHIFT;
    int64_t final = ((int64_t)row0 + (int64_t)nrows - 1) >> SINPE_STEP_SHIFT;
    return (size_t)(final - first + 1);
}

sinpe_status sinpe__plan_fixed(const sinpe__device_info *dev, const sinpe__program *prog, int form,
                               int ot, cl_uint dims, const size_t *n, sinpe__launch *l)
{
    return plan_local(dev, prog, form, SINPE_MODE_NONE, ot, dims, dims, 0, n, l);
}

sinpe_status sinpe__plan_rows(const sinpe__tuning *t, const sinpe__device_info *dev,
                              const sinpe__program *prog, sinpe_dtype out_dtype, size_t dim,
                              cl_int row0, size_t nrows, size_t blocks, sinpe__launch l[2])
{
    const sinpe__call c = {.mode = SINPE_MODE_NONE, .form = SINPE_FORM_ROWS, .out = (int)out_dtype};
    choice ch;
    choose(t, &c, &ch);
    /* Work-item (c, g, h): T steps x T blocks; if T = 1, SINPE_ROWS_COLS
       columns of SINPE_ROWS_RUN rows from row0's multiple of the run on, in
       SINPE_ROWS_BLOCKS blocks, only as many as the rows need (table.cl). */
    size_t T = ch.s[0].seqs, R = SINPE_ROWS_RUN;
    size_t runs = ((size_t)row0 % R + nrows + R - 1) / R, per = SINPE_STEP_ROWS / R;
    size_t strides = (runs + per - 1) / per;
    const size_t n[3] = {T == 1 ? (dim + SINPE_ROWS_COLS - 1) / SINPE_ROWS_COLS : dim,
                         T == 1 ? (runs < per ? runs : per) : SINPE_STEP_ROWS / T,
                         T == 1 ? (strides + SINPE_ROWS_BLOCKS - 1) / SINPE_ROWS_BLOCKS
                                : (blocks + T - 1) / T};
    /* First the anchors: (columns, block), SINPE_ANCHOR_COLS columns a
       work-item if T = 1, else one. */
    const size_t na[2] = {T == 1 ? (dim + SINPE_ANCHOR_COLS - 1) / SINPE_ANCHOR_COLS : dim,
                          blocks};
    SINPE_FORWARD(sinpe__plan_fixed(dev, prog, SINPE_FORM_ANCHORS, SINPE_F32, 2, na, &l[0]));
    return sinpe__plan_fixed(dev, prog, SINPE_FORM_ROWS, (int)out_dtype, 3, n, &l[1]);
}

size_t sinpe__plan_choice(const sinpe__tuning *t, int form, int out, int *steps)
{
    const sinpe__call c = {.mode = SINPE_MODE_NONE, .form = form, .out = out};
    choice ch;
    choose(t, &c, &ch);
    if (steps)
        *steps = ch.n;
    return ch.s[ch.n - 1].cols;
}

/* fairseq positions of n_seqs sequences: a power-of-two work-group each. */
static sinpe_status plan_positions(const sinpe__device_info *dev, const sinpe__program *prog,
                                   size_t n_seqs, sinpe__launch *l)
{
    const size_t n[2] = {1, n_seqs};
    size_t wg = 1, cap;
    SINPE_FORWARD(sinpe__plan_fixed(dev, prog, SINPE_FORM_POSITIONS, SINPE_F32, 2, n, l));
    cap = prog->wg[l->k];
    while (wg * 2 <= cap && wg * 2 <= MAX_GROUP && wg * 2 <= dev->max_item[0])
        wg *= 2;
    l->global[0] = l->local[0] = wg;
    l->global[1] = n_seqs;
    l->local[1] = 1;
    return SINPE_SUCCESS;
}

sinpe_status sinpe__plan_embed(const sinpe__tuning *t, const sinpe__device_info *dev,
                               const sinpe__program *base, const sinpe__program *prog,
                               const sinpe__call *c, sinpe__plan *plan)
{
    choice ch;
    choose(t, c, &ch);
    memset(plan, 0, sizeof *plan);
    plan->flags = (ch.aligned ? SINPE_ALIGNED : 0) | (ch.tiles ? SINPE_OTF_TILES : 0) |
                  (ch.n == 1 && ch.s[0].form == SINPE_FORM_OTF ? SINPE_ONE_LAUNCH : 0);
    sinpe__launch *l = plan->launch;
    if (c->past) {
        plan->blocks = sinpe__rows_blocks(c->start, c->seq_len);
        SINPE_FORWARD(sinpe__plan_rows(t, dev, base, SINPE_F32, c->dim, c->start, c->seq_len,
                                       plan->blocks, l));
        l[0].step = SINPE__STEP_ANCHORS;
        l[1].step = SINPE__STEP_ROWS;
        l += 2;
    }
    if (c->fairseq) {
        SINPE_FORWARD(plan_positions(dev, base, c->n_seqs, l));
        l++->step = SINPE__STEP_POSITIONS;
    }
    if (c->bad_ids) {
        const size_t n[2] = {c->tokens, 1};
        SINPE_FORWARD(sinpe__plan_fixed(dev, base, SINPE_FORM_BAD_IDS, SINPE_F32, 2, n, l));
        l++->step = SINPE__STEP_BAD_IDS;
    }
    for (int i = 0; i < ch.n; i++) {
        const step *s = &ch.s[i];
        const size_t n[3] = {s->cols ? (c->dim + s->cols - 1) / s->cols : 1,
                             s->seqs ? (c->n_seqs + s->seqs - 1) / s->seqs : 1,
                             s->run ? (c->seq_len + s->run - 1) / s->run : 1};
        SINPE_FORWARD(
            plan_local(dev, prog, s->form, c->mode, c->out, 3, s->group_dims, s->group, n, l));
        l++->step = SINPE__STEP_MAIN;
    }
    plan->n = (int)(l - plan->launch);
    return SINPE_SUCCESS;
}
