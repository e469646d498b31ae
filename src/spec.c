/*
 * spec.c -- the encoding spec: defaults, validation, and the per-column
 * descriptors that tell the kernels which frequency and phase each column has.
 */
#include "sinpe_internal.h"

#include <math.h>
#include <string.h>

/* dim limit: keeps the coefficient buffer ((8 + 4 * 128) floats a column) modest. */
#define SINPE_MAX_DIM 65536u

void sinpe_spec_init_sized(sinpe_spec *spec, size_t dim, size_t struct_size)
{
    sinpe_spec own;
    memset(&own, 0, sizeof own); /* INTERLEAVED and ODD_ZERO_LAST are 0 */
    own.dim = dim;
    own.base = 10000.0;
    own.angle_scale = 1.0;
    sinpe__struct_init(SINPE__SPEC, spec, struct_size, &own, "spec");
}

/* Column counts: S sin columns, C cos columns; D the exponent denominator. */
static void spec_counts(const sinpe_spec *s, size_t *S, size_t *C, double *D)
{
    size_t h = s->dim / 2, odd = s->dim & 1;
    int extra = s->odd_dim == SINPE_ODD_EXTRA_SIN && odd;
    *S = h + (extra ? 1 : 0);
    *C = h;
    *D = (extra ? (double)s->dim / 2.0 : (double)h) - s->shift;
}

sinpe_status sinpe__spec_validate(const sinpe_spec *s)
{
    size_t S, C;
    double D;
    SINPE_CHECK(s->dim < 1, SINPE_INVALID_SPEC, "spec.dim is 0: it must be at least 1");
    SINPE_CHECK(s->dim > SINPE_MAX_DIM, SINPE_INVALID_SPEC, "spec.dim %zu exceeds %u", s->dim,
                SINPE_MAX_DIM);
    SINPE_CHECK((unsigned)s->layout > SINPE_LAYOUT_SPLIT_COS_SIN, SINPE_INVALID_SPEC,
                "spec.layout %d is not a sinpe_layout", (int)s->layout);
    SINPE_CHECK((unsigned)s->odd_dim > SINPE_ODD_ERROR, SINPE_INVALID_SPEC,
                "spec.odd_dim %d is not a sinpe_odd_dim", (int)s->odd_dim);
    SINPE_CHECK(s->odd_dim == SINPE_ODD_ERROR && (s->dim & 1), SINPE_INVALID_SPEC,
                "spec.dim %zu is odd and spec.odd_dim is SINPE_ODD_ERROR", s->dim);
    SINPE_CHECK(!(s->base > 0.0) || !isfinite(s->base), SINPE_INVALID_SPEC,
                "spec.base must be finite and > 0 (got %g)", s->base);
    SINPE_CHECK(!isfinite(s->shift), SINPE_INVALID_SPEC, "spec.shift must be finite");
    SINPE_CHECK(!isfinite(s->angle_scale), SINPE_INVALID_SPEC,
                "spec.angle_scale must be finite");
    spec_counts(s, &S, &C, &D);
    SINPE_CHECK((S > 1 || C > 1) && !(D > 0.0), SINPE_INVALID_SPEC,
                "spec.shift %g leaves the exponent denominator %g <= 0 for dim %zu", s->shift, D,
                s->dim);
    return SINPE_SUCCESS;
}

int sinpe__spec_equal(const sinpe_spec *a, const sinpe_spec *b)
{
    return a->dim == b->dim && a->layout == b->layout && a->odd_dim == b->odd_dim &&
           a->base == b->base && a->shift == b->shift && a->angle_scale == b->angle_scale;
}

/* x as the unevaluated sum f[0] + f[1] + f[2] of floats (72 bits). */
static void split3(long double x, float *f)
{
    f[0] = (float)x;
    x -= f[0];
    f[1] = (float)x;
    x -= f[1];
    f[2] = (float)x;
}

/* x mod 4 in [0, 4). */
static long double mod4(long double x)
{
    long double r = fmodl(x, 4.0L);
    return r < 0 ? r + 4.0L : r;
}

/* x as the unevaluated sum hi + lo of two floats, stored stride apart. */
static void split2(double x, float *f, size_t stride)
{
    f[0] = (float)x;
    f[stride] = (float)(x - f[0]);
}

void sinpe__spec_columns(const sinpe_spec *s, sinpe__column *col)
{
    size_t S, C;
    double D;
    spec_counts(s, &S, &C, &D);
    for (size_t c = 0; c < s->dim; c++) {
        size_t k = 0;
        int kind = 0;
        switch (s->layout) {
        case SINPE_LAYOUT_INTERLEAVED:
            k = c / 2;
            kind = (c & 1) ? (k < C ? 2 : 0) : (k < S ? 1 : 0);
            break;
        case SINPE_LAYOUT_SPLIT_SIN_COS:
            kind = c < S ? 1 : c < S + C ? 2 : 0;
            k = c < S ? c : c - S;
            break;
        case SINPE_LAYOUT_SPLIT_COS_SIN:
            kind = c < C ? 2 : c < S + C ? 1 : 0;
            k = c < C ? c : c - C;
            break;
        }
        col[c].kind = kind;
        col[c].w = kind ? s->angle_scale * (k == 0 ? 1.0 : pow(s->base, -(double)k / D)) : 0.0;
    }
}

unsigned sinpe__column_pairs(const sinpe__column *col, size_t dim)
{
    size_t h = dim / 2;
    int first = dim > 0 && dim % 32 == 0 ? col[0].kind : 0; /* 1 sin, 2 cos */
    for (size_t u = 0; first && u < h; u++)
        if (col[u].kind != first || col[u + h].kind != 3 - first || col[u].w != col[u + h].w)
            first = 0;
    return first ? SINPE_PE_SPLIT | (first == 2 ? SINPE_PE_COS_FIRST : 0) : 0;
}

void sinpe__coefficients(const sinpe__column *col, size_t dim, double amp, float *coef)
{
    const long double two_over_pi = 0.636619772367581343075535053490057448L;
    size_t S = SINPE_COEF_STRIDE(dim);
    for (size_t c = 0; c < dim; c++) {
        float d[8] = {0};
        double w = col[c].w;
        if (col[c].kind != 0) {
            long double q = (long double)w * two_over_pi;
            split3(mod4(4096.0L * q), d);
            d[3] = col[c].kind == 2 ? 1.0f : 0.0f;
            split3(mod4(q), d + 4);
            d[7] = (float)(q - mod4(q)); /* exact while |q| < 2^24 */
        }
        for (size_t f = 0; f < 8; f++)
            coef[f * S + c] = d[f];
        /* step(j) = amp exp(i j w), the fine half of the angle addition, by
         * a rotation recurrence in long double: two libm calls a column,
         * and an error near j 2^-64, far below the float result's.  The
         * anchor has modulus 1, so amp reaches the value in the one
         * rounding of the combination. */
        long double s1 = sinl((long double)w), c1 = cosl((long double)w), sj = 0, cj = 1;
        for (size_t j = 0; j < SINPE_STEP_ROWS; j++) {
            float *st = coef + (8 + 4 * j) * S + c;
            long double next_s = sj * c1 + cj * s1;
            split2((double)(amp * sj), st, S);
            split2((double)(amp * cj), st + 2 * S, S);
            cj = cj * c1 - sj * s1;
            sj = next_s;
        }
    }
}
