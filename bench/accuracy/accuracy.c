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
 * Usage: accuracy [DATA]; prints the table and writes it, whitespace-
 * separated with a # header naming the device, to DATA (default
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
    double m;            /* attention factor */
} encoding;

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
    long double a = (long double)p * (long double)e->w[c];
    return (long double)e->m * (e->is_sin[c] ? sinl(a) : cosl(a));
}

/* The frameworks' float32 evaluation of column c at position p. */
static double float32_value(const encoding *e, long p, size_t c)
{
    float w = (float)e->w[c];
    volatile float a = (float)p * w; /* rounded to float32, as a float32 tensor holds it */
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
    }
    return 0;
fail:
    return -1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/accuracy.dat";
    sinpe_context *ctx = NULL;
    cl_command_queue queue = NULL;
    cl_mem out = NULL;
    encoding enc[3];
    float *rows = malloc((size_t)WINDOW * ABS_DIM * sizeof *rows);
    double err[N_POINTS][3][2];
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
    if (!queue || !out) {
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

    for (int i = 0; i < N_POINTS; i++) {
        pos[i] = lround(1024.0 * pow(2.0, i / 2.0));
        for (int e = 0; e < 3; e++) {
            const encoding *en = &enc[e];
            double worst[2] = {0.0, 0.0};
            CHECK(sinpe_enqueue_table_rows(en->table, queue, (cl_int)pos[i], WINDOW, out, 0, 0,
                                           SINPE_F32, 0, NULL, NULL));
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
               "float32_rope1e4\n");
    printf("largest |cos/sin error| against long double over %d positions from p\n"
           "(abs: the paper's encoding, d %d; llama3.1 and rope1e4: rotary, R %d;\n"
           " sinpe: sinpe_enqueue_table_rows in float32; float32: float32 frequency,\n"
           " float32 angle p * w, cosf/sinf)\n\n",
           WINDOW, ABS_DIM, ROT);
    printf("%8s  %10s %10s  %10s %10s  %10s %10s\n", "p", "sinpe abs", "f32 abs", "sinpe l3.1",
           "f32 l3.1", "sinpe 1e4", "f32 1e4");
    for (int i = 0; i < N_POINTS; i++) {
        fprintf(f, "%ld", pos[i]);
        printf("%8ld ", pos[i]);
        for (int e = 0; e < 3; e++) {
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
    rc = 0;
fail:
    if (f)
        fclose(f);
    for (int e = 0; e < 3; e++)
        sinpe_table_release(enc[e].table);
    if (out)
        clReleaseMemObject(out);
    if (queue)
        clReleaseCommandQueue(queue);
    sinpe_context_release(ctx);
    free(rows);
    return rc;
}
