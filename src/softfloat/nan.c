/*
 * nan.c — the platform seam: which NaN an operation returns.
 *
 * x86 SSE propagates the first NaN operand, quieted, and produces the
 * negative quiet NaN as its default; ARM (FPCR.DN=1) and RISC-V always
 * return the positive canonical quiet NaN; CUDA always returns the
 * all-ones pattern without sign (0x7FFF for half).  See Berkeley
 * SoftFloat's 8086-SSE / ARM-VFPv2-defaultNaN / RISCV specializations and
 * NVIDIA's cuda_fp16.hpp for the values.
 *
 * The rules real kernels show (sign, sign-pos, default-neg, first; see
 * fplab.h) are combinations of the same two choices, what is kept of the
 * first NaN operand (fl__nan_keep: the NaN, its sign, nothing) and the
 * sign of the default NaN (fl__nan_default_neg).  "sign" is x86
 * arithmetic narrowed by a conversion that keeps only the sign, as
 * PyTorch's float-to-half (c10 fp16_ieee_from_fp32_value returns
 * sign | 0x7E00 for every NaN).
 *
 * The SoftFloat preset is SoftFloat 3e's 8086-SSE specialisation, which
 * agrees with x86 here: softfloat_propagateNaNF16UI(a, b) returns a if it
 * is a NaN, else b, quieted (| 0x0200), raising invalid if either is
 * signaling; defaultNaNF16UI is 0xFE00 (F32 0xFFC00000, F64
 * 0xFFF8000000000000); softfloat_commonNaNToF16UI keeps the sign and the
 * payload's top bits.  The two differ only in fma (see fma.c).
 *
 * Formats with one NaN per sign (FN), one NaN in all (FNUZ, P3109, the
 * unsigned FN formats) or none (FINITE) have no payloads and no quiet bit:
 * the presets only choose the sign, where the format has signed NaNs.  A
 * FINITE format (OCP MX FP6/FP4) encodes no NaN at all; a NaN result there
 * is replaced by ml_dtypes' stand-in, its numeric_limits quiet_NaN(): the
 * sign bit alone (-0), and for a negative NaN that pattern negated (+0)
 * (ml_dtypes include/mxfloat.h; its conversion returns -quiet_NaN() for a
 * negative NaN), and invalid is raised.
 */
#include "internals.h"

/* The quiet bit of an IEEE-style format: top fraction bit. */
static FPLAB_HOSTDEV uint64_t quiet_bit(const fl_format *f)
{
    return ((uint64_t)1) << (f->prec - 2);
}

FPLAB_HOSTDEV uint64_t fl__nan_of_sign(const fl_format *f, int sign)
{
    const uint64_t s = sign ? f->sign_mask : 0;
    switch (f->nan_style) {
    case FL_NANSTYLE_IEEE:
        return s | f->exp_mask | quiet_bit(f);
    case FL_NANSTYLE_FN:                      /* S.1..1 (unsigned: 1..1) */
        return s | f->exp_mask | f->frac_mask;
    case FL_NANSTYLE_FINITE:                  /* ml_dtypes' stand-in */
        return s ^ f->sign_mask;
    case FL_NANSTYLE_P3109:                   /* 1.0..0; unsigned 1..1 */
        return f->is_signed ? f->sign_mask : f->exp_mask | f->frac_mask;
    default:                                  /* FNUZ: 1.0..0 */
        return f->sign_mask;
    }
}

FPLAB_HOSTDEV uint64_t fl_default_nan(const fl_format *f, int preset)
{
    if (f->nan_style != FL_NANSTYLE_IEEE)
        return fl__nan_of_sign(f, fl__nan_default_neg(preset));
    if (preset == FL_NANP_CUDA)
        return f->exp_mask | f->frac_mask;
    /* x86, SoftFloat, sign, default-neg: negative; ARM default-NaN mode,
     * RISC-V canonical NaN, sign-pos, first: positive */
    return (fl__nan_default_neg(preset) ? f->sign_mask : 0) | f->exp_mask |
           quiet_bit(f);
}

static FPLAB_HOSTDEV int raw_class(const fl_format *f, uint64_t a)
{
    return fl__unpack(f, a, 0).cls;
}

FPLAB_HOSTDEV uint64_t fl__nan_result(const fl_format *f, const fl_ctx *c,
                                      const uint64_t *ops, int n,
                                      unsigned *flags)
{
    int i, first = -1;
    for (i = 0; i < n; i++) {
        const int k = raw_class(f, ops[i]);
        if (k == FL_U_SNAN)
            *flags |= FL_INVALID;
        if (first < 0 && fl__is_nan_cls(k))
            first = i;
    }
    if (first >= 0) {
        const int keep = fl__nan_keep(c->nan);
        if (keep == FL__NAN_KEEP_PAYLOAD)
            return f->nan_style == FL_NANSTYLE_IEEE ? ops[first] | quiet_bit(f)
                                                    : ops[first];
        if (keep == FL__NAN_KEEP_SIGN)
            return fl__nan_of_sign(f, (ops[first] & f->sign_mask) != 0);
    }
    return fl_default_nan(f, c->nan);
}

FPLAB_HOSTDEV uint64_t fl__invalid(const fl_format *f, const fl_ctx *c,
                                   unsigned *flags)
{
    *flags |= FL_INVALID;
    return fl_default_nan(f, c->nan);
}

FPLAB_HOSTDEV uint64_t fl__nan_convert(const fl_format *dst,
                                       const fl_format *src, uint64_t a,
                                       const fl_ctx *c, unsigned *flags)
{
    int sign = (a & src->sign_mask) != 0;
    uint64_t frac = a & src->frac_mask;
    int sfb = src->prec - 1, dfb = dst->prec - 1;

    /* a signaling NaN signals; a NaN that dst cannot hold at all (FINITE)
     * is an invalid conversion, as for a NaN to an integer */
    if (raw_class(src, a) == FL_U_SNAN ||
        dst->nan_style == FL_NANSTYLE_FINITE)
        *flags |= FL_INVALID;
    if (fl__nan_keep(c->nan) == FL__NAN_KEEP_NONE)
        return fl_default_nan(dst, c->nan);
    if (dst->nan_style != FL_NANSTYLE_IEEE ||
        fl__nan_keep(c->nan) == FL__NAN_KEEP_SIGN)
        return fl__nan_of_sign(dst, sign);
    /* x86, SoftFloat and first keep the sign and the leading payload
     * bits, quieted. */
    frac = dfb >= sfb ? frac << (dfb - sfb) : frac >> (sfb - dfb);
    return (sign ? dst->sign_mask : 0) | dst->exp_mask |
           (frac & dst->frac_mask) | quiet_bit(dst);
}
