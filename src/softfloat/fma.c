/*
 * fma.c — fl_fma: a * b + addend with one rounding.
 *
 * The exact product (at most 106 significant bits) and the addend are put
 * on a common scale in 128 bits, as X * 2^(E - 125) with X < 2^127:
 *   product  P = x.sig * y.sig in [2^126, 2^128), stored as P >> 1 (exact:
 *            P has at least 20 zero low bits), E = x.exp + y.exp;
 *   addend   z.sig << 62 in [2^125, 2^126), E = z.exp.
 * The one with the smaller E is shifted right by the difference with a
 * sticky bit.  The other one is even, so, as in fl_add, the jammed sum or
 * difference lies in the same open interval between even integers as the
 * exact one.  Massive cancellation needs a difference of at most 2, where
 * the shift loses nothing (both have at least 20 zero low bits); with a
 * jammed bit the result is at least 2^124.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

/* The generic algorithm: fl_fma when the seam declines (internals.h). */
FPLAB_HOSTDEV FL__NOINLINE uint64_t fl__fma_generic(const fl_format *f,
                                                 uint64_t a, uint64_t b,
                                                 uint64_t addend,
                                                 const fl_ctx *c,
                                                 unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    const fl_unp y = fl__unpack(f, b, c);
    const fl_unp z = fl__unpack(f, addend, c);
    const int ps = x.sign ^ y.sign;                    /* product sign */
    fl_u128 xp, xz, r;
    int32_t ep, ez, e;
    int sign, lz;

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls) ||
        fl__is_nan_cls(z.cls)) {
        const uint64_t ops[3] = { a, b, addend };
        uint64_t res = fl__nan_result(f, c, ops, 3, flags);
        /* 0 * inf + NaN: IEEE 754 (7.2) leaves the invalid flag to the
         * implementation.  x86 FMA3 does not raise it for a quiet NaN and
         * returns the addend; ARM (FPMulAdd) and RISC-V (whose
         * specification requires it) raise it.  So does Berkeley SoftFloat
         * 3e (softfloat_mulAddF16, label infProdArg: invalid, then
         * propagateNaN_ZC(defaultNaNF16UI, C), which keeps the default NaN
         * because it is the first operand): under the SoftFloat preset the
         * result is the default NaN, not the addend, and so under ARM's
         * (FPMulAdd returns FPDefaultNaN) and every other preset but x86
         * (the ARM, RISC-V and CUDA results are their default NaN anyway). */
        if (c->nan != FL_NANP_X86 &&
            !fl__is_nan_cls(x.cls) && !fl__is_nan_cls(y.cls) &&
            ((x.cls == FL_U_INF && y.cls == FL_U_ZERO) ||
             (x.cls == FL_U_ZERO && y.cls == FL_U_INF))) {
            *flags |= FL_INVALID;
            res = fl_default_nan(f, c->nan);
        }
        return res;
    }
    if (x.cls == FL_U_INF || y.cls == FL_U_INF) {
        if (x.cls == FL_U_ZERO || y.cls == FL_U_ZERO)
            return fl__invalid(f, c, flags);           /* 0 * inf + c */
        if (z.cls == FL_U_INF && z.sign != ps)
            return fl__invalid(f, c, flags);           /* inf - inf */
        return fl__pack_inf(f, ps, c, flags);
    }
    if (z.cls == FL_U_INF)
        return fl__pack_inf(f, z.sign, c, flags);
    if (x.cls == FL_U_ZERO || y.cls == FL_U_ZERO) {
        /* exact zero product: the sum is the addend, or a signed zero */
        if (z.cls == FL_U_ZERO)
            return z.sign == ps ? fl__pack_zero(f, c, ps, flags) : fl__cancel_zero(f, c, flags);
        return fl__round_pack(f, c, z.sign, z.exp, z.sig, flags);
    }

    /* Nonzero product: 128-bit exact, see the header comment. */
    xp = ((fl_u128)x.sig * y.sig) >> 1;
    ep = x.exp + y.exp;
    if (z.cls == FL_U_ZERO) {
        /* a * b + 0 = a * b, never zero: round the product alone */
        r = xp;
        e = ep;
        sign = ps;
    } else {
        xz = (fl_u128)z.sig << 62;
        ez = z.exp;
        if (ep >= ez) {
            xz = fl__shr128_sticky(xz, ep - ez);
            e = ep;
        } else {
            xp = fl__shr128_sticky(xp, ez - ep);
            e = ez;
        }
        if (ps == z.sign) {
            r = xp + xz;                               /* < 2^128 */
            sign = ps;
        } else if (xp >= xz) {
            r = xp - xz;
            sign = ps;
        } else {
            r = xz - xp;
            sign = z.sign;
        }
    }
    if (r == 0)
        return fl__cancel_zero(f, c, flags);                  /* exact cancellation */

    /* value = r * 2^(e - 125).  Normalize to bit 127 (a left shift by 64 or
     * more only happens without a jammed bit), keep 64 bits with sticky:
     * sig * 2^(e + 2 - lz - 63). */
    lz = (uint64_t)(r >> 64) ? fl__clz64((uint64_t)(r >> 64))
                             : 64 + fl__clz64((uint64_t)r);
    r <<= lz;
    return fl__round_pack(f, c, sign, e + 2 - lz, fl__sticky128(r), flags);
}

FPLAB_HOSTDEV uint64_t fl_fma(const fl_format *f, uint64_t a, uint64_t b,
                              uint64_t addend, const fl_ctx *c,
                              unsigned *flags)
{
    return FL__ACCEL_OR(fl__accel_fma(f, a, b, addend, c, flags),
                        fl__fma_generic(f, a, b, addend, c, flags));
}
