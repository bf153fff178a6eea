/*
 * to_int.c — fl_to_i32, fl_to_i64, fl_to_u32, fl_to_u64: a float to a
 * 32- or 64-bit integer in c->rm.
 *
 * The magnitude is rounded as an integer (sign-magnitude, like the float),
 * then range-checked against the target; the check comes after rounding, so
 * -0x1.3p-2 to unsigned in nearest-even gives 0 (valid, inexact) while -1
 * is invalid.  An invalid conversion (NaN, infinity, out of range, or a
 * negative value that rounds to a nonzero magnitude for an unsigned target)
 * raises only invalid and returns the platform's value from the preset
 * table below.  Inexact is raised only when the caller asks for an exact
 * conversion (exact != 0); the informational FL_TERN_UP / FL_TERN_DOWN are
 * raised whenever the returned integer differs from the value.
 */
#include "internals.h"

/* What an invalid conversion returns, per platform preset. */
enum { INV_ZERO = 0, INV_MAX = 1, INV_MIN = 2 };
enum { INV_NAN = 0, INV_POS = 1, INV_NEG = 2 };

/*
 * The preset table.  Values follow Berkeley SoftFloat's specializations
 * (i32_fromNaN, i32_fromPosOverflow, ... in specialize.h):
 *   x86 and SoftFloat (8086-SSE): signed: INT_MIN for all three;
 *                     unsigned: UINT_MAX for all three (the "integer
 *                     indefinite" value);
 *   ARM (VFPv2, default NaN): saturate (INT_MAX / INT_MIN, UINT_MAX / 0),
 *                     NaN -> 0;
 *   RISC-V:           saturate, NaN -> the largest positive value;
 *   CUDA:             saturate, NaN -> 0 (the device conversions such as
 *                     __half2int_rn and cvt.rni.s32.f32 behave so).
 * It is built as a local constant (not a file-scope object) so the function
 * also compiles as CUDA device code; the compiler folds it.
 */
static FPLAB_HOSTDEV int invalid_kind(int preset, int is_signed, int which)
{
    /* rows in fl_nan_preset order (no array designators: the file is also
     * compiled as CUDA C++) */
    const uint8_t table[FL_NANP_COUNT][2][3] = {
        /*            unsigned: NaN, pos, neg       signed: NaN, pos, neg */
        /* x86   */ { { INV_MAX,  INV_MAX, INV_MAX },
                      { INV_MIN,  INV_MIN, INV_MIN } },
        /* ARM   */ { { INV_ZERO, INV_MAX, INV_ZERO },
                      { INV_ZERO, INV_MAX, INV_MIN } },
        /* RISCV */ { { INV_MAX,  INV_MAX, INV_ZERO },
                      { INV_MAX,  INV_MAX, INV_MIN } },
        /* CUDA  */ { { INV_ZERO, INV_MAX, INV_ZERO },
                      { INV_ZERO, INV_MAX, INV_MIN } },
        /* SoftFloat 8086-SSE: the x86 row (ui32_fromNaN 0xFFFFFFFF,
         * i32_fromNaN -0x7FFFFFFF - 1, and so for both overflows) */
                    { { INV_MAX,  INV_MAX, INV_MAX },
                      { INV_MIN,  INV_MIN, INV_MIN } },
        /* sign, sign-pos, default-neg, first: x86's values for the rules
         * with x86's negative default NaN, ARM's for the others */
                    { { INV_MAX,  INV_MAX, INV_MAX },
                      { INV_MIN,  INV_MIN, INV_MIN } },
                    { { INV_ZERO, INV_MAX, INV_ZERO },
                      { INV_ZERO, INV_MAX, INV_MIN } },
                    { { INV_MAX,  INV_MAX, INV_MAX },
                      { INV_MIN,  INV_MIN, INV_MIN } },
                    { { INV_ZERO, INV_MAX, INV_ZERO },
                      { INV_ZERO, INV_MAX, INV_MIN } },
    };
    if (preset < 0 || preset >= FL_NANP_COUNT) preset = FL_NANP_X86;
    return table[preset][is_signed != 0][which];
}

/* The bit pattern (two's complement for signed) of an invalid result. */
static FPLAB_HOSTDEV uint64_t invalid_value(const fl_ctx *c, int is_signed,
                                            int bits, int which,
                                            unsigned *flags)
{
    const uint64_t umax = bits == 64 ? ~(uint64_t)0
                                     : ((uint64_t)1 << bits) - 1;
    *flags |= FL_INVALID;
    switch (invalid_kind(c->nan, is_signed, which)) {
    case INV_MAX:
        return is_signed ? umax >> 1 : umax;
    case INV_MIN:   /* signed only: -2^(bits-1) as a bits-wide pattern */
        return (uint64_t)1 << (bits - 1);
    default:
        return 0;
    }
}

/* Should a magnitude with fraction rem (0.64 fixed point, lowest bit
 * sticky) be incremented?  Round-to-odd is handled by the caller.
 * rem_sr is the fraction truncated to 64 bits without sticky, for the
 * stochastic mode. */
static FPLAB_HOSTDEV int round_up(const fl_ctx *c, int sign, uint64_t mag,
                                  uint64_t rem, uint64_t rem_sr)
{
    const uint64_t half = (uint64_t)1 << 63;
    switch (c->rm) {
    case FL_RNE: return rem > half || (rem == half && (mag & 1));
    case FL_RNA: return rem >= half;
    case FL_RDN: return sign;
    case FL_RUP: return !sign;
    case FL_RSR:
        /* up with probability rem_sr / 2^64: add 64 random bits and keep
         * the carry, as fl__round_pack does with its discarded bits */
        return rem_sr + fl_sr_bits(c->sr_seed, c->sr_index) < rem_sr;
    case FL_RSB:
        return fl__srb_away(rem, 64, c);
    default:     return 0;   /* FL_RTZ */
    }
}

/*
 * Common path.  Returns the result as a 64-bit pattern: the value itself
 * for unsigned targets, two's complement (sign-extended to 64 bits) for
 * signed ones.
 */
static FPLAB_HOSTDEV uint64_t to_int(const fl_format *f, uint64_t a,
                                     int exact, const fl_ctx *c,
                                     unsigned *flags, int is_signed,
                                     int bits)
{
    const fl_unp u = fl__unpack(f, a, c);
    uint64_t mag, rem, rem_sr, rounded, limit;

    if (fl__is_nan_cls(u.cls))
        return invalid_value(c, is_signed, bits, INV_NAN, flags);
    if (u.cls == FL_U_INF)
        return invalid_value(c, is_signed, bits, u.sign ? INV_NEG : INV_POS,
                             flags);
    if (u.cls == FL_U_ZERO)
        return 0;

    /* |value| = sig * 2^(exp-63) = mag + rem * 2^-64 */
    if (u.exp > 63)
        return invalid_value(c, is_signed, bits, u.sign ? INV_NEG : INV_POS,
                             flags);
    if (u.exp == 63) {
        mag = u.sig;
        rem = 0;
    } else if (u.exp >= 0) {
        mag = u.sig >> (63 - u.exp);
        rem = u.sig << (u.exp + 1);
    } else {
        mag = 0;
        rem = fl__shr_sticky(u.sig, -1 - u.exp);
    }
    rem_sr = u.exp >= -1 ? rem : -1 - u.exp < 64 ? u.sig >> (-1 - u.exp) : 0;

    /* mag < 2^63 whenever rem != 0, so the increment cannot wrap */
    rounded = mag;
    if (rem != 0) {
        if (c->rm == FL_RTO)
            rounded |= 1;
        else
            rounded += (uint64_t)round_up(c, u.sign, mag, rem, rem_sr);
    }

    /* range check on the rounded magnitude */
    if (u.sign) {
        limit = is_signed ? (uint64_t)1 << (bits - 1) : 0;
        if (rounded > limit)
            return invalid_value(c, is_signed, bits, INV_NEG, flags);
    } else {
        limit = is_signed ? ((uint64_t)1 << (bits - 1)) - 1
              : bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
        if (rounded > limit)
            return invalid_value(c, is_signed, bits, INV_POS, flags);
    }

    if (rem != 0) {
        /* the returned magnitude is above |value| iff it was changed */
        const int above = (rounded != mag) != u.sign;
        if (exact) *flags |= FL_INEXACT;
        *flags |= above ? FL_TERN_UP : FL_TERN_DOWN;
    }
    return u.sign ? (uint64_t)0 - rounded : rounded;
}

/* Two's complement pattern to signed, without implementation-defined
 * conversions. */
static FPLAB_HOSTDEV int64_t as_signed(uint64_t p)
{
    return (p >> 63) ? -(int64_t)(~p) - 1 : (int64_t)p;
}

FPLAB_HOSTDEV int32_t fl_to_i32(const fl_format *f, uint64_t a, int exact,
                                const fl_ctx *c, unsigned *flags)
{
    uint64_t p = to_int(f, a, exact, c, flags, 1, 32);
    /* sign-extend a 32-bit pattern (INT32_MIN from the invalid path) */
    if (p & 0x80000000u) p |= ~(uint64_t)0xFFFFFFFFu;
    return (int32_t)as_signed(p);
}

FPLAB_HOSTDEV int64_t fl_to_i64(const fl_format *f, uint64_t a, int exact,
                                const fl_ctx *c, unsigned *flags)
{
    return as_signed(to_int(f, a, exact, c, flags, 1, 64));
}

FPLAB_HOSTDEV uint32_t fl_to_u32(const fl_format *f, uint64_t a, int exact,
                                 const fl_ctx *c, unsigned *flags)
{
    return (uint32_t)to_int(f, a, exact, c, flags, 0, 32);
}

FPLAB_HOSTDEV uint64_t fl_to_u64(const fl_format *f, uint64_t a, int exact,
                                 const fl_ctx *c, unsigned *flags)
{
    return to_int(f, a, exact, c, flags, 0, 64);
}
