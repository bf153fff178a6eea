/*
 * cmd_compare.c — `fplab compare KERNEL_OUT REF [options]`: the verdict on
 * a kernel's output against a reference, with its evidence.
 *
 * A thin shell over fplab/compare.h: reads the tensors (fplab_tensor),
 * checks that both hold the same float format and shape, runs the
 * comparison, and prints (and with --json writes) the counts, the ulp
 * histogram, the worst element with its operands, the first mismatches,
 * the accuracy of kernel and reference against the exact result, and for
 * GEMM outputs where the differences concentrate.
 *
 * Default tolerance: none, i.e. bit-identical required (a NaN matches any
 * NaN).  A reference computed in the kernel's arithmetic model is expected
 * to agree bit for bit; a CI job that wants slack says how much (--ulp,
 * --rtol/--atol, --torch-defaults).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fplab/compare.h"
#include "tensor.h"

#define NONE UINT64_MAX
#define MAX_INPUTS 8
#define KB_SAMPLES 4096

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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
#define NEED_VALUE() do { if (i + 1 >= argc) \
            return cli_error("compare: option %s needs a value", a), -1; } while (0)
        if (!strcmp(a, "--out-format")) {
            NEED_VALUE();
            o->out_format = argv[++i];
        } else if (!strcmp(a, "--in-format")) {
            NEED_VALUE();
            o->in_format = argv[++i];
        } else if (!strcmp(a, "--exact-format")) {
            NEED_VALUE();
            o->exact_format = argv[++i];
        } else if (!strcmp(a, "--exact")) {
            NEED_VALUE();
            o->exact = argv[++i];
        } else if (!strcmp(a, "--inputs")) {
            if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2))
                return cli_error("compare: --inputs needs at least one file"), -1;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
                if (o->ninputs == MAX_INPUTS)
                    return cli_error("compare: --inputs takes at most %d files",
                                     MAX_INPUTS), -1;
                o->inputs[o->ninputs++] = argv[++i];
            }
        } else if (!strcmp(a, "--ta")) {
            o->ta = 1;
        } else if (!strcmp(a, "--tb")) {
            o->tb = 1;
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
        } else if (!strcmp(a, "--torch-defaults")) {
            o->torch = 1;
        } else if (!strcmp(a, "--nan-payload")) {
            o->nan_payload = 1;
        } else if (!strcmp(a, "--signed-zero")) {
            o->signed_zero = 1;
        } else if (!strcmp(a, "--show")) {
            NEED_VALUE();
            if (cli_parse_u64(argv[++i], &o->show) || o->show > 1000000)
                return cli_error("compare: --show: '%s' is not an integer "
                                 "0..1000000", argv[i]), -1;
        } else if (!strcmp(a, "--gemm")) {
            o->gemm = 1;
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
        } else if (!strcmp(a, "--json")) {
            NEED_VALUE();
            o->json = argv[++i];
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
 * Printing helpers.
 * ------------------------------------------------------------------- */

static const char *fmt_name(const fl_format *f, char *buf, size_t len)
{
    if (f->name && strcmp(f->name, "ieee"))
        return f->name;
    snprintf(buf, len, "ieee:%d:%d", f->ebits, f->prec - 1);
    return buf;
}

static void index_str(const tensor *t, uint64_t flat, char *buf, size_t len)
{
    size_t idx[TENSOR_MAXDIM];
    for (int d = t->ndim; d-- > 0;) {
        idx[d] = t->shape[d] ? flat % t->shape[d] : 0;
        flat = t->shape[d] ? flat / t->shape[d] : 0;
    }
    size_t o = 0;
    buf[0] = 0;
    o += (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < t->ndim && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%zu", d ? ", " : "", idx[d]);
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

/* "0x3c01 = 1.0009765625 (0x1.004p+0)": bits, shortest decimal, hex-float
 * (the hex-float is exact). */
static void value_str(const fl_format *f, uint64_t bits, char *buf, size_t len)
{
    char dec[64], hex[64];
    fl_print_shortest(f, bits, dec, sizeof dec);
    fl_print_hex(f, bits, hex, sizeof hex);
    snprintf(buf, len, "0x%0*llx = %s (%s)", cli_hex_digits(f),
             (unsigned long long)bits, dec, hex);
}

static json_t *jvalue(const fl_format *f, uint64_t bits)
{
    char dec[64], hex[64], b[32];
    fl_print_shortest(f, bits, dec, sizeof dec);
    fl_print_hex(f, bits, hex, sizeof hex);
    snprintf(b, sizeof b, "0x%0*llx", cli_hex_digits(f), (unsigned long long)bits);
    return json_pack("{s:s, s:s, s:s}", "bits", b, "value", dec, "hex", hex);
}

static json_t *jint(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v)
                                    : json_real((double)v);
}

static json_t *jindex(const tensor *t, uint64_t flat)
{
    json_t *a = json_array();
    size_t idx[TENSOR_MAXDIM];
    for (int d = t->ndim; d-- > 0;) {
        idx[d] = t->shape[d] ? flat % t->shape[d] : 0;
        flat = t->shape[d] ? flat / t->shape[d] : 0;
    }
    for (int d = 0; d < t->ndim; d++)
        json_array_append_new(a, jint(idx[d]));
    return a;
}

static json_t *jshape(const tensor *t)
{
    json_t *a = json_array();
    for (int d = 0; d < t->ndim; d++)
        json_array_append_new(a, jint(t->shape[d]));
    return a;
}

/* JSON has no infinity or NaN: those become null. */
static json_t *jreal(double d)
{
    return isfinite(d) ? json_real(d) : json_null();
}

static size_t cdiv_ok(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

static double pct(uint64_t a, uint64_t n)
{
    return n ? 100.0 * (double)a / (double)n : 0;
}

/* "32..47, 100, 200..210" of the indices with cnt[i] != 0. */
static size_t ranges_str(const uint64_t *cnt, size_t n, char *buf, size_t len)
{
    size_t o = 0, nr = 0, count = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n;) {
        if (!cnt[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < n && cnt[j + 1])
            j++;
        count += j - i + 1;
        if (nr < 8 && o < len) {
            if (j == i)
                o += (size_t)snprintf(buf + o, len - o, "%s%zu", nr ? ", " : "", i);
            else
                o += (size_t)snprintf(buf + o, len - o, "%s%zu..%zu",
                                      nr ? ", " : "", i, j);
        } else if (nr == 8 && o < len) {
            o += (size_t)snprintf(buf + o, len - o, ", ...");
        }
        nr++;
        i = j + 1;
    }
    return count;
}

static void bucket_label(int b, char *buf, size_t len)
{
    uint64_t lo, hi;
    fl_cmp_bucket_range(b, &lo, &hi);
    if (lo == hi)
        snprintf(buf, len, "%llu", (unsigned long long)lo);
    else
        snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
                 (unsigned long long)hi);
}

/* ---------------------------------------------------------------------
 * Operands at an output element.
 * ------------------------------------------------------------------- */

typedef struct operand {
    tensor t;
    fl_format f;
    const char *spec;
} operand;

/* A row of K values of an operand, summarised: first elements, largest
 * magnitude, count of NaN/inf. */
typedef double (*getter)(const operand *op, size_t base, size_t stride, size_t k);

static double get_at(const operand *op, size_t flat)
{
    return fl_to_double(&op->f, tensor_get_bits(&op->t, flat));
}

static void vector_summary(FILE *out, json_t *jo, const char *label,
                           const operand *op, size_t base, size_t stride,
                           size_t K)
{
    char v[128];
    size_t nonfinite = 0, imax = 0;
    double amax = -1;
    fprintf(out, "    %s (%zu values): ", label, K);
    json_t *first = json_array();
    for (size_t k = 0; k < K; k++) {
        uint64_t bits = tensor_get_bits(&op->t, base + k * stride);
        double x = fl_to_double(&op->f, bits);
        if (!isfinite(x))
            nonfinite++;
        else if (fabs(x) > amax) {
            amax = fabs(x);
            imax = k;
        }
        if (k < 4) {
            fl_print_shortest(&op->f, bits, v, sizeof v);
            fprintf(out, "%s%s", k ? ", " : "", v);
            json_array_append_new(first, json_string(v));
        }
    }
    if (K > 4)
        fprintf(out, ", ...");
    if (amax >= 0)
        fprintf(out, "; max |x| %.6g at %zu", amax, imax);
    if (nonfinite)
        fprintf(out, "; %zu NaN/inf", nonfinite);
    fputc('\n', out);
    json_object_set_new(jo, label, json_pack("{s:I, s:o, s:f, s:I, s:I}", "length",
                        (json_int_t)K, "first", first, "max_abs", amax < 0 ? 0 : amax,
                        "max_abs_at", (json_int_t)imax, "nonfinite",
                        (json_int_t)nonfinite));
}

/* Neumaier-compensated sum of products of two strided vectors. */
static void dot_summary(FILE *out, json_t *jo, const operand *a, size_t abase,
                        size_t astride, const operand *b, size_t bbase,
                        size_t bstride, size_t K)
{
    double s = 0, c = 0, sabs = 0;
    for (size_t k = 0; k < K; k++) {
        double p = get_at(a, abase + k * astride) * get_at(b, bbase + k * bstride);
        double t = s + p;
        c += fabs(s) >= fabs(p) ? (s - t) + p : (p - t) + s;
        s = t;
        sabs += fabs(p);
    }
    double dot = s + c;
    fprintf(out, "    sum of products %.17g (binary64, compensated); sum of |a*b| "
            "%.6g", dot, sabs);
    if (dot != 0 && isfinite(dot))
        fprintf(out, "; condition sum|a*b|/|sum a*b| = %.3g", sabs / fabs(dot));
    fputc('\n', out);
    json_object_set_new(jo, "dot_binary64", jreal(dot));
    json_object_set_new(jo, "sum_abs_products", jreal(sabs));
}

typedef enum { LAY_NONE, LAY_ELEMENTWISE, LAY_REDUCE, LAY_DOT, LAY_GEMM } layout;

typedef struct geom {
    layout lay;
    size_t batch, M, N, K;        /* GEMM: output batch x M x N */
    int abatch, bbatch;           /* operand has the batch axis */
    /* REDUCE/DOT: output n elements, operand (n, K) */
} geom;

static geom gemm_layout(const tensor *out, operand *in, int nin, int ta,
                        int tb);

/* How the inputs relate to the output's shape.  A square GEMM's inputs
 * have the output's shape too: when the user said the output is a GEMM's
 * (prefer_gemm: --gemm, --tile, --kblock, --ta/--tb), that reading wins. */
static geom find_layout(const tensor *out, operand *in, int nin, int ta, int tb,
                        int prefer_gemm)
{
    geom g = {LAY_NONE, 0, 0, 0, 0, 0, 0};
    int all_same = nin > 0;
    if (prefer_gemm) {
        g = gemm_layout(out, in, nin, ta, tb);
        if (g.lay == LAY_GEMM)
            return g;
    }
    for (int i = 0; i < nin; i++) {
        const tensor *t = &in[i].t;
        int same = t->ndim == out->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = t->shape[d] == out->shape[d];
        if (!same && !(t->ndim == 0))
            all_same = 0;
    }
    if (all_same) {
        g.lay = LAY_ELEMENTWISE;
        return g;
    }
    /* reduction / dot along the last axis: inputs = out.shape + (K,) */
    int red = nin >= 1 && nin <= 2;
    size_t K = 0;
    for (int i = 0; red && i < nin; i++) {
        const tensor *t = &in[i].t;
        red = t->ndim == out->ndim + 1;
        for (int d = 0; red && d < out->ndim; d++)
            red = t->shape[d] == out->shape[d];
        if (red) {
            if (i && t->shape[out->ndim] != K)
                red = 0;
            K = t->shape[out->ndim];
        }
    }
    if (red) {
        g.lay = nin == 1 ? LAY_REDUCE : LAY_DOT;
        g.K = K;
        return g;
    }
    return gemm_layout(out, in, nin, ta, tb);
}

/* out = op(A) op(B), possibly batched: LAY_GEMM, or LAY_NONE. */
static geom gemm_layout(const tensor *out, operand *in, int nin, int ta, int tb)
{
    geom g = {LAY_NONE, 0, 0, 0, 0, 0, 0};
    if (nin >= 2 && (out->ndim == 2 || out->ndim == 3)) {
        const tensor *A = &in[0].t, *B = &in[1].t;
        size_t bt = out->ndim == 3 ? out->shape[0] : 1;
        size_t M = out->shape[out->ndim - 2], N = out->shape[out->ndim - 1];
        int ab = A->ndim == 3, bb = B->ndim == 3;
        if ((A->ndim == 2 || (ab && out->ndim == 3 && A->shape[0] == bt)) &&
            (B->ndim == 2 || (bb && out->ndim == 3 && B->shape[0] == bt))) {
            size_t ar = A->shape[A->ndim - 2], ac = A->shape[A->ndim - 1];
            size_t br = B->shape[B->ndim - 2], bc = B->shape[B->ndim - 1];
            size_t am = ta ? ac : ar, ak = ta ? ar : ac;
            size_t bk = tb ? bc : br, bn = tb ? br : bc;
            if (am == M && bn == N && ak == bk) {
                g.lay = LAY_GEMM;
                g.batch = bt;
                g.M = M;
                g.N = N;
                g.K = ak;
                g.abatch = ab;
                g.bbatch = bb;
            }
        }
    }
    return g;
}

/* Flat index of A(b, i, k) / B(b, k, j) honouring transposes and batch. */
static size_t a_flat(const geom *g, const operand *A, int ta, size_t b, size_t i,
                     size_t k)
{
    size_t base = g->abatch ? b * g->M * g->K : 0;
    return base + (ta ? k * g->M + i : i * g->K + k);
}

static size_t b_flat(const geom *g, const operand *B, int tb, size_t b, size_t k,
                     size_t j)
{
    size_t base = g->bbatch ? b * g->K * g->N : 0;
    return base + (tb ? j * g->K + k : k * g->N + j);
}

static void print_operands(FILE *out, json_t *jroot, const tensor *o,
                           uint64_t flat, operand *in, int nin, const geom *g,
                           int ta, int tb)
{
    json_t *jo = json_object();
    char ix[256], v[256];
    switch (g->lay) {
    case LAY_ELEMENTWISE:
        fprintf(out, "  operands there:\n");
        json_object_set_new(jo, "layout", json_string("elementwise"));
        for (int i = 0; i < nin; i++) {
            size_t at = in[i].t.ndim == 0 ? 0 : flat;
            uint64_t bits = tensor_get_bits(&in[i].t, at);
            value_str(&in[i].f, bits, v, sizeof v);
            fprintf(out, "    input %d (%s): %s\n", i + 1, in[i].spec, v);
            char key[32];
            snprintf(key, sizeof key, "input%d", i + 1);
            json_object_set_new(jo, key, jvalue(&in[i].f, bits));
        }
        break;
    case LAY_REDUCE:
    case LAY_DOT:
        fprintf(out, "  operands there (%s along the last axis, K = %zu):\n",
                g->lay == LAY_REDUCE ? "reduction" : "dot product", g->K);
        json_object_set_new(jo, "layout", json_string(g->lay == LAY_REDUCE
                                                          ? "reduction" : "dot"));
        for (int i = 0; i < nin; i++) {
            index_str(o, flat, ix, sizeof ix);
            ix[strlen(ix) - 1] = 0;
            char label[300];
            snprintf(label, sizeof label, "input %d %s, :]", i + 1, ix);
            vector_summary(out, jo, label, &in[i], flat * g->K, 1, g->K);
        }
        if (g->lay == LAY_DOT)
            dot_summary(out, jo, &in[0], flat * g->K, 1, &in[1], flat * g->K, 1,
                        g->K);
        else {
            double s = 0, c = 0, sabs = 0;
            for (size_t k = 0; k < g->K; k++) {
                double x = get_at(&in[0], flat * g->K + k);
                double t = s + x;
                c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
                s = t;
                sabs += fabs(x);
            }
            fprintf(out, "    sum %.17g (binary64, compensated); sum of |x| %.6g\n",
                    s + c, sabs);
            json_object_set_new(jo, "sum_binary64", jreal(s + c));
        }
        break;
    case LAY_GEMM: {
        size_t b = flat / (g->M * g->N), i = flat / g->N % g->M, j = flat % g->N;
        fprintf(out, "  operands there (GEMM, K = %zu): row %zu of A, column %zu "
                "of B%s\n", g->K, i, j, g->batch > 1 ? " (this batch)" : "");
        json_object_set_new(jo, "layout", json_string("gemm"));
        size_t a0 = a_flat(g, &in[0], ta, b, i, 0), a1 = a_flat(g, &in[0], ta, b, i, 1);
        size_t b0 = b_flat(g, &in[1], tb, b, 0, j), b1 = b_flat(g, &in[1], tb, b, 1, j);
        char la[64], lb[64];
        snprintf(la, sizeof la, "A[%zu, :]", i);
        snprintf(lb, sizeof lb, "B[:, %zu]", j);
        vector_summary(out, jo, la, &in[0], a0, g->K > 1 ? a1 - a0 : 1, g->K);
        vector_summary(out, jo, lb, &in[1], b0, g->K > 1 ? b1 - b0 : 1, g->K);
        dot_summary(out, jo, &in[0], a0, g->K > 1 ? a1 - a0 : 1, &in[1], b0,
                    g->K > 1 ? b1 - b0 : 1, g->K);
        if (nin > 2) {
            uint64_t bits = tensor_get_bits(&in[2].t, in[2].t.n == o->n ? flat : 0);
            value_str(&in[2].f, bits, v, sizeof v);
            fprintf(out, "    C there (input 3): %s\n", v);
        }
        break;
    }
    default: {
        char shp[256];
        fprintf(out, "  operands: the inputs' shapes (");
        for (int i = 0; i < nin; i++) {
            tensor_shape_str(&in[i].t, shp, sizeof shp);
            fprintf(out, "%s%s", i ? ", " : "", shp);
        }
        tensor_shape_str(o, shp, sizeof shp);
        fprintf(out, ") fit no element-wise, last-axis reduction or GEMM layout "
                "of the output %s: not shown\n", shp);
        json_object_set_new(jo, "layout", json_string("unknown"));
        break;
    }
    }
    json_object_set_new(jroot, "operands", jo);
}

/* ---------------------------------------------------------------------
 * Tolerance.
 * ------------------------------------------------------------------- */

/* torch.testing.assert_close's defaults by dtype (torch/testing/
 * _comparison.py, _DTYPE_PRECISIONS; dtypes without an entry get (0, 0)
 * from default_tolerances).  tf32 results are float32 tensors in torch. */
static const char *torch_defaults(const fl_format *f, double *rtol, double *atol)
{
    if (f->ebits == 5 && f->prec == 11 && f->nan_style == FL_NANSTYLE_IEEE) {
        *rtol = 1e-3, *atol = 1e-5;
        return "float16";
    }
    if (f->ebits == 8 && f->prec == 8 && f->nan_style == FL_NANSTYLE_IEEE) {
        *rtol = 1.6e-2, *atol = 1e-5;
        return "bfloat16";
    }
    if (f->ebits == 8 && (f->prec == 24 || f->prec == 11) &&
        f->nan_style == FL_NANSTYLE_IEEE) {
        *rtol = 1.3e-6, *atol = 1e-5;
        return f->prec == 24 ? "float32" : "float32 (torch holds tf32 results "
                                           "in float32)";
    }
    if (f->ebits == 11 && f->prec == 53 && f->nan_style == FL_NANSTYLE_IEEE) {
        *rtol = 1e-7, *atol = 1e-7;
        return "float64";
    }
    *rtol = 0, *atol = 0;
    return NULL;
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
        bucket_label(b, lab, sizeof lab);
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

/* ---------------------------------------------------------------------
 * The command.
 * ------------------------------------------------------------------- */

typedef struct kb_ctx {
    const geom *g;
    const operand *op;
    int t;
} kb_ctx;

static double kb_a(const void *v, size_t b, size_t i, size_t k)
{
    const kb_ctx *c = v;
    return get_at(c->op, a_flat(c->g, c->op, c->t, b, i, k));
}

static double kb_b(const void *v, size_t b, size_t k, size_t j)
{
    const kb_ctx *c = v;
    return get_at(c->op, b_flat(c->g, c->op, c->t, b, k, j));
}

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

static int same_format(const fl_format *a, const fl_format *b)
{
    return a->width == b->width && a->ebits == b->ebits && a->prec == b->prec &&
           a->nan_style == b->nan_style && a->subnormals == b->subnormals;
}

static int same_shape(const tensor *a, const tensor *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return 0;
    return 1;
}

/* "float32 (4096, 512)" or "uint16 holding bfloat16 (4096, 512)". */
static void describe(const tensor *t, const fl_format *f, char *buf, size_t len)
{
    char shp[256], fn[32];
    tensor_shape_str(t, shp, sizeof shp);
    if (tensor_dtype_for_format(f) == t->dtype &&
        t->dtype != TENSOR_U8 && t->dtype != TENSOR_U16 &&
        t->dtype != TENSOR_U32 && t->dtype != TENSOR_U64)
        snprintf(buf, len, "%s %s", tensor_dtype_name(t->dtype), shp);
    else
        snprintf(buf, len, "%s holding %s %s", tensor_dtype_name(t->dtype),
                 fmt_name(f, fn, sizeof fn), shp);
}

static json_t *jrel(const fl_cmp_relerr *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "count", jint(s->count));
    json_object_set_new(o, "exact", jint(s->exact));
    json_object_set_new(o, "left_out", json_pack("{s:o, s:o}", "nonfinite",
                        jint(s->nonfinite), "zero_truth", jint(s->zero_truth)));
    json_object_set_new(o, "max", jreal(s->max));
    json_object_set_new(o, "mean", jreal(s->mean));
    json_object_set_new(o, "median", jreal(s->median));
    json_object_set_new(o, "p90", jreal(s->p90));
    json_object_set_new(o, "p99", jreal(s->p99));
    json_object_set_new(o, "max_flat_index",
                        s->max_index == NONE ? json_null() : jint(s->max_index));
    return o;
}

/* "3.1x less accurate than", "2x more accurate than", "as accurate as". */
static void ratio_str(double q, char *buf, size_t len)
{
    if (!isfinite(q)) {
        snprintf(buf, len, "infinitely");
        return;
    }
    if (q < 9.95) {
        snprintf(buf, len, "%.1f", q);
        return;
    }
    /* two significant digits, no exponent: 31, 7800 */
    double p = pow(10, floor(log10(q)) - 1);
    snprintf(buf, len, "%.0f", round(q / p) * p);
}

static void ratio_words(double q, char *buf, size_t len)
{
    char r[64];
    if (q >= 1.05) {
        ratio_str(q, r, sizeof r);
        snprintf(buf, len, "%.30sx less accurate than", r);
    } else if (q <= 1 / 1.05) {
        ratio_str(1 / q, r, sizeof r);
        snprintf(buf, len, "%.30sx more accurate than", r);
    } else {
        snprintf(buf, len, "as accurate as");
    }
}

/* The sentence comparing kernel and reference accuracy: by the largest
 * relative error, and by the mean where the two tell different stories. */
static void accuracy_sentence(const fl_cmp_relerr *k, const fl_cmp_relerr *r,
                              char *buf, size_t len, double *ratio)
{
    *ratio = NAN;
    if (!k->count || !r->count) {
        snprintf(buf, len, "no element has a finite exact value: no accuracy "
                 "comparison");
        return;
    }
    if (k->max == 0 && r->max == 0) {
        snprintf(buf, len, "the kernel and the reference both equal the exact "
                 "result everywhere");
        return;
    }
    if (r->max == 0) {
        snprintf(buf, len, "the reference equals the exact result everywhere; "
                 "the kernel does not (max relative error %.2g, mean %.2g)",
                 k->max, k->mean);
        return;
    }
    if (k->max == 0) {
        snprintf(buf, len, "the kernel equals the exact result everywhere; the "
                 "reference does not (max relative error %.2g, mean %.2g)",
                 r->max, r->mean);
        return;
    }
    double q = k->max / r->max;
    double qm = r->mean > 0 ? k->mean / r->mean : (k->mean > 0 ? INFINITY : 1);
    char wq[64], wm[64];
    *ratio = q;
    ratio_words(q, wq, sizeof wq);
    ratio_words(qm, wm, sizeof wm);
    if (!strcmp(wq, wm) || ((q >= 1.05) == (qm >= 1.05) &&
                            (q <= 1 / 1.05) == (qm <= 1 / 1.05)))
        snprintf(buf, len, "the kernel is %s the reference (max relative error "
                 "%.2g vs %.2g; mean %.2g vs %.2g)", wq, k->max, r->max, k->mean,
                 r->mean);
    else if (isinf(qm))
        snprintf(buf, len, "the kernel is %s the reference in the worst case "
                 "(max relative error %.2g vs %.2g), and less accurate on "
                 "average (mean %.2g vs 0)", wq, k->max, r->max, k->mean);
    else
        snprintf(buf, len, "the kernel is %s the reference in the worst case "
                 "(max relative error %.2g vs %.2g) and %s it on average (mean "
                 "%.2g vs %.2g)", wq, k->max, r->max, wm, k->mean, r->mean);
}

static char map_char(uint64_t diff, uint64_t max)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if (!diff)
        return '.';
    if (max == FL_CMP_MAX_NONFINITE)
        return '#';
    int b = fl_cmp_bucket(max);
    return b < (int)sizeof digits - 1 ? digits[b] : '*';
}

/* Top 3 of an array by diff count, into "row 40 (512 differ, max 3 ulp)". */
static void top3(FILE *out, const char *what, const uint64_t *diff,
                 const uint64_t *max, size_t n)
{
    size_t best[3] = {n, n, n};
    for (size_t i = 0; i < n; i++) {
        if (!diff[i])
            continue;
        for (int k = 0; k < 3; k++)
            if (best[k] == n || diff[i] > diff[best[k]]) {
                for (int m = 2; m > k; m--)
                    best[m] = best[m - 1];
                best[k] = i;
                break;
            }
    }
    if (best[0] == n)
        return;
    uint64_t least = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (diff[i] && diff[i] < least)
            least = diff[i];
    if (least == diff[best[0]])
        return;   /* all equally hit: a list of three says nothing */
    fprintf(out, "      most: ");
    for (int k = 0; k < 3 && best[k] < n; k++) {
        char ms[64];
        if (max[best[k]] == FL_CMP_MAX_NONFINITE)
            snprintf(ms, sizeof ms, "NaN/inf");
        else
            snprintf(ms, sizeof ms, "max %llu ulp",
                     (unsigned long long)max[best[k]]);
        fprintf(out, "%s%s %zu (%llu differ, %s)", k ? "; " : "", what, best[k],
                (unsigned long long)diff[best[k]], ms);
    }
    fputc('\n', out);
}

static void gemm_report(FILE *out, json_t *jroot, const fl_cmp_grid *g,
                        const tensor *kt)
{
    char rs[512];
    json_t *jg = json_object();
    json_object_set_new(jroot, "gemm", jg);
    json_object_set_new(jg, "batch", jint(g->batch));
    json_object_set_new(jg, "rows", jint(g->rows));
    json_object_set_new(jg, "cols", jint(g->cols));
    fprintf(out, "\nwhere the differences are (output as %s%zu x %zu%s):\n",
            g->batch > 1 ? "" : "", g->rows, g->cols,
            g->batch > 1 ? " per batch" : "");
    if (g->batch > 1) {
        size_t nb = ranges_str(g->batch_diff, g->batch, rs, sizeof rs);
        fprintf(out, "  batches with differences  %zu of %zu%s%s\n", nb, g->batch,
                nb ? ": " : "", rs);
        json_object_set_new(jg, "batches_with_differences", jint(nb));
    }
    size_t nr = ranges_str(g->row_diff, g->rows, rs, sizeof rs);
    fprintf(out, "  rows with differences     %zu of %zu%s%s\n", nr, g->rows,
            nr ? ": " : "", rs);
    json_object_set_new(jg, "rows_with_differences", jint(nr));
    json_object_set_new(jg, "rows_ranges", json_string(rs));
    if (nr && nr < g->rows)
        top3(out, "row", g->row_diff, g->row_max, g->rows);
    size_t nc = ranges_str(g->col_diff, g->cols, rs, sizeof rs);
    fprintf(out, "  columns with differences  %zu of %zu%s%s\n", nc, g->cols,
            nc ? ": " : "", rs);
    json_object_set_new(jg, "cols_with_differences", jint(nc));
    json_object_set_new(jg, "cols_ranges", json_string(rs));
    if (nc && nc < g->cols)
        top3(out, "column", g->col_diff, g->col_max, g->cols);
    json_t *jt = json_null();
    if (g->tile_h) {
        size_t nt = g->tiles_r * g->tiles_c, with = 0;
        for (size_t t = 0; t < nt; t++)
            with += g->tile_diff[t] != 0;
        fprintf(out, "  tiles (%zux%zu) with differences  %zu of %zu (%zu x %zu "
                "tiles)\n", g->tile_h, g->tile_w, with, nt, g->tiles_r, g->tiles_c);
        jt = json_pack("{s:o, s:o, s:o, s:o, s:[]}", "tile_h", jint(g->tile_h),
                       "tile_w", jint(g->tile_w), "tiles", jint(nt),
                       "with_differences", jint(with), "list");
        json_t *list = json_object_get(jt, "list");
        size_t shown = 0;
        for (size_t t = 0; t < nt; t++) {
            if (!g->tile_diff[t])
                continue;
            size_t tr = t / g->tiles_c, tc = t % g->tiles_c;
            size_t r0 = tr * g->tile_h, c0 = tc * g->tile_w;
            size_t r1 = r0 + g->tile_h < g->rows ? r0 + g->tile_h : g->rows;
            size_t c1 = c0 + g->tile_w < g->cols ? c0 + g->tile_w : g->cols;
            uint64_t cells = (uint64_t)((r1 - r0) * (c1 - c0) * g->batch);
            if (shown < 8) {
                char ms[64];
                if (g->tile_max[t] == FL_CMP_MAX_NONFINITE)
                    snprintf(ms, sizeof ms, "NaN/inf");
                else
                    snprintf(ms, sizeof ms, "max %llu ulp",
                             (unsigned long long)g->tile_max[t]);
                fprintf(out, "    tile (%zu, %zu) = rows %zu..%zu, columns %zu..%zu:"
                        " %llu of %llu elements differ, %llu fail, %s\n", tr, tc,
                        r0, r1 - 1, c0, c1 - 1,
                        (unsigned long long)g->tile_diff[t],
                        (unsigned long long)cells,
                        (unsigned long long)g->tile_fail[t], ms);
            } else if (shown == 8) {
                fprintf(out, "    ...\n");
            }
            if (shown < 64)
                json_array_append_new(list, json_pack("{s:o, s:o, s:o, s:o, s:o}",
                    "tile", json_pack("[o, o]", jint(tr), jint(tc)),
                    "elements", jint(cells), "differ", jint(g->tile_diff[t]),
                    "fail", jint(g->tile_fail[t]), "max_ulp",
                    g->tile_max[t] == FL_CMP_MAX_NONFINITE ? json_string("nonfinite")
                                                           : jint(g->tile_max[t])));
            shown++;
        }
        /* positions inside the tiles */
        uint64_t *pr = calloc(g->tile_h, sizeof *pr), *pc = calloc(g->tile_w, sizeof *pc);
        if (pr && pc) {
            for (size_t i = 0; i < g->tile_h; i++)
                for (size_t j = 0; j < g->tile_w; j++) {
                    pr[i] += g->pos_diff[i * g->tile_w + j];
                    pc[j] += g->pos_diff[i * g->tile_w + j];
                }
            size_t a = ranges_str(pr, g->tile_h, rs, sizeof rs);
            if (a) {
                fprintf(out, "  inside a tile: differences at tile rows %s", rs);
                json_object_set_new(jt, "tile_rows", json_string(rs));
                ranges_str(pc, g->tile_w, rs, sizeof rs);
                fprintf(out, ", tile columns %s\n", rs);
                json_object_set_new(jt, "tile_cols", json_string(rs));
            }
        }
        free(pr);
        free(pc);
    }
    json_object_set_new(jg, "tiles", jt);
    /* the text map */
    fprintf(out, "  map: %zu x %zu cells of %zu x %zu elements; '.' identical, "
            "'0' only +-0 or NaN payloads differ, 1 2 3 4 5 ... = largest ulp "
            "distance 1, 2, 3-4, 5-8, 9-16, ... (bucket), '#' NaN/inf\n",
            g->cells_r, g->cells_c, g->cell_h, g->cell_w);
    /* a ruler: the first column of every 8th cell */
    char ruler[700];
    size_t rl = g->cells_c < sizeof ruler - 16 ? g->cells_c : sizeof ruler - 16;
    memset(ruler, ' ', rl + 12);
    ruler[rl + 12] = 0;
    for (size_t c = 0; c < rl; c += 8) {
        char num[24];
        int k = snprintf(num, sizeof num, "%zu", c * g->cell_w);
        if (c + (size_t)k <= rl + 4 || c == 0)
            memcpy(ruler + c, num, (size_t)k);
    }
    for (size_t e = strlen(ruler); e && ruler[e - 1] == ' ';)
        ruler[--e] = 0;
    fprintf(out, "    %6s %s\n", "", ruler);
    json_t *jm = json_array();
    for (size_t r = 0; r < g->cells_r; r++) {
        char line[600];
        size_t o = 0;
        for (size_t c = 0; c < g->cells_c && o + 1 < sizeof line; c++)
            line[o++] = map_char(g->cell_diff[r * g->cells_c + c],
                                 g->cell_max[r * g->cells_c + c]);
        line[o] = 0;
        fprintf(out, "    %6zu %s\n", r * g->cell_h, line);
        json_array_append_new(jm, json_string(line));
    }
    json_object_set_new(jg, "map", json_pack("{s:o, s:o, s:o}", "cell_h",
                        jint(g->cell_h), "cell_w", jint(g->cell_w), "rows", jm));
    (void)kt;
}

/* The model line holds the word nan=any. */
static int model_nan_any(const char *line)
{
    const char *p = line;
    while (p && (p = strstr(p, "nan=any")) != NULL) {
        if ((p == line || p[-1] == ' ') && (p[7] == '\0' || p[7] == ' ' ||
                                            p[7] == '\n'))
            return 1;
        p += 7;
    }
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    opts o;
    int pr = parse_opts(argc, argv, &o);
    if (pr)
        return pr > 0 ? CLI_OK : CLI_USAGE;
    tensor kt, rt, xt = {0};
    fl_format kf, rf, xf;
    operand in[MAX_INPUTS];
    int nin = 0, rc = CLI_USAGE;
    char kdesc[512], rdesc[512], fn[32], err[1024];
    memset(in, 0, sizeof in);
    if (load(o.kspec, o.out_format, "--out-format", &kt, &kf))
        return CLI_USAGE;
    if (load(o.rspec, o.out_format, "--out-format", &rt, &rf)) {
        tensor_free(&kt);
        return CLI_USAGE;
    }
    json_t *root = json_object();
    char *model = NULL, *kmodel = NULL;
    fl_cmp_grid grid, pgrid;
    memset(&grid, 0, sizeof grid);
    memset(&pgrid, 0, sizeof pgrid);
    describe(&kt, &kf, kdesc, sizeof kdesc);
    describe(&rt, &rf, rdesc, sizeof rdesc);
    if (!same_format(&kf, &rf) || !same_shape(&kt, &rt)) {
        int bits = tensor_dtype_for_format(&kf) != kt.dtype ||
                   tensor_dtype_for_format(&rf) != rt.dtype;
        cli_error("compare: kernel %s is %s, reference %s is %s%s", kt.source,
                  kdesc, rt.source, rdesc,
                  same_format(&kf, &rf) ? " (shapes differ)"
                  : bits ? " (formats differ; --out-format says what bit "
                           "patterns hold)"
                         : " (formats differ)");
        goto out;
    }
    if (o.exact) {
        if (load(o.exact, o.exact_format, "--exact-format", &xt, &xf))
            goto out;
        if (!same_shape(&xt, &kt)) {
            char xd[512];
            describe(&xt, &xf, xd, sizeof xd);
            cli_error("compare: the exact result %s is %s, the kernel's output "
                      "%s is %s (shapes differ)", xt.source, xd, kt.source, kdesc);
            goto out;
        }
    }
    for (int i = 0; i < o.ninputs; i++) {
        char what[64];
        snprintf(what, sizeof what, "--in-format (input %d)", i + 1);
        if (load(o.inputs[i], o.in_format, what, &in[i].t, &in[i].f))
            goto out;
        in[i].spec = o.inputs[i];
        nin++;
    }
    if (tensor_read_model(o.rspec, &model, err, sizeof err) ||
        tensor_read_model(o.kspec, &kmodel, err, sizeof err)) {
        cli_error("compare: %s", err);
        goto out;
    }
    /* a model with nan=any does not model which NaN: NaN vs NaN matches
     * whatever the payload and sign, even with --nan-payload */
    int nan_any = model_nan_any(model) || model_nan_any(kmodel);
    /* tolerance */
    fl_cmp_tol tol = {FL_CMP_TOL_EXACT, 0, 0, 0, o.nan_payload && !nan_any,
                      o.signed_zero};
    char toldesc[512];
    const char *tolsrc = "default";
    if (o.have_ulp) {
        tol.kind = FL_CMP_TOL_ULP;
        tol.ulp = o.ulp;
        tolsrc = "--ulp";
        snprintf(toldesc, sizeof toldesc, "within %llu ulp",
                 (unsigned long long)o.ulp);
    } else if (o.have_rtol || o.have_atol || o.torch) {
        tol.kind = FL_CMP_TOL_CLOSE;
        tol.rtol = o.rtol;
        tol.atol = o.atol;
        tolsrc = "--rtol/--atol";
        if (o.torch) {
            const char *dn = torch_defaults(&kf, &tol.rtol, &tol.atol);
            tolsrc = "--torch-defaults";
            if (dn)
                snprintf(toldesc, sizeof toldesc, "|k - r| <= atol + rtol*|r| with "
                         "torch.testing.assert_close's defaults for %s: rtol %g, "
                         "atol %g (torch/testing/_comparison.py)", dn, tol.rtol,
                         tol.atol);
            else
                snprintf(toldesc, sizeof toldesc, "torch.testing.assert_close has "
                         "no default tolerance for %s: rtol 0, atol 0 (its "
                         "default_tolerances' fallback): equal values required",
                         fmt_name(&kf, fn, sizeof fn));
        } else {
            snprintf(toldesc, sizeof toldesc, "|k - r| <= %g + %g*|r|", tol.atol,
                     tol.rtol);
        }
    } else {
        snprintf(toldesc, sizeof toldesc, "bit-identical (the default: no "
                 "tolerance given)");
    }
    size_t tl = strlen(toldesc);
    snprintf(toldesc + tl, sizeof toldesc - tl, "%s%s; NaN vs NaN %s",
             o.signed_zero && tol.kind != FL_CMP_TOL_EXACT ? "; +0 vs -0 fails" : "",
             "", tol.nan_payload ? "only bit for bit"
                 : nan_any ? "matches (the model says nan=any: which NaN is "
                             "not modelled)" : "matches");

    fl_cmp_stats s;
    if (fl_cmp_arrays(&s, &kf, tensor_dtype_size(kt.dtype), kt.data, rt.data,
                      kt.n, &tol, o.threads)) {
        cli_error("compare: cannot compare %s elements held in %zu bytes",
                  fmt_name(&kf, fn, sizeof fn), tensor_dtype_size(kt.dtype));
        goto out;
    }
    FILE *out = stdout;
    char shp[256];
    tensor_shape_str(&kt, shp, sizeof shp);
    fprintf(out, "fplab compare: kernel %s vs reference %s\n", kt.source, rt.source);
    fprintf(out, "  format     %s; shape %s, %zu elements (kernel %s, reference "
            "%s)\n", fmt_name(&kf, fn, sizeof fn), shp, kt.n,
            tensor_dtype_name(kt.dtype), tensor_dtype_name(rt.dtype));
    fprintf(out, "  model      %s\n", model ? model : "(none recorded with the "
            "reference: safetensors metadata 'fplab-model' or a FILE.model "
            "sidecar)");
    if (kmodel)
        fprintf(out, "  kernel's   %s\n", kmodel);
    fprintf(out, "  tolerance  %s\n\n", toldesc);

    json_object_set_new(root, "fplab", json_string(FPLAB_VERSION));
    json_object_set_new(root, "kernel", json_pack("{s:s, s:s, s:o, s:o}", "file",
                        kt.source, "dtype", tensor_dtype_name(kt.dtype), "shape",
                        jshape(&kt), "model", kmodel ? json_string(kmodel) : json_null()));
    json_object_set_new(root, "reference", json_pack("{s:s, s:s, s:o, s:o}", "file",
                        rt.source, "dtype", tensor_dtype_name(rt.dtype), "shape",
                        jshape(&rt), "model", model ? json_string(model) : json_null()));
    json_object_set_new(root, "format", json_string(fmt_name(&kf, fn, sizeof fn)));
    json_object_set_new(root, "elements", jint(kt.n));
    json_object_set_new(root, "tolerance", json_pack("{s:s, s:s, s:o, s:f, s:f, "
                        "s:b, s:b, s:s}", "kind", tol.kind == FL_CMP_TOL_EXACT
                        ? "exact" : tol.kind == FL_CMP_TOL_ULP ? "ulp" : "close",
                        "from", tolsrc, "ulp", jint(tol.ulp), "rtol", tol.rtol,
                        "atol", tol.atol, "nan_payload", o.nan_payload,
                        "signed_zero", o.signed_zero, "text", toldesc));

    uint64_t n = s.n;
    fprintf(out, "elements               %12llu\n", (unsigned long long)n);
    fprintf(out, "bit-identical          %12llu  %8.4f%%\n",
            (unsigned long long)s.identical, pct(s.identical, n));
    fprintf(out, "NaN disagreements      %12llu  (NaN in the kernel only: %llu; in "
            "the reference only: %llu)\n",
            (unsigned long long)(s.nan_kernel + s.nan_ref),
            (unsigned long long)s.nan_kernel, (unsigned long long)s.nan_ref);
    fprintf(out, "NaN vs NaN             %12llu  (payloads differ: %llu)\n",
            (unsigned long long)s.nan_both, (unsigned long long)s.nan_payload);
    fprintf(out, "infinity disagreements %12llu\n", (unsigned long long)s.inf);
    fprintf(out, "+0 vs -0               %12llu\n", (unsigned long long)s.zero_sign);
    fprintf(out, "outside tolerance      %12llu  %8.4f%%\n",
            (unsigned long long)s.fail, pct(s.fail, n));
    json_object_set_new(root, "counts", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, "
                        "s:o, s:o, s:o}", "identical", jint(s.identical),
                        "nan_both", jint(s.nan_both), "nan_payload_differs",
                        jint(s.nan_payload), "nan_kernel_only", jint(s.nan_kernel),
                        "nan_reference_only", jint(s.nan_ref), "inf_disagreements",
                        jint(s.inf), "signed_zero", jint(s.zero_sign),
                        "value_pairs", jint(s.values), "outside_tolerance",
                        jint(s.fail)));

    int topb = 0;
    for (int b = 0; b < FL_CMP_BUCKETS; b++)
        if (s.hist[b])
            topb = b;
    fprintf(out, "\nulp distance histogram (%llu pairs without a NaN or an "
            "infinity disagreement):\n", (unsigned long long)s.values);
    json_t *jh = json_array();
    for (int b = 0; b <= topb && s.values; b++) {
        char lab[64], bar[41];
        bucket_label(b, lab, sizeof lab);
        int w = s.hist[b] ? 1 + (int)(39.0 * (double)s.hist[b] / (double)s.values) : 0;
        memset(bar, '#', (size_t)w);
        bar[w] = 0;
        fprintf(out, "  %21s ulp %12llu  %8.4f%%  %s\n", lab,
                (unsigned long long)s.hist[b], pct(s.hist[b], s.values), bar);
        uint64_t lo, hi;
        fl_cmp_bucket_range(b, &lo, &hi);
        json_array_append_new(jh, json_pack("{s:o, s:o, s:o}", "lo", jint(lo), "hi",
                              jint(hi), "count", jint(s.hist[b])));
    }
    json_object_set_new(root, "ulp_histogram", jh);

    /* the worst element */
    size_t ek = tensor_dtype_size(kt.dtype);
    geom g = find_layout(&kt, in, nin, o.ta, o.tb, o.gemm);
    char ix[256], kv[256], rv[256];
    if (s.max_ulp_index != NONE) {
        uint64_t i = s.max_ulp_index;
        uint64_t kb = tensor_get_bits(&kt, i), rb = tensor_get_bits(&rt, i);
        index_str(&kt, i, ix, sizeof ix);
        value_str(&kf, kb, kv, sizeof kv);
        value_str(&kf, rb, rv, sizeof rv);
        fprintf(out, "\nlargest ulp distance   %llu at %s (flat %llu)\n"
                "  kernel     %s\n  reference  %s\n",
                (unsigned long long)s.max_ulp, ix, (unsigned long long)i, kv, rv);
        json_t *jw = json_pack("{s:o, s:o, s:o, s:o, s:o}", "ulp", jint(s.max_ulp),
                               "index", jindex(&kt, i), "flat", jint(i), "kernel",
                               jvalue(&kf, kb), "reference", jvalue(&kf, rb));
        if (nin)
            print_operands(out, jw, &kt, i, in, nin, &g, o.ta, o.tb);
        json_object_set_new(root, "max_ulp", jw);
    } else {
        json_object_set_new(root, "max_ulp", json_null());
    }
    static const char *firsts[2] = {"first_nan_disagreement",
                                    "first_inf_disagreement"};
    uint64_t fidx[2] = {s.first_nan, s.first_inf};
    for (int q = 0; q < 2; q++) {
        if (fidx[q] == NONE) {
            json_object_set_new(root, firsts[q], json_null());
            continue;
        }
        uint64_t i = fidx[q];
        uint64_t kb = tensor_get_bits(&kt, i), rb = tensor_get_bits(&rt, i);
        index_str(&kt, i, ix, sizeof ix);
        value_str(&kf, kb, kv, sizeof kv);
        value_str(&kf, rb, rv, sizeof rv);
        fprintf(out, "\nfirst %s disagreement at %s (flat %llu)\n  kernel     %s\n"
                "  reference  %s\n", q ? "infinity" : "NaN", ix,
                (unsigned long long)i, kv, rv);
        json_t *jf = json_pack("{s:o, s:o, s:o, s:o}", "index", jindex(&kt, i),
                               "flat", jint(i), "kernel", jvalue(&kf, kb),
                               "reference", jvalue(&kf, rb));
        if (nin)
            print_operands(out, jf, &kt, i, in, nin, &g, o.ta, o.tb);
        json_object_set_new(root, firsts[q], jf);
    }

    /* the first K mismatches */
    json_t *jl = json_array();
    if (o.show) {
        uint64_t *idx = malloc(o.show * sizeof *idx);
        if (!idx) {
            cli_error("compare: out of memory");
            goto out;
        }
        int failing = s.fail > 0;
        size_t got = fl_cmp_list(&kf, ek, kt.data, rt.data, kt.n, &tol, failing,
                                 0, idx, o.show);
        fprintf(out, "\nfirst %zu %s (--show %llu):\n", got,
                failing ? "elements outside tolerance"
                        : "differences (all within tolerance)",
                (unsigned long long)o.show);
        for (size_t q = 0; q < got; q++) {
            uint64_t kb = tensor_get_bits(&kt, idx[q]), rb = tensor_get_bits(&rt, idx[q]);
            fl_cmp_elem e = fl_cmp_one(&kf, kb, rb, &tol);
            char d[64];
            static const char *cls[] = {"", "NaN vs NaN", "NaN in the kernel",
                                        "NaN in the reference", "infinity"};
            if (e.cls == FL_CMP_EL_VALUE)
                snprintf(d, sizeof d, "%llu ulp%s", (unsigned long long)e.ulp,
                         e.ulp == 0 ? " (+0 vs -0)" : "");
            else
                snprintf(d, sizeof d, "%s", cls[e.cls]);
            index_str(&kt, idx[q], ix, sizeof ix);
            value_str(&kf, kb, kv, sizeof kv);
            value_str(&kf, rb, rv, sizeof rv);
            fprintf(out, "  %-16s kernel %s  reference %s  %s\n", ix, kv, rv, d);
            json_array_append_new(jl, json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:b}",
                "index", jindex(&kt, idx[q]), "flat", jint(idx[q]), "kernel",
                jvalue(&kf, kb), "reference", jvalue(&kf, rb), "class",
                e.cls == FL_CMP_EL_VALUE ? "value" : cls[e.cls], "ulp",
                e.cls == FL_CMP_EL_VALUE ? jint(e.ulp) : json_null(),
                "fail", e.fail));
        }
        free(idx);
    }
    json_object_set_new(root, "mismatches", jl);

    /* against the truth */
    if (o.exact) {
        fl_cmp_relerr ks, rs2;
        size_t ex = tensor_dtype_size(xt.dtype);
        if (fl_cmp_relerr_run(&ks, &kf, ek, kt.data, &xf, ex, xt.data, kt.n) ||
            fl_cmp_relerr_run(&rs2, &rf, tensor_dtype_size(rt.dtype), rt.data, &xf,
                              ex, xt.data, rt.n)) {
            cli_error("compare: out of memory for the relative errors");
            goto out;
        }
        char sent[512];
        double ratio;
        accuracy_sentence(&ks, &rs2, sent, sizeof sent, &ratio);
        fprintf(out, "\nrelative error against the exact result %s (%s):\n",
                xt.source, fmt_name(&xf, fn, sizeof fn));
        fprintf(out, "               %11s %11s %11s %11s %11s  %s\n", "max", "mean",
                "median", "p90", "p99", "equal to exact");
        const fl_cmp_relerr *two[2] = {&ks, &rs2};
        for (int q = 0; q < 2; q++)
            fprintf(out, "  %-10s   %11.3e %11.3e %11.3e %11.3e %11.3e  %llu of "
                    "%llu\n", q ? "reference" : "kernel", two[q]->max,
                    two[q]->mean, two[q]->median, two[q]->p90, two[q]->p99,
                    (unsigned long long)two[q]->exact,
                    (unsigned long long)two[q]->count);
        if (ks.nonfinite || ks.zero_truth || rs2.nonfinite || rs2.zero_truth)
            fprintf(out, "  left out: NaN/inf on a side: kernel %llu, reference "
                    "%llu; exact 0 but not the value: kernel %llu, reference "
                    "%llu\n", (unsigned long long)ks.nonfinite,
                    (unsigned long long)rs2.nonfinite,
                    (unsigned long long)ks.zero_truth,
                    (unsigned long long)rs2.zero_truth);
        fprintf(out, "%s\n", sent);
        json_object_set_new(root, "exact", json_pack("{s:s, s:s, s:o, s:o, s:o, s:s}",
                            "file", xt.source, "format", fmt_name(&xf, fn, sizeof fn),
                            "kernel", jrel(&ks), "reference", jrel(&rs2),
                            "max_ratio", jreal(ratio),
                            "sentence", sent));
    } else {
        json_object_set_new(root, "exact", json_null());
    }

    /* GEMM structure */
    if (o.gemm) {
        if (kt.ndim != 2 && kt.ndim != 3) {
            cli_error("compare: --gemm/--tile/--kblock/--plot need a 2-D (M, N) or "
                      "3-D (batch, M, N) output; %s is %s", kt.source, kdesc);
            goto out;
        }
        size_t bt = kt.ndim == 3 ? kt.shape[0] : 1;
        size_t M = kt.shape[kt.ndim - 2], N = kt.shape[kt.ndim - 1];
        if (kt.n == 0) {
            fprintf(out, "\n(no elements: no GEMM view)\n");
        } else {
            size_t ch = 0, cw = 0;
            if (o.tile_h && cdiv_ok(M, o.tile_h) <= 32 && cdiv_ok(N, o.tile_w) <= 64) {
                ch = o.tile_h;
                cw = o.tile_w;
            }
            if (fl_cmp_grid_run(&grid, &kf, ek, kt.data, rt.data, &tol, bt, M, N, ch,
                                cw, o.tile_h, o.tile_w)) {
                cli_error("compare: out of memory for the GEMM view");
                goto out;
            }
            gemm_report(out, root, &grid, &kt);
        }
        if (o.kblock) {
            if (g.lay != LAY_GEMM) {
                cli_error("compare: --kblock: the inputs do not form a GEMM with "
                          "the output (A (M, K) and B (K, N)%s)",
                          o.ta || o.tb ? ", transposed as --ta/--tb say" : "");
                goto out;
            }
            /* sample the differing value pairs evenly */
            uint64_t ndiff = 0;
            for (size_t i = 0; i < kt.n; i++)
                ndiff += tensor_get_bits(&kt, i) != tensor_get_bits(&rt, i);
            uint64_t stride = ndiff > KB_SAMPLES ? (ndiff + KB_SAMPLES - 1) / KB_SAMPLES : 1;
            size_t *sb = malloc(KB_SAMPLES * sizeof *sb), *si = malloc(KB_SAMPLES * sizeof *si),
                   *sj = malloc(KB_SAMPLES * sizeof *sj);
            double *e = malloc(KB_SAMPLES * sizeof *e);
            size_t nbk = g.K / o.kblock + (g.K % o.kblock != 0);
            double *coef = malloc((nbk ? nbk : 1) * sizeof *coef),
                   *share = malloc((nbk ? nbk : 1) * sizeof *share);
            size_t ns = 0;
            uint64_t seen = 0;
            for (size_t i = 0; sb && si && sj && e && i < kt.n && ns < KB_SAMPLES; i++) {
                uint64_t kb = tensor_get_bits(&kt, i), rb = tensor_get_bits(&rt, i);
                if (kb == rb)
                    continue;
                if (seen++ % stride)
                    continue;
                double d = fl_to_double(&kf, kb) - fl_to_double(&kf, rb);
                if (!isfinite(d))
                    continue;
                sb[ns] = i / (g.M * g.N);
                si[ns] = i / g.N % g.M;
                sj[ns] = i % g.N;
                e[ns++] = d;
            }
            kb_ctx ac = {&g, &in[0], o.ta}, bc = {&g, &in[1], o.tb};
            json_t *jk = json_object();
            json_object_set_new(root, "kblocks", jk);
            if (!coef || !share || !sb || !si || !sj || !e) {
                cli_error("compare: out of memory for the K-block view");
                free(sb); free(si); free(sj); free(e); free(coef); free(share);
                goto out;
            }
            fprintf(out, "\nK-blocks (B = %zu, K = %zu: %zu blocks; %zu sampled "
                    "elements that differ, of %llu):\n", o.kblock, g.K, nbk, ns,
                    (unsigned long long)ndiff);
            json_object_set_new(jk, "kblock", jint(o.kblock));
            json_object_set_new(jk, "K", jint(g.K));
            json_object_set_new(jk, "samples", jint(ns));
            if (ns == 0) {
                fprintf(out, "  no finite differences to attribute\n");
            } else if (fl_cmp_kblocks(kb_a, &ac, kb_b, &bc, g.K, o.kblock, ns, sb,
                                      si, sj, e, coef, share) == 0) {
                size_t best = 0;
                for (size_t q = 1; q < nbk; q++)
                    if (share[q] > share[best])
                        best = q;
                json_t *jb = json_array();
                fprintf(out, "  %6s  %-15s %10s %8s\n", "block", "k range", "multiple",
                        "share");
                /* the three blocks with the largest shares */
                char *done = calloc(nbk, 1);
                for (int t = 0; t < 3 && t < (int)nbk && done; t++) {
                    size_t q = nbk;
                    for (size_t p = 0; p < nbk; p++)
                        if (!done[p] && (q == nbk || share[p] > share[q]))
                            q = p;
                    done[q] = 1;
                    size_t k0 = q * o.kblock, k1 = k0 + o.kblock < g.K ? k0 + o.kblock : g.K;
                    char kr[64];
                    snprintf(kr, sizeof kr, "%zu..%zu", k0, k1 - 1);
                    fprintf(out, "  %6zu  %-15s %+10.4f %8.4f\n", q, kr, coef[q],
                            share[q]);
                }
                free(done);
                for (size_t q = 0; q < nbk; q++)
                    json_array_append_new(jb, json_pack("{s:o, s:f, s:f}", "block",
                                          jint(q), "multiple", coef[q], "share",
                                          share[q]));
                json_object_set_new(jk, "blocks", jb);
                size_t k0 = best * o.kblock;
                size_t k1 = k0 + o.kblock < g.K ? k0 + o.kblock : g.K;
                char verdict[512];
                if (share[best] >= 0.9)
                    snprintf(verdict, sizeof verdict, "the difference is %+.2f x "
                             "block %zu's partial product (k %zu..%zu) at the "
                             "sampled elements (share %.3f): a block dropped "
                             "(-1), added twice (+1) or taken from the wrong place",
                             coef[best], best, k0, k1 - 1, share[best]);
                else
                    snprintf(verdict, sizeof verdict, "no K-block explains the "
                             "difference (largest share %.3f, block %zu): not a "
                             "missing or repeated block; rounding or order of "
                             "summation", share[best], best);
                fprintf(out, "  %s\n", verdict);
                json_object_set_new(jk, "verdict", json_string(verdict));
            }
            free(sb); free(si); free(sj); free(e); free(coef); free(share);
        }
        if (o.plot && kt.n) {
            size_t ph = 0, pw = 0;
            if (o.tile_h && cdiv_ok(M, o.tile_h) <= 256 && cdiv_ok(N, o.tile_w) <= 256) {
                ph = o.tile_h;
                pw = o.tile_w;
            } else {
                ph = cdiv_ok(M, M < 256 ? M : 256);
                pw = cdiv_ok(N, N < 256 ? N : 256);
            }
            if (fl_cmp_grid_run(&pgrid, &kf, ek, kt.data, rt.data, &tol, bt, M, N,
                                ph, pw, o.tile_h, o.tile_w)) {
                cli_error("compare: out of memory for the plot");
                goto out;
            }
            char title[1024], png[4200];
            snprintf(title, sizeof title, "%s vs %s (%s): largest ulp distance per "
                     "%zux%zu cell", kt.source, rt.source,
                     fmt_name(&kf, fn, sizeof fn), ph, pw);
            for (char *c = title; *c; c++)
                if (*c == '"' || *c == '\\')
                    *c = '\'';
            int pr2 = write_plot(o.plot, &pgrid, title, png, sizeof png);
            if (pr2 < 0)
                goto out;
            if (pr2 == 0)
                fprintf(out, "\nwrote %s\n", png);
            json_object_set_new(root, "plot", pr2 == 0 ? json_string(png) : json_null());
        }
    } else {
        json_object_set_new(root, "gemm", json_null());
    }

    int pass = s.fail == 0;
    if (pass)
        fprintf(out, "\nverdict: PASS: all %llu elements within tolerance (%s)\n",
                (unsigned long long)n, toldesc);
    else
        fprintf(out, "\nverdict: FAIL: %llu of %llu elements outside tolerance (%s)\n",
                (unsigned long long)s.fail, (unsigned long long)n, toldesc);
    json_object_set_new(root, "verdict", json_string(pass ? "pass" : "fail"));
    json_object_set_new(root, "exit", json_integer(pass ? CLI_OK : CLI_MISMATCH));
    if (o.json) {
        cli_out jo;
        if (cli_out_open(&jo, o.json))
            goto out;
        if (json_dumpf(root, jo.fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
            fputc('\n', jo.fp) == EOF) {
            cli_out_abort(&jo);
            cli_error("compare: cannot write %s", o.json);
            goto out;
        }
        if (cli_out_commit(&jo))
            goto out;
    }
    fflush(out);
    rc = pass ? CLI_OK : CLI_MISMATCH;
out:
    json_decref(root);
    fl_cmp_grid_free(&grid);
    fl_cmp_grid_free(&pgrid);
    free(model);
    free(kmodel);
    tensor_free(&kt);
    tensor_free(&rt);
    tensor_free(&xt);
    for (int i = 0; i < nin; i++)
        tensor_free(&in[i].t);
    return rc;
}
