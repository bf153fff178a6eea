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
#include <time.h>
#include <unistd.h>

#include "fplab/compare.h"

static int use_wall;
static double now(void)
{
    struct timespec t;
    clock_gettime(use_wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 42;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int reps = 5;

static void sort(double *r, int k)
{
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && r[j] < r[j - 1]; j--) {
            double t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
}

/* GB/s of memcpy (bytes copied). */
static void bench_memcpy(void *dst, const void *src, size_t bytes, double *med,
                         double *lo, double *hi)
{
    double r[64];
    int k = reps < 64 ? reps : 64;
    memcpy(dst, src, bytes);
    for (int i = 0; i < k; i++) {
        double t = now();
        memcpy(dst, src, bytes);
        t = now() - t;
        r[i] = (double)bytes / t / 1e9;
    }
    sort(r, k);
    *med = r[k / 2];
    *lo = r[0];
    *hi = r[k - 1];
}

/* GB/s of input read by the comparison (both arrays). */
static void bench_cmp(const fl_format *f, size_t esize, const void *k,
                      const void *r, size_t n, const fl_cmp_tol *tol,
                      int threads, double *med, double *lo, double *hi,
                      fl_cmp_stats *s)
{
    double rr[64];
    int q = reps < 64 ? reps : 64;
    fl_cmp_arrays(s, f, esize, k, r, n, tol, threads);
    for (int i = 0; i < q; i++) {
        double t = now();
        fl_cmp_arrays(s, f, esize, k, r, n, tol, threads);
        t = now() - t;
        rr[i] = 2.0 * (double)n * (double)esize / t / 1e9;
    }
    sort(rr, q);
    *med = rr[q / 2];
    *lo = rr[0];
    *hi = rr[q - 1];
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
    double mm, ml, mh, wm, wl, wh;
    bench_memcpy(c, r, bytes, &mm, &ml, &mh);
    printf("  %-46s %6.2f GB/s [%.2f..%.2f] copied\n",
           "memcpy, 1 thread, CPU time (yardstick)", mm, ml, mh);
    use_wall = 1;
    bench_memcpy(c, r, bytes, &wm, &wl, &wh);
    printf("  %-46s %6.2f GB/s [%.2f..%.2f] copied\n",
           "memcpy, 1 thread, wall time (yardstick)", wm, wl, wh);
    use_wall = 0;

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
        use_wall = w[q].threads == 0;
        fl_cmp_stats s;
        double cm, cl, ch;
        /* binary16: the same bytes as 2n halves (the low halves differ) */
        bench_cmp(w[q].half ? &fl_binary16 : &fl_binary32, w[q].half ? 2 : 4, k,
                  r, w[q].half ? 2 * n : n, &w[q].tol, w[q].threads, &cm, &cl,
                  &ch, &s);
        double ratio = cm / (use_wall ? wm : mm);
        if (ratio < 0.25)
            gaps++;
        printf("  compare %-38s %6.2f GB/s [%.2f..%.2f] read, %5.0f M elem/s, "
               "ratio %.2f %s  (fail %llu)\n", w[q].name, cm, cl, ch,
               cm / (w[q].half ? 4 : 8) * 1e3, ratio,
               ratio >= 0.25 ? ">= 0.25 PASS" : "< 0.25 GAP",
               (unsigned long long)s.fail);
    }
    use_wall = 0;
    printf("bench_compare: %s (target: >= 1/4 of memcpy bandwidth; ratios of "
           "wall-time rows against the wall-time memcpy)\n", gaps ? "GAP" : "PASS");
    free(r);
    free(k);
    free(c);
    return 0;
}
