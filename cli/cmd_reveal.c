/*
 * cmd_reveal.c — `fplab reveal sum|dot|gemm ... --model-out FILE -- CMD
 * ARGS...`: the arithmetic model of a black-box kernel (fplab/reveal.h),
 * the kernel being any command that reads .npy inputs and writes a .npy
 * output.
 *
 * Each call: the inputs go to a private temporary directory, {in}, {in2}
 * and {out} in ARGS become their paths, the command runs in its own
 * process group with stdin from /dev/null and its output kept in a log;
 * past --timeout the whole group is killed.  A command that fails, hangs
 * or writes the wrong shape or dtype stops the reveal (exit 2, its last
 * lines of output shown).  The model file is written (atomically) only
 * when the model replays every validation case.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fplab/reveal.h"
#include "tensor.h"

extern char **environ;

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab reveal sum|dot|gemm --n N [--m M --k K] --dtype D\n"
"                    --model-out FILE [options] -- CMD ARGS...\n"
"\n"
"Find the arithmetic model (order, accumulator, rounding, fused products,\n"
"block FMA, subnormals, output rounding) that reproduces a kernel bit for\n"
"bit, check it on fresh random and adversarial inputs, and write it as a\n"
"model file for `fplab ref --model`.\n"
"\n"
"The kernel is CMD ARGS: in ARGS, {in}, {in2} and {out} are replaced by\n"
".npy paths.  It reads {in} (and {in2}) and writes {out}:\n"
"  sum   {in} (R, N)              -> {out} (R,)   the sum along the last axis\n"
"  dot   {in}, {in2} (R, N)       -> {out} (R,)   row-wise dot products\n"
"  gemm  {in} A (M, K), {in2} B (K, N) -> {out} C (M, N) = A @ B\n"
"With --batch B every array gets a leading axis of B.  R is chosen by\n"
"reveal (--rows fixes it).  float32 and float16 travel as numpy's dtypes,\n"
"bfloat16 as uint16 bit patterns; the output's dtype (float32, float16,\n"
"float64, or uint16 = bfloat16) is the output format.\n"
"\n"
"options:\n"
"  --n N            sum, dot: terms per output element; gemm: columns of B\n"
"  --m M --k K      gemm: A is M x K\n"
"  --dtype D        float32, float16 or bfloat16 (the inputs)\n"
"  --model-out FILE where the model goes (only when it replays every case)\n"
"  --batch B        3-D calls with a leading batch axis of B\n"
"  --rows R         sum, dot: exactly R rows per call (default: as many as\n"
"                   fit --max-elems)\n"
"  --timeout S      seconds per kernel call before its process group is\n"
"                   killed (default 300)\n"
"  --validate C     validation cases (rows; gemm: output elements), default\n"
"                   100000\n"
"  --seed S         seed of the random inputs (default 1)\n"
"  --max-elems E    input elements per operand and call (default 16777216)\n"
"  --plot DIR       the tree as a gnuplot figure DIR/reveal_tree.png\n"
"  --threads T      threads of the reference (default: all cores)\n"
"\n"
"Exit status: 0 model found and written; 1 the kernel is nondeterministic,\n"
"its tree cannot be revealed, or no model replays it (the closest model\n"
"and the first counterexample are printed); 2 bad usage, or the kernel\n"
"failed, hung, or wrote the wrong shape or dtype (nothing written).\n");
}

/* ------------------------------------------------------------------------
 * The kernel as a command.
 * ---------------------------------------------------------------------- */
typedef struct kcmd {
    char **argv;           /* CMD ARGS as given */
    int argc;
    char dir[PATH_MAX];
    char in[PATH_MAX + 16], in2[PATH_MAX + 16], out[PATH_MAX + 16];
    char log[PATH_MAX + 16];
    double timeout;
    const char *dtype;     /* float32 float16 bfloat16 */
    fl_format out_fmt;
    int have_out;
} kcmd;

/* For the signal handler: the running group and the files to remove. */
static volatile sig_atomic_t g_child;
static kcmd *g_kc;

static void cleanup_files(const kcmd *k)
{
    if (k == NULL || k->dir[0] == '\0')
        return;
    unlink(k->in);
    unlink(k->in2);
    unlink(k->out);
    unlink(k->log);
    rmdir(k->dir);
}

/* Everything in the private directory (the kernel may leave files there,
 * e.g. a sidecar next to {out}), then the directory. */
static void remove_dir(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        char p[PATH_MAX + 300];
        struct stat sb;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && depth < 16)
            remove_dir(p, depth + 1);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void on_signal(int sig)
{
    if (g_child > 0)
        kill(-(pid_t)g_child, SIGKILL);
    cleanup_files(g_kc);
    signal(sig, SIG_DFL);
    raise(sig);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ARGS with the placeholders replaced (malloc'd, NULL-terminated). */
static char **expand_args(const kcmd *k)
{
    char **v = calloc((size_t)k->argc + 1, sizeof *v);
    if (v == NULL)
        return NULL;
    for (int i = 0; i < k->argc; i++) {
        const char *s = k->argv[i];
        size_t cap = strlen(s) + 1, len = 0;
        char *o;
        for (const char *p = s; *p; p++)
            if (*p == '{')
                cap += sizeof k->in2 + 8;
        o = malloc(cap);
        if (o == NULL) {
            for (int j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
        while (*s) {
            const char *rep = NULL;
            size_t skip = 0;
            if (!strncmp(s, "{in}", 4)) {
                rep = k->in;
                skip = 4;
            } else if (!strncmp(s, "{in2}", 5)) {
                rep = k->in2;
                skip = 5;
            } else if (!strncmp(s, "{out}", 5)) {
                rep = k->out;
                skip = 5;
            }
            if (rep) {
                size_t rl = strlen(rep);
                memcpy(o + len, rep, rl);
                len += rl;
                s += skip;
            } else {
                o[len++] = *s++;
            }
        }
        o[len] = '\0';
        v[i] = o;
    }
    return v;
}

static void free_args(char **v)
{
    if (v == NULL)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

/* The last lines of the kernel's output, indented, into buf. */
static void log_tail(const kcmd *k, char *buf, size_t len)
{
    FILE *fp = fopen(k->log, "rb");
    char tmp[4096];
    size_t got = 0;
    long sz;
    buf[0] = '\0';
    if (fp == NULL)
        return;
    if (fseek(fp, 0, SEEK_END) == 0 && (sz = ftell(fp)) > 0) {
        long from = sz > (long)sizeof tmp - 1 ? sz - (long)sizeof tmp + 1 : 0;
        fseek(fp, from, SEEK_SET);
        got = fread(tmp, 1, sizeof tmp - 1, fp);
    }
    fclose(fp);
    tmp[got] = '\0';
    if (got == 0)
        return;
    {
        /* the last 8 lines */
        int lines = 0;
        char *p = tmp + got;
        while (p > tmp && p[-1] == '\n')
            *--p = '\0';
        while (p > tmp && lines < 8) {
            p--;
            if (*p == '\n')
                lines++;
        }
        if (*p == '\n')
            p++;
        snprintf(buf, len, "\n  its last output:");
        for (char *save = NULL, *l = strtok_r(p, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save)) {
            size_t w = strlen(buf);
            for (char *c = l; *c; c++)
                if ((unsigned char)*c < 0x20 && *c != '\t')
                    *c = '?';
            snprintf(buf + w, len - w, "\n    %s", l);
        }
    }
}

/* Run the command once; 0 or -1 with err. */
static int run_command(kcmd *k, size_t call, char *err, size_t errlen)
{
    char **argv = expand_args(k), tail[2048];
    pid_t pid;
    int st = 0, fd;
    double t0 = now_s(), sleep_s = 0.0005;
    if (argv == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    unlink(k->out);
    fd = open(k->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", k->log, strerror(errno));
        free_args(argv);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start the kernel: %s", strerror(errno));
        close(fd);
        free_args(argv);
        return -1;
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (nul >= 0) {
            dup2(nul, 0);
            close(nul);
        }
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        execvp(argv[0], argv);
        dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    g_child = pid;
    close(fd);
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            st = -1;
            break;
        }
        if (k->timeout > 0 && now_s() - t0 > k->timeout) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            g_child = 0;
            log_tail(k, tail, sizeof tail);
            snprintf(err, errlen, "the command ran past --timeout %g s: its "
                     "process group was killed%s", k->timeout, tail);
            free_args(argv);
            return -1;
        }
        {
            struct timespec ts;
            ts.tv_sec = 0;
            ts.tv_nsec = (long)(sleep_s * 1e9);
            nanosleep(&ts, NULL);
            if (sleep_s < 0.01)
                sleep_s *= 1.5;
        }
    }
    /* leftovers of the group (background children) go too */
    kill(-pid, SIGKILL);
    g_child = 0;
    free_args(argv);
    (void)call;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        log_tail(k, tail, sizeof tail);
        if (st != -1 && WIFSIGNALED(st))
            snprintf(err, errlen, "the command was killed by signal %d%s",
                     WTERMSIG(st), tail);
        else
            snprintf(err, errlen, "the command exited with status %d%s",
                     st == -1 ? -1 : WEXITSTATUS(st), tail);
        return -1;
    }
    return 0;
}

/* The kernel's input {in} / {in2}: a .npy of float32, float16 or bfloat16
 * (bfloat16 as uint16 bit patterns, numpy having no bfloat16), written
 * atomically by fplab_tensor. */
static int write_input(const char *path, const char *dtype, const uint64_t *v,
                       const size_t *shape, int ndim, char *err, size_t errlen)
{
    const fl_format *f = !strcmp(dtype, "float32") ? &fl_binary32
                       : !strcmp(dtype, "float16") ? &fl_binary16 : &fl_bfloat16;
    tensor t;
    const tensor *tp = &t;
    int rc;
    if (tensor_from_bits(&t, f, ndim, shape, v) != 0) {
        snprintf(err, errlen, "out of memory for %s", path);
        return -1;
    }
    rc = tensor_write(path, &tp, NULL, 1, 0, err, errlen);
    tensor_free(&t);
    return rc;
}

static int kernel_cb(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    kcmd *k = user;
    size_t sa[3], sb[3], so[3];
    int nd = 0, ndo = 0;
    tensor t;
    char e[1024];
    fl_format of;
    size_t want = fl_reveal_call_outputs(c);
    if (c->batch) {
        sa[nd] = sb[nd] = so[ndo++] = c->batch;
        nd++;
    }
    if (c->op == FL_REF_OP_GEMM) {
        sa[nd] = c->rows;
        sa[nd + 1] = c->k;
        sb[nd] = c->k;
        sb[nd + 1] = c->n;
        so[ndo++] = c->rows;
        so[ndo++] = c->n;
    } else {
        sa[nd] = sb[nd] = c->rows;
        sa[nd + 1] = sb[nd + 1] = c->n;
        so[ndo++] = c->rows;
    }
    nd += 2;
    if (write_input(k->in, k->dtype, c->a, sa, nd, err, errlen) != 0)
        return -1;
    if (c->b && write_input(k->in2, k->dtype, c->b, sb, nd, err, errlen) != 0)
        return -1;
    if (run_command(k, c->index, err, errlen) != 0)
        return -1;
    if (access(k->out, F_OK) != 0) {
        char tail[2048];
        log_tail(k, tail, sizeof tail);
        snprintf(err, errlen, "the command exited 0 but wrote no {out} file%s",
                 tail);
        return -1;
    }
    if (tensor_read(&t, k->out, e, sizeof e) != 0) {
        /* the private path means nothing to the user: say {out} */
        char *p = strstr(e, k->out);
        if (p) {
            size_t ol = strlen(k->out);
            memmove(p + 5, p + ol, strlen(p + ol) + 1);
            memcpy(p, "{out}", 5);
        }
        snprintf(err, errlen, "its output: %s", e);
        return -1;
    }
    switch (t.dtype) {
    case TENSOR_F32: of = fl_binary32; break;
    case TENSOR_F16: of = fl_binary16; break;
    case TENSOR_F64: of = fl_binary64; break;
    case TENSOR_U16: case TENSOR_BF16: of = fl_bfloat16; break;
    default:
        snprintf(err, errlen, "its output has dtype %s: expected float32, "
                 "float16, float64 or uint16 (bfloat16 bit patterns)",
                 tensor_dtype_name(t.dtype));
        tensor_free(&t);
        return -1;
    }
    {
        int ok = t.ndim == ndo;
        for (int d = 0; ok && d < ndo; d++)
            ok = t.shape[d] == so[d];
        if (!ok) {
            char got[256], exp[256];
            tensor x;
            memset(&x, 0, sizeof x);
            x.ndim = ndo;
            for (int d = 0; d < ndo; d++)
                x.shape[d] = so[d];
            tensor_shape_str(&t, got, sizeof got);
            tensor_shape_str(&x, exp, sizeof exp);
            snprintf(err, errlen, "its output has shape %s, expected %s", got,
                     exp);
            tensor_free(&t);
            return -1;
        }
    }
    if (t.n != want) {
        snprintf(err, errlen, "its output has %zu elements, expected %zu", t.n,
                 want);
        tensor_free(&t);
        return -1;
    }
    tensor_to_bits(&t, c->out);
    tensor_free(&t);
    c->out_format = of;
    return 0;
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

int cmd_reveal(int argc, char **argv)
{
    fl_reveal_opts o;
    fl_reveal_result res;
    kcmd kc;
    const char *model_out = NULL, *plot = NULL, *dtype = NULL;
    size_t n = 0, m = 0, k = 0;
    int have_n = 0, have_m = 0, have_k = 0, dd = -1, rc;
    double timeout = 300;
    char cmdline[1024];
    const char *tmpdir;

    fl_reveal_opts_init(&o);
    memset(&kc, 0, sizeof kc);
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            dd = i;
            break;
        }
    for (int i = 1; i < (dd < 0 ? argc : dd); i++) {
        const char *a = argv[i];
#define NEED() do { if (i + 1 >= (dd < 0 ? argc : dd)) \
            return cli_error("reveal: option %s needs a value", a); } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--n")) {
            NEED();
            if (parse_size(a, argv[++i], 1, (size_t)1 << 30, &n))
                return CLI_USAGE;
            have_n = 1;
        } else if (!strcmp(a, "--m")) {
            NEED();
            if (parse_size(a, argv[++i], 1, (size_t)1 << 24, &m))
                return CLI_USAGE;
            have_m = 1;
        } else if (!strcmp(a, "--k")) {
            NEED();
            if (parse_size(a, argv[++i], 1, (size_t)1 << 30, &k))
                return CLI_USAGE;
            have_k = 1;
        } else if (!strcmp(a, "--dtype")) {
            NEED();
            dtype = argv[++i];
        } else if (!strcmp(a, "--model-out")) {
            NEED();
            model_out = argv[++i];
        } else if (!strcmp(a, "--plot")) {
            NEED();
            plot = argv[++i];
        } else if (!strcmp(a, "--batch")) {
            NEED();
            if (parse_size(a, argv[++i], 1, (size_t)1 << 24, &o.batch))
                return CLI_USAGE;
        } else if (!strcmp(a, "--rows")) {
            NEED();
            if (parse_size(a, argv[++i], 1, (size_t)1 << 30, &o.rows))
                return CLI_USAGE;
        } else if (!strcmp(a, "--validate")) {
            NEED();
            if (parse_size(a, argv[++i], 1, (size_t)1 << 32, &o.validate))
                return CLI_USAGE;
        } else if (!strcmp(a, "--max-elems")) {
            NEED();
            if (parse_size(a, argv[++i], 16, (size_t)1 << 32, &o.call_elems))
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
    if (dd < 0 || dd + 1 >= argc)
        return cli_error("reveal: need the kernel command after '--' (e.g. -- "
                         "python3 k.py {in} {out})");
    o.n = n;
    o.m = m;
    o.k = k;
    kc.argv = argv + dd + 1;
    kc.argc = argc - dd - 1;
    {
        int has_in = 0, has_in2 = 0, has_out = 0;
        for (int i = 0; i < kc.argc; i++) {
            has_in |= strstr(kc.argv[i], "{in}") != NULL;
            has_in2 |= strstr(kc.argv[i], "{in2}") != NULL;
            has_out |= strstr(kc.argv[i], "{out}") != NULL;
        }
        if (!has_in || !has_out)
            return cli_error("reveal: the kernel command must name its input "
                             "{in} and its output {out} in its arguments");
        if (o.op != FL_REF_OP_SUM && !has_in2)
            return cli_error("reveal: %s has two operands: the kernel command "
                             "must name {in2} too", argv[1]);
        if (o.op == FL_REF_OP_SUM && has_in2)
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
    tmpdir = getenv("TMPDIR");
    if (tmpdir == NULL || tmpdir[0] == '\0')
        tmpdir = "/tmp";
    snprintf(kc.dir, sizeof kc.dir, "%s/fplab-reveal-XXXXXX", tmpdir);
    if (mkdtemp(kc.dir) == NULL)
        return cli_error("reveal: cannot create a temporary directory in %s: %s",
                         tmpdir, strerror(errno));
    snprintf(kc.in, sizeof kc.in, "%s/in.npy", kc.dir);
    snprintf(kc.in2, sizeof kc.in2, "%s/in2.npy", kc.dir);
    snprintf(kc.out, sizeof kc.out, "%s/out.npy", kc.dir);
    snprintf(kc.log, sizeof kc.log, "%s/kernel.log", kc.dir);
    kc.timeout = timeout;
    kc.dtype = dtype;
    g_kc = &kc;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);

    cmd_text(cmdline, sizeof cmdline, kc.argc, kc.argv);
    printf("fplab reveal: kernel: %s\n", cmdline);
    fflush(stdout);
    o.log = print_line;
    fl_reveal(&o, kernel_cb, &kc, &res);
    g_kc = NULL;
    remove_dir(kc.dir, 0);
    g_kc = NULL;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);

    rc = CLI_OK;
    switch (res.status) {
    case FL_REVEAL_FOUND: {
        char *line = fl_ref_model_string(&res.model), of[64];
        cli_out mo;
        fl_ref_format_spec(&res.out, of, sizeof of);
        printf("model: %s\n", line ? line : "?");
        if (line == NULL || cli_out_open(&mo, model_out) != 0) {
            rc = CLI_USAGE;
        } else {
            fprintf(mo.fp, "# fplab %s reveal: the arithmetic model of a kernel, "
                    "validated bit for bit\n# kernel: %s\n", FPLAB_VERSION,
                    cmdline);
            if (o.op == FL_REF_OP_GEMM)
                fprintf(mo.fp, "# gemm: A %zu x %zu, B %zu x %zu, %s in, %s out%s\n",
                        m, k, k, n, dtype, of, o.batch ? " (batched calls)" : "");
            else
                fprintf(mo.fp, "# %s: %zu terms per output element, %s in, %s out\n",
                        argv[1], n, dtype, of);
            fprintf(mo.fp, "# validation: %zu of %zu cases bit-identical (seed "
                    "%llu)\n%s\n", res.agreed, res.cases,
                    (unsigned long long)o.seed, line);
            if (cli_out_commit(&mo) != 0)
                rc = CLI_USAGE;
            else
                printf("wrote %s\n", model_out);
        }
        free(line);
        break;
    }
    case FL_REVEAL_MISMATCH:
    case FL_REVEAL_NONDETERMINISTIC:
    case FL_REVEAL_UNREVEALED:
        fflush(stdout);
        fprintf(stderr, "fplab: reveal: %s\n", res.message);
        if (res.have_model) {
            char *line = fl_ref_model_string(&res.model);
            printf("closest model (%zu of %zu cases): %s\n", res.agreed,
                   res.cases, line ? line : "?");
            free(line);
        }
        if (res.counterexample)
            printf("first counterexample: %s\n", res.counterexample);
        printf("no model written (%s untouched)\n", model_out);
        rc = CLI_MISMATCH;
        break;
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
        snprintf(title, sizeof title, "fplab reveal: %s", cmdline);
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
    printf("kernel calls: %zu (%.2f s in the kernel); reveal total %.2f s\n",
           res.calls, res.kernel_seconds, res.seconds);
    fl_reveal_result_free(&res);
    return rc;
}
