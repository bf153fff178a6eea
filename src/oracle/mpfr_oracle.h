/*
 * mpfr_oracle.h — an independent reference for fplab's core, built on GNU
 * MPFR.
 *
 * Every function computes the correctly rounded result of one operation in
 * a format described by an fl_format (any preset or ieee:E:M, every NaN
 * style, bias, signedness and precision 1, saturation included; the
 * format's numbers are derived here from its parameters, not read from the
 * core's derived fields) under the rounding mode, tininess rule, flush-to-zero,
 * denormals-are-zero and saturation options of an fl_ctx, and derives the
 * IEEE flags on its own:
 *   - the exact result (or a 64-bit round-to-odd image of it, which rounds
 *     like the exact value to any precision <= 62) comes from MPFR;
 *   - rounding to the format, with its subnormal range, is done here for
 *     all six modes (RNE RTZ RDN RUP RNA RTO) and, for the four modes MPFR
 *     knows, re-done the way the MPFR manual prescribes (precision p,
 *     emax = emax_ieee + 1, emin = emin_ieee - p + 2, mpfr_subnormalize);
 *     the two must agree, otherwise the call fails with FL_MPFR_ESELF;
 *   - underflow = tiny AND inexact under the chosen tininess rule, overflow
 *     from the exponent range, inexact from the ternary, invalid and
 *     divide-by-zero from the operation's IEEE rules (MPFR's own flags are
 *     never read).
 * NaN results are reported as "some NaN" (is_nan); their exact bits are a
 * matter of the core's NaN preset and are tested separately.
 *
 * Conventions that IEEE 754 leaves open, fixed here (the core must agree):
 *   - 0 * inf + quiet NaN raises invalid under the ARM, RISC-V and CUDA
 *     NaN presets (ARM FPMulAdd, SoftFloat) but not under x86 (FMA3
 *     hardware returns the NaN silently);
 *   - the ternary of round-to-integral compares the result with the
 *     operand (as mpfr_rint does), also when the integer overflowed;
 *   - round-to-odd of a value that overflows gives the largest finite value
 *     (with overflow and inexact), never infinity or NaN;
 *   - saturation (format or context) turns an overflowing finite result into
 *     the largest finite value of the same sign, still raising overflow and
 *     inexact; exact infinities (operands, division by zero) stay infinite
 *     where the format has them;
 *   - in a format without infinities (FN, FNUZ), an infinity becomes the
 *     largest finite value when saturating and NaN otherwise (no extra
 *     flag); in a FINITE format (no NaN either) always the largest finite;
 *     the ternary of such a largest finite is "below" the infinity;
 *   - a NaN result in a FINITE format is ml_dtypes' stand-in: the sign bit
 *     alone for a positive NaN, +0 for a negative one (x86's default NaN
 *     is negative; a converted NaN keeps its sign under x86), with invalid;
 *   - no -0 in FNUZ, P3109 and unsigned formats: +0;
 *   - a negative nonzero result in an unsigned format is invalid: NaN, or
 *     code 0 when saturating (ternary "above");
 *   - a format without zero (E8M0): a zero result is invalid (NaN), or
 *     when saturating the smallest value with underflow and inexact; a
 *     nonzero result below the smallest value gives the smallest value in
 *     every mode (inexact; underflow when tiny); with min_gap_up (ml_dtypes'
 *     float8_e8m0fnu) RNE and RNA take every value strictly between the
 *     smallest value and the next one up to the next one (inexact, no
 *     underflow); the other modes keep the true neighbours;
 *   - flush-to-zero replaces every nonzero tiny result (tiny by the chosen
 *     rule, exact or not) by a zero of the same sign and raises underflow
 *     and inexact; denormals-are-zero reads subnormal operands as zeros of
 *     the same sign, silently;
 *   - round-to-integral and to-integer conversions in RTO give the odd
 *     neighbour when the operand is not an integer.
 *
 * Thread-safe: the exponent range is set and restored inside each call (it
 * is thread-local in a TLS build of MPFR; otherwise calls are serialized).
 * Without MPFR (FPLAB_HAVE_MPFR undefined) every call returns FL_MPFR_ENONE.
 */
#ifndef FPLAB_MPFR_ORACLE_H
#define FPLAB_MPFR_ORACLE_H

#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operations of fl_mpfr_arith; the operand count is in brackets. */
typedef enum fl_mpfr_op {
    FL_MPFR_ADD = 0,     /* [2] a + b */
    FL_MPFR_SUB,         /* [2] a - b */
    FL_MPFR_MUL,         /* [2] a * b */
    FL_MPFR_DIV,         /* [2] a / b */
    FL_MPFR_SQRT,        /* [1] */
    FL_MPFR_FMA,         /* [3] a * b + c, one rounding */
    FL_MPFR_REM,         /* [2] IEEE remainder (always exact) */
    FL_MPFR_RINT,        /* [1] round to integral, no inexact flag */
    FL_MPFR_RINT_EXACT,  /* [1] round to integral, inexact when changed */
    FL_MPFR_OP_COUNT
} fl_mpfr_op;

/* Return codes. */
enum {
    FL_MPFR_OK = 0,
    FL_MPFR_ENONE = -1,   /* built without MPFR */
    FL_MPFR_EARG = -2,    /* unsupported mode (stochastic), op or input */
    FL_MPFR_ESELF = -3    /* the two roundings disagreed: an oracle bug */
};

typedef struct fl_mpfr_res {
    uint64_t bits;     /* result bits in the destination format; for
                          to-integer conversions the integer, two's
                          complement, zero-extended from its width */
    unsigned flags;    /* FL_INEXACT .. FL_INVALID */
    int ternary;       /* sign of (result - exact); 0 if exact or NaN */
    int is_nan;        /* the result is a NaN (bits: the positive quiet NaN
                          with the top fraction bit set, or S.1..1 for FN) */
    uint64_t check_bits; /* on FL_MPFR_ESELF: what the MPFR-path gave */
} fl_mpfr_res;

/* 1 if the oracle is compiled in. */
int fl_mpfr_available(void);

/* Name of an op ("add", "fma", "rint_exact", ...). */
const char *fl_mpfr_op_name(int op);

/* Arithmetic in format f on operand bit patterns ops[0..n-1]. */
int fl_mpfr_arith(fl_mpfr_res *r, int op, const fl_format *f,
                  const uint64_t *ops, const fl_ctx *c);

/* Conversion of a from format src to format dst. */
int fl_mpfr_convert(fl_mpfr_res *r, const fl_format *dst,
                    const fl_format *src, uint64_t a, const fl_ctx *c);

/* Integer v (an int64_t's bits when is_signed) to format f. */
int fl_mpfr_from_int(fl_mpfr_res *r, const fl_format *f, uint64_t v,
                     int is_signed, const fl_ctx *c);

/* a in format f to a (width = 32 or 64)-bit integer, signed or not, in
 * c->rm; inexact only when exact != 0; NaN, infinities and out-of-range
 * values raise invalid and give the value c->nan prescribes (see
 * fplab.h). */
int fl_mpfr_to_int(fl_mpfr_res *r, const fl_format *f, uint64_t a,
                   int width, int is_signed, int exact, const fl_ctx *c);

/* A decimal or hex-float number string (MPFR syntax, base 0: "-1.5e-3",
 * "0x1.8p-14", "inf", "nan") correctly rounded into f.  Returns
 * FL_MPFR_EARG when the string is not a whole number, or when its exponent
 * has more than 15 significant digits (MPFR would read it wrapped). */
int fl_mpfr_parse(fl_mpfr_res *r, const fl_format *f, const char *s,
                  const fl_ctx *c);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_MPFR_ORACLE_H */
