/*
 * test_mldtypes.c — fl_convert from binary32 against ml_dtypes' own
 * conversion, for every format ml_dtypes defines, and every code of those
 * formats to binary32.
 *
 * ml_dtypes (the NumPy dtypes of JAX) cannot be installed here, so this
 * file carries an independent implementation of its conversion algorithm
 * as read in its C++ source: include/float8.h, ConvertImpl<From, To,
 * kSaturate = false, kTruncate = false>::run (what numpy's astype uses),
 * with the types' Traits, numeric_limits and operator- from float8.h and
 * include/mxfloat.h (jax-ml/ml_dtypes, float8.h commit 00b4fab3, mxfloat.h
 * commit 0fa5313b).  Its steps: infinities and NaNs first (the target's
 * infinity() / quiet_NaN(), negated for a negative input with the target's
 * operator-); zero (the target's zero, negated if the target is signed; a
 * target without zero gives quiet_NaN()); a negative input to an unsigned
 * target gives quiet_NaN(); then normalize, round to nearest even by
 * adding a bias term (RoundBitsToNearestEven), with a "denormal" shift
 * below the target's exponent range, pack exponent and mantissa by integer
 * addition, and give infinity() when the exponent reaches max_exponent +
 * bias or the packed bits exceed highest(); finally negate.
 *
 * Comparison: fl_convert in nearest-even, no saturation, x86 NaN preset.
 * A NaN result matches a NaN of the same sign where the target has NaN
 * payloads (ml_dtypes returns sign | quiet_NaN(); the x86 preset keeps the
 * payload's top bits); every other result matches bit for bit, E8M0
 * included: ml_dtypes rounds the binary32 values in (2^-127, 1.5 * 2^-127)
 * to E8M0's 2^-126 (its "denormal" shift rounds at the quantum 2^-126 as
 * if code 0x00 were zero, but in E8M0 that code is 2^-127), and fplab's
 * float8_e8m0fnu preset does the same (its min_gap_up).  OCP MX's E8M0,
 * fplab's fp8-e8m0 (short name e8m0), rounds to the true nearest, 2^-127:
 * it differs from ml_dtypes on exactly those 2^21 - 1 binary32 codes
 * (0x00400001 .. 0x005FFFFF), which is counted and asserted apart.
 *
 * ml_dtypes.bfloat16 is Eigen's bfloat16; its conversion (Eigen's
 * float_to_bfloat16_rtne) is checked the same way.
 *
 * Default run (label unit): per format, every binary32 pattern whose low 16
 * bits are 0, 1, 0x8000 or 0xFFFF, plus 2^18 random patterns, and every
 * code to binary32; and around E8M0's smallest values every binary32
 * pattern from 0 to 2^-126 (both signs) for both E8M0 presets in the six
 * deterministic modes, value and flags against a model written from the
 * rule (RNE also against ml_dtypes' algorithm).  `test_mldtypes long`
 * (label long): all 2^32 binary32 patterns per format (and fp8-e8m0
 * against ml_dtypes' float8_e8m0fnu), threads FPLAB_TEST_THREADS
 * (default 2).
 */
#include <pthread.h>

#include "test_common.h"
#include "test_check.h"

/* ---- ml_dtypes' types, as its headers define them ---------------------- */

enum { NEG_FLIP, NEG_FNUZ, NEG_E5M3FNU, NEG_E8M0 };

typedef struct mld_type {
    const char *name;     /* ml_dtypes' name (an fplab preset name/alias) */
    int bits;             /* kBits */
    int mbits;            /* kMantissaBits */
    int ebits;            /* kExponentBits */
    int bias;             /* Traits<T>::kExponentBias */
    int is_signed;        /* numeric_limits<T>::is_signed */
    int has_zero;         /* Traits<T>::kHasZero */
    int max_exponent;     /* numeric_limits<T>::max_exponent */
    int has_inf_pred;     /* isinf() can be true (has_infinity) */
    unsigned highest;     /* max() */
    unsigned infinity;    /* infinity() */
    unsigned quiet_nan;   /* quiet_NaN() */
    int neg;              /* operator- */
    int nan_payloads;     /* the IEEE-like types: NaN compared by sign */
} mld_type;

static const mld_type types[] = {
    /* name              bits m e bias sg z  maxexp inf highest inf  qnan neg */
    { "float8_e3m4",        8, 4, 3,   3, 1, 1,   4, 1, 0x6F, 0x70, 0x78,
      NEG_FLIP, 1 },
    { "float8_e4m3",        8, 3, 4,   7, 1, 1,   8, 1, 0x77, 0x78, 0x7C,
      NEG_FLIP, 1 },
    { "float8_e4m3fn",      8, 3, 4,   7, 1, 1,   9, 0, 0x7E, 0x7F, 0x7F,
      NEG_FLIP, 0 },
    { "float8_e4m3fnuz",    8, 3, 4,   8, 1, 1,   8, 0, 0x7F, 0x80, 0x80,
      NEG_FNUZ, 0 },
    { "float8_e4m3b11fnuz", 8, 3, 4,  11, 1, 1,   5, 0, 0x7F, 0x80, 0x80,
      NEG_FNUZ, 0 },
    { "float8_e5m2",        8, 2, 5,  15, 1, 1,  16, 1, 0x7B, 0x7C, 0x7E,
      NEG_FLIP, 1 },
    { "float8_e5m2fnuz",    8, 2, 5,  16, 1, 1,  16, 0, 0x7F, 0x80, 0x80,
      NEG_FNUZ, 0 },
    { "float8_e5m3fnu",     8, 3, 5,  15, 0, 1,  17, 0, 0xFE, 0xFF, 0xFF,
      NEG_E5M3FNU, 0 },
    { "float8_e8m0fnu",     8, 0, 8, 127, 0, 0, 128, 0, 0xFE, 0xFF, 0xFF,
      NEG_E8M0, 0 },
    { "float6_e2m3fn",      6, 3, 2,   1, 1, 1,   3, 0, 0x1F, 0x1F, 0x20,
      NEG_FLIP, 0 },
    { "float6_e3m2fn",      6, 2, 3,   3, 1, 1,   5, 0, 0x1F, 0x1F, 0x20,
      NEG_FLIP, 0 },
    { "float4_e2m1fn",      4, 1, 2,   1, 1, 1,   3, 0, 0x07, 0x07, 0x08,
      NEG_FLIP, 0 },
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* operator-() of the type. */
static unsigned mld_neg(const mld_type *t, unsigned rep)
{
    const unsigned sbit = 1u << (t->bits - 1);
    switch (t->neg) {
    case NEG_FNUZ:     /* zero magnitude (0 and the NaN) stays */
        return (rep & (sbit - 1)) == 0 ? rep : rep ^ sbit;
    case NEG_E5M3FNU:  /* no negative numbers: 0 stays, else NaN */
        return rep == 0 ? 0 : 0xFF;
    case NEG_E8M0:     /* no negative numbers => NaN */
        return 0xFF;
    default:
        return rep ^ sbit;
    }
}

/* isnan / isinf of a code (float8.h's free functions; mxfloat: never). */
static int mld_isnan(const mld_type *t, unsigned rep)
{
    const unsigned mag = t->is_signed ? rep & ((1u << (t->bits - 1)) - 1) : rep;
    if (t->bits < 8)
        return 0;
    if (t->neg == NEG_FNUZ)
        return rep == 0x80;
    if (t->has_inf_pred)
        return mag > t->infinity;
    return mag == t->quiet_nan;     /* fn, e5m3fnu, e8m0: all-ones */
}

static int mld_isinf(const mld_type *t, unsigned rep)
{
    const unsigned mag = t->is_signed ? rep & ((1u << (t->bits - 1)) - 1) : rep;
    return t->has_inf_pred && mag == t->infinity;
}

/* Eigen-free countl_zero of a 32-bit value (x != 0). */
static int clz32(uint32_t x)
{
    return __builtin_clz(x);
}

/* RoundBitsToNearestEven(bits, roundoff): add ((bits >> roundoff) & 1) +
 * 2^(roundoff-1) - 1. */
static uint32_t round_bits_nearest_even(uint32_t bits, int roundoff)
{
    const uint32_t bias = ((bits >> roundoff) & 1) + (1u << (roundoff - 1)) - 1;
    return bits + bias;
}

/* ConvertImpl<float, To, false, kTruncate>::run (kTruncate: no rounding
 * term, the shift drops the bits). */
static unsigned mld_convert(const mld_type *t, uint32_t from_bits,
                            int truncate)
{
    const int from_sign = (int)(from_bits >> 31);
    const uint32_t abs_bits = from_bits & 0x7FFFFFFFu;
    const int wide_bits = t->mbits + t->ebits + 1;     /* WideToBits */
    const uint32_t wide_mask = wide_bits <= 8 ? 0xFFu : 0xFFFFu;
    int unbiased, target_base, denormal_adj, shift;
    uint32_t nm, aligned, exp_bits, result_wide;
    unsigned result;

    if (abs_bits == 0x7F800000u)                       /* 1. infinity */
        return from_sign ? mld_neg(t, t->infinity) : t->infinity;
    if (abs_bits > 0x7F800000u)                        /*    NaN */
        return from_sign ? mld_neg(t, t->quiet_nan) : t->quiet_nan;
    if (abs_bits == 0) {                               /* 2. zero */
        if (t->has_zero)
            return from_sign && t->is_signed ? mld_neg(t, 0) : 0;
        return t->quiet_nan;                           /* kSaturate false */
    }
    if (!t->is_signed && from_sign)                    /* unsigned target */
        return t->quiet_nan;
    /* 3. normalize (kFromHasZero: a zero exponent field is subnormal) */
    if ((abs_bits >> 23) != 0) {
        unbiased = (int)(abs_bits >> 23) - 127;
        nm = (1u << 23) | (abs_bits & 0x7FFFFFu);
    } else {
        const uint32_t frac = abs_bits & 0x7FFFFFu;
        const int frac_lz = clz32(frac) - (32 - 23);
        const int norm_shift = frac_lz + 1;
        nm = frac << norm_shift;
        unbiased = (1 - 127) - norm_shift;
    }
    /* 4. BiasedExp - 1 */
    target_base = unbiased + t->bias - 1;
    /* 5. shift and round (always a right shift from binary32) */
    denormal_adj = target_base < 0 ? -target_base : 0;
    shift = (23 - t->mbits) + denormal_adj;
    if (shift > 23 + 2)
        shift = 23 + 2;
    if (!truncate)
        nm = round_bits_nearest_even(nm, shift);
    aligned = (nm >> shift) & wide_mask;
    /* 6. pack (integer addition carries into the exponent), overflow */
    exp_bits = (uint32_t)(target_base > 0 ? target_base : 0) & wide_mask;
    result_wide = (aligned + (exp_bits << t->mbits)) & wide_mask;
    if (target_base >= t->max_exponent + t->bias || result_wide > t->highest)
        result = t->infinity;
    else
        result = result_wide;
    /* 7. sign */
    return from_sign ? mld_neg(t, result) : result;
}

/* ConvertImpl<float, To, false, false>::run: what astype does. */
static unsigned mld_from_float(const mld_type *t, uint32_t from_bits)
{
    return mld_convert(t, from_bits, 0);
}

/* ConvertImpl<T, float, false, false>::run: every code to binary32
 * (exact: binary32 holds every value). */
static uint32_t mld_to_float(const mld_type *t, unsigned rep)
{
    const unsigned sbit = 1u << (t->bits - 1);
    const int from_sign = t->is_signed && (rep & sbit);
    unsigned from_abs;
    int unbiased, target_base, denormal_adj, shift;
    uint32_t nm, aligned, exp_bits;

    /* abs(): the fnuz types keep a zero magnitude as it is (the NaN) */
    if (!t->is_signed)
        from_abs = rep;
    else if (t->neg == NEG_FNUZ && (rep & (sbit - 1)) == 0)
        from_abs = rep;
    else
        from_abs = rep & (sbit - 1);
    if (mld_isinf(t, from_abs))
        return from_sign ? 0xFF800000u : 0x7F800000u;
    if (mld_isnan(t, from_abs))
        return from_sign ? 0xFFC00000u : 0x7FC00000u;
    if (from_abs == 0 && t->has_zero)
        return from_sign ? 0x80000000u : 0;
    if ((from_abs >> t->mbits) != 0 || !t->has_zero) {
        unbiased = (int)(from_abs >> t->mbits) - t->bias;
        nm = (1u << t->mbits) | (from_abs & ((1u << t->mbits) - 1));
    } else {
        /* countl_zero of the uint8_t storage, less the bits above the
         * mantissa */
        const uint32_t frac = from_abs & ((1u << t->mbits) - 1);
        const int frac_lz = (clz32(frac) - 24) - (8 - t->mbits);
        const int norm_shift = frac_lz + 1;
        nm = frac << norm_shift;
        unbiased = (1 - t->bias) - norm_shift;
    }
    target_base = unbiased + 127 - 1;
    denormal_adj = target_base < 0 ? -target_base : 0;
    shift = (t->mbits - 23) + denormal_adj;
    if (shift > 0) {
        nm = round_bits_nearest_even(nm, shift);
        aligned = nm >> shift;
    } else {
        aligned = nm << -shift;
    }
    exp_bits = (uint32_t)(target_base > 0 ? target_base : 0);
    return (from_sign ? 0x80000000u : 0) + aligned + (exp_bits << 23);
}

/* ml_dtypes.bfloat16 is Eigen::bfloat16: Eigen's float_to_bfloat16_rtne
 * (Eigen/src/Core/arch/Default/BFloat16.h): a NaN becomes 0x7FC0 or 0xFFC0
 * by its sign; anything else gets 0x7FFF plus the kept lsb added, and the
 * top 16 bits are kept (round to nearest even, carries into the exponent,
 * subnormals kept); bfloat16 to float is a 16-bit shift. */
static unsigned eigen_bf16_from_float(uint32_t x)
{
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
        return (x >> 31) ? 0xFFC0u : 0x7FC0u;
    return (x + 0x7FFFu + ((x >> 16) & 1)) >> 16;
}

/* ---- comparison --------------------------------------------------------- */

typedef struct tally {
    long cases, bad, ocp_known;
} tally;

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* Where OCP's E8M0 (fp8-e8m0) and ml_dtypes' differ, by design: the
 * binary32 values in (2^-127, 1.5 * 2^-127), ml_dtypes 2^-126 (0x01), the
 * nearest 2^-127 (0x00). */
static int ocp_e8m0_differs(uint32_t x, unsigned want, uint64_t got)
{
    return x > 0x00400000u && x < 0x00600000u && want == 0x01 && got == 0x00;
}

/* t == NULL: bfloat16 (Eigen's conversion) */
static void one(const mld_type *t, const fl_format *f, uint32_t x, tally *y)
{
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    const unsigned want = t ? mld_from_float(t, x) : eigen_bf16_from_float(x);
    const uint64_t got = fl_convert(f, &fl_binary32, x, &c, &fl);
    int same;
    if (!t)
        same = (want & 0x7FFF) > 0x7F80
                   ? fl_is_nan(f, got) && ((got ^ want) & 0x8000) == 0
                   : got == want;
    else if (t->nan_payloads && mld_isnan(t, want & 0x7F))
        same = fl_is_nan(f, got) && ((got ^ want) & 0x80) == 0;
    else
        same = got == want;
    y->cases++;
    if (same)
        return;
    if (f == &fl_fp8_e8m0 && ocp_e8m0_differs(x, want, got)) {
        y->ocp_known++;
        return;
    }
    if (y->bad++ < 8) {
        pthread_mutex_lock(&print_lock);
        printf("MISMATCH %s from binary32 %#010x: ml_dtypes %#04x, fplab %#04"
               PRIx64 " flags %02x\n", t ? t->name : "bfloat16", x, want,
               got, fl & FL_IEEE_FLAGS);
        pthread_mutex_unlock(&print_lock);
    }
}

static const fl_format *fmt_of(const mld_type *t)
{
    const fl_format *f = fl_format_by_name(t->name);
    ck_assert_msg(f != NULL, "%s", t->name);
    ck_assert_int_eq(f->width, t->bits);
    return f;
}

/* Known answers of the reference itself (ml_dtypes' own tests and
 * numeric_limits): if these fail, the reference is misread. */
START_TEST(reference_known_answers)
{
    const mld_type *e4m3fn = &types[2], *e5m2 = &types[5], *e8m0 = &types[8],
                   *fp4 = &types[11], *fnuz = &types[3];
    ck_assert_uint_eq(mld_from_float(e4m3fn, 0x43E00000u), 0x7E);  /* 448 */
    ck_assert_uint_eq(mld_from_float(e4m3fn, 0x43E80000u), 0x7E);  /* 464 */
    ck_assert_uint_eq(mld_from_float(e4m3fn, 0x43F00000u), 0x7F);  /* 480 */
    ck_assert_uint_eq(mld_from_float(e4m3fn, 0xC3F00000u), 0xFF);
    ck_assert_uint_eq(mld_from_float(e5m2, 0x47600000u), 0x7B);    /* 57344 */
    ck_assert_uint_eq(mld_from_float(e5m2, 0x7F800000u), 0x7C);
    ck_assert_uint_eq(mld_from_float(e5m2, 0xFFC00001u), 0xFE);
    ck_assert_uint_eq(mld_from_float(e8m0, 0x3F800000u), 0x7F);    /* 1 */
    ck_assert_uint_eq(mld_from_float(e8m0, 0x3FC00000u), 0x80);    /* 1.5 */
    ck_assert_uint_eq(mld_from_float(e8m0, 0x00000000u), 0xFF);    /* 0 */
    ck_assert_uint_eq(mld_from_float(e8m0, 0xBF800000u), 0xFF);    /* -1 */
    ck_assert_uint_eq(mld_from_float(e8m0, 0x00400000u), 0x00);    /* 2^-127 */
    ck_assert_uint_eq(mld_from_float(e8m0, 0x00500000u), 0x01);    /* 1.25*2^-127 */
    ck_assert_uint_eq(mld_from_float(e8m0, 0x00400001u), 0x01);
    ck_assert_uint_eq(mld_from_float(e8m0, 0x003FFFFFu), 0x00);
    ck_assert_uint_eq(mld_from_float(e8m0, 0x00000001u), 0x00);    /* 2^-149 */
    ck_assert_uint_eq(mld_convert(e8m0, 0x00500000u, 1), 0x00);    /* truncated */
    ck_assert_uint_eq(mld_convert(e8m0, 0x3FFFFFFFu, 1), 0x7F);    /* 1.99 -> 1 */
    ck_assert_uint_eq(mld_from_float(fp4, 0x40C00000u), 0x7);      /* 6 */
    ck_assert_uint_eq(mld_from_float(fp4, 0x41000000u), 0x7);      /* 8 */
    ck_assert_uint_eq(mld_from_float(fp4, 0x7FC00000u), 0x8);      /* NaN */
    ck_assert_uint_eq(mld_from_float(fp4, 0xFFC00000u), 0x0);      /* -NaN */
    ck_assert_uint_eq(mld_from_float(fp4, 0x3E800000u), 0x0);      /* 0.25 */
    ck_assert_uint_eq(mld_from_float(fp4, 0x3E800001u), 0x1);
    ck_assert_uint_eq(mld_from_float(fnuz, 0x80000000u), 0x00);    /* -0 */
    ck_assert_uint_eq(mld_from_float(fnuz, 0x43800000u), 0x80);    /* 256 */
    ck_assert_uint_eq(mld_to_float(e8m0, 0x00), 0x00400000u);
    ck_assert_uint_eq(mld_to_float(e8m0, 0xFE), 0x7F000000u);
    ck_assert_uint_eq(mld_to_float(fp4, 0x9), 0xBF000000u);          /* -0.5 */
    ck_assert_uint_eq(mld_to_float(fnuz, 0x80), 0xFFC00000u);
    ck_assert_uint_eq(mld_to_float(&types[4], 0x01), 0x39000000u);   /* 2^-13 */
}
END_TEST

/* Every code of every type to binary32: exact, against fl_to_float. */
START_TEST(every_code_to_binary32)
{
    long cases = 0, bad = 0;
    for (int i = 0; i < NTYPES; i++) {
        const mld_type *t = &types[i];
        const fl_format *f = fmt_of(t);
        for (unsigned rep = 0; rep < (1u << t->bits); rep++) {
            const uint32_t want = mld_to_float(t, rep);
            union { float x; uint32_t u; } got;
            int same;
            got.x = fl_to_float(f, rep);
            if ((want & 0x7FFFFFFFu) > 0x7F800000u)
                same = (got.u & 0x7FFFFFFFu) > 0x7F800000u &&
                       ((got.u ^ want) >> 31) == 0;
            else
                same = got.u == want;
            cases++;
            if (!same && bad++ < 8)
                printf("MISMATCH %s %#04x to binary32: ml_dtypes %#010x, "
                       "fplab %#010x\n", t->name, rep, want, got.u);
        }
    }
    for (unsigned rep = 0; rep < 0x10000u; rep++) {   /* bfloat16: a shift */
        const uint32_t want = (uint32_t)rep << 16;
        union { float x; uint32_t u; } got;
        got.x = fl_to_float(&fl_bfloat16, rep);
        cases++;
        if (((want & 0x7FFFFFFFu) > 0x7F800000u
                 ? !((got.u & 0x7FFFFFFFu) > 0x7F800000u &&
                     ((got.u ^ want) >> 31) == 0)
                 : got.u != want) && bad++ < 8)
            printf("MISMATCH bfloat16 %#06x to binary32: %#010x, fplab "
                   "%#010x\n", rep, want, got.u);
    }
    printf("every code to binary32: %ld cases, %ld mismatches\n", cases, bad);
    ck_assert_int_eq(cases, 9L * 256 + 2 * 64 + 16 + 65536);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Sample: every binary32 pattern with low half 0, 1, 0x8000, 0xFFFF, and
 * 2^18 random ones, per type; then OCP's E8M0 against ml_dtypes' on the
 * same sample (it meets the interval where they differ: the highs 0x0040
 * .. 0x005F with the four lows, less 0x00400000 itself). */
START_TEST(sample_from_binary32)
{
    static const uint32_t lows[4] = { 0, 1, 0x8000, 0xFFFF };
    uint64_t rs = tc_seed("mldtypes sample");
    for (int i = 0; i <= NTYPES + 1; i++) {
        /* NTYPES: bfloat16; NTYPES + 1: fp8-e8m0 against float8_e8m0fnu */
        const mld_type *t = i < NTYPES ? &types[i]
                            : i == NTYPES ? NULL : &types[8];
        const fl_format *f = i < NTYPES ? fmt_of(t)
                             : i == NTYPES ? &fl_bfloat16 : &fl_fp8_e8m0;
        tally y = { 0, 0, 0 };
        uint64_t r = rs;    /* the same random patterns for every type */
        for (uint32_t hi = 0; hi < 0x10000u; hi++)
            for (int k = 0; k < 4; k++)
                one(t, f, hi << 16 | lows[k], &y);
        for (int k = 0; k < (1 << 18); k++)
            one(t, f, (uint32_t)tc_splitmix(&r), &y);
        printf("%-20s sample: %ld cases, %ld mismatches, %ld where OCP's "
               "E8M0 differs by design\n", f->name, y.cases, y.bad,
               y.ocp_known);
        ck_assert_int_eq(y.cases, 4L * 65536 + (1L << 18));
        ck_assert_int_eq(y.bad, 0);
        if (f == &fl_fp8_e8m0)
            ck_assert_int_ge(y.ocp_known, 32 * 4 - 1);
        else
            ck_assert_int_eq(y.ocp_known, 0);
        if (t && t->neg == NEG_E8M0) {
            /* ml_dtypes' truncating conversion is fplab's RTZ for E8M0
             * (from binary32 nothing finite truncates past 2^127) */
            const fl_ctx rtz = fl_ctx_make(FL_RTZ);
            long tc = 0, tbad = 0;
            r = rs;
            for (uint32_t hi = 0; hi < 0x10000u; hi++)
                for (int k = 0; k < 4 + (1 << 2); k++) {
                    const uint32_t x = k < 4 ? hi << 16 | lows[k]
                                             : (uint32_t)tc_splitmix(&r);
                    unsigned fl = 0;
                    tc++;
                    if (fl_convert(f, &fl_binary32, x, &rtz, &fl) !=
                            mld_convert(t, x, 1) && tbad++ < 8)
                        printf("MISMATCH %s rtz vs ml_dtypes truncation "
                               "%#010x\n", f->name, x);
                }
            printf("%-20s rtz against ml_dtypes' truncation: %ld cases, %ld "
                   "mismatches\n", f->name, tc, tbad);
            ck_assert_int_eq(tc, 8L * 65536);
            ck_assert_int_eq(tbad, 0);
        }
    }
}
END_TEST

/* The rule itself, written from its statement (docs/formats.md) for a
 * positive binary32 pattern x <= 2^-126 (0x00800000) rounded to E8M0 with
 * the default context (tininess after rounding): the code and the flags.
 * L = 2^-127, M = 1.5 * 2^-127, H = 2^-126.  Below L only code 0 exists
 * (inexact; tiny unless the 1-bit rounding at an unbounded exponent
 * reaches L: x >= 1.5 * 2^-128 in RNE and RNA, x > 2^-128 in RUP); in (L,
 * H) the true neighbours are 0 and 1, with the boundary at M for true
 * nearest (the tie M goes up: 2^-127's significand 1 is odd) and at L for
 * ml_dtypes' rule (min_gap_up) in RNE and RNA. */
static unsigned e8m0_model(uint32_t x, int rm, int gap, unsigned *flags)
{
    const uint32_t L = 0x00400000u, M = 0x00600000u, H = 0x00800000u;
    int up;
    *flags = 0;
    if (x == 0) {
        *flags = FL_INVALID;              /* no zero: the NaN */
        return 0xFF;
    }
    if (x == L || x == H)
        return x == L ? 0x00 : 0x01;
    if (x < L) {
        int tiny;
        switch (rm) {
        case FL_RNE: case FL_RNA: tiny = x < 0x00300000u; break;
        case FL_RUP:              tiny = x <= 0x00200000u; break;
        default:                  tiny = 1; break;        /* RTZ RDN RTO */
        }
        *flags = FL_INEXACT | (tiny ? FL_UNDERFLOW : 0);
        return 0x00;
    }
    switch (rm) {
    case FL_RNE: case FL_RNA: up = gap ? 1 : x >= M; break;
    case FL_RUP:              up = 1; break;
    default:                  up = 0; break;              /* RTZ RDN RTO */
    }
    *flags = FL_INEXACT;
    return up ? 0x01 : 0x00;
}

/* Every binary32 pattern 0 .. 2^-126 of either sign, both E8M0 presets,
 * the six deterministic modes: value and flags against e8m0_model (a
 * negative input: NaN, invalid); in RNE the value also against ml_dtypes'
 * algorithm, which float8_e8m0fnu must match and fp8-e8m0 must miss on
 * exactly the 2^21 - 1 patterns of (2^-127, 1.5 * 2^-127). */
START_TEST(e8m0_boundary_every_mode)
{
    static const int modes[6] = { FL_RNE, FL_RNA, FL_RTZ, FL_RDN, FL_RUP,
                                  FL_RTO };
    const fl_format *fs[2] = { &fl_float8_e8m0fnu, &fl_fp8_e8m0 };
    const mld_type *e8m0 = &types[8];
    long cases = 0, bad = 0, ml_cases = 0, ml_differs[2] = { 0, 0 };
    long trunc_cases = 0, trunc_differs = 0;
    ck_assert_str_eq(e8m0->name, "float8_e8m0fnu");
    for (int fi = 0; fi < 2; fi++) {
        const fl_format *f = fs[fi];
        for (int m = 0; m < 6; m++) {
            const fl_ctx c = fl_ctx_make(modes[m]);
            for (uint32_t a = 0; a <= 0x00800000u; a++) {
                for (uint32_t sg = 0; sg < 2; sg++) {
                    const uint32_t x = sg << 31 | a;
                    unsigned fl = 0, wf;
                    unsigned want = e8m0_model(a, modes[m], f->min_gap_up, &wf);
                    const uint64_t got = fl_convert(f, &fl_binary32, x, &c, &fl);
                    if (sg && a != 0) {
                        want = 0xFF;    /* unsigned: a negative is invalid */
                        wf = FL_INVALID;
                    }
                    cases++;
                    if ((got != want || (fl & FL_IEEE_FLAGS) != wf) &&
                        bad++ < 8)
                        printf("MISMATCH %s %s from binary32 %#010x: want "
                               "%#04x flags %02x, got %#04" PRIx64 " flags "
                               "%02x\n", f->name, fl_rm_name(modes[m]), x,
                               want, wf, got, fl & FL_IEEE_FLAGS);
                    if (modes[m] == FL_RNE) {
                        ml_cases++;
                        ml_differs[fi] += mld_from_float(e8m0, x) != got;
                    }
                    if (modes[m] == FL_RTZ) {   /* ml_dtypes' kTruncate */
                        trunc_cases++;
                        trunc_differs += mld_convert(e8m0, x, 1) != got;
                    }
                }
            }
        }
    }
    printf("E8M0 boundary 0 .. 2^-126, both signs, 2 presets, 6 modes: %ld "
           "cases, %ld mismatches; against ml_dtypes (rne, %ld cases): "
           "float8_e8m0fnu %ld differ, fp8-e8m0 %ld differ; rtz against "
           "its truncation: %ld cases, %ld differ\n", cases, bad, ml_cases,
           ml_differs[0], ml_differs[1], trunc_cases, trunc_differs);
    ck_assert_int_eq(cases, 2L * 6 * 2 * (0x00800000L + 1));
    ck_assert_int_eq(ml_cases, 2L * 2 * (0x00800000L + 1));
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(ml_differs[0], 0);
    ck_assert_int_eq(ml_differs[1], (1L << 21) - 1);
    ck_assert_int_eq(trunc_cases, 2L * 2 * (0x00800000L + 1));
    ck_assert_int_eq(trunc_differs, 0);
}
END_TEST

/* ---- all 2^32 inputs (long) --------------------------------------------- */

typedef struct part {
    const mld_type *t;
    const fl_format *f;
    uint64_t lo, hi;
    tally y;
} part;

static void *worker(void *arg)
{
    part *p = arg;
    for (uint64_t x = p->lo; x < p->hi; x++)
        one(p->t, p->f, (uint32_t)x, &p->y);
    return NULL;
}

/* _i < NTYPES: that type; NTYPES: bfloat16; NTYPES + 1: OCP's E8M0
 * (fp8-e8m0) against ml_dtypes' float8_e8m0fnu. */
START_TEST(all_binary32_inputs)
{
    const mld_type *t = _i < NTYPES ? &types[_i]
                        : _i == NTYPES ? NULL : &types[8];
    const fl_format *f = _i < NTYPES ? fmt_of(t)
                         : _i == NTYPES ? &fl_bfloat16 : &fl_fp8_e8m0;
    const uint64_t total = (uint64_t)1 << 32;
    const char *e = getenv("FPLAB_TEST_THREADS");
    int nthreads = e && atoi(e) > 0 ? (atoi(e) > 64 ? 64 : atoi(e)) : 2;
    part parts[64];
    pthread_t th[64];
    tally y = { 0, 0, 0 };
    for (int k = 0; k < nthreads; k++) {
        parts[k].t = t;
        parts[k].f = f;
        parts[k].lo = total / (uint64_t)nthreads * (uint64_t)k;
        parts[k].hi = k == nthreads - 1 ? total
                                        : total / (uint64_t)nthreads * (k + 1);
        parts[k].y = (tally){ 0, 0, 0 };
        ck_assert_int_eq(pthread_create(&th[k], NULL, worker, &parts[k]), 0);
    }
    for (int k = 0; k < nthreads; k++) {
        pthread_join(th[k], NULL);
        y.cases += parts[k].y.cases;
        y.bad += parts[k].y.bad;
        y.ocp_known += parts[k].y.ocp_known;
    }
    printf("%-20s all binary32: %ld cases, %ld mismatches, %ld where OCP's "
           "E8M0 differs by design\n", f->name, y.cases, y.bad, y.ocp_known);
    fflush(stdout);
    ck_assert_int_eq(y.cases, (long)total);
    ck_assert_int_eq(y.bad, 0);
    ck_assert_int_eq(y.ocp_known, f == &fl_fp8_e8m0 ? (1L << 21) - 1 : 0);
}
END_TEST

int main(int argc, char **argv)
{
    const int long_run = argc > 1 && strcmp(argv[1], "long") == 0;
    const TTest *tests[] = { reference_known_answers, NULL };
    TCase *tc = tc_tcase("mldtypes", long_run ? 36000 : 300, tests);
    if (long_run) {
        /* argv[2]: one type by name, else all (index NTYPES: bfloat16,
         * NTYPES + 1: fp8-e8m0 against float8_e8m0fnu) */
        int lo = 0, hi = NTYPES + 2;
        for (int i = 0; argc > 2 && i <= NTYPES + 1; i++)
            if (!strcmp(argv[2], i < NTYPES ? types[i].name
                                 : i == NTYPES ? "bfloat16" : "fp8-e8m0")) {
                lo = i;
                hi = i + 1;
            }
        tcase_add_loop_test(tc, all_binary32_inputs, lo, hi);
    } else {
        tcase_add_test(tc, every_code_to_binary32);
        tcase_add_test(tc, sample_from_binary32);
        tcase_add_test(tc, e8m0_boundary_every_mode);
    }
    return tc_exit(tc_run_suite("mldtypes", tc, TC_FORKED));
}
