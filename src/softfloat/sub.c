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
#include "fast.h"   /* bit-exact fast paths, proven equal in tests/test_fastpath.c */
#endif

/* Everything but the binary16 nearest-even path of fl_sub. */
static FPLAB_HOSTDEV FL__NOINLINE uint64_t fl__sub_rest(const fl_format *f,
                                                        uint64_t a, uint64_t b,
                                                        const fl_ctx *c,
                                                        unsigned *flags)
{
#ifndef __CUDACC__
    FL__TRY_FAST(fl__fast_add(f, a, b ^ f->sign_mask, c, flags, &fl__fast_r));
#endif
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
#if !defined(__CUDACC__) && defined(FL__H16_SSE)
    /* finite operands only: a NaN keeps its own sign (see above) */
    if (fl__h16_take(f, c) && !(fl__h16_special(a) | fl__h16_special(b)))
        return fl__h16_add(a, b ^ 0x8000, flags);
#endif
    return fl__sub_rest(f, a, b, c, flags);
}
