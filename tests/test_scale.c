/*
 * test_scale.c — fplab_scale (fplab/scale.h): hand-worked blocks and
 * recipes with exact codes, scales, dequantized values and counts; an
 * independent model of OCP MX v1.0 §6.3 (binary64 arithmetic and the
 * core's fl_convert, nothing from the library) over random blocks with
 * specials; the fast integer kernels against the general route over a
 * sweep of every element code's neighbourhood at every shared exponent;
 * NVFP4 two-level scales; TE delayed-scaling histories worked by hand.
 *
 * Random parts print their seed; FPLAB_TEST_SEED replays it.  Every test
 * counts its checks into n_cases and main asserts the total, so a loop
 * that never runs fails; a scheme whose element format the core lacks
 * fails the run too.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fplab/scale.h"
#include "test_common.h"
#include "test_check.h"

static long n_cases, n_skipped_formats;

/* In loops: Check's ck_assert records every passing assertion through a
 * write(2); this fails the same way and costs nothing when it passes. */
#define CHK(cond, ...)                                                       \
    do {                                                                     \
        if (!(cond))                                                         \
            ck_abort_msg(__VA_ARGS__);                                       \
    } while (0)

static uint64_t seed0;
static uint64_t rng_state;
static uint64_t rnd(void)
{
    return tc_splitmix(&rng_state);
}

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* same bits, or both NaN */
static int same_f(float a, float b)
{
    return (isnan(a) && isnan(b)) || f2u(a) == f2u(b);
}

static int have_scheme(const char *name, fl_scale_scheme *s)
{
    char err[256];
    if (fl_scale_scheme_parse(s, name, err, sizeof err)) {
        if (strstr(err, "not in this build")) {
            printf("  (skipped %s: %s)\n", name, err);
            n_skipped_formats++;
            return 0;
        }
        ck_abort_msg("parse %s: %s", name, err);
    }
    return 1;
}

typedef struct res {
    uint8_t codes[4096], scales[256];
    float deq[4096];
    fl_scale_block_stats blocks[256];
    fl_scale_out o;
} res;

static void quant(const fl_scale_scheme *s, const float *x, size_t n, size_t last,
                  res *r)
{
    char err[256];
    CHK(n <= 4096, "quant: %zu values", n);
    memset(r, 0, sizeof *r);
    r->o.codes = r->codes;
    r->o.scales = r->scales;
    r->o.dequant = r->deq;
    r->o.blocks = r->blocks;
    int rc = fl_scale_quantize(s, x, n, last, &r->o, err, sizeof err);
    CHK(rc == 0, "%s: %s", s->name, err);
}

static void fill(float *x, size_t n, float v)
{
    for (size_t i = 0; i < n; i++)
        x[i] = v;
}

/* ---- hand-worked MX blocks (OCP MX v1.0 section 6.3) -------------------- */

START_TEST(mx_e4m3_max_power_of_two)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    fill(x, 32, 0.0f);
    x[0] = 256.0f;   /* amax 2^8: shared_exp = 8 - emax 8 = 0, X = 1 */
    x[1] = 1.0f;
    x[2] = 0.5f;
    x[3] = -3.0f;
    x[4] = 0.1f;     /* 1.6 * 2^-4 -> 1.625 * 2^-4 = 0.1015625 */
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    const uint8_t want[5] = {0x78, 0x38, 0x30, 0xC4, 0x1D};
    for (int i = 0; i < 5; i++)
        ck_assert_msg(r.codes[i] == want[i], "element %d: code 0x%02x, want 0x%02x", i,
                      r.codes[i], want[i]);
    for (int i = 5; i < 32; i++)
        ck_assert_uint_eq(r.codes[i], 0);
    ck_assert(r.deq[0] == 256.0f && r.deq[3] == -3.0f && r.deq[4] == 0.1015625f);
    ck_assert_uint_eq(r.o.stats.nonzero, 5);
    ck_assert_uint_eq(r.o.stats.zero, 27);
    ck_assert_uint_eq(r.o.stats.underflow + r.o.stats.saturated + r.o.stats.subnormal, 0);
    ck_assert(fabs(r.o.stats.rel_max - (0.1015625 - (double)0.1f) / (double)0.1f) < 1e-15);
    n_cases += 14;
}
END_TEST

START_TEST(mx_e4m3_max_just_below_power_of_two_saturates)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    fill(x, 32, 1.0f);
    x[0] = 0x1.fffffep8f;   /* amax: floor(log2) 8, X = 1; rounds to 512 */
    x[1] = 464.0f;          /* tie between 448 and 480: even mantissa 448 */
    x[2] = 0x1.d00002p8f;   /* just above the tie: 480, beyond the max */
    x[3] = 460.0f;          /* 448 */
    x[4] = 448.0f;
    x[5] = -0x1.fffffep8f;
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    const uint8_t want[6] = {0x7E, 0x7E, 0x7E, 0x7E, 0x7E, 0xFE};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(r.codes[i] == want[i], "element %d: code 0x%02x", i, r.codes[i]);
    for (int i = 6; i < 32; i++)
        ck_assert_uint_eq(r.codes[i], 0x38);
    ck_assert(r.deq[0] == 448.0f && r.deq[5] == -448.0f && r.deq[2] == 448.0f);
    ck_assert_uint_eq(r.o.stats.saturated, 3);   /* 511.99, 464.00003, -511.99 */
    ck_assert_uint_eq(r.blocks[0].saturated, 3);
    ck_assert_uint_eq(r.o.stats.underflow, 0);
    n_cases += 12;
}
END_TEST

START_TEST(mx_zero_nan_inf_blocks)
{
    fl_scale_scheme s;
    res r;
    float x[96];
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    /* block 0: zeros of both signs; block 1: a NaN; block 2: an -Inf */
    for (int i = 0; i < 32; i++)
        x[i] = (i & 1) ? -0.0f : 0.0f;
    fill(x + 32, 64, 1.0f);
    x[32 + 7] = NAN;
    x[64 + 30] = -INFINITY;
    quant(&s, x, 96, 96, &r);
    ck_assert_uint_eq(r.scales[0], 0x00);   /* 2^-127: the clamp */
    for (int i = 0; i < 32; i++) {
        ck_assert_uint_eq(r.codes[i], (i & 1) ? 0x80 : 0x00);
        ck_assert(r.deq[i] == 0.0f && !!signbit(r.deq[i]) == (i & 1));
    }
    ck_assert_uint_eq(r.scales[1], 0xFF);
    ck_assert_uint_eq(r.scales[2], 0xFF);
    for (int i = 32; i < 96; i++) {
        ck_assert_uint_eq(r.codes[i], 0);
        ck_assert(isnan(r.deq[i]));
    }
    ck_assert_uint_eq(r.o.stats.zero, 32);
    ck_assert_uint_eq(r.o.stats.nan_in, 1);
    ck_assert_uint_eq(r.o.stats.inf_in, 1);
    ck_assert_uint_eq(r.o.stats.lost, 62);
    ck_assert_uint_eq(r.o.stats.nan_blocks, 2);
    ck_assert_uint_eq(r.o.stats.blocks, 3);
    ck_assert_uint_eq(r.o.stats.rel_n, 0);
    ck_assert_uint_eq(r.blocks[1].nonfinite, 1);
    n_cases += 3 + 64 + 64 + 8;
}
END_TEST

START_TEST(mx_e4m3_subnormal_elements)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    fill(x, 32, 0.0f);
    x[0] = 448.0f;                /* X = 1 */
    x[1] = 0x1p-9f;               /* smallest subnormal: 0x01 */
    x[2] = 0x1p-10f;              /* tie between 0 and 2^-9: even 0 */
    x[3] = 0x1.8p-10f;            /* 0.75 of 2^-9: 0x01 */
    x[4] = 0x1p-7f;               /* 4 * 2^-9: 0x04 */
    x[5] = 0x1.cp-7f;             /* 7 * 2^-9: largest subnormal 0x07 */
    x[6] = 0x1p-6f;               /* smallest normal 0x08 */
    x[7] = -0x1.000002p-10f;      /* just above the tie: -2^-9, 0x81 */
    x[8] = 0x1p-12f;              /* below half the smallest: 0 */
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    const uint8_t want[9] = {0x7E, 0x01, 0x00, 0x01, 0x04, 0x07, 0x08, 0x81, 0x00};
    for (int i = 0; i < 9; i++)
        ck_assert_msg(r.codes[i] == want[i], "element %d: code 0x%02x, want 0x%02x", i,
                      r.codes[i], want[i]);
    ck_assert_uint_eq(r.o.stats.subnormal, 5);   /* x1 x3 x4 x5 x7 */
    ck_assert_uint_eq(r.o.stats.underflow, 2);   /* x2 x8 */
    ck_assert(r.deq[7] == -0x1p-9f && r.deq[3] == 0x1p-9f);
    ck_assert(r.o.stats.rel_max == 1.0);         /* the underflows */
    n_cases += 13;
}
END_TEST

START_TEST(mx_scale_clamped_at_minus_127)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    fill(x, 32, 0.0f);
    x[0] = 0x1p-130f;    /* binary32 subnormal: floor(log2) - 8 = -138 -> -127 */
    x[1] = 0x1p-140f;    /* P = 2^-13: below half of 2^-9, underflow */
    x[2] = -0x1p-136f;   /* P = 2^-9: 0x81 */
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 0);
    ck_assert_uint_eq(r.codes[0], 0x20);          /* 2^-3 */
    ck_assert_uint_eq(r.codes[1], 0x00);
    ck_assert_uint_eq(r.codes[2], 0x81);
    ck_assert(r.deq[0] == 0x1p-130f && r.deq[2] == -0x1p-136f && r.deq[1] == 0.0f);
    ck_assert_uint_eq(r.o.stats.underflow, 1);
    ck_assert_uint_eq(r.o.stats.subnormal, 1);
    n_cases += 7;
}
END_TEST

START_TEST(mx_e5m2_block)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    ck_assert(have_scheme("mxfp8-e5m2", &s));
    fill(x, 32, 0.0f);
    x[0] = 1.0f;         /* shared_exp = 0 - 15: X = 2^-15, P = 2^15 */
    x[1] = 0.75f;        /* 1.5 * 2^14: 0x76 */
    x[2] = 0x1p-31f;     /* P = 2^-16, smallest subnormal 0x01 */
    x[3] = 0x1p-32f;     /* tie: 0 */
    x[4] = -1.0f;
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127 - 15);
    const uint8_t want[5] = {0x78, 0x76, 0x01, 0x00, 0xF8};
    for (int i = 0; i < 5; i++)
        ck_assert_msg(r.codes[i] == want[i], "element %d: code 0x%02x", i, r.codes[i]);
    ck_assert(r.deq[2] == 0x1p-31f && r.deq[4] == -1.0f);
    ck_assert_uint_eq(r.o.stats.underflow, 1);
    ck_assert_uint_eq(r.o.stats.subnormal, 1);
    n_cases += 9;
}
END_TEST

START_TEST(mxint8_block)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    ck_assert(have_scheme("mxint8", &s));
    fill(x, 32, 0.0f);
    x[0] = 1.9921875f;   /* 255/128: shared_exp 0; 127.5 -> 128 (even) -> 127 */
    x[1] = -1.5f;        /* -96: 0xA0 */
    x[2] = 0x1p-7f;      /* 0.5 -> 0 (even): underflow */
    x[3] = 0x1.8p-6f;    /* 1.5 -> 2 */
    x[4] = -0x1p-7f;     /* -0.5 -> 0, +0 (int8 has no -0) */
    x[5] = 0.75f;        /* 48 */
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    const uint8_t want[6] = {0x7F, 0xA0, 0x00, 0x02, 0x00, 0x30};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(r.codes[i] == want[i], "element %d: code 0x%02x", i, r.codes[i]);
    ck_assert(r.deq[0] == 1.984375f && r.deq[1] == -1.5f && r.deq[3] == 0x1p-5f);
    ck_assert(r.deq[4] == 0.0f && !signbit(r.deq[4]));
    ck_assert_uint_eq(r.o.stats.saturated, 1);
    ck_assert_uint_eq(r.o.stats.underflow, 2);
    ck_assert_uint_eq(r.o.stats.subnormal, 0);
    n_cases += 12;
}
END_TEST

/* Scale rules on E4M3 (emax 8, 3 fraction bits, max 448).  RCEIL products
 * worked in binary32: binary32(1/448) = 0x1.24924ap-9; 3.5 * that =
 * 0x1p-7 exactly (code 120), 448 * that = 1 exactly (127), 480 * that =
 * 0x1.124926p0 (128). */
START_TEST(mx_scale_rules_e4m3)
{
    static const struct {
        float amax;
        uint8_t floor_, ceil_, even_, rceil_;
    } t[] = {
        {1.0f, 119, 119, 119, 119},
        {3.5f, 120, 121, 120, 120},         /* 1.75*2: even adds 1/16, no carry */
        {0x1.f33334p1f, 120, 121, 121, 121},/* 3.9: 1.95 + 1/16 carries */
        {448.0f, 127, 128, 127, 127},
        {480.0f, 127, 128, 127, 128},
        {496.0f, 127, 128, 128, 128},       /* 1.9375 + 1/16 = 2 */
        {0.0f, 0, 0, 0, 0},
        {0x1p-140f, 0, 0, 0, 0},            /* clamped at 2^-127 */
    };
    static const char *rules[4] = {"mxfp8-e4m3", "mxfp8-e4m3:ceil", "mxfp8-e4m3:even",
                                   "mxfp8-e4m3:rceil"};
    for (int q = 0; q < 4; q++) {
        fl_scale_scheme s;
        ck_assert(have_scheme(rules[q], &s));
        for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
            res r;
            float x[32];
            fill(x, 32, 0.0f);
            x[k] = t[k].amax;
            quant(&s, x, 32, 32, &r);
            const uint8_t want = q == 0 ? t[k].floor_ : q == 1 ? t[k].ceil_
                                 : q == 2 ? t[k].even_ : t[k].rceil_;
            ck_assert_msg(r.scales[0] == want, "%s amax %a: scale %u, want %u", rules[q],
                          (double)t[k].amax, r.scales[0], want);
            n_cases++;
        }
    }
    /* what the rule buys: 480 saturates under floor, not under rceil */
    fl_scale_scheme s;
    res r;
    float x[32];
    fill(x, 32, 0.0f);
    x[0] = 480.0f;
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    quant(&s, x, 32, 32, &r);
    ck_assert(r.codes[0] == 0x7E && r.o.stats.saturated == 1);
    ck_assert(have_scheme("mxfp8-e4m3:rceil", &s));
    quant(&s, x, 32, 32, &r);
    ck_assert(r.deq[0] == 480.0f && r.o.stats.saturated == 0);
    n_cases += 2;
}
END_TEST

START_TEST(mx_rounding_modes)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    fill(x, 32, 0.0f);
    x[0] = 256.0f;          /* X = 1; E4M3 step at 2^0 is 1/8 */
    x[1] = 1.0625f;         /* tie between 1 and 1.125 */
    x[2] = -1.0625f;
    x[3] = 1.1f;            /* above the tie */
    const char *names[3] = {"mxfp8-e4m3", "mxfp8-e4m3:rna", "mxfp8-e4m3:rtz"};
    const uint8_t want[3][3] = {{0x38, 0xB8, 0x39}, {0x39, 0xB9, 0x39},
                                {0x38, 0xB8, 0x38}};
    for (int q = 0; q < 3; q++) {
        ck_assert(have_scheme(names[q], &s));
        quant(&s, x, 32, 32, &r);
        for (int i = 0; i < 3; i++)
            ck_assert_msg(r.codes[1 + i] == want[q][i], "%s element %d: 0x%02x", names[q],
                          1 + i, r.codes[1 + i]);
        n_cases += 3;
    }
}
END_TEST

START_TEST(mx_stochastic_rounding)
{
    fl_scale_scheme s, s2;
    enum { N = 4096 };
    static float x[N];
    static res r1, r2;
    ck_assert(have_scheme("mxfp8-e4m3:sr", &s));
    s.seed = 12345;
    s2 = s;
    /* 1 + 1/32 sits a quarter of the way from 1 to 1.125: rounds up with
     * probability 1/4 */
    for (int i = 0; i < N; i++)
        x[i] = (i % 32 == 0) ? 256.0f : 1.03125f;
    quant(&s, x, N, N, &r1);
    quant(&s2, x, N, N, &r2);
    int up = 0, other = 0, diff = 0;
    for (int i = 0; i < N; i++) {
        if (i % 32 == 0)
            continue;
        up += r1.codes[i] == 0x39;
        other += r1.codes[i] != 0x39 && r1.codes[i] != 0x38;
        diff += r1.codes[i] != r2.codes[i];
    }
    ck_assert_int_eq(other, 0);
    ck_assert_int_eq(diff, 0);       /* same seed, same bits */
    const double frac = up / (double)(N - N / 32);
    ck_assert_msg(fabs(frac - 0.25) < 0.03, "rounded up %.4f of the time", frac);
    s2.seed = 999;
    quant(&s2, x, N, N, &r2);
    diff = 0;
    for (int i = 0; i < N; i++)
        diff += r1.codes[i] != r2.codes[i];
    ck_assert(diff > 0);
    n_cases += 4;
}
END_TEST

/* OCP MX v1.0 Table 5 (E2M1 values) and E8M0 codes against the core's
 * OCP preset fp8-e8m0 (the scale codes are computed from exponents, never
 * rounded into E8M0, so ml_dtypes' float8_e8m0fnu rounding plays no part) */
START_TEST(element_and_scale_codes)
{
    fl_scale_scheme s;
    ck_assert(have_scheme("mxfp4-e2m1", &s));
    static const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (int c = 0; c < 16; c++) {
        const double v = fl_scale_elem_value(&s, (uint8_t)c);
        ck_assert_msg(v == (c & 8 ? -e2m1[c & 7] : e2m1[c & 7]) && !!signbit(v) == !!(c & 8),
                      "E2M1 code 0x%x: %g", c, v);
        n_cases++;
    }
    const fl_format *e8 = fl_format_by_name("e8m0");
    ck_assert(e8 == &fl_fp8_e8m0);
    ck_assert(e8 != NULL);
    for (int c = 0; c < 256; c++) {
        const double a = fl_scale_block_value(&s, (uint8_t)c), b = fl_to_double(e8, c);
        CHK((isnan(a) && isnan(b)) || a == b, "E8M0 0x%02x: %g, core %g", c, a, b);
        n_cases++;
    }
    ck_assert(fl_scale_elem_max(&s) == 6.0 && fl_scale_elem_emax(&s) == 2);
    ck_assert(have_scheme("mxint8", &s));
    ck_assert(fl_scale_elem_value(&s, 0x80) == -2.0 && fl_scale_elem_value(&s, 0x7F) == 127.0 / 64);
    n_cases += 2;
}
END_TEST

START_TEST(mx_fp4_fp6_blocks)
{
    fl_scale_scheme s;
    res r;
    float x[32];
    /* MXFP4: amax 7 -> floor(log2 7) - 2 = 0, X = 1 */
    ck_assert(have_scheme("mxfp4-e2m1", &s));
    fill(x, 32, 0.0f);
    const float v4[9] = {7.0f, 5.0f, 0.25f, 0.75f, -1.25f, 2.5f, 3.5f, -0.1f, 0.6f};
    /* 7 -> 8 saturates to 6; ties go to the even mantissa: 5 -> 4,
     * 0.25 -> 0, 0.75 -> 1, -1.25 -> -1, 2.5 -> 2, 3.5 -> 4; -0.1 -> -0;
     * 0.6 -> 0.5 (the one subnormal) */
    const uint8_t w4[9] = {0x7, 0x6, 0x0, 0x2, 0xA, 0x4, 0x6, 0x8, 0x1};
    memcpy(x, v4, sizeof v4);
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(r.codes[i] == w4[i], "E2M1 element %d: 0x%x, want 0x%x", i,
                      r.codes[i], w4[i]);
    ck_assert(r.deq[0] == 6.0f && r.deq[7] == 0.0f && signbit(r.deq[7]));
    ck_assert_uint_eq(r.o.stats.saturated, 1);
    ck_assert_uint_eq(r.o.stats.underflow, 2);
    ck_assert_uint_eq(r.o.stats.subnormal, 1);
    n_cases += 14;
    /* MXFP6 E3M2 (emax 4, max 28): amax 30 -> X = 1; 30 is the tie 28/32,
     * even is 32 = 2^5, beyond the range: saturates to 28 (0x1F) */
    ck_assert(have_scheme("mxfp6-e3m2", &s));
    fill(x, 32, 0.0f);
    x[0] = 30.0f;
    x[1] = 0.0625f;     /* 2^-4, the smallest subnormal: 0x01 */
    x[2] = 0.03125f;    /* the tie below it: 0 */
    x[3] = -28.0f;      /* 0x3F */
    x[4] = 0.25f;       /* 2^-2, the smallest normal: field 1 -> 0x04 */
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    ck_assert(r.codes[0] == 0x1F && r.codes[1] == 0x01 && r.codes[2] == 0x00 &&
              r.codes[3] == 0x3F && r.codes[4] == 0x04);
    ck_assert(r.o.stats.saturated == 1 && r.o.stats.underflow == 1 && r.o.stats.subnormal == 1);
    n_cases += 3;
    /* MXFP6 E2M3 (emax 2, max 7.5): amax 7.75 -> X = 1; 7.75 is the tie
     * 7.5/8, even is 8: saturates to 7.5 (0x1F) */
    ck_assert(have_scheme("mxfp6-e2m3", &s));
    fill(x, 32, 0.0f);
    x[0] = 7.75f;
    x[1] = 0.125f;      /* 2^-3, the smallest subnormal: 0x01 */
    x[2] = 0.0625f;     /* tie: 0 */
    x[3] = -1.0625f;    /* tie 1 / 1.125: 1 -> 0x28 */
    quant(&s, x, 32, 32, &r);
    ck_assert_uint_eq(r.scales[0], 127);
    ck_assert(r.codes[0] == 0x1F && r.codes[1] == 0x01 && r.codes[2] == 0x00 &&
              r.codes[3] == 0x28);
    ck_assert(r.deq[0] == 7.5f && r.deq[3] == -1.0f);
    ck_assert(r.o.stats.saturated == 1 && r.o.stats.underflow == 1 && r.o.stats.subnormal == 1);
    n_cases += 4;
}
END_TEST

/* ---- the independent model -------------------------------------------- */

typedef struct model_out {
    uint8_t code[32];
    float deq[32];
    uint8_t scale;
    unsigned sat, sub, under;
} model_out;

/* OCP MX v1.0 section 6.3 and the named rules, from their definitions in
 * binary64: log2 through frexp, X = 2^shared, P = V / X, the element
 * through the core's fl_convert (saturating), dequant X * P cast to float. */
static void model_mx(const fl_scale_scheme *s, const float *x, model_out *m)
{
    const fl_format *f = s->elem;
    const int emax = f ? f->emax : 0;
    const int mbits = f ? f->prec - 1 : 6;
    const double maxval = fl_scale_elem_max(s);
    double amax = 0;
    int nonfinite = 0;
    for (int i = 0; i < 32; i++) {
        if (!isfinite(x[i]))
            nonfinite = 1;
        else if (fabs((double)x[i]) > amax)
            amax = fabs((double)x[i]);
    }
    memset(m, 0, sizeof *m);
    if (nonfinite) {
        m->scale = 0xFF;
        for (int i = 0; i < 32; i++)
            m->deq[i] = NAN;
        return;
    }
    int sh;
    if (amax == 0) {
        sh = -127;
    } else {
        int e;
        const double fr = frexp(amax, &e);   /* amax = fr * 2^e, fr in [0.5, 1) */
        const int fl2 = e - 1;               /* floor(log2 amax) */
        switch (s->rule) {
        case FL_MX_CEIL:
            sh = (fr == 0.5 ? fl2 : fl2 + 1) - emax;
            break;
        case FL_MX_EVEN: {
            /* amax's significand rounded to mbits fraction bits, ties away */
            const double sig = ldexp(fr, 1);             /* [1, 2) */
            const double rs = floor(ldexp(sig, mbits) + 0.5);
            sh = (rs >= ldexp(1.0, mbits + 1) ? fl2 + 1 : fl2) - emax;
            break;
        }
        case FL_MX_RCEIL: {
            const float rcp = (float)(1.0 / maxval);
            const float d = (float)((double)(float)amax * (double)rcp);
            if (d == 0)
                sh = -127;
            else if (d < 0x1p-126f)
                sh = d > 0x1p-127f ? -126 : -127;
            else if (d >= 0x1p127f)
                sh = 127;   /* TE's satfinite: 0xFE does not round up */
            else {
                int ed;
                const double fd = frexp((double)d, &ed);
                sh = fd == 0.5 ? ed - 1 : ed;   /* ceil(log2 d) */
            }
            break;
        }
        default:
            sh = fl2 - emax;
        }
    }
    if (sh < -127)
        sh = -127;
    if (sh > 127) {
        m->scale = 0xFF;
        for (int i = 0; i < 32; i++)
            m->deq[i] = NAN;
        return;
    }
    m->scale = (uint8_t)(sh + 127);
    for (int i = 0; i < 32; i++) {
        const double P = ldexp((double)x[i], -sh);
        if (!f) {
            double k = s->rm == FL_RNA ? round(ldexp(P, 6))
                       : s->rm == FL_RTZ ? trunc(ldexp(P, 6)) : nearbyint(ldexp(P, 6));
            if (fabs(k) > 127) {
                k = k > 0 ? 127 : -127;
                m->sat++;
            }
            m->code[i] = (uint8_t)(int8_t)(int)k;
            m->deq[i] = (float)ldexp((double)(int)k, sh - 6);
        } else {
            fl_ctx c = fl_ctx_make(s->rm);
            unsigned fl = 0;
            c.saturate = 1;
            const uint64_t b = fl_from_double(f, P, &c, &fl);
            m->sat += (fl & FL_OVERFLOW) != 0;
            m->sub += fl_is_subnormal(f, b) != 0;
            m->code[i] = (uint8_t)b;
            m->deq[i] = (float)ldexp(fl_to_double(f, b), sh);
        }
        m->under += x[i] != 0 && m->deq[i] == 0;
    }
}

/* a random binary32 for a block: mostly a spread around a random binade,
 * with zeros, subnormals, ties of the element grid, and rarely NaN/Inf */
static float rand_elem(int center, int specials)
{
    const uint64_t r = rnd();
    const int k = (int)(r & 63);
    float v;
    if (specials && k == 0)
        v = NAN;
    else if (specials && k == 1)
        v = INFINITY;
    else if (k < 5)
        v = 0.0f;
    else if (k < 8)
        v = u2f((uint32_t)(r >> 8) & 0x7FFFFFu);   /* subnormal */
    else if (k < 12) {
        /* a multiple of a power of two plus a half: grid ties */
        v = ldexpf((float)((r >> 8) & 15) + 0.5f, center - 4 - (int)((r >> 16) & 15));
    } else {
        int e = center - (int)((r >> 8) % 40);
        if (e < -149)
            e = -149;
        v = ldexpf(1.0f + (float)((r >> 20) & 0xFFFFF) / 1048576.0f, e);
    }
    return (r >> 63) ? -v : v;
}

static void check_against_model(const char *name, int blocks_n)
{
    fl_scale_scheme s;
    if (!have_scheme(name, &s))
        return;
    enum { NB = 64 };
    static float x[NB * 32];
    static res r;
    for (int rep = 0; rep < blocks_n / NB; rep++) {
        for (int b = 0; b < NB; b++) {
            const int center = (int)(rnd() % 300) - 150;
            const int specials = (rnd() & 7) == 0;
            for (int i = 0; i < 32; i++)
                x[b * 32 + i] = rand_elem(center, specials);
        }
        for (int g = 0; g < 2; g++) {
            s.force_generic = g;
            quant(&s, x, NB * 32, NB * 32, &r);
            for (int b = 0; b < NB; b++) {
                model_out m;
                model_mx(&s, x + b * 32, &m);
                CHK(r.scales[b] == m.scale, "%s%s block %d: scale %u, model %u "
                              "(seed %" PRIu64 ")", name, g ? " generic" : "", b,
                              r.scales[b], m.scale, seed0);
                for (int i = 0; i < 32; i++) {
                    const float xi = x[b * 32 + i];
                    if (m.scale != 0xFF)
                        CHK(r.codes[b * 32 + i] == m.code[i],
                                      "%s%s x=%a: code 0x%02x, model 0x%02x (scale %u, "
                                      "seed %" PRIu64 ")", name, g ? " generic" : "",
                                      (double)xi, r.codes[b * 32 + i], m.code[i], m.scale,
                                      seed0);
                    CHK(same_f(r.deq[b * 32 + i], m.deq[i]),
                                  "%s%s x=%a: deq %a, model %a (seed %" PRIu64 ")", name,
                                  g ? " generic" : "", (double)xi,
                                  (double)r.deq[b * 32 + i], (double)m.deq[i], seed0);
                }
                if (m.scale != 0xFF) {
                    CHK(r.blocks[b].saturated == m.sat, "%s: saturated %u, model %u", name, r.blocks[b].saturated, m.sat);
                    CHK(r.blocks[b].subnormal == m.sub, "%s: subnormal %u, model %u", name, r.blocks[b].subnormal, m.sub);
                    CHK(r.blocks[b].underflow == m.under, "%s: underflow %u, model %u", name, r.blocks[b].underflow, m.under);
                }
                n_cases++;
            }
        }
    }
}

START_TEST(mx_random_blocks_match_model)
{
    static const char *names[] = {
        "mxfp8-e4m3", "mxfp8-e4m3:ceil", "mxfp8-e4m3:even", "mxfp8-e4m3:rceil",
        "mxfp8-e4m3:rna", "mxfp8-e4m3:rtz", "mxfp8-e5m2", "mxfp8-e5m2:rceil",
        "mxfp8-e5m2:even", "mxint8", "mxint8:ceil", "mxint8:rceil", "mxint8:even",
        "mxint8:rna", "mxint8:rtz", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1",
        "mxfp4-e2m1:rceil", "mxfp6-e3m2:rna", "mxfp4-e2m1:rtz",
    };
    for (size_t q = 0; q < sizeof names / sizeof names[0]; q++)
        check_against_model(names[q], 2048);
}
END_TEST

/* ---- fast kernels against the general route: a sweep ------------------ */

/* Every element code's neighbourhood at every shared exponent: for each
 * code c the values v_c, the midpoint to v_(c+1), and the binary32
 * neighbours of that midpoint, both signs, scaled by 2^s; blocks whose
 * amax 2^(s + emax) (or above it) fixes the shared exponent. */
static long sweep(const char *name)
{
    fl_scale_scheme s, g;
    if (!have_scheme(name, &s))
        return 0;
    g = s;
    g.force_generic = 1;
    const double maxval = fl_scale_elem_max(&s);
    const int emax = fl_scale_elem_emax(&s);
    /* the element grid's values in order: every nonnegative code */
    double grid[260];
    int ng = 0;
    for (int c = 0; c < 256 && ng < 259; c++) {
        const double v = fl_scale_elem_value(&s, (uint8_t)c);
        if (isfinite(v) && v >= 0 && !signbit(v) && v <= maxval) {
            int dup = 0;
            for (int j = 0; j < ng; j++)
                dup |= grid[j] == v;
            if (!dup)
                grid[ng++] = v;
        }
    }
    for (int i = 1; i < ng; i++)   /* insertion sort */
        for (int j = i; j > 0 && grid[j] < grid[j - 1]; j--) {
            const double t = grid[j];
            grid[j] = grid[j - 1];
            grid[j - 1] = t;
        }
    grid[ng] = 2 * maxval;   /* beyond the top: saturating values */
    static float cand[4096];
    int nc = 0;
    long blocks = 0;
    static float x[256 * 32];
    static res r1, r2;
    for (int sh = -127; sh <= 127; sh++) {
        nc = 0;
        for (int c = 0; c < ng && nc < 4000; c++) {
            const double mid = (grid[c] + grid[c + 1]) / 2;
            const float v = (float)ldexp(grid[c], sh), m = (float)ldexp(mid, sh);
            const float vals[4] = {v, m, nextafterf(m, INFINITY), nextafterf(m, 0)};
            for (int k = 0; k < 4; k++) {
                cand[nc++] = vals[k];
                cand[nc++] = -vals[k];
            }
        }
        /* blocks of 31 candidates and an amax that sets the exponent */
        const float amax = (float)ldexp(1.0, sh + emax);
        if (!(amax > 0) || isinf(amax))
            continue;
        int nb = 0;
        for (int p = 0; p < nc; p += 31) {
            for (int i = 0; i < 32; i++) {
                const int k = p + i - (i > (nb % 32));
                x[nb * 32 + i] = i == (nb % 32) ? ((nb & 1) ? -amax : amax)
                                 : (k < nc ? cand[k] : 0.0f);
            }
            nb++;
        }
        /* stochastic rounding: the bulk route, not the integer kernel */
        static const int rms[4] = {FL_RNE, FL_RNA, FL_RTZ, FL_RSR};
        for (int rule = 0; rule < FL_MX_RULE_COUNT; rule++)
            for (int q = 0; q < 4; q++) {
                s.rule = g.rule = rule;
                s.rm = g.rm = rms[q];
                quant(&s, x, (size_t)nb * 32, 32, &r1);
                quant(&g, x, (size_t)nb * 32, 32, &r2);
                for (int b = 0; b < nb; b++) {
                    CHK(r1.scales[b] == r2.scales[b], "%s 2^%d rule %d: scale",
                                  name, sh, rule);
                    for (int i = 0; i < 32; i++) {
                        const int j = b * 32 + i;
                        CHK(r1.codes[j] == r2.codes[j] &&
                                          f2u(r1.deq[j]) == f2u(r2.deq[j]),
                                      "%s rule %d %s x=%a: fast 0x%02x %a, generic 0x%02x "
                                      "%a", name, rule, fl_rm_name(rms[q]),
                                      (double)x[j], r1.codes[j], (double)r1.deq[j],
                                      r2.codes[j], (double)r2.deq[j]);
                    }
                    CHK(!memcmp(&r1.blocks[b], &r2.blocks[b], sizeof r1.blocks[b]), "%s: block stats differ", name);
                    blocks++;
                }
                CHK(!memcmp(&r1.o.stats, &r2.o.stats, sizeof r1.o.stats), "%s: stats differ", name);
            }
    }
    return blocks;
}

START_TEST(mx_fast_equals_generic_sweep)
{
    static const char *names[] = {"mxfp8-e4m3", "mxfp8-e5m2", "mxint8",
                                  "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4-e2m1"};
    for (size_t q = 0; q < sizeof names / sizeof names[0]; q++) {
        const long b = sweep(names[q]);
        if (b)
            printf("  sweep %s: %ld blocks fast = generic\n", names[q], b);
        ck_assert(b == 0 || b > 5000);   /* FP4 has 15 values: fewest blocks */
        n_cases += b > 0;
    }
}
END_TEST

START_TEST(mx_fast_equals_generic_random)
{
    static const char *names[] = {"mxfp8-e4m3", "mxfp8-e5m2", "mxint8", "mxfp6-e2m3",
                                  "mxfp6-e3m2", "mxfp4-e2m1"};
    enum { NB = 128 };
    static float x[NB * 32];
    static res r1, r2;
    for (size_t q = 0; q < sizeof names / sizeof names[0]; q++) {
        fl_scale_scheme s, g;
        if (!have_scheme(names[q], &s))
            continue;
        for (int rep = 0; rep < 96; rep++) {
            for (int b = 0; b < NB; b++) {
                const int center = (int)(rnd() % 300) - 150;
                const int specials = (rnd() & 15) == 0;
                for (int i = 0; i < 32; i++)
                    x[b * 32 + i] = rand_elem(center, specials);
            }
            s.rule = (int)(rnd() % FL_MX_RULE_COUNT);
            s.rm = (int[]){FL_RNE, FL_RNA, FL_RTZ, FL_RSR}[rnd() % 4];
            s.seed = rnd();
            g = s;
            g.force_generic = 1;
            quant(&s, x, NB * 32, 64, &r1);
            quant(&g, x, NB * 32, 64, &r2);
            CHK(!memcmp(r1.codes, r2.codes, NB * 32) &&
                              !memcmp(r1.scales, r2.scales, NB) &&
                              !memcmp(r1.deq, r2.deq, NB * 32 * 4) &&
                              !memcmp(r1.blocks, r2.blocks, NB * sizeof r1.blocks[0]) &&
                              !memcmp(&r1.o.stats, &r2.o.stats, sizeof r1.o.stats),
                          "%s rule %d rm %s: fast differs from generic (seed %" PRIu64 ")",
                          names[q], s.rule, fl_rm_name(s.rm), seed0);
            n_cases++;
        }
    }
}
END_TEST

/* ---- NVFP4 and per-tensor: the bulk route against element by element - */

typedef struct big {
    uint8_t *codes, *scales;
    float *deq;
    fl_scale_block_stats *blocks;
    fl_scale_out o;
} big;

static void big_quant(const fl_scale_scheme *s, const float *x, size_t n, int use_scale,
                      float scale, big *r)
{
    char err[256];
    memset(&r->o, 0, sizeof r->o);
    r->o.codes = r->codes;
    r->o.scales = r->scales;
    r->o.dequant = r->deq;
    r->o.blocks = r->blocks;
    const int rc = use_scale ? fl_scale_quantize_with_scale(s, x, n, scale, &r->o, err,
                                                            sizeof err)
                             : fl_scale_quantize(s, x, n, n, &r->o, err, sizeof err);
    CHK(rc == 0, "%s: %s", s->name, err);
}

/* Tensors crossing the bulk route's pieces (4096 values, 256 NVFP4
 * blocks), values around random binades with zeros, subnormals, grid ties
 * and specials; for the per-tensor schemes also given scales that
 * saturate, overflow binary32 (x * scale = Inf) and make Inf * 0 = NaN. */
START_TEST(bulk_route_equals_generic)
{
    static const char *names[] = {
        "nvfp4", "nvfp4:rna", "nvfp4:rtz", "nvfp4:sr",
        "fp8-e4m3-tensor", "fp8-e5m2-tensor", "fp8-e4m3-tensor:nonsat",
        "fp8-e5m2-tensor:nonsat", "fp8-e4m3-tensor:sr", "fp8-e5m2-tensor:rtz",
        "fp8-e4m3-tensor:pow2", "fp8-e4m3-tensor:rna",
    };
    enum { N = 3 * 4096 + 7 * 16 };
    static float x[N];
    static uint8_t c1[N], c2[N], s1[N / 16], s2[N / 16];
    static float d1[N], d2[N];
    static fl_scale_block_stats b1[N / 16], b2[N / 16];
    big r1 = {c1, s1, d1, b1, {0}}, r2 = {c2, s2, d2, b2, {0}};
    long elems = 0;
    for (size_t q = 0; q < sizeof names / sizeof names[0]; q++) {
        fl_scale_scheme s, g;
        if (!have_scheme(names[q], &s))
            continue;
        const int tensor = s.kind == FL_SCALE_TENSOR;
        for (int rep = 0; rep < 24; rep++) {
            const int specials = rep % 3 == 0;
            int center = (int)(rnd() % 80) - 40;
            for (int i = 0; i < N; i++) {
                if (i % 16 == 0 && (rnd() & 3) == 0)
                    center = (int)(rnd() % 80) - 40;   /* blocks of other binades */
                x[i] = rand_elem(center, specials);
            }
            s.seed = rnd();
            g = s;
            g.force_generic = 1;
            /* per-tensor: the scheme's own scale, then given ones */
            static const float given[] = {0.0f, 1.0f, 0x1p100f, 0x1p-100f, 3.0e38f,
                                          0x1p-149f};
            const int nsc = tensor ? 1 + (int)(sizeof given / sizeof given[0]) : 1;
            for (int k = 0; k < nsc; k++) {
                const float sc = k ? given[k - 1] : 0.0f;
                big_quant(&s, x, N, k > 0, sc, &r1);
                big_quant(&g, x, N, k > 0, sc, &r2);
                const size_t nb = tensor ? 1 : N / 16;
                for (int i = 0; i < N; i++)
                    CHK(c1[i] == c2[i] && f2u(d1[i]) == f2u(d2[i]),
                        "%s scale %a x=%a: bulk 0x%02x %a, generic 0x%02x %a (seed %" PRIu64
                        ")", names[q], (double)sc, (double)x[i], c1[i], (double)d1[i], c2[i],
                        (double)d2[i], seed0);
                CHK(tensor || !memcmp(s1, s2, nb), "%s: block scales differ (seed %" PRIu64
                    ")", names[q], seed0);
                CHK(!memcmp(b1, b2, nb * sizeof b1[0]), "%s scale %a: block statistics "
                    "differ (seed %" PRIu64 ")", names[q], (double)sc, seed0);
                CHK(!memcmp(&r1.o.stats, &r2.o.stats, sizeof r1.o.stats) &&
                    !memcmp(&r1.o.tensor, &r2.o.tensor, sizeof r1.o.tensor),
                    "%s scale %a: statistics differ (seed %" PRIu64 ")", names[q],
                    (double)sc, seed0);
                elems += N;
                n_cases++;
            }
        }
    }
    printf("  bulk route = element by element: %ld values\n", elems);
}
END_TEST

/* skip_stats and missing outputs change nothing in what is written */
START_TEST(mx_outputs_independent)
{
    fl_scale_scheme s;
    enum { N = 2048 };
    static float x[N];
    static res r1;
    static uint8_t codes[N], scales[N / 32];
    ck_assert(have_scheme("mxfp8-e4m3", &s));
    for (int i = 0; i < N; i++)
        x[i] = rand_elem(0, 1);
    quant(&s, x, N, 256, &r1);
    fl_scale_out o;
    char err[128];
    memset(&o, 0, sizeof o);
    o.codes = codes;
    o.scales = scales;
    o.skip_stats = 1;
    ck_assert_int_eq(fl_scale_quantize(&s, x, N, 256, &o, err, sizeof err), 0);
    ck_assert(!memcmp(codes, r1.codes, N) && !memcmp(scales, r1.scales, N / 32));
    ck_assert_uint_eq(o.stats.n, 0);
    /* dequantizing the codes gives the quantizer's dequant output */
    static float d2[N];
    ck_assert_int_eq(fl_scale_dequantize(&s, codes, scales, NULL, N, 256, d2, err,
                                         sizeof err), 0);
    for (int i = 0; i < N; i++)
        CHK(same_f(d2[i], r1.deq[i]), "element %d: dequantize %a, quantizer %a", i,
            (double)d2[i], (double)r1.deq[i]);
    n_cases += 3 + N;
}
END_TEST

/* ---- NVFP4 ------------------------------------------------------------ */

/* E2M1 codes of the TE reference's thresholds: 0 0.5 1 1.5 2 3 4 6. */
START_TEST(nvfp4_two_level_scales)
{
    fl_scale_scheme s;
    if (!have_scheme("nvfp4", &s))
        return;
    res r;
    float x[32];
    /* tensor amax 2688 = 448 * 6: S_enc = 1, S_dec = 1.  Block 0 has amax
     * 6: d = 6 * binary32(1/6) = 1 -> E4M3 1.0 (0x38), enc = 1. */
    fill(x, 32, 0.0f);
    x[0] = 6.0f;
    x[1] = 0.25f;    /* tie 0 / 0.5: even 0 */
    x[2] = 0.75f;    /* tie 0.5 / 1: even 1 (code 2) */
    x[3] = 5.0f;     /* tie 4 / 6: even 4 (code 6) */
    x[4] = -3.0f;    /* 0xD */
    x[5] = 1.25f;    /* tie 1 / 1.5: even 1 (code 2) */
    x[16] = 2688.0f; /* block 1: amax 2688 -> d = 448 -> E4M3 448 (0x7E) */
    x[17] = 1000.0f; /* enc = 1/448: 2.232... -> 2 (code 4) */
    quant(&s, x, 32, 32, &r);
    ck_assert(r.o.tensor.amax == 2688.0f && r.o.tensor.scale == 1.0f &&
              r.o.tensor.scale_inv == 1.0f);
    ck_assert_uint_eq(r.scales[0], 0x38);
    ck_assert_uint_eq(r.scales[1], 0x7E);
    const uint8_t want[6] = {0x7, 0x0, 0x2, 0x6, 0xD, 0x2};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(r.codes[i] == want[i], "element %d: code 0x%x", i, r.codes[i]);
    ck_assert_uint_eq(r.codes[16], 0x7);
    ck_assert_uint_eq(r.codes[17], 0x4);
    ck_assert(r.deq[17] == 896.0f && r.deq[3] == 4.0f);
    ck_assert_uint_eq(r.o.stats.underflow, 1);   /* 0.25 */
    n_cases += 13;

    /* a small tensor: amax 0.6 -> S_enc = binary32(2688 / 0.6); the block
     * scale d = 0.6 * binary32(S_enc * binary32(1/6)) = 448 (to binary32
     * rounding) -> 0x7E; elements 0.6 * enc map to ~6 */
    fill(x, 32, 0.0f);
    x[0] = 0.6f;
    x[1] = 0.3f;
    x[2] = -0.05f;
    quant(&s, x, 32, 32, &r);
    const float senc = 2688.0f / 0.6f;
    ck_assert(r.o.tensor.scale == senc);
    ck_assert(r.o.tensor.scale_inv == 1.0f / senc);
    ck_assert_uint_eq(r.scales[0], 0x7E);
    ck_assert_uint_eq(r.scales[1], 0x00);        /* all-zero block: scale 0 */
    ck_assert_uint_eq(r.codes[0], 0x7);
    ck_assert_uint_eq(r.codes[1], 0x5);          /* ~3 */
    ck_assert_uint_eq(r.codes[2], 0x9);          /* -0.05 * 10 = -0.5 */
    n_cases += 7;
}
END_TEST

START_TEST(nvfp4_specials)
{
    fl_scale_scheme s;
    if (!have_scheme("nvfp4", &s))
        return;
    res r;
    float x[48];
    /* zero tensor: S_enc = 1 (TE's kernel), scales 0, codes 0 */
    fill(x, 48, 0.0f);
    quant(&s, x, 48, 48, &r);
    ck_assert(r.o.tensor.scale == 1.0f && r.scales[0] == 0 && r.codes[5] == 0);
    /* a NaN block: E4M3 NaN scale, codes 0, NaN; the tensor amax ignores
     * the NaN */
    fill(x, 48, 1.0f);
    x[20] = NAN;
    quant(&s, x, 48, 48, &r);
    ck_assert_uint_eq(r.scales[1], 0x7F);
    ck_assert(isnan(r.deq[16]) && r.codes[16] == 0 && r.o.tensor.amax == 1.0f);
    ck_assert_uint_eq(r.o.stats.lost, 15);
    ck_assert_uint_eq(r.scales[0], r.scales[2]);
    /* an Inf: amax Inf, S_enc = 1; the Inf saturates to 6 * 448 */
    fill(x, 48, 1.0f);
    x[3] = INFINITY;
    quant(&s, x, 48, 48, &r);
    ck_assert(r.o.tensor.scale == 1.0f);
    ck_assert_uint_eq(r.scales[0], 0x7E);
    ck_assert(r.deq[3] == 2688.0f);
    n_cases++;
    /* a block far below the tensor's range: its scale rounds to zero and
     * every element underflows */
    fill(x, 48, 0x1p-20f);
    x[40] = 1000.0f;
    quant(&s, x, 48, 48, &r);
    ck_assert_uint_eq(r.scales[0], 0);
    ck_assert(r.deq[0] == 0.0f);
    /* 32 in the two zero-scale blocks, and the 15 small elements beside
     * the 1000 in block 2 (2^-20 * 6 / 1000 is far below 0.25) */
    ck_assert_uint_eq(r.o.stats.underflow, 47);
    ck_assert_uint_eq(r.blocks[0].underflow, 16);
    ck_assert_uint_eq(r.o.stats.saturated, 0);
    n_cases += 12;
}
END_TEST

/* NVFP4 by the TE reference's formulas in binary32 (host float arithmetic,
 * which is IEEE binary32 here), against the library on random tensors. */
START_TEST(nvfp4_random_match_reference_formulas)
{
    fl_scale_scheme s;
    if (!have_scheme("nvfp4", &s))
        return;
    enum { N = 1024 };
    static float x[N];
    static res r;
    const fl_format *e4 = fl_format_by_name("float8_e4m3fn");
    if (!e4)
        e4 = fl_format_by_name("fp8-e4m3");
    for (int rep = 0; rep < 64; rep++) {
        const int center = (int)(rnd() % 60) - 30;
        for (int i = 0; i < N; i++)
            x[i] = rand_elem(center - (int)((i / 16) % 8), 0);
        quant(&s, x, N, 256, &r);
        float A = 0;
        for (int i = 0; i < N; i++)
            A = fmaxf(A, fabsf(x[i]));
        volatile float senc = 2688.0f / A;
        if (isinf(senc))
            senc = FLT_MAX;
        if (A == 0 || senc == 0)
            senc = 1.0f;
        volatile float sdec = 1.0f / senc, six = 1.0f / 6.0f;
        volatile float mult = senc * six;
        CHK(r.o.tensor.scale == senc && r.o.tensor.scale_inv == sdec, "tensor scales (seed %" PRIu64 ")", seed0);
        for (int b = 0; b < N / 16; b++) {
            float ab = 0;
            for (int i = 0; i < 16; i++)
                ab = fmaxf(ab, fabsf(x[b * 16 + i]));
            volatile float d = ab * mult;
            if (d > 448.0f)
                d = 448.0f;
            fl_ctx c = FL_CTX_INIT;
            unsigned fl = 0;
            c.saturate = 1;
            const uint8_t sc = (uint8_t)fl_from_float(e4, d, &c, &fl);
            CHK(r.scales[b] == sc, "block %d: scale 0x%02x, want 0x%02x (seed "
                          "%" PRIu64 ")", b, r.scales[b], sc, seed0);
            const float sv = fl_to_float(e4, sc);
            volatile float den = sv * sdec;
            volatile float enc = 1.0f / den;
            if (isinf(enc))
                enc = FLT_MAX;
            for (int i = 0; i < 16; i++) {
                volatile float y = x[b * 16 + i] * enc;
                const uint8_t q = (uint8_t)fl_from_float(s.elem, y, &c, &fl);
                CHK(r.codes[b * 16 + i] == q, "x=%a: code 0x%x, want 0x%x",
                              (double)x[b * 16 + i], r.codes[b * 16 + i], q);
            }
            n_cases++;
        }
    }
}
END_TEST

/* ---- FP8 per-tensor: current and delayed scaling ----------------------- */

START_TEST(tensor_current_scaling)
{
    fl_scale_scheme s;
    res r;
    float x[8] = {2.0f, -1.0f, 0.001f, 0.0f, 1e-7f, 1.5f, -2.0f, 0.5f};
    ck_assert(have_scheme("fp8-e4m3-tensor", &s));
    quant(&s, x, 8, 8, &r);
    /* amax 2: scale = 448 / 2 = 224, scale_inv = binary32(1/224) */
    ck_assert(r.o.tensor.amax == 2.0f && r.o.tensor.scale == 224.0f);
    ck_assert(r.o.tensor.scale_inv == 1.0f / 224.0f);
    ck_assert_uint_eq(r.codes[0], 0x7E);          /* 448 */
    ck_assert_uint_eq(r.codes[6], 0xFE);
    ck_assert_uint_eq(r.codes[1], 0xF6);          /* -224 = -1.75 * 2^7 */
    ck_assert(r.deq[0] == 448.0f * (1.0f / 224.0f));
    ck_assert_uint_eq(r.codes[4], 0x00);          /* 2.24e-5: underflow */
    ck_assert_uint_eq(r.o.stats.underflow, 1);
    n_cases += 8;
    /* amax 0 -> scale 1; amax Inf -> scale 0, everything lost */
    float z[4] = {0.0f, -0.0f, 0.0f, 0.0f};
    quant(&s, z, 4, 4, &r);
    ck_assert(r.o.tensor.scale == 1.0f && r.o.tensor.scale_inv == 1.0f);
    float w[4] = {1.0f, INFINITY, 2.0f, 0.0f};
    quant(&s, w, 4, 4, &r);
    ck_assert(r.o.tensor.scale == 0.0f && isinf(r.o.tensor.scale_inv));
    ck_assert_uint_eq(r.o.stats.lost, 3);
    /* pow2: 448 / 3 = 149.33 -> 128 */
    float p[2] = {3.0f, 1.0f};
    ck_assert(have_scheme("fp8-e4m3-tensor:pow2", &s));
    quant(&s, p, 2, 2, &r);
    ck_assert(r.o.tensor.scale == 128.0f);
    /* a tiny amax: 448 / 1e-40 overflows -> FLT_MAX */
    float t[2] = {1e-40f, 0.0f};
    ck_assert(have_scheme("fp8-e4m3-tensor", &s));
    quant(&s, t, 2, 2, &r);
    ck_assert(r.o.tensor.scale == FLT_MAX);
    n_cases += 5;
}
END_TEST

START_TEST(tensor_with_scale_saturation)
{
    fl_scale_scheme s;
    res r;
    char err[128];
    float x[4] = {1.0f, 3.0f, -5.0f, NAN};
    /* a stale scale of 200: 3 * 200 = 600 overflows E4M3 */
    ck_assert(have_scheme("fp8-e4m3-tensor", &s));
    memset(&r, 0, sizeof r);
    r.o.codes = r.codes;
    r.o.dequant = r.deq;
    ck_assert_int_eq(fl_scale_quantize_with_scale(&s, x, 4, 200.0f, &r.o, err,
                                                  sizeof err), 0);
    ck_assert_uint_eq(r.codes[1], 0x7E);          /* saturated to 448 */
    ck_assert_uint_eq(r.codes[2], 0xFE);
    ck_assert(isnan(r.deq[3]));
    ck_assert_uint_eq(r.o.stats.saturated, 2);
    ck_assert(have_scheme("fp8-e4m3-tensor:nonsat", &s));
    ck_assert_int_eq(fl_scale_quantize_with_scale(&s, x, 4, 200.0f, &r.o, err,
                                                  sizeof err), 0);
    ck_assert_uint_eq(r.codes[1], 0x7F);          /* E4M3FN NaN */
    ck_assert(isnan(r.deq[1]));
    ck_assert_uint_eq(r.o.stats.saturated, 2);
    ck_assert(have_scheme("fp8-e5m2-tensor:nonsat", &s));
    ck_assert_int_eq(fl_scale_quantize_with_scale(&s, x, 4, 20000.0f, &r.o, err,
                                                  sizeof err), 0);
    ck_assert_uint_eq(r.codes[1], 0x7B);          /* 60000 < 61440: 57344 */
    ck_assert_uint_eq(r.codes[2], 0xFC);          /* -100000 -> -inf */
    ck_assert(isinf(r.deq[2]));
    n_cases += 11;
}
END_TEST

static float ds_step(fl_scale_delayed *d, float amax)
{
    /* a tensor whose amax is the given value */
    float x[2] = {amax, -amax / 4};
    fl_scale_out o;
    char err[128];
    memset(&o, 0, sizeof o);
    const float used = d->scale;
    ck_assert_int_eq(fl_scale_delayed_quantize(d, x, 2, &o, err, sizeof err), 0);
    ck_assert(o.tensor.scale == used);
    fl_scale_delayed_update(d);
    return d->scale;
}

START_TEST(delayed_scaling_histories)
{
    fl_scale_scheme s;
    fl_scale_delayed d;
    char err[128];
    ck_assert(have_scheme("fp8-e4m3-tensor", &s));
    /* length 3, max, margin 0: the amax 4 of step 2 governs steps 2..4 and
     * ages out after three updates */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 3, FL_DS_MAX, 0, err, sizeof err), 0);
    ck_assert(d.scale == 1.0f);
    const float a1[5] = {2, 4, 1, 0.5f, 0.5f}, w1[5] = {224, 112, 112, 112, 448};
    for (int t = 0; t < 5; t++) {
        const float sc = ds_step(&d, a1[t]);
        ck_assert_msg(sc == w1[t], "max step %d: scale %g, want %g", t + 1, sc, w1[t]);
    }
    /* history after step 5: [0, 0.5, 0.5] */
    ck_assert(d.history[0] == 0 && d.history[1] == 0.5f && d.history[2] == 0.5f);
    fl_scale_delayed_free(&d);
    n_cases += 7;

    /* most_recent: the scale follows the last amax */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 3, FL_DS_MOST_RECENT, 0, err,
                                           sizeof err), 0);
    const float w2[5] = {224, 112, 448, 896, 896};
    for (int t = 0; t < 5; t++)
        ck_assert(ds_step(&d, a1[t]) == w2[t]);
    fl_scale_delayed_free(&d);
    n_cases += 5;

    /* margin 1: fp8_max / amax / 2 */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 4, FL_DS_MAX, 1, err, sizeof err), 0);
    ck_assert(ds_step(&d, 2) == 112);
    ck_assert(ds_step(&d, 8) == 28);
    fl_scale_delayed_free(&d);
    n_cases += 2;

    /* a step with amax 0: TE's fused update neither rolls nor rescales;
     * roll_zero (the single-tensor kernel) rolls and rescales from the
     * history */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 2, FL_DS_MAX, 0, err, sizeof err), 0);
    ck_assert(ds_step(&d, 4) == 112);     /* history [0, 4] */
    ck_assert(ds_step(&d, 0) == 112);     /* not rolled: [0, 4] */
    ck_assert(d.history[1] == 4);
    ck_assert(ds_step(&d, 1) == 112);     /* max(1, 4); rolled: [0, 1] */
    ck_assert(ds_step(&d, 1) == 448);
    fl_scale_delayed_free(&d);
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 2, FL_DS_MAX, 0, err, sizeof err), 0);
    d.roll_zero = 1;
    ck_assert(ds_step(&d, 4) == 112);     /* [0, 4] */
    ck_assert(ds_step(&d, 0) == 112);     /* max over [0, 4]; rolled: [0, 0] */
    ck_assert(ds_step(&d, 0) == 112);     /* amax 0: scale kept */
    ck_assert(ds_step(&d, 1) == 448);
    fl_scale_delayed_free(&d);
    n_cases += 9;

    /* Inf freezes the scale while it is in the history; NaN is ignored */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 2, FL_DS_MAX, 0, err, sizeof err), 0);
    ck_assert(ds_step(&d, 2) == 224);
    ck_assert(ds_step(&d, INFINITY) == 224);   /* [0, inf] */
    ck_assert(ds_step(&d, 1) == 224);          /* max(1, inf) = inf: kept; [0, 1] */
    ck_assert(ds_step(&d, 1) == 448);
    fl_scale_delayed_record(&d, NAN);
    ck_assert(d.history[0] == 0);
    fl_scale_delayed_free(&d);
    n_cases += 5;

    /* an amax so small that the scale overflows: FLT_MAX */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 1, FL_DS_MAX, 0, err, sizeof err), 0);
    fl_scale_delayed_record(&d, 1e-40f);
    fl_scale_delayed_update(&d);
    ck_assert(d.scale == FLT_MAX);
    fl_scale_delayed_free(&d);
    /* bad arguments */
    ck_assert_int_eq(fl_scale_delayed_init(&d, &s, 0, FL_DS_MAX, 0, err, sizeof err), -1);
    ck_assert(strstr(err, "history length 0"));
    ck_assert(fl_scale_delayed_algo_parse("most_recent") == FL_DS_MOST_RECENT &&
              fl_scale_delayed_algo_parse("mean") == -1);
    ck_assert_str_eq(fl_scale_hybrid(0), "fp8-e4m3-tensor");
    ck_assert_str_eq(fl_scale_hybrid(1), "fp8-e5m2-tensor");
    n_cases += 6;
}
END_TEST

/* ---- names, options, shapes ------------------------------------------- */

START_TEST(scheme_names_and_errors)
{
    fl_scale_scheme s;
    char err[512];
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxfp8-e4m3:rceil:rna", err, sizeof err), 0);
    ck_assert_str_eq(s.name, "mxfp8-e4m3:rceil:rna");
    ck_assert(s.rule == FL_MX_RCEIL && s.rm == FL_RNA && s.block == 32);
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxfp8-e4m3:floor:rne", err, sizeof err), 0);
    ck_assert_str_eq(s.name, "mxfp8-e4m3");
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxfp9", err, sizeof err), -1);
    ck_assert(strstr(err, "unknown scheme 'mxfp9'"));
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "fp8-e4m3-tensor:rceil", err, sizeof err), -1);
    ck_assert(strstr(err, "mx schemes only"));
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxint8:pow2", err, sizeof err), -1);
    ck_assert(strstr(err, "per-tensor schemes only"));
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxint8:ceil:even", err, sizeof err), -1);
    ck_assert(strstr(err, "more than one scale rule"));
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxint8:", err, sizeof err), -1);
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxint8:bogus", err, sizeof err), -1);
    ck_assert(strstr(err, "unknown option 'bogus'"));
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "", err, sizeof err), -1);
    ck_assert_uint_eq(fl_scale_scheme_count(), 9);
    ck_assert_str_eq(fl_scale_scheme_base(6), "nvfp4");
    /* shapes */
    float x[66] = {0};
    fl_scale_out o;
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(fl_scale_scheme_parse(&s, "mxfp8-e4m3", err, sizeof err), 0);
    ck_assert_int_eq(fl_scale_quantize(&s, x, 66, 33, &o, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "length 33") && strstr(err, "block size 32"), "%s", err);
    ck_assert_int_eq(fl_scale_quantize(&s, x, 66, 64, &o, err, sizeof err), -1);
    ck_assert(strstr(err, "whole rows of 64"));
    ck_assert_int_eq(fl_scale_quantize(&s, x, 64, 64, &o, err, sizeof err), 0);
    /* dequantize refuses codes wider than the element */
    uint8_t c[32] = {0}, sc[1] = {127};
    float d[32];
    fl_scale_scheme t;
    if (have_scheme("mxfp4-e2m1", &t)) {
        c[3] = 0x10;
        ck_assert_int_eq(fl_scale_dequantize(&t, c, sc, NULL, 32, 32, d, err, sizeof err), -1);
        ck_assert(strstr(err, "element 3") && strstr(err, "4-bit"));
    }
    n_cases += 27;
}
END_TEST

int main(void)
{
    rng_state = seed0 = tc_seed("test_scale");
    const TTest *tests[] = {
        mx_e4m3_max_power_of_two,
        mx_e4m3_max_just_below_power_of_two_saturates,
        mx_zero_nan_inf_blocks, mx_e4m3_subnormal_elements,
        mx_scale_clamped_at_minus_127, mx_e5m2_block, mxint8_block,
        mx_scale_rules_e4m3, mx_rounding_modes, mx_stochastic_rounding,
        element_and_scale_codes, mx_fp4_fp6_blocks,
        mx_random_blocks_match_model, mx_fast_equals_generic_sweep,
        mx_fast_equals_generic_random, mx_outputs_independent,
        bulk_route_equals_generic, nvfp4_two_level_scales, nvfp4_specials,
        nvfp4_random_match_reference_formulas, tensor_current_scaling,
        tensor_with_scale_saturation, delayed_scaling_histories,
        scheme_names_and_errors, NULL };
    const int failed = tc_run_suite("scale", tc_tcase("scale", 600, tests),
                                    TC_IN_PROCESS);
    /* The count is deterministic (fixed random block counts). */
    int rc = tc_exit_counted("test_scale", failed, n_cases, 94851);
    /* Every scheme must be there (the core has every MX element format). */
    printf("test_scale: %ld scheme(s) skipped for missing element formats\n",
           n_skipped_formats);
    return n_skipped_formats ? EXIT_FAILURE : rc;
}
