/*
 * call.c — calling the kernel: one call with its shape checked, and rows
 * of probes packed into as few calls as the shape allows (rows of a sum
 * or dot; for GEMM, a probe is one row of A with one column of B, and
 * probes that share their column of B share it in the matrix too).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reveal_internal.h"

double rv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rv_log(rv *r, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    if (r->o->log == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->o->log(r->o->log_user, line);
}

int rv_fail(rv *r, fl_reveal_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->message, sizeof r->res->message, fmt, ap);
    va_end(ap);
    r->res->status = st;
    return -1;
}

size_t fl_reveal_call_outputs(const fl_reveal_call *c)
{
    size_t b = c->batch ? c->batch : 1;
    return b * c->rows * (c->op == FL_REF_OP_GEMM ? c->n : 1);
}

size_t fl_reveal_call_inputs(const fl_reveal_call *c, int operand)
{
    size_t b = c->batch ? c->batch : 1;
    if (c->op != FL_REF_OP_GEMM)
        return c->op == FL_REF_OP_SUM && operand == 1 ? 0 : b * c->rows * c->n;
    return operand == 0 ? b * c->rows * c->k : b * c->k * c->n;
}

/* ------------------------------------------------------------------------
 * Values.
 * ---------------------------------------------------------------------- */
uint64_t rv_val(const fl_format *f, int neg, int e, uint64_t frac, int fbits)
{
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    double x = ldexp(1.0 + ldexp((double)frac, -fbits), e);
    return fl_from_double(f, neg ? -x : x, &c, &fl);
}

uint64_t rv_pow2(const fl_format *f, int e, int neg)
{
    return rv_val(f, neg, e, 0, 0);
}

/* ------------------------------------------------------------------------
 * Rows.
 * ---------------------------------------------------------------------- */
int rv_rows_init(rv_rows *s, size_t T, int prod)
{
    memset(s, 0, sizeof *s);
    s->T = T;
    s->prod = prod;
    return 0;
}

void rv_rows_free(rv_rows *s)
{
    free(s->a);
    free(s->b);
    free(s->out);
    memset(s, 0, sizeof *s);
}

size_t rv_rows_add(rv_rows *s, const fl_format *in)
{
    if (s->count == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 64;
        uint64_t *na = realloc(s->a, nc * s->T * sizeof *na), *nb;
        if (na == NULL)
            return (size_t)-1;
        s->a = na;
        if (s->prod) {
            nb = realloc(s->b, nc * s->T * sizeof *nb);
            if (nb == NULL)
                return (size_t)-1;
            s->b = nb;
        }
        s->cap = nc;
    }
    memset(s->a + s->count * s->T, 0, s->T * sizeof *s->a);
    if (s->prod) {
        uint64_t one = rv_pow2(in, 0, 0);
        for (size_t i = 0; i < s->T; i++)
            s->b[s->count * s->T + i] = one;
    }
    return s->count++;
}

/* ------------------------------------------------------------------------
 * One call.
 * ---------------------------------------------------------------------- */
int fl_reveal_set_out_format(fl_reveal_call *call, const char *name)
{
    fl_format f;
    char err[128];
    if (call == NULL || name == NULL ||
        fl_format_parse(&f, name, err, sizeof err) != 0)
        return -1;
    call->out_format = f;
    return 0;
}

/* The call; 0, or -1 with what went wrong in msg (nothing recorded). */
static int call_kernel(rv *r, size_t batch, size_t rows, size_t ncols,
                       size_t k, const uint64_t *a, const uint64_t *b,
                       uint64_t *out, char *msg, size_t msglen)
{
    fl_reveal_call c;
    char e[1024] = "";
    double t;
    int rc;
    size_t nout;
    memset(&c, 0, sizeof c);
    c.op = r->o->op;
    c.in = &r->in;
    c.batch = batch;
    c.rows = rows;
    c.n = ncols;
    c.k = k;
    c.a = a;
    c.b = r->o->op == FL_REF_OP_SUM ? NULL : b;
    c.out = out;
    c.index = r->res->calls;
    c.set_out_format = fl_reveal_set_out_format;
    nout = fl_reveal_call_outputs(&c);
    memset(out, 0, nout * sizeof *out);
    t = rv_now();
    rc = r->kernel(r->user, &c, e, sizeof e);
    r->res->kernel_seconds += rv_now() - t;
    r->res->calls++;
    if (rc != 0) {
        snprintf(msg, msglen, "kernel call %zu: %s", c.index + 1,
                 e[0] ? e : "failed");
        return -1;
    }
    if (c.out_format.width == 0) {
        snprintf(msg, msglen, "kernel call %zu: the kernel did not state the "
                 "format of its output", c.index + 1);
        return -1;
    }
    if (!r->have_out) {
        r->out = c.out_format;
        r->have_out = 1;
        r->res->out = r->out;
    } else if (!fl_format_same(&r->out, &c.out_format)) {
        char x[64], y[64];
        fl_format_spec(&r->out, x, sizeof x);
        fl_format_spec(&c.out_format, y, sizeof y);
        snprintf(msg, msglen, "kernel call %zu: the output format changed "
                 "between calls: %s before, %s now", c.index + 1, x, y);
        return -1;
    }
    if (r->out.width < 64) {
        uint64_t mask = ~(((uint64_t)1 << r->out.width) - 1);
        for (size_t i = 0; i < nout; i++)
            if (out[i] & mask) {
                snprintf(msg, msglen, "kernel call %zu: output element %zu has "
                         "bits above the %d of its format (0x%llx)",
                         c.index + 1, i, r->out.width,
                         (unsigned long long)out[i]);
                return -1;
            }
    }
    return 0;
}

int rv_call(rv *r, size_t batch, size_t rows, size_t ncols, size_t k,
            const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    char msg[1200];
    if (call_kernel(r, batch, rows, ncols, k, a, b, out, msg, sizeof msg) != 0)
        return rv_fail(r, FL_REVEAL_KERNEL_FAILED, "%s", msg);
    return 0;
}

int rv_call_try(rv *r, size_t batch, size_t rows, size_t ncols, size_t k,
                const uint64_t *a, const uint64_t *b, uint64_t *out,
                char *why, size_t whylen)
{
    return call_kernel(r, batch, rows, ncols, k, a, b, out, why, whylen);
}

size_t rv_gemm_per_call(const rv *r)
{
    if (r->o->batch)
        return r->o->batch;
    return r->bt_auto ? r->bt_max : 1;
}

int rv_call_gemm(rv *r, size_t mats, const uint64_t *A, const uint64_t *B,
                 uint64_t *C)
{
    size_t batch = r->o->batch ? r->o->batch : mats > 1 ? mats : 0;
    return rv_call(r, batch, r->o->m, r->o->n, r->T, A, B, C);
}

size_t rv_rows_per_call(const rv *r)
{
    size_t B = r->o->batch ? r->o->batch : 1, per;
    if (r->o->rows)
        return B * r->o->rows;
    per = r->o->call_elems / (r->T ? r->T : 1);
    if (per < B)
        per = B;
    return per - per % B;
}

/* sum and dot: consecutive rows, padded with rows of +0 where the shape
 * is fixed. */
static int run_rows_flat(rv *r, rv_rows *s)
{
    size_t B = r->o->batch ? r->o->batch : 1, per = rv_rows_per_call(r);
    size_t T = s->T;
    uint64_t *pa = NULL, *pb = NULL, *po = NULL;
    int rc = 0;
    for (size_t lo = 0; lo < s->count && rc == 0; lo += per) {
        size_t cnt = s->count - lo < per ? s->count - lo : per;
        size_t R = r->o->rows ? r->o->rows : (cnt + B - 1) / B;
        size_t total = B * R;
        const uint64_t *a = s->a + lo * T, *b = s->prod ? s->b + lo * T : NULL;
        if (total != cnt) {
            free(pa);
            free(pb);
            pa = calloc(total * T, sizeof *pa);
            pb = s->prod ? calloc(total * T, sizeof *pb) : NULL;
            if (pa == NULL || (s->prod && pb == NULL)) {
                rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                break;
            }
            memcpy(pa, a, cnt * T * sizeof *pa);
            if (s->prod)
                memcpy(pb, b, cnt * T * sizeof *pb);
            a = pa;
            b = pb;
        }
        free(po);
        po = malloc(total * sizeof *po);
        if (po == NULL) {
            rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            break;
        }
        rc = rv_call(r, r->o->batch, R, T, 0, a, b, po);
        if (rc == 0)
            memcpy(s->out + lo, po, cnt * sizeof *po);
    }
    free(pa);
    free(pb);
    free(po);
    return rc;
}

/* gemm: probe p is row `row` of matrix `mat` of A with its b-vector as a
 * column of B; a matrix holds up to M probes and N distinct columns. */
typedef struct gslot {
    size_t mat, row, col;
} gslot;

static uint64_t hash_vec(const uint64_t *v, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        h ^= v[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9ull;
    }
    return h;
}

static int run_rows_gemm(rv *r, rv_rows *s)
{
    const size_t M = r->o->m, N = r->o->n, K = s->T;
    size_t B = rv_gemm_per_call(r);
    gslot *slot = malloc((s->count ? s->count : 1) * sizeof *slot);
    size_t *colsrc = malloc(N * sizeof *colsrc);   /* probe giving column c */
    uint64_t *colh = malloc(N * sizeof *colh);
    size_t nmat = 0, rows = 0, cols = 0;
    uint64_t *A = NULL, *Bm = NULL, *C = NULL;
    int rc = 0;
    if (slot == NULL || colsrc == NULL || colh == NULL) {
        free(slot);
        free(colsrc);
        free(colh);
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    }
    /* assign slots */
    for (size_t p = 0; p < s->count; p++) {
        const uint64_t *bv = s->b + p * K;
        uint64_t h = hash_vec(bv, K);
        size_t c = (size_t)-1;
        if (nmat == 0)
            nmat = 1;
        for (size_t j = 0; j < cols; j++)
            if (colh[j] == h && !memcmp(s->b + colsrc[j] * K, bv, K * sizeof *bv)) {
                c = j;
                break;
            }
        if (rows == M || (c == (size_t)-1 && cols == N)) {
            nmat++;
            rows = cols = 0;
            c = (size_t)-1;
        }
        if (c == (size_t)-1) {
            c = cols++;
            colsrc[c] = p;
            colh[c] = h;
        }
        slot[p].mat = nmat - 1;
        slot[p].row = rows++;
        slot[p].col = c;
    }
    if (!r->o->batch && B > nmat)
        B = nmat ? nmat : 1;   /* batched calls hold what there is */
    A = malloc(B * M * K * sizeof *A);
    Bm = malloc(B * K * N * sizeof *Bm);
    C = malloc(B * M * N * sizeof *C);
    if (A == NULL || Bm == NULL || C == NULL) {
        rc = rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        goto out;
    }
    for (size_t m0 = 0, p0 = 0; m0 < nmat && rc == 0; m0 += B) {
        size_t p = p0, used = nmat - m0 < B ? nmat - m0 : B;
        memset(A, 0, B * M * K * sizeof *A);
        memset(Bm, 0, B * K * N * sizeof *Bm);
        for (; p < s->count && slot[p].mat < m0 + B; p++) {
            size_t mi = slot[p].mat - m0;
            memcpy(A + mi * M * K + slot[p].row * K, s->a + p * K, K * sizeof *A);
            for (size_t kk = 0; kk < K; kk++)
                Bm[mi * K * N + kk * N + slot[p].col] = s->b[p * K + kk];
        }
        rc = rv_call_gemm(r, used, A, Bm, C);
        for (size_t q = p0; q < p && rc == 0; q++) {
            size_t mi = slot[q].mat - m0;
            s->out[q] = C[mi * M * N + slot[q].row * N + slot[q].col];
        }
        p0 = p;
    }
out:
    free(A);
    free(Bm);
    free(C);
    free(slot);
    free(colsrc);
    free(colh);
    return rc;
}

int rv_run_rows(rv *r, rv_rows *s)
{
    free(s->out);
    s->out = calloc(s->count ? s->count : 1, sizeof *s->out);
    if (s->out == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (s->count == 0)
        return 0;
    if (r->o->op == FL_REF_OP_GEMM)
        return run_rows_gemm(r, s);
    return run_rows_flat(r, s);
}
