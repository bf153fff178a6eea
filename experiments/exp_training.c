/*
 * exp_training.c — experiment 6: training curves per precision policy.
 *
 * The MLP on the digits under each policy (same seed, same batches) in the
 * settings of lab_train.h: loss, test accuracy, loss scale, skipped steps
 * and the fraction of weight updates lost per step, and per run the
 * gradient range statistics (exact zeros; values that underflow in the
 * target format at the scale used).
 *  - default, deep: where every policy trains alike (the control);
 *  - tiny: loss weight 2^-16 — where gradients fall below binary16's range
 *    and only a loss scale (or bfloat16's range) keeps them;
 *  - adam: Adam at a fine-tuning rate — where updates fall below half an
 *    ulp of the weights and only binary32 (master) weights keep them.
 * "fp16-torch-i50" is GradScaler with growth_interval 50 instead of 2000,
 * so that the scale's growth and back-off show within a short run;
 * "bf16-pure" is bfloat16 weights, gradients and optimizer state with no
 * master copy (model.to(bfloat16) with a plain optimizer).
 * In full mode the tiny setting adds a sweep of the loss weight.
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"

typedef struct pol_def {
    const char *name;   /* as reported */
    const char *base;   /* amp_policy_parse spec */
    int variant;        /* VAR_* */
} pol_def;
enum { VAR_NONE = 0, VAR_I50 = 1, VAR_BF16_PURE = 2 };

/* Keep these lists in step with plots/training_*.gp. */
static const pol_def pol_classic[] = {
    {"fp32", "fp32", 0}, {"fp16", "fp16", 0},
    {"fp16-static:1024", "fp16-static:1024", 0}, {"fp16-torch", "fp16-torch", 0},
    {"fp16-torch-i50", "fp16-torch", VAR_I50}, {"o2", "o2", 0}, {"o3", "o3", 0},
    {"bf16", "bf16", 0}};
static const pol_def pol_tiny[] = {
    {"fp32", "fp32", 0}, {"fp16", "fp16", 0},
    {"fp16-static:1024", "fp16-static:1024", 0}, {"fp16-torch", "fp16-torch", 0},
    {"o2", "o2", 0}, {"o3", "o3", 0}, {"bf16", "bf16", 0}};
static const pol_def pol_adam[] = {
    {"fp32", "fp32", 0}, {"fp16", "fp16", 0}, {"o2", "o2", 0}, {"o3", "o3", 0},
    {"bf16", "bf16", 0}, {"bf16-pure", "bf16", VAR_BF16_PURE}};
enum { MAXPOL = 8 };

typedef struct pol_summary {
    double loss, acc, scale, lost_frac;
    int skipped, diverged, first_nonfinite;   /* 1-based step, 0 if none */
    /* over all steps and layers: fractions of all gradient values */
    double wzero, wuf, azero, auf;
    float *curve;     /* loss per step (owned) */
} pol_summary;

/* The tiny setting's sweep: the fp32 run's gradients times 2^(16-k) are
 * exactly those of loss weight 2^-k; classified for binary16 at S = 1. */
static const int sweep_k[] = {8, 12, 14, 16, 18, 20};
enum { NSWEEP = sizeof sweep_k / sizeof sweep_k[0] };
typedef struct sweep_watch {
    amp_range_stats w[NSWEEP], a[NSWEEP];
} sweep_watch;

static void sweep_on_step(void *user, const amp_step_view *v)
{
    sweep_watch *sw = user;
    for (int l = 0; l < v->layers; l++)
        for (int i = 0; i < NSWEEP; i++) {
            float S = ldexpf(1.0f, 16 - sweep_k[i]);
            amp_range_stats_add(&sw->w[i], &fl_binary16, v->wgrad[l], v->wgrad_n[l], S);
            amp_range_stats_add(&sw->a[i], &fl_binary16, v->agrad[l], v->agrad_n[l], S);
        }
}

/* The adam setting's first step, binary32 run: of the nonzero weight
 * gradients g, how many have Adam's first-step moments (1-b1)g and
 * (1-b2)g^2 rounded into binary16 as in o3: v == 0 while m != 0. */
typedef struct adam_watch {
    double b1, b2;
    uint64_t nonzero, v_zero_m_not;
} adam_watch;

static void adam_on_step(void *user, const amp_step_view *v)
{
    adam_watch *aw = user;
    if (v->step != 0)
        return;
    for (int l = 0; l < v->layers; l++)
        for (size_t i = 0; i < v->wgrad_n[l]; i++) {
            double g = (double)(v->wgrad[l][i] / v->scale_used);
            if (g == 0)
                continue;
            aw->nonzero++;
            float m = (float)(1 - aw->b1) * (float)g;
            float vv = (float)(1 - aw->b2) * (float)g * (float)g;
            aw->v_zero_m_not += lab_round(&fl_binary16, vv) == 0 &&
                                lab_round(&fl_binary16, m) != 0;
        }
}

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static int find(const pol_def *pols, int n, const char *name)
{
    for (int p = 0; p < n; p++)
        if (!strcmp(pols[p].name, name))
            return p;
    return -1;
}

static int config_for(lab_ctx *L, amp_train_config *c, int setting,
                      const pol_def *pd)
{
    char err[256];
    if (lab_train_setting(L, c, setting, pd->base, err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "training %s: %s", pd->name, err);
        return -1;
    }
    if (pd->variant == VAR_I50)
        c->policy.scaler.growth_interval = 50;
    if (pd->variant == VAR_BF16_PURE) {
        c->policy.param = &fl_bfloat16;
        c->policy.master = 0;
        snprintf(c->policy.name, sizeof c->policy.name, "%s", pd->name);
    }
    return 0;
}

/* Run one configured training; fills s (s->curve owned by the caller). */
static int run_one(lab_ctx *L, const amp_train_config *c, const char *name,
                   FILE *fp, int first, pol_summary *s)
{
    char err[256];
    amp_train_result r;
    memset(&r, 0, sizeof r);
    memset(s, 0, sizeof *s);
    if (amp_train_run(c, &r, err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "training %s: %s", name, err);
        amp_train_result_free(&r);
        return -1;
    }
    s->curve = calloc(r.steps ? (size_t)r.steps : 1, sizeof *s->curve);
    if (!s->curve) {
        snprintf(L->err, sizeof L->err, "out of memory");
        amp_train_result_free(&r);
        return -1;
    }
    if (fp)
        fprintf(fp, "%s# policy %s\n", first ? "" : "\n\n", name);
    int skipped = 0;
    uint64_t upd = 0, lost = 0;
    amp_range_stats w, a;
    memset(&w, 0, sizeof w);
    memset(&a, 0, sizeof a);
    for (int st = 0; st < r.steps; st++) {
        const amp_step_record *q = &r.rec[st];
        skipped += q->skipped;
        upd += q->updates;
        lost += q->lost;
        s->curve[st] = q->loss;
        if (!isfinite(q->loss) && !s->first_nonfinite)
            s->first_nonfinite = st + 1;
        if (fp)
            fprintf(fp, "%d %.9g %.9g %d %.6f %.6f\n", q->step + 1, q->loss,
                    q->scale_used, skipped,
                    q->updates ? (double)q->lost / (double)q->updates : 0.0,
                    q->test_acc);
        for (int l = 0; r.layer && l < r.layers; l++) {
            const amp_layer_record *lr = &r.layer[(size_t)st * r.layers + l];
            w.total += lr->wgrad.total;
            w.zero_fp32 += lr->wgrad.zero_fp32;
            w.underflow += lr->wgrad.underflow;
            a.total += lr->agrad.total;
            a.zero_fp32 += lr->agrad.zero_fp32;
            a.underflow += lr->agrad.underflow;
        }
    }
    s->loss = r.final_loss;
    s->acc = r.final_test_acc;
    s->scale = r.steps ? r.rec[r.steps - 1].scale_after : 1;
    s->lost_frac = frac(lost, upd);
    s->skipped = r.skipped_steps;
    s->diverged = r.diverged;
    s->wzero = frac(w.zero_fp32, w.total);
    s->wuf = frac(w.underflow, w.total);
    s->azero = frac(a.zero_fp32, a.total);
    s->auf = frac(a.underflow, a.total);
    amp_train_result_free(&r);
    return 0;
}

static void free_sums(pol_summary *sum, int n)
{
    for (int p = 0; p < n; p++) {
        free(sum[p].curve);
        sum[p].curve = NULL;
    }
}

/* The contrast sentences of the tiny setting (after its table). */
static int say_tiny(lab_ctx *L, const pol_def *pols, int n, const pol_summary *sum,
                    const sweep_watch *sw)
{
    const pol_summary *f32 = &sum[find(pols, n, "fp32")];
    const pol_summary *f16 = &sum[find(pols, n, "fp16")];
    const pol_summary *st = &sum[find(pols, n, "fp16-static:1024")];
    const pol_summary *gs = &sum[find(pols, n, "fp16-torch")];
    const pol_summary *o2 = &sum[find(pols, n, "o2")];
    const pol_summary *o3 = &sum[find(pols, n, "o3")];
    const pol_summary *bf = &sum[find(pols, n, "bf16")];

    /* binary32 with W and lr/W against W = 1 and lr: the loss curves */
    amp_train_config c;
    pol_summary ref;
    if (config_for(L, &c, LAB_SETTING_DEFAULT, &pols[0]))
        return -1;
    c.measure = 1;
    if (run_one(L, &c, "fp32 (W = 1)", NULL, 1, &ref))
        return -1;
    double maxrel = 0;
    int same = 1;
    for (int s = 0; s < c.steps; s++) {
        double d = fabs((double)ref.curve[s] - (double)f32->curve[s]) /
                   fabs((double)ref.curve[s]);
        if (d > maxrel || d != d)
            maxrel = d;
        same &= ref.curve[s] == f32->curve[s];
    }
    free(ref.curve);
    /* the sweep entry of this setting's W = 2^-16 */
    int k16 = 3;
    uint64_t wl = sw->w[k16].total - sw->w[k16].zero_fp32 - sw->w[k16].nonfinite;
    uint64_t al = sw->a[k16].total - sw->a[k16].zero_fp32 - sw->a[k16].nonfinite;
    lab_say(L, "In binary32, loss weight W = 2^-16 with lr 0.05/W trains %s the "
               "default setting (W = 1, lr 0.05): largest relative difference of the "
               "per-step loss over %d steps %.3g, test accuracy %.2f%% both times.  "
               "Its gradients are those of the default run times 2^-16; rounded into "
               "binary16 without scaling, %.1f%% of the nonzero weight gradients and "
               "%.1f%% of the nonzero activation gradients of that binary32 run would "
               "become zero (below 2^-25).\n\n",
            same ? "bit for bit like" : "almost like", c.steps, maxrel, 100 * f32->acc,
            100 * frac(sw->w[k16].underflow, wl), 100 * frac(sw->a[k16].underflow, al));
    lab_say(L, "Measured: fp16 without scaling reaches %.2f%% test accuracy (final "
               "loss %.4g) against binary32's %.2f%% (%.4g); %.1f%% of its computed "
               "weight-gradient values are exactly zero (binary32: %.1f%%) and "
               "%.1f%% more underflow when rounded into binary16, and %.1f%% of its "
               "activation gradients are zero or underflow (binary32: %.1f%% zero).  "
               "A static scale of 1024 gives %.2f%%, GradScaler %.2f%% (%d skipped "
               "steps, final scale %g), o2 %.2f%%; bfloat16 without scaling, which "
               "has binary32's exponent range, %.2f%%; pure fp16 (o3, no scaling, "
               "binary16 weights) %.2f%%%s.\n\n",
            100 * f16->acc, f16->loss, 100 * f32->acc, f32->loss, 100 * f16->wzero,
            100 * f32->wzero, 100 * f16->wuf, 100 * (f16->azero + f16->auf),
            100 * f32->azero, 100 * st->acc, 100 * gs->acc, gs->skipped, gs->scale,
            100 * o2->acc, 100 * bf->acc, 100 * o3->acc,
            o3->diverged ? " (diverged)" : "");
    return 0;
}

/* The loss-weight sweep (full mode): fp16 and GradScaler per W. */
static int sweep_tiny(lab_ctx *L, const sweep_watch *sw, const pol_summary *f32)
{
    static const pol_def d16 = {"fp16", "fp16", 0}, dgs = {"fp16-torch", "fp16-torch", 0};
    pol_summary s16[NSWEEP], sgs[NSWEEP];
    memset(s16, 0, sizeof s16);
    memset(sgs, 0, sizeof sgs);
    char params[512] = "";
    int rc = 0;
    for (int i = 0; i < NSWEEP && !rc; i++) {
        amp_train_config c;
        for (int j = 0; j < 2 && !rc; j++) {
            const pol_def *pd = j ? &dgs : &d16;
            if ((rc = config_for(L, &c, LAB_SETTING_TINY, pd)))
                break;
            c.loss_weight = ldexp(1.0, -sweep_k[i]);
            c.lr = 0.05 / c.loss_weight;
            c.eval_every = 0;
            if (!params[0])
                lab_train_describe(&c, params, sizeof params);
            rc = run_one(L, &c, pd->name, NULL, 1, j ? &sgs[i] : &s16[i]);
        }
    }
    if (!rc) {
        FILE *fp = lab_data_begin(L, "training_tiny_sweep.dat",
                                  "loss-weight sweep: fp16 without and with GradScaler",
                                  "compute binary16; weights binary32; range stats "
                                  "of the binary32 run's gradients vs binary16 at S = 1",
                                  "%s (loss_weight and lr = 0.05/loss_weight per row)",
                                  params);
        if (!fp) {
            rc = -1;
        } else {
            fprintf(fp, "# binary32 test accuracy (every W, same bits) %.6f\n"
                        "# columns: log2_W fp32_w_underflow fp32_a_underflow "
                        "fp16_acc fp16_final_loss fp16torch_acc fp16torch_skipped "
                        "(underflow: fraction of the nonzero binary32 gradients)\n",
                    f32->acc);
            for (int i = 0; i < NSWEEP; i++) {
                uint64_t wl = sw->w[i].total - sw->w[i].zero_fp32 - sw->w[i].nonfinite;
                uint64_t al = sw->a[i].total - sw->a[i].zero_fp32 - sw->a[i].nonfinite;
                fprintf(fp, "%d %.6f %.6f %.6f %.9g %.6f %d\n", -sweep_k[i],
                        frac(sw->w[i].underflow, wl), frac(sw->a[i].underflow, al),
                        s16[i].acc, s16[i].loss, sgs[i].acc, sgs[i].skipped);
            }
            rc = lab_data_end(L, fp);
        }
    }
    if (!rc) {
        lab_say(L, "Loss-weight sweep (same model, lr 0.05/W; binary32 gives %.2f%% "
                   "at every W, bit for bit; the underflow columns are the binary32 "
                   "run's nonzero gradients that binary16 would flush to zero at "
                   "S = 1):\n\n| W | weight grads underflowing | activation grads "
                   "underflowing | fp16 accuracy (final loss) | GradScaler accuracy "
                   "(skipped) |\n|---|---|---|---|---|\n", 100 * f32->acc);
        for (int i = 0; i < NSWEEP; i++) {
            uint64_t wl = sw->w[i].total - sw->w[i].zero_fp32 - sw->w[i].nonfinite;
            uint64_t al = sw->a[i].total - sw->a[i].zero_fp32 - sw->a[i].nonfinite;
            lab_say(L, "| 2^-%d | %.1f%% | %.1f%% | %.2f%% (%.4g%s) | %.2f%% (%d) |\n",
                    sweep_k[i], 100 * frac(sw->w[i].underflow, wl),
                    100 * frac(sw->a[i].underflow, al), 100 * s16[i].acc, s16[i].loss,
                    s16[i].diverged ? ", diverged" : "", 100 * sgs[i].acc,
                    sgs[i].skipped);
        }
        /* the largest W at which fp16 ends more than one point below fp32 */
        int worse = -1;
        for (int i = 0; i < NSWEEP && worse < 0; i++)
            if (s16[i].acc < f32->acc - 0.01 || s16[i].diverged)
                worse = i;
        if (worse >= 0)
            lab_say(L, "\nThe largest W in this sweep at which fp16 without scaling "
                       "ends more than one point below binary32 is 2^-%d; at larger W "
                       "it trains like binary32 although many small gradients are "
                       "lost: the large ones, which carry the training, still fit in "
                       "binary16's subnormal range.\n\n", sweep_k[worse]);
        else
            lab_say(L, "\nAt no W in this sweep does fp16 without scaling end more "
                       "than one point below binary32.\n\n");
    }
    free_sums(s16, NSWEEP);
    free_sums(sgs, NSWEEP);
    return rc;
}

static void say_adam(lab_ctx *L, const pol_def *pols, int n, const pol_summary *sum,
                     const adam_watch *aw)
{
    const pol_summary *f32 = &sum[find(pols, n, "fp32")];
    const pol_summary *f16 = &sum[find(pols, n, "fp16")];
    const pol_summary *o2 = &sum[find(pols, n, "o2")];
    const pol_summary *o3 = &sum[find(pols, n, "o3")];
    const pol_summary *bf = &sum[find(pols, n, "bf16")];
    const pol_summary *bp = &sum[find(pols, n, "bf16-pure")];
    char o3s[512];
    if (o3->first_nonfinite)
        snprintf(o3s, sizeof o3s, "diverged: its loss is non-finite from step %d "
                 "on.  Of the binary32 run's nonzero first-step weight gradients g, "
                 "%.1f%% have Adam's second moment (1-b2)g^2 round to zero in "
                 "binary16 while the first moment (1-b1)g does not: their update "
                 "lr*m/(sqrt(v)+eps) is divided by eps = 1e-8 alone",
                 o3->first_nonfinite, 100 * frac(aw->v_zero_m_not, aw->nonzero));
    else
        snprintf(o3s, sizeof o3s, "ended at %.2f%% test accuracy", 100 * o3->acc);
    lab_say(L, "Measured: with Adam at lr 1e-4, binary32 reaches %.2f%% test "
               "accuracy (final loss %.4g).  bfloat16 weights without a master copy "
               "(bf16-pure) lose %.1f%% of their weight updates (w + dw == w in "
               "bfloat16) and reach %.2f%% (final loss %.4g); with binary32 weights "
               "(bf16 autocast) %.2f%%.  o2 (binary16 model, binary32 master "
               "weights) reaches %.2f%%, fp16 autocast %.2f%%; binary32 weights lose "
               "%.2f%% of their updates.  Pure fp16 (o3) %s.\n\n",
            100 * f32->acc, f32->loss, 100 * bp->lost_frac, 100 * bp->acc, bp->loss,
            100 * bf->acc, 100 * o2->acc, 100 * f16->acc, 100 * f32->lost_frac, o3s);
}

static int run_setting(lab_ctx *L, int setting)
{
    const pol_def *pols = pol_classic;
    int n = (int)(sizeof pol_classic / sizeof pol_classic[0]);
    if (setting == LAB_SETTING_TINY) {
        pols = pol_tiny;
        n = (int)(sizeof pol_tiny / sizeof pol_tiny[0]);
    } else if (setting == LAB_SETTING_ADAM) {
        pols = pol_adam;
        n = (int)(sizeof pol_adam / sizeof pol_adam[0]);
    }
    char name[64], params[512] = "", plist[256] = "policies:";
    for (int p = 0; p < n; p++) {
        size_t o = strlen(plist);
        snprintf(plist + o, sizeof plist - o, " %s", pols[p].name);
    }
    snprintf(name, sizeof name, "training_%s.dat", lab_setting_name(setting));
    pol_summary sum[MAXPOL];
    memset(sum, 0, sizeof sum);
    sweep_watch *sw = NULL;
    adam_watch aw;
    memset(&aw, 0, sizeof aw);
    FILE *fp = NULL;
    int eval_every = 0, rc = -1;
    for (int p = 0; p < n; p++) {
        amp_train_config c;
        if (config_for(L, &c, setting, &pols[p]))
            goto out;
        c.measure = 1;
        if (setting == LAB_SETTING_ADAM && p == 0) {
            aw.b1 = c.beta1;
            aw.b2 = c.beta2;
            c.on_step = adam_on_step;
            c.user = &aw;
        }
        if (setting == LAB_SETTING_TINY && p == 0) {
            if (!(sw = calloc(1, sizeof *sw))) {
                snprintf(L->err, sizeof L->err, "out of memory");
                goto out;
            }
            c.on_step = sweep_on_step;
            c.user = sw;
        }
        if (!fp) {
            lab_train_describe(&c, params, sizeof params);
            eval_every = c.eval_every;
            fp = lab_data_begin(L, name, "training curves per precision policy", plist,
                                "setting=%s %s eval_every=%d", lab_setting_name(setting),
                                params, c.eval_every);
            if (!fp)
                goto out;
            fprintf(fp, "# one block per policy, in the order above\n# columns: step "
                        "loss scale_used skipped_so_far lost_update_fraction "
                        "test_accuracy(nan when not evaluated)\n");
        }
        if (run_one(L, &c, pols[p].name, fp, p == 0, &sum[p]))
            goto out;
    }
    if (lab_data_end(L, fp))
        goto out;

    lab_say(L, "**Setting %s** (%s):\n\n| policy | final loss | test accuracy | "
               "skipped steps | final scale | updates lost | w-grad zero | "
               "w-grad underflow | a-grad zero | a-grad underflow |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n",
            lab_setting_name(setting), params);
    for (int p = 0; p < n; p++)
        lab_say(L, "| %s | %.4g%s | %.2f%% | %d | %g | %.2f%% | %.2f%% | %.2f%% | "
                   "%.2f%% | %.2f%% |\n", pols[p].name, sum[p].loss,
                sum[p].diverged ? " (diverged)" : "", 100 * sum[p].acc, sum[p].skipped,
                sum[p].scale, 100 * sum[p].lost_frac, 100 * sum[p].wzero,
                100 * sum[p].wuf, 100 * sum[p].azero, 100 * sum[p].auf);
    lab_say(L, "\n*Zero*: gradient values exactly zero as computed (ReLU, and "
               "upstream gradients that underflowed); *underflow*: nonzero values "
               "that become zero when rounded into the target format (the compute "
               "format; binary16 for fp32, as a what-if) at the scale used; both are "
               "fractions of all gradient values over every step and layer.\n\n");
    int bi = 0, wi = 0;
    for (int p = 1; p < n; p++) {
        if (sum[p].acc > sum[bi].acc)
            bi = p;
        if (sum[p].acc < sum[wi].acc)
            wi = p;
    }
    char stem[64];
    snprintf(stem, sizeof stem, "training_%s", lab_setting_name(setting));
    if (setting == LAB_SETTING_TINY) {
        if (say_tiny(L, pols, n, sum, sw))
            goto out;
        if (!L->quick && sweep_tiny(L, sw, &sum[0]))
            goto out;
        lab_figure(L, stem, "Training curves with loss weight 2^-16: loss, test "
                   "accuracy (every %d steps), loss scale and cumulative skipped steps "
                   "per policy.  fp16 without scaling %.2f%% against binary32's "
                   "%.2f%%; GradScaler %.2f%%; best %s %.2f%%, worst %s %.2f%%.",
                   eval_every, 100 * sum[1].acc, 100 * sum[0].acc, 100 * sum[3].acc,
                   pols[bi].name, 100 * sum[bi].acc, pols[wi].name, 100 * sum[wi].acc);
    } else if (setting == LAB_SETTING_ADAM) {
        say_adam(L, pols, n, sum, &aw);
        int bp = find(pols, n, "bf16-pure");
        lab_figure(L, stem, "Training curves with Adam at lr 1e-4: loss, test "
                   "accuracy (every %d steps), fraction of weight updates lost per "
                   "step (w + dw == w in the weight format: binary32 for fp32, fp16 "
                   "and bf16, whose optimizers update binary32 weights, and for o2's "
                   "master copy) and the loss scale.  bf16-pure loses "
                   "%.1f%% of its updates and reaches %.2f%%; binary32 %.2f%%; best %s "
                   "%.2f%%, worst %s %.2f%%.",
                   eval_every, 100 * sum[bp].lost_frac, 100 * sum[bp].acc,
                   100 * sum[0].acc, pols[bi].name, 100 * sum[bi].acc, pols[wi].name,
                   100 * sum[wi].acc);
    } else {
        lab_figure(L, stem, "Training curves in the %s setting: loss, test accuracy "
                   "(every %d steps), loss scale and cumulative skipped steps per "
                   "policy.  fp32 reaches %.2f%% test accuracy; plain fp16 (no "
                   "scaling) %.2f%%; GradScaler %.2f%% with %d skipped steps (%d with "
                   "growth interval 50); pure fp16 (o3) %.2f%%, losing %.2f%% of its "
                   "weight updates against %.2f%% for fp32; best %s %.2f%%, worst %s "
                   "%.2f%%: a spread of %.2f points.",
                   lab_setting_name(setting), eval_every, 100 * sum[0].acc,
                   100 * sum[1].acc, 100 * sum[3].acc, sum[3].skipped, sum[4].skipped,
                   100 * sum[6].acc, 100 * sum[6].lost_frac, 100 * sum[0].lost_frac,
                   pols[bi].name, 100 * sum[bi].acc, pols[wi].name, 100 * sum[wi].acc,
                   100 * (sum[bi].acc - sum[wi].acc));
    }
    rc = 0;
out:
    free_sums(sum, n);
    free(sw);
    return rc;
}

int lab_exp_training(lab_ctx *L)
{
    lab_say(L, "Four settings of the same MLP on the digits.  *default* and "
               "*deep* are controls (the spread of test accuracy across the policies "
               "is given under each figure).  *tiny* makes every gradient 2^16 times smaller (loss "
               "weight W = 2^-16): the loss-scaling failure.  *adam* uses Adam at a "
               "fine-tuning learning rate: the lost-update failure.\n\n");
    for (int s = LAB_SETTING_DEFAULT; s <= LAB_SETTING_ADAM; s++)
        if (run_setting(L, s))
            return -1;
    return 0;
}
