/*
 * rope_model.c -- the rotary rules of whole models, layer by layer
 * (include/sinpe.h, sinpe_rope_model), and Llama 4's attention
 * temperature.  Each model is its published configuration: the layer
 * pattern and one rotary row per layer type.
 */
#include "sinpe_internal.h"

#include <math.h>
#include <string.h>

/* info as a struct that grows (sinpe__kind): its first layout ends at the field named. */
#define LAYER SINPE__KIND(sinpe_rope_layer, floor_scale)

/* The rotary parameters and layer facts of one layer type of a model. */
struct kind {
    sinpe_layer_type type;
    size_t window, head_dim, rot, offset, pairs; /* rot: R (0: head_dim) */
    double base;
    sinpe_rope_rule rule;
    sinpe_rope_pairing pairing;
    double factor;
    size_t orig;
    double mscale, mscale_all_dim;
    int no_truncate;
    double low, high; /* LLAMA3 (0: the spec's defaults) */
    int nope;         /* a NoPE layer with the model's temperature */
};

/* Layer i is of kind `every` when (i + 1) % every_n == 0 (or, with
   last_every, i is the last layer), else of kind `other`. */
static const struct model {
    const char *name;
    size_t layers;
    unsigned every_n;
    int last_every;
    struct kind other, every;
    double attn_scale, floor_scale;
} models[] = {
    [SINPE_ROPE_MODEL_QWEN3] = {.name = "qwen3", .layers = 36,
                                .other = {.head_dim = 128, .base = 1e6}},
    [SINPE_ROPE_MODEL_GEMMA3] =
        {.name = "gemma3", .layers = 62, .every_n = 6,
         .other = {.type = SINPE_LAYER_SLIDING, .window = 1024, .head_dim = 128, .base = 1e4},
         .every = {.head_dim = 128, .base = 1e6, .rule = SINPE_ROPE_LINEAR, .factor = 8}},
    [SINPE_ROPE_MODEL_GEMMA4] =
        {.name = "gemma4", .layers = 30, .every_n = 6, .last_every = 1,
         .other = {.type = SINPE_LAYER_SLIDING, .window = 512, .head_dim = 256, .base = 1e4},
         .every = {.head_dim = 512, .pairs = 64, .base = 1e6, .rule = SINPE_ROPE_PROPORTIONAL,
                   .factor = 1}},
    [SINPE_ROPE_MODEL_DEEPSEEK_V3] = {.name = "deepseek-v3", .layers = 61,
                                      .other = {.head_dim = 192, .rot = 64, .offset = 128,
                                                .base = 1e4, .rule = SINPE_ROPE_YARN,
                                                .pairing = SINPE_ROPE_INTERLEAVED, .factor = 40,
                                                .orig = 4096, .mscale = 1, .mscale_all_dim = 1}},
    [SINPE_ROPE_MODEL_GPT_OSS] =
        {.name = "gpt-oss", .layers = 36, .every_n = 2,
         .other = {.type = SINPE_LAYER_SLIDING, .window = 128, .head_dim = 64, .base = 150000,
                   .rule = SINPE_ROPE_YARN, .factor = 32, .orig = 4096, .no_truncate = 1},
         .every = {.head_dim = 64, .base = 150000, .rule = SINPE_ROPE_YARN, .factor = 32,
                   .orig = 4096, .no_truncate = 1}},
    [SINPE_ROPE_MODEL_LLAMA4_SCOUT] =
        {.name = "llama4-scout", .layers = 48, .every_n = 4, .attn_scale = 0.1,
         .floor_scale = 8192,
         .other = {.type = SINPE_LAYER_CHUNKED, .window = 8192, .head_dim = 128, .base = 5e5,
                   .rule = SINPE_ROPE_LLAMA3, .pairing = SINPE_ROPE_INTERLEAVED, .factor = 16,
                   .orig = 8192, .low = 1, .high = 1},
         .every = {.head_dim = 128, .base = 5e5, .rule = SINPE_ROPE_LLAMA3,
                   .pairing = SINPE_ROPE_INTERLEAVED, .factor = 16, .orig = 8192, .low = 1,
                   .high = 1, .nope = 1}},
};
#define N_MODELS (sizeof models / sizeof models[0])

const char *sinpe_rope_model_name(sinpe_rope_model model)
{
    return (unsigned)model < N_MODELS ? models[model].name : NULL;
}

static const struct kind *kind_of(const struct model *m, size_t layer)
{
    int every = (m->every_n && (layer + 1) % m->every_n == 0) ||
                (m->last_every && layer + 1 == m->layers);
    return every ? &m->every : &m->other;
}

/* Writes layer's spec and info; nothing when a struct size is refused. */
static sinpe_status fill(const struct model *m, size_t layer, sinpe_rope_spec *spec,
                         size_t spec_size, sinpe_rope_layer *info, size_t info_size)
{
    const struct kind *k = kind_of(m, layer);
    sinpe_rope_spec s;
    sinpe_rope_layer l;
    size_t R = k->rot ? k->rot : k->head_dim;

    sinpe_rope_spec_init(&s, R);
    s.base = k->base;
    s.rule = k->rule;
    s.pairing = k->pairing;
    s.factor = k->factor;
    s.original_max_positions = k->orig;
    s.mscale = k->mscale;
    s.mscale_all_dim = k->mscale_all_dim;
    s.truncate = !k->no_truncate;
    if (k->low != 0.0)
        s.low_freq_factor = k->low, s.high_freq_factor = k->high;
    s.rotated_pairs = k->pairs;

    memset(&l, 0, sizeof l);
    l.layers = m->layers;
    l.type = k->type;
    l.window = k->window;
    l.rotates = !k->nope;
    l.head_dim = k->head_dim;
    l.rotary_offset = k->offset;
    SINPE_FORWARD(sinpe_rope_softmax_factor(&s, &l.softmax_factor));
    if (k->nope && m->floor_scale != 0.0) {
        l.temperature = 1;
        l.attn_scale = m->attn_scale;
        l.floor_scale = m->floor_scale;
    }
    /* Both sizes first, so that a refused one leaves both structs alone. */
    SINPE_FORWARD(sinpe__struct_check(SINPE__ROPE_SPEC, spec_size, "spec"));
    SINPE_FORWARD(sinpe__struct_check(LAYER, info_size, "info"));
    sinpe__struct_out(SINPE__ROPE_SPEC, spec, spec_size, &s, SINPE__FILL, "spec");
    sinpe__struct_out(LAYER, info, info_size, &l, SINPE__FILL, "info");
    return SINPE_SUCCESS;
}

/* The arguments both calls take. */
static sinpe_status check_call(sinpe_rope_model model, const void *spec, const void *info)
{
    sinpe__clear_error();
    SINPE_CHECK(!sinpe_rope_model_name(model), SINPE_UNKNOWN_PRESET,
                "model %d is not a sinpe_rope_model", (int)model);
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    SINPE_CHECK(!info, SINPE_NULL_ARGUMENT, "info is NULL");
    return SINPE_SUCCESS;
}

sinpe_status sinpe_rope_model_layer_sized(sinpe_rope_model model, size_t layer,
                                          sinpe_rope_spec *spec, size_t spec_size,
                                          sinpe_rope_layer *info, size_t info_size)
{
    SINPE_FORWARD(check_call(model, spec, info));
    const struct model *m = &models[model];
    SINPE_CHECK(layer >= m->layers, SINPE_INVALID_SHAPE,
                "layer %zu: %s has layers 0 .. %zu", layer, m->name, m->layers - 1);
    return fill(m, layer, spec, spec_size, info, info_size);
}

sinpe_status sinpe_rope_model_type_sized(sinpe_rope_model model, sinpe_layer_type type,
                                         sinpe_rope_spec *spec, size_t spec_size,
                                         sinpe_rope_layer *info, size_t info_size)
{
    SINPE_FORWARD(check_call(model, spec, info));
    SINPE_CHECK((unsigned)type > SINPE_LAYER_CHUNKED, SINPE_INVALID_OPTION,
                "type %d is not a sinpe_layer_type", (int)type);
    const struct model *m = &models[model];
    size_t i = 0;
    while (i < m->layers && kind_of(m, i)->type != type)
        i++;
    SINPE_CHECK(i == m->layers, SINPE_INVALID_OPTION, "type %s: %s has no such layer",
                type == SINPE_LAYER_FULL      ? "FULL"
                : type == SINPE_LAYER_SLIDING ? "SLIDING"
                                              : "CHUNKED",
                m->name);
    return fill(m, i, spec, spec_size, info, info_size);
}

sinpe_status sinpe_rope_temperature(int32_t position, double attn_scale, double floor_scale,
                                    double *factor)
{
    sinpe__clear_error();
    SINPE_CHECK(!factor, SINPE_NULL_ARGUMENT, "factor: the output pointer is NULL");
    SINPE_CHECK(!isfinite(attn_scale), SINPE_INVALID_SPEC, "attn_scale must be finite (got %g)",
                attn_scale);
    SINPE_CHECK(!(isfinite(floor_scale) && floor_scale > 0.0), SINPE_INVALID_SPEC,
                "floor_scale must be finite and > 0 (got %g)", floor_scale);
    double x = (double)position + 1.0, n = floor(x / floor_scale);
    /* The exact floor of x / floor_scale: x - n floor_scale has its true sign
       after fma's one rounding. */
    if (fma(-n, floor_scale, x) < 0.0)
        n -= 1.0;
    else if (fma(-(n + 1.0), floor_scale, x) >= 0.0)
        n += 1.0;
    *factor = log1p(n > 0.0 ? n : 0.0) * attn_scale + 1.0;
    return SINPE_SUCCESS;
}
