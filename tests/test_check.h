/*
 * test_check.h — the Check runner fplab's Check test programs share: a
 * test case built from a list, its suite run, and the exit status
 * (counted programs also compare their case count with the one their
 * tables fix).  The seed, the PRNG and the formats by name are in
 * test_common.h.
 */
#ifndef FPLAB_TEST_CHECK_H
#define FPLAB_TEST_CHECK_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* How a suite's tests run.  TC_FORKED: Check's default, each test in a
 * child process unless CK_FORK=no says otherwise (a crash fails one test,
 * not the program).  TC_IN_PROCESS: every test in this process, so that
 * the case counters the tests keep add up in main. */
enum tc_run_mode { TC_FORKED, TC_IN_PROCESS };

/* A test case `name' holding tests[0..] up to the first NULL, in that
 * order (tests may be NULL: none yet).  timeout in seconds; 0 keeps
 * Check's default.  A program adds its loop tests, or tests chosen by
 * its arguments, to the test case this returns. */
static inline TCase *tc_tcase(const char *name, double timeout,
                              const TTest *const *tests)
{
    TCase *tc = tcase_create(name);
    if (timeout > 0)
        tcase_set_timeout(tc, timeout);
    for (; tests && *tests; tests++)
        tcase_add_test(tc, *tests);
    return tc;
}

/* Runs the suite `suite' of the one test case tc in mode, frees it and
 * returns the number of tests that failed. */
static inline int tc_run_suite(const char *suite, TCase *tc,
                               enum tc_run_mode mode)
{
    Suite *s = suite_create(suite);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    if (mode == TC_IN_PROCESS)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

/* The exit status of a program without case counts: 0 when no test
 * failed. */
static inline int tc_exit(int failed)
{
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The exit status of a program that counts its cases: prints
 * "who: N cases (expected M)" and fails when a test failed or when the
 * count is not the expected one (a loop that stopped running fails). */
static inline int tc_exit_counted(const char *who, int failed, long cases,
                                  long expected)
{
    printf("%s: %ld cases (expected %ld)\n", who, cases, expected);
    if (cases != expected)
        fprintf(stderr, "%s: FAIL: ran %ld cases, expected %ld\n", who,
                cases, expected);
    return failed || cases != expected ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* FPLAB_TEST_CHECK_H */
