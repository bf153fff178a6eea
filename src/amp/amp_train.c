/*
 * amp_train.c — the MLP training lab under a precision policy.
 *
 * Data flow of one step (B = batch, R = ranks, Bs = B / R):
 *   for each rank r (rows r*Bs .. (r+1)*Bs of the batch):
 *     forward:  x_l (compute) -> z_l = x_l W_l + b_l (gemm, rounded into
 *               compute) -> x_{l+1} = act(z_l) (in compute) ... logits
 *     loss:     log-softmax and cross-entropy in binary32, times the loss
 *               weight W and the scale S
 *     backward: dlogits (binary32) -> compute; per layer dW, db, dx by
 *               gemm in compute; activation backward in compute
 *   all-reduce: dW, db summed over ranks in rank order, each addition
 *               rounded into the parameter format, then averaged (mean loss)
 *   found_inf:  rank r checks shard r of the flattened reduced gradient
 *               (as sharded/FSDP scalers do); the flags are OR-reduced
 *   scaler:     skip = update(found_inf); if not skipped: unscale in
 *               binary32, optimizer step on the master (binary32) or the
 *               parameter-format weights, each update rounded once
 * fp8/mx policies (policy.gq, amp_quant.h): each product's inputs are
 * first quantized and dequantized (xq, Wq, WqT, qa..qc), blocks along the
 * product's reduction axis; the bias gradient sums the unquantized dz (as
 * Transformer Engine's fused bias-gradient kernels do); delayed scaling
 * records each tensor's amax during the step and updates every scale at
 * its end, so the amax of step t sets the scale of step t + 1.
 * Invariant: every float buffer tagged with a format holds only values of
 * that format (W, b: param; master: binary32; x_l, z_l, dz: compute).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp_train.h"

#define AMP_MAX_LAYERS 64
#define AMP_MAX_RANKS 32

struct amp_trainer {
    amp_train_config c;
    const amp_dataset *d;
    int L;
    size_t dims[AMP_MAX_LAYERS + 1];
    size_t n_train, n_test, *train_idx, *test_idx, *order, cursor;
    uint64_t epoch;
    size_t Bs;                  /* rows per rank */
    const fl_format *cf, *pf;   /* compute, param */
    const fl_format *target;
    int has_master;
    amp_scaler sc;
    long step, adam_t;
    int have_buf;
    /* per layer (W: in x out row-major, b: out) */
    float *W[AMP_MAX_LAYERS], *b[AMP_MAX_LAYERS];     /* param format */
    float *MW[AMP_MAX_LAYERS], *Mb[AMP_MAX_LAYERS];   /* master or NULL */
    float *s1W[AMP_MAX_LAYERS], *s1b[AMP_MAX_LAYERS]; /* momentum / m */
    float *s2W[AMP_MAX_LAYERS], *s2b[AMP_MAX_LAYERS]; /* adam v */
    float *Wc[AMP_MAX_LAYERS], *bc[AMP_MAX_LAYERS];   /* compute casts */
    float *WcT[AMP_MAX_LAYERS];                       /* out x in */
    float *gW[AMP_MAX_LAYERS], *gb[AMP_MAX_LAYERS];   /* reduced grads */
    float *gWr[AMP_MAX_LAYERS], *gbr[AMP_MAX_LAYERS]; /* one rank's */
    float *rawW[AMP_MAX_LAYERS], *rawWr[AMP_MAX_LAYERS];
    float *rawA[AMP_MAX_LAYERS];                      /* B x out */
    float *xin[AMP_MAX_LAYERS + 1], *z[AMP_MAX_LAYERS];
    float *dz, *da, *xb, *tmp, *tmp2;
    int *yb;
    size_t *bidx;               /* batch row indices */
    size_t maxdim, maxw;
    /* GEMM-input quantization (policy.gq.kind != AMP_GQ_NONE) */
    int gq;                                     /* amp_gq_kind */
    int gq_train;               /* 1 inside a step: amax kept, counts kept */
    fl_scale_delayed ds[AMP_MAX_LAYERS][AMP_GQ_TENSORS];
    float *xq[AMP_MAX_LAYERS];  /* Bs x in: x_l, forward product */
    float *Wq[AMP_MAX_LAYERS];  /* in x out: W_l, forward product */
    float *WqT[AMP_MAX_LAYERS]; /* out x in: W_l, input-gradient product */
    float *qa, *qb, *qc;        /* Bs x maxdim: dz (rows), x and dz (batch) */
    amp_gq_counts gqc[AMP_GQ_TENSORS];          /* this step's */
    const fl_format *sf;        /* optimizer state format, or NULL */
    fl_ctx upd_ctx;             /* rounding of w + dw (no master copy) */
    int micro;                  /* 1: the R row groups are micro-batches */
    uint64_t v_zero;            /* this step's (amp_step_record) */
    float max_dw;
};

/* ------------------------------------------------------------------ */

/* Standard normal by Irwin-Hall (sum of 12 uniforms minus 6): only exact
 * additions of 2^-53-grid values, so the same on every platform. */
static double normal12(uint64_t *s)
{
    double t = 0;
    for (int i = 0; i < 12; i++)
        t += (double)(amp_splitmix64(s) >> 11) * 0x1p-53;
    return t - 6.0;
}

void amp_train_config_default(amp_train_config *c)
{
    char err[128];
    *c = (amp_train_config){
        .depth = 3, .width = 64,
        .activation = AMP_ACT_RELU, .optimizer = AMP_OPT_SGD,
        .lr = 0.05, .momentum = 0.9, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8,
        .steps = 300, .batch = 64, .ranks = 1, .seed = 1,
        .label_pos = AMP_LABEL_LAST, .feature_scale = 16, .test_frac = 0.2,
        .init_gain = 1.0, .init_std = 0.0, .micro_batches = 1,
        .loss_reduction = AMP_LOSS_MEAN, .loss_weight = 1.0,
    };
    amp_policy_parse(&c->policy, "fp32", err, sizeof err);
}

static int fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return -1;
}

static int check_config(const amp_train_config *c, const amp_dataset *d,
                        char *err, size_t errlen)
{
    if (!c->policy.compute || !c->policy.param)
        return fail(err, errlen, "policy not set");
    if (c->depth < 1 || c->depth > AMP_MAX_LAYERS)
        return fail(err, errlen, "depth must be 1..64");
    if (c->width < 1 || c->width > 65536)
        return fail(err, errlen, "width must be 1..65536");
    if (c->steps < 0)
        return fail(err, errlen, "steps must be >= 0");
    if (c->batch < 1)
        return fail(err, errlen, "batch must be >= 1");
    if (c->ranks < 1 || c->ranks > AMP_MAX_RANKS || c->batch % c->ranks)
        return fail(err, errlen, "ranks must be 1..32 and divide the batch");
    if (c->micro_batches < 1 || c->micro_batches > 4096 ||
        c->batch % c->micro_batches)
        return fail(err, errlen, "micro-batches must be 1..4096 and divide "
                                 "the batch");
    if (c->micro_batches > 1 && c->ranks > 1)
        return fail(err, errlen, "micro-batches (gradient accumulation) and "
                                 "ranks cannot both exceed 1");
    if (!(c->init_std >= 0) || !isfinite(c->init_std))
        return fail(err, errlen, "init std must be 0 (He/Xavier) or positive");
    if (c->policy.update_rm != FL_RNE && c->policy.update_rm != FL_RSR)
        return fail(err, errlen, "the weight update rounds to nearest even "
                                 "or stochastically");
    if (!(c->lr > 0) || !isfinite(c->lr))
        return fail(err, errlen, "lr must be positive");
    if (!(c->momentum >= 0 && c->momentum < 1))
        return fail(err, errlen, "momentum must be in [0, 1)");
    if (!(c->test_frac > 0 && c->test_frac < 1))
        return fail(err, errlen, "test fraction must be in (0, 1)");
    if (!(c->init_gain > 0) || !isfinite(c->init_gain))
        return fail(err, errlen, "init gain must be positive");
    if (!(c->loss_weight > 0) || !((float)c->loss_weight > 0) ||
        !isfinite((float)c->loss_weight))
        return fail(err, errlen, "loss weight must be positive and a finite "
                                 "nonzero binary32 value");
    if (c->activation < 0 || c->activation > AMP_ACT_GELU ||
        c->optimizer < 0 || c->optimizer > AMP_OPT_ADAM)
        return fail(err, errlen, "bad activation or optimizer");
    if (c->policy.accum.kind < 0 || c->policy.accum.kind >= AMP_ACC_COUNT)
        return fail(err, errlen, "bad accumulation policy");
    const amp_gemm_quant *g = &c->policy.gq;
    if (g->kind < AMP_GQ_NONE || g->kind > AMP_GQ_BLOCK)
        return fail(err, errlen, "bad GEMM quantization kind");
    if (g->kind != AMP_GQ_NONE &&
        ((g->kind == AMP_GQ_BLOCK) != (g->fwd.kind != FL_SCALE_TENSOR) ||
         (g->kind == AMP_GQ_BLOCK) != (g->bwd.kind != FL_SCALE_TENSOR)))
        return fail(err, errlen, "GEMM quantization: per-tensor kinds need "
                                 "per-tensor schemes, the block kind block "
                                 "schemes");
    size_t nt = (size_t)floor(c->test_frac * (double)d->n + 0.5);
    if (nt < 1 || nt >= d->n)
        return fail(err, errlen, "dataset too small for a train/test split");
    return 0;
}

static void *zalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}
#define ALLOC(p, n) do { if (!((p) = zalloc((size_t)(n), sizeof *(p)))) goto oom; } while (0)

amp_trainer *amp_trainer_create(const amp_train_config *c,
                                const amp_dataset *d, char *err,
                                size_t errlen)
{
    if (check_config(c, d, err, errlen))
        return NULL;
    amp_trainer *t = calloc(1, sizeof *t);
    if (!t) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    t->c = *c;
    t->d = d;
    t->L = c->depth;
    t->cf = c->policy.compute;
    t->pf = c->policy.param;
    t->has_master = c->policy.master && !amp_format_is_f32(t->pf);
    t->target = c->target ? c->target
              : amp_format_is_f32(t->cf) ? &fl_binary16 : t->cf;
    if (amp_scaler_init(&t->sc, &c->policy.scaler)) {
        fail(err, errlen, "invalid loss-scaler settings");
        free(t);
        return NULL;
    }
    t->dims[0] = d->dim;
    for (int l = 1; l < t->L; l++)
        t->dims[l] = (size_t)c->width;
    t->dims[t->L] = (size_t)d->classes;
    t->micro = c->micro_batches > 1;
    t->Bs = (size_t)(c->batch / (t->micro ? c->micro_batches : c->ranks));
    t->sf = c->policy.state;
    t->upd_ctx = fl_ctx_make(c->policy.update_rm);
    t->upd_ctx.sr_seed = c->seed * 0xA24BAED4963EE407ull + 0x5EEDull;
    t->maxdim = 0;
    t->maxw = 0;
    for (int l = 0; l <= t->L; l++)
        if (t->dims[l] > t->maxdim)
            t->maxdim = t->dims[l];
    for (int l = 0; l < t->L; l++)
        if (t->dims[l] * t->dims[l + 1] > t->maxw)
            t->maxw = t->dims[l] * t->dims[l + 1];

    /* split: a seeded permutation; the first n_test rows are held out */
    size_t n = d->n;
    size_t *perm;
    ALLOC(perm, n);
    amp_permutation(perm, n, c->seed ^ 0x5EED5EED5EED5EEDull);
    t->n_test = (size_t)floor(c->test_frac * (double)n + 0.5);
    t->n_train = n - t->n_test;
    t->test_idx = perm;
    t->train_idx = perm + t->n_test;
    ALLOC(t->order, t->n_train);
    amp_permutation(t->order, t->n_train, c->seed * 0x9E3779B97F4A7C15ull + 2);

    uint64_t rs = c->seed + 0xD1B54A32D192ED03ull;
    size_t B = (size_t)c->batch;
    for (int l = 0; l < t->L; l++) {
        size_t in = t->dims[l], out = t->dims[l + 1], nw = in * out;
        ALLOC(t->W[l], nw); ALLOC(t->b[l], out);
        ALLOC(t->s1W[l], nw); ALLOC(t->s1b[l], out);
        ALLOC(t->s2W[l], nw); ALLOC(t->s2b[l], out);
        ALLOC(t->Wc[l], nw); ALLOC(t->bc[l], out); ALLOC(t->WcT[l], nw);
        ALLOC(t->gW[l], nw); ALLOC(t->gb[l], out);
        ALLOC(t->gWr[l], nw); ALLOC(t->gbr[l], out);
        ALLOC(t->rawW[l], nw); ALLOC(t->rawWr[l], nw);
        ALLOC(t->rawA[l], B * out);
        ALLOC(t->z[l], t->Bs * out);
        ALLOC(t->xin[l], t->Bs * in);
        /* He init for relu, Xavier-like for tanh/gelu, times init_gain */
        double sd = c->init_std > 0 ? c->init_std
                    : c->init_gain *
                      sqrt((c->activation == AMP_ACT_RELU ? 2.0 : 1.0) /
                           (double)in);
        for (size_t i = 0; i < nw; i++)
            t->W[l][i] = (float)(sd * normal12(&rs));
        if (t->has_master) {
            ALLOC(t->MW[l], nw); ALLOC(t->Mb[l], out);
            memcpy(t->MW[l], t->W[l], nw * sizeof(float));
        }
        amp_round(t->pf, t->W[l], nw, NULL);
    }
    ALLOC(t->xin[t->L], t->Bs * t->dims[t->L]);
    ALLOC(t->dz, t->Bs * t->maxdim);
    ALLOC(t->da, t->Bs * t->maxdim);
    ALLOC(t->xb, B * d->dim);
    ALLOC(t->yb, B);
    ALLOC(t->bidx, B);
    ALLOC(t->tmp, t->maxw > B * t->maxdim ? t->maxw : B * t->maxdim);
    ALLOC(t->tmp2, t->maxw);
    t->gq = c->policy.gq.kind;
    if (t->gq != AMP_GQ_NONE) {
        for (int l = 0; l < t->L; l++) {
            size_t in = t->dims[l], out = t->dims[l + 1];
            ALLOC(t->xq[l], t->Bs * in);
            ALLOC(t->Wq[l], in * out);
            ALLOC(t->WqT[l], in * out);
        }
        ALLOC(t->qa, t->Bs * t->maxdim);
        ALLOC(t->qb, t->Bs * t->maxdim);
        ALLOC(t->qc, t->Bs * t->maxdim);
    }
    if (t->gq == AMP_GQ_DELAYED)
        for (int l = 0; l < t->L; l++)
            for (int k = 0; k < AMP_GQ_TENSORS; k++) {
                const amp_gemm_quant *g = &c->policy.gq;
                if (fl_scale_delayed_init(&t->ds[l][k], k == AMP_GQ_GRAD ? &g->bwd
                                                                         : &g->fwd,
                                          g->history, g->algo, g->margin, err,
                                          errlen)) {
                    amp_trainer_free(t);
                    return NULL;
                }
            }
    return t;
oom:
    amp_trainer_free(t);
    fail(err, errlen, "out of memory");
    return NULL;
}

void amp_trainer_free(amp_trainer *t)
{
    if (!t)
        return;
    for (int l = 0; l < AMP_MAX_LAYERS; l++) {
        free(t->W[l]); free(t->b[l]); free(t->MW[l]); free(t->Mb[l]);
        free(t->s1W[l]); free(t->s1b[l]); free(t->s2W[l]); free(t->s2b[l]);
        free(t->Wc[l]); free(t->bc[l]); free(t->WcT[l]);
        free(t->gW[l]); free(t->gb[l]); free(t->gWr[l]); free(t->gbr[l]);
        free(t->rawW[l]); free(t->rawWr[l]); free(t->rawA[l]);
        free(t->z[l]); free(t->xin[l]);
        free(t->xq[l]); free(t->Wq[l]); free(t->WqT[l]);
        for (int k = 0; k < AMP_GQ_TENSORS; k++)
            fl_scale_delayed_free(&t->ds[l][k]);
    }
    free(t->qa); free(t->qb); free(t->qc);
    free(t->xin[AMP_MAX_LAYERS]);
    free(t->test_idx);   /* train_idx points into the same block */
    free(t->order);
    free(t->dz); free(t->da); free(t->xb); free(t->yb); free(t->bidx);
    free(t->tmp); free(t->tmp2);
    free(t);
}

int amp_trainer_layers(const amp_trainer *t) { return t->L; }
size_t amp_trainer_train_size(const amp_trainer *t) { return t->n_train; }
size_t amp_trainer_test_size(const amp_trainer *t) { return t->n_test; }
size_t amp_trainer_param_count(const amp_trainer *t)
{
    size_t p = 0;
    for (int l = 0; l < t->L; l++)
        p += t->dims[l] * t->dims[l + 1] + t->dims[l + 1];
    return p;
}

/* ------------------------------------------------------------------ */

/* Quantize-dequantize x (rows x cols) into deq for a product: tensor
 * `which` (AMP_GQ_*) of layer l, blocks along axis (amp_quantize_matrix).
 * Delayed scaling takes the tensor's current scale; inside a training step
 * the amax is recorded and the counts kept.  Out of memory fills deq with
 * NaN: the loss turns NaN and the run reads as diverged, never a crash. */
static void gq_apply(amp_trainer *t, int l, int which, const float *x,
                     size_t rows, size_t cols, int axis, float *deq)
{
    const amp_gemm_quant *g = &t->c.policy.gq;
    const fl_scale_scheme *s = which == AMP_GQ_GRAD ? &g->bwd : &g->fwd;
    fl_scale_delayed *d = t->gq == AMP_GQ_DELAYED ? &t->ds[l][which] : NULL;
    fl_scale_stats st;
    memset(&st, 0, sizeof st);
    float amax = 0.0f;
    char err[160];
    if (amp_quantize_matrix(s, x, rows, cols, axis, d ? d->scale : 0.0f, deq,
                            t->gq_train ? &st : NULL, d ? &amax : NULL, err,
                            sizeof err)) {
        for (size_t i = 0; i < rows * cols; i++)
            deq[i] = NAN;
        return;
    }
    if (!t->gq_train)
        return;
    if (d)
        fl_scale_delayed_record(d, amax);
    t->gqc[which].nonzero += st.nonzero;
    t->gqc[which].underflow += st.underflow;
    t->gqc[which].saturated += st.saturated;
}

static void transpose(float *dst, const float *src, size_t rows, size_t cols)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t o = 0; o < cols; o++)
            dst[o * rows + i] = src[i * cols + o];
}

/* Weights cast into the compute format for this step (autocast casts the
 * binary32 weights at every op; for O2/O3 the cast is the identity); under
 * an fp8/mx policy, quantized for the forward product (blocks along the
 * inputs) and for the input-gradient product (blocks along the outputs). */
static void cast_weights(amp_trainer *t)
{
    for (int l = 0; l < t->L; l++) {
        size_t in = t->dims[l], out = t->dims[l + 1];
        memcpy(t->Wc[l], t->W[l], in * out * sizeof(float));
        memcpy(t->bc[l], t->b[l], out * sizeof(float));
        amp_round(t->cf, t->Wc[l], in * out, NULL);
        amp_round(t->cf, t->bc[l], out, NULL);
        transpose(t->WcT[l], t->Wc[l], in, out);
        if (t->gq == AMP_GQ_NONE)
            continue;
        gq_apply(t, l, AMP_GQ_WEIGHT, t->Wc[l], in, out, 0, t->Wq[l]);
        if (t->gq == AMP_GQ_BLOCK) {
            gq_apply(t, l, AMP_GQ_WEIGHT, t->Wc[l], in, out, 1, t->tmp2);
            transpose(t->WqT[l], t->tmp2, in, out);
        } else {
            transpose(t->WqT[l], t->Wq[l], in, out);   /* one tensor scale */
        }
    }
}

static const float gelu_k = 0x1.988454p-1f;    /* sqrt(2/pi) */
static const float gelu_c = 0x1.6e45b2p-5f;    /* 0.044715 */

static void act_forward(int act, const fl_format *f, const float *x,
                        float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        switch (act) {
        case AMP_ACT_TANH: y[i] = tanhf(v); break;
        case AMP_ACT_GELU: {
            float u = gelu_k * (v + gelu_c * v * v * v);
            y[i] = 0.5f * v * (1.0f + tanhf(u));
            break;
        }
        default: y[i] = v > 0 ? v : 0.0f; break;
        }
    }
    amp_round(f, y, n, NULL);
}

/* dz = da * act'(z) in binary32 arithmetic, rounded once into f. */
static void act_backward(int act, const fl_format *f, const float *da,
                         const float *z, const float *y, float *dz, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (act) {
        case AMP_ACT_TANH: dz[i] = da[i] * (1.0f - y[i] * y[i]); break;
        case AMP_ACT_GELU: {
            float v = z[i];
            float u = gelu_k * (v + gelu_c * v * v * v);
            float th = tanhf(u);
            float du = gelu_k * (1.0f + 3.0f * gelu_c * v * v);
            float g = 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du;
            dz[i] = da[i] * g;
            break;
        }
        default: dz[i] = z[i] > 0 ? da[i] : 0.0f; break;
        }
    }
    amp_round(f, dz, n, NULL);
}

/* Forward of `rows` rows already in xin[0] (compute format). */
static void forward(amp_trainer *t, size_t rows)
{
    const amp_accum *acc = &t->c.policy.accum;
    for (int l = 0; l < t->L; l++) {
        size_t in = t->dims[l], out = t->dims[l + 1];
        const float *xl = t->xin[l], *Wl = t->Wc[l];
        if (t->gq != AMP_GQ_NONE) {
            gq_apply(t, l, AMP_GQ_ACT, t->xin[l], rows, in, 1, t->xq[l]);
            xl = t->xq[l];
            Wl = t->Wq[l];
        }
        amp_gemm(acc, t->cf, rows, out, in, xl, in, 1, Wl, out, t->bc[l],
                 t->z[l], NULL, NULL);
        if (l < t->L - 1)
            act_forward(t->c.activation, t->cf, t->z[l], t->xin[l + 1],
                        rows * out);
    }
}

static void load_rows(amp_trainer *t, const size_t *idx, size_t rows,
                      float *dst, int *y)
{
    size_t dim = t->d->dim;
    for (size_t i = 0; i < rows; i++) {
        memcpy(dst + i * dim, t->d->x + idx[i] * dim, dim * sizeof(float));
        if (y)
            y[i] = t->d->y[idx[i]];
    }
}

int amp_trainer_forward(amp_trainer *t, const float *x, size_t rows,
                        float *logits)
{
    if (rows > t->Bs)
        return -1;
    const int train = t->gq_train;
    t->gq_train = 0;
    cast_weights(t);
    memcpy(t->xin[0], x, rows * t->d->dim * sizeof(float));
    amp_round(t->cf, t->xin[0], rows * t->d->dim, NULL);
    forward(t, rows);
    memcpy(logits, t->z[t->L - 1], rows * t->dims[t->L] * sizeof(float));
    t->gq_train = train;
    return 0;
}

const float *amp_trainer_weights(const amp_trainer *t, int l, size_t *in,
                                 size_t *out, const float **bias)
{
    if (l < 0 || l >= t->L)
        return NULL;
    *in = t->dims[l];
    *out = t->dims[l + 1];
    *bias = t->b[l];
    return t->W[l];
}

const fl_scale_delayed *amp_trainer_delayed(const amp_trainer *t, int l,
                                            int which)
{
    if (t->gq != AMP_GQ_DELAYED || l < 0 || l >= t->L || which < 0 ||
        which >= AMP_GQ_TENSORS)
        return NULL;
    return &t->ds[l][which];
}

double amp_trainer_test_accuracy(amp_trainer *t)
{
    cast_weights(t);
    size_t correct = 0, C = t->dims[t->L];
    for (size_t i0 = 0; i0 < t->n_test; i0 += t->Bs) {
        size_t rows = t->n_test - i0 < t->Bs ? t->n_test - i0 : t->Bs;
        load_rows(t, t->test_idx + i0, rows, t->xin[0], t->yb);
        amp_round(t->cf, t->xin[0], rows * t->d->dim, NULL);
        forward(t, rows);
        const float *lg = t->z[t->L - 1];
        for (size_t i = 0; i < rows; i++) {
            size_t best = 0;
            for (size_t j = 1; j < C; j++)
                if (lg[i * C + j] > lg[i * C + best])
                    best = j;
            correct += (int)best == t->yb[i];
        }
    }
    return (double)correct / (double)t->n_test;
}

/* Loss of the rows in z[L-1] (binary32 log-softmax cross-entropy, reduced
 * over the rows) and its gradient times g into dlog (binary32). */
static float loss_and_grad(amp_trainer *t, size_t rows, const int *y,
                           float g, float *dlog)
{
    size_t C = t->dims[t->L];
    const float *lg = t->z[t->L - 1];
    float total = 0.0f;
    for (size_t i = 0; i < rows; i++) {
        const float *zi = lg + i * C;
        float mx = zi[0];
        for (size_t j = 1; j < C; j++)
            if (zi[j] > mx)
                mx = zi[j];
        float s = 0.0f;
        for (size_t j = 0; j < C; j++)
            s += expf(zi[j] - mx);
        float lse = mx + logf(s);
        total += lse - zi[y[i]];
        for (size_t j = 0; j < C; j++) {
            float p = expf(zi[j] - lse);
            dlog[i * C + j] = p * g - ((int)j == y[i] ? g : 0.0f);
        }
    }
    return t->c.loss_reduction == AMP_LOSS_MEAN ? total / (float)rows
                                                : total;
}

static void next_batch(amp_trainer *t, size_t *idx, size_t B)
{
    for (size_t i = 0; i < B; i++) {
        if (t->cursor == t->n_train) {
            t->cursor = 0;
            t->epoch++;
            amp_permutation(t->order, t->n_train,
                            (t->c.seed + t->epoch) * 0x9E3779B97F4A7C15ull + 2);
        }
        idx[i] = t->train_idx[t->order[t->cursor++]];
    }
}

/* Which ranks own a non-finite element: rank r owns the r-th of R equal
 * slices of the flattened gradient (layers' W then b, in order). */
static uint32_t rank_flags(const amp_trainer *t)
{
    size_t P = amp_trainer_param_count(t), off = 0;
    uint32_t mask = 0;
    unsigned R = (unsigned)t->c.ranks;
    for (int l = 0; l < t->L; l++) {
        size_t nw = t->dims[l] * t->dims[l + 1], nb = t->dims[l + 1];
        const float *arr[2] = {t->gW[l], t->gb[l]};
        size_t len[2] = {nw, nb};
        for (int a = 0; a < 2; a++) {
            if (amp_any_nonfinite(arr[a], len[a]))
                for (size_t i = 0; i < len[a]; i++)
                    if (!isfinite(arr[a][i]))
                        mask |= 1u << (unsigned)(((unsigned __int128)(off + i) * R) / P);
            off += len[a];
        }
    }
    return mask;
}

/* One optimizer update of n weights w (format f: binary32 for master
 * weights) from unscaled gradients g.  Returns lost updates; *upd counts
 * nonzero updates. */
static uint64_t opt_update(amp_trainer *t, const fl_format *f, float *w,
                           float *s1, float *s2, const float *g, size_t n,
                           uint64_t *upd)
{
    float *dw = t->tmp, *wn = t->tmp2;
    const amp_train_config *c = &t->c;
    const fl_format *sf = t->sf ? t->sf : f;   /* the state's format */
    if (c->optimizer == AMP_OPT_SGD) {
        const float m = (float)c->momentum, nlr = (float)-c->lr;
        if (m == 0.0f) {
            memcpy(s1, g, n * sizeof *s1);
        } else if (!t->have_buf) {
            memcpy(s1, g, n * sizeof *s1);          /* torch: buf = grad */
            amp_round(sf, s1, n, NULL);
        } else {
            for (size_t i = 0; i < n; i++)
                s1[i] = s1[i] * m;
            amp_round(sf, s1, n, NULL);
            for (size_t i = 0; i < n; i++)
                s1[i] = s1[i] + g[i];
            amp_round(sf, s1, n, NULL);
        }
        for (size_t i = 0; i < n; i++)
            dw[i] = nlr * s1[i];
    } else {
        const float b1 = (float)c->beta1, b2 = (float)c->beta2;
        const float bc1 = (float)(1.0 - pow(c->beta1, (double)t->adam_t));
        const float bc2s = sqrtf((float)(1.0 - pow(c->beta2, (double)t->adam_t)));
        const float step = (float)c->lr / bc1, eps = (float)c->eps;
        for (size_t i = 0; i < n; i++) {
            s1[i] = b1 * s1[i] + (1.0f - b1) * g[i];
            s2[i] = b2 * s2[i] + (1.0f - b2) * g[i] * g[i];
        }
        amp_round(sf, s1, n, NULL);
        amp_round(sf, s2, n, NULL);
        for (size_t i = 0; i < n; i++) {
            dw[i] = -step * s1[i] / (sqrtf(s2[i]) / bc2s + eps);
            t->v_zero += (uint64_t)(s2[i] == 0.0f && s1[i] != 0.0f);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (fabsf(dw[i]) > t->max_dw || dw[i] != dw[i])
            t->max_dw = fabsf(dw[i]);
    if (t->upd_ctx.rm == FL_RSR && !amp_format_is_f32(f)) {
        /* element i of this update draws index sr_index + i; the next
         * update starts after it (layers in order: a fixed stream) */
        amp_add_round_ctx(f, wn, w, dw, n, &t->upd_ctx, NULL);
        t->upd_ctx.sr_index += n;
    } else {
        amp_add_round(f, wn, w, dw, n, NULL);
    }
    uint64_t lost = 0, u = 0;
    for (size_t i = 0; i < n; i++) {
        int nz = dw[i] != 0.0f;
        u += (uint64_t)nz;
        lost += (uint64_t)(nz && wn[i] == w[i]);
    }
    memcpy(w, wn, n * sizeof *w);
    *upd += u;
    return lost;
}

void amp_trainer_step(amp_trainer *t, amp_step_record *rec,
                      amp_layer_record *layers)
{
    const amp_train_config *c = &t->c;
    const amp_accum *acc = &c->policy.accum;
    const size_t B = (size_t)c->batch, Bs = t->Bs, dim = t->d->dim;
    const int L = t->L, R = t->micro ? c->micro_batches : c->ranks;
    const size_t C = t->dims[L];
    size_t *idx = t->bidx;
    memset(rec, 0, sizeof *rec);
    rec->step = (int)t->step;
    rec->test_acc = NAN;

    t->v_zero = 0;
    t->max_dw = 0.0f;
    next_batch(t, idx, B);
    load_rows(t, idx, B, t->xb, t->yb);
    t->gq_train = 1;
    memset(t->gqc, 0, sizeof t->gqc);
    cast_weights(t);
    const float S = amp_scaler_scale(&t->sc);
    rec->scale_used = S;
    /* d(W*S*loss)/dlogit = g0 * (softmax - onehot); W = 1 multiplies
     * exactly, so the default run is unchanged bit for bit */
    float WS = S * (float)c->loss_weight;
    if (t->micro)   /* each micro-batch's loss divided by K (a power of
                       two divides exactly) */
        WS = WS / (float)c->micro_batches;
    const float g0 = c->loss_reduction == AMP_LOSS_MEAN ? WS / (float)Bs : WS;
    float loss = 0.0f;
    static const float one = 1.0f;

    for (int r = 0; r < R; r++) {
        memcpy(t->xin[0], t->xb + (size_t)r * Bs * dim, Bs * dim * sizeof(float));
        amp_round(t->cf, t->xin[0], Bs * dim, NULL);
        forward(t, Bs);
        float *dlog = t->rawA[L - 1] + (size_t)r * Bs * C;
        float lr_ = loss_and_grad(t, Bs, t->yb + (size_t)r * Bs, g0, dlog);
        loss = r == 0 ? lr_ : loss + lr_;
        memcpy(t->dz, dlog, Bs * C * sizeof(float));
        amp_round(t->cf, t->dz, Bs * C, NULL);      /* the autocast seam */
        for (int l = L - 1; l >= 0; l--) {
            size_t in = t->dims[l], out = t->dims[l + 1];
            /* the products' inputs: as computed, or quantized (dz along
             * its rows for dz W^T; x and dz along the batch for x^T dz) */
            const float *xw = t->xin[l], *dzw = t->dz, *dza = t->dz;
            const float *Wt = t->WcT[l];
            if (t->gq == AMP_GQ_BLOCK) {
                if (l > 0) {
                    gq_apply(t, l, AMP_GQ_GRAD, t->dz, Bs, out, 1, t->qa);
                    dza = t->qa;
                }
                gq_apply(t, l, AMP_GQ_ACT, t->xin[l], Bs, in, 0, t->qb);
                gq_apply(t, l, AMP_GQ_GRAD, t->dz, Bs, out, 0, t->qc);
                xw = t->qb;
                dzw = t->qc;
                Wt = t->WqT[l];
            } else if (t->gq != AMP_GQ_NONE) {
                /* one tensor scale: the forward's x, one dz for both */
                gq_apply(t, l, AMP_GQ_GRAD, t->dz, Bs, out, 1, t->qa);
                dza = dzw = t->qa;
                xw = t->xq[l];
                Wt = t->WqT[l];
            }
            amp_gemm(acc, t->cf, in, out, Bs, xw, 1, in, dzw, out,
                     NULL, t->gWr[l], t->rawWr[l], NULL);
            amp_gemm(acc, t->cf, 1, out, Bs, &one, 0, 0, t->dz, out, NULL,
                     t->gbr[l], NULL, NULL);
            if (l > 0) {
                float *rawa = t->rawA[l - 1] + (size_t)r * Bs * in;
                amp_gemm(acc, t->cf, Bs, in, out, dza, out, 1, Wt,
                         in, NULL, t->da, rawa, NULL);
                act_backward(c->activation, t->cf, t->da, t->z[l - 1],
                             t->xin[l], t->dz, Bs * in);
            }
            size_t nw = in * out;
            if (r == 0) {
                memcpy(t->gW[l], t->gWr[l], nw * sizeof(float));
                memcpy(t->gb[l], t->gbr[l], out * sizeof(float));
                memcpy(t->rawW[l], t->rawWr[l], nw * sizeof(float));
            } else {
                amp_add_round(t->pf, t->gW[l], t->gW[l], t->gWr[l], nw, NULL);
                amp_add_round(t->pf, t->gb[l], t->gb[l], t->gbr[l], out, NULL);
                for (size_t i = 0; i < nw; i++)
                    t->rawW[l][i] += t->rawWr[l][i];
            }
        }
    }
    if (R > 1 && c->loss_reduction == AMP_LOSS_MEAN) {
        const float inv = 1.0f / (float)R;
        loss = loss * inv;
        /* micro-batches: the 1/K was applied to each loss, and the summed
         * gradients are the batch's; ranks: the all-reduce averages */
        for (int l = 0; l < L && !t->micro; l++) {
            size_t nw = t->dims[l] * t->dims[l + 1], out = t->dims[l + 1];
            for (size_t i = 0; i < nw; i++) {
                t->gW[l][i] *= inv;
                t->rawW[l][i] *= inv;
            }
            for (size_t i = 0; i < out; i++)
                t->gb[l][i] *= inv;
            amp_round(t->pf, t->gW[l], nw, NULL);
            amp_round(t->pf, t->gb[l], out, NULL);
        }
    }
    rec->loss = loss;

    uint32_t mask = rank_flags(t);
    rec->rank_inf = mask;
    if (c->on_step) {
        const float *wv[AMP_MAX_LAYERS], *av[AMP_MAX_LAYERS], *xv[AMP_MAX_LAYERS];
        size_t wn[AMP_MAX_LAYERS], an[AMP_MAX_LAYERS], xn[AMP_MAX_LAYERS];
        for (int l = 0; l < L; l++) {
            wv[l] = t->rawW[l];
            wn[l] = t->dims[l] * t->dims[l + 1];
            av[l] = t->rawA[l];
            an[l] = B * t->dims[l + 1];
            xv[l] = t->xin[l];
            xn[l] = Bs * t->dims[l];
        }
        amp_step_view v = {(int)t->step, L, S, t->cf, wv, wn, av, an, xv, xn};
        c->on_step(c->user, &v);
    }
    if (layers) {
        memset(layers, 0, (size_t)L * sizeof *layers);
        if (c->measure)
            for (int l = 0; l < L; l++) {
                amp_range_stats_add(&layers[l].wgrad, t->target, t->rawW[l],
                                    t->dims[l] * t->dims[l + 1], 1.0f);
                amp_range_stats_add(&layers[l].agrad, t->target, t->rawA[l],
                                    B * t->dims[l + 1], 1.0f);
            }
    }

    int skip = amp_scaler_update(&t->sc, mask != 0);
    rec->skipped = skip;
    rec->scale_after = amp_scaler_scale(&t->sc);
    if (!skip) {
        /* unscale with the scale this step used: GradScaler's
         * inv_scale = (float)(1.0 / (double)scale), taken before update */
        const float invS = (float)(1.0 / (double)S);
        if (c->optimizer == AMP_OPT_ADAM)
            t->adam_t++;
        for (int l = 0; l < L; l++) {
            size_t nw = t->dims[l] * t->dims[l + 1], out = t->dims[l + 1];
            int dummy = 0;
            amp_unscale(t->gW[l], nw, invS, &dummy);
            amp_unscale(t->gb[l], out, invS, &dummy);
            const fl_format *f = t->has_master ? &fl_binary32 : t->pf;
            float *w = t->has_master ? t->MW[l] : t->W[l];
            float *bb = t->has_master ? t->Mb[l] : t->b[l];
            uint64_t upd = 0, lost = 0;
            lost += opt_update(t, f, w, t->s1W[l], t->s2W[l], t->gW[l], nw, &upd);
            lost += opt_update(t, f, bb, t->s1b[l], t->s2b[l], t->gb[l], out, &upd);
            if (t->has_master) {
                memcpy(t->W[l], t->MW[l], nw * sizeof(float));
                memcpy(t->b[l], t->Mb[l], out * sizeof(float));
                amp_round(t->pf, t->W[l], nw, NULL);
                amp_round(t->pf, t->b[l], out, NULL);
            }
            rec->updates += upd;
            rec->lost += lost;
            if (layers) {
                layers[l].updates = upd;
                layers[l].lost = lost;
            }
        }
        t->have_buf = 1;
        rec->v_zero = t->v_zero;
        rec->max_dw = t->max_dw;
    }
    /* delayed scaling: this step's amaxes set the next step's scales */
    if (t->gq == AMP_GQ_DELAYED)
        for (int l = 0; l < L; l++)
            for (int k = 0; k < AMP_GQ_TENSORS; k++)
                fl_scale_delayed_update(&t->ds[l][k]);
    memcpy(rec->quant, t->gqc, sizeof rec->quant);
    t->gq_train = 0;
    t->step++;
    if (c->eval_every > 0 && t->step % c->eval_every == 0)
        rec->test_acc = amp_trainer_test_accuracy(t);
}

/* ------------------------------------------------------------------ */

int amp_train_run(const amp_train_config *c, amp_train_result *r, char *err,
                  size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!c->data_path)
        return fail(err, errlen, "no data file given");
    amp_dataset d;
    if (c->text_context > 0
            ? amp_dataset_from_text(&d, c->data_path, c->text_context, NULL,
                                    err, errlen)
            : amp_dataset_read_csv(&d, c->data_path, c->label_pos,
                                   c->feature_scale, err, errlen))
        return -1;
    amp_trainer *t = amp_trainer_create(c, &d, err, errlen);
    if (!t) {
        amp_dataset_free(&d);
        return -1;
    }
    r->steps = c->steps;
    r->layers = t->L;
    r->n_train = t->n_train;
    r->n_test = t->n_test;
    r->n_params = amp_trainer_param_count(t);
    r->rec = calloc(c->steps ? (size_t)c->steps : 1, sizeof *r->rec);
    if (c->measure)
        r->layer = calloc((size_t)(c->steps ? c->steps : 1) * (size_t)t->L,
                          sizeof *r->layer);
    if (!r->rec || (c->measure && !r->layer)) {
        amp_trainer_free(t);
        amp_dataset_free(&d);
        amp_train_result_free(r);
        return fail(err, errlen, "out of memory");
    }
    for (int s = 0; s < c->steps; s++) {
        amp_trainer_step(t, &r->rec[s],
                         r->layer ? r->layer + (size_t)s * t->L : NULL);
        r->skipped_steps += r->rec[s].skipped;
        if (!isfinite(r->rec[s].loss))
            r->diverged = 1;
    }
    r->final_loss = c->steps ? r->rec[c->steps - 1].loss : NAN;
    r->final_test_acc = amp_trainer_test_accuracy(t);
    amp_trainer_free(t);
    amp_dataset_free(&d);
    return 0;
}

void amp_train_result_free(amp_train_result *r)
{
    free(r->rec);
    free(r->layer);
    memset(r, 0, sizeof *r);
}
