/*
 * exp_trainlm.c — experiment 10: loss scaling in a character language model.
 *
 * A model a reader accepts as real, with the mechanisms that make real
 * models need a loss scale: a next-character model (Bengio et al.'s
 * neural n-gram: the one-hot codes of the previous `context` characters,
 * i.e. an embedding, then hidden layers, then a softmax over the
 * characters) on a text every Debian system ships (LAB_DEFAULT_TEXT, the
 * GPL), trained with Adam and a mean cross-entropy over the tokens of a
 * step gathered by gradient accumulation, as PyTorch does it: 8
 * micro-batches of 64 tokens, each one's mean loss divided by 8, so that
 * every per-token gradient carries the factor 1/512 of the mean.
 *
 * Policies: binary32, fp16 autocast without scaling, with GradScaler, and
 * bf16 autocast, on the same seeds.  Measured: the activation gradients
 * that the fp16 runs flush to zero, per layer; and, for the binary32 runs,
 * what a mean over more tokens would flush: a mean over 512 * 2^k tokens
 * multiplies every per-token gradient by 2^-k exactly (a power of two), so
 * the binary32 gradients times 2^-k, rounded into binary16 at scale 1, are
 * the gradients an unscaled fp16 backward pass would start from (the
 * gradients of this run's trajectory: a larger batch also changes the
 * trajectory, which this what-if leaves out).
 *
 * Files: training_lm.dat, training_lm_seeds.dat (lab_pset), trainlm_tests.dat,
 * trainlm_flush.dat.
 */
#include "lab.h"
#include "lab_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp.h"

/* Keep in step with plots/training_lm.gp (the audit checks it). */
static const char *const pols[] = {"fp32", "fp16", "fp16-torch", "bf16"};
enum { NPOL = sizeof pols / sizeof pols[0], DEPTH = 3, CONTEXT = 4, MICRO = 8,
       BATCH = 512 };
/* what-if: a mean over BATCH * 2^k tokens, k = 0, 2, ..., 22 */
enum { NK = 12 };
static int k_of(int i) { return 2 * i; }

typedef struct flush_watch {
    amp_range_stats a[DEPTH][NK];
} flush_watch;

static void watch_step(void *user, const amp_step_view *v)
{
    flush_watch *fw = user;
    for (int l = 0; l < v->layers && l < DEPTH; l++)
        for (int i = 0; i < NK; i++)
            amp_range_stats_add(&fw->a[l][i], &fl_binary16, v->agrad[l], v->agrad_n[l],
                                ldexpf(1.0f, -k_of(i)));
}

static uint64_t live(const amp_range_stats *s)
{
    return s->total - s->zero_fp32 - s->nonfinite;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void lm_config(lab_ctx *L, amp_train_config *c)
{
    c->depth = DEPTH;
    c->width = 64;
    c->activation = AMP_ACT_RELU;
    c->optimizer = AMP_OPT_ADAM;
    c->lr = 3e-3;
    c->batch = BATCH;
    c->micro_batches = MICRO;
    c->steps = L->quick ? 12 : 150;
    c->eval_every = L->quick ? 4 : 25;
    c->test_frac = 0.1;
    c->text_context = CONTEXT;
    c->data_path = L->text_path;
}

int lab_exp_trainlm(lab_ctx *L)
{
    lab_pset ps;
    lab_family F;
    amp_dataset data;
    flush_watch *fw = NULL;
    char *vocab = NULL;
    memset(&ps, 0, sizeof ps);
    memset(&F, 0, sizeof F);
    memset(&data, 0, sizeof data);
    int rc = -1;
    const int S = L->seeds;
    if (S < 2 || S > 64) {
        snprintf(L->err, sizeof L->err, "trainlm: %d seeds (need 2..64)", S);
        return -1;
    }
    if (!L->text_path) {
        snprintf(L->err, sizeof L->err, "trainlm: no text (give fplab lab --text FILE)");
        return -1;
    }
    char err[256];
    if (amp_dataset_from_text(&data, L->text_path, CONTEXT, &vocab, err, sizeof err)) {
        snprintf(L->err, sizeof L->err, "trainlm: %s", err);
        return -1;
    }
    ps.setting = "lm";
    ps.npol = NPOL;
    ps.seeds = S;
    for (int p = 0; p < NPOL; p++)
        ps.names[p] = pols[p];
    if (lab_pset_alloc(L, &ps) || !(fw = calloc((size_t)S, sizeof *fw)))
        goto oom;
    for (int p = 0; p < NPOL; p++)
        for (int k = 0; k < S; k++) {
            lab_run *j = lab_pset_run(&ps, p, k);
            amp_train_config_default(&j->c);
            if (amp_policy_parse(&j->c.policy, pols[p], err, sizeof err)) {
                snprintf(L->err, sizeof L->err, "trainlm: %s", err);
                goto out;
            }
            lm_config(L, &j->c);
            j->c.seed = L->seed + (uint64_t)k;
            j->c.measure = 1;
            j->name = pols[p];
            j->data = &data;
            if (p == 0) {
                j->c.on_step = watch_step;
                j->c.user = &fw[k];
            }
        }
    if (lab_pset_exec(L, &ps))
        goto out;
    lab_pset_stats(&ps);
    if (lab_pset_compare(&ps, &F))
        goto oom;
    lab_family_finish(&F);

    char params[512];
    lab_train_describe(&lab_pset_run(&ps, 0, 0)->c, params, sizeof params);
    if (lab_pset_write(L, &ps, &F, params) ||
        lab_family_write_file(L, "trainlm_tests.dat", &F, S))
        goto out;

    /* the flushed activation gradients: measured per run and layer, and the
     * binary32 runs' what-if */
    const int i16 = lab_pset_index(&ps, "fp16"), igs = lab_pset_index(&ps, "fp16-torch");
    FILE *fp = lab_data_begin(L, "trainlm_flush.dat",
                              "activation gradients flushed to zero in binary16",
                              "binary16 at the scale used (runs); binary16 at scale 1 of "
                              "the binary32 runs' gradients times 2^-k (what-if)",
                              "%s text=%s rows=%zu classes=%d seeds=%d tokens_per_step=%d",
                              params, L->text_path, data.n, data.classes, S, BATCH);
    if (!fp)
        goto out;
    fprintf(fp, "# block 0: per policy, seed and layer, the layer's output gradients over "
                "every step (range statistics at the scale used: against binary16 for "
                "binary32 compute, else the compute format)\n"
                "# columns: policy seed layer total zero nonfinite flushed\n");
    for (int p = 0; p < NPOL; p++)
        for (int k = 0; k < S; k++)
            for (int l = 0; l < DEPTH; l++) {
                const amp_range_stats *a = &lab_pset_run(&ps, p, k)->al[l];
                fprintf(fp, "%s %llu %d %llu %llu %llu %llu\n", pols[p],
                        (unsigned long long)(L->seed + (uint64_t)k), l,
                        (unsigned long long)a->total, (unsigned long long)a->zero_fp32,
                        (unsigned long long)a->nonfinite, (unsigned long long)a->underflow);
            }
    fprintf(fp, "\n\n# block 1: what-if, the binary32 runs (all seeds, every step): a "
                "mean over tokens_per_step * 2^k tokens; nonzero output gradients of the "
                "layer and those binary16 flushes at scale 1\n"
                "# columns: k tokens layer live flushed\n");
    for (int i = 0; i < NK; i++)
        for (int l = 0; l < DEPTH; l++) {
            amp_range_stats t;
            memset(&t, 0, sizeof t);
            for (int k = 0; k < S; k++)
                amp_range_stats_merge(&t, &fw[k].a[l][i]);
            fprintf(fp, "%d %.17g %d %llu %llu\n", k_of(i), ldexp(BATCH, k_of(i)), l,
                    (unsigned long long)live(&t), (unsigned long long)t.underflow);
        }
    if (lab_data_end(L, fp))
        goto out;

    const lab_run *j0 = lab_pset_run(&ps, 0, 0);
    lab_say(L, "A next-character model on a text every Debian system ships (`%s`, the "
               "GPL version 3 from base-files): letters lower-cased and whitespace runs "
               "made one space, %d distinct characters; each of its %zu positions after "
               "the first %d is a row, the one-hot codes of the %d characters before it "
               "(a linear layer on them is an embedding) and the character to predict "
               "(%ld training and %ld held-out rows per split).  The model: %d linear "
               "layers of width 64 with ReLU, a softmax over the characters, Adam at lr "
               "3e-3, He initialisation.  Each step averages the cross-entropy over %d "
               "tokens gathered by gradient accumulation as PyTorch does it (%d "
               "micro-batches of %d, each one's mean loss divided by %d), so every "
               "per-token gradient carries the factor 1/%d; %d seeds, %llu to %llu.\n\n",
            L->text_path, data.classes, data.n, CONTEXT, CONTEXT, j0->n_train, j0->n_test,
            DEPTH, BATCH, MICRO, BATCH / MICRO, MICRO, BATCH, S, (unsigned long long)L->seed,
            (unsigned long long)(L->seed + (uint64_t)S - 1));
    const lab_pset *sets[1] = {&ps};
    lab_say_policies(L, "What each policy does:", sets, 1);
    lab_family_say_rule(L, &F, S);
    lab_pset_say_table(L, &ps, &F, params);

    /* per layer: the fp16 runs' flushed fraction, GradScaler's */
    uint64_t lv[2][DEPTH], fl[2][DEPTH], lvt[2] = {0, 0}, flt[2] = {0, 0};
    for (int q = 0; q < 2; q++)
        for (int l = 0; l < DEPTH; l++) {
            lv[q][l] = fl[q][l] = 0;
            for (int k = 0; k < S; k++) {
                const amp_range_stats *a = &lab_pset_run(&ps, q ? igs : i16, k)->al[l];
                lv[q][l] += live(a);
                fl[q][l] += a->underflow;
            }
            lvt[q] += lv[q][l];
            flt[q] += fl[q][l];
        }
    char verd[700];
    lab_pset_verdicts(&ps, &F, verd, sizeof verd);
    lab_say(L, "Measured: without loss scaling the fp16 runs flush %.2f%% of their "
               "nonzero activation gradients to zero (all seeds, every step): %.2f%%, "
               "%.2f%% and %.2f%% in the outputs of layers 1, 2 and 3 (layer 3's are the "
               "logits' gradients (p - onehot)/%d, smallest for the characters the model "
               "rules out); with GradScaler %.2f%%.  By the rule, %s.\n\n",
            pct(flt[0], lvt[0]), pct(fl[0][0], lv[0][0]), pct(fl[0][1], lv[0][1]),
            pct(fl[0][2], lv[0][2]), BATCH, pct(flt[1], lvt[1]), verd);

    /* the what-if table */
    lab_say(L, "What a mean over more tokens per step would flush: the binary32 runs' "
               "nonzero activation gradients times 2^-k (a mean over %d·2^k tokens), "
               "rounded into binary16 without scaling (all seeds, every step):\n\n"
               "| k | tokens per step | layer 1 | layer 2 | layer 3 (logits) | all |\n"
               "|---|---|---|---|---|---|\n", BATCH);
    double all[NK];
    int half_k = -1;
    for (int i = 0; i < NK; i++) {
        uint64_t tl = 0, tf = 0;
        double f[DEPTH];
        for (int l = 0; l < DEPTH; l++) {
            amp_range_stats t;
            memset(&t, 0, sizeof t);
            for (int k = 0; k < S; k++)
                amp_range_stats_merge(&t, &fw[k].a[l][i]);
            f[l] = pct(t.underflow, live(&t));
            tl += live(&t);
            tf += t.underflow;
        }
        all[i] = pct(tf, tl);
        if (half_k < 0 && all[i] > 50.0)
            half_k = i;
        lab_say(L, "| %d | %.0f | %.2f%% | %.2f%% | %.2f%% | %.2f%% |\n", k_of(i),
                ldexp(BATCH, k_of(i)), f[0], f[1], f[2], all[i]);
    }
    lab_say(L, "\n");
    /* Micikevicius et al. (2018): without loss scaling fp16 flushes most of
     * the nonzero activation gradients (their SSD network: 31% of all values
     * flushed against 5.3% kept); here, by the measured fraction */
    double f16all = pct(flt[0], lvt[0]);
    const lab_cmp *c16 = lab_family_get(&F, ps.cmp[ps.rep[i16]]);
    char c16s[200];
    lab_cmp_text(c16, c16s, sizeof c16s);
    if (f16all > 50.0)
        lab_say(L, "Micikevicius et al. (2018) found that without loss scaling fp16 "
                   "flushes most of the nonzero activation gradients of their SSD "
                   "network; here it flushes %.2f%%: that reproduces.  Test accuracy of "
                   "fp16 without scaling against binary32: %s.\n\n", f16all, c16s);
    else if (half_k >= 0)
        lab_say(L, "Micikevicius et al. (2018) found that without loss scaling fp16 "
                   "flushes most of the nonzero activation gradients of their SSD "
                   "network; at %d tokens per step this model's fp16 runs flush %.2f%%: "
                   "that does not reproduce here.  Test accuracy of fp16 without scaling "
                   "against binary32: %s.  In the binary32 runs' what-if, more than half "
                   "would flush from a mean over %.0f tokens per step (k = %d) on; "
                   "experiment 6's *tiny* setting (loss weight 2^-16 over batches of 64) "
                   "gives every per-token gradient the factor 2^-22 of a mean over 2^22 = "
                   "4194304 tokens: it tests what that does to training.\n\n",
                BATCH, f16all, c16s, ldexp(BATCH, k_of(half_k)), k_of(half_k));
    else
        lab_say(L, "Micikevicius et al. (2018) found that without loss scaling fp16 "
                   "flushes most of the nonzero activation gradients of their SSD "
                   "network; at %d tokens per step this model's fp16 runs flush %.2f%%, "
                   "and even a mean over %.0f tokens would flush at most %.2f%%: that "
                   "does not reproduce here.  Test accuracy of fp16 without scaling "
                   "against binary32: %s.\n\n", BATCH, f16all, ldexp(BATCH, k_of(NK - 1)),
                all[NK - 1], c16s);
    char merged[300];
    lab_pset_merged(&ps, merged, sizeof merged);
    lab_figure(L, "training_lm", "The character language model, %d seeds.  Small panels: "
               "each policy's training loss per step divided by binary32's in the same "
               "seed (geometric mean over the seeds; band: smallest to largest ratio; at "
               "1 the policy matches binary32).  Bottom left: each seed's test accuracy "
               "minus binary32's (dots) with the mean and its 95%% confidence interval "
               "(bar); dashed: the equivalence margin ±1 point; the label is the "
               "verdict.  Bottom right: the loss scale per step (first seed), skipped "
               "steps marked ×.  By the rule, %s%s%s.",
               S, verd, merged[0] ? "; bit-identical in every seed, merged: " : "", merged);
    lab_figure(L, "trainlm_flush", "Activation gradients flushed to zero by binary16 "
               "without loss scaling, per layer, against the tokens a step averages "
               "over: lines, the binary32 runs' gradients times 2^-k (%d·2^k tokens); "
               "crosses, what the fp16 runs without scaling flushed at %d tokens.  "
               "Dashed: %.2f%% of all nonzero activation gradients flushed by the fp16 "
               "runs.", BATCH, BATCH, f16all);
    rc = 0;
    goto out;
oom:
    snprintf(L->err, sizeof L->err, "trainlm: out of memory");
out:
    lab_pset_free(&ps);
    lab_family_free(&F);
    amp_dataset_free(&data);
    free(fw);
    free(vocab);
    return rc;
}
