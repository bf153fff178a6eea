/*
 * preset_init.h — how a format descriptor is built from its parameters at
 * compile time (the initializers of format.c's presets).  The seam's
 * compile-time copies of binary16, bfloat16 and binary32 (src/accel/
 * fast.h) are built by the same FL__PRESET_* lines, so the two can never
 * drift apart.
 */
#ifndef FPLAB_PRESET_INIT_H
#define FPLAB_PRESET_INIT_H

#include "fplab/fplab.h"

#define FL_ONE ((uint64_t)1)
#define FL_BIAS(E) ((1 << ((E) - 1)) - 1)
#define FL_W(E, P, S) ((S) + (E) + (P) - 1)
#define FL_EXPMASK(E, P) ((((FL_ONE << (E)) - 1)) << ((P) - 1))
#define FL_FRACMASK(P) ((FL_ONE << ((P) - 1)) - 1)
#define FL_MAGMASK(E, P) (FL_EXPMASK(E, P) | FL_FRACMASK(P))
/* The largest finite value: the all-ones magnitude less what the style
 * reserves.  IEEE: the whole all-ones exponent (inf, NaN); FN: the NaN
 * pattern; P3109: the NaN where it is a magnitude (unsigned) and the
 * infinity (extended domain, INF); FINITE, FNUZ: nothing. */
#define FL_MAXBITS(E, P, ST, S, INF)                                         \
    ((ST) == FL_NANSTYLE_IEEE                                                \
         ? FL_MAGMASK(E, P) - (FL_ONE << ((P) - 1))                          \
         : (ST) == FL_NANSTYLE_FN                                            \
               ? FL_MAGMASK(E, P) - 1                                        \
               : (ST) == FL_NANSTYLE_P3109                                   \
                     ? FL_MAGMASK(E, P) - ((S) ? 0 : 1) - ((INF) ? 1 : 0)    \
                     : FL_MAGMASK(E, P))
#define FL_HASINF(ST) ((ST) == FL_NANSTYLE_IEEE || (ST) == FL_NANSTYLE_P3109)
#define FL_NEGZERO(ST, S)                                                    \
    ((S) && (ST) != FL_NANSTYLE_FNUZ && (ST) != FL_NANSTYLE_P3109)

/* NAME, exponent bits, precision, bias, nan style, signed, has zero,
 * subnormals, saturate, min_gap_up. */
#define FL_FORMAT_XG(NAME, E, P, B, ST, S, Z, SUB, SAT, GAP)                 \
    {                                                                        \
        NAME, FL_W(E, P, S), E, P, FL_HASINF(ST), ST, SUB, SAT, 0, S, Z,     \
        FL_NEGZERO(ST, S), GAP, B, ((Z) ? 1 : 0) - (B),                      \
        (int32_t)(FL_MAXBITS(E, P, ST, S, FL_HASINF(ST)) >> ((P) - 1)) - (B),\
        (S) ? FL_ONE << (FL_W(E, P, S) - 1) : 0, FL_EXPMASK(E, P),           \
        FL_FRACMASK(P), FL_MAXBITS(E, P, ST, S, FL_HASINF(ST))               \
    }
#define FL_FORMAT_X(NAME, E, P, B, ST, S, Z, SUB, SAT)                       \
    FL_FORMAT_XG(NAME, E, P, B, ST, S, Z, SUB, SAT, 0)
/* Signed, with zero and subnormals, IEEE bias, not saturating. */
#define FL_FORMAT(NAME, E, P, ST)                                            \
    FL_FORMAT_X(NAME, E, P, FL_BIAS(E), ST, 1, 1, 1, 0)

/* The presets whose descriptor the fast paths fold into their code. */
#define FL__PRESET_BINARY16 FL_FORMAT("binary16", 5, 11, FL_NANSTYLE_IEEE)
#define FL__PRESET_BFLOAT16 FL_FORMAT("bfloat16", 8, 8, FL_NANSTYLE_IEEE)
#define FL__PRESET_BINARY32 FL_FORMAT("binary32", 8, 24, FL_NANSTYLE_IEEE)

#endif /* FPLAB_PRESET_INIT_H */
