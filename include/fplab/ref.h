/*
 * ref.h — kernel references: sum, dot and GEMM computed in a stated
 * arithmetic model, bit for bit, plus the element-wise operations and the
 * correctly rounded ("exact") reductions.
 *
 * A model (struct fl_ref_model) says how ONE output element is computed
 * from its n terms (sum: x_i; dot and gemm: the products a_i*b_i):
 *
 *   in        format of the inputs (A, B, x)
 *   acc       accumulator format; acc-rm the rounding of every step in it
 *   products  rounded: each product rounded to acc, then added;
 *             fused:   the product enters an addition unrounded (fma).
 *             For a tree node whose child is a product leaf:
 *               node(value v, leaf a*b)   = fma(a, b, v)
 *               node(leaf a_l*b_l, leaf a_r*b_r)
 *                                         = fma(a_r, b_r, round(a_l*b_l))
 *               a lone leaf (n = 1)       = round(a*b)
 *   order     the summation tree (leaves are terms, every inner node is
 *             one addition rounded in acc), one of
 *     sequential  ((t0+t1)+t2)+...   (no +0 start; n = 0 gives +0)
 *     reverse     ((t[n-1]+t[n-2])+...)+t0
 *     pairwise:B  blocks of B consecutive terms summed sequentially; the
 *                 m block sums combined by halving the list: the first
 *                 half holds ceil(m/2) sums, each half combined the same
 *                 way, then the two results added (left + right)
 *     numpy       np.add.reduce over a contiguous row: +0 + P, where P
 *                 is numpy's pairwise_sum (numpy/core/src/umath/
 *                 loops_utils.h.src): n < 8: ((+0 + t0) + t1)...; n <=
 *                 128: eight accumulators r_j = t_j + t_{j+8} + ...
 *                 (sequential, over the first n - n%8 terms), combined
 *                 ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the last n%8
 *                 terms added one by one; n > 128: P(first n2) +
 *                 P(rest) with n2 = n/2 - (n/2)%8
 *     blocked:K   partial sums of K consecutive terms (sequential), the
 *                 partials then added sequentially
 *     lanes:W[:seq|:pairwise|:halving]
 *                 lane j sums terms j, j+W, j+2W, ... sequentially (lanes
 *                 without a term do not exist); the lanes are combined
 *                 sequentially (default), pairwise (the pairwise:B rule
 *                 over the lane sums), or by halving: with c lanes left,
 *                 lane i += lane i + ceil(c/2) for i < floor(c/2), until
 *                 one is left (SIMD horizontal reductions)
 *     splitk:S    the n terms cut into S contiguous parts of ceil(n/S)
 *                 terms (the last ones shorter, empty parts dropped), each
 *                 summed sequentially (or by the tc chain), the partial
 *                 sums then added sequentially
 *     tree:EXPR   an explicit expression over term indices, e.g.
 *                 ((0+1)+(2+3))+4, every index 0..n-1 exactly once
 *                 ("a+b+c" is "(a+b)+c"); in a model file also
 *                 tree:@path (relative to the model file)
 *     cascade:A[:pairs|:halves]
 *                 PyTorch's CPU sum (aten/src/ATen/native/cpu/SumKernel.cpp:
 *                 vectorized_inner_sum, row_sum, multi_row_sum; the same in
 *                 1.13 and today): vectors of A accumulator lanes, each
 *                 vector load taking V = A terms (lane i: term i), or V = 2A
 *                 (pairs: lane i gets (+0 + t_2i) + t_2i+1, numpy-less
 *                 float16's load_reduce_vec; halves: t_i + t_i+A,
 *                 bfloat16's two float vectors); the n/V loads go to 4
 *                 vector accumulators in turn (load 4i + k to accumulator
 *                 k), each a cascade: chunks of 2^P loads-of-4 summed from
 *                 +0 into level 0, level j += level j-1 (then +0 again)
 *                 while the count of loads-of-4 is a multiple of 2^(jP), P
 *                 = max(4, ceil(log2 count)/4), 4 levels, the levels added
 *                 into level 0 at the end; the last loads (count % 4) go
 *                 to accumulator 0, then acc0 += acc1, acc2, acc3; the
 *                 n % V tail terms summed from +0, then the A lanes added
 *                 to it in order; the result added to the output's +0.
 *                 Rows shorter than V terms are summed by the same row sum
 *                 over single terms (4 accumulators of terms 4i + k)
 *     pairswap[:B] chains over pairs of terms, the odd one first, from +0:
 *                 ((((+0 + t1) + t0) + t3) + t2) ..., a lone last term
 *                 after a +0 (its missing partner): an accumulator fed by
 *                 two-product instructions (x86 VDPBF16PS adds the odd
 *                 product of each pair first, Intel SDM); with :B the
 *                 first floor(n/B)*B terms make one chain, the rest
 *                 another, and the two are added (oneDNN's bfloat16 GEMM
 *                 on the CPU, B = 512, measured with PyTorch 1.13)
 *     tiles:B:W   tiles of B consecutive terms (the last shorter), each
 *                 summed in W interleaved lanes that start from +0 (lane
 *                 j: +0, then the tile's terms j, j+W, ... in order; a
 *                 lane without a term stays +0), the lanes then added in
 *                 order, the tile sums added in order (oneDNN's bfloat16
 *                 GEMM on AMX, tiles:32:2, measured with PyTorch 1.13)
 *     exact       no rounding at all: the exact value, rounded once into
 *                 out (an exact fixed-point accumulator over the whole
 *                 range of the products); acc, acc-rm, products and tc
 *                 do not apply; epilogue=init adds the +0 start (a row
 *                 of -0 then sums to +0)
 *   tc        the block-FMA tensor-core model (fplab/tensorcore.h): every
 *             block of `block` products enters one fl_tc_block_fma_ctx
 *             with the running accumulator as c (the first block's c is
 *             +0); orders: sequential (the chain of blocks) or splitk:S
 *   out, out-rm   the final conversion of the accumulator
 *   epilogue  D = alpha*acc + beta*C (GEMM; C is read in the out format;
 *             alpha and beta are values of acc):
 *     last    t = alpha*acc (skipped when alpha = 1), u = beta*C (skipped
 *             when beta = 0), t+u, each rounded in acc
 *     fma     fma(alpha, acc, beta*C) in acc (beta = 0: as last)
 *     init    the accumulator starts at u = beta*C (u = +0 when beta = 0
 *             and for sum and dot, as a `s = 0; for ...` loop or BLAS
 *             does): the leftmost leaf L of the tree becomes the node
 *             (u + L); alpha applied at the end
 *   ftz daz nan saturate tininess   the context of every operation;
 *             nan is a preset of fplab.h (x86 arm riscv cuda softfloat sign
 *             sign-pos default-neg first) or `any`: a NaN where the kernel
 *             has one, its payload and sign not modelled (computed with
 *             x86's rule; compared as any NaN)
 *   seed      stochastic rounding (rm sr): rounding number `slot` of output
 *             element e (flat index, batch included) draws the random bits
 *             fl_sr_bits(seed, e*(3n+7) + slot), slots: leaf i -> i; tree
 *             node j (postorder) or tc block j -> n+j (tc splitk: the
 *             addition of partial s >= 1 -> n + (number of blocks) + s-1);
 *             init u+L -> 3n+2;
 *             alpha*acc -> 3n+3; beta*C -> 3n+4; t+u or the fma -> 3n+5;
 *             the conversion to out -> 3n+6.  A pure function of the
 *             element, so every thread count gives the same bits.
 *
 * Every model has one canonical one-line text form, keys in this order,
 * defaults spelled out:
 *   in=binary32 acc=binary32 acc-rm=rne products=rounded order=sequential
 *   tc=none out=binary32 out-rm=rne epilogue=last ftz=0 daz=0 nan=x86
 *   saturate=0 tininess=after seed=0
 * (on one line).  fl_ref_model_format prints it; fl_ref_model_parse reads
 * it back to the same model.
 *
 * Model files (fl_ref_model_parse_file): `key = value` lines, `#` comments,
 * blank lines; a line with several key=value words (the canonical form)
 * is read word by word.  Unknown keys, bad values and keys given twice
 * are errors "FILE:LINE: ...".
 *
 * Values are bit patterns in uint64_t (as everywhere in fplab); flags are
 * the IEEE flags (FL_INEXACT ... FL_INVALID) OR-ed over every operation of
 * every output element.  Work is split over output elements on nthreads
 * POSIX threads (0: one per online processor); the results and flags are
 * the same for every thread count.
 */
#ifndef FPLAB_REF_H
#define FPLAB_REF_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_ref_order {
    FL_REF_SEQUENTIAL = 0,
    FL_REF_REVERSE,
    FL_REF_PAIRWISE,    /* arg: B */
    FL_REF_NUMPY,
    FL_REF_BLOCKED,     /* arg: K */
    FL_REF_LANES,       /* arg: W, lanes_combine */
    FL_REF_SPLITK,      /* arg: S */
    FL_REF_TREE,        /* tree */
    FL_REF_EXACT,
    FL_REF_CASCADE,     /* arg: lanes A, cascade_load */
    FL_REF_PAIRSWAP,    /* arg: block B (0: none) */
    FL_REF_TILES,       /* arg: tile B, order_arg2: lanes W */
    FL_REF_ORDER_COUNT
} fl_ref_order;

/* cascade:A[:pairs|:halves]: what one vector load gives a lane */
enum { FL_REF_CASCADE_ONE = 0, FL_REF_CASCADE_PAIRS, FL_REF_CASCADE_HALVES };

enum { FL_REF_LANES_SEQ = 0, FL_REF_LANES_PAIRWISE, FL_REF_LANES_HALVING };
enum { FL_REF_PRODUCTS_ROUNDED = 0, FL_REF_PRODUCTS_FUSED };
enum { FL_REF_EPI_LAST = 0, FL_REF_EPI_FMA, FL_REF_EPI_INIT };

/* An explicit summation tree (order=tree), owned by its model. */
typedef struct fl_ref_tree fl_ref_tree;

/* Tensor-core block parameters (see fplab/tensorcore.h). */
typedef struct fl_ref_tc {
    int on;                     /* 0: tc=none */
    int block;                  /* products per block, 1..64 */
    int neab;                   /* extra alignment bits, 0..30 */
    int align;                  /* FL_TC_ALIGN_* */
    int norm;                   /* FL_TC_NORM_* */
    int rm;                     /* rounding of each block's result */
    const fl_format *preset_in; /* input format of a named preset, or NULL */
} fl_ref_tc;

typedef struct fl_ref_model {
    fl_format in, acc, out;
    int in_set;                 /* in given (else taken from the data) */
    int out_set;                /* out given (else out = acc) */
    int acc_rm, out_rm;         /* fl_rm */
    int products;               /* FL_REF_PRODUCTS_* */
    int order;                  /* fl_ref_order */
    size_t order_arg;           /* B, K, W or S */
    int lanes_combine;          /* FL_REF_LANES_* */
    fl_ref_tree *tree;          /* order=tree */
    fl_ref_tc tc;
    int epilogue;               /* FL_REF_EPI_* */
    int ftz, daz, saturate;     /* 0/1 */
    int nan;                    /* fl_nan_preset */
    int tininess;               /* FL_TINY_AFTER / FL_TINY_BEFORE */
    uint64_t seed;              /* stochastic rounding */
    int nan_any;                /* nan=any: which NaN is not modelled (the
                                   operations run with x86's rule; a NaN
                                   matches any NaN, fplab compare and
                                   reveal's validation say so) */
    int cascade_load;           /* order=cascade: FL_REF_CASCADE_* */
    size_t order_arg2;          /* order=tiles:B:W: W */
} fl_ref_model;

/* The default model (the canonical line above; in and out not set). */
void fl_ref_model_init(fl_ref_model *m);
/* Frees the tree; m is then a default model again. */
void fl_ref_model_free(fl_ref_model *m);
/* Deep copy into an uninitialised dst; 0, or -1 when out of memory. */
int fl_ref_model_copy(fl_ref_model *dst, const fl_ref_model *src);

/* One key: the spellings of the canonical line ("acc-rm", "rne").  A value
 * tree:@path is read relative to base_dir (NULL: the working directory).
 * Returns 0, or -1 with a message naming the key and what is wrong. */
int fl_ref_model_set(fl_ref_model *m, const char *key, const char *value,
                     const char *base_dir, char *err, size_t errlen);
/* Words key=value separated by blanks (the canonical line), applied on
 * top of m.  A key given twice is an error.  0 or -1 with err. */
int fl_ref_model_parse(fl_ref_model *m, const char *text, char *err,
                       size_t errlen);
/* A model file applied on top of m; errors are "PATH:LINE: message". */
int fl_ref_model_parse_file(fl_ref_model *m, const char *path, char *err,
                            size_t errlen);
/* The canonical line (no newline).  Returns the length the whole line
 * needs (as snprintf); writes at most len bytes including the NUL.  in and
 * out print as set or defaulted (out = acc when not set). */
size_t fl_ref_model_format(const fl_ref_model *m, char *buf, size_t len);
/* The same line in a malloc'd string (NULL when out of memory). */
char *fl_ref_model_string(const fl_ref_model *m);
/* A format as the model spells it: a preset name or ieee:E:M
 * (= fl_format_spec). */
void fl_ref_format_spec(const fl_format *f, char *buf, size_t len);

/* The operation a model is used for. */
typedef enum fl_ref_op { FL_REF_OP_SUM = 0, FL_REF_OP_DOT, FL_REF_OP_GEMM }
    fl_ref_op;
/* Whether the model can compute op with n terms (tree size, tc limits,
 * fused products into a narrower accumulator, ...).  0 or -1 with err. */
int fl_ref_model_check(const fl_ref_model *m, fl_ref_op op, size_t n,
                       char *err, size_t errlen);

/* The summation tree a model's order gives n terms, exactly as the
 * reference evaluates it: *nnodes additions in postorder (the root last);
 * addition j adds (*kid)[2j] (left) and (*kid)[2j+1] (right), where r < n
 * is term r, r >= n is addition r - n and -1 is a constant +0 (numpy's
 * start value).  *kid is malloc'd (NULL when there is no addition: n < 2
 * and no constant).  Not for order=exact nor tc models (no tree of
 * additions).  0, or -1 with err. */
int fl_ref_order_tree(const fl_ref_model *m, size_t n, int64_t **kid,
                      size_t *nnodes, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Reductions.  All return 0, or -1 with err (model invalid for the call,
 * out of memory) having written nothing.
 * ---------------------------------------------------------------------- */
/* out[r] = the model's sum of x[r*n .. r*n+n-1] (in format in), r < rows;
 * out in format out. */
int fl_ref_sum(const fl_ref_model *m, const uint64_t *x, size_t rows,
               size_t n, uint64_t *out, int nthreads, unsigned *flags,
               char *err, size_t errlen);
/* out[r] = the model's dot product of rows r of a and b (rows x n). */
int fl_ref_dot(const fl_ref_model *m, const uint64_t *a, const uint64_t *b,
               size_t rows, size_t n, uint64_t *out, int nthreads,
               unsigned *flags, char *err, size_t errlen);

/* GEMM shapes, row-major: op(A) is m x k, op(B) is k x n, C and D m x n.
 * op(A) = A (ta = 0, A is m x k, lda >= k) or A^T (ta = 1, A is k x m,
 * lda >= m); likewise B with tb and ldb.  Batch b uses A + b*stride_a,
 * B + b*stride_b, C + b*stride_c, D + b*stride_d (stride 0: the same
 * matrix for every batch). */
typedef struct fl_ref_gemm_shape {
    int ta, tb;
    size_t batch, m, n, k;
    size_t lda, ldb, ldc, ldd;
    size_t stride_a, stride_b, stride_c, stride_d;
} fl_ref_gemm_shape;

/* Dense shape: leading dimensions and batch strides of packed matrices. */
void fl_ref_gemm_shape_init(fl_ref_gemm_shape *s, int ta, int tb,
                            size_t batch, size_t m, size_t n, size_t k);

/* D = alpha*op(A)*op(B) + beta*C in the model, for each batch.  alpha and
 * beta are bit patterns in acc; C may be NULL when beta is zero (it is
 * then not read); D may equal C (same layout). */
int fl_ref_gemm(const fl_ref_model *m, const fl_ref_gemm_shape *s,
                uint64_t alpha, const uint64_t *A, const uint64_t *B,
                uint64_t beta, const uint64_t *C, uint64_t *D, int nthreads,
                unsigned *flags, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Element-wise operations: thin over the core.  Operands a, b, c in format
 * in, the result in format out: out must hold every value of in (the
 * operation is one rounding in out) except for cast, which converts in
 * to out.  Element i uses stochastic-rounding index ctx->sr_index + i.
 * ---------------------------------------------------------------------- */
typedef enum fl_ref_eop {
    FL_REF_ADD = 0, FL_REF_SUB, FL_REF_MUL, FL_REF_DIV, FL_REF_FMA,
    FL_REF_SQRT, FL_REF_CAST, FL_REF_EOP_COUNT
} fl_ref_eop;

const char *fl_ref_eop_name(fl_ref_eop op);   /* "add", ... "cast" */
int fl_ref_eop_parse(const char *s);           /* -1 if unknown */
int fl_ref_eop_arity(fl_ref_eop op);           /* 1, 2 or 3 */

int fl_ref_elementwise(fl_ref_eop op, const fl_format *in,
                       const fl_format *out, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, size_t n,
                       uint64_t *r, const fl_ctx *ctx, int nthreads,
                       unsigned *flags, char *err, size_t errlen);

/* The same with stochastic rounding by supplied random bits: element i
 * rounds in mode FL_RSB with the nbits bits rbits[i] in variant FL_SRV_*
 * (ctx->rm and the sr fields of ctx are not read; the rest is ctx's).
 * Same threads, same results for any nthreads. */
int fl_ref_elementwise_sr_bits(fl_ref_eop op, const fl_format *in,
                               const fl_format *out, const uint64_t *a,
                               const uint64_t *b, const uint64_t *c,
                               size_t n, uint64_t *r, const uint64_t *rbits,
                               int nbits, int variant, const fl_ctx *ctx,
                               int nthreads, unsigned *flags, char *err,
                               size_t errlen);

/* Every value of f is a value of g (precision, range, subnormals)
 * (= fl_format_contains). */
int fl_ref_format_contains(const fl_format *g, const fl_format *f);
/* Same encoding (every field that defines the format) (= fl_format_same). */
int fl_ref_format_same(const fl_format *g, const fl_format *f);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_REF_H */
