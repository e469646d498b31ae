/* embed.h -- what the embedding calls' two files share (embed.c, embed_args.c). */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "call.h"

/* Checks the call of mode (SINPE_MODE_*) on t and fills *p from it, but
   for what the plan decides: the position source, tab_rows, the plan's
   flags (embed.c writes those, once each). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p);
/* The position source of a's tokens (gather's: none, start 0). */
sinpe__positions sinpe__embed_positions(int mode, const sinpe_embed_args *a);

#endif
