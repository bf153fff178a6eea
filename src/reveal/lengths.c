/*
 * lengths.c — models that travel: does the order found at n (gemm: k)
 * hold at other lengths?
 *
 * A revealed tree fixes one length; a named order (pairwise:B, lanes,
 * cascade:A, pairswap:B, ...) is a family that computes every length.
 * The candidates are every family whose tree at n has the revealed shape
 * and that, in the model found, replays every validation case at n.  At
 * each other length L (opts.lengths, else n + 1 and a longer one) one
 * call carries the probe scale's calibration rows and pair probes between
 * the first, last and some random terms (their counts give where two
 * terms meet in the kernel's tree at L), and one call fresh inputs of
 * length L: a candidate survives when its tree at L meets every pair
 * where the kernel's does and its model replays the inputs bit for bit.
 * The first survivor (by the preference of rv_family_orders) becomes the
 * order; when none survives, the order is the tree at n and the model
 * file says it covers n alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reveal_internal.h"

enum { MAXFAM = 48, MAXLEN = 8 };

static uint64_t lmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The pairs probed at length L: every pair of a set of terms (the first
 * 8, the last 24, others at random), as many as nmax allows. */
static size_t pick_pairs(const rv *r, size_t L, size_t nmax, size_t *qi,
                         size_t *qj)
{
    size_t set[64], ns = 0, nq = 0, want;
    uint64_t z = r->o->seed ^ (0x5A17ull * L);
    unsigned char *in = calloc(L, 1);
    if (in == NULL)
        return 0;
    /* ns terms give ns (ns-1) / 2 pairs */
    want = 2;
    while (want < 64 && want < L && (want + 1) * want / 2 <= nmax)
        want++;
    for (size_t i = 0; i < 8 && ns < want && i < L; i++)
        if (!in[i]) {
            in[i] = 1;
            set[ns++] = i;
        }
    for (size_t i = 0; i < 24 && ns < want && i < L; i++)
        if (!in[L - 1 - i]) {
            in[L - 1 - i] = 1;
            set[ns++] = L - 1 - i;
        }
    while (ns < want) {
        size_t i = (size_t)(lmix(&z) % L);
        if (!in[i]) {
            in[i] = 1;
            set[ns++] = i;
        }
    }
    free(in);
    for (size_t a = 0; a < ns; a++)
        for (size_t b = a + 1; b < ns && nq < nmax; b++) {
            qi[nq] = set[a] < set[b] ? set[a] : set[b];
            qj[nq] = set[a] < set[b] ? set[b] : set[a];
            nq++;
        }
    return nq;
}

/* Probes one call holds at the current r->T. */
static size_t pair_capacity(const rv *r)
{
    size_t per;
    if (r->o->op == FL_REF_OP_GEMM) {
        if (!r->bt_auto && !r->o->batch)
            return r->o->m * r->o->n;   /* one matrix of M x N pairs */
        per = rv_gemm_per_call(r) * r->o->m;
    } else {
        per = rv_rows_per_call(r);
    }
    return per;
}

/* The model with order spec and epilogue epi, read back from its line. */
static int cand_model(const fl_ref_model *m, const char *spec, const char *epi,
                      fl_ref_model *out)
{
    char err[256], *line;
    fl_ref_model x;
    int rc;
    if (fl_ref_model_copy(&x, m) != 0)
        return -1;
    if (fl_ref_model_set(&x, "order", spec, NULL, err, sizeof err) != 0 ||
        fl_ref_model_set(&x, "epilogue", epi, NULL, err, sizeof err) != 0) {
        fl_ref_model_free(&x);
        return -1;
    }
    line = fl_ref_model_string(&x);
    fl_ref_model_free(&x);
    if (line == NULL)
        return -1;
    fl_ref_model_init(out);
    rc = fl_ref_model_parse(out, line, err, sizeof err);
    free(line);
    if (rc != 0)
        fl_ref_model_free(out);
    return rc;
}

static const char *order_of(const fl_ref_model *m, char *buf, size_t len)
{
    char *line = fl_ref_model_string(m), *o, *e;
    buf[0] = '\0';
    if (line == NULL)
        return buf;
    o = strstr(line, "order=");
    if (o) {
        e = strchr(o, ' ');
        if (e)
            *e = '\0';
        snprintf(buf, len, "%s", o + 6);
    }
    free(line);
    return buf;
}

/* One length: the pair probes and fresh inputs of length L, the
 * candidates that do not fit them marked dead.  0, or -1 (failure
 * recorded). */
static int check_length(rv *r, const rv_scale *sc, size_t L, size_t T0,
                        fl_ref_model *cand, int *alive, int *ok, size_t ncand,
                        size_t **qip, size_t **qjp, uint32_t **lkp,
                        uint32_t **lmp)
{
    fl_reveal_result *res = r->res;
    size_t cap, nq, cases = 0, calls0 = r->res->calls, nalive = 0;
    int holds = 0, rc = 0;
    char why[1024];
    fl_ref_model *live;
    size_t *map, *qi, *qj;
    uint32_t *lk, *lm;
    r->T = L;
    cap = pair_capacity(r);
    cap = cap > 16 ? cap - 8 : cap;   /* room for the calibration rows */
    if (cap > 2016)
        cap = 2016;
    free(*qip);
    free(*qjp);
    free(*lkp);
    free(*lmp);
    *qip = qi = malloc(cap * sizeof *qi);
    *qjp = qj = malloc(cap * sizeof *qj);
    *lkp = lk = malloc(cap * sizeof *lk);
    *lmp = lm = malloc(cap * sizeof *lm);
    if (!qi || !qj || !lk || !lm) {
        r->T = T0;
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    }
    nq = pick_pairs(r, L, cap, qi, qj);
    rc = rv_fprev_at(r, sc, qi, qj, nq, lk, &holds, why, sizeof why);
    if (rc != 0) {
        r->T = T0;
        return -1;
    }
    if (!holds) {
        char *nl = strchr(why, '\n');
        rv_log(r, "lengths: %s = %zu: the probe scale of %zu does not hold "
               "(%s): not checked", r->o->op == FL_REF_OP_GEMM ? "k" : "n",
               L, T0, nl ? nl + 3 : why);
        r->T = T0;
        return 0;
    }
    for (size_t c = 0; c < ncand; c++) {
        fl_reveal_tree x;
        int hz;
        if (!alive[c])
            continue;
        if (rv_model_tree(&cand[c], L, &x, &hz) != 0) {
            alive[c] = 0;
            continue;
        }
        if (rv_tree_lca_sizes(&x, qi, qj, nq, lm) != 0) {
            fl_reveal_tree_free(&x);
            r->T = T0;
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        }
        fl_reveal_tree_free(&x);
        for (size_t k = 0; k < nq && alive[c]; k++)
            if (lm[k] != lk[k])
                alive[c] = 0;
    }
    /* values, for the candidates left */
    live = calloc(ncand, sizeof *live);
    map = calloc(ncand, sizeof *map);
    if (live == NULL || map == NULL) {
        free(live);
        free(map);
        r->T = T0;
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    }
    for (size_t c = 0; c < ncand; c++)
        if (alive[c]) {
            live[nalive] = cand[c];   /* shallow: not freed here */
            map[nalive++] = c;
        }
    if (nalive > 0) {
        rc = rv_valid_check_at(r, live, nalive, ok, &cases);
        for (size_t k = 0; k < nalive && rc == 0; k++)
            if (!ok[k])
                alive[map[k]] = 0;
    }
    free(live);
    free(map);
    r->T = T0;
    if (rc != 0)
        return -1;
    {
        size_t still = 0;
        for (size_t c = 0; c < ncand; c++)
            still += (size_t)alive[c];
        if (res->ntree_lengths < sizeof res->tree_lengths /
                                     sizeof res->tree_lengths[0])
            res->tree_lengths[res->ntree_lengths++] = L;
        rv_log(r, "lengths: %s = %zu: %zu pair probes and %zu fresh cases "
               "(%zu calls): %zu of %zu candidate orders fit",
               r->o->op == FL_REF_OP_GEMM ? "k" : "n", L, nq, cases,
               r->res->calls - calls0, still, ncand);
    }
    return 0;
}

/* A length (not T0) where the first live candidate's tree differs from
 * another live one's; 0 when none of the lengths tried does. */
static size_t telling_length(rv *r, fl_ref_model *cand, const int *alive,
                             size_t ncand, size_t T0)
{
    size_t first = (size_t)-1, tries[96], nt = 0;
    for (size_t c = 0; c < ncand && first == (size_t)-1; c++)
        if (alive[c])
            first = c;
    for (size_t d = 2; d <= 9; d++)
        tries[nt++] = T0 + d;
    for (size_t e = 3; e <= 13; e++) {
        size_t p = (size_t)1 << e;
        static const int off[] = {0, 1, 3, 5, 8, -1, -3};
        for (int q = 0; q < 7; q++) {
            long long L = (long long)p + off[q] + (long long)(p / 2) * (q >= 5);
            if (L >= 3 && (size_t)L != T0 && nt < 96)
                tries[nt++] = (size_t)L;
        }
    }
    (void)r;
    for (size_t t = 0; t < nt; t++) {
        size_t L = tries[t];
        fl_reveal_tree x, y;
        int hz;
        if (rv_model_tree(&cand[first], L, &x, &hz) != 0)
            continue;
        for (size_t c = first + 1; c < ncand; c++) {
            int same;
            if (!alive[c] || rv_model_tree(&cand[c], L, &y, &hz) != 0)
                continue;
            same = rv_tree_same_shape(&x, &y);
            fl_reveal_tree_free(&y);
            if (!same) {
                fl_reveal_tree_free(&x);
                return L;
            }
        }
        fl_reveal_tree_free(&x);
    }
    return 0;
}

int rv_lengths(rv *r, const rv_valid *v, const fl_reveal_tree *t,
               const rv_scale *sc, fl_ref_model *model)
{
    fl_reveal_result *res = r->res;
    char *fam[MAXFAM];
    size_t nfam, ncand = 0, lens[MAXLEN], nlen = 0, T0 = r->T;
    fl_ref_model *cand = NULL;
    int *alive = NULL, *ok = NULL, rc = 0, was_family;
    size_t *qi = NULL, *qj = NULL;
    uint32_t *lk = NULL, *lm = NULL;
    char ob[96];

    res->tree_lengths[0] = T0;
    res->ntree_lengths = 1;
    res->travel_note[0] = '\0';
    was_family = model->order != FL_REF_TREE;
    res->order_travels = was_family;
    if (model->order == FL_REF_EXACT || model->tc.on || t == NULL) {
        snprintf(res->travel_note, sizeof res->travel_note, "%s",
                 model->order == FL_REF_EXACT ? "order=exact: no tree"
                                              : "a block-FMA chain");
        return 0;
    }
    if (r->o->nlengths) {
        for (size_t k = 0; k < r->o->nlengths && nlen < MAXLEN; k++)
            if (r->o->lengths[k] != T0 && r->o->lengths[k] >= 3)
                lens[nlen++] = r->o->lengths[k];
    } else if (r->o->lengths_auto) {
        lens[nlen++] = T0 + 1;
        lens[nlen++] = T0 < 512 ? 1031 : 2 * T0 + 5;
    }
    nfam = rv_family_orders(t, fam, MAXFAM);
    if (nfam == 0) {
        snprintf(res->travel_note, sizeof res->travel_note,
                 "no named order of fplab's has the tree at %s = %zu",
                 r->o->op == FL_REF_OP_GEMM ? "k" : "n", T0);
        rv_log(r, "lengths: %s: the model covers %s = %zu only",
               res->travel_note, r->o->op == FL_REF_OP_GEMM ? "k" : "n", T0);
        return 0;
    }
    if (nlen == 0) {
        if (!was_family)
            snprintf(res->travel_note, sizeof res->travel_note,
                     "the tree at %zu; no other length was checked", T0);
        for (size_t k = 0; k < nfam; k++)
            free(fam[k]);
        return 0;
    }
    /* the candidates: each family, with the model's epilogue and the
     * other start (last/init), that replays every case at T0 */
    cand = calloc(2 * nfam, sizeof *cand);
    alive = calloc(2 * nfam, sizeof *alive);
    ok = calloc(2 * nfam, sizeof *ok);
    if (!cand || !alive || !ok) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t f = 0; f < nfam; f++)
        for (int e = 0; e < 2; e++) {
            static const char *const epis[] = {"last", "init"};
            const char *epi = e == 0 ? epis[model->epilogue == FL_REF_EPI_INIT]
                                     : epis[model->epilogue != FL_REF_EPI_INIT];
            size_t agreed = 0, done = 0, sample = v->cases < 20000 ? v->cases
                                                                   : 20000;
            fl_ref_model x;
            if (cand_model(model, fam[f], epi, &x) != 0)
                continue;
            /* a sample here; the one chosen replays every case below */
            if (rv_valid_replay(r, v, &x, sample, &agreed, &done, NULL, NULL) != 0 ||
                agreed != done) {
                fl_ref_model_free(&x);
                continue;
            }
            cand[ncand] = x;
            alive[ncand] = 1;
            ncand++;
            break;   /* one start per family: the first that replays */
        }
    if (ncand == 0) {
        snprintf(res->travel_note, sizeof res->travel_note,
                 "the named orders with the tree's shape do not replay every "
                 "case at %zu", T0);
        rv_log(r, "lengths: %s", res->travel_note);
        goto out;
    }
    /* each length: pairs and values; then, while two candidates are
     * left, a length where their trees differ */
    for (size_t li = 0; rc == 0; li++) {
        size_t L;
        if (li < nlen) {
            L = lens[li];
        } else {
            size_t nal = 0;
            for (size_t c = 0; c < ncand; c++)
                nal += (size_t)alive[c];
            if (nal < 2 || li >= nlen + 4 || r->o->nlengths)
                break;
            L = telling_length(r, cand, alive, ncand, T0);
            if (L == 0)
                break;
            rv_log(r, "lengths: %zu candidate orders fit so far; %s = %zu "
                   "tells them apart", nal,
                   r->o->op == FL_REF_OP_GEMM ? "k" : "n", L);
        }
        rc = check_length(r, sc, L, T0, cand, alive, ok, ncand, &qi, &qj, &lk,
                          &lm);
    }
    r->T = T0;
    if (rc != 0)
        goto out;
    {
        size_t first = (size_t)-1;
        for (size_t c = 0; c < ncand && first == (size_t)-1; c++) {
            size_t agreed = 0, done = 0;
            if (!alive[c])
                continue;
            if (rv_valid_replay(r, v, &cand[c], 0, &agreed, &done, NULL, NULL) ==
                    0 && agreed == done)
                first = c;
            else
                alive[c] = 0;
        }
        /* the other lengths in increasing order */
        for (size_t x = 2; x < res->ntree_lengths; x++)
            for (size_t y = x; y > 1 && res->tree_lengths[y - 1] >
                                        res->tree_lengths[y]; y--) {
                size_t tmp = res->tree_lengths[y];
                res->tree_lengths[y] = res->tree_lengths[y - 1];
                res->tree_lengths[y - 1] = tmp;
            }
        if (first != (size_t)-1) {
            char lt[160];
            size_t w = 0;
            const char *nk = r->o->op == FL_REF_OP_GEMM ? "k" : "n";
            lt[0] = '\0';
            for (size_t k = 1; k < res->ntree_lengths && w < sizeof lt; k++)
                w += (size_t)snprintf(lt + w, sizeof lt - w, "%s%zu",
                                      k > 1 ? ", " : "", res->tree_lengths[k]);
            fl_ref_model_free(model);
            fl_ref_model_copy(model, &cand[first]);
            res->order_travels = 1;
            if (res->ntree_lengths > 1)
                rv_log(r, "lengths: order=%s has the tree revealed at %s = %zu "
                       "and meets every pair probe and fresh case at %s = %s: "
                       "the model's order is this family (fplab ref computes "
                       "it for every %s; lengths not named are not checked)",
                       order_of(model, ob, sizeof ob), nk, T0, nk, lt, nk);
        } else {
            /* no family holds everywhere: the tree at T0 */
            char *e = fl_reveal_tree_expr(t), *spec;
            fl_ref_model x;
            int done = 0;
            res->order_travels = 0;
            snprintf(res->travel_note, sizeof res->travel_note,
                     "at the other lengths no named order with this tree "
                     "fits the kernel's trees");
            if (e && (spec = malloc(strlen(e) + 6)) != NULL) {
                static const char *const epis[] = {"last", "init"};
                sprintf(spec, "tree:%s", e);
                for (int q = 0; q < 2 && !done; q++) {
                    size_t agreed = 0, dn = 0;
                    if (cand_model(model, spec, epis[q], &x) != 0)
                        continue;
                    if (rv_valid_replay(r, v, &x, 0, &agreed, &dn, NULL, NULL) == 0 &&
                        agreed == dn) {
                        fl_ref_model_free(model);
                        *model = x;
                        done = 1;
                    } else {
                        fl_ref_model_free(&x);
                    }
                }
                free(spec);
            }
            free(e);
            rv_log(r, "lengths: %s: the model covers %s = %zu only%s",
                   res->travel_note, r->o->op == FL_REF_OP_GEMM ? "k" : "n", T0,
                   done ? " (order=tree)" : was_family
                       ? " (its named order replays there; the tree does not)"
                       : "");
        }
    }
out:
    r->T = T0;
    for (size_t k = 0; k < nfam; k++)
        free(fam[k]);
    for (size_t c = 0; c < ncand; c++)
        fl_ref_model_free(&cand[c]);
    free(cand);
    free(alive);
    free(ok);
    free(qi);
    free(qj);
    free(lk);
    free(lm);
    return rc;
}
