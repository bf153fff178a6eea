/*
 * fast_fp16.c — binary16 arithmetic by the host's AVX512-FP16 instructions
 * (Intel Sapphire Rapids and later), at the seam's level avx512fp16:
 * fl_add_array .. fl_div_array on binary16, 32 elements per vector, in
 * nearest even, toward zero, down and up; and the scalar routes below
 * (hooks.h takes them for div and sqrt in those four modes, for add,
 * sub, mul and fma in the directed ones).
 *
 * The value: the hardware's own binary16 operation with the rounding in
 * the instruction (vaddph, vsubph, vmulph, vdivph with {rn,rz,rd,ru}-sae:
 * MXCSR is neither read nor written, no exception is recorded).  IEEE 754
 * defines these results as the core does, subnormals included (the
 * AVX512-FP16 instructions ignore MXCSR's FTZ and DAZ), so they are the
 * core's values for every finite lane.
 *
 * The flags of each lane come from exact arithmetic on the same lanes
 * (X the exact result, R the rounded one):
 *   add, sub  s = RN(a + b) and its error e by Fast2Sum in binary16
 *             itself on the operands ordered by magnitude, a + b = s + e
 *             exactly (Dekker: the error of a binary16 sum is a binary16
 *             number, and with |a| >= |b| both s - a and b - (s - a) are
 *             exact, subnormals included; s is finite on the lanes kept,
 *             see below, and then no step overflows.  TwoSum's s - a, in
 *             either order, does overflow: -48 + 65504 = 65472 and 65472
 *             + 48 rounds to infinity).  Inexact iff R != s or e != 0;
 *             R > X iff R > s, or R = s and e < 0 (R != s means X is not
 *             a binary16 value, and then R and s lie on the same side of
 *             X or s = RN(X) would be R).  A sum below 2^-14 is a multiple
 *             of 2^-24 and exact: addition never underflows.
 *   mul       in binary32, where the product of two binary16 values is
 *             exact (22 bits, 2^-48 .. 2^32): p = x*y against R widened.
 *             Tininess before rounding |p| < 2^-14; after rounding, p's
 *             rounding to 11 bits with unbounded exponent below 2^-14,
 *             which is F16C's rounding of p*2^24 (exact, in binary16's
 *             normal range wherever it matters) in the same mode against
 *             2^10.
 *   div       in binary32: R*y is exact (11 x 11 bits), so R = X iff
 *             R*y = x, and R > X iff R*y > x for y > 0, R*y < x for y < 0.
 *             Tininess before rounding |x| < 2^-14 |y| (exact scaling);
 *             after, the binary32 quotient in the same mode rounds to 11
 *             bits like X (same direction: binary16's grid is a subset
 *             of binary32's; nearest even: Figueroa, 24 >= 2*11 + 2),
 *             checked as for the product.
 *   underflow = tiny and inexact.
 * Lanes the kernel does not decide go to the scalar entry point, as in
 * fast_simd_binop.c: an infinite or NaN operand (the context's NaN rule),
 * a zero divisor, and a result of magnitude 65504 or more (overflow, or
 * the largest finite value that a directed mode may have clamped to).
 * Scope: the binary16 format, those four modes, no ftz, daz or saturation,
 * any tininess and NaN rule.  tests/test_fastpath.c proves the kernel
 * equal to the generic code (values and each element's flag word,
 * FPLAB_EXHAUSTIVE_ONLY=binarr for every pair).
 *
 * GCC 12 and later (the AVX512-FP16 intrinsics under a target attribute);
 * other compilers and FPLAB_AVX512=OFF leave this file empty and the
 * AVX-512 kernels of fast_simd_binop.c run instead.
 */
#include <string.h>

#include "hooks.h"

#ifdef FL__P16   /* fast.h: GCC 12 or later, FPLAB_AVX512, x86-64 */
#define FL__FP16_KERNELS 1
#include <immintrin.h>

#define FL__P16_TARGET                                                       \
    __attribute__((target("avx512fp16,avx512f,avx512bw,avx512vl,avx512dq,f16c")))
#define FL__P16_INL FL__P16_TARGET __attribute__((always_inline)) static inline

enum { FL__P16_ADD, FL__P16_SUB, FL__P16_MUL, FL__P16_DIV };

/* 32 binary16 codes from 32 uint64_t elements, and back. */
FL__P16_INL __m512i fl__p16_load(const uint64_t *p)
{
    const __m128i q0 = _mm512_cvtepi64_epi16(_mm512_loadu_si512(p));
    const __m128i q1 = _mm512_cvtepi64_epi16(_mm512_loadu_si512(p + 8));
    const __m128i q2 = _mm512_cvtepi64_epi16(_mm512_loadu_si512(p + 16));
    const __m128i q3 = _mm512_cvtepi64_epi16(_mm512_loadu_si512(p + 24));
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(q0), q1, 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(q2), q3, 1);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
FL__P16_INL void fl__p16_store(uint64_t *p, __m512i v)
{
    const __m256i lo = _mm512_castsi512_si256(v);
    const __m256i hi = _mm512_extracti64x4_epi64(v, 1);
    _mm512_storeu_si512(p, _mm512_cvtepu16_epi64(_mm256_castsi256_si128(lo)));
    _mm512_storeu_si512(p + 8, _mm512_cvtepu16_epi64(_mm256_extracti128_si256(lo, 1)));
    _mm512_storeu_si512(p + 16, _mm512_cvtepu16_epi64(_mm256_castsi256_si128(hi)));
    _mm512_storeu_si512(p + 24, _mm512_cvtepu16_epi64(_mm256_extracti128_si256(hi, 1)));
}

/* The 16-lane halves of a vector of 32 codes, widened to binary32
 * (exact; no signalling NaN reaches here unmasked: such lanes are
 * replaced by 1.0 first). */
FL__P16_INL __m512 fl__p16_lo(__m512i v)
{
    return _mm512_cvtph_ps(_mm512_castsi512_si256(v));
}
FL__P16_INL __m512 fl__p16_hi(__m512i v)
{
    return _mm512_cvtph_ps(_mm512_extracti64x4_epi64(v, 1));
}

/* Rounding to 11 bits with unbounded exponent of |t| (binary32, t*2^24
 * exact and scaled in by the caller) below 2^10: tininess after rounding
 * in mode rc (F16C's immediate: 0 nearest, 1 down, 2 up, 3 toward zero). */
FL__P16_INL __mmask16 fl__p16_tiny_after(__m512 t24, const int rc)
{
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
    __m256i h;
    switch (rc) {
    case 1: h = _mm512_cvtps_ph(t24, _MM_FROUND_TO_NEG_INF); break;
    case 2: h = _mm512_cvtps_ph(t24, _MM_FROUND_TO_POS_INF); break;
    case 3: h = _mm512_cvtps_ph(t24, _MM_FROUND_TO_ZERO); break;
    default: h = _mm512_cvtps_ph(t24, _MM_FROUND_TO_NEAREST_INT); break;
    }
    return _mm512_cmp_ps_mask(_mm512_and_ps(_mm512_cvtph_ps(h), absm),
                              _mm512_set1_ps(0x1p10f), _CMP_LT_OQ);
}

/* Flag words of 16 lanes from their masks: inexact (with up: the result
 * above the exact value) and underflow. */
FL__P16_INL __m512i fl__p16_words(__mmask16 inx, __mmask16 up, __mmask16 uf)
{
    const __m512i dn = _mm512_set1_epi32(FL_INEXACT | FL_TERN_DOWN);
    const __m512i upw = _mm512_set1_epi32(FL_INEXACT | FL_TERN_UP);
    const __m512i w = _mm512_maskz_mov_epi32(inx, _mm512_mask_mov_epi32(dn, up, upw));
    return _mm512_mask_or_epi32(w, uf & inx, w, _mm512_set1_epi32(FL_UNDERFLOW));
}

/* One 16-lane half of mul or div (x, y the widened operands, r the
 * widened result): inexact, up and tiny masks; tb selects tininess
 * before rounding (1) or after (0). */
FL__P16_INL void fl__p16_half(int op, const int rc, __m512 x, __m512 y,
                              __m512 r, int tb, __mmask16 *inx, __mmask16 *up,
                              __mmask16 *tiny)
{
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
    const __m512 t14 = _mm512_set1_ps(0x1p-14f), t24 = _mm512_set1_ps(0x1p24f);
    if (op == FL__P16_MUL) {
        const __m512 p = _mm512_mul_round_ps(x, y, _MM_FROUND_TO_NEAREST_INT |
                                                       _MM_FROUND_NO_EXC);
        const __m512 ap = _mm512_and_ps(p, absm);
        *inx = _mm512_cmp_ps_mask(r, p, _CMP_NEQ_UQ);
        *up = _mm512_cmp_ps_mask(r, p, _CMP_GT_OQ);
        *tiny = tb ? _mm512_cmp_ps_mask(ap, t14, _CMP_LT_OQ)
                   : fl__p16_tiny_after(_mm512_mul_ps(p, t24), rc);
    } else {
        /* r*y is exact: compare it with x, the sign of y turning the
         * order of the quotients */
        const __m512 q = _mm512_mul_round_ps(r, y, _MM_FROUND_TO_NEAREST_INT |
                                                       _MM_FROUND_NO_EXC);
        const __mmask16 yneg = _mm512_cmp_ps_mask(y, _mm512_setzero_ps(), _CMP_LT_OQ);
        *inx = _mm512_cmp_ps_mask(q, x, _CMP_NEQ_UQ);
        *up = _mm512_cmp_ps_mask(q, x, _CMP_GT_OQ) ^ (yneg & *inx);
        if (tb) {
            *tiny = _mm512_cmp_ps_mask(_mm512_and_ps(x, absm),
                                       _mm512_mul_ps(_mm512_and_ps(y, absm), t14),
                                       _CMP_LT_OQ);
        } else {
            __m512 s;
            switch (rc) {   /* X rounded in the same mode, binary32 */
            case 1: s = _mm512_div_round_ps(x, y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); break;
            case 2: s = _mm512_div_round_ps(x, y, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); break;
            case 3: s = _mm512_div_round_ps(x, y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); break;
            default: s = _mm512_div_round_ps(x, y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); break;
            }
            *tiny = fl__p16_tiny_after(_mm512_mul_ps(s, t24), rc);
        }
    }
}

#define FL__P16_R(rc)                                                        \
    ((rc) == 1   ? _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC                 \
     : (rc) == 2 ? _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC                 \
     : (rc) == 3 ? _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC                    \
                 : _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define FL__P16_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* The kernel; op and rc (F16C's encoding of the mode) are constants in
 * each inlined copy.  Returns the elements done (n rounded down to a
 * multiple of 32); undecided lanes are done by the scalar entry point
 * before the vector's results are stored (r may be a or b). */
FL__P16_INL size_t fl__p16_binop(const fl_format *f, const int op,
                                 const int rc, uint64_t *r, const uint64_t *a,
                                 const uint64_t *b, size_t n, const fl_ctx *c,
                                 unsigned *each)
{
    const __m512i expm = _mm512_set1_epi16(0x7C00), absm = _mm512_set1_epi16(0x7FFF);
    const __m512i one = _mm512_set1_epi16(0x3C00), big = _mm512_set1_epi16(0x7BFE);
    const int tb = c->tininess == FL_TINY_BEFORE;
    const size_t done = n - n % 32;
    size_t i;

    for (i = 0; i < done; i += 32) {
        const __m512i va0 = fl__p16_load(a + i);
        __m512i vb0 = fl__p16_load(b + i), va, vb, vr;
        __mmask32 bad;
        __m512i w0, w1;
        if (op == FL__P16_SUB)
            vb0 = _mm512_xor_si512(vb0, _mm512_set1_epi16((short)0x8000));
        bad = _mm512_cmpeq_epi16_mask(_mm512_and_si512(va0, expm), expm) |
              _mm512_cmpeq_epi16_mask(_mm512_and_si512(vb0, expm), expm);
        if (op == FL__P16_DIV)
            bad |= _mm512_testn_epi16_mask(vb0, absm);
        /* the undecided lanes compute 1 op 1 (nothing special) */
        va = _mm512_mask_blend_epi16(bad, va0, one);
        vb = _mm512_mask_blend_epi16(bad, vb0, one);
        {
            const __m512h ha = _mm512_castsi512_ph(va), hb = _mm512_castsi512_ph(vb);
            __m512h hr;
            switch (op) {
            case FL__P16_MUL: hr = _mm512_mul_round_ph(ha, hb, FL__P16_R(rc)); break;
            case FL__P16_DIV: hr = _mm512_div_round_ph(ha, hb, FL__P16_R(rc)); break;
            default: hr = _mm512_add_round_ph(ha, hb, FL__P16_R(rc)); break;
            }
            vr = _mm512_castph_si512(hr);
            /* |R| >= 65504 (above 0x7BFE): overflow, or a clamp to the
             * largest finite value that may be one (scalar code) */
            bad |= _mm512_cmpgt_epu16_mask(_mm512_and_si512(vr, absm), big) & ~bad;
            if (op == FL__P16_MUL || op == FL__P16_DIV) {
                __mmask16 i0, u0, t0, i1, u1, t1;
                fl__p16_half(op, rc, fl__p16_lo(va), fl__p16_lo(vb), fl__p16_lo(vr),
                             tb, &i0, &u0, &t0);
                fl__p16_half(op, rc, fl__p16_hi(va), fl__p16_hi(vb), fl__p16_hi(vr),
                             tb, &i1, &u1, &t1);
                w0 = fl__p16_words(i0, u0, t0);
                w1 = fl__p16_words(i1, u1, t1);
            } else {
                /* Fast2Sum in nearest even on the operands ordered by
                 * magnitude (their codes order them): a + b = s + e */
                const __mmask32 sw = _mm512_cmpgt_epu16_mask(_mm512_and_si512(vb, absm),
                                                             _mm512_and_si512(va, absm));
                const __m512h hi = _mm512_castsi512_ph(_mm512_mask_blend_epi16(sw, va, vb));
                const __m512h lo = _mm512_castsi512_ph(_mm512_mask_blend_epi16(sw, vb, va));
                const __m512h s = _mm512_add_round_ph(hi, lo, FL__P16_RN);
                const __m512h e = _mm512_sub_round_ph(
                    lo, _mm512_sub_round_ph(s, hi, FL__P16_RN), FL__P16_RN);
                const __m512h z = _mm512_setzero_ph();
                const __mmask32 rs = _mm512_cmp_ph_mask(hr, s, _CMP_NEQ_UQ);
                const __mmask32 inx = rs | _mm512_cmp_ph_mask(e, z, _CMP_NEQ_UQ);
                const __mmask32 up = (rs & _mm512_cmp_ph_mask(hr, s, _CMP_GT_OQ)) |
                                     (~rs & _mm512_cmp_ph_mask(e, z, _CMP_LT_OQ));
                w0 = fl__p16_words((__mmask16)inx, (__mmask16)up, 0);
                w1 = fl__p16_words((__mmask16)(inx >> 16), (__mmask16)(up >> 16), 0);
            }
        }
        if (bad) {
            uint64_t out[32];
            unsigned ofl[32];
            fl__p16_store(out, vr);
            _mm512_storeu_si512(ofl, w0);
            _mm512_storeu_si512(ofl + 16, w1);
            fl__binop_lanes(op, f, a + i, b + i, c, bad, out, ofl);
            vr = fl__p16_load(out);
            w0 = _mm512_loadu_si512(ofl);
            w1 = _mm512_loadu_si512(ofl + 16);
        }
        fl__p16_store(r + i, vr);
        if (each) {
            _mm512_storeu_si512(each + i, w0);
            _mm512_storeu_si512(each + i + 16, w1);
        }
    }
    return done;
}

#define FL__P16_MODES(op)                                                    \
    switch (c->rm) {                                                         \
    case FL_RNE: return fl__p16_binop(f, op, 0, r, a, b, n, c, each);        \
    case FL_RDN: return fl__p16_binop(f, op, 1, r, a, b, n, c, each);        \
    case FL_RUP: return fl__p16_binop(f, op, 2, r, a, b, n, c, each);        \
    case FL_RTZ: return fl__p16_binop(f, op, 3, r, a, b, n, c, each);        \
    default: return 0;                                                       \
    }

/* One copy per operation, the mode's switch outside the loop. */
#define FL__P16_VOP(name, op)                                                \
    FL__P16_TARGET static size_t name(const fl_format *f, uint64_t *r,      \
                                      const uint64_t *a, const uint64_t *b, \
                                      size_t n, const fl_ctx *c,            \
                                      unsigned *each)                       \
    {                                                                        \
        FL__P16_MODES(op)                                                    \
    }
FL__P16_VOP(fl__p16_vadd, FL__P16_ADD)
FL__P16_VOP(fl__p16_vsub, FL__P16_SUB)
FL__P16_VOP(fl__p16_vmul, FL__P16_MUL)
FL__P16_VOP(fl__p16_vdiv, FL__P16_DIV)
#undef FL__P16_VOP

/*
 * The scalar routes (fl_add, fl_sub, fl_mul, fl_div, fl_sqrt, fl_fma on
 * binary16, hooks.h): one element by the scalar forms of the same
 * instructions (vaddsh ... with the rounding in the instruction), flags
 * as above, and for
 *   sqrt  R*R is exact in binary32: R = X iff R*R = x, R > X iff R*R > x;
 *         a square root of a binary16 value is at least 2^-12, never
 *         tiny, and never overflows;
 *   fma   X = a*b + d is s + e exactly by TwoSum in binary32 (the product
 *         is exact there; binary32's range holds every partial result);
 *         R = X iff R = s and e = 0; otherwise R > X iff R > s, or R = s
 *         and e < 0 (R - s is a nonzero difference of binary32 values
 *         near X, at least the ulp of s, which |e| is below half of).
 *         Tininess before rounding |X| < 2^-14 from s and e; after, X
 *         rounded to odd at 24 bits (s, or the binary32 next to it toward
 *         zero when |X| < |s|, with its last bit set, when e != 0)
 *         rounded by F16C at 11 bits in the mode, scaled as above.
 * Each returns 1 with the result in *out, or 0 having written nothing
 * (an infinite or NaN operand, a negative radicand, a zero divisor, a
 * result of magnitude 65504 or more): the caller's other routes run.
 */
#define FL__P16_SINL FL__P16_TARGET __attribute__((always_inline)) static inline

/* The routes run on random data without a branch on it but the two rare
 * declines (a data-dependent branch mispredicted half the time cost more
 * than the whole route): comparisons are mask bits, selects are masks. */

FL__P16_SINL __m128h fl__p16_h(uint64_t a)
{
    return _mm_castsi128_ph(_mm_cvtsi32_si128((int)(a & 0xFFFF)));
}
FL__P16_SINL uint64_t fl__p16_code(__m128h h)
{
    return (uint16_t)_mm_cvtsi128_si32(_mm_castph_si128(h));
}
/* binary16 value (lane 0) widened, exact */
FL__P16_SINL __m128 fl__p16_f(__m128h h)
{
    return _mm_cvtsh_ss(_mm_setzero_ps(), h);
}
/* finite and of magnitude below 65504 (0x7BFF) */
FL__P16_SINL int fl__p16_small(uint64_t r)
{
    return (r & 0x7FFF) < 0x7BFF;
}
/* the encoding's exponent field is all ones (infinite or NaN) */
FL__P16_SINL int fl__p16_special(uint64_t a)
{
    return (a & 0x7C00) == 0x7C00;
}
/* comparisons of lane 0 as 0 / 1 */
#define FL__P16_CMPH(x, y, p) ((unsigned)_mm_cmp_sh_mask((x), (y), (p)))
#define FL__P16_CMPS(x, y, p) ((unsigned)_mm_cmp_ss_mask((x), (y), (p)))

/* One operation in mode rc (F16C's encoding: 0 nearest, 1 down, 2 up,
 * 3 toward zero; a constant in each inlined copy): dst = OP(args...,
 * rounding). */
#define FL__P16_ROUNDED(dst, rc, OP, ...)                                    \
    switch (rc) {                                                            \
    case 1: dst = OP(__VA_ARGS__, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); break; \
    case 2: dst = OP(__VA_ARGS__, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); break; \
    case 3: dst = OP(__VA_ARGS__, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); break;    \
    default: dst = OP(__VA_ARGS__, FL__P16_RN); break;                       \
    }

/* A route's start: decline (return 0, no flag written) when `declines`,
 * else hr = OP(args...) rounded in mode rc and r its code, declined in
 * turn when |r| >= 65504 (overflow, or a clamp that may be one). */
#define FL__P16_RESULT(declines, OP, ...)                                    \
    if (declines)                                                            \
        return 0;                                                            \
    FL__P16_ROUNDED(hr, rc, OP, __VA_ARGS__)                                 \
    r = fl__p16_code(hr);                                                    \
    if (!fl__p16_small(r))                                                   \
        return 0

/* t (binary32, lane 0) rounded to 11 bits with unbounded exponent in mode
 * rc is below 2^-14 in magnitude: F16C's rounding of t*2^24 (exact, and
 * normal in binary16 wherever it is close) below 2^10 */
FL__P16_SINL unsigned fl__p16_tiny1(__m128 t, const int rc)
{
    const __m128 v = _mm_mul_ss(t, _mm_set_ss(0x1p24f));
    __m128i h;
    switch (rc) {
    case 1: h = _mm_cvtps_ph(v, _MM_FROUND_TO_NEG_INF); break;
    case 2: h = _mm_cvtps_ph(v, _MM_FROUND_TO_POS_INF); break;
    case 3: h = _mm_cvtps_ph(v, _MM_FROUND_TO_ZERO); break;
    default: h = _mm_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT); break;
    }
    return ((uint32_t)_mm_cvtsi128_si32(h) & 0x7FFF) < 0x6400;  /* 2^10 */
}

/* The flag word from inexact, up and tiny (each 0 or 1), without a
 * branch: inexact, TERN_DOWN turned into TERN_UP by up, underflow. */
FL__P16_SINL unsigned fl__p16_word(unsigned inx, unsigned up, unsigned tiny)
{
    const unsigned tern =
        (unsigned)(FL_TERN_DOWN + (int)(up & 1) * (FL_TERN_UP - FL_TERN_DOWN));
    return (0u - inx) & (FL_INEXACT | tern | ((0u - tiny) & FL_UNDERFLOW));
}

#define FL__P16_DISPATCH(call)                                               \
    switch (c->rm) {                                                         \
    case FL_RNE: { const int rc = 0; call; }                                 \
    case FL_RDN: { const int rc = 1; call; }                                 \
    case FL_RUP: { const int rc = 2; call; }                                 \
    default: { const int rc = 3; call; }                                     \
    }

FL__P16_SINL int fl__p16_add_t(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out, const int rc)
{
    const __m128h ha = fl__p16_h(a), hb = fl__p16_h(b);
    __m128h hr;
    uint64_t r;
    (void)c;
    FL__P16_RESULT(fl__p16_special(a) | fl__p16_special(b), _mm_add_round_sh, ha, hb);
    {
        /* Fast2Sum on the operands ordered by magnitude (see the top) */
        const uint64_t sw = 0 - (uint64_t)((b & 0x7FFF) > (a & 0x7FFF));
        const __m128h hi = fl__p16_h((a & ~sw) | (b & sw));
        const __m128h lo = fl__p16_h((b & ~sw) | (a & sw));
        const __m128h sm = _mm_add_round_sh(hi, lo, FL__P16_RN);
        const __m128h e = _mm_sub_round_sh(lo, _mm_sub_round_sh(sm, hi, FL__P16_RN),
                                           FL__P16_RN);
        const __m128h z = _mm_setzero_ph();
        const unsigned rs = FL__P16_CMPH(hr, sm, _CMP_NEQ_UQ);
        const unsigned inx = rs | FL__P16_CMPH(e, z, _CMP_NEQ_UQ);
        const unsigned up = (rs & FL__P16_CMPH(hr, sm, _CMP_GT_OQ)) |
                            (~rs & FL__P16_CMPH(e, z, _CMP_LT_OQ));
        *flags |= fl__p16_word(inx, up, 0);
    }
    *out = r;
    return 1;
}

FL__P16_SINL int fl__p16_mul_t(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out, const int rc)
{
    const __m128h ha = fl__p16_h(a), hb = fl__p16_h(b);
    __m128h hr;
    uint64_t r;
    FL__P16_RESULT(fl__p16_special(a) | fl__p16_special(b), _mm_mul_round_sh, ha, hb);
    {
        const __m128 p = _mm_mul_ss(fl__p16_f(ha), fl__p16_f(hb));   /* exact */
        const __m128 fr = fl__p16_f(hr);
        const __m128 ap = _mm_andnot_ps(_mm_set_ss(-0.0f), p);
        const unsigned tiny = c->tininess == FL_TINY_BEFORE
                                  ? FL__P16_CMPS(ap, _mm_set_ss(0x1p-14f), _CMP_LT_OQ)
                                  : fl__p16_tiny1(p, rc);
        *flags |= fl__p16_word(FL__P16_CMPS(fr, p, _CMP_NEQ_UQ),
                               FL__P16_CMPS(fr, p, _CMP_GT_OQ), tiny);
    }
    *out = r;
    return 1;
}

FL__P16_SINL int fl__p16_div_t(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out, const int rc)
{
    const __m128h ha = fl__p16_h(a), hb = fl__p16_h(b);
    __m128h hr;
    uint64_t r;
    FL__P16_RESULT(fl__p16_special(a) | fl__p16_special(b) | ((b & 0x7FFF) == 0),
                   _mm_div_round_sh, ha, hb);
    {
        const __m128 x = fl__p16_f(ha), y = fl__p16_f(hb);
        const __m128 q = _mm_mul_ss(fl__p16_f(hr), y);             /* exact */
        const __m128 absm = _mm_castsi128_ps(_mm_cvtsi32_si128(0x7FFFFFFF));
        unsigned tiny;
        if (c->tininess == FL_TINY_BEFORE) {
            tiny = FL__P16_CMPS(_mm_and_ps(x, absm),
                                _mm_mul_ss(_mm_and_ps(y, absm), _mm_set_ss(0x1p-14f)),
                                _CMP_LT_OQ);
        } else {
            __m128 sq;     /* X in the same mode, binary32 */
            FL__P16_ROUNDED(sq, rc, _mm_div_round_ss, x, y)
            tiny = fl__p16_tiny1(sq, rc);
        }
        *flags |= fl__p16_word(FL__P16_CMPS(q, x, _CMP_NEQ_UQ),
                               FL__P16_CMPS(q, x, _CMP_GT_OQ) ^ (unsigned)(b >> 15 & 1),
                               tiny);
    }
    *out = r;
    return 1;
}

FL__P16_SINL int fl__p16_sqrt_t(uint64_t a, const fl_ctx *c, unsigned *flags,
                                uint64_t *out, const int rc)
{
    const __m128h ha = fl__p16_h(a);
    __m128h hr;
    (void)c;
    if (fl__p16_special(a) | ((a >> 15 & 1) & ((a & 0x7FFF) != 0)))
        return 0;
    FL__P16_ROUNDED(hr, rc, _mm_sqrt_round_sh, ha, ha)
    {
        const __m128 x = fl__p16_f(ha), fr = fl__p16_f(hr);
        const __m128 q = _mm_mul_ss(fr, fr);                       /* exact */
        *flags |= fl__p16_word(FL__P16_CMPS(q, x, _CMP_NEQ_UQ),
                               FL__P16_CMPS(q, x, _CMP_GT_OQ), 0);
    }
    *out = fl__p16_code(hr);
    return 1;
}

FL__P16_SINL int fl__p16_fma_t(uint64_t a, uint64_t b, uint64_t d,
                               const fl_ctx *c, unsigned *flags,
                               uint64_t *out, const int rc)
{
    const __m128h ha = fl__p16_h(a), hb = fl__p16_h(b), hd = fl__p16_h(d);
    __m128h hr;
    uint64_t r;
    FL__P16_RESULT(fl__p16_special(a) | fl__p16_special(b) | fl__p16_special(d),
                   _mm_fmadd_round_sh, ha, hb, hd);
    {
        const __m128 p = _mm_mul_ss(fl__p16_f(ha), fl__p16_f(hb));   /* exact */
        const __m128 z = fl__p16_f(hd), fr = fl__p16_f(hr);
        /* TwoSum in binary32, nearest even by the instruction: p + z =
         * s + e exactly */
        const __m128 sm = _mm_add_round_ss(p, z, FL__P16_RN);
        const __m128 bb = _mm_sub_round_ss(sm, p, FL__P16_RN);
        const __m128 e = _mm_add_round_ss(
            _mm_sub_round_ss(p, _mm_sub_round_ss(sm, bb, FL__P16_RN), FL__P16_RN),
            _mm_sub_round_ss(z, bb, FL__P16_RN), FL__P16_RN);
        const __m128 z0 = _mm_setzero_ps();
        const unsigned rs = FL__P16_CMPS(fr, sm, _CMP_NEQ_UQ);
        const unsigned enz = FL__P16_CMPS(e, z0, _CMP_NEQ_UQ);
        /* e toward zero from s: |X| < |s| */
        const unsigned ein = enz & (FL__P16_CMPS(e, z0, _CMP_LT_OQ) ^
                                    FL__P16_CMPS(sm, z0, _CMP_LT_OQ));
        unsigned tiny;
        if (c->tininess == FL_TINY_BEFORE) {
            /* |X| < 2^-14: |s| below it, or on it with e toward zero */
            const __m128 as = _mm_andnot_ps(_mm_set_ss(-0.0f), sm);
            tiny = FL__P16_CMPS(as, _mm_set_ss(0x1p-14f), _CMP_LT_OQ) |
                   (FL__P16_CMPS(as, _mm_set_ss(0x1p-14f), _CMP_EQ_OQ) & ein);
        } else {
            /* X rounded to odd at 24 bits: s, or its neighbour toward zero
             * when |X| < |s|, with the last bit set when inexact */
            const __m128i su = _mm_castps_si128(sm);
            const __m128i ou = _mm_or_si128(
                _mm_sub_epi32(su, _mm_cvtsi32_si128((int)ein)),
                _mm_cvtsi32_si128((int)enz));
            tiny = fl__p16_tiny1(_mm_castsi128_ps(ou), rc);
        }
        *flags |= fl__p16_word(rs | enz,
                               (rs & FL__P16_CMPS(fr, sm, _CMP_GT_OQ)) |
                                   (~rs & FL__P16_CMPS(e, z0, _CMP_LT_OQ)),
                               tiny);
    }
    *out = r;
    return 1;
}

FL__P16_TARGET int fl__p16_add(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out)
{
    FL__P16_DISPATCH(return fl__p16_add_t(a, b, c, flags, out, rc))
}
FL__P16_TARGET int fl__p16_sub(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out)
{
    /* a NaN keeps its own sign: such operands are declined before */
    FL__P16_DISPATCH(return fl__p16_add_t(a, b ^ 0x8000, c, flags, out, rc))
}
FL__P16_TARGET int fl__p16_mul(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out)
{
    FL__P16_DISPATCH(return fl__p16_mul_t(a, b, c, flags, out, rc))
}
FL__P16_TARGET int fl__p16_div(uint64_t a, uint64_t b, const fl_ctx *c,
                               unsigned *flags, uint64_t *out)
{
    FL__P16_DISPATCH(return fl__p16_div_t(a, b, c, flags, out, rc))
}
FL__P16_TARGET int fl__p16_sqrt(uint64_t a, const fl_ctx *c, unsigned *flags,
                                uint64_t *out)
{
    FL__P16_DISPATCH(return fl__p16_sqrt_t(a, c, flags, out, rc))
}
FL__P16_TARGET int fl__p16_fma(uint64_t a, uint64_t b, uint64_t d,
                               const fl_ctx *c, unsigned *flags, uint64_t *out)
{
    FL__P16_DISPATCH(return fl__p16_fma_t(a, b, d, c, flags, out, rc))
}

/* The hooks' forms (hooks.h): the route, else the routes after it, so
 * that the operation's hook is one tail call (its entry point then needs
 * no stack frame, whatever route runs); div and sqrt return the route's
 * answer in registers. */
#define FL__P16_ANY2(OP)                                                     \
    FL__P16_TARGET uint64_t fl__p16_##OP##_any(                              \
        const fl_format *f, uint64_t a, uint64_t b, const fl_ctx *c,         \
        unsigned *flags, fl__accel_op2 generic)                              \
    {                                                                        \
        uint64_t r;                                                          \
        return fl__p16_##OP(a, b, c, flags, &r)                              \
                   ? r : fl__accel_##OP##_any(f, a, b, c, flags, generic);   \
    }
FL__P16_ANY2(add)
FL__P16_ANY2(sub)
FL__P16_ANY2(mul)
#undef FL__P16_ANY2
FL__P16_TARGET uint64_t fl__p16_fma_any(const fl_format *f, uint64_t a,
                                        uint64_t b, uint64_t d, const fl_ctx *c,
                                        unsigned *flags)
{
    uint64_t r;
    return fl__p16_fma(a, b, d, c, flags, &r)
               ? r : fl__accel_fma_any(f, a, b, d, c, flags);
}
FL__P16_TARGET fl__accel_res fl__p16_div_res(uint64_t a, uint64_t b,
                                             const fl_ctx *c, unsigned *flags)
{
    fl__accel_res x;
    x.taken = (uint64_t)fl__p16_div(a, b, c, flags, &x.r);
    return x;
}
FL__P16_TARGET fl__accel_res fl__p16_sqrt_res(uint64_t a, const fl_ctx *c,
                                              unsigned *flags)
{
    fl__accel_res x;
    x.taken = (uint64_t)fl__p16_sqrt(a, c, flags, &x.r);
    return x;
}
#endif /* FL__FP16_KERNELS */

size_t fl__fp16_binop(int op, const fl_format *f, uint64_t *r,
                      const uint64_t *a, const uint64_t *b, size_t n,
                      const fl_ctx *c, unsigned *each)
{
#ifdef FL__FP16_KERNELS
    if (fl__accel_level() < FL__CPU_AVX512FP16 ||
        !(f == &fl_binary16 || fl__fmt_is(f, FL__KEY(16, 5, 11), 15)) ||
        c->rm > FL_RUP || c->ftz || c->daz || c->saturate)
        return 0;
    {
        static size_t (*const k[4])(const fl_format *, uint64_t *,
                                    const uint64_t *, const uint64_t *, size_t,
                                    const fl_ctx *, unsigned *) = {
            fl__p16_vadd, fl__p16_vsub, fl__p16_vmul, fl__p16_vdiv };
        return k[op & 3](f, r, a, b, n, c, each);
    }
#else
    (void)op; (void)f; (void)r; (void)a; (void)b; (void)n; (void)c;
    (void)each;
    return 0;
#endif
}
