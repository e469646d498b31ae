/*
 * prenorm_demo.c -- the host's own one-launch embedding + LayerNorm
 * (examples/prenorm.cl) on sinpe's device functions, built only from the
 * installed header and pkg-config:
 *
 *     cc prenorm_demo.c $(pkg-config --cflags --libs sinpe) -lm -o prenorm_demo
 *     ./prenorm_demo path/to/prenorm.cl
 *
 * The paper's encoding at d = 256 from a table of 8 rows, for tokens at
 * positions inside it, past it and near 2^31 (computed on the fly).  The
 * program checks the pre-norm sums x = sqrt(d) E[id] + PE(p) against a
 * float64 evaluation of the paper's formula and against
 * sinpe_enqueue_embed() (bit for bit: the same float32 operations), and
 * the LayerNorm output y against float64 LayerNorm of the float64 x.
 * sinpe picks the device (SINPE_DEVICE, else the best one) and makes the
 * context; the host's program goes into that context.
 * Exit status 0 when every check holds.
 */
#include <sinpe.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIM = 256, VOCAB = 40, TOKENS = 12, GROUP = 64 }; /* GROUP: prenorm.cl's default */

#define CHECK(call)                                                                     \
    do {                                                                                \
        sinpe_status s_ = (call);                                                       \
        if (s_ != SINPE_SUCCESS) {                                                      \
            fprintf(stderr, "%s: %s (%s)\n", #call, sinpe_status_string(s_),            \
                    sinpe_last_error());                                                \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

#define CL_CHECK(what, err)                                                             \
    do {                                                                                \
        if ((err) != CL_SUCCESS) {                                                      \
            fprintf(stderr, "%s failed: OpenCL error %d\n", (what), (int)(err));        \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL)
        text[fread(text, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return text;
}

/* The paper's PE in float64: columns 2k and 2k + 1 hold sin and cos of
   p * 10000^(-2k / d). */
static double paper_pe(int p, int c)
{
    double w = pow(10000.0, -(double)(c / 2 * 2) / DIM);
    return c % 2 ? cos(p * w) : sin(p * w);
}

int main(int argc, char **argv)
{
    const char *cl_path = argc > 1 ? argv[1] : "prenorm.cl";

    sinpe_context *ctx;
    sinpe_table *table;
    sinpe_spec spec;
    cl_int err;
    /* sinpe picks the device (SINPE_DEVICE, else the best one); the
       program's own kernels go into the context sinpe made there. */
    CHECK(sinpe_context_create(NULL, &ctx));
    cl_context cl = sinpe_context_cl_context(ctx);
    cl_device_id device = sinpe_context_device(ctx);
    cl_command_queue queue = clCreateCommandQueue(cl, device, 0, &err);
    CL_CHECK("clCreateCommandQueue", err);
    {
        cl_platform_id platform;
        char pname[256] = "", dname[256] = "";
        clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
        printf("device: %s / %s\n", pname, dname);
    }
    sinpe_spec_init(&spec, DIM);
    CHECK(sinpe_table_create(ctx, &spec, 8, &table));

    /* sinpe's device functions, then the example. */
    size_t dev_len = 0;
    CHECK(sinpe_device_source(ctx, NULL, 0, &dev_len));
    char *own = read_text(cl_path), *source = malloc(dev_len + 1);
    if (!own || !source) {
        fprintf(stderr, "cannot read %s\n", cl_path);
        return 1;
    }
    CHECK(sinpe_device_source(ctx, source, dev_len + 1, &dev_len));
    const char *parts[2] = {source, own};
    cl_program prog = clCreateProgramWithSource(cl, 2, parts, NULL, &err);
    CL_CHECK("clCreateProgramWithSource", err);
    err = clBuildProgram(prog, 1, &device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "%s: build failed:\n%s\n", cl_path, log);
        return 1;
    }
    cl_kernel kern = clCreateKernel(prog, "prenorm_embed_ln", &err);
    CL_CHECK("clCreateKernel(prenorm_embed_ln)", err);

    /* Inputs: ids, positions in three places, weights, gamma and beta. */
    static float E[VOCAB * DIM], gamma[DIM], beta[DIM], x[TOKENS * DIM], y[TOKENS * DIM];
    static float x_sinpe[TOKENS * DIM];
    int32_t ids[TOKENS], pos[TOKENS];
    uint32_t state = 2024u;
    for (int i = 0; i < VOCAB * DIM; i++) {
        state = state * 1664525u + 1013904223u;
        E[i] = (float)(state >> 8) / 8388608.0f - 1.0f;
    }
    for (int c = 0; c < DIM; c++) {
        gamma[c] = 1.0f + (float)(c % 7) / 16.0f;
        beta[c] = (float)(c % 5) / 8.0f - 0.25f;
    }
    for (int r = 0; r < TOKENS; r++) {
        ids[r] = (r * 13 + 5) % VOCAB;
        pos[r] = r < 4 ? r + 2 : r < 8 ? 4000 + r : 2147483600 + r;
    }
    float scale = sqrtf((float)DIM), eps = 1e-5f;
    cl_mem ids_m = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof ids, ids, &err);
    cl_mem pos_m = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof pos, pos, &err);
    cl_mem E_m = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof E, E, &err);
    cl_mem g_m = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof gamma, gamma, &err);
    cl_mem b_m = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof beta, beta, &err);
    cl_mem x_m = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    cl_mem y_m = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof y, NULL, &err);
    cl_mem xs_m = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    CL_CHECK("clCreateBuffer", err);
    float poison = NAN;
    clEnqueueFillBuffer(queue, x_m, &poison, sizeof poison, 0, sizeof x, 0, NULL, NULL);
    clEnqueueFillBuffer(queue, y_m, &poison, sizeof poison, 0, sizeof y, 0, NULL, NULL);

    cl_mem tab, consts;
    size_t rows;
    CHECK(sinpe_table_borrow(table, &tab, &rows));
    CHECK(sinpe_table_constants(table, &consts));
    cl_int rows_i = (cl_int)rows;
    cl_uint dim = DIM;
    err = clSetKernelArg(kern, 0, sizeof ids_m, &ids_m);
    err |= clSetKernelArg(kern, 1, sizeof pos_m, &pos_m);
    err |= clSetKernelArg(kern, 2, sizeof E_m, &E_m);
    err |= clSetKernelArg(kern, 3, sizeof scale, &scale);
    err |= clSetKernelArg(kern, 4, sizeof tab, &tab);
    err |= clSetKernelArg(kern, 5, sizeof rows_i, &rows_i);
    err |= clSetKernelArg(kern, 6, sizeof consts, &consts);
    err |= clSetKernelArg(kern, 7, sizeof dim, &dim);
    err |= clSetKernelArg(kern, 8, sizeof g_m, &g_m);
    err |= clSetKernelArg(kern, 9, sizeof b_m, &b_m);
    err |= clSetKernelArg(kern, 10, sizeof eps, &eps);
    err |= clSetKernelArg(kern, 11, sizeof x_m, &x_m);
    err |= clSetKernelArg(kern, 12, sizeof y_m, &y_m);
    err |= clSetKernelArg(kern, 13, DIM * sizeof(float), NULL);
    err |= clSetKernelArg(kern, 14, GROUP * sizeof(float), NULL);
    CL_CHECK("clSetKernelArg", err);
    size_t global = (size_t)TOKENS * GROUP, local = GROUP;
    err = clEnqueueNDRangeKernel(queue, kern, 1, NULL, &global, &local, 0, NULL, NULL);
    CL_CHECK("clEnqueueNDRangeKernel(prenorm_embed_ln)", err);

    /* sinpe's own call on the same inputs, for the pre-norm sums. */
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    a.n_seqs = 1;
    a.seq_len = TOKENS;
    a.ids = ids_m;
    a.weights = E_m;
    a.vocab = VOCAB;
    a.out = xs_m;
    a.token_scale = scale;
    a.positions = pos_m;
    CHECK(sinpe_enqueue_embed(table, queue, &a, 0, NULL, NULL));
    err = clEnqueueReadBuffer(queue, x_m, CL_FALSE, 0, sizeof x, x, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, xs_m, CL_FALSE, 0, sizeof x_sinpe, x_sinpe, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, y_m, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
    CL_CHECK("clEnqueueReadBuffer", err);

    /* float64: x within float32 rounding of |sqrt(d) e| plus the encoding's
       bound (1.5e-7 + 2^-53 p, w_0 = 1; 2^-51 p here, as
       this w_k is pow()'s, not sinpe's own double); y within 1e-5 (1 + |y|). */
    int x_bad = 0, y_bad = 0, differ = 0;
    double x_worst = 0.0, y_worst = 0.0;
    for (int r = 0; r < TOKENS; r++) {
        double xr[DIM], mean = 0.0, var = 0.0;
        for (int c = 0; c < DIM; c++) {
            double se = (double)scale * E[ids[r] * DIM + c];
            xr[c] = se + paper_pe(pos[r], c);
            double tol = ldexp(fabs(se) + fabs(xr[c]), -24) + 1.5e-7 + ldexp(pos[r], -51);
            double e = fabs(x[r * DIM + c] - xr[c]) / tol;
            x_worst = e > x_worst ? e : x_worst;
            x_bad += !(e <= 1.0);
            differ += memcmp(&x[r * DIM + c], &x_sinpe[r * DIM + c], sizeof(float)) != 0;
            mean += xr[c];
        }
        mean /= DIM;
        for (int c = 0; c < DIM; c++)
            var += (xr[c] - mean) * (xr[c] - mean);
        double inv = 1.0 / sqrt(var / DIM + (double)eps);
        for (int c = 0; c < DIM; c++) {
            double yr = (xr[c] - mean) * inv * gamma[c] + beta[c];
            double e = fabs(y[r * DIM + c] - yr) / (1e-5 * (1.0 + fabs(yr)));
            y_worst = e > y_worst ? e : y_worst;
            y_bad += !(e <= 1.0);
        }
    }
    printf("sinpe %s, embedding + LayerNorm in the host's kernel (d %d, table rows %zu, "
           "positions up to %d):\n"
           "  x vs sinpe_enqueue_embed: %d of %d values differ\n"
           "  vs float64: x at most %.2f of its bound (%d beyond), y at most %.2f of "
           "1e-5 (1 + |y|) (%d beyond)\n",
           sinpe_version_string(), DIM, rows, pos[TOKENS - 1], differ, TOKENS * DIM, x_worst,
           x_bad, y_worst, y_bad);

    clReleaseMemObject(tab);
    clReleaseMemObject(consts);
    cl_mem mems[] = {ids_m, pos_m, E_m, g_m, b_m, x_m, y_m, xs_m};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        clReleaseMemObject(mems[i]);
    clReleaseKernel(kern);
    clReleaseProgram(prog);
    free(own);
    free(source);
    clReleaseCommandQueue(queue);
    sinpe_table_release(table);
    sinpe_context_release(ctx);
    return differ == 0 && x_bad == 0 && y_bad == 0 ? 0 : 1;
}
