/*
 * test_lab_stats.c — the statistics behind the training verdicts
 * (experiments/lab_stats.c) against published values: Student's t
 * quantiles from the standard tables (to the tables' 9 digits), its
 * distribution function at points with closed forms (df 1: 1/2 + atan(t)/pi;
 * df 2: 1/2 + t / (2 sqrt(t^2 + 2))), Holm's adjustment on a worked
 * example, the paired test and TOST on hand-computed cases, and the power
 * formula against its own definition.
 */
#include <math.h>
#include <stdio.h>
#include "lab_stats.h"

static int checks, fails;

static void near(double got, double want, double tol, const char *what)
{
    checks++;
    if (!(fabs(got - want) <= tol)) {
        fails++;
        printf("FAIL: %s: got %.12g, want %.12g (tolerance %g)\n", what, got, want, tol);
    }
}

int main(void)
{
    /* t quantiles (two-sided 95%, one-sided 95% and 90%) */
    near(lab_t_quantile(0.975, 1), 12.7062047362, 1e-8, "t(0.975, 1)");
    near(lab_t_quantile(0.975, 4), 2.7764451052, 1e-9, "t(0.975, 4)");
    near(lab_t_quantile(0.975, 30), 2.0422724563, 1e-9, "t(0.975, 30)");
    near(lab_t_quantile(0.95, 4), 2.1318467863, 1e-9, "t(0.95, 4)");
    near(lab_t_quantile(0.9, 10), 1.3721836411, 1e-9, "t(0.9, 10)");
    near(lab_t_quantile(0.025, 4), -2.7764451052, 1e-9, "t(0.025, 4)");
    /* closed forms of the distribution function */
    for (int i = -43; i <= 43; i++) {
        double t = 0.7 * i;
        near(lab_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12, "F(t; 1)");
        near(lab_t_cdf(t, 2), 0.5 + t / (2 * sqrt(t * t + 2)), 1e-12, "F(t; 2)");
    }
    near(lab_t_cdf(0, 7), 0.5, 1e-15, "F(0; 7)");
    /* Holm: p = .01 .04 .03 .005 -> .03 .06 .06 .02 */
    double p[4] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    lab_holm(p, 4, adj);
    near(adj[0], 0.03, 1e-15, "holm 0");
    near(adj[1], 0.06, 1e-15, "holm 1");
    near(adj[2], 0.06, 1e-15, "holm 2");
    near(adj[3], 0.02, 1e-15, "holm 3");
    /* paired test: d = 1 2 3 -> mean 2, sd 1, se 1/sqrt(3), t = 2 sqrt 3,
     * p = 2 (1 - F(2 sqrt 3; 2)); TOST at margin 1: max(1 - F(3 sqrt 3),
     * F(sqrt 3)) = F(sqrt 3; 2) */
    double a[3] = {2, 4, 6}, b[3] = {1, 2, 3};
    lab_test t;
    lab_test_paired(&t, a, b, 3, 1.0);
    double tt = 2 * sqrt(3.0);
    near(t.mean, 2, 1e-15, "mean");
    near(t.sd, 1, 1e-15, "sd");
    near(t.p, 2 * (1 - (0.5 + tt / (2 * sqrt(tt * tt + 2)))), 1e-12, "paired p");
    near(t.p_tost, 0.5 + sqrt(3.0) / (2 * sqrt(3.0 + 2)), 1e-12, "TOST p");
    near(t.half95, lab_t_quantile(0.975, 2) / sqrt(3.0), 1e-12, "half-width");
    lab_test_paired(&t, b, b, 3, 1.0);
    checks++;
    if (!t.equal || t.p != 1 || t.p_tost != 0) {
        fails++;
        printf("FAIL: equal runs: equal %d p %g p_tost %g\n", t.equal, t.p, t.p_tost);
    }
    /* power: the definition, and the seeds it asks for */
    double s = 0.5, alpha = 0.05 / 30;
    int n = lab_seeds_needed(1.0, s, alpha, 0.8, 1000);
    checks++;
    if (!(n > 2 && lab_power(1.0, s, n, alpha) >= 0.8 &&
          lab_power(1.0, s, n - 1, alpha) < 0.8)) {
        fails++;
        printf("FAIL: seeds needed %d\n", n);
    }
    near(lab_power(lab_detectable(s, 5, alpha, 0.8), s, 5, alpha), 0.8, 1e-9,
         "detectable difference has 80% power");
    printf("lab_stats: %d checks, %d failures\n", checks, fails);
    return fails || checks != 193 ? 1 : 0;
}
