/*
 * cmp.c — fplab.compare: the verdict report of fplab/compare.h
 * (fl_cmp_report_run) on numpy arrays; the same text and JSON as
 * `fplab compare` on the same elements.
 */
#include "ext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/compare.h"

/* (array, fmt or None, name, dtype name) -> an array and its view. */
static int get_tensor(PyObject *tup, ext_array *a, fl_cmp_tensor *t,
                      const char *what)
{
    static const char where[] = "fplab.compare";
    PyObject *arr, *fmt;
    const char *name, *dtype;
    if (!PyArg_ParseTuple(tup, "OOss", &arr, &fmt, &name, &dtype))
        return -1;
    if (ext_array_get(a, arr, fmt, where, what))
        return -1;
    if (fmt != Py_None && a->kind != EXT_CODES) {
        fl_format g;
        if (ext_format(fmt, &g, where)) {
            ext_array_release(a);
            return -1;
        }
        if (!fl_format_same(&g, &a->f)) {
            char x[64], y[64];
            fl_format_spec(&a->f, x, sizeof x);
            fl_format_spec(&g, y, sizeof y);
            ext_array_release(a);
            ext_value_error(where, "%s holds %s values but fmt says %s", what, x, y);
            return -1;
        }
    }
    int nd = PyArray_NDIM(a->arr);
    if (nd > FL_CMP_MAXDIM) {
        ext_array_release(a);
        ext_value_error(where, "%s has %d dimensions (at most %d)", what, nd,
                        FL_CMP_MAXDIM);
        return -1;
    }
    memset(t, 0, sizeof *t);
    t->f = a->f;
    t->esize = (size_t)a->esize;
    t->data = PyArray_DATA(a->arr);
    t->ndim = nd;
    for (int d = 0; d < nd; d++)
        t->shape[d] = (size_t)PyArray_DIM(a->arr, d);
    t->name = name;
    t->dtype = dtype;
    t->holds_bits = 0;
    return 0;
}

static int opt_int(PyObject *d, const char *key, long long *v)
{
    PyObject *o = PyDict_GetItemString(d, key);
    if (!o || o == Py_None)
        return 0;
    long long x = PyLong_AsLongLong(o);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (x < 0) {
        ext_value_error("fplab.compare", "%s must not be negative", key);
        return -1;
    }
    *v = x;
    return 0;
}

static int opt_double(PyObject *d, const char *key, double *v)
{
    PyObject *o = PyDict_GetItemString(d, key);
    if (!o || o == Py_None)
        return 0;
    double x = PyFloat_AsDouble(o);
    if (x == -1.0 && PyErr_Occurred())
        return -1;
    if (!(x >= 0) || x == INFINITY) {
        ext_value_error("fplab.compare", "%s must be a non-negative finite "
                        "number", key);
        return -1;
    }
    *v = x;
    return 0;
}

static int opt_bool(PyObject *d, const char *key)
{
    PyObject *o = PyDict_GetItemString(d, key);
    return o && PyObject_IsTrue(o) == 1;
}

static const char *opt_str(PyObject *d, const char *key)
{
    PyObject *o = PyDict_GetItemString(d, key);
    if (!o || !PyUnicode_Check(o))
        return NULL;
    return PyUnicode_AsUTF8(o);
}

/* compare(kernel, ref, inputs, exact, opts) -> (text, json, pass) */
PyObject *ext_compare(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.compare";
    PyObject *kt, *rt, *ins, *xt, *od;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!OO!", &kt, &rt, &PyList_Type, &ins, &xt,
                          &PyDict_Type, &od))
        return NULL;
    ext_array ka, ra, xa, ia[8];
    fl_cmp_tensor kv, rv, xv, iv[8];
    int have_k = 0, have_r = 0, have_x = 0, nin = 0;
    PyObject *res = NULL;
    fl_cmp_report *rep = NULL;
    if (PyList_GET_SIZE(ins) > 8)
        return ext_value_error(where, "inputs: at most 8 arrays");
    if (get_tensor(kt, &ka, &kv, "actual"))
        goto done;
    have_k = 1;
    if (get_tensor(rt, &ra, &rv, "expected"))
        goto done;
    have_r = 1;
    if (xt != Py_None) {
        if (get_tensor(xt, &xa, &xv, "exact"))
            goto done;
        have_x = 1;
    }
    for (; nin < PyList_GET_SIZE(ins); nin++) {
        char what[32];
        snprintf(what, sizeof what, "inputs[%d]", nin);
        if (get_tensor(PyList_GET_ITEM(ins, nin), &ia[nin], &iv[nin], what))
            goto done;
    }
    fl_cmp_report_opts o;
    fl_cmp_report_opts_init(&o);
    const char *kind = opt_str(od, "kind");
    long long ulp = 0, show = 0, th = 0, tw = 0, kb = 0, thr = 0;
    if (kind && !strcmp(kind, "ulp"))
        o.tol.kind = FL_CMP_TOL_ULP;
    else if (kind && !strcmp(kind, "close"))
        o.tol.kind = FL_CMP_TOL_CLOSE;
    if (opt_int(od, "ulp", &ulp) || opt_double(od, "rtol", &o.tol.rtol) ||
        opt_double(od, "atol", &o.tol.atol) || opt_int(od, "show", &show) ||
        opt_int(od, "tile_h", &th) || opt_int(od, "tile_w", &tw) ||
        opt_int(od, "kblock", &kb) || opt_int(od, "threads", &thr))
        goto done;
    if (show > 1000000) {
        ext_value_error(where, "show=%lld: at most 1000000", show);
        goto done;
    }
    if ((th == 0) != (tw == 0) || th > (1 << 20) || tw > (1 << 20)) {
        ext_value_error(where, "tile is (rows, columns), two positive integers");
        goto done;
    }
    o.tol.ulp = (uint64_t)ulp;
    o.tol.nan_payload = opt_bool(od, "nan_payload");
    o.tol.zero_sign = opt_bool(od, "signed_zero");
    o.torch_defaults = opt_bool(od, "torch_defaults");
    o.gemm = opt_bool(od, "gemm");
    o.ta = opt_bool(od, "ta");
    o.tb = opt_bool(od, "tb");
    o.show = (uint64_t)show;
    o.tile_h = (size_t)th;
    o.tile_w = (size_t)tw;
    o.kblock = (size_t)kb;
    o.nthreads = (int)thr;
    o.model = opt_str(od, "model");
    o.kernel_model = opt_str(od, "kernel_model");
    if (PyErr_Occurred())
        goto done;
    if (o.kblock && nin != 2) {
        ext_value_error(where, "kblock needs the GEMM's two inputs (inputs=[a, "
                        "b])");
        goto done;
    }
    char err[1024];
    int rc;
    err[0] = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = fl_cmp_report_run(&rep, &kv, &rv, iv, nin, have_x ? &xv : NULL, &o, err,
                           sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) {
        ext_value_error(where, "%s", err);
        goto done;
    }
    char *json = fl_cmp_report_json(rep);
    if (!json) {
        PyErr_NoMemory();
        goto done;
    }
    res = Py_BuildValue("(ssO)", fl_cmp_report_text(rep), json,
                        fl_cmp_report_pass(rep) ? Py_True : Py_False);
    free(json);
done:
    fl_cmp_report_free(rep);
    if (have_k)
        ext_array_release(&ka);
    if (have_r)
        ext_array_release(&ra);
    if (have_x)
        ext_array_release(&xa);
    for (int i = 0; i < nin; i++)
        ext_array_release(&ia[i]);
    return res;
}
