/*
 * v0_1.c -- the 0.1 entry points: the sized calls, their structs written
 * back in 0.1 layouts (structs.c).  They sit above every other file.
 */
#include "sinpe_internal.h"

void(sinpe_context_options_init)(void *options)
{
    sinpe_context_options own;
    sinpe_context_options_init(&own);
    if (options)
        sinpe__struct_out(SINPE__OPTIONS, options, 0, &own, SINPE__FILL_V0_1, "options");
}

void(sinpe_spec_init)(void *spec, size_t dim)
{
    sinpe_spec own;
    sinpe_spec_init(&own, dim);
    if (spec)
        sinpe__struct_out(SINPE__SPEC, spec, 0, &own, SINPE__FILL_V0_1, "spec");
}

sinpe_status(sinpe_spec_preset)(void *spec, sinpe_preset preset, size_t dim)
{
    sinpe_spec own;
    sinpe_status st = sinpe_spec_preset(spec ? &own : NULL, preset, dim);
    if (st == SINPE_SUCCESS || st == SINPE_INVALID_SPEC) /* filled, as 0.1 did */
        sinpe__struct_out(SINPE__SPEC, spec, 0, &own, SINPE__FILL_V0_1, "spec");
    return st;
}

sinpe_spec_v0_1(sinpe_table_spec)(const sinpe_table *table)
{
    sinpe_spec own;
    sinpe_spec_v0_1 old;
    sinpe_table_spec_sized(table, &own, SINPE_STRUCT_SIZE(sinpe_spec));
    sinpe__struct_out(SINPE__SPEC, &old, 0, &own, SINPE__FILL_V0_1, "spec");
    return old;
}

void(sinpe_embed_args_init)(void *args)
{
    sinpe_embed_args own;
    sinpe_embed_args_init(&own);
    if (args)
        sinpe__struct_out(SINPE__ARGS, args, 0, &own, SINPE__FILL_V0_1, "args");
}
