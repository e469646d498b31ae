/* test_source.c -- source checks that a CPU run cannot make numerically.
 *
 * pocl implements native_sin and half_sin as the full-precision sin, so a
 * kernel that used them, or a build with -cl-fast-relaxed-math, would pass
 * every accuracy test here and still miss the 1.5e-7 bar on a GPU.  These
 * tests read the .cl files in kernels/ and the .c and .h files in src/
 * (relative to the repository root, where "make check" runs the tests;
 * "../" is tried too) and reject
 *   - calls of native_* and half_* math functions (vload_half/vstore_half
 *     are loads and stores, not math, and stay allowed),
 *   - build options that relax IEEE semantics: -cl-fast-relaxed-math,
 *     -cl-unsafe-math-optimizations, and -cl-mad-enable (mad may round
 *     differently per device, which breaks "the same bits on every
 *     conforming device" of SINPE_MATH_FLOAT).
 * Comments are stripped first, so prose may name what it avoids. */
#include "test_util.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Scanner ---- */

/* Returns a copy of C or OpenCL C text with comments replaced by spaces;
 * string and character literals are kept (build options live in strings). */
static char *strip_comments(const char *src)
{
    size_t n = strlen(src), i = 0;
    char *out = tu_malloc(n + 1);
    memcpy(out, src, n + 1);
    while (i < n) {
        if (src[i] == '/' && (src[i + 1] == '*' || src[i + 1] == '/')) {
            /* A block comment ends after its closing star-slash (or at the
             * end), a line comment at its newline; newlines stay. */
            int block = src[i + 1] == '*';
            size_t end = i + 2;
            while (end < n && (block ? !(src[end] == '*' && src[end + 1] == '/')
                                     : src[end] != '\n'))
                end++;
            if (block && end < n)
                end += 2;
            for (; i < end; i++)
                if (out[i] != '\n')
                    out[i] = ' ';
        } else if (src[i] == '"' || src[i] == '\'') {
            /* A literal runs to its closing quote or the line's end. */
            char q = src[i++];
            while (i < n && src[i] != q && src[i] != '\n')
                i += src[i] == '\\' && i + 1 < n ? 2 : 1;
            i++;
        } else {
            i++;
        }
    }
    return out;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Finds the first forbidden construct in text (comments already stripped):
 * an identifier starting with native_ or half_ followed by "(", or one of
 * the relaxed-math options.  Returns its offset, or -1; *what names it. */
static long find_forbidden(const char *text, const char **what)
{
    static const char *const prefixes[] = {"native_", "half_"};
    static const char *const options[] = {"-cl-fast-relaxed-math",
                                          "-cl-unsafe-math-optimizations", "-cl-mad-enable"};
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        const char *p = strstr(text, options[k]);
        if (p) {
            *what = options[k];
            return (long)(p - text);
        }
    }
    for (const char *p = text; *p; p++) {
        if (p > text && ident_char(p[-1]))
            continue;
        for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
            size_t len = strlen(prefixes[k]);
            if (strncmp(p, prefixes[k], len) != 0 || !ident_char(p[len]))
                continue;
            const char *e = p + len;
            while (ident_char(*e))
                e++;
            while (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r')
                e++;
            if (*e == '(') {
                *what = prefixes[k];
                return (long)(p - text);
            }
        }
    }
    return -1;
}

/* The repository root relative to the working directory, or NULL. */
static const char *repo_root(void)
{
    static const char *const roots[] = {"", "../"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "%sinclude/sinpe.h", roots[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            return roots[i];
        }
    }
    return NULL;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* Scans every file of dir ending in one of the suffixes; returns how many
 * were scanned and fails on the first forbidden construct. */
static int scan_dir(const char *dir, const char *const *suffixes, size_t n_suffixes)
{
    const char *root = repo_root();
    ck_assert_msg(root != NULL,
                  "cannot find the sources: run the tests from the repository root "
                  "(make check does)");
    char dpath[256];
    snprintf(dpath, sizeof dpath, "%s%s", root, dir);
    DIR *d = opendir(dpath);
    ck_assert_msg(d != NULL, "cannot open %s", dpath);
    int scanned = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        int match = 0;
        for (size_t k = 0; k < n_suffixes; k++)
            match |= has_suffix(ent->d_name, suffixes[k]);
        if (!match)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dpath, ent->d_name);
        char *text = tu_read_text(path);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        char *code = strip_comments(text);
        const char *what = NULL;
        long at = find_forbidden(code, &what);
        if (at >= 0) {
            long line = 1;
            for (long i = 0; i < at; i++)
                line += code[i] == '\n';
            char snippet[64];
            snprintf(snippet, sizeof snippet, "%.40s", code + at);
            for (char *c = snippet; *c; c++)
                if (*c == '\n')
                    *c = ' ';
            closedir(d);
            ck_abort_msg("%s:%ld uses %s (\"%s\")", path, line, what, snippet);
        }
        free(code);
        free(text);
        scanned++;
    }
    closedir(d);
    return scanned;
}

/* ---- Tests ---- */

START_TEST(scanner_finds_what_it_must)
{
    /* The checks below are only as good as the scanner. */
    static const struct {
        const char *text;
        int forbidden;
    } cases[] = {
        {"float s = native_sin(a);", 1},
        {"float s = native_cos (a);", 1},
        {"x = half_exp(y);", 1},
        {"opts = \"-cl-std=CL1.2 -cl-fast-relaxed-math\";", 1},
        {"opts = \"-cl-mad-enable\";", 1},
        {"/* we avoid native_sin() and -cl-fast-relaxed-math */ s = sin(a);", 0},
        {"// native_cos(x) is inaccurate on GPUs\ns = cos(a);", 0},
        {"vstore_half_rte(v, i, p); f = vload_half(i, p);", 0},
        {"int my_native_sin(void);", 0},
        {"float native_scale = 2.0f;", 0},
        {"const char *s = \"// not a comment\"; y = native_exp(x);", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *code = strip_comments(cases[i].text);
        const char *what = NULL;
        int found = find_forbidden(code, &what) >= 0;
        ck_assert_msg(found == cases[i].forbidden, "scanner says %s for: %s",
                      found ? "forbidden" : "clean", cases[i].text);
        free(code);
    }
}
END_TEST

START_TEST(kernels_use_no_relaxed_math)
{
    static const char *const cl[] = {".cl"};
    int n = scan_dir("kernels", cl, 1);
    ck_assert_msg(n > 0, "no kernels/*.cl found to check");
}
END_TEST

START_TEST(host_sources_use_no_relaxed_math)
{
    static const char *const c[] = {".c", ".h"};
    int n = scan_dir("src", c, 2);
    ck_assert_msg(n > 0, "no src/*.c found to check");
}
END_TEST

TU_SUITE(source, 2)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("accuracy");
    TU_ADD(tc, scanner_finds_what_it_must, kernels_use_no_relaxed_math,
           host_sources_use_no_relaxed_math);
    suite_add_tcase(s, tc);
    return s;
}
