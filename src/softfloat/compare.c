/*
 * compare.c — IEEE 754 comparisons (5.11): fl_compare and the six
 * predicates.
 *
 * +0 == -0.  Under denormals-are-zero (and in a format without subnormals)
 * a subnormal compares as a zero.  Quiet comparisons raise invalid only for
 * a signaling NaN operand; signaling ones for any NaN operand.  An
 * unordered pair satisfies none of ==, <, <=.
 */
#include "internals.h"

FPLAB_HOSTDEV int fl_compare(const fl_format *f, uint64_t a, uint64_t b,
                             int signaling, const fl_ctx *c, unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    const fl_unp y = fl__unpack(f, b, c);
    int mag;   /* sign of |x| - |y| */

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls)) {
        if (signaling || x.cls == FL_U_SNAN || y.cls == FL_U_SNAN)
            *flags |= FL_INVALID;
        return FL_CMP_UN;
    }
    if (x.cls == FL_U_ZERO && y.cls == FL_U_ZERO)
        return FL_CMP_EQ;                        /* whatever the signs */
    if (x.sign != y.sign)
        return x.sign ? FL_CMP_LT : FL_CMP_GT;   /* at most one is zero */

    /* same sign: order the magnitudes, ZERO < FINITE < INF */
    if (x.cls != y.cls)
        mag = x.cls < y.cls ? -1 : 1;
    else if (x.cls != FL_U_FINITE || (x.exp == y.exp && x.sig == y.sig))
        mag = 0;
    else if (x.exp != y.exp)
        mag = x.exp < y.exp ? -1 : 1;
    else
        mag = x.sig < y.sig ? -1 : 1;
    if (x.sign) mag = -mag;
    return mag < 0 ? FL_CMP_LT : mag > 0 ? FL_CMP_GT : FL_CMP_EQ;
}

FPLAB_HOSTDEV int fl_eq(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags)
{
    return fl_compare(f, a, b, 0, c, flags) == FL_CMP_EQ;
}

FPLAB_HOSTDEV int fl_lt(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags)
{
    return fl_compare(f, a, b, 1, c, flags) == FL_CMP_LT;
}

FPLAB_HOSTDEV int fl_le(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags)
{
    const int r = fl_compare(f, a, b, 1, c, flags);
    return r == FL_CMP_LT || r == FL_CMP_EQ;
}

FPLAB_HOSTDEV int fl_eq_signaling(const fl_format *f, uint64_t a, uint64_t b,
                                  const fl_ctx *c, unsigned *flags)
{
    return fl_compare(f, a, b, 1, c, flags) == FL_CMP_EQ;
}

FPLAB_HOSTDEV int fl_lt_quiet(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    return fl_compare(f, a, b, 0, c, flags) == FL_CMP_LT;
}

FPLAB_HOSTDEV int fl_le_quiet(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    const int r = fl_compare(f, a, b, 0, c, flags);
    return r == FL_CMP_LT || r == FL_CMP_EQ;
}
