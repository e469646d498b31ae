/*
 * record.c -- an operation's call recorded into a command buffer
 * (cl_khr_command_buffer): the sink, and the checks of the buffer.  The two
 * entry points sinpe calls are declared here, so that the build does not
 * depend on which OpenCL headers are installed; they are the same in every
 * version sinpe accepts (include/sinpe.h, "Recording into a command
 * buffer", says what changed).
 */
#include "call.h"
#include "record.h"

#include <stdlib.h>

typedef cl_int(CL_API_CALL *buffer_info_fn)(void *cb, cl_uint param, size_t size, void *value,
                                            size_t *size_ret);

#define SINPE_CB_NUM_QUEUES 0x1295
#define SINPE_CB_STATE 0x1297
#define SINPE_CB_RECORDING 0
/* CL_MAKE_VERSION's layout: major 10 bits, minor 10, patch 12. */
#define SINPE_CB_VERSION(major, minor, patch)                                                \
    (((cl_uint)(major) << 22) | ((cl_uint)(minor) << 12) | (cl_uint)(patch))

int sinpe__command_buffer_known(cl_uint v)
{
    /* Each published version; a later one may change a call, so it waits
       until someone has read what it changed. */
    return (v >= SINPE_CB_VERSION(0, 9, 0) && v <= SINPE_CB_VERSION(0, 9, 8)) ||
           v == SINPE_CB_VERSION(1, 0, 0);
}

/* Holds obj (a cl_mem, or with kernel != 0 a cl_kernel, that the call's
   commands use) in the call's list, which goes to the table at its end. */
static sinpe_status hold(sinpe__record_sink *r, void *obj, int kernel)
{
    struct sinpe__held *h = r->held;
    for (int i = 0; i < h->n; i++)
        if (h->item[i].obj == obj) /* a buffer used twice */
            return SINPE_SUCCESS;
    SINPE_CHECK(h->n == SINPE__HELD_MAX, SINPE_OUT_OF_HOST_MEMORY,
                "a recorded call uses more than %d objects", SINPE__HELD_MAX);
    h->item[h->n].obj = obj;
    h->item[h->n++].kernel = kernel;
    if (kernel)
        clRetainKernel((cl_kernel)obj);
    else
        clRetainMemObject((cl_mem)obj);
    return SINPE_SUCCESS;
}

static sinpe_status record_keep(sinpe__sink *s, cl_mem mem)
{
    return hold((sinpe__record_sink *)s, mem, 0);
}

static sinpe_status record_emit(sinpe__sink *s, sinpe_context *ctx, const sinpe__launch *l,
                                const void *args, size_t size, int last)
{
    sinpe__record_sink *r = (sinpe__record_sink *)s;
    cl_uint point = 0;
    cl_program program = NULL;
    char name[64];
    (void)ctx;
    /* A kernel of the recording's own, never set again: pocl 3.1 reads a
       recorded command's arguments from its kernel at each replay. */
    cl_int err = clGetKernelInfo(l->kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL);
    if (err == CL_SUCCESS)
        err = clGetKernelInfo(l->kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    SINPE_CL_CHECK(err, "clGetKernelInfo");
    cl_kernel kernel = clCreateKernel(program, name, &err);
    SINPE_CL_CHECK(err, "clCreateKernel");
    sinpe_status st = hold(r, kernel, 1);
    clReleaseKernel(kernel); /* the call's list holds it from here */
    SINPE_FORWARD(st);
    err = sinpe__set_args(kernel, l->k, args, size);
    if (err == CL_SUCCESS)
        err = r->record(r->cb, NULL, NULL, kernel, l->dims, NULL, l->global, l->local,
                        r->have_prev ? 1 : r->nsync, r->have_prev ? &r->prev : r->sync, &point,
                        NULL);
    SINPE_CL_CHECK(err, "clCommandNDRangeKernelKHR");
    r->prev = point;
    r->have_prev = 1;
    if (last && r->sync_point)
        *r->sync_point = point;
    return SINPE_SUCCESS;
}

/* The entry points, after checking that the device has a version we know. */
static sinpe_status entry_points(const sinpe_context *ctx, sinpe__record_kernel_fn *record,
                                 buffer_info_fn *info)
{
    cl_platform_id platform = NULL;
    cl_uint v = ctx->info.cb_version;
    SINPE_CHECK(v == 0, SINPE_UNSUPPORTED,
                "the device does not report cl_khr_command_buffer (with its version)");
    SINPE_CHECK(!sinpe__command_buffer_known(v), SINPE_UNSUPPORTED,
                "the device's cl_khr_command_buffer is version %u.%u.%u; sinpe records "
                "with " SINPE__COMMAND_BUFFER_VERSIONS,
                v >> 22, (v >> 12) & 0x3ff, v & 0xfff);
    cl_int err = clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof platform, &platform,
                                 NULL);
    SINPE_CL_CHECK(err, "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
    *record = (sinpe__record_kernel_fn)clGetExtensionFunctionAddressForPlatform(
        platform, "clCommandNDRangeKernelKHR");
    *info = (buffer_info_fn)clGetExtensionFunctionAddressForPlatform(
        platform, "clGetCommandBufferInfoKHR");
    SINPE_CHECK(!*record || !*info, SINPE_UNSUPPORTED,
                "the platform exports no cl_khr_command_buffer entry points");
    return SINPE_SUCCESS;
}

unsigned sinpe_context_features(const sinpe_context *context)
{
    sinpe__record_kernel_fn rec;
    buffer_info_fn info;
    if (!sinpe__enter_with(context, "context"))
        return 0;
    unsigned f = context->info.has_fp64 ? SINPE_FEATURE_FP64 : 0u;
    if (entry_points(context, &rec, &info) == SINPE_SUCCESS)
        f |= SINPE_FEATURE_COMMAND_BUFFER;
    sinpe__clear_error(); /* an absent feature is no failure */
    return f;
}

sinpe_status sinpe__record_open(int op, sinpe_table *t, cl_command_queue queue,
                                struct _cl_command_buffer_khr *cb, const void *args,
                                cl_uint nsync, const cl_uint *sync, cl_uint *sync_point,
                                sinpe__record_sink *r)
{
    const sinpe__record_sink fresh = {{record_emit, record_keep}, cb, NULL, nsync, sync, 0, 0,
                                      sync_point, NULL, t};
    buffer_info_fn info = NULL;
    cl_uint state = 0, nq = 0;

    *r = fresh;
    sinpe__clear_error();
    SINPE_CHECK(!t, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_FORWARD(sinpe__check_queue(t->ctx, queue));
    SINPE_CHECK(!cb, SINPE_NULL_ARGUMENT, "command_buffer is NULL");
    SINPE_CHECK((nsync == 0) != (sync == NULL), SINPE_INVALID_WAIT_LIST,
                "%u sync points with a %s list", nsync, sync ? "non-NULL" : "NULL");
    SINPE_FORWARD(entry_points(t->ctx, &r->record, &info));
    /* Not its queue: pocl 3.1 answers that query with a pointer to its list. */
    cl_int err = info(cb, SINPE_CB_STATE, sizeof state, &state, NULL);
    if (err == CL_SUCCESS)
        err = info(cb, SINPE_CB_NUM_QUEUES, sizeof nq, &nq, NULL);
    if (err != CL_SUCCESS)
        return sinpe__fail((sinpe_status)err, "command_buffer is not a valid command buffer (%s)",
                           sinpe_status_string((sinpe_status)err));
    SINPE_CHECK(nq != 1, SINPE_INVALID_OPTION,
                "command_buffer spans %u queues; sinpe records into one", nq);
    /* No other state records: executable (1), 2 (pending before 0.9.8,
       finalized under cl_khr_command_buffer_mutable_dispatch), invalid (3,
       before 0.9.3). */
    SINPE_CHECK(state != SINPE_CB_RECORDING, SINPE_INVALID_OPTION,
                "command_buffer is finalized: it records no more commands");
    SINPE_CHECK(!args, SINPE_NULL_ARGUMENT, "args is NULL");
    SINPE_FORWARD(sinpe__table_is(t, sinpe__op_row(op)->table, sinpe__op_row(op)->name));
    /* The one host allocation, before anything is recorded. */
    r->held = calloc(1, sizeof *r->held);
    SINPE_CHECK(!r->held, SINPE_OUT_OF_HOST_MEMORY, "no memory to hold what the call uses");
    return SINPE_SUCCESS;
}

sinpe_status sinpe__record_close(sinpe__record_sink *r, sinpe_status st)
{
    sinpe_table *t = r->table;
    if (r->held->n == 0) {
        free(r->held);
        return st;
    }
    pthread_mutex_lock(&t->lock);
    r->held->next = t->held;
    t->held = r->held;
    pthread_mutex_unlock(&t->lock);
    return st;
}
