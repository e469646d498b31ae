/*
 * quantize.c -- sinpe_quantize: float32 rows into every weights layout, on
 * the host, rounding to nearest even, scales chosen as max-abs over the
 * type's largest finite value.
 */
#include "sinpe_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* x / s to nearest even, within +-limit (0 where s is 0). */
static double quotient(double x, double s, double limit)
{
    double q = s != 0.0 ? nearbyint(x / s) : 0.0;
    return q > limit ? limit : q < -limit ? -limit : q;
}

/* The scale of n values (max-abs over largest) rounded to its storage
   type dt, F32 or F16, as value (returned) and bits (*bits). */
static double stored_scale(const float *x, size_t n, double largest, sinpe_dtype dt, uint32_t *bits)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s = fabs((double)x[i]) > s ? fabs((double)x[i]) : s;
    s /= largest;
    if (dt == SINPE_F32) {
        float f = (float)s;
        memcpy(bits, &f, 4);
        return f;
    }
    *bits = (uint32_t)sinpe__encode(SINPE_F16, s);
    return sinpe__decode(SINPE_F16, *bits);
}

/* Row r of x into out, its scale into scales; with out NULL, only the
   checks made before anything is written: every value finite, and every
   scale the call stores too (an fp16 one can overflow); the error names
   the first value, or row (and Q8_0 block), at fault. */
static sinpe_status put_row(const sinpe_dtype_info *info, sinpe_dtype type, const float *x,
                            size_t r, size_t dim, unsigned char *out, void *scales,
                            sinpe_dtype scales_dtype)
{
    uint32_t bits;
    double s = 1.0;
    for (size_t c = 0; c < dim && !out; c++)
        SINPE_CHECK(!isfinite(x[c]), SINPE_INVALID_OPTION, "src[%zu] is not finite", r * dim + c);
    if (type == SINPE_Q8_0) {
        for (size_t b = 0; b < dim / 32; b++) {
            double d = stored_scale(x + 32 * b, 32, 127.0, SINPE_F16, &bits);
            SINPE_CHECK(!out && isinf(d), SINPE_INVALID_OPTION,
                        "src row %zu, block %zu: its scale (max |x| / 127) overflows fp16", r, b);
            if (!out)
                continue;
            unsigned char *q = out + (r * dim / 32 + b) * 34;
            q[0] = (unsigned char)(bits & 0xff); /* little-endian, as ggml writes it */
            q[1] = (unsigned char)(bits >> 8);
            for (int j = 0; j < 32; j++)
                q[2 + j] = (unsigned char)(signed char)quotient(x[32 * b + j], d, 127.0);
        }
        return SINPE_SUCCESS;
    }
    if (info->scales != SINPE_DTYPE_SCALES_NONE && scales) {
        s = stored_scale(x, dim, info->largest, scales_dtype, &bits);
        SINPE_CHECK(!out && isinf(s), SINPE_INVALID_OPTION,
                    "src row %zu: its scale overflows the F16 scales", r);
        if (out && scales_dtype == SINPE_F32)
            memcpy((unsigned char *)scales + 4 * r, &bits, 4);
        else if (out)
            ((uint16_t *)scales)[r] = (uint16_t)bits;
    }
    for (size_t c = 0; c < dim && out; c++) {
        size_t i = r * dim + c;
        if (type == SINPE_F32)
            memcpy(out + 4 * i, &x[c], 4);
        else if (type == SINPE_I8)
            out[i] = (unsigned char)(signed char)quotient(x[c], s, 127.0);
        else if (info->block_bytes == 1) { /* FP8: saturated, then rounded */
            double v = s != 0.0 ? x[c] / s : 0.0;
            v = v > info->largest ? info->largest : v < -info->largest ? -info->largest : v;
            out[i] = (unsigned char)sinpe__encode(type, v);
        } else { /* F16, BF16 */
            uint16_t h = (uint16_t)sinpe__encode(type, x[c]);
            memcpy(out + 2 * i, &h, 2);
        }
    }
    return SINPE_SUCCESS;
}

sinpe_status sinpe_quantize(sinpe_dtype type, const float *src, size_t rows, size_t dim,
                            void *dst, size_t dst_size, void *scales, sinpe_dtype scales_dtype)
{
    const sinpe_dtype_info *info = sinpe__dtype(type);
    unsigned char *out = dst;
    size_t n;

    sinpe__clear_error();
    SINPE_CHECK(!info, SINPE_INVALID_DTYPE, "type %d is not a sinpe_dtype", (int)type);
    SINPE_CHECK(!src, SINPE_NULL_ARGUMENT, "src is NULL");
    SINPE_CHECK(!dst, SINPE_NULL_ARGUMENT, "dst is NULL");
    SINPE_CHECK(rows == 0 || dim == 0, SINPE_INVALID_SHAPE, "rows and dim must not be 0");
    SINPE_CHECK(rows > SIZE_MAX / dim, SINPE_INVALID_SHAPE, "rows * dim overflows");
    n = rows * dim;
    SINPE_CHECK(dim % info->block_values != 0, SINPE_INVALID_SHAPE,
                "dim %zu: %s rows are whole blocks of %zu values", dim, info->name,
                info->block_values);
    SINPE_CHECK(dst_size < sinpe_dtype_bytes(type, n), SINPE_BUFFER_TOO_SMALL,
                "dst holds %zu bytes, %zu rows of %zu %s values need %zu", dst_size, rows, dim,
                info->name, sinpe_dtype_bytes(type, n));
    SINPE_CHECK(info->scales == SINPE_DTYPE_SCALES_ROW && !scales, SINPE_NULL_ARGUMENT,
                "scales is NULL: %s needs one scale per row", info->name);
    SINPE_CHECK(scales && info->scales != SINPE_DTYPE_SCALES_NONE &&
                    info->scales != SINPE_DTYPE_SCALES_BLOCK && scales_dtype != SINPE_F32 &&
                    scales_dtype != SINPE_F16,
                SINPE_INVALID_DTYPE, "scales_dtype %d: scales are F32 or F16", (int)scales_dtype);
    for (size_t r = 0; r < rows; r++)
        SINPE_FORWARD(put_row(info, type, src + r * dim, r, dim, NULL, scales, scales_dtype));
    for (size_t r = 0; r < rows; r++)
        put_row(info, type, src + r * dim, r, dim, out, scales, scales_dtype);
    return SINPE_SUCCESS;
}
