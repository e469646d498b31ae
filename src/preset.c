/*
 * preset.c -- the framework families of sinpe_preset: their specs and the
 * token scale, position origin and padding that go with them.
 */
#include "sinpe_internal.h"

#include <math.h>

typedef struct {
    const char *name;
    sinpe_layout layout;
    sinpe_odd_dim odd;
    double shift;
    int sqrt_scale;          /* token_scale sqrt(d), else 1 */
    int origin;              /* args.start                  */
    sinpe_position_rule rule;
    sinpe_pad_policy pad;
    int pad_fixed;           /* >= 0: the family's own pad id */
    sinpe_scale_rounding rounding; /* of the token scale */
} preset_row;

static const preset_row presets[] = {
    [SINPE_PRESET_VASWANI] = {"vaswani", SINPE_LAYOUT_INTERLEAVED, SINPE_ODD_EXTRA_SIN, 0, 1, 0,
                              SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_TENSOR2TENSOR] = {"tensor2tensor", SINPE_LAYOUT_SPLIT_SIN_COS,
                                    SINPE_ODD_ZERO_LAST, 1, 1, 0, SINPE_POSITIONS_INDEX,
                                    SINPE_PAD_ZERO_EMBEDDING, 0, SINPE_SCALE_OUTPUT},
    [SINPE_PRESET_FAIRSEQ] = {"fairseq", SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1, 1,
                              0, SINPE_POSITIONS_FAIRSEQ, SINPE_PAD_ZERO_PE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_WHISPER] = {"whisper", SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ERROR, 1, 0, 0,
                              SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_MARIAN_HF] = {"marian_hf", SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_EXTRA_SIN, 0,
                                1, 0, SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_OPENNMT] = {"opennmt", SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ERROR, 1, 1, 1,
                              SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -1, SINPE_SCALE_OUTPUT},
    [SINPE_PRESET_DIFFUSERS] = {"diffusers", SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ZERO_LAST, 1,
                                0, 0, SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_DIFFUSERS_FLIP] = {"diffusers_flip", SINPE_LAYOUT_SPLIT_COS_SIN,
                                     SINPE_ODD_ZERO_LAST, 0, 0, 0, SINPE_POSITIONS_INDEX,
                                     SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_GGML_TIMESTEP] = {"ggml_timestep", SINPE_LAYOUT_SPLIT_COS_SIN,
                                    SINPE_ODD_ZERO_LAST, 0, 0, 0, SINPE_POSITIONS_INDEX,
                                    SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
    [SINPE_PRESET_MAE] = {"mae", SINPE_LAYOUT_SPLIT_SIN_COS, SINPE_ODD_ERROR, 0, 0, 0,
                          SINPE_POSITIONS_INDEX, SINPE_PAD_NONE, -1, SINPE_SCALE_EXACT},
};

static const preset_row *find(sinpe_preset preset)
{
    if ((int)preset < SINPE_PRESET_VASWANI || (int)preset > SINPE_PRESET_MAE)
        return NULL;
    return &presets[preset];
}

const char *sinpe_preset_name(sinpe_preset preset)
{
    const preset_row *row = find(preset);
    return row ? row->name : NULL;
}

sinpe_status sinpe_spec_preset_sized(sinpe_spec *spec, sinpe_preset preset, size_t dim,
                                     size_t struct_size)
{
    const preset_row *row = find(preset);
    sinpe_spec own;
    sinpe__clear_error();
    SINPE_CHECK(!spec, SINPE_NULL_ARGUMENT, "spec is NULL");
    SINPE_CHECK(!row, SINPE_UNKNOWN_PRESET, "preset %d is not a sinpe_preset", (int)preset);
    sinpe_spec_init(&own, dim);
    own.layout = row->layout;
    own.odd_dim = row->odd;
    own.shift = row->shift;
    SINPE_FORWARD(sinpe__struct_out(SINPE__SPEC, spec, struct_size, &own, SINPE__FILL, "spec"));
    return sinpe__spec_validate(&own);
}

sinpe_status sinpe_embed_args_preset(sinpe_embed_args *args, sinpe_preset preset, size_t dim,
                                     cl_int pad_id)
{
    const preset_row *row = find(preset);
    sinpe_embed_args own;
    sinpe__clear_error();
    SINPE_CHECK(!args, SINPE_NULL_ARGUMENT, "args is NULL");
    SINPE_CHECK(!row, SINPE_UNKNOWN_PRESET, "preset %d is not a sinpe_preset", (int)preset);
    sinpe_embed_args_init(&own);
    SINPE_FORWARD(sinpe__struct_in(SINPE__ARGS, &own, args, "args"));
    if (preset == SINPE_PRESET_DIFFUSERS || preset == SINPE_PRESET_DIFFUSERS_FLIP ||
        preset == SINPE_PRESET_GGML_TIMESTEP || preset == SINPE_PRESET_MAE)
        /* the timestep families and MAE set no argument */
        return SINPE_SUCCESS;
    own.token_scale = row->sqrt_scale ? (float)sqrt((double)dim) : 1.0f;
    own.start = row->origin;
    own.position_rule = row->rule;
    own.pad_policy = row->pad;
    own.pad_id = row->pad_fixed >= 0 ? row->pad_fixed : pad_id;
    own.token_scale_rounding = row->rounding;
    return sinpe__struct_out(SINPE__ARGS, args, own.struct_size, &own, SINPE__UPDATE, "args");
}
