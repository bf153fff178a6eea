/*
 * test_reveal.c — fl_reveal against kernels whose model is known: each
 * kernel is the reference library itself (fl_ref_sum/dot/gemm) in a
 * stated model, called in-process through the callback API.  reveal must
 * find a model that replays every validation case, and the keys the
 * probes can tell apart must be the stated ones.  Also: kernels that fail,
 * write the wrong format or are nondeterministic, and an accumulator the
 * probes cannot reveal (truncating additions), each with its status.
 *
 *   test_reveal [GROUP] [-v]     GROUP: sum adaptive dot gemm tc bad (default
 *                                all), or random (100 random models, long)
 *
 * Validation uses FPLAB_REVEAL_VALIDATE cases (default 3000: the full 10^5
 * of the command line is the `reveal_cli` and `long` tests' business).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/reveal.h"
#include "test_common.h"

static int verbose;
static int failures, cases;
/* shape of the calls for the next check (0: reveal's choice) */
static size_t g_rows, g_call_elems;

static void log_line(void *u, const char *line)
{
    (void)u;
    if (verbose)
        printf("    | %s\n", line);
}

typedef struct truth {
    fl_ref_model m;
    fl_ref_op op;
    fl_format out;
    int mode;              /* 0 model; 1 fail; 2 wrong then right format;
                              3 nondeterministic */
    size_t calls;
} truth;

static int kernel(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    truth *t = user;
    size_t B = c->batch ? c->batch : 1;
    int rc;
    t->calls++;
    if (t->mode == 1) {
        snprintf(err, errlen, "the kernel says no");
        return -1;
    }
    if (c->op == FL_REF_OP_GEMM) {
        fl_ref_gemm_shape s;
        fl_ctx cx = fl_ctx_make(FL_RNE);
        unsigned fl = 0;
        uint64_t one = fl_from_i32(&t->m.acc, 1, &cx, &fl);
        fl_ref_gemm_shape_init(&s, 0, 0, B, c->rows, c->n, c->k);
        rc = fl_ref_gemm(&t->m, &s, one, c->a, c->b, 0, NULL, c->out, 0, NULL,
                         err, errlen);
    } else if (c->op == FL_REF_OP_DOT) {
        rc = fl_ref_dot(&t->m, c->a, c->b, B * c->rows, c->n, c->out, 0, NULL,
                        err, errlen);
    } else {
        rc = fl_ref_sum(&t->m, c->a, B * c->rows, c->n, c->out, 0, NULL, err,
                        errlen);
    }
    c->out_format = t->out;
    if (t->mode == 2 && t->calls == 2)
        c->out_format = fl_binary64;
    if (t->mode == 3 && t->calls == 2)
        c->out[0] ^= 1;
    return rc;
}

static size_t validate_cases(void)
{
    const char *e = getenv("FPLAB_REVEAL_VALIDATE");
    return e && *e ? (size_t)strtoull(e, NULL, 0) : 3000;
}

/* Run reveal on a kernel of model `spec`; check the status and, when
 * found, that each word of `keys` ("acc=binary16 order=numpy") is in the
 * revealed canonical line. */
static void check(const char *name, fl_ref_op op, const char *in, size_t n,
                  size_t m, size_t k, size_t batch, const char *spec,
                  int mode, fl_reveal_status want, const char *keys)
{
    truth t;
    fl_reveal_opts o;
    fl_reveal_result res;
    fl_reveal_status st;
    char err[512];
    const fl_format *inf = fl_format_by_name(in);
    cases++;
    memset(&t, 0, sizeof t);
    fl_ref_model_init(&t.m);
    t.m.in = *inf;
    t.m.in_set = 1;
    t.mode = mode;
    if (fl_ref_model_parse(&t.m, spec, err, sizeof err) != 0) {
        printf("FAIL %s: bad test model '%s': %s\n", name, spec, err);
        failures++;
        return;
    }
    t.out = t.m.out_set ? t.m.out : t.m.acc;
    fl_reveal_opts_init(&o);
    o.op = op;
    o.n = n;
    o.m = m;
    o.k = k;
    o.batch = batch;
    o.rows = g_rows;
    if (g_call_elems)
        o.call_elems = g_call_elems;
    o.in = *inf;
    o.validate = validate_cases();
    o.log = log_line;
    o.seed = 12345;
    st = fl_reveal(&o, kernel, &t, &res);
    if (st != want) {
        printf("FAIL %s: status %d, want %d: %s\n", name, (int)st, (int)want,
               res.message);
        if (res.counterexample)
            printf("  first counterexample: %s\n", res.counterexample);
        failures++;
    } else if (st == FL_REVEAL_FOUND) {
        char *line = fl_ref_model_string(&res.model);
        char *kc = strdup(keys ? keys : ""), *save = NULL;
        /* every case agrees; all asked for, unless validation reached
         * its call limit (small calls) */
        int ok = res.agreed == res.cases &&
                 (res.cases >= o.validate || res.valid_calls == o.validate_calls);
        for (char *w = strtok_r(kc, " ", &save); w && ok;
             w = strtok_r(NULL, " ", &save)) {
            char pat[256];
            snprintf(pat, sizeof pat, " %s ", w);
            if (!strstr(line, pat) && strncmp(line, w, strlen(w)) != 0) {
                printf("FAIL %s: revealed '%s' lacks '%s'\n", name, line, w);
                ok = 0;
            }
        }
        if (ok)
            printf("ok   %s: %zu/%zu cases, %zu calls, %.2f s\n       %s\n", name,
                   res.agreed, res.cases, res.calls, res.seconds, line);
        else
            failures++;
        free(kc);
        free(line);
    } else {
        printf("ok   %s: status %d as expected: %.160s\n", name, (int)st,
               res.message);
    }
    fl_reveal_result_free(&res);
    fl_ref_model_free(&t.m);
    g_rows = g_call_elems = 0;
}

#define F FL_REVEAL_FOUND

static void group_sum(void)
{
    check("sum sequential fp32", FL_REF_OP_SUM, "binary32", 64, 0, 0, 0,
          "order=sequential", 0, F, "order=sequential acc=binary32 acc-rm=rne");
    check("sum numpy fp32 n=256", FL_REF_OP_SUM, "binary32", 256, 0, 0, 0,
          "order=numpy", 0, F, "order=numpy");
    check("sum pairwise:8 fp32", FL_REF_OP_SUM, "binary32", 100, 0, 0, 0,
          "order=pairwise:8", 0, F, "order=pairwise:8");
    check("sum lanes:8:halving fp32", FL_REF_OP_SUM, "binary32", 77, 0, 0, 0,
          "order=lanes:8:halving", 0, F, "order=lanes:8:halving");
    check("sum blocked:16 fp32", FL_REF_OP_SUM, "binary32", 96, 0, 0, 0,
          "order=blocked:16", 0, F, "order=blocked:16");
    check("sum reverse fp32", FL_REF_OP_SUM, "binary32", 33, 0, 0, 0,
          "order=reverse", 0, F, "order=reverse");
    check("sum init (+0 start) fp32", FL_REF_OP_SUM, "binary32", 40, 0, 0, 0,
          "order=pairwise:4 epilogue=init", 0, F, "order=pairwise:4 epilogue=init");
    check("sum fp16 in fp32 acc fp16 out", FL_REF_OP_SUM, "binary16", 128, 0, 0, 0,
          "order=numpy acc=binary32 out=binary16", 0, F,
          "order=numpy acc=binary32 out=binary16 out-rm=rne");
    check("sum fp16 in fp16 acc", FL_REF_OP_SUM, "binary16", 48, 0, 0, 0,
          "acc=binary16 epilogue=init", 0, F, "acc=binary16 epilogue=init");
    check("sum fp32 in fp64 acc", FL_REF_OP_SUM, "binary32", 50, 0, 0, 0,
          "acc=binary64 out=binary32", 0, F, "acc=binary64 out=binary32");
    check("sum bf16 in fp32 acc bf16 out", FL_REF_OP_SUM, "bfloat16", 256, 0, 0, 0,
          "acc=binary32 out=bfloat16 order=lanes:16:pairwise", 0, F,
          "acc=binary32 out=bfloat16 order=lanes:16:pairwise");
    check("sum rna accumulator", FL_REF_OP_SUM, "binary32", 30, 0, 0, 0,
          "acc-rm=rna", 0, F, "acc-rm=rna");
    check("sum rdn accumulator", FL_REF_OP_SUM, "binary32", 30, 0, 0, 0,
          "acc-rm=rdn", 0, F, "acc-rm=rdn");
    check("sum rup accumulator", FL_REF_OP_SUM, "binary32", 30, 0, 0, 0,
          "acc-rm=rup", 0, F, "acc-rm=rup");
    check("sum ftz daz", FL_REF_OP_SUM, "binary32", 30, 0, 0, 0,
          "ftz=1 daz=1", 0, F, "ftz=1 daz=1");
    check("sum out-rm rtz bf16", FL_REF_OP_SUM, "bfloat16", 40, 0, 0, 0,
          "acc=binary32 out=bfloat16 out-rm=rtz", 0, F, "out=bfloat16 out-rm=rtz");
    check("sum nan arm", FL_REF_OP_SUM, "binary32", 20, 0, 0, 0, "nan=arm", 0, F,
          "nan=arm");
    /* splitk:4 over 64 terms is the tree of blocked:16: the name reveal
     * prefers */
    check("sum splitk:4 in a batch of rows", FL_REF_OP_SUM, "binary32", 64, 0, 0,
          4, "order=splitk:4", 0, F, "order=blocked:16");
    /* without tc, splitk:S is blocked:ceil(n/S); with 3 parts also
     * pairwise, which comes first */
    check("sum splitk:3", FL_REF_OP_SUM, "binary32", 64, 0, 0, 0,
          "order=splitk:3", 0, F, "order=pairwise:22");
    check("sum exact (correctly rounded)", FL_REF_OP_SUM, "binary32", 40, 0, 0, 0,
          "order=exact", 0, F, "order=exact");
    check("sum fp16 in fp64 acc (wider than the probes)", FL_REF_OP_SUM,
          "binary16", 30, 0, 0, 0, "acc=binary64 out=binary16", 0, F,
          "order=exact out=binary16");
    check("sum explicit tree", FL_REF_OP_SUM, "binary32", 6, 0, 0, 0,
          "order=tree:(0+(1+2))+((3+4)+5)", 0, F,
          "order=tree:(0+(1+2))+((3+4)+5)");
}

/* Trees too big for all pairs in one round: FPRev's pivot rounds. */
static void group_adaptive(void)
{
    check("sum numpy n=1024 (pivot rounds)", FL_REF_OP_SUM, "binary32", 1024, 0, 0,
          0, "order=numpy", 0, F, "order=numpy");
    g_call_elems = 4096;
    check("sum pairwise:4 n=300, small calls", FL_REF_OP_SUM, "binary32", 300, 0, 0,
          0, "order=pairwise:4", 0, F, "order=pairwise:4");
    check("gemm k=300 on 8x8 (pivot rounds)", FL_REF_OP_GEMM, "binary32", 8, 8, 300,
          0, "order=lanes:8:pairwise epilogue=init", 0, F,
          "order=lanes:8:pairwise epilogue=init");
    g_rows = 37;
    check("sum with exactly 37 rows per call in a batch of 3", FL_REF_OP_SUM,
          "binary16", 40, 0, 0, 3, "acc=binary32 out=binary16 order=blocked:8", 0,
          F, "order=blocked:8 out=binary16");
    check("dot tc with fused blocks, n=100", FL_REF_OP_DOT, "binary16", 100, 0, 0, 0,
          "tc=a100-fp16", 0, F, "tc=a100-fp16(block:8,neab:1,align:trunc,norm:once,rm:rtz)");
    /* outputs too narrow to count every u at once: windows of u's */
    check("sum bf16 out, n=600 (3 windows of 256)", FL_REF_OP_SUM, "bfloat16", 600, 0, 0, 0,
          "acc=binary32 out=bfloat16 order=lanes:32:halving epilogue=init", 0, F,
          "order=lanes:32:halving out=bfloat16 epilogue=init");
    check("sum fp16 out, n=2100 (2 windows)", FL_REF_OP_SUM, "binary16", 2100, 0, 0,
          0, "acc=binary32 out=binary16 order=pairwise:64", 0, F,
          "order=pairwise:64 out=binary16");
    check("gemm bf16 out, k=300 (windows)", FL_REF_OP_GEMM, "bfloat16", 16, 16, 300,
          4, "acc=binary32 out=bfloat16 order=blocked:32 epilogue=init", 0, F,
          "order=blocked:32 out=bfloat16");
}

static void group_dot(void)
{
    check("dot sequential fp32 rounded", FL_REF_OP_DOT, "binary32", 64, 0, 0, 0,
          "", 0, F, "products=rounded order=sequential");
    check("dot sequential fp32 fused", FL_REF_OP_DOT, "binary32", 64, 0, 0, 0,
          "products=fused", 0, F, "products=fused order=sequential");
    check("dot lanes:8 fused (+0 start)", FL_REF_OP_DOT, "binary32", 100, 0, 0, 0,
          "products=fused order=lanes:8:halving epilogue=init", 0, F,
          "products=fused order=lanes:8:halving");
    check("dot fp16 in fp32 acc", FL_REF_OP_DOT, "binary16", 64, 0, 0, 0,
          "acc=binary32 order=pairwise:4", 0, F, "acc=binary32 order=pairwise:4");
    check("dot bf16 in, bf16 out", FL_REF_OP_DOT, "bfloat16", 64, 0, 0, 0,
          "acc=binary32 out=bfloat16", 0, F, "acc=binary32 out=bfloat16");
}

static void group_gemm(void)
{
    check("gemm sequential init fp32", FL_REF_OP_GEMM, "binary32", 16, 16, 64, 0,
          "epilogue=init", 0, F, "order=sequential epilogue=init");
    check("gemm fp16 acc fp16", FL_REF_OP_GEMM, "binary16", 8, 8, 32, 2,
          "acc=binary16 order=blocked:8", 0, F, "acc=binary16 order=blocked:8");
    check("gemm fused lanes", FL_REF_OP_GEMM, "binary32", 12, 10, 40, 0,
          "products=fused order=lanes:4", 0, F, "products=fused order=lanes:4:seq");
}

static void group_tc(void)
{
    check("gemm tc h100-fp16", FL_REF_OP_GEMM, "binary16", 16, 16, 64, 4,
          "tc=h100-fp16", 0, F, "tc=h100-fp16(block:16,neab:2,align:trunc,norm:once,rm:rtz)");
    check("dot tc a100-bf16", FL_REF_OP_DOT, "bfloat16", 64, 0, 0, 0,
          "tc=a100-bf16", 0, F, "tc=a100-bf16(block:8,neab:1,align:trunc,norm:once,rm:rtz)");
    check("dot tc v100 splitk:2", FL_REF_OP_DOT, "binary16", 64, 0, 0, 0,
          "tc=v100-fp16 order=splitk:2", 0, F, "order=splitk:2 tc=v100-fp16(block:4,neab:0,align:trunc,norm:once,rm:rtz)");
}

static void group_bad(void)
{
    check("kernel fails", FL_REF_OP_SUM, "binary32", 16, 0, 0, 0, "", 1,
          FL_REVEAL_KERNEL_FAILED, NULL);
    check("output format changes", FL_REF_OP_SUM, "binary32", 16, 0, 0, 0, "", 2,
          FL_REVEAL_KERNEL_FAILED, NULL);
    check("nondeterministic", FL_REF_OP_SUM, "binary32", 16, 0, 0, 0, "", 3,
          FL_REVEAL_NONDETERMINISTIC, NULL);
    check("truncating accumulator", FL_REF_OP_SUM, "binary32", 16, 0, 0, 0,
          "acc-rm=rtz", 0, FL_REVEAL_UNREVEALED, NULL);
    check("too few terms", FL_REF_OP_SUM, "binary32", 2, 0, 0, 0, "", 0,
          FL_REVEAL_BAD_OPTIONS, NULL);
}

/* Random models (orders, accumulators, roundings, fused products, FTZ,
 * DAZ, start values, output formats): reveal must never report a found
 * model that does not replay (it validates), and must find most of them;
 * the rest are reported unrevealed (an accumulator much wider than the
 * output shows, float16 DAZ) or as near misses in combinations such as an
 * accumulator narrower than its inputs with flushing.  Seed 777 unless
 * FPLAB_TEST_SEED; label long. */
static uint64_t rs;
static unsigned rnd(unsigned n)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rs >> 33) % n);
}

static void group_random(void)
{
    int found = 0, unrevealed = 0, near = 0, other = 0, total = 100;
    rs = tc_seed_fixed("random", 777);
    for (int it = 0; it < total; it++) {
        static const char *const ins[] = {"binary32", "binary16", "bfloat16"};
        static const char *const accs[] = {"binary32", "binary64", "binary16",
                                           "bfloat16"};
        static const char *const rms[] = {"rne", "rna", "rdn", "rup"};
        char spec[512], order[64], err[256];
        truth t;
        fl_reveal_opts o;
        fl_reveal_result res;
        fl_reveal_status st;
        int op = (int)rnd(3);
        const char *in = ins[rnd(3)], *acc = accs[rnd(4)];
        size_t n = 3 + rnd(200);
        switch (rnd(7)) {
        case 0: snprintf(order, sizeof order, "sequential"); break;
        case 1: snprintf(order, sizeof order, "reverse"); break;
        case 2: snprintf(order, sizeof order, "pairwise:%u", 1 + rnd(16)); break;
        case 3: snprintf(order, sizeof order, "numpy"); break;
        case 4: snprintf(order, sizeof order, "blocked:%u", 1 + rnd(40)); break;
        case 5:
            snprintf(order, sizeof order, "lanes:%u:%s", 1 + rnd(32),
                     rnd(3) == 0 ? "seq" : rnd(2) ? "pairwise" : "halving");
            break;
        default: snprintf(order, sizeof order, "splitk:%u", 1 + rnd(6)); break;
        }
        {
            const char *out = rnd(2) ? acc : ins[rnd(3)];
            const char *orm = rnd(3) == 0 ? "rtz" : "rne";
            int fused = op && rnd(3) == 0, init = rnd(4) == 0;
            int ftz = rnd(5) == 0, daz = rnd(5) == 0;
            snprintf(spec, sizeof spec,
                     "in=%s acc=%s acc-rm=%s order=%s out=%s out-rm=%s%s%s%s%s",
                     in, acc, rms[rnd(4)], order, out, orm,
                     fused ? " products=fused" : "", init ? " epilogue=init" : "",
                     ftz ? " ftz=1" : "", daz ? " daz=1" : "");
        }
        memset(&t, 0, sizeof t);
        fl_ref_model_init(&t.m);
        if (fl_ref_model_parse(&t.m, spec, err, sizeof err) != 0 ||
            fl_ref_model_check(&t.m, (fl_ref_op)op, n, err, sizeof err) != 0) {
            fl_ref_model_free(&t.m);
            it--;
            continue;
        }
        t.out = t.m.out;
        fl_reveal_opts_init(&o);
        o.op = (fl_ref_op)op;
        o.in = t.m.in;
        o.validate = 2000;
        o.seed = (uint64_t)it;
        if (op == FL_REF_OP_GEMM) {
            o.m = 1 + rnd(12);
            o.n = 1 + rnd(12);
            o.k = n;
            o.batch = rnd(2) ? 4 : 0;
        } else {
            o.n = n;
        }
        st = fl_reveal(&o, kernel, &t, &res);
        cases++;
        if (st == FL_REVEAL_FOUND) {
            if (res.agreed != res.cases || res.cases < o.validate) {
                printf("FAIL random %d: found a model that replays %zu of %zu\n",
                       it, res.agreed, res.cases);
                failures++;
            }
            found++;
        } else if (st == FL_REVEAL_UNREVEALED) {
            unrevealed++;
        } else if (st == FL_REVEAL_MISMATCH) {
            near++;
            if (verbose)
                printf("  near miss %d: %s (truth %s)\n", it, res.message, spec);
        } else {
            other++;
            printf("FAIL random %d: status %d: %s (truth %s)\n", it, (int)st,
                   res.message, spec);
            failures++;
        }
        fl_reveal_result_free(&res);
        fl_ref_model_free(&t.m);
    }
    printf("random: %d models: %d found, %d unrevealed, %d near misses, %d "
           "other\n", total, found, unrevealed, near, other);
    if (found < total * 80 / 100) {
        printf("FAIL random: only %d of %d found\n", found, total);
        failures++;
    }
}

int main(int argc, char **argv)
{
    const char *group = NULL;
    int expect = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else
            group = argv[i];
    }
    if (!group || !strcmp(group, "sum")) {
        group_sum();
        expect += 22;
    }
    if (!group || !strcmp(group, "adaptive")) {
        group_adaptive();
        expect += 8;
    }
    if (!group || !strcmp(group, "dot")) {
        group_dot();
        expect += 5;
    }
    if (!group || !strcmp(group, "gemm")) {
        group_gemm();
        expect += 3;
    }
    if (!group || !strcmp(group, "tc")) {
        group_tc();
        expect += 3;
    }
    if (!group || !strcmp(group, "bad")) {
        group_bad();
        expect += 5;
    }
    if (group && !strcmp(group, "random")) {
        group_random();
        expect += 100;
    }
    printf("%d cases, %d failures\n", cases, failures);
    if (cases != expect || cases == 0) {
        printf("FAIL: ran %d cases, expected %d\n", cases, expect);
        return 1;
    }
    return failures ? 1 : 0;
}
