/*
 * record.h -- what a recorded call shares with its table (record.c adds
 * to the held list, table.c frees it) and the tests read: the versions of
 * cl_khr_command_buffer recorded with, and the held list.
 */
#ifndef SINPE_RECORD_H
#define SINPE_RECORD_H

#include "sinpe_internal.h"

/* The versions of cl_khr_command_buffer that sinpe records with, as words
   (the refusal's message), and whether v (CL_MAKE_VERSION's layout) is one. */
#define SINPE__COMMAND_BUFFER_VERSIONS "0.9.0 to 0.9.8 and 1.0.0"
int sinpe__command_buffer_known(cl_uint v);
/* What one recorded call holds until its table goes: the buffers and
   kernels its commands use (at most a table snapshot, rows past it and
   their anchors, and a kernel for each of five launches).  A table keeps
   them in a list, under its lock (record.c adds, table.c frees). */
#define SINPE__HELD_MAX 8
struct sinpe__held {
    struct sinpe__held *next;
    int n;
    struct {
        void *obj;
        int kernel; /* obj is a cl_kernel, else a cl_mem */
    } item[SINPE__HELD_MAX];
};

#endif /* SINPE_RECORD_H */
