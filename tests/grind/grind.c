/* grind.c -- every sinpe kernel at small sizes, each result compared with a
 * float64 host reference (ref.c).
 *
 * Written to run under oclgrind (out-of-bounds accesses, data races,
 * uninitialised reads) and under pocl with tiny work-groups, so the sizes are
 * small and odd: dims 1, 3, 7, 13 beside even ones, token counts that are no
 * multiple of any work-group size, offsets on every buffer, output strides
 * wider than dim.  Covered: table fill (and growth), the fused kernel, gather
 * and add_positions for every storage-type pair, explicit, broadcast and
 * fairseq positions, seq_starts, pad_counts, every padding policy, vocabulary
 * shards, out-of-range ids with the bad-id counter, positions past the table
 * and negative ones, tables without rows, rows written into a caller's
 * buffer (sinpe_enqueue_table_rows), timesteps, the host-memory call,
 * the rotary rotation (in place and into outputs, key rows, past the table),
 * and the same again on the fp64 path when the device has it.
 *
 * The device comes from SINPE_DEVICE or sinpe_context_create()'s default.
 * GRIND_SEED (a number) changes the random data.  Prints one line per
 * failed check (at most a few per case) and exits 1 when any failed. */
#include "harness.h"
#include "ref.h"
#include "variants.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_TOL 1.5e-7 /* the header's accuracy bar for table rows */
#define REPORTS_PER_CASE 6

static sinpe_context *ctx;
static cl_command_queue queue;
static uint64_t rng = 0x5eedULL;
static int verbose; /* GRIND_VERBOSE=1: name each case before it runs */
static long failures, checks;
static int case_reports;
static const char *case_name = "";

#define MAX_TABLES 512
static sinpe_table *tables[MAX_TABLES];
static int n_tables;

const char *const harness_name = "grind";

void fail(const char *fmt, ...)
{
    va_list ap;
    failures++;
    if (case_reports++ >= REPORTS_PER_CASE)
        return;
    printf("FAIL [%s] ", case_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void begin_case(const char *name)
{
    case_name = name;
    case_reports = 0;
    if (verbose) {
        printf("grind: %s\n", name);
        fflush(stdout);
    }
}

static int read_back(cl_mem m, size_t bytes, void *dst)
{
    return cl_ok(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL),
                 "clEnqueueReadBuffer");
}

static int write_to(cl_mem m, size_t bytes, const void *src)
{
    return cl_ok(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL),
                 "clEnqueueWriteBuffer");
}

static void release_mem(cl_mem m)
{
    if (m)
        clReleaseMemObject(m);
}

static const char *spec_str(const sinpe_spec *s)
{
    static char buf[160];
    static const char *const layouts[] = {"interleaved", "sin|cos", "cos|sin"};
    static const char *const odds[] = {"zero_last", "extra_sin", "error"};
    snprintf(buf, sizeof buf, "dim %zu %s %s shift %g base %g scale %g", s->dim,
             layouts[s->layout % 3], odds[s->odd_dim % 3], s->shift, s->base, s->angle_scale);
    return buf;
}

/* A table held until the end, so that sinpe's cache shares it between cases. */
static sinpe_table *get_table(const sinpe_spec *spec, size_t rows)
{
    sinpe_table *t = NULL;
    if (n_tables == MAX_TABLES) {
        fprintf(stderr, "grind: raise MAX_TABLES\n");
        exit(2);
    }
    if (!ok(sinpe_table_create(ctx, spec, rows, &t), "sinpe_table_create"))
        return NULL;
    tables[n_tables++] = t;
    return t;
}

/* Compares out (o_elems elements of type t) with ref for rows r < rows at
 * offset + r * stride; everything else must still hold the poison. */
static void compare_out(const char *mode, sinpe_dtype t, const void *out, size_t o_elems,
                        size_t offset, size_t stride, size_t rows, size_t dim, const double *ref,
                        const ref_inputs *in)
{
    for (size_t i = 0; i < o_elems; i++) {
        size_t j = i - offset, r = j / stride, c = j % stride;
        int inside = i >= offset && r < rows && c < dim;
        checks++;
        if (!inside) {
            if (!ref_is_poison(t, out, i))
                fail("%s: element %zu lies outside every output row but was written (%g)", mode,
                     i, ref_load(t, out, i));
            continue;
        }
        double got = ref_load(t, out, i), want = ref[r * dim + c];
        if (!ref_close(t, got, want)) {
            long pos = 0;
            if (in)
                pos = (long)ref_position(in, r / in->args->seq_len, r % in->args->seq_len);
            fail("%s %s->%s %s: row %zu col %zu (element %zu, position %ld): got %.9g, "
                 "ref %.12g",
                 mode, ref_dtype_name(in ? in->args->weights_dtype : t), ref_dtype_name(t),
                 in ? spec_str(in->spec) : "", r, c, i, pos, got, want);
        }
    }
}

/* ---- Table fill and growth ---- */

static void check_table_rows(sinpe_table *t, const sinpe_spec *spec, const char *when)
{
    cl_mem mem = NULL;
    size_t rows = 0, dim = spec->dim;
    if (!ok(sinpe_table_borrow(t, &mem, &rows), "sinpe_table_borrow"))
        return;
    if (rows == 0) {
        if (mem)
            fail("%s: a table without rows borrowed a buffer", when);
        release_mem(mem);
        return;
    }
    float *got = xcalloc(rows * dim, sizeof *got);
    double *row = xcalloc(dim, sizeof *row);
    if (read_back(mem, rows * dim * sizeof *got, got)) {
        for (size_t p = 0; p < rows; p++) {
            ref_pe_row(spec, (double)p, row);
            for (size_t c = 0; c < dim; c++) {
                double g = got[p * dim + c];
                checks++;
                if (!(fabs(g - row[c]) <= TABLE_TOL))
                    fail("%s: %s row %zu col %zu: got %.9g, ref %.12g", when, spec_str(spec), p,
                         c, g, row[c]);
            }
        }
    }
    free(row);
    free(got);
    release_mem(mem);
}

static void table_case(const sinpe_spec *spec, size_t rows)
{
    begin_case("table");
    sinpe_table *t = get_table(spec, rows);
    if (!t)
        return;
    if (sinpe_table_rows(t) < rows)
        fail("%s: %zu rows after create(%zu)", spec_str(spec), sinpe_table_rows(t), rows);
    check_table_rows(t, spec, "create");
    /* Growth copies the old rows and fills the rest from row0 != 0. */
    size_t more = sinpe_table_rows(t) + 7;
    if (ok(sinpe_table_reserve(t, more), "sinpe_table_reserve")) {
        if (sinpe_table_rows(t) < more)
            fail("%s: %zu rows after reserve(%zu)", spec_str(spec), sinpe_table_rows(t), more);
        check_table_rows(t, spec, "reserve");
    }
    /* A smaller request changes nothing. */
    size_t have = sinpe_table_rows(t);
    if (ok(sinpe_table_reserve(t, 1), "sinpe_table_reserve(1)") && sinpe_table_rows(t) != have)
        fail("reserve(1) changed the row count from %zu to %zu", have, sinpe_table_rows(t));
}

/* count rows into a caller's poisoned buffer, compared with the reference:
 * sinpe_enqueue_timesteps of ts[ts_off ..] when ts is not NULL (its buffer
 * holds ts_off values before them), else sinpe_enqueue_table_rows from row0. */
static void rows_call(sinpe_table *tab, const sinpe_spec *spec, cl_int row0, const float *ts,
                      size_t ts_off, size_t count, size_t out_off, size_t out_stride,
                      sinpe_dtype ot)
{
    const size_t dim = spec->dim, stride = out_stride ? out_stride : dim;
    const size_t o_elems = out_off + (count - 1) * stride + dim;
    const size_t o_bytes = o_elems * ref_dtype_size(ot);
    const char *what = ts ? "timesteps" : "table_rows";
    cl_event ev = NULL;
    unsigned char *out = xcalloc(o_elems, ref_dtype_size(ot));
    ref_poison(ot, out, o_elems);
    double *ref = xcalloc(count * dim, sizeof *ref);
    cl_mem ts_mem = ts ? buffer_from(ctx, ts, (ts_off + count) * sizeof *ts) : NULL;
    cl_mem mem = buffer_from(ctx, out, o_bytes);
    if ((ts_mem || !ts) && mem &&
        ok(ts ? sinpe_enqueue_timesteps(tab, queue, ts_mem, ts_off, count, mem, out_off,
                                        out_stride, ot, 0, NULL, &ev)
              : sinpe_enqueue_table_rows(tab, queue, row0, count, mem, out_off, out_stride, ot,
                                         0, NULL, &ev),
           what) &&
        cl_ok(clWaitForEvents(1, &ev), "clWaitForEvents") && read_back(mem, o_bytes, out)) {
        if (ts)
            ref_timesteps(spec, ts + ts_off, count, ref);
        for (size_t r = 0; !ts && r < count; r++)
            ref_pe_row(spec, (double)row0 + (double)r, ref + r * dim);
        compare_out(what, ot, out, o_elems, out_off, stride, count, dim, ref, NULL);
    }
    if (ev)
        clReleaseEvent(ev);
    release_mem(ts_mem);
    release_mem(mem);
    free(out);
    free(ref);
}

/* sinpe_enqueue_table_rows: rows of any int32 start into a caller's buffer. */
static void table_rows_case(const sinpe_spec *spec, cl_int row0, size_t nrows, size_t out_off,
                            size_t out_stride, sinpe_dtype ot)
{
    char label[96];
    snprintf(label, sizeof label, "table_rows dim %zu from %d ->%s", spec->dim, (int)row0,
             ref_dtype_name(ot));
    begin_case(label);
    sinpe_table *tab = get_table(spec, 3);
    if (tab)
        rows_call(tab, spec, row0, NULL, 0, nrows, out_off, out_stride, ot);
}

/* ---- Embedding: fused, gather, add ---- */

enum { PADS_NONE, PADS_RIGHT, PADS_LEFT, PADS_RANDOM };

typedef struct ecase {
    const char *name;
    sinpe_spec spec;
    size_t table_rows;
    sinpe_embed_args a; /* shapes and options; the buffers are made here */
    int with_positions, with_bad, with_seq_starts, with_pad_counts;
    int bad_mix;                  /* some ids outside the vocabulary */
    int pads;                     /* where pad tokens go            */
    int32_t pos_lo, pos_hi;       /* range of explicit positions    */
    int add_without_weights;      /* add_positions with weights NULL and vocab 0 */
    int with_scales;              /* row scales (args weight_scales_dtype) */
    int on_context_queue;         /* enqueue on sinpe_context_queue */
} ecase;

static int32_t pick_id(const ecase *c, int32_t lo)
{
    return lo + ref_int(&rng, 0, (int32_t)c->a.vocab - 1);
}

static void fill_ids(const ecase *c, int32_t *ids)
{
    const sinpe_embed_args *a = &c->a;
    size_t n = a->n_seqs * a->seq_len;
    int32_t lo = a->vocab_shard ? (int32_t)a->vocab_start : 0;
    int has_pad = c->pads != PADS_NONE;
    static const int32_t wild[] = {-1, -7, INT32_MIN, INT32_MAX};

    for (size_t i = 0; i < a->ids_offset; i++)
        ids[i] = ref_int(&rng, -1000, 1000); /* never read */
    for (size_t r = 0; r < n; r++) {
        int32_t id = pick_id(c, lo);
        if (has_pad && a->vocab > 1)
            while (id == a->pad_id)
                id = pick_id(c, lo);
        if (c->bad_mix && ref_int(&rng, 0, 3) == 0) {
            int k = ref_int(&rng, 0, 5);
            if (k < 4)
                id = wild[k];
            else if (k == 4)
                id = lo + (int32_t)a->vocab + ref_int(&rng, 0, 3);
            else
                id = a->vocab_shard ? lo - 1 - ref_int(&rng, 0, lo > 0 ? lo - 1 : 0) : -3;
        }
        ids[a->ids_offset + r] = id;
    }
    if (!has_pad)
        return;
    for (size_t b = 0; b < a->n_seqs; b++) {
        size_t npad = (size_t)ref_int(&rng, 0, (int32_t)a->seq_len - 1);
        if (b == 0)
            npad = a->seq_len > 1 ? 1 : 0;
        for (size_t t = 0; t < a->seq_len; t++) {
            int pad = c->pads == PADS_RIGHT  ? t >= a->seq_len - npad
                      : c->pads == PADS_LEFT ? t < npad
                                             : ref_int(&rng, 0, 3) == 0;
            if (pad)
                ids[a->ids_offset + b * a->seq_len + t] = a->pad_id;
        }
    }
}

static int32_t *random_ints(size_t n, int32_t lo, int32_t hi)
{
    int32_t *v = xcalloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = ref_int(&rng, lo, hi);
    return v;
}

static void embed_case(const ecase *c)
{
    sinpe_embed_args a = c->a;
    const size_t dim = c->spec.dim, n = a.n_seqs * a.seq_len;
    const size_t e_stride = a.weights_stride ? a.weights_stride : dim;
    const size_t o_stride = a.out_stride ? a.out_stride : dim;
    const size_t w_elems = a.weights_offset + (a.vocab - 1) * e_stride + dim;
    const size_t o_elems = a.out_offset + (n - 1) * o_stride + dim;
    const size_t o_bytes = o_elems * ref_dtype_size(a.out_dtype);
    const size_t pos_elems = a.positions_offset + (a.positions_broadcast ? a.seq_len : n);
    cl_command_queue q = c->on_context_queue ? sinpe_context_queue(ctx) : queue;
    cl_event ev_gather = NULL, ev = NULL;
    long bad_want, bad_unused;
    char label[128];

    snprintf(label, sizeof label, "%s dim %zu %s->%s", c->name, dim,
             ref_dtype_name(a.weights_dtype), ref_dtype_name(a.out_dtype));
    begin_case(label);

    sinpe_table *tab = get_table(&c->spec, c->table_rows);
    if (!tab)
        return;

    /* Host copies of every buffer, offsets included. */
    int32_t *ids = xcalloc(a.ids_offset + n, sizeof *ids);
    fill_ids(c, ids);
    const size_t w_bytes = ref_dtype_bytes(a.weights_dtype, w_elems);
    unsigned char *w = xcalloc(w_bytes, 1);
    for (size_t i = 0; i < w_elems; i++)
        ref_store_random(a.weights_dtype, w, i, &rng);
    /* Row scales in [2^-6, 2), positive and negative. */
    const size_t s_elems = a.weight_scales_offset + a.vocab;
    unsigned char *sc = c->with_scales ? xcalloc(s_elems, 4) : NULL;
    for (size_t i = 0; sc && i < s_elems; i++)
        ref_store_random(a.weight_scales_dtype, sc, i, &rng);
    int32_t *pos = c->with_positions ? random_ints(pos_elems, c->pos_lo, c->pos_hi) : NULL;
    int32_t *ss = c->with_seq_starts ? random_ints(a.seq_starts_offset + a.n_seqs, 0, 300)
                                     : NULL;
    int32_t *pc = c->with_pad_counts
                      ? random_ints(a.pad_counts_offset + a.n_seqs, 0, (int32_t)a.seq_len)
                      : NULL;
    int32_t *bad = c->with_bad ? random_ints(a.bad_ids_offset + 1, 100, 200) : NULL;
    if (bad)
        bad[a.bad_ids_offset] = 0;
    unsigned char *poison = xcalloc(o_elems, ref_dtype_size(a.out_dtype));
    ref_poison(a.out_dtype, poison, o_elems);
    unsigned char *fused = xcalloc(o_elems, ref_dtype_size(a.out_dtype));
    unsigned char *gathered = xcalloc(o_elems, ref_dtype_size(a.out_dtype));
    unsigned char *added = xcalloc(o_elems, ref_dtype_size(a.out_dtype));
    int32_t *bad_got = xcalloc(a.bad_ids_offset + 1, sizeof *bad_got);
    double *ref = xcalloc(n * dim, sizeof *ref);

    a.ids = buffer_from(ctx, ids, (a.ids_offset + n) * sizeof *ids);
    a.weights = buffer_from(ctx, w, w_bytes);
    a.weight_scales =
        sc ? buffer_from(ctx, sc, s_elems * ref_dtype_size(a.weight_scales_dtype)) : NULL;
    a.positions = pos ? buffer_from(ctx, pos, pos_elems * sizeof *pos) : NULL;
    a.seq_starts = ss ? buffer_from(ctx, ss, (a.seq_starts_offset + a.n_seqs) * sizeof *ss) : NULL;
    a.pad_counts = pc ? buffer_from(ctx, pc, (a.pad_counts_offset + a.n_seqs) * sizeof *pc) : NULL;
    a.bad_ids = bad ? buffer_from(ctx, bad, (a.bad_ids_offset + 1) * sizeof *bad) : NULL;
    a.out = buffer_from(ctx, poison, o_bytes);
    if (!a.ids || !a.weights || !a.out || (pos && !a.positions) || (ss && !a.seq_starts) ||
        (pc && !a.pad_counts) || (bad && !a.bad_ids) || (sc && !a.weight_scales))
        goto done;

    ref_inputs in = {&c->spec, &a, ids, pos, ss, pc, w, sc, NULL};

    /* The fused kernel. */
    if (!ok(sinpe_enqueue_embed(tab, q, &a, 0, NULL, &ev), "sinpe_enqueue_embed"))
        goto done;
    if (!cl_ok(clWaitForEvents(1, &ev), "clWaitForEvents(embed)"))
        goto done;
    clReleaseEvent(ev);
    ev = NULL;
    if (!read_back(a.out, o_bytes, fused))
        goto done;
    ref_embed(&in, REF_FUSED, ref, &bad_want);
    compare_out("fused", a.out_dtype, fused, o_elems, a.out_offset, o_stride, n, dim, ref, &in);
    if (bad) {
        if (!read_back(a.bad_ids, (a.bad_ids_offset + 1) * sizeof *bad, bad_got))
            goto done;
        checks++;
        if (bad_got[a.bad_ids_offset] != bad_want)
            fail("fused: bad_ids counter %d, expected %ld", (int)bad_got[a.bad_ids_offset],
                 bad_want);
        if (memcmp(bad_got, bad, a.bad_ids_offset * sizeof *bad) != 0)
            fail("fused: bad_ids was written before bad_ids_offset");
        if (!write_to(a.bad_ids, (a.bad_ids_offset + 1) * sizeof *bad, bad))
            goto done;
    }

    /* gather, then add_positions waiting on it. */
    if (!write_to(a.out, o_bytes, poison))
        goto done;
    if (!ok(sinpe_enqueue_gather(tab, q, &a, 0, NULL, &ev_gather), "sinpe_enqueue_gather"))
        goto done;
    if (!cl_ok(clWaitForEvents(1, &ev_gather), "clWaitForEvents(gather)") ||
        !read_back(a.out, o_bytes, gathered))
        goto done;
    ref_embed(&in, REF_GATHER, ref, &bad_want);
    compare_out("gather", a.out_dtype, gathered, o_elems, a.out_offset, o_stride, n, dim, ref,
                &in);

    sinpe_embed_args add = a;
    if (c->add_without_weights) {
        add.weights = NULL;
        add.vocab = 0;
    }
    if (!ok(sinpe_enqueue_add_positions(tab, q, &add, 1, &ev_gather, &ev),
            "sinpe_enqueue_add_positions"))
        goto done;
    if (!cl_ok(clWaitForEvents(1, &ev), "clWaitForEvents(add)") ||
        !read_back(a.out, o_bytes, added))
        goto done;
    in.prev = gathered;
    ref_embed(&in, REF_ADD, ref, &bad_unused);
    compare_out("add", a.out_dtype, added, o_elems, a.out_offset, o_stride, n, dim, ref, &in);
    if (bad) {
        if (!read_back(a.bad_ids, (a.bad_ids_offset + 1) * sizeof *bad, bad_got))
            goto done;
        checks++;
        if (bad_got[a.bad_ids_offset] != bad_want)
            fail("gather + add: bad_ids counter %d, expected %ld (add must not count)",
                 (int)bad_got[a.bad_ids_offset], bad_want);
    }
    /* With float32 output the pair performs the fused kernel's operations
       (but for an OWNER shard: add_positions knows no shards and adds PE
       to the tokens other shards own too). */
    if (a.out_dtype == SINPE_F32 && a.vocab_shard != SINPE_SHARD_OWNER) {
        checks++;
        if (memcmp(added, fused, o_bytes) != 0) {
            size_t i = 0;
            while (i + 4 <= o_bytes && memcmp(added + i, fused + i, 4) == 0)
                i += 4;
            fail("gather + add differs from fused at element %zu: %.9g vs %.9g", i / 4,
                 ref_load(SINPE_F32, added, i / 4), ref_load(SINPE_F32, fused, i / 4));
        }
    }

done:
    if (ev)
        clReleaseEvent(ev);
    if (ev_gather)
        clReleaseEvent(ev_gather);
    cl_mem mems[] = {a.ids, a.weights, a.weight_scales, a.positions,
                     a.seq_starts, a.pad_counts, a.bad_ids, a.out};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        release_mem(mems[i]);
    void *bufs[] = {ids, w, sc, pos, ss, pc, bad, poison, fused, gathered, added, bad_got, ref};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
}

/* ---- Case list ---- */

enum {
    CFG_PLAIN, CFG_OFFSETS, CFG_POSITIONS, CFG_BROADCAST, CFG_SEQ_STARTS, CFG_STARTS_AND_POS,
    CFG_FAIRSEQ_RIGHT, CFG_FAIRSEQ_LEFT, CFG_ZERO_OUTPUT, CFG_ZERO_EMBEDDING, CFG_SHARD_SKIP,
    CFG_SHARD_PAD, CFG_FAR, CFG_NO_ROWS, CFG_GROUPS, CFG_ALIGNED_ROWS, CFG_QUANT, CFG_OWNER,
    CFG_COUNT
};

/* Each configuration's name and shape, its start, and whether it has
 * explicit positions, bad ids (some outside the vocabulary) and pads;
 * setup_case sets the rest. */
static const struct {
    const char *name;
    size_t n_seqs, seq_len;
    cl_int start;
    int positions, bad, pads;
} cfgs[CFG_COUNT] = {
    [CFG_PLAIN] = {"plain", 2, 5},
    [CFG_OFFSETS] = {"offsets", 3, 3, .start = 4, .bad = 1},
    [CFG_POSITIONS] = {"positions", 3, 4, .start = -3, .positions = 1},
    [CFG_BROADCAST] = {"broadcast", 10, 3, .positions = 1}, /* more than one group of sequences */
    [CFG_SEQ_STARTS] = {"seq_starts+pad_counts", 4, 6, .start = 2},
    [CFG_STARTS_AND_POS] = {"positions+seq_starts", 3, 3, .positions = 1},
    /* seq_len 13: several segments of a small work-group */
    [CFG_FAIRSEQ_RIGHT] = {"fairseq right-padded, zero_pe", 3, 13, .pads = PADS_RIGHT},
    [CFG_FAIRSEQ_LEFT] = {"fairseq left-padded", 2, 9, .start = 5, .pads = PADS_LEFT},
    [CFG_ZERO_OUTPUT] = {"pad zero_output", 2, 5, .pads = PADS_RANDOM},
    [CFG_ZERO_EMBEDDING] = {"pad zero_embedding", 2, 5, .start = 1, .pads = PADS_RANDOM},
    [CFG_SHARD_SKIP] = {"shard, skip_pe", 2, 7, .bad = 1},
    [CFG_SHARD_PAD] = {"shard, pad zero_pe", 2, 5, .bad = 1, .pads = PADS_RANDOM},
    [CFG_FAR] = {"far positions", 1, 6},
    [CFG_NO_ROWS] = {"table without rows", 2, 3, .positions = 1},
    [CFG_GROUPS] = {"sequence groups", 9, 1, .start = 7},
    [CFG_ALIGNED_ROWS] = {"aligned rows, positions", 5, 3, .positions = 1},
    [CFG_QUANT] = {"quantized weights", 3, 4, .start = 10, .bad = 1},
    [CFG_OWNER] = {"owner shard", 3, 5, .bad = 1, .pads = PADS_RANDOM},
};

static const size_t case_dims[] = {1, 3, 7, 13, 16, 8, 2, 5};

/* The spec of the block types' cases: rows of two blocks of bv values. */
static sinpe_spec block_spec(size_t bv)
{
    return ref_spec(2 * bv, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0);
}

static void setup_case(int cfg, int pair, ecase *c)
{
    size_t dim = case_dims[(size_t)(cfg + pair) % (sizeof case_dims / sizeof case_dims[0])];
    sinpe_layout layout = (sinpe_layout)((cfg + pair) % 3);
    sinpe_odd_dim odd = (cfg + pair) % 2 ? SINPE_ODD_EXTRA_SIN : SINPE_ODD_ZERO_LAST;
    static const double bases[] = {10000.0, 100.0, 5000.5};
    static const double scales[] = {1.0, 0.5, 2.0};
    sinpe_embed_args *a = &c->a;

    if (dim % 2 == 0 && cfg % 4 == 3)
        odd = SINPE_ODD_ERROR;
    memset(c, 0, sizeof *c);
    c->spec = ref_spec(dim, layout, odd, (double)(pair % 2), bases[cfg % 3],
                        scales[(cfg / 3) % 3]);
    c->table_rows = 16;
    sinpe_embed_args_init(a);
    a->weights_dtype = (sinpe_dtype)(pair / 3);
    a->out_dtype = (sinpe_dtype)(pair % 3);
    c->name = cfgs[cfg].name;
    a->n_seqs = cfgs[cfg].n_seqs;
    a->seq_len = cfgs[cfg].seq_len;
    a->start = cfgs[cfg].start;
    c->with_positions = cfgs[cfg].positions;
    c->with_bad = c->bad_mix = cfgs[cfg].bad;
    c->pads = cfgs[cfg].pads;
    a->vocab = 11;
    a->token_scale = pair % 2 ? 2.5f : 1.0f;
    c->pos_lo = -40, c->pos_hi = 3000;
    c->add_without_weights = pair % 2;

    switch (cfg) {
    case CFG_OFFSETS:
        a->ids_offset = 3;
        a->weights_offset = 5, a->weights_stride = dim + 3;
        a->out_offset = 7, a->out_stride = dim + 2;
        a->bad_ids_offset = 2;
        break;
    case CFG_POSITIONS:
        a->positions_offset = 4;
        break;
    case CFG_BROADCAST:
        a->positions_offset = 1;
        a->positions_broadcast = 1;
        a->out_stride = dim + 1;
        c->pos_lo = 0, c->pos_hi = 200;
        break;
    case CFG_SEQ_STARTS:
        a->seq_starts_offset = 2, a->pad_counts_offset = 3;
        c->with_seq_starts = 1, c->with_pad_counts = 1;
        break;
    case CFG_STARTS_AND_POS:
        a->seq_starts_offset = 1;
        a->positions_offset = 2;
        a->positions_broadcast = pair % 2;
        c->with_seq_starts = 1, c->with_pad_counts = pair % 2 == 0;
        break;
    case CFG_FAIRSEQ_RIGHT:
        a->position_rule = SINPE_POSITIONS_FAIRSEQ;
        a->pad_policy = SINPE_PAD_ZERO_PE, a->pad_id = 1;
        break;
    case CFG_FAIRSEQ_LEFT:
        a->ids_offset = 2;
        a->position_rule = SINPE_POSITIONS_FAIRSEQ;
        a->pad_id = 2;
        break;
    case CFG_ZERO_OUTPUT:
        a->pad_policy = SINPE_PAD_ZERO_OUTPUT, a->pad_id = 3;
        a->out_offset = 1;
        break;
    case CFG_ZERO_EMBEDDING:
        a->pad_policy = SINPE_PAD_ZERO_EMBEDDING, a->pad_id = 0;
        break;
    case CFG_SHARD_SKIP:
        a->vocab = 7;
        a->vocab_shard = 1, a->vocab_start = 20;
        a->skip_pe = 1;
        a->bad_ids_offset = 1;
        break;
    case CFG_SHARD_PAD:
        a->vocab = 6;
        a->vocab_shard = 1, a->vocab_start = 9;
        a->pad_policy = SINPE_PAD_ZERO_PE, a->pad_id = 11;
        break;
    case CFG_FAR:
        a->start = pair % 2 ? -5000 : 16000000;
        break;
    case CFG_NO_ROWS:
        /* Wider than the 64-byte placeholder buffer that stands in for a
           table without rows: a kernel that read it would read past it. */
        c->table_rows = 0;
        c->spec = ref_spec(dim + 24, layout, odd == SINPE_ODD_ERROR ? SINPE_ODD_ZERO_LAST : odd,
                            (double)(pair % 2), bases[cfg % 3], 0.75);
        c->pos_lo = -100, c->pos_hi = 100;
        break;
    case CFG_GROUPS:
        c->on_context_queue = 1;
        break;
    case CFG_ALIGNED_ROWS:
        /* Offsets and strides in whole 16-byte blocks for every storage
           type, and dim 24: the wide and streamed row paths (a CPU's table
           part takes 16 columns, then an 8-column row end). */
        c->spec = ref_spec(24, layout, SINPE_ODD_ZERO_LAST, 1.0, 10000.0, 1.0);
        a->out_offset = 8, a->out_stride = 32;
        a->weights_offset = 8, a->weights_stride = 32;
        c->pos_lo = -2, c->pos_hi = 20;
        break;
    case CFG_QUANT:
        /* pair: the quantized weight types in turn, into every output
           type; offsets and strides (whole blocks for the block types), positions
           past the table, bad ids. */
        a->weights_dtype = ref_quantized_type(getenv("SINPE_TUNING") ? pair % 4 : pair);
        sinpe_dtype_info wi;
        sinpe_dtype_query(a->weights_dtype, &wi, sizeof wi);
        if (wi.block_values > 1) {
            c->spec = block_spec(wi.block_values);
            a->weights_offset = wi.block_values, a->weights_stride = 3 * wi.block_values;
        } else {
            a->weights_offset = 3, a->weights_stride = dim + 5;
            c->with_scales = a->weights_dtype != SINPE_FP8_E5M2;
            a->weight_scales_dtype = pair % 2 ? SINPE_F16 : SINPE_F32;
            a->weight_scales_offset = 2;
            a->weights_scale = 0.375f;
        }
        break;
    case CFG_OWNER:
        /* One shard of a vocabulary of 20 under the OWNER rule: the first,
           the last or a middle one; pads (zero_pe, pad id maybe elsewhere),
           ids of other shards and of none. */
        a->vocab = 7;
        a->vocab_shard = SINPE_SHARD_OWNER;
        a->vocab_start = pair % 3 == 0 ? 0 : pair % 3 == 1 ? 13 : 5;
        a->vocab_total = 20;
        a->pad_policy = SINPE_PAD_ZERO_PE, a->pad_id = 3;
        break;
    }
}

/* ---- Timesteps and the host-memory call ---- */

static void timesteps_case(const sinpe_spec *spec, size_t count, size_t ts_off, size_t out_off,
                           size_t out_stride, sinpe_dtype ot)
{
    char label[96];
    snprintf(label, sizeof label, "timesteps dim %zu ->%s", spec->dim, ref_dtype_name(ot));
    begin_case(label);
    sinpe_table *tab = get_table(spec, 4);
    if (!tab)
        return;
    float *ts = xcalloc(ts_off + count, sizeof *ts);
    for (size_t i = 0; i < ts_off + count; i++)
        ts[i] = (float)(1020.0 * ref_unit(&rng) - 20.0);
    ts[ts_off] = 0.0f;
    if (count > 1)
        ts[ts_off + 1] = 999.5f;
    rows_call(tab, spec, 0, ts, ts_off, count, out_off, out_stride, ot);
    free(ts);
}

/* The patch grid's encoding: rows x cols after extra zero rows, positions
   (index + crop) / (G / base) / interp in float32 (host IEEE division),
   each half-row ref_timesteps' of its position; with dt, frames of the
   grid, each row first the dt-wide frame table's encoding of frame / 2;
   every element checked. */
static void grid_case(size_t d, size_t rows, size_t cols, size_t extra, size_t pad, double base,
                      double interp, size_t max_size, sinpe_dtype ot, size_t frames, size_t dt)
{
    const size_t D = dt + 2 * d, per = extra + frames * rows * cols, n = 2 * per;
    const size_t stride = D + pad, off = 1, o_elems = off + (n - 1) * stride + D;
    char label[96];
    snprintf(label, sizeof label, "grid %zu x %zu x %zu d %zu+%zu ->%s", frames, rows, cols, dt,
             d, ref_dtype_name(ot));
    begin_case(label);
    sinpe_spec spec, spec_t;
    sinpe_spec_preset(&spec, SINPE_PRESET_MAE, d);
    sinpe_spec_preset(&spec_t, SINPE_PRESET_MAE, dt ? dt : 2);
    sinpe_table *tab = get_table(&spec, 4), *ft = dt ? get_table(&spec_t, 0) : NULL;
    if (!tab || (dt && !ft))
        return;
    unsigned char *out = xcalloc(o_elems, ref_dtype_size(ot));
    ref_poison(ot, out, o_elems);
    double *ref = xcalloc(n * D, sizeof *ref), half[2][64];
    size_t Gr = max_size ? max_size : rows, Gc = max_size ? max_size : cols;
    for (size_t r = 0; r < n; r++) {
        size_t t = r % per, g = (t - extra) % (rows * cols);
        if (t < extra)
            continue;
        float z = (float)((t - extra) / (rows * cols)) / 2.0f;
        if (dt)
            ref_timesteps(&spec_t, &z, 1, ref + r * D);
        volatile float s2 = (float)interp;
        volatile float sc = (float)(base > 0.0 ? (double)Gc / base : 1.0);
        volatile float sr = (float)(base > 0.0 ? (double)Gr / base : 1.0);
        volatile float xc = (float)(g % cols + (Gc - cols) / 2) / sc;
        volatile float xr = (float)(g / cols + (Gr - rows) / 2) / sr;
        float x[2] = {xc / s2, xr / s2};
        ref_timesteps(&spec, &x[0], 1, half[0]);
        ref_timesteps(&spec, &x[1], 1, half[1]);
        memcpy(ref + r * D + dt, half[0], d * sizeof *ref);
        memcpy(ref + r * D + dt + d, half[1], d * sizeof *ref);
    }
    sinpe_grid_args a;
    sinpe_grid_args_init(&a);
    a.n_seqs = 2, a.rows = rows, a.cols = cols, a.extra_tokens = extra, a.base_size = base;
    a.interpolation_scale = interp, a.max_size = max_size, a.dtype = ot;
    a.frames = frames, a.frame_table = ft, a.frame_interpolation_scale = 2.0;
    a.out = buffer_from(ctx, out, o_elems * ref_dtype_size(ot));
    a.out_offset = off, a.out_stride = stride;
    if (a.out && ok(sinpe_enqueue_grid(tab, queue, &a, 0, NULL, NULL), "sinpe_enqueue_grid") &&
        cl_ok(clFinish(queue), "clFinish(grid)") &&
        read_back(a.out, o_elems * ref_dtype_size(ot), out))
        compare_out("grid", ot, out, o_elems, off, stride, n, D, ref, NULL);
    release_mem(a.out);
    free(out);
    free(ref);
}

static void host_case(const sinpe_spec *spec, int with_positions)
{
    const size_t n_seqs = 2, seq_len = 3, vocab = 5, dim = spec->dim, n = n_seqs * seq_len;
    int32_t ids[6], positions[6];
    float weights[5 * 16], out[6 * 16];
    double ref[6 * 16];
    long bad;
    sinpe_embed_args a;

    begin_case(with_positions ? "embed_host with positions" : "embed_host");
    if (dim > 16)
        return;
    sinpe_table *tab = get_table(spec, 8);
    if (!tab)
        return;
    for (size_t r = 0; r < n; r++) {
        ids[r] = ref_int(&rng, 0, (int32_t)vocab - 1);
        positions[r] = ref_int(&rng, -10, 500);
    }
    for (size_t i = 0; i < vocab * dim; i++)
        ref_store_random(SINPE_F32, weights, i, &rng);
    if (!ok(sinpe_embed_host(tab, ids, n_seqs, seq_len, weights, vocab, 3.0f, 2,
                             with_positions ? positions : NULL, out),
            "sinpe_embed_host"))
        return;
    sinpe_embed_args_init(&a);
    a.n_seqs = n_seqs;
    a.seq_len = seq_len;
    a.vocab = vocab;
    a.token_scale = 3.0f;
    a.start = 2;
    /* ref_position only asks whether positions were given. */
    a.positions = with_positions ? (cl_mem)ids : NULL;
    ref_inputs in = {spec, &a, ids, positions, NULL, NULL, weights, NULL, NULL};
    ref_embed(&in, REF_FUSED, ref, &bad);
    compare_out("embed_host", SINPE_F32, out, n * dim, 0, dim, n, dim, ref, &in);
}

/* ---- Rotary embeddings ---- */

/* q (qh heads) and k (kh heads) of hd columns rotated by a rotary table of
 * rows rows (positions past it on the fly), in place or into outputs (k
 * through key rows), against a float64 rotation by m cos(p w_k) and
 * m sin(p w_k) of the spec's frequencies; every element of every buffer
 * checked, the unwritten ones for their poison. */
static void rope_case(size_t R, size_t hd, size_t qh, size_t kh, sinpe_rope_pairing pairing,
                      sinpe_rope_layout layout, sinpe_dtype t, size_t rows, int out_of_place,
                      int axes)
{
    const size_t ns = 2, sl = 5, n = ns * sl, e = ref_dtype_size(t), off = 3;
    const size_t qs = qh * hd + 2, ks = kh * hd + 1, kw = kh * hd, qw = qh * hd;
    const size_t q_el = off + n * qs, k_el = off + n * ks, ko_rows = 2 * n;
    const size_t qo_el = off + n * qw, ko_el = off + ko_rows * kw;
    char label[96];
    snprintf(label, sizeof label, "rope R %zu hd %zu %s %s axes %d", R, hd, ref_dtype_name(t),
             out_of_place ? "out of place" : "in place", axes);
    begin_case(label);

    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, R);
    s.pairing = pairing;
    s.layout = layout;
    s.rule = SINPE_ROPE_YARN;
    s.factor = 8;
    s.original_max_positions = 100;
    s.axes = (sinpe_rope_axes)axes; /* three lanes, lane_stride LS */
    if (axes) {
        size_t h = R / 2;
        s.sections[1] = s.sections[2] = h / 3;
        s.sections[0] = h - 2 * (h / 3);
    }
    enum { LS = 12 };
    double w[64], m;
    sinpe_table *tab = NULL;
    if (!ok(sinpe_rope_frequencies(&s, w, &m), "sinpe_rope_frequencies") ||
        !ok(sinpe_rope_table_create(ctx, &s, rows, &tab), "sinpe_rope_table_create"))
        return;
    tables[n_tables++] = tab;

    unsigned char *qin = xcalloc(q_el, e), *kin = xcalloc(k_el, e);
    ref_poison(t, qin, q_el);
    ref_poison(t, kin, k_el);
    double *xq = xcalloc(n * qw, sizeof *xq), *xk = xcalloc(n * kw, sizeof *xk);
    for (size_t r = 0; r < n; r++) {
        for (size_t i = 0; i < qw; i++)
            xq[r * qw + i] = ref_store_random(t, qin, off + r * qs + i, &rng);
        for (size_t i = 0; i < kw; i++)
            xk[r * kw + i] = ref_store_random(t, kin, off + r * ks + i, &rng);
    }
    int32_t pos[3 * LS], starts[2], krows[10];
    for (size_t r = 0; r < 3 * LS; r++)
        pos[r] = ref_int(&rng, -20, 700);
    for (size_t r = 0; r < n; r++)
        krows[r] = r == 3 ? -1 : (int32_t)(2 * r + 1);
    starts[0] = 0;
    starts[1] = ref_int(&rng, 100, 400);

    /* The float64 results, row by row of each output. */
    double *yq = xcalloc(n * qw, sizeof *yq), *yk = xcalloc(ko_rows * kw, sizeof *yk);
    memcpy(yq, xq, n * qw * sizeof *yq);
    for (size_t r = 0; r < n; r++) {
        for (size_t h = 0; h < qh + kh; h++) {
            int isq = h < qh;
            const double *x = isq ? xq + r * qw + h * hd : xk + r * kw + (h - qh) * hd;
            long row = isq || !out_of_place ? (long)r : krows[r];
            if (row < 0)
                continue;
            double *y = isq ? yq + r * qw + h * hd : yk + (size_t)row * kw + (h - qh) * hd;
            memcpy(y, x, hd * sizeof *y);
            for (size_t k = 0; k < R / 2; k++) {
                size_t l = axes ? ref_rope_lane(axes, s.sections, k) : 0;
                long double p = (int32_t)((uint32_t)(7 + pos[l * LS + r]) + (uint32_t)starts[r / sl]);
                size_t i1 = pairing ? 2 * k : k, i2 = pairing ? 2 * k + 1 : k + R / 2;
                double c = m * (double)cosl(p * w[k]), sn = m * (double)sinl(p * w[k]);
                y[i1] = x[i1] * c - x[i2] * sn;
                y[i2] = x[i2] * c + x[i1] * sn;
            }
        }
    }

    cl_mem qm = buffer_from(ctx, qin, q_el * e), km = buffer_from(ctx, kin, k_el * e);
    cl_mem pm = buffer_from(ctx, pos, sizeof pos), sm = buffer_from(ctx, starts, sizeof starts);
    cl_mem rm = buffer_from(ctx, krows, sizeof krows), qo = NULL, ko = NULL;
    size_t most = q_el > k_el ? q_el : k_el;
    most = most > qo_el ? most : qo_el;
    most = most > ko_el ? most : ko_el;
    unsigned char *out = xcalloc(most, e);
    if (out_of_place) {
        ref_poison(t, out, most);
        qo = buffer_from(ctx, out, qo_el * e);
        ko = buffer_from(ctx, out, ko_el * e);
    }
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = ns, a.seq_len = sl, a.head_dim = hd, a.dtype = t;
    a.q = qm, a.q_offset = off, a.q_stride = qs, a.q_heads = qh;
    a.k = km, a.k_offset = off, a.k_stride = ks, a.kv_heads = kh;
    a.start = 7, a.positions = pm, a.seq_starts = sm, a.lane_stride = axes ? LS : 0;
    if (out_of_place) {
        a.q_out = qo, a.q_out_offset = off;
        a.k_out = ko, a.k_out_offset = off, a.k_rows = rm, a.k_out_rows = ko_rows;
    }
    if (qm && km && pm && sm && rm && (!out_of_place || (qo && ko)) &&
        ok(sinpe_enqueue_rope(tab, queue, &a, 0, NULL, NULL), "sinpe_enqueue_rope") &&
        cl_ok(clFinish(queue), "clFinish(rope)")) {
        size_t bytes = (out_of_place ? qo_el : q_el) * e;
        if (read_back(out_of_place ? qo : qm, bytes, out))
            compare_out("rope q", t, out, out_of_place ? qo_el : q_el, off,
                        out_of_place ? qw : qs, n, qw, yq, NULL);
        if (!out_of_place && read_back(km, k_el * e, out))
            compare_out("rope k", t, out, k_el, off, ks, n, kw, yk, NULL);
        /* k_out: the rows that key rows name, the others all poison. */
        int named[20] = {0};
        for (size_t r = 0; r < n; r++)
            if (krows[r] >= 0)
                named[krows[r]] = 1;
        if (out_of_place && read_back(ko, ko_el * e, out))
            for (size_t i = 0; i < ko_el; i++) {
                size_t row = (i - off) / kw;
                checks++;
                if (i < off || !named[row]) {
                    if (!ref_is_poison(t, out, i))
                        fail("rope k_out: element %zu of an unnamed row was written", i);
                } else if (!ref_close(t, ref_load(t, out, i), yk[i - off])) {
                    fail("rope k_out: row %zu col %zu: got %.9g, ref %.12g", row, (i - off) % kw,
                         ref_load(t, out, i), yk[i - off]);
                }
            }
    }
    cl_mem mems[] = {qm, km, pm, sm, rm, qo, ko};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        release_mem(mems[i]);
    void *bufs[] = {qin, kin, xq, xk, yq, yk, out};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
}

/* ------------------------------------------------------------------------ */

static void run_all(int quick)
{
    static const size_t table_dims[] = {1, 2, 3, 7, 13, 16};
    for (size_t i = 0; i < sizeof table_dims / sizeof table_dims[0]; i++) {
        size_t d = table_dims[i];
        sinpe_spec s = ref_spec(d, (sinpe_layout)(i % 3),
                                 i % 2 ? SINPE_ODD_EXTRA_SIN : SINPE_ODD_ZERO_LAST,
                                 (double)(i % 2), i == 4 ? 100.0 : 10000.0,
                                 i == 5 ? 0.25 : 1.0);
        table_case(&s, quick ? 5 : 70);
        if (quick && i >= 2)
            break;
    }

    for (int ot = 0; ot < 3; ot++) {
        sinpe_spec s = ref_spec(ot == 0 ? 13 : 6, (sinpe_layout)ot, SINPE_ODD_EXTRA_SIN, 1.0,
                                 10000.0, 1.0);
        static const cl_int starts[] = {-37, 0, 1000};
        table_rows_case(&s, starts[ot], ot == 0 ? 70 : 9, (size_t)ot, s.dim + (size_t)ot,
                        (sinpe_dtype)ot);
        if (quick)
            break;
    }
    {
        sinpe_spec s = ref_spec(7, SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_ZERO_LAST, 0.0, 10000.0,
                                 1.0);
        table_rows_case(&s, 16777000, 5, 0, 0, SINPE_F32); /* near 2^24 */
    }

    /* The quantized weight types: all of them under the device's own record;
       under another (SINPE_TUNING) the first four (I8, Q8_0, the FP8s), the
       block decoders' call sites through Q8_0, so that a record's run builds
       four weights programs, not eleven (tests/grind/run.sh runs twelve). */
    int quant_pairs = 1;
    while (ref_quantized_type((size_t)quant_pairs) != ref_quantized_type(0))
        quant_pairs++; /* the count of quantized types */
    quant_pairs = getenv("SINPE_TUNING") || quant_pairs < 9 ? 9 : quant_pairs;
    for (int cfg = 0; cfg < CFG_COUNT; cfg++) {
        for (int pair = 0; pair < (cfg == CFG_QUANT ? quant_pairs : 9); pair++) {
            ecase c;
            /* Every pair for the first two configurations and the aligned
               rows, three for the others. */
            if (cfg > CFG_OFFSETS && cfg != CFG_ALIGNED_ROWS && cfg != CFG_QUANT &&
                cfg != CFG_OWNER && pair % 3 != cfg % 3)
                continue;
            if (quick && pair != 0 && pair != 4)
                continue;
            /* The block types are left out where run.sh says so (GRIND_UNINIT_RUN). */
            if (cfg == CFG_QUANT && getenv("GRIND_UNINIT_RUN") &&
                sinpe_dtype_bytes(ref_quantized_type(pair), 1) > 1)
                continue;
            setup_case(cfg, pair, &c);
            embed_case(&c);
        }
    }

    sinpe_spec ts_spec;
    sinpe_spec_preset(&ts_spec, SINPE_PRESET_DIFFUSERS, 7);
    for (int ot = 0; ot < 3; ot++) {
        timesteps_case(&ts_spec, 5, (size_t)ot, (size_t)(2 * ot), ts_spec.dim + (size_t)ot,
                       (sinpe_dtype)ot);
        if (quick)
            break;
    }
    sinpe_spec_preset(&ts_spec, SINPE_PRESET_GGML_TIMESTEP, 12);
    ts_spec.angle_scale = 0.5;
    timesteps_case(&ts_spec, 3, 1, 0, 0, SINPE_F32);
    sinpe_spec_preset(&ts_spec, SINPE_PRESET_DIFFUSERS_FLIP, 13);
    timesteps_case(&ts_spec, 4, 0, 3, 15, SINPE_F32);

    sinpe_spec hs = ref_spec(7, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 10000.0,
                              1.0);
    host_case(&hs, 0);
    host_case(&hs, 1);

    rope_case(8, 8, 2, 1, SINPE_ROPE_HALVES, SINPE_ROPE_COS_SIN, SINPE_F32, 128, 0, 0);
    rope_case(6, 11, 1, 2, SINPE_ROPE_INTERLEAVED, SINPE_ROPE_PAIRS, SINPE_F16, 0, 1, 0);
    /* Sixteen pairs at a time (rope_pairs = 64), then four; left out where
       run.sh says so (GRIND_UNINIT_RUN). */
    if (!getenv("GRIND_UNINIT_RUN")) {
        rope_case(40, 43, 1, 1, SINPE_ROPE_INTERLEAVED, SINPE_ROPE_PAIRS, SINPE_F16, 3, 1, 0);
        rope_case(32, 32, 2, 1, SINPE_ROPE_HALVES, SINPE_ROPE_COS_SIN, SINPE_BF16, 128, 0, 0);
    }
    if (!quick) {
        rope_case(4, 9, 3, 1, SINPE_ROPE_HALVES, SINPE_ROPE_PAIRS, SINPE_BF16, 128, 1, 0);
        rope_case(10, 10, 1, 1, SINPE_ROPE_INTERLEAVED, SINPE_ROPE_COS_SIN, SINPE_F32, 0, 0, 0);
    }
    /* Three lanes: blocked, then interleaved and N-D on the wide path
       (left out as the wide cases above are). */
    rope_case(12, 14, 2, 1, SINPE_ROPE_HALVES, SINPE_ROPE_COS_SIN, SINPE_F32, 64, 1,
              SINPE_ROPE_MROPE);
    if (!getenv("GRIND_UNINIT_RUN")) {
        rope_case(36, 36, 1, 1, SINPE_ROPE_HALVES, SINPE_ROPE_PAIRS, SINPE_F16, 300, 0,
                  SINPE_ROPE_MROPE_INTERLEAVED);
        if (!quick)
            rope_case(64, 64, 1, 1, SINPE_ROPE_INTERLEAVED, SINPE_ROPE_COS_SIN, SINPE_BF16, 128,
                      1, SINPE_ROPE_AXES_ND);
    }
    grid_case(8, 3, 5, 1, 0, 4.0, 0.5, 7, SINPE_F32, 1, 0);
    grid_case(12, 2, 3, 2, 1, 0.0, 1.875, 0, SINPE_F16, 3, 8); /* CogVideoX's layout */
    if (!quick)
        grid_case(6, 4, 2, 0, 2, 0.0, 1.0, 0, SINPE_BF16, 1, 0);
}

static void release_all(void)
{
    for (int i = 0; i < n_tables; i++)
        sinpe_table_release(tables[i]);
    n_tables = 0;
    if (queue)
        clReleaseCommandQueue(queue);
    queue = NULL;
    sinpe_context_release(ctx);
    ctx = NULL;
}

static int open_context(sinpe_math math)
{
    sinpe_context_options opt;
    cl_int err;
    char name[256] = "";
    sinpe_context_options_init(&opt);
    opt.math = math;
    sinpe_status st = sinpe_context_create(&opt, &ctx);
    if (st == SINPE_UNSUPPORTED && math == SINPE_MATH_FP64) {
        printf("grind: the device has no fp64; the fp64 path is not checked\n");
        return 0;
    }
    case_name = "context";
    if (!ok(st, "sinpe_context_create"))
        return 0;
    clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    queue = clCreateCommandQueue(sinpe_context_cl_context(ctx), sinpe_context_device(ctx), 0,
                                 &err);
    if (!cl_ok(err, "clCreateCommandQueue")) {
        sinpe_context_release(ctx);
        ctx = NULL;
        return 0;
    }
    printf("grind: device \"%s\", math %s\n", name,
           sinpe_context_math(ctx) == SINPE_MATH_FP64 ? "fp64" : "float");
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    const char *seed = getenv("GRIND_SEED");
    if (argc == 2 && strcmp(argv[1], "--records") == 0) {
        /* The tuning records to grind under (tests/grind/run.sh). */
        static char v[64][SINPE__VARIANT];
        size_t n = tu_variants(v, 64);
        for (size_t i = 0; i < n && n <= 64; i++)
            printf("%s\n", v[i]);
        return n <= 64 ? 0 : 1;
    }
    if (seed && *seed)
        rng = strtoull(seed, NULL, 0);
    verbose = getenv("GRIND_VERBOSE") && atoi(getenv("GRIND_VERBOSE")) > 0;
    printf("grind: seed %llu\n", (unsigned long long)rng);

    if (!open_context(SINPE_MATH_AUTO)) {
        printf("grind: no context, nothing checked\n");
        return 1;
    }
    run_all(0);
    release_all();

    /* GRIND_MATH=float: the float path alone (run.sh's small work-groups) */
    const char *math = getenv("GRIND_MATH");
    if (!(math && strcmp(math, "float") == 0) && open_context(SINPE_MATH_FP64)) {
        run_all(1);
        release_all();
    }

    printf("grind: %ld checks, %ld failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
