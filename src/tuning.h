/*
 * tuning.h -- the tuning record (tuning.c) and what the plan says of it
 * (plan.c): the part of the library that sinpe-tune and the tests use to
 * read, write and compare records without the rest of src/.
 */
#ifndef SINPE_TUNING_H
#define SINPE_TUNING_H

#include "sinpe.h"

#include "abi.h" /* SINPE_MODE_*, SINPE_FORM_* */

#include <stddef.h>

/*
 * The tuning record: the work shape of the kernels, as data.  Each
 * parameter: its name, its values (numbers, words whose index is the
 * value, or "#" for a whole number), its place in sinpe-tune's search
 * (most work moved first; 0: not searched) and what it sets.  A value
 * stays in a list only while some record of tuning/ takes it.  plan.c
 * alone says what a record means.
 */
#define SINPE_TUNING_PARAMS(X)                                                                \
    X(seqs, "2 4", 2, "sequences per work-item of the FAST form")                             \
    X(table_seqs, "2 4", 6, "sequences per work-item of the TABLE form")                      \
    X(general, "one_pass two_pass", 1,                                                        \
      "fused and add calls with positions to check: the GENERAL form, or TABLE then OTF")      \
    X(stream, "0 1", 4,                                                                       \
      "1: fused and gather outputs of stream_bytes or more take STREAM (then OTF if needed)")  \
    X(stream_lines, "1 4", 5, "64-byte lines of a sequence's output per STREAM work-item")    \
    X(stream_bytes, "#", 7, "the smallest output the STREAM form writes")                      \
    X(decode, "tiles rows", 8,                                                                \
      "calls of at most decode_tokens tokens: as any other, or whole rows (ROW, OTF alone)")   \
    X(decode_tokens, "#", 0, "the most tokens of a decode-sized call")                         \
    X(bf16, "vector scalar", 3, "bf16 weights and output: the FAST form, or COL")             \
    X(table_tile, "1 8", 10, "table rows: a work-item computes table_tile^2 values")           \
    X(aligned, "0 1", 9, "1: four-value accesses through vector pointers where a call allows") \
    X(wide16, "4 16", 11, "columns per work-item of FAST into 16-bit outputs, per step of ROW")\
    X(rope_pairs, "4 64", 12, "pairs of every head per work-item of the rotary kernel")     \
    X(prefetch, "0 1", 13, "1: a work-item walking a token's row asks for the next one's lines") \
    X(stream_prefetch, "0 1", 14, "1: STREAM into 16-bit outputs asks for the next rows' starts") \
    X(grid_span, "columns rows image", 15,                                                    \
      "grid encodings per work-item: a column, then 16 of a token's row; or whole rows; "      \
      "or whole rows through an image's table")                                                \
    X(grid_image_bytes, "#", 0, "grid_span = image: the largest one-image table it writes")    \
    X(attn_heads, "1 16", 16, "heads of one kind of a token per work-item of the attention input")

#define SINPE_TUNING_FIELD(name, values, order, doc) size_t name;
typedef struct sinpe__tuning {
    SINPE_TUNING_PARAMS(SINPE_TUNING_FIELD)
} sinpe__tuning;
#undef SINPE_TUNING_FIELD

/* The word values, as indices. */
enum { SINPE_ONE_PASS, SINPE_TWO_PASS };
enum { SINPE_DECODE_TILES, SINPE_DECODE_ROWS };
enum { SINPE_BF16_VECTOR, SINPE_BF16_SCALAR };
enum { SINPE_GRID_COLUMNS, SINPE_GRID_ROWS, SINPE_GRID_IMAGE };

typedef struct sinpe__param {
    const char *name, *values;
    int order;
    size_t offset;
} sinpe__param;
extern const sinpe__param sinpe__params[];
extern const size_t sinpe__n_params;
size_t *sinpe__param_field(sinpe__tuning *t, size_t i);
/* The k-th allowed value of parameter i as text; 0 past the last (and for "#"). */
int sinpe__param_choice(size_t i, size_t k, char *buf, size_t n);
/* The k-th value a field of parameter i can hold: each of its list, or for
   a number 0 and the largest; 0 past the last. */
int sinpe__param_value(size_t i, size_t k, size_t *v);
/* Value v of parameter i as its text (a word or a number); 0 when out of range. */
int sinpe__param_format(size_t i, size_t v, char *buf, size_t n);

/* A record in text form, parsed: its parameters and the key fields the
   library reads. */
#define SINPE__META 256
typedef struct sinpe__record {
    sinpe__tuning t;
    unsigned set; /* bit i: sinpe__params[i] was given */
    char name[SINPE__META], vendor[SINPE__META], type[SINPE__META], device[SINPE__META];
    char key[SINPE__META], version[SINPE__META];
    char why[192]; /* the first error of sinpe__record_parse */
} sinpe__record;

/* Parses record text; -1 (the reason in r->why) on an unknown key or value. */
int sinpe__record_parse(const char *text, sinpe__record *r);
/* Whether every parameter is set. */
int sinpe__record_complete(const sinpe__record *r);
/* Copies the parameters r sets into t. */
void sinpe__record_apply(sinpe__tuning *t, const sinpe__record *r);
/* "name=value; ..." for every parameter; returns the length it needs. */
size_t sinpe__tuning_format(const sinpe__tuning *t, char *buf, size_t n);
/* "cpu", "gpu" or "accelerator". */
const char *sinpe__type_name(cl_device_type type);

/* The database: the files of tuning/, one record each, then NULL. */
extern const char *const sinpe__database[];
/* The record that fits a device best; -1 when none does. */
int sinpe__database_lookup(const char *vendor, cl_device_type type, const char *device,
                           sinpe__record *r);

/* The largest value of a "#" parameter (2^62 where size_t has 64 bits). */
#define SINPE__NEVER ((size_t)1 << (sizeof(size_t) * 8 - 2))

/* Room for a record's text. */
#define SINPE__VARIANT 320

/*
 * A call as the plan sees it (plan.c): an embedding call (mode
 * SINPE_MODE_FUSED, _GATHER or _ADD of kernels/abi.h) with its types and
 * the facts about it that choose its launches, or a kernel of no call
 * (mode SINPE_MODE_NONE) of the given form, such as table rows.
 */
typedef struct sinpe__call {
    int mode, form;
    int weights, out; /* sinpe_dtype */
    int fast;    /* every position start + t in the table, no padding policy, no OWNER shard */
    int lines;   /* every 64-byte line of the output whole and aligned */
    int aligned; /* every four-value access aligned */
    size_t tokens, out_bytes;
    int ordered; /* positions without a buffer: in order in each sequence */
    int computed; /* no position can lie in the table: every PE is computed */
    size_t n_seqs, seq_len, dim; /* an embedding call's ranges (not the choice's) ... */
    int past;    /* ... and its pre-passes: the rows of positions [start, start + seq_len) */
    int fairseq; /* fairseq's positions made from the ids */
    int bad_ids; /* the ids out of range counted */
    int start;
} sinpe__call;

/* A kind of call of (mode, weights, out), bits < SINPE__KIND_BITS saying
   which facts hold and whether its sizes are at the small or the large
   end; of mode NONE, bits 0 and 1 say the attention input, else bit 0 the
   rotation, else bit 1 the grid encoding, instead of table rows. */
sinpe__call sinpe__plan_kind(int mode, int weights, int out, int bits);
#define SINPE__KIND_BITS 128
/* Whether records t and u launch the same kernels the same way for c. */
int sinpe__plan_same(const sinpe__tuning *t, const sinpe__tuning *u, const sinpe__call *c);
/* Whether some value of parameter i changes the launches of c under t
   (any call of any kind when c is NULL). */
int sinpe__plan_affects(const sinpe__tuning *t, size_t i, const sinpe__call *c);
/* The forms (bit SINPE_FORM_*) that the calls reach under t. */
unsigned sinpe__plan_forms(const sinpe__tuning *t);
/* Records that together reach every form record r reaches, each with every
   parameter that changes no call at its first value: r with no call
   streamed nor decode-sized; with every call decode-sized (if r has
   decode-sized calls); with every call streamed that can be (if r
   streams).  Into out[0 .. 3); returns how many. */
size_t sinpe__plan_variants(const sinpe__tuning *r, sinpe__tuning *out);

/* sinpe_context_create_from_cl for sinpe-tune (context.c): the context
   builds no weights type's program until a call needs it, as it does for
   the quantized types, so that a record timed on fp32 calls alone never
   compiles the fp16 and bf16 programs (each as long to build as the rest). */
sinpe_status sinpe__context_create_lazy(cl_context cl_ctx, cl_device_id device,
                                        const sinpe_context_options *options,
                                        sinpe_context **context);

#endif /* SINPE_TUNING_H */
