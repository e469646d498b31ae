/*
 * sinpe_v0_1.h -- the public header of sinpe 0.1.0 (include/sinpe.h at commit
 * 06afc09, SINPE_VERSION 0.1.0), for tests/abi/old_caller.c: its declarations
 * only.  Made by removing the comments and blank-line runs from that file;
 * every macro, type, enum value, struct field and prototype is as released,
 * in the same order.  Do not edit: the documentation is in that release.
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

#define SINPE_VERSION_MAJOR 0
#define SINPE_VERSION_MINOR 1
#define SINPE_VERSION_PATCH 0
#define SINPE_VERSION_NUMBER \
    (SINPE_VERSION_MAJOR * 10000 + SINPE_VERSION_MINOR * 100 + SINPE_VERSION_PATCH)

SINPE_API unsigned sinpe_version_number(void);

SINPE_API const char *sinpe_version_string(void);

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
    X(IO_ERROR,             -2017, "a file could not be read or written")

typedef enum sinpe_status {
#define SINPE_X_ENUM(name, value, text) SINPE_##name = value,
    SINPE_STATUS_MAP(SINPE_X_ENUM)
#undef SINPE_X_ENUM
    SINPE_STATUS_FORCE_INT_ = 0x7fffffff
} sinpe_status;

SINPE_API const char *sinpe_status_string(sinpe_status status);

SINPE_API const char *sinpe_last_error(void);

typedef struct sinpe_context sinpe_context;

typedef enum sinpe_math {
    SINPE_MATH_AUTO = 0,
    SINPE_MATH_FLOAT = 1,
    SINPE_MATH_FP64 = 2
} sinpe_math;

typedef struct sinpe_context_options {
    sinpe_math math;

    const char *device;

    int no_disk_cache;

    const char *tuning;
} sinpe_context_options;

SINPE_API void sinpe_context_options_init(sinpe_context_options *options);

SINPE_API sinpe_status sinpe_context_create(const sinpe_context_options *options,
                                            sinpe_context **context);

SINPE_API sinpe_status sinpe_context_create_from_cl(cl_context cl_ctx, cl_device_id device,
                                                    const sinpe_context_options *options,
                                                    sinpe_context **context);

SINPE_API void sinpe_context_release(sinpe_context *context);

SINPE_API cl_context sinpe_context_cl_context(const sinpe_context *context);
SINPE_API cl_device_id sinpe_context_device(const sinpe_context *context);
SINPE_API cl_command_queue sinpe_context_queue(const sinpe_context *context);

SINPE_API sinpe_math sinpe_context_math(const sinpe_context *context);

SINPE_API const char *sinpe_context_tuning(const sinpe_context *context);

SINPE_API sinpe_status sinpe_tuning_save(const sinpe_context *context, const char *record,
                                         char *path, size_t path_size);

typedef enum sinpe_layout {
    SINPE_LAYOUT_INTERLEAVED = 0,
    SINPE_LAYOUT_SPLIT_SIN_COS = 1,
    SINPE_LAYOUT_SPLIT_COS_SIN = 2
} sinpe_layout;

typedef enum sinpe_odd_dim {
    SINPE_ODD_ZERO_LAST = 0,
    SINPE_ODD_EXTRA_SIN = 1,
    SINPE_ODD_ERROR = 2
} sinpe_odd_dim;

typedef struct sinpe_spec {
    size_t dim;
    sinpe_layout layout;
    sinpe_odd_dim odd_dim;
    double base;
    double shift;
    double angle_scale;
} sinpe_spec;

SINPE_API void sinpe_spec_init(sinpe_spec *spec, size_t dim);

typedef enum sinpe_preset {
    SINPE_PRESET_VASWANI = 1,
    SINPE_PRESET_TENSOR2TENSOR = 2,
    SINPE_PRESET_FAIRSEQ = 3,
    SINPE_PRESET_WHISPER = 4,
    SINPE_PRESET_MARIAN_HF = 5,
    SINPE_PRESET_OPENNMT = 6,
    SINPE_PRESET_DIFFUSERS = 7,
    SINPE_PRESET_DIFFUSERS_FLIP = 8,
    SINPE_PRESET_GGML_TIMESTEP = 9
} sinpe_preset;

SINPE_API sinpe_status sinpe_spec_preset(sinpe_spec *spec, sinpe_preset preset, size_t dim);

SINPE_API const char *sinpe_preset_name(sinpe_preset preset);

typedef enum sinpe_dtype {
    SINPE_F32 = 0,
    SINPE_F16 = 1,
    SINPE_BF16 = 2,
    SINPE_I8 = 3,
    SINPE_Q8_0 = 4,
    SINPE_FP8_E4M3 = 5,
    SINPE_FP8_E5M2 = 6
} sinpe_dtype;

SINPE_API size_t sinpe_dtype_bytes(sinpe_dtype type, size_t values);

SINPE_API sinpe_status sinpe_context_prepare(sinpe_context *context, sinpe_dtype weights_dtype);

typedef struct sinpe_table sinpe_table;

SINPE_API sinpe_status sinpe_table_create(sinpe_context *context, const sinpe_spec *spec,
                                          size_t rows, sinpe_table **table);

SINPE_API sinpe_status sinpe_table_reserve(sinpe_table *table, size_t rows);

SINPE_API sinpe_status sinpe_table_borrow(sinpe_table *table, cl_mem *mem, size_t *rows);

SINPE_API sinpe_status sinpe_enqueue_table_rows(sinpe_table *table, cl_command_queue queue,
                                                cl_int row0, size_t nrows, cl_mem out,
                                                size_t out_offset, size_t out_stride,
                                                sinpe_dtype out_dtype,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list,
                                                cl_event *event);

SINPE_API size_t sinpe_table_rows(const sinpe_table *table);

SINPE_API sinpe_spec sinpe_table_spec(const sinpe_table *table);

SINPE_API void sinpe_table_release(sinpe_table *table);

typedef enum sinpe_position_rule {
    SINPE_POSITIONS_INDEX = 0,
    SINPE_POSITIONS_FAIRSEQ = 1
} sinpe_position_rule;

typedef enum sinpe_pad_policy {
    SINPE_PAD_NONE = 0,
    SINPE_PAD_ZERO_PE = 1,
    SINPE_PAD_ZERO_OUTPUT = 2,
    SINPE_PAD_ZERO_EMBEDDING = 3
} sinpe_pad_policy;

typedef enum sinpe_scale_rounding {
    SINPE_SCALE_EXACT = 0,
    SINPE_SCALE_WEIGHTS = 1,
    SINPE_SCALE_OUTPUT = 2
} sinpe_scale_rounding;

typedef enum sinpe_vocab_shard {
    SINPE_SHARD_NONE = 0,
    SINPE_SHARD_ROWS = 1,
    SINPE_SHARD_OWNER = 2
} sinpe_vocab_shard;

typedef struct sinpe_embed_args {
    size_t n_seqs, seq_len;
    cl_mem ids;       size_t ids_offset;
    cl_mem weights;   size_t weights_offset;  size_t weights_stride;  size_t vocab;
    cl_mem out;       size_t out_offset;      size_t out_stride;
    float token_scale;
    cl_int start;
    cl_mem positions; size_t positions_offset;
    cl_mem bad_ids;   size_t bad_ids_offset;
    sinpe_dtype weights_dtype, out_dtype;
    int positions_broadcast;
    cl_mem seq_starts; size_t seq_starts_offset;
    cl_mem pad_counts; size_t pad_counts_offset;
    sinpe_position_rule position_rule;
    sinpe_pad_policy pad_policy;
    cl_int pad_id;
    int vocab_shard;  size_t vocab_start;
    int skip_pe;
    cl_mem weight_scales; size_t weight_scales_offset;
    sinpe_dtype weight_scales_dtype;
    float weights_scale;
    sinpe_scale_rounding token_scale_rounding;
    size_t vocab_total;
} sinpe_embed_args;

SINPE_API void sinpe_embed_args_init(sinpe_embed_args *args);

SINPE_API sinpe_status sinpe_embed_args_preset(sinpe_embed_args *args, sinpe_preset preset,
                                               size_t dim, cl_int pad_id);

SINPE_API sinpe_status sinpe_enqueue_embed(sinpe_table *table, cl_command_queue queue,
                                           const sinpe_embed_args *args,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

SINPE_API sinpe_status sinpe_enqueue_gather(sinpe_table *table, cl_command_queue queue,
                                            const sinpe_embed_args *args,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

SINPE_API sinpe_status sinpe_enqueue_add_positions(sinpe_table *table, cl_command_queue queue,
                                                   const sinpe_embed_args *args,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event);

SINPE_API sinpe_status sinpe_embed_host(sinpe_table *table, const int32_t *ids,
                                        size_t n_seqs, size_t seq_len,
                                        const float *weights, size_t vocab,
                                        float token_scale, int32_t start,
                                        const int32_t *positions, float *out);

SINPE_API sinpe_status sinpe_quantize(sinpe_dtype type, const float *src, size_t rows,
                                      size_t dim, void *dst, size_t dst_size, void *scales,
                                      sinpe_dtype scales_dtype);

struct _cl_command_buffer_khr;
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

SINPE_API sinpe_status sinpe_device_source(const sinpe_context *context, char *dst,
                                           size_t dst_size, size_t *length);

SINPE_API sinpe_status sinpe_table_constants(sinpe_table *table, cl_mem *consts);

SINPE_API sinpe_status sinpe_enqueue_timesteps(sinpe_table *table, cl_command_queue queue,
                                               cl_mem timesteps, size_t ts_offset, size_t count,
                                               cl_mem out, size_t out_offset, size_t out_stride,
                                               sinpe_dtype out_dtype,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
