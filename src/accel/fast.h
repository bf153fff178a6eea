/*
 * fast.h — bit-exact fast paths of the core (host only, not installed).
 *
 * Scope: signed formats f with zero, the IEEE bias, 2 <= prec <= 24,
 * ebits <= 8 and the IEEE, FN or FINITE NaN style (binary16, bfloat16,
 * tf32, binary32, the OCP fp8 formats, ml_dtypes' float8_e4m3 and
 * float8_e3m4, the MX FP6/FP4 elements, small "ieee:E:M" formats), every
 * rounding mode and every context option.  The other formats (FNUZ and
 * P3109: the sign bit alone is the NaN and -0 does not exist; unsigned
 * formats; E8M0 without zero; explicit biases) always take the generic
 * code here: fl__fast_fmt says no.  (Bulk rounding of binary32 to any
 * format of at most 8 bits, whatever its style, has its own kernels in
 * fast_narrow.c.)  The generic code stays the one source of truth:
 *
 *   1. Operands are decoded exactly into binary64 (every value of such a
 *      format is a double).  Infinities and NaNs are not handled here: the
 *      fast function returns 0 and the generic code runs.
 *   2. The result is computed in binary64 together with an exact error
 *      term (see each operation), and folded into one double whose last
 *      bit is sticky: round-to-odd at 53 bits (fl__fast_odd).  Rounding
 *      that double to p <= 24 <= 53 - 2 bits in any mode but stochastic
 *      gives the correctly rounded result of the exact value.
 *   3. One rounding step, fl__fast_pack, encodes it in f.  Its inline part
 *      covers results in the normal range that do not overflow; everything
 *      else (subnormal results, flush-to-zero, tininess, overflow,
 *      saturation) is handed to fl__round_pack, unchanged.
 *
 * Stochastic rounding uses the discarded part of the significand, which
 * differs between an exact value and a sticky one; the fast path therefore
 * only does SR when the double is exact (the generic significand is exact
 * then too), and falls back otherwise.
 *
 * Assumes the host's binary64 arithmetic in its default state: round to
 * nearest even, subnormals neither flushed nor treated as zero.
 *
 * At the level generic (FPLAB_CPU=generic, or a test's thread cap; see
 * accel.h) fl__fast_fmt says no to every format: the generic code runs.
 */
#ifndef FPLAB_FAST_H
#define FPLAB_FAST_H

#include "internals.h"
#include "preset_init.h"
#include "accel.h"

/* The AVX512-FP16 routes of binary16 (fast_fp16.c, and fast_h16.c's
 * multiplication), built with GCC 12 or later and FPLAB_AVX512 on
 * x86-64. */
#if defined(FPLAB_AVX512) && defined(__x86_64__) && defined(__GNUC__) &&     \
    !defined(__clang__) && __GNUC__ >= 12
#define FL__P16 1
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FL__AINLINE static inline __attribute__((always_inline))

typedef union { double d; uint64_t u; } fl__d64;
typedef union { float f; uint32_t u; } fl__f32;

static inline double fl__d_of(uint64_t u) { fl__d64 v; v.u = u; return v.d; }
static inline uint64_t fl__u_of(double d) { fl__d64 v; v.d = d; return v.u; }

/* The fast paths apply to f: every argument below (decoding into binary64
 * with the sign bit on top, a zero exponent field meaning zero or
 * subnormal, the specials at the top of the magnitudes, a signed zero for
 * every zero result, the range bounds) holds for exactly these formats. */
FL__AINLINE int fl__fast_fmt(const fl_format *f)
{
    return f->prec <= 24 && f->ebits <= 8 && f->prec >= 2 &&
           f->nan_style <= FL_NANSTYLE_FINITE && f->is_signed &&
           f->has_zero && f->bias == (1 << (f->ebits - 1)) - 1 &&
           fl__accel_level() >= FL__CPU_SCALAR;
}

/* The modes the fast paths implement: those a context alone defines
 * (FL_RSB, whose random bits are an operand, takes the generic code). */
#define FL__FAST_RM(c) ((c)->rm < FL_RM_COUNT)

/* Magnitudes at or above this encode infinity or NaN (IEEE), NaN (FN);
 * none in a FINITE format (no magnitude reaches the sign bit). */
FL__AINLINE uint64_t fl__fast_special(const fl_format *f)
{
    return f->nan_style == FL_NANSTYLE_IEEE ? f->exp_mask
           : f->nan_style == FL_NANSTYLE_FN ? f->exp_mask | f->frac_mask
                                            : f->sign_mask;
}

FL__AINLINE int fl__fast_is_special(const fl_format *f, uint64_t a)
{
    return (a & (f->sign_mask - 1)) >= fl__fast_special(f);
}

/*
 * The exact value of a finite encoding a as a double.  The magnitude
 * shifted to the top of a double's fraction gives a double whose exponent
 * field is f's; multiplying by 2^(1023 - bias) rebiases it.  Both steps are
 * exact (subnormals of f become subnormal doubles first, then normal
 * ones).  Subnormals become signed zeros under daz and in formats without
 * subnormals, as in fl__unpack.
 */
FL__AINLINE double fl__fast_decode(const fl_format *f, uint64_t a, int daz)
{
    uint64_t mag = a & (f->sign_mask - 1);
    const uint64_t s = (a >> (f->width - 1)) << 63;     /* the sign bit */
    if ((daz || !f->subnormals) && (mag & f->exp_mask) == 0)
        mag = 0;
    return fl__d_of(s | (mag << (53 - f->prec))) *
           fl__d_of((uint64_t)(2046 - f->bias) << 52);
}

/*
 * Round-to-odd at 53 bits of the exact value x = d + err, where d = RN(x)
 * != 0 and err is exact: d itself when exact or odd, else the neighbour
 * of d on err's side (which is odd).  When d is a power of two and err < 0
 * the neighbour below is one half-size ulp away; RN guarantees x lies
 * within half of that, so the neighbour is still the odd one bracketing x.
 */
FL__AINLINE uint64_t fl__fast_odd(double d, double err)
{
    uint64_t u = fl__u_of(d);
    if (err != 0 && !(u & 1))
        u += ((fl__u_of(err) ^ u) >> 63) ? ~(uint64_t)0 : 1;
    return u;
}

/*
 * Encode in f the double with bits u (nonzero, finite), read with its last
 * bit sticky.  The inline part is fl__round_pack specialised to a result
 * in [2^emin, 2^(emax+1)) that does not overflow: the double's own
 * exponent and fraction are rounded in place (a carry moves into the
 * exponent field) and rebiased.  Overflow in formats with infinities and
 * subnormal results in RNE without ftz are also inline (the same case
 * analysis as fl__round_pack's); the rest goes to fl__round_pack.  With sig53 = the double's significand,
 * fl__round_pack sees sig64 = sig53 << 11 and shift 64 - p; the discarded
 * part and the increment shift down by 11 bits without changing any carry
 * (the low 11 bits of sig64 are zero), including SR's random addend:
 * (sr >> p) >> 11 = sr >> (64 - sh).
 */
FL__AINLINE uint64_t fl__fast_pack(const fl_format *f, const fl_ctx *c,
                                   uint64_t u, unsigned *flags)
{
    const int p = f->prec, sh = 53 - p;
    const int sign = (int)(u >> 63);
    const uint64_t a = u & ~((uint64_t)1 << 63);
    const int32_t e = (int32_t)(a >> 52) - 1023;

    /* emin <= e <= emax as one unsigned comparison */
    if ((uint32_t)(e - f->emin) <= (uint32_t)(f->emax - f->emin)) {
        const uint64_t mask = ((uint64_t)1 << sh) - 1;
        const uint64_t rebias = (uint64_t)(1023 - f->bias) << (p - 1);
        const uint64_t sbit = ((uint64_t)0 - (uint64_t)sign) & f->sign_mask;
        const uint64_t q = a >> sh;
        uint64_t t;
        if (a & mask) {
            uint64_t inc;
            const int rm = c->rm;
            if (rm == FL_RNE)           /* the common mode, before the switch */
                inc = (mask >> 1) + (q & 1);
            else switch (rm) {
            case FL_RNE: inc = (mask >> 1) + (q & 1); break;
            case FL_RNA: inc = (mask >> 1) + 1; break;
            case FL_RUP: inc = sign ? 0 : mask; break;
            case FL_RDN: inc = sign ? mask : 0; break;
            case FL_RTO: inc = (q & 1) ? 0 : mask; break;
            case FL_RSR:
                inc = fl_sr_bits(c->sr_seed, c->sr_index) >> (64 - sh);
                break;
            default: inc = 0; break;
            }
            t = (a + inc) >> sh;
            if (t - rebias <= f->max_bits) {
                *flags |= FL_INEXACT |
                          ((int)(t != q) != sign ? FL_TERN_UP : FL_TERN_DOWN);
                return sbit | (t - rebias);
            }
        } else if (q - rebias <= f->max_bits) {
            return sbit | (q - rebias);
        }
        if (f->has_inf)
            goto overflow;              /* rounded beyond the largest finite */
    } else if (e > f->emax && f->has_inf) {
    overflow: {
            /* fl__round_pack's overflow: infinity or the largest finite,
             * by mode, sign and saturation */
            const int rm = c->rm;
            int to_inf = rm == FL_RNE || rm == FL_RNA || rm == FL_RSR ||
                         (rm == FL_RUP && !sign) || (rm == FL_RDN && sign);
            if (f->saturate || c->saturate)
                to_inf = 0;
            *flags |= FL_OVERFLOW | FL_INEXACT |
                      (to_inf != sign ? FL_TERN_UP : FL_TERN_DOWN);
            return (((uint64_t)0 - (uint64_t)sign) & f->sign_mask) |
                   (to_inf ? f->exp_mask : f->max_bits);
        }
    } else if (e < f->emin && c->rm == FL_RNE && !c->ftz && f->subnormals &&
               (a >> 52) != 0) {
        /* A subnormal result in RNE: S = sh + (emin - e) bits of the
         * 53-bit significand go; at S >= 54 it is below half the smallest
         * subnormal.  Underflow when inexact and tiny; tiny after rounding
         * fails only if e = emin - 1 and the p-bit rounding (sh bits)
         * reaches 2^emin, i.e. carries out of the 53 bits. */
        const int32_t S = sh + (f->emin - e);
        const uint64_t sig = (a & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
        const uint64_t sbit = ((uint64_t)0 - (uint64_t)sign) & f->sign_mask;
        uint64_t q = 0, rest = sig;
        int up = 0, tiny = 1;
        if (S < 54) {
            const uint64_t half = (uint64_t)1 << (S - 1);
            q = sig >> S;
            rest = sig & ((half << 1) - 1);
            up = rest > half || (rest == half && (q & 1));
            q += (uint64_t)up;
        }
        if (rest == 0)
            return sbit | q;                            /* exact */
        if (c->tininess == FL_TINY_AFTER && e == f->emin - 1)
            tiny = (sig + (((uint64_t)1 << (sh - 1)) - 1) +
                    ((sig >> sh) & 1)) >> 53 == 0;
        *flags |= FL_INEXACT | (tiny ? FL_UNDERFLOW : 0) |
                  (up != sign ? FL_TERN_UP : FL_TERN_DOWN);
        return sbit | q;
    }
    /* Everything else: the one rounding routine, on the same value. */
    if (a >> 52)
        return fl__round_pack(f, c, sign, e + 11,
                              (a & (((uint64_t)1 << 52) - 1)) |
                                  ((uint64_t)1 << 52), flags);
    return fl__round_pack(f, c, sign, -1011, a, flags);   /* subnormal */
}

/* A zero sum x + y (or product + addend): -0 only from -0 + -0 (the
 * binary64 sum is then -0), +0 + +0 stays +0, anything else is an exact
 * cancellation. */
FL__AINLINE uint64_t fl__fast_zero_sum(const fl_format *f, const fl_ctx *c,
                                         double s, double x, double y)
{
    if (fl__u_of(s) >> 63)
        return f->sign_mask;
    if ((fl__u_of(x) | fl__u_of(y)) == 0)
        return 0;
    return fl__zero_bits(f, c->rm == FL_RDN);   /* exact cancellation */
}

/*
 * a + b.  TwoSum (Knuth): s = RN(x + y), err = x + y - s exactly, for any
 * doubles without overflow (here |x|, |y| < 2^129).  For binary16 err is
 * always 0 (the exact sum spans at most 41 bits).
 */
FL__AINLINE int fl__fast_add_g(const fl_format *f, uint64_t a, uint64_t b,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    double x, y, s, bb, err;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c) || fl__fast_is_special(f, a) ||
        fl__fast_is_special(f, b))
        return 0;
    x = fl__fast_decode(f, a, c->daz);
    y = fl__fast_decode(f, b, c->daz);
    s = x + y;
    if (s == 0) {
        *out = fl__fast_zero_sum(f, c, s, x, y);
        return 1;
    }
    /* The exact sum is a multiple of 2^(emin-p+1) below 2^(emax+2): with
     * emax - emin + p + 1 <= 53 bits it is s itself (binary16, fp8) */
    if (f->emax - f->emin + f->prec + 1 <= 53) {
        *out = fl__fast_pack(f, c, fl__u_of(s), flags);
        return 1;
    }
    bb = s - x;
    err = (x - (s - bb)) + (y - bb);
    if (err != 0 && c->rm == FL_RSR)
        return 0;
    *out = fl__fast_pack(f, c, fl__fast_odd(s, err), flags);
    return 1;
}

/* a * b: p <= 24, so the product of two significands has at most 48 bits
 * and |product| lies in [2^-300, 2^258]: exact in binary64. */
FL__AINLINE int fl__fast_mul_g(const fl_format *f, uint64_t a, uint64_t b,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    double m;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c) || fl__fast_is_special(f, a) ||
        fl__fast_is_special(f, b))
        return 0;
    m = fl__fast_decode(f, a, c->daz) * fl__fast_decode(f, b, c->daz);
    if (m == 0) {
        *out = (fl__u_of(m) >> 63) ? f->sign_mask : 0;     /* exact */
        return 1;
    }
    *out = fl__fast_pack(f, c, fl__u_of(m), flags);
    return 1;
}

/* a * b + addend: the product is exact (as in fl__fast_mul), then TwoSum
 * of product and addend as in fl__fast_add. */
FL__AINLINE int fl__fast_fma_g(const fl_format *f, uint64_t a, uint64_t b,
                               uint64_t d, const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    double m, z, s, bb, err;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c) || fl__fast_is_special(f, a) ||
        fl__fast_is_special(f, b) || fl__fast_is_special(f, d))
        return 0;
    m = fl__fast_decode(f, a, c->daz) * fl__fast_decode(f, b, c->daz);
    z = fl__fast_decode(f, d, c->daz);
    s = m + z;
    if (s == 0) {
        *out = fl__fast_zero_sum(f, c, s, m, z);
        return 1;
    }
    bb = s - m;
    err = (m - (s - bb)) + (z - bb);
    if (err != 0 && c->rm == FL_RSR)
        return 0;
    *out = fl__fast_pack(f, c, fl__fast_odd(s, err), flags);
    return 1;
}

/*
 * a / b.  q = RN(|x| / |y|); the remainder r = |x| - q|y| is a double
 * (Markstein: the remainder of a correctly rounded quotient is
 * representable) and is computed exactly without an FMA: qh = q with its
 * low 27 fraction bits cleared (26 bits), ql = q - qh (27 bits, exact);
 * qh|y| (<= 50 bits) and ql|y| (<= 51 bits) are exact products;
 * |x| - qh|y| is exact by Sterbenz (qh|y| is within 2^-25 of |x|); and the
 * last subtraction is exact because its result r is representable.  The
 * exact quotient is above q iff r > 0.
 */
FL__AINLINE int fl__fast_div_g(const fl_format *f, uint64_t a, uint64_t b,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    double x, y, q, qh, ql, r;
    uint64_t u, sbit;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c) || fl__fast_is_special(f, a) ||
        fl__fast_is_special(f, b))
        return 0;
    x = fl__fast_decode(f, a, c->daz);
    y = fl__fast_decode(f, b, c->daz);
    if (y == 0)
        return 0;                       /* division by zero, 0/0: generic */
    sbit = (fl__u_of(x) ^ fl__u_of(y)) & ((uint64_t)1 << 63);
    if (x == 0) {
        *out = sbit ? f->sign_mask : 0;
        return 1;
    }
    x = fl__d_of(fl__u_of(x) & ~((uint64_t)1 << 63));
    y = fl__d_of(fl__u_of(y) & ~((uint64_t)1 << 63));
    q = x / y;
    qh = fl__d_of(fl__u_of(q) & ~(((uint64_t)1 << 27) - 1));
    ql = q - qh;
    r = (x - qh * y) - ql * y;
    u = fl__u_of(q);
    if (r != 0) {
        if (c->rm == FL_RSR)
            return 0;
        if (!(u & 1))
            u += r > 0 ? 1 : ~(uint64_t)0;
    }
    *out = fl__fast_pack(f, c, u | sbit, flags);
    return 1;
}

/*
 * sqrt(a).  The significand m (24 bits) becomes N = m * 2^s in
 * [2^60, 2^62) with the remaining power of two even; R = floor(sqrt(N)) in
 * [2^30, 2^31) from the binary64 square root of N (N is exact in binary64,
 * the root is within one unit) corrected with exact 64-bit squares.  R with
 * a sticky bit for N != R^2 is round-to-odd at 31 >= p + 2 bits.
 */
FL__AINLINE int fl__fast_sqrt_g(const fl_format *f, uint64_t a,
                                const fl_ctx *c, unsigned *flags,
                                uint64_t *out)
{
#if defined(__SSE2__)
    double x;
    uint64_t ux, m, n, r, sig;
    int32_t e, s, k;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c) || fl__fast_is_special(f, a))
        return 0;
    x = fl__fast_decode(f, a, c->daz);
    if (x == 0) {
        *out = (fl__u_of(x) >> 63) ? f->sign_mask : 0;  /* sqrt(-0) = -0 */
        return 1;
    }
    if (x < 0)
        return 0;                                       /* invalid */
    ux = fl__u_of(x);
    e = (int32_t)(ux >> 52) - 1023;
    m = ((ux & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52)) >> 29;
    s = 37 + (e & 1);                   /* e - 23 - s is even */
    n = m << s;                         /* x = n * 2^(e - 23 - s) */
    r = (uint64_t)_mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(),
                                            _mm_set_sd((double)n)));
    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    if (r * r != n && c->rm == FL_RSR)
        return 0;
    sig = r | (r * r != n);
    k = (e - 23 - s) / 2;               /* root = sig * 2^k, sig < 2^31 */
    *out = fl__fast_pack(f, c,
                         ((uint64_t)(1023 + 30 + k) << 52) |
                             ((sig & (((uint64_t)1 << 30) - 1)) << 22),
                         flags);
    return 1;
#else
    (void)f; (void)a; (void)c; (void)flags; (void)out;
    return 0;
#endif
}

/*
 * Format specialisation.  A descriptor is fully determined by its
 * parameter bytes: the eight from width to reserved, and the eight from
 * is_signed to bias (the other fields are derived from them).  For
 * binary16, bfloat16 and binary32 the scalar fast paths run on a
 * compile-time copy (built by format.c's own preset lines, preset_init.h),
 * so every field folds into the code; any other descriptor runs the same
 * code on its own fields.  Each key is read as one little-endian 64-bit
 * word.
 */
#define FL__KEY(w, e, p)                                                     \
    ((uint64_t)(w) | (uint64_t)(e) << 8 | (uint64_t)(p) << 16 |             \
     (uint64_t)1 << 24 /* has_inf */ | (uint64_t)1 << 40 /* subnormals */)
/* is_signed, has_zero, has_negzero, min_gap_up, then the bias */
#define FL__KEY2(bias)                                                       \
    ((uint64_t)1 | (uint64_t)1 << 8 | (uint64_t)1 << 16 |                   \
     (uint64_t)(uint32_t)(bias) << 32)
static const fl_format fl__k_binary16 = FL__PRESET_BINARY16;
static const fl_format fl__k_bfloat16 = FL__PRESET_BFLOAT16;
static const fl_format fl__k_binary32 = FL__PRESET_BINARY32;

FL__AINLINE uint64_t fl__fmt_key(const fl_format *f)
{
    uint64_t k;
    __builtin_memcpy(&k, &f->width, sizeof k);
    return k;
}

FL__AINLINE uint64_t fl__fmt_key2(const fl_format *f)
{
    uint64_t k;
    __builtin_memcpy(&k, &f->is_signed, sizeof k);
    return k;
}

/* f is the preset binary16 / bfloat16 / binary32 in every parameter. */
FL__AINLINE int fl__fmt_is(const fl_format *f, uint64_t key, int32_t bias)
{
    return fl__fmt_key(f) == key && fl__fmt_key2(f) == FL__KEY2(bias);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FL__FAST_SPECIALISE(call)                                            \
    do {                                                                     \
        const fl_format *F = f;                                              \
        switch (fl__fmt_key(f)) {                                            \
        case FL__KEY(16, 5, 11):                                             \
            if (fl__fmt_key2(f) == FL__KEY2(15)) {                           \
                F = &fl__k_binary16;                                         \
                return call;                                                 \
            }                                                                \
            break;                                                           \
        case FL__KEY(16, 8, 8):                                              \
            if (fl__fmt_key2(f) == FL__KEY2(127)) {                          \
                F = &fl__k_bfloat16;                                         \
                return call;                                                 \
            }                                                                \
            break;                                                           \
        case FL__KEY(32, 8, 24):                                             \
            if (fl__fmt_key2(f) == FL__KEY2(127)) {                          \
                F = &fl__k_binary32;                                         \
                return call;                                                 \
            }                                                                \
            break;                                                           \
        default:                                                             \
            break;                                                           \
        }                                                                    \
        return call;                                                         \
    } while (0)
#else
#define FL__FAST_SPECIALISE(call)                                            \
    do {                                                                     \
        const fl_format *F = f;                                              \
        return call;                                                         \
    } while (0)
#endif

/*
 * binary16 in nearest-even without ftz, daz or saturation (x86-64; the
 * entry points fl_add, fl_sub, fl_mul and fl_fma try these first).  On
 * operands drawn from every encoding (TestFloat's way) the results'
 * classes -- normal, subnormal, overflowing, exact -- come in random
 * order, so these paths take no branch on them, and they keep their
 * values in the SSE registers, with few moves to and from the integer
 * ones.  NaN and infinite operands branch off (fl__h16_special).
 *
 * The scaled domain: a binary16 magnitude m (15 bits) read as the binary64
 * bits m << 42 is the value times 2^-1008 exactly, binary16's exponent
 * field becoming binary64's (its subnormals binary64 subnormals, with the
 * same 2^-24 * 2^-1008 = 2^-1032 quantum).  Sums and products of scaled
 * values (one product operand unscaled) are the exact scaled results: a
 * binary16 sum spans at most 41 bits and a product 22, both multiples of
 * 2^-1056 >= 2^-1074.
 *
 * fl__h16_round(v): v >= 0 scaled, the exact magnitude or its round-to-odd
 * at 53 bits.  With 2^e = max(v's power of two, 2^-1022) (the scaled
 * 2^-14), M = 2^(e+42) is a binary64 whose ulp 2^(e-10) is binary16's
 * quantum at that magnitude, and v < M, so the host's nearest-even
 * addition v + M rounds v to a multiple of the quantum with ties to an
 * even multiple -- fl__round_pack's rounding of the 11-bit (or subnormal)
 * quotient -- and (v + M) - M = r is exact.  r is the scaled result, so
 * its bits >> 42 are the binary16 encoding, a carry into the exponent
 * field included; from 0x7C00 on it overflows (to infinity, nearest
 * even).  Inexact: r != v (a round-to-odd v has its last bit set, so it
 * never equals r, and it lies on the same side of every rounding point and
 * of the tininess border as the exact value).  Tiny: v below the scaled
 * 2^-14, or (after rounding) 2^-14 - 2^-26, where the 11-bit rounding
 * reaches 2^-14.  Assumes the host's binary64 in its default state
 * (nearest even, no FTZ/DAZ), as the rest of fast.h.
 */
#if defined(__SSE2__) && defined(__x86_64__)
#define FL__H16_SSE 1

/* The entries M(i) .. M(i + 4^k - 1) of a table generated by a macro of
 * its index. */
#define FL__TAB4(M, i) M(i), M((i) + 1), M((i) + 2), M((i) + 3)
#define FL__TAB16(M, i)                                                      \
    FL__TAB4(M, i), FL__TAB4(M, (i) + 4), FL__TAB4(M, (i) + 8),              \
        FL__TAB4(M, (i) + 12)
#define FL__TAB64(M, i)                                                      \
    FL__TAB16(M, i), FL__TAB16(M, (i) + 16), FL__TAB16(M, (i) + 32),         \
        FL__TAB16(M, (i) + 48)
#define FL__TAB256(M, i)                                                     \
    FL__TAB64(M, i), FL__TAB64(M, (i) + 64), FL__TAB64(M, (i) + 128),        \
        FL__TAB64(M, (i) + 192)

/* Flag words by (r > v) | (r < v) << 1 | overflow << 2 | tiny << 3 |
 * sign << 4. */
#define FL__H16_FW(i)                                                        \
    ((((i) & 7) ? FL_INEXACT | (((((i) & 1) | ((i) >> 2 & 1)) ^ ((i) >> 4 & 1)) \
                                ? FL_TERN_UP : FL_TERN_DOWN) |               \
                  (((i) >> 3 & 1) ? FL_UNDERFLOW : 0) : 0) |                 \
     (((i) >> 2 & 1) ? FL_OVERFLOW : 0))
static const uint8_t fl__h16_fw[32] = { FL__TAB16(FL__H16_FW, 0),
                                        FL__TAB16(FL__H16_FW, 16) };
#undef FL__H16_FW

/* A binary16 infinity or NaN operand. */
FL__AINLINE int fl__h16_special(uint64_t a)
{
    return (a & 0x7C00) == 0x7C00;
}

/* The scaled value (sign included) of a finite binary16 encoding. */
FL__AINLINE __m128d fl__h16_scaled(uint64_t a)
{
    const uint64_t b = ((uint64_t)(int64_t)(int16_t)(uint16_t)a << 42) &
                       0x81FFFC0000000000ull;      /* sign, magnitude */
    return _mm_castsi128_pd(_mm_cvtsi64_si128((long long)b));
}

/* The binary64 bits of x. */
FL__AINLINE uint64_t fl__h16_bits(__m128d x)
{
    return (uint64_t)_mm_cvtsi128_si64(_mm_castpd_si128(x));
}

/* v = vb's value, scaled, >= 0 (vb its bits); sg the result's sign;
 * tb the bits of the scaled tininess border.  Raises the flags, returns
 * the encoding. */
FL__AINLINE uint64_t fl__h16_round(__m128d v, uint64_t vb, uint64_t sg,
                                   uint64_t tb, unsigned *flags)
{
    const __m128d expm = _mm_castsi128_pd(_mm_set_epi64x(0, 0x7FF0000000000000ll));
    const __m128d e = _mm_max_sd(_mm_and_pd(v, expm), _mm_set_sd(0x1p-1022));
    const __m128d m = _mm_mul_sd(e, _mm_set_sd(0x1p42));
    const uint64_t rb = fl__h16_bits(_mm_sub_sd(_mm_add_sd(v, m), m));
    uint64_t code = rb >> 42;
    const unsigned ov = code >= 0x7C00;
    code = ov ? 0x7C00 : code;
    *flags |= fl__h16_fw[(unsigned)(rb > vb) | (unsigned)(rb < vb) << 1 |
                         ov << 2 | (unsigned)(vb < tb) << 3 | (unsigned)sg << 4];
    return code | sg << 15;
}

/* a + b, finite: the scaled sum is exact; its sign is the result's, -0
 * only from -0 + -0 (the host's nearest-even addition).  A sum below
 * 2^-14 is a multiple of 2^-24, exact: it never underflows. */
FL__AINLINE uint64_t fl__h16_add(uint64_t a, uint64_t b, unsigned *flags)
{
    const __m128d s = _mm_add_sd(fl__h16_scaled(a), fl__h16_scaled(b));
    const uint64_t sb = fl__h16_bits(s);
    const __m128d absm = _mm_castsi128_pd(_mm_set_epi64x(0, 0x7FFFFFFFFFFFFFFFll));
    return fl__h16_round(_mm_and_pd(s, absm), sb & 0x7FFFFFFFFFFFFFFFull,
                         sb >> 63, 0, flags);
}

/*
 * Products, unscaled: a product of two binary16 values lies in [2^-48,
 * 2^32) and an fma's sum above 2^-48 too, normal binary64 values, where a
 * scaled result could be a binary64 subnormal (a multiplication that
 * delivers one is slow on some processors).  fl__h16_round_u(v): v >= 0
 * the exact value or its round-to-odd at 53 bits, vb its bits: the same
 * rounding with 2^e = max(v's power of two, 2^-14) and M = 2^(e+42); the
 * rounded r (a binary16 value) is encoded from its binary64 bits, whose
 * exponent field is binary16's plus 1008 from 2^-14 on; below 2^-14, r =
 * k * 2^-24 and r + 2^-14 (exact) has the bits of 2^-14's plus k.
 */
FL__AINLINE uint64_t fl__h16_round_u(__m128d v, uint64_t vb, uint64_t sg,
                                     uint64_t tb, unsigned *flags)
{
    const __m128d expm = _mm_castsi128_pd(_mm_set_epi64x(0, 0x7FF0000000000000ll));
    const __m128d lo = _mm_set_sd(0x1p-14);
    const __m128d e = _mm_max_sd(_mm_and_pd(v, expm), lo);
    const __m128d m = _mm_mul_sd(e, _mm_set_sd(0x1p42));
    const __m128d r = _mm_sub_sd(_mm_add_sd(v, m), m);
    const __m128d sub = _mm_cmplt_sd(r, lo);             /* below 2^-14 */
    const uint64_t rb = fl__h16_bits(r);
    const uint64_t wb = fl__h16_bits(_mm_add_sd(r, _mm_and_pd(sub, lo)));
    uint64_t code = (wb >> 42) - ((uint64_t)(1008 + (_mm_movemask_pd(sub) & 1)) << 10);
    const unsigned ov = code >= 0x7C00;
    code = ov ? 0x7C00 : code;
    *flags |= fl__h16_fw[(unsigned)(rb > vb) | (unsigned)(rb < vb) << 1 |
                         ov << 2 | (unsigned)(vb < tb) << 3 | (unsigned)sg << 4];
    return code | sg << 15;
}

/* The tininess border of the context: 2^-14 (before rounding) or 2^-14 -
 * 2^-26 (after), as binary64 bits. */
FL__AINLINE uint64_t fl__h16_tiny_u(const fl_ctx *c)
{
    return c->tininess == FL_TINY_AFTER ? 0x3F0FFE0000000000ull
                                        : 0x3F10000000000000ull;
}

/* The exact value of a finite binary16 encoding, a normal binary64. */
FL__AINLINE __m128d fl__h16_value(uint64_t a)
{
    return _mm_mul_sd(fl__h16_scaled(a), _mm_set_sd(0x1p1008));
}

/* a * b, finite: exact in binary64; its sign is the operands' (a zero
 * product's too). */
FL__AINLINE uint64_t fl__h16_mul(uint64_t a, uint64_t b, const fl_ctx *c,
                                 unsigned *flags)
{
    const __m128d p = _mm_mul_sd(fl__h16_value(a & 0x7FFF),
                                 fl__h16_value(b & 0x7FFF));
    return fl__h16_round_u(p, fl__h16_bits(p), (a ^ b) >> 15 & 1,
                           fl__h16_tiny_u(c), flags);
}

/* p + z (binary64, lane 0; p an exact binary16 product, z a binary16
 * value) rounded to odd at 53 bits, as bits: TwoSum gives the sum's
 * error exactly (no overflow, every term a multiple of 2^-48), folded
 * into the last bit: an inexact even sum moves one ulp toward the error.
 * A zero sum is exact, signed by the host's addition: -0 only from -0 +
 * -0. */
FL__AINLINE uint64_t fl__h16_sum_odd(__m128d p, __m128d z)
{
    const __m128d s = _mm_add_sd(p, z);
    const __m128d bb = _mm_sub_sd(s, p);
    const __m128d err = _mm_add_sd(_mm_sub_sd(p, _mm_sub_sd(s, bb)),
                                   _mm_sub_sd(z, bb));
    const uint64_t sb = fl__h16_bits(s), eb = fl__h16_bits(err);
    return sb + (uint64_t)(((eb << 1) != 0) & !(sb & 1)) *
                    (((eb ^ sb) >> 63) ? ~(uint64_t)0 : 1);
}

/* a * b + d, finite: the product is exact (signed), the sum rounded to
 * odd at 53 bits (fl__h16_sum_odd), then rounded once. */
FL__AINLINE uint64_t fl__h16_fma(uint64_t a, uint64_t b, uint64_t d,
                                 const fl_ctx *c, unsigned *flags)
{
    const __m128d p = _mm_mul_sd(fl__h16_value(((a ^ b) & 0x8000) | (a & 0x7FFF)),
                                 fl__h16_value(b & 0x7FFF));
    const uint64_t sb = fl__h16_sum_odd(p, fl__h16_value(d));
    {
        const uint64_t vb = sb & 0x7FFFFFFFFFFFFFFFull;
        return fl__h16_round_u(_mm_castsi128_pd(_mm_cvtsi64_si128((long long)vb)),
                               vb, sb >> 63, fl__h16_tiny_u(c), flags);
    }
}

/* NaN operands of a two-operand operation (fl__nan_result for binary16):
 * invalid for a signaling one; x86 and SoftFloat propagate the first NaN,
 * quieted, the others return the default NaN. */
FL__AINLINE uint64_t fl__h16_nan2(uint64_t a, uint64_t b, const fl_ctx *c,
                                  unsigned *flags)
{
    const int na = (a & 0x7FFF) > 0x7C00, nb = (b & 0x7FFF) > 0x7C00;
    if ((na && !(a & 0x200)) || (nb && !(b & 0x200)))
        *flags |= FL_INVALID;
    if (fl__nan_propagates(c->nan))
        return (na ? a : b) | 0x200;
    return fl_default_nan(&fl__k_binary16, c->nan);
}

/* a + b or a * b with an infinite or NaN operand (add.c, mul.c). */
FL__AINLINE uint64_t fl__h16_add_special(uint64_t a, uint64_t b,
                                         const fl_ctx *c, unsigned *flags)
{
    if ((a & 0x7FFF) > 0x7C00 || (b & 0x7FFF) > 0x7C00)
        return fl__h16_nan2(a, b, c, flags);
    if ((a & 0x7FFF) == 0x7C00 && (b & 0x7FFF) == 0x7C00 && ((a ^ b) & 0x8000)) {
        *flags |= FL_INVALID;                          /* inf - inf */
        return fl_default_nan(&fl__k_binary16, c->nan);
    }
    return (a & 0x7FFF) == 0x7C00 ? a : b;             /* the infinity */
}
FL__AINLINE uint64_t fl__h16_mul_special(uint64_t a, uint64_t b,
                                         const fl_ctx *c, unsigned *flags)
{
    if ((a & 0x7FFF) > 0x7C00 || (b & 0x7FFF) > 0x7C00)
        return fl__h16_nan2(a, b, c, flags);
    if ((a & 0x7FFF) == 0 || (b & 0x7FFF) == 0) {
        *flags |= FL_INVALID;                          /* 0 * inf */
        return fl_default_nan(&fl__k_binary16, c->nan);
    }
    return ((a ^ b) & 0x8000) | 0x7C00;
}

/* a * b + d with an infinite or NaN operand (fma.c), fl__fma_rest's rules
 * for binary16 in a fl__h16_take context: a signaling NaN operand raises
 * invalid; x86 and SoftFloat return the first NaN operand quieted, the
 * other rules the default NaN; 0 * inf + NaN raises invalid except under
 * x86 (FMA3 does not), and gives the default NaN under SoftFloat
 * (softfloat_mulAddF16's propagateNaN_ZC).  Without a NaN: 0 * inf and
 * inf - inf are invalid, an infinite product is the result, else the
 * infinite addend. */
FL__AINLINE uint64_t fl__h16_fma_special(uint64_t a, uint64_t b, uint64_t d,
                                         const fl_ctx *c, unsigned *flags)
{
    const uint64_t ma = a & 0x7FFF, mb = b & 0x7FFF, md = d & 0x7FFF;
    const int na = ma > 0x7C00, nb = mb > 0x7C00, nd = md > 0x7C00;
    const int infzero = (ma == 0x7C00 && mb == 0) || (ma == 0 && mb == 0x7C00);
    if (na | nb | nd) {
        uint64_t r;
        if ((na && !(a & 0x200)) || (nb && !(b & 0x200)) || (nd && !(d & 0x200)))
            *flags |= FL_INVALID;
        r = fl__nan_propagates(c->nan) ? (na ? a : nb ? b : d) | 0x200
                                       : fl_default_nan(&fl__k_binary16, c->nan);
        if (c->nan != FL_NANP_X86 && !na && !nb && infzero) {
            *flags |= FL_INVALID;
            if (c->nan == FL_NANP_SOFTFLOAT)
                r = fl_default_nan(&fl__k_binary16, c->nan);
        }
        return r;
    }
    if (ma == 0x7C00 || mb == 0x7C00) {
        const uint64_t ps = (a ^ b) & 0x8000;
        if (infzero || (md == 0x7C00 && (d & 0x8000) != ps)) {
            *flags |= FL_INVALID;                      /* 0 * inf, inf - inf */
            return fl_default_nan(&fl__k_binary16, c->nan);
        }
        return ps | 0x7C00;
    }
    return d;                                          /* the infinite addend */
}

/* The same multiplication and fma through the host's F16C conversions
 * (fast_h16.c), by the calling thread's level: 3 AVX512-FP16 besides
 * (compiled with FL__P16), 2 the AVX-512 kernels (compiled only with
 * FPLAB_AVX512), 1 F16C with FMA3 (avx2), 0 the SSE2 versions above
 * (scalar). */
FL__AINLINE int fl__h16_hw(void)
{
#ifdef FL__P16
    if (fl__accel_level() >= FL__CPU_AVX512FP16)
        return 3;
#endif
    return fl__accel_simd();
}
/* Level avx2 and the host's NaN rule: the fma of any three encodings by
 * the exact binary32 product, a binary32 sum and its exact TwoSum error. */
uint64_t fl__h16_fma_f16c(const fl_format *f, uint64_t a, uint64_t b,
                          uint64_t d, const fl_ctx *c, unsigned *flags);
/* Level avx2 and the host's NaN rule: the sum of any two encodings by a
 * binary32 sum and its exact TwoSum error. */
uint64_t fl__h16_add_f16c(const fl_format *f, uint64_t a, uint64_t b,
                          const fl_ctx *c, unsigned *flags);
/* (f is not read: the signature is fl_mul's and fl_fma's, so that these
 * are jumped to without moving arguments) */
uint64_t fl__h16_mul_hw(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags);
uint64_t fl__h16_fma_hw(const fl_format *f, uint64_t a, uint64_t b,
                        uint64_t d, const fl_ctx *c, unsigned *flags);
/* fl__h16_hw() == 3 (AVX512-FP16 too; compiled with FL__P16) and the
 * host's NaN rule: the multiplication of any two encodings, the product
 * rounded by vmulsh. */
uint64_t fl__h16_mul_p16(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags);
/* fl__h16_hw() == 2 (AVX-512 too; compiled only with FPLAB_AVX512): the
 * fma by rounding-controlled binary32 fused multiply-adds. */
uint64_t fl__h16_fma_hw512(const fl_format *f, uint64_t a, uint64_t b,
                           uint64_t d, const fl_ctx *c, unsigned *flags);
/* fl__h16_hw() == 2 and the host's NaN rule: the addition of any two
 * encodings by rounding-controlled binary32 additions, the fma of any
 * three by fused multiply-adds. */
uint64_t fl__h16_fma_host512(const fl_format *f, uint64_t a, uint64_t b,
                             uint64_t d, const fl_ctx *c, unsigned *flags);
uint64_t fl__h16_add_hw512(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags);

/* f is binary16 (the preset, or a descriptor equal to it in every
 * parameter) and c nearest even without ftz, daz or saturation, with a NaN
 * rule whose NaN choices fl__h16_nan2 and fl__h16_fma_special know (x86,
 * ARM, RISC-V, CUDA, SoftFloat: the others go to the generic code). */
FL__AINLINE int fl__h16_take(const fl_format *f, const fl_ctx *c)
{
    uint64_t w;
    __builtin_memcpy(&w, c, sizeof w);   /* rm, tininess, ftz, daz, saturate */
    return (f == &fl_binary16 || fl__fmt_is(f, FL__KEY(16, 5, 11), 15)) &&
           (w & 0xFFFFFF00FFull) == 0 && c->nan <= FL_NANP_SOFTFLOAT &&
           fl__accel_at(FL__CPU_SCALAR);
}

/* The same with the host's NaN rule (c->nan x86 or SoftFloat: byte 5 of
 * the context 0 or 4), the level not asked: at level avx2 or above
 * fl__h16_mul_hw and the others take every encoding, and the hooks ask
 * which level (hooks.h).  The preset binary32 skips the binary16 key test
 * (its hooks' test f == &fl_binary32 comes next). */
FL__AINLINE int fl__h16_take_host(const fl_format *f, const fl_ctx *c)
{
    uint64_t w;
    __builtin_memcpy(&w, c, sizeof w);   /* ... nan */
    return (__builtin_expect(f == &fl_binary16, 1) ||
            (f != &fl_binary32 && fl__fmt_is(f, FL__KEY(16, 5, 11), 15))) &&
           __builtin_expect((w & 0xFBFFFFFF00FFull) == 0, 1);
}
#endif /* FL__H16_SSE */

static inline int fl__fast_add(const fl_format *f, uint64_t a, uint64_t b,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    FL__FAST_SPECIALISE(fl__fast_add_g(F, a, b, c, flags, out));
}
static inline int fl__fast_mul(const fl_format *f, uint64_t a, uint64_t b,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    FL__FAST_SPECIALISE(fl__fast_mul_g(F, a, b, c, flags, out));
}
static inline int fl__fast_fma(const fl_format *f, uint64_t a, uint64_t b,
                               uint64_t d, const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    FL__FAST_SPECIALISE(fl__fast_fma_g(F, a, b, d, c, flags, out));
}
static inline int fl__fast_div(const fl_format *f, uint64_t a, uint64_t b,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out)
{
    FL__FAST_SPECIALISE(fl__fast_div_g(F, a, b, c, flags, out));
}
static inline int fl__fast_sqrt(const fl_format *f, uint64_t a,
                                const fl_ctx *c, unsigned *flags,
                                uint64_t *out)
{
    FL__FAST_SPECIALISE(fl__fast_sqrt_g(F, a, c, flags, out));
}

/* Any source with prec <= 53 inside binary64 that fl__fast_decode or a
 * plain reinterpretation handles, to a fast-path destination. */
static inline int fl__fast_convert(const fl_format *dst,
                                   const fl_format *src, uint64_t a,
                                   const fl_ctx *c, unsigned *flags,
                                   uint64_t *out)
{
    uint64_t u;
    if (!fl__fast_fmt(dst) || !FL__FAST_RM(c))
        return 0;
    if (fl__fast_fmt(src)) {
        if (fl__fast_is_special(src, a))
            return 0;
        u = fl__u_of(fl__fast_decode(src, a, c->daz));
    } else if (src->ebits == 11 && src->prec == 53 &&
               src->nan_style == FL_NANSTYLE_IEEE && src->subnormals) {
        if ((a & 0x7FF0000000000000ull) == 0x7FF0000000000000ull)
            return 0;
        u = a;
        if ((a & 0x7FF0000000000000ull) == 0 && c->daz)
            u &= (uint64_t)1 << 63;
    } else {
        return 0;
    }
    if ((u << 1) == 0) {
        *out = (u >> 63) ? dst->sign_mask : 0;
        return 1;
    }
    *out = fl__fast_pack(dst, c, u, flags);
    return 1;
}

/* The double value of an encoding r of f produced by fl__fast_pack, as
 * fl_to_double gives it; 0 when r is infinite or NaN (not handled). */
static inline int fl__fast_value(const fl_format *f, uint64_t r, double *v)
{
    if (fl__fast_is_special(f, r))
        return 0;
    *v = fl__fast_decode(f, r, 0);
    return 1;
}

/* fl_round_double for a fast-path format: binary64 in, binary64 out. */
static inline int fl__fast_round_double(const fl_format *f, double x,
                                        const fl_ctx *c, unsigned *flags,
                                        double *out)
{
    uint64_t u = fl__u_of(x), r;
    unsigned fl = 0;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c) ||
        (u & 0x7FF0000000000000ull) == 0x7FF0000000000000ull)
        return 0;
    if ((u << 1) == 0 ||
        ((u & 0x7FF0000000000000ull) == 0 && c->daz)) {
        *out = fl__d_of(u & ((uint64_t)1 << 63));
        return 1;
    }
    r = fl__fast_pack(f, c, u, &fl);
    if (!fl__fast_value(f, r, out))
        return 0;                       /* no flags raised yet: redo */
    *flags |= fl;
    return 1;
}

/* fl_round_float for a fast-path format. */
static inline int fl__fast_round_float(const fl_format *f, float x,
                                       const fl_ctx *c, unsigned *flags,
                                       float *out)
{
    fl__f32 v;
    double d;
    v.f = x;
    /* daz applies to binary32 subnormals, which are normal doubles */
    if ((v.u & 0x7F800000u) == 0 && c->daz) {
        v.u &= 0x80000000u;
        if (!fl__fast_fmt(f))
            return 0;
        *out = v.f;
        return 1;
    }
    if (!fl__fast_round_double(f, (double)x, c, flags, &d))
        return 0;
    *out = (float)d;
    return 1;
}

/* Bulk rounding (fast_array.c): 1 when done, 0 when f is not a fast-path
 * format (the caller loops over the generic scalar code). */
int fl__fast_round_float_array(const fl_format *f, float *dst,
                               const float *src, size_t n, const fl_ctx *c,
                               unsigned *flags);
int fl__fast_round_double_array(const fl_format *f, double *dst,
                                const double *src, size_t n,
                                const fl_ctx *c, unsigned *flags);

/* SIMD kernels (fast_simd.c): round the first elements of the array (a
 * multiple of the vector width) and return how many; 0 when there is no
 * kernel for f or for this CPU.  level: -1 picks the best the CPU runs,
 * 1 = AVX2, 2 = AVX-512 (callers must not ask for more than
 * fl__simd_available() returns). */
size_t fl__simd_round_float_array(const fl_format *f, float *dst,
                                  const float *src, size_t n,
                                  const fl_ctx *c, unsigned *flags,
                                  int level);
size_t fl__simd_round_double_array(const fl_format *f, double *dst,
                                   const double *src, size_t n,
                                   const fl_ctx *c, unsigned *flags,
                                   int level);
/* Narrow formats (width <= 8, any NaN style, bias, signedness; see
 * fast_narrow.c): fl_round_float_array through the SIMD kernel and the
 * scalar entry point for the tail; 0 when there is no kernel for f, the
 * context or the CPU (nothing written).  fl__simd_narrow_float_array: the
 * kernel alone at `level` (as fl__simd_round_float_array). */
int fl__narrow_round_float_array(const fl_format *f, float *dst,
                                 const float *src, size_t n,
                                 const fl_ctx *c, unsigned *flags);
size_t fl__simd_narrow_float_array(const fl_format *f, float *dst,
                                   const float *src, size_t n,
                                   const fl_ctx *c, unsigned *flags,
                                   int level);
/* Tests: the narrow kernel (the copy that reads the format's options at
 * run time) with every lane's flags stored to lane_flags[i] instead of
 * OR-ed, all of them (lvl 2) or those the kernel still gathers once
 * inexact and the ternary bits are set (lvl 1: underflow, overflow and
 * the unsigned / no-zero words; the others may be left out). */
size_t fl__simd_narrow_trace(const fl_format *f, float *dst,
                             const float *src, size_t n, const fl_ctx *c,
                             unsigned *lane_flags, int level, int lvl);
/* AVX-512 kernels of fl_add_array .. fl_div_array (fast_simd_binop.c), op
 * 0 add, 1 sub, 2 mul, 3 div: do the first elements (a multiple of 8) and
 * return how many, every lane exactly as the scalar entry point; 0 when
 * there is no kernel for f, the mode or this CPU. */
size_t fl__simd_binop(int op, const fl_format *f, uint64_t *r,
                      const uint64_t *a, const uint64_t *b, size_t n,
                      const fl_ctx *c, unsigned *each);
/* The scalar entry point of fl_add_array .. fl_div_array's operation op
 * (0 add, 1 sub, 2 mul, 3 div) on the lanes of mask m (bit l: a[l],
 * b[l]) that an array kernel does not decide: results to out[l], flag
 * words to ofl[l]. */
FL__AINLINE void fl__binop_lanes(int op, const fl_format *f,
                                 const uint64_t *a, const uint64_t *b,
                                 const fl_ctx *c, unsigned long long m,
                                 uint64_t *out, unsigned *ofl)
{
    static uint64_t (*const entry[4])(const fl_format *, uint64_t, uint64_t,
                                      const fl_ctx *, unsigned *) = {
        fl_add, fl_sub, fl_mul, fl_div };
    while (m) {
        const int l = __builtin_ctzll(m);
        unsigned fs = 0;
        m &= m - 1;
        out[l] = entry[op & 3](f, a[l], b[l], c, &fs);
        ofl[l] = fs;
    }
}

#ifdef FL__P16
/* They apply: f is binary16, the calling thread's level avx512fp16, c in
 * nearest even, toward zero, down or up without ftz, daz or saturation
 * (any tininess and NaN rule: they decline special operands). */
FL__AINLINE int fl__p16_take(const fl_format *f, const fl_ctx *c)
{
    uint64_t w;
    __builtin_memcpy(&w, c, sizeof w);   /* rm, tininess, ftz, daz, saturate */
    return (f == &fl_binary16 || fl__fmt_is(f, FL__KEY(16, 5, 11), 15)) &&
           (w & 0xFFFFFF00FCull) == 0 &&
           fl__accel_at(FL__CPU_AVX512FP16);
}
/* The same in the directed modes only: add, sub, mul and fma in nearest
 * even keep the F16C/AVX-512 routes, faster there (docs/speed.md). */
FL__AINLINE int fl__p16_take_dir(const fl_format *f, const fl_ctx *c)
{
    return c->rm != FL_RNE && fl__p16_take(f, c);
}
/* One element: 1 and the result in *out, or 0 having written nothing
 * (special operands, a zero divisor, a negative radicand, a result of
 * magnitude 65504 or more). */
int fl__p16_add(uint64_t a, uint64_t b, const fl_ctx *c, unsigned *flags,
                uint64_t *out);
int fl__p16_sub(uint64_t a, uint64_t b, const fl_ctx *c, unsigned *flags,
                uint64_t *out);
int fl__p16_mul(uint64_t a, uint64_t b, const fl_ctx *c, unsigned *flags,
                uint64_t *out);
int fl__p16_div(uint64_t a, uint64_t b, const fl_ctx *c, unsigned *flags,
                uint64_t *out);
int fl__p16_sqrt(uint64_t a, const fl_ctx *c, unsigned *flags, uint64_t *out);
int fl__p16_fma(uint64_t a, uint64_t b, uint64_t d, const fl_ctx *c,
                unsigned *flags, uint64_t *out);
#endif
/* The same for binary16 by AVX512-FP16 instructions (fast_fp16.c: level
 * avx512fp16, nearest even and the directed modes, no ftz, daz or
 * saturation): a multiple of 32 elements, 0 where it does not apply. */
size_t fl__fp16_binop(int op, const fl_format *f, uint64_t *r,
                      const uint64_t *a, const uint64_t *b, size_t n,
                      const fl_ctx *c, unsigned *each);
/* 2 = AVX-512 kernels, 1 = AVX2, 0 = none (CPU or build). */
int fl__simd_available(void);

#endif /* FPLAB_FAST_H */
