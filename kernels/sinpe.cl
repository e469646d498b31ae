/*
 * sinpe.cl -- the program: a kernel per entry of kernels/entries.def whose
 * form (SINPE_HAS_<FORM>, from the tuning record) and call the program
 * holds, each running sinpe_body_<FORM>.  The build embeds this file with
 * what it includes (scripts/embed-text.sh).
 *
 * A program holds the kernels that read no weights (no SINPE_WEIGHTS) or
 * the fused and gather kernels of one weights type (-DSINPE_WEIGHTS=<its
 * sinpe_dtype>), a constant: a load that branched on the type at run time
 * would keep CPU compilers from vectorising.
 */
#include "embed.cl"
#include "embed_fast.cl"
#include "embed_two_pass.cl"
#include "table.cl"
#include "rope.cl"

#ifdef SINPE_WEIGHTS
#define SINPE_ET SINPE_WEIGHTS
#define SINPE_IN_FUSED 1
#define SINPE_IN_GATHER 1
#define SINPE_IN_ADD 0
#define SINPE_IN_NONE 0
#else
#define SINPE_ET SINPE_F32 /* add reads no weights */
#define SINPE_IN_FUSED 0
#define SINPE_IN_GATHER 0
#define SINPE_IN_ADD 1
#define SINPE_IN_NONE 2
#endif

/* A kernel of an embedding call (IN 1) or of none (IN 2, the signature of
   its form's name), in a program that holds its form; nothing else. */
#define SINPE_KERNEL_IN_1(form, name, mode, ot)                                     \
    kernel void name(SINPE_PARAMS(SINPE_SIG_EMBED))                                 \
    {                                                                               \
        sinpe_body_##form(SINPE_MODE_##mode, SINPE_ET, SINPE_##ot,                  \
                          SINPE_ARGS(SINPE_SIG_EMBED));                             \
    }
#define SINPE_KERNEL_IN_2(form, name, mode, ot)                                     \
    kernel void name(SINPE_PARAMS(SINPE_SIG_##form))                                \
    {                                                                               \
        sinpe_body_##form(SINPE_##ot, SINPE_ARGS(SINPE_SIG_##form));                \
    }
#define SINPE_KERNEL_IN_0(form, name, mode, ot)
#define SINPE_PICK_0(in) SINPE_KERNEL_IN_0
#define SINPE_PICK_1(in) SINPE_KERNEL_IN_##in
#define SINPE_PICK(form_held, in) SINPE_PICK_(form_held, in)
#define SINPE_PICK_(form_held, in) SINPE_PICK_##form_held(in)

#define SINPE_KERNEL(form, name, mode, ot) \
    SINPE_PICK(SINPE_HAS_##form, SINPE_IN_##mode)(form, name, mode, ot)
#include "entries.def"
#undef SINPE_KERNEL
