/*
 * test_common.h — what fplab's C test programs share: the seed and a
 * small PRNG, the case-count scale, counted checks for the programs that
 * do not use Check, and the core's formats and contexts by name.  The
 * comparison with the MPFR oracle is in test_oracle.h.
 *
 * Every random test takes its seed from FPLAB_TEST_SEED when set (replay),
 * else from the clock (or the test's fixed default), and prints it.
 * FPLAB_TEST_SCALE (default 1) multiplies the random case counts.
 */
#ifndef FPLAB_TEST_COMMON_H
#define FPLAB_TEST_COMMON_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fplab/fplab.h"

#define TC_SKIP 77

static inline uint64_t tc_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The seed of this run: FPLAB_TEST_SEED, else deflt when fixed is set,
 * else the clock; the same on every call of a run, printed each time. */
static inline uint64_t tc_seed_pick(const char *who, int fixed, uint64_t deflt)
{
    static uint64_t seed;
    static int have;
    if (!have) {
        const char *e = getenv("FPLAB_TEST_SEED");
        if (e && *e)
            seed = strtoull(e, NULL, 0);
        else if (fixed)
            seed = deflt;
        else
            seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)clock();
        have = 1;
    }
    printf("%s: seed %" PRIu64 " (replay with FPLAB_TEST_SEED=%" PRIu64
           ")\n", who, seed, seed);
    fflush(stdout);
    return seed;
}

/* A random test's seed: FPLAB_TEST_SEED or the clock. */
static inline uint64_t tc_seed(const char *who)
{
    return tc_seed_pick(who, 0, 0);
}

/* A test whose data are pinned (its expected count depends on them):
 * FPLAB_TEST_SEED or deflt. */
static inline uint64_t tc_seed_fixed(const char *who, uint64_t deflt)
{
    return tc_seed_pick(who, 1, deflt);
}

static inline long tc_scale(void)
{
    const char *e = getenv("FPLAB_TEST_SCALE");
    long s = e && *e ? strtol(e, NULL, 0) : 1;
    return s < 1 ? 1 : s;
}

static inline const fl_format *tc_fmt(const char *spec)
{
    static fl_format store[16];
    static int used;
    char err[128];
    const fl_format *p = fl_format_by_name(spec);
    if (p)
        return p;
    if (used < 16 && fl_format_parse(&store[used], spec, err, sizeof err) == 0)
        return &store[used++];
    fprintf(stderr, "format %s: %s\n", spec, err);
    abort();
}

static const int tc_modes[6] = { FL_RNE, FL_RTZ, FL_RDN, FL_RUP, FL_RNA,
                                 FL_RTO };

static inline fl_ctx tc_ctx(int rm, int tininess)
{
    fl_ctx c = fl_ctx_make(rm);
    c.tininess = (uint8_t)tininess;
    return c;
}

static inline const char *tc_ctx_str(const fl_ctx *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s tiny=%s%s%s%s nan=%s", fl_rm_name(c->rm),
             c->tininess == FL_TINY_BEFORE ? "before" : "after",
             c->ftz ? " ftz" : "", c->daz ? " daz" : "",
             c->saturate ? " sat" : "", fl_nan_preset_name(c->nan));
    return buf;
}

/* Counted checks for the test programs without Check: every CHECK is a
 * case; a false one prints where and why and counts as a failure.
 * tc_finish compares the count with the one the tables fix (a loop that
 * stopped running fails) and gives the exit status. */
typedef struct tc_counts {
    int cases, failures;
} tc_counts;

static inline tc_counts *tc_counter(void)
{
    static tc_counts c;
    return &c;
}

#define CHECK(cond, ...) do { tc_counts *tc_c_ = tc_counter(); tc_c_->cases++; \
    if (!(cond)) { tc_c_->failures++; \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static inline int tc_finish(const char *who, int expected)
{
    const tc_counts *c = tc_counter();
    printf("%s: %d checks, %d failures\n", who, c->cases, c->failures);
    if (c->cases != expected) {
        fprintf(stderr, "FAIL: ran %d checks, expected %d\n", c->cases,
                expected);
        return 1;
    }
    return c->failures ? 1 : 0;
}

#endif /* FPLAB_TEST_COMMON_H */
