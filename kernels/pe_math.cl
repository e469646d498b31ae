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
 * With p = 4096 m + b (m = p >> 12, b = p & 4095, both exact in float), the
 * angle in quarter turns is t = m A + b B modulo 4, because m and b are
 * integers.  m A1 and b B1 are formed exactly with fma, integer parts are
 * peeled off into the quadrant, and the fraction is summed in double-float.
 * sin and cos of the reduced angle use sinpe's own polynomials, so no vendor
 * sin() with its 4-ulp allowance is involved, and every conforming device
 * (fma correctly rounded) produces the same bits.
 *
 * Contraction must stay off: the error-free transformations below rely on
 * each operation being rounded on its own.
 */
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

#if SINPE_FP64

/* sin(pi/2 * (t + quadrant)) for t in double, |t| moderate. */
inline float sinpe_sin_quarters(double t, int quadrant)
{
    double n = rint(t);
    quadrant = (quadrant + (int)fmod(n, 4.0)) & 3;
    double r = (t - n) * 1.5707963267948966;
    double v = (quadrant & 1) ? cos(r) : sin(r);
    return (float)((quadrant & 2) ? -v : v);
}

inline float sinpe_pe(int p, float8 d)
{
    double a = (double)d.s0 + (double)d.s1 + (double)d.s2;
    double b = (double)d.s4 + (double)d.s5 + (double)d.s6;
    return sinpe_sin_quarters((double)(p >> 12) * a + (double)(p & 4095) * b, (int)d.s3);
}

inline float sinpe_pe_real(float x, float8 d)
{
    double q = (double)d.s7 + (double)d.s4 + (double)d.s5 + (double)d.s6;
    return sinpe_sin_quarters((double)x * q, (int)d.s3);
}

#else

/*
 * sin(pi/2 * (f + quadrant)) where f = s + e is a double-float fraction
 * with |s| < 2^22 and |e| small against 1.
 */
inline float sinpe_sin_quarters(float s, float e, int quadrant)
{
    float n3 = rint(s);
    quadrant += (int)n3;
    float fh = (s - n3) + e;               /* |fh| <= 1/2 (+ rounding) */
    float fl = e - (fh - (s - n3));

    /* r = f * pi/2 as rh + rl, |r| <= pi/4. */
    const float P1 = 1.57079637050628662109375f;    /* float(pi/2)      */
    const float P2 = -4.37113900018624283e-8f;      /* pi/2 - P1        */
    float rh = fh * P1;
    float rl = fma(fh, P1, -rh) + (fh * P2 + fl * P1);
    float rh2 = rh * rh;

    /* sin r = r - r^3/3! + ... ; Taylor to r^11 leaves < 1e-11 on |r| <= pi/4. */
    float ps = -1.6666666666666666e-1f + rh2 * (8.3333333333333333e-3f
             + rh2 * (-1.9841269841269841e-4f + rh2 * (2.7557319223985891e-6f
             + rh2 * -2.5052108385441719e-8f)));
    float sn = rh + (rh * rh2 * ps + (rl - 0.5f * rh2 * rl));

    /* cos r = 1 - r^2/2 + ... with r^2 = rh2 + sl + 2 rh rl. */
    float sl = fma(rh, rh, -rh2);
    float hs = 0.5f * rh2;
    float ch = 1.0f - hs;
    float cl = (1.0f - ch) - hs;
    float pc = 4.1666666666666667e-2f + rh2 * (-1.3888888888888889e-3f
             + rh2 * (2.4801587301587302e-5f + rh2 * (-2.7557319223985891e-7f
             + rh2 * 2.0876756987868099e-9f)));
    float cs = ch + (cl + (rh2 * rh2 * pc - 0.5f * sl - rh * rl));

    int q = quadrant & 3;
    float v = (q & 1) ? cs : sn;
    return (q & 2) ? -v : v;
}

/*
 * Integer positions: with p = 4096 m + b, t = m A + b B (mod 4).  The
 * leading products are exact (fma) and their integer parts are peeled off
 * into the quadrant before the fraction is summed in double-float.
 */
inline float sinpe_pe(int p, float8 d)
{
    float m = (float)(p >> 12);
    float b = (float)(p & 4095);
    float h1 = m * d.s0, l1 = fma(m, d.s0, -h1);
    float h2 = b * d.s4, l2 = fma(b, d.s4, -h2);
    float n1 = rint(h1), n2 = rint(h2);
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
    return sinpe_sin_quarters(s.x, e, quadrant);
}

/*
 * Real arguments (diffusion timesteps): t = x (Q + B) with Q = d.s7 the
 * multiple of 4 that B dropped; x Q and x B1 are exact products.
 */
inline float sinpe_pe_real(float x, float8 d)
{
    float h0 = x * d.s7, l0 = fma(x, d.s7, -h0);
    float h1 = x * d.s4, l1 = fma(x, d.s4, -h1);
    float n0 = rint(h0), n1 = rint(h1);
    int quadrant = (int)fmod(n0, 4.0f) + (int)fmod(n1, 4.0f) + (int)d.s3;

    float2 s = sinpe_two_sum(h0 - n0, h1 - n1);
    float2 u = sinpe_two_sum(s.x, l0);
    float e = s.y + u.y;
    s = sinpe_two_sum(u.x, l1);
    e += s.y;
    u = sinpe_two_sum(s.x, x * d.s5);
    e += u.y + x * d.s6;
    return sinpe_sin_quarters(u.x, e, quadrant);
}

#endif
