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
 * The SoftFloat preset is SoftFloat 3e's 8086-SSE specialisation, which
 * agrees with x86 here: softfloat_propagateNaNF16UI(a, b) returns a if it
 * is a NaN, else b, quieted (| 0x0200), raising invalid if either is
 * signaling; defaultNaNF16UI is 0xFE00 (F32 0xFFC00000, F64
 * 0xFFF8000000000000); softfloat_commonNaNToF16UI keeps the sign and the
 * payload's top bits.  The two differ only in fma (see fma.c).
 */
#include "internals.h"

/* The quiet bit of an IEEE-style format: top fraction bit. */
static FPLAB_HOSTDEV uint64_t quiet_bit(const fl_format *f)
{
    return ((uint64_t)1) << (f->prec - 2);
}

FPLAB_HOSTDEV uint64_t fl_default_nan(const fl_format *f, int preset)
{
    if (f->nan_style == FL_NANSTYLE_FN) {
        uint64_t nan = f->exp_mask | f->frac_mask;
        return fl__nan_propagates(preset) ? f->sign_mask | nan : nan;
    }
    switch (preset) {
    case FL_NANP_X86:
    case FL_NANP_SOFTFLOAT:
        return f->sign_mask | f->exp_mask | quiet_bit(f);
    case FL_NANP_CUDA:
        return f->exp_mask | f->frac_mask;
    default: /* ARM default-NaN mode, RISC-V canonical NaN */
        return f->exp_mask | quiet_bit(f);
    }
}

static FPLAB_HOSTDEV int raw_is_nan(const fl_format *f, uint64_t a)
{
    uint64_t mag = a & ~f->sign_mask;
    if (f->nan_style == FL_NANSTYLE_FN)
        return mag == (f->exp_mask | f->frac_mask);
    return (mag & f->exp_mask) == f->exp_mask && (mag & f->frac_mask) != 0;
}

static FPLAB_HOSTDEV int raw_is_snan(const fl_format *f, uint64_t a)
{
    return f->nan_style == FL_NANSTYLE_IEEE && raw_is_nan(f, a) &&
           !(a & quiet_bit(f));
}

FPLAB_HOSTDEV uint64_t fl__nan_result(const fl_format *f, const fl_ctx *c,
                                      const uint64_t *ops, int n,
                                      unsigned *flags)
{
    int i, first = -1;
    for (i = 0; i < n; i++) {
        if (raw_is_snan(f, ops[i]))
            *flags |= FL_INVALID;
        if (first < 0 && raw_is_nan(f, ops[i]))
            first = i;
    }
    if (fl__nan_propagates(c->nan) && first >= 0)
        return f->nan_style == FL_NANSTYLE_FN ? ops[first]
                                              : ops[first] | quiet_bit(f);
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

    if (raw_is_snan(src, a))
        *flags |= FL_INVALID;
    if (!fl__nan_propagates(c->nan))
        return fl_default_nan(dst, c->nan);
    if (dst->nan_style == FL_NANSTYLE_FN)
        return (sign ? dst->sign_mask : 0) | dst->exp_mask | dst->frac_mask;
    /* x86 (and SoftFloat) keep the sign and the leading payload bits,
     * quieted. */
    frac = dfb >= sfb ? frac << (dfb - sfb) : frac >> (sfb - dfb);
    return (sign ? dst->sign_mask : 0) | dst->exp_mask |
           (frac & dst->frac_mask) | quiet_bit(dst);
}
