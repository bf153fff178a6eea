/*
 * test_amp_train.c — short training runs: bit-for-bit reproducibility from
 * the seed, learning, overflow -> skip -> backoff, the rank OR-reduction,
 * gradient underflow of naive fp16, lost updates without master
 * weights, and the loss weight (lr/W undoes it in binary32; at 2^-16 naive
 * fp16 loses gradients that GradScaler keeps); the optimizer state's
 * format (o3's binary16 Adam v flushes, binary32 state does not),
 * stochastic rounding of the update (the expectation and the stream),
 * gradient accumulation over micro-batches, binary16 accumulation of
 * products (sequential and tensor-core blocks) with its counts, and the
 * next-character data set from a text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp.h"
#include "amp_tc.h"
#include "test_check.h"

static int n_cases;
static amp_dataset data;

static void config(amp_train_config *c, const char *policy)
{
    char err[256];
    amp_train_config_default(c);
    ck_assert_int_eq(amp_policy_parse(&c->policy, policy, err, sizeof err), 0);
    c->depth = 2;
    c->width = 16;
    c->batch = 32;
    c->steps = 30;
    c->seed = 7;
}

/* Run on the already loaded digits; records in r (caller frees). */
static void run(const amp_train_config *c, amp_step_record *rec,
                amp_layer_record *lay, double *acc)
{
    char err[256];
    amp_trainer *t = amp_trainer_create(c, &data, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    for (int s = 0; s < c->steps; s++)
        amp_trainer_step(t, &rec[s], lay ? lay + (size_t)s * c->depth : NULL);
    *acc = amp_trainer_test_accuracy(t);
    amp_trainer_free(t);
}

START_TEST(same_seed_same_bits)
{
    amp_train_config c;
    config(&c, "fp16-torch");
    static amp_step_record a[30], b[30];
    double acc_a, acc_b;
    run(&c, a, NULL, &acc_a);
    run(&c, b, NULL, &acc_b);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    ck_assert(acc_a == acc_b);
    c.seed = 8;
    run(&c, b, NULL, &acc_b);
    ck_assert(memcmp(a, b, sizeof a) != 0);
    n_cases += 3;
}
END_TEST

START_TEST(fp32_and_fp16_learn)
{
    static const char *const pol[] = {"fp32", "fp16-torch", "bf16", "o2"};
    for (int i = 0; i < 4; i++) {
        amp_train_config c;
        config(&c, pol[i]);
        c.steps = 150;
        static amp_step_record r[150];
        double acc;
        run(&c, r, NULL, &acc);
        ck_assert_msg(acc > 0.85, "%s: accuracy %g", pol[i], acc);
        ck_assert_msg(r[149].loss < r[0].loss / 4, "%s: loss %g -> %g",
                      pol[i], r[0].loss, r[149].loss);
        n_cases++;
    }
}
END_TEST

/* A scale of 2^40 overflows fp16 at once: GradScaler skips and halves
 * until the gradients fit, and skipped steps leave the weights alone. */
START_TEST(overflow_skips_and_backs_off)
{
    for (int ranks = 1; ranks <= 4; ranks *= 4) {
        amp_train_config c;
        config(&c, "fp16-torch");
        c.policy.scaler.init_scale = 0x1p40;
        c.ranks = ranks;
        static amp_step_record r[30];
        double acc;
        run(&c, r, NULL, &acc);
        int skipped = 0, first_ok = -1;
        for (int s = 0; s < 30; s++) {
            ck_assert_int_eq(r[s].skipped, r[s].rank_inf != 0);
            if (r[s].skipped) {
                skipped++;
                ck_assert(r[s].scale_after == r[s].scale_used * 0.5f);
                ck_assert_uint_eq(r[s].updates, 0);
            } else if (first_ok < 0) {
                first_ok = s;
            }
            if (s > 0)
                ck_assert(r[s].scale_used == r[s - 1].scale_after);
        }
        /* every step before the first clean one was skipped; a later
         * overflow may skip again as the gradients grow */
        ck_assert_msg(first_ok >= 10 && skipped >= first_ok,
                      "ranks %d: %d skipped, first clean step %d", ranks,
                      skipped, first_ok);
        ck_assert(r[first_ok].scale_used <= 0x1p30f);
        n_cases++;
    }
}
END_TEST

/* Naive fp16 (no scaling), mean loss over a large batch, late training:
 * the logit gradients fall below fp16's range; GradScaler's 2^16 keeps
 * them. */
START_TEST(naive_fp16_underflows)
{
    double uf[2];
    static const char *const pol[] = {"fp16", "fp16-torch"};
    for (int i = 0; i < 2; i++) {
        amp_train_config c;
        config(&c, pol[i]);
        c.depth = 3;
        c.width = 32;
        c.batch = 256;
        c.steps = 60;
        c.measure = 1;
        static amp_step_record r[60];
        static amp_layer_record lay[60 * 3];
        double acc;
        run(&c, r, lay, &acc);
        const amp_range_stats *a = &lay[59 * 3 + 2].agrad;
        uf[i] = (double)a->underflow / (double)a->total;
        printf("%s: last-layer output-gradient underflow %.4f at step 60\n",
               pol[i], uf[i]);
    }
    ck_assert_msg(uf[0] > 0.05, "fp16 underflow only %g", uf[0]);
    ck_assert_msg(uf[1] < uf[0] / 10, "scaled underflow %g", uf[1]);
    n_cases += 2;
}
END_TEST

/* Updating fp16 weights directly (o3) loses far more updates than the
 * binary32 weights of autocast. */
START_TEST(lost_updates_without_master)
{
    double frac[2];
    static const char *const pol[] = {"o3", "fp16"};
    for (int i = 0; i < 2; i++) {
        amp_train_config c;
        config(&c, pol[i]);
        c.steps = 100;
        static amp_step_record r[100];
        double acc;
        run(&c, r, NULL, &acc);
        uint64_t lost = 0, upd = 0;
        for (int s = 50; s < 100; s++) {
            lost += r[s].lost;
            upd += r[s].updates;
        }
        frac[i] = (double)lost / (double)upd;
        printf("%s: %.4f of updates lost in steps 50..99\n", pol[i], frac[i]);
    }
    ck_assert(frac[0] > 2 * frac[1]);
    n_cases++;
}
END_TEST

/* The loss weight W multiplies every gradient; with SGD, lr/W undoes it.
 * In binary32 a power of two W changes no bit of the loss curve; W = 1e-3
 * (not a power of two) changes it only by rounding. */
START_TEST(loss_weight_with_lr_over_w)
{
    amp_train_config c;
    config(&c, "fp32");
    static amp_step_record ref[30], r[30];
    double acc_ref, acc;
    run(&c, ref, NULL, &acc_ref);
    ck_assert_msg(ref[29].loss < ref[0].loss * 0.7, "reference run does not learn: %g -> %g",
                  ref[0].loss, ref[29].loss);
    c.loss_weight = 0x1p-12;
    c.lr = 0.05 / c.loss_weight;
    run(&c, r, NULL, &acc);
    for (int s = 0; s < 30; s++)
        ck_assert_msg(r[s].loss == ref[s].loss, "W = 2^-12, step %d: %a vs %a", s,
                      r[s].loss, ref[s].loss);
    ck_assert(acc == acc_ref);
    n_cases++;
    c.loss_weight = 1e-3;
    c.lr = 0.05 / c.loss_weight;
    run(&c, r, NULL, &acc);
    double maxrel = 0;
    for (int s = 0; s < 30; s++) {
        double d = fabs((double)r[s].loss - (double)ref[s].loss) / (double)ref[s].loss;
        maxrel = d > maxrel ? d : maxrel;
    }
    printf("loss weight 1e-3, lr 50: largest relative loss difference %.3g\n", maxrel);
    ck_assert_msg(maxrel < 1e-5, "W = 1e-3: relative loss difference %g", maxrel);
    n_cases++;
    /* without lr/W the weight is felt: W = 2^-12 at lr 0.05 barely moves */
    c.loss_weight = 0x1p-12;
    c.lr = 0.05;
    run(&c, r, NULL, &acc);
    ck_assert_msg(r[29].loss > 0.9f * r[0].loss && r[29].loss > 1.5f * ref[29].loss,
                  "W = 2^-12 at lr 0.05: loss %g -> %g (W = 1: %g)", r[0].loss,
                  r[29].loss, ref[29].loss);
    n_cases++;
}
END_TEST

/* Loss weight 2^-16 (30 early steps of a small net): without a loss scale
 * many more fp16 weight-gradient values come out zero or underflow than
 * binary32's exact zeros; GradScaler's 2^16 leaves none underflowing and
 * binary32's zeros. */
START_TEST(loss_weight_underflow_needs_scaling)
{
    static const char *const pol[] = {"fp32", "fp16", "fp16-torch"};
    double zero[3], wuf[3], auf[3];
    for (int i = 0; i < 3; i++) {
        amp_train_config c;
        config(&c, pol[i]);
        c.loss_weight = 0x1p-16;
        c.lr = 0.05 / c.loss_weight;
        c.measure = 1;
        static amp_step_record r[30];
        static amp_layer_record lay[30 * 2];
        double acc;
        run(&c, r, lay, &acc);
        uint64_t z = 0, tot = 0, az = 0, au = 0, at = 0, wu = 0;
        for (int k = 0; k < 30 * 2; k++) {
            z += lay[k].wgrad.zero_fp32;
            wu += lay[k].wgrad.underflow;
            tot += lay[k].wgrad.total;
            az += lay[k].agrad.zero_fp32;
            au += lay[k].agrad.underflow;
            at += lay[k].agrad.total;
        }
        zero[i] = (double)z / (double)tot;
        wuf[i] = (double)wu / (double)tot;
        auf[i] = (double)(az + au) / (double)at;
        printf("%s, W = 2^-16: weight gradients %.4f zero, %.4f underflow; "
               "activation gradients %.4f zero or underflow\n", pol[i], zero[i],
               wuf[i], auf[i]);
    }
    ck_assert_msg(zero[1] + wuf[1] > zero[0] + 0.1 && auf[1] > 0.1,
                  "fp16: %g + %g vs fp32 zeros %g; activations %g", zero[1], wuf[1],
                  zero[0], auf[1]);
    ck_assert_msg(wuf[2] == 0 && auf[2] == 0 && fabs(zero[2] - zero[0]) < 0.01,
                  "GradScaler: underflow %g %g, zeros %g vs fp32 %g", wuf[2], auf[2],
                  zero[2], zero[0]);
    n_cases += 2;
}
END_TEST


/* Adam's first step with binary16 state (o3): v = (1-b2) g^2 flushes to
 * zero while m does not for many weights, and the update is then divided
 * by eps alone; the same run with only the state in binary32 has none. */
START_TEST(adam_state_format)
{
    amp_train_config c;
    config(&c, "o3");
    c.optimizer = AMP_OPT_ADAM;
    c.lr = 1e-4;
    c.steps = 1;
    amp_step_record r[1];
    double acc;
    run(&c, r, NULL, &acc);
    printf("o3 adam step 1: v flushed with m nonzero for %llu of %llu updates, "
           "max |dw| %g\n", (unsigned long long)r[0].v_zero,
           (unsigned long long)r[0].updates, (double)r[0].max_dw);
    ck_assert(r[0].v_zero > 0);
    ck_assert(r[0].max_dw > 1.0f);       /* lr m^ / eps, not ~lr */
    c.policy.state = &fl_binary32;
    run(&c, r, NULL, &acc);
    ck_assert_uint_eq(r[0].v_zero, 0);
    ck_assert(r[0].max_dw <= 2e-4f);     /* Adam's step is about lr */
    n_cases += 4;
}
END_TEST

/* Stochastic rounding of w + dw: 1 + 2^-12 in binary16 (a quarter of the
 * spacing 2^-10 above 1) rounds up with probability 1/4; the draws are a
 * pure function of (seed, index), so a split call gives the same bits. */
START_TEST(update_stochastic_rounding)
{
    enum { N = 20000 };
    static float w[N], dw[N], out[N], out2[N];
    for (int i = 0; i < N; i++) {
        w[i] = 1.0f;
        dw[i] = 0x1p-12f;
    }
    fl_ctx ctx = fl_ctx_make(FL_RSR);
    ctx.sr_seed = 12345;
    ctx.sr_index = 77;
    amp_add_round_ctx(&fl_binary16, out, w, dw, N, &ctx, NULL);
    int up = 0, other = 0;
    for (int i = 0; i < N; i++) {
        up += out[i] == 1.0f + 0x1p-10f;
        other += out[i] != 1.0f && out[i] != 1.0f + 0x1p-10f;
    }
    double p = (double)up / N, se = sqrt(0.25 * 0.75 / N);
    printf("SR 1 + 2^-12 in binary16: %d of %d up (%.4f, expected 0.25 +- %.4f)\n",
           up, N, p, se);
    ck_assert_int_eq(other, 0);
    ck_assert(fabs(p - 0.25) < 5 * se);
    /* split at 300: the second call starts at index 77 + 300 */
    amp_add_round_ctx(&fl_binary16, out2, w, dw, 300, &ctx, NULL);
    fl_ctx c2 = ctx;
    c2.sr_index += 300;
    amp_add_round_ctx(&fl_binary16, out2 + 300, w + 300, dw + 300, N - 300, &c2, NULL);
    ck_assert(memcmp(out, out2, sizeof out) == 0);
    /* round to nearest takes the quarter spacing back every time */
    amp_add_round_ctx(&fl_binary16, out2, w, dw, N, NULL, NULL);
    for (int i = 0; i < N; i++)
        ck_assert(out2[i] == 1.0f);
    n_cases += 4;
}
END_TEST

/* Gradient accumulation: K micro-batches of B/K rows, each loss / K, give
 * in binary32 the batch's loss (up to rounding) and train; the default
 * K = 1 run is unchanged. */
START_TEST(micro_batches)
{
    amp_train_config c;
    config(&c, "fp32");
    c.batch = 64;
    static amp_step_record a[30], b[30];
    double acc_a, acc_b;
    run(&c, a, NULL, &acc_a);
    c.micro_batches = 4;
    run(&c, b, NULL, &acc_b);
    ck_assert(fabsf(a[0].loss - b[0].loss) <= 1e-5f * fabsf(a[0].loss));
    double d = 0;
    for (int s = 0; s < 30; s++)
        d = fmax(d, fabs((double)a[s].loss - (double)b[s].loss) / fabs((double)a[s].loss));
    printf("micro-batches 4 vs 1: largest relative loss difference %g, accuracy "
           "%.4f vs %.4f\n", d, acc_b, acc_a);
    ck_assert(d < 1e-3);
    c.micro_batches = 3;   /* does not divide 64 */
    char err[256];
    ck_assert(amp_trainer_create(&c, &data, err, sizeof err) == NULL);
    ck_assert(strstr(err, "micro-batches") != NULL);
    n_cases += 3;
}
END_TEST

/* Binary16 accumulation: 40000 products 1 * 1.  Sequentially the sum
 * stops at 2048 (2048 + 1 rounds back to it); in H100 blocks of 16
 * chained through binary16 at 32768 (32768 + 16 is a tie, to even); in
 * blocks chained through binary32 the sum is exact.  The counts compare
 * each with the binary32 sum rounded into binary16 (40000). */
START_TEST(binary16_accumulation)
{
    enum { K = 40000 };
    static float ones[K];
    for (int i = 0; i < K; i++)
        ones[i] = 1.0f;
    amp_accum_stats st;
    amp_accum a;
    memset(&a, 0, sizeof a);
    a.kind = AMP_ACC_LOW;
    memset(&st, 0, sizeof st);
    a.stats = &st;
    float r = amp_dot(&a, &fl_binary16, ones, 1, ones, 1, K, NULL);
    ck_assert(r == 2048.0f);
    ck_assert_uint_eq(st.outputs, 1);
    ck_assert_uint_eq(st.differ, 1);
    /* 2048 .. 40000 in binary16: 1024 values per binade up to 32768,
     * then (40000 - 32768) / 32 */
    ck_assert_uint_eq(st.ulps, 4 * 1024 + (40000 - 32768) / 32);
    ck_assert_int_eq(amp_accum_set_tc16(&a, "h100-fp16"), 0);
    memset(&st, 0, sizeof st);
    r = amp_dot(&a, &fl_binary16, ones, 1, ones, 1, K, NULL);
    ck_assert(r == 32768.0f);
    ck_assert_uint_eq(st.ulps, (40000 - 32768) / 32);
    ck_assert_int_eq(amp_accum_set_tc(&a, "h100-fp16"), 0);
    memset(&st, 0, sizeof st);
    r = amp_dot(&a, &fl_binary16, ones, 1, ones, 1, K, NULL);
    ck_assert(r == 40000.0f);
    ck_assert_uint_eq(st.differ, 0);
    ck_assert_int_eq(amp_accum_set_tc16(&a, "h200-fp16"), -1);
    n_cases += 10;
}
END_TEST

/* The next-character rows of a text. */
START_TEST(text_rows)
{
    static const char txt[] = "Ab  c\n\tab";
    amp_dataset d;
    char err[256], *vocab = NULL;
    ck_assert_int_eq(amp_dataset_parse_text(&d, "t", txt, sizeof txt - 1, 2, &vocab,
                                            err, sizeof err), 0);
    /* normalised "ab c ab": classes " abc" */
    ck_assert_str_eq(vocab, " abc");
    ck_assert_int_eq(d.classes, 4);
    ck_assert_uint_eq(d.dim, 8);
    ck_assert_uint_eq(d.n, 5);
    /* row 0: context "ab" -> 'a' at position 0 (class 1), 'b' at 1 (class 2);
     * label ' ' (class 0) */
    float want0[8] = {0, 1, 0, 0, 0, 0, 1, 0};
    ck_assert(memcmp(d.x, want0, sizeof want0) == 0);
    ck_assert_int_eq(d.y[0], 0);
    ck_assert_int_eq(d.y[4], 2);   /* "ab c ab": the last row predicts 'b' */
    free(vocab);
    amp_dataset_free(&d);
    ck_assert_int_eq(amp_dataset_parse_text(&d, "t", "aaa", 3, 2, NULL, err,
                                            sizeof err), -1);
    ck_assert(strstr(err, "too short") != NULL);
    ck_assert_int_eq(amp_dataset_parse_text(&d, "t", txt, sizeof txt - 1, 0, NULL,
                                            err, sizeof err), -1);
    n_cases += 10;
}
END_TEST

int main(void)
{
    char err[512];
    if (amp_dataset_read_csv(&data, FPLAB_SOURCE_DIR "/data/digits.csv.gz",
                             AMP_LABEL_LAST, 16, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const TTest *tests[] = { same_seed_same_bits, fp32_and_fp16_learn,
                             overflow_skips_and_backs_off,
                             naive_fp16_underflows,
                             lost_updates_without_master,
                             loss_weight_with_lr_over_w,
                             loss_weight_underflow_needs_scaling,
                             adam_state_format, update_stochastic_rounding,
                             micro_batches, binary16_accumulation,
                             text_rows, NULL };
    int failed = tc_run_suite("amp_train", tc_tcase("train", 240, tests),
                              TC_IN_PROCESS);
    amp_dataset_free(&data);
    return tc_exit_counted("amp_train", failed, n_cases,
                           3 + 4 + 2 + 2 + 1 + 3 + 2 + 4 + 4 + 3 + 10 + 10);
}
