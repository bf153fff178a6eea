/*
 * convert.c — fl_convert: any format to any format, one rounding.
 *
 * The source value is unpacked exactly (every supported format has at most
 * 53 significant bits, so the 64-bit unpacked significand holds it with at
 * least 11 zero bits below: its lowest bit, read as sticky by
 * fl__round_pack, is always 0).  Rounding, subnormal results, flush-to-zero,
 * overflow and flags are all left to fl__round_pack.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

FPLAB_HOSTDEV uint64_t fl_convert(const fl_format *dst, const fl_format *src,
                                  uint64_t a, const fl_ctx *c,
                                  unsigned *flags)
{
    FL__ACCEL_HOOK(fl__accel_convert(dst, src, a, c, flags));
    /* denormals-are-zero applies to the source operand */
    const fl_unp u = fl__unpack(src, a, c);

    switch (u.cls) {
    case FL_U_QNAN:
    case FL_U_SNAN:
        return fl__nan_convert(dst, src, a, c, flags);
    case FL_U_INF:
        /* a format without infinities gets its largest finite value when
         * saturating, else its NaN pattern (fl__pack_inf decides) */
        return fl__pack_inf(dst, u.sign, c, flags);
    case FL_U_ZERO:
        return fl__pack_zero(dst, c, u.sign, flags);
    default:
        return fl__round_pack(dst, c, u.sign, u.exp, u.sig, flags);
    }
}
