/*
 * bench_speed.c — fplab's throughput next to yardsticks measured in the
 * same run: hardware conversions (F16C vcvtps2ph, AVX512-BF16
 * vcvtneps2bf16 where the CPU has it, F16C for bfloat16 too where it has
 * not), binary32 arithmetic followed by an F16C conversion (the
 * "compute in float and cast" emulation), MPFR, and memcpy bandwidth.
 *
 * Usage: bench_speed [reps [filter]]   (default 5 repetitions; median and
 * min..max printed; filter: only the workloads whose name contains it).
 * Each repetition times fplab and then its yardstick; a row's ratio is
 * the median of the repetitions' ratios.
 *
 * Scalar binary16 operations run on two operand sets: finite encodings
 * ("finite"), and TestFloat-style random encodings where every bit pattern
 * is equally likely, NaNs, infinities, overflowing and underflowing
 * results included ("any encoding"); the latter are measured next to
 * Berkeley SoftFloat 3e (f16_add, f16_mul, f16_mulAdd; 8086-SSE
 * specialisation) on the same operands in the same mode, each operation's
 * result and flags stored by both, when bench_speed is configured with
 * -DFPLAB_SOFTFLOAT3_DIR (docs/speed.md says how); the two are checked to
 * agree on every operand first.  Binary32 add and mul are measured the
 * same way next to f32_add and f32_mul, on random 32-bit patterns (every
 * encoding equally likely: NaNs, infinities and subnormals included).
 * Bulk rounding of binary32 to every 8-, 6- and 4-bit format is measured
 * against memcpy (nearest even) and in M elements/s (stochastic).
 * Every workload is checked against its target; the summary says PASS or
 * GAP.  Rates are in millions of elements (or operations) per second.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

#include "bench_common.h"
#include "fplab/fplab.h"
#include "fplab/parallel.h"
#ifdef FPLAB_HAVE_MPFR
#include <mpfr.h>
#endif
#ifdef FPLAB_HAVE_SOFTFLOAT3
#include "softfloat.h"   /* Berkeley SoftFloat 3e (-DFPLAB_SOFTFLOAT3_DIR) */
#endif

/* Single-thread workloads are timed in this thread's CPU time, so a
 * shared, loaded machine does not distort them; the two-thread workload
 * and its one-thread reference use wall time (use_wall). */
static int use_wall;
/* Self-timed workloads (self_timed = 1) add their own elapsed time to
 * fn_time: the two-thread CPU-time workload reports the larger of its
 * threads' CPU times (the compute part, free of other jobs' scheduling). */
static int self_timed;
static double fn_time;
static double now(void)
{
    return bench_now(use_wall ? BENCH_WALL : BENCH_THREAD_CPU);
}

static uint64_t rng = 0x1234567;
static uint64_t next(void)
{
    return bench_next(&rng);
}

typedef void (*work_fn)(size_t n, void *arg);
static int reps = 5;
static volatile uint64_t sink;

/* The passes over n of one repetition: 2^22 elements at least. */
static size_t passes(size_t n)
{
    return n < ((size_t)1 << 20) ? ((size_t)1 << 22) / n : 1;
}

/* One pass of fn over n: its time in seconds (a self-timed workload's
 * own). */
static double time_pass(work_fn fn, size_t n, void *arg)
{
    double t;
    fn_time = 0;
    t = now();
    fn(n, arg);
    t = now() - t;
    return self_timed ? fn_time : t;
}

/* One timed repetition of fn over n: its rate in M elem/s. */
static double time_once(work_fn fn, size_t n, void *arg)
{
    const size_t inner = passes(n);
    double t = 0;
    size_t m;
    for (m = 0; m < inner; m++)
        t += time_pass(fn, n, arg);
    return (double)n * (double)inner / t / 1e6;
}

/* One repetition of fn and its yardstick: their passes over n
 * interleaved (fn, yard, fn, yard, ...), each side's time summed, so that
 * both rates come from the same stretch of time, down to a pass (a few
 * ms), not from two stretches side by side.  Rates in M elem/s. */
static void time_pair(work_fn fn, work_fn yard, size_t n, void *arg,
                      double *rate, double *yrate)
{
    const size_t inner = passes(n);
    double tf = 0, ty = 0;
    size_t m;
    for (m = 0; m < inner; m++) {
        tf += time_pass(fn, n, arg);
        ty += time_pass(yard, n, arg);
    }
    *rate = (double)n * (double)inner / tf / 1e6;
    *yrate = (double)n * (double)inner / ty / 1e6;
}

/* `reps` repetitions of fn over n and, when yard is given, of the
 * yardstick right after each one: the median, min and max rate (M
 * elem/s) of each, and the median of the per-repetition ratios fn/yard.
 * Timing the two interleaved (time_pair), and taking the ratio within
 * each pair, keeps a ratio from mixing a fast stretch of one with a slow
 * stretch of the other on a machine whose speed drifts (a shared VM's
 * does by up to 1.5x within a minute, and by more from one pass to the
 * next). */
static void measure(work_fn fn, work_fn yard, size_t n, void *arg,
                    double *med, double *lo, double *hi, double *ymed,
                    double *ylo, double *yhi, double *ratio)
{
    double r[BENCH_MAX_REPS] = { 0 }, y[BENCH_MAX_REPS] = { 0 },
           q[BENCH_MAX_REPS] = { 0 }, d;
    int i, k = reps < 1 ? 1 : reps < BENCH_MAX_REPS ? reps : BENCH_MAX_REPS;
    fn(n, arg);                                       /* warm up */
    if (yard)
        yard(n, arg);
    for (i = 0; i < k; i++) {
        if (yard)
            time_pair(fn, yard, n, arg, &r[i], &y[i]);
        else
            r[i] = time_once(fn, n, arg);
        q[i] = y[i] > 0 ? r[i] / y[i] : 0;
    }
    bench_summary(r, k, med, lo, hi);
    bench_summary(y, k, ymed, ylo, yhi);
    bench_summary(q, k, ratio, &d, &d);
}

/* ---- data --------------------------------------------------------------- */
#define NBIG ((size_t)1 << 24)
#define NSMALL ((size_t)1 << 14)
/* The any-encoding rows take more operand sets than a branch predictor can
 * learn: repeated 2^14 times over, a short random sequence is partly
 * memorized by the predictors of current cores, which favours branchy code
 * (SoftFloat's) in a way fresh TestFloat operands never do.  2^18 sets
 * (9 MiB of operands, results and flags) stay in the last-level cache. */
#define NANY ((size_t)1 << 18)
static float *fsrc, *fdst, *fspread;
static double *dsrc, *ddst;
static uint64_t *ha, *hb, *hc, *hr;    /* binary16 / binary32 operands */
static unsigned *hfl;                  /* each operation's flags */
static const fl_format *cur_fmt;
static fl_ctx cur_ctx;
static int cur_nan = FL_NANP_X86;      /* NaN preset of the next run() */

/* ---- fplab workloads ---------------------------------------------------- */
#define SCALAR_OP(name, call)                                                \
    static void name(size_t n, void *arg)                                    \
    {                                                                        \
        const fl_format *f = cur_fmt;                                        \
        unsigned fl = 0;                                                     \
        size_t i;                                                            \
        (void)arg;                                                           \
        for (i = 0; i < n; i++)                                              \
            hr[i] = call;                                                    \
        sink += fl;                                                          \
    }
SCALAR_OP(w_add, fl_add(f, ha[i], hb[i], &cur_ctx, &fl))
SCALAR_OP(w_mul, fl_mul(f, ha[i], hb[i], &cur_ctx, &fl))
SCALAR_OP(w_fma, fl_fma(f, ha[i], hb[i], hc[i], &cur_ctx, &fl))

/* Each operation's result and flags kept, as TestFloat checks them. */
#define SCALAR_OP_FL(name, call)                                             \
    static void name(size_t n, void *arg)                                    \
    {                                                                        \
        const fl_format *f = cur_fmt;                                        \
        size_t i;                                                            \
        (void)arg;                                                           \
        for (i = 0; i < n; i++) {                                            \
            unsigned fl = 0;                                                 \
            hr[i] = call;                                                    \
            hfl[i] = fl;                                                     \
        }                                                                    \
    }
SCALAR_OP_FL(w_add_fl, fl_add(f, ha[i], hb[i], &cur_ctx, &fl))
SCALAR_OP_FL(w_mul_fl, fl_mul(f, ha[i], hb[i], &cur_ctx, &fl))
SCALAR_OP_FL(w_fma_fl, fl_fma(f, ha[i], hb[i], hc[i], &cur_ctx, &fl))

static void w_round_f(size_t n, void *arg)
{
    unsigned fl = 0;
    (void)arg;
    fl_round_float_array(cur_fmt, fdst, fsrc, n, &cur_ctx, &fl);
    sink += fl;
}
/* The same on inputs with a realistic exponent spread (fspread). */
static void w_round_f_spread(size_t n, void *arg)
{
    unsigned fl = 0;
    (void)arg;
    fl_round_float_array(cur_fmt, fdst, fspread, n, &cur_ctx, &fl);
    sink += fl;
}
static void w_round_d(size_t n, void *arg)
{
    unsigned fl = 0;
    (void)arg;
    fl_round_double_array(cur_fmt, ddst, dsrc, n, &cur_ctx, &fl);
    sink += fl;
}

/* fplab/parallel.h with 1 and 2 threads (wall time). */
static void w_round_f_mt1(size_t n, void *arg)
{
    unsigned fl = 0;
    (void)arg;
    fl_round_float_array_mt(cur_fmt, fdst, fsrc, n, &cur_ctx, &fl, 1);
    sink += fl;
}
static void w_round_f_2t(size_t n, void *arg)
{
    unsigned fl = 0;
    (void)arg;
    fl_round_float_array_mt(cur_fmt, fdst, fsrc, n, &cur_ctx, &fl, 2);
    sink += fl;
}

/* The same split by hand, each thread timing its own CPU time; the
 * workload's time is the slower thread's (self-timed). */
typedef struct { size_t lo, hi; unsigned fl; double cpu; } half_t;
static void *half_worker(void *p)
{
    half_t *h = p;
    fl_ctx c = cur_ctx;
    const double t0 = bench_now(BENCH_THREAD_CPU);
    c.sr_index += h->lo;
    fl_round_float_array(cur_fmt, fdst + h->lo, fsrc + h->lo, h->hi - h->lo,
                         &c, &h->fl);
    h->cpu = bench_now(BENCH_THREAD_CPU) - t0;
    return NULL;
}
static void w_round_f_cpu(size_t n, void *arg, int two)
{
    pthread_t t;
    half_t h[2] = { { 0, two ? n / 2 : n, 0, 0 }, { n / 2, n, 0, 0 } };
    (void)arg;
    if (two)
        pthread_create(&t, NULL, half_worker, &h[1]);
    half_worker(&h[0]);
    if (two)
        pthread_join(t, NULL);
    fn_time += two && h[1].cpu > h[0].cpu ? h[1].cpu : h[0].cpu;
    sink += h[0].fl | h[1].fl;
}
static void w_round_f_cpu1(size_t n, void *arg) { w_round_f_cpu(n, arg, 0); }
static void w_round_f_cpu2(size_t n, void *arg) { w_round_f_cpu(n, arg, 1); }

/* ---- yardsticks ---------------------------------------------------------- */
__attribute__((target("avx2,f16c")))
static void y_f16c(size_t n, void *arg)
{
    size_t i;
    (void)arg;
    for (i = 0; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(fsrc + i), 0);
        _mm256_storeu_ps(fdst + i, _mm256_cvtph_ps(h));
    }
}
__attribute__((target("avx512f,avx512bf16,avx512vl")))
static void y_bf16(size_t n, void *arg)
{
    size_t i;
    (void)arg;
    for (i = 0; i + 16 <= n; i += 16) {
        __m256i h = (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(fsrc + i));
        __m512i w = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
        _mm512_storeu_ps(fdst + i, _mm512_castsi512_ps(w));
    }
}
__attribute__((target("avx2,f16c")))
static void y_f16c_d(size_t n, void *arg)
{
    size_t i;
    (void)arg;
    /* double -> float -> half double-rounds: a speed reference only */
    for (i = 0; i + 4 <= n; i += 4) {
        __m128 f = _mm256_cvtpd_ps(_mm256_loadu_pd(dsrc + i));
        __m128i h = _mm_cvtps_ph(f, 0);
        _mm256_storeu_pd(ddst + i, _mm256_cvtps_pd(_mm_cvtph_ps(h)));
    }
}
static void y_memcpy(size_t n, void *arg)
{
    (void)arg;
    memcpy(fdst, fsrc, n * sizeof(float));
}
/* binary16 op emulated as float compute + F16C conversion (scalar). */
#define F16C_OP(name, expr)                                                  \
    __attribute__((target("f16c")))                                          \
    static void name(size_t n, void *arg)                                    \
    {                                                                        \
        size_t i;                                                            \
        (void)arg;                                                           \
        for (i = 0; i < n; i++) {                                            \
            float x = _cvtsh_ss((unsigned short)ha[i]);                      \
            float y = _cvtsh_ss((unsigned short)hb[i]);                      \
            float z = _cvtsh_ss((unsigned short)hc[i]);                      \
            (void)z;                                                         \
            hr[i] = _cvtss_sh(expr, 0);                                      \
        }                                                                    \
    }
F16C_OP(y_add16, x + y)
F16C_OP(y_mul16, x * y)
F16C_OP(y_fma16, x * y + z)
static void y_add32(size_t n, void *arg)
{
    size_t i;
    (void)arg;
    for (i = 0; i < n; i++) {
        union { float f; uint32_t u; } a, b;
        a.u = (uint32_t)ha[i]; b.u = (uint32_t)hb[i];
        a.f += b.f;
        hr[i] = a.u;
    }
}
static void y_mul32(size_t n, void *arg)
{
    size_t i;
    (void)arg;
    for (i = 0; i < n; i++) {
        union { float f; uint32_t u; } a, b;
        a.u = (uint32_t)ha[i]; b.u = (uint32_t)hb[i];
        a.f *= b.f;
        hr[i] = a.u;
    }
}
#ifdef FPLAB_HAVE_SOFTFLOAT3
/* SoftFloat 3e: flags cleared before and read after each operation. */
#define SF3_OP(name, expr)                                                   \
    static void name(size_t n, void *arg)                                    \
    {                                                                        \
        size_t i;                                                            \
        (void)arg;                                                           \
        for (i = 0; i < n; i++) {                                            \
            float16_t a, b, c;                                               \
            a.v = (uint16_t)ha[i];                                           \
            b.v = (uint16_t)hb[i];                                           \
            c.v = (uint16_t)hc[i];                                           \
            (void)c;                                                         \
            softfloat_exceptionFlags = 0;                                    \
            hr[i] = (expr).v;                                                \
            hfl[i] = softfloat_exceptionFlags;                               \
        }                                                                    \
    }
SF3_OP(y_sf3_add, f16_add(a, b))
SF3_OP(y_sf3_mul, f16_mul(a, b))
SF3_OP(y_sf3_fma, f16_mulAdd(a, b, c))

/* The same for binary32 (f32_add, f32_mul). */
#define SF3_OP32(name, expr)                                                 \
    static void name(size_t n, void *arg)                                    \
    {                                                                        \
        size_t i;                                                            \
        (void)arg;                                                           \
        for (i = 0; i < n; i++) {                                            \
            float32_t a, b;                                                  \
            a.v = (uint32_t)ha[i];                                           \
            b.v = (uint32_t)hb[i];                                           \
            softfloat_exceptionFlags = 0;                                    \
            hr[i] = (expr).v;                                                \
            hfl[i] = softfloat_exceptionFlags;                               \
        }                                                                    \
    }
SF3_OP32(y_sf3_add32, f32_add(a, b))
SF3_OP32(y_sf3_mul32, f32_mul(a, b))

/* fplab (SoftFloat NaN preset) and SoftFloat 3e on the same operands in
 * format f: the number of operations whose result or IEEE flags differ;
 * the first one is printed. */
static size_t sf3_disagree(const fl_format *f, work_fn ours, work_fn theirs,
                           size_t n)
{
    uint64_t *r1 = malloc(n * sizeof *r1);
    unsigned *f1 = malloc(n * sizeof *f1);
    size_t i, bad = 0;
    if (!r1 || !f1) {
        fprintf(stderr, "bench_speed: out of memory for the SoftFloat check\n");
        exit(2);
    }
    cur_fmt = f;
    cur_ctx = fl_ctx_make(FL_RNE);
    cur_ctx.nan = FL_NANP_SOFTFLOAT;
    softfloat_roundingMode = softfloat_round_near_even;
    softfloat_detectTininess = softfloat_tininess_afterRounding;
    ours(n, NULL);
    memcpy(r1, hr, n * sizeof *r1);
    memcpy(f1, hfl, n * sizeof *f1);
    theirs(n, NULL);
    for (i = 0; i < n; i++)
        if (r1[i] != hr[i] || (f1[i] & FL_IEEE_FLAGS) != hfl[i]) {
            if (!bad)
                printf("  first: a %#" PRIx64 " b %#" PRIx64 " c %#" PRIx64
                       ": fplab %#" PRIx64 " flags %#x, SoftFloat %#" PRIx64
                       " flags %#x\n", ha[i], hb[i], hc[i], r1[i],
                       f1[i] & FL_IEEE_FLAGS, hr[i], hfl[i]);
            bad++;
        }
    free(r1); free(f1);
    return bad;
}
#endif

#ifdef FPLAB_HAVE_MPFR
__attribute__((target("f16c")))
static void y_mpfr_add16(size_t n, void *arg)
{
    static mpfr_t x, y;
    static int init;
    size_t i;
    (void)arg;
    if (!init) {
        mpfr_init2(x, 11); mpfr_init2(y, 11); init = 1;
    }
    mpfr_set_emin(-23); mpfr_set_emax(16);
    for (i = 0; i < n; i++) {
        int t;
        mpfr_set_flt(x, _cvtsh_ss((unsigned short)ha[i]), MPFR_RNDN);
        mpfr_set_flt(y, _cvtsh_ss((unsigned short)hb[i]), MPFR_RNDN);
        mpfr_clear_flags();
        t = mpfr_add(x, x, y, MPFR_RNDN);
        t = mpfr_subnormalize(x, t, MPFR_RNDN);
        hr[i] = (uint64_t)(mpfr_get_flt(x, MPFR_RNDN) != 0) + (uint64_t)t +
                (uint64_t)mpfr_flags_save();
    }
    mpfr_set_emin(mpfr_get_emin_min()); mpfr_set_emax(mpfr_get_emax_max());
}
#endif

/* ---- table -------------------------------------------------------------- */
typedef struct { char name[48]; double rate, yrate, ratio, target; const char *yname;
                 int target_is_ratio; const char *note; const char *level; } row_t;
static row_t rows[256];
static int nrows;

static const char *filter;   /* run only workloads whose name contains it */

static void run(const char *name, const fl_format *f, int rm, work_fn fn,
                work_fn yard, const char *yname, size_t n, double target,
                int target_is_ratio)
{
    double m, lo, hi, ym, ylo, yhi, q;
    row_t *r;
    if (filter && !strstr(name, filter))
        return;
    if (nrows == (int)(sizeof rows / sizeof rows[0]))
        return;
    r = &rows[nrows++];
    cur_fmt = f;
    cur_ctx = fl_ctx_make(rm);
    cur_ctx.sr_seed = 42;
    cur_ctx.nan = (uint8_t)cur_nan;
    r->note = NULL;
    measure(fn, yard, n, NULL, &m, &lo, &hi, &ym, &ylo, &yhi, &q);
    snprintf(r->name, sizeof r->name, "%s 2^%d", name,
             (int)__builtin_ctzll((unsigned long long)n));
    r->rate = m; r->yrate = ym; r->ratio = q; r->yname = yname;
    r->target = target;
    r->target_is_ratio = target_is_ratio;
    r->level = bench_level();
    printf("%-40s fplab %8.1f [%7.1f..%7.1f]  %-14s %8.1f [%7.1f..%7.1f]  ratio %.2f  %s\n",
           r->name, m, lo, hi, yname ? yname : "-", ym, ylo, yhi, q,
           r->level);
    fflush(stdout);
}

/* The rows "... any enc. vs SoftFloat" of format f on the NANY operand
 * sets in ha, hb, hc: with SoftFloat 3e, the disagreement check, then
 * fplab (SoftFloat NaN preset, each result and its flags stored) against
 * SoftFloat 3e, target a ratio; without it, fplab alone, "not measured". */
typedef struct { const char *name; work_fn ours; work_fn sf3; } sf3_row;
static void sf3_rows(const fl_format *f, const sf3_row *ops, size_t nops,
                     double target)
{
    size_t o;
    for (o = 0; o < nops; o++) {
        if (filter && !strstr(ops[o].name, filter))
            continue;
#ifdef FPLAB_HAVE_SOFTFLOAT3
        {
            const size_t bad = sf3_disagree(f, ops[o].ours, ops[o].sf3, NANY);
            printf("%s: fplab and SoftFloat 3e %s on %zu operand sets "
                   "(result and IEEE flags)\n", ops[o].name,
                   bad ? "DISAGREE" : "agree", (size_t)NANY);
            if (bad)
                printf("  %zu disagreements\n", bad);
        }
        softfloat_roundingMode = softfloat_round_near_even;
        cur_nan = FL_NANP_SOFTFLOAT;
        run(ops[o].name, f, FL_RNE, ops[o].ours, ops[o].sf3,
            "SoftFloat 3e", NANY, target, 1);
        cur_nan = FL_NANP_X86;
#else
        (void)target;
        cur_nan = FL_NANP_SOFTFLOAT;
        run(ops[o].name, f, FL_RNE, ops[o].ours, NULL, "SoftFloat 3e",
            NANY, 0, 1);
        cur_nan = FL_NANP_X86;
        if (nrows > 0 && strstr(rows[nrows - 1].name, ops[o].name))
            rows[nrows - 1].note = "not measured (set FPLAB_SOFTFLOAT3_DIR)";
#endif
    }
}

int main(int argc, char **argv)
{
    size_t i;
    int k;
    if (argc > 1)
        reps = atoi(argv[1]) > 0 ? atoi(argv[1]) : 5;
    if (argc > 2)
        filter = argv[2];
    fsrc = aligned_alloc(64, NBIG * sizeof *fsrc);
    fspread = aligned_alloc(64, NBIG * sizeof *fspread);
    fdst = aligned_alloc(64, NBIG * sizeof *fdst);
    dsrc = aligned_alloc(64, NBIG * sizeof *dsrc);
    ddst = aligned_alloc(64, NBIG * sizeof *ddst);
    ha = malloc(NANY * 8); hb = malloc(NANY * 8);
    hc = malloc(NANY * 8); hr = malloc(NANY * 8);
    hfl = malloc(NANY * sizeof *hfl);
    for (i = 0; i < NBIG; i++) {
        uint64_t r = next();
        /* normal and subnormal fp16 range, both signs */
        fsrc[i] = (float)((double)(int32_t)r * 0x1p-31 *
                          (double)(1u << (r >> 40 & 31)) * 0x1p-18);
        dsrc[i] = (double)(int64_t)r * 0x1p-63 * (double)(1u << (r >> 40 & 31)) * 0x1p-18;
        /* realistic spread (gradients, activations): sign, a significand
         * in [1, 2) and an exponent uniform in -20..9, so every narrow
         * format and binary16 get subnormal (and some overflowing)
         * results */
        fspread[i] = (float)((r >> 63 ? -1.0 : 1.0) *
                             (1.0 + (double)(r & 0xFFFFFF) * 0x1p-24) *
                             ldexp(1.0, (int)((r >> 24) % 30) - 20));
    }
    bench_print_cpu("bench_speed");
    printf("bench_speed: %d repetitions, rates in M elem/s (median [min..max])\n", reps);

    /* scalar ops on random operands (finite, any class) */
    for (k = 0; k < 2; k++) {
        const fl_format *f = k ? &fl_binary32 : &fl_binary16;
        for (i = 0; i < NSMALL; i++) {
            uint64_t m = k ? 0xFFFFFFFFu : 0xFFFFu;
            do ha[i] = next() & m; while (fl_is_nan(f, ha[i]) || fl_is_inf(f, ha[i]));
            do hb[i] = next() & m; while (fl_is_nan(f, hb[i]) || fl_is_inf(f, hb[i]));
            do hc[i] = next() & m; while (fl_is_nan(f, hc[i]) || fl_is_inf(f, hc[i]));
        }
        if (!k) {
            run("binary16 add finite", f, FL_RNE, w_add, y_add16, "f32+F16C", NSMALL, 120, 0);
            run("binary16 mul finite", f, FL_RNE, w_mul, y_mul16, "f32+F16C", NSMALL, 120, 0);
            run("binary16 fma finite", f, FL_RNE, w_fma, y_fma16, "f32+F16C", NSMALL, 100, 0);
#ifdef FPLAB_HAVE_MPFR
            run("binary16 add (vs MPFR)", f, FL_RNE, w_add, y_mpfr_add16, "MPFR", NSMALL, 0, 0);
#endif
        } else {
            run("binary32 add", f, FL_RNE, w_add, y_add32, "f32 native", NSMALL, 120, 0);
            run("binary32 mul", f, FL_RNE, w_mul, y_mul32, "f32 native", NSMALL, 120, 0);
        }
    }
    /* TestFloat-style operands: every binary16 encoding equally likely */
    for (i = 0; i < NANY; i++) {
        ha[i] = next() & 0xFFFF;
        hb[i] = next() & 0xFFFF;
        hc[i] = next() & 0xFFFF;
    }
    {
#ifdef FPLAB_HAVE_SOFTFLOAT3
#define SF3(fn) fn
#else
#define SF3(fn) NULL
#endif
        static const sf3_row ops16[] = {
            { "binary16 add any enc. vs SoftFloat", w_add_fl, SF3(y_sf3_add) },
            { "binary16 mul any enc. vs SoftFloat", w_mul_fl, SF3(y_sf3_mul) },
            { "binary16 fma any enc. vs SoftFloat", w_fma_fl, SF3(y_sf3_fma) },
        };
        static const sf3_row ops32[] = {
            { "binary32 add any enc. vs SoftFloat", w_add_fl, SF3(y_sf3_add32) },
            { "binary32 mul any enc. vs SoftFloat", w_mul_fl, SF3(y_sf3_mul32) },
        };
#undef SF3
        sf3_rows(&fl_binary16, ops16, sizeof ops16 / sizeof ops16[0], 3.0);
        /* TestFloat-style binary32 operands: every 32-bit pattern equally
         * likely (NaNs, infinities, subnormals; hc unused by add and mul) */
        for (i = 0; i < NANY; i++) {
            ha[i] = next() & 0xFFFFFFFFu;
            hb[i] = next() & 0xFFFFFFFFu;
            hc[i] = next() & 0xFFFFFFFFu;
        }
        sf3_rows(&fl_binary32, ops32, sizeof ops32 / sizeof ops32[0], 2.0);
    }
    /* bulk rounding */
    {
        fl_format e4m3 = fl_fp8_e4m3;
        for (k = 0; k < 2; k++) {
            size_t n = k ? NBIG : NSMALL;
            run("f32->binary16 RNE", &fl_binary16, FL_RNE, w_round_f, y_f16c, "F16C", n, k ? 0.9 : 0, 1);
            /* vcvtneps2bf16 where the CPU has it; elsewhere the F16C
             * conversion, the yardstick of the other narrow formats */
            const int bf = (fl__cpu_features() & FL__CPU_BF16) != 0;
            run("f32->bfloat16 RNE", &fl_bfloat16, FL_RNE, w_round_f, bf ? y_bf16 : y_f16c,
                bf ? "AVX512-BF16" : "F16C", n, k ? 0.9 : 0, 1);
            run("f32->fp8-e4m3 RNE", &e4m3, FL_RNE, w_round_f, y_f16c, "F16C", n, k ? 0.9 : 0, 1);
            run("f64->binary16 RNE", &fl_binary16, FL_RNE, w_round_d, y_f16c_d, "f64->f32->F16C", n, k ? 1200 : 0, 0);
            run("f32->binary16 SR", &fl_binary16, FL_RSR, w_round_f, y_f16c, "F16C", n, k ? 1000 : 0, 0);
        }
        run("memcpy f32", &fl_binary16, FL_RNE, y_memcpy, NULL, NULL, NBIG, 0, 0);
        {
            /* every 8-, 6- and 4-bit format: nearest even against memcpy,
             * stochastic rounding in M elem/s */
            static const char *narrow[] = {
                "fp8-e4m3", "fp8-e5m2", "float8_e4m3", "float8_e3m4",
                "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
                "float8_e5m3fnu", "float8_e8m0fnu", "p3109:p1", "p3109:p2",
                "p3109:p3", "p3109:p4", "p3109:p5", "p3109:p6", "p3109:p7",
                "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "ieee:2:5",
                "ieee:6:1", "ieee:2:3", "ieee:3:2", "ieee:4:1", "ieee:2:1" };
            static fl_format nf[sizeof narrow / sizeof narrow[0]];
            size_t q;
            for (q = 0; q < sizeof narrow / sizeof narrow[0]; q++) {
                char nm[48], err[128];
                if (fl_format_parse(&nf[q], narrow[q], err, sizeof err)) {
                    fprintf(stderr, "bench_speed: %s\n", err);
                    return 2;
                }
                snprintf(nm, sizeof nm, "f32->%s RNE", narrow[q]);
                run(nm, &nf[q], FL_RNE, w_round_f, y_memcpy, "memcpy", NBIG, 0.8, 1);
                snprintf(nm, sizeof nm, "f32->%s SR", narrow[q]);
                run(nm, &nf[q], FL_RSR, w_round_f, NULL, NULL, NBIG, 1000, 0);
            }
            /* every format again on inputs spread over 2^-20 .. 2^9:
             * subnormal results (and overflow in the narrow formats) as
             * in real gradients, which the rows above mostly avoid */
            run("f32->binary16 RNE spread", &fl_binary16, FL_RNE, w_round_f_spread, y_memcpy, "memcpy", NBIG, 0.8, 1);
            run("f32->binary16 SR spread", &fl_binary16, FL_RSR, w_round_f_spread, NULL, NULL, NBIG, 1000, 0);
            run("f32->bfloat16 RNE spread", &fl_bfloat16, FL_RNE, w_round_f_spread, y_memcpy, "memcpy", NBIG, 0.8, 1);
            run("f32->bfloat16 SR spread", &fl_bfloat16, FL_RSR, w_round_f_spread, NULL, NULL, NBIG, 1000, 0);
            for (q = 0; q < sizeof narrow / sizeof narrow[0]; q++) {
                char nm[48];
                snprintf(nm, sizeof nm, "f32->%s RNE spread", narrow[q]);
                run(nm, &nf[q], FL_RNE, w_round_f_spread, y_memcpy, "memcpy", NBIG, 0.8, 1);
                snprintf(nm, sizeof nm, "f32->%s SR spread", narrow[q]);
                run(nm, &nf[q], FL_RSR, w_round_f_spread, NULL, NULL, NBIG, 1000, 0);
            }
        }
        /* threads: the compute part (slower thread's CPU time) and wall */
        self_timed = 1;
        run("f32->binary16 RNE 2 thr (cpu)", &fl_binary16, FL_RNE, w_round_f_cpu2, w_round_f_cpu1, "1 thread", NBIG, 1.8, 1);
        run("f32->binary16 SR 2 thr (cpu)", &fl_binary16, FL_RSR, w_round_f_cpu2, w_round_f_cpu1, "1 thread", NBIG, 1.8, 1);
        self_timed = 0;
        use_wall = 1;
        run("f32->binary16 RNE 2 thr (wall)", &fl_binary16, FL_RNE, w_round_f_2t, w_round_f_mt1, "1 thread", NBIG, 0, 1);
        run("f32->binary16 SR 2 thr (wall)", &fl_binary16, FL_RSR, w_round_f_2t, w_round_f_mt1, "1 thread", NBIG, 0, 1);
        /* identical results and flags from 1 and 2 threads, SR included */
        {
            float *a = malloc(NBIG * sizeof *a);
            unsigned f1 = 0, f2 = 0;
            cur_fmt = &fl_binary16; cur_ctx = fl_ctx_make(FL_RSR); cur_ctx.sr_seed = 7;
            fl_round_float_array(cur_fmt, a, fsrc, NBIG, &cur_ctx, &f1);
            fl_round_float_array_mt(cur_fmt, fdst, fsrc, NBIG, &cur_ctx, &f2, 2);
            printf("SR 1 vs 2 threads: %s\n",
                   memcmp(a, fdst, NBIG * sizeof *a) || f1 != f2 ? "DIFFERENT" : "identical");
            free(a);
        }
        use_wall = 0;
    }
    printf("\nsummary (targets: M ops/s, or ratio to the yardstick)\n");
    printf("%-40s %10s %10s %8s %8s %-10s %s\n", "workload", "fplab", "yardstick", "ratio", "target", "level", "");
    for (k = 0; k < nrows; k++) {
        row_t *r = &rows[k];
        const double ratio = r->ratio;
        const char *v = r->target <= 0 ? "" :
            (r->target_is_ratio ? ratio >= r->target : r->rate >= r->target) ? "PASS" : "GAP";
        if (r->note)
            v = r->note;
        printf("%-40s %10.1f %10.1f %8.2f %8.2f %-10s %s\n", r->name, r->rate, r->yrate,
               ratio, r->target, r->level, v);
    }
    return (int)(sink & 0);
}
