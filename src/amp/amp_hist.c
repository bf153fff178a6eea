/*
 * amp_hist.c — log2 histograms and range statistics of gradients.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amp_hist.h"

int amp_hist_init(amp_hist *h, int lo, int hi)
{
    memset(h, 0, sizeof *h);
    if (hi <= lo || lo < -1100 || hi > 1100)
        return -1;
    h->bins = calloc((size_t)(hi - lo), sizeof *h->bins);
    if (!h->bins)
        return -1;
    h->lo = lo;
    h->hi = hi;
    return 0;
}

void amp_hist_free(amp_hist *h)
{
    free(h->bins);
    memset(h, 0, sizeof *h);
}

void amp_hist_reset(amp_hist *h)
{
    if (h->bins)
        memset(h->bins, 0, (size_t)(h->hi - h->lo) * sizeof *h->bins);
    h->zeros = h->nonfinite = h->below = h->above = h->total = 0;
}

void amp_hist_add(amp_hist *h, const float *g, size_t n, float scale)
{
    for (size_t i = 0; i < n; i++) {
        /* |g*scale| in binary64 is exact: 24 + 24 significant bits and an
         * exponent range far inside binary64's, so ilogb is the true
         * floor(log2|g*scale|). */
        double x = fabs((double)g[i] * (double)scale);
        if (g[i] == 0.0f)
            h->zeros++;
        else if (!isfinite(x))
            h->nonfinite++;
        else if (x == 0.0)
            h->below++;          /* scale == 0: below every bin */
        else {
            int e = ilogb(x);
            if (e < h->lo)
                h->below++;
            else if (e >= h->hi)
                h->above++;
            else
                h->bins[e - h->lo]++;
        }
    }
    h->total += n;
}

int amp_hist_merge(amp_hist *dst, const amp_hist *src)
{
    if (dst->lo != src->lo || dst->hi != src->hi)
        return -1;
    for (int k = 0; k < dst->hi - dst->lo; k++)
        dst->bins[k] += src->bins[k];
    dst->zeros += src->zeros;
    dst->nonfinite += src->nonfinite;
    dst->below += src->below;
    dst->above += src->above;
    dst->total += src->total;
    return 0;
}

/* Thresholds of round-to-nearest-even into an IEEE-style format with
 * subnormals and infinities (p = prec):
 *   rounds to 0         iff |x| <= 2^(emin-p)      (half the least
 *                                                   subnormal; the tie goes
 *                                                   to even, i.e. to 0)
 *   rounds to subnormal iff 2^(emin-p) < |x| < 2^emin - 2^(emin-p)
 *                                                  (the tie below 2^emin
 *                                                   goes up: the largest
 *                                                   subnormal is odd)
 *   overflows           iff |x| >= 2^emax * (2 - 2^-p)  (the tie above the
 *                                                   odd largest finite goes
 *                                                   up)
 * Other formats (no subnormals, no infinities, saturating) go through the
 * core's rounding one value at a time. */
static int ieee_like(const fl_format *f)
{
    return f->subnormals && f->has_inf && f->nan_style == FL_NANSTYLE_IEEE &&
           f->is_signed && !f->saturate && f->prec <= 53 && f->emax <= 1023 &&
           f->emin - f->prec >= -1074;
}

void amp_range_stats_add(amp_range_stats *s, const fl_format *f,
                         const float *g, size_t n, float scale)
{
    s->total += n;
    if (ieee_like(f)) {
        const double uf = ldexp(1.0, f->emin - f->prec);
        const double sub_hi = ldexp(1.0, f->emin) - uf;
        const double of = ldexp(2.0 - ldexp(1.0, -f->prec), f->emax);
        for (size_t i = 0; i < n; i++) {
            double x = fabs((double)g[i] * (double)scale);   /* exact */
            if (g[i] == 0.0f)
                s->zero_fp32++;
            else if (!isfinite(g[i]))
                s->nonfinite++;
            else if (!isfinite(x) || x >= of)
                s->overflow++;
            else if (x <= uf)
                s->underflow++;
            else if (x < sub_hi)
                s->subnormal++;
        }
        return;
    }
    fl_ctx c = FL_CTX_INIT;
    for (size_t i = 0; i < n; i++) {
        if (g[i] == 0.0f) {
            s->zero_fp32++;
            continue;
        }
        if (!isfinite(g[i])) {
            s->nonfinite++;
            continue;
        }
        double x = fabs((double)g[i] * (double)scale);   /* exact */
        unsigned fl = 0;
        uint64_t b = fl_from_double(f, x, &c, &fl);
        if (fl_is_nan(f, b) || fl_is_inf(f, b) || (fl & FL_OVERFLOW))
            s->overflow++;
        else if (fl_is_zero(f, b))
            s->underflow++;
        else if (fl_is_subnormal(f, b))
            s->subnormal++;
    }
}

void amp_range_stats_merge(amp_range_stats *dst, const amp_range_stats *src)
{
    dst->total += src->total;
    dst->zero_fp32 += src->zero_fp32;
    dst->underflow += src->underflow;
    dst->subnormal += src->subnormal;
    dst->overflow += src->overflow;
    dst->nonfinite += src->nonfinite;
}
