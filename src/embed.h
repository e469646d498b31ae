/* embed.h -- what the embedding calls' two files share (embed.c, embed_args.c). */
#ifndef SINPE_EMBED_H
#define SINPE_EMBED_H

#include "call.h"

/* Checks the call of mode (SINPE_MODE_*) on t and fills *p from it, but
   for what the plan decides: the position source, tab_rows, the plan's
   flags (embed.c writes those, once each). */
sinpe_status sinpe__embed_validate(const sinpe_table *t, int mode, const sinpe_embed_args *a,
                                   sinpe_embed_params *p);
/* The parameter block of the launches of buffer j of a's weights_list
   (its rows from first on; p the call's, with SINPE_PART): its rows as a
   shard's, the tokens below them its own if it is the first, those above
   if the last (kernels/embed.cl, sinpe_other_part). */
sinpe_embed_params sinpe__embed_part(const sinpe_embed_args *a, const sinpe_embed_params *p,
                                     size_t j, size_t first);
/* The position source of a's tokens (gather's: none, start 0). */
sinpe__positions sinpe__embed_positions(int mode, const sinpe_embed_args *a);

#endif
