/*
 * sub.c — fl_sub: a - b with one rounding.
 *
 * a - b is a + (-b) for every non-NaN operand, including the signs of zero
 * results (x - x = +0, -0 in RDN).  NaN operands are handled here, before
 * the negation, so a propagated NaN keeps the sign and payload it had.  The
 * negation is done on the unpacked operand, never on the encoding: an
 * unsigned format has no sign bit to flip, and in FNUZ / P3109 the sign bit
 * of +0 would make the NaN.  The fast path (signed formats with -0 only)
 * may flip the encoding's sign bit.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

/* The generic algorithm: fl_sub when the seam declines. */
static FPLAB_HOSTDEV FL__NOINLINE uint64_t fl__sub_generic(const fl_format *f,
                                                        uint64_t a, uint64_t b,
                                                        const fl_ctx *c,
                                                        unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    fl_unp y = fl__unpack(f, b, c);

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls)) {
        const uint64_t ops[2] = { a, b };
        return fl__nan_result(f, c, ops, 2, flags);
    }
    y.sign ^= 1;
    return fl__add_unpacked(f, c, x, y, flags);
}

FPLAB_HOSTDEV uint64_t fl_sub(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    return FL__ACCEL_OR(fl__accel_sub(f, a, b, c, flags, fl__sub_generic),
                        fl__sub_generic(f, a, b, c, flags));
}
