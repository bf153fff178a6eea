/*
 * lab_stats.h — the statistics behind the training experiments' verdicts.
 *
 * Two policies trained on the same seeds are compared seed by seed: d_k =
 * a_k - b_k (k < n), mean m, sample standard deviation s, standard error
 * se = s / sqrt(n), Student's t with n - 1 degrees of freedom.
 *  - difference: the two-sided paired t-test of mean(d) = 0, p = 2 (1 -
 *    F(|m| / se));
 *  - equivalence within a margin D: two one-sided tests (TOST, Schuirmann
 *    1987) of mean(d) <= -D and of mean(d) >= D; p = the larger of
 *    1 - F((m + D) / se) and F((m - D) / se);
 *  - multiplicity: Holm's step-down adjustment over a family of tests
 *    (Holm 1979): sorted p_(1) <= ... <= p_(M), adjusted
 *    p~_(i) = max_{j <= i} min(1, (M - j + 1) p_(j));
 *  - power: a paired t-test at level alpha (two-sided) detects a true
 *    mean difference delta with probability about
 *    1 - F(t(1 - alpha/2, n-1) - delta sqrt(n) / s) (the shifted central t;
 *    the far tail is left out), where s is the paired standard deviation.
 * F is the cumulative distribution of Student's t, from the regularized
 * incomplete beta function (continued fraction, Lentz's method).
 */
#ifndef FPLAB_LAB_STATS_H
#define FPLAB_LAB_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Student's t cumulative distribution F(t; df), df >= 1 (absolute error
 * below 1e-12). */
double lab_t_cdf(double t, int df);
/* Its inverse: t with F(t; df) = p, 0 < p < 1 (bisection to 1e-12). */
double lab_t_quantile(double p, int df);

/* A paired comparison of n >= 2 per-seed values (n <= 64). */
typedef struct lab_test {
    int n;
    double mean, sd, se;     /* of d = a - b */
    double half95;           /* t(0.975, n-1) se: the 95% interval's half */
    int equal;               /* every d_k == 0 */
    double p;                /* two-sided paired t-test; 1 when equal */
    double p_tost;           /* TOST against +-margin; 0 when equal, or
                                when sd == 0 and |mean| < margin */
} lab_test;

void lab_test_paired(lab_test *t, const double *a, const double *b, int n,
                     double margin);

/* Holm's adjusted p-values adj[i] of p[i], i < m (m >= 0). */
void lab_holm(const double *p, int m, double *adj);

/* The probability that a paired t-test at two-sided level alpha detects a
 * true difference delta with n seeds and paired sd s (formula above). */
double lab_power(double delta, double s, int n, double alpha);
/* The smallest n in 2..max with lab_power >= power, or 0 when none. */
int lab_seeds_needed(double delta, double s, double alpha, double power,
                     int max);
/* The smallest delta that n seeds detect with that power:
 * (t(1 - alpha/2, n-1) + t(power, n-1)) s / sqrt(n). */
double lab_detectable(double s, int n, double alpha, double power);

#ifdef __cplusplus
}
#endif
#endif
