/*
 * tree.c — revealed summation trees: k-ary, children in a stated order,
 * nodes in postorder.  Comparison by clusters (the leaf set under each
 * node: two trees with the same clusters are the same tree up to the
 * order of children, which IEEE addition does not see), the text drawing
 * and the tree:EXPR form.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reveal_internal.h"

void fl_reveal_tree_free(fl_reveal_tree *t)
{
    if (t == NULL)
        return;
    free(t->first);
    free(t->kids);
    memset(t, 0, sizeof *t);
}

int rv_tree_copy(fl_reveal_tree *dst, const fl_reveal_tree *src)
{
    size_t nk = src->nnodes ? src->first[src->nnodes] : 0;
    memset(dst, 0, sizeof *dst);
    dst->n = src->n;
    dst->nnodes = src->nnodes;
    dst->first = malloc((src->nnodes + 1) * sizeof *dst->first);
    dst->kids = malloc((nk ? nk : 1) * sizeof *dst->kids);
    if (dst->first == NULL || dst->kids == NULL) {
        fl_reveal_tree_free(dst);
        return -1;
    }
    memcpy(dst->first, src->first, (src->nnodes + 1) * sizeof *dst->first);
    if (nk)
        memcpy(dst->kids, src->kids, nk * sizeof *dst->kids);
    return 0;
}

size_t rv_tree_max_arity(const fl_reveal_tree *t)
{
    size_t m = 0;
    for (size_t j = 0; j < t->nnodes; j++)
        if (t->first[j + 1] - t->first[j] > m)
            m = t->first[j + 1] - t->first[j];
    return m;
}

/* Per reference (leaf or node): smallest leaf, leaf count. */
static int leaf_stats(const fl_reveal_tree *t, size_t **minleaf, size_t **size)
{
    size_t tot = t->n + t->nnodes;
    size_t *mn = malloc((tot ? tot : 1) * sizeof *mn);
    size_t *sz = malloc((tot ? tot : 1) * sizeof *sz);
    if (mn == NULL || sz == NULL) {
        free(mn);
        free(sz);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        mn[i] = i;
        sz[i] = 1;
    }
    for (size_t j = 0; j < t->nnodes; j++) {
        size_t r = t->n + j;
        mn[r] = (size_t)-1;
        sz[r] = 0;
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++) {
            size_t c = t->kids[q];
            if (mn[c] < mn[r])
                mn[r] = mn[c];
            sz[r] += sz[c];
        }
    }
    *minleaf = mn;
    *size = sz;
    return 0;
}

size_t fl_reveal_tree_height(const fl_reveal_tree *t, size_t r)
{
    size_t *h, res;
    if (r < t->n)
        return 0;
    h = calloc(t->n + t->nnodes, sizeof *h);
    if (h == NULL)
        return 0;
    for (size_t j = 0; j < t->nnodes; j++) {
        size_t m = 0;
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
            if (h[t->kids[q]] > m)
                m = h[t->kids[q]];
        h[t->n + j] = m + 1;
    }
    res = h[r];
    free(h);
    return res;
}

/* ------------------------------------------------------------------------
 * Rebuilding in postorder with children sorted by smallest leaf.
 * ---------------------------------------------------------------------- */
/* Children with their smallest leaf, sorted by it (no global state: the
 * library may run in several threads). */
typedef struct kid_key {
    size_t min, ref;
} kid_key;

static int by_min(const void *x, const void *y)
{
    size_t a = ((const kid_key *)x)->min, b = ((const kid_key *)y)->min;
    return a < b ? -1 : a > b;
}

/* Renumber nodes in postorder of the current child order. */
static int renumber(fl_reveal_tree *t)
{
    size_t nn = t->nnodes, n = t->n, next = 0, sp = 0, w = 0;
    size_t *newid, *nf, *nk;
    struct it { size_t node, pos; } *stk;
    if (nn == 0)
        return 0;
    newid = malloc(nn * sizeof *newid);
    stk = malloc(nn * sizeof *stk);
    nf = malloc((nn + 1) * sizeof *nf);
    nk = malloc(t->first[nn] * sizeof *nk);
    if (!newid || !stk || !nf || !nk) {
        free(newid);
        free(stk);
        free(nf);
        free(nk);
        return -1;
    }
    stk[sp].node = nn - 1;   /* the root is last */
    stk[sp].pos = t->first[nn - 1];
    sp++;
    while (sp) {
        struct it *it = &stk[sp - 1];
        if (it->pos < t->first[it->node + 1]) {
            size_t c = t->kids[it->pos++];
            if (c >= n) {
                stk[sp].node = c - n;
                stk[sp].pos = t->first[c - n];
                sp++;
            }
        } else {
            newid[it->node] = next++;
            sp--;
        }
    }
    /* write nodes in their new order */
    {
        size_t *old_of = malloc(nn * sizeof *old_of);
        if (old_of == NULL) {
            free(newid);
            free(stk);
            free(nf);
            free(nk);
            return -1;
        }
        for (size_t j = 0; j < nn; j++)
            old_of[newid[j]] = j;
        for (size_t j = 0; j < nn; j++) {
            size_t o = old_of[j];
            nf[j] = w;
            for (size_t q = t->first[o]; q < t->first[o + 1]; q++) {
                size_t c = t->kids[q];
                nk[w++] = c >= n ? n + newid[c - n] : c;
            }
        }
        nf[nn] = w;
        free(old_of);
    }
    free(t->first);
    free(t->kids);
    t->first = nf;
    t->kids = nk;
    free(newid);
    free(stk);
    return 0;
}

int rv_tree_canon(fl_reveal_tree *t)
{
    size_t *mn, *sz, maxar;
    kid_key *kk;
    if (t->nnodes == 0)
        return 0;
    if (leaf_stats(t, &mn, &sz) != 0)
        return -1;
    maxar = rv_tree_max_arity(t);
    kk = malloc((maxar ? maxar : 1) * sizeof *kk);
    if (kk == NULL) {
        free(mn);
        free(sz);
        return -1;
    }
    for (size_t j = 0; j < t->nnodes; j++) {
        size_t c = t->first[j + 1] - t->first[j];
        for (size_t q = 0; q < c; q++) {
            kk[q].ref = t->kids[t->first[j] + q];
            kk[q].min = mn[kk[q].ref];
        }
        qsort(kk, c, sizeof *kk, by_min);
        for (size_t q = 0; q < c; q++)
            t->kids[t->first[j] + q] = kk[q].ref;
    }
    free(kk);
    free(mn);
    free(sz);
    return renumber(t);
}

/* ------------------------------------------------------------------------
 * From a model's binary tree (constant +0 leaves contracted).
 * ---------------------------------------------------------------------- */
#define ZERO_REF ((size_t)-1)

int rv_tree_from_kid(fl_reveal_tree *t, size_t n, const int64_t *kid,
                     size_t nnodes)
{
    size_t *map = malloc((nnodes ? nnodes : 1) * sizeof *map), w = 0, nn = 0;
    memset(t, 0, sizeof *t);
    t->n = n;
    t->first = malloc((nnodes + 1) * sizeof *t->first);
    t->kids = malloc((2 * nnodes + 1) * sizeof *t->kids);
    if (map == NULL || t->first == NULL || t->kids == NULL) {
        free(map);
        fl_reveal_tree_free(t);
        return -1;
    }
    for (size_t j = 0; j < nnodes; j++) {
        size_t op[2];
        for (int s = 0; s < 2; s++) {
            int64_t c = kid[2 * j + s];
            op[s] = c < 0 ? ZERO_REF : (size_t)c < n ? (size_t)c
                                                   : map[(size_t)c - n];
        }
        if (op[0] == ZERO_REF) {
            map[j] = op[1];
        } else if (op[1] == ZERO_REF) {
            map[j] = op[0];
        } else {
            t->first[nn] = w;
            t->kids[w++] = op[0];
            t->kids[w++] = op[1];
            map[j] = n + nn;
            nn++;
        }
    }
    t->first[nn] = w;
    t->nnodes = nn;
    free(map);
    return 0;
}

int rv_model_tree(const fl_ref_model *m, size_t n, fl_reveal_tree *t,
                  int *has_zero)
{
    int64_t *kid = NULL;
    size_t nn = 0;
    char err[256];
    *has_zero = 0;
    memset(t, 0, sizeof *t);
    if (m->order == FL_REF_EXACT || m->tc.on)
        return 1;
    if (fl_ref_order_tree(m, n, &kid, &nn, err, sizeof err) != 0)
        return 1;
    for (size_t j = 0; j < 2 * nn; j++)
        if (kid[j] < 0)
            *has_zero = 1;
    if (rv_tree_from_kid(t, n, kid, nn) != 0) {
        free(kid);
        return -1;
    }
    free(kid);
    return 0;
}

/* ------------------------------------------------------------------------
 * Shape comparison: the multiset of (size, hash of the leaf set).
 * ---------------------------------------------------------------------- */
static uint64_t leaf_hash(size_t i)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Sorted cluster keys (hash + size mixed); NULL on out of memory. */
static uint64_t *cluster_keys(const fl_reveal_tree *t)
{
    size_t tot = t->n + t->nnodes;
    uint64_t *h = malloc((tot ? tot : 1) * sizeof *h);
    uint64_t *k = malloc((t->nnodes ? t->nnodes : 1) * sizeof *k);
    if (h == NULL || k == NULL) {
        free(h);
        free(k);
        return NULL;
    }
    for (size_t i = 0; i < t->n; i++)
        h[i] = leaf_hash(i);
    for (size_t j = 0; j < t->nnodes; j++) {
        uint64_t s = 0;
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
            s += h[t->kids[q]];
        h[t->n + j] = s;
        /* the arity too: a fused node is not a chain of two-term ones */
        k[j] = s * 31 + (t->first[j + 1] - t->first[j]);
    }
    qsort(k, t->nnodes, sizeof *k, cmp_u64);
    free(h);
    return k;
}

int rv_tree_same_shape(const fl_reveal_tree *x, const fl_reveal_tree *y)
{
    uint64_t *a, *b;
    int same;
    if (x->n != y->n || x->nnodes != y->nnodes)
        return 0;
    a = cluster_keys(x);
    b = cluster_keys(y);
    same = a && b && !memcmp(a, b, x->nnodes * sizeof *a);
    free(a);
    free(b);
    return same;
}

/* ------------------------------------------------------------------------
 * Text.
 * ---------------------------------------------------------------------- */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(sbuf *s, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (s->oom)
        return;
    for (;;) {
        size_t room = s->cap - s->len;
        va_start(ap, fmt);
        k = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            s->oom = 1;
            return;
        }
        if (s->p && (size_t)k < room) {
            s->len += (size_t)k;
            return;
        }
        {
            size_t nc = s->cap ? 2 * s->cap : 1024;
            char *np;
            while (nc < s->len + (size_t)k + 1)
                nc *= 2;
            np = realloc(s->p, nc);
            if (np == NULL) {
                s->oom = 1;
                return;
            }
            s->p = np;
            s->cap = nc;
        }
    }
}

/* The leaves of a chain in the order they are added (innermost first);
 * returns the count, 0 when r is not a chain of at least 3 leaves.  A
 * chain: a two-term node with a leaf child whose other child is a leaf or
 * a chain. */
static size_t chain_leaves(const fl_reveal_tree *t, size_t r, size_t *out,
                           size_t cap)
{
    size_t cnt = 0, cur = r;
    size_t stack_len = 0;
    /* walk down collecting the added leaf of each level */
    while (cur >= t->n) {
        size_t j = cur - t->n, a, b;
        if (t->first[j + 1] - t->first[j] != 2)
            return 0;
        a = t->kids[t->first[j]];
        b = t->kids[t->first[j] + 1];
        if (a < t->n && b < t->n) {
            if (stack_len + 2 > cap)
                return 0;
            out[stack_len++] = b;   /* reversed below */
            out[stack_len++] = a;
            cur = a;
            break;
        }
        if (a < t->n) {
            if (stack_len + 1 > cap)
                return 0;
            out[stack_len++] = a;
            cur = b;
        } else if (b < t->n) {
            if (stack_len + 1 > cap)
                return 0;
            out[stack_len++] = b;
            cur = a;
        } else {
            return 0;
        }
    }
    cnt = stack_len;
    for (size_t i = 0; i < cnt / 2; i++) {
        size_t x = out[i];
        out[i] = out[cnt - 1 - i];
        out[cnt - 1 - i] = x;
    }
    return cnt >= 3 ? cnt : 0;
}

/* Leaves listed compactly: "t0..t15", "t0, t8, ..., t120", or a list. */
static void list_leaves(sbuf *s, const size_t *v, size_t cnt)
{
    if (cnt >= 4) {
        long long d = (long long)v[1] - (long long)v[0];
        size_t i;
        for (i = 2; i < cnt; i++)
            if ((long long)v[i] - (long long)v[i - 1] != d)
                break;
        if (i == cnt) {
            if (d == 1)
                sb_add(s, "t%zu..t%zu", v[0], v[cnt - 1]);
            else
                sb_add(s, "t%zu, t%zu, ..., t%zu (step %lld)", v[0], v[1],
                       v[cnt - 1], d);
            return;
        }
    }
    for (size_t i = 0; i < cnt && i < 12; i++)
        sb_add(s, "%st%zu", i ? ", " : "", v[i]);
    if (cnt > 12)
        sb_add(s, ", ... (%zu more)", cnt - 12);
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* The sorted leaf set of reference r into out (capacity n); stack holds
 * n + nnodes entries. */
static size_t leaf_set(const fl_reveal_tree *t, size_t r, size_t *out,
                       size_t *stack)
{
    size_t cnt = 0, sp = 0;
    stack[sp++] = r;
    while (sp) {
        size_t x = stack[--sp];
        if (x < t->n) {
            out[cnt++] = x;
            continue;
        }
        for (size_t q = t->first[x - t->n]; q < t->first[x - t->n + 1]; q++)
            stack[sp++] = t->kids[q];
    }
    qsort(out, cnt, sizeof *out, cmp_size);
    return cnt;
}

typedef struct draw_st {
    const fl_reveal_tree *t;
    sbuf *s;
    size_t *tmp, *stack, *size;
    size_t lines, max_lines;
    int cut;
    char prefix[2 * 64 + 8];
} draw_st;

#define DRAW_DEPTH 60

/* A left-deep run of additions whose added operands all have the size of
 * the last one: ((o1 + o2) + o3) + ...  The operands in the order they
 * are added into out; their count (0 when fewer than 3). */
static size_t spine_ops(const draw_st *d, size_t r, size_t *out)
{
    const fl_reveal_tree *t = d->t;
    size_t cnt = 0, cur = r, s;
    if (r < t->n || t->first[r - t->n + 1] - t->first[r - t->n] != 2)
        return 0;
    s = d->size[t->kids[t->first[r - t->n] + 1]];
    while (cur >= t->n && t->first[cur - t->n + 1] - t->first[cur - t->n] == 2) {
        size_t a = t->kids[t->first[cur - t->n]], b = t->kids[t->first[cur - t->n] + 1];
        if (d->size[b] != s)
            break;
        out[cnt++] = b;
        cur = a;
        if (d->size[cur] == s) {
            out[cnt++] = cur;
            cur = (size_t)-1;
            break;
        }
    }
    if (cur != (size_t)-1)
        out[cnt++] = cur;
    for (size_t i = 0; i < cnt / 2; i++) {
        size_t x = out[i];
        out[i] = out[cnt - 1 - i];
        out[cnt - 1 - i] = x;
    }
    return cnt >= 3 ? cnt : 0;
}

static void draw(draw_st *d, size_t r, size_t depth, int last, int root)
{
    const fl_reveal_tree *t = d->t;
    size_t plen = 2 * depth, cnt;
    if (d->max_lines && d->lines >= d->max_lines) {
        d->cut = 1;
        return;
    }
    sb_add(d->s, "%.*s%s", (int)(plen >= 2 ? plen - 2 : 0), d->prefix,
           root ? "" : last ? "`-" : "|-");
    d->lines++;
    if (r < t->n) {
        sb_add(d->s, "t%zu\n", r);
        return;
    }
    {
        size_t j = r - t->n, ar = t->first[j + 1] - t->first[j];
        int all_leaves = 1;
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
            if (t->kids[q] >= t->n)
                all_leaves = 0;
        cnt = chain_leaves(t, r, d->tmp, t->n);
        if (cnt) {
            sb_add(d->s, "chain of %zu terms, added in this order: ", cnt);
            list_leaves(d->s, d->tmp, cnt);
            sb_add(d->s, "\n");
            return;
        }
        cnt = leaf_set(t, r, d->tmp, d->stack);
        if (all_leaves) {
            if (ar == 2)
                sb_add(d->s, "t%zu + t%zu\n", t->kids[t->first[j]],
                       t->kids[t->first[j] + 1]);
            else {
                sb_add(d->s, "fused addition of %zu terms: ", ar);
                list_leaves(d->s, d->tmp, cnt);
                sb_add(d->s, "\n");
            }
            return;
        }
        {
            size_t *ops = ar == 2 && depth < DRAW_DEPTH
                              ? malloc((cnt + 1) * sizeof *ops) : NULL;
            size_t nops = ops ? spine_ops(d, r, ops) : 0;
            int same = 1;
            for (size_t q = 1; q < nops; q++)
                same &= d->size[ops[q]] == d->size[ops[0]];
            if (ar > 2)
                sb_add(d->s, "fused addition of %zu operands (%zu terms: ", ar,
                       cnt);
            else if (nops && same)
                sb_add(d->s, "%zu operands of %zu terms added in order (%zu "
                       "terms: ", nops, d->size[ops[0]], cnt);
            else if (nops)
                sb_add(d->s, "%zu operands added in order (%zu terms: ", nops,
                       cnt);
            else
                sb_add(d->s, "+ (%zu terms: ", cnt);
            list_leaves(d->s, d->tmp, cnt);
            sb_add(d->s, ")\n");
            if (depth >= DRAW_DEPTH) {
                sb_add(d->s, "%.*s  ... (deeper levels not drawn)\n",
                       (int)plen, d->prefix);
                d->lines++;
                free(ops);
                return;
            }
            if (!root) {
                /* this level's column for the children below */
                d->prefix[plen - 2] = last ? ' ' : '|';
                d->prefix[plen - 1] = ' ';
            }
            if (nops) {
                for (size_t q = 0; q < nops; q++)
                    draw(d, ops[q], depth + 1, q + 1 == nops, 0);
            } else if (ar > 2) {
                /* the subtrees, then the term operands on one line */
                size_t nl = 0;
                for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
                    if (t->kids[q] >= t->n)
                        draw(d, t->kids[q], depth + 1, 0, 0);
                    else
                        d->tmp[nl++] = t->kids[q];
                if (nl) {
                    sb_add(d->s, "%.*s`-%zu term%s: ", (int)plen, d->prefix, nl,
                           nl == 1 ? "" : "s");
                    list_leaves(d->s, d->tmp, nl);
                    sb_add(d->s, "\n");
                    d->lines++;
                }
            } else {
                for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
                    draw(d, t->kids[q], depth + 1, q + 1 == t->first[j + 1], 0);
            }
            free(ops);
        }
    }
}

char *fl_reveal_tree_draw(const fl_reveal_tree *t, size_t max_lines)
{
    sbuf s = {NULL, 0, 0, 0};
    draw_st d;
    memset(&d, 0, sizeof d);
    d.t = t;
    d.s = &s;
    d.max_lines = max_lines;
    d.tmp = malloc((t->n + 1) * sizeof *d.tmp);
    d.stack = malloc((t->n + t->nnodes + 1) * sizeof *d.stack);
    {
        size_t *mn = NULL;
        if (d.tmp && d.stack && leaf_stats(t, &mn, &d.size) == 0)
            free(mn);
        else
            d.size = NULL;
    }
    if (d.tmp == NULL || d.stack == NULL || d.size == NULL) {
        free(d.tmp);
        free(d.stack);
        free(d.size);
        return NULL;
    }
    memset(d.prefix, ' ', sizeof d.prefix);
    if (t->nnodes == 0)
        sb_add(&s, "t0\n");
    else
        draw(&d, t->n + t->nnodes - 1, 0, 1, 1);
    if (d.cut)
        sb_add(&s, "... (%zu lines shown; the tree goes on)\n", d.max_lines);
    free(d.tmp);
    free(d.stack);
    free(d.size);
    if (s.oom) {
        free(s.p);
        return NULL;
    }
    return s.p;
}

char *fl_reveal_tree_expr(const fl_reveal_tree *t)
{
    sbuf s = {NULL, 0, 0, 0};
    struct item { size_t ref; int state; } *stk;
    size_t sp = 0;
    if (rv_tree_max_arity(t) > 2)
        return NULL;
    if (t->nnodes == 0) {
        sb_add(&s, "0");
        return s.oom ? NULL : s.p;
    }
    stk = malloc((t->nnodes + 2) * sizeof *stk);
    if (stk == NULL)
        return NULL;
    stk[sp].ref = t->n + t->nnodes - 1;
    stk[sp].state = 0;
    sp++;
    while (sp && !s.oom) {
        struct item *it = &stk[sp - 1];
        size_t r = it->ref;
        int root = sp == 1;
        if (r < t->n) {
            sb_add(&s, "%zu", r);
            sp--;
            continue;
        }
        {
            size_t j = r - t->n;
            if (it->state == 0) {
                if (!root)
                    sb_add(&s, "(");
                it->state = 1;
                stk[sp].ref = t->kids[t->first[j]];
                stk[sp].state = 0;
                sp++;
            } else if (it->state == 1) {
                sb_add(&s, "+");
                it->state = 2;
                stk[sp].ref = t->kids[t->first[j] + 1];
                stk[sp].state = 0;
                sp++;
            } else {
                if (!root)
                    sb_add(&s, ")");
                sp--;
            }
        }
    }
    free(stk);
    if (s.oom) {
        free(s.p);
        return NULL;
    }
    return s.p;
}

/* ------------------------------------------------------------------------
 * Where two terms meet: the size of their lowest common ancestor.
 * ---------------------------------------------------------------------- */
int rv_tree_lca_sizes(const fl_reveal_tree *t, const size_t *qi,
                      const size_t *qj, size_t nq, uint32_t *l)
{
    size_t tot = t->n + t->nnodes;
    size_t *par = malloc(tot * sizeof *par), *dep = malloc(tot * sizeof *dep);
    size_t *size = malloc(tot * sizeof *size);
    if (par == NULL || dep == NULL || size == NULL) {
        free(par);
        free(dep);
        free(size);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        size[i] = 1;
    par[tot - 1] = (size_t)-1;
    for (size_t j = 0; j < t->nnodes; j++) {
        size[t->n + j] = 0;
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++) {
            par[t->kids[q]] = t->n + j;
            size[t->n + j] += size[t->kids[q]];
        }
    }
    dep[tot - 1] = 0;
    for (size_t j = t->nnodes; j-- > 0;)
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++)
            dep[t->kids[q]] = dep[t->n + j] + 1;
    for (size_t k = 0; k < nq; k++) {
        size_t i = qi[k], j = qj[k];
        if (i >= t->n || j >= t->n || i == j) {
            l[k] = 0;
            continue;
        }
        while (dep[i] > dep[j])
            i = par[i];
        while (dep[j] > dep[i])
            j = par[j];
        while (i != j) {
            i = par[i];
            j = par[j];
        }
        l[k] = (uint32_t)size[i];
    }
    free(par);
    free(dep);
    free(size);
    return 0;
}
