/*
 * amp_ops.h — simulated tensors: fp32 buffers whose every element is
 * exactly representable in the buffer's storage format.
 *
 * A "tensor" here is a float array plus the fl_format it is stored in.  The
 * invariant is kept by rounding every op's result through the core
 * (fl_round_float_array / fl_round_double), so a binary16 or bfloat16
 * computation is bit-faithful: each element equals what hardware doing the
 * same operation in that format, in the same order, would produce.
 * Rounding is to nearest even unless a context says otherwise.
 */
#ifndef FPLAB_AMP_OPS_H
#define FPLAB_AMP_OPS_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when f is binary32 itself (rounding into it is the identity on float). */
int amp_format_is_f32(const fl_format *f);
/* Round x[0..n) into f in place (RNE, default context); no-op for binary32.
 * ORs the core's flags into *flags when flags is not NULL. */
void amp_round(const fl_format *f, float *x, size_t n, unsigned *flags);
/* dst[i] = x[i] + y[i] rounded ONCE into f (x, y any floats; the sum is
 * formed exactly via binary64 two-sum and round-to-odd, then rounded). */
void amp_add_round(const fl_format *f, float *dst, const float *x,
                   const float *y, size_t n, unsigned *flags);
/* The same under a context (ctx NULL: round to nearest even).  Element i
 * rounds with stochastic-rounding index ctx->sr_index + i, so a caller that
 * advances sr_index by n after each call gets a stream that does not depend
 * on how the work is split.  Under FL_RSR the probability of rounding up is
 * the discarded fraction of the round-to-odd binary64 sum: exact to 2^-42
 * of a spacing for binary16 and bfloat16. */
void amp_add_round_ctx(const fl_format *f, float *dst, const float *x,
                       const float *y, size_t n, const fl_ctx *ctx,
                       unsigned *flags);

/* ------------------------------------------------------------------------
 * Accumulation policies for dot products and reductions.
 * ---------------------------------------------------------------------- */
typedef enum amp_accum_kind {
    AMP_ACC_LOW = 0,      /* accumulator in the output format: every partial
                             sum acc = fma(a, b, acc) rounded into it */
    AMP_ACC_F32 = 1,      /* binary32 accumulator, sequential FMA chain */
    AMP_ACC_KAHAN = 2,    /* binary32 with Kahan compensation */
    AMP_ACC_PAIRWISE = 3, /* binary32 pairwise (tree) sum of the products */
    AMP_ACC_BLOCK = 4,    /* block FMA model (tensor cores): via the hook */
    AMP_ACC_COUNT = 5
} amp_accum_kind;

/* Seam for a tensor-core-like model: returns c + sum_i a[i*sa] * b[i*sb]
 * as the modelled unit would (inputs are values of format `in`; the result
 * is a binary32 value, e.g. truncated as on V100..H100).  model is opaque. */
typedef float (*amp_block_dot_fn)(void *model, const fl_format *in,
                                  const float *a, size_t sa, const float *b,
                                  size_t sb, size_t n, float c,
                                  unsigned *flags);

/* What an accumulation other than binary32 does to a product, counted by
 * amp_gemm when amp_accum.stats is set: every output is compared with the
 * reference, the same sum accumulated in binary32 (sequential, round to
 * nearest) and rounded once into the output format. */
typedef struct amp_accum_stats {
    uint64_t outputs;     /* outputs compared (finite reference) */
    uint64_t differ;      /* of those, outputs != reference */
    uint64_t ulps;        /* sum of |output - reference| in units of the
                             output format's spacing (ordinal distance) */
    uint64_t max_ulps;    /* the largest such distance */
    uint64_t nonfinite;   /* outputs inf or NaN where the reference is finite */
    uint64_t zero;        /* outputs 0 where the reference is not */
} amp_accum_stats;

typedef struct amp_accum {
    int kind;                    /* amp_accum_kind */
    amp_block_dot_fn block_dot;  /* required for AMP_ACC_BLOCK */
    void *block_model;
    int block_acc16;             /* AMP_ACC_BLOCK: 1 when block_dot chains its
                                    blocks through a binary16 accumulator */
    amp_accum_stats *stats;      /* NULL, or counts (not thread-safe: one
                                    per concurrent user) */
} amp_accum;

/* "low", "fp32", "kahan", "pairwise", "block" <-> kind; -1 if unknown. */
int amp_accum_parse(const char *name);
const char *amp_accum_name(int kind);

/* C[m][n] = round_out( sum_k A[m,k] * B[k][n] (+ bias[n]) ), m < M, n < N.
 * A[m,k] is A[m*a_sm + k*a_sk] (any strides: transposes are free);
 * B is row-major with leading dimension ldb (B[k*ldb + n]).
 * Sum over k in increasing order under `acc`; the bias (if not NULL) is
 * added to the finished sum in the accumulator's format; the result is
 * rounded once into `out` (for AMP_ACC_LOW each partial sum already is).
 * raw (if not NULL, M*N) receives the accumulator value before the final
 * rounding into `out` — what the gradient would be with a binary32 output,
 * used to measure underflow honestly.  Inputs must already be values of
 * the input format (the caller rounds operands first). */
void amp_gemm(const amp_accum *acc, const fl_format *out, size_t M, size_t N,
              size_t K, const float *A, size_t a_sm, size_t a_sk,
              const float *B, size_t ldb, const float *bias, float *C,
              float *raw, unsigned *flags);

/* Dot product under a policy, result rounded into out. */
float amp_dot(const amp_accum *acc, const fl_format *out, const float *a,
              size_t sa, const float *b, size_t sb, size_t n,
              unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_OPS_H */
