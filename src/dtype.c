/*
 * dtype.c -- the storage types' properties (the one table a new type adds
 * a row to, beside its decoder in kernels/quant.cl), and the host's exact
 * conversions to and from the small float formats, for the quantizer and
 * the token scale's rounding.
 */
#include "sinpe_internal.h"

#include <math.h>

static const sinpe__dtype_info types[SINPE__N_DTYPES] = {
    /* name       block bytes output  scales             largest finite */
    {"f32", 1, 4, 1, SINPE__SCALES_NONE, 3.4028234663852886e38},
    {"f16", 1, 2, 1, SINPE__SCALES_NONE, 65504.0},
    {"bf16", 1, 2, 1, SINPE__SCALES_NONE, 3.3895313892515355e38},
    {"i8", 1, 1, 0, SINPE__SCALES_ROW, 127.0},
    {"q8_0", 32, 34, 0, SINPE__SCALES_BLOCK, 127.0},
    {"fp8_e4m3", 1, 1, 0, SINPE__SCALES_ROW_OR_TENSOR, 448.0},
    {"fp8_e5m2", 1, 1, 0, SINPE__SCALES_ROW_OR_TENSOR, 57344.0},
};

const sinpe__dtype_info *sinpe__dtype(sinpe_dtype t)
{
    return (unsigned)t < SINPE__N_DTYPES ? &types[t] : NULL;
}

size_t sinpe_dtype_bytes(sinpe_dtype type, size_t values)
{
    const sinpe__dtype_info *d = sinpe__dtype(type);
    size_t blocks;
    if (!d)
        return 0;
    blocks = values / d->block + (values % d->block != 0);
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
static unsigned encode(double x, int ebits, int mbits, int ieee)
{
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
static double decode(unsigned bits, int ebits, int mbits, int ieee)
{
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

/* The formats of the small types: exponent bits, fraction bits, IEEE. */
static void format(sinpe_dtype t, int *ebits, int *mbits, int *ieee)
{
    *ieee = t != SINPE_FP8_E4M3;
    *ebits = t == SINPE_F16 ? 5 : t == SINPE_BF16 ? 8 : t == SINPE_FP8_E4M3 ? 4 : 5;
    *mbits = t == SINPE_F16 ? 10 : t == SINPE_BF16 ? 7 : t == SINPE_FP8_E4M3 ? 3 : 2;
}

unsigned sinpe__encode(sinpe_dtype t, double x)
{
    int e, m, ieee;
    format(t, &e, &m, &ieee);
    return encode(x, e, m, ieee);
}

double sinpe__decode(sinpe_dtype t, unsigned bits)
{
    int e, m, ieee;
    format(t, &e, &m, &ieee);
    return decode(bits, e, m, ieee);
}

float sinpe__round_to(sinpe_dtype t, float x)
{
    if (t == SINPE_F32 || !sinpe__dtype(t) || !sinpe__dtype(t)->output)
        return x;
    return (float)sinpe__decode(t, sinpe__encode(t, x));
}
