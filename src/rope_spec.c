/*
 * rope_spec.c -- the rotary spec: defaults, presets, validation, each
 * scaling rule's frequencies and attention factor in float64 (the formulas
 * are in include/sinpe.h), and the rotary table those make.
 */
#include "sinpe_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROT 65536u
#define TWO_PI 6.283185307179586476925286766559

void sinpe_rope_spec_init_sized(sinpe_rope_spec *spec, size_t rotary_dim, size_t struct_size)
{
    sinpe_rope_spec own;
    memset(&own, 0, sizeof own);
    own.rotary_dim = rotary_dim;
    own.base = 10000.0;
    own.beta_fast = 32.0;
    own.beta_slow = 1.0;
    own.truncate = 1;
    own.low_freq_factor = 1.0;
    own.high_freq_factor = 4.0;
    sinpe__struct_init(SINPE__ROPE_SPEC, spec, struct_size, &own, "spec");
}

static int positive(double x)
{
    return isfinite(x) && x > 0.0;
}

/* A list against its count, where the caller's struct has one (the header,
   above sinpe_rope_spec: an older struct's lists hold R/2 values unchecked). */
static sinpe_status check_count(const sinpe_rope_spec *s, const void *list, size_t count,
                                size_t end, const char *name)
{
    size_t R = s->rotary_dim;
    if ((s->struct_size & ~SINPE_STRUCT_TAG) < end)
        return SINPE_SUCCESS;
    SINPE_CHECK(!list && count != 0, SINPE_INVALID_SPEC,
                "spec.n_%s is %zu but spec.%s is NULL", name, count, name);
    SINPE_CHECK(list && count != R / 2, SINPE_INVALID_SPEC,
                "spec.%s has %zu values; rotary dim %zu needs %zu", name, count, R, R / 2);
    return SINPE_SUCCESS;
}

#define COUNTED(f) (offsetof(sinpe_rope_spec, f) + sizeof(size_t))

unsigned sinpe__rope_lane(unsigned axes, const size_t sections[4], size_t k)
{
    const size_t *s = sections;
    if (axes == SINPE_ROPE_MROPE_INTERLEAVED) {
        size_t n = s[3] ? 4 : s[2] ? 3 : s[1] ? 2 : 1, l = k % n;
        return l && k < n * s[l] ? (unsigned)l : 0;
    }
    if (axes == SINPE_ROPE_ONE_AXIS)
        return 0;
    return (unsigned)((k >= s[0]) + (k >= s[0] + s[1]) + (k >= s[0] + s[1] + s[2]));
}

/* The lanes: sections that add up to R/2 under a known axes value (and,
   interleaved, the counts its rule gives); none with ONE_AXIS. */
static sinpe_status check_axes(const sinpe_rope_spec *s)
{
    size_t h = s->rotary_dim / 2, sum = 0, got[4] = {0, 0, 0, 0};
    SINPE_CHECK((unsigned)s->axes > SINPE_ROPE_AXES_ND, SINPE_INVALID_SPEC,
                "spec.axes %d is not a sinpe_rope_axes", (int)s->axes);
    for (int i = 0; i < 4; i++) {
        SINPE_CHECK(s->axes == SINPE_ROPE_ONE_AXIS && s->sections[i], SINPE_INVALID_SPEC,
                    "spec.sections[%d] is %zu with spec.axes ONE_AXIS (set the axes)", i,
                    s->sections[i]);
        SINPE_CHECK(s->sections[i] > h, SINPE_INVALID_SPEC,
                    "spec.sections[%d] %zu exceeds the %zu pairs of rotary_dim %zu", i,
                    s->sections[i], h, s->rotary_dim);
        sum += s->sections[i];
        SINPE_CHECK(s->axes == SINPE_ROPE_AXES_ND && s->rule == SINPE_ROPE_DYNAMIC &&
                        s->sections[i] == 1,
                    SINPE_INVALID_SPEC,
                    "spec.sections[%d] is 1: the DYNAMIC rule needs 2 pairs per axis", i);
    }
    if (s->axes == SINPE_ROPE_ONE_AXIS)
        return SINPE_SUCCESS;
    SINPE_CHECK(sum != h, SINPE_INVALID_SPEC,
                "spec.sections add up to %zu pairs; rotary_dim %zu has %zu", sum, s->rotary_dim,
                h);
    for (size_t k = 0; k < h; k++)
        got[sinpe__rope_lane((unsigned)s->axes, s->sections, k)]++;
    for (int i = 0; i < 4; i++)
        SINPE_CHECK(got[i] != s->sections[i], SINPE_INVALID_SPEC,
                    "spec.sections[%d] is %zu, but the interleaved rule gives lane %d %zu pairs", i,
                    s->sections[i], i, got[i]);
    return SINPE_SUCCESS;
}

/* The fields the rule reads, the lists' counts, and the lists' values. */
static sinpe_status validate(const sinpe_rope_spec *s)
{
    size_t R = s->rotary_dim, h = R / 2;
    int r = s->rule;
    SINPE_CHECK(R < 2 || (R & 1) || R > MAX_ROT, SINPE_INVALID_SPEC,
                "spec.rotary_dim %zu must be even, at least 2 and at most %u", R, MAX_ROT);
    SINPE_CHECK(!(isfinite(s->base) && s->base > 1.0), SINPE_INVALID_SPEC,
                "spec.base must be finite and > 1 (got %g)", s->base);
    SINPE_CHECK((unsigned)r > SINPE_ROPE_PROPORTIONAL, SINPE_INVALID_SPEC,
                "spec.rule %d is not a sinpe_rope_rule", r);
    SINPE_CHECK((unsigned)s->pairing > SINPE_ROPE_INTERLEAVED, SINPE_INVALID_SPEC,
                "spec.pairing %d is not a sinpe_rope_pairing", (int)s->pairing);
    SINPE_CHECK((unsigned)s->layout > SINPE_ROPE_SIN_TWICE, SINPE_INVALID_SPEC,
                "spec.layout %d is not a sinpe_rope_layout", (int)s->layout);
    SINPE_CHECK(r != SINPE_ROPE_DEFAULT && r != SINPE_ROPE_LONGROPE && !positive(s->factor),
                SINPE_INVALID_SPEC, "spec.factor must be finite and > 0 (got %g)", s->factor);
    SINPE_CHECK(r == SINPE_ROPE_LONGROPE && !(isfinite(s->factor) && s->factor >= 0.0),
                SINPE_INVALID_SPEC, "spec.factor must be finite and >= 0 (got %g)", s->factor);
    SINPE_CHECK(r == SINPE_ROPE_DYNAMIC && R < 4, SINPE_INVALID_SPEC,
                "spec.rotary_dim %zu: the DYNAMIC rule needs at least 4", R);
    SINPE_CHECK((r == SINPE_ROPE_DYNAMIC || (r == SINPE_ROPE_LONGROPE && s->factor == 0.0)) &&
                    s->max_positions == 0,
                SINPE_INVALID_SPEC, "spec.max_positions is 0");
    SINPE_CHECK((r == SINPE_ROPE_YARN || r == SINPE_ROPE_LLAMA3 || r == SINPE_ROPE_LONGROPE) &&
                    s->original_max_positions < 2,
                SINPE_INVALID_SPEC, "spec.original_max_positions %zu must be at least 2",
                s->original_max_positions);
    if (r == SINPE_ROPE_YARN) {
        SINPE_CHECK(!positive(s->beta_fast) || !positive(s->beta_slow) ||
                        s->beta_fast <= s->beta_slow,
                    SINPE_INVALID_SPEC,
                    "spec.beta_fast %g and beta_slow %g must be finite, > 0, fast > slow",
                    s->beta_fast, s->beta_slow);
        SINPE_CHECK(!isfinite(s->mscale) || !isfinite(s->mscale_all_dim), SINPE_INVALID_SPEC,
                    "spec.mscale and mscale_all_dim must be finite");
    }
    SINPE_FORWARD(check_count(s, s->short_factor, s->n_short_factor, COUNTED(n_short_factor),
                              "short_factor"));
    SINPE_FORWARD(check_count(s, s->long_factor, s->n_long_factor, COUNTED(n_long_factor),
                              "long_factor"));
    SINPE_FORWARD(check_count(s, s->inv_freq, s->n_inv_freq, COUNTED(n_inv_freq), "inv_freq"));
    SINPE_CHECK(r == SINPE_ROPE_LLAMA3 &&
                    !(positive(s->low_freq_factor) && positive(s->high_freq_factor) &&
                      s->low_freq_factor <= s->high_freq_factor),
                SINPE_INVALID_SPEC,
                "spec.low_freq_factor %g and high_freq_factor %g must be finite, > 0, low <= high",
                s->low_freq_factor, s->high_freq_factor);
    SINPE_CHECK(r == SINPE_ROPE_PROPORTIONAL && (s->rotated_pairs == 0 || s->rotated_pairs > h),
                SINPE_INVALID_SPEC,
                "spec.rotated_pairs %zu must be 1 .. %zu (rotary_dim %zu) with PROPORTIONAL",
                s->rotated_pairs, h, R);
    SINPE_CHECK(r == SINPE_ROPE_PROPORTIONAL && s->axes == SINPE_ROPE_AXES_ND, SINPE_INVALID_SPEC,
                "spec.axes AXES_ND: PROPORTIONAL rotates one axis's pairs");
    if (r == SINPE_ROPE_LONGROPE) {
        SINPE_CHECK(!s->short_factor, SINPE_INVALID_SPEC, "spec.short_factor is NULL");
        SINPE_CHECK(!s->long_factor, SINPE_INVALID_SPEC, "spec.long_factor is NULL");
        for (size_t k = 0; k < h; k++) {
            SINPE_CHECK(!positive(s->short_factor[k]), SINPE_INVALID_SPEC,
                        "spec.short_factor[%zu] must be finite and > 0", k);
            SINPE_CHECK(!positive(s->long_factor[k]), SINPE_INVALID_SPEC,
                        "spec.long_factor[%zu] must be finite and > 0", k);
        }
    }
    SINPE_CHECK(!(isfinite(s->attention_factor) && s->attention_factor >= 0.0), SINPE_INVALID_SPEC,
                "spec.attention_factor must be finite and >= 0 (got %g)", s->attention_factor);
    for (size_t k = 0; s->inv_freq && k < h; k++)
        SINPE_CHECK(!positive(s->inv_freq[k]), SINPE_INVALID_SPEC,
                    "spec.inv_freq[%zu] must be finite and > 0", k);
    return check_axes(s);
}

/* YaRN's attention scale g(s, c). */
static double yarn_g(double s, double c)
{
    return s <= 1.0 ? 1.0 : 0.1 * c * log(s) + 1.0;
}

/* YaRN's correction dim of b rotations. */
static double yarn_dim(double b, double R, double base, double orig)
{
    return R * log(orig / (b * TWO_PI)) / (2.0 * log(base));
}

static void frequencies(const sinpe_rope_spec *s, double *w, double *m);

/* AXES_ND: each section the rule's frequencies for a rotary dimension of
   twice its pairs, its part of the lists. */
static void frequencies_nd(const sinpe_rope_spec *s, double *w, double *m)
{
    size_t k = 0;
    for (int i = 0; i < 4; k += s->sections[i++]) {
        sinpe_rope_spec axis = *s;
        if (!s->sections[i])
            continue;
        axis.axes = SINPE_ROPE_ONE_AXIS;
        axis.rotary_dim = 2 * s->sections[i];
        axis.short_factor = s->short_factor ? s->short_factor + k : NULL;
        axis.long_factor = s->long_factor ? s->long_factor + k : NULL;
        axis.inv_freq = s->inv_freq ? s->inv_freq + k : NULL;
        frequencies(&axis, w + k, m);
    }
}

static void frequencies(const sinpe_rope_spec *s, double *w, double *m)
{
    if (s->axes == SINPE_ROPE_AXES_ND) {
        frequencies_nd(s, w, m);
        return;
    }
    size_t h = s->rotary_dim / 2;
    double R = (double)s->rotary_dim, base = s->base, f = s->factor;
    double orig = (double)s->original_max_positions, lo = 0, hi = 0;
    *m = 1.0;
    if (s->rule == SINPE_ROPE_DYNAMIC) {
        double L = (double)(s->length > s->max_positions ? s->length : s->max_positions);
        base *= pow(f * L / (double)s->max_positions - (f - 1.0), R / (R - 2.0));
    } else if (s->rule == SINPE_ROPE_YARN) {
        lo = yarn_dim(s->beta_fast, R, base, orig);
        hi = yarn_dim(s->beta_slow, R, base, orig);
        if (s->truncate) {
            lo = floor(lo);
            hi = ceil(hi);
        }
        lo = lo > 0.0 ? lo : 0.0;
        hi = hi < R - 1.0 ? hi : R - 1.0;
        if (hi == lo)
            hi += 0.001;
        *m = s->mscale != 0.0 && s->mscale_all_dim != 0.0
                 ? yarn_g(f, s->mscale) / yarn_g(f, s->mscale_all_dim)
                 : yarn_g(f, 1.0);
    } else if (s->rule == SINPE_ROPE_LONGROPE) {
        double F = f != 0.0 ? f : (double)s->max_positions / orig;
        *m = F <= 1.0 ? 1.0 : sqrt(1.0 + log(F) / log(orig));
    }
    for (size_t k = 0; k < h; k++) {
        double e = 2.0 * (double)k / R, x = pow(base, -e), ramp, l;
        switch (s->rule) {
        case SINPE_ROPE_LINEAR:
            x /= f;
            break;
        case SINPE_ROPE_YARN:
            ramp = ((double)k - lo) / (hi - lo);
            ramp = ramp < 0.0 ? 0.0 : ramp > 1.0 ? 1.0 : ramp;
            x = x / f * ramp + x * (1.0 - ramp);
            break;
        case SINPE_ROPE_LLAMA3:
            l = TWO_PI / x;
            if (l > orig / s->low_freq_factor) {
                x /= f;
            } else if (!(l < orig / s->high_freq_factor) &&
                       s->low_freq_factor < s->high_freq_factor) {
                double sm =
                    (orig / l - s->low_freq_factor) / (s->high_freq_factor - s->low_freq_factor);
                x = (1.0 - sm) * x / f + sm * x;
            }
            break;
        case SINPE_ROPE_LONGROPE:
            x = 1.0 /
                ((s->length > s->original_max_positions ? s->long_factor[k] : s->short_factor[k]) *
                 pow(base, e));
            break;
        case SINPE_ROPE_PROPORTIONAL:
            x = k < s->rotated_pairs ? x / f : 0.0;
            break;
        default:
            break;
        }
        w[k] = s->inv_freq ? (double)s->inv_freq[k] : x;
    }
    if (s->attention_factor != 0.0)
        *m = s->attention_factor;
}

sinpe_status sinpe_rope_frequencies(const sinpe_rope_spec *spec, double *freqs, double *attention)
{
    sinpe_rope_spec s;
    double m, *w;
    sinpe__clear_error();
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    sinpe_rope_spec_init(&s, 0);
    SINPE_FORWARD(sinpe__struct_in(SINPE__ROPE_SPEC, &s, spec, "spec"));
    SINPE_FORWARD(validate(&s));
    w = freqs ? freqs : malloc(s.rotary_dim / 2 * sizeof *w);
    SINPE_CHECK(!w, SINPE_OUT_OF_HOST_MEMORY, "no memory for the frequencies");
    frequencies(&s, w, &m);
    if (attention)
        *attention = m;
    if (!freqs)
        free(w);
    return SINPE_SUCCESS;
}

sinpe_status sinpe_rope_softmax_factor(const sinpe_rope_spec *spec, double *factor)
{
    sinpe_rope_spec s;
    double g;
    sinpe__clear_error();
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    SINPE_CHECK(!factor, SINPE_NULL_ARGUMENT, "factor: the output pointer is NULL");
    sinpe_rope_spec_init(&s, 0);
    SINPE_FORWARD(sinpe__struct_in(SINPE__ROPE_SPEC, &s, spec, "spec"));
    SINPE_FORWARD(validate(&s));
    g = s.rule == SINPE_ROPE_YARN && s.mscale_all_dim != 0.0 ? yarn_g(s.factor, s.mscale_all_dim)
                                                             : 1.0;
    *factor = g * g;
    return SINPE_SUCCESS;
}

sinpe_status sinpe_rope_table_create(sinpe_context *context, const sinpe_rope_spec *spec,
                                     size_t rows, sinpe_table **table)
{
    sinpe_rope_spec s;
    sinpe_spec dims;
    sinpe__column *col;
    sinpe__rope_key *key;
    size_t R, h;
    sinpe_status st;

    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table: the output pointer is NULL");
    *table = NULL;
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context is NULL");
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    sinpe_rope_spec_init(&s, 0);
    SINPE_FORWARD(sinpe__struct_in(SINPE__ROPE_SPEC, &s, spec, "spec"));
    SINPE_FORWARD(validate(&s));
    R = s.rotary_dim;
    h = R / 2;
    key = malloc(SINPE__ROPE_KEY_BYTES(h));
    col = malloc(R * sizeof *col);
    if (!key || !col) {
        free(key);
        free(col);
        return sinpe__fail(SINPE_OUT_OF_HOST_MEMORY, "no memory for a rotary table");
    }
    frequencies(&s, key->w, &key->amp);
    key->rot = (double)R;
    key->layout = (double)s.layout;
    key->pairing = (double)s.pairing;
    key->axes = (double)s.axes;
    for (int i = 0; i < 4; i++)
        key->sections[i] = (double)s.sections[i];
    for (size_t c = 0; c < R; c++) {
        size_t k = s.layout == SINPE_ROPE_PAIRS ? c / 2 : c % h;
        int is_sin = s.layout == SINPE_ROPE_PAIRS       ? (int)(c & 1)
                     : s.layout == SINPE_ROPE_SIN_TWICE ? 1
                     : s.layout == SINPE_ROPE_COS_SIN   ? c >= h
                                                        : 0;
        col[c].w = key->w[k];
        col[c].kind = is_sin ? 1 : 2;
    }
    memset(&dims, 0, sizeof dims);
    dims.dim = R;
    st = sinpe__table_open(context, &dims, key, SINPE__ROPE_KEY_BYTES(h), col, key->amp, rows,
                           table);
    free(key);
    free(col);
    return st;
}
