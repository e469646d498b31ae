/*
 * host.c -- the synchronous convenience call on host memory.
 */
#include "sinpe_internal.h"

#include <stdint.h>

static cl_mem upload(sinpe_context *ctx, const void *src, size_t bytes, cl_int *err)
{
    return clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)src, err);
}

sinpe_status sinpe_embed_host(sinpe_table *table, const int32_t *ids, size_t n_seqs, size_t seq_len,
                              const float *weights, size_t vocab, float token_scale, int32_t start,
                              const int32_t *positions, float *out)
{
    sinpe_embed_args a;
    sinpe_context *ctx;
    sinpe_status st = SINPE_SUCCESS;
    cl_int err = CL_SUCCESS;
    cl_mem bufs[4] = {NULL, NULL, NULL, NULL};
    size_t n, dim, most;

    /* Every check comes before the first allocation or copy: the upload
       reads vocab * dim floats at weights, which a wrong vocab overruns. */
    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_CHECK(!ids, SINPE_NULL_ARGUMENT, "ids is NULL");
    SINPE_CHECK(!weights, SINPE_NULL_ARGUMENT, "weights is NULL");
    SINPE_CHECK(!out, SINPE_NULL_ARGUMENT, "out is NULL");
    SINPE_CHECK(n_seqs == 0, SINPE_INVALID_SHAPE, "n_seqs is 0");
    SINPE_CHECK(seq_len == 0, SINPE_INVALID_SHAPE, "seq_len is 0");
    SINPE_CHECK(vocab == 0, SINPE_INVALID_SHAPE, "vocab is 0");
    SINPE_CHECK(vocab > (size_t)INT32_MAX, SINPE_INVALID_SHAPE, "vocab %zu exceeds 2^31 - 1",
                vocab);
    SINPE_CHECK(n_seqs > (size_t)INT32_MAX / seq_len, SINPE_INVALID_SHAPE,
                "n_seqs * seq_len exceeds 2^31 - 1 tokens");
    SINPE_CHECK(!positions && (int64_t)start + (int64_t)(seq_len - 1) > INT32_MAX,
                SINPE_INVALID_SHAPE,
                "start %d + seq_len - 1 exceeds the largest position 2^31 - 1", (int)start);
    ctx = table->ctx;
    dim = table->spec.dim;
    n = n_seqs * seq_len;
    /* The most rows of dim floats that one buffer (and a size_t) holds. */
    most = (ctx->info.max_alloc < SIZE_MAX ? (size_t)ctx->info.max_alloc : SIZE_MAX) /
           sizeof(float) / dim;
    SINPE_CHECK(vocab > most, SINPE_TOO_LARGE,
                "weights: vocab %zu x dim %zu floats exceed the device's largest buffer "
                "(%llu bytes)",
                vocab, dim, (unsigned long long)ctx->info.max_alloc);
    SINPE_CHECK(n > most, SINPE_TOO_LARGE,
                "out: n_seqs * seq_len %zu x dim %zu floats exceed the device's largest buffer "
                "(%llu bytes)",
                n, dim, (unsigned long long)ctx->info.max_alloc);
    for (size_t r = 0; r < n; r++)
        SINPE_CHECK(ids[r] < 0 || (size_t)ids[r] >= vocab, SINPE_ID_OUT_OF_RANGE,
                    "ids[%zu] = %d lies outside [0, vocab = %zu)", r, (int)ids[r], vocab);

    bufs[0] = upload(ctx, ids, n * sizeof *ids, &err);
    if (err == CL_SUCCESS)
        bufs[1] = upload(ctx, weights, vocab * dim * sizeof *weights, &err);
    if (err == CL_SUCCESS && positions)
        bufs[2] = upload(ctx, positions, n * sizeof *positions, &err);
    if (err == CL_SUCCESS)
        bufs[3] = clCreateBuffer(ctx->cl_ctx, CL_MEM_WRITE_ONLY, n * dim * sizeof *out, NULL,
                                 &err);
    if (err != CL_SUCCESS) {
        st = sinpe__cl_fail(err, "clCreateBuffer");
        goto done;
    }
    sinpe_embed_args_init(&a);
    a.n_seqs = n_seqs;
    a.seq_len = seq_len;
    a.ids = bufs[0];
    a.weights = bufs[1];
    a.vocab = vocab;
    a.positions = bufs[2];
    a.out = bufs[3];
    a.token_scale = token_scale;
    a.start = start;
    st = sinpe_enqueue_embed(table, ctx->queue, &a, 0, NULL, NULL);
    if (st != SINPE_SUCCESS)
        goto done;
    err = clEnqueueReadBuffer(ctx->queue, bufs[3], CL_TRUE, 0, n * dim * sizeof *out, out, 0,
                              NULL, NULL);
    if (err != CL_SUCCESS)
        st = sinpe__cl_fail(err, "clEnqueueReadBuffer(out)");
done:
    for (int i = 0; i < 4; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    return st;
}
