/*
 * plan.c — the summation tree of every order as a plan: a list of
 * additions in postorder (see fplab/ref.h for the orders).  The plan
 * depends only on the order and n, so one plan serves every element of a
 * call.  Builders are iterative or recurse only O(log n) deep.
 */
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

static int node(ref_plan *p, int64_t l, int64_t r, int64_t *out)
{
    if (p->nnodes == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 64;
        int64_t *k = realloc(p->kid, 2 * nc * sizeof *k);
        if (k == NULL)
            return -1;
        p->kid = k;
        p->cap = nc;
    }
    p->kid[2 * p->nnodes] = l;
    p->kid[2 * p->nnodes + 1] = r;
    *out = (int64_t)(p->n + p->nnodes);
    p->nnodes++;
    return 0;
}

/* ((first + next(1)) + next(2)) ... over count references given by
 * ref(i) = start + i*step (leaves), chained left to right. */
static int chain_leaves(ref_plan *p, int64_t start, int64_t step, size_t count,
                        int64_t *out)
{
    int64_t acc = start;
    for (size_t i = 1; i < count; i++)
        if (node(p, acc, start + (int64_t)i * step, &acc) != 0)
            return -1;
    *out = acc;
    return 0;
}

/* Sequential chain over an array of references. */
static int chain_refs(ref_plan *p, const int64_t *refs, size_t count,
                      int64_t *out)
{
    int64_t acc = refs[0];
    for (size_t i = 1; i < count; i++)
        if (node(p, acc, refs[i], &acc) != 0)
            return -1;
    *out = acc;
    return 0;
}

/* Pairwise over refs[0..count): the first half holds ceil(count/2). */
static int pairwise_refs(ref_plan *p, const int64_t *refs, size_t count,
                         int64_t *out)
{
    int64_t l, r;
    size_t h;
    if (count == 1) {
        *out = refs[0];
        return 0;
    }
    h = count - count / 2;
    if (pairwise_refs(p, refs, h, &l) != 0 ||
        pairwise_refs(p, refs + h, count - h, &r) != 0)
        return -1;
    return node(p, l, r, out);
}

/* Halving over refs (modified in place): with c left, refs[i] +=
 * refs[i + ceil(c/2)] for i < floor(c/2). */
static int halving_refs(ref_plan *p, int64_t *refs, size_t count,
                        int64_t *out)
{
    size_t c = count;
    while (c > 1) {
        size_t h = c - c / 2;
        for (size_t i = 0; i < c / 2; i++)
            if (node(p, refs[i], refs[i + h], &refs[i]) != 0)
                return -1;
        c = h;
    }
    *out = refs[0];
    return 0;
}

/* numpy's pairwise_sum over leaves [lo, lo+cnt) (loops_utils.h.src). */
static int numpy_pw(ref_plan *p, size_t lo, size_t cnt, int64_t *out)
{
    if (cnt < 8) {
        /* res = 0.; res += x[i] ... */
        int64_t acc = REF_ZERO;
        for (size_t i = 0; i < cnt; i++)
            if (node(p, acc, (int64_t)(lo + i), &acc) != 0)
                return -1;
        *out = acc;
        return 0;
    }
    if (cnt <= 128) {
        int64_t r[8], a, b, c, d, res;
        size_t full = cnt - cnt % 8;
        for (int j = 0; j < 8; j++)
            if (chain_leaves(p, (int64_t)(lo + (size_t)j), 8, full / 8, &r[j]) != 0)
                return -1;
        /* ((r0+r1)+(r2+r3)) + ((r4+r5)+(r6+r7)) */
        if (node(p, r[0], r[1], &a) || node(p, r[2], r[3], &b) ||
            node(p, a, b, &a) || node(p, r[4], r[5], &c) ||
            node(p, r[6], r[7], &d) || node(p, c, d, &c) ||
            node(p, a, c, &res))
            return -1;
        for (size_t i = full; i < cnt; i++)
            if (node(p, res, (int64_t)(lo + i), &res) != 0)
                return -1;
        *out = res;
        return 0;
    }
    {
        size_t n2 = cnt / 2;
        int64_t l, r;
        n2 -= n2 % 8;
        if (numpy_pw(p, lo, n2, &l) != 0 ||
            numpy_pw(p, lo + n2, cnt - n2, &r) != 0)
            return -1;
        return node(p, l, r, out);
    }
}

/* ------------------------------------------------------------------------
 * order=cascade:A[:pairs|:halves]: PyTorch's CPU sum over a contiguous
 * row (aten/src/ATen/native/cpu/SumKernel.cpp): vectorized_inner_sum ->
 * row_sum (4 accumulators) -> multi_row_sum (the cascade of 4 levels).  A
 * value is W refs (the lanes of a vector, W = A; W = 1 on the scalar path
 * for rows shorter than one load).  Every `+=` of the source is a node,
 * +0 starts and resets included (REF_ZERO), so signed zeros come out as
 * PyTorch's.
 * ---------------------------------------------------------------------- */
typedef struct casc {
    ref_plan *p;
    size_t W;              /* lanes of a value */
    size_t V;              /* terms per vector load (vector path) */
    int load;              /* FL_REF_CASCADE_*; -1: the scalar path */
} casc;

/* dst += src, lane by lane. */
static int casc_add(const casc *c, int64_t *dst, const int64_t *src)
{
    for (size_t i = 0; i < c->W; i++)
        if (node(c->p, dst[i], src[i], &dst[i]) != 0)
            return -1;
    return 0;
}

/* Element q (a load of V terms, or term q on the scalar path) into out. */
static int casc_elem(const casc *c, size_t q, int64_t *out)
{
    if (c->load < 0) {
        out[0] = (int64_t)q;
        return 0;
    }
    for (size_t i = 0; i < c->W; i++) {
        int64_t base = (int64_t)(q * c->V), t;
        switch (c->load) {
        case FL_REF_CASCADE_PAIRS:    /* load_reduce_vec: (0 + v[2i]) + v[2i+1] */
            if (node(c->p, REF_ZERO, base + 2 * (int64_t)i, &t) != 0 ||
                node(c->p, t, base + 2 * (int64_t)i + 1, &out[i]) != 0)
                return -1;
            break;
        case FL_REF_CASCADE_HALVES:   /* first + second */
            if (node(c->p, base + (int64_t)i, base + (int64_t)(i + c->W),
                     &out[i]) != 0)
                return -1;
            break;
        default:
            out[i] = base + (int64_t)i;
            break;
        }
    }
    return 0;
}

/* utils::CeilLog2: 1 for x <= 2. */
static int casc_ceil_log2(size_t x)
{
    int k = 0;
    if (x <= 2)
        return 1;
    while (((size_t)1 << k) < x)
        k++;
    return k;
}

/* row_sum over `count` elements: multi_row_sum<4> over count/4 rows of 4
 * (element 4i + k in accumulator k), the remainder into accumulator 0,
 * then acc0 += acc1, acc2, acc3.  Result into res (W refs). */
static int casc_row_sum(const casc *c, size_t count, int64_t *res)
{
    enum { NL = 4, NR = 4 };
    const size_t W = c->W, size = count / NR;
    const int pw = casc_ceil_log2(size) / NL > 4 ? casc_ceil_log2(size) / NL : 4;
    const size_t step = (size_t)1 << pw, mask = step - 1;
    int64_t *acc = malloc((NL * NR + 1) * W * sizeof *acc), *e;
    size_t i = 0;
    int rc = -1;
#define ACC(j, k) (acc + ((size_t)(j) * NR + (size_t)(k)) * W)
    if (acc == NULL)
        return -1;
    e = acc + NL * NR * W;
    for (size_t z = 0; z < NL * NR * W; z++)
        acc[z] = REF_ZERO;
    while (i + step <= size) {
        for (size_t j = 0; j < step; j++, i++)
            for (size_t k = 0; k < NR; k++)
                if (casc_elem(c, i * NR + k, e) || casc_add(c, ACC(0, k), e))
                    goto out;
        for (size_t j = 1; j < NL; j++) {
            for (size_t k = 0; k < NR; k++) {
                if (casc_add(c, ACC(j, k), ACC(j - 1, k)))
                    goto out;
                for (size_t z = 0; z < W; z++)
                    ACC(j - 1, k)[z] = REF_ZERO;
            }
            if ((i & (mask << (j * (size_t)pw))) != 0)
                break;
        }
    }
    for (; i < size; i++)
        for (size_t k = 0; k < NR; k++)
            if (casc_elem(c, i * NR + k, e) || casc_add(c, ACC(0, k), e))
                goto out;
    for (size_t j = 1; j < NL; j++)
        for (size_t k = 0; k < NR; k++)
            if (casc_add(c, ACC(0, k), ACC(j, k)))
                goto out;
    /* row_sum: the remaining elements into accumulator 0, then the four */
    for (size_t q = size * NR; q < count; q++)
        if (casc_elem(c, q, e) || casc_add(c, ACC(0, 0), e))
            goto out;
    for (size_t k = 1; k < NR; k++)
        if (casc_add(c, ACC(0, 0), ACC(0, k)))
            goto out;
    memcpy(res, ACC(0, 0), W * sizeof *res);
    rc = 0;
out:
#undef ACC
    free(acc);
    return rc;
}

static int cascade_plan(ref_plan *p, size_t n, size_t A, int load,
                        int64_t *root)
{
    casc c;
    int64_t *lanes, fin = REF_ZERO;
    size_t V = load == FL_REF_CASCADE_ONE ? A : 2 * A;
    c.p = p;
    if (n < V || n < 2) {
        /* scalar_inner_sum: row_sum over single terms, then out += it */
        int64_t r1;
        c.W = 1;
        c.V = 1;
        c.load = -1;
        if (casc_row_sum(&c, n, &r1) != 0)
            return -1;
        return node(p, REF_ZERO, r1, root);
    }
    c.W = A;
    c.V = V;
    c.load = load;
    lanes = malloc(A * sizeof *lanes);
    if (lanes == NULL)
        return -1;
    if (casc_row_sum(&c, n / V, lanes) != 0) {
        free(lanes);
        return -1;
    }
    /* final_acc = 0; += the tail terms; += each lane; out += final_acc */
    for (size_t t = n / V * V; t < n; t++)
        if (node(p, fin, (int64_t)t, &fin) != 0) {
            free(lanes);
            return -1;
        }
    for (size_t i = 0; i < A; i++)
        if (node(p, fin, lanes[i], &fin) != 0) {
            free(lanes);
            return -1;
        }
    free(lanes);
    return node(p, REF_ZERO, fin, root);
}

/* order=pairswap: one chain over terms [lo, hi) from +0, each pair's odd
 * term first, a lone last term after a +0. */
static int pairswap_chain(ref_plan *p, size_t lo, size_t hi, int64_t *out)
{
    int64_t acc = REF_ZERO;
    size_t i = lo;
    for (; i + 1 < hi; i += 2)
        if (node(p, acc, (int64_t)(i + 1), &acc) != 0 ||
            node(p, acc, (int64_t)i, &acc) != 0)
            return -1;
    if (i < hi && (node(p, acc, REF_ZERO, &acc) != 0 ||
                   node(p, acc, (int64_t)i, &acc) != 0))
        return -1;
    *out = acc;
    return 0;
}

static int pairswap_plan(ref_plan *p, size_t n, size_t B, int64_t *root)
{
    size_t main = B ? n / B * B : 0;
    int64_t a, b;
    if (main == 0 || main == n)
        return pairswap_chain(p, 0, n, root);
    if (pairswap_chain(p, 0, main, &a) != 0 ||
        pairswap_chain(p, main, n, &b) != 0)
        return -1;
    return node(p, a, b, root);
}

/* order=tiles:B:W: tiles of B terms; each tile's W lanes start from +0
 * (zeroed registers: a lane without a term stays +0), add their terms in
 * order and are added in order; the tile sums added in order. */
static int tiles_plan(ref_plan *p, size_t n, size_t B, size_t W, int64_t *root)
{
    int64_t *lanes = malloc(W * sizeof *lanes), acc = 0;
    int first = 1;
    if (lanes == NULL)
        return -1;
    for (size_t lo = 0; lo < n; lo += B) {
        size_t hi = lo + B < n ? lo + B : n;
        int64_t t = 0;
        for (size_t j = 0; j < W; j++) {
            lanes[j] = REF_ZERO;
            for (size_t i = lo + j; i < hi; i += W)
                if (node(p, lanes[j], (int64_t)i, &lanes[j]) != 0) {
                    free(lanes);
                    return -1;
                }
        }
        if (chain_refs(p, lanes, W, &t) != 0) {
            free(lanes);
            return -1;
        }
        if (first)
            acc = t;
        else if (node(p, acc, t, &acc) != 0) {
            free(lanes);
            return -1;
        }
        first = 0;
    }
    free(lanes);
    *root = acc;
    return 0;
}

/* Sequential sums of consecutive parts of `part` terms, into refs. */
static int part_sums(ref_plan *p, size_t n, size_t part, int64_t *refs,
                     size_t *count)
{
    size_t m = 0;
    for (size_t lo = 0; lo < n; lo += part) {
        size_t cnt = n - lo < part ? n - lo : part;
        if (chain_leaves(p, (int64_t)lo, 1, cnt, &refs[m]) != 0)
            return -1;
        m++;
    }
    *count = m;
    return 0;
}

/* Renumber the nodes in postorder of the tree (left subtree, right
 * subtree, node), the numbering the stochastic-rounding slots are defined
 * by; the builders create some nodes in another order (all lanes before
 * their combination).  Iterative: trees may be n deep. */
static int renumber_postorder(ref_plan *p)
{
    const int64_t n = (int64_t)p->n;
    size_t nn = p->nnodes, next = 0, sp = 0;
    int64_t *newid = malloc(nn * sizeof *newid);
    int64_t *kid2 = malloc(2 * nn * sizeof *kid2);
    struct it { int64_t node; int state; } *stk = malloc(nn * sizeof *stk);
    if (newid == NULL || kid2 == NULL || stk == NULL) {
        free(newid);
        free(kid2);
        free(stk);
        return -1;
    }
    stk[sp].node = p->root - n;
    stk[sp].state = 0;
    sp++;
    while (sp > 0) {
        struct it *t = &stk[sp - 1];
        if (t->state < 2) {
            int64_t c = p->kid[2 * t->node + t->state];
            t->state++;
            if (c >= n) {
                stk[sp].node = c - n;
                stk[sp].state = 0;
                sp++;
            }
        } else {
            newid[t->node] = (int64_t)next++;
            sp--;
        }
    }
    for (size_t j = 0; j < nn; j++)
        for (int s = 0; s < 2; s++) {
            int64_t c = p->kid[2 * j + s];
            kid2[2 * newid[j] + s] = c >= n ? n + newid[c - n] : c;
        }
    p->root = n + newid[p->root - n];
    free(p->kid);
    p->kid = kid2;
    p->cap = nn;
    free(newid);
    free(stk);
    return 0;
}

void ref_plan_free(ref_plan *p)
{
    free(p->kid);
    memset(p, 0, sizeof *p);
}

int ref_plan_build(ref_plan *p, const fl_ref_model *m, size_t n)
{
    int64_t root = 0, *refs = NULL;
    size_t cnt;
    int rc = 0;

    memset(p, 0, sizeof *p);
    p->n = n;
    p->first_node = -1;
    if (n == 0)
        return 0;
    switch (m->order) {
    case FL_REF_REVERSE:
        rc = chain_leaves(p, (int64_t)n - 1, -1, n, &root);
        break;
    case FL_REF_PAIRWISE:
    case FL_REF_BLOCKED:
    case FL_REF_SPLITK: {
        size_t part = m->order_arg;
        if (m->order == FL_REF_SPLITK)
            part = (n + m->order_arg - 1) / m->order_arg;
        refs = calloc((n + part - 1) / part, sizeof *refs);
        if (refs == NULL)
            return -1;
        rc = part_sums(p, n, part, refs, &cnt);
        if (rc == 0)
            rc = m->order == FL_REF_PAIRWISE ? pairwise_refs(p, refs, cnt, &root)
                                             : chain_refs(p, refs, cnt, &root);
        break;
    }
    case FL_REF_NUMPY: {
        int64_t pw;
        rc = numpy_pw(p, 0, n, &pw);
        if (rc == 0)
            rc = node(p, REF_ZERO, pw, &root);   /* the reduction's 0 + */
        break;
    }
    case FL_REF_LANES: {
        size_t w = m->order_arg < n ? m->order_arg : n;
        refs = calloc(w, sizeof *refs);
        if (refs == NULL)
            return -1;
        for (size_t j = 0; j < w && rc == 0; j++)
            rc = chain_leaves(p, (int64_t)j, (int64_t)m->order_arg,
                              (n - j + m->order_arg - 1) / m->order_arg, &refs[j]);
        if (rc == 0) {
            if (m->lanes_combine == FL_REF_LANES_PAIRWISE)
                rc = pairwise_refs(p, refs, w, &root);
            else if (m->lanes_combine == FL_REF_LANES_HALVING)
                rc = halving_refs(p, refs, w, &root);
            else
                rc = chain_refs(p, refs, w, &root);
        }
        break;
    }
    case FL_REF_CASCADE:
        rc = cascade_plan(p, n, m->order_arg, m->cascade_load, &root);
        break;
    case FL_REF_PAIRSWAP:
        rc = pairswap_plan(p, n, m->order_arg, &root);
        break;
    case FL_REF_TILES:
        rc = tiles_plan(p, n, m->order_arg, m->order_arg2, &root);
        break;
    case FL_REF_TREE: {
        const fl_ref_tree *t = m->tree;
        size_t nn = t->n - 1;
        if (nn > 0) {
            p->kid = malloc(2 * nn * sizeof *p->kid);
            if (p->kid == NULL)
                return -1;
            memcpy(p->kid, t->kid, 2 * nn * sizeof *p->kid);
            p->nnodes = p->cap = nn;
            root = (int64_t)(n + nn - 1);
        } else {
            root = 0;
        }
        break;
    }
    default: /* sequential */
        rc = chain_leaves(p, 0, 1, n, &root);
        break;
    }
    free(refs);
    if (rc != 0) {
        ref_plan_free(p);
        return -1;
    }
    p->root = root;
    if (p->nnodes > 0 && renumber_postorder(p) != 0) {
        ref_plan_free(p);
        return -1;
    }
    /* the leftmost leaf: follow left operands down from the root */
    {
        int64_t r = root, parent = -1;
        while (r >= (int64_t)n) {
            parent = r - (int64_t)n;
            r = p->kid[2 * parent];
        }
        p->first_node = parent;
    }
    return 0;
}

int fl_ref_order_tree(const fl_ref_model *m, size_t n, int64_t **kid,
                      size_t *nnodes, char *err, size_t errlen)
{
    ref_plan p;
    *kid = NULL;
    *nnodes = 0;
    if (m->order == FL_REF_EXACT || m->tc.on) {
        ref_set_err(err, errlen, "order=exact and tc models have no tree of "
                    "additions");
        return -1;
    }
    if (m->order == FL_REF_TREE && (m->tree == NULL || m->tree->n != n)) {
        ref_set_err(err, errlen, "order=tree has %zu leaves, not %zu",
                    m->tree ? m->tree->n : (size_t)0, n);
        return -1;
    }
    if ((m->order == FL_REF_PAIRWISE || m->order == FL_REF_BLOCKED ||
         m->order == FL_REF_LANES || m->order == FL_REF_SPLITK ||
         m->order == FL_REF_CASCADE || m->order == FL_REF_TILES) &&
        (m->order_arg == 0 || (m->order == FL_REF_TILES && m->order_arg2 == 0))) {
        ref_set_err(err, errlen, "the order's parameter must be >= 1");
        return -1;
    }
    if (ref_plan_build(&p, m, n) != 0) {
        ref_set_err(err, errlen, "out of memory building the tree of %zu terms",
                    n);
        return -1;
    }
    *kid = p.kid;          /* postorder, root last (renumber_postorder) */
    *nnodes = p.nnodes;
    if (p.nnodes == 0) {
        free(p.kid);
        *kid = NULL;
    }
    return 0;
}
