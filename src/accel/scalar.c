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
 *   v, a binary64, is the exact result X or its round-to-odd at 53 bits
 *   (mul: the product of two 24-bit significands, |X| in [2^-298, 2^256],
 *   is exact; add: TwoSum, as fl__fast_add, then fl__fast_odd's rule
 *   without its branch).  r = (float)v is X rounded to nearest even in
 *   binary32, overflow to infinity and subnormal results included:
 *   53 >= 24 + 2 bits, so the odd last bit of v stands for the discarded
 *   part exactly (the host's conversion in its default state, as the rest
 *   of fast.h assumes).  Then, with R = r read back as a binary64:
 *   inexact iff R != v (a round-to-odd v is not a binary32 value); the
 *   rounding went up iff R > v (v lies on X's side of every binary32
 *   value); overflow iff r is infinite (the operands are finite); tiny
 *   before rounding iff |v| < 2^-126, after rounding (to 24 bits, exponent
 *   unbounded) iff |v| < 2^-126 - 2^-151, the midpoint whose tie goes up to
 *   2^-126; underflow iff tiny and inexact.  Both borders have at most 53
 *   bits, so v and X lie on the same side of them.  A zero v (an exact
 *   zero sum or product) is X with its IEEE sign: r = v, no flag.
 * fl__round_pack's flags for that X, mode and context, bit for bit.
 * Infinite and NaN operands (and every other context) decline.
 */
FL__AINLINE int fl__f32_take(const fl_format *f, const fl_ctx *c)
{
    uint64_t w;
    __builtin_memcpy(&w, c, sizeof w);   /* rm, tininess, ftz, daz, saturate */
    return (f == &fl_binary32 || fl__fmt_is(f, FL__KEY(32, 8, 24), 127)) &&
           (w & 0xFFFFFF00FFull) == 0 && fl__accel_level() >= FL__CPU_SCALAR;
}

/* a or b has the exponent field all ones (infinity, NaN). */
FL__AINLINE int fl__f32_special2(uint64_t a, uint64_t b)
{
    return ((a & 0x7F800000u) == 0x7F800000u) |
           ((b & 0x7F800000u) == 0x7F800000u);
}

/* The exact binary64 value of the finite binary32 encoding a. */
FL__AINLINE double fl__f32_value(uint64_t a)
{
    const uint32_t u = (uint32_t)a;
    float v;
    __builtin_memcpy(&v, &u, sizeof v);
    return (double)v;
}

/* The encoding of v rounded to binary32 and its flags, as above. */
FL__AINLINE uint64_t fl__f32_round(double v, const fl_ctx *c,
                                   unsigned *flags)
{
    fl__f32 r;
    double R, av;
    unsigned inexact, up, tiny;
    r.f = (float)v;
    R = (double)r.f;
    av = __builtin_fabs(v);
    inexact = R != v;
    up = R > v;
    tiny = c->tininess == FL_TINY_BEFORE ? av < 0x1p-126
                                         : av < 0x1p-126 - 0x1p-151;
    *flags |= inexact * (FL_INEXACT | (FL_TERN_DOWN - up * (FL_TERN_DOWN -
                                                            FL_TERN_UP))) |
              (inexact & tiny) * FL_UNDERFLOW |
              (unsigned)(__builtin_fabs(R) > 0x1.fffffep127) * FL_OVERFLOW;
    return r.u;
}

/* a + b for finite a, b (fl__f32_take). */
FL__AINLINE uint64_t fl__f32_add(uint64_t a, uint64_t b, const fl_ctx *c,
                                 unsigned *flags)
{
    const double x = fl__f32_value(a), y = fl__f32_value(b);
    const double s = x + y, bb = s - x;
    const double err = (x - (s - bb)) + (y - bb);
    uint64_t u = fl__u_of(s);
    /* fl__fast_odd: an inexact even s steps to its neighbour on err's side */
    const uint64_t step = (uint64_t)(err != 0) & ~u & 1;
    u += step * (((fl__u_of(err) ^ u) >> 63) ? ~(uint64_t)0 : 1);
    return fl__f32_round(fl__d_of(u), c, flags);
}

/* The other formats' and contexts' routes, out of line: the binary32
 * route above then needs no stack frame (one tail call to these). */
static FL__NOINLINE uint64_t fl__accel_add_rest(const fl_format *f,
                                                uint64_t a, uint64_t b,
                                                const fl_ctx *c,
                                                unsigned *flags,
                                                fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__fast_add(f, a, b, c, flags, &r))
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

uint64_t fl__accel_add_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    if (fl__f32_take(f, c) && !fl__f32_special2(a, b))
        return fl__f32_add(a, b, c, flags);
    return fl__accel_add_rest(f, a, b, c, flags, generic);
}

uint64_t fl__accel_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__f32_take(f, c) && !fl__f32_special2(a, b))
        return fl__f32_add(a, b ^ 0x80000000u, c, flags);
    if (fl__fast_add(f, a, b ^ f->sign_mask, c, flags, &r))
        return r;
    return generic(f, a, b, c, flags);
}

uint64_t fl__accel_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    /* the product of two 24-bit significands is exact in binary64 */
    if (fl__f32_take(f, c) && !fl__f32_special2(a, b))
        return fl__f32_round(fl__f32_value(a) * fl__f32_value(b), c, flags);
    return fl__accel_mul_rest(f, a, b, c, flags, generic);
}

uint64_t fl__accel_fma_any(const fl_format *f, uint64_t a, uint64_t b,
                           uint64_t d, const fl_ctx *c, unsigned *flags,
                           fl__accel_op3 generic)
{
    uint64_t r;
    if (fl__fast_fma(f, a, b, d, c, flags, &r))
        return r;
    return generic(f, a, b, d, c, flags);
}
