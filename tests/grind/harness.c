/* harness.c -- see harness.h. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

int ok(sinpe_status st, const char *what)
{
    if (st == SINPE_SUCCESS)
        return 1;
    fail("%s returned %d (%s): %s", what, (int)st, sinpe_status_string(st), sinpe_last_error());
    return 0;
}

int cl_ok(cl_int err, const char *what)
{
    if (err == CL_SUCCESS)
        return 1;
    fail("%s failed with OpenCL error %d", what, (int)err);
    return 0;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", harness_name);
        exit(2);
    }
    return p;
}

cl_mem buffer_from(sinpe_context *ctx, const void *host, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(sinpe_context_cl_context(ctx),
                              CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host,
                              &err);
    return cl_ok(err, "clCreateBuffer") ? m : NULL;
}
