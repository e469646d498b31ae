/*
 * old_caller.c -- a program built against sinpe 0.1's header
 * (tests/abi/sinpe_v0_1.h, the declarations of the header as released,
 * whose structs have no struct_size) and run against the library being built: the promise of
 * include/sinpe.h, "Structs that grow".
 *
 * Each struct the library reads or fills lies at the very end of a page
 * whose next page is made inaccessible, so that a library that reads or
 * writes one byte past the 0.1 struct stops this program with SIGSEGV; its
 * own bytes are poisoned before the _init calls, so that a field they leave
 * unset shows.  The fused call's output is checked against a float64
 * reference of the encoding and the gather.  Exit status 0: every check
 * passed.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sinpe_v0_1.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DIM 64
#define VOCAB 50
#define SEQS 2
#define LEN 7
#define START 3

static int failures;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "old_caller: " __VA_ARGS__);   \
            fprintf(stderr, " (%s)\n", sinpe_last_error()); \
            failures++;                                    \
        }                                                  \
    } while (0)

/* size bytes that end where an inaccessible page begins, poisoned. */
static void *guarded(size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t span = ((size + (size_t)page - 1) / (size_t)page + 1) * (size_t)page;
    unsigned char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (p == MAP_FAILED || mprotect(p + span - (size_t)page, (size_t)page, PROT_NONE) != 0) {
        perror("old_caller: mmap");
        exit(2);
    }
    p += span - (size_t)page - size;
    memset(p, 0xA5, size);
    return p;
}

/* PE(p), column c, of the paper's interleaved encoding, in float64. */
static double pe(int p, int c)
{
    double w = pow(10000.0, -(double)(c / 2) / (DIM / 2));
    return c % 2 ? cos(p * w) : sin(p * w);
}

int main(void)
{
    sinpe_context_options *opts = guarded(sizeof *opts);
    sinpe_spec *spec = guarded(sizeof *spec);
    sinpe_embed_args *a = guarded(sizeof *a);
    sinpe_context *ctx = NULL;
    sinpe_table *tab = NULL;
    cl_int ids[SEQS * LEN], err;
    float w[VOCAB * DIM], out[SEQS * LEN * DIM];
    cl_mem m_ids, m_w, m_out;
    cl_command_queue q;
    double worst = 0.0;
    sinpe_status st;

    printf("old_caller: library %s, header 0.1 (sizeof: options %zu, spec %zu, args %zu)\n",
           sinpe_version_string(), sizeof *opts, sizeof *spec, sizeof *a);
    sinpe_context_options_init(opts);
    CHECK(opts->math == SINPE_MATH_AUTO && !opts->device && !opts->no_disk_cache &&
              !opts->tuning,
          "sinpe_context_options_init left a 0.1 field unset");
    st = sinpe_context_create(opts, &ctx);
    if (st != SINPE_SUCCESS) {
        fprintf(stderr, "old_caller: sinpe_context_create: %s (%s)\n", sinpe_status_string(st),
                sinpe_last_error());
        return 1;
    }

    sinpe_spec_init(spec, DIM);
    CHECK(spec->dim == DIM && spec->layout == SINPE_LAYOUT_INTERLEAVED &&
              spec->odd_dim == SINPE_ODD_ZERO_LAST && spec->base == 10000.0 &&
              spec->shift == 0.0 && spec->angle_scale == 1.0,
          "sinpe_spec_init left a 0.1 field wrong");
    memset(spec, 0xA5, sizeof *spec);
    CHECK(sinpe_spec_preset(spec, SINPE_PRESET_VASWANI, DIM) == SINPE_SUCCESS &&
              spec->dim == DIM && spec->base == 10000.0 && spec->shift == 0.0,
          "sinpe_spec_preset");
    CHECK(sinpe_table_create(ctx, spec, 16, &tab) == SINPE_SUCCESS, "sinpe_table_create");
    if (!tab)
        return 1;
    sinpe_spec back = sinpe_table_spec(tab);
    CHECK(back.dim == DIM && back.base == 10000.0 && back.angle_scale == 1.0 &&
              back.layout == SINPE_LAYOUT_INTERLEAVED,
          "sinpe_table_spec returned another spec");

    for (int i = 0; i < VOCAB * DIM; i++)
        w[i] = (float)((i * 7919 % 2001) - 1000) / 1000.0f;
    for (int r = 0; r < SEQS * LEN; r++)
        ids[r] = (r * 13 + 5) % VOCAB;
    q = sinpe_context_queue(ctx);
    cl_context cl = sinpe_context_cl_context(ctx);
    m_ids = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ids, ids, &err);
    m_w = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof w, w, &err);
    m_out = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof out, NULL, &err);

    sinpe_embed_args_init(a);
    CHECK(a->token_scale == 1.0f && a->weights_scale == 1.0f && !a->ids && !a->vocab_total &&
              a->weights_dtype == SINPE_F32 && a->out_dtype == SINPE_F32 &&
              a->weight_scales_dtype == SINPE_F32 && !a->vocab_shard && !a->skip_pe,
          "sinpe_embed_args_init left a 0.1 field unset");
    CHECK(sinpe_embed_args_preset(a, SINPE_PRESET_VASWANI, DIM, 0) == SINPE_SUCCESS &&
              a->token_scale == 8.0f,
          "sinpe_embed_args_preset");
    a->n_seqs = SEQS;
    a->seq_len = LEN;
    a->ids = m_ids;
    a->weights = m_w;
    a->vocab = VOCAB;
    a->out = m_out;
    a->start = START;
    CHECK(sinpe_enqueue_embed(tab, q, a, 0, NULL, NULL) == SINPE_SUCCESS, "sinpe_enqueue_embed");
    CHECK(clEnqueueReadBuffer(q, m_out, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) ==
              CL_SUCCESS,
          "clEnqueueReadBuffer");
    /* Error bound: the encoding's 1.5e-7, the gather's product exact in
       float64 of float32 values, and one float32 rounding of |out| <= 9. */
    for (int r = 0; r < SEQS * LEN; r++)
        for (int c = 0; c < DIM; c++) {
            double want = 8.0 * (double)w[ids[r] * DIM + c] + pe(START + r % LEN, c);
            double e = fabs((double)out[r * DIM + c] - want);
            worst = e > worst ? e : worst;
        }
    CHECK(worst <= 1.5e-7 + 9.0 * 0x1p-24, "fused output off by %g", worst);
    printf("old_caller: fused output within %.3g of float64 (bound %.3g)\n", worst,
           1.5e-7 + 9.0 * 0x1p-24);

    clReleaseMemObject(m_ids);
    clReleaseMemObject(m_w);
    clReleaseMemObject(m_out);
    sinpe_table_release(tab);
    sinpe_context_release(ctx);
    printf("old_caller: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
