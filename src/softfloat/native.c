/*
 * native.c — host float/double in and out of any format.
 *
 * Host values are reinterpreted through a union (valid C type punning) and
 * then handled as binary32 / binary64 encodings; the values coming out are
 * assembled from the unpacked significand and exponent with integer
 * operations only.  The binary32 / binary64 descriptors are built locally
 * rather than read from the preset table so these functions also compile as
 * CUDA device code.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"  /* the seam (src/accel): routes proven equal in tests/test_fastpath.c */
#endif

typedef union { double d; uint64_t u; } fl_dbits;
typedef union { float f; uint32_t u; } fl_fbits;

/* The IEEE interchange format with ebits exponent bits and precision prec
 * (subnormals, infinities, no saturation), as format.c builds it. */
static FPLAB_HOSTDEV fl_format native_format(int ebits, int prec)
{
    fl_format f;
    f.name = ebits == 11 ? "binary64" : "binary32";
    f.width = (uint8_t)(ebits + prec);
    f.ebits = (uint8_t)ebits;
    f.prec = (uint8_t)prec;
    f.has_inf = 1;
    f.nan_style = FL_NANSTYLE_IEEE;
    f.subnormals = 1;
    f.saturate = 0;
    f.reserved = 0;
    f.is_signed = 1;
    f.has_zero = 1;
    f.has_negzero = 1;
    f.min_gap_up = 0;
    f.bias = (1 << (ebits - 1)) - 1;
    f.emin = 1 - f.bias;
    f.emax = f.bias;
    f.sign_mask = (uint64_t)1 << (f.width - 1);
    f.frac_mask = ((uint64_t)1 << (prec - 1)) - 1;
    f.exp_mask = (((uint64_t)1 << ebits) - 1) << (prec - 1);
    f.max_bits = (f.exp_mask - ((uint64_t)1 << (prec - 1))) | f.frac_mask;
    return f;
}

/*
 * The encoding in the native format nf (binary32 or binary64) of the value
 * of a in f.  Exact whenever the value is representable in nf; otherwise
 * rounded to nearest even (overflow to infinity).  NaNs keep their sign,
 * quiet/signaling state and leading payload bits (a payload that would
 * vanish becomes the quiet bit, so a NaN stays a NaN).  No flags.
 */
static FPLAB_HOSTDEV uint64_t to_native(const fl_format *f, uint64_t a,
                                        const fl_format *nf)
{
    const fl_unp u = fl__unpack(f, a, 0);
    const int nfb = nf->prec - 1;
    const uint64_t s = u.sign ? nf->sign_mask : 0;

    switch (u.cls) {
    case FL_U_ZERO:
        return s;
    case FL_U_INF:
        return s | nf->exp_mask;
    case FL_U_QNAN:
    case FL_U_SNAN: {
        const int fb = f->prec - 1;
        uint64_t frac = a & f->frac_mask;
        frac = nfb >= fb ? frac << (nfb - fb) : frac >> (fb - nfb);
        if (frac == 0 || u.cls == FL_U_QNAN)
            frac |= (uint64_t)1 << (nfb - 1);
        return s | nf->exp_mask | frac;
    }
    default:
        break;
    }

    /* value = sig * 2^(exp - 63) with bit 63 of sig set */
    if (u.exp >= nf->emin && u.exp <= nf->emax &&
        (u.sig << (nfb + 1)) == 0) {
        /* a normal of nf, significand fits: drop the hidden bit */
        return s | ((uint64_t)(u.exp + nf->bias) << nfb) |
               ((u.sig >> (63 - nfb)) & nf->frac_mask);
    }
    if (u.exp < nf->emin) {
        /* subnormal of nf: fraction = value / 2^(emin - nfb) */
        const int32_t shift = 63 - nfb + (nf->emin - u.exp);
        if (shift < 64 && (u.sig << (64 - shift)) == 0)
            return s | (u.sig >> shift);
    }
    {
        /* not representable: one correct rounding, flags dropped */
        fl_ctx rne = FL_CTX_INIT;
        unsigned ignored = 0;
        return fl__round_pack(nf, &rne, u.sign, u.exp, u.sig, &ignored);
    }
}

FPLAB_HOSTDEV uint64_t fl_from_double(const fl_format *f, double x,
                                      const fl_ctx *c, unsigned *flags)
{
    const fl_format b64 = native_format(11, 53);
    fl_dbits v;
    v.d = x;
    return fl_convert(f, &b64, v.u, c, flags);
}

FPLAB_HOSTDEV uint64_t fl_from_float(const fl_format *f, float x,
                                     const fl_ctx *c, unsigned *flags)
{
    const fl_format b32 = native_format(8, 24);
    fl_fbits v;
    v.f = x;
    return fl_convert(f, &b32, v.u, c, flags);
}

FPLAB_HOSTDEV double fl_to_double(const fl_format *f, uint64_t a)
{
    const fl_format b64 = native_format(11, 53);
    fl_dbits v;
    v.u = to_native(f, a, &b64);
    return v.d;
}

FPLAB_HOSTDEV float fl_to_float(const fl_format *f, uint64_t a)
{
    const fl_format b32 = native_format(8, 24);
    fl_fbits v;
    v.u = (uint32_t)to_native(f, a, &b32);
    return v.f;
}

FPLAB_HOSTDEV float fl_round_float(const fl_format *f, float x,
                                   const fl_ctx *c, unsigned *flags)
{
#ifndef __CUDACC__
    float r;
    if (fl__accel_round_float(f, x, c, flags, &r))
        return r;
#endif
    return fl_to_float(f, fl_from_float(f, x, c, flags));
}

FPLAB_HOSTDEV double fl_round_double(const fl_format *f, double x,
                                     const fl_ctx *c, unsigned *flags)
{
#ifndef __CUDACC__
    double r;
    if (fl__accel_round_double(f, x, c, flags, &r))
        return r;
#endif
    return fl_to_double(f, fl_from_double(f, x, c, flags));
}

void fl_round_float_array(const fl_format *f, float *dst, const float *src,
                          size_t n, const fl_ctx *c, unsigned *flags)
{
    fl_ctx ci = *c;
    size_t i;
#ifndef __CUDACC__
    if (fl__accel_round_float_array(f, dst, src, n, c, flags))
        return;
#endif
    for (i = 0; i < n; i++) {
        ci.sr_index = c->sr_index + (uint64_t)i;
        dst[i] = fl_round_float(f, src[i], &ci, flags);
    }
}

void fl_round_double_array(const fl_format *f, double *dst, const double *src,
                           size_t n, const fl_ctx *c, unsigned *flags)
{
    fl_ctx ci = *c;
    size_t i;
#ifndef __CUDACC__
    if (fl__accel_round_double_array(f, dst, src, n, c, flags))
        return;
#endif
    for (i = 0; i < n; i++) {
        ci.sr_index = c->sr_index + (uint64_t)i;
        dst[i] = fl_round_double(f, src[i], &ci, flags);
    }
}
