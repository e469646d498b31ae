/*
 * pe_math.cl -- one element of the sinusoidal encoding, accurate to float32
 * rounding for any int32 position.
 *
 * The host describes column c of a row by 8 floats (see src/spec.c):
 *   d.s0 + d.s1 + d.s2 = A = (4096 * q) mod 4      q = w_c * 2/pi, the angular
 *   d.s4 + d.s5 + d.s6 = B = q mod 4               frequency in quarter turns
 *   d.s7 = q - B, the multiple of 4 that B dropped (for real arguments)
 *   d.s3 = phase in quarter turns (0 for sin, 1 for cos)
 * A zero column has every field 0 and yields +0 exactly.
 *
 * PE(p) for column c is defined as one angle addition,
 *     p = R P + j,   PE(p) = Im( anchor(R P) * step(j) ),   R = SINPE_STEP_ROWS,
 * where anchor(x) = exp(i (x w + phase)) is evaluated on the device in
 * double-float and step(j) = exp(i j w) (j < R) is made on the host in
 * double precision (src/spec.c).  Table generation therefore evaluates one
 * anchor per R rows and then spends a few flops per element, and a
 * position computed on the fly (past the table's rows) goes through exactly
 * the same operations, so it has the same bits as the table row would.
 *
 * The anchor: with x = 4096 m + b (m = x >> 12, b = x & 4095, both exact in
 * float), the angle in quarter turns is t = m A + b B modulo 4, because m
 * and b are integers.  m A1 and b B1 are formed exactly with fma, integer
 * parts are peeled off into the quadrant, and the fraction is summed in
 * double-float.  sin and cos of the reduced angle use sinpe's own
 * polynomials, so no vendor sin() with its 4-ulp allowance is involved, and
 * every conforming device (fma correctly rounded) produces the same bits.
 *
 * Error budget (absolute): anchor <= 2e-8, inner fma of the combination
 * <= 3e-8, final rounding <= 3e-8: below the 1.5e-7 promised.
 *
 * Contraction must stay off: the error-free transformations below rely on
 * each operation being rounded on its own.
 */
#ifndef SINPE_PE_MATH_CL
#define SINPE_PE_MATH_CL

#include "abi.h"

#pragma OPENCL FP_CONTRACT OFF

#if SINPE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* s + e == a + b exactly. */
inline float2 sinpe_two_sum(float a, float b)
{
    float s = a + b;
    float bb = s - a;
    float e = (a - (s - bb)) + (b - bb);
    return (float2)(s, e);
}

/* (sin hi, sin lo, cos hi, cos lo) rotated by the quadrant. */
inline float4 sinpe_rotate(float4 sc, int quadrant)
{
    /* q: 0 (s, c)  1 (c, -s)  2 (-s, -c)  3 (-c, s); branch-free, and built
       from scalars: pocl's loop vectoriser widens no instruction of vector
       type, so a float4 shuffle here kept the anchors' kernel scalar. */
    int q = quadrant & 3;
    bool sw = (q & 1) != 0;
    float ss = (q & 2) ? -1.0f : 1.0f;
    float cs = (q == 1 || q == 2) ? -1.0f : 1.0f;
    return (float4)((sw ? sc.z : sc.x) * ss, (sw ? sc.w : sc.y) * ss, (sw ? sc.x : sc.z) * cs,
                    (sw ? sc.y : sc.w) * cs);
}

/* Sixteen anchors, one lane a column (sinpe_anchor16). */
typedef struct {
    float16 sh, sl, ch, cl;
} sinpe_anchor16_t;

#if SINPE_FP64

inline float4 sinpe_split_sc(double s, double c)
{
    float sh = (float)s, ch = (float)c;
    return (float4)(sh, (float)(s - sh), ch, (float)(c - ch));
}

/* exp(i pi/2 (t + quadrant)) as two double-floats, t in double. */
inline float4 sinpe_anchor_quarters(double t, int quadrant)
{
    double n = rint(t);
    double r = (t - n) * 1.5707963267948966;
    return sinpe_rotate(sinpe_split_sc(sin(r), cos(r)), quadrant + (int)fmod(n, 4.0));
}

inline float4 sinpe_anchor(int x, float8 d)
{
    double a = (double)d.s0 + (double)d.s1 + (double)d.s2;
    double b = (double)d.s4 + (double)d.s5 + (double)d.s6;
    return sinpe_anchor_quarters((double)(x >> 12) * a + (double)(x & 4095) * b, (int)d.s3);
}

inline float4 sinpe_anchor_real(float x, float8 d)
{
    double q = (double)d.s7 + (double)d.s4 + (double)d.s5 + (double)d.s6;
    return sinpe_anchor_quarters((double)x * q, (int)d.s3);
}

/* sinpe_anchor of each lane, one after the other. */
inline sinpe_anchor16_t sinpe_anchor16(int x, float16 d0, float16 d1, float16 d2, float16 d3,
                                       float16 d4, float16 d5, float16 d6)
{
    float f[7][16], r[4][16];
    vstore16(d0, 0, f[0]);
    vstore16(d1, 0, f[1]);
    vstore16(d2, 0, f[2]);
    vstore16(d3, 0, f[3]);
    vstore16(d4, 0, f[4]);
    vstore16(d5, 0, f[5]);
    vstore16(d6, 0, f[6]);
    for (int i = 0; i < 16; i++) {
        float4 v = sinpe_anchor(x, (float8)(f[0][i], f[1][i], f[2][i], f[3][i], f[4][i],
                                            f[5][i], f[6][i], 0.0f));
        r[0][i] = v.x;
        r[1][i] = v.y;
        r[2][i] = v.z;
        r[3][i] = v.w;
    }
    sinpe_anchor16_t a;
    a.sh = vload16(0, r[0]);
    a.sl = vload16(0, r[1]);
    a.ch = vload16(0, r[2]);
    a.cl = vload16(0, r[3]);
    return a;
}

#else

/* rint(x) for |x| <= 2^22, every bit of it (the sign of a zero result
   too), in three operations where pocl's rint takes a score: x + 1.5 *
   2^23 lies in [2^23, 2^24), whose floats are the integers, so the sum
   rounds x to nearest even.  For 0 <= x the sign fix is not needed. */
#define SINPE_RINT_SHIFT 12582912.0f
SINPE_INLINE float sinpe_rint(float x)
{
    float t = (x + SINPE_RINT_SHIFT) - SINPE_RINT_SHIFT;
    return as_float((as_uint(t) & 0x7fffffffu) | (as_uint(x) & 0x80000000u));
}

/* Fast two-sum: s + e == a + b exactly when |a| >= |b| (or a == 0). */
inline float2 sinpe_fast_two_sum(float a, float b)
{
    float s = a + b;
    return (float2)(s, b - (s - a));
}

/*
 * sin and cos of r = rh + rl, |r| <= pi/4, in scalars or vectors of type
 * T: sin r = rh + st and cos r = ch + ct (each sum to be taken exactly).
 * sin r = r - r^3/3! + ... ; Taylor to r^11 leaves < 1e-11.  cos r = 1 -
 * r^2/2 + ... with r^2 = rh2 + sl + 2 rh rl.
 */
#define SINPE_SIN_COS(T, rh, rl, st, ch, ct)                                                      \
    T rh2_ = rh * rh;                                                                              \
    T st = rh * rh2_ * (-1.6666666666666666e-1f + rh2_ * (8.3333333333333333e-3f                   \
           + rh2_ * (-1.9841269841269841e-4f + rh2_ * (2.7557319223985891e-6f                      \
           + rh2_ * -2.5052108385441719e-8f)))) + (rl - 0.5f * rh2_ * rl);                         \
    T sl_ = fma(rh, rh, -rh2_), hs_ = 0.5f * rh2_;                                                 \
    T ch = 1.0f - hs_;                                                                             \
    T ct = ((1.0f - ch) - hs_) + (rh2_ * rh2_ * (4.1666666666666667e-2f                            \
           + rh2_ * (-1.3888888888888889e-3f + rh2_ * (2.4801587301587302e-5f                      \
           + rh2_ * (-2.7557319223985891e-7f + rh2_ * 2.0876756987868099e-9f))))                   \
           - 0.5f * sl_ - rh * rl)

/*
 * exp(i pi/2 (f + quadrant)) as two double-floats, where f = s + e is a
 * double-float with |s| < 2^22 and |e| small against 1.
 */
SINPE_INLINE float4 sinpe_anchor_quarters(float s, float e, int quadrant)
{
    float n3 = sinpe_rint(s);
    quadrant += (int)n3;
    float fh = (s - n3) + e;               /* |fh| <= 1/2 (+ rounding) */
    float fl = e - (fh - (s - n3));

    /* r = f * pi/2 as rh + rl, |r| <= pi/4. */
    const float P1 = 1.57079637050628662109375f;    /* float(pi/2)      */
    const float P2 = -4.37113900018624283e-8f;      /* pi/2 - P1        */
    float rh = fh * P1;
    float rl = fma(fh, P1, -rh) + (fh * P2 + fl * P1);
    SINPE_SIN_COS(float, rh, rl, st, ch, ct);
    float2 sn = sinpe_fast_two_sum(rh, st);
    float2 cs = sinpe_fast_two_sum(ch, ct);

    /* Built from scalars: oclgrind 21.10 mishandles vectors built from vectors. */
    return sinpe_rotate((float4)(sn.x, sn.y, cs.x, cs.y), quadrant);
}

/* The anchor at an integer x (a multiple of SINPE_STEP_ROWS in practice).
   Always inlined, as sinpe_anchor_quarters: LLVM's threshold left them
   calls, and a call keeps pocl from vectorising across work-items. */
SINPE_INLINE float4 sinpe_anchor(int x, float8 d)
{
    float m = (float)(x >> 12);
    float b = (float)(x & 4095);
    float h1 = m * d.s0, l1 = fma(m, d.s0, -h1);
    float h2 = b * d.s4, l2 = fma(b, d.s4, -h2);
    /* rint of both: |h1| < 2^21, 0 <= h2 < 2^14.  Two like computations
       side by side are what clang's SLP pass packs into two-lane vectors,
       which keep pocl from vectorising the anchors kernel across
       work-items (slower table generation): n2 is written out. */
    float n1 = sinpe_rint(h1), n2 = (h2 + SINPE_RINT_SHIFT) - SINPE_RINT_SHIFT;
    int quadrant = (int)n1 + (int)n2 + (int)d.s3;

    float2 s = sinpe_two_sum(h1 - n1, h2 - n2);
    float2 u = sinpe_two_sum(s.x, l1);
    float e = s.y + u.y;
    s = sinpe_two_sum(u.x, l2);
    e += s.y;
    u = sinpe_two_sum(s.x, m * d.s1);
    e += u.y;
    s = sinpe_two_sum(u.x, b * d.s5);
    e += s.y + (m * d.s2 + b * d.s6);
    return sinpe_anchor_quarters(s.x, e, quadrant);
}

/*
 * Sixteen anchors at one x, lane i from column i's descriptor fields d0 ..
 * d3 (A1, A2, A3, phase) and d4 .. d6 (B1, B2, B3): sinpe_anchor's and
 * sinpe_anchor_quarters' operations lane by lane, the same bits.  Written
 * out in float16 for Intel's compiler, which vectorises only across
 * work-items and left a loop of scalar anchors scalar (bench/RESULTS.md).
 */
SINPE_INLINE float16 sinpe_rint16(float16 x)
{
    float16 t = (x + SINPE_RINT_SHIFT) - SINPE_RINT_SHIFT;
    return as_float16((as_uint16(t) & 0x7fffffffu) | (as_uint16(x) & 0x80000000u));
}

/* Two-sums of sixteen lanes: s + *e == a + b. */
SINPE_INLINE float16 sinpe_two_sum16(float16 a, float16 b, float16 *e)
{
    float16 s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* sinpe_anchor_quarters(s, e, quadrant) of each lane. */
SINPE_INLINE sinpe_anchor16_t sinpe_quarters16(float16 s, float16 e, int16 quadrant)
{
    float16 n3 = sinpe_rint16(s);
    quadrant += convert_int16(n3);
    float16 fh = (s - n3) + e;
    float16 fl = e - (fh - (s - n3));
    const float P1 = 1.57079637050628662109375f, P2 = -4.37113900018624283e-8f;
    float16 rh = fh * P1;
    float16 rl = fma(fh, (float16)P1, -rh) + (fh * P2 + fl * P1);
    SINPE_SIN_COS(float16, rh, rl, sn, ch, cn);
    float16 snh = rh + sn, snl = sn - (snh - rh); /* sinpe_fast_two_sum */
    float16 cnh = ch + cn, cnl = cn - (cnh - ch);

    /* sinpe_rotate: swap at odd quadrants, signs by the quadrant */
    int16 q = quadrant & 3, sw = (q & 1) != 0;
    float16 ss = select((float16)(1.0f), (float16)(-1.0f), (q & 2) != 0);
    float16 cs = select((float16)(1.0f), (float16)(-1.0f), (q == 1) | (q == 2));
    sinpe_anchor16_t r;
    r.sh = select(snh, cnh, sw) * ss;
    r.sl = select(snl, cnl, sw) * ss;
    r.ch = select(cnh, snh, sw) * cs;
    r.cl = select(cnl, snl, sw) * cs;
    return r;
}

SINPE_INLINE sinpe_anchor16_t sinpe_anchor16(int x, float16 d0, float16 d1, float16 d2,
                                             float16 d3, float16 d4, float16 d5, float16 d6)
{
    float m = (float)(x >> 12), b = (float)(x & 4095);
    float16 h1 = m * d0, l1 = fma((float16)m, d0, -h1);
    float16 h2 = b * d4, l2 = fma((float16)b, d4, -h2);
    float16 n1 = sinpe_rint16(h1), n2 = (h2 + SINPE_RINT_SHIFT) - SINPE_RINT_SHIFT;
    int16 quadrant = convert_int16(n1) + convert_int16(n2) + convert_int16(d3);
    float16 e, es, eu;
    float16 s = sinpe_two_sum16(h1 - n1, h2 - n2, &es);
    float16 u = sinpe_two_sum16(s, l1, &eu);
    e = es + eu;
    s = sinpe_two_sum16(u, l2, &es);
    e += es;
    u = sinpe_two_sum16(s, m * d1, &eu);
    e += eu;
    s = sinpe_two_sum16(u, b * d5, &es);
    e += es + (m * d2 + b * d6);
    return sinpe_quarters16(s, e, quadrant);
}

/* (int)fmod(n, 4.0f) of an integer-valued n (NaN and infinities too): n
   - 4 trunc(n / 4) is exact (scalings by powers of two, a difference below
   4), and vectorises where pocl's fmod stays a call per value. */
SINPE_INLINE int sinpe_mod4(float n)
{
    return (int)(n - 4.0f * trunc(0.25f * n));
}

/*
 * Real arguments (diffusion timesteps): t = x (Q + B) with Q = d.s7 the
 * multiple of 4 that B dropped; x Q and x B1 are exact products.  Always
 * inlined, as sinpe_anchor: a call keeps pocl from vectorising.
 */
SINPE_INLINE float4 sinpe_anchor_real(float x, float8 d)
{
    float h0 = x * d.s7, l0 = fma(x, d.s7, -h0);
    float h1 = x * d.s4, l1 = fma(x, d.s4, -h1);
    float n0 = rint(h0), n1 = rint(h1);
    int quadrant = sinpe_mod4(n0) + sinpe_mod4(n1) + (int)d.s3;

    float2 s = sinpe_two_sum(h0 - n0, h1 - n1);
    float2 u = sinpe_two_sum(s.x, l0);
    float e = s.y + u.y;
    s = sinpe_two_sum(u.x, l1);
    e += s.y;
    u = sinpe_two_sum(s.x, x * d.s5);
    e += u.y + x * d.s6;
    return sinpe_anchor_quarters(u.x, e, quadrant);
}

#endif

/* Im(a * b) = sin(angle a + angle b) from two double-float (sin, cos) pairs;
   SINPE_COMBINE on components (sin hi, sin lo, cos hi, cos lo) of any
   width, so that a vector of columns gets each lane's scalar operations. */
#define SINPE_COMBINE(ax, ay, az, aw, bx, by, bz, bw) \
    fma(ax, bz, fma(az, bx, ax * bw + ay * bz + (az * by + aw * bx)))
inline float sinpe_combine(float4 a, float4 b)
{
    return SINPE_COMBINE(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w);
}

/*
 * The coefficient buffer, in rows of S = SINPE_COEF_STRIDE(dim) floats so
 * that neighbouring columns are neighbouring floats (vector loads on CPUs,
 * coalesced loads on GPUs):
 *   coef[f S + c]               field f (0..7) of column c's descriptor
 *   coef[(8 + 4 j + k) S + c]   component k (sin hi, sin lo, cos hi,
 *                               cos lo) of step(j) of column c
 */
inline float8 sinpe_desc(global const float *coef, uint dim, int c)
{
    global const float *d = coef + c;
    size_t S = SINPE_COEF_STRIDE(dim);
    return (float8)(d[0], d[S], d[2 * S], d[3 * S], d[4 * S], d[5 * S], d[6 * S], d[7 * S]);
}

/* Step j's four components of column c lie SINPE_COEF_STRIDE(dim) floats
   apart from here. */
inline global const float *sinpe_step_at(global const float *coef, uint dim, int j, int c)
{
    return coef + (size_t)(8 + 4 * j) * SINPE_COEF_STRIDE(dim) + c;
}

inline float4 sinpe_step(global const float *coef, uint dim, int j, int c)
{
    global const float *s = sinpe_step_at(coef, dim, j, c);
    size_t k = SINPE_COEF_STRIDE(dim);
    return (float4)(s[0], s[k], s[2 * k], s[3 * k]);
}

/* PE(p) of column c: the definition every path uses (always inlined, as
   sinpe_anchor, for loops over columns to vectorise). */
SINPE_INLINE float sinpe_pe(int p, int c, uint dim, global const float *coef)
{
    float4 a = sinpe_anchor(p & ~(SINPE_STEP_ROWS - 1), sinpe_desc(coef, dim, c));
    return sinpe_combine(a, sinpe_step(coef, dim, p & (SINPE_STEP_ROWS - 1), c));
}

/* PE(p) of a cos column and a sin column of one frequency (phases a
   quarter turn apart: a rotary pair, a split layout's halves), from the
   sin column c: one anchor, turned a quarter for the cos column (an exact
   swap and negation, what sinpe_rotate does for its phase), so each has
   sinpe_pe's bits at half the work. */
SINPE_INLINE float2 sinpe_pe_pair(int p, int c, uint dim, global const float *coef)
{
    float4 a = sinpe_anchor(p & ~(SINPE_STEP_ROWS - 1), sinpe_desc(coef, dim, c));
    float4 b = sinpe_step(coef, dim, p & (SINPE_STEP_ROWS - 1), c);
    return (float2)(SINPE_COMBINE(a.z, a.w, -a.x, -a.y, b.x, b.y, b.z, b.w), sinpe_combine(a, b));
}

SINPE_INLINE float sinpe_pe_real(float x, int c, uint dim, global const float *coef)
{
    float4 a = sinpe_anchor_real(x, sinpe_desc(coef, dim, c));
    return a.x + a.y;
}

#endif /* SINPE_PE_MATH_CL */
