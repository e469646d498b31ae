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
 * A host with a context of its own picks the device itself; this one reads
 * SINPE_DEVICE as sinpe_context_create() does, so that the one variable
 * moves every example to another device.
 */
#include <sinpe.h>

#include <ctype.h>
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

/* Whether text holds part, ignoring case. */
static int contains(const char *text, const char *part)
{
    for (; *text; text++) {
        size_t i = 0;
        while (part[i] && tolower((unsigned char)text[i]) == tolower((unsigned char)part[i]))
            i++;
        if (!part[i])
            return 1;
    }
    return !*part;
}

/* The device SINPE_DEVICE names: "P:D" indices, or a part of "platform
   name / device name" (the first that holds it); without it the first
   device.  0 on success. */
static int pick_device(cl_device_id *device)
{
    const char *want = getenv("SINPE_DEVICE");
    cl_platform_id platforms[16];
    cl_uint np = 0;
    unsigned wp = 0, wd = 0;
    int indices = want && *want && sscanf(want, "%u:%u", &wp, &wd) == 2;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
        return -1;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[16];
        cl_uint nd = 0;
        char pname[256] = "", name[600];
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS)
            continue;
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        for (cl_uint d = 0; d < nd && d < 16; d++) {
            char dname[256] = "";
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
            snprintf(name, sizeof name, "%s / %s", pname, dname);
            if (indices ? p == wp && d == wd : !want || !*want || contains(name, want)) {
                *device = devices[d];
                printf("device: %s\n", name);
                return 0;
            }
        }
    }
    return -1;
}

int main(void)
{
    const char *want = getenv("SINPE_DEVICE");
    cl_device_id device;
    cl_int err;
    if (pick_device(&device) != 0) {
        fprintf(stderr, "no OpenCL device%s%s\n", want ? " matches SINPE_DEVICE=" : "",
                want ? want : "");
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
