/*
 * cmd_quantize.c — `fplab quantize`: a tensor quantized with an MX, NVFP4
 * or FP8 per-tensor scheme (fplab/scale.h), bit for bit.
 *
 *   fplab quantize --scheme S IN[:KEY] --dequant-out D.npy [--codes-out C.npy]
 *                  [--scales-out S.npy] [--tensor-scale-out T.npy]
 *                  [--blocks-out B.tsv] [--seed N] [--last L] [--worst K]
 *                  [--dtype f16|f32|f64] [--in-format F]
 *
 * IN is a tensor file (.npy, or a member KEY of an .npz or .safetensors
 * file: float16/32/64, bfloat16, fp8, any shape, C or Fortran order, or
 * unsigned bit patterns of the format --in-format names), raw
 * little-endian values with --dtype, or text numbers (cli/values.h); its
 * values are taken as binary32 (the dtype a tensor is quantized from), and
 * values that the conversion changes (a float64 that becomes 0 or inf) are
 * reported.
 * Blocks run along the last axis (raw and text inputs are one row unless
 * --last says otherwise); a last axis that is not a multiple of the block
 * is an error that names both.
 *
 * Outputs, each written to a temporary name and renamed into place only
 * when every output is complete (tensors through fplab_tensor: .npz or
 * .safetensors by name, with the keys dequant, codes, scales and
 * tensor_scale, else .npy): the dequantized tensor (float32, the
 * input's shape), the element codes (uint8, the input's shape; fp4 and fp6
 * codes in the low bits, MXINT8 two's complement), the block scales (uint8
 * E8M0 or E4M3 bits, shape (..., L / block); per-tensor schemes: float32
 * (1,) holding the decoding scale), the per-tensor decoding scale (NVFP4
 * S_dec, or the FP8 scale_inv; float32 (1,)), and one line per block.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fplab/scale.h"
#include "values.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: fplab quantize --scheme S IN[:KEY] --dequant-out D.npy [--codes-out C.npy]\n"
            "                      [--scales-out S.npy] [--tensor-scale-out T.npy]\n"
            "                      [--blocks-out B.tsv] [--seed N] [--last L]\n"
            "                      [--worst K] [--dtype f16|f32|f64] [--in-format F]\n"
            "                      [--sr-bits R.npy --sr-nbits N [--sr-variant V]]\n\n"
            "S: mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4-e2m1 mxint8\n"
            "   (OCP MX v1.0: blocks of 32, E8M0 scale), nvfp4 (blocks of 16, E4M3\n"
            "   scale, FP32 tensor scale), fp8-e4m3-tensor fp8-e5m2-tensor\n"
            "   (Transformer Engine current scaling), with options after ':':\n"
            "   :floor :ceil :even :rceil  MX scale rule (floor = OCP MX 6.3)\n"
            "   :rne :rna :rtz :sr         element rounding (rne default)\n"
            "   :nonsat :pow2              per-tensor: overflow to inf/NaN;\n"
            "                              scale rounded down to a power of two\n"
            "IN: .npy, or a member KEY of an .npz or .safetensors file (float16/32/64,\n"
            "bfloat16, fp8, any shape, C or Fortran order; uint bit patterns of the\n"
            "format --in-format names), raw little-endian values with --dtype, or\n"
            "text numbers; taken as binary32.\n"
            "Outputs named .npz or .safetensors hold the key dequant, codes, scales\n"
            "or tensor_scale; any other name is a .npy.\n"
            "Blocks run along the last axis (--last L: rows of L for raw/text).\n"
            "--codes-out: uint8 codes; --scales-out: uint8 E8M0/E4M3 block scales\n"
            "(float32 (1,) decoding scale for per-tensor schemes);\n"
            "--tensor-scale-out: float32 (1,) per-tensor decoding scale (nvfp4,\n"
            "per-tensor); --blocks-out: one line per block (counts, errors);\n"
            "--seed: stochastic rounding stream (schemes with :sr);\n"
            "--sr-bits: the elements round stochastically with supplied random\n"
            "bits, an unsigned-integer tensor with one value per element (flat\n"
            "order), N bits each, variant V: stochastic (default), stochastic-odd,\n"
            "fast, fastest (P3109 Release 3.1; docs/formats.md);\n"
            "--worst K: blocks listed in the summary (default 5).\n");
}

static int same_path(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* The file a spec names ("w.npz:x" -> "w.npz"); the spec when it cannot
 * be split.  Caller frees. */
static char *spec_path(const char *spec)
{
    char *path = NULL, *key = NULL;
    if (tensor_spec_split(spec, &path, &key)) {
        free(path);
        path = NULL;
    }
    free(key);
    return path ? path : strdup(spec);
}

typedef struct worst {
    size_t b;
    float key, key2;   /* max relative error (Inf: NaN scale), then rms */
} worst;

static int worst_cmp(const void *pa, const void *pb)
{
    const worst *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    if (a->key2 != b->key2)
        return a->key2 > b->key2 ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static void scale_str(const fl_scale_scheme *s, uint8_t c, char *buf, size_t len)
{
    if (s->kind == FL_SCALE_MX) {
        if (c == 0xFF)
            snprintf(buf, len, "0x%02x NaN", c);
        else
            snprintf(buf, len, "0x%02x 2^%d", c, (int)c - 127);
    } else {
        snprintf(buf, len, "0x%02x %.6g", c, fl_scale_block_value(s, c));
    }
}

int cmd_quantize(int argc, char **argv)
{
    const char *file = NULL, *scheme_s = NULL, *deq_out = NULL, *codes_out = NULL,
               *scales_out = NULL, *tscale_out = NULL, *blocks_out = NULL,
               *dtype = NULL, *in_format = NULL, *srb_file = NULL,
               *srb_nbits = NULL, *srb_variant = NULL;
    int have_seed = 0;
    uint64_t *srb = NULL;
    uint64_t seed = 0, lastopt = 0, worstk = 5;
    const cli_string_opt strings[] = {
        {"--scheme", &scheme_s},          {"--dequant-out", &deq_out},
        {"--codes-out", &codes_out},      {"--scales-out", &scales_out},
        {"--tensor-scale-out", &tscale_out}, {"--blocks-out", &blocks_out},
        {"--in-format", &in_format},      {"--sr-bits", &srb_file},
        {"--sr-nbits", &srb_nbits},       {"--sr-variant", &srb_variant},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const cli_string_opt *str =
            cli_string_opt_find(strings, sizeof strings / sizeof strings[0], a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        if (str || !strcmp(a, "--dtype") || !strcmp(a, "--seed") ||
            !strcmp(a, "--last") || !strcmp(a, "--worst")) {
            if (i + 1 >= argc)
                return cli_error("quantize: %s needs a value", a);
            const char *v = argv[++i];
            if (str)
                *str->value = v;
            else if (!strcmp(a, "--dtype")) {
                dtype = v;
                if (cli_values_dtype(v) < 0)
                    return cli_error("quantize: --dtype: '%s' is not f16, f32 or f64", v);
            } else if (!strcmp(a, "--seed")) {
                if (cli_parse_u64(v, &seed))
                    return cli_error("quantize: --seed: '%s' is not an unsigned integer",
                                     v);
                have_seed = 1;
            } else if (!strcmp(a, "--last")) {
                if (cli_parse_u64(v, &lastopt) || lastopt == 0 ||
                    lastopt > ((uint64_t)1 << 40))
                    return cli_error("quantize: --last: '%s' is not a positive integer",
                                     v);
            } else {
                if (cli_parse_u64(v, &worstk) || worstk > 100000)
                    return cli_error("quantize: --worst: '%s' is not an integer in "
                                     "0..100000", v);
            }
        } else if (cli_input_file("quantize", a, &file, usage) != 0) {
            return CLI_USAGE;
        }
    }
    if (!file)
        return usage(stderr), cli_error("quantize: no input file");
    if (!scheme_s)
        return cli_error("quantize: --scheme is required (mxfp8-e4m3, mxfp8-e5m2, "
                         "mxfp6-e2m3, mxfp6-e3m2, mxfp4-e2m1, mxint8, nvfp4, "
                         "fp8-e4m3-tensor, fp8-e5m2-tensor)");
    if (!deq_out)
        return cli_error("quantize: --dequant-out is required (the dequantized "
                         "tensor, float32 .npy)");
    fl_scale_scheme s;
    char err[512];
    if (fl_scale_scheme_parse(&s, scheme_s, err, sizeof err))
        return cli_error("quantize: --scheme: %s", err);
    if (have_seed && s.rm != FL_RSR)
        return cli_error("quantize: --seed applies to stochastic rounding; scheme "
                         "'%s' rounds with %s (add ':sr')", s.name, fl_rm_name(s.rm));
    s.seed = seed;
    if (!srb_file && (srb_nbits || srb_variant))
        return cli_error("quantize: --sr-nbits and --sr-variant go with "
                         "--sr-bits FILE");
    if (srb_file) {
        uint64_t v;
        if (s.rm != FL_RNE)
            return cli_error("quantize: --sr-bits sets the element rounding; "
                             "scheme '%s' already rounds with %s", s.name,
                             fl_rm_name(s.rm));
        if (!srb_nbits || cli_parse_u64(srb_nbits, &v) || v < 1 || v > 64)
            return cli_error("quantize: --sr-bits needs --sr-nbits N, N = "
                             "1..64");
        s.sr_nbits = (int)v;
        s.sr_variant = FL_SRV_STOCHASTIC;
        if (srb_variant && (s.sr_variant = fl_srv_parse(srb_variant)) < 0)
            return cli_error("quantize: --sr-variant: '%s' is not stochastic, "
                             "stochastic-odd, fast or fastest", srb_variant);
        s.rm = FL_RSB;
    }
    if (tscale_out && s.kind == FL_SCALE_MX)
        return cli_error("quantize: --tensor-scale-out: %s has no per-tensor scale "
                         "(only nvfp4 and the per-tensor schemes do)", s.name);
    {
        const char *outs[5] = {deq_out, codes_out, scales_out, tscale_out, blocks_out};
        const char *names[5] = {"--dequant-out", "--codes-out", "--scales-out",
                                "--tensor-scale-out", "--blocks-out"};
        char *in_path = spec_path(file);
        if (!in_path)
            return cli_error("quantize: out of memory");
        for (int p = 0; p < 5; p++) {
            if (same_path(outs[p], in_path)) {
                free(in_path);
                return cli_error("quantize: %s '%s' is the input file", names[p],
                                 outs[p]);
            }
            for (int q = p + 1; q < 5; q++)
                if (same_path(outs[p], outs[q])) {
                    free(in_path);
                    return cli_error("quantize: %s and %s name the same file '%s'",
                                     names[p], names[q], outs[p]);
                }
        }
        free(in_path);
    }

    cli_values in;
    if (cli_values_read(&in, "quantize", file, dtype, in_format))
        return CLI_USAGE;
    const tensor *arr = &in.t;
    int rc = CLI_OK;
    float *deq = NULL;
    uint8_t *codes = NULL, *scales = NULL;
    fl_scale_block_stats *blocks = NULL;
    worst *wl = NULL;
    char shp[256];
    tensor_shape_str(arr, shp, sizeof shp);
    if (arr->n == 0) {
        rc = cli_error("quantize: %s (shape %s) holds no values", file, shp);
        goto done;
    }
    /* output shape and last axis (the data are in C order) */
    size_t oshape[TENSOR_MAXDIM];
    int ondim;
    size_t last;
    if (lastopt) {
        if (arr->ndim >= 2 && arr->shape[arr->ndim - 1] != lastopt) {
            rc = cli_error("quantize: --last %llu contradicts %s's shape %s (last axis "
                           "%zu)", (unsigned long long)lastopt, file, shp,
                           arr->shape[arr->ndim - 1]);
            goto done;
        }
        if (arr->n % lastopt) {
            rc = cli_error("quantize: --last %llu: %s holds %zu values, not whole rows "
                           "of %llu", (unsigned long long)lastopt, file, arr->n,
                           (unsigned long long)lastopt);
            goto done;
        }
        last = (size_t)lastopt;
        if (arr->ndim >= 2) {
            ondim = arr->ndim;
            memcpy(oshape, arr->shape, sizeof arr->shape[0] * (size_t)arr->ndim);
        } else {
            ondim = 2;
            oshape[0] = arr->n / last;
            oshape[1] = last;
        }
    } else if (arr->ndim == 0) {
        last = 1;
        ondim = 0;
    } else {
        last = arr->shape[arr->ndim - 1];
        ondim = arr->ndim;
        memcpy(oshape, arr->shape, sizeof arr->shape[0] * (size_t)arr->ndim);
    }

    const float *x = in.x;
    const size_t n = arr->n, nb = fl_scale_nblocks(&s, n);
    if (srb_file) {
        tensor bt;
        char terr[1024];
        memset(&bt, 0, sizeof bt);
        if (tensor_read(&bt, srb_file, terr, sizeof terr) != 0) {
            rc = cli_error("quantize: --sr-bits: %s", terr);
            goto done;
        }
        if (bt.dtype != TENSOR_U8 && bt.dtype != TENSOR_U16 &&
            bt.dtype != TENSOR_U32 && bt.dtype != TENSOR_U64) {
            rc = cli_error("quantize: --sr-bits %s holds %s; the random bits "
                           "are an unsigned integer tensor (uint8..uint64)",
                           srb_file, tensor_dtype_name(bt.dtype));
            tensor_free(&bt);
            goto done;
        }
        if (bt.n != n) {
            rc = cli_error("quantize: --sr-bits %s holds %zu values, %s %zu",
                           srb_file, bt.n, file, n);
            tensor_free(&bt);
            goto done;
        }
        srb = malloc((n ? n : 1) * sizeof *srb);
        if (!srb) {
            tensor_free(&bt);
            rc = cli_error("quantize: out of memory");
            goto done;
        }
        tensor_to_bits(&bt, srb);
        tensor_free(&bt);
        for (size_t i = 0; i < n; i++)
            if (s.sr_nbits < 64 && srb[i] >> s.sr_nbits) {
                rc = cli_error("quantize: --sr-bits %s: element %zu is %llu, "
                               "which does not fit in %d bits", srb_file, i,
                               (unsigned long long)srb[i], s.sr_nbits);
                goto done;
            }
        s.sr_bits = srb;
    }
    deq = malloc(n * sizeof *deq);
    codes = malloc(n);
    scales = malloc(nb ? nb : 1);
    blocks = calloc(nb ? nb : 1, sizeof *blocks);
    if (!deq || !codes || !scales || !blocks) {
        rc = cli_error("quantize: out of memory");
        goto done;
    }
    fl_scale_out o;
    memset(&o, 0, sizeof o);
    o.codes = codes;
    o.scales = s.kind == FL_SCALE_TENSOR ? NULL : scales;
    o.dequant = deq;
    o.blocks = blocks;
    if (fl_scale_quantize(&s, x, n, last, &o, err, sizeof err)) {
        rc = cli_error("quantize: %s (shape %s): %s", file, shp, err);
        goto done;
    }

    /* ---- outputs: all written, then all renamed into place ----------- */
    {
        cli_out outs[5];
        int nouts = 0, bad = 0;
        float tsc[1] = {o.tensor.scale_inv};
        const size_t one[1] = {1};
        size_t sshape[TENSOR_MAXDIM];
        int sndim = ondim > 0 ? ondim : 1;
        if (ondim > 0)
            memcpy(sshape, oshape, sizeof oshape[0] * (size_t)ondim);
        else
            sshape[0] = 1;
        if (s.kind != FL_SCALE_TENSOR)
            sshape[sndim - 1] = last / s.block;
        const int pt = s.kind == FL_SCALE_TENSOR;
        struct {
            const char *path, *key;
            tensor_dtype dtype;
            void *data;
            const size_t *shape;
            int ndim;
        } w[4] = {
            {deq_out, "dequant", TENSOR_F32, deq, oshape, ondim},
            {codes_out, "codes", TENSOR_U8, codes, oshape, ondim},
            {scales_out, "scales", pt ? TENSOR_F32 : TENSOR_U8,
             pt ? (void *)tsc : (void *)scales, pt ? one : sshape, pt ? 1 : sndim},
            {tscale_out, "tensor_scale", TENSOR_F32, tsc, one, 1},
        };
        for (int q = 0; q < 4 && !bad; q++) {
            if (!w[q].path)
                continue;
            if (cli_out_open(&outs[nouts], w[q].path)) {
                bad = 1;
                break;
            }
            nouts++;
            /* the tensor over the buffer: nothing to free */
            tensor t;
            memset(&t, 0, sizeof t);
            t.dtype = w[q].dtype;
            t.ndim = w[q].ndim;
            t.n = 1;
            for (int d = 0; d < t.ndim; d++)
                t.n *= t.shape[d] = w[q].shape[d];
            t.data = w[q].data;
            const tensor *tp = &t;
            if (tensor_write_fp(outs[nouts - 1].fp, w[q].path, &tp, &w[q].key, 1,
                                TENSOR_WRITE_NPY_ANY, err, sizeof err)) {
                cli_error("quantize: %s", err);
                bad = 1;
            }
        }
        if (!bad && blocks_out) {
            if (cli_out_open(&outs[nouts], blocks_out)) {
                bad = 1;
            } else {
                FILE *fp = outs[nouts++].fp;
                char d1[160];
                fl_scale_scheme_describe(&s, d1, sizeof d1);
                fprintf(fp, "# fplab %s quantize: %s\n# scheme %s: %s\n# input %s, shape "
                            "%s, %zu values, last axis %zu\n", FPLAB_VERSION, file,
                        s.name, d1, file, shp, n, last);
                if (s.kind != FL_SCALE_MX)
                    fprintf(fp, "# tensor amax %.9g scale %.9g scale_inv %.9g\n",
                            (double)o.tensor.amax, (double)o.tensor.scale,
                            (double)o.tensor.scale_inv);
                fprintf(fp, "# columns: block row col_first col_last scale_code "
                            "scale_value nonzero underflow subnormal saturated "
                            "nonfinite rel_max rel_mean rel_rms\n");
                const size_t per_row = s.kind == FL_SCALE_TENSOR ? 1 : last / s.block;
                const size_t bw = s.kind == FL_SCALE_TENSOR ? n : s.block;
                for (size_t b = 0; b < nb; b++) {
                    const fl_scale_block_stats *bs = &blocks[b];
                    const unsigned sc = s.kind == FL_SCALE_TENSOR ? 0 : scales[b];
                    const double sv = s.kind == FL_SCALE_TENSOR ? (double)o.tensor.scale_inv
                                      : fl_scale_block_value(&s, (uint8_t)sc);
                    fprintf(fp, "%zu %zu %zu %zu 0x%02x %.9g %u %u %u %u %u %.9g %.9g "
                                "%.9g\n", b, b / per_row, (b % per_row) * bw,
                            (b % per_row) * bw + bw - 1, sc, sv, bs->nonzero,
                            bs->underflow, bs->subnormal, bs->saturated, bs->nonfinite,
                            (double)bs->rel_max, (double)bs->rel_mean,
                            (double)bs->rel_rms);
                }
                if (ferror(fp)) {
                    cli_error("quantize: %s: write failed", blocks_out);
                    bad = 1;
                }
            }
        }
        for (int q = 0; q < nouts; q++) {
            if (bad)
                cli_out_abort(&outs[q]);
            else if (cli_out_commit(&outs[q]))
                bad = 1;   /* the rest are aborted */
        }
        if (bad) {
            rc = CLI_USAGE;
            goto done;
        }
    }

    /* ---- summary ------------------------------------------------------ */
    {
        const fl_scale_stats *st = &o.stats;
        const int text = arr->container == TENSOR_TEXT;
        char desc[256];
        fl_scale_scheme_describe(&s, desc, sizeof desc);
        printf("input: %s (%s%s%s, shape %s, %zu values: %llu nonzero finite, %llu "
               "zero, %llu NaN, %llu inf)\n", file, in.kind, text ? "" : " ",
               text ? "" : in.dtype, shp, n,
               (unsigned long long)st->nonzero, (unsigned long long)st->zero,
               (unsigned long long)st->nan_in, (unsigned long long)st->inf_in);
        if (in.to_zero || in.to_inf)
            printf("note: rounding to binary32 turned %zu values into zero and %zu into "
                   "infinity\n", in.to_zero, in.to_inf);
        printf("scheme: %s\n  %s\n", s.name, desc);
        if (s.rm == FL_RSR)
            printf("  stochastic rounding seed %llu\n", (unsigned long long)s.seed);
        if (s.kind == FL_SCALE_TENSOR)
            printf("tensor: amax %.9g, scale %.9g, scale_inv %.9g\n",
                   (double)o.tensor.amax, (double)o.tensor.scale,
                   (double)o.tensor.scale_inv);
        else {
            printf("blocks: %zu of %u elements along rows of %zu (%llu with a NaN "
                   "scale)\n", nb, (unsigned)s.block, last,
                   (unsigned long long)st->nan_blocks);
            if (s.kind == FL_SCALE_NVFP4)
                printf("tensor: amax %.9g, S_enc %.9g, S_dec %.9g\n",
                       (double)o.tensor.amax, (double)o.tensor.scale,
                       (double)o.tensor.scale_inv);
        }
        const double den = st->nonzero ? (double)st->nonzero : 1.0;
        printf("%-26s %12s %12s\n", "of the nonzero finite", "count", "fraction");
        printf("%-26s %12llu %12.6f\n", "underflow to zero",
               (unsigned long long)st->underflow, st->underflow / den);
        printf("%-26s %12llu %12.6f\n", "subnormal element",
               (unsigned long long)st->subnormal, st->subnormal / den);
        printf("%-26s %12llu %12.6f\n", "saturated", (unsigned long long)st->saturated,
               st->saturated / den);
        printf("%-26s %12llu\n", "lost to a NaN scale", (unsigned long long)st->lost);
        printf("relative error over %llu values: max %.6e  mean %.6e  rms %.6e\n",
               (unsigned long long)st->rel_n, st->rel_max, fl_scale_stats_rel_mean(st),
               fl_scale_stats_rel_rms(st));
        if (s.kind != FL_SCALE_TENSOR && worstk && nb) {
            wl = malloc(nb * sizeof *wl);
            if (!wl) {
                rc = cli_error("quantize: out of memory");
                goto done;
            }
            size_t nw = 0;
            for (size_t b = 0; b < nb; b++)
            {
                /* a NaN-scale block first: it lost everything */
                const int nanb = isnan(fl_scale_block_value(&s, scales[b]));
                if (blocks[b].rel_max > 0 || nanb) {
                    wl[nw].b = b;
                    wl[nw].key = nanb ? INFINITY : blocks[b].rel_max;
                    wl[nw].key2 = blocks[b].rel_rms;
                    nw++;
                }
            }
            qsort(wl, nw, sizeof *wl, worst_cmp);
            const size_t per_row = last / s.block;
            if (!nw)
                printf("worst blocks: none (every block is exact)\n");
            else {
                printf("worst blocks (NaN scale first, then the largest relative error, "
                       "then the largest rms):\n");
                printf("  %8s %8s %15s %-14s %8s %8s %8s %12s %12s\n", "block", "row",
                       "columns", "scale", "underfl", "subnorm", "satur", "rel max",
                       "rel rms");
            }
            for (size_t q = 0; q < nw && q < worstk; q++) {
                const size_t b = wl[q].b;
                char cols[48], scs[32];
                snprintf(cols, sizeof cols, "%zu..%zu", (b % per_row) * s.block,
                         (b % per_row) * s.block + s.block - 1);
                scale_str(&s, scales[b], scs, sizeof scs);
                printf("  %8zu %8zu %15s %-14s %8u %8u %8u %12.6e %12.6e\n", b,
                       b / per_row, cols, scs, blocks[b].underflow, blocks[b].subnormal,
                       blocks[b].saturated, (double)blocks[b].rel_max,
                       (double)blocks[b].rel_rms);
            }
        }
        printf("wrote %s", deq_out);
        if (codes_out)
            printf(", %s", codes_out);
        if (scales_out)
            printf(", %s", scales_out);
        if (tscale_out)
            printf(", %s", tscale_out);
        if (blocks_out)
            printf(", %s", blocks_out);
        printf("\n");
    }
done:
    free(srb);
    free(wl);
    free(deq);
    free(codes);
    free(scales);
    free(blocks);
    cli_values_free(&in);
    return rc;
}
