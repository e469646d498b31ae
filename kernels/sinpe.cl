/*
 * sinpe.cl -- the head of the program.  The program is this file, then
 * every other .cl file of kernels/ in name order (bytes), each with what
 * it includes, once: the Makefile's KERNEL_ROOTS, which
 * scripts/embed-text.sh embeds, and whose names the library keeps
 * (sinpe__kernel_source_roots) to build the same files from disk
 * (SINPE_KERNEL_SOURCE).  Each operation's file ends with its kernels
 * written out, each running the body of its form (sinpe_body_<FORM>) for
 * its call and output type (kernels/abi.h, SINPE_BODY and SINPE_EMBED);
 * the host's table of the same kernels is src/kernels.c, made from
 * SINPE_KERNEL_LIST (tests/test_contract.c holds the two together), and
 * src/plan.c picks a kernel by its form, SINPE_FORM_<FORM>.  A new
 * operation's file is found without an edit here.
 *
 * A program holds the kernels of the forms its tuning record reaches
 * (SINPE_HAS_<FORM>) and of its calls: add and the kernels that read no
 * weights, or (-DSINPE_WEIGHTS=<sinpe_dtype>) the fused and gather kernels
 * of one weights type.
 */
#include "abi.h"
