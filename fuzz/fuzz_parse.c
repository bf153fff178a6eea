/*
 * fuzz_parse.c — the number and name parsers.
 *
 * Input: a format (1 or 4 bytes, fuzz_common.h), a context (2 bytes), then
 * the text.  Properties checked:
 *   - fl_parse never crashes on any text, in any format and mode;
 *   - when fl_parse accepts a number that MPFR also reads as a whole
 *     number, the bits agree (any NaN matches any NaN) and so do the IEEE
 *     flags (MPFR oracle, src/oracle/mpfr_oracle.h);
 *   - every accepted non-NaN value prints (exact, shortest, hex-float) to a
 *     string that parses back to the same bits, exact ones with no flag;
 *   - the format-spec, rounding-mode, NaN-preset and integer parsers of the
 *     core and of the command line never crash on the same text.
 */
#include <inttypes.h>

#include "fuzz_common.h"
#include "cli.h"
#include "mpfr_oracle.h"

/* Print a with one of the printers into a fresh string. */
static char *print_with(size_t (*pr)(const fl_format *, uint64_t, char *,
                                     size_t),
                        const fl_format *f, uint64_t a)
{
    size_t n = pr(f, a, NULL, 0);
    char *s = malloc(n + 1);
    if (s == NULL)
        abort();
    size_t m = pr(f, a, s, n + 1);
    if (m != n || strlen(s) != n)
        FZ_FAIL("printer length %zu then %zu, string %zu", n, m, strlen(s));
    return s;
}

/* s must parse back in round-to-nearest-even to exactly a; exact: with no
 * flag at all. */
static void check_reparse(const fl_format *f, uint64_t a, const char *s,
                          int exact, const char *what, const char *orig)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t b = 0;
    if (fl_parse(f, s, &c, &fl, &b) != 0)
        FZ_FAIL("%s print of 0x%" PRIx64 " ('%s', from '%.200s') does not "
                "parse (format e%d p%d bias %d style%d signed%d sub%d)", what, a, s, orig,
                f->ebits, f->prec, (int)f->bias, f->nan_style, f->is_signed,
                f->subnormals);
    if (b != a || (exact && (fl & FL_IEEE_FLAGS)))
        FZ_FAIL("%s print of 0x%" PRIx64 " is '%s', which parses to 0x%"
                PRIx64 " flags %02x (format e%d p%d style%d sub%d sat%d)", what,
                a, s, b, fl & FL_IEEE_FLAGS, f->ebits, f->prec, f->nan_style,
                f->subnormals, f->saturate);
}

static void check_names(const char *s)
{
    fl_format g;
    char err[256];
    uint64_t u;
    double d;
    fl_format g0;
    int core_ok = fl_format_parse(&g0, s, err, sizeof err) == 0;
    (void)fl_format_by_name(s);
    (void)fl_rm_parse(s);
    (void)fl_nan_preset_parse(s);
    (void)cli_parse_u64(s, &u);
    (void)cli_parse_double(s, &d);
    if (cli_parse_format(s, &g, "fuzz") == 0) {
        if (!core_ok)
            FZ_FAIL("cli_parse_format accepts '%.200s', the core does not", s);
    }
    (void)cli_parse_rm(s, "fuzz");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    fl_format f;
    fz_quiet();
    fz_format(&in, &f);
    fl_ctx c = fz_ctx(&in);
    char *s = fz_str(in.p, in.n, 4096);

    check_names(s);

    unsigned fl = 0;
    uint64_t r = 0;
    if (fl_parse(&f, s, &c, &fl, &r) != 0) {
        free(s);
        return 0;
    }
    if (f.width < 64 && (r >> f.width) != 0)
        FZ_FAIL("fl_parse('%.200s') gave 0x%" PRIx64 ", wider than %d bits",
                s, r, f.width);

    fl_mpfr_res m;
    if (fl_mpfr_parse(&m, &f, s, &c) == FL_MPFR_OK) {
        int same = m.is_nan ? fl_is_nan(&f, r) : m.bits == r;
        if (!same || m.flags != (fl & FL_IEEE_FLAGS))
            FZ_FAIL("fl_parse('%.300s') in e%d p%d style%d sub%d sat%d, rm %d "
                    "tin %d ftz %d sat %d: core 0x%" PRIx64 " flags %02x, "
                    "MPFR 0x%" PRIx64 "%s flags %02x", s, f.ebits, f.prec,
                    f.nan_style, f.subnormals, f.saturate, c.rm, c.tininess,
                    c.ftz, c.saturate, r, fl & FL_IEEE_FLAGS, m.bits,
                    m.is_nan ? " (nan)" : "", m.flags);
    }

    if (!fl_is_nan(&f, r)) {
        char *e = print_with(fl_print_exact, &f, r);
        char *h = print_with(fl_print_hex, &f, r);
        char *sh = print_with(fl_print_shortest, &f, r);
        check_reparse(&f, r, e, 1, "exact", s);
        check_reparse(&f, r, h, 1, "hex", s);
        check_reparse(&f, r, sh, 0, "shortest", s);
        free(e);
        free(h);
        free(sh);
    }
    free(s);
    return 0;
}
