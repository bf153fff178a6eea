/*
 * hist.c — log2 histograms and range statistics of gradients, the rule
 * that picks a loss scale, and the window of powers of two
 * (fplab/hist.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/hist.h"

int fl_hist_log2_init(fl_hist_log2 *h, int lo, int hi)
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

void fl_hist_log2_free(fl_hist_log2 *h)
{
    free(h->bins);
    memset(h, 0, sizeof *h);
}

void fl_hist_log2_reset(fl_hist_log2 *h)
{
    if (h->bins)
        memset(h->bins, 0, (size_t)(h->hi - h->lo) * sizeof *h->bins);
    h->zeros = h->nonfinite = h->below = h->above = h->total = 0;
}

void fl_hist_log2_add(fl_hist_log2 *h, const float *g, size_t n, float scale)
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

int fl_hist_log2_merge(fl_hist_log2 *dst, const fl_hist_log2 *src)
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

void fl_hist_range_add(fl_hist_range *s, const fl_format *f, const float *g,
                       size_t n, float scale)
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

void fl_hist_range_merge(fl_hist_range *dst, const fl_hist_range *src)
{
    dst->total += src->total;
    dst->zero_fp32 += src->zero_fp32;
    dst->underflow += src->underflow;
    dst->subnormal += src->subnormal;
    dst->overflow += src->overflow;
    dst->nonfinite += src->nonfinite;
}

int fl_hist_land(const fl_format *f, double x)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t b = fl_from_double(f, x, &c, &fl);
    if (fl_is_inf(f, b) || fl_is_nan(f, b) || (fl & FL_OVERFLOW))
        return 3;
    if (fl_is_zero(f, b))
        return 0;
    return fl_is_subnormal(f, b) ? 1 : 2;
}

void fl_hist_free(fl_hist *h)
{
    if (h->scales)
        for (int k = 0; k < h->nscales; k++)
            fl_hist_log2_free(&h->scales[k].log2);
    free(h->scales);
    free(h->scheme_stats);
    free(h->scheme_tensor);
    memset(h, 0, sizeof *h);
}

int fl_hist_run(fl_hist *h, const fl_format *f, const float *g, size_t n,
                const double *scales, int nscales, int lo, int hi,
                const fl_scale_scheme *schemes, int nschemes, size_t last,
                char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    if (nscales < 1 || !scales) {
        snprintf(err, errlen, "no scales: give at least one");
        return -1;
    }
    for (int k = 0; k < nscales; k++) {
        double d = scales[k];
        if (!(d > 0) || !isfinite(d) || d > 0x1p127) {
            snprintf(err, errlen, "scale %d (%g) is not a positive finite "
                     "number", k + 1, d);
            return -1;
        }
        if ((double)(float)d != d) {
            snprintf(err, errlen, "scale %d (%.17g) is not exactly "
                     "representable in binary32 (the scale's dtype)", k + 1, d);
            return -1;
        }
    }
    if (lo >= hi || lo < -1100 || hi > 1100) {
        snprintf(err, errlen, "log2 bins lo %d .. hi %d: need lo < hi, both in "
                 "-1100..1100", lo, hi);
        return -1;
    }
    if (nschemes < 0 || (nschemes && !schemes)) {
        snprintf(err, errlen, "schemes: a negative count or no array");
        return -1;
    }
    if (nschemes) {
        if (!last || n % last) {
            snprintf(err, errlen, "%zu values are not whole rows of %zu (the "
                     "last axis the blocks run along)", n, last);
            return -1;
        }
        for (int q = 0; q < nschemes; q++)
            if (schemes[q].kind != FL_SCALE_TENSOR && last % schemes[q].block) {
                snprintf(err, errlen, "scheme %s: the last axis has length %zu, "
                         "which is not a multiple of the block size %u",
                         schemes[q].name, last, (unsigned)schemes[q].block);
                return -1;
            }
    }
    h->n = n;
    h->lo = lo;
    h->hi = hi;
    h->nscales = nscales;
    h->scales = calloc((size_t)nscales, sizeof *h->scales);
    if (nschemes) {
        h->scheme_stats = calloc((size_t)nschemes, sizeof *h->scheme_stats);
        h->scheme_tensor = calloc((size_t)nschemes, sizeof *h->scheme_tensor);
    }
    if (!h->scales || (nschemes && (!h->scheme_stats || !h->scheme_tensor)))
        goto oom;

    double maxabs = 0, minabs = INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(g[i]))
            h->nonfinite++;
        else if (g[i] == 0)
            h->zeros++;
        else {
            double a = fabs((double)g[i]);
            maxabs = a > maxabs ? a : maxabs;
            minabs = a < minabs ? a : minabs;
        }
    }
    h->live = n - h->nonfinite - h->zeros;
    h->maxabs = maxabs;
    h->minabs = h->live ? minabs : 0;

    for (int k = 0; k < nscales; k++) {
        fl_hist_scale *s = &h->scales[k];
        s->scale = scales[k];
        fl_hist_range_add(&s->range, f, g, n, (float)scales[k]);
        if (fl_hist_log2_init(&s->log2, lo, hi))
            goto oom;
        fl_hist_log2_add(&s->log2, g, n, (float)scales[k]);
        s->normal = h->live - s->range.underflow - s->range.subnormal -
                    s->range.overflow;
    }

    /* best among the given scales */
    int best = -1;
    for (int k = 0; k < nscales; k++) {
        const fl_hist_range *st = &h->scales[k].range;
        if (st->overflow)
            continue;
        if (best < 0 || st->underflow < h->scales[best].range.underflow ||
            (st->underflow == h->scales[best].range.underflow &&
             st->subnormal < h->scales[best].range.subnormal))
            best = k;
    }
    h->best = best;
    if (best >= 0) {
        const fl_hist_range *b = &h->scales[best].range;
        double blo = INFINITY, bhi = 0;
        for (int k = 0; k < nscales; k++) {
            const fl_hist_range *st = &h->scales[k].range;
            if (!st->overflow && st->underflow == b->underflow &&
                st->subnormal == b->subnormal) {
                blo = scales[k] < blo ? scales[k] : blo;
                bhi = scales[k] > bhi ? scales[k] : bhi;
                h->ties++;
            }
        }
        h->best_lo = blo;
        h->best_hi = bhi;
    }

    /* the window of powers of two, from the extremes (monotone in S) */
    h->kmax = h->kunder = h->ksub = 999;
    if (h->live)
        for (int k = -160; k <= 160; k++) {
            double S = ldexp(1.0, k);
            if (fl_hist_land(f, maxabs * S) == 3 && h->kmax == 999)
                h->kmax = k - 1;
            if (fl_hist_land(f, minabs * S) != 0 && h->kunder == 999)
                h->kunder = k;
            if (fl_hist_land(f, minabs * S) >= 2 && h->ksub == 999)
                h->ksub = k;
        }

    /* block and per-tensor scaling beside the loss scales */
    h->nschemes = nschemes;
    h->last = last;
    for (int q = 0; q < nschemes; q++) {
        fl_scale_out so;
        char e2[512];
        memset(&so, 0, sizeof so);
        if (fl_scale_quantize(&schemes[q], g, n, last, &so, e2, sizeof e2)) {
            snprintf(err, errlen, "scheme %s: %s", schemes[q].name, e2);
            fl_hist_free(h);
            return -1;
        }
        h->scheme_stats[q] = so.stats;
        h->scheme_tensor[q] = so.tensor;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    fl_hist_free(h);
    return -1;
}
