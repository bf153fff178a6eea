/*
 * exp_scaling.c — experiment 7: scale granularity.
 *
 * Training in the *deep* setting of lab_train.h (4 layers, small init,
 * mean loss over a batch of 256: small gradients), each policy with the
 * lab's seeds:
 *   fp32                 binary32 (the reference)
 *   fp16-torch-i50       fp16 autocast with GradScaler (growth interval 50)
 *   fp8-hybrid-delayed   Transformer Engine's DelayedScaling, HYBRID
 *   fp8-e4m3-current     per-tensor current scaling, E4M3 for every tensor
 *   mxfp8                MXFP8 E4M3 for every tensor, blocks of 32
 * (amp_train.h and amp_quant.h say what each policy quantizes).
 *
 * Measurement: the first seed's binary32 run (the same run as experiment
 * 3's) is watched through the step callback.  At every step the amax of
 * each layer's weight gradient, activation gradient (with respect to the
 * layer's output, as experiment 3 records it) and input activation is kept
 * (delayed scaling needs them all); every `every`-th step the tensors
 * themselves.  Those tensors are then quantized under each scheme below and
 * dequantized, and the values flushed to zero, the values clamped (or sent
 * to Inf/NaN by a cast), and the error are counted:
 *   casts without scaling: binary16, E5M2, E4M3 (a PyTorch-style cast:
 *     overflow to Inf or NaN);
 *   loss scaling (gradients only): x * S into binary16 and into E5M2, S
 *     the scale GradScaler used at that step in the first seed's
 *     fp16-torch-i50 run (same initialisation and batches);
 *   per-tensor current scaling (FP8_MAX / amax of the tensor) and delayed
 *     scaling (amax history 1024, "max", margin 0: the scale of step t from
 *     the amaxes of steps before t), E4M3 and E5M2, saturating;
 *   MXFP8 E4M3 (OCP rule floor, and rceil as the mxfp8 policy), MXFP8
 *     E5M2, MXFP6 E2M3 and E3M2, MXFP4, NVFP4: blocks along each tensor's
 *     last axis (rows), a row of 10 padded with zeros to one block.
 * Delayed scaling's step 0 (no amax recorded yet: scale 1, the cold start)
 * is reported apart from its later steps, and what sets its later scales
 * is traced from every step's amax: the ratio of the delayed to the
 * current scale per tensor, and the step whose amax the history holds.
 * Every binary32 run also counts the lab's one flush definition
 * (amp_flush.h) at every step, as experiment 3 does for the same runs.
 * The files keep every tensor's counts and the per-tensor scale it took
 * (scaling_tensors.dat), the amaxes of every step and GradScaler's scales
 * (scaling_steps.dat: the lab's audit recomputes the current and delayed
 * scales from them), in scaling.dat the totals per scheme (delayed
 * scaling's step 0 as rows of its own), a log2
 * histogram of the measured values, the same relative to the amax of each
 * value's tensor and of its block of 32 (which bound the per-tensor and MX
 * underflow counts), and the per-layer table; and the training runs
 * (scaling_train.dat, scaling_train_seeds.dat, whose block 2 holds the
 * binary32 runs' flush counts).
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"
#include "amp_flush.h"
#include "fplab/scale.h"

enum { NKIND = 3, K_W = 0, K_A = 1, K_X = 2, MAXL = 8, HLO = -64, HHI = 16 };
static const char *const kind_id[NKIND] = {"wgrad", "agrad", "act"};

enum { H_FP16 = 0, H_AT = 1, H_SCHEME = 2, H_DELAYED = 3 };
typedef struct sdef {
    const char *id;      /* one word: files, plots */
    const char *label;   /* the report's */
    int how;             /* H_* */
    const char *spec;    /* fplab_scale scheme (not H_FP16) */
    int ls;              /* 1: at GradScaler's scale; gradients only */
} sdef;

static const sdef sch[] = {
    {"fp16", "binary16 cast", H_FP16, NULL, 0},
    {"e5m2", "E5M2 cast", H_AT, "fp8-e5m2-tensor:nonsat", 0},
    {"e4m3", "E4M3 cast", H_AT, "fp8-e4m3-tensor:nonsat", 0},
    {"ls-fp16", "binary16, loss scale S", H_FP16, NULL, 1},
    {"ls-e5m2", "E5M2, loss scale S", H_AT, "fp8-e5m2-tensor:nonsat", 1},
    {"cur-e4m3", "per-tensor current E4M3", H_SCHEME, "fp8-e4m3-tensor", 0},
    {"cur-e5m2", "per-tensor current E5M2", H_SCHEME, "fp8-e5m2-tensor", 0},
    {"del-e4m3", "per-tensor delayed E4M3, after step 0", H_DELAYED, "fp8-e4m3-tensor", 0},
    {"del-e5m2", "per-tensor delayed E5M2, after step 0", H_DELAYED, "fp8-e5m2-tensor", 0},
    {"mxfp8-e4m3", "MXFP8 E4M3", H_SCHEME, "mxfp8-e4m3", 0},
    {"mxfp8-e4m3-rceil", "MXFP8 E4M3, rceil", H_SCHEME, "mxfp8-e4m3:rceil", 0},
    {"mxfp8-e5m2", "MXFP8 E5M2", H_SCHEME, "mxfp8-e5m2", 0},
    {"mxfp6-e2m3", "MXFP6 E2M3", H_SCHEME, "mxfp6-e2m3", 0},
    {"mxfp6-e3m2", "MXFP6 E3M2", H_SCHEME, "mxfp6-e3m2", 0},
    {"mxfp4", "MXFP4 E2M1", H_SCHEME, "mxfp4-e2m1", 0},
    {"nvfp4", "NVFP4", H_SCHEME, "nvfp4", 0},
};
enum { NSCH = sizeof sch / sizeof sch[0] };

/* the training policies (keep in step with plots/scaling_train.gp) */
static const char *const pol[] = {"fp32", "fp16-torch-i50", "fp8-hybrid-delayed",
                                  "fp8-e4m3-current", "mxfp8"};
enum { NPOL = sizeof pol / sizeof pol[0], P_F32 = 0, P_GS = 1 };

/* ---------------------------------------------------------------------- */
/* The watcher of the binary32 run */

typedef struct snap {
    int step;
    float S;                              /* GradScaler's scale there */
    float *t[NKIND][MAXL];
    size_t rows[NKIND][MAXL], cols[NKIND][MAXL];
    float dscale[NKIND][MAXL][2];         /* delayed: E4M3, E5M2 */
} snap;

typedef struct watch {
    int every, steps, L;
    float *amax[NKIND][MAXL];             /* per step */
    snap *snaps;
    int nsnap, cap;
    size_t dims[MAXL + 1];
    int failed;
} watch;

static float amax_of(const float *x, size_t n)
{
    float a = 0;
    for (size_t i = 0; i < n; i++)
        a = fabsf(x[i]) > a ? fabsf(x[i]) : a;
    return a;
}

static void on_step(void *user, const amp_step_view *v)
{
    watch *w = user;
    if (w->failed || v->layers > MAXL || v->step >= w->steps)
        return;
    w->L = v->layers;
    const float *const *src[NKIND] = {v->wgrad, v->agrad, v->act};
    const size_t *len[NKIND] = {v->wgrad_n, v->agrad_n, v->act_n};
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < v->layers; l++)
            w->amax[k][l][v->step] = amax_of(src[k][l], len[k][l]);
    if (v->step % w->every)
        return;
    if (w->nsnap >= w->cap) {
        w->failed = 1;
        return;
    }
    snap *s = &w->snaps[w->nsnap];
    memset(s, 0, sizeof *s);
    s->step = v->step;
    for (int l = 0; l < v->layers; l++) {
        const size_t B = v->act_n[l] / w->dims[l];     /* rows of the batch */
        s->rows[K_W][l] = w->dims[l];
        s->cols[K_W][l] = w->dims[l + 1];
        s->rows[K_A][l] = v->agrad_n[l] / w->dims[l + 1];
        s->cols[K_A][l] = w->dims[l + 1];
        s->rows[K_X][l] = B;
        s->cols[K_X][l] = w->dims[l];
        for (int k = 0; k < NKIND; k++) {
            size_t n = len[k][l];
            if (n != s->rows[k][l] * s->cols[k][l] || !(s->t[k][l] = malloc(n * sizeof(float)))) {
                w->failed = 1;
                return;
            }
            memcpy(s->t[k][l], src[k][l], n * sizeof(float));
        }
    }
    w->nsnap++;
}

static void watch_free(watch *w)
{
    if (!w)
        return;
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < MAXL; l++)
            free(w->amax[k][l]);
    for (int i = 0; i < w->nsnap; i++)
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < MAXL; l++)
                free(w->snaps[i].t[k][l]);
    free(w->snaps);
    free(w);
}

/* ---------------------------------------------------------------------- */
/* Measuring one tensor under one scheme */

typedef struct trow {
    int valid;
    float scale;          /* per-tensor scale used (1 for a cast, S, ...);
                             0 for block schemes */
    uint64_t n, nonzero, underflow, subnormal, saturated, rel_n;
    double rel_sum, err2, x2;
} trow;

/* err2 = sum (deq - x)^2, x2 = sum x^2 over the finite x whose deq is
 * finite (in binary64: the differences of two binary32 values are exact
 * there unless their exponents are far apart) */
static void norms(trow *r, const float *x, const float *deq, size_t n)
{
    double e = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(deq[i])) {
            double d = (double)deq[i] - (double)x[i];
            e += d * d;
            q += (double)x[i] * (double)x[i];
        }
    r->err2 = e;
    r->x2 = q;
}

/* binary16 at scale S: deq = round16(x * S) / S; overflow to Inf counts as
 * saturated (GradScaler would skip the step) */
static int measure_fp16(trow *r, const float *x, size_t n, float S, float *buf)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = x[i] * S;                 /* S = 2^k: exact */
    amp_round(&fl_binary16, buf, n, NULL);
    memset(r, 0, sizeof *r);
    r->valid = 1;
    r->scale = S;
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        const float v = x[i], q = buf[i];
        if (!isfinite(v) || v == 0)
            continue;
        r->nonzero++;
        if (isinf(q)) {
            r->saturated++;
            continue;
        }
        r->subnormal += q != 0 && fabsf(q) < 0x1p-14f;
        r->underflow += q == 0;
        const float d = q / S;
        buf[i] = d;
        r->rel_n++;
        r->rel_sum += fabs((double)d - (double)v) / fabs((double)v);
    }
    for (size_t i = 0; i < n; i++)
        if (isfinite(buf[i]) && (x[i] == 0 || !isfinite(x[i])))
            buf[i] = x[i];                 /* zeros stay zeros */
    norms(r, x, buf, n);
    return 0;
}

static int measure(trow *r, const sdef *d, const fl_scale_scheme *s, const float *x,
                   size_t rows, size_t cols, float scale, float *buf, char *err,
                   size_t errlen)
{
    const size_t n = rows * cols;
    if (d->how == H_FP16)
        return measure_fp16(r, x, n, scale, buf);
    fl_scale_stats st;
    memset(&st, 0, sizeof st);
    memset(r, 0, sizeof *r);
    if (s->kind == FL_SCALE_TENSOR) {
        /* one scale: given (a cast, a loss scale, delayed) or current */
        fl_scale_out o;
        memset(&o, 0, sizeof o);
        o.dequant = buf;
        if (scale > 0.0f ? fl_scale_quantize_with_scale(s, x, n, scale, &o, err, errlen)
                         : fl_scale_quantize(s, x, n, n, &o, err, errlen))
            return -1;
        st = o.stats;
        r->scale = o.tensor.scale;
    } else if (amp_quantize_matrix(s, x, rows, cols, 1, 0.0f, buf, &st, NULL, err,
                                   errlen)) {
        return -1;
    }
    r->valid = 1;
    r->n = st.n;
    r->nonzero = st.nonzero;
    r->underflow = st.underflow;
    r->subnormal = st.subnormal;
    r->saturated = st.saturated;
    r->rel_n = st.rel_n;
    r->rel_sum = st.rel_sum;
    norms(r, x, buf, n);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Training jobs */

typedef struct tjob {
    amp_train_config c;
    const amp_dataset *data;
    const char *name;
    int rc;
    char err[256];
    float *loss, *scale;
    unsigned char *skip;
    double *acc, *gflush;         /* per step */
    amp_gq_counts q[AMP_GQ_TENSORS];
    long correct, n_test, n_train;
    double loss_final;
    float scale_final;
    int skipped, first_nonfinite;
    watch *w;
    amp_flush f1;                 /* binary32 runs: the flush share at S = 1 */
    int flush_err;
} tjob;

/* the binary32 runs' step callback: the lab's flush count (amp_flush.h)
 * at every step, and the first seed's watch */
static void tjob_on_step(void *user, const amp_step_view *v)
{
    tjob *j = user;
    if (amp_flush_add(&j->f1, v, &fl_binary16, 1.0f) && !j->flush_err) {
        j->flush_err = 1;
        snprintf(j->err, sizeof j->err, "flush count: more than %d layers", AMP_FLUSH_MAXL);
    }
    if (j->w)
        on_step(j->w, v);
}

static void tjob_exec(void *arg, size_t i)
{
    tjob *j = &((tjob *)arg)[i];
    const int n = j->c.steps;
    j->loss = calloc((size_t)n, sizeof *j->loss);
    j->scale = calloc((size_t)n, sizeof *j->scale);
    j->skip = calloc((size_t)n, sizeof *j->skip);
    j->acc = calloc((size_t)n, sizeof *j->acc);
    j->gflush = calloc((size_t)n, sizeof *j->gflush);
    if (!j->loss || !j->scale || !j->skip || !j->acc || !j->gflush) {
        snprintf(j->err, sizeof j->err, "out of memory");
        j->rc = -1;
        return;
    }
    amp_trainer *t = amp_trainer_create(&j->c, j->data, j->err, sizeof j->err);
    if (!t) {
        j->rc = -1;
        return;
    }
    for (int s = 0; s < n; s++) {
        amp_step_record q;
        amp_trainer_step(t, &q, NULL);
        j->loss[s] = q.loss;
        j->scale[s] = q.scale_used;
        j->skip[s] = (unsigned char)q.skipped;
        j->acc[s] = q.test_acc;
        j->skipped += q.skipped;
        const amp_gq_counts *g = &q.quant[AMP_GQ_GRAD];
        j->gflush[s] = g->nonzero ? (double)g->underflow / (double)g->nonzero : 0.0;
        for (int k = 0; k < AMP_GQ_TENSORS; k++) {
            j->q[k].nonzero += q.quant[k].nonzero;
            j->q[k].underflow += q.quant[k].underflow;
            j->q[k].saturated += q.quant[k].saturated;
        }
        if (!isfinite(q.loss) && !j->first_nonfinite)
            j->first_nonfinite = s + 1;
        if (s == n - 1)
            j->scale_final = q.scale_after;
    }
    j->n_test = (long)amp_trainer_test_size(t);
    j->n_train = (long)amp_trainer_train_size(t);
    j->correct = lround(amp_trainer_test_accuracy(t) * (double)j->n_test);
    j->loss_final = n ? j->loss[n - 1] : NAN;
    amp_trainer_free(t);
}

static void tjob_free(tjob *j)
{
    free(j->loss);
    free(j->scale);
    free(j->skip);
    free(j->acc);
    free(j->gflush);
}

/* ---------------------------------------------------------------------- */
/* The measurement, one watched step per call (parallel) */

typedef struct mctx {
    watch *w;
    fl_scale_scheme s[NSCH];
    trow *rows;           /* [snap][kind][layer][scheme] */
    int rc;
    char err[256];
} mctx;

static trow *row_at(const mctx *M, int si, int k, int l, int j)
{
    return &M->rows[(((size_t)si * NKIND + (size_t)k) * MAXL + (size_t)l) * NSCH + (size_t)j];
}

static void measure_snap(void *arg, size_t si)
{
    mctx *M = arg;
    snap *s = &M->w->snaps[si];
    size_t maxn = 0;
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < M->w->L; l++)
            if (s->rows[k][l] * s->cols[k][l] > maxn)
                maxn = s->rows[k][l] * s->cols[k][l];
    float *buf = malloc((maxn ? maxn : 1) * sizeof *buf);
    if (!buf) {
        M->rc = -1;
        return;
    }
    char err[200];
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < M->w->L; l++)
            for (int j = 0; j < NSCH; j++) {
                if (sch[j].ls && k == K_X)
                    continue;       /* loss scaling multiplies gradients only */
                float scale = 0.0f;
                if (sch[j].ls)
                    scale = s->S;
                else if (sch[j].how == H_FP16 || sch[j].how == H_AT)
                    scale = 1.0f;
                else if (sch[j].how == H_DELAYED)
                    scale = s->dscale[k][l][strstr(sch[j].spec, "e5m2") != NULL];
                if (measure(row_at(M, (int)si, k, l, j), &sch[j], &M->s[j], s->t[k][l],
                            s->rows[k][l], s->cols[k][l], scale, buf, err, sizeof err)) {
                    snprintf(M->err, sizeof M->err, "%s: %s", sch[j].id, err);
                    M->rc = -1;
                }
            }
    free(buf);
}

/* ---------------------------------------------------------------------- */
/* How the range of a tensor spreads over its blocks */

enum { BLO = -40 };
typedef struct bhist {
    uint64_t ten[NKIND][MAXL][1 - BLO];   /* |x| / its tensor's amax */
    uint64_t val[NKIND][MAXL][1 - BLO];   /* |x| / its block's amax */
    uint64_t blocks[NKIND][MAXL], zero[NKIND][MAXL];
} bhist;

/* floor(log2(a / b)) for 0 < a <= b, exactly (from the exponents and
 * significands, not a rounded quotient), clamped at BLO */
static int log2_ratio(float a, float b)
{
    int ea, eb;
    float ma = frexpf(a, &ea), mb = frexpf(b, &eb);
    int r = ea - eb - (ma < mb);
    return r < BLO ? BLO : r > 0 ? 0 : r;
}

static void block_hist(const watch *w, bhist *h)
{
    for (int si = 0; si < w->nsnap; si++)
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++) {
                const snap *s = &w->snaps[si];
                const size_t R = s->rows[k][l], C = s->cols[k][l];
                const float *x = s->t[k][l];
                const float A = amax_of(x, R * C);
                for (size_t r = 0; r < R; r++)
                    for (size_t c0 = 0; c0 < C; c0 += 32) {
                        const size_t m = C - c0 < 32 ? C - c0 : 32;
                        const float *b = x + r * C + c0;
                        const float ba = amax_of(b, m);
                        h->blocks[k][l]++;
                        if (ba == 0) {
                            h->zero[k][l]++;
                            continue;
                        }
                        for (size_t i = 0; i < m; i++)
                            if (b[i] != 0) {
                                h->ten[k][l][-log2_ratio(fabsf(b[i]), A)]++;
                                h->val[k][l][-log2_ratio(fabsf(b[i]), ba)]++;
                            }
                    }
            }
}

/* ---------------------------------------------------------------------- */

typedef struct agg {
    uint64_t n, nonzero, underflow, subnormal, saturated, rel_n;
    double rel_sum, err2, x2;
    int tensors;
} agg;

static void agg_add(agg *a, const trow *r)
{
    a->n += r->n;
    a->nonzero += r->nonzero;
    a->underflow += r->underflow;
    a->subnormal += r->subnormal;
    a->saturated += r->saturated;
    a->rel_n += r->rel_n;
    a->rel_sum += r->rel_sum;
    a->err2 += r->err2;
    a->x2 += r->x2;
    a->tensors++;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double pn(double x)
{
    return isnan(x) ? (double)NAN : x;
}

/* ---------------------------------------------------------------------- */
/* The report */

typedef struct rctx {
    lab_ctx *L;
    const watch *w;
    const mctx *M;
    const bhist *bh;
    const agg (*tot)[NKIND];
    const agg (*tot0)[NKIND];     /* delayed E4M3, E5M2 at step 0 */
    const agg (*lay)[NKIND][MAXL];
    const tjob *jobs;
    int S;
    const char *params;
    double acc[NPOL][64];
} rctx;

/* the index of a scheme or policy by name (the lists are fixed above: an
 * unknown name is a bug) */
static int sidx(const char *id)
{
    for (int j = 0; j < NSCH; j++)
        if (!strcmp(sch[j].id, id))
            return j;
    abort();
}

static int pidx(const char *name)
{
    for (int p = 0; p < NPOL; p++)
        if (!strcmp(pol[p], name))
            return p;
    abort();
}

static double U(const rctx *R, const char *id, int k)
{
    const agg *a = &R->tot[sidx(id)][k];
    return pct(a->underflow, a->nonzero);
}

static double SAT(const rctx *R, const char *id, int k)
{
    const agg *a = &R->tot[sidx(id)][k];
    return pct(a->saturated, a->nonzero);
}

static double ERR(const agg *a)
{
    return a->x2 > 0 ? sqrt(a->err2 / a->x2) : 0.0;
}

static double UL(const rctx *R, const char *id, int k, int l)
{
    const agg *a = &R->lay[sidx(id)][k][l];
    return pct(a->underflow, a->nonzero);
}

/* % of the nonzero values of kind k, layers l0..l1, whose log2 ratio to the
 * tensor's (tensor = 1) or block's amax is <= b */
static double below(const rctx *R, int tensor, int k, int l0, int l1, int b)
{
    uint64_t n = 0, m = 0;
    for (int l = l0; l <= l1; l++)
        for (int i = 0; i <= -BLO; i++) {
            uint64_t c = tensor ? R->bh->ten[k][l][i] : R->bh->val[k][l][i];
            n += c;
            m += -i <= b ? c : 0;
        }
    return pct(m, n);
}

/* "more" / "fewer" / "neither consistently more nor fewer": a against b */
static const char *more_fewer(const double *a, const double *b, int n)
{
    int more = 1, fewer = 1;
    for (int i = 0; i < n; i++) {
        more &= a[i] > b[i];
        fewer &= a[i] < b[i];
    }
    return more ? "more" : fewer ? "fewer" : "neither consistently more nor fewer";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* delayed scaling: its cold start (step 0, scale 1) apart, and what sets
 * its scale after that, from the per-tensor rows and every step's amax */
static void say_delayed(const rctx *R)
{
    lab_ctx *L = R->L;
    const watch *w = R->w;
    const int jd[2] = {sidx("del-e4m3"), sidx("del-e5m2")};
    const int jc[2] = {sidx("cur-e4m3"), sidx("cur-e5m2")};
    if (w->nsnap < 2 || w->snaps[0].step != 0)
        return;
    /* step 0, and its part of what delayed E4M3 flushes over the watched steps */
    uint64_t uf0 = 0, ufall = 0;
    for (int si = 0; si < w->nsnap; si++)
        for (int k = K_W; k <= K_A; k++)
            for (int l = 0; l < w->L; l++) {
                const uint64_t u = row_at(R->M, si, k, l, jd[0])->underflow;
                ufall += u;
                uf0 += si == 0 ? u : 0;
            }
    lab_say(L, "**Delayed scaling: the cold start apart.**  At step 0 delayed scaling has "
               "recorded no amax and quantizes with scale 1: E4M3 flushes %.2f%% and %.2f%% of "
               "that step's nonzero weight and activation gradients, E5M2 %.2f%% and %.2f%%; "
               "that one step holds %.1f%% of the gradient values delayed E4M3 flushes over the "
               "%d watched steps.  ",
            pct(R->tot0[0][K_W].underflow, R->tot0[0][K_W].nonzero),
            pct(R->tot0[0][K_A].underflow, R->tot0[0][K_A].nonzero),
            pct(R->tot0[1][K_W].underflow, R->tot0[1][K_W].nonzero),
            pct(R->tot0[1][K_A].underflow, R->tot0[1][K_A].nonzero),
            ufall ? 100.0 * (double)uf0 / (double)ufall : 0.0, w->nsnap);
    /* after step 0: delayed against current over the same steps */
    double du[4], cu[4];
    for (int f = 0; f < 2; f++)
        for (int k = K_W; k <= K_A; k++) {
            agg d, c;
            memset(&d, 0, sizeof d);
            memset(&c, 0, sizeof c);
            for (int si = 1; si < w->nsnap; si++)
                for (int l = 0; l < w->L; l++) {
                    agg_add(&d, row_at(R->M, si, k, l, jd[f]));
                    agg_add(&c, row_at(R->M, si, k, l, jc[f]));
                }
            du[2 * f + k] = pct(d.underflow, d.nonzero);
            cu[2 * f + k] = pct(c.underflow, c.nonzero);
        }
    /* the E4M3 scales: delayed over current, per gradient tensor */
    double ratio[2 * 64 * MAXL];
    int nr = 0, below1 = 0;
    /* two classes: ratio below 1/2 (the history holds an amax more than
     * twice the tensor's own), and the others */
    int n1 = 0, n1w = 0, n1a = 0, t1lo = -1, t1hi = -1, h1lo = -1, h1hi = -1;
    uint64_t d1 = 0, c1 = 0, z1 = 0, d2 = 0, c2 = 0, z2 = 0;
    float h1max = 0;
    for (int si = 1; si < w->nsnap; si++)
        for (int k = K_W; k <= K_A; k++)
            for (int l = 0; l < w->L && nr < (int)(sizeof ratio / sizeof ratio[0]); l++) {
                const trow *d = row_at(R->M, si, k, l, jd[0]), *c = row_at(R->M, si, k, l, jc[0]);
                const double q = (double)d->scale / (double)c->scale;
                ratio[nr++] = q;
                below1 += d->scale < c->scale;
                if (q < 0.5) {
                    const int t = w->snaps[si].step;
                    int hs = 0;          /* the step of the history's largest amax */
                    for (int u = 1; u < t; u++)
                        hs = w->amax[k][l][u] > w->amax[k][l][hs] ? u : hs;
                    n1++;
                    n1w += k == K_W;
                    n1a += k == K_A;
                    t1lo = t1lo < 0 || t < t1lo ? t : t1lo;
                    t1hi = t > t1hi ? t : t1hi;
                    h1lo = h1lo < 0 || hs < h1lo ? hs : h1lo;
                    h1hi = hs > h1hi ? hs : h1hi;
                    h1max = fmaxf(h1max, w->amax[k][l][hs]);
                    d1 += d->underflow;
                    c1 += c->underflow;
                    z1 += d->nonzero;
                } else {
                    d2 += d->underflow;
                    c2 += c->underflow;
                    z2 += d->nonzero;
                }
            }
    qsort(ratio, (size_t)nr, sizeof ratio[0], cmp_double);
    const double med = nr ? (nr % 2 ? ratio[nr / 2] : 0.5 * (ratio[nr / 2 - 1] + ratio[nr / 2]))
                          : NAN;
    char hist[96];
    if (w->steps <= 1024)
        snprintf(hist, sizeof hist, "the history of 1024 steps is longer than this %d-step "
                 "run", w->steps);
    else
        snprintf(hist, sizeof hist, "a history of 1024 steps");
    lab_say(L, "Over the %d watched steps after it, delayed scaling flushes %.2f%% and %.2f%% "
               "with E4M3 and %.3f%% and %.3f%% with E5M2, current scaling over the same steps "
               "%.2f%% and %.2f%%, %.3f%% and %.3f%% (delayed: %s).  Delayed scaling's scale is "
               "the format's largest value over the largest amax recorded before the step (%s); "
               "with E4M3 it is below "
               "the current one in %d of the %d gradient tensors, median ratio %.3g (the flush "
               "threshold %.2f binade higher).  ", w->nsnap - 1, du[0], du[1], du[2], du[3],
            cu[0], cu[1], cu[2], cu[3], more_fewer(du, cu, 4), hist, below1, nr, med,
            med > 0 ? -log2(med) : NAN);
    const int64_t ex1 = (int64_t)d1 - (int64_t)c1, ex2 = (int64_t)d2 - (int64_t)c2;
    if (!n1)
        lab_say(L, "No tensor's ratio is below 1/2: the %lld values delayed E4M3 flushes "
                   "beyond current scaling lie where a ratio between 1/2 and 1 moves the "
                   "threshold.\n\n", (long long)(ex1 + ex2));
    else
        lab_say(L, "Of the %lld values delayed E4M3 flushes beyond current scaling, %lld lie "
                   "in the %d tensors whose ratio is below 1/2 (%d weight-gradient and %d "
                   "activation-gradient tensors, at steps %d to %d), whose history's largest "
                   "amax was recorded at steps %d to %d (up to %.4g): there delayed E4M3 flushes "
                   "%.2f%% against current scaling's %.2f%%.  The other %lld lie in the other "
                   "%d tensors (ratio 1/2 or more): %.2f%% against %.2f%%.\n\n",
                (long long)(ex1 + ex2), (long long)ex1, n1, n1w, n1a, t1lo, t1hi, h1lo, h1hi,
                (double)h1max, pct(d1, z1), pct(c1, z1), (long long)ex2, nr - n1, pct(d2, z2),
                pct(c2, z2));
}

static void say_measurement(const rctx *R)
{
    lab_ctx *L = R->L;
    const watch *w = R->w;
    uint64_t nv[NKIND] = {0, 0, 0};
    float smin = INFINITY, smax = -INFINITY;
    for (int si = 0; si < w->nsnap; si++) {
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++)
                nv[k] += w->snaps[si].rows[k][l] * w->snaps[si].cols[k][l];
        smin = fminf(smin, w->snaps[si].S);
        smax = fmaxf(smax, w->snaps[si].S);
    }
    int e0, e1;
    frexpf(smin, &e0);
    frexpf(smax, &e1);
    char srange[64];
    if (smin == smax)
        snprintf(srange, sizeof srange, "S = 2^%d at every watched step", e0 - 1);
    else
        snprintf(srange, sizeof srange, "S = 2^%d to 2^%d at the watched steps", e0 - 1,
                 e1 - 1);
    lab_say(L, "Setting: %s (the *deep* setting; the first seed's binary32 run is the run "
               "of section 3).  Measured: that run's weight gradients, activation gradients "
               "(with respect to each layer's output, as in section 3) and activations "
               "(each layer's input), every %d steps (%d steps: %llu, %llu and %llu "
               "values), and at every step each tensor's largest magnitude (amax).  Each "
               "watched tensor is quantized and dequantized under each scheme of the table: "
               "a cast without scaling (overflow to Inf or NaN, as a PyTorch cast does); "
               "loss scaling, for gradients only, by the scale S that GradScaler used at "
               "that step in the first seed's fp16-torch-i50 run (same initialisation and "
               "batches; %s); Transformer Engine's per-tensor FP8 scaling, current "
               "(FP8_MAX / the tensor's amax) and delayed (amax history 1024, `max`, margin "
               "0: the scale of step t comes from the amaxes of the steps before t), both "
               "saturating; OCP MX with blocks of 32 along each tensor's last axis (scale "
               "rule floor, the specification's, and rceil, the one the mxfp8 policy uses; "
               "a row of 10 values is one block, padded with zeros) and NVFP4 (blocks of "
               "16, E4M3 block scales, one FP32 tensor scale).\n\n",
            R->params, w->every, w->nsnap, (unsigned long long)nv[K_W],
            (unsigned long long)nv[K_A], (unsigned long long)nv[K_X], srange);
    lab_say(L, "| scheme | w-grad underflow | w-grad saturated | w-grad error | a-grad "
               "underflow | a-grad saturated | a-grad error | act underflow | act "
               "saturated | act error |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int j = 0; j < NSCH; j++) {
        const int n0 = !strcmp(sch[j].id, "del-e5m2") ? 3 : 1;
        for (int q = 0; q < n0; q++) {
            if (q == 0)
                lab_say(L, "| %s |", sch[j].label);
            else
                lab_say(L, "| per-tensor delayed %s, step 0 (scale 1) |",
                        q == 1 ? "E4M3" : "E5M2");
            for (int k = 0; k < NKIND; k++) {
                const agg *a = q == 0 ? &R->tot[j][k] : &R->tot0[q - 1][k];
                if (!a->tensors)
                    lab_say(L, " – | – | – |");
                else
                    lab_say(L, " %.3f%% | %.3f%% | %.3g |", pct(a->underflow, a->nonzero),
                            pct(a->saturated, a->nonzero), ERR(a));
            }
            lab_say(L, "\n");
        }
    }
    lab_say(L, "\n*Underflow*: nonzero values dequantized to zero; *saturated*: values "
               "clamped at the largest element (for a cast: sent to Inf or NaN); both in %% "
               "of the nonzero values, over the watched steps and layers (delayed scaling: "
               "its step 0, where it has no amax yet, apart from the later steps).  *Error*: "
               "sqrt(Σ(deq − x)² / Σx²) over the values whose dequantized value is finite.  "
               "–: loss scaling is not applied to activations.\n\n");

    /* what the numbers say */
    const double Wf = U(R, "fp16", K_W), Af = U(R, "fp16", K_A);
    lab_say(L, "Without scaling, a cast to E4M3 flushes %.2f%% of the nonzero weight "
               "gradients and %.2f%% of the nonzero activation gradients to zero, a cast to "
               "E5M2 %.2f%% and %.2f%%, and one to binary16 %.2f%% and %.2f%%.  ",
            U(R, "e4m3", K_W), U(R, "e4m3", K_A), U(R, "e5m2", K_W), U(R, "e5m2", K_A),
            Wf, Af);
    /* the lab's one flush definition (amp_flush, section 3): every step */
    {
        double fw[64], fa[64], mw, sw, ma, sa;
        for (int k = 0; k < R->S; k++) {
            fw[k] = 100 * amp_flush_share(&R->jobs[k].f1, AMP_FLUSH_WGRAD);
            fa[k] = 100 * amp_flush_share(&R->jobs[k].f1, AMP_FLUSH_AGRAD);
        }
        lab_mean_sd(fw, R->S, &mw, &sw);
        lab_mean_sd(fa, R->S, &ma, &sa);
        lab_say(L, "The binary16 figures count the %d watched steps (one in %d, step 0 "
                   "included); by the lab's one flush definition (section 3: every step, every "
                   "layer) binary16 flushes %.2f%% and %.2f%% of this run's nonzero weight and "
                   "activation gradients, and over seeds %llu to %llu %.2f ± %.2f%% and "
                   "%.2f ± %.2f%%.  ", w->nsnap, w->every, fw[0], fa[0],
                (unsigned long long)L->seed, (unsigned long long)(L->seed + (uint64_t)R->S - 1),
                mw, sw, ma, sa);
    }
    char sat[160];
    double lss[4] = {SAT(R, "ls-fp16", K_W), SAT(R, "ls-fp16", K_A), SAT(R, "ls-e5m2", K_W),
                     SAT(R, "ls-e5m2", K_A)};
    if (lss[0] + lss[1] + lss[2] + lss[3] == 0)
        snprintf(sat, sizeof sat, "no value overflows at these scales");
    else
        snprintf(sat, sizeof sat, "binary16 overflows %.4f%% and %.4f%%, E5M2 %.4f%% and "
                 "%.4f%%", lss[0], lss[1], lss[2], lss[3]);
    lab_say(L, "Multiplied by GradScaler's S first, binary16 flushes %.3f%% and %.3f%%, "
               "E5M2 %.3f%% and %.3f%%; %s.  ", U(R, "ls-fp16", K_W), U(R, "ls-fp16", K_A),
            U(R, "ls-e5m2", K_W), U(R, "ls-e5m2", K_A), sat);
    double cs[4] = {SAT(R, "cur-e4m3", K_W), SAT(R, "cur-e4m3", K_A),
                    SAT(R, "cur-e5m2", K_W), SAT(R, "cur-e5m2", K_A)};
    if (cs[0] + cs[1] + cs[2] + cs[3] == 0)
        snprintf(sat, sizeof sat, "and saturates nothing (the scale maps each tensor's own "
                 "amax to the largest element)");
    else
        snprintf(sat, sizeof sat, "and saturates %.4f%% and %.4f%% (E4M3), %.4f%% and "
                 "%.4f%% (E5M2)", cs[0], cs[1], cs[2], cs[3]);
    lab_say(L, "Per-tensor current scaling flushes %.2f%% and %.2f%% with E4M3 and %.3f%% "
               "and %.3f%% with E5M2, %s.  ", U(R, "cur-e4m3", K_W), U(R, "cur-e4m3", K_A),
            U(R, "cur-e5m2", K_W), U(R, "cur-e5m2", K_A), sat);
    double cu[2] = {U(R, "cur-e4m3", K_W), U(R, "cur-e4m3", K_A)};
    double mr[2] = {U(R, "mxfp8-e4m3-rceil", K_W), U(R, "mxfp8-e4m3-rceil", K_A)};
    double rs[2] = {SAT(R, "mxfp8-e4m3-rceil", K_W), SAT(R, "mxfp8-e4m3-rceil", K_A)};
    char rsat[80];
    if (rs[0] + rs[1] == 0)
        snprintf(rsat, sizeof rsat, "none");
    else
        snprintf(rsat, sizeof rsat, "%.3f%% and %.3f%%", rs[0], rs[1]);
    lab_say(L, "Per block, MXFP8 E4M3 flushes %.3f%% and %.3f%% (rule floor) and %.3f%% and "
               "%.3f%% (rceil), %s than per-tensor current E4M3; the rule floor saturates "
               "%.3f%% and %.3f%% (divided by its power-of-two scale, a block's largest value "
               "lies in [256, 512), and above 448 it is clamped), rceil %s.  ", U(R, "mxfp8-e4m3", K_W),
            U(R, "mxfp8-e4m3", K_A), mr[0], mr[1], more_fewer(mr, cu, 2),
            SAT(R, "mxfp8-e4m3", K_W), SAT(R, "mxfp8-e4m3", K_A), rsat);
    /* the 4-bit schemes: do they flush the most among the scaled ones? */
    int most = 1;
    for (int k = 0; k < NKIND; k++)
        for (int j = 0; j < NSCH; j++) {
            if (R->tot[j][k].tensors == 0 || sch[j].how == H_FP16 ||
                (sch[j].how == H_AT && !sch[j].ls) || !strcmp(sch[j].id, "mxfp4") ||
                !strcmp(sch[j].id, "nvfp4"))
                continue;
            most &= U(R, sch[j].id, k) < U(R, "nvfp4", k) &&
                    U(R, sch[j].id, k) < U(R, "mxfp4", k);
        }
    double emin = INFINITY, emax = -INFINITY;
    for (int k = 0; k < NKIND; k++) {
        const double e1 = ERR(&R->tot[sidx("mxfp4")][k]), e2 = ERR(&R->tot[sidx("nvfp4")][k]);
        emin = fmin(emin, fmin(e1, e2));
        emax = fmax(emax, fmax(e1, e2));
    }
    lab_say(L, "%s MXFP4 %.1f%%, %.1f%% and %.1f%% of the weight gradients, activation "
               "gradients and activations, NVFP4 %.1f%%, %.1f%% and %.1f%%, with normwise "
               "errors of %.3g to %.3g.\n\n",
            most ? "Of the scaled schemes, the 4-bit ones flush the most:" :
                   "The 4-bit schemes flush:",
            U(R, "mxfp4", K_W), U(R, "mxfp4", K_A), U(R, "mxfp4", K_X), U(R, "nvfp4", K_W),
            U(R, "nvfp4", K_A), U(R, "nvfp4", K_X), emin, emax);
    say_delayed(R);
    lab_figure(L, "scaling", "Per scheme (rows) and tensor (panels: weight gradients, "
               "activation gradients and activations of the watched binary32 run): the values "
               "flushed to zero (dots, coloured by scheme family) and saturated (triangles, "
               "where any), in %% of the nonzero values on a log axis with a column for 0, and "
               "the normwise error sqrt(Σ(deq − x)²/Σx²) per tensor (right).  Delayed "
               "scaling's step 0, the cold start with scale 1, is a row of its own (shaded).  "
               "Loss scaling is not applied to activations.");
}

static void say_granularity(const rctx *R)
{
    lab_ctx *L = R->L;
    const int Lc = R->w->L, last = Lc - 1;
    lab_say(L, "**Where one scale per tensor is not enough.**  Underflow per layer, and "
               "how far below the amax of its tensor or of its block of 32 each nonzero "
               "value lies:\n\n"
               "| tensor | layer | per-tensor E4M3 | MXFP8 E4M3 (rceil) | per-tensor E5M2 | "
               "MXFP8 E5M2 | values > 2^19 below the tensor amax | values > 2^19 below "
               "the block amax |\n|---|---|---|---|---|---|---|---|\n");
    static const char *const kname[NKIND] = {"weight gradient", "activation gradient",
                                             "activation"};
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < Lc; l++)
            lab_say(L, "| %s | %d | %.3f%% | %.3f%% | %.3f%% | %.3f%% | %.3f%% | %.3f%% |\n",
                    kname[k], l, UL(R, "cur-e4m3", k, l), UL(R, "mxfp8-e4m3-rceil", k, l),
                    UL(R, "cur-e5m2", k, l), UL(R, "mxfp8-e5m2", k, l),
                    below(R, 1, k, l, l, -20), below(R, 0, k, l, l, -20));
    /* the hidden layers' activation gradients */
    double cmin = INFINITY, cmax = -INFINITY, mmin = INFINITY, mmax = -INFINITY;
    for (int l = 0; l < last; l++) {
        cmin = fmin(cmin, UL(R, "cur-e4m3", K_A, l));
        cmax = fmax(cmax, UL(R, "cur-e4m3", K_A, l));
        mmin = fmin(mmin, UL(R, "mxfp8-e4m3-rceil", K_A, l));
        mmax = fmax(mmax, UL(R, "mxfp8-e4m3-rceil", K_A, l));
    }
    agg ec, em;
    memset(&ec, 0, sizeof ec);
    memset(&em, 0, sizeof em);
    for (int l = 0; l < last; l++) {
        const agg *a = &R->lay[sidx("cur-e4m3")][K_A][l], *b = &R->lay[sidx("mxfp8-e4m3-rceil")][K_A][l];
        ec.err2 += a->err2;
        ec.x2 += a->x2;
        em.err2 += b->err2;
        em.x2 += b->x2;
    }
    const double e1 = ERR(&ec), e2 = ERR(&em);
    lab_say(L, "\nIn the hidden layers (0 to %d), per-tensor current E4M3 flushes %.2f%% to "
               "%.2f%% of the nonzero activation gradients and MXFP8 E4M3 %.3f%% to %.3f%%.  "
               "Per-tensor E4M3 flushes every value below 2^-18.8 times the amax (half its "
               "smallest subnormal, 2^-10, over its largest element, 448 = 2^8.8): %.2f%% of "
               "those values lie more than 2^19 below their tensor's amax, %.3f%% more than "
               "2^19 below the amax of their own block (a piece of one example's row)%s.  "
               "The normwise errors are %.3g per tensor and %.3g per block%s.\n\n", last - 1,
            cmin, cmax, mmin, mmax, below(R, 1, K_A, 0, last - 1, -20),
            below(R, 0, K_A, 0, last - 1, -20),
            mmax < cmin ? ": one scale per block keeps what one scale per tensor flushes"
                        : "",
            e1, e2, fabs(e1 - e2) < 0.1 * fmax(e1, e2) ? ": the flushed values are too "
            "small to weigh in the sum of squares" : "");
    const double c4 = UL(R, "cur-e4m3", K_A, last), m4 = UL(R, "mxfp8-e4m3-rceil", K_A, last);
    const double c5 = UL(R, "cur-e5m2", K_A, last), m5 = UL(R, "mxfp8-e5m2", K_A, last);
    const char *how = c4 == 0 ? "has nothing to recover"
                      : m4 < c4 ? (m4 > 0 ? "recovers part" : "recovers all")
                                : "recovers nothing";
    char tail[240] = "";
    if (m5 < m4)
        snprintf(tail, sizeof tail, ": wider elements keep more of them (MXFP8 E5M2 "
                 "flushes %.1f%%)", m5);
    lab_say(L, "In the last layer's activation gradients (the logit gradients, one row of "
               "%zu values per example, padded to one block) a scale per block %s: "
               "per-tensor E4M3 flushes %.1f%%, MXFP8 E4M3 %.1f%%; per-tensor E5M2 %.1f%%, "
               "MXFP8 E5M2 %.1f%%.  There %.1f%% of the nonzero values lie more than 2^19 "
               "below their own block's amax, beyond E4M3's reach under any block scale "
               "that keeps the block's largest value (448 down to half the smallest "
               "subnormal spans 2^18.8)%s.\n\n", R->w->dims[Lc], how, c4, m4, c5, m5,
            below(R, 0, K_A, last, last, -20), tail);
    lab_figure(L, "scaling_blocks", "Left: per layer, the activation gradients (top) and "
               "weight gradients (bottom) flushed to zero by per-tensor current scaling and "
               "by MXFP8 (rceil for E4M3), with E4M3 and with E5M2 elements (one dot per "
               "scheme, log axis with a column for 0, the number beside each dot).  Right: the "
               "share of the nonzero activation gradients below 2^x times the amax of their "
               "tensor (solid) and of their block of 32 (dashed), hidden layers (top) and the "
               "last layer (bottom), with the values whose floor(log2(|x| / amax)) is -40 or less "
               "as one bin (squares, ≤ -40); per-tensor E4M3 flushes left of the dashed grey line (x = -18.8), "
               "per-tensor E5M2 left of the dotted one (x = -32.8).");
}

static const char *cmp_word(int c)
{
    return c == 2 ? "identical" : c > 0 ? "higher" : c < 0 ? "lower" : "not shown";
}

static void say_training(rctx *R)
{
    lab_ctx *L = R->L;
    const int S = R->S;
    lab_say(L, "**Training with FP8 and MX matrix products.**  Every policy with %d seeds "
               "(%llu to %llu) in the *deep* setting, compared seed by seed by the lab's rule "
               "(section 6: a difference is called only when the 95%% confidence interval of "
               "the mean per-seed difference excludes 0).  fp8-hybrid-delayed is Transformer "
               "Engine's DelayedScaling with HYBRID formats (E4M3 activations and weights, "
               "E5M2 output gradients; history 1024, `max`); fp8-e4m3-current scales every "
               "tensor, output gradients included, by its own amax into E4M3; mxfp8 is "
               "MXFP8 E4M3 for every tensor, blocks of 32 along each product's reduction "
               "axis, scale rule rceil.  These three quantize the inputs of every matrix "
               "product and sum in binary32; everything else is binary32, without loss "
               "scaling.  fp16-torch-i50 is fp16 autocast with GradScaler (growth interval "
               "50).\n\n| policy | final loss | test accuracy %% (min–max) | vs fp32 | "
               "output gradients flushed | activations flushed | weights flushed | "
               "saturated |\n|---|---|---|---|---|---|---|---|\n", S,
            (unsigned long long)L->seed, (unsigned long long)(L->seed + (uint64_t)S - 1));
    double gfl[NPOL][64];
    for (int p = 0; p < NPOL; p++) {
        double loss[64], fl[AMP_GQ_TENSORS] = {0, 0, 0}, sat = 0;
        int div = 0;
        for (int k = 0; k < S; k++) {
            const tjob *j = &R->jobs[(size_t)p * (size_t)S + (size_t)k];
            loss[k] = j->loss_final;
            div += j->first_nonfinite != 0;
            uint64_t nz = 0, st = 0;
            for (int q = 0; q < AMP_GQ_TENSORS; q++) {
                fl[q] += pct(j->q[q].underflow, j->q[q].nonzero) / S;
                nz += j->q[q].nonzero;
                st += j->q[q].saturated;
            }
            gfl[p][k] = pct(j->q[AMP_GQ_GRAD].underflow, j->q[AMP_GQ_GRAD].nonzero);
            sat += pct(st, nz) / S;
        }
        double lm, ls, am, as, amin = INFINITY, amax = -INFINITY;
        lab_mean_sd(loss, S, &lm, &ls);
        lab_mean_sd(R->acc[p], S, &am, &as);
        for (int k = 0; k < S; k++) {
            amin = fmin(amin, R->acc[p][k]);
            amax = fmax(amax, R->acc[p][k]);
        }
        char lossc[64], vs[80] = "-", q[160];
        if (div)
            snprintf(lossc, sizeof lossc, "diverged (%d of %d seeds)", div, S);
        else
            snprintf(lossc, sizeof lossc, "%.4g ± %.2g", lm, ls);
        if (p) {
            double dm, h;
            int c = lab_paired(R->acc[p], R->acc[0], S, &dm, &h);
            if (c == 2)
                snprintf(vs, sizeof vs, "identical");
            else
                snprintf(vs, sizeof vs, "%s (%+.2f ± %.2f)", cmp_word(c), dm, h);
        }
        if (R->jobs[(size_t)p * (size_t)S].c.policy.gq.kind == AMP_GQ_NONE)
            snprintf(q, sizeof q, "– | – | – | –");
        else
            snprintf(q, sizeof q, "%.3f%% | %.4f%% | %.4f%% | %.4f%%", fl[AMP_GQ_GRAD],
                     fl[AMP_GQ_ACT], fl[AMP_GQ_WEIGHT], sat);
        lab_say(L, "| %s | %s | %.2f ± %.2f (%.2f–%.2f) | %s | %s |\n", pol[p], lossc, am, as,
                amin, amax, vs, q);
    }
    lab_say(L, "\n*Final loss, test accuracy*: mean ± sample standard deviation over the %d "
               "seeds; *vs fp32*: the mean per-seed difference (points) ± the half-width of "
               "its 95%% interval.  *Flushed*, *saturated*: of the nonzero values entering "
               "the matrix products over the run (MX counts each of its two quantizations "
               "of a tensor), mean over the seeds; –: no quantizer.\n\n", S);
    /* groups against binary32 */
    static const int order[4] = {2, 0, -1, 1};
    static const char *const label[4] = {"identical to binary32 in every seed",
                                         "difference from binary32 not shown",
                                         "lower than binary32", "higher than binary32"};
    char groups[600] = "";
    size_t o = 0;
    for (int g = 0; g < 4; g++) {
        int any = 0;
        for (int p = 1; p < NPOL; p++) {
            double dm, h;
            if (lab_paired(R->acc[p], R->acc[0], S, &dm, &h) != order[g])
                continue;
            o += (size_t)snprintf(groups + o, o < sizeof groups ? sizeof groups - o : 0,
                                  "%s%s%s", any ? ", " : o ? "; " : "", any ? "" : label[g],
                                  any ? "" : ": ");
            o += (size_t)snprintf(groups + o, o < sizeof groups ? sizeof groups - o : 0, "%s",
                                  pol[p]);
            any = 1;
        }
    }
    const int pc = pidx("fp8-e4m3-current"), pm = pidx("mxfp8"), pd = pidx("fp8-hybrid-delayed"),
              pg = pidx("fp16-torch-i50");
    double gc, gcs, gm, gms, dm, h;
    lab_mean_sd(gfl[pc], S, &gc, &gcs);
    lab_mean_sd(gfl[pm], S, &gm, &gms);
    int c1 = lab_paired(R->acc[pc], R->acc[pm], S, &dm, &h);
    char v1[80], v2[80];
    snprintf(v1, sizeof v1, c1 == 2 ? "identical" : "%s (%+.2f ± %.2f)", cmp_word(c1), dm, h);
    int c2 = lab_paired(R->acc[pd], R->acc[pg], S, &dm, &h);
    snprintf(v2, sizeof v2, c2 == 2 ? "identical" : "%s (%+.2f ± %.2f)", cmp_word(c2), dm, h);
    double f32m, f32s;
    lab_mean_sd(R->acc[0], S, &f32m, &f32s);
    /* the flushed share over the run: the last tenth of the steps, and
     * delayed scaling's first step (scale 1, before any amax) */
    const int steps = R->jobs[0].c.steps, t0 = steps - (steps + 9) / 10;
    double late[NPOL] = {0}, first = 0;
    for (int p = 0; p < NPOL; p++)
        for (int k = 0; k < S; k++) {
            const tjob *j = &R->jobs[(size_t)p * (size_t)S + (size_t)k];
            for (int t = t0; t < steps; t++)
                late[p] += 100.0 * j->gflush[t] / (double)(S * (steps - t0));
            if (p == pd)
                first += 100.0 * j->gflush[0] / S;
        }
    lab_say(L, "By the rule, %s.  Over the run, per-tensor E4M3 (fp8-e4m3-current) flushes "
               "%.2f ± %.2f%% of the output-gradient values entering the products, MXFP8 "
               "%.2f ± %.2f%%; fp8-e4m3-current's test accuracy against mxfp8's: %s.  "
               "fp8-hybrid-delayed against fp16 with GradScaler: %s.  In the last %d steps "
               "fp8-e4m3-current flushes %.2f%% of the output-gradient values, mxfp8 %.2f%%, "
               "fp8-hybrid-delayed %.2f%% (mean over those steps and the seeds); "
               "fp8-hybrid-delayed's first step, quantized with scale 1 before any amax "
               "is recorded, flushes %.2f%%.\n\n", groups, gc, gcs, gm, gms, v1, v2,
            steps - t0, late[pc], late[pm], late[pd], first);
    lab_figure(L, "scaling_train", "Training with FP8 and MX matrix products in the deep "
               "setting, %d seeds.  Small panels: each policy's training loss per step (mean "
               "over the seeds; band: smallest to largest) over binary32's (grey).  Bottom "
               "left: each policy's test accuracy minus binary32's, seed by seed (dots), "
               "with the mean difference and its 95%% interval (bar) and the verdict by the "
               "rule above it; binary32 reaches %.2f ± %.2f%%.  Bottom right: the fraction of "
               "nonzero output-gradient values the quantizer flushed to zero, per step (mean "
               "over the seeds).", S, f32m, f32s);
}

int lab_exp_scaling(lab_ctx *L)
{
    const int S = L->seeds;
    int rc = -1;
    if (S < 2 || S > 64) {
        snprintf(L->err, sizeof L->err, "scaling: %d seeds (need 2..64)", S);
        return -1;
    }
    if (!L->data_path) {
        snprintf(L->err, sizeof L->err, "scaling: no training data path");
        return -1;
    }
    amp_dataset data;
    char err[256];
    amp_train_config dc;
    amp_train_config_default(&dc);
    if (amp_dataset_read_csv(&data, L->data_path, dc.label_pos, dc.feature_scale, err,
                             sizeof err)) {
        snprintf(L->err, sizeof L->err, "scaling: %s", err);
        return -1;
    }
    const size_t njobs = (size_t)NPOL * (size_t)S;
    tjob *jobs = calloc(njobs, sizeof *jobs);
    watch *w = calloc(1, sizeof *w);
    mctx M;
    memset(&M, 0, sizeof M);
    bhist *bh = NULL;
    if (!jobs || !w)
        goto oom;
    for (int p = 0; p < NPOL; p++)
        for (int k = 0; k < S; k++) {
            tjob *j = &jobs[(size_t)p * (size_t)S + (size_t)k];
            if (lab_train_setting(L, &j->c, LAB_SETTING_DEEP, pol[p], err, sizeof err)) {
                snprintf(L->err, sizeof L->err, "scaling: %s: %s", pol[p], err);
                goto out;
            }
            j->c.seed = L->seed + (uint64_t)k;
            j->data = &data;
            j->name = pol[p];
            if (p == P_F32) {
                amp_flush_init(&j->f1);
                j->c.on_step = tjob_on_step;
                j->c.user = j;
            }
        }
    /* the watched run: binary32, first seed */
    tjob *j0 = &jobs[0];
    w->steps = j0->c.steps;
    w->every = L->quick ? 4 : 25;
    w->cap = (w->steps + w->every - 1) / w->every;
    w->dims[0] = data.dim;
    for (int l = 1; l < j0->c.depth; l++)
        w->dims[l] = (size_t)j0->c.width;
    w->dims[j0->c.depth] = (size_t)data.classes;
    if (j0->c.depth > MAXL || !(w->snaps = calloc((size_t)(w->cap ? w->cap : 1), sizeof *w->snaps)))
        goto oom;
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < j0->c.depth; l++)
            if (!(w->amax[k][l] = calloc((size_t)w->steps, sizeof(float))))
                goto oom;
    j0->w = w;

    if (lab_parallel(L, njobs, tjob_exec, jobs))
        goto out;
    for (size_t i = 0; i < njobs; i++)
        if (jobs[i].rc || jobs[i].flush_err) {
            snprintf(L->err, sizeof L->err, "scaling: training %s (seed %llu): %s",
                     jobs[i].name, (unsigned long long)jobs[i].c.seed, jobs[i].err);
            goto out;
        }
    if (w->failed)
        goto oom;

    /* GradScaler's scales, and the delayed scales at the watched steps */
    const tjob *jg = &jobs[(size_t)P_GS * (size_t)S];
    for (int i = 0; i < w->nsnap; i++)
        w->snaps[i].S = jg->scale[w->snaps[i].step];
    for (int f = 0; f < 2; f++) {
        fl_scale_scheme ds;
        if (fl_scale_scheme_parse(&ds, f ? "fp8-e5m2-tensor" : "fp8-e4m3-tensor", err,
                                  sizeof err)) {
            snprintf(L->err, sizeof L->err, "scaling: %s", err);
            goto out;
        }
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++) {
                fl_scale_delayed d;
                if (fl_scale_delayed_init(&d, &ds, 1024, FL_DS_MAX, 0.0f, err, sizeof err)) {
                    snprintf(L->err, sizeof L->err, "scaling: %s", err);
                    goto out;
                }
                int si = 0;
                for (int t = 0; t < w->steps; t++) {
                    if (si < w->nsnap && w->snaps[si].step == t)
                        w->snaps[si++].dscale[k][l][f] = d.scale;
                    fl_scale_delayed_record(&d, w->amax[k][l][t]);
                    fl_scale_delayed_update(&d);
                }
                fl_scale_delayed_free(&d);
            }
    }
    /* measure every watched step */
    M.w = w;
    for (int j = 0; j < NSCH; j++)
        if (sch[j].spec && fl_scale_scheme_parse(&M.s[j], sch[j].spec, err, sizeof err)) {
            snprintf(L->err, sizeof L->err, "scaling: %s", err);
            goto out;
        }
    M.rows = calloc((size_t)(w->nsnap ? w->nsnap : 1) * NKIND * MAXL * NSCH, sizeof *M.rows);
    if (!M.rows)
        goto oom;
    if (lab_parallel(L, (size_t)w->nsnap, measure_snap, &M))
        goto out;
    if (M.rc) {
        snprintf(L->err, sizeof L->err, "scaling: %s", M.err[0] ? M.err : "out of memory");
        goto out;
    }

    /* ---- files ------------------------------------------------------- */
    char params[512];
    lab_train_describe(&j0->c, params, sizeof params);
    FILE *fp = lab_data_begin(L, "scaling_tensors.dat",
                              "quantizing the watched tensors: counts per tensor and scheme",
                              "binary32 run; schemes as listed",
                              "%s watched_every=%d watched_steps=%d", params, w->every,
                              w->nsnap);
    if (!fp)
        goto out;
    fprintf(fp, "# schemes:");
    for (int j = 0; j < NSCH; j++)
        fprintf(fp, " %s", sch[j].id);
    fprintf(fp, "\n# kinds: wgrad (weight gradient, in x out), agrad (gradient with "
                "respect to the layer's output, batch x out), act (the layer's input, "
                "batch x in); blocks along the last axis\n"
                "# columns: step layer kind scheme scale (per-tensor scale used; 0 for "
                "block schemes) n nonzero underflow subnormal saturated rel_n rel_sum "
                "err2 x2 (err2 = sum (deq - x)^2 and x2 = sum x^2 over the values with "
                "a finite dequantized value)\n");
    for (int si = 0; si < w->nsnap; si++)
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++)
                for (int j = 0; j < NSCH; j++) {
                    const trow *r = row_at(&M, si, k, l, j);
                    if (!r->valid)
                        continue;
                    fprintf(fp, "%d %d %s %s %.9g %llu %llu %llu %llu %llu %llu %.17g "
                                "%.17g %.17g\n", w->snaps[si].step, l, kind_id[k], sch[j].id,
                            (double)r->scale, (unsigned long long)r->n,
                            (unsigned long long)r->nonzero, (unsigned long long)r->underflow,
                            (unsigned long long)r->subnormal,
                            (unsigned long long)r->saturated, (unsigned long long)r->rel_n,
                            r->rel_sum, r->err2, r->x2);
                }
    if (lab_data_end(L, fp))
        goto out;

    fp = lab_data_begin(L, "scaling_steps.dat", "amax of every tensor at every step, "
                        "and GradScaler's scale", "binary32 run; fp16-torch-i50 run",
                        "%s", params);
    if (!fp)
        goto out;
    fprintf(fp, "# columns: step S (the scale GradScaler used at this step in the first "
                "seed's fp16-torch-i50 run) then amax of");
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < w->L; l++)
            fprintf(fp, " %s_L%d", kind_id[k], l);
    fprintf(fp, "\n");
    for (int t = 0; t < w->steps; t++) {
        fprintf(fp, "%d %.9g", t, (double)jg->scale[t]);
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++)
                fprintf(fp, " %.9g", (double)w->amax[k][l][t]);
        fprintf(fp, "\n");
    }
    if (lab_data_end(L, fp))
        goto out;

    /* totals per scheme; delayed scaling's step 0 (the cold start: scale 1,
     * no amax recorded yet) apart from its later steps */
    agg tot[NSCH][NKIND], lay[NSCH][NKIND][MAXL], tot0[2][NKIND];
    memset(tot, 0, sizeof tot);
    memset(lay, 0, sizeof lay);
    memset(tot0, 0, sizeof tot0);
    for (int si = 0; si < w->nsnap; si++)
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++)
                for (int j = 0; j < NSCH; j++)
                    if (row_at(&M, si, k, l, j)->valid) {
                        if (sch[j].how == H_DELAYED && w->snaps[si].step == 0) {
                            agg_add(&tot0[strstr(sch[j].id, "e5m2") != NULL][k],
                                    row_at(&M, si, k, l, j));
                            continue;
                        }
                        agg_add(&tot[j][k], row_at(&M, si, k, l, j));
                        agg_add(&lay[j][k][l], row_at(&M, si, k, l, j));
                    }
    bh = calloc(1, sizeof *bh);
    if (!bh)
        goto oom;
    block_hist(w, bh);
    rctx R;
    memset(&R, 0, sizeof R);
    R.L = L;
    R.w = w;
    R.M = &M;
    R.bh = bh;
    R.tot = (const agg (*)[NKIND])tot;
    R.tot0 = (const agg (*)[NKIND])tot0;
    R.lay = (const agg (*)[NKIND][MAXL])lay;
    R.jobs = jobs;
    R.S = S;
    R.params = params;
    fp = lab_data_begin(L, "scaling.dat", "totals per scheme over the watched tensors",
                        "binary32 run; schemes as listed", "%s watched_every=%d "
                        "watched_steps=%d", params, w->every, w->nsnap);
    if (!fp)
        goto out;
    fprintf(fp, "# block 0: one row per scheme (the schemes of scaling_tensors.dat, with "
                "delayed scaling's step 0 apart: del-e4m3 and del-e5m2 are the watched steps "
                "after step 0, del-e4m3-step0 and del-e5m2-step0 step 0 alone, scale 1); "
                "per kind (w: weight gradients, a: activation gradients, x: "
                "activations): underflow and saturated in %% of the nonzero values, "
                "mean relative error, normwise error sqrt(sum err2 / sum x2); nan: not "
                "measured\n# columns: index scheme w_underflow w_saturated w_relmean "
                "w_norm a_underflow a_saturated a_relmean a_norm x_underflow "
                "x_saturated x_relmean x_norm\n");
    {
        int idx = 0;
        for (int j = 0; j < NSCH; j++) {
            const int n0 = sch[j].how == H_DELAYED && !strcmp(sch[j].id, "del-e5m2") ? 3 : 1;
            for (int q = 0; q < n0; q++) {
                /* after del-e5m2: the two step-0 rows */
                const agg *row = q == 0 ? tot[j] : tot0[q - 1];
                fprintf(fp, "%d %s%s", idx++, q == 0 ? sch[j].id : q == 1 ? "del-e4m3" : "del-e5m2",
                        q ? "-step0" : "");
                for (int k = 0; k < NKIND; k++) {
                    const agg *a = &row[k];
                    if (!a->tensors) {
                        fprintf(fp, " nan nan nan nan");
                        continue;
                    }
                    fprintf(fp, " %.6f %.6f %.6e %.6e", pct(a->underflow, a->nonzero),
                            pct(a->saturated, a->nonzero),
                            a->rel_n ? a->rel_sum / (double)a->rel_n : 0.0,
                            a->x2 > 0 ? sqrt(a->err2 / a->x2) : 0.0);
                }
                fprintf(fp, "\n");
            }
        }
    }
    fprintf(fp, "\n\n# block 1: log2 histogram of the nonzero finite values at the "
                "watched steps, all layers\n# columns: log2_lower_edge wgrad agrad act\n");
    {
        uint64_t hist[NKIND][HHI - HLO];
        memset(hist, 0, sizeof hist);
        for (int si = 0; si < w->nsnap; si++)
            for (int k = 0; k < NKIND; k++)
                for (int l = 0; l < w->L; l++) {
                    const snap *s = &w->snaps[si];
                    for (size_t i = 0; i < s->rows[k][l] * s->cols[k][l]; i++) {
                        float v = fabsf(s->t[k][l][i]);
                        if (v == 0 || !isfinite(v))
                            continue;
                        int e;
                        frexpf(v, &e);
                        e -= 1;
                        e = e < HLO ? HLO : e >= HHI ? HHI - 1 : e;
                        hist[k][e - HLO]++;
                    }
                }
        for (int b = HLO; b < HHI; b++)
            fprintf(fp, "%d %llu %llu %llu\n", b, (unsigned long long)hist[0][b - HLO],
                    (unsigned long long)hist[1][b - HLO], (unsigned long long)hist[2][b - HLO]);
    }
    fprintf(fp, "\n\n# block 2: the nonzero values of the watched tensors by "
                "floor(log2(|x| / amax of its tensor)), %d = that or below\n"
                "# columns: log2_ratio", BLO);
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < w->L; l++)
            fprintf(fp, " %s_L%d", kind_id[k], l);
    fprintf(fp, "\n");
    for (int b = 0; b >= BLO; b--) {
        fprintf(fp, "%d", b);
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++)
                fprintf(fp, " %llu", (unsigned long long)bh->ten[k][l][-b]);
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n\n# block 3: the same by floor(log2(|x| / amax of its block)): blocks "
                "of 32 along the last axis, a row of 10 one block\n# columns: log2_ratio "
                "(then as block 2)\n");
    for (int b = 0; b >= BLO; b--) {
        fprintf(fp, "%d", b);
        for (int k = 0; k < NKIND; k++)
            for (int l = 0; l < w->L; l++)
                fprintf(fp, " %llu", (unsigned long long)bh->val[k][l][-b]);
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n\n# block 4: per tensor kind and layer, over the watched steps\n"
                "# columns: kind layer rows cols blocks zero_blocks\n");
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < w->L; l++)
            fprintf(fp, "%s %d %zu %zu %llu %llu\n", kind_id[k], l, w->snaps[0].rows[k][l],
                    w->snaps[0].cols[k][l], (unsigned long long)bh->blocks[k][l],
                    (unsigned long long)bh->zero[k][l]);
    fprintf(fp, "\n\n# block 5: per tensor kind and layer, in %% of the nonzero values: "
                "underflow under cur-e4m3 mxfp8-e4m3-rceil cur-e5m2 mxfp8-e5m2, and the "
                "values more than 2^19 below the amax of their tensor and of their block "
                "(blocks 2 and 3, ratio bins <= -20)\n# columns: kind_index layer kind "
                "cur_e4m3 mxfp8_e4m3_rceil cur_e5m2 mxfp8_e5m2 below_tensor below_block\n");
    for (int k = 0; k < NKIND; k++)
        for (int l = 0; l < w->L; l++)
            fprintf(fp, "%d %d %s %.6f %.6f %.6f %.6f %.6f %.6f\n", k, l, kind_id[k],
                    UL(&R, "cur-e4m3", k, l), UL(&R, "mxfp8-e4m3-rceil", k, l),
                    UL(&R, "cur-e5m2", k, l), UL(&R, "mxfp8-e5m2", k, l),
                    below(&R, 1, k, l, l, -20), below(&R, 0, k, l, l, -20));
    if (lab_data_end(L, fp))
        goto out;

    /* training files */
    fp = lab_data_begin(L, "scaling_train.dat", "training curves: fp8 and mx policies "
                        "against binary32 and GradScaler, over the seeds",
                        "policies: fp32 fp16-torch-i50 fp8-hybrid-delayed fp8-e4m3-current "
                        "mxfp8", "setting=deep %s seeds=%llu..%llu eval_every=%d", params,
                        (unsigned long long)L->seed,
                        (unsigned long long)(L->seed + (uint64_t)S - 1), j0->c.eval_every);
    if (!fp)
        goto out;
    fprintf(fp, "# one block per policy; over the %d seeds\n# columns: step loss_mean (nan "
                "if a seed's loss is non-finite) loss_min loss_max n_finite scale_used "
                "(first seed) skipped (first seed) grad_flushed_mean (fraction of the "
                "nonzero output-gradient values the quantizer flushed to zero; 0 without "
                "one) acc_mean acc_min acc_max (nan when not evaluated)\n", S);
    for (int p = 0; p < NPOL; p++) {
        fprintf(fp, "%s# policy %s\n", p ? "\n\n" : "", pol[p]);
        for (int t = 0; t < j0->c.steps; t++) {
            double ls = 0, lmin = INFINITY, lmax = -INFINITY, gf = 0;
            double as = 0, amin = INFINITY, amax = -INFINITY;
            int nf = 0;
            for (int k = 0; k < S; k++) {
                const tjob *j = &jobs[(size_t)p * (size_t)S + (size_t)k];
                double l = j->loss[t];
                if (isfinite(l)) {
                    nf++;
                    ls += l;
                    lmin = fmin(lmin, l);
                    lmax = fmax(lmax, l);
                }
                gf += j->gflush[t] / S;
                as += j->acc[t];
                amin = fmin(amin, j->acc[t]);
                amax = fmax(amax, j->acc[t]);
            }
            const tjob *jf = &jobs[(size_t)p * (size_t)S];
            int ev = isfinite(jf->acc[t]);
            fprintf(fp, "%d %.9g %.9g %.9g %d %.9g %d %.6e %.6f %.6f %.6f\n", t + 1,
                    nf == S ? ls / S : NAN, nf ? lmin : NAN, nf ? lmax : NAN, nf,
                    (double)jf->scale[t], jf->skip[t], gf, ev ? as / S : NAN,
                    ev ? amin : NAN, ev ? amax : NAN);
        }
    }
    if (lab_data_end(L, fp))
        goto out;

    fp = lab_data_begin(L, "scaling_train_seeds.dat", "final results per policy and seed",
                        "policies: fp32 fp16-torch-i50 fp8-hybrid-delayed fp8-e4m3-current "
                        "mxfp8", "setting=deep seeds=%d (%llu..%llu)", S,
                        (unsigned long long)L->seed,
                        (unsigned long long)(L->seed + (uint64_t)S - 1));
    if (!fp)
        goto out;
    fprintf(fp, "# block 0: one row per policy and seed\n# columns: policy_index policy "
                "seed test_correct n_test n_train final_loss first_nonfinite_step (0: "
                "none) skipped_steps final_scale, then over every step the quantized GEMM "
                "inputs (0 without a quantizer): act_nonzero act_underflow act_saturated "
                "weight_nonzero weight_underflow weight_saturated grad_nonzero "
                "grad_underflow grad_saturated\n");
    double accs[NPOL][64];
    for (int p = 0; p < NPOL; p++)
        for (int k = 0; k < S; k++) {
            const tjob *j = &jobs[(size_t)p * (size_t)S + (size_t)k];
            accs[p][k] = 100.0 * (double)j->correct / (double)j->n_test;
            fprintf(fp, "%d %s %llu %ld %ld %ld %.9g %d %d %.9g", p, pol[p],
                    (unsigned long long)j->c.seed, j->correct, j->n_test, j->n_train,
                    pn(j->loss_final), j->first_nonfinite, j->skipped,
                    (double)j->scale_final);
            for (int q = 0; q < AMP_GQ_TENSORS; q++)
                fprintf(fp, " %llu %llu %llu", (unsigned long long)j->q[q].nonzero,
                        (unsigned long long)j->q[q].underflow,
                        (unsigned long long)j->q[q].saturated);
            fprintf(fp, "\n");
        }
    fprintf(fp, "\n\n# block 1: per policy, test accuracy in %% over the seeds\n"
                "# columns: policy_index policy n mean sd min max\n");
    for (int p = 0; p < NPOL; p++) {
        double m, sd, mn = INFINITY, mx = -INFINITY;
        lab_mean_sd(accs[p], S, &m, &sd);
        for (int k = 0; k < S; k++) {
            mn = fmin(mn, accs[p][k]);
            mx = fmax(mx, accs[p][k]);
        }
        fprintf(fp, "%d %s %d %.6f %.6f %.6f %.6f\n", p, pol[p], S, m, sd, mn, mx);
    }
    fprintf(fp, "\n\n# block 2: the binary32 runs' flush counts (amp_flush: nonzero gradients "
                "rounding to zero in binary16 at S = 1, every step)\n# columns: seed kind "
                "layer live flushed\n");
    for (int k = 0; k < S; k++)
        for (int q = 0; q < 2; q++)
            for (int l = 0; l < jobs[k].f1.layers; l++) {
                const int fk = q ? AMP_FLUSH_AGRAD : AMP_FLUSH_WGRAD;
                fprintf(fp, "%llu %s %d %llu %llu\n", (unsigned long long)jobs[k].c.seed,
                        q ? "agrad" : "wgrad", l, (unsigned long long)jobs[k].f1.live[fk][l],
                        (unsigned long long)jobs[k].f1.flushed[fk][l]);
            }
    /* the verdicts rest on paired differences: the figure draws them */
    fprintf(fp, "\n\n# block 3: test accuracy minus binary32's, per policy and seed "
                "(the same seed: the same initialisation, split and batches)\n# columns: "
                "policy_index policy seed difference_points\n");
    for (int p = 1; p < NPOL; p++)
        for (int k = 0; k < S; k++)
            fprintf(fp, "%d %s %llu %.6f\n", p, pol[p],
                    (unsigned long long)jobs[(size_t)p * (size_t)S + (size_t)k].c.seed,
                    accs[p][k] - accs[0][k]);
    fprintf(fp, "\n\n# block 4: per policy, the mean per-seed difference and the "
                "half-width of its 95%% interval (t, n - 1 degrees of freedom), and the "
                "lab's verdict (identical, higher, lower, not-shown: the interval holds "
                "0)\n# columns: policy_index policy mean_difference half_width verdict\n");
    for (int p = 1; p < NPOL; p++) {
        double dm, h;
        int c = lab_paired(accs[p], accs[0], S, &dm, &h);
        fprintf(fp, "%d %s %.6f %.6f %s\n", p, pol[p], dm, h,
                c == 2 ? "identical" : c > 0 ? "higher" : c < 0 ? "lower" : "not-shown");
    }
    if (lab_data_end(L, fp))
        goto out;

    memcpy(R.acc, accs, sizeof R.acc);
    say_measurement(&R);
    say_granularity(&R);
    say_training(&R);
    rc = 0;
    goto out;
oom:
    snprintf(L->err, sizeof L->err, "scaling: out of memory");
out:
    if (jobs)
        for (size_t i = 0; i < njobs; i++)
            tjob_free(&jobs[i]);
    free(jobs);
    watch_free(w);
    free(M.rows);
    free(bh);
    amp_dataset_free(&data);
    return rc;
}
