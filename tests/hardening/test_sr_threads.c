/*
 * test_sr_threads.c — bulk rounding gives the same bits however the work
 * is split: one call, two calls on the halves (the second with sr_index
 * advanced by the first half's length), and the threaded API with 1, 2 and
 * 3 threads; every element also equals the scalar fl_round_float /
 * fl_round_double with sr_index = base + i.  Stochastic rounding is the
 * case that matters (its random bits are a function of (seed, index)), the
 * deterministic modes ride along.  A different seed must change some
 * stochastic results, so the comparison can fail.
 *
 * Seed: FPLAB_TEST_SEED (replay) or the clock; printed.  The number of
 * comparisons is counted and asserted.  This is also the program the
 * ThreadSanitizer pass runs (scripts/ci-hardening.sh).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fplab/fplab.h"
#include "fplab/parallel.h"
#include "../test_common.h"

/* 3 parts of 2^15 + 5: big enough that the threaded API uses 2 and 3
 * threads (it keeps at least 2^14 elements per thread). */
enum { N = 3 * 32768 + 5 };

static uint64_t rng;
static long compared, failures;

static uint64_t next(void)
{
    return tc_splitmix(&rng);
}

/* Inputs: random bit patterns (all classes), values near the target's
 * rounding boundaries and range limits, and the specials. */
static void fill(float *x, double *y, size_t n)
{
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN,
                                     65504.0, 65520.0, 0x1p-24, 0x1p-25,
                                     0x1.8p-25, 448.0, 464.0, 0x1p-133,
                                     3.0e38, 1.0 + 0x1p-11, 1.0 + 0x1p-8};
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next();
        switch (r % 4) {
        case 0: {
            uint32_t b = (uint32_t)(r >> 32);
            memcpy(&x[i], &b, sizeof b);
            uint64_t d = next();
            memcpy(&y[i], &d, sizeof d);
            break;
        }
        case 1:
            x[i] = (float)special[(r >> 8) % (sizeof special / sizeof special[0])];
            y[i] = special[(r >> 16) % (sizeof special / sizeof special[0])];
            break;
        default: {
            /* mantissa bits plus a scale across the small formats' ranges */
            double m = 1.0 + (double)(r >> 40) * 0x1p-24;
            int e = (int)((r >> 8) % 80) - 40;
            x[i] = (float)ldexp((r & 1) ? -m : m, e);
            y[i] = ldexp((r & 2) ? -m : m, e - 20);
            break;
        }
        }
    }
}

static int same_f(const float *a, const float *b, size_t n, size_t *where)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) {
            *where = i;
            return 0;
        }
    return 1;
}

static int same_d(const double *a, const double *b, size_t n, size_t *where)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) {
            *where = i;
            return 0;
        }
    return 1;
}

/* same: the values agree; flags_a/flags_b: the OR-ed flag words. */
static void check(int same, unsigned flags_a, unsigned flags_b,
                  const char *what, const fl_format *f, int rm, uint64_t seed,
                  size_t where)
{
    compared++;
    if (!same || flags_a != flags_b) {
        failures++;
        printf("FAIL %s: format %s (e%d p%d) mode %s sr_seed %" PRIu64 ": ",
               what, f->name, f->ebits, f->prec, fl_rm_name(rm), seed);
        if (!same)
            printf("first value difference at element %zu", where);
        else
            printf("values agree, flags 0x%02x vs 0x%02x", flags_a, flags_b);
        printf("\n");
    }
}

int main(void)
{
    rng = tc_seed("sr_threads");

    static float x[N], r1[N], r2[N], rs[N];
    static double y[N], d1[N], d2[N], ds[N];
    fill(x, y, N);

    fl_format fmts[6];
    char err[128];
    fmts[0] = fl_binary16;
    fmts[1] = fl_bfloat16;
    fmts[2] = fl_fp8_e4m3;
    fmts[3] = fl_fp8_e5m2;
    fmts[4] = fl_tf32;
    if (fl_format_parse(&fmts[5], "ieee:5:7", err, sizeof err) != 0) {
        printf("FAIL: ieee:5:7: %s\n", err);
        return 1;
    }
    static const int modes[] = {FL_RSR, FL_RNE, FL_RTZ, FL_RTO};
    const size_t nf = sizeof fmts / sizeof fmts[0];
    const size_t nm = sizeof modes / sizeof modes[0];
    long sr_changed = 0;

    for (size_t fi = 0; fi < nf; fi++) {
        const fl_format *f = &fmts[fi];
        for (size_t mi = 0; mi < nm; mi++) {
            const int rm = modes[mi];
            fl_ctx c = fl_ctx_make(rm);
            c.sr_seed = next();
            c.sr_index = next() >> 1;   /* any base, away from wrap-around */
            size_t where = 0;
            unsigned fa = 0, fb = 0, fs = 0;

            /* one call */
            fl_round_float_array(f, r1, x, N, &c, &fa);
            fl_round_double_array(f, d1, y, N, &c, &fs);

            /* two calls on the halves, sr_index advanced */
            const size_t h = N / 2 + 3;
            fl_ctx c2 = c;
            unsigned fh = 0;
            fl_round_float_array(f, r2, x, h, &c, &fb);
            c2.sr_index = c.sr_index + h;
            fl_round_float_array(f, r2 + h, x + h, N - h, &c2, &fh);
            fb |= fh;
            check(same_f(r1, r2, N, &where), fa, fb,
                  "float halves vs one call", f, rm, c.sr_seed, where);
            fh = 0;
            unsigned fd = 0;
            fl_round_double_array(f, d2, y, h, &c, &fd);
            fl_round_double_array(f, d2 + h, y + h, N - h, &c2, &fh);
            check(same_d(d1, d2, N, &where), fs, fd | fh,
                  "double halves vs one call", f, rm, c.sr_seed, where);

            /* the threaded API, 1 to 3 threads */
            for (int t = 1; t <= 3; t++) {
                unsigned ft = 0, fdt = 0;
                fl_round_float_array_mt(f, r2, x, N, &c, &ft, t);
                check(same_f(r1, r2, N, &where), fa, ft,
                      t == 1 ? "float mt(1)" : t == 2 ? "float mt(2)"
                                                      : "float mt(3)",
                      f, rm, c.sr_seed, where);
                fl_round_double_array_mt(f, d2, y, N, &c, &fdt, t);
                check(same_d(d1, d2, N, &where), fs, fdt,
                      t == 1 ? "double mt(1)" : t == 2 ? "double mt(2)"
                                                       : "double mt(3)",
                      f, rm, c.sr_seed, where);
            }

            /* element i is the scalar rounding with index base + i */
            unsigned fsc = 0, fdsc = 0;
            for (size_t i = 0; i < N; i++) {
                fl_ctx ci = c;
                ci.sr_index = c.sr_index + i;
                rs[i] = fl_round_float(f, x[i], &ci, &fsc);
                ds[i] = fl_round_double(f, y[i], &ci, &fdsc);
            }
            check(same_f(r1, rs, N, &where), fa, fsc,
                  "float array vs scalar", f, rm, c.sr_seed, where);
            check(same_d(d1, ds, N, &where), fs, fdsc,
                  "double array vs scalar", f, rm, c.sr_seed, where);

            /* another seed changes stochastic results (the test can fail) */
            if (rm == FL_RSR) {
                fl_ctx c3 = c;
                unsigned f3 = 0;
                c3.sr_seed = c.sr_seed ^ 1;
                fl_round_float_array(f, r2, x, N, &c3, &f3);
                long diff = 0;
                for (size_t i = 0; i < N; i++)
                    diff += memcmp(&r1[i], &r2[i], sizeof r1[i]) != 0;
                check(diff > 100, 0, 0, "another seed changes SR results", f, rm,
                      c.sr_seed, 0);
                sr_changed += diff;
            }
        }
    }
    /* per format and mode: 2 halves + 6 threaded + 2 scalar = 10, and one
     * more for stochastic rounding */
    const long want = (long)(nf * nm * 10 + nf);
    printf("sr_threads: %ld comparisons of %d elements (%ld SR results "
           "moved by a seed change), %ld failed\n", compared, N, sr_changed,
           failures);
    if (compared != want) {
        printf("FAIL: %ld comparisons, expected %ld\n", compared, want);
        return 1;
    }
    return failures ? 1 : 0;
}
