/*
 * test_convert_long.c — every binary32 pattern (2^32) converted to a
 * 16-bit format (argv[1]: binary16 or bfloat16) against the MPFR oracle:
 * value, flags and ternary.  Input i runs in mode i mod 6 and tininess
 * rule (i / 6) mod 2, so every mode meets every region of the input space;
 * FPLAB_LONG_ALL_MODES=1 runs all twelve combinations on every input.
 * Threads: FPLAB_TEST_THREADS (default 2).  Label: long.
 */
#include <pthread.h>

#include "test_oracle.h"
#include "test_check.h"

static const char *fmt_name = "binary16";
static int all_modes;
static int nthreads = 2;

typedef struct part {
    uint64_t lo, hi;
    tc_log lg;
} part;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void check_one(part *p, const fl_format *d, uint64_t a, fl_ctx *c)
{
    fl_mpfr_res x;
    unsigned fl = 0;
    uint64_t got;
    int rc = fl_mpfr_convert(&x, d, &fl_binary32, a, c);
    if (rc) {
        p->lg.oracle_err++;
        return;
    }
    got = fl_convert(d, &fl_binary32, a, c, &fl);
    p->lg.cases++;
    if (!tc_same(d, got, fl, &x, 1)) {
        pthread_mutex_lock(&log_lock);
        tc_report(&p->lg, fmt_name, "convert binary32->", c, &a, 1, &x, got,
                  fl);
        pthread_mutex_unlock(&log_lock);
    }
}

static void *worker(void *arg)
{
    part *p = arg;
    const fl_format *d = tc_fmt(fmt_name);
    for (uint64_t a = p->lo; a < p->hi; a++) {
        if (all_modes) {
            for (int k = 0; k < 12; k++) {
                fl_ctx c = tc_ctx(tc_modes[k % 6], k / 6);
                check_one(p, d, a, &c);
            }
        } else {
            fl_ctx c = tc_ctx(tc_modes[a % 6], (int)((a / 6) & 1));
            check_one(p, d, a, &c);
        }
    }
    return NULL;
}

START_TEST(all_binary32_inputs)
{
    const uint64_t total = (uint64_t)1 << 32;
    part parts[64];
    pthread_t th[64];
    long cases = 0, bad = 0, oerr = 0;
    tc_fmt(fmt_name);   /* resolve before the threads start */
    for (int t = 0; t < nthreads; t++) {
        parts[t].lo = total / (uint64_t)nthreads * (uint64_t)t;
        parts[t].hi = t == nthreads - 1 ? total
                                        : total / (uint64_t)nthreads * (t + 1);
        parts[t].lg = (tc_log){ "convert_long", 0, 0, 0 };
        ck_assert_int_eq(pthread_create(&th[t], NULL, worker, &parts[t]), 0);
    }
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        cases += parts[t].lg.cases;
        bad += parts[t].lg.bad;
        oerr += parts[t].lg.oracle_err;
    }
    printf("binary32 -> %s: %ld cases, %ld mismatches\n", fmt_name, cases,
           bad);
    ck_assert_int_eq(oerr, 0);
    ck_assert_int_eq(cases, (long)total * (all_modes ? 12 : 1));
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        fmt_name = argv[1];
    if (!fl_mpfr_available()) {
        printf("SKIP: built without MPFR, no oracle\n");
        return TC_SKIP;
    }
    const char *e = getenv("FPLAB_LONG_ALL_MODES");
    all_modes = e && *e == '1';
    e = getenv("FPLAB_TEST_THREADS");
    if (e && atoi(e) > 0)
        nthreads = atoi(e) > 64 ? 64 : atoi(e);
    /* (timeout: CTest's own applies) */
    const TTest *tests[] = { all_binary32_inputs, NULL };
    return tc_exit(tc_run_suite("convert_long",
                                tc_tcase(fmt_name, 36000, tests), TC_FORKED));
}
