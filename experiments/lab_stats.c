/* lab_stats.c — paired tests, equivalence, Holm, power (lab_stats.h). */
#include "lab_stats.h"

#include <math.h>
#include <stdlib.h>

/* The continued fraction of the regularized incomplete beta function
 * I_x(a, b) (modified Lentz; converges quickly for x < (a + 1) / (a + b + 2)). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 10000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny)
            d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny)
            d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b), 0 <= x <= 1. */
static double beta_inc(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
                 b * log1p(-x);
    double bt = exp(lbt);
    if (x < (a + 1.0) / (a + b + 2.0))
        return bt * beta_cf(a, b, x) / a;
    return 1.0 - bt * beta_cf(b, a, 1.0 - x) / b;
}

double lab_t_cdf(double t, int df)
{
    if (isnan(t) || df < 1)
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    double v = df;
    /* the two tails: P(|T| > |t|) = I_{v/(v+t^2)}(v/2, 1/2) */
    double tail = 0.5 * beta_inc(0.5 * v, 0.5, v / (v + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

double lab_t_quantile(double p, int df)
{
    if (!(p > 0.0 && p < 1.0) || df < 1)
        return NAN;
    double lo = -1.0, hi = 1.0;
    while (lab_t_cdf(lo, df) > p)
        lo *= 2.0;
    while (lab_t_cdf(hi, df) < p)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1.0 + fabs(lo)); i++) {
        double mid = 0.5 * (lo + hi);
        if (lab_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void lab_test_paired(lab_test *t, const double *a, const double *b, int n,
                     double margin)
{
    double d[64], s = 0.0, q = 0.0;
    if (n > 64)
        n = 64;
    t->n = n;
    t->equal = 1;
    for (int k = 0; k < n; k++) {
        d[k] = a[k] - b[k];
        s += d[k];
        t->equal &= d[k] == 0.0;
    }
    t->mean = n > 0 ? s / n : NAN;
    for (int k = 0; k < n; k++)
        q += (d[k] - t->mean) * (d[k] - t->mean);
    t->sd = n > 1 ? sqrt(q / (n - 1)) : 0.0;
    t->se = n > 0 ? t->sd / sqrt((double)n) : NAN;
    t->half95 = n > 1 ? lab_t_quantile(0.975, n - 1) * t->se : NAN;
    if (t->equal) {
        t->p = 1.0;
        t->p_tost = 0.0;
        return;
    }
    if (t->sd == 0.0) {
        /* every seed differs by the same nonzero amount: no spread, the
         * difference is certain and so is (non-)equivalence */
        t->p = 0.0;
        t->p_tost = fabs(t->mean) < margin ? 0.0 : 1.0;
        return;
    }
    int df = n - 1;
    t->p = 2.0 * (1.0 - lab_t_cdf(fabs(t->mean) / t->se, df));
    if (t->p > 1.0)
        t->p = 1.0;
    double p_lo = 1.0 - lab_t_cdf((t->mean + margin) / t->se, df);
    double p_hi = lab_t_cdf((t->mean - margin) / t->se, df);
    t->p_tost = p_lo > p_hi ? p_lo : p_hi;
}

void lab_holm(const double *p, int m, double *adj)
{
    int *ord = malloc((size_t)(m > 0 ? m : 1) * sizeof *ord);
    if (!ord) {   /* out of memory: Bonferroni, which Holm never exceeds */
        for (int i = 0; i < m; i++)
            adj[i] = fmin(1.0, p[i] * m);
        return;
    }
    for (int i = 0; i < m; i++)
        ord[i] = i;
    /* insertion sort by p, ties by index: a stable, deterministic order */
    for (int i = 1; i < m; i++) {
        int k = ord[i], j = i - 1;
        while (j >= 0 && p[ord[j]] > p[k]) {
            ord[j + 1] = ord[j];
            j--;
        }
        ord[j + 1] = k;
    }
    double run = 0.0;
    for (int j = 0; j < m; j++) {
        double v = fmin(1.0, (double)(m - j) * p[ord[j]]);
        if (v > run)
            run = v;
        adj[ord[j]] = run;
    }
    free(ord);
}

double lab_power(double delta, double s, int n, double alpha)
{
    if (n < 2 || !(s > 0))
        return NAN;
    double tc = lab_t_quantile(1.0 - alpha / 2.0, n - 1);
    return 1.0 - lab_t_cdf(tc - fabs(delta) * sqrt((double)n) / s, n - 1);
}

int lab_seeds_needed(double delta, double s, double alpha, double power,
                     int max)
{
    for (int n = 2; n <= max; n++)
        if (lab_power(delta, s, n, alpha) >= power)
            return n;
    return 0;
}

double lab_detectable(double s, int n, double alpha, double power)
{
    if (n < 2)
        return NAN;
    return (lab_t_quantile(1.0 - alpha / 2.0, n - 1) +
            lab_t_quantile(power, n - 1)) * s / sqrt((double)n);
}
