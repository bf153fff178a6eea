/*
 * oracle.c — the oracle registry, op names, and the core seen through the
 * oracle calling convention (so the sweep compares like with like).
 */
#include "oracle.h"

#include <string.h>

static const char *const op_names[FL_ORC_OP_COUNT] = {
    "add", "sub", "mul", "div", "sqrt", "fma", "cvt"
};

const char *fl_orc_op_name(int op)
{
    return op >= 0 && op < FL_ORC_OP_COUNT ? op_names[op] : "?";
}

int fl_orc_op_parse(const char *s)
{
    int i;
    for (i = 0; i < FL_ORC_OP_COUNT; i++)
        if (strcmp(s, op_names[i]) == 0)
            return i;
    return -1;
}

int fl_orc_op_arity(int op)
{
    switch (op) {
    case FL_ORC_SQRT: case FL_ORC_CVT: return 1;
    case FL_ORC_FMA: return 3;
    default: return 2;
    }
}

/* Fastest first: `--oracle auto` takes the first that can run the job. */
static const fl_oracle *const registry[] = {
    &fl_oracle_hw, &fl_oracle_cuda_host, &fl_oracle_mpfr
};

size_t fl_oracle_count(void)
{
    return sizeof registry / sizeof registry[0];
}

const fl_oracle *fl_oracle_get(size_t i)
{
    return i < fl_oracle_count() ? registry[i] : NULL;
}

const fl_oracle *fl_oracle_by_name(const char *name)
{
    size_t i;
    for (i = 0; i < fl_oracle_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

void fl_orc_core_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                         const uint64_t *b, const uint64_t *c, uint64_t *r,
                         unsigned *flags)
{
    const fl_format *f = j->fmt;
    const fl_ctx *x = &j->ctx;
    size_t i;
    if (j->op <= FL_ORC_DIV && j->ctx.rm != FL_RSR) {
        /* the core's batch entry points: one format dispatch per call */
        switch (j->op) {
        case FL_ORC_ADD: fl_add_array(f, r, a, b, n, x, flags); break;
        case FL_ORC_SUB: fl_sub_array(f, r, a, b, n, x, flags); break;
        case FL_ORC_MUL: fl_mul_array(f, r, a, b, n, x, flags); break;
        default: fl_div_array(f, r, a, b, n, x, flags); break;
        }
        if (flags) {
            /* blocks of 8 (a fixed trip count: vector code at -O2) */
            for (i = 0; i + 8 <= n; i += 8)
                for (size_t k = 0; k < 8; k++)
                    flags[i + k] &= FL_IEEE_FLAGS;
            for (; i < n; i++)
                flags[i] &= FL_IEEE_FLAGS;
        }
        return;
    }
    for (i = 0; i < n; i++) {
        unsigned fl = 0;
        uint64_t v;
        switch (j->op) {
        case FL_ORC_ADD: v = fl_add(f, a[i], b[i], x, &fl); break;
        case FL_ORC_SUB: v = fl_sub(f, a[i], b[i], x, &fl); break;
        case FL_ORC_MUL: v = fl_mul(f, a[i], b[i], x, &fl); break;
        case FL_ORC_DIV: v = fl_div(f, a[i], b[i], x, &fl); break;
        case FL_ORC_SQRT: v = fl_sqrt(f, a[i], x, &fl); break;
        case FL_ORC_FMA: v = fl_fma(f, a[i], b[i], c[i], x, &fl); break;
        default: v = fl_convert(f, j->src, a[i], x, &fl); break;
        }
        r[i] = v;
        if (flags)
            flags[i] = fl & FL_IEEE_FLAGS;
    }
}

int fl_orc_same_value(const fl_format *f, uint64_t x, uint64_t y,
                      int exact_nan)
{
    if (x == y)
        return 1;
    if (!exact_nan && fl_is_nan(f, x) && fl_is_nan(f, y))
        return 1;
    return 0;
}
