/*
 * exp_rounding.c — experiment 2: the rounding lab.
 *
 *  a. worked examples: decimal inputs rounded into binary16 by fl_parse in
 *     every deterministic mode, with the flags raised;
 *  b. stochastic rounding: for x a fraction q of the way from one binary16
 *     number to the next, the measured probability of rounding up, the mean
 *     and the spread of many roundings (ideal: P(up) = q, mean = x);
 *  c. non-associativity: (a+b)+c versus a+(b+c) on random triples in
 *     binary16, bfloat16 and binary32, and one sum in three orders.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const examples[][2] = {
    {"2049", "tie between 2048 and 2050 (ulp 2)"},
    {"2051", "tie between 2050 and 2052"},
    {"-2049", "negative tie"},
    {"1.00048828125", "1 + 2^-11: tie between 1 and 1 + 2^-10"},
    {"0.1", "not a tie, not representable"},
    {"65519", "just below the overflow tie"},
    {"65520", "halfway between 65504 and 2^16"},
    {"2.98023223876953125e-8", "2^-25: half the smallest subnormal"},
    {"1e-8", "below half the smallest subnormal"},
    {"-0.33333333", "negative inexact"},
};
static const int modes[] = {FL_RNE, FL_RNA, FL_RTZ, FL_RDN, FL_RUP, FL_RTO};

static void flags_str(unsigned fl, char *buf)
{
    buf[0] = 0;
    if (fl & FL_INEXACT) strcat(buf, "x");
    if (fl & FL_UNDERFLOW) strcat(buf, "u");
    if (fl & FL_OVERFLOW) strcat(buf, "o");
    if (!buf[0]) strcpy(buf, "-");
}

static int worked_examples(lab_ctx *L)
{
    const fl_format *f = &fl_binary16;
    const size_t nex = sizeof examples / sizeof examples[0];
    const size_t nm = sizeof modes / sizeof modes[0];
    FILE *fp = lab_data_begin(L, "rounding_examples.dat",
                              "decimal inputs rounded into binary16 in each mode",
                              f->name, "modes=rne rna rtz rdn rup rto tininess=after");
    if (!fp)
        return -1;
    fprintf(fp, "# columns: input mode result(exact) bits flags(x=inexact "
                "u=underflow o=overflow)\n");
    lab_say(L, "Each input is parsed and rounded once, correctly, into binary16 "
               "(fl_parse); results shown to 6 digits (exact values in the data file). "
               "Flags: x inexact, u underflow, o overflow.\n\n"
               "| input | what it shows |");
    for (size_t m = 0; m < nm; m++)
        lab_say(L, " %s |", fl_rm_name(modes[m]));
    lab_say(L, "\n|---|---|");
    for (size_t m = 0; m < nm; m++)
        lab_say(L, "---|");
    lab_say(L, "\n");
    for (size_t i = 0; i < nex; i++) {
        lab_say(L, "| %s | %s |", examples[i][0], examples[i][1]);
        for (size_t m = 0; m < nm; m++) {
            fl_ctx c = fl_ctx_make(modes[m]);
            unsigned fl = 0;
            uint64_t r = 0;
            if (fl_parse(f, examples[i][0], &c, &fl, &r)) {
                snprintf(L->err, sizeof L->err, "fl_parse rejected '%s'",
                         examples[i][0]);
                return -1;   /* the open file is released by lab_ctx_free */
            }
            char v[64], fs[8];
            fl_print_exact(f, r, v, sizeof v);
            flags_str(fl & FL_IEEE_FLAGS, fs);
            fprintf(fp, "%s %s %s 0x%04llX %s\n", examples[i][0], fl_rm_name(modes[m]),
                    v, (unsigned long long)r, fs);
            lab_say(L, " %.6g %s |", fl_to_double(f, r), fs);
        }
        lab_say(L, "\n");
    }
    lab_say(L, "\n");
    return lab_data_end(L, fp);
}

/* Stochastic rounding of x = lo + q * ulp, many times. */
static int stochastic(lab_ctx *L)
{
    const fl_format *f = &fl_binary16;
    const int trials = L->quick ? 4000 : 100000;
    const double lo = 1.0, ulp = 0x1p-10;   /* binary16 spacing in [1, 2) */
    FILE *fp = lab_data_begin(L, "rounding_sr.dat",
                              "stochastic rounding of x = 1 + q*2^-10 into binary16",
                              f->name, "trials=%d sr_seed=seed sr_index=0..trials-1",
                              trials);
    if (!fp)
        return -1;
    fprintf(fp, "# columns: q P(up)measured mean_error_in_ulps=(mean-x)/ulp "
                "std_in_ulps ideal_std_in_ulps=sqrt(q(1-q)) rne_error_in_ulps "
                "up_count trials\n");
    double worst_bias = 0, zmax = 0, sdev = 0, q30_std = 0;
    for (int qi = 1; qi <= 19; qi++) {
        double q = qi / 20.0;
        double x = lo + q * ulp;   /* exact in binary64 */
        fl_ctx c = fl_ctx_make(FL_RSR);
        c.sr_seed = L->seed;
        long up = 0;
        double sum = 0, sum2 = 0;
        for (int t = 0; t < trials; t++) {
            unsigned fl = 0;
            c.sr_index = (uint64_t)qi * 1000003u + (uint64_t)t;
            double r = fl_round_double(f, x, &c, &fl);
            double e = (r - x) / ulp;
            up += r > x;
            sum += e;
            sum2 += e * e;
        }
        double mean = sum / trials, var = sum2 / trials - mean * mean;
        double sd = sqrt(var > 0 ? var : 0), ideal = sqrt(q * (1 - q));
        double rne = (lab_round(f, x) - x) / ulp;
        double p = (double)up / trials;
        fprintf(fp, "%.2f %.6f %.6f %.6f %.6f %.6f %ld %d\n", q, p, mean, sd, ideal, rne,
                up, trials);
        if (fabs(mean) > fabs(worst_bias))
            worst_bias = mean;
        double z = (p - q) / sqrt(q * (1 - q) / trials);
        if (fabs(z) > zmax)
            zmax = fabs(z);
        if (fabs(sd / ideal - 1) > sdev)
            sdev = fabs(sd / ideal - 1);
        if (qi == 6)
            q30_std = sd;
    }
    if (lab_data_end(L, fp))
        return -1;
    /* "agrees" when every |z| <= 4: a 19-value sample of a standard normal
     * exceeds 4 with probability about 0.1% */
    lab_figure(L, "rounding_sr", "Stochastic rounding of x = 1 + q·2^-10 into "
               "binary16, %d roundings per q.  The measured probability of rounding "
               "up %s q: z = (P(up) - q)/sqrt(q(1-q)/%d), in units of its binomial "
               "sampling error, stays within ±%.2f over the 19 values of q (right).  "
               "One rounding errs by 1 - q ulp (up) or -q ulp (down), so the mean "
               "error is P(up) - q: at most %.4f ulp in magnitude.  Round to nearest "
               "makes the same error every time, -q ulp for q <= 0.5 (q = 0.5 is a "
               "tie and rounds to the even 1) and 1 - q ulp above: a bias that "
               "repeated roundings accumulate.  The price of stochastic rounding is "
               "spread: standard deviation sqrt(q(1-q)) ulp (measured at q = 0.30: "
               "%.3f; at every q within %.2f%% of sqrt(q(1-q))).",
               trials, zmax <= 4 ? "agrees with" : "does NOT agree with", trials, zmax,
               fabs(worst_bias), q30_std, 100 * sdev);
    return 0;
}

static int associativity(lab_ctx *L)
{
    const fl_format *fmts[] = {&fl_binary16, &fl_bfloat16, &fl_binary32};
    const int triples = L->quick ? 20000 : 200000;
    lab_rng rng = lab_rng_make(L->seed, "assoc");
    FILE *fp = lab_data_begin(L, "rounding_assoc.dat",
                              "(a+b)+c versus a+(b+c) on random triples, RNE",
                              "binary16 bfloat16 binary32",
                              "triples=%d a,b,c=uniform(-1,1) rounded into the format",
                              triples);
    if (!fp)
        return -1;
    fprintf(fp, "# columns: format triples differing fraction max_abs_difference\n");
    lab_say(L, "**Non-associativity.** In binary16, (2048 + 1) + 1 = ");
    {
        const fl_format *f = &fl_binary16;
        fl_ctx c = FL_CTX_INIT;
        unsigned fl = 0;
        uint64_t a = fl_from_double(f, 2048, &c, &fl), one = fl_from_double(f, 1, &c, &fl);
        uint64_t l = fl_add(f, fl_add(f, a, one, &c, &fl), one, &c, &fl);
        uint64_t r = fl_add(f, a, fl_add(f, one, one, &c, &fl), &c, &fl);
        lab_say(L, "%g but 2048 + (1 + 1) = %g (each 1 alone is a tie at 2048 and "
                   "rounds to even).  On random triples from (-1, 1):\n\n"
                   "| format | triples | (a+b)+c != a+(b+c) |\n|---|---|---|\n",
                fl_to_double(f, l), fl_to_double(f, r));
    }
    for (size_t k = 0; k < 3; k++) {
        const fl_format *f = fmts[k];
        fl_ctx c = FL_CTX_INIT;
        long diff = 0;
        double maxd = 0;
        for (int t = 0; t < triples; t++) {
            unsigned fl = 0;
            uint64_t a = fl_from_double(f, 2 * lab_rng_uniform(&rng) - 1, &c, &fl);
            uint64_t b = fl_from_double(f, 2 * lab_rng_uniform(&rng) - 1, &c, &fl);
            uint64_t d = fl_from_double(f, 2 * lab_rng_uniform(&rng) - 1, &c, &fl);
            double l = fl_to_double(f, fl_add(f, fl_add(f, a, b, &c, &fl), d, &c, &fl));
            double r = fl_to_double(f, fl_add(f, a, fl_add(f, b, d, &c, &fl), &c, &fl));
            if (l != r) {
                diff++;
                if (fabs(l - r) > maxd)
                    maxd = fabs(l - r);
            }
        }
        fprintf(fp, "%s %d %ld %.6f %.6a\n", f->name, triples, diff,
                (double)diff / triples, maxd);
        lab_say(L, "| %s | %d | %.2f%% |\n", f->name, triples, 100.0 * diff / triples);
    }

    /* One sum, three orders, binary16 accumulator. */
    const int n = 4096;
    double *v = malloc(n * sizeof *v);
    if (!v) {
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    double exact = 0;   /* binary16 values in [0,1): the binary64 sum is exact
                           (multiples of 2^-24 below 2^12 need < 37 bits) */
    for (int i = 0; i < n; i++) {
        v[i] = lab_round(&fl_binary16, lab_rng_uniform(&rng));
        exact += v[i];
    }
    double s[3];
    const fl_format *f = &fl_binary16;
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t *t = malloc(n * sizeof *t);
    if (!t) {
        free(v);
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++)
        t[i] = fl_from_double(f, v[i], &c, &fl);
    uint64_t fwd = 0, bwd = 0;
    for (int i = 0; i < n; i++) {
        fwd = fl_add(f, fwd, t[i], &c, &fl);
        bwd = fl_add(f, bwd, t[n - 1 - i], &c, &fl);
    }
    /* pairwise tree, binary16 at each node; an odd element moves up as is */
    for (int w = n; w > 1;) {
        int h = w / 2;
        for (int i = 0; i < h; i++)
            t[i] = fl_add(f, t[2 * i], t[2 * i + 1], &c, &fl);
        if (w & 1)
            t[h] = t[w - 1];
        w = h + (w & 1);
    }
    s[0] = fl_to_double(f, fwd);
    s[1] = fl_to_double(f, bwd);
    s[2] = fl_to_double(f, t[0]);
    free(t);
    free(v);
    fprintf(fp, "\n\n# one sum of %d binary16 values uniform in [0,1), binary16 "
                "accumulator\n# columns: order sum relative_error (exact %.17g)\n",
            n, exact);
    static const char *on[3] = {"forward", "backward", "pairwise"};
    for (int o = 0; o < 3; o++)
        fprintf(fp, "%s %.17g %.6e\n", on[o], s[o], fabs(s[o] - exact) / exact);
    lab_say(L, "\nThe same %d binary16 values summed in binary16: forward %.6g, "
               "backward %.6g, pairwise %.6g; exact %.6g (relative errors "
               "%.2e, %.2e, %.2e).\n\n", n, s[0], s[1], s[2], exact,
            fabs(s[0] - exact) / exact, fabs(s[1] - exact) / exact,
            fabs(s[2] - exact) / exact);
    return lab_data_end(L, fp);
}

int lab_exp_rounding(lab_ctx *L)
{
    if (worked_examples(L) || stochastic(L) || associativity(L))
        return -1;
    return 0;
}
