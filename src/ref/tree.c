/*
 * tree.c — explicit summation trees (order=tree): the expression parser
 * and the canonical printer.
 *
 * Grammar:  expr := operand ('+' operand)*      ("a+b+c" is "(a+b)+c")
 *           operand := INDEX | '(' expr ')'
 * Blanks (space, tab, newline) may appear between tokens.  Every index
 * 0..n-1 must appear exactly once, n being the number of leaves.
 *
 * Both directions are iterative (an explicit stack), so a sequential tree
 * of a million terms, nested a million deep, costs no C stack.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

#define NONE ((int64_t)-1)

typedef struct frame {
    int64_t acc;      /* the group's value so far, or NONE */
    size_t open_pos;  /* position of its '(' */
} frame;

/* 1-based line and column of byte pos in text. */
static void line_col(const char *text, size_t pos, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < pos && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static void where(const char *text, size_t pos, char *buf, size_t len)
{
    size_t l, c;
    line_col(text, pos, &l, &c);
    if (strchr(text, '\n') != NULL)
        snprintf(buf, len, "line %zu column %zu", l, c);
    else
        snprintf(buf, len, "position %zu", pos + 1);
}

/* Append a node (left, right) and return its reference (n + index); the
 * references are resolved after parsing, when n is known, so nodes carry
 * leaf indices tagged by the sign bit until then. */
static int push_node(int64_t **kid, size_t *nn, size_t *cap, int64_t l,
                     int64_t r, int64_t *ref)
{
    if (*nn == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        int64_t *k = realloc(*kid, 2 * nc * sizeof **kid);
        if (k == NULL)
            return -1;
        *kid = k;
        *cap = nc;
    }
    (*kid)[2 * *nn] = l;
    (*kid)[2 * *nn + 1] = r;
    *ref = (int64_t)(*nn) | ((int64_t)1 << 62);   /* tag: a node */
    (*nn)++;
    return 0;
}

#define IS_NODE_TAG(r) (((r) >> 62) & 1)

int ref_tree_parse(fl_ref_tree **out, const char *text, char *err,
                   size_t errlen)
{
    frame *st = NULL;
    size_t depth = 0, stcap = 0;
    int64_t *kid = NULL;
    size_t nn = 0, ncap = 0, nleaves = 0;
    size_t *leafpos = NULL, leafcap = 0;   /* position of each leaf token */
    int64_t *leafidx = NULL;               /* index of each leaf token */
    int want_operand = 1;
    size_t i = 0, len = strlen(text);
    char w[64];
    fl_ref_tree *t = NULL;
    unsigned char *seen = NULL;

    *out = NULL;
    stcap = 16;
    st = malloc(stcap * sizeof *st);
    if (st == NULL)
        goto oom;
    st[0].acc = NONE;
    st[0].open_pos = 0;
    depth = 1;

    while (i < len) {
        unsigned char ch = (unsigned char)text[i];
        int64_t v = NONE;
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            i++;
            continue;
        }
        if (want_operand) {
            if (ch == '(') {
                if (depth == stcap) {
                    frame *ns = realloc(st, 2 * stcap * sizeof *st);
                    if (ns == NULL)
                        goto oom;
                    st = ns;
                    stcap *= 2;
                }
                st[depth].acc = NONE;
                st[depth].open_pos = i;
                depth++;
                i++;
                continue;
            }
            if (isdigit(ch)) {
                size_t start = i;
                uint64_t idx = 0;
                while (i < len && isdigit((unsigned char)text[i])) {
                    if (idx > (UINT64_C(1) << 40)) {
                        where(text, start, w, sizeof w);
                        ref_set_err(err, errlen,
                                    "index at %s is too large", w);
                        goto fail;
                    }
                    idx = idx * 10 + (uint64_t)(text[i] - '0');
                    i++;
                }
                if (nleaves == leafcap) {
                    size_t nc = leafcap ? 2 * leafcap : 64;
                    size_t *np = realloc(leafpos, nc * sizeof *np);
                    int64_t *ni;
                    if (np == NULL)
                        goto oom;
                    leafpos = np;
                    ni = realloc(leafidx, nc * sizeof *ni);
                    if (ni == NULL)
                        goto oom;
                    leafidx = ni;
                    leafcap = nc;
                }
                leafpos[nleaves] = start;
                leafidx[nleaves] = (int64_t)idx;
                nleaves++;
                v = (int64_t)idx;
                /* fall through to combine v */
            } else {
                where(text, i, w, sizeof w);
                if (ch == ')' )
                    ref_set_err(err, errlen,
                                "expected a term index or '(' at %s, found ')'",
                                w);
                else if (isprint(ch))
                    ref_set_err(err, errlen,
                                "expected a term index or '(' at %s, found '%c'",
                                w, ch);
                else
                    ref_set_err(err, errlen,
                                "expected a term index or '(' at %s, found byte 0x%02x",
                                w, ch);
                goto fail;
            }
        } else {
            if (ch == '+') {
                want_operand = 1;
                i++;
                continue;
            }
            if (ch == ')') {
                if (depth == 1) {
                    where(text, i, w, sizeof w);
                    ref_set_err(err, errlen, "unbalanced ')' at %s", w);
                    goto fail;
                }
                depth--;
                v = st[depth].acc;
                i++;
            } else {
                where(text, i, w, sizeof w);
                if (isprint(ch))
                    ref_set_err(err, errlen,
                                "expected '+' or ')' at %s, found '%c'", w, ch);
                else
                    ref_set_err(err, errlen,
                                "expected '+' or ')' at %s, found byte 0x%02x",
                                w, ch);
                goto fail;
            }
        }
        /* combine operand v into the current group */
        if (st[depth - 1].acc == NONE) {
            st[depth - 1].acc = v;
        } else {
            int64_t ref;
            if (push_node(&kid, &nn, &ncap, st[depth - 1].acc, v, &ref) != 0)
                goto oom;
            st[depth - 1].acc = ref;
        }
        want_operand = 0;
    }
    if (depth > 1) {
        where(text, st[depth - 1].open_pos, w, sizeof w);
        ref_set_err(err, errlen, "'(' at %s is never closed", w);
        goto fail;
    }
    if (nleaves == 0) {
        ref_set_err(err, errlen, "empty tree (no term index)");
        goto fail;
    }
    if (want_operand) {
        where(text, len, w, sizeof w);
        ref_set_err(err, errlen, "the expression ends after '+' (at %s)", w);
        goto fail;
    }
    /* every index 0..n-1 exactly once */
    seen = calloc(nleaves, 1);
    if (seen == NULL)
        goto oom;
    for (size_t k = 0; k < nleaves; k++) {
        int64_t idx = leafidx[k];
        if (idx < 0 || (uint64_t)idx >= nleaves) {
            where(text, leafpos[k], w, sizeof w);
            ref_set_err(err, errlen,
                        "index %lld at %s is out of range: the tree has %zu "
                        "leaves, so indices run 0..%zu",
                        (long long)idx, w, nleaves, nleaves - 1);
            goto fail;
        }
        if (seen[idx]) {
            char w0[64];
            size_t first = 0;
            for (size_t q = 0; q < k; q++)
                if (leafidx[q] == idx) {
                    first = leafpos[q];
                    break;
                }
            where(text, first, w0, sizeof w0);
            where(text, leafpos[k], w, sizeof w);
            ref_set_err(err, errlen, "index %lld appears twice (at %s and %s)",
                        (long long)idx, w0, w);
            goto fail;
        }
        seen[idx] = 1;
    }
    /* all n indices distinct and < n: none is missing */

    t = malloc(sizeof *t);
    if (t == NULL)
        goto oom;
    t->n = nleaves;
    t->kid = kid;
    kid = NULL;
    for (size_t k = 0; k < 2 * nn; k++) {
        int64_t r = t->kid[k];
        if (IS_NODE_TAG(r))
            t->kid[k] = (int64_t)nleaves + (r & (((int64_t)1 << 62) - 1));
    }
    free(st);
    free(leafpos);
    free(leafidx);
    free(seen);
    *out = t;
    return 0;
oom:
    ref_set_err(err, errlen, "out of memory reading the tree");
fail:
    free(st);
    free(kid);
    free(leafpos);
    free(leafidx);
    free(seen);
    return -1;
}

void ref_tree_free(fl_ref_tree *t)
{
    if (t) {
        free(t->kid);
        free(t);
    }
}

fl_ref_tree *ref_tree_copy(const fl_ref_tree *t)
{
    fl_ref_tree *c = malloc(sizeof *c);
    size_t nn = t->n - 1;
    if (c == NULL)
        return NULL;
    c->n = t->n;
    c->kid = malloc((2 * nn + 1) * sizeof *c->kid);
    if (c->kid == NULL) {
        free(c);
        return NULL;
    }
    memcpy(c->kid, t->kid, 2 * nn * sizeof *c->kid);
    return c;
}

/* A growing string. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *s, const char *str, size_t n)
{
    if (s->oom)
        return;
    if (s->len + n + 1 > s->cap) {
        size_t nc = s->cap ? s->cap : 256;
        char *np;
        while (nc < s->len + n + 1)
            nc *= 2;
        np = realloc(s->p, nc);
        if (np == NULL) {
            s->oom = 1;
            return;
        }
        s->p = np;
        s->cap = nc;
    }
    memcpy(s->p + s->len, str, n);
    s->len += n;
    s->p[s->len] = '\0';
}

/* Canonical text: every inner node but the root in parentheses, no
 * blanks: ((0+1)+(2+3))+4.  malloc'd, NULL when out of memory. */
char *ref_tree_print(const fl_ref_tree *t)
{
    sbuf s = {NULL, 0, 0, 0};
    struct item { int64_t ref; int state; } *stk;
    size_t sp = 0, cap = 64;
    const int64_t n = (int64_t)t->n;
    char num[32];

    stk = malloc(cap * sizeof *stk);
    if (stk == NULL)
        return NULL;
    stk[sp].ref = n == 1 ? 0 : n + (n - 2);   /* the root: last node */
    stk[sp].state = 0;
    sp++;
    sb_put(&s, "", 0);
    while (sp > 0 && !s.oom) {
        struct item *it = &stk[sp - 1];
        int64_t r = it->ref;
        int root = sp == 1;
        if (r < n) {
            int k = snprintf(num, sizeof num, "%lld", (long long)r);
            sb_put(&s, num, (size_t)k);
            sp--;
            continue;
        }
        if (it->state < 2) {
            /* state 0: open, go down the left operand; 1: the plus, go
             * down the right one */
            if (it->state == 0 && !root)
                sb_put(&s, "(", 1);
            if (it->state == 1)
                sb_put(&s, "+", 1);
            if (sp == cap) {
                struct item *ns = realloc(stk, 2 * cap * sizeof *stk);
                if (ns == NULL) {
                    s.oom = 1;
                    break;
                }
                stk = ns;
                cap *= 2;
                it = &stk[sp - 1];
            }
            stk[sp].ref = t->kid[2 * (r - n) + it->state];
            stk[sp].state = 0;
            sp++;
            it->state++;
        } else {
            if (!root)
                sb_put(&s, ")", 1);
            sp--;
        }
    }
    free(stk);
    if (s.oom) {
        free(s.p);
        return NULL;
    }
    return s.p;
}
