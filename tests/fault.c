/* fault.c -- device and host allocation failures on demand, for the
 * out-of-memory paths (pocl never fails an allocation when asked), and
 * counts of the launches and of the references to events, buffers and
 * kernels taken and given back.  The test program is linked with
 * -Wl,--wrap for each OpenCL and C call below (the Makefile's TEST_WRAPS),
 * so that those calls of the library and the tests come here; the library
 * holds no hook. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

int tu_fail_allocations, tu_fail_skip;
long tu_allocations, tu_launches;

/* Whether this allocation fails: while *left is positive, each after the
   next *skip ones does, and decrements it. */
static int fails_now(int *left, int *skip)
{
    if (*left > 0 && *skip > 0)
        --*skip;
    else if (*left > 0)
        return --*left, 1;
    return 0;
}

cl_mem __real_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err);
cl_mem __wrap_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err);

/* Fails with CL_MEM_OBJECT_ALLOCATION_FAILURE as tu_fail_allocations and
   tu_fail_skip say; tu_allocations counts the others. */
cl_mem __wrap_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err)
{
    if (fails_now(&tu_fail_allocations, &tu_fail_skip)) {
        if (err)
            *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    cl_mem mem = __real_clCreateBuffer(context, flags, size, host, err);
    tu_allocations++;
    tu_mem_refs += mem != NULL;
    return mem;
}

long tu_event_refs, tu_mem_refs, tu_kernel_refs;

/* A wrapped call on one object, which moves counter by delta when it succeeds. */
#define COUNTED(name, type, counter, delta)                                                     \
    cl_int __real_##name(type object);                                                          \
    cl_int __wrap_##name(type object);                                                          \
    cl_int __wrap_##name(type object)                                                           \
    {                                                                                           \
        cl_int err = __real_##name(object);                                                     \
        counter += err == CL_SUCCESS ? delta : 0;                                               \
        return err;                                                                             \
    }
COUNTED(clRetainEvent, cl_event, tu_event_refs, 1)
COUNTED(clReleaseEvent, cl_event, tu_event_refs, -1)
COUNTED(clRetainMemObject, cl_mem, tu_mem_refs, 1)
COUNTED(clReleaseMemObject, cl_mem, tu_mem_refs, -1)
COUNTED(clRetainKernel, cl_kernel, tu_kernel_refs, 1)
COUNTED(clReleaseKernel, cl_kernel, tu_kernel_refs, -1)

cl_int __real_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event);
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event);
cl_kernel __real_clCreateKernel(cl_program program, const char *name, cl_int *err);
cl_kernel __wrap_clCreateKernel(cl_program program, const char *name, cl_int *err);

/* A launch counts in tu_launches and its new event in tu_event_refs, a new
   kernel in tu_kernel_refs. */
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event)
{
    cl_int err = __real_clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, nwait,
                                               wait, event);
    tu_launches++;
    tu_event_refs += err == CL_SUCCESS && event;
    return err;
}

cl_kernel __wrap_clCreateKernel(cl_program program, const char *name, cl_int *err)
{
    cl_kernel k = __real_clCreateKernel(program, name, err);
    tu_kernel_refs += k != NULL;
    return k;
}

tu_refs tu_refs_now(void)
{
    return (tu_refs){tu_mem_refs, tu_kernel_refs, tu_event_refs};
}

void tu_refs_returned(tu_refs then, const char *what)
{
    tu_refs now = tu_refs_now();
    ck_assert_msg(now.mem == then.mem && now.kernels == then.kernels && now.events == then.events,
                  "%s: left held: %ld buffers, %ld kernels, %ld events", what, now.mem - then.mem,
                  now.kernels - then.kernels, now.events - then.events);
}

int tu_fail_host, tu_fail_host_skip;

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* Whether this host allocation fails (tu_fail_host, tu_fail_host_skip). */
static int host_fails(void)
{
    return fails_now(&tu_fail_host, &tu_fail_host_skip);
}

void *__wrap_malloc(size_t size)
{
    return host_fails() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return host_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return host_fails() ? NULL : __real_realloc(p, size);
}

/* The recording of a kernel (cl_khr_command_buffer 0.9.0 to 1.0.0) as the
   library looks it up: a recorded command counts in tu_launches too. */
typedef cl_int(CL_API_CALL *record_fn)(void *cb, cl_command_queue queue,
                                       const cl_ulong *properties, cl_kernel kernel,
                                       cl_uint dims, const size_t *offset, const size_t *global,
                                       const size_t *local, cl_uint nsync, const cl_uint *sync,
                                       cl_uint *point, void **handle);
static record_fn real_record;

static cl_int CL_API_CALL counted_record(void *cb, cl_command_queue queue,
                                         const cl_ulong *properties, cl_kernel kernel,
                                         cl_uint dims, const size_t *offset,
                                         const size_t *global, const size_t *local,
                                         cl_uint nsync, const cl_uint *sync, cl_uint *point,
                                         void **handle)
{
    tu_launches++;
    return real_record(cb, queue, properties, kernel, dims, offset, global, local, nsync, sync,
                       point, handle);
}

void *__real_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name);
void *__wrap_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name);
void *__wrap_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name)
{
    void *f = __real_clGetExtensionFunctionAddressForPlatform(platform, name);
    if (!f || strcmp(name, "clCommandNDRangeKernelKHR") != 0)
        return f;
    real_record = (record_fn)f;
    return (void *)counted_record;
}
