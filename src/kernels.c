/*
 * kernels.c -- the host's side of the kernel contract: every kernel of
 * kernels/sinpe.cl with its form, call and output type, each form's
 * signature (kernels/abi.h), and the setting of a kernel's arguments from
 * the struct of its signature, so that no argument is passed by a
 * position kept in step by hand.
 */
#include "sinpe_internal.h"

#include <stddef.h>

/* The three kernels of (form, mode), one per output type, named prefix_f32,
   prefix_f16 and prefix_bf16. */
#define TYPES3(form, mode, prefix)                                        \
    {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_F32, prefix "_f32"},     \
        {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_F16, prefix "_f16"}, \
        {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_BF16, prefix "_bf16"}
const sinpe__kernel sinpe__kernels[] = {
    {SINPE_FORM_ANCHORS, SINPE_MODE_NONE, SINPE_F32, "sinpe_table_anchors"},
    TYPES3(ROWS, NONE, "sinpe_table_rows"),
    {SINPE_FORM_POSITIONS, SINPE_MODE_NONE, SINPE_F32, "sinpe_make_positions"},
    TYPES3(TIMESTEPS, NONE, "sinpe_timesteps"),
    TYPES3(GRID, NONE, "sinpe_grid"),
    {SINPE_FORM_BAD_IDS, SINPE_MODE_NONE, SINPE_F32, "sinpe_count_bad_ids"},
    TYPES3(ROPE, NONE, "sinpe_rope"),
    TYPES3(ATTN, NONE, "sinpe_attn_input"),
    TYPES3(FAST, FUSED, "sinpe_embed_fast"),
    TYPES3(FAST, GATHER, "sinpe_gather_fast"),
    TYPES3(FAST, ADD, "sinpe_add_fast"),
    TYPES3(STREAM, FUSED, "sinpe_embed_stream"),
    TYPES3(STREAM, GATHER, "sinpe_gather_stream"),
    {SINPE_FORM_COL, SINPE_MODE_FUSED, SINPE_BF16, "sinpe_embed_col_bf16"},
    {SINPE_FORM_COL, SINPE_MODE_GATHER, SINPE_BF16, "sinpe_gather_col_bf16"},
    TYPES3(ROW, FUSED, "sinpe_embed_row"),
    TYPES3(ROW, GATHER, "sinpe_gather_row"),
    TYPES3(GENERAL, FUSED, "sinpe_embed_general"),
    TYPES3(GENERAL, GATHER, "sinpe_gather_general"),
    TYPES3(GENERAL, ADD, "sinpe_add_general"),
    TYPES3(TABLE, FUSED, "sinpe_embed_table"),
    TYPES3(TABLE, ADD, "sinpe_add_table"),
    TYPES3(OTF, FUSED, "sinpe_embed_otf"),
    TYPES3(OTF, ADD, "sinpe_add_otf"),
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
SIGNATURE(ROPE, SINPE__KARGS(SINPE_SIG_ROPE))
SIGNATURE(GRID, SINPE__KARGS(SINPE_SIG_GRID))
SIGNATURE(ATTN, SINPE__KARGS(SINPE_SIG_ATTN))

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
