/*
 * tcmodel.c — tensor-core block FMA model (see include/fplab/tensorcore.h
 * for the model and its sources).
 *
 * Invariant of the alignment: every term t = m_t * 2^(e_t) is replaced by
 * trunc(|m_t| * 2^(e_t - L)) * 2^L with L = E - 23 - neab, where E is the
 * largest alignment exponent (product: exponent sum ea+eb, significand in
 * [1,4); c: its own exponent).  The truncated integers are summed exactly;
 * the only rounding after that is the final one by fl__round_pack.
 * With align = floor or rne the truncation above becomes that rounding of
 * each term to the window's unit; with norm = products a product whose
 * significand is 2 or more aligns at ea+eb+1.
 */
#include <string.h>

#include "internals.h"
#include "fplab/tensorcore.h"
#include "tc_align.h"

const fl_tc_model fl_tc_v100_fp16 = {"v100-fp16", &fl_binary16, 4, 0, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};
const fl_tc_model fl_tc_a100_fp16 = {"a100-fp16", &fl_binary16, 8, 1, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};
const fl_tc_model fl_tc_a100_bf16 = {"a100-bf16", &fl_bfloat16, 8, 1, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};
const fl_tc_model fl_tc_a100_tf32 = {"a100-tf32", &fl_tf32, 4, 1, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};
const fl_tc_model fl_tc_h100_fp16 = {"h100-fp16", &fl_binary16, 16, 2, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};
const fl_tc_model fl_tc_h100_bf16 = {"h100-bf16", &fl_bfloat16, 16, 2, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};
const fl_tc_model fl_tc_h100_tf32 = {"h100-tf32", &fl_tf32, 8, 2, FL_RTZ,
    FL_TC_ALIGN_TRUNC, FL_TC_NORM_ONCE};

static const fl_tc_model *const tc_presets[] = {
    &fl_tc_v100_fp16, &fl_tc_a100_fp16, &fl_tc_a100_bf16, &fl_tc_a100_tf32,
    &fl_tc_h100_fp16, &fl_tc_h100_bf16, &fl_tc_h100_tf32,
};

size_t fl_tc_model_count(void)
{
    return sizeof tc_presets / sizeof tc_presets[0];
}

const fl_tc_model *fl_tc_model_preset(size_t i)
{
    return i < fl_tc_model_count() ? tc_presets[i] : NULL;
}

const fl_tc_model *fl_tc_model_by_name(const char *name)
{
    for (size_t i = 0; name && i < fl_tc_model_count(); i++)
        if (!strcmp(name, tc_presets[i]->name))
            return tc_presets[i];
    return NULL;
}

/* A finite nonzero term: |value| = mag * 2^(lsb), aligned by `align`. */
struct term {
    int sign;
    int32_t align;   /* alignment exponent */
    int32_t lsb;     /* exponent of mag's bit 0 */
    uint64_t mag;
};

static uint64_t block(const fl_tc_model *m, const fl_format *accf,
                      const uint64_t *a, const uint64_t *b, int n,
                      uint64_t c, const fl_ctx *ctxp, unsigned *flags)
{
    struct term t[65];
    int nt = 0, pinf = 0, ninf = 0, nan = 0, allneg0 = 1, i;
    const fl_format *in = m->in;
    const int pin = in->prec;
    const fl_ctx ctx = *ctxp;
    fl_unp uc;
    int32_t emax, lsb;
    int64_t sum = 0;
    int truncated = 0;

    if (n > 64)
        n = 64;
    for (i = 0; i < n; i++) {
        fl_unp ua = fl__unpack(in, a[i], &ctx), ub = fl__unpack(in, b[i], &ctx);
        int s = ua.sign ^ ub.sign;
        if (fl__is_nan_cls(ua.cls) || fl__is_nan_cls(ub.cls)) {
            nan = 1;
            continue;
        }
        if (ua.cls == FL_U_INF || ub.cls == FL_U_INF) {
            if (ua.cls == FL_U_ZERO || ub.cls == FL_U_ZERO)
                nan = 1, *flags |= FL_INVALID;
            else if (s)
                ninf = 1;
            else
                pinf = 1;
            continue;
        }
        if (ua.cls == FL_U_ZERO || ub.cls == FL_U_ZERO) {
            allneg0 &= s;
            continue;
        }
        allneg0 = 0;
        t[nt].sign = s;
        /* (sig_a >> (64-p)) * (sig_b >> (64-p)) is exact in 2p <= 64 bits
         * (p <= 24 for every tensor-core input format). */
        t[nt].mag = (ua.sig >> (64 - pin)) * (ub.sig >> (64 - pin));
        t[nt].lsb = ua.exp + ub.exp - 2 * (pin - 1);
        /* the significand product lies in [1,4): normalising it moves
         * the alignment exponent up by one when it is 2 or more */
        t[nt].align = ua.exp + ub.exp +
                      (m->norm == FL_TC_NORM_PRODUCTS &&
                       (t[nt].mag >> (2 * pin - 1)) != 0);
        nt++;
    }
    uc = fl__unpack(accf, c, &ctx);
    if (fl__is_nan_cls(uc.cls))
        nan = 1;
    else if (uc.cls == FL_U_INF) {
        if (uc.sign)
            ninf = 1;
        else
            pinf = 1;
    }
    else if (uc.cls == FL_U_FINITE) {
        allneg0 = 0;
        t[nt].sign = uc.sign;
        t[nt].align = uc.exp;
        t[nt].mag = uc.sig >> (64 - accf->prec);
        t[nt].lsb = uc.exp - (accf->prec - 1);
        nt++;
    } else {
        allneg0 &= uc.sign;
    }
    if (nan || (pinf && ninf)) {
        if (!nan)
            *flags |= FL_INVALID;
        return fl_default_nan(accf, ctx.nan);
    }
    if (pinf || ninf)
        return fl__pack_inf(accf, ninf, &ctx, flags);
    if (nt == 0)
        return allneg0 ? accf->sign_mask : 0;

    emax = t[0].align;
    for (i = 1; i < nt; i++)
        if (t[i].align > emax)
            emax = t[i].align;
    lsb = emax - 23 - m->neab;
    for (i = 0; i < nt; i++) {
        int32_t sh = t[i].lsb - lsb;
        uint64_t v;
        if (sh >= 0)
            v = t[i].mag << sh;   /* every aligned term < 2^(25+neab) */
        else
            v = fl__tc_align_cut(m->align, t[i].sign, t[i].mag, -sh, &truncated);
        sum += t[i].sign ? -(int64_t)v : (int64_t)v;
    }
    if (sum == 0) {
        if (truncated)
            *flags |= FL_INEXACT;
        return 0;
    }
    {
        int s = sum < 0;
        uint64_t mag = s ? (uint64_t)(-sum) : (uint64_t)sum;
        uint64_t r = fl__round_pack(accf, &ctx, s, lsb + 63, mag, flags);
        if (truncated)
            *flags |= FL_INEXACT;
        return r;
    }
}

uint64_t fl_tc_block_fma_ctx(const fl_tc_model *m, const fl_format *accf,
                             const uint64_t *a, const uint64_t *b, int n,
                             uint64_t c, const fl_ctx *ctx, unsigned *flags)
{
    return block(m, accf, a, b, n, c, ctx, flags);
}

uint64_t fl_tc_block_fma(const fl_tc_model *m, const uint64_t *a,
                         const uint64_t *b, int n, uint64_t c, unsigned *flags)
{
    fl_ctx ctx = fl_ctx_make(m->out_rm);
    ctx.nan = FL_NANP_CUDA;
    return block(m, &fl_binary32, a, b, n, c, &ctx, flags);
}

uint64_t fl_tc_block_fma_f16(const fl_tc_model *m, const uint64_t *a,
                             const uint64_t *b, int n, uint64_t c,
                             unsigned *flags)
{
    fl_ctx ctx = fl_ctx_make(FL_RNE);
    ctx.nan = FL_NANP_CUDA;
    return block(m, &fl_binary16, a, b, n, c, &ctx, flags);
}

uint64_t fl_tc_dot(const fl_tc_model *m, const uint64_t *a, size_t sa,
                   const uint64_t *b, size_t sb, size_t k, uint64_t c,
                   unsigned *flags)
{
    uint64_t abuf[64], bbuf[64];
    size_t i = 0;
    while (i < k) {
        int n = 0;
        for (; n < m->block && i < k; n++, i++) {
            abuf[n] = a[i * sa];
            bbuf[n] = b[i * sb];
        }
        c = fl_tc_block_fma(m, abuf, bbuf, n, c, flags);
    }
    return c;
}
