/*
 * rope.c -- rotary position embeddings: sinpe_enqueue_rope() rotating q
 * and k in place, against the unfused pair a host without it runs and
 * against a plain copy of the same bytes.
 *
 * Shapes: decode 64 x 1, mid 4 x 512 and prefill 4 x 2048 tokens of 32 q
 * heads and 8 kv heads of head_dim 128 (Llama 3.1 8B's attention), the
 * Llama 3.1 rotary spec (R = 128, HALVES, COS_SIN), positions from a
 * buffer (decode: each sequence at its own position, below 2048), in
 * fp32, fp16 and bf16 storage.  q and k lie in one buffer, packed as a
 * fused projection writes them: token r's row holds its 32 q heads then
 * its 8 k heads, so that the copy moves exactly the bytes the rotation
 * must.  Rows:
 *   rope          sinpe_enqueue_rope() in place on q and k, from a rotary
 *                 table holding every position;
 *   rope_otf      the same call with every position moved past the
 *                 table's rows (start = its rows), cos and sin computed
 *                 on the fly; its vs column tN is its time over rope's;
 *   rope_unfused  the pair: a bench kernel gathers the table's rows by
 *                 position into a [tokens, R] float buffer (the cos/sin
 *                 cache a host keeps), a second rotates q and k in place
 *                 from it, with the header's operation order; their device
 *                 times summed;
 *   rope_host     the host's own one launch: a bench kernel rotating in
 *                 place with cos and sin from sinpe_rope_cos_sin() (the
 *                 device functions, sinpe_device_source()), the same loop
 *                 as the pair's rotation: what a host fusing the rotation
 *                 into its own kernel gets;
 *   mrope         sinpe_enqueue_rope() on the same bytes from the same rule
 *                 with three lanes per token (MROPE sections 16, 24, 24:
 *                 the position, a row and a column of a 32-wide grid);
 *                 its fused x column is its time over rope's;
 *   rope_engine   the cost of exactness: a bench kernel computing as the
 *                 engines do (HF's float32 inv_freq, a float32 angle, the
 *                 device's cos and sin) in one launch; time over rope's;
 *   rope_copy     the copy ceiling's way (the fastest copy of the run) over
 *                 the q and k bytes into a scratch buffer.
 * GB/s and %copy count each row's own bytes: q and k read and written,
 * and for the unfused pair also the cache written and read back and the
 * table rows it gathers; task GB/s counts the mandatory bytes, q and k
 * read and written, for all four.  With 40 heads of 128 the cache is small
 * beside q and k: the pair moves only 1.03x (fp32) to 1.06x (16-bit) the
 * mandatory bytes, which bounds what the fused call can gain over it
 * where both run at the memory's speed; the goal line says so.  rope's
 * "fused x" column is absent, rope_unfused's and rope_host's are their
 * time over rope's; rope's vs column is cN, its GB/s over rope_copy's
 * (the same bytes, the same run).
 *
 * Checks, after the timed rows of each shape and type: the fused result
 * equals the unfused pair's and the host kernel's byte for byte (each
 * rotates freshly filled q and k), and lies within a bound of a float64
 * rotation (host, cos and sin from sinpe_rope_frequencies() in float64)
 * on a sample of tokens.
 */
#include "bench.h"
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROPE_Q_HEADS 32
#define ROPE_KV_HEADS 8
#define ROPE_HEAD_DIM 128
#define ROPE_ROW (ROPE_Q_HEADS + ROPE_KV_HEADS) /* heads per token */
#define ROPE_CPU_REPS 5

static const bench_shape rope_shapes[] = {
    {"decode", 64, 1},
    {"mid", 4, 512},
    {"prefill", 4, 2048},
};
#define N_ROPE_SHAPES (sizeof rope_shapes / sizeof rope_shapes[0])

/* The unfused pair's kernels.  The rotation is sinpe's operation order
   (include/sinpe.h, sinpe_rope_args): float32 products and fma, one
   rounding to the storage type at the store, contraction off. */
static const char rope_source[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void rope_gather(__global const float *restrict tab, uint rot,\n"
    "                          __global const int *restrict pos, __global float *restrict cs)\n"
    "{\n"
    "    uint c = get_global_id(0), r = get_global_id(1);\n"
    "    uint p = (uint)pos[r];\n"
    "    cs[(size_t)r * rot + c] = tab[(size_t)p * rot + c];\n"
    "}\n"
    "\n"
    "/* Four values at element i of the storage type dt, as float4. */\n"
    "float4 ld4(__global const void *b, size_t i, int dt)\n"
    "{\n"
    "    if (dt == 0) return vload4(0, (__global const float *)b + i);\n"
    "    if (dt == 1) return vload_half4(0, (__global const half *)b + i);\n"
    "    return as_float4(convert_uint4(vload4(0, (__global const ushort *)b + i)) << 16);\n"
    "}\n"
    "\n"
    "/* Stored rounded to nearest even, once. */\n"
    "void st4(float4 v, __global void *b, size_t i, int dt)\n"
    "{\n"
    "    if (dt == 0) { vstore4(v, 0, (__global float *)b + i); return; }\n"
    "    if (dt == 1) { vstore_half4_rte(v, 0, (__global half *)b + i); return; }\n"
    "    uint4 u = as_uint4(v);\n"
    "    u = (u + (uint4)(0x7FFFu) + ((u >> 16) & (uint4)(1u))) >> 16;\n"
    "    vstore4(convert_ushort4(u), 0, (__global ushort *)b + i);\n"
    "}\n"
    "\n"
    "/* Pairs j .. j + 3 of every head of the token row at row, q's then k's;\n"
    "   lane by lane the header's operations, so the bits are the scalar ones. */\n"
    "void rotate_heads(__global void *qk, size_t row, uint heads, uint head_dim,\n"
    "                  uint half_r, uint j, float4 c, float4 s, int dt)\n"
    "{\n"
    "    for (uint h = 0; h < heads; h++) {\n"
    "        size_t i1 = row + (size_t)h * head_dim + j, i2 = i1 + half_r;\n"
    "        float4 x1 = ld4(qk, i1, dt), x2 = ld4(qk, i2, dt);\n"
    "        st4(fma(x1, c, -(x2 * s)), qk, i1, dt);\n"
    "        st4(fma(x2, c, x1 * s), qk, i2, dt);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* Work-item (j, r): pairs 4j .. 4j + 3 of token r, cos and sin from the\n"
    "   cache. */\n"
    "#define ROTATE(NAME, DT)                                                    \\\n"
    "__kernel void NAME(__global void *qk, __global const float *restrict cs,  \\\n"
    "                   uint heads, uint head_dim, uint rot)                    \\\n"
    "{                                                                         \\\n"
    "    uint j = 4 * get_global_id(0), r = get_global_id(1);                  \\\n"
    "    __global const float *row = cs + (size_t)r * rot;                     \\\n"
    "    rotate_heads(qk, (size_t)r * heads * head_dim, heads, head_dim, rot / 2,\\\n"
    "                 j, vload4(0, row + j), vload4(0, row + rot / 2 + j), DT); \\\n"
    "}\n"
    "ROTATE(rope_rotate_f32, 0)\n"
    "ROTATE(rope_rotate_f16, 1)\n"
    "ROTATE(rope_rotate_bf16, 2)\n"
    "\n"
    "/* The host's one launch: cos and sin from sinpe's device functions. */\n"
    "#define HOST(NAME, DT)                                                      \\\n"
    "__kernel void NAME(__global void *qk, __global const float *tab, int rows,\\\n"
    "                   __global const float *consts, uint heads, uint head_dim,\\\n"
    "                   uint rot, __global const int *pos)                      \\\n"
    "{                                                                         \\\n"
    "    uint j = 4 * get_global_id(0), r = get_global_id(1);                  \\\n"
    "    int p = pos[r];                                                       \\\n"
    "    float2 a = sinpe_rope_cos_sin(tab, rows, consts, rot, 0u, p, j);      \\\n"
    "    float2 b = sinpe_rope_cos_sin(tab, rows, consts, rot, 0u, p, j + 1);  \\\n"
    "    float2 c = sinpe_rope_cos_sin(tab, rows, consts, rot, 0u, p, j + 2);  \\\n"
    "    float2 d = sinpe_rope_cos_sin(tab, rows, consts, rot, 0u, p, j + 3);  \\\n"
    "    rotate_heads(qk, (size_t)r * heads * head_dim, heads, head_dim, rot / 2,\\\n"
    "                 j, (float4)(a.x, b.x, c.x, d.x), (float4)(a.y, b.y, c.y, d.y),\\\n"
    "                 DT);                                                     \\\n"
    "}\n"
    "HOST(rope_host_f32, 0)\n"
    "HOST(rope_host_f16, 1)\n"
    "HOST(rope_host_bf16, 2)\n"
    "\n"
    "/* As the engines compute: float32 frequencies (HF's inv_freq), a float32\n"
    "   angle, the device's cos and sin. */\n"
    "#define ENGINE(NAME, DT)                                                    \\\n"
    "__kernel void NAME(__global void *qk, __global const float *inv_freq,     \\\n"
    "                   uint heads, uint head_dim, uint rot, __global const int *pos)\\\n"
    "{                                                                         \\\n"
    "    uint j = 4 * get_global_id(0), r = get_global_id(1);                  \\\n"
    "    float4 a = (float)pos[r] * vload4(0, inv_freq + j);                   \\\n"
    "    rotate_heads(qk, (size_t)r * heads * head_dim, heads, head_dim, rot / 2,\\\n"
    "                 j, cos(a), sin(a), DT);                                  \\\n"
    "}\n"
    "ENGINE(rope_engine_f32, 0)\n"
    "ENGINE(rope_engine_f16, 1)\n"
    "ENGINE(rope_engine_bf16, 2)\n";

/* The state of one shape in one storage type. */
typedef struct rope_run {
    bench_env *env;
    sinpe_table *table;
    cl_mem tab;        /* the table's buffer, borrowed */
    cl_mem consts;     /* the table's constants, for the device functions */
    cl_int tab_rows;
    cl_kernel gather, rotate, host, engine;
    sinpe_table *mtable; /* the same rule with three lanes (MROPE 16, 24, 24) */
    cl_mem lanes;        /* each token's three lanes, lane-major */
    cl_int *host_lanes;
    sinpe_rope_args margs;
    cl_mem inv_freq;     /* float32 frequencies, for the engines' kernel */
    cl_mem qk, cs, scratch;
    sinpe_dtype dtype;
    size_t tokens, seq_len;
    cl_mem pos;        /* each token's position, as every path reads it */
    cl_int *host_pos;
    size_t qk_bytes;   /* q and k */
    size_t distinct;   /* distinct positions */
    sinpe_rope_args args;
} rope_run;

static int run_fused(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    CHECK(sinpe_enqueue_rope(rr->table, queue, &rr->args, 0, NULL, &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

/* The same call with every position past the table's rows. */
static int run_otf(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    int rc;
    rr->args.start = rr->tab_rows;
    rc = run_fused(user, queue, events, n_events);
    rr->args.start = 0;
    return rc;
}

/* The same bytes rotated with three lanes per token. */
static int run_mrope(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    CHECK(sinpe_enqueue_rope(rr->mtable, queue, &rr->margs, 0, NULL, &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

static int run_engine(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    size_t g[2] = {ROPE_HEAD_DIM / 8, rr->tokens}; /* four pairs a work-item */
    cl_uint heads = ROPE_ROW, head_dim = ROPE_HEAD_DIM, rot = ROPE_HEAD_DIM;
    CHECK(clSetKernelArg(rr->engine, 0, sizeof rr->qk, &rr->qk));
    CHECK(clSetKernelArg(rr->engine, 1, sizeof rr->inv_freq, &rr->inv_freq));
    CHECK(clSetKernelArg(rr->engine, 2, sizeof heads, &heads));
    CHECK(clSetKernelArg(rr->engine, 3, sizeof head_dim, &head_dim));
    CHECK(clSetKernelArg(rr->engine, 4, sizeof rot, &rot));
    CHECK(clSetKernelArg(rr->engine, 5, sizeof rr->pos, &rr->pos));
    CHECK(clEnqueueNDRangeKernel(queue, rr->engine, 2, NULL, g, NULL, 0, NULL, &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

static int run_unfused(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    size_t g_gather[2] = {ROPE_HEAD_DIM, rr->tokens};
    size_t g_rotate[2] = {ROPE_HEAD_DIM / 8, rr->tokens}; /* four pairs a work-item */
    cl_uint rot = ROPE_HEAD_DIM, heads = ROPE_ROW;
    cl_uint head_dim = ROPE_HEAD_DIM;
    CHECK(clSetKernelArg(rr->gather, 0, sizeof rr->tab, &rr->tab));
    CHECK(clSetKernelArg(rr->gather, 1, sizeof rot, &rot));
    CHECK(clSetKernelArg(rr->gather, 2, sizeof rr->pos, &rr->pos));
    CHECK(clSetKernelArg(rr->gather, 3, sizeof rr->cs, &rr->cs));
    CHECK(clSetKernelArg(rr->rotate, 0, sizeof rr->qk, &rr->qk));
    CHECK(clSetKernelArg(rr->rotate, 1, sizeof rr->cs, &rr->cs));
    CHECK(clSetKernelArg(rr->rotate, 2, sizeof heads, &heads));
    CHECK(clSetKernelArg(rr->rotate, 3, sizeof head_dim, &head_dim));
    CHECK(clSetKernelArg(rr->rotate, 4, sizeof rot, &rot));
    CHECK(clEnqueueNDRangeKernel(queue, rr->gather, 2, NULL, g_gather, NULL, 0, NULL,
                                 &events[0]));
    *n_events = 1;
    CHECK(clEnqueueNDRangeKernel(queue, rr->rotate, 2, NULL, g_rotate, NULL, 1, &events[0],
                                 &events[1]));
    *n_events = 2;
    return 0;
fail:
    return -1;
}

static int run_host(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    size_t g[2] = {ROPE_HEAD_DIM / 8, rr->tokens}; /* four pairs a work-item */
    cl_uint heads = ROPE_ROW, head_dim = ROPE_HEAD_DIM, rot = ROPE_HEAD_DIM;
    CHECK(clSetKernelArg(rr->host, 0, sizeof rr->qk, &rr->qk));
    CHECK(clSetKernelArg(rr->host, 1, sizeof rr->tab, &rr->tab));
    CHECK(clSetKernelArg(rr->host, 2, sizeof rr->tab_rows, &rr->tab_rows));
    CHECK(clSetKernelArg(rr->host, 3, sizeof rr->consts, &rr->consts));
    CHECK(clSetKernelArg(rr->host, 4, sizeof heads, &heads));
    CHECK(clSetKernelArg(rr->host, 5, sizeof head_dim, &head_dim));
    CHECK(clSetKernelArg(rr->host, 6, sizeof rot, &rot));
    CHECK(clSetKernelArg(rr->host, 7, sizeof rr->pos, &rr->pos));
    CHECK(clEnqueueNDRangeKernel(queue, rr->host, 2, NULL, g, NULL, 0, NULL, &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

static int run_copy(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    rope_run *rr = user;
    if (bench_enqueue_copy(rr->env, queue, rr->qk, rr->scratch, rr->qk_bytes, &events[0]) != 0)
        return -1;
    *n_events = 1;
    return 0;
}

/* Fills q and k afresh (values in [-1, 1), the same for every run). */
static int fill_qk(rope_run *rr)
{
    size_t es = bench_dtype_size(rr->dtype);
    return bench_fill(rr->env, rr->qk, rr->qk_bytes / es, 0x5EEDu, rr->dtype);
}

/*
 * The fused result within bound of a float64 rotation on every 61st
 * token (every token of decode): |y - ref| <= 1e-6 (|x1| + |x2|) (the
 * float32 cos/sin and products) plus one unit in the last place of the
 * storage type at |ref| (its rounding).  x holds the inputs, y the
 * fused outputs, both read back.  Returns the number of values beyond.
 */
static size_t check_reference(const rope_run *rr, const unsigned char *x, const unsigned char *y,
                              const double *freqs, double m, int lanes, double *worst)
{
    size_t r, h, j, over = 0, half = ROPE_HEAD_DIM / 2;
    size_t step = rr->tokens > 64 ? 61 : 1;
    int bits = rr->dtype == SINPE_F16 ? 10 : rr->dtype == SINPE_BF16 ? 7 : 23;
    for (r = 0; r < rr->tokens; r += step) {
        for (j = 0; j < half; j++) {
            size_t lane = lanes ? (j >= 16) + (j >= 40) : 0; /* MROPE 16, 24, 24 */
            double p = (double)(lanes ? rr->host_lanes[lane * rr->tokens + r] : rr->host_pos[r]);
            double c = m * cos(p * freqs[j]), s = m * sin(p * freqs[j]);
            for (h = 0; h < ROPE_ROW; h++) {
                size_t i1 = (r * ROPE_ROW + h) * ROPE_HEAD_DIM + j, i2 = i1 + half;
                double x1 = ref_load(rr->dtype, x, i1), x2 = ref_load(rr->dtype, x, i2);
                double ref[2] = {x1 * c - x2 * s, x2 * c + x1 * s};
                double got[2] = {ref_load(rr->dtype, y, i1), ref_load(rr->dtype, y, i2)};
                for (int e = 0; e < 2; e++) {
                    int ex;
                    frexp(ref[e], &ex);
                    double tol = 1e-6 * (fabs(x1) + fabs(x2)) + ldexp(1.0, ex - 1 - bits);
                    double d = fabs(got[e] - ref[e]);
                    if (!(d <= tol))
                        over++;
                    if (d / tol > *worst)
                        *worst = d / tol;
                }
            }
        }
    }
    return over;
}

/* One row of the section, timed as st. */
static void fill_row(const rope_run *rr, const char *name, const bench_shape *sh,
                     const bench_stats *st, bench_row *row)
{
    memset(row, 0, sizeof *row);
    row->stats = *st;
    row->name = name;
    row->positions = "explicit";
    row->shape = sh->name;
    row->dtype = bench_dtype_name(rr->dtype);
    row->path = "32q+8kv";
    row->seqs = sh->seqs;
    row->seq_len = sh->seq_len;
    row->dim = ROPE_HEAD_DIM;
    row->distinct_positions = rr->distinct;
    row->bytes = 2.0 * (double)rr->qk_bytes; /* q and k read and written */
    row->task_bytes = row->bytes;
}

/*
 * Each token's position, in a buffer as vLLM passes them: t within its
 * sequence for prefill and mid; for decode, each sequence at its own
 * place in the table's rows (a batch of requests of different ages),
 * drawn from the run's seed.
 */
static int make_positions(rope_run *rr, size_t rows)
{
    uint64_t state = rr->env->opts->seed ^ 0x524F5045ull;
    size_t r, d = 0;
    unsigned char *seen = calloc(rows, 1);
    cl_int err;
    rr->host_pos = malloc(rr->tokens * sizeof *rr->host_pos);
    CHECK_AS("malloc (positions)", rr->host_pos && seen ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (r = 0; r < rr->tokens; r++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        rr->host_pos[r] = rr->seq_len > 1 ? (cl_int)(r % rr->seq_len)
                                           : (cl_int)((state >> 33) % rows);
        d += !seen[rr->host_pos[r]];
        seen[rr->host_pos[r]] = 1;
    }
    rr->distinct = d;
    rr->pos = clCreateBuffer(rr->env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             rr->tokens * sizeof *rr->host_pos, rr->host_pos, &err);
    CHECK_AS("clCreateBuffer(positions)", err);
    /* Three lanes as an image's tokens have them: the position, then a
       row and a column of a 32-wide grid, all inside the table. */
    rr->host_lanes = malloc(3 * rr->tokens * sizeof *rr->host_lanes);
    CHECK_AS("malloc (lanes)", rr->host_lanes ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (r = 0; r < rr->tokens; r++) {
        cl_int p = rr->host_pos[r];
        rr->host_lanes[r] = p;
        rr->host_lanes[rr->tokens + r] = p / 32;
        rr->host_lanes[2 * rr->tokens + r] = p % 32;
    }
    rr->lanes = clCreateBuffer(rr->env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               3 * rr->tokens * sizeof *rr->host_lanes, rr->host_lanes, &err);
    CHECK_AS("clCreateBuffer(lanes)", err);
    free(seen);
    return 0;
fail:
    free(seen);
    return -1;
}

static void release_positions(rope_run *rr)
{
    if (rr->pos)
        clReleaseMemObject(rr->pos);
    if (rr->lanes)
        clReleaseMemObject(rr->lanes);
    free(rr->host_pos);
    free(rr->host_lanes);
    rr->pos = rr->lanes = NULL;
    rr->host_pos = rr->host_lanes = NULL;
}

/* Times the four rows of one shape, then checks the outputs. */
static int run_shape(rope_run *rr, const bench_shape *sh, size_t rows, const double *freqs,
                     double m, check_tally *tally, goal_tally *goals)
{
    bench_env *env = rr->env;
    size_t es = bench_dtype_size(rr->dtype);
    size_t width = (size_t)ROPE_ROW * ROPE_HEAD_DIM;
    enum { FUSED, OTF, UNFUSED, HOST, COPY, MROPE, ENGINE, N_ROWS };
    static const char *const names[N_ROWS] = {"rope", "rope_otf", "rope_unfused", "rope_host",
                                              "rope_copy", "mrope", "rope_engine"};
    const bench_job jobs[N_ROWS] = {{run_fused, NULL, rr, 0},  {run_otf, NULL, rr, 0},
                                    {run_unfused, NULL, rr, 0}, {run_host, NULL, rr, 0},
                                    {run_copy, NULL, rr, 0},   {run_mrope, NULL, rr, 0},
                                    {run_engine, NULL, rr, 0}};
    bench_stats st[N_ROWS];
    bench_rounds rounds;
    bench_row row[N_ROWS];
    unsigned char *x = NULL, *yf = NULL, *yu = NULL;

    rr->seq_len = sh->seq_len;
    rr->tokens = sh->seqs * sh->seq_len;
    rr->qk_bytes = rr->tokens * width * es;
    if (make_positions(rr, rows) != 0)
        goto fail;
    sinpe_rope_args_init(&rr->args);
    rr->args.n_seqs = sh->seqs;
    rr->args.seq_len = sh->seq_len;
    rr->args.head_dim = ROPE_HEAD_DIM;
    rr->args.dtype = rr->dtype;
    rr->args.q = rr->qk;
    rr->args.q_stride = width;
    rr->args.q_heads = ROPE_Q_HEADS;
    rr->args.k = rr->qk;
    rr->args.k_offset = (size_t)ROPE_Q_HEADS * ROPE_HEAD_DIM;
    rr->args.k_stride = width;
    rr->args.kv_heads = ROPE_KV_HEADS;
    rr->args.positions = rr->pos;
    rr->margs = rr->args;
    rr->margs.positions = rr->lanes;
    if (fill_qk(rr) != 0)
        goto fail;

    /* A CPU device takes 0.05 to 0.5 s a call at prefill: there the big
       shapes get ROPE_CPU_REPS timed calls (one a round, unless --reps
       says otherwise), which keeps the section to a few seconds.  The
       rows are timed in interleaved rounds: the goals read their ratios. */
    const bench_opts *saved = env->opts;
    bench_opts few = *saved;
    if (saved->reps == 0 && (env->device_type & CL_DEVICE_TYPE_CPU) && rr->tokens > 64)
        few.reps = ROPE_CPU_REPS;
    env->opts = &few;
    int rc = bench_time_rounds(env, jobs, N_ROWS, st, &rounds);
    env->opts = saved;
    if (rc != 0)
        goto fail;
    for (int i = 0; i < N_ROWS; i++)
        fill_row(rr, names[i], sh, &st[i], &row[i]);
    /* The pair's own traffic: the cache written and read back, and the
       table rows it gathers, beside q and k. */
    row[UNFUSED].bytes += (2.0 * (double)rr->tokens + (double)rr->distinct) * ROPE_HEAD_DIM * 4.0;
    row[UNFUSED].speedup_device = bench_round_ratio(&rounds, UNFUSED, FUSED);
    row[UNFUSED].speedup_wall = st[UNFUSED].wall_us / st[FUSED].wall_us;
    static const int over_rope[] = {HOST, MROPE, ENGINE}; /* their time over rope's */
    for (size_t j = 0; j < sizeof over_rope / sizeof over_rope[0]; j++) {
        int i = over_rope[j];
        row[i].speedup_device = bench_round_ratio(&rounds, i, FUSED);
        row[i].speedup_wall = st[i].wall_us / st[FUSED].wall_us;
    }
    row[FUSED].vs_copy = bench_round_ratio(&rounds, COPY, FUSED); /* same bytes */
    row[OTF].vs_table = bench_round_ratio(&rounds, OTF, FUSED);
    for (int i = 0; i < N_ROWS; i++)
        bench_report_row(env, &row[i]);
    bench_goal_rope(env, goals, &row[FUSED], row[UNFUSED].speedup_device,
                    bench_round_ratio(&rounds, UNFUSED, COPY), row[OTF].vs_table);

    /* Both paths from the same fresh inputs; the fused result against
       float64 too. */
    x = malloc(rr->qk_bytes);
    yf = malloc(rr->qk_bytes);
    yu = malloc(rr->qk_bytes);
    CHECK_AS("malloc (rope read-back)", x && yf && yu ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    if (fill_qk(rr) != 0)
        goto fail;
    CHECK(clEnqueueReadBuffer(env->queue, rr->qk, CL_TRUE, 0, rr->qk_bytes, x, 0, NULL, NULL));
    CHECK(sinpe_enqueue_rope(rr->table, env->queue, &rr->args, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(env->queue, rr->qk, CL_TRUE, 0, rr->qk_bytes, yf, 0, NULL, NULL));
    for (int way = 0; way < 2; way++) {
        cl_event ev[2];
        cl_uint n = 0;
        size_t differ = 0, i;
        if (fill_qk(rr) != 0)
            goto fail;
        rc = (way ? run_host : run_unfused)(rr, env->queue, ev, &n);
        clFinish(env->queue);
        while (n > 0)
            clReleaseEvent(ev[--n]);
        if (rc != 0)
            goto fail;
        CHECK(clEnqueueReadBuffer(env->queue, rr->qk, CL_TRUE, 0, rr->qk_bytes, yu, 0, NULL,
                                  NULL));
        for (i = 0; i < rr->qk_bytes; i += es)
            differ += memcmp(yf + i, yu + i, es) != 0;
        tally->rope_runs++;
        tally->rope_bad += differ > 0;
        if (differ > 0)
            printf("MISMATCH: rope and %s differ in %zu of %zu values (%s, %s)\n",
                   way ? "rope_host" : "rope_unfused", differ, rr->qk_bytes / es, sh->name,
                   bench_dtype_name(rr->dtype));
    }
    double worst = 0.0;
    size_t over = check_reference(rr, x, yf, freqs, m, 0, &worst);
    if (fill_qk(rr) != 0)
        goto fail;
    CHECK(sinpe_enqueue_rope(rr->mtable, env->queue, &rr->margs, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(env->queue, rr->qk, CL_TRUE, 0, rr->qk_bytes, yf, 0, NULL, NULL));
    over += check_reference(rr, x, yf, freqs, m, 1, &worst);
    tally->rope_ref_runs++;
    tally->rope_ref_bad += over > 0;
    if (worst > tally->rope_ref_worst)
        tally->rope_ref_worst = worst;
    if (over > 0)
        printf("MISMATCH: rope or mrope differs from the float64 rotation beyond its bound in %zu "
               "values (%s, %s)\n",
               over, sh->name, bench_dtype_name(rr->dtype));
    free(x);
    free(yf);
    free(yu);
    release_positions(rr);
    return 0;
fail:
    free(x);
    free(yf);
    free(yu);
    release_positions(rr);
    return -1;
}

static void release_mem(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

int bench_rope_cases(bench_env *env, check_tally *tally, goal_tally *goals)
{
    static const char *const rotate_names[3] = {"rope_rotate_f32", "rope_rotate_f16",
                                                "rope_rotate_bf16"};
    static const sinpe_dtype types[3] = {SINPE_F32, SINPE_F16, SINPE_BF16};
    static const char *const host_names[3] = {"rope_host_f32", "rope_host_f16", "rope_host_bf16"};
    static const char *const engine_names[3] = {"rope_engine_f32", "rope_engine_f16",
                                                "rope_engine_bf16"};
    const char *src = rope_source, *parts[2];
    char *dev_text = NULL;
    size_t dev_len = 0;
    size_t max_tokens = 0, context = 0, rows = 0, i, t;
    double freqs[ROPE_HEAD_DIM / 2], m = 1.0;
    sinpe_rope_spec spec;
    rope_run rr;
    cl_program program = NULL;
    cl_int err;

    memset(&rr, 0, sizeof rr);
    rr.env = env;
    for (i = 0; i < N_ROPE_SHAPES; i++) {
        size_t n = rope_shapes[i].seqs * rope_shapes[i].seq_len;
        max_tokens = n > max_tokens ? n : max_tokens;
        context = rope_shapes[i].seq_len > context ? rope_shapes[i].seq_len : context;
    }
    if (max_tokens * ROPE_ROW * ROPE_HEAD_DIM * sizeof(float) > env->max_alloc) {
        printf("rope cases skipped: q and k exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE\n");
        return 0;
    }

    /* sinpe's device functions first, for the host's one-launch kernel. */
    CHECK(sinpe_device_source(env->ctx, NULL, 0, &dev_len));
    dev_text = malloc(dev_len + 1);
    CHECK_AS("malloc (device functions)", dev_text ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    CHECK(sinpe_device_source(env->ctx, dev_text, dev_len + 1, &dev_len));
    parts[0] = dev_text;
    parts[1] = src;
    program = clCreateProgramWithSource(env->cl_ctx, 2, parts, NULL, &err);
    CHECK_AS("clCreateProgramWithSource(rope kernels)", err);
    CHECK(clBuildProgram(program, 1, &env->device, "-cl-std=CL1.2", NULL, NULL));
    rr.gather = clCreateKernel(program, "rope_gather", &err);
    CHECK_AS("clCreateKernel(rope_gather)", err);

    CHECK(sinpe_rope_preset(&spec, SINPE_ROPE_PRESET_LLAMA3_1, ROPE_HEAD_DIM));
    CHECK(sinpe_rope_frequencies(&spec, freqs, &m));
    CHECK(sinpe_rope_table_create(env->ctx, &spec, context, &rr.table));
    CHECK(sinpe_table_borrow(rr.table, &rr.tab, &rows));
    CHECK(sinpe_table_constants(rr.table, &rr.consts));
    rr.tab_rows = (cl_int)rows;
    spec.axes = SINPE_ROPE_MROPE;
    spec.sections[0] = 16, spec.sections[1] = spec.sections[2] = 24;
    CHECK(sinpe_rope_table_create(env->ctx, &spec, context, &rr.mtable));
    {
        float f32[ROPE_HEAD_DIM / 2];
        for (i = 0; i < ROPE_HEAD_DIM / 2; i++)
            f32[i] = (float)freqs[i];
        rr.inv_freq = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     sizeof f32, f32, &err);
        CHECK_AS("clCreateBuffer(inv_freq)", err);
    }

    if (bench_make_buffer(env, max_tokens * ROPE_HEAD_DIM * sizeof(float),
                          "clCreateBuffer(cos/sin)", &rr.cs) != 0)
        goto fail;
    for (t = 0; t < 3; t++) {
        size_t bytes = max_tokens * ROPE_ROW * ROPE_HEAD_DIM * bench_dtype_size(types[t]);
        if (!(env->opts->dtypes & (1u << types[t])))
            continue;
        rr.dtype = types[t];
        rr.rotate = clCreateKernel(program, rotate_names[t], &err);
        CHECK_AS("clCreateKernel(rope_rotate)", err);
        rr.host = clCreateKernel(program, host_names[t], &err);
        CHECK_AS("clCreateKernel(rope_host)", err);
        rr.engine = clCreateKernel(program, engine_names[t], &err);
        CHECK_AS("clCreateKernel(rope_engine)", err);
        if (bench_make_buffer(env, bytes, "clCreateBuffer(q and k)", &rr.qk) != 0 ||
            bench_make_buffer(env, bytes, "clCreateBuffer(copy scratch)", &rr.scratch) != 0)
            goto fail;
        /* First touch of the scratch outside the timed copy. */
        if (bench_fill(env, rr.scratch, bytes / bench_dtype_size(rr.dtype), 9u, rr.dtype) != 0)
            goto fail;
        for (i = 0; i < N_ROPE_SHAPES; i++)
            if (run_shape(&rr, &rope_shapes[i], context, freqs, m, tally, goals) != 0)
                goto fail;
        release_mem(&rr.qk);
        release_mem(&rr.scratch);
        clReleaseKernel(rr.rotate);
        clReleaseKernel(rr.host);
        clReleaseKernel(rr.engine);
        rr.rotate = rr.host = rr.engine = NULL;
    }

    release_mem(&rr.cs);
    release_mem(&rr.tab);
    release_mem(&rr.consts);
    release_mem(&rr.inv_freq);
    sinpe_table_release(rr.table);
    sinpe_table_release(rr.mtable);
    clReleaseKernel(rr.gather);
    clReleaseProgram(program);
    free(dev_text);
    return 0;
fail:
    release_mem(&rr.qk);
    release_mem(&rr.scratch);
    release_mem(&rr.cs);
    release_mem(&rr.tab);
    release_mem(&rr.consts);
    release_mem(&rr.inv_freq);
    sinpe_table_release(rr.table);
    sinpe_table_release(rr.mtable);
    if (rr.rotate)
        clReleaseKernel(rr.rotate);
    if (rr.host)
        clReleaseKernel(rr.host);
    if (rr.engine)
        clReleaseKernel(rr.engine);
    if (rr.gather)
        clReleaseKernel(rr.gather);
    if (program)
        clReleaseProgram(program);
    free(dev_text);
    return -1;
}
