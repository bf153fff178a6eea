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
         m->order == FL_REF_LANES || m->order == FL_REF_SPLITK) &&
        m->order_arg == 0) {
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
