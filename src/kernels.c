/*
 * kernels.c -- the host's side of the kernel contract: every kernel of
 * kernels/entries.def with its form, call and output type, each form's
 * signature (kernels/abi.h), and the setting of a kernel's arguments from
 * the struct of its signature, so that no argument is passed by a
 * position kept in step by hand.
 */
#include "sinpe_internal.h"

#include <stddef.h>

const sinpe__kernel sinpe__kernels[] = {
#define SINPE_KERNEL(form, name, mode, ot) \
    {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_##ot, #name},
#include "entries.def"
#undef SINPE_KERNEL
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
