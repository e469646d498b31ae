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

#endif /* SINPE_PE_MATH16_CL */
