/*
 * exp_accum.c — experiment 5: accumulation in binary16 versus binary32.
 *
 * x_i, y_i uniform in [0, 1), rounded into binary16 (as fp16 tensors hold
 * them; [1 - 2^-12, 1) rounds up to 1, so the terms lie in [0, 1]).  Running sums sum x_i and dot products sum x_i*y_i are kept with
 *   - a binary16 accumulator (each step one rounding: fl_add, or fl_fma for
 *     the dot product, as a "low" accumulation policy does),
 *   - a binary16 accumulator with stochastic rounding,
 *   - a binary32 accumulator (fl_add / fl_fma in binary32; products of two
 *     binary16 values are exact in binary32: 11 + 11 <= 24 bits),
 *   - binary32 with Kahan compensation,
 * and compared at N = 10, 20, 50, ..., 10^6 (10^4 with --quick) with the
 * exact sum.  The exact sum comes from MPFR when the build has it, and from
 * a fixed-point integer accumulator in every build (each checks the other
 * when both exist).
 *
 * Why the fixed-point accumulator is exact: every binary16 value in [0, 1]
 * is an integer multiple of 2^-24, so every product x*y is a multiple of
 * 2^-48; with N <= 2^24 terms of at most 1 the scaled sum is an integer of
 * at most 2^(24+48) < 2^127.
 * The events block records, with the values before and after, the last
 * term that moved each round-to-nearest binary16 accumulator (all terms
 * are >= 0, so a round-to-nearest running sum never decreases: equal
 * values at that term and at the end mean it stayed put in between), the
 * first term at which the exact sum exceeds binary16's largest finite
 * value (decided on the fixed-point sum, exactly), and the first term at
 * which the stochastically rounded accumulator is infinite.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/tensorcore.h"

#ifdef FPLAB_HAVE_MPFR
#include <mpfr.h>
#endif

typedef struct exact_acc {
    unsigned __int128 fix;   /* sum * 2^48 */
#ifdef FPLAB_HAVE_MPFR
    mpfr_t m;                /* 256 bits: exact for these sums */
#endif
} exact_acc;

static void exact_init(exact_acc *e)
{
    e->fix = 0;
#ifdef FPLAB_HAVE_MPFR
    mpfr_init2(e->m, 256);
    mpfr_set_zero(e->m, 1);
#endif
}

static void exact_clear(exact_acc *e)
{
#ifdef FPLAB_HAVE_MPFR
    mpfr_clear(e->m);
#else
    (void)e;
#endif
}

/* Add v >= 0, a multiple of 2^-48 below 1 (checked by the caller's data). */
static void exact_add(exact_acc *e, double v)
{
    e->fix += (unsigned __int128)ldexp(v, 48);
#ifdef FPLAB_HAVE_MPFR
    mpfr_add_d(e->m, e->m, v, MPFR_RNDN);   /* exact at 256 bits */
#endif
}

/* The exact sum as a double (rounded once); -1 if the two exact sums
 * disagree, which would be a bug in one of them. */
static double exact_value(const exact_acc *e, int *mismatch)
{
    /* split into two exactly convertible halves */
    uint64_t hi = (uint64_t)(e->fix >> 64), lo = (uint64_t)e->fix;
    double v = ldexp((double)hi, 16) + ldexp((double)lo, -48);
#ifdef FPLAB_HAVE_MPFR
    mpfr_t t;
    mpfr_init2(t, 256);
    mpfr_set_ui(t, (unsigned long)hi, MPFR_RNDN);
    mpfr_mul_2si(t, t, 64, MPFR_RNDN);
    mpfr_add_ui(t, t, (unsigned long)lo, MPFR_RNDN);
    mpfr_div_2si(t, t, 48, MPFR_RNDN);
    if (mpfr_cmp(t, e->m) != 0)
        *mismatch = 1;
    v = mpfr_get_d(e->m, MPFR_RNDN);
    mpfr_clear(t);
#else
    (void)mismatch;
#endif
    return v;
}

enum { A_H = 0, A_HSR, A_S, A_KAHAN, A_TC, NACC };
static const char *const acc_name[NACC] = {"binary16", "binary16-sr", "binary32",
                                           "binary32-kahan", "h100-tc"};

typedef struct run_state {
    uint64_t h, hsr, s;        /* accumulators (bits) */
    float k_sum, k_c;          /* Kahan in binary32 (native float, RNE) */
    uint64_t tc;               /* tensor-core model: binary32 accumulator */
    uint64_t ta[16], tb[16];   /* its pending block of products */
    int tn;
    exact_acc ex;
    long last_change;          /* last index where the binary16 sum moved */
    double lc_before, lc_after;    /* its value before and after that step */
    long sr_inf;                   /* first index where the SR sum is inf */
    double sr_before;              /* the SR sum before that step */
    long ex_over;                  /* first index where the exact sum > max */
    double ex_before, ex_after;
    double ex_prev;                /* exact sum after the previous step */
} run_state;

/* Kahan step; compiled without value-changing optimizations, so the
 * compensation survives (no -ffast-math in this project). */
static void kahan_add(float *sum, float *c, float v)
{
    float y = v - *c;
    float t = *sum + y;
    *c = (t - *sum) - y;
    *sum = t;
}

int lab_exp_accum(lab_ctx *L)
{
    const long nmax = L->quick ? 10000 : 1000000;
    const fl_format *h = &fl_binary16, *s = &fl_binary32;
    lab_rng rng = lab_rng_make(L->seed, "accum");
#ifdef FPLAB_HAVE_MPFR
    const char *oracle = "MPFR (256 bits), cross-checked by a 128-bit fixed-point sum";
#else
    const char *oracle = "128-bit fixed-point exact sum (MPFR not in this build)";
#endif
    FILE *fp = lab_data_begin(L, "accum.dat",
                              "relative error of running sums and dot products",
                              "inputs binary16; accumulators binary16 binary16(sr) "
                              "binary32 binary32(kahan) h100-fp16 tensor-core model",
                              "nmax=%ld x,y=uniform[0,1) rounded to binary16 "
                              "checkpoints=1-2-5 sequence exact=%s", nmax, oracle);
    if (!fp)
        return -1;
    fprintf(fp, "# block 0: checkpoints; block 1: events (first or last index at "
                "which something happened, with the value before and after that "
                "term)\n"
                "# columns: N sum_err_binary16 sum_err_binary16_sr sum_err_binary32 "
                "sum_err_kahan dot_err_binary16 dot_err_binary16_sr dot_err_binary32 "
                "dot_err_kahan exact_sum exact_dot binary16_sum binary16_dot "
                "sum_err_tc dot_err_tc binary16_sr_sum binary16_sr_dot "
                "(errors: |value - exact|/exact; inf where the accumulator overflowed)\n");
    run_state st[2];   /* 0: sum, 1: dot */
    memset(st, 0, sizeof st);
    exact_init(&st[0].ex);
    exact_init(&st[1].ex);
    fl_ctx rne = FL_CTX_INIT, sr = fl_ctx_make(FL_RSR);
    sr.sr_seed = L->seed;
    unsigned fl = 0;
    int mismatch = 0;
    long next = 10;
    int step125 = 0;   /* 10, 20, 50, 100, ... */
    uint64_t one = fl_from_double(h, 1, &rne, &fl);
    double final_err[2][NACC] = {{0}}, fin_exact[2] = {0}, fin_h[2] = {0};
    long last_sr_ok[2] = {0, 0};     /* last checkpoint with a finite SR sum */
    double last_sr_err[2] = {0, 0};
    const double h_max = fl_to_double(h, h->max_bits);
    /* binary16's max as a multiple of 2^-48 (exact: 65504 * 2^48 < 2^64) */
    const unsigned __int128 h_max_fix = (unsigned __int128)ldexp(h_max, 48);
    const fl_tc_model *tcm = &fl_tc_h100_fp16;
    for (long i = 1; i <= nmax; i++) {
        uint64_t x = fl_from_double(h, lab_rng_uniform(&rng), &rne, &fl);
        uint64_t y = fl_from_double(h, lab_rng_uniform(&rng), &rne, &fl);
        double xv = fl_to_double(h, x), yv = fl_to_double(h, y);
        for (int k = 0; k < 2; k++) {
            run_state *r = &st[k];
            uint64_t old = r->h, old_sr = r->hsr;
            sr.sr_index = (uint64_t)i * 2 + (uint64_t)k;
            if (k == 0) {
                r->h = fl_fma(h, x, one, r->h, &rne, &fl);     /* = fl_add */
                r->hsr = fl_fma(h, x, one, r->hsr, &sr, &fl);
                r->s = fl_add(s, r->s, fl_from_double(s, xv, &rne, &fl), &rne, &fl);
                kahan_add(&r->k_sum, &r->k_c, (float)xv);
                exact_add(&r->ex, xv);
            } else {
                r->h = fl_fma(h, x, y, r->h, &rne, &fl);
                r->hsr = fl_fma(h, x, y, r->hsr, &sr, &fl);
                uint64_t xs = fl_from_double(s, xv, &rne, &fl);
                uint64_t ys = fl_from_double(s, yv, &rne, &fl);
                r->s = fl_fma(s, xs, ys, r->s, &rne, &fl);
                kahan_add(&r->k_sum, &r->k_c, (float)xv * (float)yv);  /* exact */
                exact_add(&r->ex, xv * yv);                           /* exact */
            }
            /* the tensor-core model: blocks of 16 exact products, aligned
             * and truncated, added to the binary32 accumulator (RZ) */
            r->ta[r->tn] = x;
            r->tb[r->tn] = k == 0 ? one : y;
            if (++r->tn == tcm->block) {
                r->tc = fl_tc_block_fma(tcm, r->ta, r->tb, r->tn, r->tc, &fl);
                r->tn = 0;
            }
            if (r->h != old) {
                r->last_change = i;
                r->lc_before = fl_to_double(h, old);
                r->lc_after = fl_to_double(h, r->h);
            }
            if (!r->sr_inf && fl_is_inf(h, r->hsr)) {
                r->sr_inf = i;
                r->sr_before = fl_to_double(h, old_sr);
            }
            /* the exact sum against binary16's max, on the fixed-point sum */
            double ex_now = (double)(uint64_t)(r->ex.fix >> 48) +
                            ldexp((double)(uint64_t)(r->ex.fix & (((unsigned __int128)1 << 48) - 1)), -48);
            if (!r->ex_over && r->ex.fix > h_max_fix) {
                r->ex_over = i;
                r->ex_before = r->ex_prev;
                r->ex_after = ex_now;
            }
            r->ex_prev = ex_now;
        }
        if (i == next || i == nmax) {
            double err[2][NACC], ex[2];
            for (int k = 0; k < 2; k++) {
                run_state *r = &st[k];
                ex[k] = exact_value(&r->ex, &mismatch);
                /* a checkpoint inside a block: finish it on a copy */
                uint64_t tcv = r->tn ? fl_tc_block_fma(tcm, r->ta, r->tb, r->tn,
                                                       r->tc, &fl) : r->tc;
                double v[NACC] = {fl_to_double(h, r->h), fl_to_double(h, r->hsr),
                                  fl_to_double(s, r->s), (double)r->k_sum,
                                  fl_to_double(s, tcv)};
                for (int a = 0; a < NACC; a++) {
                    err[k][a] = fabs(v[a] - ex[k]) / ex[k];
                    final_err[k][a] = err[k][a];
                }
                fin_exact[k] = ex[k];
                fin_h[k] = v[0];
            }
            fprintf(fp, "%ld %.6e %.6e %.6e %.6e %.6e %.6e %.6e %.6e %.17g %.17g "
                        "%.17g %.17g %.6e %.6e %.17g %.17g\n", i, err[0][0], err[0][1],
                    err[0][2], err[0][3], err[1][0], err[1][1], err[1][2], err[1][3],
                    ex[0], ex[1], fin_h[0], fin_h[1], err[0][A_TC], err[1][A_TC],
                    fl_to_double(h, st[0].hsr), fl_to_double(h, st[1].hsr));
            for (int k = 0; k < 2; k++)
                if (isfinite(err[k][A_HSR]))
                    last_sr_ok[k] = i, last_sr_err[k] = err[k][A_HSR];
            if (i == next) {
                static const int mul[3] = {2, 5, 10};
                next = next / (step125 == 0 ? 1 : step125 == 1 ? 2 : 5) * mul[step125];
                step125 = (step125 + 1) % 3;
            }
        }
    }
    exact_clear(&st[0].ex);
    exact_clear(&st[1].ex);
    fprintf(fp, "\n\n# events\n# columns: event N value_before value_after\n");
    static const char *const what[2] = {"sum", "dot"};
    for (int k = 0; k < 2; k++) {
        const run_state *r = &st[k];
        fprintf(fp, "binary16_%s_last_change %ld %.9g %.9g\n", what[k], r->last_change,
                r->lc_before, r->lc_after);
        if (r->ex_over)
            fprintf(fp, "exact_%s_exceeds_max %ld %.17g %.17g\n", what[k], r->ex_over,
                    r->ex_before, r->ex_after);
        if (r->sr_inf)
            fprintf(fp, "binary16_sr_%s_overflow %ld %.9g inf\n", what[k], r->sr_inf,
                    r->sr_before);
    }
    if (lab_data_end(L, fp))
        return -1;
    if (mismatch) {
        snprintf(L->err, sizeof L->err, "accum: MPFR and the fixed-point exact sum "
                 "disagree (a bug in one of them)");
        return -1;
    }
    /* stochastic rounding: overflow first, then the errors it had before */
    char srs[600];
    if (st[0].sr_inf || st[1].sr_inf) {
        int n = snprintf(srs, sizeof srs, "The exact sum exceeds binary16's largest "
                         "finite value %g from term %ld on", h_max, st[0].ex_over);
        if (st[1].ex_over)
            n += snprintf(srs + n, sizeof srs - (size_t)n, " (the dot product from "
                          "term %ld)", st[1].ex_over);
        n += snprintf(srs + n, sizeof srs - (size_t)n, ", so a binary16 accumulator "
                      "that keeps up with it must overflow: with stochastic rounding, "
                      "which does keep up, the running sum becomes infinite at term "
                      "%ld", st[0].sr_inf);
        if (st[1].sr_inf)
            n += snprintf(srs + n, sizeof srs - (size_t)n, " and the dot product at "
                          "term %ld", st[1].sr_inf);
        else
            n += snprintf(srs + n, sizeof srs - (size_t)n, ", while the dot product "
                          "stays finite");
        snprintf(srs + n, sizeof srs - (size_t)n, "; at the last checkpoints before "
                 "(N = %ld and %ld) its relative errors were %.2e and %.2e.  "
                 "Round to nearest never gets there.",
                 last_sr_ok[0], last_sr_ok[1], last_sr_err[0], last_sr_err[1]);
    } else {
        snprintf(srs, sizeof srs, "Binary16 with stochastic rounding keeps up with the "
                 "sum, which stays below binary16's largest finite value %g here: "
                 "relative errors %.2e (sum) and %.2e (dot).", h_max,
                 final_err[0][A_HSR], final_err[1][A_HSR]);
    }
    /* round to nearest: stuck for good once V + 1 rounds back to V, since
     * no term exceeds 1 (x and y are binary16 values of uniform [0, 1),
     * and [1 - 2^-12, 1) rounds up to 1) */
    char rns[2][300];
    for (int k = 0; k < 2; k++) {
        const run_state *r = &st[k];
        uint64_t vb = fl_from_double(h, r->lc_after, &rne, &fl);
        double gap = fl_to_double(h, fl_next_up(h, vb, &rne, &fl)) - r->lc_after;
        if (r->h == vb && fl_add(h, vb, one, &rne, &fl) == vb)
            snprintf(rns[k], sizeof rns[k], "last changed at term %ld, to %.6g, and "
                     "can move no more: no term exceeds 1, and %.6g + 1 rounds back "
                     "to %.6g (half its spacing is %g)", r->last_change, r->lc_after,
                     r->lc_after, r->lc_after, gap / 2);
        else
            snprintf(rns[k], sizeof rns[k], "is at %.6g after %ld terms, still "
                     "moving (last change at term %ld; half its spacing is %g)",
                     fl_to_double(h, r->h), nmax, r->last_change, gap / 2);
    }
    lab_figure(L, "accum", "Relative error against the exact sum (%s) of running "
               "sums (left) and dot products (right) of N values uniform in [0,1) "
               "held in binary16.  A binary16 accumulator with round to nearest "
               "loses every term smaller than half its spacing: the running sum "
               "%s; exact sum of all %ld terms %.6g, relative error %.3g.  The dot "
               "product %s; relative error %.3g.  %s  A binary32 "
               "accumulator ends with relative errors %.2e (sum) and %.2e (dot), "
               "Kahan in binary32 %.2e and %.2e, and the H100 tensor-core model "
               "(blocks of %d exact products aligned with %d extra bits and "
               "truncated, binary32 accumulator rounded toward zero; Fasi et al. "
               "2021, Khattak & Mikaitis 2025) %.2e and %.2e.  Errors that are "
               "exactly zero and accumulators that overflowed are drawn as markers "
               "on rows of their own, at the bottom (0) and at the top (inf).  "
               "Vertical lines: the round-to-nearest accumulator's last change (where "
               "it stalls), the term where the exact sum passes 65504, and the term "
               "where the stochastically rounded accumulator becomes infinite.",
               oracle, rns[0], nmax, fin_exact[0], final_err[0][A_H], rns[1],
               final_err[1][A_H], srs, final_err[0][A_S], final_err[1][A_S],
               final_err[0][A_KAHAN], final_err[1][A_KAHAN], tcm->block, tcm->neab,
               final_err[0][A_TC], final_err[1][A_TC]);
    (void)acc_name;
    return 0;
}
