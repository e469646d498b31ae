/*
 * sinpe.h -- token embedding plus sinusoidal positional encoding on OpenCL.
 *
 * sinpe computes the input stage of a Transformer,
 *
 *     out[r, :] = token_scale * E[id_r, :] + PE(pos_r)
 *
 * where PE(p) is the sinusoidal encoding of "Attention Is All You Need" in
 * any of the layouts used by the major frameworks.  The encoding is generated
 * on the device, accurate to float32 rounding (|error| <= 1.5e-7 against a
 * float64 evaluation for positions below 2^24 with angle_scale 1; for any
 * angle p * w, 1.5e-7 + 2^-53 |p * w|), kept device-resident in a
 * table that is shared per spec and grown on demand, and added to the
 * gathered embedding rows by one fused kernel.
 *
 * Usage (error handling elided; every call returns a sinpe_status):
 *
 *     sinpe_context *ctx;  sinpe_table *tab;  sinpe_spec spec;
 *     sinpe_context_create(NULL, &ctx);             // SINPE_DEVICE or best device
 *     sinpe_spec_init(&spec, 4096);                 // the paper's encoding, d = 4096
 *     sinpe_table_create(ctx, &spec, 2048, &tab);   // rows 0..2047 on the device
 *     sinpe_embed_args a;  sinpe_embed_args_init(&a);
 *     a.n_seqs = 4; a.seq_len = 2048; a.ids = ids_mem;
 *     a.weights = emb_mem; a.vocab = 32000; a.out = act_mem;
 *     a.token_scale = 64.0f;                        // sqrt(d)
 *     sinpe_enqueue_embed(tab, queue, &a, 0, NULL, &ev);
 *     ...
 *     sinpe_table_release(tab);  sinpe_context_release(ctx);
 *
 * Errors.  Every function that can fail returns a sinpe_status.  On failure
 * nothing has been enqueued and no caller buffer has been touched: the
 * arguments are checked and a call's buffers allocated before its first
 * launch.  The one exception is OpenCL failing a launch (or its recording)
 * after the first of a call's launches; its status is returned and the
 * launches before it stand.  A message naming the offending argument (or
 * holding the program build log) is kept per thread and returned by
 * sinpe_last_error().  The library never prints, aborts or exits.
 *
 * Threads.  All functions may be called from any thread.  One context, and
 * the tables made from it, may be used by several threads at once: enqueue
 * calls serialise their kernel-argument set-up internally (clSetKernelArg on
 * a shared kernel is not thread-safe in OpenCL), and table growth swaps the
 * table buffer under a lock, so a concurrent enqueue sees either the old or
 * the new rows, both correct.  Releasing a handle while another thread still
 * uses it is the caller's error, as with any reference-counted object.
 */
#ifndef SINPE_H
#define SINPE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(SINPE_BUILDING_DLL)
#define SINPE_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define SINPE_API __attribute__((visibility("default")))
#else
#define SINPE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

#define SINPE_VERSION_MAJOR 0
#define SINPE_VERSION_MINOR 4
#define SINPE_VERSION_PATCH 0
#define SINPE_VERSION_NUMBER \
    (SINPE_VERSION_MAJOR * 10000 + SINPE_VERSION_MINOR * 100 + SINPE_VERSION_PATCH)

/* The version of the library actually linked, as MAJOR*10000+MINOR*100+PATCH. */
SINPE_API unsigned sinpe_version_number(void);
/* The same as "MAJOR.MINOR.PATCH"; a static string. */
SINPE_API const char *sinpe_version_string(void);

/*
 * Structs that grow.  A struct the caller fills (sinpe_context_options,
 * sinpe_spec, sinpe_embed_args) begins with struct_size, which its _init
 * function (and sinpe_spec_preset()) sets to SINPE_STRUCT_SIZE(type): the
 * size the caller's own header gives the struct, tagged.  Later releases
 * only append fields.  The library copies at most struct_size bytes into a
 * struct of its own that holds the defaults, and writes back no more, so a
 * caller built against an older header gets the defaults for the fields it
 * never knew, and nothing past its struct is read or written.  A tagged
 * size below the first sized layout (this one's, 0.2) is refused with
 * SINPE_INVALID_STRUCT_SIZE naming the argument.  Set struct_size only
 * through the _init functions; copying an initialised struct is fine.
 *
 * Why a size and not a version or a size argument: one number serves
 * every struct and every release, the library keeps no table of past
 * layouts, and the calls keep their signatures.  Why the tag (the top bit
 * of size_t): the 0.1 structs had no struct_size and began with a field
 * that has that bit set in no valid call (n_seqs, dim, math), so a struct
 * without the tag is read in its 0.1 layout, which is this one without
 * struct_size (where no member is aligned beyond size_t, as on every
 * LP64 and x86 ABI).  That is also why the _init functions below, and
 * sinpe_table_spec(), are macros: their names remain exported as the 0.1
 * functions, which fill 0.1 layouts (see the end of this file), while
 * source code compiled against this header reaches the _sized functions,
 * which are told the size.
 *
 * A struct the library fills for the caller (sinpe_dtype_info) is passed
 * with its size as an argument instead.
 */
#define SINPE_STRUCT_TAG (~(size_t)0 ^ (~(size_t)0 >> 1))
#define SINPE_STRUCT_SIZE(type) (sizeof(type) | SINPE_STRUCT_TAG)

/* ------------------------------------------------------------------------ */
/* Status                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Status codes.  0 is success.  sinpe's own codes lie in [-2099, -2001] and
 * are pinned: they keep their values across releases.  Any other negative
 * value is an OpenCL error code (CL_OUT_OF_RESOURCES, ...) passed through
 * unchanged from the runtime call that failed.
 */
#define SINPE_STATUS_MAP(X)                                                      \
    X(SUCCESS,              0,     "success")                                    \
    X(NULL_ARGUMENT,        -2001, "a required pointer or handle is NULL")       \
    X(INVALID_SPEC,         -2002, "the encoding spec is invalid")               \
    X(INVALID_SHAPE,        -2003, "a size, count or stride is invalid")         \
    X(BUFFER_TOO_SMALL,     -2004, "a buffer is too small for offset + extent")  \
    X(INVALID_WAIT_LIST,    -2005, "the event wait list is inconsistent")        \
    X(CONTEXT_MISMATCH,     -2006, "an object belongs to another OpenCL context")\
    X(ID_OUT_OF_RANGE,      -2007, "a token id lies outside [0, vocab)")         \
    X(DEVICE_NOT_FOUND,     -2008, "no usable OpenCL device was found")          \
    X(BUILD_FAILED,         -2009, "the OpenCL program failed to build")         \
    X(OUT_OF_HOST_MEMORY,   -2010, "host memory allocation failed")              \
    X(TOO_LARGE,            -2011, "a size exceeds what the device or sinpe can hold") \
    X(UNSUPPORTED,          -2012, "the device does not support the request")    \
    X(INVALID_OPTION,       -2013, "an option or environment setting is invalid")   \
    X(UNKNOWN_PRESET,       -2014, "the preset is not one of sinpe_preset")        \
    X(INVALID_DTYPE,        -2015, "the storage type is not one of sinpe_dtype")   \
    X(INVALID_PAD,          -2016, "the pad id or padding policy is invalid")   \
    X(IO_ERROR,             -2017, "a file could not be read or written")  \
    X(INVALID_STRUCT_SIZE,  -2018, "a struct's struct_size is not one of a sinpe header") \
    X(BUFFERS_OVERLAP,      -2019, "two buffer regions that must be distinct overlap")

typedef enum sinpe_status {
#define SINPE_X_ENUM(name, value, text) SINPE_##name = value,
    SINPE_STATUS_MAP(SINPE_X_ENUM)
#undef SINPE_X_ENUM
    SINPE_STATUS_FORCE_INT_ = 0x7fffffff
} sinpe_status;

/*
 * A short static description of a status: sinpe's own codes give their text,
 * OpenCL codes their CL_* name, anything else "unknown status".  Never NULL.
 */
SINPE_API const char *sinpe_status_string(sinpe_status status);

/*
 * The detail of the last failure on the calling thread: which argument was
 * wrong and why, or the full program build log after SINPE_BUILD_FAILED.
 * Every sinpe function clears it on entry and sets it when it fails, except
 * the five that describe a failure or a constant: sinpe_last_error(),
 * sinpe_status_string(), sinpe_preset_name(), sinpe_version_number() and
 * sinpe_version_string() leave it as it is, so that a failure may be
 * reported with them in any order.  It is therefore empty ("") exactly when
 * the last call of any other function on this thread succeeded.  The
 * functions that return no status succeed, save the accessors given a NULL
 * handle (sinpe_context_cl_context() and its siblings, sinpe_table_rows(),
 * sinpe_table_spec()), which record which handle was NULL.  The string stays
 * valid until the next call on the same thread of a function that sets or
 * clears it.  Never NULL.
 */
SINPE_API const char *sinpe_last_error(void);

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct sinpe_context sinpe_context;

/*
 * How the angle p * w is carried to float32 accuracy.
 *
 *  SINPE_MATH_FLOAT  float32 only: the angle is formed exactly in double-float
 *                    arithmetic (fma) and reduced in quarter turns; sin and cos
 *                    are evaluated by sinpe's own polynomials.  Runs on every
 *                    device, including those without fp64 (Intel integrated
 *                    GPUs), and gives the same bits on every conforming device.
 *  SINPE_MATH_FP64   the anchors of the angle addition (one position in
 *                    128; every other position is its anchor turned by a
 *                    step, the same float32 operations in both modes)
 *                    reduced and evaluated in double precision.  Requires
 *                    cl_khr_fp64 (else SINPE_UNSUPPORTED).
 *  SINPE_MATH_AUTO   SINPE_MATH_FLOAT (the default: it is portable and
 *                    meets the same bar; FP64 is there for cross-checking).
 *
 * Both meet the accuracy bar stated at the top of this file and give the
 * same bits for nearly every value; neither is the correctly rounded sin
 * (a value may lie one float32 ulp from it).
 */
typedef enum sinpe_math {
    SINPE_MATH_AUTO = 0,
    SINPE_MATH_FLOAT = 1,
    SINPE_MATH_FP64 = 2
} sinpe_math;

/* Parameters for context creation; fill with sinpe_context_options_init(). */
typedef struct sinpe_context_options {
    size_t struct_size; /* set by sinpe_context_options_init() (see "Structs that grow") */
    sinpe_math math;
    /*
     * Device selector used by sinpe_context_create(); NULL or "" means
     * "read the environment variable SINPE_DEVICE".  Either "P:D" (platform
     * and device indices, as PYOPENCL_CTX) or a case-insensitive substring
     * of the platform or device name ("nvidia", "pthread").  When neither
     * is set (or SINPE_DEVICE is empty too), the first GPU is taken, else
     * the first accelerator, else the first CPU.
     */
    const char *device;
    /*
     * Non-zero skips the on-disk cache of program binaries for this context:
     * the kernels are built from source and nothing is read or written.
     * With 0 (the default) a context loads its kernels from the cache when a
     * valid entry exists for this library version, kernel source, build
     * options, platform, device and driver, and stores them there after a
     * build from source.  The cache lives in $SINPE_CACHE_DIR when that is
     * set (empty or "off" turns it off for the process), else in
     * $XDG_CACHE_HOME/sinpe, else in $HOME/.cache/sinpe; the directory is
     * made (mode 0700) on first use.  A damaged, foreign or unloadable entry
     * is deleted and rebuilt; a cache that cannot be used is simply skipped,
     * so the cache never makes a context creation fail.  On pocl, which
     * keeps its own cache of builds, the cache is used only in a directory
     * that SINPE_CACHE_DIR names: asking pocl for a binary makes it compile
     * every kernel of the program at once, which made a first context
     * several times slower to save a fraction of a second on later ones
     * (figures in bench/RESULTS.md).
     */
    int no_disk_cache;
    /*
     * A tuning record that overrides the device's own (see "Work shape"
     * below), in the text form sinpe_context_tuning() returns: "key = value"
     * entries separated by ';' or newlines, for example "seqs = 2; stream =
     * 0".  Parameters it leaves out keep the device's values; "" overrides
     * nothing.  NULL reads the environment variable SINPE_TUNING instead
     * (unset or empty: no override).  An unknown key or value gives
     * SINPE_INVALID_OPTION.
     */
    const char *tuning;
} sinpe_context_options;

/* Fills options with the defaults: SINPE_MATH_AUTO, device NULL, disk cache
 * on.  NULL is a no-op.  The _sized functions behind the _init macros take
 * SINPE_STRUCT_SIZE(type) of the caller's struct (bindings in other
 * languages call them with their struct's size and SINPE_STRUCT_TAG), write
 * that many bytes at most, and write nothing when it is untagged or below
 * the 0.2 layout (SINPE_INVALID_STRUCT_SIZE in sinpe_last_error()). */
SINPE_API void sinpe_context_options_init_sized(sinpe_context_options *options,
                                                size_t struct_size);
#define sinpe_context_options_init(options) \
    sinpe_context_options_init_sized((options), SINPE_STRUCT_SIZE(sinpe_context_options))

/*
 * Creates a context on a device sinpe picks itself (see
 * sinpe_context_options.device), with its own cl_context.  The kernels of
 * the float weight types are built here, so no enqueue with those compiles;
 * those of a quantized type on its first call (or sinpe_context_prepare()).
 * options may be NULL (defaults).
 * Blocks.  Errors: SINPE_DEVICE_NOT_FOUND when no platform or device matches
 * (or none exists), SINPE_INVALID_OPTION for a malformed selector,
 * SINPE_BUILD_FAILED with the log in sinpe_last_error(), SINPE_UNSUPPORTED
 * when SINPE_MATH_FP64 is requested on a device without fp64.
 * For kernel development, the environment variable SINPE_KERNEL_SOURCE may
 * name a kernel file that replaces the head of the embedded kernel source
 * (kernels/sinpe.cl), the program's other files being then read from the
 * same folder where they are there; the disk cache is then bypassed.
 *
 * Work shape.  How the kernels split their work (sequences per work-item,
 * one launch or two for positions to check, non-temporal stores for large
 * outputs, whole rows per work-item for decode-sized calls, work-group
 * sizes, ...) is a tuning record, chosen per context and never by
 * measuring at creation: sinpe_context_options.tuning (or SINPE_TUNING)
 * overrides any part of it; else the device's tuning file, written by the
 * sinpe-tune program (see sinpe_tuning_save); else the record of sinpe's
 * database that fits the device best (by vendor, device type and device
 * name; a conservative default per device type).  sinpe_context_tuning()
 * says which record the context took and where it came from.  The results
 * are the same bits under every record.
 */
SINPE_API sinpe_status sinpe_context_create(const sinpe_context_options *options,
                                            sinpe_context **context);

/*
 * Creates a context inside the host's own cl_context and device.  sinpe
 * retains both (and everything else it keeps), so the host may release its
 * own references at any time; sinpe releases its references in
 * sinpe_context_release().  Errors as sinpe_context_create(), plus
 * SINPE_CONTEXT_MISMATCH when device is not part of cl_ctx.
 */
SINPE_API sinpe_status sinpe_context_create_from_cl(cl_context cl_ctx, cl_device_id device,
                                                    const sinpe_context_options *options,
                                                    sinpe_context **context);

/*
 * Drops the caller's reference.  The context is destroyed when the last
 * table made from it is released too.  NULL is a no-op.
 */
SINPE_API void sinpe_context_release(sinpe_context *context);

/*
 * Borrowed views of the context's OpenCL objects (not retained: retain them
 * yourself to keep them past sinpe_context_release()).  The queue is an
 * in-order, profiling-enabled queue sinpe uses for table generation and the
 * host-memory convenience call; hosts may enqueue on it too.  Given a NULL
 * context each returns NULL, and sinpe_last_error() says that context is
 * NULL.
 */
SINPE_API cl_context sinpe_context_cl_context(const sinpe_context *context);
SINPE_API cl_device_id sinpe_context_device(const sinpe_context *context);
SINPE_API cl_command_queue sinpe_context_queue(const sinpe_context *context);
/* The math path in use: SINPE_MATH_FLOAT or SINPE_MATH_FP64, never AUTO;
 * SINPE_MATH_AUTO for a NULL context (recorded as the accessors above). */
SINPE_API sinpe_math sinpe_context_math(const sinpe_context *context);

/*
 * What the context's device lets sinpe do, as bits, for a host to test
 * instead of parsing device strings (the library's own version is
 * sinpe_version_number()).  A bit this library does not know stays 0.
 */
typedef enum sinpe_feature {
    /* The device has fp64 (cl_khr_fp64): SINPE_MATH_FP64 is available. */
    SINPE_FEATURE_FP64 = 1,
    /* sinpe_record_embed() and its siblings record on this device (it has
     * cl_khr_command_buffer 0.9.0 to 0.9.8 or 1.0.0 and the platform its
     * entry points; see "Recording into a command buffer"). */
    SINPE_FEATURE_COMMAND_BUFFER = 2
    /* Reserved: a bit for the rotary encodings' rules, when they exist. */
} sinpe_feature;

/*
 * The sinpe_feature bits of the context; 0 for a NULL context (recorded as
 * the accessors above).  The storage types take no bit: every sinpe_dtype
 * works on every device, and sinpe_dtype_count() and sinpe_dtype_query()
 * list those the library linked knows.
 */
SINPE_API unsigned sinpe_context_features(const sinpe_context *context);

/*
 * The tuning record the context uses, as text: "from=<source>; " then
 * every parameter, "seqs=4; general=two_pass; ...".  The source reads
 * "database <name>", "file <path>", or "options.tuning over ..." /
 * "SINPE_TUNING over ..."; "; ignored=<path> (<why>)" follows when the
 * device's tuning file was damaged, stale or foreign.  The text is a valid
 * override for sinpe_context_options.tuning.  Owned by the context; ""
 * for a NULL context (recorded as the accessors above).
 */
SINPE_API const char *sinpe_context_tuning(const sinpe_context *context);

/*
 * Makes record (every parameter set, in the text form above) the tuning
 * file of the context's device, which contexts created afterwards on this
 * device read while the library version, the kernels and the driver stay
 * the same: "<cache dir>/tuning-<key>.txt" (the cache directory of
 * sinpe_context_options.no_disk_cache), written to a temporary file and
 * renamed.  record NULL deletes the file.  path (may be NULL) receives the
 * file's path, cut to path_size bytes.  sinpe-tune calls this.  Errors:
 * SINPE_NULL_ARGUMENT, SINPE_INVALID_OPTION (a record that does not parse
 * or leaves a parameter out), SINPE_UNSUPPORTED (no cache directory:
 * SINPE_CACHE_DIR is "off" or HOME is unset), SINPE_IO_ERROR.
 */
SINPE_API sinpe_status sinpe_tuning_save(const sinpe_context *context, const char *record,
                                         char *path, size_t path_size);

/* ------------------------------------------------------------------------ */
/* Encoding spec                                                            */
/* ------------------------------------------------------------------------ */

/*
 * Where sin and cos go in a row of d columns.  With S sin columns and C cos
 * columns (S = C = H = floor(d/2) unless the odd policy says otherwise):
 *  INTERLEAVED    [sin w0, cos w0, sin w1, cos w1, ...]       (the paper, XLM)
 *  SPLIT_SIN_COS  [sin w0 .. sin w(S-1) | cos w0 .. cos w(C-1)]  (t2t, fairseq)
 *  SPLIT_COS_SIN  [cos w0 .. cos w(C-1) | sin w0 .. sin w(S-1)]  (diffusers flip, ggml)
 */
typedef enum sinpe_layout {
    SINPE_LAYOUT_INTERLEAVED = 0,
    SINPE_LAYOUT_SPLIT_SIN_COS = 1,
    SINPE_LAYOUT_SPLIT_COS_SIN = 2
} sinpe_layout;

/*
 * What an odd d = 2H + 1 means.
 *  ZERO_LAST  H sin and H cos columns, then one all-zero last column
 *             (fairseq, tensor2tensor, diffusers, ggml).
 *  EXTRA_SIN  H + 1 sin columns and H cos columns; the exponent denominator
 *             becomes d/2 - shift instead of H - shift (HF Marian's
 *             sentinel = ceil(d/2), XLM's interleaved table).
 *  ERROR      an odd d is rejected with SINPE_INVALID_SPEC (Whisper,
 *             OpenNMT, CTranslate2).
 */
typedef enum sinpe_odd_dim {
    SINPE_ODD_ZERO_LAST = 0,
    SINPE_ODD_EXTRA_SIN = 1,
    SINPE_ODD_ERROR = 2
} sinpe_odd_dim;

/*
 * The encoding.  For frequency index k (0-based) and position p:
 *
 *     w_k     = angle_scale * base^(-k / D),     D = H - shift
 *               (D = d/2 - shift under SINPE_ODD_EXTRA_SIN with odd d;
 *                w_0 = angle_scale whatever D is, which is tensor2tensor's
 *                max(H - 1, 1) guard for H = 1)
 *     PE(p)   = sin(p * w_k) and cos(p * w_k), placed by layout and odd_dim.
 *
 * Fill with sinpe_spec_init(), which gives the paper: interleaved, base
 * 10000, shift 0, angle_scale 1, odd d -> zero last column.
 * Constraints (else SINPE_INVALID_SPEC, naming the field): 1 <= dim <= 65536,
 * base > 0 and finite, angle_scale finite, shift finite, D > 0 whenever
 * there are two or more frequencies, layout and odd_dim one of the enums.
 */
typedef struct sinpe_spec {
    size_t struct_size; /* set by sinpe_spec_init() and sinpe_spec_preset() */
    size_t dim;
    sinpe_layout layout;
    sinpe_odd_dim odd_dim;
    double base;        /* max_timescale / min_timescale; 10000 in the paper */
    double shift;       /* 0: paper, Marian, ggml; 1: t2t, fairseq, Whisper  */
    double angle_scale; /* multiplies every w_k: t2t min_timescale, diffusers scale */
} sinpe_spec;

/* Fills spec with the paper's encoding for dim (not checked here: dim 0 is
 * rejected where the spec is used).  NULL is a no-op. */
SINPE_API void sinpe_spec_init_sized(sinpe_spec *spec, size_t dim, size_t struct_size);
#define sinpe_spec_init(spec, dim) \
    sinpe_spec_init_sized((spec), (dim), SINPE_STRUCT_SIZE(sinpe_spec))

/*
 * Framework families.  sinpe_spec_preset() fills a spec that reproduces the
 * named function to float32 accuracy (its float64 value within the bound at
 * the top of this file: a float32 ulp at most, not always the correctly
 * rounded float);
 * sinpe_embed_args_preset() sets the token scale, position origin and
 * padding that go with it.  Parameters a family exposes map onto the spec:
 * base = max_timescale / min_timescale (max_period), angle_scale =
 * min_timescale * scale, shift = downscale_freq_shift; change them after
 * the preset if your model overrides the defaults.
 *
 *  VASWANI        "Attention Is All You Need" 3.5, the PyTorch tutorial,
 *                 XLM create_sinusoidal_embeddings: interleaved, shift 0;
 *                 odd d gets the extra sin column XLM defines. Args: sqrt(d), origin 0.
 *  TENSOR2TENSOR  tensor2tensor common_attention.get_timing_signal_1d:
 *                 [sin | cos], shift 1 with the max(H-1, 1) guard, odd d ->
 *                 zero column.  Args: sqrt(d) rounded to the output type
 *                 (TensorFlow multiplies by it in the activations' type), origin
 *                 0 (start_index = args.start), pad id 0 has its embedding
 *                 zeroed but keeps PE.
 *  FAIRSEQ        fairseq SinusoidalPositionalEmbedding.get_embedding (and
 *                 HF M2M100 / FSMT / Speech2Text): [sin | cos], shift 1, odd d
 *                 -> zero column.  Args: sqrt(d), positions by make_positions
 *                 from pad_id + 1, pad tokens get a zero PE row.
 *  WHISPER        Whisper model.sinusoids (encoder): [sin | cos], shift 1,
 *                 odd d is an error (SINPE_INVALID_SPEC).  Args: scale 1, origin 0.
 *  MARIAN_HF      HF MarianSinusoidalPositionalEmbedding: [sin | cos] with
 *                 ceil(d/2) sin columns, shift 0.  Args: sqrt(d), origin 0
 *                 (+ past length via args.start).
 *  OPENNMT        OpenNMT-tf SinusoidalPositionEncoder / CTranslate2:
 *                 [sin | cos], shift 1, odd d is an error.  Args: sqrt(d) rounded
 *                 to the output type (CTranslate2 converts it to the model's
 *                 compute type), origin 1.
 *  DIFFUSERS      diffusers embeddings.get_timestep_embedding with its
 *                 defaults: [sin | cos], downscale_freq_shift 1, scale 1,
 *                 max_period 10000, odd d -> zero column.
 *  DIFFUSERS_FLIP the same with flip_sin_to_cos = True and
 *                 downscale_freq_shift = 0 (Stable Diffusion's UNet Timesteps).
 *  GGML_TIMESTEP  ggml ggml_timestep_embedding: [cos | sin], shift 0,
 *                 max_period 10000, odd d -> zero column.
 *  MAE            MAE's get_1d_sincos_pos_embed_from_grid (also diffusers'):
 *                 [sin | cos], shift 0, max_period 10000, odd d is an error:
 *                 the half-width encoding of sinpe_enqueue_grid().
 * The timestep presets and MAE leave the embed args at their init values.
 */
typedef enum sinpe_preset {
    SINPE_PRESET_VASWANI = 1,
    SINPE_PRESET_TENSOR2TENSOR = 2,
    SINPE_PRESET_FAIRSEQ = 3,
    SINPE_PRESET_WHISPER = 4,
    SINPE_PRESET_MARIAN_HF = 5,
    SINPE_PRESET_OPENNMT = 6,
    SINPE_PRESET_DIFFUSERS = 7,
    SINPE_PRESET_DIFFUSERS_FLIP = 8,
    SINPE_PRESET_GGML_TIMESTEP = 9,
    SINPE_PRESET_MAE = 10
} sinpe_preset;

/*
 * Fills spec for preset and dim.  Errors: SINPE_NULL_ARGUMENT,
 * SINPE_UNKNOWN_PRESET, SINPE_INVALID_SPEC (dim 0, or an odd dim for
 * WHISPER and OPENNMT), SINPE_INVALID_STRUCT_SIZE.
 */
SINPE_API sinpe_status sinpe_spec_preset_sized(sinpe_spec *spec, sinpe_preset preset,
                                               size_t dim, size_t struct_size);
#define sinpe_spec_preset(spec, preset, dim) \
    sinpe_spec_preset_sized((spec), (preset), (dim), SINPE_STRUCT_SIZE(sinpe_spec))

/* The name of a preset ("fairseq"), or NULL for an unknown value. */
SINPE_API const char *sinpe_preset_name(sinpe_preset preset);

/*
 * Storage types of the embedding weights and of the output, chosen
 * independently.  Arithmetic is always float32 and the result is rounded
 * once, at the store, to nearest even.  float16 is read and written with
 * vload_half/vstore_half (core OpenCL, so no cl_khr_fp16 is needed: every
 * device supports every type), or with AVX-512's sixteen-lane conversions
 * where the device compiler targets them (PoCL on such CPUs; the same
 * bits); subnormals are kept and values from 65520 up become infinity.
 * bfloat16 is stored as the upper 16 bits of a float32 (cl_ushort), NaN
 * stays NaN.
 *
 * The quantized types are for weights only (as an output type they give
 * SINPE_INVALID_DTYPE).  Each weight w is a decoded value v times a scale:
 *   I8        v = q, a signed byte; the scale of its row, from
 *             sinpe_embed_args.weight_scales (required: fp32 or fp16 values,
 *             one per row read: weight_scales_offset + vocab of them),
 *             w = q * s_row;
 *   Q8_0      ggml's layout: blocks of 32 values, each 34 bytes, its fp16
 *             scale d (little-endian) then 32 signed bytes q; v = q * d and
 *             the row scale is 1.  dim, weights_offset and weights_stride
 *             must be multiples of 32 (SINPE_INVALID_SHAPE otherwise: rows
 *             are whole blocks); offsets and strides count values, and the
 *             buffer needs 34 bytes per 32 of them;
 *   FP8_E4M3  OCP FP8 E4M3 ("fn": bias 7, no infinities, S.1111.111 is NaN,
 *             largest finite 448) and
 *   FP8_E5M2  OCP FP8 E5M2 (the upper byte of an IEEE half: infinities and
 *             NaNs), one byte per value, decoded exactly; the scale is the
 *             row's from weight_scales when given, else
 *             sinpe_embed_args.weights_scale (1 after init), w = v * s;
 *   Q4_0, Q4_1, Q5_0, Q5_1 (blocks of 32 values: 18, 20, 22, 24 bytes),
 *   Q4_K, Q5_K, Q6_K (super-blocks of 256: 144, 176, 210 bytes)
 *             ggml's layouts (ggml-common.h), as a GGUF file holds them;
 *             v is the float32 value ggml's dequantization computes, bit
 *             for bit, and the row scale is 1; rows, offsets and strides
 *             whole blocks as for Q8_0.  "Exact" follows the gguf Python
 *             package's dequantization (gguf.quants), whose operations are
 *             float32 products then the add of the min (Q4_1, Q5_1: d * q
 *             + m; Q4_K, Q5_K: (d * sc) * q - dmin * mn; Q6_K: (d * sc) *
 *             q): every product is exact in float32, so the one rounding
 *             is the add's, and ggml's C built with d * q - m contracted
 *             into an fma computes the same bits (kernels/blocks.cl).
 * v and the scales convert to float32 exactly, so w is float32 rounded once
 * (exact when the scale is 1); then the output is token_scale * w + PE,
 * rounded as the other types' are.  A NaN or infinite scale in the scales
 * buffer gives NaN or infinite values in its row, as IEEE arithmetic does
 * (sinpe does not read the buffer on the host), and so does a NaN or
 * infinite d in a Q8_0 block; a non-finite weights_scale is refused
 * (SINPE_INVALID_OPTION) where it is used, by FP8 weights without
 * weight_scales.  sinpe_quantize() writes every layout but the k-quants'.
 */
typedef enum sinpe_dtype {
    SINPE_F32 = 0,
    SINPE_F16 = 1,
    SINPE_BF16 = 2,
    SINPE_I8 = 3,
    SINPE_Q8_0 = 4,
    SINPE_FP8_E4M3 = 5,
    SINPE_FP8_E5M2 = 6,
    SINPE_Q4_0 = 7,
    SINPE_Q4_1 = 8,
    SINPE_Q5_0 = 9,
    SINPE_Q5_1 = 10,
    SINPE_Q4_K = 11,
    SINPE_Q5_K = 12,
    SINPE_Q6_K = 13
} sinpe_dtype;

/*
 * The bytes that values values of type take in a buffer: values times 4, 2
 * or 1, or for the block types their block's bytes per block of 32 or 256
 * values (Q8_0: 34 per 32; a partial block counts whole).
 * Returns 0 for a value that is not a sinpe_dtype, SIZE_MAX on overflow.
 */
SINPE_API size_t sinpe_dtype_bytes(sinpe_dtype type, size_t values);

/*
 * What sinpe knows of each storage type, from the one table the library
 * holds.  Code that needs a type's size, name or kind asks here instead of
 * keeping a list of its own, and loops over the types run to
 * sinpe_dtype_count(): a new type is a row of that table, its decoder in
 * the kernels and its value in sinpe_dtype, and no caller changes.
 */
typedef enum sinpe_dtype_scales {
    SINPE_DTYPE_SCALES_NONE = 0,          /* a float type: no scale */
    SINPE_DTYPE_SCALES_ROW = 1,           /* one per row, required (I8) */
    SINPE_DTYPE_SCALES_ROW_OR_TENSOR = 2, /* one per row, else weights_scale (FP8) */
    SINPE_DTYPE_SCALES_BLOCK = 3          /* inside the blocks (ggml's types) */
} sinpe_dtype_scales;

typedef struct sinpe_dtype_info {
    const char *name;          /* "f32", "q8_0", "fp8_e4m3": the enum name's
                                  suffix in lower case (static storage) */
    size_t block_values;       /* values per block: 1, or 32 (Q8_0), 256 (k-quants) */
    size_t block_bytes;        /* bytes per block: 4, 2 or 1 value; 34 for Q8_0 */
    int quantized;             /* 1: decoded values times a scale (weights only) */
    int output;                /* 1: may be an out_dtype (the float types) */
    sinpe_dtype_scales scales; /* where a quantized type's scale comes from */
    double largest;            /* the largest finite value */
} sinpe_dtype_info;

/* The number of storage types: the sinpe_dtype values are 0 .. count - 1
 * (a new type takes the next value).  Never fails. */
SINPE_API size_t sinpe_dtype_count(void);

/*
 * Fills info with type's properties.  info_size is sizeof *info: a library
 * newer than the caller's header writes only the fields that size holds.
 * Errors: SINPE_NULL_ARGUMENT (info), SINPE_INVALID_DTYPE (type not below
 * sinpe_dtype_count(); info untouched), SINPE_INVALID_STRUCT_SIZE
 * (info_size below the 0.2 layout, sizeof(sinpe_dtype_info) here).
 */
SINPE_API sinpe_status sinpe_dtype_query(sinpe_dtype type, sinpe_dtype_info *info,
                                         size_t info_size);

/*
 * Builds the kernels for weights of weights_dtype now (the fused and
 * gather calls of a quantized type build them on first use otherwise;
 * those of F32, F16 and BF16 are built with the context), so that no later
 * call waits for a compile.  Thread-safe; a second call returns at once.
 * Errors: SINPE_NULL_ARGUMENT, SINPE_INVALID_DTYPE, SINPE_BUILD_FAILED.
 */
SINPE_API sinpe_status sinpe_context_prepare(sinpe_context *context, sinpe_dtype weights_dtype);

/* ------------------------------------------------------------------------ */
/* Device-resident table                                                    */
/* ------------------------------------------------------------------------ */

typedef struct sinpe_table sinpe_table;

/*
 * Returns the table of rows [0, n) of PE for spec, n >= rows, as a
 * row-major float32 cl_mem of n * dim values, generated on the device.
 * Tables are cached per context and spec: a second create with an equal
 * spec returns the same table with one more reference, grown to rows if it
 * had fewer.  rows may be 0 (the rows are then made on first reserve, and
 * enqueues compute every position on the fly).  Blocks until the rows are
 * ready.  Errors: SINPE_NULL_ARGUMENT, SINPE_INVALID_SPEC, SINPE_TOO_LARGE
 * (rows * dim * 4 over the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE), OpenCL
 * errors from allocation.
 */
SINPE_API sinpe_status sinpe_table_create(sinpe_context *context, const sinpe_spec *spec,
                                          size_t rows, sinpe_table **table);

/*
 * Grows the table to at least rows rows (geometrically, to amortise growth).
 * A smaller request is a no-op.  Blocks until the new rows are ready.  Safe
 * while other threads enqueue with this table.  On failure (SINPE_TOO_LARGE,
 * CL_MEM_OBJECT_ALLOCATION_FAILURE, ...) the old rows stay valid and in use.
 */
SINPE_API sinpe_status sinpe_table_reserve(sinpe_table *table, size_t rows);

/*
 * The current table buffer and its row count.  *mem is retained for the
 * caller, who must clReleaseMemObject() it; it stays valid (and unchanged)
 * even if the table grows afterwards.  Row p holds PE(p) in dim floats.  A
 * table without rows gives *mem NULL and *rows 0 (nothing to release; NULL
 * is a valid table argument of the device functions with rows 0).  Errors:
 * SINPE_NULL_ARGUMENT.
 */
SINPE_API sinpe_status sinpe_table_borrow(sinpe_table *table, cl_mem *mem, size_t *rows);

/*
 * Writes rows of the encoding into a caller's buffer: row r of out (at
 * out_offset + r * out_stride, 0 meaning dim, of out_dtype) receives
 * PE(row0 + r) for r < nrows, with the same bits the table holds (rounded
 * once to out_dtype).  Any cl_int row0 is valid, INT_MIN included: PE is
 * defined at every int32 position, and a negative row gets the bits the
 * embedding calls give that position.  For hosts that keep their own
 * position table, and the measure of generation speed in the benchmark.
 * Non-blocking, as clEnqueue* calls.  Errors: SINPE_NULL_ARGUMENT,
 * SINPE_INVALID_SHAPE (nrows 0, row0 + nrows - 1 over 2^31 - 1,
 * out_stride < dim), SINPE_INVALID_DTYPE, SINPE_BUFFER_TOO_SMALL,
 * SINPE_INVALID_WAIT_LIST and SINPE_CONTEXT_MISMATCH (the queue, out or an
 * event of the wait list from another context), as sinpe_enqueue_embed().
 */
SINPE_API sinpe_status sinpe_enqueue_table_rows(sinpe_table *table, cl_command_queue queue,
                                                cl_int row0, size_t nrows, cl_mem out,
                                                size_t out_offset, size_t out_stride,
                                                sinpe_dtype out_dtype,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list,
                                                cl_event *event);

/* The row count now held.  0 for a NULL table, with "table is NULL" in
 * sinpe_last_error() (a table made with rows 0 also holds 0). */
SINPE_API size_t sinpe_table_rows(const sinpe_table *table);
/* A copy of the spec the table was made for (normalised: the same values),
 * into spec (struct_size bytes at most, as sinpe_spec_init_sized()).  For a
 * NULL table an all-zero spec (dim 0, which no table has) and
 * SINPE_NULL_ARGUMENT; SINPE_INVALID_STRUCT_SIZE.  sinpe_table_spec()
 * returns it by value (built in the caller, so that it grows with the
 * header), with "table is NULL" in sinpe_last_error() for a NULL table. */
SINPE_API sinpe_status sinpe_table_spec_sized(const sinpe_table *table, sinpe_spec *spec,
                                              size_t struct_size);
static inline sinpe_spec sinpe_table_spec_value_(const sinpe_table *table)
{
    sinpe_spec spec;
    sinpe_table_spec_sized(table, &spec, SINPE_STRUCT_SIZE(sinpe_spec));
    return spec;
}
#define sinpe_table_spec(table) sinpe_table_spec_value_(table)

/* Drops one reference; the last one frees the device buffer.  NULL is a no-op. */
SINPE_API void sinpe_table_release(sinpe_table *table);

/* ------------------------------------------------------------------------ */
/* Fused embedding and the unfused pair                                     */
/* ------------------------------------------------------------------------ */


/*
 * How positions are formed (see sinpe_embed_args).
 *  INDEX    start + t, or start + positions[...] (the default).
 *  FAIRSEQ  fairseq's make_positions, computed on the device per sequence:
 *           a non-pad token gets start + pad_id + (number of non-pad tokens
 *           up to and including it), a pad token gets pad_id.  Works for
 *           left- and right-padded batches; args.positions must be NULL.
 */
typedef enum sinpe_position_rule {
    SINPE_POSITIONS_INDEX = 0,
    SINPE_POSITIONS_FAIRSEQ = 1
} sinpe_position_rule;

/*
 * What a token equal to pad_id produces.
 *  NONE            nothing special (pad_id unused unless the rule is FAIRSEQ).
 *  ZERO_PE         token_scale * E[pad] with no PE added (fairseq's zero PE row).
 *  ZERO_OUTPUT     an all-zero output row (LightSeq).
 *  ZERO_EMBEDDING  PE only: the embedding counts as zero (tensor2tensor).
 */
typedef enum sinpe_pad_policy {
    SINPE_PAD_NONE = 0,
    SINPE_PAD_ZERO_PE = 1,
    SINPE_PAD_ZERO_OUTPUT = 2,
    SINPE_PAD_ZERO_EMBEDDING = 3
} sinpe_pad_policy;

/*
 * What token_scale is before it multiplies the weights.  Frameworks that
 * multiply in the activations' own type round it: HF Gemma's sqrt(d) in
 * bf16 is 55.5, not 55.4256; the TENSOR2TENSOR and OPENNMT presets set
 * OUTPUT, the PyTorch families (FAIRSEQ, MARIAN_HF, VASWANI) multiply in
 * float32 and keep EXACT.
 *  EXACT    as given (float32);
 *  WEIGHTS  rounded to nearest even in the weights' storage type (fp16 or
 *           bf16; F32 leaves it; a quantized type gives
 *           SINPE_INVALID_OPTION);
 *  OUTPUT   rounded so in the output's storage type.
 */
typedef enum sinpe_scale_rounding {
    SINPE_SCALE_EXACT = 0,
    SINPE_SCALE_WEIGHTS = 1,
    SINPE_SCALE_OUTPUT = 2
} sinpe_scale_rounding;

/*
 * How a vocabulary shard (tensor parallelism: each device holds some rows
 * of the table, and the outputs are summed) writes its tokens.
 *  NONE   the weights are the whole vocabulary;
 *  ROWS   every token gets this shard's row or a zero embedding, plus PE
 *         unless skip_pe (the first shard adds PE, the others skip it);
 *  OWNER  the shard that holds a token's id writes it in full (token_scale
 *         * E + PE, its padding policy as unsharded); the other shards
 *         write +0.0 in every column of it.  Ids that no shard holds belong
 *         to the first shard (vocab_start 0) when negative and to the last
 *         (vocab_start + vocab == vocab_total) when >= vocab_total: that
 *         shard writes them as the unsharded call does and counts them in
 *         bad_ids, so the shards' counts also sum to the unsharded one.
 *         Each value is thus one shard's, the rest exact zeros, and a sum
 *         in any order (or a bitwise OR of the bit patterns) gives the
 *         unsharded bits in fp32, fp16 and bf16, but for a -0.0, which a
 *         floating-point sum turns into +0.0.  Needs vocab_total (>=
 *         vocab_start + vocab, at most 2^31 - 1) and skip_pe 0.  These
 *         calls take the general kernels, which are a little slower than
 *         the lean ones of unsharded calls with implicit positions.
 */
typedef enum sinpe_vocab_shard {
    SINPE_SHARD_NONE = 0,
    SINPE_SHARD_ROWS = 1,
    SINPE_SHARD_OWNER = 2
} sinpe_vocab_shard;

/*
 * Arguments of the embedding calls; fill with sinpe_embed_args_init().
 * All offsets, strides and counts are in elements, not bytes.
 *
 * Tokens form n_seqs sequences of seq_len tokens; token (b, t) is row
 * r = b * seq_len + t of ids, positions and out.
 *
 *  ids        cl_int[n_seqs * seq_len] at ids_offset.
 *  weights    embedding table E of weights_dtype, vocab rows, row r at
 *             weights_offset + r * weights_stride (0 means dim).  The
 *             stride may exceed dim and the offset point inside a row:
 *             a layer's slice of a per-layer table [vocab, layers x
 *             width] (Gemma 3n) is weights_offset = layer * width,
 *             weights_stride = layers x width, dim = width.  For the
 *             block types all three are multiples of the block (32, or
 *             256 for the k-quants: a Q5_K table of width 256 slices, one
 *             of width 128 does not); else SINPE_INVALID_SHAPE naming
 *             them, as a slice would start or end inside a block.
 *  parts      a table past one allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE):
 *             with weights_count > 0, weights is NULL and the rows lie in
 *             weights_count buffers (at most SINPE_WEIGHTS_MAX) of
 *             weights_list, buffer j holding weights_rows[j] consecutive
 *             rows from the sum of the rows before it on, its first at
 *             weights_offset, then every weights_stride, as weights would
 *             (a block type's rows are whole blocks, so any row count
 *             splits it).  The rows sum to vocab; the row scales (I8,
 *             FP8) stay one buffer of vocab scales.  Every type, call,
 *             position source and shard takes them, with the same bits
 *             and the same kernels as one buffer: each kernel takes four
 *             weights buffers and reads a token's row from the one that
 *             holds it (see README for the cost).  Four, because
 *             OpenCL 1.2 requires CL_DEVICE_MAX_MEM_ALLOC_SIZE to be at
 *             least a quarter of the device's global memory, so four
 *             buffers hold any table the device can (OpenCL 3.0 lets a
 *             device cap it at 1 GiB instead: four then hold 4 GiB), and
 *             each one more is a kernel argument and a compare per
 *             token.  Errors: SINPE_INVALID_OPTION
 *             (weights given as well), SINPE_TOO_LARGE (over
 *             SINPE_WEIGHTS_MAX), SINPE_NULL_ARGUMENT (weights_list,
 *             weights_rows or an entry NULL), SINPE_INVALID_SHAPE (a
 *             row count 0, or the rows not summing to vocab),
 *             SINPE_BUFFER_TOO_SMALL or SINPE_CONTEXT_MISMATCH (an entry,
 *             named with its index).
 *  out        output of out_dtype, row r at out_offset + r * out_stride (0
 *             means dim), so that results land inside a wider activation
 *             buffer.  Only the dim columns of each row are written.
 *  position   of token (b, t), in int32 arithmetic:
 *               start + t                        positions NULL
 *               start + positions[off + r]       positions given, (B, S)
 *               start + positions[off + t]       ... positions_broadcast != 0, (1, S)
 *             plus seq_starts[seq_starts_offset + b] when seq_starts is
 *             given (decode steps of sequences at different lengths),
 *             minus pad_counts[pad_counts_offset + b] when pad_counts is
 *             given (left-padding correction, FasterTransformer style), or
 *             by position_rule FAIRSEQ.  Sums formed on the device (with a
 *             positions, seq_starts or pad_counts buffer) wrap modulo 2^32;
 *             implicit start + seq_len - 1 past 2^31 - 1 is rejected
 *             (SINPE_INVALID_SHAPE).  Any resulting value is valid:
 *             positions past the table's rows (or negative ones) are
 *             computed on the fly with the same bits the table would hold.
 *  padding    pad_policy applied to tokens equal to pad_id, which must lie
 *             in [0, vocab) (for a shard, see below; SINPE_INVALID_PAD
 *             otherwise).
 *  shard      with vocab_shard != 0 (see sinpe_vocab_shard), weights hold
 *             the rows [vocab_start, vocab_start + vocab) of a larger
 *             vocabulary: row id - vocab_start is read.  ROWS: ids outside
 *             the shard give a zero embedding without counting as bad, and
 *             skip_pe != 0 leaves PE out, so that exactly one shard adds
 *             it; in fp32 the shards' outputs then sum to the unsharded
 *             result, in fp16 and bf16 not always (two roundings).  OWNER:
 *             the shards' outputs sum to the unsharded bits in every type.
 *             A shard's pad_id may lie in another shard: >= 0 for ROWS,
 *             in [0, vocab_total) for OWNER.
 *  bad_ids    optional cl_int counter: for each token whose id lies outside
 *             [0, vocab) the kernel adds 1 to bad_ids[bad_ids_offset]
 *             atomically (a ROWS shard: negative ids only; OWNER: see
 *             sinpe_vocab_shard).  Zero it before, read it after the event.
 *             Such a token is never read from E: its embedding counts as
 *             zero.
 *  scales     for I8 weights (required) and FP8 ones (optional):
 *             weight_scales holds one scale per row of the weights buffer
 *             (row r at weight_scales_offset + r, so offset + vocab scales), of
 *             weight_scales_dtype F32 or F16; ignored for the other types.
 *             weights_scale: FP8 weights' scale when weight_scales is
 *             NULL.  token_scale_rounding: see sinpe_scale_rounding.
 */
typedef struct sinpe_embed_args {
    size_t struct_size; /* set by sinpe_embed_args_init() */
    size_t n_seqs, seq_len;
    cl_mem ids;       size_t ids_offset;
    cl_mem weights;   size_t weights_offset;  size_t weights_stride;  size_t vocab;
    cl_mem out;       size_t out_offset;      size_t out_stride;
    float token_scale; /* 1 after init; sqrt(dim) in the paper */
    cl_int start;
    cl_mem positions; size_t positions_offset;
    cl_mem bad_ids;   size_t bad_ids_offset;
    sinpe_dtype weights_dtype, out_dtype;     /* SINPE_F32 after init */
    int positions_broadcast;
    cl_mem seq_starts; size_t seq_starts_offset;
    cl_mem pad_counts; size_t pad_counts_offset;
    sinpe_position_rule position_rule;
    sinpe_pad_policy pad_policy;
    cl_int pad_id;
    int vocab_shard;  size_t vocab_start;     /* sinpe_vocab_shard */
    int skip_pe;
    cl_mem weight_scales; size_t weight_scales_offset;
    sinpe_dtype weight_scales_dtype;          /* SINPE_F32 or SINPE_F16 */
    float weights_scale;                      /* 1 after init */
    sinpe_scale_rounding token_scale_rounding;
    size_t vocab_total;                       /* OWNER shards: the whole vocabulary */
    /* The weights in several buffers (see "parts" above): */
    size_t weights_count;                     /* 0 after init: weights alone */
    const cl_mem *weights_list;               /* weights_count buffers, in row order */
    const size_t *weights_rows;               /* the rows of each; they sum to vocab */
} sinpe_embed_args;

/* The most buffers one call's weights may span (weights_count). */
#define SINPE_WEIGHTS_MAX 4

/* Fills args with the defaults: every buffer NULL, every count, offset and
 * stride 0, token_scale 1, start 0, F32 storage, positions INDEX, no
 * padding, no shard.  NULL is a no-op. */
SINPE_API void sinpe_embed_args_init_sized(sinpe_embed_args *args, size_t struct_size);
#define sinpe_embed_args_init(args) \
    sinpe_embed_args_init_sized((args), SINPE_STRUCT_SIZE(sinpe_embed_args))

/*
 * Sets token_scale, token_scale_rounding, start, position_rule, pad_policy
 * and pad_id as the preset's framework does (see sinpe_preset), leaving buffers and shapes
 * alone.  pad_id is used by FAIRSEQ (its padding_idx, usually 1) and
 * TENSOR2TENSOR (0 whatever is passed).  Errors: SINPE_NULL_ARGUMENT,
 * SINPE_UNKNOWN_PRESET, SINPE_INVALID_STRUCT_SIZE (args not initialised).
 */
SINPE_API sinpe_status sinpe_embed_args_preset(sinpe_embed_args *args, sinpe_preset preset,
                                               size_t dim, cl_int pad_id);

/*
 * The fused call: out[r, :] = token_scale * E[id_r, :] + PE(pos_r), one
 * kernel, one pass over memory.  Enqueued on the caller's queue (which must
 * belong to the table's context and device) after the events in the wait
 * list; *event, when event is not NULL, receives the event of the last
 * command, which completes after all of the call's work.  Small pre-passes
 * run first, chained by events (so out-of-order queues are fine), only when
 * asked for: counting bad ids (bad_ids given) and the FAIRSEQ positions.
 * Implicit positions start + t (no positions, seq_starts or pad_counts)
 * that leave the table are first written as rows of the call's own, by the
 * table's two kernels, and read as from the table (the same bits).  Those
 * rows' buffer (seq_len * dim floats) and the anchors' are the table's,
 * kept for the next such call until the table is released; a call that
 * may overlap the last one that used them (on another queue or an
 * out-of-order one, before it has finished) gets buffers of its own.
 * Under a tuning record with general = two_pass (CPU devices), positions
 * other than implicit ones inside the table take two kernels (the elements
 * in the table, then the others computed on the fly), except in
 * decode-sized calls where the record takes whole rows, and calls none of
 * whose positions can lie in the table (a table of no rows, or implicit
 * positions from past its rows): the second kernel alone; with one_pass
 * (GPUs) one kernel does both.  Implicit positions inside the table without
 * a padding policy take a leaner kernel than the other position sources
 * (see README).
 * Non-blocking.  Validation errors (nothing is enqueued):
 *   SINPE_NULL_ARGUMENT   table, queue, args or a required buffer is NULL;
 *   SINPE_INVALID_SHAPE   n_seqs, seq_len or vocab is 0, a stride < dim,
 *                         vocab > 2^31 - 1, the row count over 2^31 - 1;
 *   SINPE_BUFFER_TOO_SMALL  a buffer is smaller than offset + extent;
 *   SINPE_INVALID_WAIT_LIST (0, non-NULL) or (n > 0, NULL), or an entry
 *                         that is NULL or not a valid event;
 *   SINPE_CONTEXT_MISMATCH  the queue or a buffer is from another context
 *                         or device, or an event of the wait list is from
 *                         another context (OpenCL's CL_INVALID_CONTEXT);
 *   SINPE_INVALID_DTYPE   a dtype outside sinpe_dtype, a quantized
 *                         out_dtype, a weight_scales_dtype (scales in use)
 *                         other than F32 or F16;
 *   SINPE_INVALID_PAD     pad_id outside [0, vocab), an unknown pad_policy;
 *   SINPE_INVALID_OPTION  an unknown position_rule, FAIRSEQ with positions,
 *                         vocab_start + vocab over 2^31 - 1, an unknown
 *                         vocab_shard, OWNER with vocab_total below
 *                         vocab_start + vocab or over 2^31 - 1, or with
 *                         skip_pe; an unknown token_scale_rounding, WEIGHTS
 *                         rounding with quantized weights, a non-finite
 *                         weights_scale where it is used (sinpe_dtype).
 * With out_dtype F32 the result equals gather followed by add_positions bit
 * for bit; with F16/BF16 output the unfused pair rounds twice.
 */
SINPE_API sinpe_status sinpe_enqueue_embed(sinpe_table *table, cl_command_queue queue,
                                           const sinpe_embed_args *args,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/*
 * First half of the unfused baseline: out[r, :] = token_scale * E[id_r, :],
 * with the same arguments, checks and id handling as sinpe_enqueue_embed()
 * (positions are ignored).
 */
SINPE_API sinpe_status sinpe_enqueue_gather(sinpe_table *table, cl_command_queue queue,
                                            const sinpe_embed_args *args,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/*
 * Second half: out[r, :] += PE(pos_r) in place, for hosts that do their own
 * gather.  Uses the shape, out*, the position fields and, when pad_policy is
 * not NONE or the rule is FAIRSEQ, ids and pad_id (weights may be NULL;
 * vocab, when 0, is not checked against pad_id).
 */
SINPE_API sinpe_status sinpe_enqueue_add_positions(sinpe_table *table, cl_command_queue queue,
                                                   const sinpe_embed_args *args,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event);

/*
 * Synchronous convenience on host memory: the fused computation with ids
 * (n_seqs * seq_len), weights (vocab * dim floats, row-major) and out
 * (n_seqs * seq_len * dim floats) in host memory, positions start + t, or
 * start + positions[r] when positions is not NULL.  Uses the context's own
 * queue and temporary device buffers; blocks until out is written.  Every
 * argument is checked before anything is allocated or copied, so that on
 * an error nothing is read from weights or written to out:
 *   SINPE_NULL_ARGUMENT   table, ids, weights or out is NULL;
 *   SINPE_INVALID_SHAPE   n_seqs, seq_len or vocab is 0, vocab > 2^31 - 1,
 *                         n_seqs * seq_len over 2^31 - 1, or (positions
 *                         NULL) start + seq_len - 1 over 2^31 - 1;
 *   SINPE_TOO_LARGE       weights or out over the device's
 *                         CL_DEVICE_MAX_MEM_ALLOC_SIZE;
 *   SINPE_ID_OUT_OF_RANGE an id outside [0, vocab) (the ids are checked on
 *                         the host; the message names the first one).
 * Later failures are those of sinpe_enqueue_embed() or OpenCL's.
 */
SINPE_API sinpe_status sinpe_embed_host(sinpe_table *table, const int32_t *ids,
                                        size_t n_seqs, size_t seq_len,
                                        const float *weights, size_t vocab,
                                        float token_scale, int32_t start,
                                        const int32_t *positions, float *out);

/*
 * Writes rows x dim float32 values (row-major, host memory) into dst in the
 * layout of type, as weights for the embedding calls: F32 copies, F16 and
 * BF16 round to nearest even; the quantized types (see sinpe_dtype) round
 * v = x / s to nearest even, where s, per row (per 32-value block for
 * Q8_0), is the largest |x| over the type's largest finite value (127,
 * 448, 57344), stored first in its own type (scales_dtype F32 or F16 for I8
 * and FP8, fp16 in Q8_0's blocks) and used as stored; v is clamped to the
 * type's range (FP8 saturates), and a scale of 0 gives zeros.  scales:
 * rows scales of scales_dtype, required for I8, optional for FP8 (NULL:
 * s = 1, the values themselves rounded), ignored otherwise.  Needs
 * dst_size >= the layout's bytes (rows * dim values; Q8_0: 34 bytes per
 * 32).  A scale that underflows to 0 gives a row (block) of zeros, a
 * subnormal one clamps the largest values; ties go to even.  ggml's own
 * Q8_0 quantizer (quantize_row_q8_0_ref) writes the same d but codes of
 * round(x * (1 / d)) from d before its rounding to fp16, ties away from
 * zero: codes one apart where the two quotients round differently (769
 * codes in 511 of 2048 blocks of random rows, make check-ggml).  Q4_0,
 * Q4_1, Q5_0 and Q5_1 are written as ggml's reference quantizer
 * (quantize_row_q4_0_ref and its kin; gguf.quants' quantize) writes them, byte for byte: per block of 32, d = max / -8
 * (-16) of the value of largest |x|, the first one (Q4_0, Q5_0), or d =
 * (max - min) / 15 (31) and m = min (Q4_1, Q5_1), then q = trunc(x * id +
 * 8.5) or trunc((x - min) * id + 0.5) with id = 1 / d in float32, clamped
 * to the codes.  The k-quants (Q4_K, Q5_K, Q6_K) are not written: their
 * tables come from GGUF files.  Errors, with nothing written:
 * SINPE_NULL_ARGUMENT, SINPE_INVALID_DTYPE (type, a k-quant, or a
 * scales_dtype other than F32 or F16), SINPE_INVALID_SHAPE (rows or dim 0;
 * a block type with dim not a multiple of 32),
 * SINPE_BUFFER_TOO_SMALL, SINPE_INVALID_OPTION (a value that is not finite,
 * or a scale that overflows fp16: an F16 row scale, a block's d or m;
 * the message names the row and block).
 */
SINPE_API sinpe_status sinpe_quantize(sinpe_dtype type, const float *src, size_t rows,
                                      size_t dim, void *dst, size_t dst_size, void *scales,
                                      sinpe_dtype scales_dtype);

/* ------------------------------------------------------------------------ */
/* Recording into a command buffer (cl_khr_command_buffer)                  */
/* ------------------------------------------------------------------------ */

/*
 * The embedding calls recorded into the host's command buffer instead of
 * enqueued, so that a replay (clEnqueueCommandBufferKHR) costs one
 * submission whatever sinpe would launch.  command_buffer is a
 * cl_command_buffer_khr in the recording state, made on queue alone, a
 * queue of the table's context and device; the launches are chained by
 * sync points after sync_points (like a wait list), and *sync_point (may
 * be NULL) is the last one's.
 *
 * Fixed when recorded: every field of args (buffer handles, offsets,
 * strides, counts, dtypes, token_scale, start, pad and shard settings),
 * the work shape, and the table's rows at that moment (or the rows a call
 * past the table makes for itself): sinpe keeps those rows alive while
 * the table lives, and if the table grows later the
 * recording still reads them and computes the other positions on the fly,
 * with the same bits.  Read at each replay: the contents of ids,
 * positions, seq_starts, pad_counts, weights and weight_scales; out is
 * written, and bad_ids incremented (zero it before each replay).  Release
 * the command buffer before the table.  Each recorded launch holds a
 * kernel object of its own (and the rows it reads) until the table is
 * released: record once, replay many times.
 *
 * Versions: sinpe records with cl_khr_command_buffer 0.9.0 to 0.9.8 and
 * 1.0.0, as the device reports it (CL_DEVICE_EXTENSIONS_WITH_VERSION).  It
 * calls clCommandNDRangeKernelKHR (queue, properties and mutable handle
 * NULL) and clGetCommandBufferInfoKHR (CL_COMMAND_BUFFER_STATE_KHR,
 * CL_COMMAND_BUFFER_NUM_QUEUES_KHR); the host makes, finalizes, enqueues
 * and releases the buffer (clCreateCommandBufferKHR,
 * clFinalizeCommandBufferKHR, clEnqueueCommandBufferKHR,
 * clReleaseCommandBufferKHR).  These six signatures and the values sinpe
 * reads are the same in all those versions; what changed around them:
 * 0.9.1 makes a second finalize an error; 0.9.2 adds
 * CL_COMMAND_BUFFER_CONTEXT_KHR; 0.9.3 drops the invalid state; 0.9.5 gives
 * the other recording commands a properties parameter (in the 2024.10
 * headers) and renames the type of clCommandNDRangeKernelKHR's, which stays
 * a list of cl_properties; 0.9.6 refuses queues with properties outside
 * CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR, and 0.9.7 checks
 * that at the replay instead of the creation and makes the buffer unordered
 * but for sync points, barriers and in-order queues (sinpe chains its
 * launches by sync points); 0.9.8 drops the pending state and leaves the
 * flag CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR to
 * cl_khr_command_buffer_mutable_dispatch.  So without that flag keep the
 * replays of one buffer in order (an in-order queue does), and before 0.9.8
 * let each finish before the buffer is enqueued again.  1.0.0 is 0.9.8 made
 * final.  A later version is refused until someone has read what it changed.
 *
 * Errors as the enqueue calls', plus: SINPE_NULL_ARGUMENT (command_buffer),
 * SINPE_INVALID_WAIT_LIST (sync points and count disagree),
 * SINPE_INVALID_OPTION when it spans several queues or is finalized,
 * SINPE_UNSUPPORTED when the device lacks cl_khr_command_buffer or reports
 * a version outside those above (the message names it; use the enqueue
 * calls there), or for position_rule FAIRSEQ (its positions need a buffer
 * of each call's own); SINPE_CONTEXT_MISMATCH for
 * a queue of another context or device.  That the command buffer was made
 * on queue is the host's to keep: not every runtime answers the query that
 * would check it (pocl 3.1 does not).  Nothing is recorded on error.
 */
struct _cl_command_buffer_khr; /* cl_command_buffer_khr of CL/cl_ext.h */
SINPE_API sinpe_status sinpe_record_embed(sinpe_table *table,
                                          cl_command_queue queue,
                                          struct _cl_command_buffer_khr *command_buffer,
                                          const sinpe_embed_args *args,
                                          cl_uint num_sync_points, const cl_uint *sync_points,
                                          cl_uint *sync_point);
SINPE_API sinpe_status sinpe_record_gather(sinpe_table *table,
                                           cl_command_queue queue,
                                           struct _cl_command_buffer_khr *command_buffer,
                                           const sinpe_embed_args *args,
                                           cl_uint num_sync_points, const cl_uint *sync_points,
                                           cl_uint *sync_point);
SINPE_API sinpe_status sinpe_record_add_positions(sinpe_table *table,
                                                  cl_command_queue queue,
                                                  struct _cl_command_buffer_khr *command_buffer,
                                                  const sinpe_embed_args *args,
                                                  cl_uint num_sync_points,
                                                  const cl_uint *sync_points,
                                                  cl_uint *sync_point);

/* ------------------------------------------------------------------------ */
/* Device functions: the encoding inside the host's own kernels             */
/* ------------------------------------------------------------------------ */

/*
 * sinpe_device_source() hands out OpenCL C 1.2 source (no extension needed
 * unless the context's math is FP64, which enables cl_khr_fp64) that a host
 * puts before its own kernel source, so that one launch of its own can read
 * the encoding, e.g. to fuse the embedding into the first LayerNorm:
 *
 *   float sinpe_pe_value(global const float *table, int rows,
 *                        global const float *consts, uint dim, int p, uint c);
 *   void  sinpe_pe_run(global const float *table, int rows,
 *                      global const float *consts, uint dim, int p, uint c,
 *                      uint n, float *dst);    // columns c .. c + n - 1
 *
 *   float2 sinpe_rope_cos_sin(global const float *table, int rows,
 *                             global const float *consts, uint rot_dim,
 *                             uint layout, int p, uint k);
 *   uint   sinpe_rope_lane(uint axes, uint4 sections, uint k);
 *
 * (dst is private memory, n may be 0: nothing written.)
 * table and rows are sinpe_table_borrow()'s buffer and row count (or any
 * count below it, down to 0: the positions past rows are computed),
 * consts is sinpe_table_constants()'s buffer, dim the spec's, p any int32
 * position, c < dim (c + n <= dim).  sinpe_rope_cos_sin() gives (cos, sin)
 * of pair k < rot_dim / 2 of a rotary table (rot_dim its R, layout its
 * sinpe_rope_layout: COS_SIN or PAIRS), the values sinpe_enqueue_rope()
 * rotates with; a host kernel rotating in registers with the header's
 * operation order (see sinpe_rope_args) gets sinpe's bits.
 * sinpe_rope_lane() gives the lane L(k) of pair k for a spec's axes and
 * sections (their values, see sinpe_rope_axes): with several lanes, p is
 * the position of that lane.  The values have the bits of
 * sinpe's table row p, and of sinpe's own kernels past the table's rows,
 * for every spec: the constants carry the spec, so one build serves every
 * table of the context.  Only reads: table and consts are never written,
 * and may alias nothing the kernel writes.  Every name the text defines
 * starts with sinpe_ or SINPE_.  It turns FP_CONTRACT off for its own
 * functions and back to the default after them; to reproduce sinpe's fused
 * output bit for bit, a host computes token_scale * e + pe (float32 e)
 * with contraction off (#pragma OPENCL FP_CONTRACT OFF), as sinpe does.
 * The program must not be built with -cl-fast-relaxed-math or
 * -cl-unsafe-math-optimizations: they let the compiler reassociate the
 * sums whose rounding errors the functions carry.
 *
 * Accuracy (these functions, the table and the fused kernels alike): the
 * value of column c at position p is sin(p * w + phase) to |error| <=
 * 1.5e-7 + 2^-53 * |p * w| against float64, where the frequency w (in
 * radians per position, angle_scale included) is the float64 number of
 * sinpe_spec: the second term is that double's own rounding carried over
 * the angle, and reaches 1e-7 only past an angle of 9e8 radians (with
 * angle_scale 1, never below p = 2^24).
 */

/*
 * Copies the device functions' source for context (its math mode and the
 * library's constants defined first) into dst, dst_size bytes with the
 * final NUL, and sets *length to its length without the NUL (also when
 * dst is too small).  dst may be NULL (with dst_size 0) to learn the
 * length.  The same text, with SINPE_FP64 0 unless the host defines it 1,
 * is installed (make install) as sinpe_device.cl next to this header.
 * The layout of the constants is the library's own and may change between
 * versions: build the functions from this text or from the sinpe_device.cl
 * installed with the same library, not from another version's.
 * Errors: SINPE_NULL_ARGUMENT (context or length; dst with dst_size > 0),
 * SINPE_BUFFER_TOO_SMALL (nothing written to dst).
 */
SINPE_API sinpe_status sinpe_device_source(const sinpe_context *context, char *dst,
                                           size_t dst_size, size_t *length);

/*
 * The constants buffer of table's spec, for the device functions: retained
 * for the caller, who must clReleaseMemObject() it; it never changes while
 * the table lives.  Errors: SINPE_NULL_ARGUMENT.
 */
SINPE_API sinpe_status sinpe_table_constants(sinpe_table *table, cl_mem *consts);

/* ------------------------------------------------------------------------ */
/* Diffusion timesteps                                                      */
/* ------------------------------------------------------------------------ */

/*
 * out[n, :] = PE(timesteps[n]) for n in [0, count), with real (fractional)
 * timesteps: the angle is t * w_k of the table's spec, w_k including
 * angle_scale (use the DIFFUSERS or GGML_TIMESTEP presets).  timesteps is float32 at
 * ts_offset; out row n at out_offset + n * out_stride (0 means dim) of
 * out_dtype.  Accurate to float32 rounding of the float64 value while
 * |t * angle_scale| < 2^24.  Errors as sinpe_enqueue_embed() (a timesteps
 * buffer smaller than ts_offset + count gives SINPE_BUFFER_TOO_SMALL).
 */
SINPE_API sinpe_status sinpe_enqueue_timesteps(sinpe_table *table, cl_command_queue queue,
                                               cl_mem timesteps, size_t ts_offset, size_t count,
                                               cl_mem out, size_t out_offset, size_t out_stride,
                                               sinpe_dtype out_dtype,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event);

/* ------------------------------------------------------------------------ */
/* Patch grids: 2-D sincos encodings                                        */
/* ------------------------------------------------------------------------ */

/*
 * The 2-D sincos encoding of a grid of rows x cols patches (MAE and ViT's
 * get_2d_sincos_pos_embed, DiT, PixArt, SD3 with pos_embed_max_size,
 * diffusers' PatchEmbed): the width D = 2 d, d the table's dim; token
 * (row i, column j), row-major, holds [PE_d(x_j) | PE_d(y_i)] (MAE's
 * meshgrid puts the columns first), PE_d the table's 1-D encoding (use the
 * MAE preset).  The positions are the float32 values diffusers forms:
 *     x_j = (float)(j + left) / (float)(G_c / base_size) / (float)interpolation_scale,
 * each division rounded to float32, G_c = cols and left = 0 (rows: y_i with
 * G_r = rows, top = 0), or with max_size the crop of a max_size x
 * max_size grid at its centre (SD3): G = max_size, top = (max_size -
 * rows) / 2, left = (max_size - cols) / 2 (integer division).  From there
 * each value is sin or cos of x w_k evaluated exactly (float32 rounding of
 * the float64 value, as sinpe_enqueue_timesteps()).  extra_tokens rows come
 * first in each sequence (class tokens): zero rows of the encoding.
 * Fields: n_seqs copies of the grid one after another (images of a batch;
 * each extra_tokens + rows * cols tokens), out row r at out_offset + r *
 * out_stride (0: D) in dtype; add 0 writes the encoding (a table), add 1
 * adds it into out (the patch embeddings, in place: out + PE in float32,
 * rounded once to dtype; the extra tokens' rows are left as they are).
 *
 * Video (CogVideoX's get_3d_sincos_pos_embed): with frame_table, a table
 * of dim d_t, the grid has frames x rows x cols tokens (frame outer, then
 * row, then column) and each row is [PE_t(z_f) | PE_d(x_j) | PE_d(y_i)],
 * D = d_t + 2 d, PE_t frame_table's 1-D encoding at z_f = (float)f /
 * (float)frame_interpolation_scale (CogVideoX-2b: embed_dim 1920 gives
 * d_t = 480 and d = 720, both MAE tables; spatial_interpolation_scale is
 * interpolation_scale, base_size 0).  A text prefix is extra_tokens (its
 * rows zero, as CogVideoX's joint table).  frames 0 means 1; frames above 1
 * need frame_table.
 */
typedef struct sinpe_grid_args {
    size_t struct_size;        /* set by sinpe_grid_args_init() */
    size_t n_seqs, rows, cols, extra_tokens;
    double base_size;          /* 0 after init: the grid's own size (positions i) */
    double interpolation_scale; /* 1 after init */
    size_t max_size;           /* 0: no crop */
    int add;
    sinpe_dtype dtype;         /* F32 after init */
    cl_mem out;
    size_t out_offset, out_stride;
    size_t frames;             /* video: frames of rows x cols (0 after init: 1) */
    sinpe_table *frame_table;  /* video: the frames' encoding table (NULL: a 2-D grid) */
    double frame_interpolation_scale; /* video: 1 after init */
} sinpe_grid_args;

SINPE_API void sinpe_grid_args_init_sized(sinpe_grid_args *args, size_t struct_size);
#define sinpe_grid_args_init(args) \
    sinpe_grid_args_init_sized((args), SINPE_STRUCT_SIZE(sinpe_grid_args))

/*
 * Enqueues the grid's encoding into (or onto) out: two launches (the
 * distinct half-rows, then the rows), or for a batch under the device's
 * record three (the half-rows, one image's fp32 encoding, the rows from
 * it).  The table keeps that image's encoding (in memory it holds for its
 * calls anyway) and the next batch of the same grid through it launches
 * the rows alone: a diffusion loop's call each step costs a plain add of
 * a precomputed table, with the same bits.  Any other call through the
 * table that needs the memory, or one from another queue while this one's
 * launches run, makes the next call compute it again.  Errors:
 * SINPE_NULL_ARGUMENT (table, args, out, frame_table with frames above 1);
 * SINPE_INVALID_SPEC (a rotary table or frame_table);
 * SINPE_CONTEXT_MISMATCH (frame_table from another context);
 * SINPE_INVALID_SHAPE naming the field (n_seqs, rows or cols 0, a
 * token count past 2^31 - 1, max_size below rows or cols, an out_stride
 * below D); SINPE_INVALID_OPTION (base_size or interpolation_scale not
 * finite, negative or zero where used, or a G / base_size that is not a
 * finite float32 above 0; frame_interpolation_scale as interpolation_scale);
 * SINPE_INVALID_DTYPE; SINPE_BUFFER_TOO_SMALL;
 * SINPE_INVALID_WAIT_LIST, SINPE_CONTEXT_MISMATCH, SINPE_INVALID_STRUCT_SIZE.
 */
SINPE_API sinpe_status sinpe_enqueue_grid(sinpe_table *table, cl_command_queue queue,
                                          const sinpe_grid_args *args,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------------ */
/* Rotary position embeddings (RoPE)                                        */
/* ------------------------------------------------------------------------ */

/*
 * Rotary embeddings rotate each pair (x1, x2) of a query or key head by
 * the angle p * w_k of the token's position p:
 *
 *     y1 = x1 cos - x2 sin,    y2 = x2 cos + x1 sin,    k = 0 .. R/2 - 1,
 *
 * where R is the rotary dimension (all of the head or its first R
 * columns; the others pass through) and cos, sin carry the attention
 * factor m of the scaling rule (cos = m cos(p w_k), sin = m sin(p w_k)).
 * Pairing: HALVES takes x1 = x[k], x2 = x[k + R/2] (GPT-NeoX, Llama, HF's
 * rotate_half); INTERLEAVED takes x1 = x[2k], x2 = x[2k + 1] (GPT-J,
 * ggml's mode 0).
 *
 * The frequencies, in float64, with e_k = 2k / R (each rule as HF
 * transformers' modeling_rope_utils defines it):
 *   DEFAULT   w_k = base^-e_k.
 *   LINEAR    w_k = base^-e_k / factor.
 *   DYNAMIC   NTK: with L = max(length, max_positions),
 *             base' = base (factor L / max_positions - (factor - 1))^(R / (R - 2)),
 *             w_k = base'^-e_k (R >= 4).
 *   YARN      extrapolated x_k = base^-e_k, interpolated i_k = x_k / factor;
 *             the correction dims d(b) = R ln(orig / (2 pi b)) / (2 ln base),
 *             lo = max(d(beta_fast), 0), hi = min(d(beta_slow), R - 1), floored
 *             and ceiled first when truncate != 0; hi += 0.001 if hi == lo;
 *             ramp_k = clamp((k - lo) / (hi - lo), 0, 1);
 *             w_k = i_k ramp_k + x_k (1 - ramp_k).  m = g(factor, mscale) /
 *             g(factor, mscale_all_dim) when both are nonzero, else
 *             g(factor, 1), where g(s, c) = 1 for s <= 1, else 0.1 c ln s + 1.
 *   LLAMA3    w_k = base^-e_k, wavelength l_k = 2 pi / w_k; l_k > orig /
 *             low_freq_factor: w_k / factor; l_k < orig / high_freq_factor:
 *             w_k; between: (1 - s) w_k / factor + s w_k with
 *             s = (orig / l_k - low_freq_factor) / (high_freq_factor - low_freq_factor).
 *             low_freq_factor == high_freq_factor (Llama 4: both 1) leaves
 *             no band between: l_k > orig / low_freq_factor gives w_k /
 *             factor, any other l_k gives w_k (HF's 0/0 at l_k exactly
 *             orig / low_freq_factor, which no float64 w_k reaches in
 *             practice, is not copied).
 *   LONGROPE  w_k = 1 / (f_k base^e_k), f = long_factor when length > orig,
 *             else short_factor (R/2 values each).  With F = factor, or
 *             max_positions / orig when factor is 0: m = 1 for F <= 1,
 *             else sqrt(1 + ln F / ln orig).
 *   PROPORTIONAL  (Gemma 4's full-attention layers; HF's "proportional"
 *             with partial_rotary_factor f: rotated_pairs = floor(f head_dim
 *             / 2), R = head_dim) w_k = base^-e_k / factor for k <
 *             rotated_pairs, w_k = 0 for the others: the exponent's
 *             denominator is the whole head, not the rotated part, and the
 *             unrotated pairs rotate by angle 0, so that cos is m and sin 0
 *             exactly at every position (they pass through unchanged with m
 *             = 1).  factor is 1 in Gemma 4.
 * orig is original_max_positions.  attention_factor, when nonzero,
 * replaces m in every rule (the rules other than YARN and LONGROPE have
 * m = 1).
 *
 * Exactness.  cos and sin are m cos(p w_k) and m sin(p w_k) evaluated
 * from the float64 w_k by sinpe's engine (as for the absolute encoding)
 * to within (1.5e-7 + 2^-53 |p w_k|) m of float64, at every int32
 * position, with the same bits in the table, on the fly, in the device
 * functions and in a replayed recording, on every device.  That is about
 * one float32 ulp of m, not the correctly rounded float32 value, since
 * the error is absolute: up to 2.4 half-ulps of a value above 1/2 with
 * m = 1, and more of its own ulps for a value well below m.  Measured
 * against long double (bench/RESULTS.md): at most 7.3e-8 with m = 1,
 * 1.22e-7 with YaRN's and LongRoPE's m of 1.14 to 1.37, 1.42e-7 with an
 * attention_factor of 1.9.  The frameworks round w_k to float32 and form
 * p w_k in float32: half an ulp of the angle, 2e-3 rad at p = 32k.  A
 * host that must match a model's float32 frequencies bit for bit passes
 * them in inv_freq (HF's RotaryEmbedding.inv_freq): the rule then gives
 * only m, and cos and sin keep the bound above, w_k being the given
 * frequencies.  The exact float64 frequencies are the default: they are
 * the published formula, the same in every host, and they are what
 * inv_freq approximates.
 *
 * Table layout (the columns of a rotary table, of R floats per position):
 *   COS_SIN     [cos_0 .. cos_{R/2-1} | sin_0 .. sin_{R/2-1}] (vLLM's
 *               cos_sin_cache, ONNX Runtime's two caches side by side)
 *   PAIRS       cos_0, sin_0, cos_1, sin_1, ... (TensorRT-LLM's float2)
 *   COS_TWICE   [cos_0 .. cos_{R/2-1} | cos_0 .. cos_{R/2-1}] (HF's cos)
 *   SIN_TWICE   the same of sin (HF's sin)
 * The rotation reads COS_SIN and PAIRS tables.
 *
 * Several positions per token (spec.axes, spec.sections).  Multimodal and
 * N-D rotary give a token up to four positions, its lanes (Qwen-VL's
 * temporal, height and width; Flux's and Wan's frame, row and column):
 * pair k rotates by the position of its lane L(k), p_L(k) w_k.  The
 * sections are the lanes' pair counts, adding up to R/2 (the lanes are 0
 * .. the last nonzero section):
 *   MROPE              blocked: pairs [0, s0) take lane 0, the next s1 lane
 *                      1, ...; w_k of the rule over all R/2 pairs (Qwen2-VL,
 *                      Qwen2.5-VL: HF's mrope_section; ggml's MROPE).
 *   MROPE_INTERLEAVED  lane l = k mod n (n lanes) when l > 0 and k < n s_l,
 *                      else lane 0; w_k over all pairs (Qwen3-VL, Qwen3.5:
 *                      HF's mrope_interleaved; ggml's IMROPE).  The counts
 *                      this gives must be the sections.
 *   AXES_ND            blocked, and each lane's section has frequencies of
 *                      its own: those of the rule for a rotary dimension of
 *                      2 s_l, the index restarting at each section (Flux's
 *                      EmbedND, HunyuanVideo, Wan, the Qwen-VL vision
 *                      towers: ggml's VISION with equal sections).  The lists
 *                      (inv_freq, short_factor, long_factor) keep R/2 values,
 *                      section by section.
 * The table of such a spec holds, at row p, every pair at position p; the
 * rotation reads pair k from the row of its lane's position, and the
 * device function sinpe_rope_lane() gives L(k).  Text tokens, whose lanes
 * hold one value, rotate as with one lane.
 */
typedef enum sinpe_rope_rule {
    SINPE_ROPE_DEFAULT = 0,
    SINPE_ROPE_LINEAR = 1,
    SINPE_ROPE_DYNAMIC = 2,
    SINPE_ROPE_YARN = 3,
    SINPE_ROPE_LLAMA3 = 4,
    SINPE_ROPE_LONGROPE = 5,
    SINPE_ROPE_PROPORTIONAL = 6
} sinpe_rope_rule;

typedef enum sinpe_rope_pairing {
    SINPE_ROPE_HALVES = 0,
    SINPE_ROPE_INTERLEAVED = 1
} sinpe_rope_pairing;

typedef enum sinpe_rope_layout {
    SINPE_ROPE_COS_SIN = 0,
    SINPE_ROPE_PAIRS = 1,
    SINPE_ROPE_COS_TWICE = 2,
    SINPE_ROPE_SIN_TWICE = 3
} sinpe_rope_layout;

typedef enum sinpe_rope_axes {
    SINPE_ROPE_ONE_AXIS = 0, /* one position per token; sections all 0 */
    SINPE_ROPE_MROPE = 1,
    SINPE_ROPE_MROPE_INTERLEAVED = 2,
    SINPE_ROPE_AXES_ND = 3
} sinpe_rope_axes;

/*
 * The lists short_factor, long_factor and inv_freq each come with their
 * count (n_short_factor, ...): a list given (not NULL) holds exactly R/2
 * values and its count says R/2; a NULL list has the count 0.  This holds
 * whatever the rule, also for a list the rule does not read, and anything
 * else is refused with SINPE_INVALID_SPEC naming the list and both numbers
 * ("spec.short_factor has 31 values; rotary dim 64 needs 32") before a
 * value is read: nothing past a count is ever read.  The values are
 * copied by the calls; the caller's arrays may go when a call returns.
 *
 * A struct of an older header, whose struct_size ends at inv_freq, has no
 * counts.  It is read as before: a list that is not NULL is taken to hold
 * R/2 values, as that header required, unchecked.  It is not refused
 * because the program was built against a header that promised exactly
 * this (the 0.x promise in the README: it keeps running, with its
 * results), and because sinpe_rope_preset() puts the phi3-longrope lists,
 * the library's own arrays of the right length, into a struct of that
 * size with nowhere to put their counts.  Rebuilding against this header
 * brings the check, and source that sets a list must then set its count:
 * a list with the count 0 is refused, not guessed at.
 */
typedef struct sinpe_rope_spec {
    size_t struct_size;            /* set by sinpe_rope_spec_init() */
    size_t rotary_dim;             /* R: even, 2 .. 65536 */
    double base;                   /* rope_theta; 10000 after init */
    sinpe_rope_rule rule;
    sinpe_rope_pairing pairing;    /* how the rotation pairs columns */
    sinpe_rope_layout layout;      /* the table's columns */
    double factor;                 /* LINEAR, DYNAMIC, YARN, LLAMA3, PROPORTIONAL (> 0); LONGROPE (>= 0) */
    size_t original_max_positions; /* YARN, LLAMA3, LONGROPE */
    size_t max_positions;          /* DYNAMIC; LONGROPE when factor is 0 */
    size_t length;                 /* DYNAMIC, LONGROPE: the sequence length */
    double beta_fast, beta_slow;   /* YARN: 32 and 1 after init */
    double mscale, mscale_all_dim; /* YARN: 0 (unset) after init */
    int truncate;                  /* YARN: 1 after init */
    double low_freq_factor, high_freq_factor; /* LLAMA3: 1 and 4 after init */
    const double *short_factor, *long_factor; /* LONGROPE: R/2 values each, or NULL */
    double attention_factor;       /* 0: the rule's m */
    const float *inv_freq;         /* R/2 frequencies to use as given, or NULL */
    /* The number of values in each list above: R/2 with the list, 0 without
       (0 after init; the presets set those of their lists). */
    size_t n_short_factor, n_long_factor, n_inv_freq;
    sinpe_rope_axes axes;          /* ONE_AXIS after init (see above) */
    size_t sections[4];            /* pairs per lane, adding up to R/2; 0 after init */
    size_t rotated_pairs;          /* PROPORTIONAL: 1 .. R/2; 0 after init */
} sinpe_rope_spec;

/* Fills spec with the DEFAULT rule, base 10000, HALVES, COS_SIN and the
 * rules' defaults above, for rotary dimension rotary_dim (not checked
 * here).  NULL is a no-op. */
SINPE_API void sinpe_rope_spec_init_sized(sinpe_rope_spec *spec, size_t rotary_dim,
                                          size_t struct_size);
#define sinpe_rope_spec_init(spec, rotary_dim) \
    sinpe_rope_spec_init_sized((spec), (rotary_dim), SINPE_STRUCT_SIZE(sinpe_rope_spec))

/*
 * Rotary presets of common model families, for a head of head_dim columns
 * (each sets rotary_dim, base, rule, pairing and the rule's parameters as
 * the family's published configuration does):
 *  LLAMA2        R = head_dim, base 10000, HALVES (also Llama 1, Mistral 7B v0.1)
 *  LLAMA3_1      base 500000, LLAMA3 factor 8, low 1, high 4, orig 8192
 *  MISTRAL       base 1000000 (Mistral 7B v0.2 and later, Mixtral)
 *  QWEN2         base 1000000 (Qwen2, Qwen2.5)
 *  QWEN2_YARN    QWEN2 with YARN factor 4, orig 32768 (Qwen2.5's long-context setting)
 *  GPT_NEOX      R = head_dim / 4 (rotary_pct 0.25), base 10000, HALVES (Pythia)
 *  GPTJ          R = 64 (rotary_dim), base 10000, INTERLEAVED (head_dim >= 64)
 *  PHI3_LONGROPE base 10000, LONGROPE orig 4096, max_positions 131072,
 *                length 131072 (the long factors; set length to the
 *                sequence's for the short ones below 4097), and the factor
 *                lists of Phi-3.5-mini-instruct (head_dim 96 only; another
 *                LONGROPE model sets its own short_factor and long_factor).
 * Several lanes (head_dim as stated, else SINPE_INVALID_SPEC):
 *  QWEN2_VL      base 1000000, MROPE sections 16, 24, 24 (head_dim 128)
 *  QWEN2_5_VL    the same (Qwen2.5-VL's text model)
 *  QWEN3_VL      base 5000000, MROPE_INTERLEAVED 24, 20, 20 (head_dim 128)
 *  QWEN3_5       R = 64 (partial 0.25 of head_dim 256), base 10000000,
 *                MROPE_INTERLEAVED 11, 11, 10
 *  QWEN2_VL_VISION  the vision tower's 2-D rope: R = head_dim, base 10000,
 *                AXES_ND head_dim/4, head_dim/4 (rows, columns), HALVES
 *  FLUX          AXES_ND 8, 28, 28 (axes_dim 16, 56, 56), base 10000,
 *                INTERLEAVED (head_dim 128)
 *  HUNYUAN_VIDEO the same with base 256
 *  WAN           AXES_ND c - 2 floor(c/3), floor(c/3), floor(c/3) with
 *                c = head_dim / 2 (frame, row, column), base 10000,
 *                INTERLEAVED (Wan 2.x)
 *  COGVIDEOX     AXES_ND head_dim/8, 3 head_dim/16, 3 head_dim/16 (frame,
 *                row, column: diffusers' get_3d_rotary_pos_embed, a
 *                quarter of the head for time, 3/8 for each spatial axis),
 *                base 10000, INTERLEAVED (CogVideoX-5b and 1.5: head_dim
 *                64; head_dim a multiple of 16).  Its integer grids only:
 *                the linspace positions of a crop that is not the base
 *                resolution are fractions, which the rotation does not take.
 */
typedef enum sinpe_rope_preset {
    SINPE_ROPE_PRESET_LLAMA2 = 1,
    SINPE_ROPE_PRESET_LLAMA3_1 = 2,
    SINPE_ROPE_PRESET_MISTRAL = 3,
    SINPE_ROPE_PRESET_QWEN2 = 4,
    SINPE_ROPE_PRESET_QWEN2_YARN = 5,
    SINPE_ROPE_PRESET_GPT_NEOX = 6,
    SINPE_ROPE_PRESET_GPTJ = 7,
    SINPE_ROPE_PRESET_PHI3_LONGROPE = 8,
    SINPE_ROPE_PRESET_QWEN2_VL = 9,
    SINPE_ROPE_PRESET_QWEN2_5_VL = 10,
    SINPE_ROPE_PRESET_QWEN3_VL = 11,
    SINPE_ROPE_PRESET_QWEN3_5 = 12,
    SINPE_ROPE_PRESET_QWEN2_VL_VISION = 13,
    SINPE_ROPE_PRESET_FLUX = 14,
    SINPE_ROPE_PRESET_HUNYUAN_VIDEO = 15,
    SINPE_ROPE_PRESET_WAN = 16,
    SINPE_ROPE_PRESET_COGVIDEOX = 17
} sinpe_rope_preset;

/* Fills spec for preset and head_dim.  Errors: SINPE_NULL_ARGUMENT,
 * SINPE_UNKNOWN_PRESET, SINPE_INVALID_SPEC (a head_dim that gives an odd
 * or zero R), SINPE_INVALID_STRUCT_SIZE. */
SINPE_API sinpe_status sinpe_rope_preset_sized(sinpe_rope_spec *spec, sinpe_rope_preset preset,
                                               size_t head_dim, size_t struct_size);
#define sinpe_rope_preset(spec, preset, head_dim) \
    sinpe_rope_preset_sized((spec), (preset), (head_dim), SINPE_STRUCT_SIZE(sinpe_rope_spec))

/* The name of a rotary preset ("llama3.1"), or NULL for an unknown value. */
SINPE_API const char *sinpe_rope_preset_name(sinpe_rope_preset preset);

/*
 * The rule's frequencies w_k (R/2 doubles into freqs, which may be NULL)
 * and attention factor m (into *attention, which may be NULL): what a
 * table of spec computes from.  Errors: SINPE_NULL_ARGUMENT,
 * SINPE_INVALID_SPEC, SINPE_INVALID_STRUCT_SIZE.
 */
SINPE_API sinpe_status sinpe_rope_frequencies(const sinpe_rope_spec *spec, double *freqs,
                                              double *attention);

/*
 * The rotary table of spec: a sinpe_table of R columns in spec.layout,
 * rows [0, n), n >= rows, cached per context and table contents (two specs
 * with the same frequencies, factor and layout share a table; the lists
 * and inv_freq are copied, the caller's arrays may go after the call).
 * sinpe_table_reserve(), sinpe_table_borrow(), sinpe_table_rows(),
 * sinpe_enqueue_table_rows() (the cache in F32, F16 or BF16, one
 * rounding), sinpe_table_constants() and sinpe_table_release() take it as
 * any table; the embedding calls, sinpe_enqueue_timesteps() and
 * sinpe_table_spec() refuse it (SINPE_INVALID_SPEC).  Errors: as
 * sinpe_table_create(), and SINPE_INVALID_SPEC naming the field: R odd,
 * zero or over 65536; base not finite or <= 1; a rule or layout out of
 * range; factor <= 0 or not finite where the rule needs it; DYNAMIC with
 * R < 4 or max_positions 0; YARN or LLAMA3 or LONGROPE without
 * original_max_positions; beta_fast <= beta_slow; low_freq_factor >
 * high_freq_factor or <= 0; PROPORTIONAL with rotated_pairs 0 or over
 * R/2, or with AXES_ND; LONGROPE lists missing or holding a value that
 * is not finite and > 0; a list whose count is not R/2, or a count without
 * its list (see sinpe_rope_spec); an attention_factor or inv_freq value that
 * is not finite and >= 0 (inv_freq: > 0); any NaN.
 */
SINPE_API sinpe_status sinpe_rope_table_create(sinpe_context *context,
                                               const sinpe_rope_spec *spec, size_t rows,
                                               sinpe_table **table);

/*
 * A model's rotary rules, layer by layer.  Models give their layers
 * different rotary parameters (HF transformers v5: rope_parameters per
 * layer_types entry), leave some layers unrotated, or ask the host to
 * change its softmax scale or its queries.  sinpe_rope_model_layer() fills,
 * for layer i (from 0) of a model, the sinpe_rope_spec of the layer and a
 * sinpe_rope_layer with the rest; sinpe_rope_model_type() does the same
 * for the first layer of a type.  The models, from their published
 * configurations as HF transformers' model files read them (i is the layer
 * index; every spec HALVES unless said, R = head_dim unless said):
 *
 *  QWEN3         Qwen3-8B: 36 layers, all FULL; head_dim 128, DEFAULT,
 *                base 1000000.
 *  GEMMA3        gemma-3-27b: 62 layers; head_dim 128; (i + 1) % 6 == 0:
 *                FULL, LINEAR factor 8, base 1000000 (the scaling on these
 *                layers only); else SLIDING (window 1024), DEFAULT, base
 *                10000 (rope_local_base_freq).
 *  GEMMA4        HF main's Gemma4TextConfig defaults (the class documents
 *                google/gemma-4-e2b-it; a checkpoint whose config.json sets
 *                other layers or heads takes the route below): 30 layers;
 *                (i + 1) % 6 == 0 or the last layer: FULL, head_dim 512
 *                (global_head_dim), PROPORTIONAL, base 1000000, factor 1,
 *                rotated_pairs 64 (partial_rotary_factor 0.25); else
 *                SLIDING (window 512), head_dim 256, DEFAULT, base 10000.
 *  DEEPSEEK_V3   DeepSeek-V3: 61 layers, all FULL; q heads of head_dim 192
 *                whose columns [128, 192) rotate (rotary_offset 128, R 64 =
 *                qk_rope_head_dim; the key's rotated part is the 64 columns
 *                after kv_lora_rank in kv_a_proj's output, one for all
 *                heads); YARN base 10000, factor 40, orig 4096, beta 32 and
 *                1, mscale 1, mscale_all_dim 1 (so m = 1), INTERLEAVED (HF's
 *                rope_interleave: HF writes pair k to columns k and k + R/2,
 *                sinpe to 2k and 2k + 1, the same permutation of q and k,
 *                so the same attention scores); softmax_factor g(40, 1)^2 =
 *                (0.1 ln 40 + 1)^2 = 1.8738...
 *  GPT_OSS       gpt-oss-120b (gpt-oss-20b the same but 24 layers): 36
 *                layers; i even: SLIDING (window 128), i odd: FULL;
 *                head_dim 64, YARN base 150000, factor 32, orig 4096, beta
 *                32 and 1, truncate 0 (m = g(32, 1) = 1.3466).
 *  LLAMA4_SCOUT  Llama-4-Scout-17B-16E: 48 layers; head_dim 128; (i + 1) %
 *                4 == 0: FULL, rotates 0 (NoPE), temperature 1 with
 *                attn_scale 0.1 and floor_scale 8192; else CHUNKED (window
 *                8192), LLAMA3 base 500000, factor 16, low 1, high 1, orig
 *                8192, INTERLEAVED (HF's complex pairs).  The spec of a NoPE
 *                layer is the model's, filled but not to be applied.
 *
 * softmax_factor is what the host multiplies its softmax scale by (1 but
 * for DeepSeek: see sinpe_rope_softmax_factor()).  With temperature, the
 * layer's queries are multiplied by sinpe_rope_temperature() at their
 * position (HF's Llama4TextAttention applies it on the NoPE layers only,
 * which have no q/k norm, to q before the scores).
 *
 * A host whose configuration differs (another layer count, pattern or
 * head_dim: gemma-3-4b's head_dim 256 and 34 layers, gpt-oss-20b's 24
 * layers) takes the spec of the layer type from sinpe_rope_model_type()
 * and changes rotary_dim (DEFAULT, LINEAR, YARN and LLAMA3 depend on R
 * alone; PROPORTIONAL: R = head_dim and rotated_pairs = floor(f head_dim /
 * 2)), or fills a spec from its own config by the rules above (its
 * rope_parameters per layer type; HF's rope_type names the rule); its
 * layer types follow its layer_types list; softmax_factor is
 * sinpe_rope_softmax_factor() of the spec; the temperature is
 * sinpe_rope_temperature() with its own attn_scale and floor_scale, on the
 * layers whose no_rope_layers entry is 0.
 */
typedef enum sinpe_rope_model {
    SINPE_ROPE_MODEL_QWEN3 = 1,
    SINPE_ROPE_MODEL_GEMMA3 = 2,
    SINPE_ROPE_MODEL_GEMMA4 = 3,
    SINPE_ROPE_MODEL_DEEPSEEK_V3 = 4,
    SINPE_ROPE_MODEL_GPT_OSS = 5,
    SINPE_ROPE_MODEL_LLAMA4_SCOUT = 6
} sinpe_rope_model;

/* HF's layer_types: full_attention, sliding_attention, chunked_attention. */
typedef enum sinpe_layer_type {
    SINPE_LAYER_FULL = 0,
    SINPE_LAYER_SLIDING = 1,
    SINPE_LAYER_CHUNKED = 2
} sinpe_layer_type;

/* What a layer asks of the host besides its spec (filled by the library;
 * struct_size first as in the other structs, set by the calls' macros). */
typedef struct sinpe_rope_layer {
    size_t struct_size;
    size_t layers;           /* the model's layer count */
    sinpe_layer_type type;
    size_t window;           /* SLIDING: the window; CHUNKED: the chunk; FULL: 0 */
    int rotates;             /* 0: a NoPE layer, q and k not rotated */
    size_t head_dim;         /* the q and k head width of the layer */
    size_t rotary_offset;    /* the first rotated column of a q head (R columns from it) */
    double softmax_factor;   /* the host's softmax scale times this */
    int temperature;         /* 1: q times sinpe_rope_temperature() at its position */
    double attn_scale, floor_scale; /* the temperature's parameters (0 without) */
} sinpe_rope_layer;

/* Fills spec and info for layer (from 0) of model.  Errors:
 * SINPE_NULL_ARGUMENT (spec, info), SINPE_UNKNOWN_PRESET (model),
 * SINPE_INVALID_SHAPE (layer not below the model's count),
 * SINPE_INVALID_STRUCT_SIZE; on failure nothing is written. */
SINPE_API sinpe_status sinpe_rope_model_layer_sized(sinpe_rope_model model, size_t layer,
                                                    sinpe_rope_spec *spec, size_t spec_size,
                                                    sinpe_rope_layer *info, size_t info_size);
#define sinpe_rope_model_layer(model, layer, spec, info)                                    \
    sinpe_rope_model_layer_sized((model), (layer), (spec), SINPE_STRUCT_SIZE(sinpe_rope_spec), \
                                 (info), SINPE_STRUCT_SIZE(sinpe_rope_layer))

/* The same for the first layer of type; SINPE_INVALID_OPTION when type is
 * not a sinpe_layer_type or the model has no layer of it. */
SINPE_API sinpe_status sinpe_rope_model_type_sized(sinpe_rope_model model, sinpe_layer_type type,
                                                   sinpe_rope_spec *spec, size_t spec_size,
                                                   sinpe_rope_layer *info, size_t info_size);
#define sinpe_rope_model_type(model, type, spec, info)                                    \
    sinpe_rope_model_type_sized((model), (type), (spec), SINPE_STRUCT_SIZE(sinpe_rope_spec), \
                                (info), SINPE_STRUCT_SIZE(sinpe_rope_layer))

/* The name of a model ("gemma3", "deepseek-v3"), or NULL for an unknown value. */
SINPE_API const char *sinpe_rope_model_name(sinpe_rope_model model);

/*
 * The factor by which the host multiplies its softmax scale for spec, in
 * float64 (HF's DeepseekV3Attention): g(factor, mscale_all_dim)^2 for a
 * YARN spec with mscale_all_dim nonzero (g as under YARN above), else 1.
 * With the m of the YARN rule this splits DeepSeek's scaling: cos and sin
 * carry g(factor, mscale) / g(factor, mscale_all_dim), the scores the
 * square of the denominator.  Errors: SINPE_NULL_ARGUMENT (spec, factor),
 * SINPE_INVALID_SPEC (as sinpe_rope_frequencies()),
 * SINPE_INVALID_STRUCT_SIZE.
 */
SINPE_API sinpe_status sinpe_rope_softmax_factor(const sinpe_rope_spec *spec, double *factor);

/*
 * Llama 4's attention temperature at integer position p, in float64:
 *     t(p) = ln(n + 1) attn_scale + 1,   n = floor((p + 1) / floor_scale),
 * n the exact floor of the real quotient (corrected by fused multiply-add
 * where the float64 division rounds up to an integer), ln by libm's log1p.
 * HF's Llama4TextAttention computes the same in float32 from cache_position.
 * Defined for every int32 p: p + 1 is exact, and for p < -1, where n < 0 and
 * the logarithm has no value (no model has such positions), n is taken as
 * 0, giving 1.  Errors: SINPE_NULL_ARGUMENT (factor), SINPE_INVALID_SPEC
 * (attn_scale not finite, floor_scale not finite or <= 0); *factor is
 * untouched on failure.
 */
SINPE_API sinpe_status sinpe_rope_temperature(int32_t position, double attn_scale,
                                              double floor_scale, double *factor);

/*
 * Arguments of sinpe_enqueue_rope(); fill with sinpe_rope_args_init().
 * Offsets, strides and counts are in elements of dtype (F32, F16 or BF16,
 * for q, k and the outputs alike).  Tokens form n_seqs sequences of
 * seq_len; token (b, t) is row r = b * seq_len + t.
 *
 *  q        q_heads heads of head_dim: head h of token r at
 *           q_offset + r * q_stride + h * head_dim (q_stride 0 means
 *           q_heads * head_dim).
 *  k        kv_heads heads, the same with k_ (kv_heads may be 0: q alone;
 *           q_heads may be 0: k alone).  q and k may lie in one buffer (a
 *           packed QKV row), but their regions must not overlap.
 *  q_out    NULL: q is rotated in place, and its columns R .. head_dim - 1
 *           are not touched.  Else rotated q is written there (same
 *           indexing with q_out_), the other columns copied; q is only read.
 *  k_out    the same for k.  k_rows (optional, cl_int per token at
 *           k_rows_offset + r, with k_out): token r's keys go to row
 *           k_rows[r] of k_out instead of row r (vLLM's slot_mapping, for a
 *           key cache); a negative value, or one at or past k_out_rows,
 *           skips the token's keys: nothing is written for them, no error
 *           is raised, and k_out is never written past k_out_rows rows.
 *  position of token (b, t), int32 arithmetic wrapping modulo 2^32:
 *           start + t, or start + positions[positions_offset + r] with
 *           positions, plus seq_starts[seq_starts_offset + b] with
 *           seq_starts.  Any value is valid: positions past the table's
 *           rows (or negative) are computed on the fly with the same bits.
 *           A table of n > 1 lanes (spec.sections) reads lane l of token r
 *           at positions[positions_offset + l * lane_stride + r] (lane_stride
 *           0: the tokens' count, HF's position_ids [3, batch, seq] and
 *           ggml's four lanes of n_tokens; lane_stride >= the tokens'
 *           count), start and seq_starts added to every lane (seq_starts:
 *           HF's rope_deltas in decode); without positions every lane is
 *           start + t.  Or, with grid_rows and grid_cols (and positions
 *           NULL), from the token's place on a grid: g = t - grid_start,
 *           column g mod grid_cols on the last lane, row (g / grid_cols)
 *           mod grid_rows on the one before, frame g / (grid_rows
 *           grid_cols) before that, 0 on a lane before those (Flux's and
 *           Wan's patches, the Qwen-VL vision tower's rows and columns),
 *           plus start and seq_starts; tokens t < grid_start (a text prefix)
 *           take start on every lane (Flux's zero text ids).  The tokens past
 *           grid_start make whole frames.
 *  cos_sin  (optional) each token's cos and sin as the rotation uses them,
 *           pair k from its lane's position: R values of dtype per token at
 *           cos_sin_offset + r * cos_sin_stride (0 means R), in
 *           cos_sin_layout (COS_SIN after init; PAIRS; COS_TWICE or
 *           SIN_TWICE give HF's cos or sin, one call each).  For a host's own
 *           kernels: the cos/sin tables of a lane-position triple (HF's
 *           Qwen2-VL cos and sin after the sections are applied, vLLM's
 *           cos_sin_cache rows per token).  With cos_sin, q_heads and kv_heads
 *           may both be 0: the call writes cos_sin alone.
 *
 * The operation, per pair: cos and sin are read (or computed) in float32,
 * the stored x1 and x2 are widened to float32, y1 = fma(x1, cos, -(x2 * sin))
 * and y2 = fma(x2, cos, x1 * sin) are formed with each product and fma
 * rounded in float32, then y1 and y2 are rounded once to dtype (to nearest
 * even).  The same on every device.
 */
typedef struct sinpe_rope_args {
    size_t struct_size; /* set by sinpe_rope_args_init() */
    size_t n_seqs, seq_len;
    size_t head_dim;
    sinpe_dtype dtype;  /* SINPE_F32 after init */
    cl_mem q;      size_t q_offset;      size_t q_stride;      size_t q_heads;
    cl_mem k;      size_t k_offset;      size_t k_stride;      size_t kv_heads;
    cl_mem q_out;  size_t q_out_offset;  size_t q_out_stride;
    cl_mem k_out;  size_t k_out_offset;  size_t k_out_stride;
    cl_mem k_rows; size_t k_rows_offset; size_t k_out_rows; /* k_out's rows with k_rows */
    cl_int start;
    cl_mem positions;  size_t positions_offset;
    cl_mem seq_starts; size_t seq_starts_offset;
    size_t lane_stride; /* a table of several lanes: 0 means n_seqs * seq_len */
    size_t grid_rows, grid_cols, grid_start; /* lanes from a grid (see above); 0: none */
    cl_mem cos_sin;     size_t cos_sin_offset; size_t cos_sin_stride; /* optional, see above */
    sinpe_rope_layout cos_sin_layout;
} sinpe_rope_args;

/* Fills args with the defaults: every buffer NULL, every count, offset and
 * stride 0, F32, start 0.  NULL is a no-op. */
SINPE_API void sinpe_rope_args_init_sized(sinpe_rope_args *args, size_t struct_size);
#define sinpe_rope_args_init(args) \
    sinpe_rope_args_init_sized((args), SINPE_STRUCT_SIZE(sinpe_rope_args))

/*
 * Rotates q and k by the rotary table's cos and sin, in one launch.
 * Non-blocking, as clEnqueue* calls.  Errors: SINPE_NULL_ARGUMENT (table,
 * args, q with q_heads, k with kv_heads); SINPE_INVALID_SPEC (table is not
 * a rotary table, or its layout is COS_TWICE or SIN_TWICE);
 * SINPE_INVALID_SHAPE naming the field (n_seqs or seq_len 0, no heads
 * and no cos_sin, head_dim below R, a stride below its heads' width (or
 * cos_sin_stride below R), tokens or
 * start + seq_len - 1 over 2^31 - 1, k_rows without k_out);
 * SINPE_INVALID_OPTION (cos_sin_layout not a sinpe_rope_layout);
 * SINPE_INVALID_DTYPE; SINPE_BUFFER_TOO_SMALL (a buffer smaller than its
 * offset and extent; k_out is checked for k_out_rows rows with k_rows);
 * SINPE_BUFFERS_OVERLAP (two of the regions q, k, q_out, k_out, cos_sin in one
 * buffer share an element, other than q with q_out or k with k_out
 * exactly, which is in place); SINPE_INVALID_WAIT_LIST,
 * SINPE_CONTEXT_MISMATCH, SINPE_INVALID_STRUCT_SIZE.  Sub-buffers of one
 * buffer are the host's to keep apart.
 */
SINPE_API sinpe_status sinpe_enqueue_rope(sinpe_table *table, cl_command_queue queue,
                                          const sinpe_rope_args *args,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* sinpe_enqueue_rope() recorded into a command buffer, as
 * sinpe_record_embed() (the same rules and errors). */
SINPE_API sinpe_status sinpe_record_rope(sinpe_table *table, cl_command_queue queue,
                                         struct _cl_command_buffer_khr *command_buffer,
                                         const sinpe_rope_args *args,
                                         cl_uint num_sync_points, const cl_uint *sync_points,
                                         cl_uint *sync_point);

/*
 * The attention input stage in one launch: from the projections' q, k and
 * v, a per-head norm of q and k, the rotation, the temperature of q, then
 * q written in place or to q_out and k and v written into the host's key
 * and value cache rows.  Fill with sinpe_attn_input_args_init().  Offsets
 * and strides of q, k, v and q_out are in elements of dtype (F32, F16 or
 * BF16), as in sinpe_rope_args: head h of token r of q at q_offset + r *
 * q_stride + h * head_dim (stride 0: the heads' width), k and v with
 * kv_heads heads; q, k and v may lie in one buffer (a packed QKV row),
 * their regions apart.  Tokens, positions (start, positions, seq_starts,
 * lanes, grid) and the table's rule, pairing and lanes are those of
 * sinpe_rope_args.  head_dim <= 512.
 *
 * The cache: k_cache and v_cache hold cache_rows rows of kv_heads x
 * head_dim values of cache_dtype (F32, F16, BF16, or Q8_0: ggml's
 * block_q8_0, 34 bytes per 32 values, head_dim a multiple of 32), head h
 * of row s at k_cache_offset + (s * kv_heads + h) * head_dim (offsets in
 * values, for Q8_0 a multiple of 32).  vLLM's paged [blocks, block_size,
 * kv_heads, head_dim] is these rows with s = block * block_size + offset.
 * Token r goes to row slot_mapping[slot_mapping_offset + r] (cl_int; NULL:
 * row r); a negative slot, or one at or past cache_rows, skips the token's
 * k and v (nothing written, no error; as rope's k_rows).  kv_heads 0: no k
 * and v (q alone).
 *
 * Order of operations, per head (each step in float32, its result rounded
 * to dtype before the next step; the last step's result rounded once to
 * the destination type: dtype for q, cache_dtype for k, Q8_0 from float32):
 *   1. x, the stored value, widened to float32.
 *   2. norm (norm_after 0): y_c = x_c * w'_c / sqrt(S / head_dim + eps),
 *      S = sum of x_c^2 over the head's head_dim columns as double-floats
 *      (each square exact by fma, each sum by two-sum) in 32 lanes, lane
 *      l summing columns l, l + 32, ... in order, the lanes then added as
 *      a tree (lane l plus lane l + s for l < s, s = 16, 8, 4, 2, 1;
 *      device.cl's sinpe_norm_merge());
 *      S / head_dim + eps and the reciprocal root as double-floats (eps
 *      rounded to float32 first; 1 / head_dim rounded to nearest; three
 *      float32 Newton steps from an exponent halving, then one in
 *      double-float: additions, products and fma only, so the same bits on
 *      every device; device.cl's sinpe_norm_scale()); x_c w'_c exact as a
 *      double-float; one rounding at the end.  w'_c = w_c (RMS,
 *      Qwen3RMSNorm), 1 + w_c (RMS_GEMMA, Gemma3RMSNorm), 1 (L2, Llama 4's
 *      weightless L2Norm, which is also a mean).  Bound: |y - y64| <= one
 *      float32 ulp of y64 (the float64 value of the same formula with eps
 *      and w as float32; measured: half an ulp), for means of squares in
 *      float32's normal range (a mean of 0 gives inf or NaN as HF's rsqrt).
 *   3. the rotation (rotate 1) of the R columns [rotary_offset,
 *      rotary_offset + R) of each q and k head, exactly
 *      sinpe_enqueue_rope()'s on that slice: y1 = fma(x1, cos, -(x2 sin)),
 *      y2 = fma(x2, cos, x1 sin) with the table's cos and sin, pair k of
 *      the table's pairing at slice columns (k, k + R/2) or (2k, 2k + 1);
 *      the other columns unchanged.  rotary_offset is sinpe_rope_layer's
 *      (DeepSeek-V3: head_dim 192, rotary_offset 128, R 64, the q head
 *      [q_nope | q_pe] and the key [k_nope | k_pe] rotating q_pe and k_pe
 *      alone); 0, the default, rotates the first R columns.  rotate 0 is
 *      a NoPE layer: no rotation, the table not read (any rotary table of
 *      the context is passed), rotary_offset not read.
 *   4. norm (norm_after 1, Llama 4's order): as 2.
 *   5. q only, temperature 1: q_c * tau(p) rounded in float32, tau(p) =
 *      log1p(n) * attn_scale + 1 in float32 (attn_scale rounded to
 *      float32), n = floor((p + 1) / floor_scale) exact in integers (0 for
 *      p < -1), p the token's position (lane 0); floor_scale an integer in
 *      [1, 2^31 - 1] (n rounded to float32 past 2^24).  The device's
 *      log1p (OpenCL: 2 ulp) makes tau within 2^-21 tau of
 *      sinpe_rope_temperature(): the one step whose bits may differ
 *      between devices.
 * v is converted from dtype to cache_dtype (one rounding).  A Q8_0 block
 * of 32 values x takes d = max |x| / 127 rounded to fp16 (to nearest even)
 * and q = x / d rounded to nearest even within [-127, 127] (0 where d is
 * 0): sinpe_quantize()'s definition, the same bytes from the same floats.
 * Every step the same on every device but tau.
 */
typedef enum sinpe_qk_norm {
    SINPE_QK_NORM_NONE = 0,
    SINPE_QK_NORM_RMS = 1,       /* x / rms(x) * w         (Qwen3, OLMo 2) */
    SINPE_QK_NORM_RMS_GEMMA = 2, /* x / rms(x) * (1 + w)   (Gemma 3, 4)     */
    SINPE_QK_NORM_L2 = 3         /* x / rms(x), no weight  (Llama 4)        */
} sinpe_qk_norm;

typedef struct sinpe_attn_input_args {
    size_t struct_size; /* set by sinpe_attn_input_args_init() */
    size_t n_seqs, seq_len;
    size_t head_dim;
    sinpe_dtype dtype;  /* q, k, v, q_out: F32 after init */
    cl_mem q;      size_t q_offset;      size_t q_stride;      size_t q_heads;
    cl_mem k;      size_t k_offset;      size_t k_stride;      size_t kv_heads;
    cl_mem v;      size_t v_offset;      size_t v_stride;
    cl_mem q_out;  size_t q_out_offset;  size_t q_out_stride; /* NULL: q in place */
    int rotate;          /* 1 after init; 0: a NoPE layer */
    sinpe_qk_norm norm;  /* NONE after init */
    int norm_after;      /* 0: norm, then rotation (Qwen3, Gemma); 1: after (Llama 4) */
    double eps;          /* 1e-6 after init; finite, >= 0 */
    cl_mem q_norm_weight; size_t q_norm_weight_offset; /* head_dim F32 (RMS, RMS_GEMMA) */
    cl_mem k_norm_weight; size_t k_norm_weight_offset;
    int temperature;     /* 1: q times tau(p) (step 5) */
    double attn_scale, floor_scale;
    cl_mem slot_mapping; size_t slot_mapping_offset;
    cl_mem k_cache;      size_t k_cache_offset;
    cl_mem v_cache;      size_t v_cache_offset;
    size_t cache_rows;
    sinpe_dtype cache_dtype; /* F32 after init; F16, BF16, Q8_0 */
    cl_int start;
    cl_mem positions;  size_t positions_offset;
    cl_mem seq_starts; size_t seq_starts_offset;
    size_t lane_stride;
    size_t grid_rows, grid_cols, grid_start;
    size_t rotary_offset; /* the first rotated column of a q and k head (0 after init) */
} sinpe_attn_input_args;

/* Fills args with the defaults: every buffer NULL, every count, offset and
 * stride 0, F32 (dtype and cache_dtype), rotate 1, norm NONE, eps 1e-6,
 * start 0, rotary_offset 0.  NULL is a no-op. */
SINPE_API void sinpe_attn_input_args_init_sized(sinpe_attn_input_args *args, size_t struct_size);
#define sinpe_attn_input_args_init(args) \
    sinpe_attn_input_args_init_sized((args), SINPE_STRUCT_SIZE(sinpe_attn_input_args))

/*
 * Runs the stage in one launch on a rotary table.  Non-blocking.  Errors,
 * each naming the argument, with nothing enqueued and nothing written:
 * SINPE_NULL_ARGUMENT (table, args, q with q_heads, k, v, k_cache and
 * v_cache with kv_heads, a norm weight its norm reads); SINPE_INVALID_SPEC
 * (not a rotary table, or its layout COS_TWICE or SIN_TWICE);
 * SINPE_INVALID_SHAPE (n_seqs or seq_len 0, no heads, head_dim 0, above
 * 512, below R with rotate, or not a multiple of 32 with Q8_0;
 * rotary_offset + R above head_dim with rotate, naming rotary_offset; a stride
 * below its heads' width; cache_rows 0 with kv_heads; a Q8_0 cache offset
 * not a multiple of 32; positions as sinpe_enqueue_rope()); SINPE_INVALID_OPTION
 * (norm not a sinpe_qk_norm; eps not finite or negative; attn_scale not
 * finite, floor_scale not an integer in [1, 2^31 - 1] with temperature);
 * SINPE_INVALID_DTYPE (dtype; cache_dtype not F32, F16, BF16 or Q8_0);
 * SINPE_BUFFER_TOO_SMALL (a buffer smaller than its offset and extent: a
 * norm weight below head_dim floats, slot_mapping below one cl_int per
 * token, a cache below cache_rows rows); SINPE_BUFFERS_OVERLAP (two of q,
 * k, v, q_out, k_cache, v_cache sharing an element in one buffer, other
 * than q_out exactly q, which is in place); SINPE_INVALID_WAIT_LIST,
 * SINPE_CONTEXT_MISMATCH, SINPE_INVALID_STRUCT_SIZE.
 */
SINPE_API sinpe_status sinpe_enqueue_attn_input(sinpe_table *table, cl_command_queue queue,
                                                const sinpe_attn_input_args *args,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/* sinpe_enqueue_attn_input() recorded into a command buffer, as
 * sinpe_record_rope() (the same rules and errors). */
SINPE_API sinpe_status sinpe_record_attn_input(sinpe_table *table, cl_command_queue queue,
                                               struct _cl_command_buffer_khr *command_buffer,
                                               const sinpe_attn_input_args *args,
                                               cl_uint num_sync_points, const cl_uint *sync_points,
                                               cl_uint *sync_point);

/*
 * Multimodal positions: the lanes of a Qwen-VL prompt, as HF transformers'
 * get_rope_index lays them out, for a rotation of several lanes (the
 * presets QWEN2_VL, QWEN2_5_VL, QWEN3_VL, QWEN3_5).  On the host: the
 * token ids come from the host's own tokenizer and processor.
 *
 * Per sequence, over its tokens whose mask is 1 (all without a mask), in
 * order: text takes position s + i on every lane, s one past the largest
 * position before it (0 first); a vision block (an image, or a video, at
 * the first image or video token from here, whichever comes first, the
 * grids taken in order across the batch) of grid t x h x w (patches) is
 * t h w / m^2 tokens (m the spatial_merge_size) at lanes (s + T(f), s + y,
 * s + x) for frame f, row y < h/m, column x < w/m, row-major, with
 * T(f) = f (QWEN2_VL, QWEN3_VL), or for QWEN2_5_VL floor(f *
 * second_per_grid[v] * tokens_per_second) in float64 for video v
 * (second_per_grid 1 by default) and 0 for an image (transformers' rule
 * since its fix of fractional intervals, PR 48669; 4.57 truncated
 * second_per_grid first); QWEN3_VL takes a video of t frames as t blocks of one frame (its
 * processor puts a timestamp between them).  Masked tokens get 1 on every
 * lane; deltas[b] = the largest position + 1 - seq_len (HF's
 * rope_deltas: a decode step of sequence b at cache length c rotates at
 * c + deltas[b] on every lane: start = c, seq_starts = deltas).
 */
typedef enum sinpe_mrope_rule {
    SINPE_MROPE_QWEN2_VL = 0,
    SINPE_MROPE_QWEN2_5_VL = 1,
    SINPE_MROPE_QWEN3_VL = 2
} sinpe_mrope_rule;

typedef struct sinpe_mrope_prompt {
    size_t struct_size;             /* set by sinpe_mrope_prompt_init() */
    sinpe_mrope_rule rule;
    size_t n_seqs, seq_len;
    const int32_t *ids;             /* [n_seqs, seq_len] token ids */
    const int32_t *mask;            /* [n_seqs, seq_len] 1 or 0, or NULL: all 1 */
    int32_t image_token, video_token;
    const int32_t *image_grid_thw;  /* [n_images, 3] (t, h, w) in patches */
    size_t n_images;
    const int32_t *video_grid_thw;  /* [n_videos, 3] */
    size_t n_videos;
    const double *second_per_grid;  /* QWEN2_5_VL: n_videos values, or NULL: 1 */
    double tokens_per_second;       /* QWEN2_5_VL: 2 after init */
    size_t spatial_merge_size;      /* m: 2 after init */
} sinpe_mrope_prompt;

SINPE_API void sinpe_mrope_prompt_init_sized(sinpe_mrope_prompt *prompt, size_t struct_size);
#define sinpe_mrope_prompt_init(prompt) \
    sinpe_mrope_prompt_init_sized((prompt), SINPE_STRUCT_SIZE(sinpe_mrope_prompt))

/*
 * Writes the three lanes of every token to lanes[l * n_seqs * seq_len + b *
 * seq_len + t] (HF's position_ids [3, batch, seq]; lane_stride 0 for
 * sinpe_enqueue_rope()) and, unless deltas is NULL, deltas[b].  Errors:
 * SINPE_NULL_ARGUMENT (prompt, ids, lanes, a grid list with a count);
 * SINPE_INVALID_OPTION (rule); SINPE_INVALID_SHAPE naming the argument
 * (n_seqs or seq_len 0; spatial_merge_size 0; a grid value below 1, or h
 * or w not a multiple of m; a block that runs past its sequence's tokens or
 * holds other tokens than its own; more blocks than grids; a position past
 * 2^31 - 1; tokens_per_second or a second_per_grid value negative or not
 * finite).  Nothing is written on an error.
 */
SINPE_API sinpe_status sinpe_mrope_positions(const sinpe_mrope_prompt *prompt, int32_t *lanes,
                                             int32_t *deltas);

/* ------------------------------------------------------------------------ */
/* The 0.1 entry points                                                     */
/* ------------------------------------------------------------------------ */

/*
 * Kept, under their names, for programs built against a 0.1 header, whose
 * structs have no struct_size (see "Structs that grow"): they fill the 0.1
 * layouts, which are the structs above without their first field.  Code
 * compiled against this header never calls them: the macros of the same
 * names go to the _sized functions.
 */
typedef struct sinpe_spec_v0_1 {
    size_t dim;
    sinpe_layout layout;
    sinpe_odd_dim odd_dim;
    double base, shift, angle_scale;
} sinpe_spec_v0_1;
SINPE_API void (sinpe_context_options_init)(void *options_v0_1);
SINPE_API void (sinpe_spec_init)(void *spec_v0_1, size_t dim);
SINPE_API sinpe_status (sinpe_spec_preset)(void *spec_v0_1, sinpe_preset preset, size_t dim);
SINPE_API sinpe_spec_v0_1 (sinpe_table_spec)(const sinpe_table *table);
SINPE_API void (sinpe_embed_args_init)(void *args_v0_1);

#ifdef __cplusplus
}
#endif

#endif /* SINPE_H */
