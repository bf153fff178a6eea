/*
 * nvfp4.c — NVIDIA NVFP4: E2M1 elements in blocks of 16, an E4M3 scale per
 * block and an FP32 scale per tensor.
 *
 * Every step is the binary32 arithmetic of Transformer Engine's NVFP4
 * quantizer, in its order (common/cast/nvfp4/core_nvfp4.cuh, and the
 * Python reference pytorch/custom_recipes/quantization_nvfp4.py that the
 * kernels match byte for byte; arXiv:2509.25149 Appendix B gives the same
 * two-level formulas):
 *   A     = amax over the tensor;
 *   S_enc = 448 * 6 / A  (binary32 2688 / A); an infinite result becomes
 *           FLT_MAX, and A = 0 or S_enc = 0 (A = Inf) give 1
 *           (compute_global_encode_scaling_factor_FP4);
 *   S_dec = 1 / S_enc;
 *   per block b of 16: a_b = amax of the block;
 *           d_b = a_b * (S_enc * binary32(1/6)), at most FLT_MAX, clamped
 *           to 448, rounded to E4M3 (nearest even): the block scale;
 *           enc_b = 1 / (E4M3 value * S_dec), at most FLT_MAX;
 *   element: E2M1(x * enc_b), nearest even (or the scheme's mode),
 *           saturating at 6 (TE clamps to +-6 first: the same codes).
 * Decoding (the block-scaled GEMM's view): x' = P * scale_b * S_dec,
 * rounded once to binary32.  (TE's standalone dequantize kernel computes
 * P * binary32(binary32(scale_b * A) * binary32(1/2688)) instead; the two
 * can differ in the last bit.)
 *
 * Non-finite values.  The tensor amax ignores NaN (as a CUDA fmaxf
 * reduction does); an Inf makes A infinite, so S_enc = 1 and the Inf
 * saturates to the block scale's 448 * 6.  A block holding a NaN gets the
 * E4M3 NaN 0x7F as its scale, element codes 0 and NaN dequantized values,
 * as TE's reference does (torch.amax propagates the NaN; E2M1 has no NaN).
 * A block whose scale rounds to 0 (its amax below 2^-10 of the scale
 * range) dequantizes to zeros: its elements count as underflow, never as
 * saturated.  TE's reference writes code 0 for an exact -0.0; here the
 * sign of zero is kept (code 0x8), as the core's conversion does.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale_internal.h"

const fl_format *fl__sc_e4m3(void);

/* The element-by-element route: every binary32 step through the core. */
static void nvfp4_generic(const fl_scale_scheme *s, const fl__sc_elem *ep,
                          const fl_format *e4, const float *x, size_t nb,
                          float mult, float sdec, fl_ctx *cp, const fl_ctx *rnep,
                          fl_scale_out *o, float *one)
{
    fl_ctx c = *cp;
    const fl_ctx rne = *rnep;
    const size_t k = s->block;
    const float qnan = fl__u2f(0x7FC00000u);
    for (size_t b = 0; b < nb; b++) {
        const float *xb = x + b * k;
        float *d = o->dequant ? o->dequant + b * k : one;
        uint8_t *cb = o->codes ? o->codes + b * k : NULL;
        uint32_t nsub = 0, nsat = 0;
        int nan;
        const uint32_t ab = fl__sc_amax(xb, k, &nan);
        uint8_t sc;
        if (nan) {
            sc = 0x7F;
            if (cb)
                memset(cb, 0, k);
            for (size_t i = 0; i < k; i++)
                d[i] = qnan;
        } else {
            unsigned fl = 0;
            float db = fl__f32_mul(fl__u2f(ab), mult);
            if (isinf(db))
                db = FLT_MAX;
            if (db > 448.0f)
                db = 448.0f;
            sc = (uint8_t)fl_from_float(e4, db, &rne, &fl);
            const float sv = fl_to_float(e4, sc);
            float enc = fl__f32_div(1.0f, fl__f32_mul(sv, sdec));
            if (isinf(enc))
                enc = FLT_MAX;
            for (size_t i = 0; i < k; i++) {
                unsigned ef = 0;
                const float y = fl__f32_mul(xb[i], enc);
                fl__sc_at(&c, s, (uint64_t)(b * k + i));
                const uint64_t q = fl_from_float(s->elem, y, &c, &ef);
                if (sc != 0 && isfinite(xb[i]) && ((ef & FL_OVERFLOW) || isinf(y)))
                    nsat++;
                nsub += ep->sub[q & 0xFF];
                if (cb)
                    cb[i] = (uint8_t)q;
                /* P * scale_b is exact in binary64 (2 + 4 significant
                 * bits), and so is its product with S_dec (24 more): one
                 * rounding to binary32 */
                d[i] = fl__f32_of(ep->val[q & 0xFF] * (double)sv * (double)sdec);
            }
        }
        if (o->scales)
            o->scales[b] = sc;
        if (!o->skip_stats)
            fl__sc_stats_block(&o->stats, o->blocks ? &o->blocks[b] : NULL, xb, d, k,
                               nan, nsub, nsat);
    }
}

/* The bulk route (accel/scale_bulk.c): the binary32 steps in the host's binary32
 * (nearest even, no FTZ/DAZ: the state fast.h assumes; one correctly
 * rounded operation each, so the same values as the core's), the E4M3
 * scales and the E2M1 elements of 256 blocks at a time through
 * fl__sc_round_codes. */
static int nvfp4_bulk(const fl_scale_scheme *s, const fl__sc_elem *ep,
                      const fl_format *e4, const float *x, size_t nb, float mult,
                      float sdec, const fl_ctx *c, const fl_ctx *rne,
                      fl_scale_out *o, char *err, size_t errlen)
{
    enum { CH = 256, K = 16 };
    fl__sc_elem e4e;
    fl_scale_scheme t;
    memset(&t, 0, sizeof t);
    t.elem = e4;
    if (s->block != K || fl__sc_elem_init(&e4e, &t, err, errlen) || !e4e.fast) {
        if (err && errlen)
            snprintf(err, errlen, "nvfp4: blocks of 16 with E4M3 scales expected");
        return -1;
    }
    const float qnan = fl__u2f(0x7FC00000u);
    float y[CH * K], one[CH * K], db[CH], sv[CH], enc[CH];
    uint8_t q[CH * K], ov[CH * K], sq[CH], sov[CH], nan[CH];
    for (size_t b0 = 0; b0 < nb; b0 += CH) {
        const size_t nbc = nb - b0 < CH ? nb - b0 : CH;
        const float *xc = x + b0 * K;
        for (size_t j = 0; j < nbc; j++) {
            int nn;
            const uint32_t ab = fl__sc_amax(xc + j * K, K, &nn);
            nan[j] = (uint8_t)nn;
            float d = nn ? 0.0f : fl__u2f(ab) * mult;
            d = isinf(d) ? FLT_MAX : d;
            db[j] = d > 448.0f ? 448.0f : d;
        }
        fl__sc_round_codes(&e4e, db, nbc, rne, sq, sov);
        for (size_t j = 0; j < nbc; j++) {
            sv[j] = (float)e4e.val[sq[j]];
            const float en = 1.0f / (sv[j] * sdec);
            enc[j] = isinf(en) ? FLT_MAX : en;
        }
        for (size_t j = 0; j < nbc; j++)
            for (size_t i = 0; i < K; i++)
                y[j * K + i] = nan[j] ? 0.0f : xc[j * K + i] * enc[j];
        fl_ctx ci = *c;
        ci.sr_index = (uint64_t)(b0 * K);
        fl__sc_round_codes(ep, y, nbc * K, &ci, q, ov);
        for (size_t j = 0; j < nbc; j++) {
            const size_t b = b0 + j;
            const float *xb = xc + j * K, *yb = y + j * K;
            float *d = o->dequant ? o->dequant + b * K : one + j * K;
            uint8_t *cb = o->codes ? o->codes + b * K : NULL;
            uint32_t nsub = 0, nsat = 0;
            const uint8_t sc = nan[j] ? 0x7F : sq[j];
            if (nan[j]) {
                if (cb)
                    memset(cb, 0, K);
                for (size_t i = 0; i < K; i++)
                    d[i] = qnan;
            } else {
                const uint8_t *qb = q + j * K, *ob = ov + j * K;
                /* P * scale_b * S_dec: exact in binary64, one rounding */
                const double f = (double)sv[j] * (double)sdec;
                for (size_t i = 0; i < K; i++) {
                    nsat += sc != 0 && isfinite(xb[i]) && (ob[i] || isinf(yb[i]));
                    nsub += ep->sub[qb[i]];
                    d[i] = (float)(ep->val[qb[i]] * f);
                }
                if (cb)
                    memcpy(cb, qb, K);
            }
            if (o->scales)
                o->scales[b] = sc;
            if (!o->skip_stats)
                fl__sc_stats_block(&o->stats, o->blocks ? &o->blocks[b] : NULL, xb, d, K,
                                   nan[j], nsub, nsat);
        }
    }
    return 0;
}

int fl__scale_quantize_nvfp4(const fl_scale_scheme *s, const float *x, size_t n,
                             fl_scale_out *o, char *err, size_t errlen);
int fl__scale_quantize_nvfp4(const fl_scale_scheme *s, const float *x, size_t n,
                             fl_scale_out *o, char *err, size_t errlen)
{
    fl__sc_elem e;
    const fl_format *e4 = fl__sc_e4m3();
    if (fl__sc_elem_init(&e, s, err, errlen))
        return -1;
    if (!e4 || !s->elem) {
        if (err && errlen)
            snprintf(err, errlen, "nvfp4: needs E2M1 elements and the E4M3 format");
        return -1;
    }
    const size_t k = s->block, nb = n / k;
    float *one = malloc(k * sizeof *one);
    if (!one) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* tensor amax, NaN ignored */
    uint32_t amax = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = fl__f2u(x[i]) & 0x7FFFFFFFu;
        if (u <= 0x7F800000u && u > amax)
            amax = u;
    }
    const float A = fl__u2f(amax);
    float senc = fl__f32_div(2688.0f, A);
    if (isinf(senc))
        senc = FLT_MAX;
    if (A == 0.0f || senc == 0.0f)
        senc = 1.0f;
    const float sdec = fl__f32_div(1.0f, senc);
    const float mult = fl__f32_mul(senc, fl__f32_div(1.0f, 6.0f));
    o->tensor.amax = A;
    o->tensor.scale = senc;
    o->tensor.scale_inv = sdec;

    fl_ctx c = fl__sc_ctx(s), rne = FL_CTX_INIT;
    c.saturate = 1;
    rne.saturate = 1;
    int rc = 0;
    if (!s->force_generic && e.fast && s->rm != FL_RSB)
        rc = nvfp4_bulk(s, &e, e4, x, nb, mult, sdec, &c, &rne, o, err, errlen);
    else
        nvfp4_generic(s, &e, e4, x, nb, mult, sdec, &c, &rne, o, one);
    free(one);
    return rc;
}

