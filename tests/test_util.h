/* test_util.h -- shared helpers of the sinpe test suite.
 *
 * The suite is one Check binary (tests/main.c holds main).  Check forks every
 * test, and a pocl context created before a fork hangs the child, so every
 * OpenCL object is made inside a test function or a checked fixture, never in
 * main or an unchecked fixture.
 *
 * Helpers whose name starts with tu_ fail the running test through Check's
 * assertions when an OpenCL or sinpe call they make fails; they must therefore
 * be called from the test's own thread only. */
#ifndef SINPE_TEST_UTIL_H
#define SINPE_TEST_UTIL_H

#include "grind/ref.h"
#include "sinpe.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* "TU_SUITE(name, seconds) { ...; return s; }": the function making suite name,
 * registered with main.c before main runs; seconds (cold kernel cache, 2 cores) sort. */
void tu_suite_register(const char *name, int seconds, Suite *(*make)(void));
#define TU_SUITE(name, seconds)                                                             \
    static Suite *suite_##name(void);                                                       \
    __attribute__((constructor)) static void tu_register_##name(void)                       \
    { tu_suite_register(#name, seconds, suite_##name); }                                    \
    static Suite *suite_##name(void)
/* Test cases that another file's suite adds. */
TCase *tcase_shard_owner(void); /* part of suite_shard */
void tcase_shard_parts(Suite *s); /* part of suite_shard */
TCase *tcase_device_fn(void); /* part of suite_device */
TCase *tcase_record(void);    /* part of suite_device */
TCase *tcase_quiet(void);     /* part of suite_context */
TCase *tcase_rope_spec(void); /* part of suite_rope */

/* Check tags: the kernel forms (kernels/abi.h; "rows" for the table's
 * kernels) a test case runs in every mode against float64 references.
 * Under a tuning record that adds a kernel of a form to the run under the
 * device's own record, "make test" runs the cases tagged with that form
 * (tests/forms.c); the other suites meet every record's forms in the
 * shapes suite, bit for bit against the device's record, and in
 * "make check-records".  FAST's calls: implicit positions in the table;
 * GENERAL's: the others; STREAM takes large aligned outputs of either. */
#define TU_FORMS_FAST "fast stream row"
#define TU_FORMS_GENERAL "general table otf stream"
#define TU_FORMS_ALL "fast stream row col general table otf rows"

/* Seconds allowed to a test that creates a context (cold pocl builds), and
   to one that builds every program from source on purpose: a 2-core
   machine with other work on it took over 300 s for those. */
#define TU_TIMEOUT 300
#define TU_TIMEOUT_COLD 900

/* A test case named name added to s (unless NULL), with TU_TIMEOUT (tag
 * "cold": TU_TIMEOUT_COLD) and the Check tags (NULL: none). */
TCase *tu_tcase(Suite *s, const char *name, const char *tags);

/* tcase_add_test(tc, t) for each test t of the list, in order. */
void tu_add_tests(TCase *tc, const TTest *const *tests, size_t n);
#define TU_ADD(tc, ...)                                                                     \
    tu_add_tests(tc, (const TTest *const[]){__VA_ARGS__},                                    \
                 sizeof((const TTest *const[]){__VA_ARGS__}) / sizeof(const TTest *))

/* A fresh directory $TMPDIR/<prefix>XXXXXX (/tmp without TMPDIR) in buf. */
void tu_scratch_dir(char *buf, size_t size, const char *prefix);

/* Copies of the n variables names (NULL: unset) into saved; restore sets
 * each back as it was and frees the copies. */
void tu_env_save(const char *const *names, size_t n, char **saved);
void tu_env_restore(const char *const *names, size_t n, char **saved);

/* rm -r of a test's scratch directory (the few levels the tests make). */
void tu_remove_tree(const char *path);

/* Sets POCL_CACHE_DIR, when unset, to pocl's cache directory as pocl 3.1
 * finds it ($XDG_CACHE_HOME/pocl/kcache when that directory exists, else
 * $HOME/.cache/pocl/kcache), so that moving XDG_CACHE_HOME or HOME for
 * sinpe's cache leaves pocl's where it was: a moved one starts cold, a
 * minute of compiling per program on two cores. */
void tu_pin_pocl_cache(void);

/* The accuracy bar of the header: |table - float64 PE| for |p| < 2^24. */
#define TU_PE_TOL 1.5e-7

/* The bar for computed embeddings in float32: |got - ref| <= 1e-6 * (1 + |ref|)
 * against a float64 evaluation.  PE contributes at most 1.5e-7, the product
 * token_scale * E one rounding (6e-8 relative) and the sum another, so 1e-6
 * leaves a margin without hiding a wrong column, row or position. */
#define TU_EMBED_TOL 1e-6

/* ---- Assertions ---- */

/* Asserts that a sinpe call succeeds; the message carries the status text
 * and sinpe_last_error(). */
#define TU_OK(expr)                                                              \
    do {                                                                         \
        sinpe_status tu_st_ = (expr);                                            \
        ck_assert_msg(tu_st_ == SINPE_SUCCESS, "%s failed: %d (%s): %s", #expr,  \
                      (int)tu_st_, sinpe_status_string(tu_st_), sinpe_last_error()); \
    } while (0)

/* Asserts that a sinpe call returns exactly the status want. */
#define TU_STATUS(expr, want)                                                    \
    do {                                                                         \
        sinpe_status tu_st_ = (expr);                                            \
        sinpe_status tu_want_ = (want);                                          \
        ck_assert_msg(tu_st_ == tu_want_, "%s returned %d (%s), expected %d (%s); last error: %s", \
                      #expr, (int)tu_st_, sinpe_status_string(tu_st_), (int)tu_want_, \
                      sinpe_status_string(tu_want_), sinpe_last_error());        \
    } while (0)

/* Asserts that sinpe_last_error() contains the string words. */
#define TU_MESSAGE_HAS(words)                                                               \
    ck_assert_msg(strstr(sinpe_last_error(), words) != NULL, "the message \"%s\" lacks \"%s\"", \
                  sinpe_last_error(), words)

/* ck_assert_msg for loops over elements: Check records the place of every
 * assertion that passes (a write to its pipe), which costs seconds over a
 * few million elements; this evaluates cond and calls Check only when it
 * fails, with the same message. */
#define TU_CHECK(cond, ...)                                                      \
    do {                                                                         \
        if (!(cond))                                                             \
            ck_assert_msg(cond, __VA_ARGS__);                                    \
    } while (0)

/* Asserts that an OpenCL call returning cl_int succeeds. */
#define TU_CL(expr)                                                              \
    do {                                                                         \
        cl_int tu_err_ = (expr);                                                 \
        ck_assert_msg(tu_err_ == CL_SUCCESS, "%s failed: %d", #expr, (int)tu_err_); \
    } while (0)

/* ---- Random numbers ---- */

/* The run's seed, printed by main; every generator derives from it. */
extern uint64_t tu_seed;

typedef struct tu_rng {
    uint64_t state;
} tu_rng;

/* A splitmix64 stream from the run's seed and a salt naming the use, so that
 * each test draws the same numbers whatever other tests ran before it. */
void tu_rng_init(tu_rng *rng, const char *salt);
tu_rng tu_rng_for(const char *salt); /* the same, as a value */
uint64_t tu_rng_next(tu_rng *rng);
double tu_rng_unit(tu_rng *rng);                          /* [0, 1) */
int32_t tu_rng_int(tu_rng *rng, int32_t lo, int32_t hi);  /* [lo, hi] */
float tu_rng_float(tu_rng *rng, float lo, float hi);      /* [lo, hi) */
/* dst[i] = tu_rng_int() or tu_rng_float() for i = 0, 1, ..., n - 1 in turn. */
void tu_rng_ints(tu_rng *rng, int32_t *dst, size_t n, int32_t lo, int32_t hi);
void tu_rng_floats(tu_rng *rng, float *dst, size_t n, float lo, float hi);
/* n random blocks of ggml's block type t (Q4_0 .. Q6_K) at p: random codes
   and scales, the fp16 fields finite (d, and m or dmin where the layout
   has them), subnormal and negative among them. */
void tu_random_blocks(sinpe_dtype t, unsigned char *p, size_t n, tu_rng *rng);

/* ---- float64 reference ---- */

/* PE(pos) for spec into row[0 .. dim), in float64 (tests/grind/ref.c, shared
 * with the grind): the header's formula, w_0 = angle_scale, w_k =
 * angle_scale * base^(-k / D) with D = H - shift (d/2 - shift for
 * EXTRA_SIN with odd d), sin and cos placed by layout, an odd d's last
 * column zero under ZERO_LAST. */
#define tu_pe_row ref_pe_row

/* The float64 PE rows of spec at n positions, row i at pos[i], or at
 * first + i when pos is NULL: n * dim values (free() them). */
double *tu_pe_rows(const sinpe_spec *spec, const int32_t *pos, int64_t first, size_t n);

/* A short description of a spec for failure messages; returns buf. */
const char *tu_spec_str(const sinpe_spec *spec, char *buf, size_t size);

/* A spec from its fields (tests/grind/ref.c, shared with the grind). */
#define tu_spec ref_spec

/* The arguments of tu_spec() as a row of a table of cases. */
typedef struct tu_spec_row {
    size_t dim;
    sinpe_layout layout;
    sinpe_odd_dim odd;
    double shift, base, scale;
} tu_spec_row;
sinpe_spec tu_spec_of(const tu_spec_row *row);

/* The fused computation in float64 (ref_embed) for rows r < n_seqs * seq_len:
 *   ref[r * dim + c] = (with_emb ? token_scale * E[id_r][c] : 0)
 *                    + (with_pe  ? PE(pos_r)[c] : 0)
 * ids and positions point at the first used element (offsets applied);
 * positions NULL means start + t.  An id outside [0, vocab) contributes a
 * zero embedding.  E row v starts at weights[weights_offset + v * stride]. */
void tu_ref_embed(const sinpe_spec *spec, size_t n_seqs, size_t seq_len, const int32_t *ids,
                  const float *weights, size_t weights_offset, size_t weights_stride,
                  size_t vocab, float token_scale, int32_t start, const int32_t *positions,
                  int with_emb, int with_pe, double *ref);

/* ---- Comparisons and poison ---- */

/* A quiet NaN with a payload no computation produces. */
#define TU_POISON_BITS 0x7FC5A5A5u

float tu_poison(void);
int tu_is_poison(float value);
void tu_fill_poison(float *values, size_t n);

/* Asserts |got[offset + r * stride + c] - ref[r * dim + c]| <= abs_tol +
 * rel_tol * |ref| for every r < rows, c < dim (a NaN never passes); what
 * names the check in the message. */
void tu_check_rows(const float *got, size_t offset, size_t stride, size_t rows, size_t dim,
                   const double *ref, double abs_tol, double rel_tol, const char *what);

/* Asserts that every one of the n elements of buf that lies outside the rows
 * [offset + r * stride, + dim), r < rows, still holds the poison pattern, and
 * that none inside does. */
void tu_check_layout(const float *buf, size_t n, size_t offset, size_t stride, size_t rows,
                     size_t dim, const char *what);

/* Asserts that all n elements still hold the poison pattern. */
void tu_check_all_poison(const float *buf, size_t n, const char *what);

/* ---- OpenCL helpers ---- */

/* A context with the given math path and the default device selection
 * (options.device NULL: SINPE_DEVICE, else the best device). */
sinpe_context *tu_context(sinpe_math math);

/* The math path of loop index i of a test run under both: FLOAT, then FP64. */
sinpe_math tu_math(int i);

/* An in-order queue of the test's own on the context's device. */
cl_command_queue tu_queue(sinpe_context *ctx);

/* A read-write buffer of bytes, copied from host when host is not NULL. */
cl_mem tu_buffer(sinpe_context *ctx, size_t bytes, const void *host);

/* The arguments of a call of n_seqs x seq_len tokens on those buffers, the
 * others as sinpe_embed_args_init() leaves them. */
sinpe_embed_args tu_args(size_t n_seqs, size_t seq_len, cl_mem ids, cl_mem weights, size_t vocab,
                         cl_mem out);

/* A table of rows rows of the paper's spec (sinpe_spec_init) at dim, of
 * spec, or of the preset's spec at dim (copied to *spec unless NULL). */
sinpe_table *tu_table(sinpe_context *ctx, size_t dim, size_t rows);
sinpe_table *tu_table_of(sinpe_context *ctx, const sinpe_spec *spec, size_t rows);
sinpe_table *tu_preset_table(sinpe_context *ctx, sinpe_preset preset, size_t dim, size_t rows,
                             sinpe_spec *spec);

/* PE at the n positions pos of table, read back (free() it): through
 * add_positions on a zeroed buffer (0 + PE is exact), or, fused, through the
 * fused call with an all-zero embedding (0 * 1 + PE) into poison, every
 * element of which must be written. */
float *tu_pe_at(sinpe_context *ctx, sinpe_table *table, const int32_t *pos, size_t n, int fused);

/* A fused embedding on ctx, through sinpe_embed_host() and through
 * sinpe_enqueue_embed() on the context's own queue, against the float64
 * reference, with positions past the table's rows: a context that works. */
void tu_check_context_works(sinpe_context *ctx);

/* Releases the buffers (NULL ones skipped) in order, then table, queue and
 * context (each may be NULL): the end of a test.  TU_RELEASE(ctx, queue,
 * table, buffer, ...) passes the buffers as a list. */
void tu_release(sinpe_context *ctx, cl_command_queue queue, sinpe_table *table,
                const cl_mem *mems, size_t n);
#define TU_RELEASE(ctx, queue, table, ...)                                                  \
    tu_release(ctx, queue, table, (const cl_mem[]){__VA_ARGS__},                             \
               sizeof((const cl_mem[]){__VA_ARGS__}) / sizeof(cl_mem))

/* A user event of the cl_context, already complete. */
cl_event tu_complete_event(cl_context clctx);

/* A new cl_context on dev alone (of dev's platform). */
cl_context tu_cl_context(cl_device_id dev);

/* Blocking transfers; offsets and sizes in bytes. */
void tu_read(cl_command_queue queue, cl_mem mem, size_t offset, size_t bytes, void *dst);
void tu_write(cl_command_queue queue, cl_mem mem, size_t offset, size_t bytes, const void *src);

/* A buffer of n floats all holding the poison pattern. */
cl_mem tu_poisoned_buffer(sinpe_context *ctx, cl_command_queue queue, size_t n);

/* A buffer of n floats all zero. */
cl_mem tu_zero_buffer(sinpe_context *ctx, size_t n);

/* Reads n floats back into a new allocation (free() it). */
float *tu_read_floats(cl_command_queue queue, cl_mem mem, size_t n);

/* The bytes of out after call 0 (fused), 1 (gather) or 2 (gather then add)
 * of args into a new out of bytes filled with poison (free() them). */
unsigned char *tu_call_bytes(sinpe_context *ctx, sinpe_table *table, cl_command_queue queue,
                             const sinpe_embed_args *args, int call, size_t bytes,
                             unsigned char poison);

/* Asserts that the fused call (and, with gather set, the gather) with a
   returns status with a message holding words; what names the case. */
void tu_expect_refused(sinpe_table *table, cl_command_queue queue, const sinpe_embed_args *a,
                       int gather, sinpe_status status, const char *words, const char *what);

/* A second cl_context on the device of ctx (for mismatch tests). */
cl_context tu_other_cl_context(sinpe_context *ctx);

/* A program of sinpe_device_source(ctx) followed by extra (NULL: nothing),
 * built for the context's device with options; a failed build fails the
 * test with the build log, named by what. */
cl_program tu_device_program(sinpe_context *ctx, const char *extra, const char *options,
                             const char *what);

/* clSetKernelArg(k, i, sizes[i], vals[i]) for every i < n. */
void tu_kernel_args(cl_kernel k, int n, const void *const *vals, const size_t *sizes);

/* The cos and sin of the rot / 2 pairs of rotary table tab for n tokens
   through the device function sinpe_rope_cos_sin(), token t's pair k at
   pl[4 t + sinpe_rope_lane(axes, sec, k)]: row t holds the cosines, then
   the sines (rot floats; free() them). */
float *tu_rope_probe(sinpe_context *ctx, cl_command_queue q, sinpe_table *tab, cl_uint rot,
                     cl_uint axes, const cl_uint sec[4], const int32_t *pl, size_t n);

/* CL_DEVICE_MAX_MEM_ALLOC_SIZE of the context's device. */
cl_ulong tu_max_alloc(sinpe_context *ctx);

/* Whether a device reports cl_khr_fp64. */
int tu_device_has_fp64(cl_device_id device);

/* Case-insensitive substring test. */
int tu_contains_nocase(const char *haystack, const char *needle);

/* Sleeps for ms milliseconds. */
void tu_sleep_ms(long ms);

/* malloc that fails the test instead of returning NULL. */
void *tu_malloc(size_t bytes);

/* free() of each of n pointers; TU_FREE(a, b, ...) passes them as a list. */
void tu_free(void *const *ptrs, size_t n);
#define TU_FREE(...)                                                                        \
    tu_free((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

/* The whole text of a file, malloc'd and NUL-terminated; NULL if it cannot be opened. */
char *tu_read_text(const char *path);

/* Writes size bytes of data to the file at path, which it creates or empties. */
void tu_write_file(const char *path, const void *data, size_t size);

/* Writes text to a fresh file named by the mkstemp() template path (its
 * XXXXXX replaced by the name made). */
void tu_temp_file(char *path, const char *text);

/* While positive, each clCreateBuffer after the next tu_fail_skip ones
   fails and decrements it (fault.c). */
extern int tu_fail_allocations, tu_fail_skip;
/* clCreateBuffer calls that were passed on; kernels enqueued
   (clEnqueueNDRangeKernel) or recorded (clCommandNDRangeKernelKHR) (fault.c). */
extern long tu_allocations, tu_launches;
/* The same for the host: while tu_fail_host is positive, each malloc,
   calloc or realloc of the library and the tests after the next
   tu_fail_host_skip ones fails and decrements it (fault.c). */
extern int tu_fail_host, tu_fail_host_skip;
/* References taken (created or retained) less those released, by the
   library and the tests (fault.c): events of kernel launches, buffers made
   by clCreateBuffer, kernels. */
extern long tu_event_refs, tu_mem_refs, tu_kernel_refs;
/* Those three counts at one moment. */
typedef struct {
    long mem, kernels, events;
} tu_refs;
tu_refs tu_refs_now(void);
/* Asserts that every reference counted since then was given back. */
void tu_refs_returned(tu_refs then, const char *what);

/* ---- Shared by several suites ---- */

/* The three calls that take sinpe_embed_args, in this order, and their
 * names: sinpe_enqueue_embed, _gather, _add_positions. */
typedef sinpe_status (*tu_embed_call)(sinpe_table *, cl_command_queue, const sinpe_embed_args *,
                                      cl_uint, const cl_event *, cl_event *);
extern const tu_embed_call tu_embed_calls[3];
extern const char *const tu_embed_call_names[3];

/* Whether two floats have the same bits. */
int tu_same_bits(float a, float b);

/* clFinish(queue), then asserts that the n floats of mem all still hold
 * the poison pattern. */
void tu_check_buffer_poison(cl_command_queue queue, cl_mem mem, size_t n, const char *what);

/* The first rows rows of the table's buffer, read back (free() them); the
 * table must hold at least that many. */
float *tu_table_read(sinpe_table *table, cl_command_queue queue, size_t rows);

#endif /* SINPE_TEST_UTIL_H */
