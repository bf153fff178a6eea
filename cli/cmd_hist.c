/*
 * cmd_hist.c — `fplab hist`: where dumped gradients land in a format, for
 * several loss scales.
 *
 *   fplab hist FILE[:KEY] --format F [--scales 1,8,1024,65536] [--out DIR]
 *              [--dtype f16|f32|f64] [--in-format F] [--lo -40] [--hi 16]
 *
 * A thin shell over fl_hist_run (fplab/hist.h), which counts, picks the
 * best scale and finds the window; this file reads the input, prints and
 * writes the data files.
 *
 * FILE is a tensor file recognized by content (.npy, or a member KEY of an
 * .npz or .safetensors file; float16/32/64, bfloat16, fp8, or unsigned bit
 * patterns of the format --in-format names), raw little-endian values
 * (with --dtype), or text/CSV numbers (cli/values.h).  Values are taken as
 * binary32 (the dtype gradients are held in before the cast; wider input
 * is rounded to binary32 first and any value that changes class in doing
 * so is counted).
 * For each scale S the values g*S are rounded (RNE) into F and counted as
 * underflowing to zero, landing in F's subnormal range, or overflowing;
 * fractions are of the nonzero finite values.
 *
 * The best scale among those given: no overflow first; among those, the
 * fewest underflows; then the fewest subnormals.  Every scale tied at that
 * optimum is printed, as a range.  The command also prints the window of
 * power-of-two scales that neither overflow nor underflow, from the
 * largest and smallest nonzero |g|.
 *
 * Writes DIR/hist_<name>.dat (log2 histogram of |g*S| per scale) and
 * DIR/hist_<name>_scales.dat (the table), each with a '#' header.
 *
 * --scaling S1,S2,... (schemes of fplab/scale.h: mxfp8-e4m3, nvfp4,
 * fp8-e4m3-tensor, ... with their :options) adds a second table: the same
 * fractions of the nonzero finite values (underflow to zero, subnormal
 * element, saturated) and the relative error when the tensor is quantized
 * with each scheme, blocks along the last axis (--last L for raw and text
 * inputs); and DIR/hist_<name>_scaling.dat.  Without --scaling the output
 * is what it always was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fplab/hist.h"
#include "fplab/scale.h"
#include "values.h"

#define MAX_SCALES 64
#define MAX_SCHEMES 32

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: fplab hist FILE[:KEY] --format F [--scales S1,S2,...] [--out DIR]\n"
            "                  [--dtype f16|f32|f64] [--in-format F] [--lo L] [--hi H]\n"
            "                  [--scaling SCHEME1,SCHEME2,... [--last L]]\n\n"
            "FILE: .npy, or a member KEY of an .npz or .safetensors file\n"
            "(float16/32/64, bfloat16, fp8, any shape, C or Fortran order;\n"
            "uint bit patterns of the format --in-format names), raw\n"
            "little-endian values with --dtype, or text/CSV numbers.\n"
            "--format: target format (binary16, bfloat16, fp8-e4m3, ieee:E:M, ...).\n"
            "--scales: loss scales to try (default 1,8,1024,65536).\n"
            "--out: directory for the histogram data (default out).\n"
            "--lo/--hi: histogram bins of floor(log2|g*S|) (default -40, 16 +\n"
            "log2 of the largest scale).\n"
            "Best scale: no overflow, then fewest underflows, then fewest\n"
            "subnormals; all scales tied at the optimum are reported.\n"
            "--scaling: block and per-tensor scaling schemes to compare beside the\n"
            "loss scales (mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4-e2m1\n"
            "mxint8 nvfp4 fp8-e4m3-tensor fp8-e5m2-tensor, options after ':' as in\n"
            "fplab quantize); blocks run along the last axis (--last L: rows of L\n"
            "for raw and text inputs).\n");
}

static int parse_scales(const char *s, double *v, int *n)
{
    *n = 0;
    char *copy = strdup(s), *save = NULL;
    if (!copy)
        return cli_error("hist: out of memory");
    int item = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        item++;
        double d;
        if (cli_parse_double(t, &d) || !(d > 0) || !isfinite(d) || d > 0x1p127) {
            cli_error("hist: --scales: item %d '%s' is not a positive finite number", item, t);
            free(copy);
            return -1;
        }
        if ((double)(float)d != d) {
            cli_error("hist: --scales: item %d '%s' is not exactly representable in "
                      "binary32 (the scale's dtype)", item, t);
            free(copy);
            return -1;
        }
        if (*n >= MAX_SCALES) {
            cli_error("hist: --scales: more than %d scales", MAX_SCALES);
            free(copy);
            return -1;
        }
        v[(*n)++] = d;
    }
    free(copy);
    if (!*n || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
        return cli_error("hist: --scales: '%s' must be a comma-separated list of positive "
                         "numbers", s), -1;
    return 0;
}

static int parse_schemes(const char *s, fl_scale_scheme *v, int *n)
{
    *n = 0;
    if (!*s || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
        return cli_error("hist: --scaling: '%s' must be a comma-separated list of "
                         "schemes", s), -1;
    char *copy = strdup(s), *save = NULL;
    if (!copy)
        return cli_error("out of memory"), -1;
    int item = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char err[512];
        item++;
        if (*n >= MAX_SCHEMES) {
            free(copy);
            return cli_error("hist: --scaling: more than %d schemes", MAX_SCHEMES), -1;
        }
        if (fl_scale_scheme_parse(&v[*n], t, err, sizeof err)) {
            cli_error("hist: --scaling: item %d: %s", item, err);
            free(copy);
            return -1;
        }
        (*n)++;
    }
    free(copy);
    return 0;
}

/* Base name without directory and extension, for output names; a member
 * of an .npz or .safetensors file adds its key ("w.npz:grad" -> w_grad). */
static void stem_of(const char *spec, char *out, size_t len)
{
    char *path = NULL, *key = NULL;
    if (tensor_spec_split(spec, &path, &key)) {
        free(path);
        path = key = NULL;
    }
    const char *p0 = path ? path : spec;
    const char *b = strrchr(p0, '/');
    b = b ? b + 1 : p0;
    snprintf(out, len, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = 0;
    if (key) {
        size_t o = strlen(out);
        snprintf(out + o, len > o ? len - o : 0, "_%s", key);
    }
    free(path);
    free(key);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            *p = '_';
}

int cmd_hist(int argc, char **argv)
{
    const char *file = NULL, *fmt = NULL, *scales_s = "1,8,1024,65536", *out = "out";
    const char *scaling_s = NULL, *dtype = NULL, *in_format = NULL;
    uint64_t lastopt = 0;
    int have_lo = 0, have_hi = 0;
    long lo = -40, hi = 16;
    const cli_string_opt strings[] = {
        {"--format", &fmt},       {"--scales", &scales_s}, {"--out", &out},
        {"--scaling", &scaling_s}, {"--in-format", &in_format},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const cli_string_opt *str =
            cli_string_opt_find(strings, sizeof strings / sizeof strings[0], a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        if (str || !strcmp(a, "--dtype") || !strcmp(a, "--lo") ||
            !strcmp(a, "--hi") || !strcmp(a, "--last")) {
            if (i + 1 >= argc)
                return cli_error("hist: %s needs a value", a);
            const char *v = argv[++i];
            if (str)
                *str->value = v;
            else if (!strcmp(a, "--last")) {
                if (cli_parse_u64(v, &lastopt) || lastopt == 0 ||
                    lastopt > ((uint64_t)1 << 40))
                    return cli_error("hist: --last: '%s' is not a positive integer", v);
            } else if (!strcmp(a, "--dtype")) {
                dtype = v;
                if (cli_values_dtype(v) < 0)
                    return cli_error("hist: --dtype: '%s' is not f16, f32 or f64", v);
            } else {
                char *end;
                long x = strtol(v, &end, 10);
                if (!*v || *end || x < -1000 || x > 1000)
                    return cli_error("hist: %s: '%s' is not an integer in -1000..1000",
                                     a, v);
                if (!strcmp(a, "--lo")) {
                    lo = x;
                    have_lo = 1;
                } else {
                    hi = x;
                    have_hi = 1;
                }
            }
        } else if (cli_input_file("hist", a, &file, usage) != 0) {
            return CLI_USAGE;
        }
    }
    if (!file)
        return usage(stderr), cli_error("hist: no input file");
    if (!fmt)
        return cli_error("hist: --format is required (e.g. --format binary16)");
    fl_format f;
    if (cli_parse_format(fmt, &f, "hist: --format"))
        return CLI_USAGE;
    double sc[MAX_SCALES];
    int ns;
    if (parse_scales(scales_s, sc, &ns))
        return CLI_USAGE;
    double smax = 0;
    for (int k = 0; k < ns; k++)
        smax = sc[k] > smax ? sc[k] : smax;
    if (!have_hi)
        hi = 16 + (long)ceil(log2(smax));
    (void)have_lo;
    if (lo >= hi)
        return cli_error("hist: --lo %ld must be below --hi %ld", lo, hi);
    if (lastopt && !scaling_s)
        return cli_error("hist: --last applies to --scaling only");
    fl_scale_scheme schemes[MAX_SCHEMES];
    int nsch = 0;
    if (scaling_s && parse_schemes(scaling_s, schemes, &nsch))
        return CLI_USAGE;

    cli_values in;
    if (cli_values_read(&in, "hist", file, dtype, in_format))
        return CLI_USAGE;
    const tensor *t = &in.t;
    const size_t n = t->n;
    size_t last = 0;
    if (nsch) {
        /* blocks run along the last axis (the data are in C order) */
        last = t->ndim ? t->shape[t->ndim - 1] : 1;
        if (lastopt) {
            if (t->ndim >= 2 && last != lastopt) {
                cli_values_free(&in);
                return cli_error("hist: --last %llu contradicts %s's last axis of %zu",
                                 (unsigned long long)lastopt, file, last);
            }
            last = (size_t)lastopt;
            if (n % last) {
                cli_values_free(&in);
                return cli_error("hist: --last %llu: %s holds %zu values, not whole rows "
                                 "of %llu", (unsigned long long)lastopt, file, n,
                                 (unsigned long long)lastopt);
            }
        }
        for (int q = 0; q < nsch; q++)
            if (schemes[q].kind != FL_SCALE_TENSOR && last % schemes[q].block) {
                cli_values_free(&in);
                return cli_error("hist: --scaling %s: %s's last axis has length %zu, "
                                 "which is not a multiple of the block size %u (give "
                                 "--last L for a raw or text input)", schemes[q].name,
                                 file, last, (unsigned)schemes[q].block);
            }
    }
    const float *g = in.x;
    fl_hist h;
    char herr[512];
    int rc = CLI_OK;
    if (fl_hist_run(&h, &f, g, n, sc, ns, (int)lo, (int)hi, schemes, nsch, last,
                    herr, sizeof herr)) {
        cli_values_free(&in);
        return cli_error("hist: %s", herr);
    }
    const size_t live = h.live;
    char shp[256];
    tensor_shape_str(t, shp, sizeof shp);
    const int text = t->container == TENSOR_TEXT;
    printf("%s: %s%s%s, shape %s, %zu values: %zu nonzero finite, %zu zero, "
           "%zu inf/nan\n", file, in.kind, text ? "" : in.big_endian ? " >" : " ",
           text ? "" : in.dtype, shp, n, live, h.zeros, h.nonfinite);
    if (in.to_zero || in.to_inf)
        printf("note: rounding to binary32 turned %zu values into zero and %zu into "
               "infinity\n", in.to_zero, in.to_inf);
    if (live)
        printf("|g| range: %.6g (2^%.2f) .. %.6g (2^%.2f)\n", h.minabs,
               log2(h.minabs), h.maxabs, log2(h.maxabs));
    printf("format %s; fractions of the %zu nonzero finite values after g*S is "
           "rounded into it:\n\n", f.name, live);
    printf("%12s %12s %12s %12s %12s\n", "scale", "underflow", "subnormal", "overflow",
           "normal");
    for (int k = 0; k < ns; k++) {
        const fl_hist_scale *q = &h.scales[k];
        double den = live ? (double)live : 1;
        printf("%12.6g %12.6f %12.6f %12.6f %12.6f\n", sc[k],
               q->range.underflow / den, q->range.subnormal / den,
               q->range.overflow / den, q->normal / den);
    }

    printf("\nrule: no overflow, then fewest underflows, then fewest subnormals\n");
    if (h.best < 0) {
        printf("best scale: none (every scale overflows)\n");
    } else {
        const fl_hist_range *b = &h.scales[h.best].range;
        if (h.ties == 1)
            printf("best scale: %g (underflow %llu, subnormal %llu, overflow 0)\n",
                   h.best_lo, (unsigned long long)b->underflow,
                   (unsigned long long)b->subnormal);
        else
            printf("best scales: %g .. %g (%d tied: underflow %llu, subnormal %llu, "
                   "overflow 0)\n", h.best_lo, h.best_hi, h.ties,
                   (unsigned long long)b->underflow,
                   (unsigned long long)b->subnormal);
    }
    if (live) {
        printf("power-of-two scales: no overflow for S <= 2^%d; no underflow for "
               "S >= 2^%d; no subnormal for S >= 2^%d\n", h.kmax, h.kunder, h.ksub);
        if (h.kunder <= h.kmax)
            printf("window with neither overflow nor underflow: 2^%d .. 2^%d\n",
                   h.kunder, h.kmax);
        else
            printf("no power-of-two scale avoids both: the values span more than "
                   "the format's range\n");
    }

    /* block and per-tensor scaling beside the loss scales */
    const fl_scale_stats *sst = h.scheme_stats;
    const fl_scale_tensor *stt = h.scheme_tensor;
    if (nsch) {
        printf("\nblock and per-tensor scaling (fractions of the %zu nonzero finite "
               "values; blocks along the last axis of %zu):\n\n", live, last);
        printf("%-22s %10s %10s %10s %8s %11s %11s %11s\n", "scheme", "underflow",
               "subnormal", "saturated", "lost", "relerr max", "mean", "rms");
        for (int q = 0; q < nsch; q++) {
            const double den = live ? (double)live : 1;
            printf("%-22s %10.6f %10.6f %10.6f %8llu %11.4e %11.4e %11.4e\n",
                   schemes[q].name, sst[q].underflow / den, sst[q].subnormal / den,
                   sst[q].saturated / den, (unsigned long long)sst[q].lost,
                   sst[q].rel_max, fl_scale_stats_rel_mean(&sst[q]),
                   fl_scale_stats_rel_rms(&sst[q]));
        }
        printf("(underflow: became 0; subnormal: a subnormal element; saturated: "
               "clamped to the largest element; lost: in a block with a NaN scale)\n");
    }

    /* data files */
    if (cli_mkdir_p(out, "hist: --out")) {
        rc = CLI_USAGE;
        goto done;
    }
    char stem[200], path[4096];
    stem_of(file, stem, sizeof stem);
    /* each data file whole or not at all (cli_out); the third only with
     * --scaling */
    static const char *const dat_suffix[3] = { "", "_scales", "_scaling" };
    for (int fi = 0; fi < (nsch ? 3 : 2); fi++) {
        cli_out o;
        snprintf(path, sizeof path, "%s/hist_%s%s.dat", out, stem, dat_suffix[fi]);
        if (cli_out_open(&o, path)) {
            rc = CLI_USAGE;
            goto done;
        }
        if (fi == 0) {
            fprintf(o.fp, "# fplab %s: log2 histogram of |g*S| per scale\n# input: %s (%s %s, "
                          "shape %s, %zu values)\n# format: %s (emin %d, emax %d, prec %d)\n"
                          "# params: lo=%ld hi=%ld scales=%s\n# outside the bins: zeros=%llu "
                          "nonfinite=%llu\n",
                    FPLAB_VERSION, file, in.kind, in.dtype, shp, n, f.name,
                    f.emin, f.emax, f.prec, lo, hi, scales_s,
                    (unsigned long long)h.scales[0].log2.zeros,
                    (unsigned long long)h.scales[0].log2.nonfinite);
            fprintf(o.fp, "# below (|g*S| < 2^lo) per scale:");
            for (int k = 0; k < ns; k++)
                fprintf(o.fp, " %llu", (unsigned long long)h.scales[k].log2.below);
            fprintf(o.fp, "\n# above (|g*S| >= 2^hi) per scale:");
            for (int k = 0; k < ns; k++)
                fprintf(o.fp, " %llu", (unsigned long long)h.scales[k].log2.above);
            fprintf(o.fp, "\n# columns: log2_lower_edge");
            for (int k = 0; k < ns; k++)
                fprintf(o.fp, " count_S=%g", sc[k]);
            fprintf(o.fp, "\n");
            for (long b = lo; b < hi; b++) {
                fprintf(o.fp, "%ld", b);
                for (int k = 0; k < ns; k++)
                    fprintf(o.fp, " %llu", (unsigned long long)h.scales[k].log2.bins[b - lo]);
                fprintf(o.fp, "\n");
            }
        } else if (fi == 1) {
            fprintf(o.fp, "# fplab %s: range statistics of g*S rounded (RNE) into %s\n"
                          "# input: %s (%zu values, %zu nonzero finite)\n# params: scales=%s\n"
                          "# columns: scale underflow subnormal overflow normal (counts of the "
                          "nonzero finite values)\n", FPLAB_VERSION, f.name, file, n, live,
                    scales_s);
            for (int k = 0; k < ns; k++)
                fprintf(o.fp, "%.9g %llu %llu %llu %llu\n", sc[k],
                        (unsigned long long)h.scales[k].range.underflow,
                        (unsigned long long)h.scales[k].range.subnormal,
                        (unsigned long long)h.scales[k].range.overflow,
                        (unsigned long long)h.scales[k].normal);
        } else {
            fprintf(o.fp, "# fplab %s: block and per-tensor scaling of %s\n# input: %s "
                          "(%zu values, %zu nonzero finite, last axis %zu)\n# params: "
                          "scaling=%s\n# columns: scheme nonzero underflow subnormal "
                          "saturated lost rel_n rel_max rel_mean rel_rms tensor_amax "
                          "tensor_scale_inv (counts of the nonzero finite values; tensor "
                          "columns 0 for MX)\n", FPLAB_VERSION, file, file, n, live,
                    last, scaling_s);
            for (int q = 0; q < nsch; q++)
                fprintf(o.fp, "%s %llu %llu %llu %llu %llu %llu %.9g %.9g %.9g %.9g %.9g\n",
                        schemes[q].name, (unsigned long long)sst[q].nonzero,
                        (unsigned long long)sst[q].underflow,
                        (unsigned long long)sst[q].subnormal,
                        (unsigned long long)sst[q].saturated,
                        (unsigned long long)sst[q].lost, (unsigned long long)sst[q].rel_n,
                        sst[q].rel_max, fl_scale_stats_rel_mean(&sst[q]),
                        fl_scale_stats_rel_rms(&sst[q]), (double)stt[q].amax,
                        (double)stt[q].scale_inv);
        }
        if (cli_out_commit(&o)) {
            rc = CLI_USAGE;
            goto done;
        }
    }
    if (nsch) {
        printf("\nwrote %s/hist_%s.dat, %s/hist_%s_scales.dat and %s/hist_%s_scaling.dat\n",
               out, stem, out, stem, out, stem);
    } else {
        printf("\nwrote %s/hist_%s.dat and %s/hist_%s_scales.dat\n", out, stem, out, stem);
    }
done:
    fl_hist_free(&h);
    cli_values_free(&in);
    return rc;
}
