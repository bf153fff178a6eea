/*
 * testfloat.c — Berkeley TestFloat's function names over fl_op_eval
 * (fplab/ops.h): "F_op", "F_to_F", "F_to_I[_r_minMag]", "I_to_F", their
 * evaluation as testfloat_gen prints results, and TestFloat's rules for
 * judging a result.
 */
#include <stdio.h>
#include <string.h>

#include "fplab/ops.h"

#define COUNT(a) (sizeof a / sizeof a[0])

static const struct {
    const char *name;
    const fl_format *f;
} tf_formats[] = {
    {"f16", &fl_binary16}, {"bf16", &fl_bfloat16},
    {"f32", &fl_binary32}, {"f64", &fl_binary64},
};

static const struct {
    const char *name;
    fl_op_type type;
} tf_ints[] = {
    {"i32", FL_OPT_I32}, {"ui32", FL_OPT_U32},
    {"i64", FL_OPT_I64}, {"ui64", FL_OPT_U64},
};

/* F_<name>: operands and result in F (predicates: a boolean result) */
static const struct {
    const char *name;
    fl_opcode op;
    int nin;
    int out_bool;
} tf_arith[] = {
    {"add", FL_OP_ADD, 2, 0},          {"sub", FL_OP_SUB, 2, 0},
    {"mul", FL_OP_MUL, 2, 0},          {"div", FL_OP_DIV, 2, 0},
    {"rem", FL_OP_REM, 2, 0},          {"sqrt", FL_OP_SQRT, 1, 0},
    {"mulAdd", FL_OP_FMA, 3, 0},       {"roundToInt", FL_OP_RINT, 1, 0},
    {"eq", FL_OP_EQ, 2, 1},            {"le", FL_OP_LE, 2, 1},
    {"lt", FL_OP_LT, 2, 1},
    {"eq_signaling", FL_OP_EQ_SIGNALING, 2, 1},
    {"le_quiet", FL_OP_LE_QUIET, 2, 1},
    {"lt_quiet", FL_OP_LT_QUIET, 2, 1},
};

/* The conversions between integer types and formats, by opcode. */
static const fl_opcode tf_to_int[] = {FL_OP_TO_I32, FL_OP_TO_U32,
                                      FL_OP_TO_I64, FL_OP_TO_U64};
static const fl_opcode tf_from_int[] = {FL_OP_FROM_I32, FL_OP_FROM_U32,
                                        FL_OP_FROM_I64, FL_OP_FROM_U64};

static const fl_format *format_by_short(const char *s, size_t n)
{
    for (size_t i = 0; i < COUNT(tf_formats); i++)
        if (strlen(tf_formats[i].name) == n &&
            !strncmp(tf_formats[i].name, s, n))
            return tf_formats[i].f;
    return NULL;
}

/* index into tf_ints, or -1 */
static int int_by_short(const char *s, size_t n)
{
    for (size_t i = 0; i < COUNT(tf_ints); i++)
        if (strlen(tf_ints[i].name) == n && !strncmp(tf_ints[i].name, s, n))
            return (int)i;
    return -1;
}

int fl_testfloat_parse(const char *name, fl_testfloat_func *fn)
{
    memset(fn, 0, sizeof *fn);
    const char *us = name != NULL ? strchr(name, '_') : NULL;
    if (us == NULL)
        return -1;
    const size_t n1 = (size_t)(us - name);
    const char *rest = us + 1;
    const fl_format *f1 = format_by_short(name, n1);
    const int i1 = int_by_short(name, n1);

    if (!strncmp(rest, "to_", 3)) {
        const char *tgt = rest + 3;
        size_t n2 = strlen(tgt);
        int min_mag = 0;
        const char *suf = strstr(tgt, "_r_minMag");
        if (suf != NULL && suf[9] == '\0') {
            n2 = (size_t)(suf - tgt);
            min_mag = 1;
        }
        const fl_format *f2 = format_by_short(tgt, n2);
        const int i2 = int_by_short(tgt, n2);
        fn->nin = 1;
        fn->min_mag = min_mag;
        if (f1 && f2 && !min_mag && f1 != f2) {
            fn->op = FL_OP_CONVERT;
            fn->in = fn->out = FL_OPT_FLOAT;
            fn->fin = f1;
            fn->fout = f2;
            return 0;
        }
        if (f1 && i2 >= 0) {
            fn->op = tf_to_int[i2];
            fn->in = FL_OPT_FLOAT;
            fn->out = tf_ints[i2].type;
            fn->fin = f1;
            return 0;
        }
        if (i1 >= 0 && f2 && !min_mag) {
            fn->op = tf_from_int[i1];
            fn->in = tf_ints[i1].type;
            fn->out = FL_OPT_FLOAT;
            fn->fout = f2;
            return 0;
        }
        memset(fn, 0, sizeof *fn);
        return -1;
    }
    if (f1 == NULL)
        return -1;
    for (size_t i = 0; i < COUNT(tf_arith); i++) {
        if (strcmp(rest, tf_arith[i].name) != 0)
            continue;
        fn->op = tf_arith[i].op;
        fn->nin = tf_arith[i].nin;
        fn->in = FL_OPT_FLOAT;
        fn->out = tf_arith[i].out_bool ? FL_OPT_BOOL : FL_OPT_FLOAT;
        fn->fin = fn->fout = f1;
        return 0;
    }
    return -1;
}

/* The names, in this order: F_op (formats x tf_arith), F_to_F (ordered
 * pairs of different formats), F_to_I then F_to_I_r_minMag (formats x
 * integer types), I_to_F (integer types x formats). */
enum {
    N_F = COUNT(tf_formats), N_I = COUNT(tf_ints), N_A = COUNT(tf_arith),
    N_ARITH = N_F * N_A, N_CONV = N_F * (N_F - 1), N_TOINT = 2 * N_F * N_I,
    N_FROMINT = N_I * N_F
};

size_t fl_testfloat_count(void)
{
    return N_ARITH + N_CONV + N_TOINT + N_FROMINT;
}

int fl_testfloat_name(size_t i, char *buf, size_t len)
{
    int n;
    if (i < N_ARITH) {
        n = snprintf(buf, len, "%s_%s", tf_formats[i / N_A].name,
                     tf_arith[i % N_A].name);
    } else if ((i -= N_ARITH) < N_CONV) {
        const size_t a = i / (N_F - 1), b0 = i % (N_F - 1);
        const size_t b = b0 + (b0 >= a);    /* skip a itself */
        n = snprintf(buf, len, "%s_to_%s", tf_formats[a].name,
                     tf_formats[b].name);
    } else if ((i -= N_CONV) < N_TOINT) {
        const size_t mm = i / (N_F * N_I), r = i % (N_F * N_I);
        n = snprintf(buf, len, "%s_to_%s%s", tf_formats[r / N_I].name,
                     tf_ints[r % N_I].name, mm ? "_r_minMag" : "");
    } else if ((i -= N_TOINT) < N_FROMINT) {
        n = snprintf(buf, len, "%s_to_%s", tf_ints[i / N_F].name,
                     tf_formats[i % N_F].name);
    } else {
        return -1;
    }
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int type_digits(fl_op_type t, const fl_format *f)
{
    switch (t) {
    case FL_OPT_FLOAT: return (f->width + 3) / 4;
    case FL_OPT_I32: case FL_OPT_U32: return 8;
    case FL_OPT_I64: case FL_OPT_U64: return 16;
    default: return 1;
    }
}

int fl_testfloat_digits(const fl_testfloat_func *fn, int result)
{
    return result ? type_digits(fn->out, fn->fout)
                  : type_digits(fn->in, fn->fin);
}

const char *fl_testfloat_type_name(const fl_testfloat_func *fn, int result)
{
    const fl_op_type t = result ? fn->out : fn->in;
    switch (t) {
    case FL_OPT_FLOAT: return result ? fn->fout->name : fn->fin->name;
    case FL_OPT_I32: return "int32";
    case FL_OPT_U32: return "uint32";
    case FL_OPT_I64: return "int64";
    case FL_OPT_U64: return "uint64";
    default: return "boolean";
    }
}

uint64_t fl_testfloat_eval(const fl_testfloat_func *fn, const uint64_t *in,
                           int exact, const fl_ctx *c, unsigned *flags)
{
    fl_ctx cc = *c;
    if (fn->min_mag)
        cc.rm = FL_RTZ;
    /* the operation's format: the result's when the result is a float
     * (arithmetic, F_to_F, I_to_F), else the operands' */
    const fl_format *f = fn->out == FL_OPT_FLOAT ? fn->fout : fn->fin;
    return fl_op_eval(fn->op, f, fn->fin, in, exact, &cc, flags);
}

/* TestFloat's tolerance for invalid integer results: the type's largest
 * or smallest value, or 0 for a NaN operand. */
static int inv_int_ok(const fl_testfloat_func *fn, const uint64_t *in,
                      uint64_t got)
{
    uint64_t max, min;
    switch (fn->out) {
    case FL_OPT_I32: max = 0x7FFFFFFF; min = 0x80000000; break;
    case FL_OPT_U32: max = 0xFFFFFFFF; min = 0; break;
    case FL_OPT_I64:
        max = UINT64_C(0x7FFFFFFFFFFFFFFF);
        min = UINT64_C(0x8000000000000000);
        break;
    default: max = UINT64_MAX; min = 0; break;
    }
    return got == max || got == min ||
           (got == 0 && fl_is_nan(fn->fin, in[0]));
}

int fl_testfloat_match(const fl_testfloat_func *fn, const uint64_t *in,
                       uint64_t want, unsigned want_flags, uint64_t got,
                       unsigned got_flags, unsigned options)
{
    want_flags &= FL_IEEE_FLAGS;
    got_flags &= FL_IEEE_FLAGS;
    int ok;
    if (fn->out == FL_OPT_FLOAT && !(options & FL_TF_CHECK_NANS) &&
        fl_is_nan(fn->fout, want) && fl_is_nan(fn->fout, got))
        ok = got_flags == want_flags;
    else
        ok = got == want && got_flags == want_flags;
    if (!ok && !(options & FL_TF_CHECK_INV_INTS) &&
        fn->out != FL_OPT_FLOAT && fn->out != FL_OPT_BOOL &&
        want_flags == FL_INVALID && got_flags == FL_INVALID &&
        inv_int_ok(fn, in, got))
        ok = 1;
    return ok;
}
