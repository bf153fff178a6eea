/*
 * test_unary.c — every input of a 16-bit format (binary16 or bfloat16,
 * argv[1]) through every unary operation and conversion, in all six
 * deterministic rounding modes and both tininess rules, against the MPFR
 * oracle: value, flags and ternary.
 *   sqrt, rint (inexact-silent and exact), conversions to binary32,
 *   binary64, the other 16-bit format and both fp8 formats, conversions to
 *   i32/u32/i64/u64 (exact and not, NaN presets rotated by input), and the
 *   narrowing conversions binary32/binary64 -> format on the neighbourhood
 *   of every value and of every midpoint between neighbours.
 */

#include "test_oracle.h"
#include "test_check.h"

static const char *fmt_name = "binary16";

static const char *other16(void)
{
    return strcmp(fmt_name, "binary16") == 0 ? "bfloat16" : "binary16";
}

/* f(a) for one op code over all 2^16 inputs in all modes x tininess. */
enum { U_SQRT, U_RINT, U_RINT_EXACT };

static void sweep_arith(int which)
{
    const fl_format *f = tc_fmt(fmt_name);
    static const int mpfr_op[] = { FL_MPFR_SQRT, FL_MPFR_RINT,
                                   FL_MPFR_RINT_EXACT };
    tc_log lg = { fl_mpfr_op_name(mpfr_op[which]), 0, 0, 0 };
    for (int mi = 0; mi < 6; mi++)
        for (int tn = 0; tn < 2; tn++) {
            fl_ctx c = tc_ctx(tc_modes[mi], tn);
            for (uint64_t a = 0; a < 0x10000; a++) {
                fl_mpfr_res x;
                unsigned fl = 0;
                uint64_t got;
                int rc = fl_mpfr_arith(&x, mpfr_op[which], f, &a, &c);
                if (rc) {
                    tc_oracle_fail(&lg, rc, lg.test, &x);
                    continue;
                }
                if (which == U_SQRT)
                    got = fl_sqrt(f, a, &c, &fl);
                else
                    got = fl_rint(f, a, which == U_RINT_EXACT, &c, &fl);
                lg.cases++;
                if (!tc_same(f, got, fl, &x, 1))
                    tc_report(&lg, f->name, lg.test, &c, &a, 1, &x, got, fl);
            }
        }
    printf("%s %s: %ld cases, %ld mismatches\n", fmt_name, lg.test, lg.cases,
           lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, 6 * 2 * 0x10000);
    ck_assert_int_eq(lg.bad, 0);
}

START_TEST(exhaustive_sqrt) { sweep_arith(U_SQRT); }
END_TEST
START_TEST(exhaustive_rint) { sweep_arith(U_RINT); }
END_TEST
START_TEST(exhaustive_rint_exact) { sweep_arith(U_RINT_EXACT); }
END_TEST

/* Conversion of every input from fmt_name to dst. */
static long sweep_convert_from(const char *dst_name, tc_log *lg)
{
    const fl_format *f = tc_fmt(fmt_name), *d = tc_fmt(dst_name);
    long n = 0;
    for (int mi = 0; mi < 6; mi++)
        for (int tn = 0; tn < 2; tn++) {
            fl_ctx c = tc_ctx(tc_modes[mi], tn);
            for (uint64_t a = 0; a < 0x10000; a++) {
                fl_mpfr_res x;
                unsigned fl = 0;
                uint64_t got;
                int rc = fl_mpfr_convert(&x, d, f, a, &c);
                if (rc) {
                    tc_oracle_fail(lg, rc, dst_name, &x);
                    continue;
                }
                got = fl_convert(d, f, a, &c, &fl);
                n++;
                if (!tc_same(d, got, fl, &x, 1)) {
                    char op[64];
                    snprintf(op, sizeof op, "convert %s->%s", f->name,
                             d->name);
                    tc_report(lg, f->name, op, &c, &a, 1, &x, got, fl);
                }
            }
        }
    return n;
}

START_TEST(exhaustive_convert_out)
{
    const char *dsts[] = { "binary32", "binary64", other16(), "fp8-e5m2",
                           "fp8-e4m3", "ieee:4:3", "tf32" };
    tc_log lg = { "convert_out", 0, 0, 0 };
    long n = 0;
    for (size_t i = 0; i < sizeof dsts / sizeof dsts[0]; i++)
        n += sweep_convert_from(dsts[i], &lg);
    lg.cases = n;
    printf("%s convert to 7 formats: %ld cases, %ld mismatches\n", fmt_name,
           n, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(n, 7L * 12 * 0x10000);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* Narrowing from src (binary32 or binary64) into fmt_name: for every
 * value t of the format and its upper neighbour, the source patterns of
 * t and of the midpoint, each +-0, 1, 2 source ulps. */
static void sweep_narrow(const char *src_name)
{
    const fl_format *f = tc_fmt(fmt_name), *s = tc_fmt(src_name);
    tc_log lg = { "narrow", 0, 0, 0 };
    fl_ctx up = fl_ctx_make(FL_RNE);
    long expect = 0;
    for (uint64_t t = 0; t < 0x10000; t++) {
        unsigned fl = 0;
        uint64_t st, sn, cand[10];
        int nc = 0;
        if (fl_is_nan(f, t))
            continue;
        st = fl_convert(s, f, t, &up, &fl);
        /* the neighbour above in magnitude, converted (inf stays inf) */
        {
            uint64_t nb = t + 1;
            if ((nb & 0x7FFF) == 0 || fl_is_nan(f, nb))
                nb = t;
            sn = fl_convert(s, f, nb, &up, &fl);
        }
        for (int d = -2; d <= 2; d++) {
            cand[nc++] = st + (uint64_t)(int64_t)d;
            cand[nc++] = st / 2 + sn / 2 + (st & sn & 1) + (uint64_t)(int64_t)d;
        }
        for (int mi = 0; mi < 6; mi++)
            for (int tn = 0; tn < 2; tn++) {
                fl_ctx c = tc_ctx(tc_modes[mi], tn);
                for (int k = 0; k < nc; k++) {
                    fl_mpfr_res x;
                    uint64_t a = cand[k] & (s->width == 64
                                                ? ~(uint64_t)0
                                                : ((uint64_t)1 << s->width) - 1);
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
                    if (!tc_same(f, got, fl, &x, 1)) {
                        char op[64];
                        snprintf(op, sizeof op, "convert %s->%s", s->name,
                                 f->name);
                        tc_report(&lg, s->name, op, &c, &a, 1, &x, got, fl);
                    }
                }
            }
    }
    printf("%s -> %s neighbourhoods: %ld cases, %ld mismatches\n", src_name,
           fmt_name, lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, expect);
    ck_assert_int_gt(lg.cases, 12L * 10 * 0xF000);
    ck_assert_int_eq(lg.bad, 0);
}

START_TEST(narrow_from_binary32) { sweep_narrow("binary32"); }
END_TEST
START_TEST(narrow_from_binary64) { sweep_narrow("binary64"); }
END_TEST

/* Every input to each integer type, exact and not, in all modes; the NaN
 * preset (which decides invalid results) rotates with the input. */
START_TEST(exhaustive_to_int)
{
    const fl_format *f = tc_fmt(fmt_name);
    static const char *tn[4] = { "to_i32", "to_u32", "to_i64", "to_u64" };
    tc_log lg = { "to_int", 0, 0, 0 };
    for (int ty = 0; ty < 4; ty++)
        for (int ex = 0; ex < 2; ex++)
            for (int mi = 0; mi < 6; mi++)
                for (uint64_t a = 0; a < 0x10000; a++) {
                    fl_ctx c = tc_ctx(tc_modes[mi], FL_TINY_AFTER);
                    fl_mpfr_res x;
                    unsigned fl = 0;
                    uint64_t got;
                    int rc;
                    c.nan = (uint8_t)(a % FL_NANP_COUNT);
                    rc = fl_mpfr_to_int(&x, f, a, ty < 2 ? 32 : 64,
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
                    /* integer results: compare value and IEEE flags */
                    if (got != x.bits || (fl & FL_IEEE_FLAGS) != x.flags) {
                        char op[32];
                        snprintf(op, sizeof op, "%s exact=%d", tn[ty], ex);
                        tc_report(&lg, f->name, op, &c, &a, 1, &x, got, fl);
                    }
                }
    printf("%s to integers: %ld cases, %ld mismatches\n", fmt_name, lg.cases,
           lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, 4L * 2 * 6 * 0x10000);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* From integers: boundaries (powers of two +-3, extremes) and 2^16 random
 * values per type, biased toward the format's overflow threshold. */
START_TEST(from_int_boundaries_and_random)
{
    const fl_format *f = tc_fmt(fmt_name);
    uint64_t rs = tc_seed("from_int");
    tc_log lg = { "from_int", 0, 0, 0 };
    long expect = 0;
    for (int ty = 0; ty < 4; ty++) {
        const int is_signed = !(ty & 1), width = ty < 2 ? 32 : 64;
        uint64_t vals[2048];
        int nv = 0;
        for (int k = 0; k < width; k++)
            for (int d = -3; d <= 3; d++) {
                uint64_t v = ((uint64_t)1 << k) + (uint64_t)(int64_t)d;
                vals[nv++] = v;
                vals[nv++] = (uint64_t)0 - v;
            }
        while (nv < 2048) {
            int sh = (int)(tc_splitmix(&rs) >> 58);
            vals[nv++] = tc_splitmix(&rs) >> sh;
        }
        for (int i = 0; i < nv; i++) {
            uint64_t v = vals[i];
            if (width == 32)
                v = is_signed ? (uint64_t)(int64_t)(int32_t)(uint32_t)v
                              : (uint32_t)v;
            for (int mi = 0; mi < 6; mi++) {
                fl_ctx c = tc_ctx(tc_modes[mi], i & 1);
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
                if (!tc_same(f, got, fl, &x, 1)) {
                    static const char *nm[4] = { "from_i32", "from_u32",
                                                 "from_i64", "from_u64" };
                    tc_report(&lg, f->name, nm[ty], &c, &v, 1, &x, got, fl);
                }
            }
        }
    }
    printf("%s from integers: %ld cases, %ld mismatches\n", fmt_name,
           lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, 4L * 2048 * 6);
    ck_assert_int_eq(lg.cases, expect);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        fmt_name = argv[1];
    if (!fl_mpfr_available()) {
        printf("SKIP: built without MPFR, no oracle\n");
        return TC_SKIP;
    }
    const TTest *tests[] = { exhaustive_sqrt, exhaustive_rint,
                             exhaustive_rint_exact, exhaustive_convert_out,
                             narrow_from_binary32, narrow_from_binary64,
                             exhaustive_to_int,
                             from_int_boundaries_and_random, NULL };
    return tc_exit(tc_run_suite("unary", tc_tcase(fmt_name, 900, tests),
                                TC_FORKED));
}
