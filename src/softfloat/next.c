/*
 * next.c — nextUp and nextDown (IEEE 754-2019 5.3.1).  Exact: no flags
 * except invalid for a signaling NaN, and where the format cannot hold the
 * neighbour (below).
 *
 * Positive encodings increase with their value in every NaN style, so the
 * neighbour of a finite nonzero value is its encoding's magnitude +-1
 * (sign bit kept).  The two directions are written out, not derived from
 * each other by negation: an unsigned format has no negation.
 *
 * Conventions:
 *  - NaN in: the NaN fl__nan_result gives (x86 returns the operand quieted,
 *    the other presets their default NaN); invalid for a signaling NaN.
 *  - nextUp(+largest) = +inf.  In a format without infinities it is what
 *    fl__pack_inf gives: the largest finite value when saturating (and in
 *    a FINITE format), else the NaN (there is nothing above the largest
 *    finite).  nextDown(-largest) likewise.
 *  - nextUp(-inf) = -largest; nextUp(+inf) = +inf; nextDown mirrors.
 *  - nextUp(-smallest) = -0 (+0 where -0 does not exist); nextUp(+-0) =
 *    +smallest; nextDown(+smallest) = +0; nextDown(+-0) = -smallest.
 *  - Unsigned formats: nextDown(+0) is negative, which fl__unsigned_negative
 *    makes invalid (NaN, or 0 when saturating); in a format without zero
 *    (E8M0) nextDown(smallest) would be zero, which fl__pack_zero makes
 *    invalid (NaN, or the smallest value when saturating).
 *  - Without subnormals (a format declared without them, or a context with
 *    flush-to-zero or denormals-are-zero), "smallest" is the smallest
 *    normal and subnormal encodings are skipped; a subnormal input is read
 *    as a zero of its sign (denormals-are-zero, via fl__unpack).
 */
#include "internals.h"

/* The smallest positive encoding the context lets results take. */
static FPLAB_HOSTDEV uint64_t smallest(const fl_format *f, const fl_ctx *c)
{
    const int skip_sub = !f->subnormals || c->ftz || c->daz;
    if (!f->has_zero)
        return 0;                              /* 2^emin */
    return skip_sub ? (uint64_t)1 << (f->prec - 1) : 1;
}

/* The neighbour of the non-NaN encoding x (unpacked u) toward +inf when
 * up, else toward -inf. */
static FPLAB_HOSTDEV uint64_t step(const fl_format *f, uint64_t x, fl_unp u,
                                   int up, const fl_ctx *c, unsigned *flags)
{
    const int skip_sub = !f->subnormals || c->ftz || c->daz;
    const uint64_t mag = x & (f->exp_mask | f->frac_mask);
    const uint64_t least = smallest(f, c);
    const uint64_t s = u.sign ? f->sign_mask : 0;

    if (u.cls == FL_U_ZERO) {                  /* +-least, from either 0 */
        if (up)
            return least;
        if (!f->is_signed)
            return fl__unsigned_negative(f, c, flags);
        return f->sign_mask | least;
    }
    if (u.cls == FL_U_INF) {
        if (u.sign == up)                      /* back from the infinity */
            return s | f->max_bits;
        return x;
    }
    if (skip_sub && u.exp < f->emin) {         /* subnormal under ftz alone */
        if (u.sign == up)                      /* toward zero */
            return fl__zero_bits(f, u.sign);
        return s | least;
    }
    if (u.sign != up) {                        /* away from zero */
        if (mag == f->max_bits)
            return fl__pack_inf(f, u.sign, c, flags);
        return s | (mag + 1);
    }
    /* toward zero */
    if (mag == least)
        return fl__pack_zero(f, c, u.sign, flags);
    return s | (mag - 1);
}

static FPLAB_HOSTDEV uint64_t next(const fl_format *f, uint64_t a, int up,
                                   const fl_ctx *c, unsigned *flags)
{
    const fl_unp u = fl__unpack(f, a, c);
    if (fl__is_nan_cls(u.cls))
        return fl__nan_result(f, c, &a, 1, flags);
    return step(f, a, u, up, c, flags);
}

FPLAB_HOSTDEV uint64_t fl_next_up(const fl_format *f, uint64_t a,
                                  const fl_ctx *c, unsigned *flags)
{
    return next(f, a, 1, c, flags);
}

FPLAB_HOSTDEV uint64_t fl_next_down(const fl_format *f, uint64_t a,
                                    const fl_ctx *c, unsigned *flags)
{
    return next(f, a, 0, c, flags);
}
