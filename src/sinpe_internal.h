/*
 * sinpe_internal.h -- what the src/ files share.  Dependencies point one way:
 * status -> device -> tuning -> plan -> program -> context -> spec -> table
 * -> embed -> host.
 */
#ifndef SINPE_INTERNAL_H
#define SINPE_INTERNAL_H

#include "sinpe.h"

#include "abi.h"

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

/* ---- dtype.c ------------------------------------------------------------- */

/* The most storage types a context keeps programs for (dtype.c checks). */
#define SINPE__MAX_DTYPES 16

/* The properties of t (its row of the table), or NULL when t is not a
   sinpe_dtype. */
const sinpe_dtype_info *sinpe__dtype(sinpe_dtype t);
/* x rounded to nearest even in a small float type (F16, BF16, FP8_*), as
   bits; the value of such bits; x rounded to an output type and back. */
unsigned sinpe__encode(sinpe_dtype t, double x);
double sinpe__decode(sinpe_dtype t, unsigned bits);
float sinpe__round_to(sinpe_dtype t, float x);

/* ---- structs.c ----------------------------------------------------------- */

/* The public structs that grow (include/sinpe.h, "Structs that grow"). */
enum { SINPE__OPTIONS, SINPE__SPEC, SINPE__ARGS, SINPE__DTYPE_INFO };
/* How sinpe__struct_out writes: a fresh struct (fields past the library's
   zeroed), an update of one read in (those left alone), a 0.1 struct. */
enum { SINPE__FILL, SINPE__UPDATE, SINPE__FILL_V0_1 };
/* Copies the caller's struct of kind into own, which holds the defaults:
   *word receives its struct_size, or 0 for a 0.1 struct.  Fails with
   SINPE_INVALID_STRUCT_SIZE naming what. */
sinpe_status sinpe__struct_in(int kind, void *own, const void *theirs, size_t *word,
                              const char *what);
/* Writes own back into the caller's struct of struct_size word (UPDATE: as
   sinpe__struct_in gave it). */
sinpe_status sinpe__struct_out(int kind, void *theirs, size_t word, const void *own, int how,
                               const char *what);

/* ---- device.c ------------------------------------------------------------ */

/* Picks a device by selector (NULL or "" = SINPE_DEVICE, then GPU > ACC > CPU). */
sinpe_status sinpe__device_pick(const char *selector, cl_platform_id *platform,
                                cl_device_id *device);

/* The facts about a device that sinpe's choices depend on. */
typedef struct sinpe__device_info {
    char name[256];
    char vendor[256];
    cl_ulong max_alloc;
    size_t max_item[3]; /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    cl_device_type type;
    int has_fp64;
} sinpe__device_info;

sinpe_status sinpe__device_query(cl_device_id device, sinpe__device_info *info);

/* ---- tuning.c, tuning_source.c ------------------------------------------ */

/*
 * The tuning record: the whole work shape of the kernels, as data.  Each
 * parameter: its name in the text form, its values (numbers, words whose
 * index is the value, or "#" for a whole number), and what it sets.  A
 * value stays in a list only while some record of the database
 * (tuning/) takes it.  plan.c turns a record into build options, the set
 * of kernels and each call's launch plan.
 */
#define SINPE_TUNING_PARAMS(X)                                                                \
    X(seqs, "2 4", "sequences per work-item of the FAST form")                                \
    X(table_seqs, "2 4", "sequences per work-item of the TABLE form")                         \
    X(general, "one_pass two_pass",                                                           \
      "fused and add calls with positions to check: the GENERAL form, or TABLE then OTF")      \
    X(stream, "0 1",                                                                          \
      "1: fused and gather outputs of stream_bytes or more take STREAM (then OTF if needed)")  \
    X(stream_bytes, "#", "the smallest output the STREAM form writes")                          \
    X(decode, "tiles rows",                                                                   \
      "calls of at most decode_tokens tokens: as any other, or whole rows (ROW, OTF alone)")   \
    X(decode_tokens, "#", "the most tokens of a decode-sized call")                             \
    X(bf16, "vector scalar", "bf16 weights and output: the FAST form, or COL")                 \
    X(table_tile, "1 8", "table rows: a work-item computes table_tile^2 values")               \
    X(aligned, "0 1", "1: four-value accesses through vector pointers where a call allows")

#define SINPE_TUNING_FIELD(name, values, doc) size_t name;
typedef struct sinpe__tuning {
    SINPE_TUNING_PARAMS(SINPE_TUNING_FIELD)
} sinpe__tuning;
#undef SINPE_TUNING_FIELD

/* The word values, as indices. */
enum { SINPE_ONE_PASS, SINPE_TWO_PASS };
enum { SINPE_DECODE_TILES, SINPE_DECODE_ROWS };
enum { SINPE_BF16_VECTOR, SINPE_BF16_SCALAR };

typedef struct sinpe__param {
    const char *name, *values, *doc;
    size_t offset;
} sinpe__param;
extern const sinpe__param sinpe__params[];
extern const size_t sinpe__n_params;
size_t *sinpe__param_field(sinpe__tuning *t, size_t i);
/* The k-th allowed value of parameter i as text; 0 past the last (and for "#"). */
int sinpe__param_choice(size_t i, size_t k, char *buf, size_t n);
/* Value v of parameter i as its text (a word or a number); 0 when out of range. */
int sinpe__param_format(size_t i, size_t v, char *buf, size_t n);

/* A record in text form, parsed: the parameters it sets, and the key
   fields the library reads (the others are kept for people). */
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

/* Room for a record's text. */
#define SINPE__VARIANT 320

/* The record of a context (tuning_source.c): override, else the device's
   tuning file, else the database.  *from (SINPE__FROM bytes) says which. */
#define SINPE__FROM 512
sinpe_status sinpe__tuning_pick(cl_device_id dev, const sinpe__device_info *info,
                                const char *override, sinpe__tuning *t, char *from);

/* ---- plan.c -------------------------------------------------------------- */

/*
 * Kernel slots: the kernels of kernels/table.cl and the bad-id counter,
 * then one per line of kernels/entries.def, from SINPE_K_ENTRY on.
 */
enum sinpe__kernel_id {
    SINPE_K_TABLE_ANCHORS = 0,
    SINPE_K_TABLE_ROWS = 1, /* + out dtype */
    SINPE_K_MAKE_POS = 4,
    SINPE_K_TIMESTEPS = 5,  /* + out dtype */
    SINPE_K_COUNT_BAD = 8,
    SINPE_K_ENTRY = 9
};
extern const int sinpe__kernel_count;
#define SINPE_K_MAX 128 /* at least sinpe__kernel_count (plan.c checks) */

/* The kernel function name of slot k. */
const char *sinpe__kernel_name(int k);
/*
 * A context's programs: the base one (weights -1: the table's kernels, the
 * pre-passes and add) and one per weights type (weights a sinpe_dtype: the
 * fused and gather kernels), built on first use.  Whether the program of
 * weights built for t holds slot k; its build options.
 */
int sinpe__kernel_held(const sinpe__tuning *t, int weights, int k);
void sinpe__plan_options(const sinpe__tuning *t, sinpe_math math, int weights, char *buf,
                         size_t n);

/* One launch: the kernel and its range. */
typedef struct sinpe__launch {
    cl_kernel kernel;
    cl_uint dims;
    size_t global[3], local[3];
} sinpe__launch;

/* ---- program.c ----------------------------------------------------------- */

extern const char sinpe__kernel_source[];
extern const unsigned long sinpe__kernel_source_len;
/* kernels/device.cl and what it includes (build/device_text.c). */
extern const char sinpe__device_text[];
extern const unsigned long sinpe__device_text_len;

typedef struct sinpe__program {
    cl_program program;
    cl_kernel kernels[SINPE_K_MAX];
    size_t wg[SINPE_K_MAX]; /* CL_KERNEL_WORK_GROUP_SIZE of each */
    int from_disk;          /* 1 when the binary came from the disk cache */
} sinpe__program;

/* Builds the program of weights (see sinpe__kernel_held) for t on dev;
 * disk_cache != 0 tries the on-disk binary cache first and stores a binary
 * built from source in it. */
sinpe_status sinpe__program_build(cl_context ctx, cl_device_id dev, sinpe_math math,
                                  const sinpe__tuning *t, int weights, int disk_cache,
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

/* The cache directory ($SINPE_CACHE_DIR, $XDG_CACHE_HOME/sinpe or
   $HOME/.cache/sinpe), malloc'd; NULL when there is none. */
char *sinpe__cache_dir(void);
/* "<dir>/<prefix><key as 16 hex digits><suffix>", malloc'd; *dir_len gets
   the length of the directory part. */
char *sinpe__cache_path(const char *dir, size_t *dir_len, const char *prefix, uint64_t key,
                        const char *suffix);
/* The hash of what a device's files depend on: the library version, the
   kernel source, and the platform, device and driver versions. */
int sinpe__cache_device_key(cl_device_id dev, uint64_t *key);
/* Writes head then body to path through a temporary file and a rename,
   making the directory path[0 .. dir_len) first; 0 on success. */
int sinpe__write_file(const char *path, size_t dir_len, const void *head, size_t head_len,
                      const void *body, size_t body_len);

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

/* Takes a reference / drops one (the last frees). ctx->lock not held. */
void sinpe__context_retain(sinpe_context *ctx);
void sinpe__context_unref(sinpe_context *ctx);

/*
 * Sets the arguments of kernel k and enqueues it over a 2D range of cols x
 * rows, local sizes from sinpe__plan_local, under the context lock
 * (clSetKernelArg on a shared kernel is not thread-safe).  args[i] points
 * at the value of argument i, of size sizes[i].
 */
sinpe_status sinpe__context_launch(sinpe_context *ctx, cl_command_queue queue, int k,
                                   cl_uint nargs, const void *const *args,
                                   const size_t *sizes, size_t cols, size_t rows,
                                   cl_uint nwait, const cl_event *wait, cl_event *event);

/* The program of weights type et, built now if it is not yet (under
   build_lock, not the context lock); SINPE_BUILD_FAILED and the like. */
sinpe_status sinpe__context_weights(sinpe_context *ctx, sinpe_dtype et,
                                    const sinpe__program **prog);

/* Enqueues launch l of a plan, setting its arguments under the context lock. */
sinpe_status sinpe__context_enqueue(sinpe_context *ctx, cl_command_queue queue,
                                    const sinpe__launch *l, cl_uint nargs,
                                    const void *const *args, const size_t *sizes, cl_uint nwait,
                                    const cl_event *wait, cl_event *event);

/* ---- plan.c: launches ---------------------------------------------------- */

/* The local and global sizes of kernel k of prog over n[0 .. dims) (see plan.c). */
void sinpe__plan_local(const sinpe_context *ctx, const sinpe__program *prog, int k,
                       cl_uint dims, cl_uint group_dims, const size_t *n, sinpe__launch *l);
/* Table rows of out_dtype over blocks anchor blocks of dim columns. */
void sinpe__plan_rows(const sinpe_context *ctx, sinpe_dtype out_dtype, size_t dim,
                      size_t blocks, sinpe__launch *l);

/* Checks that buf belongs to ctx and holds offset + elems elements of esize bytes;
   offset + values values of dtype (whole blocks); need bytes (SIZE_MAX: more than
   any buffer). */
sinpe_status sinpe__check_buffer(const sinpe_context *ctx, cl_mem buf, const char *name,
                                 size_t offset, size_t elems, size_t esize);
sinpe_status sinpe__check_values(const sinpe_context *ctx, cl_mem buf, const char *name,
                                 size_t offset, size_t values, sinpe_dtype dtype);
sinpe_status sinpe__check_bytes(const sinpe_context *ctx, cl_mem buf, const char *name,
                                size_t need);
/* Checks that queue belongs to ctx's context and device. */
sinpe_status sinpe__check_queue(const sinpe_context *ctx, cl_command_queue queue);

/* Checks a wait list the way OpenCL should but pocl and oclgrind do not:
 * consistent (n, list), no NULL entry, every event of ctx's cl_context. */
sinpe_status sinpe__check_wait_list(const sinpe_context *ctx, cl_uint n, const cl_event *list);

/* ---- spec.c -------------------------------------------------------------- */

/*
 * Rows per anchor of the angle addition (kernels/pe_math.cl): the kernels
 * get SINPE_STEP_SHIFT as a build option, so this is the one definition
 * (128 rather than 64: tuning log 5 of bench/RESULTS.md).
 */
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
    struct sinpe__kept {  /* buffers and kernels recorded into command */
        void *obj;        /* buffers, held until the table goes (under */
        int kernel;       /* lock); kernel: obj is a cl_kernel */
    } *kept;
    size_t n_kept, cap_kept;
};

/*
 * Enqueues PE(row0 + r) into row r of out (r < nrows) after the wait list;
 * arguments already checked.  *event (may be NULL) is the last kernel's.
 */
sinpe_status sinpe__table_rows(sinpe_table *t, cl_command_queue queue, cl_int row0,
                               size_t nrows, cl_mem out, size_t out_offset, size_t out_stride,
                               sinpe_dtype out_dtype, cl_uint nwait, const cl_event *wait,
                               cl_event *event);

/* A consistent (mem, rows) pair; *mem is retained (or NULL when rows == 0). */
void sinpe__table_snapshot(sinpe_table *t, cl_mem *mem, size_t *rows);

/* Holds obj (a cl_mem snapshot, or with kernel != 0 a cl_kernel, that a
   recording uses) until the table is freed, so that growth never frees
   what a command buffer still reads. */
sinpe_status sinpe__table_keep(sinpe_table *t, void *obj, int kernel);

#endif /* SINPE_INTERNAL_H */
