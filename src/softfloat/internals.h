/*
 * internals.h — shared machinery of the softfloat core (not installed).
 *
 * Every operation follows the same shape:
 *   1. unpack the operands (fl__unpack: applies denormals-are-zero);
 *   2. leave early for NaN, infinity and zero;
 *   3. compute the exact result, or a 64-bit significand whose lowest bit is
 *      a sticky bit (OR of every discarded bit), with at least prec+2
 *      significant bits;
 *   4. round exactly once with fl__round_pack, the one rounding routine.
 *
 * Unpacked finite nonzero values are  sig * 2^(exp - 63)  with bit 63 of
 * sig set, i.e. sig is a 1.63 fixed-point significand and exp the unbiased
 * exponent of its leading bit.
 *
 * Who includes it.  The core (src/softfloat) and the reference library
 * (src/ref, through ref_internal.h): ref's exact and compensated
 * evaluations unpack operands, round their exact sums once with
 * fl__round_pack and take the core's NaN and special-value rules
 * (fl__nan_result, fl__nan_convert, fl__invalid, fl__pack_zero,
 * fl__pack_inf), so that a reference and the core cannot disagree on them.
 * No other part: scale's fl__sc_* and fl__mx_* helpers are its own
 * (scale_internal.h) and it calls the public API.  The shared library
 * exports none of these names (cmake/fplab.map).
 *
 * Contracts common to every function here: f is a valid descriptor (from
 * the preset table, fl_format_parse or fl_format_define); c is not NULL
 * unless a comment says it may be; flags is not NULL, and a function only
 * ORs into *flags (FL_* exception bits and the ternary FL_TERN_UP /
 * FL_TERN_DOWN), never clears it; results are encodings of f.
 */
#ifndef FPLAB_INTERNALS_H
#define FPLAB_INTERNALS_H

#include "fplab/fplab.h"

typedef unsigned __int128 fl_u128;

/* Keeps a function out of line (the entry points' generic bodies, so the
 * fast paths before them need no stack frame). */
#if defined(__CUDACC__)
#define FL__NOINLINE __noinline__
#else
#define FL__NOINLINE __attribute__((noinline))
#endif

/* Device code has no seam: the operations' one hook (src/accel/hooks.h,
 * included by the operation files on the host) is empty there. */
#if defined(__CUDACC__)
#define FL__ACCEL_HOOK(call) ((void)0)
#define FL__ACCEL_OR(accel, generic) (generic)
#endif

/* The class of an unpacked operand; the NaN classes are the last two
 * (fl__is_nan_cls). */
enum { FL_U_ZERO = 0, FL_U_FINITE = 1, FL_U_INF = 2, FL_U_QNAN = 3,
       FL_U_SNAN = 4 };

/* An unpacked operand (fl__unpack). */
typedef struct fl_unp {
    int cls;       /* FL_U_* */
    int sign;      /* 0 or 1 */
    int32_t exp;   /* unbiased exponent of the leading bit (finite only) */
    uint64_t sig;  /* bit 63 set for FL_U_FINITE, 0 otherwise */
} fl_unp;

/* Leading zero bits of x, 0..63; x must not be 0 (undefined there). */
static inline FPLAB_HOSTDEV int fl__clz64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

/* 1 when an unpacked class is a NaN (quiet or signaling). */
static inline FPLAB_HOSTDEV int fl__is_nan_cls(int cls)
{
    return cls >= FL_U_QNAN;
}

/* Decode a bit pattern.  Subnormal inputs become zero under c->daz (and in
 * formats declared without subnormals).  c may be NULL (no DAZ).  The
 * special encodings come from f->nan_style: IEEE (all-ones exponent), FN
 * (all-ones magnitude is NaN), FNUZ and signed P3109 (the sign bit alone
 * is the NaN), unsigned P3109 (the all-ones code is the NaN), P3109 with
 * infinities (the magnitude just above max_bits is infinite), FINITE
 * (none).  In a format without zero (has_zero == 0) the zero exponent
 * field is normal. */
static inline FPLAB_HOSTDEV fl_unp fl__unpack(const fl_format *f, uint64_t a,
                                              const fl_ctx *c)
{
    fl_unp u;
    const int fb = f->prec - 1;                      /* fraction bits */
    const uint64_t frac = a & f->frac_mask;
    const uint32_t e = (uint32_t)((a & f->exp_mask) >> fb);
    const uint32_t eall = (1u << f->ebits) - 1;
    u.sign = (a & f->sign_mask) != 0;
    u.exp = 0;
    u.sig = 0;
    if (f->nan_style == FL_NANSTYLE_P3109) {
        const uint64_t mag = a & (f->exp_mask | f->frac_mask);
        if (!f->is_signed && mag == (f->exp_mask | f->frac_mask)) {
            u.cls = FL_U_QNAN;
            return u;
        }
        if (f->has_inf && mag == f->max_bits + 1) {
            u.cls = FL_U_INF;
            return u;
        }
    } else if (e == eall) {
        if (f->nan_style == FL_NANSTYLE_IEEE) {      /* prec >= 2 */
            if (frac == 0) { u.cls = FL_U_INF; return u; }
            u.cls = (frac >> (fb - 1)) & 1 ? FL_U_QNAN : FL_U_SNAN;
            return u;
        }
        if (frac == f->frac_mask && f->nan_style == FL_NANSTYLE_FN) {
            u.cls = FL_U_QNAN;
            return u;
        }
        /* otherwise the all-ones exponent holds ordinary numbers */
    }
    if (e == 0 && f->has_zero) {
        if (frac == 0) {
            /* the sign bit alone: -0, or the one NaN of FNUZ and P3109 */
            u.cls = u.sign && (f->nan_style == FL_NANSTYLE_FNUZ ||
                               f->nan_style == FL_NANSTYLE_P3109)
                        ? FL_U_QNAN : FL_U_ZERO;
            return u;
        }
        if ((c && c->daz) || !f->subnormals) {
            u.cls = FL_U_ZERO;
            return u;
        }
        {
            int lz = fl__clz64(frac);
            u.cls = FL_U_FINITE;
            u.sig = frac << lz;
            /* value = frac * 2^(emin - fb) = sig * 2^(exp - 63) */
            u.exp = f->emin - fb + 63 - lz;
        }
        return u;
    }
    u.cls = FL_U_FINITE;
    u.sig = (frac | ((uint64_t)1 << fb)) << (63 - fb);
    u.exp = (int32_t)e - f->bias;
    return u;
}

/* The encoding of a zero of the given sign in a format that has zero; -0
 * is +0 where the format has no -0 (FNUZ, P3109, unsigned). */
static inline FPLAB_HOSTDEV uint64_t fl__zero_bits(const fl_format *f,
                                                   int sign)
{
    return sign && f->has_negzero ? f->sign_mask : 0;
}

/* A zero result in a format without zero (E8M0): the default NaN with
 * invalid, or when saturating (format or context) the smallest value
 * (encoding 0) with underflow, inexact and FL_TERN_UP. */
FPLAB_HOSTDEV uint64_t fl__no_zero(const fl_format *f, const fl_ctx *c,
                                   unsigned *flags);

/* A zero result of the given sign: fl__zero_bits, or fl__no_zero. */
static inline FPLAB_HOSTDEV uint64_t fl__pack_zero(const fl_format *f,
                                                   const fl_ctx *c, int sign,
                                                   unsigned *flags)
{
    if (f->has_zero)
        return fl__zero_bits(f, sign);
    return fl__no_zero(f, c, flags);
}

/* A negative nonzero result (or -inf) in an unsigned format: invalid, and
 * the default NaN, or when saturating the lowest value (encoding 0: zero,
 * or E8M0's 2^-127) with FL_TERN_UP. */
FPLAB_HOSTDEV uint64_t fl__unsigned_negative(const fl_format *f,
                                             const fl_ctx *c,
                                             unsigned *flags);

/* Signed infinity.  In a format without infinities: the largest finite
 * value when saturating (format or context) or when the format has no NaN
 * (FINITE), else the NaN of that sign.  -inf in an unsigned format goes to
 * fl__unsigned_negative. */
FPLAB_HOSTDEV uint64_t fl__pack_inf(const fl_format *f, int sign,
                                    const fl_ctx *c, unsigned *flags);

/* The one rounding routine.  Rounds (-1)^sign * sig * 2^(exp - 63) to f in
 * c->rm, handling subnormals, flush-to-zero, tininess (c->tininess),
 * overflow (to inf, to the format's NaN where it has no inf, to the
 * largest finite, or saturating), the formats' missing encodings (no -0:
 * +0; unsigned: a negative value is fl__unsigned_negative's; no zero:
 * values below 2^emin give 2^emin; min_gap_up: ml_dtypes' E8M0 rounding
 * above 2^emin in RNE and RNA) and all flags, including FL_TERN_UP /
 * FL_TERN_DOWN.  sig != 0 and need not be normalized; its lowest bit is
 * sticky, so it must carry >= prec+2 significant bits.  Returns the
 * encoding in f; the only place a finite result is rounded. */
FPLAB_HOSTDEV uint64_t fl__round_pack(const fl_format *f, const fl_ctx *c,
                                      int sign, int32_t exp, uint64_t sig,
                                      unsigned *flags);

/* FL_RSB: whether the discarded fraction rest / 2^shift (nonzero, below
 * one) rounds the magnitude away from zero with the context's supplied
 * bits and variant (round.c states the exactness conditions). */
FPLAB_HOSTDEV int fl__srb_away(uint64_t rest, int32_t shift,
                               const fl_ctx *c);

/* Collapse a 128-bit significand to 64 bits with sticky, keeping the
 * leading bit position: returns the top 64 bits of x, with bit 0 ORed with
 * whether any lower bit was set.  x must have bit 127 set. */
static inline FPLAB_HOSTDEV uint64_t fl__sticky128(fl_u128 x)
{
    return (uint64_t)(x >> 64) | ((uint64_t)x != 0);
}

/* Shift right with sticky: bits shifted out are ORed into bit 0; n <= 0
 * returns x, n past the width returns whether x != 0. */
static inline FPLAB_HOSTDEV uint64_t fl__shr_sticky(uint64_t x, int32_t n)
{
    if (n <= 0) return x;
    if (n >= 64) return x != 0;
    return (x >> n) | ((x & (((uint64_t)1 << n) - 1)) != 0);
}

/* fl__shr_sticky on 128 bits. */
static inline FPLAB_HOSTDEV fl_u128 fl__shr128_sticky(fl_u128 x, int32_t n)
{
    if (n <= 0) return x;
    if (n >= 128) return x != 0;
    return (x >> n) | ((x & (((fl_u128)1 << n) - 1)) != 0);
}

/* 1 for the presets that propagate a NaN operand (x86 and SoftFloat's
 * 8086-SSE, which share these rules), 0 for those that always return the
 * default NaN. */
static inline FPLAB_HOSTDEV int fl__nan_propagates(int preset)
{
    return preset == FL_NANP_X86 || preset == FL_NANP_SOFTFLOAT;
}

/* What a preset keeps of the first NaN operand (nan.c): the NaN itself,
 * quieted (x86, SoftFloat, first), only its sign on the canonical quiet
 * NaN (sign, sign-pos), or nothing: the default NaN (the others). */
enum { FL__NAN_KEEP_NONE = 0, FL__NAN_KEEP_SIGN = 1, FL__NAN_KEEP_PAYLOAD = 2 };
static inline FPLAB_HOSTDEV int fl__nan_keep(int preset)
{
    switch (preset) {
    case FL_NANP_X86: case FL_NANP_SOFTFLOAT: case FL_NANP_FIRST:
        return FL__NAN_KEEP_PAYLOAD;
    case FL_NANP_SIGN: case FL_NANP_SIGN_POS:
        return FL__NAN_KEEP_SIGN;
    default:
        return FL__NAN_KEEP_NONE;
    }
}

/* 1 when the preset's default NaN is negative (x86's 0xFE00). */
static inline FPLAB_HOSTDEV int fl__nan_default_neg(int preset)
{
    return preset == FL_NANP_X86 || preset == FL_NANP_SOFTFLOAT ||
           preset == FL_NANP_SIGN || preset == FL_NANP_DEFAULT_NEG;
}

/* NaN results.  fl__nan_result picks the NaN an operation returns given its
 * operands (at least one is a NaN), following c->nan (fl__nan_keep): x86,
 * SoftFloat and first propagate the first NaN operand (quieted), sign and
 * sign-pos its sign, the others return the default NaN.  Raises invalid
 * if any operand is a signaling NaN.  ops[0..n) are the operands'
 * encodings in f, in the operation's order (the first NaN is the one
 * kept). */
FPLAB_HOSTDEV uint64_t fl__nan_result(const fl_format *f, const fl_ctx *c,
                                      const uint64_t *ops, int n,
                                      unsigned *flags);
/* An invalid operation on non-NaN operands: default NaN, invalid raised. */
FPLAB_HOSTDEV uint64_t fl__invalid(const fl_format *f, const fl_ctx *c,
                                   unsigned *flags);
/* A NaN converted from format src to dst (payload kept under the presets
 * that keep it, the sign alone under sign and sign-pos, else the default
 * NaN); raises invalid for a signaling NaN. */
FPLAB_HOSTDEV uint64_t fl__nan_convert(const fl_format *dst,
                                       const fl_format *src, uint64_t a,
                                       const fl_ctx *c, unsigned *flags);

/* A zero result of an exact cancellation x + (-x): +0, or -0 in FL_RDN. */
static inline FPLAB_HOSTDEV uint64_t fl__cancel_zero(const fl_format *f,
                                                     const fl_ctx *c,
                                                     unsigned *flags)
{
    return fl__pack_zero(f, c, c->rm == FL_RDN, flags);
}

/* x + y on unpacked non-NaN operands (add.c); fl_sub flips y's sign. */
FPLAB_HOSTDEV uint64_t fl__add_unpacked(const fl_format *f, const fl_ctx *c,
                                        fl_unp x, fl_unp y, unsigned *flags);

/* fl_fma's generic algorithm (fma.c), named for the seam: its routes
 * end in it when they decline.  The two-operand routes are handed their
 * generic algorithm as a sixth argument instead; for fma it would be the
 * seventh, a stack argument, so fl_fma could not tail-call the route and
 * would need a frame on every binary16 fma. */
FPLAB_HOSTDEV uint64_t fl__fma_generic(const fl_format *f, uint64_t a,
                                       uint64_t b, uint64_t addend,
                                       const fl_ctx *c, unsigned *flags);

/* The NaN (or, in a FINITE format, the stand-in) that a NaN of the given
 * sign becomes in f (nan.c). */
FPLAB_HOSTDEV uint64_t fl__nan_of_sign(const fl_format *f, int sign);

#endif /* FPLAB_INTERNALS_H */
