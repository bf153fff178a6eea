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
        /* eps: 2^(1-p), the distance from 1 to the next value of the
         * binade (finfo.eps; `fplab info`'s machine epsilon -- also where
         * 1 is the largest finite value, as in P3109's K = 3, P = 1);
         * precision: int(-log10(eps)) decimal digits (finfo.precision);
         * resolution: 10**-precision */
        double eps = ldexp(1.0, 1 - f->prec);
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
                       "rup, rna, rto, sr, srb), not %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(o);
    if (!s)
        return -1;
    /* "srb": stochastic rounding with supplied bits (rbits= then) */
    int r = !strcmp(s, "srb") || !strcmp(s, "sr_bits") || !strcmp(s, "sr-bits")
                ? FL_RSB : fl_rm_parse(s);
    if (r < 0) {
        ext_value_error(where, "unknown rounding mode '%.100s' (rne, rtz, rdn, "
                        "rup, rna, rto, sr, srb)", s);
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
                           "cuda, softfloat, sign, sign-pos, default-neg, "
                           "first), not %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    int p = fl_nan_preset_parse(s);
    if (p < 0) {
        ext_value_error(where, "unknown NaN preset '%.100s' (x86, arm, riscv, "
                        "cuda, softfloat, sign, sign-pos, default-neg, first)",
                        s);
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

int ext_sat(PyObject *o, int *sat, const char *where)
{
    if (o == NULL || o == Py_None) {
        *sat = FL_SAT_NONE;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return -1;
        *sat = fl_sat_parse(s);
        if (*sat < 0) {
            ext_value_error(where, "saturate='%.100s': not none, propagate or "
                            "finite (or False / True)", s);
            return -1;
        }
        return 0;
    }
    if (PyFloat_Check(o)) {
        ext_type_error(where, "saturate is False, True, 'none', 'propagate' or "
                       "'finite', not a float");
        return -1;
    }
    /* False / True (and 0 / 1, numpy's bools): the old switch, True being
     * FL_SAT_PROPAGATE (overflow gives the largest finite value) */
    int t = PyObject_IsTrue(o);
    if (t < 0)
        return -1;
    *sat = t ? FL_SAT_PROPAGATE : FL_SAT_NONE;
    return 0;
}

int ext_ctx(fl_ctx *c, PyObject *rm, PyObject *seed, PyObject *saturate,
            int ftz, int daz, PyObject *nan, PyObject *tininess,
            const char *where)
{
    int r, np_, t, sat;
    if (ext_rm(rm, &r, where) || ext_nan(nan, &np_, where) ||
        ext_tininess(tininess, &t, where) || ext_sat(saturate, &sat, where))
        return -1;
    *c = fl_ctx_make(r);
    c->saturate = (uint8_t)sat;
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
 * Stochastic rounding with supplied random bits (rm 'srb').
 * ------------------------------------------------------------------- */

static int srb_name(PyObject *o, const char **s, const char *what,
                    const char *where)
{
    *s = NULL;
    if (o == Py_None)
        return 0;
    if (!PyUnicode_Check(o)) {
        ext_type_error(where, "%s is a name, not %s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    *s = PyUnicode_AsUTF8(o);
    return *s ? 0 : -1;
}

int ext_srb_get(ext_srb *s, PyObject *spec, fl_ctx *c, const fl_format *T,
                size_t n, const char *where)
{
    memset(s, 0, sizeof *s);
    if (spec == NULL || spec == Py_None) {
        if (c->rm == FL_RSB) {
            ext_value_error(where, "rm='srb' rounds with supplied random bits: "
                            "give rbits= and nbits= (or sr_hw=)");
            return -1;
        }
        return 0;
    }
    PyObject *bits, *nbo, *vo, *hwo;
    if (!PyArg_ParseTuple(spec, "O!OOO", &PyArray_Type, &bits, &nbo, &vo, &hwo))
        return -1;
    if (c->rm != FL_RSB) {
        ext_value_error(where, "rbits=, nbits=, variant= and sr_hw= go with "
                        "rm='srb' (stochastic rounding with supplied bits); rm "
                        "is '%s'", fl_rm_name(c->rm));
        return -1;
    }
    const char *vs, *hs;
    if (srb_name(vo, &vs, "variant", where) || srb_name(hwo, &hs, "sr_hw", where))
        return -1;
    if (hs) {
        const int h = fl_srhw_parse(hs);
        const fl_srhw_info *hi = fl_srhw_get(h);
        if (!hi) {
            ext_value_error(where, "sr_hw: unknown preset '%.100s' (ptx-cvt.rs."
                            "f16x2 .bf16x2 .e4m3x4 .e5m2x4 .e2m3x4 .e3m2x4 "
                            ".e2m1x4, onednn-f16 -bf16 -f8_e4m3 -f8_e5m2)", hs);
            return -1;
        }
        if (nbo != Py_None || vs) {
            ext_value_error(where, "sr_hw='%s' sets the bit count and the "
                            "variant: drop nbits= and variant=", hs);
            return -1;
        }
        if (T && !fl_format_same(T, hi->fmt)) {
            char ts[64];
            fl_format_spec(T, ts, sizeof ts);
            ext_value_error(where, "sr_hw='%s' rounds into %s, not %s", hs,
                            hi->fmt->name, ts);
            return -1;
        }
        s->nbits = hi->nbits;
        s->variant = FL_SRV_FASTEST;
        c->nan = FL_NANP_CUDA;
        if (hi->satfinite)
            c->saturate = FL_SAT_FINITE;
    } else {
        if (nbo == Py_None) {
            ext_value_error(where, "rm='srb' needs nbits=N, the width of the "
                            "random bits (1 .. 64)");
            return -1;
        }
        if (!PyLong_Check(nbo)) {
            ext_type_error(where, "nbits is an integer, not %s",
                           Py_TYPE(nbo)->tp_name);
            return -1;
        }
        long nb = PyLong_AsLong(nbo);
        if (nb == -1 && PyErr_Occurred())
            PyErr_Clear();
        if (nb < 1 || nb > 64) {
            PyObject *r = PyObject_Repr(nbo);
            ext_value_error(where, "nbits=%.40s: the random bits are 1 .. 64 "
                            "bits wide", r ? PyUnicode_AsUTF8(r) : "?");
            Py_XDECREF(r);
            return -1;
        }
        s->nbits = (int)nb;
        s->variant = FL_SRV_STOCHASTIC;
        if (vs) {
            char v[64];
            size_t i = 0;
            /* stochastic_odd as stochastic-odd */
            for (; vs[i] && i + 1 < sizeof v; i++)
                v[i] = vs[i] == '_' ? '-' : vs[i];
            v[i] = 0;
            s->variant = vs[i] ? -1 : fl_srv_parse(v);
            if (s->variant < 0) {
                ext_value_error(where, "variant='%.100s': not stochastic, "
                                "stochastic_odd, fast or fastest (P3109 C, -, "
                                "B, A)", vs);
                return -1;
            }
        }
    }
    PyArrayObject *b = (PyArrayObject *)bits;
    if (PyArray_TYPE(b) != NPY_UINT64 || !PyArray_IS_C_CONTIGUOUS(b) ||
        !PyArray_ISALIGNED(b) || !PyArray_ISNOTSWAPPED(b) ||
        (size_t)PyArray_SIZE(b) != n) {
        ext_value_error(where, "internal: rbits must be a C-contiguous uint64 "
                        "array of %zu elements", n);
        return -1;
    }
    const uint64_t *r = PyArray_DATA(b);
    if (s->nbits < 64)
        for (size_t i = 0; i < n; i++)
            if (r[i] >> s->nbits) {
                ext_value_error(where, "rbits[%zu] (flat index) = %llu does not "
                                "fit in nbits=%d bits", i, (unsigned long long)r[i],
                                s->nbits);
                return -1;
            }
    Py_INCREF(b);
    s->bits = b;
    s->r = r;
    c->sr_nbits = (uint8_t)s->nbits;
    c->sr_variant = (uint8_t)s->variant;
    return 0;
}

void ext_srb_release(ext_srb *s)
{
    Py_CLEAR(s->bits);
    s->r = NULL;
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

/* sr_hw_presets() -> {name: {format, nbits, lanes, satfinite}}: the
 * hardware rules of stochastic rounding with given bits (fl_srhw_*). */
static PyObject *ext_sr_hw_presets(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < FL_SRHW_COUNT; i++) {
        const fl_srhw_info *h = fl_srhw_get(i);
        char fs[64];
        fl_format_spec(h->fmt, fs, sizeof fs);
        PyObject *v = Py_BuildValue("{s:s, s:i, s:i, s:O}", "format", fs, "nbits",
                                    h->nbits, "lanes", h->lanes, "satfinite",
                                    h->satfinite ? Py_True : Py_False);
        if (!v || PyDict_SetItemString(d, h->name, v))
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyMethodDef methods[] = {
    {"formats", ext_formats, METH_NOARGS, "names of the format presets"},
    {"sr_hw_presets", ext_sr_hw_presets, METH_NOARGS, NULL},
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
