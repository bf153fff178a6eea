/*
 * fast_simd_binop.c — AVX-512 kernels for fl_add_array, fl_sub_array,
 * fl_mul_array and fl_div_array (x86-64, GCC or Clang, compiled only with
 * FPLAB_AVX512 and chosen at run time).
 *
 * Eight elements per vector, each lane running fast.h's algorithm for the
 * operation, unchanged: decode both operands exactly into binary64, form
 * the result as one double whose last bit is sticky (round-to-odd at 53
 * bits), and round that double in place to p bits.  A lane the kernel does
 * not decide goes to the scalar entry point (fl_add, ...) on its own: an
 * operand that is infinite or NaN, a zero result (its sign follows the
 * mode), a zero divisor or dividend, a result outside f's normal range
 * (subnormal, flush-to-zero, tininess), and a result that rounds beyond
 * f's largest finite value.  So every lane gives exactly what the scalar
 * call gives, value, flags and ternary bits; tests/test_array_ops.c checks
 * that over every binary16 pair in the unit tests' sample and the
 * exhaustive label.
 *
 * Scope: fast-path formats (fast.h: p <= 24, ebits <= 8), every mode but
 * stochastic rounding, daz on or off.  Addition needs the sum exact in
 * binary64 or an error term: both are done as in fl__fast_add_g.
 *
 * Nothing here is reached without the CPU's AVX-512 F, DQ and VL.
 */
#include <string.h>

#include "fast.h"

#if defined(FPLAB_AVX512) && defined(__x86_64__) && defined(__GNUC__)
#define FL__BINOP_SIMD 1
#include <immintrin.h>

typedef uint64_t fl__v8u __attribute__((vector_size(64)));
typedef int64_t fl__v8s __attribute__((vector_size(64)));
typedef double fl__v8d __attribute__((vector_size(64)));
typedef uint32_t fl__v8w __attribute__((vector_size(32)));

#define FL__VTARGET __attribute__((target("avx512f,avx512dq,avx512vl")))
#define FL__VINL FL__VTARGET __attribute__((always_inline)) static inline

enum { FL__OP_ADD, FL__OP_SUB, FL__OP_MUL, FL__OP_DIV };

/* Lanes as bits (bit i = lane i) of a vector of all-ones / zero lanes. */
FL__VINL unsigned fl__vbits(fl__v8s m)
{
    return (unsigned)_mm512_movepi64_mask((__m512i)m);
}

/* fl__fast_decode lane by lane. */
FL__VINL fl__v8d fl__vdecode(const fl_format *F, fl__v8u a, int daz)
{
    const fl__v8u zero = {0};
    fl__v8u mag = a & (F->sign_mask - 1);
    const fl__v8u s = (a >> (F->width - 1)) << 63;
    fl__v8d d;
    if (daz || !F->subnormals)
        mag = (fl__v8u)((fl__v8s)((mag & F->exp_mask) != zero)) & mag;
    d = (fl__v8d)(s | (mag << (53 - F->prec)));
    return d * fl__d_of((uint64_t)(2046 - F->bias) << 52);
}

/*
 * One kernel: op and rm are constants in each inlined copy.  Returns the
 * number of elements done (n rounded down to a multiple of 8); lanes it
 * does not decide are done by the scalar entry point before returning.
 */
FL__VINL size_t fl__vbinop(const fl_format *F, const fl_format *f, int op,
                           const int rm, uint64_t *r, const uint64_t *a,
                           const uint64_t *b, size_t n, const fl_ctx *c,
                           unsigned *each)
{
    const fl__v8u zero = {0}, one = zero + 1;
    const fl__v8u hi = zero + ((uint64_t)1 << 63);
    const fl__v8u special = zero + fl__fast_special(F);
    const fl__v8u magm = zero + (F->sign_mask - 1);
    const int p = F->prec, sh = 53 - p;
    const fl__v8u mask = zero + (((uint64_t)1 << sh) - 1);
    const fl__v8u rebias = zero + ((uint64_t)(1023 - F->bias) << (p - 1));
    const fl__v8u maxb = zero + F->max_bits;
    const fl__v8u sgnf = zero + F->sign_mask;
    /* biased binary64 exponents of f's normal range: [lo, lo + span] */
    const fl__v8u elo = zero + (uint64_t)(1023 + F->emin);
    const fl__v8u espan = zero + (uint64_t)(F->emax - F->emin);
    const int exact_sum = F->emax - F->emin + F->prec + 1 <= 53;
    const int daz = c->daz;
    const size_t done = n - n % 8;
    size_t i;

    for (i = 0; i < done; i += 8) {
        fl__v8u va, vb, u, sg, A, e, q, t, inc, res, fl;
        fl__v8s bad;
        fl__v8d x, y;
        unsigned badb;
        memcpy(&va, a + i, 64);
        memcpy(&vb, b + i, 64);
        if (op == FL__OP_SUB)
            vb ^= F->sign_mask;
        bad = ((va & magm) >= special) | ((vb & magm) >= special);
        x = fl__vdecode(F, va, daz);
        y = fl__vdecode(F, vb, daz);
        if (op == FL__OP_ADD || op == FL__OP_SUB) {
            fl__v8d s = x + y;
            u = (fl__v8u)s;
            if (!exact_sum) {
                /* TwoSum, then round to odd (fl__fast_odd) */
                fl__v8d bb = s - x;
                fl__v8d err = (x - (s - bb)) + (y - bb);
                fl__v8s fix = (err != 0.0) & ((fl__v8s)(u & one) == 0);
                fl__v8u down = ((fl__v8u)err ^ u) >> 63;   /* err against s */
                u += (fl__v8u)fix & (one - down - down);    /* +1 or -1 */
            }
        } else if (op == FL__OP_MUL) {
            u = (fl__v8u)(x * y);                          /* exact */
        } else {
            /* fl__fast_div_g: Markstein's remainder of the rounded
             * quotient, exact without an FMA */
            const fl__v8u sb = ((fl__v8u)x ^ (fl__v8u)y) & hi;
            fl__v8d ax = (fl__v8d)((fl__v8u)x & ~hi);
            fl__v8d ay = (fl__v8d)((fl__v8u)y & ~hi);
            fl__v8d qd, qh, ql, rem;
            fl__v8s fix;
            bad |= (ax == 0.0) | (ay == 0.0);
            ay = (fl__v8d)((fl__v8u)ay | ((fl__v8u)(fl__v8s)(ay == 0.0) &
                                          (zero + fl__u_of(1.0))));
            qd = ax / ay;
            qh = (fl__v8d)((fl__v8u)qd & ~(zero + (((uint64_t)1 << 27) - 1)));
            ql = qd - qh;
            rem = (ax - qh * ay) - ql * ay;
            u = (fl__v8u)qd;
            fix = (rem != 0.0) & ((fl__v8s)(u & one) == 0);
            /* +1 when the quotient is below the exact value, else -1 */
            u += (fl__v8u)fix & (~(fl__v8u)(fl__v8s)(rem > 0.0) | one);
            u |= sb;
        }
        sg = u >> 63;
        A = u & ~hi;
        bad |= (A == zero);
        e = (A >> 52) - elo;                   /* wraps below emin */
        bad |= (e > espan);
        q = A >> sh;
        switch (rm) {
        case FL_RNE: inc = (mask >> 1) + (q & one); break;
        case FL_RNA: inc = (mask >> 1) + one; break;
        case FL_RUP: inc = mask & (sg - one); break;       /* sign ? 0 : mask */
        case FL_RDN: inc = mask & (zero - sg); break;      /* sign ? mask : 0 */
        case FL_RTO: inc = mask & ((q & one) - one); break;
        default: inc = zero; break;                        /* RTZ */
        }
        {
            const fl__v8s inexact = (A & mask) != zero;
            t = (A + ((fl__v8u)inexact & inc)) >> sh;
            res = t - rebias;
            bad |= (res > maxb);
            fl = (fl__v8u)inexact &
                 ((zero + FL_INEXACT) |
                  ((fl__v8u)(fl__v8s)((t != q) != (fl__v8s)(zero - sg))
                   & (zero + FL_TERN_UP)) |
                  (~(fl__v8u)(fl__v8s)((t != q) != (fl__v8s)(zero - sg))
                   & (zero + FL_TERN_DOWN)));
        }
        res |= sgnf & (zero - sg);
        {
            /* the undecided lanes, read before anything is stored (r may
             * be a or b) */
            uint64_t out[8];
            unsigned ofl[8];
            fl__v8w w = __builtin_convertvector(fl, fl__v8w);
            memcpy(out, &res, 64);
            memcpy(ofl, &w, 32);
            badb = fl__vbits(bad);
            fl__binop_lanes(op, f, a + i, b + i, c, badb, out, ofl);
            memcpy(r + i, out, 64);
            if (each)
                memcpy(each + i, ofl, 32);
        }
    }
    return done;
}

/* One copy per (format, op) with the mode's switch outside the loop. */
#define FL__VMODES(F)                                                        \
    switch (c->rm) {                                                         \
    case FL_RNE: return fl__vbinop(F, f, op, FL_RNE, r, a, b, n, c, each);   \
    case FL_RTZ: return fl__vbinop(F, f, op, FL_RTZ, r, a, b, n, c, each);   \
    case FL_RDN: return fl__vbinop(F, f, op, FL_RDN, r, a, b, n, c, each);   \
    case FL_RUP: return fl__vbinop(F, f, op, FL_RUP, r, a, b, n, c, each);   \
    case FL_RNA: return fl__vbinop(F, f, op, FL_RNA, r, a, b, n, c, each);   \
    case FL_RTO: return fl__vbinop(F, f, op, FL_RTO, r, a, b, n, c, each);   \
    default: return 0;                                                       \
    }

#define FL__VOP(name, OP, FMT)                                               \
    FL__VTARGET static size_t name(const fl_format *f, uint64_t *r,         \
                                   const uint64_t *a, const uint64_t *b,     \
                                   size_t n, const fl_ctx *c,                \
                                   unsigned *each)                           \
    {                                                                        \
        const fl_format *F = FMT;                                            \
        const int op = OP;                                                   \
        FL__VMODES(F)                                                        \
    }
/* binary16 folded into its own copies; other fast formats run the same
 * code on their own descriptor */
FL__VOP(fl__vadd16, FL__OP_ADD, &fl__k_binary16)
FL__VOP(fl__vsub16, FL__OP_SUB, &fl__k_binary16)
FL__VOP(fl__vmul16, FL__OP_MUL, &fl__k_binary16)
FL__VOP(fl__vdiv16, FL__OP_DIV, &fl__k_binary16)
FL__VOP(fl__vadd, FL__OP_ADD, f)
FL__VOP(fl__vsub, FL__OP_SUB, f)
FL__VOP(fl__vmul, FL__OP_MUL, f)
FL__VOP(fl__vdiv, FL__OP_DIV, f)

#endif /* FL__BINOP_SIMD */

size_t fl__simd_binop(int op, const fl_format *f, uint64_t *r,
                      const uint64_t *a, const uint64_t *b, size_t n,
                      const fl_ctx *c, unsigned *each)
{
#ifdef FL__BINOP_SIMD
    /* level 2: AVX-512 F, BW, VL and DQ (fast_simd.c's detection) */
    if (!fl__fast_fmt(f) || c->rm >= FL_RSR || fl__simd_available() < 2)
        return 0;
    {
        /* by binary16 (its own copies) or not, and op */
        static size_t (*const k[2][4])(const fl_format *, uint64_t *,
                                       const uint64_t *, const uint64_t *,
                                       size_t, const fl_ctx *, unsigned *) = {
            { fl__vadd, fl__vsub, fl__vmul, fl__vdiv },
            { fl__vadd16, fl__vsub16, fl__vmul16, fl__vdiv16 } };
        return k[fl__fmt_key(f) == FL__KEY(16, 5, 11)][op & 3](f, r, a, b, n,
                                                               c, each);
    }
#else
    (void)op; (void)f; (void)r; (void)a; (void)b; (void)n; (void)c;
    (void)each;
    return 0;
#endif
}
