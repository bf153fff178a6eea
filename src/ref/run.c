/*
 * run.c — the entry points fl_ref_sum / fl_ref_dot / fl_ref_gemm and the
 * thread split.
 *
 * Output elements are independent: each is a pure function of its inputs
 * and its own index (which seeds its stochastic roundings), and each part
 * of the split ORs its flags into a word of its own.  So any split, and
 * any thread count, gives the same bits and the same flags.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ref_internal.h"
#include "accel.h"

int ref_nthreads(int nthreads)
{
    long n;
    if (nthreads > 0)
        return nthreads > REF_MAX_THREADS ? REF_MAX_THREADS : nthreads;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > REF_MAX_THREADS ? REF_MAX_THREADS : (int)n;
}

void ref_fan_out(void *parts, size_t size, int n, void *(*run)(void *))
{
    pthread_t tid[REF_MAX_THREADS];
    char started[REF_MAX_THREADS] = {0};
    char *const p = parts;
    for (int i = 1; i < n; i++)
        started[i] =
            pthread_create(&tid[i], NULL, run, p + (size_t)i * size) == 0;
    run(p);
    for (int i = 1; i < n; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            run(p + (size_t)i * size);   /* could not start: do it here */
    }
}

typedef struct part {
    ref_range_fn fn;
    void *arg;
    size_t lo, hi;
    unsigned flags;
    int rc;
} part;

static void *worker(void *p)
{
    part *q = p;
    q->rc = q->fn(q->arg, q->lo, q->hi, &q->flags);
    return NULL;
}

int ref_parallel(size_t count, double work, int nthreads, ref_range_fn fn,
                 void *arg, unsigned *flags)
{
    int nt = ref_nthreads(nthreads), rc = 0;
    /* a thread is worth starting for about 10^5 units of work */
    double want = (double)count * work / 1e5;
    part *parts = NULL;
    if (want < (double)nt)
        nt = want < 1 ? 1 : (int)want;
    if ((size_t)nt > count)
        nt = count ? (int)count : 1;
    if (nt > 1)
        parts = calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) {   /* one thread, or no memory for the split */
        unsigned f = 0;
        rc = fn(arg, 0, count, &f);
        *flags |= f;
        return rc ? -1 : 0;
    }
    for (int i = 0; i < nt; i++) {
        parts[i].fn = fn;
        parts[i].arg = arg;
        parts[i].lo = count / (size_t)nt * (size_t)i +
                      ((size_t)i < count % (size_t)nt ? (size_t)i : count % (size_t)nt);
        parts[i].hi = parts[i].lo + count / (size_t)nt +
                      ((size_t)i < count % (size_t)nt);
    }
    ref_fan_out(parts, sizeof *parts, nt, worker);
    for (int i = 0; i < nt; i++) {
        *flags |= parts[i].flags;
        rc |= parts[i].rc;
    }
    free(parts);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * The accelerated kernels, by the seam's level (src/accel/accel.h): the
 * integer tensor-core blocks (accel/ref_tcfast.c) or native binary32 arithmetic
 * (accel/ref_native.c), both proven equal to the generic path by the test ref_fast.
 * Nothing at the level generic, nor for the exact order.  A GEMM when
 * j->s is set, else rows of dot products.  0: done; 1: not taken (the
 * generic path runs, *flags untouched); -1: out of memory.
 * ---------------------------------------------------------------------- */
int ref_fast(const ref_ctx *rc, const ref_fast_job *j, int nthreads,
             unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    ref_fast_gemm_fn *gemm = ref_native_gemm;
    ref_fast_rows_fn *rows = ref_native_rows;
    if (fl__accel_level() == FL__CPU_GENERIC || m->order == FL_REF_EXACT)
        return 1;
    if (m->tc.on) {
        if (!ref_tcfast_applicable(rc))
            return 1;
        gemm = ref_tcfast_gemm;
        rows = ref_tcfast_dot;
    }
    return j->s ? gemm(rc, j->s, j->a, j->b, j->c, j->out, nthreads, flags)
                : rows(rc, j->a, j->b, j->rows, j->out, nthreads, flags);
}

/* The fast path for a sum, dot or GEMM whose context rc is set up.
 * 0: done (its flags ORed into *flags, rc freed); 1: not taken (rc kept
 * for the generic path); -1: out of memory (rc freed, err says so). */
static int run_fast(ref_ctx *rc, const ref_fast_job *fj, int nthreads,
                    unsigned *flags, char *err, size_t errlen)
{
    unsigned f = 0;
    const int done = ref_fast(rc, fj, nthreads, &f);
    if (done == 1)
        return 1;
    ref_ctx_free(rc);
    if (done < 0) {
        ref_set_err(err, errlen, "out of memory");
        return -1;
    }
    if (flags)
        *flags |= f & FL_IEEE_FLAGS;
    return 0;
}

/* The end of a generic run: rc freed; r, ref_parallel's answer, and f,
 * the flags it raised, become the return value and *flags. */
static int run_finish(ref_ctx *rc, int r, unsigned f, unsigned *flags,
                      char *err, size_t errlen)
{
    ref_ctx_free(rc);
    if (r != 0) {
        ref_set_err(err, errlen, "out of memory");
        return -1;
    }
    if (flags)
        *flags |= f & FL_IEEE_FLAGS;
    return 0;
}

/* ------------------------------------------------------------------------
 * The generic path's element, shared by sum, dot and GEMM.
 * ---------------------------------------------------------------------- */
/* A worker's tools: the exact evaluator (order=exact), else the
 * accumulator's scratch (none for the tensor-core model). */
typedef struct gen_tools {
    ref_fx *fx;
    uint64_t *scratch;
} gen_tools;

/* 0, or -1 when out of memory (nothing held). */
static int gen_open(const ref_ctx *rc, gen_tools *g)
{
    g->fx = NULL;
    g->scratch = NULL;
    if (rc->m->order == FL_REF_EXACT) {
        g->fx = ref_fx_new(rc);
        if (g->fx == NULL)
            return -1;
    } else if (!rc->m->tc.on) {
        g->scratch = malloc((rc->plan.nnodes + 1) * sizeof *g->scratch);
        if (g->scratch == NULL)
            return -1;
    }
    return 0;
}

static void gen_close(gen_tools *g)
{
    free(g->scratch);
    ref_fx_free(g->fx);
}

/* Output element e of terms t and C value cval (NULL: none). */
static uint64_t gen_element(const ref_ctx *rc, gen_tools *g, const ref_terms *t,
                            const uint64_t *cval, size_t e, unsigned *flags)
{
    uint64_t u = 0, acc;
    if (g->fx)
        return ref_exact_element(rc, g->fx, t, cval, flags);
    if (rc->m->epilogue == FL_REF_EPI_INIT)
        u = ref_init_value(rc, cval, e, flags);
    acc = rc->m->tc.on ? ref_eval_tc(rc, t, u, e, flags)
                       : ref_eval_acc(rc, t, u, e, g->scratch, flags);
    return ref_epilogue(rc, acc, cval, e, flags);
}

/* ------------------------------------------------------------------------
 * sum and dot: rows of terms.
 * ---------------------------------------------------------------------- */
typedef struct rows_job {
    const ref_ctx *rc;
    const uint64_t *a, *b;
    uint64_t *out;
} rows_job;

static int rows_generic(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const rows_job *j = arg;
    const ref_ctx *rc = j->rc;
    const size_t n = rc->n;
    gen_tools g;
    if (gen_open(rc, &g) != 0)
        return -1;
    for (size_t r = lo; r < hi; r++) {
        ref_terms t;
        t.a = j->a + r * n;
        t.b = j->b ? j->b + r * n : NULL;
        t.sa = t.sb = 1;
        j->out[r] = gen_element(rc, &g, &t, NULL, r, flags);
    }
    gen_close(&g);
    return 0;
}

static int rows_run(const fl_ref_model *m, fl_ref_op op, const uint64_t *a,
                    const uint64_t *b, size_t rows, size_t n, uint64_t *out,
                    int nthreads, unsigned *flags, char *err, size_t errlen)
{
    ref_ctx rc;
    rows_job job;
    unsigned f = 0;
    int r;
    if (ref_ctx_init(&rc, m, op, n, err, errlen) != 0)
        return -1;
    if (rows == 0) {
        ref_ctx_free(&rc);
        return 0;
    }
    {
        ref_fast_job fj = { NULL, a, b, NULL, out, rows };
        const int done = run_fast(&rc, &fj, nthreads, flags, err, errlen);
        if (done != 1)
            return done;
    }
    job.rc = &rc;
    job.a = a;
    job.b = b;
    job.out = out;
    r = ref_parallel(rows, (double)(n + 1) * 20, nthreads, rows_generic, &job, &f);
    return run_finish(&rc, r, f, flags, err, errlen);
}

int fl_ref_sum(const fl_ref_model *m, const uint64_t *x, size_t rows,
               size_t n, uint64_t *out, int nthreads, unsigned *flags,
               char *err, size_t errlen)
{
    return rows_run(m, FL_REF_OP_SUM, x, NULL, rows, n, out, nthreads, flags,
                    err, errlen);
}

int fl_ref_dot(const fl_ref_model *m, const uint64_t *a, const uint64_t *b,
               size_t rows, size_t n, uint64_t *out, int nthreads,
               unsigned *flags, char *err, size_t errlen)
{
    return rows_run(m, FL_REF_OP_DOT, a, b, rows, n, out, nthreads, flags, err,
                    errlen);
}

/* ------------------------------------------------------------------------
 * GEMM.
 * ---------------------------------------------------------------------- */
void fl_ref_gemm_shape_init(fl_ref_gemm_shape *s, int ta, int tb,
                            size_t batch, size_t m, size_t n, size_t k)
{
    *s = (fl_ref_gemm_shape){
        .ta = ta, .tb = tb, .batch = batch, .m = m, .n = n, .k = k,
        .lda = ta ? m : k, .ldb = tb ? k : n, .ldc = n, .ldd = n,
        .stride_a = m * k, .stride_b = k * n,
        .stride_c = m * n, .stride_d = m * n,
    };
}

typedef struct gemm_job {
    const ref_ctx *rc;
    const fl_ref_gemm_shape *s;
    const uint64_t *A, *B, *C;
    uint64_t *D;
    const uint64_t *Bt;   /* op(B)^T per batch matrix (n x k), or NULL */
    size_t bt_stride;     /* its batch stride (0: one matrix) */
} gemm_job;

static int gemm_generic(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const gemm_job *j = arg;
    const ref_ctx *rc = j->rc;
    const fl_ref_gemm_shape *s = j->s;
    const size_t mn = s->m * s->n;
    gen_tools g;
    if (gen_open(rc, &g) != 0)
        return -1;
    for (size_t e = lo; e < hi; e++) {
        size_t bi = e / mn, rem = e % mn, i = rem / s->n, jj = rem % s->n;
        const uint64_t *cval = NULL;
        uint64_t *d = j->D + bi * s->stride_d + i * s->ldd + jj;
        ref_terms t;
        if (j->C)
            cval = j->C + bi * s->stride_c + i * s->ldc + jj;
        t.a = j->A + bi * s->stride_a + (s->ta ? i : i * s->lda);
        t.sa = s->ta ? (ptrdiff_t)s->lda : 1;
        if (j->Bt) {
            t.b = j->Bt + bi * j->bt_stride + jj * s->k;
            t.sb = 1;
        } else {
            t.b = j->B + bi * s->stride_b + (s->tb ? jj * s->ldb : jj);
            t.sb = s->tb ? 1 : (ptrdiff_t)s->ldb;
        }
        *d = gen_element(rc, &g, &t, cval, e, flags);
    }
    gen_close(&g);
    return 0;
}

static int shape_check(const fl_ref_gemm_shape *s, const uint64_t *C,
                       int beta_zero, char *err, size_t errlen)
{
    size_t acols = s->ta ? s->m : s->k, bcols = s->tb ? s->k : s->n;
    if (s->batch == 0 || s->m == 0 || s->n == 0)
        return 0;
    if (s->k > 0 && s->lda < acols) {
        ref_set_err(err, errlen, "gemm: lda %zu < %zu columns of A", s->lda, acols);
        return -1;
    }
    if (s->k > 0 && s->ldb < bcols) {
        ref_set_err(err, errlen, "gemm: ldb %zu < %zu columns of B", s->ldb, bcols);
        return -1;
    }
    if (s->ldd < s->n || (C && s->ldc < s->n)) {
        ref_set_err(err, errlen, "gemm: ldc/ldd below n = %zu", s->n);
        return -1;
    }
    if (C == NULL && !beta_zero) {
        ref_set_err(err, errlen, "gemm: beta is not zero but there is no C");
        return -1;
    }
    return 0;
}

int fl_ref_gemm(const fl_ref_model *m, const fl_ref_gemm_shape *s,
                uint64_t alpha, const uint64_t *A, const uint64_t *B,
                uint64_t beta, const uint64_t *C, uint64_t *D, int nthreads,
                unsigned *flags, char *err, size_t errlen)
{
    ref_ctx rc;
    gemm_job job;
    unsigned f = 0;
    uint64_t *Bt = NULL;
    size_t count;
    int r;

    if (ref_ctx_init(&rc, m, FL_REF_OP_GEMM, s->k, err, errlen) != 0)
        return -1;
    rc.alpha_one = alpha == rc.alpha;
    rc.alpha = alpha;
    rc.beta = beta;
    rc.beta_zero = (beta & ~m->acc.sign_mask) == 0;
    if (shape_check(s, C, rc.beta_zero, err, errlen) != 0) {
        ref_ctx_free(&rc);
        return -1;
    }
    if (rc.beta_zero)
        C = NULL;   /* BLAS: beta = 0 means C is not read */
    count = s->batch * s->m * s->n;
    if (count == 0) {
        ref_ctx_free(&rc);
        return 0;
    }
    {
        ref_fast_job fj = { s, A, B, C, D, 0 };
        const int done = run_fast(&rc, &fj, nthreads, flags, err, errlen);
        if (done != 1)
            return done;
    }
    memset(&job, 0, sizeof job);
    /* op(B)'s columns as contiguous rows: the generic path reads each
     * column k times over; a transposed copy keeps that in cache. */
    if (!s->tb && s->k > 1 && s->n > 1) {
        size_t nb = s->stride_b ? s->batch : 1;
        Bt = malloc(nb * s->n * s->k * sizeof *Bt);
        if (Bt != NULL) {
            for (size_t bi = 0; bi < nb; bi++) {
                const uint64_t *src = B + bi * s->stride_b;
                uint64_t *dst = Bt + bi * s->n * s->k;
                for (size_t l = 0; l < s->k; l++)
                    for (size_t jj = 0; jj < s->n; jj++)
                        dst[jj * s->k + l] = src[l * s->ldb + jj];
            }
            job.Bt = Bt;
            job.bt_stride = s->stride_b ? s->n * s->k : 0;
        }
    }
    job.rc = &rc;
    job.s = s;
    job.A = A;
    job.B = B;
    job.C = C;
    job.D = D;
    r = ref_parallel(count, (double)(s->k + 1) * 20, nthreads, gemm_generic,
                     &job, &f);
    free(Bt);
    return run_finish(&rc, r, f, flags, err, errlen);
}
