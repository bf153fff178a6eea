/*
 * exp_accum.c — experiment 5: accumulation in binary16 versus binary32.
 *
 * x_i, y_i uniform in [0, 1), rounded into binary16 (as fp16 tensors hold
 * them).  Running sums sum x_i and dot products sum x_i*y_i are kept with
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
 * Why the fixed-point accumulator is exact: every binary16 value in [0, 1)
 * is an integer multiple of 2^-24, so every product x*y is a multiple of
 * 2^-48; with N <= 2^24 terms below 1 the scaled sum is an integer below
 * 2^(24+48) < 2^127.
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
    fprintf(fp, "# columns: N sum_err_binary16 sum_err_binary16_sr sum_err_binary32 "
                "sum_err_kahan dot_err_binary16 dot_err_binary16_sr dot_err_binary32 "
                "dot_err_kahan exact_sum exact_dot binary16_sum binary16_dot "
                "sum_err_tc dot_err_tc\n");
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
    long cross_max = 0;   /* first N whose exact sum exceeds binary16's max */
    const double h_max = fl_to_double(h, h->max_bits);
    const fl_tc_model *tcm = &fl_tc_h100_fp16;
    for (long i = 1; i <= nmax; i++) {
        uint64_t x = fl_from_double(h, lab_rng_uniform(&rng), &rne, &fl);
        uint64_t y = fl_from_double(h, lab_rng_uniform(&rng), &rne, &fl);
        double xv = fl_to_double(h, x), yv = fl_to_double(h, y);
        for (int k = 0; k < 2; k++) {
            run_state *r = &st[k];
            uint64_t old = r->h;
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
            if (r->h != old)
                r->last_change = i;
        }
        if (!cross_max && fl_to_double(s, st[0].s) > h_max)
            cross_max = i;   /* binary32 running sum: accurate to 1e-5 here */
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
                        "%.9g %.9g %.6e %.6e\n", i, err[0][0], err[0][1], err[0][2],
                    err[0][3], err[1][0], err[1][1], err[1][2], err[1][3], ex[0],
                    ex[1], fin_h[0], fin_h[1], err[0][A_TC], err[1][A_TC]);
            if (i == next) {
                static const int mul[3] = {2, 5, 10};
                next = next / (step125 == 0 ? 1 : step125 == 1 ? 2 : 5) * mul[step125];
                step125 = (step125 + 1) % 3;
            }
        }
    }
    exact_clear(&st[0].ex);
    exact_clear(&st[1].ex);
    if (lab_data_end(L, fp))
        return -1;
    if (mismatch) {
        snprintf(L->err, sizeof L->err, "accum: MPFR and the fixed-point exact sum "
                 "disagree (a bug in one of them)");
        return -1;
    }
    lab_figure(L, "accum", "Relative error against the exact sum (%s) of running "
               "sums (left) and dot products (right) of N values uniform in [0,1) "
               "held in binary16.  A binary16 accumulator stagnates once half its ulp "
               "exceeds the terms: the running sum last changed at term %ld, stuck "
               "at %.6g (exact sum of all %ld terms %.6g, relative error %.3g); the "
               "dot product last changed at term %ld, at %.6g (relative error "
               "%.3g).  A binary32 accumulator ends with relative "
               "errors %.2e (sum) and %.2e (dot), Kahan in binary32 %.2e and "
               "%.2e, binary16 with stochastic rounding %.2e and %.2e, and the "
               "H100 tensor-core model (blocks of %d exact products aligned with "
               "%d extra bits and truncated, binary32 accumulator rounded toward "
               "zero; Fasi et al. 2021, Khattak & Mikaitis 2025) %.2e and %.2e.",
               oracle, st[0].last_change, fin_h[0], nmax, fin_exact[0],
               final_err[0][A_H], st[1].last_change, fin_h[1], final_err[1][A_H],
               final_err[0][A_S], final_err[1][A_S], final_err[0][A_KAHAN],
               final_err[1][A_KAHAN], final_err[0][A_HSR], final_err[1][A_HSR],
               tcm->block, tcm->neab, final_err[0][A_TC], final_err[1][A_TC]);
    if (cross_max)
        lab_say(L, "Beyond N = %ld the exact sum exceeds binary16's largest finite "
                   "value %g, so a binary16 accumulator that keeps growing (as "
                   "stochastic rounding does) overflows to infinity; the "
                   "round-to-nearest one never gets there because it stagnated.\n\n",
                cross_max, h_max);
    (void)acc_name;
    return 0;
}
