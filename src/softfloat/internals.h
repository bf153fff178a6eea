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
 */
#ifndef FPLAB_INTERNALS_H
#define FPLAB_INTERNALS_H

#include "fplab/fplab.h"

typedef unsigned __int128 fl_u128;

enum { FL_U_ZERO = 0, FL_U_FINITE = 1, FL_U_INF = 2, FL_U_QNAN = 3,
       FL_U_SNAN = 4 };

typedef struct fl_unp {
    int cls;       /* FL_U_* */
    int sign;      /* 0 or 1 */
    int32_t exp;   /* unbiased exponent of the leading bit (finite only) */
    uint64_t sig;  /* bit 63 set for FL_U_FINITE, 0 otherwise */
} fl_unp;

static inline FPLAB_HOSTDEV int fl__clz64(uint64_t x)
{
    /* x != 0 */
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

static inline FPLAB_HOSTDEV int fl__is_nan_cls(int cls)
{
    return cls >= FL_U_QNAN;
}

/* Decode a bit pattern.  Subnormal inputs become zero under c->daz (and in
 * formats declared without subnormals).  c may be NULL (no DAZ). */
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
    if (e == eall) {
        if (f->nan_style == FL_NANSTYLE_IEEE) {
            if (frac == 0) { u.cls = FL_U_INF; return u; }
            u.cls = (frac >> (fb - 1)) & 1 ? FL_U_QNAN : FL_U_SNAN;
            return u;
        }
        if (frac == f->frac_mask) { u.cls = FL_U_QNAN; return u; }
        /* FN style: the all-ones exponent holds ordinary numbers */
    }
    if (e == 0) {
        if (frac == 0 || (c && c->daz) || !f->subnormals) {
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

static inline FPLAB_HOSTDEV uint64_t fl__pack_zero(const fl_format *f, int sign)
{
    return sign ? f->sign_mask : 0;
}

/* Signed infinity; in a format without infinities the largest finite value
 * when saturating (format or context), else the NaN pattern with that sign. */
FPLAB_HOSTDEV uint64_t fl__pack_inf(const fl_format *f, int sign,
                                    const fl_ctx *c);

/* The one rounding routine.  Rounds (-1)^sign * sig * 2^(exp - 63) to f in
 * c->rm, handling subnormals, flush-to-zero, tininess (c->tininess),
 * overflow (to inf, to the largest finite, or saturating) and all flags,
 * including FL_TERN_UP / FL_TERN_DOWN.  sig != 0 and need not be
 * normalized; its lowest bit is sticky, so it must carry >= prec+2
 * significant bits. */
FPLAB_HOSTDEV uint64_t fl__round_pack(const fl_format *f, const fl_ctx *c,
                                      int sign, int32_t exp, uint64_t sig,
                                      unsigned *flags);

/* Collapse a 128-bit significand to 64 bits with sticky, keeping the
 * leading bit position: returns the top 64 bits of x, with bit 0 ORed with
 * whether any lower bit was set.  x must have bit 127 set. */
static inline FPLAB_HOSTDEV uint64_t fl__sticky128(fl_u128 x)
{
    return (uint64_t)(x >> 64) | ((uint64_t)x != 0);
}

/* Shift right with sticky: bits shifted out are ORed into bit 0. */
static inline FPLAB_HOSTDEV uint64_t fl__shr_sticky(uint64_t x, int32_t n)
{
    if (n <= 0) return x;
    if (n >= 64) return x != 0;
    return (x >> n) | ((x & (((uint64_t)1 << n) - 1)) != 0);
}

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

/* NaN results.  fl__nan_result picks the NaN an operation returns given its
 * operands (at least one is a NaN), following c->nan: x86 and SoftFloat
 * propagate the first NaN operand (quieted), the others return the default
 * NaN.  Raises invalid if any operand is a signaling NaN.  n = number of
 * operands. */
FPLAB_HOSTDEV uint64_t fl__nan_result(const fl_format *f, const fl_ctx *c,
                                      const uint64_t *ops, int n,
                                      unsigned *flags);
/* An invalid operation on non-NaN operands: default NaN, invalid raised. */
FPLAB_HOSTDEV uint64_t fl__invalid(const fl_format *f, const fl_ctx *c,
                                   unsigned *flags);
/* A NaN converted from format src to dst (payload kept under x86 and
 * SoftFloat, else the default NaN); raises invalid for a signaling NaN. */
FPLAB_HOSTDEV uint64_t fl__nan_convert(const fl_format *dst,
                                       const fl_format *src, uint64_t a,
                                       const fl_ctx *c, unsigned *flags);

/* A zero result of an exact cancellation x + (-x): +0, or -0 in FL_RDN. */
static inline FPLAB_HOSTDEV uint64_t fl__cancel_zero(const fl_format *f,
                                                     const fl_ctx *c)
{
    return c->rm == FL_RDN ? f->sign_mask : 0;
}

#endif /* FPLAB_INTERNALS_H */
