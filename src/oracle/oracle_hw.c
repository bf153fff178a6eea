/*
 * oracle_hw.c — the x86 floating-point hardware as an oracle.
 *
 * What it checks (all detected at run time with cpuid; nothing here needs
 * -m flags: instructions are reached through inline assembly or functions
 * carrying __attribute__((target(...)))):
 *
 *  binary16, from F16C (vcvtph2ps / vcvtps2ph) and SSE/AVX scalar arithmetic:
 *   - cvt binary32 -> binary16 in RNE/RTZ/RDN/RUP, using the instruction's
 *     immediate rounding field (imm 0..3);  binary16 -> binary32 (exact);
 *     binary64 -> binary16 through round-to-odd into binary32 (see fma);
 *   - add, sub, mul, div, sqrt: widen both operands exactly to binary32,
 *     compute in binary32 with MXCSR.RC = the mode, convert with F16C in the
 *     same mode.  Correct for round-to-nearest-even by Figueroa's theorem
 *     (S. A. Figueroa, "When is double rounding innocuous?", ACM SIGNUM
 *     Newsletter 30(3), 1995): for +, -, *, /, sqrt of p-bit operands,
 *     rounding the exact result to q >= 2p+2 bits and then to p bits gives
 *     the correctly rounded p-bit result.  binary32 has q = 24 >= 2*11+2.
 *     For the directed modes double rounding is innocuous at any q >= p when
 *     both roundings use the same direction: the p-bit grid is a subset of
 *     the q-bit grid (binary16's subnormal grid, multiples of 2^-24, lies in
 *     binary32's normal range), so RD_p(RD_q(x)) = RD_p(x), likewise RU, RZ.
 *   - fma: the product of two binary16 numbers (11-bit significands) has at
 *     most 22 bits and lies in [2^-48, 2^32], so a*b is exact in binary64.
 *     a*b + c is NOT always exact in binary64: with a*b near 2^31 and c near
 *     2^-24 the exact sum spans 56 bits.  So the sum is rounded to odd
 *     (round toward zero, then set the last bit if the rounding was inexact,
 *     read from MXCSR.PE) into binary64, then again to odd into binary32,
 *     then converted by F16C in the requested mode.  Round-to-odd to q bits
 *     followed by any rounding to p <= q-2 bits equals a direct rounding to p
 *     bits (S. Boldo, G. Melquiond, "Emulation of FMA and correctly rounded
 *     sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008):
 *     the odd result lies strictly inside the same p-bit interval as x and
 *     is never a p-bit number or a p-bit midpoint unless x is.  Round-to-odd
 *     is also stable: RO_24(RO_53(x)) = RO_24(x).  The sum is never below
 *     2^-48 in magnitude unless it is 0, so binary32 never goes subnormal.
 *     A plain binary32 fmaf followed by one conversion is a double rounding
 *     in round-to-nearest and is wrong in rare cases; the test
 *     tests/verify_fmaf_counterexample.c finds such a triple.
 *
 *  binary32: add, sub, mul, div, sqrt and fma (FMA3) natively, four modes.
 *
 *  Flags: read from MXCSR (IE, ZE, OE, PE), ORed over the steps.  Overflow
 *  and inexact of the last conversion are those of the exact result by the
 *  same double-rounding arguments.  Underflow is derived: tiny-after-
 *  rounding (rounding the intermediate y, which rounds like the exact x
 *  with unbounded exponent, to p bits in the mode, checked with F16C on y
 *  scaled by 2^24) AND inexact.  MXCSR's denormal-operand flag is ignored.
 *  Tininess is detected after rounding (x86's rule, TestFloat's default).
 *
 *  With AVX-512 (F, BW, VL, DQ) the binary16 flags path runs 16 elements
 *  per instruction, up to 256 per MXCSR read, and reads each element's
 *  flags off the hardware's results (hw_vec16_flags); tests compare it
 *  with the per-element path.
 *
 *  bfloat16 add, sub, mul, div, sqrt (AVX-512 F): binary32 in MXCSR's mode,
 *  then the hardware rounds to 8 bits in the same mode (vgetexpps,
 *  vscalefps, vrndscaleps); why the double rounding is innocuous for
 *  bfloat16, subnormals included, is argued at hw_op_bf16.  Flags as for
 *  binary16.
 *
 *  bfloat16: AVX512-BF16 vcvtneps2bf16 converts binary32 -> bfloat16 always
 *  in round-to-nearest-even, ignores MXCSR, raises no flags, and treats
 *  subnormal binary32 inputs as zero.  The oracle MODELS this: it supports
 *  the conversion only for a job whose context has daz = 1 (so the core is
 *  asked for the same thing), and reports no flags.  NaN inputs are quieted
 *  with the payload truncated, as the x86 preset does.
 *
 *  AVX512-FP16, when the CPU has it (level avx512fp16; GCC 12 builds),
 *  computes binary16 ops natively: the values-only path with embedded
 *  rounding (vaddsh ... {rn,rd,ru,rz}-sae, vfmadd213sh, vsqrtsh, vdivsh),
 *  and the flags path of add, sub, mul, div and sqrt 32 elements at a
 *  time in MXCSR's mode, each lane's flags read off exact arithmetic and
 *  their OR checked against MXCSR's record, underflow included
 *  (hw_p16_flags).  CPUs without it, and fma, use the binary32 route
 *  above.  Compiled with target("avx512fp16").
 *
 *  Round-to-odd (rto), which x86 lacks, is derived for every job that
 *  reports flags: the rtz result with its last bit set when inexact (see
 *  hw_compute).  Round-to-nearest-away (rna), likewise missing, comes from
 *  the rne, rdn and rup results and an exact test for ties (hw_rna).
 *
 *  NaNs: the x86 rule (first NaN operand, quieted; default NaN 0xFE00 /
 *  0xFFC00000), i.e. the core's x86 preset, compared bit for bit.
 */
#include "oracle.h"

#include <stdatomic.h>
#include <string.h>
#include <stdio.h>

#include "cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#define HW_X86 1
#include <immintrin.h>
#else
#define HW_X86 0
#endif

void fl_orc_cpu_model(char *buf, size_t len)
{
    fl__cpu_model(buf, len);
}

#if HW_X86

/* ---------------------------------------------------------------- cpuid */
typedef struct hw_caps {
    int f16c, fma, avx512fp16, avx512bf16;
    int avx512;            /* F, BW, VL and DQ: the vector flags path */
} hw_caps;

/* From the seam's one probe (src/accel/cpu.h), by the calling thread's
 * level: FPLAB_CPU caps what the oracle uses like every other path. */
static hw_caps hw_caps_get(void)
{
    const int l = fl__accel_level();
    hw_caps k;
    k.f16c = k.fma = l >= FL__CPU_AVX2;
    k.avx512 = l >= FL__CPU_AVX512;
    k.avx512fp16 = l >= FL__CPU_AVX512FP16;
    k.avx512bf16 = k.avx512 && (fl__cpu_features() & FL__CPU_BF16) != 0;
    return k;
}

/* ------------------------------------------------------ MXCSR and ops
 * Every instruction whose result depends on MXCSR, and every MXCSR access,
 * is a volatile asm so the compiler cannot move arithmetic across a change
 * of rounding mode or a read of the flags. */
enum { MX_IE = 0x01, MX_DE = 0x02, MX_ZE = 0x04, MX_OE = 0x08, MX_UE = 0x10,
       MX_PE = 0x20, MX_FLAGS = 0x3F, MX_RC_SHIFT = 13 };

static inline unsigned mx_get(void)
{
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m) : : "memory");
    return m;
}
static inline void mx_set(unsigned m)
{
    __asm__ volatile("ldmxcsr %0" : : "m"(m) : "memory");
}

/* MXCSR.RC encoding of a mode: 0 nearest, 1 down, 2 up, 3 toward zero
 * (the same encoding as the F16C immediate). */
static int mx_rc(int rm)
{
    switch (rm) {
    case FL_RNE: return 0;
    case FL_RDN: return 1;
    case FL_RUP: return 2;
    case FL_RTZ: return 3;
    default: return -1;
    }
}

/* A control word: all exceptions masked, no FTZ/DAZ, rounding rc. */
static inline unsigned mx_word(int rc)
{
    return 0x1F80u | ((unsigned)rc << MX_RC_SHIFT);
}

static inline unsigned mx_to_fl(unsigned m)
{
    unsigned f = 0;
    if (m & MX_IE) f |= FL_INVALID;
    if (m & MX_ZE) f |= FL_DIVBYZERO;
    if (m & MX_OE) f |= FL_OVERFLOW;
    if (m & MX_UE) f |= FL_UNDERFLOW;
    if (m & MX_PE) f |= FL_INEXACT;
    return f;
}

static inline uint32_t f2u(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float u2f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static inline uint64_t d2u(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static inline double u2d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
/* Finiteness from the bits: an arithmetic test (x - x == 0) would raise
 * invalid in MXCSR for an infinity. */
static inline int fin32(float x) { return (f2u(x) & 0x7F800000u) != 0x7F800000u; }
static inline int fin64(double x)
{
    return (d2u(x) & 0x7FF0000000000000ull) != 0x7FF0000000000000ull;
}

/* binary16 -> binary32, exact (invalid for a signaling NaN). */
static inline float hw_h2f(uint16_t h)
{
    __m128i v = _mm_cvtsi32_si128(h);
    __m128 r;
    __asm__ volatile("vcvtph2ps %1, %0" : "=x"(r) : "x"(v));
    return _mm_cvtss_f32(r);
}

/* binary32 -> binary16 with the F16C immediate: 0..3 = RC encoding, 4 =
 * MXCSR.RC.  The immediate must be a constant, hence the switch. */
static inline uint16_t hw_f2h(float x, int imm)
{
    __m128 v = _mm_set_ss(x);
    __m128i r;
    switch (imm) {
    case 0: __asm__ volatile("vcvtps2ph $0, %1, %0" : "=x"(r) : "x"(v)); break;
    case 1: __asm__ volatile("vcvtps2ph $1, %1, %0" : "=x"(r) : "x"(v)); break;
    case 2: __asm__ volatile("vcvtps2ph $2, %1, %0" : "=x"(r) : "x"(v)); break;
    case 3: __asm__ volatile("vcvtps2ph $3, %1, %0" : "=x"(r) : "x"(v)); break;
    default: __asm__ volatile("vcvtps2ph $4, %1, %0" : "=x"(r) : "x"(v)); break;
    }
    return (uint16_t)_mm_cvtsi128_si32(r);
}

/* Scalar binary32 / binary64 arithmetic in MXCSR's mode.  The first source
 * operand is a: x86 returns the first NaN operand, quieted. */
#define HW_BIN(name, type, insn)                                          \
    static inline type name(type a, type b)                               \
    {                                                                     \
        type r;                                                           \
        __asm__ volatile(insn " %2, %1, %0" : "=x"(r) : "x"(a), "x"(b));  \
        return r;                                                         \
    }
HW_BIN(hw_add32, float, "vaddss")
HW_BIN(hw_sub32, float, "vsubss")
HW_BIN(hw_mul32, float, "vmulss")
HW_BIN(hw_div32, float, "vdivss")
HW_BIN(hw_add64, double, "vaddsd")
HW_BIN(hw_mul64, double, "vmulsd")

static inline float hw_sqrt32(float a)
{
    float r;
    __asm__ volatile("vsqrtss %1, %1, %0" : "=x"(r) : "x"(a));
    return r;
}
static inline double hw_f2d(float a)
{
    double r;
    __asm__ volatile("vcvtss2sd %1, %1, %0" : "=x"(r) : "x"(a));
    return r;
}
static inline float hw_d2f(double a)
{
    float r;
    __asm__ volatile("vcvtsd2ss %1, %1, %0" : "=x"(r) : "x"(a));
    return r;
}
/* a*b + c in one rounding (FMA3).  Which NaN comes out when several
 * operands are NaN follows the order of the multiplicands in the form's
 * formula (measured: the 213 form b*a + c returns b's NaN before a's), so
 * the 231 form, c = a*b + c, gives the NaN order a, b, c of the x86 preset. */
static inline float hw_fma32(float a, float b, float c)
{
    __asm__ volatile("vfmadd231ss %2, %1, %0" : "+x"(c) : "x"(a), "x"(b));
    return c;
}

/* ------------------------------------------------- binary16 through fp32 */

/* Tininess after rounding of the exact x, from y (the binary32
 * intermediate, which rounds to 11 bits like x with unbounded exponent):
 * |round_p(y)| < 2^-14.  y*2^24 is exact and lies in binary16's normal
 * range whenever it matters.  Uses F16C in mode rc; call with flags saved. */
static inline int hw_tiny16(float y, int rc)
{
    float ay = y < 0 ? -y : y;
    if (!(ay < 0x1p-14f) || ay == 0.0f)
        return 0;
    {
        uint16_t h = hw_f2h(y * 0x1p24f, rc);
        float back = hw_h2f(h);
        if (back < 0) back = -back;
        return back < 0x1p10f;
    }
}

/* Round-to-odd of a*b + c into binary32 (a, b, c finite binary16 values
 * widened; see the header comment).  Returns the binary32 value and ORs the
 * inexact state into *pe.  rm_exact: mode used when the sum is exact (it
 * only decides the sign of an exact zero). */
static inline float hw_fma16_to_odd(float a, float b, float c, int rc_exact,
                                    unsigned *mx)
{
    double p, s;
    float y;
    unsigned m;
    mx_set(mx_word(3));                       /* toward zero */
    p = hw_mul64(hw_f2d(a), hw_f2d(b));       /* exact: 22-bit product */
    s = hw_add64(p, hw_f2d(c));
    m = mx_get();
    if (!(m & MX_PE)) {
        /* exact sum: recompute in the target direction for the sign of 0 */
        mx_set(mx_word(rc_exact));
        s = hw_add64(p, hw_f2d(c));
        m |= mx_get();
    } else if (fin64(s)) {
        s = u2d(d2u(s) | 1);                  /* round to odd */
    }
    mx_set(mx_word(3));
    y = hw_d2f(s);
    {
        unsigned m2 = mx_get();
        if ((m2 & MX_PE) && fin32(y))
            y = u2f(f2u(y) | 1);
        m |= m2;
    }
    *mx |= m;
    return y;
}

static uint16_t hw_op16(int op, int rc, uint16_t a, uint16_t b, uint16_t c,
                        unsigned *fl)
{
    unsigned m;
    float y;
    uint16_t h;
    mx_set(mx_word(rc));
    switch (op) {
    case FL_ORC_ADD: y = hw_add32(hw_h2f(a), hw_h2f(b)); break;
    case FL_ORC_SUB: y = hw_sub32(hw_h2f(a), hw_h2f(b)); break;
    case FL_ORC_MUL: y = hw_mul32(hw_h2f(a), hw_h2f(b)); break;
    case FL_ORC_DIV: y = hw_div32(hw_h2f(a), hw_h2f(b)); break;
    case FL_ORC_SQRT: y = hw_sqrt32(hw_h2f(a)); break;
    case FL_ORC_FMA: {
        float fa = hw_h2f(a), fb = hw_h2f(b), fc = hw_h2f(c);
        unsigned pre = mx_get();
        unsigned acc = 0;
        if (fin32(fa) && fin32(fb) && fin32(fc)) {
            y = hw_fma16_to_odd(fa, fb, fc, rc, &acc);
        } else {
            /* a NaN or infinity is involved: binary32 fma is exact here
             * (the result is NaN, an infinity, or raises invalid) */
            y = hw_fma32(fa, fb, fc);
            acc = mx_get();
        }
        mx_set(mx_word(rc) | ((pre | acc) & MX_FLAGS));
        break;
    }
    default: y = 0; break;
    }
    h = hw_f2h(y, 4);
    m = mx_get();
    if (fl) {
        unsigned f = mx_to_fl(m) & ~FL_UNDERFLOW;
        if ((f & FL_INEXACT) && hw_tiny16(y, rc))
            f |= FL_UNDERFLOW;
        *fl = f;
    }
    return h;
}

static float hw_op32(int op, float a, float b, float c)
{
    switch (op) {
    case FL_ORC_ADD: return hw_add32(a, b);
    case FL_ORC_SUB: return hw_sub32(a, b);
    case FL_ORC_MUL: return hw_mul32(a, b);
    case FL_ORC_DIV: return hw_div32(a, b);
    case FL_ORC_SQRT: return hw_sqrt32(a);
    case FL_ORC_FMA: return hw_fma32(a, b, c);
    default: return 0;
    }
}

/* ------------------------------------------------- vector values path */
__attribute__((target("avx,f16c")))
static void hw_vec16(int op, int rc, size_t n, const uint64_t *a,
                     const uint64_t *b, uint64_t *r)
{
    size_t i = 0;
    mx_set(mx_word(rc));
    for (; i + 8 <= n; i += 8) {
        uint16_t ha[8], hb[8], hr[8];
        __m256 x, y, z;
        __m128i v;
        int k;
        for (k = 0; k < 8; k++) {
            ha[k] = (uint16_t)a[i + k];
            hb[k] = b ? (uint16_t)b[i + k] : 0;
        }
        x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)ha));
        y = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)hb));
        switch (op) {
        case FL_ORC_ADD: __asm__ volatile("vaddps %2, %1, %0" : "=x"(z) : "x"(x), "x"(y)); break;
        case FL_ORC_SUB: __asm__ volatile("vsubps %2, %1, %0" : "=x"(z) : "x"(x), "x"(y)); break;
        case FL_ORC_MUL: __asm__ volatile("vmulps %2, %1, %0" : "=x"(z) : "x"(x), "x"(y)); break;
        case FL_ORC_DIV: __asm__ volatile("vdivps %2, %1, %0" : "=x"(z) : "x"(x), "x"(y)); break;
        default: __asm__ volatile("vsqrtps %1, %0" : "=x"(z) : "x"(x)); break;
        }
        __asm__ volatile("vcvtps2ph $4, %1, %0" : "=x"(v) : "x"(z));
        _mm_storeu_si128((__m128i *)hr, v);
        for (k = 0; k < 8; k++)
            r[i + k] = hr[k];
    }
    for (; i < n; i++)
        r[i] = hw_op16(op, rc, (uint16_t)a[i], b ? (uint16_t)b[i] : 0, 0,
                       NULL);
}

/* ------------------------------------------- lane flags, 16 at a time
 * Shared by the binary16 and bfloat16 vector paths (both targets include
 * these features). */
#define HW_LANE_TARGET __attribute__((target("avx512f,avx512vl,avx512dq")))
#define HW_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* TwoSum with embedded round-to-nearest (MXCSR holds another mode): the
 * lanes where x + y is not exactly s. */
HW_LANE_TARGET static inline __mmask8 hw_sum_ne(__m512d x, __m512d y,
                                                __m512d s)
{
    __m512d d = _mm512_add_round_pd(x, y, HW_RN);
    __m512d bb = _mm512_sub_round_pd(d, x, HW_RN);
    __m512d err = _mm512_add_round_pd(
        _mm512_sub_round_pd(x, _mm512_sub_round_pd(d, bb, HW_RN), HW_RN),
        _mm512_sub_round_pd(y, bb, HW_RN), HW_RN);
    return _mm512_cmp_pd_mask(err, _mm512_setzero_pd(), _CMP_NEQ_UQ) |
           _mm512_cmp_pd_mask(d, s, _CMP_NEQ_UQ);
}

/* The lanes where the binary32 step s = x op y was inexact, decided in
 * binary64 where the check is exact: x + y and x - y themselves when
 * sum_exact (binary16 operands: the sum spans at most 41 bits), else
 * TwoSum; the exact product for *; s*y against x for /; s*s against x for
 * sqrt.  One half (8 lanes) at a time. */
HW_LANE_TARGET __attribute__((always_inline))
static inline __mmask8 hw_half_inexact(int op, __m256 x, __m256 y, __m256 s,
                                       int sum_exact)
{
    const __m512d xd = _mm512_cvtps_pd(x), yd = _mm512_cvtps_pd(y),
                  sd = _mm512_cvtps_pd(s);
    switch (op) {
    case FL_ORC_ADD:
        return sum_exact ? _mm512_cmp_pd_mask(_mm512_add_pd(xd, yd), sd,
                                              _CMP_NEQ_UQ)
                         : hw_sum_ne(xd, yd, sd);
    case FL_ORC_SUB:
        return sum_exact ? _mm512_cmp_pd_mask(_mm512_sub_pd(xd, yd), sd,
                                              _CMP_NEQ_UQ)
                         : hw_sum_ne(xd, _mm512_sub_pd(_mm512_setzero_pd(), yd),
                                     sd);
    case FL_ORC_MUL:
        return _mm512_cmp_pd_mask(_mm512_mul_pd(xd, yd), sd, _CMP_NEQ_UQ);
    case FL_ORC_DIV:
        return _mm512_cmp_pd_mask(_mm512_mul_pd(sd, yd), xd, _CMP_NEQ_UQ);
    default:
        return _mm512_cmp_pd_mask(_mm512_mul_pd(sd, sd), xd, _CMP_NEQ_UQ);
    }
}

/* hw_half_inexact on all 16 lanes. */
HW_LANE_TARGET __attribute__((always_inline))
static inline __mmask16 hw_lanes_inexact(int op, __m512 x, __m512 y,
                                         __m512 s, int sum_exact)
{
    const __mmask8 lo = hw_half_inexact(op, _mm512_castps512_ps256(x),
                                        _mm512_castps512_ps256(y),
                                        _mm512_castps512_ps256(s), sum_exact);
    const __mmask8 hi = hw_half_inexact(op, _mm512_extractf32x8_ps(x, 1),
                                        _mm512_extractf32x8_ps(y, 1),
                                        _mm512_extractf32x8_ps(s, 1), sum_exact);
    return (__mmask16)(lo | (hi << 8));
}

/* The 16 lanes' flag words from their inexact, overflow and tiny masks;
 * all FL_ORC_ERROR when the OR over the lanes of the group that MXCSR's
 * record m covers (ape, aoe: the group's inexact and overflow masks
 * OR-ed) disagrees with m (IE and ZE cannot occur: such operands run
 * apart). */
HW_LANE_TARGET static inline __m512i hw_lane_flags(__mmask16 pe,
                                                   __mmask16 oe,
                                                   __mmask16 tiny,
                                                   __mmask16 ape,
                                                   __mmask16 aoe, unsigned m)
{
    if (((m & MX_PE) != 0) != (ape != 0) ||
        ((m & MX_OE) != 0) != (aoe != 0) || (m & (MX_IE | MX_ZE)))
        return _mm512_set1_epi32((int)FL_ORC_ERROR);
    return _mm512_or_si512(
        _mm512_or_si512(
            _mm512_maskz_mov_epi32(pe, _mm512_set1_epi32(FL_INEXACT)),
            _mm512_maskz_mov_epi32(oe, _mm512_set1_epi32(FL_OVERFLOW))),
        _mm512_maskz_mov_epi32(pe & tiny, _mm512_set1_epi32(FL_UNDERFLOW)));
}

/* ------------------------------------------------ vector flags path
 * binary16 add, sub, mul, div, sqrt with flags, 16 elements at a time.
 * The values come from the same instructions as hw_op16 (F16C widening,
 * the binary32 operation in MXCSR's mode, F16C narrowing in MXCSR's
 * mode), run as 512-bit sequences, a group of up to HW_GROUP of them
 * between an ldmxcsr that clears the flags and an stmxcsr that reads
 * them.  MXCSR's flags are one word for the group, so the flags of each
 * lane are read off the hardware's own results with exact hardware
 * arithmetic:
 *
 *   inexact   the binary32 step was inexact (its result s differs from the
 *             exact result, checked in binary64 where it is exact: x+y,
 *             x-y and x*y of binary16 values, s*y against x for x/y, s*s
 *             against x for sqrt) or the narrowing was (the binary16
 *             result h, widened back, differs from s);
 *   overflow  F16C narrowing s/2 (exact) in the mode gives at least 2^15:
 *             s rounded to 11 bits with unbounded exponent is above the
 *             largest finite 65504 (scaling by 2 commutes with rounding
 *             in the normal range);
 *   underflow inexact and tiny after rounding, as hw_tiny16 (in MXCSR
 *             the narrowing's underflow bit is not used: see the header).
 *
 * Then the lanes' OR must equal what MXCSR recorded (PE, OE; IE and ZE
 * cannot occur, see below): a disagreement is an internal failure of the
 * oracle and marks the group's elements FL_ORC_ERROR.  Lanes with an infinite
 * or NaN operand, a zero divisor or a negative radicand have their
 * operands replaced by 1.0 (which raises nothing) and run as a second
 * block of their own (hw_vec16_spec, its own MXCSR read).
 * tests/verify_xcheck.c compares this path with the scalar one. */
#define HW_V16_TARGET                                                        \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c")))

/* F16C narrowing with the immediate mode rc (a constant per case). */
HW_V16_TARGET static inline __m256i hw_v16_cvt(__m512 v, int rc)
{
    switch (rc) {
    case 0: return _mm512_cvtps_ph(v, 0);
    case 1: return _mm512_cvtps_ph(v, 1);
    case 2: return _mm512_cvtps_ph(v, 2);
    default: return _mm512_cvtps_ph(v, 3);
    }
}

HW_V16_TARGET static __m256i hw_v16_load(const uint64_t *p)
{
    __m128i lo = _mm512_cvtepi64_epi16(_mm512_loadu_si512(p));
    __m128i hi = _mm512_cvtepi64_epi16(_mm512_loadu_si512(p + 8));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* A group: up to HW_GROUP blocks of 16 elements run between one ldmxcsr
 * and one stmxcsr.  On Intel's cores ldmxcsr and stmxcsr wait for every
 * floating-point instruction before them to finish: once per block of 16
 * that drain was half the exhaustive sweep's time.  The group's operands
 * (special lanes replaced by 1.0) are packed into pa, pb; the hardware's
 * binary32 results go to ps and its binary16 ones to ph, by one loop of
 * the block's instruction sequence (hw_v16_run). */
enum { HW_GROUP = 16 };

#define HW_V16_RUN(OP)                                                       \
    __asm__ volatile("ldmxcsr %[w]\n\t"                                      \
                     "1:\n\t"                                                \
                     "vcvtph2ps (%[pa],%[k]), %%zmm0\n\t"                    \
                     "vcvtph2ps (%[pb],%[k]), %%zmm1\n\t"                    \
                     OP "\n\t"                                               \
                     "vmovups %%zmm2, (%[ps],%[k],2)\n\t"                    \
                     "vcvtps2ph $4, %%zmm2, (%[ph],%[k])\n\t"                \
                     "add $32, %[k]\n\t"                                     \
                     "cmp %[end], %[k]\n\t"                                  \
                     "jb 1b\n\t"                                             \
                     "stmxcsr %[m]"                                          \
                     : [k] "+r"(k), [m] "=m"(m)                              \
                     : [w] "m"(word), [pa] "r"(pa), [pb] "r"(pb),            \
                       [ps] "r"(ps), [ph] "r"(ph), [end] "r"(end)            \
                     : "xmm0", "xmm1", "xmm2", "memory", "cc")

/* The five operations as assembly, sfx "ps" (binary32) or "ph"
 * (binary16): zmm2 = zmm0 op zmm1, sqrt of zmm0; ASM runs one.
 *
 * HW_ZEROUPPER: the assembly loops name zmm registers the compiler does
 * not see as 512-bit ones, so it would not clear their upper halves on
 * the way out; dirty upper halves slow every legacy-SSE instruction that
 * follows on Intel's cores (the core's scalar code is SSE: an rna sweep,
 * per element, ran at 2 M/s).  Each function that runs such a loop ends
 * it with vzeroupper (the intrinsic, so that the compiler keeps its own
 * vectors across it; the loops are functions of their own, noinline, so
 * that no vector of the caller is live there). */
#define HW_OPS5(ASM, sfx)                                                    \
    switch (op) {                                                            \
    case FL_ORC_ADD: ASM("vadd" sfx " %%zmm1, %%zmm0, %%zmm2"); break;       \
    case FL_ORC_SUB: ASM("vsub" sfx " %%zmm1, %%zmm0, %%zmm2"); break;       \
    case FL_ORC_MUL: ASM("vmul" sfx " %%zmm1, %%zmm0, %%zmm2"); break;       \
    case FL_ORC_DIV: ASM("vdiv" sfx " %%zmm1, %%zmm0, %%zmm2"); break;       \
    default: ASM("vsqrt" sfx " %%zmm0, %%zmm2"); break;                      \
    }

/* nb >= 1 blocks of pa, pb (16 binary16 codes each); returns MXCSR's
 * record. */
HW_V16_TARGET __attribute__((noinline))
static unsigned hw_v16_run(int op, unsigned word, size_t nb,
                           const uint16_t *pa, const uint16_t *pb, float *ps,
                           uint16_t *ph)
{
    size_t k = 0;                      /* byte offset into pa, pb and ph */
    const size_t end = 32 * nb;
    unsigned m;
    HW_OPS5(HW_V16_RUN, "ps")
    _mm256_zeroupper();     /* the loop's zmm registers: see HW_ZEROUPPER */
    return m;
}

/* The special lanes of a block (spec: an infinite or NaN operand, a zero
 * divisor, a negative radicand) together, by the same instruction
 * sequence on their own operands, the other lanes holding 1.0.  Their
 * results are exact (an infinity, a NaN, 0 for finite / infinity), so
 * their only flags are invalid and divide-by-zero, which each lane has
 * when
 *   invalid         an operand is a signalling NaN, or the result is a
 *                   NaN from operands that are not (inf - inf, 0 * inf,
 *                   0 / 0, inf / inf, the root of a negative number);
 *   divide-by-zero  the quotient is infinite and both operands finite;
 * read off the binary16 codes of the operands and of the hardware's
 * result.  The lanes' OR must equal what MXCSR recorded (and nothing
 * else may be recorded): otherwise the lanes are marked FL_ORC_ERROR. */
HW_V16_TARGET
static void hw_vec16_spec(int op, unsigned word, __m256i va0, __m256i vb0,
                          __mmask16 spec, uint64_t *r, unsigned *flags)
{
    const __m256i one16 = _mm256_set1_epi16(0x3C00);
    const __m256i expm = _mm256_set1_epi16(0x7C00);
    const __m256i absm = _mm256_set1_epi16(0x7FFF);
    const __m256i quiet = _mm256_set1_epi16(0x0200);
    const __m256i va = _mm256_mask_blend_epi16(spec, one16, va0);
    const __m256i vb = _mm256_mask_blend_epi16(spec, one16, vb0);
    uint16_t pa[16] __attribute__((aligned(64)));
    uint16_t pb[16] __attribute__((aligned(64)));
    uint16_t hr[16] __attribute__((aligned(64)));
    float ps[16] __attribute__((aligned(64)));
    __m256i h;
    unsigned m, k;
    __mmask16 nan_a, nan_b, nan_h, snan, ie, dz = 0;
    int ok;

    _mm256_store_si256((__m256i *)pa, va);
    _mm256_store_si256((__m256i *)pb, vb);
    m = hw_v16_run(op, word, 1, pa, pb, ps, hr);
    h = _mm256_load_si256((const __m256i *)hr);
    nan_a = _mm256_cmpgt_epu16_mask(_mm256_and_si256(va, absm), expm);
    nan_b = _mm256_cmpgt_epu16_mask(_mm256_and_si256(vb, absm), expm);
    nan_h = _mm256_cmpgt_epu16_mask(_mm256_and_si256(h, absm), expm);
    snan = (nan_a & _mm256_cmpeq_epi16_mask(_mm256_and_si256(va, quiet),
                                            _mm256_setzero_si256())) |
           (nan_b & _mm256_cmpeq_epi16_mask(_mm256_and_si256(vb, quiet),
                                            _mm256_setzero_si256()));
    ie = (snan | (nan_h & (__mmask16)~(nan_a | nan_b))) & spec;
    if (op == FL_ORC_DIV)
        dz = _mm256_cmpeq_epi16_mask(_mm256_and_si256(h, absm), expm) &
             _mm256_cmpneq_epi16_mask(_mm256_and_si256(va, expm), expm) &
             _mm256_cmpneq_epi16_mask(_mm256_and_si256(vb, expm), expm) &
             spec;
    ok = ((m & MX_IE) != 0) == (ie != 0) && ((m & MX_ZE) != 0) == (dz != 0) &&
         !(m & (MX_OE | MX_UE | MX_PE));
    for (k = spec; k; k &= k - 1) {
        const int l = __builtin_ctz(k);
        r[l] = hr[l];
        flags[l] = !ok ? FL_ORC_ERROR
                       : ((ie >> l & 1) ? FL_INVALID : 0u) |
                             ((dz >> l & 1) ? FL_DIVBYZERO : 0u);
    }
}

/* Returns how many elements it did (a multiple of 16), by groups.  The
 * lanes' OR is checked against MXCSR's record of the whole group
 * (hw_lane_flags); a disagreement marks the group's elements
 * FL_ORC_ERROR. */
HW_V16_TARGET
static size_t hw_vec16_flags(int op, int rc, size_t n, const uint64_t *a,
                             const uint64_t *b, uint64_t *r, unsigned *flags)
{
    const unsigned word = mx_word(rc);
    const __m256i expm = _mm256_set1_epi16(0x7C00);
    const __m256i one16 = _mm256_set1_epi16(0x3C00);
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
    size_t i, done = n - n % 16;

    for (i = 0; i < done;) {
        const size_t nb = (done - i) / 16 < HW_GROUP ? (done - i) / 16 : HW_GROUP;
        uint16_t pa[HW_GROUP * 16] __attribute__((aligned(64)));
        uint16_t pb[HW_GROUP * 16] __attribute__((aligned(64)));
        uint16_t ph[HW_GROUP * 16] __attribute__((aligned(64)));
        float ps[HW_GROUP * 16] __attribute__((aligned(64)));
        __mmask16 spec[HW_GROUP], pe[HW_GROUP], oe[HW_GROUP], tiny[HW_GROUP];
        __mmask16 ape = 0, aoe = 0;
        unsigned m;
        size_t k;

        for (k = 0; k < nb; k++) {
            const size_t e = i + 16 * k;
            const __m256i va = hw_v16_load(a + e);
            const __m256i vb = op == FL_ORC_SQRT ? one16 : hw_v16_load(b + e);
            __mmask16 sp =
                _mm256_cmpeq_epi16_mask(_mm256_and_si256(va, expm), expm) |
                _mm256_cmpeq_epi16_mask(_mm256_and_si256(vb, expm), expm);
            if (op == FL_ORC_DIV)
                sp |= _mm256_cmpeq_epi16_mask(
                    _mm256_and_si256(vb, _mm256_set1_epi16(0x7FFF)),
                    _mm256_setzero_si256());
            if (op == FL_ORC_SQRT)
                sp |= _mm256_cmpgt_epu16_mask(va, _mm256_set1_epi16((short)0x8000));
            spec[k] = sp;
            _mm256_store_si256((__m256i *)(pa + 16 * k),
                               _mm256_mask_blend_epi16(sp, va, one16));
            _mm256_store_si256((__m256i *)(pb + 16 * k),
                               _mm256_mask_blend_epi16(sp, vb, one16));
        }

        m = hw_v16_run(op, word, nb, pa, pb, ps, ph);

        for (k = 0; k < nb; k++) {
            /* the widened operands again (exact, raising nothing: no
             * signalling NaN is left in pa, pb) */
            const __m512 x = _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(pa + 16 * k)));
            const __m512 y = _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(pb + 16 * k)));
            const __m512 s = _mm512_load_ps(ps + 16 * k);
            const __m256i h = _mm256_load_si256((const __m256i *)(ph + 16 * k));
            const __m512 as = _mm512_and_ps(s, absm);
            /* inexact: the binary32 step ... */
            pe[k] = hw_lanes_inexact(op, x, y, s, 1);
            /* ... or the narrowing */
            pe[k] |= _mm512_cmp_ps_mask(_mm512_cvtph_ps(h), s, _CMP_NEQ_UQ);
            /* overflow: s/2 narrowed in the mode reaches 2^15 */
            oe[k] = _mm512_cmp_ps_mask(
                _mm512_and_ps(_mm512_cvtph_ps(hw_v16_cvt(
                                  _mm512_mul_ps(s, _mm512_set1_ps(0.5f)), rc)),
                              absm),
                _mm512_set1_ps(0x1p15f), _CMP_GE_OQ);
            /* tiny after rounding: hw_tiny16 lane by lane */
            tiny[k] = _mm512_cmp_ps_mask(as, _mm512_set1_ps(0x1p-14f), _CMP_LT_OQ) &
                      _mm512_cmp_ps_mask(as, _mm512_setzero_ps(), _CMP_NEQ_UQ) &
                      _mm512_cmp_ps_mask(
                          _mm512_and_ps(_mm512_cvtph_ps(hw_v16_cvt(
                                            _mm512_mul_ps(s, _mm512_set1_ps(0x1p24f)),
                                            rc)),
                                        absm),
                          _mm512_set1_ps(0x1p10f), _CMP_LT_OQ);
            ape |= pe[k];
            aoe |= oe[k];
        }
        for (k = 0; k < nb; k++, i += 16) {
            const __m256i h = _mm256_load_si256((const __m256i *)(ph + 16 * k));
            _mm512_storeu_si512(r + i, _mm512_cvtepu16_epi64(_mm256_castsi256_si128(h)));
            _mm512_storeu_si512(r + i + 8,
                                _mm512_cvtepu16_epi64(_mm256_extracti128_si256(h, 1)));
            _mm512_storeu_si512(flags + i, hw_lane_flags(pe[k], oe[k], tiny[k],
                                                         ape, aoe, m));
            if (spec[k])
                hw_vec16_spec(op, word, hw_v16_load(a + i),
                              op == FL_ORC_SQRT ? one16 : hw_v16_load(b + i),
                              spec[k], r + i, flags + i);
        }
    }
    return done;
}

/* ------------------------------------------------------ bfloat16 ops
 * bfloat16 add, sub, mul, div, sqrt in RNE/RTZ/RDN/RUP with flags, from
 * AVX-512F instructions.  Widening bfloat16 to binary32 is exact (the
 * encoding shifted left 16 bits).  The binary32 operation runs in MXCSR's
 * mode; the result s is then rounded to 8 significant bits by the
 * hardware: e = vgetexpps(s) (the exponent, -inf for 0), e1 = max(e,
 * -126), t = vscalefps(s, -e1) (exact, t in [0, 2)), r = vrndscaleps(t)
 * with 7 fraction bits in the mode, z = vscalefps(r, e1) (exact, or an
 * overflow to infinity when r = 2 and e1 = 127).  Below 2^-126 the clamp
 * keeps the quantum at bfloat16's subnormal step 2^-133.  z has at most 8
 * significant bits, so its encoding shifted right 16 bits is the
 * bfloat16 result.
 *
 * The double rounding (binary32, then 8 bits) is innocuous:
 *  - directed modes: bfloat16's grid, subnormals included, is a subset of
 *    binary32's, so RD8(RD24(x)) = RD8(x), likewise RU, RZ; for overflow,
 *    RZ24 of x >= 2^128 is FLT_MAX, which RZ8 takes to bfloat16's
 *    largest finite value, as RZ8(x) does;
 *  - nearest-even, normal range: Figueroa's theorem (see the header) with
 *    q = 24 >= 2*8 + 2; the overflow threshold 2^128 - 2^119 is an 8-bit
 *    midpoint, so it is covered;
 *  - nearest-even below 2^-126: sums are exact in binary32; a product
 *    M*2^k (M <= 255^2 = 65025) is exact in binary32 when 2^k >= 2^-149
 *    and otherwise below 2^-134 and farther than 2^-150 from it; a
 *    quotient A/B*2^j (A, B < 256) within 2^-150 of a midpoint
 *    (2i+1)*2^-134 would give a numerator A*2^j - (2i+1)*2^-134*B that is
 *    a nonzero multiple of 2^min(j,-134) smaller than 255*2^-150, which
 *    forces j < -142 and then the quotient is below 2^-135: so no
 *    binary32 rounding lands on a midpoint that x is not; square roots
 *    are never below 2^-126.
 * Flags: MXCSR (IE, ZE, OE, PE) over all the steps; underflow derived as
 * tininess after rounding and inexact, tininess from s: e < -127, or
 * e = -127 and s*2^127 rounded to 8 bits in the mode stays below 2.
 * An infinite or NaN s is the result itself (its top 16 bits).
 */
#define HW_BF_TARGET __attribute__((target("avx512f,avx512vl,avx512dq")))

HW_BF_TARGET static inline float hw_getexp32(float a)
{
    float r;
    __asm__ volatile("vgetexpss %1, %1, %0" : "=v"(r) : "v"(a));
    return r;
}
HW_BF_TARGET static inline float hw_scalef32(float a, float k)
{
    float r;
    __asm__ volatile("vscalefss %2, %1, %0" : "=v"(r) : "v"(a), "v"(k));
    return r;
}
HW_BF_TARGET static inline float hw_max32(float a, float b)
{
    float r;
    __asm__ volatile("vmaxss %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
    return r;
}
/* Round to a multiple of 2^-7 in mode rc (the immediate's low bits). */
HW_BF_TARGET static inline float hw_rnd7(float a, int rc)
{
    float r;
    switch (rc) {
    case 0: __asm__ volatile("vrndscaless $0x70, %1, %1, %0" : "=v"(r) : "v"(a)); break;
    case 1: __asm__ volatile("vrndscaless $0x71, %1, %1, %0" : "=v"(r) : "v"(a)); break;
    case 2: __asm__ volatile("vrndscaless $0x72, %1, %1, %0" : "=v"(r) : "v"(a)); break;
    default: __asm__ volatile("vrndscaless $0x73, %1, %1, %0" : "=v"(r) : "v"(a)); break;
    }
    return r;
}

/* Tininess after rounding at 8 bits, from s and its exponent e (call
 * after the flags were read: it may raise inexact). */
HW_BF_TARGET static inline int hw_tiny8(float s, float e, int rc)
{
    if (e < -127.0f)
        return 1;                               /* includes s = 0 */
    if (e > -127.0f)
        return 0;
    {
        float r = hw_rnd7(hw_scalef32(s, 127.0f), rc);
        return (r < 0 ? -r : r) < 2.0f;
    }
}

HW_BF_TARGET
static uint16_t hw_op_bf16(int op, int rc, uint16_t a, uint16_t b,
                           unsigned *fl)
{
    const float x = u2f((uint32_t)a << 16), y = u2f((uint32_t)b << 16);
    float s, e = 0, z;
    unsigned m, f;
    mx_set(mx_word(rc));
    switch (op) {
    case FL_ORC_ADD: s = hw_add32(x, y); break;
    case FL_ORC_SUB: s = hw_sub32(x, y); break;
    case FL_ORC_MUL: s = hw_mul32(x, y); break;
    case FL_ORC_DIV: s = hw_div32(x, y); break;
    default: s = hw_sqrt32(x); break;
    }
    if (fin32(s)) {
        float e1;
        e = hw_getexp32(s);
        e1 = hw_max32(e, -126.0f);
        z = hw_scalef32(hw_rnd7(hw_scalef32(s, -e1), rc), e1);
    } else {
        z = s;                                  /* infinity or NaN */
    }
    m = mx_get();
    f = mx_to_fl(m) & ~FL_UNDERFLOW;
    if ((f & FL_INEXACT) && fin32(s) && hw_tiny8(s, e, rc))
        f |= FL_UNDERFLOW;
    *fl = f;
    return (uint16_t)(f2u(z) >> 16);
}

/* The same sequence on 16 lanes, HW_GROUP blocks of them between one
 * ldmxcsr and one stmxcsr (an assembly loop: the instructions between
 * the two may not move, and ldmxcsr/stmxcsr drain the floating-point
 * pipeline on Intel's cores, once per group instead of per block); each
 * lane's flags read off the results as in hw_vec16_flags:
 *   inexact   the binary32 step (checked in binary64: TwoSum with
 *             embedded round-to-nearest for + and -, exact products for
 *             *, s*y against x for /, s*s against x for sqrt) or the
 *             8-bit rounding (z != s);
 *   overflow  z is infinite (the block has no |s| >= FLT_MAX: such a
 *             block, where binary32 itself overflows or saturates, runs
 *             element by element);
 *   underflow inexact and hw_tiny8.
 * The group's OR must equal MXCSR's record, else FL_ORC_ERROR.  Lanes
 * with an infinite or NaN operand, a zero divisor or a negative radicand
 * hold 1.0 in the group and run as a block of their own (hw_vb_spec). */
#define HW_VB_RUN(OP, imm)                                                   \
    __asm__ volatile("ldmxcsr %[w]\n\t"                                      \
                     "1:\n\t"                                                \
                     "vmovdqu32 (%[pa],%[k]), %%zmm0\n\t"                    \
                     "vmovdqu32 (%[pb],%[k]), %%zmm1\n\t"                    \
                     "vpslld $16, %%zmm0, %%zmm0\n\t"                        \
                     "vpslld $16, %%zmm1, %%zmm1\n\t"                        \
                     OP "\n\t"                                               \
                     "vmovups %%zmm2, (%[ps],%[k])\n\t"                      \
                     "vgetexpps %%zmm2, %%zmm3\n\t"                          \
                     "vmaxps %[lo], %%zmm3, %%zmm3\n\t"                      \
                     "vxorps %[sg], %%zmm3, %%zmm4\n\t"                      \
                     "vscalefps %%zmm4, %%zmm2, %%zmm4\n\t"                  \
                     "vrndscaleps $" imm ", %%zmm4, %%zmm4\n\t"              \
                     "vscalefps %%zmm3, %%zmm4, %%zmm4\n\t"                  \
                     "vmovups %%zmm4, (%[pz],%[k])\n\t"                      \
                     "add $64, %[k]\n\t"                                     \
                     "cmp %[end], %[k]\n\t"                                  \
                     "jb 1b\n\t"                                             \
                     "stmxcsr %[m]"                                          \
                     : [k] "+r"(k), [m] "=m"(m)                              \
                     : [w] "m"(word), [pa] "r"(pa), [pb] "r"(pb),            \
                       [ps] "r"(ps), [pz] "r"(pz), [end] "r"(end),           \
                       [lo] "v"(lo), [sg] "v"(sg)                            \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "memory", "cc")
#define HW_VB_MODES(OP)                                                      \
    switch (rc) {                                                            \
    case 0: HW_VB_RUN(OP, "0x70"); break;                                    \
    case 1: HW_VB_RUN(OP, "0x71"); break;                                    \
    case 2: HW_VB_RUN(OP, "0x72"); break;                                    \
    default: HW_VB_RUN(OP, "0x73"); break;                                   \
    }

/* nb >= 1 blocks of 16 bfloat16 codes (in 32-bit lanes) of pa, pb: the
 * binary32 results to ps, the 8-bit roundings to pz; MXCSR's record. */
HW_BF_TARGET __attribute__((noinline))
static unsigned hw_vb_run(int op, int rc, unsigned word, size_t nb,
                          const uint32_t *pa, const uint32_t *pb, float *ps,
                          float *pz)
{
    const __m512 lo = _mm512_set1_ps(-126.0f);
    const __m512 sg = _mm512_castsi512_ps(_mm512_set1_epi32((int)0x80000000u));
    size_t k = 0;
    const size_t end = 64 * nb;
    unsigned m;
    HW_OPS5(HW_VB_MODES, "ps")
    _mm256_zeroupper();
    return m;
}

/* The binary32 operation alone on one block (the special lanes: their
 * results are exact, an infinity, a NaN or zero, and are their own
 * bfloat16 results' top halves). */
#define HW_VB_RUN1(OP)                                                       \
    __asm__ volatile("ldmxcsr %[w]\n\t"                                      \
                     "vmovdqu32 (%[pa]), %%zmm0\n\t"                         \
                     "vmovdqu32 (%[pb]), %%zmm1\n\t"                         \
                     "vpslld $16, %%zmm0, %%zmm0\n\t"                        \
                     "vpslld $16, %%zmm1, %%zmm1\n\t"                        \
                     OP "\n\t"                                               \
                     "vmovups %%zmm2, (%[ps])\n\t"                           \
                     "stmxcsr %[m]"                                          \
                     : [m] "=m"(m)                                           \
                     : [w] "m"(word), [pa] "r"(pa), [pb] "r"(pb),            \
                       [ps] "r"(ps)                                          \
                     : "xmm0", "xmm1", "xmm2", "memory")

/* The special lanes of a block (spec), the others holding 1.0: invalid
 * for a signalling operand or a NaN from operands that are not NaNs,
 * divide-by-zero for an infinite quotient of finite operands, read off
 * the codes; their OR must be MXCSR's record and nothing else recorded
 * (else FL_ORC_ERROR).  NaN results keep their top 16 bits (x86: the
 * payload truncated). */
HW_BF_TARGET
static void hw_vb_spec(int op, unsigned word, __m512i va0, __m512i vb0,
                       __mmask16 spec, uint64_t *r, unsigned *flags)
{
    const __m512i one = _mm512_set1_epi32(0x3F80);
    const __m512i expm = _mm512_set1_epi32(0x7F80), absm = _mm512_set1_epi32(0x7FFF);
    const __m512i quiet = _mm512_set1_epi32(0x0040);
    uint32_t pa[16] __attribute__((aligned(64))), pb[16] __attribute__((aligned(64)));
    float ps[16] __attribute__((aligned(64)));
    const __m512i va = _mm512_mask_blend_epi32(spec, one, va0);
    const __m512i vb = _mm512_mask_blend_epi32(spec, one, vb0);
    __m512i h;
    __mmask16 nan_a, nan_b, nan_h, snan, ie, dz = 0;
    uint32_t hr[16];
    unsigned m, k;
    int ok;
    _mm512_store_si512(pa, va);
    _mm512_store_si512(pb, vb);
    HW_OPS5(HW_VB_RUN1, "ps")
    _mm256_zeroupper();
    h = _mm512_srli_epi32(_mm512_load_si512(ps), 16);
    nan_a = _mm512_cmpgt_epu32_mask(_mm512_and_si512(va, absm), expm);
    nan_b = _mm512_cmpgt_epu32_mask(_mm512_and_si512(vb, absm), expm);
    nan_h = _mm512_cmpgt_epu32_mask(_mm512_and_si512(h, absm), expm);
    snan = (nan_a & _mm512_testn_epi32_mask(va, quiet)) |
           (nan_b & _mm512_testn_epi32_mask(vb, quiet));
    ie = (snan | (nan_h & (__mmask16)~(nan_a | nan_b))) & spec;
    if (op == FL_ORC_DIV)
        dz = _mm512_cmpeq_epi32_mask(_mm512_and_si512(h, absm), expm) &
             _mm512_cmpneq_epi32_mask(_mm512_and_si512(va, expm), expm) &
             _mm512_cmpneq_epi32_mask(_mm512_and_si512(vb, expm), expm) & spec;
    ok = ((m & MX_IE) != 0) == (ie != 0) && ((m & MX_ZE) != 0) == (dz != 0) &&
         !(m & (MX_OE | MX_UE | MX_PE));
    _mm512_storeu_si512(hr, h);
    for (k = spec; k; k &= k - 1) {
        const int l = __builtin_ctz(k);
        r[l] = hr[l];
        flags[l] = !ok ? FL_ORC_ERROR
                       : ((ie >> l & 1) ? FL_INVALID : 0u) |
                             ((dz >> l & 1) ? FL_DIVBYZERO : 0u);
    }
}

HW_BF_TARGET static inline __m512i hw_vb_load(const uint64_t *p)
{
    __m256i lo = _mm512_cvtepi64_epi32(_mm512_loadu_si512(p));
    __m256i hi = _mm512_cvtepi64_epi32(_mm512_loadu_si512(p + 8));
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

HW_BF_TARGET
static void hw_vec_bf16(int op, int rc, size_t n, const uint64_t *a,
                        const uint64_t *b, uint64_t *r, unsigned *flags)
{
    const unsigned word = mx_word(rc);
    const __m512i expm = _mm512_set1_epi32(0x7F80);
    const __m512i one = _mm512_set1_epi32(0x3F80);
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
    size_t i = 0, done = n - n % 16, k;

    while (i < done) {
        const size_t nb = (done - i) / 16 < HW_GROUP ? (done - i) / 16 : HW_GROUP;
        uint32_t pa[HW_GROUP * 16] __attribute__((aligned(64)));
        uint32_t pb[HW_GROUP * 16] __attribute__((aligned(64)));
        float ps[HW_GROUP * 16] __attribute__((aligned(64)));
        float pz[HW_GROUP * 16] __attribute__((aligned(64)));
        __mmask16 spec[HW_GROUP], pe[HW_GROUP], oe[HW_GROUP], tiny[HW_GROUP];
        __mmask16 ape = 0, aoe = 0, big = 0;
        unsigned m;

        for (k = 0; k < nb; k++) {
            const __m512i va = hw_vb_load(a + i + 16 * k);
            const __m512i vb = op == FL_ORC_SQRT ? one : hw_vb_load(b + i + 16 * k);
            __mmask16 sp = _mm512_cmpeq_epi32_mask(_mm512_and_si512(va, expm), expm) |
                           _mm512_cmpeq_epi32_mask(_mm512_and_si512(vb, expm), expm);
            if (op == FL_ORC_DIV)
                sp |= _mm512_cmpeq_epi32_mask(
                    _mm512_and_si512(vb, _mm512_set1_epi32(0x7FFF)),
                    _mm512_setzero_si512());
            if (op == FL_ORC_SQRT)
                sp |= _mm512_cmpgt_epu32_mask(va, _mm512_set1_epi32(0x8000));
            spec[k] = sp;
            _mm512_store_si512(pa + 16 * k, _mm512_mask_blend_epi32(sp, va, one));
            _mm512_store_si512(pb + 16 * k, _mm512_mask_blend_epi32(sp, vb, one));
        }

        m = hw_vb_run(op, rc, word, nb, pa, pb, ps, pz);

        for (k = 0; k < nb; k++) {
            const __m512 x = _mm512_castsi512_ps(_mm512_slli_epi32(
                _mm512_load_si512(pa + 16 * k), 16));
            const __m512 y = _mm512_castsi512_ps(_mm512_slli_epi32(
                _mm512_load_si512(pb + 16 * k), 16));
            const __m512 s = _mm512_load_ps(ps + 16 * k);
            const __m512 z = _mm512_load_ps(pz + 16 * k);
            /* the exponent again (exact, raises nothing: s is finite) */
            const __m512 e = _mm512_getexp_ps(s);
            const __m512 s127 = _mm512_scalef_ps(s, _mm512_set1_ps(127.0f));
            __m512 r2;
            big |= _mm512_cmp_ps_mask(_mm512_and_ps(s, absm),
                                      _mm512_set1_ps(0x1.fffffep127f), _CMP_GE_OQ);
            pe[k] = hw_lanes_inexact(op, x, y, s, 0);
            pe[k] |= _mm512_cmp_ps_mask(z, s, _CMP_NEQ_UQ);
            oe[k] = _mm512_cmp_ps_mask(_mm512_and_ps(z, absm),
                                       _mm512_set1_ps(__builtin_inff()), _CMP_EQ_OQ);
            /* tininess: e < -127, or e = -127 and the rounding of
             * s*2^127 stays below 2 (explicit mode, exceptions off) */
            switch (rc) {
            case 0: r2 = _mm512_roundscale_ps(s127, 0x78); break;
            case 1: r2 = _mm512_roundscale_ps(s127, 0x79); break;
            case 2: r2 = _mm512_roundscale_ps(s127, 0x7A); break;
            default: r2 = _mm512_roundscale_ps(s127, 0x7B); break;
            }
            tiny[k] = _mm512_cmp_ps_mask(e, _mm512_set1_ps(-127.0f), _CMP_LT_OQ) |
                      (_mm512_cmp_ps_mask(e, _mm512_set1_ps(-127.0f), _CMP_EQ_OQ) &
                       _mm512_cmp_ps_mask(_mm512_and_ps(r2, absm),
                                          _mm512_set1_ps(2.0f), _CMP_LT_OQ));
            ape |= pe[k];
            aoe |= oe[k];
        }
        if (big) {
            /* binary32 itself overflowed or saturated in the group: the
             * group element by element */
            for (k = i; k < i + 16 * nb; k++)
                r[k] = hw_op_bf16(op, rc, (uint16_t)a[k],
                                  op == FL_ORC_SQRT ? 0 : (uint16_t)b[k],
                                  &flags[k]);
            i += 16 * nb;
            continue;
        }
        for (k = 0; k < nb; k++, i += 16) {
            const __m512i zc = _mm512_srli_epi32(_mm512_load_si512(pz + 16 * k), 16);
            _mm512_storeu_si512(r + i, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(zc)));
            _mm512_storeu_si512(r + i + 8, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(zc, 1)));
            _mm512_storeu_si512(flags + i, hw_lane_flags(pe[k], oe[k], tiny[k],
                                                         ape, aoe, m));
            if (spec[k])
                hw_vb_spec(op, word, hw_vb_load(a + i),
                           op == FL_ORC_SQRT ? one : hw_vb_load(b + i), spec[k],
                           r + i, flags + i);
        }
    }
    for (; i < n; i++)
        r[i] = hw_op_bf16(op, rc, (uint16_t)a[i],
                          op == FL_ORC_SQRT ? 0 : (uint16_t)b[i], &flags[i]);
}

/* ------------------------------------------------------- AVX512-FP16 */
/* GCC 12 declares the AVX512-FP16 types and intrinsics for target
 * attributes; clang's headers (as shipped with Debian 12) only with
 * -mavx512fp16 on the command line, so clang builds leave the native path
 * out. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define HW_HAVE_FP16_INTRIN 1
/* One element, the operand order pinned in assembly (x86 returns the
 * first NaN operand: a, b, then c; a compiler may swap the operands of a
 * commutative intrinsic), R the embedded rounding ("rn-sae" ...); the
 * 231 form w = x*y + w takes the NaN order x, y, w as hw_fma32. */
#define HW_FP16_OPS(R)                                                   \
    switch (op) {                                                        \
    case FL_ORC_ADD: __asm__("vaddsh %{" R "%}, %2, %1, %0" : "=v"(z) : "v"(x), "v"(y)); break; \
    case FL_ORC_SUB: __asm__("vsubsh %{" R "%}, %2, %1, %0" : "=v"(z) : "v"(x), "v"(y)); break; \
    case FL_ORC_MUL: __asm__("vmulsh %{" R "%}, %2, %1, %0" : "=v"(z) : "v"(x), "v"(y)); break; \
    case FL_ORC_DIV: __asm__("vdivsh %{" R "%}, %2, %1, %0" : "=v"(z) : "v"(x), "v"(y)); break; \
    case FL_ORC_SQRT: __asm__("vsqrtsh %{" R "%}, %1, %1, %0" : "=v"(z) : "v"(x)); break;     \
    default: z = w; __asm__("vfmadd231sh %{" R "%}, %2, %1, %0" : "+v"(z) : "v"(x), "v"(y)); break; \
    }

/* ------------------------------------- AVX512-FP16 with flags, natively
 * binary16 add, sub, mul, div and sqrt with flags, 32 elements per
 * instruction: the hardware's binary16 operation itself (vaddph ...,
 * MXCSR's rounding mode, no embedded rounding, so MXCSR records every
 * exception, underflow included), HW_GROUP blocks of 32 between one
 * ldmxcsr and one stmxcsr.  A different route from the binary32 one
 * above: no double rounding to argue, and the hardware's own underflow
 * flag.  Each lane's flags are read off exact arithmetic (X the exact
 * result, R the hardware's, s = RN(a + b) and e its error by Fast2Sum on
 * the operands ordered by magnitude, all with embedded nearest-even
 * rounding, exact):
 *   inexact   add/sub R != s or e != 0; mul R != x*y (exact in
 *             binary32); div R*y != x; sqrt R*R != x (both exact in
 *             binary32);
 *   overflow  R infinite (the operands are finite), or |X| >= 65536
 *             (rounded toward zero it still exceeds 65504; in a directed
 *             mode toward zero R is 65504 then): add/sub when s is
 *             infinite (|X| >= 65520, so both operands are at least 16
 *             and halving them is exact) by RZ(a/2 + b/2) >= 2^15; mul
 *             |x*y| >= 2^16; div RZ32(x/y) >= 2^16 (monotone, 2^16 a
 *             binary32 value);
 *   underflow inexact and tiny after rounding (x86's rule): X rounded to
 *             11 bits with unbounded exponent below 2^-14, by F16C's
 *             rounding of X*2^24 in the mode (mul: x*y*2^24 exact; div:
 *             the binary32 quotient in the mode, which rounds to 11 bits
 *             like X: binary16's grid is within binary32's, and
 *             Figueroa's theorem for nearest even); a sum below 2^-14 is
 *             exact, a square root never tiny.
 * The group's OR of inexact, overflow and underflow must equal MXCSR's
 * PE, OE and UE, with IE, ZE clear; else the group is FL_ORC_ERROR.
 * Special lanes (an infinite or NaN operand, a zero divisor, a negative
 * radicand) hold 1.0 in the group and run apart, by the binary32 route's
 * block for them (hw_vec16_spec: exact results, invalid and
 * divide-by-zero read off the codes and checked against MXCSR).
 * tests/verify_xcheck.c compares this path with the per-element one. */
#define HW_P16_TARGET                                                        \
    __attribute__((target("avx512fp16,avx512f,avx512bw,avx512vl,avx512dq,f16c")))
#define HW_P16_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

#define HW_P16_RUN(OP)                                                       \
    __asm__ volatile("ldmxcsr %[w]\n\t"                                      \
                     "1:\n\t"                                                \
                     "vmovdqu16 (%[pa],%[k]), %%zmm0\n\t"                    \
                     "vmovdqu16 (%[pb],%[k]), %%zmm1\n\t"                    \
                     OP "\n\t"                                               \
                     "vmovdqu16 %%zmm2, (%[pr],%[k])\n\t"                    \
                     "add $64, %[k]\n\t"                                     \
                     "cmp %[end], %[k]\n\t"                                  \
                     "jb 1b\n\t"                                             \
                     "stmxcsr %[m]"                                          \
                     : [k] "+r"(k), [m] "=m"(m)                              \
                     : [w] "m"(word), [pa] "r"(pa), [pb] "r"(pb),            \
                       [pr] "r"(pr), [end] "r"(end)                          \
                     : "xmm0", "xmm1", "xmm2", "memory", "cc")

/* nb >= 1 blocks of 32 codes of pa (and pb) through op in MXCSR's mode of
 * word; the results to pr; returns MXCSR's record. */
HW_P16_TARGET __attribute__((noinline))
static unsigned hw_p16_run(int op, unsigned word, size_t nb,
                           const uint16_t *pa, const uint16_t *pb,
                           uint16_t *pr)
{
    size_t k = 0;
    const size_t end = 64 * nb;
    unsigned m;
    HW_OPS5(HW_P16_RUN, "ph")
    _mm256_zeroupper();
    return m;
}

HW_P16_TARGET static inline __m512i hw_p16_load(const uint64_t *p)
{
    const __m256i lo = hw_v16_load(p), hi = hw_v16_load(p + 16);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
HW_P16_TARGET static inline void hw_p16_store(uint64_t *p, __m512i v)
{
    const __m256i lo = _mm512_castsi512_si256(v), hi = _mm512_extracti64x4_epi64(v, 1);
    _mm512_storeu_si512(p, _mm512_cvtepu16_epi64(_mm256_castsi256_si128(lo)));
    _mm512_storeu_si512(p + 8, _mm512_cvtepu16_epi64(_mm256_extracti128_si256(lo, 1)));
    _mm512_storeu_si512(p + 16, _mm512_cvtepu16_epi64(_mm256_castsi256_si128(hi)));
    _mm512_storeu_si512(p + 24, _mm512_cvtepu16_epi64(_mm256_extracti128_si256(hi, 1)));
}

/* 16 lanes of mul, div or sqrt in binary32 (x, y the operands, r the
 * hardware's result, widened exactly): inexact, overflow and tiny. */
HW_P16_TARGET static inline void hw_p16_half(int op, int rc, __m512 x,
                                             __m512 y, __m512 r,
                                             __mmask16 *pe, __mmask16 *oe,
                                             __mmask16 *tiny)
{
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
    const __m512 t24 = _mm512_set1_ps(0x1p24f);
    __m512 t;
    *oe = _mm512_cmp_ps_mask(_mm512_and_ps(r, absm),
                             _mm512_set1_ps(__builtin_inff()), _CMP_EQ_OQ);
    if (op == FL_ORC_MUL) {
        const __m512 p = _mm512_mul_round_ps(x, y, HW_RN);       /* exact */
        *pe = _mm512_cmp_ps_mask(r, p, _CMP_NEQ_UQ);
        *oe |= _mm512_cmp_ps_mask(_mm512_and_ps(p, absm),
                                  _mm512_set1_ps(0x1p16f), _CMP_GE_OQ);
        t = _mm512_mul_round_ps(p, t24, HW_RN);                  /* exact */
    } else if (op == FL_ORC_DIV) {
        const __m512 q = _mm512_mul_round_ps(r, y, HW_RN);       /* exact */
        *pe = _mm512_cmp_ps_mask(q, x, _CMP_NEQ_UQ);
        *oe |= _mm512_cmp_ps_mask(
            _mm512_and_ps(_mm512_div_round_ps(x, y, _MM_FROUND_TO_ZERO |
                                                        _MM_FROUND_NO_EXC),
                          absm),
            _mm512_set1_ps(0x1p16f), _CMP_GE_OQ);
        switch (rc) {
        case 0: t = _mm512_div_round_ps(x, y, HW_RN); break;
        case 1: t = _mm512_div_round_ps(x, y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); break;
        case 2: t = _mm512_div_round_ps(x, y, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); break;
        default: t = _mm512_div_round_ps(x, y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); break;
        }
        t = _mm512_mul_round_ps(t, t24, HW_RN);                  /* exact */
    } else {
        const __m512 q = _mm512_mul_round_ps(r, r, HW_RN);       /* exact */
        *pe = _mm512_cmp_ps_mask(q, x, _CMP_NEQ_UQ);
        *tiny = 0;
        return;
    }
    *tiny = _mm512_cmp_ps_mask(
        _mm512_and_ps(_mm512_cvtph_ps(hw_v16_cvt(t, rc)), absm),
        _mm512_set1_ps(0x1p10f), _CMP_LT_OQ);
}

/* Returns how many elements it did (a multiple of 32). */
HW_P16_TARGET
static size_t hw_p16_flags(int op, int rc, size_t n, const uint64_t *a,
                           const uint64_t *b, uint64_t *r, unsigned *flags)
{
    enum { G = 8 };                       /* blocks of 32 per MXCSR read */
    const unsigned word = mx_word(rc);
    const __m512i expm = _mm512_set1_epi16(0x7C00), absm = _mm512_set1_epi16(0x7FFF);
    const __m512i one16 = _mm512_set1_epi16(0x3C00);
    const __m512i infc = _mm512_set1_epi16(0x7C00);
    size_t i, done = n - n % 32;

    for (i = 0; i < done;) {
        const size_t nb = (done - i) / 32 < G ? (done - i) / 32 : G;
        uint16_t pa[G * 32] __attribute__((aligned(64)));
        uint16_t pb[G * 32] __attribute__((aligned(64)));
        uint16_t pr[G * 32] __attribute__((aligned(64)));
        __mmask32 spec[G], pe[G], oe[G], uf[G], ape = 0, aoe = 0, auf = 0;
        unsigned m;
        size_t k;

        for (k = 0; k < nb; k++) {
            const __m512i va = hw_p16_load(a + i + 32 * k);
            const __m512i vb = op == FL_ORC_SQRT ? one16 : hw_p16_load(b + i + 32 * k);
            __mmask32 sp = _mm512_cmpeq_epi16_mask(_mm512_and_si512(va, expm), expm) |
                           _mm512_cmpeq_epi16_mask(_mm512_and_si512(vb, expm), expm);
            if (op == FL_ORC_DIV)
                sp |= _mm512_testn_epi16_mask(vb, absm);
            if (op == FL_ORC_SQRT)
                sp |= _mm512_cmpgt_epu16_mask(va, _mm512_set1_epi16((short)0x8000));
            spec[k] = sp;
            _mm512_store_si512(pa + 32 * k, _mm512_mask_blend_epi16(sp, va, one16));
            _mm512_store_si512(pb + 32 * k, _mm512_mask_blend_epi16(sp, vb, one16));
        }

        m = hw_p16_run(op, word, nb, pa, pb, pr);

        for (k = 0; k < nb; k++) {
            const __m512i va = _mm512_load_si512(pa + 32 * k);
            const __m512i vb = _mm512_load_si512(pb + 32 * k);
            const __m512i vr = _mm512_load_si512(pr + 32 * k);
            if (op == FL_ORC_ADD || op == FL_ORC_SUB) {
                const __m512i vb2 = op == FL_ORC_SUB
                    ? _mm512_xor_si512(vb, _mm512_set1_epi16((short)0x8000)) : vb;
                const __mmask32 sw = _mm512_cmpgt_epu16_mask(_mm512_and_si512(vb2, absm),
                                                             _mm512_and_si512(va, absm));
                const __m512h hi = _mm512_castsi512_ph(_mm512_mask_blend_epi16(sw, va, vb2));
                const __m512h lo = _mm512_castsi512_ph(_mm512_mask_blend_epi16(sw, vb2, va));
                const __m512h hr = _mm512_castsi512_ph(vr);
                const __m512h sm = _mm512_add_round_ph(hi, lo, HW_RN);
                const __m512h e = _mm512_sub_round_ph(
                    lo, _mm512_sub_round_ph(sm, hi, HW_RN), HW_RN);
                const __mmask32 sinf = _mm512_cmpeq_epi16_mask(
                    _mm512_and_si512(_mm512_castph_si512(sm), absm), infc);
                const __m512h half = _mm512_set1_ph((_Float16)0.5f);
                const __m512h hx = _mm512_add_round_ph(
                    _mm512_mul_round_ph(hi, half, HW_RN), _mm512_mul_round_ph(lo, half, HW_RN),
                    _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                pe[k] = _mm512_cmp_ph_mask(hr, sm, _CMP_NEQ_UQ) |
                        _mm512_cmp_ph_mask(e, _mm512_setzero_ph(), _CMP_NEQ_UQ) | sinf;
                oe[k] = _mm512_cmpeq_epi16_mask(_mm512_and_si512(vr, absm), infc) |
                        (sinf & _mm512_cmpge_epu16_mask(
                                    _mm512_and_si512(_mm512_castph_si512(hx), absm),
                                    _mm512_set1_epi16(0x7800)));
                uf[k] = 0;
            } else {
                __mmask16 p0, o0, t0, p1, o1, t1;
                hw_p16_half(op, rc, _mm512_cvtph_ps(_mm512_castsi512_si256(va)),
                            _mm512_cvtph_ps(_mm512_castsi512_si256(vb)),
                            _mm512_cvtph_ps(_mm512_castsi512_si256(vr)), &p0, &o0, &t0);
                hw_p16_half(op, rc, _mm512_cvtph_ps(_mm512_extracti64x4_epi64(va, 1)),
                            _mm512_cvtph_ps(_mm512_extracti64x4_epi64(vb, 1)),
                            _mm512_cvtph_ps(_mm512_extracti64x4_epi64(vr, 1)), &p1, &o1, &t1);
                pe[k] = (__mmask32)p0 | (__mmask32)p1 << 16;
                oe[k] = (__mmask32)o0 | (__mmask32)o1 << 16;
                uf[k] = ((__mmask32)t0 | (__mmask32)t1 << 16) & pe[k];
            }
            ape |= pe[k];
            aoe |= oe[k];
            auf |= uf[k];
        }
        {
            const int ok = ((m & MX_PE) != 0) == (ape != 0) &&
                           ((m & MX_OE) != 0) == (aoe != 0) &&
                           ((m & MX_UE) != 0) == (auf != 0) &&
                           !(m & (MX_IE | MX_ZE));
            for (k = 0; k < nb; k++, i += 32) {
                const __m512i bad = _mm512_set1_epi32((int)FL_ORC_ERROR);
                __m512i w[2];
                int h;
                hw_p16_store(r + i, _mm512_load_si512(pr + 32 * k));
                for (h = 0; h < 2; h++) {
                    const __mmask16 ph = (__mmask16)(pe[k] >> 16 * h);
                    const __mmask16 oh = (__mmask16)(oe[k] >> 16 * h);
                    const __mmask16 uh = (__mmask16)(uf[k] >> 16 * h);
                    w[h] = !ok ? bad
                         : _mm512_or_si512(
                               _mm512_or_si512(
                                   _mm512_maskz_mov_epi32(ph, _mm512_set1_epi32(FL_INEXACT)),
                                   _mm512_maskz_mov_epi32(oh, _mm512_set1_epi32(FL_OVERFLOW))),
                               _mm512_maskz_mov_epi32(uh, _mm512_set1_epi32(FL_UNDERFLOW)));
                    _mm512_storeu_si512(flags + i + 16 * h, w[h]);
                }
                /* special lanes: the binary32 route's second block, per
                 * half (their results are exact: NaN, infinity, zero) */
                for (h = 0; h < 2; h++)
                    if ((__mmask16)(spec[k] >> 16 * h))
                        hw_vec16_spec(op, word, hw_v16_load(a + i + 16 * h),
                                      op == FL_ORC_SQRT ? _mm512_castsi512_si256(one16)
                                                        : hw_v16_load(b + i + 16 * h),
                                      (__mmask16)(spec[k] >> 16 * h),
                                      r + i + 16 * h, flags + i + 16 * h);
            }
        }
    }
    return done;
}
/* zmm op with embedded rounding R ("rn-sae" ...), the operand order
 * pinned: x86 returns the first source operand's NaN, and a compiler may
 * swap the operands of an intrinsic it knows commutes. */
#define HW_FP16_VASM(insn, R)                                            \
    __asm__(insn " %{" R "%}, %2, %1, %0" : "=v"(z) : "v"(x), "v"(y))
#define HW_FP16_VOPS(R)                                                  \
    switch (op) {                                                        \
    case FL_ORC_ADD: HW_FP16_VASM("vaddph", R); break;                   \
    case FL_ORC_SUB: HW_FP16_VASM("vsubph", R); break;                   \
    case FL_ORC_MUL: HW_FP16_VASM("vmulph", R); break;                   \
    case FL_ORC_DIV: HW_FP16_VASM("vdivph", R); break;                   \
    default: __asm__("vsqrtph %{" R "%}, %1, %0" : "=v"(z) : "v"(x)); break; \
    }

/* OPS (HW_FP16_OPS or HW_FP16_VOPS) in the mode rc (0..3: nearest,
 * down, up, toward zero), whose embedded rounding must be a literal. */
#define HW_FP16_RC(OPS)                                                  \
    switch (rc) {                                                        \
    case 0: OPS("rn-sae") break;                                         \
    case 1: OPS("rd-sae") break;                                         \
    case 2: OPS("ru-sae") break;                                         \
    default: OPS("rz-sae") break;                                        \
    }

/* Native binary16 arithmetic with embedded rounding (values only: the
 * embedded-rounding forms suppress all exceptions), 32 elements per
 * instruction but for fma, then one at a time. */
__attribute__((target("avx512fp16,avx512vl,avx512bw,avx512f,avx512dq")))
static void hw_fp16_native(int op, int rc, size_t n, const uint64_t *a,
                           const uint64_t *b, const uint64_t *c, uint64_t *r)
{
    size_t i = 0;
    if (op != FL_ORC_FMA)
        for (; i + 32 <= n; i += 32) {
            const __m512h x = _mm512_castsi512_ph(hw_p16_load(a + i));
            const __m512h y = b ? _mm512_castsi512_ph(hw_p16_load(b + i)) : x;
            __m512h z;
            HW_FP16_RC(HW_FP16_VOPS)
            hw_p16_store(r + i, _mm512_castph_si512(z));
        }
    _mm256_zeroupper();     /* HW_ZEROUPPER: the zmm operands of the asm */
    for (; i < n; i++) {
        __m128h x = _mm_castsi128_ph(_mm_cvtsi32_si128((int)(uint16_t)a[i]));
        __m128h y = _mm_castsi128_ph(_mm_cvtsi32_si128(b ? (int)(uint16_t)b[i] : 0));
        __m128h w = _mm_castsi128_ph(_mm_cvtsi32_si128(c ? (int)(uint16_t)c[i] : 0));
        __m128h z;
        HW_FP16_RC(HW_FP16_OPS)
        r[i] = (uint16_t)_mm_cvtsi128_si32(_mm_castph_si128(z));
    }
}

#else
#define HW_HAVE_FP16_INTRIN 0
#endif

/* ------------------------------------------------------- AVX512-BF16 */
__attribute__((target("avx512bf16,avx512vl,avx512f")))
static void hw_bf16_cvt(size_t n, const uint64_t *a, uint64_t *r)
{
    size_t i;
    for (i = 0; i < n; i++) {
        __m128bh v = _mm_cvtneps_pbh(_mm_set1_ps(u2f((uint32_t)a[i])));
        __m128i w;
        memcpy(&w, &v, sizeof w);
        r[i] = (uint16_t)_mm_cvtsi128_si32(w);
    }
}

/* --------------------------------------------------------- the module */
static int is_fmt(const fl_format *f, const fl_format *p)
{
    return f->width == p->width && f->ebits == p->ebits &&
           f->prec == p->prec && f->has_inf == p->has_inf &&
           f->subnormals == p->subnormals && !f->saturate &&
           f->nan_style == p->nan_style && f->bias == p->bias &&
           f->is_signed == p->is_signed && f->has_zero == p->has_zero &&
           f->min_gap_up == p->min_gap_up;
}

static int hw_can_run(char *why, size_t len)
{
    hw_caps k = hw_caps_get();
    if (!k.f16c) {
        snprintf(why, len, "the CPU (or OS) lacks F16C/AVX");
        return 0;
    }
    snprintf(why, len, "F16C yes, FMA3 %s, AVX512-FP16 %s, AVX512-BF16 %s",
             k.fma ? "yes" : "no",
             k.avx512fp16 && HW_HAVE_FP16_INTRIN ? "yes" : "not available",
             k.avx512bf16 ? "yes" : "not available");
    return 1;
}

/* ------------------------------------------------------------- rna
 * Round-to-nearest, ties away from zero, which x86 lacks: the
 * nearest-even result unless the exact value x is a tie, then the
 * neighbour away from zero.  The two neighbours are the hardware's rdn
 * and rup results d < u; x is a tie exactly when d != u and x equals
 * their midpoint m = (d + u) / 2, which is exact in binary64 (adjacent
 * values of a format with p <= 24 bits).  Whether x = m is decided with
 * exact binary64 arithmetic on the operands:
 *   add, sub  TwoSum(a, +-b) = (s, e): x = m iff e = 0 and s = m
 *             (a tie is a double, so an exact sum reaches it);
 *   mul       a*b == m (at most 48-bit products);
 *   div       m*b == a (m has p+1 <= 25 bits, b 24: exact);
 *   sqrt      m*m == a;
 *   fma       TwoSum(m, -c) = (s, e): x = m iff e = 0 and a*b = s;
 *   cvt       a == m.
 * Overflow and tininess after rounding agree with nearest-even (the ties
 * at the largest finite value + half an ulp and just below 2^emin round
 * away from zero in both rules), so the flags are the rne job's.  A tie at
 * the overflow threshold has u = infinity and m = infinity != x: the rne
 * result (infinity) is kept, which is also rna's. */
static double hw_val(const fl_format *f, uint64_t v)
{
    if (is_fmt(f, &fl_binary16))
        return (double)hw_h2f((uint16_t)v);
    if (is_fmt(f, &fl_bfloat16))
        return (double)u2f((uint32_t)v << 16);
    if (is_fmt(f, &fl_binary32))
        return (double)u2f((uint32_t)v);
    return u2d(v);
}

/* TwoSum in round-to-nearest: s + e = x + y exactly (hw_rna sets
 * MXCSR to round-to-nearest around the calls). */
static void hw_two_sum(double x, double y, double *s, double *e)
{
    volatile double t = x + y;     /* volatile: no reassociation */
    double bb = t - x;
    *s = t;
    *e = (x - (t - bb)) + (y - bb);
}

static int hw_is_tie(const fl_orc_job *j, uint64_t a, uint64_t b,
                     uint64_t c, double m)
{
    const fl_format *sf = j->src;
    const double x = hw_val(sf, a);
    double y = j->op == FL_ORC_CVT || j->op == FL_ORC_SQRT ? 0 : hw_val(sf, b);
    double s, e;
    switch (j->op) {
    case FL_ORC_SUB:
        y = -y;
        /* fall through */
    case FL_ORC_ADD:
        hw_two_sum(x, y, &s, &e);
        return e == 0 && s == m;
    case FL_ORC_MUL: return x * y == m;
    case FL_ORC_DIV: return m * y == x;
    case FL_ORC_SQRT: return m * m == x;
    case FL_ORC_FMA:
        hw_two_sum(m, -hw_val(sf, c), &s, &e);
        return e == 0 && x * y == s;
    default: return x == m;
    }
}

static void hw_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, uint64_t *r,
                       unsigned *flags);

static void hw_rna(const fl_orc_job *j, size_t n, const uint64_t *a,
                   const uint64_t *b, const uint64_t *c, uint64_t *r,
                   unsigned *flags)
{
    enum { CH = 256 };
    uint64_t d[CH], u[CH];
    unsigned tmp[CH];
    fl_orc_job z = *j;
    const unsigned saved = mx_get();
    size_t i, e;
    for (i = 0; i < n; i += CH) {
        const size_t k = n - i < CH ? n - i : CH;
        unsigned *f = flags ? flags + i : tmp;
        const uint64_t *bi = b ? b + i : NULL, *ci = c ? c + i : NULL;
        z.ctx.rm = FL_RNE;
        hw_compute(&z, k, a + i, bi, ci, r + i, f);
        z.ctx.rm = FL_RDN;
        hw_compute(&z, k, a + i, bi, ci, d, NULL);
        z.ctx.rm = FL_RUP;
        hw_compute(&z, k, a + i, bi, ci, u, NULL);
        mx_set(mx_word(0));            /* TwoSum needs round-to-nearest */
        for (e = 0; e < k; e++) {
            double dv, uv, m;
            if (d[e] == u[e] || (f[e] & FL_ORC_ERROR))
                continue;
            dv = hw_val(j->fmt, d[e]);
            uv = hw_val(j->fmt, u[e]);
            m = (dv + uv) * 0.5;
            if (dv == dv && uv == uv &&
                hw_is_tie(j, a[i + e], bi ? bi[e] : 0, ci ? ci[e] : 0, m))
                r[i + e] = m < 0 ? d[e] : u[e];   /* away from zero */
        }
        mx_set(saved);
    }
}

static unsigned hw_flags_reported(const fl_orc_job *j);

static int hw_supports(const fl_orc_job *j, char *why, size_t len)
{
    hw_caps k = hw_caps_get();
    int rc = mx_rc(j->ctx.rm);
    const fl_ctx *c = &j->ctx;
    if (j->ctx.rm == FL_RNA) {
        /* from the rne, rdn and rup jobs (see hw_rna) */
        fl_orc_job z = *j;
        int m;
        for (m = 0; m < 3; m++) {
            z.ctx.rm = m == 0 ? FL_RNE : m == 1 ? FL_RDN : FL_RUP;
            if (!hw_supports(&z, why, len))
                return 0;
        }
        return 1;
    }
    if (j->ctx.rm == FL_RTO) {
        /* round-to-odd from the round-toward-zero job (see hw_compute) */
        fl_orc_job z = *j;
        z.ctx.rm = FL_RTZ;
        if (hw_supports(&z, why, len) && hw_flags_reported(&z))
            return 1;
        if (!hw_flags_reported(&z))
            snprintf(why, len, "rto needs the inexact flag, which this "
                     "instruction does not report");
        return 0;
    }
    if (c->nan != FL_NANP_X86 || c->ftz || c->saturate ||
        c->tininess != FL_TINY_AFTER) {
        snprintf(why, len, "hw models the x86 preset: no ftz, no saturate, "
                 "tininess after rounding");
        return 0;
    }
    if (is_fmt(j->fmt, &fl_bfloat16)) {
        if (j->op == FL_ORC_CVT) {
            if (is_fmt(j->src, &fl_binary32) && j->ctx.rm == FL_RNE &&
                c->daz && k.avx512bf16)
                return 1;
            snprintf(why, len, k.avx512bf16
                     ? "hw covers the bfloat16 conversion only from binary32, "
                       "rne, with --daz (vcvtneps2bf16 flushes subnormal "
                       "inputs)"
                     : "AVX512-BF16 not available");
            return 0;
        }
        if (j->op == FL_ORC_FMA) {
            snprintf(why, len, "hw has no bfloat16 fma");
            return 0;
        }
        if (rc < 0) {
            snprintf(why, len, "x86 has no %s rounding", fl_rm_name(j->ctx.rm));
            return 0;
        }
        if (c->daz) {
            snprintf(why, len, "hw models daz only for the bfloat16 "
                     "conversion");
            return 0;
        }
        if (!k.avx512) {
            snprintf(why, len, "bfloat16 arithmetic needs AVX-512 F/VL/DQ "
                     "(vgetexpps, vscalefps, vrndscaleps)");
            return 0;
        }
        return 1;
    }
    if (c->daz) {
        snprintf(why, len, "hw models daz only for the bfloat16 conversion");
        return 0;
    }
    if (rc < 0) {
        snprintf(why, len, "x86 has no %s rounding", fl_rm_name(j->ctx.rm));
        return 0;
    }
    if (!k.f16c) {
        snprintf(why, len, "F16C not available");
        return 0;
    }
    if (is_fmt(j->fmt, &fl_binary16)) {
        if (j->op != FL_ORC_CVT)
            return 1;
        if (is_fmt(j->src, &fl_binary32) || is_fmt(j->src, &fl_binary64))
            return 1;
    } else if (is_fmt(j->fmt, &fl_binary32)) {
        if (j->op == FL_ORC_FMA && !k.fma) {
            snprintf(why, len, "FMA3 not available");
            return 0;
        }
        if (j->op != FL_ORC_CVT)
            return 1;
        if (is_fmt(j->src, &fl_binary16) || is_fmt(j->src, &fl_binary64))
            return 1;
    }
    snprintf(why, len, "hw covers binary16 and binary32 ops and conversions "
             "among binary16/32/64 (and bfloat16 from binary32)");
    return 0;
}

static unsigned hw_flags_reported(const fl_orc_job *j)
{
    if (is_fmt(j->fmt, &fl_bfloat16) && j->op == FL_ORC_CVT)
        return 0;                 /* vcvtneps2bf16 raises nothing */
    return FL_IEEE_FLAGS;
}

static void hw_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, uint64_t *r,
                       unsigned *flags)
{
    const unsigned saved = mx_get();
    const int rc = mx_rc(j->ctx.rm);
    hw_caps k = hw_caps_get();
    size_t i;

    if (j->ctx.rm == FL_RNA) {
        hw_rna(j, n, a, b, c, r, flags);
        return;
    }
    if (j->ctx.rm == FL_RTO) {
        /* Round-to-odd by its definition: the round-toward-zero result,
         * its last bit set when the hardware reports inexact (an odd
         * neighbour is the zero-side one or the next encoding away from
         * zero).  The flags are round-toward-zero's: the largest finite
         * value and the largest value below 2^emin are odd, so
         * round-to-odd overflows and is tiny exactly when rtz is. */
        fl_orc_job z = *j;
        unsigned tmp[256];
        z.ctx.rm = FL_RTZ;
        for (i = 0; i < n; i += 256) {
            const size_t m = n - i < 256 ? n - i : 256;
            unsigned *f = flags ? flags + i : tmp;
            size_t e;
            hw_compute(&z, m, a + i, b ? b + i : NULL, c ? c + i : NULL,
                       r + i, f);
            for (e = 0; e < m; e++)
                if ((f[e] & (FL_INEXACT | FL_ORC_ERROR)) == FL_INEXACT)
                    r[i + e] |= 1;
        }
        return;
    }

    if (is_fmt(j->fmt, &fl_bfloat16)) {
        if (j->op == FL_ORC_CVT) {
            hw_bf16_cvt(n, a, r);
            if (flags) memset(flags, 0, n * sizeof *flags);
        } else if (flags) {
            hw_vec_bf16(j->op, rc, n, a, b, r, flags);
        } else {
            unsigned tmp[256];
            for (i = 0; i < n; i += 256)
                hw_vec_bf16(j->op, rc, n - i < 256 ? n - i : 256, a + i,
                            b ? b + i : NULL, r + i, tmp);
        }
        mx_set(saved);
        return;
    }
    if (is_fmt(j->fmt, &fl_binary16) && j->op != FL_ORC_CVT) {
        if (!flags && HW_HAVE_FP16_INTRIN && k.avx512fp16) {
#if HW_HAVE_FP16_INTRIN
            hw_fp16_native(j->op, rc, n, a, b, c, r);
#endif
        } else if (!flags && j->op != FL_ORC_FMA) {
            hw_vec16(j->op, rc, n, a, b, r);
        } else {
            i = 0;
#if HW_HAVE_FP16_INTRIN
            if (flags && k.avx512fp16 && j->op != FL_ORC_FMA)
                i = hw_p16_flags(j->op, rc, n, a, b, r, flags);
#endif
            if (flags && k.avx512 && j->op != FL_ORC_FMA)
                i += hw_vec16_flags(j->op, rc, n - i, a + i, b ? b + i : NULL,
                                    r + i, flags + i);
            for (; i < n; i++)
                r[i] = hw_op16(j->op, rc, (uint16_t)a[i],
                               b ? (uint16_t)b[i] : 0, c ? (uint16_t)c[i] : 0,
                               flags ? &flags[i] : NULL);
        }
        mx_set(saved);
        return;
    }
    for (i = 0; i < n; i++) {
        unsigned m, f;
        uint64_t res;
        mx_set(mx_word(rc));
        if (is_fmt(j->fmt, &fl_binary16)) {           /* cvt to binary16 */
            float y;
            if (is_fmt(j->src, &fl_binary32)) {
                y = u2f((uint32_t)a[i]);
                res = hw_f2h(y, rc);                   /* immediate mode */
            } else {                                   /* from binary64 */
                double d = u2d(a[i]);
                unsigned acc = 0;
                if (fin64(d)) {
                    /* round to odd into binary32, then F16C */
                    mx_set(mx_word(3));
                    y = hw_d2f(d);
                    acc = mx_get();
                    if ((acc & MX_PE) && fin32(y))
                        y = u2f(f2u(y) | 1);
                } else {
                    y = hw_d2f(d);                     /* inf, NaN: exact */
                    acc = mx_get();
                }
                mx_set(mx_word(rc) | (acc & MX_FLAGS));
                res = hw_f2h(y, 4);
            }
            m = mx_get();
            f = mx_to_fl(m) & ~FL_UNDERFLOW;
            if ((f & FL_INEXACT) && hw_tiny16(y, rc))
                f |= FL_UNDERFLOW;
        } else {                                       /* binary32 result */
            float y;
            if (j->op == FL_ORC_CVT) {
                if (is_fmt(j->src, &fl_binary16))
                    y = hw_h2f((uint16_t)a[i]);
                else
                    y = hw_d2f(u2d(a[i]));
            } else {
                y = hw_op32(j->op, u2f((uint32_t)a[i]),
                            b ? u2f((uint32_t)b[i]) : 0.0f,
                            c ? u2f((uint32_t)c[i]) : 0.0f);
            }
            m = mx_get();
            f = mx_to_fl(m);     /* native: x86 underflow = tiny after
                                    rounding and inexact */
            res = f2u(y);
        }
        r[i] = res;
        if (flags) flags[i] = f;
    }
    mx_set(saved);
}

#else /* not x86 */

static int hw_can_run(char *why, size_t len)
{
    snprintf(why, len, "not an x86 CPU");
    return 0;
}
static int hw_supports(const fl_orc_job *j, char *why, size_t len)
{
    (void)j;
    snprintf(why, len, "not an x86 CPU");
    return 0;
}
static unsigned hw_flags_reported(const fl_orc_job *j)
{
    (void)j;
    return 0;
}
static void hw_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, uint64_t *r,
                       unsigned *flags)
{
    (void)j; (void)n; (void)a; (void)b; (void)c; (void)r; (void)flags;
}
#endif

const fl_oracle fl_oracle_hw = {
    "hw",
    "x86 hardware: F16C, SSE/AVX/FMA3 via binary32, AVX512-FP16, AVX512-BF16",
    FL_NANP_X86,
    hw_can_run,
    hw_supports,
    hw_flags_reported,
    hw_compute,
};
