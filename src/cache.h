/*
 * cache.h -- the on-disk cache of program binaries and of tuning files
 * (cache.c): what program.c, tuning_source.c and the tests that forge
 * entries need, and no other file.
 */
#ifndef SINPE_CACHE_H
#define SINPE_CACHE_H

#include "sinpe.h"

#include <stddef.h>
#include <stdint.h>

/* The longest entry path kept: Linux's PATH_MAX, the most open() takes. */
#define SINPE__CACHE_PATH 4096

/* One entry of the on-disk cache of program binaries (layout in cache.c). */
typedef struct sinpe__cache {
    char path[SINPE__CACHE_PATH]; /* "<dir>/<key>.bin"; "" when there is no cache */
    size_t dir_len;     /* path[0 .. dir_len) is the directory */
    uint64_t key;       /* hash of the key material */
    uint64_t key_bytes; /* its length */
    int runtime_caches; /* the platform keeps its own cache of builds (pocl) */
} sinpe__cache;

/* The entry of the kernel source built with options on dev (path ""
   when the cache is off or unusable, or on pocl without SINPE_CACHE_DIR);
   its program or NULL (an entry that fails a check is deleted); storing
   program's binary; deleting it. */
void sinpe__cache_open(sinpe__cache *cache, cl_device_id dev, const char *options);
cl_program sinpe__cache_load(const sinpe__cache *cache, cl_context ctx, cl_device_id dev,
                             const char *options);
void sinpe__cache_store(const sinpe__cache *cache, cl_program program, cl_device_id dev);
void sinpe__cache_discard(const sinpe__cache *cache);
void sinpe__cache_close(sinpe__cache *cache);

/* "<dir>/<prefix><key as 16 hex digits><suffix>" in the cache directory
   (include/sinpe.h), malloc'd, *dir_len the length of <dir>; NULL without one. */
char *sinpe__cache_path(const char *prefix, uint64_t key, const char *suffix, size_t *dir_len);
/* The hash of what a device's files depend on (see cache.c). */
int sinpe__cache_device_key(cl_device_id dev, uint64_t *key);
/* Writes head then body to path through a temporary file and a rename,
   making the directory path[0 .. dir_len) first; 0 on success. */
int sinpe__write_file(const char *path, size_t dir_len, const void *head, size_t head_len,
                      const void *body, size_t body_len);

/* The file layout, for tests that forge entries. */
#define SINPE__CACHE_HEADER 48
#define SINPE__CACHE_OFF_KEY 16
#define SINPE__CACHE_OFF_SUM 40 /* sinpe__fnv1a(SINPE__FNV_BASIS, payload) */
#define SINPE__FNV_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t sinpe__fnv1a(uint64_t h, const void *data, size_t n);

#endif /* SINPE_CACHE_H */
