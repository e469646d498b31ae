/* ref.h -- the float64 host reference shared by the grind, stress and fuzz
 * programs (plain C, no test framework).
 *
 * Everything here follows include/sinpe.h, not the library's sources: the
 * encoding formula, the position rules, padding, shards and the storage
 * types are re-derived from the documentation, so that a disagreement
 * between the two shows up as a failed comparison. */
#ifndef SINPE_GRIND_REF_H
#define SINPE_GRIND_REF_H

#include "sinpe.h"

#include <stddef.h>
#include <stdint.h>

/* ---- random numbers (splitmix64) ---------------------------------------- */

uint64_t ref_next(uint64_t *state);
double ref_unit(uint64_t *state);                          /* [0, 1)   */
int32_t ref_int(uint64_t *state, int32_t lo, int32_t hi);  /* [lo, hi] */

/* ---- the encoding -------------------------------------------------------- */

/* A spec from its fields. */
sinpe_spec ref_spec(size_t dim, sinpe_layout layout, sinpe_odd_dim odd, double shift,
                    double base, double angle_scale);

/* PE(pos) for spec into row[0 .. dim), in float64. */
void ref_pe_row(const sinpe_spec *spec, double pos, double *row);

/* The position lane of rotary pair k (axes a sinpe_rope_axes, sec the
   lanes' pair counts): the header's rule. */
size_t ref_rope_lane(int axes, const size_t sec[4], size_t k);

/* ---- storage types ------------------------------------------------------- */

size_t ref_dtype_size(sinpe_dtype t); /* the float types' */
/* Bytes of n values of t (the block types: whole blocks, a partial one whole). */
size_t ref_dtype_bytes(sinpe_dtype t, size_t n);
/* The k-th quantized type of the library's table (k modulo their count). */
sinpe_dtype ref_quantized_type(size_t k);
const char *ref_dtype_name(sinpe_dtype t);
/* The exact value of element i of an array of type t; for the quantized
   types the value before the row's scale (the block types: as ggml
   dequantizes it, to float32). */
double ref_load(sinpe_dtype t, const void *base, size_t i);
/* Stores a random value of type t at element i, of magnitude about
 * [2^-6, 2] (a few zeros and float16 subnormals included), and returns
 * its exact value. */
double ref_store_random(sinpe_dtype t, void *base, size_t i, uint64_t *rng);
/* A quiet NaN bit pattern no computation produces, per storage type. */
void ref_poison(sinpe_dtype t, void *base, size_t n);
int ref_is_poison(sinpe_dtype t, const void *base, size_t i);
/* Whether got is acceptable for the exact value ref: within 1e-6 (1 + |ref|)
 * for float32; for float16 and bfloat16 within half an ulp of the format
 * (at the larger of |ref| and |got|) plus that 1e-6 (1 + |ref|). */
int ref_close(sinpe_dtype t, double got, double ref);

/* ---- the embedding ------------------------------------------------------- */

enum { REF_FUSED = 0, REF_GATHER = 1, REF_ADD = 2 };

/* Host copies of the whole buffers named in args (offsets are applied from
 * args, as the device does).  A buffer that args leaves NULL may be NULL.
 * prev is the output buffer's content before an add_positions call. */
typedef struct ref_inputs {
    const sinpe_spec *spec;
    const sinpe_embed_args *args;
    const int32_t *ids, *positions, *seq_starts, *pad_counts;
    const void *weights; /* of args->weights_dtype */
    const void *scales;  /* of args->weight_scales_dtype, or NULL */
    const void *prev;    /* of args->out_dtype     */
} ref_inputs;

/* Position of token (b, t) by the header's rules, int32 arithmetic that wraps. */
int32_t ref_position(const ref_inputs *in, size_t b, size_t t);

/* The largest dim ref_embed handles. */
#define REF_MAX_DIM 4096

/* The expected output of mode (REF_FUSED, REF_GATHER or REF_ADD) into
 * ref[r * dim + c], r < n_seqs * seq_len, and the expected increase of the
 * bad-id counter into *bad (0 for REF_ADD, which does not count). */
void ref_embed(const ref_inputs *in, int mode, double *ref, long *bad);

/* out[n, :] = PE(ts[n]) with real timesteps, into ref[n * dim + c]. */
void ref_timesteps(const sinpe_spec *spec, const float *ts, size_t count, double *ref);

#endif /* SINPE_GRIND_REF_H */
