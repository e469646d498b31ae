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

/* Pair (x1, x2) rotated by (c, s) in sinpe_enqueue_rope()'s order:
   (fma(x1, c, -(x2 s)), fma(x2, c, x1 s)), each product and fma rounded. */
inline float2 sinpe_rope_turn(float x1, float x2, float c, float s)
{
    return (float2)(fma(x1, c, -(x2 * s)), fma(x2, c, x1 * s));
}

/* The per-head norm of q and k (include/sinpe.h, sinpe_qk_norm), in
   three steps, double-floats (hi, lo): 32 sums from (float2)(0), sum l
   taking acc_l = sinpe_norm_square(acc_l, x_c) over the columns c = l,
   l + 32, l + 64, ... in order, merged as a tree: for s = 16, 8, 4, 2, 1,
   acc_l = sinpe_norm_merge(acc_l, acc_(l + s)) for l < s; r =
   sinpe_norm_scale(acc_0, n, eps); then each y_c = sinpe_norm_value(x_c,
   w_c, kind, r). */
inline float2 sinpe_norm_square(float2 acc, float x)
{
    float p = x * x, pe = fma(x, x, -p);
    float s = acc.x + p, b = s - acc.x;
    float e = (acc.x - (s - b)) + (p - b);
    return (float2)(s, acc.y + (e + pe));
}

/* a + b by two-sum of the high parts, the low parts added. */
inline float2 sinpe_norm_merge(float2 a, float2 b)
{
    float s = a.x + b.x, t = s - a.x;
    float e = (a.x - (s - t)) + (b.x - t);
    return (float2)(s, (a.y + b.y) + e);
}

/* 1 / n rounded to nearest: sinpe_norm_scale()'s first step, apart so
   that a kernel computes it once for its heads of n columns. */
SINPE_INLINE float sinpe_norm_inv(uint n)
{
    float nf = (float)n, i0 = 1.0f / nf, inv = i0, best = fabs(fma(-nf, i0, 1.0f));
    for (int e = -1; e <= 1; e += 2) {
        float c = as_float(as_uint(i0) + (uint)e), err = fabs(fma(-nf, c, 1.0f));
        inv = err < best ? c : inv;
        best = err < best ? err : best;
    }
    return inv;
}

/* sinpe_norm_scale()'s steps after 1 / n, inv = sinpe_norm_inv(n). */
SINPE_INLINE float2 sinpe_norm_scale_inv(float2 acc, uint n, float inv, float eps)
{
    float nf = (float)n;
    float q = acc.x * inv, ql = (fma(-q, nf, acc.x) + acc.y) * inv;
    float s = q + eps, b = s - q;
    float e = (q - (s - b)) + (eps - b) + ql;
    float mh = s + e, ml = e - (mh - s);
    if (!(mh > 0.0f) || isinf(mh))
        return (float2)(mh == 0.0f ? INFINITY : isinf(mh) ? 0.0f : NAN, 0.0f);
    float r = as_float(0x5f375a86u - (as_uint(mh) >> 1));
    for (int i = 0; i < 3; i++)
        r = r * (1.5f - 0.5f * mh * r * r);
    float ah = r * r, al = fma(r, r, -ah);
    float d = fma(mh, ah, -1.0f) + (mh * al + ml * ah);
    return (float2)(r, -0.5f * r * d);
}

/* 1 / sqrt(acc / n + eps) as a double-float, from additions,
   multiplications and fma alone (each correctly rounded: the same bits on
   every device): 1 / n rounded to nearest (the float32 quotient's
   neighbours compared by exact residuals), the mean's remainder by fma,
   eps added by two-sum, 1 / sqrt of the high part by three Newton steps
   from an exponent halving, then one Newton step in double-float.  A mean
   of 0 gives (inf, 0), an infinite one (0, 0); a subnormal one (eps 0 and
   a head of values near 1e-19) is out of range. */
inline float2 sinpe_norm_scale(float2 acc, uint n, float eps)
{
    return sinpe_norm_scale_inv(acc, n, sinpe_norm_inv(n), eps);
}

/* x times its weight (kind 1: w, 2: 1 + w, 3: 1) times r, one rounding. */
inline float sinpe_norm_value(float x, float w, uint kind, float2 r)
{
    float th = x, tl = 0.0f;
    if (kind == 1 || kind == 2) {
        float p = x * w, pl = fma(x, w, -p);
        th = p;
        tl = pl;
        if (kind == 2) { /* x + x w by two-sum */
            float s = x + p, b = s - x;
            th = s;
            tl = ((x - (s - b)) + (p - b)) + pl;
        }
    }
    return fma(th, r.x, fma(th, r.y, tl * r.x));
}

/* Llama 4's attention temperature at position p in float32:
   log1p(n) attn_scale + 1, n = floor((p + 1) / floor_scale), 0 for p < -1. */
inline float sinpe_attn_temperature(int p, float attn_scale, uint floor_scale)
{
    uint n = p < -1 ? 0u : (uint)((long)p + 1) / floor_scale;
    return log1p((float)n) * attn_scale + 1.0f;
}

/* pe_math.cl turned contraction off for its own code; the host's code
   after this text gets the default back. */
#pragma OPENCL FP_CONTRACT DEFAULT

#endif /* SINPE_DEVICE_CL */
