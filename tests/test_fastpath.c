/*
 * test_fastpath.c — the fast paths of the core (src/softfloat/fast.h,
 * fast_array.c) against the generic code they must equal bit for bit:
 * value and the whole flag word (IEEE flags and FL_TERN_UP/DOWN).
 *
 * The generic code is forced by a copy of the format with FL__FMT_NOFAST
 * set in its reserved field.  Default run (label unit): random sampling,
 * every operation at least 10^6 cases (times FPLAB_TEST_SCALE) over random
 * formats, modes (all seven), tininess, ftz, daz, saturation and NaN
 * presets; the SIMD array kernels (fast_simd.c) at every level the CPU has,
 * on arrays of random length with corner-case inputs; the multi-threaded
 * arrays (fplab/parallel.h) with 1 to 5 threads against one; the
 * element-wise fl_add_array .. fl_div_array (AVX-512 kernels of
 * fast_simd_binop.c) on random formats, contexts and lengths, in place and
 * not, element by element.
 * `test_fastpath exhaustive` (label exhaustive): every pair of binary16
 * and of bfloat16 encodings for add, sub, mul and div (by the scalar entry
 * points, and by fl_*_array in nearest-even), and every binary32 encoding
 * converted to binary16 and bfloat16 in all seven modes, by fl_convert and
 * by the array kernels, on all cores
 * (FPLAB_EXHAUSTIVE_LIMIT=N: the first N indices of each sweep).
 * FPLAB_TEST_SEED replays a random run.
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
#include "fplab/parallel.h"
#include "test_common.h"

static uint64_t sm_next(uint64_t *s)
{
    return tc_splitmix(s);
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_DIV, OP_SQRT, OP_CVT32, OP_CVT64,
       OP_CVTFMT, OP_RFLOAT, OP_RDOUBLE, OP_AFLOAT, OP_ADOUBLE, OP_SIMDF,
       OP_SIMDD, OP_MT, OP_BINARR, OP_COUNT };
static const char *op_names[OP_COUNT] = {
    "add", "sub", "mul", "fma", "div", "sqrt", "convert<-binary32",
    "convert<-binary64", "convert<-binary16", "round_float", "round_double",
    "round_float_array", "round_double_array", "simd float kernels",
    "simd double kernels", "array_mt (1-5 threads)",
    "add/sub/mul/div_array" };

/* Formats under test (fast-path ones) and their generic twins. */
#define NFMT 13
static fl_format fast_fmt[NFMT], slow_fmt[NFMT];
static const char *fmt_specs[NFMT] = { "binary16", "bfloat16", "binary32",
    "tf32", "fp8-e4m3", "fp8-e5m2", "ieee:6:9", "ieee:3:2", "float8_e4m3",
    "float8_e3m4", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn" };

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
        if (sm_next(s) & 3)
            a &= ~ff->sign_mask;
        *handled = fl__fast_sqrt(ff, a, &c, &tf, &tmp);
        got = fl_sqrt(ff, a, &c, &gf);
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

/*
 * SIMD kernels, called directly at every level this CPU and build have
 * (1 = AVX2, 2 = AVX-512), against the generic code element by element.
 * Inputs concentrate on the kernels' corners: significands with trailing
 * zeros (ties at every shift), exponents from below f's smallest subnormal
 * to beyond its largest finite value, the binade below 2^emin, host
 * subnormals, zeros, infinities and NaNs (quiet and signaling).
 */
static uint64_t simd_input_m(const fl_format *f, uint64_t *s, int dbl,
                             int mild);
static uint64_t simd_input(const fl_format *f, uint64_t *s, int dbl)
{
    return simd_input_m(f, s, dbl, 0);
}

/* mild: no NaN, infinity or overflow, so whole vector blocks stay on the
 * kernels' block paths (the host-conversion and common blocks) */
static uint64_t simd_input_m(const fl_format *f, uint64_t *s, int dbl,
                             int mild)
{
    const int fb = dbl ? 52 : 23, hb = dbl ? 1023 : 127;
    uint64_t r = sm_next(s), sig = sm_next(s), sign = r & 1, bits;
    int32_t e;
    if (mild == 3)                  /* just below 2^emin */
        goto below_emin;
    if (mild == 2) {                /* normal range only */
        e = f->emin + (int32_t)((r >> 8) % (uint64_t)(f->emax - f->emin));
        goto finite;
    }
    if (mild) {
        e = f->emin - f->prec - 3 +
            (int32_t)((r >> 8) % (uint64_t)(f->emax - f->emin + f->prec + 3));
        if ((r >> 1 & 15) == 0)
            return sign << (fb + (dbl ? 11 : 8));              /* +-0 */
        if ((r >> 1 & 15) == 1)
            goto below_emin;
        goto finite;
    }
    switch (r >> 1 & 15) {
    case 0: return (sign << (fb + (dbl ? 11 : 8))) | (sig & (((uint64_t)1 << fb) - 1)); /* host subnormal or zero */
    case 1: /* inf / NaN */
        bits = ((((uint64_t)1 << (dbl ? 11 : 8)) - 1) << fb) |
               ((r >> 8 & 1) ? sig & (((uint64_t)1 << fb) - 1) : 0);
        return (sign << (fb + (dbl ? 11 : 8))) | bits;
    case 2: return sign << (fb + (dbl ? 11 : 8));                  /* +-0 */
    case 3: e = f->emin - 1; break;                                 /* border binade */
    case 4:
    below_emin:
        /* just below 2^emin: rounds to 2^emin at p bits or only at the
         * subnormal precision (tininess after rounding) */
        e = f->emin - 1;
        sig = (((uint64_t)1 << fb) - 1) - (sig >> (64 - fb) >> (r >> 8) % 24);
        if (e + hb < 1)
            return (sign << (fb + (dbl ? 11 : 8))) |
                   ((sig | ((uint64_t)1 << fb)) >> (1 - e - hb));
        return (sign << (fb + (dbl ? 11 : 8))) | ((uint64_t)(e + hb) << fb) | sig;
    default:
        e = f->emin - f->prec - 3 + (int32_t)((r >> 8) % (uint64_t)(f->emax - f->emin + f->prec + 7));
        break;
    }
finite:
    /* random trailing zeros: exact values, ties, near-ties */
    sig &= ((uint64_t)1 << fb) - 1;
    sig &= ~(uint64_t)0 << (r >> 20) % (uint64_t)(fb + 1);
    if (r >> 30 & 1)
        sig |= (uint64_t)1 << ((r >> 32) % (uint64_t)fb);   /* a lone bit: tie shapes */
    if (e + hb < 1)
        return (sign << (fb + (dbl ? 11 : 8))) | ((sig | ((uint64_t)1 << fb)) >> (1 - e - hb > fb + 1 ? fb + 1 : 1 - e - hb));
    if (e + hb > 2 * hb)
        e = hb;
    return (sign << (fb + (dbl ? 11 : 8))) | ((uint64_t)(e + hb) << fb) | sig;
}

static long simd_levels(void)
{
    return fl__simd_available();
}

/* One random array through the kernel at `level`, the rest (tail and
 * undecided lanes are inside the kernel) through fl_round_*; compared with
 * the generic code on every value and on the OR of the flags. */
static uint64_t simd_cases(int op, int fi, uint64_t *s, size_t n, int level,
                           uint64_t *handled)
{
    const fl_format *ff = &fast_fmt[fi], *sf = &slow_fmt[fi];
    fl_ctx c = rnd_ctx(s);
    size_t i, k;
    unsigned wf = 0, gf = 0;
    /* 0: any inputs; 1: no NaN/inf/overflow; 2: normal-range values with
     * one lane of kind 1 or 3 (just below 2^emin), so that one lane's
     * flags show in the OR */
    const int mild = (int)(sm_next(s) % 3);
    const size_t odd = (size_t)(sm_next(s) % n);
    const int oddk = 1 + 2 * (int)(sm_next(s) & 1);   /* kind 1 or 3 */
    if (op == OP_SIMDF) {
        float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w),
              *g = malloc(n * sizeof *g);
        for (i = 0; i < n; i++)
            x[i] = u2f((uint32_t)simd_input_m(ff, s, 0,
                                              mild == 2 && i == odd ? oddk : mild));
        for (i = 0; i < n; i++) {
            fl_ctx ci = c;
            ci.sr_index = c.sr_index + i;
            w[i] = fl_round_float(sf, x[i], &ci, &wf);
        }
        k = fl__simd_round_float_array(ff, g, x, n, &c, &gf, level);
        *handled += k;
        for (i = k; i < n; i++) {
            fl_ctx ci = c;
            ci.sr_index = c.sr_index + i;
            g[i] = fl_round_float(ff, x[i], &ci, &gf);
        }
        for (i = 0; i < n; i++)
            if (f2u(w[i]) != f2u(g[i])) {
                report(op, ff, &c, f2u(x[i]), i, (uint64_t)level, f2u(w[i]), wf, f2u(g[i]), gf);
                break;
            }
        if (gf != wf)
            report(op, ff, &c, 0, n, (uint64_t)level, 0, wf, 0, gf);
        free(x); free(w); free(g);
    } else {
        double *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w),
               *g = malloc(n * sizeof *g);
        for (i = 0; i < n; i++) {
            fl__d64 v;
            v.u = simd_input_m(ff, s, 1, mild == 2 && i == odd ? oddk : mild);
            x[i] = v.d;
        }
        for (i = 0; i < n; i++) {
            fl_ctx ci = c;
            ci.sr_index = c.sr_index + i;
            w[i] = fl_round_double(sf, x[i], &ci, &wf);
        }
        k = fl__simd_round_double_array(ff, g, x, n, &c, &gf, level);
        *handled += k;
        for (i = k; i < n; i++) {
            fl_ctx ci = c;
            ci.sr_index = c.sr_index + i;
            g[i] = fl_round_double(ff, x[i], &ci, &gf);
        }
        for (i = 0; i < n; i++)
            if (fl__u_of(w[i]) != fl__u_of(g[i])) {
                report(op, ff, &c, fl__u_of(x[i]), i, (uint64_t)level,
                       fl__u_of(w[i]), wf, fl__u_of(g[i]), gf);
                break;
            }
        if (gf != wf)
            report(op, ff, &c, 0, n, (uint64_t)level, 0, wf, 0, gf);
        free(x); free(w); free(g);
    }
    return n;
}

/* One array past the kernels' streaming-store threshold (8 MiB), aligned
 * for it, through the kernel at `level`, against the generic code. */
static uint64_t stream_case(int fi, uint64_t *s, int level,
                            uint64_t *handled)
{
    const fl_format *ff = &fast_fmt[fi], *sf = &slow_fmt[fi];
    const size_t n = ((size_t)8 << 20) / sizeof(float) + 37;
    fl_ctx c = rnd_ctx(s);
    float *x = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64),
          *g = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    unsigned wf = 0, gf = 0;
    size_t i, k, bad = 0;
    for (i = 0; i < n; i++)
        x[i] = u2f((uint32_t)simd_input(ff, s, 0));
    k = fl__simd_round_float_array(ff, g, x, n, &c, &gf, level);
    *handled += k;
    for (i = k; i < n; i++) {
        fl_ctx ci = c;
        ci.sr_index = c.sr_index + i;
        g[i] = fl_round_float(ff, x[i], &ci, &gf);
    }
    for (i = 0; i < n; i++) {
        fl_ctx ci = c;
        float w;
        ci.sr_index = c.sr_index + i;
        w = fl_round_float(sf, x[i], &ci, &wf);
        if (f2u(w) != f2u(g[i]) && bad++ == 0)
            report(OP_SIMDF, ff, &c, f2u(x[i]), i, (uint64_t)level, f2u(w), wf,
                   f2u(g[i]), gf);
    }
    if (gf != wf)
        report(OP_SIMDF, ff, &c, 0, n, (uint64_t)level, 0, wf, 0, gf);
    free(x); free(g);
    return n;
}

/* fl_round_*_array_mt with 1..5 threads (in place for some) against the
 * single-thread call: identical values and flags. */
static uint64_t mt_cases(int fi, uint64_t *s, size_t n)
{
    const fl_format *ff = &fast_fmt[fi];
    fl_ctx c = rnd_ctx(s);
    float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w),
          *g = malloc(n * sizeof *g);
    unsigned wf = 0;
    size_t i;
    int t;
    for (i = 0; i < n; i++)
        x[i] = u2f((uint32_t)simd_input(ff, s, 0));
    fl_round_float_array(ff, w, x, n, &c, &wf);
    for (t = 1; t <= 5; t++) {
        unsigned gf = 0;
        const int inplace = t == 3;
        if (inplace)
            memcpy(g, x, n * sizeof *g);
        fl_round_float_array_mt(ff, g, inplace ? g : x, n, &c, &gf, t);
        for (i = 0; i < n; i++)
            if (f2u(w[i]) != f2u(g[i])) {
                report(OP_MT, ff, &c, f2u(x[i]), i, (uint64_t)t, f2u(w[i]), wf, f2u(g[i]), gf);
                break;
            }
        if (gf != wf)
            report(OP_MT, ff, &c, 0, n, (uint64_t)t, 0, wf, 0, gf);
    }
    {   /* the double version once, 2 threads */
        double *xd = malloc(n * sizeof *xd), *wd = malloc(n * sizeof *wd),
               *gd = malloc(n * sizeof *gd);
        unsigned wdf = 0, gdf = 0;
        for (i = 0; i < n; i++) {
            fl__d64 v;
            v.u = simd_input(ff, s, 1);
            xd[i] = v.d;
        }
        fl_round_double_array(ff, wd, xd, n, &c, &wdf);
        fl_round_double_array_mt(ff, gd, xd, n, &c, &gdf, 2);
        if (memcmp(wd, gd, n * sizeof *wd) || wdf != gdf)
            report(OP_MT, ff, &c, 0, n, 2, 0, wdf, 0, gdf);
        free(xd); free(wd); free(gd);
    }
    free(x); free(w); free(g);
    return n * 5;
}

/* fl_add_array .. fl_div_array (the AVX-512 kernels of fast_simd_binop.c
 * where the CPU has them, else the scalar loop) against the generic scalar
 * code, element by element, value and whole flag word; every third array
 * is computed in place (r == a). */
static uint64_t binarr_cases(int fi, uint64_t *s, size_t n, uint64_t *handled)
{
    const fl_format *ff = &fast_fmt[fi], *sf = &slow_fmt[fi];
    uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *r = malloc(n * 8);
    unsigned *fl = malloc(n * sizeof *fl);
    const int op = (int)(sm_next(s) % 4), inplace = sm_next(s) % 3 == 0;
    fl_ctx c = rnd_ctx(s);
    size_t i;
    if (!a || !b || !r || !fl) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (i = 0; i < n; i++) {
        a[i] = rnd_operand(ff, s);
        /* half the time b near a (cancellation, ties, equal operands) */
        b[i] = (sm_next(s) & 1) ? rnd_operand(ff, s)
                                : (a[i] ^ (sm_next(s) & 3)) ^
                                      ((sm_next(s) & 1) ? ff->sign_mask : 0);
    }
    if (inplace)
        memcpy(r, a, n * 8);
    {
        const uint64_t *src = inplace ? r : a;
        switch (op) {
        case 0: fl_add_array(ff, r, src, b, n, &c, fl); break;
        case 1: fl_sub_array(ff, r, src, b, n, &c, fl); break;
        case 2: fl_mul_array(ff, r, src, b, n, &c, fl); break;
        default: fl_div_array(ff, r, src, b, n, &c, fl); break;
        }
    }
    for (i = 0; i < n; i++) {
        fl_ctx ci = c;
        unsigned wf = 0;
        uint64_t w;
        ci.sr_index = c.sr_index + i;
        switch (op) {
        case 0: w = fl_add(sf, a[i], b[i], &ci, &wf); break;
        case 1: w = fl_sub(sf, a[i], b[i], &ci, &wf); break;
        case 2: w = fl_mul(sf, a[i], b[i], &ci, &wf); break;
        default: w = fl_div(sf, a[i], b[i], &ci, &wf); break;
        }
        if (w != r[i] || wf != fl[i])
            report(OP_BINARR, ff, &ci, a[i], b[i], (uint64_t)op, w, wf,
                   r[i], fl[i]);
    }
    *handled += n;
    free(a); free(b); free(r); free(fl);
    return n;
}

static long never_fast(uint64_t *s, uint64_t *cases);

static int run_random(void)
{
    uint64_t seed = tc_seed("test_fastpath"), s = seed;
    const uint64_t per_op = 1000000ull * (uint64_t)tc_scale();
    int op, bad = 0;
    for (op = 0; op < OP_COUNT; op++) {
        uint64_t cases = 0, handled = 0;
        if (op == OP_SIMDF || op == OP_SIMDD) {
            const int lv = (int)simd_levels();
            uint64_t per_level = 0;
            int level;
            if (lv == 0) {
                printf("%-20s skipped: no SIMD kernels on this CPU/build\n",
                       op_names[op]);
                continue;
            }
            for (level = 1; level <= lv; level++) {
                per_level = 0;
                if (op == OP_SIMDF) {   /* streaming stores once per level */
                    /* counted in cases, not in the level's quota */
                    cases += stream_case((int)(sm_next(&s) % NFMT), &s,
                                         level, &handled);
                }
                while (per_level < per_op / (uint64_t)lv) {
                    /* lengths up to 300: most not a multiple of 16 */
                    /* lengths up to 300, or one or two vectors */
                    const size_t len = (sm_next(&s) & 1)
                        ? 1 + (size_t)(sm_next(&s) % 300)
                        : (size_t)(level == 2 ? 16 : 8) * (1 + (sm_next(&s) & 1));
                    uint64_t k = simd_cases(op, (int)(sm_next(&s) % NFMT), &s,
                                            len, level, &handled);
                    per_level += k;
                    cases += k;
                }
            }
        } else if (op == OP_MT) {
            while (cases < per_op)
                cases += mt_cases((int)(sm_next(&s) % NFMT), &s,
                                  ((size_t)1 << 14) + (size_t)(sm_next(&s) % 40000));
            handled = cases;
        } else if (op == OP_BINARR) {
            while (cases < per_op)
                cases += binarr_cases((int)(sm_next(&s) % NFMT), &s,
                                      1 + (size_t)(sm_next(&s) % 600),
                                      &handled);
        } else if (op == OP_AFLOAT || op == OP_ADOUBLE) {
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
        fflush(stdout);
        /* the fast path must actually run, or this test proves nothing */
        if (cases < per_op || handled * 2 < cases) {
            printf("FAIL: %s: too few cases on the fast path\n", op_names[op]);
            bad = 1;
        }
    }
    {
        uint64_t nf_cases = 0;
        long nf_bad = never_fast(&s, &nf_cases);
        printf("%-20s %10" PRIu64 " cases, fast paths declined, %ld "
               "mismatches\n", "outside fast scope", nf_cases, nf_bad);
        /* 12 formats of 2^8 codes, each code against all 2^8: at least
         * 12 * 2^16 * 8 cases */
        if (nf_bad || nf_cases < 12ull * 65536 * 8) {
            printf("FAIL: outside fast scope\n");
            bad = 1;
        }
    }
    return bad || failures ? 1 : 0;
}

/* The formats outside the fast paths' scope (fast.h: fnuz and P3109, whose
 * NaN is the sign bit alone; unsigned formats; E8M0 without zero; biases
 * other than IEEE's): every fast entry point must decline every operand,
 * and the array entry points must give exactly the scalar results.
 * Returns the number of mismatches; *cases counts what was tried. */
static long never_fast(uint64_t *s, uint64_t *cases)
{
    static const char *specs[] = {
        "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
        "float8_e5m3fnu", "float8_e8m0fnu", "p3109:p1", "p3109:p2",
        "p3109:p3", "p3109:p4", "p3109:p5", "p3109:p6", "p3109:p7" };
    long bad = 0;
    size_t k;
    for (k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        const fl_format *f = fl_format_by_name(specs[k]);
        const uint64_t n = (uint64_t)1 << f->width;
        uint64_t a, b, r[256], ra[256], rb[256];
        unsigned e[256];
        if (!f || fl__fast_fmt(f)) {
            printf("FAIL: %s is missing or inside the fast paths' scope\n",
                   specs[k]);
            return bad + 1;
        }
        for (a = 0; a < n; a++) {
            fl_ctx c = rnd_ctx(s);
            unsigned fl = 0;
            uint64_t out;
            float fo;
            double dx = ldexp((double)(int64_t)sm_next(s), -(int)(sm_next(s) % 300) + 100), dout;
            int h = 0;
            if (c.rm == FL_RSR)
                c.rm = FL_RNE;
            for (b = 0; b < n; b++) {
                h |= fl__fast_add(f, a, b, &c, &fl, &out);
                h |= fl__fast_mul(f, a, b, &c, &fl, &out);
                h |= fl__fast_div(f, a, b, &c, &fl, &out);
                h |= fl__fast_fma(f, a, b, a ^ b, &c, &fl, &out);
                ra[b] = a;
                rb[b] = b;
                *cases += 4;
            }
            h |= fl__fast_sqrt(f, a, &c, &fl, &out);
            h |= fl__fast_convert(f, &fast_fmt[2], sm_next(s) & 0xFFFFFFFFu, &c, &fl, &out);
            h |= fl__fast_convert(f, &fl_binary64, fl__u_of(dx), &c, &fl, &out);
            h |= fl__fast_convert(&fast_fmt[0], f, a, &c, &fl, &out);
            h |= fl__fast_round_float(f, (float)dx, &c, &fl, &fo);
            h |= fl__fast_round_double(f, dx, &c, &fl, &dout);
            *cases += 6;
            if (h) {
                if (bad++ < 5)
                    printf("MISMATCH never_fast: a fast path took %s a=%#"
                           PRIx64 "\n", f->name, a);
            }
            /* the element-wise arrays: exactly the scalar calls */
            for (int op = 0; op < 4; op++) {
                switch (op) {
                case 0: fl_add_array(f, r, ra, rb, n, &c, e); break;
                case 1: fl_sub_array(f, r, ra, rb, n, &c, e); break;
                case 2: fl_mul_array(f, r, ra, rb, n, &c, e); break;
                default: fl_div_array(f, r, ra, rb, n, &c, e); break;
                }
                for (b = 0; b < n; b++) {
                    unsigned wf = 0;
                    uint64_t w;
                    switch (op) {
                    case 0: w = fl_add(f, a, b, &c, &wf); break;
                    case 1: w = fl_sub(f, a, b, &c, &wf); break;
                    case 2: w = fl_mul(f, a, b, &c, &wf); break;
                    default: w = fl_div(f, a, b, &c, &wf); break;
                    }
                    ++*cases;
                    if (w != r[b] || wf != e[b]) {
                        if (bad++ < 5)
                            printf("MISMATCH never_fast %s array op %d a=%#"
                                   PRIx64 " b=%#" PRIx64 ": scalar %#" PRIx64
                                   "/%02x array %#" PRIx64 "/%02x\n",
                                   f->name, op, a, b, w, wf, r[b], e[b]);
                    }
                }
            }
        }
        {   /* bulk rounding of floats equals the scalar rounding */
            float x[300], g[300];
            unsigned gf = 0, wf = 0;
            fl_ctx c = rnd_ctx(s);
            size_t i;
            for (i = 0; i < 300; i++)
                x[i] = (float)ldexp((double)(int32_t)sm_next(s),
                                    -(int)(sm_next(s) % 200) + 40);
            fl_round_float_array(f, g, x, 300, &c, &gf);
            for (i = 0; i < 300; i++) {
                fl_ctx ci = c;
                ci.sr_index = c.sr_index + i;
                ++*cases;
                if (f2u(fl_round_float(f, x[i], &ci, &wf)) != f2u(g[i]) &&
                    bad++ < 5)
                    printf("MISMATCH never_fast %s round_float_array i=%zu\n",
                           f->name, i);
            }
            if (gf != wf && bad++ < 5)
                printf("MISMATCH never_fast %s round_float_array flags\n",
                       f->name);
        }
    }
    return bad;
}

/* ---- exhaustive ---------------------------------------------------------- */
typedef struct { int job; uint64_t lo, hi, cases, mism; } ex_task;

/* Jobs 4 + FL_RM_COUNT + m: every binary32 encoding through the array
 * kernels (best level) in mode m, blocks of 256 (the kernel's tail too),
 * against the generic scalar code: each value, and each block's OR of
 * flags. */
static void ex_array(ex_task *t, int fi, int rm)
{
    enum { B = 256 };
    float x[B], w[B], g[B];
    uint64_t i;
    for (i = t->lo; i < t->hi; i += B) {
        const size_t n = t->hi - i < B ? (size_t)(t->hi - i) : B;
        fl_ctx c = fl_ctx_make(rm);
        unsigned wf = 0, gf = 0;
        size_t j, k;
        c.sr_seed = 12345;
        c.sr_index = i;
        for (j = 0; j < n; j++) {
            fl_ctx cj = c;
            x[j] = u2f((uint32_t)(i + j));
            cj.sr_index = i + j;
            w[j] = fl_round_float(&slow_fmt[fi], x[j], &cj, &wf);
        }
        k = fl__simd_round_float_array(&fast_fmt[fi], g, x, n, &c, &gf, -1);
        for (j = k; j < n; j++) {
            fl_ctx cj = c;
            cj.sr_index = i + j;
            g[j] = fl_round_float(&fast_fmt[fi], x[j], &cj, &gf);
        }
        t->cases += n;
        for (j = 0; j < n; j++)
            if (f2u(w[j]) != f2u(g[j]) && t->mism++ < 5)
                printf("MISMATCH array %s %s x=%08" PRIx64 ": generic %08" PRIx64
                       " fast %08" PRIx64 "\n", fast_fmt[fi].name,
                       fl_rm_name(rm), f2u(x[j]), f2u(w[j]), f2u(g[j]));
        if (wf != gf && t->mism++ < 5)
            printf("MISMATCH array %s %s block %08" PRIx64 ": flags generic "
                   "%02x fast %02x\n", fast_fmt[fi].name, fl_rm_name(rm), i,
                   wf, gf);
    }
}

/* Jobs 4 + 2 * FL_RM_COUNT + k: every pair of 16-bit encodings through
 * fl_add_array .. fl_div_array (op k, nearest-even) in blocks of 256,
 * against the generic scalar code, value and flag word per element. */
static void ex_binarr(ex_task *t, int fi, int op)
{
    enum { B = 256 };
    uint64_t a[B], b[B], r[B];
    unsigned fl[B];
    const fl_ctx c = FL_CTX_INIT;
    uint64_t i;
    for (i = t->lo; i < t->hi; i += B) {
        const size_t n = t->hi - i < B ? (size_t)(t->hi - i) : B;
        size_t j;
        for (j = 0; j < n; j++) {
            a[j] = (i + j) >> 16;
            b[j] = (i + j) & 0xFFFF;
        }
        switch (op) {
        case 0: fl_add_array(&fast_fmt[fi], r, a, b, n, &c, fl); break;
        case 1: fl_sub_array(&fast_fmt[fi], r, a, b, n, &c, fl); break;
        case 2: fl_mul_array(&fast_fmt[fi], r, a, b, n, &c, fl); break;
        default: fl_div_array(&fast_fmt[fi], r, a, b, n, &c, fl); break;
        }
        for (j = 0; j < n; j++) {
            unsigned wf = 0;
            uint64_t w;
            switch (op) {
            case 0: w = fl_add(&slow_fmt[fi], a[j], b[j], &c, &wf); break;
            case 1: w = fl_sub(&slow_fmt[fi], a[j], b[j], &c, &wf); break;
            case 2: w = fl_mul(&slow_fmt[fi], a[j], b[j], &c, &wf); break;
            default: w = fl_div(&slow_fmt[fi], a[j], b[j], &c, &wf); break;
            }
            if ((w != r[j] || wf != fl[j]) && t->mism++ < 5)
                printf("MISMATCH %s array op %d a=%04" PRIx64 " b=%04" PRIx64
                       ": generic %04" PRIx64 "/%02x array %04" PRIx64
                       "/%02x\n", fast_fmt[fi].name, op, a[j], b[j], w, wf,
                       r[j], fl[j]);
        }
        t->cases += n;
    }
}

static void *ex_worker(void *arg)
{
    ex_task *t = arg;
    uint64_t i;
    fl_ctx c = FL_CTX_INIT;
    if ((t->job & 31) >= 4 + 2 * FL_RM_COUNT) {
        ex_binarr(t, t->job >> 5 & 1, (t->job & 31) - 4 - 2 * FL_RM_COUNT);
        return NULL;
    }
    if ((t->job & 31) >= 4 + FL_RM_COUNT) {
        ex_array(t, t->job >> 5 & 1, (t->job & 31) - 4 - FL_RM_COUNT);
        return NULL;
    }
    for (i = t->lo; i < t->hi; i++) {
        uint64_t a, b, w, g;
        unsigned wf = 0, gf = 0;
        int job = t->job, fi = (job >> 5) & 1, op = job & 31;
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
    /* FPLAB_EXHAUSTIVE_START=S: indices [S, S + limit) instead (a partial
     * sweep of a chosen range); FPLAB_EXHAUSTIVE_ONLY=array: only the
     * array-kernel sweeps, =scalar: only the others */
    const char *st = getenv("FPLAB_EXHAUSTIVE_START"),
               *only = getenv("FPLAB_EXHAUSTIVE_ONLY");
    const uint64_t start = st && *st ? strtoull(st, NULL, 0) : 0;
    const int only_array = only && strncmp(only, "array", 5) == 0;
    const int only_scalar = only && strcmp(only, "scalar") == 0;
    /* FPLAB_EXHAUSTIVE_ONLY=array:FORMAT and FPLAB_EXHAUSTIVE_RM=rne,rtz,..
     * narrow the array sweeps to one format and some modes */
    const char *only_fmt = only_array && only[5] == ':' ? only + 6 : NULL;
    const char *rms = getenv("FPLAB_EXHAUSTIVE_RM");
    uint64_t total = 0, mism = 0, expect = 0;
    int fi, op, t;
    if (start >= ((uint64_t)1 << 32) || space > ((uint64_t)1 << 32) - start) {
        fprintf(stderr, "FPLAB_EXHAUSTIVE_START + LIMIT beyond 2^32\n");
        return 2;
    }
    if (nthr < 1) nthr = 1;
    if (nthr > 64) nthr = 64;
    for (fi = 0; fi < 2; fi++)
        for (op = only_array ? 4 + FL_RM_COUNT : 0;
             op < 4 + 2 * FL_RM_COUNT + 4; op++) {
            ex_task task[64];
            pthread_t th[64];
            if (only_fmt && strcmp(only_fmt, fast_fmt[fi].name) != 0)
                continue;
            if (only_scalar && op >= 4 + FL_RM_COUNT)
                continue;
            /* FPLAB_EXHAUSTIVE_ONLY=binarr: only the fl_*_array sweeps */
            if (only && strcmp(only, "binarr") == 0
                    ? op < 4 + 2 * FL_RM_COUNT
                    : only && op >= 4 + 2 * FL_RM_COUNT)
                continue;
            if (rms && *rms && op >= 4 + FL_RM_COUNT &&
                op < 4 + 2 * FL_RM_COUNT &&
                !strstr(rms, fl_rm_name(op - 4 - FL_RM_COUNT)))
                continue;
            for (t = 0; t < nthr; t++) {
                task[t].job = fi << 5 | op;
                task[t].lo = start + space / (uint64_t)nthr * (uint64_t)t;
                task[t].hi = start + (t == nthr - 1 ? space : space / (uint64_t)nthr * (uint64_t)(t + 1));
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
                printf("%s %s%s: %" PRIu64 " cases, %" PRIu64 " mismatches\n",
                       fast_fmt[fi].name,
                       op < 4 ? op_names[op < 2 ? op : op + 0 == 2 ? OP_MUL : OP_DIV]
                       : op >= 4 + 2 * FL_RM_COUNT
                           ? op_names[(op - 4 - 2 * FL_RM_COUNT) < 2
                                          ? op - 4 - 2 * FL_RM_COUNT
                                          : op - 4 - 2 * FL_RM_COUNT == 2
                                                ? OP_MUL : OP_DIV]
                           : fl_rm_name((op - 4) % FL_RM_COUNT),
                       op < 4 ? "" : op < 4 + FL_RM_COUNT ? " convert"
                       : op < 4 + 2 * FL_RM_COUNT ? " array kernel"
                                                  : " fl_*_array rne",
                       c, m);
                fflush(stdout);
                total += c; mism += m; expect += space;
            }
        }
    printf("exhaustive: %" PRIu64 " cases (expected %" PRIu64 "), %" PRIu64
           " mismatches\n", total, expect, mism);
    return total == expect && mism == 0 && total > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    setup_formats();
    if (argc > 1 && strcmp(argv[1], "exhaustive") == 0)
        return run_exhaustive();
    return run_random();
}
