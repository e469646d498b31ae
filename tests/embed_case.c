/* embed_case.c -- one embedding call from host arrays, run and checked
 * (embed_case.h). */
#include "embed_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t pc_rows(const pcase *c)
{
    return c->n_seqs * c->seq_len;
}

static size_t ostride(const pcase *c)
{
    return c->out_stride ? c->out_stride : c->spec.dim;
}

size_t pc_out(const pcase *c)
{
    return c->out_offset + (pc_rows(c) - 1) * ostride(c) + c->spec.dim;
}

/* An int buffer holding junk in [0, offset) and then n values; NULL for v NULL. */
static cl_mem int_buffer(sinpe_context *ctx, const int32_t *v, size_t n, size_t offset,
                         int32_t junk)
{
    if (!v)
        return NULL;
    int32_t *h = tu_malloc((offset + n) * sizeof *h);
    for (size_t i = 0; i < offset; i++)
        h[i] = junk;
    memcpy(h + offset, v, n * sizeof *v);
    cl_mem m = tu_buffer(ctx, (offset + n) * sizeof *h, h);
    free(h);
    return m;
}

static int is_pad(const pcase *c, size_t r)
{
    return c->policy != SINPE_PAD_NONE && c->ids[r] == c->pad_id;
}

sinpe_embed_args pc_args(sinpe_context *ctx, const pcase *c, pmode mode, const float *prefill)
{
    size_t dim = c->spec.dim, n = pc_rows(c), no = pc_out(c);
    sinpe_embed_args a = tu_args(c->n_seqs, c->seq_len, NULL, NULL,
                                 (mode == PM_ADD && c->no_weights) ? 0 : c->vocab, NULL);
    a.ids_offset = c->ids_offset, a.out_offset = c->out_offset, a.out_stride = c->out_stride;
    a.weights_offset = c->weights_offset, a.weights_stride = c->weights_stride;
    a.token_scale = c->token_scale, a.start = c->start;
    a.positions_offset = c->positions_offset, a.positions_broadcast = c->broadcast;
    a.seq_starts_offset = c->seq_starts_offset, a.pad_counts_offset = c->pad_counts_offset;
    a.position_rule = c->rule, a.pad_policy = c->policy, a.pad_id = c->pad_id;
    a.ids = int_buffer(ctx, c->ids, n, c->ids_offset, INT32_MIN);
    size_t wstride = c->weights_stride ? c->weights_stride : dim;
    if (a.vocab)
        a.weights = tu_buffer(ctx,
                              (c->w_rows ? c->w_rows * dim
                                         : c->weights_offset + (c->vocab - 1) * wstride + dim) *
                                  sizeof(float),
                              c->w);
    a.positions = int_buffer(ctx, c->positions, c->broadcast ? c->seq_len : n,
                             c->positions_offset, 1 << 29);
    a.seq_starts = int_buffer(ctx, c->seq_starts, c->n_seqs, c->seq_starts_offset, 1 << 28);
    a.pad_counts = int_buffer(ctx, c->pad_counts, c->n_seqs, c->pad_counts_offset, 1 << 27);
    if (c->use_bad_ids) {
        int32_t bad[64];
        ck_assert_uint_lt(c->bad_ids_offset + 2, 64);
        for (size_t i = 0; i < c->bad_ids_offset + 2; i++)
            bad[i] = i == c->bad_ids_offset ? 0 : 0x5A5A;
        a.bad_ids = tu_buffer(ctx, (c->bad_ids_offset + 2) * sizeof *bad, bad);
        a.bad_ids_offset = c->bad_ids_offset;
    }

    float *init = tu_malloc(no * sizeof *init);
    tu_fill_poison(init, no);
    if (mode == PM_ADD)
        for (size_t r = 0; r < n; r++)
            memcpy(init + c->out_offset + r * ostride(c), prefill + r * dim, dim * sizeof *init);
    a.out = tu_buffer(ctx, no * sizeof *init, init);
    free(init);
    return a;
}

void pc_release(sinpe_embed_args *a)
{
    TU_RELEASE(NULL, NULL, NULL, a->ids, a->out, a->weights, a->positions, a->seq_starts,
               a->pad_counts, a->bad_ids); /* NULL ones skipped */
}

double *pc_ref(const pcase *c, const sinpe_embed_args *a, pmode mode, const float *prefill,
               long *bad)
{
    static const int ref_mode[] = {REF_FUSED, REF_FUSED, REF_GATHER, REF_ADD};
    size_t dim = c->spec.dim, n = pc_rows(c);
    /* The host arrays start at the first used element and the prefill is
       packed: the reference reads them with offsets 0 (w keeps its own). */
    sinpe_embed_args h = *a;
    h.ids_offset = h.positions_offset = h.seq_starts_offset = h.pad_counts_offset = 0;
    h.out_offset = 0, h.out_stride = dim;
    ref_inputs in = {&c->spec, &h, c->ids, c->positions, c->seq_starts, c->pad_counts,
                     c->w, NULL, prefill};
    long counted;
    double *ref = tu_malloc(n * dim * sizeof *ref);
    ref_embed(&in, ref_mode[mode], ref, bad ? bad : &counted);
    for (size_t r = 0; r < n; r++)
        if (mode == PM_ADD && is_pad(c, r) && c->policy == SINPE_PAD_ZERO_EMBEDDING)
            for (size_t col = 0; col < dim; col++)
                ref[r * dim + col] = NAN;
    return ref;
}

float *pc_run(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, const pcase *c,
              pmode mode, const float *prefill, double **ref, int32_t *bad)
{
    sinpe_embed_args a = pc_args(ctx, c, mode, prefill);
    cl_event ev[2] = {NULL, NULL};
    if (mode == PM_FUSED) {
        TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL)); /* no event: NULL is fine */
    } else {
        tu_embed_call first = mode == PM_ADD ? sinpe_enqueue_add_positions : sinpe_enqueue_gather;
        TU_OK(first(tab, q, &a, 0, NULL, &ev[0]));
        ck_assert_ptr_nonnull(ev[0]);
    }
    if (mode == PM_UNFUSED) { /* waits on the gather through its wait list */
        TU_OK(sinpe_enqueue_add_positions(tab, q, &a, 1, &ev[0], &ev[1]));
        ck_assert_ptr_nonnull(ev[1]);
    }
    TU_CL(clFinish(q));
    for (int k = 0; k < 2; k++)
        if (ev[k])
            clReleaseEvent(ev[k]);
    float *got = tu_read_floats(q, a.out, pc_out(c));
    if (ref)
        *ref = pc_ref(c, &a, mode, prefill, NULL);
    if (c->use_bad_ids) {
        int32_t back[64];
        tu_read(q, a.bad_ids, 0, (c->bad_ids_offset + 2) * sizeof *back, back);
        for (size_t i = 0; i < c->bad_ids_offset + 2; i++)
            if (i != c->bad_ids_offset)
                ck_assert_msg(back[i] == 0x5A5A, "%s: bad_ids[%zu] next to the counter changed",
                              c->name, i);
        *bad = back[c->bad_ids_offset];
    }
    pc_release(&a);
    return got;
}

void pc_check(const pcase *c, const float *got, const double *ref, const float *prefill,
              const char *what)
{
    size_t dim = c->spec.dim, n = pc_rows(c), st = ostride(c);
    for (size_t r = 0; r < n; r++) {
        int pad = is_pad(c, r);
        for (size_t col = 0; col < dim; col++) {
            size_t i = c->out_offset + r * st + col;
            double e = ref[r * dim + col];
            if (isnan(e)) {
                TU_CHECK(!tu_is_poison(got[i]), "%s: row %zu col %zu never written", what,
                         r, col);
                continue;
            }
            if (pad && c->policy == SINPE_PAD_ZERO_OUTPUT)
                TU_CHECK(got[i] == 0.0f,
                         "%s: pad row %zu col %zu is %.9g, ZERO_OUTPUT wants 0", what, r,
                         col, (double)got[i]);
            if (pad && prefill && c->policy == SINPE_PAD_ZERO_PE)
                TU_CHECK(tu_same_bits(got[i], prefill[r * dim + col]),
                         "%s: pad row %zu col %zu is %.9g, add_positions under ZERO_PE "
                         "must leave %.9g",
                         what, r, col, (double)got[i], (double)prefill[r * dim + col]);
            double tol = TU_EMBED_TOL * (1.0 + fabs(e));
            TU_CHECK(fabs((double)got[i] - e) <= tol,
                     "%s: row %zu (seq %zu, t %zu, id %d%s) col %zu: got %.9g, ref %.12g",
                     what, r, r / c->seq_len, r % c->seq_len, c->ids ? (int)c->ids[r] : 0,
                     pad ? ", pad" : "", col, (double)got[i], e);
        }
    }
    tu_check_layout(got, pc_out(c), c->out_offset, st, n, dim, what);
}

void pc_run_and_check(sinpe_context *ctx, cl_command_queue q, const pcase *c)
{
    char sbuf[256], what[512];
    int own = ctx == NULL;
    if (own) {
        ctx = tu_context(SINPE_MATH_AUTO);
        q = tu_queue(ctx);
    }
    sinpe_table *tab = tu_table_of(ctx, &c->spec, c->table_rows);
    double *ref;
    float *fused = pc_run(ctx, q, tab, c, PM_FUSED, NULL, &ref, NULL);
    snprintf(what, sizeof what, "%s (fused, %s)", c->name,
             tu_spec_str(&c->spec, sbuf, sizeof sbuf));
    pc_check(c, fused, ref, NULL, what);

    float *unfused = pc_run(ctx, q, tab, c, PM_UNFUSED, NULL, NULL, NULL);
    for (size_t i = 0; i < pc_out(c); i++)
        TU_CHECK(tu_same_bits(fused[i], unfused[i]),
                 "%s: element %zu: gather + add_positions gave %.9g, fused %.9g", c->name,
                 i, (double)unfused[i], (double)fused[i]);

    TU_FREE(fused, unfused, ref);
    tu_release(own ? ctx : NULL, own ? q : NULL, tab, NULL, 0);
}
