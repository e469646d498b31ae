/*
 * status.c -- status codes, their names, and the per-thread error message.
 */
#include "sinpe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned sinpe_version_number(void) { return SINPE_VERSION_NUMBER; }

#define SINPE_STR_(x) #x
#define SINPE_STR(x) SINPE_STR_(x)
const char *sinpe_version_string(void)
{
    return SINPE_STR(SINPE_VERSION_MAJOR) "." SINPE_STR(SINPE_VERSION_MINOR) "." SINPE_STR(
        SINPE_VERSION_PATCH);
}

/* OpenCL 1.2 error codes, by name. */
#define CL_ERROR_MAP(X)                                                                   \
    X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE) X(CL_COMPILER_NOT_AVAILABLE)        \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE) X(CL_OUT_OF_RESOURCES) X(CL_OUT_OF_HOST_MEMORY)   \
    X(CL_PROFILING_INFO_NOT_AVAILABLE) X(CL_MEM_COPY_OVERLAP) X(CL_IMAGE_FORMAT_MISMATCH) \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED) X(CL_BUILD_PROGRAM_FAILURE) X(CL_MAP_FAILURE)        \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET) X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)    \
    X(CL_COMPILE_PROGRAM_FAILURE) X(CL_LINKER_NOT_AVAILABLE) X(CL_LINK_PROGRAM_FAILURE)   \
    X(CL_DEVICE_PARTITION_FAILED) X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)                     \
    X(CL_INVALID_VALUE) X(CL_INVALID_DEVICE_TYPE) X(CL_INVALID_PLATFORM)                  \
    X(CL_INVALID_DEVICE) X(CL_INVALID_CONTEXT) X(CL_INVALID_QUEUE_PROPERTIES)             \
    X(CL_INVALID_COMMAND_QUEUE) X(CL_INVALID_HOST_PTR) X(CL_INVALID_MEM_OBJECT)           \
    X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) X(CL_INVALID_IMAGE_SIZE) X(CL_INVALID_SAMPLER)  \
    X(CL_INVALID_BINARY) X(CL_INVALID_BUILD_OPTIONS) X(CL_INVALID_PROGRAM)                \
    X(CL_INVALID_PROGRAM_EXECUTABLE) X(CL_INVALID_KERNEL_NAME)                            \
    X(CL_INVALID_KERNEL_DEFINITION) X(CL_INVALID_KERNEL) X(CL_INVALID_ARG_INDEX)          \
    X(CL_INVALID_ARG_VALUE) X(CL_INVALID_ARG_SIZE) X(CL_INVALID_KERNEL_ARGS)              \
    X(CL_INVALID_WORK_DIMENSION) X(CL_INVALID_WORK_GROUP_SIZE)                            \
    X(CL_INVALID_WORK_ITEM_SIZE) X(CL_INVALID_GLOBAL_OFFSET)                              \
    X(CL_INVALID_EVENT_WAIT_LIST) X(CL_INVALID_EVENT) X(CL_INVALID_OPERATION)             \
    X(CL_INVALID_GL_OBJECT) X(CL_INVALID_BUFFER_SIZE) X(CL_INVALID_MIP_LEVEL)             \
    X(CL_INVALID_GLOBAL_WORK_SIZE) X(CL_INVALID_PROPERTY) X(CL_INVALID_IMAGE_DESCRIPTOR)  \
    X(CL_INVALID_COMPILER_OPTIONS) X(CL_INVALID_LINKER_OPTIONS)                           \
    X(CL_INVALID_DEVICE_PARTITION_COUNT)

const char *sinpe_status_string(sinpe_status status)
{
    switch ((int)status) {
#define SINPE_X_CASE(name, value, text) \
    case value:                         \
        return text;
#define CL_X_CASE(name) SINPE_X_CASE(name, name, #name)
        SINPE_STATUS_MAP(SINPE_X_CASE)
        CL_ERROR_MAP(CL_X_CASE)
#undef CL_X_CASE
#undef SINPE_X_CASE
    default:
        return "unknown status";
    }
}

/* The message is a per-thread heap buffer owned by a pthread key: threads
   never see each other's errors, and the buffer goes with its thread. */
static pthread_key_t msg_key;
static pthread_once_t msg_once = PTHREAD_ONCE_INIT;
static int msg_key_ok;

static void msg_key_create(void) { msg_key_ok = pthread_key_create(&msg_key, free) == 0; }

static char *msg_get(void)
{
    pthread_once(&msg_once, msg_key_create);
    return msg_key_ok ? (char *)pthread_getspecific(msg_key) : NULL;
}

static void msg_set(char *s)
{
    if (!msg_key_ok) {
        free(s);
        return;
    }
    free(pthread_getspecific(msg_key));
    pthread_setspecific(msg_key, s);
}

const char *sinpe_last_error(void)
{
    const char *s = msg_get();
    return s ? s : "";
}

void sinpe__clear_error(void)
{
    if (msg_get())
        msg_set(NULL);
}

int sinpe__enter_with(const void *handle, const char *name)
{
    sinpe__clear_error();
    if (!handle)
        sinpe__fail(SINPE_NULL_ARGUMENT, "%s is NULL", name);
    return handle != NULL;
}

sinpe_status sinpe__fail(sinpe_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap); /* a build log can be long */
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    msg_get();
    msg_set(s);
    return status;
}

sinpe_status sinpe__cl_fail(cl_int err, const char *what)
{
    return sinpe__fail((sinpe_status)err, "%s failed: %s", what,
                       sinpe_status_string((sinpe_status)err));
}
