/*
 * scale_internal.h — shared pieces of fplab_scale (not installed).
 *
 * Element description: everything the quantizers need from a scheme's
 * element format, computed once per call from the fl_format descriptor
 * (nothing here knows a format by name).  Binary32 arithmetic of the
 * recipes is one correctly rounded operation per step of the cited
 * source: through the core (fl_mul, fl_div on fl_binary32) on the
 * element-by-element routes, in the host's binary32 in its default state
 * (as the core's fast paths assume) on the bulk routes (accel/scale_bulk.c).
 */
#ifndef FPLAB_SCALE_INTERNAL_H
#define FPLAB_SCALE_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "fplab/fplab.h"
#include "fplab/scale.h"
#include "accel.h"

typedef struct fl__sc_elem {
    const fl_format *f;   /* NULL: MXINT8 */
    int width;            /* code bits (sign included) */
    int m;                /* fraction bits (int8: 6, the 2^-6 step) */
    int bias, emin, emax; /* emax = emax_elem of MX §6.3 (int8: 0) */
    int qexp;             /* exponent of the smallest step: emin - m
                             (int8: -6) */
    uint32_t maxmag;      /* largest finite magnitude code (int8: 127) */
    double maxval;        /* its value (int8: 127/64) */
    float rcp;            /* binary32(1 / maxval) as Transformer Engine's
                             max_norm_rcp (1.0 / max_norm in binary64,
                             then binary32): the RCEIL rule */
    int fast;             /* the integer fast path handles this format */
    double val[256];      /* exact value of each code (NaN where a NaN) */
    uint8_t sub[256];     /* 1: the code is a nonzero subnormal */
} fl__sc_elem;

/* Fill e from the scheme; -1 (message) if the element format cannot be an
 * element (wider than 8 bits, no sign, ...). */
int fl__sc_elem_init(fl__sc_elem *e, const fl_scale_scheme *s, char *err,
                     size_t errlen);

/* The element rounding's context of scheme s (mode, seed; under FL_RSB
 * the bit count and variant), and its per-element part: element i (flat
 * index) has stochastic-rounding index i, or under FL_RSB the bits
 * s->sr_bits[i]. */
static inline fl_ctx fl__sc_ctx(const fl_scale_scheme *s)
{
    fl_ctx c = fl_ctx_make(s->rm);
    c.sr_seed = s->seed;
    c.sr_nbits = (uint8_t)s->sr_nbits;
    c.sr_variant = (uint8_t)s->sr_variant;
    return c;
}

static inline void fl__sc_at(fl_ctx *c, const fl_scale_scheme *s, uint64_t i)
{
    c->sr_index = i;
    if (s->rm == FL_RSB)
        c->sr_bits = s->sr_bits[i];
}

static inline uint32_t fl__f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float fl__u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The largest magnitude of x[0..k) as binary32 bits (sign cleared; an
 * infinity counts), and in *nan whether one of them is a NaN. */
static inline uint32_t fl__sc_amax(const float *x, size_t k, int *nan)
{
    uint32_t amax = 0, n = 0;
    for (size_t i = 0; i < k; i++) {
        const uint32_t u = fl__f2u(x[i]) & 0x7FFFFFFFu;
        n |= u > 0x7F800000u;
        amax = u > amax ? u : amax;
    }
    *nan = (int)n;
    return amax;
}

/* What every quantizer checks of its input (scheme.c): values given when
 * n > 0, and under FL_RSB the supplied bits, 1..64 of them, a variant;
 * 0, or -1 with a message. */
int fl__sc_check_input(const fl_scale_scheme *s, const float *x, size_t n,
                       char *err, size_t errlen);

/* binary32 arithmetic through the core, round to nearest even. */
float fl__f32_mul(float a, float b);
float fl__f32_div(float a, float b);
/* binary32 of a binary64 (RNE) through the core. */
float fl__f32_of(double d);

/* E8M0 code of a shared exponent s, or 0xFF for NaN. */
#define FL__E8M0_NAN 0xFFu

/* Shared exponent of an MX block from its amax bits (sign cleared):
 * returns the E8M0 code (s + 127), 0xFF for a NaN scale. */
unsigned fl__mx_scale_code(const fl__sc_elem *e, int rule, uint32_t amax_bits);
/* The RCEIL code in integers: binary32(amax * rcp) rounded to nearest even
 * and then up to a power of two; -1 when amax or the product is subnormal
 * (the caller takes the general route). */
int fl__mx_rceil_int(uint32_t amax_bits, float rcp);

/* Generic MX quantization of one block of k elements x (global index of
 * its first element: base) with E8M0 code sc (not NaN): codes (may be
 * NULL), dequantized values into deq (always), and the number of
 * subnormal and saturated elements. */
void fl__mx_block_generic(const fl__sc_elem *e, const fl_scale_scheme *s,
                          const float *x, size_t k, uint64_t base,
                          unsigned sc, uint8_t *codes, float *deq,
                          uint32_t *nsub, uint32_t *nsat);

/* Fast MX quantization of whole blocks of 32 (accel/scale_mx.c): handles
 * the blocks it can and returns, per block, whether it did (done[b] = 1).
 * deq may be NULL when dequant and statistics are not wanted.  Returns 0
 * when no fast kernel applies at all. */
int fl__mx_fast(const fl__sc_elem *e, const fl_scale_scheme *s,
                const float *x, size_t nblocks, uint8_t *codes,
                uint8_t *scales, float *deq, uint32_t *nsub,
                uint32_t *nsat, uint8_t *done);

/* The kernels here (accel/scale_mx.c, accel/scale_bulk.c) are chosen by the seam's vector
 * set, fl__accel_simd (src/accel/accel.h): 2 AVX-512, 1 AVX2, 0 neither. */

/* Codes of y[0..n) in e's format (e->fast: the plain layout) in context
 * c, element i with stochastic-rounding index c->sr_index + i: q[i] and
 * ov[i] (1 where the conversion raises overflow) exactly as fl_from_float
 * gives them, through the bulk rounding (accel/scale_bulk.c). */
void fl__sc_round_codes(const fl__sc_elem *e, const float *y, size_t n,
                        const fl_ctx *c, uint8_t *q, uint8_t *ov);

/* Statistics of one block (or tensor) from inputs and dequantized values;
 * nan_scale: the block's scale is NaN.  Adds to st, fills bs if not NULL
 * (nsub and nsat come from the quantizer). */
void fl__sc_stats_block(fl_scale_stats *st, fl_scale_block_stats *bs,
                        const float *x, const float *deq, size_t k,
                        int nan_scale, uint32_t nsub, uint32_t nsat);

#endif /* FPLAB_SCALE_INTERNAL_H */
