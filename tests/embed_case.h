/* embed_case.h -- one embedding call given as host arrays, run through the
 * fused kernel, the unfused pair, gather or add_positions alone, and
 * checked against the float64 reference of the header's rules (ref_embed,
 * tests/grind/ref.c): the harness of test_embed.c and test_positions.c. */
#ifndef SINPE_TEST_EMBED_CASE_H
#define SINPE_TEST_EMBED_CASE_H

#include "test_util.h"

typedef enum pmode {
    PM_FUSED,   /* sinpe_enqueue_embed */
    PM_UNFUSED, /* sinpe_enqueue_gather, then sinpe_enqueue_add_positions */
    PM_GATHER,  /* sinpe_enqueue_gather alone */
    PM_ADD      /* sinpe_enqueue_add_positions alone, on a prefilled output */
} pmode;

/* One run: host inputs (ids and the position sources without their
   offsets, w with its own) and the argument fields. */
typedef struct pcase {
    const char *name;
    sinpe_spec spec;
    size_t table_rows;
    size_t n_seqs, seq_len, vocab;
    size_t ids_offset, out_offset, out_stride; /* out_stride 0: dim */
    size_t weights_offset, weights_stride;     /* weights_stride 0: dim */
    float token_scale;
    int32_t start;
    const int32_t *ids; /* n_seqs * seq_len */
    const float *w;     /* w_rows * dim, else offset + the vocab rows' extent */
    size_t w_rows;      /* rows in w, past vocab too (0: vocab) */
    const int32_t *positions; /* seq_len values when broadcast, else n_seqs * seq_len */
    size_t positions_offset;
    int broadcast;
    const int32_t *seq_starts; /* n_seqs */
    size_t seq_starts_offset;
    const int32_t *pad_counts; /* n_seqs */
    size_t pad_counts_offset;
    sinpe_position_rule rule;
    sinpe_pad_policy policy;
    int32_t pad_id;
    int no_weights; /* PM_ADD only: weights NULL and vocab 0 */
    int use_bad_ids; /* a counter at bad_ids_offset, 0x5A5A one past it */
    size_t bad_ids_offset;
} pcase;

size_t pc_rows(const pcase *c);
size_t pc_out(const pcase *c); /* the output's elements, offset included */

/* The arguments of c in mode with its buffers made on ctx: ids, weights
   and positions with junk before their offsets; the output poisoned, or,
   for PM_ADD, holding prefill in the written rows (n_rows * dim values). */
sinpe_embed_args pc_args(sinpe_context *ctx, const pcase *c, pmode mode, const float *prefill);
void pc_release(sinpe_embed_args *a);

/* The expected rows (n_rows * dim) of a (pc_args) in mode: those whose
   value the header leaves open (add_positions on a ZERO_EMBEDDING pad)
   are NaN.  *bad: the count of bad ids, if bad is not NULL. */
double *pc_ref(const pcase *c, const sinpe_embed_args *a, pmode mode, const float *prefill,
               long *bad);

/* Runs c in mode on tab and returns the whole output buffer (pc_out(c)
   floats); with ref, also returns pc_ref() there.  The calls that can
   return an event must; with use_bad_ids, *bad is the counter read back
   and the element past it is checked untouched. */
float *pc_run(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, const pcase *c,
              pmode mode, const float *prefill, double **ref, int32_t *bad);

/* Values, exact zeros of ZERO_OUTPUT pads, exact prefill of ZERO_PE pads
   under add_positions, and the untouched gaps. */
void pc_check(const pcase *c, const float *got, const double *ref, const float *prefill,
              const char *what);

/* Runs c fused and unfused on a table of c->table_rows rows: the fused
   output against the reference, the unfused one bit for bit against it.
   ctx NULL: on a context of its own. */
void pc_run_and_check(sinpe_context *ctx, cl_command_queue q, const pcase *c);

#endif
