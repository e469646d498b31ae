/*
 * kernels.c -- the host's side of the kernel contract: every kernel of
 * the program (at the end of its operation's kernels/<op>.cl) with its
 * form, call and output type, each form's signature (kernels/abi.h), and
 * the setting of a kernel's arguments from the struct of its signature, so
 * that no argument is passed by a position kept in step by hand.
 */
#include "sinpe_internal.h"

#include <stddef.h>

/* The kernels of kernels/abi.h's SINPE_KERNEL_LIST, a group at a time. */
#define KERNEL_T3(form, mode, name)                                          \
    {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_F32, #name "_f32"},         \
        {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_F16, #name "_f16"},     \
        {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_BF16, #name "_bf16"},
#define KERNEL_F32(form, mode, name) {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_F32, #name},
#define KERNEL_BF16(form, mode, name) \
    {SINPE_FORM_##form, SINPE_MODE_##mode, SINPE_BF16, #name "_bf16"},
#define KERNEL(form, mode, name, types) KERNEL_##types(form, mode, name)
const sinpe__kernel sinpe__kernels[] = {SINPE_KERNEL_LIST(KERNEL)};
#define N_KERNELS (int)(sizeof sinpe__kernels / sizeof sinpe__kernels[0])
const int sinpe__kernel_count = N_KERNELS;
typedef char sinpe__slots_fit[N_KERNELS <= SINPE_K_MAX ? 1 : -1];

/* The signature of form's kernels, sig: each argument from its X-list
   (SINPE_SIG_<sig> of kernels/abi.h), at its place in the struct of it. */
#define ARG(kind, type, name) \
    {#name, SINPE__##kind, offsetof(K, name), sizeof(((K *)0)->name)}
#define SIGNATURE(form, sig)                                                              \
    static const sinpe__signature *sig_##form(void)                                       \
    {                                                                                     \
        typedef SINPE__KARGS(SINPE_SIG_##sig) K;                                          \
        static const sinpe__arg arg[] = {SINPE_SIG_##sig(ARG, SINPE_COMMA)};              \
        static const sinpe__signature s = {arg, sizeof arg / sizeof arg[0], sizeof(K)};   \
        return &s;                                                                        \
    }
SINPE_FORM_LIST(SIGNATURE)

#define FORM_SIGNATURE(form, sig) sig_##form,
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
