/*
 * exp_lost.c — experiment 4: lost weight updates (swamping).
 *
 *  a. For update ratios r = |dw|/|w| from 2^-30 to 1, many weights
 *     w = m*2^e with m uniform in [1, 2) and e uniform in 0..3 (rounded
 *     into the weight format): the update dw = r*|w| with a random sign,
 *     rounded into the format (as the optimizer of a pure low-precision
 *     model produces it), is added once.
 *     - Round to nearest (binary16, bfloat16, binary32): the update is lost
 *       when w + dw == w.  Theory for precision p: the spacing above w is
 *       2^(e+1-p), so the update is lost when |dw| < 2^(e-p), i.e. when
 *       r < 2^-p/m: every update is lost for r <= 2^-(p+1), none for
 *       r > 2^-p, and for m uniform the lost fraction in between is
 *       2^-p/r - 1 (Micikevicius et al., ICLR 2018: in fp16 an update is
 *       lost when |w| > 2048|dw|, the upper end r = 2^-11 of this edge).
 *     - Stochastic rounding (binary16): an update is lost for sure only
 *       where dw itself rounds to zero in binary16 (r|w| <= 2^-25: every
 *       weight for r <= 2^-29, none for r > 2^-25); the share of such
 *       weights is counted (sr_dw_zero).  Otherwise the exact sum
 *       s = w + dw lies between two neighbours lo <= s <= hi;
 *       SR returns hi with probability (s - lo)/(hi - lo) (round.c adds
 *       uniform random bits to the discarded part), so the update is kept
 *       (w' != w) with probability p_i = min(1, |dw|/gap), gap the spacing
 *       next to w on the update's side.  The expected kept fraction is
 *       mean(p_i); the count of kept updates is a sum of independent
 *       Bernoulli(p_i) draws, so its sampling error (standard deviation of
 *       the measured fraction) is sqrt(sum p_i(1-p_i))/n.  The applied
 *       fraction X_i = (w' - w)/dw has mean exactly 1 (SR is unbiased) and
 *       variance (hi - s)(s - lo)/dw^2.
 *  b. A long run: w = 1 receives the same update dw = -1e-4 many times,
 *     stored directly in binary16 (RNE, SR), in bfloat16, and as a binary32
 *     master weight (read out through binary16).
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NRN = 3 };
/* z-scores need this many expected kept and lost updates (normal range) */
#define LAB_MIN_COUNT 10
static const char *const rn_name[NRN] = {"binary16", "bfloat16", "binary32"};

static const fl_format *rn_fmt(int s)
{
    return s == 1 ? &fl_bfloat16 : s == 2 ? &fl_binary32 : &fl_binary16;
}

/* One weight of the shared stream, rounded into f: its value as a double. */
typedef struct draw {
    double m;
    int e;
    double sign;
} draw;

static draw next_draw(lab_rng *r)
{
    draw d;
    d.m = 1 + lab_rng_uniform(r);
    d.e = (int)(lab_rng_next(r) % 4);
    d.sign = (lab_rng_next(r) & 1) ? -1 : 1;
    return d;
}

/* Statistics of the stochastic-rounding series at one ratio. */
typedef struct sr_point {
    long n, dw_zero, kept;
    double p_sum, p_var, u_sum;       /* sum p_i, sum p_i(1-p_i), sum |dw|/gap */
    double x_sum, x_var;              /* sum X_i, sum var X_i (dw != 0) */
} sr_point;

static void sr_sample(sr_point *P, const fl_format *f, draw d, double r,
                      fl_ctx *sr, uint64_t index)
{
    fl_ctx rn = FL_CTX_INIT, dn = fl_ctx_make(FL_RDN), upc = fl_ctx_make(FL_RUP);
    unsigned fl = 0;
    uint64_t w = fl_from_double(f, ldexp(d.m, d.e), &rn, &fl);
    double wv = fl_to_double(f, w);
    uint64_t dw = fl_from_double(f, d.sign * r * wv, &rn, &fl);
    double dv = fl_to_double(f, dw);
    sr->sr_index = index;
    uint64_t w2 = fl_add(f, w, dw, sr, &fl);
    P->n++;
    P->kept += w2 != w;
    if (dv == 0) {   /* the update itself underflowed: lost for sure */
        P->dw_zero++;
        return;
    }
    /* s = w + dw is exact in binary64: both are binary16 values in
     * [2^-24, 16), so s needs fewer than 53 bits */
    double s = wv + dv;
    double lo = fl_to_double(f, fl_from_double(f, s, &dn, &fl));
    double hi = fl_to_double(f, fl_from_double(f, s, &upc, &fl));
    double p = 1;
    if (lo != hi) {
        double pup = (s - lo) / (hi - lo);
        if (wv == lo)
            p = pup;
        else if (wv == hi)
            p = 1 - pup;
        P->x_var += (hi - s) * (s - lo) / (dv * dv);
    } else if (s == wv) {
        p = 0;
    }
    uint64_t nb = dv > 0 ? fl_next_up(f, w, &rn, &fl) : fl_next_down(f, w, &rn, &fl);
    double gap = fabs(fl_to_double(f, nb) - wv);
    P->u_sum += fabs(dv) / gap;
    P->p_sum += p;
    P->p_var += p * (1 - p);
    P->x_sum += (fl_to_double(f, w2) - wv) / dv;
}

int lab_exp_lost(lab_ctx *L)
{
    const int samples = L->quick ? 400 : 4000;
    const int sr_samples = L->quick ? 2000 : 20000;
    const int per_octave = L->quick ? 2 : 4;
    lab_rng rng = lab_rng_make(L->seed, "lost");
    FILE *fp = lab_data_begin(L, "lost_ratio.dat",
                              "lost updates (w + dw == w) vs |dw|/|w|: round to "
                              "nearest, and stochastic rounding's kept fraction",
                              "binary16 bfloat16 binary32 (rne); binary16 (sr)",
                              "samples_rne=%d samples_sr=%d ratios=2^-30..2^0 step "
                              "2^(1/%d) w=m*2^e m=uniform[1,2) e=uniform{0..3} random "
                              "sign dw=r*|w| rounded into the format; the sr series "
                              "uses the first samples_sr weights of the same stream",
                              samples, sr_samples, per_octave);
    if (!fp)
        return -1;
    fprintf(fp, "# precision p: binary16 11 bfloat16 8 binary32 24\n"
                "# columns: ratio lost_binary16 lost_bfloat16 lost_binary32 "
                "(fractions of samples_rne) sr_n sr_dw_zero sr_kept (count of w' != w) "
                "sr_expected_kept (mean p_i) sr_se_kept (sqrt(sum p_i(1-p_i))/n) "
                "sr_mean_ulps (mean |dw|/gap) sr_applied_mean (mean (w'-w)/dw over "
                "dw != 0) sr_applied_se (sqrt(sum var)/count)\n");
    int nr = 30 * per_octave + 1;
    double *lost = calloc((size_t)nr * NRN, sizeof *lost), *ratio = calloc((size_t)nr, sizeof *ratio);
    sr_point *srp = calloc((size_t)nr, sizeof *srp);
    if (!lost || !ratio || !srp) {
        free(lost);
        free(ratio);
        free(srp);
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    fl_ctx sr = fl_ctx_make(FL_RSR);
    sr.sr_seed = L->seed;
    uint64_t sr_index = 0;
    for (int i = 0; i < nr; i++) {
        int k = i - 30 * per_octave;
        double r = exp2((double)k / per_octave);
        ratio[i] = r;
        for (int s = 0; s < NRN; s++) {
            const fl_format *f = rn_fmt(s);
            fl_ctx rn = FL_CTX_INIT;
            long nl = 0;
            lab_rng rr = rng;   /* the same weights for every format */
            for (int t = 0; t < samples; t++) {
                unsigned fl = 0;
                draw d = next_draw(&rr);
                uint64_t w = fl_from_double(f, ldexp(d.m, d.e), &rn, &fl);
                uint64_t dw = fl_from_double(f, d.sign * r * fl_to_double(f, w), &rn, &fl);
                nl += fl_add(f, w, dw, &rn, &fl) == w;
            }
            lost[i * NRN + s] = (double)nl / samples;
        }
        lab_rng rr = rng;
        sr_point *P = &srp[i];
        for (int t = 0; t < sr_samples; t++)
            sr_sample(P, &fl_binary16, next_draw(&rr), r, &sr, sr_index++);
        long nx = P->n - P->dw_zero;
        fprintf(fp, "%.17g %.6f %.6f %.6f %ld %ld %ld %.9g %.9g %.9g %.9g %.9g\n", r,
                lost[i * NRN], lost[i * NRN + 1], lost[i * NRN + 2], P->n, P->dw_zero,
                P->kept, P->p_sum / (double)P->n, sqrt(P->p_var) / (double)P->n,
                P->u_sum / (double)P->n, nx ? P->x_sum / (double)nx : NAN,
                nx ? sqrt(P->x_var) / (double)nx : NAN);
    }
    if (lab_data_end(L, fp))
        goto fail;

    /* a. round to nearest: edges, against theory */
    lab_say(L, "**Round to nearest.**  A weight w = m·2^e (1 <= m < 2) of precision p "
               "has spacing 2^(e+1-p) above it, so an update dw = r·w is lost "
               "(w + dw == w) when |dw| is below half of that, i.e. when "
               "r < 2^-p/m: every update is lost for r <= 2^-(p+1), none for "
               "r > 2^-p, and with m uniform the lost fraction in between is "
               "2^-p/r - 1.  Measured over %d weights per ratio (%d ratios per "
               "octave), *all lost up to* is the largest ratio up to which every "
               "measured ratio lost every update, *none lost from* the smallest "
               "from which none did:\n\n"
               "| weight format | p | all lost up to | theory 2^-(p+1) | none lost from "
               "| theory 2^-p | largest deviation from 2^-p/r - 1 |\n"
               "|---|---|---|---|---|---|---|\n", samples, per_octave);
    double edge_all[NRN], edge_none[NRN];
    for (int s = 0; s < NRN; s++) {
        const fl_format *f = rn_fmt(s);
        int ia = -1, in = nr;
        while (ia + 1 < nr && lost[(ia + 1) * NRN + s] == 1.0)
            ia++;
        while (in - 1 >= 0 && lost[(in - 1) * NRN + s] == 0.0)
            in--;
        double dev = 0;
        for (int i = 0; i < nr; i++) {
            double th = exp2(-f->prec) / ratio[i] - 1;
            th = th < 0 ? 0 : th > 1 ? 1 : th;
            if (fabs(lost[i * NRN + s] - th) > dev)
                dev = fabs(lost[i * NRN + s] - th);
        }
        edge_all[s] = ia >= 0 ? log2(ratio[ia]) : NAN;
        edge_none[s] = in < nr ? log2(ratio[in]) : NAN;
        char ab[32], nb[32];
        if (ia >= 0)
            snprintf(ab, sizeof ab, "2^%.2f", edge_all[s]);
        else
            snprintf(ab, sizeof ab, "not reached");
        if (in < nr)
            snprintf(nb, sizeof nb, "2^%.2f", edge_none[s]);
        else
            snprintf(nb, sizeof nb, "not reached");
        lab_say(L, "| %s | %d | %s | 2^-%d | %s | 2^-%d | %.4f |\n", rn_name[s], f->prec,
                ab, f->prec + 1, nb, f->prec, dev);
    }
    lab_say(L, "\n");

    /* a. stochastic rounding: kept fraction against the update in ulps.
     * z is computed where the normal approximation holds: at least
     * LAB_MIN_COUNT expected kept and expected lost updates; the ratios
     * below that are pooled (a sum of Bernoulli draws stays one). */
    double zmax = 0, xzmax = 0, pool_k = 0, pool_e = 0, pool_v = 0;
    int nz = 0, npool = 0, nexact = 0, exact_ok = 1;
    for (int i = 0; i < nr; i++) {
        const sr_point *P = &srp[i];
        double n = (double)P->n, se = sqrt(P->p_var) / n;
        if (se == 0) {
            nexact++;
            exact_ok &= (double)P->kept == P->p_sum;
            continue;
        }
        if (P->p_sum < LAB_MIN_COUNT || n - P->p_sum < LAB_MIN_COUNT) {
            npool++;
            pool_k += (double)P->kept;
            pool_e += P->p_sum;
            pool_v += P->p_var;
            continue;
        }
        nz++;
        double z = ((double)P->kept / n - P->p_sum / n) / se;
        if (fabs(z) > zmax)
            zmax = fabs(z);
        long nx = P->n - P->dw_zero;
        double xse = sqrt(P->x_var) / (double)nx;
        if (xse > 0 && fabs(P->x_sum / (double)nx - 1) / xse > xzmax)
            xzmax = fabs(P->x_sum / (double)nx - 1) / xse;
    }
    /* where dw itself rounds to zero before the add: every weight, some,
     * none.  |dw| = r|w| rounds to zero iff r|w| <= 2^-25 (half binary16's
     * smallest subnormal; the tie goes to even, 0); with |w| = m 2^e, m in
     * [1, 2), e in 0..3: all for r <= 2^-29, none for r > 2^-25 */
    int iz_all = -1, iz_none = nr;
    while (iz_all + 1 < nr && srp[iz_all + 1].dw_zero == srp[iz_all + 1].n)
        iz_all++;
    while (iz_none - 1 >= 0 && srp[iz_none - 1].dw_zero == 0)
        iz_none--;
    lab_say(L, "**Stochastic rounding (binary16): where an update is lost for sure.**  The "
               "update dw = r·|w| is rounded into binary16 before the add, and rounds to zero "
               "where r·|w| <= 2^-25 (half the smallest subnormal); then w + dw == w with "
               "stochastic rounding as with round to nearest.  With |w| = m·2^e, m in [1, 2) "
               "and e in 0..3, that is every weight for r <= 2^-29 and none for r > 2^-25.  "
               "Measured over the %d weights per ratio: dw = 0 for every weight ",
            sr_samples);
    if (iz_all >= 0)
        lab_say(L, "up to r = 2^%.2f", log2(ratio[iz_all]));
    else
        lab_say(L, "at no ratio");
    lab_say(L, ", for none from r = 2^%.2f; in between", iz_none < nr ? log2(ratio[iz_none]) : NAN);
    for (int i = iz_all + 1; i < iz_none; i++)
        lab_say(L, "%s %.2f%% at 2^%.2f", i > iz_all + 1 ? "," : "",
                100.0 * (double)srp[i].dw_zero / (double)srp[i].n, log2(ratio[i]));
    lab_say(L, ".  Those updates are lost whatever the rounding of the add.\n\n");
    lab_say(L, "**Stochastic rounding (binary16): the updates with dw != 0.**  None of them is "
               "lost for sure: the "
               "sum s = w + dw lies between neighbours lo <= s <= hi and rounds to hi "
               "with probability (s - lo)/(hi - lo), so an update of u = |dw|/gap "
               "spacings (gap: the spacing next to w on the update's side) is kept "
               "(w' != w) with probability p = min(1, u), and a kept update moves w "
               "by a whole spacing.  Expected kept fraction: the mean of p over the "
               "%d weights per ratio (p = 0 where dw = 0); its sampling error is binomial, "
               "sqrt(sum p(1-p))/n for a sum of independent Bernoulli(p) draws; "
               "z = (measured - expected)/error, given where at least %d kept and %d "
               "lost updates are expected (elsewhere the normal approximation does "
               "not hold: -).  The applied fraction (w' - w)/dw, over the updates with "
               "dw != 0, has mean exactly 1 (stochastic rounding is unbiased), with sampling "
               "error sqrt(sum (hi-s)(s-lo)/dw^2)/n.\n\n"
               "| r = \\|dw\\|/\\|w\\| | dw = 0 | mean u (update in spacings) | expected "
               "kept | measured kept | sampling error | z | mean applied fraction ± error |\n"
               "|---|---|---|---|---|---|---|---|\n", sr_samples, LAB_MIN_COUNT,
            LAB_MIN_COUNT);
    for (int i = 0; i < nr; i++) {
        int k = i - 30 * per_octave;
        if (k % (2 * per_octave) || k < -30 * per_octave || k > -8 * per_octave)
            continue;
        const sr_point *P = &srp[i];
        double n = (double)P->n, exp_k = P->p_sum / n, se = sqrt(P->p_var) / n;
        double meas = (double)P->kept / n;
        long nx = P->n - P->dw_zero;
        char z[32];
        if (se > 0 && P->p_sum >= LAB_MIN_COUNT && n - P->p_sum >= LAB_MIN_COUNT)
            snprintf(z, sizeof z, "%.2f", (meas - exp_k) / se);
        else
            snprintf(z, sizeof z, "-");
        char xs[64];
        if (nx)
            snprintf(xs, sizeof xs, "%.3f ± %.3f", P->x_sum / (double)nx,
                     sqrt(P->x_var) / (double)nx);
        else
            snprintf(xs, sizeof xs, "–");
        lab_say(L, "| 2^%d | %.1f%% | %.4g | %.4g | %.4g | %.2g | %s | %s |\n",
                k / per_octave, 100.0 * (double)P->dw_zero / n, P->u_sum / n, exp_k, meas,
                se, z, xs);
    }
    lab_say(L, "\nAt the %d ratios where z is defined, the measured kept fraction lies "
               "within %.2f sampling errors of its expectation (largest |z|) and the "
               "mean applied fraction within %.2f sampling errors of 1.  The %d "
               "ratios with fewer expected counts, pooled: %.0f updates kept against "
               "%.1f expected (sampling error %.1f, z = %.2f).  At the other %d "
               "ratios every weight has p = 0 or p = 1, and the measured count %s "
               "the expected one.\n\n",
            nz, zmax, xzmax, npool, pool_k, pool_e, sqrt(pool_v),
            pool_v > 0 ? (pool_k - pool_e) / sqrt(pool_v) : 0.0, nexact,
            exact_ok ? "equals" : "DIFFERS FROM");
    lab_figure(L, "lost_ratio", "Top: fraction of weight updates lost (w + dw == w) "
               "under round to nearest against r = |dw|/|w|, with the theory "
               "2^-p/r - 1 (black, dashed) and the band 2^-(p+1) <= r <= 2^-p shaded: in "
               "binary16 every update is lost up to r = 2^%.2f and none from "
               "r = 2^%.2f, around Micikevicius et al.'s |w| = 2048|dw| "
               "(r = 2^-11, the band's upper end); bfloat16 2^%.2f and 2^%.2f, "
               "binary32 2^%.2f and 2^%.2f.  Bottom: binary16 with stochastic "
               "rounding, fraction of updates kept, measured (points, bars: ±2 "
               "sampling errors) against the expected mean of min(1, |dw|/gap) "
               "(black line); the largest |z| is %.2f.  Shaded grey: where dw itself "
               "rounds to zero in binary16 before the add, for every weight (dark, up to "
               "r = 2^%.2f) or for some (light, up to 2^%.2f); the dotted line is the "
               "measured share of weights with dw = 0, whose updates are lost for sure.",
               edge_all[0], edge_none[0], edge_all[1], edge_none[1], edge_all[2],
               edge_none[2], zmax, iz_all >= 0 ? log2(ratio[iz_all]) : NAN,
               iz_none - 1 >= 0 ? log2(ratio[iz_none - 1]) : NAN);

    /* b. the long run */
    free(lost);
    free(ratio);
    free(srp);
    lost = ratio = NULL;
    srp = NULL;
    const int steps = L->quick ? 2000 : 5000, every = L->quick ? 20 : 50;
    const double dwv = -1e-4;
    fl_ctx rne = FL_CTX_INIT, srr = fl_ctx_make(FL_RSR);
    srr.sr_seed = L->seed ^ 0x5A5A5A5Aull;
    unsigned fl = 0;
    const fl_format *h = &fl_binary16, *b = &fl_bfloat16, *s32 = &fl_binary32;
    uint64_t wh = fl_from_double(h, 1, &rne, &fl), whs = wh;
    uint64_t wb = fl_from_double(b, 1, &rne, &fl);
    uint64_t wm = fl_from_double(s32, 1, &rne, &fl);
    uint64_t dh = fl_from_double(h, dwv, &rne, &fl), db = fl_from_double(b, dwv, &rne, &fl);
    uint64_t dm = fl_from_double(s32, dwv, &rne, &fl);
    /* the spacing below 1, by the core */
    double gh = 1 - fl_to_double(h, fl_next_down(h, wh, &rne, &fl));
    double gb = 1 - fl_to_double(b, fl_next_down(b, wb, &rne, &fl));
    fp = lab_data_begin(L, "lost_run.dat", "w = 1 updated by dw = -1e-4 repeatedly",
                        "binary16 binary16(sr) bfloat16 binary32(master)",
                        "steps=%d dw=-1e-4 record_every=%d", steps, every);
    if (!fp)
        return -1;
    fprintf(fp, "# dw as stored: binary16 %.9g bfloat16 %.9g binary32 %.9g\n"
                "# spacing below 1: binary16 %a bfloat16 %a\n"
                "# columns: step exact binary16 binary16_sr bfloat16 "
                "binary32_master binary16(master)\n",
            fl_to_double(h, dh), fl_to_double(b, db), fl_to_double(s32, dm), gh, gb);
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
        srr.sr_index = (uint64_t)t;
        whs = fl_add(h, whs, dh, &srr, &fl);
        wb = fl_add(b, wb, db, &rne, &fl);
        wm = fl_add(s32, wm, dm, &rne, &fl);
    }
    if (lab_data_end(L, fp))
        return -1;
    double exact = 1 + steps * dwv;
    lab_figure(L, "lost_run", "A weight w = 1 receiving %d updates of -1e-4 (exact "
               "end value %.4g).  Below 1 the binary16 numbers are 2^%d apart, so "
               "round to nearest takes a downward update back to 1 unless it "
               "exceeds half that spacing, 2^%d = %.3g: stored in binary16 the "
               "weight ends at %.6g.  bfloat16 (spacing below 1 2^%d, half 2^%d = "
               "%.3g) ends at %.6g.  A binary32 master weight ends at %.6g "
               "(binary16 copy %.6g), and binary16 with stochastic rounding at "
               "%.6g.",
               steps, exact, (int)lround(log2(gh)), (int)lround(log2(gh / 2)), gh / 2,
               fl_to_double(h, wh), (int)lround(log2(gb)), (int)lround(log2(gb / 2)),
               gb / 2, fl_to_double(b, wb), fl_to_double(s32, wm),
               lab_round(h, fl_to_double(s32, wm)), fl_to_double(h, whs));
    return 0;
fail:
    free(lost);
    free(ratio);
    free(srp);
    return -1;
}
