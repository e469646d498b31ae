/*
 * grid.c -- the 2-D sincos encoding of a patch grid added onto patch
 * embeddings in place (sinpe_enqueue_grid(), add), at a DiT-XL/2 shape
 * (32 images of 16 x 16 patches, width 1152) and an SD3 one (64 x 64
 * patches cropped from 192, width 1536), against:
 *   grid_plain   the same bytes' plain add of a precomputed encoding (a
 *                bench kernel: x += table[token's patch], the table written
 *                by sinpe once, outside the timing), what hosts do today,
 *                sixteen values at a time and the row a work-item on CPUs
 *                (one value a work-item, pocl ran the fp16 add 10 to 25x
 *                slower);
 *   grid_engine  the add computing as the frameworks' float32 code would on
 *                the device: float32 positions and frequencies, a float32
 *                angle, the device's sin and cos (the cost of exactness).
 * Rows timed in interleaved rounds; fused x is each row's time over
 * grid_add's.  grid_add is bracketed (bench_job): its call enqueues up to
 * three kernels and returns the last one's event (DiT's batch, after the
 * first call, the add alone: the table keeps the image's encoding, as
 * through a diffusion loop's steps).
 * Check: grid_add equals x + the encoding byte for byte (the plain add in
 * float32, one rounding), on fresh inputs.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static const char grid_source[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "float ld(__global const void *b, size_t i, int dt)\n"
    "{\n"
    "    if (dt == 0) return ((__global const float *)b)[i];\n"
    "    if (dt == 1) return vload_half(0, (__global const half *)b + i);\n"
    "    return as_float((uint)((__global const ushort *)b)[i] << 16);\n"
    "}\n"
    "void st(float v, __global void *b, size_t i, int dt)\n"
    "{\n"
    "    if (dt == 0) { ((__global float *)b)[i] = v; return; }\n"
    "    if (dt == 1) { vstore_half_rte(v, 0, (__global half *)b + i); return; }\n"
    "    uint u = as_uint(v);\n"
    "    ((__global ushort *)b)[i] = (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);\n"
    "}\n"
    "float16 ld16(__global const void *b, size_t i, int dt)\n"
    "{\n"
    "    if (dt == 0) return vload16(0, (__global const float *)b + i);\n"
    "    if (dt == 1) return vload_half16(0, (__global const half *)b + i);\n"
    "    return as_float16(convert_uint16(vload16(0, (__global const ushort *)b + i)) << 16);\n"
    "}\n"
    "void st16(float16 v, __global void *b, size_t i, int dt)\n"
    "{\n"
    "    if (dt == 0) { vstore16(v, 0, (__global float *)b + i); return; }\n"
    "    if (dt == 1) { vstore_half16_rte(v, 0, (__global half *)b + i); return; }\n"
    "    uint16 u = as_uint16(v);\n"
    "    u = (u + (uint16)(0x7FFFu) + ((u >> 16) & (uint16)(1u))) >> 16;\n"
    "    vstore16(convert_ushort16(u), 0, (__global ushort *)b + i);\n"
    "}\n"
    "#define KERNELS(T, DT)                                                        \\\n"
    "__kernel void grid_plain_##T(__global void *x, __global const float *tab,   \\\n"
    "                             uint D, uint per, uint span)                   \\\n"
    "{                                                                           \\\n"
    "    uint c = 16 * span * get_global_id(0), r = get_global_id(1);            \\\n"
    "    size_t i = (size_t)r * D, t = (size_t)(r % per) * D;                    \\\n"
    "    for (uint e = min(c + 16 * span, D); c < e; c += 16)                    \\\n"
    "        st16(ld16(x, i + c, DT) + vload16(0, tab + t + c), x, i + c, DT);   \\\n"
    "}                                                                           \\\n"
    "__kernel void grid_engine_##T(__global void *x, uint D, uint per, uint cols,\\\n"
    "                              uint top, uint left, float s1, float s2)       \\\n"
    "{                                                                           \\\n"
    "    uint c = get_global_id(0), r = get_global_id(1), g = r % per, d = D / 2; \\\n"
    "    uint k = c % d, is_col = c < d, q = d / 2;                               \\\n"
    "    float p = (float)(is_col ? g % cols + left : g / cols + top) / s1 / s2;  \\\n"
    "    float a = p * (1.0f / pow(10000.0f, (float)(k % q) / (float)q));        \\\n"
    "    size_t i = (size_t)r * D + c;                                           \\\n"
    "    st(ld(x, i, DT) + (k < q ? sin(a) : cos(a)), x, i, DT);                  \\\n"
    "}\n"
    "KERNELS(f32, 0)\n"
    "KERNELS(f16, 1)\n"
    "KERNELS(bf16, 2)\n";

typedef struct {
    const char *name;
    size_t images, side, max_size, D;
    double base;
} grid_shape;

static const grid_shape shapes[] = {
    {"dit-xl", 32, 16, 0, 1152, 16.0},
    {"sd3", 1, 64, 192, 1536, 64.0},
};

typedef struct {
    bench_env *env;
    sinpe_table *table;
    sinpe_grid_args args;
    cl_kernel plain, engine;
    cl_mem x, tab, scratch;
    size_t D, per, tokens;
    cl_uint cols, top, left, span;
    float s1;
} grid_run;

static int run_grid(void *user, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    grid_run *g = user;
    CHECK(sinpe_enqueue_grid(g->table, q, &g->args, 0, NULL, &ev[0]));
    *n = 1;
    return 0;
fail:
    return -1;
}

/* The plain add's range: sixteen columns (D a multiple of 16) a span, a
   span a work-item: the whole row on a CPU, as sinpe_enqueue_grid()
   shapes its own add; the engines' kernel, one value a work-item. */
static int run_kernel(grid_run *g, cl_kernel k, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    size_t gws[2] = {k == g->plain ? g->D / 16 / g->span : g->D, g->tokens};
    CHECK(clEnqueueNDRangeKernel(q, k, 2, NULL, gws, NULL, 0, NULL, &ev[0]));
    *n = 1;
    return 0;
fail:
    return -1;
}

static int run_plain(void *user, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    grid_run *g = user;
    return run_kernel(g, g->plain, q, ev, n);
}

static int run_engine(void *user, cl_command_queue q, cl_event *ev, cl_uint *n)
{
    grid_run *g = user;
    return run_kernel(g, g->engine, q, ev, n);
}

/* One shape in one type: the encoding table (once), the three rows, the check. */
static int run_shape(grid_run *g, const grid_shape *sh, sinpe_dtype dt, cl_program prog,
                     check_tally *tally)
{
    static const char *const plain_names[3] = {"grid_plain_f32", "grid_plain_f16",
                                               "grid_plain_bf16"};
    static const char *const engine_names[3] = {"grid_engine_f32", "grid_engine_f16",
                                                "grid_engine_bf16"};
    bench_env *env = g->env;
    size_t es = bench_dtype_size(dt), n = g->tokens * g->D;
    cl_uint D = (cl_uint)g->D, per = (cl_uint)g->per;
    float s2 = 1.0f;
    cl_int err;
    int rc = -1;
    unsigned char *a = NULL, *b = NULL;

    g->plain = clCreateKernel(prog, plain_names[dt], &err);
    CHECK_AS("clCreateKernel(grid_plain)", err);
    g->engine = clCreateKernel(prog, engine_names[dt], &err);
    CHECK_AS("clCreateKernel(grid_engine)", err);
    if (bench_make_buffer(env, n * es, "clCreateBuffer(patches)", &g->x) != 0 ||
        bench_make_buffer(env, n * es, "clCreateBuffer(patches, check)", &g->scratch) != 0 ||
        bench_fill(env, g->x, n, 0x6121u, dt) != 0)
        goto fail;
    g->args.dtype = dt;
    g->args.out = g->x;
    CHECK(clSetKernelArg(g->plain, 0, sizeof g->x, &g->x));
    CHECK(clSetKernelArg(g->plain, 1, sizeof g->tab, &g->tab));
    CHECK(clSetKernelArg(g->plain, 2, sizeof D, &D));
    CHECK(clSetKernelArg(g->plain, 3, sizeof per, &per));
    CHECK(clSetKernelArg(g->plain, 4, sizeof g->span, &g->span));
    const void *ev[] = {&g->x, &D, &per, &g->cols, &g->top, &g->left, &g->s1, &s2};
    const size_t es_[] = {sizeof g->x, 4, 4, 4, 4, 4, 4, 4};
    for (cl_uint i = 0; i < 8; i++)
        CHECK(clSetKernelArg(g->engine, i, es_[i], ev[i]));

    enum { ADD, PLAIN, ENGINE, N_ROWS };
    static const char *const names[N_ROWS] = {"grid_add", "grid_plain", "grid_engine"};
    const bench_job jobs[N_ROWS] = {{run_grid, NULL, g, 1}, {run_plain, NULL, g, 0},
                                    {run_engine, NULL, g, 0}};
    bench_stats st[N_ROWS];
    bench_rounds rounds;
    if (bench_time_rounds(env, jobs, N_ROWS, st, &rounds) != 0)
        goto fail;
    for (int i = 0; i < N_ROWS; i++) {
        bench_row row;
        memset(&row, 0, sizeof row);
        row.stats = st[i];
        row.name = names[i];
        row.positions = "implicit";
        row.shape = sh->name;
        row.dtype = bench_dtype_name(dt);
        row.seqs = sh->images;
        row.seq_len = g->per;
        row.dim = g->D;
        row.bytes = row.task_bytes = 2.0 * (double)(n * es); /* read and written */
        if (i != ADD) {
            row.speedup_device = bench_round_ratio(&rounds, i, ADD);
            row.speedup_wall = st[i].wall_us / st[ADD].wall_us;
        }
        bench_report_row(env, &row);
    }

    /* grid_add and the plain add from the same fresh patches: equal bytes. */
    a = malloc(n * es);
    b = malloc(n * es);
    CHECK_AS("malloc (grid check)", a && b ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    if (bench_fill(env, g->x, n, 0x6122u, dt) != 0 ||
        bench_fill(env, g->scratch, n, 0x6122u, dt) != 0)
        goto fail;
    CHECK(sinpe_enqueue_grid(g->table, env->queue, &g->args, 0, NULL, NULL));
    CHECK(clSetKernelArg(g->plain, 0, sizeof g->scratch, &g->scratch));
    {
        size_t gws[2] = {g->D / 16 / g->span, g->tokens};
        CHECK(clEnqueueNDRangeKernel(env->queue, g->plain, 2, NULL, gws, NULL, 0, NULL, NULL));
    }
    CHECK(clEnqueueReadBuffer(env->queue, g->x, CL_TRUE, 0, n * es, a, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(env->queue, g->scratch, CL_TRUE, 0, n * es, b, 0, NULL, NULL));
    tally->grid_runs++;
    if (memcmp(a, b, n * es) != 0) {
        tally->grid_bad++;
        printf("MISMATCH: grid_add and the plain add of its encoding differ (%s, %s)\n",
               sh->name, bench_dtype_name(dt));
    }
    rc = 0;
fail:
    free(a);
    free(b);
    if (g->plain)
        clReleaseKernel(g->plain);
    if (g->engine)
        clReleaseKernel(g->engine);
    if (g->x)
        clReleaseMemObject(g->x);
    if (g->scratch)
        clReleaseMemObject(g->scratch);
    g->plain = g->engine = NULL;
    g->x = g->scratch = NULL;
    return rc;
}

int bench_grid_cases(bench_env *env, check_tally *tally)
{
    sinpe_spec spec;
    cl_program prog = NULL;
    cl_int err;
    int rc = -1;
    const char *src = grid_source;

    prog = clCreateProgramWithSource(env->cl_ctx, 1, &src, NULL, &err);
    CHECK_AS("clCreateProgramWithSource(grid kernels)", err);
    CHECK(clBuildProgram(prog, 1, &env->device, "-cl-std=CL1.2", NULL, NULL));
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const grid_shape *sh = &shapes[s];
        grid_run g;
        memset(&g, 0, sizeof g);
        g.env = env;
        g.D = sh->D;
        g.span = env->device_type & CL_DEVICE_TYPE_CPU ? (cl_uint)(sh->D / 16) : 1;
        g.per = sh->side * sh->side;
        g.tokens = sh->images * g.per;
        size_t G = sh->max_size ? sh->max_size : sh->side;
        g.cols = (cl_uint)sh->side;
        g.top = g.left = (cl_uint)((G - sh->side) / 2);
        g.s1 = (float)((double)G / sh->base);
        CHECK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, sh->D / 2));
        CHECK(sinpe_table_create(env->ctx, &spec, 0, &g.table));
        sinpe_grid_args_init(&g.args);
        g.args.n_seqs = sh->images, g.args.rows = g.args.cols = sh->side;
        g.args.base_size = sh->base, g.args.max_size = sh->max_size, g.args.add = 1;
        /* The plain add's table: one image's encoding, written once. */
        if (bench_make_buffer(env, g.per * g.D * 4, "clCreateBuffer(grid table)", &g.tab) != 0)
            goto shape_fail;
        {
            sinpe_grid_args w = g.args;
            w.n_seqs = 1, w.add = 0, w.dtype = SINPE_F32, w.out = g.tab;
            CHECK(sinpe_enqueue_grid(g.table, env->queue, &w, 0, NULL, NULL));
        }
        for (int t = 0; t < 3; t++)
            if ((env->opts->dtypes & (1u << t)) && run_shape(&g, sh, (sinpe_dtype)t, prog, tally))
                goto shape_fail;
        clReleaseMemObject(g.tab);
        sinpe_table_release(g.table);
        continue;
    shape_fail:
        if (g.tab)
            clReleaseMemObject(g.tab);
        sinpe_table_release(g.table);
        goto fail;
    }
    rc = 0;
fail:
    if (prog)
        clReleaseProgram(prog);
    return rc;
}
