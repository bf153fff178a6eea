/*
 * exp_training.c — experiment 6: training curves per precision policy.
 *
 * The MLP on the digits under each policy (same seed, same batches), in
 * the DEFAULT and the DEEP setting (lab_train.h): loss, test accuracy,
 * loss scale and skipped steps per step, and the fraction of weight
 * updates lost.  "fp16-torch-i50" is GradScaler with growth_interval 50
 * instead of 2000, so that the scale's growth and back-off show within a
 * short run.
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"

/* Keep this list in step with plots/training_*.gp. */
static const char *const policies[] = {"fp32", "fp16", "fp16-static:1024",
                                       "fp16-torch", "fp16-torch-i50", "o2", "o3",
                                       "bf16"};
enum { NPOL = sizeof policies / sizeof policies[0] };

typedef struct pol_summary {
    double loss, acc, scale, lost_frac;
    int skipped, diverged;
} pol_summary;

static int run_setting(lab_ctx *L, int setting)
{
    char name[64], params[512] = "";
    snprintf(name, sizeof name, "training_%s.dat", lab_setting_name(setting));
    pol_summary sum[NPOL];
    FILE *fp = NULL;
    for (int p = 0; p < NPOL; p++) {
        amp_train_config c;
        char err[256];
        int i50 = !strcmp(policies[p], "fp16-torch-i50");
        if (lab_train_setting(L, &c, setting, i50 ? "fp16-torch" : policies[p], err,
                              sizeof err)) {
            snprintf(L->err, sizeof L->err, "training %s: %s", policies[p], err);
            return -1;
        }
        if (i50)
            c.policy.scaler.growth_interval = 50;
        if (!fp) {
            lab_train_describe(&c, params, sizeof params);
            fp = lab_data_begin(L, name, "training curves per precision policy",
                                "policies: fp32 fp16 fp16-static:1024 fp16-torch "
                                "fp16-torch-i50 o2 o3 bf16",
                                "setting=%s %s eval_every=%d", lab_setting_name(setting),
                                params, c.eval_every);
            if (!fp)
                return -1;
            fprintf(fp, "# one block per policy, in the order above\n# columns: step "
                        "loss scale_used skipped_so_far lost_update_fraction "
                        "test_accuracy(nan when not evaluated)\n");
        }
        amp_train_result r;
        memset(&r, 0, sizeof r);
        if (amp_train_run(&c, &r, err, sizeof err)) {
            snprintf(L->err, sizeof L->err, "training %s: %s", policies[p], err);
            amp_train_result_free(&r);
            return -1;
        }
        fprintf(fp, "%s# policy %s\n", p ? "\n\n" : "", policies[p]);
        int skipped = 0;
        uint64_t upd = 0, lost = 0;
        for (int s = 0; s < r.steps; s++) {
            const amp_step_record *q = &r.rec[s];
            skipped += q->skipped;
            upd += q->updates;
            lost += q->lost;
            fprintf(fp, "%d %.9g %.9g %d %.6f %.6f\n", q->step + 1, q->loss,
                    q->scale_used, skipped,
                    q->updates ? (double)q->lost / (double)q->updates : 0.0,
                    q->test_acc);
        }
        sum[p].loss = r.final_loss;
        sum[p].acc = r.final_test_acc;
        sum[p].scale = r.steps ? r.rec[r.steps - 1].scale_after : 1;
        sum[p].lost_frac = upd ? (double)lost / (double)upd : 0;
        sum[p].skipped = r.skipped_steps;
        sum[p].diverged = r.diverged;
        amp_train_result_free(&r);
    }
    if (lab_data_end(L, fp))
        return -1;

    lab_say(L, "**Setting %s** (%s):\n\n| policy | final loss | test accuracy | "
               "skipped steps | final scale | updates lost |\n|---|---|---|---|---|---|\n",
            lab_setting_name(setting), params);
    for (int p = 0; p < NPOL; p++)
        lab_say(L, "| %s | %.4g%s | %.2f%% | %d | %g | %.2f%% |\n", policies[p],
                sum[p].loss, sum[p].diverged ? " (diverged)" : "", 100 * sum[p].acc,
                sum[p].skipped, sum[p].scale, 100 * sum[p].lost_frac);
    lab_say(L, "\n");
    /* name the spread: best and worst accuracy */
    int bi = 0, wi = 0;
    for (int p = 1; p < NPOL; p++) {
        if (sum[p].acc > sum[bi].acc)
            bi = p;
        if (sum[p].acc < sum[wi].acc)
            wi = p;
    }
    char stem[64];
    snprintf(stem, sizeof stem, "training_%s", lab_setting_name(setting));
    lab_figure(L, stem, "Training curves in the %s setting: loss, test accuracy "
               "(every %d steps), loss scale and cumulative skipped steps per "
               "policy.  fp32 reaches %.2f%% test accuracy; plain fp16 (no scaling) "
               "%.2f%%; GradScaler %.2f%% with %d skipped steps (%d with growth "
               "interval 50); pure fp16 (o3) %.2f%%, losing %.2f%% of its weight "
               "updates against %.2f%% for fp32; best %s %.2f%%, worst %s %.2f%%.",
               lab_setting_name(setting), L->quick ? 6 : 25, 100 * sum[0].acc,
               100 * sum[1].acc, 100 * sum[3].acc, sum[3].skipped, sum[4].skipped,
               100 * sum[6].acc, 100 * sum[6].lost_frac, 100 * sum[0].lost_frac,
               policies[bi], 100 * sum[bi].acc, policies[wi], 100 * sum[wi].acc);
    return 0;
}

int lab_exp_training(lab_ctx *L)
{
    if (run_setting(L, LAB_SETTING_DEFAULT) || run_setting(L, LAB_SETTING_DEEP))
        return -1;
    return 0;
}
