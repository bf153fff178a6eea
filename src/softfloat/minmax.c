/*
 * minmax.c — IEEE 754-2019 (9.6) minimum, maximum, minimumNumber and
 * maximumNumber.
 *
 * minimum/maximum: a NaN operand gives a NaN (chosen by fl__nan_result,
 * which also raises invalid for a signaling NaN); -0 orders below +0.
 * minimumNumber/maximumNumber: a number beats a NaN, two NaNs give a NaN; a
 * signaling NaN raises invalid either way.
 *
 * Operands are compared as fl__unpack sees them, so under denormals-are-zero
 * (or in a format without subnormals) a subnormal compares as a zero of its
 * sign and the result is that signed zero.  Otherwise the result is the
 * chosen operand's encoding unchanged.
 */
#include "internals.h"

/* Total order on non-NaN unpacked values with -0 < +0: -1, 0 or +1. */
static FPLAB_HOSTDEV int order(fl_unp x, fl_unp y)
{
    int mag;   /* sign of |x| - |y| */
    if (x.sign != y.sign)
        return x.sign ? -1 : 1;
    if (x.cls != y.cls) {
        /* ZERO < FINITE < INF in magnitude */
        mag = x.cls < y.cls ? -1 : 1;
    } else if (x.cls != FL_U_FINITE || (x.exp == y.exp && x.sig == y.sig)) {
        mag = 0;
    } else if (x.exp != y.exp) {
        mag = x.exp < y.exp ? -1 : 1;
    } else {
        mag = x.sig < y.sig ? -1 : 1;
    }
    return x.sign ? -mag : mag;
}

/* The encoding of an operand as compared (a flushed subnormal is a zero). */
static FPLAB_HOSTDEV uint64_t as_seen(const fl_format *f, uint64_t a,
                                      fl_unp u)
{
    return u.cls == FL_U_ZERO ? fl__zero_bits(f, u.sign) : a;
}

/*
 * want_max: 0 for the minimum, 1 for the maximum.
 * number: 1 for minimumNumber/maximumNumber.
 */
static FPLAB_HOSTDEV uint64_t minmax(const fl_format *f, uint64_t a,
                                     uint64_t b, const fl_ctx *c,
                                     unsigned *flags, int want_max,
                                     int number)
{
    const fl_unp ua = fl__unpack(f, a, c);
    const fl_unp ub = fl__unpack(f, b, c);
    const int na = fl__is_nan_cls(ua.cls), nb = fl__is_nan_cls(ub.cls);
    int ord;

    if (na || nb) {
        const uint64_t ops[2] = { a, b };
        if (!number || (na && nb))
            return fl__nan_result(f, c, ops, 2, flags);
        /* exactly one NaN: the number wins; a signaling NaN still signals */
        if (ua.cls == FL_U_SNAN || ub.cls == FL_U_SNAN)
            *flags |= FL_INVALID;
        return na ? as_seen(f, b, ub) : as_seen(f, a, ua);
    }

    ord = order(ua, ub);
    if (want_max ? ord >= 0 : ord <= 0)
        return as_seen(f, a, ua);
    return as_seen(f, b, ub);
}

FPLAB_HOSTDEV uint64_t fl_minimum(const fl_format *f, uint64_t a, uint64_t b,
                                  const fl_ctx *c, unsigned *flags)
{
    return minmax(f, a, b, c, flags, 0, 0);
}

FPLAB_HOSTDEV uint64_t fl_maximum(const fl_format *f, uint64_t a, uint64_t b,
                                  const fl_ctx *c, unsigned *flags)
{
    return minmax(f, a, b, c, flags, 1, 0);
}

FPLAB_HOSTDEV uint64_t fl_minimum_number(const fl_format *f, uint64_t a,
                                         uint64_t b, const fl_ctx *c,
                                         unsigned *flags)
{
    return minmax(f, a, b, c, flags, 0, 1);
}

FPLAB_HOSTDEV uint64_t fl_maximum_number(const fl_format *f, uint64_t a,
                                         uint64_t b, const fl_ctx *c,
                                         unsigned *flags)
{
    return minmax(f, a, b, c, flags, 1, 1);
}
