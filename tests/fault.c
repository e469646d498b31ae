/*
 * fault.c -- device allocation failures on demand, for the out-of-memory
 * paths (pocl never fails an allocation when asked), and a count of the
 * event references taken and given back.  The test program is linked with
 * -Wl,--wrap for clCreateBuffer, clEnqueueNDRangeKernel, clRetainEvent and
 * clReleaseEvent, so that those calls of the library and the tests come
 * here; the library holds no hook.
 */
#include "test_util.h"

int tu_fail_allocations;
long tu_allocations;

cl_mem __real_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err);
cl_mem __wrap_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err);

/* While tu_fail_allocations is positive, each allocation fails with
   CL_MEM_OBJECT_ALLOCATION_FAILURE and decrements it; tu_allocations counts
   the others. */
cl_mem __wrap_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err)
{
    if (tu_fail_allocations > 0) {
        tu_fail_allocations--;
        if (err)
            *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    tu_allocations++;
    return __real_clCreateBuffer(context, flags, size, host, err);
}

long tu_event_refs;

cl_int __real_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event);
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event);
cl_int __real_clRetainEvent(cl_event event);
cl_int __wrap_clRetainEvent(cl_event event);
cl_int __real_clReleaseEvent(cl_event event);
cl_int __wrap_clReleaseEvent(cl_event event);

/* A launch's new event, a retain and a release move tu_event_refs. */
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event)
{
    cl_int err = __real_clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, nwait,
                                               wait, event);
    tu_event_refs += err == CL_SUCCESS && event;
    return err;
}

cl_int __wrap_clRetainEvent(cl_event event)
{
    cl_int err = __real_clRetainEvent(event);
    tu_event_refs += err == CL_SUCCESS;
    return err;
}

cl_int __wrap_clReleaseEvent(cl_event event)
{
    cl_int err = __real_clReleaseEvent(event);
    tu_event_refs -= err == CL_SUCCESS;
    return err;
}
