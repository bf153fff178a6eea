/*
 * refmod.c — arithmetic models (fplab.Model) and the kernel references
 * fplab.ref.sum, dot and gemm: fplab/ref.h on numpy arrays, with the checks
 * and messages of `fplab ref`.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

#include "fplab/ref.h"

/* model(words) -> canonical line.  words: the key=value words given (keys
 * left out keep their defaults).  ValueError with the library's message. */
PyObject *ext_model(PyObject *self, PyObject *args)
{
    const char *words;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &words))
        return NULL;
    fl_ref_model m;
    char err[1024];
    fl_ref_model_init(&m);
    if (fl_ref_model_parse(&m, words, err, sizeof err)) {
        fl_ref_model_free(&m);
        return ext_value_error("fplab.Model", "%s", err);
    }
    char *line = fl_ref_model_string(&m);
    fl_ref_model_free(&m);
    if (!line)
        return PyErr_NoMemory();
    PyObject *r = PyUnicode_FromString(line);
    free(line);
    return r;
}

/* The model of words on top of m (initialised), `in` taken from the data. */
static int build_model(fl_ref_model *m, const char *words, const fl_format *data,
                       const char *what, const char *where)
{
    char err[1024];
    if (fl_ref_model_parse(m, words, err, sizeof err)) {
        ext_value_error(where, "model: %s", err);
        return -1;
    }
    if (m->in_set && !fl_format_same(&m->in, data)) {
        char a[64], b[64];
        fl_format_spec(&m->in, a, sizeof a);
        fl_format_spec(data, b, sizeof b);
        ext_value_error(where, "the model says in=%s but %s holds %s", a, what, b);
        return -1;
    }
    m->in = *data;
    m->in_set = 1;
    return 0;
}

/* The elements of a as uint64 codes of their format (a malloc'd copy). */
static uint64_t *codes_of(const ext_array *a)
{
    uint64_t *c = malloc((a->n ? a->n : 1) * sizeof *c);
    if (!c)
        return NULL;
    const void *p = PyArray_DATA(a->arr);
    for (size_t i = 0; i < a->n; i++)
        c[i] = ext_load(p, a->esize, i);
    return c;
}

/* A new array of the natural dtype of f holding codes r. */
static PyArrayObject *array_of(const fl_format *f, int nd, const npy_intp *dims,
                               const uint64_t *r, size_t n)
{
    int codes;
    int t = ext_natural_type(f, &codes);
    PyArrayObject *o = (PyArrayObject *)PyArray_SimpleNew(nd, (npy_intp *)dims, t);
    if (!o)
        return NULL;
    int es = (int)PyArray_ITEMSIZE(o);
    for (size_t i = 0; i < n; i++)
        ext_store(PyArray_DATA(o), es, i, r[i]);
    return o;
}

static PyObject *result(PyArrayObject *o, const fl_format *of, unsigned flags,
                        const fl_ref_model *m)
{
    char spec[64];
    char *line = fl_ref_model_string(m);
    if (!line) {
        Py_DECREF(o);
        return PyErr_NoMemory();
    }
    fl_format_spec(of, spec, sizeof spec);
    PyObject *r = Py_BuildValue("(Nsks)", o, spec, (unsigned long)flags, line);
    free(line);
    return r;
}

static int same_shape(const ext_array *a, const ext_array *b)
{
    return PyArray_NDIM(a->arr) == PyArray_NDIM(b->arr) &&
           PyArray_CompareLists(PyArray_DIMS(a->arr), PyArray_DIMS(b->arr),
                                PyArray_NDIM(a->arr));
}

static void shape_str(const ext_array *a, char *buf, size_t len)
{
    size_t o = 0;
    int nd = PyArray_NDIM(a->arr);
    o += (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < nd && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, d ? ", %lld" : "%lld",
                              (long long)PyArray_DIM(a->arr, d));
    if (o < len)
        snprintf(buf + o, len - o, nd == 1 ? ",)" : ")");
}

/* ref_reduce(op, words, a, b, codes_fmt, threads) -> (out, out_spec, flags,
 * line) */
PyObject *ext_ref_reduce(PyObject *self, PyObject *args)
{
    const char *opname, *words;
    PyObject *ao, *bo, *cfmt, *thr;
    (void)self;
    if (!PyArg_ParseTuple(args, "ssOOOO", &opname, &words, &ao, &bo, &cfmt, &thr))
        return NULL;
    const int dot = !strcmp(opname, "dot");
    const char *where = dot ? "fplab.ref.dot" : "fplab.ref.sum";
    int threads;
    if (ext_threads(thr, &threads, where))
        return NULL;
    ext_array a, b;
    int nb = 0;
    PyObject *res = NULL;
    uint64_t *ca = NULL, *cb = NULL, *r = NULL;
    fl_ref_model m;
    int have_m = 0;
    if (ext_array_get(&a, ao, cfmt, where, dot ? "a" : "x"))
        return NULL;
    if (dot) {
        if (ext_array_get(&b, bo, cfmt, where, "b"))
            goto done;
        nb = 1;
    }
    int nd = PyArray_NDIM(a.arr);
    if (nd == 0) {
        ext_value_error(where, "%s is a scalar (0-d); %s reduces the last axis "
                        "of an array", dot ? "a" : "x", dot ? "dot" : "sum");
        goto done;
    }
    if (dot && !same_shape(&a, &b)) {
        char sa[256], sb[256];
        shape_str(&a, sa, sizeof sa);
        shape_str(&b, sb, sizeof sb);
        ext_value_error(where, "a has shape %s but b has shape %s (dot pairs the "
                        "rows of two arrays of one shape)", sa, sb);
        goto done;
    }
    if (dot && !fl_format_same(&a.f, &b.f)) {
        ext_value_error(where, "a and b hold different formats");
        goto done;
    }
    size_t n = (size_t)PyArray_DIM(a.arr, nd - 1), rows = 1;
    for (int d = 0; d < nd - 1; d++)
        rows *= (size_t)PyArray_DIM(a.arr, d);
    fl_ref_model_init(&m);
    have_m = 1;
    if (build_model(&m, words, &a.f, dot ? "a" : "x", where))
        goto done;
    char err[1024];
    if (fl_ref_model_check(&m, dot ? FL_REF_OP_DOT : FL_REF_OP_SUM, n, err,
                           sizeof err)) {
        ext_value_error(where, "model: %s", err);
        goto done;
    }
    ca = codes_of(&a);
    cb = dot ? codes_of(&b) : NULL;
    r = malloc((rows ? rows : 1) * sizeof *r);
    if (!ca || (dot && !cb) || !r) {
        PyErr_NoMemory();
        goto done;
    }
    unsigned flags = 0;
    int rc;
    err[0] = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = dot ? fl_ref_dot(&m, ca, cb, rows, n, r, threads, &flags, err, sizeof err)
             : fl_ref_sum(&m, ca, rows, n, r, threads, &flags, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) {
        ext_value_error(where, "%s", err);
        goto done;
    }
    const fl_format *of = m.out_set ? &m.out : &m.acc;
    PyArrayObject *o = array_of(of, nd - 1, PyArray_DIMS(a.arr), r, rows);
    if (o)
        res = result(o, of, flags, &m);
done:
    if (have_m)
        fl_ref_model_free(&m);
    free(ca);
    free(cb);
    free(r);
    ext_array_release(&a);
    if (nb)
        ext_array_release(&b);
    return res;
}

/* A GEMM scalar in acc: None -> dflt, a number's exact binary64 value or a
 * decimal string rounded once (to nearest even) into acc. */
static int scalar(PyObject *o, const fl_format *acc, double dflt, uint64_t *v,
                  const char *what, const char *where)
{
    fl_ctx c = fl_ctx_make(FL_RNE);
    unsigned f = 0;
    if (o == Py_None) {
        *v = fl_from_double(acc, dflt, &c, &f);
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s || fl_parse(acc, s, &c, &f, v)) {
            if (s)
                ext_value_error(where, "%s: '%.100s' is not a number", what, s);
            return -1;
        }
        return 0;
    }
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        ext_type_error(where, "%s is a number or a decimal string, not %s", what,
                       Py_TYPE(o)->tp_name);
        return -1;
    }
    *v = fl_from_double(acc, d, &c, &f);
    return 0;
}

/* ref_gemm(words, A, B, C, alpha, beta, ta, tb, codes_fmt, threads) ->
 * (D, out_spec, flags, line) */
PyObject *ext_ref_gemm(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.ref.gemm";
    const char *words;
    PyObject *ao, *bo, *co, *alo, *beo, *cfmt, *thr;
    int ta, tb;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOOOOOppOO", &words, &ao, &bo, &co, &alo, &beo,
                          &ta, &tb, &cfmt, &thr))
        return NULL;
    int threads;
    if (ext_threads(thr, &threads, where))
        return NULL;
    ext_array in[2], cin;
    int nload = 0, have_c = 0, have_m = 0;
    PyObject *res = NULL;
    uint64_t *ca = NULL, *cb = NULL, *cc = NULL, *d = NULL;
    fl_ref_model m;
    char sa[256], sb[256], err[1024];
    for (; nload < 2; nload++)
        if (ext_array_get(&in[nload], nload ? bo : ao, cfmt, where,
                          nload ? "b" : "a"))
            goto done;
    shape_str(&in[0], sa, sizeof sa);
    shape_str(&in[1], sb, sizeof sb);
    for (int i = 0; i < 2; i++)
        if (PyArray_NDIM(in[i].arr) != 2 && PyArray_NDIM(in[i].arr) != 3) {
            ext_value_error(where, "%s has shape %s: A and B are matrices (2-D) or "
                            "batches of matrices (3-D)", i ? "b" : "a",
                            i ? sb : sa);
            goto done;
        }
    if (!fl_format_same(&in[0].f, &in[1].f)) {
        ext_value_error(where, "a and b hold different formats");
        goto done;
    }
    PyArrayObject *A = in[0].arr, *B = in[1].arr;
    int an = PyArray_NDIM(A), bn = PyArray_NDIM(B);
    size_t ar = (size_t)PyArray_DIM(A, an - 2), ac = (size_t)PyArray_DIM(A, an - 1);
    size_t br = (size_t)PyArray_DIM(B, bn - 2), bc = (size_t)PyArray_DIM(B, bn - 1);
    size_t M = ta ? ac : ar, K = ta ? ar : ac, KB = tb ? bc : br, N = tb ? br : bc;
    if (K != KB) {
        ext_value_error(where, "a %s gives K = %zu%s but b %s gives K = %zu%s", sa,
                        K, ta ? " (ta: A is K x M)" : "", sb, KB,
                        tb ? " (tb: B is N x K)" : "");
        goto done;
    }
    if (an == 3 && bn == 3 && PyArray_DIM(A, 0) != PyArray_DIM(B, 0)) {
        ext_value_error(where, "a %s has %lld matrices but b %s has %lld", sa,
                        (long long)PyArray_DIM(A, 0), sb, (long long)PyArray_DIM(B, 0));
        goto done;
    }
    size_t batch = an == 3 ? (size_t)PyArray_DIM(A, 0)
                 : bn == 3 ? (size_t)PyArray_DIM(B, 0) : 1;
    int outdim = an == 3 || bn == 3 ? 3 : 2;
    npy_intp oshape[3];
    if (outdim == 3) {
        oshape[0] = (npy_intp)batch;
        oshape[1] = (npy_intp)M;
        oshape[2] = (npy_intp)N;
    } else {
        oshape[0] = (npy_intp)M;
        oshape[1] = (npy_intp)N;
    }
    fl_ref_gemm_shape s;
    fl_ref_gemm_shape_init(&s, ta, tb, batch, M, N, K);
    s.stride_a = an == 3 ? ar * ac : 0;
    s.stride_b = bn == 3 ? br * bc : 0;
    fl_ref_model_init(&m);
    have_m = 1;
    if (build_model(&m, words, &in[0].f, "a", where))
        goto done;
    if (fl_ref_model_check(&m, FL_REF_OP_GEMM, K, err, sizeof err)) {
        ext_value_error(where, "model: %s", err);
        goto done;
    }
    const fl_format *of = m.out_set ? &m.out : &m.acc;
    uint64_t alpha, beta;
    if (scalar(alo, &m.acc, 1.0, &alpha, "alpha", where))
        goto done;
    if (co != Py_None) {
        PyObject *ofo = ext_format_new(of);
        if (!ofo)
            goto done;
        int bad = ext_array_get(&cin, co, ofo, where, "c");
        Py_DECREF(ofo);
        if (bad)
            goto done;
        have_c = 1;
        if (!fl_format_same(&cin.f, of)) {
            char x[64], y[64];
            fl_format_spec(&cin.f, x, sizeof x);
            fl_format_spec(of, y, sizeof y);
            ext_value_error(where, "c holds %s but C is read in the output "
                            "format %s", x, y);
            goto done;
        }
        int cn = PyArray_NDIM(cin.arr);
        int ok = (cn == 2 && (size_t)PyArray_DIM(cin.arr, 0) == M &&
                  (size_t)PyArray_DIM(cin.arr, 1) == N) ||
                 (cn == 3 && (size_t)PyArray_DIM(cin.arr, 0) == batch &&
                  (size_t)PyArray_DIM(cin.arr, 1) == M &&
                  (size_t)PyArray_DIM(cin.arr, 2) == N);
        if (!ok) {
            char sc[256];
            shape_str(&cin, sc, sizeof sc);
            if (outdim == 3)
                ext_value_error(where, "c has shape %s but the output is (%zu, "
                                "%zu, %zu)", sc, batch, M, N);
            else
                ext_value_error(where, "c has shape %s but the output is (%zu, "
                                "%zu)", sc, M, N);
            goto done;
        }
        s.stride_c = cn == 3 ? M * N : 0;
    }
    if (scalar(beo, &m.acc, have_c ? 1.0 : 0.0, &beta, "beta", where))
        goto done;
    if (!have_c && (beta & ~m.acc.sign_mask) != 0) {
        ext_value_error(where, "beta needs c");
        goto done;
    }
    size_t nd_ = batch * M * N;
    ca = codes_of(&in[0]);
    cb = codes_of(&in[1]);
    cc = have_c ? codes_of(&cin) : NULL;
    d = malloc((nd_ ? nd_ : 1) * sizeof *d);
    if (!ca || !cb || (have_c && !cc) || !d) {
        PyErr_NoMemory();
        goto done;
    }
    unsigned flags = 0;
    int rc;
    err[0] = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = fl_ref_gemm(&m, &s, alpha, ca, cb, beta, cc, d, threads, &flags, err,
                     sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) {
        ext_value_error(where, "%s", err);
        goto done;
    }
    PyArrayObject *o = array_of(of, outdim, oshape, d, nd_);
    if (o)
        res = result(o, of, flags, &m);
done:
    if (have_m)
        fl_ref_model_free(&m);
    free(ca);
    free(cb);
    free(cc);
    free(d);
    for (int i = 0; i < nload; i++)
        ext_array_release(&in[i]);
    if (have_c)
        ext_array_release(&cin);
    return res;
}
