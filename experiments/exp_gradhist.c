/*
 * exp_gradhist.c — experiment 3: gradient histograms versus loss scale.
 *
 * Runs in the *deep* setting of lab_train.h (4 layers, small init, mean
 * loss over a batch of 256: small gradients):
 *  a. fp16-torch-i50 (GradScaler, growth interval 50), every seed: the
 *     scale of every step and the steps it skipped;
 *  b. fp16-static:S for S = 1, 8, 1024, 65536, first seed: a real fp16
 *     backward pass at each histogram scale.  Its gradients as the run
 *     holds them (the view's values rounded into binary16) are binned
 *     (amp_hist), and what the run flushed is counted (amp_flush at scale
 *     1: the values already carry S);
 *  c. binary32, every seed (after a and b: it needs a's scales).  At every
 *     step, every gradient is counted by the lab's one flush definition
 *     (amp_flush.h): rounded into binary16 at S = 1 and at the scale
 *     GradScaler used at that step in the same seed's run a.  The first
 *     seed's run is watched in full at every step:
 *     - histograms of floor(log2|g*S|) for S = 1, 8, 1024, 65536 (amp_hist);
 *     - per layer, what rounding g*S into binary16 does for S = 2^0 .. 2^24
 *       (amp_range_stats): underflow to zero, subnormal, overflow;
 *     - each tensor's amax (overflow at S happens at a step iff its
 *       amax * S rounds to infinity, amax * S >= 65520).
 * Every run is a pure function of its config, so the files do not depend
 * on the number of threads.
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"
#include "amp_flush.h"

enum { NS_HIST = 4, NS_SWEEP = 25, HLO = -50, HHI = 32, MAXL = 16, NK = 2 };
enum { K_W = 0, K_A = 1 };                /* weight / activation gradients */
static const float hist_scales[NS_HIST] = {1.0f, 8.0f, 1024.0f, 65536.0f};
static const int hist_log2[NS_HIST] = {0, 3, 10, 16};
static const char *const hist_policy[NS_HIST] = {"fp16-static:1", "fp16-static:8",
                                                  "fp16-static:1024", "fp16-static:65536"};
static const char *const kind_id[NK] = {"wgrad", "agrad"};

/* The full watch of the first seed's binary32 run. */
typedef struct watch {
    amp_hist h[NK][NS_HIST];
    amp_range_stats rs[NK][NS_SWEEP][MAXL];
    float *amax[NK][MAXL];              /* per step */
    int steps, layers, seen;
} watch;

enum { J_GS = 0, J_STATIC = 1, J_F32 = 2 };
typedef struct gjob {
    int kind;
    amp_train_config c;
    const amp_dataset *data;
    int rc;
    char err[256];
    /* J_GS: per step */
    float *scale;
    unsigned char *skip;
    int skipped;
    float scale_final;
    /* J_F32: the flush counts at S = 1 and at GradScaler's S */
    const struct gjob *gs;
    amp_flush f1, fgs;
    watch *w;
    /* J_STATIC: the run's own gradients in binary16 */
    amp_hist rh[NK];
    amp_flush fown;
    float *buf;
    size_t buf_n;
    uint64_t over[NK];                  /* binary16 overflows (inf) */
    int first_nonfinite;
    /* every run */
    long correct, n_test;
} gjob;

static float amax_of(const float *x, size_t n)
{
    float a = 0;
    for (size_t i = 0; i < n; i++)
        a = fabsf(x[i]) > a ? fabsf(x[i]) : a;
    return a;
}

static void watch_step(watch *w, const amp_step_view *v)
{
    if (v->step >= w->steps || v->layers > MAXL)
        return;
    w->seen++;
    w->layers = v->layers;
    for (int l = 0; l < v->layers; l++) {
        const float *g[NK] = {v->wgrad[l], v->agrad[l]};
        const size_t n[NK] = {v->wgrad_n[l], v->agrad_n[l]};
        for (int k = 0; k < NK; k++) {
            w->amax[k][l][v->step] = amax_of(g[k], n[k]);
            for (int s = 0; s < NS_HIST; s++)
                amp_hist_add(&w->h[k][s], g[k], n[k], hist_scales[s]);
            for (int s = 0; s < NS_SWEEP; s++)
                amp_range_stats_add(&w->rs[k][s][l], &fl_binary16, g[k], n[k],
                                    ldexpf(1.0f, s));
        }
    }
}

static void on_step(void *user, const amp_step_view *v)
{
    gjob *j = user;
    if (j->rc)
        return;
    if (j->kind == J_F32) {
        if (amp_flush_add(&j->f1, v, &fl_binary16, 1.0f) ||
            amp_flush_add(&j->fgs, v, &fl_binary16, j->gs->scale[v->step])) {
            snprintf(j->err, sizeof j->err, "too many layers");
            j->rc = -1;
            return;
        }
        if (j->w)
            watch_step(j->w, v);
        return;
    }
    /* J_STATIC: the gradients as the fp16 run holds them */
    if (amp_flush_add(&j->fown, v, &fl_binary16, 1.0f)) {
        snprintf(j->err, sizeof j->err, "too many layers");
        j->rc = -1;
        return;
    }
    for (int l = 0; l < v->layers; l++) {
        const float *g[NK] = {v->wgrad[l], v->agrad[l]};
        const size_t n[NK] = {v->wgrad_n[l], v->agrad_n[l]};
        for (int k = 0; k < NK; k++) {
            if (n[k] > j->buf_n) {
                float *nb = realloc(j->buf, n[k] * sizeof *nb);
                if (!nb) {
                    snprintf(j->err, sizeof j->err, "out of memory");
                    j->rc = -1;
                    return;
                }
                j->buf = nb;
                j->buf_n = n[k];
            }
            memcpy(j->buf, g[k], n[k] * sizeof *j->buf);
            amp_round(&fl_binary16, j->buf, n[k], NULL);
            for (size_t i = 0; i < n[k]; i++)
                j->over[k] += isinf(j->buf[i]) && isfinite(g[k][i]);
            amp_hist_add(&j->rh[k], j->buf, n[k], 1.0f);
        }
    }
}

static void gjob_exec(void *arg, size_t i)
{
    gjob *j = ((gjob **)arg)[i];
    const int n = j->c.steps;
    if (j->kind == J_GS) {
        j->scale = calloc((size_t)n, sizeof *j->scale);
        j->skip = calloc((size_t)n, sizeof *j->skip);
        if (!j->scale || !j->skip) {
            snprintf(j->err, sizeof j->err, "out of memory");
            j->rc = -1;
            return;
        }
    } else {
        j->c.on_step = on_step;
        j->c.user = j;
    }
    amp_trainer *t = amp_trainer_create(&j->c, j->data, j->err, sizeof j->err);
    if (!t) {
        j->rc = -1;
        return;
    }
    for (int s = 0; s < n && !j->rc; s++) {
        amp_step_record q;
        amp_trainer_step(t, &q, NULL);
        if (j->kind == J_GS) {
            j->scale[s] = q.scale_used;
            j->skip[s] = (unsigned char)q.skipped;
            j->skipped += q.skipped;
            j->scale_final = q.scale_after;
        }
        if (!isfinite(q.loss) && !j->first_nonfinite)
            j->first_nonfinite = s + 1;
    }
    j->n_test = (long)amp_trainer_test_size(t);
    j->correct = lround(amp_trainer_test_accuracy(t) * (double)j->n_test);
    amp_trainer_free(t);
}

static double frac(uint64_t a, uint64_t den)
{
    return den ? (double)a / (double)den : 0.0;
}

static uint64_t live(const amp_range_stats *s)
{
    return s->total - s->zero_fp32 - s->nonfinite;
}

/* the sweep summed over the layers */
static amp_range_stats sweep_sum(const watch *w, int k, int s)
{
    amp_range_stats t;
    memset(&t, 0, sizeof t);
    for (int l = 0; l < w->layers; l++)
        amp_range_stats_merge(&t, &w->rs[k][s][l]);
    return t;
}

/* hist fractions: of every value of the kind (zeros included) */
static void hist_row(FILE *fp, const amp_hist *h, int bin)
{
    fprintf(fp, " %.6e", frac(h->bins[bin - HLO], h->total));
}

static char *pow2s(char *buf, size_t len, double v)
{
    int e;
    double m = frexp(v, &e);
    if (m == 0.5)
        snprintf(buf, len, "2^%d", e - 1);
    else
        snprintf(buf, len, "%.9g", v);
    return buf;
}

/* the mean factor per doubling of S of the underflow share from S = 1 to
 * S = 2^k: (u_k / u_0)^(1/k) */
static double per_doubling(const amp_range_stats *a, const amp_range_stats *b, int k)
{
    const double u0 = frac(a->underflow, live(a)), uk = frac(b->underflow, live(b));
    return k > 0 && u0 > 0 ? pow(uk / u0, 1.0 / k) : NAN;
}

typedef struct gh {
    lab_ctx *L;
    gjob *gs, *st, *f32;     /* [seeds], [NS_HIST], [seeds] */
    const watch *w;
    int S;
    char params[512];
} gh;

/* ---------------------------------------------------------------------- */
/* The report */

static void say_setting(const gh *G)
{
    lab_ctx *L = G->L;
    const watch *w = G->w;
    amp_range_stats w0 = sweep_sum(w, K_W, 0), a0 = sweep_sum(w, K_A, 0);
    lab_say(L, "Setting: %s (the *deep* setting of section 6).  The binary32 run of the "
               "first seed is watched at every step (%d steps: %llu weight-gradient values "
               "and %llu activation-gradient values, the gradients with respect to each "
               "layer's output); %.2f%% of the activation gradients and %.2f%% of the "
               "weight gradients are exactly zero in binary32.  Beside it, with the same "
               "initialisation and batches: fp16 runs with a static loss scale S = 1, 8, "
               "1024 and 65536 (fp16-static:S, the real backward pass at each scale of the "
               "histograms), and fp16 with GradScaler (fp16-torch-i50, growth interval 50); "
               "binary32 and GradScaler also on seeds %llu to %llu.\n\n",
            G->params, w->seen, (unsigned long long)w0.total, (unsigned long long)a0.total,
            100 * frac(a0.zero_fp32, a0.total), 100 * frac(w0.zero_fp32, w0.total),
            (unsigned long long)L->seed, (unsigned long long)(L->seed + (uint64_t)G->S - 1));
}

static void say_flush(const gh *G)
{
    lab_ctx *L = G->L;
    const int S = G->S, nl = G->f32[0].f1.layers, last = nl - 1;
    double a1[64], w1[64], ags[64], part[64];
    int all_last = 1;
    for (int k = 0; k < S; k++) {
        a1[k] = 100 * amp_flush_share(&G->f32[k].f1, AMP_FLUSH_AGRAD);
        w1[k] = 100 * amp_flush_share(&G->f32[k].f1, AMP_FLUSH_WGRAD);
        ags[k] = 100 * amp_flush_share(&G->f32[k].fgs, AMP_FLUSH_AGRAD);
        part[k] = 100 * amp_flush_part_in_layer(&G->f32[k].fgs, AMP_FLUSH_AGRAD, last);
        all_last &= G->f32[k].fgs.flushed[AMP_FLUSH_AGRAD][last] ==
                    amp_flush_flushed(&G->f32[k].fgs, AMP_FLUSH_AGRAD);
    }
    double am, as, wm, ws, gm, gsd;
    lab_mean_sd(a1, S, &am, &as);
    lab_mean_sd(w1, S, &wm, &ws);
    lab_mean_sd(ags, S, &gm, &gsd);
    double amin = a1[0], amax = a1[0], pmin = part[0];
    for (int k = 1; k < S; k++) {
        amin = fmin(amin, a1[k]);
        amax = fmax(amax, a1[k]);
        pmin = fmin(pmin, part[k]);
    }
    lab_say(L, "**How many gradients flush, by one definition.**  The lab's flush share "
               "(`amp_flush`, the definition section 7 uses too): of a run's "
               "nonzero gradients, at every step and in every layer, the share that rounds "
               "to zero in binary16 at scale S.  For the binary32 runs at S = 1 (as if "
               "computed in fp16 without loss scaling) and at the scale GradScaler used "
               "at each step in the same seed's fp16-torch-i50 run:\n\n"
               "| seed | activation gradients, S = 1 | weight gradients, S = 1 | "
               "activation gradients, GradScaler's S | of those, in the last layer | "
               "GradScaler's skipped steps |\n|---|---|---|---|---|---|\n");
    for (int k = 0; k < S; k++) {
        const amp_flush *g = &G->f32[k].fgs;
        const uint64_t out = amp_flush_flushed(g, AMP_FLUSH_AGRAD) -
                             g->flushed[AMP_FLUSH_AGRAD][last];
        char pl[64];
        if (!amp_flush_flushed(g, AMP_FLUSH_AGRAD))
            snprintf(pl, sizeof pl, "–");
        else if (!out)
            snprintf(pl, sizeof pl, "all");
        else
            snprintf(pl, sizeof pl, "%.2f%% (%llu elsewhere)", part[k],
                     (unsigned long long)out);
        lab_say(L, "| %llu | %.2f%% | %.2f%% | %.3f%% | %s | %d |\n",
                (unsigned long long)G->f32[k].c.seed, a1[k], w1[k], ags[k], pl,
                G->gs[k].skipped);
    }
    lab_say(L, "| mean ± sd | %.2f ± %.2f%% | %.2f ± %.2f%% | %.3f ± %.3f%% | | |\n\n", am,
            as, wm, ws, gm, gsd);
    /* per layer, first seed */
    const amp_flush *f = &G->f32[0].f1;
    lab_say(L, "Over the %d seeds, %.2f%% to %.2f%% of the activation gradients flush at "
               "S = 1.  Per layer (seed %llu, S = 1):", S, amin, amax,
            (unsigned long long)G->f32[0].c.seed);
    for (int l = 0; l < nl; l++)
        lab_say(L, "%s layer %d %.2f%%", l ? "," : "", l,
                100 * amp_flush_layer_share(f, AMP_FLUSH_AGRAD, l));
    lab_say(L, "; the last layer (the logits' gradient) holds %.1f%% of the flushed "
               "values.  ", 100 * amp_flush_part_in_layer(f, AMP_FLUSH_AGRAD, last));
    uint64_t gs_fl = 0;
    for (int k = 0; k < S; k++)
        gs_fl += amp_flush_flushed(&G->f32[k].fgs, AMP_FLUSH_AGRAD);
    if (!gs_fl)
        lab_say(L, "At GradScaler's scale no activation gradient flushes.");
    else if (all_last)
        lab_say(L, "At GradScaler's scale every flushed activation gradient of every seed "
                   "lies in the last layer.");
    else
        lab_say(L, "At GradScaler's scale %.2f%% or more of each seed's flushed activation "
                   "gradients lie in the last layer.", pmin);
    lab_say(L, gs_fl ? "  Why the last layer: figure gradhist_underflow.\n\n" : "\n\n");
}

static void say_hist(const gh *G)
{
    lab_ctx *L = G->L;
    const watch *w = G->w;
    char pc[NK][NS_HIST][32], rz[NK][NS_HIST][32];
    for (int k = 0; k < NK; k++)
        for (int s = 0; s < NS_HIST; s++) {
            amp_range_stats t = sweep_sum(w, k, hist_log2[s]);
            snprintf(pc[k][s], sizeof pc[k][s], "%.2f%%", 100 * frac(t.underflow, live(&t)));
            const gjob *j = &G->st[s];
            snprintf(rz[k][s], sizeof rz[k][s], "%.2f%%",
                     100 * frac(j->rh[k].zeros, j->rh[k].total));
        }
    lab_figure(L, "gradhist", "Distribution of log2|g·S| over every step of the runs, in "
               "%% of all values (log scale), activation gradients (top) and weight "
               "gradients (bottom).  Left: the binary32 run's gradients multiplied by S = 1, "
               "8, 1024, 65536 (a what-if); right: the real fp16 backward pass at the same "
               "static S, its gradients as rounded into binary16.  Shaded: binary16's "
               "subnormal range [2^-24, 2^-14) and normal range [2^-14, 65504]; magnitudes up "
               "to 2^-25 (dashed line, half the smallest subnormal) round to zero.  Bars on "
               "the left: values exactly zero, and values below 2^%d.  Left of the line, "
               "what-if: %s, %s, %s, %s of the nonzero activation gradients and %s, %s, %s, "
               "%s of the weight gradients at S = 1, 8, 1024, 65536; zero in the fp16 runs: "
               "%s, %s, %s, %s of the activation gradients and %s, %s, %s, %s of the weight "
               "gradients.", HLO, pc[K_A][0], pc[K_A][1], pc[K_A][2], pc[K_A][3],
               pc[K_W][0], pc[K_W][1], pc[K_W][2], pc[K_W][3], rz[K_A][0], rz[K_A][1],
               rz[K_A][2], rz[K_A][3], rz[K_W][0], rz[K_W][1], rz[K_W][2], rz[K_W][3]);
}

static void say_real(const gh *G)
{
    lab_ctx *L = G->L;
    const watch *w = G->w;
    lab_say(L, "**The what-if against the real fp16 pass.**  Multiplying binary32 gradients "
               "by S ignores that in an fp16 run a flushed gradient is zero for every layer "
               "below it.  Activation gradients, at S = 1, 8, 1024, 65536:\n\n"
               "| S | what-if: flushed | fp16 run: flushed | fp16 run: zero | binary32: "
               "zero | fp16 run: test accuracy |\n|---|---|---|---|---|---|\n");
    for (int s = 0; s < NS_HIST; s++) {
        const gjob *j = &G->st[s];
        amp_range_stats t = sweep_sum(w, K_A, hist_log2[s]);
        char acc[64];
        if (j->first_nonfinite)
            snprintf(acc, sizeof acc, "diverged at step %d", j->first_nonfinite);
        else
            snprintf(acc, sizeof acc, "%.2f%%", 100.0 * (double)j->correct / (double)j->n_test);
        lab_say(L, "| 2^%d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %s |\n", hist_log2[s],
                100 * frac(t.underflow, live(&t)),
                100 * amp_flush_share(&j->fown, AMP_FLUSH_AGRAD),
                100 * frac(j->rh[K_A].zeros, j->rh[K_A].total),
                100 * frac(t.zero_fp32, t.total), acc);
    }
    lab_say(L, "\n*What-if flushed*: of the binary32 run's nonzero activation gradients; "
               "*fp16 run: flushed*: of the fp16 run's own nonzero values, those its rounding "
               "into binary16 sent to zero (the same definition, on that run); *zero*: of all "
               "its activation-gradient values, those zero in binary16 (flushed here or "
               "below a gradient that flushed above).\n\n");
}

static void say_overflow(const gh *G)
{
    lab_ctx *L = G->L;
    const watch *w = G->w;
    const int nl = w->layers;
    /* the rule of fplab hist: no overflow, then fewest underflows; over
     * every step */
    int best = -1, first[NK] = {-1, -1};
    amp_range_stats sum[NK][NS_SWEEP];
    for (int s = 0; s < NS_SWEEP; s++)
        for (int k = 0; k < NK; k++) {
            sum[k][s] = sweep_sum(w, k, s);
            if (first[k] < 0 && sum[k][s].overflow)
                first[k] = s;
        }
    for (int s = 0; s < NS_SWEEP; s++) {
        uint64_t of = sum[K_W][s].overflow + sum[K_A][s].overflow;
        uint64_t uf = sum[K_W][s].underflow + sum[K_A][s].underflow;
        if (!of && (best < 0 || uf < sum[K_W][best].underflow + sum[K_A][best].underflow))
            best = s;
    }
    /* the largest amax of each kind: its step and layer */
    float top[NK] = {0, 0};
    int tstep[NK] = {0, 0}, tlay[NK] = {0, 0};
    for (int k = 0; k < NK; k++)
        for (int l = 0; l < nl; l++)
            for (int t = 0; t < w->steps; t++)
                if (w->amax[k][l][t] > top[k]) {
                    top[k] = w->amax[k][l][t];
                    tstep[k] = t;
                    tlay[k] = l;
                }
    static const char *const kn[NK] = {"weight", "activation"};
    lab_say(L, "**Overflow, from every step's amax.**  Rounding into binary16 overflows "
               "where |g·S| >= 65520 (above 65504 by half a spacing or more).  ");
    for (int k = 0; k < NK; k++) {
        if (first[k] < 0) {
            lab_say(L, "The %s gradients do not overflow up to S = 2^%d (their largest "
                       "amax, %.4g at step %d, layer %d).  ", kn[k], NS_SWEEP - 1,
                    (double)top[k], tstep[k], tlay[k]);
            continue;
        }
        const amp_range_stats *f = &sum[k][first[k]];
        int nsteps = 0;
        for (int t = 0; t < w->steps; t++) {
            int any = 0;
            for (int l = 0; l < nl; l++)
                any |= (double)w->amax[k][l][t] * ldexp(1.0, first[k]) >= 65520.0;
            nsteps += any;
        }
        lab_say(L, "The %s gradients overflow first at S = 2^%d: their largest amax, %.4g "
                   "(step %d, layer %d), times 2^%d is %.0f; at that scale %d %s "
                   "overflow, %llu of %llu nonzero values (%.2g%%).  ", kn[k], first[k],
                (double)top[k], tstep[k], tlay[k], first[k],
                (double)top[k] * ldexp(1.0, first[k]), nsteps, nsteps == 1 ? "step" : "steps",
                (unsigned long long)f->overflow, (unsigned long long)live(f),
                100 * frac(f->overflow, live(f)));
    }
    lab_say(L, "Best power of two by the rule of `fplab hist` (no overflow at any step, then "
               "fewest underflows): S = 2^%d.  ", best);
    /* GradScaler's skipped steps against the binary32 amaxes */
    const gjob *g = &G->gs[0];
    int n = 0, agree = 0, missed = 0;
    char list[600] = "";
    size_t o = 0;
    for (int t = 0; t < w->steps; t++) {
        double m = 0;
        for (int k = 0; k < NK; k++)
            for (int l = 0; l < nl; l++)
                m = fmax(m, (double)w->amax[k][l][t] * (double)g->scale[t]);
        const int over = m >= 65520.0;
        if (g->skip[t]) {
            char sb[32];
            n++;
            agree += over;
            if (o < sizeof list)
                o += (size_t)snprintf(list + o, sizeof list - o, "%sstep %d at S = %s (%.0f)",
                                      n > 1 ? ", " : "", t, pow2s(sb, sizeof sb, g->scale[t]), m);
        } else {
            missed += over;
        }
    }
    if (!n)
        lab_say(L, "GradScaler (fp16-torch-i50, seed %llu) skipped no step; at %d %s "
                   "the binary32 run's largest gradient times GradScaler's scale reaches "
                   "65520.\n\n", (unsigned long long)g->c.seed, missed,
                missed == 1 ? "step" : "steps");
    else
        lab_say(L, "Checked against GradScaler (fp16-torch-i50, seed %llu, the same "
                   "initialisation and batches), which skipped %d %s: %s (in brackets: "
                   "the binary32 run's largest gradient times that S).  At %d of them the "
                   "binary32 gradients overflow too; at %d %s that GradScaler did not "
                   "skip they would have.\n\n", (unsigned long long)g->c.seed, n,
                n == 1 ? "step" : "steps", list, agree, missed, missed == 1 ? "step" : "steps");
    /* the last layer against the hidden ones, at S = 1 and at the best S */
    const int last = nl - 1, bs = best >= 0 ? best : 0;
    amp_range_stats hid[2], lst[2];
    memset(hid, 0, sizeof hid);
    for (int i = 0; i < 2; i++) {
        const int s = i ? bs : 0;
        for (int l = 0; l < last; l++)
            amp_range_stats_merge(&hid[i], &w->rs[K_A][s][l]);
        lst[i] = w->rs[K_A][s][last];
    }
    /* the hidden layers against the last one: how fast each falls with S */
    char why[900];
    const double fh = per_doubling(&hid[0], &hid[1], bs), fl = per_doubling(&lst[0], &lst[1], bs);
    if (!lst[0].underflow || !hid[0].underflow || bs == 0)
        snprintf(why, sizeof why, "The activation gradients underflow at S = 1 in the hidden "
                 "layers %.2f%%, in the last layer (the logits' gradient) %.2f%%.",
                 100 * frac(hid[0].underflow, live(&hid[0])),
                 100 * frac(lst[0].underflow, live(&lst[0])));
    else
        snprintf(why, sizeof why, "In the hidden layers the activation gradients' underflow "
                 "falls from %.2f%% at S = 1 to %.4f%% at S = 2^%d (a factor of %.2f per "
                 "doubling of S); in the last layer (the logits' gradient) from %.2f%% to "
                 "%.2f%% (%.2f per doubling)%s", 100 * frac(hid[0].underflow, live(&hid[0])),
                 100 * frac(hid[1].underflow, live(&hid[1])), bs, fh,
                 100 * frac(lst[0].underflow, live(&lst[0])),
                 100 * frac(lst[1].underflow, live(&lst[1])), fl,
                 fl > fh ? ": the gradient of a logit is the softmax probability of its class "
                           "(less 1 for the true class) over the batch, and for the classes an "
                           "example is sure not to be those probabilities lie so many binades "
                           "below 2^-25 that each doubling of S lifts only a small part of them "
                           "into binary16's range." : ".");
    char held[200] = "";
    if (sum[K_A][bs].underflow)
        snprintf(held, sizeof held, "  At S = 2^%d the last layer holds %.2f%% of the "
                 "activation gradients still flushed.", bs,
                 100 * frac(lst[1].underflow, sum[K_A][bs].underflow));
    lab_figure(L, "gradhist_underflow", "Fraction of the nonzero gradients of the binary32 "
               "run that underflow to zero, land in binary16's subnormal range, or overflow "
               "when multiplied by S = 2^0 .. 2^%d and rounded into binary16, over every "
               "step; activation gradients (left) and weight gradients (right), all layers "
               "and each layer apart.  Underflow of activation gradients falls from %.2f%% at "
               "S = 1 to %.2f%% at S = 2^%d, that of weight gradients from %.2f%% to %.2f%%.  "
               "%s%s", NS_SWEEP - 1,
               100 * frac(sum[K_A][0].underflow, live(&sum[K_A][0])),
               100 * frac(sum[K_A][bs].underflow, live(&sum[K_A][bs])), bs,
               100 * frac(sum[K_W][0].underflow, live(&sum[K_W][0])),
               100 * frac(sum[K_W][bs].underflow, live(&sum[K_W][bs])), why, held);
}

int lab_exp_gradhist(lab_ctx *L)
{
    const int S = L->seeds;
    if (S < 1 || S > 64) {
        snprintf(L->err, sizeof L->err, "gradhist: %d seeds (need 1..64)", S);
        return -1;
    }
    if (!L->data_path) {
        snprintf(L->err, sizeof L->err, "gradhist: no training data path");
        return -1;
    }
    amp_dataset data;
    char err[256];
    amp_train_config dc;
    amp_train_config_default(&dc);
    if (amp_dataset_read_csv(&data, L->data_path, dc.label_pos, dc.feature_scale, err,
                             sizeof err)) {
        snprintf(L->err, sizeof L->err, "gradhist: %s", err);
        return -1;
    }
    int rc = -1;
    gjob *gs = calloc((size_t)S, sizeof *gs), *f32 = calloc((size_t)S, sizeof *f32);
    gjob *st = calloc(NS_HIST, sizeof *st);
    gjob **list = calloc((size_t)(S + NS_HIST), sizeof *list);
    watch *w = calloc(1, sizeof *w);
    if (!gs || !f32 || !st || !list || !w)
        goto oom;
    for (int k = 0; k < S; k++) {
        gjob *jobs[2] = {&gs[k], &f32[k]};
        static const char *const pol[2] = {"fp16-torch-i50", "fp32"};
        for (int i = 0; i < 2; i++) {
            if (lab_train_setting(L, &jobs[i]->c, LAB_SETTING_DEEP, pol[i], err, sizeof err)) {
                snprintf(L->err, sizeof L->err, "gradhist: %s: %s", pol[i], err);
                goto out;
            }
            jobs[i]->kind = i ? J_F32 : J_GS;
            jobs[i]->c.seed = L->seed + (uint64_t)k;
            jobs[i]->data = &data;
        }
        f32[k].gs = &gs[k];
    }
    for (int s = 0; s < NS_HIST; s++) {
        if (lab_train_setting(L, &st[s].c, LAB_SETTING_DEEP, hist_policy[s], err,
                              sizeof err)) {
            snprintf(L->err, sizeof L->err, "gradhist: %s: %s", hist_policy[s], err);
            goto out;
        }
        st[s].kind = J_STATIC;
        st[s].data = &data;
        for (int k = 0; k < NK; k++)
            if (amp_hist_init(&st[s].rh[k], HLO, HHI))
                goto oom;
    }
    /* the full watch of the first seed's binary32 run */
    w->steps = f32[0].c.steps;
    for (int k = 0; k < NK; k++) {
        for (int s = 0; s < NS_HIST; s++)
            if (amp_hist_init(&w->h[k][s], HLO, HHI))
                goto oom;
        for (int l = 0; l < MAXL; l++)
            if (!(w->amax[k][l] = calloc((size_t)w->steps, sizeof(float))))
                goto oom;
    }
    f32[0].w = w;

    /* a and b, then c */
    int n = 0;
    for (int k = 0; k < S; k++)
        list[n++] = &gs[k];
    for (int s = 0; s < NS_HIST; s++)
        list[n++] = &st[s];
    if (lab_parallel(L, (size_t)n, gjob_exec, list))
        goto out;
    for (int i = 0; i < n; i++)
        if (list[i]->rc) {
            snprintf(L->err, sizeof L->err, "gradhist: training (seed %llu): %s",
                     (unsigned long long)list[i]->c.seed, list[i]->err);
            goto out;
        }
    for (int k = 0; k < S; k++)
        list[k] = &f32[k];
    if (lab_parallel(L, (size_t)S, gjob_exec, list))
        goto out;
    for (int k = 0; k < S; k++)
        if (f32[k].rc) {
            snprintf(L->err, sizeof L->err, "gradhist: binary32 training (seed %llu): %s",
                     (unsigned long long)f32[k].c.seed, f32[k].err);
            goto out;
        }
    if (w->seen != w->steps || w->layers < 2) {
        snprintf(L->err, sizeof L->err, "gradhist: watched %d of %d steps", w->seen,
                 w->steps);
        goto out;
    }

    gh G;
    memset(&G, 0, sizeof G);
    G.L = L;
    G.gs = gs;
    G.st = st;
    G.f32 = f32;
    G.w = w;
    G.S = S;
    lab_train_describe(&f32[0].c, G.params, sizeof G.params);
    const int nl = w->layers;

    /* ---- gradhist.dat */
    FILE *fp = lab_data_begin(L, "gradhist.dat", "log2 histograms of the gradients: the "
                              "binary32 run's times S, and the fp16 runs' at static S",
                              "gradients binary32 (what-if) and binary16 (fp16 runs)",
                              "%s steps=%d (every step) bins=floor(log2|g*S|) %d..%d "
                              "fp16_runs=%s,%s,%s,%s", G.params, w->seen, HLO, HHI - 1,
                              hist_policy[0], hist_policy[1], hist_policy[2],
                              hist_policy[3]);
    if (!fp)
        goto out;
    fprintf(fp, "# values: binary32 run: weights %llu activations %llu; each fp16 run: "
                "weights %llu activations %llu\n",
            (unsigned long long)w->h[K_W][0].total, (unsigned long long)w->h[K_A][0].total,
            (unsigned long long)st[0].rh[K_W].total, (unsigned long long)st[0].rh[K_A].total);
    fprintf(fp, "# block 0: fractions of ALL values of the kind (zeros included) per bin\n"
                "# columns: log2_lower_edge w_S1 w_S8 w_S1024 w_S65536 a_S1 a_S8 a_S1024 "
                "a_S65536 (binary32 run times S) fw_S1 fw_S8 fw_S1024 fw_S65536 fa_S1 fa_S8 "
                "fa_S1024 fa_S65536 (fp16 runs, values as rounded into binary16) (w: weight "
                "gradients, a: activation gradients)\n");
    for (int b = HLO; b < HHI; b++) {
        fprintf(fp, "%d", b);
        for (int k = 0; k < NK; k++)
            for (int s = 0; s < NS_HIST; s++)
                hist_row(fp, &w->h[k][s], b);
        for (int k = 0; k < NK; k++)
            for (int s = 0; s < NS_HIST; s++)
                hist_row(fp, &st[s].rh[k], b);
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n\n# block 1: the values outside the bins, same columns: zero (exactly "
                "zero), below (nonzero, below 2^%d), above (2^%d or more, finite), "
                "nonfinite (inf or nan)\n", HLO, HHI);
    static const char *const cls[4] = {"zero", "below", "above", "nonfinite"};
    for (int c = 0; c < 4; c++) {
        fprintf(fp, "%s", cls[c]);
        for (int part = 0; part < 2; part++)
            for (int k = 0; k < NK; k++)
                for (int s = 0; s < NS_HIST; s++) {
                    const amp_hist *h = part ? &st[s].rh[k] : &w->h[k][s];
                    const uint64_t v[4] = {h->zeros, h->below, h->above, h->nonfinite};
                    fprintf(fp, " %.6e", frac(v[c], h->total));
                }
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n\n# block 2: the fp16 runs, counts over every step and layer\n"
                "# columns: log2_S kind total live flushed zero overflow first_nonfinite "
                "test_correct n_test (live: nonzero finite values as computed; flushed: "
                "of those, rounded to zero in binary16; zero: zero in binary16; overflow: "
                "rounded to inf)\n");
    for (int s = 0; s < NS_HIST; s++)
        for (int k = 0; k < NK; k++) {
            const int fk = k == K_W ? AMP_FLUSH_WGRAD : AMP_FLUSH_AGRAD;
            fprintf(fp, "%d %s %llu %llu %llu %llu %llu %d %ld %ld\n", hist_log2[s],
                    kind_id[k], (unsigned long long)st[s].rh[k].total,
                    (unsigned long long)amp_flush_live(&st[s].fown, fk),
                    (unsigned long long)amp_flush_flushed(&st[s].fown, fk),
                    (unsigned long long)st[s].rh[k].zeros,
                    (unsigned long long)st[s].over[k], st[s].first_nonfinite,
                    st[s].correct, st[s].n_test);
        }
    if (lab_data_end(L, fp))
        goto out;

    /* ---- gradhist_underflow.dat */
    fp = lab_data_begin(L, "gradhist_underflow.dat", "what rounding g*S into binary16 "
                        "does, vs S", "gradients binary32; target binary16",
                        "%s steps=%d (every step) scales=2^0..2^%d", G.params, w->seen,
                        NS_SWEEP - 1);
    if (!fp)
        goto out;
    fprintf(fp, "# block 0: counts over every step and all layers; live = total - zero "
                "- nonfinite\n# columns: log2_S w_total w_zero w_nonfinite "
                "w_underflow w_subnormal w_overflow a_total a_zero a_nonfinite "
                "a_underflow a_subnormal a_overflow (w: weight gradients, a: "
                "gradients with respect to each layer's output)\n");
    for (int s = 0; s < NS_SWEEP; s++) {
        amp_range_stats x = sweep_sum(w, K_W, s), y = sweep_sum(w, K_A, s);
        fprintf(fp, "%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", s,
                (unsigned long long)x.total, (unsigned long long)x.zero_fp32,
                (unsigned long long)x.nonfinite, (unsigned long long)x.underflow,
                (unsigned long long)x.subnormal, (unsigned long long)x.overflow,
                (unsigned long long)y.total, (unsigned long long)y.zero_fp32,
                (unsigned long long)y.nonfinite, (unsigned long long)y.underflow,
                (unsigned long long)y.subnormal, (unsigned long long)y.overflow);
    }
    fprintf(fp, "\n\n# block 1: the same per layer (layer %d is the last: the logits)\n"
                "# columns: log2_S kind_index kind layer total zero nonfinite underflow "
                "subnormal overflow\n", nl - 1);
    for (int s = 0; s < NS_SWEEP; s++)
        for (int k = 0; k < NK; k++)
            for (int l = 0; l < nl; l++) {
                const amp_range_stats *x = &w->rs[k][s][l];
                fprintf(fp, "%d %d %s %d %llu %llu %llu %llu %llu %llu\n", s, k, kind_id[k],
                        l, (unsigned long long)x->total, (unsigned long long)x->zero_fp32,
                        (unsigned long long)x->nonfinite, (unsigned long long)x->underflow,
                        (unsigned long long)x->subnormal, (unsigned long long)x->overflow);
            }
    if (lab_data_end(L, fp))
        goto out;

    /* ---- gradhist_steps.dat */
    fp = lab_data_begin(L, "gradhist_steps.dat", "every step: the amax of each gradient "
                        "of the binary32 run, and GradScaler's scale and skips",
                        "binary32 run; fp16-torch-i50 run (same seed)", "%s", G.params);
    if (!fp)
        goto out;
    fprintf(fp, "# columns: step");
    for (int k = 0; k < NK; k++)
        for (int l = 0; l < nl; l++)
            fprintf(fp, " %s_L%d", kind_id[k], l);
    fprintf(fp, " gs_scale gs_skipped (the scale GradScaler used at this step, and 1 if "
                "it skipped the step)\n");
    for (int t = 0; t < w->steps; t++) {
        fprintf(fp, "%d", t);
        for (int k = 0; k < NK; k++)
            for (int l = 0; l < nl; l++)
                fprintf(fp, " %.9g", (double)w->amax[k][l][t]);
        fprintf(fp, " %.9g %d\n", (double)gs[0].scale[t], gs[0].skip[t]);
    }
    if (lab_data_end(L, fp))
        goto out;

    /* ---- gradhist_seeds.dat */
    fp = lab_data_begin(L, "gradhist_seeds.dat", "the flush share (amp_flush) of every "
                        "binary32 run, per layer", "binary32 runs; target binary16",
                        "%s seeds=%llu..%llu", G.params, (unsigned long long)L->seed,
                        (unsigned long long)(L->seed + (uint64_t)S - 1));
    if (!fp)
        goto out;
    fprintf(fp, "# block 0: counts over every step\n# columns: seed scale (s1: S = 1; gs: "
                "GradScaler's scale of each step, same seed) kind layer live flushed\n");
    for (int k = 0; k < S; k++)
        for (int sc = 0; sc < 2; sc++)
            for (int q = 0; q < NK; q++)
                for (int l = 0; l < nl; l++) {
                    const amp_flush *f = sc ? &f32[k].fgs : &f32[k].f1;
                    const int fk = q == K_W ? AMP_FLUSH_WGRAD : AMP_FLUSH_AGRAD;
                    fprintf(fp, "%llu %s %s %d %llu %llu\n",
                            (unsigned long long)f32[k].c.seed, sc ? "gs" : "s1", kind_id[q],
                            l, (unsigned long long)f->live[fk][l],
                            (unsigned long long)f->flushed[fk][l]);
                }
    fprintf(fp, "\n\n# block 1: the GradScaler runs\n# columns: seed skipped_steps "
                "final_scale\n");
    for (int k = 0; k < S; k++)
        fprintf(fp, "%llu %d %.9g\n", (unsigned long long)gs[k].c.seed, gs[k].skipped,
                (double)gs[k].scale_final);
    if (lab_data_end(L, fp))
        goto out;

    say_setting(&G);
    say_flush(&G);
    say_hist(&G);
    say_real(&G);
    say_overflow(&G);
    rc = 0;
    goto out;
oom:
    snprintf(L->err, sizeof L->err, "gradhist: out of memory");
out:
    if (gs)
        for (int k = 0; k < S; k++) {
            free(gs[k].scale);
            free(gs[k].skip);
        }
    if (st)
        for (int s = 0; s < NS_HIST; s++) {
            for (int k = 0; k < NK; k++)
                amp_hist_free(&st[s].rh[k]);
            free(st[s].buf);
        }
    if (w)
        for (int k = 0; k < NK; k++) {
            for (int s = 0; s < NS_HIST; s++)
                amp_hist_free(&w->h[k][s]);
            for (int l = 0; l < MAXL; l++)
                free(w->amax[k][l]);
        }
    free(gs);
    free(f32);
    free(st);
    free(list);
    free(w);
    amp_dataset_free(&data);
    return rc;
}
