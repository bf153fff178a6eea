/*
 * cmd_calc.c — `fplab calc FORMAT OP OPERAND...`: one operation of the core
 * in any format, rounding mode, tininess rule and platform preset.
 *
 * Output: one line, "BITS VALUE FLAGS" for results in FORMAT (bits as
 * lowercase 0x-hex of the format's width, VALUE the exact decimal), "HEX
 * DECIMAL FLAGS" for integer results, "true|false FLAGS" for predicates,
 * "less|equal|greater|unordered FLAGS" for compare, the class name for
 * class.  Flags are named in bit order or "-" for none.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

enum kind {
    K_BIN,      /* two operands in FORMAT, result in FORMAT */
    K_UN,       /* one operand in FORMAT, result in FORMAT */
    K_FMA,      /* three operands */
    K_RINT,     /* round to integral; arg = exact */
    K_ROUND,    /* a number rounded into FORMAT in the given mode */
    K_CONVERT,  /* an operand in --from FORMAT2 converted into FORMAT */
    K_PRED,     /* predicate: true/false */
    K_PRED_SWAP,/* predicate with swapped operands (gt, ge) */
    K_CMP,      /* compare; arg = signaling */
    K_CLASS,
    K_TOINT,    /* arg = integer type */
    K_FROMINT   /* arg = integer type */
};

enum { IT_I32, IT_U32, IT_I64, IT_U64 };

typedef uint64_t (*binop_fn)(const fl_format *, uint64_t, uint64_t,
                             const fl_ctx *, unsigned *);
typedef uint64_t (*unop_fn)(const fl_format *, uint64_t, const fl_ctx *,
                            unsigned *);
typedef int (*pred_fn)(const fl_format *, uint64_t, uint64_t, const fl_ctx *,
                       unsigned *);

struct op {
    const char *name;
    int kind;
    int nops;
    binop_fn bin;
    unop_fn un;
    pred_fn pred;
    int arg;
    const char *help;
};

static const struct op ops[] = {
    {"add", K_BIN, 2, fl_add, NULL, NULL, 0, "a + b"},
    {"sub", K_BIN, 2, fl_sub, NULL, NULL, 0, "a - b"},
    {"mul", K_BIN, 2, fl_mul, NULL, NULL, 0, "a * b"},
    {"div", K_BIN, 2, fl_div, NULL, NULL, 0, "a / b"},
    {"rem", K_BIN, 2, fl_rem, NULL, NULL, 0, "IEEE remainder a - n*b"},
    {"fma", K_FMA, 3, NULL, NULL, NULL, 0, "a * b + c, one rounding"},
    {"sqrt", K_UN, 1, NULL, fl_sqrt, NULL, 0, "square root"},
    {"rint", K_RINT, 1, NULL, NULL, NULL, 0,
     "round to integral value (no inexact; --exact: roundToIntegralExact)"},
    {"rint-exact", K_RINT, 1, NULL, NULL, NULL, 1,
     "round to integral value, inexact raised (roundToIntegralExact)"},
    {"min", K_BIN, 2, fl_minimum, NULL, NULL, 0, "IEEE 754-2019 minimum"},
    {"minimum", K_BIN, 2, fl_minimum, NULL, NULL, 0, "same as min"},
    {"max", K_BIN, 2, fl_maximum, NULL, NULL, 0, "IEEE 754-2019 maximum"},
    {"maximum", K_BIN, 2, fl_maximum, NULL, NULL, 0, "same as max"},
    {"minnum", K_BIN, 2, fl_minimum_number, NULL, NULL, 0,
     "IEEE 754-2019 minimumNumber"},
    {"minimumNumber", K_BIN, 2, fl_minimum_number, NULL, NULL, 0,
     "same as minnum"},
    {"maxnum", K_BIN, 2, fl_maximum_number, NULL, NULL, 0,
     "IEEE 754-2019 maximumNumber"},
    {"maximumNumber", K_BIN, 2, fl_maximum_number, NULL, NULL, 0,
     "same as maxnum"},
    {"nextup", K_UN, 1, NULL, fl_next_up, NULL, 0, "nextUp"},
    {"nextdown", K_UN, 1, NULL, fl_next_down, NULL, 0, "nextDown"},
    {"round", K_ROUND, 1, NULL, NULL, NULL, 0,
     "the operand rounded into FORMAT in the mode (bits: canonicalized)"},
    {"convert", K_CONVERT, 1, NULL, NULL, NULL, 0,
     "operand in --from FORMAT2, converted into FORMAT"},
    {"eq", K_PRED, 2, NULL, NULL, fl_eq, 0, "a == b (quiet)"},
    {"lt", K_PRED, 2, NULL, NULL, fl_lt, 0, "a < b (signaling)"},
    {"le", K_PRED, 2, NULL, NULL, fl_le, 0, "a <= b (signaling)"},
    {"gt", K_PRED_SWAP, 2, NULL, NULL, fl_lt, 0, "a > b (signaling)"},
    {"ge", K_PRED_SWAP, 2, NULL, NULL, fl_le, 0, "a >= b (signaling)"},
    {"eq_signaling", K_PRED, 2, NULL, NULL, fl_eq_signaling, 0,
     "a == b, invalid on any NaN"},
    {"lt_quiet", K_PRED, 2, NULL, NULL, fl_lt_quiet, 0,
     "a < b, invalid only on sNaN"},
    {"le_quiet", K_PRED, 2, NULL, NULL, fl_le_quiet, 0,
     "a <= b, invalid only on sNaN"},
    {"gt_quiet", K_PRED_SWAP, 2, NULL, NULL, fl_lt_quiet, 0,
     "a > b, invalid only on sNaN"},
    {"ge_quiet", K_PRED_SWAP, 2, NULL, NULL, fl_le_quiet, 0,
     "a >= b, invalid only on sNaN"},
    {"compare", K_CMP, 2, NULL, NULL, NULL, 0,
     "less/equal/greater/unordered (quiet)"},
    {"compare_signaling", K_CMP, 2, NULL, NULL, NULL, 1,
     "same, invalid on any NaN"},
    {"class", K_CLASS, 1, NULL, NULL, NULL, 0, "IEEE class of a"},
    {"to_i32", K_TOINT, 1, NULL, NULL, NULL, IT_I32,
     "to int32 in the mode (--exact: inexact raised)"},
    {"to_u32", K_TOINT, 1, NULL, NULL, NULL, IT_U32, "to uint32"},
    {"to_i64", K_TOINT, 1, NULL, NULL, NULL, IT_I64, "to int64"},
    {"to_u64", K_TOINT, 1, NULL, NULL, NULL, IT_U64, "to uint64"},
    {"from_i32", K_FROMINT, 1, NULL, NULL, NULL, IT_I32,
     "an int32 (decimal or 0x-hex) into FORMAT"},
    {"from_u32", K_FROMINT, 1, NULL, NULL, NULL, IT_U32, "a uint32"},
    {"from_i64", K_FROMINT, 1, NULL, NULL, NULL, IT_I64, "an int64"},
    {"from_u64", K_FROMINT, 1, NULL, NULL, NULL, IT_U64, "a uint64"},
};
#define N_OPS (sizeof ops / sizeof ops[0])

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
"  --saturate         overflow gives the largest finite value\n"
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
    for (size_t i = 0; i < N_OPS; i++)
        fprintf(fp, "  %-18s %d operand%s  %s\n", ops[i].name, ops[i].nops,
                ops[i].nops == 1 ? " " : "s", ops[i].help);
    fprintf(fp,
"\n"
"examples:\n"
"  fplab calc fp16 add 1 0x1p-11 --rm rup    ->  0x3c01 1.0009765625 inexact\n"
"  fplab calc fp8-e4m3 round 500 --saturate  ->  0x7e 448 overflow,inexact\n"
"  fplab calc fp16 sqrt bits:0xbc00          ->  0xfe00 nan invalid\n"
"\n"
"exit status: 0 success, 2 bad usage or bad operand.\n");
}

static const struct op *find_op(const char *name)
{
    for (size_t i = 0; i < N_OPS; i++)
        if (!strcmp(ops[i].name, name))
            return &ops[i];
    return NULL;
}

/* Parse raw bits after "bits:": 0x-hex, 0b-binary or decimal. */
static int parse_bits(const char *s, uint64_t *v)
{
    if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        uint64_t x = 0;
        const char *p = s + 2;
        if (*p == '\0' || strlen(p) > 64)
            return -1;
        for (; *p; p++) {
            if (*p != '0' && *p != '1')
                return -1;
            x = (x << 1) | (uint64_t)(*p - '0');
        }
        *v = x;
        return 0;
    }
    return cli_parse_u64(s, v);
}

/* An operand in format f.  Numbers are rounded to nearest-even (the
 * reading of an operand is itself a rounding), with a warning when that is
 * not exact.  Returns 0 or CLI_USAGE (message printed). */
static int parse_operand(const fl_format *f, const char *s, int idx,
                         const fl_ctx *user, uint64_t *out)
{
    if (!strncmp(s, "bits:", 5)) {
        uint64_t v;
        if (parse_bits(s + 5, &v) != 0)
            return cli_error("calc: operand %d '%s': not a bit pattern "
                             "(bits:0xHEX, bits:0bBINARY or bits:DECIMAL)",
                             idx, s);
        if (f->width < 64 && (v >> f->width) != 0)
            return cli_error("calc: operand %d '%s' does not fit in %s "
                             "(%d bits)", idx, s, f->name, f->width);
        *out = v;
        return 0;
    }
    fl_ctx pc = FL_CTX_INIT;
    unsigned fl = 0;
    pc.nan = user->nan;
    if (fl_parse(f, s, &pc, &fl, out) != 0)
        return cli_error("calc: operand %d '%s' is not a number (decimal, "
                         "hex-float like -0x1.8p-14, inf, nan, snan, or "
                         "bits:0xHEX)", idx, s);
    if (fl & FL_IEEE_FLAGS) {
        char names[64];
        char *val = cli_exact_str(f, *out);
        fprintf(stderr, "fplab: calc: warning: operand %d '%s' is not exact "
                "in %s; rounded to 0x%0*" PRIx64 " (%s) [%s]\n", idx, s,
                f->name, cli_hex_digits(f), *out, val,
                cli_flag_names(fl, names, sizeof names));
        free(val);
    }
    return 0;
}

/* An integer operand of type it: optional '-', then decimal or 0x-hex. */
static int parse_int_operand(const char *s, int it, int idx, uint64_t *out)
{
    static const char *tn[] = {"int32", "uint32", "int64", "uint64"};
    int neg = s[0] == '-';
    uint64_t mag;
    if (cli_parse_u64(s + neg, &mag) != 0)
        return cli_error("calc: operand %d '%s' is not an integer (decimal "
                         "or 0x-hex, optional '-')", idx, s);
    int ok;
    switch (it) {
    case IT_I32: ok = neg ? mag <= 0x80000000u : mag <= 0x7FFFFFFFu; break;
    case IT_U32: ok = mag <= 0xFFFFFFFFu && (!neg || mag == 0); break;
    case IT_I64:
        ok = neg ? mag <= UINT64_C(0x8000000000000000)
                 : mag <= UINT64_C(0x7FFFFFFFFFFFFFFF);
        break;
    default: ok = !neg || mag == 0; break;
    }
    if (!ok)
        return cli_error("calc: operand %d '%s' is out of range for %s", idx,
                         s, tn[it]);
    *out = neg ? (uint64_t)0 - mag : mag;
    return 0;
}

/* Takes the flag word by pointer so the operation (an argument) has run
 * before the flags are read: argument evaluation order is unspecified. */
static void print_result(const fl_format *f, uint64_t r, const unsigned *flp)
{
    unsigned fl = *flp;
    char names[64];
    char *val = cli_exact_str(f, r);
    printf("0x%0*" PRIx64 " %s %s\n", cli_hex_digits(f), r, val,
           cli_flag_names(fl, names, sizeof names));
    free(val);
}

int cmd_calc(int argc, char **argv)
{
    fl_ctx c = FL_CTX_INIT;
    int exact = 0;
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
        int takes = !strcmp(optname, "--rm") ||
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
            if (!strcmp(val, "before"))
                c.tininess = FL_TINY_BEFORE;
            else if (!strcmp(val, "after"))
                c.tininess = FL_TINY_AFTER;
            else
                return cli_error("calc: --tininess: '%s' is not 'before' or "
                                 "'after'", val);
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
            c.saturate = 1;
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
    fl_format f, from;
    if (cli_parse_format(pos[0], &f, "calc: FORMAT") != 0)
        return CLI_USAGE;
    const struct op *op = find_op(pos[1]);
    if (op == NULL)
        return cli_error("calc: unknown operation '%s' (the list is in "
                         "'fplab calc --help')", pos[1]);
    if (npos - 2 != op->nops)
        return cli_error("calc: %s takes %d operand%s, got %d", op->name,
                         op->nops, op->nops == 1 ? "" : "s", npos - 2);
    if (op->kind == K_CONVERT) {
        if (from_spec == NULL)
            return cli_error("calc: convert needs --from FORMAT2 (the "
                             "operand's format)");
        if (cli_parse_format(from_spec, &from, "calc: --from") != 0)
            return CLI_USAGE;
    } else if (from_spec != NULL) {
        return cli_error("calc: --from applies to 'convert' only");
    }
    if (exact && op->kind != K_RINT && op->kind != K_TOINT)
        return cli_error("calc: --exact applies to rint and to_* only");

    uint64_t x[3] = {0, 0, 0};
    const char **opnd = pos + 2;
    unsigned fl = 0;
    char names[64];

    switch (op->kind) {
    case K_ROUND:
        if (!strncmp(opnd[0], "bits:", 5)) {
            if (parse_operand(&f, opnd[0], 1, &c, &x[0]) != 0)
                return CLI_USAGE;
            print_result(&f, fl_convert(&f, &f, x[0], &c, &fl), &fl);
        } else {
            uint64_t r;
            if (fl_parse(&f, opnd[0], &c, &fl, &r) != 0)
                return cli_error("calc: operand 1 '%s' is not a number "
                                 "(decimal, hex-float, inf, nan, snan, or "
                                 "bits:0xHEX)", opnd[0]);
            print_result(&f, r, &fl);
        }
        return CLI_OK;
    case K_CONVERT:
        if (parse_operand(&from, opnd[0], 1, &c, &x[0]) != 0)
            return CLI_USAGE;
        print_result(&f, fl_convert(&f, &from, x[0], &c, &fl), &fl);
        return CLI_OK;
    case K_FROMINT: {
        uint64_t v = 0, r;
        if (parse_int_operand(opnd[0], op->arg, 1, &v) != 0)
            return CLI_USAGE;
        switch (op->arg) {
        case IT_I32: r = fl_from_i32(&f, (int32_t)(uint32_t)v, &c, &fl); break;
        case IT_U32: r = fl_from_u32(&f, (uint32_t)v, &c, &fl); break;
        case IT_I64: r = fl_from_i64(&f, (int64_t)v, &c, &fl); break;
        default: r = fl_from_u64(&f, v, &c, &fl); break;
        }
        print_result(&f, r, &fl);
        return CLI_OK;
    }
    default:
        break;
    }

    for (int k = 0; k < op->nops; k++)
        if (parse_operand(&f, opnd[k], k + 1, &c, &x[k]) != 0)
            return CLI_USAGE;

    switch (op->kind) {
    case K_BIN:
        print_result(&f, op->bin(&f, x[0], x[1], &c, &fl), &fl);
        break;
    case K_UN:
        print_result(&f, op->un(&f, x[0], &c, &fl), &fl);
        break;
    case K_FMA:
        print_result(&f, fl_fma(&f, x[0], x[1], x[2], &c, &fl), &fl);
        break;
    case K_RINT:
        print_result(&f, fl_rint(&f, x[0], op->arg || exact, &c, &fl), &fl);
        break;
    case K_PRED:
    case K_PRED_SWAP: {
        int t = op->kind == K_PRED ? op->pred(&f, x[0], x[1], &c, &fl)
                                   : op->pred(&f, x[1], x[0], &c, &fl);
        printf("%s %s\n", t ? "true" : "false",
               cli_flag_names(fl, names, sizeof names));
        break;
    }
    case K_CMP: {
        static const char *rel[] = {"less", "equal", "greater", "unordered"};
        int r = fl_compare(&f, x[0], x[1], op->arg, &c, &fl);
        printf("%s %s\n", (r >= 0 && r <= 3) ? rel[r] : "?",
               cli_flag_names(fl, names, sizeof names));
        break;
    }
    case K_CLASS:
        printf("%s\n", fl_class_name(fl_classify(&f, x[0])));
        break;
    case K_TOINT: {
        switch (op->arg) {
        case IT_I32: {
            int32_t v = fl_to_i32(&f, x[0], exact, &c, &fl);
            printf("0x%08" PRIx32 " %" PRId32, (uint32_t)v, v);
            break;
        }
        case IT_U32: {
            uint32_t v = fl_to_u32(&f, x[0], exact, &c, &fl);
            printf("0x%08" PRIx32 " %" PRIu32, v, v);
            break;
        }
        case IT_I64: {
            int64_t v = fl_to_i64(&f, x[0], exact, &c, &fl);
            printf("0x%016" PRIx64 " %" PRId64, (uint64_t)v, v);
            break;
        }
        default: {
            uint64_t v = fl_to_u64(&f, x[0], exact, &c, &fl);
            printf("0x%016" PRIx64 " %" PRIu64, v, v);
            break;
        }
        }
        printf(" %s\n", cli_flag_names(fl, names, sizeof names));
        break;
    }
    default:
        break;
    }
    return CLI_OK;
}
