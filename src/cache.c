/*
 * cache.c -- the on-disk cache of built program binaries.
 *
 * An entry is the file "<dir>/<key>.bin", where key is a 64-bit FNV-1a hash
 * of everything the binary depends on: the library version, the kernel
 * source, the build options, and the platform version, device name, driver
 * version and device version.  Each part is hashed after its length, so no
 * two different lists of parts hash the same bytes.  The file is a header
 * followed by the binary the runtime returned (integers little-endian):
 *
 *      0  "SINPEBIN"
 *      8  u32  format, FORMAT below (changes whenever the layout does)
 *     12  u32  0
 *     16  u64  key
 *     24  u64  number of bytes the key hashed
 *     32  u64  payload length
 *     40  u64  FNV-1a 64 of the payload
 *
 * Nothing read is trusted.  A file whose header, length or checksum does not
 * match, or whose binary the runtime rejects or cannot build, is deleted, and
 * the caller builds from source and stores the result anew.  A write goes to
 * a mkstemp file in the same directory that is renamed over the entry, so a
 * reader never sees a partial file, however many processes start at once.
 * Every failure here is silent: the cache may only ever save time.
 */
#include "sinpe_internal.h"
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORMAT 1u
#define MAX_PAYLOAD ((uint64_t)1 << 30) /* no real binary comes near this */
#define MAX_DEVICES 64

static const char magic[8] = {'S', 'I', 'N', 'P', 'E', 'B', 'I', 'N'};

uint64_t sinpe__fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Hashes one part of the key material: its length, then its bytes. */
static void mix(sinpe__cache *c, const void *data, size_t n)
{
    unsigned char len[8];
    put64(len, (uint64_t)n);
    c->key = sinpe__fnv1a(sinpe__fnv1a(c->key, len, sizeof len), data, n);
    c->key_bytes += sizeof len + (uint64_t)n;
}

/* Mixes one string of the platform (plat non-NULL) or of dev.  Names and
   versions fit the buffer on the stack; only a longer one takes the heap, so
   that a context whose entries are at hand needs no heap to find them. */
static int mix_info(sinpe__cache *c, cl_platform_id plat, cl_device_id dev, cl_uint param)
{
    char small[256], *s = small;
    size_t n = 0;
    cl_int err = plat ? clGetPlatformInfo(plat, param, 0, NULL, &n)
                      : clGetDeviceInfo(dev, param, 0, NULL, &n);
    if (err != CL_SUCCESS || (n >= sizeof small && !(s = malloc(n + 1))))
        return -1;
    memset(s, 0, n + 1);
    err = plat ? clGetPlatformInfo(plat, param, n, s, NULL)
               : clGetDeviceInfo(dev, param, n, s, NULL);
    if (err == CL_SUCCESS)
        mix(c, s, strlen(s));
    if (err == CL_SUCCESS && plat && strstr(s, "PoCL"))
        c->runtime_caches = 1;
    if (s != small)
        free(s);
    return err == CL_SUCCESS ? 0 : -1;
}

/* Mixes the parts of the key that name the device and the library. */
static int mix_device(sinpe__cache *c, cl_device_id dev)
{
    static const cl_uint params[] = {CL_DEVICE_NAME, CL_DRIVER_VERSION, CL_DEVICE_VERSION};
    const char *version = sinpe_version_string();
    cl_platform_id plat = NULL;
    c->key = SINPE__FNV_BASIS;
    mix(c, version, strlen(version));
    mix(c, sinpe__kernel_source, (size_t)sinpe__kernel_source_len);
    if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) != CL_SUCCESS ||
        mix_info(c, plat, dev, CL_PLATFORM_VERSION) != 0)
        return -1;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (mix_info(c, NULL, dev, params[i]) != 0)
            return -1;
    return 0;
}

int sinpe__cache_device_key(cl_device_id dev, uint64_t *key)
{
    sinpe__cache c;
    memset(&c, 0, sizeof c);
    if (mix_device(&c, dev) != 0)
        return -1;
    *key = c.key;
    return 0;
}

/* Writes the path of sinpe__cache_path into buf (size bytes; NUL-terminated
   when it fits) and returns its length; 0 without a cache directory. */
static size_t format_path(char *buf, size_t size, const char *prefix, uint64_t key,
                          const char *suffix, size_t *dir_len)
{
    const char *env = getenv("SINPE_CACHE_DIR"), *tail = "";
    size_t len;
    int n;
    if (env) {
        if (!*env || strcmp(env, "off") == 0)
            return 0;
    } else if ((env = getenv("XDG_CACHE_HOME")) != NULL && env[0] == '/') {
        tail = "/sinpe"; /* the XDG spec says to ignore a relative value */
    } else if ((env = getenv("HOME")) != NULL && env[0] == '/') {
        tail = "/.cache/sinpe";
    } else {
        return 0;
    }
    /* Trailing slashes would double up ("/" becomes the empty prefix). */
    for (len = strlen(env); !*tail && len > 0 && env[len - 1] == '/'; len--)
        ;
    if (len > INT_MAX)
        return 0;
    *dir_len = len + strlen(tail);
    n = snprintf(buf, size, "%.*s%s/%s%016llx%s", (int)len, env, tail, prefix,
                 (unsigned long long)key, suffix);
    return n > 0 ? (size_t)n : 0;
}

char *sinpe__cache_path(const char *prefix, uint64_t key, const char *suffix, size_t *dir_len)
{
    size_t n = format_path(NULL, 0, prefix, key, suffix, dir_len);
    char *path = n ? malloc(n + 1) : NULL;
    if (path)
        format_path(path, n + 1, prefix, key, suffix, dir_len);
    return path;
}

/*
 * pocl keeps every build in its own kernel cache, keyed by source and
 * options, and asked for a program's binary it first compiles every kernel
 * of the program (bench/RESULTS.md, "A cold kernel cache"): there this
 * cache is used only in a directory SINPE_CACHE_DIR names.
 */
void sinpe__cache_open(sinpe__cache *c, cl_device_id dev, const char *options)
{
    const char *named = getenv("SINPE_CACHE_DIR");
    memset(c, 0, sizeof *c);
    if (mix_device(c, dev) == 0 && (!c->runtime_caches || (named && *named))) {
        mix(c, options, strlen(options));
        /* In the struct, not the heap (see mix_info); a longer path could
           not be opened anyway. */
        if (format_path(c->path, sizeof c->path, "", c->key, ".bin", &c->dir_len) >=
            sizeof c->path)
            c->path[0] = '\0';
    }
}

void sinpe__cache_close(sinpe__cache *c)
{
    memset(c, 0, sizeof *c);
}

void sinpe__cache_discard(const sinpe__cache *c)
{
    if (c->path[0])
        unlink(c->path);
}

/* Reads (writing == 0) or writes exactly n bytes; 0 on success. */
static int transfer(int fd, void *buf, size_t n, int writing)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t done = writing ? write(fd, p, n) : read(fd, p, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return -1;
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

cl_program sinpe__cache_load(const sinpe__cache *c, cl_context ctx, cl_device_id dev,
                             const char *options)
{
    unsigned char head[SINPE__CACHE_HEADER], *bin = NULL;
    const unsigned char *p;
    void *map = MAP_FAILED;
    cl_program prog = NULL;
    cl_int err, status = CL_SUCCESS;
    struct stat sb;
    uint64_t len;
    size_t n = 0;
    int fd;

    if (!c->path[0])
        return NULL;
    /* O_NONBLOCK: a FIFO planted under the name must not hang the caller. */
    if ((fd = open(c->path, O_RDONLY | O_NONBLOCK)) < 0)
        return NULL; /* the usual miss: no entry yet */
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || transfer(fd, head, sizeof head, 0) != 0)
        goto fail;
    len = get64(head + 32);
    if (memcmp(head, magic, sizeof magic) != 0 || get64(head + 8) != FORMAT ||
        get64(head + SINPE__CACHE_OFF_KEY) != c->key || get64(head + 24) != c->key_bytes ||
        len == 0 || len > MAX_PAYLOAD || (uint64_t)sb.st_size != sizeof head + len)
        goto fail;
    n = (size_t)len;
    /* With no heap for the payload it is mapped: a build from source takes
       far longer, and more memory.  Entries are replaced by a rename, never
       rewritten, so the file keeps the length checked above.  A sound entry
       that cannot be read for want of memory stays for the next context. */
    if ((bin = malloc(n)) == NULL &&
        (map = mmap(NULL, sizeof head + n, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    p = bin ? bin : (const unsigned char *)map + sizeof head;
    if ((bin && transfer(fd, bin, n, 0) != 0) ||
        sinpe__fnv1a(SINPE__FNV_BASIS, p, n) != get64(head + SINPE__CACHE_OFF_SUM))
        goto fail;
    prog = clCreateProgramWithBinary(ctx, 1, &dev, &n, &p, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS ||
        clBuildProgram(prog, 1, &dev, options, NULL, NULL) != CL_SUCCESS)
        goto fail;
    goto out;
fail:
    if (prog)
        clReleaseProgram(prog);
    prog = NULL;
    sinpe__cache_discard(c);
out:
    close(fd);
    free(bin);
    if (map != MAP_FAILED)
        munmap(map, sizeof head + n);
    return prog;
}

/* mkdir -p with mode 0700; errors surface when the file is created. */
static void make_dirs(const char *path, size_t dir_len)
{
    char *d = malloc(dir_len + 1);
    if (!d)
        return;
    memcpy(d, path, dir_len);
    for (size_t i = 1; i <= dir_len; i++) {
        if (i == dir_len || d[i] == '/') {
            d[i] = '\0';
            mkdir(d, 0700);
            d[i] = '/';
        }
    }
    free(d);
}

void sinpe__cache_store(const sinpe__cache *c, cl_program program, cl_device_id dev)
{
    cl_uint ndev = 0, idx;
    cl_device_id devs[MAX_DEVICES];
    size_t sizes[MAX_DEVICES], total = 0;
    unsigned char *bins[MAX_DEVICES], *all = NULL, head[SINPE__CACHE_HEADER];

    if (!c->path[0] ||
        clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL) != CL_SUCCESS ||
        ndev == 0 || ndev > MAX_DEVICES ||
        clGetProgramInfo(program, CL_PROGRAM_DEVICES, ndev * sizeof devs[0], devs, NULL) != CL_SUCCESS ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, ndev * sizeof sizes[0], sizes, NULL) != CL_SUCCESS)
        return;
    for (idx = 0; idx < ndev && devs[idx] != dev; idx++)
        ;
    if (idx == ndev || sizes[idx] == 0)
        return;
    /* Room for every device's binary: not every runtime skips NULL entries. */
    for (cl_uint i = 0; i < ndev; i++) {
        if (sizes[i] > MAX_PAYLOAD - total)
            return;
        total += sizes[i];
    }
    if (!(all = malloc(total)))
        return;
    for (cl_uint i = 0; i < ndev; i++)
        bins[i] = i == 0 ? all : bins[i - 1] + sizes[i - 1];
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, ndev * sizeof bins[0], bins, NULL) ==
        CL_SUCCESS) {
        memset(head, 0, sizeof head);
        memcpy(head, magic, sizeof magic);
        put64(head + 8, FORMAT); /* the format, then the zero u32 */
        put64(head + SINPE__CACHE_OFF_KEY, c->key);
        put64(head + 24, c->key_bytes);
        put64(head + 32, (uint64_t)sizes[idx]);
        put64(head + SINPE__CACHE_OFF_SUM, sinpe__fnv1a(SINPE__FNV_BASIS, bins[idx], sizes[idx]));
        sinpe__write_file(c->path, c->dir_len, head, sizeof head, bins[idx], sizes[idx]);
    }
    free(all);
}

int sinpe__write_file(const char *path, size_t dir_len, const void *head, size_t head_len,
                      const void *body, size_t body_len)
{
    size_t tmp_len = strlen(path) + sizeof ".tmp.XXXXXX";
    char *tmp = malloc(tmp_len);
    int fd, ok;
    if (!tmp)
        return -1;
    make_dirs(path, dir_len);
    snprintf(tmp, tmp_len, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) {
        free(tmp);
        return -1;
    }
    ok = transfer(fd, (void *)head, head_len, 1) == 0 &&
         transfer(fd, (void *)body, body_len, 1) == 0;
    ok = close(fd) == 0 && ok; /* close is the last chance to hear of a failed write */
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        ok = 0;
    }
    free(tmp);
    return ok ? 0 : -1;
}
