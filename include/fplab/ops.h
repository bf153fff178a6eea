/*
 * fplab/ops.h — the core's operations by name: the tables behind `fplab
 * calc` and `fplab testfloat`, for every caller (the command line, the
 * Python package, a program of one's own).
 *
 * One evaluator, fl_op_eval, runs an operation (an fl_opcode) on
 * encodings.  Two ways of naming operations lead to it:
 *
 *   calc's names ("add", "fma", "rint-exact", "gt_quiet", "to_u64",
 *   "from_i32", ...; fl_op_find, fl_op_count/fl_op_at list them with
 *   their help text), where the format is an argument, and fl_op_calc,
 *   which reads the operands from text as `fplab calc` does;
 *
 *   Berkeley TestFloat's function names ("f16_add", "bf16_sqrt",
 *   "f32_to_f16", "f64_to_ui32_r_minMag", "i64_to_bf16"), which fix the
 *   formats (f16 bf16 f32 f64) and integer types (i32 ui32 i64 ui64):
 *   fl_testfloat_parse, fl_testfloat_eval, and fl_testfloat_match, which
 *   judges a result against an expected one by TestFloat's rules.
 *
 * Integers travel in a uint64_t as the two's complement bits of their
 * type's width, zero-extended (an int32 -1 is 0xFFFFFFFF): so TestFloat
 * prints them.  Operands of integer type use only the low bits of that
 * width.  Mode, tininess, NaN preset, ftz/daz and saturation come from the
 * context; flags are OR-ed into the caller's word, as everywhere in fplab.
 */
#ifndef FPLAB_OPS_H
#define FPLAB_OPS_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operations.  Where two names share an operation (min and minimum) they
 * share the opcode. */
typedef enum fl_opcode {
    FL_OP_ADD, FL_OP_SUB, FL_OP_MUL, FL_OP_DIV, FL_OP_REM,
    FL_OP_FMA,                 /* a * b + c, one rounding */
    FL_OP_SQRT,
    FL_OP_RINT,                /* inexact only with exact != 0 */
    FL_OP_RINT_EXACT,          /* roundToIntegralExact: inexact raised */
    FL_OP_MINIMUM, FL_OP_MAXIMUM, FL_OP_MINIMUM_NUMBER, FL_OP_MAXIMUM_NUMBER,
    FL_OP_NEXT_UP, FL_OP_NEXT_DOWN,
    FL_OP_ROUND,               /* an encoding of the format, canonicalized
                                  (fl_convert into its own format) */
    FL_OP_CONVERT,             /* from the source format into the format */
    FL_OP_EQ, FL_OP_LT, FL_OP_LE, FL_OP_GT, FL_OP_GE,
    FL_OP_EQ_SIGNALING, FL_OP_LT_QUIET, FL_OP_LE_QUIET,
    FL_OP_GT_QUIET, FL_OP_GE_QUIET,
    FL_OP_COMPARE,             /* FL_CMP_LT/EQ/GT/UN, quiet */
    FL_OP_COMPARE_SIGNALING,   /* the same, invalid on any NaN */
    FL_OP_CLASS,               /* an fl_class; no flags */
    FL_OP_TO_I32, FL_OP_TO_U32, FL_OP_TO_I64, FL_OP_TO_U64,
    FL_OP_FROM_I32, FL_OP_FROM_U32, FL_OP_FROM_I64, FL_OP_FROM_U64,
    FL_OPCODE_COUNT
} fl_opcode;

/* What an operand or a result is. */
typedef enum fl_op_type {
    FL_OPT_FLOAT = 0,   /* an encoding of the operation's format */
    FL_OPT_SOURCE,      /* an encoding of the source format (convert) */
    FL_OPT_I32, FL_OPT_U32, FL_OPT_I64, FL_OPT_U64,   /* integers */
    FL_OPT_BOOL,        /* results only: 0 or 1 */
    FL_OPT_RELATION,    /* results only: FL_CMP_LT, _EQ, _GT or _UN */
    FL_OPT_CLASS        /* results only: an fl_class */
} fl_op_type;

/* Properties of an operation (fl_op.props). */
enum {
    FL_OPF_EXACT = 1,   /* the exact argument counts: rint, to_* */
    FL_OPF_NUMBER = 2   /* round: a number given as text is read in the
                           operation's mode, and that reading is the
                           operation (fl_op_calc) */
};

#define FL_OP_MAX_IN 3

/* One named operation of calc's table. */
typedef struct fl_op {
    const char *name;
    fl_opcode code;
    int nin;            /* operands, 1 to FL_OP_MAX_IN */
    fl_op_type in;      /* type of every operand */
    fl_op_type out;     /* type of the result */
    unsigned props;     /* FL_OPF_* */
    const char *help;   /* one line: "a + b", "IEEE 754-2019 minimum" */
} fl_op;

/* The table, in the order `fplab calc --help` lists it. */
size_t fl_op_count(void);
const fl_op *fl_op_at(size_t i);            /* NULL when i is past the end */
const fl_op *fl_op_find(const char *name);  /* exact spelling; NULL if none */

/* Evaluate op on in[0 .. nin-1] and return the result (its type as the
 * table says; for an opcode outside the table, by the opcode's meaning).
 * f is the operation's format: the result's for arithmetic, convert and
 * from_*, the operands' otherwise.  src is the operands' format for
 * FL_OP_CONVERT (NULL: f itself) and ignored otherwise.  exact: FL_OP_RINT
 * and FL_OP_TO_* raise inexact (IEEE's ...Exact operations).  Flags are
 * OR-ed into *flags, ternary bits included.  An opcode out of range
 * returns 0 and raises FL_INVALID. */
uint64_t fl_op_eval(fl_opcode op, const fl_format *f, const fl_format *src,
                    const uint64_t *in, int exact, const fl_ctx *c,
                    unsigned *flags);

/* Operand k (0-based) of op in text, read as `fplab calc` reads it:
 *   "bits:0xHEX", "bits:0bBINARY", "bits:DECIMAL": raw bits, which must
 *       fit the operand format's width;
 *   a number (decimal, hex-float, inf, nan, snan): rounded to nearest
 *       even into the operand's format (f, or src for convert) under c's
 *       NaN preset, *read_flags set to that rounding's flags (nonzero
 *       IEEE flags: the operand is not exact there; a caller may warn);
 *   integers (from_*): an optional '-', then decimal or 0x-hex, in the
 *       type's range.
 * Returns 0, or -1 with a message in err that names the operand by its
 * position (k + 1) and quotes it ("operand 2 '1.2.3' is not a number
 * ..."). */
int fl_op_read(const fl_op *op, int k, const char *text, const fl_format *f,
               const fl_format *src, const fl_ctx *c, uint64_t *out,
               unsigned *read_flags, char *err, size_t errlen);

/* An evaluation from text, what `fplab calc` prints. */
typedef struct fl_op_result {
    uint64_t value;                  /* the result, of type op->out */
    unsigned flags;                  /* the operation's flags */
    int nread;                       /* operands read (all, or those before
                                        the one that failed) */
    uint64_t in[FL_OP_MAX_IN];       /* the operands as read */
    unsigned read_flags[FL_OP_MAX_IN];   /* fl_op_read's, per operand */
} fl_op_result;

/* Read op's nin operands from text[0 .. nin-1] (fl_op_read) and evaluate
 * op (fl_op_eval) with f, src, exact and c.  FL_OPF_NUMBER (round): an
 * operand that is a number, not bits:, is parsed into f in c's mode, and
 * the result and flags are that parse's (a rounding exactly like the
 * rounding of an operation's result; "snan" gives a signaling NaN).  src
 * NULL for convert is an error.  Returns 0, or -1 with err (r->nread
 * says how many operands were read before the failure). */
int fl_op_calc(const fl_op *op, const char *const *text, const fl_format *f,
               const fl_format *src, int exact, const fl_ctx *c,
               fl_op_result *r, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Berkeley TestFloat's function names.
 * ---------------------------------------------------------------------- */
typedef struct fl_testfloat_func {
    fl_opcode op;
    int nin;
    fl_op_type in;            /* FL_OPT_FLOAT or an integer type */
    fl_op_type out;           /* FL_OPT_FLOAT, an integer type, or BOOL */
    const fl_format *fin;     /* the operands' format (FL_OPT_FLOAT) */
    const fl_format *fout;    /* the result's format (FL_OPT_FLOAT) */
    int min_mag;              /* _r_minMag: toward zero, whatever c->rm */
} fl_testfloat_func;

/* Every name fl_testfloat_parse accepts, F in f16 bf16 f32 f64 and I in
 * i32 ui32 i64 ui64: F_add F_sub F_mul F_div F_rem F_sqrt F_mulAdd
 * F_roundToInt F_eq F_le F_lt F_eq_signaling F_le_quiet F_lt_quiet,
 * F_to_F (two different formats), F_to_I, F_to_I_r_minMag, I_to_F. */
size_t fl_testfloat_count(void);
/* Name i (i < fl_testfloat_count()) into buf; 0, or -1 when i is past the
 * end or buf is too small. */
int fl_testfloat_name(size_t i, char *buf, size_t len);
/* 0 with *fn filled, or -1 for a name TestFloat does not have. */
int fl_testfloat_parse(const char *name, fl_testfloat_func *fn);

/* Hex digits of an operand (result 0) or the result (result 1) in
 * testfloat_gen's lines: the format's width / 4 rounded up, 8 for 32-bit
 * and 16 for 64-bit integers, 1 for a boolean. */
int fl_testfloat_digits(const fl_testfloat_func *fn, int result);
/* "binary16", "int32", "uint64", "boolean": the operand's (result 0) or
 * the result's type, for messages. */
const char *fl_testfloat_type_name(const fl_testfloat_func *fn, int result);

/* One case: the result as testfloat_gen prints it (integers as above,
 * booleans 0/1); flags OR-ed into *flags. */
uint64_t fl_testfloat_eval(const fl_testfloat_func *fn, const uint64_t *in,
                           int exact, const fl_ctx *c, unsigned *flags);

/* Options of fl_testfloat_match. */
enum {
    FL_TF_CHECK_NANS = 1,     /* NaN results must agree bit for bit
                                 (TestFloat's -checkNaNs); default: any
                                 NaN matches any NaN */
    FL_TF_CHECK_INV_INTS = 2  /* invalid integer results must agree
                                 exactly (-checkInvInts); default: with
                                 only invalid expected and raised, the
                                 type's max or min, or 0 for a NaN
                                 operand, is accepted */
};
/* 1 when (got, got_flags) matches the expected (want, want_flags) of the
 * case with operands in, by TestFloat's rules; 0 otherwise.  Flags are
 * compared on the five IEEE bits. */
int fl_testfloat_match(const fl_testfloat_func *fn, const uint64_t *in,
                       uint64_t want, unsigned want_flags, uint64_t got,
                       unsigned got_flags, unsigned options);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_OPS_H */
