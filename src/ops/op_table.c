/*
 * op_table.c — calc's operations by name (fplab/ops.h): one row per name,
 * in the order `fplab calc --help` lists them.  Aliases (min, minimum)
 * are rows of their own with the same opcode.
 */
#include <string.h>

#include "fplab/ops.h"

#define F FL_OPT_FLOAT
static const fl_op op_table[] = {
    {"add", FL_OP_ADD, 2, F, F, 0, "a + b"},
    {"sub", FL_OP_SUB, 2, F, F, 0, "a - b"},
    {"mul", FL_OP_MUL, 2, F, F, 0, "a * b"},
    {"div", FL_OP_DIV, 2, F, F, 0, "a / b"},
    {"rem", FL_OP_REM, 2, F, F, 0, "IEEE remainder a - n*b"},
    {"fma", FL_OP_FMA, 3, F, F, 0, "a * b + c, one rounding"},
    {"sqrt", FL_OP_SQRT, 1, F, F, 0, "square root"},
    {"rint", FL_OP_RINT, 1, F, F, FL_OPF_EXACT,
     "round to integral value (no inexact; --exact: roundToIntegralExact)"},
    {"rint-exact", FL_OP_RINT_EXACT, 1, F, F, FL_OPF_EXACT,
     "round to integral value, inexact raised (roundToIntegralExact)"},
    {"min", FL_OP_MINIMUM, 2, F, F, 0, "IEEE 754-2019 minimum"},
    {"minimum", FL_OP_MINIMUM, 2, F, F, 0, "same as min"},
    {"max", FL_OP_MAXIMUM, 2, F, F, 0, "IEEE 754-2019 maximum"},
    {"maximum", FL_OP_MAXIMUM, 2, F, F, 0, "same as max"},
    {"minnum", FL_OP_MINIMUM_NUMBER, 2, F, F, 0,
     "IEEE 754-2019 minimumNumber"},
    {"minimumNumber", FL_OP_MINIMUM_NUMBER, 2, F, F, 0, "same as minnum"},
    {"maxnum", FL_OP_MAXIMUM_NUMBER, 2, F, F, 0,
     "IEEE 754-2019 maximumNumber"},
    {"maximumNumber", FL_OP_MAXIMUM_NUMBER, 2, F, F, 0, "same as maxnum"},
    {"nextup", FL_OP_NEXT_UP, 1, F, F, 0, "nextUp"},
    {"nextdown", FL_OP_NEXT_DOWN, 1, F, F, 0, "nextDown"},
    {"round", FL_OP_ROUND, 1, F, F, FL_OPF_NUMBER,
     "the operand rounded into FORMAT in the mode (bits: canonicalized)"},
    {"convert", FL_OP_CONVERT, 1, FL_OPT_SOURCE, F, 0,
     "operand in --from FORMAT2, converted into FORMAT"},
    {"eq", FL_OP_EQ, 2, F, FL_OPT_BOOL, 0, "a == b (quiet)"},
    {"lt", FL_OP_LT, 2, F, FL_OPT_BOOL, 0, "a < b (signaling)"},
    {"le", FL_OP_LE, 2, F, FL_OPT_BOOL, 0, "a <= b (signaling)"},
    {"gt", FL_OP_GT, 2, F, FL_OPT_BOOL, 0, "a > b (signaling)"},
    {"ge", FL_OP_GE, 2, F, FL_OPT_BOOL, 0, "a >= b (signaling)"},
    {"eq_signaling", FL_OP_EQ_SIGNALING, 2, F, FL_OPT_BOOL, 0,
     "a == b, invalid on any NaN"},
    {"lt_quiet", FL_OP_LT_QUIET, 2, F, FL_OPT_BOOL, 0,
     "a < b, invalid only on sNaN"},
    {"le_quiet", FL_OP_LE_QUIET, 2, F, FL_OPT_BOOL, 0,
     "a <= b, invalid only on sNaN"},
    {"gt_quiet", FL_OP_GT_QUIET, 2, F, FL_OPT_BOOL, 0,
     "a > b, invalid only on sNaN"},
    {"ge_quiet", FL_OP_GE_QUIET, 2, F, FL_OPT_BOOL, 0,
     "a >= b, invalid only on sNaN"},
    {"compare", FL_OP_COMPARE, 2, F, FL_OPT_RELATION, 0,
     "less/equal/greater/unordered (quiet)"},
    {"compare_signaling", FL_OP_COMPARE_SIGNALING, 2, F, FL_OPT_RELATION, 0,
     "same, invalid on any NaN"},
    {"class", FL_OP_CLASS, 1, F, FL_OPT_CLASS, 0, "IEEE class of a"},
    {"to_i32", FL_OP_TO_I32, 1, F, FL_OPT_I32, FL_OPF_EXACT,
     "to int32 in the mode (--exact: inexact raised)"},
    {"to_u32", FL_OP_TO_U32, 1, F, FL_OPT_U32, FL_OPF_EXACT, "to uint32"},
    {"to_i64", FL_OP_TO_I64, 1, F, FL_OPT_I64, FL_OPF_EXACT, "to int64"},
    {"to_u64", FL_OP_TO_U64, 1, F, FL_OPT_U64, FL_OPF_EXACT, "to uint64"},
    {"from_i32", FL_OP_FROM_I32, 1, FL_OPT_I32, F, 0,
     "an int32 (decimal or 0x-hex) into FORMAT"},
    {"from_u32", FL_OP_FROM_U32, 1, FL_OPT_U32, F, 0, "a uint32"},
    {"from_i64", FL_OP_FROM_I64, 1, FL_OPT_I64, F, 0, "an int64"},
    {"from_u64", FL_OP_FROM_U64, 1, FL_OPT_U64, F, 0, "a uint64"},
};
#undef F
#define N_OPS (sizeof op_table / sizeof op_table[0])

size_t fl_op_count(void)
{
    return N_OPS;
}

const fl_op *fl_op_at(size_t i)
{
    return i < N_OPS ? &op_table[i] : NULL;
}

const fl_op *fl_op_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < N_OPS; i++)
        if (!strcmp(op_table[i].name, name))
            return &op_table[i];
    return NULL;
}
