/*
 * hist.h — where gradients land in a format, for several loss scales
 * (library fplab_scale).  `fplab hist` and the Python package's
 * fplab.hist are thin shells over fl_hist_run.
 *
 * Two measurements of binary32 values g for a loss scale S:
 *  - the log2 histogram: floor(log2|g*S|) per value, computed from the
 *    exact product (the product of two binary32 values is exact in
 *    binary64, so a bin never depends on a rounding of g*S);
 *  - the range statistics: what rounding g*S into a format f (round to
 *    nearest even) does to each value: underflows to zero, lands in the
 *    subnormal range, or overflows.
 * Both only add counts, so a caller can accumulate over steps and layers.
 *
 * fl_hist_run adds the rule that picks a scale and the window of powers of
 * two:
 *   best scale: among the scales without overflow, the fewest underflows,
 *     then the fewest subnormals; every scale tied at that optimum is
 *     reported as a range (best_lo .. best_hi, ties of them);
 *   window: from the largest and smallest nonzero |g| (both monotone in
 *     S): the largest power of two 2^kmax with no overflow, the smallest
 *     2^kunder with no underflow and 2^ksub with no subnormal, k searched
 *     in -160..160 (999 when none there); a window exists when
 *     kunder <= kmax.
 * and, optionally, block and per-tensor scaling schemes (fplab/scale.h)
 * applied to the same values, blocks along the last axis.
 */
#ifndef FPLAB_HIST_H
#define FPLAB_HIST_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"
#include "fplab/scale.h"

#ifdef __cplusplus
extern "C" {
#endif

/* log2|g| histogram: bin k (0 <= k < hi - lo) counts the nonzero finite
 * values with lo <= floor(log2|g*scale|) < hi, i.e. |g*scale| in
 * [2^(lo+k), 2^(lo+k+1)).  Zeros, NaN/inf and values outside [2^lo, 2^hi)
 * are counted apart.  Invariant: total == zeros + nonfinite + below + above
 * + sum(bins). */
typedef struct fl_hist_log2 {
    int lo, hi;          /* bin range of floor(log2|x|): [lo, hi) */
    uint64_t *bins;      /* hi - lo counters */
    uint64_t zeros;      /* g == 0 (either sign) */
    uint64_t nonfinite;  /* g or g*scale is inf or NaN */
    uint64_t below;      /* 0 < |g*scale| < 2^lo */
    uint64_t above;      /* |g*scale| >= 2^hi (finite) */
    uint64_t total;      /* every value added */
} fl_hist_log2;

/* lo < hi, both in -1100..1100.  Returns 0, or -1 on bad bounds or
 * allocation failure (h left empty). */
int fl_hist_log2_init(fl_hist_log2 *h, int lo, int hi);
void fl_hist_log2_free(fl_hist_log2 *h);
void fl_hist_log2_reset(fl_hist_log2 *h);          /* all counts to zero */
/* Add n values of g scaled by scale (scale > 0; the bin of |g*scale| is
 * computed exactly, with no rounding of the product). */
void fl_hist_log2_add(fl_hist_log2 *h, const float *g, size_t n, float scale);
/* Merge src into dst (same lo and hi); -1 if the ranges differ. */
int fl_hist_log2_merge(fl_hist_log2 *dst, const fl_hist_log2 *src);

/* For g*scale rounded into format f with round-to-nearest-even:
 *  zero_fp32  g == 0 already in fp32;
 *  underflow  g != 0, finite, and g*scale rounds to zero in f;
 *  subnormal  g*scale rounds to a nonzero subnormal of f (precision lost);
 *  overflow   g finite and g*scale rounds to inf (or beyond f's largest
 *             finite value, for formats without infinities);
 *  nonfinite  g itself is inf or NaN.
 * total counts every value; the classes above are disjoint. */
typedef struct fl_hist_range {
    uint64_t total, zero_fp32, underflow, subnormal, overflow, nonfinite;
} fl_hist_range;

void fl_hist_range_add(fl_hist_range *s, const fl_format *f, const float *g,
                       size_t n, float scale);
void fl_hist_range_merge(fl_hist_range *dst, const fl_hist_range *src);

/* Where |x| (exact, binary64) lands when rounded (RNE) into f: 0 zero,
 * 1 subnormal, 2 normal, 3 overflow (infinity, NaN or the overflow flag). */
int fl_hist_land(const fl_format *f, double x);

/* One loss scale's results. */
typedef struct fl_hist_scale {
    double scale;           /* exactly a binary32 value */
    fl_hist_range range;
    uint64_t normal;        /* nonzero finite values that land normal */
    fl_hist_log2 log2;      /* the log2 histogram of |g*scale| */
} fl_hist_scale;

/* The whole measurement. */
typedef struct fl_hist {
    size_t n;               /* values */
    size_t live;            /* nonzero finite */
    size_t zeros, nonfinite;
    double minabs, maxabs;  /* over the nonzero finite (live > 0) */
    int lo, hi;             /* log2 bins */
    int nscales;
    fl_hist_scale *scales;  /* nscales, in the order given */
    /* the rule */
    int best;               /* index of a best scale; -1: every scale
                               overflows */
    int ties;               /* scales tied at the optimum */
    double best_lo, best_hi;
    /* the window of powers of two (live > 0) */
    int kmax, kunder, ksub;
    /* scaling schemes (nschemes of them) */
    int nschemes;
    size_t last;            /* the last axis the blocks run along */
    fl_scale_stats *scheme_stats;
    fl_scale_tensor *scheme_tensor;
} fl_hist;

/* Measure n binary32 values g in format f for each scale (nscales >= 1,
 * each > 0, finite and exactly a binary32 value), log2 bins lo..hi, and
 * with nschemes > 0 the schemes (blocks along rows of `last` values: n a
 * multiple of last, last of every block size).  Returns 0, or -1 with a
 * message in err (h then holds nothing to free).  Free with fl_hist_free. */
int fl_hist_run(fl_hist *h, const fl_format *f, const float *g, size_t n,
                const double *scales, int nscales, int lo, int hi,
                const fl_scale_scheme *schemes, int nschemes, size_t last,
                char *err, size_t errlen);
void fl_hist_free(fl_hist *h);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_HIST_H */
