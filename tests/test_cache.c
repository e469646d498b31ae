/* test_cache.c -- the on-disk cache of program binaries (src/cache.c): where
 * entries go, that a second context loads them, that every kind of damaged
 * or foreign entry is detected, deleted and rewritten, and that the cache
 * can be turned off.
 *
 * Each test points SINPE_CACHE_DIR (or XDG_CACHE_HOME, HOME) at a fresh
 * directory from mkdtemp.  Check forks every test, so these settings stay in
 * the test's own process; the fixture still restores them, for CK_FORK=no.
 * pocl keeps its own kernel cache under XDG_CACHE_HOME or HOME too: the
 * fixture pins it (POCL_CACHE_DIR) where it was, or every test that moves
 * them would compile the kernels cold (a minute each on two cores).
 * Whether a context's kernels came from the disk is read from the internal
 * flags sinpe__program.from_disk (the tests link the static library).  A
 * context has N_PROGRAMS programs, each its own entry: the base one and
 * those of the three float weight types (src/context.c). */
#include "test_util.h"
#include "sinpe_internal.h"
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_PROGRAMS 4

/* ---- Fixture: a scratch directory and the environment it replaces ---- */

static const char *const env_names[] = {"SINPE_CACHE_DIR", "XDG_CACHE_HOME", "HOME",
                                         "POCL_CACHE_DIR"};
#define N_ENV (sizeof env_names / sizeof env_names[0])
static char *env_saved[N_ENV];
static char scratch[512];

static void setup(void)
{
    tu_env_save(env_names, N_ENV, env_saved);
    tu_pin_pocl_cache();
    tu_scratch_dir(scratch, sizeof scratch, "sinpe_cache_");
    ck_assert_int_eq(setenv("SINPE_CACHE_DIR", scratch, 1), 0);
}

static void teardown(void)
{
    tu_remove_tree(scratch);
    tu_env_restore(env_names, N_ENV, env_saved);
}

/* ---- Helpers ---- */

/* A path under the scratch directory. */
static const char *under(const char *rel, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", scratch, rel);
    return buf;
}

/*
 * Asserts that dir holds only "<16 hex>.bin" entries (a leftover temp file
 * fails), returns how many, and the path of the last one in path.
 */
static int count_entries(const char *dir, char *path, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int bins = 0;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        ck_assert_msg(n == 20 && strspn(e->d_name, "0123456789abcdef") == 16 &&
                          strcmp(e->d_name + 16, ".bin") == 0,
                      "unexpected entry \"%s\" in the cache directory", e->d_name);
        bins++;
        if (path)
            snprintf(path, size, "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    return bins;
}

/* Asserts that dir holds exactly want_bins entries (see count_entries). */
static void expect_entries(const char *dir, int want_bins, char *path, size_t size)
{
    int bins = count_entries(dir, path, size);
    ck_assert_msg(bins == want_bins, "%d cache entries in %s, expected %d", bins, dir, want_bins);
}

static sinpe_context *make_context(int no_disk_cache)
{
    sinpe_context_options o;
    sinpe_context *ctx = NULL;
    sinpe_context_options_init(&o);
    ck_assert_int_eq(o.no_disk_cache, 0);
    o.no_disk_cache = no_disk_cache;
    TU_OK(sinpe_context_create(&o, &ctx));
    ck_assert_str_eq(sinpe_last_error(), "");
    return ctx;
}

/* Creates a context, checks how many of its programs came from the disk
 * and that it works; what names the situation in a failure message. */
static void create_check_what(int no_disk_cache, int want_from_disk, const char *what)
{
    sinpe_context *ctx = make_context(no_disk_cache);
    int from_disk = ctx->prog.from_disk;
    for (int w = SINPE_F32; w <= SINPE_BF16; w++)
        from_disk += ctx->wprog[w].from_disk;
    ck_assert_msg(from_disk == want_from_disk, "%s: %d programs from the disk, expected %d",
                  what, from_disk, want_from_disk);
    tu_check_context_works(ctx);
    sinpe_context_release(ctx);
}

#define create_check(no_disk_cache, want) create_check_what((no_disk_cache), (want), __func__)

static unsigned char *read_file(const char *path, size_t *size)
{
    struct stat sb;
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL && stat(path, &sb) == 0, "cannot read %s", path);
    *size = (size_t)sb.st_size;
    unsigned char *buf = tu_malloc(*size + 1);
    ck_assert_uint_eq(fread(buf, 1, *size, f), *size);
    fclose(f);
    return buf;
}

/* ---- Tests ---- */

START_TEST(cache_write_then_load)
{
    char path[1024];
    struct stat before, after;

    create_check(0, 0);
    expect_entries(scratch, N_PROGRAMS, path, sizeof path);
    ck_assert_int_eq(stat(path, &before), 0);
    ck_assert_msg((before.st_mode & 077) == 0, "the entry is readable by others: %o",
                  (unsigned)before.st_mode);

    /* The second context loads the entry and leaves it exactly as it was. */
    create_check(0, N_PROGRAMS);
    expect_entries(scratch, N_PROGRAMS, NULL, 0);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert(before.st_ino == after.st_ino && before.st_size == after.st_size);
    ck_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
              before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);

    /* Another math path has other build options, hence its own entries
     * (the key is the device's and the options'; building the fp64 path
     * here would cost a cold pocl a minute of compiles for no more). */
    sinpe_context *ctx = make_context(1);
    for (int w = -1; w <= SINPE_BF16; w++) {
        char opt[2][1024];
        sinpe__cache c[2];
        for (int m = 0; m < 2; m++) {
            sinpe__plan_options(&ctx->tune, tu_math(m), w, opt[m], sizeof opt[m]);
            sinpe__cache_open(&c[m], ctx->device, opt[m]);
            ck_assert_msg(c[m].path[0] != '\0', "no cache path");
        }
        ck_assert_str_ne(opt[0], opt[1]);
        ck_assert_str_ne(c[0].path, c[1].path);
        sinpe__cache_close(&c[0]);
        sinpe__cache_close(&c[1]);
    }
    sinpe_context_release(ctx);
}
END_TEST

/* Whether the device's platform keeps its own cache of builds (pocl's
 * platform version names it), where sinpe's cache is used only in a
 * directory SINPE_CACHE_DIR names (include/sinpe.h, no_disk_cache). */
static int runtime_caches(void)
{
    sinpe_context *ctx = make_context(1);
    cl_platform_id plat = NULL;
    char version[512] = "";
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_PLATFORM, sizeof plat, &plat,
                          NULL));
    TU_CL(clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof version - 1, version, NULL));
    sinpe_context_release(ctx);
    return strstr(version, "PoCL") != NULL;
}

/* Where the entry goes: 0 SINPE_CACHE_DIR with missing parents, 1 a
 * trailing slash, 2 $XDG_CACHE_HOME/sinpe, 3 $HOME/.cache/sinpe (on pocl:
 * the path, and that nothing is written there). */
START_TEST(cache_location)
{
    char dir[1024], env[1024];
    struct stat sb;

    unsetenv("SINPE_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    switch (_i) {
    case 0:
        setenv("SINPE_CACHE_DIR", under("a/b/c", dir, sizeof dir), 1);
        break;
    case 1:
        under("d", dir, sizeof dir);
        setenv("SINPE_CACHE_DIR", under("d//", env, sizeof env), 1);
        break;
    case 2:
        setenv("XDG_CACHE_HOME", under("xdg", env, sizeof env), 1);
        under("xdg/sinpe", dir, sizeof dir);
        break;
    default:
        /* A relative XDG_CACHE_HOME is ignored, as the XDG spec asks (pocl
         * would use it too, but its cache is pinned by the fixture). */
        setenv("XDG_CACHE_HOME", "relative/cache", 1);
        setenv("HOME", under("home", env, sizeof env), 1);
        under("home/.cache/sinpe", dir, sizeof dir);
        break;
    }
    if (_i >= 2 && runtime_caches()) {
        /* pocl: the fallback directory is the documented one, but with no
         * SINPE_CACHE_DIR nothing is read or written there. */
        size_t dir_len = 0;
        char *path = sinpe__cache_path("", 1, ".bin", &dir_len);
        ck_assert_ptr_nonnull(path);
        ck_assert_msg(dir_len == strlen(dir) && strncmp(path, dir, dir_len) == 0,
                      "cache path %s, expected one in %s", path, dir);
        free(path);
        create_check(0, 0);
        create_check(0, 0);
        ck_assert_msg(stat(dir, &sb) != 0, "%s was made on pocl", dir);
        return;
    }
    create_check(0, 0);
    expect_entries(dir, N_PROGRAMS, NULL, 0);
    ck_assert(stat("relative/cache/sinpe", &sb) != 0);
    ck_assert_int_eq(stat(dir, &sb), 0);
    ck_assert_msg((sb.st_mode & 0777) == 0700, "cache directory mode %o", (unsigned)sb.st_mode);
    create_check(0, N_PROGRAMS);
}
END_TEST

enum damage {
    TRUNC_HALF, TRUNC_HEADER, TRUNC_SHORT, EMPTY, FLIP_PAYLOAD, FLIP_LAST, FLIP_MAGIC,
    FOREIGN_KEY, GARBAGE_BINARY, FIFO, N_DAMAGE
};
static const char *const damage_names[N_DAMAGE] = {
    "truncated to half", "truncated to the header", "truncated inside the header", "empty",
    "a flipped payload byte", "a flipped last byte", "a flipped magic byte",
    "another key's entry", "a well-formed entry holding garbage", "a FIFO"};

/* Makes the entry at path another key's, by changing the key in its header
 * (its checksum covers the payload only: the key is what must catch it). */
static void make_foreign(const char *path)
{
    size_t n;
    unsigned char *buf = read_file(path, &n);
    buf[SINPE__CACHE_OFF_KEY] ^= 1;
    tu_write_file(path, buf, n);
    free(buf);
}

START_TEST(cache_damaged_entry)
{
    enum damage kind = (enum damage)_i;
    char path[1024];
    unsigned char *buf;
    size_t n;

    create_check(0, 0);
    expect_entries(scratch, N_PROGRAMS, path, sizeof path);
    buf = read_file(path, &n);
    ck_assert_uint_gt(n, SINPE__CACHE_HEADER + 64);
    switch (kind) {
    case TRUNC_HALF:   ck_assert_int_eq(truncate(path, (off_t)(n / 2)), 0); break;
    case TRUNC_HEADER: ck_assert_int_eq(truncate(path, SINPE__CACHE_HEADER), 0); break;
    case TRUNC_SHORT:  ck_assert_int_eq(truncate(path, 7), 0); break;
    case EMPTY:        ck_assert_int_eq(truncate(path, 0), 0); break;
    case FLIP_PAYLOAD: buf[SINPE__CACHE_HEADER + (n - SINPE__CACHE_HEADER) / 2] ^= 0x10;
                       tu_write_file(path, buf, n); break;
    case FLIP_LAST:    buf[n - 1] ^= 0x01; tu_write_file(path, buf, n); break;
    case FLIP_MAGIC:   buf[0] ^= 0x20; tu_write_file(path, buf, n); break;
    case FOREIGN_KEY:  make_foreign(path); break;
    case GARBAGE_BINARY: {
        /* Passes every check of the header: only the runtime can reject it. */
        tu_rng rng = tu_rng_for("cache_garbage");
        uint64_t sum;
        for (size_t i = SINPE__CACHE_HEADER; i < n; i++)
            buf[i] = (unsigned char)tu_rng_next(&rng);
        sum = sinpe__fnv1a(SINPE__FNV_BASIS, buf + SINPE__CACHE_HEADER, n - SINPE__CACHE_HEADER);
        for (int i = 0; i < 8; i++)
            buf[SINPE__CACHE_OFF_SUM + i] = (unsigned char)(sum >> (8 * i));
        tu_write_file(path, buf, n);
        break;
    }
    default:
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        break;
    }
    free(buf);

    /* Detected: that program built from source, the others loaded; it works. */
    create_check_what(0, N_PROGRAMS - 1, damage_names[kind]);
    /* Rewritten: every entry valid again. */
    expect_entries(scratch, N_PROGRAMS, NULL, 0);
    create_check_what(0, N_PROGRAMS, damage_names[kind]);
}
END_TEST

/* An entry the cache cannot replace (a directory in its place) or a
 * directory it cannot make: the context still works, nothing is left. */
START_TEST(cache_unwritable)
{
    char path[1024], file[1024];
    if (_i == 0) {
        create_check(0, 0);
        expect_entries(scratch, N_PROGRAMS, path, sizeof path);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        create_check(0, N_PROGRAMS - 1);
        ck_assert_int_eq(rmdir(path), 0); /* still empty: no temp file inside */
        expect_entries(scratch, N_PROGRAMS - 1, NULL, 0);
    } else {
        tu_write_file(under("file", file, sizeof file), (const unsigned char *)"x", 1);
        setenv("SINPE_CACHE_DIR", under("file/sub", path, sizeof path), 1);
        create_check(0, 0);
        create_check(0, 0);
    }
}
END_TEST

/* 0 SINPE_CACHE_DIR=off, 1 SINPE_CACHE_DIR empty, 2 the option. */
START_TEST(cache_disabled)
{
    char home[1024], xdg[1024], path[1024];
    struct stat sb;

    /* The fallbacks point here too, so that a write to either would show.
     * (pocl keeps its own kernel cache under them: only sinpe's is checked.) */
    setenv("HOME", under("home", home, sizeof home), 1);
    setenv("XDG_CACHE_HOME", under("xdg", xdg, sizeof xdg), 1);
    if (_i == 2) {
        /* A valid entry is there, but the option neither reads nor writes. */
        struct stat before, after;
        char dir[1024];
        setenv("SINPE_CACHE_DIR", under("c", dir, sizeof dir), 1);
        create_check(0, 0);
        expect_entries(dir, N_PROGRAMS, path, sizeof path);
        ck_assert_int_eq(stat(path, &before), 0);
        create_check(1, 0);
        ck_assert_int_eq(stat(path, &after), 0);
        ck_assert(before.st_ino == after.st_ino &&
                  before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
                  before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
        ck_assert_int_eq(unlink(path), 0);
        create_check(1, 0);
        ck_assert_msg(stat(path, &sb) != 0, "no_disk_cache wrote an entry");
    } else {
        setenv("SINPE_CACHE_DIR", _i == 0 ? "off" : "", 1);
        create_check(0, 0);
        create_check(0, 0);
    }
    ck_assert_msg(stat(under("xdg/sinpe", path, sizeof path), &sb) != 0, "%s exists", path);
    ck_assert_msg(stat(under("home/.cache/sinpe", path, sizeof path), &sb) != 0, "%s exists",
                  path);
}
END_TEST

/*
 * Each host allocation failing in turn (tests/fault.c), with the program of
 * a quantized type besides the float ones.  0: every entry at hand; each
 * context and SINPE_I8 program made is either refused with
 * SINPE_OUT_OF_HOST_MEMORY or loaded whole from the disk, and no entry is
 * deleted: finding, reading and loading an entry is no reason to build from
 * source, which takes a compiler without a cache of its own over a minute
 * (README, "A second OpenCL implementation").  1: the SINPE_I8 program built
 * into an empty directory; each either refused or made, and the entry, when
 * one is written, whole and loaded by the next context.  The walk ends when
 * no allocation was left to fail; once what was made is released, every
 * buffer, kernel and event is given back (and, under make check-asan, all
 * host memory).
 */
START_TEST(cache_host_allocations)
{
    char cold[1024];
    sinpe_context *ctx = make_context(0);
    int absorbed = 0, k;
    TU_OK(sinpe_context_prepare(ctx, SINPE_I8));
    sinpe_context_release(ctx);
    expect_entries(scratch, N_PROGRAMS + 1, NULL, 0);
    under("cold", cold, sizeof cold);
    for (k = 0;; k++) {
        const tu_refs refs0 = tu_refs_now();
        sinpe_status st[2] = {SINPE_SUCCESS, SINPE_SUCCESS};
        int from_disk = 0, made, done;
        ctx = NULL;
        setenv("SINPE_CACHE_DIR", scratch, 1);
        if (_i == 1) {
            ctx = make_context(0);
            setenv("SINPE_CACHE_DIR", cold, 1);
        }
        tu_fail_host_skip = k, tu_fail_host = 1;
        if (_i == 0)
            st[0] = sinpe_context_create(NULL, &ctx);
        if (st[0] == SINPE_SUCCESS)
            st[1] = sinpe_context_prepare(ctx, SINPE_I8);
        done = tu_fail_host == 1;
        tu_fail_host = 0, tu_fail_host_skip = 0;
        made = st[0] == SINPE_SUCCESS && st[1] == SINPE_SUCCESS;
        ck_assert_msg((st[0] == SINPE_SUCCESS || st[0] == SINPE_OUT_OF_HOST_MEMORY) &&
                          (st[1] == SINPE_SUCCESS || st[1] == SINPE_OUT_OF_HOST_MEMORY),
                      "allocation %d failing: %s, then %s", k, sinpe_status_string(st[0]),
                      sinpe_status_string(st[1]));
        if (made && _i == 0) {
            from_disk = ctx->prog.from_disk + ctx->wprog[SINPE_I8].from_disk;
            for (int w = SINPE_F32; w <= SINPE_BF16; w++)
                from_disk += ctx->wprog[w].from_disk;
            ck_assert_msg(from_disk == N_PROGRAMS + 1,
                          "allocation %d failing: %d programs from the disk, expected %d", k,
                          from_disk, N_PROGRAMS + 1);
        }
        absorbed += !done && made;
        sinpe_context_release(ctx);
        tu_refs_returned(refs0, "host allocations failing by the cache");
        if (_i == 0) {
            expect_entries(scratch, N_PROGRAMS + 1, NULL, 0);
        } else if (count_entries(cold, NULL, 0) == 1) {
            setenv("SINPE_CACHE_DIR", scratch, 1);
            ctx = make_context(0);
            setenv("SINPE_CACHE_DIR", cold, 1);
            TU_OK(sinpe_context_prepare(ctx, SINPE_I8));
            ck_assert_msg(ctx->wprog[SINPE_I8].from_disk,
                          "allocation %d failing: the entry written is not loaded", k);
            sinpe_context_release(ctx);
            tu_remove_tree(cold);
        }
        if (done)
            break;
    }
    printf("cache, %s: %d allocations failed in turn, %d of them absorbed\n",
           _i ? "stored" : "at hand", k, absorbed);
}
END_TEST

#define N_THREADS 4

static void *create_in_thread(void *arg)
{
    sinpe_status *st = arg;
    sinpe_context *ctx = NULL;
    *st = sinpe_context_create(NULL, &ctx);
    sinpe_context_release(ctx);
    return NULL;
}

/* Contexts made at once all miss, build, store, and leave one whole entry.
 * One context is made first: pocl 3.1 initialises its devices racily when
 * several threads call it for the first time at once (a crash outside sinpe's
 * cache, see the report on device discovery). */
START_TEST(cache_concurrent)
{
    pthread_t threads[N_THREADS];
    sinpe_status st[N_THREADS];
    sinpe_context_release(make_context(1));
    expect_entries(scratch, 0, NULL, 0);
    for (int i = 0; i < N_THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, create_in_thread, &st[i]), 0);
    for (int i = 0; i < N_THREADS; i++) {
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
        ck_assert_msg(st[i] == SINPE_SUCCESS, "thread %d: %s", i, sinpe_status_string(st[i]));
    }
    expect_entries(scratch, N_PROGRAMS, NULL, 0);
    create_check(0, N_PROGRAMS);
}
END_TEST

TU_SUITE(cache, 187)
{
    Suite *s = suite_create("cache");
    TCase *tc = tu_tcase(s, "disk", NULL);
    tcase_set_timeout(tc, TU_TIMEOUT_COLD); /* a cold build with the disk cache on */
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, cache_write_then_load);
    tcase_add_loop_test(tc, cache_location, 0, 4);
    tcase_add_loop_test(tc, cache_damaged_entry, 0, N_DAMAGE);
    tcase_add_loop_test(tc, cache_unwritable, 0, 2);
    tcase_add_loop_test(tc, cache_disabled, 0, 3);
    tcase_add_test(tc, cache_concurrent);
    tcase_add_loop_test(tc, cache_host_allocations, 0, 2);
    return s;
}
