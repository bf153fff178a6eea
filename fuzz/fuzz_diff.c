/*
 * fuzz_diff.c — differential fuzzing of the core against the MPFR oracle.
 *
 * Input: a format (fuzz_common.h: a preset or a made-up one of any NaN
 * style, bias, signedness and precision), a context
 * (deterministic mode, tininess, FTZ, DAZ, saturation, NaN preset), one
 * byte for the operation, then three 8-byte operands.  Operations: the
 * nine of fl_mpfr_arith (add sub mul div sqrt fma rem rint rint_exact),
 * conversion from a second fuzzed format, integer to float and float to
 * integer (32/64 bits, signed or not, exact or not).
 *
 * Property: the core's result bits (any NaN matches any NaN: NaN payloads
 * are the presets' business and tested elsewhere), its five IEEE flags and
 * its ternary agree with the oracle.  Operands are fuzzed bits masked to
 * the format's width, so every encoding (subnormals, NaNs, FN's NaN) is
 * reachable.  A mismatch prints everything needed to replay it.
 */
#include <inttypes.h>

#include "fuzz_common.h"
#include "mpfr_oracle.h"

enum { OP_CONVERT = FL_MPFR_OP_COUNT, OP_FROM_INT, OP_TO_INT, OP_TOTAL };

static const char *opname(int op)
{
    switch (op) {
    case OP_CONVERT: return "convert";
    case OP_FROM_INT: return "from_int";
    case OP_TO_INT: return "to_int";
    default: return fl_mpfr_op_name(op);
    }
}

static uint64_t mask(const fl_format *f, uint64_t v)
{
    return f->width >= 64 ? v : v & ((UINT64_C(1) << f->width) - 1);
}

static uint64_t core_arith(int op, const fl_format *f, const uint64_t *x,
                           const fl_ctx *c, unsigned *fl)
{
    switch (op) {
    case FL_MPFR_ADD: return fl_add(f, x[0], x[1], c, fl);
    case FL_MPFR_SUB: return fl_sub(f, x[0], x[1], c, fl);
    case FL_MPFR_MUL: return fl_mul(f, x[0], x[1], c, fl);
    case FL_MPFR_DIV: return fl_div(f, x[0], x[1], c, fl);
    case FL_MPFR_SQRT: return fl_sqrt(f, x[0], c, fl);
    case FL_MPFR_FMA: return fl_fma(f, x[0], x[1], x[2], c, fl);
    case FL_MPFR_REM: return fl_rem(f, x[0], x[1], c, fl);
    case FL_MPFR_RINT: return fl_rint(f, x[0], 0, c, fl);
    default: return fl_rint(f, x[0], 1, c, fl);
    }
}

static void describe(char *buf, size_t len, const fl_format *f)
{
    static const char *const styles[FL_NANSTYLE_COUNT] = {
        "ieee", "fn", "finite", "fnuz", "p3109" };
    snprintf(buf, len, "%s(e%d p%d bias %d %s%s%s%s%s%s)", f->name, f->ebits,
             f->prec, (int)f->bias,
             f->nan_style < FL_NANSTYLE_COUNT ? styles[f->nan_style] : "?",
             f->is_signed ? "" : " unsigned", f->has_zero ? "" : " nozero",
             f->subnormals ? "" : " nosub", f->saturate ? " sat" : "",
             f->min_gap_up ? " mingapup" : "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    fl_format f, g;
    fz_format(&in, &f);
    fl_ctx c = fz_ctx(&in);
    unsigned opb = fz_u8(&in);
    int op = (int)(opb % OP_TOTAL);
    uint64_t raw[3], x[3];
    for (int i = 0; i < 3; i++)
        raw[i] = fz_u64(&in);

    fl_mpfr_res m;
    int orc;
    unsigned fl = 0;
    uint64_t got;
    int is_int = 0, width = 64, is_signed = 0, exact = 0;
    const fl_format *fres = &f;

    if (op < FL_MPFR_OP_COUNT) {
        for (int i = 0; i < 3; i++)
            x[i] = mask(&f, raw[i]);
        orc = fl_mpfr_arith(&m, op, &f, x, &c);
        if (orc != FL_MPFR_OK && orc != FL_MPFR_ESELF)
            return 0;
        got = core_arith(op, &f, x, &c, &fl);
    } else if (op == OP_CONVERT) {
        /* source format from the remaining input, or the operand bytes */
        fz_format(&in, &g);
        x[0] = mask(&g, raw[0]);
        orc = fl_mpfr_convert(&m, &f, &g, x[0], &c);
        if (orc != FL_MPFR_OK && orc != FL_MPFR_ESELF)
            return 0;
        got = fl_convert(&f, &g, x[0], &c, &fl);
    } else if (op == OP_FROM_INT) {
        is_signed = (opb >> 5) & 1;
        width = (opb & 0x40) ? 32 : 64;
        x[0] = raw[0];
        if (width == 32)
            x[0] = is_signed ? (uint64_t)(int64_t)(int32_t)(uint32_t)x[0]
                             : (uint32_t)x[0];
        orc = fl_mpfr_from_int(&m, &f, x[0], is_signed, &c);
        if (orc != FL_MPFR_OK && orc != FL_MPFR_ESELF)
            return 0;
        if (width == 32)
            got = is_signed ? fl_from_i32(&f, (int32_t)x[0], &c, &fl)
                            : fl_from_u32(&f, (uint32_t)x[0], &c, &fl);
        else
            got = is_signed ? fl_from_i64(&f, (int64_t)x[0], &c, &fl)
                            : fl_from_u64(&f, x[0], &c, &fl);
    } else {
        is_int = 1;
        is_signed = (opb >> 5) & 1;
        width = (opb & 0x40) ? 32 : 64;
        exact = (opb >> 7) & 1;
        x[0] = mask(&f, raw[0]);
        orc = fl_mpfr_to_int(&m, &f, x[0], width, is_signed, exact, &c);
        if (orc != FL_MPFR_OK && orc != FL_MPFR_ESELF)
            return 0;
        if (width == 32)
            got = is_signed ? (uint32_t)fl_to_i32(&f, x[0], exact, &c, &fl)
                            : fl_to_u32(&f, x[0], exact, &c, &fl);
        else
            got = is_signed ? (uint64_t)fl_to_i64(&f, x[0], exact, &c, &fl)
                            : fl_to_u64(&f, x[0], exact, &c, &fl);
    }

    char fd[96], gd[96] = "";
    describe(fd, sizeof fd, &f);
    if (op == OP_CONVERT)
        describe(gd, sizeof gd, &g);
    if (orc == FL_MPFR_ESELF)
        FZ_FAIL("oracle self-check failed: %s %s%s%s x=%" PRIx64 ",%" PRIx64
                ",%" PRIx64 " rm %d: %" PRIx64 " vs %" PRIx64, opname(op), fd,
                gd[0] ? " from " : "", gd, x[0], x[1], x[2], c.rm, m.bits,
                m.check_bits);

    unsigned ieee = fl & FL_IEEE_FLAGS;
    int same_val = (!is_int && m.is_nan) ? fl_is_nan(fres, got)
                                         : got == m.bits;
    /* The ternary is meaningful for numeric results only (an exact
     * infinity replaced by the largest finite value counts as below it). */
    int tern = fl_ternary(fl);
    int same_tern = m.is_nan || is_int || tern == m.ternary;
    if (!same_val || ieee != m.flags || !same_tern)
        FZ_FAIL("core vs MPFR: %s in %s%s%s%s, rm %s tininess %s ftz %d daz "
                "%d saturate %d nan %s%s%s, operands 0x%" PRIx64 " 0x%"
                PRIx64 " 0x%" PRIx64 ": core 0x%" PRIx64 " flags %02x "
                "ternary %d, MPFR 0x%" PRIx64 "%s flags %02x ternary %d",
                opname(op), fd, gd[0] ? " from " : "", gd,
                op >= OP_FROM_INT ? (is_signed ? " signed" : " unsigned") : "",
                fl_rm_name(c.rm), c.tininess ? "before" : "after", c.ftz,
                c.daz, c.saturate, fl_nan_preset_name(c.nan),
                op >= OP_FROM_INT ? (width == 32 ? " int32" : " int64") : "",
                exact ? " exact" : "", x[0], x[1], x[2], got, ieee, tern,
                m.bits, m.is_nan ? " (nan)" : "", m.flags, m.ternary);
    return 0;
}
