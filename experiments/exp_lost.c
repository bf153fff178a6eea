/*
 * exp_lost.c — experiment 4: lost weight updates (swamping).
 *
 *  a. For update ratios r = |dw|/|w| from 2^-30 to 1, many weights w with
 *     significands uniform in [1, 2) and exponents in 0..3: the update dw
 *     (= r*|w| with a random sign, rounded into the weight format, as the
 *     optimizer of a pure low-precision model produces it) is added once;
 *     the update is lost when w + dw == w.  Formats: binary16, bfloat16,
 *     binary32 (RNE) and binary16 with stochastic rounding, for which the
 *     mean fraction of the update that survives is also recorded.
 *  b. A long run: w = 1 receives the same update dw = -1e-4 many times,
 *     stored directly in binary16 (RNE, SR), in bfloat16, and as a binary32
 *     master weight (read out through binary16).
 * Micikevicius et al. (ICLR 2018): in fp16 an update is lost when
 * |w| >= 2048 |dw|, i.e. r <= 2^-11; the measurement locates the edge.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NSERIES = 4 };
static const char *const series_name[NSERIES] = {"binary16", "bfloat16", "binary32",
                                                  "binary16-sr"};

static const fl_format *series_fmt(int s)
{
    return s == 1 ? &fl_bfloat16 : s == 2 ? &fl_binary32 : &fl_binary16;
}

int lab_exp_lost(lab_ctx *L)
{
    const int samples = L->quick ? 400 : 4000;
    const int per_octave = L->quick ? 2 : 4;
    lab_rng rng = lab_rng_make(L->seed, "lost");
    FILE *fp = lab_data_begin(L, "lost_ratio.dat",
                              "fraction of updates lost (w + dw == w) vs |dw|/|w|",
                              "binary16 bfloat16 binary32 binary16(sr)",
                              "samples_per_point=%d ratios=2^-30..2^0 step 2^(1/%d) "
                              "w=[1,2)*2^(0..3) random sign dw rounded into the format",
                              samples, per_octave);
    if (!fp)
        return -1;
    fprintf(fp, "# columns: ratio lost_binary16 lost_bfloat16 lost_binary32 "
                "lost_binary16_sr kept_mean_binary16_sr (mean of (w'-w)/dw)\n");
    /* edges: largest ratio with every update lost, smallest with none lost */
    double all_lost[NSERIES], none_lost[NSERIES];
    for (int s = 0; s < NSERIES; s++) {
        all_lost[s] = 0;
        none_lost[s] = INFINITY;
    }
    uint64_t sr_index = 0;
    double sr_keep_at_2m14 = NAN, sr_lost_at_2m14 = NAN;
    for (int k = -30 * per_octave; k <= 0; k++) {
        double r = exp2((double)k / per_octave);
        double lost[NSERIES], keep_sr = 0;
        for (int s = 0; s < NSERIES; s++) {
            const fl_format *f = series_fmt(s);
            fl_ctx c = fl_ctx_make(s == 3 ? FL_RSR : FL_RNE);
            c.sr_seed = L->seed;
            long nl = 0;
            double keep = 0;
            lab_rng rr = rng;   /* the same weights for every format */
            for (int t = 0; t < samples; t++) {
                unsigned fl = 0;
                double m = 1 + lab_rng_uniform(&rr);
                int e = (int)(lab_rng_next(&rr) % 4);
                double sign = (lab_rng_next(&rr) & 1) ? -1 : 1;
                fl_ctx rn = FL_CTX_INIT;
                uint64_t w = fl_from_double(f, ldexp(m, e), &rn, &fl);
                double wv = fl_to_double(f, w);
                uint64_t dw = fl_from_double(f, sign * r * wv, &rn, &fl);
                c.sr_index = sr_index++;
                uint64_t w2 = fl_add(f, w, dw, &c, &fl);
                if (w2 == w)
                    nl++;
                double dv = fl_to_double(f, dw);
                if (dv != 0)
                    keep += (fl_to_double(f, w2) - wv) / dv;
            }
            lost[s] = (double)nl / samples;
            if (s == 3)
                keep_sr = keep / samples;
            if (lost[s] == 1.0 && r > all_lost[s])
                all_lost[s] = r;
            if (lost[s] == 0.0 && r < none_lost[s])
                none_lost[s] = r;
        }
        if (k == -14 * per_octave) {
            sr_keep_at_2m14 = keep_sr;
            sr_lost_at_2m14 = lost[3];
        }
        fprintf(fp, "%.17g %.6f %.6f %.6f %.6f %.6f\n", r, lost[0], lost[1], lost[2],
                lost[3], keep_sr);
    }
    /* advance the stream past the shared weights */
    for (int t = 0; t < samples; t++) {
        (void)lab_rng_next(&rng);
        (void)lab_rng_next(&rng);
        (void)lab_rng_next(&rng);
    }
    if (lab_data_end(L, fp))
        return -1;
    lab_say(L, "Measured edges (ratio r = |dw|/|w|, %d weights per point, %d points "
               "per octave):\n\n| weight format | every update lost for r <= | "
               "no update lost for r >= |\n|---|---|---|\n", samples, per_octave);
    for (int s = 0; s < NSERIES; s++) {
        char ab[32], nb[32];
        if (all_lost[s] > 0)
            snprintf(ab, sizeof ab, "2^%.2f", log2(all_lost[s]));
        else
            snprintf(ab, sizeof ab, "not reached");
        if (isinf(none_lost[s]))
            snprintf(nb, sizeof nb, "not reached");
        else
            snprintf(nb, sizeof nb, "2^%.2f", log2(none_lost[s]));
        lab_say(L, "| %s | %s | %s |\n", series_name[s], ab, nb);
    }
    lab_say(L, "\n");
    lab_figure(L, "lost_ratio", "Fraction of weight updates lost (w + dw == w) "
               "against the ratio |dw|/|w|.  In binary16 every update is lost for "
               "r <= 2^%.2f and none for r >= 2^%.2f: the swamping edge sits at "
               "Micikevicius et al.'s |w| >= 2048|dw| (r = 2^-11), shifted by where "
               "w falls in its binade.  bfloat16's edge is 2^%.2f, binary32's 2^%.2f. "
               "Stochastic rounding loses a fraction %.3f of the individual updates "
               "at r = 2^-14 but keeps %.3f of their mean.",
               log2(all_lost[0]), log2(none_lost[0]), log2(all_lost[1]),
               log2(all_lost[2]), sr_lost_at_2m14, sr_keep_at_2m14);

    /* b. the long run */
    const int steps = L->quick ? 2000 : 5000, every = L->quick ? 20 : 50;
    const double dwv = -1e-4;
    fp = lab_data_begin(L, "lost_run.dat", "w = 1 updated by dw = -1e-4 repeatedly",
                        "binary16 binary16(sr) bfloat16 binary32(master)",
                        "steps=%d dw=-1e-4 record_every=%d", steps, every);
    if (!fp)
        return -1;
    fprintf(fp, "# columns: step exact binary16 binary16_sr bfloat16 "
                "binary32_master binary16(master)\n");
    fl_ctx rne = FL_CTX_INIT, sr = fl_ctx_make(FL_RSR);
    sr.sr_seed = L->seed ^ 0x5A5A5A5Aull;
    unsigned fl = 0;
    const fl_format *h = &fl_binary16, *b = &fl_bfloat16, *s32 = &fl_binary32;
    uint64_t wh = fl_from_double(h, 1, &rne, &fl), whs = wh;
    uint64_t wb = fl_from_double(b, 1, &rne, &fl);
    uint64_t wm = fl_from_double(s32, 1, &rne, &fl);
    uint64_t dh = fl_from_double(h, dwv, &rne, &fl), db = fl_from_double(b, dwv, &rne, &fl);
    uint64_t dm = fl_from_double(s32, dwv, &rne, &fl);
    for (int t = 0; t <= steps; t++) {
        if (t % every == 0 || t == steps) {
            double mh = lab_round(h, fl_to_double(s32, wm));
            fprintf(fp, "%d %.9g %.9g %.9g %.9g %.9g %.9g\n", t, 1 + t * dwv,
                    fl_to_double(h, wh), fl_to_double(h, whs), fl_to_double(b, wb),
                    fl_to_double(s32, wm), mh);
        }
        if (t == steps)
            break;
        wh = fl_add(h, wh, dh, &rne, &fl);
        sr.sr_index = (uint64_t)t;
        whs = fl_add(h, whs, dh, &sr, &fl);
        wb = fl_add(b, wb, db, &rne, &fl);
        wm = fl_add(s32, wm, dm, &rne, &fl);
    }
    if (lab_data_end(L, fp))
        return -1;
    double exact = 1 + steps * dwv;
    lab_figure(L, "lost_run", "A weight w = 1 receiving %d updates of -1e-4 "
               "(exact end value %.4g). Stored in binary16 it ends at %.6g: "
               "every update is below half an ulp of 1 (2^-11 = 4.9e-4) and is "
               "rounded away. bfloat16 ends at %.6g. A binary32 master weight "
               "ends at %.6g (binary16 copy %.6g), and binary16 with stochastic "
               "rounding at %.6g.",
               steps, exact, fl_to_double(h, wh), fl_to_double(b, wb),
               fl_to_double(s32, wm), lab_round(h, fl_to_double(s32, wm)),
               fl_to_double(h, whs));
    return 0;
}
