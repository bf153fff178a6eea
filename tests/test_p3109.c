/*
 * test_p3109.c — the IEEE P3109 family and stochastic rounding with
 * supplied bits against Graphcore's gfloat, bit for bit, and the measured
 * bias of the four stochastic-rounding variants.
 *
 * The tables tests/data/p3109_{decode,convert,sr}.tsv.gz were computed by
 * gfloat (tools/p3109_golden.py says how; the header of each file too).
 * Each is read to its "# rows N" line, and every case counts:
 *   decode   every code of every format with K <= 8 (a sample for K up to
 *            16): fl_to_double equals gfloat's value (NaN for NaN);
 *   convert  binary64 inputs of every class, six modes x two saturations
 *            (gfloat's sat=False is FL_SAT_NONE, sat=True FL_SAT_FINITE);
 *            excluded, and counted: (a) gfloat's TiesToAway defect, where
 *            delta + 0.5 >= 1.0 in binary64 rounds delta = 1/2 - 2^-54 up
 *            (x = (1/2 - 2^-54) times the smallest subnormal: gfloat gives
 *            the smallest subnormal, fplab 0); (b) negative inputs of an
 *            unsigned format, where gfloat raises ('x'): fplab's rule
 *            (Interim Report v4.0, 4.7.5: round first; a nonzero negative
 *            result is 0 toward zero, upward and when saturating, else
 *            NaN) is checked against fplab's rounding of |x| instead;
 *   sr       every R of N = 1..3 bits, four variants: the code gfloat's
 *            round_float gives.
 * Then every 8-bit P3109 format exhaustively against an independent
 * transcription of gfloat's stochastic rounding (every interval between
 * neighbouring values, nu on a grid of 2^(N+2), N = 1..5, every R), and
 * the bias of each variant: E[rounded] - x over all 2^N values of R, in
 * ulps, against the bounds the variants' definitions give (docs/formats.md
 * has the table this prints).
 *
 * usage: test_p3109 DATA_DIR   (exit 0 pass, 1 fail, 77 data missing)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fplab/fplab.h"
#include "fplab/parallel.h"
#include "mpfr_oracle.h"

static int failures;
static long long checked;

#define FAIL(...)                                                            \
    do {                                                                     \
        if (failures++ < 20) {                                               \
            fprintf(stderr, "FAIL: ");                                       \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* ------------------------------------------------------------------ */
/* Reading the tables.                                                 */

typedef struct table {
    gzFile gz;
    char line[512];
    char *f[16];
    int nf;
    long long rows, declared;
} table;

static int tab_open(table *t, const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(t, 0, sizeof *t);
    t->declared = -1;
    t->gz = gzopen(path, "rb");
    if (!t->gz) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    return 0;
}

/* The next data row split at tabs; 0 at the end of the table. */
static int tab_next(table *t)
{
    while (gzgets(t->gz, t->line, sizeof t->line)) {
        char *p = t->line, *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (*p == '#') {
            if (!strncmp(p, "# rows ", 7))
                t->declared = atoll(p + 7);
            continue;
        }
        t->nf = 0;
        while (p && t->nf < 16) {
            char *tab = strchr(p, '\t');
            t->f[t->nf++] = p;
            if (tab)
                *tab++ = '\0';
            p = tab;
        }
        t->rows++;
        return 1;
    }
    return 0;
}

static void tab_close(table *t, const char *name)
{
    gzclose(t->gz);
    if (t->declared < 0 || t->rows != t->declared)
        FAIL("%s: read %lld rows, the table declares %lld", name, t->rows,
             t->declared);
}

static double parse_value(const char *s)
{
    if (!strcmp(s, "nan"))
        return NAN;
    if (!strcmp(s, "inf"))
        return INFINITY;
    if (!strcmp(s, "-inf"))
        return -INFINITY;
    return strtod(s, NULL);
}

/* The format of the row, parsed once per change of name. */
static const fl_format *row_format(const char *name)
{
    static fl_format f;
    static char last[64];
    char err[256];
    if (strcmp(name, last)) {
        if (fl_format_parse(&f, name, err, sizeof err) != 0) {
            FAIL("format %s: %s", name, err);
            return NULL;
        }
        snprintf(last, sizeof last, "%s", name);
    }
    return &f;
}

static int same_value(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* ------------------------------------------------------------------ */

static void check_decode(const char *dir)
{
    table t;
    long long n = 0;
    if (tab_open(&t, dir, "p3109_decode.tsv.gz"))
        exit(77);
    while (tab_next(&t)) {
        const fl_format *f = row_format(t.f[0]);
        uint64_t code = strtoull(t.f[1], NULL, 16);
        double want = parse_value(t.f[2]), got;
        if (!f)
            continue;
        got = fl_to_double(f, code);
        if (!same_value(got, want))
            FAIL("decode %s 0x%llx: fplab %a, gfloat %a", t.f[0],
                 (unsigned long long)code, got, want);
        n++;
    }
    tab_close(&t, "decode");
    printf("decode: %lld codes agree with gfloat\n", n);
    checked += n;
}

static const int conv_rm[6] = {FL_RTZ, FL_RUP, FL_RDN, FL_RNE, FL_RNA,
                               FL_RTO};

/* The smallest positive value of f (code 1: subnormal or, at P = 1, the
 * smallest normal). */
static double smallest(const fl_format *f)
{
    return fl_to_double(f, 1);
}

static void check_convert(const char *dir)
{
    table t;
    long long n = 0, rna_defect = 0, uneg = 0;
    if (tab_open(&t, dir, "p3109_convert.tsv.gz"))
        exit(77);
    while (tab_next(&t)) {
        const fl_format *f = row_format(t.f[0]);
        double x;
        int k;
        if (!f)
            continue;
        if (t.nf != 14) {
            FAIL("convert row %lld: %d fields", t.rows, t.nf);
            continue;
        }
        x = parse_value(t.f[1]);
        for (k = 0; k < 12; k++) {
            fl_ctx c = fl_ctx_make(conv_rm[k % 6]);
            unsigned fl = 0;
            uint64_t got;
            c.saturate = k < 6 ? FL_SAT_NONE : FL_SAT_FINITE;
            got = fl_from_double(f, x, &c, &fl);
            if (!strcmp(t.f[2 + k], "x") && (f->is_signed || !(x < 0))) {
                FAIL("convert %s %a: gfloat raised", t.f[0], x);
                continue;
            }
            if (!f->is_signed && x < 0) {
                /* gfloat has no result here: round_float drops the sign
                 * test for an unsigned format and goes on with the negative
                 * value (it raises, or gives +inf for -inf, or NaN) */
                fl_ctx m = c;
                unsigned ign = 0;
                uint64_t mag;
                int zero;
                /* |x| rounded in the mirrored direction: zero or not */
                m.rm = c.rm == FL_RUP ? FL_RDN : c.rm == FL_RDN ? FL_RUP
                                                                 : c.rm;
                mag = fl_from_double(f, -x, &m, &ign);
                zero = !isinf(x) && mag == 0;
                /* -inf: NaN unless saturating (OvfInf's -inf rule comes
                 * before the directed ones) */
                if (zero || c.saturate ||
                    (!isinf(x) && (c.rm == FL_RTZ || c.rm == FL_RUP))) {
                    if (got != 0)
                        FAIL("convert %s %a rm %s sat %d: 0x%llx, want 0",
                             t.f[0], x, fl_rm_name(c.rm), c.saturate,
                             (unsigned long long)got);
                } else if (!fl_is_nan(f, got)) {
                    FAIL("convert %s %a rm %s: 0x%llx, want the NaN",
                         t.f[0], x, fl_rm_name(c.rm),
                         (unsigned long long)got);
                }
                uneg++;
                continue;
            }
            {
                const uint64_t want = strtoull(t.f[2 + k], NULL, 16);
                if (got == want) {
                    n++;
                    continue;
                }
                /* gfloat's TiesToAway defect: delta = 1/2 - 2^-54 */
                if (c.rm == FL_RNA &&
                    fabs(x) == (0.5 - 0x1p-54) * smallest(f) &&
                    (want & ~f->sign_mask) == 1 && got == 0) {
                    rna_defect++;
                    continue;
                }
                FAIL("convert %s %a rm %s sat %d: fplab 0x%llx, gfloat 0x%llx",
                     t.f[0], x, fl_rm_name(c.rm), c.saturate,
                     (unsigned long long)got, (unsigned long long)want);
            }
        }
    }
    tab_close(&t, "convert");
    printf("convert: %lld rows, %lld (input, mode, saturation) cases agree "
           "with gfloat; excluded: %lld of gfloat's TiesToAway defect, %lld "
           "cases of negative inputs of unsigned formats (no gfloat result; "
           "checked against P3109 v4.0's rule)\n",
           t.rows, n, rna_defect, uneg);
    if (rna_defect == 0)
        FAIL("convert: the TiesToAway defect inputs were not met");
    checked += n + uneg;
}

static void check_sr_table(const char *dir)
{
    table t;
    long long n = 0;
    if (tab_open(&t, dir, "p3109_sr.tsv.gz"))
        exit(77);
    while (tab_next(&t)) {
        const fl_format *f = row_format(t.f[0]);
        double x;
        int nb, v;
        uint64_t down, up;
        if (!f || t.nf != 9)
            continue;
        x = parse_value(t.f[1]);
        nb = atoi(t.f[2]);
        down = strtoull(t.f[3], NULL, 16);
        up = strcmp(t.f[4], "-") ? strtoull(t.f[4], NULL, 16) : down;
        for (v = 0; v < FL_SRV_COUNT; v++) {
            const unsigned long mask = strtoul(t.f[5 + v], NULL, 16);
            uint64_t r;
            for (r = 0; r < ((uint64_t)1 << nb); r++) {
                fl_ctx c = FL_CTX_INIT;
                unsigned fl = 0;
                const uint64_t want = (mask >> r) & 1 ? up : down;
                const uint64_t got = fl_round_sr_bits(f, x, r, nb, v, &c, &fl);
                if (got != want)
                    FAIL("sr %s %a N=%d R=%llu %s: fplab 0x%llx, gfloat "
                         "0x%llx", t.f[0], x, nb, (unsigned long long)r,
                         fl_srv_name(v), (unsigned long long)got,
                         (unsigned long long)want);
                n++;
            }
        }
    }
    tab_close(&t, "sr");
    printf("sr: %lld rows, %lld (input, N, R, variant) cases agree with "
           "gfloat\n", t.rows, n);
    checked += n;
}

/* ------------------------------------------------------------------ */
/* gfloat's stochastic rounding, transcribed (round.py, round_float): on a
 * nonnegative x between neighbours lo < hi of the format (hi - lo = one
 * quantum), delta = (x - lo) / quantum in binary64, then the RoundAway
 * formulas with floor and gfloat's _rnite / _rnito. */
static double rnitp(double y, int odd_ties)
{
    const double fl = floor(y);
    const int away = y > fl + 0.5 ||
                     (y == fl + 0.5 && (((long long)fl & 1) == 0) == odd_ties);
    return fl + away;
}

static int gfloat_away(double delta, int n, uint64_t r, int variant)
{
    const double e = ldexp(1.0, n);
    switch (variant) {
    case FL_SRV_FASTEST:
        return floor(delta * e) + (double)r >= e;
    case FL_SRV_FAST:
        return floor(delta * 2 * e) + (2.0 * (double)r + 1) >= 2 * e;
    case FL_SRV_STOCHASTIC_ODD:
        return rnitp(delta * e, 1) + (double)r >= e;
    default:
        return rnitp(delta * e, 0) + (double)r >= e;
    }
}

static void check_sr_exhaustive(void)
{
    long long n = 0;
    int k8 = 0;
    for (int sg = 0; sg < 2; sg++)
        for (int p = 1; p <= 8 - sg; p++)
            for (int ext = 0; ext < 2; ext++) {
                fl_format f;
                char err[256];
                uint64_t code, top;
                if (fl_format_p3109(&f, 8, p, sg, ext, err, sizeof err)) {
                    FAIL("p3109 K=8 P=%d: %s", p, err);
                    continue;
                }
                k8++;
                top = f.max_bits;
                for (code = 0; code < top; code++) {
                    const double lo = fl_to_double(&f, code),
                                 hi = fl_to_double(&f, code + 1);
                    for (int nb = 1; nb <= 5; nb++) {
                        const int grid = 1 << (nb + 2);
                        for (int j = 1; j < grid; j++) {
                            const double x = lo + (hi - lo) * j / grid;
                            const double delta = (x - lo) / (hi - lo);
                            for (int v = 0; v < FL_SRV_COUNT; v++)
                                for (uint64_t r = 0; r < (1u << nb); r++) {
                                    fl_ctx c = FL_CTX_INIT;
                                    unsigned fl = 0;
                                    const uint64_t want =
                                        gfloat_away(delta, nb, r, v) ? code + 1
                                                                     : code;
                                    uint64_t got = fl_round_sr_bits(
                                        &f, x, r, nb, v, &c, &fl);
                                    if (got != want)
                                        FAIL("sr %s %a N=%d R=%llu %s: 0x%llx,"
                                             " want 0x%llx", f.name, x, nb,
                                             (unsigned long long)r,
                                             fl_srv_name(v),
                                             (unsigned long long)got,
                                             (unsigned long long)want);
                                    if (sg) {   /* the negative mirror */
                                        got = fl_round_sr_bits(&f, -x, r, nb,
                                                               v, &c, &fl);
                                        if (got != (want | f.sign_mask) &&
                                            !(want == 0 && got == 0))
                                            FAIL("sr %s %a N=%d R=%llu: 0x%llx",
                                                 f.name, -x, nb,
                                                 (unsigned long long)r,
                                                 (unsigned long long)got);
                                        n++;
                                    }
                                    n++;
                                }
                        }
                    }
                }
            }
    printf("sr exhaustive: %d 8-bit P3109 formats, %lld (interval, nu, N, R, "
           "variant, sign) cases agree with gfloat's definition\n", k8, n);
    if (k8 != 30)
        FAIL("expected 30 8-bit P3109 formats, built %d", k8);
    checked += n;
}

/* ------------------------------------------------------------------ */
/* Bias: x = 1 + nu ulp in binary16 (ulp 2^-10), nu = j / 2^(N+6) for
 * every j; E over all R of the rounded value, minus x, in ulps.  Bounds
 * from the definitions (F = floor(nu 2^N), g = nu 2^N - F):
 *   fastest        E = F / 2^N: bias = -g / 2^N in (-2^-N, 0], never up;
 *                  its mean over the grid, -(1 - 2^-6) / 2^(N+1)
 *   fast           bias -g'/2^(N+1) or (1 - g')/2^(N+1) (g' the fraction of
 *                  nu 2^(N+1)): |bias| <= 2^-(N+1), mean 2^-(N+7) on
 *                  this grid (0 for a continuous nu)
 *   stochastic,    RNE / RNO of nu 2^N: |bias| <= 2^-(N+1), mean exactly 0
 *   stochastic-odd over the grid's whole period
 * and every variant exactly unbiased where nu 2^N is an integer. */
static void check_bias(void)
{
    static const char *const vname[FL_SRV_COUNT] = {
        "stochastic", "stochastic-odd", "fast", "fastest"};
    long long n = 0;
    printf("bias (ulp), binary16, nu on a grid of 2^(N+6):\n");
    printf("  %-15s %3s %14s %14s %14s\n", "variant", "N", "max |bias|",
           "mean bias", "min bias");
    for (int v = 0; v < FL_SRV_COUNT; v++)
        for (int nb = 1; nb <= 8; nb++) {
            const int grid = 1 << (nb + 6);
            double maxabs = 0, sum = 0, minb = 0;
            for (int j = 0; j < grid; j++) {
                const double nu = (double)j / grid;
                const double x = 1 + nu * 0x1p-10;
                double e = 0, bias;
                for (uint64_t r = 0; r < (1u << nb); r++) {
                    fl_ctx c = FL_CTX_INIT;
                    unsigned fl = 0;
                    e += fl_to_double(&fl_binary16, fl_round_sr_bits(
                        &fl_binary16, x, r, nb, v, &c, &fl));
                    n++;
                }
                bias = (e / (1u << nb) - x) * 0x1p10;
                sum += bias;
                if (fabs(bias) > maxabs)
                    maxabs = fabs(bias);
                if (bias < minb)
                    minb = bias;
                if (j % 64 == 0 && bias != 0)
                    FAIL("%s N=%d: biased at nu = %d/2^N", vname[v], nb,
                         j >> 6);
                if (v == FL_SRV_FASTEST &&
                    (bias > 0 || bias <= -ldexp(1, -nb)))
                    FAIL("fastest N=%d nu=%a: bias %a outside (-2^-N, 0]", nb,
                         nu, bias);
                if (v != FL_SRV_FASTEST && fabs(bias) > ldexp(1, -nb - 1))
                    FAIL("%s N=%d nu=%a: |bias| %a > 2^-(N+1)", vname[v], nb,
                         nu, bias);
            }
            {
                const double mean = sum / grid;
                const double want = v == FL_SRV_FASTEST
                                        ? -(1 - 0x1p-6) * ldexp(1, -nb - 1)
                                    : v == FL_SRV_FAST ? ldexp(1, -nb - 7)
                                                       : 0.0;
                if (fabs(mean - want) > 1e-12)
                    FAIL("%s N=%d: mean bias %a, the definition gives %a",
                         vname[v], nb, mean, want);
                printf("  %-15s %3d %14.6g %14.6g %14.6g\n", vname[v], nb,
                       maxabs, mean, minb);
            }
        }
    printf("bias: %lld roundings\n", n);
    checked += n;
}

#define EXPECT(what, got, want)                                              \
    do {                                                                     \
        const uint64_t g_ = (got), w_ = (want);                             \
        checked++;                                                           \
        if (g_ != w_)                                                        \
            FAIL("%s: 0x%llx, want 0x%llx", what, (unsigned long long)g_,    \
                 (unsigned long long)w_);                                    \
    } while (0)

/* P3109's saturation modes, from Interim Report 3.1, 4.9.4, by hand. */
static void check_saturation(void)
{
    fl_format se, sf, ue;
    char err[256];
    unsigned fl = 0;
    fl_ctx c = FL_CTX_INIT;
    fl_format_p3109(&se, 8, 3, 1, 1, err, sizeof err);   /* max 0x7E */
    fl_format_p3109(&sf, 8, 3, 1, 0, err, sizeof err);   /* max 0x7F */
    fl_format_p3109(&ue, 8, 3, 0, 1, err, sizeof err);   /* max 0xFD */
    for (int sat = 0; sat <= FL_SAT_FINITE; sat++) {
        c.saturate = (uint8_t)sat;
        c.rm = FL_RNE;
        EXPECT("se +inf", fl_from_double(&se, INFINITY, &c, &fl),
               sat == FL_SAT_FINITE ? 0x7E : 0x7F);
        EXPECT("se -inf", fl_from_double(&se, -INFINITY, &c, &fl),
               sat == FL_SAT_FINITE ? 0xFE : 0xFF);
        EXPECT("se 1e10", fl_from_double(&se, 1e10, &c, &fl),
               sat ? 0x7E : 0x7F);
        EXPECT("sf +inf", fl_from_double(&sf, INFINITY, &c, &fl),
               sat ? 0x7F : 0x80);
        EXPECT("sf 1e10", fl_from_double(&sf, 1e10, &c, &fl),
               sat ? 0x7F : 0x80);
        EXPECT("ue -inf", fl_from_double(&ue, -INFINITY, &c, &fl),
               sat ? 0x00 : 0xFF);
        EXPECT("ue +inf", fl_from_double(&ue, INFINITY, &c, &fl),
               sat == FL_SAT_FINITE ? 0xFD : 0xFE);
        c.rm = FL_RTZ;          /* toward zero: the largest finite always */
        EXPECT("se 1e10 rtz", fl_from_double(&se, 1e10, &c, &fl), 0x7E);
        EXPECT("sf 1e10 rtz", fl_from_double(&sf, 1e10, &c, &fl), 0x7F);
        EXPECT("se inf rtz", fl_from_double(&se, INFINITY, &c, &fl),
               sat == FL_SAT_FINITE ? 0x7E : 0x7F);
        c.rm = FL_RTO;          /* 57344 is the odd neighbour above max */
        EXPECT("se 49153 rto", fl_from_double(&se, 49153, &c, &fl),
               sat ? 0x7E : 0x7F);
    }
    printf("saturation: SatNone / SatPropagate / SatFinite by hand\n");
}

/* The hardware presets, on inputs whose answer the documentation gives. */
static void check_presets(void)
{
    unsigned fl = 0;
    const float one_half_ulp = 1.0f + 0x1p-11f;   /* f16: 13 bits 0x1000 */
    float x2[2], x4[4];
    /* f16x2: a's 13 bits are rbits[28:16]; away iff R >= 0x1000 */
    EXPECT("f16x2 a up", fl_srhw_round(FL_SRHW_PTX_F16X2, one_half_ulp,
                                       0x10000000u, 0, 0, &fl), 0x3C01);
    EXPECT("f16x2 a down", fl_srhw_round(FL_SRHW_PTX_F16X2, one_half_ulp,
                                         0x0FFF0000u | 0xFFFFu, 0, 0, &fl),
           0x3C00);
    EXPECT("f16x2 a top bits ignored",
           fl_srhw_round(FL_SRHW_PTX_F16X2, one_half_ulp, 0xE0000000u, 0, 0,
                         &fl), 0x3C00);
    EXPECT("f16x2 b up", fl_srhw_round(FL_SRHW_PTX_F16X2, one_half_ulp,
                                       0x1000u, 1, 0, &fl), 0x3C01);
    x2[0] = one_half_ulp;
    x2[1] = one_half_ulp;
    EXPECT("f16x2 pack", fl_srhw_pack(FL_SRHW_PTX_F16X2, x2, 0x00001000u, 0,
                                      &fl), 0x3C003C01u);
    /* .satfinite: infinity and overflow give max, NaN the NaN */
    EXPECT("f16x2 inf", fl_srhw_round(FL_SRHW_PTX_F16X2, INFINITY, 0, 0, 0,
                                      &fl), 0x7C00);
    EXPECT("f16x2 inf satfinite", fl_srhw_round(FL_SRHW_PTX_F16X2, INFINITY,
                                                0, 0, 1, &fl), 0x7BFF);
    EXPECT("e4m3 inf", fl_srhw_round(FL_SRHW_PTX_E4M3X4, -INFINITY, 0, 2, 0,
                                     &fl), 0xFE);
    EXPECT("e4m3 nan", fl_srhw_round(FL_SRHW_PTX_E4M3X4, NAN, 0, 0, 0, &fl),
           0x7F);
    EXPECT("e2m1 nan", fl_srhw_round(FL_SRHW_PTX_E2M1X4, NAN, 0, 0, 0, &fl),
           0x7);
    EXPECT("e2m3 nan", fl_srhw_round(FL_SRHW_PTX_E2M3X4, -NAN, 0, 0, 0, &fl),
           0x1F);
    /* e4m3x4: a and b read rbits[31:16]; 1 + 2^-4 is half an e4m3 ulp,
     * the top of the 20 discarded bits: away iff R >= 0x8000 */
    for (int i = 0; i < 4; i++)
        x4[i] = 1.0f + 0x1p-4f;
    EXPECT("e4m3x4 pack", fl_srhw_pack(FL_SRHW_PTX_E4M3X4, x4, 0x80007FFFu,
                                       1, &fl), 0x39393838u);
    /* e2m1x4: a rbits[31:24], b [15:8], e [23:16], f [7:0]; 1.25 is half
     * an e2m1 ulp at 1: away iff the lane's byte >= 0x80 */
    for (int i = 0; i < 4; i++)
        x4[i] = 1.25f;
    EXPECT("e2m1x4 a", fl_srhw_pack(FL_SRHW_PTX_E2M1X4, x4, 0x80000000u, 1,
                                    &fl), 0x3222);
    EXPECT("e2m1x4 b", fl_srhw_pack(FL_SRHW_PTX_E2M1X4, x4, 0x00008000u, 1,
                                    &fl), 0x2322);
    EXPECT("e2m1x4 e", fl_srhw_pack(FL_SRHW_PTX_E2M1X4, x4, 0x00800000u, 1,
                                    &fl), 0x2232);
    EXPECT("e2m1x4 f", fl_srhw_pack(FL_SRHW_PTX_E2M1X4, x4, 0x00000080u, 1,
                                    &fl), 0x2223);
    /* oneDNN: 13-bit bias for f16, clamp, flush below 2^-14 */
    EXPECT("onednn f16 up", fl_srhw_round(FL_SRHW_ONEDNN_F16, one_half_ulp,
                                          0x1000, 0, 0, &fl), 0x3C01);
    EXPECT("onednn f16 clamp", fl_srhw_round(FL_SRHW_ONEDNN_F16, 1e6f, 0, 0,
                                             0, &fl), 0x7BFF);
    EXPECT("onednn f16 flush", fl_srhw_round(FL_SRHW_ONEDNN_F16, 0x1p-15f,
                                             0x1FFF, 0, 0, &fl), 0);
    EXPECT("onednn f16 inf", fl_srhw_round(FL_SRHW_ONEDNN_F16, INFINITY, 0,
                                           0, 0, &fl), 0x7C00);
    EXPECT("onednn e4m3 bits", fl_srhw_get(FL_SRHW_ONEDNN_E4M3)->nbits, 20);
    EXPECT("preset by name", fl_srhw_parse("ptx-cvt.rs.e2m1x4"),
           FL_SRHW_PTX_E2M1X4);
    printf("presets: PTX cvt.rs and oneDNN cases from their documentation\n");
}

/* The array forms, threaded or not, are the scalar call element by
 * element. */
static void check_arrays(void)
{
    enum { N = 100000 };
    static double x[N];
    static float xf[N];
    static uint64_t r[N], a[N], b[N], d[N];
    static unsigned ea[N], eb[N];
    uint64_t s = 12345;
    unsigned fa = 0, fb = 0;
    fl_ctx c = FL_CTX_INIT;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = ldexp((double)(s >> 11), -53 - (int)(s % 40)) *
               ((s >> 7) & 1 ? -1 : 1);
        xf[i] = (float)x[i];
        r[i] = s >> 51;                         /* 13 bits */
    }
    fl_round_sr_bits_array(&fl_binary16, a, x, r, N, 13, FL_SRV_FAST, &c,
                           &fa, ea);
    fl_round_sr_bits_array_mt(&fl_binary16, b, x, r, N, 13, FL_SRV_FAST, &c,
                              &fb, eb, 2);
    for (int i = 0; i < N; i++) {
        unsigned f1 = 0;
        d[i] = fl_round_sr_bits(&fl_binary16, x[i], r[i], 13, FL_SRV_FAST, &c,
                                &f1);
        if (a[i] != d[i] || b[i] != d[i] || ea[i] != f1 || eb[i] != f1)
            FAIL("array element %d: 0x%llx 0x%llx, scalar 0x%llx", i,
                 (unsigned long long)a[i], (unsigned long long)b[i],
                 (unsigned long long)d[i]);
    }
    if (fa != fb)
        FAIL("array flags %x, threaded %x", fa, fb);
    fl_round_sr_bits_float_array_mt(&fl_bfloat16, a, xf, r, N, 13,
                                    FL_SRV_STOCHASTIC, &c, &fa, NULL, 2);
    for (int i = 0; i < N; i++) {
        unsigned f1 = 0;
        if (a[i] != fl_round_sr_bits(&fl_bfloat16, (double)xf[i], r[i], 13,
                                     FL_SRV_STOCHASTIC, &c, &f1))
            FAIL("float array element %d", i);
    }
    checked += 3 * N;
    printf("arrays: %d elements, serial and 2 threads = the scalar call\n", N);
}

/* Every operation with supplied bits against the MPFR oracle, which
 * transcribes the variants' formulas on its own (src/oracle), in P3109
 * formats of each kind and binary16: random operands, random N within the
 * bound where the core decides exactly (N <= 62 - p with its 64-bit
 * significand; sqrt computes 55 root bits at most: N <= 53 - p), random
 * saturation, flush and tininess.  Values and flags. */
static void check_oracle(void)
{
    static const char *const names[] = {
        "p3109:p3", "p3109:p1", "p3109_k8p3ue", "p3109_k8p4sf", "p3109_k6p2uf",
        "binary16", "bfloat16"};
    static const int ops[] = {FL_MPFR_ADD, FL_MPFR_SUB, FL_MPFR_MUL,
                              FL_MPFR_DIV, FL_MPFR_SQRT, FL_MPFR_FMA};
    uint64_t s = 0x5eedull;
    long long n = 0;
    if (!fl_mpfr_available()) {
        printf("oracle: built without MPFR, not run\n");
        return;
    }
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        fl_format f;
        char err[256];
        fl_format_parse(&f, names[k], err, sizeof err);
        for (int i = 0; i < 40000; i++) {
            fl_ctx c = FL_CTX_INIT;
            fl_mpfr_res r;
            uint64_t x[3], got = 0;
            unsigned fl = 0;
            int op, rc;
            for (int j = 0; j < 3; j++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                x[j] = (s >> 17) & ((((uint64_t)1) << f.width) - 1);
            }
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            op = ops[(s >> 33) % 6];
            c.rm = FL_RSB;
            c.sr_variant = (uint8_t)((s >> 40) & 3);
            /* exact while N <= 62 - p (sqrt: 53 - p, its root bits) */
            c.sr_nbits = (uint8_t)(1 + (s >> 42) % ((op == FL_MPFR_SQRT ? 53
                                                                        : 62) -
                                                    f.prec));
            c.sr_bits = s ^ (s >> 29);
            c.saturate = (uint8_t)((s >> 50) % 3);
            c.ftz = (s >> 52) & 1;
            c.tininess = (s >> 53) & 1;
            switch (op) {
            case FL_MPFR_ADD: got = fl_add(&f, x[0], x[1], &c, &fl); break;
            case FL_MPFR_SUB: got = fl_sub(&f, x[0], x[1], &c, &fl); break;
            case FL_MPFR_MUL: got = fl_mul(&f, x[0], x[1], &c, &fl); break;
            case FL_MPFR_DIV: got = fl_div(&f, x[0], x[1], &c, &fl); break;
            case FL_MPFR_SQRT: got = fl_sqrt(&f, x[0], &c, &fl); break;
            default: got = fl_fma(&f, x[0], x[1], x[2], &c, &fl); break;
            }
            rc = fl_mpfr_arith(&r, op, &f, x, &c);
            if (rc != FL_MPFR_OK) {
                FAIL("oracle %s %s: rc %d", names[k], fl_mpfr_op_name(op), rc);
                continue;
            }
            if ((r.is_nan ? !fl_is_nan(&f, got) : got != r.bits) ||
                (fl & FL_IEEE_FLAGS) != (r.flags & FL_IEEE_FLAGS))
                FAIL("oracle %s %s(0x%llx, 0x%llx, 0x%llx) N=%d R=%llx %s "
                     "sat %d: fplab 0x%llx flags %x, MPFR 0x%llx flags %x",
                     names[k], fl_mpfr_op_name(op), (unsigned long long)x[0],
                     (unsigned long long)x[1], (unsigned long long)x[2],
                     c.sr_nbits, (unsigned long long)c.sr_bits,
                     fl_srv_name(c.sr_variant), c.saturate,
                     (unsigned long long)got, fl, (unsigned long long)r.bits,
                     r.flags);
            n++;
        }
    }
    printf("oracle: %lld operations with supplied bits agree with MPFR "
           "(values and flags)\n", n);
    checked += n;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data";
    check_decode(dir);
    check_convert(dir);
    check_sr_table(dir);
    check_sr_exhaustive();
    check_bias();
    check_saturation();
    check_presets();
    check_arrays();
    check_oracle();
    printf("%lld cases checked, %d failure(s)\n", checked, failures);
    if (checked == 0)
        return 1;
    return failures ? 1 : 0;
}
