/*
 * fast_h16.c — binary16 multiplication and fused multiply-add in nearest
 * even through the host's F16C conversions (x86-64 with GCC or Clang; run
 * only at the seam's level avx2 or above, see fl__h16_hw).  fl_mul and fl_fma call
 * them for finite operands when fl__h16_take accepts the format and the
 * context (fast.h), in place of the SSE2 versions there, and fl_mul calls
 * fl__h16_mul_hw for every encoding when the context's NaN rule is the
 * host's (fl__h16_take_host); tests/test_fastpath.c proves both against
 * the generic code (every pair with an infinite or NaN operand included).
 *
 * Multiplication: vcvtph2ps turns both operands into binary32 exactly
 * (subnormals included); their product is exact in binary32 (22 bits,
 * between 2^-48 and 2^32); vcvtps2ph with an immediate nearest-even
 * rounding (MXCSR's rounding field not consulted) rounds it to binary16
 * as fl__round_pack does -- subnormal results, ties to even, overflow to
 * infinity.  The flags come from the value: the result converted back
 * against the product (inexact, and which way), infinity (overflow: the
 * operands were finite), the product against the tininess border (2^-14,
 * or 2^-14 - 2^-26 after rounding, where the 11-bit rounding reaches
 * 2^-14; both binary32 values).
 *
 * Fused multiply-add: the exact product and the addend in binary64, their
 * sum and its exact error (TwoSum) folded into the last bit (round to odd
 * at 53 bits), then rounded to odd at 24 bits: the nearest-even binary32
 * conversion is made a truncation (one step toward zero when it rounded
 * away) and the last bit set when inexact.  Rounding that to 11 bits in
 * nearest even is correct, 24 >= 11 + 2, and the round-to-odd values lie
 * on the same side of every binary16 value and of the tininess border as
 * the exact sum (they equal it where it is exact).
 *
 * Assumes the host's floating-point state in its default state (no FTZ or
 * DAZ), as fast.h does.
 */
#include "fast.h"

#if defined(FL__H16_SSE) && defined(__GNUC__)
#include <immintrin.h>

/* Flag words by down | up << 1 | tiny << 2 | overflow << 3 | sign << 4
 * (down, up: the rounded magnitude below, above the exact one). */
#define FL__H16_HW(i)                                                        \
    ((((i) & 3) | ((i) >> 3 & 1)                                             \
          ? FL_INEXACT |                                                     \
                ((((i) >> 1 & 1) | ((i) >> 3 & 1)) ^ ((i) >> 4 & 1)          \
                     ? FL_TERN_UP : FL_TERN_DOWN) |                          \
                (((i) >> 2 & 1) ? FL_UNDERFLOW : 0)                          \
          : 0) |                                                             \
     (((i) >> 3 & 1) ? FL_OVERFLOW : 0))
static const uint8_t fl__h16_hwfw[32] = { FL__TAB16(FL__H16_HW, 0),
                                          FL__TAB16(FL__H16_HW, 16) };

/* The tininess border (binary32) by c->tininess: before, after. */
static const float fl__h16_tb[2] = { 0x1p-14f - 0x1p-26f, 0x1p-14f };

#define FL__H16_TARGET __attribute__((target("avx,f16c")))

/* |x| as binary32, lane 0; all four lanes. */
FL__H16_TARGET static inline __m128 fl__h16_absf(__m128 x)
{
    return _mm_andnot_ps(_mm_set_ss(-0.0f), x);
}
FL__H16_TARGET static inline __m128 fl__h16_absf4(__m128 x)
{
    return _mm_andnot_ps(_mm_set1_ps(-0.0f), x);
}

/* The flags of a result: ab = |binary16 result| and ax = |exact value|
 * (or its round-to-odd), as binary32, in lane 0; code the result.  One
 * comparison of four lanes: ab < ax (down), ax < ab (up), ax below the
 * tininess border, ax beyond the largest binary32 below 65520 (it rounds
 * to infinity: overflow). */
FL__H16_TARGET static inline unsigned fl__h16_hwflags(__m128 ab, __m128 ax,
                                                      uint64_t code,
                                                      const fl_ctx *c)
{
    const __m128 t = _mm_set_ss(fl__h16_tb[c->tininess & 1]);
    const __m128 l = _mm_movelh_ps(_mm_unpacklo_ps(ab, ax),
                                   _mm_unpacklo_ps(ax, _mm_set_ss(0x1.ffdffep15f)));
    const __m128 r = _mm_movelh_ps(_mm_unpacklo_ps(ax, ab),
                                   _mm_unpacklo_ps(t, ax));
    return fl__h16_hwfw[(unsigned)_mm_movemask_ps(_mm_cmplt_ps(l, r)) |
                        (unsigned)(code >> 11 & 0x10)];
}

/* Multiplication of any two encodings (NaN and infinite operands too)
 * when the context's NaN rule is the host's (x86, SoftFloat 8086-SSE: the
 * first NaN operand quieted, else the default NaN 0xFE00), and of finite
 * ones for every rule (mul.c).  The host's product gives the value:
 * vcvtph2ps keeps a NaN's sign and payload and sets its quiet bit,
 * vmulss returns its first operand when that is a NaN and else its second
 * (operand order pinned below), 0 * inf gives the default NaN -0x1.8p128
 * (0xFE00 once converted), inf times a nonzero finite value the signed
 * infinity; vcvtps2ph keeps the sign and the top 10 payload bits and sets
 * the quiet bit.
 *
 * The flags come from one table, fl__h16_mulfw, indexed by four lanes of
 * one comparison, each true where unordered, and the NaN classes of the
 * operands.  Lanes: down (result < x, x the exact product, both signed),
 * up (x < result), tiny (|x| below the tininess border), big (|x| beyond
 * the largest binary32 below 65520: overflow, the operands being finite).
 * A NaN result sets down and up, which no number does; an infinite operand
 * sets big alone (result and x the same infinity); a finite overflow sets
 * big and one direction.  Classes, on 16-bit lanes beside the product:
 * na, nb (magnitude above 0x7C00), qa, qb (above 0x7DFF, quiet).  Invalid:
 * a signaling operand, or a NaN result from no NaN operand (0 * inf). */
#define FL__H16_MF(i)                                                        \
    (((i) & 3) == 3                                 /* NaN result */         \
         ? ((((i) >> 4 & 1) & !((i) >> 6 & 1)) |    /* a signaling */        \
                    (((i) >> 5 & 1) & !((i) >> 7 & 1)) | /* b signaling */   \
                    !(((i) >> 4 | (i) >> 5) & 1)    /* 0 * inf */            \
                ? FL_INVALID : 0)                                            \
     : ((i) & 0xB) == 8 ? 0                         /* an infinite operand */ \
     : ((i) & 3 ? FL_INEXACT | ((i) & 2 ? FL_TERN_UP : FL_TERN_DOWN) |       \
                      ((i) & 4 ? FL_UNDERFLOW : 0)                           \
                : 0) |                                                       \
           ((i) & 8 ? FL_OVERFLOW : 0))
static const uint8_t fl__h16_mulfw[256] = { FL__TAB256(FL__H16_MF, 0) };
#undef FL__H16_MF
#undef FL__H16_HW

/* The fma's flag table (fl__h16_fma_host512): the four comparison lanes
 * as for the product, then the classes of the three operands: na nb nd
 * (NaN) at bits 4-6, qa qb qd (quiet) at bits 7-9.  Invalid for a NaN
 * result: a signaling operand, or no NaN operand (0 * inf, inf - inf). */
#define FL__H16_FF(i)                                                        \
    (((i) & 3) == 3                                                          \
         ? ((((i) >> 4 & 1) & !((i) >> 7 & 1)) |                             \
                    (((i) >> 5 & 1) & !((i) >> 8 & 1)) |                     \
                    (((i) >> 6 & 1) & !((i) >> 9 & 1)) |                     \
                    !(((i) >> 4 | (i) >> 5 | (i) >> 6) & 1)                  \
                ? FL_INVALID : 0)                                            \
     : ((i) & 0xB) == 8 ? 0                                                  \
     : ((i) & 3 ? FL_INEXACT | ((i) & 2 ? FL_TERN_UP : FL_TERN_DOWN) |       \
                      ((i) & 4 ? FL_UNDERFLOW : 0)                           \
                : 0) |                                                       \
           ((i) & 8 ? FL_OVERFLOW : 0))
static const uint8_t fl__h16_fmafw[1024] = {
    FL__TAB256(FL__H16_FF, 0), FL__TAB256(FL__H16_FF, 256),
    FL__TAB256(FL__H16_FF, 512), FL__TAB256(FL__H16_FF, 768) };
/* 16-bit lanes a b d a b d 0 0: magnitude mask and the NaN and quiet NaN
 * limits (lanes 6 and 7 never true), and the byte shuffle that makes
 * those lanes of a b d (fl__h16_cls3) */
static const int16_t fl__h16_nanlim3[2][8] __attribute__((aligned(16))) = {
    { 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0, 0 },
    { 0x7C00, 0x7C00, 0x7C00, 0x7DFF, 0x7DFF, 0x7DFF, 0x7FFF, 0x7FFF } };
static const int8_t fl__h16_abdabd[16] __attribute__((aligned(16))) = {
    0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, -1, -1, -1, -1 };
#undef FL__H16_FF

/* Lanes 2 and 3 of the right and left comparison operands: the tininess
 * border by c->tininess, and the largest binary32 below 65520. */
static const float fl__h16_tbv[2][4] __attribute__((aligned(16))) = {
    { 0, 0, 0x1p-14f - 0x1p-26f, 0x1.ffdffep15f },
    { 0, 0, 0x1p-14f, 0x1.ffdffep15f } };
static const int16_t fl__h16_nanlim[2][8] __attribute__((aligned(16))) = {
    { 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF },
    { 0x7C00, 0x7C00, 0x7DFF, 0x7DFF, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF } };

#define FL__H16_INL FL__H16_TARGET static inline __attribute__((always_inline))

/* |w| (lanes masked by lim[0]) > lim[1], 16-bit lanes.  The mask is
 * read from memory by an instruction of its own: the compiler would
 * otherwise build it from a 64-bit immediate moved over from a general
 * register, on the port this path needs for its operands and results (one
 * move per cycle on Zen 4; binary16 fma +5% there). */
FL__H16_INL __m128i fl__h16_above(__m128i w, const int16_t lim[2][8])
{
    __m128i m;
    __asm__("vmovdqa %1, %0" : "=x"(m) : "m"(*(const int16_t(*)[8])lim[0]));
    return _mm_cmpgt_epi16(_mm_and_si128(w, m),
                           _mm_load_si128((const __m128i *)lim[1]));
}

/* NaN classes of two operands, the 16-bit lanes a, b of w: lanes |a| |b|
 * |a| |b| against 0x7C00 0x7C00 0x7DFF 0x7DFF (the other lanes zero
 * against 0x7FFF: false); bits na nb qa qb. */
FL__H16_INL unsigned fl__h16_cls2(__m128i w)
{
    const __m128i k = fl__h16_above(_mm_unpacklo_epi32(w, w), fl__h16_nanlim);
    return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(k, _mm_setzero_si128()));
}

/* The same for three operands (lanes a, b, d of w): bits na nb nd qa qb
 * qd, one lane each (lanes a b d a b d 0 0). */
FL__H16_INL unsigned fl__h16_cls3(__m128i w)
{
    const __m128i k = fl__h16_above(
        _mm_shuffle_epi8(w, _mm_load_si128((const __m128i *)fl__h16_abdabd)),
        fl__h16_nanlim3);
    return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(k, _mm_setzero_si128()));
}

/* SoftFloat's rule (sf) where it leaves the hardware's: 0 * inf + NaN, a
 * and b not NaN (one factor 0, the other inf; cls from fl__h16_cls3). */
static inline __attribute__((always_inline)) unsigned
fl__h16_sfix(uint64_t a, uint64_t b, unsigned cls, int sf)
{
    const uint64_t ma = a & 0x7FFF, mb = b & 0x7FFF;
    /* a NaN addend is rare (1 in 32 random encodings): a branch on it
     * costs less than the comparisons on every call */
    if (!sf || __builtin_expect(!(cls & 4), 1))
        return 0;
    return (unsigned)((ma == 0x7C00 && mb == 0) | (ma == 0 && mb == 0x7C00));
}

/* X rounded to odd at 24 bits (lane 0) from its binary32 roundings to
 * nearest, down and up: they differ iff X is not a binary32 value, and
 * then the one toward zero (rd for a positive X, ru for a negative one:
 * rn's sign bit selects) with its last bit set; else rn, whose zero is
 * signed as IEEE requires in nearest even. */
FL__H16_INL __m128 fl__h16_odd(__m128 rn, __m128 rd, __m128 ru)
{
    const __m128 inx = _mm_cmpneq_ss(rd, ru);
    const __m128 tz = _mm_blendv_ps(rd, ru, rn);
    return _mm_blendv_ps(rn, _mm_or_ps(tz, _mm_castsi128_ps(_mm_cvtsi32_si128(1))), inx);
}

/* The four comparison lanes of fl__h16_nanfw's index for a binary16
 * result h (lane 0) and x (lane 0 of p: the exact value, or its round to
 * odd at 24 bits): result x |x| big  against  x result border |x|, each
 * true where not greater or equal (unordered too): down, up, tiny, big. */
FL__H16_INL unsigned fl__h16_lanes(__m128 p, __m128i h, const fl_ctx *c)
{
    const __m128 rv = _mm_cvtph_ps(h);
    const __m128 R = _mm_shuffle_ps(rv, rv, 0), X = _mm_shuffle_ps(p, p, 0);
    const __m128 AX = fl__h16_absf4(X);
    const __m128 tb = _mm_load_ps(fl__h16_tbv[c->tininess & 1]);
    const __m128 l = _mm_blend_ps(_mm_blend_ps(_mm_blend_ps(R, X, 2), AX, 4), tb, 8);
    const __m128 r = _mm_blend_ps(_mm_blend_ps(_mm_blend_ps(X, R, 2), AX, 8), tb, 4);
    return (unsigned)_mm_movemask_ps(_mm_cmp_ps(l, r, _CMP_NGE_UQ));
}

/* The two operands of a binary operation widened to binary32: a in lane 0
 * of *v, b in its lane 1 and in lane 0 of *vb; their NaN classes
 * (fl__h16_cls2). */
FL__H16_INL unsigned fl__h16_in2(uint64_t a, uint64_t b, __m128 *v, __m128 *vb)
{
    const __m128i w = _mm_cvtsi32_si128((int)((a & 0xFFFF) | (b & 0xFFFF) << 16));
    *v = _mm_cvtph_ps(w);
    *vb = _mm_movehdup_ps(*v);
    return fl__h16_cls2(w);
}

/* The result of a product or sum from p (lane 0: the exact value X, or X
 * rounded to odd at 24 bits): p rounded to binary16 in nearest even, the
 * flags from fl__h16_mulfw for the operands' classes cls. */
FL__H16_INL uint64_t fl__h16_out2(__m128 p, unsigned cls, const fl_ctx *c,
                                  unsigned *flags)
{
    const __m128i h = _mm_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT);
    *flags |= fl__h16_mulfw[fl__h16_lanes(p, h, c) | cls << 4];
    return (uint16_t)_mm_cvtsi128_si32(h);
}

FL__H16_TARGET uint64_t fl__h16_mul_hw(const fl_format *f, uint64_t a,
                                       uint64_t b, const fl_ctx *c,
                                       unsigned *flags)
{
    __m128 v, vb, p;
    const unsigned cls = fl__h16_in2(a, b, &v, &vb);
    (void)f;
    /* p = a * b with a the first source operand (the NaN it returns) */
    __asm__("vmulss %2, %1, %0" : "=x"(p) : "x"(v), "x"(vb));
    return fl__h16_out2(p, cls, c, flags);
}

#ifdef FL__P16
/* The same multiplication with the binary16 product rounded by the
 * AVX512-FP16 instruction itself (level avx512fp16): vmulsh in MXCSR's
 * default nearest even (the operand order pinned: x86 returns the first
 * NaN operand, quieted, 0xFE00 for 0 * inf, as vmulss and vcvtps2ph do
 * above), in parallel with the exact binary32 product that the flags are
 * read against; the result widened for the comparison lanes by
 * vcvtsh2ss.  One conversion fewer on the path to the flags than
 * fl__h16_mul_hw (Intel's cores: vcvtps2ph is 2 uops and 7 cycles). */
__attribute__((target("avx512fp16,avx512f,avx512vl,avx,f16c")))
uint64_t fl__h16_mul_p16(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags)
{
    const __m128i w = _mm_cvtsi32_si128((int)((a & 0xFFFF) | (b & 0xFFFF) << 16));
    const __m128i wb = _mm_srli_epi32(w, 16);
    const __m128 v = _mm_cvtph_ps(w);
    const __m128 vb = _mm_movehdup_ps(v);
    const unsigned cls = fl__h16_cls2(w);
    __m128 p, R;
    __m128i h;
    (void)f;
    __asm__("vmulss %2, %1, %0" : "=v"(p) : "v"(v), "v"(vb));
    __asm__("vmulsh %2, %1, %0" : "=v"(h) : "v"(w), "v"(wb));
    __asm__("vcvtsh2ss %1, %1, %0" : "=v"(R) : "v"(h));
    {
        const __m128 X = _mm_shuffle_ps(p, p, 0), RR = _mm_shuffle_ps(R, R, 0);
        const __m128 AX = fl__h16_absf4(X);
        const __m128 tb = _mm_load_ps(fl__h16_tbv[c->tininess & 1]);
        const __m128 l = _mm_blend_ps(_mm_blend_ps(_mm_blend_ps(RR, X, 2), AX, 4), tb, 8);
        const __m128 r = _mm_blend_ps(_mm_blend_ps(_mm_blend_ps(X, RR, 2), AX, 8), tb, 4);
        *flags |= fl__h16_mulfw[(unsigned)_mm_movemask_ps(_mm_cmp_ps(l, r, _CMP_NGE_UQ)) |
                                cls << 4];
    }
    return (uint16_t)_mm_cvtsi128_si32(h);
}
#endif

FL__H16_TARGET uint64_t fl__h16_fma_hw(const fl_format *f, uint64_t a,
                                       uint64_t b, uint64_t d,
                                       const fl_ctx *c, unsigned *flags)
{
    const __m128 v = _mm_cvtph_ps(_mm_cvtsi64_si128(
        (long long)((a & 0xFFFF) | (b & 0xFFFF) << 16 | (d & 0xFFFF) << 32)));
    (void)f;
    const __m128d x = _mm_cvtss_sd(_mm_setzero_pd(), v);
    const __m128d y = _mm_cvtss_sd(_mm_setzero_pd(), _mm_movehdup_ps(v));
    const __m128d z = _mm_cvtss_sd(_mm_setzero_pd(), _mm_movehl_ps(v, v));
    /* the exact product plus d, rounded to odd at 53 bits */
    const uint64_t sb = fl__h16_sum_odd(_mm_mul_sd(x, y), z);
    __m128d so;
    __m128 fs;
    uint32_t fb;
    uint64_t code;
    unsigned m, ov, tiny;
    so = _mm_castsi128_pd(_mm_cvtsi64_si128((long long)sb));
    /* round to odd at 24 bits: truncate (undo a rounding away from zero),
     * set the last bit when inexact */
    fs = _mm_cvtsd_ss(_mm_setzero_ps(), so);
    {
        const __m128d fd = _mm_cvtss_sd(_mm_setzero_pd(), fs);
        const __m128d absm = _mm_castsi128_pd(_mm_set_epi64x(0, 0x7FFFFFFFFFFFFFFFll));
        fb = (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(fs));
        fb -= (uint32_t)_mm_comigt_sd(_mm_and_pd(fd, absm), _mm_and_pd(so, absm));
        fb |= (uint32_t)!_mm_comieq_sd(fd, so);
    }
    code = (uint16_t)_mm_cvtsi128_si32(_mm_cvtps_ph(
        _mm_castsi128_ps(_mm_cvtsi32_si128((int)fb)), _MM_FROUND_TO_NEAREST_INT));
    {
        const __m128d absm = _mm_castsi128_pd(_mm_set_epi64x(0, 0x7FFFFFFFFFFFFFFFll));
        const __m128d aso = _mm_and_pd(so, absm);
        const __m128d ab = _mm_and_pd(_mm_cvtss_sd(_mm_setzero_pd(),
            _mm_cvtph_ps(_mm_cvtsi32_si128((int)code))), absm);
        m = (unsigned)_mm_movemask_pd(
            _mm_cmplt_pd(_mm_unpacklo_pd(ab, aso), _mm_unpacklo_pd(aso, ab)));
        ov = (code & 0x7FFF) == 0x7C00;
        tiny = (unsigned)_mm_comilt_sd(
            aso, _mm_set_sd(c->tininess == FL_TINY_AFTER ? 0x1p-14 - 0x1p-26
                                                         : 0x1p-14));
    }
    *flags |= fl__h16_fw[(m >> 1 & 1) | (m & 1) << 1 | ov << 2 | tiny << 3 |
                         (unsigned)(code >> 15) << 4];
    return code;
}

/*
 * The fma of any three encodings under the host's NaN rule without
 * AVX-512 (F16C; hooks.h takes it at level avx2): X rounded to odd at 24
 * bits from binary32 arithmetic alone.  The product p = a * b is exact in
 * binary32 (11-bit significands; |p| in [2^-48, 2^32]), so R = p + d is X
 * rounded to nearest even at 24 bits, and TwoSum gives e = X - R exactly
 * (no overflow: |X| < 2^33; binary32's subnormals are never reached).
 * Inexact iff e != 0: the value toward zero is R when e has R's sign, else
 * the binary32 next to R toward zero (R - 1 in bits: R is not zero, |X| >=
 * 2^-48); its last bit set is the round to odd.  An infinite or NaN R
 * (some operand infinite or NaN) is taken as it is, and its NaN is the
 * first NaN operand's, quieted (vmulss, then vaddss, return their first
 * NaN operand), but for 0 * inf + NaN, whose NaN (x86's fma returns the
 * addend's) is chosen in integers; classes, flags and SoftFloat's select
 * as fl__h16_fma_host512.  (An earlier form took R
 * from FMA3's vfmadd213ss and the sign of X - R from a binary64 TwoSum:
 * the same result, measured within noise of this one on Zen 4 capped at
 * avx2, with eight more operations.)
 */
/* The three operands of an fma widened (v: a, b, d in lanes 0, 1, 2; y
 * = b and z = d in lane 0), their NaN classes and SoftFloat's select. */
FL__H16_INL void fl__h16_fma_in(uint64_t a, uint64_t b, uint64_t d, int sf,
                                __m128 *v, __m128 *y, __m128 *z,
                                unsigned *cls, unsigned *sfix)
{
    const __m128i w = _mm_cvtsi64_si128(
        (long long)((a & 0xFFFF) | (b & 0xFFFF) << 16 | (d & 0xFFFF) << 32));
    *v = _mm_cvtph_ps(w);
    *y = _mm_movehdup_ps(*v);
    *z = _mm_movehl_ps(*v, *v);
    *cls = fl__h16_cls3(w);   /* na nb nd qa qb qd */
    *sfix = fl__h16_sfix(a, b, *cls, sf);
}

#define FL__H16_FMA16C __attribute__((target("avx,f16c"), always_inline))
FL__H16_FMA16C static inline uint64_t fl__h16_fma_f16c_t(uint64_t a, uint64_t b, uint64_t d,
                                                      const fl_ctx *c, unsigned *flags,
                                                      const int sf)
{
    __m128 v, y, z;
    unsigned cls, sfix;
    fl__h16_fma_in(a, b, d, sf, &v, &y, &z, &cls, &sfix);
    {
        /* p = a b exactly (binary16 significands: 22 bits, magnitudes in
         * [2^-48, 2^32]); R = X rounded to nearest even at 24 bits; e = X
         * - R exactly by TwoSum (no overflow: |X| < 2^33) */
        const __m128 p = _mm_mul_ss(v, y);
        const __m128 R = _mm_add_ss(p, z);
        const __m128 bb = _mm_sub_ss(R, p);
        const __m128 e = _mm_add_ss(_mm_sub_ss(p, _mm_sub_ss(R, bb)),
                                    _mm_sub_ss(z, bb));
        /* inexact: e != 0 and e ordered (e is not a number exactly when
         * R is infinite or NaN: TwoSum then subtracts an infinity from
         * itself or meets the NaN; two comparisons, for valgrind takes
         * the one predicate "ordered and not equal" for "not equal");
         * away: e and R of opposite signs (|R| > |X|); the round to odd
         * in the vector unit, R + (inexact & away) with its last bit set
         * where inexact, as in fl__h16_add_f16c */
        const __m128i inx = _mm_castps_si128(
            _mm_and_ps(_mm_cmpneq_ss(e, _mm_setzero_ps()), _mm_cmpord_ss(e, e)));
        const __m128i away = _mm_srai_epi32(_mm_castps_si128(_mm_xor_ps(e, R)), 31);
        const __m128i ro = _mm_or_si128(
            _mm_add_epi32(_mm_castps_si128(R), _mm_and_si128(inx, away)),
            _mm_and_si128(inx, _mm_cvtsi32_si128(1)));
        {
            const __m128 X = _mm_castsi128_ps(ro);
            const __m128i h = _mm_cvtps_ph(X, _MM_FROUND_TO_NEAREST_INT);
            const uint64_t code = (uint16_t)_mm_cvtsi128_si32(h);
            *flags |= fl__h16_fmafw[fl__h16_lanes(X, h, c) | cls << 4] |
                      (sfix ? FL_INVALID : 0u);
            /* a NaN result is the arithmetic's: vmulss and vaddss return
             * their first NaN operand quieted, so R holds the first NaN of
             * a, b, d, but for 0 * inf + d with d a NaN (p is the default
             * NaN there, and x86's fma returns d) */
            const uint64_t dn = (d & 0xFFFF) | 0x200;
            return sfix ? 0xFE00u : (cls & 7) == 4 ? dn : code;
        }
    }
}

__attribute__((target("avx,f16c")))
uint64_t fl__h16_fma_f16c(const fl_format *f, uint64_t a, uint64_t b, uint64_t d,
                          const fl_ctx *c, unsigned *flags)
{
    (void)f;
    if (c->nan == FL_NANP_SOFTFLOAT)
        return fl__h16_fma_f16c_t(a, b, d, c, flags, 1);
    return fl__h16_fma_f16c_t(a, b, d, c, flags, 0);
}
#undef FL__H16_FMA16C

/*
 * Addition of any two encodings under the host's NaN rule without AVX-512
 * (F16C; hooks.h takes it at level avx2), as fl__h16_add_hw512 below with
 * the round to odd at 24 bits found from the exact sum: X = a + b is a
 * binary64 value (at most 41 bits), R = a + b in binary32 nearest even (a
 * the first source operand: the NaN it returns), and both are computed
 * side by side.  R != X (unordered included) says inexact; |R| > |X|
 * (ordered) that R is the value away from zero, whose binary32
 * predecessor toward zero is R - 1 in bits (R is not zero there).  The
 * masks of the binary64 comparisons are all ones in their low 32 bits,
 * R's lane, so the round to odd stays in the vector unit:
 * R + (inexact & away), its last bit set where inexact.  A NaN R gets its
 * last bit set and no decrement, which vcvtps2ph drops; an infinite R
 * equals X.  R's zero is signed as IEEE requires.  Flags from
 * fl__h16_mulfw as for the product (a sum below 2^-14 is a multiple of
 * 2^-24: exact).  (The first form of 2026-12-03 took X - R from TwoSum
 * in binary32 and adjusted R in a general register: a dependency chain
 * about 15 cycles longer.)
 */
__attribute__((target("avx,f16c")))
uint64_t fl__h16_add_f16c(const fl_format *f, uint64_t a, uint64_t b,
                          const fl_ctx *c, unsigned *flags)
{
    __m128 v, vb, R;
    const unsigned cls = fl__h16_in2(a, b, &v, &vb);
    (void)f;
    __asm__("vaddss %2, %1, %0" : "=x"(R) : "x"(v), "x"(vb));
    {
        const __m128d absm = _mm_castsi128_pd(_mm_set_epi64x(0, 0x7FFFFFFFFFFFFFFFll));
        const __m128d ab = _mm_cvtps_pd(v);                          /* a, b */
        const __m128d X = _mm_add_sd(ab, _mm_unpackhi_pd(ab, ab));   /* exact */
        const __m128d Rd = _mm_cvtss_sd(_mm_setzero_pd(), R);
        const __m128i inx = _mm_castpd_si128(_mm_cmpneq_sd(Rd, X));
        const __m128i away = _mm_castpd_si128(
            _mm_cmplt_sd(_mm_and_pd(X, absm), _mm_and_pd(Rd, absm)));
        const __m128i ro = _mm_or_si128(
            _mm_add_epi32(_mm_castps_si128(R), _mm_and_si128(inx, away)),
            _mm_and_si128(inx, _mm_cvtsi32_si128(1)));
        return fl__h16_out2(_mm_castsi128_ps(ro), cls, c, flags);
    }
}

#ifdef FPLAB_AVX512
/*
 * Addition of any two encodings under the host's NaN rule (add.c), as the
 * multiplication above with the sum in place of the product.  The exact
 * sum X = a + b is not always a binary32 value (it may need 41 bits), so
 * it is rounded to odd at 24 bits as in fl__h16_fma_hw512: binary32
 * additions rounded down and up (AVX-512 rounding per instruction), which
 * differ iff X is not a binary32 value, and then the one toward zero with
 * its last bit set; else the nearest-even sum, whose zero is signed as
 * IEEE requires (-0 only from -0 + -0).  Rounding that to 11 bits in
 * nearest even is X's rounding (24 >= 11 + 2), and it lies on the same
 * side as X of every binary16 value and of the tininess border, so the
 * flags come from fl__h16_mulfw as for the product: a sum below 2^-14 is
 * a multiple of 2^-24, exact, raising nothing.  The NaN a binary32
 * addition returns is its first source operand's when that is a NaN, else
 * the second's (operand order pinned below); inf - inf gives the default
 * NaN -0x1.8p128 (0xFE00 converted), and fl__h16_mulfw calls a NaN result
 * from no NaN operand invalid.  A NaN keeps its sign and top payload
 * bits through the odd rounding (its last bit set) and vcvtps2ph.
 */
__attribute__((target("avx512f,f16c")))
uint64_t fl__h16_add_hw512(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags)
{
    __m128 v, vb, rn, rd, ru;
    const unsigned cls = fl__h16_in2(a, b, &v, &vb);
    (void)f;
    /* a + b rounded three ways, a the first source operand */
    __asm__("vaddss %{rn-sae%}, %2, %1, %0" : "=v"(rn) : "v"(v), "v"(vb));
    __asm__("vaddss %{rd-sae%}, %2, %1, %0" : "=v"(rd) : "v"(v), "v"(vb));
    __asm__("vaddss %{ru-sae%}, %2, %1, %0" : "=v"(ru) : "v"(v), "v"(vb));
    return fl__h16_out2(fl__h16_odd(rn, rd, ru), cls, c, flags);
}

/*
 * The fma of any three encodings under the host's NaN rule (fma.c): the
 * binary32 fused multiply-adds of fl__h16_fma_hw512 below, rounded down,
 * up and to nearest, give X = a * b + d rounded to odd at 24 bits (exact
 * operands; |X| between 2^-48 and 2^33 when finite), then as the addition
 * above with the three operands' classes in the flag table.  NaNs: the
 * fused multiply-add returns the first NaN of its operands in the order
 * pinned below (a, b, d), quieted, and the default NaN for 0 * inf or
 * inf - inf without a NaN operand; 0 * inf + qNaN returns the qNaN
 * without invalid, as fl__fma_rest's x86 rule says.  SoftFloat's rule
 * differs there alone (invalid and its default NaN 0xFE00, any NaN
 * addend): that case is selected after the hardware's result.
 */
__attribute__((target("avx512f,f16c"), always_inline))
static inline uint64_t fl__h16_fma_host(uint64_t a, uint64_t b, uint64_t d,
                                        const fl_ctx *c, unsigned *flags,
                                        const int sf)
{
    __m128 v, y, z;
    unsigned cls, sfix;
    fl__h16_fma_in(a, b, d, sf, &v, &y, &z, &cls, &sfix);
    __m128 rn = y, rd = y, ru = y;
    /* x = a * x + d with x = b: vfmadd213ss takes its NaN from its second
     * register first (a), then the first (b), then the third (d) */
    __asm__("vfmadd213ss %{rn-sae%}, %2, %1, %0" : "+v"(rn) : "v"(v), "v"(z));
    __asm__("vfmadd213ss %{rd-sae%}, %2, %1, %0" : "+v"(rd) : "v"(v), "v"(z));
    __asm__("vfmadd213ss %{ru-sae%}, %2, %1, %0" : "+v"(ru) : "v"(v), "v"(z));
    {
        const __m128 p = fl__h16_odd(rn, rd, ru);
        const __m128i h = _mm_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT);
        const uint64_t code = (uint16_t)_mm_cvtsi128_si32(h);
        *flags |= fl__h16_fmafw[fl__h16_lanes(p, h, c) | cls << 4] |
                  (sfix ? FL_INVALID : 0u);
        return sfix ? 0xFE00u : code;
    }
}

/* One copy per rule, the SoftFloat select only where it applies. */
__attribute__((target("avx512f,f16c")))
uint64_t fl__h16_fma_host512(const fl_format *f, uint64_t a, uint64_t b,
                             uint64_t d, const fl_ctx *c, unsigned *flags)
{
    (void)f;
    if (c->nan == FL_NANP_SOFTFLOAT)
        return fl__h16_fma_host(a, b, d, c, flags, 1);
    return fl__h16_fma_host(a, b, d, c, flags, 0);
}

/*
 * The fma with AVX-512's rounding given per instruction: the binary32 fused
 * multiply-add of the three (exact) operands rounded down and up; they
 * differ iff the sum X = a * b + d is not a binary32 value (|X| is
 * between 2^-48 and 2^33, no underflow or overflow), and then the one
 * toward zero with its last bit set is X rounded to odd at 24 bits; when
 * they agree X is the nearest-even result, whose zero is signed as IEEE
 * requires in nearest even (-0 only from -0 + -0).  Then as above.
 */
__attribute__((target("avx512f,f16c")))
uint64_t fl__h16_fma_hw512(const fl_format *f, uint64_t a, uint64_t b,
                           uint64_t d, const fl_ctx *c, unsigned *flags)
{
    const __m128 v = _mm_cvtph_ps(_mm_cvtsi64_si128(
        (long long)((a & 0xFFFF) | (b & 0xFFFF) << 16 | (d & 0xFFFF) << 32)));
    (void)f;
    const __m128 y = _mm_movehdup_ps(v), z = _mm_movehl_ps(v, v);
    const __m128 rn = _mm_fmadd_round_ss(v, y, z, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128 rd = _mm_fmadd_round_ss(v, y, z, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m128 ru = _mm_fmadd_round_ss(v, y, z, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    const __m128 ro = fl__h16_odd(rn, rd, ru);
    const uint64_t code = (uint16_t)_mm_cvtsi128_si32(
        _mm_cvtps_ph(ro, _MM_FROUND_TO_NEAREST_INT));
    *flags |= fl__h16_hwflags(
        fl__h16_absf(_mm_cvtph_ps(_mm_cvtsi32_si128((int)code))),
        fl__h16_absf(ro), code, c);
    return code;
}
#endif
#endif
