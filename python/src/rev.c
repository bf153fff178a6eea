/*
 * rev.c — fplab.reveal: the library's reveal engine (fplab/reveal.h) with
 * a Python callable as its in-process kernel.
 *
 * fl_reveal runs with the GIL released; each kernel call takes the GIL,
 * turns the call's bit patterns into a numpy array (float32, float16, or
 * uint16 codes for bfloat16; 3-D when the engine batches), hands it to
 * the user's function (through the package's converter to torch tensors
 * when torch dtypes were asked for), checks the result's shape and dtype
 * and copies its bit patterns back.  An exception in the function stops
 * the reveal and is raised again, unchanged, when fl_reveal returns; a
 * result of the wrong shape or dtype is a ValueError / TypeError.  The
 * findings arrive one line at a time (opts.log) and are kept for the
 * report; Ctrl-C between calls stops the reveal too.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

#include "fplab/reveal.h"

typedef struct rv_py {
    PyObject *fn, *to_kernel, *from_kernel, *log_fn;
    PyObject *exc_type, *exc_value, *exc_tb;   /* the error that stopped it */
    char *log;
    size_t len, cap;
    int log_oom;
} rv_py;

static void save_error(rv_py *u)
{
    if (!u->exc_type)
        PyErr_Fetch(&u->exc_type, &u->exc_value, &u->exc_tb);
    else
        PyErr_Clear();
}

static void log_line(void *user, const char *line)
{
    rv_py *u = user;
    size_t l = strlen(line);
    if (u->len + l + 2 > u->cap) {
        size_t nc = (u->cap ? u->cap * 2 : 4096) + l + 2;
        char *p = realloc(u->log, nc);
        if (!p) {
            u->log_oom = 1;
            return;
        }
        u->log = p;
        u->cap = nc;
    }
    memcpy(u->log + u->len, line, l);
    u->len += l;
    u->log[u->len++] = '\n';
    u->log[u->len] = 0;
    if (u->log_fn) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyObject *r = PyObject_CallFunction(u->log_fn, "s", line);
        if (!r)
            PyErr_Clear();   /* a failing printer does not stop the reveal */
        Py_XDECREF(r);
        PyGILState_Release(g);
    }
}

/* The call's operand as a numpy array of the input format's travelling
 * dtype (float32, float16, uint16 codes of bfloat16). */
static PyObject *operand(const fl_reveal_call *c, const uint64_t *v, int nd,
                         const npy_intp *dims)
{
    int codes;
    int t = ext_natural_type(c->in, &codes);
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(nd, (npy_intp *)dims, t);
    if (!a)
        return NULL;
    size_t n = (size_t)PyArray_SIZE(a);
    int es = (int)PyArray_ITEMSIZE(a);
    for (size_t i = 0; i < n; i++)
        ext_store(PyArray_DATA(a), es, i, v[i]);
    return (PyObject *)a;
}

static int kernel(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    static const char where[] = "fplab.reveal";
    rv_py *u = user;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *a = NULL, *b = NULL, *r = NULL, *arr = NULL;
    int rc = -1, nd = 0, ndo = 0;
    npy_intp sa[3], sb[3], so[3];
    if (PyErr_CheckSignals()) {
        save_error(u);
        snprintf(err, errlen, "interrupted");
        goto done;
    }
    if (c->batch) {
        sa[nd] = sb[nd] = so[ndo++] = (npy_intp)c->batch;
        nd++;
    }
    if (c->op == FL_REF_OP_GEMM) {
        sa[nd] = (npy_intp)c->rows;
        sa[nd + 1] = (npy_intp)c->k;
        sb[nd] = (npy_intp)c->k;
        sb[nd + 1] = (npy_intp)c->n;
        so[ndo++] = (npy_intp)c->rows;
        so[ndo++] = (npy_intp)c->n;
    } else {
        sa[nd] = sb[nd] = (npy_intp)c->rows;
        sa[nd + 1] = sb[nd + 1] = (npy_intp)c->n;
        so[ndo++] = (npy_intp)c->rows;
    }
    nd += 2;
    a = operand(c, c->a, nd, sa);
    if (a && c->b)
        b = operand(c, c->b, nd, sb);
    if (!a || (c->b && !b))
        goto pyerr;
    if (u->to_kernel) {
        PyObject *t = PyObject_CallOneArg(u->to_kernel, a);
        Py_SETREF(a, t);
        if (!a)
            goto pyerr;
        if (b) {
            t = PyObject_CallOneArg(u->to_kernel, b);
            Py_SETREF(b, t);
            if (!b)
                goto pyerr;
        }
    }
    r = b ? PyObject_CallFunctionObjArgs(u->fn, a, b, NULL)
          : PyObject_CallOneArg(u->fn, a);
    if (!r) {
        save_error(u);
        snprintf(err, errlen, "the kernel raised %s", u->exc_type
                 ? ((PyTypeObject *)u->exc_type)->tp_name : "an exception");
        goto done;
    }
    if (u->from_kernel) {
        PyObject *t = PyObject_CallOneArg(u->from_kernel, r);
        Py_SETREF(r, t);
        if (!r)
            goto pyerr;
    }
    if (!PyArray_Check(r)) {
        ext_type_error(where, "the kernel returned a %s: expected a numpy array "
                       "or a torch tensor", Py_TYPE(r)->tp_name);
        goto pyerr;
    }
    fl_format of;
    switch (PyArray_TYPE((PyArrayObject *)r)) {
    case NPY_FLOAT32: of = fl_binary32; break;
    case NPY_FLOAT16: of = fl_binary16; break;
    case NPY_FLOAT64: of = fl_binary64; break;
    case NPY_UINT16: of = fl_bfloat16; break;
    default: {
        PyObject *ds = PyObject_Str((PyObject *)PyArray_DESCR((PyArrayObject *)r));
        ext_type_error(where, "the kernel's result has dtype %s: expected float32, "
                       "float16, float64 or uint16 (bfloat16 codes); torch: "
                       "float32, float16, bfloat16 or float64",
                       ds ? PyUnicode_AsUTF8(ds) : "?");
        Py_XDECREF(ds);
        goto pyerr;
    }
    }
    {
        PyArrayObject *ra = (PyArrayObject *)r;
        int ok = PyArray_NDIM(ra) == ndo;
        for (int d = 0; ok && d < ndo; d++)
            ok = PyArray_DIM(ra, d) == so[d];
        if (!ok) {
            char got[256], exp[256];
            size_t o1 = 0, o2 = 0;
            o1 += (size_t)snprintf(got, sizeof got, "(");
            for (int d = 0; d < PyArray_NDIM(ra) && o1 < sizeof got; d++)
                o1 += (size_t)snprintf(got + o1, sizeof got - o1, d ? ", %lld" : "%lld",
                                       (long long)PyArray_DIM(ra, d));
            if (o1 < sizeof got)
                snprintf(got + o1, sizeof got - o1, PyArray_NDIM(ra) == 1 ? ",)" : ")");
            o2 += (size_t)snprintf(exp, sizeof exp, "(");
            for (int d = 0; d < ndo && o2 < sizeof exp; d++)
                o2 += (size_t)snprintf(exp + o2, sizeof exp - o2, d ? ", %lld" : "%lld",
                                       (long long)so[d]);
            if (o2 < sizeof exp)
                snprintf(exp + o2, sizeof exp - o2, ndo == 1 ? ",)" : ")");
            ext_value_error(where, "the kernel's result has shape %s, expected %s "
                            "(call %zu)", got, exp, c->index + 1);
            goto pyerr;
        }
    }
    arr = PyArray_FROMANY(r, PyArray_TYPE((PyArrayObject *)r), 0, 0,
                          NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                              NPY_ARRAY_NOTSWAPPED);
    if (!arr)
        goto pyerr;
    {
        size_t n = fl_reveal_call_outputs(c);
        int es = (int)PyArray_ITEMSIZE((PyArrayObject *)arr);
        const void *p = PyArray_DATA((PyArrayObject *)arr);
        for (size_t i = 0; i < n; i++)
            c->out[i] = ext_load(p, es, i);
    }
    c->out_format = of;
    rc = 0;
    goto done;
pyerr:
    save_error(u);
    snprintf(err, errlen, "see the exception");
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(r);
    Py_XDECREF(arr);
    PyGILState_Release(g);
    return rc;
}

static const char *status_name(fl_reveal_status s)
{
    switch (s) {
    case FL_REVEAL_FOUND: return "found";
    case FL_REVEAL_MISMATCH: return "mismatch";
    case FL_REVEAL_NONDETERMINISTIC: return "nondeterministic";
    case FL_REVEAL_UNREVEALED: return "unrevealed";
    case FL_REVEAL_KERNEL_FAILED: return "kernel_failed";
    default: return "bad_options";
    }
}

/* reveal(fn, op, n, m, k, in_fmt, batch, rows, validate, seed, call_elems,
 *        threads, to_kernel, from_kernel, log_fn, validate_calls, lengths,
 *        batch_trial, kernel_name)
 * -> dict: status, model (line or None), log, calls, seconds,
 *    kernel_seconds, cases, agreed, counterexample, message, out, nan_only,
 *    valid_calls, batch_max, lengths, order_travels, travel_note, and the
 *    library's closing text (fl_reveal_*_text): outcome, notes, calls_line,
 *    model_file (None unless found) */
PyObject *ext_reveal(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.reveal";
    PyObject *fn, *fmt, *tok, *fromk, *logf, *seedo, *lens;
    const char *op, *kname;
    Py_ssize_t n, m, k, batch, rows, validate, call_elems, vcalls;
    int threads, batch_trial;
    size_t lengths[8], nlengths = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OsnnnOnnnOniOOOnOps", &fn, &op, &n, &m, &k, &fmt,
                          &batch, &rows, &validate, &seedo, &call_elems, &threads,
                          &tok, &fromk, &logf, &vcalls, &lens, &batch_trial,
                          &kname))
        return NULL;
    if (!PyCallable_Check(fn))
        return ext_type_error(where, "fn must be callable, not %s",
                              Py_TYPE(fn)->tp_name);
    fl_reveal_opts o;
    fl_reveal_opts_init(&o);
    if (!strcmp(op, "sum"))
        o.op = FL_REF_OP_SUM;
    else if (!strcmp(op, "dot"))
        o.op = FL_REF_OP_DOT;
    else if (!strcmp(op, "gemm"))
        o.op = FL_REF_OP_GEMM;
    else
        return ext_value_error(where, "unknown operation '%.50s' (sum, dot or "
                               "gemm)", op);
    if (ext_format(fmt, &o.in, where))
        return NULL;
    if (!fl_format_same(&o.in, &fl_binary32) &&
        !fl_format_same(&o.in, &fl_binary16) &&
        !fl_format_same(&o.in, &fl_bfloat16))
        return ext_value_error(where, "dtype: the inputs are float32, float16 or "
                               "bfloat16");
    if (n < 1 || n > ((Py_ssize_t)1 << 30))
        return ext_value_error(where, "n=%zd: need 1 .. 2**30", n);
    if (o.op == FL_REF_OP_GEMM) {
        if (m < 1 || k < 1 || m > ((Py_ssize_t)1 << 24) || k > ((Py_ssize_t)1 << 30))
            return ext_value_error(where, "gemm needs m (1 .. 2**24) and k (1 .. "
                                   "2**30): A is m x k, B is k x n");
        if (rows > 0)
            return ext_value_error(where, "rows= applies to sum and dot (gemm's "
                                   "rows are m)");
    } else if (m > 0 || k > 0) {
        return ext_value_error(where, "m and k apply to gemm only");
    }
    if (batch < 0 || batch > ((Py_ssize_t)1 << 24) || rows < 0 || validate < 1 ||
        call_elems < 16)
        return ext_value_error(where, "batch, rows >= 0, validate >= 1, "
                               "call_elems >= 16");
    if (vcalls < 0 || vcalls > ((Py_ssize_t)1 << 30))
        return ext_value_error(where, "validate_calls=%zd: 0 (no limit) .. 2**30",
                               vcalls);
    if (!batch_trial && o.op != FL_REF_OP_GEMM)
        return ext_value_error(where, "no_batch applies to gemm (sum and dot "
                               "choose their rows per call)");
    if (!batch_trial && batch > 0)
        return ext_value_error(where, "no_batch=True and batch=B contradict each "
                               "other (batch fixes 3-D calls of B)");
    if (lens != Py_None) {
        /* more lengths to reveal the tree at, as `fplab reveal --lengths` */
        PyObject *seq = PySequence_Fast(lens, "");
        if (!seq) {
            PyErr_Clear();
            return ext_type_error(where, "lengths is a list of integers, not %s",
                                  Py_TYPE(lens)->tp_name);
        }
        Py_ssize_t cnt = PySequence_Fast_GET_SIZE(seq);
        if (cnt < 1 || cnt > 8) {
            Py_DECREF(seq);
            return ext_value_error(where, "lengths: 1 .. 8 lengths, got %zd", cnt);
        }
        for (Py_ssize_t i = 0; i < cnt; i++) {
            PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
            long long v = PyLong_Check(it) ? PyLong_AsLongLong(it) : -1;
            if (v == -1 && PyErr_Occurred())
                PyErr_Clear();
            if (!PyLong_Check(it) || v < 3 || v > (1LL << 30)) {
                Py_DECREF(seq);
                return ext_value_error(where, "lengths[%zd]: not an integer 3 .. "
                                       "2**30", i);
            }
            lengths[nlengths++] = (size_t)v;
        }
        Py_DECREF(seq);
    }
    unsigned long long seed = PyLong_AsUnsignedLongLong(seedo);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return ext_value_error(where, "seed is an integer 0 .. 2**64-1");
    }
    o.n = (size_t)n;
    o.m = (size_t)(m > 0 ? m : 0);
    o.k = (size_t)(k > 0 ? k : 0);
    o.batch = (size_t)batch;
    o.rows = (size_t)rows;
    o.validate = (size_t)validate;
    o.seed = seed;
    o.call_elems = (size_t)call_elems;
    o.nthreads = threads;
    o.validate_calls = (size_t)vcalls;
    o.batch_trial = batch_trial;
    o.lengths = nlengths ? lengths : NULL;
    o.nlengths = nlengths;
    rv_py u;
    memset(&u, 0, sizeof u);
    u.fn = fn;
    u.to_kernel = tok != Py_None ? tok : NULL;
    u.from_kernel = fromk != Py_None ? fromk : NULL;
    u.log_fn = logf != Py_None ? logf : NULL;
    o.log = log_line;
    o.log_user = &u;
    fl_reveal_result res;
    memset(&res, 0, sizeof res);
    Py_BEGIN_ALLOW_THREADS
    fl_reveal(&o, kernel, &u, &res);
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (u.exc_type) {
        /* the user's exception (or ours about the result), unchanged */
        PyErr_Restore(u.exc_type, u.exc_value, u.exc_tb);
        goto done;
    }
    if (u.log_oom) {
        PyErr_NoMemory();
        goto done;
    }
    if (res.status == FL_REVEAL_BAD_OPTIONS) {
        ext_value_error(where, "%s", res.message);
        goto done;
    }
    if (res.status == FL_REVEAL_KERNEL_FAILED) {
        ext_value_error(where, "%s", res.message);
        goto done;
    }
    {
        char *line = res.have_model ? fl_ref_model_string(&res.model) : NULL;
        char *outcome = fl_reveal_outcome_text(&res);
        char *notes = fl_reveal_notes_text(&o, &res);
        char *calls = fl_reveal_calls_text(&res);
        char *file = fl_reveal_model_file_text(&o, &res, kname);
        char ospec[64] = "";
        PyObject *tl = PyList_New(0);
        for (size_t i = 0; tl && i < res.ntree_lengths; i++) {
            PyObject *v = PyLong_FromSize_t(res.tree_lengths[i]);
            if (!v || PyList_Append(tl, v)) {
                Py_XDECREF(v);
                Py_CLEAR(tl);
            } else {
                Py_DECREF(v);
            }
        }
        if (res.out.width)
            fl_format_spec(&res.out, ospec, sizeof ospec);
        if (tl && outcome && notes && calls &&
            (file || res.status != FL_REVEAL_FOUND))
            out = Py_BuildValue(
                "{s:s, s:s, s:s, s:n, s:d, s:d, s:n, s:n, s:s, s:s, s:s, s:n, "
                "s:n, s:n, s:O, s:O, s:s, s:s, s:s, s:s, s:s}",
                "status", status_name(res.status), "model", line, "log",
                u.log ? u.log : "", "calls", (Py_ssize_t)res.calls, "seconds",
                res.seconds, "kernel_seconds", res.kernel_seconds, "cases",
                (Py_ssize_t)res.cases, "agreed", (Py_ssize_t)res.agreed,
                "counterexample", res.counterexample, "message",
                res.status == FL_REVEAL_FOUND ? "" : res.message, "out", ospec,
                "nan_only", (Py_ssize_t)res.nan_only, "valid_calls",
                (Py_ssize_t)res.valid_calls, "batch_max",
                (Py_ssize_t)res.batch_max, "lengths", tl, "order_travels",
                res.order_travels ? Py_True : Py_False, "travel_note",
                res.travel_note, "outcome", outcome, "notes", notes,
                "calls_line", calls, "model_file", file);
        else if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_XDECREF(tl);
        free(line);
        free(outcome);
        free(notes);
        free(calls);
        free(file);
    }
done:
    fl_reveal_result_free(&res);
    free(u.log);
    return out;
}
