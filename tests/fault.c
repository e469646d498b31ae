/*
 * fault.c -- device allocation failures on demand, for the out-of-memory
 * paths (pocl never fails an allocation when asked).  The test program is
 * linked with -Wl,--wrap=clCreateBuffer, so that every clCreateBuffer of
 * the library and the tests comes here; the library holds no hook.
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
