/*
 * fast_array.c — bulk rounding of host arrays (fl_round_float_array,
 * fl_round_double_array) for the fast-path formats of fast.h.
 *
 * Element i is rounded exactly as fl_round_float / fl_round_double would
 * with stochastic-rounding index c->sr_index + i, and the flags are the OR
 * of the elements' flags, so a split of the array (threads, blocks) never
 * changes a result.  The SIMD kernels of fast_simd.c take the longest
 * prefix that is a multiple of their vector width; the rest, and every
 * element a kernel does not decide, goes through the scalar fast path.
 */
#include "fast.h"

int fl__fast_round_float_array(const fl_format *f, float *dst,
                               const float *src, size_t n, const fl_ctx *c,
                               unsigned *flags)
{
    fl_ctx ci = *c;
    unsigned fl = 0;
    size_t i;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c))
        return 0;
    i = fl__simd_round_float_array(f, dst, src, n, c, &fl, -1);
    for (; i < n; i++) {
        float r;
        ci.sr_index = c->sr_index + (uint64_t)i;
        if (fl__fast_round_float(f, src[i], &ci, &fl, &r))
            dst[i] = r;
        else
            dst[i] = fl_round_float(f, src[i], &ci, &fl);
    }
    *flags |= fl;
    return 1;
}

int fl__fast_round_double_array(const fl_format *f, double *dst,
                                const double *src, size_t n,
                                const fl_ctx *c, unsigned *flags)
{
    fl_ctx ci = *c;
    unsigned fl = 0;
    size_t i;
    if (!fl__fast_fmt(f) || !FL__FAST_RM(c))
        return 0;
    i = fl__simd_round_double_array(f, dst, src, n, c, &fl, -1);
    for (; i < n; i++) {
        double r;
        ci.sr_index = c->sr_index + (uint64_t)i;
        if (fl__fast_round_double(f, src[i], &ci, &fl, &r))
            dst[i] = r;
        else
            dst[i] = fl_round_double(f, src[i], &ci, &fl);
    }
    *flags |= fl;
    return 1;
}
