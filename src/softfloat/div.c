/*
 * div.c — fl_div: a / b with one rounding.
 *
 * With both significands in [2^63, 2^64), q = floor(x.sig * 2^63 / y.sig)
 * lies in (2^62, 2^64): at least 63 significant bits.  A nonzero remainder
 * means the exact quotient is strictly between q and q + 1, which the
 * sticky bit q | 1 represents faithfully.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

FPLAB_HOSTDEV uint64_t fl_div(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    FL__ACCEL_HOOK(fl__accel_div(f, a, b, c, flags));
    const fl_unp x = fl__unpack(f, a, c);
    const fl_unp y = fl__unpack(f, b, c);
    const int sign = x.sign ^ y.sign;
    fl_u128 n;
    uint64_t q, r;

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls)) {
        const uint64_t ops[2] = { a, b };
        return fl__nan_result(f, c, ops, 2, flags);
    }
    if (x.cls == FL_U_INF) {
        if (y.cls == FL_U_INF)
            return fl__invalid(f, c, flags);           /* inf / inf */
        return fl__pack_inf(f, sign, c, flags);               /* exact */
    }
    if (y.cls == FL_U_INF)
        return fl__pack_zero(f, c, sign, flags);                 /* finite / inf */
    if (y.cls == FL_U_ZERO) {
        if (x.cls == FL_U_ZERO)
            return fl__invalid(f, c, flags);           /* 0 / 0 */
        *flags |= FL_DIVBYZERO;
        return fl__pack_inf(f, sign, c, flags);
    }
    if (x.cls == FL_U_ZERO)
        return fl__pack_zero(f, c, sign, flags);

    /* x.sig / y.sig * 2^(x.exp - y.exp) = (n / y.sig) * 2^(x.exp - y.exp - 63) */
    n = (fl_u128)x.sig << 63;
    q = (uint64_t)(n / y.sig);
    r = (uint64_t)(n - (fl_u128)q * y.sig);
    return fl__round_pack(f, c, sign, x.exp - y.exp, q | (r != 0), flags);
}
