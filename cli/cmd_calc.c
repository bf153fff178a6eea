/*
 * cmd_calc.c — `fplab calc FORMAT OP OPERAND...`: one operation of the core
 * in any format, rounding mode, tininess rule and platform preset.
 *
 * Output: one line, "BITS VALUE FLAGS" for results in FORMAT (bits as
 * lowercase 0x-hex of the format's width, VALUE the exact decimal), "HEX
 * DECIMAL FLAGS" for integer results, "true|false FLAGS" for predicates,
 * "less|equal|greater|unordered FLAGS" for compare, the class name for
 * class.  Flags are named in bit order or "-" for none.
 *
 * The operations, their operands and their evaluation are the library's
 * (fplab/ops.h: fl_op_find, fl_op_calc); this file parses the options and
 * prints.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fplab/ops.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab calc FORMAT OP OPERAND... [options]\n"
"\n"
"Computes one operation of the fplab core and prints one line: the result's\n"
"bits (0x-hex of the format's width), its exact decimal value, and the flags\n"
"raised (inexact,underflow,overflow,divbyzero,invalid; '-' when none).\n"
"\n"
CLI_FORMATS_HELP
"  Where a result has no encoding in FORMAT (NaN in a finite-only format,\n"
"  -0 in fnuz or P3109, zero in e8m0, a negative value in an unsigned\n"
"  format, overflow without infinities) see docs/formats.md.\n"
"OPERAND: a decimal or C99 hex-float number (1.5, -0x1p-14, 1e-8, inf, nan,\n"
"  snan), rounded to nearest-even into the operand's format (a warning on\n"
"  stderr says so when that is not exact); or raw bits written\n"
"  bits:0xHEX, bits:0bBINARY or bits:DECIMAL, which must fit the width.\n"
"  Integer operands (from_*) are decimal or 0x-hex with an optional '-'.\n"
"\n"
"options:\n"
"  --rm MODE          rne (default) rtz rdn rup rna rto sr, or TestFloat's\n"
"                     near_even minMag min max near_maxMag odd\n"
"  --tininess before|after   tininess rule for underflow (default after)\n"
"  --ftz              flush tiny results to zero\n"
"  --daz              treat subnormal inputs as zero\n"
"  --saturate         overflow gives the largest finite value (= --sat\n"
"                     propagate)\n"
"  --sat MODE         none (default; P3109's OvfInf), propagate (finite\n"
"                     overflow gives the largest finite, infinities stay),\n"
"                     finite (infinities too: P3109 SatFinite)\n"
"  --sr-bits R --sr-nbits N [--sr-variant V]\n"
"                     stochastic rounding with the N random bits R given\n"
"                     (mode srb): V stochastic (default; P3109 C),\n"
"                     stochastic-odd, fast (B), fastest (A)\n"
"  --nan PRESET       x86 (default) arm riscv cuda softfloat: NaN results\n"
"                     and invalid integer conversions (softfloat: Berkeley\n"
"                     SoftFloat's 8086-SSE, as x86 but fma(0, inf, NaN)\n"
"                     raises invalid and returns the default NaN); rules\n"
"                     real kernels show: sign sign-pos default-neg first\n"
"  --seed N           stochastic rounding seed (default 0)\n"
"  --index N          stochastic rounding counter (default 0)\n"
"  --exact            rint and to_*: raise inexact (IEEE ...Exact)\n"
"  --from FORMAT2     convert: the operand's format\n"
"  -h, --help         this text\n"
"\n"
"OP:\n");
    for (size_t i = 0; i < fl_op_count(); i++) {
        const fl_op *op = fl_op_at(i);
        fprintf(fp, "  %-18s %d operand%s  %s\n", op->name, op->nin,
                op->nin == 1 ? " " : "s", op->help);
    }
    fprintf(fp,
"\n"
"examples:\n"
"  fplab calc fp16 add 1 0x1p-11 --rm rup    ->  0x3c01 1.0009765625 inexact\n"
"  fplab calc fp8-e4m3 round 500 --saturate  ->  0x7e 448 overflow,inexact\n"
"  fplab calc fp16 sqrt bits:0xbc00          ->  0xfe00 nan invalid\n"
"\n"
"exit status: 0 success, 2 bad usage or bad operand.\n");
}

/* The result of op, as one line: bits, exact value and flags for a
 * value of FORMAT; hex and decimal for an integer; true/false, the
 * relation or the class name. */
static void print_result(const fl_op *op, const fl_format *f,
                         const fl_op_result *r)
{
    static const char *const rel[] = {"less", "equal", "greater",
                                      "unordered"};
    char names[64];
    const char *fls = cli_flag_names(r->flags, names, sizeof names);
    const uint64_t v = r->value;
    switch (op->out) {
    case FL_OPT_BOOL:
        printf("%s %s\n", v ? "true" : "false", fls);
        break;
    case FL_OPT_RELATION:
        printf("%s %s\n", v <= 3 ? rel[v] : "?", fls);
        break;
    case FL_OPT_CLASS:
        printf("%s\n", fl_class_name((fl_class)v));
        break;
    case FL_OPT_I32:
        printf("0x%08" PRIx64 " %" PRId32 " %s\n", v,
               (int32_t)(uint32_t)v, fls);
        break;
    case FL_OPT_U32:
        printf("0x%08" PRIx64 " %" PRIu64 " %s\n", v, v, fls);
        break;
    case FL_OPT_I64:
        printf("0x%016" PRIx64 " %" PRId64 " %s\n", v, (int64_t)v, fls);
        break;
    case FL_OPT_U64:
        printf("0x%016" PRIx64 " %" PRIu64 " %s\n", v, v, fls);
        break;
    default: {
        char *val = cli_exact_str(f, v);
        printf("0x%0*" PRIx64 " %s %s\n", cli_hex_digits(f), v, val, fls);
        free(val);
        break;
    }
    }
}

int cmd_calc(int argc, char **argv)
{
    fl_ctx c = FL_CTX_INIT;
    int exact = 0, sr_bits_given = 0;
    const char *from_spec = NULL;
    const char *pos[8];
    int npos = 0;
    int only_pos = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char optname[32];
        if (!only_pos && !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        /* Options start with "--"; negative numbers with a single '-'. */
        if (only_pos || strncmp(a, "--", 2) != 0) {
            if (npos == (int)(sizeof pos / sizeof pos[0]))
                return cli_error("calc: too many arguments at '%s' (try "
                                 "'fplab calc --help')", a);
            pos[npos++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = 1;
            continue;
        }
        /* --name=value or --name value */
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof optname)
            return cli_error("calc: unknown option '%s' (try 'fplab calc "
                             "--help')", a);
        memcpy(optname, a, nl);
        optname[nl] = '\0';
        int takes = !strcmp(optname, "--rm") || !strcmp(optname, "--sat") ||
                    !strcmp(optname, "--sr-bits") ||
                    !strcmp(optname, "--sr-nbits") ||
                    !strcmp(optname, "--sr-variant") ||
                    !strcmp(optname, "--tininess") ||
                    !strcmp(optname, "--nan") || !strcmp(optname, "--seed") ||
                    !strcmp(optname, "--index") ||
                    !strcmp(optname, "--from");
        if (takes) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                return cli_error("calc: option %s needs a value", optname);
        } else if (eq) {
            return cli_error("calc: option %s takes no value", optname);
        }
        if (!strcmp(optname, "--help")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(optname, "--rm")) {
            int rm = cli_parse_rm(val, "calc: --rm");
            if (rm < 0)
                return CLI_USAGE;
            c.rm = (uint8_t)rm;
        } else if (!strcmp(optname, "--tininess")) {
            int t = cli_parse_tininess(val, "calc: --tininess");
            if (t < 0)
                return CLI_USAGE;
            c.tininess = (uint8_t)t;
        } else if (!strcmp(optname, "--nan")) {
            int p = fl_nan_preset_parse(val);
            if (p < 0)
                return cli_error("calc: --nan: unknown preset '%s' (x86 arm "
                                 "riscv cuda softfloat sign sign-pos "
                                 "default-neg first)", val);
            c.nan = (uint8_t)p;
        } else if (!strcmp(optname, "--seed") ||
                   !strcmp(optname, "--index")) {
            uint64_t v;
            if (cli_parse_u64(val, &v) != 0)
                return cli_error("calc: %s: '%s' is not an unsigned integer",
                                 optname, val);
            if (optname[2] == 's')
                c.sr_seed = v;
            else
                c.sr_index = v;
        } else if (!strcmp(optname, "--from")) {
            from_spec = val;
        } else if (!strcmp(optname, "--ftz")) {
            c.ftz = 1;
        } else if (!strcmp(optname, "--daz")) {
            c.daz = 1;
        } else if (!strcmp(optname, "--saturate")) {
            c.saturate = FL_SAT_PROPAGATE;
        } else if (!strcmp(optname, "--sat")) {
            int sat = fl_sat_parse(val);
            if (sat < 0)
                return cli_error("calc: --sat: '%s' is not none, propagate "
                                 "or finite", val);
            c.saturate = (uint8_t)sat;
        } else if (!strcmp(optname, "--sr-bits")) {
            if (cli_parse_u64(val, &c.sr_bits) != 0)
                return cli_error("calc: --sr-bits: '%s' is not an unsigned "
                                 "integer", val);
            c.rm = FL_RSB;
            sr_bits_given = 1;
        } else if (!strcmp(optname, "--sr-nbits")) {
            uint64_t v;
            if (cli_parse_u64(val, &v) != 0 || v < 1 || v > 64)
                return cli_error("calc: --sr-nbits: '%s' is not 1..64", val);
            c.sr_nbits = (uint8_t)v;
        } else if (!strcmp(optname, "--sr-variant")) {
            int v = fl_srv_parse(val);
            if (v < 0)
                return cli_error("calc: --sr-variant: '%s' is not stochastic, "
                                 "stochastic-odd, fast or fastest", val);
            c.sr_variant = (uint8_t)v;
        } else if (!strcmp(optname, "--exact")) {
            exact = 1;
        } else {
            return cli_error("calc: unknown option '%s' (try 'fplab calc "
                             "--help')", a);
        }
    }

    if (npos < 2)
        return cli_error("calc: need FORMAT OP OPERAND... (try 'fplab calc "
                         "--help')");
    if (sr_bits_given) {
        if (c.sr_nbits == 0)
            return cli_error("calc: --sr-bits needs --sr-nbits N (1..64)");
        if (c.sr_nbits < 64 && c.sr_bits >> c.sr_nbits)
            return cli_error("calc: --sr-bits %llu does not fit in "
                             "--sr-nbits %d bits",
                             (unsigned long long)c.sr_bits, c.sr_nbits);
    } else if (c.sr_nbits || c.sr_variant) {
        return cli_error("calc: --sr-nbits and --sr-variant go with "
                         "--sr-bits R");
    }
    fl_format f, from;
    if (cli_parse_format(pos[0], &f, "calc: FORMAT") != 0)
        return CLI_USAGE;
    const fl_op *op = fl_op_find(pos[1]);
    if (op == NULL)
        return cli_error("calc: unknown operation '%s' (the list is in "
                         "'fplab calc --help')", pos[1]);
    if (npos - 2 != op->nin)
        return cli_error("calc: %s takes %d operand%s, got %d", op->name,
                         op->nin, op->nin == 1 ? "" : "s", npos - 2);
    if (op->in == FL_OPT_SOURCE) {
        if (from_spec == NULL)
            return cli_error("calc: convert needs --from FORMAT2 (the "
                             "operand's format)");
        if (cli_parse_format(from_spec, &from, "calc: --from") != 0)
            return CLI_USAGE;
    } else if (from_spec != NULL) {
        return cli_error("calc: --from applies to 'convert' only");
    }
    if (exact && !(op->props & FL_OPF_EXACT))
        return cli_error("calc: --exact applies to rint and to_* only");

    fl_op_result r;
    /* the message quotes an operand whole, however long */
    size_t errlen = 256;
    for (int k = 2; k < npos; k++)
        errlen += strlen(pos[k]);
    char *err = malloc(errlen);
    if (err == NULL)
        return cli_error("calc: out of memory");
    const fl_format *src = op->in == FL_OPT_SOURCE ? &from : NULL;
    const int rc = fl_op_calc(op, pos + 2, &f, src, exact, &c, &r, err,
                              errlen);
    /* an operand that a number did not give exactly: say so (numbers are
     * read to nearest even; the operands before a bad one are read) */
    for (int k = 0; k < r.nread; k++) {
        if (!(r.read_flags[k] & FL_IEEE_FLAGS))
            continue;
        const fl_format *of = src != NULL ? src : &f;
        char names[64];
        char *val = cli_exact_str(of, r.in[k]);
        fprintf(stderr, "fplab: calc: warning: operand %d '%s' is not exact "
                "in %s; rounded to 0x%0*" PRIx64 " (%s) [%s]\n", k + 1,
                pos[2 + k], of->name, cli_hex_digits(of), r.in[k], val,
                cli_flag_names(r.read_flags[k], names, sizeof names));
        free(val);
    }
    if (rc != 0) {
        cli_error("calc: %s", err);
        free(err);
        return CLI_USAGE;
    }
    free(err);
    print_result(op, &f, &r);
    return CLI_OK;
}
