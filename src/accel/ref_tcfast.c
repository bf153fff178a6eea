/*
 * ref_tcfast.c — the tensor-core block FMA (fl_tc_block_fma_ctx) on inputs
 * decoded once: every element of op(A) and op(B) becomes (exponent,
 * signed integer significand) before the GEMM, so a block is integer
 * multiplies, shifts and adds, and one rounding.
 *
 * Equal to the generic block by construction, step for step: the same
 * exact products of p-bit significands (p <= 12 here, so a product fits
 * in 24 bits), the same alignment exponents (ea+eb, +1 for a product of 2
 * or more under norm=products), the same window lsb L = emax - 23 - neab,
 * the same per-term cut (fl__tc_align_cut, tc_align.h, for both), the same
 * exact integer sum, the same zero result (+0, or -0 when every term is a
 * negative zero) and the same rounding: fl__round_pack, or round32()
 * below for a binary32 result in the normal range in rtz or rne, which is
 * that routine's arithmetic for exactly those cases.  Blocks whose c is an
 * infinity or NaN, and rows or columns holding one, go to the generic
 * block.  The AVX-512 block holds the 16 products of a block in the 16
 * lanes of a vector: every aligned term is below 2^(25+neab) (its value is
 * below 2^(emax+2) and the unit is 2^L), so with neab <= 2 and at most 16
 * terms the sum fits a signed 32-bit lane reduction exactly, and the order
 * of integer additions does not matter.  The test `ref_fast` checks value
 * and flags against the generic path.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"
#include "accel.h"
#include "tc_align.h"

#if defined(__x86_64__) && defined(FPLAB_AVX512)
#include <immintrin.h>
#define TC512 1
#else
#define TC512 0
#endif

int ref_tcfast_applicable(const ref_ctx *rc)
{
    const fl_ref_model *m = rc->m;
    return m->tc.on && m->in.prec <= 12 && m->in.ebits <= 8 &&
           m->acc.prec <= 24 && m->acc.ebits <= 8 && m->tc.neab <= 30;
}

/* Decode x into (e, m); returns 1 for an infinity or NaN. */
static inline int decode(const fl_format *f, uint64_t x, const fl_ctx *c,
                         int32_t *e, uint32_t *m)
{
    fl_unp u = fl__unpack(f, x, c);
    *m = (uint32_t)u.sign << 31;
    *e = 0;
    if (u.cls == FL_U_FINITE) {
        *m |= (uint32_t)(u.sig >> (64 - f->prec));
        *e = u.exp;
        return 0;
    }
    return u.cls != FL_U_ZERO;
}

/* sum * 2^L rounded to binary32 in rtz or rne when the result is normal
 * and finite (returns 1); otherwise 0 and nothing is touched.  The same
 * arithmetic as fl__round_pack restricted to those cases. */
static inline __attribute__((always_inline)) int round32(int64_t sum, int32_t L, int rm, uint64_t *out,
                          unsigned *flags)
{
    int s = sum < 0;
    uint64_t mag = s ? (uint64_t)(-sum) : (uint64_t)sum, sig;
    int top = 63 - fl__clz64(mag), drop = top - 23;
    int32_t E = L + top;
    int inexact = 0;
    if ((rm != FL_RTZ && rm != FL_RNE) || E < -126 || E > 127)
        return 0;
    if (drop <= 0) {
        sig = mag << -drop;
    } else {
        uint64_t rest = mag & ((((uint64_t)1) << drop) - 1);
        sig = mag >> drop;
        inexact = rest != 0;
        if (rm == FL_RNE) {
            uint64_t half = ((uint64_t)1) << (drop - 1);
            if (rest > half || (rest == half && (sig & 1))) {
                sig++;
                if (sig >> 24) {
                    sig >>= 1;
                    E++;
                    if (E > 127)
                        return 0;
                }
            }
        }
    }
    *out = ((uint64_t)s << 31) | ((uint64_t)(E + 127) << 23) | (sig & 0x7FFFFFu);
    if (inexact)
        *flags |= FL_INEXACT;
    return 1;
}

/* The c term: its magnitude, lsb and sign; returns -1 for inf/NaN, 0 for
 * a zero (sign in *zs), 1 for a finite nonzero c. */
static inline int c_term(const fl_format *af, uint64_t c, const fl_ctx *ctx,
                         uint64_t *mag, int32_t *lsb, int32_t *exp, int *sign)
{
    if (af->prec == 24 && af->ebits == 8) {
        uint32_t ef = (uint32_t)(c >> 23) & 0xFF;
        if (ef != 0 && ef != 0xFF) {
            *mag = (c & 0x7FFFFFu) | 0x800000u;
            *exp = (int32_t)ef - 127;
            *lsb = *exp - 23;
            *sign = (int)(c >> 31) & 1;
            return 1;
        }
    }
    {
        fl_unp u = fl__unpack(af, c, ctx);
        *sign = u.sign;
        if (u.cls >= FL_U_INF)
            return -1;
        if (u.cls == FL_U_ZERO)
            return 0;
        *mag = u.sig >> (64 - af->prec);
        *exp = u.exp;
        *lsb = u.exp - (af->prec - 1);
        return 1;
    }
}

/* Round the block's exact sum (or give its zero). */
static inline __attribute__((always_inline)) uint64_t
finish(const ref_ctx *rc, int64_t sum, int32_t L,
                              int cutf, const fl_ctx *ctx, unsigned *flags)
{
    const fl_format *af = &rc->m->acc;
    uint64_t r;
    if (sum == 0) {
        if (cutf)
            *flags |= FL_INEXACT;
        return 0;
    }
    if (!(af->prec == 24 && af->ebits == 8 && af->subnormals &&
          round32(sum, L, ctx->rm, &r, flags))) {
        int s = sum < 0;
        r = fl__round_pack(af, ctx, s, L + 63,
                           s ? (uint64_t)(-sum) : (uint64_t)sum, flags);
    }
    if (cutf)
        *flags |= FL_INEXACT;
    return r;
}

/* One block, scalar: c + sum a[t]*b[t], t < nb.  *special = 1 when c is
 * an infinity or NaN (nothing computed). */
static uint64_t block_scalar(const ref_ctx *rc, const int32_t *ae,
                             const uint32_t *am, const int32_t *be,
                             const uint32_t *bm, int nb, uint64_t c,
                             const fl_ctx *ctx, unsigned *flags, int *special)
{
    const fl_tc_model *tm = &rc->tcm;
    const int pin = tm->in->prec, norm = tm->norm == FL_TC_NORM_PRODUCTS;
    int32_t lsb[64], emax = INT32_MIN, L, clsb = 0, cexp = 0;
    uint32_t mag[64], sg[64];
    int allneg0 = 1, nt = 0, cutf = 0, csign = 0, ck;
    int64_t sum = 0;
    uint64_t cmag = 0;

    for (int t = 0; t < nb; t++) {
        uint32_t ma = am[t] & 0x7FFFFFFFu, mb = bm[t] & 0x7FFFFFFFu;
        uint32_t s = (am[t] ^ bm[t]) >> 31, p;
        int32_t et;
        if (ma == 0 || mb == 0) {
            allneg0 &= (int)s;
            continue;
        }
        p = ma * mb;
        et = ae[t] + be[t] + (norm && (p >> (2 * pin - 1)));
        lsb[nt] = ae[t] + be[t] - 2 * (pin - 1);
        mag[nt] = p;
        sg[nt] = s;
        if (et > emax)
            emax = et;
        nt++;
    }
    ck = c_term(&rc->m->acc, c, ctx, &cmag, &clsb, &cexp, &csign);
    if (ck < 0) {
        *special = 1;
        return 0;
    }
    if (ck == 0) {
        allneg0 &= csign;
        if (nt == 0)
            return allneg0 ? rc->m->acc.sign_mask : 0;
    } else if (cexp > emax) {
        emax = cexp;
    }
    L = emax - 23 - tm->neab;
    for (int t = 0; t < nt; t++) {
        int32_t sh = lsb[t] - L;
        uint64_t v = sh >= 0 ? (uint64_t)mag[t] << sh
                             : fl__tc_align_cut(tm->align, (int)sg[t], mag[t], -sh, &cutf);
        sum += sg[t] ? -(int64_t)v : (int64_t)v;
    }
    if (ck > 0) {
        int32_t sh = clsb - L;
        uint64_t v = sh >= 0 ? cmag << sh : fl__tc_align_cut(tm->align, csign, cmag, -sh, &cutf);
        sum += csign ? -(int64_t)v : (int64_t)v;
    }
    return finish(rc, sum, L, cutf, ctx, flags);
}

#if TC512
/* One block of at most 16 products in the lanes of a vector (align trunc,
 * neab <= 2: see the header comment for why the lane sum is exact). */
__attribute__((target("avx512f")))
static uint64_t block_512(const ref_ctx *rc, const int32_t *ae,
                          const uint32_t *am, const int32_t *be,
                          const uint32_t *bm, int nb, uint64_t c,
                          const fl_ctx *ctx, unsigned *flags, int *special)
{
    const fl_tc_model *tm = &rc->tcm;
    const int pin = tm->in->prec;
    const __mmask16 k = (__mmask16)((1u << nb) - 1);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i absm = _mm512_set1_epi32(0x7FFFFFFF);
    __m512i vam = _mm512_maskz_loadu_epi32(k, am);
    __m512i vbm = _mm512_maskz_loadu_epi32(k, bm);
    __m512i vae = _mm512_maskz_loadu_epi32(k, ae);
    __m512i vbe = _mm512_maskz_loadu_epi32(k, be);
    __m512i ma = _mm512_and_si512(vam, absm), mb = _mm512_and_si512(vbm, absm);
    __mmask16 nz = _mm512_mask_test_epi32_mask(_mm512_test_epi32_mask(ma, ma), mb, mb);
    __mmask16 neg = _mm512_cmplt_epi32_mask(_mm512_xor_si512(vam, vbm), zero);
    __m512i p = _mm512_mullo_epi32(ma, mb);
    __m512i esum = _mm512_add_epi32(vae, vbe);
    __m512i et = tm->norm == FL_TC_NORM_PRODUCTS
                     ? _mm512_add_epi32(esum, _mm512_srli_epi32(p, (unsigned)(2 * pin - 1)))
                     : esum;
    int32_t emax = nz ? _mm512_mask_reduce_max_epi32(nz, et) : INT32_MIN;
    int32_t L, clsb = 0, cexp = 0;
    int allneg0 = nz == 0 && ((k & ~nz & ~neg) & 0xFFFF) == 0;
    int csign = 0, ck, cutf = 0;
    uint64_t cmag = 0;
    int64_t sum;

    ck = c_term(&rc->m->acc, c, ctx, &cmag, &clsb, &cexp, &csign);
    if (ck < 0) {
        *special = 1;
        return 0;
    }
    if (ck == 0) {
        if (nz == 0)
            return (allneg0 && csign) ? rc->m->acc.sign_mask : 0;
    } else if (cexp > emax) {
        emax = cexp;
    }
    L = emax - 23 - tm->neab;
    {
        __m512i sh = _mm512_sub_epi32(esum, _mm512_set1_epi32(2 * (pin - 1) + L));
        __mmask16 left = _mm512_cmpge_epi32_mask(sh, zero);
        __m512i nsh = _mm512_sub_epi32(zero, sh);
        __m512i vl = _mm512_sllv_epi32(p, sh);      /* sh >= 0: <= 3 + neab */
        __m512i vr = _mm512_srlv_epi32(p, nsh);     /* counts >= 32 give 0 */
        __m512i back = _mm512_sllv_epi32(vr, nsh);
        __mmask16 cutm = _mm512_mask_cmpneq_epi32_mask((__mmask16)(nz & ~left), back, p);
        __m512i v = _mm512_mask_blend_epi32(left, vr, vl);
        v = _mm512_maskz_mov_epi32(nz, v);
        v = _mm512_mask_sub_epi32(v, neg, zero, v);
        sum = _mm512_reduce_add_epi32(v);
        cutf = cutm != 0;
    }
    if (ck > 0) {
        int32_t sh = clsb - L;
        uint64_t v = sh >= 0 ? cmag << sh : fl__tc_align_cut(FL_TC_ALIGN_TRUNC, csign, cmag, -sh, &cutf);
        sum += csign ? -(int64_t)v : (int64_t)v;
    }
    return finish(rc, sum, L, cutf, ctx, flags);
}
#endif

/* Up to GROUP elements of one output row advance block by block in
 * lockstep: their chains are independent, so the processor overlaps them
 * (one element's blocks form a dependency chain through c). */
#define GROUP 4

typedef struct chain_in {
    const int32_t *ae, *be[GROUP];
    const uint32_t *am, *bm[GROUP];
    const ref_terms *raw[GROUP];
    uint64_t u[GROUP], e[GROUP];
    int g;
} chain_in;

#define CHAIN_GROUP(NAME, ATTR, BLOCK)                                          \
ATTR static void NAME(const ref_ctx *rc, const chain_in *in, uint64_t *acc,     \
                      unsigned *flags)                                          \
{                                                                               \
    const size_t n = rc->n, part = rc->tc_part ? rc->tc_part : 1;               \
    const size_t bs = (size_t)rc->tcm.block;                                    \
    const size_t nparts = (n + part - 1) / part;                                \
    const uint64_t nblocks = (nparts - 1) * ((part + bs - 1) / bs) +            \
                             ((n - (nparts - 1) * part) + bs - 1) / bs;         \
    const int init = rc->m->epilogue == FL_REF_EPI_INIT;                        \
    uint64_t total[GROUP], c[GROUP], blockno = 0;                               \
    fl_ctx cb = rc->cacc, ca = rc->cacc;                                        \
    cb.rm = (uint8_t)rc->m->tc.rm;                                              \
    for (size_t s = 0; s < nparts; s++) {                                       \
        size_t lo = s * part, hi = lo + part < n ? lo + part : n;               \
        for (int g = 0; g < in->g; g++)                                         \
            c[g] = (s == 0 && init) ? in->u[g] : 0;                             \
        for (size_t i = lo; i < hi; i += bs, blockno++) {                       \
            int nb = (int)(hi - i < bs ? hi - i : bs);                          \
            for (int g = 0; g < in->g; g++) {                                   \
                int special = 0;                                                \
                unsigned f = 0;                                                 \
                uint64_t r;                                                     \
                cb.sr_index = in->e[g] * rc->slots + n + blockno;               \
                r = BLOCK(rc, in->ae + i, in->am + i, in->be[g] + i,            \
                          in->bm[g] + i, nb, c[g], &cb, &f, &special);          \
                if (special) {                                                  \
                    const ref_terms *raw = in->raw[g];                          \
                    uint64_t ab[64], bb[64];                                    \
                    for (int t = 0; t < nb; t++) {                              \
                        ab[t] = raw->a[(ptrdiff_t)(i + (size_t)t) * raw->sa];   \
                        bb[t] = raw->b[(ptrdiff_t)(i + (size_t)t) * raw->sb];   \
                    }                                                           \
                    c[g] = fl_tc_block_fma_ctx(&rc->tcm, &rc->m->acc, ab, bb,   \
                                               nb, c[g], &cb, flags);           \
                } else {                                                        \
                    *flags |= f;                                                \
                    c[g] = r;                                                   \
                }                                                               \
            }                                                                   \
        }                                                                       \
        for (int g = 0; g < in->g; g++) {                                       \
            if (s == 0) {                                                       \
                total[g] = c[g];                                                \
            } else {                                                            \
                ca.sr_index = in->e[g] * rc->slots + n + nblocks + s - 1;       \
                total[g] = fl_add(&rc->m->acc, total[g], c[g], &ca, flags);     \
            }                                                                   \
        }                                                                       \
    }                                                                           \
    for (int g = 0; g < in->g; g++)                                             \
        acc[g] = total[g];                                                      \
}

CHAIN_GROUP(chain_scalar, , block_scalar)
#if TC512
CHAIN_GROUP(chain_512, __attribute__((target("avx512f"))), block_512)
#endif

typedef void (*chain_fn)(const ref_ctx *, const chain_in *, uint64_t *,
                         unsigned *);

static chain_fn pick_chain(const ref_ctx *rc)
{
#if TC512
    if (rc->tcm.block <= 16 && rc->tcm.neab <= 2 &&
        rc->tcm.align == FL_TC_ALIGN_TRUNC && fl__accel_simd() >= 2)
        return chain_512;
#endif
    (void)rc;
    return chain_scalar;
}

/* ------------------------------------------------------------------------
 * GEMM and dot.
 * ---------------------------------------------------------------------- */
typedef struct tjob {
    const ref_ctx *rc;
    const fl_ref_gemm_shape *s;      /* NULL for dot */
    const uint64_t *A, *B, *C;
    uint64_t *D;
    int32_t *Ae, *Be;                /* op(A) rows, op(B) columns (the
                                      * vector GEMM: rows of npad) */
    uint32_t *Am, *Bm;
    unsigned char *aspec, *bspec;    /* that row / column has inf or NaN */
    size_t ads, bds;                 /* batch strides in rows (0: shared) */
    chain_fn chain;                  /* NULL in the vector GEMM */
    size_t npad, ngroups;            /* the vector GEMM: op(B)'s row length
                                      * and its groups of 16 columns */
} tjob;

/* A job over the operands, every other field zero. */
static void tjob_init(tjob *j, const ref_ctx *rc, const fl_ref_gemm_shape *s,
                      const uint64_t *A, const uint64_t *B, const uint64_t *C,
                      uint64_t *D)
{
    *j = (tjob){.rc = rc, .s = s, .A = A, .B = B, .C = C, .D = D};
}

static void elem_terms(const tjob *j, size_t e, size_t *arow, size_t *bcol,
                       const uint64_t **cv, ref_terms *raw)
{
    const fl_ref_gemm_shape *s = j->s;
    const size_t K = j->rc->n;
    if (s) {
        size_t M = s->m, N = s->n;
        size_t bi = e / (M * N), rem = e % (M * N), i = rem / N, jj = rem % N;
        *arow = bi * j->ads + i;
        *bcol = bi * j->bds + jj;
        *cv = j->C ? j->C + bi * s->stride_c + i * s->ldc + jj : NULL;
        raw->a = j->A + bi * s->stride_a + (s->ta ? i : i * s->lda);
        raw->sa = s->ta ? (ptrdiff_t)s->lda : 1;
        raw->b = j->B + bi * s->stride_b + (s->tb ? jj * s->ldb : jj);
        raw->sb = s->tb ? 1 : (ptrdiff_t)s->ldb;
    } else {
        *arow = *bcol = e;
        *cv = NULL;
        raw->a = j->A + e * K;
        raw->b = j->B + e * K;
        raw->sa = raw->sb = 1;
    }
}

static void elem_store(const tjob *j, size_t e, const uint64_t *cv,
                       uint64_t acc, unsigned *flags)
{
    const fl_ref_gemm_shape *s = j->s;
    uint64_t r = ref_epilogue(j->rc, acc, cv, e, flags);
    if (s) {
        size_t M = s->m, N = s->n;
        size_t bi = e / (M * N), rem = e % (M * N);
        j->D[bi * s->stride_d + (rem / N) * s->ldd + rem % N] = r;
    } else {
        j->D[e] = r;
    }
}

static int tjob_range(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const tjob *j = arg;
    const ref_ctx *rc = j->rc;
    const size_t K = rc->n;
    const int init = rc->m->epilogue == FL_REF_EPI_INIT;
    size_t e = lo;
    while (e < hi) {
        chain_in in;
        ref_terms raw[GROUP];
        const uint64_t *cv[GROUP];
        size_t arow0 = 0, ee[GROUP];
        uint64_t acc[GROUP];
        in.g = 0;
        /* gather up to GROUP elements that share op(A)'s row */
        while (e < hi && in.g < GROUP) {
            size_t arow, bcol;
            int g = in.g;
            elem_terms(j, e, &arow, &bcol, &cv[g], &raw[g]);
            if (g > 0 && arow != arow0)
                break;
            if (j->aspec[arow] || j->bspec[bcol]) {
                /* infinities or NaN in the row or column: generic */
                uint64_t u = init ? ref_init_value(rc, cv[g], e, flags) : 0;
                elem_store(j, e, cv[g], ref_eval_tc(rc, &raw[g], u, e, flags), flags);
                e++;
                if (g == 0)
                    continue;
                break;
            }
            arow0 = arow;
            in.ae = j->Ae + arow * K;
            in.am = j->Am + arow * K;
            in.be[g] = j->Be + bcol * K;
            in.bm[g] = j->Bm + bcol * K;
            in.raw[g] = &raw[g];
            in.u[g] = init ? ref_init_value(rc, cv[g], e, flags) : 0;
            in.e[g] = e;
            ee[g] = e;
            in.g++;
            e++;
        }
        if (in.g == 0)
            continue;
        j->chain(rc, &in, acc, flags);
        for (int g = 0; g < in.g; g++)
            elem_store(j, ee[g], cv[g], acc[g], flags);
    }
    return 0;
}

/* Decode `rows` rows of K values: row r's value l is src[r*rs + l*ls]. */
static void decode_rows(const ref_ctx *rc, const uint64_t *src, size_t rows,
                        size_t rs, size_t ls, int32_t *de, uint32_t *dm,
                        unsigned char *spec)
{
    const size_t K = rc->n;
    for (size_t r = 0; r < rows; r++) {
        int sp = 0;
        for (size_t l = 0; l < K; l++)
            sp |= decode(&rc->m->in, src[r * rs + l * ls], &rc->cacc,
                         &de[r * K + l], &dm[r * K + l]);
        spec[r] = (unsigned char)sp;
    }
}

/* op(A) of each of the nba batch matrices (1 when they share one) as m
 * rows of K decoded terms, the GEMM kernels' common first step. */
static void decode_a(const ref_ctx *rc, const fl_ref_gemm_shape *s,
                     const uint64_t *A, size_t nba, int32_t *Ae, uint32_t *Am,
                     unsigned char *aspec)
{
    const size_t K = s->k;
    for (size_t bi = 0; bi < nba; bi++)
        decode_rows(rc, A + bi * s->stride_a, s->m, s->ta ? 1 : s->lda,
                    s->ta ? s->lda : 1, Ae + bi * s->m * K, Am + bi * s->m * K,
                    aspec + bi * s->m);
}

static void tjob_free(tjob *j)
{
    free(j->Ae);
    free(j->Am);
    free(j->Be);
    free(j->Bm);
    free(j->aspec);
    free(j->bspec);
}

/* The decoded operands' arrays for arows rows of op(A) and brows of op(B),
 * K terms each, with 64 bytes to spare at the end of every term array (the
 * vector loads); op(B)'s arrays zeroed when zero_b is set (the vector
 * GEMM's padding columns).  0, or -1 when out of memory (nothing held). */
static int tjob_alloc(tjob *j, size_t arows, size_t brows, size_t K,
                      int zero_b)
{
    const size_t be = brows * K * sizeof *j->Be + 64;
    const size_t bm = brows * K * sizeof *j->Bm + 64;
    j->Ae = malloc(arows * K * sizeof *j->Ae + 64);
    j->Am = malloc(arows * K * sizeof *j->Am + 64);
    j->Be = zero_b ? calloc(be, 1) : malloc(be);
    j->Bm = zero_b ? calloc(bm, 1) : malloc(bm);
    j->aspec = malloc(arows + 1);
    j->bspec = zero_b ? calloc(brows + 1, 1) : malloc(brows + 1);
    if (j->Ae && j->Am && j->Be && j->Bm && j->aspec && j->bspec)
        return 0;
    tjob_free(j);
    return -1;
}

/* ref_parallel of fn over count items of the job, then the job's arrays
 * released; 0, or -1 when a part ran out of memory. */
static int tjob_run(tjob *j, size_t count, double work, ref_range_fn fn,
                    int nthreads, unsigned *flags)
{
    const int r = ref_parallel(count, work, nthreads, fn, j, flags);
    tjob_free(j);
    return r != 0 ? -1 : 0;
}


#if TC512
/* ------------------------------------------------------------------------
 * GEMM with 16 output columns in the lanes of a vector.  Each lane runs
 * its own element's chain, block by block, exactly as block_scalar does
 * (the same products, alignment window, cut and integer sum; the c term
 * and the sum in 64-bit lanes, since c plus 16 products can exceed 2^31);
 * the rounding to binary32 is round32's arithmetic on 64-bit lanes.  A
 * lane leaves the vector arithmetic for block_scalar whenever the vector
 * form does not cover it: c subnormal, infinite or NaN; a block with no
 * nonzero product and a zero c (the sign of the zero result); a result
 * outside binary32's normal range.  Used for acc = binary32, rm = rtz or
 * rne, align = trunc, neab <= 2, blocks of at most 16.
 * ---------------------------------------------------------------------- */
__attribute__((target("avx512f,avx512cd")))
static __m512i vblock(const ref_ctx *rc, const int32_t *ae, const uint32_t *am,
                      const int32_t *be, const uint32_t *bm, size_t ldb, int nb,
                      __m512i c, __mmask16 active, __mmask16 *fb,
                      unsigned *flags)
{
    const fl_tc_model *tm = &rc->tcm;
    const int pin = tm->in->prec, norm = tm->norm == FL_TC_NORM_PRODUCTS;
    const int rne = rc->m->tc.rm == FL_RNE;
    const __m512i zero = _mm512_setzero_si512();
    const __m512i absm = _mm512_set1_epi32(0x7FFFFFFF);
    __m512i P[16], ES[16], emax = _mm512_set1_epi32(INT32_MIN), L, sum32 = zero;
    __mmask16 NZ[16], NEG[16], anynz = 0, cut = 0;
    __m512i ce = _mm512_and_si512(_mm512_srli_epi32(c, 23), _mm512_set1_epi32(0xFF));
    __mmask16 czero = _mm512_testn_epi32_mask(c, absm);
    __mmask16 cnorm = _mm512_cmpneq_epi32_mask(ce, zero) &
                      _mm512_cmpneq_epi32_mask(ce, _mm512_set1_epi32(0xFF));
    __m512i cexp = _mm512_sub_epi32(ce, _mm512_set1_epi32(127));
    __m512i cmag = _mm512_or_si512(_mm512_and_si512(c, _mm512_set1_epi32(0x7FFFFF)),
                                   _mm512_set1_epi32(0x800000));
    __mmask16 cneg = _mm512_cmplt_epi32_mask(c, zero);
    __mmask16 fall, res_ok;
    __m512i lo, hi, r;

    emax = _mm512_mask_mov_epi32(emax, cnorm, cexp);
    for (int t = 0; t < nb; t++) {
        uint32_t ma = am[t] & 0x7FFFFFFFu;
        __m512i vbm, mb, et;
        NZ[t] = 0;
        if (ma == 0)
            continue;
        vbm = _mm512_loadu_si512((const void *)(bm + (size_t)t * ldb));
        mb = _mm512_and_si512(vbm, absm);
        NZ[t] = _mm512_test_epi32_mask(mb, mb);
        NEG[t] = _mm512_cmplt_epi32_mask(_mm512_xor_si512(vbm, _mm512_set1_epi32((int)am[t])), zero);
        P[t] = _mm512_mullo_epi32(_mm512_set1_epi32((int)ma), mb);
        ES[t] = _mm512_add_epi32(_mm512_set1_epi32(ae[t]),
                                 _mm512_loadu_si512((const void *)(be + (size_t)t * ldb)));
        et = norm ? _mm512_add_epi32(ES[t], _mm512_srli_epi32(P[t], (unsigned)(2 * pin - 1)))
                  : ES[t];
        emax = _mm512_mask_max_epi32(emax, NZ[t], emax, et);
        anynz |= NZ[t];
    }
    L = _mm512_sub_epi32(emax, _mm512_set1_epi32(23 + tm->neab));
    for (int t = 0; t < nb; t++) {
        __m512i sh, nsh, vl, vr, v;
        __mmask16 left;
        if (NZ[t] == 0)
            continue;
        sh = _mm512_sub_epi32(ES[t], _mm512_add_epi32(L, _mm512_set1_epi32(2 * (pin - 1))));
        left = _mm512_cmpge_epi32_mask(sh, zero);
        nsh = _mm512_sub_epi32(zero, sh);
        vl = _mm512_sllv_epi32(P[t], sh);
        vr = _mm512_srlv_epi32(P[t], nsh);
        cut |= _mm512_mask_cmpneq_epi32_mask((__mmask16)(NZ[t] & ~left),
                                             _mm512_sllv_epi32(vr, nsh), P[t]);
        v = _mm512_maskz_mov_epi32(NZ[t], _mm512_mask_blend_epi32(left, vr, vl));
        sum32 = _mm512_add_epi32(sum32, _mm512_mask_sub_epi32(v, NEG[t], zero, v));
    }
    /* the c term, then the sum in 64-bit lanes */
    {
        __m512i csh = _mm512_sub_epi32(_mm512_sub_epi32(cexp, _mm512_set1_epi32(23)), L);
        __mmask16 cl = _mm512_cmpge_epi32_mask(csh, zero);
        __m512i ncsh = _mm512_sub_epi32(zero, csh);
        __m512i cr = _mm512_srlv_epi32(cmag, ncsh);
        __m512i cv = _mm512_mask_blend_epi32(cl, cr, _mm512_sllv_epi32(cmag, csh));
        cut |= _mm512_mask_cmpneq_epi32_mask((__mmask16)(cnorm & ~cl),
                                             _mm512_sllv_epi32(cr, ncsh), cmag);
        cv = _mm512_maskz_mov_epi32(cnorm, cv);
        cv = _mm512_mask_sub_epi32(cv, cneg, zero, cv);
        lo = _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(sum32)),
                              _mm512_cvtepi32_epi64(_mm512_castsi512_si256(cv)));
        hi = _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(sum32, 1)),
                              _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(cv, 1)));
    }
    fall = active & ((__mmask16)(~cnorm & ~czero) | (__mmask16)(~anynz & czero));
    /* round each half (8 lanes of 64 bits) to binary32 */
    res_ok = 0;
    {
        __m512i half_r[2];
        for (int h = 0; h < 2; h++) {
            __m512i sum = h ? hi : lo;
            __m512i Lh = _mm512_cvtepi32_epi64(h ? _mm512_extracti64x4_epi64(L, 1)
                                                 : _mm512_castsi512_si256(L));
            __mmask8 neg = _mm512_cmplt_epi64_mask(sum, _mm512_setzero_si512());
            __m512i mag = _mm512_abs_epi64(sum);
            __mmask8 z = _mm512_testn_epi64_mask(mag, mag);
            __m512i top = _mm512_sub_epi64(_mm512_set1_epi64(63), _mm512_lzcnt_epi64(mag));
            __m512i E = _mm512_add_epi64(Lh, top);
            __mmask8 normal = _mm512_cmpge_epi64_mask(E, _mm512_set1_epi64(-126)) &
                              _mm512_cmple_epi64_mask(E, _mm512_set1_epi64(127));
            __m512i drop = _mm512_sub_epi64(top, _mm512_set1_epi64(23));
            __mmask8 dpos = _mm512_cmpgt_epi64_mask(drop, _mm512_setzero_si512());
            __m512i sig = _mm512_mask_blend_epi64(dpos,
                              _mm512_sllv_epi64(mag, _mm512_sub_epi64(_mm512_setzero_si512(), drop)),
                              _mm512_srlv_epi64(mag, drop));
            __m512i one = _mm512_set1_epi64(1);
            __m512i rest = _mm512_maskz_and_epi64(dpos, mag,
                              _mm512_sub_epi64(_mm512_sllv_epi64(one, drop), one));
            __mmask8 inex = _mm512_test_epi64_mask(rest, rest);
            __mmask8 okh;
            if (rne) {
                __m512i halfv = _mm512_sllv_epi64(one, _mm512_sub_epi64(drop, one));
                __mmask8 up = dpos & (_mm512_cmpgt_epu64_mask(rest, halfv) |
                              (_mm512_cmpeq_epi64_mask(rest, halfv) &
                               _mm512_test_epi64_mask(sig, one)));
                __mmask8 carry;
                sig = _mm512_mask_add_epi64(sig, up, sig, one);
                carry = _mm512_test_epi64_mask(sig, _mm512_set1_epi64((long long)1 << 24));
                sig = _mm512_mask_srli_epi64(sig, carry, sig, 1);
                E = _mm512_mask_add_epi64(E, carry, E, one);
                normal &= _mm512_cmple_epi64_mask(E, _mm512_set1_epi64(127));
            }
            r = _mm512_or_si512(_mm512_slli_epi64(_mm512_add_epi64(E, _mm512_set1_epi64(127)), 23),
                                _mm512_and_si512(sig, _mm512_set1_epi64(0x7FFFFF)));
            r = _mm512_mask_or_epi64(r, neg, r, _mm512_set1_epi64((long long)1 << 31));
            r = _mm512_maskz_mov_epi64((__mmask8)~z, r);       /* a zero sum: +0 */
            okh = z | normal;
            half_r[h] = r;
            res_ok |= (__mmask16)((unsigned)okh << (8 * h));
            if (((unsigned)(inex & normal & ~z) << (8 * h)) & active & ~fall)
                *flags |= FL_INEXACT;
        }
        r = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(half_r[0])),
                               _mm512_cvtepi64_epi32(half_r[1]), 1);
    }
    fall |= active & (__mmask16)~res_ok;
    if (cut & active & ~fall)
        *flags |= FL_INEXACT;
    *fb = fall;
    return r;
}

__attribute__((target("avx512f,avx512cd")))
static int vgemm_range(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const tjob *j = arg;
    const ref_ctx *rc = j->rc;
    const fl_ref_gemm_shape *s = j->s;
    const size_t K = rc->n, M = s->m, N = s->n, npad = j->npad;
    const size_t part = rc->tc_part ? rc->tc_part : 1, bs = (size_t)rc->tcm.block;
    const size_t nparts = (K + part - 1) / part;
    const uint64_t nblocks = (nparts - 1) * ((part + bs - 1) / bs) +
                             ((K - (nparts - 1) * part) + bs - 1) / bs;
    const int init = rc->m->epilogue == FL_REF_EPI_INIT;
    fl_ctx cb = rc->cacc, ca = rc->cacc;
    cb.rm = (uint8_t)rc->m->tc.rm;

    for (size_t t = lo; t < hi; t++) {
        size_t bi = t / (M * j->ngroups), rem = t % (M * j->ngroups);
        size_t i = rem / j->ngroups, j0 = rem % j->ngroups * 16;
        size_t arow = bi * j->ads + i;
        const int32_t *ae = j->Ae + arow * K, *be0 = j->Be + bi * j->bds * K;
        const uint32_t *am = j->Am + arow * K, *bm0 = j->Bm + bi * j->bds * K;
        const uint64_t *ra = j->A + bi * s->stride_a + (s->ta ? i : i * s->lda);
        const ptrdiff_t rsa = s->ta ? (ptrdiff_t)s->lda : 1;
        uint32_t cl[16], cprev[16];
        uint64_t total[16], u[16], blockno = 0;
        const uint64_t *cvs[16];
        uint64_t e0 = (bi * M + i) * N + j0;
        __mmask16 active = 0;
        for (int q = 0; q < 16; q++) {
            size_t jj = j0 + (size_t)q;
            cvs[q] = NULL;
            u[q] = total[q] = 0;
            if (jj >= N)
                continue;
            cvs[q] = j->C ? j->C + bi * s->stride_c + i * s->ldc + jj : NULL;
            if (init)
                u[q] = ref_init_value(rc, cvs[q], e0 + (size_t)q, flags);
            if (!j->aspec[arow] && !j->bspec[bi * j->bds + jj]) {
                active |= (__mmask16)(1u << q);
            } else {
                /* infinities or NaNs in its row or column: generic */
                ref_terms raw;
                raw.a = ra;
                raw.sa = rsa;
                raw.b = j->B + bi * s->stride_b + (s->tb ? jj * s->ldb : jj);
                raw.sb = s->tb ? 1 : (ptrdiff_t)s->ldb;
                j->D[bi * s->stride_d + i * s->ldd + jj] =
                    ref_epilogue(rc, ref_eval_tc(rc, &raw, u[q], e0 + (size_t)q, flags),
                                 cvs[q], e0 + (size_t)q, flags);
            }
        }
        if (active == 0)
            continue;
        for (size_t sp = 0; sp < nparts; sp++) {
            size_t l0p = sp * part, l1p = l0p + part < K ? l0p + part : K;
            __m512i c;
            for (int q = 0; q < 16; q++)
                cl[q] = (sp == 0 && init) ? (uint32_t)u[q] : 0;
            c = _mm512_loadu_si512((const void *)cl);
            for (size_t l = l0p; l < l1p; l += bs, blockno++) {
                int nb = (int)(l1p - l < bs ? l1p - l : bs);
                __mmask16 fb = 0;
                _mm512_storeu_si512((void *)cprev, c);
                c = vblock(rc, ae + l, am + l, be0 + l * npad + j0, bm0 + l * npad + j0,
                           npad, nb, c, active, &fb, flags);
                if (fb == 0)
                    continue;
                /* lanes the vector form does not cover: the scalar block
                 * from the same c */
                _mm512_storeu_si512((void *)cl, c);
                for (int q = 0; q < 16; q++) {
                    int32_t ebuf[16];
                    uint32_t mbuf[16];
                    int special = 0;
                    unsigned f = 0;
                    uint64_t rr;
                    if (!(fb & (1u << q)))
                        continue;
                    for (int tt = 0; tt < nb; tt++) {
                        ebuf[tt] = be0[(l + (size_t)tt) * npad + j0 + (size_t)q];
                        mbuf[tt] = bm0[(l + (size_t)tt) * npad + j0 + (size_t)q];
                    }
                    cb.sr_index = (e0 + (size_t)q) * rc->slots + K + blockno;
                    rr = block_scalar(rc, ae + l, am + l, ebuf, mbuf, nb, cprev[q],
                                      &cb, &f, &special);
                    if (special) {
                        uint64_t ab[64], bb[64];
                        size_t jj = j0 + (size_t)q;
                        const uint64_t *rb = j->B + bi * s->stride_b +
                                             (s->tb ? jj * s->ldb : jj);
                        for (int tt = 0; tt < nb; tt++) {
                            ab[tt] = ra[(ptrdiff_t)(l + (size_t)tt) * rsa];
                            bb[tt] = rb[(l + (size_t)tt) * (s->tb ? 1 : s->ldb)];
                        }
                        rr = fl_tc_block_fma_ctx(&rc->tcm, &rc->m->acc, ab, bb, nb,
                                                 cprev[q], &cb, flags);
                    } else {
                        *flags |= f;
                    }
                    cl[q] = (uint32_t)rr;
                }
                c = _mm512_loadu_si512((const void *)cl);
            }
            _mm512_storeu_si512((void *)cl, c);
            for (int q = 0; q < 16; q++) {
                if (!(active & (1u << q)))
                    continue;
                if (sp == 0) {
                    total[q] = cl[q];
                } else {
                    ca.sr_index = (e0 + (size_t)q) * rc->slots + K + nblocks + sp - 1;
                    total[q] = fl_add(&rc->m->acc, total[q], cl[q], &ca, flags);
                }
            }
        }
        for (int q = 0; q < 16; q++)
            if (active & (1u << q))
                j->D[bi * s->stride_d + i * s->ldd + j0 + (size_t)q] =
                    ref_epilogue(rc, total[q], cvs[q], e0 + (size_t)q, flags);
    }
    return 0;
}

static int vec_applicable(const ref_ctx *rc)
{
    return rc->tcm.block <= 16 && rc->tcm.neab <= 2 &&
           rc->tcm.align == FL_TC_ALIGN_TRUNC &&
           (rc->m->tc.rm == FL_RTZ || rc->m->tc.rm == FL_RNE) &&
           fl_format_same(&rc->m->acc, &fl_binary32) &&
           fl__accel_simd() >= 2;   /* AVX-512 F, BW, VL, DQ and CD */
}

/* op(A) rows and op(B) in rows of npad columns, decoded; 0, or 1 when
 * memory is short (the caller takes another path). */
static int vgemm(const ref_ctx *rc, const fl_ref_gemm_shape *s,
                 const uint64_t *A, const uint64_t *B, const uint64_t *C,
                 uint64_t *D, int nthreads, unsigned *flags)
{
    tjob j;
    size_t nba = s->stride_a ? s->batch : 1, nbb = s->stride_b ? s->batch : 1;
    size_t K = s->k;
    tjob_init(&j, rc, s, A, B, C, D);
    j.npad = (s->n + 15) / 16 * 16;
    j.ngroups = j.npad / 16;
    if (tjob_alloc(&j, nba * s->m, nbb * j.npad, K, 1) != 0)
        return 1;
    decode_a(rc, s, A, nba, j.Ae, j.Am, j.aspec);
    for (size_t bi = 0; bi < nbb; bi++) {
        const uint64_t *src = B + bi * s->stride_b;
        for (size_t l = 0; l < K; l++)
            for (size_t jj = 0; jj < s->n; jj++) {
                size_t at = bi * K * j.npad + l * j.npad + jj;
                j.bspec[bi * j.npad + jj] |= (unsigned char)decode(
                    &rc->m->in, s->tb ? src[jj * s->ldb + l] : src[l * s->ldb + jj],
                    &rc->cacc, &j.Be[at], &j.Bm[at]);
            }
    }
    j.ads = s->stride_a ? s->m : 0;
    j.bds = s->stride_b ? j.npad : 0;
    return tjob_run(&j, s->batch * s->m * j.ngroups, (double)K * 16,
                    vgemm_range, nthreads, flags);
}
#endif

int ref_tcfast_gemm(const ref_ctx *rc, const fl_ref_gemm_shape *s,
                    const uint64_t *A, const uint64_t *B, const uint64_t *C,
                    uint64_t *D, int nthreads, unsigned *flags)
{
    tjob j;
    size_t nba = s->stride_a ? s->batch : 1, nbb = s->stride_b ? s->batch : 1;
    size_t K = s->k;
    if (K == 0)
        return 1;
#if TC512
    if (vec_applicable(rc) && vgemm(rc, s, A, B, C, D, nthreads, flags) == 0)
        return 0;
#endif
    tjob_init(&j, rc, s, A, B, C, D);
    j.chain = pick_chain(rc);
    if (tjob_alloc(&j, nba * s->m, nbb * s->n, K, 0) != 0)
        return 1;
    decode_a(rc, s, A, nba, j.Ae, j.Am, j.aspec);
    for (size_t bi = 0; bi < nbb; bi++)
        decode_rows(rc, B + bi * s->stride_b, s->n, s->tb ? s->ldb : 1,
                    s->tb ? 1 : s->ldb, j.Be + bi * s->n * K, j.Bm + bi * s->n * K,
                    j.bspec + bi * s->n);
    j.ads = s->stride_a ? s->m : 0;
    j.bds = s->stride_b ? s->n : 0;
    return tjob_run(&j, s->batch * s->m * s->n, (double)K * 2, tjob_range,
                    nthreads, flags);
}

int ref_tcfast_dot(const ref_ctx *rc, const uint64_t *a, const uint64_t *b,
                   size_t rows, uint64_t *out, int nthreads, unsigned *flags)
{
    tjob j;
    size_t K = rc->n;
    if (K == 0)
        return 1;
    tjob_init(&j, rc, NULL, a, b, NULL, out);
    j.chain = pick_chain(rc);
    if (tjob_alloc(&j, rows, rows, K, 0) != 0)
        return 1;
    decode_rows(rc, a, rows, K, 1, j.Ae, j.Am, j.aspec);
    decode_rows(rc, b, rows, K, 1, j.Be, j.Bm, j.bspec);
    return tjob_run(&j, rows, (double)K * 2, tjob_range, nthreads, flags);
}
