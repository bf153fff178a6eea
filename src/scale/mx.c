/*
 * mx.c — OCP Microscaling (MX) v1.0 quantization: the shared-scale rules,
 * the general per-block route through the core, and the driver that runs
 * the fast kernels (accel/scale_mx.c) where they apply.
 *
 * OCP MX v1.0 §6.3, for a block V of k = 32 values (§5.2 Table 1):
 *   X   = the largest power of two <= max_i |V_i|, divided by the largest
 *         power of two of the element type (2^emax_elem);
 *         i.e. shared_exp = floor(log2 max|V_i|) - emax_elem (emax_elem:
 *         E4M3 8, E5M2 15, E2M3 2, E3M2 4, E2M1 2; INT8 0);
 *   P_i = V_i / X quantized to the element type (roundTiesToEven at
 *         least); normal values beyond the largest normal are clamped to
 *         it, keeping the sign.
 * The shared exponent is an E8M0 code (§5.4.1): bias 127, exponents
 * -127..127, 0xFF NaN, no zero; it is clamped at -127 (a block of zeros,
 * or one whose amax is below 2^(emax_elem - 127), gets 2^-127, as in
 * Microsoft's microxcaling and torchao).  §6.3 only defines finite blocks:
 * a block holding an Inf or NaN gets the NaN scale 0xFF, as microxcaling
 * (a shared exponent above the E8M0 range becomes NaN, log2(Inf) included)
 * and torchao (scale 0xFF for a non-finite amax) do; its dequantized values
 * are all NaN and its element codes are written as 0 (the NaN scale alone
 * carries the block's meaning).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale_internal.h"

unsigned fl__mx_scale_code(const fl__sc_elem *e, int rule, uint32_t a)
{
    int32_t s;
    if (a >= 0x7F800000u)
        return FL__E8M0_NAN;
    if (a == 0)
        return 0;   /* every rule: a block of zeros gets 2^-127 */
    /* amax = sig * 2^(e2 - 23) with sig in [2^23, 2^24): a subnormal amax
     * is normalized, so e2 = floor(log2 amax) exactly (torchao reads the
     * exponent field, -127 for every subnormal; after the clamp at -127
     * the two agree for every element type with emax_elem >= 1) */
    int32_t e2 = (int32_t)(a >> 23) - 127;
    uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    if ((a >> 23) == 0) {
        const int lz = __builtin_clz(a) - 8;   /* a < 2^23: lz >= 1 */
        sig = a << lz;
        e2 = -126 - lz;
    }
    switch (rule) {
    case FL_MX_CEIL:
        /* ceil(log2 amax): one more unless amax is a power of two
         * (torchao CEIL: the exponent, plus one for a nonzero fraction) */
        s = e2 + (sig != 0x800000u) - e->emax;
        break;
    case FL_MX_EVEN:
        /* torchao EVEN: amax rounded to the element's m fraction bits, ties
         * away (add half an element ulp, keep the exponent): a carry moves
         * it up one binade */
        s = e2 + (int32_t)((sig + (1u << (22 - e->m))) >> 24) - e->emax;
        break;
    case FL_MX_RCEIL: {
        /* binary32(amax * binary32(1/max)), then E8M0 rounded up (TE's
         * float_to_e8m0 without the hardware instruction): a normal value
         * moves up one when its fraction is nonzero, except at 0xFE
         * (saturating); a subnormal one becomes 2^-126 only above 2^-127
         * (fraction > 0x400000); zero gives 0x00 */
        const uint32_t d = fl__f2u(fl__f32_mul(fl__u2f(a), e->rcp));
        const uint32_t dE = d >> 23, dM = d & 0x7FFFFFu;
        if (d >= 0x7F800000u)
            return FL__E8M0_NAN;
        if (d == 0)
            return 0;
        return dE + (dE ? (dM != 0 && dE != 0xFE) : (dM > 0x400000u));
    }
    default: /* FL_MX_FLOOR: OCP MX v1.0 section 6.3 */
        s = e2 - e->emax;
        break;
    }
    if (s < -127)
        s = -127;
    if (s > 127)
        return FL__E8M0_NAN;
    return (unsigned)(s + 127);
}

int fl__mx_rceil_int(uint32_t a, float rcp)
{
    const uint32_t rb = fl__f2u(rcp);
    const int32_t Ea = (int32_t)(a >> 23), Er = (int32_t)(rb >> 23);
    if (Ea == 0 || Er == 0 || Ea >= 255)
        return -1;
    const uint64_t P = (uint64_t)((a & 0x7FFFFFu) | 0x800000u) *
                       (uint64_t)((rb & 0x7FFFFFu) | 0x800000u);
    /* P in [2^46, 2^48): value = P * 2^(Ea + Er - 254 - 46) */
    const int norm = (int)(P >> 47);
    int32_t Ed = Ea + Er - 127 + norm;
    const int sh = 23 + norm;
    uint64_t q = P >> sh;
    const uint64_t rem = P & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
    q += rem > half || (rem == half && (q & 1));
    if (q >> 24) {
        q >>= 1;
        Ed++;
    }
    if (Ed <= 0 || Ed >= 255)
        return -1;
    return Ed + ((q & 0x7FFFFFu) != 0 && Ed != 0xFE);
}

/* The E8M0 code of a block's scale, 0xFF when it holds a NaN. */
static unsigned block_code(const fl__sc_elem *e, int rule, const float *xb, size_t k)
{
    int nan;
    const uint32_t amax = fl__sc_amax(xb, k, &nan);
    return nan ? FL__E8M0_NAN : fl__mx_scale_code(e, rule, amax);
}

void fl__mx_block_generic(const fl__sc_elem *e, const fl_scale_scheme *s,
                          const float *x, size_t k, uint64_t base,
                          unsigned sc, uint8_t *codes, float *deq,
                          uint32_t *nsub, uint32_t *nsat)
{
    const int sh = (int)sc - 127;
    fl_ctx c = fl__sc_ctx(s);
    uint32_t sub = 0, sat = 0;
    c.saturate = 1;   /* §6.3: normal values beyond the largest clamp */
    for (size_t i = 0; i < k; i++) {
        unsigned fl = 0;
        double val;
        uint8_t code;
        fl__sc_at(&c, s, base + i);
        if (!e->f) {
            /* MXINT8: k = V/X * 2^6 rounded to an integer, |k| <= 127;
             * V/X * 2^6 is exact in binary64 (a binary32 times a power of
             * two within binary64's range) */
            const double y = ldexp((double)x[i], 6 - sh);
            uint64_t yb, rb;
            double r;
            memcpy(&yb, &y, 8);
            rb = fl_rint(&fl_binary64, yb, 0, &c, &fl);
            memcpy(&r, &rb, 8);
            if (r > 127.0 || r < -127.0) {
                r = r > 0 ? 127.0 : -127.0;
                sat++;
            }
            const int ki = (int)r;
            code = (uint8_t)(int8_t)ki;
            val = ldexp((double)ki, sh - 6);
        } else {
            /* P_i = V_i / X, exact in binary64, rounded once into the
             * element format, saturating */
            const uint64_t b = fl_from_double(e->f, ldexp((double)x[i], -sh), &c, &fl);
            if (fl & FL_OVERFLOW)
                sat++;
            sub += e->sub[b & 0xFF];
            code = (uint8_t)b;
            val = ldexp(e->val[b & 0xFF], sh);
        }
        if (codes)
            codes[i] = code;
        /* X * P_i is exact in binary64; one rounding to binary32 */
        deq[i] = fl__f32_of(val);
    }
    *nsub = sub;
    *nsat = sat;
}

/* Stochastic rounding through the bulk rounding (accel/scale_bulk.c), a chunk of
 * blocks at a time.  P_i = V_i * 2^-s is exact in binary32 where it is
 * zero or at least 2^-126 (V_i / X is below 2^(emax_elem + 1) under every
 * rule: no overflow); the few elements below that are rounded by the core
 * from their exact binary64 value, as the general route does (for
 * exactness by construction: they lie so far below half an element step
 * that no random draw rounds them up, rounded in binary32 or not).  Element i
 * of the chunk has stochastic-rounding index base + i there as here.
 * Blocks with a NaN scale are left to the general route (done = 0). */
static int mx_bulk(const fl__sc_elem *e, const fl_scale_scheme *s, const float *x,
                   size_t nb, uint64_t base, uint8_t *codes, uint8_t *scales,
                   float *deq, uint32_t *nsub, uint32_t *nsat, uint8_t *done)
{
    const size_t k = s->block, n = nb * k;
    float *y = malloc(n * sizeof *y);
    uint8_t *q = malloc(n), *ov = malloc(n), *tiny = malloc(n);
    int32_t *sh = malloc(nb * sizeof *sh);
    if (!y || !q || !ov || !tiny || !sh) {
        free(y), free(q), free(ov), free(tiny), free(sh);
        return 0;   /* the general route then */
    }
    fl_ctx c = fl_ctx_make(s->rm);
    c.saturate = 1;
    c.sr_seed = s->seed;
    for (size_t j = 0; j < nb; j++) {
        const float *xb = x + j * k;
        const unsigned code = block_code(e, s->rule, xb, k);
        done[j] = code != FL__E8M0_NAN;
        sh[j] = (int32_t)code - 127;
        if (scales)
            scales[j] = (uint8_t)code;
        /* 2^-s in binary32 (2^-127 a subnormal, exact) */
        const float p = done[j] ? ldexpf(1.0f, -sh[j]) : 0.0f;
        for (size_t i = 0; i < k; i++) {
            const float v = xb[i] * p;
            const uint32_t a = fl__f2u(v) & 0x7FFFFFFFu;
            tiny[j * k + i] = (uint8_t)(done[j] && a != 0 && a < 0x00800000u);
            y[j * k + i] = v;
        }
    }
    c.sr_index = base;
    fl__sc_round_codes(e, y, n, &c, q, ov);
    for (size_t j = 0; j < nb; j++) {
        if (!done[j])
            continue;
        uint32_t sub = 0, sat = 0;
        const double p2 = ldexp(1.0, sh[j]);
        for (size_t i = 0; i < k; i++) {
            const size_t t = j * k + i;
            if (tiny[t]) {
                unsigned fl = 0;
                c.sr_index = base + t;
                q[t] = (uint8_t)fl_from_double(e->f, ldexp((double)x[t], -sh[j]), &c, &fl);
                ov[t] = (fl & FL_OVERFLOW) != 0;
            }
            sat += ov[t];
            sub += e->sub[q[t]];
            /* X * P_i exact in binary64; one rounding to binary32 (the
             * host's, in its default state as fast.h assumes) */
            if (deq)
                deq[t] = (float)(e->val[q[t]] * p2);
        }
        if (codes)
            memcpy(codes + j * k, q + j * k, k);
        nsub[j] = sub;
        nsat[j] = sat;
    }
    free(y), free(q), free(ov), free(tiny), free(sh);
    return 1;
}

#define CHUNK 1024   /* blocks per pass: inputs, codes and dequant in cache */

int fl__scale_quantize_mx(const fl_scale_scheme *s, const float *x, size_t n,
                          fl_scale_out *o, char *err, size_t errlen);
int fl__scale_quantize_mx(const fl_scale_scheme *s, const float *x, size_t n,
                          fl_scale_out *o, char *err, size_t errlen)
{
    fl__sc_elem e;
    if (fl__sc_elem_init(&e, s, err, errlen))
        return -1;
    const size_t k = s->block, nb = n / k;
    const int stats = !o->skip_stats;
    const int fast_ok = !s->force_generic && e.fast && k == 32 &&
                        (s->rm == FL_RNE || s->rm == FL_RNA || s->rm == FL_RTZ);
    /* modes the integer kernel lacks (stochastic rounding) */
    const int bulk_ok = !s->force_generic && !fast_ok && e.fast && e.f &&
                        s->rm != FL_RSB;   /* supplied bits: per element */
    const size_t ch = nb < CHUNK ? (nb ? nb : 1) : CHUNK;
    uint32_t *nsub = malloc(ch * sizeof *nsub), *nsat = malloc(ch * sizeof *nsat);
    uint8_t *done = malloc(ch);
    float *tmp = (stats && !o->dequant) ? malloc(ch * k * sizeof *tmp) : NULL;
    float *one = malloc(k * sizeof *one);
    if (!nsub || !nsat || !done || !one || (stats && !o->dequant && !tmp)) {
        free(nsub), free(nsat), free(done), free(tmp), free(one);
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    const float qnan = fl__u2f(0x7FC00000u);
    for (size_t b0 = 0; b0 < nb; b0 += ch) {
        const size_t nbc = nb - b0 < ch ? nb - b0 : ch;
        const float *xc = x + b0 * k;
        uint8_t *cc = o->codes ? o->codes + b0 * k : NULL;
        uint8_t *sc = o->scales ? o->scales + b0 : NULL;
        float *dc = o->dequant ? o->dequant + b0 * k : tmp;
        int fast = 0;
        if (fast_ok)
            fast = fl__mx_fast(&e, s, xc, nbc, cc, sc, dc, nsub, nsat, done);
        else if (bulk_ok)
            fast = mx_bulk(&e, s, xc, nbc, (uint64_t)(b0 * k), cc, sc, dc, nsub, nsat,
                           done);
        for (size_t j = 0; j < nbc; j++) {
            const float *xb = xc + j * k;
            unsigned code;
            if (fast && done[j]) {
                code = sc ? sc[j] : 0;   /* only read below when stats */
            } else {
                code = block_code(&e, s->rule, xb, k);
                if (sc)
                    sc[j] = (uint8_t)code;
                float *d = dc ? dc + j * k : one;
                if (code == FL__E8M0_NAN) {
                    if (cc)
                        memset(cc + j * k, 0, k);
                    for (size_t i = 0; i < k; i++)
                        d[i] = qnan;
                    nsub[j] = nsat[j] = 0;
                } else {
                    fl__mx_block_generic(&e, s, xb, k, (uint64_t)((b0 + j) * k), code,
                                         cc ? cc + j * k : NULL, d, &nsub[j], &nsat[j]);
                }
            }
            if (stats) {
                /* the fast path leaves a NaN block to the general route, so
                 * a block it did has a finite scale */
                const int nan_scale = !(fast && done[j]) && code == FL__E8M0_NAN;
                fl__sc_stats_block(&o->stats, o->blocks ? &o->blocks[b0 + j] : NULL,
                                   xb, dc + j * k, k, nan_scale, nsub[j], nsat[j]);
            }
        }
    }
    free(nsub), free(nsat), free(done), free(tmp), free(one);
    return 0;
}
