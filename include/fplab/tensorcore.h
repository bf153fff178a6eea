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
 */
#ifndef FPLAB_TENSORCORE_H
#define FPLAB_TENSORCORE_H

#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_tc_model {
    const char *name;        /* e.g. "h100-fp16" */
    const fl_format *in;     /* input format of a and b */
    int block;               /* products per block FMA */
    int neab;                /* extra alignment bits beyond 24 */
    int out_rm;              /* rounding of the binary32 result (FL_RTZ) */
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

/* Dot product of length k (strides in elements), chained in blocks of
 * m->block through a binary32 accumulator starting at c. */
uint64_t fl_tc_dot(const fl_tc_model *m, const uint64_t *a, size_t sa,
                   const uint64_t *b, size_t sb, size_t k, uint64_t c,
                   unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_TENSORCORE_H */
