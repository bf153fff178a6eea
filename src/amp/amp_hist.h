/*
 * amp_hist.h — where gradients land in a target format: the simulator's
 * names for the library's measurements (fplab/hist.h, library
 * fplab_scale), which `fplab hist` and the Python package share.
 *
 *  - amp_hist: a histogram of floor(log2|g*S|), computed from the exact
 *    product (fl_hist_log2);
 *  - amp_range_stats: what rounding g*S into a format f (round to nearest
 *    even) does to each value (fl_hist_range).
 * Both only add counts, so a run can accumulate over steps and layers.
 */
#ifndef FPLAB_AMP_HIST_H
#define FPLAB_AMP_HIST_H

#include "fplab/hist.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef fl_hist_log2 amp_hist;
typedef fl_hist_range amp_range_stats;

static inline int amp_hist_init(amp_hist *h, int lo, int hi)
{
    return fl_hist_log2_init(h, lo, hi);
}
static inline void amp_hist_free(amp_hist *h) { fl_hist_log2_free(h); }
static inline void amp_hist_reset(amp_hist *h) { fl_hist_log2_reset(h); }
static inline void amp_hist_add(amp_hist *h, const float *g, size_t n,
                                float scale)
{
    fl_hist_log2_add(h, g, n, scale);
}
static inline int amp_hist_merge(amp_hist *dst, const amp_hist *src)
{
    return fl_hist_log2_merge(dst, src);
}
static inline void amp_range_stats_add(amp_range_stats *s, const fl_format *f,
                                       const float *g, size_t n, float scale)
{
    fl_hist_range_add(s, f, g, n, scale);
}
static inline void amp_range_stats_merge(amp_range_stats *dst,
                                         const amp_range_stats *src)
{
    fl_hist_range_merge(dst, src);
}

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_HIST_H */
