/*
 * scheme.c — scheme names and options, element descriptions, code values,
 * binary32 helpers and statistics helpers of fplab_scale.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale_internal.h"

/* Base schemes: kind, block, element format names (ml_dtypes name first,
 * then the core's older alias), one line of provenance. */
static const struct {
    const char *name;
    int kind;
    uint32_t block;
    const char *elem[2];   /* elem[0] NULL: MXINT8 */
    const char *what;
} bases[] = {
    {"mxfp8-e4m3", FL_SCALE_MX, 32, {"float8_e4m3fn", "fp8-e4m3"}, "OCP MX v1.0 MXFP8"},
    {"mxfp8-e5m2", FL_SCALE_MX, 32, {"float8_e5m2", "fp8-e5m2"}, "OCP MX v1.0 MXFP8"},
    {"mxfp6-e2m3", FL_SCALE_MX, 32, {"float6_e2m3fn", NULL}, "OCP MX v1.0 MXFP6"},
    {"mxfp6-e3m2", FL_SCALE_MX, 32, {"float6_e3m2fn", NULL}, "OCP MX v1.0 MXFP6"},
    {"mxfp4-e2m1", FL_SCALE_MX, 32, {"float4_e2m1fn", NULL}, "OCP MX v1.0 MXFP4"},
    {"mxint8", FL_SCALE_MX, 32, {NULL, NULL}, "OCP MX v1.0 MXINT8"},
    {"nvfp4", FL_SCALE_NVFP4, 16, {"float4_e2m1fn", NULL}, "NVIDIA NVFP4"},
    {"fp8-e4m3-tensor", FL_SCALE_TENSOR, 0, {"float8_e4m3fn", "fp8-e4m3"},
     "Transformer Engine FP8 per-tensor (current scaling)"},
    {"fp8-e5m2-tensor", FL_SCALE_TENSOR, 0, {"float8_e5m2", "fp8-e5m2"},
     "Transformer Engine FP8 per-tensor (current scaling)"},
};
#define NBASES (sizeof bases / sizeof bases[0])

static const char *const rule_names[FL_MX_RULE_COUNT] = {"floor", "ceil", "even",
                                                         "rceil"};

size_t fl_scale_scheme_count(void)
{
    return NBASES;
}

const char *fl_scale_scheme_base(size_t i)
{
    return i < NBASES ? bases[i].name : NULL;
}

static int fail(char *err, size_t errlen, const char *fmt, const char *a,
                const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
    return -1;
}

static const fl_format *lookup_elem(const char *const names[2])
{
    for (int i = 0; i < 2; i++)
        if (names[i]) {
            const fl_format *f = fl_format_by_name(names[i]);
            if (f)
                return f;
        }
    return NULL;
}

/* The E4M3 format of NVFP4's block scales (and of fp8-e4m3-tensor). */
const fl_format *fl__sc_e4m3(void);
const fl_format *fl__sc_e4m3(void)
{
    static const char *const n[2] = {"float8_e4m3fn", "fp8-e4m3"};
    return lookup_elem(n);
}

int fl_scale_scheme_parse(fl_scale_scheme *s, const char *spec, char *err,
                          size_t errlen)
{
    char buf[128];
    size_t b;
    if (!spec || !*spec)
        return fail(err, errlen, "empty scheme name%s%s", "", "");
    if (strlen(spec) >= sizeof buf)
        return fail(err, errlen, "scheme '%.40s...' is too long%s", spec, "");
    memcpy(buf, spec, strlen(spec) + 1);
    char *save = NULL, *tok = strtok_r(buf, ":", &save);
    if (!tok || spec[0] == ':')
        return fail(err, errlen, "scheme '%s': no name before ':'%s", spec, "");
    for (b = 0; b < NBASES; b++)
        if (!strcmp(tok, bases[b].name))
            break;
    if (b == NBASES)
        return fail(err, errlen,
                    "unknown scheme '%s' (mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3 "
                    "mxfp6-e3m2 mxfp4-e2m1 mxint8 nvfp4 fp8-e4m3-tensor "
                    "fp8-e5m2-tensor, with options :floor :ceil :even :rceil "
                    ":rne :rna :rtz :sr :nonsat :pow2)%s", tok, "");
    memset(s, 0, sizeof *s);
    s->kind = bases[b].kind;
    s->block = bases[b].block;
    s->rule = FL_MX_FLOOR;
    s->rm = FL_RNE;
    if (bases[b].elem[0]) {
        s->elem = lookup_elem(bases[b].elem);
        if (!s->elem)
            return fail(err, errlen,
                        "scheme '%s': its element format %s is not in this "
                        "build's format table", tok, bases[b].elem[0]);
    }
    if (s->kind == FL_SCALE_NVFP4 && !fl__sc_e4m3())
        return fail(err, errlen, "scheme '%s': the E4M3 scale format is not in "
                    "this build's format table%s", tok, "");
    int have_rule = 0, have_rm = 0;
    while ((tok = strtok_r(NULL, ":", &save)) != NULL) {
        int r = -1;
        for (int k = 0; k < FL_MX_RULE_COUNT; k++)
            if (!strcmp(tok, rule_names[k]))
                r = k;
        if (r >= 0) {
            if (s->kind != FL_SCALE_MX)
                return fail(err, errlen, "scheme '%s': option '%s' is an MX "
                            "scale rule (mx schemes only)", spec, tok);
            if (have_rule++)
                return fail(err, errlen, "scheme '%s': more than one scale "
                            "rule ('%s')", spec, tok);
            s->rule = r;
        } else if (!strcmp(tok, "rne") || !strcmp(tok, "rna") ||
                   !strcmp(tok, "rtz") || !strcmp(tok, "sr")) {
            if (have_rm++)
                return fail(err, errlen, "scheme '%s': more than one rounding "
                            "mode ('%s')", spec, tok);
            s->rm = fl_rm_parse(tok);
        } else if (!strcmp(tok, "nonsat") || !strcmp(tok, "pow2")) {
            if (s->kind != FL_SCALE_TENSOR)
                return fail(err, errlen, "scheme '%s': option '%s' applies to "
                            "the per-tensor schemes only", spec, tok);
            if (tok[0] == 'n')
                s->nonsat = 1;
            else
                s->pow2 = 1;
        } else {
            return fail(err, errlen,
                        "scheme '%s': unknown option '%s' (floor ceil even rceil "
                        "rne rna rtz sr nonsat pow2)", spec, tok);
        }
    }
    if (spec[strlen(spec) - 1] == ':' || strstr(spec, "::"))
        return fail(err, errlen, "scheme '%s': empty option%s", spec, "");
    /* canonical spelling: base, then the options that are not defaults */
    int n = snprintf(s->name, sizeof s->name, "%s", bases[b].name);
    if (s->kind == FL_SCALE_MX && s->rule != FL_MX_FLOOR)
        n += snprintf(s->name + n, sizeof s->name - (size_t)n, ":%s",
                      rule_names[s->rule]);
    if (s->rm != FL_RNE)
        n += snprintf(s->name + n, sizeof s->name - (size_t)n, ":%s",
                      fl_rm_name(s->rm));
    if (s->nonsat)
        n += snprintf(s->name + n, sizeof s->name - (size_t)n, ":nonsat");
    if (s->pow2)
        snprintf(s->name + n, sizeof s->name - (size_t)n, ":pow2");
    return 0;
}

void fl_scale_scheme_describe(const fl_scale_scheme *s, char *buf, size_t len)
{
    const char *what = "custom scheme";
    for (size_t b = 0; b < NBASES; b++)
        if (!strncmp(s->name, bases[b].name, strlen(bases[b].name)) &&
            (s->name[strlen(bases[b].name)] == 0 ||
             s->name[strlen(bases[b].name)] == ':'))
            what = bases[b].what;
    const char *el = s->elem ? s->elem->name : "int8 (two's complement, step 2^-6)";
    switch (s->kind) {
    case FL_SCALE_MX:
        snprintf(buf, len, "%s: %s elements, blocks of %u along the last axis, "
                 "E8M0 scale by rule %s%s, elements %s", what, el,
                 (unsigned)s->block, s->rule < FL_MX_RULE_COUNT ?
                 rule_names[s->rule] : "?", s->rule == FL_MX_FLOOR ?
                 " (OCP MX v1.0 section 6.3)" : "", fl_rm_name(s->rm));
        break;
    case FL_SCALE_NVFP4:
        snprintf(buf, len, "%s: %s elements, blocks of %u along the last axis, "
                 "E4M3 block scale and FP32 tensor scale (Transformer Engine), "
                 "elements %s", what, el, (unsigned)s->block, fl_rm_name(s->rm));
        break;
    default:
        snprintf(buf, len, "%s: %s, scale = max/amax%s, %s, elements %s", what, el,
                 s->pow2 ? " rounded down to a power of two" : "",
                 s->nonsat ? "overflow to inf/NaN (nonsat)" : "saturating",
                 fl_rm_name(s->rm));
        break;
    }
}

/* binary32(1.0 / max) with the division in binary64, as C++ computes
 * `static constexpr float max_norm_rcp = 1.0 / max_norm;` */
static float rcp_of(double max)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t one, m, q;
    double d1 = 1.0;
    memcpy(&one, &d1, 8);
    memcpy(&m, &max, 8);
    q = fl_div(&fl_binary64, one, m, &c, &fl);
    return fl__u2f((uint32_t)fl_convert(&fl_binary32, &fl_binary64, q, &c, &fl));
}

int fl__sc_elem_init(fl__sc_elem *e, const fl_scale_scheme *s, char *err,
                     size_t errlen)
{
    memset(e, 0, sizeof *e);
    e->f = s->elem;
    if (!s->elem) {
        /* MXINT8 (MX v1.0 §5.3): two's complement int8 with an implicit
         * scale of 2^-6, i.e. values k/64; emax_elem 0.  The range is kept
         * symmetric, +-127/64, as Microsoft's microxcaling does (its int8
         * max_norm is 127/64; -128 is never produced). */
        e->width = 8;
        e->m = 6;
        e->bias = 0;
        e->emin = 1 << 20;      /* no normal range: every value is k * 2^-6 */
        e->emax = 0;
        e->qexp = -6;
        e->maxmag = 127;
        e->maxval = 127.0 / 64.0;
        e->rcp = rcp_of(e->maxval);
        e->fast = 1;
        for (int c = 0; c < 256; c++)
            e->val[c] = (double)(int8_t)c / 64.0;
        return 0;
    }
    const fl_format *f = s->elem;
    if (f->width > 8 || f->width < 3 || f->prec < 2 || f->sign_mask == 0)
        return fail(err, errlen, "element format %s: an element must be a signed "
                    "format of 3 to 8 bits with a fraction bit%s", f->name, "");
    e->width = f->width;
    e->m = f->prec - 1;
    e->bias = f->bias;
    e->emin = f->emin;
    e->emax = f->emax;
    e->qexp = f->emin - e->m;
    e->maxmag = (uint32_t)(f->max_bits & ~f->sign_mask);
    e->maxval = fl_to_double(f, f->max_bits & ~f->sign_mask);
    e->rcp = rcp_of(e->maxval);
    for (uint32_t c = 0; c < (1u << f->width); c++) {
        e->val[c] = fl_to_double(f, c);
        e->sub[c] = (uint8_t)(fl_is_subnormal(f, c) != 0);
    }
    /* The integer fast path: codes laid out as sign | exponent | fraction
     * with every exponent field below the largest finite value an ordinary
     * normal binade, subnormals present, a negative zero that is a zero
     * (not a NaN, as in the fnuz formats), and a grid far above binary32's
     * subnormals.  Checked against the core's own decoding below. */
    e->fast = f->subnormals && e->m <= 7 && e->qexp >= -100 &&
              e->bias + e->emax < 120 && f->has_zero &&
              (f->nan_style == FL_NANSTYLE_IEEE || f->nan_style == FL_NANSTYLE_FN ||
               f->nan_style == FL_NANSTYLE_FINITE) &&
              fl_is_zero(f, f->sign_mask) && !f->saturate;
    for (uint32_t c = 0; e->fast && c <= e->maxmag; c++) {
        double v;
        if (c >> e->m)
            v = ldexp((double)((c & ((1u << e->m) - 1)) | (1u << e->m)),
                      (int)(c >> e->m) - e->bias - e->m);
        else
            v = ldexp((double)c, e->qexp);
        if (fl_to_double(f, c) != v || fl_is_nan(f, c) || fl_is_inf(f, c))
            e->fast = 0;
    }
    return 0;
}

double fl_scale_elem_max(const fl_scale_scheme *s)
{
    fl__sc_elem e;
    return fl__sc_elem_init(&e, s, NULL, 0) ? NAN : e.maxval;
}

int fl_scale_elem_emax(const fl_scale_scheme *s)
{
    return s->elem ? s->elem->emax : 0;
}

double fl_scale_elem_value(const fl_scale_scheme *s, uint8_t code)
{
    if (!s->elem)
        return (double)(int8_t)code / 64.0;
    return fl_to_double(s->elem, code & ((1u << s->elem->width) - 1));
}

double fl_scale_block_value(const fl_scale_scheme *s, uint8_t code)
{
    if (s->kind == FL_SCALE_NVFP4)
        return fl_to_double(fl__sc_e4m3(), code);
    return code == FL__E8M0_NAN ? NAN : ldexp(1.0, (int)code - 127);
}

size_t fl_scale_nblocks(const fl_scale_scheme *s, size_t n)
{
    if (s->kind == FL_SCALE_TENSOR || !s->block)
        return 1;
    return n / s->block;
}

/* ---- binary32 arithmetic through the core ---------------------------- */

int fl__sc_check_input(const fl_scale_scheme *s, const float *x, size_t n,
                       char *err, size_t errlen)
{
    if (n && !x) {
        if (err && errlen)
            snprintf(err, errlen, "quantize: no input values");
        return -1;
    }
    if (s->rm == FL_RSB && (!s->sr_bits || s->sr_nbits < 1 ||
                            s->sr_nbits > 64 || s->sr_variant < 0 ||
                            s->sr_variant >= FL_SRV_COUNT)) {
        if (err && errlen)
            snprintf(err, errlen, "quantize: stochastic rounding with "
                     "supplied bits needs the bits (one per element), 1..64 "
                     "of them and a variant 0..3");
        return -1;
    }
    return 0;
}

float fl__f32_mul(float a, float b)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    return fl__u2f((uint32_t)fl_mul(&fl_binary32, fl__f2u(a), fl__f2u(b), &c, &fl));
}

float fl__f32_div(float a, float b)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    return fl__u2f((uint32_t)fl_div(&fl_binary32, fl__f2u(a), fl__f2u(b), &c, &fl));
}

float fl__f32_of(double d)
{
    /* a value that binary32 holds exactly needs no rounding: the cast is
     * exact in every rounding mode, and the comparison proves it (under
     * FTZ/DAZ a subnormal fails it and takes the core's route) */
    const float f = (float)d;
    if ((double)f == d)
        return f;
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    return fl__u2f((uint32_t)fl_from_double(&fl_binary32, d, &c, &fl));
}

/* ---- statistics ------------------------------------------------------ */

double fl_scale_stats_rel_mean(const fl_scale_stats *st)
{
    return st->rel_n ? st->rel_sum / (double)st->rel_n : 0.0;
}

double fl_scale_stats_rel_rms(const fl_scale_stats *st)
{
    return st->rel_n ? sqrt(st->rel_sumsq / (double)st->rel_n) : 0.0;
}

void fl_scale_stats_merge(fl_scale_stats *d, const fl_scale_stats *s)
{
    d->n += s->n;
    d->nonzero += s->nonzero;
    d->zero += s->zero;
    d->nan_in += s->nan_in;
    d->inf_in += s->inf_in;
    d->underflow += s->underflow;
    d->subnormal += s->subnormal;
    d->saturated += s->saturated;
    d->lost += s->lost;
    d->rel_n += s->rel_n;
    d->rel_sum += s->rel_sum;
    d->rel_sumsq += s->rel_sumsq;
    if (s->rel_max > d->rel_max)
        d->rel_max = s->rel_max;
    d->blocks += s->blocks;
    d->nan_blocks += s->nan_blocks;
}
