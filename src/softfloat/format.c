/*
 * format.c — format descriptors: the preset table, aliases, "ieee:E:M",
 * and the names of rounding modes and NaN presets.
 *
 * Every preset is produced by the same macro from (ebits, prec, nan style,
 * subnormals, saturate), so the derived fields can never drift apart.
 */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "internals.h"

#define FL_ONE ((uint64_t)1)
#define FL_W(E, P) (1 + (E) + (P) - 1)
#define FL_BIAS(E) ((1 << ((E) - 1)) - 1)
#define FL_EXPMASK(E, P) ((((FL_ONE << (E)) - 1)) << ((P) - 1))
#define FL_FRACMASK(P) ((FL_ONE << ((P) - 1)) - 1)
/* IEEE style: largest finite has exponent field all-ones minus one and an
 * all-ones fraction; FN style: all-ones exponent, fraction all ones - 1. */
#define FL_EMAX(E, S) (((S) == FL_NANSTYLE_IEEE) ? FL_BIAS(E) : FL_BIAS(E) + 1)
#define FL_MAXBITS(E, P, S)                                                  \
    (((S) == FL_NANSTYLE_IEEE)                                               \
         ? ((((FL_ONE << (E)) - 2) << ((P) - 1)) | FL_FRACMASK(P))           \
         : ((((FL_ONE << (E)) - 1) << ((P) - 1)) | (FL_FRACMASK(P) - 1)))

#define FL_FORMAT(NAME, E, P, S, SUB, SAT)                                   \
    {                                                                        \
        NAME, FL_W(E, P), E, P, (S) == FL_NANSTYLE_IEEE, S, SUB, SAT, 0,     \
        FL_BIAS(E), 1 - FL_BIAS(E), FL_EMAX(E, S),                           \
        FL_ONE << (FL_W(E, P) - 1), FL_EXPMASK(E, P), FL_FRACMASK(P),        \
        FL_MAXBITS(E, P, S)                                                  \
    }

const fl_format fl_binary16 = FL_FORMAT("binary16", 5, 11, FL_NANSTYLE_IEEE, 1, 0);
const fl_format fl_bfloat16 = FL_FORMAT("bfloat16", 8, 8, FL_NANSTYLE_IEEE, 1, 0);
const fl_format fl_binary32 = FL_FORMAT("binary32", 8, 24, FL_NANSTYLE_IEEE, 1, 0);
const fl_format fl_binary64 = FL_FORMAT("binary64", 11, 53, FL_NANSTYLE_IEEE, 1, 0);
/* TensorFloat-32: binary32's range, 10 fraction bits, stored in 19 bits. */
const fl_format fl_tf32 = FL_FORMAT("tf32", 8, 11, FL_NANSTYLE_IEEE, 1, 0);
/* OCP 8-bit floating point (OFP8) v1.0: E5M2 is IEEE-like; E4M3 ("FN")
 * has no infinities, the single NaN S.1111.111, and max 448. */
const fl_format fl_fp8_e5m2 = FL_FORMAT("fp8-e5m2", 5, 3, FL_NANSTYLE_IEEE, 1, 0);
const fl_format fl_fp8_e4m3 = FL_FORMAT("fp8-e4m3", 4, 4, FL_NANSTYLE_FN, 1, 0);

static const fl_format *const presets[] = {
    &fl_binary16, &fl_bfloat16, &fl_binary32, &fl_binary64,
    &fl_tf32,     &fl_fp8_e5m2, &fl_fp8_e4m3,
};

static const struct {
    const char *alias;
    const fl_format *fmt;
} aliases[] = {
    {"binary16", &fl_binary16}, {"fp16", &fl_binary16},
    {"half", &fl_binary16},     {"f16", &fl_binary16},
    {"bfloat16", &fl_bfloat16}, {"bf16", &fl_bfloat16},
    {"binary32", &fl_binary32}, {"fp32", &fl_binary32},
    {"float", &fl_binary32},    {"single", &fl_binary32},
    {"f32", &fl_binary32},      {"binary64", &fl_binary64},
    {"fp64", &fl_binary64},     {"double", &fl_binary64},
    {"f64", &fl_binary64},      {"tf32", &fl_tf32},
    {"fp8-e5m2", &fl_fp8_e5m2}, {"e5m2", &fl_fp8_e5m2},
    {"fp8-e4m3", &fl_fp8_e4m3}, {"e4m3", &fl_fp8_e4m3},
    {"fp8-e4m3fn", &fl_fp8_e4m3}, {"e4m3fn", &fl_fp8_e4m3},
};

size_t fl_format_preset_count(void)
{
    return sizeof presets / sizeof presets[0];
}

const fl_format *fl_format_preset(size_t i)
{
    return i < fl_format_preset_count() ? presets[i] : NULL;
}

const fl_format *fl_format_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].alias))
            return aliases[i].fmt;
    return NULL;
}

static void set_err(char *err, size_t errlen, const char *msg, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, msg, arg);
}

int fl_format_make(fl_format *out, const char *name, int ebits, int prec,
                   int nan_style, int subnormals, int saturate, char *err,
                   size_t errlen)
{
    char buf[64];
    if (ebits < 2 || ebits > 11) {
        snprintf(buf, sizeof buf, "%d", ebits);
        set_err(err, errlen, "exponent bits must be 2..11, got %s", buf);
        return -1;
    }
    if (prec < 2 || prec > 53) {
        snprintf(buf, sizeof buf, "%d", prec - 1);
        set_err(err, errlen, "fraction bits must be 1..52, got %s", buf);
        return -1;
    }
    if (nan_style != FL_NANSTYLE_IEEE && nan_style != FL_NANSTYLE_FN) {
        set_err(err, errlen, "unknown NaN style%s", "");
        return -1;
    }
    if (nan_style == FL_NANSTYLE_IEEE && prec < 2) {
        set_err(err, errlen, "an IEEE-style format needs a fraction bit%s", "");
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->name = name;
    out->ebits = (uint8_t)ebits;
    out->prec = (uint8_t)prec;
    out->width = (uint8_t)FL_W(ebits, prec);
    out->nan_style = (uint8_t)nan_style;
    out->has_inf = nan_style == FL_NANSTYLE_IEEE;
    out->subnormals = subnormals != 0;
    out->saturate = saturate != 0;
    out->bias = FL_BIAS(ebits);
    out->emin = 1 - out->bias;
    out->emax = FL_EMAX(ebits, nan_style);
    out->sign_mask = FL_ONE << (out->width - 1);
    out->exp_mask = FL_EXPMASK(ebits, prec);
    out->frac_mask = FL_FRACMASK(prec);
    out->max_bits = FL_MAXBITS(ebits, prec, nan_style);
    return 0;
}

/* Parse a whole decimal integer in [lo, hi]; -1 if not. */
static int parse_small_int(const char *s, const char *end, int lo, int hi)
{
    long v = 0;
    if (s == end || end - s > 4)
        return -1;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v < lo || v > hi ? -1 : (int)v;
}

int fl_format_parse(fl_format *out, const char *spec, char *err, size_t errlen)
{
    const fl_format *p;
    if (!spec || !*spec) {
        set_err(err, errlen, "empty format name%s", "");
        return -1;
    }
    p = fl_format_by_name(spec);
    if (p) {
        *out = *p;
        return 0;
    }
    if (!strncmp(spec, "ieee:", 5)) {
        const char *e = spec + 5, *colon = strchr(e, ':');
        int ebits, mbits;
        if (!colon) {
            set_err(err, errlen,
                    "format '%s': expected ieee:E:M (E exponent bits, M "
                    "fraction bits)", spec);
            return -1;
        }
        ebits = parse_small_int(e, colon, 0, 9999);
        mbits = parse_small_int(colon + 1, colon + 1 + strlen(colon + 1), 0, 9999);
        if (ebits < 2 || ebits > 11) {
            set_err(err, errlen,
                    "format '%s': exponent bits E must be an integer 2..11", spec);
            return -1;
        }
        if (mbits < 1 || mbits > 52) {
            set_err(err, errlen,
                    "format '%s': fraction bits M must be an integer 1..52", spec);
            return -1;
        }
        return fl_format_make(out, "ieee", ebits, mbits + 1, FL_NANSTYLE_IEEE,
                              1, 0, err, errlen);
    }
    set_err(err, errlen,
            "unknown format '%s' (try binary16/fp16/half, bfloat16/bf16, "
            "binary32/fp32, binary64/fp64, tf32, fp8-e5m2, fp8-e4m3, or ieee:E:M)",
            spec);
    return -1;
}

/* ---------------------------------------------------------------------- */

static const char *const rm_names[FL_RM_COUNT] = {
    "rne", "rtz", "rdn", "rup", "rna", "rto", "sr"};

static const struct {
    const char *name;
    int rm;
} rm_aliases[] = {
    {"rne", FL_RNE}, {"near_even", FL_RNE}, {"nearest", FL_RNE},
    {"rn", FL_RNE},  {"rtz", FL_RTZ},       {"minMag", FL_RTZ},
    {"rz", FL_RTZ},  {"zero", FL_RTZ},      {"rdn", FL_RDN},
    {"min", FL_RDN}, {"rd", FL_RDN},        {"down", FL_RDN},
    {"rup", FL_RUP}, {"max", FL_RUP},       {"ru", FL_RUP},
    {"up", FL_RUP},  {"rna", FL_RNA},       {"near_maxMag", FL_RNA},
    {"rto", FL_RTO}, {"odd", FL_RTO},       {"sr", FL_RSR},
    {"stochastic", FL_RSR},
};

int fl_rm_parse(const char *s)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < sizeof rm_aliases / sizeof rm_aliases[0]; i++)
        if (!strcmp(s, rm_aliases[i].name))
            return rm_aliases[i].rm;
    return -1;
}

const char *fl_rm_name(int rm)
{
    return rm >= 0 && rm < FL_RM_COUNT ? rm_names[rm] : "?";
}

static const char *const nan_names[FL_NANP_COUNT] = {"x86", "arm", "riscv",
                                                     "cuda", "softfloat"};

int fl_nan_preset_parse(const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < FL_NANP_COUNT; i++)
        if (!strcmp(s, nan_names[i]))
            return i;
    return -1;
}

const char *fl_nan_preset_name(int p)
{
    return p >= 0 && p < FL_NANP_COUNT ? nan_names[p] : "?";
}
