/*
 * exp_atlas.c — experiment 1: the format atlas.
 *
 * For fp16, bf16, fp32, fp8-e4m3 and fp8-e5m2 the core itself is asked
 * (next_up / next_down on real bit patterns, not formulas) for the spacing
 * of the numbers at every power of two from the smallest subnormal to the
 * largest finite value, and for each format's range.  Then every value of
 * the textbook 8-bit format ieee:4:3 is listed.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const fl_format *atlas_formats(size_t i)
{
    const fl_format *t[] = {&fl_binary16, &fl_bfloat16, &fl_binary32,
                            &fl_fp8_e4m3, &fl_fp8_e5m2};
    return i < sizeof t / sizeof t[0] ? t[i] : NULL;
}

/* Spacing above a (a finite, nonnegative, below the maximum), by the core. */
static double gap_above(const fl_format *f, uint64_t a)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t b = fl_next_up(f, a, &c, &fl);
    return fl_to_double(f, b) - fl_to_double(f, a);
}

typedef struct range_info {
    double minsub, minnorm, max, eps;
} range_info;

static range_info measure_range(const fl_format *f)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    range_info r;
    uint64_t one = fl_from_double(f, 1.0, &c, &fl);
    r.minsub = fl_to_double(f, fl_next_up(f, 0, &c, &fl));
    /* smallest normal: the first value above zero that classifies normal */
    uint64_t b = (uint64_t)1 << (f->prec - 1);
    if (fl_classify(f, b) != FL_CLASS_POS_NORMAL ||
        fl_classify(f, b - 1) == FL_CLASS_POS_NORMAL)
        r.minnorm = NAN;   /* would mean the core disagrees with the layout */
    else
        r.minnorm = fl_to_double(f, b);
    r.max = fl_to_double(f, f->max_bits);
    r.eps = gap_above(f, one);
    return r;
}

int lab_exp_atlas(lab_ctx *L)
{
    char names[256] = "";
    for (size_t i = 0; atlas_formats(i); i++) {
        strcat(names, i ? " " : "");
        strcat(names, atlas_formats(i)->name);
    }

    /* 1. spacing (ulp) in every binade of each format */
    FILE *fp = lab_data_begin(L, "atlas_ulp.dat",
                              "spacing of representable numbers in each binade",
                              names, "points=every power of two from the smallest "
                              "subnormal to the largest finite value, with the "
                              "largest value of its binade");
    if (!fp)
        return -1;
    fprintf(fp, "# one row per binade [2^k, 2^(k+1)) (the last one ends at the "
                "maximum): the spacing ulp relative to the value is largest at "
                "x = 2^k and smallest at the binade's largest value top\n"
                "# columns: x=2^k ulp(x)=next_up(x)-x ulp/x top ulp(top)=top-"
                "next_down(top) ulp(top)/top   (one block per format, in the order "
                "of 'formats')\n");
    range_info ri[8];
    for (size_t i = 0; atlas_formats(i); i++) {
        const fl_format *f = atlas_formats(i);
        fl_ctx c = FL_CTX_INIT;
        unsigned fl = 0;
        ri[i] = measure_range(f);
        fprintf(fp, "%s# format %s\n", i ? "\n\n" : "", f->name);
        int k0 = (int)lround(log2(ri[i].minsub));
        int k1 = (int)floor(log2(ri[i].max));
        for (int k = k0; k <= k1; k++) {
            uint64_t a = fl_from_double(f, ldexp(1.0, k), &c, &fl);
            double x = fl_to_double(f, a);
            /* the top of the binade: next_down(2^(k+1)), or the maximum */
            uint64_t t;
            if (k == k1) {
                t = f->max_bits;
            } else {
                t = fl_from_double(f, ldexp(1.0, k + 1), &c, &fl);
                t = fl_next_down(f, t, &c, &fl);
            }
            double y = fl_to_double(f, t);
            double gx = a == f->max_bits ? y - fl_to_double(f, fl_next_down(f, t, &c, &fl))
                                         : gap_above(f, a);
            double gy = y - fl_to_double(f, fl_next_down(f, t, &c, &fl));
            fprintf(fp, "%.17g %.17g %.17g %.17g %.17g %.17g\n", x, gx, gx / x, y, gy,
                    gy / y);
        }
    }
    if (lab_data_end(L, fp))
        return -1;

    /* 2. ranges */
    fp = lab_data_begin(L, "atlas_ranges.dat", "range and precision of each format",
                        names, "measured with fl_next_up/fl_classify");
    if (!fp)
        return -1;
    fprintf(fp, "# columns: format ebits prec min_subnormal min_normal max "
                "epsilon=ulp(1) binades=log2(max/min_subnormal)\n");
    for (size_t i = 0; atlas_formats(i); i++) {
        const fl_format *f = atlas_formats(i);
        fprintf(fp, "%s %d %d %.9g %.9g %.9g %.9g %.2f\n", f->name, f->ebits, f->prec,
                ri[i].minsub, ri[i].minnorm, ri[i].max, ri[i].eps,
                log2(ri[i].max / ri[i].minsub));
    }
    if (lab_data_end(L, fp))
        return -1;

    lab_say(L, "Spacing and range are read from the core (next_up on actual bit "
               "patterns), not from formulas.\n\n"
               "| format | precision p | smallest subnormal | smallest normal | "
               "largest finite | epsilon = ulp(1) | binades covered |\n"
               "|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; atlas_formats(i); i++) {
        const fl_format *f = atlas_formats(i);
        lab_say(L, "| %s | %d | %.3g (2^%d) | %.3g (2^%d) | %.6g | %.3g (2^%d) | %.0f |\n",
                f->name, f->prec, ri[i].minsub, (int)lround(log2(ri[i].minsub)),
                ri[i].minnorm, (int)lround(log2(ri[i].minnorm)), ri[i].max,
                ri[i].eps, (int)lround(log2(ri[i].eps)),
                log2(ri[i].max / ri[i].minsub));
    }
    lab_say(L, "\n");
    lab_figure(L, "atlas", "Relative spacing ulp(x)/x of the representable "
               "numbers against magnitude x (log-log) for the five formats, over the "
               "full range (left) and zoomed to 2^-26 .. 2^17 (right), where the "
               "16- and 8-bit formats live; each format's smallest subnormal "
               "(triangle), smallest normal (circle) and largest finite value "
               "(square) are marked.  Over a format's normal range the "
               "relative spacing stays between 2^-p and 2^(1-p), its precision; "
               "below the smallest normal it rises to 1 at the smallest subnormal "
               "(precision lost to gradual underflow).  fp16 reaches only %.6g but "
               "resolves ulp(1) = 2^%d; bf16 keeps fp32's range (max %.3g) with "
               "ulp(1) = 2^%d.",
               ri[0].max, (int)lround(log2(ri[0].eps)), ri[1].max,
               (int)lround(log2(ri[1].eps)));

    /* 3. the textbook format ieee:4:3 */
    fl_format t;
    char err[128];
    if (fl_format_parse(&t, "ieee:4:3", err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "ieee:4:3: %s", err);
        return -1;
    }
    fp = lab_data_begin(L, "atlas_ieee43.dat", "every value of the 8-bit format "
                        "ieee:4:3 (4 exponent bits, 3 fraction bits, bias 7)",
                        "ieee:4:3", "all 256 bit patterns");
    if (!fp)
        return -1;
    fprintf(fp, "# columns: bits exponent_field fraction_field class value(exact)\n");
    int nfin = 0, nsub = 0, nnan = 0;
    char grid[16][8][64];
    for (unsigned b = 0; b < 256; b++) {
        char v[64];
        fl_print_exact(&t, b, v, sizeof v);
        fl_class k = fl_classify(&t, b);
        fprintf(fp, "0x%02X %u %u %s %s\n", b, (b >> 3) & 15, b & 7,
                fl_class_name(k), v);
        if (b < 128) {
            snprintf(grid[b >> 3][b & 7], sizeof grid[0][0], "%s", v);
            if (k == FL_CLASS_POS_SUBNORMAL)
                nsub++;
            if (k == FL_CLASS_POS_SUBNORMAL || k == FL_CLASS_POS_NORMAL)
                nfin++;
            if (k == FL_CLASS_QNAN || k == FL_CLASS_SNAN)
                nnan++;
        }
    }
    if (lab_data_end(L, fp))
        return -1;
    char maxs[64];
    fl_print_exact(&t, t.max_bits, maxs, sizeof maxs);
    lab_say(L, "\nThe textbook format ieee:4:3 (bias %d): %d positive finite nonzero "
               "values, %d of them subnormal, largest %s, %d NaN patterns per sign. "
               "Row = exponent field, column = fraction field (positive half; the "
               "negative half mirrors it; full list in atlas_ieee43.dat):\n\n"
               "| E \\ M | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |\n"
               "|---|---|---|---|---|---|---|---|---|\n",
            t.bias, nfin, nsub, maxs, nnan);
    for (int e = 0; e < 16; e++) {
        lab_say(L, "| %d |", e);
        for (int m = 0; m < 8; m++)
            lab_say(L, " %s |", grid[e][m]);
        lab_say(L, "\n");
    }
    lab_say(L, "\n");
    return 0;
}
