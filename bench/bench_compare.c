/*
 * bench_compare.c — the speed of the verdict (fl_cmp_arrays) next to
 * memcpy, measured in the same run.
 *
 * Usage: bench_compare [n [reps]]   (default 10^8 elements, 5 repetitions)
 *
 * Target (issue "regression-test any kernel"): comparing two arrays of n
 * elements at >= 1/4 of memcpy bandwidth.  Rates: compare reads both
 * arrays, so its bandwidth is 2 * n * size bytes per run; memcpy's is the
 * bytes copied (n * size).  Single-thread runs are timed in the thread's
 * CPU time (a shared, loaded machine does not distort them); the
 * all-threads run in wall time.  Median and min..max of the repetitions.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "fplab/compare.h"

static uint64_t rng = 42;
static uint64_t next(void)
{
    return bench_next(&rng);
}

static int reps = 5;

typedef struct cmp_job {
    const fl_format *f;
    size_t esize, n;
    const void *k, *r;
    const fl_cmp_tol *tol;
    int threads;
    fl_cmp_stats s;
} cmp_job;

static void cmp_run(void *arg)
{
    cmp_job *j = arg;
    fl_cmp_arrays(&j->s, j->f, j->esize, j->k, j->r, j->n, j->tol, j->threads);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtod(argv[1], NULL) : 100000000;
    if (argc > 2)
        reps = atoi(argv[2]);
    if (reps < 1)
        reps = 1;
    long np = sysconf(_SC_NPROCESSORS_ONLN);
    size_t bytes = n * 4;
    uint32_t *r = malloc(bytes), *k = malloc(bytes), *c = malloc(bytes);
    if (!r || !k || !c) {
        fprintf(stderr, "bench_compare: out of memory for 3 x %zu bytes\n", bytes);
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (uint32_t)(0x3e000000u + (next() & 0x01ffffffu));
    memcpy(k, r, bytes);
    memset(c, 0, bytes);
    printf("bench_compare: n = %zu binary32 (%.0f MB per array), %d repeats, "
           "median [min..max]; %ld processors\n", n, bytes / 1e6, reps, np);
    /* GB/s: memcpy counts the bytes copied, the comparison the bytes of
     * both arrays it reads */
    double mm, ml, mh, wm, wl, wh;
    bench_copy cp = {c, r, bytes};
    bench_measure(bench_copy_run, &cp, reps, BENCH_THREAD_CPU, bytes / 1e9, &mm,
                  &ml, &mh);
    printf("  %-46s %6.2f GB/s [%.2f..%.2f] copied\n",
           "memcpy, 1 thread, CPU time (yardstick)", mm, ml, mh);
    bench_measure(bench_copy_run, &cp, reps, BENCH_WALL, bytes / 1e9, &wm, &wl,
                  &wh);
    printf("  %-46s %6.2f GB/s [%.2f..%.2f] copied\n",
           "memcpy, 1 thread, wall time (yardstick)", wm, wl, wh);

    struct { const char *name; int half; double frac; fl_cmp_tol tol; int threads; } w[] = {
        {"identical, bit-identical required", 0, 0, {FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0}, 1},
        {"1% differ by 1-3 ulp, --ulp 2", 0, 0.01, {FL_CMP_TOL_ULP, 2, 0, 0, 0, 0}, 1},
        {"1% differ by 1-3 ulp, torch float32", 0, 0.01,
         {FL_CMP_TOL_CLOSE, 0, 1.3e-6, 1e-5, 0, 0}, 1},
        {"all differ by 1-3 ulp, --ulp 2", 0, 1, {FL_CMP_TOL_ULP, 2, 0, 0, 0, 0}, 1},
        {"all differ by 1-3 ulp, torch float32", 0, 1,
         {FL_CMP_TOL_CLOSE, 0, 1.3e-6, 1e-5, 0, 0}, 1},
        {"binary16 (2n), all differ, --ulp 2", 1, 1, {FL_CMP_TOL_ULP, 2, 0, 0, 0, 0}, 1},
        {"identical, all threads (wall time)", 0, 0, {FL_CMP_TOL_EXACT, 0, 0, 0, 0, 0}, 0},
        {"all differ, --ulp 2, all threads (wall)", 0, 1, {FL_CMP_TOL_ULP, 2, 0, 0, 0, 0}, 0},
    };
    double prev = 0;   /* k and r hold the identical binary32 data */
    int gaps = 0;
    for (size_t q = 0; q < sizeof w / sizeof w[0]; q++) {
        if (w[q].half) {
            /* 2n binary16 values in the same buffers, finite, 1-3 ulps apart */
            uint16_t *r16 = (uint16_t *)r, *k16 = (uint16_t *)k;
            for (size_t i = 0; i < 2 * n; i++) {
                r16[i] = (uint16_t)(0x2000 + (next() & 0x3fff));
                k16[i] = (uint16_t)(r16[i] + 1 + next() % 3);
            }
            prev = -1;
        } else if (w[q].frac != prev) {
            if (prev < 0)
                for (size_t i = 0; i < n; i++)
                    r[i] = (uint32_t)(0x3e000000u + (next() & 0x01ffffffu));
            memcpy(k, r, bytes);
            if (w[q].frac > 0) {
                uint64_t thr = (uint64_t)(w[q].frac * 4294967296.0);
                for (size_t i = 0; i < n; i++)
                    if ((next() & 0xffffffffu) < thr || w[q].frac >= 1)
                        k[i] += 1 + (uint32_t)(next() % 3);
            }
            prev = w[q].frac;
        }
        /* the all-threads rows in wall time, the others in CPU time */
        const int wall = w[q].threads == 0;
        double cm, cl, ch;
        /* binary16: the same bytes as 2n halves (the low halves differ) */
        cmp_job j = {w[q].half ? &fl_binary16 : &fl_binary32, w[q].half ? 2 : 4,
                     w[q].half ? 2 * n : n, k, r, &w[q].tol, w[q].threads, {0}};
        bench_measure(cmp_run, &j, reps, wall ? BENCH_WALL : BENCH_THREAD_CPU,
                      2.0 * (double)j.n * (double)j.esize / 1e9, &cm, &cl, &ch);
        const fl_cmp_stats s = j.s;
        double ratio = cm / (wall ? wm : mm);
        if (ratio < 0.25)
            gaps++;
        printf("  compare %-38s %6.2f GB/s [%.2f..%.2f] read, %5.0f M elem/s, "
               "ratio %.2f %s  (fail %llu)\n", w[q].name, cm, cl, ch,
               cm / (w[q].half ? 4 : 8) * 1e3, ratio,
               ratio >= 0.25 ? ">= 0.25 PASS" : "< 0.25 GAP",
               (unsigned long long)s.fail);
    }
    printf("bench_compare: %s (target: >= 1/4 of memcpy bandwidth; ratios of "
           "wall-time rows against the wall-time memcpy)\n", gaps ? "GAP" : "PASS");
    free(r);
    free(k);
    free(c);
    return 0;
}
