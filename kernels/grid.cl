/*
 * grid.cl -- the 2-D and 3-D sincos encodings of a patch grid
 * (include/sinpe.h, sinpe_grid_args): a token (frame f, row i, column j)
 * holds the frame table's encoding at the frame's position (video only),
 * then the table's at the column position x_j, then at the row position
 * y_i, each position the float32 value the frameworks form, then exact.
 * Two launches: the half-rows of the grid's cols + rows + frames distinct
 * positions (work-item (c, n)), then each token's row from them
 * (work-item (c, r): span c of token r, sixteen columns or the whole
 * row as the record's grid_span says), the plain add's cost.  Or three
 * (grid_span = image, a batch): the half-rows, one image's whole fp32
 * encoding from them (phase 2, the table after the half-rows), then each
 * token's row from that table (phase 3), one source row as the plain add
 * reads it.
 */
#ifndef SINPE_GRID_CL
#define SINPE_GRID_CL

#include "abi.h"
#include "dtype.cl"
#include "pe_math16.cl"

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

/* Columns [c0, c1) of a half-row h of width d at position x, the position
   once for all of them: sixteen a step, the rest one by one. */
SINPE_INLINE void sinpe_grid_half(global float *h, float x, uint c0, uint c1, uint d,
                                  global const float *coef)
{
    uint k = c0;
    for (; k + 16 <= c1; k += 16)
        vstore16(sinpe_pe_real16(x, (int)k, d, coef), 0, h + k);
    for (; k < c1; k++)
        h[k] = sinpe_pe_real(x, (int)k, d, coef);
}

/* Columns [c0, c1) of the token's row at o, of a part that starts at
   column lo, from the part's half-row at src: sixteen at a time, the rest
   one by one.  An fp16 add first runs its sixteens with the add decided
   once, counted in size_t from fixed bases: pocl's loop then holds the two
   conversions, the add and one index step, as a plain add's (ten
   instructions a sixteen where the shared loop took twenty).  Not fp32's
   or bf16's: clang turns that loop into eight lanes in fp32 (slower) and
   bf16 gained nothing. */
SINPE_INLINE void sinpe_grid_part(uint add, global uchar *out, size_t o, global const float *src,
                                  uint lo, uint c0, uint c1, const int ot)
{
    if (ot == SINPE_F16 && add) {
        size_t n16 = (c1 - c0) / 16, e = o + c0;
        global const float *s = src + (c0 - lo);
        for (size_t k = 0; k < n16; k++)
            sinpe_store16(sinpe_load16(out, e + 16 * k, ot) + vload16(k, s), out, e + 16 * k, ot);
        c0 += 16 * (uint)n16;
    }
    for (; c0 + 16 <= c1; c0 += 16) {
        float16 v = vload16(0, src + (c0 - lo));
        sinpe_store16(add ? sinpe_load16(out, o + c0, ot) + v : v, out, o + c0, ot);
    }
    for (; c0 < c1; c0++) {
        float v = src[c0 - lo];
        sinpe_store1(add ? sinpe_load1(out, o + c0, ot) + v : v, out, o + c0, ot);
    }
}

SINPE_INLINE void sinpe_body_GRID(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_GRID))
{
    uint c = get_global_id(0), r = get_global_id(1), spatial = a.cols + a.rows;
    /* Rows at the columns' positions (a square grid, one scale, one crop
       offset): row i's half-row is column i's, written once. */
    uint rows_at = a.rows == a.cols && a.top == a.left && a.s1_rows == a.s1_cols ? 0 : a.cols;
    if (a.phase == 0) { /* half-row r: column r, row r - cols, frame r - cols - rows */
        uint c0 = c * a.cols0;
        if (r >= a.cols && r < spatial && !rows_at)
            return;
        if (r < spatial) {
            float x = r < a.cols ? sinpe_grid_pos(r + a.left, a.s1_cols, a.s2)
                                 : sinpe_grid_pos(r - a.cols + a.top, a.s1_rows, a.s2);
            sinpe_grid_half(half_rows + (size_t)r * a.d, x, c0, min(c0 + a.cols0, a.d), a.d,
                            coef);
        } else if (r - spatial < a.frames) {
            float z = sinpe_div_rn((float)(r - spatial), a.s_t);
            sinpe_grid_half(half_rows + (size_t)spatial * a.d + (size_t)(r - spatial) * a.d_t, z,
                            c0, min(c0 + a.cols0, a.d_t), a.d_t, coef_t);
        }
        return;
    }
    /* Columns [16 span c, 16 span (c + 1)) of token r (phases 1 and 3)
       or of the image's grid place r (phase 2), part by part: the indices
       once for all of them. */
    uint w = a.d_t + 2 * a.d, per = 16 * a.span, c0 = c < (w + per - 1) / per ? per * c : w;
    uint c1 = min(c0 + per, w), places = a.per_seq - a.extra;
    global float *table = half_rows + (size_t)spatial * a.d + (size_t)a.frames * a.d_t;
    if (c0 == c1 || r >= (a.phase == 2 ? places : a.tokens))
        return;
    uint t = a.phase == 2 ? r + a.extra : r % a.per_seq;
    size_t o = a.out_off + (size_t)r * a.out_stride;
    if (t < a.extra) { /* a class or text token: a zero row, untouched by the add */
        for (uint k = c0; k < c1 && !a.add; k++)
            sinpe_store1(0.0f, out, o + k, ot);
        return;
    }
    uint g = t - a.extra, j = g % a.cols, i = (g / a.cols) % a.rows, f = g / a.cols / a.rows;
    if (a.phase == 3) { /* the grid place's row of the image's table */
        sinpe_grid_part(a.add, out, o, table + (size_t)g * w, 0, c0, c1, ot);
        return;
    }
    /* Each part's half-row: the frame's, columns [0, d_t), the column's,
       [d_t, d_t + d), the row's, [d_t + d, w); into the table's row g in
       fp32 (phase 2), or token r's. */
    const size_t base[3] = {(size_t)(a.cols + a.rows) * a.d + (size_t)f * a.d_t,
                            (size_t)j * a.d, (size_t)(rows_at + i) * a.d};
    const uint ends[3] = {a.d_t, a.d_t + a.d, w};
    for (uint p = 0, lo = 0; p < 3; lo = ends[p++])
        if (max(c0, lo) < min(c1, ends[p])) {
            if (a.phase == 2)
                sinpe_grid_part(0, (global uchar *)table, (size_t)g * w, half_rows + base[p], lo,
                                max(c0, lo), min(c1, ends[p]), SINPE_F32);
            else
                sinpe_grid_part(a.add, out, o, half_rows + base[p], lo, max(c0, lo),
                                min(c1, ends[p]), ot);
        }
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_GRID
kernel void sinpe_grid_f32(SINPE_PARAMS(SINPE_SIG_GRID)) { SINPE_BODY(GRID, F32); }
kernel void sinpe_grid_f16(SINPE_PARAMS(SINPE_SIG_GRID)) { SINPE_BODY(GRID, F16); }
kernel void sinpe_grid_bf16(SINPE_PARAMS(SINPE_SIG_GRID)) { SINPE_BODY(GRID, BF16); }
#endif
#endif

#endif /* SINPE_GRID_CL */
