/*
 * scale.h — block-scaled and per-tensor-scaled quantization of binary32
 * tensors: OCP Microscaling (MX), NVIDIA's NVFP4, and Transformer Engine's
 * FP8 per-tensor recipes (current and delayed scaling).
 *
 * A tensor is n binary32 values in C order whose last axis has `last`
 * elements; blocks run along the last axis and never cross a row, so
 * last must be a multiple of the block size.  Every element rounding goes
 * through the core (fl_convert semantics: one rounding, in the scheme's
 * mode); every binary32 step of a recipe (amax * 1/max, 2688 / amax, ...)
 * is one correctly rounded binary32 operation of the core, in the order
 * the cited source performs it.  MX blocks of 32 in RNE, RNA and RTZ take
 * integer kernels proven equal to that (tests/test_scale.c), which need no
 * floating-point state; the rest, like the core's own fast paths, assumes
 * the host's default one (round to nearest, no FTZ/DAZ).  No global state:
 * calls may run in parallel.
 *
 * Sources (docs/scaling.md has the details):
 *  - OCP Microscaling Formats (MX) Specification v1.0 (2023): §5.2 Table 1
 *    (k = 32, E8M0 scale), §5.3 (element types), §5.4.1 (E8M0: bias 127,
 *    exponents -127..127, 0xFF NaN, no zero), §6.3 (conversion: X = largest
 *    power of two <= max|V_i| divided by the largest power of two of the
 *    element type; P_i = V_i / X quantized, normal values beyond the
 *    largest normal clamped to it, sign kept; roundTiesToEven required).
 *  - NVFP4: NVIDIA Transformer Engine, common/cast/nvfp4/core_nvfp4.cuh
 *    and pytorch/custom_recipes/quantization_nvfp4.py (the reference the
 *    kernels match byte for byte); arXiv:2509.25149 Appendix B.
 *  - FP8 recipes: Transformer Engine custom_recipes/
 *    quantization_current_scaling.py and common/recipe/delayed_scaling.cu.
 */
#ifndef FPLAB_SCALE_H
#define FPLAB_SCALE_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_scale_kind {
    FL_SCALE_MX = 0,      /* E8M0 power-of-two scale per block (OCP MX) */
    FL_SCALE_NVFP4 = 1,   /* E4M3 block scale + FP32 tensor scale */
    FL_SCALE_TENSOR = 2   /* one FP32 scale for the tensor (TE FP8) */
} fl_scale_kind;

/* How an MX block's shared exponent is chosen from its amax.  All clamp
 * to E8M0's -127..127; a non-finite amax gives the NaN scale 0xFF. */
typedef enum fl_mx_rule {
    FL_MX_FLOOR = 0,  /* OCP MX v1.0 §6.3: floor(log2 amax) - emax_elem
                         (torchao ScaleCalculationMode.FLOOR; Microsoft
                         microxcaling _quantize_mx).  Can saturate. */
    FL_MX_CEIL = 1,   /* torchao CEIL: ceil(log2 amax) - emax_elem (the
                         exponent of amax, plus one when its fraction is
                         nonzero) */
    FL_MX_EVEN = 2,   /* torchao EVEN: amax rounded to the element's
                         fraction bits first, ties away (a carry moves it
                         up a binade), then FLOOR.  For a subnormal amax
                         every rule uses its exact log2 (torchao reads -127
                         from the exponent field; the same after the clamp
                         for every float element type) */
    FL_MX_RCEIL = 3,  /* NVIDIA (cuBLAS block quantization, Transformer
                         Engine MXFP8, torchao RCEIL): the E8M0 of
                         binary32(amax * binary32(1/max_elem)) rounded up,
                         so the block maximum never saturates */
    FL_MX_RULE_COUNT = 4
} fl_mx_rule;

/* A quantization scheme.  Fill it with fl_scale_scheme_parse (or set the
 * fields by hand: zero-initialize, then kind, elem, block, ...). */
typedef struct fl_scale_scheme {
    char name[64];            /* canonical spelling, e.g. "mxfp4-e2m1:rceil" */
    int kind;                 /* fl_scale_kind */
    const fl_format *elem;    /* element format; NULL = MXINT8's int8 */
    uint32_t block;           /* elements per block (MX 32, NVFP4 16);
                                 0 for per-tensor schemes */
    int rule;                 /* fl_mx_rule (MX only) */
    int rm;                   /* element rounding: FL_RNE (every source's
                                 default), FL_RNA, FL_RTZ, FL_RSR or FL_RSB
                                 (sr_bits below) */
    uint64_t seed;            /* FL_RSR: element i (flat index) rounds with
                                 fl_sr_bits(seed, i) */
    int nonsat;               /* per-tensor: overflow gives inf/NaN as a
                                 PyTorch cast does, instead of saturating
                                 as TE's kernels do */
    int pow2;                 /* per-tensor: scale rounded down to a power
                                 of two (TE pow_2_scales) */
    float eps;                /* per-tensor: amax = max(amax, eps) (TE
                                 amax_epsilon; default 0) */
    int force_generic;        /* 1: never the fast path (tests prove the
                                 fast path equal to this one) */
    /* FL_RSB (rm): stochastic rounding with supplied random bits, element
     * i (flat index) with sr_bits[i] (sr_nbits wide, variant FL_SRV_*);
     * the quantizer rounds element by element then (no fast path) */
    const uint64_t *sr_bits;
    int sr_nbits;
    int sr_variant;
} fl_scale_scheme;

/* Parse "NAME[:OPT]...".  NAME: mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3
 * mxfp6-e3m2 mxfp4-e2m1 mxint8 nvfp4 fp8-e4m3-tensor fp8-e5m2-tensor.
 * OPT: floor ceil even rceil (MX rule), rne rna rtz sr (element rounding),
 * nonsat, pow2 (per-tensor).  The element formats are looked up by their
 * ml_dtypes names in the core's preset table (float8_e4m3fn, float8_e5m2,
 * float6_e2m3fn, float6_e3m2fn, float4_e2m1fn); a build whose core lacks
 * one says so.  Returns 0, or -1 with a message in err. */
int fl_scale_scheme_parse(fl_scale_scheme *s, const char *spec, char *err,
                          size_t errlen);
/* The base scheme names, in the order above (for help texts). */
size_t fl_scale_scheme_count(void);
const char *fl_scale_scheme_base(size_t i);
/* One line: what the scheme does ("OCP MX v1.0: E4M3 elements, blocks of
 * 32, E8M0 scale (rule floor), rne"). */
void fl_scale_scheme_describe(const fl_scale_scheme *s, char *buf,
                              size_t len);

/* The element format's largest finite magnitude and emax_elem (for MXINT8:
 * 127/64 and 0). */
double fl_scale_elem_max(const fl_scale_scheme *s);
int fl_scale_elem_emax(const fl_scale_scheme *s);

/* Exact value of an element code (sign included; MXINT8: the two's
 * complement byte times 2^-6) and of a block scale code (E8M0:
 * 2^(c - 127), NaN for 0xFF; NVFP4: the E4M3 value). */
double fl_scale_elem_value(const fl_scale_scheme *s, uint8_t code);
double fl_scale_block_value(const fl_scale_scheme *s, uint8_t code);

/* ------------------------------------------------------------------------
 * Statistics.
 *
 * Over the elements of a tensor (or of one block):
 *   nonzero    finite nonzero inputs;  zero: inputs +-0;
 *   nan_in, inf_in: non-finite inputs;
 *   underflow  nonzero finite inputs that became an element 0 under a
 *              finite scale (flushed to zero);
 *   subnormal  elements that are nonzero subnormals of the element format
 *              (precision below the format's own);
 *   saturated  finite inputs whose rounding went beyond the largest finite
 *              element and were clamped to it (with nonsat: became inf or
 *              NaN instead);
 *   lost       finite inputs whose dequantized value is not finite because
 *              the block or tensor scale is NaN (an inf or NaN elsewhere in
 *              the block);
 *   relative error |deq - x| / |x| over the nonzero finite inputs with a
 *   finite dequantized value (rel_n of them): max, sum, sum of squares.
 * ---------------------------------------------------------------------- */
typedef struct fl_scale_stats {
    uint64_t n, nonzero, zero, nan_in, inf_in;
    uint64_t underflow, subnormal, saturated, lost;
    uint64_t rel_n;
    double rel_max, rel_sum, rel_sumsq;
    uint64_t blocks, nan_blocks;   /* blocks, and those with a NaN scale */
} fl_scale_stats;

/* Per block, compact (32 bytes). */
typedef struct fl_scale_block_stats {
    uint32_t nonzero, underflow, subnormal, saturated, nonfinite;
    float rel_max, rel_mean, rel_rms;   /* 0 when no element counts */
} fl_scale_block_stats;

double fl_scale_stats_rel_mean(const fl_scale_stats *st);
double fl_scale_stats_rel_rms(const fl_scale_stats *st);
/* dst += src (counts add, max of maxima). */
void fl_scale_stats_merge(fl_scale_stats *dst, const fl_scale_stats *src);

/* The per-tensor numbers: amax over the finite and infinite inputs (NaN
 * ignored, as CUDA's fmaxf reductions do), the quantization scale
 * (multiply by it to quantize) and the decoding scale (multiply by it to
 * dequantize).  NVFP4: scale = S_enc = 2688/amax, scale_inv = S_dec. */
typedef struct fl_scale_tensor {
    float amax, scale, scale_inv;
} fl_scale_tensor;

/* Outputs: every pointer may be NULL (not wanted).  codes: n bytes (fp4
 * and fp6 codes in the low bits, sign at bit width-1; MXINT8 two's
 * complement).  scales: one byte per block (E8M0 or E4M3 bits; unused
 * by per-tensor schemes, whose scales are in `tensor`).
 * dequant: n binary32 values, X * P_i rounded once to binary32 (NaN for
 * the elements of a NaN-scale block).  blocks: one record per block.
 * skip_stats: 1 leaves stats and blocks untouched (fastest). */
typedef struct fl_scale_out {
    uint8_t *codes;
    uint8_t *scales;
    float *dequant;
    fl_scale_block_stats *blocks;
    int skip_stats;
    fl_scale_stats stats;      /* filled by the call */
    fl_scale_tensor tensor;    /* filled by the call (NVFP4, per-tensor) */
} fl_scale_out;

/* Number of blocks of an n-element tensor (1 for per-tensor schemes). */
size_t fl_scale_nblocks(const fl_scale_scheme *s, size_t n);

/* Quantize x (n values, last axis of length last).  Returns 0, or -1 with
 * a message in err (last not a multiple of the block; n not a multiple of
 * last; out of memory). */
int fl_scale_quantize(const fl_scale_scheme *s, const float *x, size_t n,
                      size_t last, fl_scale_out *out, char *err,
                      size_t errlen);

/* Per-tensor schemes with a scale given by the caller (delayed scaling):
 * q = elem(x * scale), deq = q * binary32(1 / scale). */
int fl_scale_quantize_with_scale(const fl_scale_scheme *s, const float *x,
                                 size_t n, float scale, fl_scale_out *out,
                                 char *err, size_t errlen);

/* Dequantize codes and scales produced elsewhere (a GPU kernel under
 * test) exactly as the quantizer's dequant output is defined.  scales:
 * one byte per block (MX, NVFP4); t: the tensor scales (NVFP4 and
 * per-tensor: t->scale_inv is used). */
int fl_scale_dequantize(const fl_scale_scheme *s, const uint8_t *codes,
                        const uint8_t *scales, const fl_scale_tensor *t,
                        size_t n, size_t last, float *out, char *err,
                        size_t errlen);

/* ------------------------------------------------------------------------
 * Transformer Engine's delayed scaling, one tensor, step by step.
 *
 * history[0] holds the amax of the current step; fl_scale_delayed_update
 * is TE's amax_and_scale_update at the end of a step (the fused kernel
 * that TE's PyTorch side calls):
 *   last = history[0];
 *   if last != 0 (or roll_zero): the history rolls by one: new[i] =
 *       old[i+1] for i < len-1, new[len-1] = last, then new[0] = 0;
 *   amax = max over the history before the roll (fmaxf: NaN ignored) for
 *       FL_DS_MAX, last for FL_DS_MOST_RECENT (0 when the history was not
 *       rolled);
 *   scale = (fp8_max * 2^-margin) / amax when amax is finite and > 0, else
 *       the previous scale; an infinite scale becomes FLT_MAX;
 *   scale_inv = 1 / scale.
 * The scale and history start at 1 and zeros.  The quantizer uses the
 * scale of the previous update: the amax of step t scales step t+1.
 * ---------------------------------------------------------------------- */
enum { FL_DS_MAX = 0, FL_DS_MOST_RECENT = 1 };

typedef struct fl_scale_delayed {
    fl_scale_scheme scheme;   /* a per-tensor scheme (fp8-e4m3-tensor...) */
    size_t len;               /* amax history length (TE default 1024) */
    int algo;                 /* FL_DS_MAX or FL_DS_MOST_RECENT */
    float margin;             /* scale = fp8_max / amax / 2^margin */
    int roll_zero;            /* 1: roll even when the step's amax is 0
                                 (TE's unfused single-tensor kernel); 0:
                                 TE's fused bulk kernel, the default */
    float *history;           /* len values */
    float scale, scale_inv;
    uint64_t steps;           /* updates done */
} fl_scale_delayed;

/* Names "max", "most_recent"; -1 if unknown. */
int fl_scale_delayed_algo_parse(const char *s);
/* 0, or -1 (bad arguments: message in err; or out of memory). */
int fl_scale_delayed_init(fl_scale_delayed *d, const fl_scale_scheme *s,
                          size_t len, int algo, float margin, char *err,
                          size_t errlen);
void fl_scale_delayed_free(fl_scale_delayed *d);
/* Quantize with the current scale and record the tensor's amax (max with
 * what this step has recorded already). */
int fl_scale_delayed_quantize(fl_scale_delayed *d, const float *x, size_t n,
                              fl_scale_out *out, char *err, size_t errlen);
/* Record an amax without quantizing (max with history[0], NaN ignored). */
void fl_scale_delayed_record(fl_scale_delayed *d, float amax);
/* End of step: roll the history and compute the next scale. */
void fl_scale_delayed_update(fl_scale_delayed *d);

/* TE's HYBRID format: E4M3 for the forward pass (activations, weights),
 * E5M2 for the backward pass (gradients).  Returns the per-tensor scheme
 * name ("fp8-e4m3-tensor" or "fp8-e5m2-tensor"). */
const char *fl_scale_hybrid(int backward);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_SCALE_H */
