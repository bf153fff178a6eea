/*
 * oracle.h — the one interface every independent oracle implements.
 *
 * An oracle computes the same operation as the core by other means (GNU
 * MPFR, the x86 floating-point hardware, NVIDIA's host-side half code) so
 * that `fplab verify` can compare the two bit for bit.  Each oracle is a
 * constant module descriptor: a name, a run-time detection with a reason, a
 * predicate saying which (format, op, mode, NaN preset) it covers, the flags
 * it reports, and a batch compute function.
 *
 * Oracles are stateless and thread-safe: compute() may be called from many
 * threads at once (the hardware oracle changes MXCSR, which is per thread,
 * and restores it before returning).
 */
#ifndef FPLAB_ORACLE_H
#define FPLAB_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operations an oracle may compute.  FL_ORC_CVT converts from job->src to
 * job->fmt; every other op has operands and result in job->fmt. */
typedef enum fl_orc_op {
    FL_ORC_ADD = 0, FL_ORC_SUB, FL_ORC_MUL, FL_ORC_DIV, FL_ORC_SQRT,
    FL_ORC_FMA, FL_ORC_CVT, FL_ORC_OP_COUNT
} fl_orc_op;

const char *fl_orc_op_name(int op);     /* "add", ..., "cvt" */
int fl_orc_op_parse(const char *s);     /* -1 if unknown */
int fl_orc_op_arity(int op);            /* 1, 2 or 3 */

/* One job: what to compute.  ctx.rm is the rounding mode; ctx.nan is the
 * NaN preset (set from the oracle's nan_preset); ctx.tininess the rule. */
typedef struct fl_orc_job {
    const fl_format *fmt;   /* result format */
    const fl_format *src;   /* operand format: == fmt except for FL_ORC_CVT */
    int op;                 /* fl_orc_op */
    fl_ctx ctx;
} fl_orc_job;

typedef struct fl_oracle {
    const char *name;       /* "mpfr", "hw", "cuda-host" */
    const char *what;       /* one line: what it is */
    /* NaN preset whose NaN results the oracle reproduces bit for bit, or -1
     * when its NaN results are only "some NaN" (compare as any NaN). */
    int nan_preset;
    /* 1 if the oracle can run on this machine/build; else 0 and why. */
    int (*can_run)(char *why, size_t len);
    /* 1 if the oracle covers the job; else 0 and why (mode, format, op). */
    int (*supports)(const fl_orc_job *j, char *why, size_t len);
    /* Flags (FL_IEEE_FLAGS subset) the oracle reports for this job; only
     * these are compared.  0 = values only. */
    unsigned (*flags_reported)(const fl_orc_job *j);
    /* r[i] = op(a[i], b[i], c[i]) for i < n.  An oracle that fails on an
     * element (an internal self-check) sets FL_ORC_ERROR in its flags.  b and c are ignored (and may
     * be NULL) for ops of lower arity.  When flags != NULL, flags[i] is set
     * (not OR-ed) to the IEEE flags of element i; passing NULL lets an
     * oracle take a faster values-only path. */
    void (*compute)(const fl_orc_job *j, size_t n, const uint64_t *a,
                    const uint64_t *b, const uint64_t *c, uint64_t *r,
                    unsigned *flags);
} fl_oracle;

/* Set in an oracle's flags[i] when it could not compute element i. */
#define FL_ORC_ERROR 0x100u

/* The registry: every oracle compiled in (those that cannot run still
 * appear; ask can_run). */
size_t fl_oracle_count(void);
const fl_oracle *fl_oracle_get(size_t i);
const fl_oracle *fl_oracle_by_name(const char *name);   /* NULL: unknown */

/* The core computing a job, with the same calling convention as compute()
 * (flags set, not OR-ed; only FL_IEEE_FLAGS kept). */
void fl_orc_core_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                         const uint64_t *b, const uint64_t *c, uint64_t *r,
                         unsigned *flags);

/* Do two results agree?  NaNs compare bitwise when exact_nan, else any NaN
 * equals any NaN. */
int fl_orc_same_value(const fl_format *f, uint64_t x, uint64_t y,
                      int exact_nan);

/* CPU model string (cpuid brand string on x86, else "unknown"). */
void fl_orc_cpu_model(char *buf, size_t len);

/* The oracle modules (defined in oracle_*.c). */
extern const fl_oracle fl_oracle_mpfr;
extern const fl_oracle fl_oracle_hw;
extern const fl_oracle fl_oracle_cuda_host;

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_ORACLE_H */
