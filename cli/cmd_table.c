/*
 * cmd_table.c — `fplab table FORMAT`: every value of a format of at most
 * 12 bits, one tab-separated line per bit pattern in increasing order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

enum { TABLE_MAX_WIDTH = 12 };

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab table FORMAT\n"
"\n"
"Prints every value of FORMAT (at most %d bits wide) under a header line,\n"
"one tab-separated line per bit pattern from 0 upward:\n"
"  bits      the pattern, 0x-hex of the format's width\n"
"  sign      0 or 1\n"
"  exponent  the biased exponent field (decimal)\n"
"  fraction  the fraction field (0x-hex)\n"
"  unbiased  the exponent of the value: field - bias for normal numbers,\n"
"            emin for zeros and subnormals, '-' for inf and nan\n"
"  value     the exact decimal value (inf, -inf, nan)\n"
"  class     zero, subnormal, normal, inf or nan\n"
"\n"
"example: fplab table ieee:4:3     (256 lines; fp8-e4m3, fp8-e5m2 too)\n"
"exit status: 0 success, 2 bad usage or a format wider than %d bits.\n",
            TABLE_MAX_WIDTH, TABLE_MAX_WIDTH);
}

static const char *class_word(fl_class k)
{
    switch (k) {
    case FL_CLASS_SNAN:
    case FL_CLASS_QNAN:
        return "nan";
    case FL_CLASS_NEG_INF:
    case FL_CLASS_POS_INF:
        return "inf";
    case FL_CLASS_NEG_NORMAL:
    case FL_CLASS_POS_NORMAL:
        return "normal";
    case FL_CLASS_NEG_SUBNORMAL:
    case FL_CLASS_POS_SUBNORMAL:
        return "subnormal";
    default:
        return "zero";
    }
}

int cmd_table(int argc, char **argv)
{
    const char *spec;
    fl_format f;
    int rc = cli_one_format("table", argc, argv, usage, &f, &spec);
    if (rc != 0)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (f.width > TABLE_MAX_WIDTH)
        return cli_error("table: %s is %d bits wide; the table is for "
                         "formats of at most %d bits (try 'fplab info %s')",
                         f.name, f.width, TABLE_MAX_WIDTH, spec);

    const int fb = f.prec - 1;
    const int hd = cli_hex_digits(&f);
    const int fd = (fb + 3) / 4 > 0 ? (fb + 3) / 4 : 1;
    printf("bits\tsign\texponent\tfraction\tunbiased\tvalue\tclass\n");
    for (uint64_t a = 0; a < ((uint64_t)1 << f.width); a++) {
        unsigned sign = (a & f.sign_mask) != 0;
        unsigned e = (unsigned)((a & f.exp_mask) >> fb);
        uint64_t frac = a & f.frac_mask;
        fl_class k = fl_classify(&f, a);
        const char *cw = class_word(k);
        char unb[16];
        if (!strcmp(cw, "nan") || !strcmp(cw, "inf"))
            snprintf(unb, sizeof unb, "-");
        else if (!strcmp(cw, "normal"))
            snprintf(unb, sizeof unb, "%d", (int)e - (int)f.bias);
        else
            snprintf(unb, sizeof unb, "%d", (int)f.emin);
        char *val = cli_exact_str(&f, a);
        printf("0x%0*" PRIx64 "\t%u\t%u\t0x%0*" PRIx64 "\t%s\t%s\t%s\n", hd,
               a, sign, e, fd, frac, unb, val, cw);
        free(val);
    }
    return CLI_OK;
}
