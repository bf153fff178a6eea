/*
 * fast_simd.c — SIMD kernels for fl_round_float_array and
 * fl_round_double_array (x86-64 with GCC or Clang): AVX-512 (F, BW, VL,
 * DQ; compiled only with FPLAB_AVX512) and AVX2, chosen at run time by
 * the seam's level (src/accel/accel.h).  The lane algorithm is in simd_round.h; every
 * case it does not decide goes to the scalar entry point element by
 * element, so the kernels are exact or absent, never approximate.
 *
 * Element i always uses stochastic-rounding index c->sr_index + i and the
 * flags are the OR over elements: any split of an array gives the same
 * values and the same flag word.
 */
#include <string.h>

#include "fast.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define FL__SIMD 1
#include <immintrin.h>
#endif

/* out = conv(x, the rounding immediate of mode rm) for RNE, RTZ, RDN and
 * RUP: vcvtps2ph takes its mode as a literal, so each inlined copy (rm a
 * constant there) keeps one conversion.  The binary16 F16C loops of both
 * array kinds use it (simd_round.h's K_(h16), fl__h16d_body below). */
#define FL__F16C_BY_MODE(out, conv, x, rm)                                   \
    do {                                                                     \
        switch (rm) {                                                        \
        case FL_RDN: (out) = conv((x), _MM_FROUND_TO_NEG_INF); break;        \
        case FL_RUP: (out) = conv((x), _MM_FROUND_TO_POS_INF); break;        \
        case FL_RTZ: (out) = conv((x), _MM_FROUND_TO_ZERO); break;           \
        default: (out) = conv((x), _MM_FROUND_TO_NEAREST_INT); break;        \
        }                                                                    \
    } while (0)

/* Per-call parameters of a kernel, in units of the host format H
 * (binary32: FB = 23, bias 127; binary64: FB = 52, bias 1023). */
typedef struct {
    uint64_t eminb;    /* bits of 2^emin(f) in H */
    uint64_t bordlo;   /* bits of 2^(emin(f) - 1) in H */
    uint64_t maxf;     /* bits of f's largest finite value in H */
    uint64_t qbits;    /* bits of f's smallest subnormal in H */
    int32_t Emin;      /* emin(f) as a biased exponent of H, >= 1 */
    int32_t sh0;       /* FB + 1 - p: bits discarded in f's normal range */
    int32_t sht;       /* bits discarded by the tininess-after rounding */
    uint64_t ovb[2];   /* result bits of an overflow, positive / negative */
    unsigned ovfl[2];  /* and its flags */
    int after, fz, daz;
    int hw16;          /* f is binary16: the F16C conversion may round
                          (binary32 arrays: simd_round.h; binary64 arrays
                          at AVX2: fl__k256_f64_h16) */
    double mq;         /* q * 2^FB: adding and subtracting it rounds |x| <
                          2^emin to a multiple of q (nearest even) */
} fl__kpar;

/*
 * Fill P for rounding host format H (fb fraction bits, bias hb) to f; 0 when
 * some finite value of f is not a normal value of H (the kernels assume
 * 2^emin(f) and f's largest finite value are normal in H).
 */
static int fl__kpar_init(fl__kpar *P, const fl_format *f, const fl_ctx *c,
                         int fb, int hb)
{
    const int p = f->prec;
    const int32_t efield = (int32_t)((f->max_bits & f->exp_mask) >> (p - 1));
    const int32_t emaxv = efield - f->bias;       /* exponent of max finite */
    const int32_t k = f->emin - p + 1;            /* smallest subnormal 2^k */
    if (!fl__fast_fmt(f) || f->emin + hb < 1 || emaxv + hb > 2 * hb ||
        k + hb - 1 + fb < 0)
        return 0;
    P->Emin = f->emin + hb;
    P->sh0 = fb + 1 - p;
    P->eminb = (uint64_t)P->Emin << fb;
    if (P->Emin >= 2) {
        P->bordlo = (uint64_t)(P->Emin - 1) << fb;
        P->sht = P->sh0;
    } else {
        /* 2^(emin-1) is a subnormal of H whose leading bit is FB - 1: the
         * p-bit rounding discards one bit less */
        P->bordlo = (uint64_t)1 << (fb - 1);
        P->sht = P->sh0 > 0 ? P->sh0 - 1 : 0;
    }
    P->maxf = ((uint64_t)(emaxv + hb) << fb) |
              ((f->max_bits & f->frac_mask) << (fb + 1 - p));
    P->qbits = k + hb >= 1 ? (uint64_t)(k + hb) << fb
                           : (uint64_t)1 << (k + hb - 1 + fb);
    {
        /* overflow: fl__round_pack's choice between infinity (or f's NaN
         * pattern) and the largest finite, as the host value */
        int sg;
        for (sg = 0; sg < 2; sg++) {
            int to_inf = c->rm == FL_RNE || c->rm == FL_RNA ||
                         c->rm == FL_RSR || (c->rm == FL_RUP && !sg) ||
                         (c->rm == FL_RDN && sg);
            uint64_t hs = (uint64_t)sg << (fb == 23 ? 31 : 63);
            if (f->saturate || c->saturate ||
                f->nan_style == FL_NANSTYLE_FINITE)
                to_inf = 0;
            P->ovfl[sg] = FL_OVERFLOW | FL_INEXACT |
                          ((to_inf != 0) != sg ? FL_TERN_UP : FL_TERN_DOWN);
            if (!to_inf)
                P->ovb[sg] = hs | P->maxf;
            else if (fb == 23) {
                fl__f32 v;
                unsigned ign = 0;
                v.f = fl_to_float(f, fl__pack_inf(f, sg, c, &ign));
                P->ovb[sg] = v.u;
            } else {
                unsigned ign = 0;
                P->ovb[sg] =
                    fl__u_of(fl_to_double(f, fl__pack_inf(f, sg, c, &ign)));
            }
        }
    }
    P->after = c->tininess == FL_TINY_AFTER;
    P->hw16 = fl__fmt_key(f) == FL__KEY(16, 5, 11);
    P->mq = fl__d_of((uint64_t)(k + fb + 1023) << 52);   /* 2^(k + FB) */
    P->fz = c->ftz || !f->subnormals;
    P->daz = c->daz != 0;
    return 1;
}

#ifdef FL__SIMD

/* Arrays of at least this many bytes are written with streaming stores. */
#define FL__STREAM_BYTES ((size_t)8 << 20)

/* The flags of the lanes a kernel rounded: fup / fdn the lanes whose
 * result is above / below the input, fuf the tiny ones among them (the
 * kernels' bit masks, OR-ed over the array). */
static inline unsigned fl__kflags(unsigned fup, unsigned fdn, unsigned fuf)
{
    return ((fup | fdn) ? FL_INEXACT : 0u) | (fup ? FL_TERN_UP : 0u) |
           (fdn ? FL_TERN_DOWN : 0u) | (fuf ? FL_UNDERFLOW : 0u);
}

#ifdef FPLAB_AVX512
/* AVX-512: mask registers */
#define K_NAME fl__k512_f32
#define K_TARGET "avx512f,avx512bw,avx512vl,avx512dq"
#define K_W 16
#define K_BITS 32
#define K_M __mmask16
#define K_I(x) ((__m512i)(x))
#define K_LT(x, y) _mm512_cmplt_epu32_mask(K_I(x), K_I(y))
#define K_LE(x, y) _mm512_cmple_epu32_mask(K_I(x), K_I(y))
#define K_GT(x, y) _mm512_cmpgt_epu32_mask(K_I(x), K_I(y))
#define K_GE(x, y) _mm512_cmpge_epu32_mask(K_I(x), K_I(y))
#define K_EQ(x, y) _mm512_cmpeq_epu32_mask(K_I(x), K_I(y))
#define K_NE(x, y) _mm512_cmpneq_epu32_mask(K_I(x), K_I(y))
#define K_BLEND(m, x, y) ((K_(vu))_mm512_mask_blend_epi32((m), K_I(y), K_I(x)))
#define K_MAXU(x, y) ((K_(vu))_mm512_max_epu32(K_I(x), K_I(y)))
#define K_MINU(x, y) ((K_(vu))_mm512_min_epu32(K_I(x), K_I(y)))
#define K_MNOT(m) ((K_M)~(m))
#define K_ANYM(m) ((m) != 0)
#define K_BITS_OF(m) ((unsigned)(m))
#define K_FGT(x, y) _mm512_cmp_ps_mask((__m512)(x), (__m512)(y), _CMP_GT_OQ)
#define K_STREAM(p, v) _mm512_stream_si512((p), K_I(v))
#define K_HW16(u, imm)                                                       \
    ((K_(vu))_mm512_cvtph_ps(_mm512_cvtps_ph((__m512)(u), (imm))))
#include "simd_round.h"

#define K_NAME fl__k512_f64
#define K_TARGET "avx512f,avx512bw,avx512vl,avx512dq"
#define K_W 8
#define K_BITS 64
#define K_M __mmask8
#define K_LT(x, y) _mm512_cmplt_epu64_mask(K_I(x), K_I(y))
#define K_LE(x, y) _mm512_cmple_epu64_mask(K_I(x), K_I(y))
#define K_GT(x, y) _mm512_cmpgt_epu64_mask(K_I(x), K_I(y))
#define K_GE(x, y) _mm512_cmpge_epu64_mask(K_I(x), K_I(y))
#define K_EQ(x, y) _mm512_cmpeq_epu64_mask(K_I(x), K_I(y))
#define K_NE(x, y) _mm512_cmpneq_epu64_mask(K_I(x), K_I(y))
#define K_BLEND(m, x, y) ((K_(vu))_mm512_mask_blend_epi64((m), K_I(y), K_I(x)))
#define K_MAXU(x, y) ((K_(vu))_mm512_max_epu64(K_I(x), K_I(y)))
#define K_MINU(x, y) ((K_(vu))_mm512_min_epu64(K_I(x), K_I(y)))
#define K_MNOT(m) ((K_M)~(m))
#define K_ANYM(m) ((m) != 0)
#define K_BITS_OF(m) ((unsigned)(m))
#define K_FGT(x, y) _mm512_cmp_pd_mask((__m512d)(x), (__m512d)(y), _CMP_GT_OQ)
#define K_STREAM(p, v) _mm512_stream_si512((p), K_I(v))
#include "simd_round.h"
#undef K_I
#endif

/* AVX2: all-ones lanes as masks */
#define K_NAME fl__k256_f32
#define K_TARGET "avx2,f16c"
#define K_W 8
#define K_BITS 32
#define K_MUL64_EMU 1
#include "simd_avx2_masks.h"
#define K_BLEND(m, x, y) (((x) & (m)) | ((y) & ~(m)))
#define K_MAXU(x, y) ((K_(vu))_mm256_max_epu32((__m256i)(x), (__m256i)(y)))
#define K_MINU(x, y) ((K_(vu))_mm256_min_epu32((__m256i)(x), (__m256i)(y)))
#define K_BITS_OF(m) ((unsigned)_mm256_movemask_ps((__m256)(m)))
#define K_FGT(x, y) ((K_(vu))_mm256_cmp_ps((__m256)(x), (__m256)(y), _CMP_GT_OQ))
#define K_STREAM(p, v) _mm256_stream_si256((__m256i *)(p), (__m256i)(v))
#define K_HW16(u, imm)                                                       \
    ((K_(vu))_mm256_cvtph_ps(_mm256_cvtps_ph((__m256)(u), (imm))))
#include "simd_round.h"

/*
 * Binary64 lanes (bits) rounded to odd at binary32's 24 bits, as four
 * binary32 values, for the F16C conversion of binary16 from binary64
 * (fl__k256_f64_h16 below): rounding that to binary16's 11 bits in any of the four
 * IEEE modes is rounding x itself (24 >= 11 + 2), and it lies on the same
 * side as x of every binary16 value and of 2^-14.  In binary32's normal
 * range: the fraction truncated to 23 bits, the last bit set when a bit
 * below was.  Below 2^-126 (binary32 and binary64 subnormals): 0, or
 * 2^-126 (1 + 2^-23) for a nonzero x, both below binary16's half smallest
 * subnormal, so that the conversion rounds and flags it as x.  At and
 * above 2^128, infinities and NaNs the lane is not meaningful: such lanes
 * exceed binary16's largest finite value, which sends the step to the
 * general kernel before the value is used.
 */
__attribute__((target("avx2,f16c"), always_inline)) static inline __m128
fl__ro24_pd(__m256i u)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i sgn = _mm256_set1_epi64x(INT64_MIN);
    const __m256i a = _mm256_andnot_si256(sgn, u);
    const __m256i exact = _mm256_cmpeq_epi64(
        _mm256_and_si256(a, _mm256_set1_epi64x(0x1FFFFFFF)), zero);
    const __m256i sticky = _mm256_andnot_si256(exact, _mm256_set1_epi64x(1));
    const __m256i lo = _mm256_cmpgt_epi64(_mm256_set1_epi64x(0x3810000000000000ll), a);
    const __m256i tiny = _mm256_andnot_si256(_mm256_cmpeq_epi64(a, zero),
                                             _mm256_set1_epi64x(0x00800001));
    __m256i r = _mm256_srli_epi64(
        _mm256_sub_epi64(a, _mm256_set1_epi64x((long long)(1023 - 127) << 52)), 29);
    r = _mm256_blendv_epi8(_mm256_or_si256(r, sticky), tiny, lo);
    r = _mm256_or_si256(r, _mm256_srli_epi64(_mm256_and_si256(u, sgn), 32));
    /* the low halves of the four 64-bit lanes */
    return _mm256_castps256_ps128(_mm256_permutevar8x32_ps(
        _mm256_castsi256_ps(r), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}

#define K_NAME fl__k256_f64
#define K_TARGET "avx2"
#define K_W 4
#define K_BITS 64
#define K_MUL64_EMU 1
#include "simd_avx2_masks.h"
#define K_BLEND(m, x, y) (((x) & (m)) | ((y) & ~(m)))
#define K_MAXU(x, y) K_BLEND(K_GT(x, y), x, y)
#define K_MINU(x, y) K_BLEND(K_LT(x, y), x, y)
#define K_BITS_OF(m) ((unsigned)_mm256_movemask_pd((__m256d)(m)))
#define K_FGT(x, y) ((K_(vu))_mm256_cmp_pd((__m256d)(x), (__m256d)(y), _CMP_GT_OQ))
#define K_STREAM(p, v) _mm256_stream_si256((__m256i *)(p), (__m256i)(v))
#include "simd_round.h"

/*
 * binary64 -> binary16 at AVX2 in the four IEEE modes, no daz or ftz:
 * eight lanes a step, each half rounded to odd at 24 bits
 * (fl__ro24_pd), the eight binary32 values rounded once by F16C, and the
 * flags as in the F16C block of simd_round.h, read in binary32 (the odd
 * rounding lies on the same side as x of the result and of 2^-14).  The
 * general kernel's block does the same with 64-bit lane comparisons,
 * which AVX2 has only signed (Zen 3: 0.38 G/s).  A step with a lane above
 * binary16's largest finite value (overflow, infinities, NaNs), or, for
 * tininess after rounding, a tiny lane whose result reached 2^-14, goes
 * to the general kernel as a whole (dst is still untouched there: dst may
 * be src).  rm is a constant in each inlined copy.
 */
__attribute__((target("avx2,f16c"), always_inline)) static inline size_t
fl__h16d_body(const fl_format *f, const fl__kpar *P, const fl_ctx *c,
              double *dst, const double *src, size_t n, unsigned *flags,
              const int rm, const int stream)
{
    const __m256i sgn = _mm256_set1_epi64x(INT64_MIN);
    const __m256i maxd = _mm256_set1_epi64x((long long)P->maxf);
    const __m256i abs32 = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i emin32 = _mm256_set1_epi32(0x38800000);   /* 2^-14 */
    const int after = P->after;
    unsigned fup = 0, fdn = 0, fuf = 0, fl = 0;
    size_t i;

    for (i = 0; i + 8 <= n; i += 8) {
        const __m256i u0 = _mm256_loadu_si256((const __m256i *)(src + i));
        const __m256i u1 = _mm256_loadu_si256((const __m256i *)(src + i + 4));
        /* magnitudes: the signed comparison is the unsigned one */
        const __m256i big = _mm256_or_si256(
            _mm256_cmpgt_epi64(_mm256_andnot_si256(sgn, u0), maxd),
            _mm256_cmpgt_epi64(_mm256_andnot_si256(sgn, u1), maxd));
        const __m256 x = _mm256_set_m128(fl__ro24_pd(u1), fl__ro24_pd(u0));
        __m128i h;
        FL__F16C_BY_MODE(h, _mm256_cvtps_ph, x, rm);
        {
            const __m256 y = _mm256_cvtph_ps(h);
            const __m256i ax = _mm256_and_si256(_mm256_castps_si256(x), abs32);
            const __m256i tny = _mm256_cmpgt_epi32(emin32, ax);
            __m256i no = big;
            unsigned g, t;
            if (after) {
                const __m256i ay = _mm256_and_si256(_mm256_castps_si256(y), abs32);
                no = _mm256_or_si256(no, _mm256_andnot_si256(
                                             _mm256_cmpgt_epi32(emin32, ay), tny));
            }
            if (!_mm256_testz_si256(no, no)) {
                if (fl__k256_f64(f, P, c, dst + i, src + i, 8, &fl) != 8)
                    break;
                continue;
            }
            g = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(y, x, _CMP_GT_OQ));
            t = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(x, y, _CMP_GT_OQ));
            fup |= g;
            fdn |= t;
            fuf |= (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(tny)) & (g | t);
            {
                const __m256d y0 = _mm256_cvtps_pd(_mm256_castps256_ps128(y));
                const __m256d y1 = _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1));
                if (stream) {
                    _mm256_stream_pd(dst + i, y0);
                    _mm256_stream_pd(dst + i + 4, y1);
                } else {
                    _mm256_storeu_pd(dst + i, y0);
                    _mm256_storeu_pd(dst + i + 4, y1);
                }
            }
        }
    }
    if (stream)
        _mm_sfence();     /* order the streaming stores before returning */
    *flags |= fl | fl__kflags(fup, fdn, fuf);
    return i;
}

__attribute__((target("avx2,f16c"))) static size_t
fl__k256_f64_h16(const fl_format *f, const fl__kpar *P, const fl_ctx *c,
                 double *dst, const double *src, size_t n, unsigned *flags)
{
    const int stream = n * sizeof *dst >= FL__STREAM_BYTES &&
                       ((uintptr_t)dst & 31) == 0;
#define FL__H16D_CASE(m)                                                     \
    case m:                                                                  \
        return stream ? fl__h16d_body(f, P, c, dst, src, n, flags, m, 1)     \
                      : fl__h16d_body(f, P, c, dst, src, n, flags, m, 0);
    switch (c->rm) {
    FL__H16D_CASE(FL_RNE)
    FL__H16D_CASE(FL_RTZ)
    FL__H16D_CASE(FL_RDN)
    FL__H16D_CASE(FL_RUP)
    default: return fl__k256_f64(f, P, c, dst, src, n, flags);
    }
#undef FL__H16D_CASE
}

/* The AVX2 kernel for binary64 arrays: binary16 in the F16C modes
 * without daz / ftz by fl__k256_f64_h16, the rest by the template's. */
static size_t fl__k256_f64_any(const fl_format *f, const fl__kpar *P,
                               const fl_ctx *c, double *dst,
                               const double *src, size_t n, unsigned *flags)
{
    if (P->hw16 && !P->daz && !P->fz)
        return fl__k256_f64_h16(f, P, c, dst, src, n, flags);
    return fl__k256_f64(f, P, c, dst, src, n, flags);
}

#endif /* FL__SIMD */

/* fl__simd_round_float_array and fl__simd_round_double_array: the
 * parameters for the element type (FB fraction bits, BIAS), then the
 * vector set's kernel. */
#ifdef FL__SIMD
#define FL__SIMD_BODY(FB, BIAS, K512, K256)                                  \
    fl__kpar P;                                                              \
    FL__ACCEL_SIMD_RUN(level, fl__kpar_init(&P, f, c, FB, BIAS),             \
                       K512(f, &P, c, dst, src, n, flags),                   \
                       K256(f, &P, c, dst, src, n, flags))
#else
#define FL__SIMD_BODY(FB, BIAS, K512, K256)                                  \
    (void)f; (void)dst; (void)src; (void)n; (void)c; (void)flags;            \
    (void)level;                                                             \
    return 0
#endif
#define FL__SIMD_ENTRY(T, NAME, FB, BIAS, K512, K256)                        \
    size_t fl__simd_round_##NAME##_array(const fl_format *f, T *dst,         \
                                         const T *src, size_t n,             \
                                         const fl_ctx *c, unsigned *flags,   \
                                         int level)                          \
    {                                                                        \
        FL__SIMD_BODY(FB, BIAS, K512, K256);                                 \
    }
FL__SIMD_ENTRY(float, float, 23, 127, fl__k512_f32, fl__k256_f32)
FL__SIMD_ENTRY(double, double, 52, 1023, fl__k512_f64, fl__k256_f64_any)
#undef FL__SIMD_ENTRY
#undef FL__SIMD_BODY

int fl__simd_available(void)
{
    return fl__accel_simd();
}
