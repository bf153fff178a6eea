/*
 * array_ops.c — element-wise add, sub, mul, div over arrays of encodings.
 *
 * Each element gives exactly what the scalar call gives (value, flags and
 * ternary bits); element i of a stochastically rounded array uses
 * sr_index + i, as the bulk rounding functions do, so results do not
 * depend on how an array is split.  The generic loop below calls the
 * scalar entry point per element; the seam (src/accel, one hook) may do
 * the whole array instead, with the same results.
 */
#include "internals.h"
#include "hooks.h"  /* the seam (src/accel): routes proven equal in tests/test_fastpath.c */

#define FL__ARRAY_OP(name, opno, scalar)                                     \
    void name(const fl_format *f, uint64_t *r, const uint64_t *a,            \
              const uint64_t *b, size_t n, const fl_ctx *c, unsigned *each)  \
    {                                                                        \
        fl_ctx x = *c;                                                       \
        size_t i;                                                            \
        if (fl__accel_binop_array(opno, f, r, a, b, n, c, each))             \
            return;                                                          \
        for (i = 0; i < n; i++) {                                            \
            unsigned fl = 0;                                                 \
            x.sr_index = c->sr_index + i;                                    \
            r[i] = scalar(f, a[i], b[i], &x, &fl);                           \
            if (each)                                                        \
                each[i] = fl;                                                \
        }                                                                    \
    }

FL__ARRAY_OP(fl_add_array, 0, fl_add)
FL__ARRAY_OP(fl_sub_array, 1, fl_sub)
FL__ARRAY_OP(fl_mul_array, 2, fl_mul)
FL__ARRAY_OP(fl_div_array, 3, fl_div)
