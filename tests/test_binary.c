/*
 * test_binary.c — add, sub, mul, div, rem and fma of one format (argv[1])
 * against the MPFR oracle: value, flags and ternary.
 *   - the special-value grid (+-0, +-smallest/largest subnormal, +-smallest
 *     normal, +-1, +-largest finite, +-inf, quiet and signaling NaNs, and
 *     their neighbours) in all pairs, fma in all triples, x 6 modes x both
 *     tininess rules;
 *   - formats of at most 8 bits: all pairs x 6 modes x both rules; fma on
 *     every triple x 6 modes x both rules for formats of at most 6 bits,
 *     and for 8-bit formats under "long" (2^24 triples), on random triples
 *     otherwise;
 *   - 8-bit formats: 250000 random fma triples (the rest under long);
 *   - wider formats: >= 10^6 biased random cases per op (random bits,
 *     near-ties, near overflow, around the subnormal boundary, and for fma
 *     near-cancellation), random mode, tininess rule and, one case in
 *     sixteen each, flush-to-zero / denormals-are-zero / saturation.
 * argv[2] == "long" multiplies the random counts by 20 (FPLAB_TEST_SCALE
 * multiplies further).
 */

#include "test_oracle.h"
#include "test_check.h"

static const char *fmt_name = "binary16";
static int long_run;
static uint64_t seed;

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM, OP_FMA, OP_N };
static const int mop[OP_N] = { FL_MPFR_ADD, FL_MPFR_SUB, FL_MPFR_MUL,
                               FL_MPFR_DIV, FL_MPFR_REM, FL_MPFR_FMA };

static uint64_t core_op(int op, const fl_format *f, const uint64_t *o,
                        const fl_ctx *c, unsigned *fl)
{
    switch (op) {
    case OP_ADD: return fl_add(f, o[0], o[1], c, fl);
    case OP_SUB: return fl_sub(f, o[0], o[1], c, fl);
    case OP_MUL: return fl_mul(f, o[0], o[1], c, fl);
    case OP_DIV: return fl_div(f, o[0], o[1], c, fl);
    case OP_REM: return fl_rem(f, o[0], o[1], c, fl);
    default:     return fl_fma(f, o[0], o[1], o[2], c, fl);
    }
}

/* One case: oracle, core, compare.  Returns 1 if it counted. */
static int one(tc_log *lg, int op, const fl_format *f, const uint64_t *o,
               const fl_ctx *c)
{
    fl_mpfr_res x;
    unsigned fl = 0;
    uint64_t got;
    int rc = fl_mpfr_arith(&x, mop[op], f, o, c);
    if (rc) {
        tc_oracle_fail(lg, rc, fl_mpfr_op_name(mop[op]), &x);
        return 0;
    }
    got = core_op(op, f, o, c, &fl);
    lg->cases++;
    if (!tc_same(f, got, fl, &x, 1))
        tc_report(lg, fmt_name, fl_mpfr_op_name(mop[op]), c, o,
                  op == OP_FMA ? 3 : 2, &x, got, fl);
    return 1;
}

/* The special-value grid of f, deduplicated: the boundaries of each range
 * and every special encoding of the format's NaN style, both signs. */
static int grid(const fl_format *f, uint64_t *g)
{
    const int fb = f->prec - 1;
    const uint64_t fm = f->frac_mask, hid = (uint64_t)1 << fb;
    const uint64_t one = (uint64_t)f->bias << fb;
    const uint64_t eall = f->exp_mask;
    const uint64_t magmask = f->exp_mask | f->frac_mask;
    uint64_t pos[40];
    int np = 0, n = 0;
    pos[np++] = 0;
    pos[np++] = 1;                 /* smallest subnormal */
    pos[np++] = 2;
    pos[np++] = fm - 1;
    pos[np++] = fm;                /* largest subnormal */
    pos[np++] = hid;               /* smallest normal */
    pos[np++] = hid + 1;
    pos[np++] = one - 1;
    pos[np++] = one;               /* 1 */
    pos[np++] = one + 1;
    pos[np++] = one | (hid >> 1);  /* 1.5 */
    pos[np++] = one + hid;         /* 2 */
    pos[np++] = f->max_bits - 1;
    pos[np++] = f->max_bits;       /* largest finite */
    pos[np++] = f->max_bits + 1;   /* inf, NaN, or nothing */
    pos[np++] = 3;                 /* more powers of two and neighbours, */
    pos[np++] = one - 2;           /* which matter where prec == 1 */
    pos[np++] = one + 2;
    pos[np++] = f->max_bits - 2;
    if (f->nan_style == FL_NANSTYLE_IEEE) {
        pos[np++] = eall;                        /* inf */
        pos[np++] = eall | (hid >> 1);           /* quiet NaN */
        pos[np++] = eall | (hid >> 1) | 1;       /* quiet NaN, payload */
        pos[np++] = eall | 1;                    /* signaling NaN */
        pos[np++] = eall | ((hid >> 1) - 1);     /* signaling, big payload */
    } else {
        pos[np++] = eall | fm;   /* FN: the NaN; P3109: inf; else a number */
    }
    /* (the sign bit alone, FNUZ and P3109's NaN, is 0 with the sign) */
    for (int s = 0; s < (f->is_signed ? 2 : 1); s++)
        for (int i = 0; i < np; i++) {
            uint64_t v = (pos[i] & magmask) | (s ? f->sign_mask : 0);
            int dup = 0;
            for (int j = 0; j < n; j++)
                dup |= g[j] == v;
            if (!dup)
                g[n++] = v;
        }
    return n;
}

static void grid_pairs(int op)
{
    const fl_format *f = tc_fmt(fmt_name);
    uint64_t g[80];
    int n = grid(f, g);
    tc_log lg = { "grid", 0, 0, 0 };
    long expect = 0;
    for (int mi = 0; mi < 6; mi++)
        for (int tn = 0; tn < 2; tn++) {
            fl_ctx c = tc_ctx(tc_modes[mi], tn);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    if (op == OP_FMA) {
                        for (int k = 0; k < n; k++) {
                            uint64_t o[3] = { g[i], g[j], g[k] };
                            one(&lg, op, f, o, &c);
                            expect++;
                        }
                    } else {
                        uint64_t o[3] = { g[i], g[j], 0 };
                        one(&lg, op, f, o, &c);
                        expect++;
                    }
                }
        }
    printf("%s %s grid (%d values): %ld cases, %ld mismatches\n", fmt_name,
           fl_mpfr_op_name(mop[op]), n, lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_ge(n, 12);
    ck_assert_int_eq(lg.cases, expect);
    ck_assert_int_eq(lg.cases, 12L * n * n * (op == OP_FMA ? n : 1));
    ck_assert_int_eq(lg.bad, 0);
}

START_TEST(grid_all_pairs)
{
    grid_pairs(_i);
}
END_TEST

/* Formats of <= 8 bits: every pair in every mode and tininess rule. */
START_TEST(all_pairs_small_format)
{
    const fl_format *f = tc_fmt(fmt_name);
    const uint64_t N = (uint64_t)1 << f->width;
    tc_log lg = { "all_pairs", 0, 0, 0 };
    int op = _i;
    for (int mi = 0; mi < 6; mi++)
        for (int tn = 0; tn < 2; tn++) {
            fl_ctx c = tc_ctx(tc_modes[mi], tn);
            for (uint64_t a = 0; a < N; a++)
                for (uint64_t b = 0; b < N; b++) {
                    uint64_t o[3] = { a, b, 0 };
                    one(&lg, op, f, o, &c);
                }
        }
    printf("%s %s all pairs: %ld cases, %ld mismatches\n", fmt_name,
           fl_mpfr_op_name(mop[op]), lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, 12L * (long)(N * N));
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* Every fma triple in every mode and tininess rule: formats of at most 6
 * bits in the default run, 8-bit formats (2^24 triples) under "long". */
START_TEST(all_fma_triples_small_format)
{
    const fl_format *f = tc_fmt(fmt_name);
    const uint64_t N = (uint64_t)1 << f->width;
    tc_log lg = { "all_fma_triples", 0, 0, 0 };
    for (int mi = 0; mi < 6; mi++)
        for (int tn = 0; tn < 2; tn++) {
            fl_ctx c = tc_ctx(tc_modes[mi], tn);
            for (uint64_t a = 0; a < N; a++)
                for (uint64_t b = 0; b < N; b++)
                    for (uint64_t d = 0; d < N; d++) {
                        uint64_t o[3] = { a, b, d };
                        one(&lg, OP_FMA, f, o, &c);
                    }
        }
    printf("%s fma all triples: %ld cases, %ld mismatches\n", fmt_name,
           lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, 12L * (long)(N * N * N));
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

/* ---- biased random operands ------------------------------------------ */

/* A finite (or rarely special) operand with unbiased exponent near e. */
static uint64_t operand_at(const fl_format *f, uint64_t *rs, int e)
{
    const int fb = f->prec - 1;
    const int64_t eall = ((int64_t)1 << f->ebits) - 1;
    uint64_t r = tc_splitmix(rs), frac;
    int64_t be = (int64_t)e + f->bias;
    switch (r & 3) {   /* fraction style */
    case 0: frac = tc_splitmix(rs); break;                     /* random */
    case 1: frac = tc_splitmix(rs) << (fb - (int)((r >> 2) % (fb + 1)));
            break;                                             /* sparse */
    case 2: frac = ~(tc_splitmix(rs) << (fb - (int)((r >> 2) % (fb + 1))));
            break;                                             /* dense */
    default: frac = (r >> 8) & 1 ? 0 : ~(uint64_t)0; break;   /* extremes */
    }
    frac &= f->frac_mask;
    if (be <= 0) {   /* subnormal range: shift the significand down */
        int sh = (int)(1 - be);
        uint64_t sig = frac | ((uint64_t)1 << fb);
        frac = sh > fb + 1 ? (uint64_t)((r >> 16) & 1) : sig >> sh;
        be = 0;
    } else if (be >= eall) {
        be = eall - 1;
    }
    if (((r >> 20) & 255) == 0 && f->nan_style == FL_NANSTYLE_IEEE)
        be = eall;   /* 1/256: inf or NaN */
    return ((r >> 40) & 1 ? f->sign_mask : 0) |
           ((uint64_t)be << fb) | (frac & f->frac_mask);
}

static int exp_of(const fl_format *f, uint64_t a)
{
    int64_t be = (int64_t)((a & f->exp_mask) >> (f->prec - 1));
    return (int)(be == 0 ? f->emin : be - f->bias);
}

static void gen(int op, const fl_format *f, uint64_t *rs, uint64_t *o)
{
    const uint64_t r = tc_splitmix(rs);
    const int p = f->prec;
    const int span = f->emax - f->emin + 2 * p;
    int target, d = (int)((r >> 8) % (2 * p + 5)) - (p + 2);
    switch (r & 3) {
    case 0:   /* random bit patterns */
        o[0] = tc_splitmix(rs) & (f->sign_mask | f->exp_mask | f->frac_mask);
        o[1] = tc_splitmix(rs) & (f->sign_mask | f->exp_mask | f->frac_mask);
        o[2] = tc_splitmix(rs) & (f->sign_mask | f->exp_mask | f->frac_mask);
        return;
    case 1:   /* results near overflow */
        target = f->emax - (int)((r >> 16) % 3);
        break;
    case 2:   /* results around the subnormal boundary */
        target = f->emin - (int)((r >> 16) % (p + 3)) + 1;
        break;
    default:  /* anywhere, operands close together (near-ties) */
        target = f->emin - p + (int)((r >> 16) % (uint64_t)span);
        break;
    }
    switch (op) {
    case OP_MUL: case OP_FMA: {
        int ea = f->emin + (int)((r >> 24) % (uint64_t)(f->emax - f->emin + 1));
        int eb = target - ea;
        if (eb > f->emax) { ea += eb - f->emax; eb = f->emax; }
        if (eb < f->emin - p) { ea -= f->emin - p - eb; eb = f->emin - p; }
        o[0] = operand_at(f, rs, ea);
        o[1] = operand_at(f, rs, eb);
        /* fma: the addend near the product, often cancelling */
        o[2] = operand_at(f, rs, exp_of(f, o[0]) + exp_of(f, o[1]) +
                                     (int)((r >> 40) % 5) - 2);
        if ((r >> 48) & 1)
            o[2] ^= f->sign_mask;
        break;
    }
    case OP_DIV: {
        int eb = f->emin + (int)((r >> 24) % (uint64_t)(f->emax - f->emin + 1));
        int ea = target + eb;
        if (ea > f->emax) { eb -= ea - f->emax; ea = f->emax; }
        if (ea < f->emin - p) { eb += f->emin - p - ea; ea = f->emin - p; }
        o[0] = operand_at(f, rs, ea);
        o[1] = operand_at(f, rs, eb);
        o[2] = 0;
        break;
    }
    case OP_REM:
        o[0] = operand_at(f, rs, target);
        o[1] = operand_at(f, rs, target - (int)((r >> 24) % (uint64_t)span) / 4);
        o[2] = 0;
        break;
    default:   /* add, sub: exponents within p+2 of each other */
        o[0] = operand_at(f, rs, target);
        o[1] = operand_at(f, rs, target + d);
        o[2] = 0;
        break;
    }
}

START_TEST(random_biased)
{
    const fl_format *f = tc_fmt(fmt_name);
    const int op = _i;
    /* 8-bit formats: fma only, every triple under long, so a quarter of
     * the 10^6 in the default run */
    const long n = (f->width <= 8 ? 250000L : 1000000L) *
                   (long_run ? 20 : 1) * tc_scale();
    uint64_t rs = seed ^ (0x1000u * (unsigned)op) ^ (uint64_t)f->width << 32;
    tc_log lg = { "random", 0, 0, 0 };
    long tries = 0;
    while (lg.cases < n && tries < 2 * n) {
        uint64_t o[3];
        uint64_t r = tc_splitmix(&rs);
        fl_ctx c = tc_ctx(tc_modes[r % 6], (int)((r >> 3) & 1));
        c.ftz = ((r >> 4) & 15) == 0;
        c.daz = ((r >> 8) & 15) == 0;
        c.saturate = ((r >> 12) & 15) == 0;
        c.nan = (uint8_t)((r >> 16) % FL_NANP_COUNT);
        gen(op, f, &rs, o);
        tries++;
        one(&lg, op, f, o, &c);
    }
    printf("%s %s random: %ld cases, %ld mismatches\n", fmt_name,
           fl_mpfr_op_name(mop[op]), lg.cases, lg.bad);
    ck_assert_int_eq(lg.oracle_err, 0);
    ck_assert_int_eq(lg.cases, n);
    ck_assert_int_eq(lg.bad, 0);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        fmt_name = argv[1];
    long_run = argc > 2 && strcmp(argv[2], "long") == 0;
    if (!fl_mpfr_available()) {
        printf("SKIP: built without MPFR, no oracle\n");
        return TC_SKIP;
    }
    const fl_format *f = tc_fmt(fmt_name);
    seed = tc_seed(fmt_name);
    TCase *tc = tc_tcase(fmt_name, 3600, NULL);
    if (!long_run)
        tcase_add_loop_test(tc, grid_all_pairs, 0, OP_N);
    if (f->width <= 8) {
        if (!long_run)
            tcase_add_loop_test(tc, all_pairs_small_format, 0, OP_FMA);
        if (long_run || f->width <= 6)   /* (cheap below 8 bits: both) */
            tcase_add_test(tc, all_fma_triples_small_format);
    }
    if (f->width > 8 || (!long_run && f->width > 6))
        tcase_add_loop_test(tc, random_biased, f->width <= 8 ? OP_FMA : 0,
                            OP_N);
    return tc_exit(tc_run_suite("binary", tc, TC_FORKED));
}
