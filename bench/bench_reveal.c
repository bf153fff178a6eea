/*
 * bench_reveal.c — how long `fplab reveal` takes, kernel calls included.
 *
 * Usage: bench_reveal [FPLAB [PYTHON [KERNEL_SCRIPT]]]
 *   (defaults: the fplab built beside this bench, /usr/bin/python3, the
 *   source tree's tests/reveal/kernel_numpy.py)
 *
 * 1. In process: fl_reveal on a kernel that is the reference library in
 *    numpy's order (no process, no file): the engine's own cost for n =
 *    256 and 10^5 validation rows.  Yardstick: one fl_ref_sum over the
 *    validation rows' worth of terms in the same model.
 * 2. The real client: `fplab reveal sum --n 256 --dtype float32` of
 *    np.sum(x, axis=-1) run as `PYTHON KERNEL_SCRIPT sum float32 {in}
 *    {out}` (skipped with a message when python with numpy is missing).
 *    Yardstick: the median wall time of `PYTHON -c "import numpy"`, the
 *    price of one kernel call's process start, measured in the same run.
 * Targets (issue 12): the whole reveal of the numpy float32 sum with n =
 * 256 within 10 s and 10 kernel calls.  The summary says PASS or GAP.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "fplab/reveal.h"

static fl_ref_model g_numpy;

static int numpy_kernel(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    size_t B = c->batch ? c->batch : 1;
    (void)user;
    c->out_format = fl_binary32;
    return fl_ref_sum(&g_numpy, c->a, B * c->rows, c->n, c->out, 0, NULL, err,
                      errlen);
}

/* Run a shell command line, its output into buf; wall seconds, or -1. */
static double run(const char *cmd, char *buf, size_t len)
{
    double t0 = bench_now(BENCH_WALL);
    FILE *p = popen(cmd, "r");
    size_t got = 0;
    int st;
    if (p == NULL)
        return -1;
    while (got + 1 < len) {
        size_t k = fread(buf + got, 1, len - 1 - got, p);
        if (k == 0)
            break;
        got += k;
    }
    buf[got] = '\0';
    st = pclose(p);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return bench_now(BENCH_WALL) - t0;
}

int main(int argc, char **argv)
{
    const char *fplab = argc > 1 ? argv[1] : FPLAB_BENCH_EXE;
    const char *python = argc > 2 ? argv[2] : "/usr/bin/python3";
    const char *script = argc > 3 ? argv[3]
                                  : FPLAB_SOURCE_DIR "/tests/reveal/kernel_numpy.py";
    char err[256];
    int gap = 0;

    /* 1. in process */
    {
        fl_reveal_opts o;
        fl_reveal_result r;
        uint64_t *x, *y, s = 0x9E3779B97F4A7C15ull;
        size_t rows = 100000, n = 256;
        double t0, t_rev, t_ref;
        fl_ref_model_init(&g_numpy);
        if (fl_ref_model_parse(&g_numpy, "in=binary32 order=numpy", err,
                               sizeof err) != 0) {
            fprintf(stderr, "bench_reveal: %s\n", err);
            return 2;
        }
        fl_reveal_opts_init(&o);
        o.op = FL_REF_OP_SUM;
        o.n = n;
        t0 = bench_now(BENCH_WALL);
        fl_reveal(&o, numpy_kernel, NULL, &r);
        t_rev = bench_now(BENCH_WALL) - t0;
        x = malloc(rows * n * sizeof *x);
        y = malloc(rows * sizeof *y);
        if (x == NULL || y == NULL)
            return 2;
        for (size_t i = 0; i < rows * n; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x[i] = 0x3f800000u | ((s >> 40) & 0x7fffff) | ((s >> 63) << 31);
        }
        t0 = bench_now(BENCH_WALL);
        fl_ref_sum(&g_numpy, x, rows, n, y, 0, NULL, err, sizeof err);
        t_ref = bench_now(BENCH_WALL) - t0;
        printf("in process (the reference as the kernel), n = %zu, %zu "
               "validation cases:\n  reveal %.2f s, %zu kernel calls, status "
               "%s\n  yardstick: one replay of %zu rows in the model %.3f s; "
               "reveal = %.1f replays\n", n, r.cases, t_rev, r.calls,
               r.status == FL_REVEAL_FOUND ? "found" : r.message, rows, t_ref,
               t_rev / t_ref);
        if (r.status != FL_REVEAL_FOUND)
            gap = 1;
        fl_reveal_result_free(&r);
        free(x);
        free(y);
    }

    /* 2. the real client */
    {
        char cmd[4096], out[1 << 16], model[64];
        double starts[5], start, total = -1, kern = -1, wall;
        unsigned long calls = 0;
        int have = 1;
        snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' 2>/dev/null", python);
        for (int i = 0; i < 5 && have; i++) {
            starts[i] = run(cmd, out, sizeof out);
            if (starts[i] < 0)
                have = 0;
        }
        if (!have || access(script, R_OK) != 0 || access(fplab, X_OK) != 0) {
            printf("real client: skipped (no %s with numpy, no %s, or no %s)\n",
                   python, script, fplab);
            printf("summary: %s\n", gap ? "GAP" : "PASS (in process only)");
            return 0;
        }
        {
            double lo, hi;
            bench_summary(starts, 5, &start, &lo, &hi);
        }
        snprintf(model, sizeof model, "/tmp/bench_reveal.%ld.model", (long)getpid());
        snprintf(cmd, sizeof cmd,
                 "'%s' reveal sum --n 256 --dtype float32 --model-out %s -- '%s' "
                 "'%s' sum float32 {in} {out} 2>&1", fplab, model, python, script);
        wall = run(cmd, out, sizeof out);
        unlink(model);
        {
            const char *p = strstr(out, "kernel calls: ");
            if (p == NULL ||
                sscanf(p, "kernel calls: %lu (%lf s in the kernel); reveal total "
                       "%lf s", &calls, &kern, &total) != 3)
                total = -1;
        }
        if (wall < 0 || total < 0) {
            printf("real client: fplab reveal failed:\n%s\n", out);
            printf("summary: GAP\n");
            return 1;
        }
        printf("np.sum(x, axis=-1), float32, n = 256 (%s):\n"
               "  reveal %.2f s wall (%.2f s in the kernel), %lu kernel calls\n"
               "  yardstick: python + numpy process start %.3f s (median of 5); "
               "reveal = %.1f starts, %.2f s outside the kernel\n",
               python, wall, kern, calls, start, wall / start, wall - kern);
        printf("  target: <= 10 s: %s; <= 10 kernel calls: %s\n",
               wall <= 10 ? "met" : "GAP", calls <= 10 ? "met" : "GAP");
        if (wall > 10 || calls > 10)
            gap = 1;
    }
    printf("summary: %s\n", gap ? "GAP" : "PASS");
    return 0;
}
