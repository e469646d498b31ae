/*
 * ops.h -- the table of operations called with an argument struct: a new
 * operation is a row here, its own file (its checks, parameter block, plan
 * and public functions) and its kernels.  call.h says how a row is used.
 */
#ifndef SINPE_OPS_H
#define SINPE_OPS_H

/* An operation: its name in messages, the kind of table it reads. */
typedef struct sinpe__op {
    const char *name;
    int table; /* SINPE__TABLE_ENCODING or SINPE__TABLE_ROTARY */
} sinpe__op;

enum { SINPE__OP_EMBED, SINPE__OP_GATHER, SINPE__OP_ADD, SINPE__OP_ROPE, SINPE__OPS };

static inline const sinpe__op *sinpe__op_row(int op)
{
    static const sinpe__op ops[SINPE__OPS] = {
        [SINPE__OP_EMBED] = {"the embedding", SINPE__TABLE_ENCODING}, /* embed.c */
        [SINPE__OP_GATHER] = {"the gather", SINPE__TABLE_ENCODING},   /* embed.c */
        [SINPE__OP_ADD] = {"adding positions", SINPE__TABLE_ENCODING}, /* embed.c */
        [SINPE__OP_ROPE] = {"the rotation", SINPE__TABLE_ROTARY},     /* rope.c */
    };
    return &ops[op];
}

#endif /* SINPE_OPS_H */
