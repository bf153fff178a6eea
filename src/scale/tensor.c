/*
 * tensor.c — Transformer Engine's FP8 per-tensor recipes.
 *
 * Current scaling (TE custom_recipes/quantization_current_scaling.py,
 * _scale_from_amax_tensor, in binary32):
 *   amax  = max(amax, eps);
 *   scale = fp8_max / amax; an infinite scale (amax 0 or tiny) becomes
 *           FLT_MAX;
 *   pow2:  scale = the largest power of two <= scale (frexp exponent - 1),
 *           and 0 when amax is infinite;
 *   amax == 0: scale = 1;
 *   scale_inv = 1 / scale;
 *   q = fp8(x * scale), deq = q * scale_inv.
 * fp8 casts saturate (TE's kernels convert with satfinite) unless the
 * scheme says nonsat (a PyTorch cast: E4M3 overflow becomes NaN, E5M2
 * overflow infinity).  amax ignores NaN here (a NaN element stays NaN in
 * its own code); TE's Python reference takes torch.amax, which propagates
 * it and makes every element NaN.  An infinite element makes amax infinite
 * and the scale 0 (as in TE): every element is then lost.
 *
 * Delayed scaling: see fplab/scale.h (TE common/recipe/delayed_scaling.cu).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale_internal.h"

/* amax over the finite and infinite values, NaN ignored */
static float amax_of(const float *x, size_t n)
{
    uint32_t a = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = fl__f2u(x[i]) & 0x7FFFFFFFu;
        if (u <= 0x7F800000u && u > a)
            a = u;
    }
    return fl__u2f(a);
}

/* Saturated elements of the bulk route: finite inputs whose conversion
 * raised overflow. */
static uint32_t count_sat(const float *restrict x, const uint8_t *restrict ov,
                          size_t m)
{
    uint32_t n = 0;
    for (size_t i = 0; i < m; i++)
        n += (uint32_t)((fl__f2u(x[i]) & 0x7FFFFFFFu) < 0x7F800000u) & ov[i];
    return n;
}

/* d[i] = dq[q[i]]; returns how many q[i] are nonzero subnormals. */
static uint32_t gather_codes(const uint8_t *restrict sub, const float *restrict dq,
                             const uint8_t *restrict q, float *restrict d, size_t m)
{
    uint32_t n = 0;
    for (size_t i = 0; i < m; i++) {
        n += sub[q[i]];
        d[i] = dq[q[i]];
    }
    return n;
}

int fl_scale_quantize_with_scale(const fl_scale_scheme *s, const float *x,
                                 size_t n, float scale, fl_scale_out *o,
                                 char *err, size_t errlen)
{
    if (!s || s->kind != FL_SCALE_TENSOR || !s->elem) {
        if (err && errlen)
            snprintf(err, errlen, "quantize with a given scale: needs a per-tensor "
                     "scheme");
        return -1;
    }
    if (fl__sc_check_input(s, x, n, err, errlen))
        return -1;
    const float sinv = fl__f32_div(1.0f, scale);
    fl_ctx c = fl__sc_ctx(s);
    uint32_t nsub = 0, nsat = 0;
    c.saturate = !s->nonsat;
    fl__sc_elem e;
    if (fl__sc_elem_init(&e, s, err, errlen))
        return -1;
    /* deq = binary32(q * scale_inv): one product per code, once */
    float dq[256];
    for (uint32_t k = 0; k < (1u << e.width); k++)
        dq[k] = fl__f32_mul((float)e.val[k], sinv);
    memset(&o->stats, 0, sizeof o->stats);
    o->tensor.scale = scale;
    o->tensor.scale_inv = sinv;
    o->tensor.amax = amax_of(x, n);
    const int bad = !(isfinite(scale) && scale > 0.0f && isfinite(sinv));
    /* in pieces, so that statistics without a dequant output need little
     * memory; each piece is one statistics "block" folded into the one
     * record of the tensor */
    enum { PIECE = 4096 };
    float tmp[PIECE], y[PIECE];
    uint8_t q[PIECE], ov[PIECE];
    /* the bulk route (accel/scale_bulk.c) for plain-layout elements; the element-by-
     * element one when asked (tests prove them equal) */
    const int bulk = e.fast && !s->force_generic && s->rm != FL_RSB;
    fl_scale_stats st;
    memset(&st, 0, sizeof st);
    for (size_t p = 0; p < n || (p == 0 && n == 0); p += PIECE) {
        const size_t m = n - p < PIECE ? n - p : PIECE;
        float *d = o->dequant ? o->dequant + p : tmp;
        uint32_t psub = 0, psat = 0;
        if (bulk) {
            /* x * scale in the host's binary32 (nearest even, no FTZ/DAZ,
             * as fast.h assumes: the core's value); a NaN product through
             * the core, for the core's NaN */
            const float *restrict xp = x + p;
            unsigned nan = 0;
            for (size_t i = 0; i < m; i++) {
                y[i] = xp[i] * scale;
                nan |= y[i] != y[i];
            }
            for (size_t i = 0; nan && i < m; i++)
                if (isnan(y[i]))
                    y[i] = fl__f32_mul(xp[i], scale);
            c.sr_index = (uint64_t)p;
            fl__sc_round_codes(&e, y, m, &c, q, ov);
            psat = count_sat(xp, ov, m);
            psub = gather_codes(e.sub, dq, q, d, m);
            if (o->codes)
                memcpy(o->codes + p, q, m);
        } else {
            for (size_t i = 0; i < m; i++) {
                unsigned fl = 0;
                fl__sc_at(&c, s, (uint64_t)(p + i));
                const float yi = fl__f32_mul(x[p + i], scale);
                const uint64_t qi = fl_from_float(s->elem, yi, &c, &fl);
                if (isfinite(x[p + i]) && (fl & FL_OVERFLOW))
                    psat++;
                psub += e.sub[qi & 0xFF];
                if (o->codes)
                    o->codes[p + i] = (uint8_t)qi;
                d[i] = dq[qi & 0xFF];
            }
        }
        nsub += psub;
        nsat += psat;
        if (!o->skip_stats)
            fl__sc_stats_block(&st, NULL, x + p, d, m, bad, psub, psat);
        if (n == 0)
            break;
    }
    if (!o->skip_stats) {
        st.blocks = 1;
        st.nan_blocks = bad;
        o->stats = st;
        if (o->blocks) {
            /* the one record of the tensor */
            fl_scale_block_stats *bs = o->blocks;
            bs->nonzero = (uint32_t)(st.nonzero > UINT32_MAX ? UINT32_MAX : st.nonzero);
            bs->underflow = (uint32_t)(st.underflow > UINT32_MAX ? UINT32_MAX : st.underflow);
            bs->subnormal = nsub;
            bs->saturated = nsat;
            bs->nonfinite = (uint32_t)(st.nan_in + st.inf_in > UINT32_MAX ? UINT32_MAX
                                       : st.nan_in + st.inf_in);
            bs->rel_max = (float)st.rel_max;
            bs->rel_mean = (float)fl_scale_stats_rel_mean(&st);
            bs->rel_rms = (float)fl_scale_stats_rel_rms(&st);
        }
    }
    return 0;
}

/* TE's current scaling: the scale from this tensor's own amax. */
float fl__scale_current(const fl_scale_scheme *s, float amax);
float fl__scale_current(const fl_scale_scheme *s, float amax)
{
    const float fp8_max = (float)fl_to_double(s->elem, s->elem->max_bits &
                                                           ~s->elem->sign_mask);
    if (amax < s->eps)
        amax = s->eps;
    float scale = fl__f32_div(fp8_max, amax);
    if (isinf(scale))
        scale = FLT_MAX;
    if (s->pow2) {
        if (scale > 0.0f) {
            /* frexp: scale = f * 2^ex, f in [0.5, 1); 2^(ex - 1) */
            const uint32_t u = fl__f2u(scale);
            scale = fl__u2f(u & 0x7F800000u);   /* scale is normal here */
        }
        if (isinf(amax))
            scale = 0.0f;
    }
    if (amax == 0.0f)
        scale = 1.0f;
    return scale;
}

int fl__scale_quantize_tensor(const fl_scale_scheme *s, const float *x, size_t n,
                              fl_scale_out *o, char *err, size_t errlen);
int fl__scale_quantize_tensor(const fl_scale_scheme *s, const float *x, size_t n,
                              fl_scale_out *o, char *err, size_t errlen)
{
    const float amax = amax_of(x, n);
    const float scale = fl__scale_current(s, amax);
    return fl_scale_quantize_with_scale(s, x, n, scale, o, err, errlen);
}

/* ---- delayed scaling ------------------------------------------------- */

int fl_scale_delayed_algo_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "max"))
        return FL_DS_MAX;
    if (!strcmp(s, "most_recent"))
        return FL_DS_MOST_RECENT;
    return -1;
}

int fl_scale_delayed_init(fl_scale_delayed *d, const fl_scale_scheme *s,
                          size_t len, int algo, float margin, char *err,
                          size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (!s || s->kind != FL_SCALE_TENSOR || !s->elem) {
        if (err && errlen)
            snprintf(err, errlen, "delayed scaling: needs a per-tensor scheme "
                     "(fp8-e4m3-tensor, fp8-e5m2-tensor)");
        return -1;
    }
    if (len == 0 || len > ((size_t)1 << 24)) {
        if (err && errlen)
            snprintf(err, errlen, "delayed scaling: amax history length %zu is not "
                     "in 1..16777216", len);
        return -1;
    }
    if (algo != FL_DS_MAX && algo != FL_DS_MOST_RECENT) {
        if (err && errlen)
            snprintf(err, errlen, "delayed scaling: unknown amax algorithm %d", algo);
        return -1;
    }
    if (!isfinite(margin)) {
        if (err && errlen)
            snprintf(err, errlen, "delayed scaling: margin must be finite");
        return -1;
    }
    d->history = calloc(len, sizeof *d->history);
    if (!d->history) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    d->scheme = *s;
    d->len = len;
    d->algo = algo;
    d->margin = margin;
    d->scale = 1.0f;
    d->scale_inv = 1.0f;
    return 0;
}

void fl_scale_delayed_free(fl_scale_delayed *d)
{
    free(d->history);
    d->history = NULL;
}

void fl_scale_delayed_record(fl_scale_delayed *d, float amax)
{
    /* fmaxf: a NaN argument is ignored */
    if (!isnan(amax) && (isnan(d->history[0]) || amax > d->history[0]))
        d->history[0] = amax;
}

int fl_scale_delayed_quantize(fl_scale_delayed *d, const float *x, size_t n,
                              fl_scale_out *out, char *err, size_t errlen)
{
    if (fl_scale_quantize_with_scale(&d->scheme, x, n, d->scale, out, err, errlen))
        return -1;
    fl_scale_delayed_record(d, out->tensor.amax);
    return 0;
}

void fl_scale_delayed_update(fl_scale_delayed *d)
{
    const float fp8_max = (float)fl_to_double(d->scheme.elem,
                                              d->scheme.elem->max_bits &
                                                  ~d->scheme.elem->sign_mask);
    /* scaled_max = fp8_max * std::pow(2.f, -margin): powf of a power of
     * two is exact for an integral margin; a fractional margin is rounded
     * here once, from binary64 */
    const float scaled_max = fl__f32_mul(fp8_max, fl__f32_of(exp2(-(double)d->margin)));
    const float last = d->history[0];
    float amax = 0.0f;
    const int roll = last != 0.0f || d->roll_zero;
    if (roll) {
        /* amax over the whole history before the roll (fmaxf), then the
         * roll: new[i] = old[i + 1], new[len - 1] = last, new[0] = 0 */
        for (size_t i = 0; i < d->len; i++) {
            const float a = d->history[i];
            if (!isnan(a) && a > amax)
                amax = a;
        }
        if (d->len > 1)
            memmove(d->history, d->history + 1, (d->len - 1) * sizeof *d->history);
        d->history[d->len - 1] = last;
        d->history[0] = 0.0f;
        if (d->algo == FL_DS_MOST_RECENT)
            amax = last;
    }
    float scale;
    if (isfinite(amax) && amax > 0.0f)
        scale = fl__f32_div(scaled_max, amax);
    else
        scale = d->scale;
    if (isinf(scale))
        scale = FLT_MAX;
    d->scale = scale;
    d->scale_inv = fl__f32_div(1.0f, scale);
    d->steps++;
}

const char *fl_scale_hybrid(int backward)
{
    return backward ? "fp8-e5m2-tensor" : "fp8-e4m3-tensor";
}
