/*
 * bench_verify.c — how long does checking all 2^32 binary16 add pairs
 * against the hardware oracle take?
 *
 * usage: bench_verify [--threads T] [--log2 K] [--flags]
 *   sweeps the first 2^K (default 28) exhaustive index pairs with the sweep
 *   engine (core + hw oracle + compare), and separately times the core and
 *   the oracle alone on the same inputs, then projects each to 2^32.
 *   --log2 32 runs the whole space.  --flags compares flags too (the hw
 *   oracle then takes its 16-lane flags path with AVX-512, else its scalar
 *   MXCSR path).
 */
#define _GNU_SOURCE
#include "oracle.h"
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

int main(int argc, char **argv)
{
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), k = 28, flags = 0, i;
    fl_sweep_cfg cfg;
    fl_sweep_result res;
    char why[256], cpu[64];
    const double full = 4294967296.0;
    enum { N = 1 << 20 };
    static uint64_t A[N], B[N], R[N];
    static unsigned F[N];
    double t0, tc, to;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--log2") && i + 1 < argc) k = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--flags")) flags = 1;
        else { fprintf(stderr, "usage: bench_verify [--threads T] [--log2 K] [--flags]\n"); return 2; }
    }
    if (k < 20 || k > 32 || threads < 1) { fprintf(stderr, "bad --log2 or --threads\n"); return 2; }
    memset(&cfg, 0, sizeof cfg);
    cfg.orc = &fl_oracle_hw;
    cfg.job.fmt = cfg.job.src = &fl_binary16;
    cfg.job.op = FL_ORC_ADD;
    cfg.job.ctx = fl_ctx_make(FL_RNE);
    if (!fl_oracle_hw.can_run(why, sizeof why) ||
        !fl_oracle_hw.supports(&cfg.job, why, sizeof why)) {
        printf("SKIP: hw oracle: %s\n", why);
        return 77;
    }
    fl_orc_cpu_model(cpu, sizeof cpu);
    cfg.exhaustive = 1;
    cfg.threads = threads;
    cfg.lo = 0;
    cfg.hi = (uint64_t)1 << k;
    cfg.check_flags = flags;

    /* single-thread component times on 2^20 pairs (every page touched
     * first, so no page fault lands in a timed call) */
    for (i = 0; i < N; i++) fl_sweep_inputs(&cfg, (uint64_t)i * 4093u, &A[i], &B[i], &R[i]);
    memset(F, 0, sizeof F);
    fl_orc_core_compute(&cfg.job, N, A, B, NULL, R, flags ? F : NULL);
    t0 = bench_now(BENCH_WALL);
    fl_orc_core_compute(&cfg.job, N, A, B, NULL, R, flags ? F : NULL);
    tc = bench_now(BENCH_WALL) - t0;
    t0 = bench_now(BENCH_WALL);
    fl_oracle_hw.compute(&cfg.job, N, A, B, NULL, R, flags ? F : NULL);
    to = bench_now(BENCH_WALL) - t0;

    if (fl_sweep_run(&cfg, &res) != 0) { fprintf(stderr, "threads failed\n"); return 1; }
    printf("cpu: %s, level %s\n", cpu, bench_level());
    printf("binary16 add, rne, %s, %d thread(s), 2^%d pairs: %.2f s, "
           "%.1f M pairs/s, %llu mismatches\n",
           flags ? "value+flags" : "values", threads, k, res.seconds,
           (double)res.cases / res.seconds / 1e6,
           (unsigned long long)res.mismatches);
    printf("projected for all 2^32 pairs: %.1f s (target 10 s on 2 cores)\n",
           res.seconds * full / (double)res.cases);
    printf("one core, 2^20 pairs: core %.1f ns/pair (2^32: %.1f s), hw oracle "
           "%.1f ns/pair (2^32: %.1f s)\n",
           tc / N * 1e9, tc / N * full, to / N * 1e9, to / N * full);
    return res.mismatches ? 1 : 0;
}
