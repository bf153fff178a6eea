/*
 * test_fastpath.c — the fast paths of the core (src/softfloat/fast.h,
 * fast_array.c) against the generic code they must equal bit for bit:
 * value and the whole flag word (IEEE flags and FL_TERN_UP/DOWN).
 *
 * The generic code runs with the calling thread capped at the level
 * generic (fl__accel_cap, src/accel/cpu.h; GENERIC below).  CTest runs
 * this program once per level the CPU has (FPLAB_CPU).  Default run (label unit): random sampling,
 * every operation at least 10^6 cases (times FPLAB_TEST_SCALE) over random
 * formats, modes (all seven), tininess, ftz, daz, saturation and NaN
 * presets; binary32 add/sub/mul in nearest even (scalar.c's route) at the
 * tininess and overflow borders; the SIMD array kernels (fast_simd.c) at
 * every level the CPU has, on arrays of random length with corner-case
 * inputs; the multi-threaded
 * arrays (fplab/parallel.h) with 1 to 5 threads against one; the
 * element-wise fl_add_array .. fl_div_array (AVX-512 kernels of
 * fast_simd_binop.c) on random formats, contexts and lengths, in place and
 * not, element by element.
 * The narrow-format kernels (fast_narrow.c: every 8-, 6- and 4-bit format,
 * any NaN style) against the generic code: every format's values and the
 * midpoints between them with their binary32 neighbours, the tininess
 * border and the specials, in every mode under four contexts, each lane's
 * flags exactly (the kernel's trace copy, and the library's kernel with
 * one element per vector); random corner inputs, whole arrays split
 * anywhere, arrays whose late chunks raise a flag the early ones did not,
 * the stochastic-rounding lanes whose carry the low random bits decide
 * (an index built by inverting fl_sr_bits), streaming stores.
 * `test_fastpath exhaustive-narrow` (label exhaustive): every binary32
 * encoding to every narrow preset and ieee:E:M format in all seven modes.
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
#include "hooks.h"
#include "fplab/parallel.h"
#include "test_common.h"

/* The generic code's answer: e evaluated with the calling thread capped
 * at the level generic (src/accel/cpu.h), where no fast path runs.  The
 * "slow" descriptors below are the fast ones' twins under this cap. */
#define GENERIC(e)                                                           \
    __extension__({                                                          \
        const int gen_old_ = fl__accel_cap(FL__CPU_GENERIC);                 \
        const __typeof__(e) gen_r_ = (e);                                    \
        fl__accel_cap(gen_old_);                                             \
        gen_r_;                                                              \
    })
#define GENERIC_DO(e)                                                        \
    do {                                                                     \
        const int gen_old_ = fl__accel_cap(FL__CPU_GENERIC);                 \
        (e);                                                                 \
        fl__accel_cap(gen_old_);                                             \
    } while (0)

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
        got = fl_add(ff, a, b, &c, &gf); want = GENERIC(fl_add(sf, a, b, &c, &wf));
        break;
    case OP_SUB:
        *handled = fl__fast_add(ff, a, b ^ ff->sign_mask, &c, &tf, &tmp);
        got = fl_sub(ff, a, b, &c, &gf); want = GENERIC(fl_sub(sf, a, b, &c, &wf));
        break;
    case OP_MUL:
        *handled = fl__fast_mul(ff, a, b, &c, &tf, &tmp);
        got = fl_mul(ff, a, b, &c, &gf); want = GENERIC(fl_mul(sf, a, b, &c, &wf));
        break;
    case OP_FMA:
        *handled = fl__fast_fma(ff, a, b, d, &c, &tf, &tmp);
        got = fl_fma(ff, a, b, d, &c, &gf);
        want = GENERIC(fl_fma(sf, a, b, d, &c, &wf));
        break;
    case OP_DIV:
        *handled = fl__fast_div(ff, a, b, &c, &tf, &tmp);
        got = fl_div(ff, a, b, &c, &gf); want = GENERIC(fl_div(sf, a, b, &c, &wf));
        break;
    case OP_SQRT:
        if (sm_next(s) & 3)
            a &= ~ff->sign_mask;
        *handled = fl__fast_sqrt(ff, a, &c, &tf, &tmp);
        got = fl_sqrt(ff, a, &c, &gf);
        want = GENERIC(fl_sqrt(sf, a, &c, &wf));
        break;
    case OP_CVT32:
        a = sm_next(s) & 0xFFFFFFFFu;
        if (sm_next(s) & 1)   /* concentrate on ff's range */
            a = (a & 0x80000000u) | ((a & 0x7FFFFFFFu) % 0x10000000u + 0x30000000u);
        *handled = fl__fast_convert(ff, &fast_fmt[2], a, &c, &tf, &tmp);
        got = fl_convert(ff, &fast_fmt[2], a, &c, &gf);
        want = GENERIC(fl_convert(sf, &slow_fmt[2], a, &c, &wf));
        break;
    case OP_CVT64: {
        fl__d64 v;
        v.u = sm_next(s);
        if (sm_next(s) & 3)
            v.d = ldexp((double)(int64_t)sm_next(s), -(int)(sm_next(s) % 220) + 20);
        a = v.u;
        *handled = fl__fast_convert(ff, &fl_binary64, a, &c, &tf, &tmp);
        got = fl_convert(ff, &fl_binary64, a, &c, &gf);
        want = GENERIC(fl_convert(sf, &fl_binary64, a, &c, &wf));
        break;
    }
    case OP_CVTFMT:   /* any small format to another */
        a &= 0xFFFF;
        *handled = fl__fast_convert(ff, &fast_fmt[0], a, &c, &tf, &tmp);
        got = fl_convert(ff, &fast_fmt[0], a, &c, &gf);
        want = GENERIC(fl_convert(sf, &slow_fmt[0], a, &c, &wf));
        break;
    case OP_RFLOAT: {
        float x = u2f((uint32_t)(sm_next(s) & 0xFFFFFFFFu)), r;
        if (sm_next(s) & 1)
            x = (float)ldexp((double)(int32_t)sm_next(s), -(int)(sm_next(s) % 200) + 40);
        a = f2u(x);
        *handled = fl__fast_round_float(ff, x, &c, &tf, &r);
        got = f2u(fl_round_float(ff, x, &c, &gf));
        want = f2u(GENERIC(fl_round_float(sf, x, &c, &wf)));
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
        r.d = GENERIC(fl_round_double(sf, x.d, &c, &wf)); want = r.u;
        break;
    }
    default:
        break;
    }
    if (got != want || gf != wf)
        report(op, ff, &c, a, b, d, want, wf, got, gf);
    return 1;
}

/* The seam's array route (hooks.h) on one part of an array, the generic
 * loop where it declines; returns whether the route took the part.  A
 * fast-path format in a mode its context defines (stochastic rounding
 * included) must be taken: an array kernel that declines such a mode
 * runs the element-by-element loop, correct and 20 times slower, which
 * no value comparison shows (it happened to SR once). */
static int array_route_f(const fl_format *f, float *d, const float *x,
                         size_t n, const fl_ctx *c, unsigned *fl)
{
    if (fl__accel_round_float_array(f, d, x, n, c, fl))
        return 1;
    fl_round_float_array(f, d, x, n, c, fl);
    return 0;
}
static int array_route_d(const fl_format *f, double *d, const double *x,
                         size_t n, const fl_ctx *c, unsigned *fl)
{
    if (fl__accel_round_double_array(f, d, x, n, c, fl))
        return 1;
    fl_round_double_array(f, d, x, n, c, fl);
    return 0;
}

static void array_declined(int op, const fl_format *f, const fl_ctx *c)
{
    if (failures++ < 20)
        printf("MISMATCH %s %s rm=%s: the seam's array route declined a "
               "fast-path format in a context mode\n", op_names[op], f->name,
               fl_rm_name(c->rm));
}

/* Arrays: a block of random floats/doubles, fast vs generic, with split
 * points (as threads would) to show the result does not depend on them.
 * Returns the elements the seam's array route took. */
static uint64_t array_cases(int op, int fi, uint64_t *s, size_t n)
{
    const fl_format *ff = &fast_fmt[fi], *sf = &slow_fmt[fi];
    fl_ctx c = rnd_ctx(s);
    size_t i, cut = (size_t)(sm_next(s) % (n + 1));
    unsigned wf = 0, gf = 0, gf2 = 0;
    int taken;
    if (op == OP_AFLOAT) {
        float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w),
              *g = malloc(n * sizeof *g);
        for (i = 0; i < n; i++) {
            uint64_t r = sm_next(s);
            x[i] = (r & 3) ? (float)ldexp((double)(int32_t)r, -(int)(r >> 40 & 127) + 10)
                           : u2f((uint32_t)(r >> 32));
        }
        GENERIC_DO(fl_round_float_array(sf, w, x, n, &c, &wf));
        taken = array_route_f(ff, g, x, cut, &c, &gf);
        {
            fl_ctx c2 = c;
            c2.sr_index += cut;
            taken &= array_route_f(ff, g + cut, x + cut, n - cut, &c2, &gf2);
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
        GENERIC_DO(fl_round_double_array(sf, w, x, n, &c, &wf));
        taken = array_route_d(ff, g, x, cut, &c, &gf);
        {
            fl_ctx c2 = c;
            c2.sr_index += cut;
            taken &= array_route_d(ff, g + cut, x + cut, n - cut, &c2, &gf2);
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
    if (!taken && fl__accel_level() >= FL__CPU_SCALAR && fl__fast_fmt(ff) &&
        FL__FAST_RM(&c))
        array_declined(op, ff, &c);
    return taken ? n : 0;
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
            w[i] = GENERIC(fl_round_float(sf, x[i], &ci, &wf));
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
            w[i] = GENERIC(fl_round_double(sf, x[i], &ci, &wf));
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
 * for it, through the kernel at `level`, against the generic code: binary32
 * elements to format fi in a random context, or (dbl) binary64 elements to
 * binary16 (fast_fmt[0]; its AVX2 kernel fl__k256_f64_h16 has streaming
 * stores of its own), mild inputs (its block path) or any, in a random
 * context or nearest even.  Elements travel as their encodings. */
static uint64_t stream_case(int fi, int dbl, uint64_t *s, int level,
                            uint64_t *handled)
{
    const int f = dbl ? 0 : fi;
    const fl_format *ff = &fast_fmt[f], *sf = &slow_fmt[f];
    const size_t es = dbl ? sizeof(double) : sizeof(float);
    const size_t n = ((size_t)8 << 20) / es + 37;
    const size_t bytes = (n * es + 63) / 64 * 64;
    const int mild = dbl ? (int)(sm_next(s) & 1) : 0;
    fl_ctx c = (!dbl || (sm_next(s) & 1)) ? rnd_ctx(s) : fl_ctx_make(FL_RNE);
    float *x32 = aligned_alloc(64, bytes), *g32 = aligned_alloc(64, bytes);
    double *x64 = (double *)(void *)x32, *g64 = (double *)(void *)g32;
    const int op = dbl ? OP_SIMDD : OP_SIMDF;
    unsigned wf = 0, gf = 0;
    size_t i, k, bad = 0;
    for (i = 0; i < n; i++) {
        const uint64_t u = simd_input_m(ff, s, dbl, mild);
        if (dbl) {
            fl__d64 v;
            v.u = u;
            x64[i] = v.d;
        } else {
            x32[i] = u2f((uint32_t)u);
        }
    }
    k = dbl ? fl__simd_round_double_array(ff, g64, x64, n, &c, &gf, level)
            : fl__simd_round_float_array(ff, g32, x32, n, &c, &gf, level);
    *handled += k;
    for (i = k; i < n; i++) {
        fl_ctx ci = c;
        ci.sr_index = c.sr_index + i;
        if (dbl)
            g64[i] = fl_round_double(ff, x64[i], &ci, &gf);
        else
            g32[i] = fl_round_float(ff, x32[i], &ci, &gf);
    }
    for (i = 0; i < n; i++) {
        fl_ctx ci = c;
        uint64_t x, w, g;
        ci.sr_index = c.sr_index + i;
        if (dbl) {
            x = fl__u_of(x64[i]);
            g = fl__u_of(g64[i]);
            w = fl__u_of(GENERIC(fl_round_double(sf, x64[i], &ci, &wf)));
        } else {
            x = f2u(x32[i]);
            g = f2u(g32[i]);
            w = f2u(GENERIC(fl_round_float(sf, x32[i], &ci, &wf)));
        }
        if (w != g && bad++ == 0)
            report(op, ff, &c, x, i, (uint64_t)level, w, wf, g, gf);
    }
    if (gf != wf)
        report(op, ff, &c, 0, n, (uint64_t)level, 0, wf, 0, gf);
    free(x32); free(g32);
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
        case 0: w = GENERIC(fl_add(sf, a[i], b[i], &ci, &wf)); break;
        case 1: w = GENERIC(fl_sub(sf, a[i], b[i], &ci, &wf)); break;
        case 2: w = GENERIC(fl_mul(sf, a[i], b[i], &ci, &wf)); break;
        default: w = GENERIC(fl_div(sf, a[i], b[i], &ci, &wf)); break;
        }
        if (w != r[i] || wf != fl[i])
            report(OP_BINARR, ff, &ci, a[i], b[i], (uint64_t)op, w, wf,
                   r[i], fl[i]);
    }
    *handled += n;
    free(a); free(b); free(r); free(fl);
    return n;
}

/* ---- narrow formats: the kernels of fast_narrow.c ----------------------- */

static uint32_t fw(float x) { return (uint32_t)f2u(x); }

/*
 * Every 8-, 6- and 4-bit preset, the ieee:E:M formats of those widths the
 * presets do not already cover, and formats built only here for the
 * kernels' other corners: values below binary32's normals (p = 1 and
 * p = 3), a format without zero whose 2^emin is a binary32 normal (tiny
 * lanes become 2^emin), one without subnormals, and saturating ones.
 */
static const char *narrow_specs[] = {
    "fp8-e4m3", "fp8-e5m2", "float8_e4m3", "float8_e3m4",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
    "float8_e5m3fnu", "float8_e8m0fnu", "fp8-e8m0", "p3109:p1", "p3109:p2",
    "p3109:p3", "p3109:p4", "p3109:p5", "p3109:p6", "p3109:p7", "float6_e2m3fn",
    "float6_e3m2fn", "float4_e2m1fn", "ieee:2:5", "ieee:6:1", "ieee:2:3",
    "ieee:3:2", "ieee:4:1", "ieee:2:1" };
#define NSPEC ((int)(sizeof narrow_specs / sizeof narrow_specs[0]))
/* ebits, prec, bias, style, signed, zero, subnormals, saturate,
 * min_gap_up */
static const fl_format_params narrow_custom[] = {
    { 5, 3, 140, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 },  /* all below 2^-110 */
    { 5, 1, 135, FL_NANSTYLE_FN, 0, 0, 0, 0, 0 },    /* E8M0-like, lower */
    { 4, 3, 5, FL_NANSTYLE_FINITE, 0, 0, 0, 0, 0 },  /* no zero, 2^-5.. */
    { 4, 4, FL_BIAS_IEEE, FL_NANSTYLE_IEEE, 1, 1, 0, 0, 0 },  /* no subnormals */
    { 4, 4, FL_BIAS_IEEE, FL_NANSTYLE_FN, 1, 1, 1, 1, 0 },    /* e4m3, saturating */
    { 5, 3, 16, FL_NANSTYLE_FNUZ, 1, 1, 1, 1, 0 },   /* e5m2fnuz, saturating */
    { 8, 1, 127, FL_NANSTYLE_FN, 0, 0, 0, 1, 0 },    /* e8m0, saturating */
    /* ml_dtypes' E8M0 rounding (min_gap_up): saturating; below binary32's
     * normals at p = 1; and at 2^-5 with p = 3, where the interval (2^-5,
     * 1.25 * 2^-5) holds binary32 normals the kernel sends to the scalar
     * code */
    { 8, 1, 127, FL_NANSTYLE_FN, 0, 0, 0, 1, 1 },
    { 5, 1, 135, FL_NANSTYLE_FN, 0, 0, 0, 0, 1 },
    { 4, 3, 5, FL_NANSTYLE_FINITE, 0, 0, 0, 0, 1 },
    /* q = 2^-101: the SR kernel's scaling 2^32 / q beyond binary32's
     * range, in two factors */
    { 5, 3, 100, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 },
    /* emin = -126, q a binary32 subnormal: no lane below q */
    { 5, 3, 127, FL_NANSTYLE_IEEE, 1, 1, 1, 0, 0 } };
#define NNARROW (NSPEC + (int)(sizeof narrow_custom / sizeof narrow_custom[0]))
static fl_format nfast[NNARROW], nslow[NNARROW];
static float nneutral[NNARROW];   /* exact in every mode, no flags */

static void setup_narrow(void)
{
    int i;
    char err[160];
    for (i = 0; i < NNARROW; i++) {
        int bad = i < NSPEC
            ? fl_format_parse(&nfast[i], narrow_specs[i], err, sizeof err)
            : fl_format_define(&nfast[i], "narrow-custom",
                               &narrow_custom[i - NSPEC], err, sizeof err);
        if (bad) {
            fprintf(stderr, "narrow format %d: %s\n", i, err);
            exit(2);
        }
        nslow[i] = nfast[i];
        nneutral[i] = fl_to_float(&nfast[i], nfast[i].max_bits);
    }
}

static const char *nname(int fi)
{
    static char buf[NNARROW][96];
    const fl_format *f = &nfast[fi];
    if (fi < NSPEC)
        return narrow_specs[fi];
    snprintf(buf[fi], sizeof buf[fi],
             "custom e%dp%d b%d st%d s%d z%d sub%d sat%d gap%d", f->ebits,
             f->prec, f->bias, f->nan_style, f->is_signed, f->has_zero,
             f->subnormals, f->saturate, f->min_gap_up);
    return buf[fi];
}

static void nreport(const char *what, int fi, const fl_ctx *c, uint64_t idx,
                    uint32_t x, uint32_t want, unsigned wf, uint32_t got,
                    unsigned gf)
{
    if (failures++ < 20)
        printf("MISMATCH narrow %s %s rm=%s tin=%d ftz=%d daz=%d sat=%d "
               "nan=%d sr=%" PRIx64 "/%" PRIx64 " [%" PRIu64 "] x=%08" PRIx32
               ": generic %08" PRIx32 "/%02x kernel %08" PRIx32 "/%02x\n",
               what, nname(fi), fl_rm_name(c->rm), c->tininess, c->ftz,
               c->daz, c->saturate, c->nan, c->sr_seed, c->sr_index, idx, x,
               want, wf, got, gf);
}

/* The generic code on x[0..n): values w, each element's flags wf. */
static void narrow_ref(int fi, const float *x, size_t n, const fl_ctx *c,
                       float *w, unsigned *wf)
{
    size_t i;
    for (i = 0; i < n; i++) {
        fl_ctx ci = *c;
        ci.sr_index = c->sr_index + i;
        wf[i] = 0;
        w[i] = GENERIC(fl_round_float(&nslow[fi], x[i], &ci, &wf[i]));
    }
}

/* Each lane's flags, exactly: the trace copy of the kernel at level lvl
 * (2: every flag; 1: underflow, overflow, invalid) against the generic
 * code, values too.  Returns the elements the kernel did (0: declined). */
static size_t narrow_trace_check(int fi, int level, const float *x, size_t n,
                                 const fl_ctx *c, const float *w,
                                 const unsigned *wf)
{
    float *g = malloc(n * sizeof *g);
    unsigned *lf = malloc(n * sizeof *lf);
    size_t lvl, i, k = 0;
    for (lvl = 1; lvl <= 2; lvl++) {
        const unsigned m = lvl == 2 ? ~0u
                                    : FL_UNDERFLOW | FL_OVERFLOW | FL_INVALID;
        k = fl__simd_narrow_trace(&nfast[fi], g, x, n, c, lf, level, (int)lvl);
        for (i = 0; i < k; i++)
            if (fw(g[i]) != fw(w[i]) || (lf[i] & m) != (wf[i] & m)) {
                nreport(lvl == 2 ? "trace" : "trace lvl1", fi, c, i, fw(x[i]),
                        fw(w[i]), wf[i] & m, fw(g[i]), lf[i] & m);
                break;
            }
    }
    free(g); free(lf);
    return k;
}

/* The library's kernel with one element per vector and the format's
 * largest finite value (exact, no flags) in the other lanes, so the
 * call's flags are that element's.  Returns the elements checked. */
static size_t narrow_isolated(int fi, int level, const float *x, size_t n,
                              const fl_ctx *c, const float *w,
                              const unsigned *wf)
{
    const size_t W = level == 2 ? 16 : 8;
    size_t i, done = 0;
    for (i = 0; i < n; i++) {
        float v[16], g[16];
        unsigned gf = 0;
        fl_ctx ci = *c;
        const size_t lane = i % W;
        size_t j;
        for (j = 0; j < W; j++)
            v[j] = nneutral[fi];
        v[lane] = x[i];
        ci.sr_index = c->sr_index + i - lane;   /* element i keeps its index */
        if (fl__simd_narrow_float_array(&nfast[fi], g, v, W, &ci, &gf, level) != W)
            return done;
        for (j = 0; j < W; j++)
            if (j != lane && fw(g[j]) != fw(nneutral[fi]))
                break;
        if (j < W || fw(g[lane]) != fw(w[i]) || gf != wf[i]) {
            nreport("isolated", fi, c, i, fw(x[i]), fw(w[i]), wf[i],
                    fw(g[lane]), gf);
            return done;
        }
        done++;
    }
    return done;
}

/* The library's kernel on the whole array, split at cut (the parts use
 * their own SR indices): values and the OR of the flags. */
static size_t narrow_whole(int fi, int level, const float *x, size_t n,
                           size_t cut, const fl_ctx *c, const float *w,
                           const unsigned *wf)
{
    float *g = malloc((n + 1) * sizeof *g);
    unsigned gf = 0, want = 0;
    fl_ctx c2 = *c;
    size_t i, k1, k2;
    k1 = fl__simd_narrow_float_array(&nfast[fi], g, x, cut, c, &gf, level);
    for (i = k1; i < cut; i++) {
        fl_ctx ci = *c;
        ci.sr_index = c->sr_index + i;
        g[i] = fl_round_float(&nfast[fi], x[i], &ci, &gf);
    }
    c2.sr_index += cut;
    k2 = fl__simd_narrow_float_array(&nfast[fi], g + cut, x + cut, n - cut,
                                     &c2, &gf, level);
    for (i = cut + k2; i < n; i++) {
        fl_ctx ci = *c;
        ci.sr_index = c->sr_index + i;
        g[i] = fl_round_float(&nfast[fi], x[i], &ci, &gf);
    }
    for (i = 0; i < n; i++) {
        want |= wf[i];
        if (fw(g[i]) != fw(w[i])) {
            nreport("whole", fi, c, i, fw(x[i]), fw(w[i]), wf[i], fw(g[i]), gf);
            break;
        }
    }
    if (gf != want)
        nreport("whole flags", fi, c, n, 0, 0, want, 0, gf);
    free(g);
    return k1 + k2;
}

/* binary32 bits near the corners of format f: its values, the midpoints
 * between neighbours (the rounding boundaries), below its smallest and
 * above its largest value, with a few ulps either way; specials. */
static uint32_t narrow_input(int fi, uint64_t *s)
{
    const fl_format *f = &nfast[fi];
    const uint64_t r = sm_next(s), codes = (uint64_t)1 << f->width;
    const uint32_t sign = (uint32_t)(r & 1) << 31;
    const int d = (int)(r >> 1 & 7) - 3;                 /* -3 .. +4 ulps */
    uint32_t b;
    switch (r >> 4 & 15) {
    case 0: { /* specials and binary32 extremes */
        static const uint32_t sp[] = { 0, 0x7F800000u, 0x7FC00000u,
            0x7F800001u, 0x7FBFFFFFu, 0x7FFFFFFFu, 1, 0x007FFFFFu,
            0x00800000u, 0x7F7FFFFFu, 0x00400000u, 0x00C00000u };
        return sign | sp[(r >> 8) % (sizeof sp / sizeof sp[0])];
    }
    case 1: /* random bits */
        return (uint32_t)(r >> 32);
    case 2: case 3: case 4: case 5: case 6: {
        /* a value of f, or the midpoint between two neighbours */
        const uint64_t k = (r >> 8) % codes, k2 = k + 1;
        const float v = fl_to_float(f, k), v2 = fl_to_float(f, k2 & (codes - 1));
        b = fw(v) & 0x7FFFFFFFu;
        if ((r >> 12 & 1) && k2 < codes && !fl_is_nan(f, k2) &&
            !fl_is_inf(f, k2) && !fl_is_nan(f, k) && !fl_is_inf(f, k) &&
            (fw(v) >> 31) == (fw(v2) >> 31))
            b = fw((float)(((double)v + (double)v2) / 2)) & 0x7FFFFFFFu;
        break;
    }
    case 7: { /* beyond the largest finite: half an ulp, 2^(emax+1) */
        const double mx = (double)fl_to_float(f, f->max_bits);
        const double ulp = ldexp(1.0, f->emax - f->prec + 1);
        b = fw((float)((r >> 8 & 1) ? mx + ulp / 2 : ldexp(1.0, f->emax + 1)));
        break;
    }
    case 8: { /* below the smallest: q and q / 2, 2^emin and below it */
        const int kq = f->subnormals ? f->emin - f->prec + 1 : f->emin;
        const int e = (r >> 8 & 3) == 0 ? kq - 1 : (r >> 8 & 3) == 1 ? kq
                    : (r >> 8 & 3) == 2 ? f->emin : f->emin - 1;
        b = fw((float)ldexp(1.0, e < -149 ? -149 : e > 127 ? 127 : e));
        if (r >> 10 & 1)   /* 2^emin - 2^(emin-p-1), the tininess border */
            b = fw((float)(ldexp(1.0, f->emin) - ldexp(1.0, f->emin - f->prec - 1)));
        break;
    }
    default: { /* any exponent around f's range, trailing zeros, ties */
        int e = f->emin - f->prec - 10 + (int)((r >> 8) % (uint64_t)(f->emax - f->emin + f->prec + 14));
        uint32_t sig = (uint32_t)(r >> 32) & 0x7FFFFFu;
        sig &= ~0u << (r >> 20) % 24;
        if (e < -149) e = -149;
        if (e > 127) e = 127;
        b = e >= -126 ? (uint32_t)(e + 127) << 23 | sig
                      : ((sig | 0x800000u) >> (-126 - e)) & 0x7FFFFFu;
        break;
    }
    }
    if (b < 0x7F800000u) {
        const int64_t nb = (int64_t)b + d;
        if (nb >= 0 && nb < 0x7F800000)
            b = (uint32_t)nb;
    }
    return sign | b;
}

/* A stochastic-rounding index at which element x of f (lane lane of its
 * vector) reaches the kernel's rare case: the top halves of the random
 * bits and of the discarded part add to 2^32 - 1 (sh > 32), so the low
 * halves decide.  Built by running fl_sr_bits backwards (every step of
 * SplitMix64's finalizer is invertible).  0 when x has no such lane. */
static uint64_t unxorshift(uint64_t z, int k)
{
    uint64_t r = z;
    int i;
    for (i = 0; i < 64 / k + 1; i++)
        r = z ^ (r >> k);
    return r;
}
static uint64_t inv_odd(uint64_t m)
{
    uint64_t x = m;        /* Newton: x = x (2 - m x) doubles the bits */
    int i;
    for (i = 0; i < 6; i++)
        x *= 2 - m * x;
    return x;
}
static uint64_t unmix(uint64_t z)
{
    z = unxorshift(z, 31);
    z *= inv_odd(0x94D049BB133111EBull);
    z = unxorshift(z, 27);
    z *= inv_odd(0xBF58476D1CE4E5B9ull);
    return unxorshift(z, 30);
}
/* the index at which fl_sr_bits(seed, index) == r */
static uint64_t sr_index_for(uint64_t seed, uint64_t r)
{
    uint64_t z = unmix(r) - (seed ^ 0xD1B54A32D192ED03ull);
    z = unmix(z);
    return (z - seed) * inv_odd(0x9E3779B97F4A7C15ull) - 1;
}

static size_t narrow_sr_edge(int fi, int level, uint64_t *s)
{
    const fl_format *f = &nfast[fi];
    const int kq = f->subnormals ? f->emin - f->prec + 1 : f->emin;
    const size_t W = level == 2 ? 16 : 8;
    float x[16], w[16], g[16];
    unsigned wf[16], gf = 0, want = 0;
    fl_ctx c = fl_ctx_make(FL_RSR);
    uint32_t m, xb, xh;
    int e, sh;
    size_t j, lane = (size_t)(sm_next(s) % W);
    uint64_t r;
    if (f->emin < -126)
        return 0;
    /* |x| = m * 2^(e-23) with sh = kq - (e - 23) > 32 discarded bits */
    e = kq - 10 - (int)(sm_next(s) % 40);
    if (e < -126)
        return 0;
    m = 0x800000u | (uint32_t)(sm_next(s) & 0x7FFFFF);
    xb = (uint32_t)(e + 127) << 23 | (m & 0x7FFFFF);
    sh = kq - (e - 23);
    xh = sh >= 64 ? 0 : m >> (sh - 32);         /* X's high half */
    /* R's high half 2^32 - 1 - xh, low half random */
    r = ((uint64_t)(0xFFFFFFFFu - xh) << 32) | (sm_next(s) & 0xFFFFFFFFu);
    c.sr_seed = sm_next(s);
    c.sr_index = sr_index_for(c.sr_seed, r) - lane;
    if (fl_sr_bits(c.sr_seed, c.sr_index + lane) != r) {
        printf("FAIL: sr_index_for does not invert fl_sr_bits\n");
        failures++;
        return 0;
    }
    for (j = 0; j < W; j++)
        x[j] = nneutral[fi];
    x[lane] = u2f(xb | (uint32_t)(sm_next(s) & 1) << 31);
    narrow_ref(fi, x, W, &c, w, wf);
    if (fl__simd_narrow_float_array(f, g, x, W, &c, &gf, level) != W)
        return 0;
    for (j = 0; j < W; j++) {
        want |= wf[j];
        if (fw(g[j]) != fw(w[j]))
            nreport("sr edge", fi, &c, j, fw(x[j]), fw(w[j]), wf[j], fw(g[j]), gf);
    }
    if (gf != want)
        nreport("sr edge flags", fi, &c, lane, fw(x[lane]), 0, want, 0, gf);
    return W;
}

/* 1024 inputs (one kernel chunk) that raise every flag the kernel can
 * gather for format fi: inexact both ways, underflow, overflow of both
 * signs, the unsigned and no-zero cases, a NaN; after them the kernel
 * computes values only (its level 0). */
static void narrow_prime(int fi, float *x)
{
    const fl_format *f = &nfast[fi];
    const int kq = f->subnormals ? f->emin - f->prec + 1 : f->emin;
    const float pv[] = {
        (float)ldexp(1.3, f->emin), (float)-ldexp(1.3, f->emin),
        (float)ldexp(1.7, f->emin), (float)-ldexp(1.7, f->emin),
        (float)ldexp(0.3, kq < -149 ? -149 : kq),
        (float)-ldexp(0.3, kq < -149 ? -149 : kq),
        0x1p-130f, -0x1p-130f, 0x1.fffffep127f, -0x1.fffffep127f, 0.0f,
        -0.0f, -1.0f, u2f(0x7FC00000u), u2f(0x7F800001u) };
    size_t i;
    for (i = 0; i < 1024; i++)
        x[i] = pv[i % (sizeof pv / sizeof pv[0])];
}

/* Long arrays whose first chunks set most flags and whose later chunks
 * hold the lane that raises the rest (a tiny, overflowing, negative,
 * zero or NaN input), so the kernel's levels 0 and 1 run and must still
 * see it; values and the OR of the flags. */
static size_t narrow_late(int fi, int level, uint64_t *s, const fl_ctx *c,
                          uint64_t *handled)
{
    const size_t n = 2048 + (size_t)(sm_next(s) % 4096);
    float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w);
    unsigned *wf = malloc(n * sizeof *wf);
    const size_t late = 1024 + (size_t)(sm_next(s) % (n - 1024));
    const int primed = (int)(sm_next(s) & 1);   /* level 0 after chunk 1 */
    size_t i, k;
    for (i = 0; i < n; i++) {
        /* in range, both signs: inexact up and down, nothing else */
        const double v = ldexp(1.0 + (double)(sm_next(s) % 1000) / 1000.0,
                               nfast[fi].emin +
                               (int)(sm_next(s) % (uint64_t)(nfast[fi].emax - nfast[fi].emin + 1)));
        x[i] = (float)((sm_next(s) & 1) ? -v : v);
    }
    if (primed)
        narrow_prime(fi, x);
    for (i = 0; i < 3; i++)   /* the late lanes: any corner */
        x[late + i < n ? late + i : late] = u2f(narrow_input(fi, s));
    narrow_ref(fi, x, n, c, w, wf);
    k = narrow_whole(fi, level, x, n, n, c, w, wf);
    *handled += k;
    free(x); free(w); free(wf);
    return n;
}

/* Random cases for every narrow format at every SIMD level: corner
 * inputs by trace (each lane's flags), one lane at a time through the
 * library's kernel, whole arrays split anywhere, late flags, the SR edge,
 * and one array past the streaming threshold per level.  Returns the
 * number of elements checked; *handled those the kernels decided. */
static uint64_t narrow_random(uint64_t *s, uint64_t target, uint64_t *handled)
{
    const int lv = (int)simd_levels();
    uint64_t cases = 0;
    int level;
    for (level = 1; level <= lv; level++) {
        uint64_t per = 0;
        {   /* streaming stores: one big array */
            const size_t n = ((size_t)8 << 20) / sizeof(float) + 37;
            const int fi = (int)(sm_next(s) % NNARROW);
            float *x = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
            float *w = malloc(n * sizeof *w);
            unsigned *wf = malloc(n * sizeof *wf);
            fl_ctx c = rnd_ctx(s);
            size_t i;
            for (i = 0; i < n; i++)
                x[i] = u2f(narrow_input(fi, s));
            narrow_ref(fi, x, n, &c, w, wf);
            {
                /* checked either way; counted only when the kernel ran
                 * (a context it declines, drawn at random, would make
                 * this one array outweigh the whole quota below) */
                const size_t k = narrow_whole(fi, level, x, n, n, &c, w, wf);
                *handled += k;
                cases += k ? n : 0;
            }
            free(x); free(w); free(wf);
        }
        while (per < target / (uint64_t)lv) {
            const int fi = (int)(sm_next(s) % NNARROW);
            const size_t n = 1 + (size_t)(sm_next(s) % 3000);
            float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w);
            unsigned *wf = malloc(n * sizeof *wf);
            fl_ctx c = rnd_ctx(s);
            size_t i;
            for (i = 0; i < n; i++)
                x[i] = u2f(narrow_input(fi, s));
            narrow_ref(fi, x, n, &c, w, wf);
            *handled += narrow_trace_check(fi, level, x, n, &c, w, wf);
            *handled += narrow_isolated(fi, level, x, n < 200 ? n : 200, &c, w, wf);
            *handled += narrow_whole(fi, level, x, n, (size_t)(sm_next(s) % (n + 1)),
                                     &c, w, wf);
            per += 3 * n + (n < 200 ? n : 200);
            per += narrow_late(fi, level, s, &c, handled);
            {
                const size_t k = narrow_sr_edge(fi, level, s);
                per += k;
                *handled += k;
            }
            free(x); free(w); free(wf);
        }
        cases += per;
    }
    return cases;
}

/* Every format's values and the midpoints between neighbours (and below
 * the smallest, above the largest), each with its binary32 neighbours up
 * to two ulps away, both signs, and the specials: in every mode under
 * four contexts by trace (each lane's flags), and once more per mode one
 * lane at a time through the library's kernel.  Returns the elements
 * checked; *handled those the kernels decided. */
static uint64_t narrow_sweep(uint64_t *handled)
{
    const int lv = (int)simd_levels();
    uint64_t cases = 0;
    int fi;
    for (fi = 0; fi < NNARROW; fi++) {
        const fl_format *f = &nfast[fi];
        const uint64_t codes = (uint64_t)1 << f->width;
        const size_t cap = (size_t)codes * 2 * 5 * 2 + 64;   /* + specials, borders */
        float *x = malloc(cap * sizeof *x), *w = malloc(cap * sizeof *w);
        unsigned *wf = malloc(cap * sizeof *wf);
        size_t n = 0, i;
        uint64_t k;
        static const uint32_t sp[] = { 0, 0x7F800000u, 0x7FC00000u,
            0x7F800001u, 0x7FFFFFFFu, 1, 0x007FFFFFu, 0x00800000u,
            0x7F7FFFFFu };
        for (k = 0; k < codes; k++) {
            float pts[2];
            int np = 0, d, sg, j;
            if (fl_is_nan(f, k) || fl_is_inf(f, k))
                continue;
            pts[np++] = fl_to_float(f, k);
            if (k + 1 < codes && !fl_is_nan(f, k + 1) && !fl_is_inf(f, k + 1) &&
                (fw(fl_to_float(f, k)) >> 31) == (fw(fl_to_float(f, k + 1)) >> 31))
                pts[np++] = (float)(((double)fl_to_float(f, k) +
                                     (double)fl_to_float(f, k + 1)) / 2);
            else    /* the last of a sign: half an ulp beyond it */
                pts[np++] = (float)((double)fl_to_float(f, k) * (1.0 + ldexp(1.0, -f->prec)));
            for (j = 0; j < np; j++)
                for (d = -2; d <= 2; d++)
                    for (sg = 0; sg < 2; sg++) {
                        const int64_t b = (int64_t)(fw(pts[j]) & 0x7FFFFFFFu) + d;
                        if (b < 0 || b >= 0x7F800000)
                            continue;
                        x[n++] = u2f((uint32_t)b | (uint32_t)sg << 31);
                    }
        }
        for (i = 0; i < sizeof sp / sizeof sp[0]; i++) {
            x[n++] = u2f(sp[i]);
            x[n++] = u2f(sp[i] | 0x80000000u);
        }
        for (i = 0; i < 4; i++) {   /* below the smallest value */
            const int kq = f->subnormals ? f->emin - f->prec + 1 : f->emin;
            const int e = kq - 1 - (int)i;
            x[n++] = (float)ldexp(1.0, e < -149 ? -149 : e);
        }
        for (i = 0; i < 2; i++) {
            /* where tininess after rounding ends: the p-bit midpoint and
             * the last p-bit value below 2^emin, +-2 ulps, both signs */
            const float bd = (float)(ldexp(1.0, f->emin) -
                                     ldexp(1.0, f->emin - f->prec - (int)(1 - i)));
            int d, sg;
            for (d = -2; d <= 2; d++)
                for (sg = 0; sg < 2; sg++)
                    x[n++] = u2f((fw(bd) + (uint32_t)d) | (uint32_t)sg << 31);
        }
        {
            int level, rm, cx;
            for (level = 1; level <= lv; level++)
                for (rm = 0; rm < FL_RM_COUNT; rm++)
                    for (cx = 0; cx < 4; cx++) {
                        /* default; tininess before; ftz + daz; saturating */
                        fl_ctx c = fl_ctx_make(rm);
                        c.tininess = cx == 1;
                        c.ftz = c.daz = cx == 2;
                        c.saturate = cx == 3;
                        c.sr_seed = 0x5EED0000u + (uint64_t)fi;
                        c.sr_index = (uint64_t)rm << 40;
                        narrow_ref(fi, x, n, &c, w, wf);
                        *handled += narrow_trace_check(fi, level, x, n, &c, w, wf);
                        cases += n;
                        if (cx == 0) {
                            *handled += narrow_isolated(fi, level, x, n, &c, w, wf);
                            cases += n;
                        }
                    }
        }
        free(x); free(w); free(wf);
    }
    return cases;
}

/* ---- exhaustive, narrow formats ------------------------------------------ */
typedef struct { int fi, rm; uint64_t lo, hi, cases, mism; } nx_task;

/* Every binary32 encoding in [lo, hi) to format fi in mode rm (default
 * context, SR seed 12345, index = the encoding), in blocks of 4096 (four
 * of the kernel's chunks, so its later chunks run at the levels that skip
 * flags already set): the library's kernel at the best level (values and
 * the block's OR of flags; and the values once more after a chunk that
 * sets every flag, so the kernel's level 0 runs), and the trace copy at
 * levels 2 and 1 (each lane's flags), against the generic code. */
static void *nx_worker(void *arg)
{
    enum { B = 4096, PR = 1024 };
    nx_task *t = arg;
    const fl_format *f = &nfast[t->fi];
    float *x = malloc(B * sizeof *x), *w = malloc(B * sizeof *w),
          *g = malloc(B * sizeof *g);
    float *px = malloc((PR + B) * sizeof *px), *pg = malloc((PR + B) * sizeof *pg);
    unsigned *wf = malloc(B * sizeof *wf), *lf = malloc(B * sizeof *lf);
    uint64_t i;
    narrow_prime(t->fi, px);
    for (i = t->lo; i < t->hi; i += B) {
        const size_t n = t->hi - i < B ? (size_t)(t->hi - i) : B;
        fl_ctx c = fl_ctx_make(t->rm);
        unsigned gf = 0, want = 0;
        size_t j, k;
        int lvl;
        c.sr_seed = 12345;
        c.sr_index = i;
        for (j = 0; j < n; j++)
            x[j] = u2f((uint32_t)(i + j));
        narrow_ref(t->fi, x, n, &c, w, wf);
        k = fl__simd_narrow_float_array(f, g, x, n, &c, &gf, -1);
        for (j = k; j < n; j++) {
            fl_ctx cj = c;
            cj.sr_index = i + j;
            g[j] = fl_round_float(f, x[j], &cj, &gf);
        }
        for (j = 0; j < n; j++) {
            want |= wf[j];
            if (fw(g[j]) != fw(w[j]) && t->mism++ < 5)
                printf("MISMATCH narrow %s %s x=%08" PRIx32 ": generic %08"
                       PRIx32 " kernel %08" PRIx32 "\n", nname(t->fi),
                       fl_rm_name(t->rm), fw(x[j]), fw(w[j]), fw(g[j]));
        }
        if (gf != want && t->mism++ < 5)
            printf("MISMATCH narrow %s %s block %08" PRIx64 ": flags generic "
                   "%02x kernel %02x\n", nname(t->fi), fl_rm_name(t->rm), i,
                   want, gf);
        {
            /* after a chunk that sets every flag: values only (level 0);
             * the block keeps its SR indices */
            fl_ctx cp = c;
            unsigned pf = 0;
            size_t kp;
            cp.sr_index = i - PR;
            memcpy(px + PR, x, n * sizeof *x);
            kp = fl__simd_narrow_float_array(f, pg, px, PR + n, &cp, &pf, -1);
            for (j = kp > PR ? kp - PR : 0; j < n; j++) {
                fl_ctx cj = c;
                cj.sr_index = i + j;
                pg[PR + j] = fl_round_float(f, x[j], &cj, &pf);
            }
            for (j = 0; j < n; j++)
                if (fw(pg[PR + j]) != fw(w[j]) && t->mism++ < 5)
                    printf("MISMATCH narrow primed %s %s x=%08" PRIx32
                           ": generic %08" PRIx32 " kernel %08" PRIx32 "\n",
                           nname(t->fi), fl_rm_name(t->rm), fw(x[j]),
                           fw(w[j]), fw(pg[PR + j]));
        }
        for (lvl = 2; lvl >= 1; lvl--) {
            const unsigned m = lvl == 2 ? ~0u
                                        : FL_UNDERFLOW | FL_OVERFLOW | FL_INVALID;
            const size_t kt = fl__simd_narrow_trace(f, g, x, n, &c, lf, -1, lvl);
            if (kt != k && t->mism++ < 5)
                printf("MISMATCH narrow %s %s: trace did %zu, kernel %zu\n",
                       nname(t->fi), fl_rm_name(t->rm), kt, k);
            for (j = 0; j < kt; j++)
                if ((fw(g[j]) != fw(w[j]) || (lf[j] & m) != (wf[j] & m)) &&
                    t->mism++ < 5)
                    printf("MISMATCH narrow trace%d %s %s x=%08" PRIx32
                           ": generic %08" PRIx32 "/%02x kernel %08" PRIx32
                           "/%02x\n", lvl, nname(t->fi), fl_rm_name(t->rm),
                           fw(x[j]), fw(w[j]), wf[j] & m, fw(g[j]),
                           lf[j] & m);
        }
        t->cases += n;
    }
    free(x); free(w); free(g); free(wf); free(lf); free(px); free(pg);
    return NULL;
}

/* `test_fastpath exhaustive-narrow`: every narrow preset and ieee:E:M
 * format (FPLAB_EXHAUSTIVE_ONLY=narrow:NAME one of them, narrow:all the
 * test-only formats too), every mode (FPLAB_EXHAUSTIVE_RM=rne,sr,...),
 * all 2^32 binary32 encodings (FPLAB_EXHAUSTIVE_START / _LIMIT: a
 * range), on all cores. */
static int run_exhaustive_narrow(void)
{
    long nthr = sysconf(_SC_NPROCESSORS_ONLN);
    const char *lim = getenv("FPLAB_EXHAUSTIVE_LIMIT");
    const char *st = getenv("FPLAB_EXHAUSTIVE_START");
    const char *only = getenv("FPLAB_EXHAUSTIVE_ONLY");
    const char *rms = getenv("FPLAB_EXHAUSTIVE_RM");
    const uint64_t space = lim && *lim ? strtoull(lim, NULL, 0) : (uint64_t)1 << 32;
    const uint64_t start = st && *st ? strtoull(st, NULL, 0) : 0;
    const char *one = only && strncmp(only, "narrow:", 7) == 0 ? only + 7 : NULL;
    const int all = one && strcmp(one, "all") == 0;
    uint64_t total = 0, mism = 0, expect = 0;
    int fi, rm, t;
    if (simd_levels() == 0) {
        printf("exhaustive-narrow skipped: no SIMD kernels on this CPU/build\n");
        return 77;
    }
    if (start >= ((uint64_t)1 << 32) || space > ((uint64_t)1 << 32) - start) {
        fprintf(stderr, "FPLAB_EXHAUSTIVE_START + LIMIT beyond 2^32\n");
        return 2;
    }
    if (nthr < 1) nthr = 1;
    if (nthr > 64) nthr = 64;
    setup_narrow();
    for (fi = 0; fi < NNARROW; fi++) {
        if (one && !all ? strcmp(one, nname(fi)) != 0 : !all && fi >= NSPEC)
            continue;
        for (rm = 0; rm < FL_RM_COUNT; rm++) {
            nx_task task[64];
            pthread_t th[64];
            uint64_t c = 0, m = 0;
            const time_t t0 = time(NULL);
            if (rms && *rms && !strstr(rms, fl_rm_name(rm)))
                continue;
            for (t = 0; t < nthr; t++) {
                /* parts on 4096-element boundaries */
                const uint64_t per = space / (uint64_t)nthr / 4096 * 4096;
                task[t].fi = fi;
                task[t].rm = rm;
                task[t].lo = start + per * (uint64_t)t;
                task[t].hi = t == nthr - 1 ? start + space : start + per * (uint64_t)(t + 1);
                task[t].cases = task[t].mism = 0;
                pthread_create(&th[t], NULL, nx_worker, &task[t]);
            }
            for (t = 0; t < nthr; t++) {
                pthread_join(th[t], NULL);
                c += task[t].cases;
                m += task[t].mism;
            }
            printf("narrow %s %s: %" PRIu64 " cases, %" PRIu64
                   " mismatches (%ld s)\n", nname(fi), fl_rm_name(rm), c, m,
                   (long)(time(NULL) - t0));
            fflush(stdout);
            total += c;
            mism += m;
            expect += space;
        }
    }
    printf("exhaustive-narrow: %" PRIu64 " cases (expected %" PRIu64 "), %"
           PRIu64 " mismatches\n", total, expect, mism);
    return total == expect && mism == 0 && total > 0 ? 0 : 1;
}

/* ---- binary16 in nearest even: the paths of fl_add .. fl_fma ------------ */

/* A binary32 operand: any encoding (TestFloat's way), or a finite one
 * with a random significand and an exponent field in [lo, lo + span). */
static uint32_t f32_operand(uint64_t *s, int lo, int span)
{
    const uint64_t r = sm_next(s);
    if (r & 1)
        return (uint32_t)(r >> 32);
    return (uint32_t)((r >> 1 & 0x807FFFFFu) |
                      (uint64_t)(lo + (int)((r >> 40) % (uint64_t)span)) << 23);
}

/* fl_add, fl_sub and fl_mul on binary32 in nearest even (random tininess
 * and NaN preset, no ftz/daz/saturation: the contexts of scalar.c's
 * binary32 route; a quarter of the cases in a random mode up to
 * stochastic rounding with random ftz, daz and saturation, which the
 * route declines), by the preset and by a copy of it, against the
 * generic code, value and flag word: random encodings; products within
 * 3 ulps of the tininess border 2^-126 - 2^-151, of 2^-126, of half the
 * smallest subnormal and of the overflow border 2^128 - 2^103 (the
 * second operand the nearest binary32 to border / first, and its
 * neighbours); sums next to the largest finite; sums whose exponents
 * differ by 20 to 40 (exact in binary64 up to 28).  Returns the count. */
static uint64_t f32_rne_cases(uint64_t *s, uint64_t per)
{
    static const double border[4] = { 0x1p-126 - 0x1p-151, 0x1p-126,
                                       0x1p-150, 0x1p128 - 0x1p103 };
    fl_format copy = fl_binary32, sf = fl_binary32;
    uint64_t cases = 0, k;
    for (k = 0; k < per; k++) {
        const fl_format *ff = (k & 1) ? &copy : &fl_binary32;
        fl_ctx c = fl_ctx_make(FL_RNE);
        uint32_t a = f32_operand(s, 1, 254), b = f32_operand(s, 1, 254);
        const uint64_t r = sm_next(s);
        int op, d;
        c.tininess = (uint8_t)(r & 1);
        c.nan = (uint8_t)((r >> 1) % FL_NANP_COUNT);
        if ((r >> 26 & 3) == 0) {
            /* a context the route declines: the hooks send the preset
             * to the route past the other formats' tests, so its fall
             * back to them is proven here too */
            c.rm = (uint8_t)((r >> 28) % (FL_RSR + 1));
            c.ftz = (uint8_t)(r >> 32 & 1);
            c.daz = (uint8_t)(r >> 33 & 1);
            c.saturate = (uint8_t)((r >> 34) % 3);
            c.sr_seed = r;
        }
        switch (r >> 8 & 3) {
        case 0: {                               /* a product at a border */
            const float x = u2f(a & 0x807FFFFFu) == 0 ? 1.5f : u2f(
                (a & 0x807FFFFFu) | (uint32_t)(27 + (r >> 16) % 200) << 23);
            const float y = (float)(border[r >> 10 & 3] / (double)x);
            a = (uint32_t)f2u(x);
            b = (uint32_t)f2u(y) + (uint32_t)((int)(r >> 24 & 7) - 3);
            break;
        }
        case 1:                                 /* next to the largest */
            a = (0x7F7FFFFFu - (uint32_t)(r >> 16 & 3)) | (uint32_t)(r >> 20 & 1) << 31;
            b = f32_operand(s, 200, 54);
            break;
        case 2:                                 /* exponents 20..40 apart */
            d = 20 + (int)((r >> 16) % 21);
            a = f32_operand(s, 60, 190) & 0xFF7FFFFFu;
            a |= 0x00800000u;                   /* exponent field >= 61 */
            b = (f32_operand(s, 1, 1) & 0x807FFFFFu) |
                (uint32_t)((int)(a >> 23 & 0xFF) - d) << 23;
            if (r >> 24 & 1)                     /* few bits: exact sums */
                b &= 0xFFFF0000u;
            break;
        default:
            break;
        }
        for (op = 0; op < 3; op++) {
            unsigned wf = 0, gf = 0;
            uint64_t w, g;
            switch (op) {
            case 0: w = GENERIC(fl_add(&sf, a, b, &c, &wf)); g = fl_add(ff, a, b, &c, &gf); break;
            case 1: w = GENERIC(fl_sub(&sf, a, b, &c, &wf)); g = fl_sub(ff, a, b, &c, &gf); break;
            default: w = GENERIC(fl_mul(&sf, a, b, &c, &wf)); g = fl_mul(ff, a, b, &c, &gf); break;
            }
            if (w != g || wf != gf)
                report(op == 0 ? OP_ADD : op == 1 ? OP_SUB : OP_MUL, ff, &c,
                       a, b, 0, w, wf, g, gf);
            cases++;
        }
    }
    return cases;
}

/* A binary16 operand: any encoding (TestFloat's way), or one near a border
 * of the results: exponents that put products and sums just below 2^-14,
 * at the overflow threshold, ties, zeros, specials. */
static uint64_t h16_operand(uint64_t *s)
{
    const uint64_t r = sm_next(s);
    const uint64_t sign = (r & 1) << 15;
    switch (r >> 1 & 7) {
    case 0: return sign | (r >> 8 & 0x3FF);                    /* subnormal/0 */
    case 1: return sign | 0x7C00 | (r >> 8 & 0x3FF) * (r >> 20 & 1);
    case 2: return sign | ((uint64_t)(1 + (r >> 8) % 14) << 10) | (r >> 16 & 0x3FF);
    case 3: return sign | ((uint64_t)(16 + (r >> 8) % 15) << 10) | (r >> 16 & 0x3FF);
    case 4: return sign | (r >> 16 & 0x7C00) | (r >> 32 & 0x3F0); /* ties */
    default: return r >> 32 & 0xFFFF;
    }
}

/* Cap the calling thread at the level whose binary16 kernels are lv
 * (fl__h16_hw: 0 the SSE2 versions, 1 F16C and FMA3, 2 AVX-512, 3
 * AVX512-FP16 besides). */
static void h16_cap(int lv)
{
    fl__accel_cap(lv >= 3 ? FL__CPU_AVX512FP16 : lv == 2 ? FL__CPU_AVX512
                  : lv == 1 ? FL__CPU_AVX2 : FL__CPU_SCALAR);
}

/* Products at and around the tininess border 2^-14 - 2^-26 = 4095 *
 * 2^-26 (and 2^-14 = 4096 * 2^-26): every pair of 11-bit significands
 * whose product is within 64 of 4095 * 2^j or 4096 * 2^j (j = 9, 10),
 * with the exponents that put it there; mul, and fma with a zero or tiny
 * addend, both tininess rules, every level.  Returns the case count. */
static uint64_t h16_border_cases(uint64_t *s)
{
    const fl_format *ff = &fl_binary16;
    fl_format sf = fl_binary16;
    const int hw0 = fl__h16_hw();
    uint64_t cases = 0, sa, sb;
    int lv, j, tin;
    for (sa = 1024; sa < 2048; sa++)
        for (sb = 1024; sb < 2048; sb++)
            for (j = 9; j <= 10; j++) {
                const int64_t P = (int64_t)(sa * sb);
                const int64_t t0 = (int64_t)4095 << j, t1 = (int64_t)4096 << j;
                int ea;
                if (!((P - t0 <= 64 && t0 - P <= 64) || (P - t1 <= 64 && t1 - P <= 64)))
                    continue;
                for (ea = 1; ea < 24 - j; ea++) {
                    const uint64_t a = ((uint64_t)ea << 10) | (sa & 0x3FF) |
                                       (sm_next(s) & 1) << 15;
                    const uint64_t b = ((uint64_t)(24 - j - ea) << 10) |
                                       (sb & 0x3FF) | (sm_next(s) & 1) << 15;
                    const uint64_t ds[3] = { 0, sm_next(s) & 0x83FF, 0x8000 };
                    for (lv = hw0 > 0 ? hw0 : 0; lv >= 0; lv--) {
                        h16_cap(lv);
                        for (tin = 0; tin < 2; tin++) {
                            fl_ctx c = fl_ctx_make(FL_RNE);
                            unsigned wf = 0, gf = 0, k;
                            uint64_t w, g;
                            c.tininess = (uint8_t)tin;
                            w = GENERIC(fl_mul(&sf, a, b, &c, &wf));
                            g = fl_mul(ff, a, b, &c, &gf);
                            if (w != g || wf != gf)
                                report(OP_MUL, ff, &c, a, b, 0, w, wf, g, gf);
                            cases++;
                            for (k = 0; k < 3; k++) {
                                wf = gf = 0;
                                w = GENERIC(fl_fma(&sf, a, b, ds[k], &c, &wf));
                                g = fl_fma(ff, a, b, ds[k], &c, &gf);
                                if (w != g || wf != gf)
                                    report(OP_FMA, ff, &c, a, b, ds[k], w, wf, g, gf);
                                cases++;
                            }
                        }
                    }
                }
            }
    fl__accel_cap(FL__CPU_LEVELS);
    return cases;
}

/* fl_add, fl_sub, fl_mul and fl_fma on binary16 in nearest even (any
 * tininess and NaN preset, no ftz/daz/saturation: the contexts their
 * fast paths take) against the generic code, with the F16C / AVX-512
 * versions on (the CPU's level) and off (SSE2), value and flag word. */
static uint64_t h16_cases(uint64_t *s, uint64_t per, uint64_t *levels_run)
{
    const fl_format *ff = &fl_binary16;
    fl_format sf = fl_binary16;
    const int hw0 = fl__h16_hw();
    uint64_t cases = 0, k;
    int lv;
    for (lv = hw0 > 0 ? hw0 : 0; lv >= 0; lv--) {
        h16_cap(lv);
        ++*levels_run;
        for (k = 0; k < per; k++) {
            fl_ctx c = fl_ctx_make(FL_RNE);
            const uint64_t a = h16_operand(s), b = h16_operand(s),
                           d = h16_operand(s);
            uint64_t w, g;
            unsigned wf = 0, gf = 0;
            const int op = (int)(k & 3);
            c.tininess = (uint8_t)(sm_next(s) & 1);
            c.nan = (uint8_t)(sm_next(s) % FL_NANP_COUNT);
            switch (op) {
            case 0: w = GENERIC(fl_add(&sf, a, b, &c, &wf)); g = fl_add(ff, a, b, &c, &gf); break;
            case 1: w = GENERIC(fl_sub(&sf, a, b, &c, &wf)); g = fl_sub(ff, a, b, &c, &gf); break;
            case 2: w = GENERIC(fl_mul(&sf, a, b, &c, &wf)); g = fl_mul(ff, a, b, &c, &gf); break;
            default: w = GENERIC(fl_fma(&sf, a, b, d, &c, &wf)); g = fl_fma(ff, a, b, d, &c, &gf); break;
            }
            if (w != g || wf != gf)
                report(op == 0 ? OP_ADD : op == 1 ? OP_SUB : op == 2 ? OP_MUL : OP_FMA,
                       ff, &c, a, b, d, w, wf, g, gf);
            cases++;
        }
    }
    fl__accel_cap(FL__CPU_LEVELS);
    return cases;
}

/*
 * The AVX512-FP16 routes of binary16 (fast_fp16.c; level avx512fp16, a
 * GCC 12 build): fl_add, fl_sub, fl_mul, fl_div, fl_sqrt and fl_fma in
 * nearest even, toward zero, down and up, random tininess and NaN rule,
 * against the generic code, value and flag word, both through the entry
 * point (whichever route the hook picks) and through the route itself
 * (fl__p16_*), whose takes are counted: a route that declined everything
 * would fail here.  Operands: h16_operand's (subnormals, ties, borders,
 * specials), sums next to the largest finite value, and for div
 * dividends 2^-15 .. 2^-13 times the divisor (the quotients' tininess
 * border); every binary16 encoding through sqrt in each mode.  Returns the case count (0 without the level).
 */
static uint64_t p16_cases(uint64_t *s, uint64_t per, uint64_t *taken)
{
    uint64_t cases = 0;
    *taken = 0;
#ifdef FL__P16
    static const int modes[4] = { FL_RNE, FL_RTZ, FL_RDN, FL_RUP };
    const fl_format *ff = &fl_binary16;
    fl_format sf = fl_binary16;
    uint64_t k;
    if (fl__accel_level() < FL__CPU_AVX512FP16)
        return 0;
    for (k = 0; k < per + 4 * 65536; k++) {
        fl_ctx c = fl_ctx_make(modes[k & 3]);
        const int op = k >= per ? 4 : (int)(k >> 2) % 6;
        uint64_t a = k >= per ? (k - per) >> 2 : h16_operand(s),
                 b = h16_operand(s), d = h16_operand(s), w, g, q = 0;
        unsigned wf = 0, gf = 0, qf = 0;
        int took = 0;
        c.tininess = (uint8_t)(sm_next(s) & 1);
        c.nan = (uint8_t)(sm_next(s) % FL_NANP_COUNT);
        if (op < 2 && (sm_next(s) & 3) == 0) {
            /* sums next to the largest finite value, where TwoSum's
             * intermediate s - a overflows */
            a = (sm_next(s) & 0x83FF) | 0x7800;
            b = (a & 0x8000) ^ 0x8000 ^ (op == 1 ? 0x8000 : 0) ^
                (sm_next(s) % 0x7800);
        }
        if (op == 3 && (sm_next(s) & 1)) {
            /* a quotient near 2^-14: exponent of b, minus 13 .. 15 */
            const uint64_t eb = 15 + sm_next(s) % 15;
            b = (sm_next(s) & 0x83FF) | eb << 10;
            a = (sm_next(s) & 0x83FF) | (eb - 13 - sm_next(s) % 3) << 10;
        }
        switch (op) {
        case 0:
            w = GENERIC(fl_add(&sf, a, b, &c, &wf));
            g = fl_add(ff, a, b, &c, &gf);
            took = fl__p16_add(a, b, &c, &qf, &q);
            break;
        case 1:
            w = GENERIC(fl_sub(&sf, a, b, &c, &wf));
            g = fl_sub(ff, a, b, &c, &gf);
            took = fl__p16_sub(a, b, &c, &qf, &q);
            break;
        case 2:
            w = GENERIC(fl_mul(&sf, a, b, &c, &wf));
            g = fl_mul(ff, a, b, &c, &gf);
            took = fl__p16_mul(a, b, &c, &qf, &q);
            break;
        case 3:
            w = GENERIC(fl_div(&sf, a, b, &c, &wf));
            g = fl_div(ff, a, b, &c, &gf);
            took = fl__p16_div(a, b, &c, &qf, &q);
            break;
        case 4:
            w = GENERIC(fl_sqrt(&sf, a, &c, &wf));
            g = fl_sqrt(ff, a, &c, &gf);
            took = fl__p16_sqrt(a, &c, &qf, &q);
            break;
        default:
            w = GENERIC(fl_fma(&sf, a, b, d, &c, &wf));
            g = fl_fma(ff, a, b, d, &c, &gf);
            took = fl__p16_fma(a, b, d, &c, &qf, &q);
            break;
        }
        {
            static const int opc[6] = { OP_ADD, OP_SUB, OP_MUL, OP_DIV,
                                        OP_SQRT, OP_FMA };
            if (w != g || wf != gf)
                report(opc[op], ff, &c, a, b, d, w, wf, g, gf);
            if (took && (w != q || wf != qf))
                report(opc[op], ff, &c, a, b, d, w, wf, q, qf);
            if (!took && qf)    /* a route declines before any flag */
                report(opc[op], ff, &c, a, b, d, w, wf, q, qf);
        }
        *taken += (uint64_t)took;
        cases++;
    }
#else
    (void)s;
    (void)per;
#endif
    return cases;
}

/* fl_mul and fl_add on binary16 for every pair with an infinite or NaN
 * operand (and fl_fma on triples with one, below):
 * the 2048 such encodings against themselves and against 64 finite ones
 * (signed zeros, subnormal and normal extremes, one, random), both
 * orders, under the x86 and SoftFloat NaN rules (the hardware path takes
 * every encoding there) and one other rule, random tininess, every level;
 * against the generic code, value and flag word.  Returns the case count. */
static uint64_t h16_special_cases(uint64_t *s)
{
    const fl_format *ff = &fl_binary16;
    fl_format sf = fl_binary16;
    const int hw0 = fl__h16_hw();
    static const uint64_t fixed[12] = { 0x0000, 0x0001, 0x03FF, 0x0400,
                                        0x3C00, 0x7BFF, 0x3555, 0x0200,
                                        0x1000, 0x5800, 0x7000, 0x2E66 };
    uint64_t ops[2048 + 64], cases = 0;
    size_t n = 0, i, j;
    int lv, r;
    for (i = 0; i < 1024; i++) {
        ops[n++] = 0x7C00 + i;
        ops[n++] = 0xFC00 + i;
    }
    for (i = 0; i < 12; i++) {
        ops[n++] = fixed[i];
        ops[n++] = fixed[i] | 0x8000;
    }
    while (n < 2048 + 64) {
        const uint64_t x = sm_next(s) & 0xFFFF;
        if ((x & 0x7C00) != 0x7C00)
            ops[n++] = x;
    }
    for (lv = hw0 > 0 ? hw0 : 0; lv >= 0; lv--) {
        h16_cap(lv);
        for (r = 0; r < 3; r++) {
            fl_ctx c = fl_ctx_make(FL_RNE);
            c.nan = (uint8_t)(r == 0 ? FL_NANP_X86 : r == 1 ? FL_NANP_SOFTFLOAT
                                     : 1 + sm_next(s) % 3);
            for (i = 0; i < n; i++)
                for (j = 0; j < (i < 2048 ? n : 2048); j++) {
                    unsigned wf = 0, gf = 0;
                    uint64_t w, g;
                    c.tininess = (uint8_t)(sm_next(s) & 1);
                    w = GENERIC(fl_mul(&sf, ops[i], ops[j], &c, &wf));
                    g = fl_mul(ff, ops[i], ops[j], &c, &gf);
                    if (w != g || wf != gf)
                        report(OP_MUL, ff, &c, ops[i], ops[j], 0, w, wf, g, gf);
                    wf = gf = 0;
                    w = GENERIC(fl_add(&sf, ops[i], ops[j], &c, &wf));
                    g = fl_add(ff, ops[i], ops[j], &c, &gf);
                    if (w != g || wf != gf)
                        report(OP_ADD, ff, &c, ops[i], ops[j], 0, w, wf, g, gf);
                    cases += 2;
                }
            /* fl_fma: every triple of a small set of each class (signed
             * zeros, infinities, quiet and signaling NaNs, finite values),
             * then each of the 2048 specials in each place with 64 random
             * pairs of the others */
            {
                static const uint64_t few[14] = { 0x0000, 0x8000, 0x7C00, 0xFC00,
                                                  0x7E00, 0xFE01, 0x7C01, 0xFD55,
                                                  0x3C00, 0xBC00, 0x7BFF, 0x0001,
                                                  0x8400, 0x4500 };
                uint64_t t[3];
                int p;
                for (i = 0; i < 14 * 14 * 14 + 3 * 2048 * 64; i++) {
                    unsigned wf = 0, gf = 0;
                    uint64_t w, g;
                    if (i < 14 * 14 * 14) {
                        t[0] = few[i % 14];
                        t[1] = few[i / 14 % 14];
                        t[2] = few[i / 196];
                    } else {
                        const size_t k = i - 14 * 14 * 14;
                        p = (int)(k / (2048 * 64));
                        t[0] = ops[sm_next(s) % n];
                        t[1] = ops[sm_next(s) % n];
                        t[2] = ops[sm_next(s) % n];
                        t[p] = ops[k / 64 % 2048];
                    }
                    c.tininess = (uint8_t)(sm_next(s) & 1);
                    w = GENERIC(fl_fma(&sf, t[0], t[1], t[2], &c, &wf));
                    g = fl_fma(ff, t[0], t[1], t[2], &c, &gf);
                    if (w != g || wf != gf)
                        report(OP_FMA, ff, &c, t[0], t[1], t[2], w, wf, g, gf);
                    cases++;
                }
            }
        }
    }
    fl__accel_cap(FL__CPU_LEVELS);
    return cases;
}

/* fl_fma on binary16 where the product lies below the addend's 53rd bit
 * (|a * b| < 2^-40 next to |d| >= 2^14): the binary64 sum
 * (fl__h16_fma_hw) or binary32 sum (fl__h16_fma_f16c) is the addend
 * itself and only the exact error term says the result is inexact:
 * subnormal or small factors, large
 * addends (every other one a short significand, so that the result is
 * exact but for the product), both signs, under the x86 and SoftFloat
 * rules at every level; against the generic code. */
static uint64_t h16_fma_sticky_cases(uint64_t *s)
{
    const fl_format *ff = &fl_binary16;
    fl_format sf = fl_binary16;
    const int hw0 = fl__h16_hw();
    uint64_t cases = 0;
    int lv, r, i;
    for (lv = hw0 > 0 ? hw0 : 0; lv >= 0; lv--) {
        h16_cap(lv);
        for (r = 0; r < 2; r++) {
            fl_ctx c = fl_ctx_make(FL_RNE);
            c.nan = (uint8_t)(r ? FL_NANP_SOFTFLOAT : FL_NANP_X86);
            for (i = 0; i < 40000; i++) {
                unsigned wf = 0, gf = 0;
                const uint64_t x = sm_next(s);
                const uint64_t fm = (i & 1) ? 0x83FF : 0x8000 | (0x3FF << (x >> 56) % 10 & 0x3FF);
                /* subnormal factors below 2^-20, or (every fourth) any
                 * subnormal; the addend 2^14 .. 65504 */
                const uint64_t ma = (i & 2) ? 0x3FF : 0xF;
                const uint64_t a = (x & 0x8000) | (1 + (x >> 1 & ma) % ma);
                const uint64_t b = (x >> 20 & 0x8000) | (1 + (x >> 21 & ma) % ma);
                const uint64_t d = (x >> 40 & fm) | (uint64_t)(29 + (x >> 52) % 2) << 10;
                const uint64_t w = GENERIC(fl_fma(&sf, a, b, d, &c, &wf));
                const uint64_t g = fl_fma(ff, a, b, d, &c, &gf);
                if (w != g || wf != gf)
                    report(OP_FMA, ff, &c, a, b, d, w, wf, g, gf);
                cases++;
            }
        }
    }
    fl__accel_cap(FL__CPU_LEVELS);
    return cases;
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
                    cases += stream_case((int)(sm_next(&s) % NFMT), 0, &s,
                                         level, &handled);
                } else {
                    cases += stream_case(0, 1, &s, level, &handled);
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
            while (cases < per_op) {
                const size_t n = 1 + (size_t)(sm_next(&s) % 4096);
                handled += array_cases(op, (int)(sm_next(&s) % NFMT), &s, n);
                cases += n;
            }
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
        /* 13 formats of 2^8 codes, each code against all 2^8: at least
         * 13 * 2^16 * 8 cases */
        if (nf_bad || nf_cases < 13ull * 65536 * 8) {
            printf("FAIL: outside fast scope\n");
            bad = 1;
        }
    }
    {
        uint64_t lvs = 0, hc = h16_cases(&s, per_op, &lvs), hb;
        hb = h16_border_cases(&s);
        {
            const uint64_t hk = h16_fma_sticky_cases(&s);
            printf("%-20s %10" PRIu64 " cases, %ld mismatches so far\n",
                   "binary16 fma sticky", hk, failures);
            if (hk < 80000) {
                printf("FAIL: binary16 fma sticky: too few cases\n");
                bad = 1;
            }
        }
        {
            const uint64_t hs = h16_special_cases(&s);
            printf("%-20s %10" PRIu64 " cases, %ld mismatches so far\n",
                   "binary16 add/mul/fma inf/NaN", hs, failures);
            /* (2048 * 2112 + 64 * 2048) pairs for two operations and
             * (14^3 + 3 * 2048 * 64) triples, 3 NaN rules, >= 1 level */
            if (hs < 3ull * (2 * (2048 * 2112 + 64 * 2048) + 14 * 14 * 14 + 3 * 2048 * 64)) {
                printf("FAIL: binary16 add/mul/fma inf/NaN: too few cases\n");
                bad = 1;
            }
        }
        {
            const uint64_t fc = f32_rne_cases(&s, per_op);
            printf("%-20s %10" PRIu64 " cases, %ld mismatches so far\n",
                   "binary32 rne add/sub/mul", fc, failures);
            if (fc < 3 * per_op) {
                printf("FAIL: binary32 rne add/sub/mul: too few cases\n");
                bad = 1;
            }
        }
        printf("%-20s %10" PRIu64 " cases, %ld mismatches so far\n",
               "binary16 tiny border", hb, failures);
        if (hb < 10000) {
            printf("FAIL: binary16 tiny border: too few cases\n");
            bad = 1;
        }
        printf("%-20s %10" PRIu64 " cases, %" PRIu64 " levels (hw %d..0), "
               "%ld mismatches so far\n", "binary16 rne paths", hc, lvs,
               fl__h16_hw(), failures);
        if (hc < per_op) {
            printf("FAIL: binary16 rne paths: too few cases\n");
            bad = 1;
        }
        {
            uint64_t pt;
            const uint64_t pc = p16_cases(&s, 6 * per_op, &pt);
            if (pc == 0) {
                printf("%-20s skipped: no AVX512-FP16 at this level or in "
                       "this build\n", "binary16 avx512fp16");
            } else {
                printf("%-20s %10" PRIu64 " cases, %10" PRIu64 " taken by "
                       "the routes, %ld mismatches so far\n",
                       "binary16 avx512fp16", pc, pt, failures);
                if (pc < 6 * per_op || pt < pc / 2) {
                    printf("FAIL: binary16 avx512fp16: too few cases\n");
                    bad = 1;
                }
            }
        }
    }
    if (simd_levels() == 0) {
        printf("%-20s skipped: no SIMD kernels on this CPU/build\n",
               "narrow kernels");
    } else {
        uint64_t h1 = 0, h2 = 0, c1, c2;
        setup_narrow();
        c1 = narrow_sweep(&h1);
        printf("%-20s %10" PRIu64 " cases, %10" PRIu64 " in the kernels, "
               "%ld mismatches so far\n", "narrow neighbours", c1, h1,
               failures);
        c2 = narrow_random(&s, per_op, &h2);
        printf("%-20s %10" PRIu64 " cases, %10" PRIu64 " in the kernels, "
               "%ld mismatches so far\n", "narrow random", c2, h2, failures);
        fflush(stdout);
        /* at least the formats' codes and midpoints, each in 7 modes and
         * 5 passes (4 contexts, isolated lanes) per level, and the quota */
        if (c1 < (uint64_t)NNARROW * 7 * 5 * 64 || c2 < per_op ||
            h1 * 2 < c1 || h2 * 2 < c2) {
            printf("FAIL: narrow kernels: too few cases in the kernels\n");
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
        "float8_e5m3fnu", "float8_e8m0fnu", "fp8-e8m0", "p3109:p1",
        "p3109:p2", "p3109:p3", "p3109:p4", "p3109:p5", "p3109:p6", "p3109:p7" };
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
typedef struct { int job, rm; uint64_t lo, hi, cases, mism; } ex_task;

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
            w[j] = GENERIC(fl_round_float(&slow_fmt[fi], x[j], &cj, &wf));
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
 * fl_add_array .. fl_div_array (op k, in mode t->rm: nearest even, or the
 * modes FPLAB_EXHAUSTIVE_RM names) in blocks of 256, against the generic
 * scalar code, value and flag word per element. */
static void ex_binarr(ex_task *t, int fi, int op)
{
    enum { B = 256 };
    uint64_t a[B], b[B], r[B];
    unsigned fl[B];
    const fl_ctx c = fl_ctx_make(t->rm);
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
            case 0: w = GENERIC(fl_add(&slow_fmt[fi], a[j], b[j], &c, &wf)); break;
            case 1: w = GENERIC(fl_sub(&slow_fmt[fi], a[j], b[j], &c, &wf)); break;
            case 2: w = GENERIC(fl_mul(&slow_fmt[fi], a[j], b[j], &c, &wf)); break;
            default: w = GENERIC(fl_div(&slow_fmt[fi], a[j], b[j], &c, &wf)); break;
            }
            if ((w != r[j] || wf != fl[j]) && t->mism++ < 5)
                printf("MISMATCH %s array op %d %s a=%04" PRIx64 " b=%04" PRIx64
                       ": generic %04" PRIx64 "/%02x array %04" PRIx64
                       "/%02x\n", fast_fmt[fi].name, op, fl_rm_name(t->rm),
                       a[j], b[j], w, wf, r[j], fl[j]);
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
        c.rm = (uint8_t)t->rm;
        if (op < 4) {
            a = i >> 16; b = i & 0xFFFF;
            switch (op) {
            case 0: w = GENERIC(fl_add(&slow_fmt[fi], a, b, &c, &wf)); g = fl_add(&fast_fmt[fi], a, b, &c, &gf); break;
            case 1: w = GENERIC(fl_sub(&slow_fmt[fi], a, b, &c, &wf)); g = fl_sub(&fast_fmt[fi], a, b, &c, &gf); break;
            case 2: w = GENERIC(fl_mul(&slow_fmt[fi], a, b, &c, &wf)); g = fl_mul(&fast_fmt[fi], a, b, &c, &gf); break;
            default: w = GENERIC(fl_div(&slow_fmt[fi], a, b, &c, &wf)); g = fl_div(&fast_fmt[fi], a, b, &c, &gf); break;
            }
        } else {
            fl_ctx cm = fl_ctx_make(op - 4);
            cm.sr_seed = 12345; cm.sr_index = i;
            a = i; b = 0;
            w = GENERIC(fl_convert(&slow_fmt[fi], &slow_fmt[2], a, &cm, &wf));
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
    const int only_binarr = only && strncmp(only, "binarr", 6) == 0;
    /* =pairs[:FORMAT]: only the scalar sweeps of every pair */
    const int only_pairs = only && strncmp(only, "pairs", 5) == 0;
    const char *only_fmt = only_array && only[5] == ':'    ? only + 6
                           : only_binarr && only[6] == ':' ? only + 7
                           : only_pairs && only[5] == ':'  ? only + 6
                                                           : NULL;
    const char *rms = getenv("FPLAB_EXHAUSTIVE_RM");
    uint64_t total = 0, mism = 0, expect = 0;
    int fi, op, t, rm;
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
            if ((only_scalar && op >= 4 + FL_RM_COUNT) || (only_pairs && op >= 4))
                continue;
            /* FPLAB_EXHAUSTIVE_ONLY=binarr[:FORMAT]: only the fl_*_array
             * sweeps (of one format) */
            if (only_binarr
                    ? op < 4 + 2 * FL_RM_COUNT
                    : only && !only_pairs && op >= 4 + 2 * FL_RM_COUNT)
                continue;
            if (rms && *rms && op >= 4 + FL_RM_COUNT &&
                op < 4 + 2 * FL_RM_COUNT &&
                !strstr(rms, fl_rm_name(op - 4 - FL_RM_COUNT)))
                continue;
            /* the pair sweeps (scalar and fl_*_array) run once per mode
             * FPLAB_EXHAUSTIVE_RM names (stochastic rounding aside),
             * nearest even without it; the conversions once */
            for (rm = 0; rm < FL_RSR; rm++) {
            if (op >= 4 + 2 * FL_RM_COUNT || op < 4
                    ? (rms && *rms ? !strstr(rms, fl_rm_name(rm)) : rm != FL_RNE)
                    : rm != FL_RNE)
                continue;
            for (t = 0; t < nthr; t++) {
                task[t].job = fi << 5 | op;
                task[t].rm = rm;
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
                printf("%s %s%s%s: %" PRIu64 " cases, %" PRIu64 " mismatches\n",
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
                                                  : " fl_*_array",
                       /* the conversions and the array kernel print
                        * their mode above; the binary ops' is rm */
                       op < 4 + 2 * FL_RM_COUNT && op >= 4 ? ""
                       : rm == FL_RNE ? " rne" : rm == FL_RTZ ? " rtz"
                       : rm == FL_RDN ? " rdn" : rm == FL_RUP ? " rup"
                       : rm == FL_RNA ? " rna" : " rto",
                       c, m);
                fflush(stdout);
                total += c; mism += m; expect += space;
            }
            }
        }
    printf("exhaustive: %" PRIu64 " cases (expected %" PRIu64 "), %" PRIu64
           " mismatches\n", total, expect, mism);
    return total == expect && mism == 0 && total > 0 ? 0 : 1;
}

/* The level this run proves (the CPU's, capped by FPLAB_CPU): 77 (CTest's
 * skip) when FPLAB_CPU names a level this CPU does not have, or generic,
 * where no fast path runs and there is nothing to prove. */
static int level_gate(void)
{
    const char *want = getenv("FPLAB_CPU");
    const int lv = fl__cpu_level();
    char model[64];
    fl__cpu_model(model, sizeof model);
    printf("CPU %s, level %s%s%s%s\n", model, fl__cpu_level_name(lv),
           want && *want ? " (FPLAB_CPU=" : "", want && *want ? want : "",
           want && *want ? ")" : "");
    if (lv == FL__CPU_GENERIC) {
        printf("skipped: at the level generic no fast path runs\n");
        return 77;
    }
    if (want && *want && strcmp(want, fl__cpu_level_name(lv)) != 0) {
        printf("skipped: FPLAB_CPU=%s, but this CPU's level is %s\n", want,
               fl__cpu_level_name(lv));
        return 77;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const int gate = level_gate();
    if (gate)
        return gate;
    setup_formats();
    if (argc > 1 && strcmp(argv[1], "exhaustive") == 0)
        return run_exhaustive();
    if (argc > 1 && strcmp(argv[1], "exhaustive-narrow") == 0)
        return run_exhaustive_narrow();
    return run_random();
}
