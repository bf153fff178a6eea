/*
 * rint.c — fl_rint: round to an integral value in c->rm.
 *
 * |a| = I + F / 2^64 with I an integer and F the fraction as a 64-bit
 * fixed-point number (exact for |a| >= 1/2; for smaller |a| the bits below
 * 2^-64 are jammed into F's lowest bit).  The mode decides whether I
 * becomes I + 1:
 *   RNE / RNA  nearest, ties to even / away from zero;
 *   RTZ, RDN, RUP  the directed modes on the signed value;
 *   RTO  the odd neighbour: an inexact result has an odd last integer
 *        digit, I | 1 (so values in (0, 1) give 1, (2, 3) give 3);
 *   RSR  up with probability F / 2^64, using the same counter-based random
 *        bits (c->sr_seed, c->sr_index) and the same carry test as
 *        fl__round_pack.
 * The integral result is exact, so it is packed without another rounding
 * (fl__round_pack sees an exact value).  In a format whose largest finite
 * value is below 2^(prec-1) (tiny exponent fields) rounding up can exceed
 * it; fl__round_pack then gives infinity or the largest finite value and
 * reports overflow and inexact (even when `exact` is zero: an overflow is
 * never exact) as for any other result.
 * Inexact is raised only when `exact` is nonzero; FL_TERN_UP / FL_TERN_DOWN
 * always report whether the result lies above or below a.  A zero result
 * keeps the sign of a (where the format has -0).  In a format without
 * zero (E8M0) a result of 0 is fl__pack_zero's: NaN with invalid, or the
 * smallest value with underflow and inexact when saturating.
 */
#include "internals.h"

/* An integral operand is its own result; only flush-to-zero can change
 * it, when it is tiny (emin > 0: some custom biases, one exponent bit). */
static FPLAB_HOSTDEV uint64_t integral(const fl_format *f, uint64_t a,
                                       fl_unp x, const fl_ctx *c,
                                       unsigned *flags)
{
    if (x.exp >= f->emin || !c->ftz)
        return a;
    return fl__round_pack(f, c, x.sign, x.exp, x.sig, flags);
}

FPLAB_HOSTDEV uint64_t fl_rint(const fl_format *f, uint64_t a, int exact,
                               const fl_ctx *c, unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    uint64_t i, frac, r;
    unsigned pf = 0;
    int inc;

    if (fl__is_nan_cls(x.cls)) {
        const uint64_t ops[1] = { a };
        return fl__nan_result(f, c, ops, 1, flags);
    }
    if (x.cls == FL_U_INF)
        return fl__pack_inf(f, x.sign, c, flags);
    if (x.cls == FL_U_ZERO)
        return fl__pack_zero(f, c, x.sign, flags);     /* also DAZ inputs */
    /* ulp(a) >= 1: already integral.  (An integral a below 2^emin, which
     * formats with emin > 0 have, is still flushed under ftz.) */
    if (x.exp >= f->prec - 1)
        return integral(f, a, x, c, flags);

    /* Here x.exp <= 51, the value is sig * 2^(x.exp - 63). */
    if (x.exp >= 0) {
        i = x.sig >> (63 - x.exp);
        frac = x.sig << (x.exp + 1);
    } else {
        i = 0;
        frac = fl__shr_sticky(x.sig, -x.exp - 1);
    }
    if (frac == 0)
        return integral(f, a, x, c, flags);

    switch (c->rm) {
    case FL_RNE:
        inc = frac > ((uint64_t)1 << 63) ||
              (frac == ((uint64_t)1 << 63) && (i & 1));
        break;
    case FL_RNA:
        inc = frac >= ((uint64_t)1 << 63);
        break;
    case FL_RDN:
        inc = x.sign;
        break;
    case FL_RUP:
        inc = !x.sign;
        break;
    case FL_RTO:
        inc = !(i & 1);
        break;
    case FL_RSR: {
        const uint64_t r = fl_sr_bits(c->sr_seed, c->sr_index);
        inc = frac + r < frac;                         /* carry out of 2^64 */
        break;
    }
    case FL_RSB:
        inc = fl__srb_away(frac, 64, c);
        break;
    default: /* FL_RTZ */
        inc = 0;
        break;
    }
    i += (uint64_t)inc;
    if (exact)
        *flags |= FL_INEXACT;
    if (i == 0) {
        if (!f->has_zero) {
            /* No zero (E8M0): fl__pack_zero's NaN (invalid), or its
             * smallest value 2^emin, which is at most a; the ternary
             * compares the result with a, as everywhere in rint. */
            unsigned zf = 0;
            r = fl__pack_zero(f, c, 0, &zf);
            *flags |= zf & FL_IEEE_FLAGS;
            if (r != a && !fl_is_nan(f, r))
                *flags |= FL_TERN_DOWN;
            return r;
        }
        *flags |= x.sign ? FL_TERN_UP : FL_TERN_DOWN;  /* rounded toward 0 */
        return fl__pack_zero(f, c, x.sign, flags);
    }
    /* i <= 2^52: the exact integer value i * 2^(63 - 63), so fl__round_pack
     * raises nothing unless i exceeds the largest finite value. */
    r = fl__round_pack(f, c, x.sign, 63, i, &pf);
    if (pf & FL_OVERFLOW) {
        /* The result (infinity or the largest finite value) is not below
         * |a| in magnitude; equal only when it returned a itself. */
        *flags |= pf & (FL_OVERFLOW | FL_INEXACT);
        if (r != a && !fl_is_nan(f, r))
            *flags |= x.sign ? FL_TERN_DOWN : FL_TERN_UP;
        return r;
    }
    if (pf & FL_UNDERFLOW) {
        /* a tiny integer (emin > 0) flushed to zero under ftz: below |a| */
        *flags |= (pf & (FL_UNDERFLOW | FL_INEXACT)) |
                  (x.sign ? FL_TERN_UP : FL_TERN_DOWN);
        return r;
    }
    *flags |= (inc != x.sign) ? FL_TERN_UP : FL_TERN_DOWN;
    return r;
}
