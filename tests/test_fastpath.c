/*
 * test_fastpath.c — the fast paths of the core (src/softfloat/fast.h,
 * fast_array.c) against the generic code they must equal bit for bit:
 * value and the whole flag word (IEEE flags and FL_TERN_UP/DOWN).
 *
 * The generic code is forced by a copy of the format with FL__FMT_NOFAST
 * set in its reserved field.  Default run (label unit): random sampling,
 * every operation at least 10^6 cases (times FPLAB_TEST_SCALE) over random
 * formats, modes (all seven), tininess, ftz, daz, saturation and NaN
 * presets.  `test_fastpath exhaustive` (label exhaustive): every pair of
 * binary16 and of bfloat16 encodings for add, sub, mul and div, and every
 * binary32 encoding converted to binary16 and bfloat16 in all seven modes,
 * on all cores.  FPLAB_TEST_SEED replays a random run.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fplab/fplab.h"
#include "fast.h"

static uint64_t sm_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t get_seed(void)
{
    const char *e = getenv("FPLAB_TEST_SEED");
    uint64_t seed = e && *e ? strtoull(e, NULL, 0)
                            : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)clock();
    printf("test_fastpath: seed %" PRIu64 " (replay with FPLAB_TEST_SEED=%"
           PRIu64 ")\n", seed, seed);
    fflush(stdout);
    return seed;
}

static long get_scale(void)
{
    const char *e = getenv("FPLAB_TEST_SCALE");
    long s = e && *e ? strtol(e, NULL, 0) : 1;
    return s < 1 ? 1 : s;
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_DIV, OP_SQRT, OP_CVT32, OP_CVT64,
       OP_CVTFMT, OP_RFLOAT, OP_RDOUBLE, OP_AFLOAT, OP_ADOUBLE, OP_COUNT };
static const char *op_names[OP_COUNT] = {
    "add", "sub", "mul", "fma", "div", "sqrt", "convert<-binary32",
    "convert<-binary64", "convert<-binary16", "round_float", "round_double",
    "round_float_array", "round_double_array" };

/* Formats under test (fast-path ones) and their generic twins. */
#define NFMT 8
static fl_format fast_fmt[NFMT], slow_fmt[NFMT];
static const char *fmt_specs[NFMT] = { "binary16", "bfloat16", "binary32",
    "tf32", "fp8-e4m3", "fp8-e5m2", "ieee:6:9", "ieee:3:2" };

static void setup_formats(void)
{
    int i;
    char err[128];
    for (i = 0; i < NFMT; i++) {
        if (fl_format_parse(&fast_fmt[i], fmt_specs[i], err, sizeof err)) {
            fprintf(stderr, "format %s: %s\n", fmt_specs[i], err);
            exit(2);
        }
        slow_fmt[i] = fast_fmt[i];
        slow_fmt[i].reserved |= FL__FMT_NOFAST;
    }
    /* a saturating FN variant of e4m3 in place of nothing: use ctx.saturate */
}

/* An operand of f: random bits, or a value near an interesting boundary. */
static uint64_t rnd_operand(const fl_format *f, uint64_t *s)
{
    uint64_t r = sm_next(s), mask = f->width == 64 ? ~0ull
                                      : ((uint64_t)1 << f->width) - 1;
    uint64_t v = sm_next(s) & mask;
    switch (r & 7) {
    case 0: /* tiny: subnormal or smallest normals */
        return (v & (f->sign_mask | f->frac_mask | ((uint64_t)1 << (f->prec - 1))));
    case 1: /* near the largest finite */
        return (v & (f->sign_mask | 7)) ^ (f->max_bits & ~(uint64_t)7);
    case 2: /* few significant bits (exact results, ties) */
        return v & ~(f->frac_mask >> 2);
    default:
        return v;
    }
}

static fl_ctx rnd_ctx(uint64_t *s)
{
    uint64_t r = sm_next(s);
    fl_ctx c = fl_ctx_make((int)(r % FL_RM_COUNT));
    r /= FL_RM_COUNT;
    c.tininess = (uint8_t)(r & 1);
    c.ftz = (r >> 1 & 3) == 0;
    c.daz = (r >> 3 & 3) == 0;
    c.saturate = (r >> 5 & 3) == 0;
    c.nan = (uint8_t)((r >> 7) % FL_NANP_COUNT);
    c.sr_seed = sm_next(s);
    c.sr_index = sm_next(s);
    return c;
}

static long failures;

static void report(int op, const fl_format *f, const fl_ctx *c, uint64_t a,
                   uint64_t b, uint64_t d, uint64_t want, unsigned wf,
                   uint64_t got, unsigned gf)
{
    if (failures++ < 20)
        printf("MISMATCH %s %s rm=%s tin=%d ftz=%d daz=%d sat=%d nan=%d "
               "sr=%" PRIx64 "/%" PRIx64 " a=%" PRIx64 " b=%" PRIx64
               " c=%" PRIx64 ": generic %" PRIx64 " flags %02x, fast %"
               PRIx64 " flags %02x\n", op_names[op], f->name,
               fl_rm_name(c->rm), c->tininess, c->ftz, c->daz, c->saturate,
               c->nan, c->sr_seed, c->sr_index, a, b, d, want, wf, got, gf);
}

static uint64_t f2u(float x) { fl__f32 v; v.f = x; return v.u; }
static float u2f(uint32_t u) { fl__f32 v; v.u = u; return v.f; }

/* One random case of op; returns 1 if the fast path handled it. */
static int one_case(int op, int fi, uint64_t *s, int *handled)
{
    const fl_format *ff = &fast_fmt[fi], *sf = &slow_fmt[fi];
    fl_ctx c = rnd_ctx(s);
    uint64_t a = rnd_operand(ff, s), b = rnd_operand(ff, s),
             d = rnd_operand(ff, s), want = 0, got = 0, tmp;
    unsigned wf = 0, gf = 0, tf = 0;
    *handled = 0;
    switch (op) {
    case OP_ADD:
        *handled = fl__fast_add(ff, a, b, &c, &tf, &tmp);
        got = fl_add(ff, a, b, &c, &gf); want = fl_add(sf, a, b, &c, &wf);
        break;
    case OP_SUB:
        *handled = fl__fast_add(ff, a, b ^ ff->sign_mask, &c, &tf, &tmp);
        got = fl_sub(ff, a, b, &c, &gf); want = fl_sub(sf, a, b, &c, &wf);
        break;
    case OP_MUL:
        *handled = fl__fast_mul(ff, a, b, &c, &tf, &tmp);
        got = fl_mul(ff, a, b, &c, &gf); want = fl_mul(sf, a, b, &c, &wf);
        break;
    case OP_FMA:
        *handled = fl__fast_fma(ff, a, b, d, &c, &tf, &tmp);
        got = fl_fma(ff, a, b, d, &c, &gf);
        want = fl_fma(sf, a, b, d, &c, &wf);
        break;
    case OP_DIV:
        *handled = fl__fast_div(ff, a, b, &c, &tf, &tmp);
        got = fl_div(ff, a, b, &c, &gf); want = fl_div(sf, a, b, &c, &wf);
        break;
    case OP_SQRT:
        /* direct call: the dispatch in sqrt.c may not be there yet */
        if (sm_next(s) & 3)
            a &= ~ff->sign_mask;
        *handled = fl__fast_sqrt(ff, a, &c, &gf, &got);
        if (!*handled)
            got = fl_sqrt(sf, a, &c, &gf);
        want = fl_sqrt(sf, a, &c, &wf);
        break;
    case OP_CVT32:
        a = sm_next(s) & 0xFFFFFFFFu;
        if (sm_next(s) & 1)   /* concentrate on ff's range */
            a = (a & 0x80000000u) | ((a & 0x7FFFFFFFu) % 0x10000000u + 0x30000000u);
        *handled = fl__fast_convert(ff, &fast_fmt[2], a, &c, &tf, &tmp);
        got = fl_convert(ff, &fast_fmt[2], a, &c, &gf);
        want = fl_convert(sf, &slow_fmt[2], a, &c, &wf);
        break;
    case OP_CVT64: {
        fl__d64 v;
        v.u = sm_next(s);
        if (sm_next(s) & 3)
            v.d = ldexp((double)(int64_t)sm_next(s), -(int)(sm_next(s) % 220) + 20);
        a = v.u;
        *handled = fl__fast_convert(ff, &fl_binary64, a, &c, &tf, &tmp);
        got = fl_convert(ff, &fl_binary64, a, &c, &gf);
        want = fl_convert(sf, &fl_binary64, a, &c, &wf);
        break;
    }
    case OP_CVTFMT:   /* any small format to another */
        a &= 0xFFFF;
        *handled = fl__fast_convert(ff, &fast_fmt[0], a, &c, &tf, &tmp);
        got = fl_convert(ff, &fast_fmt[0], a, &c, &gf);
        want = fl_convert(sf, &slow_fmt[0], a, &c, &wf);
        break;
    case OP_RFLOAT: {
        float x = u2f((uint32_t)(sm_next(s) & 0xFFFFFFFFu)), r;
        if (sm_next(s) & 1)
            x = (float)ldexp((double)(int32_t)sm_next(s), -(int)(sm_next(s) % 200) + 40);
        a = f2u(x);
        *handled = fl__fast_round_float(ff, x, &c, &tf, &r);
        got = f2u(fl_round_float(ff, x, &c, &gf));
        want = f2u(fl_round_float(sf, x, &c, &wf));
        break;
    }
    case OP_RDOUBLE: {
        fl__d64 x, r;
        x.u = sm_next(s);
        if (sm_next(s) & 3)
            x.d = ldexp((double)(int64_t)sm_next(s), -(int)(sm_next(s) % 220) + 20);
        a = x.u;
        *handled = fl__fast_round_double(ff, x.d, &c, &tf, &r.d);
        r.d = fl_round_double(ff, x.d, &c, &gf); got = r.u;
        r.d = fl_round_double(sf, x.d, &c, &wf); want = r.u;
        break;
    }
    default:
        break;
    }
    if (got != want || gf != wf)
        report(op, ff, &c, a, b, d, want, wf, got, gf);
    return 1;
}

/* Arrays: a block of random floats/doubles, fast vs generic, with split
 * points (as threads would) to show the result does not depend on them. */
static uint64_t array_cases(int op, int fi, uint64_t *s, size_t n)
{
    const fl_format *ff = &fast_fmt[fi], *sf = &slow_fmt[fi];
    fl_ctx c = rnd_ctx(s);
    size_t i, cut = (size_t)(sm_next(s) % (n + 1));
    unsigned wf = 0, gf = 0, gf2 = 0;
    if (op == OP_AFLOAT) {
        float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w),
              *g = malloc(n * sizeof *g);
        for (i = 0; i < n; i++) {
            uint64_t r = sm_next(s);
            x[i] = (r & 3) ? (float)ldexp((double)(int32_t)r, -(int)(r >> 40 & 127) + 10)
                           : u2f((uint32_t)(r >> 32));
        }
        fl_round_float_array(sf, w, x, n, &c, &wf);
        fl_round_float_array(ff, g, x, cut, &c, &gf);
        {
            fl_ctx c2 = c;
            c2.sr_index += cut;
            fl_round_float_array(ff, g + cut, x + cut, n - cut, &c2, &gf2);
        }
        gf |= gf2;
        for (i = 0; i < n; i++)
            if (f2u(w[i]) != f2u(g[i])) {
                report(op, ff, &c, f2u(x[i]), i, cut, f2u(w[i]), wf, f2u(g[i]), gf);
                break;
            }
        if (gf != wf)
            report(op, ff, &c, 0, n, cut, 0, wf, 0, gf);
        free(x); free(w); free(g);
    } else {
        double *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w),
               *g = malloc(n * sizeof *g);
        for (i = 0; i < n; i++) {
            uint64_t r = sm_next(s);
            fl__d64 v;
            v.u = sm_next(s);
            x[i] = (r & 3) ? ldexp((double)(int64_t)r, -(int)(r >> 40 & 255) + 10) : v.d;
        }
        fl_round_double_array(sf, w, x, n, &c, &wf);
        fl_round_double_array(ff, g, x, cut, &c, &gf);
        {
            fl_ctx c2 = c;
            c2.sr_index += cut;
            fl_round_double_array(ff, g + cut, x + cut, n - cut, &c2, &gf2);
        }
        gf |= gf2;
        for (i = 0; i < n; i++)
            if (fl__u_of(w[i]) != fl__u_of(g[i])) {
                report(op, ff, &c, fl__u_of(x[i]), i, cut, fl__u_of(w[i]), wf,
                       fl__u_of(g[i]), gf);
                break;
            }
        if (gf != wf)
            report(op, ff, &c, 0, n, cut, 0, wf, 0, gf);
        free(x); free(w); free(g);
    }
    return n;
}

static int run_random(void)
{
    uint64_t seed = get_seed(), s = seed;
    const uint64_t per_op = 1000000ull * (uint64_t)get_scale();
    int op, bad = 0;
    for (op = 0; op < OP_COUNT; op++) {
        uint64_t cases = 0, handled = 0;
        if (op == OP_AFLOAT || op == OP_ADOUBLE) {
            while (cases < per_op)
                cases += array_cases(op, (int)(sm_next(&s) % NFMT), &s,
                                     1 + (size_t)(sm_next(&s) % 4096));
            handled = cases;
        } else {
            for (; cases < per_op; cases++) {
                int h;
                one_case(op, (int)(sm_next(&s) % NFMT), &s, &h);
                handled += (uint64_t)h;
            }
        }
        printf("%-20s %10" PRIu64 " cases, %10" PRIu64 " on the fast path, "
               "%ld mismatches so far\n", op_names[op], cases, handled, failures);
        /* the fast path must actually run, or this test proves nothing */
        if (cases < per_op || handled * 2 < cases) {
            printf("FAIL: %s: too few cases on the fast path\n", op_names[op]);
            bad = 1;
        }
    }
    return bad || failures ? 1 : 0;
}

/* ---- exhaustive ---------------------------------------------------------- */
typedef struct { int job; uint64_t lo, hi, cases, mism; } ex_task;

static void *ex_worker(void *arg)
{
    ex_task *t = arg;
    uint64_t i;
    fl_ctx c = FL_CTX_INIT;
    for (i = t->lo; i < t->hi; i++) {
        uint64_t a, b, w, g;
        unsigned wf = 0, gf = 0;
        int job = t->job, fi = (job >> 4) & 1, op = job & 15;
        if (op < 4) {
            a = i >> 16; b = i & 0xFFFF;
            switch (op) {
            case 0: w = fl_add(&slow_fmt[fi], a, b, &c, &wf); g = fl_add(&fast_fmt[fi], a, b, &c, &gf); break;
            case 1: w = fl_sub(&slow_fmt[fi], a, b, &c, &wf); g = fl_sub(&fast_fmt[fi], a, b, &c, &gf); break;
            case 2: w = fl_mul(&slow_fmt[fi], a, b, &c, &wf); g = fl_mul(&fast_fmt[fi], a, b, &c, &gf); break;
            default: w = fl_div(&slow_fmt[fi], a, b, &c, &wf); g = fl_div(&fast_fmt[fi], a, b, &c, &gf); break;
            }
        } else {
            fl_ctx cm = fl_ctx_make(op - 4);
            cm.sr_seed = 12345; cm.sr_index = i;
            a = i; b = 0;
            w = fl_convert(&slow_fmt[fi], &slow_fmt[2], a, &cm, &wf);
            g = fl_convert(&fast_fmt[fi], &fast_fmt[2], a, &cm, &gf);
        }
        t->cases++;
        if (w != g || wf != gf) {
            if (t->mism++ < 5)
                printf("MISMATCH job %d a=%" PRIx64 " b=%" PRIx64 ": generic %"
                       PRIx64 "/%02x fast %" PRIx64 "/%02x\n", job, a, b, w, wf, g, gf);
        }
    }
    return NULL;
}

static int run_exhaustive(void)
{
    long nthr = sysconf(_SC_NPROCESSORS_ONLN);
    const char *lim = getenv("FPLAB_EXHAUSTIVE_LIMIT");   /* for a quick look */
    uint64_t space = lim && *lim ? strtoull(lim, NULL, 0) : (uint64_t)1 << 32;
    uint64_t total = 0, mism = 0, expect = 0;
    int fi, op, t;
    if (nthr < 1) nthr = 1;
    if (nthr > 64) nthr = 64;
    for (fi = 0; fi < 2; fi++)
        for (op = 0; op < 4 + FL_RM_COUNT; op++) {
            ex_task task[64];
            pthread_t th[64];
            for (t = 0; t < nthr; t++) {
                task[t].job = fi << 4 | op;
                task[t].lo = space / (uint64_t)nthr * (uint64_t)t;
                task[t].hi = t == nthr - 1 ? space : space / (uint64_t)nthr * (uint64_t)(t + 1);
                task[t].cases = task[t].mism = 0;
                pthread_create(&th[t], NULL, ex_worker, &task[t]);
            }
            {
                uint64_t c = 0, m = 0;
                for (t = 0; t < nthr; t++) {
                    pthread_join(th[t], NULL);
                    c += task[t].cases;
                    m += task[t].mism;
                }
                printf("%s %s: %" PRIu64 " cases, %" PRIu64 " mismatches\n",
                       fast_fmt[fi].name,
                       op < 4 ? op_names[op < 2 ? op : op + 0 == 2 ? OP_MUL : OP_DIV]
                              : fl_rm_name(op - 4),
                       c, m);
                fflush(stdout);
                total += c; mism += m; expect += space;
            }
        }
    printf("exhaustive: %" PRIu64 " cases (expected %" PRIu64 "), %" PRIu64
           " mismatches\n", total, expect, mism);
    return total == expect && mism == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    setup_formats();
    if (argc > 1 && strcmp(argv[1], "exhaustive") == 0)
        return run_exhaustive();
    return run_random();
}
