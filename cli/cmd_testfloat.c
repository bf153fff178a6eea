/*
 * cmd_testfloat.c — `fplab testfloat FUNC`: check or answer lines in the
 * format of Berkeley TestFloat's testfloat_gen.
 *
 * A line holds the operands in hex, then optionally the expected result and
 * the expected flags (two hex digits: inexact 01, underflow 02, overflow 04,
 * infinite 08, invalid 10).  Lines with expected fields are checked against
 * fplab; lines with only operands are answered: printed back with fplab's
 * result and flags appended, in testfloat_gen's own spelling (uppercase hex
 * of the result width), so `gen | fplab testfloat F | fplab testfloat F`
 * round-trips.  Blank lines and lines starting with '#' are skipped.
 *
 * Where reports go: when the first data line is a check line, mismatches and
 * the summary go to stdout; when it is an answer line, stdout carries only
 * the answered lines and reports go to stderr.
 *
 * The function names, their evaluation and TestFloat's rules for judging a
 * result are the library's (fplab/ops.h: fl_testfloat_*); this file reads
 * the lines and prints.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fplab/ops.h"

#define COUNT(a) (sizeof a / sizeof a[0])

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab testfloat FUNC [options] < LINES\n"
"\n"
"Reads lines in Berkeley TestFloat's testfloat_gen format on stdin: the\n"
"operands in hex, then the expected result and the expected flags as two\n"
"hex digits (inexact 01, underflow 02, overflow 04, infinite 08, invalid\n"
"10).  Each such line is computed with fplab and compared, value and flags;\n"
"each mismatch is printed (inputs, expected, got), then a summary line\n"
"'N cases, M mismatches'.  A line with only the operands is printed back\n"
"with fplab's result and flags appended, so fplab can answer a generator:\n"
"  testfloat_gen -f16 f16_add ... | fplab testfloat f16_add | verifier\n"
"When the first line is of that kind, stdout carries only answered lines\n"
"and reports go to stderr.  Blank lines and '#' comments are skipped.\n"
"\n"
"FUNC, with F in f16 bf16 f32 f64 and I in i32 ui32 i64 ui64:\n"
"  F_add F_sub F_mul F_div F_rem F_sqrt F_mulAdd F_roundToInt\n"
"  F_eq F_le F_lt F_eq_signaling F_le_quiet F_lt_quiet\n"
"  F_to_F (e.g. f32_to_f16, f16_to_f64, f32_to_bf16)\n"
"  F_to_I, F_to_I_r_minMag (e.g. f16_to_i32), I_to_F (e.g. ui64_to_bf16)\n"
"\n"
"options (TestFloat's own spellings in brackets also work):\n"
"  --rm MODE          near_even (default) minMag min max near_maxMag odd,\n"
"                     or rne rtz rdn rup rna rto           [-rMODE]\n"
"  --tininess before|after   default after     [-tininessbefore/after]\n"
"  --exact            roundToInt and F_to_I raise inexact   [-exact]\n"
"  --check-nans       NaN results must match bit for bit    [-checkNaNs]\n"
"                     (default: any NaN matches any NaN)\n"
"  --check-inv-ints   invalid integer results must match exactly\n"
"                     (default, as TestFloat: with only the invalid flag\n"
"                     expected and raised, the type's max or min, or 0 for\n"
"                     a NaN operand, is accepted)        [-checkInvInts]\n"
"  --nan PRESET       softfloat (default: Berkeley SoftFloat's 8086-SSE\n"
"                     rules, which TestFloat's expected results follow)\n"
"                     x86 (the hardware: fma(0, inf, qNaN) returns the\n"
"                     NaN without invalid, where SoftFloat raises invalid\n"
"                     and returns the default NaN) arm riscv cuda\n"
"  -h, --help         this text\n"
"\n"
"exit status: 0 all lines match (or were answered), 1 some mismatch,\n"
"2 bad usage or a malformed line (the message names line and field).\n");
}

/* A hex field of at most `digits` digits; 0 or -1 with why[] filled. */
static int parse_hex_field(const char *s, int digits, uint64_t *v,
                           char *why, size_t wl)
{
    uint64_t x = 0;
    int n = 0;
    for (const char *p = s; *p; p++, n++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else {
            snprintf(why, wl, "'%.40s%s' is not a hex number", s,
                     strlen(s) > 40 ? "..." : "");
            return -1;
        }
        if (n >= digits) {
            /* quote at most 40 characters, so the reason always fits */
            snprintf(why, wl, "'%.40s%s' has more than %d hex digits", s,
                     strlen(s) > 40 ? "..." : "", digits);
            return -1;
        }
        x = (x << 4) | (uint64_t)d;
    }
    *v = x;
    return 0;
}

static void print_field(FILE *fp, uint64_t v, int digits)
{
    fprintf(fp, "%0*" PRIX64, digits, v);
}

int cmd_testfloat(int argc, char **argv)
{
    fl_ctx c = FL_CTX_INIT;
    /* TestFloat's expected results come from SoftFloat's 8086-SSE
     * specialisation: that is the model a TestFloat user checks against
     * (--nan x86 gives the hardware's rule; see docs/verification.md). */
    c.nan = FL_NANP_SOFTFLOAT;
    int exact = 0, check_nans = 0, check_inv = 0;
    const char *fname = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        if (!strcmp(a, "--rm") || !strcmp(a, "--tininess") ||
            !strcmp(a, "--nan")) {
            if (i + 1 >= argc)
                return cli_error("testfloat: option %s needs a value", a);
            val = argv[++i];
        } else if (!strncmp(a, "--rm=", 5) || !strncmp(a, "--nan=", 6) ||
                   !strncmp(a, "--tininess=", 11)) {
            val = strchr(a, '=') + 1;
        }
        if (!strncmp(a, "--rm", 4) && val) {
            int rm = cli_parse_rm(val, "testfloat: --rm");
            if (rm < 0)
                return CLI_USAGE;
            c.rm = (uint8_t)rm;
        } else if (!strncmp(a, "-r", 2) && a[1] == 'r' && a[2] != '\0') {
            int rm = cli_parse_rm(a + 2, "testfloat: -r");
            if (rm < 0)
                return CLI_USAGE;
            c.rm = (uint8_t)rm;
        } else if (!strncmp(a, "--tininess", 10) && val) {
            int t = cli_parse_tininess(val, "testfloat: --tininess");
            if (t < 0)
                return CLI_USAGE;
            c.tininess = (uint8_t)t;
        } else if (!strcmp(a, "-tininessbefore")) {
            c.tininess = FL_TINY_BEFORE;
        } else if (!strcmp(a, "-tininessafter")) {
            c.tininess = FL_TINY_AFTER;
        } else if (!strncmp(a, "--nan", 5) && val) {
            int p = fl_nan_preset_parse(val);
            if (p < 0)
                return cli_error("testfloat: --nan: unknown preset '%s' "
                                 "(softfloat x86 arm riscv cuda)", val);
            c.nan = (uint8_t)p;
        } else if (!strcmp(a, "--exact") || !strcmp(a, "-exact")) {
            exact = 1;
        } else if (!strcmp(a, "-notexact")) {
            exact = 0;
        } else if (!strcmp(a, "--check-nans") || !strcmp(a, "-checkNaNs")) {
            check_nans = 1;
        } else if (!strcmp(a, "--check-inv-ints") ||
                   !strcmp(a, "-checkInvInts")) {
            check_inv = 1;
        } else if (a[0] == '-') {
            return cli_error("testfloat: unknown option '%s' (try 'fplab "
                             "testfloat --help')", a);
        } else if (fname != NULL) {
            return cli_error("testfloat: one FUNC only, got '%s' and '%s'",
                             fname, a);
        } else {
            fname = a;
        }
    }
    if (fname == NULL)
        return cli_error("testfloat: need a FUNC such as f16_add (try "
                         "'fplab testfloat --help')");
    fl_testfloat_func fn;
    if (fl_testfloat_parse(fname, &fn) != 0)
        return cli_error("testfloat: unknown function '%s' (the list is in "
                         "'fplab testfloat --help')", fname);

    const int in_digits = fl_testfloat_digits(&fn, 0);
    const int out_digits = fl_testfloat_digits(&fn, 1);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, cases = 0, answered = 0, mismatches = 0;
    int mode = 0;            /* 0 unknown, 1 check, 2 answer */
    FILE *rep = stdout;      /* where mismatches and the summary go */
    int rc = CLI_OK;

    while (getline(&line, &cap, stdin) != -1) {
        char *tok[8];
        int nt = 0;
        char why[160];
        lineno++;
        for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t;
             t = strtok_r(NULL, " \t\r\n", &save)) {
            if (nt == (int)COUNT(tok)) {
                nt++;
                break;
            }
            tok[nt++] = t;
        }
        if (nt == 0 || tok[0][0] == '#')
            continue;
        if (nt != fn.nin && nt != fn.nin + 2) {
            rc = cli_error("testfloat: line %ld: %s wants %d operand%s, "
                           "optionally followed by result and flags "
                           "(%d or %d fields); got %s%d", lineno, fname,
                           fn.nin, fn.nin == 1 ? "" : "s", fn.nin,
                           fn.nin + 2, nt > (int)COUNT(tok) ? "more than " : "",
                           nt > (int)COUNT(tok) ? (int)COUNT(tok) : nt);
            goto out;
        }
        uint64_t in[3], want = 0, wflags = 0;
        for (int k = 0; k < fn.nin; k++) {
            if (parse_hex_field(tok[k], in_digits, &in[k], why,
                                sizeof why) != 0) {
                rc = cli_error("testfloat: line %ld: field %d: %s (operand "
                               "of type %s)", lineno, k + 1, why,
                               fl_testfloat_type_name(&fn, 0));
                goto out;
            }
        }
        const int check = nt == fn.nin + 2;
        if (check) {
            if (parse_hex_field(tok[fn.nin], out_digits, &want, why,
                                sizeof why) != 0) {
                rc = cli_error("testfloat: line %ld: field %d: %s (result "
                               "of type %s)", lineno, fn.nin + 1, why,
                               fl_testfloat_type_name(&fn, 1));
                goto out;
            }
            if (fn.out == FL_OPT_BOOL && want > 1) {
                rc = cli_error("testfloat: line %ld: field %d: '%s' is not "
                               "a boolean result (0 or 1)", lineno,
                               fn.nin + 1, tok[fn.nin]);
                goto out;
            }
            if (parse_hex_field(tok[fn.nin + 1], 2, &wflags, why,
                                sizeof why) != 0 ||
                wflags > FL_IEEE_FLAGS) {
                if (wflags > FL_IEEE_FLAGS)
                    snprintf(why, sizeof why, "'%s' has bits beyond the "
                             "five flags (at most 1F)", tok[fn.nin + 1]);
                rc = cli_error("testfloat: line %ld: field %d: %s (flags)",
                               lineno, fn.nin + 2, why);
                goto out;
            }
        }
        if (mode == 0) {
            mode = check ? 1 : 2;
            rep = check ? stdout : stderr;
        }

        unsigned fl = 0;
        uint64_t got = fl_testfloat_eval(&fn, in, exact, &c, &fl);
        fl &= FL_IEEE_FLAGS;

        if (!check) {
            for (int k = 0; k < fn.nin; k++) {
                print_field(stdout, in[k], in_digits);
                fputc(' ', stdout);
            }
            print_field(stdout, got, out_digits);
            printf(" %02X\n", fl);
            answered++;
            continue;
        }
        cases++;
        const unsigned opts = (check_nans ? FL_TF_CHECK_NANS : 0u) |
                              (check_inv ? FL_TF_CHECK_INV_INTS : 0u);
        if (!fl_testfloat_match(&fn, in, want, (unsigned)wflags, got, fl,
                                opts)) {
            char wn[64], gn[64];
            mismatches++;
            fprintf(rep, "line %ld: %s", lineno, fname);
            for (int k = 0; k < fn.nin; k++) {
                fputc(' ', rep);
                print_field(rep, in[k], in_digits);
            }
            fprintf(rep, ": expected ");
            print_field(rep, want, out_digits);
            fprintf(rep, " %02X (%s), got ", (unsigned)wflags,
                    cli_flag_names((unsigned)wflags, wn, sizeof wn));
            print_field(rep, got, out_digits);
            fprintf(rep, " %02X (%s)\n", fl, cli_flag_names(fl, gn, sizeof gn));
        }
    }
    if (ferror(stdin)) {
        rc = cli_error("testfloat: error reading standard input after line "
                       "%ld", lineno);
        goto out;
    }
    if (mode == 2)
        fprintf(stderr, "fplab: testfloat: %s: %ld lines answered\n", fname,
                answered);
    if (cases > 0 || mode != 2)
        fprintf(rep, "%ld cases, %ld mismatches\n", cases, mismatches);
    if (mismatches > 0)
        rc = CLI_MISMATCH;
out:
    free(line);
    if (fflush(stdout) != 0 && rc == CLI_OK)
        rc = cli_error("testfloat: cannot write standard output");
    return rc;
}
