/*
 * next.c — nextUp and nextDown (IEEE 754-2019 5.3.1).  Exact: no flags
 * except invalid for a signaling NaN.
 *
 * Positive encodings increase with their value in both NaN styles, so the
 * neighbour of a finite nonzero value is its encoding's magnitude +-1.
 * nextDown(x) = -nextUp(-x).
 *
 * Conventions:
 *  - NaN in: the NaN fl__nan_result gives (x86 returns the operand quieted,
 *    the other presets their default NaN); invalid for a signaling NaN.
 *  - nextUp(+largest) = +inf.  In a format without infinities it is what
 *    fl__pack_inf gives: the largest finite value when saturating, else
 *    the NaN pattern (there is nothing above the largest finite).
 *  - nextUp(-inf) = -largest; nextUp(+inf) = +inf.
 *  - nextUp(-smallest) = -0; nextUp(+-0) = +smallest.
 *  - Without subnormals (a format declared without them, or a context with
 *    flush-to-zero or denormals-are-zero), "smallest" is the smallest
 *    normal and subnormal encodings are skipped; a subnormal input is read
 *    as a zero of its sign (denormals-are-zero, via fl__unpack).
 */
#include "internals.h"

/* nextUp of a non-NaN encoding x whose subnormals have been read as zero. */
static FPLAB_HOSTDEV uint64_t next_up(const fl_format *f, uint64_t x,
                                      fl_unp u, const fl_ctx *c)
{
    const int skip_sub = !f->subnormals || c->ftz || c->daz;
    const uint64_t smallest = skip_sub ? (uint64_t)1 << (f->prec - 1) : 1;
    const uint64_t mag = x & ~f->sign_mask & (f->sign_mask | (f->sign_mask - 1));

    if (u.cls == FL_U_ZERO)
        return smallest;                       /* +smallest, from either 0 */
    if (u.cls == FL_U_INF)
        return u.sign ? f->sign_mask | f->max_bits : x;
    if (skip_sub && u.exp < f->emin)           /* subnormal under ftz alone */
        return u.sign ? f->sign_mask : smallest;
    if (!u.sign)                               /* finite, positive */
        return mag == f->max_bits ? fl__pack_inf(f, 0, c) : mag + 1;
    /* finite, negative: toward zero */
    if (mag == smallest)
        return f->sign_mask;                   /* -0 */
    return f->sign_mask | (mag - 1);
}

static FPLAB_HOSTDEV uint64_t next(const fl_format *f, uint64_t a, int down,
                                   const fl_ctx *c, unsigned *flags)
{
    const uint64_t flip = down ? f->sign_mask : 0;
    fl_unp u = fl__unpack(f, a, c);

    if (fl__is_nan_cls(u.cls))
        return fl__nan_result(f, c, &a, 1, flags);
    u.sign ^= down;
    return next_up(f, a ^ flip, u, c) ^ flip;
}

FPLAB_HOSTDEV uint64_t fl_next_up(const fl_format *f, uint64_t a,
                                  const fl_ctx *c, unsigned *flags)
{
    return next(f, a, 0, c, flags);
}

FPLAB_HOSTDEV uint64_t fl_next_down(const fl_format *f, uint64_t a,
                                    const fl_ctx *c, unsigned *flags)
{
    return next(f, a, 1, c, flags);
}
