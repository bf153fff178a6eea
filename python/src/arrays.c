/*
 * arrays.c — numpy arrays as the library's element buffers, and the
 * thread split of the extension's own loops.
 */
#include "ext.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int ext_code_type(const fl_format *f)
{
    return f->width <= 8 ? NPY_UINT8 : f->width <= 16 ? NPY_UINT16
         : f->width <= 32 ? NPY_UINT32 : NPY_UINT64;
}

static int same_enc(const fl_format *a, const fl_format *b)
{
    return a->width == b->width && a->ebits == b->ebits && a->prec == b->prec &&
           a->nan_style == b->nan_style && a->subnormals == b->subnormals &&
           a->bias == b->bias && a->is_signed == b->is_signed &&
           a->has_zero == b->has_zero && a->saturate == b->saturate;
}

int ext_natural_type(const fl_format *f, int *codes)
{
    *codes = 0;
    if (same_enc(f, &fl_binary16))
        return NPY_FLOAT16;
    if (same_enc(f, &fl_binary32))
        return NPY_FLOAT32;
    if (same_enc(f, &fl_binary64))
        return NPY_FLOAT64;
    *codes = 1;
    return ext_code_type(f);
}

void ext_array_release(ext_array *a)
{
    Py_CLEAR(a->arr);
}

int ext_array_get(ext_array *a, PyObject *obj, PyObject *codes_fmt,
                  const char *where, const char *what)
{
    memset(a, 0, sizeof *a);
    PyArray_Descr *d = NULL;
    if (PyArray_Check(obj)) {
        d = PyArray_DESCR((PyArrayObject *)obj);
        Py_INCREF(d);
    } else if (PyFloat_Check(obj) || PyLong_Check(obj) || PyList_Check(obj) ||
               PyTuple_Check(obj) || PyArray_IsScalar(obj, Generic)) {
        if (PyArray_IsScalar(obj, Generic)) {
            d = PyArray_DescrFromScalar(obj);
        } else {
            d = PyArray_DescrFromType(NPY_FLOAT64);
        }
    } else {
        ext_type_error(where, "%s is a %s: expected a numpy array (float16, "
                       "float32, float64, or unsigned codes with the format "
                       "named), a torch tensor or numbers", what,
                       Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (!d)
        return -1;
    int t = d->type_num;
    /* the dtype's name only for a message: str(dtype) runs Python code */
    PyObject *dname = NULL;
    fl_format f;
    ext_kind kind;
    switch (t) {
    case NPY_FLOAT16: kind = EXT_CODES; f = fl_binary16; break;
    case NPY_FLOAT32: kind = EXT_F32; f = fl_binary32; break;
    case NPY_FLOAT64: kind = EXT_F64; f = fl_binary64; break;
    case NPY_UINT8: case NPY_UINT16: case NPY_UINT32: case NPY_UINT64:
        kind = EXT_CODES;
        if (codes_fmt == NULL || codes_fmt == Py_None) {
            Py_DECREF(d);
            ext_type_error(where, "%s holds %s codes: name their format with "
                           "fmt= (e.g. fmt='bfloat16')", what,
                           t == NPY_UINT8 ? "uint8" : t == NPY_UINT16 ? "uint16"
                           : t == NPY_UINT32 ? "uint32" : "uint64");
            return -1;
        }
        if (ext_format(codes_fmt, &f, where)) {
            Py_DECREF(d);
            return -1;
        }
        {
            int need = ext_code_type(&f);
            if (need != t) {
                Py_DECREF(d);
                PyArray_Descr *nd = PyArray_DescrFromType(need);
                PyArray_Descr *gd = PyArray_DescrFromType(t);
                char sp[64];
                fl_format_spec(&f, sp, sizeof sp);
                PyObject *ns = PyObject_Str((PyObject *)nd), *gs = PyObject_Str((PyObject *)gd);
                ext_type_error(where, "%s is %s: the codes of %s (%d bits) are "
                               "%s", what, gs ? PyUnicode_AsUTF8(gs) : "?", sp,
                               f.width, ns ? PyUnicode_AsUTF8(ns) : "?");
                Py_XDECREF(ns);
                Py_XDECREF(gs);
                Py_XDECREF(nd);
                Py_XDECREF(gd);
                return -1;
            }
        }
        break;
    default:
        dname = PyObject_Str((PyObject *)d);
        Py_DECREF(d);
        ext_type_error(where, "%s has dtype %s: expected float16, float32, "
                       "float64, or uint8/16/32/64 codes of a named format",
                       what, dname ? PyUnicode_AsUTF8(dname) : "?");
        Py_XDECREF(dname);
        return -1;
    }
    Py_DECREF(d);
    PyArrayObject *arr = (PyArrayObject *)PyArray_FROMANY(
        obj, t, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                          NPY_ARRAY_NOTSWAPPED);
    if (!arr)
        return -1;
    a->arr = arr;
    a->kind = kind;
    a->f = f;
    a->esize = (int)PyArray_ITEMSIZE(arr);
    a->n = (size_t)PyArray_SIZE(arr);
    return 0;
}

/* ---------------------------------------------------------------------
 * Threads.
 * ------------------------------------------------------------------- */

typedef struct part {
    void (*fn)(void *, size_t, size_t);
    void *ctx;
    size_t lo, hi;
} part;

static void *part_run(void *v)
{
    part *p = v;
    p->fn(p->ctx, p->lo, p->hi);
    return NULL;
}

void ext_parallel(size_t n, int nthreads, size_t min_part,
                  void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx)
{
    if (nthreads <= 0)
        nthreads = ext_ncpu;
    if (nthreads > 64)
        nthreads = 64;
    if (min_part < 1)
        min_part = 1;
    size_t maxp = n / min_part;
    if ((size_t)nthreads > maxp)
        nthreads = maxp ? (int)maxp : 1;
    if (nthreads <= 1) {
        fn(ctx, 0, n);
        return;
    }
    part parts[64];
    pthread_t tid[64];
    int started[64];
    for (int k = 0; k < nthreads; k++) {
        parts[k].fn = fn;
        parts[k].ctx = ctx;
        parts[k].lo = n / (size_t)nthreads * (size_t)k;
        parts[k].hi = k + 1 == nthreads ? n : n / (size_t)nthreads * (size_t)(k + 1);
        started[k] = k > 0 && pthread_create(&tid[k], NULL, part_run, &parts[k]) == 0;
    }
    for (int k = 0; k < nthreads; k++)
        if (!started[k])
            fn(ctx, parts[k].lo, parts[k].hi);
    for (int k = 1; k < nthreads; k++)
        if (started[k])
            pthread_join(tid[k], NULL);
}
