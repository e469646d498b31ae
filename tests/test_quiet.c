/* test_quiet.c -- a host's first context prints nothing.  The library never
 * writes to stdout or stderr, and neither may the OpenCL compiler it drives:
 * a clang-based one prints "N warnings generated." on the process's stderr
 * for any warning, outside the build log (pocl on x86 without AVX-512 warned
 * 80 times a program).  The context is made as a host's first run makes it:
 * default options, the device the environment picks, empty caches (sinpe's
 * and pocl's), so that every program is compiled from source.
 *
 * Part of suite_context.  Under CK_FORK=no an OpenCL runtime that some
 * earlier test started keeps its own cache directory, so the programs may
 * then come from it; the check still runs. */
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const env_names[] = {"SINPE_CACHE_DIR", "POCL_CACHE_DIR"};
#define N_ENV (sizeof env_names / sizeof env_names[0])

/* Points fd (1 or 2) at file; returns the saved descriptor. */
static int capture(int fd, const char *file)
{
    int saved = dup(fd), f = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_msg(saved >= 0 && f >= 0, "capture of fd %d: %s", fd, strerror(errno));
    ck_assert_int_ge(dup2(f, fd), 0);
    close(f);
    return saved;
}

static void release_capture(int fd, int saved)
{
    fflush(fd == 1 ? stdout : stderr);
    dup2(saved, fd);
    close(saved);
}

/* The file's text (at most n - 1 bytes of it) in buf; its length. */
static size_t slurp(const char *file, char *buf, size_t n)
{
    FILE *f = fopen(file, "rb");
    size_t got = 0;
    struct stat sb;
    ck_assert_msg(f != NULL, "%s: %s", file, strerror(errno));
    got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
    ck_assert_int_eq(stat(file, &sb), 0);
    return (size_t)sb.st_size;
}

START_TEST(first_context_prints_nothing)
{
    char dir[512], sub[N_ENV][600], out[2][600], text[2048];
    char *saved_env[N_ENV];
    sinpe_context *ctx = NULL;
    sinpe_status st;
    int saved[2];

    tu_scratch_dir(dir, sizeof dir, "sinpe_quiet_");
    tu_env_save(env_names, N_ENV, saved_env);
    for (size_t i = 0; i < N_ENV; i++) {
        snprintf(sub[i], sizeof sub[i], "%s/%s", dir, env_names[i]);
        ck_assert_int_eq(mkdir(sub[i], 0700), 0);
        setenv(env_names[i], sub[i], 1);
    }
    for (int k = 0; k < 2; k++)
        snprintf(out[k], sizeof out[k], "%s/fd%d", dir, k + 1);

    fflush(stdout);
    fflush(stderr);
    saved[0] = capture(1, out[0]);
    saved[1] = capture(2, out[1]);
    st = sinpe_context_create(NULL, &ctx);
    if (st == SINPE_SUCCESS)
        sinpe_context_release(ctx);
    release_capture(2, saved[1]);
    release_capture(1, saved[0]);

    tu_env_restore(env_names, N_ENV, saved_env);
    ck_assert_msg(st == SINPE_SUCCESS, "sinpe_context_create: %s (%s)", sinpe_status_string(st),
                  sinpe_last_error());
    for (int k = 0; k < 2; k++) {
        size_t n = slurp(out[k], text, sizeof text);
        unlink(out[k]);
        ck_assert_msg(n == 0, "a first context wrote %zu bytes to %s:\n%s", n,
                      k ? "stderr" : "stdout", text);
    }
    tu_remove_tree(dir);
}
END_TEST

TCase *tcase_quiet(void)
{
    TCase *tc = tu_tcase(NULL, "quiet", "cold"); /* every program compiled: see test_context.c */
    tcase_add_test(tc, first_context_prints_nothing);
    return tc;
}
