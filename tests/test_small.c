/*
 * test_small.c — every code of a format of at most 8 bits (argv[1]: the
 * fp8 and P3109 formats, ml_dtypes' float8 types, the MX FP6/FP4 elements
 * and the E8M0 scale) through the unary operations, the conversions, the
 * integer conversions and the text routines, against the MPFR oracle
 * (value, flags and ternary), in all six deterministic rounding modes,
 * both tininess rules, with and without flush-to-zero, denormals-are-zero
 * and saturation, under all four NaN presets:
 *   - sqrt, rint, rint_exact;
 *   - conversions to binary16, bfloat16, binary32, binary64 and every
 *     preset of at most 8 bits, and from every preset of at most 8 bits,
 *     from binary16 and from bfloat16 (every code of the source);
 *   - binary32 -> format on the neighbourhood of every value and of every
 *     midpoint between neighbours (+-2 binary32 ulps);
 *   - to i32/u32/i64/u64 (exact and not), from integers (boundaries);
 *   - fl_parse of fl_print_exact / _shortest / _hex gives the code back,
 *     and fl_parse of decimal midpoints against fl_mpfr_parse;
 *   - nextUp / nextDown, classification and the comparisons against the
 *     values the oracle decodes (binary64), every pair;
 *   - stochastic rounding: always the oracle's round-down or round-up
 *     result, and rounding up as often as the position between the two
 *     neighbours says.
 * The conversion and integer sweeps run 48 contexts (the NaN preset
 * rotating with the input) by default and all 192 with argv[2] == "long".
 * Every count is asserted.  FPLAB_TEST_SEED replays the random parts.
 */
#include <math.h>

#include "test_oracle.h"
#include "test_check.h"

static const char *fmt_name = "float8_e4m3fnuz";
static uint64_t seed;
static int long_run;   /* argv[2] == "long": every context in every sweep */

/* The sixteen option sets: ftz, daz, saturate (and none), times the NaN
 * presets, with every mode and tininess rule: 6 * 2 * 4 * 4 = 192. */
enum { NOPT = 4, NCTX = 6 * 2 * NOPT * FL_NANP_COUNT };

static fl_ctx ctx_of(int k)
{
    fl_ctx c = tc_ctx(tc_modes[k % 6], (k / 6) & 1);
    const int opt = (k / 12) % NOPT;
    c.ftz = opt == 1;
    c.daz = opt == 2;
    c.saturate = opt == 3;
    c.nan = (uint8_t)((k / (12 * NOPT)) % FL_NANP_COUNT);
    return c;
}

static uint64_t ncodes(const fl_format *f)
{
    return (uint64_t)1 << f->width;
}

/* The contexts of the heavier sweeps (conversions, integers): all 192
 * under long; by default the 48 mode x tininess x option sets, with the
 * NaN preset rotating with the input code (every preset meets every set
 * and every kind of input, not every pair). */
static int nctx_heavy(void)
{
    return long_run ? NCTX : 12 * NOPT;
}

static fl_ctx ctx_heavy(int k, uint64_t a)
{
    fl_ctx c = ctx_of(k);
    if (!long_run)
        c.nan = (uint8_t)((a + (uint64_t)k) % FL_NANP_COUNT);
    return c;
}

/* ---- unary arithmetic ------------------------------------------------- */

static void sweep_arith(int which)
{
    const fl_format *f = tc_fmt(fmt_name);
    static const int mop[] = { FL_MPFR_SQRT, FL_MPFR_RINT, FL_MPFR_RINT_EXACT };
    tc_log lg = { fl_mpfr_op_name(mop[which]), 0, 0, 0 };
    for (int k = 0; k < NCTX; k++) {
        fl_ctx c = ctx_of(k);
        for (uint64_t a = 0; a < ncodes(f); a++) {
            fl_mpfr_res x;
            unsigned fl = 0;
            uint64_t got;
            int rc = fl_mpfr_arith(&x, mop[which], f, &a, &c);
            if (rc) {
                tc_oracle_fail(&lg, rc, lg.test, &x);
                continue;
            }
            if (which == 0)
                got = fl_sqrt(f, a, &c, &fl);
            else
                got = fl_rint(f, a, which == 2, &c, &fl);
            lg.cases++;
            if (!tc_same(f, got, fl, &x, 1))
                tc_report(&lg, fmt_name, lg.test, &c, &a, 1, &x, got, fl);
        }
    }
    printf("%s %s: %ld cases, %ld mismatches\n", fmt_name, lg.test, lg.cases,
           lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, (long)NCTX * (long)ncodes(f));
    ck_assert_int_eq(lg.bad, 0);
}

START_TEST(every_code_sqrt) { sweep_arith(0); }
END_TEST
START_TEST(every_code_rint) { sweep_arith(1); }
END_TEST
START_TEST(every_code_rint_exact) { sweep_arith(2); }
END_TEST

/* ---- conversions -------------------------------------------------------- */

/* Every code of src to dst in every context; returns the case count. */
static long convert_all(const fl_format *dst, const fl_format *src,
                        tc_log *lg, int nctx)
{
    long n = 0;
    for (int k = 0; k < nctx; k++) {
        for (uint64_t a = 0; a < ncodes(src); a++) {
            const fl_ctx c = ctx_heavy(k, a);
            fl_mpfr_res x;
            unsigned fl = 0;
            uint64_t got;
            int rc = fl_mpfr_convert(&x, dst, src, a, &c);
            if (rc) {
                tc_oracle_fail(lg, rc, "convert", &x);
                continue;
            }
            got = fl_convert(dst, src, a, &c, &fl);
            n++;
            if (!tc_same(dst, got, fl, &x, 1)) {
                char op[96];
                snprintf(op, sizeof op, "convert %s->%s", src->name,
                         dst->name);
                tc_report(lg, src->name, op, &c, &a, 1, &x, got, fl);
            }
        }
    }
    return n;
}

/* The presets of at most 8 bits. */
static int small_presets(const fl_format **out)
{
    int n = 0;
    for (size_t i = 0; i < fl_format_preset_count(); i++)
        if (fl_format_preset(i)->width <= 8)
            out[n++] = fl_format_preset(i);
    return n;
}

START_TEST(every_code_converted_out)
{
    const fl_format *f = tc_fmt(fmt_name), *sm[64];
    const fl_format *wide[4] = { &fl_binary16, &fl_bfloat16, &fl_binary32,
                                 &fl_binary64 };
    const int ns = small_presets(sm);
    tc_log lg = { "convert_out", 0, 0, 0 };
    long n = 0;
    for (int i = 0; i < 4; i++)
        n += convert_all(wide[i], f, &lg, nctx_heavy());
    for (int i = 0; i < ns; i++)
        n += convert_all(sm[i], f, &lg, nctx_heavy());
    printf("%s -> %d formats: %ld cases, %ld mismatches\n", fmt_name, 4 + ns,
           n, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_ge(ns, 19);
    ck_assert_int_eq(n, (long)(4 + ns) * nctx_heavy() * (long)ncodes(f));
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

START_TEST(every_code_converted_in)
{
    const fl_format *f = tc_fmt(fmt_name), *sm[64];
    const int ns = small_presets(sm);
    tc_log lg = { "convert_in", 0, 0, 0 };
    long n = 0, expect = 0;
    for (int i = 0; i < ns; i++) {
        n += convert_all(f, sm[i], &lg, nctx_heavy());
        expect += (long)nctx_heavy() * (long)ncodes(sm[i]);
    }
    /* all 2^16 codes of binary16 and bfloat16: every mode and tininess
     * rule without options (by default: the first 12 contexts, NaN
     * presets rotating; all 192 under long) */
    n += convert_all(f, &fl_binary16, &lg, long_run ? NCTX : 12);
    n += convert_all(f, &fl_bfloat16, &lg, long_run ? NCTX : 12);
    expect += 2L * (long_run ? NCTX : 12) * 65536;
    printf("%d formats, binary16, bfloat16 -> %s: %ld cases, %ld "
           "mismatches\n", ns, fmt_name, n, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(n, expect);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* binary32 -> format around every value t and every midpoint between t
 * and its upper neighbour (as binary32 patterns, +-2 ulps), every
 * context. */
START_TEST(narrow_from_binary32)
{
    const fl_format *f = tc_fmt(fmt_name);
    const fl_format *s = &fl_binary32;
    tc_log lg = { "narrow", 0, 0, 0 };
    fl_ctx rne = fl_ctx_make(FL_RNE);
    long expect = 0;
    for (uint64_t t = 0; t < ncodes(f); t++) {
        unsigned fl = 0;
        uint64_t st, sn, cand[10];
        int nc = 0;
        if (fl_is_nan(f, t))
            continue;
        st = fl_convert(s, f, t, &rne, &fl);
        sn = t + 1 < ncodes(f) && !fl_is_nan(f, t + 1)
                 ? fl_convert(s, f, t + 1, &rne, &fl)
                 : st;
        /* the two codes must be on the same side of zero */
        if ((st ^ sn) >> 31)
            sn = st;
        for (int d = -2; d <= 2; d++) {
            cand[nc++] = st + (uint64_t)(int64_t)d;
            cand[nc++] = st / 2 + sn / 2 + (st & sn & 1) + (uint64_t)(int64_t)d;
        }
        for (int k = 0; k < nctx_heavy(); k++) {
            for (int i = 0; i < nc; i++) {
                fl_mpfr_res x;
                const uint64_t a = cand[i] & 0xFFFFFFFFu;
                const fl_ctx c = ctx_heavy(k, a);
                uint64_t got;
                int rc = fl_mpfr_convert(&x, f, s, a, &c);
                expect++;
                if (rc) {
                    tc_oracle_fail(&lg, rc, "narrow", &x);
                    continue;
                }
                fl = 0;
                got = fl_convert(f, s, a, &c, &fl);
                lg.cases++;
                if (!tc_same(f, got, fl, &x, 1))
                    tc_report(&lg, "binary32", "convert binary32->", &c, &a,
                              1, &x, got, fl);
            }
        }
    }
    printf("binary32 -> %s neighbourhoods: %ld cases, %ld mismatches\n",
           fmt_name, lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, expect);
    ck_assert_int_ge(lg.cases, (long)nctx_heavy() * 10 * (long)ncodes(f) / 2);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* Random binary32 patterns (all of them: NaNs, infinities, far out of
 * range) in random contexts. */
START_TEST(random_binary32)
{
    const fl_format *f = tc_fmt(fmt_name);
    uint64_t rs = seed ^ 0x5eed32;
    tc_log lg = { "random_binary32", 0, 0, 0 };
    const long n = 200000L * tc_scale();
    for (long i = 0; i < n; i++) {
        const uint64_t r = tc_splitmix(&rs);
        uint64_t a = tc_splitmix(&rs) & 0xFFFFFFFFu, got;
        fl_ctx c = ctx_of((int)(r % NCTX));
        fl_mpfr_res x;
        unsigned fl = 0;
        int rc;
        if ((r >> 20) & 1) {   /* half of them near f's range */
            int64_t e = f->emin - f->prec - 2 +
                        (int64_t)((r >> 24) % (uint64_t)(f->emax - f->emin +
                                                         f->prec + 5));
            e = e < -126 ? -126 : e > 127 ? 127 : e;
            a = (a & 0x807FFFFFu) | (uint64_t)(e + 127) << 23;
        }
        rc = fl_mpfr_convert(&x, f, &fl_binary32, a, &c);
        if (rc) {
            tc_oracle_fail(&lg, rc, "random_binary32", &x);
            continue;
        }
        got = fl_convert(f, &fl_binary32, a, &c, &fl);
        lg.cases++;
        if (!tc_same(f, got, fl, &x, 1))
            tc_report(&lg, "binary32", "convert binary32->", &c, &a, 1, &x,
                      got, fl);
    }
    printf("binary32 -> %s random: %ld cases, %ld mismatches\n", fmt_name,
           lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, n);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* Stochastic rounding (the seventh mode, which MPFR lacks): from binary32
 * inputs near f's range, every SR result is the oracle's round-down or
 * round-up result (any NaN for a NaN), with the same inexact flag, and an
 * exact input comes back exactly; and the frequency of rounding up a value
 * strictly between two neighbours matches its position between them (five
 * standard errors). */
START_TEST(stochastic_rounding_between_neighbours)
{
    const fl_format *f = tc_fmt(fmt_name);
    uint64_t rs = seed ^ 0x5eed5;
    long cases = 0, bad = 0, freq_checked = 0;
    for (int i = 0; i < 4000; i++) {
        const uint64_t r = tc_splitmix(&rs);
        int64_t e = f->emin - f->prec - 2 +
                    (int64_t)((r >> 24) % (uint64_t)(f->emax - f->emin +
                                                     f->prec + 5));
        uint64_t a;
        fl_ctx cd = ctx_of((int)(r % NCTX)), cu, c;
        fl_mpfr_res lo, hi;
        e = e < -126 ? -126 : e > 127 ? 127 : e;
        a = (tc_splitmix(&rs) & 0x807FFFFFu) | (uint64_t)(e + 127) << 23;
        cd.rm = FL_RDN;
        cu = cd;
        cu.rm = FL_RUP;
        ck_assert_int_eq(fl_mpfr_convert(&lo, f, &fl_binary32, a, &cd), 0);
        ck_assert_int_eq(fl_mpfr_convert(&hi, f, &fl_binary32, a, &cu), 0);
        c = cd;
        c.rm = FL_RSR;
        for (int k = 0; k < 16; k++) {
            unsigned fl = 0;
            uint64_t got;
            int ok;
            c.sr_seed = tc_splitmix(&rs);
            c.sr_index = (uint64_t)k;
            got = fl_convert(f, &fl_binary32, a, &c, &fl);
            {
                /* which directed result it is (a NaN matches a NaN) */
                const int is_lo = lo.is_nan ? fl_is_nan(f, got)
                                            : got == lo.bits;
                const int is_hi = hi.is_nan ? fl_is_nan(f, got)
                                            : got == hi.bits;
                /* both may be the same code with other flags (P3109's
                 * unsigned formats: 0 rounded, or 0 saturated) */
                ok = (is_lo &&
                      (fl & FL_INEXACT) == (lo.flags & FL_INEXACT)) ||
                     (is_hi && (fl & FL_INEXACT) == (hi.flags & FL_INEXACT));
            }
            cases++;
            if (!ok && bad++ < 8)
                printf("MISMATCH sr %s %#010" PRIx64 " seed %#" PRIx64
                       ": got %#" PRIx64 " flags %02x, rdn %#" PRIx64
                       " rup %#" PRIx64 "\n", fmt_name, a, c.sr_seed, got,
                       fl, lo.bits, hi.bits);
        }
    }
    /* frequencies: between each pair of positive neighbours below max */
    for (uint64_t t = 0; t + 1 < ncodes(f) && freq_checked < 8;
         t += ncodes(f) >= 64 ? 7 : 1) {
        double vl, vh, x;
        const int draws = 20000;
        int ups = 0;
        fl_ctx c = fl_ctx_make(FL_RSR);
        if (fl_is_nan(f, t) || fl_is_nan(f, t + 1) || fl_is_inf(f, t + 1) ||
            (f->sign_mask && ((t + 1) & f->sign_mask)))
            continue;
        vl = fl_to_double(f, t);
        vh = fl_to_double(f, t + 1);
        x = vl + (vh - vl) * 0.3;              /* exact in binary64 */
        c.sr_seed = seed;
        for (int k = 0; k < draws; k++) {
            unsigned fl = 0;
            c.sr_index = (uint64_t)k;
            ups += fl_from_double(f, x, &c, &fl) == t + 1;
        }
        {
            const double p = 0.3, sd = sqrt(p * (1 - p) / draws);
            const double got = (double)ups / draws;
            freq_checked++;
            if (fabs(got - p) > 5 * sd && bad++ < 8)
                printf("MISMATCH sr frequency %s between %#" PRIx64 " and "
                       "%#" PRIx64 ": %.4f, want %.4f +- %.4f\n", fmt_name,
                       t, t + 1, got, p, 5 * sd);
        }
    }
    printf("%s stochastic rounding: %ld cases, %ld frequency checks, %ld "
           "mismatches\n", fmt_name, cases, freq_checked, bad);
    ck_assert_int_eq(cases, 4000L * 16);
    ck_assert_int_ge(freq_checked, 2);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ---- integers ----------------------------------------------------------- */

START_TEST(every_code_to_int)
{
    const fl_format *f = tc_fmt(fmt_name);
    static const char *tn[4] = { "to_i32", "to_u32", "to_i64", "to_u64" };
    tc_log lg = { "to_int", 0, 0, 0 };
    for (int ty = 0; ty < 4; ty++)
        for (int ex = 0; ex < 2; ex++)
            for (int k = 0; k < nctx_heavy(); k++) {
                for (uint64_t a = 0; a < ncodes(f); a++) {
                    const fl_ctx c = ctx_heavy(k, a);
                    fl_mpfr_res x;
                    unsigned fl = 0;
                    uint64_t got;
                    int rc = fl_mpfr_to_int(&x, f, a, ty < 2 ? 32 : 64,
                                            !(ty & 1), ex, &c);
                    if (rc) {
                        tc_oracle_fail(&lg, rc, tn[ty], &x);
                        continue;
                    }
                    switch (ty) {
                    case 0: got = (uint32_t)fl_to_i32(f, a, ex, &c, &fl); break;
                    case 1: got = fl_to_u32(f, a, ex, &c, &fl); break;
                    case 2: got = (uint64_t)fl_to_i64(f, a, ex, &c, &fl); break;
                    default: got = fl_to_u64(f, a, ex, &c, &fl); break;
                    }
                    lg.cases++;
                    if (got != x.bits || (fl & FL_IEEE_FLAGS) != x.flags) {
                        char op[32];
                        snprintf(op, sizeof op, "%s exact=%d", tn[ty], ex);
                        tc_report(&lg, fmt_name, op, &c, &a, 1, &x, got, fl);
                    }
                }
            }
    printf("%s to integers: %ld cases, %ld mismatches\n", fmt_name, lg.cases,
           lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, 8L * nctx_heavy() * (long)ncodes(f));
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

START_TEST(from_int_boundaries)
{
    const fl_format *f = tc_fmt(fmt_name);
    tc_log lg = { "from_int", 0, 0, 0 };
    long expect = 0;
    for (int ty = 0; ty < 4; ty++) {
        const int is_signed = !(ty & 1), width = ty < 2 ? 32 : 64;
        for (int kk = 0; kk < width; kk++)
            for (int d = -3; d <= 3; d++)
                for (int neg = 0; neg < 2; neg++) {
                    uint64_t v = ((uint64_t)1 << kk) + (uint64_t)(int64_t)d;
                    if (neg)
                        v = (uint64_t)0 - v;
                    if (width == 32)
                        v = is_signed ? (uint64_t)(int64_t)(int32_t)(uint32_t)v
                                      : (uint32_t)v;
                    for (int k = 0; k < NCTX; k += 7) {
                        fl_ctx c = ctx_of(k);
                        fl_mpfr_res x;
                        unsigned fl = 0;
                        uint64_t got;
                        int rc = fl_mpfr_from_int(&x, f, v, is_signed, &c);
                        expect++;
                        if (rc) {
                            tc_oracle_fail(&lg, rc, "from_int", &x);
                            continue;
                        }
                        switch (ty) {
                        case 0: got = fl_from_i32(f, (int32_t)v, &c, &fl); break;
                        case 1: got = fl_from_u32(f, (uint32_t)v, &c, &fl); break;
                        case 2: got = fl_from_i64(f, (int64_t)v, &c, &fl); break;
                        default: got = fl_from_u64(f, v, &c, &fl); break;
                        }
                        lg.cases++;
                        if (!tc_same(f, got, fl, &x, 1))
                            tc_report(&lg, fmt_name, "from_int", &c, &v, 1,
                                      &x, got, fl);
                    }
                }
    }
    printf("%s from integers: %ld cases, %ld mismatches\n", fmt_name,
           lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, expect);
    ck_assert_int_eq(lg.cases, 2L * (32 + 32 + 64 + 64) * 7 * ((NCTX + 6) / 7));
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* ---- text --------------------------------------------------------------- */

/* Every code printed three ways parses back to itself (NaN: to a NaN; a
 * FINITE format's codes are all numbers). */
START_TEST(every_code_prints_and_parses_back)
{
    const fl_format *f = tc_fmt(fmt_name);
    long cases = 0, bad = 0;
    for (uint64_t a = 0; a < ncodes(f); a++) {
        char buf[3][2048];
        fl_print_exact(f, a, buf[0], sizeof buf[0]);
        fl_print_shortest(f, a, buf[1], sizeof buf[1]);
        fl_print_hex(f, a, buf[2], sizeof buf[2]);
        for (int i = 0; i < 3; i++) {
            fl_ctx c = fl_ctx_make(FL_RNE);
            unsigned fl = 0;
            uint64_t back = ~(uint64_t)0;
            const int rc = fl_parse(f, buf[i], &c, &fl, &back);
            /* exact and hex strings are exact; the shortest one need not
             * be (it only rounds back) */
            const int ok = rc == 0 &&
                (fl_is_nan(f, a) ? fl_is_nan(f, back)
                                 : back == a && (i == 1 ||
                                                 (fl & FL_IEEE_FLAGS) == 0));
            cases++;
            if (!ok && bad++ < 10)
                printf("MISMATCH print/parse %s %#" PRIx64 " '%s' -> rc %d "
                       "%#" PRIx64 " flags %02x\n", fmt_name, a, buf[i], rc,
                       back, fl);
        }
    }
    printf("%s print/parse round trips: %ld cases, %ld mismatches\n",
           fmt_name, cases, bad);
    ck_assert_int_eq(cases, 3L * (long)ncodes(f));
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Decimal strings of the midpoints between neighbours (and +-1 in the last
 * printed digit), and special words, through fl_parse against the oracle. */
START_TEST(parse_midpoints_against_mpfr)
{
    const fl_format *f = tc_fmt(fmt_name);
    tc_log lg = { "parse", 0, 0, 0 };
    static const char *words[] = { "inf", "-inf", "nan", "-nan", "0", "-0",
                                   "1e-60", "-1e-60", "1e60", "-1e60" };
    fl_ctx rne = fl_ctx_make(FL_RNE);
    long expect = 0;
    for (uint64_t a = 0; a < ncodes(f) + 10; a++) {
        char s[3][2100];
        int ns = 0;
        if (a < ncodes(f)) {
            fl_mpfr_res lo, hi;
            unsigned fl = 0;
            uint64_t b64lo, b64hi;
            double m;
            if (a + 1 >= ncodes(f) || fl_is_nan(f, a) || fl_is_nan(f, a + 1) ||
                fl_is_inf(f, a) || fl_is_inf(f, a + 1) ||
                (f->sign_mask && ((a ^ (a + 1)) & f->sign_mask)))
                continue;
            /* the neighbours' values through the oracle's decoder */
            if (fl_mpfr_convert(&lo, &fl_binary64, f, a, &rne) ||
                fl_mpfr_convert(&hi, &fl_binary64, f, a + 1, &rne))
                continue;
            b64lo = lo.bits;
            b64hi = hi.bits;
            m = 0.5 * fl_to_double(&fl_binary64, b64lo) +
                0.5 * fl_to_double(&fl_binary64, b64hi);   /* exact */
            (void)fl;
            snprintf(s[ns++], sizeof s[0], "%.40e", m);
            snprintf(s[ns++], sizeof s[0], "%.17e", m * (1 + 0x1p-40));
            snprintf(s[ns++], sizeof s[0], "%a", m * (1 - 0x1p-40));
        } else {
            snprintf(s[ns++], sizeof s[0], "%s", words[a - ncodes(f)]);
        }
        for (int i = 0; i < ns; i++)
            for (int k = 0; k < NCTX; k += 5) {
                fl_ctx c = ctx_of(k);
                fl_mpfr_res x;
                unsigned fl = 0;
                uint64_t got = 0;
                int rc = fl_mpfr_parse(&x, f, s[i], &c);
                expect++;
                if (rc) {
                    tc_oracle_fail(&lg, rc, s[i], &x);
                    continue;
                }
                if (fl_parse(f, s[i], &c, &fl, &got) != 0) {
                    lg.bad++;
                    printf("MISMATCH parse %s '%s': syntax error\n", fmt_name,
                           s[i]);
                    continue;
                }
                lg.cases++;
                if (!tc_same(f, got, fl, &x, 1))
                    tc_report(&lg, fmt_name, s[i], &c, &a, 1, &x, got, fl);
            }
    }
    printf("%s parse midpoints and words: %ld cases, %ld mismatches\n",
           fmt_name, lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, expect);
    ck_assert_int_ge(lg.cases, 10L * ((NCTX + 4) / 5));
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* ---- order: nextUp/nextDown, classify, compare -------------------------- */

/* The value of code a as the oracle decodes it: 0 and *v, or 1 for NaN. */
static int oracle_value(const fl_format *f, uint64_t a, double *v)
{
    fl_ctx c = fl_ctx_make(FL_RNE);
    fl_mpfr_res x;
    ck_assert_int_eq(fl_mpfr_convert(&x, &fl_binary64, f, a, &c), 0);
    if (x.is_nan)
        return 1;
    ck_assert_int_eq(x.flags, 0);   /* every value is a binary64 */
    *v = fl_to_double(&fl_binary64, x.bits);
    return 0;
}

/* nextUp / nextDown of every code (plain context): the smallest value
 * above / largest below among all codes, by the oracle's values; where
 * nothing lies beyond, the format's rule (documented in next.c). */
START_TEST(every_code_next_up_down)
{
    const fl_format *f = tc_fmt(fmt_name);
    static double val[256];
    static int isnan_[256];
    const uint64_t n = ncodes(f);
    const fl_ctx c = fl_ctx_make(FL_RNE);
    long cases = 0, bad = 0, numbers = 0;
    for (uint64_t a = 0; a < n; a++) {
        isnan_[a] = oracle_value(f, a, &val[a]);
        numbers += !isnan_[a];
    }
    for (uint64_t a = 0; a < n; a++) {
        if (isnan_[a])
            continue;
        for (int up = 0; up < 2; up++) {
            /* the neighbour by value: -0 counts as 0 */
            int best = -1;
            unsigned fl = 0;
            uint64_t got;
            for (uint64_t b = 0; b < n; b++) {
                if (isnan_[b] || (up ? !(val[b] > val[a]) : !(val[b] < val[a])))
                    continue;
                if (best < 0 || (up ? val[b] < val[best] : val[b] > val[best]) ||
                    (val[b] == val[best] && val[b] == 0 &&
                     /* between the zeros: the one of a's sign (IEEE
                      * 5.3.1: nextUp(-min) = -0, nextDown(+min) = +0) */
                     !signbit(val[b]) == !signbit(val[a])))
                    best = (int)b;
            }
            got = up ? fl_next_up(f, a, &c, &fl) : fl_next_down(f, a, &c, &fl);
            cases++;
            if (best >= 0) {
                if (got != (uint64_t)best && bad++ < 10)
                    printf("MISMATCH next%s %s %#" PRIx64 ": want %#x got %#"
                           PRIx64 "\n", up ? "Up" : "Down", fmt_name, a, best,
                           got);
            } else {
                /* nothing beyond: +-inf stays, else NaN (or a number with
                 * invalid, in a format without NaN) */
                const int ok = (fl_is_inf(f, a) && got == a) ||
                               fl_is_nan(f, got) || (fl & FL_INVALID) ||
                               (f->nan_style == FL_NANSTYLE_FINITE &&
                                got == a);
                if (!ok && bad++ < 10)
                    printf("MISMATCH next%s %s %#" PRIx64 ": nothing beyond, "
                           "got %#" PRIx64 " flags %02x\n", up ? "Up" : "Down",
                           fmt_name, a, got, fl);
            }
        }
    }
    printf("%s nextUp/nextDown: %ld cases, %ld mismatches\n", fmt_name,
           cases, bad);
    ck_assert_int_eq(cases, 2L * numbers);
    ck_assert_int_ge(numbers, (long)n / 2);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* fl_classify against the oracle's value and the format's smallest normal
 * 2^emin, emin computed here from the bias; fl_compare (quiet and
 * signaling) of every pair against the values' order. */
START_TEST(every_pair_classify_compare)
{
    const fl_format *f = tc_fmt(fmt_name);
    static double val[256];
    static int isnan_[256];
    const uint64_t n = ncodes(f);
    const double min_normal = ldexp(1.0, (f->has_zero ? 1 : 0) - f->bias);
    const fl_ctx c = fl_ctx_make(FL_RNE);
    long cases = 0, bad = 0;
    for (uint64_t a = 0; a < n; a++) {
        fl_class k = fl_classify(f, a), want;
        isnan_[a] = oracle_value(f, a, &val[a]);
        if (isnan_[a])
            want = fl_is_snan(f, a) ? FL_CLASS_SNAN : FL_CLASS_QNAN;
        else if (isinf(val[a]))
            want = val[a] < 0 ? FL_CLASS_NEG_INF : FL_CLASS_POS_INF;
        else if (val[a] == 0)
            want = signbit(val[a]) ? FL_CLASS_NEG_ZERO : FL_CLASS_POS_ZERO;
        else if (fabs(val[a]) < min_normal)
            want = val[a] < 0 ? FL_CLASS_NEG_SUBNORMAL : FL_CLASS_POS_SUBNORMAL;
        else
            want = val[a] < 0 ? FL_CLASS_NEG_NORMAL : FL_CLASS_POS_NORMAL;
        cases++;
        if (k != want && bad++ < 10)
            printf("MISMATCH classify %s %#" PRIx64 ": want %s got %s\n",
                   fmt_name, a, fl_class_name(want), fl_class_name(k));
    }
    for (uint64_t a = 0; a < n; a++)
        for (uint64_t b = 0; b < n; b++)
            for (int sig = 0; sig < 2; sig++) {
                unsigned fl = 0;
                const int got = fl_compare(f, a, b, sig, &c, &fl);
                const int un = isnan_[a] || isnan_[b];
                const int want = un ? FL_CMP_UN
                                 : val[a] < val[b] ? FL_CMP_LT
                                 : val[a] > val[b] ? FL_CMP_GT : FL_CMP_EQ;
                const unsigned wfl =
                    un && (sig || fl_is_snan(f, a) || fl_is_snan(f, b))
                        ? FL_INVALID : 0;
                cases++;
                if ((got != want || (fl & FL_IEEE_FLAGS) != wfl) && bad++ < 10)
                    printf("MISMATCH compare %s %#" PRIx64 " %#" PRIx64
                           " sig=%d: want %d/%02x got %d/%02x\n", fmt_name, a,
                           b, sig, want, wfl, got, fl);
            }
    printf("%s classify and compare: %ld cases, %ld mismatches\n", fmt_name,
           cases, bad);
    ck_assert_int_eq(cases, (long)n + 2L * (long)(n * n));
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        fmt_name = argv[1];
    long_run = argc > 2 && strcmp(argv[2], "long") == 0;
    if (!fl_mpfr_available()) {
        printf("SKIP: built without MPFR, no oracle\n");
        return TC_SKIP;
    }
    if (tc_fmt(fmt_name)->width > 8) {
        fprintf(stderr, "test_small: %s is wider than 8 bits\n", fmt_name);
        return EXIT_FAILURE;
    }
    seed = tc_seed(fmt_name);
    const TTest *tests[] = {
        every_code_sqrt, every_code_rint, every_code_rint_exact,
        every_code_converted_out, every_code_converted_in,
        narrow_from_binary32, random_binary32,
        stochastic_rounding_between_neighbours, every_code_to_int,
        from_int_boundaries, every_code_prints_and_parses_back,
        parse_midpoints_against_mpfr, every_code_next_up_down,
        every_pair_classify_compare, NULL };
    return tc_exit(tc_run_suite("small", tc_tcase(fmt_name, 900, tests),
                                TC_FORKED));
}
