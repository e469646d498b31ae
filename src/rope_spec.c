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

/* Phi-3.5-mini-instruct's LongRoPE factors (its config.json, rotary_dim 96):
   float32 values, as the shortest float literals that give them. */
static const double phi35_long[48] = {
    1.08f, 1.11f, 1.14f, 1.34f, 1.5899999f, 1.6f, 1.62f, 2.6200001f, 3.23f, 3.23f, 4.79f, 7.4f,
    7.7000003f, 9.09f, 12.2f, 17.67f, 24.460001f, 28.570002f, 30.420002f, 30.840002f, 32.590004f,
    32.930004f, 42.320004f, 44.960003f, 50.340004f, 50.450005f, 57.550003f, 57.930004f, 58.210003f,
    60.140003f, 62.610004f, 62.620003f, 62.710003f, 63.140003f, 63.140003f, 63.770004f, 63.930004f,
    63.960003f, 63.97f, 64.03f, 64.07f, 64.08f, 64.12f, 64.41f, 64.48f, 64.51f, 64.53f, 64.84f,
};
static const double phi35_short[48] = {
    1.0f, 1.02f, 1.03f, 1.03f, 1.05f, 1.05f, 1.05f, 1.05f, 1.05f, 1.0699999f, 1.0999999f,
    1.1099999f, 1.1599998f, 1.1599998f, 1.1699998f, 1.2899998f, 1.3399998f, 1.6799998f, 1.7899998f,
    1.8199998f, 1.8499998f, 1.8799998f, 1.9099997f, 1.9399997f, 1.9899997f, 2.0199997f, 2.0199997f,
    2.0199997f, 2.0199997f, 2.0199997f, 2.0199997f, 2.0299997f, 2.0299997f, 2.0299997f, 2.0299997f,
    2.0299997f, 2.0299997f, 2.0299997f, 2.0299997f, 2.0299997f, 2.0799997f, 2.0899997f, 2.1899996f,
    2.2199996f, 2.5899994f, 2.7299995f, 2.7499995f, 2.8399994f,
};

static const struct {
    const char *name;
    double base;
    sinpe_rope_rule rule;
    unsigned rot_div; /* R = head_dim / rot_div, or R = rot when rot is set */
    unsigned rot;
    sinpe_rope_pairing pairing;
    double factor;
    size_t orig, max;
} presets[] = {
    [SINPE_ROPE_PRESET_LLAMA2] = {"llama2", 1e4, SINPE_ROPE_DEFAULT, 1, 0, 0, 0, 0, 0},
    [SINPE_ROPE_PRESET_LLAMA3_1] = {"llama3.1", 5e5, SINPE_ROPE_LLAMA3, 1, 0, 0, 8, 8192, 0},
    [SINPE_ROPE_PRESET_MISTRAL] = {"mistral", 1e6, SINPE_ROPE_DEFAULT, 1, 0, 0, 0, 0, 0},
    [SINPE_ROPE_PRESET_QWEN2] = {"qwen2", 1e6, SINPE_ROPE_DEFAULT, 1, 0, 0, 0, 0, 0},
    [SINPE_ROPE_PRESET_QWEN2_YARN] = {"qwen2-yarn", 1e6, SINPE_ROPE_YARN, 1, 0, 0, 4, 32768, 0},
    [SINPE_ROPE_PRESET_GPT_NEOX] = {"gpt-neox", 1e4, SINPE_ROPE_DEFAULT, 4, 0, 0, 0, 0, 0},
    [SINPE_ROPE_PRESET_GPTJ] = {"gptj", 1e4, SINPE_ROPE_DEFAULT, 1, 64, SINPE_ROPE_INTERLEAVED, 0,
                                0, 0},
    [SINPE_ROPE_PRESET_PHI3_LONGROPE] = {"phi3-longrope", 1e4, SINPE_ROPE_LONGROPE, 1, 0, 0, 0,
                                         4096, 131072},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

const char *sinpe_rope_preset_name(sinpe_rope_preset preset)
{
    return (unsigned)preset < N_PRESETS ? presets[preset].name : NULL;
}

sinpe_status sinpe_rope_preset_sized(sinpe_rope_spec *spec, sinpe_rope_preset preset,
                                     size_t head_dim, size_t struct_size)
{
    sinpe_rope_spec own;
    sinpe__clear_error();
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    SINPE_CHECK(!sinpe_rope_preset_name(preset), SINPE_UNKNOWN_PRESET,
                "preset %d is not a sinpe_rope_preset", (int)preset);
    size_t rot = presets[preset].rot ? presets[preset].rot : head_dim / presets[preset].rot_div;
    SINPE_CHECK(rot == 0 || (rot & 1) || rot > head_dim, SINPE_INVALID_SPEC,
                "head_dim %zu gives rotary_dim %zu for preset %s: it must be even, at least "
                "2 and at most head_dim",
                head_dim, rot, presets[preset].name);
    sinpe_rope_spec_init(&own, rot);
    own.base = presets[preset].base;
    own.rule = presets[preset].rule;
    own.pairing = presets[preset].pairing;
    own.factor = presets[preset].factor;
    own.original_max_positions = presets[preset].orig;
    own.max_positions = own.length = presets[preset].max;
    if (preset == SINPE_ROPE_PRESET_PHI3_LONGROPE) {
        SINPE_CHECK(rot != 96, SINPE_INVALID_SPEC,
                    "head_dim %zu: the phi3-longrope factor lists are for head_dim 96", head_dim);
        own.long_factor = phi35_long;
        own.short_factor = phi35_short;
        own.n_long_factor = own.n_short_factor = sizeof phi35_long / sizeof phi35_long[0];
    }
    return sinpe__struct_out(SINPE__ROPE_SPEC, spec, struct_size, &own, SINPE__FILL, "spec");
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

/* The fields the rule reads, the lists' counts, and the lists' values. */
static sinpe_status validate(const sinpe_rope_spec *s)
{
    size_t R = s->rotary_dim, h = R / 2;
    int r = s->rule;
    SINPE_CHECK(R < 2 || (R & 1) || R > MAX_ROT, SINPE_INVALID_SPEC,
                "spec.rotary_dim %zu must be even, at least 2 and at most %u", R, MAX_ROT);
    SINPE_CHECK(!(isfinite(s->base) && s->base > 1.0), SINPE_INVALID_SPEC,
                "spec.base must be finite and > 1 (got %g)", s->base);
    SINPE_CHECK((unsigned)r > SINPE_ROPE_LONGROPE, SINPE_INVALID_SPEC,
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
                      s->low_freq_factor < s->high_freq_factor),
                SINPE_INVALID_SPEC,
                "spec.low_freq_factor %g and high_freq_factor %g must be finite, > 0, low < high",
                s->low_freq_factor, s->high_freq_factor);
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
    return SINPE_SUCCESS;
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

static void frequencies(const sinpe_rope_spec *s, double *w, double *m)
{
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
            } else if (!(l < orig / s->high_freq_factor)) {
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
