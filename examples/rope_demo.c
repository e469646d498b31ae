/*
 * rope_demo.c -- rotary position embeddings inside the host's own
 * attention kernel (examples/rope_attention.cl), built only from the
 * installed header and pkg-config:
 *
 *     cc rope_demo.c $(pkg-config --cflags --libs sinpe) -lm -o rope_demo
 *     ./rope_demo path/to/rope_attention.cl
 *
 * sinpe picks the device (SINPE_DEVICE, else the best one) and makes the
 * context; the host's program goes into that context.  A Llama 3.1
 * rotary table of 16 rows serves three sequences, two of whose positions
 * lie far past it (computed on the fly, with the same bits).  The host's
 * kernel rotates q and k in registers through sinpe_rope_cos_sin(); the
 * program checks that
 *   - its rotated q and k equal sinpe_enqueue_rope()'s bit for bit (the
 *     same float32 operations, each rounded as OpenCL fixes it),
 *   - its causal scores, rotated in registers, and the same scores summed
 *     from sinpe_enqueue_rope()'s output are both within the float32
 *     rounding bound of a sum of head_dim products of the exact dot
 *     product of sinpe's rotated values (the order of a kernel's sum is
 *     the compiler's: the bound holds for any order, vectorized or not),
 *   - the rotated values are within (1.5e-7 + 2^-53 |p w|) (|x1| + |x2|)
 *     plus a float32 rounding of a float64 rotation (the header's bound),
 *     and the scores within 1e-5 relative of float64 ones.
 * Exit status 0 when every check holds.
 */
#include <sinpe.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEAD_DIM = 64, Q_HEADS = 4, KV_HEADS = 2, SEQS = 3, LEN = 6, TOKENS = SEQS * LEN };
enum { TABLE_ROWS = 16, QN = TOKENS * Q_HEADS * HEAD_DIM, KN = TOKENS * KV_HEADS * HEAD_DIM };
enum { SN = Q_HEADS * TOKENS * TOKENS };

/* Where each sequence starts: inside the table, past it at Llama 3.1's
   128k context, and near the end of int32. */
static const int seq_start[SEQS] = {3, 131000, 2000000000};

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

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        *len = fread(text, 1, (size_t)n, f);
        text[*len] = '\0';
    }
    fclose(f);
    return text;
}

/* Values in [-1, 1) from a fixed generator. */
static float next_value(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

static int position(int r)
{
    return seq_start[r / LEN] + r % LEN;
}

/* The float64 rotation of column c of head x at position p. */
static double rotated(const float *x, int c, int p, const double *freqs, double m, int R)
{
    int h = R / 2, k = c < h ? c : c - h;
    double cs = m * cos(p * freqs[k]), sn = m * sin(p * freqs[k]);
    if (c >= R)
        return x[c];
    return c < h ? x[k] * cs - x[k + h] * sn : x[k + h] * cs + x[k] * sn;
}

/* Rotated values against float64: the header's bound for cos and sin times
   |x1| + |x2|, plus the float32 roundings of the products, fma and store. */
static int check_rotated(const char *name, const float *x, const float *y, int heads,
                         const double *freqs, double m, int R, double *worst)
{
    int bad = 0;
    for (int r = 0; r < TOKENS; r++)
        for (int h = 0; h < heads; h++)
            for (int c = 0; c < HEAD_DIM; c++) {
                const float *xh = x + ((size_t)r * heads + h) * HEAD_DIM;
                int k = c < R / 2 ? c : c - R / 2, p = position(r);
                double ref = rotated(xh, c, p, freqs, m, R);
                double got = y[((size_t)r * heads + h) * HEAD_DIM + c];
                double mag = c < R ? fabs(xh[k]) + fabs(xh[k + R / 2]) : 0.0;
                double angle = c < R ? p * freqs[k] : 0.0;
                double tol = (1.5e-7 + ldexp(fabs(angle), -53)) * m * mag +
                             3.0 * ldexp(mag * (m > 1.0 ? m : 1.0), -24);
                double e = fabs(got - ref);
                if (e > tol) {
                    if (bad++ < 5)
                        fprintf(stderr, "%s token %d head %d column %d: %.9g, float64 %.9g\n",
                                name, r, h, c, got, ref);
                }
                if (tol > 0.0 && e / tol > *worst)
                    *worst = e / tol;
            }
    return bad;
}

int main(int argc, char **argv)
{
    const char *cl_path = argc > 1 ? argv[1] : "rope_attention.cl";

    sinpe_context *ctx;
    sinpe_table *table;
    sinpe_rope_spec spec;
    double freqs[HEAD_DIM / 2], m;
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
    CHECK(sinpe_rope_preset(&spec, SINPE_ROPE_PRESET_LLAMA3_1, HEAD_DIM));
    CHECK(sinpe_rope_frequencies(&spec, freqs, &m));
    CHECK(sinpe_rope_table_create(ctx, &spec, TABLE_ROWS, &table));
    int R = (int)spec.rotary_dim;

    /* The host's program: sinpe's device functions, then its own kernels. */
    size_t dev_len = 0, own_len = 0;
    CHECK(sinpe_device_source(ctx, NULL, 0, &dev_len));
    char *own = read_file(cl_path, &own_len);
    char *source = malloc(dev_len + own_len + 2);
    if (!own || !source) {
        fprintf(stderr, "cannot read %s\n", cl_path);
        return 1;
    }
    CHECK(sinpe_device_source(ctx, source, dev_len + 1, &dev_len));
    source[dev_len] = '\n';
    memcpy(source + dev_len + 1, own, own_len + 1);
    const char *src = source;
    cl_program prog = clCreateProgramWithSource(cl, 1, &src, NULL, &err);
    CL_CHECK("clCreateProgramWithSource", err);
    err = clBuildProgram(prog, 1, &device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "%s: build failed:\n%s\n", cl_path, log);
        return 1;
    }
    cl_kernel k_rotate = clCreateKernel(prog, "rope_rotate_qk", &err);
    CL_CHECK("clCreateKernel(rope_rotate_qk)", err);
    cl_kernel k_scores = clCreateKernel(prog, "rope_scores", &err);
    CL_CHECK("clCreateKernel(rope_scores)", err);
    cl_kernel k_plain = clCreateKernel(prog, "plain_scores", &err);
    CL_CHECK("clCreateKernel(plain_scores)", err);

    /* Inputs. */
    static float q[QN], k[KN];
    int pos[TOKENS];
    uint32_t state = 12345u;
    for (int i = 0; i < QN; i++)
        q[i] = next_value(&state);
    for (int i = 0; i < KN; i++)
        k[i] = next_value(&state);
    for (int r = 0; r < TOKENS; r++)
        pos[r] = position(r);
    cl_mem q_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof q, q, &err);
    cl_mem k_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof k, k, &err);
    cl_mem pos_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof pos, pos, &err);
    cl_mem qs_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof q, NULL, &err); /* sinpe's */
    cl_mem ks_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof k, NULL, &err);
    cl_mem qh_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof q, NULL, &err); /* the host's */
    cl_mem kh_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof k, NULL, &err);
    cl_mem sf_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE, SN * sizeof(float), NULL, &err);
    cl_mem sp_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE, SN * sizeof(float), NULL, &err);
    CL_CHECK("clCreateBuffer", err);
    /* Different poison in each compared pair: what one leaves unwritten differs. */
    float nan_a = NAN, neg = -7.0f;
    clEnqueueFillBuffer(queue, qh_mem, &nan_a, sizeof nan_a, 0, sizeof q, 0, NULL, NULL);
    clEnqueueFillBuffer(queue, kh_mem, &nan_a, sizeof nan_a, 0, sizeof k, 0, NULL, NULL);
    clEnqueueFillBuffer(queue, sf_mem, &neg, sizeof neg, 0, SN * sizeof(float), 0, NULL, NULL);
    clEnqueueFillBuffer(queue, sp_mem, &neg, sizeof neg, 0, SN * sizeof(float), 0, NULL, NULL);

    /* sinpe's rotation, out of place, positions from the buffer. */
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = SEQS;
    a.seq_len = LEN;
    a.head_dim = HEAD_DIM;
    a.q = q_mem;
    a.q_heads = Q_HEADS;
    a.k = k_mem;
    a.kv_heads = KV_HEADS;
    a.q_out = qs_mem;
    a.k_out = ks_mem;
    a.positions = pos_mem;
    CHECK(sinpe_enqueue_rope(table, queue, &a, 0, NULL, NULL));

    /* The host's kernels, reading the table and the spec's constants. */
    cl_mem tab, consts;
    size_t rows;
    CHECK(sinpe_table_borrow(table, &tab, &rows));
    CHECK(sinpe_table_constants(table, &consts));
    cl_int rows_i = (cl_int)rows;
    cl_uint qh = Q_HEADS, kvh = KV_HEADS, hd = HEAD_DIM, rot = (cl_uint)R, len = LEN;
    float scale = 1.0f / sqrtf((float)HEAD_DIM);
    cl_mem args_rotate[] = {q_mem, k_mem, pos_mem};
    for (cl_uint i = 0; i < 3; i++)
        err |= clSetKernelArg(k_rotate, i, sizeof(cl_mem), &args_rotate[i]);
    err |= clSetKernelArg(k_rotate, 3, sizeof qh, &qh);
    err |= clSetKernelArg(k_rotate, 4, sizeof kvh, &kvh);
    err |= clSetKernelArg(k_rotate, 5, sizeof hd, &hd);
    err |= clSetKernelArg(k_rotate, 6, sizeof rot, &rot);
    err |= clSetKernelArg(k_rotate, 7, sizeof tab, &tab);
    err |= clSetKernelArg(k_rotate, 8, sizeof rows_i, &rows_i);
    err |= clSetKernelArg(k_rotate, 9, sizeof consts, &consts);
    err |= clSetKernelArg(k_rotate, 10, sizeof qh_mem, &qh_mem);
    err |= clSetKernelArg(k_rotate, 11, sizeof kh_mem, &kh_mem);
    for (cl_uint i = 0; i < 3; i++)
        err |= clSetKernelArg(k_scores, i, sizeof(cl_mem), &args_rotate[i]);
    err |= clSetKernelArg(k_scores, 3, sizeof qh, &qh);
    err |= clSetKernelArg(k_scores, 4, sizeof kvh, &kvh);
    err |= clSetKernelArg(k_scores, 5, sizeof hd, &hd);
    err |= clSetKernelArg(k_scores, 6, sizeof rot, &rot);
    err |= clSetKernelArg(k_scores, 7, sizeof len, &len);
    err |= clSetKernelArg(k_scores, 8, sizeof scale, &scale);
    err |= clSetKernelArg(k_scores, 9, sizeof tab, &tab);
    err |= clSetKernelArg(k_scores, 10, sizeof rows_i, &rows_i);
    err |= clSetKernelArg(k_scores, 11, sizeof consts, &consts);
    err |= clSetKernelArg(k_scores, 12, sizeof sf_mem, &sf_mem);
    err |= clSetKernelArg(k_plain, 0, sizeof qs_mem, &qs_mem);
    err |= clSetKernelArg(k_plain, 1, sizeof ks_mem, &ks_mem);
    err |= clSetKernelArg(k_plain, 2, sizeof qh, &qh);
    err |= clSetKernelArg(k_plain, 3, sizeof kvh, &kvh);
    err |= clSetKernelArg(k_plain, 4, sizeof hd, &hd);
    err |= clSetKernelArg(k_plain, 5, sizeof len, &len);
    err |= clSetKernelArg(k_plain, 6, sizeof scale, &scale);
    err |= clSetKernelArg(k_plain, 7, sizeof sp_mem, &sp_mem);
    CL_CHECK("clSetKernelArg", err);
    size_t g_rotate[2] = {HEAD_DIM, TOKENS}, g_scores[3] = {TOKENS, TOKENS, Q_HEADS};
    err = clEnqueueNDRangeKernel(queue, k_rotate, 2, NULL, g_rotate, NULL, 0, NULL, NULL);
    CL_CHECK("clEnqueueNDRangeKernel(rope_rotate_qk)", err);
    err = clEnqueueNDRangeKernel(queue, k_scores, 3, NULL, g_scores, NULL, 0, NULL, NULL);
    CL_CHECK("clEnqueueNDRangeKernel(rope_scores)", err);
    err = clEnqueueNDRangeKernel(queue, k_plain, 3, NULL, g_scores, NULL, 0, NULL, NULL);
    CL_CHECK("clEnqueueNDRangeKernel(plain_scores)", err);

    static float qs[QN], ks[KN], qhost[QN], khost[KN], sf[SN], sp[SN];
    err = clEnqueueReadBuffer(queue, qs_mem, CL_FALSE, 0, sizeof qs, qs, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, ks_mem, CL_FALSE, 0, sizeof ks, ks, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, qh_mem, CL_FALSE, 0, sizeof qhost, qhost, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, kh_mem, CL_FALSE, 0, sizeof khost, khost, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, sf_mem, CL_FALSE, 0, sizeof sf, sf, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(queue, sp_mem, CL_TRUE, 0, sizeof sp, sp, 0, NULL, NULL);
    CL_CHECK("clEnqueueReadBuffer", err);

    /* Bit for bit against sinpe_enqueue_rope(). */
    int differ = 0;
    for (int i = 0; i < QN; i++)
        differ += memcmp(&qs[i], &qhost[i], sizeof(float)) != 0;
    for (int i = 0; i < KN; i++)
        differ += memcmp(&ks[i], &khost[i], sizeof(float)) != 0;
    /* The scores.  Both kernels sum the same float32 products of the same
       rotated values (those just compared), but how each sum is evaluated
       is the compiler's: Intel's CPU compiler, its implicit vectorizer on,
       rounds some of these scores differently from PoCL under FP_CONTRACT
       OFF, the rotated values never.  What holds whatever the order of the
       sum, and with products contracted into fma: a sum of n products of
       floats is within gamma_n = n u / (1 - n u) of sum |q_c k_c| of the
       exact dot product (u = 2^-24; Higham, Accuracy and Stability of
       Numerical Algorithms, 3.1), the product by scale adds one rounding,
       and a device that flushes subnormal floats (OpenCL allows it) loses
       at most 2^-126 more in each of the 2n + 1 operations.  So each
       kernel's score is checked against the exact dot product of sinpe's
       rotated q and k (in float64: every product exact, the sum within
       n 2^-53 of their magnitudes), and against the float64 scores of
       float64 rotations within 1e-5 of the magnitudes. */
    const double u = ldexp(1.0, -24), gamma_n = HEAD_DIM * u / (1.0 - HEAD_DIM * u);
    int s_bad = 0, s_untouched = 0, s_same = 0, scored = 0;
    double s_worst = 0.0, s_round = 0.0;
    for (int h = 0; h < Q_HEADS; h++)
        for (int i = 0; i < TOKENS; i++)
            for (int j = 0; j < TOKENS; j++) {
                size_t at = ((size_t)h * TOKENS + i) * TOKENS + j;
                if (j / LEN != i / LEN || j > i) {
                    s_untouched += sf[at] != -7.0f || sp[at] != -7.0f;
                    continue;
                }
                size_t qa = ((size_t)i * Q_HEADS + h) * HEAD_DIM;
                size_t ka = ((size_t)j * KV_HEADS + h / (Q_HEADS / KV_HEADS)) * HEAD_DIM;
                double exact = 0.0, mag = 0.0, ref = 0.0, ref_mag = 0.0;
                for (int c = 0; c < HEAD_DIM; c++) {
                    double a1 = rotated(q + qa, c, position(i), freqs, m, R);
                    double b1 = rotated(k + ka, c, position(j), freqs, m, R);
                    exact += (double)qs[qa + c] * ks[ka + c];
                    mag += fabs((double)qs[qa + c] * ks[ka + c]);
                    ref += a1 * b1;
                    ref_mag += fabs(a1 * b1);
                }
                double bound = scale * (gamma_n * mag * (1.0 + u) + u * fabs(exact) +
                                        2.0 * HEAD_DIM * ldexp(mag, -53)) +
                               ldexp(2.0 * HEAD_DIM + 1.0, -126);
                const float *got[2] = {&sf[at], &sp[at]};
                for (int w = 0; w < 2; w++) {
                    double e = fabs(*got[w] - scale * exact);
                    if (!(e <= bound)) {
                        if (s_bad++ < 5)
                            fprintf(stderr, "%s score head %d query %d key %d: %.9g, exact %.9g\n",
                                    w ? "plain" : "rotated", h, i, j, *got[w], scale * exact);
                    } else if (bound > 0.0 && e / bound > s_round) {
                        s_round = e / bound;
                    }
                    e = fabs(*got[w] - ref / sqrt((double)HEAD_DIM)) /
                        (1e-5 * (ref_mag / sqrt((double)HEAD_DIM) + 1e-30));
                    s_worst = e > s_worst ? e : s_worst;
                }
                s_same += memcmp(&sf[at], &sp[at], sizeof(float)) == 0;
                scored++;
            }
    double worst = 0.0;
    int bad = check_rotated("q", q, qhost, Q_HEADS, freqs, m, R, &worst) +
              check_rotated("k", k, khost, KV_HEADS, freqs, m, R, &worst);

    printf("sinpe %s, rope in the host's kernel (Llama 3.1, R %d, positions up to %d, table "
           "rows %zu):\n"
           "  rotated q and k vs sinpe_enqueue_rope: %d of %d values differ\n"
           "  causal scores, rotated in registers and from sinpe's output, vs the exact dot\n"
           "    product of sinpe's output: at most %.2f of the float32 bound (%d beyond, %d\n"
           "    untouched written; %d of %d pairs equal bit for bit)\n"
           "  vs float64: rotated values at most %.2f of the bound (%d beyond), scores at most "
           "%.2f of 1e-5 relative (%d scores)\n",
           sinpe_version_string(), R, position(TOKENS - 1), rows, differ, QN + KN, s_round,
           s_bad, s_untouched, s_same, scored, worst, bad, s_worst, scored);

    clReleaseMemObject(tab);
    clReleaseMemObject(consts);
    cl_mem mems[] = {q_mem, k_mem, pos_mem, qs_mem, ks_mem, qh_mem, kh_mem, sf_mem, sp_mem};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        clReleaseMemObject(mems[i]);
    clReleaseKernel(k_rotate);
    clReleaseKernel(k_scores);
    clReleaseKernel(k_plain);
    clReleaseProgram(prog);
    free(own);
    free(source);
    clReleaseCommandQueue(queue);
    sinpe_table_release(table);
    sinpe_context_release(ctx);
    return differ == 0 && s_bad == 0 && s_untouched == 0 && bad == 0 && s_worst <= 1.0 ? 0 : 1;
}
