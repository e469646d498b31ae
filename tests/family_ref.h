/* family_ref.h -- independent references for the framework-family tests.
 *
 * The references behind fr_family_ref(), fr_diffusers() and fr_ggml() are
 * written from the named framework's own published code, in that code's
 * shape (its variable names, its order of operations, its quirks), and
 * evaluated in float64.  None of them uses
 * sinpe's spec or its general formula: they check that the presets really
 * reproduce the frameworks, not that sinpe agrees with itself.
 *
 * The storage-type converters are written here from the IEEE 754 and
 * bfloat16 definitions (round to nearest, ties to even), again without
 * looking at the kernels. */
#ifndef SINPE_FAMILY_REF_H
#define SINPE_FAMILY_REF_H

#include "sinpe.h"

#include <stddef.h>
#include <stdint.h>

/* ---- Framework references ---- */

/* What a framework makes of a width d. */
typedef enum fr_defined {
    FR_OK = 0,        /* the original computes a table                   */
    FR_REJECTS = 1,   /* the original refuses odd d (assert, ValueError) */
    FR_UNDEFINED = 2  /* the original divides by zero (raises, or NaN)   */
} fr_defined;

/* Whether preset's framework computes an encoding of width dim. */
fr_defined fr_family_defined(sinpe_preset preset, size_t dim);

/* Writes the framework's encoding of the n positions (or timesteps) pos[i]
 * into out[i * dim .. i * dim + dim), in float64.  Only for dims where
 * fr_family_defined() gives FR_OK.  For fairseq this is the formula of
 * get_embedding() without the zeroed padding_idx row (sinpe's table holds
 * PE(p) in every row and zeroes pad tokens through the pad policy instead). */
void fr_family_ref(sinpe_preset preset, size_t dim, size_t n, const double *pos, double *out);

/* The timestep functions with their parameters, for models that override
 * the defaults: diffusers get_timestep_embedding(timesteps, dim,
 * flip_sin_to_cos, downscale_freq_shift, scale, max_period) and ggml
 * timestep_embedding(timesteps, dim, max_period). */
void fr_diffusers(size_t dim, int flip_sin_to_cos, double downscale_freq_shift, double scale,
                  double max_period, size_t n, const double *t, double *out);
void fr_ggml(size_t dim, double max_period, size_t n, const double *t, double *out);

/* ---- Storage types ---- */

uint32_t fr_f32_bits(float f);
float fr_bits_f32(uint32_t u);

/* IEEE binary16 from float32, round to nearest even, subnormals kept,
 * overflow to infinity, NaN to a quiet NaN. */
uint16_t fr_f32_to_f16(float f);
/* binary16 to float32 (exact). */
float fr_f16_to_f32(uint16_t h);

/* bfloat16 (the upper half of a float32) from float32, round to nearest
 * even, NaN kept NaN. */
uint16_t fr_f32_to_bf16(float f);
float fr_bf16_to_f32(uint16_t b);

int fr_f16_is_nan(uint16_t h);
int fr_bf16_is_nan(uint16_t b);

/* Storage size of a dtype in bytes. */
size_t fr_dtype_size(sinpe_dtype t);

/* Element i of a buffer of dtype t, widened to float. */
float fr_load(const void *buf, size_t i, sinpe_dtype t);

/* Stores the rounding of x to dtype t as element i. */
void fr_store(void *buf, size_t i, sinpe_dtype t, float x);

/* The raw bits of element i (zero-extended for 16-bit types). */
uint32_t fr_raw(const void *buf, size_t i, sinpe_dtype t);

/* Whether element i is a NaN of its type. */
int fr_raw_is_nan(uint32_t raw, sinpe_dtype t);

/* A poison pattern per dtype: a signalling NaN no computation produces. */
uint32_t fr_poison_raw(sinpe_dtype t);

/* A device buffer of n elements of dtype t, all the poison. */
cl_mem fr_poisoned_buffer(sinpe_context *ctx, size_t n, sinpe_dtype t);

/* The bits of x rounded to dtype t, as fr_raw() reads them. */
uint32_t fr_round(float x, sinpe_dtype t);

const char *fr_dtype_name(sinpe_dtype t);

#endif /* SINPE_FAMILY_REF_H */
