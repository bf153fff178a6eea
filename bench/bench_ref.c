/*
 * bench_ref.c — reference GEMM (fplab/ref.h) next to yardsticks measured
 * in the same run: a plain triple-loop float GEMM (one thread) and the
 * reference BLAS sgemm_ that numpy links here (libblas.so.3, loaded with
 * dlopen; skipped with a message when absent).
 *
 * Usage: bench_ref [SIZE [reps]]   (default 512: SIZE^3 multiply-adds per
 * GEMM; median of reps wall-clock runs, default 3)
 * Rates are in G multiply-adds per second (G MAC/s) of wall-clock time,
 * and per second of the process's CPU time (a shared machine's other jobs
 * slow the first, not the second).  Targets (2 threads, wall clock):
 *   binary32 sequential model (native path)  >= 1   G MAC/s
 *   H100 tensor-core model (h100-fp16)       >= 0.5 G MAC/s
 * The generic paths (every model the fast paths do not cover) are timed
 * on a smaller GEMM for scale.  The summary says PASS or GAP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "fplab/fplab.h"
#include "fplab/ref.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void)
{
    return bench_next(&rng);
}

static int reps = 3;
static volatile float fsink;
/* MACs per second of process CPU time, of the last measure() (median). */
static double cpu_rate;

typedef void (*job_fn)(void *arg);

/* Median rate in G MAC/s of reps runs of fn doing `macs` multiply-adds,
 * in wall time; the same in the process's CPU time into cpu_rate. */
static double measure(job_fn fn, void *arg, double macs)
{
    double r[16], c[16], med, lo, hi;
    int k = reps < 1 ? 1 : reps < 16 ? reps : 16;
    fn(arg);   /* warm up */
    for (int i = 0; i < k; i++) {
        double t = bench_now(BENCH_WALL), tc = bench_now(BENCH_PROCESS_CPU);
        fn(arg);
        r[i] = macs / (bench_now(BENCH_WALL) - t) / 1e9;
        c[i] = macs / (bench_now(BENCH_PROCESS_CPU) - tc) / 1e9;
    }
    bench_summary(c, k, &cpu_rate, &lo, &hi);
    bench_summary(r, k, &med, &lo, &hi);
    return med;
}

/* ---- yardsticks --------------------------------------------------------- */
typedef struct fjob {
    size_t n;
    const float *a, *b;
    float *c;
} fjob;

/* The textbook loop: c[i][j] = sum_l a[i][l]*b[l][j], one thread. */
static void triple_loop(void *arg)
{
    fjob *j = arg;
    size_t n = j->n;
    for (size_t i = 0; i < n; i++)
        for (size_t jj = 0; jj < n; jj++) {
            float s = 0;
            for (size_t l = 0; l < n; l++)
                s += j->a[i * n + l] * j->b[l * n + jj];
            j->c[i * n + jj] = s;
        }
    fsink = j->c[0];
}

typedef void (*sgemm_fn)(const char *, const char *, const int *, const int *,
                         const int *, const float *, const float *, const int *,
                         const float *, const int *, const float *, float *,
                         const int *);
static sgemm_fn sgemm;

static void blas(void *arg)
{
    fjob *j = arg;
    int n = (int)j->n;
    float one = 1, zero = 0;
    /* row-major C = A B is column-major C^T = B^T A^T */
    sgemm("N", "N", &n, &n, &n, &one, j->b, &n, j->a, &n, &zero, j->c, &n);
    fsink = j->c[0];
}

/* ---- fplab -------------------------------------------------------------- */
typedef struct rjob {
    fl_ref_model m;
    fl_ref_gemm_shape s;
    const uint64_t *a, *b;
    uint64_t *d, one;
    int threads;
} rjob;

static void ref(void *arg)
{
    rjob *j = arg;
    char err[256];
    unsigned f = 0;
    if (fl_ref_gemm(&j->m, &j->s, j->one, j->a, j->b, 0, NULL, j->d,
                    j->threads, &f, err, sizeof err) != 0) {
        fprintf(stderr, "bench_ref: %s\n", err);
        exit(2);
    }
}

static void setup(rjob *j, const char *model, size_t n, const uint64_t *a,
                  const uint64_t *b, uint64_t *d, int threads)
{
    char err[256];
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned f = 0;
    fl_ref_model_init(&j->m);
    if (fl_ref_model_parse(&j->m, model, err, sizeof err) != 0) {
        fprintf(stderr, "bench_ref: %s: %s\n", model, err);
        exit(2);
    }
    fl_ref_gemm_shape_init(&j->s, 0, 0, 1, n, n, n);
    j->a = a;
    j->b = b;
    j->d = d;
    j->one = fl_from_i32(&j->m.acc, 1, &c, &f);
    j->threads = threads;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 512, nn, ns = 128;
    double macs, macs_s, y_loop, y_blas = 0, r1, r2, rt1, rt2, rg, rtg;
    double c_loop, c_blas = 0, c1, c2, ct1, ct2, cg, ctg;
    float *fa, *fb, *fc;
    uint64_t *a32, *b32, *a16, *b16, *d;
    fjob fj;
    rjob rj;
    void *lib;
    int pass = 1;
    if (argc > 2)
        reps = atoi(argv[2]);
    if (n < 16)
        n = 16;
    if (ns > n)
        ns = n;   /* the generic rows use the first ns x ns of the inputs */
    nn = n * n;
    macs = (double)n * (double)n * (double)n;
    macs_s = (double)ns * ns * ns;
    fa = malloc(nn * sizeof *fa);
    fb = malloc(nn * sizeof *fb);
    fc = malloc(nn * sizeof *fc);
    a32 = malloc(nn * sizeof *a32);
    b32 = malloc(nn * sizeof *b32);
    a16 = malloc(nn * sizeof *a16);
    b16 = malloc(nn * sizeof *b16);
    d = malloc(nn * sizeof *d);
    for (size_t i = 0; i < nn; i++) {
        uint32_t u = 0x3F000000u | (uint32_t)(next() & 0x007FFFFFu) |
                     (uint32_t)(next() & 1) << 31;   /* +-[0.5, 1) */
        memcpy(&fa[i], &u, 4);
        a32[i] = u;
        u = 0x3F000000u | (uint32_t)(next() & 0x007FFFFFu);
        memcpy(&fb[i], &u, 4);
        b32[i] = u;
        a16[i] = 0x3800u | (next() & 0x03FFu) | (next() & 1) << 15;
        b16[i] = 0x3800u | (next() & 0x03FFu);
    }
    printf("bench_ref: %zu x %zu x %zu GEMM (%.3g multiply-adds), median of %d, "
           "wall clock\n", n, n, n, macs, reps);
    {
        /* other jobs on the machine slow every row alike: say how busy */
        FILE *la = fopen("/proc/loadavg", "r");
        double l1 = 0;
        if (la && fscanf(la, "%lf", &l1) == 1)
            printf("load average %.2f on %ld online processors\n", l1,
                   sysconf(_SC_NPROCESSORS_ONLN));
        if (la)
            fclose(la);
    }
    printf("\n");

    fj.n = n;
    fj.a = fa;
    fj.b = fb;
    fj.c = fc;
    y_loop = measure(triple_loop, &fj, macs);
    c_loop = cpu_rate;
    lib = dlopen("libblas.so.3", RTLD_NOW);
    sgemm = lib ? (sgemm_fn)dlsym(lib, "sgemm_") : NULL;
    if (sgemm)
        y_blas = measure(blas, &fj, macs);
    c_blas = cpu_rate;

    setup(&rj, "in=binary32 acc=binary32 order=sequential", n, a32, b32, d, 1);
    r1 = measure(ref, &rj, macs);
    c1 = cpu_rate;
    rj.threads = 2;
    r2 = measure(ref, &rj, macs);
    c2 = cpu_rate;
    fl_ref_model_free(&rj.m);
    setup(&rj, "in=binary16 tc=h100-fp16", n, a16, b16, d, 1);
    rt1 = measure(ref, &rj, macs);
    ct1 = cpu_rate;
    rj.threads = 2;
    rt2 = measure(ref, &rj, macs);
    ct2 = cpu_rate;
    fl_ref_model_free(&rj.m);
    /* generic paths, smaller */
    fl__accel_cap(FL__CPU_GENERIC);
    setup(&rj, "in=binary32 acc=binary32 order=sequential", ns, a32, b32, d, 2);
    rg = measure(ref, &rj, macs_s);
    cg = cpu_rate;
    fl_ref_model_free(&rj.m);
    setup(&rj, "in=binary16 tc=h100-fp16", ns, a16, b16, d, 2);
    rtg = measure(ref, &rj, macs_s);
    ctg = cpu_rate;
    fl_ref_model_free(&rj.m);
    fl__accel_cap(FL__CPU_LEVELS);

    /* G MAC/s: wall clock.  per CPU-s: MACs per second of CPU time the
     * process used (other jobs on a shared machine do not count): for a
     * 2-thread row, twice it is what two idle cores would give. */
    bench_print_cpu("bench_ref");
    printf("%-52s %9s %9s %9s %11s\n", "workload", "G MAC/s", "/loop", "/BLAS",
           "per CPU-s");
    printf("%-52s %9.3f %9s %9s %11.3f\n", "yardstick: triple-loop float GEMM, 1 thread",
           y_loop, "1.00", "", c_loop);
    if (sgemm)
        printf("%-52s %9.3f %9.2f %9s %11.3f\n",
               "yardstick: reference BLAS sgemm_, 1 thread", y_blas, y_blas / y_loop,
               "1.00", c_blas);
    else
        printf("yardstick: reference BLAS sgemm_ skipped: %s\n",
               lib ? "no sgemm_ in libblas.so.3" : dlerror());
#define ROW(name, v, cv)                                                        \
    do {                                                                        \
        if (sgemm)                                                              \
            printf("%-52s %9.3f %9.2f %9.2f %11.3f\n", name, v, v / y_loop,     \
                   v / y_blas, cv);                                             \
        else                                                                    \
            printf("%-52s %9.3f %9.2f %9s %11.3f\n", name, v, v / y_loop, "-",  \
                   cv);                                                         \
    } while (0)
    ROW("ref binary32 sequential (native), 1 thread", r1, c1);
    ROW("ref binary32 sequential (native), 2 threads", r2, c2);
    ROW("ref h100-fp16 tensor-core model (fast), 1 thread", rt1, ct1);
    ROW("ref h100-fp16 tensor-core model (fast), 2 threads", rt2, ct2);
    char gname[2][64];
    snprintf(gname[0], sizeof gname[0], "ref binary32 sequential (generic, %zu^3), "
             "2 threads", ns);
    snprintf(gname[1], sizeof gname[1], "ref h100-fp16 (generic blocks, %zu^3), "
             "2 threads", ns);
    ROW(gname[0], rg, cg);
    ROW(gname[1], rtg, ctg);
    printf("\n");
    printf("target binary32 sequential, 2 threads >= 1 G MAC/s: %.3f  %s\n", r2,
           r2 >= 1.0 ? "PASS" : "GAP");
    printf("target h100-fp16 model, 2 threads >= 0.5 G MAC/s: %.3f  %s\n", rt2,
           rt2 >= 0.5 ? "PASS" : "GAP");
    pass = r2 >= 1.0 && rt2 >= 0.5;
    free(fa);
    free(fb);
    free(fc);
    free(a32);
    free(b32);
    free(a16);
    free(b16);
    free(d);
    if (lib)
        dlclose(lib);
    return pass ? 0 : 1;
}
