/*
 * compare_report.c — the verdict as a report (fplab/compare.h,
 * fl_cmp_report_*): the text `fplab compare` prints and the JSON it writes,
 * built here so that the command and the Python package are two thin
 * shells over one computation.
 *
 * Everything the report needs is checked first (formats, shapes, the GEMM
 * view's requirements), so a failing call produces no text at all.  The
 * text is written to a memory stream and the JSON is built alongside it
 * (jansson, keys in insertion order), field for field what the command
 * always printed.  Numbers are formatted once, here: the shortest decimal
 * and the exact hex-float of an element come from the core's printers.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/compare.h"
#include "fplab/tensor.h"

#define NONE UINT64_MAX
#define KB_SAMPLES 4096

struct fl_cmp_report {
    char *text;
    size_t textlen;
    json_t *root;
    fl_cmp_stats s;
    int pass;
};

void fl_cmp_report_opts_init(fl_cmp_report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tol.kind = FL_CMP_TOL_EXACT;
}

/* ---------------------------------------------------------------------
 * Tensors.
 * ------------------------------------------------------------------- */

size_t fl_cmp_tensor_size(const fl_cmp_tensor *t)
{
    size_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static uint64_t tget(const fl_cmp_tensor *t, size_t i)
{
    const unsigned char *p = t->data;
    switch (t->esize) {
    case 1: return p[i];
    case 2: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    default: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

/* "(3, 4)", "(7,)", "()": as the tensor files write a shape. */
static void shape_str(const fl_cmp_tensor *t, char *buf, size_t len)
{
    fl_tensor_shape_text(t->shape, t->ndim, buf, len);
}

static const char *fmt_name(const fl_format *f, char *buf, size_t len)
{
    if (f->name && strcmp(f->name, "ieee"))
        return f->name;
    snprintf(buf, len, "ieee:%d:%d", f->ebits, f->prec - 1);
    return buf;
}

void fl_cmp_tensor_describe(const fl_cmp_tensor *t, char *buf, size_t len)
{
    char shp[256], fn[32];
    shape_str(t, shp, sizeof shp);
    if (strncmp(t->dtype, "uint", 4))
        snprintf(buf, len, "%s %s", t->dtype, shp);
    else
        snprintf(buf, len, "%s holding %s %s", t->dtype,
                 fmt_name(&t->f, fn, sizeof fn), shp);
}

static int hex_digits(const fl_format *f)
{
    return (f->width + 3) / 4;
}

/* ---------------------------------------------------------------------
 * Printing helpers.
 * ------------------------------------------------------------------- */

static void index_str(const fl_cmp_tensor *t, uint64_t flat, char *buf,
                      size_t len)
{
    size_t idx[FL_CMP_MAXDIM];
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
    snprintf(buf, len, "0x%0*llx = %s (%s)", hex_digits(f),
             (unsigned long long)bits, dec, hex);
}

static json_t *jvalue(const fl_format *f, uint64_t bits)
{
    char dec[64], hex[64], b[32];
    fl_print_shortest(f, bits, dec, sizeof dec);
    fl_print_hex(f, bits, hex, sizeof hex);
    snprintf(b, sizeof b, "0x%0*llx", hex_digits(f), (unsigned long long)bits);
    return json_pack("{s:s, s:s, s:s}", "bits", b, "value", dec, "hex", hex);
}

static json_t *jint(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v)
                                    : json_real((double)v);
}

static json_t *jindex(const fl_cmp_tensor *t, uint64_t flat)
{
    json_t *a = json_array();
    size_t idx[FL_CMP_MAXDIM];
    for (int d = t->ndim; d-- > 0;) {
        idx[d] = t->shape[d] ? flat % t->shape[d] : 0;
        flat = t->shape[d] ? flat / t->shape[d] : 0;
    }
    for (int d = 0; d < t->ndim; d++)
        json_array_append_new(a, jint(idx[d]));
    return a;
}

static json_t *jshape(const fl_cmp_tensor *t)
{
    json_t *a = json_array();
    for (int d = 0; d < t->ndim; d++)
        json_array_append_new(a, jint(t->shape[d]));
    return a;
}

/* A string that jansson takes (valid UTF-8); invalid bytes become '?'. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *c = strdup(s);
    if (!c)
        return json_null();
    for (unsigned char *p = (unsigned char *)c; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    j = json_string(c);
    free(c);
    return j ? j : json_null();
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

/* ---------------------------------------------------------------------
 * Operands at an output element.
 * ------------------------------------------------------------------- */

static double get_at(const fl_cmp_tensor *op, size_t flat)
{
    return fl_to_double(&op->f, tget(op, flat));
}

static void vector_summary(FILE *out, json_t *jo, const char *label,
                           const fl_cmp_tensor *op, size_t base, size_t stride,
                           size_t K)
{
    char v[128];
    size_t nonfinite = 0, imax = 0;
    double amax = -1;
    fprintf(out, "    %s (%zu values): ", label, K);
    json_t *first = json_array();
    for (size_t k = 0; k < K; k++) {
        uint64_t bits = tget(op, base + k * stride);
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
static void dot_summary(FILE *out, json_t *jo, const fl_cmp_tensor *a,
                        size_t abase, size_t astride, const fl_cmp_tensor *b,
                        size_t bbase, size_t bstride, size_t K)
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

/* out = op(A) op(B), possibly batched: LAY_GEMM, or LAY_NONE. */
static geom gemm_layout(const fl_cmp_tensor *out, const fl_cmp_tensor *in,
                        int nin, int ta, int tb)
{
    geom g = {LAY_NONE, 0, 0, 0, 0, 0, 0};
    if (nin >= 2 && (out->ndim == 2 || out->ndim == 3)) {
        const fl_cmp_tensor *A = &in[0], *B = &in[1];
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

/* How the inputs relate to the output's shape.  A square GEMM's inputs
 * have the output's shape too: when the user said the output is a GEMM's
 * (prefer_gemm: --gemm, --tile, --kblock, --ta/--tb), that reading wins. */
static geom find_layout(const fl_cmp_tensor *out, const fl_cmp_tensor *in,
                        int nin, int ta, int tb, int prefer_gemm)
{
    geom g = {LAY_NONE, 0, 0, 0, 0, 0, 0};
    int all_same = nin > 0;
    if (prefer_gemm) {
        g = gemm_layout(out, in, nin, ta, tb);
        if (g.lay == LAY_GEMM)
            return g;
    }
    for (int i = 0; i < nin; i++) {
        const fl_cmp_tensor *t = &in[i];
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
        const fl_cmp_tensor *t = &in[i];
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

/* Flat index of A(b, i, k) / B(b, k, j) honouring transposes and batch. */
static size_t a_flat(const geom *g, int ta, size_t b, size_t i, size_t k)
{
    size_t base = g->abatch ? b * g->M * g->K : 0;
    return base + (ta ? k * g->M + i : i * g->K + k);
}

static size_t b_flat(const geom *g, int tb, size_t b, size_t k, size_t j)
{
    size_t base = g->bbatch ? b * g->K * g->N : 0;
    return base + (tb ? j * g->K + k : k * g->N + j);
}

static void print_operands(FILE *out, json_t *jroot, const fl_cmp_tensor *o,
                           uint64_t flat, const fl_cmp_tensor *in, int nin,
                           const geom *g, int ta, int tb)
{
    json_t *jo = json_object();
    char ix[256], v[256];
    switch (g->lay) {
    case LAY_ELEMENTWISE:
        fprintf(out, "  operands there:\n");
        json_object_set_new(jo, "layout", json_string("elementwise"));
        for (int i = 0; i < nin; i++) {
            size_t at = in[i].ndim == 0 ? 0 : flat;
            uint64_t bits = tget(&in[i], at);
            value_str(&in[i].f, bits, v, sizeof v);
            fprintf(out, "    input %d (%s): %s\n", i + 1, in[i].name, v);
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
        size_t a0 = a_flat(g, ta, b, i, 0), a1 = a_flat(g, ta, b, i, 1);
        size_t b0 = b_flat(g, tb, b, 0, j), b1 = b_flat(g, tb, b, 1, j);
        char la[64], lb[64];
        snprintf(la, sizeof la, "A[%zu, :]", i);
        snprintf(lb, sizeof lb, "B[:, %zu]", j);
        vector_summary(out, jo, la, &in[0], a0, g->K > 1 ? a1 - a0 : 1, g->K);
        vector_summary(out, jo, lb, &in[1], b0, g->K > 1 ? b1 - b0 : 1, g->K);
        dot_summary(out, jo, &in[0], a0, g->K > 1 ? a1 - a0 : 1, &in[1], b0,
                    g->K > 1 ? b1 - b0 : 1, g->K);
        if (nin > 2) {
            uint64_t bits = tget(&in[2], fl_cmp_tensor_size(&in[2]) ==
                                         fl_cmp_tensor_size(o) ? flat : 0);
            value_str(&in[2].f, bits, v, sizeof v);
            fprintf(out, "    C there (input 3): %s\n", v);
        }
        break;
    }
    default: {
        char shp[256];
        fprintf(out, "  operands: the inputs' shapes (");
        for (int i = 0; i < nin; i++) {
            shape_str(&in[i], shp, sizeof shp);
            fprintf(out, "%s%s", i ? ", " : "", shp);
        }
        shape_str(o, shp, sizeof shp);
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
const char *fl_cmp_torch_defaults(const fl_format *f, double *rtol,
                                  double *atol)
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
 * Accuracy against the truth.
 * ------------------------------------------------------------------- */

/* The model line holds the word nan=any (reveal writes it for a kernel
 * whose NaN results no NaN rule reproduces). */
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

/* ---------------------------------------------------------------------
 * The GEMM view.
 * ------------------------------------------------------------------- */

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

/* The rows (or columns) of a GEMM output with differences: how many of
 * n and their ranges (text and JSON KEY_with_differences, KEY_ranges),
 * and the three worst when not all differ. */
static void axis_report(FILE *out, json_t *jg, const char *what,
                        const char *key, const uint64_t *diff,
                        const uint64_t *max, size_t n)
{
    char rs[512], label[32], jkey[64];
    size_t k = ranges_str(diff, n, rs, sizeof rs);
    snprintf(label, sizeof label, "%ss with differences", what);
    fprintf(out, "  %-26s%zu of %zu%s%s\n", label, k, n, k ? ": " : "", rs);
    snprintf(jkey, sizeof jkey, "%s_with_differences", key);
    json_object_set_new(jg, jkey, jint(k));
    snprintf(jkey, sizeof jkey, "%s_ranges", key);
    json_object_set_new(jg, jkey, json_string(rs));
    if (k && k < n)
        top3(out, what, diff, max, n);
}

static void gemm_report(FILE *out, json_t *jroot, const fl_cmp_grid *g)
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
    axis_report(out, jg, "row", "rows", g->row_diff, g->row_max, g->rows);
    axis_report(out, jg, "column", "cols", g->col_diff, g->col_max, g->cols);
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
}

typedef struct kb_ctx {
    const geom *g;
    const fl_cmp_tensor *op;
    int t;
} kb_ctx;

static double kb_a(const void *v, size_t b, size_t i, size_t k)
{
    const kb_ctx *c = v;
    return get_at(c->op, a_flat(c->g, c->t, b, i, k));
}

static double kb_b(const void *v, size_t b, size_t k, size_t j)
{
    const kb_ctx *c = v;
    return get_at(c->op, b_flat(c->g, c->t, b, k, j));
}

/* The K-block fit: -1 out of memory. */
static int kblock_report(FILE *out, json_t *root, const fl_cmp_tensor *kt,
                         const fl_cmp_tensor *rt, const fl_cmp_tensor *in,
                         const geom *g, const fl_cmp_report_opts *o)
{
    size_t n = fl_cmp_tensor_size(kt);
    /* sample the differing value pairs evenly */
    uint64_t ndiff = 0;
    for (size_t i = 0; i < n; i++)
        ndiff += tget(kt, i) != tget(rt, i);
    uint64_t stride = ndiff > KB_SAMPLES ? (ndiff + KB_SAMPLES - 1) / KB_SAMPLES : 1;
    size_t *sb = malloc(KB_SAMPLES * sizeof *sb), *si = malloc(KB_SAMPLES * sizeof *si),
           *sj = malloc(KB_SAMPLES * sizeof *sj);
    double *e = malloc(KB_SAMPLES * sizeof *e);
    size_t nbk = g->K / o->kblock + (g->K % o->kblock != 0);
    double *coef = malloc((nbk ? nbk : 1) * sizeof *coef),
           *share = malloc((nbk ? nbk : 1) * sizeof *share);
    size_t ns = 0;
    uint64_t seen = 0;
    for (size_t i = 0; sb && si && sj && e && i < n && ns < KB_SAMPLES; i++) {
        uint64_t kb = tget(kt, i), rb = tget(rt, i);
        if (kb == rb)
            continue;
        if (seen++ % stride)
            continue;
        double d = fl_to_double(&kt->f, kb) - fl_to_double(&kt->f, rb);
        if (!isfinite(d))
            continue;
        sb[ns] = i / (g->M * g->N);
        si[ns] = i / g->N % g->M;
        sj[ns] = i % g->N;
        e[ns++] = d;
    }
    kb_ctx ac = {g, &in[0], o->ta}, bc = {g, &in[1], o->tb};
    json_t *jk = json_object();
    json_object_set_new(root, "kblocks", jk);
    if (!coef || !share || !sb || !si || !sj || !e) {
        free(sb); free(si); free(sj); free(e); free(coef); free(share);
        return -1;
    }
    fprintf(out, "\nK-blocks (B = %zu, K = %zu: %zu blocks; %zu sampled "
            "elements that differ, of %llu):\n", o->kblock, g->K, nbk, ns,
            (unsigned long long)ndiff);
    json_object_set_new(jk, "kblock", jint(o->kblock));
    json_object_set_new(jk, "K", jint(g->K));
    json_object_set_new(jk, "samples", jint(ns));
    if (ns == 0) {
        fprintf(out, "  no finite differences to attribute\n");
    } else if (fl_cmp_kblocks(kb_a, &ac, kb_b, &bc, g->K, o->kblock, ns, sb,
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
            size_t k0 = q * o->kblock, k1 = k0 + o->kblock < g->K ? k0 + o->kblock : g->K;
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
        size_t k0 = best * o->kblock;
        size_t k1 = k0 + o->kblock < g->K ? k0 + o->kblock : g->K;
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
    return 0;
}

/* ---------------------------------------------------------------------
 * The report.
 * ------------------------------------------------------------------- */

/* Whether the codes of a and b mean the same values: every field that
 * decoding reads (fl__unpack), not the name, saturate or min_gap_up, which
 * only rounding reads (float8_e8m0fnu and fp8-e8m0 hold the same codes). */
static int same_format(const fl_format *a, const fl_format *b)
{
    return a->width == b->width && a->ebits == b->ebits && a->prec == b->prec &&
           a->bias == b->bias && a->nan_style == b->nan_style &&
           a->has_inf == b->has_inf && a->is_signed == b->is_signed &&
           a->has_zero == b->has_zero && a->subnormals == b->subnormals;
}

static int same_shape(const fl_cmp_tensor *a, const fl_cmp_tensor *b)
{
    return fl_tensor_shape_same(a->shape, a->ndim, b->shape, b->ndim);
}

static int tensor_ok(const fl_cmp_tensor *t, const char *what, char *err,
                     size_t errlen)
{
    if (t->ndim < 0 || t->ndim > FL_CMP_MAXDIM || !t->name || !t->dtype ||
        (t->esize != 1 && t->esize != 2 && t->esize != 4 && t->esize != 8) ||
        t->esize * 8 < t->f.width || (!t->data && fl_cmp_tensor_size(t))) {
        snprintf(err, errlen, "%s: %s", what, t->esize * 8 < t->f.width
                 ? "its elements are narrower than the format" :
                 "not an array the report can read (dimensions, element size "
                 "or data)");
        return -1;
    }
    return 0;
}

void fl_cmp_report_free(fl_cmp_report *r)
{
    if (!r)
        return;
    free(r->text);
    json_decref(r->root);
    free(r);
}

const char *fl_cmp_report_text(const fl_cmp_report *r)
{
    return r->text;
}

char *fl_cmp_report_json(const fl_cmp_report *r)
{
    char *s = json_dumps(r->root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return NULL;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    return t;
}

const fl_cmp_stats *fl_cmp_report_stats(const fl_cmp_report *r)
{
    return &r->s;
}

int fl_cmp_report_pass(const fl_cmp_report *r)
{
    return r->pass;
}

int fl_cmp_report_run(fl_cmp_report **rep, const fl_cmp_tensor *kt,
                      const fl_cmp_tensor *rt, const fl_cmp_tensor *in,
                      int nin, const fl_cmp_tensor *xt,
                      const fl_cmp_report_opts *o, char *err, size_t errlen)
{
    char kdesc[512], rdesc[512], fn[32];
    fl_cmp_grid grid, pgrid;
    fl_cmp_report *r = NULL;
    FILE *out = NULL;
    json_t *root = NULL;
    int rc = -1;

    fl_cmp_report_opts defaults;
    *rep = NULL;
    if (err && errlen)
        err[0] = 0;
    if (!o) {
        fl_cmp_report_opts_init(&defaults);
        o = &defaults;
    }
    memset(&grid, 0, sizeof grid);
    memset(&pgrid, 0, sizeof pgrid);

    /* ---- everything checked before anything is computed ------------- */
    if (tensor_ok(kt, "the kernel's output", err, errlen) ||
        tensor_ok(rt, "the reference", err, errlen) ||
        (xt && tensor_ok(xt, "the exact result", err, errlen)))
        return -1;
    if (nin < 0 || (nin && !in)) {
        snprintf(err, errlen, "the inputs: a negative count or no array");
        return -1;
    }
    for (int i = 0; i < nin; i++) {
        char what[64];
        snprintf(what, sizeof what, "input %d", i + 1);
        if (tensor_ok(&in[i], what, err, errlen))
            return -1;
    }
    fl_cmp_tensor_describe(kt, kdesc, sizeof kdesc);
    fl_cmp_tensor_describe(rt, rdesc, sizeof rdesc);
    if (!same_format(&kt->f, &rt->f) || !same_shape(kt, rt)) {
        snprintf(err, errlen, "kernel %s is %s, reference %s is %s%s", kt->name,
                 kdesc, rt->name, rdesc,
                 same_format(&kt->f, &rt->f) ? " (shapes differ)"
                 : kt->holds_bits || rt->holds_bits
                     ? " (formats differ; --out-format says what bit "
                       "patterns hold)"
                     : " (formats differ)");
        return -1;
    }
    if (xt && !same_shape(xt, kt)) {
        char xd[512];
        fl_cmp_tensor_describe(xt, xd, sizeof xd);
        snprintf(err, errlen, "the exact result %s is %s, the kernel's output "
                 "%s is %s (shapes differ)", xt->name, xd, kt->name, kdesc);
        return -1;
    }
    if (o->gemm && kt->ndim != 2 && kt->ndim != 3) {
        snprintf(err, errlen, "--gemm/--tile/--kblock/--plot need a 2-D (M, N) "
                 "or 3-D (batch, M, N) output; %s is %s", kt->name, kdesc);
        return -1;
    }
    const size_t n_el = fl_cmp_tensor_size(kt);
    geom g = find_layout(kt, in, nin, o->ta, o->tb, o->gemm);
    if (o->gemm && o->kblock && g.lay != LAY_GEMM) {
        snprintf(err, errlen, "--kblock: the inputs do not form a GEMM with "
                 "the output (A (M, K) and B (K, N)%s)",
                 o->ta || o->tb ? ", transposed as --ta/--tb say" : "");
        return -1;
    }

    /* ---- tolerance ------------------------------------------------- */
    fl_cmp_tol tol = o->tol;
    /* a model with nan=any does not model which NaN: NaN vs NaN matches
     * whatever the payload and sign, even with nan_payload */
    int nan_any = model_nan_any(o->model) || model_nan_any(o->kernel_model);
    if (nan_any)
        tol.nan_payload = 0;
    int nan_payload = tol.nan_payload, signed_zero = tol.zero_sign;
    char toldesc[512];
    const char *tolsrc = "default";
    if (o->torch_defaults) {
        tol.kind = FL_CMP_TOL_CLOSE;
        const char *dn = fl_cmp_torch_defaults(&kt->f, &tol.rtol, &tol.atol);
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
                     fmt_name(&kt->f, fn, sizeof fn));
    } else if (tol.kind == FL_CMP_TOL_ULP) {
        tolsrc = "--ulp";
        snprintf(toldesc, sizeof toldesc, "within %llu ulp",
                 (unsigned long long)tol.ulp);
    } else if (tol.kind == FL_CMP_TOL_CLOSE) {
        tolsrc = "--rtol/--atol";
        snprintf(toldesc, sizeof toldesc, "|k - r| <= %g + %g*|r|", tol.atol,
                 tol.rtol);
    } else {
        tol.kind = FL_CMP_TOL_EXACT;
        snprintf(toldesc, sizeof toldesc, "bit-identical (the default: no "
                 "tolerance given)");
    }
    size_t tl = strlen(toldesc);
    snprintf(toldesc + tl, sizeof toldesc - tl, "%s%s; NaN vs NaN %s",
             signed_zero && tol.kind != FL_CMP_TOL_EXACT ? "; +0 vs -0 fails" : "",
             "", nan_payload ? "only bit for bit"
                 : nan_any ? "matches (the model says nan=any: which NaN is "
                             "not modelled)" : "matches");

    r = calloc(1, sizeof *r);
    root = json_object();
    if (!r || !root)
        goto oom;
    fl_cmp_stats *sp = &r->s;
    if (fl_cmp_arrays(sp, &kt->f, kt->esize, kt->data, rt->data, n_el, &tol,
                      o->nthreads)) {
        snprintf(err, errlen, "cannot compare %s elements held in %zu bytes",
                 fmt_name(&kt->f, fn, sizeof fn), kt->esize);
        goto fail;
    }
    const fl_cmp_stats s = *sp;
    out = open_memstream(&r->text, &r->textlen);
    if (!out)
        goto oom;

    char shp[256];
    shape_str(kt, shp, sizeof shp);
    fprintf(out, "fplab compare: kernel %s vs reference %s\n", kt->name, rt->name);
    fprintf(out, "  format     %s; shape %s, %zu elements (kernel %s, reference "
            "%s)\n", fmt_name(&kt->f, fn, sizeof fn), shp, n_el, kt->dtype,
            rt->dtype);
    fprintf(out, "  model      %s\n", o->model ? o->model : "(none recorded with "
            "the reference: safetensors metadata 'fplab-model' or a FILE.model "
            "sidecar)");
    if (o->kernel_model)
        fprintf(out, "  kernel's   %s\n", o->kernel_model);
    fprintf(out, "  tolerance  %s\n\n", toldesc);

    json_object_set_new(root, "fplab", json_string(FPLAB_VERSION));
    json_object_set_new(root, "kernel", json_pack("{s:o, s:o, s:o, s:o}", "file",
                        jstr(kt->name), "dtype", jstr(kt->dtype), "shape",
                        jshape(kt), "model", o->kernel_model
                        ? jstr(o->kernel_model) : json_null()));
    json_object_set_new(root, "reference", json_pack("{s:o, s:o, s:o, s:o}", "file",
                        jstr(rt->name), "dtype", jstr(rt->dtype), "shape",
                        jshape(rt), "model", o->model ? jstr(o->model)
                                                      : json_null()));
    json_object_set_new(root, "format", json_string(fmt_name(&kt->f, fn, sizeof fn)));
    json_object_set_new(root, "elements", jint(n_el));
    json_object_set_new(root, "tolerance", json_pack("{s:s, s:s, s:o, s:f, s:f, "
                        "s:b, s:b, s:s}", "kind", tol.kind == FL_CMP_TOL_EXACT
                        ? "exact" : tol.kind == FL_CMP_TOL_ULP ? "ulp" : "close",
                        "from", tolsrc, "ulp", jint(tol.ulp), "rtol", tol.rtol,
                        "atol", tol.atol, "nan_payload", nan_payload,
                        "signed_zero", signed_zero, "text", toldesc));

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
    if (kt->f.has_negzero)
        fprintf(out, "+0 vs -0               %12llu\n",
                (unsigned long long)s.zero_sign);
    else   /* fnuz, P3109, unsigned: 0x80 is the NaN or a number */
        fprintf(out, "+0 vs -0               %12llu  (%s has no -0)\n",
                (unsigned long long)s.zero_sign, fmt_name(&kt->f, fn, sizeof fn));
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
        fl_cmp_bucket_label(b, lab, sizeof lab);
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
    const size_t ek = kt->esize;
    const fl_format *kf = &kt->f;
    char ix[256], kv[256], rv[256];
    if (s.max_ulp_index != NONE) {
        uint64_t i = s.max_ulp_index;
        uint64_t kb = tget(kt, i), rb = tget(rt, i);
        index_str(kt, i, ix, sizeof ix);
        value_str(kf, kb, kv, sizeof kv);
        value_str(kf, rb, rv, sizeof rv);
        fprintf(out, "\nlargest ulp distance   %llu at %s (flat %llu)\n"
                "  kernel     %s\n  reference  %s\n",
                (unsigned long long)s.max_ulp, ix, (unsigned long long)i, kv, rv);
        json_t *jw = json_pack("{s:o, s:o, s:o, s:o, s:o}", "ulp", jint(s.max_ulp),
                               "index", jindex(kt, i), "flat", jint(i), "kernel",
                               jvalue(kf, kb), "reference", jvalue(kf, rb));
        if (nin)
            print_operands(out, jw, kt, i, in, nin, &g, o->ta, o->tb);
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
        uint64_t kb = tget(kt, i), rb = tget(rt, i);
        index_str(kt, i, ix, sizeof ix);
        value_str(kf, kb, kv, sizeof kv);
        value_str(kf, rb, rv, sizeof rv);
        fprintf(out, "\nfirst %s disagreement at %s (flat %llu)\n  kernel     %s\n"
                "  reference  %s\n", q ? "infinity" : "NaN", ix,
                (unsigned long long)i, kv, rv);
        json_t *jf = json_pack("{s:o, s:o, s:o, s:o}", "index", jindex(kt, i),
                               "flat", jint(i), "kernel", jvalue(kf, kb),
                               "reference", jvalue(kf, rb));
        if (nin)
            print_operands(out, jf, kt, i, in, nin, &g, o->ta, o->tb);
        json_object_set_new(root, firsts[q], jf);
    }

    /* the first K mismatches */
    json_t *jl = json_array();
    json_object_set_new(root, "mismatches", jl);
    if (o->show) {
        size_t want = o->show < n_el ? (size_t)o->show : n_el;
        uint64_t *idx = malloc((want ? want : 1) * sizeof *idx);
        if (!idx)
            goto oom;
        int failing = s.fail > 0;
        size_t got = fl_cmp_list(kf, ek, kt->data, rt->data, n_el, &tol, failing,
                                 0, idx, want);
        fprintf(out, "\nfirst %zu %s (--show %llu):\n", got,
                failing ? "elements outside tolerance"
                        : "differences (all within tolerance)",
                (unsigned long long)o->show);
        for (size_t q = 0; q < got; q++) {
            uint64_t kb = tget(kt, idx[q]), rb = tget(rt, idx[q]);
            fl_cmp_elem e = fl_cmp_one(kf, kb, rb, &tol);
            char d[64];
            static const char *cls[] = {"", "NaN vs NaN", "NaN in the kernel",
                                        "NaN in the reference", "infinity"};
            if (e.cls == FL_CMP_EL_VALUE)
                snprintf(d, sizeof d, "%llu ulp%s", (unsigned long long)e.ulp,
                         e.ulp == 0 ? " (+0 vs -0)" : "");
            else
                snprintf(d, sizeof d, "%s", cls[e.cls]);
            index_str(kt, idx[q], ix, sizeof ix);
            value_str(kf, kb, kv, sizeof kv);
            value_str(kf, rb, rv, sizeof rv);
            fprintf(out, "  %-16s kernel %s  reference %s  %s\n", ix, kv, rv, d);
            json_array_append_new(jl, json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:b}",
                "index", jindex(kt, idx[q]), "flat", jint(idx[q]), "kernel",
                jvalue(kf, kb), "reference", jvalue(kf, rb), "class",
                e.cls == FL_CMP_EL_VALUE ? "value" : cls[e.cls], "ulp",
                e.cls == FL_CMP_EL_VALUE ? jint(e.ulp) : json_null(),
                "fail", e.fail));
        }
        free(idx);
    }

    /* against the truth */
    if (xt) {
        fl_cmp_relerr ks, rs2;
        if (fl_cmp_relerr_run(&ks, kf, ek, kt->data, &xt->f, xt->esize, xt->data,
                              n_el) ||
            fl_cmp_relerr_run(&rs2, &rt->f, rt->esize, rt->data, &xt->f,
                              xt->esize, xt->data, n_el)) {
            snprintf(err, errlen, "out of memory for the relative errors");
            goto fail;
        }
        char sent[512];
        double ratio;
        accuracy_sentence(&ks, &rs2, sent, sizeof sent, &ratio);
        fprintf(out, "\nrelative error against the exact result %s (%s):\n",
                xt->name, fmt_name(&xt->f, fn, sizeof fn));
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
        json_object_set_new(root, "exact", json_pack("{s:o, s:s, s:o, s:o, s:o, s:s}",
                            "file", jstr(xt->name), "format",
                            fmt_name(&xt->f, fn, sizeof fn),
                            "kernel", jrel(&ks), "reference", jrel(&rs2),
                            "max_ratio", jreal(ratio),
                            "sentence", sent));
    } else {
        json_object_set_new(root, "exact", json_null());
    }

    /* GEMM structure */
    if (o->gemm) {
        size_t bt = kt->ndim == 3 ? kt->shape[0] : 1;
        size_t M = kt->shape[kt->ndim - 2], N = kt->shape[kt->ndim - 1];
        if (n_el == 0) {
            fprintf(out, "\n(no elements: no GEMM view)\n");
        } else {
            size_t ch = 0, cw = 0;
            if (o->tile_h && cdiv_ok(M, o->tile_h) <= 32 &&
                cdiv_ok(N, o->tile_w) <= 64) {
                ch = o->tile_h;
                cw = o->tile_w;
            }
            if (fl_cmp_grid_run(&grid, kf, ek, kt->data, rt->data, &tol, bt, M, N,
                                ch, cw, o->tile_h, o->tile_w)) {
                snprintf(err, errlen, "out of memory for the GEMM view");
                goto fail;
            }
            gemm_report(out, root, &grid);
        }
        if (o->kblock && kblock_report(out, root, kt, rt, in, &g, o)) {
            snprintf(err, errlen, "out of memory for the K-block view");
            goto fail;
        }
        if (o->plot && n_el) {
            size_t ph = 0, pw = 0;
            if (o->tile_h && cdiv_ok(M, o->tile_h) <= 256 &&
                cdiv_ok(N, o->tile_w) <= 256) {
                ph = o->tile_h;
                pw = o->tile_w;
            } else {
                ph = cdiv_ok(M, M < 256 ? M : 256);
                pw = cdiv_ok(N, N < 256 ? N : 256);
            }
            if (fl_cmp_grid_run(&pgrid, kf, ek, kt->data, rt->data, &tol, bt, M,
                                N, ph, pw, o->tile_h, o->tile_w)) {
                snprintf(err, errlen, "out of memory for the plot");
                goto fail;
            }
            char title[1024], png[4200];
            snprintf(title, sizeof title, "%s vs %s (%s): largest ulp distance per "
                     "%zux%zu cell", kt->name, rt->name, fmt_name(kf, fn, sizeof fn),
                     ph, pw);
            for (char *c = title; *c; c++)
                if (*c == '"' || *c == '\\')
                    *c = '\'';
            png[0] = 0;
            int pr2 = o->plot(o->plot_user, &pgrid, title, png, sizeof png, err,
                              errlen);
            if (pr2 < 0)
                goto fail;
            if (pr2 == 0)
                fprintf(out, "\nwrote %s\n", png);
            json_object_set_new(root, "plot", pr2 == 0 ? jstr(png) : json_null());
        }
    } else {
        json_object_set_new(root, "gemm", json_null());
    }

    r->pass = s.fail == 0;
    if (r->pass)
        fprintf(out, "\nverdict: PASS: all %llu elements within tolerance (%s)\n",
                (unsigned long long)n, toldesc);
    else
        fprintf(out, "\nverdict: FAIL: %llu of %llu elements outside tolerance (%s)\n",
                (unsigned long long)s.fail, (unsigned long long)n, toldesc);
    json_object_set_new(root, "verdict", json_string(r->pass ? "pass" : "fail"));
    json_object_set_new(root, "exit", json_integer(r->pass ? 0 : 1));
    if (fclose(out) != 0) {
        out = NULL;
        goto oom;
    }
    out = NULL;
    r->root = root;
    root = NULL;
    *rep = r;
    r = NULL;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    if (out)
        fclose(out);
done:
    json_decref(root);
    fl_cmp_report_free(r);
    fl_cmp_grid_free(&grid);
    fl_cmp_grid_free(&pgrid);
    return rc;
}
