/*
 * scalar.c — the scalar routes of hooks.h for every fast-path format but
 * the binary16 nearest-even ones: out of line, so that an operation's
 * binary16 routes stay a few instructions long.  Each specialises the
 * binary64 fast path of fast.h to the format (FL__FAST_SPECIALISE) and
 * ends in the generic algorithm it is handed when that declines.  Binary32
 * add, sub and mul in nearest even first try the route below, whose flags
 * take no branch on the result's class.
 */
#include "hooks.h"

/*
 * binary32 in nearest even without ftz, daz or saturation (any NaN rule,
 * either tininess), finite operands.  Operands drawn from every encoding
 * (TestFloat's way) give products that overflow, underflow or are exact in
 * random order, so the value comes from one host conversion and the flags
 * from comparisons, with no branch on the result's class:
 *
 *   mul: the product of two 24-bit significands is exact in binary64
 *   (|X| in [2^-298, 2^256]): v = X.  r = (float)v is X rounded to
 *   nearest even in binary32, overflow to infinity and subnormal results
 *   included (the host's conversion in its default state, as the rest of
 *   fast.h assumes).  With R = r read back as a binary64: inexact iff
 *   R != v; the rounding went up iff R > v; overflow iff r is infinite
 *   (the operands are finite); tiny before rounding iff |v| < 2^-126,
 *   after rounding (to 24 bits, exponent unbounded) iff
 *   |v| < 2^-126 - 2^-151, the midpoint whose tie goes up to 2^-126;
 *   underflow iff tiny and inexact.  A zero product is X with its IEEE
 *   sign: r = v, no flag.
 *
 *   add: s = RN(x + y) in binary64 and its error err = X - s (TwoSum, as
 *   fl__fast_add).  s = X when the operands' exponents differ by at most
 *   28 (the sum spans <= 53 bits); otherwise the smaller operand is below
 *   2^-28 of the larger, x, so X, and s with it, lie strictly between x
 *   and the nearest binary32 midpoint (at least 2^-25 of x away, in the
 *   binade below when x is a power of two): s is never a midpoint that X
 *   is not, and r = (float)s is X rounded to nearest even, an overflow
 *   too (its border is such a midpoint; the route declines it).  Inexact
 *   iff R != s or
 *   err != 0 (then X has more than 53 bits); the rounding went up iff
 *   R > s (R, a binary64 above s = RN(X), is above X), or R = s and
 *   err < 0.  A sum is never tiny and inexact: below 2^-126 it is a
 *   multiple of 2^-149, a binary32 subnormal, so no underflow.  A zero sum
 *   is exact, its sign the host's nearest-even one (-0 only from -0 + -0).
 * fl__round_pack's flags for that X, mode and context, bit for bit.
 * Infinite and NaN operands (and every other context) decline, and so
 * does a sum that overflows.
 */
/* Binary64 and binary32 expressions evaluated in their own precision
 * (SSE2, not x87's extended registers): every argument above needs it. */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ == 0
#define FL__F32_ROUTE 1
#else
#define FL__F32_ROUTE 0
#endif

/* The route's context and level test.  The format is binary32: the
 * hooks test f == &fl_binary32 before they call the fl__f32_*_any entry
 * points below, and fl__accel_*_any test a copy (fl__f32_copy). */
FL__AINLINE int fl__f32_take(const fl_ctx *c)
{
    uint64_t w;
    __builtin_memcpy(&w, c, sizeof w);   /* rm, tininess, ftz, daz, saturate */
    return FL__F32_ROUTE && (w & 0xFFFFFF00FFull) == 0 &&
           fl__accel_at(FL__CPU_SCALAR);
}

/* f is a copy of the preset binary32 (not the preset itself). */
FL__AINLINE int fl__f32_copy(const fl_format *f)
{
    return fl__fmt_is(f, FL__KEY(32, 8, 24), 127);
}

/* The exact binary64 value of the finite binary32 encoding a. */
FL__AINLINE double fl__f32_value(uint64_t a)
{
    const uint32_t u = (uint32_t)a;
    float v;
    __builtin_memcpy(&v, &u, sizeof v);
    return (double)v;
}

/* The flags of a rounding: inexact (1 or 0), the direction (up: 1, the
 * result above the exact value), underflow and overflow (1 or 0). */
FL__AINLINE unsigned fl__f32_flags(unsigned inexact, unsigned up,
                                   unsigned underflow, unsigned overflow)
{
    return inexact * (FL_INEXACT |
                      (FL_TERN_DOWN - up * (FL_TERN_DOWN - FL_TERN_UP))) |
           underflow * FL_UNDERFLOW | overflow * FL_OVERFLOW;
}

/* The binary32 encoding of r. */
FL__AINLINE uint64_t fl__f32_bits(float r)
{
    uint32_t u;
    __builtin_memcpy(&u, &r, sizeof u);
    return u;
}

#if defined(__SSE2__)
/* On SSE2 the comparisons below run two per instruction and the flags
 * come from a table (no branch on the tininess rule, fewer moves between
 * the register files than one EFLAGS comparison each).  mul: bit 0 up
 * (v < R), bit 1 tiny (|v| below the border), bit 2 down (R < v), bit 3
 * overflow (the largest finite binary32 < |R|). */
#define FL__F32_MF(i)                                                        \
    ((((i) & 5) ? FL_INEXACT | ((i) & 1 ? FL_TERN_UP : FL_TERN_DOWN) |       \
                      ((i) & 2 ? FL_UNDERFLOW : 0)                           \
                : 0) |                                                       \
     ((i) & 8 ? FL_OVERFLOW : 0))
static const uint8_t fl__f32_mulfw[16] = { FL__TAB16(FL__F32_MF, 0) };
#undef FL__F32_MF
/* add (the sum finite): bit 0 up (s < R), bit 1 down (R < s), bit 2 lost
 * (err != 0), bit 3 err < 0. */
#define FL__F32_AF(i)                                                        \
    (((i) & 7) ? FL_INEXACT |                                                \
                     (((i) & 1) || (!((i) & 2) && ((i) & 8)) ? FL_TERN_UP    \
                                                           : FL_TERN_DOWN)   \
               : 0)
static const uint8_t fl__f32_addfw[16] = { FL__TAB16(FL__F32_AF, 0) };
#undef FL__F32_AF
/* The tininess border by c->tininess: after rounding, before. */
static const double fl__f32_tb[2] = { 0x1p-126 - 0x1p-151, 0x1p-126 };
#define FL__F32_ABS _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFll))
#endif

/* The largest finite binary64. */
#define FL__F64_MAX 0x1.fffffffffffffp1023

/* a * b: 1, the product in *out and its flags in *flags, when a and b are
 * finite; else 0 with nothing written.  The operands are asked after the
 * multiplication: a binary64 product of binary32 values is finite iff
 * both are (|X| <= 2^256; 0 * inf is a NaN), and its magnitude is the
 * |v| that the tininess lane needs anyway, so the question is one
 * comparison where the operands' exponent fields took six operations.
 * Overflow stays a comparison lane: one product in eight of operands
 * drawn from every encoding overflows, too many for a branch. */
FL__AINLINE int fl__f32_mul(uint64_t a, uint64_t b, const fl_ctx *c,
                            unsigned *flags, uint64_t *out)
{
    const double v = fl__f32_value(a) * fl__f32_value(b);
    const float r = (float)v;
#if defined(__SSE2__)
    const __m128d vv = _mm_set_sd(v), RR = _mm_set_sd((double)r);
    const __m128d av = _mm_and_pd(vv, FL__F32_ABS);
    /* the C comparison, false for NaN (not _mm_comile_sd: 1 for NaN) */
    if (__builtin_expect(!(_mm_cvtsd_f64(av) <= FL__F64_MAX), 0))
        return 0;
    {
        const unsigned m1 = (unsigned)_mm_movemask_pd(_mm_cmplt_pd(
            _mm_unpacklo_pd(vv, av),
            _mm_unpacklo_pd(RR, _mm_set_sd(fl__f32_tb[c->tininess == FL_TINY_BEFORE]))));
        const unsigned m2 = (unsigned)_mm_movemask_pd(_mm_cmplt_pd(
            _mm_unpacklo_pd(RR, _mm_set_sd(0x1.fffffep127)),
            _mm_unpacklo_pd(vv, _mm_and_pd(RR, FL__F32_ABS))));
        *flags |= fl__f32_mulfw[m1 | m2 << 2];
    }
#else
    const double R = r, av = __builtin_fabs(v);
    if (__builtin_expect(!(av <= FL__F64_MAX), 0))
        return 0;
    {
        const unsigned inexact = R != v;
        const unsigned tiny = c->tininess == FL_TINY_BEFORE
                                  ? av < 0x1p-126
                                  : av < 0x1p-126 - 0x1p-151;
        *flags |= fl__f32_flags(inexact, R > v, inexact & tiny,
                                __builtin_fabs(R) > 0x1.fffffep127);
    }
#endif
    *out = fl__f32_bits(r);
    return 1;
}

/* a + b: 1, the sum in *out and its flags in *flags, when the rounded sum
 * r is finite; else 0 with nothing written.  The operands are asked after
 * the addition, on r: a binary64 sum of binary32 values is finite iff
 * both are (|X| <= 2^129), so r is finite iff the operands are and X did
 * not overflow binary32.  Both other cases decline to the other formats'
 * route (the binary64 fast path rounds an overflow as fl__round_pack
 * does).  Of operands drawn from every encoding, 1 pair in 128 has a
 * special one and a sum overflows only when both lie within a factor 2 of
 * the largest finite value: the branch is all but never taken, and
 * neither an overflow lane nor a test of the operands is on the path. */
FL__AINLINE int fl__f32_add(uint64_t a, uint64_t b, unsigned *flags,
                                uint64_t *out)
{
    const double x = fl__f32_value(a), y = fl__f32_value(b);
    const double s = x + y, bb = s - x;
    const double err = (x - (s - bb)) + (y - bb);
    const uint64_t e = fl__u_of(err);
    const float r = (float)s;
    const double R = r;
    /* r finite: the C comparison, false for NaN, on R, which the lanes
     * need anyway (no general register for the test: the entry point's
     * arguments stay in theirs for the cold path) */
    if (__builtin_expect(!(__builtin_fabs(R) <= 0x1.fffffep127), 0))
        return 0;
#if defined(__SSE2__)
    {
        const __m128d ss = _mm_set_sd(s), RR = _mm_set_sd(R);
        const unsigned m = (unsigned)_mm_movemask_pd(
            _mm_cmplt_pd(_mm_unpacklo_pd(ss, RR), _mm_unpacklo_pd(RR, ss)));
        *flags |= fl__f32_addfw[m | (unsigned)((e << 1) != 0) << 2 |
                                (unsigned)(e >> 63) << 3];
    }
#else
    *flags |= fl__f32_flags((R != s) | ((e << 1) != 0),
                            (R > s) | ((R == s) & (unsigned)(e >> 63)), 0, 0);
#endif
    *out = fl__f32_bits(r);
    return 1;
}

/* The other formats' and contexts' routes, out of line: the binary32
 * route above then needs no stack frame (one tail call to these). */
/* add and sub: the fast path adds a and b ^ neg (neg: 0, or the sign bit
 * for sub); the generic algorithm gets the operands as they came. */
static FL__NOINLINE uint64_t fl__accel_add_rest(const fl_format *f,
                                                uint64_t a, uint64_t b,
                                                uint64_t neg,
                                                const fl_ctx *c,
                                                unsigned *flags,
                                                fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__fast_add(f, a, b ^ neg, c, flags, &r))
        return r;
    return generic(f, a, b, c, flags);
}

static FL__NOINLINE uint64_t fl__accel_mul_rest(const fl_format *f,
                                                uint64_t a, uint64_t b,
                                                const fl_ctx *c,
                                                unsigned *flags,
                                                fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__fast_mul(f, a, b, c, flags, &r))
        return r;
    return generic(f, a, b, c, flags);
}

/* Binary32: the preset itself, which the hooks send here directly
 * (hooks.h), and copies of it (fl__accel_*_any below).  What they decline
 * (another context, a special operand, a sum that overflows) goes to the
 * other formats' routes, out of line, so that the entry points need no
 * stack frame. */
/* add (neg 0) and sub (neg the sign bit): the declines, out of line in
 * one copy each (six arguments: the entry points tail-call them), then
 * the entry points. */
static FL__NOINLINE uint64_t fl__f32_add_big(const fl_format *f, uint64_t a,
                                             uint64_t b, const fl_ctx *c,
                                             unsigned *flags,
                                             fl__accel_op2 generic)
{
    return fl__accel_add_rest(f, a, b, 0, c, flags, generic);
}

static FL__NOINLINE uint64_t fl__f32_sub_big(const fl_format *f, uint64_t a,
                                             uint64_t b, const fl_ctx *c,
                                             unsigned *flags,
                                             fl__accel_op2 generic)
{
    return fl__accel_add_rest(f, a, b, 0x80000000u, c, flags, generic);
}

FL__AINLINE uint64_t fl__f32_addsub(const fl_format *f, uint64_t a,
                                    uint64_t b, uint64_t neg,
                                    const fl_ctx *c, unsigned *flags,
                                    fl__accel_op2 generic)
{
    uint64_t r;
    if (__builtin_expect(fl__f32_take(c), 1) &&
        __builtin_expect(fl__f32_add(a, b ^ neg, flags, &r), 1))
        return r;
    return neg ? fl__f32_sub_big(f, a, b, c, flags, generic)
               : fl__f32_add_big(f, a, b, c, flags, generic);
}

uint64_t fl__f32_add_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic)
{
    return fl__f32_addsub(f, a, b, 0, c, flags, generic);
}

uint64_t fl__f32_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic)
{
    return fl__f32_addsub(f, a, b, 0x80000000u, c, flags, generic);
}

uint64_t fl__f32_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic)
{
    uint64_t r;
    if (__builtin_expect(fl__f32_take(c), 1) &&
        __builtin_expect(fl__f32_mul(a, b, c, flags, &r), 1))
        return r;
    return fl__accel_mul_rest(f, a, b, c, flags, generic);
}

/* The other formats: a copy of binary32 takes its route, the rest the
 * fast path of its format or the generic algorithm. */
uint64_t fl__accel_add_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    if (fl__f32_copy(f))
        return fl__f32_add_any(f, a, b, c, flags, generic);
    return fl__accel_add_rest(f, a, b, 0, c, flags, generic);
}

uint64_t fl__accel_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    if (fl__f32_copy(f))
        return fl__f32_sub_any(f, a, b, c, flags, generic);
    return fl__accel_add_rest(f, a, b, f->sign_mask, c, flags, generic);
}

uint64_t fl__accel_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    if (fl__f32_copy(f))
        return fl__f32_mul_any(f, a, b, c, flags, generic);
    return fl__accel_mul_rest(f, a, b, c, flags, generic);
}

#ifdef FL__H16_SSE
uint64_t fl__h16_mul_rule(const fl_format *f, uint64_t a, uint64_t b,
                          const fl_ctx *c, unsigned *flags)
{
    if (fl__h16_special(a) | fl__h16_special(b))
        return fl__h16_mul_special(a, b, c, flags);
    if (fl__h16_hw() > 0)
        return fl__h16_mul_hw(f, a, b, c, flags);
    return fl__h16_mul(a, b, c, flags);
}

uint64_t fl__h16_fma_rule(const fl_format *f, uint64_t a, uint64_t b,
                          uint64_t d, const fl_ctx *c, unsigned *flags)
{
    if (__builtin_expect(fl__h16_special(a) | fl__h16_special(b) |
                         fl__h16_special(d), 0))
        return fl__h16_fma_special(a, b, d, c, flags);
#ifdef FPLAB_AVX512
    if (fl__h16_hw() > 1)
        return fl__h16_fma_hw512(f, a, b, d, c, flags);
#endif
    if (fl__h16_hw() > 0)
        return fl__h16_fma_hw(f, a, b, d, c, flags);
    return fl__h16_fma(a, b, d, c, flags);
}
#endif

uint64_t fl__accel_fma_any(const fl_format *f, uint64_t a, uint64_t b,
                           uint64_t d, const fl_ctx *c, unsigned *flags)
{
    uint64_t r;
    if (fl__fast_fma(f, a, b, d, c, flags, &r))
        return r;
    return fl__fma_generic(f, a, b, d, c, flags);
}
