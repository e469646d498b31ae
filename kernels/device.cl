/*
 * device.cl -- sinpe's encoding as OpenCL C functions for the host's own
 * kernels (include/sinpe.h, "Device functions"): row p of the table when
 * the table holds it, else pe_math.cl's same operations, the same bits.
 */
#ifndef SINPE_DEVICE_CL
#define SINPE_DEVICE_CL

/* The math mode: sinpe_device_source() defines it for its context, a host
   building offline defines SINPE_FP64 1 for a context whose
   sinpe_context_math() is SINPE_MATH_FP64. */
#ifndef SINPE_FP64
#define SINPE_FP64 0
#endif

#include "pe_math.cl"

/* sinpe_pe() where the compiler may call it rather than inline it: forced
   into a host kernel's loop over columns, its body (which positions in the
   table never run) slowed the example kernel on pocl (bench/RESULTS.md). */
inline float sinpe_pe_outside(int p, int c, uint dim, global const float *consts)
{
    return sinpe_pe(p, c, dim, consts);
}

/* PE(p) at column c (0 <= c < dim) of the spec whose table is table (rows
   rows of dim floats, may be 0) and whose constants are consts. */
inline float sinpe_pe_value(global const float *table, int rows, global const float *consts,
                            uint dim, int p, uint c)
{
    if (p >= 0 && p < rows)
        return table[(size_t)p * dim + c];
    return sinpe_pe_outside(p, (int)c, dim, consts);
}

/* The same for the n columns c .. c + n - 1 (c + n <= dim), into dst. */
inline void sinpe_pe_run(global const float *table, int rows, global const float *consts,
                         uint dim, int p, uint c, uint n, float *dst)
{
    for (uint j = 0; j < n; j++)
        dst[j] = sinpe_pe_value(table, rows, consts, dim, p, c + j);
}

/* The columns (cos_k, sin_k) of a rotary table of rot_dim columns in
   layout COS_SIN (layout 0) or PAIRS (1), k < rot_dim / 2. */
SINPE_INLINE uint2 sinpe_rope_cols(uint rot_dim, uint layout, uint k)
{
    return (uint2)(layout ? 2 * k : k, layout ? 2 * k + 1 : k + rot_dim / 2);
}

/* (cos_k, sin_k) at position p of such a table (past it, one anchor for both). */
inline float2 sinpe_rope_cos_sin(global const float *table, int rows, global const float *consts,
                                 uint rot_dim, uint layout, int p, uint k)
{
    uint2 col = sinpe_rope_cols(rot_dim, layout, k);
    if (p >= 0 && p < rows)
        return (float2)(sinpe_pe_value(table, rows, consts, rot_dim, p, col.x),
                        sinpe_pe_value(table, rows, consts, rot_dim, p, col.y));
    return sinpe_pe_pair(p, (int)col.y, rot_dim, consts);
}

/* The position lane of pair k under a spec's axes (sinpe_rope_axes) and
   sections: blocked, or interleaved across the pairs (src/rope_spec.c's
   sinpe__rope_lane() is the same rule). */
inline uint sinpe_rope_lane(uint axes, uint4 sec, uint k)
{
    if (axes == 2) { /* MROPE_INTERLEAVED */
        uint n = sec.w ? 4 : sec.z ? 3 : sec.y ? 2 : 1, l = k % n;
        uint s = l == 1 ? sec.y : l == 2 ? sec.z : sec.w;
        return l && k < n * s ? l : 0;
    }
    if (axes == 0)
        return 0;
    return (uint)(k >= sec.x) + (uint)(k >= sec.x + sec.y) + (uint)(k >= sec.x + sec.y + sec.z);
}

/* pe_math.cl turned contraction off for its own code; the host's code
   after this text gets the default back. */
#pragma OPENCL FP_CONTRACT DEFAULT

#endif /* SINPE_DEVICE_CL */
