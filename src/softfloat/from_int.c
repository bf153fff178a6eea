/*
 * from_int.c — fl_from_i32, fl_from_i64, fl_from_u32, fl_from_u64: an
 * integer to a float, one rounding.
 *
 * The magnitude is normalized into the 1.63 significand.  Its lowest bit is
 * a genuine value bit that fl__round_pack reads as sticky; that is exact
 * because the precision is at most 53, so bit 0 lies at least 10 places
 * below the round bit.  Large integers into small formats round (inexact)
 * or overflow (fp16 and smaller) inside fl__round_pack.
 */
#include "internals.h"

static FPLAB_HOSTDEV uint64_t from_mag(const fl_format *f, int sign,
                                       uint64_t mag, const fl_ctx *c,
                                       unsigned *flags)
{
    int lz;
    if (mag == 0)
        return fl__pack_zero(f, c, 0, flags);   /* integer zero is +0 */
    lz = fl__clz64(mag);
    return fl__round_pack(f, c, sign, 63 - lz, mag << lz, flags);
}

FPLAB_HOSTDEV uint64_t fl_from_i32(const fl_format *f, int32_t v,
                                   const fl_ctx *c, unsigned *flags)
{
    /* |INT32_MIN| computed in 64 bits */
    return from_mag(f, v < 0, v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v,
                    c, flags);
}

FPLAB_HOSTDEV uint64_t fl_from_i64(const fl_format *f, int64_t v,
                                   const fl_ctx *c, unsigned *flags)
{
    /* 0 - (uint64_t)v is |v| modulo 2^64, exact for INT64_MIN too */
    return from_mag(f, v < 0, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v,
                    c, flags);
}

FPLAB_HOSTDEV uint64_t fl_from_u32(const fl_format *f, uint32_t v,
                                   const fl_ctx *c, unsigned *flags)
{
    return from_mag(f, 0, v, c, flags);
}

FPLAB_HOSTDEV uint64_t fl_from_u64(const fl_format *f, uint64_t v,
                                   const fl_ctx *c, unsigned *flags)
{
    return from_mag(f, 0, v, c, flags);
}
