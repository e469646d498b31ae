/*
 * prenorm.cl -- the first stage of a pre-norm Transformer layer as a host
 * writes it with sinpe's device functions:
 *
 *     x[r] = token_scale * E[ids[r]] + PE(pos[r])
 *     y[r] = LayerNorm(x[r]) * gamma + beta
 *
 * in one launch, one work-group per token.  The program is the text of
 * sinpe_device_source() followed by this file.  prenorm_ln is the same
 * LayerNorm on its own, for hosts (and the test) that take x from
 * sinpe_enqueue_embed(): both kernels share prenorm_layernorm, so with the
 * same x and the same work-group size they give the same bits.
 */

/* sinpe rounds token_scale * e and the sum with PE separately. */
#pragma OPENCL FP_CONTRACT OFF

/* The work-group size both kernels are launched with (a power of two). */
#ifndef PRENORM_GROUP
#define PRENORM_GROUP 64
#endif

/* The sum of v over the work-group, by a fixed tree: the same order on
   every launch.  red holds PRENORM_GROUP floats. */
float prenorm_sum(local float *red, float v)
{
    uint l = get_local_id(0);
    red[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = PRENORM_GROUP / 2; w > 0; w /= 2) {
        if (l < w)
            red[l] += red[l + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float s = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return s;
}

/* y = (x - mean) / sqrt(var + eps) * gamma + beta over the row x (dim
   floats in local memory, written by this work-group before the call). */
void prenorm_layernorm(local const float *x, local float *red, uint dim,
                       global const float *gamma, global const float *beta, float eps,
                       global float *y)
{
    uint l = get_local_id(0);
    float part = 0.0f;
    for (uint c = l; c < dim; c += PRENORM_GROUP)
        part += x[c];
    float mean = prenorm_sum(red, part) / (float)dim;
    part = 0.0f;
    for (uint c = l; c < dim; c += PRENORM_GROUP) {
        float d = x[c] - mean;
        part += d * d;
    }
    float inv = 1.0f / sqrt(prenorm_sum(red, part) / (float)dim + eps);
    for (uint c = l; c < dim; c += PRENORM_GROUP)
        y[c] = (x[c] - mean) * inv * gamma[c] + beta[c];
}

/* The fused stage: token r is work-group r.  x_out receives the pre-norm
   sums (for checking; a host would drop it). */
kernel void prenorm_embed_ln(global const int *ids, global const int *pos,
                             global const float *E, float token_scale,
                             global const float *table, int rows, global const float *consts,
                             uint dim, global const float *gamma, global const float *beta,
                             float eps, global float *x_out, global float *y, local float *x,
                             local float *red)
{
    size_t r = get_group_id(0);
    int id = ids[r], p = pos[r];
    for (uint c = get_local_id(0); c < dim; c += PRENORM_GROUP) {
        float v = token_scale * E[(size_t)id * dim + c] +
                  sinpe_pe_value(table, rows, consts, dim, p, c);
        x[c] = v;
        x_out[r * dim + c] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    prenorm_layernorm(x, red, dim, gamma, beta, eps, y + r * dim);
}

/* LayerNorm alone, of rows that sinpe_enqueue_embed() wrote. */
kernel void prenorm_ln(global const float *x_in, uint dim, global const float *gamma,
                       global const float *beta, float eps, global float *y, local float *x,
                       local float *red)
{
    size_t r = get_group_id(0);
    for (uint c = get_local_id(0); c < dim; c += PRENORM_GROUP)
        x[c] = x_in[r * dim + c];
    barrier(CLK_LOCAL_MEM_FENCE);
    prenorm_layernorm(x, red, dim, gamma, beta, eps, y + r * dim);
}
