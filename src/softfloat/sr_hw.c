/*
 * sr_hw.c — hardware rules of stochastic rounding with given random bits,
 * as their documentation states them, on the core's FL_RSB mode.
 *
 * NVIDIA PTX ISA 9.1, section 9.7.9.21 (cvt), for cvt.rs (sm_100a,
 * sm_103a):
 *   - ".rs: Operation's result is rounded in the direction toward zero or
 *     away from zero based on the carry out of the integer addition of the
 *     supplied random bits (rbits) to the truncated off (discarded) bits of
 *     mantissa from the input": P3109's StochasticA (FL_SRV_FASTEST) with
 *     the lane's random bits on the top of the discarded bits;
 *   - rbits layout: .f16x2: the 13 low bits of rbits[31:16] for a, of
 *     rbits[15:0] for b (their 3 top bits 0); .bf16x2: rbits[31:16] for a,
 *     rbits[15:0] for b; .e4m3x4/.e5m2x4/.e2m3x4/.e3m2x4: "upper 16 bits
 *     are used for operands a, b", lower 16 for e, f; .e2m1x4: "upper 8
 *     bits from both 16-bit halves" for a, b, lower 8 bits for e, f
 *     (fplab: a rbits[31:24], b rbits[15:8], e rbits[23:16], f
 *     rbits[7:0]);
 *   - .satfinite (mandatory for the 8-, 6- and 4-bit types, optional for
 *     .f16x2 / .bf16x2): a NaN input gives NaN (f16, bf16, e4m3, e5m2) or
 *     +MAX_NORM (e2m1, e2m3, e3m2, which have no NaN); |x| > MAX_NORM
 *     gives the sign-preserved MAX_NORM: P3109's SatFinite;
 *   - packing: a in the top bits of d; e2m3/e3m2 lanes padded with 2 zero
 *     bits on top of each byte.
 *
 * oneDNN, Primitive Attributes: rounding mode (dnnl::rounding_mode::
 * stochastic): "a random bias is generated in a deterministic way, and
 * gets added to the mantissa bits of the destination before truncation to
 * destination datatype precision" (enum dnnl_rounding_mode_stochastic:
 * "a random bias is added to the trailing mantissa bits before
 * conversion"): from binary32, the 24 - p bits the destination drops take
 * a bias of as many bits, the carry decides: FL_SRV_FASTEST with N = 24 - p.
 * Its GPU kernel (stochastic_round_fwd) then clamps to [lowest, max],
 * flushes results below the smallest normal to zero and passes NaN and
 * infinities through untouched: saturation of finite values, flush to
 * zero after rounding, and a plain conversion of the specials here.
 */
#include <string.h>

#include "internals.h"

static const fl_srhw_info hw[FL_SRHW_COUNT] = {
    {"ptx-cvt.rs.f16x2", &fl_binary16, 2, 13, 0, 16},
    {"ptx-cvt.rs.bf16x2", &fl_bfloat16, 2, 16, 0, 16},
    {"ptx-cvt.rs.e4m3x4", &fl_fp8_e4m3, 4, 16, 1, 8},
    {"ptx-cvt.rs.e5m2x4", &fl_fp8_e5m2, 4, 16, 1, 8},
    {"ptx-cvt.rs.e2m3x4", &fl_float6_e2m3fn, 4, 16, 1, 8},
    {"ptx-cvt.rs.e3m2x4", &fl_float6_e3m2fn, 4, 16, 1, 8},
    {"ptx-cvt.rs.e2m1x4", &fl_float4_e2m1fn, 4, 8, 1, 4},
    {"onednn-f16", &fl_binary16, 1, 13, 1, 16},
    {"onednn-bf16", &fl_bfloat16, 1, 16, 1, 16},
    {"onednn-f8_e4m3", &fl_fp8_e4m3, 1, 20, 1, 8},
    {"onednn-f8_e5m2", &fl_fp8_e5m2, 1, 21, 1, 8},
};

const fl_srhw_info *fl_srhw_get(int preset)
{
    return preset >= 0 && preset < FL_SRHW_COUNT ? &hw[preset] : NULL;
}

int fl_srhw_parse(const char *name)
{
    int i;
    if (!name)
        return -1;
    for (i = 0; i < FL_SRHW_COUNT; i++)
        if (!strcmp(name, hw[i].name))
            return i;
    return -1;
}

static int is_onednn(int preset)
{
    return preset >= FL_SRHW_ONEDNN_F16;
}

uint64_t fl_srhw_lane_bits(int preset, uint32_t rbits, int lane)
{
    switch (preset) {
    case FL_SRHW_PTX_F16X2:
        return (lane == 0 ? rbits >> 16 : rbits) & 0x1FFFu;
    case FL_SRHW_PTX_BF16X2:
        return (lane == 0 ? rbits >> 16 : rbits) & 0xFFFFu;
    case FL_SRHW_PTX_E2M1X4: {
        /* a, b: the upper bytes of the two halves; e, f: the lower */
        static const int shift[4] = {24, 8, 16, 0};
        return (rbits >> shift[lane & 3]) & 0xFFu;
    }
    case FL_SRHW_PTX_E4M3X4:
    case FL_SRHW_PTX_E5M2X4:
    case FL_SRHW_PTX_E2M3X4:
    case FL_SRHW_PTX_E3M2X4:
        return (lane < 2 ? rbits >> 16 : rbits) & 0xFFFFu;
    default:                                 /* oneDNN: one bias */
        return preset >= 0 && preset < FL_SRHW_COUNT
                   ? rbits & (((uint32_t)1 << hw[preset].nbits) - 1)
                   : 0;
    }
}

uint64_t fl_srhw_round(int preset, float x, uint32_t rbits, int lane,
                       int satfinite, unsigned *flags)
{
    const fl_srhw_info *h = fl_srhw_get(preset);
    fl_ctx c = FL_CTX_INIT;
    union { float f; uint32_t u; } v;
    if (!h)
        return 0;
    v.f = x;
    c.nan = FL_NANP_CUDA;
    if (is_onednn(preset)) {
        /* specials pass the bias untouched and are converted plainly */
        if ((v.u & 0x7F800000u) == 0x7F800000u)
            return fl_from_float(h->fmt, x, &c, flags);
        c.saturate = FL_SAT_PROPAGATE;     /* the clamp of finite values */
        c.ftz = 1;                         /* below the smallest normal: 0 */
        c.tininess = FL_TINY_AFTER;
    } else {
        if (h->satfinite || satfinite) {
            c.saturate = FL_SAT_FINITE;
            if ((v.u & 0x7FFFFFFFu) > 0x7F800000u &&
                h->fmt->nan_style == FL_NANSTYLE_FINITE) {
                *flags |= FL_INVALID;      /* no NaN: +MAX_NORM */
                return h->fmt->max_bits;
            }
        }
    }
    return fl_round_sr_bits(h->fmt, (double)x,
                            fl_srhw_lane_bits(preset, rbits, lane), h->nbits,
                            FL_SRV_FASTEST, &c, flags);
}

uint64_t fl_srhw_pack(int preset, const float *x, uint32_t rbits,
                      int satfinite, unsigned *flags)
{
    const fl_srhw_info *h = fl_srhw_get(preset);
    uint64_t d = 0;
    int i;
    if (!h)
        return 0;
    for (i = 0; i < h->lanes; i++)
        d = (d << h->lane_width) |
            fl_srhw_round(preset, x[i], rbits, i, satfinite, flags);
    return d;
}
