/*
 * embed_kernels.cl -- the entry points of the embedding kernels, one per
 * line of kernels/entries.def, for the forms (SINPE_HAS_<FORM>, set by
 * the host from the tuning record) and calls this program holds, and the
 * bad-id counter.
 */
#include "abi.h"
#include "embed.cl"
#include "embed_fast.cl"
#include "embed_two_pass.cl"

#ifndef SINPE_WEIGHTS
/* Adds to *bad the number of ids that are negative (below != 0) or at
   least end (above != 0). */
kernel void sinpe_count_bad_ids(global const int *restrict ids, ulong ids_off, uint n,
                                int below, int above, int end, global int *bad, ulong bad_off)
{
    size_t r = get_global_id(0);
    if (r >= n)
        return;
    int id = ids[ids_off + r];
    if ((below && id < 0) || (above && id >= end))
        atomic_inc(bad + bad_off);
}
#endif

/* The body of each form. */
#define SINPE_BODY_FAST(mode, et, ot) sinpe_fast_body(mode, et, ot, SINPE_BODY_ARGS)
#define SINPE_BODY_STREAM(mode, et, ot) sinpe_stream_body(mode, et, ot, SINPE_BODY_ARGS)
#define SINPE_BODY_COL(mode, et, ot) sinpe_col_body(mode, et, ot, SINPE_BODY_ARGS)
#define SINPE_BODY_ROW(mode, et, ot) sinpe_row_body(mode, et, ot, SINPE_BODY_ARGS)
#define SINPE_BODY_GENERAL(mode, et, ot) sinpe_general_body(mode, et, ot, SINPE_BODY_ARGS)
#define SINPE_BODY_TABLE(mode, et, ot) sinpe_table_body(mode, et, ot, SINPE_BODY_ARGS)
#define SINPE_BODY_OTF(mode, et, ot) sinpe_otf_body(mode, et, ot, SINPE_BODY_ARGS)

/*
 * A program holds the kernels that read no weights (built without
 * SINPE_WEIGHTS: add, beside table.cl's kernels and the bad-id counter) or
 * the fused and gather kernels of one weights type (-DSINPE_WEIGHTS=<its
 * sinpe_dtype>), where the type is a constant: a load that branched on the
 * type at run time would keep CPU compilers from vectorising.  The host
 * builds each type's program on first use (src/context.c).
 */
#ifdef SINPE_WEIGHTS
#define SINPE_ET SINPE_WEIGHTS
#define SINPE_IN_FUSED 1
#define SINPE_IN_GATHER 1
#define SINPE_IN_ADD 0
#else
#define SINPE_ET SINPE_F32 /* add reads no weights */
#define SINPE_IN_FUSED 0
#define SINPE_IN_GATHER 0
#define SINPE_IN_ADD 1
#endif

/* A kernel of a form and call this program holds; nothing for the others. */
#define SINPE_DEFINE(form, name, mode, ot)                                     \
    kernel void name(SINPE_BODY_PARAMS)                                        \
    {                                                                          \
        SINPE_BODY_##form(SINPE_MODE_##mode, SINPE_ET, SINPE_##ot);            \
    }
#define SINPE_SKIP(form, name, mode, ot)
#define SINPE_PICK_00 SINPE_SKIP
#define SINPE_PICK_01 SINPE_SKIP
#define SINPE_PICK_10 SINPE_SKIP
#define SINPE_PICK_11 SINPE_DEFINE
#define SINPE_PICK(form_held, mode_held) SINPE_PICK_(form_held, mode_held)
#define SINPE_PICK_(form_held, mode_held) SINPE_PICK_##form_held##mode_held

#ifndef SINPE_HAS_FAST
#define SINPE_HAS_FAST 1
#endif
#ifndef SINPE_HAS_STREAM
#define SINPE_HAS_STREAM 0
#endif
#ifndef SINPE_HAS_COL
#define SINPE_HAS_COL 0
#endif
#ifndef SINPE_HAS_ROW
#define SINPE_HAS_ROW 0
#endif
#ifndef SINPE_HAS_GENERAL
#define SINPE_HAS_GENERAL 1
#endif
#ifndef SINPE_HAS_TABLE
#define SINPE_HAS_TABLE 0
#endif
#ifndef SINPE_HAS_OTF
#define SINPE_HAS_OTF 0
#endif

#define SINPE_KERNEL(form, name, mode, ot) \
    SINPE_PICK(SINPE_HAS_##form, SINPE_IN_##mode)(form, name, mode, ot)
#include "entries.def"
#undef SINPE_KERNEL
