/*
 * ref_native.c — the binary32 sequential model on the host's own binary32
 * arithmetic: GEMM vectorised across output columns, sum and dot across
 * rows.
 *
 * Why this is the model, bit for bit.  The model (in = acc = out =
 * binary32, acc-rm = rne, order = sequential, no ftz/daz/saturate,
 * tininess after rounding) defines every step as an IEEE 754 operation on
 * binary32: round(a*b), round(x+y) or round(a*b+c), each the exact result
 * rounded once to nearest-even.  SSE/AVX binary32 instructions compute
 * exactly these (IEEE 754-2008 5.4.1; Intel SDM vol. 1, 4.8 and 11.5)
 * in the MXCSR rounding mode, which each worker sets to nearest-even with
 * flush-to-zero and denormals-are-zero off for the duration; the compiler
 * may not contract a*b+c (-ffp-contract=off on this library) nor
 * reassociate (no -ffast-math); and the loops run over the summation
 * index in order, with SIMD lanes holding DIFFERENT output elements, so
 * each element's operations are the model's, in the model's order.  The
 * five IEEE flags are MXCSR's PE UE OE ZE IE (DE is not an IEEE flag);
 * x86 detects tininess after rounding and raises underflow only when the
 * result is also inexact, as the model's tininess=after does.
 * What may differ is which NaN a NaN result carries: hardware returns its
 * first source operand's NaN, and the compiler may swap the operands of a
 * commutative + or *.  NaN is absorbing (once an accumulator is NaN it
 * stays NaN), so every element whose result is a NaN is recomputed by the
 * generic path; its flags are the same either way (the same operations
 * raise the same flags, NaN operands aside, which raise invalid exactly
 * when signaling, in both).  The test `ref_fast` proves all of this on
 * random inputs with subnormals, overflow, infinities and NaN payloads.
 */
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"
#include "accel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define REF_X86 1
#else
#define REF_X86 0
#endif

enum { LVL_NONE = 0, LVL_SSE2, LVL_AVX2, LVL_AVX512 };

/* The SIMD level: the seam's (src/accel/cpu.h; FPLAB_CPU caps it). */
static int simd_level(void)
{
    const int l = fl__accel_level();
#if REF_X86
    if (l >= FL__CPU_AVX512) {
#if defined(FPLAB_AVX512)
        return LVL_AVX512;
#else
        return LVL_AVX2;
#endif
    }
    return l >= FL__CPU_AVX2 ? LVL_AVX2 : l >= FL__CPU_SCALAR ? LVL_SSE2 : LVL_NONE;
#else
    (void)l;
    return LVL_NONE;
#endif
}

static int applicable(const ref_ctx *rc)
{
    const fl_ref_model *m = rc->m;
    int lvl = simd_level();
    if (lvl == LVL_NONE || m->tc.on || m->order != FL_REF_SEQUENTIAL)
        return 0;
    if (!fl_format_same(&m->in, &fl_binary32) ||
        !fl_format_same(&m->acc, &fl_binary32) || !rc->out_is_acc)
        return 0;
    if (m->acc_rm != FL_RNE || m->ftz || m->daz || m->saturate ||
        m->tininess != FL_TINY_AFTER)
        return 0;
    /* fused products need a hardware fma */
    if (m->products == FL_REF_PRODUCTS_FUSED && rc->op != FL_REF_OP_SUM &&
        lvl < LVL_AVX2)
        return 0;
    return 1;
}

#if REF_X86
/* MXCSR: flags 0..5 (IE DE ZE OE UE PE), DAZ 6, masks 7..12, RC 13..14,
 * FTZ 15.  0x1F80: every exception masked, nearest-even, no FTZ/DAZ,
 * flags clear. */
static unsigned csr_begin(void)
{
    unsigned saved = _mm_getcsr();
    _mm_setcsr(0x1F80);
    return saved;
}

static unsigned csr_end(unsigned saved)
{
    unsigned x = _mm_getcsr(), f = 0;
    _mm_setcsr(saved);
    if (x & 0x01) f |= FL_INVALID;
    if (x & 0x04) f |= FL_DIVBYZERO;
    if (x & 0x08) f |= FL_OVERFLOW;
    if (x & 0x10) f |= FL_UNDERFLOW;
    if (x & 0x20) f |= FL_INEXACT;
    return f;
}
#endif

static inline float f32(uint64_t b)
{
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint64_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ------------------------------------------------------------------------
 * GEMM micro-kernels.  d (ldd) holds the accumulators of rows r < R and
 * 64 columns; a holds op(A)'s rows (lda), b the panel of op(B) (ldb,
 * 64 columns).  Terms l in [l0, l1): first != 0 means the accumulator
 * starts as the product of term l0 (the sequential tree's lone first
 * leaf: round(a*b) even when fused), else it is loaded from d.
 * Each is a separate, not inlined function: the MXCSR reads around them
 * see all of their arithmetic.
 * ---------------------------------------------------------------------- */
#define PANEL 64
#define KC 256

#if REF_X86
/* Both widths from one body: VT is the vector type, MM its intrinsics'
 * prefix, LANES its floats.  A row keeps NV vectors of accumulators and
 * the panel's 64 columns go in PANEL / (NV * LANES) strips: AVX-512 holds
 * 4 rows x 4 vectors in its 32 registers (one strip), AVX2 4 x 2 in its 16
 * (four strips). */
#define KGEMM(NAME, TARGET, VT, MM, LANES, NV, R, FMA)                         \
__attribute__((target(TARGET), noinline))                                      \
static void NAME(const float *a, size_t lda, const float *b, size_t ldb,       \
                 float *d, size_t ldd, size_t l0, size_t l1, int first)        \
{                                                                              \
    for (int q = 0; q < PANEL / ((NV) * (LANES)); q++) {                       \
        VT c[R][NV];                                                           \
        const float *bq = b + (NV) * (LANES) * q;                              \
        float *dq = d + (NV) * (LANES) * q;                                    \
        size_t l = l0;                                                         \
        if (first) {                                                           \
            for (int r = 0; r < R; r++) {                                      \
                VT av = MM##_set1_ps(a[r * lda + l]);                          \
                for (int v = 0; v < NV; v++)                                   \
                    c[r][v] = MM##_mul_ps(av, MM##_loadu_ps(bq + l * ldb + (LANES) * v)); \
            }                                                                  \
            l++;                                                               \
        } else {                                                               \
            for (int r = 0; r < R; r++)                                        \
                for (int v = 0; v < NV; v++)                                   \
                    c[r][v] = MM##_loadu_ps(dq + r * ldd + (LANES) * v);       \
        }                                                                      \
        for (; l < l1; l++) {                                                  \
            VT bv[NV];                                                         \
            for (int v = 0; v < NV; v++)                                       \
                bv[v] = MM##_loadu_ps(bq + l * ldb + (LANES) * v);             \
            for (int r = 0; r < R; r++) {                                      \
                VT av = MM##_set1_ps(a[r * lda + l]);                          \
                for (int v = 0; v < NV; v++)                                   \
                    c[r][v] = FMA ? MM##_fmadd_ps(av, bv[v], c[r][v])          \
                                  : MM##_add_ps(c[r][v], MM##_mul_ps(av, bv[v])); \
            }                                                                  \
        }                                                                      \
        for (int r = 0; r < R; r++)                                            \
            for (int v = 0; v < NV; v++)                                       \
                MM##_storeu_ps(dq + r * ldd + (LANES) * v, c[r][v]);           \
    }                                                                          \
}
#endif

#if REF_X86 && defined(FPLAB_AVX512)
/* AVX-512: the whole panel per call (4 rows x 4 vectors). */
#define K512(NAME, R, FMA) KGEMM(NAME, "avx512f", __m512, _mm512, 16, 4, R, FMA)
K512(k512_4r, 4, 0)
K512(k512_1r, 1, 0)
K512(k512_4f, 4, 1)
K512(k512_1f, 1, 1)
#endif

#if REF_X86
/* AVX2: 16 columns per strip (4 rows x 2 vectors), four strips a panel. */
#define K256(NAME, R, FMA) KGEMM(NAME, "avx2,fma", __m256, _mm256, 8, 2, R, FMA)
K256(k256_4r, 4, 0)
K256(k256_1r, 1, 0)
K256(k256_4f, 4, 1)
K256(k256_1f, 1, 1)

/* SSE2 (every x86-64): rounded products only. */
__attribute__((noinline))
static void ksse_1r(const float *a, size_t lda, const float *b, size_t ldb,
                    float *d, size_t ldd, size_t l0, size_t l1, int first)
{
    (void)lda;
    (void)ldd;
    for (int q = 0; q < PANEL / 4; q++) {
        __m128 c;
        size_t l = l0;
        if (first) {
            c = _mm_mul_ps(_mm_set1_ps(a[l]), _mm_loadu_ps(b + l * ldb + 4 * q));
            l++;
        } else {
            c = _mm_loadu_ps(d + 4 * q);
        }
        for (; l < l1; l++)
            c = _mm_add_ps(c, _mm_mul_ps(_mm_set1_ps(a[l]),
                                         _mm_loadu_ps(b + l * ldb + 4 * q)));
        _mm_storeu_ps(d + 4 * q, c);
    }
}
#endif

typedef void (*kern_fn)(const float *, size_t, const float *, size_t, float *,
                        size_t, size_t, size_t, int);

typedef struct ngemm {
    const ref_ctx *rc;
    const fl_ref_gemm_shape *s;
    const uint64_t *A, *B, *C;
    uint64_t *D;
    float *Af, *Bf, *Df;      /* op(A) (m x k), op(B) (k x npad), acc */
    size_t afs, bfs;          /* batch strides of Af, Bf (0: shared) */
    size_t npad, rb, nrb, npan;
    kern_fn k4, k1;
} ngemm;

#define ROWBLOCK 32

/* Tile t: batch matrix bi, rows [i0, i1) (a row block), columns [j0, j1)
 * (a panel). */
static void ngemm_tile(const ngemm *g, size_t t, size_t *bi, size_t *i0,
                       size_t *i1, size_t *j0, size_t *j1)
{
    const size_t per = g->nrb * g->npan, rem = t % per;
    const size_t M = g->s->m, N = g->s->n;
    *bi = t / per;
    *i0 = rem / g->npan * g->rb;
    *j0 = rem % g->npan * PANEL;
    *i1 = *i0 + g->rb < M ? *i0 + g->rb : M;
    *j1 = *j0 + PANEL < N ? *j0 + PANEL : N;
}

static int ngemm_range(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const ngemm *g = arg;
    const ref_ctx *rc = g->rc;
    const fl_ref_gemm_shape *s = g->s;
    const size_t K = s->k, M = s->m, N = s->n, npad = g->npad;
    const int init = rc->m->epilogue == FL_REF_EPI_INIT;
    uint64_t *scratch = NULL;
    unsigned f = 0;

    /* the start values of epilogue=init (generic: beta*C in acc) */
    if (init)
        for (size_t t = lo; t < hi; t++) {
            size_t bi, i0, i1, j0, j1;
            ngemm_tile(g, t, &bi, &i0, &i1, &j0, &j1);
            for (size_t i = i0; i < i1; i++)
                for (size_t j = j0; j < j1; j++) {
                    const uint64_t *cv = g->C ? g->C + bi * s->stride_c + i * s->ldc + j : NULL;
                    size_t e = (bi * M + i) * N + j;
                    g->Df[(bi * M + i) * npad + j] = f32(ref_init_value(rc, cv, e, flags));
                }
        }
#if REF_X86
    {
        unsigned saved = csr_begin();
        for (size_t t = lo; t < hi; t++) {
            size_t bi, i0, i1, j0, j1;
            ngemm_tile(g, t, &bi, &i0, &i1, &j0, &j1);
            const float *a = g->Af + bi * g->afs;
            const float *b = g->Bf + bi * g->bfs + j0;
            float *d = g->Df + bi * M * npad + j0;
            for (size_t l0 = 0; l0 < K; l0 += KC) {
                size_t l1 = l0 + KC < K ? l0 + KC : K;
                int first = l0 == 0 && !init;
                size_t i = i0;
                for (; g->k4 && i + 4 <= i1; i += 4)
                    g->k4(a + i * K, K, b, npad, d + i * npad, npad, l0, l1, first);
                for (; i < i1; i++)
                    g->k1(a + i * K, K, b, npad, d + i * npad, npad, l0, l1, first);
            }
        }
        f = csr_end(saved);
    }
#endif
    *flags |= f;

    /* epilogue; NaN results again through the generic path */
    for (size_t t = lo; t < hi; t++) {
        size_t bi, i0, i1, j0, j1;
        ngemm_tile(g, t, &bi, &i0, &i1, &j0, &j1);
        for (size_t i = i0; i < i1; i++)
            for (size_t j = j0; j < j1; j++) {
                size_t e = (bi * M + i) * N + j;
                const uint64_t *cv = g->C ? g->C + bi * s->stride_c + i * s->ldc + j : NULL;
                uint64_t acc = bits32(g->Df[(bi * M + i) * npad + j]);
                if ((acc & 0x7FFFFFFFu) > 0x7F800000u) {
                    ref_terms tm;
                    uint64_t u = 0;
                    if (scratch == NULL) {
                        scratch = malloc((rc->plan.nnodes + 1) * sizeof *scratch);
                        if (scratch == NULL)
                            return -1;
                    }
                    tm.a = g->A + bi * s->stride_a + (s->ta ? i : i * s->lda);
                    tm.sa = s->ta ? (ptrdiff_t)s->lda : 1;
                    tm.b = g->B + bi * s->stride_b + (s->tb ? j * s->ldb : j);
                    tm.sb = s->tb ? 1 : (ptrdiff_t)s->ldb;
                    if (init)
                        u = ref_init_value(rc, cv, e, flags);
                    acc = ref_eval_acc(rc, &tm, u, e, scratch, flags);
                }
                g->D[bi * s->stride_d + i * s->ldd + j] = ref_epilogue(rc, acc, cv, e, flags);
            }
    }
    free(scratch);
    return 0;
}

int ref_native_gemm(const ref_ctx *rc, const fl_ref_gemm_shape *s,
                    const uint64_t *A, const uint64_t *B, const uint64_t *C,
                    uint64_t *D, int nthreads, unsigned *flags)
{
    ngemm g;
    int lvl, fused, rc_;
    size_t nba, nbb;
    if (!applicable(rc) || s->k == 0)
        return 1;
    lvl = simd_level();
    fused = rc->m->products == FL_REF_PRODUCTS_FUSED;
    g = (ngemm){.rc = rc, .s = s, .A = A, .B = B, .C = C, .D = D};
#if REF_X86
#if defined(FPLAB_AVX512)
    if (lvl == LVL_AVX512) {
        g.k4 = fused ? k512_4f : k512_4r;
        g.k1 = fused ? k512_1f : k512_1r;
    } else
#endif
    if (lvl >= LVL_AVX2) {
        g.k4 = fused ? k256_4f : k256_4r;
        g.k1 = fused ? k256_1f : k256_1r;
    } else {
        g.k4 = NULL;      /* SSE2: one row per call */
        g.k1 = ksse_1r;
    }
#endif
    if (g.k1 == NULL)
        return 1;
    g.npad = (s->n + PANEL - 1) / PANEL * PANEL;
    nba = s->stride_a ? s->batch : 1;
    nbb = s->stride_b ? s->batch : 1;
    g.afs = s->stride_a ? s->m * s->k : 0;
    g.bfs = s->stride_b ? s->k * g.npad : 0;
    g.Af = malloc(nba * s->m * s->k * sizeof *g.Af);
    g.Bf = malloc(nbb * s->k * g.npad * sizeof *g.Bf);
    g.Df = malloc(s->batch * s->m * g.npad * sizeof *g.Df);
    if (g.Af == NULL || g.Bf == NULL || g.Df == NULL) {
        free(g.Af);
        free(g.Bf);
        free(g.Df);
        return 1;   /* too big for copies: the generic path needs none */
    }
    /* The columns beyond n that fill the last panel hold a quiet NaN (and
     * so do their accumulators): qNaN*x and qNaN+x raise no flag for any
     * x but a signaling NaN, which then also meets the real columns.  A
     * zero there would raise invalid against an infinite a. */
    {
        const float qnan = f32(0x7FC00000u);
        for (size_t q = 0; q < nbb * s->k * g.npad; q++)
            g.Bf[q] = qnan;
        for (size_t q = 0; q < s->batch * s->m * g.npad; q++)
            g.Df[q] = qnan;
    }
    /* op(A) and op(B) as floats, row-major (exact: bit copies) */
    for (size_t bi = 0; bi < nba; bi++) {
        const uint64_t *src = A + bi * s->stride_a;
        float *dst = g.Af + bi * s->m * s->k;
        for (size_t i = 0; i < s->m; i++)
            for (size_t l = 0; l < s->k; l++)
                dst[i * s->k + l] = f32(s->ta ? src[l * s->lda + i] : src[i * s->lda + l]);
    }
    for (size_t bi = 0; bi < nbb; bi++) {
        const uint64_t *src = B + bi * s->stride_b;
        float *dst = g.Bf + bi * s->k * g.npad;
        for (size_t l = 0; l < s->k; l++)
            for (size_t j = 0; j < s->n; j++)
                dst[l * g.npad + j] = f32(s->tb ? src[j * s->ldb + l] : src[l * s->ldb + j]);
    }
    g.rb = ROWBLOCK;
    g.nrb = (s->m + g.rb - 1) / g.rb;
    g.npan = g.npad / PANEL;
    rc_ = ref_parallel(s->batch * g.nrb * g.npan,
                       (double)g.rb * PANEL * (double)s->k / 8, nthreads,
                       ngemm_range, &g, flags);
    free(g.Af);
    free(g.Bf);
    free(g.Df);
    return rc_ != 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * sum and dot: eight rows at a time, each row's terms in order.
 * ---------------------------------------------------------------------- */
typedef struct nrows {
    const ref_ctx *rc;
    const uint64_t *a, *b;
    uint64_t *out;
    float *acc;
} nrows;

#if REF_X86
/* Both kernels' body: rows r0..r1 of n terms into acc, starting from u
 * (else from the first term, a product rounded even when fused).  fused
 * (a constant where it is inlined) adds each later product with one
 * rounding (b not NULL); else a product rounded, then added, or a term
 * alone (b NULL). */
static inline __attribute__((always_inline))
void rows_body(const uint64_t *a, const uint64_t *b, size_t n, size_t r0,
               size_t r1, float *acc, const float *u, int fused)
{
    for (size_t r = r0; r < r1; r += 8) {
        size_t cnt = r1 - r < 8 ? r1 - r : 8;
        float s[8];
        size_t l = 0;
        if (u) {
            for (size_t q = 0; q < cnt; q++)
                s[q] = u[r + q - r0];
        } else {
            for (size_t q = 0; q < cnt; q++) {
                const size_t o = (r + q) * n;
                s[q] = b ? f32(a[o]) * f32(b[o]) : f32(a[o]);
            }
            l = 1;
        }
        for (; l < n; l++)
            for (size_t q = 0; q < cnt; q++) {
                const size_t o = (r + q) * n + l;
                s[q] = fused ? __builtin_fmaf(f32(a[o]), f32(b[o]), s[q])
                     : b ? s[q] + f32(a[o]) * f32(b[o]) : s[q] + f32(a[o]);
            }
        for (size_t q = 0; q < cnt; q++)
            acc[r + q - r0] = s[q];
    }
}

__attribute__((noinline))
static void rows_kernel(const uint64_t *a, const uint64_t *b, size_t n,
                        size_t r0, size_t r1, float *acc, const float *u)
{
    rows_body(a, b, n, r0, r1, acc, u, 0);
}

__attribute__((target("fma"), noinline))
static void rows_kernel_fma(const uint64_t *a, const uint64_t *b, size_t n,
                            size_t r0, size_t r1, float *acc, const float *u)
{
    rows_body(a, b, n, r0, r1, acc, u, 1);
}
#endif

static int nrows_range(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const nrows *g = arg;
    const ref_ctx *rc = g->rc;
    const size_t n = rc->n;
    const int init = rc->m->epilogue == FL_REF_EPI_INIT;
    float *acc = g->acc + lo, *u = NULL;
    uint64_t *scratch = NULL;
    if (init) {
        u = malloc((hi - lo) * sizeof *u);
        if (u == NULL)
            return -1;
        for (size_t r = lo; r < hi; r++)
            u[r - lo] = f32(ref_init_value(rc, NULL, r, flags));
    }
#if REF_X86
    {
        unsigned saved = csr_begin();
        if (g->b && rc->m->products == FL_REF_PRODUCTS_FUSED)
            rows_kernel_fma(g->a, g->b, n, lo, hi, acc, u);
        else
            rows_kernel(g->a, g->b, n, lo, hi, acc, u);
        *flags |= csr_end(saved);
    }
#endif
    for (size_t r = lo; r < hi; r++) {
        uint64_t v = bits32(acc[r - lo]);
        if ((v & 0x7FFFFFFFu) > 0x7F800000u) {
            ref_terms t;
            if (scratch == NULL) {
                scratch = malloc((rc->plan.nnodes + 1) * sizeof *scratch);
                if (scratch == NULL) {
                    free(u);
                    return -1;
                }
            }
            t.a = g->a + r * n;
            t.b = g->b ? g->b + r * n : NULL;
            t.sa = t.sb = 1;
            v = ref_eval_acc(rc, &t, init ? ref_init_value(rc, NULL, r, flags) : 0,
                             r, scratch, flags);
        }
        g->out[r] = ref_epilogue(rc, v, NULL, r, flags);
    }
    free(scratch);
    free(u);
    return 0;
}

int ref_native_rows(const ref_ctx *rc, const uint64_t *a, const uint64_t *b,
                    size_t rows, uint64_t *out, int nthreads, unsigned *flags)
{
    nrows g;
    int r;
    if (!applicable(rc) || rc->n == 0)
        return 1;
    g.rc = rc;
    g.a = a;
    g.b = b;
    g.out = out;
    g.acc = malloc(rows * sizeof *g.acc);
    if (g.acc == NULL)
        return 1;
    r = ref_parallel(rows, (double)rc->n, nthreads, nrows_range, &g, flags);
    free(g.acc);
    return r != 0 ? -1 : 0;
}
