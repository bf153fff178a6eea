/*
 * test_formats.c — the format descriptors themselves, against their
 * sources, and the behaviour where an IEEE result has no encoding.  No
 * oracle: runs without MPFR.
 *   - every preset's numbers (largest, smallest normal, smallest, epsilon,
 *     counts of NaN and infinity codes) against ml_dtypes' numeric_limits
 *     (include/float8.h, mxfloat.h), the OCP OFP8 / MX specifications and
 *     gfloat's table of the P3109 formats (docs formats.rst);
 *   - every preset rebuilt by fl_format_define from its parameters is the
 *     same descriptor; fl_format_define's refusals;
 *   - names: canonical, aliases, numpy / PyTorch spellings, any case,
 *     "torch." / "np." prefixes; clear errors for unknown names;
 *   - positive codes increase with their value in every preset;
 *   - one worked case per row of the behaviour table in docs/formats.md
 *     (value and exact flags);
 *   - fl_format_contains against trying every value, fl_format_same and
 *     fl_format_spec over the presets.
 */
#include <math.h>

#include "test_common.h"
#include "test_check.h"

static long cases;

static double val(const fl_format *f, uint64_t a)
{
    return fl_to_double(f, a);
}

/* Largest finite, smallest normal, smallest positive, NaN codes, inf
 * codes, per preset.  Sources in the comments. */
static const struct {
    const char *name;
    int width;
    double max, min_normal, smallest;
    int nans, infs;
} facts[] = {
    /* OCP OFP8 1.0 table 1; ml_dtypes float8.h numeric_limits */
    { "fp8-e4m3", 8, 448, 0x1p-6, 0x1p-9, 2, 0 },
    { "fp8-e5m2", 8, 57344, 0x1p-14, 0x1p-16, 6, 2 },
    /* ml_dtypes float8.h: max() 240 / 15.5, min() 2^-6 / 2^-2,
     * denorm_min() 2^-9 / 2^-6; IEEE NaNs: 2^3 - 1 and 2^4 - 1 per sign */
    { "float8_e4m3", 8, 240, 0x1p-6, 0x1p-9, 14, 2 },
    { "float8_e3m4", 8, 15.5, 0x1p-2, 0x1p-6, 30, 2 },
    /* ml_dtypes: e4m3fnuz max 0x7F (240), min 0x08 (2^-7), denorm 2^-10;
     * e5m2fnuz max 0x7F (57344), min 0x04 (2^-15), denorm 2^-17;
     * e4m3b11fnuz max 30, min 2^-10, denorm 2^-13; one NaN 0x80 */
    { "float8_e4m3fnuz", 8, 240, 0x1p-7, 0x1p-10, 1, 0 },
    { "float8_e5m2fnuz", 8, 57344, 0x1p-15, 0x1p-17, 1, 0 },
    { "float8_e4m3b11fnuz", 8, 30, 0x1p-10, 0x1p-13, 1, 0 },
    /* ml_dtypes float8_e5m3fnu: max 0b11111'110 = 114688, min 2^-14,
     * denorm_min 2^-17, NaN 0xFF */
    { "float8_e5m3fnu", 8, 114688, 0x1p-14, 0x1p-17, 1, 0 },
    /* OCP MX 1.0 5.4.1 / ml_dtypes: E8M0 2^-127 .. 2^127, NaN 0xFF */
    { "float8_e8m0fnu", 8, 0x1p127, 0x1p-127, 0x1p-127, 1, 0 },
    { "fp8-e8m0", 8, 0x1p127, 0x1p-127, 0x1p-127, 1, 0 },
    /* OCP MX 1.0 5.3.2-5.3.3 / ml_dtypes mxfloat.h / gfloat ocp_e2m3 .. */
    { "float6_e2m3fn", 6, 7.5, 1, 0.125, 0, 0 },
    { "float6_e3m2fn", 6, 28, 0.25, 0.0625, 0, 0 },
    { "float4_e2m1fn", 4, 6, 1, 0.5, 0, 0 },
    /* P3109 Interim Report v3.1, 3.2 (bias 2^(K-P-1)) and gfloat's
     * format_info_p3109(8, P): smallest, smallest normal, max, 1 NaN, 2
     * infinities (p1: bias 64, max 2^62, smallest 2^-63) */
    { "p3109:p1", 8, 0x1p62, 0x1p-63, 0x1p-63, 1, 2 },
    { "p3109:p2", 8, 0x1p31, 0x1p-31, 0x1p-32, 1, 2 },
    { "p3109:p3", 8, 49152, 0x1p-15, 0x1p-17, 1, 2 },
    { "p3109:p4", 8, 224, 0x1p-7, 0x1p-10, 1, 2 },
    { "p3109:p5", 8, 15, 0.125, 0.0078125, 1, 2 },
    { "p3109:p6", 8, 3.875, 0.5, 0.015625, 1, 2 },
    { "p3109:p7", 8, 1.96875, 1, 0x1p-6, 1, 2 },
    /* IEEE 754 */
    { "binary16", 16, 65504, 0x1p-14, 0x1p-24, 2046, 2 },
    { "bfloat16", 16, 0x1.FEp127, 0x1p-126, 0x1p-133, 254, 2 },
};

START_TEST(preset_numbers_match_their_sources)
{
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        const fl_format *f = fl_format_by_name(facts[i].name);
        double lo = INFINITY, lonorm = INFINITY, hi = 0;
        int nans = 0, infs = 0;
        ck_assert_msg(f != NULL, "%s missing", facts[i].name);
        ck_assert_int_eq(f->width, facts[i].width);
        for (uint64_t a = 0; a < ((uint64_t)1 << f->width); a++) {
            const double v = val(f, a);
            const fl_class k = fl_classify(f, a);
            if (isnan(v)) {
                nans++;
                ck_assert(fl_is_nan(f, a));
                continue;
            }
            if (isinf(v)) {
                infs++;
                ck_assert(fl_is_inf(f, a));
                continue;
            }
            if (v > hi)
                hi = v;
            if (v > 0 && v < lo)
                lo = v;
            if (v > 0 && k == FL_CLASS_POS_NORMAL && v < lonorm)
                lonorm = v;
            cases++;
        }
        ck_assert_msg(hi == facts[i].max && lonorm == facts[i].min_normal &&
                      lo == facts[i].smallest && nans == facts[i].nans &&
                      infs == facts[i].infs,
                      "%s: max %a normal %a smallest %a nans %d infs %d",
                      facts[i].name, hi, lonorm, lo, nans, infs);
        /* the descriptor's own fields agree */
        ck_assert(val(f, f->max_bits) == facts[i].max);
        ck_assert(ldexp(1.0, f->emin) == facts[i].min_normal);
        ck_assert(floor(log2(facts[i].max)) == f->emax);
    }
    /* every preset of at most 16 bits appears above, or is tf32 */
    {
        int listed = 0;
        for (size_t i = 0; i < fl_format_preset_count(); i++)
            for (size_t j = 0; j < sizeof facts / sizeof facts[0]; j++)
                listed += strcmp(fl_format_preset(i)->name, facts[j].name) == 0;
        ck_assert_int_eq(listed, (int)(sizeof facts / sizeof facts[0]));
    }
}
END_TEST

START_TEST(presets_rebuilt_by_define_are_identical)
{
    for (size_t i = 0; i < fl_format_preset_count(); i++) {
        const fl_format *p = fl_format_preset(i);
        fl_format_params q;
        fl_format g;
        char err[256];
        q.ebits = p->ebits;
        q.prec = p->prec;
        q.bias = p->bias;
        q.nan_style = p->nan_style;
        q.is_signed = p->is_signed;
        q.has_zero = p->has_zero;
        q.subnormals = p->subnormals;
        q.saturate = p->saturate;
        q.min_gap_up = p->min_gap_up;
        ck_assert_msg(fl_format_define(&g, p->name, &q, err, sizeof err) == 0,
                      "%s: %s", p->name, err);
        ck_assert_msg(memcmp(&g, p, sizeof g) == 0, "%s differs", p->name);
        cases++;
    }
    ck_assert_int_eq(fl_format_preset_count(), 25);
    /* ml_dtypes' E8M0 rounding under its name only */
    for (size_t i = 0; i < fl_format_preset_count(); i++)
        ck_assert_int_eq(fl_format_preset(i)->min_gap_up,
                         fl_format_preset(i) == &fl_float8_e8m0fnu);
}
END_TEST

START_TEST(define_refuses_what_it_cannot_encode)
{
    static const struct {
        fl_format_params p;
        const char *says;
    } bad[] = {
        { { 1, 3, FL_BIAS_IEEE, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 }, "2..11" },
        { { 12, 3, FL_BIAS_IEEE, FL_NANSTYLE_FN, 1, 1, 1, 0, 0 }, "1..11" },
        { { 5, 1, FL_BIAS_IEEE, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 }, "needs one" },
        { { 5, 54, FL_BIAS_IEEE, FL_NANSTYLE_FN, 1, 1, 1, 0, 0 }, "0..52" },
        { { 4, 4, FL_BIAS_IEEE, 7, 1, 1, 1, 0, 0 }, "NaN style" },
        { { 4, 4, FL_BIAS_IEEE, FL_NANSTYLE_FNUZ, 0, 1, 1, 0, 0 }, "unsigned" },
        { { 8, 1, 127, FL_NANSTYLE_FN, 1, 0, 0, 0, 0 }, "without zero" },
        { { 8, 1, 127, FL_NANSTYLE_FN, 0, 0, 1, 0, 0 }, "without zero" },
        { { 8, 1, 127, FL_NANSTYLE_IEEE, 0, 0, 0, 0, 0 }, "fraction bits" },
        { { 8, 2, 127, FL_NANSTYLE_P3109, 0, 0, 0, 0, 0 }, "unsigned" },
        { { 8, 24, -2000, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 }, "binary64's range" },
        { { 11, 53, 0, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 }, "binary64's range" },
        { { 1, 1, FL_BIAS_IEEE, FL_NANSTYLE_FN, 0, 1, 1, 0, 0 }, "2 bits" },
        { { 1, 1, 0, FL_NANSTYLE_P3109, 1, 1, 1, 0, 0 }, "no normal number" },
        { { 1, 1, FL_BIAS_IEEE, FL_NANSTYLE_FN, 1, 1, 1, 0, 0 }, "no normal" },
        { { 5, 3, FL_BIAS_IEEE, FL_NANSTYLE_FN, 1, 1, 1, 0, 1 },
          "needs a format without zero" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fl_format g;
        char err[256] = "";
        ck_assert_int_eq(fl_format_define(&g, "x", &bad[i].p, err, sizeof err),
                         -1);
        ck_assert_msg(strstr(err, bad[i].says) != NULL, "case %zu: '%s'", i,
                      err);
        cases++;
    }
}
END_TEST

START_TEST(names_in_any_case_and_spelling)
{
    static const struct { const char *name, *canonical; } ok[] = {
        { "float16", "binary16" }, { "FLOAT16", "binary16" },
        { "Half", "binary16" }, { "torch.float16", "binary16" },
        { "np.float16", "binary16" }, { "bfloat16", "bfloat16" },
        { "BF16", "bfloat16" }, { "torch.bfloat16", "bfloat16" },
        { "float32", "binary32" }, { "numpy.float32", "binary32" },
        { "float64", "binary64" }, { "jnp.float64", "binary64" },
        { "float8_e4m3fn", "fp8-e4m3" }, { "torch.float8_e4m3fn", "fp8-e4m3" },
        { "E4M3", "fp8-e4m3" }, { "float8_e5m2", "fp8-e5m2" },
        { "Float8_E4M3", "float8_e4m3" }, { "float8_e4m3fnuz", "float8_e4m3fnuz" },
        { "torch.float8_e5m2fnuz", "float8_e5m2fnuz" },
        { "float8_e4m3b11", "float8_e4m3b11fnuz" },
        { "ml_dtypes.float8_e8m0fnu", "float8_e8m0fnu" },
        { "E8M0", "fp8-e8m0" }, { "fp8-e8m0", "fp8-e8m0" },
        { "e8m0fnu", "float8_e8m0fnu" }, { "torch.float8_e8m0fnu", "float8_e8m0fnu" },
        { "fp4-e2m1", "float4_e2m1fn" },
        { "FP6-E3M2", "float6_e3m2fn" }, { "e2m3", "float6_e2m3fn" },
        { "P3109:P3", "p3109:p3" }, { "binary8p5", "p3109:p5" },
        { "p3109_p7", "p3109:p7" }, { "e3m4", "float8_e3m4" },
        { "p3109_k8p3se", "p3109:p3" }, { "Binary8p1se", "p3109:p1" },
    };
    /* the P3109 family by gfloat's names and the report's, parsed into
     * descriptors (not presets) */
    static const struct {
        const char *spec, *name;
        int width, prec, is_signed, has_inf, bias;
        uint64_t nan, inf;
    } fam[] = {
        { "p3109_k8p3sf", "p3109_k8p3sf", 8, 3, 1, 0, 16, 0x80, 0 },
        { "P3109_K8P3UE", "p3109_k8p3ue", 8, 3, 0, 1, 32, 0xFF, 0xFE },
        { "binary8p1uf", "p3109_k8p1uf", 8, 1, 0, 0, 128, 0xFF, 0 },
        { "p3109_k8p8uf", "p3109_k8p8uf", 8, 8, 0, 0, 1, 0xFF, 0 },
        { "p3109_k4p2se", "p3109_k4p2se", 4, 2, 1, 1, 2, 0x8, 0x7 },
        { "p3109_k16p5se", "p3109_k16p5se", 16, 5, 1, 1, 1024, 0x8000,
          0x7FFF },
    };
    static const struct { const char *spec, *says; } famno[] = {
        { "p3109_k16p2se", "exponent bits" },       /* 14: beyond binary64 */
        { "p3109_k8p8se", "P < K" },
        { "p3109_k17p8se", "2..16" },
        { "p3109_k8p3sx", "p3109_k{K}p{P}" },
        { "binary8p8", "p3109:p1 .. p3109:p7" },
    };
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        fl_format f;
        char err[1024];
        unsigned fl = 0;
        fl_ctx c = FL_CTX_INIT;
        ck_assert_msg(fl_format_parse(&f, fam[i].spec, err, sizeof err) == 0,
                      "%s: %s", fam[i].spec, err);
        ck_assert_str_eq(f.name, fam[i].name);
        ck_assert_int_eq(f.width, fam[i].width);
        ck_assert_int_eq(f.prec, fam[i].prec);
        ck_assert_int_eq(f.is_signed, fam[i].is_signed);
        ck_assert_int_eq(f.has_inf, fam[i].has_inf);
        ck_assert_int_eq(f.bias, fam[i].bias);
        ck_assert_uint_eq(fl_default_nan(&f, FL_NANP_X86), fam[i].nan);
        ck_assert(fl_is_nan(&f, fam[i].nan));
        if (fam[i].has_inf) {
            ck_assert_uint_eq(fl_from_double(&f, INFINITY, &c, &fl),
                              fam[i].inf);
            ck_assert_uint_eq(f.max_bits + 1, fam[i].inf);
        }
        cases++;
    }
    for (size_t i = 0; i < sizeof famno / sizeof famno[0]; i++) {
        fl_format f;
        char err[1024] = "";
        ck_assert_int_eq(fl_format_parse(&f, famno[i].spec, err, sizeof err),
                         -1);
        ck_assert_msg(strstr(err, famno[i].says) != NULL, "%s: '%s'",
                      famno[i].spec, err);
        cases++;
    }
    static const struct { const char *spec, *says; } no[] = {
        { "p3109:p9", "p3109:p1 .. p3109:p7" },
        { "p3109:p0", "precision P = 1..7" },
        { "P3109:x", "p3109:p1 .. p3109:p7" },
        { "float8_e4m3fnuzz", "unknown format 'float8_e4m3fnuzz'" },
        { "torch.", "unknown format 'torch.'" },
        { "torch.nosuch", "float8_e8m0fnu" },   /* the list of names */
        { "IEEE:5:0", "fraction bits M must be an integer 1..52" },
        { "", "empty" },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        fl_format f;
        char err[1024];
        const fl_format *p = fl_format_by_name(ok[i].name);
        ck_assert_msg(p && !strcmp(p->name, ok[i].canonical), "%s",
                      ok[i].name);
        ck_assert_int_eq(fl_format_parse(&f, ok[i].name, err, sizeof err), 0);
        ck_assert_str_eq(f.name, ok[i].canonical);
        cases++;
    }
    /* OCP's E4M3 keeps the short names: float8_e4m3 is another format */
    ck_assert(fl_format_by_name("e4m3") != fl_format_by_name("float8_e4m3"));
    ck_assert(fl_format_by_name("fp8-e4m3") == &fl_fp8_e4m3);
    /* and OCP's E8M0 the short name e8m0; ml_dtypes' rounding keeps its
     * name (the codes are the same, the rounding above 2^-127 differs) */
    ck_assert(fl_format_by_name("e8m0") == &fl_fp8_e8m0);
    ck_assert(fl_format_by_name("float8_e8m0fnu") == &fl_float8_e8m0fnu);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        fl_format f;
        char err[1024] = "";
        ck_assert_int_eq(fl_format_parse(&f, no[i].spec, err, sizeof err), -1);
        ck_assert_msg(strstr(err, no[i].says) != NULL, "%s: '%s'", no[i].spec,
                      err);
        cases++;
    }
    {   /* the message lists every preset but the P3109 ones, then those */
        fl_format f;
        char err[1024] = "";
        fl_format_parse(&f, "nosuch", err, sizeof err);
        for (size_t i = 0; i < fl_format_preset_count(); i++)
            if (strncmp(fl_format_preset(i)->name, "p3109:", 6))
                ck_assert_msg(strstr(err, fl_format_preset(i)->name), "%s",
                              fl_format_preset(i)->name);
        ck_assert(strstr(err, "ieee:E:M") != NULL);
        /* a short buffer truncates, never overflows */
        ck_assert_int_eq(fl_format_parse(&f, "nosuch", err, 16), -1);
        ck_assert_int_eq((int)strlen(err), 15);
    }
}
END_TEST

/* Positive codes increase with their value; negative codes mirror them. */
START_TEST(codes_are_ordered_by_value)
{
    for (size_t i = 0; i < fl_format_preset_count(); i++) {
        const fl_format *f = fl_format_preset(i);
        double prev = -INFINITY;
        if (f->width > 8)
            continue;
        for (uint64_t a = 0; a <= (f->exp_mask | f->frac_mask); a++) {
            const double v = val(f, a);
            if (isnan(v))
                continue;
            ck_assert_msg(v > prev || (v == 0 && prev == -INFINITY),
                          "%s %#llx", f->name, (unsigned long long)a);
            if (f->is_signed && !fl_is_nan(f, a | f->sign_mask))
                ck_assert(val(f, a | f->sign_mask) == -v);
            prev = v;
            cases++;
        }
    }
}
END_TEST

/* ---- the behaviour table (docs/formats.md), one case per row ---------- */

typedef struct {
    const char *row;
    const char *fmt;
    int op;          /* 0 convert from binary32, 1 add, 2 sub, 3 mul, 4 div,
                        5 sqrt, 6 nextDown, 7 parse */
    uint64_t a, b;
    int rm, sat, nan;
    uint64_t want;
    unsigned flags;  /* IEEE flags exactly */
} row_case;

#define F32(x) ((uint64_t)(uint32_t)(x))
static const row_case rows[] = {
    /* NaN into a format without NaN: ml_dtypes' stand-in, invalid */
    { "finite: NaN -> -0 pattern", "float4_e2m1fn", 0, F32(0x7FC00000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x8, FL_INVALID },
    { "finite: -NaN -> +0", "float4_e2m1fn", 0, F32(0xFFC00000), 0, FL_RNE,
      0, FL_NANP_X86, 0x0, FL_INVALID },
    { "finite: NaN, arm preset -> -0 pattern", "float6_e2m3fn", 0,
      F32(0xFFC00000), 0, FL_RNE, 0, FL_NANP_ARM, 0x20, FL_INVALID },
    { "finite: 0/0 (x86 default NaN is negative) -> +0", "float4_e2m1fn", 4,
      0x0, 0x0, FL_RNE, 0, FL_NANP_X86, 0x0, FL_INVALID },
    { "finite: overflow saturates", "float4_e2m1fn", 0, F32(0x40E00000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x7, FL_OVERFLOW | FL_INEXACT },
    { "finite: inf saturates", "float6_e3m2fn", 0, F32(0xFF800000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x3F, 0 },
    { "finite: 1/0 saturates", "float6_e3m2fn", 4, 0x0C, 0x00, FL_RNE, 0,
      FL_NANP_X86, 0x1F, FL_DIVBYZERO },
    /* fnuz: no -0, NaN 0x80, overflow to NaN */
    { "fnuz: -0 -> +0", "float8_e4m3fnuz", 0, F32(0x80000000), 0, FL_RNE, 0,
      FL_NANP_X86, 0x00, 0 },
    { "fnuz: -tiny -> +0", "float8_e4m3fnuz", 0, F32(0xB0000000), 0, FL_RNE,
      0, FL_NANP_X86, 0x00, FL_UNDERFLOW | FL_INEXACT },
    { "fnuz: x - x in rdn -> +0", "float8_e5m2fnuz", 2, 0x40, 0x40, FL_RDN, 0,
      FL_NANP_X86, 0x00, 0 },
    { "fnuz: overflow -> NaN 0x80", "float8_e4m3fnuz", 0, F32(0x43800000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x80, FL_OVERFLOW | FL_INEXACT },
    { "fnuz: -overflow -> NaN 0x80", "float8_e4m3fnuz", 0, F32(0xC3800000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x80, FL_OVERFLOW | FL_INEXACT },
    { "fnuz: overflow saturating -> max", "float8_e4m3fnuz", 0,
      F32(0x43800000), 0, FL_RNE, 1, FL_NANP_X86, 0x7F,
      FL_OVERFLOW | FL_INEXACT },
    { "fnuz: inf -> NaN", "float8_e4m3b11fnuz", 0, F32(0x7F800000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x80, 0 },
    { "fnuz: NaN -> 0x80", "float8_e5m2fnuz", 0, F32(0x7FC00000), 0, FL_RNE,
      0, FL_NANP_ARM, 0x80, 0 },
    /* fn (OCP E4M3): overflow to the NaN of that sign */
    { "fn: -overflow -> 0xFF", "fp8-e4m3", 0, F32(0xC3F00000), 0, FL_RNE, 0,
      FL_NANP_X86, 0xFF, FL_OVERFLOW | FL_INEXACT },
    /* P3109: infinities, NaN 0x80, no -0 */
    { "p3109: overflow -> inf 0x7F", "p3109:p3", 0, F32(0x47800000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x7F, FL_OVERFLOW | FL_INEXACT },
    { "p3109: -inf -> 0xFF", "p3109:p4", 0, F32(0xFF800000), 0, FL_RNE, 0,
      FL_NANP_X86, 0xFF, 0 },
    { "p3109: -2^-11 rtz -> +0", "p3109:p4", 3, 0x01, 0xB8, FL_RTZ, 0,
      FL_NANP_X86, 0x00, FL_UNDERFLOW | FL_INEXACT },
    { "p3109: inf - inf -> NaN 0x80", "p3109:p2", 2, 0x7F, 0x7F, FL_RNE, 0,
      FL_NANP_X86, 0x80, FL_INVALID },
    /* unsigned: negative results invalid */
    { "unsigned: negative -> NaN 0xFF", "float8_e5m3fnu", 0, F32(0xBF800000),
      0, FL_RNE, 0, FL_NANP_X86, 0xFF, FL_INVALID },
    { "unsigned: negative saturating -> 0", "float8_e5m3fnu", 0,
      F32(0xBF800000), 0, FL_RNE, 1, FL_NANP_X86, 0x00, FL_INVALID },
    { "unsigned: -0 -> +0", "float8_e5m3fnu", 0, F32(0x80000000), 0, FL_RNE,
      0, FL_NANP_X86, 0x00, 0 },
    { "unsigned: 1 - 2 -> NaN", "float8_e8m0fnu", 2, 0x7F, 0x80, FL_RNE, 0,
      FL_NANP_X86, 0xFF, FL_INVALID },
    { "unsigned: nextDown(+0)", "float8_e5m3fnu", 6, 0x00, 0, FL_RNE, 0,
      FL_NANP_X86, 0xFF, FL_INVALID },
    /* E8M0: no zero */
    { "e8m0: 0 -> NaN", "float8_e8m0fnu", 0, F32(0x00000000), 0, FL_RNE, 0,
      FL_NANP_X86, 0xFF, FL_INVALID },
    { "e8m0: 0 saturating -> 2^-127", "float8_e8m0fnu", 0, F32(0x00000000),
      0, FL_RNE, 1, FL_NANP_X86, 0x00, FL_UNDERFLOW | FL_INEXACT },
    { "e8m0: x - x -> NaN", "float8_e8m0fnu", 2, 0x90, 0x90, FL_RNE, 0,
      FL_NANP_X86, 0xFF, FL_INVALID },
    { "e8m0: tiny -> 2^-127 in rtz too", "float8_e8m0fnu", 0,
      F32(0x00000001), 0, FL_RTZ, 0, FL_NANP_X86, 0x00,
      FL_UNDERFLOW | FL_INEXACT },
    /* (2^-127, 2^-126): OCP's E8M0 rounds to the nearest, ml_dtypes'
     * float8_e8m0fnu (min_gap_up) to 2^-126 in RNE and RNA; 2^-127 itself
     * stays exact; the other modes keep the true neighbours */
    { "e8m0: 1.25*2^-127 -> 2^-127 (nearest)", "fp8-e8m0",
      0, F32(0x00500000), 0, FL_RNE, 0, FL_NANP_X86, 0x00, FL_INEXACT },
    { "float8_e8m0fnu: 1.25*2^-127 -> 2^-126 (ml_dtypes)", "float8_e8m0fnu",
      0, F32(0x00500000), 0, FL_RNE, 0, FL_NANP_X86, 0x01, FL_INEXACT },
    { "float8_e8m0fnu: next above 2^-127, rna -> 2^-126", "float8_e8m0fnu",
      0, F32(0x00400001), 0, FL_RNA, 0, FL_NANP_X86, 0x01, FL_INEXACT },
    { "e8m0: next above 2^-127, rna -> 2^-127", "fp8-e8m0",
      0, F32(0x00400001), 0, FL_RNA, 0, FL_NANP_X86, 0x00, FL_INEXACT },
    { "float8_e8m0fnu: 2^-127 exact", "float8_e8m0fnu", 0, F32(0x00400000),
      0, FL_RNA, 0, FL_NANP_X86, 0x00, 0 },
    { "float8_e8m0fnu: 1.25*2^-127 rtz -> 2^-127", "float8_e8m0fnu", 0,
      F32(0x00500000), 0, FL_RTZ, 0, FL_NANP_X86, 0x00, FL_INEXACT },
    { "float8_e8m0fnu: 1.25*2^-127 rto -> 2^-127", "float8_e8m0fnu", 0,
      F32(0x00500000), 0, FL_RTO, 0, FL_NANP_X86, 0x00, FL_INEXACT },
    { "float8_e8m0fnu: 1.25*2^-127 rup -> 2^-126", "float8_e8m0fnu", 0,
      F32(0x00500000), 0, FL_RUP, 0, FL_NANP_X86, 0x01, FL_INEXACT },
    { "float8_e8m0fnu: 0.625*2^-127 -> 2^-127, underflow", "float8_e8m0fnu",
      0, F32(0x00280000), 0, FL_RNE, 0, FL_NANP_X86, 0x00,
      FL_UNDERFLOW | FL_INEXACT },
    { "float8_e8m0fnu: 1.25*2^-125 -> 2^-125 (other binades: nearest)",
      "float8_e8m0fnu", 0, F32(0x01200000), 0, FL_RNE, 0, FL_NANP_X86, 0x02,
      FL_INEXACT },
    { "e8m0: 1.5 ties up to 2", "float8_e8m0fnu", 0, F32(0x3FC00000), 0,
      FL_RNE, 0, FL_NANP_X86, 0x80, FL_INEXACT },
    { "e8m0: overflow -> NaN", "float8_e8m0fnu", 0, F32(0x7F7FFFFF), 0,
      FL_RNE, 0, FL_NANP_X86, 0xFF, FL_OVERFLOW | FL_INEXACT },
    { "e8m0: inf -> NaN", "float8_e8m0fnu", 0, F32(0x7F800000), 0, FL_RNE,
      0, FL_NANP_X86, 0xFF, 0 },
    { "e8m0: sqrt(2^-127) -> 2^-64", "float8_e8m0fnu", 5, 0x00, 0,
      FL_RNE, 0, FL_NANP_X86, 0x3F, FL_INEXACT },
    { "e8m0: nextDown(2^-127) -> NaN", "float8_e8m0fnu", 6, 0x00, 0, FL_RNE,
      0, FL_NANP_X86, 0xFF, FL_INVALID },
    /* text */
    { "finite: parse nan", "float4_e2m1fn", 7, 0, 0, FL_RNE, 0, FL_NANP_X86,
      0x8, FL_INVALID },
    { "fnuz: parse -0", "float8_e4m3fnuz", 7, 1, 0, FL_RNE, 0, FL_NANP_X86,
      0x00, 0 },
};

START_TEST(behaviour_table_rows)
{
    static const char *texts[] = { "nan", "-0" };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row_case *r = &rows[i];
        const fl_format *f = fl_format_by_name(r->fmt);
        fl_ctx c = fl_ctx_make(r->rm);
        unsigned fl = 0;
        uint64_t got = 0;
        c.saturate = (uint8_t)r->sat;
        c.nan = (uint8_t)r->nan;
        ck_assert_msg(f != NULL, "%s", r->fmt);
        switch (r->op) {
        case 0: got = fl_convert(f, &fl_binary32, r->a, &c, &fl); break;
        case 1: got = fl_add(f, r->a, r->b, &c, &fl); break;
        case 2: got = fl_sub(f, r->a, r->b, &c, &fl); break;
        case 3: got = fl_mul(f, r->a, r->b, &c, &fl); break;
        case 4: got = fl_div(f, r->a, r->b, &c, &fl); break;
        case 5: got = fl_sqrt(f, r->a, &c, &fl); break;
        case 6: got = fl_next_down(f, r->a, &c, &fl); break;
        default:
            ck_assert_int_eq(fl_parse(f, texts[r->a], &c, &fl, &got), 0);
            break;
        }
        ck_assert_msg(got == r->want && (fl & FL_IEEE_FLAGS) == r->flags,
                      "%s: expected %#llx flags %02x, got %#llx flags %02x",
                      r->row, (unsigned long long)r->want, r->flags,
                      (unsigned long long)got, fl & FL_IEEE_FLAGS);
        cases++;
    }
}
END_TEST

/* Whether every value of f (at most 16 bits) is a value of g, by trying
 * them all: each finite nonzero magnitude and the infinity of f goes into
 * g exactly and comes back the same.  Signs, zero and NaN codes are not
 * what fl_format_contains speaks of. */
static int holds_every_value(const fl_format *g, const fl_format *f)
{
    const fl_ctx c = fl_ctx_make(FL_RNE);
    for (uint64_t a = 0; a < (uint64_t)1 << f->width; a++) {
        const double v = fabs(fl_to_double(f, a));
        unsigned fl = 0;
        if (isnan(v) || v == 0)
            continue;
        const uint64_t b = fl_from_double(g, v, &c, &fl);
        if ((fl & FL_INEXACT) || fl_to_double(g, b) != v)
            return 0;
    }
    return 1;
}

/* fl_format_contains against trying every value, for every preset g and
 * every preset f of at most 16 bits; a few pairs by name (binary32 holds
 * E8M0's 2^-127 as a subnormal and 2^127 as a normal number). */
START_TEST(contains_agrees_with_every_value)
{
    static const struct {
        const char *g, *f;
        int want;
    } named[] = {
        { "binary32", "float8_e8m0fnu", 1 }, { "binary32", "fp8-e8m0", 1 },
        { "bfloat16", "float8_e8m0fnu", 1 }, { "binary64", "float8_e8m0fnu", 1 },
        { "binary16", "float8_e8m0fnu", 0 }, { "float8_e8m0fnu", "binary32", 0 },
        { "binary32", "binary16", 1 },       { "binary32", "bfloat16", 1 },
        { "binary16", "bfloat16", 0 },       { "bfloat16", "binary16", 0 },
        { "binary16", "fp8-e4m3", 1 },       { "binary16", "fp8-e5m2", 1 },
        { "fp8-e4m3", "fp8-e5m2", 0 },       { "fp8-e4m3", "float4_e2m1fn", 1 },
        { "float4_e2m1fn", "fp8-e4m3", 0 },
    };
    const size_t np = fl_format_preset_count();
    long pairs = 0, small = 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        const fl_format *g = fl_format_by_name(named[i].g);
        const fl_format *f = fl_format_by_name(named[i].f);
        ck_assert_msg(g && f, "%s %s", named[i].g, named[i].f);
        ck_assert_msg(fl_format_contains(g, f) == named[i].want,
                      "contains(%s, %s): expected %d", named[i].g,
                      named[i].f, named[i].want);
        cases++;
    }
    for (size_t j = 0; j < np; j++) {
        const fl_format *f = fl_format_preset(j);
        if (f->width > 16)
            continue;
        small++;
        for (size_t i = 0; i < np; i++) {
            const fl_format *g = fl_format_preset(i);
            const int want = holds_every_value(g, f);
            ck_assert_msg(fl_format_contains(g, f) == want,
                          "contains(%s, %s): expected %d (by trying every "
                          "value)", g->name, f->name, want);
            pairs++;
            cases++;
        }
    }
    /* every preset of at most 16 bits, against every preset */
    ck_assert_int_eq(small, 22);
    ck_assert_int_eq(pairs, small * (long)np);
}
END_TEST

/* fl_format_same: each preset is the same as itself only, but for the
 * one pair that differs in rounding alone (min_gap_up); fl_format_spec
 * names a preset, a format the same as one, or ieee:E:M. */
START_TEST(same_and_spec)
{
    const size_t np = fl_format_preset_count();
    char buf[64], err[128];
    fl_format f;
    for (size_t i = 0; i < np; i++) {
        const fl_format *a = fl_format_preset(i);
        for (size_t j = 0; j < np; j++) {
            const fl_format *b = fl_format_preset(j);
            const int e8m0 = !strcmp(a->name, "fp8-e8m0") ||
                             !strcmp(a->name, "float8_e8m0fnu");
            const int e8m0b = !strcmp(b->name, "fp8-e8m0") ||
                              !strcmp(b->name, "float8_e8m0fnu");
            ck_assert_msg(fl_format_same(a, b) == (i == j || (e8m0 && e8m0b)),
                          "same(%s, %s)", a->name, b->name);
            cases++;
        }
        fl_format_spec(a, buf, sizeof buf);
        ck_assert_str_eq(buf, a->name);
        cases++;
    }
    ck_assert_int_eq(fl_format_parse(&f, "ieee:5:10", err, sizeof err), 0);
    fl_format_spec(&f, buf, sizeof buf);
    ck_assert_str_eq(buf, "binary16");
    ck_assert_int_eq(fl_format_parse(&f, "ieee:6:9", err, sizeof err), 0);
    fl_format_spec(&f, buf, sizeof buf);
    ck_assert_str_eq(buf, "ieee:6:9");
    cases += 2;
}
END_TEST

int main(void)
{
    const TTest *tests[] = { preset_numbers_match_their_sources,
                             presets_rebuilt_by_define_are_identical,
                             define_refuses_what_it_cannot_encode,
                             names_in_any_case_and_spelling,
                             codes_are_ordered_by_value,
                             behaviour_table_rows,
                             contains_agrees_with_every_value, same_and_spec,
                             NULL };
    int failed = tc_run_suite("formats", tc_tcase("formats", 0, tests),
                              TC_IN_PROCESS);
    printf("test_formats: %ld checks\n", cases);
    return tc_exit(failed || cases <= 1000);
}
