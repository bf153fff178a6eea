/*
 * test_compare.c — the verdict library (fplab/compare.h).
 *
 *  - buckets and their ranges; the ulp distance against counting nextUp
 *    steps through the core, for every pair of three 8-bit formats and
 *    random pairs of binary16/bfloat16;
 *  - planted differences (1 ulp, 5 ulps, 1000 ulps, NaN vs finite both
 *    ways, NaN vs NaN with equal and different payloads, infinity vs
 *    finite, +inf vs -inf, +0 vs -0) in six formats and four storage
 *    widths: exact counts under every tolerance kind, the same result for
 *    1, 2, 3 and 7 threads;
 *  - tolerance edges: exactly at --ulp N and one past; exactly at
 *    atol + rtol*|r| and one binary64 step past;
 *  - the list of first mismatches against a brute-force scan;
 *  - the GEMM grid with a planted 16x16 tile, in 2-D and 3-D;
 *  - K-block attribution of a dropped block and of rounding noise;
 *  - relative error statistics against sorting.
 * Seeded (11, printed; FPLAB_TEST_SEED gives another); every check is
 * counted and the count asserted.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/compare.h"
#include "test_common.h"

static uint64_t rng_state;
static uint64_t rnd(void)
{
    return tc_splitmix(&rng_state);
}

static fl_format fmt(const char *s)
{
    fl_format f;
    char err[128];
    if (fl_format_parse(&f, s, err, sizeof err)) {
        fprintf(stderr, "format %s: %s\n", s, err);
        exit(2);
    }
    return f;
}

static void test_buckets(void)
{
    static const struct { uint64_t d; int b; } t[] = {
        {0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 3}, {5, 4}, {8, 4}, {9, 5}, {16, 5},
        {17, 6}, {1ull << 62, 63}, {(1ull << 62) + 1, 64}, {1ull << 63, 64},
        {(1ull << 63) + 1, 65}, {UINT64_MAX, 65},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        CHECK(fl_cmp_bucket(t[i].d) == t[i].b, "bucket(%llu) = %d, want %d",
              (unsigned long long)t[i].d, fl_cmp_bucket(t[i].d), t[i].b);
    int ok = 1;
    for (int b = 0; b < FL_CMP_BUCKETS; b++) {
        uint64_t lo, hi;
        fl_cmp_bucket_range(b, &lo, &hi);
        ok &= fl_cmp_bucket(lo) == b && fl_cmp_bucket(hi) == b;
        if (b + 1 < FL_CMP_BUCKETS)
            ok &= fl_cmp_bucket(hi + 1) == b + 1;
    }
    CHECK(ok, "bucket ranges are not consistent");
    static const struct { int b; const char *lab; } l[] = {
        {0, "0"}, {1, "1"}, {2, "2"}, {3, "3-4"}, {4, "5-8"},
        {65, "9223372036854775809-18446744073709551615"},
    };
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++) {
        char lab[64];
        fl_cmp_bucket_label(l[i].b, lab, sizeof lab);
        CHECK(strcmp(lab, l[i].lab) == 0, "bucket_label(%d) = '%s', want '%s'",
              l[i].b, lab, l[i].lab);
    }
}

/* nextUp steps from a to b (a <= b), +0 and -0 being one point. */
static uint64_t steps(const fl_format *f, uint64_t a, uint64_t b)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t n = 0;
    while (!(a == b || (fl_is_zero(f, a) && fl_is_zero(f, b)))) {
        uint64_t x = fl_next_up(f, a, &c, &fl);
        if (fl_is_zero(f, a) && fl_is_zero(f, x))
            x = fl_next_up(f, x, &c, &fl);   /* -0 -> +0 is no step */
        a = x;
        n++;
    }
    return n;
}

static void test_distance_exhaustive(void)
{
    static const char *names[] = {"fp8-e4m3", "fp8-e5m2", "ieee:4:3"};
    long pairs = 0;
    for (int k = 0; k < 3; k++) {
        fl_format f = fmt(names[k]);
        int bad = 0;
        for (uint64_t a = 0; a < 256; a++) {
            if (fl_is_nan(&f, a))
                continue;
            for (uint64_t b = 0; b < 256; b++) {
                if (fl_is_nan(&f, b))
                    continue;
                double va = fl_to_double(&f, a), vb = fl_to_double(&f, b);
                uint64_t want = va <= vb ? steps(&f, a, b) : steps(&f, b, a);
                if (fl_cmp_ulp_distance(&f, a, b) != want && bad++ < 3)
                    fprintf(stderr, "  %s: d(0x%02llx, 0x%02llx) = %llu, nextUp "
                            "steps %llu\n", names[k], (unsigned long long)a,
                            (unsigned long long)b,
                            (unsigned long long)fl_cmp_ulp_distance(&f, a, b),
                            (unsigned long long)want);
                pairs++;
            }
        }
        CHECK(bad == 0, "%s: %d distances differ from nextUp counts", names[k], bad);
    }
    /* e4m3: 254 non-NaN codes, e5m2 and ieee:4:3 (IEEE style): 250 and 242 */
    CHECK(pairs == 254L * 254 + 250L * 250 + 242L * 242, "pairs %ld", pairs);
    fl_format h = fmt("binary16"), d = fmt("binary64");
    CHECK(fl_cmp_ulp_distance(&h, 0x0000, 0x8000) == 0, "+0 -0");
    CHECK(fl_cmp_ulp_distance(&h, 0x0001, 0x8001) == 2, "+-min subnormal");
    CHECK(fl_cmp_ulp_distance(&h, 0x7bff, 0x7c00) == 1, "max to inf");
    CHECK(fl_cmp_ulp_distance(&h, 0xfbff, 0x7bff) == 2 * 0x7bffull, "-max to max");
    CHECK(fl_cmp_ulp_distance(&d, 0xFFEFFFFFFFFFFFFFull, 0x7FEFFFFFFFFFFFFFull) ==
          2 * 0x7FEFFFFFFFFFFFFFull, "binary64 -max to max");
    CHECK(fl_cmp_ulp_distance(&d, 0xFFF0000000000000ull, 0x7FF0000000000000ull) ==
          2 * 0x7FF0000000000000ull, "binary64 -inf to inf");
    /* random binary16 and bfloat16 pairs near each other */
    fl_format bf = fmt("bf16");
    int bad = 0;
    for (int i = 0; i < 2000; i++) {
        const fl_format *f = i & 1 ? &bf : &h;
        uint64_t a = rnd() & 0xffff, b = (a + (rnd() % 40) - 20) & 0xffff;
        if (fl_is_nan(f, a) || fl_is_nan(f, b))
            continue;
        double va = fl_to_double(f, a), vb = fl_to_double(f, b);
        uint64_t want = va <= vb ? steps(f, a, b) : steps(f, b, a);
        bad += fl_cmp_ulp_distance(f, a, b) != want;
    }
    CHECK(bad == 0, "%d random 16-bit distances differ", bad);
}

/* ---------------------------------------------------------------------
 * Planted differences.
 * ------------------------------------------------------------------- */

typedef struct plant {
    fl_format f;
    size_t esize, n;
    void *k, *r;
} plant;

static void put(plant *p, void *a, size_t i, uint64_t v)
{
    memcpy((char *)a + i * p->esize, &v, p->esize);   /* little-endian host */
}

static uint64_t get(const plant *p, const void *a, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)a + i * p->esize, p->esize);
    return v;
}

/* A finite value of moderate size, away from zero, the largest value and
 * the subnormals: exponent field in the middle half. */
static uint64_t mid_value(const fl_format *f)
{
    uint64_t e = (uint64_t)(f->bias / 2) + rnd() % (uint64_t)(f->bias > 2 ? f->bias : 1);
    uint64_t m = rnd() & f->frac_mask;
    uint64_t s = rnd() & 1 ? f->sign_mask : 0;
    return s | e << (f->prec - 1) | m;
}

static uint64_t up(const fl_format *f, uint64_t x, unsigned k)
{
    /* k steps away from zero (the magnitude grows: no sign change) */
    (void)f;
    return x + k;
}

static uint64_t qnan(const fl_format *f, uint64_t payload)
{
    if (f->nan_style == FL_NANSTYLE_FN)
        return f->exp_mask | f->frac_mask;
    return f->exp_mask | ((uint64_t)1 << (f->prec - 2)) | (payload & (f->frac_mask >> 1));
}

/* Expected counts of the planted table. */
#define N_PLANT 20000
enum { P1 = 10, P5 = 3, P1000 = 1, PNK = 3, PNR = 2, PNB = 2, PNBP = 2,
       PINF = 5, PINFS = 1, PZ = 6 };

static void make_plant(plant *p, const char *name, size_t esize)
{
    p->f = fmt(name);
    p->esize = esize;
    p->n = N_PLANT;
    p->k = calloc(p->n, esize);
    p->r = calloc(p->n, esize);
    for (size_t i = 0; i < p->n; i++) {
        uint64_t v = mid_value(&p->f);
        put(p, p->k, i, v);
        put(p, p->r, i, v);
    }
    /* planted at spread positions: i = 997 * j mod n, distinct */
    size_t j = 1;
#define AT() ((j++ * 997) % p->n)
    const fl_format *f = &p->f;
    for (int q = 0; q < P1; q++) { size_t i = AT(); put(p, p->k, i, up(f, get(p, p->r, i), 1)); }
    for (int q = 0; q < P5; q++) { size_t i = AT(); put(p, p->k, i, up(f, get(p, p->r, i), 5)); }
    for (int q = 0; q < P1000; q++) {
        size_t i = AT();
        uint64_t r = (uint64_t)(f->bias / 2) << (f->prec - 1);   /* away from the top */
        put(p, p->r, i, r);
        put(p, p->k, i, r + (f->width > 8 ? 1000 : 50));
    }
    for (int q = 0; q < PNK; q++) { size_t i = AT(); put(p, p->k, i, qnan(f, 1)); }
    for (int q = 0; q < PNR; q++) { size_t i = AT(); put(p, p->r, i, qnan(f, 1)); }
    for (int q = 0; q < PNB; q++) {
        size_t i = AT();
        put(p, p->k, i, qnan(f, 1));
        put(p, p->r, i, qnan(f, 1));
    }
    for (int q = 0; q < PNBP; q++) {
        size_t i = AT();
        put(p, p->k, i, qnan(f, 1));
        put(p, p->r, i, qnan(f, 2) | (f->nan_style == FL_NANSTYLE_FN ? f->sign_mask : 0));
    }
    for (int q = 0; q < PINF; q++) {
        size_t i = AT();
        if (f->has_inf)
            put(p, p->k, i, f->exp_mask);
    }
    for (int q = 0; q < PINFS; q++) {
        size_t i = AT();
        if (f->has_inf) {
            put(p, p->k, i, f->exp_mask);
            put(p, p->r, i, f->exp_mask | f->sign_mask);
        }
    }
    for (int q = 0; q < PZ; q++) {
        size_t i = AT();
        put(p, p->k, i, 0);
        put(p, p->r, i, f->sign_mask);
    }
#undef AT
}

static void test_planted(void)
{
    static const struct { const char *f; size_t esize; } fs[] = {
        {"binary32", 4}, {"binary16", 2}, {"bf16", 2}, {"fp8-e4m3", 1},
        {"binary64", 8}, {"tf32", 4}, {"ieee:5:2", 1}, {"fp8-e5m2", 8},
    };
    int ran = 0;
    for (size_t q = 0; q < sizeof fs / sizeof fs[0]; q++) {
        plant p;
        make_plant(&p, fs[q].f, fs[q].esize);
        int inf = p.f.has_inf;
        int fn = p.f.nan_style == FL_NANSTYLE_FN;
        uint64_t big = p.f.width > 8 ? 1000 : 50;
        fl_cmp_tol exact = {FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0};
        fl_cmp_stats s;
        fl_cmp_arrays(&s, &p.f, p.esize, p.k, p.r, p.n, &exact, 1);
        /* FN formats have one NaN per sign: the "different payload" pair
         * differs in the sign only */
        uint64_t nan_inf = inf ? PINF + PINFS : 0;
        uint64_t diff = P1 + P5 + P1000 + PNK + PNR + PNBP + nan_inf + PZ;
        const char *nm = fs[q].f;
        CHECK(s.n == N_PLANT, "%s: n", nm);
        CHECK(s.identical == N_PLANT - diff, "%s: identical %llu, want %llu", nm,
              (unsigned long long)s.identical, (unsigned long long)(N_PLANT - diff));
        CHECK(s.nan_kernel == PNK && s.nan_ref == PNR, "%s: NaN one side %llu %llu",
              nm, (unsigned long long)s.nan_kernel, (unsigned long long)s.nan_ref);
        CHECK(s.nan_both == PNB + PNBP && s.nan_payload == PNBP, "%s: NaN both "
              "%llu payload %llu", nm, (unsigned long long)s.nan_both,
              (unsigned long long)s.nan_payload);
        CHECK(s.inf == nan_inf, "%s: inf %llu", nm, (unsigned long long)s.inf);
        CHECK(s.zero_sign == PZ, "%s: zero sign %llu", nm,
              (unsigned long long)s.zero_sign);
        CHECK(s.values == N_PLANT - PNK - PNR - PNB - PNBP - nan_inf,
              "%s: values %llu", nm, (unsigned long long)s.values);
        CHECK(s.hist[1] == P1 && s.hist[4] == P5 && s.hist[fl_cmp_bucket(big)] ==
              P1000 && s.hist[0] == s.values - P1 - P5 - P1000, "%s: histogram "
              "%llu %llu %llu", nm, (unsigned long long)s.hist[1],
              (unsigned long long)s.hist[4],
              (unsigned long long)s.hist[fl_cmp_bucket(big)]);
        CHECK(s.max_ulp == big && get(&p, p.k, s.max_ulp_index) -
              get(&p, p.r, s.max_ulp_index) == big, "%s: max ulp %llu", nm,
              (unsigned long long)s.max_ulp);
        /* exact: every difference fails but NaN payloads */
        CHECK(s.fail == diff - PNBP, "%s: exact fails %llu, want %llu", nm,
              (unsigned long long)s.fail, (unsigned long long)(diff - PNBP));
        fl_cmp_tol pay = exact;
        pay.nan_payload = 1;
        fl_cmp_arrays(&s, &p.f, p.esize, p.k, p.r, p.n, &pay, 1);
        CHECK(s.fail == diff, "%s: nan_payload fails %llu", nm,
              (unsigned long long)s.fail);
        /* ulp 5: the 1- and 5-ulp pairs and +-0 pass */
        fl_cmp_tol u5 = {FL_CMP_TOL_ULP, 5, 0, 0, 0, 0};
        fl_cmp_arrays(&s, &p.f, p.esize, p.k, p.r, p.n, &u5, 1);
        uint64_t hard = P1000 + PNK + PNR + nan_inf;
        CHECK(s.fail == hard, "%s: ulp 5 fails %llu, want %llu", nm,
              (unsigned long long)s.fail, (unsigned long long)hard);
        fl_cmp_tol u4 = u5;
        u4.ulp = 4;
        fl_cmp_arrays(&s, &p.f, p.esize, p.k, p.r, p.n, &u4, 1);
        CHECK(s.fail == hard + P5, "%s: ulp 4 fails %llu", nm,
              (unsigned long long)s.fail);
        u4.zero_sign = 1;
        fl_cmp_arrays(&s, &p.f, p.esize, p.k, p.r, p.n, &u4, 1);
        CHECK(s.fail == hard + P5 + PZ, "%s: ulp 4 signed zero fails %llu", nm,
              (unsigned long long)s.fail);
        /* close with a huge tolerance: only NaN and infinity disagreements */
        fl_cmp_tol wide = {FL_CMP_TOL_CLOSE, 0, 1e300, 1e300, 0, 0};
        fl_cmp_arrays(&s, &p.f, p.esize, p.k, p.r, p.n, &wide, 1);
        CHECK(s.fail == PNK + PNR + nan_inf, "%s: close(1e300) fails %llu", nm,
              (unsigned long long)s.fail);
        /* threads: identical statistics */
        fl_cmp_stats t1, tn;
        fl_cmp_arrays(&t1, &p.f, p.esize, p.k, p.r, p.n, &u4, 1);
        int same = 1;
        for (int th = 2; th <= 7; th += th == 3 ? 4 : 1) {
            /* parts of 2^18 at least: use a long array of repeats */
            fl_cmp_arrays(&tn, &p.f, p.esize, p.k, p.r, p.n, &u4, th);
            same &= !memcmp(&t1, &tn, sizeof t1);
        }
        CHECK(same, "%s: thread counts disagree", nm);
        (void)fn;
        free(p.k);
        free(p.r);
        ran++;
    }
    CHECK(ran == 8, "planted formats %d", ran);
}

/* Threads on an array long enough to be split (2^20 binary32). */
static void test_threads(void)
{
    size_t n = (size_t)1 << 20;
    uint32_t *k = malloc(n * 4), *r = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        r[i] = (uint32_t)(0x3f000000u + (rnd() & 0x7fffff));
        k[i] = r[i] + (uint32_t)(rnd() % 1000 == 0 ? rnd() % 7 : 0);
    }
    k[n - 1] = 0x7fc00000u;   /* a NaN disagreement in the last part */
    k[12345] = r[12345] + 100;  /* the first of two equal maxima */
    k[n - 100] = r[n - 100] + 100;
    fl_cmp_tol tol = {FL_CMP_TOL_ULP, 3, 0, 0, 0, 0};
    fl_cmp_stats a, b;
    fl_cmp_arrays(&a, &fl_binary32, 4, k, r, n, &tol, 1);
    int same = 1;
    for (int t = 2; t <= 8; t++) {
        fl_cmp_arrays(&b, &fl_binary32, 4, k, r, n, &tol, t);
        same &= !memcmp(&a, &b, sizeof a);
    }
    CHECK(same, "1..8 threads give different statistics");
    CHECK(a.max_ulp == 100 && a.max_ulp_index == 12345 && a.first_nan == n - 1,
          "max %llu at %llu, first NaN %llu", (unsigned long long)a.max_ulp,
          (unsigned long long)a.max_ulp_index, (unsigned long long)a.first_nan);
    free(k);
    free(r);
}

/* The statistics by brute force, pair by pair through fl_cmp_one. */
static void brute(fl_cmp_stats *s, const fl_format *f, size_t esize,
                  const void *k, const void *r, size_t n, const fl_cmp_tol *tol)
{
    plant p = {*f, esize, n, (void *)k, (void *)r};
    memset(s, 0, sizeof *s);
    s->max_ulp_index = s->first_fail = s->first_nan = s->first_inf = UINT64_MAX;
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        fl_cmp_elem e = fl_cmp_one(f, get(&p, k, i), get(&p, r, i), tol);
        s->identical += (uint64_t)e.identical;
        if (e.fail) {
            s->fail++;
            if (s->first_fail == UINT64_MAX)
                s->first_fail = i;
        }
        if (e.cls == FL_CMP_EL_VALUE) {
            s->values++;
            s->hist[fl_cmp_bucket(e.ulp)]++;
            s->zero_sign += e.ulp == 0 && !e.identical;
            if (s->max_ulp_index == UINT64_MAX || e.ulp > s->max_ulp) {
                s->max_ulp = e.ulp;
                s->max_ulp_index = i;
            }
        } else if (e.cls == FL_CMP_EL_NAN_BOTH) {
            s->nan_both++;
            s->nan_payload += !e.identical;
        } else if (e.cls == FL_CMP_EL_INF) {
            s->inf++;
            if (s->first_inf == UINT64_MAX)
                s->first_inf = i;
        } else {
            if (e.cls == FL_CMP_EL_NAN_KERNEL)
                s->nan_kernel++;
            else
                s->nan_ref++;
            if (s->first_nan == UINT64_MAX)
                s->first_nan = i;
        }
    }
}

/* Dense differences (every block takes the vector path, some blocks hold
 * a NaN or an infinity, some distances exceed 16): the scan's statistics
 * equal the brute force's, field by field, under every tolerance kind. */
static void test_dense(void)
{
    static const struct { const char *f; size_t esize; } fs[] = {
        {"binary32", 4}, {"binary16", 2}, {"fp8-e4m3", 1}, {"binary64", 8},
        {"bf16", 2}, {"binary32", 8}, {"ieee:6:9", 2},
    };
    int ran = 0;
    for (size_t q = 0; q < sizeof fs / sizeof fs[0]; q++) {
        fl_format f = fmt(fs[q].f);
        size_t n = 64 * 300 + 37, es = fs[q].esize;
        plant p = {f, es, n, calloc(n, es), calloc(n, es)};
        for (size_t i = 0; i < n; i++) {
            uint64_t v = mid_value(&f), w = v;
            uint64_t u = rnd() % 100;
            if (u < 40)
                w = v + 1 + rnd() % 2;
            else if (u < 45)
                w = v + 3 + rnd() % 30;             /* up to bucket 6 */
            else if (u < 47)
                w = v ^ f.sign_mask;                /* opposite sign */
            else if (u < 49)
                v = 0, w = f.sign_mask;             /* +0 vs -0 */
            if (i / 64 % 37 == 5 && u == 99)
                w = qnan(&f, 1);                    /* a NaN in some blocks */
            if (i / 64 % 41 == 7 && u == 98 && f.has_inf)
                w = f.exp_mask;
            put(&p, p.k, i, w);
            put(&p, p.r, i, v);
        }
        fl_cmp_tol tols[5] = {{FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0},
                              {FL_CMP_TOL_ULP, 2, 0, 0, 0, 0},
                              {FL_CMP_TOL_ULP, 2, 0, 0, 0, 1},
                              {FL_CMP_TOL_CLOSE, 0, 0x1p-20, 0x1p-30, 0, 0},
                              {FL_CMP_TOL_CLOSE, 0, 1e-3, 1e-5, 1, 1}};
        for (int t = 0; t < 5; t++) {
            fl_cmp_stats a, b;
            fl_cmp_arrays(&a, &f, es, p.k, p.r, n, &tols[t], 1);
            brute(&b, &f, es, p.k, p.r, n, &tols[t]);
            CHECK(!memcmp(&a, &b, sizeof a), "%s in %zu bytes, tolerance %d: scan "
                  "and brute force differ (fail %llu vs %llu, hist1 %llu vs %llu, "
                  "max %llu@%llu vs %llu@%llu)", fs[q].f, es, t,
                  (unsigned long long)a.fail, (unsigned long long)b.fail,
                  (unsigned long long)a.hist[1], (unsigned long long)b.hist[1],
                  (unsigned long long)a.max_ulp,
                  (unsigned long long)a.max_ulp_index,
                  (unsigned long long)b.max_ulp,
                  (unsigned long long)b.max_ulp_index);
            ran++;
        }
        free(p.k);
        free(p.r);
    }
    CHECK(ran == 35, "dense cases %d", ran);
}

static void test_edges(void)
{
    fl_format h = fmt("binary16");
    fl_cmp_tol u = {FL_CMP_TOL_ULP, 3, 0, 0, 0, 0};
    CHECK(!fl_cmp_one(&h, 0x3c03, 0x3c00, &u).fail, "3 ulp within --ulp 3");
    CHECK(fl_cmp_one(&h, 0x3c04, 0x3c00, &u).fail, "4 ulp outside --ulp 3");
    CHECK(!fl_cmp_one(&h, 0x0001, 0x8002, &u).fail, "+min vs -2min: 3 ulps");
    CHECK(fl_cmp_one(&h, 0x0002, 0x8002, &u).fail, "+2min vs -2min: 4 ulps");
    u.ulp = 0;
    CHECK(!fl_cmp_one(&h, 0x0000, 0x8000, &u).fail, "+0 vs -0 within --ulp 0");
    u.zero_sign = 1;
    CHECK(fl_cmp_one(&h, 0x0000, 0x8000, &u).fail, "+0 vs -0 --signed-zero");
    CHECK(fl_cmp_one(&h, 0x7c00, 0x7bff, &(fl_cmp_tol){FL_CMP_TOL_ULP, 10, 0, 0, 0, 0}).fail,
          "inf vs max never within tolerance (1 ulp apart)");
    CHECK(fl_cmp_one(&h, 0x7e00, 0x3c00, &(fl_cmp_tol){FL_CMP_TOL_CLOSE, 0, 1e9, 1e9, 0, 0}).fail,
          "NaN vs 1 never close");
    CHECK(!fl_cmp_one(&h, 0x7e00, 0xfe01, &(fl_cmp_tol){FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0}).fail,
          "NaN vs NaN matches");
    CHECK(!fl_cmp_one(&h, 0x7c00, 0x7c00, &(fl_cmp_tol){FL_CMP_TOL_CLOSE, 0, 0, 0, 0, 0}).fail,
          "inf vs inf close with zero tolerance");
    /* close: exactly at atol + rtol*|r| and one step beyond (binary64) */
    fl_format d = fmt("binary64");
    double r = 1.0, k = 1.0 + 0x1p-10 + 0x1p-20;
    uint64_t rb, kb;
    memcpy(&rb, &r, 8);
    memcpy(&kb, &k, 8);
    fl_cmp_tol c = {FL_CMP_TOL_CLOSE, 0, 0x1p-10, 0x1p-20, 0, 0};
    CHECK(!fl_cmp_one(&d, kb, rb, &c).fail, "at the close edge");
    CHECK(fl_cmp_one(&d, kb + 1, rb, &c).fail, "one step past the close edge");
    /* close on binary16 values: 1 vs 1 + 2^-10 with rtol 2^-10 */
    c.atol = 0;
    CHECK(!fl_cmp_one(&h, 0x3c01, 0x3c00, &c).fail, "fp16 1 ulp at rtol 2^-10");
    CHECK(fl_cmp_one(&h, 0x3c02, 0x3c00, &c).fail, "fp16 2 ulp past rtol 2^-10");
}

static void test_list(void)
{
    plant p;
    make_plant(&p, "binary16", 2);
    fl_cmp_tol u = {FL_CMP_TOL_ULP, 1, 0, 0, 0, 0};
    uint64_t idx[64], want[64];
    size_t got = fl_cmp_list(&p.f, 2, p.k, p.r, p.n, &u, 1, 0, idx, 64);
    size_t nw = 0;
    for (size_t i = 0; i < p.n && nw < 64; i++)
        if (fl_cmp_one(&p.f, get(&p, p.k, i), get(&p, p.r, i), &u).fail)
            want[nw++] = i;
    CHECK(got == nw && !memcmp(idx, want, got * sizeof *idx), "failure list");
    got = fl_cmp_list(&p.f, 2, p.k, p.r, p.n, &u, 0, 0, idx, 64);
    nw = 0;
    for (size_t i = 0; i < p.n && nw < 64; i++)
        if (get(&p, p.k, i) != get(&p, p.r, i))
            want[nw++] = i;
    CHECK(got == nw && !memcmp(idx, want, got * sizeof *idx), "difference list");
    free(p.k);
    free(p.r);
}

static void test_grid(void)
{
    for (int batched = 0; batched < 2; batched++) {
        size_t B = batched ? 3 : 1, M = 128, N = 256, n = B * M * N;
        uint16_t *k = malloc(n * 2), *r = malloc(n * 2);
        for (size_t i = 0; i < n; i++)
            k[i] = r[i] = (uint16_t)(0x3000 + (rnd() & 0x3ff));
        size_t b0 = batched ? 2 : 0;
        for (size_t i = 32; i < 48; i++)
            for (size_t j = 128; j < 144; j++)
                k[(b0 * M + i) * N + j]++;
        k[(b0 * M + 100) * N + 7] = 0x7e00;   /* a NaN at (100, 7) */
        fl_cmp_grid g;
        fl_cmp_tol ex = {FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0};
        int rc = fl_cmp_grid_run(&g, &fl_binary16, 2, k, r, &ex, B, M, N, 0, 0, 16, 16);
        CHECK(rc == 0 && g.cells_r == 16 && g.cells_c == 32 && g.cell_h == 8 &&
              g.cell_w == 8, "grid shape %zu x %zu", g.cells_r, g.cells_c);
        if (rc)
            continue;
        int ok = 1;
        for (size_t i = 0; i < M; i++)
            ok &= g.row_diff[i] == (i >= 32 && i < 48 ? 16u : i == 100 ? 1u : 0u);
        for (size_t j = 0; j < N; j++)
            ok &= g.col_diff[j] == (j >= 128 && j < 144 ? 16u : j == 7 ? 1u : 0u);
        CHECK(ok, "row/column counts");
        ok = 1;
        for (size_t t = 0; t < g.tiles_r * g.tiles_c; t++) {
            size_t tr = t / g.tiles_c, tc = t % g.tiles_c;
            uint64_t want = tr == 2 && tc == 8 ? 256 : tr == 6 && tc == 0 ? 1 : 0;
            ok &= g.tile_diff[t] == want;
        }
        CHECK(ok && g.tile_max[2 * g.tiles_c + 8] == 1 &&
              g.tile_max[6 * g.tiles_c] == FL_CMP_MAX_NONFINITE, "tile counts");
        ok = 1;
        for (size_t q = 0; q < 256; q++)
            ok &= g.pos_diff[q] == 1 + (q == 4 * 16 + 7);
        CHECK(ok, "positions inside tiles");
        CHECK(g.batch_diff[b0] == 257 && (B == 1 || g.batch_diff[0] == 0),
              "batch counts");
        uint64_t cells = 0;
        for (size_t c = 0; c < g.cells_r * g.cells_c; c++)
            cells += g.cell_n[c];
        CHECK(cells == n, "cells cover %llu of %zu", (unsigned long long)cells, n);
        fl_cmp_grid_free(&g);
        free(k);
        free(r);
    }
}

typedef struct mat { const double *a; size_t rows, cols; } mat;
static double at_a(const void *c, size_t b, size_t i, size_t k)
{
    const mat *m = c;
    (void)b;
    return m->a[i * m->cols + k];
}
static double at_b(const void *c, size_t b, size_t k, size_t j)
{
    const mat *m = c;
    (void)b;
    return m->a[k * m->cols + j];
}

static void test_kblocks(void)
{
    size_t M = 40, N = 30, K = 64, kb = 16, nb = 4;
    double *A = malloc(M * K * 8), *B = malloc(K * N * 8);
    for (size_t i = 0; i < M * K; i++)
        A[i] = (double)(int64_t)(rnd() % 2001 - 1000) / 512;
    for (size_t i = 0; i < K * N; i++)
        B[i] = (double)(int64_t)(rnd() % 2001 - 1000) / 512;
    mat ma = {A, M, K}, mb = {B, K, N};
    size_t ns = M * N, *sb = calloc(ns, sizeof *sb), *si = malloc(ns * sizeof *si),
           *sj = malloc(ns * sizeof *sj);
    double *e = malloc(ns * 8), coef[4], share[4];
    for (size_t s = 0; s < ns; s++) {
        si[s] = s / N;
        sj[s] = s % N;
        double p = 0;
        for (size_t k = 32; k < 48; k++)
            p += A[si[s] * K + k] * B[k * N + sj[s]];
        e[s] = -p;   /* block 2 dropped */
    }
    fl_cmp_kblocks(at_a, &ma, at_b, &mb, K, kb, ns, sb, si, sj, e, coef, share);
    CHECK(fabs(coef[2] + 1) < 1e-12 && share[2] > 0.999999, "dropped block: "
          "coef %g share %g", coef[2], share[2]);
    CHECK(share[0] < 0.05 && share[1] < 0.05 && share[3] < 0.05, "other blocks "
          "%g %g %g", share[0], share[1], share[3]);
    for (size_t s = 0; s < ns; s++)
        e[s] = ((double)(rnd() % 3) - 1) * 0x1p-20;   /* rounding-like noise */
    fl_cmp_kblocks(at_a, &ma, at_b, &mb, K, kb, ns, sb, si, sj, e, coef, share);
    int small = 1;
    for (size_t q = 0; q < nb; q++)
        small &= share[q] < 0.05;
    CHECK(small, "noise explained by a block");
    free(A); free(B); free(sb); free(si); free(sj); free(e);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_relerr(void)
{
    size_t n = 50000;
    float *v = malloc(n * 4), *t = malloc(n * 4);
    double *rel = malloc(n * 8);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        t[i] = (float)((double)(rnd() % 100000 + 1) / 1024.0);
        uint32_t b;
        memcpy(&b, &t[i], 4);
        b += (uint32_t)(rnd() % 5);   /* 0..4 ulps above */
        memcpy(&v[i], &b, 4);
        if (i % 1000 == 7)
            t[i] = 0, v[i] = 0;          /* exact zero: error 0 */
        if (i % 1000 == 8)
            t[i] = 0, v[i] = 1;          /* left out: zero truth */
        if (i % 1000 == 9)
            v[i] = INFINITY;             /* left out: nonfinite */
        if (i % 1000 == 8 || i % 1000 == 9)
            continue;
        rel[m++] = t[i] == 0 ? 0 : fabs((double)v[i] - (double)t[i]) / fabs((double)t[i]);
    }
    fl_cmp_relerr s;
    fl_cmp_relerr_run(&s, &fl_binary32, 4, v, &fl_binary32, 4, t, n);
    qsort(rel, m, 8, cmp_d);
    double sum = 0;
    for (size_t i = 0; i < m; i++)
        sum += rel[i];
    CHECK(s.count == m && s.zero_truth == n / 1000 && s.nonfinite == n / 1000,
          "relerr counts %llu %llu %llu", (unsigned long long)s.count,
          (unsigned long long)s.zero_truth, (unsigned long long)s.nonfinite);
    CHECK(s.max == rel[m - 1], "max %g vs %g", s.max, rel[m - 1]);
    CHECK(fabs(s.mean - sum / (double)m) <= 1e-12 * s.mean, "mean");
    size_t k50 = (size_t)ceil(0.5 * (double)m), k90 = (size_t)ceil(0.9 * (double)m),
           k99 = (size_t)ceil(0.99 * (double)m);
    CHECK(s.median == rel[k50 - 1] && s.p90 == rel[k90 - 1] && s.p99 == rel[k99 - 1],
          "percentiles %a %a %a vs %a %a %a", s.median, s.p90, s.p99,
          rel[k50 - 1], rel[k90 - 1], rel[k99 - 1]);
    /* truth in another format: binary64 */
    double *td = malloc(n * 8);
    for (size_t i = 0; i < n; i++)
        td[i] = t[i];
    fl_cmp_relerr s2;
    fl_cmp_relerr_run(&s2, &fl_binary32, 4, v, &fl_binary64, 8, td, n);
    CHECK(s2.count == s.count && s2.max == s.max && s2.median == s.median,
          "binary64 truth");
    free(v); free(t); free(rel); free(td);
}

int main(void)
{
    rng_state = tc_seed_fixed("test_compare", 11);
    test_buckets();
    test_distance_exhaustive();
    test_planted();
    test_threads();
    test_dense();
    test_edges();
    test_list();
    test_grid();
    test_kblocks();
    test_relerr();
    return tc_finish("test_compare", 236);
}
