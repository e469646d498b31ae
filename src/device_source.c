/*
 * device_source.c -- the device functions handed to hosts (kernels/device.cl)
 * and the constants buffer they read.
 */
#include "sinpe_internal.h"

#include <stdio.h>
#include <string.h>

sinpe_status sinpe_device_source(const sinpe_context *context, char *dst, size_t dst_size,
                                 size_t *length)
{
    char head[96];
    int n;
    size_t total;

    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context is NULL");
    SINPE_CHECK(!length, SINPE_NULL_ARGUMENT, "length: the output pointer is NULL");
    n = snprintf(head, sizeof head, "#define SINPE_FP64 %d\n",
                 context->math == SINPE_MATH_FP64 ? 1 : 0);
    total = (size_t)n + sinpe__device_text_len;
    *length = total;
    if (!dst && dst_size == 0)
        return SINPE_SUCCESS;
    SINPE_CHECK(!dst, SINPE_NULL_ARGUMENT, "dst is NULL with dst_size %zu", dst_size);
    SINPE_CHECK(dst_size <= total, SINPE_BUFFER_TOO_SMALL,
                "dst_size %zu: the source takes %zu bytes with its NUL", dst_size, total + 1);
    memcpy(dst, head, (size_t)n);
    memcpy(dst + n, sinpe__device_text, sinpe__device_text_len + 1);
    return SINPE_SUCCESS;
}

sinpe_status sinpe_table_constants(sinpe_table *table, cl_mem *consts)
{
    sinpe__clear_error();
    SINPE_CHECK(!table, SINPE_NULL_ARGUMENT, "table is NULL");
    SINPE_CHECK(!consts, SINPE_NULL_ARGUMENT, "consts: the output pointer is NULL");
    clRetainMemObject(table->desc);
    *consts = table->desc;
    return SINPE_SUCCESS;
}
