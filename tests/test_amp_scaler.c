/*
 * test_amp_scaler.c — the loss scalers against hand-worked sequences and
 * the reference semantics (GradScaler, apex LossScaler).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "amp.h"
#include "test_check.h"

static int n_cases;   /* every checked step counts one */

static void mk(amp_scaler *s, int kind, double init, int32_t interval)
{
    amp_scaler_config c;
    amp_scaler_config_default(&c, kind);
    c.init_scale = init;
    c.growth_interval = interval;
    ck_assert_int_eq(amp_scaler_init(s, &c), 0);
}

/* Replay flags; compare scale used, skip and scale after at every step. */
static void replay(amp_scaler *s, const int *flags, const double *used,
                   const int *skip, const double *after, int n)
{
    for (int i = 0; i < n; i++) {
        double u = amp_scaler_scale(s);
        int k = amp_scaler_update(s, flags[i]);
        double a = amp_scaler_scale(s);
        ck_assert_msg(u == used[i] && k == skip[i] && a == after[i],
                      "step %d flag %d: used %a skip %d after %a, expected "
                      "%a %d %a", i, flags[i], u, k, a, used[i], skip[i],
                      after[i]);
        n_cases++;
    }
}

START_TEST(torch_hand_sequence_interval_3)
{
    amp_scaler s;
    mk(&s, AMP_SCALER_TORCH, 8, 3);
    static const int f[] = {0, 0, 0, 1, 0, 1, 1, 0, 0, 0};
    static const double u[] = {8, 8, 8, 16, 8, 8, 4, 2, 2, 2};
    static const int k[] = {0, 0, 0, 1, 0, 1, 1, 0, 0, 0};
    static const double a[] = {8, 8, 16, 8, 8, 4, 2, 2, 2, 4};
    replay(&s, f, u, k, a, 10);
    ck_assert_uint_eq(s.skipped, 3);
}
END_TEST

START_TEST(torch_grows_exactly_at_2000)
{
    amp_scaler s;
    mk(&s, AMP_SCALER_TORCH, 0x1p16, 2000);
    for (int i = 1; i < 2000; i++) {
        ck_assert_int_eq(amp_scaler_update(&s, 0), 0);
        ck_assert_msg(s.scale_f32 == 0x1p16f && s.tracker == i,
                      "step %d: scale %a tracker %d", i, s.scale_f32,
                      s.tracker);
        n_cases++;
    }
    ck_assert_int_eq(amp_scaler_update(&s, 0), 0);
    ck_assert(s.scale_f32 == 0x1p17f);
    ck_assert_int_eq(s.tracker, 0);
    n_cases++;
}
END_TEST

START_TEST(torch_overflow_resets_tracker)
{
    amp_scaler s;
    mk(&s, AMP_SCALER_TORCH, 0x1p16, 2000);
    for (int i = 0; i < 1999; i++)
        amp_scaler_update(&s, 0);
    ck_assert_int_eq(s.tracker, 1999);
    ck_assert_int_eq(amp_scaler_update(&s, 1), 1);          /* skip */
    ck_assert(s.scale_f32 == 0x1p15f);
    ck_assert_int_eq(s.tracker, 0);
    for (int i = 0; i < 1999; i++)
        ck_assert_int_eq(amp_scaler_update(&s, 0), 0);
    ck_assert(s.scale_f32 == 0x1p15f);                       /* not yet */
    amp_scaler_update(&s, 0);
    ck_assert(s.scale_f32 == 0x1p16f);                       /* 2000th */
    n_cases += 3;
}
END_TEST

START_TEST(torch_refuses_nonfinite_growth)
{
    amp_scaler s;
    /* start near FLT_MAX: 2 * 0x1.fffffep127 is inf in binary32 */
    mk(&s, AMP_SCALER_TORCH, FLT_MAX, 2);
    amp_scaler_update(&s, 0);
    ck_assert_int_eq(s.tracker, 1);
    ck_assert_int_eq(amp_scaler_update(&s, 0), 0);
    ck_assert(s.scale_f32 == FLT_MAX);      /* growth refused ... */
    ck_assert_int_eq(s.tracker, 0);         /* ... and the tracker reset */
    /* 2^127 grows to 2^128 = inf: refused too */
    mk(&s, AMP_SCALER_TORCH, 0x1p127, 1);
    amp_scaler_update(&s, 0);
    ck_assert(s.scale_f32 == 0x1p127f);
    /* 2^126 grows to 2^127: accepted */
    mk(&s, AMP_SCALER_TORCH, 0x1p126, 1);
    amp_scaler_update(&s, 0);
    ck_assert(s.scale_f32 == 0x1p127f);
    n_cases += 3;
}
END_TEST

START_TEST(torch_no_clamp_and_binary32_arithmetic)
{
    amp_scaler s;
    mk(&s, AMP_SCALER_TORCH, 1, 2000);
    for (int i = 0; i < 3; i++)
        amp_scaler_update(&s, 1);
    ck_assert(s.scale_f32 == 0.125f);       /* below 1: no clamp */
    n_cases++;
    /* growth 1.1 in binary32: scale * (float)1.1, rounded to binary32 */
    amp_scaler_config c;
    amp_scaler_config_default(&c, AMP_SCALER_TORCH);
    c.init_scale = 3;
    c.growth_factor = 1.1;
    c.growth_interval = 1;
    ck_assert_int_eq(amp_scaler_init(&s, &c), 0);
    amp_scaler_update(&s, 0);
    volatile float three = 3.0f, g = (float)1.1;
    ck_assert(s.scale_f32 == three * g);
    ck_assert(s.scale_f32 != (float)(3.0 * 1.1));   /* differs from double */
    /* inv_scale = (float)(1.0 / (double)scale) */
    mk(&s, AMP_SCALER_TORCH, 3, 2000);
    ck_assert(amp_scaler_inv_scale(&s) == 0x1.555556p-2f);
    n_cases += 3;
}
END_TEST

START_TEST(apex_hand_sequence_window_max_min)
{
    amp_scaler s;
    amp_scaler_config c;
    amp_scaler_config_default(&c, AMP_SCALER_APEX);
    c.init_scale = 8;
    c.growth_interval = 3;
    c.max_scale = 16;
    c.min_scale = 2;
    ck_assert_int_eq(amp_scaler_init(&s, &c), 0);
    static const int f[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0};
    static const double u[] = {8, 8, 8, 16, 16, 16, 16, 8, 4, 2, 2};
    static const int k[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0};
    static const double a[] = {8, 8, 16, 16, 16, 16, 8, 4, 2, 2, 2};
    replay(&s, f, u, k, a, 11);
}
END_TEST

START_TEST(apex_defaults_window_2000_max_2p24)
{
    amp_scaler s;
    mk(&s, AMP_SCALER_APEX, 0x1p23, 2000);
    ck_assert(s.cfg.max_scale == 0x1p24);
    for (int i = 0; i < 1999; i++)
        amp_scaler_update(&s, 0);
    ck_assert(s.scale_f64 == 0x1p23);
    amp_scaler_update(&s, 0);
    ck_assert(s.scale_f64 == 0x1p24);
    for (int i = 0; i < 2000; i++)
        amp_scaler_update(&s, 0);
    ck_assert(s.scale_f64 == 0x1p24);        /* clamped at max */
    ck_assert_int_eq(s.tracker, 0);
    /* no minimum by default: halves below 1 */
    mk(&s, AMP_SCALER_APEX, 1, 2000);
    ck_assert_int_eq(amp_scaler_update(&s, 1), 1);
    ck_assert(s.scale_f64 == 0.5);
    n_cases += 4;
}
END_TEST

START_TEST(static_and_none_never_skip)
{
    amp_scaler s;
    mk(&s, AMP_SCALER_STATIC, 1024, 2000);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(amp_scaler_update(&s, i & 1), 0);
        ck_assert(amp_scaler_scale(&s) == 1024.0f);
        n_cases++;
    }
    mk(&s, AMP_SCALER_NONE, 1024, 2000);     /* none ignores init: 1 */
    ck_assert(amp_scaler_scale(&s) == 1.0f);
    ck_assert_int_eq(amp_scaler_update(&s, 1), 0);
    n_cases++;
}
END_TEST

START_TEST(invalid_configs_rejected)
{
    amp_scaler s;
    amp_scaler_config c;
    amp_scaler_config_default(&c, AMP_SCALER_TORCH);
    c.init_scale = 0;
    ck_assert_int_eq(amp_scaler_init(&s, &c), -1);
    c.init_scale = INFINITY;
    ck_assert_int_eq(amp_scaler_init(&s, &c), -1);
    c.init_scale = 1e300;                    /* inf in binary32 */
    ck_assert_int_eq(amp_scaler_init(&s, &c), -1);
    amp_scaler_config_default(&c, AMP_SCALER_APEX);
    c.min_scale = 0x1p30;                    /* above max */
    ck_assert_int_eq(amp_scaler_init(&s, &c), -1);
    c.min_scale = 0;
    c.growth_interval = 0;
    ck_assert_int_eq(amp_scaler_init(&s, &c), -1);
    n_cases += 5;
}
END_TEST

START_TEST(unscale_found_inf)
{
    float g[4] = {2, -4, 8, 16};
    int found = 0;
    amp_unscale(g, 4, 0.5f, &found);
    ck_assert_int_eq(found, 0);
    ck_assert(g[0] == 1 && g[1] == -2 && g[2] == 4 && g[3] == 8);
    g[2] = NAN;
    amp_unscale(g, 4, 0.5f, &found);
    ck_assert_int_eq(found, 1);
    float h[2] = {1, -INFINITY};
    ck_assert_int_eq(amp_any_nonfinite(h, 2), 1);
    ck_assert_int_eq(amp_any_nonfinite(h, 1), 0);
    n_cases += 4;
}
END_TEST

int main(void)
{
    const TTest *tests[] = { torch_hand_sequence_interval_3,
                             torch_grows_exactly_at_2000,
                             torch_overflow_resets_tracker,
                             torch_refuses_nonfinite_growth,
                             torch_no_clamp_and_binary32_arithmetic,
                             apex_hand_sequence_window_max_min,
                             apex_defaults_window_2000_max_2p24,
                             static_and_none_never_skip,
                             invalid_configs_rejected, unscale_found_inf,
                             NULL };
    int failed = tc_run_suite("amp_scaler", tc_tcase("scalers", 0, tests),
                              TC_IN_PROCESS);
    return tc_exit_counted("amp_scaler", failed, n_cases,
                           10 + 1999 + 1 + 3 + 3 + 4 + 11 + 4 + 6 + 5 + 4);
}
