/* amp_tc.h — the tensor-core block-FMA model as an accumulation policy. */
#ifndef FPLAB_AMP_TC_H
#define FPLAB_AMP_TC_H

#include "amp_ops.h"
#include "fplab/tensorcore.h"

/* amp_block_dot_fn over a const fl_tc_model *: the operands (values of the
 * simulated compute format) are encoded in the model's input format (exact
 * when the formats agree; rounded to nearest even otherwise), c in
 * binary32, and c + sum a[i]*b[i] is computed by fl_tc_dot. */
float amp_tc_block_dot(void *model, const fl_format *in, const float *a,
                       size_t sa, const float *b, size_t sb, size_t n,
                       float c, unsigned *flags);

/* The same block FMAs chained through a binary16 accumulator: c is a
 * binary16 value, every block's result is rounded to nearest even into
 * binary16 (fl_tc_block_fma_f16, as an MMA with fp16 accumulation does) and
 * is the c of the next block; the result is a binary16 value. */
float amp_tc_block_dot16(void *model, const fl_format *in, const float *a,
                         size_t sa, const float *b, size_t sb, size_t n,
                         float c, unsigned *flags);

/* 1 when amp_tc_block_dot(16) may take its fast binary64 route for
 * operands of format `in` (amp_tc.c says when and why it is exact). */
int amp_tc_fast_ok(const fl_tc_model *m, const fl_format *in);
/* The generic route alone (the reference the fast route is tested
 * against). */
float amp_tc_block_dot_generic(const fl_tc_model *m, const fl_format *accf,
                               const float *a, size_t sa, const float *b,
                               size_t sb, size_t n, float c, unsigned *flags);

/* Set acc to the block policy with the named model ("h100-fp16", ...):
 * binary32 accumulation (amp_tc_block_dot), or with _tc16 binary16
 * accumulation (amp_tc_block_dot16); -1 if the name is unknown. */
int amp_accum_set_tc(amp_accum *acc, const char *model_name);
int amp_accum_set_tc16(amp_accum *acc, const char *model_name);

#endif
