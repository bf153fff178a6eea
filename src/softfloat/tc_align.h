/*
 * tc_align.h — the tensor-core model's per-term alignment cut, shared by
 * the generic block (tcmodel.c) and ref's integer kernels (src/ref/
 * accel/ref_tcfast.c), which must cut every term exactly alike.
 */
#ifndef FPLAB_TC_ALIGN_H
#define FPLAB_TC_ALIGN_H

#include <stdint.h>

#include "fplab/tensorcore.h"

/* mag / 2^k cut to an integer as `mode` (fl_tc_align) says, for a term of
 * sign s; *cut is set when a nonzero part was dropped.  k > 0. */
static inline uint64_t fl__tc_align_cut(int mode, int s, uint64_t mag,
                                        int32_t k, int *cut)
{
    uint64_t q, rest, half;
    if (k >= 64) {
        /* mag < 2^63 (at most 2p <= 64 bits and a top bit below 63 for
         * every term): the whole term lies below half a unit */
        q = 0;
        rest = mag;
        half = ~(uint64_t)0;
    } else {
        q = mag >> k;
        rest = mag & ((((uint64_t)1) << k) - 1);
        half = ((uint64_t)1) << (k - 1);
    }
    if (rest == 0)
        return q;
    *cut = 1;
    switch (mode) {
    case FL_TC_ALIGN_FLOOR:
        return q + (uint64_t)s;          /* a negative term rounds away */
    case FL_TC_ALIGN_RNE:
        return q + (uint64_t)(rest > half || (rest == half && (q & 1)));
    default:
        return q;                        /* truncation toward zero */
    }
}

#endif /* FPLAB_TC_ALIGN_H */
