/*
 * check.c -- comparing two outputs read back from the device.
 *
 * float32 outputs must match byte for byte.  For a float16 or bfloat16
 * output the fused call and the unfused pair may legitimately differ: the
 * fused kernel rounds once, rnd(s*E + PE), while gather stores
 * g = rnd(s*E) and add then stores rnd(g + PE), rounding twice.  With M
 * the larger magnitude of the two results and |PE| <= 1, |s*E| is at most
 * M + 1, so g is off by at most half an ulp at magnitude M + 1, and each
 * result's own rounding by at most half an ulp at M: the two differ by less
 * than 1.5 ulps at magnitude M + 1 (plus float32 noise far below an ulp).
 * The tolerance is 2 such ulps (tol_ulps = 2); anything beyond is a fault.
 * (With s = sqrt(dim) a power of two, as at dims 1024 and 4096, s*E is
 * exact and the two agree byte for byte.)
 */
#include "bench.h"
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The spacing of dtype's values at magnitude m >= 0. */
static double ulp_at(double m, sinpe_dtype dtype)
{
    int e, bits = dtype == SINPE_F16 ? 10 : dtype == SINPE_BF16 ? 7 : 23;
    double least = dtype == SINPE_F16 ? ldexp(1.0, -24) : ldexp(1.0, -149);
    double u;
    if (!(m > 0.0) || isinf(m))
        return least;
    frexp(m, &e); /* m = f * 2^e, f in [0.5, 1): the binade starts at 2^(e-1) */
    u = ldexp(1.0, e - 1 - bits);
    return u > least ? u : least;
}

int bench_compare(bench_env *env, cl_mem a, cl_mem b, size_t n, sinpe_dtype dtype,
                  double tol_ulps, bench_diff *diff)
{
    size_t es = bench_dtype_size(dtype), bytes = n * es, i;
    unsigned char *ha = malloc(bytes), *hb = malloc(bytes);

    memset(diff, 0, sizeof *diff);
    CHECK_AS("malloc (output read-back)", (ha && hb) ? 0 : SINPE_OUT_OF_HOST_MEMORY);
    CHECK(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 0, bytes, ha, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, bytes, hb, 0, NULL, NULL));
    diff->n = n;
    for (i = 0; i < n; i++) {
        double x, y, m, d;
        if (memcmp(ha + i * es, hb + i * es, es) == 0)
            continue;
        diff->differ++;
        x = ref_load(dtype, ha, i);
        y = ref_load(dtype, hb, i);
        if (tol_ulps <= 0.0 || isnan(x) || isnan(y) || isinf(x) || isinf(y)) {
            diff->over++;
            diff->max_ulps = INFINITY;
            continue;
        }
        m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
        d = fabs(x - y) / ulp_at(m + 1.0, dtype);
        if (d > diff->max_ulps)
            diff->max_ulps = d;
        if (d > tol_ulps)
            diff->over++;
    }
    free(ha);
    free(hb);
    return 0;
fail:
    free(ha);
    free(hb);
    return -1;
}
