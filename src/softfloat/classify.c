/*
 * classify.c — IEEE 754 class() and the is* predicates.
 *
 * These read the encoding alone: no context, so denormals-are-zero does not
 * apply.  In a format declared without subnormals, an encoding with a zero
 * exponent field is a zero (that is how the format reads it), so it is
 * classified as one and fl_is_subnormal is always 0 there.  In the FN style
 * (no infinities) the single NaN pattern per sign is a quiet NaN.
 */
#include "internals.h"

FPLAB_HOSTDEV fl_class fl_classify(const fl_format *f, uint64_t a)
{
    const fl_unp u = fl__unpack(f, a, 0);
    switch (u.cls) {
    case FL_U_SNAN: return FL_CLASS_SNAN;
    case FL_U_QNAN: return FL_CLASS_QNAN;
    case FL_U_INF:  return u.sign ? FL_CLASS_NEG_INF : FL_CLASS_POS_INF;
    case FL_U_ZERO: return u.sign ? FL_CLASS_NEG_ZERO : FL_CLASS_POS_ZERO;
    default:
        if (u.exp < f->emin)
            return u.sign ? FL_CLASS_NEG_SUBNORMAL : FL_CLASS_POS_SUBNORMAL;
        return u.sign ? FL_CLASS_NEG_NORMAL : FL_CLASS_POS_NORMAL;
    }
}

const char *fl_class_name(fl_class k)
{
    static const char *const names[FL_CLASS_COUNT] = {
        "signalingNaN", "quietNaN", "negativeInfinity", "negativeNormal",
        "negativeSubnormal", "negativeZero", "positiveZero",
        "positiveSubnormal", "positiveNormal", "positiveInfinity"
    };
    if ((int)k < 0 || k >= FL_CLASS_COUNT)
        return "unknown";
    return names[k];
}

FPLAB_HOSTDEV int fl_is_nan(const fl_format *f, uint64_t a)
{
    const fl_class k = fl_classify(f, a);
    return k == FL_CLASS_SNAN || k == FL_CLASS_QNAN;
}

FPLAB_HOSTDEV int fl_is_snan(const fl_format *f, uint64_t a)
{
    return fl_classify(f, a) == FL_CLASS_SNAN;
}

FPLAB_HOSTDEV int fl_is_inf(const fl_format *f, uint64_t a)
{
    const fl_class k = fl_classify(f, a);
    return k == FL_CLASS_NEG_INF || k == FL_CLASS_POS_INF;
}

FPLAB_HOSTDEV int fl_is_zero(const fl_format *f, uint64_t a)
{
    const fl_class k = fl_classify(f, a);
    return k == FL_CLASS_NEG_ZERO || k == FL_CLASS_POS_ZERO;
}

FPLAB_HOSTDEV int fl_is_subnormal(const fl_format *f, uint64_t a)
{
    const fl_class k = fl_classify(f, a);
    return k == FL_CLASS_NEG_SUBNORMAL || k == FL_CLASS_POS_SUBNORMAL;
}
