/*
 * hooks.h — the seam's side of the one hook in each operation file
 * (host only; device code compiles the operations without it).
 *
 * An operation file reads, for add, sub, mul and fma,
 *
 *     uint64_t fl_add(f, a, b, c, flags)
 *     {
 *         return FL__ACCEL_OR(fl__accel_add(f, a, b, c, flags, fl__add_generic),
 *                             fl__add_generic(f, a, b, c, flags));
 *     }
 *
 * (the seam takes the case or ends in the generic algorithm it is handed;
 * fma's routes call fl__fma_generic by name), and for div, sqrt and
 * convert, whose routes are inline,
 *
 *     FL__ACCEL_HOOK(fl__accel_div(f, a, b, c, flags));
 *     ... the generic algorithm ...
 *
 * and nothing else of the acceleration.  A route either takes the case
 * (its result and flags exactly the generic code's) or declines it before
 * writing a flag.  Every route here is proven equal to the generic code by
 * tests/test_fastpath.c.
 *
 * Routes, in order:
 *   binary16 at level avx512fp16 (fl__p16_take): div and sqrt in nearest
 *     even, toward zero, down and up, add, sub, mul and fma in the three
 *     directed modes (fl__p16_take_dir): the AVX512-FP16 instructions
 *     with the rounding in them (fast_fp16.c), finite operands and
 *     results below 65504; the cases they decline go on:
 *   binary16 in nearest even (fl__h16_take, fast.h): the AVX-512 kernels
 *     for every encoding under the host's NaN rule (level avx512), the
 *     F16C/FMA3 ones (avx2), the SSE2 ones for finite operands (scalar);
 *   the preset binary32 (f == &fl_binary32, tested right after the
 *     nearest-even binary16 host route): straight to its scalar.c route
 *     (fl__f32_*_any), past the binary16 format-key tests (binary32 add
 *     of any encoding +11-16% on Zen 4 in an in-process A/B, binary16
 *     unchanged);
 *   any other fast-path format (fl__fast_fmt): binary64 arithmetic with
 *     round-to-odd and one fl__fast_pack (scalar), out of line so that the
 *     binary16 routes stay small; a copy of binary32 takes its route.
 * The directed AVX512-FP16 routes and the nearest-even ones exclude each
 * other, so add, mul and fma test the nearest-even host-rule route first
 * (fl__h16_take_host, its tests marked likely): the compiler then lays it
 * out as the straight path through the entry point, no jump taken before
 * the tail call (with the AVX512-FP16 test first, three were: binary16
 * add, mul and fma of any encoding ran 17-23% slower on Zen 4).  The
 * level is one comparison of the thread's level byte (fl__accel_is,
 * fl__accel_at: cpu.h), avx512 first in mul: with the process's level
 * and the thread's cap compared on every call, and a comparison per
 * level, the binary16 entry points took 17 instructions to the tail
 * call; now 12.
 */
#ifndef FPLAB_ACCEL_HOOKS_H
#define FPLAB_ACCEL_HOOKS_H

#include "fast.h"

/* A route's answer: two registers on x86-64 and AArch64. */
typedef struct fl__accel_res {
    uint64_t r;
    uint64_t taken;
} fl__accel_res;

#define FL__ACCEL_OR(accel, generic) (accel)

#define FL__ACCEL_HOOK(call)                                                 \
    do {                                                                     \
        const fl__accel_res fl__ar = (call);                                 \
        if (fl__ar.taken)                                                    \
            return fl__ar.r;                                                 \
    } while (0)

FL__AINLINE fl__accel_res fl__accel_took(uint64_t r)
{
    fl__accel_res x;
    x.r = r;
    x.taken = 1;
    return x;
}

/* The generic algorithm of a two-operand operation, handed to the routes
 * below so that the other formats' route (scalar.c) and the fall back to
 * the generic code are one tail call each: the operation itself then
 * needs no stack frame on the binary16 routes.  The fma's routes call
 * fl__fma_generic (internals.h) by name: as a seventh argument it would
 * go on the stack, and fl_fma could not tail-call them. */
typedef uint64_t (*fl__accel_op2)(const fl_format *, uint64_t, uint64_t,
                                  const fl_ctx *, unsigned *);

/* The AVX512-FP16 routes (fast_fp16.c) in the hooks' forms: add, sub,
 * mul and fma end in the other formats' routes below when they decline
 * (fl__p16_take_dir: the directed modes, which no other binary16 route
 * takes), div and sqrt answer in registers.  So every hook stays one
 * tail call and the operations' entry points need no stack frame. */
#ifdef FL__P16
uint64_t fl__p16_add_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic);
uint64_t fl__p16_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic);
uint64_t fl__p16_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic);
uint64_t fl__p16_fma_any(const fl_format *f, uint64_t a, uint64_t b,
                         uint64_t d, const fl_ctx *c, unsigned *flags);
fl__accel_res fl__p16_div_res(uint64_t a, uint64_t b, const fl_ctx *c,
                              unsigned *flags);
fl__accel_res fl__p16_sqrt_res(uint64_t a, const fl_ctx *c, unsigned *flags);
#endif

/* The scalar routes of the other formats (scalar.c), each ending in the
 * generic algorithm when it declines. */
uint64_t fl__accel_add_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic);
uint64_t fl__accel_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic);
uint64_t fl__accel_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                           const fl_ctx *c, unsigned *flags,
                           fl__accel_op2 generic);
uint64_t fl__accel_fma_any(const fl_format *f, uint64_t a, uint64_t b,
                           uint64_t d, const fl_ctx *c, unsigned *flags);
/* The same for f == &fl_binary32 itself (the format test done): the
 * binary32 route, or the others'. */
uint64_t fl__f32_add_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic);
uint64_t fl__f32_sub_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic);
uint64_t fl__f32_mul_any(const fl_format *f, uint64_t a, uint64_t b,
                         const fl_ctx *c, unsigned *flags,
                         fl__accel_op2 generic);
#ifdef FL__H16_SSE
/* binary16 mul and fma in nearest even under a NaN rule other than the
 * host's (scalar.c): finite operands by the fastest kernel of the level,
 * the others by fl__h16_mul_special / fl__h16_fma_special.  Out of line:
 * inlined, the fma's registers gave fl_fma a stack frame on every route,
 * and these rules are not the common case. */
uint64_t fl__h16_mul_rule(const fl_format *f, uint64_t a, uint64_t b,
                          const fl_ctx *c, unsigned *flags);
uint64_t fl__h16_fma_rule(const fl_format *f, uint64_t a, uint64_t b,
                          uint64_t d, const fl_ctx *c, unsigned *flags);
#endif

#ifdef FL__H16_SSE
/* binary16 a + b of any encodings under the host's NaN rule, by the
 * addition route of the thread's level (fl_add, and fl_sub with b's sign
 * flipped); not taken below avx2. */
FL__AINLINE fl__accel_res fl__h16_add_host(const fl_format *f, uint64_t a,
                                           uint64_t b, const fl_ctx *c,
                                           unsigned *flags)
{
    fl__accel_res x;
#ifdef FPLAB_AVX512
    if (__builtin_expect(fl__accel_at(FL__CPU_AVX512), 1))
        return fl__accel_took(fl__h16_add_hw512(f, a, b, c, flags));
#endif
    if (fl__accel_at(FL__CPU_AVX2))
        return fl__accel_took(fl__h16_add_f16c(f, a, b, c, flags));
    x.r = 0;
    x.taken = 0;
    return x;
}
#endif

FL__AINLINE uint64_t fl__accel_add(const fl_format *f, uint64_t a,
                                   uint64_t b, const fl_ctx *c,
                                   unsigned *flags, fl__accel_op2 generic)
{
#ifdef FL__H16_SSE
    if (__builtin_expect(fl__h16_take_host(f, c), 1))   /* every encoding */
        FL__ACCEL_HOOK(fl__h16_add_host(f, a, b, c, flags));
#endif
    if (f == &fl_binary32)
        return fl__f32_add_any(f, a, b, c, flags, generic);
#ifdef FL__P16
    if (fl__p16_take_dir(f, c))
        return fl__p16_add_any(f, a, b, c, flags, generic);
#endif
#ifdef FL__H16_SSE
    if (fl__h16_take(f, c)) {
        if (__builtin_expect(fl__h16_special(a) | fl__h16_special(b), 0))
            return fl__h16_add_special(a, b, c, flags);
        return fl__h16_add(a, b, flags);
    }
#endif
    return fl__accel_add_any(f, a, b, c, flags, generic);
}

FL__AINLINE uint64_t fl__accel_sub(const fl_format *f, uint64_t a,
                                   uint64_t b, const fl_ctx *c,
                                   unsigned *flags, fl__accel_op2 generic)
{
#ifdef FL__H16_SSE
    if (__builtin_expect(fl__h16_take_host(f, c), 1)) {  /* every encoding */
        /* a - b = a + (-b), b's sign flipped unless b is a NaN (x86
         * returns a NaN operand with its own sign) */
        const uint64_t nb = b ^ (uint64_t)((b & 0x7FFF) <= 0x7C00) << 15;
        FL__ACCEL_HOOK(fl__h16_add_host(f, a, nb, c, flags));
    }
#endif
    if (f == &fl_binary32)
        return fl__f32_sub_any(f, a, b, c, flags, generic);
#ifdef FL__P16
    if (fl__p16_take_dir(f, c))
        return fl__p16_sub_any(f, a, b, c, flags, generic);
#endif
#ifdef FL__H16_SSE
    /* finite operands only: a NaN keeps its own sign */
    if (fl__h16_take(f, c) && !(fl__h16_special(a) | fl__h16_special(b)))
        return fl__h16_add(a, b ^ 0x8000, flags);
#endif
    return fl__accel_sub_any(f, a, b, c, flags, generic);
}

FL__AINLINE uint64_t fl__accel_mul(const fl_format *f, uint64_t a,
                                   uint64_t b, const fl_ctx *c,
                                   unsigned *flags, fl__accel_op2 generic)
{
#ifdef FL__H16_SSE
    if (__builtin_expect(fl__h16_take_host(f, c), 1)) { /* every encoding */
        if (__builtin_expect(fl__accel_is(FL__CPU_AVX512), 1))
            return fl__h16_mul_hw(f, a, b, c, flags);
#ifdef FL__P16
        if (fl__accel_at(FL__CPU_AVX512FP16))
            return fl__h16_mul_p16(f, a, b, c, flags);
#endif
        if (fl__accel_at(FL__CPU_AVX2))
            return fl__h16_mul_hw(f, a, b, c, flags);
    }
#endif
    if (f == &fl_binary32)
        return fl__f32_mul_any(f, a, b, c, flags, generic);
#ifdef FL__P16
    if (fl__p16_take_dir(f, c))
        return fl__p16_mul_any(f, a, b, c, flags, generic);
#endif
#ifdef FL__H16_SSE
    if (fl__h16_take(f, c))
        return fl__h16_mul_rule(f, a, b, c, flags);
#endif
    return fl__accel_mul_any(f, a, b, c, flags, generic);
}

FL__AINLINE uint64_t fl__accel_fma(const fl_format *f, uint64_t a,
                                   uint64_t b, uint64_t d, const fl_ctx *c,
                                   unsigned *flags)
{
#ifdef FL__H16_SSE
    if (__builtin_expect(fl__h16_take_host(f, c), 1)) {  /* every encoding */
#ifdef FPLAB_AVX512
        if (__builtin_expect(fl__accel_at(FL__CPU_AVX512), 1))
            return fl__h16_fma_host512(f, a, b, d, c, flags);
#endif
        if (fl__accel_at(FL__CPU_AVX2))
            return fl__h16_fma_f16c(f, a, b, d, c, flags);
    }
#endif
    if (f == &fl_binary32)
        return fl__accel_fma_any(f, a, b, d, c, flags);
#ifdef FL__P16
    if (fl__p16_take_dir(f, c))
        return fl__p16_fma_any(f, a, b, d, c, flags);
#endif
#ifdef FL__H16_SSE
    if (fl__h16_take(f, c))
        return fl__h16_fma_rule(f, a, b, d, c, flags);
#endif
    return fl__accel_fma_any(f, a, b, d, c, flags);
}

/* Division, square root and conversion: the scalar routes, inline. */
FL__AINLINE fl__accel_res fl__accel_div(const fl_format *f, uint64_t a,
                                        uint64_t b, const fl_ctx *c,
                                        unsigned *flags)
{
    fl__accel_res x;
#ifdef FL__P16
    if (fl__p16_take(f, c)) {
        x = fl__p16_div_res(a, b, c, flags);
        if (x.taken)
            return x;
    }
#endif
    x.taken = (uint64_t)fl__fast_div(f, a, b, c, flags, &x.r);
    return x;
}
FL__AINLINE fl__accel_res fl__accel_sqrt(const fl_format *f, uint64_t a,
                                         const fl_ctx *c, unsigned *flags)
{
    fl__accel_res x;
#ifdef FL__P16
    if (fl__p16_take(f, c)) {
        x = fl__p16_sqrt_res(a, c, flags);
        if (x.taken)
            return x;
    }
#endif
    x.taken = (uint64_t)fl__fast_sqrt(f, a, c, flags, &x.r);
    return x;
}
FL__AINLINE fl__accel_res fl__accel_convert(const fl_format *dst,
                                            const fl_format *src, uint64_t a,
                                            const fl_ctx *c, unsigned *flags)
{
    fl__accel_res x;
    x.taken = (uint64_t)fl__fast_convert(dst, src, a, c, flags, &x.r);
    return x;
}

/* fl_round_float and fl_round_double (native.c): the scalar route; 1 and
 * the result in *r when taken. */
FL__AINLINE int fl__accel_round_float(const fl_format *f, float x,
                                      const fl_ctx *c, unsigned *flags,
                                      float *r)
{
    return fl__fast_round_float(f, x, c, flags, r);
}
FL__AINLINE int fl__accel_round_double(const fl_format *f, double x,
                                       const fl_ctx *c, unsigned *flags,
                                       double *r)
{
    return fl__fast_round_double(f, x, c, flags, r);
}

/* The array entry points (native.c, array_ops.c): the seam does the whole
 * array and returns 1, or returns 0 having written nothing (the generic
 * loop then runs).  Bulk rounding: the narrow formats' kernels
 * (fast_narrow.c), then the fast-path formats' (fast_array.c).  Add, sub,
 * mul, div (op 0 .. 3, fast_array.c): the AVX-512 kernels of
 * fast_simd_binop.c on a prefix, the rest element by element through the
 * scalar route specialised to the format. */
FL__AINLINE int fl__accel_round_float_array(const fl_format *f, float *dst,
                                            const float *src, size_t n,
                                            const fl_ctx *c, unsigned *flags)
{
    return fl__narrow_round_float_array(f, dst, src, n, c, flags) ||
           fl__fast_round_float_array(f, dst, src, n, c, flags);
}
FL__AINLINE int fl__accel_round_double_array(const fl_format *f, double *dst,
                                             const double *src, size_t n,
                                             const fl_ctx *c, unsigned *flags)
{
    return fl__fast_round_double_array(f, dst, src, n, c, flags);
}
int fl__accel_binop_array(int op, const fl_format *f, uint64_t *r,
                          const uint64_t *a, const uint64_t *b, size_t n,
                          const fl_ctx *c, unsigned *each);

#endif /* FPLAB_ACCEL_HOOKS_H */
