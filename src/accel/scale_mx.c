/*
 * scale_mx.c — MX quantization of whole 32-element blocks in integer
 * arithmetic, written for the compiler to vectorize (AVX2 and AVX-512
 * clones chosen at run time; a plain one elsewhere).
 *
 * Exactness.  Every step is an integer operation on the binary32 bits or
 * an integer-to-binary32 conversion of a value below 2^24 (exact in every
 * rounding mode), so nothing depends on the host's floating-point state.
 * For an element V = sig * 2^(e - 23) (sig < 2^24 with its leading bit at
 * 23, binary32 subnormals normalized through the exact conversion of their
 * fraction) and shared exponent s, the scaled value V / 2^s has exponent
 * eu = e - s, and
 *   - in the element's normal range (eu >= emin) its code is
 *       ((eu + bias) << 23 | fraction) >> (23 - m), rounded:
 *     the exponent field sits above the fraction, so a carry out of the
 *     fraction moves to the next binade, as in any IEEE-style encoding;
 *   - below it, the code is sig >> (23 + qexp - eu), rounded, qexp = emin
 *     - m being the exponent of the smallest step (for MXINT8 every value
 *     is in this range with qexp = -6); a result 2^m is the smallest normal.
 * Rounding a right shift by sh: add half - 1 + lsb (ties to even), half
 * (ties away) or 0 (toward zero) and shift: one carry decides.  A shift
 * above 25 is capped at 25: sig < 2^24 is below half a step there, so the
 * result is 0 in all three modes either way.  A rounded magnitude above
 * the largest finite one saturates to it and counts (the core raises
 * overflow for exactly those: a FN-style NaN pattern, an IEEE infinity, or
 * beyond a finite-only format's last code).
 *
 * Dequantization builds X * P in binary32 directly when every nonzero
 * element times X is a normal binary32 (s + qexp >= -126 and s + emax <=
 * 127); other blocks, blocks holding Inf or NaN and the RCEIL cases the
 * integer rule leaves open go to the general route (done[b] = 0).
 *
 * tests/test_scale.c proves this equal to the general route: every
 * magnitude pattern against every shared exponent a block can have, and
 * random blocks with specials, for every element format and mode here.
 */
#include <string.h>

#include "scale_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define FL__MX_X86 1
#endif

typedef struct {
    int32_t m, bias, emin, qexp, emax, width, isint, rule;
    uint32_t maxmag, fmask, normmin, submax;
    uint32_t zsign;           /* 1: a zero keeps its sign (not int8) */
    uint32_t c1, c2, c3;      /* rounding: add (half - c1 + (lsb & c2)) & c3 */
    float rcp;
    const fl__sc_elem *e;
} fl__mxk;

#define AINL static inline __attribute__((always_inline))

AINL void block32(const fl__mxk *K, const uint32_t *xb, int32_t s,
                  uint8_t *codes, uint32_t *dq, uint32_t *nsub, uint32_t *nsat)
{
    uint32_t mag[32];
    uint32_t cs = 0, ct = 0;
    for (int i = 0; i < 32; i++) {
        /* branch-free: every choice is a mask, so the loop vectorizes */
        const uint32_t u = xb[i] & 0x7FFFFFFFu;
        const int32_t E = (int32_t)(u >> 23);
        const uint32_t F = u & 0x7FFFFFu;
        const float fF = (float)(int32_t)F;          /* exact: F < 2^23 */
        uint32_t bF;
        memcpy(&bF, &fF, 4);
        const uint32_t isn = 0u - (uint32_t)(E != 0);            /* normal input */
        const int32_t Ee = (int32_t)((isn & (uint32_t)E) |
                                     (~isn & (uint32_t)((int32_t)(bF >> 23) - 149)));
        const uint32_t fr = (isn & F) | (~isn & (bF & 0x7FFFFFu));
        const int32_t eu = Ee - 127 - s;
        const uint32_t nm = 0u - (uint32_t)(eu >= K->emin);    /* normal result */
        const uint32_t t = (nm & (((uint32_t)(eu + K->bias) << 23) | fr)) |
                           (~nm & (fr | 0x800000u));
        int32_t sh = (int32_t)((nm & (uint32_t)(23 - K->m)) |
                               (~nm & (uint32_t)(23 + K->qexp - eu)));
        /* sh >= 1: eu <= emax + 1 in a block scaled from its own amax */
        sh = sh < 25 ? sh : 25;
        sh = sh > 1 ? sh : 1;
        const uint32_t half = 1u << (sh - 1);
        const uint32_t lsb = (t >> sh) & 1u;
        const uint32_t add = (half - K->c1 + (lsb & K->c2)) & K->c3;
        uint32_t r = ((t + add) >> sh) & (0u - (uint32_t)(u != 0));
        ct += r > K->maxmag;
        r = r < K->maxmag ? r : K->maxmag;
        cs += (r != 0) & (r < K->submax);
        mag[i] = r;
    }
    if (codes) {
        for (int i = 0; i < 32; i++) {
            const uint32_t sg = xb[i] >> 31, r = mag[i];
            const uint32_t ci = K->isint ? ((sg ? 0u - r : r) & 0xFFu)
                                         : (r | (sg << (K->width - 1)));
            codes[i] = (uint8_t)ci;
        }
    }
    if (dq) {
        for (int i = 0; i < 32; i++) {
            const uint32_t r = mag[i], sg = xb[i] >> 31;
            const uint32_t nb = ((uint32_t)((int32_t)(r >> K->m) - K->bias + s + 127) << 23) |
                                ((r & K->fmask) << (23 - K->m));
            const float fr = (float)(int32_t)r;      /* exact: r < 2^8 */
            uint32_t sb;
            memcpy(&sb, &fr, 4);
            sb += (uint32_t)(K->qexp + s) << 23;
            const uint32_t isn = 0u - (uint32_t)(r >= K->normmin);
            const uint32_t nz = 0u - (uint32_t)(r != 0);
            const uint32_t b = ((isn & nb) | (~isn & sb)) & nz;
            /* int8 has no negative zero */
            const uint32_t ds = sg & (nz | K->zsign);
            dq[i] = b | (ds << 31);
        }
    }
    *nsub = cs;
    *nsat = ct;
}

AINL int body(const fl__mxk *K, const float *x, size_t nblocks, uint8_t *codes,
              uint8_t *scales, float *deq, uint32_t *nsub, uint32_t *nsat,
              uint8_t *done)
{
    for (size_t b = 0; b < nblocks; b++) {
        uint32_t u[32], amax = 0;
        memcpy(u, x + 32 * b, sizeof u);
        for (int i = 0; i < 32; i++) {
            const uint32_t a = u[i] & 0x7FFFFFFFu;
            amax = a > amax ? a : amax;
        }
        done[b] = 0;
        if (amax >= 0x7F800000u)
            continue;                      /* Inf or NaN: NaN scale */
        int code;
        if (K->rule == FL_MX_RCEIL)
            code = fl__mx_rceil_int(amax, K->rcp);
        else
            code = (int)fl__mx_scale_code(K->e, K->rule, amax);
        if (code < 0 || code == (int)FL__E8M0_NAN)
            continue;
        const int32_t s = code - 127;
        if (deq && !(s + K->qexp >= -126 && s + K->emax <= 127))
            continue;
        uint32_t dq[32];
        block32(K, u, s, codes ? codes + 32 * b : NULL, deq ? dq : NULL,
                &nsub[b], &nsat[b]);
        if (deq)
            memcpy(deq + 32 * b, dq, sizeof dq);
        if (scales)
            scales[b] = (uint8_t)code;
        done[b] = 1;
    }
    return 1;
}

static int body_plain(const fl__mxk *K, const float *x, size_t nb, uint8_t *c,
                      uint8_t *sc, float *d, uint32_t *ns, uint32_t *nt, uint8_t *dn)
{
    return body(K, x, nb, c, sc, d, ns, nt, dn);
}

#ifdef FL__MX_X86
__attribute__((target("avx2")))
static int body_avx2(const fl__mxk *K, const float *x, size_t nb, uint8_t *c,
                     uint8_t *sc, float *d, uint32_t *ns, uint32_t *nt, uint8_t *dn)
{
    return body(K, x, nb, c, sc, d, ns, nt, dn);
}
#ifdef FPLAB_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
static int body_avx512(const fl__mxk *K, const float *x, size_t nb, uint8_t *c,
                       uint8_t *sc, float *d, uint32_t *ns, uint32_t *nt, uint8_t *dn)
{
    return body(K, x, nb, c, sc, d, ns, nt, dn);
}
#endif
#endif

typedef int (*body_fn)(const fl__mxk *, const float *, size_t, uint8_t *, uint8_t *,
                       float *, uint32_t *, uint32_t *, uint8_t *);

/* The kernels by vector set (fl__accel_simd): the dispatch table. */
static const body_fn body_by_set[3] = {
    body_plain,
#ifdef FL__MX_X86
    body_avx2,
#ifdef FPLAB_AVX512
    body_avx512,
#else
    body_avx2,
#endif
#else
    body_plain, body_plain,
#endif
};

int fl__mx_fast(const fl__sc_elem *e, const fl_scale_scheme *s,
                const float *x, size_t nblocks, uint8_t *codes,
                uint8_t *scales, float *deq, uint32_t *nsub,
                uint32_t *nsat, uint8_t *done)
{
    if (!e->fast || s->block != 32)
        return 0;
    const body_fn fn = body_by_set[fl__accel_simd()];
    fl__mxk K;
    K.m = e->m;
    K.bias = e->bias;
    K.emin = e->emin;
    K.qexp = e->qexp;
    K.emax = e->emax;
    K.width = e->width;
    K.isint = e->f == NULL;
    K.rule = s->rule;
    K.maxmag = e->maxmag;
    K.fmask = (1u << e->m) - 1;
    K.normmin = K.isint ? 0xFFFFFFFFu : 1u << e->m;
    K.submax = K.isint ? 0 : 1u << e->m;
    K.zsign = K.isint ? 0 : 1;
    K.rcp = e->rcp;
    K.e = e;
    switch (s->rm) {
    case FL_RNE:
        K.c1 = 1, K.c2 = 1, K.c3 = 0xFFFFFFFFu;
        break;
    case FL_RNA:
        K.c1 = 0, K.c2 = 0, K.c3 = 0xFFFFFFFFu;
        break;
    case FL_RTZ:
        K.c1 = 0, K.c2 = 0, K.c3 = 0;
        break;
    default:
        return 0;
    }
    return fn(&K, x, nblocks, codes, scales, deq, nsub, nsat, done);
}
