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

/* Units: validation inputs come in units, a matrix (gemm: M*N outputs)
 * or a row (sum, dot: one output), each a pure function of (seed, unit
 * index).  A chunk holds units [u0, u0 + count). */
typedef struct chunk {
    uint64_t *a, *b;       /* sum/dot: rows; gemm: A and B of the units */
    size_t count;          /* units */
} chunk;

static void chunk_free(chunk *c)
{
    free(c->a);
    free(c->b);
    memset(c, 0, sizeof *c);
}

/* Units [u0, u0 + cnt) written over the first cnt units of c (which
 * holds at least cnt); the rest of c is left as it is.  0, or -1 out of
 * memory. */
static int fill_units(rv *r, const rv_valid *v, size_t u0, size_t cnt, chunk *c)
{
    const size_t T = r->T;
    if (r->o->op == FL_REF_OP_GEMM) {
        size_t M = r->o->m, N = r->o->n;
        uint64_t *col = malloc(T * sizeof *col);
        if (col == NULL)
            return -1;
        for (size_t b = 0; b < cnt; b++)
            gen_mat(&r->in, v->seed, u0 + b, M, T, N, c->a + b * M * T,
                    c->b + b * T * N, col);
        free(col);
    } else {
        for (size_t k = 0; k < cnt; k++)
            gen_row(&r->in, v->seed, u0 + k, T, c->a + k * T,
                    r->prod ? c->b + k * T : NULL);
    }
    c->count = cnt;
    return 0;
}

/* Room for `alloc` units, all +0. */
static int alloc_units(rv *r, size_t alloc, chunk *c)
{
    const size_t T = r->T;
    int two = r->o->op == FL_REF_OP_GEMM || r->prod;
    size_t na = r->o->op == FL_REF_OP_GEMM ? r->o->m * T : T;
    size_t nb = r->o->op == FL_REF_OP_GEMM ? T * r->o->n : T;
    memset(c, 0, sizeof *c);
    c->a = calloc(alloc * na, sizeof *c->a);
    c->b = two ? calloc(alloc * nb, sizeof *c->b) : NULL;
    if (c->a == NULL || (two && c->b == NULL)) {
        chunk_free(c);
        return -1;
    }
    return 0;
}

/* Units [u0, u0 + cnt), padded with zero units to `alloc` (>= cnt). */
static int make_units(rv *r, const rv_valid *v, size_t u0, size_t cnt,
                      size_t alloc, chunk *c)
{
    if (alloc_units(r, alloc, c) != 0)
        return -1;
    if (fill_units(r, v, u0, cnt, c) != 0) {
        chunk_free(c);
        return -1;
    }
    return 0;
}

/* The kernel on units [u0, u0 + cnt) in one call, outputs to out (cnt *
 * unit values).  sum/dot: rows in the fixed shape (--rows, --batch) or as
 * many as given; gemm: the fixed batch, 3-D batched calls (bt_auto), or a
 * lone matrix 2-D.  try_batch: a 3-D call of cnt >= 2 matrices whose
 * failure is only described in why (0 ok, -1 failed: why). */
static int call_units(rv *r, const rv_valid *v, size_t u0, size_t cnt,
                      uint64_t *out, int try_batch, char *why, size_t whylen)
{
    chunk c;
    int rc;
    size_t alloc = cnt;
    uint64_t *tmp = NULL;
    if (r->o->op == FL_REF_OP_GEMM && r->o->batch)
        alloc = r->o->batch;
    else if (r->o->op != FL_REF_OP_GEMM)
        alloc = v->per_call;   /* the fixed shape: whole calls */
    if (alloc < cnt)
        alloc = cnt;
    if (make_units(r, v, u0, cnt, alloc, &c) != 0)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (alloc != cnt) {
        tmp = malloc(alloc * v->unit * sizeof *tmp);
        if (tmp == NULL) {
            chunk_free(&c);
            return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
        }
    }
    if (r->o->op == FL_REF_OP_GEMM) {
        if (try_batch)
            rc = rv_call_try(r, cnt, r->o->m, r->o->n, r->T, c.a, c.b, out, why,
                             whylen);
        else
            rc = rv_call_gemm(r, cnt, c.a, c.b, tmp ? tmp : out);
    } else {
        size_t B = r->o->batch ? r->o->batch : 1;
        rc = rv_call(r, r->o->batch, alloc / B, r->T, 0, c.a, c.b,
                     tmp ? tmp : out);
    }
    if (rc == 0 && tmp)
        memcpy(out, tmp, cnt * v->unit * sizeof *out);
    free(tmp);
    chunk_free(&c);
    return rc;
}

/* Determinism: units [0, cnt) again must give the same bits. */
static int check_again(rv *r, const rv_valid *v, size_t cnt)
{
    size_t nout = cnt * v->unit;
    uint64_t *again = malloc(nout * sizeof *again);
    if (again == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (call_units(r, v, 0, cnt, again, 0, NULL, 0) != 0) {
        free(again);
        return -1;
    }
    for (size_t k = 0; k < nout; k++)
        if (again[k] != v->kout[k]) {
            char x[160], y[160];
            rv_bits_str(&r->out, v->kout[k], x, sizeof x);
            rv_bits_str(&r->out, again[k], y, sizeof y);
            free(again);
            return rv_fail(r, FL_REVEAL_NONDETERMINISTIC,
                           "the kernel is nondeterministic: two calls on the "
                           "same input (%zu output elements) differ first at "
                           "element %zu: %s, then %s; a nondeterministic "
                           "kernel has no model", nout, k, x, y);
        }
    free(again);
    rv_log(r, "determinism: 2 calls on the same %zu-element input: "
           "bit-identical", nout);
    return 0;
}

/* gemm with 2-D calls: one 3-D call of units [0, cnt) must give unit 0 as
 * the 2-D call did; then calls carry up to bt_max matrices.  0, or -1
 * with a failure recorded (out of memory). */
static int batch_trial(rv *r, rv_valid *v, size_t cnt)
{
    char why[1200] = "";
    uint64_t *out = malloc(cnt * v->unit * sizeof *out);
    size_t calls0 = r->res->calls;
    if (out == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (call_units(r, v, 0, cnt, out, 1, why, sizeof why) != 0) {
        char *nl = strchr(why, '\n');
        if (nl)
            *nl = '\0';
        free(out);
        rv_log(r, "batch: a 3-D call of %zu matrices failed (%s): the kernel "
               "takes no batch axis; calls stay 2-D", cnt, why);
        r->bt_off = 1;
        (void)calls0;
        return 0;
    }
    for (size_t k = 0; k < v->unit; k++)
        if (out[k] != v->kout[k]) {
            char x[160], y[160];
            rv_bits_str(&r->out, v->kout[k], x, sizeof x);
            rv_bits_str(&r->out, out[k], y, sizeof y);
            rv_log(r, "batch: a 3-D call of %zu matrices gave matrix 0 "
                   "otherwise than the 2-D call (element %zu: %s, then %s): "
                   "calls stay 2-D", cnt, k, x, y);
            free(out);
            r->bt_off = 1;
            return 0;
        }
    memcpy(v->kout, out, cnt * v->unit * sizeof *out);
    free(out);
    r->bt_auto = 1;
    rv_log(r, "batch: a 3-D call of %zu matrices gave matrix 0 bit for bit as "
           "the 2-D call: from now on up to %zu matrices per call", cnt,
           r->bt_max);
    return 0;
}

int rv_valid_run(rv *r, rv_valid *v)
{
    const size_t cap = r->o->validate_calls ? r->o->validate_calls : (size_t)-1;
    double t0 = rv_now();
    size_t calls0 = r->res->calls, want, done = 0, data_calls = 0, per;
    memset(v, 0, sizeof *v);
    v->seed = r->o->seed ^ 0x7A11DA7E5EEDull;
    if (r->o->op == FL_REF_OP_GEMM) {
        size_t mn = r->o->m * r->o->n, mk = r->o->m * r->T, kn = r->T * r->o->n;
        size_t big = mk > kn ? mk : kn;
        v->unit = mn;
        want = (r->o->validate + mn - 1) / mn;
        if (want == 0)
            want = 1;
        r->bt_max = r->o->call_elems / (big ? big : 1);
        if (r->bt_max < 1)
            r->bt_max = 1;
        if (r->o->batch)   /* whole calls of the fixed batch */
            want = (want + r->o->batch - 1) / r->o->batch * r->o->batch;
        per = rv_gemm_per_call(r);
    } else {
        v->unit = 1;
        want = r->o->validate;
        per = rv_rows_per_call(r);
        if (!r->o->rows && per > 0) {
            /* the fewest calls that hold `want` rows, with the rows
             * spread evenly over them (in whole blocks of the batch) */
            size_t B = r->o->batch ? r->o->batch : 1, calls = (want + per - 1) / per;
            per = (want + calls - 1) / calls;
            per = (per + B - 1) / B * B;
        }
        if (per == 0)
            per = 1;
        want = (want + per - 1) / per * per;
    }
    v->per_call = per;
    v->kout = malloc(want * v->unit * sizeof *v->kout);
    if (v->kout == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory for %zu cases",
                       want * v->unit);
    /* the first call; for gemm with 2-D calls, the batch trial */
    {
        size_t first = per < want ? per : want;
        if (call_units(r, v, 0, first, v->kout, 0, NULL, 0) != 0)
            return -1;
        done = first;
        data_calls = 1;
        if (r->o->op == FL_REF_OP_GEMM && !r->o->batch && !r->bt_off &&
            r->o->batch_trial && r->bt_max >= 2) {
            size_t tcnt = want < r->bt_max ? want : r->bt_max;
            if (tcnt < 2)
                tcnt = 2;
            if (tcnt > want) {
                /* the trial's second matrix is a validation case too */
                uint64_t *nk = realloc(v->kout, tcnt * v->unit * sizeof *nk);
                if (nk == NULL)
                    return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
                v->kout = nk;
                want = tcnt;
            }
            if (batch_trial(r, v, tcnt) != 0)
                return -1;
            if (r->bt_auto) {
                done = tcnt;
                data_calls = 2;
                per = r->bt_max;
                v->per_call = per;
            }
        }
        if (check_again(r, v, done) != 0)
            return -1;
    }
    /* the rest, at most `cap` calls with data in all */
    while (done < want && data_calls < cap) {
        size_t cnt = want - done < per ? want - done : per;
        if (call_units(r, v, done, cnt, v->kout + done * v->unit, 0, NULL, 0) != 0)
            return -1;
        done += cnt;
        data_calls++;
    }
    v->units = done;
    v->cases = done * v->unit;
    r->res->valid_calls = data_calls;
    r->res->batch_max = r->bt_auto ? r->bt_max : 0;
    if (done < want)
        rv_log(r, "validation inputs: %zu cases (%s) in %zu calls, at most %zu "
               "calls with data (validate_calls; %zu cases asked for), %zu "
               "calls, %.2f s", v->cases,
               r->o->op == FL_REF_OP_GEMM ? "output elements" : "rows",
               data_calls, cap, r->o->validate, r->res->calls - calls0,
               rv_now() - t0);
    else
        rv_log(r, "validation inputs: %zu cases (%s), %zu calls, %.2f s",
               v->cases, r->o->op == FL_REF_OP_GEMM ? "output elements" : "rows",
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
                    size_t *nan_only, char **cx)
{
    const size_t T = r->T;
    /* blocks of units: a call's worth (gemm: at most 256 matrices) */
    /* blocks of units, their inputs regenerated into one buffer reused
     * from block to block: a call's worth, at most 256 matrices (gemm) or
     * about 2^20 terms (sum, dot: rows of T terms) */
    size_t blk = v->per_call ? v->per_call : 1;
    uint64_t *mo;
    chunk c;
    char err[512];
    size_t ok = 0, done = 0, nan_ok = 0;
    if (r->o->op == FL_REF_OP_GEMM && blk > 256)
        blk = 256;
    if (r->o->op != FL_REF_OP_GEMM) {
        size_t rows = ((size_t)1 << 20) / (T ? T : 1);
        if (rows < 64)
            rows = 64;
        if (blk > rows)
            blk = rows;
    }
    if (v->units < blk)
        blk = v->units ? v->units : 1;
    if (cx)
        *cx = NULL;
    mo = malloc(blk * v->unit * sizeof *mo);
    if (mo == NULL || alloc_units(r, blk, &c) != 0) {
        free(mo);
        snprintf(r->err, sizeof r->err, "out of memory");
        return -1;
    }
    for (size_t u0 = 0; u0 < v->units; u0 += blk) {
        size_t cnt = v->units - u0 < blk ? v->units - u0 : blk;
        size_t nout = cnt * v->unit;
        int rc;
        if (max_cases && done >= max_cases)
            break;
        if (fill_units(r, v, u0, cnt, &c) != 0) {
            chunk_free(&c);
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
            fl_ref_gemm_shape_init(&s, 0, 0, cnt, r->o->m, r->o->n, T);
            rc = fl_ref_gemm(m, &s, one, c.a, c.b, 0, NULL, mo, r->o->nthreads,
                             NULL, err, sizeof err);
        } else if (r->prod) {
            rc = fl_ref_dot(m, c.a, c.b, cnt, T, mo, r->o->nthreads, NULL,
                            err, sizeof err);
        } else {
            rc = fl_ref_sum(m, c.a, cnt, T, mo, r->o->nthreads, NULL, err,
                            sizeof err);
        }
        if (rc != 0) {
            chunk_free(&c);
            free(mo);
            snprintf(r->err, sizeof r->err, "the model cannot run: %s", err);
            return -1;
        }
        for (size_t k = 0; k < nout; k++) {
            const uint64_t kv = v->kout[u0 * v->unit + k];
            if (kv == mo[k]) {
                ok++;
                continue;
            }
            if (m->nan_any && fl_is_nan(&r->out, kv) && fl_is_nan(&r->out, mo[k])) {
                ok++;
                nan_ok++;
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
                    gemm_classes(v->seed, u0 + b, i, j, &ca, &cb);
                    terms_str(&r->in, c.a + b * M * T + i * T,
                              c.b + b * T * N + j, T, (ptrdiff_t)N, tb, sizeof tb);
                    need = 1200;
                    s = malloc(need);
                    if (s)
                        snprintf(s, need, "matrix %zu, element (%zu, %zu) (A row "
                                 "%s, B column %s): %s\n  kernel %s\n  model  %s",
                                 u0 + b, i, j, cls_name[ca], cls_name[cb], tb, kb,
                                 mb);
                } else {
                    size_t row = u0 + k;
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
        done += nout;
    }
    chunk_free(&c);
    free(mo);
    *agreed = ok;
    *replayed = done;
    if (nan_only)
        *nan_only = nan_ok;
    return 0;
}

/* ------------------------------------------------------------------------
 * Values at another length.
 * ---------------------------------------------------------------------- */
int rv_valid_check_at(rv *r, const fl_ref_model *ms, size_t nm, int *ok,
                      size_t *cases)
{
    rv_valid v;
    uint64_t *out = NULL;
    memset(&v, 0, sizeof v);
    v.seed = (r->o->seed ^ 0x1E4C7A11ull) + 0x9E3779B97F4A7C15ull * r->T;
    if (r->o->op == FL_REF_OP_GEMM) {
        v.unit = r->o->m * r->o->n;
        v.units = r->o->batch ? r->o->batch : r->bt_auto
                  ? (r->bt_max < 8 ? r->bt_max : 8) : 1;
    } else {
        size_t per = rv_rows_per_call(r);
        v.unit = 1;
        v.units = r->o->rows ? per : per < 2000 ? per : 2000;
        if (r->o->batch && !r->o->rows)
            v.units -= v.units % r->o->batch;
        if (v.units == 0)
            v.units = per;
    }
    v.per_call = v.units;
    v.cases = v.units * v.unit;
    v.kout = out = malloc(v.cases * sizeof *out);
    if (out == NULL)
        return rv_fail(r, FL_REVEAL_BAD_OPTIONS, "out of memory");
    if (call_units(r, &v, 0, v.units, out, 0, NULL, 0) != 0) {
        free(out);
        return -1;
    }
    for (size_t c = 0; c < nm; c++) {
        size_t agreed = 0, done = 0;
        ok[c] = rv_valid_replay(r, &v, &ms[c], 0, &agreed, &done, NULL, NULL) == 0 &&
                agreed == done && done == v.cases;
    }
    *cases = v.cases;
    free(out);
    return 0;
}
