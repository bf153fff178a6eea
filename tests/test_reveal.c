/*
 * test_reveal.c — fl_reveal against kernels whose model is known: each
 * kernel is the reference library itself (fl_ref_sum/dot/gemm) in a
 * stated model, called in-process through the callback API.  reveal must
 * find a model that replays every validation case, and the keys the
 * probes can tell apart must be the stated ones.  Also: kernels that fail,
 * write the wrong format or are nondeterministic, and an accumulator the
 * probes cannot reveal (truncating additions), each with its status.
 *
 *   test_reveal [GROUP] [-v]     GROUP: sum adaptive dot gemm tc bad nan
 *                                batch lengths (default all), or random
 *                                (100 random models, long)
 *
 * Validation uses FPLAB_REVEAL_VALIDATE cases (default 3000: the full 10^5
 * of the command line is the `reveal_cli` and `long` tests' business).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/reveal.h"
#include "test_common.h"

static int verbose;
static int failures, cases;
/* shape of the calls for the next check (0: reveal's choice) */
static size_t g_rows, g_call_elems;

/* Every report line, kept for the checks on what the report says. */
static char g_log[1 << 16];
static size_t g_loglen;

static void log_line(void *u, const char *line)
{
    size_t l = strlen(line);
    (void)u;
    if (verbose)
        printf("    | %s\n", line);
    if (g_loglen + l + 2 < sizeof g_log) {
        memcpy(g_log + g_loglen, line, l);
        g_log[g_loglen + l] = '\n';
        g_loglen += l + 1;
        g_log[g_loglen] = '\0';
    }
}

/* A report line that claims a rule reproduces every probe while its own
 * count says otherwise ("reproduces ... (closest ...)"). */
static const char *contradiction(void)
{
    for (char *p = g_log; p && *p;) {
        char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        char line[4096];
        if (l >= sizeof line)
            l = sizeof line - 1;
        memcpy(line, p, l);
        line[l] = '\0';
        if (strstr(line, "reproduces") && strstr(line, "closest") &&
            !strstr(line, "no candidate reproduces") &&
            !strstr(line, "no NaN rule reproduces"))
            return p;
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

typedef struct truth {
    fl_ref_model m;
    fl_ref_op op;
    fl_format out;
    int mode;              /* 0 model; 1 fail; 2 wrong then right format;
                              3 nondeterministic; 4 every NaN output is
                              the quiet NaN with payload 1 (no preset's);
                              5 gemm refuses 3-D calls; 6 gemm: a 3-D
                              call of FPRev probes uses m2;
                              7 gemm: every 3-D call uses m2; 8 sum: rows
                              of another length than n0 use m2 */
    fl_ref_model m2;
    size_t n0;
    size_t calls;
} truth;

/* A call of FPRev probes: some matrix row of A holds one tiny value in
 * most places and a huge one (random inputs repeat no value so). */
static int probe_like(const fl_reveal_call *c)
{
    size_t B = c->batch ? c->batch : 1, K = c->k;
    for (size_t r = 0; r < B * c->rows; r++) {
        const uint64_t *a = c->a + r * K;
        size_t same = 0, huge = 0;
        for (size_t i = 0; i < K; i++) {
            double v = fabs(fl_to_double(c->in, a[i]));
            same += a[i] == a[K - 1] && v != 0 && v < 0x1p-20;
            huge += v >= 0x1p20;
        }
        if (huge && 2 * same > K)
            return 1;
    }
    return 0;
}

static int kernel(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    truth *t = user;
    size_t B = c->batch ? c->batch : 1;
    int rc;
    const fl_ref_model *m = &t->m;
    t->calls++;
    if (t->mode == 1) {
        snprintf(err, errlen, "the kernel says no");
        return -1;
    }
    if (t->mode == 5 && c->batch) {
        snprintf(err, errlen, "2-D matrices only");
        return -1;
    }
    if ((t->mode == 7 && c->batch) ||
        (t->mode == 6 && c->batch && probe_like(c)) ||
        (t->mode == 8 && c->n != t->n0))
        m = &t->m2;
    if (c->op == FL_REF_OP_GEMM) {
        fl_ref_gemm_shape s;
        fl_ctx cx = fl_ctx_make(FL_RNE);
        unsigned fl = 0;
        uint64_t one = fl_from_i32(&m->acc, 1, &cx, &fl);
        fl_ref_gemm_shape_init(&s, 0, 0, B, c->rows, c->n, c->k);
        rc = fl_ref_gemm(m, &s, one, c->a, c->b, 0, NULL, c->out, 0, NULL,
                         err, errlen);
    } else if (c->op == FL_REF_OP_DOT) {
        rc = fl_ref_dot(m, c->a, c->b, B * c->rows, c->n, c->out, 0, NULL,
                        err, errlen);
    } else {
        rc = fl_ref_sum(m, c->a, B * c->rows, c->n, c->out, 0, NULL, err,
                        errlen);
    }
    if (t->mode == 4)
        for (size_t i = 0; i < fl_reveal_call_outputs(c); i++)
            if (fl_is_nan(&t->out, c->out[i]))
                c->out[i] = t->out.exp_mask | 1 |
                            ((uint64_t)1 << (t->out.prec - 2));
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
/* For the next check: the second model of modes 6-8, opts.lengths_auto,
 * and a check on the result (NULL: none) returning a failure message or
 * NULL. */
static const char *g_spec2;
static int g_no_lengths;
static const char *(*g_after)(const fl_reveal_result *res, const truth *t);
static const fl_reveal_opts *g_opts;   /* the reveal's, for g_after */

/* The library's closing text of a found result (fl_reveal_*_text): the
 * outcome is "model: LINE", three notes, the model file their '#' lines
 * under a two-line header and then the canonical line, the call count;
 * NULL, or what is wrong. */
static const char *summary_text(const fl_reveal_opts *o,
                                const fl_reveal_result *res, const char *line)
{
    static char why[256];
    char *out = fl_reveal_outcome_text(res), *notes = fl_reveal_notes_text(o, res);
    char *file = fl_reveal_model_file_text(o, res, "a\nkernel");
    char *calls = fl_reveal_calls_text(res), want[4096];
    const char *w = NULL;
    size_t nl = 0;
    if (!out || !notes || !file || !calls) {
        w = "out of memory";
        goto done;
    }
    snprintf(want, sizeof want, "model: %s\n", line);
    if (strcmp(out, want))
        w = "the outcome is not 'model: LINE'";
    for (const char *p = notes; *p; p++)
        nl += *p == '\n';
    if (!w && nl != 3)
        w = "the notes are not three lines";
    if (!w && strncmp(file, "# fplab ", 8))
        w = "the model file does not start with its header";
    if (!w && !strstr(file, "\n# kernel: a?kernel\n"))
        w = "the model file's kernel line is not one line";
    snprintf(want, sizeof want, "\n%s\n", line);
    if (!w && (strlen(file) < strlen(want) ||
               strcmp(file + strlen(file) - strlen(want), want)))
        w = "the model file does not end with the canonical line";
    if (!w && strncmp(calls, "kernel calls: ", 14))
        w = "no kernel calls line";
    if (!w && strncmp(notes + strcspn(notes, "\n") + 1, "validation: ", 12))
        w = "the second note is not the validation";
done:
    if (w)
        snprintf(why, sizeof why, "%s", w);
    free(out);
    free(notes);
    free(file);
    free(calls);
    return w ? why : NULL;
}

/* The notes of the result hold s; NULL or a failure message. */
static const char *notes_have(const fl_reveal_result *res, const char *s)
{
    char *notes = fl_reveal_notes_text(g_opts, res);
    int ok = notes && strstr(notes, s);
    if (!ok && verbose)
        printf("notes: %s\n", notes ? notes : "(none)");
    free(notes);
    return ok ? NULL : "the notes lack what they must say";
}

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
    const char *(*after)(const fl_reveal_result *, const truth *) = g_after;
    cases++;
    g_loglen = 0;
    g_log[0] = '\0';
    g_after = NULL;
    memset(&t, 0, sizeof t);
    fl_ref_model_init(&t.m);
    fl_ref_model_init(&t.m2);
    t.m.in = *inf;
    t.m.in_set = 1;
    t.m2 = t.m;
    t.mode = mode;
    t.n0 = op == FL_REF_OP_GEMM ? k : n;
    if (fl_ref_model_parse(&t.m, spec, err, sizeof err) != 0 ||
        (g_spec2 && fl_ref_model_parse(&t.m2, g_spec2, err, sizeof err) != 0)) {
        printf("FAIL %s: bad test model '%s': %s\n", name, spec, err);
        failures++;
        g_spec2 = NULL;
        return;
    }
    g_spec2 = NULL;
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
    if (g_no_lengths)
        o.lengths_auto = 0;
    g_no_lengths = 0;
    st = fl_reveal(&o, kernel, &t, &res);
    if (contradiction()) {
        printf("FAIL %s: a report line its own numbers refute:\n  %.300s\n",
               name, contradiction());
        failures++;
    }
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
        if (ok) {
            const char *why = summary_text(&o, &res, line);
            if (why) {
                printf("FAIL %s: %s\n", name, why);
                ok = 0;
            }
        }
        g_opts = &o;
        if (ok && after) {
            const char *why = after(&res, &t);
            if (why) {
                printf("FAIL %s: %s\n       %s\n", name, why, line);
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
    fl_ref_model_free(&t.m2);
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
    /* splitk:4 over 64 terms is the tree of blocked:16 (and splitk:3 that
     * of pairwise:22 and blocked:22): the other lengths tell them apart */
    check("sum splitk:4 in a batch of rows", FL_REF_OP_SUM, "binary32", 64, 0, 0,
          4, "order=splitk:4", 0, F, "order=splitk:4");
    check("sum splitk:3", FL_REF_OP_SUM, "binary32", 64, 0, 0, 0,
          "order=splitk:3", 0, F, "order=splitk:3");
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

/* ------------------------------------------------------------------------
 * NaN rules.  First the core's presets themselves, against the rule each
 * stands for, worked out here from its two choices (what is kept of the
 * first NaN operand; the default NaN's sign): add, sub, mul and fma on
 * binary16 (whose fast path must leave the new rules to the generic code),
 * bfloat16 and binary32, and conversions, value and flags.  Then reveal
 * on kernels of each rule, and on one whose NaNs no rule gives.
 * ---------------------------------------------------------------------- */
enum { KEEP_NONE, KEEP_SIGN, KEEP_PAYLOAD };

static int rule_keep(int p)
{
    return p == FL_NANP_X86 || p == FL_NANP_FIRST ? KEEP_PAYLOAD
         : p == FL_NANP_SIGN || p == FL_NANP_SIGN_POS ? KEEP_SIGN : KEEP_NONE;
}

static int rule_neg(int p)
{
    return p == FL_NANP_X86 || p == FL_NANP_SIGN || p == FL_NANP_DEFAULT_NEG;
}

/* The NaN a rule gives for first NaN operand x of format f (x = 0: an
 * invalid operation without NaN operands). */
static uint64_t rule_nan(const fl_format *f, int p, uint64_t x, int has_nan)
{
    const uint64_t q = (uint64_t)1 << (f->prec - 2);
    if (has_nan && rule_keep(p) == KEEP_PAYLOAD)
        return x | q;
    if (has_nan && rule_keep(p) == KEEP_SIGN)
        return (x & f->sign_mask) | f->exp_mask | q;
    return (rule_neg(p) ? f->sign_mask : 0) | f->exp_mask | q;
}

static void expect_nan(const char *what, const fl_format *f, int p, uint64_t got,
                       unsigned gf, uint64_t want, unsigned wf)
{
    cases++;
    if (got != want || (gf & FL_INVALID) != wf) {
        printf("FAIL nan=%s %s %s: 0x%llx flags %02x, want 0x%llx flags %02x\n",
               fl_nan_preset_name(p), f->name, what, (unsigned long long)got, gf,
               (unsigned long long)want, wf);
        failures++;
    }
}

static int core_nan_rules(void)
{
    static const int presets[] = {FL_NANP_X86, FL_NANP_ARM, FL_NANP_SIGN,
                                  FL_NANP_SIGN_POS, FL_NANP_DEFAULT_NEG,
                                  FL_NANP_FIRST};
    const fl_format *fmts[3] = {&fl_binary16, &fl_bfloat16, &fl_binary32};
    int c0 = cases;
    for (size_t fi = 0; fi < 3; fi++) {
        const fl_format *f = fmts[fi];
        const uint64_t q = (uint64_t)1 << (f->prec - 2);
        const uint64_t one = f == &fl_binary32 ? 0x3F800000u
                           : f == &fl_binary16 ? 0x3C00u : 0x3F80u;
        const uint64_t pnan = f->exp_mask | q | 0x15;            /* +qNaN */
        const uint64_t nnan = f->sign_mask | f->exp_mask | q | 0x6; /* -qNaN */
        const uint64_t snan = f->exp_mask | 0x5;                 /* +sNaN */
        const uint64_t inf = f->exp_mask, ninf = inf | f->sign_mask;
        for (size_t pi = 0; pi < sizeof presets / sizeof presets[0]; pi++) {
            const int p = presets[pi];
            fl_ctx c = fl_ctx_make(FL_RNE);
            unsigned fl = 0;
            uint64_t r;
            c.nan = (uint8_t)p;
#define RUN(expr) do { fl = 0; r = (expr); } while (0)
            RUN(fl_add(f, pnan, one, &c, &fl));
            expect_nan("qNaN + 1", f, p, r, fl, rule_nan(f, p, pnan, 1), 0);
            RUN(fl_add(f, one, nnan, &c, &fl));
            expect_nan("1 + -qNaN", f, p, r, fl, rule_nan(f, p, nnan, 1), 0);
            RUN(fl_sub(f, nnan, pnan, &c, &fl));
            expect_nan("-qNaN - qNaN", f, p, r, fl, rule_nan(f, p, nnan, 1), 0);
            RUN(fl_add(f, snan, one, &c, &fl));
            expect_nan("sNaN + 1", f, p, r, fl, rule_nan(f, p, snan, 1),
                       FL_INVALID);
            RUN(fl_add(f, inf, ninf, &c, &fl));
            expect_nan("inf - inf", f, p, r, fl, rule_nan(f, p, 0, 0), FL_INVALID);
            RUN(fl_mul(f, nnan, one, &c, &fl));
            expect_nan("-qNaN * 1", f, p, r, fl, rule_nan(f, p, nnan, 1), 0);
            RUN(fl_mul(f, inf, 0, &c, &fl));
            expect_nan("inf * 0", f, p, r, fl, rule_nan(f, p, 0, 0), FL_INVALID);
            RUN(fl_fma(f, one, one, nnan, &c, &fl));
            expect_nan("fma(1, 1, -qNaN)", f, p, r, fl, rule_nan(f, p, nnan, 1), 0);
            RUN(fl_fma(f, pnan, one, nnan, &c, &fl));
            expect_nan("fma(qNaN, 1, -qNaN)", f, p, r, fl,
                       rule_nan(f, p, pnan, 1), 0);
#undef RUN
            if (f != &fl_binary32) {
                /* binary32 NaNs narrowed: the payload's top bits, the sign
                 * alone, or the default */
                const uint64_t x = 0xFFC12345u, s = 0x7F812345u;
                const int sh = 24 - f->prec;
                uint64_t want;
                fl = 0;
                r = fl_convert(f, &fl_binary32, x, &c, &fl);
                want = rule_keep(p) == KEEP_PAYLOAD
                           ? f->sign_mask | f->exp_mask | q |
                                 ((x & 0x7FFFFFu) >> sh)
                           : rule_nan(f, p, f->sign_mask, rule_keep(p) != KEEP_NONE);
                expect_nan("-qNaN from binary32", f, p, r, fl, want, 0);
                fl = 0;
                r = fl_convert(f, &fl_binary32, s, &c, &fl);
                want = rule_keep(p) == KEEP_PAYLOAD
                           ? f->exp_mask | q | ((s & 0x7FFFFFu) >> sh)
                           : rule_nan(f, p, 0, rule_keep(p) != KEEP_NONE);
                expect_nan("sNaN from binary32", f, p, r, fl, want, FL_INVALID);
            }
        }
    }
    /* every name reads back */
    for (int p = 0; p < FL_NANP_COUNT; p++) {
        cases++;
        if (fl_nan_preset_parse(fl_nan_preset_name(p)) != p) {
            printf("FAIL nan preset %d: its name '%s' does not read back\n", p,
                   fl_nan_preset_name(p));
            failures++;
        }
    }
    printf("     core NaN rules: %d checks\n", cases - c0);
    return cases - c0;
}

static const char *after_nan_any(const fl_reveal_result *res, const truth *t)
{
    (void)t;
    if (!res->model.nan_any)
        return "the model is not nan=any";
    if (res->nan_only == 0)
        return "no validation case agreed only as NaN vs NaN";
    if (!strstr(g_log, "no NaN rule reproduces"))
        return "the report does not say that no NaN rule reproduces the probes";
    return notes_have(res, "a NaN where the kernel has a NaN (nan=any: which "
                           "NaN is not modelled) (seed 12345)");
}

static int group_nan(void)
{
    static const struct { const char *truth, *found; } r[] = {
        {"x86", "x86"}, {"arm", "arm"}, {"riscv", "arm"}, {"cuda", "cuda"},
        {"sign", "sign"}, {"sign-pos", "sign-pos"},
        {"default-neg", "default-neg"}, {"first", "first"},
    };
    int n = core_nan_rules();
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char spec[96], name[96], keys[64];
        snprintf(spec, sizeof spec, "acc=binary32 out=binary16 nan=%s",
                 r[i].truth);
        snprintf(name, sizeof name, "sum fp16 with nan=%s", r[i].truth);
        snprintf(keys, sizeof keys, "nan=%s", r[i].found);
        g_no_lengths = 1;
        check(name, FL_REF_OP_SUM, "binary16", 40, 0, 0, 0, spec, 0,
              FL_REVEAL_FOUND, keys);
        n++;
    }
    /* bfloat16 sums in binary32, NaNs by sign */
    g_no_lengths = 1;
    check("sum bf16 with nan=sign", FL_REF_OP_SUM, "bfloat16", 64, 0, 0, 0,
          "acc=binary32 out=bfloat16 nan=sign", 0, FL_REVEAL_FOUND, "nan=sign");
    /* no rule of fplab's: nan=any, said so */
    g_after = after_nan_any;
    g_no_lengths = 1;
    check("sum whose NaNs no rule gives: nan=any", FL_REF_OP_SUM, "binary32", 48,
          0, 0, 0, "order=pairwise:4", 4, FL_REVEAL_FOUND, "nan=any");
    return n + 2;
}

/* ------------------------------------------------------------------------
 * Batched GEMM calls.
 * ---------------------------------------------------------------------- */
static const char *after_batched(const fl_reveal_result *res, const truth *t)
{
    (void)t;
    if (res->batch_max < 2)
        return "the calls were not batched";
    if (res->calls > 20)
        return "more than 20 kernel calls";
    return NULL;
}

static const char *after_2d(const fl_reveal_result *res, const truth *t)
{
    (void)t;
    if (res->batch_max != 0)
        return "batched calls, though the kernel does not take a batch axis";
    if (res->valid_calls > 20)
        return "more than 20 validation calls";
    return NULL;
}

static const char *after_restart(const fl_reveal_result *res, const truth *t)
{
    const char *w = after_2d(res, t);
    if (w)
        return w;
    if (!strstr(g_log, "starts again with 2-D calls"))
        return "the 2-D check did not start the reveal again";
    return NULL;
}

static int group_batch(void)
{
    g_after = after_batched;
    check("gemm 16x96x16, batch axis taken", FL_REF_OP_GEMM, "binary32", 16, 16,
          96, 0, "epilogue=init", 0, FL_REVEAL_FOUND,
          "order=sequential epilogue=init");
    g_after = after_2d;
    check("gemm refusing 3-D calls: 2-D, validation by calls", FL_REF_OP_GEMM,
          "binary32", 8, 8, 40, 0, "epilogue=init", 5, FL_REVEAL_FOUND,
          "order=sequential epilogue=init");
    g_after = after_2d;
    g_spec2 = "order=reverse epilogue=init";
    check("gemm whose 3-D calls sum otherwise", FL_REF_OP_GEMM, "binary32", 8, 8,
          40, 0, "epilogue=init", 7, FL_REVEAL_FOUND,
          "order=sequential epilogue=init");
    g_after = after_restart;
    g_spec2 = "order=reverse epilogue=init";
    check("gemm whose 3-D calls sum probes otherwise", FL_REF_OP_GEMM,
          "binary32", 8, 8, 40, 0, "epilogue=init", 6, FL_REVEAL_FOUND,
          "order=sequential epilogue=init");
    return 4;
}

/* ------------------------------------------------------------------------
 * Models that travel: families checked at other lengths.
 * ---------------------------------------------------------------------- */
static const char *after_travels(const fl_reveal_result *res, const truth *t)
{
    (void)t;
    if (!res->order_travels || res->ntree_lengths < 3)
        return "the order was not checked at two more lengths";
    return notes_have(res, "order: a family (fplab ref computes it for every ");
}

static const char *after_stays(const fl_reveal_result *res, const truth *t)
{
    (void)t;
    if (res->order_travels || res->model.order != FL_REF_TREE ||
        !res->travel_note[0])
        return "a family was written although the kernel's trees differ "
               "at other lengths";
    return notes_have(res, "order: covers n = 64 only (");
}

static int group_lengths(void)
{
    g_after = after_travels;
    check("torch-like fp16 sum: cascade:8:pairs at n = 200", FL_REF_OP_SUM,
          "binary16", 200, 0, 0, 0,
          "acc=binary32 out=binary16 order=cascade:8:pairs nan=sign", 0,
          FL_REVEAL_FOUND, "order=cascade:8:pairs nan=sign");
    g_after = after_travels;
    check("bf16 sum: cascade:8:halves at n = 100", FL_REF_OP_SUM, "bfloat16",
          100, 0, 0, 0, "acc=binary32 out=bfloat16 order=cascade:8:halves", 0,
          FL_REVEAL_FOUND, "order=cascade:8:halves");
    g_after = after_travels;
    check("oneDNN-like bf16 gemm: pairswap:512 at k = 96", FL_REF_OP_GEMM,
          "bfloat16", 4, 4, 96, 0,
          "acc=binary32 out=bfloat16 products=fused order=pairswap:512 ftz=1 "
          "daz=1", 0, FL_REVEAL_FOUND, "order=pairswap:512 products=fused");
    g_after = after_stays;
    g_spec2 = "order=sequential";
    check("pairwise:8 at n = 64 only: the tree, n = 64 alone", FL_REF_OP_SUM,
          "binary32", 64, 0, 0, 0, "order=pairwise:8", 8, FL_REVEAL_FOUND,
          "acc=binary32");
    return 4;
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
            /* every case; all asked for unless validation reached its
             * call limit (a fixed batch of small matrices) */
            if (res.agreed != res.cases ||
                (res.cases < o.validate && res.valid_calls != o.validate_calls)) {
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
    if (!group || !strcmp(group, "nan"))
        expect += group_nan();
    if (!group || !strcmp(group, "batch"))
        expect += group_batch();
    if (!group || !strcmp(group, "lengths"))
        expect += group_lengths();
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
