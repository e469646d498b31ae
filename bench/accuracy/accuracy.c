/*
 * accuracy.c -- how far the encoding's values lie from the exact ones, by
 * position: sinpe's tables against the float32 formula frameworks
 * evaluate (make bench-accuracy; bench/accuracy.sh draws the figure).
 *
 * For positions p = 2^10 .. 2^20 (two points an octave), the largest
 * |value - exact| over the WINDOW positions p .. p + WINDOW - 1 and every
 * column, for three encodings:
 *   abs       the paper's absolute encoding, d = 512 (sinpe_spec_init);
 *   llama3.1  the Llama 3.1 rotary spec, R = 128 (cos and sin, m = 1);
 *   rope1e4   the default rotary rule, base 10000, R = 128;
 *   mrope     Qwen2-VL's multimodal rotary (sections 16, 24, 24, base 1e6,
 *             R = 128) at lanes (p, p + 100, p / 2): each token's cos and
 *             sin from sinpe_enqueue_rope()'s cos_sin, pair k at its lane;
 * each evaluated two ways:
 *   sinpe     rows written by sinpe_enqueue_table_rows() in float32 on the
 *             default device;
 *   float32   the frameworks' formula: the frequency held in float32 (here
 *             the float32 nearest the exact one, the best such a frequency
 *             can be), the angle p * w formed in float32, then cosf/sinf.
 * "Exact" is long double sin and cos of p * w_k, with w_k the float64
 * frequency sinpe states (sinpe_rope_frequencies(); base^(-2k/d) for the
 * absolute encoding): the reference both ways are read against.
 *
 * Then the patch grids (sinpe_enqueue_grid()): the 2-D sincos of a grid's
 * columns at sizes 16 .. 512 (MAE, D = 1024) and CogVideoX's frames (its
 * 3-D layout, a frame table of 480) at 16 .. 128 frames, against the
 * float32 form diffusers falls back to without fp64 (a float32 omega, a
 * float32 product, sinf/cosf); positions are integers here, exact in both.
 *
 * Usage: accuracy [DATA]; prints the tables and writes the first,
 * whitespace-separated with a # header naming the device, to DATA (default
 * build/accuracy.dat).
 */
#include "sinpe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 256
#define ABS_DIM 512
#define ROT 128
#define N_POINTS 21 /* 2^10 .. 2^20 by half octaves */

/* One encoding: its table and the exact frequency and function of each
   column. */
typedef struct encoding {
    const char *name;
    sinpe_table *table;
    size_t cols;
    double w[ABS_DIM];   /* per column */
    int is_sin[ABS_DIM]; /* per column */
    int lane[ABS_DIM];   /* per column: the position lane (mrope) */
    double m;            /* attention factor */
} encoding;

#define N_ENC 4

/* Lane l's position of the token at p: (p, p + 100, p / 2), as a Qwen2-VL
   image token's temporal, height and width positions may differ. */
static long lane_pos(int l, long p)
{
    return l == 0 ? p : l == 1 ? p + 100 : p / 2;
}

#define CHECK(call)                                                                     \
    do {                                                                                \
        sinpe_status s_ = (call);                                                       \
        if (s_ != SINPE_SUCCESS) {                                                      \
            fprintf(stderr, "accuracy: %s: %s (%s)\n", #call, sinpe_status_string(s_),  \
                    sinpe_last_error());                                                \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

static long double exact(const encoding *e, long p, size_t c)
{
    long double a = (long double)lane_pos(e->lane[c], p) * (long double)e->w[c];
    return (long double)e->m * (e->is_sin[c] ? sinl(a) : cosl(a));
}

/* The frameworks' float32 evaluation of column c at position p. */
static double float32_value(const encoding *e, long p, size_t c)
{
    float w = (float)e->w[c];
    volatile float a = (float)lane_pos(e->lane[c], p) * w; /* as a float32 tensor holds it */
    return (double)((float)e->m * (e->is_sin[c] ? sinf(a) : cosf(a)));
}

/* The rotary encodings' columns: COS_SIN, cos of pair k in column k, sin
   in column R/2 + k. */
static int rotary(sinpe_context *ctx, encoding *e, const char *name, const sinpe_rope_spec *spec)
{
    double freqs[ROT / 2];
    e->name = name;
    e->cols = ROT;
    CHECK(sinpe_rope_frequencies(spec, freqs, &e->m));
    CHECK(sinpe_rope_table_create(ctx, spec, 0, &e->table));
    for (size_t k = 0; k < ROT / 2; k++) {
        e->w[k] = e->w[k + ROT / 2] = freqs[k];
        e->is_sin[k] = 0;
        e->is_sin[k + ROT / 2] = 1;
        e->lane[k] = e->lane[k + ROT / 2] =
            !spec->axes || k < spec->sections[0]           ? 0
            : k < spec->sections[0] + spec->sections[1] ? 1 : 2;
    }
    return 0;
fail:
    return -1;
}

/* The largest errors (sinpe, float32 form) of the first w columns of n
   grid tokens in out, the encoding of width d (w <= d) at position x(r) =
   r / div: sin of the first d / 2, cos of the rest, frequency
   10000^(-k / (d / 2)). */
static void grid_errors(const float *out, size_t stride, size_t n, size_t d, long div,
                        double worst[2])
{
    size_t h = d / 2;
    worst[0] = worst[1] = 0.0;
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < d; c++) {
            size_t k = c % h;
            long double a = (long double)r / div * powl(10000.0L, -(long double)k / h);
            long double x = c < h ? sinl(a) : cosl(a);
            volatile float om = 1.0f / powf(10000.0f, (float)k / (float)h);
            volatile float af = (float)r / (float)div * om;
            double e0 = (double)fabsl((long double)out[r * stride + c] - x);
            double e1 = (double)fabsl((long double)(c < h ? sinf(af) : cosf(af)) - x);
            worst[0] = e0 > worst[0] ? e0 : worst[0];
            worst[1] = e1 > worst[1] ? e1 : worst[1];
        }
}

/* The grids' table: 2-D columns of a 1 x G grid (MAE, D = 1024) and the
   frame part of CogVideoX's 3-D layout (480 of 1920) for F frames. */
static int grids(sinpe_context *ctx, cl_command_queue queue)
{
    enum { D2 = 1024, DT = 480, DS = 720, MAXG = 512 };
    cl_int err;
    sinpe_table *t2 = NULL, *ts = NULL, *tt = NULL;
    float *host = malloc((size_t)MAXG * D2 * sizeof *host);
    cl_mem out = clCreateBuffer(sinpe_context_cl_context(ctx), CL_MEM_READ_WRITE,
                                (size_t)MAXG * D2 * sizeof(float), NULL, &err);
    sinpe_spec spec;
    int rc = -1;
    if (!host || !out)
        goto fail;
    CHECK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, D2 / 2));
    CHECK(sinpe_table_create(ctx, &spec, 0, &t2));
    CHECK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, DS));
    CHECK(sinpe_table_create(ctx, &spec, 0, &ts));
    CHECK(sinpe_spec_preset(&spec, SINPE_PRESET_MAE, DT));
    CHECK(sinpe_table_create(ctx, &spec, 0, &tt));
    printf("\npatch grids: the largest |error| against long double (2-D: the column\n"
           "half of a 1 x G grid, D %d; 3-D: CogVideoX's frame part, %d of %d; float32:\n"
           "diffusers' form without fp64, float32 omega and product, sinf/cosf)\n\n",
           D2, DT, DT + 2 * DS);
    printf("%6s  %10s %10s    %6s  %10s %10s\n", "G", "sinpe 2-D", "f32 2-D", "frames",
           "sinpe 3-D", "f32 3-D");
    for (size_t G = 16, F = 16; G <= MAXG; G *= 2, F = F < 128 ? F * 2 : 0) {
        double w2[2], w3[2] = {0.0, 0.0};
        sinpe_grid_args a;
        sinpe_grid_args_init(&a);
        a.n_seqs = 1, a.rows = 1, a.cols = G, a.out = out;
        CHECK(sinpe_enqueue_grid(t2, queue, &a, 0, NULL, NULL));
        if (clEnqueueReadBuffer(queue, out, CL_TRUE, 0, G * D2 * sizeof(float), host, 0, NULL,
                                NULL) != CL_SUCCESS)
            goto fail;
        grid_errors(host, D2, G, D2 / 2, 1, w2);
        if (F) {
            a.cols = 1, a.frames = F, a.frame_table = tt;
            CHECK(sinpe_enqueue_grid(ts, queue, &a, 0, NULL, NULL));
            if (clEnqueueReadBuffer(queue, out, CL_TRUE, 0, F * (DT + 2 * DS) * sizeof(float),
                                    host, 0, NULL, NULL) != CL_SUCCESS)
                goto fail;
            grid_errors(host, DT + 2 * DS, F, DT, 1, w3);
            printf("%6zu  %10.2e %10.2e    %6zu  %10.2e %10.2e\n", G, w2[0], w2[1], F, w3[0],
                   w3[1]);
        } else {
            printf("%6zu  %10.2e %10.2e\n", G, w2[0], w2[1]);
        }
    }
    rc = 0;
fail:
    sinpe_table_release(t2);
    sinpe_table_release(ts);
    sinpe_table_release(tt);
    if (out)
        clReleaseMemObject(out);
    free(host);
    return rc;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/accuracy.dat";
    sinpe_context *ctx = NULL;
    cl_command_queue queue = NULL;
    cl_mem out = NULL;
    encoding enc[N_ENC];
    float *rows = malloc((size_t)WINDOW * ABS_DIM * sizeof *rows);
    double err[N_POINTS][N_ENC][2];
    int32_t lanes[3 * WINDOW];
    cl_mem lanes_mem = NULL;
    long pos[N_POINTS];
    char device[256] = "an unnamed device";
    FILE *f = NULL;
    int rc = 1;
    cl_int cl_err;

    memset(enc, 0, sizeof enc);
    if (!rows)
        return 1;
    CHECK(sinpe_context_create(NULL, &ctx));
    /* The figure's title names the device the rows came from. */
    if (clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_NAME, sizeof device - 1, device,
                        NULL) != CL_SUCCESS)
        strcpy(device, "an unnamed device");
    queue = clCreateCommandQueue(sinpe_context_cl_context(ctx), sinpe_context_device(ctx), 0,
                                 &cl_err);
    out = clCreateBuffer(sinpe_context_cl_context(ctx), CL_MEM_READ_WRITE,
                         (size_t)WINDOW * ABS_DIM * sizeof(float), NULL, &cl_err);
    lanes_mem = clCreateBuffer(sinpe_context_cl_context(ctx), CL_MEM_READ_WRITE, sizeof lanes,
                               NULL, &cl_err);
    if (!queue || !out || !lanes_mem) {
        fprintf(stderr, "accuracy: cannot make a queue and a buffer (OpenCL %d)\n", cl_err);
        goto fail;
    }

    /* The paper: columns 2k and 2k + 1 are sin and cos of p base^(-2k/d). */
    sinpe_spec spec;
    sinpe_spec_init(&spec, ABS_DIM);
    enc[0].name = "abs";
    enc[0].cols = ABS_DIM;
    enc[0].m = 1.0;
    CHECK(sinpe_table_create(ctx, &spec, 0, &enc[0].table));
    for (size_t c = 0; c < ABS_DIM; c++) {
        enc[0].w[c] = pow(10000.0, -(double)(c / 2 * 2) / ABS_DIM);
        enc[0].is_sin[c] = c % 2 == 0;
    }
    sinpe_rope_spec rs;
    CHECK(sinpe_rope_preset(&rs, SINPE_ROPE_PRESET_LLAMA3_1, ROT));
    if (rotary(ctx, &enc[1], "llama3.1", &rs) != 0)
        goto fail;
    sinpe_rope_spec_init(&rs, ROT);
    if (rotary(ctx, &enc[2], "rope1e4", &rs) != 0)
        goto fail;
    CHECK(sinpe_rope_preset(&rs, SINPE_ROPE_PRESET_QWEN2_VL, ROT));
    if (rotary(ctx, &enc[3], "mrope", &rs) != 0)
        goto fail;

    for (int i = 0; i < N_POINTS; i++) {
        pos[i] = lround(1024.0 * pow(2.0, i / 2.0));
        for (int e = 0; e < N_ENC; e++) {
            const encoding *en = &enc[e];
            double worst[2] = {0.0, 0.0};
            if (e == 3) { /* each token's cos and sin at its three lanes */
                sinpe_rope_args a;
                sinpe_rope_args_init(&a);
                for (int l = 0; l < 3; l++)
                    for (long r = 0; r < WINDOW; r++)
                        lanes[l * WINDOW + r] = (int32_t)lane_pos(l, pos[i] + r);
                if (clEnqueueWriteBuffer(queue, lanes_mem, CL_TRUE, 0, sizeof lanes, lanes, 0,
                                         NULL, NULL) != CL_SUCCESS)
                    goto fail;
                a.n_seqs = 1, a.seq_len = WINDOW, a.head_dim = ROT, a.positions = lanes_mem;
                a.cos_sin = out;
                CHECK(sinpe_enqueue_rope(en->table, queue, &a, 0, NULL, NULL));
            } else {
                CHECK(sinpe_enqueue_table_rows(en->table, queue, (cl_int)pos[i], WINDOW, out, 0,
                                               0, SINPE_F32, 0, NULL, NULL));
            }
            if (clEnqueueReadBuffer(queue, out, CL_TRUE, 0, WINDOW * en->cols * sizeof(float),
                                    rows, 0, NULL, NULL) != CL_SUCCESS) {
                fprintf(stderr, "accuracy: reading the rows back failed\n");
                goto fail;
            }
            for (long r = 0; r < WINDOW; r++)
                for (size_t c = 0; c < en->cols; c++) {
                    long p = pos[i] + r;
                    long double x = exact(en, p, c);
                    double d0 = (double)fabsl((long double)rows[r * en->cols + c] - x);
                    double d1 = (double)fabsl((long double)float32_value(en, p, c) - x);
                    worst[0] = d0 > worst[0] ? d0 : worst[0];
                    worst[1] = d1 > worst[1] ? d1 : worst[1];
                }
            err[i][e][0] = worst[0];
            err[i][e][1] = worst[1];
        }
    }

    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "accuracy: cannot write %s\n", path);
        goto fail;
    }
    fprintf(f, "# sinpe %s, accuracy of cos/sin values against long double, the largest\n"
               "# |error| over %d positions from p and every column (bench/accuracy/accuracy.c)\n",
            sinpe_version_string(), WINDOW);
    fprintf(f, "# device: %s\n", device);
    fprintf(f, "# p sinpe_abs float32_abs sinpe_llama3.1 float32_llama3.1 sinpe_rope1e4 "
               "float32_rope1e4 sinpe_mrope float32_mrope\n");
    printf("largest |cos/sin error| against long double over %d positions from p\n"
           "(abs: the paper's encoding, d %d; llama3.1 and rope1e4: rotary, R %d;\n"
           " sinpe: sinpe_enqueue_table_rows in float32; float32: float32 frequency,\n"
           " float32 angle p * w, cosf/sinf; mrope: Qwen2-VL's lanes p, p + 100, p / 2)\n\n",
           WINDOW, ABS_DIM, ROT);
    printf("%8s  %10s %10s  %10s %10s  %10s %10s  %10s %10s\n", "p", "sinpe abs", "f32 abs",
           "sinpe l3.1", "f32 l3.1", "sinpe 1e4", "f32 1e4", "sinpe mrope", "f32 mrope");
    for (int i = 0; i < N_POINTS; i++) {
        fprintf(f, "%ld", pos[i]);
        printf("%8ld ", pos[i]);
        for (int e = 0; e < N_ENC; e++) {
            fprintf(f, " %.4e %.4e", err[i][e][0], err[i][e][1]);
            printf(" %10.2e %10.2e ", err[i][e][0], err[i][e][1]);
        }
        fputc('\n', f);
        putchar('\n');
    }
    if (fclose(f) != 0) {
        f = NULL;
        fprintf(stderr, "accuracy: writing %s failed\n", path);
        goto fail;
    }
    f = NULL;
    printf("\nwritten to %s\n", path);
    if (grids(ctx, queue) != 0)
        goto fail;
    rc = 0;
fail:
    if (f)
        fclose(f);
    for (int e = 0; e < N_ENC; e++)
        sinpe_table_release(enc[e].table);
    if (out)
        clReleaseMemObject(out);
    if (lanes_mem)
        clReleaseMemObject(lanes_mem);
    if (queue)
        clReleaseCommandQueue(queue);
    sinpe_context_release(ctx);
    free(rows);
    return rc;
}
