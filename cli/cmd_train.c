/*
 * cmd_train.c — `fplab train`: train the MLP under a precision policy.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "amp_tc.h"
#include "amp.h"
#include "tensor.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab train [--policy P] [options]\n"
"\n"
"Trains an MLP with softmax cross-entropy on a labelled CSV (default: the\n"
"UCI optical digits in data/digits.csv.gz) and prints a log every N steps\n"
"and a summary (test accuracy, skipped steps, lost updates, scale).\n"
"\n"
"  --policy P        fp32 | o0 | fp16 | fp16-static:S | fp16-torch |\n"
"                    fp16-apex | o1 | o2 | o3 | bf16 | bf16-pure (fp32);\n"
"                    -iN after fp16-torch, fp16-apex, o1 or o2 sets the\n"
"                    growth interval, e.g. fp16-torch-i50;\n"
"                    simulated FP8/MX (GEMM inputs quantized, fp32 sums):\n"
"                    fp8-hybrid-delayed | fp8-hybrid-current |\n"
"                    fp8-e4m3-delayed | fp8-e4m3-current | mxfp8\n"
"  --accum A         low | fp32 | kahan | pairwise | block:MODEL |\n"
"                    block16:MODEL (fp32).  low: every partial sum rounded\n"
"                    into the compute format (an fp16 accumulator for fp16);\n"
"                    MODEL: a tensor-core model, e.g. h100-fp16, a100-bf16,\n"
"                    its blocks chained in binary32 (block:) or binary16\n"
"                    (block16:, an MMA with fp16 accumulation)\n"
"  --opt-state FMT   format of the optimizer state (momentum, Adam m and v;\n"
"                    default: that of the weights the optimizer updates)\n"
"  --update-rounding rne|sr\n"
"                    rounding of w + dw into the weight format without a\n"
"                    master copy (rne; sr: stochastic, seeded by --seed)\n"
"  --depth N         linear layers (3)        --width N    hidden units (64)\n"
"  --act A           relu | tanh | gelu (relu)\n"
"  --optimizer O     sgd | adam (sgd)         --lr X       (0.05; adam 1e-3)\n"
"  --momentum X      sgd momentum (0.9)\n"
"  --steps N         optimizer steps (300)    --batch N    global batch (64)\n"
"  --ranks R         simulated data-parallel ranks; found_inf OR-reduced (1)\n"
"  --seed N          init, split and batch order (1)\n"
"  --loss mean|sum   reduction of the loss over the batch (mean)\n"
"  --loss-weight W   multiplies the binary32 loss and so every gradient (1):\n"
"                    the 1/N of a mean over N accumulated micro-batches or an\n"
"                    auxiliary loss's coefficient; with sgd, --lr X/W keeps\n"
"                    binary32 training the same\n"
"  --init-gain X     multiplies the He/Xavier init std (1)\n"
"  --init-std X      every weight drawn with std X instead (GPT-2: 0.02)\n"
"  --micro-batches K gradient accumulation: K micro-batches per step, each\n"
"                    loss divided by K, gradients summed (1)\n"
"  --init-scale X    scaler initial scale (65536 for torch/apex)\n"
"  --growth-interval N\n"
"                    torch growth_interval / apex scale window (2000);\n"
"                    --interval is the same option\n"
"  --growth X, --backoff X, --max-scale X, --min-scale X   scaler knobs\n"
"  --data FILE       CSV or CSV.gz: features then label per line (default:\n"
"                    the digits in SHARE/data, see 'fplab lab --help')\n"
"  --text FILE       a next-character task from a text instead of --data\n"
"                    (letters lower-cased, whitespace runs one space)\n"
"  --context N       characters of context per row for --text (8)\n"
"  --label first|last   label column (last)\n"
"  --feature-scale X features are divided by X (16; 0 = by the maximum)\n"
"  --test-frac X     held-out fraction (0.2)\n"
"  --target FMT      format for the range statistics (compute format; fp16\n"
"                    when the policy computes in fp32)\n"
"  --measure         per-layer gradient range statistics in --out\n"
"  --log-every N     log line every N steps (steps/10)\n"
"  --eval-every N    test accuracy every N steps (0: end only)\n"
"  --out FILE        per-step data with a '#' header (written atomically)\n"
"  --hist-out FILE   per step, layer and kind (weight / activation gradient):\n"
"                    histogram of log2|g| as computed (2^-64 .. 2^20, zeros\n"
"                    apart), with a '#' header (written atomically)\n"
"  --dump-grads FILE the last step's weight gradients, every layer one after\n"
"                    the other, divided by that step's loss scale, as a\n"
"                    binary32 NumPy .npy of shape (N,) (.npz or .safetensors\n"
"                    by name, key grads): input for 'fplab hist'\n"
"\n"
"exit status: 0 success, 2 bad usage or bad data.\n");
}

/* Options that take a value (unknown ones are reported as such, before
 * any complaint about a missing value). */
static const char *const value_opts[] = {
    "--accum", "--act", "--backoff", "--batch", "--context", "--data",
    "--depth", "--init-std", "--micro-batches", "--opt-state", "--text",
    "--update-rounding",
    "--eval-every", "--feature-scale", "--growth", "--growth-interval",
    "--interval", "--dump-grads",
    "--init-gain", "--init-scale", "--label", "--log-every", "--loss",
    "--loss-weight", "--lr", "--max-scale", "--min-scale", "--momentum",
    "--optimizer", "--out", "--hist-out", "--policy", "--ranks", "--seed", "--steps",
    "--target", "--test-frac", "--width", NULL};

/* --hist-out: one row per step, layer and kind, written as training goes
 * (the output is committed only when the run finishes).  --dump-grads:
 * the weight gradients of step dump_step, kept until the run ends. */
enum { HIST_LO = -64, HIST_HI = 20 };

struct hist_state {
    FILE *fp;
    amp_hist h;
    int dump_step;      /* -1: no dump */
    float *dump;
    size_t ndump;
    int dump_oom;
};

static void hist_row(struct hist_state *st, int step, int layer, char kind,
                     float scale, const float *g, size_t n)
{
    amp_hist_reset(&st->h);
    amp_hist_add(&st->h, g, n, 1.0f);
    fprintf(st->fp, "%d %d %c %.9g %" PRIu64 " %" PRIu64 " %" PRIu64
            " %" PRIu64 " %" PRIu64, step, layer, kind, (double)scale,
            st->h.total, st->h.zeros, st->h.nonfinite, st->h.below,
            st->h.above);
    for (int k = 0; k < HIST_HI - HIST_LO; k++)
        fprintf(st->fp, " %" PRIu64, st->h.bins[k]);
    fputc('\n', st->fp);
}

static void hist_step(void *user, const amp_step_view *v)
{
    struct hist_state *st = user;
    if (st->fp)
        for (int l = 0; l < v->layers; l++) {
            hist_row(st, v->step, l, 'w', v->scale_used, v->wgrad[l],
                     v->wgrad_n[l]);
            hist_row(st, v->step, l, 'a', v->scale_used, v->agrad[l],
                     v->agrad_n[l]);
        }
    if (v->step != st->dump_step)
        return;
    size_t n = 0;
    for (int l = 0; l < v->layers; l++)
        n += v->wgrad_n[l];
    free(st->dump);
    st->dump = malloc(n ? n * sizeof *st->dump : 1);
    st->ndump = 0;
    if (!st->dump) {
        st->dump_oom = 1;
        return;
    }
    /* unscaled: g / S in binary64, then rounded once to binary32 (exact for
     * a power-of-two S unless the quotient leaves binary32's normal range) */
    for (int l = 0; l < v->layers; l++)
        for (size_t i = 0; i < v->wgrad_n[l]; i++)
            st->dump[st->ndump++] =
                (float)((double)v->wgrad[l][i] / (double)v->scale_used);
}

/* The dump: a binary32 vector as a .npy (or an .npz or .safetensors,
 * key "grads", when the name says so) into the open temp file. */
static int write_dump(FILE *fp, const char *path, float *x, size_t n)
{
    tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = TENSOR_F32;
    t.ndim = 1;
    t.shape[0] = t.n = n;
    t.data = (unsigned char *)x;
    const tensor *tp = &t;
    const char *key = "grads";
    char err[512];
    if (tensor_write_fp(fp, path, &tp, &key, 1, TENSOR_WRITE_NPY_ANY, err,
                        sizeof err))
        return cli_error("train: --dump-grads: %s", err), -1;
    return 0;
}

static int need(int i, int argc, char **argv)
{
    int known = 0;
    for (int k = 0; value_opts[k]; k++)
        known |= !strcmp(argv[i], value_opts[k]);
    if (!known) {
        cli_error("train: unknown option '%s' (see --help)", argv[i]);
        return -1;
    }
    if (i + 1 >= argc) {
        cli_error("train: %s needs a value", argv[i]);
        return -1;
    }
    return 0;
}

static int num(const char *opt, const char *s, double *v)
{
    if (cli_parse_double(s, v) || !isfinite(*v)) {
        cli_error("train: %s: '%s' is not a number", opt, s);
        return -1;
    }
    return 0;
}

static int inum(const char *opt, const char *s, int lo, int hi, int *v)
{
    uint64_t u;
    if (cli_parse_u64(s, &u) || u < (uint64_t)lo || u > (uint64_t)hi) {
        cli_error("train: %s: '%s' is not an integer in %d..%d", opt, s, lo,
                  hi);
        return -1;
    }
    *v = (int)u;
    return 0;
}

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static const char *accum_label(const amp_accum *a)
{
    return a->kind == AMP_ACC_BLOCK && a->block_acc16 ? "block16"
                                                      : amp_accum_name(a->kind);
}

int cmd_train(int argc, char **argv)
{
    amp_train_config c;
    amp_train_config_default(&c);
    char err[512];
    const char *policy = "fp32", *out_path = NULL, *accum = NULL,
               *hist_path = NULL, *dump_path = NULL;
    char default_data[4200];
    c.data_path = NULL;   /* --data, else SHARE/data/digits.csv.gz */
    int log_every = -1, lr_set = 0;
    double init_scale = -1, growth = -1, backoff = -1, max_scale = -1,
           min_scale = -1;
    int interval = -1;
    fl_format target, state_fmt;
    int have_target = 0, have_state = 0, context = 8, update_rm = FL_RNE;
    const char *text_path = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        if (!strcmp(a, "--measure")) {
            c.measure = 1;
            continue;
        }
        if (strncmp(a, "--", 2)) {
            usage(stderr);
            return cli_error("train: unexpected argument '%s'", a);
        }
        if (need(i, argc, argv))
            return CLI_USAGE;
        const char *v = argv[++i];
        if (!strcmp(a, "--policy")) policy = v;
        else if (!strcmp(a, "--accum")) accum = v;
        else if (!strcmp(a, "--depth")) { if (inum(a, v, 1, 64, &c.depth)) return CLI_USAGE; }
        else if (!strcmp(a, "--width")) { if (inum(a, v, 1, 65536, &c.width)) return CLI_USAGE; }
        else if (!strcmp(a, "--steps")) { if (inum(a, v, 0, 100000000, &c.steps)) return CLI_USAGE; }
        else if (!strcmp(a, "--batch")) { if (inum(a, v, 1, 1 << 20, &c.batch)) return CLI_USAGE; }
        else if (!strcmp(a, "--ranks")) { if (inum(a, v, 1, 32, &c.ranks)) return CLI_USAGE; }
        else if (!strcmp(a, "--log-every")) { if (inum(a, v, 1, 100000000, &log_every)) return CLI_USAGE; }
        else if (!strcmp(a, "--eval-every")) { if (inum(a, v, 0, 100000000, &c.eval_every)) return CLI_USAGE; }
        else if (!strcmp(a, "--growth-interval") || !strcmp(a, "--interval")) { if (inum(a, v, 1, 2147483647, &interval)) return CLI_USAGE; }
        else if (!strcmp(a, "--seed")) {
            if (cli_parse_u64(v, &c.seed))
                return cli_error("train: --seed: '%s' is not an unsigned integer", v);
        }
        else if (!strcmp(a, "--lr")) { if (num(a, v, &c.lr)) return CLI_USAGE; lr_set = 1; }
        else if (!strcmp(a, "--momentum")) { if (num(a, v, &c.momentum)) return CLI_USAGE; }
        else if (!strcmp(a, "--init-gain")) { if (num(a, v, &c.init_gain)) return CLI_USAGE; }
        else if (!strcmp(a, "--init-std")) {
            if (num(a, v, &c.init_std)) return CLI_USAGE;
            if (!(c.init_std > 0) || !isfinite(c.init_std))
                return cli_error("train: --init-std: '%s' must be positive", v);
        }
        else if (!strcmp(a, "--micro-batches")) { if (inum(a, v, 1, 4096, &c.micro_batches)) return CLI_USAGE; }
        else if (!strcmp(a, "--context")) { if (inum(a, v, 1, 64, &context)) return CLI_USAGE; }
        else if (!strcmp(a, "--text")) text_path = v;
        else if (!strcmp(a, "--opt-state")) {
            if (cli_parse_format(v, &state_fmt, "--opt-state"))
                return CLI_USAGE;
            have_state = 1;
        }
        else if (!strcmp(a, "--update-rounding")) {
            if (!strcmp(v, "rne")) update_rm = FL_RNE;
            else if (!strcmp(v, "sr")) update_rm = FL_RSR;
            else return cli_error("train: --update-rounding: '%s' (rne sr)", v);
        }
        else if (!strcmp(a, "--loss-weight")) {
            if (num(a, v, &c.loss_weight))
                return CLI_USAGE;
            float wf = (float)c.loss_weight;
            if (!(wf > 0) || !isfinite(wf))
                return cli_error("train: --loss-weight: '%s' must be positive "
                                 "and a finite nonzero binary32 value", v);
        }
        else if (!strcmp(a, "--test-frac")) { if (num(a, v, &c.test_frac)) return CLI_USAGE; }
        else if (!strcmp(a, "--feature-scale")) { if (num(a, v, &c.feature_scale)) return CLI_USAGE; }
        else if (!strcmp(a, "--init-scale")) { if (num(a, v, &init_scale)) return CLI_USAGE; }
        else if (!strcmp(a, "--growth")) { if (num(a, v, &growth)) return CLI_USAGE; }
        else if (!strcmp(a, "--backoff")) { if (num(a, v, &backoff)) return CLI_USAGE; }
        else if (!strcmp(a, "--max-scale")) { if (num(a, v, &max_scale)) return CLI_USAGE; }
        else if (!strcmp(a, "--min-scale")) { if (num(a, v, &min_scale)) return CLI_USAGE; }
        else if (!strcmp(a, "--act")) {
            if ((c.activation = amp_act_parse(v)) < 0)
                return cli_error("train: --act: '%s' (relu tanh gelu)", v);
        } else if (!strcmp(a, "--optimizer")) {
            if ((c.optimizer = amp_opt_parse(v)) < 0)
                return cli_error("train: --optimizer: '%s' (sgd adam)", v);
        } else if (!strcmp(a, "--loss")) {
            if (!strcmp(v, "mean")) c.loss_reduction = AMP_LOSS_MEAN;
            else if (!strcmp(v, "sum")) c.loss_reduction = AMP_LOSS_SUM;
            else return cli_error("train: --loss: '%s' (mean sum)", v);
        } else if (!strcmp(a, "--label")) {
            if (!strcmp(v, "first")) c.label_pos = AMP_LABEL_FIRST;
            else if (!strcmp(v, "last")) c.label_pos = AMP_LABEL_LAST;
            else return cli_error("train: --label: '%s' (first last)", v);
        } else if (!strcmp(a, "--data")) c.data_path = v;
        else if (!strcmp(a, "--out")) out_path = v;
        else if (!strcmp(a, "--hist-out")) hist_path = v;
        else if (!strcmp(a, "--dump-grads")) dump_path = v;
        else if (!strcmp(a, "--target")) {
            if (cli_parse_format(v, &target, "--target"))
                return CLI_USAGE;
            have_target = 1;
        } else {
            usage(stderr);
            return cli_error("train: unknown option '%s'", a);
        }
    }
    if (amp_policy_parse(&c.policy, policy, err, sizeof err))
        return cli_error("train: --policy: %s", err);
    if (have_state)
        c.policy.state = &state_fmt;
    c.policy.update_rm = update_rm;
    if (text_path && c.data_path)
        return cli_error("train: --text and --data are two data sets: give one");
    if (text_path) {
        c.data_path = text_path;
        c.text_context = context;
    } else if (c.data_path == NULL) {
        const char *how, *share = cli_share_dir(&how);
        if (share == NULL)
            return cli_error("train: cannot find the digits data set: %s (or "
                             "give --data FILE)", how);
        snprintf(default_data, sizeof default_data, "%s/data/digits.csv.gz",
                 share);
        c.data_path = default_data;
    }
    if (accum && (!strncmp(accum, "block:", 6) || !strncmp(accum, "block16:", 8))) {
        int a16 = accum[5] == '1';
        const char *mn = accum + (a16 ? 8 : 6);
        if (a16 ? amp_accum_set_tc16(&c.policy.accum, mn)
                : amp_accum_set_tc(&c.policy.accum, mn))
            return cli_error("train: --accum: unknown tensor-core model '%s' "
                             "(v100-fp16 a100-fp16 a100-bf16 a100-tf32 "
                             "h100-fp16 h100-bf16 h100-tf32)", mn);
    } else if (accum) {
        int k = amp_accum_parse(accum);
        if (k < 0 || k == AMP_ACC_BLOCK)
            return cli_error("train: --accum: '%s' (low fp32 kahan pairwise "
                             "block:MODEL block16:MODEL)", accum);
        c.policy.accum.kind = k;
    }
    amp_scaler_config *sc = &c.policy.scaler;
    if (init_scale >= 0) sc->init_scale = init_scale;
    if (growth >= 0) sc->growth_factor = growth;
    if (backoff >= 0) sc->backoff_factor = backoff;
    if (interval >= 0) sc->growth_interval = interval;
    if (max_scale >= 0) sc->max_scale = max_scale;
    if (min_scale >= 0) sc->min_scale = min_scale;
    if (c.optimizer == AMP_OPT_ADAM && !lr_set)
        c.lr = 1e-3;
    if (have_target)
        c.target = &target;
    if (log_every < 0)
        log_every = c.steps >= 10 ? c.steps / 10 : 1;

    struct hist_state hs = {NULL, {0}, -1, NULL, 0, 0};
    cli_out ho;
    if (dump_path) {
        if (c.steps < 1)
            return cli_error("train: --dump-grads: needs at least one step "
                             "(--steps 0)");
        hs.dump_step = c.steps - 1;
        c.on_step = hist_step;
        c.user = &hs;
    }
    if (hist_path) {
        if (amp_hist_init(&hs.h, HIST_LO, HIST_HI))
            return cli_error("train: out of memory");
        if (cli_out_open(&ho, hist_path)) {
            amp_hist_free(&hs.h);
            return CLI_USAGE;
        }
        hs.fp = ho.fp;
        fprintf(hs.fp, "# fplab %s train --hist-out\n", FPLAB_VERSION);
        fprintf(hs.fp, "# seed %" PRIu64 " policy %s compute %s depth %d "
                "width %d steps %d batch %d lr %.17g loss_weight %.17g\n",
                c.seed, policy, c.policy.compute->name, c.depth, c.width,
                c.steps, c.batch, c.lr, c.loss_weight);
        fprintf(hs.fp, "# gradients as computed, i.e. multiplied by the loss "
                "scale of the step (kind w: weight gradient after the "
                "all-reduce; a: gradient of the layer's output)\n");
        fprintf(hs.fp, "# bin k counts 2^(%d+k) <= |g| < 2^(%d+k+1); below: "
                "0 < |g| < 2^%d; above: |g| >= 2^%d\n", HIST_LO, HIST_LO,
                HIST_LO, HIST_HI);
        fprintf(hs.fp, "# step layer kind scale total zeros nonfinite below "
                "above bins[%d..%d]\n", HIST_LO, HIST_HI - 1);
        c.on_step = hist_step;
        c.user = &hs;
    }

    amp_train_result r;
    if (amp_train_run(&c, &r, err, sizeof err)) {
        if (hist_path) {
            cli_out_abort(&ho);
            amp_hist_free(&hs.h);
        }
        free(hs.dump);
        return cli_error("train: %s", err);
    }
    if (dump_path) {
        cli_out d;
        int bad = hs.dump_oom || !hs.dump;
        if (bad)
            cli_error("train: --dump-grads: out of memory");
        else if (cli_out_open(&d, dump_path))
            bad = 1;
        else if (write_dump(d.fp, dump_path, hs.dump, hs.ndump)) {
            cli_out_abort(&d);
            bad = 1;
        } else if (cli_out_commit(&d))
            bad = 1;
        free(hs.dump);
        if (bad) {
            if (hist_path) {
                cli_out_abort(&ho);
                amp_hist_free(&hs.h);
            }
            amp_train_result_free(&r);
            return CLI_USAGE;
        }
    }
    if (hist_path) {
        int bad = cli_out_commit(&ho);
        amp_hist_free(&hs.h);
        if (bad) {
            amp_train_result_free(&r);
            return CLI_USAGE;
        }
    }

    const fl_format *tf = c.target ? c.target
        : amp_format_is_f32(c.policy.compute) ? &fl_binary16
                                              : c.policy.compute;
    printf("policy %s: compute %s, weights %s%s, accum %s, scaler %s; "
           "%d x %d %s, %s lr %g, loss weight %g, batch %d x %d rank(s), "
           "%zu train / %zu test rows\n",
           c.policy.name, c.policy.compute->name, c.policy.param->name,
           c.policy.master ? " + fp32 master" : "",
           accum_label(&c.policy.accum),
           amp_scaler_kind_name(c.policy.scaler.kind), c.depth, c.width,
           amp_act_name(c.activation), amp_opt_name(c.optimizer), c.lr,
           c.loss_weight, c.batch / c.ranks, c.ranks, r.n_train, r.n_test);
    /* the options the policy names do not say, when one is given */
    if (c.policy.state || c.policy.update_rm != FL_RNE || c.micro_batches > 1 ||
        c.text_context > 0 || c.init_std > 0 || c.policy.accum.block_acc16)
        printf("optimizer state %s, weight updates rounded %s, accumulation %s%s%s\n",
           c.policy.state ? c.policy.state->name
                          : (c.policy.master ? fl_binary32.name : c.policy.param->name),
           c.policy.update_rm == FL_RSR ? "stochastically" : "to nearest even",
           accum_label(&c.policy.accum),
           c.micro_batches > 1 ? ", micro-batches " : "",
           c.micro_batches > 1 ? "yes" : "");
    const amp_gemm_quant *gq = &c.policy.gq;
    if (gq->kind != AMP_GQ_NONE)
        printf("GEMM inputs: activations and weights %s, output gradients %s, "
               "%s; sums in binary32\n", gq->fwd.name, gq->bwd.name,
               gq->kind == AMP_GQ_DELAYED ? "delayed scaling (amax history "
               "1024, max)" : gq->kind == AMP_GQ_CURRENT ? "current scaling"
               : "blocks along the reduction axis");
    printf("%8s %12s %12s %5s %10s\n", "step", "loss", "scale", "skip",
           "lost-upd");
    uint64_t upd = 0, lost = 0;
    for (int s = 0; s < r.steps; s++) {
        const amp_step_record *e = &r.rec[s];
        upd += e->updates;
        lost += e->lost;
        if ((s + 1) % log_every == 0 || s == r.steps - 1)
            printf("%8d %12.6g %12.6g %5d %10.4g\n", s + 1, (double)e->loss,
                   (double)e->scale_used, e->skipped,
                   frac(e->lost, e->updates));
    }
    printf("summary: final loss %.6g, test accuracy %.4f, skipped steps %d, "
           "final scale %g, lost updates %.4g%%%s\n",
           r.final_loss, r.final_test_acc, r.skipped_steps,
           r.steps ? (double)r.rec[r.steps - 1].scale_after : 1.0,
           100.0 * frac(lost, upd), r.diverged ? ", DIVERGED (non-finite loss)" : "");
    if (gq->kind != AMP_GQ_NONE) {
        static const char *const kn[AMP_GQ_TENSORS] = {"activations", "weights",
                                                       "output gradients"};
        printf("quantized GEMM inputs, all steps:");
        for (int k = 0; k < AMP_GQ_TENSORS; k++) {
            uint64_t nz = 0, uf = 0, sat = 0;
            for (int s = 0; s < r.steps; s++) {
                nz += r.rec[s].quant[k].nonzero;
                uf += r.rec[s].quant[k].underflow;
                sat += r.rec[s].quant[k].saturated;
            }
            printf("%s %s %.4g%% flushed to zero, %.4g%% saturated", k ? ";" : "",
                   kn[k], 100.0 * frac(uf, nz), 100.0 * frac(sat, nz));
        }
        printf(" (of the nonzero values)\n");
    }

    int rc = CLI_OK;
    if (out_path) {
        cli_out o;
        if (cli_out_open(&o, out_path)) {
            amp_train_result_free(&r);
            return CLI_USAGE;
        }
        FILE *fp = o.fp;
        fprintf(fp, "# fplab %s train\n", FPLAB_VERSION);
        fprintf(fp, "# seed %" PRIu64 " policy %s compute %s param %s master %d "
                "accum %s scaler %s init_scale %.17g interval %d\n",
                c.seed, c.policy.name, c.policy.compute->name,
                c.policy.param->name, c.policy.master,
                accum_label(&c.policy.accum),
                amp_scaler_kind_name(sc->kind), sc->init_scale,
                (int)sc->growth_interval);
        fprintf(fp, "# depth %d width %d act %s optimizer %s lr %.17g "
                "momentum %.17g steps %d batch %d ranks %d loss %s "
                "init_gain %.17g loss_weight %.17g test_frac %.17g target %s\n",
                c.depth, c.width, amp_act_name(c.activation),
                amp_opt_name(c.optimizer), c.lr, c.momentum, c.steps,
                c.batch, c.ranks,
                c.loss_reduction == AMP_LOSS_MEAN ? "mean" : "sum",
                c.init_gain, c.loss_weight, c.test_frac, tf->name);
        fprintf(fp, "# opt_state %s update_rounding %s init_std %.17g "
                "micro_batches %d text_context %d\n",
                c.policy.state ? c.policy.state->name : "as-weights",
                c.policy.update_rm == FL_RSR ? "sr" : "rne", c.init_std,
                c.micro_batches, c.text_context);
        fprintf(fp, "# train_rows %zu test_rows %zu params %zu "
                "final_test_acc %.6f skipped %d\n", r.n_train, r.n_test,
                r.n_params, r.final_test_acc, r.skipped_steps);
        fprintf(fp, "# step loss scale_used scale_after skipped rank_inf "
                "updates lost test_acc");
        if (r.layer)
            for (int l = 0; l < r.layers; l++)
                fprintf(fp, " L%d_w_zero L%d_w_underflow L%d_w_subnormal "
                        "L%d_w_overflow L%d_a_zero L%d_a_underflow "
                        "L%d_a_subnormal L%d_a_overflow", l, l, l, l, l, l,
                        l, l);
        fputc('\n', fp);
        for (int s = 0; s < r.steps; s++) {
            const amp_step_record *e = &r.rec[s];
            fprintf(fp, "%d %.9g %.9g %.9g %d %" PRIu32 " %" PRIu64 " %"
                    PRIu64 " %.6f", e->step, (double)e->loss,
                    (double)e->scale_used, (double)e->scale_after,
                    e->skipped, e->rank_inf, e->updates, e->lost,
                    e->test_acc);
            if (r.layer)
                for (int l = 0; l < r.layers; l++) {
                    const amp_layer_record *q = &r.layer[(size_t)s * r.layers + l];
                    const amp_range_stats *w = &q->wgrad, *g = &q->agrad;
                    fprintf(fp, " %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g",
                            frac(w->zero_fp32, w->total),
                            frac(w->underflow, w->total),
                            frac(w->subnormal, w->total),
                            frac(w->overflow, w->total),
                            frac(g->zero_fp32, g->total),
                            frac(g->underflow, g->total),
                            frac(g->subnormal, g->total),
                            frac(g->overflow, g->total));
                }
            fputc('\n', fp);
        }
        if (cli_out_commit(&o))
            rc = CLI_USAGE;
    }
    amp_train_result_free(&r);
    return rc;
}
