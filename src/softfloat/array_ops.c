/*
 * array_ops.c — element-wise add, sub, mul, div over arrays of encodings.
 *
 * Each element gives exactly what the scalar call gives (value, flags and
 * ternary bits): the loop runs the same fast path the scalar entry points
 * try first (fast.h) and, where it declines (infinities, NaNs, division by
 * zero, stochastic rounding of an inexact double), the scalar entry point
 * itself.  What the batch saves is per-call overhead: the format is
 * specialised once per array instead of once per element, so for
 * binary16, bfloat16 and binary32 the descriptor's fields fold into the
 * loop.
 *
 * Element i of a stochastically rounded array uses sr_index + i, as the
 * bulk rounding functions do, so results do not depend on how an array is
 * split.
 */
#include "internals.h"
#include "fast.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* the first key, when the second says a signed IEEE-biased format with
 * zero and -0 (fl__fast_fmt has checked the bias) */
#define FL__ARRAY_KEY(f)                                                     \
    (fl__fmt_key2(f) == FL__KEY2((f)->bias) ? fl__fmt_key(f) : 0)
#else
#define FL__ARRAY_KEY(f) 0   /* no specialisation: the default branch */
#endif

/* Negation of b turns the add fast path into subtraction (as fl_sub does);
 * the other ops pass b through. */
#define FL__ARRAY_OP(name, opno, fastg, negb, scalar)                              \
    FL__AINLINE void name##_loop(const fl_format *F, const fl_format *f,     \
                                 uint64_t *r, const uint64_t *a,             \
                                 const uint64_t *b, size_t n,                \
                                 const fl_ctx *c, unsigned *each)            \
    {                                                                        \
        size_t i;                                                            \
        for (i = 0; i < n; i++) {                                            \
            unsigned fl = 0;                                                 \
            uint64_t v;                                                      \
            if (!fastg(F, a[i], (negb) ? b[i] ^ F->sign_mask : b[i], c,      \
                       &fl, &v))                                             \
                v = scalar(f, a[i], b[i], c, &fl);                           \
            r[i] = v;                                                        \
            if (each)                                                        \
                each[i] = fl;                                                \
        }                                                                    \
    }                                                                        \
    void name(const fl_format *f, uint64_t *r, const uint64_t *a,            \
              const uint64_t *b, size_t n, const fl_ctx *c, unsigned *each)  \
    {                                                                        \
        if (c->rm == FL_RSR) {                                               \
            fl_ctx x = *c;                                                   \
            size_t i;                                                        \
            for (i = 0; i < n; i++) {                                        \
                unsigned fl = 0;                                             \
                x.sr_index = c->sr_index + i;                                \
                r[i] = scalar(f, a[i], b[i], &x, &fl);                       \
                if (each)                                                    \
                    each[i] = fl;                                            \
            }                                                                \
            return;                                                          \
        }                                                                    \
        {                                                                    \
            const size_t k = fl__simd_binop(opno, f, r, a, b, n, c, each);   \
            r += k;                                                          \
            a += k;                                                          \
            b += k;                                                          \
            n -= k;                                                          \
            if (each)                                                        \
                each += k;                                                   \
        }                                                                    \
        if (!fl__fast_fmt(f)) {                                              \
            name##_loop(f, f, r, a, b, n, c, each);                          \
            return;                                                          \
        }                                                                    \
        switch (FL__ARRAY_KEY(f)) {                                      \
        case FL__KEY(16, 5, 11):                                             \
            name##_loop(&fl__k_binary16, f, r, a, b, n, c, each);            \
            return;                                                          \
        case FL__KEY(16, 8, 8):                                              \
            name##_loop(&fl__k_bfloat16, f, r, a, b, n, c, each);            \
            return;                                                          \
        case FL__KEY(32, 8, 24):                                             \
            name##_loop(&fl__k_binary32, f, r, a, b, n, c, each);            \
            return;                                                          \
        default:                                                             \
            name##_loop(f, f, r, a, b, n, c, each);                          \
            return;                                                          \
        }                                                                    \
    }

FL__ARRAY_OP(fl_add_array, 0, fl__fast_add_g, 0, fl_add)
FL__ARRAY_OP(fl_sub_array, 1, fl__fast_add_g, 1, fl_sub)
FL__ARRAY_OP(fl_mul_array, 2, fl__fast_mul_g, 0, fl_mul)
FL__ARRAY_OP(fl_div_array, 3, fl__fast_div_g, 0, fl_div)
