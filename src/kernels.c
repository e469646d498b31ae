/*
 * kernels.c -- the host's side of the kernel contract: every kernel of
 * kernels/sinpe.cl with its form, call and output type, each form's
 * signature (kernels/abi.h), and the setting of a kernel's arguments from
 * the struct of its signature, so that no argument is passed by a
 * position kept in step by hand.
 */
#include "sinpe_internal.h"

#include <stddef.h>

const sinpe__kernel sinpe__kernels[] = {
    {SINPE_FORM_ANCHORS, SINPE_MODE_NONE, SINPE_F32, "sinpe_table_anchors"},
    {SINPE_FORM_ROWS, SINPE_MODE_NONE, SINPE_F32, "sinpe_table_rows_f32"},
    {SINPE_FORM_ROWS, SINPE_MODE_NONE, SINPE_F16, "sinpe_table_rows_f16"},
    {SINPE_FORM_ROWS, SINPE_MODE_NONE, SINPE_BF16, "sinpe_table_rows_bf16"},
    {SINPE_FORM_POSITIONS, SINPE_MODE_NONE, SINPE_F32, "sinpe_make_positions"},
    {SINPE_FORM_TIMESTEPS, SINPE_MODE_NONE, SINPE_F32, "sinpe_timesteps_f32"},
    {SINPE_FORM_TIMESTEPS, SINPE_MODE_NONE, SINPE_F16, "sinpe_timesteps_f16"},
    {SINPE_FORM_TIMESTEPS, SINPE_MODE_NONE, SINPE_BF16, "sinpe_timesteps_bf16"},
    {SINPE_FORM_GRID, SINPE_MODE_NONE, SINPE_F32, "sinpe_grid_f32"},
    {SINPE_FORM_GRID, SINPE_MODE_NONE, SINPE_F16, "sinpe_grid_f16"},
    {SINPE_FORM_GRID, SINPE_MODE_NONE, SINPE_BF16, "sinpe_grid_bf16"},
    {SINPE_FORM_BAD_IDS, SINPE_MODE_NONE, SINPE_F32, "sinpe_count_bad_ids"},
    {SINPE_FORM_ROPE, SINPE_MODE_NONE, SINPE_F32, "sinpe_rope_f32"},
    {SINPE_FORM_ROPE, SINPE_MODE_NONE, SINPE_F16, "sinpe_rope_f16"},
    {SINPE_FORM_ROPE, SINPE_MODE_NONE, SINPE_BF16, "sinpe_rope_bf16"},
    {SINPE_FORM_FAST, SINPE_MODE_FUSED, SINPE_F32, "sinpe_embed_fast_f32"},
    {SINPE_FORM_FAST, SINPE_MODE_FUSED, SINPE_F16, "sinpe_embed_fast_f16"},
    {SINPE_FORM_FAST, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_fast_bf16"},
    {SINPE_FORM_FAST, SINPE_MODE_GATHER, SINPE_F32, "sinpe_gather_fast_f32"},
    {SINPE_FORM_FAST, SINPE_MODE_GATHER, SINPE_F16, "sinpe_gather_fast_f16"},
    {SINPE_FORM_FAST, SINPE_MODE_GATHER, SINPE_BF16, "sinpe_gather_fast_bf16"},
    {SINPE_FORM_FAST, SINPE_MODE_ADD, SINPE_F32, "sinpe_add_fast_f32"},
    {SINPE_FORM_FAST, SINPE_MODE_ADD, SINPE_F16, "sinpe_add_fast_f16"},
    {SINPE_FORM_FAST, SINPE_MODE_ADD, SINPE_BF16, "sinpe_add_fast_bf16"},
    {SINPE_FORM_STREAM, SINPE_MODE_FUSED, SINPE_F32, "sinpe_embed_stream_f32"},
    {SINPE_FORM_STREAM, SINPE_MODE_FUSED, SINPE_F16, "sinpe_embed_stream_f16"},
    {SINPE_FORM_STREAM, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_stream_bf16"},
    {SINPE_FORM_STREAM, SINPE_MODE_GATHER, SINPE_F32, "sinpe_gather_stream_f32"},
    {SINPE_FORM_STREAM, SINPE_MODE_GATHER, SINPE_F16, "sinpe_gather_stream_f16"},
    {SINPE_FORM_STREAM, SINPE_MODE_GATHER, SINPE_BF16, "sinpe_gather_stream_bf16"},
    {SINPE_FORM_COL, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_col_bf16"},
    {SINPE_FORM_COL, SINPE_MODE_GATHER, SINPE_BF16, "sinpe_gather_col_bf16"},
    {SINPE_FORM_ROW, SINPE_MODE_FUSED, SINPE_F32, "sinpe_embed_row_f32"},
    {SINPE_FORM_ROW, SINPE_MODE_FUSED, SINPE_F16, "sinpe_embed_row_f16"},
    {SINPE_FORM_ROW, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_row_bf16"},
    {SINPE_FORM_ROW, SINPE_MODE_GATHER, SINPE_F32, "sinpe_gather_row_f32"},
    {SINPE_FORM_ROW, SINPE_MODE_GATHER, SINPE_F16, "sinpe_gather_row_f16"},
    {SINPE_FORM_ROW, SINPE_MODE_GATHER, SINPE_BF16, "sinpe_gather_row_bf16"},
    {SINPE_FORM_GENERAL, SINPE_MODE_FUSED, SINPE_F32, "sinpe_embed_general_f32"},
    {SINPE_FORM_GENERAL, SINPE_MODE_FUSED, SINPE_F16, "sinpe_embed_general_f16"},
    {SINPE_FORM_GENERAL, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_general_bf16"},
    {SINPE_FORM_GENERAL, SINPE_MODE_GATHER, SINPE_F32, "sinpe_gather_general_f32"},
    {SINPE_FORM_GENERAL, SINPE_MODE_GATHER, SINPE_F16, "sinpe_gather_general_f16"},
    {SINPE_FORM_GENERAL, SINPE_MODE_GATHER, SINPE_BF16, "sinpe_gather_general_bf16"},
    {SINPE_FORM_GENERAL, SINPE_MODE_ADD, SINPE_F32, "sinpe_add_general_f32"},
    {SINPE_FORM_GENERAL, SINPE_MODE_ADD, SINPE_F16, "sinpe_add_general_f16"},
    {SINPE_FORM_GENERAL, SINPE_MODE_ADD, SINPE_BF16, "sinpe_add_general_bf16"},
    {SINPE_FORM_TABLE, SINPE_MODE_FUSED, SINPE_F32, "sinpe_embed_table_f32"},
    {SINPE_FORM_TABLE, SINPE_MODE_FUSED, SINPE_F16, "sinpe_embed_table_f16"},
    {SINPE_FORM_TABLE, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_table_bf16"},
    {SINPE_FORM_TABLE, SINPE_MODE_ADD, SINPE_F32, "sinpe_add_table_f32"},
    {SINPE_FORM_TABLE, SINPE_MODE_ADD, SINPE_F16, "sinpe_add_table_f16"},
    {SINPE_FORM_TABLE, SINPE_MODE_ADD, SINPE_BF16, "sinpe_add_table_bf16"},
    {SINPE_FORM_OTF, SINPE_MODE_FUSED, SINPE_F32, "sinpe_embed_otf_f32"},
    {SINPE_FORM_OTF, SINPE_MODE_FUSED, SINPE_F16, "sinpe_embed_otf_f16"},
    {SINPE_FORM_OTF, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_otf_bf16"},
    {SINPE_FORM_OTF, SINPE_MODE_ADD, SINPE_F32, "sinpe_add_otf_f32"},
    {SINPE_FORM_OTF, SINPE_MODE_ADD, SINPE_F16, "sinpe_add_otf_f16"},
    {SINPE_FORM_OTF, SINPE_MODE_ADD, SINPE_BF16, "sinpe_add_otf_bf16"},
};
#define N_KERNELS (int)(sizeof sinpe__kernels / sizeof sinpe__kernels[0])
const int sinpe__kernel_count = N_KERNELS;
typedef char sinpe__slots_fit[N_KERNELS <= SINPE_K_MAX ? 1 : -1];

/* The signature of the kernels of form sig: each argument from its X-list
   (SINPE_SIG_<sig> of kernels/abi.h), at its place in the struct kargs. */
#define ARG(kind, type, name) \
    {#name, SINPE__##kind, offsetof(K, name), sizeof(((K *)0)->name)}
#define SIGNATURE(sig, kargs)                                                             \
    static const sinpe__signature *sig_##sig(void)                                        \
    {                                                                                     \
        typedef kargs K;                                                                  \
        static const sinpe__arg arg[] = {SINPE_SIG_##sig(ARG, SINPE_COMMA)};              \
        static const sinpe__signature s = {arg, sizeof arg / sizeof arg[0], sizeof(K)};   \
        return &s;                                                                        \
    }
SIGNATURE(EMBED, sinpe__embed_kargs)
SIGNATURE(ANCHORS, sinpe__anchors_kargs)
SIGNATURE(ROWS, sinpe__rows_kargs)
SIGNATURE(POSITIONS, sinpe__positions_kargs)
SIGNATURE(TIMESTEPS, sinpe__timesteps_kargs)
SIGNATURE(BAD_IDS, sinpe__bad_ids_kargs)
SIGNATURE(ROPE, sinpe__rope_kargs)
SIGNATURE(GRID, sinpe__grid_kargs)

#define FORM_SIGNATURE(form, sig) sig_##sig,
static const sinpe__signature *(*const form_signature[SINPE_FORMS])(void) = {
    SINPE_FORM_LIST(FORM_SIGNATURE)};

const sinpe__signature *sinpe__kernel_signature(int k)
{
    return form_signature[sinpe__kernels[k].form]();
}

cl_int sinpe__set_args(cl_kernel kernel, int k, const void *args, size_t size)
{
    const sinpe__signature *sig = sinpe__kernel_signature(k);
    cl_int err = CL_SUCCESS;
    if (size != sig->size)
        return CL_INVALID_ARG_SIZE;
    for (unsigned i = 0; i < sig->n && err == CL_SUCCESS; i++) {
        const sinpe__arg *g = &sig->arg[i];
        const char *v = (const char *)args + g->offset;
        if (g->kind == SINPE__LOCAL)
            err = clSetKernelArg(kernel, i, *(const size_t *)(const void *)v, NULL);
        else
            err = clSetKernelArg(kernel, i, g->size, v);
    }
    return err;
}
