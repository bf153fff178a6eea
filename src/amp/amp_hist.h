/*
 * amp_hist.h — where gradients land in a target format.
 *
 * Two measurements on fp32 gradient buffers, both for a loss scale S:
 *  - amp_hist: a histogram of floor(log2|g*S|), computed from the exact
 *    product (the product of two binary32 values is exact in binary64, so
 *    the bin never depends on a rounding of g*S);
 *  - amp_range_stats: what rounding g*S into a format f (round to nearest
 *    even) does to each value: stays zero, underflows to zero, lands in the
 *    subnormal range, or overflows.
 * Both only add counts, so a run can accumulate over steps and layers.
 */
#ifndef FPLAB_AMP_HIST_H
#define FPLAB_AMP_HIST_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* log2|g| histogram: bin k (0 <= k < hi - lo) counts the nonzero finite
 * values with lo <= floor(log2|g*scale|) < hi, i.e. |g*scale| in
 * [2^(lo+k), 2^(lo+k+1)).  Zeros, NaN/inf and values outside [2^lo, 2^hi)
 * are counted apart.  Invariant: total == zeros + nonfinite + below + above
 * + sum(bins). */
typedef struct amp_hist {
    int lo, hi;          /* bin range of floor(log2|x|): [lo, hi) */
    uint64_t *bins;      /* hi - lo counters */
    uint64_t zeros;      /* g == 0 (either sign) */
    uint64_t nonfinite;  /* g or g*scale is inf or NaN */
    uint64_t below;      /* 0 < |g*scale| < 2^lo */
    uint64_t above;      /* |g*scale| >= 2^hi (finite) */
    uint64_t total;      /* every value added */
} amp_hist;

/* lo < hi; the lab uses lo = -40 (or lower), hi = 16 (or higher).
 * Returns 0, or -1 on bad bounds or allocation failure (h left empty). */
int amp_hist_init(amp_hist *h, int lo, int hi);
void amp_hist_free(amp_hist *h);
void amp_hist_reset(amp_hist *h);          /* all counts to zero */
/* Add n values of g scaled by scale (scale > 0; the bin of |g*scale| is
 * computed exactly, with no rounding of the product). */
void amp_hist_add(amp_hist *h, const float *g, size_t n, float scale);
/* Merge src into dst (same lo and hi); -1 if the ranges differ. */
int amp_hist_merge(amp_hist *dst, const amp_hist *src);

/* For g*scale rounded into format f with round-to-nearest-even:
 *  zero_fp32  g == 0 already in fp32;
 *  underflow  g != 0, finite, and g*scale rounds to zero in f;
 *  subnormal  g*scale rounds to a nonzero subnormal of f (precision lost);
 *  overflow   g finite and g*scale rounds to inf (or beyond f's largest
 *             finite value, for formats without infinities);
 *  nonfinite  g itself is inf or NaN.
 * total counts every value; the classes above are disjoint. */
typedef struct amp_range_stats {
    uint64_t total, zero_fp32, underflow, subnormal, overflow, nonfinite;
} amp_range_stats;

void amp_range_stats_add(amp_range_stats *s, const fl_format *f,
                         const float *g, size_t n, float scale);
void amp_range_stats_merge(amp_range_stats *dst, const amp_range_stats *src);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_HIST_H */
