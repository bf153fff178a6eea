/*
 * stats.c — the statistics of one block (or tensor) from its inputs and
 * dequantized values, shared by every quantizer and by the fast and the
 * general route alike (so the two can only agree); sums in element order.
 */
#include <math.h>
#include <string.h>

#include "scale_internal.h"

void fl__sc_stats_block(fl_scale_stats *st, fl_scale_block_stats *bs,
                        const float *x, const float *deq, size_t k,
                        int nan_scale, uint32_t nsub, uint32_t nsat)
{
    uint32_t nz = 0, zero = 0, nan = 0, inf = 0, under = 0, rn = 0;
    double rsum = 0, rsq = 0, rmax = 0;
    for (size_t i = 0; i < k; i++) {
        const float v = x[i], d = deq[i];
        if (isnan(v)) {
            nan++;
            continue;
        }
        if (isinf(v)) {
            inf++;
            continue;
        }
        if (v == 0) {
            zero++;
            continue;
        }
        nz++;
        if (!isfinite(d))
            continue;
        if (d == 0 && !nan_scale)
            under++;
        /* both are binary32: their difference is exact in binary64 when
         * their exponents are at most 29 apart, and correctly rounded
         * (relative error below 2^-53) always */
        const double r = fabs((double)d - (double)v) / fabs((double)v);
        rn++;
        rsum += r;
        rsq += r * r;
        if (r > rmax)
            rmax = r;
    }
    /* lost: every finite input of a block whose scale is NaN */
    const uint32_t lost = nan_scale ? (uint32_t)k - nan - inf : 0;
    /* the block's statistics, added to st by the one rule for adding
     * statistics (fl_scale_stats_merge: counts and sums add, maxima max) */
    const fl_scale_stats block = {
        .n = k, .nonzero = nz, .zero = zero, .nan_in = nan, .inf_in = inf,
        .underflow = under, .subnormal = nsub, .saturated = nsat,
        .lost = lost, .rel_n = rn, .rel_max = rmax, .rel_sum = rsum,
        .rel_sumsq = rsq, .blocks = 1, .nan_blocks = nan_scale != 0,
    };
    fl_scale_stats_merge(st, &block);
    if (bs) {
        bs->nonzero = nz;
        bs->underflow = under;
        bs->subnormal = nsub;
        bs->saturated = nsat;
        bs->nonfinite = nan + inf;
        bs->rel_max = (float)rmax;
        bs->rel_mean = rn ? (float)(rsum / rn) : 0.0f;
        bs->rel_rms = rn ? (float)sqrt(rsq / rn) : 0.0f;
    }
}
