/*
 * oracle_mpfr.c — GNU MPFR (through the fl_mpfr_ module) as an oracle.
 *
 * Covers every op, every format and every deterministic mode (not
 * stochastic rounding), with all five IEEE flags derived independently of
 * the core.  NaN results are "some NaN": MPFR has no payloads, so NaNs
 * compare as any NaN (the NaN presets are checked by the hw and cuda-host
 * oracles bit for bit).
 */
#include "oracle.h"
#include "mpfr_oracle.h"

#include <stdio.h>

static int mpfr_can_run(char *why, size_t len)
{
    if (!fl_mpfr_available()) {
        snprintf(why, len, "built without GNU MPFR");
        return 0;
    }
    snprintf(why, len, "GNU MPFR");
    return 1;
}

static int mpfr_supports(const fl_orc_job *j, char *why, size_t len)
{
    if (!fl_mpfr_available()) {
        snprintf(why, len, "built without GNU MPFR");
        return 0;
    }
    if (j->ctx.rm >= FL_RSR) {
        snprintf(why, len, "stochastic rounding has no reference value");
        return 0;
    }
    return 1;
}

static unsigned mpfr_flags_reported(const fl_orc_job *j)
{
    (void)j;
    return FL_IEEE_FLAGS;
}

static const int op_map[FL_ORC_OP_COUNT] = {
    FL_MPFR_ADD, FL_MPFR_SUB, FL_MPFR_MUL, FL_MPFR_DIV, FL_MPFR_SQRT,
    FL_MPFR_FMA, -1
};

static void mpfr_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                         const uint64_t *b, const uint64_t *c, uint64_t *r,
                         unsigned *flags)
{
    size_t i;
    for (i = 0; i < n; i++) {
        fl_mpfr_res res = {0};
        int rc;
        if (j->op == FL_ORC_CVT) {
            rc = fl_mpfr_convert(&res, j->fmt, j->src, a[i], &j->ctx);
        } else {
            uint64_t ops[3];
            ops[0] = a[i];
            ops[1] = b ? b[i] : 0;
            ops[2] = c ? c[i] : 0;
            rc = fl_mpfr_arith(&res, op_map[j->op], j->fmt, ops, &j->ctx);
        }
        r[i] = res.bits;
        if (flags)
            flags[i] = rc == FL_MPFR_OK ? (res.flags & FL_IEEE_FLAGS)
                                        : FL_ORC_ERROR;
        else if (rc != FL_MPFR_OK)
            r[i] = ~(uint64_t)0;   /* cannot be a valid pattern: mismatch */
    }
}

const fl_oracle fl_oracle_mpfr = {
    "mpfr",
    "GNU MPFR, correctly rounded, flags derived independently",
    -1,
    mpfr_can_run,
    mpfr_supports,
    mpfr_flags_reported,
    mpfr_compute,
};
