/*
 * amp_step.c — cost of simulating reduced precision: the time of one MLP
 * training step under a simulated fp16 policy divided by the time of the
 * same step computed natively in binary32 (the fp32 policy runs the same
 * loops with the rounding passes left out).  Goal: at most 3x.
 *
 * usage: bench_amp_step [DATA.csv[.gz]] [depth width batch steps]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "amp.h"
#include "bench_common.h"

#ifndef FPLAB_SOURCE_DIR
#define FPLAB_SOURCE_DIR "."
#endif

/* Best of 5 repetitions of `steps` steps, seconds per step. */
static double time_policy(const amp_dataset *d, const char *policy,
                          const char *accum, int depth, int width, int batch,
                          int steps)
{
    amp_train_config c;
    char err[256];
    amp_train_config_default(&c);
    if (amp_policy_parse(&c.policy, policy, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
    c.policy.accum.kind = amp_accum_parse(accum);
    c.depth = depth;
    c.width = width;
    c.batch = batch;
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        amp_trainer *t = amp_trainer_create(&c, d, err, sizeof err);
        if (!t) {
            fprintf(stderr, "%s\n", err);
            exit(2);
        }
        amp_step_record r;
        amp_trainer_step(t, &r, NULL);          /* warm up */
        double t0 = bench_now(BENCH_WALL);
        for (int s = 0; s < steps; s++)
            amp_trainer_step(t, &r, NULL);
        double dt = (bench_now(BENCH_WALL) - t0) / steps;
        if (dt < best)
            best = dt;
        amp_trainer_free(t);
    }
    return best;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1]
                                : FPLAB_SOURCE_DIR "/data/digits.csv.gz";
    int depth = argc > 2 ? atoi(argv[2]) : 3;
    int width = argc > 3 ? atoi(argv[3]) : 128;
    int batch = argc > 4 ? atoi(argv[4]) : 128;
    int steps = argc > 5 ? atoi(argv[5]) : 20;
    amp_dataset d;
    char err[512];
    if (amp_dataset_read_csv(&d, path, AMP_LABEL_LAST, 16, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    printf("MLP %d x %d, batch %d, %d steps per timing, best of 5\n", depth,
           width, batch, steps);
    double t32 = time_policy(&d, "fp32", "fp32", depth, width, batch, steps);
    printf("%-28s %10.1f us/step\n", "binary32 (native)", 1e6 * t32);
    static const char *const cases[][2] = {
        {"fp16-torch", "fp32"}, {"o2", "fp32"}, {"o3", "fp32"},
        {"bf16", "fp32"}, {"fp16-torch", "kahan"},
        {"fp16-torch", "pairwise"}, {"fp16-torch", "low"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double t = time_policy(&d, cases[i][0], cases[i][1], depth, width,
                               batch, steps);
        char name[64];
        snprintf(name, sizeof name, "%s, accum %s", cases[i][0], cases[i][1]);
        printf("%-28s %10.1f us/step  ratio %.2f%s\n", name, 1e6 * t,
               t / t32, i == 0 ? "  (goal <= 3)" : "");
    }
    amp_dataset_free(&d);
    return 0;
}
