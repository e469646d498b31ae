/*
 * quantize.c -- sinpe_quantize: float32 rows into every weights layout, on
 * the host, rounding to nearest even, scales chosen as max-abs over the
 * type's largest finite value; ggml's 4- and 5-bit block types as ggml's
 * reference quantizer writes them.
 */
#include "sinpe_internal.h"

#include <float.h>
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

/* Code of one value of ggml's 4/5-bit reference quantizer: the sum t of
   its float32 operations truncated, within 0 .. top (0 for a NaN, which
   only a reciprocal overflowing to infinity gives). */
static unsigned ggml_code(float t, unsigned top)
{
    return !(t >= 0.0f) ? 0u : t >= (float)top ? top : (unsigned)t;
}

/* Block b of row r, the 32 values at x, as ggml's reference quantizer
   (quantize_row_q4_0_ref and its kin) writes Q4_0, Q4_1, Q5_0 or Q5_1:
   float32 operations in its order, each its own statement (no
   contraction); with q NULL only the check that d and m fit fp16. */
static sinpe_status ggml_block(sinpe_dtype type, const float *x, size_t r, size_t b,
                               unsigned char *q)
{
    int with_min = type == SINPE_Q4_1 || type == SINPE_Q5_1;
    int five = type == SINPE_Q5_0 || type == SINPE_Q5_1;
    unsigned top = five ? 31u : 15u, dbits, mbits;
    float lo = FLT_MAX, hi = -FLT_MAX, amax = 0.0f, max = 0.0f, d, id;
    float add = with_min ? 0.5f : five ? 16.5f : 8.5f;
    uint32_t qh = 0;
    for (int j = 0; j < 32; j++) {
        if (amax < fabsf(x[j])) { /* the first value of largest |x| */
            amax = fabsf(x[j]);
            max = x[j];
        }
        lo = x[j] < lo ? x[j] : lo;
        hi = x[j] > hi ? x[j] : hi;
    }
    d = with_min ? (hi - lo) / (float)top : max / (five ? -16.0f : -8.0f);
    id = d != 0.0f ? 1.0f / d : 0.0f;
    dbits = sinpe__encode(SINPE_F16, d);
    mbits = sinpe__encode(SINPE_F16, with_min ? lo : 0.0);
    SINPE_CHECK(!q && (isinf(sinpe__decode(SINPE_F16, dbits)) ||
                       isinf(sinpe__decode(SINPE_F16, mbits))),
                SINPE_INVALID_OPTION, "src row %zu, block %zu: its d or m overflows fp16", r, b);
    if (!q)
        return SINPE_SUCCESS;
    q[0] = (unsigned char)(dbits & 0xff); /* little-endian, as ggml writes it */
    q[1] = (unsigned char)(dbits >> 8);
    if (with_min) {
        q[2] = (unsigned char)(mbits & 0xff);
        q[3] = (unsigned char)(mbits >> 8);
    }
    unsigned char *qs = q + (with_min ? 4 : 2) + (five ? 4 : 0);
    for (int j = 0; j < 32; j++) {
        float t = with_min ? x[j] - lo : x[j];
        t = t * id;
        t = t + add;
        unsigned c = ggml_code(t, top);
        qs[j & 15] = (unsigned char)(j < 16 ? c & 15u : (qs[j & 15] | (c & 15u) << 4));
        qh |= (uint32_t)(c >> 4 & 1u) << j;
    }
    for (int k = 0; five && k < 4; k++)
        q[(with_min ? 4 : 2) + k] = (unsigned char)(qh >> 8 * k);
    return SINPE_SUCCESS;
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
    if (info->scales == SINPE_DTYPE_SCALES_BLOCK && type != SINPE_Q8_0) {
        for (size_t b = 0; b < dim / 32; b++)
            SINPE_FORWARD(ggml_block(type, x + 32 * b, r, b,
                                     out ? out + (r * dim / 32 + b) * info->block_bytes : NULL));
        return SINPE_SUCCESS;
    }
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
    SINPE_CHECK(info->block_values > 32, SINPE_INVALID_DTYPE,
                "type %s: sinpe_quantize does not write the k-quants (their tables come "
                "from GGUF files)", info->name);
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
