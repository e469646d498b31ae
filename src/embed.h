/* embed.h -- the calls that launch through a sink, as embed.c, rope.c,
   record.c, rows.c and timesteps.c share them. */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "sink.h"

/* Checks a call of mode (SINPE_MODE_*) on table t and fills *p from it
   (tab_rows left 0). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p);

/* PE(row0 + r) into row r of out (r < nrows), into sink (rows.c): the
   anchors of the blocks the rows touch into a buffer of their own, then the
   rows, whose launch is the last when last is set.  A recording's table
   holds out and the anchors. */
sinpe_status sinpe__rows_emit(sinpe_table *t, sinpe__sink *sink, cl_int row0, size_t nrows,
                              cl_mem out, size_t out_offset, size_t out_stride,
                              sinpe_dtype out_dtype, int last);

/* Checks and runs the call of mode (SINPE_MODE_*) into sink. */
sinpe_status sinpe__embed_run(sinpe_table *t, int mode, const sinpe_embed_args *a,
                              sinpe__sink *sink);
/* The same for the rotation (rope.c), args a sinpe_rope_args. */
sinpe_status sinpe__rope_run(sinpe_table *t, const void *args, sinpe__sink *sink);

#endif
