/*
 * tuning_source.c -- where a context's tuning record comes from, in the
 * order include/sinpe.h gives ("Work shape"): the override, over the
 * device's tuning file (keyed as cache.c keys a device), over the database
 * record that fits the device best (tuning.c).  A file that is damaged,
 * incomplete or keyed for another device is ignored, and the context says so.
 */
#include "sinpe_internal.h"
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE 65536

/* The device's tuning file path, malloc'd (NULL without a cache directory). */
static char *file_path(cl_device_id dev, uint64_t *key, size_t *dir_len)
{
    if (sinpe__cache_device_key(dev, key) != 0)
        return NULL;
    return sinpe__cache_path("tuning-", *key, ".txt", dir_len);
}

/* Reads a whole small regular file, NUL-terminated; NULL if it cannot. */
static char *read_small(const char *path, const char **why)
{
    struct stat sb;
    char *text = NULL;
    /* O_NONBLOCK: a FIFO planted under the name must not hang the caller. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    *why = NULL;
    if (fd < 0)
        return NULL; /* the usual case: never tuned */
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > MAX_FILE)
        *why = "not a regular file of at most 64 KiB";
    else if (!(text = malloc((size_t)sb.st_size + 1)))
        *why = "no memory to read it";
    else if (read(fd, text, (size_t)sb.st_size) != (ssize_t)sb.st_size)
        *why = "cannot be read";
    else if (memchr(text, '\0', (size_t)sb.st_size))
        *why = "holds a NUL byte";
    close(fd);
    if (*why) {
        free(text);
        return NULL;
    }
    text[sb.st_size] = '\0';
    return text;
}

/* The device's file applied to t; from and ignored say what happened. */
static void from_file(cl_device_id dev, sinpe__tuning *t, char *from, char *ignored)
{
    uint64_t key = 0;
    size_t dir_len;
    char *path = file_path(dev, &key, &dir_len), *text, hex[17];
    const char *why;
    sinpe__record r;
    if (!path)
        return;
    text = read_small(path, &why);
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)key);
    if (text && sinpe__record_parse(text, &r) != 0)
        why = r.why;
    else if (text && !sinpe__record_complete(&r))
        why = "does not set every parameter";
    else if (text && strcmp(r.key, hex) != 0)
        why = "stale or foreign: its key is not this device's";
    if (text && !why) {
        sinpe__record_apply(t, &r);
        snprintf(from, SINPE__FROM, "file %s", path);
    } else if (why) {
        snprintf(ignored, SINPE__FROM, "%s (%s)", path, why);
    }
    free(text);
    free(path);
}

sinpe_status sinpe__tuning_pick(cl_device_id dev, const sinpe__device_info *info,
                                const char *override, sinpe__tuning *t, char *from)
{
    const char *env = getenv("SINPE_TUNING"), *name = "options.tuning";
    char base[SINPE__FROM] = "", ignored[SINPE__FROM] = "";
    sinpe__record r;

    if (sinpe__database_lookup(info->vendor, info->type, info->name, &r) != 0)
        return sinpe__fail(SINPE_INVALID_OPTION, "no tuning record fits device \"%s\"",
                           info->name);
    sinpe__record_apply(t, &r);
    snprintf(base, sizeof base, "database %s", r.name);
    from_file(dev, t, base, ignored);
    if (!override && env && *env) {
        override = env;
        name = "SINPE_TUNING";
    }
    if (override && *override) {
        SINPE_CHECK(sinpe__record_parse(override, &r) != 0, SINPE_INVALID_OPTION, "%s: %s",
                    name, r.why);
        sinpe__record_apply(t, &r);
        snprintf(from, SINPE__FROM, "%s over %.480s", name, base); /* a path may be cut */
    } else {
        snprintf(from, SINPE__FROM, "%s", base);
    }
    if (ignored[0]) {
        size_t n = strlen(from);
        snprintf(from + n, SINPE__FROM - n, "; ignored=%s", ignored);
    }
    return SINPE_SUCCESS;
}

const char *sinpe_context_tuning(const sinpe_context *context)
{
    return sinpe__enter_with(context, "context") ? context->tune_text : "";
}

sinpe_status sinpe_tuning_save(const sinpe_context *context, const char *record, char *path,
                               size_t path_size)
{
    uint64_t key = 0;
    size_t dir_len, used = 0;
    char *file, head[1024], body[1024];
    sinpe__record r;
    int written;

    sinpe__clear_error();
    SINPE_CHECK(!context, SINPE_NULL_ARGUMENT, "context is NULL");
    if (path && path_size)
        path[0] = '\0';
    if (record) {
        SINPE_CHECK(sinpe__record_parse(record, &r) != 0, SINPE_INVALID_OPTION, "record: %s",
                    r.why);
        SINPE_CHECK(!sinpe__record_complete(&r), SINPE_INVALID_OPTION,
                    "record: it must set every parameter");
    }
    file = file_path(context->device, &key, &dir_len);
    SINPE_CHECK(!file, SINPE_UNSUPPORTED,
                "no cache directory for tuning files (SINPE_CACHE_DIR is off, or no HOME)");
    if (path && path_size)
        snprintf(path, path_size, "%s", file);
    if (!record) {
        written = unlink(file) == 0 || errno == ENOENT;
    } else {
        snprintf(head, sizeof head,
                 "# sinpe tuning record, written by sinpe_tuning_save(); read by every context\n"
                 "# on this device while the library, its kernels and the driver stay the same.\n"
                 "sinpe = %s\nkey = %016llx\nvendor = %s\ntype = %s\ndevice = %s\n",
                 sinpe_version_string(), (unsigned long long)key, context->info.vendor,
                 sinpe__type_name(context->info.type), context->info.name);
        for (size_t i = 0; i < sinpe__n_params; i++) {
            char v[32];
            sinpe__param_format(i, *sinpe__param_field(&r.t, i), v, sizeof v);
            used += (size_t)snprintf(body + used, sizeof body - used, "%s = %s\n",
                                     sinpe__params[i].name, v);
        }
        written = sinpe__write_file(file, dir_len, head, strlen(head), body, used) == 0;
    }
    free(file);
    SINPE_CHECK(!written, SINPE_IO_ERROR, "the tuning file cannot be %s",
                record ? "written" : "deleted");
    return SINPE_SUCCESS;
}
