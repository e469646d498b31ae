/*
 * grid.cl -- the 2-D sincos encoding of a patch grid (include/sinpe.h,
 * "Patch grids"): column c < D/2 of token (row i, column j) holds the
 * table's 1-D encoding of half the width at the column position x_j, the
 * others at the row position y_i, each position the float32 value the
 * frameworks form, then exact.  Two launches: the half-rows of the grid's
 * cols + rows distinct positions (work-item (c, j)), then each token's row
 * from them (work-item (c, r): sixteen columns of token r), the plain
 * add's cost.
 */
#ifndef SINPE_GRID_CL
#define SINPE_GRID_CL

#include "abi.h"
#include "dtype.cl"
#include "pe_math.cl"

#pragma OPENCL FP_CONTRACT OFF

/* a / b rounded to nearest even as IEEE division does, for a >= 0 and b >
   0 on every device (OpenCL's / may be 2.5 ulps off): of the floats near
   a quotient the one whose exact residual a - q b (an fma) is smallest. */
SINPE_INLINE float sinpe_div_rn(float a, float b)
{
    float q = a / b, best = q, rbest = fabs(fma(-q, b, a));
    for (int i = -2; i <= 2; i++) {
        float c = as_float(as_int(q) + i);
        float r = fabs(fma(-c, b, a));
        if (c >= 0.0f && (r < rbest || (r == rbest && !(as_int(c) & 1)))) {
            best = c;
            rbest = r;
        }
    }
    return best;
}

/* The position of grid index n: (n / s1) / s2 in float32, as
   arange(grid, dtype=float32) / (grid / base_size) / interpolation_scale. */
SINPE_INLINE float sinpe_grid_pos(uint n, float s1, float s2)
{
    return sinpe_div_rn(sinpe_div_rn((float)n, s1), s2);
}

SINPE_INLINE void sinpe_body_GRID(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_GRID))
{
    uint c = get_global_id(0), r = get_global_id(1);
    if (a.phase == 0) { /* half-row j: column position j, then row position j - cols */
        if (c >= a.d || r >= a.cols + a.rows)
            return;
        float x = r < a.cols ? sinpe_grid_pos(r + a.left, a.s1_cols, a.s2)
                             : sinpe_grid_pos(r - a.cols + a.top, a.s1_rows, a.s2);
        half_rows[(size_t)r * a.d + c] = sinpe_pe_real(x, (int)c, a.d, coef);
        return;
    }
    /* Columns [16 c, 16 c + 16) of token r: sixteen at a time within a
       half, else one by one. */
    uint c0 = 16 * c, n = min(16u, 2 * a.d - min(c0, 2 * a.d));
    if (n == 0 || r >= a.tokens)
        return;
    uint t = r % a.per_seq;
    size_t o = a.out_off + (size_t)r * a.out_stride + c0;
    if (t < a.extra) { /* a class token: a zero row of the table, untouched by the add */
        for (uint j = 0; j < n && !a.add; j++)
            sinpe_store1(0.0f, out, o + j, ot);
        return;
    }
    uint g = t - a.extra;
    global const float *col = half_rows + (size_t)(g % a.cols) * a.d;
    global const float *row = half_rows + (size_t)(a.cols + g / a.cols) * a.d - a.d;
    if (n == 16 && (c0 + 16 <= a.d || c0 >= a.d)) {
        float16 v = vload16(0, (c0 < a.d ? col : row) + c0);
        sinpe_store16(a.add ? sinpe_load16(out, o, ot) + v : v, out, o, ot);
        return;
    }
    for (uint j = 0; j < n; j++) {
        float v = c0 + j < a.d ? col[c0 + j] : row[c0 + j];
        sinpe_store1(a.add ? sinpe_load1(out, o + j, ot) + v : v, out, o + j, ot);
    }
}

#endif /* SINPE_GRID_CL */
