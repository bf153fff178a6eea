/*
 * op_eval.c — fl_op_eval: one operation of the core by opcode, on
 * encodings (fplab/ops.h).  Integers come and go as the two's complement
 * bits of their width, zero-extended; predicates as 0/1.
 */
#include "fplab/ops.h"

uint64_t fl_op_eval(fl_opcode op, const fl_format *f, const fl_format *src,
                    const uint64_t *in, int exact, const fl_ctx *c,
                    unsigned *flags)
{
    switch (op) {
    case FL_OP_ADD: return fl_add(f, in[0], in[1], c, flags);
    case FL_OP_SUB: return fl_sub(f, in[0], in[1], c, flags);
    case FL_OP_MUL: return fl_mul(f, in[0], in[1], c, flags);
    case FL_OP_DIV: return fl_div(f, in[0], in[1], c, flags);
    case FL_OP_REM: return fl_rem(f, in[0], in[1], c, flags);
    case FL_OP_FMA: return fl_fma(f, in[0], in[1], in[2], c, flags);
    case FL_OP_SQRT: return fl_sqrt(f, in[0], c, flags);
    case FL_OP_RINT: return fl_rint(f, in[0], exact, c, flags);
    case FL_OP_RINT_EXACT: return fl_rint(f, in[0], 1, c, flags);
    case FL_OP_MINIMUM: return fl_minimum(f, in[0], in[1], c, flags);
    case FL_OP_MAXIMUM: return fl_maximum(f, in[0], in[1], c, flags);
    case FL_OP_MINIMUM_NUMBER:
        return fl_minimum_number(f, in[0], in[1], c, flags);
    case FL_OP_MAXIMUM_NUMBER:
        return fl_maximum_number(f, in[0], in[1], c, flags);
    case FL_OP_NEXT_UP: return fl_next_up(f, in[0], c, flags);
    case FL_OP_NEXT_DOWN: return fl_next_down(f, in[0], c, flags);
    case FL_OP_ROUND: return fl_convert(f, f, in[0], c, flags);
    case FL_OP_CONVERT:
        return fl_convert(f, src != NULL ? src : f, in[0], c, flags);
    /* predicates: a > b is b < a, with the same flags */
    case FL_OP_EQ: return fl_eq(f, in[0], in[1], c, flags) != 0;
    case FL_OP_LT: return fl_lt(f, in[0], in[1], c, flags) != 0;
    case FL_OP_LE: return fl_le(f, in[0], in[1], c, flags) != 0;
    case FL_OP_GT: return fl_lt(f, in[1], in[0], c, flags) != 0;
    case FL_OP_GE: return fl_le(f, in[1], in[0], c, flags) != 0;
    case FL_OP_EQ_SIGNALING:
        return fl_eq_signaling(f, in[0], in[1], c, flags) != 0;
    case FL_OP_LT_QUIET: return fl_lt_quiet(f, in[0], in[1], c, flags) != 0;
    case FL_OP_LE_QUIET: return fl_le_quiet(f, in[0], in[1], c, flags) != 0;
    case FL_OP_GT_QUIET: return fl_lt_quiet(f, in[1], in[0], c, flags) != 0;
    case FL_OP_GE_QUIET: return fl_le_quiet(f, in[1], in[0], c, flags) != 0;
    case FL_OP_COMPARE:
        return (uint64_t)fl_compare(f, in[0], in[1], 0, c, flags);
    case FL_OP_COMPARE_SIGNALING:
        return (uint64_t)fl_compare(f, in[0], in[1], 1, c, flags);
    case FL_OP_CLASS: return (uint64_t)fl_classify(f, in[0]);
    case FL_OP_TO_I32: return (uint32_t)fl_to_i32(f, in[0], exact, c, flags);
    case FL_OP_TO_U32: return fl_to_u32(f, in[0], exact, c, flags);
    case FL_OP_TO_I64: return (uint64_t)fl_to_i64(f, in[0], exact, c, flags);
    case FL_OP_TO_U64: return fl_to_u64(f, in[0], exact, c, flags);
    case FL_OP_FROM_I32:
        return fl_from_i32(f, (int32_t)(uint32_t)in[0], c, flags);
    case FL_OP_FROM_U32: return fl_from_u32(f, (uint32_t)in[0], c, flags);
    case FL_OP_FROM_I64: return fl_from_i64(f, (int64_t)in[0], c, flags);
    case FL_OP_FROM_U64: return fl_from_u64(f, in[0], c, flags);
    default:
        break;
    }
    *flags |= FL_INVALID;
    return 0;
}
