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
 * FL_RSB: whether the discarded fraction nu = rest / 2^shift (0 < nu < 1)
 * rounds the magnitude away from zero with the N = c->sr_nbits random
 * bits R = c->sr_bits (low N bits) in variant c->sr_variant.  Each
 * variant of P3109's RoundToPrecision (fplab.h, FL_SRV_*) is one
 * comparison of nu 2^(N+1) with an integer T:
 *   FASTEST  floor(nu 2^N) + R >= 2^N      <=>  nu 2^(N+1) >= 2^(N+1) - 2R
 *   FAST     floor(nu 2^(N+1)) + 2R + 1 >= 2^(N+1)
 *                                          <=>  nu 2^(N+1) >= 2^(N+1) - 2R - 1
 *   STOCHASTIC  RNE(nu 2^N) >= 2^N - R = k (k >= 1): nu 2^N > k - 1/2, or
 *            equal and the tie k - 1/2 goes up to k, i.e. k even, i.e. R
 *            even (N >= 1); ODD the same with R odd.
 * (floor(y) >= k <=> y >= k for an integer k.)  The comparison is exact
 * in 128 bits: rest < 2^64, T < 2^65, N + 1 <= 65.  With a sticky bit at
 * bit 0 of sig (a result not exact in 64 bits) it is exact while the
 * threshold's grid, 2^(shift - N - 1) units of rest, is at least 2 units:
 * N <= shift - 2 (N <= 62 - p in the normal range); conversions from
 * formats of at most 62 - N bits are exact for every N.
 */
FPLAB_HOSTDEV int fl__srb_away(uint64_t rest, int32_t shift,
                               const fl_ctx *c)
{
    const int n = c->sr_nbits, m = n + 1;
    const uint64_t r = n >= 64 ? c->sr_bits
                               : c->sr_bits & ((((uint64_t)1) << n) - 1);
    const int odd_t = c->sr_variant != FL_SRV_FASTEST;
    const fl_u128 t = (((fl_u128)1) << m) - 2 * (fl_u128)r - (odd_t ? 1 : 0);
    int cmp;
    if (shift >= m) {
        const int32_t d = shift - m;
        if (d >= 64) {
            cmp = -1;                       /* nu < 2^(64-shift) <= T / 2^m */
        } else {
            const fl_u128 tt = t << d;      /* < 2^(m + d) = 2^shift <= 2^128 */
            cmp = (fl_u128)rest > tt ? 1 : (fl_u128)rest == tt ? 0 : -1;
        }
    } else {
        const fl_u128 rr = (fl_u128)rest << (m - shift);   /* < 2^m */
        cmp = rr > t ? 1 : rr == t ? 0 : -1;
    }
    switch (c->sr_variant) {
    case FL_SRV_FASTEST:
    case FL_SRV_FAST:
        return cmp >= 0;
    case FL_SRV_STOCHASTIC_ODD:
        return cmp > 0 || (cmp == 0 && (r & 1));
    default:                                /* FL_SRV_STOCHASTIC */
        return cmp > 0 || (cmp == 0 && !(r & 1));
    }
}

/*
 * Round sig / 2^shift to an integer in mode c->rm for a value of the given
 * sign.  Returns the rounded quotient (which may carry into one more bit);
 * *inexact says whether any discarded bit was set, *up whether the
 * magnitude was rounded up.  shift >= 0; shifts of 64 or more leave a
 * quotient of 0 and a discarded part below one unit.  odd: the parity
 * that ties-to-even and round-to-odd judge, -1 for the quotient's own
 * (q & 1); P3109 at precision 1 passes its code's (fl__round_pack).
 */
static FPLAB_HOSTDEV uint64_t round_shift(uint64_t sig, int32_t shift, int sign,
                                          const fl_ctx *c, int odd,
                                          int *inexact, int *up)
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
    if (odd < 0)
        odd = (int)(q & 1);
    switch (c->rm) {
    case FL_RNE:
        if (shift > 64)
            inc = 0;
        else
            inc = rest > half || (rest == half && odd);
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
        /* the odd neighbour: an even quotient moves up by one, an odd one
         * stays (down).  With q's own parity this sets the last kept bit
         * and never carries; with a code's parity (P3109, precision 1:
         * q = 1 in every binade) the step up may carry. */
        *up = !odd;
        return q + (uint64_t)!odd;
    case FL_RSB:
        inc = fl__srb_away(rest, shift, c);
        break;
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
    if (f->has_inf && !(c && c->saturate == FL_SAT_FINITE))
        return s | (f->max_bits + 1);        /* IEEE and P3109 alike */
    if (saturating(f, c) || f->nan_style == FL_NANSTYLE_FINITE) {
        *flags |= sign ? FL_TERN_UP : FL_TERN_DOWN;   /* short of inf */
        return s | f->max_bits;
    }
    return fl__nan_of_sign(f, sign);         /* FN, FNUZ: the NaN */
}

/* P3109 at precision 1 judges ties and round-to-odd by the code's parity:
 * 2^exp (exp >= emin) is code exp + bias.  -1 elsewhere: the quotient's
 * own last bit, which is the code's last bit at every precision >= 2 and
 * for the zero quotient below 2^emin. */
static FPLAB_HOSTDEV int code_parity(const fl_format *f, int32_t exp)
{
    if (f->prec != 1 || f->nan_style != FL_NANSTYLE_P3109 || exp < f->emin)
        return -1;
    return (int)((uint32_t)(exp + f->bias) & 1);
}

/* The rounding proper, for a value of either sign (an unsigned format's
 * negative values come back with sbit 0: sign_mask is 0 there). */
static FPLAB_HOSTDEV uint64_t round_pack(const fl_format *f, const fl_ctx *c,
                                         int sign, int32_t exp, uint64_t sig,
                                         unsigned *flags)
{
    const int p = f->prec;
    uint64_t sbit = sign ? f->sign_mask : 0;
    int lz, inexact, up, tiny = 0;
    int32_t shift;
    uint64_t q, mag;

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
            uint64_t r = round_shift(sig, 64 - p, sign, c,
                                     code_parity(f, exp), &inexact, &up);
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

    q = round_shift(sig, shift, sign, c, code_parity(f, exp), &inexact,
                    &up);

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
            case FL_RTO:
                /* IEEE: toward the largest finite.  P3109 (OvfInf):
                 * rounding to odd precedes saturation, so a value above
                 * the largest finite is infinite (or the NaN) */
                to_inf = f->nan_style == FL_NANSTYLE_P3109;
                break;
            case FL_RTZ:
                to_inf = 0;
                break;
            case FL_RUP:
                to_inf = !sign;
                break;
            case FL_RDN:
                to_inf = sign;
                break;
            default: /* RNE, RNA, SR, SR with bits: beyond the largest
                      * finite */
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

FPLAB_HOSTDEV uint64_t fl__round_pack(const fl_format *f, const fl_ctx *c,
                                      int sign, int32_t exp, uint64_t sig,
                                      unsigned *flags)
{
    unsigned fl = 0;
    uint64_t r;

    if (c->rm == FL_RSB &&
        (c->sr_nbits < 1 || c->sr_nbits > 64 || c->sr_variant >= FL_SRV_COUNT))
        return fl__invalid(f, c, flags);   /* no bits to round with */
    if (!sign || f->is_signed)
        return round_pack(f, c, sign, exp, sig, flags);
    /* A negative value in an unsigned format (zero results never get here:
     * they are exact, and fl__pack_zero handles them). */
    if (f->nan_style != FL_NANSTYLE_P3109)
        return fl__unsigned_negative(f, c, flags);
    /* P3109 rounds first and saturates after: a negative value that rounds
     * to zero is zero (flags of that rounding); a nonzero negative result
     * is below the lowest value 0, which OvfInf gives in the modes that
     * round toward it (toward zero, upward: Interim Report v4.0, 4.7.5)
     * and saturation always gives; otherwise the NaN. */
    r = round_pack(f, c, 1, exp, sig, &fl);
    if (r == 0 && !(fl & FL_OVERFLOW)) {
        *flags |= fl;
        return 0;
    }
    if (c->rm == FL_RTZ || c->rm == FL_RUP) {
        *flags |= FL_INVALID | FL_TERN_UP;
        return 0;
    }
    return fl__unsigned_negative(f, c, flags);
}
