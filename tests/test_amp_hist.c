/*
 * test_amp_hist.c — histogram binning, range statistics, and the exact
 * rounding helpers of the simulator, on constructed data.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "amp.h"
#include "amp_flush.h"
#include "test_common.h"
#include "test_check.h"

static int n_cases;

START_TEST(hist_bins_constructed)
{
    amp_hist h;
    ck_assert_int_eq(amp_hist_init(&h, -40, 16), 0);
    const float g[] = {1.0f, 1.5f, 0x1.fffffep-1f, 0x1p-40f, 0x1p-41f,
                       0x1p16f, 0x1.fffffep15f, 0.0f, -0.0f, INFINITY, NAN,
                       -3.0f};
    amp_hist_add(&h, g, sizeof g / sizeof g[0], 1.0f);
    ck_assert_uint_eq(h.bins[0 + 40], 2);        /* 1, 1.5 */
    ck_assert_uint_eq(h.bins[-1 + 40], 1);       /* just below 1 */
    ck_assert_uint_eq(h.bins[0], 1);             /* 2^-40 is the first bin */
    ck_assert_uint_eq(h.below, 1);               /* 2^-41 */
    ck_assert_uint_eq(h.above, 1);               /* 2^16 */
    ck_assert_uint_eq(h.bins[15 + 40], 1);       /* just below 2^16 */
    ck_assert_uint_eq(h.zeros, 2);
    ck_assert_uint_eq(h.nonfinite, 2);
    ck_assert_uint_eq(h.bins[1 + 40], 1);        /* |-3| in [2, 4) */
    ck_assert_uint_eq(h.total, 12);
    uint64_t sum = h.zeros + h.nonfinite + h.below + h.above;
    for (int k = 0; k < h.hi - h.lo; k++)
        sum += h.bins[k];
    ck_assert_uint_eq(sum, h.total);
    n_cases += 11;
    /* scale shifts bins: 2^-30 * 2^16 = 2^-14 */
    amp_hist_reset(&h);
    const float t = 0x1p-30f;
    amp_hist_add(&h, &t, 1, 0x1p16f);
    ck_assert_uint_eq(h.bins[-14 + 40], 1);
    /* the product is not rounded: 0x1.fffffcp0 * 0x1.000002p0 is below 2
     * exactly although its binary32 rounding is 2 */
    amp_hist_reset(&h);
    const float u = 0x1.fffffcp0f;
    volatile float sc = 0x1.000002p0f;
    ck_assert(u * sc == 2.0f);
    amp_hist_add(&h, &u, 1, sc);
    ck_assert_uint_eq(h.bins[0 + 40], 1);
    ck_assert_uint_eq(h.bins[1 + 40], 0);
    n_cases += 3;
    /* merge */
    amp_hist h2;
    ck_assert_int_eq(amp_hist_init(&h2, -40, 16), 0);
    ck_assert_int_eq(amp_hist_merge(&h2, &h), 0);
    ck_assert_uint_eq(h2.total, 1);
    amp_hist h3;
    ck_assert_int_eq(amp_hist_init(&h3, -20, 16), 0);
    ck_assert_int_eq(amp_hist_merge(&h3, &h), -1);
    amp_hist_free(&h3);
    ck_assert_int_eq(amp_hist_init(&h3, 5, 5), -1);
    amp_hist_free(&h);
    amp_hist_free(&h2);
    n_cases += 3;
}
END_TEST

START_TEST(range_stats_binary16_boundaries)
{
    amp_range_stats s = {0};
    const float g[] = {
        0.0f,                 /* zero in fp32 */
        0x1p-25f,             /* tie at half the least subnormal -> 0 */
        -0x1p-25f,            /* same, negative */
        0x1.000002p-25f,      /* just above: rounds to 2^-24 (subnormal) */
        0x1p-24f,             /* least subnormal */
        0x1.ff8p-15f,         /* largest subnormal 2^-14 - 2^-24 */
        0x1.ffcp-15f,         /* tie below 2^-14: rounds up to normal */
        0x1.ffbp-15f,         /* just below that tie: subnormal */
        0x1p-14f,             /* least normal */
        65504.0f,             /* largest finite */
        65519.0f,             /* rounds down to 65504 */
        65520.0f,             /* tie above max: rounds to inf */
        1e30f,                /* overflow */
        INFINITY, NAN         /* non-finite in fp32 */
    };
    amp_range_stats_add(&s, &fl_binary16, g, 15, 1.0f);
    ck_assert_uint_eq(s.total, 15);
    ck_assert_uint_eq(s.zero_fp32, 1);
    ck_assert_uint_eq(s.underflow, 2);
    ck_assert_uint_eq(s.subnormal, 4);
    ck_assert_uint_eq(s.overflow, 2);
    ck_assert_uint_eq(s.nonfinite, 2);
    n_cases += 6;
    /* the scale moves values across: 2^-30 underflows at 1, lands in the
     * subnormals at 2^8 and is normal at 2^16; 2^2 overflows at 2^14 */
    amp_range_stats a = {0}, b = {0}, c = {0}, d = {0};
    const float t = 0x1p-30f, big = 4.0f;
    amp_range_stats_add(&a, &fl_binary16, &t, 1, 1.0f);
    amp_range_stats_add(&b, &fl_binary16, &t, 1, 0x1p8f);
    amp_range_stats_add(&c, &fl_binary16, &t, 1, 0x1p16f);
    amp_range_stats_add(&d, &fl_binary16, &big, 1, 0x1p14f);
    ck_assert_uint_eq(a.underflow, 1);
    ck_assert_uint_eq(b.subnormal, 1);
    ck_assert_uint_eq(c.underflow + c.subnormal + c.overflow, 0);
    ck_assert_uint_eq(d.overflow, 1);
    amp_range_stats_merge(&a, &b);
    ck_assert_uint_eq(a.total, 2);
    n_cases += 5;
}
END_TEST

/* The threshold fast path against the core's own rounding: a saturating
 * copy of binary16 takes the generic path (overflow is still flagged), so
 * both must classify random data identically. */
START_TEST(range_stats_fast_path_matches_core)
{
    const uint64_t seed = tc_seed("range_stats_fast_path_matches_core");
    fl_format sat;
    char err[128];
    ck_assert_int_eq(fl_format_make(&sat, "sat16", 5, 11, FL_NANSTYLE_IEEE,
                                     1, 1, err, sizeof err), 0);
    enum { N = 20000 };
    static float g[N];
    uint64_t s = seed;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        /* exponents 2^-34 .. 2^21 around fp16's edges, random mantissa */
        int ex = (int)((s >> 40) % 56) - 34;
        float m = 1.0f + (float)((s >> 8) & 0xFFFFFF) * 0x1p-24f;
        g[i] = ldexpf(((s >> 7) & 1) ? -m : m, ex);
    }
    amp_range_stats a = {0}, b = {0};
    amp_range_stats_add(&a, &fl_binary16, g, N, 1.0f);
    amp_range_stats_add(&b, &sat, g, N, 1.0f);
    ck_assert_uint_eq(a.underflow, b.underflow);
    ck_assert_uint_eq(a.subnormal, b.subnormal);
    ck_assert_uint_eq(a.overflow, b.overflow);
    ck_assert(a.underflow > 0 && a.subnormal > 0 && a.overflow > 0);
    n_cases += 4;
}
END_TEST

START_TEST(add_round_is_one_rounding)
{
    /* 1 + (2^-11 + 2^-34): binary32 first would round to the tie 1+2^-11
     * and then to even (1); one correct rounding gives 1 + 2^-10. */
    const float w = 1.0f, dw = 0x1p-11f + 0x1p-34f;
    float r;
    amp_add_round(&fl_binary16, &r, &w, &dw, 1, NULL);
    ck_assert(r == 1.0f + 0x1p-10f);
    float naive = w + dw;
    amp_round(&fl_binary16, &naive, 1, NULL);
    ck_assert(naive == 1.0f);
    /* far apart operands: the tiny one decides the direction */
    const float w2 = 0x1p10f + 0x1p0f, tiny = -0x1p-100f;   /* 1025 - tiny */
    amp_add_round(&fl_binary16, &r, &w2, &tiny, 1, NULL);
    ck_assert(r == 1025.0f);                 /* representable: stays */
    const float w3 = 2049.0f;                /* tie in fp16 (ulp 2) */
    amp_add_round(&fl_binary16, &r, &w3, &tiny, 1, NULL);
    ck_assert(r == 2048.0f);                 /* just below the tie */
    n_cases += 4;
}
END_TEST

START_TEST(accumulation_policies)
{
    /* 4096 ones: an fp16 accumulator stagnates at 2048 (2048 + 1 ties to
     * even), binary32 accumulation is exact and 4096 is an fp16 value. */
    enum { N = 4096 };
    static float ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = 1.0f;
    amp_accum lo = {.kind = AMP_ACC_LOW}, f32 = {.kind = AMP_ACC_F32},
              ka = {.kind = AMP_ACC_KAHAN}, pw = {.kind = AMP_ACC_PAIRWISE};
    ck_assert(amp_dot(&lo, &fl_binary16, ones, 1, ones, 1, N, NULL) == 2048.0f);
    ck_assert(amp_dot(&f32, &fl_binary16, ones, 1, ones, 1, N, NULL) == 4096.0f);
    /* 1 followed by 1000 x 2^-25 in binary32: sequential stays 1, Kahan
     * gets the correctly rounded 1 + 1000*2^-25, the pairwise tree loses
     * a few 2^-25 in the subtrees holding the 1 (hand-simulated: 996) */
    static float v[1001];
    v[0] = 1.0f;
    for (int i = 1; i <= 1000; i++)
        v[i] = 0x1p-25f;
    ck_assert(amp_dot(&f32, &fl_binary32, v, 1, ones, 1, 1001, NULL) == 1.0f);
    ck_assert(amp_dot(&ka, &fl_binary32, v, 1, ones, 1, 1001, NULL) ==
              (float)(1.0 + 1000 * 0x1p-25));
    ck_assert(amp_dot(&pw, &fl_binary32, v, 1, ones, 1, 1001, NULL) ==
              0x1.0001f2p0f);
    /* gemm with a bias, strides and the raw (pre-rounding) output */
    const float A[2 * 3] = {1, 2, 3, 4, 5, 6};       /* 2 x 3 */
    const float B[3 * 2] = {1, 0, 0, 1, 1, 1};       /* 3 x 2 */
    const float bias[2] = {0.5f, 0.0009765625f};
    float C[4], raw[4];
    amp_gemm(&f32, &fl_binary16, 2, 2, 3, A, 3, 1, B, 2, bias, C, raw, NULL);
    ck_assert(raw[0] == 4.5f && raw[1] == 5.0f + 0.0009765625f);
    ck_assert(C[0] == 4.5f && C[1] == 5.0f);         /* 5+2^-10 -> 5 */
    ck_assert(C[2] == 10.5f && C[3] == 11.0f);
    /* transposed A through strides: A^T (3 x 2) times ... */
    float D[9];
    amp_gemm(&f32, &fl_binary32, 3, 3, 2, A, 1, 3, A, 3, NULL, D, NULL, NULL);
    ck_assert(D[0] == 17.0f && D[4] == 29.0f && D[8] == 45.0f);
    n_cases += 9;
    ck_assert_int_eq(amp_accum_parse("kahan"), AMP_ACC_KAHAN);
    ck_assert_int_eq(amp_accum_parse("nope"), -1);
    n_cases += 2;
}
END_TEST

START_TEST(flush_share_one_definition)
{
    /* two layers; binary16 flushes |g*S| <= 2^-25 (ties to even: to 0) */
    const float w0[] = {0x1p-25f, 0x1.000002p-25f, 0.0f, 1.0f};   /* 1 of 3 live */
    const float a0[] = {0x1p-26f, -0x1p-30f, 0x1p-24f, NAN};       /* 2 of 3 live */
    const float w1[] = {0x1p-40f, 0.5f};                          /* 1 of 2 */
    const float a1[] = {0x1p-27f, 0x1p-27f, 0x1p-27f, 0.0f};       /* 3 of 3 */
    const float *wv[2] = {w0, w1}, *av[2] = {a0, a1};
    const size_t wn[2] = {4, 2}, an[2] = {4, 4};
    amp_step_view v = {0, 2, 1.0f, &fl_binary32, wv, wn, av, an, NULL, NULL};
    amp_flush f;
    amp_flush_init(&f);
    ck_assert_int_eq(amp_flush_add(&f, &v, &fl_binary16, 1.0f), 0);
    ck_assert_uint_eq(f.live[AMP_FLUSH_WGRAD][0], 3);
    ck_assert_uint_eq(f.flushed[AMP_FLUSH_WGRAD][0], 1);
    ck_assert_uint_eq(f.live[AMP_FLUSH_AGRAD][0], 3);
    ck_assert_uint_eq(f.flushed[AMP_FLUSH_AGRAD][0], 2);
    ck_assert_uint_eq(f.flushed[AMP_FLUSH_AGRAD][1], 3);
    ck_assert(amp_flush_share(&f, AMP_FLUSH_AGRAD) == 5.0 / 6.0);
    ck_assert(amp_flush_layer_share(&f, AMP_FLUSH_WGRAD, 1) == 0.5);
    ck_assert(amp_flush_part_in_layer(&f, AMP_FLUSH_AGRAD, 1) == 3.0 / 5.0);
    n_cases += 8;
    /* a second step at S = 4: 2^-27 * 4 = 2^-25 still flushes, 2^-26 * 4
     * and 2^-25 * 4 do not, 2^-30 * 4 does; counts add up */
    ck_assert_int_eq(amp_flush_add(&f, &v, &fl_binary16, 4.0f), 0);
    ck_assert_uint_eq(f.steps, 2);
    ck_assert_uint_eq(f.flushed[AMP_FLUSH_AGRAD][0], 3);
    ck_assert_uint_eq(f.flushed[AMP_FLUSH_AGRAD][1], 6);
    ck_assert_uint_eq(f.flushed[AMP_FLUSH_WGRAD][0], 1);
    ck_assert_uint_eq(amp_flush_live(&f, AMP_FLUSH_AGRAD), 12);
    n_cases += 5;
    /* a view with another number of layers is refused, nothing counted */
    v.layers = 1;
    ck_assert_int_eq(amp_flush_add(&f, &v, &fl_binary16, 1.0f), -1);
    ck_assert_uint_eq(f.steps, 2);
    ck_assert(amp_flush_share(&f, 7) == 0.0 && amp_flush_layer_share(&f, 0, 5) == 0.0);
    n_cases += 3;
}
END_TEST

int main(void)
{
    const TTest *tests[] = { hist_bins_constructed,
                             range_stats_binary16_boundaries,
                             range_stats_fast_path_matches_core,
                             add_round_is_one_rounding,
                             accumulation_policies,
                             flush_share_one_definition, NULL };
    int failed = tc_run_suite("amp_hist", tc_tcase("hist", 0, tests),
                              TC_IN_PROCESS);
    return tc_exit_counted("amp_hist", failed, n_cases,
                           17 + 11 + 4 + 4 + 11 + 16);
}
