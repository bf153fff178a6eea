/*
 * tensorcore.h — a parameterized model of NVIDIA tensor-core block FMA.
 *
 * The model follows the published measurements:
 *   M. Fasi, N. J. Higham, M. Mikaitis, S. Pranesh, "Numerical behavior of
 *   NVIDIA tensor cores", PeerJ Computer Science 7:e330, 2021;
 *   F. A. Khattak, M. Mikaitis, "Accurate models of NVIDIA tensor cores",
 *   2025.
 * A block FMA computes d = c + sum_{i<n} a_i*b_i with
 *   1. exact products a_i*b_i (inputs fp16, bf16 or tf32, subnormals kept);
 *   2. every product and c aligned to the largest exponent among them,
 *      keeping the 24 bits of a binary32 significand plus `neab` extra
 *      alignment bits; bits below that are truncated (toward zero, per
 *      term, in sign-magnitude);
 *   3. the aligned terms summed exactly and normalized once;
 *   4. the result rounded to binary32 toward zero (fp32 output), or to
 *      binary16 to nearest even (fp16 output), subnormals supported.
 * Longer dot products chain blocks through the fp32 accumulator.
 *
 * Two parameters let the model state variants the papers probe for
 * (Fasi et al., section 3: "rounding of the alignment", "normalisation"):
 * how a term is cut to the alignment window (align) and whether products
 * are normalised before they are aligned (norm).  Their zero values are
 * the measured behaviour above, so a model written as a positional
 * initializer {name, in, block, neab, out_rm} keeps it.
 */
#ifndef FPLAB_TENSORCORE_H
#define FPLAB_TENSORCORE_H

#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fl_tc_model.align: how each term is cut to the alignment window. */
enum {
    FL_TC_ALIGN_TRUNC = 0,  /* toward zero, per term in sign-magnitude
                               (measured on V100, A100, H100) */
    FL_TC_ALIGN_FLOOR = 1,  /* toward -infinity: two's-complement truncation
                               (a negative term loses magnitude upward) */
    FL_TC_ALIGN_RNE = 2     /* to nearest, ties to even, per term */
};
/* fl_tc_model.norm: where significands are normalised. */
enum {
    FL_TC_NORM_ONCE = 0,     /* products enter the alignment unnormalised:
                                alignment exponent ea+eb, significand in
                                [1,4); only the block's sum is normalised */
    FL_TC_NORM_PRODUCTS = 1  /* each product is normalised to [1,2) first:
                                its alignment exponent is ea+eb+1 when its
                                significand is 2 or more */
};

typedef struct fl_tc_model {
    const char *name;        /* e.g. "h100-fp16" */
    const fl_format *in;     /* input format of a and b */
    int block;               /* products per block FMA (1..64) */
    int neab;                /* extra alignment bits beyond 24 (0..30) */
    int out_rm;              /* rounding of the binary32 result (FL_RTZ) */
    int align;               /* FL_TC_ALIGN_* (0: truncation) */
    int norm;                /* FL_TC_NORM_* (0: once) */
} fl_tc_model;

/* Presets (parameters from the papers above):
 *   V100: 4 products per block, neab 0 (fp16 in);
 *   A100: 8 (fp16, bf16), 4 (tf32), neab 1;
 *   H100: 16 (fp16, bf16), 8 (tf32), neab 2;
 * all with fp32 results rounded toward zero. */
extern const fl_tc_model fl_tc_v100_fp16, fl_tc_a100_fp16, fl_tc_a100_bf16,
    fl_tc_a100_tf32, fl_tc_h100_fp16, fl_tc_h100_bf16, fl_tc_h100_tf32;

size_t fl_tc_model_count(void);
const fl_tc_model *fl_tc_model_preset(size_t i);
const fl_tc_model *fl_tc_model_by_name(const char *name);

/* One block FMA: binary32 bits of c + sum_{i<n} a[i]*b[i], n <= m->block.
 * a and b are bit patterns in m->in, c is binary32.  Flags: invalid for
 * inf*0 or inf-inf, overflow, inexact. */
uint64_t fl_tc_block_fma(const fl_tc_model *m, const uint64_t *a,
                         const uint64_t *b, int n, uint64_t c,
                         unsigned *flags);

/* The same block with the result rounded to binary16 (to nearest even),
 * as an fp16-accumulating MMA does; c is binary16 here. */
uint64_t fl_tc_block_fma_f16(const fl_tc_model *m, const uint64_t *a,
                             const uint64_t *b, int n, uint64_t c,
                             unsigned *flags);

/* The general block: the result (and c) in format accf, the window still
 * 24 + neab bits wide.  Rounding mode, flush-to-zero, denormals-are-zero
 * (inputs and c), tininess, saturation, the NaN preset and the
 * stochastic-rounding stream all come from *ctx; m->out_rm is not used.
 * fl_tc_block_fma is this call with accf = binary32 and a context of
 * (m->out_rm, NaN preset cuda); fl_tc_block_fma_f16 with binary16 and
 * (rne, cuda). */
uint64_t fl_tc_block_fma_ctx(const fl_tc_model *m, const fl_format *accf,
                             const uint64_t *a, const uint64_t *b, int n,
                             uint64_t c, const fl_ctx *ctx, unsigned *flags);

/* Dot product of length k (strides in elements), chained in blocks of
 * m->block through a binary32 accumulator starting at c. */
uint64_t fl_tc_dot(const fl_tc_model *m, const uint64_t *a, size_t sa,
                   const uint64_t *b, size_t sb, size_t k, uint64_t c,
                   unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_TENSORCORE_H */
