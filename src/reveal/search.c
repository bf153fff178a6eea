/*
 * search.c — the accumulator, probed over the revealed tree, and the
 * model that reproduces it.
 *
 * Every probe row puts a few chosen terms where the tree makes them meet
 * first (a "cherry": a node whose two operands are terms) and +0
 * everywhere else, which the additions carry through exactly.  In the
 * style of Fasi, Higham, Mikaitis and Pranesh (2021):
 *   precision   2^E + 2^(E-k) at a cherry, -2^E joined later: the result
 *               is 2^(E-k) while 2^(E-k) survives the cherry's rounding,
 *               i.e. for k < p, the accumulator's precision;
 *   rounding    the same with 2^(E-p) * {1/2, 1, 3/2} (below half an ulp,
 *               a tie, above half), both signs: the six directions differ
 *               (rne: down up down, rna: up up down, rtz: down down down,
 *               rup: up up up / down down down for negative, ...);
 *   products    (1 + 2^-s)^2 against -(1 + 2^(1-s)) at a cherry: the
 *               residue 2^-2s survives only where the product is fused
 *               into the addition, and shows on which side;
 *   subnormals  a subnormal term alone, subnormal + normal, a difference
 *               of normals that is subnormal (DAZ on inputs, FTZ on
 *               results);
 *   start       a row of -0: -0 without a +0 start, +0 with one;
 *   output      ties and near-ties of the output precision (out-rm);
 *   NaN         inf - inf, NaN payloads of both signs, a signaling NaN;
 *   block FMA   (a multi-term node) cancelling pairs with small terms
 *               around the alignment window, products >= 2, the running
 *               sum carried into the next block: extra alignment bits,
 *               truncation or rounding of the alignment, normalisation,
 *               the rounding of each block's result.
 * All probes go to the kernel in one call.  Each finding is then decided
 * by simulation: the candidate models (fplab/ref.h) run on the probe rows
 * of its stage, with the findings so far; the first candidate, in order
 * of preference, that reproduces every row of the stage wins.  At the end
 * the model must reproduce every probe row bit for bit, else the
 * combinations of the stages' best candidates are searched.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reveal_internal.h"

enum {
    ST_PREC = 0, ST_ROUND, ST_PROD, ST_SUB, ST_OUT, ST_ZERO, ST_NAN, ST_RANGE,
    ST_TC1, ST_TC2, ST_RAND, ST_COUNT
};
static const char *const st_name[ST_COUNT] = {
    "precision", "rounding", "products", "subnormals", "output rounding",
    "start value", "NaN", "range", "block alignment", "block rounding",
    "random"
};

typedef struct cherry {
    size_t lo, hi;         /* the two terms, lo < hi */
} cherry;

typedef struct probe_set {
    rv_rows rows;
    size_t lo[ST_COUNT], hi[ST_COUNT];
    int Es[2], kmaxs[2];   /* precision rows: 2^E + 2^(E-k), k = 1..kmax, */
    int nE;                /* for each scale E */
    int rp[8], nrp;        /* precisions with rounding rows (6 rows each) */
    cherry ch[64];         /* cherries with product rows (2 rows each) */
    size_t nch;
    int prod_p[4], nprod;  /* precisions probed by product rows */
    size_t ci, cj, cm;     /* the main cherry and a term joined later */
    int tc;                /* a block-FMA tree */
    size_t tcB;            /* terms per block */
} probe_set;

/* ------------------------------------------------------------------------
 * Tree facts.
 * ---------------------------------------------------------------------- */
static size_t find_cherries(const fl_reveal_tree *t, cherry *out, size_t max)
{
    size_t cnt = 0;
    for (size_t j = 0; j < t->nnodes && cnt < max; j++) {
        size_t a, b;
        if (t->first[j + 1] - t->first[j] != 2)
            continue;
        a = t->kids[t->first[j]];
        b = t->kids[t->first[j] + 1];
        if (a < t->n && b < t->n) {
            out[cnt].lo = a < b ? a : b;
            out[cnt].hi = a < b ? b : a;
            cnt++;
        }
    }
    return cnt;
}

/* The leaves that are direct children of node j, sorted. */
static size_t node_leaves(const fl_reveal_tree *t, size_t j, size_t *out)
{
    size_t cnt = 0;
    for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
        if (t->kids[q] < t->n)
            out[cnt++] = t->kids[q];
    for (size_t x = 1; x < cnt; x++)
        for (size_t y = x; y > 0 && out[y - 1] > out[y]; y--) {
            size_t s = out[y];
            out[y] = out[y - 1];
            out[y - 1] = s;
        }
    return cnt;
}

/* ------------------------------------------------------------------------
 * Row helpers.
 * ---------------------------------------------------------------------- */
typedef struct term {
    size_t pos;
    uint64_t a, b;         /* sum: a is x; b = 1 */
} term;

static int add_row(rv *r, probe_set *ps, const term *ts, size_t nt)
{
    size_t row = rv_rows_add(&ps->rows, &r->in);
    if (row == (size_t)-1)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    for (size_t k = 0; k < nt; k++) {
        rv_row_a(&ps->rows, row)[ts[k].pos] = ts[k].a;
        if (ps->rows.prod)
            rv_row_b(&ps->rows, row)[ts[k].pos] = ts[k].b;
    }
    return 0;
}

/* A row of a few terms (a; b = 1). */
static int row3(rv *r, probe_set *ps, size_t i, uint64_t xi, size_t j,
                uint64_t xj, size_t m, uint64_t xm)
{
    uint64_t one = rv_pow2(&r->in, 0, 0);
    term ts[3];
    size_t nt = 0;
    memset(ts, 0, sizeof ts);
    if (i != (size_t)-1) {
        ts[nt].pos = i;
        ts[nt].a = xi;
        ts[nt++].b = one;
    }
    if (j != (size_t)-1) {
        ts[nt].pos = j;
        ts[nt].a = xj;
        ts[nt++].b = one;
    }
    if (m != (size_t)-1) {
        ts[nt].pos = m;
        ts[nt].a = xm;
        ts[nt++].b = one;
    }
    return add_row(r, ps, ts, nt);
}

static int fmt_emin_sub(const fl_format *f)
{
    return f->subnormals ? f->emin - (f->prec - 1) : f->emin;
}

static uint64_t nan_bits(const fl_format *f, int neg, int quiet, uint64_t payload)
{
    uint64_t qbit = (uint64_t)1 << (f->prec - 2);
    uint64_t frac = (payload & (qbit - 1)) | (quiet ? qbit : 0);
    if (!quiet && frac == 0)
        frac = 1;
    return (neg ? f->sign_mask : 0) | f->exp_mask | frac;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------
 * Building the probes.
 * ---------------------------------------------------------------------- */
/* The term 2^e * (1 + frac/2^fbits), negated when neg: for a sum the
 * value itself (b = 1); for products a factor pair of normal inputs, so
 * that e may run over twice the input's exponent range. */
static void term_val(const rv *r, term *t, size_t pos, int e, uint64_t frac,
                     int fbits, int neg)
{
    const fl_format *in = &r->in;
    t->pos = pos;
    if (!r->prod) {
        t->a = rv_val(in, neg, e, frac, fbits);
        t->b = rv_pow2(in, 0, 0);
        return;
    }
    {
        int e1 = e >= 0 ? (e + 1) / 2 : -((-e) / 2), e2;
        if (e1 > in->emax)
            e1 = in->emax;
        if (e1 < in->emin)
            e1 = in->emin;
        e2 = e - e1;
        if (e2 > in->emax) {
            e2 = in->emax;
            e1 = e - e2;
        }
        if (e2 < in->emin) {
            e2 = in->emin;
            e1 = e - e2;
        }
        t->a = rv_val(in, neg, e1, frac, fbits);
        t->b = rv_pow2(in, e2, 0);
    }
}

static int rowt3(rv *r, probe_set *ps, term x, term y, term z, int nz)
{
    term ts[3];
    ts[0] = x;
    ts[1] = y;
    ts[2] = z;
    return add_row(r, ps, ts, nz ? 3 : 2);
}

static int build_binary(rv *r, probe_set *ps, const fl_reveal_tree *t,
                        const rv_scale *sc)
{
    const fl_format *in = &r->in, *out = &r->out;
    size_t ci = ps->ci, cj = ps->cj, cm = ps->cm;
    int ein_hi = r->prod ? 2 * in->emax : in->emax;
    int ein_lo = r->prod ? 2 * in->emin : in->emin;
    int hi = ein_hi < out->emax ? ein_hi : out->emax;
    int lo = ein_lo > out->emin ? ein_lo : out->emin;
    int E;
    (void)t;
    /* a sum's terms were proven not to overflow up to 2^eM */
    if (!r->prod && sc->eM < hi)
        hi = sc->eM;
    E = hi - 2;
    /* a second, small scale that a binary16 or bfloat16 accumulator holds
     * (the accumulator's range is not known yet) */
    ps->nE = 0;
    ps->Es[ps->nE++] = E;
    if (E > 12 && 12 - lo >= 12)
        ps->Es[ps->nE++] = 12;

    /* precision, at each scale */
    ps->lo[ST_PREC] = ps->rows.count;
    for (int q = 0; q < ps->nE; q++) {
        int e0 = ps->Es[q], km = e0 - lo < 64 ? e0 - lo : 64;
        ps->kmaxs[q] = km;
        for (int k = 1; k <= km; k++) {
            term x, y, z;
            term_val(r, &x, ci, e0, 0, 0, 0);
            term_val(r, &y, cj, e0 - k, 0, 0, 0);
            term_val(r, &z, cm, e0, 0, 0, 1);
            if (rowt3(r, ps, x, y, z, cm != (size_t)-1))
                return -1;
        }
    }
    ps->hi[ST_PREC] = ps->rows.count;

    /* rounding: below half, tie, above half, both signs, per precision and
     * scale */
    ps->lo[ST_ROUND] = ps->rows.count;
    ps->nrp = 0;
    for (int qe = 0; qe < ps->nE; qe++) {
        int cand[5] = {8, 11, 24, 53, in->prec};
        int e0 = ps->Es[qe], seen[5] = {0};
        for (int q = 0; q < 5; q++) {
            int p = cand[q], dup = 0;
            for (int z = 0; z < q; z++)
                dup |= seen[z] && cand[z] == p;
            if (dup || p < 2 || e0 - p - 1 < lo)
                continue;
            seen[q] = 1;
            for (int sg = 0; sg < 2; sg++)
                for (int d = 0; d < 3; d++) {
                    /* d: 0 tie (2^(E-p)), 1 above (1.5), 2 below (0.5) */
                    term x, y, z;
                    term_val(r, &x, ci, e0, 0, 0, sg);
                    if (d == 0)
                        term_val(r, &y, cj, e0 - p, 0, 0, sg);
                    else if (d == 1)
                        term_val(r, &y, cj, e0 - p, 1, 1, sg);
                    else
                        term_val(r, &y, cj, e0 - p - 1, 0, 0, sg);
                    term_val(r, &z, cm, e0, 0, 0, !sg);
                    if (rowt3(r, ps, x, y, z, cm != (size_t)-1))
                        return -1;
                }
        }
    }
    ps->hi[ST_ROUND] = ps->rows.count;

    /* products fused or rounded, at every cherry (both sides) */
    ps->lo[ST_PROD] = ps->rows.count;
    ps->nprod = 0;
    if (r->prod) {
        int cand[4] = {24, 53, 11, 8};
        for (int q = 0; q < 4; q++) {
            int p = cand[q], s = (p + 2) / 2;   /* 2s > p: below half an ulp */
            if (s > in->prec - 1 || 2 * s <= p)
                continue;
            ps->prod_p[ps->nprod++] = p;
            for (size_t c = 0; c < ps->nch; c++)
                for (int side = 0; side < 2; side++) {
                    term ts[2];
                    size_t fx = side ? ps->ch[c].hi : ps->ch[c].lo;
                    size_t ex = side ? ps->ch[c].lo : ps->ch[c].hi;
                    uint64_t a = rv_val(in, 0, 0, 1, s);   /* 1 + 2^-s */
                    ts[0].pos = fx;
                    ts[0].a = a;
                    ts[0].b = a;
                    ts[1].pos = ex;
                    ts[1].a = rv_val(in, 1, 0, 1, s - 1);  /* -(1 + 2^(1-s)) */
                    ts[1].b = rv_pow2(in, 0, 0);
                    if (add_row(r, ps, ts, 2))
                        return -1;
                }
        }
    }
    ps->hi[ST_PROD] = ps->rows.count;
    return 0;
}

/* Rows for the block FMA: terms of the first block (and the second). */
static int build_tc(rv *r, probe_set *ps, const fl_reveal_tree *t)
{
    const fl_format *in = &r->in;
    size_t *b0 = malloc(t->n * sizeof *b0), *b1 = malloc(t->n * sizeof *b1);
    size_t n0 = 0, n1 = 0;
    int lo_in = fmt_emin_sub(in);
    uint64_t one = rv_pow2(in, 0, 0);
    int rc = 0;
    if (b0 == NULL || b1 == NULL) {
        free(b0);
        free(b1);
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    }
    /* block 0: the first node whose children are all terms; block 1: its
     * parent's terms */
    for (size_t j = 0; j < t->nnodes && n0 == 0; j++) {
        size_t cnt = node_leaves(t, j, b0);
        if (cnt == t->first[j + 1] - t->first[j]) {
            n0 = cnt;
            for (size_t p = j + 1; p < t->nnodes; p++) {
                int has = 0;
                for (size_t q = t->first[p]; q < t->first[p + 1]; q++)
                    has |= t->kids[q] == t->n + j;
                if (has) {
                    n1 = node_leaves(t, p, b1);
                    break;
                }
            }
        } else {
            n0 = 0;
        }
    }
    ps->tcB = n0;
    ps->lo[ST_TC1] = ps->rows.count;
    if (n0 >= 3) {
        /* a product 2^e as two factors of the input format */
        for (int variant = 0; variant < 6 && rc == 0; variant++)
            for (int k = 16; k <= 44 && rc == 0; k++) {
                term ts[4];
                size_t nt = 0;
                int e1 = -(k / 2), e2 = -k - e1;
                if (e1 < lo_in || e2 < lo_in)
                    continue;
                if (variant == 3 || variant == 5) {
                    /* 2.25 - 2.25: products of significand >= 2 */
                    uint64_t a15 = rv_val(in, 0, 0, 1, 1);
                    ts[nt].pos = b0[0]; ts[nt].a = a15; ts[nt++].b = a15;
                    ts[nt].pos = b0[1]; ts[nt].a = rv_val(in, 1, 0, 1, 1);
                    ts[nt++].b = a15;
                } else if (variant == 4) {
                    /* the running sum: 1 from block 0, -1 in block 1 */
                    if (n1 < 3)
                        continue;
                    ts[nt].pos = b0[0]; ts[nt].a = one; ts[nt++].b = one;
                    ts[nt].pos = b1[0]; ts[nt].a = rv_pow2(in, 0, 1);
                    ts[nt++].b = one;
                } else {
                    ts[nt].pos = b0[0]; ts[nt].a = one; ts[nt++].b = one;
                    ts[nt].pos = b0[1]; ts[nt].a = rv_pow2(in, 0, 1);
                    ts[nt++].b = one;
                }
                {
                    size_t pos = variant == 4 ? b1[1] : b0[2];
                    int neg = variant == 1 || variant == 5;
                    if (variant == 2 || variant == 1) {
                        /* 1.5 * 2^-k: two bits around the window edge */
                        uint64_t x = rv_val(in, neg, e1, 1, 1);
                        ts[nt].pos = pos; ts[nt].a = x;
                        ts[nt++].b = rv_pow2(in, e2, 0);
                    } else {
                        ts[nt].pos = pos; ts[nt].a = rv_pow2(in, e1, neg);
                        ts[nt++].b = rv_pow2(in, e2, 0);
                    }
                }
                rc = add_row(r, ps, ts, nt);
            }
    }
    ps->hi[ST_TC1] = ps->rows.count;
    ps->lo[ST_TC2] = ps->rows.count;
    if (n0 >= 3) {
        /* 1 + small terms whose sum is not a binary32 (or binary16) value:
         * the rounding of the block's result */
        static const int fr[6][2] = {{1, 0}, {3, 1}, {1, 1}, {5, 2}, {7, 2}, {3, 2}};
        for (int k = 9; k <= 30 && rc == 0; k++)
            for (int v = 0; v < 6 && rc == 0; v++)
                for (int s = 0; s < 2 && rc == 0; s++) {
                    term ts[3];
                    int e1 = -(k / 2), e2 = -k - e1;
                    if (e1 < lo_in || e2 < lo_in)
                        continue;
                    ts[0].pos = b0[0]; ts[0].a = rv_pow2(in, 0, s);
                    ts[0].b = one;
                    /* (fr/2^sh) * 2^-k as (1 + frac) * 2^(e1 - sh') */
                    {
                        int num = fr[v][0], sh = fr[v][1];
                        /* num in {1,3,5,7}: num = 2^q (1 + f) */
                        int q = num >= 4 ? 2 : num >= 2 ? 1 : 0;
                        uint64_t frac = (uint64_t)(num - (1 << q));
                        ts[1].pos = b0[1];
                        ts[1].a = rv_val(in, s, e1 + q - sh, frac, q);
                        ts[1].b = rv_pow2(in, e2, 0);
                    }
                    rc = add_row(r, ps, ts, 2);
                }
    }
    ps->hi[ST_TC2] = ps->rows.count;
    free(b0);
    free(b1);
    return rc;
}

static int build_common(rv *r, probe_set *ps, const fl_reveal_tree *t)
{
    const fl_format *in = &r->in, *out = &r->out;
    size_t ci = ps->ci, cj = ps->cj;
    int lo_in = fmt_emin_sub(in);
    uint64_t one = rv_pow2(in, 0, 0);
    uint64_t seed = 0x5EED0000ull ^ r->o->seed;

    /* subnormals */
    ps->lo[ST_SUB] = ps->rows.count;
    if (in->subnormals) {
        int em = in->emin;
        if (row3(r, ps, ci, rv_pow2(in, lo_in, 0), (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, rv_pow2(in, lo_in, 1), (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, rv_pow2(in, em, 0), cj, rv_pow2(in, em - 1, 0),
                 (size_t)-1, 0) ||
            row3(r, ps, ci, rv_val(in, 0, em, 1, 1), cj, rv_pow2(in, em, 1),
                 (size_t)-1, 0) ||
            row3(r, ps, ci, rv_val(in, 1, em, 1, 1), cj, rv_pow2(in, em, 0),
                 (size_t)-1, 0) ||
            row3(r, ps, ci, rv_pow2(in, lo_in, 0), cj, in->sign_mask,
                 (size_t)-1, 0))
            return -1;
        if (r->prod) {
            /* a subnormal input times a large factor: a normal product,
             * gone only when inputs are flushed (DAZ), either operand */
            int big = in->prec + 1 < in->emax ? in->prec + 1 : in->emax;
            for (int side = 0; side < 2; side++) {
                term ts[1];
                uint64_t sub = rv_val(in, side, lo_in + 1, 1, 1);  /* 3 min_sub */
                ts[0].pos = ci;
                ts[0].a = side ? rv_pow2(in, big, 0) : sub;
                ts[0].b = side ? sub : rv_pow2(in, big, 0);
                if (add_row(r, ps, ts, 1))
                    return -1;
            }
            /* a subnormal input against a -0: only the sign of the zero
             * may show DAZ through a narrow output (rdn: +0 + -0 = -0) */
            {
                term ts[2];
                ts[0].pos = ci;
                ts[0].a = rv_val(in, 0, lo_in + 1, 1, 1);
                ts[0].b = rv_pow2(in, big, 0);
                ts[1].pos = cj;
                ts[1].a = in->sign_mask;
                ts[1].b = rv_pow2(in, 0, 0);
                if (add_row(r, ps, ts, 2))
                    return -1;
            }
            /* a product that overflows on its own but not inside an fma:
             * -2^ea + 1.25 * 2^(ea+1) = 1.5 * 2^ea (both sides of the first
             * pair; ea the largest exponent of binary32 and of the input) */
            {
                int eas[2] = {fl_binary32.emax, in->emax};
                for (int q = 0; q < 2; q++) {
                    int ea = eas[q];
                    if (q == 1 && ea == eas[0])
                        continue;
                    if (ea > in->emax || ea < in->emin + 2)
                        continue;
                    for (int side = 0; side < 2; side++) {
                        term ts[2];
                        ts[0].pos = side ? cj : ci;
                        ts[0].a = rv_pow2(in, ea, 1);
                        ts[0].b = rv_pow2(in, 0, 0);
                        ts[1].pos = side ? ci : cj;
                        ts[1].a = rv_val(in, 0, ea, 1, 2);   /* 1.25 * 2^ea */
                        ts[1].b = rv_pow2(in, 1, 0);
                        if (add_row(r, ps, ts, 2))
                            return -1;
                    }
                }
            }
            /* products that are subnormal in the input format */
            int e1 = (em - 1) / 2, e2 = em - 1 - e1;
            term ts[1];
            ts[0].pos = ci;
            ts[0].a = rv_pow2(in, e1, 0);
            ts[0].b = rv_pow2(in, e2, 0);
            if (add_row(r, ps, ts, 1))
                return -1;
            ts[0].a = rv_val(in, 1, e1, 1, 1);
            if (add_row(r, ps, ts, 1))
                return -1;
        }
    }
    /* a product that underflows the accumulator, into a normal running
     * value: a rounded product is flushed (ftz) or rounded to the
     * subnormal grid, a fused one is not; both sides of the first pair */
    if (r->prod) {
        int eas[3] = {fl_binary32.emin, fl_binary16.emin, in->emin};
        for (int q = 0; q < 3; q++) {
            int ea = eas[q], dup = 0;
            for (int z = 0; z < q; z++)
                dup |= eas[z] == ea;
            for (int side = 0; side < 2 && !dup; side++) {
                term ts[2];
                int x1 = (ea + 1) / 2, y1 = ea + 1 - x1;
                int x2 = (ea - 1) / 2, y2 = ea - 1 - x2;
                if (x1 < in->emin || y1 < in->emin || x2 < in->emin ||
                    y2 < in->emin || x1 > in->emax || y2 > in->emax)
                    break;
                ts[0].pos = side ? cj : ci;
                ts[0].a = rv_pow2(in, x1, 0);
                ts[0].b = rv_pow2(in, y1, 0);
                ts[1].pos = side ? ci : cj;
                ts[1].a = rv_val(in, 1, x2, 1, 1);   /* -1.5 * 2^x2 */
                ts[1].b = rv_pow2(in, y2, 0);
                if (add_row(r, ps, ts, 2))
                    return -1;
            }
        }
    }
    /* a subnormal result of the last addition (the root: one term in each
     * of its two subtrees): with DAZ every earlier subnormal partial sum
     * is flushed when the next addition reads it, so FTZ shows only here */
    if (t->nnodes > 0 && t->first[t->nnodes] - t->first[t->nnodes - 1] == 2) {
        size_t rl = t->kids[t->first[t->nnodes - 1]];
        size_t rr = t->kids[t->first[t->nnodes - 1] + 1];
        int ems[2] = {in->emin, fl_binary32.emin};
        /* the smallest term under each child */
        while (rl >= t->n)
            rl = t->kids[t->first[rl - t->n]];
        while (rr >= t->n)
            rr = t->kids[t->first[rr - t->n]];
        for (int q = 0; q < 2; q++) {
            if (q == 1 && (ems[1] == ems[0] || !r->prod))
                continue;
            for (int sg = 0; sg < 2; sg++) {
                term x, y;
                term_val(r, &x, rl, ems[q], 1, 1, sg);
                term_val(r, &y, rr, ems[q], 0, 0, !sg);
                if (rowt3(r, ps, x, y, x, 0))
                    return -1;
            }
        }
    }
    /* results subnormal in the output format but normal in the input */
    if (out->subnormals && out->emin > in->emin + 2) {
        int e = out->emin - 2;
        if (row3(r, ps, ci, rv_pow2(in, e, 0), (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, rv_val(in, 1, e, 1, 1), (size_t)-1, 0, (size_t)-1, 0))
            return -1;
    }
    ps->hi[ST_SUB] = ps->rows.count;

    /* the output rounding: ties and near-ties of out's precision */
    ps->lo[ST_OUT] = ps->rows.count;
    if (out->prec <= 53 && out->prec + 2 <= 60) {
        int p = out->prec;
        for (int s = 0; s < 2; s++)
            for (int d = 0; d < 4; d++) {
                /* 1 + {1, 1.5, 0.5, 0.75} * 2^-p */
                uint64_t x = d == 0 ? rv_pow2(in, -p, s)
                           : d == 1 ? rv_val(in, s, -p, 1, 1)
                           : d == 2 ? rv_pow2(in, -p - 1, s)
                                    : rv_val(in, s, -p - 1, 1, 1);
                if (-p - 2 < lo_in)
                    continue;
                if (row3(r, ps, ci, rv_pow2(in, 0, s), cj, x, (size_t)-1, 0))
                    return -1;
            }
        /* an odd neighbour: 1 + 2^(1-p) + 2^-p (ties to even go up) */
        if (1 - p >= lo_in && -p >= lo_in && t->n >= 3)
            for (int s = 0; s < 2; s++)
                if (row3(r, ps, ci, rv_pow2(in, 0, s), cj, rv_pow2(in, 1 - p, s),
                         ps->cm, rv_pow2(in, -p, s)))
                    return -1;
    }
    ps->hi[ST_OUT] = ps->rows.count;

    /* range: overflow of the sum of two largest terms, of the output */
    ps->lo[ST_RANGE] = ps->rows.count;
    {
        uint64_t mx = in->max_bits;
        if (row3(r, ps, ci, mx, cj, mx, (size_t)-1, 0) ||
            row3(r, ps, ci, mx | in->sign_mask, cj, mx | in->sign_mask,
                 (size_t)-1, 0))
            return -1;
        if (out->emax < in->emax) {
            uint64_t x = rv_pow2(in, out->emax, 0);
            if (row3(r, ps, ci, x, cj, x, (size_t)-1, 0))
                return -1;
        }
    }
    ps->hi[ST_RANGE] = ps->rows.count;

    /* the start value: a row of -0 */
    ps->lo[ST_ZERO] = ps->rows.count;
    {
        size_t row = rv_rows_add(&ps->rows, in);
        if (row == (size_t)-1)
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        for (size_t k = 0; k < r->T; k++)
            rv_row_a(&ps->rows, row)[k] = in->sign_mask;
        /* and +0 with a lone -0 term, -0 with one +0 */
        if (row3(r, ps, ci, in->sign_mask, (size_t)-1, 0, (size_t)-1, 0))
            return -1;
    }
    ps->hi[ST_ZERO] = ps->rows.count;

    /* NaN and infinity */
    ps->lo[ST_NAN] = ps->rows.count;
    if (in->has_inf && in->nan_style == FL_NANSTYLE_IEEE && in->prec >= 3) {
        uint64_t pinf = in->exp_mask, ninf = in->exp_mask | in->sign_mask;
        uint64_t pay = 0x5A5A5A5A5A5ull;
        if (row3(r, ps, ci, pinf, cj, ninf, (size_t)-1, 0) ||
            row3(r, ps, ci, nan_bits(in, 0, 1, pay), (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, nan_bits(in, 1, 1, pay >> 3), (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, nan_bits(in, 0, 0, pay >> 1), (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, nan_bits(in, 1, 1, 0), cj, pinf, (size_t)-1, 0) ||
            row3(r, ps, ci, pinf, (size_t)-1, 0, (size_t)-1, 0) ||
            row3(r, ps, ci, ninf, cj, one, (size_t)-1, 0))
            return -1;
        if (r->prod) {
            term ts[1];
            ts[0].pos = ci;
            ts[0].a = pinf;
            ts[0].b = 0;
            if (add_row(r, ps, ts, 1))
                return -1;
            ts[0].a = one;
            ts[0].b = nan_bits(in, 0, 1, pay >> 2);
            if (add_row(r, ps, ts, 1))
                return -1;
        }
    }
    ps->hi[ST_NAN] = ps->rows.count;

    /* random rows: whole rows of moderate values, and rows of a few terms
     * with a wide spread */
    ps->lo[ST_RAND] = ps->rows.count;
    for (int k = 0; k < 96; k++) {
        size_t row = rv_rows_add(&ps->rows, in);
        uint64_t *a, *b;
        if (row == (size_t)-1)
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        a = rv_row_a(&ps->rows, row);
        b = ps->rows.prod ? rv_row_b(&ps->rows, row) : NULL;
        for (size_t i = 0; i < r->T; i++) {
            uint64_t z = splitmix(&seed);
            int e = k < 64 ? (int)(z % 9) - 4 : (int)(z % 41) - 20;
            uint64_t frac = (z >> 8) & ((1ull << 20) - 1);
            int fb = in->prec - 1 < 20 ? in->prec - 1 : 20;
            if (k >= 64 && (z >> 40) % 4 != 0) {
                a[i] = 0;
                continue;
            }
            a[i] = rv_val(in, (int)((z >> 60) & 1), e, frac >> (20 - fb), fb);
            if (b) {
                uint64_t y = splitmix(&seed);
                b[i] = rv_val(in, (int)((y >> 60) & 1), (int)(y % 5) - 2,
                              (y >> 8) & ((1ull << fb) - 1), fb);
            }
        }
    }
    ps->hi[ST_RAND] = ps->rows.count;
    return 0;
}

/* ------------------------------------------------------------------------
 * Simulation.
 * ---------------------------------------------------------------------- */
enum { CMP_VALUE = 0, CMP_BITS = 1 };

/* Kernel vs model: bits, or values (every zero equal, every NaN equal). */
static int same(const fl_format *f, uint64_t x, uint64_t y, int mode)
{
    if (x == y)
        return 1;
    if (mode == CMP_BITS)
        return 0;
    if (fl_is_nan(f, x) && fl_is_nan(f, y))
        return 1;
    return fl_is_zero(f, x) && fl_is_zero(f, y);
}

typedef struct simbuf {
    uint64_t *out;
    size_t cap;
} simbuf;

/* Matches of model m on rows [lo, hi); -1 when the model cannot run. */
static long sim(rv *r, probe_set *ps, simbuf *sb, const fl_ref_model *m,
                size_t lo, size_t hi, int mode)
{
    size_t cnt = hi - lo;
    long ok = 0;
    char err[256];
    int rc;
    if (cnt == 0)
        return 0;
    if (sb->cap < cnt) {
        uint64_t *p = realloc(sb->out, cnt * sizeof *p);
        if (p == NULL)
            return -1;
        sb->out = p;
        sb->cap = cnt;
    }
    if (r->prod)
        rc = fl_ref_dot(m, ps->rows.a + lo * ps->rows.T,
                        ps->rows.b + lo * ps->rows.T, cnt, ps->rows.T, sb->out,
                        r->o->nthreads, NULL, err, sizeof err);
    else
        rc = fl_ref_sum(m, ps->rows.a + lo * ps->rows.T, cnt, ps->rows.T,
                        sb->out, r->o->nthreads, NULL, err, sizeof err);
    if (rc != 0)
        return -1;
    for (size_t k = 0; k < cnt; k++)
        ok += same(&r->out, ps->rows.out[lo + k], sb->out[k], mode) ||
              (m->nan_any && fl_is_nan(&r->out, ps->rows.out[lo + k]) &&
               fl_is_nan(&r->out, sb->out[k]));
    return ok;
}

/* ------------------------------------------------------------------------
 * Candidates.
 * ---------------------------------------------------------------------- */
typedef struct ocand {
    char *spec;            /* order=... value */
    int has_zero;          /* the order starts from +0 itself */
    const char *name;      /* for the findings */
} ocand;

static int set_key(fl_ref_model *m, const char *k, const char *v)
{
    char err[512];
    return fl_ref_model_set(m, k, v, NULL, err, sizeof err);
}

static int try_named(const fl_reveal_tree *t, const char *spec, int *has_zero)
{
    fl_ref_model m;
    fl_reveal_tree x;
    int same_shape = 0;
    fl_ref_model_init(&m);
    if (set_key(&m, "order", spec) != 0)
        return 0;
    if (rv_model_tree(&m, t->n, &x, has_zero) == 0) {
        same_shape = rv_tree_same_shape(&x, t);
        fl_reveal_tree_free(&x);
    }
    fl_ref_model_free(&m);
    return same_shape;
}

/* Parameters worth trying for n terms: all up to 512; above, powers of
 * two, divisors of n and multiples of 8 up to 64. */
static int param_ok(size_t n, size_t p)
{
    if (n <= 512)
        return 1;
    return (p & (p - 1)) == 0 || n % p == 0 || (p <= 64 && p % 8 == 0);
}

/* The named orders (families: every n) with the tree's shape, by
 * preference: the fixed names, pairwise:B, lanes:W:seq|pairwise|halving,
 * blocked:K, splitk:S, cascade:A[:pairs|:halves], pairswap[:B],
 * tiles:B:W.  Up to
 * max specs (malloc'd) into out; *has_zero of each when hz != NULL.
 * first_only: stop at the first. */
static size_t family_orders(const fl_reveal_tree *t, char **out, int *hz,
                            size_t max, int first_only)
{
    size_t n = t->n, cnt = 0;
    char spec[64];
    int z;
    static const char *const fixed[] = {"sequential", "reverse", "numpy"};
    static const char *const loads[] = {"", ":pairs", ":halves"};
#define TRY(S) do {                                                        \
        if (cnt < max && try_named(t, (S), &z)) {                          \
            out[cnt] = strdup(S);                                          \
            if (out[cnt] == NULL)                                          \
                return cnt;                                                \
            if (hz)                                                        \
                hz[cnt] = z;                                               \
            cnt++;                                                         \
            if (first_only || cnt == max)                                  \
                return cnt;                                                \
        }                                                                  \
    } while (0)
    for (int k = 0; k < 3; k++)
        TRY(fixed[k]);
    for (int fam = 0; fam < 6; fam++)
        for (size_t p = fam == 0 ? 1 : 2; p <= n; p++) {
            if (!param_ok(n, p))
                continue;
            switch (fam) {
            case 0: snprintf(spec, sizeof spec, "pairwise:%zu", p); break;
            case 1: snprintf(spec, sizeof spec, "lanes:%zu:seq", p); break;
            case 2: snprintf(spec, sizeof spec, "lanes:%zu:pairwise", p); break;
            case 3: snprintf(spec, sizeof spec, "lanes:%zu:halving", p); break;
            case 4: snprintf(spec, sizeof spec, "blocked:%zu", p); break;
            default: snprintf(spec, sizeof spec, "splitk:%zu", p); break;
            }
            TRY(spec);
        }
    for (size_t A = 4; A <= 32; A *= 2)
        for (int l = 0; l < 3; l++) {
            snprintf(spec, sizeof spec, "cascade:%zu%s", A, loads[l]);
            TRY(spec);
        }
    TRY("pairswap");
    for (size_t B = 64; B <= 8192; B *= 2) {
        snprintf(spec, sizeof spec, "pairswap:%zu", B);
        TRY(spec);
    }
    for (size_t B = 8; B <= 256; B *= 2)
        for (size_t W = 2; W <= 16 && W < B; W *= 2) {
            snprintf(spec, sizeof spec, "tiles:%zu:%zu", B, W);
            TRY(spec);
        }
#undef TRY
    return cnt;
}

size_t rv_family_orders(const fl_reveal_tree *t, char **out, size_t max)
{
    return family_orders(t, out, NULL, max, 0);
}

/* The first named order, by preference, with the tree's shape (0 or 1
 * entries: one name is enough, the tree itself is the other candidate). */
static size_t named_orders(const fl_reveal_tree *t, ocand *out, size_t max)
{
    char *spec = NULL;
    int hz = 0;
    if (max == 0 || family_orders(t, &spec, &hz, 1, 1) == 0)
        return 0;
    out[0].spec = spec;
    out[0].has_zero = hz;
    out[0].name = spec;
    return 1;
}

/* tc shapes: a chain of blocks of B terms (sequential), or S such chains
 * over contiguous parts added in order (splitk:S). */
static int tc_shape(size_t n, size_t B, size_t S, fl_reveal_tree *t)
{
    size_t part = S <= 1 ? n : (n + S - 1) / S, nparts = (n + part - 1) / part;
    size_t cap = n + nparts + 2, nn = 0, w = 0, prev_root = (size_t)-1;
    memset(t, 0, sizeof *t);
    t->n = n;
    t->first = malloc((cap + 1) * sizeof *t->first);
    t->kids = malloc((2 * n + 2 * cap) * sizeof *t->kids);
    if (t->first == NULL || t->kids == NULL) {
        fl_reveal_tree_free(t);
        return -1;
    }
    for (size_t s = 0; s < nparts; s++) {
        size_t lo = s * part, hi = lo + part < n ? lo + part : n;
        size_t c = (size_t)-1;
        for (size_t i = lo; i < hi; i += B) {
            size_t e = i + B < hi ? i + B : hi;
            size_t ops = (e - i) + (c != (size_t)-1);
            if (ops < 2) {   /* a lone term: no node */
                c = i;
                continue;
            }
            t->first[nn] = w;
            if (c != (size_t)-1)
                t->kids[w++] = c;
            for (size_t k = i; k < e; k++)
                t->kids[w++] = k;
            c = n + nn++;
        }
        if (prev_root == (size_t)-1) {
            prev_root = c;
        } else {
            t->first[nn] = w;
            t->kids[w++] = prev_root;
            t->kids[w++] = c;
            prev_root = n + nn++;
        }
    }
    t->first[nn] = w;
    t->nnodes = nn;
    return 0;
}

/* ------------------------------------------------------------------------
 * Stages.
 * ---------------------------------------------------------------------- */
typedef struct stage_res {
    long best;             /* matches of the winner */
    size_t rows;
    int full;              /* the winner matched every row */
} stage_res;

/* Try candidate values of one or two keys; the first full match (else the
 * best) is applied to *m.  keys/vals: ncand entries of up to 4 key=value
 * pairs each, the keys after the last one NULL (a candidate is written as
 * one initializer, (kv3){{keys}, {values}}). */
typedef struct kv3 {
    const char *k[4];
    const char *v[4];
} kv3;

static int apply_kv(fl_ref_model *m, const kv3 *c)
{
    for (int q = 0; q < 4 && c->k[q]; q++)
        if (set_key(m, c->k[q], c->v[q]) != 0)
            return -1;
    return 0;
}

static int run_stage(rv *r, probe_set *ps, simbuf *sb, fl_ref_model *m,
                     const kv3 *cand, size_t ncand, size_t lo, size_t hi,
                     int mode, stage_res *sr, int *winner)
{
    long best = -1;
    int bi = -1;
    char err[256];
    sr->rows = hi - lo;
    sr->full = 0;
    sr->best = 0;
    *winner = -1;
    if (hi == lo)
        return 0;
    for (size_t c = 0; c < ncand; c++) {
        fl_ref_model x;
        long ok;
        if (fl_ref_model_copy(&x, m) != 0)
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        if (apply_kv(&x, &cand[c]) != 0 ||
            fl_ref_model_check(&x, r->o->op, r->T, err, sizeof err) != 0) {
            fl_ref_model_free(&x);
            continue;
        }
        ok = sim(r, ps, sb, &x, lo, hi, mode);
        fl_ref_model_free(&x);
        if (ok > best) {
            best = ok;
            bi = (int)c;
        }
        if (ok == (long)(hi - lo))
            break;
    }
    if (bi < 0)
        return 0;
    sr->best = best;
    sr->full = best == (long)(hi - lo);
    *winner = bi;
    if (apply_kv(m, &cand[bi]) != 0)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    return 0;
}

/* ------------------------------------------------------------------------
 * Findings in words.
 * ---------------------------------------------------------------------- */
static const char *fmt_name(const fl_format *f, char *buf, size_t len)
{
    fl_format_spec(f, buf, len);
    return buf;
}

/* One finding: what the probes showed (obs, may be NULL) and the model's
 * choice.  A choice that does not reproduce every probe of its stage is
 * called the closest, with its count: no line claims more than its
 * numbers show. */
static void note_stage(rv *r, const char *what, const stage_res *sr,
                       const char *obs, const char *choice)
{
    if (sr->rows == 0)
        return;
    if (sr->full)
        rv_log(r, "  %-15s %s%s%s", what, obs ? obs : "", obs ? ": " : "",
               choice);
    else
        rv_log(r, "  %-15s %s%sno candidate reproduces all %zu probes of this "
               "stage; the closest, %s, agrees on %ld", what, obs ? obs : "",
               obs ? "; " : "", sr->rows, choice, sr->best);
}

/* The largest k whose 2^E + 2^(E-k) survived, over the scales whose
 * probes stayed finite; *kmax: that scale's largest k. */
static int observed_prec(rv *r, probe_set *ps, int *kmax)
{
    int best = 0;
    size_t base = ps->lo[ST_PREC];
    *kmax = ps->nE ? ps->kmaxs[0] : 0;
    for (int q = 0; q < ps->nE; q++) {
        int last = 0;
        for (int k = 1; k <= ps->kmaxs[q]; k++) {
            uint64_t y = ps->rows.out[base + (size_t)(k - 1)];
            double v = fl_to_double(&r->out, y);
            if (v != ldexp(1.0, ps->Es[q] - k))
                break;
            last = k;
        }
        if (last > best) {
            best = last;
            *kmax = ps->kmaxs[q];
        }
        base += (size_t)ps->kmaxs[q];
    }
    return best;
}

static const char *rm_words(int rm)
{
    switch (rm) {
    case FL_RNE: return "to nearest, ties to even";
    case FL_RNA: return "to nearest, ties away from zero";
    case FL_RTZ: return "toward zero (truncation)";
    case FL_RDN: return "toward -infinity";
    case FL_RUP: return "toward +infinity";
    case FL_RTO: return "to odd";
    default: return "stochastic";
    }
}

/* ------------------------------------------------------------------------
 * The search.
 * ---------------------------------------------------------------------- */
static int kv_list_rm(kv3 *c, const char *key)
{
    static const char *const rms[] = {"rne", "rna", "rtz", "rdn", "rup", "rto"};
    for (int q = 0; q < 6; q++) {
        memset(&c[q], 0, sizeof c[q]);
        c[q].k[0] = key;
        c[q].v[0] = rms[q];
    }
    return 6;
}

static void free_ocands(ocand *o, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free(o[k].spec);
}

/* The n candidates give way to one: the explicit tree spec (copied).
 * Returns the new count, 1. */
static size_t only_tree(ocand *o, size_t n, const char *spec)
{
    free_ocands(o, n);
    o[0].spec = strdup(spec);
    o[0].has_zero = 0;
    o[0].name = "tree";
    return 1;
}

/* Orient the cherries from the product rows: the fused term goes right. */
static char *oriented_expr(const fl_reveal_tree *t, const probe_set *ps,
                           const rv *r, int p_index, int *fused_any,
                           int *both)
{
    fl_reveal_tree c;
    char *e;
    size_t base = ps->lo[ST_PROD] + (size_t)p_index * 2 * ps->nch;
    *fused_any = 0;
    *both = 0;
    if (rv_tree_copy(&c, t) != 0)
        return NULL;
    for (size_t k = 0; k < ps->nch; k++) {
        uint64_t y0 = ps->rows.out[base + 2 * k], y1 = ps->rows.out[base + 2 * k + 1];
        int f0 = !fl_is_zero(&r->out, y0) && !fl_is_nan(&r->out, y0);
        int f1 = !fl_is_zero(&r->out, y1) && !fl_is_nan(&r->out, y1);
        *fused_any |= f0 | f1;
        *both |= f0 && f1;
        /* f0: the product at the lower term was fused: it goes right */
        for (size_t j = 0; j < c.nnodes; j++) {
            size_t *kk = c.kids + c.first[j];
            if (c.first[j + 1] - c.first[j] != 2)
                continue;
            if ((kk[0] == ps->ch[k].lo && kk[1] == ps->ch[k].hi) ||
                (kk[1] == ps->ch[k].lo && kk[0] == ps->ch[k].hi)) {
                kk[0] = f0 && !f1 ? ps->ch[k].hi : ps->ch[k].lo;
                kk[1] = f0 && !f1 ? ps->ch[k].lo : ps->ch[k].hi;
            }
        }
    }
    e = fl_reveal_tree_expr(&c);
    fl_reveal_tree_free(&c);
    return e;
}

int rv_search(rv *r, const fl_reveal_tree *t, const rv_scale *sc,
              fl_ref_model *model, fl_ref_model **alts, size_t *nalts)
{
    probe_set ps;
    simbuf sb = {NULL, 0};
    ocand oc[16];
    size_t noc = 0;
    fl_ref_model m;
    char buf[512], fa[64], fo[64];
    stage_res sr[ST_COUNT];
    int rc = -1, win;
    size_t maxar = rv_tree_max_arity(t);
    kv3 cand[128];
    size_t nc;
    char *tree_spec = NULL;

    *alts = NULL;
    *nalts = 0;
    memset(&ps, 0, sizeof ps);
    memset(sr, 0, sizeof sr);
    memset(oc, 0, sizeof oc);
    rv_rows_init(&ps.rows, r->T, r->prod);
    fl_ref_model_init(&m);
    m.in = r->in;
    m.in_set = 1;
    m.out = r->out;
    m.out_set = 1;

    ps.tc = maxar > 2;
    if (ps.tc && !r->prod) {
        rv_fail(r, FL_REVEAL_MISMATCH,
                "the kernel adds %zu terms in one operation (a fused multi-term "
                "addition); fplab's models fuse terms only as the products of "
                "a block FMA (dot, gemm), not in a sum", maxar);
        goto out;
    }
    /* the main cherry and a term joined after it */
    {
        cherry c1[1];
        if (!ps.tc && find_cherries(t, c1, 1) == 1) {
            ps.ci = c1[0].lo;
            ps.cj = c1[0].hi;
        } else {
            ps.ci = 0;
            ps.cj = 1;
        }
        ps.cm = (size_t)-1;
        for (size_t k = 0; k < t->n; k++)
            if (k != ps.ci && k != ps.cj) {
                ps.cm = k;
                break;
            }
        ps.nch = ps.tc ? 0 : find_cherries(t, ps.ch, 64);
    }
    if (!ps.tc) {
        if (build_binary(r, &ps, t, sc) != 0)
            goto out;
    } else if (build_tc(r, &ps, t) != 0) {
        goto out;
    }
    if (build_common(r, &ps, t) != 0)
        goto out;
    rv_log(r, "accumulator: %zu probe rows (%s), 1 call", ps.rows.count,
           ps.tc ? "block FMA" : "precision, rounding, products, subnormals, "
                                 "start, output, NaN");
    if (rv_run_rows(r, &ps.rows) != 0)
        goto out;

    /* ---- order candidates ---- */
    if (!ps.tc) {
        char *e = fl_reveal_tree_expr(t);
        size_t need;
        noc = named_orders(t, oc, 12);
        if (e == NULL) {
            rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        need = strlen(e) + 6;
        tree_spec = malloc(need);
        if (tree_spec == NULL) {
            free(e);
            rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        snprintf(tree_spec, need, "tree:%s", e);
        free(e);
        oc[noc].spec = strdup(tree_spec);
        oc[noc].has_zero = 0;
        oc[noc].name = "tree";
        noc++;
        if (noc > 1)
            rv_log(r, "  %-15s the tree is order=%s", "order", oc[0].spec);
        else
            rv_log(r, "  %-15s no named order has this tree: order=tree:EXPR",
                   "order");
        if (set_key(&m, "order", oc[0].spec) != 0) {
            rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
    } else {
        /* a chain of blocks, or S chains added in order */
        size_t B = ps.tcB, S = 0;
        fl_reveal_tree x;
        char spec[64];
        if (B < 2) {
            rv_fail(r, FL_REVEAL_MISMATCH,
                    "the kernel has fused multi-term additions that are not "
                    "blocks of products starting a chain");
            goto out;
        }
        for (size_t s = 1; s <= t->n && S == 0; s++) {
            if (tc_shape(t->n, B, s, &x) != 0) {
                rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                goto out;
            }
            if (rv_tree_same_shape(&x, t))
                S = s;
            fl_reveal_tree_free(&x);
            if (s > 64 && S == 0)
                break;
        }
        if (S == 0) {
            rv_fail(r, FL_REVEAL_MISMATCH,
                    "the kernel adds blocks of %zu products at once, but its "
                    "blocks do not form a chain (or S chains added in order) "
                    "that fplab's tc model describes", B);
            goto out;
        }
        snprintf(spec, sizeof spec, "block:%zu,neab:0,align:trunc,norm:once,rm:rtz",
                 B);
        if (set_key(&m, "tc", spec) != 0 ||
            set_key(&m, "order", S == 1 ? "sequential" : "splitk:2") != 0) {
            rv_fail(r, FL_REVEAL_BAD_OPTIONS, "the block of %zu products is "
                    "outside the tc model (1..64)", B);
            goto out;
        }
        if (S > 1) {
            snprintf(spec, sizeof spec, "splitk:%zu", S);
            set_key(&m, "order", spec);
        }
        oc[0].spec = strdup(m.order == FL_REF_SPLITK ? spec : "sequential");
        noc = 1;
        rv_log(r, "  %-15s blocks of %zu products, each one fused addition with "
               "the running sum (tc block:%zu)%s", "order", B, B,
               S > 1 ? ", in parallel chains" : "");
        if (S > 1)
            rv_log(r, "  %-15s %zu chains over contiguous parts, added in order "
                   "(order=%s)", "", S, spec);
    }

    /* ---- stage 1: accumulator format and rounding ---- */
    if (!ps.tc) {
        const fl_format *accs[6] = {&fl_binary32, &fl_binary64, &r->in,
                                    &fl_binary16, &fl_bfloat16, NULL};
        static const char *const rms[] = {"rne", "rna", "rtz", "rdn", "rup", "rto"};
        char names[6][64];
        size_t na = 0;
        nc = 0;
        for (int a = 0; accs[a]; a++) {
            int dup = 0;
            fmt_name(accs[a], names[na], sizeof names[na]);
            for (size_t q = 0; q < na; q++)
                dup |= !strcmp(names[q], names[na]);
            if (dup)
                continue;
            for (int q = 0; q < 6; q++)
                cand[nc++] = (kv3){{"acc", "acc-rm"}, {names[na], rms[q]}};
            na++;
        }
        if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_PREC],
                      ps.hi[ST_ROUND], CMP_VALUE, &sr[ST_PREC], &win) != 0)
            goto out;
        {
            int km, k = observed_prec(r, &ps, &km);
            char txt[300];
            if (k >= km)
                snprintf(txt, sizeof txt, "at least %d bits (2^E + 2^(E-k) "
                         "survives for every k <= %d the input can hold)",
                         k + 1, k);
            else
                snprintf(txt, sizeof txt, "%d bits (2^E + 2^(E-k) survives for "
                         "k <= %d, not k = %d)", k + 1, k, k + 1);
            note_stage(r, "accumulator", &sr[ST_PREC], txt,
                       fmt_name(&m.acc, fa, sizeof fa));
            snprintf(txt, sizeof txt, "%s (acc-rm=%s)", rm_words(m.acc_rm),
                     fl_rm_name(m.acc_rm));
            note_stage(r, "rounding", &sr[ST_PREC], NULL, txt);
        }
    } else {
        /* block FMA: window and alignment, then the block's rounding */
        static const char *const al[] = {"trunc", "floor", "rne"};
        static const char *const no[] = {"once", "products"};
        char (*specs)[96] = malloc(64 * 2 * 3 * sizeof *specs);
        size_t B = ps.tcB;
        if (specs == NULL) {
            rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            goto out;
        }
        nc = 0;
        for (int neab = 0; neab <= 10; neab++)
            for (int a = 0; a < 3; a++)
                for (int q = 0; q < 2; q++) {
                    snprintf(specs[nc], sizeof specs[nc],
                             "block:%zu,neab:%d,align:%s,norm:%s,rm:rtz", B, neab,
                             al[a], no[q]);
                    cand[nc] = (kv3){{"tc"}, {specs[nc]}};
                    nc++;
                }
        if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_TC1], ps.hi[ST_TC1],
                      CMP_VALUE, &sr[ST_TC1], &win) != 0) {
            free(specs);
            goto out;
        }
        {
            char txt[300];
            snprintf(txt, sizeof txt, "%d extra alignment bits (a window of %d), "
                     "terms cut %s, %s (tc neab:%d,align:%s,norm:%s)",
                     m.tc.neab, 24 + m.tc.neab,
                     m.tc.align == 0 ? "toward zero" : m.tc.align == 1
                         ? "toward -infinity" : "to nearest",
                     m.tc.norm == 0 ? "products not normalised before the "
                                      "alignment" : "products normalised first",
                     m.tc.neab, al[m.tc.align], no[m.tc.norm]);
            note_stage(r, "block window", &sr[ST_TC1], NULL, txt);
        }
        /* the block's rounding and result format */
        nc = 0;
        {
            static const char *const rms[] = {"rtz", "rne", "rna", "rdn", "rup", "rto"};
            static const char *const accn[] = {"binary32", "binary16"};
            char (*s2)[96] = malloc(12 * sizeof *s2);
            if (s2 == NULL) {
                free(specs);
                rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                goto out;
            }
            for (int a = 0; a < 2; a++)
                for (int q = 0; q < 6; q++) {
                    snprintf(s2[nc], sizeof s2[nc],
                             "block:%d,neab:%d,align:%s,norm:%s,rm:%s", m.tc.block,
                             m.tc.neab, al[m.tc.align], no[m.tc.norm], rms[q]);
                    cand[nc] = (kv3){{"acc", "tc"}, {accn[a], s2[nc]}};
                    nc++;
                }
            if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_TC2], ps.hi[ST_TC2],
                          CMP_VALUE, &sr[ST_TC2], &win) != 0) {
                free(s2);
                free(specs);
                goto out;
            }
            free(s2);
        }
        free(specs);
        {
            char txt[300];
            snprintf(txt, sizeof txt, "each block's result rounded %s into %s "
                     "(tc rm:%s, acc=%s)", rm_words(m.tc.rm),
                     fmt_name(&m.acc, fa, sizeof fa), fl_rm_name(m.tc.rm), fa);
            note_stage(r, "block rounding", &sr[ST_TC2], NULL, txt);
        }
    }

    /* ---- stage 2: products ---- */
    if (r->prod && !ps.tc) {
        int fused_any = 0, both = 0, pi = -1;
        char *oe = NULL;
        for (int q = 0; q < ps.nprod; q++)
            if (ps.prod_p[q] == m.acc.prec)
                pi = q;
        if (pi < 0) {
            /* decided with the subnormals: they differ only in underflow */
        } else {
            size_t lo = ps.lo[ST_PROD] + (size_t)pi * 2 * ps.nch;
            size_t hi = lo + 2 * ps.nch;
            oe = oriented_expr(t, &ps, r, pi, &fused_any, &both);
            nc = 0;
            cand[nc++] = (kv3){{"products"}, {fused_any ? "fused" : "rounded"}};
            cand[nc++] = (kv3){{"products"}, {fused_any ? "rounded" : "fused"}};
            if (fused_any && oe) {
                size_t need = strlen(oe) + 6;
                free(tree_spec);
                tree_spec = malloc(need);
                if (tree_spec)
                    snprintf(tree_spec, need, "tree:%s", oe);
                cand[nc++] = (kv3){{"products", "order"}, {"fused", tree_spec}};
            }
            if (run_stage(r, &ps, &sb, &m, cand, nc, lo, hi, CMP_VALUE,
                          &sr[ST_PROD], &win) != 0) {
                free(oe);
                goto out;
            }
            {
                char txt[300];
                snprintf(txt, sizeof txt, "%s (products=%s)%s",
                         m.products == FL_REF_PRODUCTS_FUSED
                             ? "each product enters its addition unrounded (fma)"
                             : "each product rounded to the accumulator, then added",
                         m.products == FL_REF_PRODUCTS_FUSED ? "fused" : "rounded",
                         win == 2 ? "; the fused side of each first addition "
                                    "as the probes show it (order=tree)" : "");
                note_stage(r, "products", &sr[ST_PROD], NULL, txt);
                if (both)
                    rv_log(r, "  %-15s note: at some first addition both "
                           "products kept their low bits (an exact two-product "
                           "sum?)", "");
            }
            if (win == 2) {
                /* the order is now the oriented tree */
                noc = only_tree(oc, noc, tree_spec);
            }
        }
        free(oe);
    }

    /* ---- stage 3: subnormals (and, where products are exact in the
     * accumulator, fused or rounded products: they differ only when a
     * product underflows) ---- */
    nc = 0;
    {
        static const char *const z[4][2] = {{"0", "0"}, {"1", "1"}, {"1", "0"},
                                            {"0", "1"}};
        int joint = r->prod && !ps.tc && sr[ST_PROD].rows == 0;
        char *flip = NULL;
        if (joint) {
            /* the fused side of each first pair, the other way round */
            fl_reveal_tree c;
            if (rv_tree_copy(&c, t) == 0) {
                char *e;
                for (size_t j = 0; j < c.nnodes; j++) {
                    size_t *kk = c.kids + c.first[j];
                    if (c.first[j + 1] - c.first[j] == 2 && kk[0] < c.n &&
                        kk[1] < c.n) {
                        size_t x = kk[0];
                        kk[0] = kk[1];
                        kk[1] = x;
                    }
                }
                e = fl_reveal_tree_expr(&c);
                fl_reveal_tree_free(&c);
                if (e) {
                    size_t need = strlen(e) + 6;
                    flip = malloc(need);
                    if (flip)
                        snprintf(flip, need, "tree:%s", e);
                    free(e);
                }
            }
        }
        for (int pv = 0; pv < (joint ? 3 : 1); pv++)
            for (int q = 0; q < 4; q++) {
                if (pv == 2 && flip == NULL)
                    continue;
                cand[nc++] = (kv3){
                    {"ftz", "daz", joint ? "products" : NULL,
                     joint && pv == 2 ? "order" : NULL},
                    {z[q][0], z[q][1], joint ? (pv == 0 ? "rounded" : "fused") : NULL,
                     joint && pv == 2 ? flip : NULL}};
            }
        if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_SUB], ps.hi[ST_SUB],
                      CMP_VALUE, &sr[ST_SUB], &win) != 0) {
            free(flip);
            goto out;
        }
        snprintf(buf, sizeof buf, "%s (ftz=%d daz=%d)",
                 m.ftz && m.daz ? "flushed to zero, inputs and results"
                 : m.ftz ? "tiny results flushed to zero"
                 : m.daz ? "subnormal inputs read as zero"
                         : "kept, no flush to zero", m.ftz, m.daz);
        note_stage(r, "subnormals", &sr[ST_SUB], NULL, buf);
        if (joint) {
            rv_log(r, "  %-15s every product of two %s inputs is exact in %s "
                   "unless it underflows; the underflow probes say %s%s",
                   "products", fmt_name(&r->in, fo, sizeof fo),
                   fmt_name(&m.acc, fa, sizeof fa),
                   win >= 4 ? "fused (products=fused): a tiny product is not "
                              "rounded or flushed on its own"
                            : "rounded (products=rounded)",
                   win >= 8 ? "; in each first pair the product written first "
                              "is the one rounded (order=tree)" : "");
            if (win >= 8)
                noc = only_tree(oc, noc, flip);
        }
        free(flip);
    }

    /* ---- stage 4: output rounding ---- */
    if (!fl_format_same(&r->out, &m.acc)) {
        /* ties and near-ties, and overflow (out's range may be smaller) */
        nc = kv_list_rm(cand, "out-rm");
        if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_OUT], ps.hi[ST_RANGE],
                      CMP_VALUE, &sr[ST_OUT], &win) != 0)
            goto out;
        snprintf(buf, sizeof buf, "%s -> %s rounded %s (out-rm=%s)",
                 fmt_name(&m.acc, fa, sizeof fa), fmt_name(&r->out, fo, sizeof fo),
                 rm_words(m.out_rm), fl_rm_name(m.out_rm));
        note_stage(r, "output", &sr[ST_OUT], NULL, buf);
    } else {
        rv_log(r, "  %-15s %s, the accumulator itself (no final rounding)",
               "output", fmt_name(&r->out, fo, sizeof fo));
    }

    /* ---- stage 5: the start value (and the order's name), bit for bit
     * on the subnormal, output, range and zero probes: a flushed result
     * keeps its sign, so FTZ and DAZ are decided again with it, the
     * choice of stage 3 first ---- */
    if (!ps.tc) {
        static const char *const zz[4][2] = {{"0", "0"}, {"1", "1"}, {"1", "0"},
                                             {"0", "1"}};
        int fz[4], nf = 0;
        fz[nf++] = m.ftz && m.daz ? 1 : m.ftz ? 2 : m.daz ? 3 : 0;
        for (int q = 0; q < 4; q++)
            if (q != fz[0])
                fz[nf++] = q;
        nc = 0;
        for (int f = 0; f < nf; f++)
            for (size_t k = 0; k < noc && nc + 2 <= 64; k++)
                for (int init = 0; init < 2; init++) {
                    cand[nc++] = (kv3){{"order", "epilogue", "ftz", "daz"},
                                       {oc[k].spec, init ? "init" : "last",
                                        zz[fz[f]][0], zz[fz[f]][1]}};
                }
        if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_SUB], ps.hi[ST_ZERO],
                      CMP_BITS, &sr[ST_ZERO], &win) != 0)
            goto out;
        if (win >= 0 && win >= (int)(2 * noc))
            rv_log(r, "  %-15s with the signs of flushed results: ftz=%d daz=%d",
                   "subnormals", m.ftz, m.daz);
        if (win >= 0)
            win %= (int)(2 * noc);
        {
            uint64_t z = ps.rows.out[ps.lo[ST_ZERO]];
            char ob[160];
            rv_bits_str(&r->out, z, ob, sizeof ob);
            snprintf(buf, sizeof buf, "a row of -0 sums to %s", ob);
            note_stage(r, "start value", &sr[ST_ZERO], buf,
                       win >= 0 && (win % 2 == 1) ? "a +0 start (epilogue=init)"
                       : win >= 0 && oc[win / 2].has_zero
                           ? "a +0 start in the order"
                           : "no +0 start (epilogue=last)");
        }
    }

    /* ---- stage 6: NaN: the presets of fplab.h, by preference; when none
     * reproduces every NaN probe, nan=any (which NaN not modelled) ---- */
    nc = 0;
    {
        static const char *const np[] = {"x86", "arm", "riscv", "cuda", "sign",
                                         "sign-pos", "default-neg", "first"};
        for (int q = 0; q < 8; q++)
            cand[nc++] = (kv3){{"nan"}, {np[q]}};
        if (run_stage(r, &ps, &sb, &m, cand, nc, ps.lo[ST_NAN], ps.hi[ST_NAN],
                      CMP_BITS, &sr[ST_NAN], &win) != 0)
            goto out;
        if (sr[ST_NAN].rows) {
            const uint64_t *y = ps.rows.out + ps.lo[ST_NAN];
            char b0[96], b1[96], b2[96], ch[300];
            rv_bits_str(&r->out, y[0], b0, sizeof b0);
            rv_bits_str(&r->out, y[1], b1, sizeof b1);
            rv_bits_str(&r->out, y[2], b2, sizeof b2);
            snprintf(buf, sizeof buf, "inf - inf gives %s, a +NaN term with a "
                     "payload %s, a -NaN term %s", b0, b1, b2);
            if (sr[ST_NAN].full) {
                snprintf(ch, sizeof ch, "nan=%s reproduces all %zu NaN probes",
                         fl_nan_preset_name(m.nan), sr[ST_NAN].rows);
                note_stage(r, "NaN", &sr[ST_NAN], buf, ch);
            } else {
                rv_log(r, "  %-15s %s; no NaN rule reproduces all %zu NaN "
                       "probes (the closest, nan=%s, agrees on %ld): the "
                       "model says nan=any (a NaN where the kernel has one; "
                       "which NaN is not modelled)", "NaN", buf,
                       sr[ST_NAN].rows, fl_nan_preset_name(m.nan),
                       sr[ST_NAN].best);
                if (set_key(&m, "nan", "any") != 0) {
                    rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                    goto out;
                }
            }
        }
    }

    /* ---- every probe, bit for bit ---- */
    {
        long all = sim(r, &ps, &sb, &m, 0, ps.rows.count, CMP_BITS);
        if (all < 0) {
            char err[256];
            fl_ref_model_check(&m, r->o->op, r->T, err, sizeof err);
            rv_fail(r, FL_REVEAL_MISMATCH, "the model found cannot run: %s", err);
            goto out;
        }
        if (all != (long)ps.rows.count) {
            /* the first disagreeing stage */
            size_t bad = 0;
            for (size_t k = 0; k < ps.rows.count; k++) {
                if (!same(&r->out, ps.rows.out[k], sb.out[k], CMP_BITS) &&
                    !(m.nan_any && fl_is_nan(&r->out, ps.rows.out[k]) &&
                      fl_is_nan(&r->out, sb.out[k]))) {
                    bad = k;
                    break;
                }
            }
            for (int s = 0; s < ST_COUNT; s++)
                if (bad >= ps.lo[s] && bad < ps.hi[s] && ps.hi[s] > ps.lo[s]) {
                    char kb[160], mb[160];
                    rv_bits_str(&r->out, ps.rows.out[bad], kb, sizeof kb);
                    rv_bits_str(&r->out, sb.out[bad], mb, sizeof mb);
                    rv_log(r, "probes: %ld of %zu agree with the model; the first "
                           "that does not is a %s probe (row %zu): kernel %s, "
                           "model %s", all, ps.rows.count, st_name[s],
                           bad - ps.lo[s], kb, mb);
                    break;
                }
        } else {
            rv_log(r, "probes: all %zu agree with the model %s",
                   ps.rows.count, m.nan_any ? "(bit for bit, a NaN as any NaN: "
                   "nan=any)" : "bit for bit");
        }
    }

    /* alternatives for the closest-model search: other accumulators and
     * roundings near the winner */
    {
        fl_ref_model *al = calloc(8, sizeof *al);
        size_t na = 0;
        static const char *const accn[] = {"binary32", "binary64", "binary16",
                                           "bfloat16"};
        if (al != NULL && !ps.tc) {
            for (int q = 0; q < 4 && na < 8; q++) {
                if (fl_ref_model_copy(&al[na], &m) != 0)
                    break;
                if (set_key(&al[na], "acc", accn[q]) != 0 ||
                    fl_format_same(&al[na].acc, &m.acc)) {
                    fl_ref_model_free(&al[na]);
                    continue;
                }
                na++;
            }
            for (size_t k = 1; k < noc && na < 8; k++) {
                if (fl_ref_model_copy(&al[na], &m) != 0)
                    break;
                if (set_key(&al[na], "order", oc[k].spec) != 0) {
                    fl_ref_model_free(&al[na]);
                    continue;
                }
                na++;
            }
        }
        *alts = al;
        *nalts = na;
    }
    *model = m;
    fl_ref_model_init(&m);
    rc = 0;
out:
    fl_ref_model_free(&m);
    free_ocands(oc, noc);
    free(tree_spec);
    free(sb.out);
    rv_rows_free(&ps.rows);
    return rc;
}
