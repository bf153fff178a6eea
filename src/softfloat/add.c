/*
 * add.c — fl_add: a + b with one rounding.
 *
 * Finite nonzero operands are aligned in 64 bits.  Both unpacked
 * significands have at least 11 zero bits at the bottom (prec <= 53), so
 * after one headroom shift (for the carry) the larger operand is still
 * even, and the smaller one is shifted right with a sticky bit.  The
 * jammed value B' satisfies B < B' + 1 and B > B' - 1 with B' odd whenever
 * bits were lost, so A + B' and A - B' (A even) lie in the same open
 * interval between even integers as the exact sum: the sticky bit stays
 * correct for addition and for subtraction alike.  Massive cancellation
 * only happens for exponent differences d <= 1, where the shift is exact.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

FPLAB_HOSTDEV uint64_t fl__add_unpacked(const fl_format *f, const fl_ctx *c,
                                        fl_unp x, fl_unp y, unsigned *flags)
{
    uint64_t ax, by, sum;
    int32_t d;

    if (x.cls == FL_U_INF || y.cls == FL_U_INF) {
        if (x.cls == FL_U_INF && y.cls == FL_U_INF && x.sign != y.sign)
            return fl__invalid(f, c, flags);           /* inf - inf */
        return fl__pack_inf(f, x.cls == FL_U_INF ? x.sign : y.sign, c, flags);
    }
    if (x.cls == FL_U_ZERO && y.cls == FL_U_ZERO) {
        /* equal signs keep the sign; +0 + -0 is an exact cancellation */
        return x.sign == y.sign ? fl__pack_zero(f, c, x.sign, flags)
                                : fl__cancel_zero(f, c, flags);
    }
    /* x + 0 = x exactly; the round trip applies flush-to-zero to a
     * subnormal x like any other tiny result. */
    if (y.cls == FL_U_ZERO)
        return fl__round_pack(f, c, x.sign, x.exp, x.sig, flags);
    if (x.cls == FL_U_ZERO)
        return fl__round_pack(f, c, y.sign, y.exp, y.sig, flags);

    /* Order by magnitude: |x| >= |y|. */
    if (x.exp < y.exp || (x.exp == y.exp && x.sig < y.sig)) {
        fl_unp t = x;
        x = y;
        y = t;
    }
    d = x.exp - y.exp;
    /* Values: ax * 2^(x.exp + 1 - 63) and by at the same scale; ax is even
     * (>= 10 zero low bits) and ax, by < 2^63, so the sum cannot wrap. */
    ax = x.sig >> 1;
    by = fl__shr_sticky(y.sig >> 1, d);
    if (x.sign == y.sign) {
        sum = ax + by;
    } else {
        /* ax >= by: equal exponents compare the significands exactly; for
         * d >= 1, by < 2^62 <= ax. */
        sum = ax - by;
        if (sum == 0)
            return fl__cancel_zero(f, c, flags);       /* x + (-x) */
    }
    /* When d >= 2 bits may have been jammed, but then sum >= 2^61: at
     * least 62 significant bits, enough for any prec <= 53. */
    return fl__round_pack(f, c, x.sign, x.exp + 1, sum, flags);
}

/* The generic algorithm: fl_add when the seam declines. */
static FPLAB_HOSTDEV FL__NOINLINE uint64_t fl__add_generic(const fl_format *f,
                                                        uint64_t a, uint64_t b,
                                                        const fl_ctx *c,
                                                        unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    const fl_unp y = fl__unpack(f, b, c);

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls)) {
        const uint64_t ops[2] = { a, b };
        return fl__nan_result(f, c, ops, 2, flags);
    }
    return fl__add_unpacked(f, c, x, y, flags);
}

FPLAB_HOSTDEV uint64_t fl_add(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    return FL__ACCEL_OR(fl__accel_add(f, a, b, c, flags, fl__add_generic),
                        fl__add_generic(f, a, b, c, flags));
}
