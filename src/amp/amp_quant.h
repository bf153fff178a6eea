/*
 * amp_quant.h — simulated FP8 and MX matrix products: what the fp8 and mx
 * precision policies do to every GEMM input.
 *
 * Under such a policy each matrix product's two inputs (activations and
 * weights in the forward pass; output gradients with weights or with
 * activations in the backward pass) are quantized through fplab_scale and
 * dequantized back into binary32, and the product is summed in binary32.
 * With power-of-two scales (MX's E8M0) that is exactly what a GEMM on the
 * codes with the scales applied per block would compute up to the order of
 * the sum; with a per-tensor FP32 scale s, each dequantized value
 * q * binary32(1/s) carries one more binary32 rounding (relative 2^-24)
 * than a kernel that applies both scales once to the finished sum.
 *
 * Where the scales sit:
 *  - per-tensor (Transformer Engine's Float8CurrentScaling and
 *    DelayedScaling): one FP32 scale per tensor, so the transposes the
 *    backward pass needs see the same values;
 *  - block (OCP MX, NVFP4): blocks run along the product's reduction axis,
 *    as block-scaled tensor cores require: the forward product x·W takes x
 *    in blocks along its rows and W along its columns; the input gradient
 *    dz·W^T takes dz along its rows and W along its rows; the weight
 *    gradient x^T·dz takes both along the batch.  So x, W and dz are each
 *    quantized twice, once per orientation (as Transformer Engine's MXFP8
 *    recipe keeps a row-wise and a column-wise copy).
 */
#ifndef FPLAB_AMP_QUANT_H
#define FPLAB_AMP_QUANT_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"
#include "fplab/scale.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum amp_gq_kind {
    AMP_GQ_NONE = 0,      /* GEMM inputs are values of the compute format */
    AMP_GQ_DELAYED = 1,   /* per-tensor FP8, TE DelayedScaling */
    AMP_GQ_CURRENT = 2,   /* per-tensor FP8, TE Float8CurrentScaling */
    AMP_GQ_BLOCK = 3      /* block scales along the reduction axis (MX) */
} amp_gq_kind;

/* The three tensors a linear layer quantizes. */
enum { AMP_GQ_ACT = 0, AMP_GQ_WEIGHT = 1, AMP_GQ_GRAD = 2, AMP_GQ_TENSORS = 3 };

typedef struct amp_gemm_quant {
    int kind;               /* amp_gq_kind */
    fl_scale_scheme fwd;    /* activations and weights (forward tensors) */
    fl_scale_scheme bwd;    /* output gradients (backward tensor) */
    uint32_t history;       /* DELAYED: amax history length (TE: 1024) */
    int algo;               /* DELAYED: FL_DS_MAX (TE default) or
                               FL_DS_MOST_RECENT */
    float margin;           /* DELAYED: scale = max / amax / 2^margin (0) */
} amp_gemm_quant;

/* Counts over the values a step's GEMMs took as inputs, per tensor kind
 * (each quantization counted: MX quantizes x, W and dz twice). */
typedef struct amp_gq_counts {
    uint64_t nonzero;     /* finite nonzero inputs */
    uint64_t underflow;   /* of those, dequantized to zero */
    uint64_t saturated;   /* clamped at (or beyond) the largest element */
} amp_gq_counts;

/* Quantize and dequantize a rows x cols row-major matrix x into deq under
 * scheme s.  Block schemes: blocks along `axis` (1: each row, the
 * contiguous axis; 0: each column); a line whose length is not a multiple
 * of the block is padded with zeros to the next multiple, as a kernel that
 * pads does (zeros change neither a block's scale nor the statistics).
 * Per-tensor schemes ignore axis; scale > 0 is used as the tensor's scale
 * (delayed scaling), scale == 0 takes the current one (FP8_MAX / amax).
 * st (may be NULL): statistics added (fl_scale_stats_merge); amax (may be
 * NULL): the tensor's amax (NaN ignored).  x and deq may not overlap.
 * Returns 0, or -1 with err (out of memory; a scheme that is not usable). */
int amp_quantize_matrix(const fl_scale_scheme *s, const float *x, size_t rows,
                        size_t cols, int axis, float scale, float *deq,
                        fl_scale_stats *st, float *amax, char *err,
                        size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_QUANT_H */
