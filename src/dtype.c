/*
 * dtype.c -- the storage types' properties (the one table a new type adds
 * a row to, beside its decoder in kernels/quant.cl), and the host's exact
 * conversions to and from the small float formats, for the quantizer and
 * the token scale's rounding.
 */
#include "sinpe_internal.h"

#include <math.h>

/* One row per sinpe_dtype, in its order; ebits, mbits and ieee describe
   the small float formats (sinpe__encode below), 0 for the others. */
static const struct row {
    sinpe_dtype_info info;
    int ebits, mbits, ieee;
} rows[] = {
    /* name  values bytes quantized output scales  largest finite  format */
    {{"f32", 1, 4, 0, 1, SINPE_DTYPE_SCALES_NONE, 3.4028234663852886e38}, 8, 23, 1},
    {{"f16", 1, 2, 0, 1, SINPE_DTYPE_SCALES_NONE, 65504.0}, 5, 10, 1},
    {{"bf16", 1, 2, 0, 1, SINPE_DTYPE_SCALES_NONE, 3.3895313892515355e38}, 8, 7, 1},
    {{"i8", 1, 1, 1, 0, SINPE_DTYPE_SCALES_ROW, 127.0}, 0, 0, 0},
    {{"q8_0", 32, 34, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 127.0}, 0, 0, 0},
    {{"fp8_e4m3", 1, 1, 1, 0, SINPE_DTYPE_SCALES_ROW_OR_TENSOR, 448.0}, 4, 3, 0},
    {{"fp8_e5m2", 1, 1, 1, 0, SINPE_DTYPE_SCALES_ROW_OR_TENSOR, 57344.0}, 5, 2, 1},
    /* ggml's block types (kernels/blocks.cl); largest: the largest |q| */
    {{"q4_0", 32, 18, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 8.0}, 0, 0, 0},
    {{"q4_1", 32, 20, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 15.0}, 0, 0, 0},
    {{"q5_0", 32, 22, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 16.0}, 0, 0, 0},
    {{"q5_1", 32, 24, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 31.0}, 0, 0, 0},
    {{"q4_k", 256, 144, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 15.0}, 0, 0, 0},
    {{"q5_k", 256, 176, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 31.0}, 0, 0, 0},
    {{"q6_k", 256, 210, 1, 0, SINPE_DTYPE_SCALES_BLOCK, 32.0}, 0, 0, 0},
};
#define N_TYPES (sizeof rows / sizeof rows[0])
typedef char sinpe__types_fit[N_TYPES <= SINPE__MAX_DTYPES ? 1 : -1];

/* The kernels' values of the types (kernels/abi.h): the enum's, a row each. */
#define AGREE(name, value) &&SINPE_##name == value
#define COUNT(name, value) +1
typedef char sinpe__kernels_agree[1 SINPE_DTYPE_VALUES(AGREE) &&
                                  0 SINPE_DTYPE_VALUES(COUNT) == N_TYPES ? 1 : -1];

const sinpe_dtype_info *sinpe__dtype(sinpe_dtype t)
{
    return (unsigned)t < N_TYPES ? &rows[t].info : NULL;
}

size_t sinpe_dtype_count(void)
{
    sinpe__clear_error();
    return N_TYPES;
}

sinpe_status sinpe_dtype_query(sinpe_dtype type, sinpe_dtype_info *info, size_t info_size)
{
    sinpe__clear_error();
    SINPE_CHECK(!info, SINPE_NULL_ARGUMENT, "info is NULL");
    SINPE_CHECK(!sinpe__dtype(type), SINPE_INVALID_DTYPE, "type %d is not a sinpe_dtype",
                (int)type);
    return sinpe__struct_out(SINPE__DTYPE_INFO, info, info_size | SINPE_STRUCT_TAG,
                             sinpe__dtype(type), SINPE__FILL, "info");
}

size_t sinpe_dtype_bytes(sinpe_dtype type, size_t values)
{
    const sinpe_dtype_info *d = sinpe__dtype(type);
    size_t blocks;
    if (!d)
        return 0;
    blocks = values / d->block_values + (values % d->block_values != 0);
    return blocks > SIZE_MAX / d->block_bytes ? SIZE_MAX : blocks * d->block_bytes;
}

/*
 * The bits of x rounded to nearest even in a binary format of ebits
 * exponent and mbits fraction bits with subnormals (1 + ebits + mbits bits,
 * sign first).  ieee: the top exponent holds infinities and NaNs (fp16,
 * bf16, E5M2), where a value too large becomes infinity; else (E4M3) the top
 * exponent holds finite values but for S.1111.111, NaN, and a value too
 * large saturates to the largest finite.  NaN gives the quiet NaN pattern.
 */
unsigned sinpe__encode(sinpe_dtype t, double x)
{
    int ebits = rows[t].ebits, mbits = rows[t].mbits, ieee = rows[t].ieee;
    unsigned sign = signbit(x) ? 1u << (ebits + mbits) : 0u;
    int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, exp;
    unsigned top = (1u << ebits) - 1u, mfull = 1u << mbits;
    double a = fabs(x), q, m;
    unsigned emax_bits = ieee ? top - 1u : top;
    double largest = ldexp((double)(ieee ? 2u * mfull - 1u : 2u * mfull - 2u),
                           (int)emax_bits - bias - mbits);
    if (isnan(x))
        return sign | (top << mbits) | (ieee ? mfull >> 1 : mfull - 1u);
    if (a == 0.0)
        return sign;
    frexp(a, &exp);
    exp -= 1; /* a = 1.f x 2^exp */
    q = ldexp(1.0, (exp < emin ? emin : exp) - mbits);
    m = nearbyint(a / q); /* exact quotient: q is a power of two */
    if (m * q > largest || isinf(a))
        return ieee ? sign | (top << mbits) : sign | (top << mbits) | (mfull - 2u);
    if (exp < emin) /* subnormal, or rounded up to the smallest normal */
        return sign | (unsigned)m;
    if (m >= 2.0 * mfull) { /* rounded up into the next binade */
        m /= 2.0;
        exp++;
    }
    return sign | ((unsigned)(exp + bias) << mbits) | ((unsigned)m - mfull);
}

/* The value of bits in such a format. */
double sinpe__decode(sinpe_dtype t, unsigned bits)
{
    int ebits = rows[t].ebits, mbits = rows[t].mbits, ieee = rows[t].ieee;
    int bias = (1 << (ebits - 1)) - 1;
    unsigned top = (1u << ebits) - 1u, mfull = 1u << mbits;
    unsigned e = (bits >> mbits) & top, m = bits & (mfull - 1u);
    double sign = (bits >> (ebits + mbits)) & 1u ? -1.0 : 1.0;
    if (e == top && (ieee || m == mfull - 1u))
        return ieee && m == 0 ? sign * INFINITY : NAN;
    if (e == 0)
        return sign * ldexp((double)m, 1 - bias - mbits);
    return sign * ldexp((double)(m + mfull), (int)e - bias - mbits);
}

float sinpe__round_to(sinpe_dtype t, float x)
{
    if (t == SINPE_F32 || !sinpe__dtype(t) || !sinpe__dtype(t)->output)
        return x;
    return (float)sinpe__decode(t, sinpe__encode(t, x));
}
