/*
 * plan.c -- what a tuning record means: the build options and the kernels
 * of a program, and each call's launch plan (which kernel of which form,
 * how many columns and sequences a work-item takes, the global and local
 * sizes, one launch or two).  The kernels' side of the same contract is
 * kernels/abi.h and kernels/entries.def, which this file includes.
 */
#include "embed.h"

#include <stdio.h>
#include <stdint.h>
#include <string.h>

/* The kernels' padding policies are the public enum's. */
typedef char sinpe__pads_agree[SINPE_PAD_NONE == 0 && SINPE_PAD_ZERO_PE == 1 &&
                                       SINPE_PAD_ZERO_OUTPUT == 2 &&
                                       SINPE_PAD_ZERO_EMBEDDING == 3
                                   ? 1
                                   : -1];

typedef struct entry {
    int form, mode, ot;
    const char *name;
} entry;

static const entry entries[] = {
#define SINPE_KERNEL(form, name, mode, ot) \
    {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_##ot, #name},
#include "entries.def"
#undef SINPE_KERNEL
};
#define N_ENTRIES (int)(sizeof entries / sizeof entries[0])

const int sinpe__kernel_count = SINPE_K_ENTRY + N_ENTRIES;
typedef char sinpe__slots_fit[SINPE_K_ENTRY + N_ENTRIES <= SINPE_K_MAX ? 1 : -1];

static const char *const fixed_names[SINPE_K_ENTRY] = {
    "sinpe_table_anchors", "sinpe_table_rows_f32", "sinpe_table_rows_f16",
    "sinpe_table_rows_bf16", "sinpe_make_positions", "sinpe_timesteps_f32",
    "sinpe_timesteps_f16", "sinpe_timesteps_bf16", "sinpe_count_bad_ids"};

const char *sinpe__kernel_name(int k)
{
    return k < SINPE_K_ENTRY ? fixed_names[k] : entries[k - SINPE_K_ENTRY].name;
}

/* Whether the program of weights for t holds kernels of this form
   (SINPE_HAS_<FORM>): COL's are bf16 ones. */
static int form_held(const sinpe__tuning *t, int weights, int form)
{
    int two_pass = t->general == SINPE_TWO_PASS;
    switch (form) {
    case SINPE_FORM_STREAM:
        return t->stream != 0;
    case SINPE_FORM_COL:
        return t->bf16 == SINPE_BF16_SCALAR && weights == SINPE_BF16;
    case SINPE_FORM_ROW:
        return t->decode == SINPE_DECODE_ROWS;
    case SINPE_FORM_TABLE:
    case SINPE_FORM_OTF:
        return two_pass;
    default: /* FAST, GENERAL */
        return 1;
    }
}

int sinpe__kernel_held(const sinpe__tuning *t, int weights, int k)
{
    const entry *e;
    if (k < SINPE_K_ENTRY)
        return weights < 0;
    e = &entries[k - SINPE_K_ENTRY];
    if ((e->mode == SINPE_MODE_ADD) != (weights < 0))
        return 0;
    /* Two-pass programs launch only the gather's GENERAL kernels. */
    if (e->form == SINPE_FORM_GENERAL && e->mode != SINPE_MODE_GATHER)
        return t->general == SINPE_ONE_PASS;
    return form_held(t, weights, e->form);
}

void sinpe__plan_options(const sinpe__tuning *t, sinpe_math math, int weights, char *buf,
                         size_t n)
{
    static const char *const forms[SINPE_FORMS] = {"FAST",    "STREAM", "COL", "ROW",
                                                   "GENERAL", "TABLE",  "OTF"};
    /* Never -cl-fast-relaxed-math: the encoding's accuracy depends on IEEE rounding. */
    size_t used = (size_t)snprintf(
        buf, n, "-cl-std=CL1.2 -DSINPE_FP64=%d -DSINPE_STEP_SHIFT=%d -DSINPE_SEQS=%zu "
                "-DSINPE_TABLE_SEQS=%zu -DSINPE_TABLE_TILE=%zu -DSINPE_ALIGNED_IO=%zu",
        math == SINPE_MATH_FP64 ? 1 : 0, SINPE_STEP_SHIFT, t->seqs, t->table_seqs, t->table_tile,
        t->aligned);
    for (int f = 0; f < SINPE_FORMS && used < n; f++)
        used += (size_t)snprintf(buf + used, n - used, " -DSINPE_HAS_%s=%d", forms[f],
                                 form_held(t, weights, f));
    if (weights >= 0 && used < n)
        snprintf(buf + used, n - used, " -DSINPE_WEIGHTS=%d", weights);
}

/* The slot of the kernel of (form, mode, ot); -1 when there is none. */
static int slot_of(int form, int mode, int ot)
{
    for (int i = 0; i < N_ENTRIES; i++) {
        const entry *e = &entries[i];
        if (e->form == form && e->mode == mode && e->ot == ot)
            return SINPE_K_ENTRY + i;
    }
    return -1;
}

/* ---- work-group sizes ---------------------------------------------------- */

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

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
 * Local sizes for n[0..dims): powers of two within the kernel's limit and
 * MAX_GROUP, dim 0 first, and 1 from dimension group_dims on.  Groups
 * along dimension 0 only (group_dims 1: COL's columns, OTF's and ROW's
 * single tokens) take the largest divisor of n[0] of at least 64 (or n[0]
 * itself) instead, so that no group is partial: COL runs a partial group
 * through a guarded copy of its step, which CPU vectorisers leave alone.
 */
void sinpe__plan_local(const sinpe_context *ctx, const sinpe__program *prog, int k,
                       cl_uint dims, cl_uint group_dims, const size_t *n, sinpe__launch *l)
{
    size_t cap = prog->wg[k];
    if (cap > MAX_GROUP)
        cap = MAX_GROUP;
    if (cap < 1)
        cap = 1;
    l->kernel = prog->kernels[k];
    l->dims = dims;
    for (cl_uint i = 0; i < dims; i++) {
        size_t lim = cap < ctx->info.max_item[i] ? cap : ctx->info.max_item[i];
        size_t s = pow2_at_least(n[i]);
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
        l->global[i] = round_up(n[i], l->local[i]);
    }
}

/* ---- embedding calls ----------------------------------------------------- */

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

/* Whether every four-column access of the call is aligned to its size
   (kernels/dtype.cl): the weights' too.  The table is ours. */
static int accesses_aligned(int mode, const sinpe_embed_args *a, const sinpe_embed_params *p)
{
    if (mode != SINPE_MODE_ADD &&
        (p->e_off % 4 || p->e_stride % 4 || !base_aligned(a->weights, 16)))
        return 0;
    return stores_aligned(a, p, 4, 16);
}

/* The FAST-family forms apply when every position is start + t, all of
   them in the table, and no padding policy applies (gather reads no
   position: only a padding policy rules them out), nor an OWNER shard. */
static int fast_applies(int mode, const sinpe_embed_args *a, const sinpe_embed_params *p)
{
    if (p->flags & SINPE_OWNER)
        return 0;
    if (mode == SINPE_MODE_GATHER)
        return a->pad_policy == SINPE_PAD_NONE;
    return a->position_rule == SINPE_POSITIONS_INDEX && !a->positions && !a->seq_starts &&
           !a->pad_counts && a->pad_policy == SINPE_PAD_NONE && a->start >= 0 &&
           (size_t)a->start + a->seq_len <= (size_t)p->tab_rows;
}

/* One launch of kernel (form, call) with cols columns and seqs sequences
   per work-item (cols 0: a whole row, one token per work-item). */
static void add_launch(const sinpe_context *ctx, const sinpe__program *prog, sinpe__plan *plan,
                       int form, int mode, const sinpe_embed_args *a, size_t cols, size_t seqs,
                       cl_uint group_dims)
{
    int k = slot_of(form, mode, (int)a->out_dtype);
    size_t n[3];
    n[0] = cols ? ((size_t)plan->dim + cols - 1) / cols : 1;
    n[1] = (a->n_seqs + seqs - 1) / seqs;
    n[2] = a->seq_len;
    sinpe__plan_local(ctx, prog, k, 3, group_dims, n, &plan->launch[plan->n++]);
}

void sinpe__plan_embed(const sinpe_context *ctx, const sinpe__program *prog, int mode,
                       const sinpe_embed_args *a, const sinpe_embed_params *p,
                       sinpe__plan *plan)
{
    const sinpe__tuning *t = &ctx->tune;
    size_t tokens = a->n_seqs * a->seq_len, S = t->seqs;
    size_t out_bytes = sinpe_dtype_bytes(a->out_dtype, tokens * p->dim);
    /* STREAM stores 64-byte lines: sixteen fp32 or 32 16-bit values. */
    size_t line = 64 / sinpe_dtype_bytes(a->out_dtype, 1);
    int big = t->stream && mode != SINPE_MODE_ADD && out_bytes >= t->stream_bytes &&
              stores_aligned(a, p, line, 64);
    int decode = t->decode == SINPE_DECODE_ROWS && tokens <= t->decode_tokens;

    memset(plan, 0, sizeof *plan);
    plan->dim = p->dim;
    plan->flags = t->aligned && accesses_aligned(mode, a, p) ? SINPE_ALIGNED : 0;
    if (fast_applies(mode, a, p)) {
        if (big)
            add_launch(ctx, prog, plan, SINPE_FORM_STREAM, mode, a, line, S, 3);
        else if (decode && mode != SINPE_MODE_ADD && a->out_dtype != SINPE_BF16)
            add_launch(ctx, prog, plan, SINPE_FORM_ROW, mode, a, 0, 1, 1);
        else if (t->bf16 == SINPE_BF16_SCALAR && mode != SINPE_MODE_ADD &&
                 a->weights_dtype == SINPE_BF16 && a->out_dtype == SINPE_BF16)
            add_launch(ctx, prog, plan, SINPE_FORM_COL, mode, a, 1, 1, 1);
        else
            add_launch(ctx, prog, plan, SINPE_FORM_FAST, mode, a, 4, S, 3);
    } else if (mode == SINPE_MODE_GATHER || t->general == SINPE_ONE_PASS) {
        add_launch(ctx, prog, plan, SINPE_FORM_GENERAL, mode, a, 4, 1, 3);
    } else if (decode && !big) {
        plan->flags |= SINPE_ONE_LAUNCH;
        add_launch(ctx, prog, plan, SINPE_FORM_OTF, mode, a, 0, 1, 1);
    } else {
        /* Two launches: the tokens in the table, then the others. */
        if (big)
            add_launch(ctx, prog, plan, SINPE_FORM_STREAM, mode, a, line, S, 3);
        else
            add_launch(ctx, prog, plan, SINPE_FORM_TABLE, mode, a, 16, t->table_seqs, 3);
        add_launch(ctx, prog, plan, SINPE_FORM_OTF, mode, a, 0, 1, 1);
    }
}

void sinpe__plan_rows(const sinpe_context *ctx, sinpe_dtype out_dtype, size_t dim,
                      size_t blocks, sinpe__launch *l)
{
    /* Work-item (c, g, h): a tile of T steps x T blocks (kernels/table.cl). */
    size_t T = ctx->tune.table_tile;
    const size_t n[3] = {dim, SINPE_STEP_ROWS / T, (blocks + T - 1) / T};
    sinpe__plan_local(ctx, &ctx->prog, SINPE_K_TABLE_ROWS + (int)out_dtype, 3, 3, n, l);
}
