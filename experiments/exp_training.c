/*
 * exp_training.c — experiment 6: training curves per precision policy.
 *
 * The MLP on the digits under each policy in the settings of lab_train.h,
 * each policy trained with L->seeds seeds (L->seed, L->seed + 1, ...; the
 * seed sets the initialisation, the train/test split and the batch order,
 * and every policy sees the same seeds):
 *  - default, deep: where every policy trains alike (the controls);
 *  - tiny: loss weight 2^-16 — where gradients fall below binary16's range
 *    and only a loss scale (or bfloat16's range) keeps them; with a sweep
 *    of the loss weight for fp16 without and with GradScaler;
 *  - adam: Adam at a fine-tuning rate — where updates fall below half the
 *    spacing of the weights and only binary32 (master) weights keep them;
 *    and where fp16 optimizer state makes o3 diverge: "o3-state32" is o3
 *    with only its optimizer state in binary32, the run that isolates that
 *    cause.
 * "fp16-torch-i50" is GradScaler with growth_interval 50 instead of 2000,
 * so that the scale's growth and back-off show within a short run;
 * "bf16-pure" is bfloat16 weights, gradients and optimizer state with no
 * master copy (model.to(bfloat16) with a plain optimizer).  Every policy
 * here accumulates its matrix products in binary32 (experiment 8 does not).
 *
 * Every run is a pure function of its configuration, so the runs go to
 * lab_parallel's threads and the files are written afterwards in a fixed
 * order: the bytes do not depend on the number of threads.
 *
 * Comparisons (lab_train.h, lab_stats.h): every policy against binary32 in
 * each setting and at each loss weight of the sweep, and o3's lost updates
 * against binary32's in the controls; policies whose runs are bit-identical
 * in every seed are merged first; one Holm family for the difference tests
 * and one for the equivalence tests (TOST, +-1 point) of this section.
 *
 * Files per setting S: training_S.dat (per-step curves aggregated over the
 * seeds), training_S_seeds.dat (per run; per policy; the comparisons;
 * the policies); training_tiny_sweep.dat; training_tests.dat (the
 * section's comparisons and the power statement's inputs).
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
enum { VAR_NONE = 0, VAR_I50 = 1, VAR_BF16_PURE = 2, VAR_STATE32 = 3 };

/* Keep these lists in step with plots/training_*.gp (the lab's audit,
 * tests/lab_audit.py, checks that they agree). */
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
    {"o3-state32", "o3", VAR_STATE32}, {"bf16", "bf16", 0},
    {"bf16-pure", "bf16", VAR_BF16_PURE}};
static const pol_def pol_sweep[] = {{"fp16", "fp16", 0}, {"fp16-torch", "fp16-torch", 0}};
enum { MAXPOL = 8, NSETTING = 4 };

/* The tiny setting's sweep: the fp32 run's gradients times 2^(16-k) are
 * exactly those of loss weight 2^-k; classified for binary16 at S = 1. */
static const int sweep_k[] = {8, 12, 14, 16, 18, 20};
enum { NSWEEP = sizeof sweep_k / sizeof sweep_k[0], K16 = 3 };
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

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static uint64_t live(const amp_range_stats *s)
{
    return s->total - s->zero_fp32 - s->nonfinite;
}

/* NaN of either sign prints as "nan" (glibc prints a negative one as
 * "-nan", which some readers reject). */
static double pn(double x)
{
    return isnan(x) ? (double)NAN : x;
}

/* ---------------------------------------------------------------------- */
/* The plan: every run of every setting, then the reports. */

typedef struct setting_plan {
    int setting;
    const pol_def *pols;
    int npol;
    size_t first;     /* job index of (policy 0, seed 0); policy-major */
    lab_pset ps;      /* the runs, their statistics and groups */
    int cmp_lost;     /* o3's lost updates against binary32 (-1: none) */
} setting_plan;

typedef struct lab_training {
    lab_ctx *L;
    amp_dataset data;
    lab_run *jobs;
    sweep_watch *sw;      /* one per seed: the tiny setting's fp32 runs */
    size_t njobs;
    setting_plan set[NSETTING];
    size_t sweep_first;   /* (w, policy, seed), w-major */
    int sweep_cmp[NSWEEP][2];
    lab_family F;
} lab_training;

static lab_run *job_at(const lab_training *T, int s, int p, int k)
{
    return lab_pset_run(&T->set[s].ps, p, k);
}

static lab_run *sweep_at(const lab_training *T, int wi, int p, int k)
{
    return &T->jobs[T->sweep_first + ((size_t)wi * 2 + (size_t)p) * (size_t)T->L->seeds +
                    (size_t)k];
}

static int config_for(lab_ctx *L, amp_train_config *c, int setting,
                      const pol_def *pd, int k)
{
    char err[256];
    if (lab_train_setting(L, c, setting, pd->base, err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "training %s: %s", pd->name, err);
        return -1;
    }
    c->seed = L->seed + (uint64_t)k;
    if (pd->variant == VAR_I50)
        c->policy.scaler.growth_interval = 50;
    if (pd->variant == VAR_BF16_PURE) {
        c->policy.param = &fl_bfloat16;
        c->policy.master = 0;
    }
    if (pd->variant == VAR_STATE32)
        c->policy.state = &fl_binary32;   /* the only change from o3 */
    if (pd->variant != VAR_NONE)
        snprintf(c->policy.name, sizeof c->policy.name, "%s", pd->name);
    return 0;
}

static int plan(lab_training *T)
{
    lab_ctx *L = T->L;
    const int S = L->seeds;
    size_t n = 0;
    for (int s = 0; s < NSETTING; s++) {
        setting_plan *P = &T->set[s];
        P->setting = s;
        P->pols = s == LAB_SETTING_TINY ? pol_tiny
                  : s == LAB_SETTING_ADAM ? pol_adam : pol_classic;
        P->npol = s == LAB_SETTING_TINY ? (int)(sizeof pol_tiny / sizeof pol_tiny[0])
                  : s == LAB_SETTING_ADAM ? (int)(sizeof pol_adam / sizeof pol_adam[0])
                                          : (int)(sizeof pol_classic / sizeof pol_classic[0]);
        P->first = n;
        n += (size_t)P->npol * (size_t)S;
        P->ps.setting = lab_setting_name(s);
        P->ps.npol = P->npol;
        P->ps.seeds = S;
        for (int p = 0; p < P->npol; p++)
            P->ps.names[p] = P->pols[p].name;
    }
    T->sweep_first = n;
    n += (size_t)NSWEEP * 2 * (size_t)S;
    T->jobs = calloc(n, sizeof *T->jobs);
    T->sw = calloc((size_t)S, sizeof *T->sw);
    if (!T->jobs || !T->sw) {
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    T->njobs = n;
    for (int s = 0; s < NSETTING; s++)
        T->set[s].ps.runs = T->jobs + T->set[s].first;
    for (int s = 0; s < NSETTING; s++)
        for (int p = 0; p < T->set[s].npol; p++)
            for (int k = 0; k < S; k++) {
                lab_run *j = job_at(T, s, p, k);
                const pol_def *pd = &T->set[s].pols[p];
                if (config_for(L, &j->c, s, pd, k))
                    return -1;
                j->c.measure = 1;
                j->name = pd->name;
                j->data = &T->data;
                if (s == LAB_SETTING_TINY && p == 0) {
                    j->c.on_step = sweep_on_step;
                    j->c.user = &T->sw[k];
                }
            }
    for (int wi = 0; wi < NSWEEP; wi++)
        for (int p = 0; p < 2; p++)
            for (int k = 0; k < S; k++) {
                lab_run *j = sweep_at(T, wi, p, k);
                if (config_for(L, &j->c, LAB_SETTING_TINY, &pol_sweep[p], k))
                    return -1;
                j->c.loss_weight = ldexp(1.0, -sweep_k[wi]);
                j->c.lr = 0.05 / j->c.loss_weight;   /* exact: W a power of two */
                j->c.eval_every = 0;
                j->name = pol_sweep[p].name;
                j->data = &T->data;
            }
    return 0;
}

/* The index of a policy in a setting's list (its lists are fixed above;
 * an unknown name is a bug: abort rather than read another policy). */
static int pidx(const lab_training *T, int s, const char *name)
{
    for (int p = 0; p < T->set[s].npol; p++)
        if (!strcmp(T->set[s].pols[p].name, name))
            return p;
    abort();
}

/* The comparisons of one setting (in report order). */
static int add_setting_cmps(lab_training *T, int s)
{
    setting_plan *P = &T->set[s];
    const lab_pstats *st = P->ps.st;
    if (lab_pset_compare(&P->ps, &T->F))
        return -1;
    P->cmp_lost = -1;
    if (s == LAB_SETTING_DEFAULT || s == LAB_SETTING_DEEP) {
        char a[64], b[64];
        int o3 = pidx(T, s, "o3");
        snprintf(a, sizeof a, "%s:o3", lab_setting_name(s));
        snprintf(b, sizeof b, "%s:fp32", lab_setting_name(s));
        if ((P->cmp_lost = lab_family_add(&T->F, a, b, LAB_M_LOST, st[o3].lost,
                                          st[0].lost, st[o3].hash, st[0].hash,
                                          T->L->seeds)) < 0)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Report */

static const char *const caption_panels =
    "Small panels: each policy's training loss per step divided by binary32's "
    "in the same seed (geometric mean over the seeds; band: smallest to largest "
    "ratio; at 1 the policy matches binary32).  Bottom left: each seed's test "
    "accuracy minus binary32's (dots) with the mean and its 95% confidence "
    "interval (bar); dashed: the equivalence margin ±1 point; the label is the "
    "verdict.";

static void say_classic(lab_training *T, int s)
{
    lab_ctx *L = T->L;
    const setting_plan *P = &T->set[s];
    char groups[700], stem[64], lostv[160];
    lab_pset_verdicts(&T->set[s].ps, &T->F, groups, sizeof groups);
    snprintf(stem, sizeof stem, "training_%s", lab_setting_name(s));
    const lab_pstats *st = P->ps.st;
    int o3 = pidx(T, s, "o3"), gs = pidx(T, s, "fp16-torch"), i50 = pidx(T, s, "fp16-torch-i50");
    lab_cmp_text(lab_family_get(&T->F, P->cmp_lost), lostv, sizeof lostv);
    char merged[300];
    lab_pset_merged(&P->ps, merged, sizeof merged);
    const char *caption = caption_panels;
    lab_figure(L, stem, "Training in the %s setting, %d seeds.  %s  Bottom right: the "
               "loss scale per step (first seed), skipped steps marked ×.  binary32 "
               "reaches %.2f ± %.2f%% test accuracy; by the rule, %s%s%s.  GradScaler "
               "skipped %d steps over the %d seeds (%d with growth interval 50).  "
               "fp16 weights and optimizer state without a master copy (o3) lose "
               "%.2f ± %.2f%% of their weight updates against binary32's %.2f ± "
               "%.2f%%: %s.",
               lab_setting_name(s), L->seeds, caption, st[0].acc_m, st[0].acc_s, groups,
               merged[0] ? "; bit-identical in every seed, merged: " : "", merged,
               st[gs].skipped, L->seeds, st[i50].skipped, st[o3].lost_m, st[o3].lost_s,
               st[0].lost_m, st[0].lost_s, lostv);
}

static int bit_same(const lab_run *a, const lab_run *b)
{
    if (a->c.steps != b->c.steps || a->correct != b->correct)
        return 0;
    return !memcmp(a->loss, b->loss, (size_t)a->c.steps * sizeof *a->loss);
}

static int say_tiny(lab_training *T)
{
    lab_ctx *L = T->L;
    const int S = L->seeds, s = LAB_SETTING_TINY;
    /* binary32 with W and lr/W against W = 1 and lr: same seeds */
    int same = 1;
    double maxrel = 0;
    for (int k = 0; k < S; k++) {
        const lab_run *a = job_at(T, LAB_SETTING_DEFAULT, 0, k), *b = job_at(T, s, 0, k);
        same &= bit_same(a, b);
        for (int i = 0; i < a->c.steps; i++) {
            double d = fabs((double)a->loss[i] - (double)b->loss[i]) / fabs((double)a->loss[i]);
            if (d > maxrel || d != d)
                maxrel = d;
        }
    }
    amp_range_stats w16, a16;
    memset(&w16, 0, sizeof w16);
    memset(&a16, 0, sizeof a16);
    for (int k = 0; k < S; k++) {
        amp_range_stats_merge(&w16, &T->sw[k].w[K16]);
        amp_range_stats_merge(&a16, &T->sw[k].a[K16]);
    }
    if (same)
        lab_say(L, "In binary32, loss weight W = 2^-16 with lr 0.05/W trains bit for "
                   "bit like the default setting (W = 1, lr 0.05) in all %d seeds: the "
                   "same loss at every step and the same test accuracy.  ", S);
    else
        lab_say(L, "In binary32, loss weight W = 2^-16 with lr 0.05/W does not train "
                   "bit for bit like the default setting (W = 1, lr 0.05): largest "
                   "relative difference of the per-step loss over %d seeds %.3g.  ",
                S, maxrel);
    lab_say(L, "Its gradients are those of the default run times 2^-16; rounded into "
               "binary16 without scaling, %.1f%% of the nonzero weight gradients and "
               "%.1f%% of the nonzero activation gradients of those binary32 runs "
               "(all seeds, every step) would round to zero.\n\n",
            100 * frac(w16.underflow, live(&w16)), 100 * frac(a16.underflow, live(&a16)));
    char groups[700];
    lab_pset_verdicts(&T->set[s].ps, &T->F, groups, sizeof groups);
    const int i16 = pidx(T, s, "fp16"), igs = pidx(T, s, "fp16-torch");
    const lab_pstats *st = T->set[s].ps.st;
    const lab_pstats *f32 = &st[0], *f16 = &st[i16], *gs = &st[igs];
    lab_say(L, "Measured: fp16 without scaling reaches %.2f ± %.2f%% test accuracy "
               "against binary32's %.2f ± %.2f%%; %.1f%% of its computed "
               "weight-gradient values are exactly zero (binary32: %.1f%%) and "
               "%.1f%% more are flushed when rounded into binary16, and %.1f%% of its "
               "activation gradients are zero or flushed (binary32: %.1f%% zero).  "
               "By the rule, %s.  GradScaler skipped %d steps over the %d seeds.\n\n",
            f16->acc_m, f16->acc_s, f32->acc_m, f32->acc_s, f16->wzero, f32->wzero,
            f16->wuf, f16->azero + f16->auf, f32->azero, groups, gs->skipped, S);

    /* the loss-weight sweep */
    char params[512];
    lab_train_describe(&sweep_at(T, 0, 0, 0)->c, params, sizeof params);
    FILE *fp = lab_data_begin(L, "training_tiny_sweep.dat",
                              "loss-weight sweep: fp16 without and with GradScaler",
                              "compute binary16; weights binary32; range stats of the "
                              "binary32 tiny runs' gradients vs binary16 at S = 1",
                              "%s (loss_weight and lr = 0.05/loss_weight per row) "
                              "seeds=%d", params, S);
    if (!fp)
        return -1;
    fprintf(fp, "# block 0: one row per loss weight and seed\n"
                "# columns: log2_W seed fp16_correct n_test fp16_final_loss "
                "fp16_first_nonfinite fp16torch_correct fp16torch_skipped fp16_hash "
                "fp16torch_hash\n");
    for (int i = 0; i < NSWEEP; i++)
        for (int k = 0; k < S; k++) {
            const lab_run *a = sweep_at(T, i, 0, k), *b = sweep_at(T, i, 1, k);
            fprintf(fp, "%d %llu %ld %ld %.9g %d %ld %d %016llx %016llx\n", -sweep_k[i],
                    (unsigned long long)a->c.seed, a->correct, a->n_test, pn(a->loss_final),
                    a->first_nonfinite, b->correct, b->skipped,
                    (unsigned long long)a->hash, (unsigned long long)b->hash);
        }
    fprintf(fp, "\n\n# block 1: the binary32 tiny runs' nonzero gradients (all seeds) "
                "that binary16 flushes to zero at S = 1 for loss weight W\n"
                "# columns: log2_W w_live w_underflow a_live a_underflow\n");
    double mw[NSWEEP][2][2];   /* [w][policy][mean, sd] */
    for (int i = 0; i < NSWEEP; i++) {
        amp_range_stats w, a;
        memset(&w, 0, sizeof w);
        memset(&a, 0, sizeof a);
        for (int k = 0; k < S; k++) {
            amp_range_stats_merge(&w, &T->sw[k].w[i]);
            amp_range_stats_merge(&a, &T->sw[k].a[i]);
        }
        fprintf(fp, "%d %llu %llu %llu %llu\n", -sweep_k[i], (unsigned long long)live(&w),
                (unsigned long long)w.underflow, (unsigned long long)live(&a),
                (unsigned long long)a.underflow);
        for (int p = 0; p < 2; p++) {
            double acc[64];
            for (int k = 0; k < S; k++)
                acc[k] = lab_run_acc(sweep_at(T, i, p, k));
            lab_mean_sd(acc, S, &mw[i][p][0], &mw[i][p][1]);
        }
    }
    fprintf(fp, "\n\n# block 2: test accuracy in %% over the seeds (binary32 "
                "reference: the tiny setting's fp32 runs); verdicts against it\n"
                "# columns: log2_W fp16_mean fp16_sd fp16torch_mean fp16torch_sd "
                "fp32_mean fp32_sd fp16_verdict fp16torch_verdict\n");
    for (int i = 0; i < NSWEEP; i++) {
        const char *v[2];
        for (int p = 0; p < 2; p++) {
            const lab_cmp *c = lab_family_get(&T->F, T->sweep_cmp[i][p]);
            v[p] = c->verdict == LAB_V_NOTSHOWN ? "not-shown" : lab_verdict_word(c->verdict);
        }
        fprintf(fp, "%d %.6f %.6f %.6f %.6f %.6f %.6f %s %s\n", -sweep_k[i], mw[i][0][0],
                mw[i][0][1], mw[i][1][0], mw[i][1][1], f32->acc_m, f32->acc_s, v[0], v[1]);
    }
    if (lab_data_end(L, fp))
        return -1;

    lab_say(L, "Loss-weight sweep (same model, lr 0.05/W, %d seeds; binary32 "
               "reference %.2f ± %.2f%%; the flushed columns are the binary32 runs' "
               "nonzero gradients that binary16 would flush to zero at S = 1):\n\n"
               "| W | weight grads flushed | activation grads flushed | "
               "fp16 accuracy %% | vs binary32 | GradScaler accuracy %% | vs binary32 | "
               "GradScaler skipped steps |\n|---|---|---|---|---|---|---|---|\n",
            S, f32->acc_m, f32->acc_s);
    char v16w[5][200], vgsw[5][200];
    memset(v16w, 0, sizeof v16w);
    memset(vgsw, 0, sizeof vgsw);
    for (int i = 0; i < NSWEEP; i++) {
        amp_range_stats w, a;
        memset(&w, 0, sizeof w);
        memset(&a, 0, sizeof a);
        int skipped = 0, div = 0;
        for (int k = 0; k < S; k++) {
            amp_range_stats_merge(&w, &T->sw[k].w[i]);
            amp_range_stats_merge(&a, &T->sw[k].a[i]);
            skipped += sweep_at(T, i, 1, k)->skipped;
            div += sweep_at(T, i, 0, k)->first_nonfinite != 0;
        }
        const lab_cmp *c16 = lab_family_get(&T->F, T->sweep_cmp[i][0]);
        const lab_cmp *cgs = lab_family_get(&T->F, T->sweep_cmp[i][1]);
        char v16[160], vgs[160];
        lab_cmp_text(c16, v16, sizeof v16);
        lab_cmp_text(cgs, vgs, sizeof vgs);
        char divs[48] = "";
        if (div)
            snprintf(divs, sizeof divs, ", diverged in %d", div);
        lab_say(L, "| 2^-%d | %.1f%% | %.1f%% | %.2f ± %.2f%s | %s | %.2f ± %.2f | %s | "
                   "%d |\n", sweep_k[i], 100 * frac(w.underflow, live(&w)),
                100 * frac(a.underflow, live(&a)), mw[i][0][0], mw[i][0][1], divs,
                v16, mw[i][1][0], mw[i][1][1], vgs, skipped);
        for (int p = 0; p < 2; p++) {
            const lab_cmp *c = p ? cgs : c16;
            char *dst = (p ? vgsw : v16w)[c->verdict];
            size_t o = strlen(dst);
            snprintf(dst + o, 200 - o, "%s2^-%d", o ? ", " : "", sweep_k[i]);
        }
    }
    /* "lower at W = ...; equivalent at W = ...; not shown at W = ..." */
    char sum[2][700];
    static const int vord[5] = {LAB_V_LOWER, LAB_V_HIGHER, LAB_V_EQUIV, LAB_V_NOTSHOWN,
                                LAB_V_IDENT};
    static const char *const vlab[5] = {"lower than binary32", "higher than binary32",
                                        "equivalent to binary32 (±1 point)",
                                        "difference not shown",
                                        "bit-identical to binary32"};
    for (int p = 0; p < 2; p++) {
        size_t o = 0;
        sum[p][0] = 0;
        for (int g = 0; g < 5; g++) {
            const char *ws = (p ? vgsw : v16w)[vord[g]];
            if (ws[0])
                o += (size_t)snprintf(sum[p] + o, sizeof sum[p] - o, "%s%s at W = %s",
                                      o ? "; " : "", vlab[g], ws);
        }
    }
    int dups = 0;
    char dl[600] = "";
    size_t o = 0;
    for (int i = 0; i < NSWEEP; i++)
        for (int p = 0; p < 2; p++) {
            const lab_cmp *c = lab_family_get(&T->F, T->sweep_cmp[i][p]);
            if (c->dup_of < 0)
                continue;
            dups++;
            if (o < sizeof dl)
                o += (size_t)snprintf(dl + o, sizeof dl - o, "%s%s = %s", o ? ", " : "",
                                      c->a_name, lab_family_get(&T->F, c->dup_of)->a_name);
        }
    lab_say(L, "\nBy the rule, fp16 without scaling: %s.  GradScaler: %s.  %d of "
               "the sweep's %d comparisons repeat runs compared before, bit-identical "
               "in every seed, and are merged with them%s%s.\n\n",
            sum[0], sum[1], dups, 2 * NSWEEP, dups ? ": " : "", dl);
    char c16s[160], cgss[160];
    lab_cmp_text(lab_family_get(&T->F, T->set[s].ps.cmp[T->set[s].ps.rep[i16]]), c16s, sizeof c16s);
    lab_cmp_text(lab_family_get(&T->F, T->set[s].ps.cmp[T->set[s].ps.rep[igs]]), cgss, sizeof cgss);
    const char *caption = caption_panels;
    lab_figure(L, "training_tiny", "Training with loss weight 2^-16, %d seeds.  %s  The "
               "last small panel: the loss-weight sweep (test accuracy, mean ± standard "
               "deviation, against W).  Bottom right: the loss scale per step (first "
               "seed), skipped steps marked ×.  fp16 without scaling %.2f ± %.2f%% "
               "against binary32's %.2f ± %.2f%%: %s; GradScaler %.2f ± %.2f%%: %s.",
               S, caption, f16->acc_m, f16->acc_s, f32->acc_m, f32->acc_s, c16s,
               gs->acc_m, gs->acc_s, cgss);
    return 0;
}

static void say_adam(lab_training *T)
{
    lab_ctx *L = T->L;
    const int S = L->seeds;
    const int s = LAB_SETTING_ADAM;
    const setting_plan *P = &T->set[s];
    const int io3 = pidx(T, s, "o3"), i32 = pidx(T, s, "o3-state32");
    const lab_pstats *st = P->ps.st;
    const lab_pstats *f32 = &st[0], *f16 = &st[pidx(T, s, "fp16")],
                    *o2 = &st[pidx(T, s, "o2")], *o3 = &st[io3], *o3s = &st[i32],
                    *bf = &st[pidx(T, s, "bf16")], *bp = &st[pidx(T, s, "bf16-pure")];
    char groups[700];
    lab_pset_verdicts(&T->set[s].ps, &T->F, groups, sizeof groups);
    lab_say(L, "Measured: with Adam at lr 1e-4, binary32 reaches %.2f ± %.2f%% test "
               "accuracy (final loss %.4g ± %.2g).  bfloat16 weights and optimizer "
               "state without a master copy (bf16-pure) lose %.1f ± %.1f%% of their "
               "weight updates (w + dw == w in bfloat16) and reach %.2f ± %.2f%%; with "
               "binary32 weights (bf16 autocast) %.2f ± %.2f%%.  fp16 weights with a "
               "binary32 master copy (o2) reach %.2f ± %.2f%%, fp16 autocast %.2f ± "
               "%.2f%%; binary32 weights lose %.2f ± %.2f%% of their updates.  By the "
               "rule, %s.\n\n",
            f32->acc_m, f32->acc_s, f32->loss_m, f32->loss_s, bp->lost_m, bp->lost_s,
            bp->acc_m, bp->acc_s, bf->acc_m, bf->acc_s, o2->acc_m, o2->acc_s, f16->acc_m,
            f16->acc_s, f32->lost_m, f32->lost_s, groups);

    /* o3's divergence and the run that changes only its optimizer state */
    uint64_t vz3 = 0, up3 = 0, vz32 = 0, vzf = 0;
    double dw3_min = INFINITY, dw3_max = 0, dwf = 0;
    for (int k = 0; k < S; k++) {
        const lab_run *a = job_at(T, s, io3, k), *b = job_at(T, s, i32, k),
                      *f = job_at(T, s, 0, k);
        vz3 += a->v_zero1;
        up3 += a->upd1;
        vz32 += b->v_zero1;
        vzf += f->v_zero1;
        dw3_min = fmin(dw3_min, a->max_dw1);
        dw3_max = fmax(dw3_max, a->max_dw1);
        dwf = fmax(dwf, f->max_dw1);
    }
    char range[64];
    if (o3->fnf_min == o3->fnf_max)
        snprintf(range, sizeof range, "from step %d on", o3->fnf_min);
    else
        snprintf(range, sizeof range, "from a step between %d and %d on", o3->fnf_min,
                 o3->fnf_max);
    char c32[160];
    lab_cmp_text(lab_family_get(&T->F, P->ps.cmp[P->ps.rep[i32]]), c32, sizeof c32);
    if (o3->diverged && o3s->diverged)
        lab_say(L, "fp16 weights and optimizer state without a master copy (o3) "
                   "diverge in %d of %d seeds (non-finite loss %s), and so does o3 "
                   "with its optimizer state in binary32 (o3-state32) in %d: the "
                   "state's format alone does not explain it.  With a non-finite "
                   "loss their updates and gradients are not counted.\n\n",
                o3->diverged, S, range, o3s->diverged);
    else if (o3->diverged)
        lab_say(L, "fp16 weights and optimizer state without a master copy (o3) "
                   "diverge in %d of %d seeds: the loss is non-finite %s.  The cause "
                   "is its binary16 optimizer state, not lost updates: after step 1, "
                   "Adam's second moment v = (1-b2)g^2 is flushed to zero in binary16 "
                   "while the first moment m is not for %llu of the %llu updated "
                   "weights and biases (all seeds), so their update lr·m^/(sqrt(v^) + "
                   "eps) is divided by eps = 1e-8 alone: the largest |dw| of step 1 is "
                   "%.4g to %.4g over the seeds, against %.4g in binary32.  The run "
                   "that changes only that, o3 with its optimizer state in binary32 "
                   "(o3-state32: binary16 weights and gradients, no master copy, no "
                   "scaling), has v flushed for %llu weights (binary32: %llu), "
                   "diverges in none of the %d seeds and reaches %.2f ± %.2f%%: against "
                   "binary32, %s.  With a non-finite loss o3's updates and gradients "
                   "are not counted.\n\n",
                o3->diverged, S, range, (unsigned long long)vz3, (unsigned long long)up3,
                dw3_min, dw3_max, dwf, (unsigned long long)vz32, (unsigned long long)vzf,
                S, o3s->acc_m, o3s->acc_s, c32);
    else
        lab_say(L, "fp16 weights and optimizer state without a master copy (o3) do not "
                   "diverge here and reach %.2f ± %.2f%%; with its optimizer state in "
                   "binary32 (o3-state32) %.2f ± %.2f%%: against binary32, %s.\n\n",
                o3->acc_m, o3->acc_s, o3s->acc_m, o3s->acc_s, c32);
    char cbp[160];
    const char *caption = caption_panels;
    lab_cmp_text(lab_family_get(&T->F, P->ps.cmp[P->ps.rep[pidx(T, s, "bf16-pure")]]), cbp,
                 sizeof cbp);
    lab_figure(L, "training_adam", "Training with Adam at lr 1e-4, %d seeds.  %s  A loss "
               "that turns non-finite is marked × at the first such step.  Bottom "
               "right: fraction of weight updates lost per step (w + dw == w in the "
               "weight format: binary32 for fp32, fp16 and bf16, whose optimizers update "
               "binary32 weights, and for o2's master copy; mean over the seeds whose "
               "loss never turns non-finite).  bf16-pure loses %.1f ± %.1f%% of its updates "
               "and reaches %.2f ± %.2f%%, binary32 %.2f ± %.2f%%: bf16-pure %s.",
               S, caption, bp->lost_m, bp->lost_s, bp->acc_m, bp->acc_s, f32->acc_m,
               f32->acc_s, cbp);
}

/* The section's multiplicity and power statement. */
static int say_power(lab_training *T)
{
    lab_ctx *L = T->L;
    const int S = L->seeds;
    static const char *const controls[] = {"default:", "deep:", NULL};
    int cnt = 0;
    double sd = lab_family_pooled_sd(&T->F, controls, &cnt);
    int m = T->F.m_diff;
    double alpha = 0.05 / (m > 0 ? m : 1);
    double det = lab_detectable(sd, S, alpha, 0.8);
    int need = lab_seeds_needed(LAB_EQUIV_MARGIN, sd, alpha, 0.8, 1000);
    double det05 = lab_detectable(sd, S, 0.05, 0.8);
    int need05 = lab_seeds_needed(LAB_EQUIV_MARGIN, sd, 0.05, 0.8, 1000);
    FILE *fp = lab_data_begin(L, "training_tests.dat",
                              "the training section's comparisons (Holm families)",
                              "test accuracy in points; lost updates in points",
                              "seeds=%d margin=%g", S, LAB_EQUIV_MARGIN);
    if (!fp)
        return -1;
    lab_family_write(&T->F, fp);
    fprintf(fp, "\n\n# block 1: power: pooled paired sd of the control settings' "
                "tested accuracy comparisons, their count, the level (0.05 / "
                "difference tests), the detectable difference at 80%% power and the "
                "seeds a 1-point difference needs, at that level and at 0.05\n"
                "# columns: pooled_sd count alpha detectable seeds_for_margin "
                "detectable_at_05 seeds_for_margin_at_05\n"
                "%.9g %d %.9g %.9g %d %.9g %d\n", sd, cnt, alpha, det, need, det05, need05);
    if (lab_data_end(L, fp))
        return -1;
    char needs[64], needs05[64];
    if (need)
        snprintf(needs, sizeof needs, "%d seeds", need);
    else
        snprintf(needs, sizeof needs, "more than 1000 seeds");
    if (need05)
        snprintf(needs05, sizeof needs05, "%d", need05);
    else
        snprintf(needs05, sizeof needs05, "more than 1000");
    lab_say(L, "**Power.**  In the two control settings the %d tested accuracy "
               "comparisons have a pooled paired standard deviation of %.3f points.  "
               "With that spread and %d seeds, a paired t-test at Holm's strictest "
               "level 0.05/%d detects with 80%% power a difference of %.2f points; a "
               "difference of %g point (the equivalence margin) needs %s (%s at the "
               "unadjusted level 0.05, where %d seeds detect %.2f points).  A "
               "difference smaller than that can hide behind *not shown* and behind "
               "*equivalent*.\n\n",
            cnt, sd, S, m, det, LAB_EQUIV_MARGIN, needs, needs05, S, det05);
    return 0;
}

int lab_exp_training(lab_ctx *L)
{
    lab_training T;
    memset(&T, 0, sizeof T);
    T.L = L;
    int rc = -1;
    if (L->seeds < 2 || L->seeds > 64) {
        snprintf(L->err, sizeof L->err, "training: %d seeds (need 2..64)", L->seeds);
        return -1;
    }
    if (!L->data_path) {
        snprintf(L->err, sizeof L->err, "training: no training data path");
        return -1;
    }
    char err[256];
    amp_train_config dc;   /* the trainer's defaults say how to read the data */
    amp_train_config_default(&dc);
    if (amp_dataset_read_csv(&T.data, L->data_path, dc.label_pos, dc.feature_scale,
                             err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "training: %s", err);
        return -1;
    }
    if (plan(&T))
        goto out;
    if (lab_parallel(L, T.njobs, lab_run_exec, T.jobs))
        goto out;
    for (size_t i = 0; i < T.njobs; i++)
        if (T.jobs[i].rc) {
            snprintf(L->err, sizeof L->err, "training %s (seed %llu): %s",
                     T.jobs[i].name, (unsigned long long)T.jobs[i].c.seed,
                     T.jobs[i].err);
            goto out;
        }

    static const int order[NSETTING] = {LAB_SETTING_DEFAULT, LAB_SETTING_DEEP,
                                        LAB_SETTING_TINY, LAB_SETTING_ADAM};
    for (int oi = 0; oi < NSETTING; oi++) {
        int s = order[oi];
        lab_pset_stats(&T.set[s].ps);
        if (add_setting_cmps(&T, s))
            goto oom;
    }
    const int S = L->seeds;
    for (int i = 0; i < NSWEEP; i++)
        for (int p = 0; p < 2; p++) {
            double a[64];
            uint64_t ha[64];
            for (int k = 0; k < S; k++) {
                a[k] = lab_run_acc(sweep_at(&T, i, p, k));
                ha[k] = sweep_at(&T, i, p, k)->hash;
            }
            char an[64];
            snprintf(an, sizeof an, "sweep%d:%s", -sweep_k[i], pol_sweep[p].name);
            const lab_pstats *f = &T.set[LAB_SETTING_TINY].ps.st[0];
            if ((T.sweep_cmp[i][p] = lab_family_add(&T.F, an, "tiny:fp32", LAB_M_ACC, a,
                                                    f->acc, ha, f->hash, S)) < 0)
                goto oom;
        }
    lab_family_finish(&T.F);

    const lab_run *j0 = job_at(&T, 0, 0, 0);
    lab_say(L, "Four settings of the same MLP on the digits (%ld training and %ld "
               "test images per split).  Every policy is trained with %d seeds, "
               "%llu to %llu; the seed sets the initialisation, the train/test split "
               "and the batch order, and every policy sees the same seeds.  "
               "*default* and *deep* are controls.  *tiny* makes every gradient "
               "2^16 times smaller (loss weight W = 2^-16): the loss-scaling "
               "failure.  *adam* uses Adam at a fine-tuning learning rate: the "
               "lost-update failure.\n\n",
            j0->n_train, j0->n_test, L->seeds, (unsigned long long)L->seed,
            (unsigned long long)(L->seed + (uint64_t)L->seeds - 1));
    const lab_pset *sets[NSETTING];
    for (int i = 0; i < NSETTING; i++)
        sets[i] = &T.set[i].ps;
    lab_say_policies(L, "What each policy does (every policy of this section accumulates "
                        "its matrix products in binary32; experiment 8 accumulates in "
                        "binary16):", sets, NSETTING);
    lab_family_say_rule(L, &T.F, S);
    if (say_power(&T))
        goto out;
    for (int oi = 0; oi < NSETTING; oi++) {
        int s = order[oi];
        char params[512];
        lab_train_describe(&job_at(&T, s, 0, 0)->c, params, sizeof params);
        if (lab_pset_write(L, &T.set[s].ps, &T.F, params))
            goto out;
        lab_pset_say_table(L, &T.set[s].ps, &T.F, params);
        if (s == LAB_SETTING_TINY) {
            if (say_tiny(&T))
                goto out;
        } else if (s == LAB_SETTING_ADAM) {
            say_adam(&T);
        } else {
            say_classic(&T, s);
        }
    }
    rc = 0;
    goto out;
oom:
    snprintf(L->err, sizeof L->err, "training: out of memory");
out:
    for (size_t i = 0; T.jobs && i < T.njobs; i++)
        lab_run_free(&T.jobs[i]);
    free(T.jobs);
    free(T.sw);
    lab_family_free(&T.F);
    amp_dataset_free(&T.data);
    return rc;
}
