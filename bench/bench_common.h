/*
 * bench_common.h — what fplab's benchmarks share: the clocks, a seeded
 * splitmix64 stream for their inputs, and repeated timings reduced to a
 * median with the minimum and maximum beside it (every target is a ratio
 * against a yardstick timed the same way in the same run).
 *
 * Header-only: each benchmark is one program.  Define _GNU_SOURCE (or
 * _POSIX_C_SOURCE >= 199309L) before any include for clock_gettime.
 */
#ifndef FPLAB_BENCH_COMMON_H
#define FPLAB_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Wall time (CLOCK_MONOTONIC); this thread's CPU time, which other jobs
 * on a shared machine do not inflate; the whole process's CPU time (all
 * threads). */
typedef enum bench_clock {
    BENCH_WALL, BENCH_THREAD_CPU, BENCH_PROCESS_CPU
} bench_clock;

/* Seconds on clock c. */
static inline double bench_now(bench_clock c)
{
    struct timespec t;
    clock_gettime(c == BENCH_WALL ? CLOCK_MONOTONIC
                  : c == BENCH_THREAD_CPU ? CLOCK_THREAD_CPUTIME_ID
                                          : CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* splitmix64: the next value of the stream whose state is *s. */
static inline uint64_t bench_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The most repetitions a measurement keeps. */
#define BENCH_MAX_REPS 64

/* Sort r[0..k) (k >= 1) and give its median (the upper one for even k),
 * minimum and maximum. */
static inline void bench_summary(double *r, int k, double *med, double *lo,
                                 double *hi)
{
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && r[j] < r[j - 1]; j--) {
            const double t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    *med = r[k / 2];
    *lo = r[0];
    *hi = r[k - 1];
}

typedef void (*bench_fn)(void *arg);

/* reps runs of fn(arg) (at most BENCH_MAX_REPS), after one untimed run
 * that warms caches and pages, each timed on clock c: the rates work /
 * seconds as median, minimum and maximum. */
static inline void bench_measure(bench_fn fn, void *arg, int reps,
                                 bench_clock c, double work, double *med,
                                 double *lo, double *hi)
{
    double r[BENCH_MAX_REPS];
    const int k = reps < 1 ? 1 : reps < BENCH_MAX_REPS ? reps : BENCH_MAX_REPS;
    fn(arg);
    for (int i = 0; i < k; i++) {
        const double t = bench_now(c);
        fn(arg);
        r[i] = work / (bench_now(c) - t);
    }
    bench_summary(r, k, med, lo, hi);
}

/* The memory yardstick: memcpy of bytes from src to dst. */
typedef struct bench_copy {
    void *dst;
    const void *src;
    size_t bytes;
} bench_copy;

static inline void bench_copy_run(void *arg)
{
    const bench_copy *c = arg;
    memcpy(c->dst, c->src, c->bytes);
}

/* The CPU and the seam's level every row of this run used (src/accel/
 * cpu.h: the CPU's own, capped by FPLAB_CPU), so that figures from two CPUs
 * or two levels are never confused.  Needs src/accel on the include path
 * (bench/CMakeLists.txt). */
#include "cpu.h"
static inline const char *bench_level(void)
{
    return fl__cpu_level_name(fl__cpu_level());
}
static inline void bench_print_cpu(const char *prog)
{
    char model[64];
    fl__cpu_model(model, sizeof model);
    printf("%s: CPU %s, level %s (FPLAB_CPU caps it)\n", prog, model,
           bench_level());
}

#endif /* FPLAB_BENCH_COMMON_H */
