/*
 * cmd_reveal.c — `fplab reveal sum|dot|gemm ... --model-out FILE -- CMD
 * ARGS...`: the arithmetic model of a black-box kernel (fplab/reveal.h).
 * The kernel is a command run per call (reading .npy inputs, writing a
 * .npy output), a server started once (--serve, a line protocol), or a
 * shared library's function (--kernel-lib PATH:SYMBOL): reveal_kernel.c.
 * A kernel that fails, crashes, hangs past --timeout or writes the wrong
 * shape or dtype stops the reveal (exit 2, its last lines of output
 * shown).  The model file is written (atomically) only when the model
 * replays every validation case.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fplab/reveal.h"
#include "reveal_kernel.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab reveal sum|dot|gemm --n N [--m M --k K] --dtype D\n"
"                    --model-out FILE [options] -- CMD ARGS...\n"
"       fplab reveal ... --serve -- CMD ARGS...\n"
"       fplab reveal ... --kernel-lib LIB.so:SYMBOL [--kernel-arg S]\n"
"\n"
"Find the arithmetic model (order, accumulator, rounding, fused products,\n"
"block FMA, subnormals, output rounding, NaN rule) that reproduces a kernel\n"
"bit for bit, check it on fresh random and adversarial inputs, and write it\n"
"as a model file for `fplab ref --model`.\n"
"\n"
"The kernel is CMD ARGS, run once per call: in ARGS, {in}, {in2} and {out}\n"
"are replaced by .npy paths.  It reads {in} (and {in2}) and writes {out}:\n"
"  sum   {in} (R, N)              -> {out} (R,)   the sum along the last axis\n"
"  dot   {in}, {in2} (R, N)       -> {out} (R,)   row-wise dot products\n"
"  gemm  {in} A (M, K), {in2} B (K, N) -> {out} C (M, N) = A @ B\n"
"With --batch B every array gets a leading axis of B.  R is chosen by\n"
"reveal (--rows fixes it).  A gemm kernel called 2-D is tried once with a\n"
"leading batch axis (3-D arrays of B matrices, B chosen by reveal): when\n"
"it gives what the 2-D call gave, calls carry many matrices (--no-batch:\n"
"never).  float32 and float16 travel as numpy's dtypes, bfloat16 as\n"
"uint16 bit patterns; the output's dtype (float32, float16, float64, or\n"
"uint16 = bfloat16) is the output format.  With --serve, CMD ARGS start\n"
"once and answer a line per call: fplab writes\n"
"  call<TAB>INDEX<TAB>OP<TAB>DTYPE<TAB>IN<TAB>IN2 or -<TAB>OUT\n"
"on its stdin, it writes OUT and answers `ok` (or `error MESSAGE`) on its\n"
"stdout; `quit` at the end.  With --kernel-lib, LIB.so's SYMBOL is an\n"
"fl_reveal_kernel (fplab/reveal.h), run in a worker process started once.\n"
"\n"
"options:\n"
"  --n N            sum, dot: terms per output element; gemm: columns of B\n"
"  --m M --k K      gemm: A is M x K\n"
"  --dtype D        float32, float16 or bfloat16 (the inputs)\n"
"  --model-out FILE where the model goes (only when it replays every case)\n"
"  --batch B        3-D calls with a leading batch axis of B\n"
"  --no-batch       gemm: every call 2-D (no batch trial)\n"
"  --rows R         sum, dot: exactly R rows per call (default: as many as\n"
"                   fit --max-elems)\n"
"  --serve          CMD ARGS is a server (the line protocol above)\n"
"  --kernel-lib LIB.so:SYMBOL   the kernel is a library function\n"
"  --kernel-arg S   the string the library function gets as `user`\n"
"  --timeout S      seconds per kernel call before its process group is\n"
"                   killed (default 300)\n"
"  --validate C     validation cases (rows; gemm: output elements), default\n"
"                   100000\n"
"  --validate-calls V  at most V calls of validation inputs (default 20; 0:\n"
"                   no limit); fewer cases than --validate when calls are\n"
"                   small (the count is printed)\n"
"  --lengths L,...  more lengths (sum, dot: n; gemm: k) to reveal the tree\n"
"                   at: the order written must fit every one (default: n+1\n"
"                   and a longer one when the tree at n is no named order)\n"
"  --seed S         seed of the random inputs (default 1)\n"
"  --max-elems E    input elements per operand and call (default 16777216)\n"
"  --plot DIR       the tree as a gnuplot figure DIR/reveal_tree.png\n"
"  --threads T      threads of the reference (default: all cores)\n"
"\n"
"Exit status: 0 model found and written; 1 the kernel is nondeterministic,\n"
"its tree cannot be revealed, or no model replays it (the closest model\n"
"and the first counterexample are printed); 2 bad usage, or the kernel\n"
"failed, crashed, hung, or wrote the wrong shape or dtype (nothing\n"
"written).\n");
}

/* ------------------------------------------------------------------------
 * The figure.
 * ---------------------------------------------------------------------- */
static void gp_escape(char *dst, size_t len, const char *src)
{
    size_t w = 0;
    for (; *src && w + 3 < len; src++) {
        unsigned char c = (unsigned char)*src;
        if (c == '"' || c == '\\')
            dst[w++] = '\\';
        dst[w++] = c < 0x20 ? ' ' : (char)c;
    }
    dst[w] = '\0';
}

/* DIR/reveal_tree.dat, .gp and .png.  Top: the tree as a dendrogram, its
 * terms left to right in the tree's own order (so no edges cross), each
 * addition at the height of its longest path down to a term, over the
 * middle of its operands, fused additions in another colour.  Bottom:
 * which term sits at each position.  0, 1 when no PNG (a warning), -1
 * when the files cannot be written. */
static int write_plot(const char *dir, const fl_reveal_tree *t,
                      const char *title, const char *subtitle, char *png,
                      size_t pnglen)
{
    char dat[PATH_MAX + 32], gp[PATH_MAX + 32], tt[600], st[600];
    size_t tot = t->n + t->nnodes, maxh = 0, next = 0, sp = 0;
    double *x = malloc(tot * sizeof *x);
    size_t *h = malloc(tot * sizeof *h), *stk = malloc((tot + 1) * sizeof *stk);
    cli_out o;
    int fused = 0, binary = 0;
    if (x == NULL || h == NULL || stk == NULL) {
        free(x);
        free(h);
        free(stk);
        return cli_error("reveal: --plot: out of memory"), -1;
    }
    if (cli_mkdir_p(dir, "reveal: --plot")) {
        free(x);
        free(h);
        free(stk);
        return -1;
    }
    snprintf(dat, sizeof dat, "%s/reveal_tree.dat", dir);
    snprintf(gp, sizeof gp, "%s/reveal_tree.gp", dir);
    snprintf(png, pnglen, "%s/reveal_tree.png", dir);
    /* the terms' positions: depth first, children in order */
    stk[sp++] = tot - 1;
    while (sp) {
        size_t r = stk[--sp];
        if (r < t->n) {
            x[r] = (double)next++;
            continue;
        }
        for (size_t q = t->first[r - t->n + 1]; q-- > t->first[r - t->n];)
            stk[sp++] = t->kids[q];
    }
    free(stk);
    for (size_t i = 0; i < t->n; i++)
        h[i] = 0;
    for (size_t j = 0; j < t->nnodes; j++) {
        double lo = 1e300, hi = -1e300;
        size_t m = 0;
        for (size_t q = t->first[j]; q < t->first[j + 1]; q++) {
            size_t c = t->kids[q];
            lo = x[c] < lo ? x[c] : lo;
            hi = x[c] > hi ? x[c] : hi;
            m = h[c] > m ? h[c] : m;
        }
        x[t->n + j] = 0.5 * (lo + hi);
        h[t->n + j] = m + 1;
        if (m + 1 > maxh)
            maxh = m + 1;
        if (t->first[j + 1] - t->first[j] > 2)
            fused = 1;
        else
            binary = 1;
    }
    if (cli_out_open(&o, dat)) {
        free(x);
        free(h);
        return -1;
    }
    fprintf(o.fp, "# fplab %s reveal: the summation tree of %zu terms; "
            "blocks: (0) two-operand additions, (1) fused multi-term additions "
            "(segments: position height), (2) the terms (position 0), (3) "
            "position and term index\n", FPLAB_VERSION, t->n);
    for (int pass = 0; pass < 2; pass++) {
        int any = 0;
        for (size_t j = 0; j < t->nnodes; j++) {
            int is_fused = t->first[j + 1] - t->first[j] > 2;
            double lo = 1e300, hi = -1e300, y = (double)h[t->n + j];
            if (is_fused != pass)
                continue;
            for (size_t q = t->first[j]; q < t->first[j + 1]; q++) {
                size_t c = t->kids[q];
                lo = x[c] < lo ? x[c] : lo;
                hi = x[c] > hi ? x[c] : hi;
                fprintf(o.fp, "%g %zu\n%g %g\n\n", x[c], h[c], x[c], y);
            }
            fprintf(o.fp, "%g %g\n%g %g\n\n", lo, y, hi, y);
            any = 1;
        }
        if (!any)
            fprintf(o.fp, "nan nan\n\n");
        fprintf(o.fp, "\n");
    }
    for (size_t i = 0; i < t->n; i++)
        fprintf(o.fp, "%g 0\n", x[i]);
    fprintf(o.fp, "\n\n");
    for (size_t i = 0; i < t->n; i++)
        fprintf(o.fp, "%g %zu\n", x[i], i);
    fprintf(o.fp, "\n\n");
    if (cli_out_commit(&o)) {
        free(x);
        free(h);
        return -1;
    }
    free(x);
    free(h);
    if (cli_out_open(&o, gp))
        return -1;
    gp_escape(tt, sizeof tt, title);
    gp_escape(st, sizeof st, subtitle);
    fprintf(o.fp,
            "# fplab %s: the summation tree revealed by fplab reveal\n"
            "# usage: gnuplot -e \"out='reveal_tree.png'\" reveal_tree.gp (in "
            "this directory)\n"
            "if (!exists(\"out\")) out = 'reveal_tree.png'\n"
            "if (!exists(\"dat\")) dat = 'reveal_tree.dat'\n"
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size 1100,800 font 'sans,11'\n"
            "} else {\n  set terminal png size 1100,800\n}\n"
            "set output out\n", FPLAB_VERSION);
    {
        double x0 = -0.02 * (double)t->n - 0.6, x1 = 1.02 * (double)t->n - 0.4;
        fprintf(o.fp, "set multiplot title \"%s\\n%s\" noenhanced\n", tt, st);
        fprintf(o.fp, "set lmargin 11\nset rmargin 3\n");
        fprintf(o.fp, "set origin 0,0.3\nset size 1,0.64\nset bmargin 1\n"
                "set xrange [%g:%g]\nset yrange [-%g:%g]\n"
                "set format x ''\nset tics out\nset grid ytics lc rgb '#e0e0e0'\n"
                "set ylabel 'height (additions down to a term)'\n"
                "set key top left box opaque\n", x0, x1,
                0.04 * (double)maxh + 0.3, (double)maxh * 1.28 + 1);
        fprintf(o.fp, "plot ");
        if (binary)
            fprintf(o.fp, "dat index 0 with lines lw 1.2 lc rgb '#0072B2' title "
                    "'two-operand addition', \\\n     ");
        if (fused)
            fprintf(o.fp, "dat index 1 with lines lw 1.6 lc rgb '#D55E00' title "
                    "'fused multi-term addition', \\\n     ");
        fprintf(o.fp, "dat index 2 with points pt 7 ps %s lc rgb '#000000' "
                "title 'term'\n", t->n > 128 ? "0.25" : "0.6");
        fprintf(o.fp, "set origin 0,0\nset size 1,0.3\nset tmargin 0.5\n"
                "set bmargin 3.6\nset format x '%%g'\nset key off\n"
                "set yrange [-%g:%g]\nset grid xtics ytics lc rgb '#e0e0e0'\n"
                "set xlabel 'position in the tree (terms left to right as above)'\n"
                "set ylabel 'term index'\n"
                "plot dat index 3 with points pt 7 ps %s lc rgb '#009E73'\n"
                "unset multiplot\n",
                0.04 * (double)t->n + 0.5, 1.04 * (double)t->n,
                t->n > 128 ? "0.35" : "0.7");
    }
    if (cli_out_commit(&o))
        return -1;
    {
        char *gnuplot = cli_find_gnuplot(), tmp[PATH_MAX + 64];
        char qtmp[2 * PATH_MAX + 128], qdat[2 * PATH_MAX + 64];
        char expr[4 * PATH_MAX + 256], why[512];
        if (gnuplot == NULL) {
            fprintf(stderr, "fplab: reveal: warning: no gnuplot (PATH or "
                    "$FPLAB_GNUPLOT): wrote %s and %s, no PNG\n", dat, gp);
            return 1;
        }
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", png, (long)getpid());
        cli_gp_quote(qtmp, sizeof qtmp, tmp);
        cli_gp_quote(qdat, sizeof qdat, dat);
        snprintf(expr, sizeof expr, "out='%s'; dat='%s'", qtmp, qdat);
        int rc = cli_run_gnuplot(gnuplot, expr, gp, tmp, png, gp, why,
                                 sizeof why);
        free(gnuplot);
        if (rc) {
            fprintf(stderr, "fplab: reveal: warning: %s: no PNG\n", why);
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The command.
 * ---------------------------------------------------------------------- */
static void print_line(void *u, const char *line)
{
    (void)u;
    printf("%s\n", line);
    fflush(stdout);
}

static int parse_size(const char *opt, const char *v, size_t lo, size_t hi,
                      size_t *out)
{
    uint64_t x;
    if (cli_parse_u64(v, &x) != 0 || x < lo || x > hi)
        return cli_error("reveal: %s: '%s' is not an integer %zu..%zu", opt, v,
                         lo, hi), -1;
    *out = (size_t)x;
    return 0;
}

/* The command line as one line of text (for the model file's header). */
static void cmd_text(char *buf, size_t len, int argc, char **argv)
{
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && w + 4 < len; i++) {
        int quote = strpbrk(argv[i], " \t'\"") != NULL || argv[i][0] == '\0';
        w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? " " : "",
                              quote ? "'" : "");
        for (const char *p = argv[i]; *p && w + 3 < len; p++)
            buf[w++] = (unsigned char)*p < 0x20 ? '?' : *p;
        if (quote && w + 2 < len)
            buf[w++] = '\'';
        buf[w] = '\0';
    }
}

/* "L1,L2,..." into lengths (at most max); 0 or -1 with a message. */
static int parse_lengths(const char *v, size_t *len, size_t max, size_t *cnt)
{
    char *copy = strdup(v), *save = NULL;
    *cnt = 0;
    if (copy == NULL)
        return cli_error("reveal: out of memory"), -1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*cnt == max) {
            free(copy);
            return cli_error("reveal: --lengths: at most %zu lengths", max), -1;
        }
        if (parse_size("--lengths", t, 3, (size_t)1 << 30, &len[*cnt]) != 0) {
            free(copy);
            return -1;
        }
        (*cnt)++;
    }
    free(copy);
    if (*cnt == 0)
        return cli_error("reveal: --lengths: '%s' holds no length", v), -1;
    return 0;
}

int cmd_reveal(int argc, char **argv)
{
    fl_reveal_opts o;
    fl_reveal_result res;
    rk_kernel *kern;
    const char *model_out = NULL, *plot = NULL, *dtype = NULL;
    const char *lib = NULL, *lib_arg = NULL;
    size_t n = 0, m = 0, k = 0, lengths[8], nlengths = 0;
    int have_n = 0, have_m = 0, have_k = 0, dd = -1, rc, serve = 0;
    int kind = RK_COMMAND;
    double timeout = 300;
    char cmdline[1024], err[1024];

    fl_reveal_opts_init(&o);
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            dd = i;
            break;
        }
    /* options whose VALUE is kept as given, and counts in [lo, hi] */
    const cli_string_opt strings[] = {
        {"--dtype", &dtype}, {"--model-out", &model_out}, {"--plot", &plot},
        {"--kernel-lib", &lib}, {"--kernel-arg", &lib_arg},
    };
    const struct {
        const char *name;
        size_t lo, hi, *v;
        int *given;
    } counts[] = {
        {"--n", 1, (size_t)1 << 30, &n, &have_n},
        {"--m", 1, (size_t)1 << 24, &m, &have_m},
        {"--k", 1, (size_t)1 << 30, &k, &have_k},
        {"--batch", 1, (size_t)1 << 24, &o.batch, NULL},
        {"--rows", 1, (size_t)1 << 30, &o.rows, NULL},
        {"--validate", 1, (size_t)1 << 32, &o.validate, NULL},
        {"--validate-calls", 0, (size_t)1 << 30, &o.validate_calls, NULL},
        {"--max-elems", 16, (size_t)1 << 32, &o.call_elems, NULL},
    };
    const size_t ncounts = sizeof counts / sizeof counts[0];
    for (int i = 1; i < (dd < 0 ? argc : dd); i++) {
        const char *a = argv[i];
        const cli_string_opt *str =
            cli_string_opt_find(strings, sizeof strings / sizeof strings[0], a);
        size_t ci = 0;
        while (ci < ncounts && strcmp(a, counts[ci].name))
            ci++;
#define NEED() do { if (i + 1 >= (dd < 0 ? argc : dd)) \
            return cli_error("reveal: option %s needs a value", a); } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (str) {
            NEED();
            *str->value = argv[++i];
        } else if (ci < ncounts) {
            NEED();
            if (parse_size(a, argv[++i], counts[ci].lo, counts[ci].hi,
                           counts[ci].v))
                return CLI_USAGE;
            if (counts[ci].given)
                *counts[ci].given = 1;
        } else if (!strcmp(a, "--no-batch")) {
            o.batch_trial = 0;
        } else if (!strcmp(a, "--serve")) {
            serve = 1;
        } else if (!strcmp(a, "--lengths")) {
            NEED();
            if (parse_lengths(argv[++i], lengths, sizeof lengths /
                              sizeof lengths[0], &nlengths) != 0)
                return CLI_USAGE;
        } else if (!strcmp(a, "--seed")) {
            NEED();
            if (cli_parse_u64(argv[++i], &o.seed) != 0)
                return cli_error("reveal: --seed: '%s' is not an unsigned "
                                 "integer", argv[i]);
        } else if (!strcmp(a, "--threads")) {
            size_t t;
            NEED();
            if (parse_size(a, argv[++i], 1, 256, &t))
                return CLI_USAGE;
            o.nthreads = (int)t;
        } else if (!strcmp(a, "--timeout")) {
            NEED();
            if (cli_parse_double(argv[++i], &timeout) != 0 || !(timeout > 0) ||
                timeout > 1e6)
                return cli_error("reveal: --timeout: '%s' is not a number of "
                                 "seconds > 0", argv[i]);
        } else if (!strncmp(a, "--", 2) && strchr(a, '=')) {
            return cli_error("reveal: write options as '--opt VALUE', not '%s'",
                             a);
        } else if (a[0] == '-' && a[1] == '-') {
            return cli_error("reveal: unknown option '%s' (try 'fplab reveal "
                             "--help')", a);
        } else if (i == 1) {
            if (!strcmp(a, "sum"))
                o.op = FL_REF_OP_SUM;
            else if (!strcmp(a, "dot"))
                o.op = FL_REF_OP_DOT;
            else if (!strcmp(a, "gemm"))
                o.op = FL_REF_OP_GEMM;
            else
                return cli_error("reveal: unknown operation '%s' (sum, dot or "
                                 "gemm)", a);
        } else {
            return cli_error("reveal: unexpected argument '%s' before '--' (the "
                             "kernel command goes after '--')", a);
        }
#undef NEED
    }
    if (strcmp(argv[1], "sum") && strcmp(argv[1], "dot") && strcmp(argv[1], "gemm"))
        return cli_error("reveal: need an operation first: sum, dot or gemm");
    if (!have_n)
        return cli_error("reveal: need --n N (%s)", o.op == FL_REF_OP_GEMM
                         ? "the columns of B" : "the terms per output element");
    if (o.op == FL_REF_OP_GEMM && (!have_m || !have_k))
        return cli_error("reveal: gemm needs --m M and --k K (A is M x K, B is "
                         "K x N)");
    if (o.op != FL_REF_OP_GEMM && (have_m || have_k))
        return cli_error("reveal: --m and --k apply to gemm only");
    if (o.op == FL_REF_OP_GEMM && o.rows)
        return cli_error("reveal: --rows applies to sum and dot (gemm's rows "
                         "are --m)");
    if (o.op != FL_REF_OP_GEMM && !o.batch_trial)
        return cli_error("reveal: --no-batch applies to gemm (sum and dot "
                         "choose their rows per call)");
    if (o.batch && !o.batch_trial)
        return cli_error("reveal: --no-batch and --batch B contradict each "
                         "other (--batch fixes 3-D calls of B)");
    if (dtype == NULL)
        return cli_error("reveal: need --dtype float32, float16 or bfloat16");
    if (!strcmp(dtype, "float32") || !strcmp(dtype, "fp32") ||
        !strcmp(dtype, "binary32")) {
        dtype = "float32";
        o.in = fl_binary32;
    } else if (!strcmp(dtype, "float16") || !strcmp(dtype, "fp16") ||
               !strcmp(dtype, "binary16")) {
        dtype = "float16";
        o.in = fl_binary16;
    } else if (!strcmp(dtype, "bfloat16") || !strcmp(dtype, "bf16")) {
        dtype = "bfloat16";
        o.in = fl_bfloat16;
    } else {
        return cli_error("reveal: --dtype: '%s' is not float32, float16 or "
                         "bfloat16", dtype);
    }
    if (model_out == NULL)
        return cli_error("reveal: need --model-out FILE (where the model goes)");
    if (lib) {
        if (serve)
            return cli_error("reveal: --serve and --kernel-lib are two kinds of "
                             "kernel: give one");
        if (dd >= 0)
            return cli_error("reveal: --kernel-lib names the kernel: no command "
                             "after '--'");
        kind = RK_LIB;
    } else {
        if (lib_arg)
            return cli_error("reveal: --kernel-arg goes with --kernel-lib");
        if (dd < 0 || dd + 1 >= argc)
            return cli_error("reveal: need the kernel command after '--' (e.g. "
                             "-- python3 k.py {in} {out}), or --kernel-lib");
        kind = serve ? RK_SERVE : RK_COMMAND;
    }
    o.n = n;
    o.m = m;
    o.k = k;
    o.lengths = nlengths ? lengths : NULL;
    o.nlengths = nlengths;
    if (kind != RK_LIB) {
        int has_in = 0, has_in2 = 0, has_out = 0;
        char **kv = argv + dd + 1;
        int kn = argc - dd - 1;
        for (int i = 0; i < kn; i++) {
            has_in |= strstr(kv[i], "{in}") != NULL;
            has_in2 |= strstr(kv[i], "{in2}") != NULL;
            has_out |= strstr(kv[i], "{out}") != NULL;
        }
        if (serve && (has_in || has_in2 || has_out))
            return cli_error("reveal: --serve: the server learns the files from "
                             "its request lines; its command takes no {in}, "
                             "{in2} or {out}");
        if (!serve && (!has_in || !has_out))
            return cli_error("reveal: the kernel command must name its input "
                             "{in} and its output {out} in its arguments");
        if (!serve && o.op != FL_REF_OP_SUM && !has_in2)
            return cli_error("reveal: %s has two operands: the kernel command "
                             "must name {in2} too", argv[1]);
        if (!serve && o.op == FL_REF_OP_SUM && has_in2)
            return cli_error("reveal: sum has one operand: {in2} is not given "
                             "to the kernel");
    }
    /* a place for the model before any kernel runs */
    {
        cli_out probe;
        if (cli_out_open(&probe, model_out) != 0)
            return CLI_USAGE;
        cli_out_abort(&probe);
    }
    kern = rk_open(kind, kind == RK_LIB ? NULL : argv + dd + 1,
                   kind == RK_LIB ? 0 : argc - dd - 1, lib, lib_arg, dtype,
                   timeout, err, sizeof err);
    if (kern == NULL)
        return cli_error("reveal: %s", err);

    if (kind == RK_LIB)
        snprintf(cmdline, sizeof cmdline, "--kernel-lib %s%s%s", lib,
                 lib_arg ? " --kernel-arg " : "", lib_arg ? lib_arg : "");
    else {
        char c2[1024];
        cmd_text(c2, sizeof c2, argc - dd - 1, argv + dd + 1);
        snprintf(cmdline, sizeof cmdline, "%s%s", serve ? "--serve " : "", c2);
    }
    printf("fplab reveal: kernel: %s\n", cmdline);
    fflush(stdout);
    o.log = print_line;
    fl_reveal(&o, rk_call, kern, &res);
    rk_close(kern);

    rc = CLI_OK;
    switch (res.status) {
    case FL_REVEAL_FOUND: {
        /* the outcome, the model file and the call count: composed by the
         * library (fl_reveal_*_text), as fplab.reveal reports them */
        char *outcome = fl_reveal_outcome_text(&res);
        char *file = fl_reveal_model_file_text(&o, &res, cmdline);
        cli_out mo;
        printf("%s", outcome ? outcome : "model: ?\n");
        if (outcome == NULL || file == NULL || cli_out_open(&mo, model_out) != 0) {
            if (outcome == NULL || file == NULL)
                cli_error("reveal: out of memory");
            rc = CLI_USAGE;
        } else {
            fputs(file, mo.fp);
            if (cli_out_commit(&mo) != 0)
                rc = CLI_USAGE;
            else
                printf("wrote %s\n", model_out);
        }
        free(outcome);
        free(file);
        break;
    }
    case FL_REVEAL_MISMATCH:
    case FL_REVEAL_NONDETERMINISTIC:
    case FL_REVEAL_UNREVEALED: {
        char *outcome;
        fflush(stdout);
        fprintf(stderr, "fplab: reveal: %s\n", res.message);
        outcome = fl_reveal_outcome_text(&res);
        printf("%s", outcome ? outcome : "");
        free(outcome);
        printf("no model written (%s untouched)\n", model_out);
        rc = CLI_MISMATCH;
        break;
    }
    default:
        fflush(stdout);
        fprintf(stderr, "fplab: reveal: %s\n", res.message);
        printf("no model written (%s untouched)\n", model_out);
        rc = CLI_USAGE;
        break;
    }
    if (plot && res.have_tree) {
        char png[PATH_MAX + 32], title[900], sub[600];
        char *ln = res.have_model ? fl_ref_model_string(&res.model) : NULL;
        const char *ord = ln ? strstr(ln, "order=") : NULL;
        const char *acc = ln ? strstr(ln, " acc=") : NULL;
        const char *tc = ln ? strstr(ln, " tc=") : NULL;
        size_t ol = ord ? strcspn(ord, " ") : 0, al = acc ? strcspn(acc + 1, " ") : 0;
        size_t tl = tc ? strcspn(tc + 1, " ") : 0;
        int w;
        snprintf(title, sizeof title, "fplab reveal: %.800s", cmdline);
        w = snprintf(sub, sizeof sub, "%s of %zu terms", argv[1], res.tree.n);
        if (ln && w > 0 && (size_t)w < sizeof sub) {
            size_t u = (size_t)w;
            u += (size_t)snprintf(sub + u, sizeof sub - u, "%s%.*s",
                                  res.status == FL_REVEAL_FOUND
                                      ? ": " : ", closest model: ",
                                  (int)al, acc ? acc + 1 : "");
            if (ord && u < sizeof sub) {
                if (ol < 60)
                    u += (size_t)snprintf(sub + u, sizeof sub - u, " %.*s",
                                          (int)ol, ord);
                else
                    u += (size_t)snprintf(sub + u, sizeof sub - u,
                                          " order=tree:(see the model)");
            }
            if (tc && strncmp(tc, " tc=none", 8) && u < sizeof sub)
                snprintf(sub + u, sizeof sub - u, "%.*s", (int)tl + 1, tc);
        }
        free(ln);
        if (write_plot(plot, &res.tree, title, sub, png, sizeof png) == 0)
            printf("wrote %s\n", png);
    }
    {
        char *calls = fl_reveal_calls_text(&res);
        printf("%s", calls ? calls : "");
        free(calls);
    }
    fl_reveal_result_free(&res);
    return rc;
}
