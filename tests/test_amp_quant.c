/*
 * test_amp_quant.c — the fp8 and mx training policies against hand
 * computation on a tiny model.
 *
 * The reference here shares nothing with fplab_scale: FP8 rounding is
 * nearest-even on a grid of 2^(e - m) (e clamped at emin), saturating; the
 * per-tensor scale is FP8_MAX / amax in binary32; the MX (rceil) block
 * scale is 2^ceil(log2(amax * binary32(1/448))); Transformer Engine's
 * delayed scaling is re-implemented from its description (history rolled
 * by one when the step's amax is nonzero, scale = FP8_MAX / max of the
 * history before the roll).  Products are summed in binary32 in increasing
 * k, bias last, as the trainer's fp32 accumulation does (this file is
 * compiled with -ffp-contract=off).
 *
 *  - forward_equals_hand: logits of the fp8-hybrid-current, mxfp8 and (after
 *    steps) fp8-hybrid-delayed policies equal quantize-then-matmul by hand,
 *    bit for bit; the data has 40 features, so MX rows are padded (32 + 8);
 *  - weight_gradient_equals_hand: one step of a one-layer model: the weight
 *    gradient is quantized x^T times quantized dz (x in E4M3, dz in E5M2
 *    per tensor; MX: both in blocks along the batch), bias gradient from
 *    the unquantized dz, and the SGD update follows;
 *  - delayed_history_like_te: amax histories (length 3, so they wrap) and
 *    scales of every tensor that the test can observe, step by step;
 *  - policies_learn: the new policies train the digits and reproduce their
 *    bits from the seed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp.h"
#include "test_common.h"
#include "test_check.h"

static int n_cases;
static amp_dataset tiny, digits;

enum { DIM = 40, ROWS = 24, CLASSES = 3, BATCH = 4 };

/* A CSV of ROWS rows: DIM features m * 2^e (m in [1, 2) on 8 bits, e in
 * -14..3, either sign; one in seven zero), label i % 3. */
static int make_tiny(void)
{
    static char buf[ROWS * DIM * 32];
    size_t o = 0;
    uint64_t s = 42;
    for (int i = 0; i < ROWS; i++) {
        for (int j = 0; j < DIM; j++) {
            uint64_t r = tc_splitmix(&s);
            double v = (1.0 + (double)(r & 0xFF) / 256.0) *
                       ldexp(1.0, (int)((r >> 8) % 18) - 14);
            if ((r >> 16) & 1)
                v = -v;
            if ((r >> 17) % 7 == 0)
                v = 0;
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%a,", v);
        }
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%d\n", i % CLASSES);
    }
    char err[256];
    if (amp_dataset_parse_csv(&tiny, "tiny", buf, o, AMP_LABEL_LAST, 1, err,
                              sizeof err)) {
        fprintf(stderr, "tiny data: %s\n", err);
        return -1;
    }
    if (tiny.dim != DIM || tiny.n != ROWS || tiny.classes != CLASSES) {
        fprintf(stderr, "tiny data: %zu rows of %zu, %d classes\n", tiny.n, tiny.dim,
                tiny.classes);
        return -1;
    }
    return 0;
}

/* ---- the reference ---------------------------------------------------- */

/* v rounded to nearest even into E4M3 (m = 3, emin = -6, max 448) or E5M2
 * (m = 2, emin = -14, max 57344), saturating. */
static double ref_fp8(double v, int e5m2)
{
    const double max = e5m2 ? 57344.0 : 448.0;
    const int m = e5m2 ? 2 : 3, emin = e5m2 ? -14 : -6;
    double a = fabs(v);
    if (a == 0)
        return v;
    int e;
    frexp(a, &e);
    e -= 1;                             /* a in [2^e, 2^(e+1)) */
    if (e < emin)
        e = emin;
    const double step = ldexp(1.0, e - m);
    double r = nearbyint(a / step) * step;   /* a / step: exact */
    if (r > max)
        r = max;
    return copysign(r, v);
}

static float ref_amax(const float *x, size_t n)
{
    float a = 0;
    for (size_t i = 0; i < n; i++)
        a = fabsf(x[i]) > a ? fabsf(x[i]) : a;
    return a;
}

/* Per tensor with a given scale: deq = binary32(q * binary32(1/scale)). */
static void ref_tensor(const float *x, size_t n, float scale, int e5m2, float *deq)
{
    const float sinv = 1.0f / scale;
    for (size_t i = 0; i < n; i++)
        deq[i] = (float)ref_fp8((double)(x[i] * scale), e5m2) * sinv;
}

static float ref_current_scale(const float *x, size_t n, int e5m2)
{
    const float a = ref_amax(x, n);
    return a == 0 ? 1.0f : (e5m2 ? 57344.0f : 448.0f) / a;
}

/* MXFP8 E4M3, rceil: blocks of 32 along axis (1: rows, 0: columns) of a
 * rows x cols matrix; a line's last block is its tail (the rest of the 32
 * would be zero padding, which changes nothing). */
static void ref_mx(const float *x, size_t rows, size_t cols, int axis, float *deq)
{
    const float rcp = (float)(1.0 / 448.0);
    const size_t lines = axis ? rows : cols, len = axis ? cols : rows;
    for (size_t i = 0; i < lines; i++)
        for (size_t b = 0; b < len; b += 32) {
            const size_t k = len - b < 32 ? len - b : 32;
            float a = 0;
            for (size_t j = b; j < b + k; j++) {
                float v = fabsf(axis ? x[i * cols + j] : x[j * cols + i]);
                a = v > a ? v : a;
            }
            int ex = -127;
            if (a > 0) {
                int e;
                double f = frexp((double)(a * rcp), &e);   /* [0.5, 1) * 2^e */
                ex = f == 0.5 ? e - 1 : e;                 /* ceil(log2) */
                ex = ex < -127 ? -127 : ex > 127 ? 127 : ex;
            }
            for (size_t j = b; j < b + k; j++) {
                size_t at = axis ? i * cols + j : j * cols + i;
                deq[at] = (float)(ref_fp8(ldexp((double)x[at], -ex), 0) *
                                  ldexp(1.0, ex));
            }
        }
}

/* C[M][N] = sum_k A[m][k] B[k][n] in binary32, k increasing, + bias */
static void ref_matmul(const float *A, const float *B, const float *bias, size_t M,
                       size_t K, size_t N, float *C)
{
    for (size_t m = 0; m < M; m++)
        for (size_t n = 0; n < N; n++) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; k++)
                acc = acc + A[m * K + k] * B[k * N + n];
            C[m * N + n] = bias ? acc + bias[n] : acc;
        }
}

/* The forward pass by hand: per layer, x and W quantized (kind: 'c' current
 * E4M3, 'd' delayed with the given per-layer scales sx, sw, 'm' mxfp8). */
static void ref_forward(amp_trainer *t, int kind, const float *sx, const float *sw,
                        const float *x0, size_t rows, float *logits)
{
    static float x[BATCH * 64], xq[BATCH * 64], wq[64 * 64], z[BATCH * 64];
    memcpy(x, x0, rows * DIM * sizeof *x);
    const int L = amp_trainer_layers(t);
    for (int l = 0; l < L; l++) {
        size_t in, out;
        const float *b;
        const float *W = amp_trainer_weights(t, l, &in, &out, &b);
        ck_assert(W != NULL && in * out <= 64 * 64 && rows * in <= BATCH * 64);
        if (kind == 'm') {
            ref_mx(x, rows, in, 1, xq);
            ref_mx(W, in, out, 0, wq);
        } else {
            float s1 = kind == 'd' ? sx[l] : ref_current_scale(x, rows * in, 0);
            float s2 = kind == 'd' ? sw[l] : ref_current_scale(W, in * out, 0);
            ref_tensor(x, rows * in, s1, 0, xq);
            ref_tensor(W, in * out, s2, 0, wq);
        }
        ref_matmul(xq, wq, b, rows, in, out, z);
        for (size_t i = 0; i < rows * out; i++)
            x[i] = l < L - 1 ? (z[i] > 0 ? z[i] : 0.0f) : z[i];
    }
    memcpy(logits, x, rows * CLASSES * sizeof *x);
}

static void tiny_config(amp_train_config *c, const char *policy, int depth)
{
    char err[256];
    amp_train_config_default(c);
    ck_assert_msg(amp_policy_parse(&c->policy, policy, err, sizeof err) == 0, "%s", err);
    c->depth = depth;
    c->width = 8;
    c->batch = BATCH;
    c->seed = 3;
    c->test_frac = 0.25;
}

static int same_bits(const float *a, const float *b, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a)) {
            ck_abort_msg("%s: element %zu: got %a, by hand %a", what, i, (double)a[i],
                         (double)b[i]);
            return 0;
        }
    return 1;
}

/* ---- delayed scaling by hand ------------------------------------------ */

enum { HLEN = 3 };
typedef struct ref_ds {
    float h[HLEN];
    float scale, max;
} ref_ds;

static void ref_ds_init(ref_ds *d, float max)
{
    memset(d, 0, sizeof *d);
    d->scale = 1.0f;
    d->max = max;
}

/* end of a step whose amax was a: TE's fused update, algo "max", margin 0 */
static void ref_ds_step(ref_ds *d, float a)
{
    d->h[0] = a;
    if (a == 0)
        return;                      /* no roll, scale kept */
    float m = 0;
    for (int i = 0; i < HLEN; i++)
        m = d->h[i] > m ? d->h[i] : m;
    for (int i = 0; i + 1 < HLEN; i++)
        d->h[i] = d->h[i + 1];
    d->h[HLEN - 1] = a;
    d->h[0] = 0;
    d->scale = d->max / m;
}

/* what the step callback sees, for the hand computation */
typedef struct watch {
    int L;
    float act_amax[8], grad_amax;     /* layer inputs; last layer's dz */
    float x[BATCH * DIM], dz[BATCH * CLASSES], gw[DIM * CLASSES];
} watch;

static void on_step(void *user, const amp_step_view *v)
{
    watch *w = user;
    w->L = v->layers;
    for (int l = 0; l < v->layers; l++)
        w->act_amax[l] = ref_amax(v->act[l], v->act_n[l]);
    /* compute is binary32: the raw logit gradient is the last layer's dz */
    w->grad_amax = ref_amax(v->agrad[v->layers - 1], v->agrad_n[v->layers - 1]);
    if (v->layers == 1) {
        memcpy(w->x, v->act[0], sizeof w->x);
        memcpy(w->dz, v->agrad[0], sizeof w->dz);
        memcpy(w->gw, v->wgrad[0], sizeof w->gw);
    }
}

/* ---- tests ------------------------------------------------------------ */

START_TEST(forward_equals_hand)
{
    static const struct { const char *pol; int kind; } cases[] = {
        {"fp8-hybrid-current", 'c'}, {"fp8-e4m3-current", 'c'}, {"mxfp8", 'm'}};
    float logits[BATCH * CLASSES], want[BATCH * CLASSES];
    char err[256];
    for (int i = 0; i < 3; i++) {
        amp_train_config c;
        tiny_config(&c, cases[i].pol, 2);
        amp_trainer *t = amp_trainer_create(&c, &tiny, err, sizeof err);
        ck_assert_msg(t != NULL, "%s", err);
        for (int s = 0; s < 3; s++) {       /* fresh weights, and trained ones */
            const float *x = tiny.x + (size_t)s * BATCH * DIM;
            ck_assert_int_eq(amp_trainer_forward(t, x, BATCH, logits), 0);
            ref_forward(t, cases[i].kind, NULL, NULL, x, BATCH, want);
            same_bits(logits, want, BATCH * CLASSES, cases[i].pol);
            n_cases++;
            amp_step_record r;
            amp_trainer_step(t, &r, NULL);
            ck_assert(isfinite(r.loss));
        }
        ck_assert_int_eq(amp_trainer_forward(t, tiny.x, BATCH + 1, logits), -1);
        amp_trainer_free(t);
    }
}
END_TEST

START_TEST(weight_gradient_equals_hand)
{
    static const char *const pol[] = {"fp8-hybrid-current", "mxfp8"};
    char err[256];
    for (int i = 0; i < 2; i++) {
        amp_train_config c;
        tiny_config(&c, pol[i], 1);
        c.momentum = 0;                     /* the update is -lr * gradient */
        watch w;
        memset(&w, 0, sizeof w);
        c.on_step = on_step;
        c.user = &w;
        amp_trainer *t = amp_trainer_create(&c, &tiny, err, sizeof err);
        ck_assert_msg(t != NULL, "%s", err);
        size_t in, out;
        const float *b;
        const float *W = amp_trainer_weights(t, 0, &in, &out, &b);
        ck_assert(in == DIM && out == CLASSES);
        float W0[DIM * CLASSES], b0[CLASSES];
        memcpy(W0, W, sizeof W0);
        memcpy(b0, b, sizeof b0);
        amp_step_record r;
        amp_trainer_step(t, &r, NULL);
        /* x^T dz with x (BATCH x DIM) and dz (BATCH x CLASSES) quantized */
        float xq[BATCH * DIM], dzq[BATCH * CLASSES], xt[DIM * BATCH], g[DIM * CLASSES];
        if (i == 0) {
            ref_tensor(w.x, BATCH * DIM, ref_current_scale(w.x, BATCH * DIM, 0), 0, xq);
            ref_tensor(w.dz, BATCH * CLASSES,
                       ref_current_scale(w.dz, BATCH * CLASSES, 1), 1, dzq);
        } else {
            ref_mx(w.x, BATCH, DIM, 0, xq);        /* blocks along the batch */
            ref_mx(w.dz, BATCH, CLASSES, 0, dzq);
        }
        for (size_t a = 0; a < BATCH; a++)
            for (size_t k = 0; k < DIM; k++)
                xt[k * BATCH + a] = xq[a * DIM + k];
        ref_matmul(xt, dzq, NULL, DIM, BATCH, CLASSES, g);
        same_bits(w.gw, g, DIM * CLASSES, "weight gradient");
        /* SGD without momentum: w + (-lr) * g; bias from the unquantized dz */
        float W1[DIM * CLASSES], b1[CLASSES];
        const float nlr = (float)-c.lr;
        for (size_t k = 0; k < DIM * CLASSES; k++)
            W1[k] = W0[k] + nlr * g[k];
        for (size_t o = 0; o < CLASSES; o++) {
            float gb = 0.0f;
            for (size_t a = 0; a < BATCH; a++)
                gb = gb + 1.0f * w.dz[a * CLASSES + o];
            b1[o] = b0[o] + nlr * gb;
        }
        same_bits(W, W1, DIM * CLASSES, "updated weights");
        same_bits(b, b1, CLASSES, "updated bias");
        /* the step's counts: MX quantizes x twice (forward: along its
         * rows; weight gradient: along the batch), dz once here (along the
         * batch; a one-layer model forms no input gradient) */
        uint64_t nzx = 0, nzd = 0;
        for (size_t k = 0; k < BATCH * DIM; k++)
            nzx += w.x[k] != 0;
        for (size_t k = 0; k < BATCH * CLASSES; k++)
            nzd += w.dz[k] != 0;
        ck_assert_uint_eq(r.quant[AMP_GQ_ACT].nonzero, i ? 2 * nzx : nzx);
        ck_assert_uint_eq(r.quant[AMP_GQ_GRAD].nonzero, nzd);
        amp_trainer_free(t);
        n_cases += 3;
    }
}
END_TEST

START_TEST(delayed_history_like_te)
{
    amp_train_config c;
    tiny_config(&c, "fp8-hybrid-delayed", 2);
    c.policy.gq.history = HLEN;
    watch w;
    memset(&w, 0, sizeof w);
    c.on_step = on_step;
    c.user = &w;
    char err[256];
    amp_trainer *t = amp_trainer_create(&c, &tiny, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    const int L = 2;
    ref_ds act[2], wt[2], gr;
    for (int l = 0; l < L; l++) {
        ref_ds_init(&act[l], 448.0f);
        ref_ds_init(&wt[l], 448.0f);
    }
    ref_ds_init(&gr, 57344.0f);
    float logits[BATCH * CLASSES], want[BATCH * CLASSES];
    for (int s = 0; s < 7; s++) {
        /* the weights this step quantizes are those before it */
        float wamax[2];
        for (int l = 0; l < L; l++) {
            size_t in, out;
            const float *b;
            const float *W = amp_trainer_weights(t, l, &in, &out, &b);
            wamax[l] = ref_amax(W, in * out);
        }
        amp_step_record r;
        amp_trainer_step(t, &r, NULL);
        for (int l = 0; l < L; l++) {
            ref_ds_step(&act[l], w.act_amax[l]);
            ref_ds_step(&wt[l], wamax[l]);
        }
        ref_ds_step(&gr, w.grad_amax);
        const struct { const ref_ds *r; int l, k; } chk[] = {
            {&act[0], 0, AMP_GQ_ACT}, {&act[1], 1, AMP_GQ_ACT},
            {&wt[0], 0, AMP_GQ_WEIGHT}, {&wt[1], 1, AMP_GQ_WEIGHT},
            {&gr, 1, AMP_GQ_GRAD}};
        for (int i = 0; i < 5; i++) {
            const fl_scale_delayed *d = amp_trainer_delayed(t, chk[i].l, chk[i].k);
            ck_assert(d != NULL && d->len == HLEN);
            ck_assert_msg(d->scale == chk[i].r->scale, "step %d tensor %d: scale %a, "
                          "by hand %a", s, i, (double)d->scale, (double)chk[i].r->scale);
            ck_assert(memcmp(d->history, chk[i].r->h, sizeof chk[i].r->h) == 0);
            n_cases++;
        }
        /* the next forward uses the updated scales */
        float sx[2] = {act[0].scale, act[1].scale}, sw[2] = {wt[0].scale, wt[1].scale};
        const float *x = tiny.x + (size_t)(s % 4) * BATCH * DIM;
        ck_assert_int_eq(amp_trainer_forward(t, x, BATCH, logits), 0);
        ref_forward(t, 'd', sx, sw, x, BATCH, want);
        same_bits(logits, want, BATCH * CLASSES, "delayed forward");
        n_cases++;
    }
    /* the histories wrapped: 7 steps into 3 slots */
    ck_assert(act[0].h[1] != 0 && act[0].h[2] != 0);
    ck_assert_ptr_null(amp_trainer_delayed(t, 2, AMP_GQ_ACT));
    amp_trainer_free(t);
    /* other policies have no delayed state */
    tiny_config(&c, "mxfp8", 2);
    t = amp_trainer_create(&c, &tiny, err, sizeof err);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_null(amp_trainer_delayed(t, 0, AMP_GQ_ACT));
    amp_trainer_free(t);
    n_cases++;
}
END_TEST

START_TEST(policies_learn)
{
    static const char *const pol[] = {"fp8-hybrid-delayed", "fp8-hybrid-current",
                                      "fp8-e4m3-delayed", "mxfp8"};
    for (int i = 0; i < 4; i++) {
        amp_train_config c;
        char err[256];
        amp_train_config_default(&c);
        ck_assert(amp_policy_parse(&c.policy, pol[i], err, sizeof err) == 0);
        c.depth = 2;
        c.width = 16;
        c.batch = 32;
        c.steps = 150;
        c.seed = 7;
        static amp_step_record a[150], b[150];
        double acc[2];
        for (int rep = 0; rep < 2; rep++) {
            amp_trainer *t = amp_trainer_create(&c, &digits, err, sizeof err);
            ck_assert_msg(t != NULL, "%s", err);
            for (int s = 0; s < c.steps; s++)
                amp_trainer_step(t, rep ? &b[s] : &a[s], NULL);
            acc[rep] = amp_trainer_test_accuracy(t);
            amp_trainer_free(t);
        }
        ck_assert_msg(acc[0] > 0.85, "%s: accuracy %g", pol[i], acc[0]);
        ck_assert_msg(a[149].loss < a[0].loss / 4, "%s: loss %g -> %g", pol[i],
                      a[0].loss, a[149].loss);
        ck_assert(memcmp(a, b, sizeof a) == 0 && acc[0] == acc[1]);
        ck_assert(a[10].quant[AMP_GQ_GRAD].nonzero > 0 &&
                  a[10].quant[AMP_GQ_WEIGHT].nonzero > 0);
        n_cases += 2;
    }
    /* names: unknown ones list the new policies */
    amp_policy p;
    char err[512];
    ck_assert_int_eq(amp_policy_parse(&p, "fp8-hybrid", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "fp8-hybrid-delayed") && strstr(err, "mxfp8"), "%s", err);
    ck_assert_int_eq(amp_policy_parse(&p, "mxfp8-i50", err, sizeof err), -1);
    ck_assert_int_eq(amp_policy_parse(&p, "fp8-hybrid-delayed", err, sizeof err), 0);
    ck_assert(p.gq.kind == AMP_GQ_DELAYED && p.gq.history == 1024 &&
              p.gq.algo == FL_DS_MAX && p.gq.margin == 0.0f &&
              !strcmp(p.gq.fwd.name, "fp8-e4m3-tensor") &&
              !strcmp(p.gq.bwd.name, "fp8-e5m2-tensor") &&
              p.scaler.kind == AMP_SCALER_NONE && amp_format_is_f32(p.compute));
    ck_assert_int_eq(amp_policy_parse(&p, "mxfp8", err, sizeof err), 0);
    ck_assert(p.gq.kind == AMP_GQ_BLOCK && p.gq.fwd.block == 32 &&
              p.gq.fwd.rule == FL_MX_RCEIL && !strcmp(p.gq.bwd.name, p.gq.fwd.name));
    n_cases += 3;
}
END_TEST

int main(void)
{
    char err[512];
    if (amp_dataset_read_csv(&digits, FPLAB_SOURCE_DIR "/data/digits.csv.gz",
                             AMP_LABEL_LAST, 16, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (make_tiny())
        return 1;
    const TTest *tests[] = { forward_equals_hand,
                             weight_gradient_equals_hand,
                             delayed_history_like_te, policies_learn,
                             NULL };
    int failed = tc_run_suite("amp_quant", tc_tcase("quant", 240, tests),
                              TC_IN_PROCESS);
    amp_dataset_free(&tiny);
    amp_dataset_free(&digits);
    return tc_exit_counted("amp_quant", failed, n_cases,
                           9 + 6 + (7 * 6 + 1) + (8 + 3));
}
