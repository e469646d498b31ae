/*
 * attn_input.c -- the attention input stage: sinpe_enqueue_attn_input()
 * (q/k RMS norm, rotation, k and v into the cache through a slot mapping,
 * one launch) against the unfused chain a host runs without it and
 * against a copy of the bytes the stage must move.
 *
 * Shapes: decode 64 x 1, mid 4 x 512, prefill 4 x 2048 tokens of 32 q and
 * 8 kv heads of 128 (Qwen3-8B's attention: RMS q/k norm, DEFAULT rope
 * base 1e6), q, k and v packed in one buffer as a fused QKV projection
 * writes them, positions from a buffer, every token to its own cache row
 * (a permutation of the rows, as vLLM's slot mapping), storage and cache
 * fp32, or fp16 and fp16.  Rows:
 *   attn_input    the stage, q in place;
 *   attn_unfused  three launches: a bench kernel norming q and k in place
 *                 with sinpe's device functions (sinpe_norm_square,
 *                 sinpe_norm_scale, sinpe_norm_value: the stage's norm),
 *                 sinpe_enqueue_rope() in place, and a bench kernel
 *                 writing k and v into the cache rows; device times summed;
 *                 its fused x column is its time over attn_input's;
 *   attn_copy     the copy ceiling's way over the q, k and v bytes (what
 *                 the stage reads and writes: q in place, k and v out).
 * attn_input's vs column is its GB/s over attn_copy's (the same bytes).
 * After the timed rows the two paths run from the same fresh inputs and
 * their q and caches must be equal byte for byte.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define AI_Q 32
#define AI_KV 8
#define AI_HD 128
#define AI_ROW ((AI_Q + 2 * AI_KV) * AI_HD) /* values per token: q | k | v */
#define AI_CPU_REPS 5

static const bench_shape ai_shapes[] = {{"decode", 64, 1}, {"mid", 4, 512}, {"prefill", 4, 2048}};
#define AI_N_SHAPES (sizeof ai_shapes / sizeof ai_shapes[0])

static const char ai_source[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "float ld1(__global const void *b, size_t i, int dt)\n"
    "{ return dt ? vload_half(i, (__global const half *)b) : ((__global const float *)b)[i]; }\n"
    "void st1(float x, __global void *b, size_t i, int dt)\n"
    "{ if (dt) vstore_half_rte(x, i, (__global half *)b); else ((__global float *)b)[i] = x; }\n"
    "/* Work-item (h, r): head h of token r's q | k heads normed in place. */\n"
    "__kernel void ai_norm(__global void *qkv, ulong stride, uint hd,\n"
    "                      __global const float *w, float eps, int dt)\n"
    "{\n"
    "    size_t o = get_global_id(1) * stride + get_global_id(0) * hd;\n"
    "    float2 lane[32], acc;\n"
    "    for (uint l = 0; l < 32; l++)\n"
    "        lane[l] = (float2)(0.0f);\n"
    "    for (uint c = 0; c < hd; c++)\n"
    "        lane[c % 32] = sinpe_norm_square(lane[c % 32], ld1(qkv, o + c, dt));\n"
    "    for (uint s = 16; s > 0; s /= 2)\n"
    "        for (uint l = 0; l < s; l++)\n"
    "            lane[l] = sinpe_norm_merge(lane[l], lane[l + s]);\n"
    "    acc = lane[0];\n"
    "    float2 s = sinpe_norm_scale(acc, hd, eps);\n"
    "    for (uint c = 0; c < hd; c++)\n"
    "        st1(sinpe_norm_value(ld1(qkv, o + c, dt), w[c], 1u, s), qkv, o + c, dt);\n"
    "}\n"
    "/* Work-item (c, r): column c of token r's k | v into its cache row. */\n"
    "__kernel void ai_cache(__global const void *qkv, ulong stride, ulong k_off, uint kvw,\n"
    "                       __global const int *slot, __global void *kc, __global void *vc,\n"
    "                       int dt)\n"
    "{\n"
    "    uint c = get_global_id(0), r = get_global_id(1);\n"
    "    int s = slot[r];\n"
    "    if (s < 0) return;\n"
    "    float x = ld1(qkv, r * stride + k_off + c, dt);\n"
    "    if (c < kvw) st1(x, kc, (size_t)s * kvw + c, dt);\n"
    "    else st1(x, vc, (size_t)s * kvw + c - kvw, dt);\n"
    "}\n";

typedef struct ai_run {
    bench_env *env;
    sinpe_table *table;
    cl_kernel norm, cache;
    cl_mem qkv, kc, vc, w, pos, slot, scratch;
    sinpe_dtype dt;
    size_t tokens, qkv_bytes, cache_bytes;
    sinpe_attn_input_args args;
    sinpe_rope_args rope;
} ai_run;

static int run_fused(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    ai_run *r = user;
    CHECK(sinpe_enqueue_attn_input(r->table, queue, &r->args, 0, NULL, &events[0]));
    *n_events = 1;
    return 0;
fail:
    return -1;
}

static int run_unfused(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    ai_run *r = user;
    cl_ulong stride = AI_ROW, k_off = AI_Q * AI_HD;
    cl_uint hd = AI_HD, kvw = AI_KV * AI_HD;
    cl_int dt = r->dt == SINPE_F16;
    float eps = 1e-6f;
    size_t gn[2] = {AI_Q + AI_KV, r->tokens}, gc[2] = {2 * AI_KV * AI_HD, r->tokens};
    CHECK(clSetKernelArg(r->norm, 0, sizeof r->qkv, &r->qkv));
    CHECK(clSetKernelArg(r->norm, 1, sizeof stride, &stride));
    CHECK(clSetKernelArg(r->norm, 2, sizeof hd, &hd));
    CHECK(clSetKernelArg(r->norm, 3, sizeof r->w, &r->w));
    CHECK(clSetKernelArg(r->norm, 4, sizeof eps, &eps));
    CHECK(clSetKernelArg(r->norm, 5, sizeof dt, &dt));
    CHECK(clSetKernelArg(r->cache, 0, sizeof r->qkv, &r->qkv));
    CHECK(clSetKernelArg(r->cache, 1, sizeof stride, &stride));
    CHECK(clSetKernelArg(r->cache, 2, sizeof k_off, &k_off));
    CHECK(clSetKernelArg(r->cache, 3, sizeof kvw, &kvw));
    CHECK(clSetKernelArg(r->cache, 4, sizeof r->slot, &r->slot));
    CHECK(clSetKernelArg(r->cache, 5, sizeof r->kc, &r->kc));
    CHECK(clSetKernelArg(r->cache, 6, sizeof r->vc, &r->vc));
    CHECK(clSetKernelArg(r->cache, 7, sizeof dt, &dt));
    CHECK(clEnqueueNDRangeKernel(queue, r->norm, 2, NULL, gn, NULL, 0, NULL, &events[0]));
    *n_events = 1;
    CHECK(sinpe_enqueue_rope(r->table, queue, &r->rope, 1, &events[0], &events[1]));
    *n_events = 2;
    CHECK(clEnqueueNDRangeKernel(queue, r->cache, 2, NULL, gc, NULL, 1, &events[1], &events[2]));
    *n_events = 3;
    return 0;
fail:
    return -1;
}

static int run_copy(void *user, cl_command_queue queue, cl_event *events, cl_uint *n_events)
{
    ai_run *r = user;
    if (bench_enqueue_copy(r->env, queue, r->qkv, r->scratch, r->qkv_bytes, &events[0]) != 0)
        return -1;
    *n_events = 1;
    return 0;
}

/* q (the packed rows) and both caches after one path from fresh inputs. */
static int outputs(ai_run *r, int fused, unsigned char *out)
{
    cl_event ev[3];
    cl_uint n = 0;
    int rc;
    if (bench_fill(r->env, r->qkv, r->qkv_bytes / bench_dtype_size(r->dt), 0xA77u, r->dt) != 0 ||
        bench_fill(r->env, r->kc, r->cache_bytes / bench_dtype_size(r->dt), 1u, r->dt) != 0 ||
        bench_fill(r->env, r->vc, r->cache_bytes / bench_dtype_size(r->dt), 2u, r->dt) != 0)
        return -1;
    rc = (fused ? run_fused : run_unfused)(r, r->env->queue, ev, &n);
    clFinish(r->env->queue);
    while (n > 0)
        clReleaseEvent(ev[--n]);
    if (rc != 0)
        return -1;
    CHECK(clEnqueueReadBuffer(r->env->queue, r->qkv, CL_TRUE, 0, r->qkv_bytes, out, 0, NULL,
                              NULL));
    CHECK(clEnqueueReadBuffer(r->env->queue, r->kc, CL_TRUE, 0, r->cache_bytes,
                              out + r->qkv_bytes, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(r->env->queue, r->vc, CL_TRUE, 0, r->cache_bytes,
                              out + r->qkv_bytes + r->cache_bytes, 0, NULL, NULL));
    return 0;
fail:
    return -1;
}

static int run_shape(ai_run *r, const bench_shape *sh, check_tally *tally)
{
    bench_env *env = r->env;
    size_t es = bench_dtype_size(r->dt);
    enum { FUSED, UNFUSED, COPY, N_ROWS };
    static const char *const names[N_ROWS] = {"attn_input", "attn_unfused", "attn_copy"};
    const bench_job jobs[N_ROWS] = {
        {run_fused, NULL, r, 0}, {run_unfused, NULL, r, 0}, {run_copy, NULL, r, 0}};
    bench_stats st[N_ROWS];
    bench_rounds rounds;
    bench_row row[N_ROWS];
    cl_int *pos = NULL, *slot = NULL, err;
    unsigned char *a = NULL, *b = NULL;
    uint64_t state = env->opts->seed ^ 0x41545431ull;

    r->tokens = sh->seqs * sh->seq_len;
    r->qkv_bytes = r->tokens * AI_ROW * es;
    r->cache_bytes = r->tokens * AI_KV * AI_HD * es;
    pos = malloc(r->tokens * sizeof *pos);
    slot = malloc(r->tokens * sizeof *slot);
    CHECK_AS("malloc (positions)", pos && slot ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    for (size_t t = 0; t < r->tokens; t++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        pos[t] = sh->seq_len > 1 ? (cl_int)(t % sh->seq_len) : (cl_int)((state >> 33) % 2048);
        slot[t] = (cl_int)((t * 7919u) % r->tokens); /* a permutation: tokens is even */
    }
    r->pos = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            r->tokens * 4, pos, &err);
    CHECK_AS("clCreateBuffer(positions)", err);
    r->slot = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             r->tokens * 4, slot, &err);
    CHECK_AS("clCreateBuffer(slots)", err);

    sinpe_attn_input_args *g = &r->args;
    sinpe_attn_input_args_init(g);
    g->n_seqs = sh->seqs, g->seq_len = sh->seq_len, g->head_dim = AI_HD, g->dtype = r->dt;
    g->q = g->k = g->v = r->qkv;
    g->q_stride = g->k_stride = g->v_stride = AI_ROW;
    g->k_offset = AI_Q * AI_HD, g->v_offset = (AI_Q + AI_KV) * AI_HD;
    g->q_heads = AI_Q, g->kv_heads = AI_KV;
    g->norm = SINPE_QK_NORM_RMS, g->eps = 1e-6, g->q_norm_weight = g->k_norm_weight = r->w;
    g->slot_mapping = r->slot, g->k_cache = r->kc, g->v_cache = r->vc;
    g->cache_rows = r->tokens, g->cache_dtype = r->dt, g->positions = r->pos;
    sinpe_rope_args_init(&r->rope);
    r->rope.n_seqs = sh->seqs, r->rope.seq_len = sh->seq_len, r->rope.head_dim = AI_HD;
    r->rope.dtype = r->dt, r->rope.q = r->rope.k = r->qkv;
    r->rope.q_stride = r->rope.k_stride = AI_ROW, r->rope.k_offset = AI_Q * AI_HD;
    r->rope.q_heads = AI_Q, r->rope.kv_heads = AI_KV, r->rope.positions = r->pos;
    if (bench_fill(env, r->qkv, r->qkv_bytes / es, 0xA77u, r->dt) != 0)
        goto fail;

    const bench_opts *saved = env->opts;
    bench_opts few = *saved;
    if (saved->reps == 0 && (env->device_type & CL_DEVICE_TYPE_CPU) && r->tokens > 64)
        few.reps = AI_CPU_REPS;
    env->opts = &few;
    int rc = bench_time_rounds(env, jobs, N_ROWS, st, &rounds);
    env->opts = saved;
    if (rc != 0)
        goto fail;
    for (int i = 0; i < N_ROWS; i++) {
        memset(&row[i], 0, sizeof row[i]);
        row[i].stats = st[i], row[i].name = names[i], row[i].positions = "explicit";
        row[i].shape = sh->name, row[i].dtype = bench_dtype_name(r->dt);
        row[i].path = "32q+8kv+norm", row[i].seqs = sh->seqs, row[i].seq_len = sh->seq_len;
        row[i].dim = AI_HD, row[i].distinct_positions = sh->seq_len > 1 ? sh->seq_len : r->tokens;
        row[i].bytes = 2.0 * (double)r->qkv_bytes; /* q, k, v read; q, k, v written */
        row[i].task_bytes = row[i].bytes;
    }
    /* The chain's own traffic: q and k twice more (norm, then rope). */
    row[UNFUSED].bytes += 2.0 * 2.0 * (double)r->qkv_bytes * (AI_Q + AI_KV) / (AI_Q + 2 * AI_KV);
    row[UNFUSED].speedup_device = bench_round_ratio(&rounds, UNFUSED, FUSED);
    row[UNFUSED].speedup_wall = st[UNFUSED].wall_us / st[FUSED].wall_us;
    row[FUSED].vs_copy = bench_round_ratio(&rounds, COPY, FUSED);
    for (int i = 0; i < N_ROWS; i++)
        bench_report_row(env, &row[i]);
    printf("attn_input %s %s: unfused / fused %.2fx (goal >= 1.5 at mid and prefill), "
           "copy / fused %.0f%% (goal >= 70%%)\n", sh->name, bench_dtype_name(r->dt),
           row[UNFUSED].speedup_device, 100.0 * row[FUSED].vs_copy);

    size_t all = r->qkv_bytes + 2 * r->cache_bytes, differ = 0;
    a = malloc(all);
    b = malloc(all);
    CHECK_AS("malloc (read-back)", a && b ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    if (outputs(r, 1, a) != 0 || outputs(r, 0, b) != 0)
        goto fail;
    /* q of each packed row and both caches (the chain also norms and
       rotates k in place in the packed rows; the stage only reads it). */
    for (size_t i = 0; i < all; i += es)
        if (i >= r->qkv_bytes || (i / es) % AI_ROW < AI_Q * AI_HD)
            differ += memcmp(a + i, b + i, es) != 0;
    tally->rope_runs++;
    tally->rope_bad += differ > 0;
    if (differ)
        printf("MISMATCH: attn_input and attn_unfused differ in %zu of %zu values (%s, %s)\n",
               differ, all / es, sh->name, bench_dtype_name(r->dt));
    free(a);
    free(b);
    free(pos);
    free(slot);
    clReleaseMemObject(r->pos);
    clReleaseMemObject(r->slot);
    return 0;
fail:
    free(a);
    free(b);
    free(pos);
    free(slot);
    if (r->pos)
        clReleaseMemObject(r->pos);
    if (r->slot)
        clReleaseMemObject(r->slot);
    return -1;
}

static void release(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

int bench_attn_cases(bench_env *env, check_tally *tally)
{
    static const sinpe_dtype types[2] = {SINPE_F32, SINPE_F16};
    size_t max_tokens = 4 * 2048, dev_len = 0;
    char *dev_text = NULL;
    const char *parts[2];
    cl_program program = NULL;
    sinpe_rope_spec spec;
    ai_run r;
    cl_int err;
    float w[AI_HD];

    memset(&r, 0, sizeof r);
    r.env = env;
    if (max_tokens * AI_ROW * sizeof(float) > env->max_alloc) {
        printf("attn_input cases skipped: q, k and v exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE\n");
        return 0;
    }
    CHECK(sinpe_device_source(env->ctx, NULL, 0, &dev_len));
    dev_text = malloc(dev_len + 1);
    CHECK_AS("malloc (device functions)", dev_text ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    CHECK(sinpe_device_source(env->ctx, dev_text, dev_len + 1, &dev_len));
    parts[0] = dev_text, parts[1] = ai_source;
    program = clCreateProgramWithSource(env->cl_ctx, 2, parts, NULL, &err);
    CHECK_AS("clCreateProgramWithSource(attn kernels)", err);
    CHECK(clBuildProgram(program, 1, &env->device, "-cl-std=CL1.2", NULL, NULL));
    r.norm = clCreateKernel(program, "ai_norm", &err);
    CHECK_AS("clCreateKernel(ai_norm)", err);
    r.cache = clCreateKernel(program, "ai_cache", &err);
    CHECK_AS("clCreateKernel(ai_cache)", err);
    sinpe_rope_spec_init(&spec, AI_HD);
    spec.base = 1000000.0;
    CHECK(sinpe_rope_table_create(env->ctx, &spec, 2048, &r.table));
    for (int i = 0; i < AI_HD; i++)
        w[i] = 0.75f + (float)i / 256.0f;
    r.w = clCreateBuffer(env->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof w, w,
                         &err);
    CHECK_AS("clCreateBuffer(norm weight)", err);
    for (int t = 0; t < 2; t++) {
        size_t es = bench_dtype_size(types[t]), qkv = max_tokens * AI_ROW * es;
        size_t cache = max_tokens * AI_KV * AI_HD * es;
        if (!(env->opts->dtypes & (1u << types[t])))
            continue;
        r.dt = types[t];
        if (bench_make_buffer(env, qkv, "clCreateBuffer(qkv)", &r.qkv) != 0 ||
            bench_make_buffer(env, qkv, "clCreateBuffer(copy scratch)", &r.scratch) != 0 ||
            bench_make_buffer(env, cache, "clCreateBuffer(k cache)", &r.kc) != 0 ||
            bench_make_buffer(env, cache, "clCreateBuffer(v cache)", &r.vc) != 0)
            goto fail;
        if (bench_fill(env, r.scratch, qkv / es, 9u, r.dt) != 0)
            goto fail;
        for (size_t i = 0; i < AI_N_SHAPES; i++)
            if (run_shape(&r, &ai_shapes[i], tally) != 0)
                goto fail;
        release(&r.qkv), release(&r.scratch), release(&r.kc), release(&r.vc);
    }
    release(&r.w);
    sinpe_table_release(r.table);
    clReleaseKernel(r.norm);
    clReleaseKernel(r.cache);
    clReleaseProgram(program);
    free(dev_text);
    return 0;
fail:
    release(&r.qkv), release(&r.scratch), release(&r.kc), release(&r.vc), release(&r.w);
    sinpe_table_release(r.table);
    if (r.norm)
        clReleaseKernel(r.norm);
    if (r.cache)
        clReleaseKernel(r.cache);
    if (program)
        clReleaseProgram(program);
    free(dev_text);
    return -1;
}
