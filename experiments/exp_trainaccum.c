/*
 * exp_trainaccum.c — experiment 8: accumulation in training, binary16
 * against binary32 sums of the matrix products.
 *
 * The default setting's MLP (lab_train.h) trained under fp16 autocast,
 * without and with GradScaler, with its matrix products accumulated
 *  - in binary32 (every other policy of the lab);
 *  - in binary16, sequentially: every partial sum acc + a*b rounded once
 *    into binary16 (an fp16 FMA chain);
 *  - in H100 tensor-core blocks of 16 products (the truncating model of
 *    tensorcore.h), chained through binary32 or through binary16 (an MMA
 *    with fp16 accumulation);
 * on the same seeds as binary32.  Every matrix product's outputs are
 * compared with the same sum accumulated in binary32 and rounded once into
 * binary16 (amp_accum_stats): how many differ, by how many binary16
 * spacings, how many became zero or infinite.  The interaction with loss
 * scaling: the accuracy effect of binary16 accumulation without scaling
 * against its effect with GradScaler, seed by seed; and GradScaler's skipped
 * steps, which count overflows in the binary16 sums.
 *
 * Files: training_accum.dat, training_accum_seeds.dat (lab_pset),
 * trainaccum_tests.dat (the section's comparisons).
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"
#include "amp_tc.h"

/* Keep in step with plots/training_accum.gp (the audit checks it). */
static const struct {
    const char *name, *base;
    int acc;    /* 0 binary32, 1 binary16 sequential, 2 blocks acc32, 3 blocks acc16 */
} pols[] = {
    {"fp32", "fp32", 0},
    {"fp16", "fp16", 0},
    {"fp16-acc16", "fp16", 1},
    {"fp16-torch", "fp16-torch", 0},
    {"fp16-torch-acc16", "fp16-torch", 1},
    {"fp16-torch-tc32", "fp16-torch", 2},
    {"fp16-torch-tc16", "fp16-torch", 3},
};
enum { NPOL = sizeof pols / sizeof pols[0] };

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

int lab_exp_trainaccum(lab_ctx *L)
{
    lab_pset ps;
    lab_family F;
    amp_dataset data;
    memset(&ps, 0, sizeof ps);
    memset(&F, 0, sizeof F);
    memset(&data, 0, sizeof data);
    int rc = -1;
    const int S = L->seeds;
    if (S < 2 || S > 64 || !L->data_path) {
        snprintf(L->err, sizeof L->err, "trainaccum: %d seeds (need 2..64) or no data",
                 S);
        return -1;
    }
    char err[256];
    amp_train_config dc;
    amp_train_config_default(&dc);
    if (amp_dataset_read_csv(&data, L->data_path, dc.label_pos, dc.feature_scale, err,
                             sizeof err)) {
        snprintf(L->err, sizeof L->err, "trainaccum: %s", err);
        return -1;
    }
    ps.setting = "accum";
    ps.npol = NPOL;
    ps.seeds = S;
    for (int p = 0; p < NPOL; p++)
        ps.names[p] = pols[p].name;
    if (lab_pset_alloc(L, &ps))
        goto out;
    for (int p = 0; p < NPOL; p++)
        for (int k = 0; k < S; k++) {
            lab_run *j = lab_pset_run(&ps, p, k);
            if (lab_train_setting(L, &j->c, LAB_SETTING_DEFAULT, pols[p].base, err,
                                  sizeof err)) {
                snprintf(L->err, sizeof L->err, "trainaccum: %s", err);
                goto out;
            }
            amp_accum *a = &j->c.policy.accum;
            if (pols[p].acc == 1)
                a->kind = AMP_ACC_LOW;
            else if ((pols[p].acc == 2 && amp_accum_set_tc(a, "h100-fp16")) ||
                     (pols[p].acc == 3 && amp_accum_set_tc16(a, "h100-fp16"))) {
                snprintf(L->err, sizeof L->err, "trainaccum: no h100-fp16 model");
                goto out;
            }
            snprintf(j->c.policy.name, sizeof j->c.policy.name, "%s", pols[p].name);
            j->c.seed = L->seed + (uint64_t)k;
            j->c.measure = 1;
            j->name = pols[p].name;
            j->data = &data;
        }
    if (lab_pset_exec(L, &ps))
        goto out;
    lab_pset_stats(&ps);
    if (lab_pset_compare(&ps, &F))
        goto oom;
    /* binary16 against binary32 accumulation under the same scaling, and
     * the interaction: the effect without scaling minus the effect with */
    static const char *const pairs[][2] = {{"fp16-acc16", "fp16"},
                                           {"fp16-torch-acc16", "fp16-torch"},
                                           {"fp16-torch-tc32", "fp16-torch"},
                                           {"fp16-torch-tc16", "fp16-torch-tc32"}};
    int pc[4];
    for (int i = 0; i < 4; i++) {
        int a = lab_pset_index(&ps, pairs[i][0]), b = lab_pset_index(&ps, pairs[i][1]);
        char an[64], bn[64];
        snprintf(an, sizeof an, "accum:%s", pairs[i][0]);
        snprintf(bn, sizeof bn, "accum:%s", pairs[i][1]);
        if ((pc[i] = lab_family_add(&F, an, bn, LAB_M_ACC, ps.st[a].acc, ps.st[b].acc,
                                    ps.st[a].hash, ps.st[b].hash, S)) < 0)
            goto oom;
    }
    {
        const int u16 = lab_pset_index(&ps, "fp16-acc16"), u = lab_pset_index(&ps, "fp16"),
                  g16 = lab_pset_index(&ps, "fp16-torch-acc16"),
                  g = lab_pset_index(&ps, "fp16-torch");
        double d1[64], d2[64];
        uint64_t h1[64], h2[64];
        for (int k = 0; k < S; k++) {
            d1[k] = ps.st[u16].acc[k] - ps.st[u].acc[k];
            d2[k] = ps.st[g16].acc[k] - ps.st[g].acc[k];
            h1[k] = ps.st[u16].hash[k] ^ (ps.st[u].hash[k] * 3);
            h2[k] = ps.st[g16].hash[k] ^ (ps.st[g].hash[k] * 3);
        }
        if (lab_family_add(&F, "accum:effect-unscaled", "accum:effect-GradScaler", LAB_M_ACC,
                           d1, d2, h1, h2, S) < 0)
            goto oom;
    }
    lab_family_finish(&F);
    const int icmp = F.n - 1;

    char params[512];
    lab_train_describe(&lab_pset_run(&ps, 0, 0)->c, params, sizeof params);
    if (lab_pset_write(L, &ps, &F, params) ||
        lab_family_write_file(L, "trainaccum_tests.dat", &F, S))
        goto out;

    const lab_run *j0 = lab_pset_run(&ps, 0, 0);
    lab_say(L, "The default setting of experiment 6 (the MLP on the digits, %ld "
               "training and %ld test images per split), trained with %d seeds, %llu "
               "to %llu, under fp16 autocast without and with GradScaler, with the "
               "matrix products accumulated in binary32 (as every policy of "
               "experiment 6), in binary16 one product at a time (every partial sum "
               "rounded to nearest even into binary16), and in H100 tensor-core blocks "
               "of 16 products (products exact, aligned to the largest exponent with "
               "26 bits kept, the rest truncated) chained through binary32 or through "
               "binary16.  The longest sums here have 64 products (the batch, and the "
               "64 inputs of a layer).\n\n",
            j0->n_train, j0->n_test, S, (unsigned long long)L->seed,
            (unsigned long long)(L->seed + (uint64_t)S - 1));
    const lab_pset *sets[1] = {&ps};
    lab_say_policies(L, "What each policy does:", sets, 1);
    lab_family_say_rule(L, &F, S);
    lab_pset_say_table(L, &ps, &F, params);

    /* what binary16 accumulation did to the products' outputs */
    lab_say(L, "What the accumulation did to the matrix products' outputs, against the "
               "same sums accumulated in binary32 and rounded once into binary16 (every "
               "product of every step, forward and backward, all seeds):\n\n"
               "| policy | outputs | differ | mean distance when they differ "
               "(binary16 spacings) | largest distance | became zero | became "
               "infinite | skipped steps |\n|---|---|---|---|---|---|---|---|\n");
    double dfr[NPOL], mu[NPOL];
    for (int p = 0; p < NPOL; p++) {
        amp_accum_stats t;
        memset(&t, 0, sizeof t);
        for (int k = 0; k < S; k++) {
            const amp_accum_stats *a = &lab_pset_run(&ps, p, k)->accs;
            t.outputs += a->outputs;
            t.differ += a->differ;
            t.ulps += a->ulps;
            t.max_ulps = a->max_ulps > t.max_ulps ? a->max_ulps : t.max_ulps;
            t.nonfinite += a->nonfinite;
            t.zero += a->zero;
        }
        dfr[p] = 100.0 * frac(t.differ, t.outputs);
        mu[p] = frac(t.ulps, t.differ - t.nonfinite);
        if (!pols[p].acc)
            continue;
        lab_say(L, "| %s (`%s`) | %llu | %.2f%% | %.2f | %llu | %.3f%% | %llu | %d |\n",
                lab_policy_label(pols[p].name), pols[p].name,
                (unsigned long long)t.outputs, dfr[p], mu[p],
                (unsigned long long)t.max_ulps, 100.0 * frac(t.zero, t.outputs),
                (unsigned long long)t.nonfinite, ps.st[p].skipped);
    }
    const int iu16 = lab_pset_index(&ps, "fp16-acc16"), ig16 = lab_pset_index(&ps, "fp16-torch-acc16"),
              it32 = lab_pset_index(&ps, "fp16-torch-tc32"), it16 = lab_pset_index(&ps, "fp16-torch-tc16");
    lab_say(L, "\n*Distance*: the number of binary16 values between the output and the "
               "reference (ordinal distance), over the outputs that differ and are "
               "finite.  *Skipped steps*: GradScaler's, summed over the seeds (a step "
               "is skipped when a gradient is infinite or NaN, e.g. after a binary16 "
               "sum overflowed).\n\n");
    char verd[700], c[4][200], ci[200];
    lab_pset_verdicts(&ps, &F, verd, sizeof verd);
    for (int i = 0; i < 4; i++)
        lab_cmp_text(lab_family_get(&F, pc[i]), c[i], sizeof c[i]);
    lab_cmp_text(lab_family_get(&F, icmp), ci, sizeof ci);
    lab_say(L, "Measured: binary16 accumulated one product at a time changes %.2f%% of "
               "the outputs without loss scaling and %.2f%% with GradScaler (mean "
               "distance %.2f and %.2f spacings); in tensor-core blocks chained through "
               "binary16, %.2f%% (%.2f spacings); chained through binary32, the "
               "truncation alone changes %.2f%% (%.2f spacings).  Against binary32 "
               "accumulation under the same scaling, by the rule: fp16-acc16 against "
               "fp16 %s; fp16-torch-acc16 against fp16-torch %s; fp16-torch-tc32 "
               "against fp16-torch %s; fp16-torch-tc16 against fp16-torch-tc32 %s.  "
               "The effect of binary16 accumulation without scaling against its effect "
               "with GradScaler (the interaction, seed by seed): %s.  Against binary32 "
               "throughout, by the rule, %s.\n\n",
            dfr[iu16], dfr[ig16], mu[iu16], mu[ig16], dfr[it16], mu[it16], dfr[it32],
            mu[it32], c[0], c[1], c[2], c[3], ci, verd);
    /* Micikevicius et al.'s observation, by what the rule found */
    int low0 = lab_family_get(&F, pc[0])->verdict == LAB_V_LOWER,
        low1 = lab_family_get(&F, pc[1])->verdict == LAB_V_LOWER;
    if (low0 && low1)
        lab_say(L, "On this model binary16 accumulation lowers the test accuracy, with and "
                   "without loss scaling: Micikevicius et al.'s (2018) observation that "
                   "some networks need binary32 accumulation reproduces here.\n\n");
    else if (low0 || low1)
        lab_say(L, "On this model binary16 accumulation lowers the test accuracy only %s "
                   "loss scaling: Micikevicius et al.'s (2018) observation that some "
                   "networks need binary32 accumulation reproduces only there.\n\n",
                low0 ? "without" : "with");
    else
        lab_say(L, "On this model, with sums of at most 64 products, binary16 "
                   "accumulation does not lower the test accuracy by the rule, with or "
                   "without loss scaling: Micikevicius et al.'s (2018) observation that "
                   "some networks need binary32 accumulation to keep their accuracy does "
                   "not reproduce at this size; what it changes is in the outputs above.\n\n");
    char merged[300];
    lab_pset_merged(&ps, merged, sizeof merged);
    lab_figure(L, "training_accum", "Accumulation in training, %d seeds.  Small panels: "
               "each policy's training loss per step divided by binary32's in the same "
               "seed (geometric mean over the seeds; band: smallest to largest ratio; at "
               "1 the policy matches binary32).  Bottom left: each seed's test accuracy "
               "minus binary32's (dots) with the mean and its 95%% confidence interval "
               "(bar); dashed: the equivalence margin ±1 point; the label is the "
               "verdict.  Bottom right: the loss scale per step (first seed), skipped "
               "steps marked ×.  By the rule, %s%s%s.",
               S, verd, merged[0] ? "; bit-identical in every seed, merged: " : "", merged);
    rc = 0;
    goto out;
oom:
    snprintf(L->err, sizeof L->err, "trainaccum: out of memory");
out:
    lab_pset_free(&ps);
    lab_family_free(&F);
    amp_dataset_free(&data);
    return rc;
}
