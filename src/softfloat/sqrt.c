/*
 * sqrt.c — fl_sqrt: square root with one rounding.
 *
 * The significand is widened to a 128-bit integer n in [2^126, 2^128) whose
 * scale 2^(e - 127) or 2^(e - 126) has an even exponent; floor(sqrt(n)) is
 * then a 64-bit root in [2^63, 2^64) and a nonzero remainder n - r^2 puts
 * the exact root strictly between r and r + 1 (sticky bit).  The integer
 * square root is the classical digit-by-digit method, exact, with no
 * floating point.
 */
#include "internals.h"

/* floor(sqrt(n)) for n in [2^126, 2^128); *inexact = (n != root^2). */
static FPLAB_HOSTDEV uint64_t isqrt128(fl_u128 n, int *inexact)
{
    /* Invariant before the step with bit = 4^k, with t = floor(sqrt(n) /
     * 2^(k+1)) the root bits found so far: res = t * 4^(k+1) and
     * rem = n - (t * 2^(k+1))^2 >= 0.  res + bit < 2^128 at every step. */
    fl_u128 rem = n, res = 0, bit = (fl_u128)1 << 126;
    while (bit != 0) {
        if (rem >= res + bit) {
            rem -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    *inexact = rem != 0;
    return (uint64_t)res;
}

FPLAB_HOSTDEV uint64_t fl_sqrt(const fl_format *f, uint64_t a,
                               const fl_ctx *c, unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    fl_u128 n;
    int32_t e;
    uint64_t r;
    int inexact;

    if (fl__is_nan_cls(x.cls)) {
        const uint64_t ops[1] = { a };
        return fl__nan_result(f, c, ops, 1, flags);
    }
    if (x.cls == FL_U_ZERO)
        return fl__pack_zero(f, x.sign);               /* sqrt(-0) = -0 */
    if (x.sign)
        return fl__invalid(f, c, flags);               /* negative, -inf */
    if (x.cls == FL_U_INF)
        return fl__pack_inf(f, 0, c);

    /* value = sig * 2^(e - 63).  e odd: n = sig * 2^64, value = n *
     * 2^(e - 127), root = sqrt(n) * 2^((e - 1)/2 - 63).  e even: n = sig *
     * 2^63, value = n * 2^(e - 126), root = sqrt(n) * 2^(e/2 - 63). */
    e = x.exp;
    if (e & 1) {
        n = (fl_u128)x.sig << 64;
        e = (e - 1) / 2;
    } else {
        n = (fl_u128)x.sig << 63;
        e = e / 2;
    }
    r = isqrt128(n, &inexact);
    return fl__round_pack(f, c, 0, e, r | (uint64_t)inexact, flags);
}
