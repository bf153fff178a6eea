/*
 * scale_bulk.c — element codes of a whole array through the core's bulk
 * rounding, for the quantizers whose elements are a binary32 step away
 * from their input (NVFP4's x * enc_b, the per-tensor x * scale, MX with
 * stochastic rounding: x * 2^-s).
 *
 * fl__sc_round_codes gives, for every y[i], exactly what
 *     fl_from_float(e->f, y[i], c with sr_index + i, &flags)
 * gives: the code and whether it raised overflow.  The route:
 *   1. fl_round_float_array rounds the array (SIMD kernels; every mode,
 *      stochastic rounding included, element i with index sr_index + i;
 *      each value is fl_to_float of the scalar code, the flags the OR of
 *      the scalar flags);
 *   2. the code is read off the rounded value, which the element format
 *      holds exactly: sign | biased exponent | fraction for a value in the
 *      normal range, value / 2^qexp for a subnormal one, the sign bit
 *      alone for a zero; then checked against the code's own value (the
 *      table of fl__sc_elem): a value this reading does not give back,
 *      and every non-finite value, goes to fl_from_float;
 *   3. when the OR of the flags holds overflow, the elements that can
 *      carry it -- those at the largest magnitude (a saturating context
 *      rounds an overflow there) -- are converted again by fl_from_float
 *      for their own flags.  Without overflow in the OR, no element
 *      raised it.
 * Only formats with the plain layout (fl__sc_elem.fast: sign, exponent,
 * fraction, subnormals, a negative zero that is a zero) come here.
 *
 * The callers keep the element-by-element route as their force_generic
 * path; tests/test_scale.c proves the two equal.
 */
#include <math.h>
#include <string.h>

#include "scale_internal.h"

#define PIECE 4096   /* values per bulk call: y, values and codes in L1/L2 */

typedef struct {
    uint32_t v32[256];   /* binary32 bits of each magnitude code's value;
                            0xFFFFFFFF (never a value) above maxmag */
    uint32_t maxmag, sbit, mtop;   /* mtop: maxmag, or 0x100 (never a
                                      code) when no element overflowed */
    int32_t m, bias, emin;
    float qinv;          /* 2^-qexp */
} sc_enc;

/* Codes read off the rounded values r[0..k); redo[i] = 1 where the core
 * must convert element i itself.  Returns the OR of redo. */
static inline __attribute__((always_inline)) unsigned
encode(const sc_enc *restrict K, const float *restrict r, size_t k,
       uint8_t *restrict q, uint8_t *restrict redo)
{
    /* locals: the byte stores must not make the compiler reload them */
    const uint32_t *restrict v32 = K->v32;
    const uint32_t maxmag = K->maxmag, sbit = K->sbit, mtop = K->mtop;
    const uint32_t bias = (uint32_t)K->bias;
    const int32_t m = K->m, emin = K->emin;
    const float qinv = K->qinv;
    unsigned any = 0;
    for (size_t i = 0; i < k; i++) {
        /* branch-free (every choice a mask): the loop vectorizes */
        uint32_t u;
        memcpy(&u, &r[i], 4);
        const uint32_t a = u & 0x7FFFFFFFu, E = a >> 23;
        /* normal range of the element: its exponent field and the top m
         * fraction bits; below it: the multiple of 2^qexp (exact) */
        const uint32_t mn = ((E - 127u + bias) << m) |
                            ((a & 0x7FFFFFu) >> (23 - m));
        const float t = fl__u2f(a) * qinv;
        const int32_t ti = (int32_t)(t < 256.0f ? t : 255.0f);   /* NaN: 255 */
        const uint32_t isn = 0u - (uint32_t)((int32_t)E - 127 >= emin);
        uint32_t mag = (isn & mn) | (~isn & (uint32_t)ti);
        mag &= 0u - (uint32_t)(a != 0);
        /* a non-finite value, or one this reading does not give back */
        const uint32_t bad = 0u - (uint32_t)(a >= 0x7F800000u || mag > maxmag);
        mag = (mag & ~bad) | (0xFFu & bad);
        /* with overflow in the OR of the flags, each element at the
         * largest magnitude is asked for its own */
        const unsigned rd = (v32[mag & 0xFFu] != a) | (mag == mtop);
        redo[i] = (uint8_t)rd;
        any |= rd;
        q[i] = (uint8_t)(mag | ((u >> 31) ? sbit : 0));
    }
    return any;
}

/* The loop compiled for AVX2 and AVX-512 besides the baseline, picked at
 * run time (as scale_mx.c). */
static unsigned encode_plain(const sc_enc *K, const float *r, size_t k, uint8_t *q,
                             uint8_t *redo)
{
    return encode(K, r, k, q, redo);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static unsigned encode_avx2(const sc_enc *K, const float *r, size_t k, uint8_t *q,
                            uint8_t *redo)
{
    return encode(K, r, k, q, redo);
}
#ifdef FPLAB_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
static unsigned encode_avx512(const sc_enc *K, const float *r, size_t k, uint8_t *q,
                              uint8_t *redo)
{
    return encode(K, r, k, q, redo);
}
#endif
#endif

typedef unsigned (*encode_fn)(const sc_enc *, const float *, size_t, uint8_t *,
                              uint8_t *);

/* The kernels by vector set (fl__accel_simd): the dispatch table. */
static const encode_fn encode_by_set[3] = {
    encode_plain,
#if defined(__x86_64__) && defined(__GNUC__)
    encode_avx2,
#ifdef FPLAB_AVX512
    encode_avx512,
#else
    encode_avx2,
#endif
#else
    encode_plain, encode_plain,
#endif
};

void fl__sc_round_codes(const fl__sc_elem *e, const float *y, size_t n,
                        const fl_ctx *c, uint8_t *q, uint8_t *ov)
{
    const encode_fn fn = encode_by_set[fl__accel_simd()];
    float r[PIECE];
    sc_enc K;
    const fl_format *f = e->f;
    K.maxmag = e->maxmag;
    K.sbit = 1u << (e->width - 1);
    K.m = e->m;
    K.bias = e->bias;
    K.emin = e->emin;
    K.qinv = ldexpf(1.0f, -e->qexp);   /* qexp >= -100 for a plain layout */
    for (uint32_t k = 0; k < 256; k++)
        K.v32[k] = k <= K.maxmag ? fl__f2u((float)e->val[k]) : 0xFFFFFFFFu;
    for (size_t p = 0; p < n; p += PIECE) {
        const size_t k = n - p < PIECE ? n - p : PIECE;
        fl_ctx ci = *c;
        unsigned orfl = 0;
        ci.sr_index = c->sr_index + (uint64_t)p;
        fl_round_float_array(f, r, y + p, k, &ci, &orfl);
        K.mtop = (orfl & FL_OVERFLOW) ? K.maxmag : 0x100u;
        if (!fn(&K, r, k, q + p, ov + p))
            continue;
        for (size_t i = 0; i < k; i++) {
            if (!ov[p + i])
                continue;
            unsigned fl = 0;
            ci.sr_index = c->sr_index + (uint64_t)(p + i);
            q[p + i] = (uint8_t)fl_from_float(f, y[p + i], &ci, &fl);
            ov[p + i] = (fl & FL_OVERFLOW) != 0;
        }
    }
}
