/*
 * format.c — format descriptors: the preset table (with every name each
 * preset answers to), "ieee:E:M", fl_format_define, the comparison of
 * two formats (same, contains) and a format's spec, and the names of
 * rounding modes and NaN presets.
 *
 * A format is data: (ebits, prec, bias, nan style, signedness, zero,
 * subnormals, saturation).  Every preset is produced by the same macro
 * from those parameters, and fl_format_define derives the same fields by
 * the same rules, so the derived fields can never drift apart (the unit
 * tests rebuild every preset through fl_format_define and compare).
 *
 * Sources of the parameters:
 *   - OCP 8-bit Floating Point Specification (OFP8) rev 1.0: E4M3 (max
 *     448, NaN S.1111.111, no infinities) and E5M2 (IEEE-like);
 *   - ml_dtypes (jax-ml/ml_dtypes), include/float8.h and mxfloat.h (the
 *     numeric_limits and Traits of each type): float8_e4m3 (bias 7, max
 *     240, infinities), float8_e3m4 (bias 3, max 15.5), float8_e4m3fnuz
 *     (bias 8), float8_e5m2fnuz (bias 16), float8_e4m3b11fnuz (bias 11),
 *     float8_e5m3fnu (unsigned, bias 15, NaN 0xFF), float8_e8m0fnu
 *     (unsigned, bias 127, NaN 0xFF, no zero; its conversion's rounding
 *     above 2^-127, ConvertImpl in float8.h), float6_e2m3fn (bias 1),
 *     float6_e3m2fn (bias 3), float4_e2m1fn (bias 1);
 *   - OCP Microscaling Formats (MX) v1.0, section 5: the same E8M0 (as
 *     fp8-e8m0, true nearest), E2M3, E3M2 and E2M1;
 *   - IEEE P3109 Binary{K, P, signedness, domain}, IEEE SA P3109 Interim
 *     Report v3.1 (7 November 2025), 3.2 "Exponent bias" and 4.5 / 4.9.1
 *     (Decode): K - P exponent bits and bias 2^(K-P-1) when signed, K - P
 *     + 1 and 2^(K-P) when unsigned; subnormals; no -0; the NaN is the
 *     sign bit alone (signed) or the all-ones code (unsigned); the
 *     extended domain puts the infinity at the largest magnitude below
 *     the NaN.  Graphcore's gfloat (src/gfloat/formats.py
 *     format_info_p3109, types.py) builds the same, named
 *     p3109_k{K}p{P}{s|u}{e|f}.  K = 8 signed extended, smallest /
 *     smallest normal / largest:
 *       p1 2^-63 / 2^-63 / 2^62      p2 2^-32 / 2^-31 / 2^31
 *       p3 2^-17 / 2^-15 / 49152     p4 2^-10 / 2^-7 / 224
 *       p5 2^-7 / 2^-3 / 15          p6 2^-6 / 2^-1 / 3.875
 *       p7 2^-6 / 1 / 1.96875.
 */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "internals.h"

#include "preset_init.h"

const fl_format fl_binary16 = FL__PRESET_BINARY16;
const fl_format fl_bfloat16 = FL__PRESET_BFLOAT16;
const fl_format fl_binary32 = FL__PRESET_BINARY32;
const fl_format fl_binary64 = FL_FORMAT("binary64", 11, 53, FL_NANSTYLE_IEEE);
/* TensorFloat-32: binary32's range, 10 fraction bits, stored in 19 bits. */
const fl_format fl_tf32 = FL_FORMAT("tf32", 8, 11, FL_NANSTYLE_IEEE);
/* OCP 8-bit floating point (OFP8) v1.0: E5M2 is IEEE-like; E4M3 ("FN")
 * has no infinities, the single NaN S.1111.111, and max 448. */
const fl_format fl_fp8_e5m2 = FL_FORMAT("fp8-e5m2", 5, 3, FL_NANSTYLE_IEEE);
const fl_format fl_fp8_e4m3 = FL_FORMAT("fp8-e4m3", 4, 4, FL_NANSTYLE_FN);
/* ml_dtypes' IEEE-like 8-bit formats (infinities, NaNs with payloads). */
const fl_format fl_float8_e4m3 =
    FL_FORMAT("float8_e4m3", 4, 4, FL_NANSTYLE_IEEE);
const fl_format fl_float8_e3m4 =
    FL_FORMAT("float8_e3m4", 3, 5, FL_NANSTYLE_IEEE);
/* fnuz: the IEEE bias plus one (float8_e4m3b11fnuz: 11). */
const fl_format fl_float8_e4m3fnuz = FL_FORMAT_X(
    "float8_e4m3fnuz", 4, 4, 8, FL_NANSTYLE_FNUZ, 1, 1, 1, 0);
const fl_format fl_float8_e5m2fnuz = FL_FORMAT_X(
    "float8_e5m2fnuz", 5, 3, 16, FL_NANSTYLE_FNUZ, 1, 1, 1, 0);
const fl_format fl_float8_e4m3b11fnuz = FL_FORMAT_X(
    "float8_e4m3b11fnuz", 4, 4, 11, FL_NANSTYLE_FNUZ, 1, 1, 1, 0);
/* Unsigned: NVIDIA's E5M3 (ml_dtypes float8_e5m3fnu) and the MX scale
 * E8M0, whose exponent field 0 is 2^-127, not zero.  E8M0 twice, with the
 * same codes: under ml_dtypes' name it rounds as ml_dtypes does (its
 * ConvertImpl rounds at the quantum 2^-126 as if code 0 were zero, so in
 * round to nearest everything in (2^-127, 2^-126) goes to 2^-126:
 * min_gap_up); OCP MX v1.0 (section 5.4.1) defines the encoding only, and
 * fp8-e8m0 rounds to the true nearest. */
const fl_format fl_float8_e5m3fnu = FL_FORMAT_X(
    "float8_e5m3fnu", 5, 4, 15, FL_NANSTYLE_FN, 0, 1, 1, 0);
const fl_format fl_float8_e8m0fnu = FL_FORMAT_XG(
    "float8_e8m0fnu", 8, 1, 127, FL_NANSTYLE_FN, 0, 0, 0, 0, 1);
const fl_format fl_fp8_e8m0 = FL_FORMAT_X(
    "fp8-e8m0", 8, 1, 127, FL_NANSTYLE_FN, 0, 0, 0, 0);
/* OCP MX element types: no infinities, no NaN. */
const fl_format fl_float6_e2m3fn = FL_FORMAT_X(
    "float6_e2m3fn", 2, 4, 1, FL_NANSTYLE_FINITE, 1, 1, 1, 0);
const fl_format fl_float6_e3m2fn = FL_FORMAT_X(
    "float6_e3m2fn", 3, 3, 3, FL_NANSTYLE_FINITE, 1, 1, 1, 0);
const fl_format fl_float4_e2m1fn = FL_FORMAT_X(
    "float4_e2m1fn", 2, 2, 1, FL_NANSTYLE_FINITE, 1, 1, 1, 0);
/* IEEE P3109 Binary8pPse (K = 8, signed, extended): E = 8 - P exponent
 * bits, bias 2^(8-P-1) for every P (P = 1 too: 64). */
#define FL_P3109(NAME, P)                                                    \
    FL_FORMAT_X(NAME, 8 - (P), P, 1 << (7 - (P)), FL_NANSTYLE_P3109, 1, 1,   \
                1, 0)
const fl_format fl_p3109_p1 = FL_P3109("p3109:p1", 1);
const fl_format fl_p3109_p2 = FL_P3109("p3109:p2", 2);
const fl_format fl_p3109_p3 = FL_P3109("p3109:p3", 3);
const fl_format fl_p3109_p4 = FL_P3109("p3109:p4", 4);
const fl_format fl_p3109_p5 = FL_P3109("p3109:p5", 5);
const fl_format fl_p3109_p6 = FL_P3109("p3109:p6", 6);
const fl_format fl_p3109_p7 = FL_P3109("p3109:p7", 7);

/* The one table: each preset with the other names it answers to (numpy /
 * PyTorch / ml_dtypes spellings and short aliases).  Names compare
 * case-insensitively. */
#define FL_MAX_ALIASES 6
static const struct {
    const fl_format *fmt;
    const char *alias[FL_MAX_ALIASES];
} presets[] = {
    {&fl_binary16, {"fp16", "half", "f16", "float16"}},
    {&fl_bfloat16, {"bf16"}},
    {&fl_binary32, {"fp32", "float", "single", "f32", "float32"}},
    {&fl_binary64, {"fp64", "double", "f64", "float64"}},
    {&fl_tf32, {"tensorfloat32"}},
    {&fl_fp8_e5m2, {"e5m2", "float8_e5m2"}},
    {&fl_fp8_e4m3, {"e4m3", "fp8-e4m3fn", "e4m3fn", "float8_e4m3fn"}},
    {&fl_float8_e4m3, {NULL}},   /* not "e4m3": that name is OCP's */
    {&fl_float8_e3m4, {"fp8-e3m4", "e3m4"}},
    {&fl_float8_e4m3fnuz, {"fp8-e4m3fnuz", "e4m3fnuz"}},
    {&fl_float8_e5m2fnuz, {"fp8-e5m2fnuz", "e5m2fnuz"}},
    {&fl_float8_e4m3b11fnuz,
     {"fp8-e4m3b11fnuz", "e4m3b11fnuz", "float8_e4m3b11"}},
    {&fl_float8_e5m3fnu, {"fp8-e5m3fnu", "e5m3fnu"}},
    {&fl_float8_e8m0fnu, {"e8m0fnu", "fp8-e8m0fnu"}},
    {&fl_fp8_e8m0, {"e8m0"}},   /* OCP MX's, as "e4m3" is OCP's */
    {&fl_float6_e2m3fn, {"fp6-e2m3", "e2m3", "e2m3fn"}},
    {&fl_float6_e3m2fn, {"fp6-e3m2", "e3m2", "e3m2fn"}},
    {&fl_float4_e2m1fn, {"fp4-e2m1", "e2m1", "e2m1fn"}},
    {&fl_p3109_p1, {"binary8p1", "p3109_p1", "p3109_k8p1se", "binary8p1se"}},
    {&fl_p3109_p2, {"binary8p2", "p3109_p2", "p3109_k8p2se", "binary8p2se"}},
    {&fl_p3109_p3, {"binary8p3", "p3109_p3", "p3109_k8p3se", "binary8p3se"}},
    {&fl_p3109_p4, {"binary8p4", "p3109_p4", "p3109_k8p4se", "binary8p4se"}},
    {&fl_p3109_p5, {"binary8p5", "p3109_p5", "p3109_k8p5se", "binary8p5se"}},
    {&fl_p3109_p6, {"binary8p6", "p3109_p6", "p3109_k8p6se", "binary8p6se"}},
    {&fl_p3109_p7, {"binary8p7", "p3109_p7", "p3109_k8p7se", "binary8p7se"}},
};
#define FL_NPRESETS (sizeof presets / sizeof presets[0])

size_t fl_format_preset_count(void)
{
    return FL_NPRESETS;
}

const fl_format *fl_format_preset(size_t i)
{
    return i < FL_NPRESETS ? presets[i].fmt : NULL;
}

static int lower(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* ASCII case-insensitive equality (no locale). */
static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower((unsigned char)*a) != lower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* Case-insensitive prefix test: the rest of s after prefix, or NULL. */
static const char *after_prefix(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (lower((unsigned char)*s) != *prefix)
            return NULL;
    return s;
}

/* The name without a library prefix ("torch.bfloat16" -> "bfloat16"). */
static const char *strip_module(const char *name)
{
    static const char *const mods[] = {"torch.", "np.", "numpy.", "jnp.",
                                       "ml_dtypes."};
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
        const char *r = after_prefix(name, mods[i]);
        if (r && *r)
            return r;
    }
    return name;
}

const fl_format *fl_format_by_name(const char *name)
{
    if (!name)
        return NULL;
    name = strip_module(name);
    for (size_t i = 0; i < FL_NPRESETS; i++) {
        if (same_name(name, presets[i].fmt->name))
            return presets[i].fmt;
        for (int k = 0; k < FL_MAX_ALIASES && presets[i].alias[k]; k++)
            if (same_name(name, presets[i].alias[k]))
                return presets[i].fmt;
    }
    return NULL;
}

static void set_err(char *err, size_t errlen, const char *msg, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, msg, arg);
}

/* fl_format_define, and for the P3109 style its finite domain (finite:
 * no infinities), which fl_format_p3109 builds. */
static int define(fl_format *out, const char *name,
                  const fl_format_params *p, int finite, char *err,
                  size_t errlen)
{
    char buf[64];
    const int st = p->nan_style, sg = p->is_signed != 0, z = p->has_zero != 0;
    const int e = p->ebits, pr = p->prec;
    int32_t bias, emin, emax;
    uint64_t maxb;
    int inf;

    if (st < 0 || st >= FL_NANSTYLE_COUNT) {
        snprintf(buf, sizeof buf, "%d", st);
        set_err(err, errlen, "unknown NaN style %s (0..4: ieee, fn, finite, "
                "fnuz, p3109)", buf);
        return -1;
    }
    if (e < (st == FL_NANSTYLE_IEEE ? 2 : 1) || e > 11) {
        snprintf(buf, sizeof buf, "%d", e);
        set_err(err, errlen, st == FL_NANSTYLE_IEEE
                ? "exponent bits must be 2..11, got %s"
                : "exponent bits must be 1..11, got %s", buf);
        return -1;
    }
    if (pr < (st == FL_NANSTYLE_IEEE ? 2 : 1) || pr > 53) {
        snprintf(buf, sizeof buf, "%d", pr - 1);
        set_err(err, errlen, st == FL_NANSTYLE_IEEE
                ? "fraction bits must be 1..52 (an IEEE-style format needs "
                  "one for its NaNs), got %s"
                : "fraction bits must be 0..52, got %s", buf);
        return -1;
    }
    if (!sg && st == FL_NANSTYLE_FNUZ) {
        set_err(err, errlen, "an unsigned format cannot have the fnuz NaN, "
                "which is the sign bit alone%s", "");
        return -1;
    }

    if (!z && (sg || p->subnormals ||
               (st != FL_NANSTYLE_FN && st != FL_NANSTYLE_FINITE))) {
        set_err(err, errlen, "a format without zero must be unsigned, "
                "without subnormals, of the fn or finite NaN style%s", "");
        return -1;
    }
    if (p->min_gap_up && z) {
        set_err(err, errlen, "min_gap_up (ml_dtypes' E8M0 rounding) needs "
                "a format without zero%s", "");
        return -1;
    }
    if (sg + e + pr - 1 < 2) {
        set_err(err, errlen, "a format needs at least 2 bits%s", "");
        return -1;
    }
    inf = st == FL_NANSTYLE_P3109 ? !finite : FL_HASINF(st);
    bias = p->bias == FL_BIAS_IEEE ? FL_BIAS(e) : p->bias;
    maxb = FL_MAXBITS(e, pr, st, sg, inf);
    if (z ? (maxb >> (pr - 1)) == 0 : maxb == 0) {
        /* e.g. one exponent bit and no fraction with fn or p3109: the
         * specials leave no normal number */
        set_err(err, errlen, "the format has no normal number besides its "
                "special encodings (widen it)%s", "");
        return -1;
    }
    emin = (z ? 1 : 0) - bias;
    emax = (int32_t)(maxb >> (pr - 1)) - bias;
    /* every finite value a binary64 (FN/FINITE ebits 11 reach 2^1024 *
     * (1 - ...), which fl_to_double documents) */
    if (p->bias != FL_BIAS_IEEE &&
        (p->bias < -1100 || p->bias > 1100 || emax > 1024 ||
         (int64_t)emin - (p->subnormals ? pr - 1 : 0) < -1074)) {
        snprintf(buf, sizeof buf, "%d", p->bias);
        set_err(err, errlen, "bias %s puts values outside binary64's range "
                "(need emax <= 1024 and the smallest value >= 2^-1074)", buf);
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->name = name;
    out->width = (uint8_t)(sg + e + pr - 1);
    out->ebits = (uint8_t)e;
    out->prec = (uint8_t)pr;
    out->has_inf = (uint8_t)inf;
    out->nan_style = (uint8_t)st;
    out->subnormals = p->subnormals != 0;
    out->saturate = p->saturate != 0;
    out->is_signed = (uint8_t)sg;
    out->has_zero = (uint8_t)z;
    out->has_negzero = FL_NEGZERO(st, sg);
    out->min_gap_up = p->min_gap_up != 0;
    out->bias = bias;
    out->emin = emin;
    out->emax = emax;
    out->sign_mask = sg ? FL_ONE << (out->width - 1) : 0;
    out->exp_mask = FL_EXPMASK(e, pr);
    out->frac_mask = FL_FRACMASK(pr);
    out->max_bits = maxb;
    return 0;
}

int fl_format_define(fl_format *out, const char *name,
                     const fl_format_params *p, char *err, size_t errlen)
{
    return define(out, name, p, 0, err, errlen);
}

int fl_format_make(fl_format *out, const char *name, int ebits, int prec,
                   int nan_style, int subnormals, int saturate, char *err,
                   size_t errlen)
{
    fl_format_params p;
    p.ebits = ebits;
    p.prec = prec;
    p.bias = FL_BIAS_IEEE;
    p.nan_style = nan_style;
    p.is_signed = 1;
    p.has_zero = 1;
    p.subnormals = subnormals;
    p.saturate = saturate;
    p.min_gap_up = 0;
    return fl_format_define(out, name, &p, err, errlen);
}

/* gfloat's names of the P3109 family, K = 2..16, P = 1..16, in the order
 * se, sf, ue, uf: constant strings a descriptor can point to. */
#define FL_P3109_NM(K, P)                                                    \
    {"p3109_k" #K "p" #P "se", "p3109_k" #K "p" #P "sf",                     \
     "p3109_k" #K "p" #P "ue", "p3109_k" #K "p" #P "uf"}
#define FL_P3109_NK(K)                                                       \
    {FL_P3109_NM(K, 1), FL_P3109_NM(K, 2), FL_P3109_NM(K, 3),                \
     FL_P3109_NM(K, 4), FL_P3109_NM(K, 5), FL_P3109_NM(K, 6),                \
     FL_P3109_NM(K, 7), FL_P3109_NM(K, 8), FL_P3109_NM(K, 9),                \
     FL_P3109_NM(K, 10), FL_P3109_NM(K, 11), FL_P3109_NM(K, 12),             \
     FL_P3109_NM(K, 13), FL_P3109_NM(K, 14), FL_P3109_NM(K, 15),             \
     FL_P3109_NM(K, 16)}
#define FL_P3109_KMAX 16
static const char *const p3109_names[FL_P3109_KMAX - 1][16][4] = {
    FL_P3109_NK(2), FL_P3109_NK(3), FL_P3109_NK(4), FL_P3109_NK(5),
    FL_P3109_NK(6), FL_P3109_NK(7), FL_P3109_NK(8), FL_P3109_NK(9),
    FL_P3109_NK(10), FL_P3109_NK(11), FL_P3109_NK(12), FL_P3109_NK(13),
    FL_P3109_NK(14), FL_P3109_NK(15), FL_P3109_NK(16)};

/* The name of the preset p3109:pP (K = 8, signed, extended). */
static const char *fl_format_preset_p3109(int p)
{
    static const fl_format *const k8[7] = {
        &fl_p3109_p1, &fl_p3109_p2, &fl_p3109_p3, &fl_p3109_p4,
        &fl_p3109_p5, &fl_p3109_p6, &fl_p3109_p7};
    return k8[p - 1]->name;
}

int fl_format_p3109(fl_format *out, int k, int p, int is_signed,
                    int extended, char *err, size_t errlen)
{
    char buf[96];
    const int sg = is_signed != 0;
    const int e = k - p + (sg ? 0 : 1);
    fl_format_params q;
    if (k < 2 || k > FL_P3109_KMAX) {
        snprintf(buf, sizeof buf, "%d", k);
        set_err(err, errlen, "P3109 width K must be 2..16, got %s", buf);
        return -1;
    }
    if (p < 1 || p > k - sg) {
        snprintf(buf, sizeof buf, "%d (K = %d, %s)", p, k,
                 sg ? "signed: P < K" : "unsigned: P <= K");
        set_err(err, errlen, "P3109 precision P out of range: %s", buf);
        return -1;
    }
    if (e < 1) {
        /* signed P = K: no exponent field at all (every value subnormal) */
        set_err(err, errlen, "P3109 formats without exponent bits (signed "
                "P = K) are not modelled%s", "");
        return -1;
    }
    if (e > 11) {
        snprintf(buf, sizeof buf, "%d", e);
        set_err(err, errlen, "this P3109 format has %s exponent bits; fplab "
                "holds formats whose values all lie in binary64's range "
                "(at most 11: P >= K - 11 signed, P >= K - 10 unsigned)", buf);
        return -1;
    }
    memset(&q, 0, sizeof q);
    q.ebits = e;
    q.prec = p;
    q.bias = 1 << (e - 1);                 /* 2^(K-P-1) / 2^(K-P) */
    q.nan_style = FL_NANSTYLE_P3109;
    q.is_signed = sg;
    q.has_zero = 1;
    q.subnormals = 1;
    if (k == 8 && sg && extended)          /* the preset: p3109:pP */
        return define(out, fl_format_preset_p3109(p), &q, 0, err, errlen);
    return define(out, p3109_names[k - 2][p - 1]
                                  [(sg ? 0 : 2) + (extended ? 0 : 1)],
                  &q, !extended, err, errlen);
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

/* "unknown format 'spec' (known: ...)", the list made from the table. */
static void unknown_format(char *err, size_t errlen, const char *spec)
{
    size_t n;
    if (!err || !errlen)
        return;
    n = (size_t)snprintf(err, errlen, "unknown format '%s' (known: ", spec);
    for (size_t i = 0; i < FL_NPRESETS && n < errlen; i++) {
        const char *nm = presets[i].fmt->name;
        if (!strncmp(nm, "p3109:", 6))
            continue;
        n += (size_t)snprintf(err + n, errlen - n, "%s, ", nm);
    }
    if (n < errlen)
        snprintf(err + n, errlen - n,
                 "p3109:p1 .. p3109:p7, p3109_k{K}p{P}{s|u}{e|f}, ieee:E:M; "
                 "aliases such as fp16, half, bf16, float32, e4m3, e8m0, "
                 "fp4-e2m1; any case)");
}

/* "K p P {s|u}{e|f}" after "p3109_k" (gfloat) or "binary" (the P3109
 * report's Binary8p3se); "binary8pP" alone is the preset p3109:pP. */
static int parse_p3109(fl_format *out, const char *spec, const char *rest,
                       char *err, size_t errlen)
{
    const char *pp = rest, *sd;
    int k, p, sg, ext;
    char sbuf[8];
    while (*pp >= '0' && *pp <= '9')
        pp++;
    k = parse_small_int(rest, pp, 0, 9999);
    if (k < 0 || lower((unsigned char)*pp) != 'p')
        goto bad;
    sd = ++pp;
    while (*sd >= '0' && *sd <= '9')
        sd++;
    p = parse_small_int(pp, sd, 0, 9999);
    if (p < 0)
        goto bad;
    if (strlen(sd) != 2)
        goto bad;
    sbuf[0] = (char)lower((unsigned char)sd[0]);
    sbuf[1] = (char)lower((unsigned char)sd[1]);
    if ((sbuf[0] != 's' && sbuf[0] != 'u') ||
        (sbuf[1] != 'e' && sbuf[1] != 'f'))
        goto bad;
    sg = sbuf[0] == 's';
    ext = sbuf[1] == 'e';
    if (fl_format_p3109(out, k, p, sg, ext, err, errlen) == 0)
        return 0;
    if (err && errlen) {
        char why[200];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "format '%s': %s", spec, why);
    }
    return -1;
bad:
    set_err(err, errlen, "format '%s': an IEEE P3109 format is named "
            "p3109_k{K}p{P}{s|u}{e|f} (or BinaryKpP{s|u}{e|f}): width K, "
            "precision P, signed or unsigned, extended (infinities) or "
            "finite, e.g. p3109_k8p3se; the 8-bit signed extended ones are "
            "also p3109:p1 .. p3109:p7", spec);
    return -1;
}

int fl_format_parse(fl_format *out, const char *spec, char *err, size_t errlen)
{
    const fl_format *p;
    const char *rest;
    if (!spec || !*spec) {
        set_err(err, errlen, "empty format name%s", "");
        return -1;
    }
    p = fl_format_by_name(spec);
    if (p) {
        *out = *p;
        return 0;
    }
    if ((rest = after_prefix(spec, "ieee:")) != NULL) {
        const char *colon = strchr(rest, ':');
        int ebits, mbits;
        if (!colon) {
            set_err(err, errlen,
                    "format '%s': expected ieee:E:M (E exponent bits, M "
                    "fraction bits)", spec);
            return -1;
        }
        ebits = parse_small_int(rest, colon, 0, 9999);
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
    if ((rest = after_prefix(spec, "p3109_k")) != NULL ||
        ((rest = after_prefix(spec, "binary")) != NULL && *rest >= '0' &&
         *rest <= '9'))
        return parse_p3109(out, spec, rest, err, errlen);
    if ((rest = after_prefix(spec, "p3109:")) != NULL) {
        set_err(err, errlen,
                "format '%s': the IEEE P3109 8-bit formats are p3109:p1 .. "
                "p3109:p7 (precision P = 1..7, signed, extended); the whole "
                "family is p3109_k{K}p{P}{s|u}{e|f}, e.g. p3109_k8p3sf", spec);
        return -1;
    }
    unknown_format(err, errlen, spec);
    return -1;
}

/* ----------------------------------------------------------------------
 * Comparing formats and naming one.
 * ---------------------------------------------------------------------- */

/* is_signed follows from width, ebits and prec; name, reserved and the
 * derived masks do not define a format.  (min_gap_up is rounding, not
 * encoding: fp8-e8m0 and float8_e8m0fnu are the same codes.) */
int fl_format_same(const fl_format *g, const fl_format *f)
{
    return g->width == f->width && g->ebits == f->ebits &&
           g->prec == f->prec && g->has_inf == f->has_inf &&
           g->nan_style == f->nan_style && g->subnormals == f->subnormals &&
           g->saturate == f->saturate && g->bias == f->bias &&
           g->emax == f->emax && g->max_bits == f->max_bits;
}

/* Largest finite significand as an integer of prec bits. */
static uint64_t max_sig(const fl_format *f)
{
    return (f->max_bits & f->frac_mask) | ((uint64_t)1 << (f->prec - 1));
}

/* Every finite value of f is m * 2^q with q >= qf = emin - prec + 1 (its
 * quantum at the bottom: f's subnormals, or the last bit of its smallest
 * normal binade; without zero (E8M0) 2^emin itself is such a value), and
 * a value of f at exponent e has its last bit at e - prec(f) + 1 >= qf.
 * g holds such a value when its precision is no less, its top is no lower
 * and, below g's normal range, the value is a multiple of g's smallest
 * quantum: with subnormals that is qg <= qf alone; without, every value
 * of f must be at least 2^emin(g).  NaN codes and signs are not values. */
int fl_format_contains(const fl_format *g, const fl_format *f)
{
    int32_t qf = f->emin - f->prec + 1, qg = g->emin - g->prec + 1;
    if (g->prec < f->prec)
        return 0;
    if (f->has_inf && !g->has_inf)
        return 0;
    /* largest finite: compare leading exponents, then significands
     * scaled to a common length */
    if (g->emax < f->emax)
        return 0;
    if (g->emax == f->emax) {
        fl_u128 mg = (fl_u128)max_sig(g) << (f->prec - 1);
        fl_u128 mf = (fl_u128)max_sig(f) << (g->prec - 1);
        if (mg < mf)
            return 0;
    }
    if (g->subnormals)
        return qg <= qf;
    return (f->subnormals ? qf : f->emin) >= g->emin;
}

void fl_format_spec(const fl_format *f, char *buf, size_t len)
{
    const fl_format *p = f->name ? fl_format_by_name(f->name) : NULL;
    if (p != NULL && fl_format_same(p, f)) {
        snprintf(buf, len, "%s", p->name);
        return;
    }
    for (size_t i = 0; i < fl_format_preset_count(); i++) {
        p = fl_format_preset(i);
        if (fl_format_same(p, f)) {
            snprintf(buf, len, "%s", p->name);
            return;
        }
    }
    if (f->nan_style == FL_NANSTYLE_IEEE && f->subnormals && !f->saturate) {
        snprintf(buf, len, "ieee:%d:%d", f->ebits, f->prec - 1);
        return;
    }
    snprintf(buf, len, "%s", f->name ? f->name : "?");
}

/* ---------------------------------------------------------------------- */

static const char *const rm_names[FL_RM_COUNT] = {
    "rne", "rtz", "rdn", "rup", "rna", "rto", "sr"};

/* A spelling and the value it stands for: the rows of the parsers' tables
 * (rounding modes, SR variants, saturation). */
typedef struct {
    const char *name;
    int v;
} named_value;

/* The value of the first row of t[0, n) spelled s (in any case when fold
 * is set, else exactly), or -1 for NULL or a spelling not in the table. */
static int lookup_name(const named_value *t, size_t n, const char *s,
                       int fold)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (fold ? same_name(s, t[i].name) : !strcmp(s, t[i].name))
            return t[i].v;
    return -1;
}
#define LOOKUP_NAME(table, s, fold) \
    lookup_name(table, sizeof table / sizeof table[0], s, fold)

/* TestFloat's names (minMag, near_maxMag) are spelled exactly. */
static const named_value rm_aliases[] = {
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
    return LOOKUP_NAME(rm_aliases, s, 0);
}

const char *fl_rm_name(int rm)
{
    if (rm == FL_RSB)
        return "srb";
    return rm >= 0 && rm < FL_RM_COUNT ? rm_names[rm] : "?";
}

/* Row v is the canonical name of variant v (fl_srv_name). */
static const named_value srv_names[] = {
    {"stochastic", FL_SRV_STOCHASTIC}, {"stochastic-odd", FL_SRV_STOCHASTIC_ODD},
    {"fast", FL_SRV_FAST},             {"fastest", FL_SRV_FASTEST},
    {"c", FL_SRV_STOCHASTIC},          {"b", FL_SRV_FAST},
    {"a", FL_SRV_FASTEST},
};

int fl_srv_parse(const char *s)
{
    return LOOKUP_NAME(srv_names, s, 1);
}

const char *fl_srv_name(int variant)
{
    return variant >= 0 && variant < FL_SRV_COUNT ? srv_names[variant].name
                                                  : "?";
}

/* Row v is the canonical name of saturation v (fl_sat_name). */
static const named_value sat_names[] = {
    {"none", FL_SAT_NONE},           {"propagate", FL_SAT_PROPAGATE},
    {"finite", FL_SAT_FINITE},       {"ovfinf", FL_SAT_NONE},
    {"satnone", FL_SAT_NONE},        {"satpropagate", FL_SAT_PROPAGATE},
    {"satfinite", FL_SAT_FINITE},
};

int fl_sat_parse(const char *s)
{
    return LOOKUP_NAME(sat_names, s, 1);
}

const char *fl_sat_name(int sat)
{
    return sat >= 0 && sat <= FL_SAT_FINITE ? sat_names[sat].name : "?";
}

static const char *const nan_names[FL_NANP_COUNT] = {"x86", "arm", "riscv",
                                                     "cuda", "softfloat",
                                                     "sign", "sign-pos",
                                                     "default-neg", "first"};

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
