/*
 * bench_scale.c — MX quantization throughput on one core, next to a
 * memcpy of the same binary32 input measured in the same run.
 *
 * Usage: bench_scale [reps [n]]   (default 7 repetitions of 2^24 values)
 *
 * Workloads (each on the same random tensor: a spread of binary32
 * exponents, some zeros and subnormals, rows of 4096):
 *   memcpy           copy the n binary32 values (the yardstick, elements/s)
 *   <scheme> codes   codes + E8M0 scales, no dequant, no statistics
 *   <scheme> +deq    codes, scales and the dequantized binary32 tensor
 *   <scheme> +stats  all of that plus the statistics (counts, rel. error)
 * Rates are G elements/s, median of the repetitions (min..max beside),
 * timed in this thread's CPU time.  Target (issue 14): MX quantization
 * >= 1 G elements/s; the summary prints PASS or GAP for the codes workload
 * of MXFP8 E4M3 and MXFP4.  Stochastic rounding (the general route),
 * NVFP4 and the FP8 per-tensor recipe (binary32 steps through the core)
 * are measured beside them, without a target.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "fplab/scale.h"

static uint64_t rng = 0x5CA1E5EEDull;
static uint64_t next(void)
{
    return bench_next(&rng);
}

static int reps = 7;

typedef struct {
    const fl_scale_scheme *s;
    const float *x;
    size_t n;
    fl_scale_out o;
    int failed;
} job;

static void run(void *arg)
{
    job *j = arg;
    char err[256];
    if (!j->failed &&
        fl_scale_quantize(j->s, j->x, j->n, 4096, &j->o, err, sizeof err)) {
        fprintf(stderr, "bench_scale: %s\n", err);
        j->failed = 1;
    }
}

int main(int argc, char **argv)
{
    size_t n = (size_t)1 << 24;
    if (argc > 1)
        reps = atoi(argv[1]) > 0 ? atoi(argv[1]) : reps;
    if (argc > 2)
        n = (size_t)strtoull(argv[2], NULL, 0);
    n -= n % 4096;
    if (n == 0)
        n = 4096;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    uint8_t *codes = malloc(n), *scales = malloc(n / 16);   /* NVFP4: blocks of 16 */
    if (!x || !y || !codes || !scales) {
        fprintf(stderr, "bench_scale: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = next();
        /* magnitudes 2^-20 .. 2^12, 1 in 64 zero, 1 in 4096 a subnormal */
        float v = ldexpf(1.0f + (float)(r & 0xFFFFFF) / 16777216.0f,
                         (int)((r >> 24) % 32) - 20);
        if (((r >> 40) & 63) == 0)
            v = 0.0f;
        if (((r >> 46) & 4095) == 1)
            v = ldexpf(v, -140);
        x[i] = (r >> 63) ? -v : v;
    }
    bench_print_cpu("bench_scale");
    printf("bench_scale: %zu binary32 values (rows of 4096), %d repetitions, one "
           "core, CPU time\n\n", n, reps);
    printf("%-28s %10s %20s %10s\n", "workload", "G elem/s", "min..max", "x memcpy");

    /* G elements/s, in this thread's CPU time */
    bench_copy cp = {y, x, n * sizeof *x};
    double mc, lo, hi;
    bench_measure(bench_copy_run, &cp, reps, BENCH_THREAD_CPU, n / 1e9, &mc, &lo,
                  &hi);
    job j;
    memset(&j, 0, sizeof j);
    j.x = x;
    j.n = n;
    printf("%-28s %10.3f %9.3f..%-9.3f %10.2f\n", "memcpy", mc, lo, hi, 1.0);

    const char *schemes[] = {"mxfp8-e4m3", "mxfp4-e2m1", "mxfp8-e5m2", "mxfp6-e2m3",
                             "mxint8", "mxfp8-e4m3:rceil", "mxfp8-e4m3:sr", "nvfp4",
                             "fp8-e4m3-tensor"};
    int gaps = 0, checked = 0;
    for (size_t q = 0; q < sizeof schemes / sizeof schemes[0]; q++) {
        fl_scale_scheme s;
        char err[256];
        if (fl_scale_scheme_parse(&s, schemes[q], err, sizeof err)) {
            printf("%-28s skipped: %s\n", schemes[q], err);
            continue;
        }
        for (int w = 0; w < 3; w++) {
            char name[64];
            memset(&j.o, 0, sizeof j.o);
            j.s = &s;
            j.o.codes = codes;
            j.o.scales = scales;
            j.o.skip_stats = w < 2;
            j.o.dequant = w >= 1 ? y : NULL;
            snprintf(name, sizeof name, "%s %s", schemes[q],
                     w == 0 ? "codes" : w == 1 ? "+deq" : "+stats");
            double med;
            bench_measure(run, &j, reps, BENCH_THREAD_CPU, n / 1e9, &med, &lo, &hi);
            if (j.failed)
                return 1;
            const char *verdict = "";
            if (w == 0 && (!strcmp(schemes[q], "mxfp8-e4m3") ||
                           !strcmp(schemes[q], "mxfp4-e2m1"))) {
                checked++;
                verdict = med >= 1.0 ? "  PASS (>= 1 G/s)" : "  GAP (< 1 G/s)";
                gaps += med < 1.0;
            }
            printf("%-28s %10.3f %9.3f..%-9.3f %10.2f%s\n", name, med, lo, hi,
                   med / mc, verdict);
        }
    }
    printf("\ntarget MX quantization >= 1 G elements/s: %d of %d checked workloads "
           "meet it\n", checked - gaps, checked);
    free(x), free(y), free(codes), free(scales);
    return 0;
}
