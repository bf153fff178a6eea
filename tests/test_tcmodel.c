/*
 * test_tcmodel.c — the tensor-core block-FMA model on cases worked by hand:
 * each separates one property of the model (per-term truncation, the
 * number of extra alignment bits, round-toward-zero output, block size,
 * specials).  Values are written as binary16 / binary32 bit patterns.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fplab/tensorcore.h"
#include "test_check.h"

static int cases;

#define F16_ONE 0x3C00u
#define F32_ONE 0x3F800000u

static uint64_t dot1(const fl_tc_model *m, uint64_t a, uint64_t b, int n,
                     uint64_t c, unsigned *fl)
{
    uint64_t av[64], bv[64];
    for (int i = 0; i < n; i++)
        av[i] = a, bv[i] = b;
    return fl_tc_block_fma(m, av, bv, n, c, fl);
}

static void expect(const char *what, uint64_t got, uint64_t want)
{
    cases++;
    ck_assert_msg(got == want, "%s: expected 0x%08llx got 0x%08llx", what,
                  (unsigned long long)want, (unsigned long long)got);
}

/* 1 + two products of 2^-24: exact sum 1 + 2^-23 is a binary32 number.
 * V100 (no extra bits) truncates each 2^-24 below the 24-bit window and
 * returns 1; H100 (2 extra bits) keeps them and returns 1 + 2^-23. */
START_TEST(truncation_per_term_separates_v100_from_h100)
{
    unsigned fl = 0;
    uint64_t a = 0x0C00; /* 2^-12 */
    expect("v100", dot1(&fl_tc_v100_fp16, a, a, 2, F32_ONE, &fl), F32_ONE);
    ck_assert(fl & FL_INEXACT);
    fl = 0;
    expect("h100", dot1(&fl_tc_h100_fp16, a, a, 2, F32_ONE, &fl), F32_ONE + 1);
    ck_assert_uint_eq(fl & FL_IEEE_FLAGS, 0);
}
END_TEST

/* 1 + 3*2^-25 lies 0.75 ulp above 1: kept exactly by the H100 window and
 * then rounded toward zero to 1 (round-to-nearest would give 1 + ulp). */
START_TEST(fp32_output_rounds_toward_zero)
{
    unsigned fl = 0;
    uint64_t a = 0x0E00 /* 1.5*2^-12 */, b = 0x0C00 /* 2^-12 */;
    uint64_t av[1] = {a}, bv[1] = {b};
    expect("h100 rz", fl_tc_block_fma(&fl_tc_h100_fp16, av, bv, 1, F32_ONE, &fl),
           F32_ONE);
    ck_assert(fl & FL_INEXACT);
    /* the fp16-output path rounds to nearest: 1 + 0.75ulp(fp32) is far
     * below half an fp16 ulp, so 1.0 in binary16 */
    fl = 0;
    expect("h100 f16 out",
           fl_tc_block_fma_f16(&fl_tc_h100_fp16, av, bv, 1, F16_ONE, &fl),
           F16_ONE);
}
END_TEST

/* Block size and chaining: 32 products of 2^-24 added to c = 1.  V100
 * (blocks of 4, window ending at 2^-23) truncates every product away in
 * every block and returns 1.  H100 (blocks of 16, window ending at 2^-25)
 * keeps them: each block adds 16*2^-24 = 8 ulp exactly, two blocks 16 ulp. */
START_TEST(block_size_changes_chained_result)
{
    unsigned fl = 0;
    uint64_t a[32], b[32];
    for (int i = 0; i < 32; i++)
        a[i] = 0x0C00, b[i] = 0x0C00;   /* products 2^-24 */
    /* V100: blocks of 4, each block truncates every 2^-24 away: 1. */
    expect("v100 dot", fl_tc_dot(&fl_tc_v100_fp16, a, 1, b, 1, 32, F32_ONE, &fl),
           F32_ONE);
    /* H100: blocks of 16, each keeps 2^-24 (2 extra bits): 1 + 16*2^-24
     * = 1 + 8 ulp per block, two blocks: 1 + 16 ulp. */
    fl = 0;
    expect("h100 dot", fl_tc_dot(&fl_tc_h100_fp16, a, 1, b, 1, 32, F32_ONE, &fl),
           F32_ONE + 16);
}
END_TEST

START_TEST(specials_follow_ieee)
{
    unsigned fl = 0;
    uint64_t inf = 0x7C00, zero = 0, one = F16_ONE, ninf = 0xFC00;
    uint64_t a2[2] = {inf, ninf}, b2[2] = {one, one};
    expect("inf*0", dot1(&fl_tc_h100_fp16, inf, zero, 1, 0, &fl), 0x7FFFFFFF);
    ck_assert(fl & FL_INVALID);
    fl = 0;
    expect("inf-inf", fl_tc_block_fma(&fl_tc_h100_fp16, a2, b2, 2, 0, &fl),
           0x7FFFFFFF);
    ck_assert(fl & FL_INVALID);
    fl = 0;
    expect("inf", dot1(&fl_tc_h100_fp16, inf, one, 1, F32_ONE, &fl), 0x7F800000);
    ck_assert_uint_eq(fl, 0);
    expect("-0 + -0*1", dot1(&fl_tc_h100_fp16, 0x8000, one, 1, 0x80000000, &fl),
           0x80000000);
}
END_TEST

/* Subnormal inputs are multiplied exactly: 2^-24 * 2^-24 = 2^-48 is a
 * binary32 normal number. */
START_TEST(subnormal_inputs_kept)
{
    unsigned fl = 0;
    expect("sub*sub", dot1(&fl_tc_a100_fp16, 0x0001, 0x0001, 1, 0, &fl),
           0x27800000);
    ck_assert_uint_eq(fl & FL_IEEE_FLAGS, 0);
}
END_TEST

/* With no truncation and an exactly representable sum the model is exact
 * for every preset: sum of i*j for small integers. */
START_TEST(exact_integer_sums_all_presets)
{
    for (size_t k = 0; k < fl_tc_model_count(); k++) {
        const fl_tc_model *m = fl_tc_model_preset(k);
        fl_ctx c = FL_CTX_INIT;
        uint64_t a[16], b[16];
        unsigned fl = 0;
        long exact = 0;
        for (int i = 0; i < m->block; i++) {
            a[i] = fl_from_i32(m->in, i + 1, &c, &fl);
            b[i] = fl_from_i32(m->in, 3 - i, &c, &fl);
            exact += (long)(i + 1) * (3 - i);
        }
        expect(m->name, fl_tc_block_fma(m, a, b, m->block, 0, &fl),
               fl_from_i64(&fl_binary32, exact, &c, &fl));
    }
}
END_TEST

int main(void)
{
    const TTest *tests[] = { truncation_per_term_separates_v100_from_h100,
                             fp32_output_rounds_toward_zero,
                             block_size_changes_chained_result,
                             specials_follow_ieee, subnormal_inputs_kept,
                             exact_integer_sums_all_presets, NULL };
    int failed = tc_run_suite("tcmodel", tc_tcase("block_fma", 0, tests),
                              TC_IN_PROCESS);
    /* 2+2+2+4+1+7 checked values */
    return tc_exit_counted("tcmodel", failed, cases, 18);
}
