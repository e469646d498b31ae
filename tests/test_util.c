/* test_util.c -- random numbers, the float64 reference and OpenCL helpers. */
#include "test_util.h"

#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t tu_seed;

/* ---- Random numbers ---- */

void tu_rng_init(tu_rng *rng, const char *salt)
{
    /* FNV-1a of the salt, mixed with the seed. */
    uint64_t h = 0xCBF29CE484222325ull;
    for (const char *s = salt ? salt : ""; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001B3ull;
    }
    rng->state = tu_seed ^ h;
    (void)ref_next(&rng->state);
}

tu_rng tu_rng_for(const char *salt)
{
    tu_rng rng;
    tu_rng_init(&rng, salt);
    return rng;
}

uint64_t tu_rng_next(tu_rng *rng)
{
    return ref_next(&rng->state);
}

double tu_rng_unit(tu_rng *rng)
{
    return ref_unit(&rng->state);
}

int32_t tu_rng_int(tu_rng *rng, int32_t lo, int32_t hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1u;
    return (int32_t)((int64_t)lo + (int64_t)(tu_rng_next(rng) % span));
}

float tu_rng_float(tu_rng *rng, float lo, float hi)
{
    return (float)((double)lo + ((double)hi - (double)lo) * tu_rng_unit(rng));
}

void tu_rng_ints(tu_rng *rng, int32_t *dst, size_t n, int32_t lo, int32_t hi)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = tu_rng_int(rng, lo, hi);
}

void tu_rng_floats(tu_rng *rng, float *dst, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = tu_rng_float(rng, lo, hi);
}

/* A random fp16 scale, finite: every exponent field, subnormals included. */
static uint16_t random_half(tu_rng *rng)
{
    uint16_t h = (uint16_t)tu_rng_int(rng, 0, 0xffff);
    return (h & 0x7c00) == 0x7c00 ? (uint16_t)(h ^ 0x4000) : h;
}

void tu_random_blocks(sinpe_dtype t, unsigned char *p, size_t n, tu_rng *rng)
{
    sinpe_dtype_info f;
    TU_OK(sinpe_dtype_query(t, &f, sizeof f));
    for (size_t b = 0; b < n; b++) {
        unsigned char *q = p + b * f.block_bytes;
        size_t at[2] = {0, 2};
        for (size_t k = 0; k < f.block_bytes; k++)
            q[k] = (unsigned char)tu_rng_int(rng, 0, 255);
        if (t == SINPE_Q6_K)
            at[0] = at[1] = 208;
        for (int k = 0; k < 2; k++) {
            uint16_t h = random_half(rng);
            q[at[k]] = (unsigned char)(h & 0xff);
            q[at[k] + 1] = (unsigned char)(h >> 8);
        }
    }
}

/* ---- float64 reference ---- */

double *tu_pe_rows(const sinpe_spec *spec, const int32_t *pos, int64_t first, size_t n)
{
    double *ref = tu_malloc(n * spec->dim * sizeof *ref);
    for (size_t i = 0; i < n; i++)
        tu_pe_row(spec, pos ? (double)pos[i] : (double)(first + (int64_t)i), ref + i * spec->dim);
    return ref;
}

sinpe_spec tu_spec_of(const tu_spec_row *row)
{
    return tu_spec(row->dim, row->layout, row->odd, row->shift, row->base, row->scale);
}

const char *tu_spec_str(const sinpe_spec *spec, char *buf, size_t size)
{
    static const char *const layouts[] = {"interleaved", "split_sin_cos", "split_cos_sin"};
    static const char *const odds[] = {"zero_last", "extra_sin", "error"};
    snprintf(buf, size, "dim=%zu layout=%s odd=%s shift=%g base=%g angle_scale=%g", spec->dim,
             (unsigned)spec->layout < 3 ? layouts[spec->layout] : "?",
             (unsigned)spec->odd_dim < 3 ? odds[spec->odd_dim] : "?", spec->shift, spec->base,
             spec->angle_scale);
    return buf;
}

void tu_ref_embed(const sinpe_spec *spec, size_t n_seqs, size_t seq_len, const int32_t *ids,
                  const float *weights, size_t weights_offset, size_t weights_stride,
                  size_t vocab, float token_scale, int32_t start, const int32_t *positions,
                  int with_emb, int with_pe, double *ref)
{
    sinpe_embed_args a = tu_args(n_seqs, seq_len, NULL, NULL, with_emb ? vocab : 0, NULL);
    a.weights_offset = weights_offset, a.weights_stride = weights_stride;
    a.token_scale = token_scale, a.start = start, a.skip_pe = !with_pe;
    a.positions = positions ? (cl_mem)(uintptr_t)1 : NULL; /* only tested for NULL */
    ref_inputs in = {spec, &a, ids, positions, NULL, NULL, weights, NULL, NULL};
    long bad;
    ref_embed(&in, REF_FUSED, ref, &bad);
}

/* ---- Comparisons and poison ---- */

float tu_poison(void)
{
    uint32_t bits = TU_POISON_BITS;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int tu_is_poison(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits == TU_POISON_BITS;
}

void tu_fill_poison(float *values, size_t n)
{
    float p = tu_poison();
    for (size_t i = 0; i < n; i++)
        values[i] = p;
}

void tu_check_rows(const float *got, size_t offset, size_t stride, size_t rows, size_t dim,
                   const double *ref, double abs_tol, double rel_tol, const char *what)
{
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < dim; c++) {
            double g = (double)got[offset + r * stride + c];
            double e = ref[r * dim + c];
            double tol = abs_tol + rel_tol * fabs(e);
            TU_CHECK(fabs(g - e) <= tol,
                     "%s: row %zu col %zu (element %zu): got %.9g, ref %.12g, "
                     "|diff| %.3g > tol %.3g",
                     what, r, c, offset + r * stride + c, g, e, fabs(g - e), tol);
        }
    }
}

void tu_check_layout(const float *buf, size_t n, size_t offset, size_t stride, size_t rows,
                     size_t dim, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        int inside = 0;
        if (i >= offset) {
            size_t j = i - offset;
            inside = j / stride < rows && j % stride < dim;
        }
        if (inside)
            TU_CHECK(!tu_is_poison(buf[i]), "%s: element %zu (row %zu col %zu) was never written",
                     what, i, (i - offset) / stride, (i - offset) % stride);
        else
            TU_CHECK(tu_is_poison(buf[i]),
                     "%s: element %zu outside the written rows was overwritten (now %.9g)", what,
                     i, (double)buf[i]);
    }
}

void tu_check_all_poison(const float *buf, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        TU_CHECK(tu_is_poison(buf[i]), "%s: element %zu was overwritten (now %.9g)", what, i,
                 (double)buf[i]);
}

/* ---- OpenCL helpers ---- */

TCase *tu_tcase(Suite *s, const char *name, const char *tags)
{
    TCase *tc = tcase_create(name);
    if (tags)
        tcase_set_tags(tc, tags);
    tcase_set_timeout(tc, tags && strstr(tags, "cold") ? TU_TIMEOUT_COLD : TU_TIMEOUT);
    if (s)
        suite_add_tcase(s, tc);
    return tc;
}

void tu_add_tests(TCase *tc, const TTest *const *tests, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tcase_add_test(tc, tests[i]);
}

sinpe_math tu_math(int i)
{
    return i ? SINPE_MATH_FP64 : SINPE_MATH_FLOAT;
}

sinpe_context *tu_context(sinpe_math math)
{
    sinpe_context_options options;
    sinpe_context *ctx = NULL;
    sinpe_context_options_init(&options);
    options.math = math;
    TU_OK(sinpe_context_create(&options, &ctx));
    ck_assert_msg(ctx != NULL, "sinpe_context_create succeeded with a NULL context");
    return ctx;
}

cl_command_queue tu_queue(sinpe_context *ctx)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(sinpe_context_cl_context(ctx),
                                              sinpe_context_device(ctx), 0, &err);
    ck_assert_msg(err == CL_SUCCESS && q != NULL, "clCreateCommandQueue failed: %d", (int)err);
    return q;
}

cl_mem tu_buffer(sinpe_context *ctx, size_t bytes, const void *host)
{
    cl_int err = CL_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    cl_mem m = clCreateBuffer(sinpe_context_cl_context(ctx), flags, bytes, (void *)host, &err);
    ck_assert_msg(err == CL_SUCCESS && m != NULL, "clCreateBuffer(%zu bytes) failed: %d", bytes,
                  (int)err);
    return m;
}

sinpe_embed_args tu_args(size_t n_seqs, size_t seq_len, cl_mem ids, cl_mem weights, size_t vocab,
                         cl_mem out)
{
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    a.n_seqs = n_seqs;
    a.seq_len = seq_len;
    a.ids = ids;
    a.weights = weights;
    a.vocab = vocab;
    a.out = out;
    return a;
}

sinpe_table *tu_table(sinpe_context *ctx, size_t dim, size_t rows)
{
    sinpe_spec spec;
    sinpe_spec_init(&spec, dim);
    return tu_table_of(ctx, &spec, rows);
}

sinpe_table *tu_table_of(sinpe_context *ctx, const sinpe_spec *spec, size_t rows)
{
    sinpe_table *table = NULL;
    TU_OK(sinpe_table_create(ctx, spec, rows, &table));
    return table;
}

sinpe_table *tu_preset_table(sinpe_context *ctx, sinpe_preset preset, size_t dim, size_t rows,
                             sinpe_spec *spec)
{
    sinpe_spec s;
    TU_OK(sinpe_spec_preset(&s, preset, dim));
    if (spec)
        *spec = s;
    return tu_table_of(ctx, &s, rows);
}

float *tu_pe_at(sinpe_context *ctx, sinpe_table *table, const int32_t *pos, size_t n, int fused)
{
    size_t dim = sinpe_table_spec(table).dim;
    cl_command_queue q = tu_queue(ctx);
    cl_mem w = fused ? tu_zero_buffer(ctx, dim) : NULL;
    cl_mem idm = fused ? tu_zero_buffer(ctx, n) : NULL; /* n int32 zeros: all ids 0 */
    cl_mem out = fused ? tu_poisoned_buffer(ctx, q, n * dim) : tu_zero_buffer(ctx, n * dim);
    cl_mem pm = tu_buffer(ctx, n * sizeof(int32_t), pos);
    sinpe_embed_args a = tu_args(1, n, idm, w, fused, out);
    a.positions = pm;
    TU_OK(fused ? sinpe_enqueue_embed(table, q, &a, 0, NULL, NULL)
                : sinpe_enqueue_add_positions(table, q, &a, 0, NULL, NULL));
    TU_CL(clFinish(q));
    float *got = tu_read_floats(q, out, n * dim);
    if (fused)
        tu_check_layout(got, n * dim, 0, dim, n, dim, "PE through the fused call");
    TU_RELEASE(NULL, q, NULL, w, idm, out, pm);
    return got;
}

void tu_check_context_works(sinpe_context *ctx)
{
    enum { DIM = 24, NS = 2, SL = 9, VOCAB = 11, N = NS * SL };
    sinpe_spec spec = tu_spec(DIM, SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1.0, 1e4, 1.0);
    int32_t ids[N];
    float w[VOCAB * DIM], out_host[N * DIM];
    double ref[N * DIM];
    tu_rng rng = tu_rng_for("check_context_works");
    tu_rng_ints(&rng, ids, N, 0, VOCAB - 1);
    tu_rng_floats(&rng, w, VOCAB * DIM, -1.0f, 1.0f);
    tu_ref_embed(&spec, NS, SL, ids, w, 0, DIM, VOCAB, 2.0f, 3, NULL, 1, 1, ref);
    sinpe_table *tab = tu_table_of(ctx, &spec, 4); /* later positions on the fly */

    tu_fill_poison(out_host, N * DIM);
    TU_OK(sinpe_embed_host(tab, ids, NS, SL, w, VOCAB, 2.0f, 3, NULL, out_host));
    tu_check_rows(out_host, 0, DIM, N, DIM, ref, TU_EMBED_TOL, TU_EMBED_TOL, "embed_host");

    cl_command_queue q = sinpe_context_queue(ctx);
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, N * DIM);
    sinpe_embed_args a = tu_args(NS, SL, ids_m, w_m, VOCAB, out_m);
    a.token_scale = 2.0f, a.start = 3;
    TU_OK(sinpe_enqueue_embed(tab, q, &a, 0, NULL, NULL));
    float *got = tu_read_floats(q, out_m, N * DIM);
    tu_check_rows(got, 0, DIM, N, DIM, ref, TU_EMBED_TOL, TU_EMBED_TOL,
                  "enqueue_embed on the context queue");
    free(got);
    TU_RELEASE(NULL, NULL, tab, ids_m, w_m, out_m);
}

void tu_release(sinpe_context *ctx, cl_command_queue queue, sinpe_table *table,
                const cl_mem *mems, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    sinpe_table_release(table);
    if (queue)
        clReleaseCommandQueue(queue);
    sinpe_context_release(ctx);
}

void tu_read(cl_command_queue queue, cl_mem mem, size_t offset, size_t bytes, void *dst)
{
    TU_CL(clEnqueueReadBuffer(queue, mem, CL_TRUE, offset, bytes, dst, 0, NULL, NULL));
}

void tu_write(cl_command_queue queue, cl_mem mem, size_t offset, size_t bytes, const void *src)
{
    TU_CL(clEnqueueWriteBuffer(queue, mem, CL_TRUE, offset, bytes, src, 0, NULL, NULL));
}

cl_mem tu_poisoned_buffer(sinpe_context *ctx, cl_command_queue queue, size_t n)
{
    float *host = tu_malloc(n * sizeof *host);
    tu_fill_poison(host, n);
    cl_mem m = tu_buffer(ctx, n * sizeof *host, NULL);
    tu_write(queue, m, 0, n * sizeof *host, host);
    free(host);
    return m;
}

cl_mem tu_zero_buffer(sinpe_context *ctx, size_t n)
{
    float *zeros = tu_malloc(n * sizeof *zeros);
    memset(zeros, 0, n * sizeof *zeros);
    cl_mem m = tu_buffer(ctx, n * sizeof *zeros, zeros);
    free(zeros);
    return m;
}

float *tu_read_floats(cl_command_queue queue, cl_mem mem, size_t n)
{
    float *host = tu_malloc(n * sizeof *host);
    tu_read(queue, mem, 0, n * sizeof *host, host);
    return host;
}

unsigned char *tu_call_bytes(sinpe_context *ctx, sinpe_table *table, cl_command_queue queue,
                             const sinpe_embed_args *args, int call, size_t bytes,
                             unsigned char poison)
{
    sinpe_embed_args a = *args;
    unsigned char *host = tu_malloc(bytes);
    a.out = tu_buffer(ctx, bytes, NULL);
    TU_CL(clEnqueueFillBuffer(queue, a.out, &poison, 1, 0, bytes, 0, NULL, NULL));
    if (call == 0) {
        TU_OK(sinpe_enqueue_embed(table, queue, &a, 0, NULL, NULL));
    } else {
        TU_OK(sinpe_enqueue_gather(table, queue, &a, 0, NULL, NULL));
        if (call == 2)
            TU_OK(sinpe_enqueue_add_positions(table, queue, &a, 0, NULL, NULL));
    }
    tu_read(queue, a.out, 0, bytes, host);
    clReleaseMemObject(a.out);
    return host;
}

void tu_expect_refused(sinpe_table *table, cl_command_queue queue, const sinpe_embed_args *a,
                       int gather, sinpe_status status, const char *words, const char *what)
{
    for (int call = 0; call <= gather; call++) {
        sinpe_status st = call ? sinpe_enqueue_gather(table, queue, a, 0, NULL, NULL)
                               : sinpe_enqueue_embed(table, queue, a, 0, NULL, NULL);
        ck_assert_msg(st == status, "%s: call %d returned %d (%s), expected %d; %s", what, call,
                      (int)st, sinpe_status_string(st), (int)status, sinpe_last_error());
        ck_assert_msg(strstr(sinpe_last_error(), words), "%s: message \"%s\" lacks \"%s\"",
                      what, sinpe_last_error(), words);
    }
}

cl_event tu_complete_event(cl_context clctx)
{
    cl_int err;
    cl_event ev = clCreateUserEvent(clctx, &err);
    ck_assert_msg(err == CL_SUCCESS && ev != NULL, "clCreateUserEvent failed: %d", (int)err);
    TU_CL(clSetUserEventStatus(ev, CL_COMPLETE));
    return ev;
}

cl_context tu_other_cl_context(sinpe_context *ctx)
{
    return tu_cl_context(sinpe_context_device(ctx));
}

cl_context tu_cl_context(cl_device_id dev)
{
    cl_platform_id plat = NULL;
    cl_int err;
    TU_CL(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_context other = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    ck_assert_msg(err == CL_SUCCESS && other != NULL, "clCreateContext failed: %d", (int)err);
    return other;
}

cl_program tu_device_program(sinpe_context *ctx, const char *extra, const char *options,
                             const char *what)
{
    size_t len = 0, more = extra ? strlen(extra) : 0;
    TU_OK(sinpe_device_source(ctx, NULL, 0, &len));
    char *text = tu_malloc(len + more + 1);
    TU_OK(sinpe_device_source(ctx, text, len + 1, &len));
    ck_assert_uint_eq(strlen(text), len);
    if (extra)
        memcpy(text + len, extra, more + 1);
    cl_int err;
    cl_device_id dev = sinpe_context_device(ctx);
    const char *src = text;
    cl_program prog = clCreateProgramWithSource(sinpe_context_cl_context(ctx), 1, &src, NULL, &err);
    free(text);
    TU_CL(err);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        ck_abort_msg("%s: build failed (%d): %s", what, (int)err, log);
    }
    return prog;
}

void tu_kernel_args(cl_kernel k, int n, const void *const *vals, const size_t *sizes)
{
    for (int i = 0; i < n; i++)
        TU_CL(clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]));
}

/* tu_rope_probe's kernel: pair k of token t at its lane's position. */
static const char rope_probe_src[] =
    "kernel void probe(global const float *tab, int rows, global const float *consts,\n"
    "                  uint rot, uint axes, uint4 sec, global const int *pl, global float *cs)\n"
    "{\n"
    "    uint t = get_global_id(0), k = get_global_id(1);\n"
    "    float2 v = sinpe_rope_cos_sin(tab, rows, consts, rot, 0,\n"
    "                                  pl[4 * t + sinpe_rope_lane(axes, sec, k)], k);\n"
    "    cs[t * rot + k] = v.x;\n"
    "    cs[t * rot + rot / 2 + k] = v.y;\n"
    "}\n";

float *tu_rope_probe(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, cl_uint rot,
                     cl_uint axes, const cl_uint sec[4], const int32_t *pl, size_t n)
{
    cl_program prog = tu_device_program(ctx, rope_probe_src, "-cl-std=CL1.2", "device functions");
    cl_mem tm, consts, plm = tu_buffer(ctx, 4 * n * sizeof *pl, pl);
    cl_mem out = tu_poisoned_buffer(ctx, q, n * rot);
    size_t rows;
    TU_OK(sinpe_table_borrow(tab, &tm, &rows));
    TU_OK(sinpe_table_constants(tab, &consts));
    cl_int err, irows = (cl_int)rows;
    cl_kernel k = clCreateKernel(prog, "probe", &err);
    TU_CL(err);
    const void *vals[] = {&tm, &irows, &consts, &rot, &axes, sec, &plm, &out};
    const size_t sizes[] = {sizeof tm,   sizeof irows,    sizeof consts, sizeof rot,
                            sizeof axes, 4 * sizeof *sec, sizeof plm,    sizeof out};
    tu_kernel_args(k, 8, vals, sizes);
    size_t gws[2] = {n, rot / 2};
    TU_CL(clEnqueueNDRangeKernel(q, k, 2, NULL, gws, NULL, 0, NULL, NULL));
    float *cs = tu_read_floats(q, out, n * rot);
    clReleaseKernel(k), clReleaseProgram(prog);
    TU_RELEASE(NULL, NULL, NULL, tm, consts, plm, out);
    return cs;
}

cl_ulong tu_max_alloc(sinpe_context *ctx)
{
    cl_ulong v = 0;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v, &v,
                          NULL));
    return v;
}

int tu_device_has_fp64(cl_device_id device)
{
    size_t n = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return 0;
    char *ext = tu_malloc(n + 1);
    int has = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, n, ext, NULL) == CL_SUCCESS) {
        ext[n] = '\0';
        has = strstr(ext, "cl_khr_fp64") != NULL;
    }
    free(ext);
    return has;
}

int tu_contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *h = haystack; *h; h++)
        if (strncasecmp(h, needle, n) == 0)
            return 1;
    return n == 0;
}

void tu_sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

void *tu_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "out of host memory (%zu bytes)", bytes);
    return p;
}

void tu_free(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

char *tu_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_msg(n >= 0, "ftell(%s) failed", path);
    rewind(f);
    char *buf = tu_malloc((size_t)n + 1);
    buf[fread(buf, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return buf;
}

void tu_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    ck_assert_int_eq(fclose(f), 0);
}

void tu_temp_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    size_t n = strlen(text);
    ck_assert_msg(fd >= 0 && write(fd, text, n) == (ssize_t)n, "cannot write %s", path);
    close(fd);
}

void tu_env_save(const char *const *names, size_t n, char **saved)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
}

void tu_env_restore(const char *const *names, size_t n, char **saved)
{
    for (size_t i = 0; i < n; i++) {
        if (saved[i])
            setenv(names[i], saved[i], 1);
        else
            unsetenv(names[i]);
        free(saved[i]);
        saved[i] = NULL;
    }
}

void tu_scratch_dir(char *buf, size_t size, const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/%sXXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp(%s): %s", buf, strerror(errno));
}

void tu_remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char sub[1024];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            tu_remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

void tu_pin_pocl_cache(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[1024];
    struct stat sb;
    if (getenv("POCL_CACHE_DIR"))
        return;
    if (xdg && *xdg && stat(xdg, &sb) == 0)
        snprintf(dir, sizeof dir, "%s/pocl/kcache", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/pocl/kcache", home);
    else
        return;
    setenv("POCL_CACHE_DIR", dir, 1);
}

/* ---- Shared by several suites ---- */

const tu_embed_call tu_embed_calls[3] = {sinpe_enqueue_embed, sinpe_enqueue_gather,
                                         sinpe_enqueue_add_positions};
const char *const tu_embed_call_names[3] = {"embed", "gather", "add_positions"};

int tu_same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

void tu_check_buffer_poison(cl_command_queue queue, cl_mem mem, size_t n, const char *what)
{
    TU_CL(clFinish(queue));
    float *got = tu_read_floats(queue, mem, n);
    tu_check_all_poison(got, n, what);
    free(got);
}

float *tu_table_read(sinpe_table *table, cl_command_queue queue, size_t rows)
{
    cl_mem mem = NULL;
    size_t held = 0;
    TU_OK(sinpe_table_borrow(table, &mem, &held));
    ck_assert_msg(held >= rows, "the table holds %zu rows, %zu wanted", held, rows);
    float *got = tu_read_floats(queue, mem, rows * sinpe_table_spec(table).dim);
    clReleaseMemObject(mem);
    return got;
}
