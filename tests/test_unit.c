/*
 * test_unit.c — hand-worked cases for the core: each IEEE flag, the exact
 * NaN bits of each platform preset, flush-to-zero / denormals-are-zero /
 * saturation, round-to-odd, the ternary bits, and stochastic rounding
 * (reproducible from its seed and unbiased: the mean of many roundings of
 * a value between two neighbours lies within a few standard errors of the
 * value).  No oracle: runs without MPFR.
 */
#include <math.h>

#include "test_common.h"
#include "test_check.h"

static long cases;

/* binary16 constants */
#define H_ZERO 0x0000u
#define H_NZERO 0x8000u
#define H_MINSUB 0x0001u
#define H_MAXSUB 0x03FFu
#define H_MINNORM 0x0400u
#define H_HALF 0x3800u
#define H_ONE 0x3C00u
#define H_NONE 0xBC00u
#define H_TWO 0x4000u
#define H_FOUR 0x4400u
#define H_MAX 0x7BFFu
#define H_INF 0x7C00u
#define H_NINF 0xFC00u
#define H_QNAN 0x7E00u

typedef uint64_t (*op2_fn)(const fl_format *, uint64_t, uint64_t,
                           const fl_ctx *, unsigned *);

/* Check one binary op: result bits and the exact IEEE flag set. */
static void expect2(const char *what, const fl_format *f, op2_fn op,
                    uint64_t a, uint64_t b, const fl_ctx *c, uint64_t want,
                    unsigned want_flags)
{
    unsigned fl = 0;
    uint64_t got = op(f, a, b, c, &fl);
    cases++;
    ck_assert_msg(got == want && (fl & FL_IEEE_FLAGS) == want_flags,
                  "%s: %s(%#llx, %#llx) [%s]: expected %#llx flags %02x, "
                  "got %#llx flags %02x", what, f->name,
                  (unsigned long long)a, (unsigned long long)b,
                  fl_rm_name(c->rm), (unsigned long long)want, want_flags,
                  (unsigned long long)got, fl & FL_IEEE_FLAGS);
}

/* flp is read here, after the call that produced got has run. */
static void expect_bits(const char *what, uint64_t got, const unsigned *flp,
                        uint64_t want, unsigned want_flags)
{
    const unsigned fl = *flp;
    cases++;
    ck_assert_msg(got == want && (fl & FL_IEEE_FLAGS) == want_flags,
                  "%s: expected %#llx flags %02x, got %#llx flags %02x", what,
                  (unsigned long long)want, want_flags,
                  (unsigned long long)got, fl & FL_IEEE_FLAGS);
}

/* ---- flags ------------------------------------------------------------ */

START_TEST(flag_inexact_only_when_rounded)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    expect2("1+2^-24", h, fl_add, H_ONE, H_MINSUB, &c, H_ONE, FL_INEXACT);
    expect2("1+1", h, fl_add, H_ONE, H_ONE, &c, H_TWO, 0);
    expect2("1/3", h, fl_div, H_ONE, 0x4200, &c, 0x3555, FL_INEXACT);
}
END_TEST

START_TEST(flag_underflow_needs_tiny_and_inexact)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    /* 2^-14 * 0.5 = 2^-15: an exact subnormal, no underflow */
    expect2("exact subnormal", h, fl_mul, H_MINNORM, H_HALF, &c, 0x0200, 0);
    /* (2^-14 + 2^-24) * 0.5 = 2^-15 + 2^-25: tie, to even 0x0200 */
    expect2("tiny inexact", h, fl_mul, H_MINNORM + 1, H_HALF, &c, 0x0200,
            FL_UNDERFLOW | FL_INEXACT);
    /* 2^-24 * 0.5: tie between 0 and 2^-24, to even 0 */
    expect2("to zero", h, fl_mul, H_MINSUB, H_HALF, &c, H_ZERO,
            FL_UNDERFLOW | FL_INEXACT);
}
END_TEST

START_TEST(flag_underflow_tininess_before_vs_after)
{
    /* 2^-14 (1 - 2^-12) from binary32: rounds to 2^-14 in RNE.  After
     * rounding (unbounded exponent) it is 2^-14: not tiny; before: tiny. */
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    uint64_t r = fl_convert(&fl_binary16, &fl_binary32, 0x387FF000, &c, &fl);
    expect_bits("after", r, &fl, H_MINNORM, FL_INEXACT);
    c.tininess = FL_TINY_BEFORE;
    fl = 0;
    r = fl_convert(&fl_binary16, &fl_binary32, 0x387FF000, &c, &fl);
    expect_bits("before", r, &fl, H_MINNORM, FL_INEXACT | FL_UNDERFLOW);
    /* RTZ: rounds down to the largest subnormal, tiny either way */
    c.rm = FL_RTZ;
    fl = 0;
    r = fl_convert(&fl_binary16, &fl_binary32, 0x387FF000, &c, &fl);
    expect_bits("rtz", r, &fl, H_MAXSUB, FL_INEXACT | FL_UNDERFLOW);
}
END_TEST

START_TEST(flag_overflow_by_mode)
{
    const fl_format *h = &fl_binary16;
    static const struct { int rm; uint64_t pos, neg; } t[] = {
        { FL_RNE, H_INF, H_NINF }, { FL_RNA, H_INF, H_NINF },
        { FL_RTZ, H_MAX, 0x8000 | H_MAX }, { FL_RTO, H_MAX, 0x8000 | H_MAX },
        { FL_RUP, H_INF, 0x8000 | H_MAX }, { FL_RDN, H_MAX, H_NINF },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fl_ctx c = fl_ctx_make(t[i].rm);
        expect2("max+max", h, fl_add, H_MAX, H_MAX, &c, t[i].pos,
                FL_OVERFLOW | FL_INEXACT);
        expect2("-max-max", h, fl_add, 0x8000 | H_MAX, 0x8000 | H_MAX, &c,
                t[i].neg, FL_OVERFLOW | FL_INEXACT);
    }
}
END_TEST

START_TEST(flag_divide_by_zero_only_for_finite_over_zero)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    expect2("1/0", h, fl_div, H_ONE, H_ZERO, &c, H_INF, FL_DIVBYZERO);
    expect2("-1/0", h, fl_div, H_NONE, H_ZERO, &c, H_NINF, FL_DIVBYZERO);
    expect2("1/-0", h, fl_div, H_ONE, H_NZERO, &c, H_NINF, FL_DIVBYZERO);
    expect2("inf/0", h, fl_div, H_INF, H_ZERO, &c, H_INF, 0);
    expect2("0/0", h, fl_div, H_ZERO, H_ZERO, &c, 0xFE00, FL_INVALID);
}
END_TEST

START_TEST(flag_invalid_cases)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    expect2("inf-inf", h, fl_sub, H_INF, H_INF, &c, 0xFE00, FL_INVALID);
    expect2("inf+-inf", h, fl_add, H_INF, H_NINF, &c, 0xFE00, FL_INVALID);
    expect2("0*inf", h, fl_mul, H_ZERO, H_INF, &c, 0xFE00, FL_INVALID);
    expect2("inf/inf", h, fl_div, H_INF, H_NINF, &c, 0xFE00, FL_INVALID);
    expect2("rem(inf,1)", h, fl_rem, H_INF, H_ONE, &c, 0xFE00, FL_INVALID);
    expect2("rem(1,0)", h, fl_rem, H_ONE, H_ZERO, &c, 0xFE00, FL_INVALID);
    expect2("sNaN+1", h, fl_add, 0x7C01, H_ONE, &c, 0x7E01, FL_INVALID);
    expect2("qNaN+1", h, fl_add, 0x7E01, H_ONE, &c, 0x7E01, 0);
    expect_bits("sqrt(-1)", fl_sqrt(h, H_NONE, &c, &fl), &fl, 0xFE00,
                FL_INVALID);
    fl = 0;
    expect_bits("sqrt(-0)", fl_sqrt(h, H_NZERO, &c, &fl), &fl, H_NZERO, 0);
    fl = 0;
    expect_bits("i32(nan)", (uint32_t)fl_to_i32(h, H_QNAN, 0, &c, &fl), &fl,
                0x80000000u, FL_INVALID);
    fl = 0;
    expect_bits("i32(inf)", (uint32_t)fl_to_i32(h, H_INF, 0, &c, &fl), &fl,
                0x80000000u, FL_INVALID);
}
END_TEST

START_TEST(flag_invalid_in_comparisons)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    int r = fl_eq(h, H_QNAN, H_ONE, &c, &fl);
    expect_bits("eq quiet qNaN", (uint64_t)r, &fl, 0, 0);
    fl = 0;
    r = fl_eq(h, 0x7C01, H_ONE, &c, &fl);
    expect_bits("eq quiet sNaN", (uint64_t)r, &fl, 0, FL_INVALID);
    fl = 0;
    r = fl_lt(h, H_QNAN, H_ONE, &c, &fl);
    expect_bits("lt signaling qNaN", (uint64_t)r, &fl, 0, FL_INVALID);
    fl = 0;
    r = fl_le(h, H_ONE, H_QNAN, &c, &fl);
    expect_bits("le signaling qNaN", (uint64_t)r, &fl, 0, FL_INVALID);
    fl = 0;
    r = fl_lt_quiet(h, H_QNAN, H_ONE, &c, &fl);
    expect_bits("lt quiet qNaN", (uint64_t)r, &fl, 0, 0);
    fl = 0;
    r = fl_eq(h, H_ZERO, H_NZERO, &c, &fl);
    expect_bits("+0 == -0", (uint64_t)r, &fl, 1, 0);
    fl = 0;
    r = fl_eq_signaling(h, H_QNAN, H_QNAN, &c, &fl);
    expect_bits("eq signaling qNaN", (uint64_t)r, &fl, 0, FL_INVALID);
}
END_TEST

START_TEST(flags_are_ored_into_the_callers_word)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = FL_OVERFLOW | FL_DIVBYZERO;
    uint64_t r = fl_add(h, H_ONE, H_ONE, &c, &fl);   /* exact */
    expect_bits("kept", r, &fl, H_TWO, FL_OVERFLOW | FL_DIVBYZERO);
    r = fl_add(h, H_ONE, H_MINSUB, &c, &fl);          /* inexact */
    expect_bits("added", r, &fl, H_ONE,
                FL_OVERFLOW | FL_DIVBYZERO | FL_INEXACT);
}
END_TEST

/* ---- NaN presets ------------------------------------------------------ */

START_TEST(nan_preset_x86_propagates_first_nan_quieted)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    c.nan = FL_NANP_X86;
    expect2("q+q", h, fl_add, 0x7E05, 0x7E07, &c, 0x7E05, 0);
    expect2("1+q", h, fl_add, H_ONE, 0xFE07, &c, 0xFE07, 0);
    expect2("s+q", h, fl_add, 0x7C05, 0x7E07, &c, 0x7E05, FL_INVALID);
    expect2("q+s", h, fl_mul, 0x7E07, 0x7C05, &c, 0x7E07, FL_INVALID);
    expect2("1/s", h, fl_div, H_ONE, 0xFC05, &c, 0xFE05, FL_INVALID);
    expect2("default", h, fl_sub, H_INF, H_INF, &c, 0xFE00, FL_INVALID);
    expect_bits("fma first NaN",
                fl_fma(h, H_ONE, 0x7E01, 0x7E02, &c, &fl), &fl, 0x7E01, 0);
    fl = 0;
    expect_bits("fma sNaN addend",
                fl_fma(h, H_ONE, H_ONE, 0x7C03, &c, &fl), &fl, 0x7E03,
                FL_INVALID);
    fl = 0;
    expect_bits("binary32 default",
                fl_sub(&fl_binary32, 0x7F800000, 0x7F800000, &c, &fl), &fl,
                0xFFC00000, FL_INVALID);
    fl = 0;
    expect_bits("bfloat16 default",
                fl_sub(&fl_bfloat16, 0x7F80, 0x7F80, &c, &fl), &fl, 0xFFC0,
                FL_INVALID);
    /* conversions keep the payload's top bits (quieted) */
    fl = 0;
    expect_bits("f32->f16 payload",
                fl_convert(h, &fl_binary32, 0x7FC12345, &c, &fl), &fl, 0x7E09,
                0);
    fl = 0;
    expect_bits("f32 sNaN->f16",
                fl_convert(h, &fl_binary32, 0xFF812345, &c, &fl), &fl, 0xFE09,
                FL_INVALID);
    fl = 0;
    expect_bits("f32->bf16 payload",
                fl_convert(&fl_bfloat16, &fl_binary32, 0x7FC12345, &c, &fl),
                &fl, 0x7FC1, 0);
    fl = 0;
    expect_bits("f16->f32 payload",
                fl_convert(&fl_binary32, h, 0x7E09, &c, &fl), &fl, 0x7FC12000,
                0);
    ck_assert_uint_eq(fl_default_nan(h, FL_NANP_X86), 0xFE00);
    ck_assert_uint_eq(fl_default_nan(&fl_binary32, FL_NANP_X86), 0xFFC00000u);
    cases += 2;
}
END_TEST

START_TEST(nan_preset_arm_riscv_cuda_use_the_default_nan)
{
    static const struct { int preset; uint64_t h, s, b; } t[] = {
        { FL_NANP_ARM, 0x7E00, 0x7FC00000, 0x7FC0 },
        { FL_NANP_RISCV, 0x7E00, 0x7FC00000, 0x7FC0 },
        { FL_NANP_CUDA, 0x7FFF, 0x7FFFFFFF, 0x7FFF },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fl_ctx c = fl_ctx_make(FL_RNE);
        unsigned fl = 0;
        c.nan = (uint8_t)t[i].preset;
        expect2("q+q", &fl_binary16, fl_add, 0xFE05, 0x7E07, &c, t[i].h, 0);
        expect2("s+1", &fl_binary16, fl_add, 0x7C05, H_ONE, &c, t[i].h,
                FL_INVALID);
        expect2("inf-inf", &fl_binary16, fl_sub, H_INF, H_INF, &c, t[i].h,
                FL_INVALID);
        expect2("f32 0*inf", &fl_binary32, fl_mul, 0, 0xFF800000, &c,
                t[i].s, FL_INVALID);
        expect2("f32 q*1", &fl_binary32, fl_mul, 0xFFC12345, 0x3F800000,
                &c, t[i].s, 0);
        expect2("bf16 q+1", &fl_bfloat16, fl_add, 0xFFC1, 0x3F80, &c,
                t[i].b, 0);
        expect_bits("f32->f16 NaN",
                    fl_convert(&fl_binary16, &fl_binary32, 0xFFC12345, &c,
                               &fl), &fl, t[i].h, 0);
        fl = 0;
        expect_bits("f16->f32 NaN",
                    fl_convert(&fl_binary32, &fl_binary16, 0xFE09, &c, &fl),
                    &fl, t[i].s, 0);
        ck_assert_uint_eq(fl_default_nan(&fl_binary16, t[i].preset), t[i].h);
        ck_assert_uint_eq(fl_default_nan(&fl_binary32, t[i].preset), t[i].s);
        cases += 2;
    }
}
END_TEST

/* fma(0, inf, quiet NaN): IEEE leaves invalid to the implementation;
 * x86 FMA3 is silent and returns the addend, ARM (FPMulAdd), RISC-V, CUDA
 * and SoftFloat raise it; SoftFloat returns its default NaN, not the
 * addend (softfloat_mulAddF16: infProdArg, then propagateNaN_ZC with the
 * default NaN first). */
START_TEST(nan_preset_fma_zero_times_inf_plus_quiet_nan)
{
    int seen_softfloat = 0;
    for (int p = 0; p < FL_NANP_COUNT; p++) {
        fl_ctx c = fl_ctx_make(FL_RNE);
        unsigned fl = 0;
        uint64_t r, want;
        c.nan = (uint8_t)p;
        r = fl_fma(&fl_binary16, H_ZERO, H_INF, 0x7E05, &c, &fl);
        want = p == FL_NANP_X86 ? 0x7E05 : fl_default_nan(&fl_binary16, p);
        cases++;
        ck_assert_msg(r == want &&
                      (fl & FL_IEEE_FLAGS) ==
                      (p == FL_NANP_X86 ? 0u : (unsigned)FL_INVALID),
                      "fma(0, inf, qNaN) nan=%s: %#llx flags %02x, want "
                      "%#llx", fl_nan_preset_name(p), (unsigned long long)r,
                      fl, (unsigned long long)want);
        seen_softfloat |= p == FL_NANP_SOFTFLOAT;
    }
    ck_assert(seen_softfloat);
}
END_TEST

/* The SoftFloat preset is x86's everywhere but in fma's invalid product
 * with a NaN addend (Berkeley SoftFloat 3e, 8086-SSE specialisation:
 * s_propagateNaNF16UI.c, specialize.h, s_mulAddF16.c). */
START_TEST(nan_preset_softfloat_is_x86_but_for_fma)
{
    static const struct { uint16_t a, b, c, x86, sf; unsigned fx, fs; } t[] = {
        /* 0 * inf + NaN: the only disagreement */
        { 0x0000, 0x7C00, 0x7E05, 0x7E05, 0xFE00, 0, FL_INVALID },
        { 0xFC00, 0x8000, 0xFFFF, 0xFFFF, 0xFE00, 0, FL_INVALID },
        { 0x0000, 0xFC00, 0x7C01, 0x7E01, 0xFE00, FL_INVALID, FL_INVALID },
        /* inf * x + NaN (x nonzero): the addend, quieted, in both */
        { 0x7C00, 0x3C00, 0x7E05, 0x7E05, 0x7E05, 0, 0 },
        { 0x7C00, 0x3C00, 0xFC05, 0xFE05, 0xFE05, FL_INVALID, FL_INVALID },
        /* a NaN factor comes first, the addend's sNaN still signals */
        { 0x7E01, 0x0000, 0x7C02, 0x7E01, 0x7E01, FL_INVALID, FL_INVALID },
        { 0x0000, 0x7C03, 0x7E02, 0x7E03, 0x7E03, FL_INVALID, FL_INVALID },
        /* 0 * inf + non-NaN: default NaN in both */
        { 0x0000, 0x7C00, 0x3C00, 0xFE00, 0xFE00, FL_INVALID, FL_INVALID },
    };
    const fl_format *h = &fl_binary16;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fl_ctx c = fl_ctx_make(FL_RNE);
        unsigned fl = 0;
        char what[96];
        snprintf(what, sizeof what, "x86 fma(%04X, %04X, %04X)",
                 (unsigned)t[i].a, (unsigned)t[i].b, (unsigned)t[i].c);
        c.nan = FL_NANP_X86;
        expect_bits(what, fl_fma(h, t[i].a, t[i].b, t[i].c, &c, &fl), &fl,
                    t[i].x86, t[i].fx);
        fl = 0;
        c.nan = FL_NANP_SOFTFLOAT;
        snprintf(what, sizeof what, "softfloat fma(%04X, %04X, %04X)",
                 (unsigned)t[i].a, (unsigned)t[i].b, (unsigned)t[i].c);
        expect_bits(what, fl_fma(h, t[i].a, t[i].b, t[i].c, &c, &fl), &fl,
                    t[i].sf, t[i].fs);
    }
    /* elsewhere the two are the same: first NaN quieted, same defaults */
    fl_ctx c = fl_ctx_make(FL_RNE);
    c.nan = FL_NANP_SOFTFLOAT;
    expect2("q+q", h, fl_add, 0x7E05, 0x7E07, &c, 0x7E05, 0);
    expect2("1+s", h, fl_add, H_ONE, 0xFC07, &c, 0xFE07, FL_INVALID);
    expect2("q*s", h, fl_mul, 0x7E07, 0x7C05, &c, 0x7E07, FL_INVALID);
    expect2("inf-inf", h, fl_sub, H_INF, H_INF, &c, 0xFE00, FL_INVALID);
    unsigned fl = 0;
    expect_bits("f32 sNaN->f16",
                fl_convert(h, &fl_binary32, 0xFF812345, &c, &fl), &fl, 0xFE09,
                FL_INVALID);
    ck_assert_uint_eq(fl_default_nan(h, FL_NANP_SOFTFLOAT), 0xFE00);
    ck_assert_uint_eq(fl_default_nan(&fl_binary32, FL_NANP_SOFTFLOAT),
                      0xFFC00000u);
    ck_assert_uint_eq(fl_default_nan(&fl_binary64, FL_NANP_SOFTFLOAT),
                      UINT64_C(0xFFF8000000000000));
    ck_assert_int_eq(fl_nan_preset_parse("softfloat"), FL_NANP_SOFTFLOAT);
    ck_assert_str_eq(fl_nan_preset_name(FL_NANP_SOFTFLOAT), "softfloat");
    cases += 5;
}
END_TEST

START_TEST(nan_preset_integer_results)
{
    /* NaN, +overflow, -overflow to i32 and u32 under each preset */
    static const struct { int p; uint32_t i_nan, i_pos, i_neg, u_nan, u_pos,
                          u_neg; } t[] = {
        { FL_NANP_X86, 0x80000000u, 0x80000000u, 0x80000000u, 0xFFFFFFFFu,
          0xFFFFFFFFu, 0xFFFFFFFFu },
        { FL_NANP_ARM, 0, 0x7FFFFFFFu, 0x80000000u, 0, 0xFFFFFFFFu, 0 },
        { FL_NANP_RISCV, 0x7FFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu,
          0xFFFFFFFFu, 0 },
        { FL_NANP_CUDA, 0, 0x7FFFFFFFu, 0x80000000u, 0, 0xFFFFFFFFu, 0 },
        { FL_NANP_SOFTFLOAT, 0x80000000u, 0x80000000u, 0x80000000u,
          0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu },
    };
    const fl_format *s = &fl_binary32;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fl_ctx c = fl_ctx_make(FL_RTZ);
        unsigned fl = 0;
        c.nan = (uint8_t)t[i].p;
#define TI(what, call, want) \
        fl = 0; expect_bits(what, (uint32_t)(call), &fl, want, FL_INVALID)
        TI("i32 nan", fl_to_i32(s, 0x7FC00000, 0, &c, &fl), t[i].i_nan);
        TI("i32 2^31", fl_to_i32(s, 0x4F000000, 0, &c, &fl), t[i].i_pos);
        TI("i32 -inf", fl_to_i32(s, 0xFF800000, 0, &c, &fl), t[i].i_neg);
        TI("u32 nan", fl_to_u32(s, 0xFFC00000, 0, &c, &fl), t[i].u_nan);
        TI("u32 2^32", fl_to_u32(s, 0x4F800000, 0, &c, &fl), t[i].u_pos);
        TI("u32 -1", fl_to_u32(s, 0xBF800000, 0, &c, &fl), t[i].u_neg);
#undef TI
        /* -0.5 toward zero is 0 for u32: not invalid, inexact if exact */
        fl = 0;
        expect_bits("u32 -0.5", fl_to_u32(s, 0xBF000000, 1, &c, &fl), &fl, 0,
                    FL_INEXACT);
    }
}
END_TEST

/* ---- FTZ, DAZ, saturation --------------------------------------------- */

START_TEST(ftz_flushes_tiny_results_with_sign)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    uint64_t r;
    c.ftz = 1;
    expect2("2^-15", h, fl_mul, H_MINNORM, H_HALF, &c, H_ZERO,
            FL_UNDERFLOW | FL_INEXACT);
    expect2("-2^-15", h, fl_mul, 0x8000 | H_MINNORM, H_HALF, &c, H_NZERO,
            FL_UNDERFLOW | FL_INEXACT);
    expect2("normal stays", h, fl_mul, H_MINNORM, H_ONE, &c, H_MINNORM, 0);
    /* a value rounding up to 2^-14 is not tiny after rounding: kept */
    r = fl_convert(h, &fl_binary32, 0x387FF000, &c, &fl);
    expect_bits("after: kept", r, &fl, H_MINNORM, FL_INEXACT);
    c.tininess = FL_TINY_BEFORE;
    fl = 0;
    r = fl_convert(h, &fl_binary32, 0x387FF000, &c, &fl);
    expect_bits("before: flushed", r, &fl, H_ZERO, FL_UNDERFLOW | FL_INEXACT);
}
END_TEST

START_TEST(daz_reads_subnormals_as_signed_zero)
{
    const fl_format *h = &fl_binary16;
    fl_ctx c = fl_ctx_make(FL_RNE);
    c.daz = 1;
    expect2("sub+0", h, fl_add, H_MINSUB, H_ZERO, &c, H_ZERO, 0);
    expect2("-sub+-0", h, fl_add, 0x8001, H_NZERO, &c, H_NZERO, 0);
    expect2("sub*max", h, fl_mul, H_MAXSUB, H_MAX, &c, H_ZERO, 0);
    expect2("1/sub", h, fl_div, H_ONE, H_MINSUB, &c, H_INF, FL_DIVBYZERO);
    expect2("normal", h, fl_add, H_MINNORM, H_ZERO, &c, H_MINNORM, 0);
    c.daz = 0;
    expect2("no daz", h, fl_mul, H_MAXSUB, H_MAX, &c, 0x43FD, FL_INEXACT);
}
END_TEST

START_TEST(saturation_clamps_overflow)
{
    const fl_format *h = &fl_binary16, *e4 = &fl_fp8_e4m3;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    uint64_t r;
    c.saturate = 1;
    expect2("f16 max+max", h, fl_add, H_MAX, H_MAX, &c, H_MAX,
            FL_OVERFLOW | FL_INEXACT);
    expect2("f16 -max-max", h, fl_add, 0xFBFF, 0xFBFF, &c, 0xFBFF,
            FL_OVERFLOW | FL_INEXACT);
    expect2("f16 inf+1 stays inf", h, fl_add, H_INF, H_ONE, &c, H_INF, 0);
    /* E4M3FN: 448 + 448 */
    expect2("e4m3 sat", e4, fl_add, 0x7E, 0x7E, &c, 0x7E,
            FL_OVERFLOW | FL_INEXACT);
    r = fl_convert(e4, &fl_binary32, 0xFF800000, &c, &fl);
    expect_bits("e4m3 from -inf sat", r, &fl, 0xFE, 0);
    c.saturate = 0;
    fl = 0;
    r = fl_add(e4, 0x7E, 0x7E, &c, &fl);
    cases++;
    ck_assert_msg(fl_is_nan(e4, r) && (fl & FL_IEEE_FLAGS) ==
                  (FL_OVERFLOW | FL_INEXACT), "e4m3 no sat: %#llx %02x",
                  (unsigned long long)r, fl);
    /* 464 is the tie between 448 and 480 (not a number): to even 448 */
    fl = 0;
    r = fl_convert(e4, &fl_binary32, 0x43E80000, &c, &fl);
    expect_bits("e4m3 464", r, &fl, 0x7E, FL_INEXACT);
}
END_TEST

/* ---- round to odd and ternary ----------------------------------------- */

START_TEST(round_to_odd_sets_the_last_bit_when_inexact)
{
    const fl_format *h = &fl_binary16, *s = &fl_binary32;
    fl_ctx c = fl_ctx_make(FL_RTO);
    unsigned fl = 0;
    expect_bits("1+2^-20", fl_convert(h, s, 0x3F800008, &c, &fl), &fl, 0x3C01,
                FL_INEXACT);
    fl = 0;
    expect_bits("1+2^-10 exact", fl_convert(h, s, 0x3F802000, &c, &fl), &fl,
                0x3C01, 0);
    fl = 0;
    expect_bits("1+2^-10+2^-20", fl_convert(h, s, 0x3F802008, &c, &fl), &fl,
                0x3C01, FL_INEXACT);
    fl = 0;
    expect_bits("-(1+2^-9+tiny)", fl_convert(h, s, 0xBF804001, &c, &fl), &fl,
                0xBC03, FL_INEXACT);
    fl = 0;
    expect_bits("tiny", fl_convert(h, s, 0x00000001, &c, &fl), &fl, 0x0001,
                FL_INEXACT | FL_UNDERFLOW);
}
END_TEST

/* Rounding to odd at >= p+2 bits, then once more, equals rounding once. */
START_TEST(round_to_odd_then_round_equals_one_rounding)
{
    uint64_t rs = tc_seed("rto_double_rounding");
    static const int modes[4] = { FL_RNE, FL_RNA, FL_RTZ, FL_RUP };
    long n = 0, bad = 0;
    fl_ctx odd = fl_ctx_make(FL_RTO);
    for (long i = 0; i < 200000; i++) {
        uint64_t d = tc_splitmix(&rs);
        fl_ctx c = fl_ctx_make(modes[i & 3]);
        unsigned f1 = 0, f2 = 0;
        uint64_t mid, two, one;
        /* keep the exponent in binary16's reach */
        d = (d & 0x800FFFFFFFFFFFFFull) |
            ((uint64_t)(1023 - 28 + (int)((d >> 52) % 48)) << 52);
        mid = fl_convert(&fl_binary32, &fl_binary64, d, &odd, &f1);
        two = fl_convert(&fl_binary16, &fl_binary32, mid, &c, &f1);
        one = fl_convert(&fl_binary16, &fl_binary64, d, &c, &f2);
        n++;
        if (two != one && ++bad <= 5)
            printf("rto: %#llx %s: via odd %#llx, direct %#llx\n",
                   (unsigned long long)d, fl_rm_name(c.rm),
                   (unsigned long long)two, (unsigned long long)one);
    }
    cases += n;
    ck_assert_int_eq(n, 200000);
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(ternary_bits_give_the_direction)
{
    const fl_format *h = &fl_binary16;
    static const struct { int rm; uint64_t a; int tern; } t[] = {
        { FL_RNE, H_TWO, -1 }, { FL_RUP, H_TWO, 1 }, { FL_RTZ, H_TWO, -1 },
        { FL_RNE, H_FOUR, 0 }, { FL_RTO, H_TWO, 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fl_ctx c = fl_ctx_make(t[i].rm);
        unsigned fl = 0;
        fl_sqrt(h, t[i].a, &c, &fl);
        cases++;
        ck_assert_msg(fl_ternary(fl) == t[i].tern, "sqrt(%#llx) %s: tern %d",
                      (unsigned long long)t[i].a, fl_rm_name(t[i].rm),
                      fl_ternary(fl));
    }
    {
        /* -1 - 2^-24 in RNE: -1, above the exact value */
        fl_ctx c = fl_ctx_make(FL_RNE);
        unsigned fl = 0;
        uint64_t r = fl_add(h, H_NONE, 0x8001, &c, &fl);
        expect_bits("-1-tiny", r, &fl, H_NONE, FL_INEXACT);
        ck_assert_int_eq(fl_ternary(fl), 1);
        fl = 0;
        c.rm = FL_RDN;
        r = fl_add(h, H_NONE, 0x8001, &c, &fl);
        expect_bits("-1-tiny rdn", r, &fl, 0xBC01, FL_INEXACT);
        ck_assert_int_eq(fl_ternary(fl), -1);
    }
}
END_TEST

/* ---- stochastic rounding ---------------------------------------------- */

START_TEST(sr_is_reproducible_from_seed_and_index)
{
    fl_ctx c = fl_ctx_make(FL_RSR);
    long differ = 0;
    c.sr_seed = 12345;
    for (uint64_t i = 0; i < 4096; i++) {
        unsigned f1 = 0, f2 = 0;
        uint64_t a, b, d;
        c.sr_index = i;
        a = fl_convert(&fl_binary16, &fl_binary32, 0x3F800800, &c, &f1);
        b = fl_convert(&fl_binary16, &fl_binary32, 0x3F800800, &c, &f2);
        ck_assert_uint_eq(a, b);
        ck_assert(a == 0x3C00 || a == 0x3C01);
        ck_assert_uint_eq(f1 & FL_IEEE_FLAGS, FL_INEXACT);
        c.sr_seed = 54321;
        d = fl_convert(&fl_binary16, &fl_binary32, 0x3F800800, &c, &f2);
        c.sr_seed = 12345;
        differ += d != a;
        cases++;
    }
    /* another seed is another stream: about half the results differ */
    ck_assert_int_gt(differ, 1000);
    ck_assert_uint_eq(fl_sr_bits(7, 9), fl_sr_bits(7, 9));
    ck_assert(fl_sr_bits(7, 9) != fl_sr_bits(7, 10));
}
END_TEST

/* Mean of N stochastic roundings of x, whose neighbours are lo < x < hi:
 * E = x and sd = (hi - lo) sqrt(q (1 - q)), q = (x - lo) / (hi - lo).
 * The mean must lie within 5 standard errors of x. */
static void sr_mean(const fl_format *f, double x, uint64_t seed, long n)
{
    fl_ctx c = fl_ctx_make(FL_RSR);
    double sum = 0, lo = 0, hi = 0, q, se;
    long ups = 0;
    c.sr_seed = seed;
    for (long i = 0; i < n; i++) {
        unsigned fl = 0;
        uint64_t r;
        double v;
        c.sr_index = (uint64_t)i;
        r = fl_from_double(f, x, &c, &fl);
        v = fl_to_double(f, r);
        ck_assert_uint_eq(fl & FL_INEXACT, FL_INEXACT);
        if (i == 0 || v < lo) lo = v;
        if (i == 0 || v > hi) hi = v;
        sum += v;
        ups += v > x;
    }
    cases += n;
    {
        fl_ctx cd = fl_ctx_make(FL_RDN), cu = fl_ctx_make(FL_RUP);
        unsigned fl = 0;
        double down = fl_to_double(f, fl_from_double(f, x, &cd, &fl));
        double up = fl_to_double(f, fl_from_double(f, x, &cu, &fl));
        /* only the two neighbours ever come out */
        ck_assert(lo >= down && hi <= up);
        q = (x - down) / (up - down);
        se = (up - down) * sqrt(q * (1 - q) / (double)n);
        ck_assert_msg(fabs(sum / (double)n - x) < 5 * se,
                      "SR biased: %s x=%a mean=%a se=%a (q=%g, %ld up of %ld)",
                      f->name, x, sum / (double)n, se, q, ups, n);
    }
}

START_TEST(sr_is_unbiased)
{
    uint64_t seed = tc_seed("sr_is_unbiased");
    long before = cases;
    static const double q[] = { 0.001, 0.1, 0.25, 0.5, 0.7, 0.999 };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        /* binary16: between 1 and 1 + 2^-10; negative; subnormal range */
        sr_mean(&fl_binary16, 1 + q[i] * 0x1p-10, seed + i, 200000);
        sr_mean(&fl_binary16, -(3 + q[i]) * 0x1p-24, seed + 17 * i, 200000);
        sr_mean(&fl_bfloat16, (1 + q[i] * 0x1p-7) * 0x1p100, seed + 31 * i,
                200000);
    }
    ck_assert_int_eq(cases - before, 6L * 3 * 200000);
}
END_TEST

START_TEST(sr_array_uses_index_plus_element)
{
    enum { N = 1000 };
    static float src[N], dst[N];
    fl_ctx c = fl_ctx_make(FL_RSR);
    unsigned fa = 0;
    c.sr_seed = 99;
    c.sr_index = 5000;
    for (int i = 0; i < N; i++)
        src[i] = 1.0f + (float)i * 0x1p-20f;
    fl_round_float_array(&fl_binary16, dst, src, N, &c, &fa);
    for (int i = 0; i < N; i++) {
        fl_ctx e = c;
        unsigned fl = 0;
        e.sr_index = c.sr_index + (uint64_t)i;
        ck_assert_msg(dst[i] == fl_round_float(&fl_binary16, src[i], &e, &fl),
                      "element %d", i);
        cases++;
    }
}
END_TEST

int main(void)
{
    const TTest *tests[] = {
        flag_inexact_only_when_rounded,
        flag_underflow_needs_tiny_and_inexact,
        flag_underflow_tininess_before_vs_after, flag_overflow_by_mode,
        flag_divide_by_zero_only_for_finite_over_zero, flag_invalid_cases,
        flag_invalid_in_comparisons, flags_are_ored_into_the_callers_word,
        nan_preset_x86_propagates_first_nan_quieted,
        nan_preset_arm_riscv_cuda_use_the_default_nan,
        nan_preset_fma_zero_times_inf_plus_quiet_nan,
        nan_preset_softfloat_is_x86_but_for_fma,
        nan_preset_integer_results,
        ftz_flushes_tiny_results_with_sign,
        daz_reads_subnormals_as_signed_zero, saturation_clamps_overflow,
        round_to_odd_sets_the_last_bit_when_inexact,
        round_to_odd_then_round_equals_one_rounding,
        ternary_bits_give_the_direction,
        sr_is_reproducible_from_seed_and_index, sr_is_unbiased,
        sr_array_uses_index_plus_element, NULL };
    return tc_exit(tc_run_suite("unit", tc_tcase("core", 120, tests),
                                TC_FORKED));
}
