/*
 * fast_array.c — the seam's array routes: bulk rounding of host arrays
 * (fl_round_float_array, fl_round_double_array) for the fast-path formats
 * of fast.h, and fl_add_array .. fl_div_array (fl__accel_binop_array).
 *
 * Element i is rounded exactly as fl_round_float / fl_round_double would
 * with stochastic-rounding index c->sr_index + i, and the flags are the OR
 * of the elements' flags, so a split of the array (threads, blocks) never
 * changes a result.  The SIMD kernels of fast_simd.c take the longest
 * prefix that is a multiple of their vector width; the rest, and every
 * element a kernel does not decide, goes through the scalar fast path.
 */
#include "hooks.h"

/* fl__fast_round_float_array and fl__fast_round_double_array: one body,
 * T the host type, NAME the scalar entry points' infix. */
#define FL__ROUND_ARRAY(T, NAME)                                             \
    int fl__fast_round_##NAME##_array(const fl_format *f, T *dst,            \
                                      const T *src, size_t n,                \
                                      const fl_ctx *c, unsigned *flags)      \
    {                                                                        \
        fl_ctx ci = *c;                                                      \
        unsigned fl = 0;                                                     \
        size_t i;                                                            \
        /* (every mode a context defines, stochastic rounding included:     \
         * the kernels and the scalar route give element i index            \
         * sr_index + i) */                                                  \
        if (!fl__fast_fmt(f) || !FL__FAST_RM(c))                             \
            return 0;                                                        \
        i = fl__simd_round_##NAME##_array(f, dst, src, n, c, &fl, -1);       \
        for (; i < n; i++) {                                                 \
            T r;                                                             \
            ci.sr_index = c->sr_index + (uint64_t)i;                         \
            if (fl__fast_round_##NAME(f, src[i], &ci, &fl, &r))              \
                dst[i] = r;                                                  \
            else                                                             \
                dst[i] = fl_round_##NAME(f, src[i], &ci, &fl);               \
        }                                                                    \
        *flags |= fl;                                                        \
        return 1;                                                            \
    }
FL__ROUND_ARRAY(float, float)
FL__ROUND_ARRAY(double, double)
#undef FL__ROUND_ARRAY

/* ---- fl_add_array, fl_sub_array, fl_mul_array, fl_div_array ----------
 * The AVX512-FP16 kernels (fast_fp16.c, binary16) and then the AVX-512
 * ones (fast_simd_binop.c) take a prefix; the rest runs
 * element by element through the scalar route of fast.h with the format
 * specialised once per array (binary16, bfloat16 and binary32 fold their
 * descriptor into the loop), and the scalar entry point where the route
 * declines (infinities, NaNs, division by zero).  Stochastic rounding
 * and formats without a fast path stay with the generic loop. */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* the first key, when the second says a signed IEEE-biased format with
 * zero and -0 (fl__fast_fmt has checked the bias) */
#define FL__ARRAY_KEY(f)                                                     \
    (fl__fmt_key2(f) == FL__KEY2((f)->bias) ? fl__fmt_key(f) : 0)
#else
#define FL__ARRAY_KEY(f) 0   /* no specialisation: the default branch */
#endif

/* op's loop on descriptor F (f itself or its compile-time copy); negation
 * of b turns the add route into subtraction, as fl_sub does. */
FL__AINLINE void fl__binop_loop(const fl_format *F, const fl_format *f,
                                int op, uint64_t *r, const uint64_t *a,
                                const uint64_t *b, size_t n, const fl_ctx *c,
                                unsigned *each)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned fl = 0;
        uint64_t v;
        int took;
        switch (op) {
        case 0: took = fl__fast_add_g(F, a[i], b[i], c, &fl, &v); break;
        case 1: took = fl__fast_add_g(F, a[i], b[i] ^ F->sign_mask, c, &fl, &v); break;
        case 2: took = fl__fast_mul_g(F, a[i], b[i], c, &fl, &v); break;
        default: took = fl__fast_div_g(F, a[i], b[i], c, &fl, &v); break;
        }
        if (!took)
            fl__binop_lanes(op, f, a + i, b + i, c, 1, &v, &fl);
        r[i] = v;
        if (each)
            each[i] = fl;
    }
}

/* One copy per op, so that op is a constant in each loop. */
#define FL__BINOP_KEYED(op)                                                  \
    switch (FL__ARRAY_KEY(f)) {                                              \
    case FL__KEY(16, 5, 11):                                                 \
        fl__binop_loop(&fl__k_binary16, f, op, r, a, b, n, c, each);         \
        break;                                                               \
    case FL__KEY(16, 8, 8):                                                  \
        fl__binop_loop(&fl__k_bfloat16, f, op, r, a, b, n, c, each);         \
        break;                                                               \
    case FL__KEY(32, 8, 24):                                                 \
        fl__binop_loop(&fl__k_binary32, f, op, r, a, b, n, c, each);         \
        break;                                                               \
    default:                                                                 \
        fl__binop_loop(f, f, op, r, a, b, n, c, each);                       \
        break;                                                               \
    }

int fl__accel_binop_array(int op, const fl_format *f, uint64_t *r,
                          const uint64_t *a, const uint64_t *b, size_t n,
                          const fl_ctx *c, unsigned *each)
{
    size_t k;
    /* (stochastic rounding needs index sr_index + i per element: the
     * generic loop gives it) */
    if (!fl__fast_fmt(f) || c->rm >= FL_RSR)
        return 0;
    k = fl__fp16_binop(op, f, r, a, b, n, c, each);
    k += fl__simd_binop(op, f, r + k, a + k, b + k, n - k, c,
                        each ? each + k : NULL);
    r += k;
    a += k;
    b += k;
    n -= k;
    if (each)
        each += k;
    switch (op) {
    case 0: FL__BINOP_KEYED(0) break;
    case 1: FL__BINOP_KEYED(1) break;
    case 2: FL__BINOP_KEYED(2) break;
    default: FL__BINOP_KEYED(3) break;
    }
    return 1;
}
