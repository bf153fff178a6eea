/*
 * test_text.c — decimal text against MPFR.
 *   - fl_parse on random decimal strings (any length, exponents across the
 *     format's whole range) and on the exact decimal expansions of
 *     midpoints between neighbours, nudged above and below, in all six
 *     modes, vs the oracle's mpfr_strtofr + rounding: value, flags, ternary;
 *   - fl_print_exact is exact (MPFR reads it back without rounding);
 *   - fl_print_shortest reads back (fl_parse and MPFR) to the same bits and
 *     is shortest (no string with one digit fewer rounds back);
 *   - fl_print_hex reads back exactly.
 * binary16 and bfloat16 values are all printed; wider formats sampled.
 */

#include "test_oracle.h"
#include "test_check.h"

#ifdef FPLAB_HAVE_MPFR
#include <gmp.h>
#include <mpfr.h>

static uint64_t seed;
static const char *const fmts[] = { "binary16", "bfloat16", "binary32",
                                    "binary64", "fp8-e4m3", "fp8-e5m2" };
#define NFMT 6

static uint64_t width_mask(const fl_format *f)
{
    return f->width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << f->width) - 1;
}

/* A random decimal string whose value lies around the format's range. */
static void random_decimal(const fl_format *f, uint64_t *rs, char *s)
{
    uint64_t r = tc_splitmix(rs);
    int nd = 1 + (int)(r % 28), dot = (int)((r >> 8) % (uint64_t)(nd + 1));
    /* decimal exponent range of the format, with margins */
    int lo = (int)((f->emin - f->prec - 4) * 0.30103) - 2;
    int hi = (int)((f->emax + 2) * 0.30103) + 2;
    int e = lo + (int)((r >> 16) % (uint64_t)(hi - lo + 1)) - (nd - dot);
    char *p = s;
    if ((r >> 40) & 1)
        *p++ = '-';
    for (int i = 0; i < nd; i++) {
        if (i == dot && i > 0)
            *p++ = '.';
        *p++ = (char)('0' + tc_splitmix(rs) % 10);
    }
    sprintf(p, "e%d", e);
}

/* The exact decimal of the midpoint between a (finite, > 0) and its upper
 * neighbour, nudged: how = 0 exact, 1 a hair above, -1 a hair below. */
static void midpoint_decimal(const fl_format *f, uint64_t a, int how,
                             int neg, char *s, size_t len)
{
    mpfr_t m, n;
    mpfr_exp_t ex;
    char *dig;
    mpfr_inits2(2200, m, n, (mpfr_ptr)0);
    mpfr_set_d(m, fl_to_double(f, a), MPFR_RNDN);
    mpfr_set_d(n, fl_to_double(f, a + 1), MPFR_RNDN);
    mpfr_add(m, m, n, MPFR_RNDN);
    mpfr_div_2ui(m, m, 1, MPFR_RNDN);            /* exact */
    if (how < 0)
        mpfr_nextbelow(m);
    dig = mpfr_get_str(NULL, &ex, 10, 800, m, how < 0 ? MPFR_RNDZ : MPFR_RNDN);
    /* strip trailing zeros (exact expansions are shorter than 800) */
    for (size_t k = strlen(dig); k > 1 && dig[k - 1] == '0'; k--)
        dig[k - 1] = '\0';
    snprintf(s, len, "%s0.%s%se%ld", neg ? "-" : "", dig, how > 0 ? "1" : "",
             (long)ex);
    mpfr_free_str(dig);
    mpfr_clears(m, n, (mpfr_ptr)0);
}

static void check_parse(tc_log *lg, const fl_format *f, const char *s,
                        const fl_ctx *c)
{
    fl_mpfr_res x;
    unsigned fl = 0;
    uint64_t got = 0;
    int rc = fl_mpfr_parse(&x, f, s, c), prc;
    if (rc) {
        tc_oracle_fail(lg, rc, s, &x);
        return;
    }
    prc = fl_parse(f, s, c, &fl, &got);
    lg->cases++;
    if (prc != 0 || !tc_same(f, got, fl, &x, 1)) {
        char cs[96];
        lg->bad++;
        if (lg->bad <= 12)
            printf("MISMATCH parse %s \"%.120s%s\" [%s]: expected %#" PRIx64
                   " flags %02x tern %d, got rc %d %#" PRIx64
                   " flags %02x tern %d\n", f->name, s,
                   strlen(s) > 120 ? "..." : "", tc_ctx_str(c, cs, sizeof cs),
                   x.bits, x.flags, x.ternary, prc, got, fl & FL_IEEE_FLAGS,
                   fl_ternary(fl));
    }
}

START_TEST(parse_random_decimal_strings)
{
    uint64_t rs = seed ^ 0x5A5A;
    tc_log lg = { "parse_random", 0, 0, 0 };
    const long per = 20000L * tc_scale();
    char s[128];
    for (int fi = 0; fi < NFMT; fi++) {
        const fl_format *f = tc_fmt(fmts[fi]);
        for (long i = 0; i < per; i++) {
            uint64_t r = tc_splitmix(&rs);
            fl_ctx c = tc_ctx(tc_modes[r % 6], (int)((r >> 3) & 1));
            random_decimal(f, &rs, s);
            check_parse(&lg, f, s, &c);
        }
    }
    printf("parse random strings: %ld cases, %ld mismatches\n", lg.cases,
           lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, NFMT * per);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

START_TEST(parse_midpoints_exact_and_nudged)
{
    uint64_t rs = seed ^ 0xA5A5;
    tc_log lg = { "parse_midpoints", 0, 0, 0 };
    const long per = 1500L * tc_scale();
    char s[2048];
    for (int fi = 0; fi < NFMT; fi++) {
        const fl_format *f = tc_fmt(fmts[fi]);
        for (long i = 0; i < per; i++) {
            uint64_t a = tc_splitmix(&rs) & width_mask(f) & ~f->sign_mask;
            int neg = (int)(i & 1);
            if (a >= f->max_bits)     /* need a finite upper neighbour */
                a = f->max_bits - 1;
            if (i % 8 == 0)           /* the top: midpoint max..2^(emax+1) */
                a = f->max_bits - 1;
            for (int how = -1; how <= 1; how++) {
                midpoint_decimal(f, a, how, neg, s, sizeof s);
                for (int mi = 0; mi < 6; mi++) {
                    fl_ctx c = tc_ctx(tc_modes[mi], (int)(i >> 1) & 1);
                    check_parse(&lg, f, s, &c);
                }
            }
        }
    }
    printf("parse midpoints: %ld cases, %ld mismatches\n", lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, NFMT * per * 3 * 6);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* Values to print: every pattern of <= 16-bit formats, else a sample. */
static long for_values(const fl_format *f, uint64_t *rs, long sample,
                       uint64_t *out)
{
    long n = 0;
    if (f->width <= 16) {
        for (uint64_t a = 0; a < ((uint64_t)1 << f->width); a++)
            out[n++] = a;
    } else {
        for (long i = 0; i < sample; i++)
            out[n++] = tc_splitmix(rs) & width_mask(f);
    }
    return n;
}

static int value_of(mpfr_ptr v, const fl_format *f, uint64_t a)
{
    mpfr_set_d(v, fl_to_double(f, a), MPFR_RNDN);
    return !fl_is_nan(f, a);
}

START_TEST(print_exact_is_exact_and_hex_reads_back)
{
    uint64_t rs = seed ^ 0x77;
    static uint64_t vals[1 << 16];
    long cases = 0, bad = 0, expect = 0;
    mpfr_t v, t;
    char buf[1200], *end;
    mpfr_inits2(64, v, t, (mpfr_ptr)0);
    for (int fi = 0; fi < NFMT; fi++) {
        const fl_format *f = tc_fmt(fmts[fi]);
        long n = for_values(f, &rs, 20000, vals);
        for (long i = 0; i < n; i++) {
            uint64_t a = vals[i];
            size_t len;
            int tern, ok;
            if (!value_of(v, f, a))
                continue;
            expect += 2;
            len = fl_print_exact(f, a, buf, sizeof buf);
            tern = mpfr_strtofr(t, buf, &end, 10, MPFR_RNDN);
            ok = len == strlen(buf) && *end == '\0' && tern == 0 &&
                 mpfr_equal_p(t, v) && mpfr_signbit(t) == mpfr_signbit(v);
            cases++;
            if (!ok && ++bad <= 12)
                printf("MISMATCH print_exact %s %#" PRIx64 ": \"%.80s\"\n",
                       f->name, a, buf);
            len = fl_print_hex(f, a, buf, sizeof buf);
            tern = mpfr_strtofr(t, buf, &end, 0, MPFR_RNDN);
            ok = len == strlen(buf) && *end == '\0' && tern == 0 &&
                 mpfr_equal_p(t, v) && mpfr_signbit(t) == mpfr_signbit(v);
            cases++;
            if (!ok && ++bad <= 12)
                printf("MISMATCH print_hex %s %#" PRIx64 ": \"%s\"\n",
                       f->name, a, buf);
        }
    }
    mpfr_clears(v, t, (mpfr_ptr)0);
    printf("print exact/hex: %ld cases, %ld mismatches\n", cases, bad);
    ck_assert_int_eq(cases, expect);
    ck_assert_int_gt(cases, 200000);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Count the significant digits of a decimal string. */
static int sig_digits(const char *s)
{
    int n = 0, started = 0, trailing = 0;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0')
            started = 1;
        if (started) {
            n++;
            trailing = *s == '0' ? trailing + 1 : 0;
        }
    }
    return n - trailing;
}

START_TEST(print_shortest_round_trips_and_is_shortest)
{
    uint64_t rs = seed ^ 0x99;
    static uint64_t vals[1 << 16];
    long cases = 0, bad = 0, expect = 0;
    mpfr_t v;
    char buf[512], alt[64];
    fl_ctx rne = fl_ctx_make(FL_RNE);
    mpfr_init2(v, 64);
    for (int fi = 0; fi < NFMT; fi++) {
        const fl_format *f = tc_fmt(fmts[fi]);
        long n = for_values(f, &rs, 20000, vals);
        for (long i = 0; i < n; i++) {
            uint64_t a = vals[i], back = 0;
            unsigned fl = 0;
            fl_mpfr_res x;
            int ok, nd;
            if (!value_of(v, f, a) || fl_is_inf(f, a))
                continue;
            expect++;
            fl_print_shortest(f, a, buf, sizeof buf);
            ok = fl_parse(f, buf, &rne, &fl, &back) == 0 && back == a &&
                 fl_mpfr_parse(&x, f, buf, &rne) == 0 && x.bits == a;
            /* shortest: no (nd-1)-digit decimal rounds back to a */
            nd = sig_digits(buf);
            if (ok && nd > 1 && !mpfr_zero_p(v)) {
                for (int dirn = 0; dirn < 2 && ok; dirn++) {
                    mpfr_exp_t ex;
                    char *dig = mpfr_get_str(NULL, &ex, 10, (size_t)(nd - 1),
                                             v, dirn ? MPFR_RNDU : MPFR_RNDD);
                    snprintf(alt, sizeof alt, "%s0.%se%ld",
                             dig[0] == '-' ? "-" : "",
                             dig[0] == '-' ? dig + 1 : dig, (long)ex);
                    if (fl_mpfr_parse(&x, f, alt, &rne) == 0 && x.bits == a)
                        ok = 0;
                    mpfr_free_str(dig);
                }
            }
            cases++;
            if (!ok && ++bad <= 12)
                printf("MISMATCH print_shortest %s %#" PRIx64 ": \"%s\" (%d"
                       " digits; shorter: \"%s\")\n", f->name, a, buf, nd,
                       alt);
        }
    }
    mpfr_clear(v);
    printf("print shortest: %ld cases, %ld mismatches\n", cases, bad);
    ck_assert_int_eq(cases, expect);
    ck_assert_int_gt(cases, 100000);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    if (!fl_mpfr_available()) {
        printf("SKIP: built without MPFR, no oracle\n");
        return TC_SKIP;
    }
    seed = tc_seed("text");
    const TTest *tests[] = { parse_random_decimal_strings,
                             parse_midpoints_exact_and_nudged,
                             print_exact_is_exact_and_hex_reads_back,
                             print_shortest_round_trips_and_is_shortest,
                             NULL };
    return tc_exit(tc_run_suite("text", tc_tcase("text", 900, tests),
                                TC_FORKED));
}

#else
int main(void)
{
    printf("SKIP: built without MPFR, no oracle\n");
    return TC_SKIP;
}
#endif
