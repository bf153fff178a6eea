/*
 * amp_train.h — precision policies and the MLP training lab.
 *
 * An MLP (depth linear layers, activation between them, softmax
 * cross-entropy) is trained with SGD+momentum or Adam under a policy that
 * says, PyTorch-autocast style, which format each op runs in:
 *  - linear layers (matmuls): operands cast to `compute`, products summed
 *    under `accum`, output rounded into `compute`;
 *  - activations run in the format of their input;
 *  - log-softmax, the loss and its reduction: binary32;
 *  - the loss is multiplied by the loss weight W and the scaler's scale S
 *    (binary32) before the backward pass, so every gradient carries the
 *    factor W*S; gradients flow back in `compute`; weight gradients are
 *    stored in `param`'s format;
 *  - master = 1: a binary32 master copy is updated from unscaled binary32
 *    gradients and rounded into `param` after each step; master = 0: the
 *    optimizer updates the `param`-format weights directly (each update
 *    rounded once into `param`, to nearest or stochastically; lost
 *    updates w + dw == w are counted);
 *  - the optimizer state is held in `state` (default: the format of the
 *    weights it updates); each of its updates is rounded once into it.
 */
#ifndef FPLAB_AMP_TRAIN_H
#define FPLAB_AMP_TRAIN_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"
#include "amp_data.h"
#include "amp_hist.h"
#include "amp_ops.h"
#include "amp_quant.h"
#include "amp_scaler.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_policy {
    char name[48];              /* as parsed, e.g. "fp16-static:1024" */
    const fl_format *compute;   /* matmul operands/outputs, activations */
    const fl_format *param;     /* model weights and their gradients */
    int master;                 /* 1: binary32 master weights */
    amp_accum accum;            /* dot products and reductions */
    amp_scaler_config scaler;
    amp_gemm_quant gq;          /* GEMM inputs quantized (fp8, mx policies;
                                   kind AMP_GQ_NONE for the others) */
    const fl_format *state;     /* optimizer state (SGD momentum, Adam m and
                                   v); NULL: the format of the weights the
                                   optimizer updates (param, or binary32
                                   for a master copy) */
    int update_rm;              /* rounding of the update w + dw into param
                                   when there is no master copy: FL_RNE
                                   (0) or FL_RSR (stochastic, a stream
                                   seeded by the run's seed) */
} amp_policy;

/* Policies by name:
 *   fp32, o0        everything binary32, no scaling
 *   fp16            autocast fp16, binary32 weights, NO loss scaling
 *   fp16-static:S   autocast fp16, binary32 weights, static scale S
 *   fp16-torch      autocast fp16, binary32 weights, GradScaler
 *   fp16-apex, o1   autocast fp16, binary32 weights, apex dynamic scaler
 *   o2              fp16 model and gradients, binary32 master, apex dynamic
 *   o3              fp16 everything, no master, scale 1
 *   bf16            autocast bfloat16, binary32 weights, no scaling
 *   bf16-pure       bfloat16 weights, gradients and optimizer state, no
 *                   master copy, no scaling
 * Simulated FP8 and MX training (amp_quant.h): every matrix product's
 * inputs quantized through fplab_scale, products summed in binary32;
 * everything else (activations, loss, bias, weights, optimizer) binary32,
 * no loss scaling:
 *   fp8-hybrid-delayed  Transformer Engine DelayedScaling, Format.HYBRID:
 *                       E4M3 activations and weights, E5M2 output
 *                       gradients; one amax history of 1024 per tensor,
 *                       amax_compute_algo "max", margin 0
 *   fp8-hybrid-current  the same formats, Float8CurrentScaling (each
 *                       tensor scaled by FP8_MAX / its own amax)
 *   fp8-e4m3-delayed, fp8-e4m3-current
 *                       the same with E4M3 for the gradients too
 *   mxfp8               Transformer Engine MXFP8BlockScaling: OCP MXFP8
 *                       E4M3 for every tensor, blocks of 32 along the
 *                       reduction axis, E8M0 scales rounded up (rceil)
 * A dynamic-scaler policy (fp16-torch, fp16-apex, o1, o2) may end in -iN:
 * growth interval (apex: scale window) N instead of 2000, e.g.
 * "fp16-torch-i50" (the lab's short-run GradScaler).
 * Accumulation defaults to binary32.  Returns 0 or -1 with err filled. */
int amp_policy_parse(amp_policy *p, const char *spec, char *err,
                     size_t errlen);

enum { AMP_ACT_RELU = 0, AMP_ACT_TANH = 1, AMP_ACT_GELU = 2 };
enum { AMP_OPT_SGD = 0, AMP_OPT_ADAM = 1 };
enum { AMP_LOSS_MEAN = 0, AMP_LOSS_SUM = 1 };
int amp_act_parse(const char *s);        /* relu tanh gelu; -1 if unknown */
const char *amp_act_name(int a);
int amp_opt_parse(const char *s);        /* sgd adam */
const char *amp_opt_name(int o);

/* What the step callback sees: the raw (pre-rounding, binary32) gradients
 * of one step, as computed under the current scale (multiply by
 * 1/scale_used for the unscaled values). */
typedef struct amp_step_view {
    int step;                  /* 0-based */
    int layers;
    float scale_used;
    const fl_format *compute;
    /* per layer l < layers: the weight gradient dW (in * out values, after
     * the all-reduce over ranks, before unscaling) and the gradient with
     * respect to the layer's output (batch * out values, the ranks' shards
     * one after the other), both before rounding into the compute format */
    const float *const *wgrad; const size_t *wgrad_n;
    const float *const *agrad; const size_t *agrad_n;
    /* per layer: the layer's input x_l (the last rank's rows x the
     * layer's inputs; values of the compute format) */
    const float *const *act; const size_t *act_n;
} amp_step_view;
typedef void (*amp_step_fn)(void *user, const amp_step_view *v);

typedef struct amp_train_config {
    amp_policy policy;
    int depth;              /* linear layers, >= 1 (default 3) */
    int width;              /* hidden units (default 64) */
    int activation;         /* AMP_ACT_* (relu) */
    int optimizer;          /* AMP_OPT_* (sgd) */
    double lr;              /* 0.05 sgd / 1e-3 adam */
    double momentum;        /* sgd (0.9) */
    double beta1, beta2, eps;   /* adam (0.9, 0.999, 1e-8) */
    int steps;              /* optimizer steps (default 300) */
    int batch;              /* global batch (default 64) */
    int ranks;              /* data-parallel ranks, batch % ranks == 0 (1) */
    uint64_t seed;          /* init, split and batch order */
    const char *data_path;  /* CSV or CSV.gz; a text when text_context > 0 */
    int text_context;       /* > 0: data_path is a text, read by
                               amp_dataset_from_text with this context (0) */
    int label_pos;          /* AMP_LABEL_LAST (digits) / AMP_LABEL_FIRST */
    double feature_scale;   /* 16 for digits; 0 = auto */
    double test_frac;       /* held-out fraction (0.2) */
    double init_gain;       /* multiplies the He/Xavier init std (1.0) */
    double init_std;        /* > 0: every weight drawn with this standard
                               deviation instead (GPT-2's 0.02); 0: He /
                               Xavier times init_gain */
    int micro_batches;      /* K > 1: gradient accumulation, as PyTorch
                               does it: the batch is split into K
                               micro-batches, each one's loss (mean over
                               its rows) divided by K before its backward
                               pass, and their weight gradients summed in
                               the parameter format; one optimizer step
                               per batch.  Excludes ranks > 1.  (1) */
    int loss_reduction;     /* AMP_LOSS_MEAN / AMP_LOSS_SUM */
    double loss_weight;     /* W > 0 multiplies the binary32 loss, and so
                               every gradient (1): the 1/N of a mean over N
                               accumulated micro-batches, or an auxiliary
                               loss's coefficient.  With SGD, lr/W gives the
                               same binary32 training (exactly when W is a
                               power of two and nothing leaves binary32's
                               normal range) */
    int eval_every;         /* test accuracy every N steps (0: end only) */
    int measure;            /* 1: per-step per-layer range stats */
    const fl_format *target;   /* format for range stats (default compute,
                                  or binary16 when compute is binary32) */
    amp_step_fn on_step;    /* optional, called after backward each step */
    void *user;
} amp_train_config;

/* Defaults above; policy "fp32"; data_path NULL (must be set). */
void amp_train_config_default(amp_train_config *c);

typedef struct amp_step_record {
    int step;
    float loss;           /* batch cross-entropy before the loss weight and
                             the scale (mean over ranks) */
    float scale_used;
    float scale_after;
    int skipped;
    uint32_t rank_inf;    /* bit r: rank r saw a non-finite gradient */
    uint64_t updates;     /* weight elements with a nonzero update */
    uint64_t lost;        /* of those, w + dw == w in the weight format */
    uint64_t v_zero;      /* Adam: state elements whose second moment v is
                             0 after this step's update while m is not (the
                             update is then lr m^ / eps) */
    float max_dw;         /* the largest |dw| of this step's updates */
    double test_acc;      /* NaN unless evaluated at this step */
    /* fp8/mx policies: the step's GEMM inputs per tensor kind (AMP_GQ_ACT,
     * AMP_GQ_WEIGHT, AMP_GQ_GRAD); all zero for the other policies */
    amp_gq_counts quant[AMP_GQ_TENSORS];
} amp_step_record;

typedef struct amp_layer_record {
    amp_range_stats wgrad;   /* weight gradient vs target at scale_used */
    amp_range_stats agrad;   /* output gradient vs target at scale_used */
    uint64_t updates, lost;
} amp_layer_record;

typedef struct amp_train_result {
    int steps, layers;
    amp_step_record *rec;       /* steps records */
    amp_layer_record *layer;    /* steps * layers (measure = 1), else NULL */
    size_t n_train, n_test, n_params;
    int skipped_steps;
    double final_test_acc;
    double final_loss;          /* loss of the last step */
    int diverged;               /* 1 if the loss became non-finite */
} amp_train_result;

/* Runs the configured training.  Returns 0, or -1 with err filled (bad
 * config, unreadable data).  The result is a pure function of the config:
 * the same config reproduces every bit. */
int amp_train_run(const amp_train_config *c, amp_train_result *r, char *err,
                  size_t errlen);
void amp_train_result_free(amp_train_result *r);

/* Step-by-step interface (what amp_train_run uses): a trainer owns the
 * model, optimizer and scaler state for a config and an already loaded
 * dataset (which must outlive it; c->data_path is ignored). */
typedef struct amp_trainer amp_trainer;
amp_trainer *amp_trainer_create(const amp_train_config *c,
                                const amp_dataset *d, char *err,
                                size_t errlen);
/* One optimizer step (or skipped step).  rec is filled; layers (may be
 * NULL) receives one record per layer when c->measure is set. */
void amp_trainer_step(amp_trainer *t, amp_step_record *rec,
                      amp_layer_record *layers);
/* Accuracy on the held-out split under the policy's forward pass. */
double amp_trainer_test_accuracy(amp_trainer *t);
int amp_trainer_layers(const amp_trainer *t);
/* The policy's forward pass on `rows` input rows x (rows * dim binary32
 * values, rounded into the compute format first; rows <= batch / ranks)
 * into logits (rows * classes).  Changes no state: delayed scaling uses the
 * current scales and records no amax.  Returns 0, or -1 when rows is too
 * large. */
int amp_trainer_forward(amp_trainer *t, const float *x, size_t rows,
                        float *logits);
/* Layer l's weights (in x out, row-major, values of the param format) and
 * *bias (out values); NULL when l is not a layer. */
const float *amp_trainer_weights(const amp_trainer *t, int l, size_t *in,
                                 size_t *out, const float **bias);
/* The delayed-scaling state of tensor `which` (AMP_GQ_ACT, AMP_GQ_WEIGHT,
 * AMP_GQ_GRAD) of layer l; NULL unless the policy scales with delay. */
const fl_scale_delayed *amp_trainer_delayed(const amp_trainer *t, int l,
                                            int which);
size_t amp_trainer_train_size(const amp_trainer *t);
size_t amp_trainer_test_size(const amp_trainer *t);
size_t amp_trainer_param_count(const amp_trainer *t);
void amp_trainer_free(amp_trainer *t);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_TRAIN_H */
