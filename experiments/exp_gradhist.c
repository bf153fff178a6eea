/*
 * exp_gradhist.c — experiment 3: gradient histograms versus loss scale.
 *
 * A real binary32 training run of the MLP on the digits (the "deep"
 * setting of lab_train_setting: 4 layers, small init, mean loss over a
 * batch of 256 — where gradients are small) is watched through the
 * trainer's step callback.  Every `every`-th step the raw binary32 weight
 * and activation gradients are
 *   - binned by floor(log2|g*S|) for S = 1, 8, 1024, 65536 (amp_hist), and
 *   - classified for S = 2^0 .. 2^24 by what rounding g*S into binary16
 *     does (amp_range_stats): underflow to zero, subnormal, overflow.
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"

enum { NS_HIST = 4, NS_SWEEP = 25, HLO = -50, HHI = 32 };
static const float hist_scales[NS_HIST] = {1.0f, 8.0f, 1024.0f, 65536.0f};

typedef struct watch {
    int every;
    const fl_format *target;
    amp_hist wh[NS_HIST], ah[NS_HIST];
    amp_range_stats ws[NS_SWEEP], as[NS_SWEEP];
    int steps_seen;
} watch;

static void on_step(void *user, const amp_step_view *v)
{
    watch *w = user;
    if (v->step % w->every)
        return;
    w->steps_seen++;
    for (int l = 0; l < v->layers; l++) {
        for (int k = 0; k < NS_HIST; k++) {
            amp_hist_add(&w->wh[k], v->wgrad[l], v->wgrad_n[l], hist_scales[k]);
            amp_hist_add(&w->ah[k], v->agrad[l], v->agrad_n[l], hist_scales[k]);
        }
        for (int k = 0; k < NS_SWEEP; k++) {
            float S = ldexpf(1.0f, k);
            amp_range_stats_add(&w->ws[k], w->target, v->wgrad[l], v->wgrad_n[l], S);
            amp_range_stats_add(&w->as[k], w->target, v->agrad[l], v->agrad_n[l], S);
        }
    }
}

static double frac(uint64_t a, uint64_t den)
{
    return den ? (double)a / (double)den : 0.0;
}

static uint64_t live(const amp_range_stats *s)
{
    return s->total - s->zero_fp32 - s->nonfinite;
}

int lab_exp_gradhist(lab_ctx *L)
{
    amp_train_config c;
    char err[256];
    int setting = LAB_SETTING_DEEP;
    if (lab_train_setting(L, &c, setting, "fp32", err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "gradhist: %s", err);
        return -1;
    }
    watch w;
    memset(&w, 0, sizeof w);
    w.every = L->quick ? 2 : 10;
    w.target = &fl_binary16;
    for (int k = 0; k < NS_HIST; k++)
        if (amp_hist_init(&w.wh[k], HLO, HHI) || amp_hist_init(&w.ah[k], HLO, HHI)) {
            snprintf(L->err, sizeof L->err, "gradhist: out of memory");
            for (int j = 0; j < NS_HIST; j++) {
                amp_hist_free(&w.wh[j]);
                amp_hist_free(&w.ah[j]);
            }
            return -1;
        }
    c.on_step = on_step;
    c.user = &w;
    amp_train_result r;
    memset(&r, 0, sizeof r);
    int rc = amp_train_run(&c, &r, err, sizeof err);
    if (rc) {
        snprintf(L->err, sizeof L->err, "gradhist: training failed: %s", err);
        goto out;
    }

    char params[512];
    lab_train_describe(&c, params, sizeof params);
    FILE *fp = lab_data_begin(L, "gradhist.dat",
                              "log2 histogram of binary32 gradients times S",
                              "gradients binary32; target binary16",
                              "%s watched_steps=%d (every %d) bins=floor(log2|g*S|) "
                              "%d..%d", params, w.steps_seen, w.every, HLO, HHI - 1);
    if (!fp) {
        rc = -1;
        goto out;
    }
    fprintf(fp, "# fractions of the nonzero finite gradients; zeros in binary32: "
                "weights %.6f activations %.6f\n",
            frac(w.wh[0].zeros, w.wh[0].total), frac(w.ah[0].zeros, w.ah[0].total));
    fprintf(fp, "# columns: log2_lower_edge w_S1 w_S8 w_S1024 w_S65536 a_S1 a_S8 "
                "a_S1024 a_S65536 (w: weight gradients, a: activation gradients)\n");
    uint64_t wden = w.wh[0].total - w.wh[0].zeros - w.wh[0].nonfinite;
    uint64_t aden = w.ah[0].total - w.ah[0].zeros - w.ah[0].nonfinite;
    for (int b = HLO; b < HHI; b++) {
        fprintf(fp, "%d", b);
        for (int k = 0; k < NS_HIST; k++)
            fprintf(fp, " %.6e", frac(w.wh[k].bins[b - HLO], wden));
        for (int k = 0; k < NS_HIST; k++)
            fprintf(fp, " %.6e", frac(w.ah[k].bins[b - HLO], aden));
        fprintf(fp, "\n");
    }
    if (lab_data_end(L, fp)) {
        rc = -1;
        goto out;
    }

    fp = lab_data_begin(L, "gradhist_underflow.dat",
                        "what rounding g*S into binary16 does, vs S",
                        "gradients binary32; target binary16",
                        "%s watched_steps=%d scales=2^0..2^%d", params, w.steps_seen,
                        NS_SWEEP - 1);
    if (!fp) {
        rc = -1;
        goto out;
    }
    fprintf(fp, "# counts over the watched steps and all layers; live = total - zero "
                "- nonfinite\n# columns: log2_S w_total w_zero w_nonfinite "
                "w_underflow w_subnormal w_overflow a_total a_zero a_nonfinite "
                "a_underflow a_subnormal a_overflow (w: weight gradients, a: "
                "gradients with respect to each layer's output)\n");
    int best = -1, first_w = -1, first_a = -1;
    for (int k = 0; k < NS_SWEEP; k++) {
        const amp_range_stats *x = &w.ws[k], *y = &w.as[k];
        fprintf(fp, "%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", k,
                (unsigned long long)x->total, (unsigned long long)x->zero_fp32,
                (unsigned long long)x->nonfinite, (unsigned long long)x->underflow,
                (unsigned long long)x->subnormal, (unsigned long long)x->overflow,
                (unsigned long long)y->total, (unsigned long long)y->zero_fp32,
                (unsigned long long)y->nonfinite, (unsigned long long)y->underflow,
                (unsigned long long)y->subnormal, (unsigned long long)y->overflow);
        /* the rule of fplab hist: no overflow, then fewest underflows */
        uint64_t of = x->overflow + y->overflow, uf = x->underflow + y->underflow;
        if (!of && (best < 0 || uf < w.ws[best].underflow + w.as[best].underflow))
            best = k;
        if (first_w < 0 && x->overflow)
            first_w = k;
        if (first_a < 0 && y->overflow)
            first_a = k;
    }
    if (lab_data_end(L, fp)) {
        rc = -1;
        goto out;
    }

    uint64_t wl0 = live(&w.ws[0]), al0 = live(&w.as[0]);
    lab_say(L, "Setting: %s (the *deep* setting of section 6, one binary32 run).  Its "
               "binary32 gradients were captured every %d steps (%d steps watched, "
               "%llu weight-gradient values and %llu activation-gradient values, "
               "the gradients with respect to each layer's output); %.2f%% of the "
               "activation gradients and %.2f%% of the weight gradients are exactly "
               "zero in binary32.\n\n",
            params, w.every, w.steps_seen, (unsigned long long)w.ws[0].total,
            (unsigned long long)w.as[0].total,
            100 * frac(w.as[0].zero_fp32, w.as[0].total),
            100 * frac(w.ws[0].zero_fp32, w.ws[0].total));
    lab_figure(L, "gradhist", "Distribution of log2|g| of the run's nonzero "
               "activation gradients (left) and weight gradients (right), as "
               "computed (S = 1) and multiplied by loss scales S = 8, 1024, 65536; "
               "the shaded bands are binary16's subnormal range [2^-24, 2^-14) and "
               "normal range [2^-14, 65504]. Magnitudes up to 2^-25 (half the "
               "smallest subnormal) round to zero in binary16: without scaling that "
               "is %.2f%% of the nonzero activation gradients and %.2f%% of the "
               "weight gradients; at S = 1024, %.2f%% and %.2f%%.",
               100 * frac(w.as[0].underflow, al0), 100 * frac(w.ws[0].underflow, wl0),
               100 * frac(w.as[10].underflow, live(&w.as[10])),
               100 * frac(w.ws[10].underflow, live(&w.ws[10])));
    char ofs[400];
    int first = first_w < 0 ? first_a : first_a < 0 ? first_w
                : first_w < first_a ? first_w : first_a;
    if (first < 0) {
        snprintf(ofs, sizeof ofs, "no scale up to 2^%d overflows", NS_SWEEP - 1);
    } else {
        /* name the gradients that overflow first, then the others */
        int wfirst = first_w == first;
        const amp_range_stats *f1 = wfirst ? &w.ws[first] : &w.as[first];
        int second = wfirst ? first_a : first_w;
        int n = snprintf(ofs, sizeof ofs, "overflow appears first in the %s "
                         "gradients, at S = 2^%d (%llu of %llu nonzero values, %.2g%%)",
                         wfirst ? "weight" : "activation", first,
                         (unsigned long long)f1->overflow,
                         (unsigned long long)live(f1), 100 * frac(f1->overflow, live(f1)));
        if (second == first)
        {
            const amp_range_stats *f2 = wfirst ? &w.as[first] : &w.ws[first];
            snprintf(ofs + n, sizeof ofs - (size_t)n, ", and in the %s gradients at "
                     "the same scale (%llu of %llu nonzero values, %.2g%%)",
                     wfirst ? "activation" : "weight", (unsigned long long)f2->overflow,
                     (unsigned long long)live(f2), 100 * frac(f2->overflow, live(f2)));
        }
        else if (second >= 0) {
            const amp_range_stats *f2 = wfirst ? &w.as[second] : &w.ws[second];
            snprintf(ofs + n, sizeof ofs - (size_t)n, "; the %s gradients first "
                     "overflow at S = 2^%d (%llu of %llu nonzero values, %.2g%%)",
                     wfirst ? "activation" : "weight", second,
                     (unsigned long long)f2->overflow, (unsigned long long)live(f2),
                     100 * frac(f2->overflow, live(f2)));
        } else
            snprintf(ofs + n, sizeof ofs - (size_t)n, "; the %s gradients do not "
                     "overflow up to 2^%d", wfirst ? "activation" : "weight",
                     NS_SWEEP - 1);
    }
    lab_figure(L, "gradhist_underflow", "Fraction of nonzero gradients that "
               "underflow to zero, land in binary16's subnormal range, or overflow "
               "when multiplied by S = 2^0 .. 2^%d and rounded into binary16. "
               "Underflow of activation gradients falls from %.2f%% at S = 1 to "
               "%.2f%% at S = 2^%d, that of weight gradients from %.2f%% to "
               "%.2f%%; %s. Best power of two by the rule of `fplab hist` (no "
               "overflow, then fewest underflows): S = 2^%d.",
               NS_SWEEP - 1, 100 * frac(w.as[0].underflow, al0),
               best >= 0 ? 100 * frac(w.as[best].underflow, live(&w.as[best])) : NAN,
               best, 100 * frac(w.ws[0].underflow, wl0),
               best >= 0 ? 100 * frac(w.ws[best].underflow, live(&w.ws[best])) : NAN,
               ofs, best);
    rc = 0;
out:
    amp_train_result_free(&r);
    for (int k = 0; k < NS_HIST; k++) {
        amp_hist_free(&w.wh[k]);
        amp_hist_free(&w.ah[k]);
    }
    return rc;
}
