/*
 * rope_preset.c -- the rotary presets of include/sinpe.h: each family's
 * published configuration as a sinpe_rope_spec.
 */
#include "sinpe_internal.h"

#include <string.h>

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

enum { SPLIT_QUARTERS = 1, SPLIT_THIRDS, SPLIT_COGVIDEOX }; /* sections derived from head_dim */

static const struct row {
    const char *name;
    double base;
    sinpe_rope_rule rule;
    unsigned rot_div; /* R = head_dim / rot_div, or R = rot when rot is set */
    unsigned rot;
    sinpe_rope_pairing pairing;
    double factor;
    size_t orig, max;
    sinpe_rope_axes axes;
    unsigned head;       /* the head_dim the sections are for (0: any) */
    unsigned split;      /* or SPLIT_*: the sections from R */
    size_t sections[3];
} presets[] = {
    [SINPE_ROPE_PRESET_LLAMA2] = {.name = "llama2", .base = 1e4, .rot_div = 1},
    [SINPE_ROPE_PRESET_LLAMA3_1] = {.name = "llama3.1", .base = 5e5, .rule = SINPE_ROPE_LLAMA3,
                                    .rot_div = 1, .factor = 8, .orig = 8192},
    [SINPE_ROPE_PRESET_MISTRAL] = {.name = "mistral", .base = 1e6, .rot_div = 1},
    [SINPE_ROPE_PRESET_QWEN2] = {.name = "qwen2", .base = 1e6, .rot_div = 1},
    [SINPE_ROPE_PRESET_QWEN2_YARN] = {.name = "qwen2-yarn", .base = 1e6, .rule = SINPE_ROPE_YARN,
                                      .rot_div = 1, .factor = 4, .orig = 32768},
    [SINPE_ROPE_PRESET_GPT_NEOX] = {.name = "gpt-neox", .base = 1e4, .rot_div = 4},
    [SINPE_ROPE_PRESET_GPTJ] = {.name = "gptj", .base = 1e4, .rot = 64,
                                .pairing = SINPE_ROPE_INTERLEAVED},
    [SINPE_ROPE_PRESET_PHI3_LONGROPE] = {.name = "phi3-longrope", .base = 1e4,
                                         .rule = SINPE_ROPE_LONGROPE, .rot_div = 1,
                                         .orig = 4096, .max = 131072},
    [SINPE_ROPE_PRESET_QWEN2_VL] = {.name = "qwen2-vl", .base = 1e6, .rot_div = 1,
                                    .axes = SINPE_ROPE_MROPE, .head = 128,
                                    .sections = {16, 24, 24}},
    [SINPE_ROPE_PRESET_QWEN2_5_VL] = {.name = "qwen2.5-vl", .base = 1e6, .rot_div = 1,
                                      .axes = SINPE_ROPE_MROPE, .head = 128,
                                      .sections = {16, 24, 24}},
    [SINPE_ROPE_PRESET_QWEN3_VL] = {.name = "qwen3-vl", .base = 5e6, .rot_div = 1,
                                    .axes = SINPE_ROPE_MROPE_INTERLEAVED, .head = 128,
                                    .sections = {24, 20, 20}},
    [SINPE_ROPE_PRESET_QWEN3_5] = {.name = "qwen3.5", .base = 1e7, .rot_div = 4,
                                   .axes = SINPE_ROPE_MROPE_INTERLEAVED, .head = 256,
                                   .sections = {11, 11, 10}},
    [SINPE_ROPE_PRESET_QWEN2_VL_VISION] = {.name = "qwen2-vl-vision", .base = 1e4, .rot_div = 1,
                                           .axes = SINPE_ROPE_AXES_ND, .split = SPLIT_QUARTERS},
    [SINPE_ROPE_PRESET_FLUX] = {.name = "flux", .base = 1e4, .rot_div = 1,
                                .pairing = SINPE_ROPE_INTERLEAVED, .axes = SINPE_ROPE_AXES_ND,
                                .head = 128, .sections = {8, 28, 28}},
    [SINPE_ROPE_PRESET_HUNYUAN_VIDEO] = {.name = "hunyuan-video", .base = 256, .rot_div = 1,
                                         .pairing = SINPE_ROPE_INTERLEAVED,
                                         .axes = SINPE_ROPE_AXES_ND, .head = 128,
                                         .sections = {8, 28, 28}},
    [SINPE_ROPE_PRESET_WAN] = {.name = "wan", .base = 1e4, .rot_div = 1,
                               .pairing = SINPE_ROPE_INTERLEAVED, .axes = SINPE_ROPE_AXES_ND,
                               .split = SPLIT_THIRDS},
    [SINPE_ROPE_PRESET_COGVIDEOX] = {.name = "cogvideox", .base = 1e4, .rot_div = 1,
                                     .pairing = SINPE_ROPE_INTERLEAVED,
                                     .axes = SINPE_ROPE_AXES_ND, .split = SPLIT_COGVIDEOX},
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
    const struct row *r = &presets[preset];
    size_t rot = r->rot ? r->rot : head_dim / r->rot_div, c = rot / 2;
    SINPE_CHECK(rot == 0 || (rot & 1) || rot > head_dim, SINPE_INVALID_SPEC,
                "head_dim %zu gives rotary_dim %zu for preset %s: it must be even, at least "
                "2 and at most head_dim",
                head_dim, rot, r->name);
    SINPE_CHECK(r->head && head_dim != r->head, SINPE_INVALID_SPEC,
                "head_dim %zu: the %s sections are for head_dim %u", head_dim, r->name, r->head);
    sinpe_rope_spec_init(&own, rot);
    own.base = r->base;
    own.rule = r->rule;
    own.pairing = r->pairing;
    own.factor = r->factor;
    own.original_max_positions = r->orig;
    own.max_positions = own.length = r->max;
    own.axes = r->axes;
    memcpy(own.sections, r->sections, sizeof r->sections);
    if (r->split == SPLIT_QUARTERS) {
        SINPE_CHECK(c & 1, SINPE_INVALID_SPEC,
                    "head_dim %zu: %s needs a multiple of 4 (two equal axes)", head_dim, r->name);
        own.sections[0] = own.sections[1] = c / 2;
    } else if (r->split == SPLIT_THIRDS) {
        SINPE_CHECK(c < 3, SINPE_INVALID_SPEC, "head_dim %zu: %s needs at least 6", head_dim,
                    r->name);
        own.sections[1] = own.sections[2] = c / 3;
        own.sections[0] = c - 2 * (c / 3);
    } else if (r->split == SPLIT_COGVIDEOX) {
        SINPE_CHECK(rot % 16, SINPE_INVALID_SPEC,
                    "head_dim %zu: %s needs a multiple of 16 (axes of 1/4, 3/8, 3/8)",
                    head_dim, r->name);
        own.sections[0] = rot / 8;
        own.sections[1] = own.sections[2] = 3 * rot / 16;
    }
    if (preset == SINPE_ROPE_PRESET_PHI3_LONGROPE) {
        SINPE_CHECK(rot != 96, SINPE_INVALID_SPEC,
                    "head_dim %zu: the phi3-longrope factor lists are for head_dim 96", head_dim);
        own.long_factor = phi35_long;
        own.short_factor = phi35_short;
        own.n_long_factor = own.n_short_factor = sizeof phi35_long / sizeof phi35_long[0];
    }
    return sinpe__struct_out(SINPE__ROPE_SPEC, spec, struct_size, &own, SINPE__FILL, "spec");
}
