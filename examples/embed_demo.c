/*
 * embed_demo.c -- a host program that uses sinpe the way an inference host
 * would, built only from the installed header and pkg-config:
 *
 *     cc embed_demo.c $(pkg-config --cflags --libs sinpe) -o embed_demo
 *
 * It makes its own OpenCL context and queue, hands them to sinpe, embeds a
 * left-padded fairseq batch into the middle of a wider activation buffer,
 * and checks every written value against a float64 evaluation of fairseq's
 * formula.  Exit status 0 when all values are within 1e-6 relative.
 */
#include <sinpe.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIM = 96, VOCAB = 50, SEQS = 3, LEN = 9, PAD = 1, WIDTH = 128, COL0 = 16 };

#define CHECK(call)                                                                     \
    do {                                                                                \
        sinpe_status s_ = (call);                                                       \
        if (s_ != SINPE_SUCCESS) {                                                      \
            fprintf(stderr, "%s: %s (%s)\n", #call, sinpe_status_string(s_),            \
                    sinpe_last_error());                                                \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

/* fairseq SinusoidalPositionalEmbedding.get_embedding, in float64. */
static double fairseq_pe(int pos, int col)
{
    int half = DIM / 2;
    double step = log(10000.0) / (half - 1);
    int k = col < half ? col : col - half;
    double angle = pos * exp(-step * k);
    return col < half ? sin(angle) : cos(angle);
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device\n");
        return 1;
    }
    cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(cl, device, 0, &err);

    sinpe_context *ctx;
    sinpe_table *table;
    sinpe_spec spec;
    CHECK(sinpe_context_create_from_cl(cl, device, NULL, &ctx));
    CHECK(sinpe_spec_preset(&spec, SINPE_PRESET_FAIRSEQ, DIM));
    CHECK(sinpe_table_create(ctx, &spec, 8, &table)); /* short on purpose */

    /* A left-padded batch: sequence b starts with b pads. */
    int32_t ids[SEQS * LEN];
    float weights[VOCAB * DIM], out[SEQS * LEN * WIDTH];
    for (int b = 0; b < SEQS; b++)
        for (int t = 0; t < LEN; t++)
            ids[b * LEN + t] = t < b ? PAD : 2 + (b * 7 + t * 3) % (VOCAB - 2);
    for (int i = 0; i < VOCAB * DIM; i++)
        weights[i] = (float)((i * 37 % 101) - 50) / 64.0f;
    for (int i = 0; i < SEQS * LEN * WIDTH; i++)
        out[i] = -999.0f;

    cl_mem ids_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof ids, ids, &err);
    cl_mem w_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof weights, weights, &err);
    cl_mem out_mem = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof out, out, &err);

    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    CHECK(sinpe_embed_args_preset(&a, SINPE_PRESET_FAIRSEQ, DIM, PAD));
    a.n_seqs = SEQS;
    a.seq_len = LEN;
    a.ids = ids_mem;
    a.weights = w_mem;
    a.vocab = VOCAB;
    a.out = out_mem;
    a.out_offset = COL0;   /* columns [16, 112) of 128-wide rows */
    a.out_stride = WIDTH;
    cl_event done;
    CHECK(sinpe_enqueue_embed(table, queue, &a, 0, NULL, &done));
    clEnqueueReadBuffer(queue, out_mem, CL_TRUE, 0, sizeof out, out, 1, &done, NULL);

    /* fairseq: positions = cumsum(id != pad) * (id != pad) + pad; pad rows get no PE. */
    double worst = 0;
    int bad = 0;
    for (int b = 0; b < SEQS; b++) {
        int count = 0;
        for (int t = 0; t < LEN; t++) {
            int r = b * LEN + t, id = ids[r], real = id != PAD;
            count += real;
            for (int c = 0; c < WIDTH; c++) {
                float got = out[r * WIDTH + c];
                if (c < COL0 || c >= COL0 + DIM) {
                    bad += got != -999.0f;
                    continue;
                }
                int col = c - COL0;
                double ref = sqrt((double)DIM) * weights[id * DIM + col] +
                             (real ? fairseq_pe(PAD + count, col) : 0.0);
                double e = fabs(got - ref) / (1.0 + fabs(ref));
                worst = e > worst ? e : worst;
            }
        }
    }
    printf("sinpe %s on the host's own context: worst relative error %.2e, "
           "gap columns touched %d\n",
           sinpe_version_string(), worst, bad);

    clReleaseEvent(done);
    clReleaseMemObject(ids_mem);
    clReleaseMemObject(w_mem);
    clReleaseMemObject(out_mem);
    sinpe_table_release(table);
    sinpe_context_release(ctx);
    clReleaseCommandQueue(queue);
    clReleaseContext(cl);
    return worst <= 1e-6 && bad == 0 ? 0 : 1;
}
