/* harness.h -- the error plumbing the plain-C test programs share (grind,
 * threads): status and OpenCL checks that report through the program's own
 * fail(), an allocation that never returns NULL, and a buffer made from
 * host data.  Each program defines fail() (how it counts and prints a
 * failure) and harness_name (its name in fatal messages). */
#ifndef SINPE_GRIND_HARNESS_H
#define SINPE_GRIND_HARNESS_H

#include "sinpe.h"

#include <stddef.h>

extern const char *const harness_name;
void fail(const char *fmt, ...);

/* 1 on success, else fail() with what and the error, and 0. */
int ok(sinpe_status st, const char *what);
int cl_ok(cl_int err, const char *what);

/* calloc that exits the program (status 2) when memory runs out. */
void *xcalloc(size_t n, size_t size);

/* A read-write buffer of ctx holding a copy of bytes at host; NULL after fail(). */
cl_mem buffer_from(sinpe_context *ctx, const void *host, size_t bytes);

#endif
