/*
 * main.c -- runs every suite of the sinpe tests.
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
 * (forms.c), for the test target.
 *
 * No OpenCL object may be created here: Check forks each test, and a pocl
 * context made before the fork hangs the child.
 */
#include "forms.h"
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

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--records") == 0)
        return print_records();
    if (argc == 2 && strcmp(argv[1], "--record-tags") == 0)
        return tu_print_record_tags() == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (argc > 1) {
        fprintf(stderr, "usage: %s [--records | --record-tags]\n", argv[0]);
        return EXIT_FAILURE;
    }
    if (read_seed(&tu_seed) != 0)
        return EXIT_FAILURE;
    printf("sinpe tests: seed %llu (SINPE_TEST_SEED=%llu repeats this run)\n",
           (unsigned long long)tu_seed, (unsigned long long)tu_seed);
    /* Keep the suites' contexts out of the user's cache directory (the cache
     * suite sets its own directories). */
    if (!getenv("SINPE_CACHE_DIR"))
        setenv("SINPE_CACHE_DIR", "off", 1);
    /* Flush before Check forks, or every child would print the line again. */
    fflush(stdout);

    SRunner *sr = srunner_create(suite_status());
    srunner_add_suite(sr, suite_context());
    srunner_add_suite(sr, suite_table());
    srunner_add_suite(sr, suite_embed());
    srunner_add_suite(sr, suite_errors());
    srunner_add_suite(sr, suite_source());
    srunner_add_suite(sr, suite_cache());
    srunner_add_suite(sr, suite_presets());
    srunner_add_suite(sr, suite_positions());
    srunner_add_suite(sr, suite_dtype());
    srunner_add_suite(sr, suite_timesteps());
    srunner_add_suite(sr, suite_shard());
    srunner_add_suite(sr, suite_shapes());
    srunner_add_suite(sr, suite_tuning());
    srunner_add_suite(sr, suite_quant());
    srunner_add_suite(sr, suite_device());
    srunner_add_suite(sr, suite_features());
    srunner_add_suite(sr, suite_types());
    srunner_add_suite(sr, suite_contract());
    srunner_add_suite(sr, suite_otf());
    srunner_add_suite(sr, suite_rope());

    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);

    if (failed)
        printf("sinpe tests: %d failed (seed %llu)\n", failed, (unsigned long long)tu_seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
