/*
 * test_common.h — shared helpers of the core's test programs: seeds and a
 * small PRNG, the run-time format list, the comparison of a core result
 * with the MPFR oracle and a bounded mismatch report.
 *
 * Every random test takes its seed from FPLAB_TEST_SEED when set (replay),
 * else from the clock, and prints it.  FPLAB_TEST_SCALE (default 1)
 * multiplies the random case counts.
 */
#ifndef FPLAB_TEST_COMMON_H
#define FPLAB_TEST_COMMON_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fplab/fplab.h"
#include "mpfr_oracle.h"

#define TC_SKIP 77

static inline uint64_t tc_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The seed of this run: FPLAB_TEST_SEED or the clock; printed once. */
static inline uint64_t tc_seed(const char *who)
{
    static uint64_t seed;
    static int have;
    if (!have) {
        const char *e = getenv("FPLAB_TEST_SEED");
        if (e && *e)
            seed = strtoull(e, NULL, 0);
        else
            seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)clock();
        have = 1;
    }
    printf("%s: seed %" PRIu64 " (replay with FPLAB_TEST_SEED=%" PRIu64
           ")\n", who, seed, seed);
    fflush(stdout);
    return seed;
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

/* Does a core result (value, flag word) match the oracle?  NaN results
 * match any NaN; flags compare on the five IEEE bits; the ternary when
 * asked and the result is a number. */
static inline int tc_same(const fl_format *f, uint64_t got, unsigned gfl,
                          const fl_mpfr_res *x, int ternary)
{
    if (x->is_nan) {
        if (!fl_is_nan(f, got))
            return 0;
    } else if (got != x->bits) {
        return 0;
    }
    if ((gfl & FL_IEEE_FLAGS) != x->flags)
        return 0;
    if (ternary && !x->is_nan && fl_ternary(gfl) != x->ternary)
        return 0;
    return 1;
}

/* A bounded mismatch log: the first few are printed in full. */
typedef struct tc_log {
    const char *test;
    long cases;
    long bad;
    long oracle_err;
} tc_log;

static inline void tc_report(tc_log *lg, const char *fmt_name, const char *op,
                             const fl_ctx *c, const uint64_t *ops, int n,
                             const fl_mpfr_res *x, uint64_t got, unsigned gfl)
{
    char cs[96];
    lg->bad++;
    if (lg->bad > 12)
        return;
    printf("MISMATCH %s: %s %s [%s]", lg->test, fmt_name, op,
           tc_ctx_str(c, cs, sizeof cs));
    for (int i = 0; i < n; i++)
        printf(" %#" PRIx64, ops[i]);
    printf(" expected %s%#" PRIx64 " flags %02x tern %d, got %#" PRIx64
           " flags %02x tern %d\n", x->is_nan ? "NaN " : "", x->bits,
           x->flags, x->ternary, got, gfl & FL_IEEE_FLAGS, fl_ternary(gfl));
    fflush(stdout);
}

static inline void tc_oracle_fail(tc_log *lg, int rc, const char *what,
                                  const fl_mpfr_res *x)
{
    lg->oracle_err++;
    if (lg->oracle_err <= 5)
        printf("ORACLE ERROR %d in %s: %s (ours %#" PRIx64 ", MPFR path %#"
               PRIx64 ")\n", rc, lg->test, what, x->bits, x->check_bits);
}

#endif /* FPLAB_TEST_COMMON_H */
