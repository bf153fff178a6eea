/*
 * cmd_ref.c — `fplab ref OP INPUT... --out FILE [model options]`: the
 * reference output of an operation in a stated arithmetic model, from and
 * to tensor files (.npy, .npz, .safetensors).  A thin shell over
 * fplab/ref.h; the output carries the model's canonical line (safetensors
 * metadata "fplab-model", else the sidecar FILE.model).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fplab/ref.h"
#include "tensor.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab ref OP INPUT... --out FILE [options]\n"
"\n"
"The reference output of OP in a stated arithmetic model, bit for bit.\n"
"Inputs and output: .npy, .npz or .safetensors (FILE:KEY names a member);\n"
"bfloat16 and fp8 travel through .npy/.npz as uint16/uint8 bit patterns:\n"
"say what they hold with --in-format / --out-format.\n"
"\n"
"operations:\n"
"  add sub mul div A B, fma A B C, sqrt A, cast A   element-wise, same shapes\n"
"  sum X       along the last axis: X (..., n) -> (...)\n"
"  dot A B     row by row: A, B (..., n) -> (...)\n"
"  gemm A B    D = alpha*op(A)*op(B) + beta*C: A (M, K) or (batch, M, K),\n"
"              B (K, N) or (batch, K, N); --ta/--tb: A stored (K, M), B (N, K)\n"
"\n"
"model (sum, dot, gemm; see docs/kernels.md):\n"
"  --model FILE       a model file; the options below override its keys\n"
"  --acc F            accumulator format (default binary32)\n"
"  --acc-rm MODE      rounding of every step in acc (rne rtz rdn rup rna rto sr)\n"
"  --fma              products fused into the accumulator (default: rounded)\n"
"  --order O          sequential reverse pairwise:B numpy blocked:K\n"
"                     lanes:W[:seq|:pairwise|:halving] splitk:S tree:EXPR\n"
"                     tree:@FILE exact\n"
"  --exact            the correctly rounded result (order=exact)\n"
"  --tc T             tensor-core blocks: a preset (v100-fp16 a100-fp16\n"
"                     a100-bf16 a100-tf32 h100-fp16 h100-bf16 h100-tf32),\n"
"                     PRESET(k:v,...) or block:B,neab:N,align:trunc|floor|rne,\n"
"                     norm:once|products,rm:MODE\n"
"  --out-rm MODE      rounding of the final conversion to the output format\n"
"  --epilogue E       last (default), fma or init (the accumulator starts at\n"
"                     beta*C, or +0)\n"
"  --alpha X --beta Y GEMM scalars (decimal, rounded to acc); --c FILE C\n"
"                     (read in the output format; beta defaults to 1 with C)\n"
"  --tininess T       after (default) or before\n"
"element-wise:\n"
"  --rm MODE          rounding of the operation (default rne)\n"
"  --sr-bits FILE     stochastic rounding with supplied random bits: an\n"
"                     unsigned-integer tensor of the inputs' shape, element\n"
"                     i's bits R (docs/formats.md); with --sr-nbits N\n"
"                     (1..64) and --sr-variant V: stochastic (default),\n"
"                     stochastic-odd, fast, fastest (P3109 C, -, B, A)\n"
"  --sr-hw PRESET     a hardware rule for --sr-bits (each element's lane\n"
"                     bits): ptx-cvt.rs.f16x2 .bf16x2 .e4m3x4 .e5m2x4\n"
"                     .e2m3x4 .e3m2x4 .e2m1x4 (satfinite where the PTX\n"
"                     makes it mandatory), onednn-f16 -bf16 -f8_e4m3\n"
"                     -f8_e5m2; sets N, the variant, the saturation, the\n"
"                     NaN rule and checks --out-format\n"
"both:\n"
"  --in-format F      what the inputs hold (needed for uint bit patterns;\n"
"                     sum, dot, gemm: a model's in= says it too)\n"
"  --out-format F     output format (default: acc, or the input format)\n"
"  --seed S           stochastic rounding seed\n"
"  --ftz --daz        flush tiny results / subnormal inputs to zero\n"
"  --nan P            NaN rule: x86 (default) arm riscv cuda softfloat sign\n"
"                     sign-pos default-neg first, or any (not modelled)\n"
"  --saturate         overflow gives the largest finite value\n"
"  --key NAME         the output's key in .npz/.safetensors (default out)\n"
"  --threads T        threads (default: all cores; same bits for any T)\n"
"\n"
"Prints the model's canonical line; exit status 0, or 2 on bad usage or\n"
"input (nothing written).\n");
}

typedef struct kv {
    const char *key, *value;
} kv;

#define MAX_SETS 64

typedef struct opts {
    const char *op_name;
    int op;                 /* fl_ref_eop, or -1 sum, -2 dot, -3 gemm */
    const char *in[3];
    int nin;
    const char *out, *model, *in_format, *out_format, *c, *key;
    const char *alpha, *beta, *rm;
    const char *sr_bits, *sr_nbits, *sr_variant, *sr_hw;
    int ta, tb, threads;
    kv sets[MAX_SETS];      /* model keys from the options, in order */
    int nsets;
    int reduce_only_opt;    /* an option that only sum/dot/gemm take */
    const char *reduce_only_name;
} opts;

enum { OP_SUM = -1, OP_DOT = -2, OP_GEMM = -3 };

static int add_set(opts *o, const char *key, const char *value,
                   const char *opt, int reduce_only)
{
    if (o->nsets == MAX_SETS)
        return cli_error("ref: too many options"), -1;
    o->sets[o->nsets].key = key;
    o->sets[o->nsets].value = value;
    o->nsets++;
    if (reduce_only && !o->reduce_only_opt) {
        o->reduce_only_opt = 1;
        o->reduce_only_name = opt;
    }
    return 0;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->op = -100;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
#define NEED() do { if (i + 1 >= argc) \
            return cli_error("ref: option %s needs a value", a), -1; } while (0)
        /* options that map to one model key */
        static const struct { const char *opt, *key; int reduce_only; } direct[] = {
            {"--acc", "acc", 1},       {"--acc-rm", "acc-rm", 1},
            {"--order", "order", 1},   {"--tc", "tc", 1},
            {"--out-rm", "out-rm", 1}, {"--epilogue", "epilogue", 1},
            {"--tininess", "tininess", 0}, {"--seed", "seed", 0},
            {"--nan", "nan", 0},
        };
        static const struct { const char *opt, *key, *value; int reduce_only; } flags[] = {
            {"--fma", "products", "fused", 1}, {"--exact", "order", "exact", 1},
            {"--ftz", "ftz", "1", 0},          {"--daz", "daz", "1", 0},
            {"--saturate", "saturate", "1", 0},
        };
        int done = 0;
        for (size_t k = 0; k < sizeof direct / sizeof direct[0] && !done; k++)
            if (!strcmp(a, direct[k].opt)) {
                NEED();
                if (add_set(o, direct[k].key, argv[++i], a, direct[k].reduce_only))
                    return -1;
                done = 1;
            }
        for (size_t k = 0; k < sizeof flags / sizeof flags[0] && !done; k++)
            if (!strcmp(a, flags[k].opt)) {
                if (add_set(o, flags[k].key, flags[k].value, a, flags[k].reduce_only))
                    return -1;
                done = 1;
            }
        if (done)
            continue;
        if (!strncmp(a, "--", 2) && strchr(a, '=')) {
            return cli_error("ref: write options as '--opt VALUE', not '%s'", a), -1;
        } else if (!strcmp(a, "--out")) {
            NEED();
            o->out = argv[++i];
        } else if (!strcmp(a, "--model")) {
            NEED();
            o->model = argv[++i];
        } else if (!strcmp(a, "--in-format")) {
            NEED();
            o->in_format = argv[++i];
        } else if (!strcmp(a, "--out-format")) {
            NEED();
            o->out_format = argv[++i];
        } else if (!strcmp(a, "--c")) {
            NEED();
            o->c = argv[++i];
        } else if (!strcmp(a, "--key")) {
            NEED();
            o->key = argv[++i];
        } else if (!strcmp(a, "--alpha")) {
            NEED();
            o->alpha = argv[++i];
        } else if (!strcmp(a, "--beta")) {
            NEED();
            o->beta = argv[++i];
        } else if (!strcmp(a, "--rm")) {
            NEED();
            o->rm = argv[++i];
        } else if (!strcmp(a, "--sr-bits")) {
            NEED();
            o->sr_bits = argv[++i];
        } else if (!strcmp(a, "--sr-nbits")) {
            NEED();
            o->sr_nbits = argv[++i];
        } else if (!strcmp(a, "--sr-variant")) {
            NEED();
            o->sr_variant = argv[++i];
        } else if (!strcmp(a, "--sr-hw")) {
            NEED();
            o->sr_hw = argv[++i];
        } else if (!strcmp(a, "--ta")) {
            o->ta = 1;
        } else if (!strcmp(a, "--tb")) {
            o->tb = 1;
        } else if (!strcmp(a, "--threads")) {
            uint64_t v;
            NEED();
            if (cli_parse_u64(argv[++i], &v) || v == 0 || v > 256)
                return cli_error("ref: --threads: '%s' is not an integer 1..256",
                                 argv[i]), -1;
            o->threads = (int)v;
        } else if (a[0] == '-' && a[1] == '-') {
            return cli_error("ref: unknown option '%s' (try 'fplab ref --help')",
                             a), -1;
        } else if (o->op_name == NULL) {
            o->op_name = a;
            if (!strcmp(a, "sum"))
                o->op = OP_SUM;
            else if (!strcmp(a, "dot"))
                o->op = OP_DOT;
            else if (!strcmp(a, "gemm"))
                o->op = OP_GEMM;
            else if ((o->op = fl_ref_eop_parse(a)) < 0)
                return cli_error("ref: unknown operation '%s' (add sub mul div "
                                 "fma sqrt cast sum dot gemm)", a), -1;
        } else {
            if (o->nin == 3)
                return cli_error("ref: too many inputs ('%s')", a), -1;
            o->in[o->nin++] = a;
        }
#undef NEED
    }
    if (o->op_name == NULL)
        return cli_error("ref: need an operation (try 'fplab ref --help')"), -1;
    {
        int want = o->op == OP_SUM ? 1 : o->op == OP_DOT || o->op == OP_GEMM ? 2
                   : fl_ref_eop_arity((fl_ref_eop)o->op);
        if (o->nin != want)
            return cli_error("ref: %s takes %d input%s, got %d", o->op_name, want,
                             want > 1 ? "s" : "", o->nin), -1;
    }
    if ((o->sr_bits || o->sr_nbits || o->sr_variant || o->sr_hw) && o->op < 0)
        return cli_error("ref: --sr-bits and its options apply to the "
                         "element-wise operations, not %s", o->op_name), -1;
    if (o->out == NULL)
        return cli_error("ref: need --out FILE"), -1;
    if (o->op >= 0) {
        if (o->reduce_only_opt)
            return cli_error("ref: %s applies to sum, dot and gemm, not to the "
                             "element-wise %s (its rounding is --rm)",
                             o->reduce_only_name, o->op_name), -1;
        if (o->model)
            return cli_error("ref: --model applies to sum, dot and gemm, not to "
                             "%s", o->op_name), -1;
    } else if (o->rm) {
        return cli_error("ref: --rm is the rounding of element-wise operations; "
                         "%s uses --acc-rm and --out-rm", o->op_name), -1;
    }
    if (o->op != OP_GEMM) {
        const char *g = o->ta ? "--ta" : o->tb ? "--tb" : o->c ? "--c"
                      : o->alpha ? "--alpha" : o->beta ? "--beta" : NULL;
        if (g)
            return cli_error("ref: %s applies to gemm only", g), -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */

typedef struct input {
    tensor t;
    fl_format f;
    uint64_t *bits;
} input;

static void shape_of(const tensor *t, char *buf, size_t len)
{
    tensor_shape_str(t, buf, len);
}

/* fmt_bits_only: fmt applies to unsigned bit patterns only (a model's
 * in=, whose disagreement with a float array the model check reports). */
static int load2(input *in, const char *spec, const char *fmt, const char *what,
                 int fmt_bits_only)
{
    char err[1024];
    memset(in, 0, sizeof *in);
    if (tensor_read(&in->t, spec, err, sizeof err) != 0)
        return cli_error("ref: %s", err), -1;
    if (fmt_bits_only && tensor_format(&in->t, NULL, what, &in->f, err,
                                       sizeof err) == 0)
        fmt = NULL;   /* a float array: its own format */
    if (tensor_format(&in->t, fmt, what, &in->f, err, sizeof err) != 0) {
        tensor_free(&in->t);
        return cli_error("ref: %s", err), -1;
    }
    in->bits = malloc((in->t.n ? in->t.n : 1) * sizeof *in->bits);
    if (in->bits == NULL) {
        tensor_free(&in->t);
        return cli_error("ref: %s: out of memory", spec), -1;
    }
    tensor_to_bits(&in->t, in->bits);
    return 0;
}

static int load(input *in, const char *spec, const char *fmt, const char *what)
{
    return load2(in, spec, fmt, what, 0);
}

static void unload(input *in)
{
    tensor_free(&in->t);
    free(in->bits);
    in->bits = NULL;
}

static int same_shape(const tensor *a, const tensor *b)
{
    return fl_tensor_shape_same(a->shape, a->ndim, b->shape, b->ndim);
}

static const char *spec_of(const fl_format *f, char *buf, size_t len)
{
    fl_format_spec(f, buf, len);
    return buf;
}

/* The inputs' common format, or an error naming both sides. */
static int common_format(input *in, int n, const char *const *names)
{
    for (int i = 1; i < n; i++)
        if (!fl_format_same(&in[i].f, &in[0].f)) {
            char a[64], b[64];
            return cli_error("ref: %s holds %s (%s) but %s holds %s (%s): the "
                             "inputs must have one format", names[0],
                             spec_of(&in[0].f, a, sizeof a),
                             tensor_dtype_name(in[0].t.dtype), names[i],
                             spec_of(&in[i].f, b, sizeof b),
                             tensor_dtype_name(in[i].t.dtype)), -1;
        }
    return 0;
}

static void report(const opts *o, const char *line, const fl_format *f,
                   int ndim, const size_t *shape, unsigned flags)
{
    char fl[80], sh[256], fs[64];
    fl_tensor_shape_text(shape, ndim, sh, sizeof sh);
    printf("model: %s\n", line);
    printf("wrote %s: %s %s, flags %s\n", o->out, spec_of(f, fs, sizeof fs), sh,
           cli_flag_names(flags, fl, sizeof fl));
}

/* The result (format f, shape ndim/shape) to --out with the model's line
 * beside it, then reported with the flags it raised; 0, or -1 after the
 * message. */
static int write_out(const opts *o, const fl_format *f, int ndim,
                     const size_t *shape, const uint64_t *bits,
                     const char *line, unsigned flags)
{
    tensor t;
    const tensor *ts[1];
    const char *keys[1];
    tensor_meta meta = {TENSOR_MODEL_KEY, line};
    char err[1024];
    memset(&t, 0, sizeof t);
    if (tensor_from_bits(&t, f, ndim, shape, bits) != 0)
        return cli_error("ref: out of memory"), -1;
    ts[0] = &t;
    keys[0] = o->key ? o->key : "out";
    if (cli_mkdir_parent(o->out, "ref: --out") != 0) {
        tensor_free(&t);
        return -1;
    }
    if (tensor_write_meta(o->out, ts, keys, 1, 0, &meta, 1, err, sizeof err) != 0) {
        tensor_free(&t);
        return cli_error("ref: %s", err), -1;
    }
    tensor_free(&t);
    report(o, line, f, ndim, shape, flags);
    return 0;
}

/* --sr-bits and its companions: the bits tensor (unsigned integers of
 * the inputs' shape), N, the variant; a preset sets N, the variant and the
 * context's saturation and NaN rule, and wants its own output format. */
static int load_sr_bits(const opts *o, const tensor *shape_of_inputs,
                        const fl_format *of, uint64_t **bits, int *nbits,
                        int *variant, fl_ctx *ctx)
{
    tensor t;
    char err[1024];
    *bits = NULL;
    *nbits = 0;
    *variant = FL_SRV_STOCHASTIC;
    if (!o->sr_bits) {
        if (o->sr_nbits || o->sr_variant || o->sr_hw)
            return cli_error("ref: --sr-nbits, --sr-variant and --sr-hw go "
                             "with --sr-bits FILE"), -1;
        return 0;
    }
    if (o->op < 0)
        return cli_error("ref: --sr-bits applies to the element-wise "
                         "operations"), -1;
    if (o->sr_hw) {
        const int h = fl_srhw_parse(o->sr_hw);
        const fl_srhw_info *hi = fl_srhw_get(h);
        if (!hi)
            return cli_error("ref: --sr-hw: unknown preset '%s' (see 'fplab "
                             "ref --help')", o->sr_hw), -1;
        if (o->sr_nbits || o->sr_variant)
            return cli_error("ref: --sr-hw %s sets the bit count and the "
                             "variant; drop --sr-nbits / --sr-variant",
                             o->sr_hw), -1;
        if (!fl_format_same(of, hi->fmt))
            return cli_error("ref: --sr-hw %s rounds into %s; give "
                             "--out-format %s", o->sr_hw, hi->fmt->name,
                             hi->fmt->name), -1;
        *nbits = hi->nbits;
        *variant = FL_SRV_FASTEST;
        ctx->nan = FL_NANP_CUDA;
        if (hi->satfinite)
            ctx->saturate = FL_SAT_FINITE;
    } else {
        uint64_t v;
        if (!o->sr_nbits || cli_parse_u64(o->sr_nbits, &v) || v < 1 || v > 64)
            return cli_error("ref: --sr-bits needs --sr-nbits N, N = 1..64%s%s",
                             o->sr_nbits ? ", got " : "",
                             o->sr_nbits ? o->sr_nbits : ""), -1;
        *nbits = (int)v;
        if (o->sr_variant && (*variant = fl_srv_parse(o->sr_variant)) < 0)
            return cli_error("ref: --sr-variant: '%s' is not stochastic, "
                             "stochastic-odd, fast or fastest", o->sr_variant),
                   -1;
    }
    memset(&t, 0, sizeof t);
    if (tensor_read(&t, o->sr_bits, err, sizeof err) != 0)
        return cli_error("ref: --sr-bits: %s", err), -1;
    if (t.dtype != TENSOR_U8 && t.dtype != TENSOR_U16 &&
        t.dtype != TENSOR_U32 && t.dtype != TENSOR_U64) {
        cli_error("ref: --sr-bits %s holds %s; the random bits are an "
                  "unsigned integer tensor (uint8..uint64)", o->sr_bits,
                  tensor_dtype_name(t.dtype));
        tensor_free(&t);
        return -1;
    }
    if (!same_shape(&t, shape_of_inputs)) {
        char a[256], b[256];
        shape_of(&t, a, sizeof a);
        shape_of(shape_of_inputs, b, sizeof b);
        cli_error("ref: --sr-bits %s has shape %s, the inputs %s", o->sr_bits,
                  a, b);
        tensor_free(&t);
        return -1;
    }
    *bits = malloc((t.n ? t.n : 1) * sizeof **bits);
    if (!*bits) {
        tensor_free(&t);
        return cli_error("ref: out of memory"), -1;
    }
    tensor_to_bits(&t, *bits);
    for (size_t i = 0; i < t.n; i++)
        if (*nbits < 64 && (*bits)[i] >> *nbits) {
            cli_error("ref: --sr-bits %s: element %zu is %llu, which does not "
                      "fit in %d bits", o->sr_bits, i,
                      (unsigned long long)(*bits)[i], *nbits);
            free(*bits);
            *bits = NULL;
            tensor_free(&t);
            return -1;
        }
    tensor_free(&t);
    return 0;
}

/* Element-wise operations. */
static int run_elementwise(const opts *o)
{
    input in[3];
    const char *names[3];
    fl_format of;
    fl_ref_model m;
    fl_ctx ctx;
    uint64_t *r = NULL, *srb = NULL;
    unsigned flags = 0;
    char err[1024], *line = NULL;
    int rc = CLI_USAGE, nload = 0, srn = 0, srv = 0, ew;

    fl_ref_model_init(&m);
    for (int i = 0; i < o->nin; i++) {
        char what[64];
        snprintf(what, sizeof what, "--in-format (input %d)", i + 1);
        if (load(&in[i], o->in[i], o->in_format, what) != 0)
            goto out;
        names[i] = in[i].t.source;
        nload++;
    }
    for (int i = 1; i < o->nin; i++)
        if (!same_shape(&in[i].t, &in[0].t)) {
            char a[256], b[256];
            shape_of(&in[0].t, a, sizeof a);
            shape_of(&in[i].t, b, sizeof b);
            cli_error("ref: %s: %s has shape %s but %s has shape %s", o->op_name,
                      names[0], a, names[i], b);
            goto out;
        }
    if (common_format(in, o->nin, names) != 0)
        goto out;
    of = in[0].f;
    if (o->out_format && cli_parse_format(o->out_format, &of, "--out-format") != 0)
        goto out;
    if (o->op == FL_REF_CAST && !o->out_format) {
        cli_error("ref: cast needs --out-format F (the format to convert to)");
        goto out;
    }
    /* the model line of a single rounding in the output format */
    m.in = in[0].f;
    m.in_set = 1;
    m.acc = of;
    m.out = of;
    m.out_set = 1;
    for (int i = 0; i < o->nsets; i++)
        if (fl_ref_model_set(&m, o->sets[i].key, o->sets[i].value, NULL, err,
                             sizeof err) != 0) {
            cli_error("ref: %s", err);
            goto out;
        }
    if (o->rm) {
        int rm = cli_parse_rm(o->rm, "ref: --rm");
        if (rm < 0)
            goto out;
        m.acc_rm = m.out_rm = rm;
    }
    ctx = fl_ctx_make(m.acc_rm);
    ctx.ftz = (uint8_t)m.ftz;
    ctx.daz = (uint8_t)m.daz;
    ctx.saturate = (uint8_t)m.saturate;
    ctx.nan = (uint8_t)m.nan;
    ctx.tininess = (uint8_t)m.tininess;
    ctx.sr_seed = m.seed;
    if (load_sr_bits(o, &in[0].t, &of, &srb, &srn, &srv, &ctx) != 0)
        goto out;
    r = malloc((in[0].t.n ? in[0].t.n : 1) * sizeof *r);
    line = fl_ref_model_string(&m);
    if (r == NULL || line == NULL) {
        cli_error("ref: out of memory");
        goto out;
    }
    if (srb)
        ew = fl_ref_elementwise_sr_bits(
            (fl_ref_eop)o->op, &in[0].f, &of, in[0].bits,
            o->nin > 1 ? in[1].bits : NULL, o->nin > 2 ? in[2].bits : NULL,
            in[0].t.n, r, srb, srn, srv, &ctx, o->threads, &flags, err,
            sizeof err);
    else
        ew = fl_ref_elementwise((fl_ref_eop)o->op, &in[0].f, &of, in[0].bits,
                                o->nin > 1 ? in[1].bits : NULL,
                                o->nin > 2 ? in[2].bits : NULL, in[0].t.n, r,
                                &ctx, o->threads, &flags, err, sizeof err);
    if (ew != 0) {
        cli_error("ref: %s", err);
        goto out;
    }
    if (write_out(o, &of, in[0].t.ndim, in[0].t.shape, r, line, flags) != 0)
        goto out;
    if (srb)
        printf("rounding: stochastic with supplied bits (%s), %d bits, "
               "variant %s, saturation %s%s%s\n", o->sr_bits, srn,
               fl_srv_name(srv), fl_sat_name(ctx.saturate),
               o->sr_hw ? ", preset " : "", o->sr_hw ? o->sr_hw : "");
    rc = CLI_OK;
out:
    for (int i = 0; i < nload; i++)
        unload(&in[i]);
    free(r);
    free(srb);
    free(line);
    fl_ref_model_free(&m);
    return rc;
}

/* The model from --model and the options; in from the data. */
static int build_model(const opts *o, fl_ref_model *m, const fl_format *data,
                       const char *data_name, const tensor *dt)
{
    char err[1024];
    fl_ref_model_init(m);
    if (o->model && fl_ref_model_parse_file(m, o->model, err, sizeof err) != 0)
        return cli_error("ref: --model %s", err), -1;
    for (int i = 0; i < o->nsets; i++)
        if (fl_ref_model_set(m, o->sets[i].key, o->sets[i].value, NULL, err,
                             sizeof err) != 0)
            return cli_error("ref: %s", err), -1;
    if (o->out_format) {
        if (cli_parse_format(o->out_format, &m->out, "ref: --out-format") != 0)
            return -1;
        m->out_set = 1;
    }
    if (m->in_set && !fl_format_same(&m->in, data)) {
        char a[64], b[64];
        return cli_error("ref: the model says in=%s but %s holds %s (%s)",
                         spec_of(&m->in, a, sizeof a), data_name,
                         spec_of(data, b, sizeof b), tensor_dtype_name(dt->dtype)), -1;
    }
    m->in = *data;
    m->in_set = 1;
    return 0;
}

/* The format the inputs of sum, dot and gemm hold: --in-format, else the
 * model's in= (a --model file's key, or an option's), else NULL (each
 * array's own dtype).  *what names the source for messages. */
static const char *input_format(const opts *o, char *buf, size_t len,
                                const char **what)
{
    fl_ref_model m;
    char err[1024];
    const char *r = NULL;
    *what = "--in-format";
    if (o->in_format)
        return o->in_format;
    fl_ref_model_init(&m);
    if (o->model && fl_ref_model_parse_file(&m, o->model, err, sizeof err) != 0) {
        fl_ref_model_free(&m);
        return NULL;   /* the model's error comes when it is read again */
    }
    for (int i = 0; i < o->nsets; i++)
        if (!strcmp(o->sets[i].key, "in"))
            fl_ref_model_set(&m, "in", o->sets[i].value, NULL, err, sizeof err);
    if (m.in_set) {
        fl_format_spec(&m.in, buf, len);
        *what = "the model's in=";
        r = buf;
    }
    fl_ref_model_free(&m);
    return r;
}

/* The nin inputs of sum, dot and gemm, each in the format input_format
 * says; names[i] their sources.  *nload counts the ones loaded (to unload,
 * also after a failure).  0, or -1 after the message. */
static int load_model_inputs(const opts *o, int nin, input *in,
                             const char **names, int *nload)
{
    for (int i = 0; i < nin; i++) {
        char what[96], fbuf[64];
        const char *src, *fmt = input_format(o, fbuf, sizeof fbuf, &src);
        snprintf(what, sizeof what, "%s (input %d)", src, i + 1);
        if (load2(&in[i], o->in[i], fmt, what, fmt && !o->in_format) != 0)
            return -1;
        names[i] = in[i].t.source;
        (*nload)++;
    }
    return 0;
}

static int run_reduce(const opts *o)
{
    input in[2];
    const char *names[2];
    fl_ref_model m;
    size_t rows = 1, n, outshape[TENSOR_MAXDIM];
    int outdim, nload = 0, rc = CLI_USAGE;
    uint64_t *r = NULL;
    unsigned flags = 0;
    char err[1024], *line = NULL;
    const char *opname = o->op == OP_SUM ? "sum" : "dot";

    fl_ref_model_init(&m);
    if (load_model_inputs(o, o->nin, in, names, &nload) != 0)
        goto out;
    if (in[0].t.ndim == 0) {
        cli_error("ref: %s: %s is a scalar; %s reduces the last axis of an array",
                  opname, names[0], opname);
        goto out;
    }
    if (o->nin == 2 && !same_shape(&in[0].t, &in[1].t)) {
        char a[256], b[256];
        shape_of(&in[0].t, a, sizeof a);
        shape_of(&in[1].t, b, sizeof b);
        cli_error("ref: dot: %s has shape %s but %s has shape %s (dot pairs "
                  "the rows of two arrays of one shape)", names[0], a, names[1], b);
        goto out;
    }
    if (common_format(in, o->nin, names) != 0)
        goto out;
    n = in[0].t.shape[in[0].t.ndim - 1];
    outdim = in[0].t.ndim - 1;
    for (int d = 0; d < outdim; d++) {
        outshape[d] = in[0].t.shape[d];
        rows *= outshape[d];
    }
    if (build_model(o, &m, &in[0].f, names[0], &in[0].t) != 0)
        goto out;
    if (fl_ref_model_check(&m, o->op == OP_SUM ? FL_REF_OP_SUM : FL_REF_OP_DOT, n,
                           err, sizeof err) != 0) {
        cli_error("ref: model: %s", err);
        goto out;
    }
    r = malloc((rows ? rows : 1) * sizeof *r);
    line = fl_ref_model_string(&m);
    if (r == NULL || line == NULL) {
        cli_error("ref: out of memory");
        goto out;
    }
    if ((o->op == OP_SUM
             ? fl_ref_sum(&m, in[0].bits, rows, n, r, o->threads, &flags, err, sizeof err)
             : fl_ref_dot(&m, in[0].bits, in[1].bits, rows, n, r, o->threads, &flags,
                          err, sizeof err)) != 0) {
        cli_error("ref: %s", err);
        goto out;
    }
    if (write_out(o, m.out_set ? &m.out : &m.acc, outdim, outshape, r, line,
                  flags) != 0)
        goto out;
    rc = CLI_OK;
out:
    for (int i = 0; i < nload; i++)
        unload(&in[i]);
    free(r);
    free(line);
    fl_ref_model_free(&m);
    return rc;
}

static int parse_scalar(const char *s, const char *what, const fl_format *acc,
                        uint64_t *v)
{
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned f = 0;
    char sp[64];
    if (fl_parse(acc, s, &c, &f, v) != 0)
        return cli_error("ref: %s: '%s' is not a number", what, s), -1;
    if (f & FL_INEXACT)
        fprintf(stderr, "fplab: note: %s %s is not exact in %s; it is rounded "
                "to nearest-even\n", what, s, spec_of(acc, sp, sizeof sp));
    return 0;
}

static int run_gemm(const opts *o)
{
    input in[2], cin;
    const char *names[2];
    fl_ref_model m;
    fl_ref_gemm_shape s;
    int nload = 0, have_c = 0, rc = CLI_USAGE, outdim;
    size_t outshape[3], M, N, K, KB, batch = 1;
    uint64_t *d = NULL, alpha, beta = 0;
    unsigned flags = 0;
    char err[1024], *line = NULL, sa[256], sb[256];
    const fl_format *of;

    fl_ref_model_init(&m);
    memset(&cin, 0, sizeof cin);
    if (load_model_inputs(o, 2, in, names, &nload) != 0)
        goto out;
    shape_of(&in[0].t, sa, sizeof sa);
    shape_of(&in[1].t, sb, sizeof sb);
    for (int i = 0; i < 2; i++)
        if (in[i].t.ndim != 2 && in[i].t.ndim != 3) {
            cli_error("ref: gemm: %s has shape %s: A and B are matrices (2-D) or "
                      "batches of matrices (3-D)", names[i], i ? sb : sa);
            goto out;
        }
    if (common_format(in, 2, names) != 0)
        goto out;
    {
        const tensor *A = &in[0].t, *B = &in[1].t;
        size_t ar = A->shape[A->ndim - 2], ac = A->shape[A->ndim - 1];
        size_t br = B->shape[B->ndim - 2], bc = B->shape[B->ndim - 1];
        M = o->ta ? ac : ar;
        K = o->ta ? ar : ac;
        KB = o->tb ? bc : br;
        N = o->tb ? br : bc;
        if (K != KB) {
            cli_error("ref: gemm: %s %s gives K = %zu%s but %s %s gives K = %zu%s",
                      names[0], sa, K, o->ta ? " (--ta: A is K x M)" : "",
                      names[1], sb, KB, o->tb ? " (--tb: B is N x K)" : "");
            goto out;
        }
        if (A->ndim == 3 && B->ndim == 3 && A->shape[0] != B->shape[0]) {
            cli_error("ref: gemm: %s %s has %zu matrices but %s %s has %zu",
                      names[0], sa, A->shape[0], names[1], sb, B->shape[0]);
            goto out;
        }
        batch = A->ndim == 3 ? A->shape[0] : B->ndim == 3 ? B->shape[0] : 1;
        outdim = A->ndim == 3 || B->ndim == 3 ? 3 : 2;
        fl_ref_gemm_shape_init(&s, o->ta, o->tb, batch, M, N, K);
        s.stride_a = A->ndim == 3 ? ar * ac : 0;
        s.stride_b = B->ndim == 3 ? br * bc : 0;
        if (outdim == 3) {
            outshape[0] = batch;
            outshape[1] = M;
            outshape[2] = N;
        } else {
            outshape[0] = M;
            outshape[1] = N;
        }
    }
    if (build_model(o, &m, &in[0].f, names[0], &in[0].t) != 0)
        goto out;
    if (fl_ref_model_check(&m, FL_REF_OP_GEMM, K, err, sizeof err) != 0) {
        cli_error("ref: model: %s", err);
        goto out;
    }
    of = m.out_set ? &m.out : &m.acc;
    {
        fl_ctx c1 = fl_ctx_make(FL_RNE);
        unsigned f1 = 0;
        alpha = fl_from_i32(&m.acc, 1, &c1, &f1);
    }
    if (o->alpha && parse_scalar(o->alpha, "--alpha", &m.acc, &alpha) != 0)
        goto out;
    if (o->c) {
        char what[] = "--c";
        char fs[64];
        fl_ctx c1 = fl_ctx_make(FL_RNE);
        unsigned f1 = 0;
        /* C is read in the output format */
        if (load(&cin, o->c, o->out_format ? o->out_format : spec_of(of, fs, sizeof fs),
                 what) != 0)
            goto out;
        have_c = 1;
        beta = fl_from_i32(&m.acc, 1, &c1, &f1);
        {
            int ok = (cin.t.ndim == 2 && cin.t.shape[0] == M && cin.t.shape[1] == N) ||
                     (cin.t.ndim == 3 && cin.t.shape[0] == batch &&
                      cin.t.shape[1] == M && cin.t.shape[2] == N);
            if (!ok) {
                char sc[256], so[256];
                shape_of(&cin.t, sc, sizeof sc);
                fl_tensor_shape_text(outshape, outdim, so, sizeof so);
                cli_error("ref: gemm: C %s has shape %s but the output is %s",
                          cin.t.source, sc, so);
                goto out;
            }
        }
        s.stride_c = cin.t.ndim == 3 ? M * N : 0;
    }
    if (o->beta && parse_scalar(o->beta, "--beta", &m.acc, &beta) != 0)
        goto out;
    if (!have_c && (beta & ~m.acc.sign_mask) != 0) {
        cli_error("ref: --beta %s needs C (--c FILE)", o->beta);
        goto out;
    }
    d = malloc((batch * M * N != 0 ? batch * M * N : 1) * sizeof *d);
    line = fl_ref_model_string(&m);
    if (d == NULL || line == NULL) {
        cli_error("ref: out of memory");
        goto out;
    }
    if (fl_ref_gemm(&m, &s, alpha, in[0].bits, in[1].bits, beta,
                    have_c ? cin.bits : NULL, d, o->threads, &flags, err,
                    sizeof err) != 0) {
        cli_error("ref: %s", err);
        goto out;
    }
    if (write_out(o, of, outdim, outshape, d, line, flags) != 0)
        goto out;
    rc = CLI_OK;
out:
    for (int i = 0; i < nload; i++)
        unload(&in[i]);
    if (have_c || cin.bits)
        unload(&cin);
    free(d);
    free(line);
    fl_ref_model_free(&m);
    return rc;
}

int cmd_ref(int argc, char **argv)
{
    opts o;
    int r = parse_opts(argc, argv, &o);
    if (r != 0)
        return r > 0 ? CLI_OK : CLI_USAGE;
    if (o.op >= 0)
        return run_elementwise(&o);
    if (o.op == OP_GEMM)
        return run_gemm(&o);
    return run_reduce(&o);
}
