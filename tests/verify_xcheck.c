/*
 * verify_xcheck.c — oracles checked against each other, without the core:
 *
 *   xcheck     every job the hw and cuda-host oracles cover, on a biased
 *              random sample, compared with the MPFR oracle (values; flags
 *              where both report them; NaN as any NaN since MPFR has no
 *              payloads).  An oracle bug cannot hide behind the core.
 *   fmaf       proves that binary32 fmaf followed by one rounding to
 *              binary16 is NOT a correct binary16 fma: searches random
 *              triples until it finds one where it differs from MPFR, and
 *              checks that the hw oracle (round-to-odd path) agrees with
 *              MPFR on it.
 *   bf16flush  shows that vcvtneps2bf16 flushes subnormal binary32 inputs
 *              (the behaviour the hw oracle models with daz).
 *   hwpaths    the hw oracle's two binary16 and bfloat16 flag paths against
 *              each other: arrays (16 lanes at a time, flags read off the
 *              results and checked against MXCSR per block) and one element
 *              per call (MXCSR read per element), for add, sub, mul, div
 *              and sqrt in the four x86 modes.  Default: 2^20 biased random pairs per
 *              op and mode; `hwpaths all`: every pair (2^32 per op and
 *              mode, hours).
 *
 * Seeds: fixed per check, always printed; FPLAB_TEST_SEED=<n> gives another.
 * Exit: 0 pass, 1 fail, 77 skipped (the oracles needed are missing).
 */
#include "oracle.h"
#include "sweep.h"
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int can(const fl_oracle *o)
{
    char why[256];
    return o->can_run(why, sizeof why);
}

/* Compare oracle `o` with MPFR on n sampled inputs of job j.  Returns the
 * number of disagreements; adds the cases compared to *cases. */
static uint64_t xcheck_job(const fl_oracle *o, fl_orc_job j, uint64_t n,
                           uint64_t seed, uint64_t *cases)
{
    enum { CH = 4096 };
    static uint64_t A[CH], B[CH], C[CH], R1[CH], R2[CH];
    static unsigned F1[CH], F2[CH];
    fl_sweep_cfg cfg;
    const unsigned fm = o->flags_reported(&j);
    const int ar = fl_orc_op_arity(j.op);
    uint64_t bad = 0, i0;
    char why[256];
    fl_orc_job jm = j;

    if (!fl_oracle_mpfr.supports(&jm, why, sizeof why))
        return 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.job = j;
    cfg.seed = seed;
    for (i0 = 0; i0 < n; i0 += CH) {
        size_t m = n - i0 < CH ? (size_t)(n - i0) : CH, i;
        for (i = 0; i < m; i++)
            fl_sweep_inputs(&cfg, i0 + i, &A[i], &B[i], &C[i]);
        o->compute(&j, m, A, ar >= 2 ? B : NULL, ar >= 3 ? C : NULL, R1,
                   fm ? F1 : NULL);
        fl_oracle_mpfr.compute(&jm, m, A, B, C, R2, F2);
        for (i = 0; i < m; i++) {
            int v = !fl_orc_same_value(j.fmt, R1[i], R2[i], 0);
            int f = fm && ((F1[i] ^ F2[i]) & fm);
            if ((F2[i] & FL_ORC_ERROR) || v || f) {
                if (bad < 5)
                    printf("  DISAGREE %s %s %s %s: a=0x%llx b=0x%llx c=0x%llx "
                           "%s=0x%llx flags %02x, mpfr=0x%llx flags %02x\n",
                           o->name, j.fmt->name, fl_orc_op_name(j.op),
                           fl_rm_name(j.ctx.rm), (unsigned long long)A[i],
                           (unsigned long long)B[i], (unsigned long long)C[i],
                           o->name, (unsigned long long)R1[i], fm ? F1[i] : 0,
                           (unsigned long long)R2[i], F2[i]);
                bad++;
            }
        }
        *cases += m;
    }
    return bad;
}

static int run_xcheck(void)
{
    const fl_format *fmts[] = {&fl_binary16, &fl_bfloat16, &fl_binary32};
    const fl_format *srcs[] = {&fl_binary16, &fl_bfloat16, &fl_binary32,
                               &fl_binary64};
    const fl_oracle *orcs[] = {&fl_oracle_hw, &fl_oracle_cuda_host};
    const int rms[] = {FL_RNE, FL_RTZ, FL_RDN, FL_RUP, FL_RTO, FL_RNA};
    const uint64_t seed = tc_seed_fixed("xcheck", 20240601);
    const uint64_t per_job = 20000;
    uint64_t cases = 0, bad = 0, jobs = 0;
    size_t oi, fi, si, ri;
    int op, daz;

    if (!can(&fl_oracle_mpfr)) {
        printf("SKIP: MPFR oracle not built\n");
        return 77;
    }
    for (oi = 0; oi < 2; oi++) {
        const fl_oracle *o = orcs[oi];
        uint64_t ojobs = 0;
        if (!can(o)) {
            printf("%s: cannot run here, not checked\n", o->name);
            continue;
        }
        for (fi = 0; fi < 3; fi++)
            for (op = 0; op < FL_ORC_OP_COUNT; op++)
                for (si = 0; si < (op == FL_ORC_CVT ? 4u : 1u); si++)
                    for (ri = 0; ri < 6; ri++)
                        for (daz = 0; daz < 2; daz++) {
                            fl_orc_job j;
                            char why[256];
                            uint64_t b;
                            j.fmt = fmts[fi];
                            j.src = op == FL_ORC_CVT ? srcs[si] : fmts[fi];
                            if (op == FL_ORC_CVT && j.src == j.fmt) continue;
                            j.op = op;
                            j.ctx = fl_ctx_make(rms[ri]);
                            j.ctx.daz = (uint8_t)daz;
                            j.ctx.nan = (uint8_t)o->nan_preset;
                            if (!o->supports(&j, why, sizeof why)) continue;
                            b = xcheck_job(o, j, per_job, seed, &cases);
                            bad += b;
                            jobs++;
                            ojobs++;
                            if (b)
                                printf("FAIL %s vs mpfr: %s %s%s%s %s daz=%d: %llu of %llu\n",
                                       o->name, j.fmt->name, fl_orc_op_name(op),
                                       op == FL_ORC_CVT ? " from " : "",
                                       op == FL_ORC_CVT ? j.src->name : "",
                                       fl_rm_name(rms[ri]), daz,
                                       (unsigned long long)b,
                                       (unsigned long long)per_job);
                        }
        printf("%s vs mpfr: %llu jobs\n", o->name, (unsigned long long)ojobs);
    }
    printf("xcheck: %llu jobs, %llu cases, %llu disagreements\n",
           (unsigned long long)jobs, (unsigned long long)cases,
           (unsigned long long)bad);
    if (jobs == 0) {
        printf("SKIP: neither hw nor cuda-host can run\n");
        return 77;
    }
    /* a loop that never ran must not pass */
    if (cases != jobs * per_job) {
        printf("FAIL: case count %llu != %llu\n", (unsigned long long)cases,
               (unsigned long long)(jobs * per_job));
        return 1;
    }
    return bad ? 1 : 0;
}

/* binary16 a*b+c through binary32 fmaf then one RNE rounding. */
static uint64_t fma_via_fmaf(uint64_t a, uint64_t b, uint64_t c)
{
    fl_ctx x = fl_ctx_make(FL_RNE);
    unsigned fl = 0;
    float y = fmaf(fl_to_float(&fl_binary16, a), fl_to_float(&fl_binary16, b),
                   fl_to_float(&fl_binary16, c));
    return fl_from_float(&fl_binary16, y, &x, &fl);
}

static int run_fmaf(void)
{
    const uint64_t seed = tc_seed_fixed("fmaf", 7);
    const uint64_t limit = 20000000;
    fl_orc_job j;
    fl_sweep_cfg cfg;
    uint64_t i, found = 0, tried = 0;
    char why[256];

    if (!can(&fl_oracle_mpfr)) {
        printf("SKIP: MPFR oracle not built\n");
        return 77;
    }
    j.fmt = j.src = &fl_binary16;
    j.op = FL_ORC_FMA;
    j.ctx = fl_ctx_make(FL_RNE);
    memset(&cfg, 0, sizeof cfg);
    cfg.job = j;
    cfg.seed = seed;
    for (i = 0; i < limit && found < 3; i++) {
        uint64_t a, b, c, want, got;
        unsigned wf = 0;
        fl_sweep_inputs(&cfg, i, &a, &b, &c);
        if (fl_is_nan(&fl_binary16, a) || fl_is_nan(&fl_binary16, b) ||
            fl_is_nan(&fl_binary16, c))
            continue;
        tried++;
        got = fma_via_fmaf(a, b, c);
        fl_oracle_mpfr.compute(&j, 1, &a, &b, &c, &want, &wf);
        if (got != want && !(fl_is_nan(&fl_binary16, got) &&
                             fl_is_nan(&fl_binary16, want))) {
            found++;
            printf("  fmaf-then-round is wrong: a=0x%04llx b=0x%04llx "
                   "c=0x%04llx: correct (MPFR) 0x%04llx, fmaf path 0x%04llx "
                   "(after %llu triples)\n",
                   (unsigned long long)a, (unsigned long long)b,
                   (unsigned long long)c, (unsigned long long)want,
                   (unsigned long long)got, (unsigned long long)tried);
            if (can(&fl_oracle_hw) && fl_oracle_hw.supports(&j, why, sizeof why)) {
                uint64_t h;
                fl_oracle_hw.compute(&j, 1, &a, &b, &c, &h, NULL);
                if (h != want) {
                    printf("FAIL: the hw oracle's round-to-odd path gives "
                           "0x%04llx\n", (unsigned long long)h);
                    return 1;
                }
                printf("  the hw oracle (round to odd) agrees with MPFR\n");
            }
        }
    }
    if (!found) {
        printf("FAIL: no counterexample in %llu triples\n",
               (unsigned long long)tried);
        return 1;
    }
    printf("fmaf: %llu counterexamples found in %llu triples\n",
           (unsigned long long)found, (unsigned long long)tried);
    return 0;
}

static int run_bf16flush(void)
{
    fl_orc_job j;
    uint64_t in[4] = {0x00000001u, 0x807fffffu, 0x00400000u, 0x00800000u};
    uint64_t out[4];
    char why[256];
    int i, n = 0;
    j.fmt = &fl_bfloat16;
    j.src = &fl_binary32;
    j.op = FL_ORC_CVT;
    j.ctx = fl_ctx_make(FL_RNE);
    j.ctx.daz = 1;
    if (!can(&fl_oracle_hw) || !fl_oracle_hw.supports(&j, why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    /* compute() is called without daz's blessing on purpose: this is the
     * raw instruction on subnormal inputs. */
    fl_oracle_hw.compute(&j, 4, in, NULL, NULL, out, NULL);
    for (i = 0; i < 3; i++) {
        uint64_t want0 = (in[i] >> 16) & 0x8000;
        printf("  vcvtneps2bf16(0x%08llx) = 0x%04llx\n",
               (unsigned long long)in[i], (unsigned long long)out[i]);
        if (out[i] == want0) n++;
    }
    printf("  vcvtneps2bf16(0x%08llx) = 0x%04llx (min normal, kept)\n",
           (unsigned long long)in[3], (unsigned long long)out[3]);
    if (n != 3 || out[3] != 0x0080) {
        printf("FAIL: expected subnormal inputs flushed to signed zero and "
               "the smallest normal kept\n");
        return 1;
    }
    printf("bf16flush: 3 subnormal inputs flushed, as modeled\n");
    return 0;
}

/* hwpaths: one 16-bit operand of f (binary16 or bfloat16), biased to the
 * interesting places. */
static uint64_t hp_operand(const fl_format *f, uint64_t *st)
{
    const uint64_t fm = f->frac_mask, em = f->exp_mask, sm = f->sign_mask;
    const uint64_t z = tc_splitmix(st);
    switch (z & 7) {
    case 0: return (z >> 8) & (sm | fm);                 /* subnormal, 0 */
    case 1: return (((z >> 8) & (sm | 15)) | f->max_bits) - 15; /* near the top */
    case 2: return ((z >> 8) & (sm | 3)) | em | ((z >> 20) & (fm ^ (fm >> 1))); /* inf, NaN */
    case 3: return ((z >> 8) & (sm | em | (fm & ~(fm >> 3))));  /* short significand */
    case 4: return ((z >> 8) & (sm | fm)) | ((uint64_t)1 << (f->prec - 1)); /* smallest normals */
    default: return (z >> 8) & 0xFFFF;
    }
}

static int run_hwpaths(int all)
{
    enum { CH = 4096 };
    static uint64_t A[CH], B[CH], R1[CH], R2[CH], R3[CH];
    static unsigned F1[CH], F2[CH];
    const int rms[] = {FL_RNE, FL_RTZ, FL_RDN, FL_RUP};
    const int ops[] = {FL_ORC_ADD, FL_ORC_SUB, FL_ORC_MUL, FL_ORC_DIV,
                       FL_ORC_SQRT};
    const uint64_t seed = tc_seed_fixed("hwpaths", 7);
    uint64_t cases = 0, bad = 0, expect = 0;
    const fl_format *fmts[] = {&fl_binary16, &fl_bfloat16};
    size_t oi, ri, fi;
    char why[256];

    if (!can(&fl_oracle_hw)) {
        printf("SKIP: hw oracle cannot run here\n");
        return 77;
    }
    for (fi = 0; fi < 2; fi++)
    for (oi = 0; oi < 5; oi++)
        for (ri = 0; ri < 4; ri++) {
            fl_orc_job j;
            const int ar = fl_orc_op_arity(ops[oi]);
            const uint64_t space = ar == 1 ? 65536
                                   : all ? (uint64_t)1 << 32 : (uint64_t)1 << 20;
            uint64_t st = seed ^ (fi * 20 + oi * 4 + ri) * 0x51ED27ull, i0,
                     jb = 0;
            j.fmt = j.src = fmts[fi];
            j.op = ops[oi];
            j.ctx = fl_ctx_make(rms[ri]);
            j.ctx.nan = FL_NANP_X86;
            if (!fl_oracle_hw.supports(&j, why, sizeof why)) {
                printf("%s %s %s: not covered here (%s)\n", j.fmt->name,
                       fl_orc_op_name(j.op), fl_rm_name(rms[ri]), why);
                if (fi == 0) {
                    printf("FAIL: hw must cover binary16\n");
                    return 1;
                }
                continue;
            }
            for (i0 = 0; i0 < space; i0 += CH) {
                size_t n = space - i0 < CH ? (size_t)(space - i0) : CH, i;
                for (i = 0; i < n; i++) {
                    if (ar == 1 || all) {
                        A[i] = ar == 1 ? i0 + i : (i0 + i) >> 16;
                        B[i] = (i0 + i) & 0xFFFF;
                    } else {
                        A[i] = hp_operand(j.fmt, &st);
                        B[i] = hp_operand(j.fmt, &st);
                    }
                }
                fl_oracle_hw.compute(&j, n, A, B, NULL, R1, F1);
                for (i = 0; i < n; i++)
                    fl_oracle_hw.compute(&j, 1, A + i, B + i, NULL, R2 + i,
                                         F2 + i);
                /* the values-only path (its own code: with AVX512-FP16
                 * the native instructions) gives the same values */
                fl_oracle_hw.compute(&j, n, A, B, NULL, R3, NULL);
                for (i = 0; i < n; i++)
                    if (R3[i] != R1[i] && bad++ < 10)
                        printf("MISMATCH %s %s %s a=%04llx b=%04llx: "
                               "values only %04llx, with flags %04llx\n",
                               j.fmt->name, fl_orc_op_name(j.op),
                               fl_rm_name(rms[ri]), (unsigned long long)A[i],
                               (unsigned long long)B[i],
                               (unsigned long long)R3[i],
                               (unsigned long long)R1[i]);
                for (i = 0; i < n; i++)
                    if (R1[i] != R2[i] || F1[i] != F2[i]) {
                        if (bad++ < 10)
                            printf("MISMATCH %s %s %s a=%04llx b=%04llx: "
                                   "array %04llx flags %03x, one by one %04llx "
                                   "flags %03x\n", j.fmt->name, fl_orc_op_name(j.op),
                                   fl_rm_name(rms[ri]), (unsigned long long)A[i],
                                   (unsigned long long)B[i],
                                   (unsigned long long)R1[i], F1[i],
                                   (unsigned long long)R2[i], F2[i]);
                    }
                jb += n;
            }
            printf("%s %-4s %s: %llu cases\n", j.fmt->name, fl_orc_op_name(j.op),
                   fl_rm_name(rms[ri]), (unsigned long long)jb);
            fflush(stdout);
            cases += jb;
            expect += space;
        }
    printf("hwpaths: %llu cases, %llu disagreements\n",
           (unsigned long long)cases, (unsigned long long)bad);
    return bad || cases != expect || cases == 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "xcheck";
    if (!strcmp(what, "xcheck")) return run_xcheck();
    if (!strcmp(what, "fmaf")) return run_fmaf();
    if (!strcmp(what, "bf16flush")) return run_bf16flush();
    if (!strcmp(what, "hwpaths"))
        return run_hwpaths(argc > 2 && !strcmp(argv[2], "all"));
    fprintf(stderr, "usage: verify_xcheck xcheck|fmaf|bf16flush|hwpaths [all]\n");
    return 2;
}
