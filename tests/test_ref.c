/*
 * test_ref.c — the reference library (fplab/ref.h) against a brute-force
 * evaluation written here, independently of src/ref: each order's tree is
 * built by its own recursive definition (from the header's prose and, for
 * numpy, from numpy's pairwise_sum), then evaluated node by node with
 * fl_add / fl_mul / fl_fma / fl_convert / fl_tc_block_fma_ctx, with the
 * documented stochastic-rounding slots, the fused-product convention, the
 * init start and the GEMM epilogue.  Value bits and IEEE flags must agree.
 *
 * Parts (each counts its cases and asserts the count):
 *   brute   random models (every order, format, mode incl. stochastic,
 *           products, epilogue, ftz/daz/nan/saturate/tininess) x random
 *           sum / dot / gemm calls with special values; every model also
 *           goes through its text form (print, parse, print: same line);
 *   tc      tensor-core chains (sequential, splitk) vs the block calls;
 *   fast    the fast paths (native binary32, integer tensor-core blocks)
 *           vs the generic path (fl__accel_cap(FL__CPU_GENERIC)), value and flags,
 *           incl. subnormals, overflow, NaN payloads;
 *   threads 1, 2, 3 and 7 threads give the same bits and flags;
 *   text    the canonical line, round trips, and the error messages of
 *           keys, values, trees and model files (FILE:LINE).
 * FPLAB_TEST_SEED replays a run; FPLAB_TEST_SCALE multiplies the counts.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fplab/fplab.h"
#include "fplab/ref.h"
#include "fplab/tensorcore.h"
#include "test_common.h"
#include "cpu.h"   /* fl__accel_cap: the generic path for comparison */

static uint64_t rng;

static uint64_t rnd(void) { return tc_splitmix(&rng); }
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* ------------------------------------------------------------------------
 * Formats and inputs.
 * ---------------------------------------------------------------------- */
static const fl_format *const fmts[] = {
    &fl_binary16, &fl_bfloat16, &fl_binary32, &fl_binary64, &fl_tf32,
    &fl_fp8_e5m2, &fl_fp8_e4m3,
};
#define NFMTS (sizeof fmts / sizeof fmts[0])

static uint64_t one_bits(const fl_format *f)
{
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    return fl_from_i32(f, 1, &c, &fl);
}

/* A random value of f: specials at rate `sp` (per mille), else mostly
 * values near 1 (so that sums round and cancel), sometimes anywhere. */
static uint64_t rnd_val(const fl_format *f, int sp)
{
    uint64_t r = rnd(), s = (r >> 63) ? f->sign_mask : 0;
    int fb = f->prec - 1;
    uint64_t frac = rnd() & f->frac_mask;
    int k = (int)rndn(1000);
    if (k < sp) {
        switch (rndn(7)) {
        case 0: return s;                                   /* zero */
        case 1: return s | (frac ? frac : 1);               /* subnormal */
        case 2: return s | f->max_bits;                     /* largest */
        case 3: return f->has_inf ? (s | f->exp_mask) : (s | f->max_bits);
        case 4: /* quiet NaN with a payload */
            if (f->nan_style == FL_NANSTYLE_IEEE)
                return s | f->exp_mask | ((uint64_t)1 << (fb - 1)) | (frac >> 1);
            return s | f->exp_mask | f->frac_mask;
        case 5: /* signaling NaN */
            if (f->nan_style == FL_NANSTYLE_IEEE && fb >= 2)
                return s | f->exp_mask | ((frac >> 2) | 1);
            return s | f->exp_mask | f->frac_mask;
        default: /* smallest normals */
            return s | ((uint64_t)1 << fb) | frac;
        }
    }
    {
        int32_t e;
        if (k < 900)
            e = (int32_t)rndn(13) - 6;
        else
            e = f->emin + (int32_t)rndn((size_t)(f->emax - f->emin + 1));
        if (e > f->emax)
            e = f->emax;
        if (e < f->emin)
            e = f->emin;
        {
            uint64_t v = s | ((uint64_t)(e + f->bias) << fb) | frac;
            if ((v & ~f->sign_mask) > f->max_bits)
                v = s | f->max_bits;
            return v;
        }
    }
}

static void fill(uint64_t *x, size_t n, const fl_format *f, int sp)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = rnd_val(f, sp);
        /* plant exact cancellations */
        if (i > 0 && rndn(8) == 0)
            x[i] = x[rndn(i)] ^ f->sign_mask;
    }
}

/* ------------------------------------------------------------------------
 * Test-side trees.
 * ---------------------------------------------------------------------- */
enum { T_LEAF, T_ZERO, T_NODE };
typedef struct tn {
    int kind;
    size_t leaf;
    struct tn *l, *r;
    size_t id;         /* postorder number of an inner node */
} tn;

typedef struct arena {
    tn *v;
    size_t used, cap;
} arena;

static tn *mk(arena *A, int kind, size_t leaf, tn *l, tn *r)
{
    tn *t;
    if (A->used == A->cap) {
        fprintf(stderr, "arena full\n");
        exit(2);
    }
    t = &A->v[A->used++];
    t->kind = kind;
    t->leaf = leaf;
    t->l = l;
    t->r = r;
    return t;
}
static tn *leaf(arena *A, size_t i) { return mk(A, T_LEAF, i, NULL, NULL); }
static tn *add(arena *A, tn *l, tn *r) { return mk(A, T_NODE, 0, l, r); }

static tn *fold(arena *A, tn **v, size_t c)
{
    tn *acc = c ? v[0] : NULL;
    for (size_t i = 1; i < c; i++)
        acc = add(A, acc, v[i]);
    return acc;
}
/* pairwise: first half holds ceil(c/2) */
static tn *pw(arena *A, tn **v, size_t c)
{
    size_t h = (c + 1) / 2;
    if (c == 1)
        return v[0];
    return add(A, pw(A, v, h), pw(A, v + h, c - h));
}
static tn *halve(arena *A, tn **v, size_t c)
{
    while (c > 1) {
        size_t h = (c + 1) / 2;
        for (size_t i = 0; i + h < c; i++)
            v[i] = add(A, v[i], v[i + h]);
        c = h;
    }
    return v[0];
}
/* numpy/core/src/umath/loops_utils.h.src, @TYPE@_pairwise_sum */
static tn *np_pw(arena *A, size_t lo, size_t n)
{
    if (n < 8) {
        tn *res = mk(A, T_ZERO, 0, NULL, NULL);
        for (size_t i = 0; i < n; i++)
            res = add(A, res, leaf(A, lo + i));
        return res;
    } else if (n <= 128) {
        tn *r[8], *res;
        size_t i;
        for (int j = 0; j < 8; j++)
            r[j] = leaf(A, lo + (size_t)j);
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] = add(A, r[j], leaf(A, lo + i + (size_t)j));
        res = add(A, add(A, add(A, r[0], r[1]), add(A, r[2], r[3])),
                  add(A, add(A, r[4], r[5]), add(A, r[6], r[7])));
        for (; i < n; i++)
            res = add(A, res, leaf(A, lo + i));
        return res;
    } else {
        size_t n2 = n / 2;
        n2 -= n2 % 8;
        return add(A, np_pw(A, lo, n2), np_pw(A, lo + n2, n - n2));
    }
}

/* A random tree over n leaves with the leaves in random order. */
static tn *random_tree(arena *A, size_t *perm, size_t n)
{
    tn **v = malloc(n * sizeof *v);
    tn *t;
    size_t c = n;
    for (size_t i = 0; i < n; i++)
        v[i] = leaf(A, perm[i]);
    while (c > 1) {
        size_t i = rndn(c - 1);
        v[i] = add(A, v[i], v[i + 1]);
        memmove(v + i + 1, v + i + 2, (c - i - 2) * sizeof *v);
        c--;
    }
    t = v[0];
    free(v);
    return t;
}

/* Our own printer, with redundant parentheses and blanks at random. */
static void print_tree(const tn *t, char **p, int top)
{
    int paren;
    if (t->kind == T_LEAF) {
        *p += sprintf(*p, "%zu", t->leaf);
        return;
    }
    paren = !top || rndn(4) == 0;
    if (paren)
        *(*p)++ = '(';
    print_tree(t->l, p, 0);
    if (rndn(3) == 0)
        *(*p)++ = ' ';
    *(*p)++ = '+';
    print_tree(t->r, p, 0);
    if (paren)
        *(*p)++ = ')';
    **p = '\0';
}

static size_t number_postorder(tn *t, size_t next)
{
    if (t->kind != T_NODE)
        return next;
    next = number_postorder(t->l, next);
    next = number_postorder(t->r, next);
    t->id = next;
    return next + 1;
}

typedef struct tmodel {
    const fl_format *in, *acc, *out;
    int acc_rm, out_rm, fused, order, comb, epi;
    size_t arg;
    int ftz, daz, nan, sat, tin;
    uint64_t seed;
    tn *tree;           /* order=tree: a tree over k leaves */
    size_t tree_n;
    int tc;
    fl_tc_model tcm;
} tmodel;

static tn *build(arena *A, const tmodel *m, size_t n)
{
    tn **v;
    tn *t = NULL;
    size_t c = 0;
    if (n == 0)
        return NULL;
    v = malloc((n + 1) * sizeof *v);
    switch (m->order) {
    case FL_REF_REVERSE:
        for (size_t i = 0; i < n; i++)
            v[i] = leaf(A, n - 1 - i);
        t = fold(A, v, n);
        break;
    case FL_REF_PAIRWISE:
    case FL_REF_BLOCKED:
    case FL_REF_SPLITK: {
        size_t b = m->order == FL_REF_SPLITK ? (n + m->arg - 1) / m->arg : m->arg;
        for (size_t lo = 0; lo < n; lo += b) {
            size_t cnt = lo + b <= n ? b : n - lo;
            tn **w = malloc(cnt * sizeof *w);
            for (size_t i = 0; i < cnt; i++)
                w[i] = leaf(A, lo + i);
            v[c++] = fold(A, w, cnt);
            free(w);
        }
        t = m->order == FL_REF_PAIRWISE ? pw(A, v, c) : fold(A, v, c);
        break;
    }
    case FL_REF_NUMPY:
        t = add(A, mk(A, T_ZERO, 0, NULL, NULL), np_pw(A, 0, n));
        break;
    case FL_REF_LANES: {
        size_t w = m->arg;
        for (size_t j = 0; j < w && j < n; j++) {
            tn *acc = leaf(A, j);
            for (size_t i = j + w; i < n; i += w)
                acc = add(A, acc, leaf(A, i));
            v[c++] = acc;
        }
        t = m->comb == FL_REF_LANES_PAIRWISE ? pw(A, v, c)
          : m->comb == FL_REF_LANES_HALVING ? halve(A, v, c) : fold(A, v, c);
        break;
    }
    case FL_REF_TREE:
        t = m->tree;
        break;
    default:
        for (size_t i = 0; i < n; i++)
            v[i] = leaf(A, i);
        t = fold(A, v, n);
        break;
    }
    free(v);
    number_postorder(t, 0);
    return t;
}

/* ------------------------------------------------------------------------
 * The brute-force evaluation of one element.
 * ---------------------------------------------------------------------- */
typedef struct bctx {
    const tmodel *m;
    size_t n;
    uint64_t base;          /* e * (3n + 7) */
    fl_ctx cacc, cout;
    const uint64_t *a, *b;  /* terms (b NULL: sum) */
    ptrdiff_t sa, sb;
    int init;
    uint64_t u;
    unsigned fl;
} bctx;

typedef struct val { int prod; uint64_t v, a, b; size_t leaf; } val;

static fl_ctx at(const fl_ctx *c, uint64_t base, uint64_t slot)
{
    fl_ctx x = *c;
    x.sr_index = base + slot;
    return x;
}

static int same_fmt(const fl_format *a, const fl_format *b)
{
    return fl_ref_format_same(a, b);
}

/* round(a*b) into dst, a in fa, b in fb (exact product in binary64 when
 * dst does not hold both). */
static uint64_t tmul(const fl_format *dst, const fl_format *fa, uint64_t a,
                     const fl_format *fb, uint64_t b, fl_ctx *c, unsigned *fl)
{
    if (fl_ref_format_contains(dst, fa) && fl_ref_format_contains(dst, fb)) {
        if (!same_fmt(dst, fa))
            a = fl_convert(dst, fa, a, c, fl);
        if (!same_fmt(dst, fb))
            b = fl_convert(dst, fb, b, c, fl);
        return fl_mul(dst, a, b, c, fl);
    }
    {
        uint64_t a64 = fl_convert(&fl_binary64, fa, a, c, fl);
        uint64_t b64 = fl_convert(&fl_binary64, fb, b, c, fl);
        fl_ctx c64 = *c;
        c64.ftz = 0;   /* the exact product is never tiny in binary64 */
        return fl_convert(dst, &fl_binary64,
                          fl_mul(&fl_binary64, a64, b64, &c64, fl), c, fl);
    }
}

static uint64_t tfma(const bctx *B, uint64_t a, uint64_t b, uint64_t v,
                     fl_ctx *c, unsigned *fl)
{
    const tmodel *m = B->m;
    if (!same_fmt(m->acc, m->in)) {
        a = fl_convert(m->acc, m->in, a, c, fl);
        b = fl_convert(m->acc, m->in, b, c, fl);
    }
    return fl_fma(m->acc, a, b, v, c, fl);
}

static uint64_t force(bctx *B, val *x)
{
    if (x->prod) {
        fl_ctx c = at(&B->cacc, B->base, x->leaf);
        x->v = tmul(B->m->acc, B->m->in, x->a, B->m->in, x->b, &c, &B->fl);
        x->prod = 0;
    }
    return x->v;
}

static val ev(bctx *B, const tn *t, int leftmost)
{
    const tmodel *m = B->m;
    val r;
    memset(&r, 0, sizeof r);
    if (t->kind == T_ZERO) {
        r.v = 0;
    } else if (t->kind == T_LEAF) {
        size_t i = t->leaf;
        r.leaf = i;
        if (B->b == NULL) {
            uint64_t x = B->a[(ptrdiff_t)i * B->sa];
            if (same_fmt(m->in, m->acc)) {
                r.v = x;
            } else {
                fl_ctx c = at(&B->cacc, B->base, i);
                r.v = fl_convert(m->acc, m->in, x, &c, &B->fl);
            }
        } else {
            r.a = B->a[(ptrdiff_t)i * B->sa];
            r.b = B->b[(ptrdiff_t)i * B->sb];
            r.prod = 1;
            if (!m->fused)
                force(B, &r);
        }
    } else {
        val L = ev(B, t->l, leftmost), R = ev(B, t->r, 0);
        fl_ctx c = at(&B->cacc, B->base, B->n + t->id);
        if (!L.prod && !R.prod)
            r.v = fl_add(m->acc, L.v, R.v, &c, &B->fl);
        else if (L.prod && R.prod) {
            uint64_t lv = force(B, &L);
            r.v = tfma(B, R.a, R.b, lv, &c, &B->fl);
        } else if (R.prod)
            r.v = tfma(B, R.a, R.b, L.v, &c, &B->fl);
        else
            r.v = tfma(B, L.a, L.b, R.v, &c, &B->fl);
        return r;
    }
    if (leftmost && B->init) {
        /* the leftmost leaf becomes (u + L) */
        fl_ctx c = at(&B->cacc, B->base, 3 * B->n + 2);
        if (r.prod)
            r.v = tfma(B, r.a, r.b, B->u, &c, &B->fl);
        else
            r.v = fl_add(m->acc, B->u, r.v, &c, &B->fl);
        r.prod = 0;
    }
    return r;
}

static uint64_t tc_chain(bctx *B, size_t lo, size_t hi, uint64_t c0,
                         uint64_t *blockno)
{
    const tmodel *m = B->m;
    uint64_t abuf[64], bbuf[64], c = c0;
    fl_ctx cb = B->cacc;
    cb.rm = (uint8_t)m->tcm.out_rm;
    for (size_t i = lo; i < hi;) {
        int nb = 0;
        for (; nb < m->tcm.block && i < hi; nb++, i++) {
            abuf[nb] = B->a[(ptrdiff_t)i * B->sa];
            bbuf[nb] = B->b[(ptrdiff_t)i * B->sb];
        }
        cb.sr_index = B->base + B->n + (*blockno)++;
        c = fl_tc_block_fma_ctx(&m->tcm, m->acc, abuf, bbuf, nb, c, &cb, &B->fl);
    }
    return c;
}

/* The accumulator of one element. */
static uint64_t brute_acc(bctx *B, const tn *tree)
{
    const tmodel *m = B->m;
    const size_t n = B->n;
    if (n == 0)
        return B->init ? B->u : 0;
    if (m->tc) {
        size_t part = m->order == FL_REF_SPLITK ? (n + m->arg - 1) / m->arg : n;
        size_t nparts = (n + part - 1) / part, nblocks = 0;
        uint64_t blockno = 0, total = 0;
        for (size_t s = 0; s < nparts; s++) {
            size_t len = s + 1 < nparts ? part : n - s * part;
            nblocks += (len + (size_t)m->tcm.block - 1) / (size_t)m->tcm.block;
        }
        for (size_t s = 0; s < nparts; s++) {
            size_t lo = s * part, hi = lo + part < n ? lo + part : n;
            uint64_t c = tc_chain(B, lo, hi, (s == 0 && B->init) ? B->u : 0,
                                  &blockno);
            if (s == 0)
                total = c;
            else {
                fl_ctx ca = at(&B->cacc, B->base, n + nblocks + s - 1);
                total = fl_add(m->acc, total, c, &ca, &B->fl);
            }
        }
        return total;
    }
    {
        val r = ev(B, tree, 1);
        return force(B, &r);
    }
}

/* Epilogue and output; C in out, alpha and beta in acc. */
static uint64_t brute_out(bctx *B, uint64_t acc, uint64_t alpha, uint64_t beta,
                          const uint64_t *cv)
{
    const tmodel *m = B->m;
    const size_t n = B->n;
    int alpha_one = alpha == one_bits(m->acc);
    int with_c = cv != NULL && (beta & ~m->acc->sign_mask) != 0;
    uint64_t v = acc;
    if (m->epi == FL_REF_EPI_FMA && with_c) {
        fl_ctx c1 = at(&B->cacc, B->base, 3 * n + 4), c2 = at(&B->cacc, B->base, 3 * n + 5);
        uint64_t u = tmul(m->acc, m->acc, beta, m->out, *cv, &c1, &B->fl);
        v = fl_fma(m->acc, alpha, v, u, &c2, &B->fl);
    } else {
        if (!alpha_one) {
            fl_ctx c = at(&B->cacc, B->base, 3 * n + 3);
            v = fl_mul(m->acc, alpha, v, &c, &B->fl);
        }
        if (m->epi == FL_REF_EPI_LAST && with_c) {
            fl_ctx c1 = at(&B->cacc, B->base, 3 * n + 4), c2 = at(&B->cacc, B->base, 3 * n + 5);
            uint64_t u = tmul(m->acc, m->acc, beta, m->out, *cv, &c1, &B->fl);
            v = fl_add(m->acc, v, u, &c2, &B->fl);
        }
    }
    if (!same_fmt(m->out, m->acc)) {
        fl_ctx c = at(&B->cout, B->base, 3 * n + 6);
        v = fl_convert(m->out, m->acc, v, &c, &B->fl);
    }
    return v;
}

static void bctx_init(bctx *B, const tmodel *m, size_t n, uint64_t e)
{
    memset(B, 0, sizeof *B);
    B->m = m;
    B->n = n;
    B->base = e * (3 * (uint64_t)n + 7);
    B->cacc = fl_ctx_make(m->acc_rm);
    B->cacc.tininess = (uint8_t)m->tin;
    B->cacc.ftz = (uint8_t)m->ftz;
    B->cacc.daz = (uint8_t)m->daz;
    B->cacc.saturate = (uint8_t)m->sat;
    B->cacc.nan = (uint8_t)m->nan;
    B->cacc.sr_seed = m->seed;
    B->cout = B->cacc;
    B->cout.rm = (uint8_t)m->out_rm;
    B->init = m->epi == FL_REF_EPI_INIT;
}

/* ------------------------------------------------------------------------
 * Random models, through the text form.
 * ---------------------------------------------------------------------- */
static const char *const rm_names[] = {"rne", "rtz", "rdn", "rup", "rna", "rto", "sr"};
static const char *const order_text[] = {"sequential", "reverse", "pairwise",
    "numpy", "blocked", "lanes", "splitk", "tree"};
static const char *const comb_text[] = {"seq", "pairwise", "halving"};
static const char *const epi_text[] = {"last", "fma", "init"};
static const char *const nan_text[] = {"x86", "arm", "riscv", "cuda"};

/* Pick formats the brute force can evaluate (its exact products go
 * through binary64 when acc or out is narrower). */
static int pick_formats(tmodel *m, int op)
{
    m->in = fmts[rndn(NFMTS)];
    m->acc = rndn(3) ? (rndn(2) ? &fl_binary32 : m->in) : fmts[rndn(NFMTS)];
    m->out = rndn(2) ? m->acc : fmts[rndn(NFMTS)];
    if (op != 0 && !fl_ref_format_contains(m->acc, m->in) &&
        (2 * m->in->prec > 53 || m->in->ebits > 8))
        return -1;
    if (!fl_ref_format_contains(m->acc, m->out) &&
        (m->acc->prec + m->out->prec > 53 || m->acc->ebits > 8 ||
         m->out->ebits > 8))
        return -1;
    if (m->fused && op != 0 && !fl_ref_format_contains(m->acc, m->in))
        return -1;
    return 0;
}

static void model_text(const tmodel *m, char *buf, size_t len, const char *tree)
{
    char order[64], in[32], acc[32], out[32], tc[128];
    fl_ref_format_spec(m->in, in, sizeof in);
    fl_ref_format_spec(m->acc, acc, sizeof acc);
    fl_ref_format_spec(m->out, out, sizeof out);
    switch (m->order) {
    case FL_REF_PAIRWISE: case FL_REF_BLOCKED: case FL_REF_SPLITK:
        snprintf(order, sizeof order, "%s:%zu", order_text[m->order], m->arg);
        break;
    case FL_REF_LANES:
        snprintf(order, sizeof order, "lanes:%zu:%s", m->arg, comb_text[m->comb]);
        break;
    default:
        snprintf(order, sizeof order, "%s", order_text[m->order]);
    }
    if (m->tc)
        snprintf(tc, sizeof tc, "block:%d,neab:%d,align:%s,norm:%s,rm:%s",
                 m->tcm.block, m->tcm.neab,
                 m->tcm.align == 0 ? "trunc" : m->tcm.align == 1 ? "floor" : "rne",
                 m->tcm.norm ? "products" : "once", rm_names[m->tcm.out_rm]);
    else
        snprintf(tc, sizeof tc, "none");
    snprintf(buf, len,
             "in=%s acc=%s acc-rm=%s products=%s order=%s%s tc=%s out=%s out-rm=%s "
             "epilogue=%s ftz=%d daz=%d nan=%s saturate=%d tininess=%s seed=%" PRIu64,
             in, acc, rm_names[m->acc_rm], m->fused ? "fused" : "rounded",
             m->order == FL_REF_TREE ? "tree:" : order,
             m->order == FL_REF_TREE ? tree : "", tc, out, rm_names[m->out_rm],
             epi_text[m->epi], m->ftz, m->daz, nan_text[m->nan], m->sat,
             m->tin ? "before" : "after", m->seed);
}

static long n_models, n_elems, n_roundtrip;

/* Parse our own text of the model, print it, parse the print: the two
 * prints must be the same line. */
static int to_model(const char *text, fl_ref_model *out)
{
    char err[512];
    char *p1, *p2;
    fl_ref_model m2;
    fl_ref_model_init(out);
    if (fl_ref_model_parse(out, text, err, sizeof err) != 0) {
        CHECK(0, "parse of '%s': %s", text, err);
        return -1;
    }
    p1 = fl_ref_model_string(out);
    fl_ref_model_init(&m2);
    if (fl_ref_model_parse(&m2, p1, err, sizeof err) != 0) {
        CHECK(0, "reparse of '%s': %s", p1, err);
        free(p1);
        return -1;
    }
    p2 = fl_ref_model_string(&m2);
    CHECK(!strcmp(p1, p2), "round trip:\n  %s\n  %s", p1, p2);
    n_roundtrip++;
    free(p1);
    free(p2);
    fl_ref_model_free(&m2);
    return 0;
}

static size_t pick_n(void)
{
    static const size_t edge[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33,
                                  127, 128, 129, 136, 200, 255, 257, 300};
    if (rndn(2))
        return edge[rndn(sizeof edge / sizeof edge[0])];
    return rndn(40);
}

static void report_elem(const char *what, const char *text, size_t e,
                        uint64_t got, uint64_t want, unsigned gf, unsigned wf)
{
    CHECK(got == want && gf == wf,
          "%s element %zu: got 0x%" PRIx64 " flags %02x, brute force 0x%"
          PRIx64 " flags %02x\n  model: %s", what, e, got, gf, want, wf, text);
}

/* One random case: a model and a sum, dot or gemm with it. */
/* fl_ref_order_tree against the test's own tree of the order: the same
 * additions, operand order and constant +0 leaves included. */
static long n_order_tree;

static void tn_text(const tn *t, char **p)
{
    if (t->kind == T_LEAF) {
        *p += sprintf(*p, "%zu", t->leaf);
    } else if (t->kind == T_ZERO) {
        *p += sprintf(*p, "Z");
    } else {
        *(*p)++ = '(';
        tn_text(t->l, p);
        *(*p)++ = '+';
        tn_text(t->r, p);
        *(*p)++ = ')';
        **p = '\0';
    }
}

static void kid_text(const int64_t *kid, size_t n, int64_t r, char **p)
{
    if (r < 0) {
        *p += sprintf(*p, "Z");
    } else if ((size_t)r < n) {
        *p += sprintf(*p, "%lld", (long long)r);
    } else {
        *(*p)++ = '(';
        kid_text(kid, n, kid[2 * ((size_t)r - n)], p);
        *(*p)++ = '+';
        kid_text(kid, n, kid[2 * ((size_t)r - n) + 1], p);
        *(*p)++ = ')';
        **p = '\0';
    }
}

static void check_order_tree(const fl_ref_model *rm, const tn *tree, size_t n,
                             const char *text)
{
    int64_t *kid = NULL;
    size_t nn = 0, len = 24 * (n + 8) + 64;
    char err[256], *a = malloc(len), *b = malloc(len), *pa = a, *pb = b;
    int rc = fl_ref_order_tree(rm, n, &kid, &nn, err, sizeof err);
    CHECK(rc == 0, "fl_ref_order_tree: %s (model %s)", err, text);
    if (rc == 0 && tree != NULL) {
        a[0] = b[0] = '\0';
        tn_text(tree, &pa);
        if (nn == 0)
            kid_text(kid, n, 0, &pb);
        else
            kid_text(kid, n, (int64_t)(n + nn - 1), &pb);
        CHECK(!strcmp(a, b), "fl_ref_order_tree gives %.300s, the test's tree "
              "is %.300s (model %s)", b, a, text);
        n_order_tree++;
    }
    free(kid);
    free(a);
    free(b);
}

static void brute_case(int tc_only)
{
    tmodel m;
    arena A;
    char text[8192], treetext[4096], err[512];
    fl_ref_model rm;
    int op = tc_only ? 1 + (int)rndn(2) : (int)rndn(3);
    size_t n = pick_n(), *perm = NULL;
    int sp = (int)(rndn(3) == 0 ? 0 : rndn(2) ? 15 : 150);
    memset(&m, 0, sizeof m);
    m.fused = rndn(3) == 0;
    /* stochastic rounding often: it checks the documented slot of every
     * rounding (a wrong slot changes the random bits) */
    m.acc_rm = rndn(4) == 0 ? FL_RSR : rndn(2) ? FL_RNE : (int)rndn(7);
    m.out_rm = rndn(3) ? FL_RNE : (int)rndn(7);
    m.order = (int)rndn(8);
    m.arg = 1 + rndn(rndn(2) ? 4 : 20);
    m.comb = (int)rndn(3);
    m.epi = (int)rndn(3);
    m.ftz = rndn(5) == 0;
    m.daz = rndn(5) == 0;
    m.nan = (int)rndn(4);
    m.sat = rndn(6) == 0;
    m.tin = (int)rndn(2);
    m.seed = rnd();
    if (tc_only) {
        const fl_tc_model *p = fl_tc_model_preset(rndn(fl_tc_model_count()));
        m.tc = 1;
        m.fused = 0;
        m.order = rndn(2) ? FL_REF_SEQUENTIAL : FL_REF_SPLITK;
        m.tcm = *p;
        m.tcm.name = NULL;
        if (rndn(2)) {
            m.tcm.block = 1 + (int)rndn(20);
            m.tcm.neab = (int)rndn(5);
            m.tcm.align = (int)rndn(3);
            m.tcm.norm = (int)rndn(2);
            m.tcm.out_rm = rndn(3) ? FL_RTZ : rndn(2) ? FL_RSR : (int)rndn(7);
        }
        m.in = p->in;
        m.acc = rndn(4) ? &fl_binary32 : &fl_binary16;
        m.out = rndn(2) ? m.acc : fmts[rndn(NFMTS)];
        if (!fl_ref_format_contains(m.acc, m.out) &&
            (m.acc->prec + m.out->prec > 53 || m.out->ebits > 8))
            m.out = m.acc;
        m.tcm.in = m.in;
    } else if (pick_formats(&m, op) != 0) {
        return;
    }
    if (m.order == FL_REF_SPLITK)
        m.arg = 1 + rndn(5);
    A.cap = 40 * (n + 16) + 64;
    A.v = malloc(A.cap * sizeof *A.v);
    A.used = 0;
    treetext[0] = '\0';
    if (m.order == FL_REF_TREE) {
        char *p = treetext;
        if (n == 0 || n > 200)
            n = 1 + rndn(60);
        perm = malloc(n * sizeof *perm);
        for (size_t i = 0; i < n; i++)
            perm[i] = i;
        for (size_t i = n; i > 1; i--) {
            size_t j = rndn(i), t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        m.tree = random_tree(&A, perm, n);
        print_tree(m.tree, &p, 1);
        /* the one-line form has no blanks inside a value */
        {
            char *w = treetext;
            for (char *r = treetext; *r; r++)
                if (*r != ' ')
                    *w++ = *r;
            *w = '\0';
        }
    }
    model_text(&m, text, sizeof text, treetext);
    if (to_model(text, &rm) != 0) {
        free(A.v);
        free(perm);
        return;
    }
    n_models++;
    {
        const fl_format *in = m.in;
        size_t rows = op == 2 ? 0 : 1 + rndn(4);
        unsigned gf = 0;
        tn *tree;
        if (op < 2) {
            uint64_t *a = malloc((rows * n + 1) * sizeof *a);
            uint64_t *b = malloc((rows * n + 1) * sizeof *b);
            uint64_t *out = malloc(rows * sizeof *out);
            int rc;
            fill(a, rows * n, in, sp);
            fill(b, rows * n, in, sp);
            if (op == 0)
                rc = fl_ref_sum(&rm, a, rows, n, out, 1, &gf, err, sizeof err);
            else
                rc = fl_ref_dot(&rm, a, b, rows, n, out, 1, &gf, err, sizeof err);
            CHECK(rc == 0, "%s: %s (model %s)", op ? "dot" : "sum", err, text);
            if (rc == 0) {
                unsigned all = 0;
                tree = build(&A, &m, n);
                if (!m.tc && m.order != FL_REF_EXACT && n > 0)
                    check_order_tree(&rm, tree, n, text);
                for (size_t r = 0; r < rows; r++) {
                    bctx B;
                    uint64_t acc, want;
                    bctx_init(&B, &m, n, r);
                    B.a = a + r * n;
                    B.b = op ? b + r * n : NULL;
                    B.sa = B.sb = 1;
                    B.u = 0;
                    acc = brute_acc(&B, tree);
                    want = brute_out(&B, acc, one_bits(m.acc), 0, NULL);
                    all |= B.fl;
                    report_elem(op ? "dot" : "sum", text, r, out[r], want, 0, 0);
                    n_elems++;
                }
                CHECK((gf & FL_IEEE_FLAGS) == (all & FL_IEEE_FLAGS),
                      "%s flags: got %02x brute %02x\n  model: %s",
                      op ? "dot" : "sum", gf, all & FL_IEEE_FLAGS, text);
            }
            free(a);
            free(b);
            free(out);
        } else {
            fl_ref_gemm_shape s;
            size_t batch = 1 + rndn(3), M = 1 + rndn(5), N = 1 + rndn(5), K = n;
            int ta = (int)rndn(2), tb = (int)rndn(2), withc = (int)rndn(2);
            size_t arows, brows;
            uint64_t *A_, *B_, *C = NULL, *D, alpha, beta;
            static const char *const avals[] = {"1", "1", "2", "-0.5", "3", "-1", "0"};
            static const char *const bvals[] = {"0", "1", "-2", "0.25", "-0", "1.5"};
            fl_ctx c0 = fl_ctx_make(FL_RNE);
            unsigned dummy = 0;
            int rc;
            fl_ref_gemm_shape_init(&s, ta, tb, batch, M, N, K);
            s.lda += rndn(3);
            s.ldb += rndn(3);
            s.ldc += rndn(2);
            s.ldd = s.ldc;
            arows = ta ? K : M;
            brows = tb ? N : K;
            s.stride_a = rndn(4) == 0 ? 0 : arows * s.lda;
            s.stride_b = rndn(4) == 0 ? 0 : brows * s.ldb;
            s.stride_c = M * s.ldc;
            s.stride_d = M * s.ldd;
            A_ = malloc((batch * arows * s.lda + 1) * sizeof *A_);
            B_ = malloc((batch * brows * s.ldb + 1) * sizeof *B_);
            D = malloc(batch * M * s.ldd * sizeof *D);
            fill(A_, batch * arows * s.lda, in, sp);
            fill(B_, batch * brows * s.ldb, in, sp);
            fl_parse(m.acc, avals[rndn(7)], &c0, &dummy, &alpha);
            fl_parse(m.acc, bvals[rndn(6)], &c0, &dummy, &beta);
            if (withc) {
                C = malloc(batch * M * s.ldc * sizeof *C);
                fill(C, batch * M * s.ldc, m.out, sp);
            } else {
                beta = 0;
            }
            rc = fl_ref_gemm(&rm, &s, alpha, A_, B_, beta, C, D, 1, &gf, err,
                             sizeof err);
            CHECK(rc == 0, "gemm: %s (model %s)", err, text);
            if (rc == 0) {
                unsigned all = 0;
                tree = build(&A, &m, K);
                for (size_t bi = 0; bi < batch; bi++)
                    for (size_t i = 0; i < M; i++)
                        for (size_t j = 0; j < N; j++) {
                            bctx B;
                            size_t e = (bi * M + i) * N + j;
                            const uint64_t *cv = C ? C + bi * s.stride_c + i * s.ldc + j : NULL;
                            int bz = (beta & ~m.acc->sign_mask) == 0;
                            uint64_t acc, want;
                            bctx_init(&B, &m, K, e);
                            B.a = A_ + bi * s.stride_a + (ta ? i : i * s.lda);
                            B.sa = ta ? (ptrdiff_t)s.lda : 1;
                            B.b = B_ + bi * s.stride_b + (tb ? j * s.ldb : j);
                            B.sb = tb ? 1 : (ptrdiff_t)s.ldb;
                            B.u = 0;
                            if (B.init && cv && !bz) {
                                fl_ctx c1 = at(&B.cacc, B.base, 3 * K + 4);
                                B.u = tmul(m.acc, m.acc, beta, m.out, *cv, &c1, &B.fl);
                            }
                            acc = brute_acc(&B, tree);
                            want = brute_out(&B, acc, alpha, beta, bz ? NULL : cv);
                            all |= B.fl;
                            report_elem("gemm", text, e,
                                        D[bi * s.stride_d + i * s.ldd + j], want, 0, 0);
                            n_elems++;
                        }
                CHECK((gf & FL_IEEE_FLAGS) == (all & FL_IEEE_FLAGS),
                      "gemm flags: got %02x brute %02x\n  model: %s", gf,
                      all & FL_IEEE_FLAGS, text);
            }
            free(A_);
            free(B_);
            free(C);
            free(D);
        }
    }
    fl_ref_model_free(&rm);
    free(A.v);
    free(perm);
}

/* ------------------------------------------------------------------------
 * Fast paths against the generic path.
 * ---------------------------------------------------------------------- */
static long n_fast;

static void fast_case(int tc)
{
    char err[512], text[512];
    fl_ref_model m;
    size_t batch = 1 + rndn(2), M = 1 + rndn(rndn(4) ? 9 : 70),
           N = 1 + rndn(rndn(4) ? 20 : 150), K = rndn(rndn(3) ? 40 : 300);
    int ta = (int)rndn(2), tb = (int)rndn(2), withc = (int)rndn(2);
    int sp = (int)(rndn(3) == 0 ? 0 : rndn(2) ? 10 : 100);
    const fl_format *in, *acc;
    fl_ref_gemm_shape s;
    uint64_t *A_, *B_, *C = NULL, *D1, *D2, alpha, beta;
    unsigned f1 = 0, f2 = 0;
    fl_ctx c0 = fl_ctx_make(FL_RNE);
    unsigned dummy = 0;
    static const char *const avals[] = {"1", "1", "2", "-0.5", "0x1p-140", "1e30"};
    static const char *const bvals[] = {"0", "1", "-2", "0.25", "1e-30"};
    int rc1, rc2;

    if (tc) {
        static const char *const pre[] = {"h100-fp16", "h100-bf16", "a100-fp16",
                                          "a100-bf16", "v100-fp16"};
        const char *p = pre[rndn(5)];
        snprintf(text, sizeof text, "tc=%s order=%s acc=%s epilogue=%s acc-rm=%s",
                 p, rndn(3) ? "sequential" : "splitk:3",
                 rndn(5) ? "binary32" : "binary16", epi_text[rndn(3)],
                 rndn(4) ? "rne" : "sr");
        if (rndn(3) == 0) {
            char extra[128];
            snprintf(extra, sizeof extra, " tc=%s(neab:%d,align:%s,norm:%s,rm:%s)", p,
                     (int)rndn(4), rndn(2) ? "trunc" : rndn(2) ? "floor" : "rne",
                     rndn(2) ? "once" : "products", rndn(2) ? "rtz" : rm_names[rndn(7)]);
            /* replace the tc word */
            snprintf(text, sizeof text, "order=%s acc=binary32 epilogue=%s%s",
                     rndn(3) ? "sequential" : "splitk:2", epi_text[rndn(3)], extra);
        }
        if (rndn(5) == 0)
            strcat(text, rndn(2) ? " daz=1" : " ftz=1");
    } else {
        snprintf(text, sizeof text, "in=binary32 acc=binary32 products=%s epilogue=%s%s",
                 rndn(2) ? "fused" : "rounded", epi_text[rndn(3)],
                 rndn(8) == 0 ? " nan=cuda" : "");
    }
    fl_ref_model_init(&m);
    if (fl_ref_model_parse(&m, text, err, sizeof err) != 0) {
        CHECK(0, "fast model '%s': %s", text, err);
        return;
    }
    in = m.tc.on ? m.tc.preset_in ? m.tc.preset_in : &fl_binary16 : &m.in;
    if (m.tc.on && m.tc.preset_in) {
        m.in = *m.tc.preset_in;
        m.in_set = 1;
    }
    in = &m.in;
    acc = &m.acc;
    fl_ref_gemm_shape_init(&s, ta, tb, batch, M, N, K);
    s.lda += rndn(2);
    s.ldb += rndn(2);
    s.stride_a = (ta ? K : M) * s.lda;
    s.stride_b = rndn(3) == 0 ? 0 : (tb ? N : K) * s.ldb;
    A_ = malloc((batch * s.stride_a + 1) * sizeof *A_);
    B_ = malloc((batch * (tb ? N : K) * s.ldb + 1) * sizeof *B_);
    D1 = malloc(batch * M * N * sizeof *D1);
    D2 = malloc(batch * M * N * sizeof *D2);
    fill(A_, batch * s.stride_a, in, sp);
    fill(B_, batch * (tb ? N : K) * s.ldb, in, sp);
    fl_parse(acc, avals[rndn(6)], &c0, &dummy, &alpha);
    fl_parse(acc, bvals[rndn(5)], &c0, &dummy, &beta);
    if (withc) {
        C = malloc(batch * M * N * sizeof *C);
        fill(C, batch * M * N, acc, sp);
    } else {
        beta = 0;
    }
    fl__accel_cap(FL__CPU_LEVELS);
    rc1 = fl_ref_gemm(&m, &s, alpha, A_, B_, beta, C, D1, 1 + (int)rndn(3), &f1,
                      err, sizeof err);
    fl__accel_cap(FL__CPU_GENERIC);
    rc2 = fl_ref_gemm(&m, &s, alpha, A_, B_, beta, C, D2, 1, &f2, err, sizeof err);
    fl__accel_cap(FL__CPU_LEVELS);
    CHECK(rc1 == 0 && rc2 == 0, "fast gemm: %s", err);
    for (size_t e = 0; e < batch * M * N; e++) {
        CHECK(D1[e] == D2[e], "%s gemm %zux%zux%zu batch %zu ta %d tb %d: element %zu "
              "fast 0x%" PRIx64 " generic 0x%" PRIx64 " (model %s)", tc ? "tc" : "native",
              M, N, K, batch, ta, tb, e, D1[e], D2[e], text);
        n_fast++;
    }
    CHECK(f1 == f2, "%s gemm flags fast %02x generic %02x (model %s)",
          tc ? "tc" : "native", f1, f2, text);
    /* the same for rows (dot, and sum for the native path) */
    {
        size_t rows = 1 + rndn(20), n = rndn(rndn(3) ? 40 : 300);
        uint64_t *a = malloc((rows * n + 1) * sizeof *a);
        uint64_t *b = malloc((rows * n + 1) * sizeof *b);
        uint64_t *o1 = malloc(rows * sizeof *o1), *o2 = malloc(rows * sizeof *o2);
        int sum = !tc && rndn(2);
        f1 = f2 = 0;
        fill(a, rows * n, in, sp);
        fill(b, rows * n, in, sp);
        fl__accel_cap(FL__CPU_LEVELS);
        rc1 = sum ? fl_ref_sum(&m, a, rows, n, o1, 2, &f1, err, sizeof err)
                  : fl_ref_dot(&m, a, b, rows, n, o1, 2, &f1, err, sizeof err);
        fl__accel_cap(FL__CPU_GENERIC);
        rc2 = sum ? fl_ref_sum(&m, a, rows, n, o2, 1, &f2, err, sizeof err)
                  : fl_ref_dot(&m, a, b, rows, n, o2, 1, &f2, err, sizeof err);
        fl__accel_cap(FL__CPU_LEVELS);
        CHECK(rc1 == 0 && rc2 == 0, "fast rows: %s", err);
        for (size_t r = 0; r < rows; r++) {
            CHECK(o1[r] == o2[r], "%s %s row %zu n %zu: fast 0x%" PRIx64
                  " generic 0x%" PRIx64 " (model %s)", tc ? "tc" : "native",
                  sum ? "sum" : "dot", r, n, o1[r], o2[r], text);
            n_fast++;
        }
        CHECK(f1 == f2, "%s rows flags fast %02x generic %02x (model %s)",
              tc ? "tc" : "native", f1, f2, text);
        free(a);
        free(b);
        free(o1);
        free(o2);
    }
    free(A_);
    free(B_);
    free(C);
    free(D1);
    free(D2);
    fl_ref_model_free(&m);
}

/* Corner cases of the fast tensor-core path that random data reaches
 * rarely, each on 2 x 17 outputs (a full vector of 16 and one more): the
 * only inexact step is a term cut below the window; a tie under rm:rne;
 * a block whose products are all -0 on a -0 accumulator (the sign of the
 * zero); a carry out of the largest binary32 under rm:rne (overflow).
 * Fast against generic on value and flags, and the expected values. */
static void tc_corner(const char *model, const fl_format *in, uint64_t a0,
                      uint64_t a1, uint64_t b0, uint64_t b1, uint64_t cval,
                      uint64_t want, unsigned wflags)
{
    enum { M = 2, N = 17, K = 2 };
    fl_ref_model m;
    fl_ref_gemm_shape s;
    char err[256];
    uint64_t A[M * K], B[K * N], C[M * N], D1[M * N], D2[M * N], one, beta;
    unsigned f1 = 0, f2 = 0, d = 0;
    fl_ctx c0 = fl_ctx_make(FL_RNE);
    fl_ref_model_init(&m);
    CHECK(fl_ref_model_parse(&m, model, err, sizeof err) == 0, "%s: %s", model, err);
    m.in = *in;
    m.in_set = 1;
    for (int i = 0; i < M; i++) {
        A[i * K] = a0;
        A[i * K + 1] = a1;
    }
    for (int j = 0; j < N; j++) {
        B[j] = b0;
        B[N + j] = b1;
    }
    for (int e = 0; e < M * N; e++)
        C[e] = cval;
    one = fl_from_i32(&m.acc, 1, &c0, &d);
    beta = m.epilogue == FL_REF_EPI_INIT ? one : 0;
    fl_ref_gemm_shape_init(&s, 0, 0, 1, M, N, K);
    fl__accel_cap(FL__CPU_LEVELS);
    CHECK(fl_ref_gemm(&m, &s, one, A, B, beta, beta ? C : NULL, D1, 1, &f1, err,
                      sizeof err) == 0, "%s", err);
    fl__accel_cap(FL__CPU_GENERIC);
    CHECK(fl_ref_gemm(&m, &s, one, A, B, beta, beta ? C : NULL, D2, 1, &f2, err,
                      sizeof err) == 0, "%s", err);
    fl__accel_cap(FL__CPU_LEVELS);
    for (int e = 0; e < M * N; e++) {
        CHECK(D1[e] == D2[e] && D1[e] == want, "tc corner '%s' element %d: fast 0x%"
              PRIx64 " generic 0x%" PRIx64 " want 0x%" PRIx64, model, e, D1[e],
              D2[e], want);
        n_fast++;
    }
    CHECK(f1 == f2 && f1 == wflags, "tc corner '%s': flags fast %02x generic %02x "
          "want %02x", model, f1, f2, wflags);
    fl_ref_model_free(&m);
}

static void tc_corners(void)
{
    /* binary16 1, 2^-12, 2^-15; bfloat16 2^52, 2^51, 1 */
    const uint64_t H1 = 0x3C00, H12 = 0x0C00, H15 = 0x0200, HN0 = 0x8000;
    const uint64_t B52 = 0x59800000u >> 16, B51 = 0x59000000u >> 16, B1 = 0x3F80;
    /* 1*1 + 2^-15*2^-15: 2^-30 lies below the window (lsb 2^-25): cut,
     * the sum 1 is exact, the only flag is inexact */
    tc_corner("tc=h100-fp16", &fl_binary16, H1, H15, H1, H15, 0, 0x3F800000u,
              FL_INEXACT);
    /* 1 + 2^-24 is a tie in binary32: rne keeps the even 1 */
    tc_corner("tc=h100-fp16(rm:rne)", &fl_binary16, H1, H12, H1, H12, 0,
              0x3F800000u, FL_INEXACT);
    /* 1 + 3*2^-25 (above the tie) rounds up under rne */
    tc_corner("tc=h100-fp16(rm:rne)", &fl_binary16, H1, 0x0E00, H1, H12, 0,
              0x3F800001u, FL_INEXACT);
    /* -0 products onto a -0 accumulator (init from C = -0): -0 */
    tc_corner("tc=h100-fp16 epilogue=init", &fl_binary16, HN0, HN0, H1, H1,
              0x80000000u, 0x80000000u, 0);
    /* +0 products onto a -0 accumulator: +0 */
    tc_corner("tc=h100-fp16 epilogue=init", &fl_binary16, 0, 0, H1, H1,
              0x80000000u, 0, 0);
    /* the largest binary32 plus half its ulp (2^103 = 2^52*2^51) under rne:
     * the tie goes to the even neighbour, 2^128: overflow to infinity */
    tc_corner("tc=h100-bf16(rm:rne) epilogue=init", &fl_bfloat16, B52, 0, B51, 0,
              0x7F7FFFFFu, 0x7F800000u, FL_OVERFLOW | FL_INEXACT);
    /* the same under rtz: the largest finite */
    tc_corner("tc=h100-bf16 epilogue=init", &fl_bfloat16, B52, 0, B51, 0,
              0x7F7FFFFFu, 0x7F7FFFFFu, FL_INEXACT);
    (void)B1;
}

/* ------------------------------------------------------------------------
 * Thread counts.
 * ---------------------------------------------------------------------- */
static long n_threads;

static void threads_case(void)
{
    static const char *const models[] = {
        "acc-rm=sr seed=7 order=pairwise:4",
        "in=binary16 acc=binary16 acc-rm=sr out-rm=sr seed=99 products=fused",
        "in=binary32 order=sequential",
        "in=binary32 products=fused epilogue=init",
        "in=bfloat16 tc=h100-bf16 acc-rm=sr",
        "in=binary16 tc=h100-fp16 order=splitk:3",
        "in=binary16 order=exact out=binary16",
    };
    char err[256];
    fl_ref_model m;
    const char *text = models[rndn(sizeof models / sizeof models[0])];
    size_t M = 1 + rndn(60), N = 1 + rndn(60), K = rndn(70);
    fl_ref_gemm_shape s;
    uint64_t *A_, *B_, *D0, *D1, one;
    unsigned f0 = 0;
    fl_ref_model_init(&m);
    if (fl_ref_model_parse(&m, text, err, sizeof err) != 0) {
        CHECK(0, "%s: %s", text, err);
        return;
    }
    one = one_bits(&m.acc);
    fl_ref_gemm_shape_init(&s, (int)rndn(2), (int)rndn(2), 1, M, N, K);
    A_ = malloc((M * K + 1) * sizeof *A_);
    B_ = malloc((K * N + 1) * sizeof *B_);
    D0 = malloc(M * N * sizeof *D0);
    D1 = malloc(M * N * sizeof *D1);
    fill(A_, M * K, &m.in, 20);
    fill(B_, K * N, &m.in, 20);
    CHECK(fl_ref_gemm(&m, &s, one, A_, B_, 0, NULL, D0, 1, &f0, err, sizeof err) == 0,
          "%s", err);
    for (int t = 2; t <= 7; t += (t == 3 ? 4 : 1)) {
        unsigned f1 = 0;
        CHECK(fl_ref_gemm(&m, &s, one, A_, B_, 0, NULL, D1, t, &f1, err, sizeof err) == 0,
              "%s", err);
        CHECK(!memcmp(D0, D1, M * N * sizeof *D0) && f0 == f1,
              "%d threads differ from 1 (model %s, %zux%zux%zu)", t, text, M, N, K);
        n_threads++;
    }
    free(A_);
    free(B_);
    free(D0);
    free(D1);
    fl_ref_model_free(&m);
}

/* ------------------------------------------------------------------------
 * Text: the canonical line and the error messages.
 * ---------------------------------------------------------------------- */
static long n_text;

static void expect_err(const char *text, const char *frag1, const char *frag2)
{
    fl_ref_model m;
    char err[512] = "";
    int rc;
    fl_ref_model_init(&m);
    rc = fl_ref_model_parse(&m, text, err, sizeof err);
    CHECK(rc != 0 && strstr(err, frag1) && (!frag2 || strstr(err, frag2)),
          "'%s': rc %d, message '%s' (want '%s'%s%s)", text, rc, err, frag1,
          frag2 ? " and " : "", frag2 ? frag2 : "");
    fl_ref_model_free(&m);
    n_text++;
}

static void expect_line(const char *text, const char *line)
{
    fl_ref_model m;
    char err[512] = "";
    char *s;
    fl_ref_model_init(&m);
    CHECK(fl_ref_model_parse(&m, text, err, sizeof err) == 0, "'%s': %s", text, err);
    s = fl_ref_model_string(&m);
    CHECK(s && !strcmp(s, line), "'%s' prints\n  '%s'\n want\n  '%s'", text, s, line);
    free(s);
    fl_ref_model_free(&m);
    n_text++;
}

static void file_err(const char *dir, const char *content, const char *frag1,
                     const char *frag2)
{
    char path[512], err[512] = "";
    FILE *fp;
    fl_ref_model m;
    int rc;
    snprintf(path, sizeof path, "%s/m.txt", dir);
    fp = fopen(path, "w");
    fputs(content, fp);
    fclose(fp);
    fl_ref_model_init(&m);
    rc = fl_ref_model_parse_file(&m, path, err, sizeof err);
    CHECK(rc != 0 && strstr(err, frag1) && (!frag2 || strstr(err, frag2)),
          "file '%s': rc %d, message '%s' (want '%s')", content, rc, err, frag1);
    fl_ref_model_free(&m);
    n_text++;
}

static void text_tests(void)
{
    const char *def = "in=binary32 acc=binary32 acc-rm=rne products=rounded "
                      "order=sequential tc=none out=binary32 out-rm=rne "
                      "epilogue=last ftz=0 daz=0 nan=x86 saturate=0 "
                      "tininess=after seed=0";
    char dir[] = "/tmp/test_ref_XXXXXX", path[600], err[512];
    fl_ref_model m;
    FILE *fp;
    expect_line("", def);
    expect_line(def, def);
    expect_line("acc=bf16", "in=binary32 acc=bfloat16 acc-rm=rne products=rounded "
                "order=sequential tc=none out=bfloat16 out-rm=rne epilogue=last "
                "ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=0");
    expect_line("in=fp16 tc=h100-fp16",
                "in=binary16 acc=binary32 acc-rm=rne products=rounded "
                "order=sequential tc=h100-fp16(block:16,neab:2,align:trunc,"
                "norm:once,rm:rtz) out=binary32 out-rm=rne epilogue=last ftz=0 "
                "daz=0 nan=x86 saturate=0 tininess=after seed=0");
    expect_line("in=fp16 tc=h100-fp16(neab:3)",
                "in=binary16 acc=binary32 acc-rm=rne products=rounded "
                "order=sequential tc=block:16,neab:3,align:trunc,norm:once,"
                "rm:rtz out=binary32 out-rm=rne epilogue=last ftz=0 daz=0 "
                "nan=x86 saturate=0 tininess=after seed=0");
    expect_line("order=tree:((0+1)+(2+3))+4 in=ieee:6:9",
                "in=ieee:6:9 acc=binary32 acc-rm=rne products=rounded "
                "order=tree:((0+1)+(2+3))+4 tc=none out=binary32 out-rm=rne "
                "epilogue=last ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=0");
    expect_line("order=tree:0+1+2+(3+4)",
                "in=binary32 acc=binary32 acc-rm=rne products=rounded "
                "order=tree:((0+1)+2)+(3+4) tc=none out=binary32 out-rm=rne "
                "epilogue=last ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=0");
    expect_line("order=lanes:8 seed=0x10 acc-rm=sr",
                "in=binary32 acc=binary32 acc-rm=sr products=rounded "
                "order=lanes:8:seq tc=none out=binary32 out-rm=rne epilogue=last "
                "ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=16");
    expect_err("acc_rm=rne", "unknown key 'acc_rm'", NULL);
    expect_err("acc=fp17", "acc:", "unknown format 'fp17'");
    expect_err("acc-rm=round", "unknown rounding mode 'round'", NULL);
    expect_err("order=pairwise", "pairwise:B", NULL);
    expect_err("order=pairwise:0", "positive integer", NULL);
    expect_err("order=lanes:4:zigzag", "'zigzag'", NULL);
    expect_err("order=tree:(0+1)+1", "index 1 appears twice", "position 4 and position 7");
    expect_err("order=tree:(0+1)+3", "index 3 at position 7 is out of range", "3 leaves");
    expect_err("order=tree:(0+1", "'(' at position 1 is never closed", NULL);
    expect_err("order=tree:0+1)", "unbalanced ')' at position 4", NULL);
    expect_err("order=tree:0+x", "found 'x'", "position 3");
    expect_err("order=tree:0+", "ends after '+'", NULL);
    expect_err("tc=h200-fp16", "unknown preset 'h200-fp16'", NULL);
    expect_err("tc=h100-fp16(neab:99)", "neab must be an integer 0..30", NULL);
    expect_err("tc=block:16,tile:4", "unknown parameter 'tile'", NULL);
    expect_err("ftz=yes", "ftz: 0 or 1", NULL);
    expect_err("seed=-3", "seed: '-3'", NULL);
    expect_err("nan=ppc", "unknown preset 'ppc'", NULL);
    expect_err("acc=fp16 acc=fp32", "key 'acc' given twice", NULL);
    expect_err("products", "'products' is not key=value", NULL);
    /* models valid as text but not for a call */
    {
        fl_ref_model mm;
        fl_ref_model_init(&mm);
        fl_ref_model_parse(&mm, "order=tree:(0+1)+2", err, sizeof err);
        CHECK(fl_ref_model_check(&mm, FL_REF_OP_SUM, 4, err, sizeof err) != 0 &&
              strstr(err, "3 leaves") && strstr(err, "4 terms"), "tree size: %s", err);
        fl_ref_model_free(&mm);
        fl_ref_model_init(&mm);
        fl_ref_model_parse(&mm, "in=binary32 tc=h100-fp16", err, sizeof err);
        CHECK(fl_ref_model_check(&mm, FL_REF_OP_DOT, 4, err, sizeof err) != 0 &&
              strstr(err, "binary16 inputs but in=binary32"), "tc in: %s", err);
        CHECK(fl_ref_model_check(&mm, FL_REF_OP_SUM, 4, err, sizeof err) != 0 &&
              strstr(err, "sum has none"), "tc sum: %s", err);
        fl_ref_model_free(&mm);
        fl_ref_model_init(&mm);
        fl_ref_model_parse(&mm, "in=binary32 acc=bf16 products=fused", err, sizeof err);
        CHECK(fl_ref_model_check(&mm, FL_REF_OP_DOT, 4, err, sizeof err) != 0 &&
              strstr(err, "in=binary32, acc=bfloat16"), "fused narrow: %s", err);
        fl_ref_model_free(&mm);
        n_text += 4;
    }
    /* model files */
    if (mkdtemp(dir) == NULL) {
        CHECK(0, "mkdtemp");
        return;
    }
    file_err(dir, "# a model\nacc = binary32\nacc_rm = rne\n", "m.txt:3:",
             "unknown key 'acc_rm'");
    file_err(dir, "acc = fp32\n\nacc = fp16\n", "m.txt:3:", "key 'acc' given twice");
    file_err(dir, "order = pairwise:x\n", "m.txt:1:", "pairwise:B");
    file_err(dir, "order = tree: (0 + 1) +\n", "m.txt:1:", "ends after '+'");
    file_err(dir, "acc binary32\n", "m.txt:1:", "not key = value");
    file_err(dir, "ftz = \n", "m.txt:1:", "has no value");
    file_err(dir, "in=binary16 acc=bf16 seed=x\n", "m.txt:1:", "seed: 'x'");
    file_err(dir, "order = tree:@missing.txt\n", "m.txt:1:", "missing.txt");
    snprintf(path, sizeof path, "%s/t.txt", dir);
    fp = fopen(path, "w");
    fputs("(0 + 1)\n + (2 + 1)\n", fp);
    fclose(fp);
    file_err(dir, "order = tree:@t.txt\n", "m.txt:1:",
             "index 1 appears twice (at line 1 column 6 and line 2 column 9)");
    /* a good file: comments, blanks, a tree file relative to the model
     * file, then the canonical line itself as a file */
    fp = fopen(path, "w");
    fputs("((0+1)\n +(2+3))+4\n", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/m.txt", dir);
    fp = fopen(path, "w");
    fputs("# numpy-like\n\nin = binary16   # inputs\nacc = binary32\n"
          "order = tree:@t.txt\nepilogue = init\n", fp);
    fclose(fp);
    fl_ref_model_init(&m);
    CHECK(fl_ref_model_parse_file(&m, path, err, sizeof err) == 0, "good file: %s", err);
    {
        char *s = fl_ref_model_string(&m);
        CHECK(s && strstr(s, "in=binary16 acc=binary32") &&
              strstr(s, "order=tree:((0+1)+(2+3))+4") && strstr(s, "epilogue=init"),
              "good file prints '%s'", s);
        fp = fopen(path, "w");
        fprintf(fp, "%s\n", s);
        fclose(fp);
        fl_ref_model_free(&m);
        fl_ref_model_init(&m);
        CHECK(fl_ref_model_parse_file(&m, path, err, sizeof err) == 0,
              "canonical line as a file: %s", err);
        {
            char *s2 = fl_ref_model_string(&m);
            CHECK(s2 && !strcmp(s, s2), "file round trip '%s' vs '%s'", s, s2);
            free(s2);
        }
        free(s);
    }
    fl_ref_model_free(&m);
    n_text += 2;
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    if (system(path) != 0)
        CHECK(0, "cleanup");
}

/* Hand-checked values: the signs of zero sums, which random inputs
 * reach rarely (numpy's reduction starts at +0; sequential does not). */
static long n_known;

static void known_sum(const char *model, size_t n, uint64_t x, uint64_t want)
{
    fl_ref_model m;
    char err[256];
    uint64_t *v = malloc((n + 1) * sizeof *v), out = 0;
    unsigned f = 0;
    for (size_t i = 0; i < n; i++)
        v[i] = x;
    fl_ref_model_init(&m);
    CHECK(fl_ref_model_parse(&m, model, err, sizeof err) == 0, "%s: %s", model, err);
    CHECK(fl_ref_sum(&m, v, 1, n, &out, 1, &f, err, sizeof err) == 0, "%s", err);
    CHECK(out == want, "%s, %zu terms 0x%" PRIx64 ": got 0x%" PRIx64 " want 0x%"
          PRIx64, model, n, x, out, want);
    fl_ref_model_free(&m);
    free(v);
    n_known++;
}

static void known_values(void)
{
    static const size_t ns[] = {1, 5, 8, 13, 130, 300};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        known_sum("order=numpy", ns[i], 0x80000000u, 0);
        known_sum("order=sequential", ns[i], 0x80000000u, 0x80000000u);
        known_sum("order=pairwise:4", ns[i], 0x80000000u, 0x80000000u);
        known_sum("epilogue=init", ns[i], 0x80000000u, 0);
        known_sum("order=exact", ns[i], 0x80000000u, 0x80000000u);
        known_sum("order=exact out-rm=rdn", ns[i], 0, 0);
        /* the exact sum from a +0 start (a `s = 0; for` loop) */
        known_sum("order=exact epilogue=init", ns[i], 0x80000000u, 0);
        known_sum("order=exact epilogue=init out-rm=rdn", ns[i], 0x80000000u,
                  0x80000000u);
        known_sum("order=numpy acc-rm=rdn", ns[i], 0x80000000u, 0x80000000u);
        {
            fl_ctx c = fl_ctx_make(FL_RNE);
            unsigned f = 0;
            known_sum("order=exact", ns[i], 0x3f800000u,
                      fl_from_i32(&fl_binary32, (int32_t)ns[i], &c, &f));
        }
    }
    /* 2^24 followed by ones: sequential (rne) absorbs every 1 (ties to
     * even), exact keeps them: 2^24 + 299 rounds to 2^24 + 300 */
    {
        fl_ref_model m;
        char err[256];
        uint64_t v[300], o1 = 0, o2 = 0;
        unsigned f = 0;
        v[0] = 0x4b800000u;
        for (int i = 1; i < 300; i++)
            v[i] = 0x3f800000u;
        fl_ref_model_init(&m);
        fl_ref_sum(&m, v, 1, 300, &o1, 1, &f, err, sizeof err);
        fl_ref_model_parse(&m, "order=exact", err, sizeof err);
        fl_ref_sum(&m, v, 1, 300, &o2, 1, &f, err, sizeof err);
        CHECK(o1 == 0x4b800000u && o2 == 0x4b800096u,
              "2^24 + 299 ones: sequential 0x%" PRIx64 " exact 0x%" PRIx64, o1, o2);
        n_known++;
    }
    known_sum("order=sequential", 0, 0x3f800000u, 0);
    known_sum("epilogue=init order=numpy", 0, 0x3f800000u, 0);
}

int main(int argc, char **argv)
{
    const uint64_t seed = tc_seed("test_ref");
    long scale = getenv("FPLAB_TEST_SCALE") ? atol(getenv("FPLAB_TEST_SCALE")) : 1;
    long nb = 2500 * (scale < 1 ? 1 : scale), ntc = 600 * (scale < 1 ? 1 : scale),
         nf = 300 * (scale < 1 ? 1 : scale), nt = 40;
    const char *only = argc > 1 ? argv[1] : NULL;
    rng = seed;
    if (!only || !strcmp(only, "text")) {
        text_tests();
        printf("text: %ld checks\n", n_text);
        CHECK(n_text >= 43, "text checks ran: %ld", n_text);
    }
    if (!only || !strcmp(only, "brute")) {
        known_values();
        printf("known: %ld hand-checked sums\n", n_known);
        CHECK(n_known == 6 * 10 + 3, "known values ran: %ld", n_known);
        for (long i = 0; i < nb; i++)
            brute_case(0);
        printf("brute: %ld models (%ld text round trips), %ld elements, %ld "
               "order trees\n", n_models, n_roundtrip, n_elems, n_order_tree);
        CHECK(n_order_tree >= nb / 10, "order trees compared: %ld", n_order_tree);
        CHECK(n_models >= nb / 3 && n_elems >= nb, "brute force ran %ld models, %ld elements",
              n_models, n_elems);
    }
    if (!only || !strcmp(only, "tc")) {
        long before = n_elems;
        n_models = 0;
        for (long i = 0; i < ntc; i++)
            brute_case(1);
        printf("tc: %ld models, %ld elements\n", n_models, n_elems - before);
        CHECK(n_models >= ntc / 2 && n_elems - before >= ntc, "tc ran %ld models", n_models);
    }
    if (!only || !strcmp(only, "fast")) {
        for (long i = 0; i < nf; i++)
            fast_case(0);
        for (long i = 0; i < nf; i++)
            fast_case(1);
        tc_corners();
        printf("fast: %ld elements (native binary32 and integer tc vs generic)\n", n_fast);
        CHECK(n_fast >= nf * 10, "fast ran %ld elements", n_fast);
    }
    if (!only || !strcmp(only, "threads")) {
        for (long i = 0; i < nt; i++)
            threads_case();
        printf("threads: %ld comparisons\n", n_threads);
        CHECK(n_threads == nt * 3, "threads ran %ld", n_threads);
    }
    {
        const tc_counts *k = tc_counter();
        printf("test_ref: %d checks, %d failures (seed %" PRIu64 ")\n", k->cases,
               k->failures, seed);
        return k->failures ? 1 : 0;
    }
}
