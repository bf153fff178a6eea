/*
 * scalar.c — the scalar routes of hooks.h for every fast-path format but
 * the binary16 nearest-even ones: out of line, so that an operation's
 * binary16 routes stay a few instructions long.  Each specialises the
 * binary64 fast path of fast.h to the format (FL__FAST_SPECIALISE) and
 * ends in the generic algorithm it is handed when that declines.
 */
#include "hooks.h"

uint64_t fl__accel_add_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__fast_add(f, a, b, c, flags, &r))
        return r;
    return generic(f, a, b, c, flags);
}

uint64_t fl__accel_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__fast_add(f, a, b ^ f->sign_mask, c, flags, &r))
        return r;
    return generic(f, a, b, c, flags);
}

uint64_t fl__accel_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic)
{
    uint64_t r;
    if (fl__fast_mul(f, a, b, c, flags, &r))
        return r;
    return generic(f, a, b, c, flags);
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
