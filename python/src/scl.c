/*
 * scl.c — fplab.quantize (fplab/scale.h: OCP MX, NVFP4, FP8 per tensor)
 * and fplab.hist (fplab/hist.h): the library's calls on float32 arrays,
 * with the checks and shapes of `fplab quantize` and `fplab hist`.
 */
#include "ext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/hist.h"
#include "fplab/scale.h"

static PyObject *stats_dict(const fl_scale_stats *st)
{
    return Py_BuildValue("{s:K, s:K, s:K, s:K, s:K, s:K, s:K, s:K, s:K, s:K, "
                         "s:d, s:d, s:d, s:K, s:K}",
                         "n", (unsigned long long)st->n,
                         "nonzero", (unsigned long long)st->nonzero,
                         "zero", (unsigned long long)st->zero,
                         "nan_in", (unsigned long long)st->nan_in,
                         "inf_in", (unsigned long long)st->inf_in,
                         "underflow", (unsigned long long)st->underflow,
                         "subnormal", (unsigned long long)st->subnormal,
                         "saturated", (unsigned long long)st->saturated,
                         "lost", (unsigned long long)st->lost,
                         "rel_n", (unsigned long long)st->rel_n,
                         "rel_max", st->rel_max,
                         "rel_mean", fl_scale_stats_rel_mean(st),
                         "rel_rms", fl_scale_stats_rel_rms(st),
                         "blocks", (unsigned long long)st->blocks,
                         "nan_blocks", (unsigned long long)st->nan_blocks);
}

PyObject *ext_schemes(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    size_t n = fl_scale_scheme_count();
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++)
        PyList_SET_ITEM(l, (Py_ssize_t)i, PyUnicode_FromString(fl_scale_scheme_base(i)));
    return l;
}

/* quantize(x float32, scheme, seed, last, srb) -> dict; srb: None, or
 * (rbits uint64 of x's size, nbits, variant): the elements round with
 * supplied random bits (flat index i takes rbits[i]), as `fplab quantize
 * --sr-bits` */
PyObject *ext_quantize(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.quantize";
    PyArrayObject *x;
    const char *spec;
    PyObject *seedo, *lasto, *srb;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!sOOO", &PyArray_Type, &x, &spec, &seedo, &lasto,
                          &srb))
        return NULL;
    if (PyArray_TYPE(x) != NPY_FLOAT32 || !PyArray_IS_C_CONTIGUOUS(x) ||
        !PyArray_ISALIGNED(x) || !PyArray_ISNOTSWAPPED(x))
        return ext_type_error(where, "internal: x must be a C-contiguous float32 "
                              "array");
    fl_scale_scheme s;
    char err[512];
    if (fl_scale_scheme_parse(&s, spec, err, sizeof err))
        return ext_value_error(where, "scheme: %s", err);
    if (seedo != Py_None) {
        unsigned long long seed = PyLong_AsUnsignedLongLong(seedo);
        if (seed == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            return ext_value_error(where, "seed is an integer 0 .. 2**64-1");
        }
        if (s.rm != FL_RSR)
            return ext_value_error(where, "seed= applies to stochastic rounding; "
                                   "scheme '%s' rounds with %s (add ':sr')",
                                   s.name, fl_rm_name(s.rm));
        s.seed = seed;
    }
    int nd = PyArray_NDIM(x);
    size_t n = (size_t)PyArray_SIZE(x), last;
    if (n == 0)
        return ext_value_error(where, "x holds no values");
    npy_intp sshape[NPY_MAXDIMS + 1];
    int snd;
    if (lasto != Py_None) {
        long long lv = PyLong_AsLongLong(lasto);
        if (lv == -1 && PyErr_Occurred())
            return NULL;
        if (lv < 1)
            return ext_value_error(where, "last=%lld: a positive integer", lv);
        if (nd >= 2 && (long long)PyArray_DIM(x, nd - 1) != lv)
            return ext_value_error(where, "last=%lld contradicts x's last axis of "
                                   "%lld", lv, (long long)PyArray_DIM(x, nd - 1));
        if (n % (size_t)lv)
            return ext_value_error(where, "last=%lld: x holds %zu values, not "
                                   "whole rows of %lld", lv, n, lv);
        last = (size_t)lv;
        if (nd >= 2) {
            snd = nd;
            memcpy(sshape, PyArray_DIMS(x), sizeof(npy_intp) * (size_t)nd);
        } else {
            snd = 2;
            sshape[0] = (npy_intp)(n / last);
            sshape[1] = (npy_intp)last;
        }
    } else if (nd == 0) {
        last = 1;
        snd = 1;
        sshape[0] = 1;
    } else {
        last = (size_t)PyArray_DIM(x, nd - 1);
        snd = nd;
        memcpy(sshape, PyArray_DIMS(x), sizeof(npy_intp) * (size_t)nd);
    }
    if (s.kind != FL_SCALE_TENSOR && last % s.block)
        return ext_value_error(where, "%s: x's last axis has length %zu, which is "
                               "not a multiple of the block size %u", s.name,
                               last, (unsigned)s.block);
    ext_srb sb;
    memset(&sb, 0, sizeof sb);
    if (srb != Py_None) {
        fl_ctx c = fl_ctx_make(FL_RSB);
        PyObject *t;
        if (s.rm != FL_RNE)
            return ext_value_error(where, "rbits= sets the element rounding; "
                                   "scheme '%s' already rounds with %s", s.name,
                                   fl_rm_name(s.rm));
        if (!PyTuple_Check(srb) || PyTuple_GET_SIZE(srb) != 3)
            return ext_type_error(where, "internal: srb is (rbits, nbits, variant)");
        t = Py_BuildValue("(OOOO)", PyTuple_GET_ITEM(srb, 0),
                          PyTuple_GET_ITEM(srb, 1), PyTuple_GET_ITEM(srb, 2),
                          Py_None);
        if (!t)
            return NULL;
        int bad = ext_srb_get(&sb, t, &c, NULL, n, where);
        Py_DECREF(t);
        if (bad)
            return NULL;
        s.rm = FL_RSB;
        s.sr_bits = sb.r;
        s.sr_nbits = sb.nbits;
        s.sr_variant = sb.variant;
    }
    size_t nb = fl_scale_nblocks(&s, n);
    PyArrayObject *deq = (PyArrayObject *)PyArray_SimpleNew(nd, PyArray_DIMS(x), NPY_FLOAT32);
    PyArrayObject *codes = (PyArrayObject *)PyArray_SimpleNew(nd, PyArray_DIMS(x), NPY_UINT8);
    PyArrayObject *scales = NULL;
    if (s.kind == FL_SCALE_TENSOR) {
        npy_intp one = 1;
        scales = (PyArrayObject *)PyArray_SimpleNew(1, &one, NPY_FLOAT32);
    } else {
        sshape[snd - 1] = (npy_intp)(last / s.block);
        scales = (PyArrayObject *)PyArray_SimpleNew(snd, sshape, NPY_UINT8);
    }
    fl_scale_block_stats *blocks = calloc(nb ? nb : 1, sizeof *blocks);
    PyObject *res = NULL;
    if (!deq || !codes || !scales || !blocks) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    fl_scale_out o;
    memset(&o, 0, sizeof o);
    o.codes = PyArray_DATA(codes);
    o.scales = s.kind == FL_SCALE_TENSOR ? NULL : PyArray_DATA(scales);
    o.dequant = PyArray_DATA(deq);
    o.blocks = blocks;
    int rc;
    err[0] = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = fl_scale_quantize(&s, PyArray_DATA(x), n, last, &o, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) {
        ext_value_error(where, "%s", err);
        goto done;
    }
    if (s.kind == FL_SCALE_TENSOR)
        ((float *)PyArray_DATA(scales))[0] = o.tensor.scale_inv;
    {
        char desc[256];
        fl_scale_scheme_describe(&s, desc, sizeof desc);
        PyObject *st = stats_dict(&o.stats);
        if (!st)
            goto done;
        res = Py_BuildValue("{s:O, s:O, s:O, s:N, s:{s:d, s:d, s:d}, s:s, s:s, "
                            "s:n, s:I, s:s}", "dequant", deq, "codes", codes,
                            "scales", scales, "stats", st, "tensor", "amax",
                            (double)o.tensor.amax, "scale", (double)o.tensor.scale,
                            "scale_inv", (double)o.tensor.scale_inv, "scheme",
                            s.name, "description", desc, "last", (Py_ssize_t)last,
                            "block", (unsigned)s.block, "kind",
                            s.kind == FL_SCALE_MX ? "mx" : s.kind == FL_SCALE_NVFP4
                                ? "nvfp4" : "tensor");
    }
done:
    Py_XDECREF(deq);
    Py_XDECREF(codes);
    Py_XDECREF(scales);
    free(blocks);
    ext_srb_release(&sb);
    return res;
}

/* hist(g float32, fmt, scales (list of float), lo, hi (or None),
 *      schemes (list of str), last) -> dict */
PyObject *ext_hist(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.hist";
    PyArrayObject *g;
    PyObject *fmt, *sco, *hio, *scho;
    int lo;
    Py_ssize_t last;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OO!iOO!n", &PyArray_Type, &g, &fmt,
                          &PyList_Type, &sco, &lo, &hio, &PyList_Type, &scho, &last))
        return NULL;
    if (PyArray_TYPE(g) != NPY_FLOAT32 || !PyArray_IS_C_CONTIGUOUS(g) ||
        !PyArray_ISALIGNED(g) || !PyArray_ISNOTSWAPPED(g))
        return ext_type_error(where, "internal: g must be a C-contiguous float32 "
                              "array");
    fl_format f;
    if (ext_format(fmt, &f, where))
        return NULL;
    Py_ssize_t ns = PyList_GET_SIZE(sco), nsch = PyList_GET_SIZE(scho);
    if (ns < 1 || ns > 1024)
        return ext_value_error(where, "scales: give 1 .. 1024 of them");
    if (nsch > 64)
        return ext_value_error(where, "scaling: at most 64 schemes");
    double *sc = malloc((size_t)ns * sizeof *sc);
    fl_scale_scheme *sch = calloc((size_t)(nsch ? nsch : 1), sizeof *sch);
    fl_hist h;
    int have_h = 0;
    PyObject *res = NULL, *lst = NULL;
    if (!sc || !sch) {
        PyErr_NoMemory();
        goto done;
    }
    double smax = 0;
    for (Py_ssize_t k = 0; k < ns; k++) {
        sc[k] = PyFloat_AsDouble(PyList_GET_ITEM(sco, k));
        if (sc[k] == -1.0 && PyErr_Occurred())
            goto done;
        smax = sc[k] > smax ? sc[k] : smax;
    }
    int hi;
    if (hio == Py_None) {
        hi = 16 + (smax > 0 && isfinite(smax) ? (int)ceil(log2(smax)) : 0);
    } else {
        long v = PyLong_AsLong(hio);
        if (v == -1 && PyErr_Occurred())
            goto done;
        if (v < -1100 || v > 1100) {
            ext_value_error(where, "hi=%ld: -1100 .. 1100", v);
            goto done;
        }
        hi = (int)v;
    }
    for (Py_ssize_t q = 0; q < nsch; q++) {
        char err[512];
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(scho, q));
        if (!s)
            goto done;
        if (fl_scale_scheme_parse(&sch[q], s, err, sizeof err)) {
            ext_value_error(where, "scaling[%zd]: %s", q, err);
            goto done;
        }
    }
    size_t n = (size_t)PyArray_SIZE(g);
    if (nsch && last <= 0) {
        int nd = PyArray_NDIM(g);
        last = nd ? (Py_ssize_t)PyArray_DIM(g, nd - 1) : 1;
    }
    char err[1024];
    int rc;
    err[0] = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = fl_hist_run(&h, &f, PyArray_DATA(g), n, sc, (int)ns, lo, hi, sch,
                     (int)nsch, (size_t)(last > 0 ? last : 0), err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) {
        ext_value_error(where, "%s", err);
        goto done;
    }
    have_h = 1;
    lst = PyList_New(ns);
    if (!lst)
        goto done;
    for (Py_ssize_t k = 0; k < ns; k++) {
        const fl_hist_scale *s = &h.scales[k];
        npy_intp nbins = (npy_intp)(h.hi - h.lo);
        PyArrayObject *bins = (PyArrayObject *)PyArray_SimpleNew(1, &nbins, NPY_UINT64);
        if (!bins)
            goto done;
        memcpy(PyArray_DATA(bins), s->log2.bins, (size_t)nbins * sizeof(uint64_t));
        PyObject *d = Py_BuildValue("{s:d, s:K, s:K, s:K, s:K, s:K, s:K, s:N, s:K, "
                                    "s:K}", "scale", s->scale, "underflow",
                                    (unsigned long long)s->range.underflow,
                                    "subnormal", (unsigned long long)s->range.subnormal,
                                    "overflow", (unsigned long long)s->range.overflow,
                                    "normal", (unsigned long long)s->normal,
                                    "zero", (unsigned long long)s->log2.zeros,
                                    "nonfinite", (unsigned long long)s->log2.nonfinite,
                                    "bins", bins,
                                    "below", (unsigned long long)s->log2.below,
                                    "above", (unsigned long long)s->log2.above);
        if (!d)
            goto done;
        PyList_SET_ITEM(lst, k, d);
    }
    PyObject *sl = PyList_New(nsch);
    if (!sl)
        goto done;
    for (Py_ssize_t q = 0; q < nsch; q++) {
        PyObject *st = stats_dict(&h.scheme_stats[q]);
        PyObject *d = st ? Py_BuildValue("{s:s, s:N, s:d, s:d, s:d}", "scheme",
                                         sch[q].name, "stats", st, "amax",
                                         (double)h.scheme_tensor[q].amax, "scale",
                                         (double)h.scheme_tensor[q].scale,
                                         "scale_inv",
                                         (double)h.scheme_tensor[q].scale_inv)
                         : NULL;
        if (!d) {
            Py_DECREF(sl);
            goto done;
        }
        PyList_SET_ITEM(sl, q, d);
    }
    char fs[64];
    fl_format_spec(&f, fs, sizeof fs);
    res = Py_BuildValue("{s:s, s:n, s:n, s:n, s:n, s:d, s:d, s:i, s:i, s:O, s:i, "
                        "s:i, s:d, s:d, s:i, s:i, s:i, s:N, s:n}", "format", fs,
                        "n", (Py_ssize_t)h.n, "live", (Py_ssize_t)h.live, "zeros",
                        (Py_ssize_t)h.zeros, "nonfinite", (Py_ssize_t)h.nonfinite,
                        "minabs", h.minabs, "maxabs", h.maxabs, "lo", h.lo, "hi",
                        h.hi, "scales", lst, "best", h.best, "ties", h.ties,
                        "best_lo", h.best_lo, "best_hi", h.best_hi, "kmax", h.kmax,
                        "kunder", h.kunder, "ksub", h.ksub, "schemes", sl, "last",
                        (Py_ssize_t)h.last);
done:
    Py_XDECREF(lst);
    if (have_h)
        fl_hist_free(&h);
    free(sc);
    free(sch);
    return res;
}
