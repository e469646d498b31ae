/*
 * grid.cl -- the 2-D and 3-D sincos encodings of a patch grid
 * (include/sinpe.h, sinpe_grid_args): a token (frame f, row i, column j)
 * holds the frame table's encoding at the frame's position (video only),
 * then the table's at the column position x_j, then at the row position
 * y_i, each position the float32 value the frameworks form, then exact.
 * Two launches: the half-rows of the grid's cols + rows + frames distinct
 * positions (work-item (c, n)), then each token's row from them
 * (work-item (c, r): sixteen columns of token r), the plain add's cost.
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

/* Where output column c of the token at (frame f, row i, column j) is in
   the half-rows: the frame's part [0, d_t), the column's, the row's. */
SINPE_INLINE size_t sinpe_grid_src(const sinpe_grid_params *a, uint f, uint i, uint j, uint c)
{
    if (c < a->d_t)
        return (size_t)(a->cols + a->rows) * a->d + (size_t)f * a->d_t + c;
    c -= a->d_t;
    return c < a->d ? (size_t)j * a->d + c : (size_t)(a->cols + i) * a->d + c - a->d;
}

SINPE_INLINE uint sinpe_grid_part(const sinpe_grid_params *a, uint c)
{
    return (c >= a->d_t) + (c >= a->d_t + a->d);
}

SINPE_INLINE void sinpe_body_GRID(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_GRID))
{
    uint c = get_global_id(0), r = get_global_id(1), spatial = a.cols + a.rows;
    if (a.phase == 0) { /* half-row r: column r, row r - cols, frame r - cols - rows */
        if (r < spatial && c < a.d) {
            float x = r < a.cols ? sinpe_grid_pos(r + a.left, a.s1_cols, a.s2)
                                 : sinpe_grid_pos(r - a.cols + a.top, a.s1_rows, a.s2);
            half_rows[(size_t)r * a.d + c] = sinpe_pe_real(x, (int)c, a.d, coef);
        } else if (r >= spatial && r - spatial < a.frames && c < a.d_t) {
            float z = sinpe_div_rn((float)(r - spatial), a.s_t);
            half_rows[(size_t)spatial * a.d + (size_t)(r - spatial) * a.d_t + c] =
                sinpe_pe_real(z, (int)c, a.d_t, coef_t);
        }
        return;
    }
    /* Columns [16 c, 16 c + 16) of token r: sixteen at a time within a
       part, else one by one. */
    uint w = a.d_t + 2 * a.d, c0 = 16 * c, n = min(16u, w - min(c0, w));
    if (n == 0 || r >= a.tokens)
        return;
    uint t = r % a.per_seq;
    size_t o = a.out_off + (size_t)r * a.out_stride + c0;
    if (t < a.extra) { /* a class or text token: a zero row, untouched by the add */
        for (uint j = 0; j < n && !a.add; j++)
            sinpe_store1(0.0f, out, o + j, ot);
        return;
    }
    uint g = t - a.extra, j = g % a.cols, i = (g / a.cols) % a.rows, f = g / a.cols / a.rows;
    if (n == 16 && sinpe_grid_part(&a, c0) == sinpe_grid_part(&a, c0 + 15)) {
        float16 v = vload16(0, half_rows + sinpe_grid_src(&a, f, i, j, c0));
        sinpe_store16(a.add ? sinpe_load16(out, o, ot) + v : v, out, o, ot);
        return;
    }
    for (uint k = 0; k < n; k++) {
        float v = half_rows[sinpe_grid_src(&a, f, i, j, c0 + k)];
        sinpe_store1(a.add ? sinpe_load1(out, o + k, ot) + v : v, out, o + k, ot);
    }
}

#endif /* SINPE_GRID_CL */
