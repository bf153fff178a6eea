/*
 * validate.c — fresh random and adversarial inputs for the kernel, and
 * their replay through a model.
 *
 * Inputs are a pure function of (seed, row or matrix index), so they are
 * generated chunk by chunk for the kernel, only its outputs kept, and
 * generated again to replay a model: memory stays one chunk.  The first
 * chunk goes to the kernel twice: the determinism check.
 *
 * Classes of rows (sum, dot; for gemm of A's rows and B's columns):
 *   randn      signs and significands at random, exponents near 0 (the
 *              common case), a random scale per row
 *   uniform    positive values in [0, 1): the sum grows, every addition
 *              rounds
 *   wide       exponents spread over the whole input range
 *   cancel     a half and its negation in another order, a few terms
 *              perturbed: massive cancellation
 *   ties       +-1 and powers of two at the half-ulp of bfloat16, binary16,
 *              binary32 and binary64 accumulators: rounding ties
 *   subnormal  subnormal and near-subnormal terms (and products)
 *   overflow   terms near the largest finite value, mixed signs
 *   special    one infinity, both infinities, or one NaN (a payload, either
 *              sign, quiet or signaling); never two NaNs in one sum, whose
 *              order of meeting IEEE 754 leaves to the implementation
 *   zeros      signed zeros with a few values; rows of -0
 *   integers   small integers: exact sums
 * Half the rows are randn; the rest cycle through the other classes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reveal_internal.h"

enum {
    C_RANDN = 0, C_UNIFORM, C_WIDE, C_CANCEL, C_TIES, C_SUB, C_OVER,
    C_SPECIAL, C_ZEROS, C_INT, C_COUNT
};
static const char *const cls_name[C_COUNT] = {
    "randn", "uniform", "wide", "cancel", "ties", "subnormal", "overflow",
    "special", "zeros", "integers"
};

static uint64_t mix(uint64_t s)
{
    uint64_t z = s + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *g)
{
    g->s += 0x9E3779B97F4A7C15ull;
    return mix(g->s);
}

static int cls_of(uint64_t seed, uint64_t idx)
{
    uint64_t z = mix(seed ^ mix(idx * 2 + 1));
    if (z % 2 == 0)
        return C_RANDN;
    return 1 + (int)((z >> 8) % (C_COUNT - 1));
}

static int emin_sub(const fl_format *f)
{
    return f->subnormals ? f->emin - (f->prec - 1) : f->emin;
}

/* A value of f with exponent e (clamped to f's range), a random
 * significand and sign.  Normal values are assembled as bits (sign,
 * biased exponent, fraction); subnormal ones go through binary64. */
static uint64_t rnd_val(const fl_format *f, rng *g, int e, int neg)
{
    int fb = f->prec - 1 < 52 ? f->prec - 1 : 52;
    uint64_t frac = fb ? next(g) & ((1ull << fb) - 1) : 0;
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    double x;
    if (e > f->emax)
        e = f->emax;
    if (e < emin_sub(f))
        e = emin_sub(f);
    if (e >= f->emin && f->nan_style == FL_NANSTYLE_IEEE && f->has_zero &&
        fb == f->prec - 1) {
        uint64_t b = ((uint64_t)(e + f->bias) << (f->prec - 1)) | frac;
        return (neg ? f->sign_mask : 0) | b;
    }
    x = ldexp(1.0 + ldexp((double)frac, -fb), e);
    return fl_from_double(f, neg ? -x : x, &c, &fl);
}

static uint64_t pw2(const fl_format *f, int e, int neg)
{
    return rv_pow2(f, e, neg);
}

static int geo(rng *g, int spread)
{
    /* roughly normal exponents: -spread..spread, peaked at 0 */
    uint64_t z = next(g);
    int a = (int)(z % (unsigned)(spread + 1)), b = (int)((z >> 16) % (unsigned)(spread + 1));
    return a - b;
}

/* One operand's terms of class c (x of a sum, a or b of a dot). */
static void gen_terms(const fl_format *f, int c, rng *g, size_t T, uint64_t *v,
                      int operand, int allow_special)
{
    int lo = emin_sub(f), hi = f->emax;
    int scale = (int)(next(g) % 17) - 8;
    switch (c) {
    case C_UNIFORM:
        for (size_t i = 0; i < T; i++)
            v[i] = rnd_val(f, g, -1 - (int)(next(g) % 6), 0);
        break;
    case C_WIDE: {
        int top = hi - 2 - (int)(T > 1 ? log2((double)T) : 0);
        int bot = f->emin + 2;
        if (top < bot)
            top = bot;
        for (size_t i = 0; i < T; i++)
            v[i] = rnd_val(f, g, bot + (int)(next(g) % (uint64_t)(top - bot + 1)),
                           (int)(next(g) & 1));
        break;
    }
    case C_CANCEL: {
        size_t h = T / 2;
        for (size_t i = 0; i < h; i++)
            v[i] = rnd_val(f, g, scale + geo(g, 6), (int)(next(g) & 1));
        /* the other half: the first half negated (a) or repeated (b), in
         * mirrored positions */
        for (size_t i = h; i < T; i++)
            v[i] = v[T - 1 - i] ^ (operand == 0 ? f->sign_mask : 0);
        if (T % 2)
            v[h] = rnd_val(f, g, scale - 20, (int)(next(g) & 1));
        if (operand == 0 && next(g) % 2)
            v[next(g) % T] = rnd_val(f, g, scale - 10 - (int)(next(g) % 20),
                                     (int)(next(g) & 1));
        break;
    }
    case C_TIES: {
        static const int ks[] = {7, 8, 9, 10, 11, 12, 23, 24, 25, 52, 53, 54};
        for (size_t i = 0; i < T; i++) {
            uint64_t z = next(g);
            if (operand == 1) {
                v[i] = z % 3 ? pw2(f, 0, 0) : rnd_val(f, g, 0, 0);
                continue;
            }
            if (z % 4 == 0)
                v[i] = pw2(f, 0, (int)((z >> 8) & 1));
            else {
                int k = ks[(z >> 4) % (sizeof ks / sizeof ks[0])];
                int e = -k;
                if (e < lo)
                    e = lo;
                v[i] = pw2(f, e, (int)((z >> 9) & 1) && (z >> 10) % 3 == 0);
            }
        }
        break;
    }
    case C_SUB: {
        for (size_t i = 0; i < T; i++) {
            uint64_t z = next(g);
            int e = operand == 0 ? f->emin - 1 - (int)(z % (unsigned)(f->prec + 1))
                                 : (int)(z % 3) - 1;
            if (operand == 0 && z % 5 == 0)
                e = f->emin + (int)((z >> 8) % 2);
            v[i] = z % 7 == 0 ? 0 : rnd_val(f, g, e, (int)((z >> 12) & 1));
        }
        break;
    }
    case C_OVER:
        for (size_t i = 0; i < T; i++) {
            uint64_t z = next(g);
            int e = operand == 0 ? hi - (int)(z % 2) : (int)(z % 2);
            v[i] = z % 3 == 0 ? rnd_val(f, g, geo(g, 4), 0)
                              : rnd_val(f, g, e, (int)((z >> 9) & 1));
        }
        break;
    case C_ZEROS: {
        uint64_t mode = next(g) % 3;
        for (size_t i = 0; i < T; i++) {
            uint64_t z = next(g);
            if (mode == 0)
                v[i] = f->sign_mask;                       /* all -0 */
            else if (z % 5 == 0)
                v[i] = rnd_val(f, g, geo(g, 4), (int)(z & 1));
            else
                v[i] = (z >> 3) & 1 ? f->sign_mask : 0;
        }
        break;
    }
    case C_INT:
        for (size_t i = 0; i < T; i++) {
            fl_ctx cx = fl_ctx_make(FL_RNE);
            unsigned fl = 0;
            int x = (int)(next(g) % 33) - 16;
            v[i] = fl_from_i32(f, x, &cx, &fl);
        }
        break;
    case C_SPECIAL:
    default:   /* randn */
        for (size_t i = 0; i < T; i++)
            v[i] = rnd_val(f, g, scale + geo(g, 3), (int)(next(g) & 1));
        break;
    }
    if (c == C_SPECIAL && allow_special && f->has_inf &&
        f->nan_style == FL_NANSTYLE_IEEE && T >= 2) {
        uint64_t z = next(g), kind = z % 4;
        size_t i = (size_t)((z >> 8) % T), j = (size_t)((z >> 32) % T);
        if (j == i)
            j = (i + 1) % T;
        if (kind == 0) {
            v[i] = f->exp_mask | ((z >> 40) & 1 ? f->sign_mask : 0);
        } else if (kind == 1) {
            v[i] = f->exp_mask;
            v[j] = f->exp_mask | f->sign_mask;
        } else {
            /* one NaN: payload, sign, quiet (kind 2) or signaling (3) */
            uint64_t q = (uint64_t)1 << (f->prec - 2);
            uint64_t frac = (next(g) & (q - 1)) | (kind == 2 ? q : 0);
            if (frac == 0)
                frac = 1;
            v[i] = f->exp_mask | frac | ((z >> 41) & 1 ? f->sign_mask : 0);
        }
    }
}

/* Row idx of a sum or dot (b NULL for a sum); returns the class. */
static int gen_row(const fl_format *f, uint64_t seed, uint64_t idx, size_t T,
                   uint64_t *a, uint64_t *b)
{
    int c = cls_of(seed, idx);
    rng g;
    g.s = mix(seed ^ mix(idx));
    gen_terms(f, c, &g, T, a, 0, 1);
    if (b) {
        rng h;
        h.s = mix(seed ^ mix(idx) ^ 0xB0B0B0B0ull);
        gen_terms(f, c, &h, T, b, 1, 0);
    }
    return c;
}

/* Matrix idx of a gemm: A (M x K) row by row, B (K x N) column by column,
 * each with its own class; specials only in A. */
static void gen_mat(const fl_format *f, uint64_t seed, uint64_t idx, size_t M,
                    size_t K, size_t N, uint64_t *A, uint64_t *B, uint64_t *col)
{
    for (size_t i = 0; i < M; i++) {
        uint64_t id = (idx << 24) ^ ((uint64_t)i << 1);
        int c = cls_of(seed, id);
        rng g;
        g.s = mix(seed ^ mix(id));
        gen_terms(f, c, &g, K, A + i * K, 0, 1);
    }
    for (size_t j = 0; j < N; j++) {
        uint64_t id = (idx << 24) ^ ((uint64_t)j << 1) ^ 1;
        int c = cls_of(seed, id);
        rng g;
        if (c == C_SPECIAL)
            c = C_RANDN;
        g.s = mix(seed ^ mix(id));
        gen_terms(f, c == C_OVER ? C_RANDN : c, &g, K, col, 1, 0);
        for (size_t k = 0; k < K; k++)
            B[k * N + j] = col[k];
    }
}

static int gemm_classes(uint64_t seed, uint64_t idx, size_t i, size_t j,
                        int *ca, int *cb)
{
    *ca = cls_of(seed, (idx << 24) ^ ((uint64_t)i << 1));
    *cb = cls_of(seed, (idx << 24) ^ ((uint64_t)j << 1) ^ 1);
    if (*cb == C_SPECIAL || *cb == C_OVER)
        *cb = C_RANDN;
    return 0;
}

/* ------------------------------------------------------------------------
 * The kernel's side.
 * ---------------------------------------------------------------------- */
void rv_valid_free(rv_valid *v)
{
    free(v->kout);
    memset(v, 0, sizeof *v);
}

/* Chunk geometry: per_chunk rows (sum/dot) or matrices (gemm). */
static void geometry(const rv *r, rv_valid *v)
{
    size_t want = r->o->validate;
    if (r->o->op == FL_REF_OP_GEMM) {
        size_t mn = r->o->m * r->o->n, mats = (want + mn - 1) / mn;
        size_t B = r->o->batch ? r->o->batch : 1;
        if (mats == 0)
            mats = 1;
        v->per_chunk = B;
        v->chunks = (mats + B - 1) / B;
        v->cases = v->chunks * B * mn;
    } else {
        size_t per = rv_rows_per_call(r);
        if (!r->o->rows && per > want)
            per = want + (r->o->batch ? (r->o->batch - want % r->o->batch) %
                                            r->o->batch : 0);
        if (per == 0)
            per = 1;
        v->per_chunk = per;
        v->chunks = (want + per - 1) / per;
        if (v->chunks == 0)
            v->chunks = 1;
        v->cases = v->chunks * per;
    }
}

typedef struct chunk {
    uint64_t *a, *b;       /* sum/dot: rows; gemm: A and B of the call */
    size_t count;          /* outputs */
} chunk;

static void chunk_free(chunk *c)
{
    free(c->a);
    free(c->b);
    memset(c, 0, sizeof *c);
}

static int make_chunk(rv *r, const rv_valid *v, size_t ci, chunk *c)
{
    const size_t T = r->T;
    memset(c, 0, sizeof *c);
    if (r->o->op == FL_REF_OP_GEMM) {
        size_t M = r->o->m, N = r->o->n, B = v->per_chunk;
        uint64_t *col = malloc(T * sizeof *col);
        c->a = malloc(B * M * T * sizeof *c->a);
        c->b = malloc(B * T * N * sizeof *c->b);
        if (c->a == NULL || c->b == NULL || col == NULL) {
            free(col);
            chunk_free(c);
            return -1;
        }
        for (size_t b = 0; b < B; b++)
            gen_mat(&r->in, v->seed, ci * B + b, M, T, N, c->a + b * M * T,
                    c->b + b * T * N, col);
        free(col);
        c->count = B * M * N;
        return 0;
    }
    c->count = v->per_chunk;
    c->a = malloc(c->count * T * sizeof *c->a);
    c->b = r->prod ? malloc(c->count * T * sizeof *c->b) : NULL;
    if (c->a == NULL || (r->prod && c->b == NULL)) {
        chunk_free(c);
        return -1;
    }
    for (size_t k = 0; k < c->count; k++)
        gen_row(&r->in, v->seed, ci * v->per_chunk + k, T, c->a + k * T,
                r->prod ? c->b + k * T : NULL);
    return 0;
}

static int call_chunk(rv *r, const rv_valid *v, const chunk *c, uint64_t *out)
{
    if (r->o->op == FL_REF_OP_GEMM)
        return rv_call(r, r->o->batch, r->o->m, r->o->n, r->T, c->a, c->b, out);
    {
        size_t B = r->o->batch ? r->o->batch : 1;
        return rv_call(r, r->o->batch, v->per_chunk / B, r->T, 0, c->a, c->b, out);
    }
}

int rv_valid_run(rv *r, rv_valid *v)
{
    chunk c;
    uint64_t *again = NULL;
    double t0 = rv_now();
    size_t calls0 = r->res->calls;
    memset(v, 0, sizeof *v);
    v->seed = r->o->seed ^ 0x7A11DA7E5EEDull;
    geometry(r, v);
    v->kout = malloc(v->cases * sizeof *v->kout);
    if (v->kout == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory for %zu cases",
                       v->cases);
    for (size_t ci = 0; ci < v->chunks; ci++) {
        size_t per_out = v->cases / v->chunks;
        if (make_chunk(r, v, ci, &c) != 0)
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        if (call_chunk(r, v, &c, v->kout + ci * per_out) != 0) {
            chunk_free(&c);
            return -1;
        }
        if (ci == 0) {
            /* determinism: the same input again */
            again = malloc(per_out * sizeof *again);
            if (again == NULL) {
                chunk_free(&c);
                return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
            }
            if (call_chunk(r, v, &c, again) != 0) {
                free(again);
                chunk_free(&c);
                return -1;
            }
            for (size_t k = 0; k < per_out; k++)
                if (again[k] != v->kout[k]) {
                    char x[160], y[160];
                    rv_bits_str(&r->out, v->kout[k], x, sizeof x);
                    rv_bits_str(&r->out, again[k], y, sizeof y);
                    free(again);
                    chunk_free(&c);
                    return rv_fail(r, FL_REVEAL_NONDETERMINISTIC,
                                   "the kernel is nondeterministic: two calls on "
                                   "the same input (%zu output elements) differ "
                                   "first at element %zu: %s, then %s; a "
                                   "nondeterministic kernel has no model",
                                   per_out, k, x, y);
                }
            free(again);
            rv_log(r, "determinism: 2 calls on the same %zu-element input: "
                   "bit-identical", per_out);
        }
        chunk_free(&c);
    }
    rv_log(r, "validation inputs: %zu cases (%s), %zu calls, %.2f s", v->cases,
           r->o->op == FL_REF_OP_GEMM ? "output elements" : "rows",
           r->res->calls - calls0, rv_now() - t0);
    return 0;
}

/* ------------------------------------------------------------------------
 * Replay.
 * ---------------------------------------------------------------------- */
void rv_bits_str(const fl_format *f, uint64_t x, char *buf, size_t len)
{
    int hd = (f->width + 3) / 4;
    if (fl_is_nan(f, x)) {
        snprintf(buf, len, "0x%0*llx = %sNaN", hd, (unsigned long long)x,
                 (x & f->sign_mask) ? "-" : "");
        return;
    }
    snprintf(buf, len, "0x%0*llx = %.9g (%a)", hd, (unsigned long long)x,
             fl_to_double(f, x), fl_to_double(f, x));
}

static void terms_str(const fl_format *f, const uint64_t *a, const uint64_t *b,
                      size_t T, ptrdiff_t sb, char *buf, size_t len)
{
    size_t w = 0, shown = 0, nz = 0;
    for (size_t i = 0; i < T; i++)
        if (!fl_is_zero(f, a[i]) || (b && !fl_is_zero(f, b[i * sb])))
            nz++;
    w += (size_t)snprintf(buf + w, len - w, "%zu terms, %zu nonzero:", T, nz);
    for (size_t i = 0; i < T && shown < 6 && w < len; i++) {
        if (fl_is_zero(f, a[i]) && nz > 6)
            continue;
        if (b)
            w += (size_t)snprintf(buf + w, len - w, " [%zu] %.9g*%.9g", i,
                                  fl_to_double(f, a[i]), fl_to_double(f, b[i * sb]));
        else
            w += (size_t)snprintf(buf + w, len - w, " [%zu] %.9g", i,
                                  fl_to_double(f, a[i]));
        shown++;
    }
    if (w < len && nz > shown)
        snprintf(buf + w, len - w, " ...");
}

int rv_valid_replay(rv *r, const rv_valid *v, const fl_ref_model *m,
                    size_t max_cases, size_t *agreed, size_t *replayed,
                    char **cx)
{
    const size_t per_out = v->cases / v->chunks, T = r->T;
    uint64_t *mo = malloc(per_out * sizeof *mo);
    chunk c;
    char err[512];
    size_t ok = 0, done = 0;
    if (cx)
        *cx = NULL;
    if (mo == NULL) {
        snprintf(r->err, sizeof r->err, "out of memory");
        return -1;
    }
    for (size_t ci = 0; ci < v->chunks; ci++) {
        int rc;
        if (max_cases && done >= max_cases)
            break;
        if (make_chunk(r, v, ci, &c) != 0) {
            free(mo);
            snprintf(r->err, sizeof r->err, "out of memory");
            return -1;
        }
        if (r->o->op == FL_REF_OP_GEMM) {
            fl_ref_gemm_shape s;
            uint64_t one;
            fl_ctx cc = fl_ctx_make(FL_RNE);
            unsigned fl = 0;
            one = fl_from_i32(&m->acc, 1, &cc, &fl);
            fl_ref_gemm_shape_init(&s, 0, 0, v->per_chunk, r->o->m, r->o->n, T);
            rc = fl_ref_gemm(m, &s, one, c.a, c.b, 0, NULL, mo, r->o->nthreads,
                             NULL, err, sizeof err);
        } else if (r->prod) {
            rc = fl_ref_dot(m, c.a, c.b, per_out, T, mo, r->o->nthreads, NULL,
                            err, sizeof err);
        } else {
            rc = fl_ref_sum(m, c.a, per_out, T, mo, r->o->nthreads, NULL, err,
                            sizeof err);
        }
        if (rc != 0) {
            chunk_free(&c);
            free(mo);
            snprintf(r->err, sizeof r->err, "the model cannot run: %s", err);
            return -1;
        }
        for (size_t k = 0; k < per_out; k++) {
            const uint64_t kv = v->kout[ci * per_out + k];
            if (kv == mo[k]) {
                ok++;
                continue;
            }
            if (cx && *cx == NULL) {
                char kb[160], mb[160], tb[700], *s;
                int ca, cb;
                size_t need;
                rv_bits_str(&r->out, kv, kb, sizeof kb);
                rv_bits_str(&r->out, mo[k], mb, sizeof mb);
                if (r->o->op == FL_REF_OP_GEMM) {
                    size_t M = r->o->m, N = r->o->n, b = k / (M * N);
                    size_t i = (k % (M * N)) / N, j = k % N;
                    gemm_classes(v->seed, ci * v->per_chunk + b, i, j, &ca, &cb);
                    terms_str(&r->in, c.a + b * M * T + i * T,
                              c.b + b * T * N + j, T, (ptrdiff_t)N, tb, sizeof tb);
                    need = 1200;
                    s = malloc(need);
                    if (s)
                        snprintf(s, need, "matrix %zu, element (%zu, %zu) (A row "
                                 "%s, B column %s): %s\n  kernel %s\n  model  %s",
                                 ci * v->per_chunk + b, i, j, cls_name[ca],
                                 cls_name[cb], tb, kb, mb);
                } else {
                    size_t row = ci * v->per_chunk + k;
                    ca = cls_of(v->seed, row);
                    terms_str(&r->in, c.a + k * T, r->prod ? c.b + k * T : NULL,
                              T, 1, tb, sizeof tb);
                    need = 1200;
                    s = malloc(need);
                    if (s)
                        snprintf(s, need, "row %zu (%s): %s\n  kernel %s\n  "
                                 "model  %s", row, cls_name[ca], tb, kb, mb);
                }
                *cx = s;
            }
        }
        done += per_out;
        chunk_free(&c);
    }
    free(mo);
    *agreed = ok;
    *replayed = done;
    return 0;
}
