/*
 * mul.c — fl_mul: a * b with one rounding.
 *
 * The product of two 64-bit significands in [2^63, 2^64) is exact in 128
 * bits and lies in [2^126, 2^128); its top 64 bits with the low half
 * jammed into bit 0 carry at least 63 significant bits.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

/* The generic algorithm: fl_mul when the seam declines. */
static FPLAB_HOSTDEV FL__NOINLINE uint64_t fl__mul_generic(const fl_format *f,
                                                        uint64_t a, uint64_t b,
                                                        const fl_ctx *c,
                                                        unsigned *flags)
{
    const fl_unp x = fl__unpack(f, a, c);
    const fl_unp y = fl__unpack(f, b, c);
    const int sign = x.sign ^ y.sign;
    fl_u128 p;
    uint64_t sig;

    if (fl__is_nan_cls(x.cls) || fl__is_nan_cls(y.cls)) {
        const uint64_t ops[2] = { a, b };
        return fl__nan_result(f, c, ops, 2, flags);
    }
    if (x.cls == FL_U_INF || y.cls == FL_U_INF) {
        if (x.cls == FL_U_ZERO || y.cls == FL_U_ZERO)
            return fl__invalid(f, c, flags);           /* 0 * inf */
        return fl__pack_inf(f, sign, c, flags);
    }
    if (x.cls == FL_U_ZERO || y.cls == FL_U_ZERO)
        return fl__pack_zero(f, c, sign, flags);                 /* exact */

    /* x.sig * y.sig * 2^(x.exp + y.exp - 126); the top half weighs
     * 2^64, so sig * 2^(x.exp + y.exp + 1 - 63). */
    p = (fl_u128)x.sig * y.sig;
    sig = (uint64_t)(p >> 64) | ((uint64_t)p != 0);
    return fl__round_pack(f, c, sign, x.exp + y.exp + 1, sig, flags);
}

FPLAB_HOSTDEV uint64_t fl_mul(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags)
{
    return FL__ACCEL_OR(fl__accel_mul(f, a, b, c, flags, fl__mul_generic),
                        fl__mul_generic(f, a, b, c, flags));
}
