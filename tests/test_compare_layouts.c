/*
 * test_compare_layouts.c — the verdict library (fplab/compare.h) on every
 * layout fplab has, judged against the core's own reading of the codes.
 *
 * The oracle knows nothing of bit layouts: an element's class is
 * fl_classify's, and a code's position on the number line (its rank) is
 * the order of fl_to_double's values, distinct values counted once (+0
 * and -0 are one point), checked against the core's nextUp (the rank of
 * nextUp(x) is rank(x) + 1).  The ulp distance is the difference of ranks.
 *
 * Formats: every preset, the P3109 family for K = 2..8 (both signs, both
 * domains, every P fplab accepts) and a few wider members up to K = 16,
 * and formats declared without subnormals (their subnormal codes read as
 * zeros).  For each
 *   1. the documented special codes (docs/formats.md) as fl_cmp_one sees
 *      them: NaN, infinities, the largest finite, zeros;
 *   2. fl_cmp_one on every pair of codes (width <= 8; wider: every code
 *      against a few partners) against the oracle, under five tolerances:
 *      class, failure, bit-identity and distance;
 *   3. fl_cmp_arrays on arrays built to take every path of the scan
 *      (identical blocks with NaNs, blocks with few differences, blocks of
 *      neighbours, across zero, far apart, random codes, a short tail), in
 *      every storage width with random bits above the format's width:
 *      every count, the histogram, the largest distance and its index,
 *      the first failure, NaN and infinity disagreement; fl_cmp_list and
 *      the GEMM grid's totals; the relative error's left-out count;
 *   4. the histogram across zero: each finite code against its j-th
 *      nextUp (j = 1, 2, 3) lands in bucket j, none elsewhere;
 *   5. the report refuses two arrays of formats with the same widths but
 *      other codes (bias, domain).
 * Seeded (5, printed; FPLAB_TEST_SEED replays another); every check is
 * counted and the count asserted.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/compare.h"
#include "test_common.h"

#define NONE UINT64_MAX

static uint64_t rng_state;
static uint64_t rnd(void)
{
    return tc_splitmix(&rng_state);
}

/* ---------------------------------------------------------------------
 * The formats.
 * ------------------------------------------------------------------- */

#define MAXF 400
static fl_format fmts[MAXF];
static int nfmts;

/* A format by name (parsed into a store of its own: the documented codes
 * name more formats than tc_fmt keeps). */
static const fl_format *lfmt(const char *spec)
{
    static fl_format store[64];
    static const char *names[64];
    static int used;
    char err[128];
    for (int i = 0; i < used; i++)
        if (!strcmp(names[i], spec))
            return &store[i];
    if (used < 64 && fl_format_parse(&store[used], spec, err, sizeof err) == 0) {
        names[used] = spec;
        return &store[used++];
    }
    fprintf(stderr, "format %s: %s\n", spec, used < 64 ? err : "store full");
    exit(2);
}

static void add_format(const fl_format *f)
{
    if (nfmts < MAXF)
        fmts[nfmts++] = *f;
}

static void collect_formats(void)
{
    char err[256];
    for (size_t i = 0; i < fl_format_preset_count(); i++)
        add_format(fl_format_preset(i));
    int p3109 = 0;
    for (int k = 2; k <= 8; k++)
        for (int s = 0; s <= 1; s++)
            for (int e = 0; e <= 1; e++)
                for (int p = 1; p <= k; p++) {
                    fl_format f;
                    if (fl_format_p3109(&f, k, p, s, e, err, sizeof err) == 0) {
                        add_format(&f);
                        p3109++;
                    }
                }
    static const int wide[][4] = {   /* K, P, signed, extended */
        {10, 3, 0, 1}, {12, 5, 1, 0}, {16, 8, 1, 1}, {16, 11, 0, 1},
        {16, 7, 0, 0}, {16, 9, 1, 0},
    };
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        fl_format f;
        int rc = fl_format_p3109(&f, wide[i][0], wide[i][1], wide[i][2],
                                 wide[i][3], err, sizeof err);
        CHECK(rc == 0, "p3109 K=%d P=%d: %s", wide[i][0], wide[i][1], err);
        if (rc == 0)
            add_format(&f);
    }
    /* without subnormals: the codes with exponent field 0 are zeros */
    static const struct { const char *n; int style, sgn; } nosub[] = {
        {"ieee-e4m3-nosub", FL_NANSTYLE_IEEE, 1},
        {"fn-e4m3-nosub", FL_NANSTYLE_FN, 1},
        {"fnuz-e4m3-nosub", FL_NANSTYLE_FNUZ, 1},
        {"finite-e3m2-nosub-unsigned", FL_NANSTYLE_FINITE, 0},
    };
    for (size_t i = 0; i < sizeof nosub / sizeof nosub[0]; i++) {
        fl_format_params q = {.ebits = 4, .prec = 4, .bias = FL_BIAS_IEEE,
                              .nan_style = nosub[i].style,
                              .is_signed = nosub[i].sgn, .has_zero = 1,
                              .subnormals = 0, .saturate = 0};
        if (!nosub[i].sgn)
            q.ebits = 3, q.prec = 3;
        fl_format f;
        int rc = fl_format_define(&f, nosub[i].n, &q, err, sizeof err);
        CHECK(rc == 0, "%s: %s", nosub[i].n, err);
        if (rc == 0)
            add_format(&f);
    }
    /* K = 2..8: (2K - 1) signed + unsigned precisions per domain, less the
     * ones fplab refuses (no normal number besides the specials, or no
     * exponent bit) */
    CHECK(p3109 >= 90, "p3109 family members %d", p3109);
    printf("test_compare_layouts: %d formats (%d of the P3109 family, K <= 8)\n",
           nfmts, p3109);
}

/* ---------------------------------------------------------------------
 * The oracle: fl_classify and the order of the values.
 * ------------------------------------------------------------------- */

typedef struct lay {
    const fl_format *f;
    uint64_t ncodes, wmask;
    uint8_t *cls;          /* fl_class of each code */
    int64_t *rank;         /* position among distinct values; -1: NaN */
    double *val;
    uint64_t *fin;         /* finite codes by value */
    size_t nfin;
    size_t zero_at;        /* index in fin of the smallest |value| */
} lay;

static const lay *sort_lay;
static int by_value(const void *a, const void *b)
{
    double x = sort_lay->val[*(const uint64_t *)a];
    double y = sort_lay->val[*(const uint64_t *)b];
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return x < y ? -1 : x > y ? 1 : p < q ? -1 : p > q;
}

static int is_nan_k(int k)
{
    return k == FL_CLASS_SNAN || k == FL_CLASS_QNAN;
}

static int is_inf_k(int k)
{
    return k == FL_CLASS_NEG_INF || k == FL_CLASS_POS_INF;
}

static int is_zero_k(int k)
{
    return k == FL_CLASS_NEG_ZERO || k == FL_CLASS_POS_ZERO;
}

static void lay_build(lay *L, const fl_format *f)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->ncodes = (uint64_t)1 << f->width;
    L->wmask = L->ncodes - 1;
    L->cls = malloc(L->ncodes);
    L->rank = malloc(L->ncodes * sizeof *L->rank);
    L->val = malloc(L->ncodes * sizeof *L->val);
    uint64_t *order = malloc(L->ncodes * sizeof *order);
    L->fin = malloc(L->ncodes * sizeof *L->fin);
    size_t m = 0;
    for (uint64_t x = 0; x < L->ncodes; x++) {
        L->cls[x] = (uint8_t)fl_classify(f, x);
        L->rank[x] = -1;
        if (!is_nan_k(L->cls[x])) {
            L->val[x] = fl_to_double(f, x);
            order[m++] = x;
        }
    }
    sort_lay = L;
    qsort(order, m, sizeof *order, by_value);
    int64_t r = -1;
    double az = INFINITY;
    for (size_t i = 0; i < m; i++) {
        uint64_t x = order[i];
        if (i == 0 || L->val[x] != L->val[order[i - 1]])
            r++;
        L->rank[x] = r;
        if (!is_inf_k(L->cls[x])) {
            if (fabs(L->val[x]) < az) {
                az = fabs(L->val[x]);
                L->zero_at = L->nfin;
            }
            L->fin[L->nfin++] = x;
        }
    }
    free(order);
    /* the ranks are nextUp steps: the core's neighbour is one rank up */
    fl_ctx c = FL_CTX_INIT;
    int bad = 0;
    long n = 0;
    for (uint64_t x = 0; x < L->ncodes; x++) {
        if (L->rank[x] < 0 || L->rank[x] == r)
            continue;
        unsigned fl = 0;
        uint64_t u = fl_next_up(f, x, &c, &fl) & L->wmask;
        n++;
        if (L->rank[u] != L->rank[x] + 1 && bad++ < 3)
            fprintf(stderr, "  %s: nextUp(0x%llx) = 0x%llx: rank %lld after "
                    "%lld\n", f->name, (unsigned long long)x,
                    (unsigned long long)u, (long long)L->rank[u],
                    (long long)L->rank[x]);
    }
    CHECK(bad == 0 && n > 0, "%s: %d of %ld nextUp steps are not one rank",
          f->name, bad, n);
}

static void lay_free(lay *L)
{
    free(L->cls);
    free(L->rank);
    free(L->val);
    free(L->fin);
}

/* The expected element: the classes of compare.h from fl_classify. */
static fl_cmp_elem oracle(const lay *L, uint64_t k, uint64_t r,
                          const fl_cmp_tol *t, int *zero_sign)
{
    fl_cmp_elem e = {FL_CMP_EL_VALUE, 0, 0, 0};
    k &= L->wmask;
    r &= L->wmask;
    int ck = L->cls[k], cr = L->cls[r];
    e.identical = k == r;
    *zero_sign = 0;
    if (is_nan_k(ck) || is_nan_k(cr)) {
        e.cls = is_nan_k(ck) && is_nan_k(cr) ? FL_CMP_EL_NAN_BOTH
              : is_nan_k(ck) ? FL_CMP_EL_NAN_KERNEL : FL_CMP_EL_NAN_REF;
        e.fail = e.cls != FL_CMP_EL_NAN_BOTH || (t->nan_payload && k != r);
        return e;
    }
    if (k == r)
        return e;
    if (is_inf_k(ck) || is_inf_k(cr)) {
        e.cls = FL_CMP_EL_INF;
        e.fail = 1;
        return e;
    }
    int64_t d = L->rank[k] - L->rank[r];
    e.ulp = (uint64_t)(d < 0 ? -d : d);
    *zero_sign = is_zero_k(ck) && is_zero_k(cr) && ck != cr;
    int zfail = *zero_sign && t->zero_sign;
    switch (t->kind) {
    case FL_CMP_TOL_EXACT:
        e.fail = 1;
        break;
    case FL_CMP_TOL_ULP:
        e.fail = e.ulp > t->ulp || zfail;
        break;
    default: {
        double kv = L->val[k], rv = L->val[r];
        double err = fabs(kv - rv), allowed = t->atol + fabs(t->rtol * rv);
        e.fail = !(err <= allowed) || zfail;
        break;
    }
    }
    return e;
}

static const fl_cmp_tol tols[] = {
    {FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0},
    {FL_CMP_TOL_EXACT, 0, 0, 0, 1, 0},
    {FL_CMP_TOL_ULP, 2, 0, 0, 0, 0},
    {FL_CMP_TOL_ULP, 2, 0, 0, 0, 1},
    {FL_CMP_TOL_CLOSE, 0, 0.25, 0, 0, 0},
    {FL_CMP_TOL_CLOSE, 0, 0, 0, 0, 1},
};
#define NTOL (sizeof tols / sizeof tols[0])

/* ---------------------------------------------------------------------
 * 1. The documented codes.
 * ------------------------------------------------------------------- */

typedef struct spec_code {
    const char *fmt;
    uint64_t code;
    int what;   /* 0 NaN, 1 +inf, 2 -inf, 3 finite, 4 zero */
} spec_code;

static void test_documented_codes(void)
{
    static const spec_code t[] = {
        {"p3109:p3", 0x80, 0}, {"p3109:p3", 0x7f, 1}, {"p3109:p3", 0xff, 2},
        {"p3109:p3", 0x7e, 3}, {"p3109:p3", 0x7c, 3}, {"p3109:p3", 0x00, 4},
        {"p3109:p1", 0x80, 0}, {"p3109:p1", 0x7f, 1}, {"p3109:p1", 0x7e, 3},
        {"p3109_k8p3ue", 0xff, 0}, {"p3109_k8p3ue", 0xfe, 1},
        {"p3109_k8p3ue", 0xfd, 3}, {"p3109_k8p3ue", 0x80, 3},
        {"p3109_k8p3sf", 0x80, 0}, {"p3109_k8p3sf", 0x7f, 3},
        {"p3109_k8p3sf", 0xff, 3},
        {"p3109_k8p3uf", 0xff, 0}, {"p3109_k8p3uf", 0xfe, 3},
        {"p3109_k6p4se", 0x20, 0}, {"p3109_k6p4se", 0x1f, 1},
        {"p3109_k6p4se", 0x3f, 2},
        {"float8_e4m3fnuz", 0x80, 0}, {"float8_e4m3fnuz", 0x7f, 3},
        {"float8_e4m3fnuz", 0xff, 3}, {"float8_e4m3fnuz", 0x00, 4},
        {"float8_e5m2fnuz", 0x80, 0}, {"float8_e5m2fnuz", 0x7c, 3},
        {"float8_e5m2fnuz", 0xfc, 3},
        {"float8_e4m3fn", 0x7f, 0}, {"float8_e4m3fn", 0xff, 0},
        {"float8_e4m3fn", 0x7e, 3}, {"float8_e4m3fn", 0x78, 3},
        {"float8_e4m3fn", 0x80, 4},
        {"float8_e8m0fnu", 0xff, 0}, {"float8_e8m0fnu", 0x00, 3},
        {"float8_e8m0fnu", 0xfe, 3}, {"float8_e8m0fnu", 0x80, 3},
        {"float6_e2m3fn", 0x1f, 3}, {"float6_e2m3fn", 0x3f, 3},
        {"float6_e2m3fn", 0x20, 4},
        {"float6_e3m2fn", 0x1f, 3}, {"float6_e3m2fn", 0x3c, 3},
        {"float4_e2m1fn", 0x7, 3}, {"float4_e2m1fn", 0xf, 3},
        {"float4_e2m1fn", 0x8, 4},
        {"fp8-e5m2", 0x7c, 1}, {"fp8-e5m2", 0xfc, 2}, {"fp8-e5m2", 0x7e, 0},
    };
    static const char *words[] = {"NaN", "+inf", "-inf", "finite", "zero"};
    const fl_cmp_tol ex = {FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const fl_format *f = lfmt(t[i].fmt);
        /* against a finite partner 0x01 (a finite code in every format
         * here), and against itself */
        fl_cmp_elem a = fl_cmp_one(f, t[i].code, 0x01, &ex);
        fl_cmp_elem b = fl_cmp_one(f, t[i].code, t[i].code, &ex);
        int got;
        if (a.cls == FL_CMP_EL_NAN_KERNEL && b.cls == FL_CMP_EL_NAN_BOTH)
            got = 0;
        else if (a.cls == FL_CMP_EL_INF && b.cls == FL_CMP_EL_VALUE)
            got = t[i].code & f->sign_mask ? 2 : 1;
        else if (a.cls == FL_CMP_EL_VALUE && b.cls == FL_CMP_EL_VALUE)
            got = fl_cmp_one(f, t[i].code, 0x00, &ex).ulp == 0 &&
                  fl_to_double(f, t[i].code) == 0 ? 4 : 3;
        else
            got = -1;
        CHECK(got == t[i].what && b.identical && !b.fail, "%s 0x%02llx: %s, "
              "documented %s", t[i].fmt, (unsigned long long)t[i].code,
              got < 0 ? "no class" : words[got], words[t[i].what]);
    }
    /* the distances the layouts make different (docs/formats.md) */
    static const struct { const char *fmt; uint64_t a, b, d; } dd[] = {
        {"float8_e4m3fnuz", 0x01, 0x81, 2},   /* +-min, 0 between */
        {"float8_e4m3fnuz", 0x00, 0x81, 1},
        {"float8_e4m3fnuz", 0x7f, 0xff, 2 * 0x7f},
        {"p3109:p3", 0x01, 0x81, 2}, {"p3109:p3", 0x7e, 0x7f, 1},
        {"p3109:p3", 0xff, 0x7f, 2 * 0x7f},
        {"p3109_k8p3ue", 0x00, 0xfe, 0xfe}, {"p3109_k8p3ue", 0xfd, 0xfe, 1},
        {"p3109_k8p3sf", 0x7f, 0xff, 2 * 0x7f},
        {"float8_e8m0fnu", 0x00, 0x01, 1}, {"float8_e8m0fnu", 0x00, 0xfe, 0xfe},
        {"float8_e4m3fn", 0x80, 0x00, 0}, {"float8_e4m3fn", 0x01, 0x81, 2},
        {"float4_e2m1fn", 0x1, 0x9, 2}, {"float4_e2m1fn", 0x7, 0xf, 14},
        {"float6_e3m2fn", 0x00, 0x20, 0},
    };
    const fl_cmp_tol big = {FL_CMP_TOL_ULP, 1000, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof dd / sizeof dd[0]; i++) {
        const fl_format *f = lfmt(dd[i].fmt);
        fl_cmp_elem e = fl_cmp_one(f, dd[i].a, dd[i].b, &big);
        /* an infinity against anything else has a distance (the
         * function's) but is a disagreement (the element's class) */
        int inf = fl_is_inf(f, dd[i].a) || fl_is_inf(f, dd[i].b);
        int cls_ok = inf ? e.cls == FL_CMP_EL_INF && e.fail
                         : e.cls == FL_CMP_EL_VALUE && e.ulp == dd[i].d && !e.fail;
        CHECK(cls_ok &&
              fl_cmp_ulp_distance(f, dd[i].a, dd[i].b) == dd[i].d,
              "%s: d(0x%02llx, 0x%02llx) = %llu (class %d; fl_cmp_ulp_distance "
              "%llu), want %llu", dd[i].fmt, (unsigned long long)dd[i].a,
              (unsigned long long)dd[i].b, (unsigned long long)e.ulp, e.cls,
              (unsigned long long)fl_cmp_ulp_distance(f, dd[i].a, dd[i].b),
              (unsigned long long)dd[i].d);
    }
    /* in fnuz and signed P3109, 0x00 vs 0x80 is a number vs the NaN, not
     * +0 vs -0 */
    const fl_cmp_tol u = {FL_CMP_TOL_ULP, 5, 0, 0, 0, 0};
    static const char *nz[] = {"float8_e4m3fnuz", "float8_e5m2fnuz", "p3109:p4",
                               "p3109_k8p2sf"};
    for (size_t i = 0; i < 4; i++) {
        fl_cmp_elem e = fl_cmp_one(lfmt(nz[i]), 0x00, 0x80, &u);
        CHECK(e.cls == FL_CMP_EL_NAN_REF && e.fail, "%s: 0x00 vs 0x80: class %d "
              "fail %d, want NaN in the reference, failing", nz[i], e.cls, e.fail);
    }
}

/* ---------------------------------------------------------------------
 * 2. Every pair.
 * ------------------------------------------------------------------- */

static long pair_cases;

static int same_elem(fl_cmp_elem a, fl_cmp_elem b)
{
    return a.cls == b.cls && a.fail == b.fail && a.identical == b.identical &&
           (a.cls != FL_CMP_EL_VALUE || a.ulp == b.ulp);
}

static int check_pair(const lay *L, uint64_t k, uint64_t r, int *bad)
{
    int ok = 1;
    for (size_t t = 0; t < NTOL; t++) {
        int zs;
        fl_cmp_elem want = oracle(L, k, r, &tols[t], &zs);
        fl_cmp_elem got = fl_cmp_one(L->f, k, r, &tols[t]);
        pair_cases++;
        if (!same_elem(want, got)) {
            ok = 0;
            if ((*bad)++ < 4)
                fprintf(stderr, "  %s tol %zu: (0x%llx, 0x%llx): class %d fail %d "
                        "ident %d ulp %llu; want %d %d %d %llu\n", L->f->name, t,
                        (unsigned long long)k, (unsigned long long)r, got.cls,
                        got.fail, got.identical, (unsigned long long)got.ulp,
                        want.cls, want.fail, want.identical,
                        (unsigned long long)want.ulp);
        }
    }
    if (L->rank[k & L->wmask] >= 0 && L->rank[r & L->wmask] >= 0 &&
        !is_inf_k(L->cls[k & L->wmask]) && !is_inf_k(L->cls[r & L->wmask])) {
        int64_t d = L->rank[k & L->wmask] - L->rank[r & L->wmask];
        ok &= fl_cmp_ulp_distance(L->f, k, r) == (uint64_t)(d < 0 ? -d : d);
    }
    return ok;
}

static void test_pairs(const lay *L)
{
    int bad = 0;
    if (L->f->width <= 8) {
        for (uint64_t k = 0; k < L->ncodes; k++)
            for (uint64_t r = 0; r < L->ncodes; r++)
                check_pair(L, k, r, &bad);
    } else {
        for (uint64_t k = 0; k < L->ncodes; k++) {
            uint64_t part[6] = {k, k ^ 1, (k + 3) & L->wmask, k ^ L->f->sign_mask,
                                0, rnd() & L->wmask};
            for (int q = 0; q < 6; q++)
                check_pair(L, k, part[q], &bad);
        }
    }
    CHECK(bad == 0, "%s: %d pairs differ from the oracle", L->f->name, bad);
}

/* ---------------------------------------------------------------------
 * 3. Arrays through every path of the scan.
 * ------------------------------------------------------------------- */

static uint64_t any_code(const lay *L)
{
    return rnd() & L->wmask;
}

static uint64_t fin_near(const lay *L, size_t i, int spread)
{
    long j = (long)i + (long)(rnd() % (uint64_t)(2 * spread + 1)) - spread;
    if (j < 0)
        j = 0;
    if (j >= (long)L->nfin)
        j = (long)L->nfin - 1;
    return L->fin[j];
}

#define BLK 64
#define NBLK 56
#define NARR (BLK * NBLK + 37)

static void fill(const lay *L, uint64_t *k, uint64_t *r)
{
    for (size_t i = 0; i < NARR; i++) {
        int kind = (int)((i / BLK) % 8);
        size_t fi = (size_t)(rnd() % L->nfin);
        switch (kind) {
        case 0:   /* identical, any code (NaNs and infinities too) */
            k[i] = r[i] = any_code(L);
            break;
        case 1:   /* identical finite */
            k[i] = r[i] = L->fin[fi];
            break;
        case 2:   /* a few differences among any codes */
            k[i] = r[i] = any_code(L);
            if (i % BLK % 23 == 5)
                k[i] = any_code(L);
            break;
        case 3:   /* neighbours */
            r[i] = L->fin[fi];
            k[i] = fin_near(L, fi, 3);
            break;
        case 4:   /* across zero */
            r[i] = fin_near(L, L->zero_at, 4);
            k[i] = fin_near(L, L->zero_at, 4);
            break;
        case 5:   /* far apart, finite */
            r[i] = L->fin[fi];
            k[i] = L->fin[rnd() % L->nfin];
            break;
        case 6:   /* neighbours, now and then a special */
            r[i] = L->fin[fi];
            k[i] = i % 17 == 3 ? any_code(L) : fin_near(L, fi, 1);
            break;
        default:  /* anything */
            k[i] = any_code(L);
            r[i] = any_code(L);
            break;
        }
    }
}

/* The expected statistics, element by element. */
static void expect(const lay *L, const uint64_t *k, const uint64_t *r, size_t n,
                   const fl_cmp_tol *t, fl_cmp_stats *s)
{
    memset(s, 0, sizeof *s);
    s->max_ulp_index = s->first_fail = s->first_nan = s->first_inf = NONE;
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        int zs;
        fl_cmp_elem e = oracle(L, k[i], r[i], t, &zs);
        s->identical += (uint64_t)e.identical;
        if (e.fail) {
            s->fail++;
            if (s->first_fail == NONE)
                s->first_fail = i;
        }
        switch (e.cls) {
        case FL_CMP_EL_VALUE:
            s->values++;
            s->hist[fl_cmp_bucket(e.ulp)]++;
            s->zero_sign += (uint64_t)zs;
            if (s->max_ulp_index == NONE || e.ulp > s->max_ulp) {
                s->max_ulp = e.ulp;
                s->max_ulp_index = i;
            }
            break;
        case FL_CMP_EL_NAN_BOTH:
            s->nan_both++;
            s->nan_payload += (uint64_t)!e.identical;
            break;
        case FL_CMP_EL_INF:
            s->inf++;
            if (s->first_inf == NONE)
                s->first_inf = i;
            break;
        default:
            s->nan_kernel += e.cls == FL_CMP_EL_NAN_KERNEL;
            s->nan_ref += e.cls == FL_CMP_EL_NAN_REF;
            if (s->first_nan == NONE)
                s->first_nan = i;
            break;
        }
    }
}

static int same_stats(const char *nm, const fl_cmp_stats *a, const fl_cmp_stats *b,
                      size_t esize, size_t t)
{
#define F(x) if (a->x != b->x) { fprintf(stderr, "  %s esize %zu tol %zu: " #x \
        " %llu, want %llu\n", nm, esize, t, (unsigned long long)a->x,         \
        (unsigned long long)b->x); return 0; }
    F(n) F(identical) F(nan_both) F(nan_payload) F(nan_kernel) F(nan_ref)
    F(inf) F(zero_sign) F(values) F(max_ulp) F(max_ulp_index) F(fail)
    F(first_fail) F(first_nan) F(first_inf)
#undef F
    for (int q = 0; q < FL_CMP_BUCKETS; q++)
        if (a->hist[q] != b->hist[q]) {
            fprintf(stderr, "  %s esize %zu tol %zu: hist[%d] %llu, want %llu\n",
                    nm, esize, t, q, (unsigned long long)a->hist[q],
                    (unsigned long long)b->hist[q]);
            return 0;
        }
    return 1;
}

static void store(void *dst, size_t esize, size_t i, uint64_t v)
{
    memcpy((char *)dst + i * esize, &v, esize);   /* little-endian host */
}

static long array_cases;

static void test_arrays(const lay *L)
{
    const fl_format *f = L->f;
    uint64_t *k = malloc(NARR * sizeof *k), *r = malloc(NARR * sizeof *r);
    fill(L, k, r);
    int ok = 1;
    for (size_t esize = 1; esize <= 8; esize *= 2) {
        if (esize * 8 < f->width)
            continue;
        void *kb = malloc(NARR * esize), *rb = malloc(NARR * esize);
        /* random bits above the width, which the comparison ignores */
        uint64_t above = esize * 8 > f->width ? ~L->wmask : 0;
        for (size_t i = 0; i < NARR; i++) {
            store(kb, esize, i, k[i] | (rnd() & above));
            store(rb, esize, i, r[i] | (i % BLK < 32 ? 0 : rnd() & above));
        }
        for (size_t t = 0; t < NTOL; t++) {
            fl_cmp_stats want, got;
            expect(L, k, r, NARR, &tols[t], &want);
            int rc = fl_cmp_arrays(&got, f, esize, kb, rb, NARR, &tols[t], 1);
            ok &= rc == 0 && same_stats(f->name, &got, &want, esize, t);
            array_cases++;
            /* the lists: first failures and first differences */
            uint64_t idx[8];
            size_t nf = fl_cmp_list(f, esize, kb, rb, NARR, &tols[t], 1, 0, idx, 8);
            ok &= (want.fail == 0) == (nf == 0) &&
                  (nf == 0 || idx[0] == want.first_fail);
            /* the grid's totals (one row per block) */
            fl_cmp_grid g;
            rc = fl_cmp_grid_run(&g, f, esize, kb, rb, &tols[t], 1, NARR, 1, 0,
                                 0, 0, 0);
            uint64_t gd = 0, gf = 0;
            for (size_t i = 0; rc == 0 && i < NARR; i++) {
                gd += g.row_diff[i];
                gf += g.row_fail[i];
            }
            if (!(rc == 0 && gd == NARR - want.identical && gf == want.fail)) {
                ok = 0;
                fprintf(stderr, "  %s esize %zu tol %zu: grid diff %llu fail %llu"
                        ", want %llu %llu\n", f->name, esize, t,
                        (unsigned long long)gd, (unsigned long long)gf,
                        (unsigned long long)(NARR - want.identical),
                        (unsigned long long)want.fail);
            }
            fl_cmp_grid_free(&g);
        }
        /* relative error: pairs with a NaN or an infinity are left out */
        uint64_t nonfin = 0;
        for (size_t i = 0; i < NARR; i++)
            nonfin += is_nan_k(L->cls[k[i]]) || is_inf_k(L->cls[k[i]]) ||
                      is_nan_k(L->cls[r[i]]) || is_inf_k(L->cls[r[i]]);
        fl_cmp_relerr re;
        fl_cmp_relerr_run(&re, f, esize, kb, f, esize, rb, NARR);
        if (!(re.nonfinite == nonfin &&
              re.count + re.nonfinite + re.zero_truth == NARR)) {
            ok = 0;
            fprintf(stderr, "  %s esize %zu: relerr left out %llu nonfinite, "
                    "want %llu\n", f->name, esize,
                    (unsigned long long)re.nonfinite, (unsigned long long)nonfin);
        }
        free(kb);
        free(rb);
    }
    CHECK(ok, "%s: array statistics differ from the oracle", f->name);
    free(k);
    free(r);
}

/* ---------------------------------------------------------------------
 * 4. The histogram across zero.
 * ------------------------------------------------------------------- */

static void test_hist_steps(const lay *L)
{
    const fl_format *f = L->f;
    fl_ctx c = FL_CTX_INIT;
    size_t n = L->nfin;
    uint64_t *k = malloc(n * 8), *r = malloc(n * 8);
    int ok = 1;
    for (unsigned j = 1; j <= 3; j++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = L->fin[i], y = x;
            unsigned fl = 0, s = 0;
            while (s < j) {
                uint64_t u = fl_next_up(f, y, &c, &fl) & L->wmask;
                if (is_nan_k(L->cls[u]) || u == y)
                    break;
                /* -0 to +0 is no step: the same point */
                s += L->rank[u] != L->rank[y];
                y = u;
            }
            if (s < j || is_inf_k(L->cls[y]))
                continue;
            r[m] = x;
            k[m++] = y;
        }
        fl_cmp_tol t = {FL_CMP_TOL_ULP, j, 0, 0, 0, 0};
        fl_cmp_stats s;
        fl_cmp_arrays(&s, f, 8, k, r, m, &t, 1);
        int b = fl_cmp_bucket(j);
        /* m == 0 only where there are no j + 1 finite values (K = 2) */
        ok &= s.hist[b] == m && s.values == m && s.fail == 0 &&
              (m > 0 || L->nfin <= j);
        t.ulp = j - 1;
        fl_cmp_arrays(&s, f, 8, k, r, m, &t, 1);
        ok &= s.fail == m;
        if (!ok) {
            fprintf(stderr, "  %s: %u nextUp steps: hist[%d] %llu of %zu, fail %llu\n",
                    f->name, j, b, (unsigned long long)s.hist[b], m,
                    (unsigned long long)s.fail);
            break;
        }
    }
    CHECK(ok, "%s: histogram of nextUp steps", f->name);
    free(k);
    free(r);
}

/* ---------------------------------------------------------------------
 * 5. The report compares formats by their codes.
 * ------------------------------------------------------------------- */

static void test_report_formats(void)
{
    static const char *pairs[][2] = {
        {"float8_e4m3fnuz", "float8_e4m3b11fnuz"},   /* bias */
        {"p3109_k8p3se", "p3109_k8p3sf"},            /* domain */
        {"p3109_k8p4ue", "float8_e5m3fnu"},          /* style */
    };
    uint8_t a[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < 3; i++) {
        fl_cmp_tensor k = {*lfmt(pairs[i][0]), 1, a, 1, {4}, "k", "uint8", 1};
        fl_cmp_tensor r = {*lfmt(pairs[i][1]), 1, a, 1, {4}, "r", "uint8", 1};
        fl_cmp_report *rep = NULL;
        char err[512] = "";
        int rc = fl_cmp_report_run(&rep, &k, &r, NULL, 0, NULL, NULL, err,
                                   sizeof err);
        CHECK(rc == -1 && rep == NULL && strstr(err, k.f.name) &&
              strstr(err, r.f.name), "%s vs %s: rc %d, '%s'", pairs[i][0],
              pairs[i][1], rc, err);
        fl_cmp_report_free(rep);
        r.f = *lfmt(pairs[i][0]);
        rc = fl_cmp_report_run(&rep, &k, &r, NULL, 0, NULL, NULL, err, sizeof err);
        CHECK(rc == 0 && fl_cmp_report_pass(rep), "%s vs itself: %s",
              pairs[i][0], err);
        fl_cmp_report_free(rep);
    }
}

int main(void)
{
    rng_state = tc_seed_fixed("test_compare_layouts", 5);
    collect_formats();
    test_documented_codes();
    int ran = 0, small = 0, wide = 0;
    for (int i = 0; i < nfmts; i++) {
        if (fmts[i].width > 16) {
            wide++;   /* binary32, tf32, binary64: test_compare's */
            continue;
        }
        lay L;
        lay_build(&L, &fmts[i]);
        test_pairs(&L);
        test_arrays(&L);
        test_hist_steps(&L);
        lay_free(&L);
        ran++;
        small += fmts[i].width <= 8;
    }
    test_report_formats();
    printf("test_compare_layouts: %d formats of <= 16 bits (%d of <= 8), %ld "
           "element cases, %ld array comparisons\n", ran, small, pair_cases,
           array_cases);
    CHECK(ran == nfmts - wide && wide >= 3 && ran >= 156 && small >= 148,
          "formats judged %d of %d (%d of <= 8 bits)", ran, nfmts, small);
    /* 86 fixed checks (formats 11, documented codes 68, report 6, this
     * one) and 4 per format judged (ranks, pairs, arrays, histogram): a
     * preset added later adds its 4 */
    return tc_finish("test_compare_layouts", 86 + 4 * ran);
}
