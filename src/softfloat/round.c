/*
 * round.c — the one rounding routine of the core.
 *
 * fl__round_pack takes an exact value, or a 64-bit significand whose lowest
 * bit is sticky, and produces the encoding in format f.  Everything that
 * depends on the rounding mode, the exponent range, subnormals, flush-to-
 * zero, saturation, tininess and the exception flags happens here and
 * nowhere else.  Every operation of the core ends with exactly one call.
 */
#include "internals.h"

/* Counter-based generator for stochastic rounding: two rounds of the
 * SplitMix64 finalizer over (seed, index).  A pure function, so element i
 * of a run gets the same bits on any thread or device. */
FPLAB_HOSTDEV uint64_t fl_sr_bits(uint64_t seed, uint64_t index)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    z += seed ^ 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/*
 * Round sig / 2^shift to an integer in mode c->rm for a value of the given
 * sign.  Returns the rounded quotient (which may carry into one more bit);
 * *inexact says whether any discarded bit was set, *up whether the
 * magnitude was rounded up.  shift >= 0; shifts of 64 or more leave a
 * quotient of 0 and a discarded part below one unit.
 */
static FPLAB_HOSTDEV uint64_t round_shift(uint64_t sig, int32_t shift, int sign,
                                          const fl_ctx *c, int *inexact,
                                          int *up)
{
    uint64_t q, rest, half;
    int inc;

    *up = 0;
    if (shift <= 0) {
        *inexact = 0;
        return sig;
    }
    if (shift < 64) {
        q = sig >> shift;
        rest = sig & ((((uint64_t)1) << shift) - 1);
        half = ((uint64_t)1) << (shift - 1);
    } else {
        /* sig < 2^64 <= 2^shift: the whole of sig is discarded.  For
         * shift == 64, rest compares against half = 2^63 directly; for
         * larger shifts it is strictly below half but nonzero. */
        q = 0;
        rest = sig;
        half = shift == 64 ? ((uint64_t)1) << 63 : 0;
    }
    if (rest == 0) {
        *inexact = 0;
        return q;
    }
    *inexact = 1;
    switch (c->rm) {
    case FL_RNE:
        if (shift > 64)
            inc = 0;
        else
            inc = rest > half || (rest == half && (q & 1));
        break;
    case FL_RNA:
        inc = shift <= 64 && rest >= half;
        break;
    case FL_RUP:
        inc = !sign;
        break;
    case FL_RDN:
        inc = sign;
        break;
    case FL_RTO:
        /* the odd neighbour: set the last kept bit; never carries.  An
         * even quotient moves up by one, an odd one stays (down). */
        *up = !(q & 1);
        return q | 1;
    case FL_RSR: {
        /* Round up with probability rest / 2^shift: add `shift` uniform
         * random bits to the discarded part and keep the carry. */
        uint64_t r = fl_sr_bits(c->sr_seed, c->sr_index);
        if (shift < 64) {
            r >>= 64 - shift;
            inc = ((rest + r) >> shift) != 0;
        } else if (shift == 64) {
            inc = rest + r < rest;
        } else {
            /* probability below 2^(64-shift): use the top 64 bits of the
             * discarded fraction, i.e. rest >> (shift - 64). */
            uint64_t top = shift - 64 < 64 ? rest >> (shift - 64) : 0;
            inc = top + r < top;
        }
        break;
    }
    default: /* FL_RTZ */
        inc = 0;
        break;
    }
    *up = inc;
    return q + (uint64_t)inc;
}

static FPLAB_HOSTDEV int saturating(const fl_format *f, const fl_ctx *c)
{
    return f->saturate || (c && c->saturate);
}

FPLAB_HOSTDEV uint64_t fl__no_zero(const fl_format *f, const fl_ctx *c,
                                   unsigned *flags)
{
    if (saturating(f, c)) {
        *flags |= FL_UNDERFLOW | FL_INEXACT | FL_TERN_UP;
        return 0;                            /* 2^emin */
    }
    return fl__invalid(f, c, flags);
}

FPLAB_HOSTDEV uint64_t fl__unsigned_negative(const fl_format *f,
                                             const fl_ctx *c,
                                             unsigned *flags)
{
    if (saturating(f, c)) {
        *flags |= FL_INVALID | FL_TERN_UP;
        return 0;                            /* the lowest value */
    }
    return fl__invalid(f, c, flags);
}

FPLAB_HOSTDEV uint64_t fl__pack_inf(const fl_format *f, int sign,
                                    const fl_ctx *c, unsigned *flags)
{
    const uint64_t s = sign ? f->sign_mask : 0;
    if (sign && !f->is_signed)
        return fl__unsigned_negative(f, c, flags);
    if (f->has_inf)
        return s | (f->max_bits + 1);        /* IEEE and P3109 alike */
    if (saturating(f, c) || f->nan_style == FL_NANSTYLE_FINITE) {
        *flags |= sign ? FL_TERN_UP : FL_TERN_DOWN;   /* short of inf */
        return s | f->max_bits;
    }
    return fl__nan_of_sign(f, sign);         /* FN, FNUZ: the NaN */
}

FPLAB_HOSTDEV uint64_t fl__round_pack(const fl_format *f, const fl_ctx *c,
                                      int sign, int32_t exp, uint64_t sig,
                                      unsigned *flags)
{
    const int p = f->prec;
    uint64_t sbit = sign ? f->sign_mask : 0;
    int lz, inexact, up, tiny = 0;
    int32_t shift;
    uint64_t q, mag;

    /* An unsigned format holds no negative number (zero results never get
     * here: they are exact, and fl__pack_zero handles them). */
    if (sign && !f->is_signed)
        return fl__unsigned_negative(f, c, flags);

    /* Normalize: value = sig * 2^(exp - 63), bit 63 of sig set. */
    lz = fl__clz64(sig);
    sig <<= lz;
    exp -= lz;

    if (exp < f->emin) {
        /* Stochastic rounding decides tininess-after with the same random
         * bits as the delivered rounding, at p bits instead of the
         * subnormal precision; as for every mode, a result equal to
         * 2^emin can still be tiny (IEEE 754-2019 7.5). */
        /* Tiny before rounding.  After rounding, only a value in
         * [2^(emin-1), 2^emin) can stop being tiny: when rounding it to p
         * bits at an unbounded exponent carries up to 2^emin. */
        tiny = 1;
        if (c->tininess == FL_TINY_AFTER && exp == f->emin - 1) {
            uint64_t r = round_shift(sig, 64 - p, sign, c, &inexact, &up);
            tiny = r < (((uint64_t)1) << p);
        }
        if (!f->has_zero) {
            /* Below the smallest value 2^emin (encoding 0) of a format
             * without zero: nothing lies below it, so every mode gives
             * 2^emin; never exact. */
            *flags |= FL_INEXACT | FL_TERN_UP | (tiny ? FL_UNDERFLOW : 0);
            return 0;
        }
        if (tiny && (c->ftz || !f->subnormals)) {
            *flags |= FL_UNDERFLOW | FL_INEXACT |
                      (sign ? FL_TERN_UP : FL_TERN_DOWN);
            return fl__zero_bits(f, sign);
        }
        /* Subnormal quantum 2^(emin - p + 1): keep fewer bits. */
        shift = 64 - p + (f->emin - exp);
    } else {
        shift = 64 - p;
    }

    q = round_shift(sig, shift, sign, c, &inexact, &up);

    /* min_gap_up (ml_dtypes' float8_e8m0fnu): in the nearest modes a
     * value strictly inside (2^emin, next value) goes up to the next
     * value.  Exactly those were rounded down to q = 2^(p-1) at exp ==
     * emin (a normalized sig never rounds up to 2^(p-1)); 2^emin itself is
     * exact and stays.  ml_dtypes rounds there at the quantum 2^(emin+1)
     * as if code 0 were zero, so for p = 1 its tie 2^emin goes to code 0
     * and everything above to 2^(emin+1): this rule.  The directed modes,
     * RTO and SR have no midpoint and keep the true neighbours (ml_dtypes'
     * truncation gives code 0 there, as RTZ does). */
    if (f->min_gap_up && exp == f->emin && inexact && !up &&
        q == ((uint64_t)1 << (p - 1)) && (c->rm == FL_RNE || c->rm == FL_RNA)) {
        q++;
        up = 1;
    }

    if (exp >= f->emin) {
        /* q in [2^(p-1), 2^p]; a carry to 2^p bumps the exponent. */
        if (q >> p) {
            q >>= 1;
            exp++;
        }
        mag = ((uint64_t)(exp + f->bias) << (p - 1)) | (q & f->frac_mask);
        if (exp > f->emax || mag > f->max_bits) {
            int to_inf;
            *flags |= FL_OVERFLOW | FL_INEXACT;
            switch (c->rm) {
            case FL_RTZ:
            case FL_RTO:
                to_inf = 0;
                break;
            case FL_RUP:
                to_inf = !sign;
                break;
            case FL_RDN:
                to_inf = sign;
                break;
            default: /* RNE, RNA, SR: beyond the largest finite */
                to_inf = 1;
                break;
            }
            /* saturation, and a format without infinity and NaN, keep
             * the largest finite value */
            if (saturating(f, c) || f->nan_style == FL_NANSTYLE_FINITE)
                to_inf = 0;
            if (to_inf) {
                *flags |= sign ? FL_TERN_DOWN : FL_TERN_UP;
                return fl__pack_inf(f, sign, c, flags);
            }
            *flags |= sign ? FL_TERN_UP : FL_TERN_DOWN;
            return sbit | f->max_bits;
        }
    } else {
        /* Subnormal: q < 2^(p-1), or == 2^(p-1) which encodes the
         * smallest normal directly (exponent field 1, fraction 0).  A
         * result that rounded to zero has no sign where -0 does not
         * exist. */
        mag = q;
        if (mag == 0)
            sbit = fl__zero_bits(f, sign);
    }

    if (inexact) {
        *flags |= FL_INEXACT | (tiny ? FL_UNDERFLOW : 0);
        *flags |= (up != sign) ? FL_TERN_UP : FL_TERN_DOWN;
    }
    return sbit | mag;
}
