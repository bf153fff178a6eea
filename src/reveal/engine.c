/*
 * engine.c — fl_reveal: the steps in order (see fplab/reveal.h).
 *
 *   validation inputs through the kernel (first chunk twice: determinism;
 *   a GEMM called 2-D tries one batched call) -> the tree (FPRev; batched
 *   GEMM calls are checked by one 2-D call, and when they sum otherwise
 *   everything starts again 2-D) -> the accumulator probes and the model
 *   search -> the model, read back from its own canonical line, replayed
 *   on every validation case (when it does not replay them all, the
 *   alternatives the search kept are replayed too and the closest is
 *   reported) -> the order at other lengths (lengths.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reveal_internal.h"

void fl_reveal_opts_init(fl_reveal_opts *o)
{
    memset(o, 0, sizeof *o);
    o->op = FL_REF_OP_SUM;
    o->in = fl_binary32;
    o->seed = 1;
    o->validate = 100000;
    o->call_elems = (size_t)1 << 24;
    o->batch_trial = 1;
    o->validate_calls = 20;
    o->lengths_auto = 1;
}

void fl_reveal_result_free(fl_reveal_result *res)
{
    fl_ref_model_free(&res->model);
    fl_reveal_tree_free(&res->tree);
    free(res->counterexample);
    res->counterexample = NULL;
    res->have_model = res->have_tree = 0;
}

static const char *op_name(fl_ref_op op)
{
    return op == FL_REF_OP_SUM ? "sum" : op == FL_REF_OP_DOT ? "dot" : "gemm";
}

static int check_opts(rv *r)
{
    const fl_reveal_opts *o = r->o;
    char f[64];
    if (o->op != FL_REF_OP_SUM && o->op != FL_REF_OP_DOT &&
        o->op != FL_REF_OP_GEMM)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "op must be sum, dot or gemm");
    if (r->T < 3)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS,
                       "%s needs at least 3 terms per output element (%s = %zu): "
                       "with fewer there is no order to reveal",
                       op_name(o->op), o->op == FL_REF_OP_GEMM ? "k" : "n", r->T);
    if (r->T > ((size_t)1 << 30))
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "%zu terms per element: at most "
                       "2^30", r->T);
    if (o->op == FL_REF_OP_GEMM && (o->m == 0 || o->n == 0))
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "gemm needs m >= 1 and n >= 1");
    if (o->op == FL_REF_OP_GEMM && o->rows)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "rows applies to sum and dot; "
                       "gemm's rows are m");
    if (o->rows && o->batch == 0 && o->rows * r->T > ((size_t)1 << 31))
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "rows x n is too large");
    if (o->validate == 0)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "validate must be at least 1");
    if (o->call_elems < r->T)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS,
                       "call_elems (%zu) holds less than one row of %zu terms",
                       o->call_elems, r->T);
    fl_format_spec(&o->in, f, sizeof f);
    if (o->in.nan_style != FL_NANSTYLE_IEEE || !o->in.has_inf ||
        !o->in.is_signed || o->in.prec < 3)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS,
                       "input format %s: reveal takes IEEE-style formats with "
                       "infinities, NaN and at least 3 bits of precision "
                       "(binary16, bfloat16, binary32, binary64, ...)", f);
    return 0;
}

/* Replay a model on the validation cases (all, or the first max). */
static int replay(rv *r, const rv_valid *v, const fl_ref_model *m, size_t max,
                  size_t *agreed, size_t *done, size_t *nan_only, char **cx)
{
    if (rv_valid_replay(r, v, m, max, agreed, done, nan_only, cx) != 0)
        return rv_fail(r, FL_REVEAL_MISMATCH, "%s", r->err);
    return 0;
}

/* The model read back from its canonical line (what --model-out holds). */
static int reparse(rv *r, const fl_ref_model *m, fl_ref_model *out)
{
    char *line = fl_ref_model_string(m), err[512];
    fl_ref_model_init(out);
    if (line == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (fl_ref_model_parse(out, line, err, sizeof err) != 0) {
        free(line);
        return rv_fail(r, FL_REVEAL_MISMATCH,
                       "the model's canonical line does not read back: %s", err);
    }
    {
        char *again = fl_ref_model_string(out);
        int same = again && !strcmp(again, line);
        free(again);
        free(line);
        if (!same)
            return rv_fail(r, FL_REVEAL_MISMATCH,
                           "the model's canonical line does not round-trip");
    }
    return 0;
}

/* order=exact with each output rounding: FOUND when one replays every
 * case (res->status and res->model set), else the status is left as it
 * was.  0 found, 1 not. */
static int try_exact(rv *r, const rv_valid *v)
{
    static const char *const rms[] = {"rne", "rtz", "rna", "rdn", "rup", "rto"};
    fl_reveal_result *res = r->res;
    char msg[sizeof res->message];
    fl_reveal_status st = res->status;
    memcpy(msg, res->message, sizeof msg);
    for (int q = 0; q < 12; q++) {
        fl_ref_model m;
        char err[256], *line;
        size_t ok = 0, dn = 0, sample = v->cases < 20000 ? v->cases : 20000;
        fl_ref_model_init(&m);
        m.in = r->in;
        m.in_set = 1;
        m.out = r->out;
        m.out_set = 1;
        if (fl_ref_model_set(&m, "order", "exact", NULL, err, sizeof err) != 0 ||
            fl_ref_model_set(&m, "out-rm", rms[q % 6], NULL, err, sizeof err) != 0 ||
            fl_ref_model_set(&m, "epilogue", q < 6 ? "last" : "init", NULL, err,
                             sizeof err) != 0 ||
            fl_ref_model_check(&m, r->o->op, r->T, err, sizeof err) != 0) {
            fl_ref_model_free(&m);
            continue;
        }
        if (rv_valid_replay(r, v, &m, sample, &ok, &dn, NULL, NULL) != 0 || ok != dn) {
            fl_ref_model_free(&m);
            continue;
        }
        if (rv_valid_replay(r, v, &m, 0, &ok, &dn, NULL, NULL) != 0 || ok != dn) {
            fl_ref_model_free(&m);
            continue;
        }
        line = fl_ref_model_string(&m);
        rv_log(r, "no summation tree: the +-M probes kept their u's (an exact "
               "accumulator, or one wider than the probes reach, where the "
               "order does not matter); one rounding of the exact result "
               "(order=exact out-rm=%s epilogue=%s) replays every case",
               rms[q % 6], q < 6 ? "last" : "init");
        rv_log(r, "validation: %zu of %zu cases bit-identical (100.0000%%)", ok,
               dn);
        free(line);
        fl_ref_model_free(&res->model);
        res->model = m;
        res->have_model = 1;
        res->cases = dn;
        res->agreed = ok;
        res->status = FL_REVEAL_FOUND;
        res->message[0] = '\0';
        return 0;
    }
    res->status = st;
    memcpy(res->message, msg, sizeof msg);
    return 1;
}

fl_reveal_status fl_reveal(const fl_reveal_opts *o, fl_reveal_kernel kernel,
                           void *user, fl_reveal_result *res)
{
    rv r;
    rv_valid v;
    rv_scale sc;
    fl_ref_model model, *alts = NULL;
    size_t nalts = 0;
    char f[64];

    memset(res, 0, sizeof *res);
    fl_ref_model_init(&res->model);
    memset(&r, 0, sizeof r);
    memset(&v, 0, sizeof v);
    r.o = o;
    r.kernel = kernel;
    r.user = user;
    r.res = res;
    r.in = o->in;
    r.T = o->op == FL_REF_OP_GEMM ? o->k : o->n;
    r.prod = o->op != FL_REF_OP_SUM;
    r.t_start = rv_now();
    res->status = FL_REVEAL_FOUND;
    if (check_opts(&r) != 0)
        goto done;
    fl_format_spec(&r.in, f, sizeof f);
    if (o->op == FL_REF_OP_GEMM)
        rv_log(&r, "reveal gemm: A %zu x %zu, B %zu x %zu of %s%s", o->m, o->k,
               o->k, o->n, f, o->batch ? " (batched)" : "");
    else
        rv_log(&r, "reveal %s: %zu terms per output element, %s", op_name(o->op),
               o->n, f);

    r.bt_off = o->op != FL_REF_OP_GEMM || o->batch || !o->batch_trial;
again:
    /* 1. validation inputs; determinism */
    if (rv_valid_run(&r, &v) != 0)
        goto done;
    {
        char of[64];
        fl_format_spec(&r.out, of, sizeof of);
        rv_log(&r, "kernel output: %s", of);
    }

    /* 2. the tree */
    {
        int frc = rv_fprev(&r, &res->tree, &sc);
        if (frc == -2) {
            /* batched and 2-D calls sum otherwise: all again in 2-D */
            rv_valid_free(&v);
            r.bt_auto = 0;
            r.bt_off = 1;
            goto again;
        }
        if (frc == 0)
            goto tree_ok;
    }
    {
        /* No tree: every +-M probe kept its u's, as an exact accumulator
         * (or one wider than the probes reach) would.  Then the order
         * does not matter: try one rounding of the exact result. */
        if (res->status == FL_REVEAL_UNREVEALED &&
            try_exact(&r, &v) == 0) {
            res->tree_lengths[0] = r.T;
            res->ntree_lengths = 1;
            res->order_travels = 1;   /* order=exact: no tree at any length */
            goto done;
        }
        goto done;
    }
tree_ok:
    res->have_tree = 1;
    {
        char *d = fl_reveal_tree_draw(&res->tree, 48);
        size_t h = fl_reveal_tree_height(&res->tree,
                                         res->tree.n + res->tree.nnodes - 1);
        size_t ar = rv_tree_max_arity(&res->tree);
        rv_log(&r, "summation tree: %zu terms, %zu additions, height %zu%s",
               res->tree.n, res->tree.nnodes, h,
               ar > 2 ? " (with fused multi-term additions)" : "");
        if (d) {
            char *save = NULL;
            for (char *line = strtok_r(d, "\n", &save); line;
                 line = strtok_r(NULL, "\n", &save))
                rv_log(&r, "  %s", line);
            free(d);
        }
    }

    /* 3. the accumulator and the model */
    if (rv_search(&r, &res->tree, &sc, &model, &alts, &nalts) != 0)
        goto done;

    /* 4. validation of the model as its text reads back */
    {
        fl_ref_model best;
        size_t agreed = 0, done_cases = 0, nan_only = 0;
        char *cx = NULL;
        if (reparse(&r, &model, &best) != 0) {
            fl_ref_model_free(&model);
            goto done;
        }
        fl_ref_model_free(&model);
        if (replay(&r, &v, &best, 0, &agreed, &done_cases, &nan_only, &cx) != 0) {
            fl_ref_model_free(&best);
            goto done;
        }
        if (agreed != done_cases && nalts > 0) {
            /* the alternatives, on the first cases, then the best in full */
            size_t sample = v.cases < 20000 ? v.cases : 20000;
            size_t base_ok = 0, base_done = 0;
            int bi = -1;
            replay(&r, &v, &best, sample, &base_ok, &base_done, NULL, NULL);
            for (size_t a = 0; a < nalts; a++) {
                fl_ref_model x;
                size_t ok = 0, dn = 0;
                if (reparse(&r, &alts[a], &x) != 0)
                    continue;
                if (replay(&r, &v, &x, sample, &ok, &dn, NULL, NULL) == 0 &&
                    ok > base_ok) {
                    base_ok = ok;
                    bi = (int)a;
                }
                fl_ref_model_free(&x);
            }
            res->status = FL_REVEAL_FOUND;
            if (bi >= 0) {
                fl_ref_model x;
                size_t ok = 0, dn = 0, no2 = 0;
                char *cx2 = NULL;
                if (reparse(&r, &alts[bi], &x) == 0 &&
                    replay(&r, &v, &x, 0, &ok, &dn, &no2, &cx2) == 0 && ok > agreed) {
                    fl_ref_model_free(&best);
                    best = x;
                    agreed = ok;
                    nan_only = no2;
                    free(cx);
                    cx = cx2;
                    rv_log(&r, "validation: the probes' model missed some "
                           "cases; a neighbour does better");
                } else {
                    fl_ref_model_free(&x);
                    free(cx2);
                }
            }
        }
        res->cases = done_cases;
        res->agreed = agreed;
        res->nan_only = nan_only;
        res->model = best;
        res->have_model = 1;
        if (nan_only)
            rv_log(&r, "validation: %zu of %zu cases agree (%.4f%%): %zu "
                   "bit-identical, %zu a NaN where the kernel has a NaN "
                   "(nan=any)", agreed, done_cases,
                   100.0 * (double)agreed / (double)(done_cases ? done_cases : 1),
                   agreed - nan_only, nan_only);
        else
            rv_log(&r, "validation: %zu of %zu cases bit-identical (%.4f%%)",
                   agreed, done_cases,
                   100.0 * (double)agreed / (double)(done_cases ? done_cases : 1));
        if (agreed != done_cases) {
            res->counterexample = cx;
            rv_fail(&r, FL_REVEAL_MISMATCH,
                    "no model found reproduces the kernel: the closest agrees "
                    "on %zu of %zu cases", agreed, done_cases);
        } else {
            free(cx);
            res->status = FL_REVEAL_FOUND;
            /* 5. the order at other lengths */
            if (rv_lengths(&r, &v, &res->tree, &sc, &res->model) != 0)
                goto done;
        }
    }

done:
    for (size_t a = 0; a < nalts; a++)
        fl_ref_model_free(&alts[a]);
    free(alts);
    rv_valid_free(&v);
    res->seconds = rv_now() - r.t_start;
    return res->status;
}
