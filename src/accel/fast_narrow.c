/*
 * fast_narrow.c — SIMD kernels rounding binary32 arrays to the narrow
 * formats (width <= 8 bits: every 8-, 6- and 4-bit format, whatever its
 * NaN style, bias, signedness or zero), for fl_round_float_array: AVX-512
 * (F, BW, VL, DQ; compiled only with FPLAB_AVX512) and AVX2, chosen at
 * run time as in fast_simd.c.  The lane algorithm is in simd_narrow.h;
 * the format enters only through the constants of fl__npar, which
 * fl__npar_init takes from the generic code itself (fl_to_float of the
 * largest finite value, fl__pack_inf, fl__unsigned_negative, fl__no_zero),
 * so a result the kernel writes is by construction one the scalar code
 * can produce.  Lanes it does not decide go to fl_round_float.
 *
 * Element i always uses stochastic-rounding index c->sr_index + i and the
 * flags are the OR over elements: any split of an array gives the same
 * values and the same flag word.
 */
#include "fast.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define FL__NSIMD 1
#include <immintrin.h>
#endif

/* nearest even through the general integer path (formats whose rounding
 * points the float addition cannot reach: emax + 1 + 24 - p > 127) */
#define FL__KM_RNEI 7

/* The lane steps a format and context need beyond the plain ones (signed,
 * zero, -0, subnormals, no daz or ftz); FL__NV_RT: read them from the
 * parameters at run time.  The kernels have copies for the combinations
 * the presets have: none (IEEE, FN, FINITE), no -0 (fnuz, P3109),
 * unsigned (float8_e5m3fnu), E8M0 (unsigned, no zero, no subnormals,
 * below binary32's normals), and P3109 at precision 1 in nearest even (no
 * -0, its ties to the scalar code: FL__NV_P1TIE). */
enum {
    FL__NV_NONEGZ = 1, FL__NV_UNS = 2, FL__NV_NOZERO = 4, FL__NV_LOWSUB = 8,
    FL__NV_FZ = 16, FL__NV_DAZ = 32, FL__NV_RT = 64, FL__NV_P1TIE = 128,
    FL__NV_PLAIN = 0,
    FL__NV_NOMZ = FL__NV_NONEGZ,
    FL__NV_P1 = FL__NV_NONEGZ | FL__NV_P1TIE,
    FL__NV_UNSV = FL__NV_NONEGZ | FL__NV_UNS,
    FL__NV_E8M0 = FL__NV_NONEGZ | FL__NV_UNS | FL__NV_NOZERO |
                  FL__NV_LOWSUB | FL__NV_FZ
};

/* Per-call constants of the kernel, all as binary32 bit patterns of
 * magnitudes unless said otherwise. */
typedef struct {
    uint32_t eminb;    /* 2^emin (2^-126 when emin < -126) */
    uint32_t ecapb;    /* 2^(emax+1): cap of the nearest-even M */
    uint32_t mshift;   /* (24 - p) << 23 */
    uint32_t maxf;     /* f's largest finite value */
    uint32_t qbits;    /* q = 2^(emin - p + 1), the subnormal quantum */
    uint32_t halfqb;   /* q / 2 */
    uint32_t bigb;     /* lanes below it are below q (0: there are none) */
    uint32_t bordlo;   /* 2^(emin - 1) */
    int32_t C, Emin;   /* sh = C - min(max(E, 1), Emin) */
    int32_t sht;       /* bits the p-bit rounding drops below 2^emin */
    uint32_t tp, tn;   /* tiny iff 0 < a < tp (positive), < tn (negative) */
    uint32_t ovb[2];   /* overflow results, positive / negative */
    unsigned ovfl[2];  /* and their flags */
    uint32_t negb;     /* unsigned formats: result of a negative input */
    unsigned negfl;
    uint32_t zerob;    /* formats without zero: result of a zero input */
    unsigned zerofl;
    uint32_t gapb;     /* min_gap_up in a nearest mode with 2^emin >=
                          2^-126: lanes in (2^emin, gapb) go to the scalar
                          code (0: none) */
    int ftrick;        /* nearest even by the float addition */
    int p1tie;         /* P3109 at precision 1 in nearest even: ties go by
                          the code's parity, so tie lanes at or above
                          2^emin go to the scalar code */
    float qsc1, qsc2;  /* their product 2^32 / q, each a binary32 power
                          of two (qsc2 = 1 unless 2^32 / q > 2^127) */
    int qsc2on;        /* qsc2 != 1 */
    int after, fz, daz, uns, nozero, nonegz, lowsub;
    int var;           /* the kernel variant: FL__NV_* */
} fl__npar;

static uint32_t fl__fbits(float x)
{
    fl__f32 v;
    v.f = x;
    return v.u;
}

/* The binary32 value of the bit pattern b. */
static float fl__bitsf(uint32_t b)
{
    fl__f32 v;
    v.u = b;
    return v.f;
}

/* The binary32 bits of 2^k, -149 <= k <= 127. */
static uint32_t fl__pow2b(int32_t k)
{
    return k >= -126 ? (uint32_t)(k + 127) << 23 : (uint32_t)1 << (k + 149);
}

/*
 * Fill P for rounding binary32 to f in c's mode and options; 0 when f is
 * not a narrow format the kernels serve: width <= 8 (so p <= 8), every
 * finite value a binary32 value (emax <= 127, the smallest positive value
 * at least 2^-149).
 */
static int fl__npar_init(fl__npar *P, const fl_format *f, const fl_ctx *c)
{
    const int p = f->prec;
    const int32_t sh0 = 24 - p;
    const int32_t kq = f->emin - p + 1;          /* exponent of q */
    int sg;
    if (f->width > 8 || p > 8 || f->emax > 127 ||
        (f->subnormals ? kq : f->emin) < -149 ||
        c->rm >= FL_RM_COUNT ||
        (f->nan_style == FL_NANSTYLE_P3109 &&
         (!f->is_signed || c->rm == FL_RTO)))
        return 0;   /* P3109's own rules there: fl__round_pack */
    /* P3109, p = 1: every code is 2^e, and nearest even judges a tie by
     * the code's parity (round.c, code_parity), which the lane algorithm
     * does not see; the other modes the kernel serves never look at it */
    P->p1tie = f->nan_style == FL_NANSTYLE_P3109 && p == 1 &&
               c->rm == FL_RNE;
    P->lowsub = f->emin < -126;
    P->Emin = P->lowsub ? 1 : f->emin + 127;
    P->C = sh0 + P->Emin;
    P->eminb = (uint32_t)P->Emin << 23;
    P->mshift = (uint32_t)sh0 << 23;
    P->ftrick = !P->lowsub && f->emax + 1 + 127 + sh0 <= 254;
    P->ecapb = P->ftrick ? (uint32_t)(f->emax + 1 + 127) << 23 : 0;
    P->maxf = fl__fbits(fl_to_float(f, f->max_bits));
    if (P->lowsub) {
        /* every binary32 normal is >= 2^emin: no tiny lanes, no lanes
         * below q; binary32 subnormals go to the scalar code */
        P->qbits = P->halfqb = P->bigb = 0;
        P->qsc1 = P->qsc2 = 1.0f;
        P->qsc2on = 0;
        P->bordlo = 0;
        P->sht = sh0;
        P->tp = P->tn = 1;
    } else {
        /* 2^(emin-p-1) and 2^(emin-p) in units of the binade below
         * 2^emin: 2^(emin-24), or binary32's subnormal unit 2^(emin-23)
         * for emin = -126 */
        const int du = P->Emin >= 2 ? 0 : 1;
        const uint32_t d1 = (uint32_t)1 << (23 - p - du),
                       d2 = (uint32_t)1 << (24 - p - du);
        P->qbits = fl__pow2b(kq);
        P->halfqb = fl__pow2b(kq - 1);
        /* 2^(32 - kq) <= 2^181: one factor up to 2^127, the rest in the
         * second */
        P->qsc2on = 32 - kq > 127;
        P->qsc1 = fl__bitsf(fl__pow2b(P->qsc2on ? 64 : 32 - kq));
        P->qsc2 = fl__bitsf(fl__pow2b(P->qsc2on ? 32 - kq - 64 : 0));
        P->bigb = P->Emin - p + 1 >= 1 ? (uint32_t)(P->Emin - p + 1) << 23 : 0;
        /* the binade below 2^emin is binary32-normal, or for emin = -126
         * binary32's subnormals, whose leading bit is one place lower */
        P->bordlo = P->Emin >= 2 ? (uint32_t)(P->Emin - 1) << 23
                                 : (uint32_t)1 << 22;
        P->sht = P->Emin >= 2 ? sh0 : sh0 - 1;
        /* Tininess after rounding: the p-bit rounding of the binade below
         * 2^emin reaches 2^emin from these magnitudes on (d1 and d2 = half
         * and one p-bit ulp there). */
        P->tp = P->tn = P->eminb;
        if (c->tininess == FL_TINY_AFTER) {
            switch (c->rm) {
            case FL_RNE:
            case FL_RNA:
                P->tp = P->tn = P->eminb - d1;
                break;
            case FL_RUP:
                P->tp = P->eminb - d2 + 1;
                break;
            case FL_RDN:
                P->tn = P->eminb - d2 + 1;
                break;
            default:    /* RTZ and RTO never reach it; SR per lane */
                break;
            }
        }
    }
    for (sg = 0; sg < 2; sg++) {
        /* fl__round_pack's overflow: infinity (or the format's NaN) or the
         * largest finite, by mode, sign and saturation */
        const int rm = c->rm;
        int to_inf = rm == FL_RNE || rm == FL_RNA || rm == FL_RSR ||
                     (rm == FL_RUP && !sg) || (rm == FL_RDN && sg);
        unsigned ign = 0;
        if (f->saturate || c->saturate || f->nan_style == FL_NANSTYLE_FINITE)
            to_inf = 0;
        P->ovfl[sg] = FL_OVERFLOW | FL_INEXACT |
                      ((to_inf != 0) != sg ? FL_TERN_UP : FL_TERN_DOWN);
        P->ovb[sg] = to_inf ? fl__fbits(fl_to_float(f, fl__pack_inf(f, sg, c, &ign)))
                            : ((uint32_t)sg << 31) | P->maxf;
    }
    P->uns = !f->is_signed;
    P->negfl = 0;
    P->negb = 0;
    if (P->uns)
        P->negb = fl__fbits(fl_to_float(f, fl__unsigned_negative(f, c, &P->negfl)));
    P->nozero = !f->has_zero;
    P->zerofl = 0;
    P->zerob = 0;
    if (P->nozero)
        P->zerob = fl__fbits(fl_to_float(f, fl__no_zero(f, c, &P->zerofl)));
    /* min_gap_up moves the nearest modes' boundary in (2^emin, next
     * value).  Below 2^-126 (lowsub: E8M0 itself) that interval holds
     * binary32 subnormals only, which go to the scalar code anyway; above,
     * its lanes are sent there too (the variant reading P at run time). */
    P->gapb = 0;
    if (f->min_gap_up && !P->lowsub && (c->rm == FL_RNE || c->rm == FL_RNA))
        P->gapb = fl__fbits(fl_to_float(f, 1));
    P->nonegz = !f->has_negzero;
    P->after = c->tininess == FL_TINY_AFTER;
    P->fz = c->ftz || !f->subnormals;
    P->daz = c->daz != 0;
    P->var = (P->nonegz ? FL__NV_NONEGZ : 0) | (P->uns ? FL__NV_UNS : 0) |
             (P->nozero ? FL__NV_NOZERO : 0) |
             (P->lowsub ? FL__NV_LOWSUB : 0) | (P->fz ? FL__NV_FZ : 0) |
             (P->daz ? FL__NV_DAZ : 0) | (P->p1tie ? FL__NV_P1TIE : 0);
    if ((P->var != FL__NV_PLAIN && P->var != FL__NV_NOMZ &&
         P->var != FL__NV_UNSV && P->var != FL__NV_E8M0 &&
         P->var != FL__NV_P1) || P->gapb)
        P->var = FL__NV_RT;
    return 1;
}

#ifdef FL__NSIMD

/* Arrays of at least this many bytes are written with streaming stores. */
#define FL__NSTREAM_BYTES ((size_t)8 << 20)
/* Elements per chunk of the kernels' inner loop (a multiple of 16). */
#define FL__NCHUNK 1024

#ifdef FPLAB_AVX512
#define K_NAME fl__n512
#define K_SPECIALISE 1
#define K_TARGET "avx512f,avx512bw,avx512vl,avx512dq"
#define K_W 16
#define K_M __mmask16
#define K_LT(x, y) _mm512_cmplt_epu32_mask((__m512i)(x), (__m512i)(y))
#define K_LE(x, y) _mm512_cmple_epu32_mask((__m512i)(x), (__m512i)(y))
#define K_GT(x, y) _mm512_cmpgt_epu32_mask((__m512i)(x), (__m512i)(y))
#define K_GE(x, y) _mm512_cmpge_epu32_mask((__m512i)(x), (__m512i)(y))
#define K_EQ(x, y) _mm512_cmpeq_epu32_mask((__m512i)(x), (__m512i)(y))
#define K_NE(x, y) _mm512_cmpneq_epu32_mask((__m512i)(x), (__m512i)(y))
#define K_FGT(x, y) _mm512_cmp_ps_mask((__m512)(x), (__m512)(y), _CMP_GT_OQ)
#define K_BLEND(m, x, y)                                                     \
    ((K_(vu))_mm512_mask_blend_epi32((m), (__m512i)(y), (__m512i)(x)))
#define K_MASKZ(m, x) ((K_(vu))_mm512_maskz_mov_epi32((m), (__m512i)(x)))
#define K_MAXU(x, y) ((K_(vu))_mm512_max_epu32((__m512i)(x), (__m512i)(y)))
#define K_MINU(x, y) ((K_(vu))_mm512_min_epu32((__m512i)(x), (__m512i)(y)))
#define K_SLLV(x, y) ((K_(vu))_mm512_sllv_epi32((__m512i)(x), (__m512i)(y)))
#define K_SRLV(x, y) ((K_(vu))_mm512_srlv_epi32((__m512i)(x), (__m512i)(y)))
#define K_MNOT(m) ((K_M)~(m))
#define K_MZERO ((K_M)0)
#define K_ANYM(m) ((m) != 0)
#define K_BITS_OF(m) ((unsigned)(m))
#define K_STREAM(p, v) _mm512_stream_si512((void *)(p), (__m512i)(v))
#define K_SIGNS(u) _mm512_movepi32_mask((__m512i)(u))
#define K_CVTU(x) ((K_(vu))_mm512_cvttps_epu32((__m512)(x)))
#define K_EQM(m, x, y)                                                       \
    _mm512_mask_cmpeq_epu32_mask((m), (__m512i)(x), (__m512i)(y))
#define K_MANDN(m, k) _kandn_mask16((k), (m))
#define K_OVSEL(x, m, o, d, u)                                               \
    K_BLEND((m), _mm512_ternarylogic_epi32((__m512i)(o), (__m512i)(d),       \
                                           (__m512i)(u), 0x78), (x))
#define K_SIGNOR(r, u)                                                       \
    ((K_(vu))_mm512_ternarylogic_epi32((__m512i)(r), (__m512i)(u),          \
                                       _mm512_set1_epi32((int)0x80000000), 0xF8))
#define K_ACC(acc, m, w)                                                     \
    ((acc) = (K_(vu))_mm512_mask_or_epi32((__m512i)(acc), (m),              \
                                          (__m512i)(acc), (__m512i)(w)))
#include "simd_narrow.h"
#endif

/* AVX2: the same specialised copies (fnuz, P3109, the unsigned formats
 * and E8M0 in nearest even ran at 0.4-0.8x memcpy through the run-time
 * variant, about 2x that specialised; 72 KB of code) */
#define K_NAME fl__n256
#define K_SPECIALISE 1
#define K_TARGET "avx2"
#define K_W 8
#define K_MUL64_EMU 1
#include "simd_avx2_masks.h"
#define K_FGT(x, y) ((K_(vu))_mm256_cmp_ps((__m256)(x), (__m256)(y), _CMP_GT_OQ))
#define K_BLEND(m, x, y)                                                     \
    ((K_(vu))_mm256_blendv_epi8((__m256i)(y), (__m256i)(x), (__m256i)(m)))
#define K_MASKZ(m, x) ((x) & (m))
#define K_MAXU(x, y) ((K_(vu))_mm256_max_epu32((__m256i)(x), (__m256i)(y)))
#define K_MINU(x, y) ((K_(vu))_mm256_min_epu32((__m256i)(x), (__m256i)(y)))
#define K_SLLV(x, y) ((K_(vu))_mm256_sllv_epi32((__m256i)(x), (__m256i)(y)))
#define K_SRLV(x, y) ((K_(vu))_mm256_srlv_epi32((__m256i)(x), (__m256i)(y)))
#define K_MZERO ((K_(vu)){0})
#define K_BITS_OF(m) ((unsigned)_mm256_movemask_ps((__m256)(m)))
#define K_STREAM(p, v) _mm256_stream_si256((__m256i *)(p), (__m256i)(v))
#define K_SIGNS(u) ((K_(vu))((K_(vs))(u) >> 31))
#define K_MANDN(m, k) ((m) & ~(k))
#define K_OVSEL(x, m, o, d, u) K_BLEND((m), (o) ^ ((d) & (u)), (x))
#define K_SIGNOR(r, u) ((r) | ((u) & 0x80000000u))
#define K_ACC(acc, m, w) ((acc) |= (m) & (w))
#include "simd_narrow.h"

#endif /* FL__NSIMD */

/* The kernel for level (-1: the best this CPU runs) over the first
 * elements; *ok = 0 when there is none for f, c or the CPU. */
static size_t fl__narrow_kernel(const fl_format *f, float *dst,
                                const float *src, size_t n, const fl_ctx *c,
                                unsigned *flags, int level, int *ok)
{
#ifdef FL__NSIMD
    fl__npar P;
    *ok = 0;
    const int set = level < 0 ? fl__accel_simd() : level;
    if (set == 0 || !fl__npar_init(&P, f, c))
        return 0;
    *ok = 1;
    return FL__ACCEL_SIMD_CALL(set, fl__n512(f, &P, c, dst, src, n, flags),
                               fl__n256(f, &P, c, dst, src, n, flags));
#else
    (void)f; (void)dst; (void)src; (void)n; (void)c; (void)flags;
    (void)level;
    *ok = 0;
    return 0;
#endif
}

size_t fl__simd_narrow_float_array(const fl_format *f, float *dst,
                                   const float *src, size_t n,
                                   const fl_ctx *c, unsigned *flags,
                                   int level)
{
    int ok;
    return fl__narrow_kernel(f, dst, src, n, c, flags, level, &ok);
}

size_t fl__simd_narrow_trace(const fl_format *f, float *dst,
                             const float *src, size_t n, const fl_ctx *c,
                             unsigned *lane_flags, int level, int lvl)
{
#ifdef FL__NSIMD
    fl__npar P;
    FL__ACCEL_SIMD_RUN(level, fl__npar_init(&P, f, c),
                       fl__n512_trace(f, &P, c, dst, src, n, lane_flags, lvl),
                       fl__n256_trace(f, &P, c, dst, src, n, lane_flags, lvl));
#else
    (void)f; (void)dst; (void)src; (void)n; (void)c; (void)lane_flags;
    (void)level; (void)lvl;
    return 0;
#endif
}

int fl__narrow_round_float_array(const fl_format *f, float *dst,
                                 const float *src, size_t n,
                                 const fl_ctx *c, unsigned *flags)
{
    fl_ctx ci = *c;
    unsigned fl = 0;
    size_t i;
    int ok;
    if (f->width > 8)
        return 0;
    i = fl__narrow_kernel(f, dst, src, n, c, &fl, -1, &ok);
    if (!ok)
        return 0;
    for (; i < n; i++) {
        ci.sr_index = c->sr_index + (uint64_t)i;
        dst[i] = fl_round_float(f, src[i], &ci, &fl);
    }
    *flags |= fl;
    return 1;
}
