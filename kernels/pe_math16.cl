/*
 * pe_math16.cl -- the encoding of sixteen columns at once, one a lane
 * (float16): pe_math.cl's anchors and combination, the same bits, for the
 * paths that write sixteen columns of a row (table rows, the fused
 * kernels' positions past the table, the rotation's pairs).
 */
#ifndef SINPE_PE_MATH16_CL
#define SINPE_PE_MATH16_CL

#include "pe_math.cl"

/* Sixteen columns at once: anchors (sin hi, sin lo, cos hi, cos lo) combined
   with the steps at s (components k apart), sinpe_combine lane by lane. */
SINPE_INLINE float16 sinpe_combine16(float16 ash, float16 asl, float16 ach, float16 acl,
                                     global const float *s, size_t k)
{
    return SINPE_COMBINE(ash, asl, ach, acl, vload16(0, s), vload16(0, s + k),
                         vload16(0, s + 2 * k), vload16(0, s + 3 * k));
}

/* The anchors at x of the sixteen columns from c (c + 16 <= the
   coefficient rows' stride). */
SINPE_INLINE sinpe_anchor16_t sinpe_anchors16_at(int x, global const float *coef, uint dim,
                                                 int c)
{
    global const float *d = coef + c;
    size_t S = SINPE_COEF_STRIDE(dim);
    return sinpe_anchor16(x, vload16(0, d), vload16(0, d + S), vload16(0, d + 2 * S),
                          vload16(0, d + 3 * S), vload16(0, d + 4 * S), vload16(0, d + 5 * S),
                          vload16(0, d + 6 * S));
}

/* sinpe_pe of the sixteen columns from c, one lane each. */
SINPE_INLINE float16 sinpe_pe16(int p, int c, uint dim, global const float *coef)
{
    sinpe_anchor16_t a = sinpe_anchors16_at(p & ~(SINPE_STEP_ROWS - 1), coef, dim, c);
    return sinpe_combine16(a.sh, a.sl, a.ch, a.cl,
                           sinpe_step_at(coef, dim, p & (SINPE_STEP_ROWS - 1), c),
                           SINPE_COEF_STRIDE(dim));
}

/* sinpe_pe_pair of sixteen lanes from their anchors a and steps b: the
   cos column's values, the sin column's to *s. */
SINPE_INLINE float16 sinpe_pair16(sinpe_anchor16_t a, float16 bsh, float16 bsl, float16 bch,
                                  float16 bcl, float16 *s)
{
    *s = SINPE_COMBINE(a.sh, a.sl, a.ch, a.cl, bsh, bsl, bch, bcl);
    return SINPE_COMBINE(a.ch, a.cl, -a.sh, -a.sl, bsh, bsl, bch, bcl);
}

#if SINPE_FP64
/* sinpe_pe_real of the sixteen columns from c, one after the other. */
SINPE_INLINE float16 sinpe_pe_real16(float x, int c, uint dim, global const float *coef)
{
    float v[16];
    for (int i = 0; i < 16; i++)
        v[i] = sinpe_pe_real(x, c + i, dim, coef);
    return vload16(0, v);
}
#else
/* sinpe_mod4 of each lane. */
SINPE_INLINE int16 sinpe_mod4_16(float16 n)
{
    return convert_int16(n - 4.0f * trunc(0.25f * n));
}

/* The sinpe_anchor_real of each lane (d3 the phases, d4 .. d7 B1, B2, B3
   and Q of the lanes' columns), as sinpe_anchor16 is sinpe_anchor's. */
SINPE_INLINE sinpe_anchor16_t sinpe_anchor_real16(float x, float16 d3, float16 d4, float16 d5,
                                                  float16 d6, float16 d7)
{
    float16 X = (float16)(x), es, eu;
    float16 h0 = X * d7, l0 = fma(X, d7, -h0);
    float16 h1 = X * d4, l1 = fma(X, d4, -h1);
    float16 n0 = rint(h0), n1 = rint(h1);
    int16 quadrant = sinpe_mod4_16(n0) + sinpe_mod4_16(n1) + convert_int16(d3);
    float16 s = sinpe_two_sum16(h0 - n0, h1 - n1, &es);
    float16 u = sinpe_two_sum16(s, l0, &eu);
    float16 e = es + eu;
    s = sinpe_two_sum16(u, l1, &es);
    e += es;
    u = sinpe_two_sum16(s, X * d5, &eu);
    e += eu + X * d6;
    return sinpe_quarters16(u, e, quadrant);
}

/* sinpe_pe_real of the sixteen columns from c, one lane each: Intel's
   compiler left the loop of scalar ones scalar (bench/RESULTS.md). */
SINPE_INLINE float16 sinpe_pe_real16(float x, int c, uint dim, global const float *coef)
{
    global const float *d = coef + c;
    size_t S = SINPE_COEF_STRIDE(dim);
    sinpe_anchor16_t a = sinpe_anchor_real16(x, vload16(0, d + 3 * S), vload16(0, d + 4 * S),
                                             vload16(0, d + 5 * S), vload16(0, d + 6 * S),
                                             vload16(0, d + 7 * S));
    return a.sh + a.sl;
}
#endif

#endif /* SINPE_PE_MATH16_CL */
