/*
 * test_oracle.h — the core against the MPFR oracle in the test programs:
 * does a result (value, flags, ternary) match, and a bounded mismatch
 * report naming format, operation, context, operands, expected and got.
 */
#ifndef FPLAB_TEST_ORACLE_H
#define FPLAB_TEST_ORACLE_H

#include "mpfr_oracle.h"
#include "test_common.h"

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

#endif /* FPLAB_TEST_ORACLE_H */
