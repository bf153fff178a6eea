/*
 * summary.c — the closing lines of a reveal's report and the model file,
 * composed once for every shell: `fplab reveal` prints and writes them,
 * fplab.reveal (Python) reports and saves the same text, so the two can
 * never say different things about one result.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/reveal.h"

/* A growing string; on running out of memory it keeps failing (s NULL). */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int need;
    if (b->oom)
        return;
    va_start(ap, fmt);
    need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t nc = (b->cap ? 2 * b->cap : 256) + (size_t)need + 1;
        char *p = realloc(b->s, nc);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

/* The text, "" when nothing was added; NULL when out of memory. */
static char *sb_take(sbuf *b)
{
    if (b->oom) {
        free(b->s);
        return NULL;
    }
    if (b->s == NULL)
        return calloc(1, 1);
    return b->s;
}

char *fl_reveal_outcome_text(const fl_reveal_result *res)
{
    sbuf b = {0};
    char *line = res->have_model ? fl_ref_model_string(&res->model) : NULL;
    if (res->have_model && line == NULL)
        return NULL;
    switch (res->status) {
    case FL_REVEAL_FOUND:
        sb_add(&b, "model: %s\n", line ? line : "?");
        break;
    case FL_REVEAL_MISMATCH:
    case FL_REVEAL_NONDETERMINISTIC:
    case FL_REVEAL_UNREVEALED:
        if (line)
            sb_add(&b, "closest model (%zu of %zu cases): %s\n", res->agreed,
                   res->cases, line);
        if (res->counterexample)
            sb_add(&b, "first counterexample: %s\n", res->counterexample);
        break;
    default:
        break;
    }
    free(line);
    return sb_take(&b);
}

/* The input format by the name `fplab reveal --dtype` gives it. */
static void dtype_name(const fl_format *f, char *buf, size_t len)
{
    if (fl_format_same(f, &fl_binary32))
        snprintf(buf, len, "float32");
    else if (fl_format_same(f, &fl_binary16))
        snprintf(buf, len, "float16");
    else if (fl_format_same(f, &fl_bfloat16))
        snprintf(buf, len, "bfloat16");
    else
        fl_format_spec(f, buf, len);
}

char *fl_reveal_notes_text(const fl_reveal_opts *o,
                           const fl_reveal_result *res)
{
    sbuf b = {0};
    char in[64], of[64], lt[256];
    const int gemm = o->op == FL_REF_OP_GEMM;
    const char *nk = gemm ? "k" : "n";
    const size_t T = gemm ? o->k : o->n;
    size_t w = 0;
    if (res->status != FL_REVEAL_FOUND || !res->have_model)
        return calloc(1, 1);
    dtype_name(&o->in, in, sizeof in);
    fl_format_spec(&res->out, of, sizeof of);
    /* "201, 1031 and 2053": the lengths checked besides the first */
    lt[0] = '\0';
    for (size_t i = 1; i < res->ntree_lengths && w < sizeof lt; i++)
        w += (size_t)snprintf(lt + w, sizeof lt - w, "%s%zu",
                              i == 1 ? "" : i + 1 == res->ntree_lengths
                                  ? " and " : ", ", res->tree_lengths[i]);
    if (gemm)
        sb_add(&b, "gemm: A %zu x %zu, B %zu x %zu, %s in, %s out%s\n", o->m,
               o->k, o->k, o->n, in, of, o->batch ? " (batched calls)" : "");
    else
        sb_add(&b, "%s: %zu terms per output element, %s in, %s out\n",
               o->op == FL_REF_OP_DOT ? "dot" : "sum", o->n, in, of);
    if (res->nan_only)
        sb_add(&b, "validation: %zu of %zu cases agree, %zu of them "
               "bit-identical, %zu a NaN where the kernel has a NaN (nan=any: "
               "which NaN is not modelled) (seed %llu)\n", res->agreed,
               res->cases, res->agreed - res->nan_only, res->nan_only,
               (unsigned long long)o->seed);
    else
        sb_add(&b, "validation: %zu of %zu cases bit-identical (seed %llu)\n",
               res->agreed, res->cases, (unsigned long long)o->seed);
    if (res->model.order == FL_REF_EXACT)
        sb_add(&b, "order: exact (one rounding of the exact sum): every %s\n",
               nk);
    else if (res->order_travels && res->ntree_lengths > 1)
        sb_add(&b, "order: a family (fplab ref computes it for every %s): the "
               "tree revealed at %s = %zu, and the pair probes and fresh cases "
               "at %s = %s agree with it; other lengths are not checked\n", nk,
               nk, T, nk, lt);
    else if (res->order_travels)
        sb_add(&b, "order: a family (fplab ref computes it for every %s) with "
               "the tree revealed at %s = %zu; other lengths are not checked\n",
               nk, nk, T);
    else
        sb_add(&b, "order: covers %s = %zu only (%s)\n", nk, T,
               res->travel_note);
    return sb_take(&b);
}

char *fl_reveal_calls_text(const fl_reveal_result *res)
{
    sbuf b = {0};
    sb_add(&b, "kernel calls: %zu (%.2f s in the kernel); reveal total %.2f s\n",
           res->calls, res->kernel_seconds, res->seconds);
    return sb_take(&b);
}

char *fl_reveal_model_file_text(const fl_reveal_opts *o,
                                const fl_reveal_result *res,
                                const char *kernel)
{
    sbuf b = {0};
    char *notes, *line;
    if (res->status != FL_REVEAL_FOUND || !res->have_model)
        return NULL;
    notes = fl_reveal_notes_text(o, res);
    line = fl_ref_model_string(&res->model);
    if (notes == NULL || line == NULL) {
        free(notes);
        free(line);
        return NULL;
    }
    sb_add(&b, "# fplab %s reveal: the arithmetic model of a kernel, "
           "validated bit for bit\n# kernel: ", FPLAB_VERSION);
    /* one line whatever the name holds: a control character is a '?' */
    for (const char *p = kernel ? kernel : "?"; *p; p++)
        sb_add(&b, "%c", (unsigned char)*p < 0x20 ? '?' : *p);
    sb_add(&b, "\n");
    /* each note as a comment line */
    for (const char *p = notes; *p;) {
        size_t l = strcspn(p, "\n");
        sb_add(&b, "# %.*s\n", (int)l, p);
        p += l + (p[l] == '\n');
    }
    sb_add(&b, "%s\n", line);
    free(notes);
    free(line);
    return sb_take(&b);
}
