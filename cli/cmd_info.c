/*
 * cmd_info.c — `fplab info FORMAT`: the parameters of a format.
 *
 * Each value line reads "NAME  EXACT-DECIMAL  (~SHORTEST, HEX-FLOAT, bits
 * 0xBITS)"; the shortest form is left out when it equals the exact one, and
 * the bits when the value is not representable in the format.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab info FORMAT\n"
"\n"
"Prints the parameters of FORMAT: width, precision p, emin, emax, bias,\n"
"sign, zero and -0, infinities, NaN encoding, what an overflow gives,\n"
"subnormals, saturation; then the largest finite, smallest normal and\n"
"smallest subnormal values, the machine epsilon 2^(1-p) and the unit\n"
"roundoff 2^-p, each as exact decimal, shortest decimal (when different),\n"
"C99 hex-float, and bit pattern where the format holds it.\n"
"\n"
CLI_FORMATS_HELP
"\n"
"example: fplab info ieee:4:3      fplab info float8_e4m3fnuz\n"
"exit status: 0 success, 2 bad usage.\n");
}

/* One value line.  v is in format vf (the format itself, or binary64 for
 * the powers of two); bits_in_f is the pattern in f or NULL. */
static void value_line(const char *name, const fl_format *vf, uint64_t v,
                       const fl_format *f, const uint64_t *bits_in_f)
{
    char hex[96], shortest[96];
    char *exact = cli_exact_str(vf, v);
    fl_print_hex(vf, v, hex, sizeof hex);
    fl_print_shortest(vf, v, shortest, sizeof shortest);
    printf("%-19s %s  (", name, exact);
    if (strcmp(shortest, exact) != 0)
        printf("~%s, ", shortest);
    printf("%s", hex);
    if (bits_in_f != NULL)
        printf(", bits 0x%0*" PRIx64, cli_hex_digits(f), *bits_in_f);
    printf(")\n");
    free(exact);
}

/* 2^k as a binary64 bit pattern; -1074 <= k <= 1023. */
static uint64_t pow2_binary64(int k)
{
    if (k >= -1022)
        return (uint64_t)(k + 1023) << 52;
    return UINT64_C(1) << (k + 1074);
}

/* 2^k in f, exactly, if f holds it. */
static int pow2_in(const fl_format *f, int k, uint64_t *bits)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t b = fl_convert(f, &fl_binary64, pow2_binary64(k), &c, &fl);
    if ((fl & FL_IEEE_FLAGS) != 0 || fl_is_zero(f, b))
        return 0;
    *bits = b;
    return 1;
}

int cmd_info(int argc, char **argv)
{
    const char *spec;
    fl_format f;
    int rc = cli_one_format("info", argc, argv, usage, &f, &spec);
    if (rc != 0)
        return rc > 0 ? CLI_OK : CLI_USAGE;

    const int p = f.prec;
    const int hd = cli_hex_digits(&f);
    const fl_ctx plain = FL_CTX_INIT;
    unsigned ign = 0;
    uint64_t inf = 0, ovf;
    printf("%-19s %s\n", "format", f.name);
    if (f.is_signed)
        printf("%-19s %d bits: 1 sign, %d exponent, %d fraction\n", "width",
               f.width, f.ebits, p - 1);
    else
        printf("%-19s %d bits: no sign (unsigned), %d exponent, %d fraction\n",
               "width", f.width, f.ebits, p - 1);
    printf("%-19s %d\n", "precision", p);
    printf("%-19s %d\n", "emin", (int)f.emin);
    printf("%-19s %d\n", "emax", (int)f.emax);
    printf("%-19s %d\n", "bias", (int)f.bias);
    printf("%-19s %s\n", "zero",
           !f.has_zero ? "none (code 0 is the smallest value, 2^emin)"
           : f.has_negzero ? "+0 and -0"
           : f.is_signed ? "+0 only (the code of -0 is the NaN)"
                         : "+0 only");
    if (!f.has_zero)   /* where the nearest modes split 2^emin and code 1 */
        printf("%-19s %s\n", "above 2^emin",
               f.min_gap_up
                   ? "ml_dtypes' rule: rne and rna round every value between "
                     "2^emin and the next value up (min_gap_up)"
                   : "true nearest (the boundary is their midpoint)");
    fl_parse(&f, "inf", &plain, &ign, &inf);
    if (f.has_inf && f.is_signed)
        printf("%-19s yes (0x%0*" PRIx64 ", 0x%0*" PRIx64 ")\n", "infinities",
               hd, inf, hd, inf | f.sign_mask);
    else if (f.has_inf)
        printf("%-19s +inf only (0x%0*" PRIx64 ")\n", "infinities", hd, inf);
    else
        printf("%-19s no\n", "infinities");
    switch (f.nan_style) {
    case FL_NANSTYLE_IEEE:
        printf("%-19s ieee (all-ones exponent, nonzero fraction; quiet when "
               "the top fraction bit is set)\n", "nan encoding");
        break;
    case FL_NANSTYLE_FN:
        if (f.is_signed)
            printf("%-19s fn (only 0x%0*" PRIx64 " and 0x%0*" PRIx64 ", all "
                   "ones but the sign)\n", "nan encoding", hd,
                   f.exp_mask | f.frac_mask, hd,
                   f.sign_mask | f.exp_mask | f.frac_mask);
        else
            printf("%-19s fn (only 0x%0*" PRIx64 ", all ones)\n",
                   "nan encoding", hd, f.exp_mask | f.frac_mask);
        break;
    case FL_NANSTYLE_P3109:
        if (!f.is_signed) {
            printf("%-19s p3109 (only 0x%0*" PRIx64 ", all ones)\n",
                   "nan encoding", hd, f.exp_mask | f.frac_mask);
            break;
        }
        /* signed: the sign bit alone, as in fnuz */
        /* fall through */
    case FL_NANSTYLE_FNUZ:
        printf("%-19s %s (only 0x%0*" PRIx64 ", the sign bit alone)\n",
               "nan encoding",
               f.nan_style == FL_NANSTYLE_FNUZ ? "fnuz" : "p3109", hd,
               f.sign_mask);
        break;
    default:
        printf("%-19s none (finite-only: a NaN result is ml_dtypes' stand-in "
               "0x%0*" PRIx64 ", -0, with invalid)\n", "nan encoding", hd,
               f.sign_mask);
        break;
    }
    /* what round-to-nearest overflow gives, as the core does it */
    {
        fl_ctx c = FL_CTX_INIT;
        char big[32];
        snprintf(big, sizeof big, "0x1p%d", (int)f.emax + 2);
        ign = 0;
        fl_parse(&f, big, &c, &ign, &ovf);
    }
    printf("%-19s %s in round-to-nearest (toward zero: the largest "
           "finite)\n", "overflow",
           f.saturate ? "the largest finite value (saturating format)"
           : fl_is_inf(&f, ovf) ? "infinity"
           : fl_is_nan(&f, ovf) ? "NaN"
                                : "the largest finite value (no inf, no NaN)");
    printf("%-19s %s\n", "subnormals",
           !f.subnormals ? "no" : f.prec > 1 ? "yes"
                                 : "none (precision 1: no fraction bits)");
    printf("%-19s %s\n", "saturate", f.saturate ? "yes" : "no");

    uint64_t b = f.max_bits;
    value_line("largest finite", &f, b, &f, &b);
    b = f.has_zero ? (uint64_t)1 << (p - 1) : 0;   /* exponent field 1 or 0 */
    value_line("smallest normal", &f, b, &f, &b);
    if (f.subnormals && f.prec > 1 && f.has_zero) {
        b = 1;
        value_line("smallest subnormal", &f, b, &f, &b);
    } else {
        printf("%-19s none\n", "smallest subnormal");
    }
    uint64_t in_f;
    int have = pow2_in(&f, 1 - p, &in_f);
    value_line("machine epsilon", &fl_binary64, pow2_binary64(1 - p), &f,
               have ? &in_f : NULL);
    have = pow2_in(&f, -p, &in_f);
    value_line("unit roundoff", &fl_binary64, pow2_binary64(-p), &f,
               have ? &in_f : NULL);
    return CLI_OK;
}
