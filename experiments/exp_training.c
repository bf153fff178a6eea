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
 *    spacing of the weights and only binary32 (master) weights keep them.
 * "fp16-torch-i50" is GradScaler with growth_interval 50 instead of 2000,
 * so that the scale's growth and back-off show within a short run;
 * "bf16-pure" is bfloat16 weights, gradients and optimizer state with no
 * master copy (model.to(bfloat16) with a plain optimizer).
 *
 * Every run is a pure function of its configuration, so the runs go to
 * lab_parallel's threads and the files are written afterwards in a fixed
 * order: the bytes do not depend on the number of threads.
 *
 * Comparisons: a policy's test accuracy (or lost-update fraction) is
 * summarised by its mean and sample standard deviation over the seeds, and
 * the text calls two policies different only by lab_paired's rule (the
 * 95% confidence interval of the mean per-seed difference excludes 0).
 *
 * Files per setting S: training_S.dat (per-step curves aggregated over the
 * seeds), training_S_seeds.dat (one row per policy and seed, then one per
 * policy); training_tiny_sweep.dat; the adam seeds file adds the first-step
 * Adam moments of the binary32 runs.
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
    {"bf16", "bf16", 0}, {"bf16-pure", "bf16", VAR_BF16_PURE}};
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

/* One training run: its configuration and what the lab keeps of it. */
typedef struct run_job {
    amp_train_config c;
    const amp_dataset *data;
    const char *name;
    int rc;
    char err[256];
    /* per step */
    float *loss, *scale;
    unsigned char *skip;
    double *lostf, *acc;
    /* summary */
    long correct, n_test, n_train;
    double acc_final, loss_final, scale_final;
    int skipped, first_nonfinite;   /* 1-based step, 0 if none */
    uint64_t upd, lost;
    amp_range_stats w, a;           /* over every step and layer */
    sweep_watch *sw;                /* fp32 run of tiny */
    adam_watch *aw;                 /* fp32 run of adam */
} run_job;

static void job_free(run_job *j)
{
    free(j->loss);
    free(j->scale);
    free(j->skip);
    free(j->lostf);
    free(j->acc);
    free(j->sw);
    free(j->aw);
}

static void run_job_exec(void *arg, size_t i)
{
    run_job *j = &((run_job *)arg)[i];
    const amp_train_config *c = &j->c;
    int n = c->steps;
    j->loss = calloc((size_t)n, sizeof *j->loss);
    j->scale = calloc((size_t)n, sizeof *j->scale);
    j->skip = calloc((size_t)n, sizeof *j->skip);
    j->lostf = calloc((size_t)n, sizeof *j->lostf);
    j->acc = calloc((size_t)n, sizeof *j->acc);
    amp_layer_record *lr = calloc((size_t)(c->depth > 0 ? c->depth : 1), sizeof *lr);
    if (!j->loss || !j->scale || !j->skip || !j->lostf || !j->acc || !lr) {
        snprintf(j->err, sizeof j->err, "out of memory");
        j->rc = -1;
        free(lr);
        return;
    }
    amp_trainer *t = amp_trainer_create(c, j->data, j->err, sizeof j->err);
    if (!t) {
        j->rc = -1;
        free(lr);
        return;
    }
    int layers = amp_trainer_layers(t);
    for (int s = 0; s < n; s++) {
        amp_step_record q;
        amp_trainer_step(t, &q, lr);
        j->loss[s] = q.loss;
        j->scale[s] = q.scale_used;
        j->skip[s] = (unsigned char)q.skipped;
        j->lostf[s] = q.updates ? (double)q.lost / (double)q.updates : 0.0;
        j->acc[s] = q.test_acc;
        j->skipped += q.skipped;
        j->upd += q.updates;
        j->lost += q.lost;
        if (!isfinite(q.loss) && !j->first_nonfinite)
            j->first_nonfinite = s + 1;
        for (int l = 0; c->measure && l < layers; l++) {
            amp_range_stats_merge(&j->w, &lr[l].wgrad);
            amp_range_stats_merge(&j->a, &lr[l].agrad);
        }
        if (s == n - 1)
            j->scale_final = q.scale_after;
    }
    j->n_test = (long)amp_trainer_test_size(t);
    j->n_train = (long)amp_trainer_train_size(t);
    j->acc_final = amp_trainer_test_accuracy(t);
    j->correct = lround(j->acc_final * (double)j->n_test);
    j->loss_final = n ? j->loss[n - 1] : NAN;
    amp_trainer_free(t);
    free(lr);
}

/* NaN of either sign prints as "nan" (glibc prints a negative one as
 * "-nan", which some readers reject). */
static double pn(double x)
{
    return isnan(x) ? (double)NAN : x;
}

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static uint64_t live(const amp_range_stats *s)
{
    return s->total - s->zero_fp32 - s->nonfinite;
}

/* ---------------------------------------------------------------------- */
/* The plan: every run of every setting, then the reports. */

typedef struct setting_plan {
    int setting;
    const pol_def *pols;
    int npol;
    size_t first;     /* job index of (policy 0, seed 0); policy-major */
} setting_plan;

typedef struct lab_training {
    lab_ctx *L;
    amp_dataset data;
    run_job *jobs;
    size_t njobs;
    setting_plan set[NSETTING];
    size_t sweep_first;   /* (w, policy, seed), w-major */
} lab_training;

static run_job *job_at(const lab_training *T, int s, int p, int k)
{
    return &T->jobs[T->set[s].first + (size_t)p * (size_t)T->L->seeds + (size_t)k];
}

static run_job *sweep_at(const lab_training *T, int wi, int p, int k)
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
        snprintf(c->policy.name, sizeof c->policy.name, "%s", pd->name);
    }
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
    }
    T->sweep_first = n;
    n += (size_t)NSWEEP * 2 * (size_t)S;
    T->jobs = calloc(n, sizeof *T->jobs);
    if (!T->jobs) {
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    T->njobs = n;
    for (int s = 0; s < NSETTING; s++)
        for (int p = 0; p < T->set[s].npol; p++)
            for (int k = 0; k < S; k++) {
                run_job *j = job_at(T, s, p, k);
                const pol_def *pd = &T->set[s].pols[p];
                if (config_for(L, &j->c, s, pd, k))
                    return -1;
                j->c.measure = 1;
                j->name = pd->name;
                j->data = &T->data;
                if (s == LAB_SETTING_TINY && p == 0) {
                    if (!(j->sw = calloc(1, sizeof *j->sw)))
                        goto oom;
                    j->c.on_step = sweep_on_step;
                    j->c.user = j->sw;
                }
                if (s == LAB_SETTING_ADAM && p == 0) {
                    if (!(j->aw = calloc(1, sizeof *j->aw)))
                        goto oom;
                    j->aw->b1 = j->c.beta1;
                    j->aw->b2 = j->c.beta2;
                    j->c.on_step = adam_on_step;
                    j->c.user = j->aw;
                }
            }
    for (int wi = 0; wi < NSWEEP; wi++)
        for (int p = 0; p < 2; p++)
            for (int k = 0; k < S; k++) {
                run_job *j = sweep_at(T, wi, p, k);
                if (config_for(L, &j->c, LAB_SETTING_TINY, &pol_sweep[p], k))
                    return -1;
                j->c.loss_weight = ldexp(1.0, -sweep_k[wi]);
                j->c.lr = 0.05 / j->c.loss_weight;   /* exact: W a power of two */
                j->c.eval_every = 0;
                j->name = pol_sweep[p].name;
                j->data = &T->data;
            }
    return 0;
oom:
    snprintf(L->err, sizeof L->err, "out of memory");
    return -1;
}

/* ---------------------------------------------------------------------- */
/* Summaries over the seeds of one policy. */

typedef struct pol_stats {
    double acc[64], lost[64];   /* per seed, in % */
    double acc_m, acc_s, acc_min, acc_max;
    double loss_m, loss_s;      /* NaN when a seed diverged */
    double lost_m, lost_s;      /* per-seed lost-update fractions */
    double wzero, wuf, azero, auf;   /* means of per-seed fractions of all values */
    int diverged, skipped, fnf_min, fnf_max;
    double scale_min, scale_max;
} pol_stats;

static pol_stats stats_of(const lab_training *T, int s, int p)
{
    const int S = T->L->seeds;
    double loss[64];
    pol_stats r;
    memset(&r, 0, sizeof r);
    double *acc = r.acc, *lost = r.lost;
    r.acc_min = INFINITY;
    r.acc_max = -INFINITY;
    r.scale_min = INFINITY;
    r.scale_max = -INFINITY;
    for (int k = 0; k < S; k++) {
        const run_job *j = job_at(T, s, p, k);
        acc[k] = 100.0 * (double)j->correct / (double)j->n_test;
        loss[k] = j->loss_final;
        lost[k] = 100.0 * frac(j->lost, j->upd);
        r.acc_min = fmin(r.acc_min, acc[k]);
        r.acc_max = fmax(r.acc_max, acc[k]);
        r.wzero += 100.0 * frac(j->w.zero_fp32, j->w.total) / S;
        r.wuf += 100.0 * frac(j->w.underflow, j->w.total) / S;
        r.azero += 100.0 * frac(j->a.zero_fp32, j->a.total) / S;
        r.auf += 100.0 * frac(j->a.underflow, j->a.total) / S;
        r.skipped += j->skipped;
        r.scale_min = fmin(r.scale_min, j->scale_final);
        r.scale_max = fmax(r.scale_max, j->scale_final);
        if (j->first_nonfinite) {
            if (!r.diverged || j->first_nonfinite < r.fnf_min)
                r.fnf_min = j->first_nonfinite;
            if (j->first_nonfinite > r.fnf_max)
                r.fnf_max = j->first_nonfinite;
            r.diverged++;
        }
    }
    lab_mean_sd(acc, S, &r.acc_m, &r.acc_s);
    lab_mean_sd(loss, S, &r.loss_m, &r.loss_s);
    lab_mean_sd(lost, S, &r.lost_m, &r.lost_s);
    return r;
}

/* A loss scale: 2^k when it is a power of two (it always is for the
 * scalers here), else %g. */
static void fmt_scale(char *buf, size_t len, double v)
{
    int e;
    if (v > 0 && frexp(v, &e) == 0.5)
        snprintf(buf, len, "2^%d", e - 1);
    else
        snprintf(buf, len, "%g", v);
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

static const char *cmp_word(int c)
{
    return c == 2 ? "identical" : c > 0 ? "higher" : c < 0 ? "lower"
                                                   : "indistinguishable";
}

/* a against b by lab_paired's rule: the word, and "word (+d ± h)" */
static int cmp_acc(const pol_stats *a, const pol_stats *b, int n, char *buf, size_t len)
{
    double dm, h;
    int c = lab_paired(a->acc, b->acc, n, &dm, &h);
    if (c == 2)
        snprintf(buf, len, "identical");
    else
        snprintf(buf, len, "%s (%+.2f ± %.2f)", cmp_word(c), dm, h);
    return c;
}

/* "higher: a, b; lower: c; indistinguishable: d, e" against policy 0 */
static void groups_vs_fp32(const lab_training *T, int s, const pol_stats *st,
                           char *buf, size_t len)
{
    const setting_plan *P = &T->set[s];
    static const int order[4] = {2, 0, -1, 1};
    static const char *const label[4] = {"identical to binary32 in every seed",
                                         "indistinguishable from binary32",
                                         "lower than binary32", "higher than binary32"};
    size_t o = 0;
    buf[0] = 0;
    for (int g = 0; g < 4; g++) {
        int any = 0;
        for (int p = 1; p < P->npol; p++) {
            double dm, h;
            int c = lab_paired(st[p].acc, st[0].acc, T->L->seeds, &dm, &h);
            if (c != order[g])
                continue;
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s%s",
                                  any ? ", " : o ? "; " : "", any ? "" : label[g],
                                  any ? "" : ": ");
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s", P->pols[p].name);
            any = 1;
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Files */

static int write_curves(lab_training *T, int s)
{
    lab_ctx *L = T->L;
    const setting_plan *P = &T->set[s];
    const int S = L->seeds;
    const amp_train_config *c0 = &job_at(T, s, 0, 0)->c;
    char name[64], params[512], plist[256] = "policies:";
    for (int p = 0; p < P->npol; p++) {
        size_t o = strlen(plist);
        snprintf(plist + o, sizeof plist - o, " %s", P->pols[p].name);
    }
    lab_train_describe(c0, params, sizeof params);
    snprintf(name, sizeof name, "training_%s.dat", lab_setting_name(s));
    FILE *fp = lab_data_begin(L, name, "training curves per precision policy, over "
                              "the seeds", plist, "setting=%s %s seeds=%llu..%llu "
                              "eval_every=%d", lab_setting_name(s), params,
                              (unsigned long long)L->seed,
                              (unsigned long long)(L->seed + (uint64_t)S - 1),
                              c0->eval_every);
    if (!fp)
        return -1;
    fprintf(fp, "# one block per policy, in the order above; over the %d seeds\n"
                "# columns: step loss_mean (nan if a seed's loss is non-finite) "
                "loss_min loss_max (over the finite ones) n_finite scale_used "
                "(first seed) skipped (first seed, this step) skipped_so_far (all "
                "seeds) lost_update_fraction_mean acc_mean acc_min acc_max (nan when "
                "not evaluated)\n", S);
    for (int p = 0; p < P->npol; p++) {
        fprintf(fp, "%s# policy %s\n", p ? "\n\n" : "", P->pols[p].name);
        int skipped = 0;
        for (int st = 0; st < c0->steps; st++) {
            double lsum = 0, lmin = INFINITY, lmax = -INFINITY, lostm = 0;
            double asum = 0, amin = INFINITY, amax = -INFINITY;
            int nf = 0;
            for (int k = 0; k < S; k++) {
                const run_job *j = job_at(T, s, p, k);
                double l = j->loss[st];
                if (isfinite(l)) {
                    nf++;
                    lsum += l;
                    lmin = fmin(lmin, l);
                    lmax = fmax(lmax, l);
                }
                lostm += j->lostf[st] / S;
                skipped += j->skip[st];
                asum += j->acc[st];
                amin = fmin(amin, j->acc[st]);
                amax = fmax(amax, j->acc[st]);
            }
            const run_job *j0 = job_at(T, s, p, 0);
            int eval = isfinite(j0->acc[st]);
            fprintf(fp, "%d %.9g %.9g %.9g %d %.9g %d %d %.6f %.6f %.6f %.6f\n", st + 1,
                    nf == S ? lsum / S : NAN, nf ? lmin : NAN, nf ? lmax : NAN, nf,
                    (double)j0->scale[st], j0->skip[st], skipped, lostm,
                    eval ? asum / S : NAN, eval ? amin : NAN, eval ? amax : NAN);
        }
    }
    return lab_data_end(L, fp);
}

static int write_seeds(lab_training *T, int s, const pol_stats *st)
{
    lab_ctx *L = T->L;
    const setting_plan *P = &T->set[s];
    const int S = L->seeds;
    char name[64], plist[256] = "policies:";
    for (int p = 0; p < P->npol; p++) {
        size_t o = strlen(plist);
        snprintf(plist + o, sizeof plist - o, " %s", P->pols[p].name);
    }
    snprintf(name, sizeof name, "training_%s_seeds.dat", lab_setting_name(s));
    FILE *fp = lab_data_begin(L, name, "final results per policy and seed", plist,
                              "setting=%s seeds=%d (%llu..%llu)", lab_setting_name(s),
                              S, (unsigned long long)L->seed,
                              (unsigned long long)(L->seed + (uint64_t)S - 1));
    if (!fp)
        return -1;
    fprintf(fp, "# block 0: one row per policy and seed\n"
                "# columns: policy_index policy seed test_correct n_test n_train "
                "final_loss first_nonfinite_step (0: none) skipped_steps final_scale "
                "updates lost_updates w_total w_zero w_underflow a_total a_zero "
                "a_underflow (gradient counts over every step and layer)\n");
    for (int p = 0; p < P->npol; p++)
        for (int k = 0; k < S; k++) {
            const run_job *j = job_at(T, s, p, k);
            fprintf(fp, "%d %s %llu %ld %ld %ld %.9g %d %d %.9g %llu %llu %llu %llu %llu "
                        "%llu %llu %llu\n", p, P->pols[p].name,
                    (unsigned long long)j->c.seed, j->correct, j->n_test, j->n_train,
                    pn(j->loss_final), j->first_nonfinite, j->skipped, j->scale_final,
                    (unsigned long long)j->upd, (unsigned long long)j->lost,
                    (unsigned long long)j->w.total, (unsigned long long)j->w.zero_fp32,
                    (unsigned long long)j->w.underflow, (unsigned long long)j->a.total,
                    (unsigned long long)j->a.zero_fp32, (unsigned long long)j->a.underflow);
        }
    fprintf(fp, "\n\n# block 1: per policy, test accuracy in %% over the seeds\n"
                "# columns: policy_index policy n mean sd min max\n");
    for (int p = 0; p < P->npol; p++)
        fprintf(fp, "%d %s %d %.6f %.6f %.6f %.6f\n", p, P->pols[p].name, S, st[p].acc_m,
                st[p].acc_s, st[p].acc_min, st[p].acc_max);
    if (s == LAB_SETTING_ADAM) {
        fprintf(fp, "\n\n# block 2: the binary32 runs' first step: nonzero weight "
                    "gradients g, and how many have (1-b2)g^2 round to zero in "
                    "binary16 while (1-b1)g does not\n"
                    "# columns: seed nonzero v_zero_m_not\n");
        for (int k = 0; k < S; k++) {
            const run_job *j = job_at(T, s, 0, k);
            fprintf(fp, "%llu %llu %llu\n", (unsigned long long)j->c.seed,
                    (unsigned long long)j->aw->nonzero,
                    (unsigned long long)j->aw->v_zero_m_not);
        }
    }
    return lab_data_end(L, fp);
}

/* ---------------------------------------------------------------------- */
/* Report */

static void say_table(lab_training *T, int s, const pol_stats *st)
{
    lab_ctx *L = T->L;
    const setting_plan *P = &T->set[s];
    char params[512];
    lab_train_describe(&job_at(T, s, 0, 0)->c, params, sizeof params);
    lab_say(L, "**Setting %s** (%s; data_seed is the first of the %d seeds):\n\n"
               "| policy | final loss | test accuracy %% (min–max) | vs fp32 | "
               "skipped steps | final scale | updates lost %% | w-grad zero | "
               "w-grad underflow | a-grad zero | a-grad underflow |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n",
            lab_setting_name(s), params, L->seeds);
    for (int p = 0; p < P->npol; p++) {
        const pol_stats *x = &st[p];
        char loss[64], scale[80];
        if (x->diverged)
            snprintf(loss, sizeof loss, "diverged (%d of %d seeds)", x->diverged,
                     L->seeds);
        else
            snprintf(loss, sizeof loss, "%.4g ± %.2g", x->loss_m, x->loss_s);
        char s1[32], s2[32];
        fmt_scale(s1, sizeof s1, x->scale_min);
        fmt_scale(s2, sizeof s2, x->scale_max);
        if (x->scale_min == x->scale_max)
            snprintf(scale, sizeof scale, "%s", s1);
        else
            snprintf(scale, sizeof scale, "%s–%s", s1, s2);
        char vs[80] = "-";
        if (p)
            cmp_acc(x, &st[0], L->seeds, vs, sizeof vs);
        lab_say(L, "| %s | %s | %.2f ± %.2f (%.2f–%.2f) | %s | %d | %s | %.2f ± %.2f | "
                   "%.2f%% | %.2f%% | %.2f%% | %.2f%% |\n",
                P->pols[p].name, loss, x->acc_m, x->acc_s, x->acc_min, x->acc_max, vs,
                x->skipped, scale, x->lost_m, x->lost_s, x->wzero, x->wuf, x->azero,
                x->auf);
    }
    lab_say(L, "\n*Final loss, test accuracy, updates lost*: mean ± sample standard "
               "deviation over the %d seeds.  *vs fp32*: test accuracy against "
               "binary32's by the rule above, with the mean per-seed difference "
               "(points) ± the half-width of its 95%% interval.  *Skipped steps*: summed over the "
               "seeds.  *Zero*: gradient values exactly zero as computed (where "
               "the layer's input is zero for the whole batch, or an upstream "
               "gradient underflowed); *underflow*: nonzero values that become zero "
               "when rounded into the target format (the compute format; binary16 "
               "for fp32, as a what-if) at the scale used; both are fractions of "
               "all gradient values over every step and layer, averaged over the "
               "seeds.\n\n", L->seeds);
}

static int bit_same(const run_job *a, const run_job *b)
{
    if (a->c.steps != b->c.steps || a->correct != b->correct)
        return 0;
    return !memcmp(a->loss, b->loss, (size_t)a->c.steps * sizeof *a->loss);
}

static void say_classic(lab_training *T, int s, const pol_stats *st)
{
    lab_ctx *L = T->L;
    char groups[600], stem[64];
    groups_vs_fp32(T, s, st, groups, sizeof groups);
    snprintf(stem, sizeof stem, "training_%s", lab_setting_name(s));
    int o3 = pidx(T, s, "o3"), gs = pidx(T, s, "fp16-torch"), i50 = pidx(T, s, "fp16-torch-i50");
    double dm, h;
    lab_figure(L, stem, "Training in the %s setting, %d seeds.  Small panels: each "
               "policy's training loss per step (mean over the seeds; band: smallest "
               "to largest) over binary32's (grey).  Bottom left: final test "
               "accuracy of every seed (dots) with mean ± standard deviation (bar).  "
               "Bottom right: the loss scale per step (first seed), skipped steps "
               "marked ×.  binary32 reaches %.2f ± %.2f%% test accuracy; by the "
               "rule, %s.  GradScaler skipped %d steps over the %d seeds (%d with "
               "growth interval 50).  Pure fp16 (o3) loses %.2f ± %.2f%% of its "
               "weight updates against binary32's %.2f ± %.2f%% (%s by the rule).",
               lab_setting_name(s), L->seeds, st[0].acc_m, st[0].acc_s, groups,
               st[gs].skipped, L->seeds, st[i50].skipped, st[o3].lost_m, st[o3].lost_s,
               st[0].lost_m, st[0].lost_s,
               cmp_word(lab_paired(st[o3].lost, st[0].lost, L->seeds, &dm, &h)));
}

static int say_tiny(lab_training *T, const pol_stats *st)
{
    lab_ctx *L = T->L;
    const int S = L->seeds, s = LAB_SETTING_TINY;
    /* binary32 with W and lr/W against W = 1 and lr: same seeds */
    int same = 1;
    double maxrel = 0;
    for (int k = 0; k < S; k++) {
        const run_job *a = job_at(T, LAB_SETTING_DEFAULT, 0, k), *b = job_at(T, s, 0, k);
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
        amp_range_stats_merge(&w16, &job_at(T, s, 0, k)->sw->w[K16]);
        amp_range_stats_merge(&a16, &job_at(T, s, 0, k)->sw->a[K16]);
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
               "(all seeds) would round to zero.\n\n",
            100 * frac(w16.underflow, live(&w16)), 100 * frac(a16.underflow, live(&a16)));
    char groups[600];
    groups_vs_fp32(T, s, st, groups, sizeof groups);
    const pol_stats *f32 = &st[pidx(T, s, "fp32")], *f16 = &st[pidx(T, s, "fp16")],
                    *gs = &st[pidx(T, s, "fp16-torch")];
    lab_say(L, "Measured: fp16 without scaling reaches %.2f ± %.2f%% test accuracy "
               "against binary32's %.2f ± %.2f%%; %.1f%% of its computed "
               "weight-gradient values are exactly zero (binary32: %.1f%%) and "
               "%.1f%% more underflow when rounded into binary16, and %.1f%% of its "
               "activation gradients are zero or underflow (binary32: %.1f%% zero).  "
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
                "fp16_first_nonfinite fp16torch_correct fp16torch_skipped\n");
    for (int i = 0; i < NSWEEP; i++)
        for (int k = 0; k < S; k++) {
            const run_job *a = sweep_at(T, i, 0, k), *b = sweep_at(T, i, 1, k);
            fprintf(fp, "%d %llu %ld %ld %.9g %d %ld %d\n", -sweep_k[i],
                    (unsigned long long)a->c.seed, a->correct, a->n_test, pn(a->loss_final),
                    a->first_nonfinite, b->correct, b->skipped);
        }
    fprintf(fp, "\n\n# block 1: the binary32 tiny runs' nonzero gradients (all seeds) "
                "that binary16 flushes to zero at S = 1 for loss weight W\n"
                "# columns: log2_W w_live w_underflow a_live a_underflow\n");
    double mw[NSWEEP][2][2];   /* [w][policy][mean, sd] */
    double aw[NSWEEP][2][64];   /* [w][policy][seed], in % */
    for (int i = 0; i < NSWEEP; i++) {
        amp_range_stats w, a;
        memset(&w, 0, sizeof w);
        memset(&a, 0, sizeof a);
        for (int k = 0; k < S; k++) {
            amp_range_stats_merge(&w, &job_at(T, s, 0, k)->sw->w[i]);
            amp_range_stats_merge(&a, &job_at(T, s, 0, k)->sw->a[i]);
        }
        fprintf(fp, "%d %llu %llu %llu %llu\n", -sweep_k[i], (unsigned long long)live(&w),
                (unsigned long long)w.underflow, (unsigned long long)live(&a),
                (unsigned long long)a.underflow);
        for (int p = 0; p < 2; p++) {
            for (int k = 0; k < S; k++) {
                const run_job *j = sweep_at(T, i, p, k);
                aw[i][p][k] = 100.0 * (double)j->correct / (double)j->n_test;
            }
            lab_mean_sd(aw[i][p], S, &mw[i][p][0], &mw[i][p][1]);
        }
    }
    fprintf(fp, "\n\n# block 2: test accuracy in %% over the seeds (binary32 "
                "reference: the tiny setting's fp32 runs)\n"
                "# columns: log2_W fp16_mean fp16_sd fp16torch_mean fp16torch_sd "
                "fp32_mean fp32_sd\n");
    for (int i = 0; i < NSWEEP; i++)
        fprintf(fp, "%d %.6f %.6f %.6f %.6f %.6f %.6f\n", -sweep_k[i], mw[i][0][0],
                mw[i][0][1], mw[i][1][0], mw[i][1][1], f32->acc_m, f32->acc_s);
    if (lab_data_end(L, fp))
        return -1;

    lab_say(L, "Loss-weight sweep (same model, lr 0.05/W, %d seeds; binary32 "
               "reference %.2f ± %.2f%%; the underflow columns are the binary32 runs' "
               "nonzero gradients that binary16 would flush to zero at S = 1):\n\n"
               "| W | weight grads underflowing | activation grads underflowing | "
               "fp16 accuracy %% | vs fp32 | GradScaler accuracy %% | vs fp32 | "
               "GradScaler skipped steps |\n|---|---|---|---|---|---|---|---|\n",
            S, f32->acc_m, f32->acc_s);
    char lower[200] = "", same_w[200] = "", higher[200] = "", gs_not[200] = "";
    for (int i = 0; i < NSWEEP; i++) {
        amp_range_stats w, a;
        memset(&w, 0, sizeof w);
        memset(&a, 0, sizeof a);
        int skipped = 0, div = 0;
        for (int k = 0; k < S; k++) {
            amp_range_stats_merge(&w, &job_at(T, s, 0, k)->sw->w[i]);
            amp_range_stats_merge(&a, &job_at(T, s, 0, k)->sw->a[i]);
            skipped += sweep_at(T, i, 1, k)->skipped;
            div += sweep_at(T, i, 0, k)->first_nonfinite != 0;
        }
        double dm, h;
        int c16 = lab_paired(aw[i][0], f32->acc, S, &dm, &h);
        char v16[80], vgs[80];
        snprintf(v16, sizeof v16, c16 == 2 ? "identical" : "%s (%+.2f ± %.2f)",
                 cmp_word(c16), dm, h);
        int cgs = lab_paired(aw[i][1], f32->acc, S, &dm, &h);
        snprintf(vgs, sizeof vgs, cgs == 2 ? "identical" : "%s (%+.2f ± %.2f)",
                 cmp_word(cgs), dm, h);
        char divs[48] = "";
        if (div)
            snprintf(divs, sizeof divs, ", diverged in %d", div);
        lab_say(L, "| 2^-%d | %.1f%% | %.1f%% | %.2f ± %.2f%s | %s | %.2f ± %.2f | %s | "
                   "%d |\n", sweep_k[i], 100 * frac(w.underflow, live(&w)),
                100 * frac(a.underflow, live(&a)), mw[i][0][0], mw[i][0][1], divs,
                v16, mw[i][1][0], mw[i][1][1], vgs, skipped);
        char *dst = c16 == -1 ? lower : c16 == 1 ? higher : same_w;
        size_t o = strlen(dst);
        snprintf(dst + o, 200 - o, "%s2^-%d", o ? ", " : "", sweep_k[i]);
        if (cgs == 1 || cgs == -1) {
            o = strlen(gs_not);
            snprintf(gs_not + o, sizeof gs_not - o, "%s2^-%d (%s)", o ? ", " : "",
                     sweep_k[i], cmp_word(cgs));
        }
    }
    lab_say(L, "\nBy the rule, fp16 without scaling is lower than binary32 at W = %s; "
               "identical or indistinguishable at W = %s%s%s.  GradScaler is %s%s.\n\n",
            lower[0] ? lower : "none of these", same_w[0] ? same_w : "none of these",
            higher[0] ? "; higher at W = " : "", higher,
            gs_not[0] ? "distinguishable from binary32 at W = " :
                        "identical to or indistinguishable from binary32 at every W",
            gs_not);
    char c16s[80], cgss[80];
    cmp_acc(f16, f32, S, c16s, sizeof c16s);
    cmp_acc(gs, f32, S, cgss, sizeof cgss);
    lab_figure(L, "training_tiny", "Training with loss weight 2^-16, %d seeds.  "
               "Small panels: each policy's training loss per step (mean over the "
               "seeds; band: smallest to largest) over binary32's (grey), and the "
               "loss-weight sweep (test accuracy, mean ± standard deviation, against "
               "W).  Bottom left: final test accuracy of every seed (dots) with mean "
               "± standard deviation (bar).  Bottom right: the loss scale per step "
               "(first seed), skipped steps marked ×.  fp16 without scaling %.2f ± "
               "%.2f%% against binary32's %.2f ± %.2f%%: %s by the rule; GradScaler "
               "%.2f ± %.2f%%: %s.",
               S, f16->acc_m, f16->acc_s, f32->acc_m, f32->acc_s,
               c16s, gs->acc_m, gs->acc_s, cgss);
    return 0;
}

static void say_adam(lab_training *T, const pol_stats *st)
{
    lab_ctx *L = T->L;
    const int S = L->seeds;
    const int s = LAB_SETTING_ADAM;
    const pol_stats *f32 = &st[pidx(T, s, "fp32")], *f16 = &st[pidx(T, s, "fp16")],
                    *o2 = &st[pidx(T, s, "o2")], *o3 = &st[pidx(T, s, "o3")],
                    *bf = &st[pidx(T, s, "bf16")], *bp = &st[pidx(T, s, "bf16-pure")];
    uint64_t nz = 0, vz = 0;
    for (int k = 0; k < S; k++) {
        nz += job_at(T, LAB_SETTING_ADAM, 0, k)->aw->nonzero;
        vz += job_at(T, LAB_SETTING_ADAM, 0, k)->aw->v_zero_m_not;
    }
    char o3s[700];
    if (o3->diverged) {
        char range[64];
        if (o3->fnf_min == o3->fnf_max)
            snprintf(range, sizeof range, "from step %d on", o3->fnf_min);
        else
            snprintf(range, sizeof range, "from a step between %d and %d on",
                     o3->fnf_min, o3->fnf_max);
        snprintf(o3s, sizeof o3s, "diverged in %d of %d seeds: its loss is non-finite "
                 "%s.  Of the binary32 runs' nonzero first-step weight gradients g "
                 "(all seeds), %.1f%% have Adam's second moment (1-b2)g^2 round to "
                 "zero in binary16 while the first moment (1-b1)g does not: with "
                 "o3's binary16 optimizer state, their update lr*m/(sqrt(v)+eps) is "
                 "divided by eps = 1e-8 alone", o3->diverged, S, range,
                 100 * frac(vz, nz));
    } else {
        snprintf(o3s, sizeof o3s, "ended at %.2f ± %.2f%% test accuracy", o3->acc_m,
                 o3->acc_s);
    }
    char groups[600];
    groups_vs_fp32(T, LAB_SETTING_ADAM, st, groups, sizeof groups);
    lab_say(L, "Measured: with Adam at lr 1e-4, binary32 reaches %.2f ± %.2f%% test "
               "accuracy (final loss %.4g ± %.2g).  bfloat16 weights without a master "
               "copy (bf16-pure) lose %.1f ± %.1f%% of their weight updates (w + dw == "
               "w in bfloat16) and reach %.2f ± %.2f%%; with binary32 weights (bf16 "
               "autocast) %.2f ± %.2f%%.  o2 (binary16 model, binary32 master "
               "weights) reaches %.2f ± %.2f%%, fp16 autocast %.2f ± %.2f%%; binary32 "
               "weights lose %.2f ± %.2f%% of their updates.  Pure fp16 (o3) %s.  By "
               "the rule, %s.\n\n",
            f32->acc_m, f32->acc_s, f32->loss_m, f32->loss_s, bp->lost_m, bp->lost_s,
            bp->acc_m, bp->acc_s, bf->acc_m, bf->acc_s, o2->acc_m, o2->acc_s, f16->acc_m,
            f16->acc_s, f32->lost_m, f32->lost_s, o3s, groups);
    char cbp[80];
    cmp_acc(bp, f32, S, cbp, sizeof cbp);
    lab_figure(L, "training_adam", "Training with Adam at lr 1e-4, %d seeds.  Small "
               "panels: each policy's training loss per step (mean over the seeds; "
               "band: smallest to largest) over binary32's (grey); a loss that turns "
               "non-finite is marked × at the first such step.  Bottom left: final "
               "test accuracy of every seed (dots) with mean ± standard deviation "
               "(bar).  Bottom right: fraction of weight updates lost per step (w + dw "
               "== w in the weight format: binary32 for fp32, fp16 and bf16, whose "
               "optimizers update binary32 weights, and for o2's master copy; mean "
               "over the seeds).  bf16-pure loses %.1f ± %.1f%% of its updates and "
               "reaches %.2f ± %.2f%%, binary32 %.2f ± %.2f%%: bf16-pure %s by the "
               "rule.",
               S, bp->lost_m, bp->lost_s, bp->acc_m, bp->acc_s, f32->acc_m, f32->acc_s,
               cbp);
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
    if (lab_parallel(L, T.njobs, run_job_exec, T.jobs))
        goto out;
    for (size_t i = 0; i < T.njobs; i++)
        if (T.jobs[i].rc) {
            snprintf(L->err, sizeof L->err, "training %s (seed %llu): %s",
                     T.jobs[i].name, (unsigned long long)T.jobs[i].c.seed,
                     T.jobs[i].err);
            goto out;
        }

    const run_job *j0 = job_at(&T, 0, 0, 0);
    /* the comparisons the section makes: every policy against binary32 in
     * each setting, o3's lost updates in the two controls, and two per
     * loss weight of the sweep */
    int ncmp = 2 + 2 * NSWEEP;
    for (int s = 0; s < NSETTING; s++)
        ncmp += T.set[s].npol - 1;
    lab_say(L, "Four settings of the same MLP on the digits (%ld training and %ld "
               "test images per split).  Every policy is trained with %d seeds, "
               "%llu to %llu; the seed sets the initialisation, the train/test split "
               "and the batch order, and every policy sees the same seeds.  "
               "**Rule:** two policies are compared seed by seed (the same seed gives "
               "both the same initialisation, split and batches): with d the per-seed "
               "difference of their test accuracies, a difference is called (*higher*, "
               "*lower*) only when the 95%% confidence interval of its mean, mean(d) ± "
               "t(0.975, n-1)·sd(d)/sqrt(n) with n = %d, excludes 0; otherwise they "
               "are *indistinguishable* at %d seeds, or *identical* when d = 0 in "
               "every seed.  Each comparison is at the 5%% level: among the %d "
               "comparisons of this section about %.1f would be called by chance if "
               "no policy differed from another.  *default* and *deep* are "
               "controls.  "
               "*tiny* makes every gradient 2^16 times smaller (loss weight "
               "W = 2^-16): the loss-scaling failure.  *adam* uses Adam at a "
               "fine-tuning learning rate: the lost-update failure.\n\n",
            j0->n_train, j0->n_test, L->seeds, (unsigned long long)L->seed,
            (unsigned long long)(L->seed + (uint64_t)L->seeds - 1), L->seeds, L->seeds,
            ncmp, 0.05 * ncmp);
    static const int order[NSETTING] = {LAB_SETTING_DEFAULT, LAB_SETTING_DEEP,
                                        LAB_SETTING_TINY, LAB_SETTING_ADAM};
    for (int oi = 0; oi < NSETTING; oi++) {
        int s = order[oi];
        pol_stats st[MAXPOL];
        for (int p = 0; p < T.set[s].npol; p++)
            st[p] = stats_of(&T, s, p);
        if (write_curves(&T, s) || write_seeds(&T, s, st))
            goto out;
        say_table(&T, s, st);
        if (s == LAB_SETTING_TINY) {
            if (say_tiny(&T, st))
                goto out;
        } else if (s == LAB_SETTING_ADAM) {
            say_adam(&T, st);
        } else {
            say_classic(&T, s, st);
        }
    }
    rc = 0;
out:
    for (size_t i = 0; i < T.njobs; i++)
        job_free(&T.jobs[i]);
    free(T.jobs);
    amp_dataset_free(&T.data);
    return rc;
}
