/*
 * sinpe_internal.h -- what the src/ files share.  Dependencies point one way:
 * status -> device -> tuning -> kernels -> plan -> program -> context -> spec
 * -> table -> the operations (call.h: embed, rope, rows, timesteps) -> host.
 */
#ifndef SINPE_INTERNAL_H
#define SINPE_INTERNAL_H

#include "sinpe.h"

#include "abi.h"
#include "tuning.h" /* the record (tuning.c) and the plan's queries of it (plan.c) */

#include <pthread.h>
#include <stdarg.h>

/* ---- status.c ------------------------------------------------------------ */

/* Records a message for sinpe_last_error() and returns status. */
sinpe_status sinpe__fail(sinpe_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Records an OpenCL failure of call `what`, returns the cl code as a status. */
sinpe_status sinpe__cl_fail(cl_int err, const char *what);
/* Clears the calling thread's message: the first thing every public
   function does but the five that describe constants or the last failure. */
void sinpe__clear_error(void);
/* An accessor's entry: clears the message; whether handle is not NULL
   (else the failure "name is NULL"). */
int sinpe__enter_with(const void *handle, const char *name);

/* Return from the current function: a recorded failure when cond holds; a
   failed status (its message already recorded); the OpenCL failure of call
   `what`. */
#define SINPE_CHECK(cond, status, ...)                 \
    do {                                               \
        if (cond)                                      \
            return sinpe__fail((status), __VA_ARGS__); \
    } while (0)
#define SINPE_FORWARD(expr)              \
    do {                                 \
        sinpe_status sinpe_s_ = (expr);  \
        if (sinpe_s_ != SINPE_SUCCESS)   \
            return sinpe_s_;             \
    } while (0)
#define SINPE_CL_CHECK(err, what)                 \
    do {                                          \
        cl_int sinpe_e_ = (err);                  \
        if (sinpe_e_ != CL_SUCCESS)               \
            return sinpe__cl_fail(sinpe_e_, what);\
    } while (0)

/* ---- dtype.c ------------------------------------------------------------- */

/* The most storage types a context keeps programs for (dtype.c checks). */
#define SINPE__MAX_DTYPES 16

/* The properties of t, or NULL when t is not a sinpe_dtype; x rounded to
   nearest even in a small float type (F16, BF16, FP8_*), as bits; the value
   of such bits; x rounded to an output type and back. */
const sinpe_dtype_info *sinpe__dtype(sinpe_dtype t);
unsigned sinpe__encode(sinpe_dtype t, double x);
double sinpe__decode(sinpe_dtype t, unsigned bits);
float sinpe__round_to(sinpe_dtype t, float x);

/* ---- structs.c ----------------------------------------------------------- */

/* A public struct that grows (include/sinpe.h, "Structs that grow"): the
   library's size, its first sized layout's (0.2's, or the release that
   brought it: the layout that field ends, for ever) and the 0.1 layout's
   (0: none).  An operation's own struct is a SINPE__KIND() in its file;
   the structs several files share are named here (structs.c). */
typedef struct sinpe__kind {
    size_t size, v0_2, v0_1;
} sinpe__kind;
#define SINPE__END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))
#define SINPE__KIND(T, last) (&(const sinpe__kind){sizeof(T), SINPE__END(T, last), 0})
extern const sinpe__kind sinpe__kind_options, sinpe__kind_spec, sinpe__kind_args,
    sinpe__kind_dtype_info, sinpe__kind_rope_spec;
#define SINPE__OPTIONS (&sinpe__kind_options)
#define SINPE__SPEC (&sinpe__kind_spec)
#define SINPE__ARGS (&sinpe__kind_args)
#define SINPE__DTYPE_INFO (&sinpe__kind_dtype_info)
#define SINPE__ROPE_SPEC (&sinpe__kind_rope_spec)
/* How sinpe__struct_out writes: a fresh struct (fields past the library's
   zeroed), an update of one read in (those left alone), a 0.1 struct. */
enum { SINPE__FILL, SINPE__UPDATE, SINPE__FILL_V0_1 };
/* Copies the caller's struct of kind into own, which holds the defaults:
   own's struct_size is then the caller's, or 0 for a 0.1 struct.  Fails
   with SINPE_INVALID_STRUCT_SIZE naming what. */
sinpe_status sinpe__struct_in(const sinpe__kind *kind, void *own, const void *theirs,
                               const char *what);
/* SINPE_INVALID_STRUCT_SIZE naming what unless word is a tagged size of kind
   at least its first sized layout. */
sinpe_status sinpe__struct_check(const sinpe__kind *kind, size_t word, const char *what);
/* Writes own back into the caller's struct of struct_size word (UPDATE: as
   sinpe__struct_in gave it). */
sinpe_status sinpe__struct_out(const sinpe__kind *kind, void *theirs, size_t word,
                               const void *own, int how, const char *what);
/* The body of the *_init_sized calls: own, the defaults, FILLs theirs (if not NULL). */
void sinpe__struct_init(const sinpe__kind *kind, void *theirs, size_t word, const void *own,
                        const char *what);

/* ---- device.c ------------------------------------------------------------ */

/* Picks a device by selector (NULL or "" = SINPE_DEVICE, then GPU > ACC > CPU);
   the facts about a device that sinpe's choices depend on. */
sinpe_status sinpe__device_pick(const char *selector, cl_platform_id *platform,
                                cl_device_id *device);
typedef struct sinpe__device_info {
    char name[256];
    char vendor[256];
    cl_ulong max_alloc;
    size_t max_item[3]; /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    cl_device_type type;
    int has_fp64;
    cl_uint cb_version; /* of cl_khr_command_buffer; 0: none reported */
} sinpe__device_info;
sinpe_status sinpe__device_query(cl_device_id device, sinpe__device_info *info);

/* ---- tuning_source.c ----------------------------------------------------- */

/* The record of a context: override, else the device's tuning file, else
   the database.  *from (SINPE__FROM bytes) says which. */
#define SINPE__FROM 512
sinpe_status sinpe__tuning_pick(cl_device_id dev, const sinpe__device_info *info,
                                const char *override, sinpe__tuning *t, char *from);

/* ---- kernels.c ----------------------------------------------------------- */

/* Every kernel, slot k the k-th of kernels/abi.h's SINPE_KERNEL_LIST. */
typedef struct sinpe__kernel {
    int form, mode, ot; /* SINPE_FORM_*, SINPE_MODE_*, sinpe_dtype of the output */
    const char *name;
} sinpe__kernel;
extern const sinpe__kernel sinpe__kernels[];
extern const int sinpe__kernel_count;
#define SINPE_K_MAX 128 /* at least sinpe__kernel_count (kernels.c checks) */

/* A kernel's arguments as the host holds them: one struct per signature of
   kernels/abi.h, the arguments in order (a buffer as its cl_mem, a local
   one as its size in bytes), filled by name. */
#define SINPE__HOST_IN(type) cl_mem
#define SINPE__HOST_OUT(type) cl_mem
#define SINPE__HOST_VAL(type) type
#define SINPE__HOST_LOCAL(type) size_t
#define SINPE__FIELD(kind, type, name) SINPE__HOST_##kind(type) name
#define SINPE__SEMI() ;
#define SINPE__KARGS(sig) struct { sig(SINPE__FIELD, SINPE__SEMI); }
/* The shared forms' structs (an operation's own is a SINPE__KARGS in its file). */
typedef SINPE__KARGS(SINPE_SIG_EMBED) sinpe__embed_kargs;
typedef SINPE__KARGS(SINPE_SIG_ANCHORS) sinpe__anchors_kargs;
typedef SINPE__KARGS(SINPE_SIG_ROWS) sinpe__rows_kargs;
typedef SINPE__KARGS(SINPE_SIG_POSITIONS) sinpe__positions_kargs;
typedef SINPE__KARGS(SINPE_SIG_TIMESTEPS) sinpe__timesteps_kargs;
typedef SINPE__KARGS(SINPE_SIG_BAD_IDS) sinpe__bad_ids_kargs;

/* A signature: each argument's name, kind and place in its struct. */
enum { SINPE__IN, SINPE__OUT, SINPE__VAL, SINPE__LOCAL };
typedef struct sinpe__arg {
    const char *name;
    int kind;
    size_t offset, size;
} sinpe__arg;
typedef struct sinpe__signature {
    const sinpe__arg *arg;
    unsigned n;
    size_t size; /* of its struct */
} sinpe__signature;
const sinpe__signature *sinpe__kernel_signature(int k);
/* Sets the arguments of kernel, of slot k, from args, a struct of size
   bytes of its signature; CL_INVALID_ARG_SIZE when it is not one. */
cl_int sinpe__set_args(cl_kernel kernel, int k, const void *args, size_t size);

/* ---- plan.c -------------------------------------------------------------- */

/* A program's kernels (program.c builds them). */
typedef struct sinpe__program {
    cl_program program;
    cl_kernel kernels[SINPE_K_MAX];
    size_t wg[SINPE_K_MAX]; /* CL_KERNEL_WORK_GROUP_SIZE of each */
    int from_disk;          /* 1 when the binary came from the disk cache */
} sinpe__program;

/* A context's programs: the base one (weights -1: the table's kernels, the
   pre-passes and add) and one per weights type (weights a sinpe_dtype: the
   fused and gather kernels), built on first use.  Whether the program of
   weights built for t holds slot k (every kernel with t NULL); its options. */
int sinpe__kernel_held(const sinpe__tuning *t, int weights, int k);
void sinpe__plan_options(const sinpe__tuning *t, sinpe_math math, int weights, char *buf, size_t n);

/* One launch: the kernel (slot k), its range, its step of the call. */
typedef struct sinpe__launch {
    int k;
    cl_kernel kernel;
    cl_uint dims;
    size_t global[3], local[3];
    int step; /* SINPE__STEP_* */
} sinpe__launch;

/* The steps of an embedding call, in the order they run: the rows of its
   positions past the table (anchors, then rows), fairseq's positions, the
   bad-id count, then its one or two launches of the output. */
enum { SINPE__STEP_ANCHORS, SINPE__STEP_ROWS, SINPE__STEP_POSITIONS, SINPE__STEP_BAD_IDS,
       SINPE__STEP_MAIN };
#define SINPE__LAUNCHES 6

typedef struct sinpe__plan { /* every launch of one call */
    int n;
    sinpe__launch launch[SINPE__LAUNCHES];
    cl_int flags;  /* SINPE_ALIGNED, SINPE_ONE_LAUNCH, SINPE_OTF_TILES: for the parameter block */
    size_t blocks; /* the anchor blocks of the rows step */
} sinpe__plan;

/* The plan of embedding call c (its facts and ranges; embed.c derives
   them from a checked call) under t on a device dev: the pre-passes from
   base, the output's launches from prog (the weights type's program). */
sinpe_status sinpe__plan_embed(const sinpe__tuning *t, const sinpe__device_info *dev,
                               const sinpe__program *base, const sinpe__program *prog,
                               const sinpe__call *c, sinpe__plan *plan);
/* The launch of kernel (form, ot) of no call from prog over n[0 .. dims)
   (see plan.c). */
sinpe_status sinpe__plan_fixed(const sinpe__device_info *dev, const sinpe__program *prog, int form,
                               int ot, cl_uint dims, const size_t *n, sinpe__launch *l);
/* The anchor blocks that rows row0 .. row0 + nrows - 1 touch. */
size_t sinpe__rows_blocks(cl_int row0, size_t nrows);
/* Table rows row0 .. row0 + nrows - 1 of out_dtype and dim columns, over
   blocks anchor blocks: the anchors' launch in l[0], the rows' in l[1]. */
sinpe_status sinpe__plan_rows(const sinpe__tuning *t, const sinpe__device_info *dev,
                              const sinpe__program *prog, sinpe_dtype out_dtype, size_t dim,
                              cl_int row0, size_t nrows, size_t blocks, sinpe__launch l[2]);
/* The record t's choice for an operation's form (ROPE, GRID or ATTN) in
   out, from which its file plans its launches: a work-item's columns in
   the last step (rope_pairs pairs, attn_heads heads, grid_span's sixteen
   columns or 0, a whole row), and in *steps (unless NULL) how many steps
   (grid_span = image: 2, else 1). */
size_t sinpe__plan_choice(const sinpe__tuning *t, int form, int out, int *steps);

/* ---- program.c ----------------------------------------------------------- */

/* The program (kernels/sinpe.cl), its length and its files' names, the
   head's first (build/kernels.c). */
extern const char sinpe__kernel_source[];
extern const unsigned long sinpe__kernel_source_len;
extern const char *const sinpe__kernel_source_roots[];
/* kernels/device.cl and what it includes (build/device_text.c). */
extern const char sinpe__device_text[];
extern const unsigned long sinpe__device_text_len;

/* Builds the program of weights (see sinpe__kernel_held) for t on dev,
   through the disk cache when disk_cache != 0. */
sinpe_status sinpe__program_build(cl_context ctx, cl_device_id dev, sinpe_math math,
                                  const sinpe__tuning *t, int weights, int disk_cache,
                                  sinpe__program *prog);
void sinpe__program_release(sinpe__program *prog);

/* ---- context.c ----------------------------------------------------------- */

struct sinpe_context {
    cl_context cl_ctx;
    cl_device_id device;
    cl_command_queue queue;
    sinpe__device_info info;
    sinpe_math math;
    sinpe__tuning tune;         /* the work shape of the kernels */
    char tune_text[SINPE__FROM + 512]; /* sinpe_context_tuning() */
    sinpe__program prog;        /* the base program */
    sinpe__program wprog[SINPE__MAX_DTYPES]; /* per weights type, built on first use */
    int disk_cache;             /* for those builds */
    pthread_mutex_t build_lock; /* wprog */
    cl_mem dummy; /* bound to unused buffer arguments */

    pthread_mutex_t lock;       /* refs, the table cache, kernel arguments */
    unsigned refs;              /* the caller's one + one per live table  */
    struct sinpe_table *tables; /* cache, linked through sinpe_table.next */
};

/* Drops a reference (the last frees). ctx->lock not held. */
void sinpe__context_unref(sinpe_context *ctx);
/* The program of weights type et, built now if it is not yet (under
   build_lock, not the context lock); SINPE_BUILD_FAILED and the like. */
sinpe_status sinpe__context_weights(sinpe_context *ctx, sinpe_dtype et,
                                    const sinpe__program **prog);

/* Checks that buf belongs to ctx and holds offset + values values of dtype
   (whole blocks); offset + n ints. */
sinpe_status sinpe__check_values(const sinpe_context *ctx, cl_mem buf, const char *name,
                                 size_t offset, size_t values, sinpe_dtype dtype);
#define sinpe__check_ints(ctx, buf, name, offset, n) \
    sinpe__check_values(ctx, buf, name, offset, n, SINPE_F32)
/* Checks out, n rows of dim values of dtype (an output type) out_stride
   apart from offset (the out arguments of table rows and timesteps). */
sinpe_status sinpe__check_out(const sinpe_context *ctx, cl_mem out, size_t offset, size_t n,
                              size_t dim, size_t stride, sinpe_dtype dtype);
/* Checks that queue belongs to ctx's context and device; a wait list as
   OpenCL should but pocl and oclgrind do not. */
sinpe_status sinpe__check_queue(const sinpe_context *ctx, cl_command_queue queue);
sinpe_status sinpe__check_wait_list(const sinpe_context *ctx, cl_uint n, const cl_event *list);

/* ---- spec.c -------------------------------------------------------------- */

sinpe_status sinpe__spec_validate(const sinpe_spec *spec);
int sinpe__spec_equal(const sinpe_spec *a, const sinpe_spec *b);
/* A column of a table: the sine of w p (kind 1) or its cosine (kind 2) at
   position p, or zero (kind 0); the dim columns of spec. */
typedef struct sinpe__column {
    double w;
    int kind;
} sinpe__column;
void sinpe__spec_columns(const sinpe_spec *spec, sinpe__column *col);
/* Floats in the coefficient buffer of dim columns: descriptors, then steps. */
#define SINPE__COEF_FLOATS(dim) ((8 + 4 * (size_t)SINPE_STEP_ROWS) * SINPE_COEF_STRIDE(dim))
/* Fills the coefficient buffer read by kernels/pe_math.cl for columns col,
   every value scaled by amp. */
void sinpe__coefficients(const sinpe__column *col, size_t dim, double amp, float *coef);
/* SINPE_PE_SPLIT (and SINPE_PE_COS_FIRST) when the dim columns are a sin
   half and a cos half of the same frequencies (cos first) and dim is a
   multiple of 32 (halves of whole sixteen-lane steps, no row tail); else 0. */
unsigned sinpe__column_pairs(const sinpe__column *col, size_t dim);

/* The position lane of pair k (include/sinpe.h, sinpe_rope_axes; the
   device's sinpe_rope_lane() in kernels/device.cl is the same rule). */
unsigned sinpe__rope_lane(unsigned axes, const size_t sections[4], size_t k);

/* ---- table.c ------------------------------------------------------------- */

enum { SINPE__TABLE_ENCODING, SINPE__TABLE_ROTARY }; /* the kinds of table */

/* A rotary table's contents (rope_spec.c): its rule's results, all
   doubles, compared whole when tables are shared; then the R/2 w_k. */
typedef struct sinpe__rope_key {
    double rot, layout, pairing, amp; /* R, sinpe_rope_layout, sinpe_rope_pairing, m */
    double axes, sections[4];         /* sinpe_rope_axes and the lanes' pair counts */
    double w[];
} sinpe__rope_key;
#define SINPE__ROPE_KEY_BYTES(pairs) (sizeof(sinpe__rope_key) + (pairs) * sizeof(double))

/* The most bytes of a name for what a call left in a scratch buffer (call.h). */
#define SINPE__SCRATCH_KEY 160

struct sinpe_table {
    sinpe_context *ctx;
    int kind;             /* SINPE__TABLE_* */
    sinpe_spec spec;      /* an encoding table's; a rotary table's dim only */
    const sinpe__rope_key *rope; /* a rotary table's (NULL for the other kind) */
    size_t rope_bytes;
    cl_mem desc;          /* coefficients (descriptors and steps), fixed */
    unsigned pairs;       /* sinpe__column_pairs() of its columns */
    unsigned refs;        /* under ctx->lock */
    struct sinpe_table *next;

    pthread_mutex_t grow; /* serialises growers */
    pthread_mutex_t lock; /* guards mem and rows */
    cl_mem mem;           /* NULL while rows == 0 */
    size_t rows;
    cl_mem scratch[2];    /* lent to one call at a time (call.c), under */
    size_t scratch_bytes[2]; /* lock: rows past the table, anchors */
    unsigned char scratch_key[2][SINPE__SCRATCH_KEY]; /* under lock: what a */
    size_t scratch_key_bytes[2]; /* call left in each, named (0: not known) */
    const void *lent_to;  /* the sink of the call that holds them */
    cl_event scratch_use; /* the last launch of their last call */
    struct sinpe__held *held; /* what recorded calls hold (record.c) */
    double rope_data[];   /* where rope points */
};

/* Enqueues PE(row0 + r) into row r of out (r < nrows) after the wait list
   (rows.c); arguments already checked.  *event (may be NULL) is the last kernel's. */
sinpe_status sinpe__table_rows(sinpe_table *t, cl_command_queue queue, cl_int row0,
                               size_t nrows, cl_mem out, size_t out_offset, size_t out_stride,
                               sinpe_dtype out_dtype, cl_uint nwait, const cl_event *wait,
                               cl_event *event);

/* The table of dim columns col (amp: their scale) in ctx, with rows rows:
   an encoding table of spec (rope NULL), or a rotary one of contents rope
   (rope_bytes), shared with an earlier one of equal spec or contents. */
sinpe_status sinpe__table_open(sinpe_context *ctx, const sinpe_spec *spec,
                               const sinpe__rope_key *rope, size_t rope_bytes,
                               const sinpe__column *col, double amp, size_t rows,
                               sinpe_table **table);

/* A consistent (mem, rows) pair; *mem is retained (or NULL when rows == 0). */
void sinpe__table_snapshot(sinpe_table *t, cl_mem *mem, size_t *rows);

#endif /* SINPE_INTERNAL_H */
