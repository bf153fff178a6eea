/*
 * test_ops.c — the operations by name (fplab/ops.h): calc's table and
 * TestFloat's function names, checked value and flags.
 *
 *   1. the tables: every row found by its name, names unique, the counts;
 *   2. worked cases through fl_op_calc (text in, value and flags out),
 *      each worked out by hand from the format's definition, and the
 *      messages of bad operands;
 *   3. every row of calc's table on random operands of several formats
 *      against the core's own call for that operation (predicates against
 *      fl_compare's relation and the IEEE invalid rule);
 *   4. TestFloat: every name parsed, bad names refused, worked lines
 *      (value and flags) and the rules of fl_testfloat_match.
 *
 * Counted checks (tc_finish): a loop that stops early fails.  Random
 * operands: FPLAB_TEST_SEED replays.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fplab/ops.h"
#include "test_common.h"

#define N_CALC_OPS 42        /* rows of calc's table */
#define N_TF_FUNCS 116       /* 4*14 + 4*3 + 2*4*4 + 4*4 */
#define RANDOM_PER_ROW 200

/* ---- 1. the tables ---------------------------------------------------- */
static void tables(void)
{
    CHECK(fl_op_count() == N_CALC_OPS, "fl_op_count %zu", fl_op_count());
    CHECK(fl_op_at(fl_op_count()) == NULL, "row past the end");
    CHECK(fl_op_find("nosuch") == NULL && fl_op_find(NULL) == NULL &&
          fl_op_find("ADD") == NULL, "unknown names");
    int rows_ok = 0;
    for (size_t i = 0; i < fl_op_count(); i++) {
        const fl_op *op = fl_op_at(i);
        int unique = 1;
        for (size_t j = 0; j < i; j++)
            unique &= strcmp(fl_op_at(j)->name, op->name) != 0;
        rows_ok += fl_op_find(op->name) == op && unique && op->nin >= 1 &&
                   op->nin <= FL_OP_MAX_IN && op->code < FL_OPCODE_COUNT &&
                   op->help != NULL && op->help[0] != '\0';
    }
    CHECK(rows_ok == N_CALC_OPS, "%d of %d rows found by name, unique, "
          "sane", rows_ok, N_CALC_OPS);
    /* aliases share the opcode */
    CHECK(fl_op_find("min")->code == fl_op_find("minimum")->code &&
          fl_op_find("maxnum")->code == FL_OP_MAXIMUM_NUMBER, "aliases");

    CHECK(fl_testfloat_count() == N_TF_FUNCS, "fl_testfloat_count %zu",
          fl_testfloat_count());
    int names_ok = 0;
    char prev[N_TF_FUNCS][32];
    for (size_t i = 0; i < fl_testfloat_count() && i < N_TF_FUNCS; i++) {
        fl_testfloat_func fn;
        int ok = fl_testfloat_name(i, prev[i], sizeof prev[i]) == 0 &&
                 fl_testfloat_parse(prev[i], &fn) == 0;
        for (size_t j = 0; j < i; j++)
            ok &= strcmp(prev[i], prev[j]) != 0;
        names_ok += ok;
    }
    CHECK(names_ok == N_TF_FUNCS, "%d of %d TestFloat names parse back, "
          "unique", names_ok, N_TF_FUNCS);
    char small[4];
    CHECK(fl_testfloat_name(N_TF_FUNCS, prev[0], sizeof prev[0]) == -1 &&
          fl_testfloat_name(0, small, sizeof small) == -1,
          "name past the end / buffer too small");
    static const char *const bad[] = {
        "f8_add", "f16_to_f16", "i32_to_i64", "f16_add_r_minMag",
        "i32_to_f16_r_minMag", "f16_to_f32_r_minMag", "f16", "add", "",
        "f16_to_", "f16_to_i32_r_minMagx", "F16_add"};
    int refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fl_testfloat_func fn;
        refused += fl_testfloat_parse(bad[i], &fn) == -1;
    }
    CHECK(refused == (int)(sizeof bad / sizeof bad[0]), "%d bad names "
          "refused", refused);
}

/* ---- 2. worked cases through fl_op_calc ------------------------------- */
typedef struct calc_case {
    const char *fmt, *op, *a, *b, *c;
    const char *from;        /* convert's source format */
    int rm, nan, saturate, exact;
    uint64_t value;
    unsigned flags;          /* IEEE flags of the operation */
    unsigned read0;          /* IEEE flags of reading operand 1 */
} calc_case;

#define I FL_INEXACT
#define U FL_UNDERFLOW
#define O FL_OVERFLOW
#define Z FL_DIVBYZERO
#define V FL_INVALID
static const calc_case calc_cases[] = {
    /* 1 + 2^-11 is the tie between 1 and 1 + 2^-10: even is 1 */
    {"fp16", "add", "1", "0x1p-11", 0, 0, FL_RNE, 0, 0, 0, 0x3C00, I, 0},
    {"fp16", "add", "1", "0x1p-11", 0, 0, FL_RUP, 0, 0, 0, 0x3C01, I, 0},
    /* 2^-25 is the tie between 0 and 2^-24 */
    {"fp16", "mul", "0x1p-24", "0.5", 0, 0, FL_RNE, 0, 0, 0, 0x0000, I | U, 0},
    {"fp16", "div", "1", "-0", 0, 0, FL_RNE, 0, 0, 0, 0xFC00, Z, 0},
    /* sqrt(-1): CUDA's canonical NaN is all ones but the sign */
    {"fp16", "sqrt", "-1", 0, 0, 0, FL_RNE, FL_NANP_CUDA, 0, 0, 0x7FFF, V, 0},
    {"fp16", "sqrt", "-1", 0, 0, 0, FL_RNE, FL_NANP_X86, 0, 0, 0xFE00, V, 0},
    /* 500 > 448 = E4M3's largest: saturated */
    {"fp8-e4m3", "round", "500", 0, 0, 0, FL_RNE, 0, 1, 0, 0x7E, I | O, 0},
    /* round reads in the mode: 0.1 toward zero in binary16 is 0x2E66 */
    {"fp16", "round", "0.1", 0, 0, 0, FL_RTZ, 0, 0, 0, 0x2E66, I, 0},
    {"fp16", "round", "bits:0x7d00", 0, 0, 0, FL_RNE, 0, 0, 0, 0x7F00, V, 0},
    /* 0.1 is read to nearest: 0x2E66 = 1638 * 2^-14, below 0.1; times 10
     * it is 1 - 2^-12, the tie between 0x3BFF and 1: even is 1 */
    {"fp16", "mul", "0.1", "10", 0, 0, FL_RNE, 0, 0, 0, 0x3C00, I, I},
    {"fp16", "fma", "2", "3", "-6", 0, FL_RNE, 0, 0, 0, 0x0000, 0, 0},
    {"fp16", "fma", "2", "3", "-6", 0, FL_RDN, 0, 0, 0, 0x8000, 0, 0},
    {"fp16", "rint", "2.5", 0, 0, 0, FL_RNE, 0, 0, 0, 0x4000, 0, 0},
    {"fp16", "rint", "2.5", 0, 0, 0, FL_RNE, 0, 0, 1, 0x4000, I, 0},
    {"fp16", "rint-exact", "2.5", 0, 0, 0, FL_RUP, 0, 0, 0, 0x4200, I, 0},
    {"fp16", "min", "-0", "0", 0, 0, FL_RNE, 0, 0, 0, 0x8000, 0, 0},
    {"fp16", "minnum", "nan", "3", 0, 0, FL_RNE, 0, 0, 0, 0x4200, 0, 0},
    /* "snan" reads as 0x7C01 (payload 1): x86 returns it quieted */
    {"fp16", "max", "snan", "3", 0, 0, FL_RNE, 0, 0, 0, 0x7E01, V, 0},
    {"fp16", "nextup", "-0", 0, 0, 0, FL_RNE, 0, 0, 0, 0x0001, 0, 0},
    {"fp16", "nextdown", "inf", 0, 0, 0, FL_RNE, 0, 0, 0, 0x7BFF, 0, 0},
    {"fp16", "rem", "5", "3", 0, 0, FL_RNE, 0, 0, 0, 0xBC00, 0, 0},
    {"fp16", "convert", "0x1.002p0", 0, 0, "fp32", FL_RNE, 0, 0, 0,
     0x3C00, I, 0},
    {"fp16", "gt", "1", "2", 0, 0, FL_RNE, 0, 0, 0, 0, 0, 0},
    {"fp16", "ge", "2", "2", 0, 0, FL_RNE, 0, 0, 0, 1, 0, 0},
    {"fp16", "gt", "nan", "2", 0, 0, FL_RNE, 0, 0, 0, 0, V, 0},
    {"fp16", "gt_quiet", "nan", "2", 0, 0, FL_RNE, 0, 0, 0, 0, 0, 0},
    {"fp16", "eq", "-0", "0", 0, 0, FL_RNE, 0, 0, 0, 1, 0, 0},
    {"fp16", "compare", "nan", "1", 0, 0, FL_RNE, 0, 0, 0, FL_CMP_UN, 0, 0},
    {"fp16", "compare_signaling", "nan", "1", 0, 0, FL_RNE, 0, 0, 0,
     FL_CMP_UN, V, 0},
    {"fp16", "compare", "1", "2", 0, 0, FL_RNE, 0, 0, 0, FL_CMP_LT, 0, 0},
    {"fp16", "class", "-0", 0, 0, 0, FL_RNE, 0, 0, 0, FL_CLASS_NEG_ZERO, 0,
     0},
    {"fp16", "class", "bits:0x0001", 0, 0, 0, FL_RNE, 0, 0, 0,
     FL_CLASS_POS_SUBNORMAL, 0, 0},
    /* -1.5 to nearest even is -2: two's complement 0xFFFFFFFE */
    {"fp16", "to_i32", "-1.5", 0, 0, 0, FL_RNE, 0, 0, 0, 0xFFFFFFFEu, 0, 0},
    {"fp16", "to_i32", "-1.5", 0, 0, 0, FL_RNE, 0, 0, 1, 0xFFFFFFFEu, I, 0},
    {"fp16", "to_u32", "-1", 0, 0, 0, FL_RNE, 0, 0, 0, 0xFFFFFFFFu, V, 0},
    {"fp16", "to_i64", "-2", 0, 0, 0, FL_RNE, 0, 0, 0,
     UINT64_C(0xFFFFFFFFFFFFFFFE), 0, 0},
    {"fp16", "from_i32", "-1", 0, 0, 0, FL_RNE, 0, 0, 0, 0xBC00, 0, 0},
    {"fp16", "from_u64", "0xffffffffffffffff", 0, 0, 0, FL_RNE, 0, 0, 0,
     0x7C00, I | O, 0},
    {"fp16", "from_i64", "-9223372036854775808", 0, 0, 0, FL_RNE, 0, 0, 0,
     0xFC00, I | O, 0},
    /* an operand that overflows on reading: read flags, not the op's */
    {"fp16", "add", "1e99999", "1", 0, 0, FL_RNE, 0, 0, 0, 0x7C00, 0, I | O},
};

static void calc_worked(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof calc_cases / sizeof calc_cases[0]; i++) {
        const calc_case *t = &calc_cases[i];
        fl_format f, src;
        char err[256] = "";
        const fl_op *op = fl_op_find(t->op);
        if (op == NULL || fl_format_parse(&f, t->fmt, err, sizeof err) != 0 ||
            (t->from && fl_format_parse(&src, t->from, err, sizeof err))) {
            CHECK(0, "case %zu: setup (%s)", i, err);
            continue;
        }
        fl_ctx c = fl_ctx_make(t->rm);
        c.nan = (uint8_t)t->nan;
        c.saturate = (uint8_t)t->saturate;
        const char *text[3] = {t->a, t->b, t->c};
        fl_op_result r;
        int rc = fl_op_calc(op, text, &f, t->from ? &src : NULL, t->exact, &c,
                            &r, err, sizeof err);
        CHECK(rc == 0 && r.value == t->value &&
              (r.flags & FL_IEEE_FLAGS) == t->flags &&
              (r.read_flags[0] & FL_IEEE_FLAGS) == t->read0 &&
              r.nread == op->nin,
              "%s %s %s %s %s (%s): got rc %d 0x%" PRIx64 " flags %#x read "
              "%#x nread %d, want 0x%" PRIx64 " flags %#x read %#x [%s]",
              t->fmt, t->op, t->a, t->b ? t->b : "", t->c ? t->c : "",
              fl_rm_name(t->rm), rc, r.value, r.flags & FL_IEEE_FLAGS,
              r.read_flags[0] & FL_IEEE_FLAGS, r.nread, t->value, t->flags,
              t->read0, err);
        n++;
    }
    CHECK(n == (int)(sizeof calc_cases / sizeof calc_cases[0]), "ran %d", n);
}

typedef struct bad_case {
    const char *fmt, *op, *a, *b;
    int nread;           /* operands read before the bad one */
    const char *msg;     /* the whole message */
} bad_case;

static const bad_case bad_cases[] = {
    {"fp16", "add", "1", "1.2.3", 1, "operand 2 '1.2.3' is not a number "
     "(decimal, hex-float like -0x1.8p-14, inf, nan, snan, or bits:0xHEX)"},
    {"fp16", "add", "bits:0x10000", "1", 0,
     "operand 1 'bits:0x10000' does not fit in binary16 (16 bits)"},
    {"fp16", "add", "bits:0xzz", "1", 0, "operand 1 'bits:0xzz': not a bit "
     "pattern (bits:0xHEX, bits:0bBINARY or bits:DECIMAL)"},
    {"fp64", "add", "bits:18446744073709551616", "1", 0,
     "operand 1 'bits:18446744073709551616': not a bit pattern (bits:0xHEX, "
     "bits:0bBINARY or bits:DECIMAL)"},
    {"fp16", "from_i32", "4294967296", 0, 0,
     "operand 1 '4294967296' is out of range for int32"},
    {"fp16", "from_u64", "-1", 0, 0,
     "operand 1 '-1' is out of range for uint64"},
    {"fp16", "from_i32", "12x", 0, 0, "operand 1 '12x' is not an integer "
     "(decimal or 0x-hex, optional '-')"},
    {"fp16", "round", "x", 0, 0, "operand 1 'x' is not a number (decimal, "
     "hex-float, inf, nan, snan, or bits:0xHEX)"},
    {"fp16", "convert", "1", 0, 0,
     "convert needs the operand's format (a source format)"},
};

static void calc_bad(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *t = &bad_cases[i];
        const fl_op *op = fl_op_find(t->op);
        const fl_format *f = fl_format_by_name(t->fmt);
        const fl_ctx c = FL_CTX_INIT;
        const char *text[3] = {t->a, t->b, NULL};
        fl_op_result r;
        char err[256] = "";
        int rc = fl_op_calc(op, text, f, NULL, 0, &c, &r, err, sizeof err);
        CHECK(rc == -1 && r.nread == t->nread && !strcmp(err, t->msg),
              "%s %s %s: rc %d nread %d message [%s], want [%s]", t->fmt,
              t->op, t->a, rc, r.nread, err, t->msg);
        n++;
    }
    CHECK(n == (int)(sizeof bad_cases / sizeof bad_cases[0]), "ran %d", n);
}

/* ---- 3. every row against the core ------------------------------------ */
static uint64_t rnd_bits(uint64_t *s, const fl_format *f)
{
    const uint64_t r = tc_splitmix(s);
    /* a quarter of the operands special: zeros, infinities, NaNs, max */
    switch (r & 7) {
    case 0: return (r >> 8) & 1 ? f->sign_mask : 0;
    case 1: return f->exp_mask | ((r >> 8) & 1 ? f->sign_mask : 0);
    default: break;
    }
    return f->width < 64 ? (r >> 3) & ((UINT64_C(1) << f->width) - 1)
                         : tc_splitmix(s);
}

/* The core's call for row op, independently of fl_op_eval: predicates
 * from fl_compare's relation, with invalid for any NaN (signaling
 * predicates) or a signaling NaN (quiet ones). */
static uint64_t reference(const fl_op *op, const fl_format *f,
                          const uint64_t *x, int exact, const fl_ctx *c,
                          unsigned *fl)
{
    unsigned ignored = 0;
    const int rel = fl_compare(f, x[0], x[1], 0, c, &ignored);
    const int any_nan = fl_is_nan(f, x[0]) || fl_is_nan(f, x[1]);
    const int snan = fl_is_snan(f, x[0]) || fl_is_snan(f, x[1]);
    switch (op->code) {
    case FL_OP_EQ: *fl |= snan ? FL_INVALID : 0; return rel == FL_CMP_EQ;
    case FL_OP_EQ_SIGNALING:
        *fl |= any_nan ? FL_INVALID : 0; return rel == FL_CMP_EQ;
    case FL_OP_LT: *fl |= any_nan ? FL_INVALID : 0; return rel == FL_CMP_LT;
    case FL_OP_LE:
        *fl |= any_nan ? FL_INVALID : 0;
        return rel == FL_CMP_LT || rel == FL_CMP_EQ;
    case FL_OP_GT: *fl |= any_nan ? FL_INVALID : 0; return rel == FL_CMP_GT;
    case FL_OP_GE:
        *fl |= any_nan ? FL_INVALID : 0;
        return rel == FL_CMP_GT || rel == FL_CMP_EQ;
    case FL_OP_LT_QUIET: *fl |= snan ? FL_INVALID : 0; return rel == FL_CMP_LT;
    case FL_OP_LE_QUIET:
        *fl |= snan ? FL_INVALID : 0;
        return rel == FL_CMP_LT || rel == FL_CMP_EQ;
    case FL_OP_GT_QUIET: *fl |= snan ? FL_INVALID : 0; return rel == FL_CMP_GT;
    case FL_OP_GE_QUIET:
        *fl |= snan ? FL_INVALID : 0;
        return rel == FL_CMP_GT || rel == FL_CMP_EQ;
    case FL_OP_COMPARE:
        *fl |= snan ? FL_INVALID : 0; return (uint64_t)rel;
    case FL_OP_COMPARE_SIGNALING:
        *fl |= any_nan ? FL_INVALID : 0; return (uint64_t)rel;
    case FL_OP_ADD: return fl_add(f, x[0], x[1], c, fl);
    case FL_OP_SUB: return fl_sub(f, x[0], x[1], c, fl);
    case FL_OP_MUL: return fl_mul(f, x[0], x[1], c, fl);
    case FL_OP_DIV: return fl_div(f, x[0], x[1], c, fl);
    case FL_OP_REM: return fl_rem(f, x[0], x[1], c, fl);
    case FL_OP_FMA: return fl_fma(f, x[0], x[1], x[2], c, fl);
    case FL_OP_SQRT: return fl_sqrt(f, x[0], c, fl);
    case FL_OP_RINT: return fl_rint(f, x[0], exact, c, fl);
    case FL_OP_RINT_EXACT: return fl_rint(f, x[0], 1, c, fl);
    case FL_OP_MINIMUM: return fl_minimum(f, x[0], x[1], c, fl);
    case FL_OP_MAXIMUM: return fl_maximum(f, x[0], x[1], c, fl);
    case FL_OP_MINIMUM_NUMBER: return fl_minimum_number(f, x[0], x[1], c, fl);
    case FL_OP_MAXIMUM_NUMBER: return fl_maximum_number(f, x[0], x[1], c, fl);
    case FL_OP_NEXT_UP: return fl_next_up(f, x[0], c, fl);
    case FL_OP_NEXT_DOWN: return fl_next_down(f, x[0], c, fl);
    case FL_OP_ROUND: return fl_convert(f, f, x[0], c, fl);
    case FL_OP_CONVERT: return fl_convert(f, &fl_binary32, x[0], c, fl);
    case FL_OP_CLASS: return (uint64_t)fl_classify(f, x[0]);
    case FL_OP_TO_I32: return (uint32_t)fl_to_i32(f, x[0], exact, c, fl);
    case FL_OP_TO_U32: return fl_to_u32(f, x[0], exact, c, fl);
    case FL_OP_TO_I64: return (uint64_t)fl_to_i64(f, x[0], exact, c, fl);
    case FL_OP_TO_U64: return fl_to_u64(f, x[0], exact, c, fl);
    case FL_OP_FROM_I32: return fl_from_i32(f, (int32_t)x[0], c, fl);
    case FL_OP_FROM_U32: return fl_from_u32(f, (uint32_t)x[0], c, fl);
    case FL_OP_FROM_I64: return fl_from_i64(f, (int64_t)x[0], c, fl);
    case FL_OP_FROM_U64: return fl_from_u64(f, x[0], c, fl);
    default: return ~(uint64_t)0;
    }
}

static void rows_against_core(uint64_t seed)
{
    static const char *const fmts[] = {"binary16", "bfloat16", "binary32",
                                       "fp8-e4m3", "float8_e8m0fnu"};
    int rows = 0;
    long cases = 0, bad = 0;
    for (size_t i = 0; i < fl_op_count(); i++) {
        const fl_op *op = fl_op_at(i);
        for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
            const fl_format *f = tc_fmt(fmts[k]);
            uint64_t s = seed ^ (i * 131 + k);
            for (int n = 0; n < RANDOM_PER_ROW; n++) {
                uint64_t x[3];
                for (int j = 0; j < 3; j++) {
                    x[j] = op->in == FL_OPT_SOURCE
                               ? rnd_bits(&s, &fl_binary32)
                           : op->in == FL_OPT_FLOAT ? rnd_bits(&s, f)
                                                    : tc_splitmix(&s);
                    if (op->in == FL_OPT_I32 || op->in == FL_OPT_U32)
                        x[j] &= 0xFFFFFFFFu;
                }
                fl_ctx c = fl_ctx_make(tc_modes[n % 6]);
                const int exact = n & 1;
                unsigned fa = 0, fb = 0;
                uint64_t a = fl_op_eval(op->code, f, &fl_binary32, x, exact,
                                        &c, &fa);
                uint64_t b = reference(op, f, x, exact, &c, &fb);
                cases++;
                if (a != b || (fa & FL_IEEE_FLAGS) != (fb & FL_IEEE_FLAGS)) {
                    if (bad++ < 5)
                        fprintf(stderr, "%s %s 0x%" PRIx64 " 0x%" PRIx64
                                " 0x%" PRIx64 " %s: 0x%" PRIx64 " %#x, "
                                "core 0x%" PRIx64 " %#x\n", op->name,
                                f->name, x[0], x[1], x[2],
                                fl_rm_name(c.rm), a, fa, b, fb);
                }
            }
        }
        rows++;
    }
    CHECK(rows == N_CALC_OPS && cases == (long)N_CALC_OPS * 5 * RANDOM_PER_ROW
          && bad == 0, "%d rows, %ld cases, %ld differ from the core", rows,
          cases, bad);
    /* an opcode outside the table */
    unsigned fl = 0;
    const uint64_t x[3] = {0, 0, 0};
    const fl_ctx c = FL_CTX_INIT;
    CHECK(fl_op_eval(FL_OPCODE_COUNT, &fl_binary16, NULL, x, 0, &c, &fl) == 0
          && fl == FL_INVALID, "opcode out of range");
}

/* ---- 4. TestFloat ----------------------------------------------------- */
typedef struct tf_case {
    const char *func;
    uint64_t in[3];
    int rm, exact;
    uint64_t want;
    unsigned flags;
} tf_case;

static const tf_case tf_cases[] = {
    /* testfloat_gen's own example line: f16_add 87FF E850 E850 01 */
    {"f16_add", {0x87FF, 0xE850}, FL_RNE, 0, 0xE850, I},
    {"f16_mulAdd", {0x3C00, 0x3C00, 0x3C00}, FL_RNE, 0, 0x4000, 0},
    /* SoftFloat's default NaN for the 8086-SSE rules: FE00 */
    {"f16_sqrt", {0xBC00}, FL_RNE, 0, 0xFE00, V},
    {"bf16_mul", {0x3F80, 0x3F80}, FL_RNE, 0, 0x3F80, 0},
    {"f32_to_f16", {0x33000000}, FL_RNE, 0, 0x0000, I | U},   /* 2^-25 */
    {"f16_to_f64", {0x3C01}, FL_RNE, 0, 0x3FF0040000000000, 0},
    {"f64_to_bf16", {0x3FF0100000000000}, FL_RNE, 0, 0x3F80, I},
    /* 1.5: to nearest 2, toward zero 1 (minMag whatever the mode) */
    {"f32_to_i32", {0x3FC00000}, FL_RNE, 0, 2, 0},
    {"f32_to_i32", {0x3FC00000}, FL_RNE, 1, 2, I},
    {"f32_to_i32_r_minMag", {0x3FC00000}, FL_RUP, 1, 1, I},
    {"f32_to_ui64_r_minMag", {0xBF000000}, FL_RNE, 1, 0, I},   /* -0.5 */
    {"f16_to_i64", {0xC000}, FL_RNE, 0, UINT64_C(0xFFFFFFFFFFFFFFFE), 0},
    {"i32_to_f16", {0xFFFFFFFF}, FL_RNE, 0, 0xBC00, 0},
    {"ui32_to_bf16", {0xFFFFFFFF}, FL_RNE, 0, 0x4F80, I},
    {"i64_to_f32", {0x8000000000000000}, FL_RNE, 0, 0xDF000000, 0},
    {"f16_roundToInt", {0x4100}, FL_RNE, 0, 0x4000, 0},       /* 2.5 */
    {"f16_roundToInt", {0x4100}, FL_RNE, 1, 0x4000, I},
    {"f16_lt", {0x3C00, 0x4000}, FL_RNE, 0, 1, 0},
    {"f16_le_quiet", {0x7E00, 0x4000}, FL_RNE, 0, 0, 0},
    {"f16_le", {0x7E00, 0x4000}, FL_RNE, 0, 0, V},
    {"f16_eq_signaling", {0x0000, 0x8000}, FL_RNE, 0, 1, 0},
    {"f16_rem", {0x4500, 0x4200}, FL_RNE, 0, 0xBC00, 0},      /* 5 rem 3 */
};

static void testfloat_worked(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof tf_cases / sizeof tf_cases[0]; i++) {
        const tf_case *t = &tf_cases[i];
        fl_testfloat_func fn;
        fl_ctx c = fl_ctx_make(t->rm);
        c.nan = FL_NANP_SOFTFLOAT;
        unsigned fl = 0;
        int rc = fl_testfloat_parse(t->func, &fn);
        uint64_t got = rc == 0 ? fl_testfloat_eval(&fn, t->in, t->exact, &c,
                                                   &fl) : 0;
        CHECK(rc == 0 && got == t->want && (fl & FL_IEEE_FLAGS) == t->flags &&
              fl_testfloat_match(&fn, t->in, t->want, t->flags, got, fl, 0),
              "%s %" PRIx64 " %s exact %d: got %" PRIx64 " %02X, want %"
              PRIx64 " %02X", t->func, t->in[0], fl_rm_name(t->rm), t->exact,
              got, fl & FL_IEEE_FLAGS, t->want, t->flags);
        n++;
    }
    CHECK(n == (int)(sizeof tf_cases / sizeof tf_cases[0]), "ran %d", n);

    /* field widths and type names of the lines */
    fl_testfloat_func a, b, d;
    fl_testfloat_parse("f16_add", &a);
    fl_testfloat_parse("f64_to_ui32", &b);
    fl_testfloat_parse("i64_to_bf16", &d);
    CHECK(fl_testfloat_digits(&a, 0) == 4 && fl_testfloat_digits(&a, 1) == 4 &&
          fl_testfloat_digits(&b, 0) == 16 && fl_testfloat_digits(&b, 1) == 8 &&
          fl_testfloat_digits(&d, 0) == 16 && fl_testfloat_digits(&d, 1) == 4,
          "digits");
    CHECK(!strcmp(fl_testfloat_type_name(&a, 1), "binary16") &&
          !strcmp(fl_testfloat_type_name(&b, 1), "uint32") &&
          !strcmp(fl_testfloat_type_name(&d, 0), "int64"), "type names");
    fl_testfloat_func e;
    fl_testfloat_parse("f16_eq", &e);
    CHECK(fl_testfloat_digits(&e, 1) == 1 &&
          !strcmp(fl_testfloat_type_name(&e, 1), "boolean"), "booleans");

    /* the rules: any NaN matches any NaN unless NaNs are checked */
    const uint64_t in2[2] = {0x7C00, 0xFC00};
    CHECK(fl_testfloat_match(&a, in2, 0x7E00, V, 0xFE00, V, 0) &&
          !fl_testfloat_match(&a, in2, 0x7E00, V, 0xFE00, V,
                              FL_TF_CHECK_NANS) &&
          !fl_testfloat_match(&a, in2, 0x7E00, V, 0xFE00, 0, 0) &&
          fl_testfloat_match(&a, in2, 0x7E00, V, 0x7E00, V | FL_TERN_UP, 0),
          "NaN rules");
    /* invalid integer results: max, min or 0 for NaN accepted */
    const uint64_t nan_in[1] = {0x7FF8000000000000};
    const uint64_t big_in[1] = {0x41F0000000000000};   /* 2^32 */
    CHECK(fl_testfloat_match(&b, big_in, 0xFFFFFFFF, V, 0, V, 0) &&
          fl_testfloat_match(&b, nan_in, 0xFFFFFFFF, V, 0, V, 0) &&
          !fl_testfloat_match(&b, big_in, 0xFFFFFFFF, V, 0x12345678, V, 0) &&
          !fl_testfloat_match(&b, big_in, 0xFFFFFFFF, V, 0, V,
                              FL_TF_CHECK_INV_INTS) &&
          !fl_testfloat_match(&b, big_in, 0xFFFFFFFF, V | I, 0, V | I, 0) &&
          fl_testfloat_match(&b, big_in, 0xFFFFFFFF, V | I, 0xFFFFFFFF,
                             V | I, 0),
          "invalid-integer rules");
}
#undef I
#undef U
#undef O
#undef Z
#undef V

int main(void)
{
    const uint64_t seed = tc_seed("test_ops");
    tables();
    calc_worked();
    calc_bad();
    rows_against_core(seed);
    testfloat_worked();
    /* 9 table checks; each worked or bad case, and each group's count;
     * 2 row checks; 5 checks of TestFloat's widths, names and rules */
    const int expected = 9 +
        (int)(sizeof calc_cases / sizeof calc_cases[0]) + 1 +
        (int)(sizeof bad_cases / sizeof bad_cases[0]) + 1 + 2 +
        (int)(sizeof tf_cases / sizeof tf_cases[0]) + 1 + 5;
    return tc_finish("test_ops", expected);
}
