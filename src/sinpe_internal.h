/*
 * sinpe_internal.h -- what the src/ files share.  Dependencies point one way:
 * status -> device -> context/program -> spec -> table -> embed -> host.
 */
#ifndef SINPE_INTERNAL_H
#define SINPE_INTERNAL_H

#include "sinpe.h"

#include <pthread.h>
#include <stdarg.h>

/* ---- status.c ------------------------------------------------------------ */

/* Records a failure message for sinpe_last_error() and returns status. */
sinpe_status sinpe__fail(sinpe_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Records an OpenCL failure of call `what`, returns the cl code as a status. */
sinpe_status sinpe__cl_fail(cl_int err, const char *what);
/* Records a failure whose message is long (a build log). */
sinpe_status sinpe__fail_long(sinpe_status status, const char *head, const char *body);
/*
 * Clears the calling thread's message: called on entry by every public
 * function except the five that describe constants or the last failure
 * (sinpe_last_error, sinpe_status_string, sinpe_preset_name and the two
 * version calls), which leave it as it is.
 */
void sinpe__clear_error(void);
/* The entry of an accessor: clears the message, records "name is NULL" when
 * handle is NULL, and returns whether it is not. */
int sinpe__enter_with(const void *handle, const char *name);

/* Returns from the current function with a recorded failure when cond holds. */
#define SINPE_CHECK(cond, status, ...)                 \
    do {                                               \
        if (cond)                                      \
            return sinpe__fail((status), __VA_ARGS__); \
    } while (0)

/* Forwards a failed sinpe_status (the message is already recorded). */
#define SINPE_FORWARD(expr)              \
    do {                                 \
        sinpe_status sinpe_s_ = (expr);  \
        if (sinpe_s_ != SINPE_SUCCESS)   \
            return sinpe_s_;             \
    } while (0)

/* Returns the OpenCL failure of call `what`. */
#define SINPE_CL_CHECK(err, what)                 \
    do {                                          \
        cl_int sinpe_e_ = (err);                  \
        if (sinpe_e_ != CL_SUCCESS)               \
            return sinpe__cl_fail(sinpe_e_, what);\
    } while (0)

/* ---- device.c ------------------------------------------------------------ */

/* Picks a device by selector (NULL or "" = SINPE_DEVICE, then GPU > ACC > CPU). */
sinpe_status sinpe__device_pick(const char *selector, cl_platform_id *platform,
                                cl_device_id *device);

/* The facts about a device that sinpe's choices depend on. */
typedef struct sinpe__device_info {
    char name[256];
    cl_ulong max_alloc;
    size_t max_wg;
    size_t max_item[3]; /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    cl_device_type type;
    int has_fp64;
    int has_fp16;
    unsigned cl_major, cl_minor; /* platform version */
} sinpe__device_info;

sinpe_status sinpe__device_query(cl_device_id device, sinpe__device_info *info);

/* ---- program.c ----------------------------------------------------------- */

extern const char sinpe__kernel_source[];
extern const unsigned long sinpe__kernel_source_len;

/*
 * Kernel slots; the typed families hold one kernel per storage type (pair),
 * the embed, gather and add families SINPE_PARTS slots each
 * (kernels/embed*.cl).  Some slots stay empty: gather
 * reads no position (no _otf part), add never streams, _stream kernels
 * exist only in builds with tune.stream, _table_stream kernels (the
 * fused table part, streamed) only in those that are also two-pass, and
 * _row kernels (the _fast fused and gather calls in whole-row form) only
 * in builds with tune.row.
 */
enum {
    SINPE_PART_FAST,
    SINPE_PART_TABLE,
    SINPE_PART_OTF,
    SINPE_PART_STREAM,
    SINPE_PART_TABLE_STREAM,
    SINPE_PART_ROW,
    SINPE_PARTS
};
enum sinpe__kernel_id {
    SINPE_K_TABLE_ANCHORS = 0,
    SINPE_K_TABLE_ROWS = 1,  /* + out dtype                                */
    SINPE_K_MAKE_POS = 4,
    SINPE_K_TIMESTEPS = 5,   /* + out dtype                                */
    SINPE_K_COUNT_BAD = 8,
    SINPE_K_EMBED = 9,       /* + 6 * (3 * weights dtype + out dtype) + part */
    SINPE_K_GATHER = 63,     /* + 6 * (3 * weights dtype + out dtype) + part */
    SINPE_K_ADD = 117,       /* + 6 * out dtype + part                     */
    SINPE_K_COUNT = 135
};

typedef struct sinpe__program {
    cl_program program;
    cl_kernel kernels[SINPE_K_COUNT];
    size_t wg[SINPE_K_COUNT]; /* CL_KERNEL_WORK_GROUP_SIZE of each */
    int from_disk;            /* 1 when the binary came from the disk cache */
} sinpe__program;

/*
 * The shape of the embedding kernels' work, chosen per device (context.c)
 * and compiled into the program:
 *   vec       columns per work-item (1, 4 or 8);
 *   table_vec columns per work-item in the table parts of two-pass builds
 *             (1, 4, 8 or 16);
 *   seqs      sequences per work-item at one position (1, 2, 4 or 8) in
 *             the _fast kernels and the two-pass table parts: their loads
 *             are issued together (and the _fast PE row loaded once);
 *   one_pass  1: the general kernels compute positions past the table
 *             themselves, behind a branch (one launch); 0: the table part
 *             skips them and an _otf pass (one token per work-item)
 *             follows;
 *   wg_cap    largest work-group the launches use (0: the kernel's limit);
 *   row_tile  table rows: a work-item computes row_tile steps of row_tile
 *             blocks (1, 2, 4 or 8; kernels/table.cl);
 *   aligned   1: four-column accesses go through vector pointers when the
 *             call's offsets and strides allow it (kernels/dtype.cl);
 *   col_bf16  1: the _fast fused and gather kernels with bf16 weights and
 *             output take one column of one sequence per work-item, in
 *             scalar code
 *             (kernels/embed_fast.cl, sinpe_col_body); vec and seqs do not
 *             apply to them;
 *   row       1: calls of at most SINPE_ROW_TOKENS tokens writing less
 *             than SINPE_STREAM_BYTES (decode steps) take whole-row forms,
 *             one token per work-item and per work-group:
 *             the _fast fused and gather kernels with fp32 or fp16 output
 *             (kernels/embed_fast.cl, sinpe_row_body), and in two-pass
 *             builds the fused and add calls that check their positions run
 *             the _otf part alone, over every token (one launch, not two);
 *   stream    the _fast fused and gather calls and the fused table parts of
 *             two-pass builds store non-temporally (their _stream and
 *             _table_stream kernels, kernels/dtype.cl sinpe_stream4):
 *             0 never, 1 when the call writes at least SINPE_STREAM_BYTES
 *             and its accesses are aligned, 2 whenever they are aligned.
 */
typedef struct sinpe__tuning {
    unsigned vec, table_vec, seqs, row_tile;
    int one_pass, aligned, col_bf16, row, stream;
    size_t wg_cap;
} sinpe__tuning;

/* The smallest output that tune.stream 1 writes non-temporally: smaller ones
   are likely read again soon, from cache (context.c has the figures). */
#define SINPE_STREAM_BYTES ((size_t)16 << 20)

/* The most tokens of a call that tune.row runs in whole-row forms, if its
   output is also below SINPE_STREAM_BYTES (context.c has the figures). */
#define SINPE_ROW_TOKENS 256

/* Builds the kernels for dev; disk_cache != 0 tries the on-disk binary
 * cache first and stores a binary built from source in it. */
sinpe_status sinpe__program_build(cl_context ctx, cl_device_id dev, sinpe_math math,
                                  const sinpe__tuning *tune, int disk_cache,
                                  sinpe__program *prog);
void sinpe__program_release(sinpe__program *prog);

/* ---- cache.c ------------------------------------------------------------- */

/* One entry of the on-disk cache of program binaries (layout in cache.c). */
typedef struct sinpe__cache {
    char *path;         /* "<dir>/<key>.bin"; NULL when there is no cache */
    size_t dir_len;     /* path[0 .. dir_len) is the directory */
    uint64_t key;       /* hash of the key material */
    uint64_t key_bytes; /* its length */
} sinpe__cache;

/* Resolves the entry for the kernel source built with options on dev
 * (path stays NULL when the cache is off or unusable).  Never fails loudly. */
void sinpe__cache_open(sinpe__cache *cache, cl_device_id dev, const char *options);
/* The entry's program, built for dev, or NULL; an entry that fails any
 * check is deleted. */
cl_program sinpe__cache_load(const sinpe__cache *cache, cl_context ctx, cl_device_id dev,
                             const char *options);
/* Replaces the entry with program's binary for dev (temp file + rename). */
void sinpe__cache_store(const sinpe__cache *cache, cl_program program, cl_device_id dev);
/* Deletes the entry. */
void sinpe__cache_discard(const sinpe__cache *cache);
void sinpe__cache_close(sinpe__cache *cache);

/* The file layout, for tests that forge entries. */
#define SINPE__CACHE_HEADER 48
#define SINPE__CACHE_OFF_KEY 16
#define SINPE__CACHE_OFF_SUM 40 /* sinpe__fnv1a(SINPE__FNV_BASIS, payload) */
#define SINPE__FNV_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t sinpe__fnv1a(uint64_t h, const void *data, size_t n);

/* ---- context.c ----------------------------------------------------------- */

struct sinpe_context {
    cl_context cl_ctx;
    cl_device_id device;
    cl_command_queue queue;
    sinpe__device_info info;
    sinpe_math math;
    sinpe__tuning tune;         /* work shape of the embed kernels */
    sinpe__program prog;
    cl_mem dummy; /* bound to unused buffer arguments */

    pthread_mutex_t lock;       /* refs, the table cache, kernel arguments */
    unsigned refs;              /* the caller's one + one per live table  */
    struct sinpe_table *tables; /* cache, linked through sinpe_table.next */
};

/* Takes a reference / drops one (the last frees). ctx->lock not held. */
void sinpe__context_retain(sinpe_context *ctx);
void sinpe__context_unref(sinpe_context *ctx);

/*
 * Sets the arguments of kernel k and enqueues it over a 2D range, under the
 * context lock (clSetKernelArg on a shared kernel is not thread-safe).
 * args[i] points at the value of argument i, of size sizes[i].
 */
sinpe_status sinpe__context_launch(sinpe_context *ctx, cl_command_queue queue, int k,
                                   cl_uint nargs, const void *const *args,
                                   const size_t *sizes, size_t cols, size_t rows,
                                   cl_uint nwait, const cl_event *wait, cl_event *event);

/* Over a 3D range n[0] x n[1] x n[2], local size derived likewise in the
   first group_dims dimensions and 1 in the others. */
sinpe_status sinpe__context_launch3(sinpe_context *ctx, cl_command_queue queue, int k,
                                    cl_uint nargs, const void *const *args, const size_t *sizes,
                                    const size_t *n, cl_uint group_dims, cl_uint nwait,
                                    const cl_event *wait, cl_event *event);

/* With an explicit local size (global sizes already multiples of it). */
sinpe_status sinpe__context_launch_at(sinpe_context *ctx, cl_command_queue queue, int k,
                                      cl_uint work_dim, cl_uint nargs, const void *const *args,
                                      const size_t *sizes, const size_t *global,
                                      const size_t *local, cl_uint nwait,
                                      const cl_event *wait, cl_event *event);

/* Checks that buf belongs to ctx and holds offset + elems elements of esize bytes. */
sinpe_status sinpe__check_buffer(const sinpe_context *ctx, cl_mem buf, const char *name,
                                 size_t offset, size_t elems, size_t esize);
/* Checks that queue belongs to ctx's context and device. */
sinpe_status sinpe__check_queue(const sinpe_context *ctx, cl_command_queue queue);

/* Checks a wait list the way OpenCL should but pocl and oclgrind do not:
 * consistent (n, list), no NULL entry, every event of ctx's cl_context. */
sinpe_status sinpe__check_wait_list(const sinpe_context *ctx, cl_uint n, const cl_event *list);

/* ---- spec.c -------------------------------------------------------------- */

/*
 * Rows per anchor of the angle addition (kernels/pe_math.cl): the kernels
 * get SINPE_STEP_SHIFT as a build option, so this is the one definition.
 */
/* 128 rows: measured 22 -> 17 ms for 8192 x 4096 rows on pocl against 64. */
#define SINPE_STEP_SHIFT 7
#define SINPE_STEP_ROWS (1 << SINPE_STEP_SHIFT)

sinpe_status sinpe__spec_validate(const sinpe_spec *spec);
int sinpe__spec_equal(const sinpe_spec *a, const sinpe_spec *b);
/* Floats in the coefficient buffer of spec: column descriptors, then steps. */
size_t sinpe__spec_coef_floats(const sinpe_spec *spec);
/* Fills the coefficient buffer read by kernels/pe_math.cl. */
void sinpe__spec_coefficients(const sinpe_spec *spec, float *coef);

/* ---- table.c ------------------------------------------------------------- */

struct sinpe_table {
    sinpe_context *ctx;
    sinpe_spec spec;
    cl_mem desc;          /* coefficients (descriptors and steps), fixed */
    unsigned refs;        /* under ctx->lock */
    struct sinpe_table *next;

    pthread_mutex_t grow; /* serialises growers */
    pthread_mutex_t lock; /* guards mem and rows */
    cl_mem mem;           /* NULL while rows == 0 */
    size_t rows;
};

/*
 * Enqueues PE(row0 + r) into row r of out (r < nrows) after the wait list;
 * arguments already checked.  *event (may be NULL) is the last kernel's.
 */
sinpe_status sinpe__table_rows(sinpe_table *t, cl_command_queue queue, cl_int row0,
                               size_t nrows, cl_mem out, size_t out_offset, size_t out_stride,
                               sinpe_dtype out_dtype, cl_uint nwait, const cl_event *wait,
                               cl_event *event);

/*
 * Fault injection for the tests (never set by the library): while positive,
 * each table allocation fails with CL_MEM_OBJECT_ALLOCATION_FAILURE and
 * decrements it, so the out-of-memory path of growth can be exercised.
 */
extern int sinpe__fault_table_alloc;

/* A consistent (mem, rows) pair; *mem is retained (or NULL when rows == 0). */
void sinpe__table_snapshot(sinpe_table *t, cl_mem *mem, size_t *rows);

#endif /* SINPE_INTERNAL_H */
