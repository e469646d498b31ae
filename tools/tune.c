/*
 * tune.c -- the cases sinpe-tune times (the benchmark's shapes, positions
 * and storage types at the chosen dims, table rows, the rotation, a patch
 * grid and the attention input), which parameter decides which, and their
 * timing under a record (tune_main.c has the search).
 */
#include "tune.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const tune_op_names[] = {"fused", "gather", "add", "table", "rope", "grid",
                                      "attn"};

/* ---- cases --------------------------------------------------------------- */

unsigned tune_output_types(void)
{
    unsigned mask = 0;
    sinpe_dtype_info info;
    for (size_t t = 0; t < sinpe_dtype_count() && t < TUNE_N_DTYPES; t++)
        if (sinpe_dtype_query((sinpe_dtype)t, &info, sizeof info) == SINPE_SUCCESS && info.output)
            mask |= 1u << t;
    return mask;
}

/* The library's name with "f" for a float type made "fp": "f32" -> "fp32". */
const char *tune_dtype_name(sinpe_dtype dtype)
{
    static char names[TUNE_N_DTYPES][24];
    sinpe_dtype_info info;
    if ((unsigned)dtype >= TUNE_N_DTYPES || sinpe_dtype_query(dtype, &info, sizeof info) != 0)
        return "?";
    int f = info.name[0] == 'f' && isdigit((unsigned char)info.name[1]);
    snprintf(names[dtype], sizeof names[0], "%s%s", f ? "fp" : "", info.name + f);
    return names[dtype];
}

/* What a case's call reads and writes under one candidate. */
typedef struct run_state {
    tuner *tu;
    candidate *cand;
    const tune_case *c;
    size_t d; /* the index of its dim in tu->dims */
} run_state;

/* The index of dim in tu->dims (a table or embedding case's dim is one). */
static size_t dim_index(const tuner *tu, size_t dim)
{
    size_t d = 0;
    while (d + 1 < tu->n_dims && tu->dims[d] != dim)
        d++;
    return d;
}

static int run_table(void *user, cl_command_queue queue, cl_event *event)
{
    run_state *rs = user;
    CHECK(sinpe_enqueue_table_rows(rs->cand->table[rs->d], queue, 0, TUNE_TABLE_ROWS,
                                   rs->tu->rows_out[rs->d], 0, 0, SINPE_F32, 0, NULL, event));
    return 0;
fail:
    return -1;
}

static int run_rope(void *user, cl_command_queue queue, cl_event *event)
{
    run_state *rs = user;
    size_t width = (TUNE_ROPE_Q + TUNE_ROPE_KV) * TUNE_ROPE_HEAD;
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = TUNE_ROPE_SEQS;
    a.seq_len = TUNE_ROPE_LEN;
    a.head_dim = TUNE_ROPE_HEAD;
    a.q = a.k = rs->tu->rope_qk;
    a.q_stride = a.k_stride = width;
    a.q_heads = TUNE_ROPE_Q;
    a.k_offset = TUNE_ROPE_Q * TUNE_ROPE_HEAD;
    a.kv_heads = TUNE_ROPE_KV;
    CHECK(sinpe_enqueue_rope(rs->cand->rope, queue, &a, 0, NULL, event));
    return 0;
fail:
    return -1;
}

static int run_grid(void *user, cl_command_queue queue, cl_event *event)
{
    run_state *rs = user;
    sinpe_grid_args a;
    sinpe_grid_args_init(&a);
    a.n_seqs = TUNE_GRID_IMAGES;
    a.rows = a.cols = TUNE_GRID_SIDE;
    a.base_size = TUNE_GRID_BASE;
    a.out = rs->tu->grid_x;
    a.add = 1;
    CHECK(sinpe_enqueue_grid(rs->cand->grid, queue, &a, 0, NULL, event));
    return 0;
fail:
    return -1;
}

static int run_attn(void *user, cl_command_queue queue, cl_event *event)
{
    run_state *rs = user;
    const size_t n = (size_t)TUNE_ROPE_SEQS * TUNE_ROPE_LEN, H = TUNE_ROPE_HEAD;
    const size_t qw = TUNE_ROPE_Q * H, kw = TUNE_ROPE_KV * H;
    sinpe_attn_input_args a;
    sinpe_attn_input_args_init(&a);
    a.n_seqs = TUNE_ROPE_SEQS, a.seq_len = TUNE_ROPE_LEN, a.head_dim = H;
    a.q = a.k = rs->tu->rope_qk, a.v = rs->tu->attn_out;
    a.q_stride = a.k_stride = qw + kw, a.k_offset = qw;
    a.v_offset = n * (qw + 2 * kw), a.v_stride = kw;
    a.q_heads = TUNE_ROPE_Q, a.kv_heads = TUNE_ROPE_KV;
    a.norm = SINPE_QK_NORM_RMS;
    a.q_norm_weight = a.k_norm_weight = rs->tu->rope_qk;
    a.q_out = a.k_cache = a.v_cache = rs->tu->attn_out;
    a.k_cache_offset = n * qw, a.v_cache_offset = n * (qw + kw), a.cache_rows = n;
    CHECK(sinpe_enqueue_attn_input(rs->cand->rope, queue, &a, 0, NULL, event));
    return 0;
fail:
    return -1;
}

/* The benchmark's embedding cases: fused and gather into one output, add
   in place on another. */
static int run_embed(void *user, cl_command_queue queue, cl_event *event)
{
    run_state *rs = user;
    const tune_case *c = rs->c;
    const tune_shape *sh = &tune_shapes[c->shape];
    const tune_inputs *in = &rs->tu->inputs[c->shape][c->explicit_pos];
    sinpe_table *table = rs->cand->table[rs->d];
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    a.n_seqs = sh->seqs;
    a.seq_len = sh->seq_len;
    a.ids = in->ids;
    a.positions = in->pos;
    a.weights = rs->tu->weights[rs->d][c->dtype];
    a.vocab = TUNE_VOCAB;
    a.token_scale = sqrtf((float)c->dim);
    a.weights_dtype = a.out_dtype = c->dtype;
    a.out = rs->tu->out[rs->d][c->dtype][c->op == OP_ADD];
    if (c->op == OP_FUSED)
        CHECK(sinpe_enqueue_embed(table, queue, &a, 0, NULL, event));
    else if (c->op == OP_GATHER)
        CHECK(sinpe_enqueue_gather(table, queue, &a, 0, NULL, event));
    else
        CHECK(sinpe_enqueue_add_positions(table, queue, &a, 0, NULL, event));
    return 0;
fail:
    return -1;
}

/*
 * What case c needs under cand, made when a case first needs it: the table
 * it reads and the program of its weights type.  A search that times only
 * the rotation makes no embedding table and builds no weights program; one
 * that times fp32 cases alone builds no fp16 or bf16 program.
 */
static int candidate_prepare(tuner *tu, candidate *cand, const tune_case *c)
{
    size_t d = dim_index(tu, c->dim);
    if (c->op == OP_FUSED || c->op == OP_GATHER)
        CHECK(sinpe_context_prepare(cand->ctx, c->dtype)); /* at once when built */
    if ((c->op == OP_ROPE || c->op == OP_ATTN) && !cand->rope) {
        sinpe_rope_spec spec;
        sinpe_rope_spec_init(&spec, TUNE_ROPE_HEAD);
        CHECK(sinpe_rope_table_create(cand->ctx, &spec, TUNE_ROPE_LEN, &cand->rope));
    } else if (c->op == OP_GRID && !cand->grid) {
        sinpe_spec spec; /* each axis half the row (MAE's frequencies, as the benchmark) */
        CHECK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, TUNE_GRID_D / 2));
        CHECK(sinpe_table_create(cand->ctx, &spec, 0, &cand->grid));
    } else if (c->op < OP_ROPE && !cand->table[d]) {
        sinpe_spec spec;
        sinpe_spec_init(&spec, c->dim);
        /* Every position the cases use, and the table case's rows. */
        CHECK(sinpe_table_create(cand->ctx, &spec, TUNE_TABLE_ROWS, &cand->table[d]));
    }
    return 0;
fail:
    return -1;
}

/* Times case c under candidate cand; the median device time in *us.  The
   first time (first), warm-up calls come before the timed ones. */
static int time_case(tuner *tu, candidate *cand, const tune_case *c, int first, double *us)
{
    run_state rs = {tu, cand, c, dim_index(tu, c->dim)};
    static int (*const runs[])(void *, cl_command_queue, cl_event *) = {
        run_embed, run_embed, run_embed, run_table, run_rope, run_grid, run_attn};
    tune_job job = {runs[c->op], &rs, 0};
    if (candidate_prepare(tu, cand, c) != 0)
        return -1;
    /* Positions to check, table rows and the grid may take two launches:
       bracketed. */
    job.bracket = c->op == OP_TABLE || c->op == OP_GRID || c->explicit_pos;
    /* Decode-sized calls are cheap and noisy: more of them.  The warm-up
       calls compile the kernels (pocl compiles a kernel at its first
       launch) and touch the buffers; in a later round the same case has
       just run under the other records, with the same buffers. */
    int decode = c->op < OP_TABLE && tune_shapes[c->shape].seq_len == 1;
    return tune_time(&tu->env, &job, !first ? 0 : decode ? 5 : 1, decode ? 40 : 3, us);
}

void tune_case_name(const tune_case *c, char *buf, size_t n)
{
    if (c->op == OP_TABLE)
        snprintf(buf, n, "table   -   rows    %4zu fp32", c->dim);
    else if (c->op == OP_ROPE)
        snprintf(buf, n, "rope    imp %dx%-4d %4d %s", TUNE_ROPE_SEQS, TUNE_ROPE_LEN,
                 TUNE_ROPE_HEAD, tune_dtype_name(c->dtype));
    else if (c->op == OP_ATTN)
        snprintf(buf, n, "attn    imp %dx%-4d %4d %s", TUNE_ROPE_SEQS, TUNE_ROPE_LEN,
                 TUNE_ROPE_HEAD, tune_dtype_name(c->dtype));
    else if (c->op == OP_GRID)
        snprintf(buf, n, "grid    add %dx%-4d %4d %s", TUNE_GRID_IMAGES,
                 TUNE_GRID_SIDE * TUNE_GRID_SIDE, TUNE_GRID_D, tune_dtype_name(c->dtype));
    else
        snprintf(buf, n, "%-7s %s %-7s %4zu %s", tune_op_names[c->op],
                 c->explicit_pos ? "exp" : "imp", tune_shapes[c->shape].name, c->dim,
                 tune_dtype_name(c->dtype));
}

/* Adds case (op, shape, positions, dtype) at every dim unless it is there. */
static void add_case(tuner *tu, int op, int shape, int explicit_pos, sinpe_dtype dtype,
                     int final)
{
    if (!(tu->dtypes & (1u << dtype)))
        return;
    for (size_t d = 0; d < tu->n_dims && tu->n_cases < MAX_CASES; d++) {
        tune_case *c = &tu->cases[tu->n_cases];
        memset(c, 0, sizeof *c);
        c->op = op;
        c->shape = shape;
        c->explicit_pos = explicit_pos;
        c->dtype = dtype;
        c->dim = tu->dims[d];
        c->final = final;
        tu->n_cases++;
    }
}

void tune_make_cases(tuner *tu)
{
    for (int s = DECODE; s <= PREFILL; s++) {
        add_case(tu, OP_FUSED, s, 0, SINPE_F32, 1);
        add_case(tu, OP_FUSED, s, 1, SINPE_F32, 1);
        add_case(tu, OP_GATHER, s, 0, SINPE_F32, 1);
        add_case(tu, OP_ADD, s, 0, SINPE_F32, 1);
        add_case(tu, OP_ADD, s, 1, SINPE_F32, 1);
    }
    add_case(tu, OP_TABLE, 0, 0, SINPE_F32, 1);
    /* One rotary, one grid and one attention input case: their own shapes,
       not the dims, size them. */
    for (int op = OP_ROPE; op <= OP_ATTN && tu->n_cases < MAX_CASES; op++) {
        tune_case *c = &tu->cases[tu->n_cases++];
        memset(c, 0, sizeof *c);
        c->op = op;
        c->dtype = SINPE_F32;
        c->dim = op == OP_GRID ? TUNE_GRID_D : TUNE_ROPE_HEAD;
        c->final = 1;
    }
    for (int s = MID; s <= PREFILL; s++)
        for (int dt = 0; dt < TUNE_N_DTYPES; dt++) { /* the output types but fp32 */
            if (dt == SINPE_F32 || !(tune_output_types() & (1u << dt)))
                continue;
            add_case(tu, OP_FUSED, s, 0, (sinpe_dtype)dt, 0);
            add_case(tu, OP_GATHER, s, 0, (sinpe_dtype)dt, 0);
            add_case(tu, OP_ADD, s, 0, (sinpe_dtype)dt, 0);
        }
}

sinpe__call tune_call(const tune_case *c)
{
    static const int modes[] = {SINPE_MODE_FUSED, SINPE_MODE_GATHER, SINPE_MODE_ADD,
                                SINPE_MODE_NONE, SINPE_MODE_NONE, SINPE_MODE_NONE,
                                SINPE_MODE_NONE};
    static const int forms[] = {SINPE_FORM_ROWS, SINPE_FORM_ROWS, SINPE_FORM_ROWS,
                                SINPE_FORM_ROWS, SINPE_FORM_ROPE, SINPE_FORM_GRID,
                                SINPE_FORM_ATTN};
    sinpe__call k;
    memset(&k, 0, sizeof k);
    k.mode = modes[c->op];
    k.form = forms[c->op]; /* the cases of no call */
    k.weights = k.out = (int)c->dtype;
    if (c->op >= OP_TABLE)
        return k;
    /* Implicit positions start at 0, in the table; the buffers are the
       runtime's, so aligned to far more than 64 bytes. */
    k.fast = c->op == OP_GATHER || !c->explicit_pos;
    k.ordered = !c->explicit_pos;
    k.lines = c->dim % (64 / sinpe_dtype_bytes(c->dtype, 1)) == 0;
    k.aligned = c->dim % 4 == 0;
    k.tokens = tune_shapes[c->shape].seqs * tune_shapes[c->shape].seq_len;
    k.out_bytes = k.tokens * c->dim * sinpe_dtype_bytes(c->dtype, 1);
    return k;
}

/*
 * Whether parameter p decides case c: p changes its launches under cur
 * (the plan says), and it is an fp32 case, unless p changes no fp32 case
 * (the bf16 form), which keeps the search to the benchmark's kind.
 */
int tune_decides(const tuner *tu, size_t p, const sinpe__tuning *cur, const tune_case *c)
{
    sinpe__call k = tune_call(c);
    if (!sinpe__plan_affects(cur, p, &k))
        return 0;
    if (c->dtype == SINPE_F32)
        return 1;
    for (size_t i = 0; i < tu->n_cases; i++) {
        k = tune_call(&tu->cases[i]);
        if (tu->cases[i].dtype == SINPE_F32 && sinpe__plan_affects(cur, p, &k))
            return 0;
    }
    return 1;
}

/* ---- records and their contexts ------------------------------------------ */

int tune_candidate_open(tuner *tu, candidate *cand, const char *text)
{
    sinpe_context_options o;
    memset(cand, 0, sizeof *cand);
    snprintf(cand->text, sizeof cand->text, "%s", text);
    sinpe_context_options_init(&o);
    o.tuning = cand->text;
    /* No binary cache: storing a binary makes pocl compile every kernel of
       the program, where a candidate launches a few. */
    o.no_disk_cache = 1;
    /* Lazy: the programs of the weights types come with the first case
       that reads them (candidate_prepare). */
    CHECK(sinpe__context_create_lazy(tu->env.cl_ctx, tu->env.device, &o, &cand->ctx));
    return 0;
fail:
    return -1;
}

void tune_candidate_close(candidate *cand)
{
    for (size_t d = 0; d < MAX_DIMS; d++)
        sinpe_table_release(cand->table[d]);
    sinpe_table_release(cand->rope);
    sinpe_table_release(cand->grid);
    sinpe_context_release(cand->ctx);
    memset(cand, 0, sizeof *cand);
}

/* Round r of every (case, candidate) pair, the candidates rotated from
   round to round; a case's figure is the fastest of its round medians, as
   a busy neighbour only ever slows a round down. */
int tune_time_round(tuner *tu, candidate *cands, size_t n_cands, tune_case **sel, size_t n,
                    int (*ok)[MAX_RECORDS], int r, double (*us)[MAX_RECORDS])
{
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < n_cands; j++) {
            size_t c = (j + (size_t)r) % n_cands;
            double t;
            if (!ok[k][c]) {
                us[k][c] = 0.0;
                continue;
            }
            if (time_case(tu, &cands[c], sel[k], r == 0, &t) != 0)
                return -1;
            us[k][c] = r == 0 || t < us[k][c] ? t : us[k][c];
        }
    return 0;
}

void tune_json(tuner *tu, const char *phase, const tune_case *c, const char *role,
                      const char *record, double us)
{
    if (!tu->env.json)
        return;
    fprintf(tu->env.json,
            "{\"tool\":\"sinpe-tune\",\"device\":\"%s\",\"phase\":\"%s\",\"case\":\"%s\","
            "\"positions\":\"%s\",\"shape\":\"%s\",\"dim\":%zu,\"dtype\":\"%s\",\"role\":\"%s\","
            "\"median_us\":%.3f,\"record\":\"%s\"}\n",
            tu->env.device_name, phase, tune_op_names[c->op],
            c->op == OP_TABLE || c->op == OP_GRID ? "-" : c->explicit_pos ? "explicit" : "implicit",
            c->op == OP_TABLE  ? "rows"
            : c->op >= OP_ROPE ? tune_op_names[c->op]
                               : tune_shapes[c->shape].name,
            c->dim,
            tune_dtype_name(c->dtype), role, us, record);
    fflush(tu->env.json);
}

