/* main.c -- runs every suite of the sinpe tests.
 *
 * The random seed comes from SINPE_TEST_SEED (decimal or 0x-hex) when set,
 * else from the clock; it is printed first so that a failing run can be
 * repeated exactly.  Check's own variables still apply: CK_RUN_SUITE and
 * CK_RUN_CASE pick one suite or test case, CK_FORK=no runs in one process
 * (handy under a debugger), CK_VERBOSITY=verbose lists every test.
 *
 * "sinpe_tests --records" prints, one a line, the tuning records that
 * reach every form of the database (tu_variants), for running
 * suites under each with SINPE_TUNING (the Makefile's check-records
 * target); "--record-tags" prints those of them that add a kernel form to
 * a run under the device's own record, each with the forms it adds
 * (forms.c), "--suites" the suites' names, for scripts/run-tests.sh, and
 * "--device" the device a context would take (SINPE_DEVICE, else the first
 * GPU) as its name and type, for scripts/device-check.sh.
 *
 * No OpenCL object may be created here: Check forks each test, and a pocl
 * context made before the fork hangs the child. */
#include "forms.h"
#include "sinpe_internal.h"
#include "test_util.h"
#include "variants.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int read_seed(uint64_t *seed)
{
    const char *env = getenv("SINPE_TEST_SEED");
    if (env && *env) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 0);
        if (errno != 0 || end == env || *end != '\0') {
            fprintf(stderr, "SINPE_TEST_SEED=\"%s\" is not a number\n", env);
            return -1;
        }
        *seed = (uint64_t)v;
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *seed = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^
            ((uint64_t)getpid() << 40);
    return 0;
}

/* The suites, each registered by its own file before main runs (TU_SUITE,
   test_util.h), kept sorted: the longest on a cold kernel cache first
   (scripts/run-tests.sh starts them in this order), ties by name. */
static struct { const char *name; int seconds; Suite *(*make)(void); } suites[64];
static size_t n_suites;

void tu_suite_register(const char *name, int seconds, Suite *(*make)(void))
{
    if (n_suites == sizeof suites / sizeof suites[0])
        abort(); /* more suites than rows: make suites[] longer */
    size_t i = n_suites++;
    for (; i > 0 && (suites[i - 1].seconds < seconds ||
                     (suites[i - 1].seconds == seconds && strcmp(suites[i - 1].name, name) > 0));
         i--)
        suites[i] = suites[i - 1];
    suites[i].name = name, suites[i].seconds = seconds, suites[i].make = make;
}

static int print_records(void)
{
    static char v[64][SINPE__VARIANT];
    size_t n = tu_variants(v, 64);
    if (n > 64)
        return EXIT_FAILURE;
    for (size_t i = 0; i < n; i++)
        printf("%s\n", v[i]);
    return EXIT_SUCCESS;
}

static int print_device(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type = 0;
    char name[256] = "";
    sinpe_status st = sinpe__device_pick(NULL, &platform, &device);
    if (st != SINPE_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS) {
        fprintf(stderr, "no device: %s\n", sinpe_status_string(st));
        return EXIT_FAILURE;
    }
    printf("%s (%s)\n", name,
           type & CL_DEVICE_TYPE_GPU ? "GPU" : type & CL_DEVICE_TYPE_CPU ? "CPU" : "other");
    return EXIT_SUCCESS;
}

/* The suites' contexts get sinpe's program cache as a user's program gets
 * it (include/sinpe.h, no_disk_cache: on, but on pocl, which caches its own
 * builds), in a folder of the test run instead of the user's: the folder
 * SINPE_TEST_CACHE names (scripts/run-tests.sh makes one in the run's
 * logs, afresh each run) becomes XDG_CACHE_HOME, the variable a user sets
 * to move caches.  A run thus builds each program from source once, and
 * its other contexts, in every process of the run, load it: on a compiler
 * without a cache of its own (Intel's, over a minute a context) a suite
 * then takes seconds where it took minutes, and no test runs into Check's
 * timeout building programs.  pocl's kernel cache, which
 * follows XDG_CACHE_HOME too, is pinned where it was.  Without
 * SINPE_TEST_CACHE the cache is off, to keep the suites out of the user's
 * cache directory; SINPE_CACHE_DIR, when set, is left as the caller set
 * it.  The suites that test the cache or need a cold build (cache,
 * context's quiet test, tuning) set their own directories. */
static void use_run_cache(void)
{
    const char *dir = getenv("SINPE_TEST_CACHE");
    if (getenv("SINPE_CACHE_DIR"))
        return;
    if (!dir || dir[0] != '/') {
        setenv("SINPE_CACHE_DIR", "off", 1);
        return;
    }
    tu_pin_pocl_cache();
    setenv("XDG_CACHE_HOME", dir, 1);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--records") == 0)
        return print_records();
    if (argc == 2 && strcmp(argv[1], "--suites") == 0) {
        for (size_t i = 0; i < n_suites; i++)
            printf("%s\n", suites[i].name);
        return EXIT_SUCCESS;
    }
    if (argc == 2 && strcmp(argv[1], "--record-tags") == 0)
        return tu_print_record_tags() == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (argc == 2 && strcmp(argv[1], "--device") == 0)
        return print_device();
    if (argc > 1) {
        fprintf(stderr, "usage: %s [--records | --record-tags | --suites | --device]\n",
                argv[0]);
        return EXIT_FAILURE;
    }
    if (read_seed(&tu_seed) != 0)
        return EXIT_FAILURE;
    printf("sinpe tests: seed %llu (SINPE_TEST_SEED=%llu repeats this run)\n",
           (unsigned long long)tu_seed, (unsigned long long)tu_seed);
    use_run_cache();
    /* Flush before Check forks, or every child would print the line again. */
    fflush(stdout);

    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < n_suites; i++)
        srunner_add_suite(sr, suites[i].make());

    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr), ran = srunner_ntests_run(sr);
    srunner_free(sr);
    /* A misspelt CK_RUN_SUITE or tag would otherwise pass, testing nothing. */
    if (ran == 0) {
        printf("sinpe tests: no test matched CK_RUN_SUITE, CK_RUN_CASE or the tags\n");
        return EXIT_FAILURE;
    }

    if (failed)
        printf("sinpe tests: %d failed (seed %llu)\n", failed, (unsigned long long)tu_seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
