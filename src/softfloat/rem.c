/*
 * rem.c — fl_rem: IEEE remainder a - n*b, n = a/b rounded to nearest even.
 *
 * The remainder is always exact (and representable in any binary format
 * with subnormals), so the rounding mode does not matter; the result still
 * goes through fl__round_pack, which returns it unchanged except where the
 * context flushes tiny results or the format has no subnormals.
 *
 * Method: long division on integer significands.  Both significands have
 * at most 53 significant bits, so X = x.sig >> 11 and Y = (y.sig >> 11) << 1
 * are exact, with Y in [2^53, 2^54) counting units u = 2^(y.exp - 53).  In
 * those units |a| = X * 2^(d + 1), d = x.exp - y.exp, and |a| mod |b| is
 * found by shifting the d + 1 extra zero bits into the running remainder,
 * up to 64 at a time (128-by-64-bit division).  The parity of n comes from
 * the last partial quotient.  Exponent differences up to about 2100
 * (binary64 extremes) take at most 33 divisions.
 */
#include "internals.h"

FPLAB_HOSTDEV uint64_t fl_rem(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    const fl_unp y = fl__unpack(f, b, c);
    uint64_t ym, r, odd = 0;
    int32_t k;
    int sign;

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls)) {
        const uint64_t ops[2] = { a, b };
        return fl__nan_result(f, c, ops, 2, flags);
    }
    if (x.cls == FL_U_INF || y.cls == FL_U_ZERO)
        return fl__invalid(f, c, flags);               /* rem(inf, y), rem(x, 0) */
    if (x.cls == FL_U_ZERO)
        return fl__pack_zero(f, c, x.sign, flags);               /* rem(+-0, y) = +-0 */
    /* |x| < |y| / 2 (including y = inf): n = 0, the result is x */
    if (y.cls == FL_U_INF || x.exp < y.exp - 1)
        return fl__round_pack(f, c, x.sign, x.exp, x.sig, flags);

    ym = (y.sig >> 11) << 1;                           /* Y in [2^53, 2^54) */
    r = x.sig >> 11;                                   /* X < 2^53 <= Y */
    k = x.exp - y.exp + 1;                             /* zero bits to bring in */
    while (k > 0) {
        /* invariant: r < ym, so the partial quotient fits in s bits */
        const int s = k < 64 ? k : 64;
        const fl_u128 t = (fl_u128)r << s;
        const uint64_t q = (uint64_t)(t / ym);
        r = (uint64_t)(t - (fl_u128)q * ym);
        odd = q & 1;
        k -= s;
    }
    /* r = |a| mod |b| in units u, 0 <= r < Y.  Round n to nearest even:
     * past the half (or at it with n odd), take n + 1 and r - Y. */
    sign = x.sign;
    if (r > ym - r || (r == ym - r && odd)) {
        r = ym - r;
        sign = !sign;
    }
    if (r == 0)
        return fl__pack_zero(f, c, x.sign, flags);               /* sign of x */
    /* value = r * 2^(y.exp - 53) = r * 2^((y.exp + 10) - 63) */
    return fl__round_pack(f, c, sign, y.exp + 10, r, flags);
}
