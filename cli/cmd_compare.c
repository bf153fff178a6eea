/*
 * cmd_compare.c — `fplab compare KERNEL_OUT REF [options]`: the verdict on
 * a kernel's output against a reference, with its evidence.
 *
 * A thin shell over fplab/compare.h: reads the tensors (fplab_tensor) and
 * hands them to fl_cmp_report_run, which checks them and computes the
 * verdict, its text (the counts, the ulp histogram, the worst element with
 * its operands, the first mismatches, the accuracy of kernel and reference
 * against the exact result, and for GEMM outputs where the differences
 * concentrate) and its JSON; this file prints the one and writes the
 * other, and draws the heat map (gnuplot) when the report asks for it.
 *
 * Default tolerance: none, i.e. bit-identical required (a NaN matches any
 * NaN).  A reference computed in the kernel's arithmetic model is expected
 * to agree bit for bit; a CI job that wants slack says how much (--ulp,
 * --rtol/--atol, --torch-defaults).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fplab/compare.h"
#include "tensor.h"

#define MAX_INPUTS 8

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab compare KERNEL_OUT REF [options]\n"
"\n"
"The verdict on a kernel's output against a reference (e.g. from `fplab ref`).\n"
"KERNEL_OUT, REF: .npy, .npz or .safetensors (recognised by content); name a\n"
"member as FILE:KEY.  Both must hold the same float format and shape.\n"
"\n"
"formats:\n"
"  --out-format F    what uint8/16/32/64 outputs hold (numpy has no bfloat16 or\n"
"                    fp8: they travel as bit patterns); float dtypes must agree\n"
"  --in-format F     the same for --inputs\n"
"  --exact-format F  the same for --exact\n"
"tolerance (default: bit-identical required; a NaN matches any NaN):\n"
"  --ulp N           within N ulps (distance on the ordered encodings, +0 = -0)\n"
"  --rtol R --atol A close when |k - r| <= A + R*|r| (binary64, as torch.isclose)\n"
"  --torch-defaults  rtol/atol of torch.testing.assert_close for the dtype\n"
"                    (float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5,\n"
"                    float64 1e-7/1e-7; 0/0 for formats torch has no entry for)\n"
"  --nan-payload     a NaN matches a NaN only bit for bit\n"
"  --signed-zero     +0 vs -0 fails under a tolerance too\n"
"NaN vs a number, and infinity vs anything but itself, never pass.\n"
"evidence:\n"
"  --exact FILE      the correctly rounded result (fplab ref --exact): relative\n"
"                    errors of kernel and reference against it\n"
"  --inputs A [B..]  the kernel's inputs: the operands at the worst element\n"
"  --ta, --tb        GEMM inputs stored transposed: A as (K, M), B as (N, K)\n"
"  --show K          the first K mismatches (failures, else differences)\n"
"  --gemm            where the differences are over a 2-D/3-D output: rows,\n"
"                    columns, a text map\n"
"  --tile HxW        the kernel's output tile: per tile and per position (--gemm)\n"
"  --kblock B        with --inputs A B: which K-block the difference follows\n"
"  --plot DIR        a gnuplot heat map DIR/compare_map.png (--gemm)\n"
"  --json FILE       the whole verdict as JSON (written atomically)\n"
"  --threads T       threads for the scan (default: all; same result for any T)\n"
"\n"
"exit status: 0 within tolerance, 1 outside, 2 bad usage or input.\n");
}

/* ---------------------------------------------------------------------
 * Options.
 * ------------------------------------------------------------------- */

typedef struct opts {
    const char *kspec, *rspec;
    const char *out_format, *in_format, *exact_format;
    const char *exact;
    const char *inputs[MAX_INPUTS];
    int ninputs;
    int ta, tb;
    int have_ulp, have_rtol, have_atol, torch;
    uint64_t ulp;
    double rtol, atol;
    int nan_payload, signed_zero;
    uint64_t show;
    int gemm;
    size_t tile_h, tile_w, kblock;
    const char *plot, *json;
    int threads;
} opts;

static int parse_tile(const char *s, size_t *h, size_t *w)
{
    uint64_t a, b;
    char *x = strchr(s, 'x');
    if (!x)
        return -1;
    char *first = strndup(s, (size_t)(x - s));
    int bad = !first || cli_parse_u64(first, &a) || cli_parse_u64(x + 1, &b) ||
              a == 0 || b == 0 || a > (1u << 20) || b > (1u << 20);
    free(first);
    if (bad)
        return -1;
    *h = (size_t)a;
    *w = (size_t)b;
    return 0;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 0;
    /* options whose VALUE is kept as given, and flags */
    const cli_string_opt strings[] = {
        {"--out-format", &o->out_format}, {"--in-format", &o->in_format},
        {"--exact-format", &o->exact_format}, {"--exact", &o->exact},
        {"--json", &o->json},
    };
    const struct {
        const char *name;
        int *on;
    } flags[] = {
        {"--ta", &o->ta}, {"--tb", &o->tb}, {"--torch-defaults", &o->torch},
        {"--nan-payload", &o->nan_payload}, {"--signed-zero", &o->signed_zero},
        {"--gemm", &o->gemm},
    };
    const size_t nflags = sizeof flags / sizeof flags[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
#define NEED_VALUE() do { if (i + 1 >= argc) \
            return cli_error("compare: option %s needs a value", a), -1; } while (0)
        size_t fi = 0;   /* the flag a names: nflags for none */
        while (fi < nflags && strcmp(a, flags[fi].name))
            fi++;
        const cli_string_opt *str =
            cli_string_opt_find(strings, sizeof strings / sizeof strings[0], a);
        if (str) {
            NEED_VALUE();
            *str->value = argv[++i];
        } else if (fi < nflags) {
            *flags[fi].on = 1;
        } else if (!strcmp(a, "--inputs")) {
            if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2))
                return cli_error("compare: --inputs needs at least one file"), -1;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
                if (o->ninputs == MAX_INPUTS)
                    return cli_error("compare: --inputs takes at most %d files",
                                     MAX_INPUTS), -1;
                o->inputs[o->ninputs++] = argv[++i];
            }
        } else if (!strcmp(a, "--ulp")) {
            NEED_VALUE();
            if (cli_parse_u64(argv[++i], &o->ulp))
                return cli_error("compare: --ulp: '%s' is not a non-negative "
                                 "integer", argv[i]), -1;
            o->have_ulp = 1;
        } else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol")) {
            NEED_VALUE();
            double v;
            if (cli_parse_double(argv[++i], &v) || !(v >= 0) || isinf(v))
                return cli_error("compare: %s: '%s' is not a non-negative "
                                 "finite number", a, argv[i]), -1;
            if (a[2] == 'r') {
                o->rtol = v;
                o->have_rtol = 1;
            } else {
                o->atol = v;
                o->have_atol = 1;
            }
        } else if (!strcmp(a, "--show")) {
            NEED_VALUE();
            if (cli_parse_u64(argv[++i], &o->show) || o->show > 1000000)
                return cli_error("compare: --show: '%s' is not an integer "
                                 "0..1000000", argv[i]), -1;
        } else if (!strcmp(a, "--tile")) {
            NEED_VALUE();
            if (parse_tile(argv[++i], &o->tile_h, &o->tile_w))
                return cli_error("compare: --tile: '%s' is not HxW (two positive "
                                 "integers, e.g. 16x16)", argv[i]), -1;
            o->gemm = 1;
        } else if (!strcmp(a, "--kblock")) {
            NEED_VALUE();
            uint64_t v;
            if (cli_parse_u64(argv[++i], &v) || v == 0 || v > (1u << 30))
                return cli_error("compare: --kblock: '%s' is not a positive "
                                 "integer", argv[i]), -1;
            o->kblock = (size_t)v;
            o->gemm = 1;
        } else if (!strcmp(a, "--plot")) {
            NEED_VALUE();
            o->plot = argv[++i];
            o->gemm = 1;
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            uint64_t v;
            if (cli_parse_u64(argv[++i], &v) || v == 0 || v > 64)
                return cli_error("compare: --threads: '%s' is not an integer "
                                 "1..64", argv[i]), -1;
            o->threads = (int)v;
        } else if (a[0] == '-' && a[1] == '-') {
            return cli_error("compare: unknown option '%s' (try 'fplab compare "
                             "--help')", a), -1;
        } else if (!o->kspec) {
            o->kspec = a;
        } else if (!o->rspec) {
            o->rspec = a;
        } else {
            return cli_error("compare: one KERNEL_OUT and one REF, got a third "
                             "file '%s' (inputs go after --inputs)", a), -1;
        }
#undef NEED_VALUE
    }
    if (!o->rspec)
        return cli_error("compare: need KERNEL_OUT and REF (try 'fplab compare "
                         "--help')"), -1;
    int kinds = o->have_ulp + (o->have_rtol || o->have_atol) + o->torch;
    if (kinds > 1)
        return cli_error("compare: choose one tolerance: --ulp, --rtol/--atol "
                         "or --torch-defaults"), -1;
    if (o->kblock && o->ninputs != 2)
        return cli_error("compare: --kblock needs the GEMM's two inputs "
                         "(--inputs A B)"), -1;
    return 0;
}

/* ---------------------------------------------------------------------
 * The heat map.
 * ------------------------------------------------------------------- */

/* Write DIR/compare_map.dat and .gp, run gnuplot for the PNG.  Returns 0,
 * 1 when gnuplot is missing or failed (a warning: the verdict stands), or
 * -1 when the files cannot be written. */
static int write_plot(const char *dir, const fl_cmp_grid *g, const char *title,
                      char *png, size_t pnglen)
{
    char dat[4096], gp[4096];
    if (cli_mkdir_p(dir, "compare: --plot"))
        return -1;
    snprintf(dat, sizeof dat, "%s/compare_map.dat", dir);
    snprintf(gp, sizeof gp, "%s/compare_map.gp", dir);
    snprintf(png, pnglen, "%s/compare_map.png", dir);
    int top = 0, nonfinite = 0;
    for (size_t c = 0; c < g->cells_r * g->cells_c; c++) {
        if (g->cell_max[c] == FL_CMP_MAX_NONFINITE)
            nonfinite = 1;
        else if (g->cell_diff[c] && fl_cmp_bucket(g->cell_max[c]) > top)
            top = fl_cmp_bucket(g->cell_max[c]);
    }
    if (top < 1)
        top = 1;
    int nf = top + 1;   /* the value for NaN/infinity cells */
    cli_out o;
    if (cli_out_open(&o, dat))
        return -1;
    fprintf(o.fp, "# fplab %s compare map: %zu x %zu cells of %zu x %zu "
            "elements; -1 identical, b = ulp bucket of the cell's largest "
            "distance, %d NaN/inf disagreement\n", FPLAB_VERSION, g->cells_r,
            g->cells_c, g->cell_h, g->cell_w, nf);
    for (size_t r = 0; r < g->cells_r; r++) {
        for (size_t c = 0; c < g->cells_c; c++) {
            size_t k = r * g->cells_c + c;
            int v = !g->cell_diff[k] ? -1
                  : g->cell_max[k] == FL_CMP_MAX_NONFINITE ? nf
                  : fl_cmp_bucket(g->cell_max[k]);
            fprintf(o.fp, "%s%d", c ? " " : "", v);
        }
        fputc('\n', o.fp);
    }
    if (cli_out_commit(&o))
        return -1;
    if (cli_out_open(&o, gp))
        return -1;
    FILE *f = o.fp;
    fprintf(f, "# fplab %s: heat map of a kernel's differences from its "
            "reference\n# usage: gnuplot -e \"out='compare_map.png'\" "
            "compare_map.gp (in this directory)\n", FPLAB_VERSION);
    fprintf(f, "if (!exists(\"out\")) out = 'compare_map.png'\n"
            "if (!exists(\"dat\")) dat = 'compare_map.dat'\n");
    /* a canvas whose shape follows the matrix, so the square cells fill it */
    double aspect = (double)g->rows / (double)g->cols;
    int W = 1000, H = (int)(640.0 * aspect) + 240;
    if (H < 420)
        H = 420;
    if (H > 1300) {
        H = 1300;
        W = (int)(1060.0 / aspect) + 360;
        if (W < 600)
            W = 600;
    }
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d font 'sans,11'\n"
            "} else {\n  set terminal png size %d,%d\n}\n"
            "set output out\n", W, H, W, H);
    fprintf(f, "set title \"%s\" noenhanced\n", title);
    fprintf(f, "set xlabel 'output column j'\nset ylabel 'output row i'\n");
    fprintf(f, "set xrange [0:%zu]\nset yrange [%zu:0]\n", g->cols, g->rows);
    fprintf(f, "set size ratio -1\nset tics out\nset key off\nset rmargin 18\n");
    if (g->tile_h && g->tiles_r <= 64 && g->tiles_c <= 64) {
        fprintf(f, "set grid front lc rgb '#d0d0d0' lw 0.5\n"
                "set xtics 0,%zu\nset ytics 0,%zu\n", g->tile_w, g->tile_h);
        if (g->tiles_c > 16)
            fprintf(f, "set xtics 0,%zu rotate by 90 right\n", g->tile_w);
    }
    /* one flat colour per value: white identical, light to dark blue by
     * ulp bucket, red for NaN/infinity disagreements */
    int last = nonfinite ? nf : top;
    fprintf(f, "set cbrange [-1.5:%d.5]\nset palette maxcolors %d\n", last,
            last + 2);
    fprintf(f, "set palette defined (-1.5 '#ffffff', -0.5 '#ffffff'");
    for (int b = 0; b <= top; b++) {
        double t = top ? (double)b / top : 1;
        int cr = (int)(0xc6 + t * (0x08 - 0xc6)), cg = (int)(0xdb + t * (0x30 - 0xdb)),
            cb = (int)(0xef + t * (0x6b - 0xef));
        fprintf(f, ", %.1f '#%02x%02x%02x', %.1f '#%02x%02x%02x'", b - 0.5, cr,
                cg, cb, b + 0.5, cr, cg, cb);
    }
    if (nonfinite)
        fprintf(f, ", %.1f '#d7191c', %.1f '#d7191c'", nf - 0.5, nf + 0.5);
    fprintf(f, ")\n");
    fprintf(f, "set cbtics (");
    fprintf(f, "'identical' -1");
    /* at most 16 labels; with gaps, none next to 'identical' */
    int step = top > 16 ? (top + 15) / 16 : 1;
    for (int b = step > 1 ? step : 0; b <= top; b += step) {
        char lab[64];
        fl_cmp_bucket_label(b, lab, sizeof lab);
        fprintf(f, ", '%s ulp' %d", lab, b);
    }
    if (nonfinite)
        fprintf(f, ", 'NaN/inf' %d", nf);
    fprintf(f, ") scale 0\nset cblabel 'largest ulp distance in the cell'\n");
    fprintf(f, "plot dat matrix using (($1 + 0.5) * %zu):(($2 + 0.5) * %zu):3 "
            "with image\n", g->cell_w, g->cell_h);
    if (cli_out_commit(&o))
        return -1;
    char *gnuplot = cli_find_gnuplot();
    if (!gnuplot) {
        fprintf(stderr, "fplab: compare: warning: no gnuplot (PATH or "
                "$FPLAB_GNUPLOT): wrote %s and %s, no PNG\n", dat, gp);
        return 1;
    }
    char tmp[4300], expr[9000], why[512];
    snprintf(tmp, sizeof tmp, "%.4200s.tmp.%ld", png, (long)getpid());
    snprintf(expr, sizeof expr, "out='%s'; dat='%s'", tmp, dat);
    if (strchr(tmp, '\'') || strchr(dat, '\'')) {
        free(gnuplot);
        fprintf(stderr, "fplab: compare: warning: --plot directory has a quote "
                "in its name: no PNG\n");
        return 1;
    }
    int rc = cli_run_gnuplot(gnuplot, expr, gp, tmp, png, NULL, why, sizeof why);
    free(gnuplot);
    if (rc) {
        fprintf(stderr, "fplab: compare: warning: gnuplot failed on %s: no PNG\n",
                gp);
        return 1;
    }
    return 0;
}

/* The report's figure hook: the heat map in the --plot directory.  Errors
 * are printed here (err stays empty). */
static int plot_hook(void *user, const fl_cmp_grid *g, const char *title,
                     char *png, size_t pnglen, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return write_plot(user, g, title, png, pnglen);
}

/* ---------------------------------------------------------------------
 * The command.
 * ------------------------------------------------------------------- */

/* Read a tensor and its format; message and -1 on failure. */
static int load(const char *spec, const char *fmt, const char *what, tensor *t,
                fl_format *f)
{
    char err[1024];
    if (tensor_read(t, spec, err, sizeof err))
        return cli_error("compare: %s", err), -1;
    if (tensor_format(t, fmt, what, f, err, sizeof err)) {
        tensor_free(t);
        return cli_error("compare: %s", err), -1;
    }
    return 0;
}

/* The library's view of a tensor read from a file. */
static void view(fl_cmp_tensor *v, const tensor *t, const fl_format *f,
                 const char *name)
{
    memset(v, 0, sizeof *v);
    v->f = *f;
    v->esize = tensor_dtype_size(t->dtype);
    v->data = t->data;
    v->ndim = t->ndim;
    for (int d = 0; d < t->ndim && d < FL_CMP_MAXDIM; d++)
        v->shape[d] = t->shape[d];
    v->name = name;
    v->dtype = tensor_dtype_name(t->dtype);
    v->holds_bits = tensor_dtype_for_format(f) != t->dtype;
}

int cmd_compare(int argc, char **argv)
{
    opts o;
    int pr = parse_opts(argc, argv, &o);
    if (pr)
        return pr > 0 ? CLI_OK : CLI_USAGE;
    tensor kt, rt, xt = {0}, it[MAX_INPUTS];
    fl_format kf, rf, xf, inf[MAX_INPUTS];
    fl_cmp_tensor kv, rv, xv, iv[MAX_INPUTS];
    int nin = 0, rc = CLI_USAGE;
    char err[1024];
    char *model = NULL, *kmodel = NULL, *json = NULL;
    fl_cmp_report *rep = NULL;
    memset(it, 0, sizeof it);
    if (load(o.kspec, o.out_format, "--out-format", &kt, &kf))
        return CLI_USAGE;
    if (load(o.rspec, o.out_format, "--out-format", &rt, &rf)) {
        tensor_free(&kt);
        return CLI_USAGE;
    }
    if (o.exact && load(o.exact, o.exact_format, "--exact-format", &xt, &xf))
        goto out;
    for (int i = 0; i < o.ninputs; i++) {
        char what[64];
        snprintf(what, sizeof what, "--in-format (input %d)", i + 1);
        if (load(o.inputs[i], o.in_format, what, &it[i], &inf[i]))
            goto out;
        view(&iv[i], &it[i], &inf[i], o.inputs[i]);
        nin++;
    }
    if (tensor_read_model(o.rspec, &model, err, sizeof err) ||
        tensor_read_model(o.kspec, &kmodel, err, sizeof err)) {
        cli_error("compare: %s", err);
        goto out;
    }
    view(&kv, &kt, &kf, kt.source);
    view(&rv, &rt, &rf, rt.source);
    if (o.exact)
        view(&xv, &xt, &xf, xt.source);

    fl_cmp_report_opts ro;
    fl_cmp_report_opts_init(&ro);
    ro.tol.nan_payload = o.nan_payload;
    ro.tol.zero_sign = o.signed_zero;
    if (o.have_ulp) {
        ro.tol.kind = FL_CMP_TOL_ULP;
        ro.tol.ulp = o.ulp;
    } else if (o.have_rtol || o.have_atol) {
        ro.tol.kind = FL_CMP_TOL_CLOSE;
        ro.tol.rtol = o.rtol;
        ro.tol.atol = o.atol;
    }
    ro.torch_defaults = o.torch;
    ro.show = o.show;
    ro.gemm = o.gemm;
    ro.tile_h = o.tile_h;
    ro.tile_w = o.tile_w;
    ro.kblock = o.kblock;
    ro.ta = o.ta;
    ro.tb = o.tb;
    ro.model = model;
    ro.kernel_model = kmodel;
    ro.nthreads = o.threads;
    if (o.plot) {
        ro.plot = plot_hook;
        ro.plot_user = (void *)o.plot;
    }
    if (fl_cmp_report_run(&rep, &kv, &rv, iv, nin, o.exact ? &xv : NULL, &ro,
                          err, sizeof err)) {
        if (err[0])
            cli_error("compare: %s", err);
        goto out;
    }
    fputs(fl_cmp_report_text(rep), stdout);
    if (o.json) {
        cli_out jo;
        json = fl_cmp_report_json(rep);
        if (!json) {
            cli_error("compare: out of memory");
            goto out;
        }
        if (cli_out_open(&jo, o.json))
            goto out;
        if (fputs(json, jo.fp) == EOF) {
            cli_out_abort(&jo);
            cli_error("compare: cannot write %s", o.json);
            goto out;
        }
        if (cli_out_commit(&jo))
            goto out;
    }
    fflush(stdout);
    rc = fl_cmp_report_pass(rep) ? CLI_OK : CLI_MISMATCH;
out:
    fl_cmp_report_free(rep);
    free(json);
    free(model);
    free(kmodel);
    tensor_free(&kt);
    tensor_free(&rt);
    tensor_free(&xt);
    for (int i = 0; i < MAX_INPUTS; i++)
        tensor_free(&it[i]);
    return rc;
}
