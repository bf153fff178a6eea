/*
 * test_ref_exact.c — order=exact (the superaccumulator of src/ref/exact.c)
 * against GNU MPFR: the exact sum / dot / gemm element is formed in MPFR
 * (every product exact at 2p bits, mpfr_sum into 8192 bits, which holds
 * the whole span of binary64 products, alpha*S + beta*C the same way),
 * printed as an exact hex float, and rounded into the output format by the
 * MPFR oracle (fl_mpfr_parse: its own rounding to the format, subnormals,
 * overflow and flags, in all six deterministic modes, ftz and saturation
 * included).  Value bits and IEEE flags must agree.  Inputs: every preset
 * and made-up ieee:E:M formats, finite values of every magnitude
 * (subnormals, the largest finite, planted exact cancellations); the sign
 * of an exact zero is checked by the rule of fplab/ref.h, written here
 * again.  Specials (NaN, infinities, inf*0) on hand-made cases.
 * FPLAB_TEST_SEED replays; FPLAB_TEST_SCALE multiplies the count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fplab/fplab.h"
#include "fplab/ref.h"
#include "mpfr_oracle.h"
#include "test_common.h"

#ifndef FPLAB_HAVE_MPFR
int main(void)
{
    printf("built without MPFR: skipped\n");
    return 77;
}
#else
#include <gmp.h>
#include <mpfr.h>

static uint64_t rng;
static long cases;

static uint64_t rnd(void) { return tc_splitmix(&rng); }
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

#define PREC 8192

static fl_format fmts[12];
static int nfmts;

/* A random finite value: any exponent, sometimes subnormal or largest. */
static uint64_t rnd_fin(const fl_format *f)
{
    uint64_t s = (rnd() & 1) ? f->sign_mask : 0, frac = rnd() & f->frac_mask, v;
    int fb = f->prec - 1;
    switch (rndn(10)) {
    case 0:
        return s | frac;                          /* subnormal or zero */
    case 1:
        return s | f->max_bits;
    case 2: case 3: case 4: case 5: {
        int32_t e = (int32_t)rndn(9) - 4;         /* near 1: cancellations */
        v = s | ((uint64_t)(e + f->bias) << fb) | frac;
        break;
    }
    default: {
        int32_t e = f->emin + (int32_t)rndn((size_t)(f->emax - f->emin + 1));
        v = s | ((uint64_t)(e + f->bias) << fb) | frac;
        break;
    }
    }
    if ((v & ~f->sign_mask) > f->max_bits)
        v = s | f->max_bits;
    return v;
}

/* Exact value of a finite encoding into x (precision >= p). */
static void to_mpfr(mpfr_t x, const fl_format *f, uint64_t a, int daz)
{
    uint64_t e = (a & f->exp_mask) >> (f->prec - 1), frac = a & f->frac_mask;
    int neg = (a & f->sign_mask) != 0;
    if (e == 0) {
        if (daz)
            frac = 0;
        mpfr_set_uj_2exp(x, frac, f->emin - (f->prec - 1), MPFR_RNDN);
    } else {
        mpfr_set_uj_2exp(x, frac | ((uint64_t)1 << (f->prec - 1)),
                         (long)e - f->bias - (f->prec - 1), MPFR_RNDN);
    }
    if (neg)
        mpfr_neg(x, x, MPFR_RNDN);
    if (mpfr_zero_p(x) && neg)
        mpfr_set_zero(x, -1);
}

/* Round the exact value v into f by the oracle; zero: the ref.h rule. */
static void oracle_round(const mpfr_t v, const fl_format *f, const fl_ctx *c,
                         int zsign, uint64_t *bits, unsigned *flags, int *isnan)
{
    fl_mpfr_res r;
    char *s;
    if (mpfr_zero_p(v)) {
        *bits = zsign ? f->sign_mask : 0;
        *flags = 0;
        *isnan = 0;
        return;
    }
    mpfr_asprintf(&s, "%Ra", v);
    if (fl_mpfr_parse(&r, f, s, c) != FL_MPFR_OK) {
        printf("oracle refused '%s'\n", s);
        abort();
    }
    mpfr_free_str(s);
    *bits = r.bits;
    *flags = r.flags;
    *isnan = r.is_nan;   /* an overflow into a format without infinities */
}

static void one_case(void)
{
    const fl_format *in = &fmts[rndn((size_t)nfmts)];
    const fl_format *out = &fmts[rndn((size_t)nfmts)];
    const fl_format *acc = rndn(2) ? out : &fmts[rndn((size_t)nfmts)];
    static const int modes[6] = {FL_RNE, FL_RTZ, FL_RDN, FL_RUP, FL_RNA, FL_RTO};
    int op = (int)rndn(3), rm = modes[rndn(6)], ftz = rndn(6) == 0,
        daz = rndn(6) == 0, sat = rndn(8) == 0;
    size_t n = rndn(2) ? rndn(10) : rndn(300), rows = op == 2 ? 0 : 1 + rndn(3);
    size_t M = 1 + rndn(3), N = 1 + rndn(3);
    char text[512], err[512], ins[32], outs[32], accs[32];
    fl_ref_model m;
    fl_ctx c = fl_ctx_make(rm);
    uint64_t alpha = 0, beta = 0;
    mpfr_t *terms, S, T, U, D, ma, mb;
    mpfr_ptr *tp;
    c.ftz = (uint8_t)ftz;
    c.daz = (uint8_t)daz;
    c.saturate = (uint8_t)sat;
    fl_ref_format_spec(in, ins, sizeof ins);
    fl_ref_format_spec(out, outs, sizeof outs);
    fl_ref_format_spec(acc, accs, sizeof accs);
    snprintf(text, sizeof text, "order=exact in=%s acc=%s out=%s out-rm=%s ftz=%d "
             "daz=%d saturate=%d", ins, accs, outs, fl_rm_name(rm), ftz, daz, sat);
    fl_ref_model_init(&m);
    if (fl_ref_model_parse(&m, text, err, sizeof err) != 0) {
        CHECK(0, "%s: %s", text, err);
        return;
    }
    mpfr_inits2(PREC, S, T, U, D, ma, mb, (mpfr_ptr)0);
    terms = malloc((n + 1) * sizeof *terms);
    tp = malloc((n + 1) * sizeof *tp);
    for (size_t i = 0; i < n; i++) {
        mpfr_init2(terms[i], PREC);
        tp[i] = terms[i];
    }
    {
        size_t ne = op == 2 ? M * N : rows;
        uint64_t *a = malloc((ne * n + M * n + n * N + 1) * sizeof *a);
        uint64_t *b = malloc((ne * n + n * N + 1) * sizeof *b);
        uint64_t *C = malloc((M * N + 1) * sizeof *C);
        uint64_t *o = malloc((ne + 1) * sizeof *o);
        unsigned gf = 0, wf = 0;
        int rc;
        size_t lim = op == 2 ? M * n : ne * n, limb = op == 2 ? n * N : ne * n;
        for (size_t i = 0; i < lim; i++) {
            a[i] = rnd_fin(in);
            if (i && rndn(6) == 0)
                a[i] = a[rndn(i)] ^ in->sign_mask;
        }
        for (size_t i = 0; i < limb; i++)
            b[i] = rndn(6) == 0 && i ? b[rndn(i)] : rnd_fin(in);
        if (op == 2) {
            fl_ref_gemm_shape s;
            unsigned d = 0;
            fl_ctx c0 = fl_ctx_make(FL_RNE);
            static const char *const av[] = {"1", "3", "-0.75", "0x1p-30", "1e10"};
            static const char *const bv[] = {"0", "1", "-2", "0.125", "-0"};
            fl_parse(&m.acc, av[rndn(5)], &c0, &d, &alpha);
            fl_parse(&m.acc, bv[rndn(5)], &c0, &d, &beta);
            /* finite scalars only (1e10 overflows the narrow formats);
             * the specials are checked by hand */
            if (fl_is_nan(&m.acc, alpha) || fl_is_inf(&m.acc, alpha))
                alpha = fl_from_i32(&m.acc, 1, &c0, &d);
            if (fl_is_nan(&m.acc, beta) || fl_is_inf(&m.acc, beta))
                beta = 0;
            for (size_t i = 0; i < M * N; i++)
                C[i] = rnd_fin(out);
            fl_ref_gemm_shape_init(&s, 0, 0, 1, M, N, n);
            rc = fl_ref_gemm(&m, &s, alpha, a, b, beta, C, o, 1 + (int)rndn(2), &gf,
                             err, sizeof err);
        } else if (op == 1) {
            rc = fl_ref_dot(&m, a, b, rows, n, o, 1, &gf, err, sizeof err);
        } else {
            rc = fl_ref_sum(&m, a, rows, n, o, 1, &gf, err, sizeof err);
        }
        CHECK(rc == 0, "%s: %s", text, err);
        for (size_t e = 0; rc == 0 && e < ne; e++) {
            size_t i = op == 2 ? e / N : e, j = op == 2 ? e % N : 0;
            int allneg0 = n > 0, anyneg0 = 0, anypos0 = 0, nonzero = 0;
            uint64_t want;
            unsigned f;
            int zsign, wnan = 0;
            for (size_t l = 0; l < n; l++) {
                uint64_t x = op == 2 ? a[i * n + l] : a[e * n + l];
                to_mpfr(terms[l], in, x, daz);
                if (op != 0) {
                    uint64_t y = op == 2 ? b[l * N + j] : b[e * n + l];
                    to_mpfr(ma, in, y, daz);
                    mpfr_mul(terms[l], terms[l], ma, MPFR_RNDN);   /* exact */
                }
                if (mpfr_zero_p(terms[l])) {
                    int neg = mpfr_signbit(terms[l]) != 0;
                    anyneg0 |= neg;
                    anypos0 |= !neg;
                    allneg0 &= neg;
                } else {
                    allneg0 = 0;
                    nonzero = 1;
                }
            }
            mpfr_sum(S, tp, (unsigned long)n, MPFR_RNDN);   /* exact at PREC */
            zsign = nonzero || (anyneg0 && anypos0) ? rm == FL_RDN : allneg0;
            if (op == 2 && (alpha != fl_from_i32(&m.acc, 1, &c, &f) ||
                            (beta & ~m.acc.sign_mask) != 0)) {
                int szero = mpfr_zero_p(S), tsign, usign = 0, uzero = 1, has_u;
                to_mpfr(ma, &m.acc, alpha, daz);   /* daz: every operand */
                mpfr_mul(T, S, ma, MPFR_RNDN);
                tsign = szero ? ((alpha & m.acc.sign_mask) != 0) ^ zsign
                              : mpfr_signbit(T) != 0;
                has_u = (beta & ~m.acc.sign_mask) != 0;
                mpfr_set_zero(U, 1);
                if (has_u) {
                    to_mpfr(ma, &m.acc, beta, daz);
                    to_mpfr(mb, out, C[i * N + j], daz);
                    mpfr_mul(U, ma, mb, MPFR_RNDN);
                    uzero = mpfr_zero_p(U);
                    usign = mpfr_signbit(U) != 0;
                }
                mpfr_add(D, T, U, MPFR_RNDN);
                if (!szero && !mpfr_zero_p(T)) {
                    nonzero = 1;
                } else {
                    nonzero = !uzero;
                }
                if (nonzero)
                    zsign = rm == FL_RDN;
                else if (!has_u || tsign == usign)
                    zsign = tsign;
                else
                    zsign = rm == FL_RDN;
                /* an alpha of 0 times a cancelled S: nonzero parts gone */
                if (mpfr_zero_p(T) && !uzero)
                    zsign = rm == FL_RDN;
                oracle_round(D, out, &c, zsign, &want, &f, &wnan);
            } else {
                oracle_round(S, out, &c, zsign, &want, &f, &wnan);
            }
            wf |= f;
            CHECK(wnan ? fl_is_nan(out, o[e]) : o[e] == want,
                  "%s op %d n %zu element %zu: got 0x%" PRIx64
                  " MPFR 0x%" PRIx64, text, op, n, e, o[e], want);
            cases++;
        }
        CHECK((gf & FL_IEEE_FLAGS) == (wf & FL_IEEE_FLAGS),
              "%s op %d n %zu: flags got %02x MPFR %02x", text, op, n, gf, wf);
        free(a);
        free(b);
        free(C);
        free(o);
    }
    for (size_t i = 0; i < n; i++)
        mpfr_clear(terms[i]);
    free(terms);
    free(tp);
    mpfr_clears(S, T, U, D, ma, mb, (mpfr_ptr)0);
    fl_ref_model_free(&m);
}

/* Specials, by hand. */
static long nspec;
static void spec_sum(const char *model, const fl_format *f, const uint64_t *x,
                     size_t n, uint64_t want, unsigned wflags)
{
    fl_ref_model m;
    char err[256];
    uint64_t o = 0;
    unsigned fl = 0;
    fl_ref_model_init(&m);
    fl_ref_model_parse(&m, model, err, sizeof err);
    m.in = *f;
    CHECK(fl_ref_sum(&m, x, 1, n, &o, 1, &fl, err, sizeof err) == 0, "%s", err);
    CHECK(o == want && (fl & FL_IEEE_FLAGS) == wflags,
          "%s: got 0x%" PRIx64 " flags %02x, want 0x%" PRIx64 " flags %02x",
          model, o, fl, want, wflags);
    nspec++;
}

static void specials(void)
{
    const uint64_t PINF = 0x7F800000u, NINF = 0xFF800000u, ONE = 0x3F800000u;
    uint64_t x[4];
    x[0] = ONE; x[1] = PINF; x[2] = ONE;
    spec_sum("order=exact", &fl_binary32, x, 3, PINF, 0);
    x[1] = NINF; x[2] = PINF;
    spec_sum("order=exact", &fl_binary32, x, 3, 0xFFC00000u, FL_INVALID);
    x[0] = 0x7FC01234u; x[1] = 0x7F800001u; x[2] = ONE;   /* qNaN, sNaN */
    spec_sum("order=exact", &fl_binary32, x, 3, 0x7FC01234u, FL_INVALID);
    spec_sum("order=exact nan=arm", &fl_binary32, x, 3, 0x7FC00000u, FL_INVALID);
    x[0] = 0x7F7FFFFFu; x[1] = 0x7F7FFFFFu; x[2] = 0xFF7FFFFFu;   /* max+max-max */
    spec_sum("order=exact", &fl_binary32, x, 3, 0x7F7FFFFFu, 0);
    spec_sum("order=sequential", &fl_binary32, x, 3, PINF, FL_OVERFLOW | FL_INEXACT);
    x[2] = 0x7F7FFFFFu;
    spec_sum("order=exact", &fl_binary32, x, 3, PINF, FL_OVERFLOW | FL_INEXACT);
    spec_sum("order=exact out-rm=rtz", &fl_binary32, x, 3, 0x7F7FFFFFu,
             FL_OVERFLOW | FL_INEXACT);
    /* dot: inf * 0 */
    {
        fl_ref_model m;
        char err[256];
        uint64_t a[2] = {PINF, ONE}, b[2] = {0, ONE}, o = 0;
        unsigned fl = 0;
        fl_ref_model_init(&m);
        fl_ref_model_parse(&m, "order=exact", err, sizeof err);
        CHECK(fl_ref_dot(&m, a, b, 1, 2, &o, 1, &fl, err, sizeof err) == 0, "%s", err);
        CHECK(o == 0xFFC00000u && fl == FL_INVALID, "inf*0: 0x%" PRIx64 " %02x", o, fl);
        nspec++;
    }
    /* binary64 extremes: max * max + (-max * max) + min_sub * min_sub */
    {
        fl_ref_model m;
        char err[256];
        uint64_t a[3] = {0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 1};
        uint64_t b[3] = {0x7FEFFFFFFFFFFFFFull, 0x7FEFFFFFFFFFFFFFull, 1}, o = 0;
        unsigned fl = 0;
        fl_ref_model_init(&m);
        fl_ref_model_parse(&m, "order=exact in=binary64 out=binary64", err, sizeof err);
        CHECK(fl_ref_dot(&m, a, b, 1, 3, &o, 1, &fl, err, sizeof err) == 0, "%s", err);
        /* 2^-2148 rounds to +0 (underflow, inexact) */
        CHECK(o == 0 && fl == (FL_UNDERFLOW | FL_INEXACT), "binary64 extremes: 0x%"
              PRIx64 " %02x", o, fl);
        fl = 0;
        fl_ref_model_parse(&m, "out-rm=rup", err, sizeof err);
        CHECK(fl_ref_dot(&m, a, b, 1, 3, &o, 1, &fl, err, sizeof err) == 0, "%s", err);
        CHECK(o == 1 && fl == (FL_UNDERFLOW | FL_INEXACT), "binary64 extremes rup: 0x%"
              PRIx64 " %02x", o, fl);
        nspec += 2;
    }
}

int main(void)
{
    const uint64_t seed = tc_seed("test_ref_exact");
    long scale = getenv("FPLAB_TEST_SCALE") ? atol(getenv("FPLAB_TEST_SCALE")) : 1;
    long count = 1500 * (scale < 1 ? 1 : scale);
    static const char *const names[] = {"binary16", "bfloat16", "binary32",
        "binary64", "tf32", "fp8-e5m2", "fp8-e4m3", "ieee:3:2", "ieee:11:10",
        "ieee:6:30"};
    char err[128];
    rng = seed;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (fl_format_parse(&fmts[nfmts], names[i], err, sizeof err) == 0)
            nfmts++;
    specials();
    for (long i = 0; i < count; i++)
        one_case();
    printf("exact: %ld elements against MPFR, %ld hand-made special cases\n", cases,
           nspec);
    CHECK(cases >= count && nspec == 11, "ran %ld elements, %ld specials", cases, nspec);
    {
        const tc_counts *k = tc_counter();
        printf("test_ref_exact: %d checks, %d failures (seed %" PRIu64 ")\n", k->cases,
               k->failures, seed);
        return k->failures ? 1 : 0;
    }
}
#endif
