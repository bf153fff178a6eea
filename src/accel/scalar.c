/*
 * scalar.c — the scalar routes of hooks.h for every fast-path format but
 * the binary16 nearest-even ones: out of line, so that an operation's
 * binary16 routes stay a few instructions long.  Each specialises the
 * binary64 fast path of fast.h to the format (FL__FAST_SPECIALISE).
 */
#include "hooks.h"

static inline fl__accel_res fl__accel_res_of(int taken, uint64_t r)
{
    fl__accel_res x;
    x.r = r;
    x.taken = (uint64_t)taken;
    return x;
}

fl__accel_res fl__accel_add_any(const fl_format *f, uint64_t a, uint64_t b,
                                const fl_ctx *c, unsigned *flags)
{
    uint64_t r = 0;
    const int t = fl__fast_add(f, a, b, c, flags, &r);
    return fl__accel_res_of(t, r);
}

fl__accel_res fl__accel_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                                const fl_ctx *c, unsigned *flags)
{
    uint64_t r = 0;
    const int t = fl__fast_add(f, a, b ^ f->sign_mask, c, flags, &r);
    return fl__accel_res_of(t, r);
}

fl__accel_res fl__accel_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                                const fl_ctx *c, unsigned *flags)
{
    uint64_t r = 0;
    const int t = fl__fast_mul(f, a, b, c, flags, &r);
    return fl__accel_res_of(t, r);
}

fl__accel_res fl__accel_fma_any(const fl_format *f, uint64_t a, uint64_t b,
                                uint64_t d, const fl_ctx *c, unsigned *flags)
{
    uint64_t r = 0;
    const int t = fl__fast_fma(f, a, b, d, c, flags, &r);
    return fl__accel_res_of(t, r);
}
