/*
 * fprev.c — the summation tree of an output element, revealed from the
 * outside (FPRev: Xie, Gao, Xue 2024).
 *
 * The probe for a pair of positions (i, j): term i is +M, term j is -M,
 * every other term is u, with M/u so large that any partial sum of up to
 * n u's added to +-M is absorbed (rounds back to +-M) in the accumulator.
 * Going up the tree, every u that meets +M or -M before they meet each
 * other disappears; at the node where i and j meet, +M + -M = 0 exactly;
 * every u outside that node survives.  So the result is u times
 * (n - l(i,j)), l(i,j) being the number of terms under the lowest common
 * ancestor of i and j.  A block FMA (several products added in one
 * operation, aligned to the largest) truncates the u's of its own block
 * and the running sum it takes in, so it shows up the same way: a node
 * with more than two children.
 *
 * From the l values: all pairs of a group of terms (union-find by
 * increasing l: the components that merge at level l form one node of
 * size l; three or more at once form a fused node), or one pivot q
 * against the group (the distinct values of l(q, .) are the sizes of q's
 * ancestors; the terms with one value are the other children of that
 * ancestor, a group of the next round).  Each round is one batch of calls;
 * a round probes all pairs of the groups that fit the budget and pivots
 * the others (FPRev's adaptive schedule), so n = 256 takes one round.
 *
 * The scale: +-M and u are powers of two chosen for the input, output and
 * plausible accumulator formats (the widest ratio first).  Calibration
 * rows check the assumptions before any pair is trusted: n u's sum to
 * n*u exactly (no flushing), M and -M absorb n - 1 u's at either end, and
 * the two orientations of one pair agree.  Every l must then be an
 * integer in [2, n], consistent with one tree; the final tree is checked
 * against every observation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reveal_internal.h"

/* ------------------------------------------------------------------------
 * Observed l(i, j): open addressing, key (min, max) + 1.
 * ---------------------------------------------------------------------- */
typedef struct pmap {
    uint64_t *key;
    uint32_t *val;
    size_t cap, count;
} pmap;

static uint64_t pkey(size_t i, size_t j)
{
    if (i > j) {
        size_t t = i;
        i = j;
        j = t;
    }
    return (((uint64_t)i << 32) | (uint64_t)j) + 1;
}

static size_t phash(uint64_t k, size_t cap)
{
    k ^= k >> 31;
    k *= 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 17) & (cap - 1);
}

static int pmap_grow(pmap *m)
{
    size_t nc = m->cap ? 2 * m->cap : 1024;
    uint64_t *nk = calloc(nc, sizeof *nk);
    uint32_t *nv = calloc(nc, sizeof *nv);
    if (nk == NULL || nv == NULL) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i]) {
            size_t h = phash(m->key[i], nc);
            while (nk[h])
                h = (h + 1) & (nc - 1);
            nk[h] = m->key[i];
            nv[h] = m->val[i];
        }
    free(m->key);
    free(m->val);
    m->key = nk;
    m->val = nv;
    m->cap = nc;
    return 0;
}

/* 0 stored, 1 already there with the same value, -1 with another value
 * (*old set), -2 out of memory. */
static int pmap_put(pmap *m, size_t i, size_t j, uint32_t v, uint32_t *old)
{
    uint64_t k = pkey(i, j);
    size_t h;
    if (2 * (m->count + 1) > m->cap && pmap_grow(m) != 0)
        return -2;
    h = phash(k, m->cap);
    while (m->key[h]) {
        if (m->key[h] == k) {
            if (m->val[h] == v)
                return 1;
            *old = m->val[h];
            return -1;
        }
        h = (h + 1) & (m->cap - 1);
    }
    m->key[h] = k;
    m->val[h] = v;
    m->count++;
    return 0;
}

static int pmap_get(const pmap *m, size_t i, size_t j, uint32_t *v)
{
    uint64_t k = pkey(i, j);
    size_t h;
    if (m->cap == 0)
        return 0;
    h = phash(k, m->cap);
    while (m->key[h]) {
        if (m->key[h] == k) {
            *v = m->val[h];
            return 1;
        }
        h = (h + 1) & (m->cap - 1);
    }
    return 0;
}

static void pmap_free(pmap *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------
 * Scales and terms.
 * ---------------------------------------------------------------------- */
static int fmt_emin_sub(const fl_format *f)
{
    return f->subnormals ? f->emin - (f->prec - 1) : f->emin;
}

static int ceil_log2(size_t n)
{
    int k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

/* Split a product exponent e into two factor exponents in [lo, hi]. */
static int split2(int e, int lo, int hi, int *a, int *b)
{
    int x = e >= 0 ? (e + 1) / 2 : -((-e) / 2);   /* ceil(e/2) */
    int y = e - x;
    if (x > hi) {
        x = hi;
        y = e - x;
    }
    if (y < lo) {
        y = lo;
        x = e - y;
    }
    if (x < lo || x > hi || y < lo || y > hi)
        return -1;
    *a = x;
    *b = y;
    return 0;
}

/* The factors of a scale for products; gemm uses M = 2^a * 2^s (A big, B
 * small) and u = 2^s * 2^s: see rv_fprev. */
static int scale_factors(const rv *r, rv_scale *sc, int lo_in)
{
    int hi_in = r->in.emax;
    if (!r->prod)
        return sc->eM <= hi_in && sc->eu >= lo_in ? 0 : -1;
    if (r->o->op == FL_REF_OP_GEMM) {
        int s = sc->eu >= 0 ? (sc->eu + 1) / 2 : -((-sc->eu) / 2);
        if (s < lo_in)
            s = lo_in;
        sc->eu = 2 * s;
        sc->au = sc->bu = s;
        sc->aM = sc->eM - s;
        if (sc->aM > hi_in) {
            sc->aM = hi_in;
            sc->eM = hi_in + s;
        }
        sc->bM = s;
        return sc->aM >= lo_in && sc->aM - s > 0 ? 0 : -1;
    }
    if (split2(sc->eM, lo_in, hi_in, &sc->aM, &sc->bM) != 0)
        return -1;
    return split2(sc->eu, lo_in, hi_in, &sc->au, &sc->bu);
}

/* Candidate scales, the widest ratio first; each also with u < 0 (an
 * accumulator rounding up absorbs a negative u on both sides). */
static size_t scale_candidates(const rv *r, rv_scale *out, size_t max)
{
    const fl_format *acc[6] = {&r->in, &fl_binary32, &fl_binary64,
                               &fl_bfloat16, &fl_binary16, NULL};
    size_t cnt = 0;
    int need_bits = ceil_log2(r->T) + 2;
    for (int daz = 0; daz < 2; daz++)
        for (int k = 0; acc[k]; k++) {
            const fl_format *A = acc[k];
            int hi, lo, lo_in = daz ? r->in.emin : fmt_emin_sub(&r->in);
            rv_scale sc;
            memset(&sc, 0, sizeof sc);
            hi = r->out.emax < A->emax ? r->out.emax : A->emax;
            lo = fmt_emin_sub(&r->out) > fmt_emin_sub(A) ? fmt_emin_sub(&r->out)
                                                          : fmt_emin_sub(A);
            /* the flush-safe variant: u normal in the input, the output
             * and the accumulator guess (DAZ, or FTZ in the accumulator) */
            if (daz && r->out.emin > lo)
                lo = r->out.emin;
            if (daz && A->emin > lo)
                lo = A->emin;
            if (!r->prod) {
                if (r->in.emax < hi)
                    hi = r->in.emax;
                if (lo_in > lo)
                    lo = lo_in;
            } else {
                if (2 * r->in.emax < hi)
                    hi = 2 * r->in.emax;
                if (2 * lo_in > lo)
                    lo = 2 * lo_in;
            }
            sc.eM = hi - 1;
            sc.eu = lo;
            sc.su = 1;
            if (scale_factors(r, &sc, lo_in) != 0)
                continue;
            if (sc.eM - sc.eu < A->prec + need_bits)
                continue;
            {
                int dup = 0;
                for (size_t q = 0; q < cnt; q++)
                    if (out[q].eM == sc.eM && out[q].eu == sc.eu)
                        dup = 1;
                if (dup || cnt == max)
                    continue;
            }
            out[cnt++] = sc;
        }
    {
        size_t base = cnt;
        for (size_t q = 0; q < base && cnt < max; q++) {
            out[cnt] = out[q];
            out[cnt].su = -1;
            cnt++;
        }
    }
    return cnt;
}

/* Terms per window: the output format holds every integer up to 2^p
 * exactly, so a probe counts its u's in windows of at most 2^p positions
 * (+0 elsewhere) and the windows' counts are added.  A +0 term changes no
 * partial sum, so the +-M absorption is the same. */
static size_t win_size(const rv *r)
{
    size_t w;
    if (r->out.prec >= 40)
        return r->T;
    w = (size_t)1 << r->out.prec;
    return w < r->T ? w : r->T;
}

static size_t win_count(const rv *r)
{
    size_t w = win_size(r);
    return (r->T + w - 1) / w;
}

/* The terms of a probe row: u at the positions of window [wlo, whi), +0
 * elsewhere, +M at i, -M at j (i or j may be (size_t)-1: absent). */
static void fill_probe(const rv *r, const rv_scale *sc, uint64_t *a,
                       uint64_t *b, size_t i, size_t j, size_t wlo, size_t whi)
{
    const fl_format *f = &r->in;
    const size_t T = r->T;
    uint64_t ua, ub = 0;
    if (!r->prod) {
        ua = rv_pow2(f, sc->eu, sc->su < 0);
        for (size_t k = 0; k < T; k++)
            a[k] = k >= wlo && k < whi ? ua : 0;
        if (i != (size_t)-1)
            a[i] = rv_pow2(f, sc->eM, 0);
        if (j != (size_t)-1)
            a[j] = rv_pow2(f, sc->eM, 1);
        return;
    }
    ua = rv_pow2(f, sc->au, sc->su < 0);
    ub = rv_pow2(f, sc->bu, 0);
    for (size_t k = 0; k < T; k++) {
        a[k] = k >= wlo && k < whi ? ua : 0;
        b[k] = ub;
    }
    if (r->o->op == FL_REF_OP_GEMM) {
        /* as the A row / B column of the gemm layout: i big in A, j big
         * (negative) in B, the small factor of -M in A */
        if (i != (size_t)-1)
            a[i] = rv_pow2(f, sc->aM, 0);
        if (j != (size_t)-1) {
            a[j] = ua;
            if (sc->su < 0)
                b[j] = rv_pow2(f, sc->aM, 0);
            else
                b[j] = rv_pow2(f, sc->aM, 1);
        }
        return;
    }
    if (i != (size_t)-1) {
        a[i] = rv_pow2(f, sc->aM, 0);
        b[i] = rv_pow2(f, sc->bM, 0);
    }
    if (j != (size_t)-1) {
        a[j] = rv_pow2(f, sc->aM, 1);
        b[j] = rv_pow2(f, sc->bM, 0);
    }
}

/* The count of u's a result holds: 0 and *cnt, or -1 (not a multiple,
 * NaN, infinite, out of range). */
static int decode(const rv *r, const rv_scale *sc, uint64_t y, double *cnt)
{
    double v = fl_to_double(&r->out, y), c;
    if (isnan(v) || isinf(v))
        return -1;
    c = v / ldexp(sc->su < 0 ? -1.0 : 1.0, sc->eu);
    if (c != floor(c) || c < 0 || c > (double)r->T)
        return -1;
    *cnt = c;
    return 0;
}

static void describe(const rv *r, uint64_t y, char *buf, size_t len)
{
    rv_bits_str(&r->out, y, buf, len);
}

/* ------------------------------------------------------------------------
 * Calibration: every candidate scale in one call; the first that holds.
 * ---------------------------------------------------------------------- */
enum { NCAL = 7 };

/* The NCAL calibration rows of scale sc into s (at the current r->T). */
static int cal_rows(rv *r, rv_rows *s, const rv_scale *sc)
{
    const size_t T = r->T;
    for (int k = 0; k < NCAL; k++) {
        size_t row = rv_rows_add(s, &r->in);
        size_t i = (size_t)-1, j = (size_t)-1;
        if (row == (size_t)-1)
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        switch (k) {
        case 1: i = 0; break;
        case 2: i = T - 1; break;
        case 3: j = 0; break;
        case 4: j = T - 1; break;
        case 5: i = 0; j = T - 1; break;
        case 6: i = T - 1; j = 0; break;
        default: break;
        }
        fill_probe(r, sc, rv_row_a(s, row), s->prod ? rv_row_b(s, row) : NULL,
                   i, j, 0, win_size(r));
    }
    return 0;
}

/* Whether the calibration results y[0..NCAL) hold for scale sc; when not,
 * why (appended to why). */
static int cal_holds(const rv *r, const rv_scale *sc, const uint64_t *y,
                     char *why, size_t whylen)
{
    const size_t T = r->T;
    double cnt, c5, c6;
    char b1[160];
    if (decode(r, sc, y[0], &cnt) != 0 || cnt != (double)win_size(r)) {
        describe(r, y[0], b1, sizeof b1);
        snprintf(why + strlen(why), whylen - strlen(why),
                 "%s  scale M = 2^%d, u = %s2^%d: %zu u's sum to %s, not "
                 "%zu u (the kernel flushes or loses u)", why[0] ? "\n" : "",
                 sc->eM, sc->su < 0 ? "-" : "", sc->eu, win_size(r), b1,
                 win_size(r));
        return 0;
    }
    for (int k = 1; k <= 4; k++) {
        double want = ldexp(k <= 2 ? 1.0 : -1.0, sc->eM);
        double v = fl_to_double(&r->out, y[k]);
        if (v != want) {
            describe(r, y[k], b1, sizeof b1);
            snprintf(why + strlen(why), whylen - strlen(why),
                     "%s  scale M = 2^%d, u = %s2^%d: %sM at term %zu with "
                     "%zu u's gives %s, not %sM (the u's are not absorbed)",
                     why[0] ? "\n" : "", sc->eM, sc->su < 0 ? "-" : "",
                     sc->eu, k <= 2 ? "+" : "-",
                     (k == 1 || k == 3) ? (size_t)0 : T - 1,
                     win_size(r) - (k == 1 || k == 3), b1, k <= 2 ? "+" : "-");
            return 0;
        }
    }
    if (decode(r, sc, y[5], &c5) != 0 || decode(r, sc, y[6], &c6) != 0 ||
        c5 != c6 || c5 > (double)(T - 2)) {
        snprintf(why + strlen(why), whylen - strlen(why),
                 "%s  scale M = 2^%d, u = %s2^%d: the pair (0, %zu) does not "
                 "give the same count both ways", why[0] ? "\n" : "",
                 sc->eM, sc->su < 0 ? "-" : "", sc->eu, T - 1);
        return 0;
    }
    return 1;
}

static int calibrate(rv *r, rv_scale *cand, size_t ncand, size_t *chosen)
{
    rv_rows s;
    char why[1024] = "";
    int rc;
    rv_rows_init(&s, r->T, r->prod);
    for (size_t c = 0; c < ncand; c++)
        if (cal_rows(r, &s, &cand[c]) != 0) {
            rv_rows_free(&s);
            return -1;
        }
    rv_log(r, "tree: calibrating %zu probe scale%s (%zu rows, 1 call)", ncand,
           ncand == 1 ? "" : "s", s.count);
    rc = rv_run_rows(r, &s);
    if (rc != 0) {
        rv_rows_free(&s);
        return -1;
    }
    for (size_t c = 0; c < ncand; c++) {
        const rv_scale *sc = &cand[c];
        if (cal_holds(r, sc, s.out + c * NCAL, why, sizeof why)) {
            *chosen = c;
            rv_log(r, "tree: probes +-M = +-2^%d against u = %s2^%d hold "
                   "(n u's sum exactly; +-M absorb them at either end)",
                   sc->eM, sc->su < 0 ? "-" : "", sc->eu);
            rv_rows_free(&s);
            return 0;
        }
    }
    rv_rows_free(&s);
    return rv_fail(r, FL_REVEAL_UNREVEALED,
                   "the summation tree cannot be revealed: no probe scale "
                   "holds (the +-M probes need an accumulator that rounds "
                   "to nearest, down or up, and u's that survive):\n%s", why);
}

/* ------------------------------------------------------------------------
 * Running a round of pair requests.
 * ---------------------------------------------------------------------- */
typedef struct preq {
    size_t i, j;
} preq;

/* One probe row's count of u's, checked against the window's size. */
static int row_count(rv *r, const rv_scale *sc, size_t i, size_t j,
                     uint64_t y, size_t wsize, double *cnt)
{
    char b[160];
    if (decode(r, sc, y, cnt) != 0 || *cnt > (double)wsize) {
        describe(r, y, b, sizeof b);
        return rv_fail(r, FL_REVEAL_UNREVEALED,
                       "the summation tree cannot be revealed: the probe with "
                       "+M at term %zu and -M at term %zu gave %s, which is not "
                       "a count of u's (0 .. %zu u); the kernel does not add "
                       "these terms as one tree of roundings to nearest", i, j,
                       b, wsize);
    }
    return 0;
}

static int store(rv *r, pmap *mp, size_t i, size_t j, double cnt)
{
    uint32_t old, l;
    int st;
    if (cnt > (double)(r->T - 2))
        return rv_fail(r, FL_REVEAL_UNREVEALED,
                       "the summation tree cannot be revealed: the probes with "
                       "+M at term %zu and -M at term %zu count %.0f u's of at "
                       "most %zu", i, j, cnt, r->T - 2);
    l = (uint32_t)(r->T - (size_t)cnt);
    st = pmap_put(mp, i, j, l, &old);
    if (st == -2)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (st == -1)
        return rv_fail(r, FL_REVEAL_UNREVEALED,
                       "the summation tree cannot be revealed: terms %zu and %zu "
                       "meet in a subtree of %u terms in one probe and of %u in "
                       "another (the order depends on the position of the "
                       "output element or on the values)", i, j, (unsigned)old,
                       (unsigned)l);
    return 0;
}

/* The probe of the pair (i, j) as rows of s, one per window; -1 when out
 * of memory. */
static int add_pair_rows(rv *r, const rv_scale *sc, rv_rows *s, size_t i,
                         size_t j)
{
    const size_t ws = win_size(r), nw = win_count(r);
    for (size_t w = 0; w < nw; w++) {
        size_t row = rv_rows_add(s, &r->in);
        size_t hi = (w + 1) * ws < r->T ? (w + 1) * ws : r->T;
        if (row == (size_t)-1)
            return -1;
        fill_probe(r, sc, rv_row_a(s, row), s->prod ? rv_row_b(s, row) : NULL,
                   i, j, w * ws, hi);
    }
    return 0;
}

/* Every pair as rows (one per window), through the row packer. */
static int run_pairs_rows(rv *r, const rv_scale *sc, const preq *q, size_t nq,
                          pmap *mp)
{
    rv_rows s;
    const size_t ws = win_size(r), nw = win_count(r);
    int rc;
    rv_rows_init(&s, r->T, r->prod);
    for (size_t k = 0; k < nq; k++)
        if (add_pair_rows(r, sc, &s, q[k].i, q[k].j) != 0) {
            rv_rows_free(&s);
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        }
    rc = rv_run_rows(r, &s);
    for (size_t k = 0; k < nq && rc == 0; k++) {
        double tot = 0, c;
        for (size_t w = 0; w < nw && rc == 0; w++) {
            rc = row_count(r, sc, q[k].i, q[k].j, s.out[k * nw + w], ws, &c);
            tot += c;
        }
        if (rc == 0)
            rc = store(r, mp, q[k].i, q[k].j, tot);
    }
    rv_rows_free(&s);
    return rc;
}

static int cmp_preq_j(const void *x, const void *y)
{
    const preq *a = x, *b = y;
    if (a->j != b->j)
        return a->j < b->j ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* GEMM: row r of A carries the big term of i_r, column c of B the
 * (negative) big term of j_c, so element (r, c) probes the pair
 * (i_r, j_c): M*N pairs per matrix.  A row: u-factor everywhere, 2^aM at
 * i_r; a B column: 2^s everywhere, -2^aM (or +2^aM with u < 0, where the
 * A row's other entries are negative) at j_c. */
static int run_pairs_gemm(rv *r, const rv_scale *sc, preq *q, size_t nq,
                          pmap *mp)
{
    const size_t M = r->o->m, N = r->o->n, K = r->T;
    size_t Bt = rv_gemm_per_call(r);
    const fl_format *f = &r->in;
    uint64_t ua = rv_pow2(f, sc->au, sc->su < 0), ub = rv_pow2(f, sc->bu, 0);
    uint64_t big = rv_pow2(f, sc->aM, 0), bigj = rv_pow2(f, sc->aM, sc->su > 0);
    size_t *rowi = NULL, *colj = NULL;   /* per matrix in the call */
    uint64_t *A = NULL, *B = NULL, *C = NULL;
    size_t *cols = NULL, ncols = 0, *piv = NULL;
    int rc = 0;
    size_t mats = 0;

    /* the distinct j's, in order; for each column chunk, the pivots that
     * need one of its j's */
    qsort(q, nq, sizeof *q, cmp_preq_j);
    cols = malloc((nq ? nq : 1) * sizeof *cols);
    piv = malloc((K ? K : 1) * sizeof *piv);
    if (cols == NULL || piv == NULL) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < nq; k++)
        if (ncols == 0 || cols[ncols - 1] != q[k].j)
            cols[ncols++] = q[k].j;
    if (!r->o->batch) {
        /* batched calls hold the matrices there are: count them (the
         * pivots of each chunk of N columns, M to a matrix) */
        size_t need_mats = 0, qk = 0;
        unsigned char *seen = calloc(K, 1);
        if (seen == NULL) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        for (size_t c0 = 0; c0 < ncols; c0 += N) {
            size_t c1 = c0 + N < ncols ? c0 + N : ncols, np = 0, q0 = qk;
            while (qk < nq && q[qk].j <= cols[c1 - 1]) {
                if (!seen[q[qk].i]) {
                    seen[q[qk].i] = 1;
                    np++;
                }
                qk++;
            }
            for (size_t z = q0; z < qk; z++)
                seen[q[z].i] = 0;
            need_mats += (np + M - 1) / M;
        }
        free(seen);
        if (Bt > need_mats)
            Bt = need_mats ? need_mats : 1;
    }
    ncols = 0;
    rowi = malloc(Bt * M * sizeof *rowi);
    colj = malloc(Bt * N * sizeof *colj);
    A = malloc(Bt * M * K * sizeof *A);
    B = malloc(Bt * K * N * sizeof *B);
    C = malloc(Bt * M * N * sizeof *C);
    if (!rowi || !colj || !A || !B || !C) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < nq; k++)
        if (ncols == 0 || cols[ncols - 1] != q[k].j)
            cols[ncols++] = q[k].j;
    {
        size_t qk = 0, inmat = 0;
        unsigned char *need = calloc(K, 1);
        if (need == NULL) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        for (size_t c0 = 0; c0 < ncols && rc == 0; c0 += N) {
            size_t c1 = c0 + N < ncols ? c0 + N : ncols, np = 0;
            /* pivots needing a column of this chunk */
            while (qk < nq && q[qk].j <= cols[c1 - 1]) {
                if (!need[q[qk].i]) {
                    need[q[qk].i] = 1;
                    piv[np++] = q[qk].i;
                }
                qk++;
            }
            for (size_t p = 0; p < np; p++)
                need[piv[p]] = 0;
            for (size_t p0 = 0; p0 < np && rc == 0; p0 += M) {
                size_t p1 = p0 + M < np ? p0 + M : np;
                /* one matrix: rows piv[p0..p1), columns cols[c0..c1) */
                size_t mi = inmat++;
                uint64_t *Am = A + mi * M * K, *Bm = B + mi * K * N;
                for (size_t rr = 0; rr < M; rr++) {
                    uint64_t *row = Am + rr * K;
                    if (p0 + rr < p1) {
                        rowi[mi * M + rr] = piv[p0 + rr];
                        for (size_t kk = 0; kk < K; kk++)
                            row[kk] = ua;
                        row[piv[p0 + rr]] = big;
                    } else {
                        rowi[mi * M + rr] = (size_t)-1;
                        memset(row, 0, K * sizeof *row);
                    }
                }
                for (size_t cc = 0; cc < N; cc++) {
                    size_t jj = c0 + cc < c1 ? cols[c0 + cc] : (size_t)-1;
                    colj[mi * N + cc] = jj;
                    for (size_t kk = 0; kk < K; kk++)
                        Bm[kk * N + cc] = jj == (size_t)-1 ? 0 : ub;
                    if (jj != (size_t)-1)
                        Bm[jj * N + cc] = bigj;
                }
                mats++;
                if (inmat == Bt || (p1 == np && c1 == ncols)) {
                    /* zero the unused matrices of a fixed batch */
                    for (size_t z = inmat; z < Bt && r->o->batch; z++) {
                        memset(A + z * M * K, 0, M * K * sizeof *A);
                        memset(B + z * K * N, 0, K * N * sizeof *B);
                        for (size_t rr = 0; rr < M; rr++)
                            rowi[z * M + rr] = (size_t)-1;
                    }
                    rc = rv_call_gemm(r, inmat, A, B, C);
                    for (size_t z = 0; z < inmat && rc == 0; z++)
                        for (size_t rr = 0; rr < M && rc == 0; rr++) {
                            size_t ii = rowi[z * M + rr];
                            if (ii == (size_t)-1)
                                continue;
                            for (size_t cc = 0; cc < N && rc == 0; cc++) {
                                size_t jj = colj[z * N + cc];
                                if (jj == (size_t)-1 || jj == ii)
                                    continue;
                            {
                                double cnt;
                                rc = row_count(r, sc, ii, jj,
                                               C[z * M * N + rr * N + cc], K, &cnt);
                                if (rc == 0)
                                    rc = store(r, mp, ii, jj, cnt);
                            }
                            }
                        }
                    inmat = 0;
                }
            }
        }
        free(need);
    }
out:
    free(cols);
    free(piv);
    free(rowi);
    free(colj);
    free(A);
    free(B);
    free(C);
    (void)mats;
    return rc;
}

/* ------------------------------------------------------------------------
 * Building the tree.
 * ---------------------------------------------------------------------- */
typedef struct bnode {
    size_t size;           /* expected number of leaves */
    size_t *kids;          /* references: < n leaf, >= n node n + index */
    size_t nk, cap;
} bnode;

typedef struct group {
    size_t *leaves;
    size_t cnt;
    size_t parent;         /* node index, or TOP */
    size_t level;          /* the parent's size (SIZE_MAX: top) */
    int pairs;             /* this round: all pairs (1) or a pivot (0) */
} group;

#define TOP ((size_t)-1)

typedef struct builder {
    size_t n;
    bnode *node;
    size_t nn, cap;
    size_t *top;           /* children of the virtual top */
    size_t ntop, topcap;
    group *pend;
    size_t npend, pendcap;
} builder;

static int add_kid(builder *b, size_t parent, size_t ref)
{
    size_t **kids, *nk, *cap;
    if (parent == TOP) {
        kids = &b->top;
        nk = &b->ntop;
        cap = &b->topcap;
    } else {
        kids = &b->node[parent].kids;
        nk = &b->node[parent].nk;
        cap = &b->node[parent].cap;
    }
    if (*nk == *cap) {
        size_t nc = *cap ? 2 * *cap : 4;
        size_t *p = realloc(*kids, nc * sizeof *p);
        if (p == NULL)
            return -1;
        *kids = p;
        *cap = nc;
    }
    (*kids)[(*nk)++] = ref;
    return 0;
}

/* A new node of the given size; its index, or (size_t)-1. */
static size_t new_node(builder *b, size_t size)
{
    if (b->nn == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 64;
        bnode *p = realloc(b->node, nc * sizeof *p);
        if (p == NULL)
            return (size_t)-1;
        b->node = p;
        b->cap = nc;
    }
    memset(&b->node[b->nn], 0, sizeof b->node[b->nn]);
    b->node[b->nn].size = size;
    return b->nn++;
}

/* A group of terms (children of parent at level): one term is a leaf of
 * the parent at once; more become a pending group (leaves copied). */
static int add_group(builder *b, const size_t *leaves, size_t cnt,
                     size_t parent, size_t level)
{
    group *g;
    if (cnt == 1)
        return add_kid(b, parent, leaves[0]);
    if (b->npend == b->pendcap) {
        size_t nc = b->pendcap ? 2 * b->pendcap : 16;
        group *p = realloc(b->pend, nc * sizeof *p);
        if (p == NULL)
            return -1;
        b->pend = p;
        b->pendcap = nc;
    }
    g = &b->pend[b->npend];
    g->leaves = malloc(cnt * sizeof *g->leaves);
    if (g->leaves == NULL)
        return -1;
    memcpy(g->leaves, leaves, cnt * sizeof *g->leaves);
    g->cnt = cnt;
    g->parent = parent;
    g->level = level;
    g->pairs = 0;
    b->npend++;
    return 0;
}

static void builder_free(builder *b)
{
    for (size_t j = 0; j < b->nn; j++)
        free(b->node[j].kids);
    free(b->node);
    free(b->top);
    for (size_t g = 0; g < b->npend; g++)
        free(b->pend[g].leaves);
    free(b->pend);
    memset(b, 0, sizeof *b);
}

static size_t uf_find(size_t *par, size_t x)
{
    while (par[x] != x) {
        par[x] = par[par[x]];
        x = par[x];
    }
    return x;
}

typedef struct lpair {
    uint32_t l;
    size_t a, b;           /* local indices */
} lpair;

static int cmp_lpair(const void *x, const void *y)
{
    const lpair *p = x, *q = y;
    return p->l < q->l ? -1 : p->l > q->l;
}

static int inconsistent(rv *r, const char *what)
{
    return rv_fail(r, FL_REVEAL_UNREVEALED,
                   "the summation tree cannot be revealed: the probes are not "
                   "consistent with one tree (%s); the kernel may not add "
                   "these terms as one tree of roundings", what);
}

/* All pairs of g known: the clusters below g->level, attached to the
 * parent. */
static int solve_pairs(rv *r, builder *b, const pmap *mp, const group *g)
{
    const size_t c = g->cnt;
    size_t np = 0, *par = NULL, *sz = NULL, *cnode = NULL, *touched = NULL;
    size_t *newof = NULL, *mark = NULL;
    lpair *pl = NULL;
    char what[256];
    int rc = 0;
    pl = malloc((c * (c - 1) / 2 + 1) * sizeof *pl);
    par = malloc(c * sizeof *par);
    sz = malloc(c * sizeof *sz);
    cnode = malloc(c * sizeof *cnode);
    touched = malloc(c * sizeof *touched);
    newof = malloc(c * sizeof *newof);
    mark = malloc(c * sizeof *mark);
    if (!pl || !par || !sz || !cnode || !touched || !newof || !mark) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t x = 0; x < c; x++) {
        par[x] = x;
        sz[x] = 1;
        cnode[x] = g->leaves[x];
        newof[x] = (size_t)-1;
    }
    for (size_t x = 0; x < c; x++)
        for (size_t y = x + 1; y < c; y++) {
            uint32_t l;
            if (!pmap_get(mp, g->leaves[x], g->leaves[y], &l)) {
                snprintf(what, sizeof what, "pair (%zu, %zu) was not probed",
                         g->leaves[x], g->leaves[y]);
                rc = inconsistent(r, what);
                goto out;
            }
            if (g->level != SIZE_MAX && l > g->level) {
                snprintf(what, sizeof what,
                         "terms %zu and %zu meet above a subtree of %zu terms "
                         "that holds both", g->leaves[x], g->leaves[y], g->level);
                rc = inconsistent(r, what);
                goto out;
            }
            if (g->level != SIZE_MAX && l == g->level)
                continue;
            pl[np].l = l;
            pl[np].a = x;
            pl[np].b = y;
            np++;
        }
    qsort(pl, np, sizeof *pl, cmp_lpair);
    for (size_t x = 0; x < c; x++)
        mark[x] = 0;
    for (size_t p0 = 0, lv = 0; p0 < np && rc == 0;) {
        size_t p1 = p0, nt = 0;
        uint32_t l = pl[p0].l;
        lv++;
        while (p1 < np && pl[p1].l == l)
            p1++;
        /* the distinct components joined at this level, before joining */
        for (size_t p = p0; p < p1; p++) {
            size_t ra = uf_find(par, pl[p].a), rb = uf_find(par, pl[p].b);
            if (ra == rb) {
                snprintf(what, sizeof what,
                         "terms %zu and %zu meet in %u terms but were joined "
                         "lower", g->leaves[pl[p].a], g->leaves[pl[p].b],
                         (unsigned)l);
                rc = inconsistent(r, what);
                goto out;
            }
            if (mark[ra] != lv) {
                mark[ra] = lv;
                touched[nt++] = ra;
            }
            if (mark[rb] != lv) {
                mark[rb] = lv;
                touched[nt++] = rb;
            }
        }
        for (size_t p = p0; p < p1; p++) {
            size_t ra = uf_find(par, pl[p].a), rb = uf_find(par, pl[p].b);
            if (ra != rb) {
                if (sz[ra] < sz[rb]) {
                    size_t t = ra;
                    ra = rb;
                    rb = t;
                }
                par[rb] = ra;
                sz[ra] += sz[rb];
            }
        }
        /* one node per new component, the old components its children */
        for (size_t t = 0; t < nt; t++) {
            size_t old = touched[t], R = uf_find(par, old);
            if (newof[R] == (size_t)-1) {
                size_t node;
                if (sz[R] != l) {
                    snprintf(what, sizeof what,
                             "a subtree where terms meet in %u terms has %zu",
                             (unsigned)l, sz[R]);
                    rc = inconsistent(r, what);
                    goto out;
                }
                node = new_node(b, l);
                if (node == (size_t)-1) {
                    rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                    goto out;
                }
                newof[R] = node;
            }
            if (add_kid(b, newof[R], cnode[old]) != 0) {
                rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                goto out;
            }
        }
        for (size_t t = 0; t < nt; t++) {
            size_t R = uf_find(par, touched[t]);
            if (newof[R] != (size_t)-1) {
                cnode[R] = b->n + newof[R];
                newof[R] = (size_t)-1;
            }
        }
        p0 = p1;
    }
    /* the final components are children of the parent */
    for (size_t x = 0; x < c && rc == 0; x++)
        if (uf_find(par, x) == x && add_kid(b, g->parent, cnode[x]) != 0)
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
out:
    free(pl);
    free(par);
    free(sz);
    free(cnode);
    free(touched);
    free(newof);
    free(mark);
    return rc;
}

typedef struct lval {
    uint32_t l;
    size_t leaf;
} lval;

static int cmp_lval(const void *x, const void *y)
{
    const lval *p = x, *q = y;
    if (p->l != q->l)
        return p->l < q->l ? -1 : 1;
    return p->leaf < q->leaf ? -1 : p->leaf > q->leaf;
}

/* Pivot g->leaves[0] known against the group: its ancestors below the
 * level, the groups hanging off them, and the rest of the level. */
static int solve_pivot(rv *r, builder *b, const pmap *mp, const group *g)
{
    const size_t c = g->cnt, q = g->leaves[0];
    lval *v = malloc(c * sizeof *v);
    size_t *rest = malloc(c * sizeof *rest), nrest = 0, nv = 0;
    size_t *tmp = malloc(c * sizeof *tmp);
    char what[256];
    int rc = 0;
    if (!v || !rest || !tmp) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t x = 1; x < c; x++) {
        uint32_t l;
        if (!pmap_get(mp, q, g->leaves[x], &l)) {
            snprintf(what, sizeof what, "pair (%zu, %zu) was not probed", q,
                     g->leaves[x]);
            rc = inconsistent(r, what);
            goto out;
        }
        if (g->level != SIZE_MAX && l > g->level) {
            snprintf(what, sizeof what,
                     "terms %zu and %zu meet above a subtree of %zu terms that "
                     "holds both", q, g->leaves[x], g->level);
            rc = inconsistent(r, what);
            goto out;
        }
        if (g->level != SIZE_MAX && l == g->level) {
            rest[nrest++] = g->leaves[x];
            continue;
        }
        v[nv].l = l;
        v[nv].leaf = g->leaves[x];
        nv++;
    }
    qsort(v, nv, sizeof *v, cmp_lval);
    {
        size_t below = 1, cur = q;   /* the subtree holding q so far */
        for (size_t p0 = 0; p0 < nv && rc == 0;) {
            size_t p1 = p0, node;
            uint32_t l = v[p0].l;
            while (p1 < nv && v[p1].l == l)
                p1++;
            if (below + (p1 - p0) != l) {
                snprintf(what, sizeof what,
                         "term %zu's ancestor of %u terms holds %zu", q,
                         (unsigned)l, below + (p1 - p0));
                rc = inconsistent(r, what);
                goto out;
            }
            node = new_node(b, l);
            if (node == (size_t)-1 || add_kid(b, node, cur) != 0) {
                rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                goto out;
            }
            for (size_t p = p0; p < p1; p++)
                tmp[p - p0] = v[p].leaf;
            if (add_group(b, tmp, p1 - p0, node, l) != 0) {
                rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                goto out;
            }
            cur = b->n + node;
            below = l;
            p0 = p1;
        }
        if (add_kid(b, g->parent, cur) != 0) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
    }
    if (nrest && add_group(b, rest, nrest, g->parent, g->level) != 0)
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
out:
    free(v);
    free(rest);
    free(tmp);
    return rc;
}

/* The builder's nodes as a tree in postorder, sizes checked. */
static int finish(rv *r, builder *b, fl_reveal_tree *t)
{
    size_t n = b->n, root, *newid = NULL, next = 0, sp = 0, w = 0;
    size_t *leafcnt = NULL;
    struct it { size_t node, pos; } *stk = NULL;
    char what[256];
    int rc = 0;
    memset(t, 0, sizeof *t);
    if (b->ntop != 1 || b->top[0] < n) {
        snprintf(what, sizeof what, "the terms do not meet in one root");
        return inconsistent(r, what);
    }
    root = b->top[0] - n;
    newid = malloc((b->nn ? b->nn : 1) * sizeof *newid);
    leafcnt = calloc(b->nn ? b->nn : 1, sizeof *leafcnt);
    stk = malloc((b->nn + 1) * sizeof *stk);
    t->n = n;
    t->first = malloc((b->nn + 1) * sizeof *t->first);
    t->kids = malloc((n + b->nn + 1) * sizeof *t->kids);
    if (!newid || !leafcnt || !stk || !t->first || !t->kids) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < b->nn; j++)
        newid[j] = (size_t)-1;
    stk[sp].node = root;
    stk[sp].pos = 0;
    sp++;
    while (sp) {
        struct it *it = &stk[sp - 1];
        bnode *bn = &b->node[it->node];
        if (it->pos < bn->nk) {
            size_t c = bn->kids[it->pos++];
            if (c >= n) {
                if (newid[c - n] != (size_t)-1 || sp > b->nn) {
                    rc = inconsistent(r, "a subtree is reached twice");
                    goto out;
                }
                stk[sp].node = c - n;
                stk[sp].pos = 0;
                sp++;
            }
        } else {
            size_t cntl = 0;
            if (bn->nk < 2) {
                snprintf(what, sizeof what, "a node of %zu terms has %zu "
                         "child%s", bn->size, bn->nk, bn->nk == 1 ? "" : "ren");
                rc = inconsistent(r, what);
                goto out;
            }
            for (size_t k = 0; k < bn->nk; k++) {
                size_t c = bn->kids[k];
                cntl += c < n ? 1 : leafcnt[c - n];
            }
            if (cntl != bn->size) {
                snprintf(what, sizeof what, "a node of %zu terms holds %zu",
                         bn->size, cntl);
                rc = inconsistent(r, what);
                goto out;
            }
            leafcnt[it->node] = cntl;
            newid[it->node] = next++;
            sp--;
        }
    }
    if (leafcnt[root] != n) {
        snprintf(what, sizeof what, "the root holds %zu of %zu terms",
                 leafcnt[root], n);
        rc = inconsistent(r, what);
        goto out;
    }
    /* write in postorder */
    {
        size_t *old_of = malloc((next ? next : 1) * sizeof *old_of);
        if (old_of == NULL) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        for (size_t j = 0; j < b->nn; j++)
            if (newid[j] != (size_t)-1)
                old_of[newid[j]] = j;
        for (size_t j = 0; j < next; j++) {
            bnode *bn = &b->node[old_of[j]];
            t->first[j] = w;
            for (size_t k = 0; k < bn->nk; k++) {
                size_t c = bn->kids[k];
                t->kids[w++] = c < n ? c : n + newid[c - n];
            }
        }
        t->first[next] = w;
        t->nnodes = next;
        free(old_of);
    }
    if (w != n + next - 1) {
        rc = inconsistent(r, "a term appears twice");
        goto out;
    }
    {
        /* every term exactly once */
        unsigned char *seen = calloc(n, 1);
        if (seen == NULL) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        for (size_t k = 0; k < w; k++)
            if (t->kids[k] < n) {
                if (seen[t->kids[k]]++) {
                    free(seen);
                    rc = inconsistent(r, "a term appears twice");
                    goto out;
                }
            }
        free(seen);
    }
    rc = rv_tree_canon(t) != 0 ? rv_fail(r, FL_REVEAL_BAD_OPTIONS,
                                         "out of memory") : 0;
out:
    free(newid);
    free(leafcnt);
    free(stk);
    if (rc != 0)
        fl_reveal_tree_free(t);
    return rc;
}

/* Every observation against the tree: l(i, j) = size of the LCA
 * (rv_tree_lca_sizes), in the map's order; the first that differs is the
 * inconsistency reported. */
static int check_all(rv *r, const fl_reveal_tree *t, const pmap *mp)
{
    size_t *qi = malloc((mp->count + 1) * sizeof *qi);
    size_t *qj = malloc((mp->count + 1) * sizeof *qj);
    uint32_t *l = malloc((mp->count + 1) * sizeof *l);
    size_t k = 0;
    char what[256];
    int rc = 0;
    if (qi && qj && l) {
        for (size_t h = 0; h < mp->cap; h++)
            if (mp->key[h]) {
                qi[k] = (size_t)((mp->key[h] - 1) >> 32);
                qj[k] = (size_t)((mp->key[h] - 1) & 0xffffffffu);
                k++;
            }
    }
    if (!qi || !qj || !l || rv_tree_lca_sizes(t, qi, qj, k, l) != 0)
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    k = 0;
    for (size_t h = 0; h < mp->cap && rc == 0; h++) {
        if (!mp->key[h])
            continue;
        if (l[k] != mp->val[h]) {
            snprintf(what, sizeof what,
                     "terms %zu and %zu meet in %u terms in the probe but in "
                     "%zu in the tree", qi[k], qj[k], (unsigned)mp->val[h],
                     (size_t)l[k]);
            rc = inconsistent(r, what);
        }
        k++;
    }
    free(qi);
    free(qj);
    free(l);
    return rc;
}

/* The tree was revealed through batched (3-D) calls: one 2-D call of pair
 * probes (M x N pairs, or M with windows) must count as the tree says,
 * else the kernel sums a 2-D call otherwise: -2, nothing recorded (the
 * engine starts again with 2-D calls).  0, or -1 with a failure. */
static int check_2d(rv *r, const fl_reveal_tree *t, const rv_scale *sc)
{
    const size_t M = r->o->m, N = r->o->n, K = r->T;
    size_t ni = M < K ? M : K, nj = win_count(r) == 1 ? (N < K ? N : K) : 1;
    size_t nq = 0, calls0 = r->res->calls;
    preq *q = malloc(ni * nj * sizeof *q);
    pmap mp;
    fl_reveal_status st = r->res->status;
    char msg[sizeof r->res->message];
    uint64_t z = 0x2D2D2D2Dull ^ r->o->seed;
    int rc;
    if (q == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    memset(&mp, 0, sizeof mp);
    /* ni pivots spread over the terms against nj distinct random terms
     * (one matrix: the same nj columns for every pivot) */
    {
        size_t *js = malloc(nj * sizeof *js);
        unsigned char *used = calloc(K, 1);
        if (js == NULL || used == NULL) {
            free(js);
            free(used);
            free(q);
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        }
        for (size_t c = 0; c < nj; c++) {
            size_t j;
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            j = (size_t)((z >> 33) % K);
            while (used[j])
                j = (j + 1) % K;
            used[j] = 1;
            js[c] = j;
        }
        for (size_t a = 0; a < ni; a++) {
            size_t i = (a * K) / ni;
            for (size_t c = 0; c < nj; c++)
                if (js[c] != i) {
                    q[nq].i = i;
                    q[nq].j = js[c];
                    nq++;
                }
        }
        free(js);
        free(used);
    }
    memcpy(msg, r->res->message, sizeof msg);
    r->bt_auto = 0;
    rc = win_count(r) == 1 ? run_pairs_gemm(r, sc, q, nq, &mp)
                           : run_pairs_rows(r, sc, q, nq, &mp);
    r->bt_auto = 1;
    free(q);
    if (rc == 0)
        rc = check_all(r, t, &mp);
    pmap_free(&mp);
    if (rc != 0 && r->res->status != FL_REVEAL_UNREVEALED)
        return -1;          /* the kernel failed, out of memory */
    if (rc != 0) {
        rv_log(r, "batch: 2-D calls of %zu pair probes do not count as the "
               "tree of the batched calls says (%s): the kernel sums 2-D calls "
               "otherwise; the reveal starts again with 2-D calls", nq,
               r->res->message);
        r->res->status = st;
        memcpy(r->res->message, msg, sizeof msg);
        return -2;
    }
    rv_log(r, "batch: %zu 2-D call%s of %zu pair probes count%s as the tree "
           "says", r->res->calls - calls0,
           r->res->calls - calls0 == 1 ? "" : "s", nq,
           r->res->calls - calls0 == 1 ? "s" : "");
    return 0;
}

int rv_fprev(rv *r, fl_reveal_tree *t, rv_scale *scale)
{
    rv_scale cand[16];
    size_t ncand, chosen = 0, round = 0, probes = 0, calls0;
    builder b;
    pmap mp;
    size_t *all = NULL;
    int rc = 0;
    const size_t T = r->T;

    memset(t, 0, sizeof *t);
    if (win_count(r) > 1) {
        char o[64];
        fl_format_spec(&r->out, o, sizeof o);
        rv_log(r, "tree: %s holds counts up to 2^%d exactly: each probe counts "
               "its u's in %zu windows of at most %zu terms", o, r->out.prec,
               win_count(r), win_size(r));
    }
    ncand = scale_candidates(r, cand, sizeof cand / sizeof cand[0]);
    if (ncand == 0)
        return rv_fail(r, FL_REVEAL_UNREVEALED,
                       "the summation tree cannot be revealed: the input and "
                       "output formats leave no room for +-M against %zu u's",
                       T);
    calls0 = r->res->calls;
    if (calibrate(r, cand, ncand, &chosen) != 0)
        return -1;
    *scale = cand[chosen];

    memset(&b, 0, sizeof b);
    memset(&mp, 0, sizeof mp);
    b.n = T;
    all = malloc(T * sizeof *all);
    if (all == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    for (size_t i = 0; i < T; i++)
        all[i] = i;
    if (add_group(&b, all, T, TOP, SIZE_MAX) != 0) {
        free(all);
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    }
    free(all);

    while (b.npend > 0 && rc == 0) {
        group *cur = b.pend;
        size_t ncur = b.npend, nq = 0, budget, used = 0, npairs = 0, npiv = 0;
        preq *q;
        if (++round > 4 * (size_t)ceil_log2(T) + 64) {
            rc = inconsistent(r, "too many rounds");
            break;
        }
        b.pend = NULL;
        b.npend = b.pendcap = 0;
        /* probes per round that fit about two calls */
        if (r->o->op == FL_REF_OP_GEMM) {
            size_t Bt = rv_gemm_per_call(r);
            budget = 2 * Bt * r->o->m * r->o->n / 2;
        } else {
            budget = 2 * rv_rows_per_call(r);
        }
        for (size_t g = 0; g < ncur; g++) {
            size_t c = cur[g].cnt, need = c * (c - 1) / 2;
            cur[g].pairs = used + need * win_count(r) <= budget || c <= 3;
            if (cur[g].pairs) {
                used += need * win_count(r);
                nq += need;
                npairs++;
            } else {
                nq += c - 1;
                npiv++;
            }
        }
        q = malloc((nq ? nq : 1) * sizeof *q);
        if (q == NULL) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        } else {
            size_t w = 0, callsb = r->res->calls;
            for (size_t g = 0; g < ncur; g++) {
                const group *G = &cur[g];
                if (G->pairs) {
                    for (size_t x = 0; x < G->cnt; x++)
                        for (size_t y = x + 1; y < G->cnt; y++) {
                            q[w].i = G->leaves[x];
                            q[w].j = G->leaves[y];
                            w++;
                        }
                } else {
                    for (size_t x = 1; x < G->cnt; x++) {
                        q[w].i = G->leaves[0];
                        q[w].j = G->leaves[x];
                        w++;
                    }
                }
            }
            rc = r->o->op == FL_REF_OP_GEMM && win_count(r) == 1
                     ? run_pairs_gemm(r, scale, q, nq, &mp)
                     : run_pairs_rows(r, scale, q, nq, &mp);
            probes += nq;
            if (rc == 0)
                rv_log(r, "tree: round %zu: %zu group%s (%zu by all pairs, %zu by "
                       "a pivot), %zu pair probes, %zu call%s", round, ncur,
                       ncur == 1 ? "" : "s", npairs, npiv, nq,
                       r->res->calls - callsb,
                       r->res->calls - callsb == 1 ? "" : "s");
            free(q);
        }
        for (size_t g = 0; g < ncur && rc == 0; g++)
            rc = cur[g].pairs ? solve_pairs(r, &b, &mp, &cur[g])
                              : solve_pivot(r, &b, &mp, &cur[g]);
        for (size_t g = 0; g < ncur; g++)
            free(cur[g].leaves);
        free(cur);
    }
    if (rc == 0)
        rc = finish(r, &b, t);
    if (rc == 0) {
        rc = check_all(r, t, &mp);
        if (rc != 0)
            fl_reveal_tree_free(t);
    }
    if (rc == 0)
        rv_log(r, "tree: %zu pair probes in %zu round%s, %zu calls with the "
               "calibration; every probe agrees with the tree", probes, round,
               round == 1 ? "" : "s", r->res->calls - calls0);
    builder_free(&b);
    pmap_free(&mp);
    if (rc == 0 && r->bt_auto) {
        rc = check_2d(r, t, scale);
        if (rc != 0)
            fl_reveal_tree_free(t);
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Pairs at another length (reveal's lengths stage).
 * ---------------------------------------------------------------------- */
int rv_fprev_at(rv *r, const rv_scale *sc, const size_t *qi, const size_t *qj,
                size_t nq, uint32_t *l, int *holds, char *why, size_t whylen)
{
    const size_t nw = win_count(r);
    const int grid = r->o->op == FL_REF_OP_GEMM && nw == 1 && !r->bt_auto &&
                     !r->o->batch;
    rv_rows s;
    int rc;
    *holds = 0;
    why[0] = '\0';
    rv_rows_init(&s, r->T, r->prod);
    if (cal_rows(r, &s, sc) != 0) {
        rv_rows_free(&s);
        return -1;
    }
    for (size_t k = 0; k < nq && !grid; k++)
        if (add_pair_rows(r, sc, &s, qi[k], qj[k]) != 0) {
            rv_rows_free(&s);
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        }
    rc = rv_run_rows(r, &s);
    if (rc != 0) {
        rv_rows_free(&s);
        return -1;
    }
    if (!cal_holds(r, sc, s.out, why, whylen)) {
        rv_rows_free(&s);
        return 0;
    }
    *holds = 1;
    if (!grid) {
        for (size_t k = 0; k < nq; k++) {
            double tot = 0, c;
            for (size_t w = 0; w < nw; w++) {
                if (decode(r, sc, s.out[NCAL + k * nw + w], &c) != 0) {
                    l[k] = 0;   /* no count: no tree predicts it */
                    goto next;
                }
                tot += c;
            }
            l[k] = (uint32_t)(r->T - (size_t)tot);
        next:;
        }
        rv_rows_free(&s);
        return 0;
    }
    rv_rows_free(&s);
    {
        /* 2-D gemm: M x N pairs per matrix (run_pairs_gemm) */
        preq *q = malloc((nq ? nq : 1) * sizeof *q);
        pmap mp;
        fl_reveal_status st = r->res->status;
        char msg[sizeof r->res->message];
        if (q == NULL)
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        memset(&mp, 0, sizeof mp);
        for (size_t k = 0; k < nq; k++) {
            q[k].i = qi[k];
            q[k].j = qj[k];
        }
        memcpy(msg, r->res->message, sizeof msg);
        rc = run_pairs_gemm(r, sc, q, nq, &mp);
        free(q);
        if (rc != 0 && r->res->status != FL_REVEAL_UNREVEALED) {
            pmap_free(&mp);
            return -1;
        }
        r->res->status = st;
        memcpy(r->res->message, msg, sizeof msg);
        for (size_t k = 0; k < nq; k++)
            if (!pmap_get(&mp, qi[k], qj[k], &l[k]))
                l[k] = 0;
        pmap_free(&mp);
        return 0;
    }
}
