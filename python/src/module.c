/*
 * module.c — the module fplab._fplab: formats (fplab.Format), names of
 * modes and presets, errors, and the method table.
 */
#define FPLAB_EXT_MAIN
#include "ext.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>


PyObject *ext_value_error(const char *where, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_Format(PyExc_ValueError, "%s: %s", where, msg);
    return NULL;
}

PyObject *ext_type_error(const char *where, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_Format(PyExc_TypeError, "%s: %s", where, msg);
    return NULL;
}

/* ---------------------------------------------------------------------
 * fplab.Format
 * ------------------------------------------------------------------- */

static PyObject *format_cache;   /* name -> Format */

PyObject *ext_format_new(const fl_format *f)
{
    FormatObject *o = PyObject_New(FormatObject, &ext_format_type);
    if (!o)
        return NULL;
    o->f = *f;
    fl_format_spec(f, o->spec, sizeof o->spec);
    return (PyObject *)o;
}

/* A name as the library reads it: "np." / "torch." prefixes are the
 * library's; a dtype object's str() ("float32", "torch.bfloat16") works. */
int ext_format(PyObject *o, fl_format *out, const char *where)
{
    if (PyObject_TypeCheck(o, &ext_format_type)) {
        *out = ((FormatObject *)o)->f;
        return 0;
    }
    PyObject *name = NULL;
    if (PyUnicode_Check(o)) {
        Py_INCREF(o);
        name = o;
    } else if (PyArray_DescrCheck(o) || PyType_Check(o) ||
               (Py_TYPE(o)->tp_name && !strcmp(Py_TYPE(o)->tp_name, "torch.dtype"))) {
        /* np.dtype('float32'), np.float32, torch.bfloat16 */
        PyObject *d = NULL;
        if (PyType_Check(o)) {
            PyArray_Descr *descr = NULL;
            if (PyArray_DescrConverter2(o, &descr) && descr) {
                d = PyObject_Str((PyObject *)descr);
                Py_DECREF(descr);
            } else {
                PyErr_Clear();
            }
        } else {
            d = PyObject_Str(o);
        }
        name = d;
    }
    if (!name) {
        ext_type_error(where, "a format is a fplab.Format or a name such as "
                       "'bfloat16' or 'ieee:4:3', not %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *hit = PyDict_GetItemWithError(format_cache, name);
    if (hit) {
        *out = ((FormatObject *)hit)->f;
        Py_DECREF(name);
        return 0;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(name);
    if (!s) {
        Py_DECREF(name);
        return -1;
    }
    char err[512];
    if (strlen(s) > 200 || fl_format_parse(out, s, err, sizeof err)) {
        if (strlen(s) > 200)
            snprintf(err, sizeof err, "format name of %zu characters: no such "
                     "format", strlen(s));
        ext_value_error(where, "%s", err);
        Py_DECREF(name);
        return -1;
    }
    if (PyDict_Size(format_cache) < 512) {
        PyObject *fo = ext_format_new(out);
        if (!fo || PyDict_SetItem(format_cache, name, fo)) {
            Py_XDECREF(fo);
            Py_DECREF(name);
            return -1;
        }
        Py_DECREF(fo);
    }
    Py_DECREF(name);
    return 0;
}

static PyObject *format_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"spec", NULL};
    PyObject *spec;
    fl_format f;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Format", kwlist, &spec))
        return NULL;
    if (ext_format(spec, &f, "fplab.Format"))
        return NULL;
    FormatObject *o = (FormatObject *)type->tp_alloc(type, 0);
    if (!o)
        return NULL;
    o->f = f;
    fl_format_spec(&f, o->spec, sizeof o->spec);
    return (PyObject *)o;
}

static PyObject *format_str(PyObject *self)
{
    return PyUnicode_FromString(((FormatObject *)self)->spec);
}

static PyObject *format_repr(PyObject *self)
{
    return PyUnicode_FromFormat("fplab.Format('%s')", ((FormatObject *)self)->spec);
}

static Py_hash_t format_hash(PyObject *self)
{
    const fl_format *f = &((FormatObject *)self)->f;
    Py_hash_t h = (Py_hash_t)(f->ebits * 131 + f->prec * 7 + f->nan_style +
                              f->bias * 1009 + f->is_signed * 3 +
                              f->subnormals * 11 + f->saturate * 13 +
                              f->has_zero * 17 + f->min_gap_up * 19);
    return h == -1 ? -2 : h;
}

static PyObject *format_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &ext_format_type))
        Py_RETURN_NOTIMPLEMENTED;
    int same = fl_format_same(&((FormatObject *)a)->f, &((FormatObject *)b)->f) &&
               ((FormatObject *)a)->f.min_gap_up == ((FormatObject *)b)->f.min_gap_up;
    if ((op == Py_EQ) == same)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *fget_int(PyObject *self, void *what)
{
    const fl_format *f = &((FormatObject *)self)->f;
    const char *w = what;
    if (!strcmp(w, "bits"))
        return PyLong_FromLong(f->width);
    if (!strcmp(w, "ebits"))
        return PyLong_FromLong(f->ebits);
    if (!strcmp(w, "p"))
        return PyLong_FromLong(f->prec);
    if (!strcmp(w, "nmant"))
        return PyLong_FromLong(f->prec - 1);
    if (!strcmp(w, "bias"))
        return PyLong_FromLong(f->bias);
    if (!strcmp(w, "emin"))
        return PyLong_FromLong(f->emin);
    if (!strcmp(w, "emax"))
        return PyLong_FromLong(f->emax);
    if (!strcmp(w, "has_inf"))
        return PyBool_FromLong(f->has_inf);
    if (!strcmp(w, "has_nan"))
        return PyBool_FromLong(f->nan_style != FL_NANSTYLE_FINITE);
    if (!strcmp(w, "has_negzero"))
        return PyBool_FromLong(f->has_negzero);
    if (!strcmp(w, "subnormals"))
        return PyBool_FromLong(f->subnormals);
    if (!strcmp(w, "saturate"))
        return PyBool_FromLong(f->saturate);
    if (!strcmp(w, "signed"))
        return PyBool_FromLong(f->is_signed);
    if (!strcmp(w, "max_bits"))
        return PyLong_FromUnsignedLongLong(f->max_bits);
    Py_RETURN_NONE;
}

/* Value of a code of f as a Python float. */
static double value_of(const fl_format *f, uint64_t code)
{
    return fl_to_double(f, code);
}

static PyObject *fget_float(PyObject *self, void *what)
{
    const fl_format *f = &((FormatObject *)self)->f;
    const char *w = what;
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    if (!strcmp(w, "max"))
        return PyFloat_FromDouble(value_of(f, f->max_bits));
    if (!strcmp(w, "min")) {
        /* finfo: the most negative finite value; unsigned formats: the
         * smallest value (0, or 2^emin without a zero) */
        if (f->is_signed)
            return PyFloat_FromDouble(-value_of(f, f->max_bits));
        return PyFloat_FromDouble(f->has_zero ? 0.0 : value_of(f, 0));
    }
    if (!strcmp(w, "smallest_normal"))
        return PyFloat_FromDouble(ldexp(1.0, f->emin));
    if (!strcmp(w, "smallest_subnormal")) {
        if (!f->subnormals)
            return PyFloat_FromDouble(ldexp(1.0, f->emin));
        return PyFloat_FromDouble(ldexp(1.0, f->emin - f->prec + 1));
    }
    if (!strcmp(w, "eps") || !strcmp(w, "precision") ||
        !strcmp(w, "resolution")) {
        /* eps: the distance from 1 to the next value (finfo.eps);
         * precision: int(-log10(eps)) decimal digits (finfo.precision);
         * resolution: 10**-precision */
        uint64_t one = fl_from_double(f, 1.0, &c, &fl);
        uint64_t up = fl_next_up(f, one, &c, &fl);
        double eps = value_of(f, up) - 1.0;
        if (!strcmp(w, "eps"))
            return PyFloat_FromDouble(eps);
        int digits = (int)floor(-log10(eps));
        if (!(eps < 1))
            digits = 0;
        if (!strcmp(w, "precision"))
            return PyLong_FromLong(digits);
        return PyFloat_FromDouble(pow(10.0, -digits));
    }
    Py_RETURN_NONE;
}

static PyObject *fget_name(PyObject *self, void *what)
{
    const fl_format *f = &((FormatObject *)self)->f;
    static const char *styles[] = {"ieee", "fn", "finite", "fnuz", "p3109"};
    if (what && !strcmp(what, "nan_style"))
        return PyUnicode_FromString(f->nan_style < 5 ? styles[f->nan_style] : "?");
    return PyUnicode_FromString(((FormatObject *)self)->spec);
}

static PyGetSetDef format_getset[] = {
    {"name", fget_name, NULL, "canonical name (a preset's, or ieee:E:M)", NULL},
    {"bits", fget_int, NULL, "total width in bits (ml_dtypes.finfo.bits)", "bits"},
    {"ebits", fget_int, NULL, "exponent field width (finfo.nexp)", "ebits"},
    {"p", fget_int, NULL, "significand bits, the hidden bit included", "p"},
    {"nmant", fget_int, NULL, "fraction bits (finfo.nmant)", "nmant"},
    {"precision", fget_float, NULL, "approximate decimal digits, "
     "int(-log10(eps)) (finfo.precision)", "precision"},
    {"resolution", fget_float, NULL, "10**-precision (finfo.resolution)",
     "resolution"},
    {"bias", fget_int, NULL, "exponent bias", "bias"},
    {"emin", fget_int, NULL, "exponent of the smallest normal value", "emin"},
    {"emax", fget_int, NULL, "exponent of the largest finite value", "emax"},
    {"max", fget_float, NULL, "largest finite value (finfo.max)", "max"},
    {"min", fget_float, NULL, "most negative finite value (finfo.min)", "min"},
    {"smallest_normal", fget_float, NULL, "2**emin (finfo.smallest_normal)",
     "smallest_normal"},
    {"smallest_subnormal", fget_float, NULL, "smallest positive value "
     "(finfo.smallest_subnormal; the smallest normal without subnormals)",
     "smallest_subnormal"},
    {"eps", fget_float, NULL, "distance from 1 to the next value (finfo.eps)",
     "eps"},
    {"has_inf", fget_int, NULL, "encodes infinities", "has_inf"},
    {"has_nan", fget_int, NULL, "encodes a NaN", "has_nan"},
    {"has_negzero", fget_int, NULL, "encodes -0", "has_negzero"},
    {"subnormals", fget_int, NULL, "has subnormal values", "subnormals"},
    {"saturate", fget_int, NULL, "overflow gives the largest finite value",
     "saturate"},
    {"signed", fget_int, NULL, "has a sign bit", "signed"},
    {"max_bits", fget_int, NULL, "code of the largest finite value", "max_bits"},
    {"nan_style", fget_name, NULL, "ieee, fn, finite, fnuz or p3109",
     "nan_style"},
    {NULL, NULL, NULL, NULL, NULL}
};

PyTypeObject ext_format_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fplab.Format",
    .tp_basicsize = sizeof(FormatObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Format(name_or_spec): a float format of the library (a "
              "preset name, an alias such as 'fp16' or 'float8_e4m3fn', or "
              "'ieee:E:M'), with ml_dtypes.finfo-style attributes.",
    .tp_new = format_new,
    .tp_str = format_str,
    .tp_repr = format_repr,
    .tp_hash = format_hash,
    .tp_richcompare = format_richcompare,
    .tp_getset = format_getset,
};

/* ---------------------------------------------------------------------
 * Modes, presets, contexts.
 * ------------------------------------------------------------------- */

int ext_rm(PyObject *o, int *rm, const char *where)
{
    if (o == NULL || o == Py_None) {
        *rm = FL_RNE;
        return 0;
    }
    if (!PyUnicode_Check(o)) {
        ext_type_error(where, "rm is a rounding mode's name (rne, rtz, rdn, "
                       "rup, rna, rto, sr), not %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(o);
    if (!s)
        return -1;
    int r = fl_rm_parse(s);
    if (r < 0) {
        ext_value_error(where, "unknown rounding mode '%.100s' (rne, rtz, rdn, "
                        "rup, rna, rto, sr)", s);
        return -1;
    }
    *rm = r;
    return 0;
}

int ext_nan(PyObject *o, int *nan, const char *where)
{
    if (o == NULL || o == Py_None) {
        *nan = FL_NANP_X86;
        return 0;
    }
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if (!s) {
        if (!PyErr_Occurred())
            ext_type_error(where, "nan is a preset's name (x86, arm, riscv, "
                           "cuda, softfloat), not %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    int p = fl_nan_preset_parse(s);
    if (p < 0) {
        ext_value_error(where, "unknown NaN preset '%.100s' (x86, arm, riscv, "
                        "cuda, softfloat)", s);
        return -1;
    }
    *nan = p;
    return 0;
}

int ext_tininess(PyObject *o, int *t, const char *where)
{
    if (o == NULL || o == Py_None) {
        *t = FL_TINY_AFTER;
        return 0;
    }
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if (s && !strcmp(s, "after")) {
        *t = FL_TINY_AFTER;
        return 0;
    }
    if (s && !strcmp(s, "before")) {
        *t = FL_TINY_BEFORE;
        return 0;
    }
    if (!PyErr_Occurred())
        ext_value_error(where, "tininess is 'after' or 'before'");
    return -1;
}

/* Online processors, read once: sysconf reads a file on every call,
 * which would cost a small array more than its rounding. */
int ext_ncpu = 1;

int ext_threads(PyObject *o, int *n, const char *where)
{
    if (o == NULL || o == Py_None) {
        *n = ext_ncpu;
        return 0;
    }
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        ext_type_error(where, "threads is an integer");
        return -1;
    }
    if (v < 0 || v > 1024) {
        ext_value_error(where, "threads=%ld: 0 (every core) .. 1024", v);
        return -1;
    }
    *n = v ? (int)v : ext_ncpu;
    return 0;
}

int ext_ctx(fl_ctx *c, PyObject *rm, PyObject *seed, int saturate, int ftz,
            int daz, PyObject *nan, PyObject *tininess, const char *where)
{
    int r, np_, t;
    if (ext_rm(rm, &r, where) || ext_nan(nan, &np_, where) ||
        ext_tininess(tininess, &t, where))
        return -1;
    *c = fl_ctx_make(r);
    c->saturate = (uint8_t)(saturate != 0);
    c->ftz = (uint8_t)(ftz != 0);
    c->daz = (uint8_t)(daz != 0);
    c->nan = (uint8_t)np_;
    c->tininess = (uint8_t)t;
    if (seed && seed != Py_None) {
        if (!PyLong_Check(seed)) {
            ext_type_error(where, "seed is an integer, not %s",
                           Py_TYPE(seed)->tp_name);
            return -1;
        }
        unsigned long long s = PyLong_AsUnsignedLongLong(seed);
        if (s == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            ext_value_error(where, "seed must be an integer 0 .. 2**64-1");
            return -1;
        }
        if (r != FL_RSR) {
            ext_value_error(where, "seed= applies to stochastic rounding "
                            "(rm='sr'); rm is '%s'", fl_rm_name(r));
            return -1;
        }
        c->sr_seed = s;
    }
    return 0;
}

/* ---------------------------------------------------------------------
 * Small module functions.
 * ------------------------------------------------------------------- */

static PyObject *ext_formats(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    size_t n = fl_format_preset_count();
    PyObject *l = PyList_New((Py_ssize_t)n);
    if (!l)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *s = PyUnicode_FromString(fl_format_preset(i)->name);
        if (!s) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, s);
    }
    return l;
}

static PyMethodDef methods[] = {
    {"formats", ext_formats, METH_NOARGS, "names of the format presets"},
    {"round", ext_round, METH_VARARGS, NULL},
    {"encode", ext_encode, METH_VARARGS, NULL},
    {"decode", ext_decode, METH_VARARGS, NULL},
    {"arith", ext_arith, METH_VARARGS, NULL},
    {"bench_round", ext_bench_round, METH_VARARGS, NULL},
    {"model", ext_model, METH_VARARGS, NULL},
    {"ref_reduce", ext_ref_reduce, METH_VARARGS, NULL},
    {"ref_gemm", ext_ref_gemm, METH_VARARGS, NULL},
    {"compare", ext_compare, METH_VARARGS, NULL},
    {"reveal", ext_reveal, METH_VARARGS, NULL},
    {"quantize", ext_quantize, METH_VARARGS, NULL},
    {"schemes", ext_schemes, METH_NOARGS, NULL},
    {"hist", ext_hist, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_fplab",
    "fplab's C library for Python (use the package fplab).", -1, methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__fplab(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    ext_ncpu = ncpu > 0 ? (int)(ncpu < 1024 ? ncpu : 1024) : 1;
    import_array();
    if (PyType_Ready(&ext_format_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    format_cache = PyDict_New();
    if (!format_cache)
        goto fail;
    Py_INCREF(&ext_format_type);
    if (PyModule_AddObject(m, "Format", (PyObject *)&ext_format_type) < 0) {
        Py_DECREF(&ext_format_type);
        goto fail;
    }
    if (PyModule_AddStringConstant(m, "version", FPLAB_VERSION) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
