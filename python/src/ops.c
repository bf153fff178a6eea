/*
 * ops.c — fplab.round, encode, decode and the element-wise arithmetic.
 *
 * Element i of every call rounds with stochastic-rounding index i (the
 * library's array convention), or with its own supplied random bits
 * rbits[i] (rm 'srb'), so the bits never depend on the thread count.
 * float32 and float64 arrays go through the library's bulk rounding
 * (fl_round_*_array_mt, fl_round_sr_bits_*_array_mt); codes (float16
 * arrays, unsigned arrays of a named format) through fl_convert one
 * element at a time, as `fplab ref cast` converts them.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fplab/parallel.h"

#define MIN_PART 16384

/* A new array of numpy type t with a's shape. */
static PyArrayObject *new_like(const ext_array *a, int t)
{
    return (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(a->arr),
                                              PyArray_DIMS(a->arr), t);
}

/* out= given: a writeable C-contiguous array of type t and a's shape. */
static PyArrayObject *check_out(PyObject *out, const ext_array *a, int t,
                                const char *where)
{
    if (!PyArray_Check(out)) {
        ext_type_error(where, "out is a %s, not a numpy array",
                       Py_TYPE(out)->tp_name);
        return NULL;
    }
    PyArrayObject *o = (PyArrayObject *)out;
    if (PyArray_TYPE(o) != t) {
        ext_type_error(where, "out has another dtype than the result's");
        return NULL;
    }
    if (!PyArray_IS_C_CONTIGUOUS(o) || !PyArray_ISWRITEABLE(o) ||
        !PyArray_ISALIGNED(o) || !PyArray_ISNOTSWAPPED(o)) {
        ext_value_error(where, "out must be a writeable, C-contiguous, aligned "
                        "array in native byte order");
        return NULL;
    }
    if (PyArray_NDIM(o) != PyArray_NDIM(a->arr) ||
        !PyArray_CompareLists(PyArray_DIMS(o), PyArray_DIMS(a->arr),
                              PyArray_NDIM(o))) {
        ext_value_error(where, "out has another shape than x");
        return NULL;
    }
    Py_INCREF(o);
    return o;
}

/* ---------------------------------------------------------------------
 * Conversions of codes, in parallel.
 * ------------------------------------------------------------------- */

typedef struct conv_job {
    const fl_format *src, *dst;  /* codes of src -> codes of dst */
    const fl_format *back;       /* non-NULL: then back into this (exact) */
    const void *in;
    void *out;
    int ein, eout;
    const uint64_t *rbits;       /* rm 'srb': element i's random bits */
    fl_ctx ctx;
    unsigned flags;              /* OR of every part's */
} conv_job;

static void conv_range(void *v, size_t lo, size_t hi)
{
    conv_job *j = v;
    fl_ctx c = j->ctx, c0 = j->ctx;
    unsigned fl = 0, ign = 0;
    c0.rm = FL_RNE;
    for (size_t i = lo; i < hi; i++) {
        c.sr_index = j->ctx.sr_index + i;
        if (j->rbits)
            c.sr_bits = j->rbits[i];
        uint64_t r = fl_convert(j->dst, j->src, ext_load(j->in, j->ein, i), &c, &fl);
        if (j->back)
            r = fl_convert(j->back, j->dst, r, &c0, &ign);
        ext_store(j->out, j->eout, i, r);
    }
    __atomic_fetch_or(&j->flags, fl, __ATOMIC_RELAXED);
}

static unsigned convert_codes(const fl_format *src, const fl_format *dst,
                              const fl_format *back, const void *in, int ein,
                              void *out, int eout, size_t n, const fl_ctx *c,
                              const uint64_t *rbits, int threads)
{
    conv_job j;
    memset(&j, 0, sizeof j);
    j.src = src;
    j.dst = dst;
    j.back = back;
    j.in = in;
    j.out = out;
    j.ein = ein;
    j.eout = eout;
    j.rbits = rbits;
    j.ctx = *c;
    ext_parallel(n, threads, MIN_PART, conv_range, &j);
    return j.flags;
}

/* float32 / float64 elements rounded into T with their supplied random
 * bits (the library's fl_round_sr_bits_*_array_mt): the codes in dst;
 * the flags of every element, OR-ed. */
static unsigned sr_bits_codes(const fl_format *T, const ext_array *a,
                              const ext_srb *s, const fl_ctx *c, uint64_t *dst,
                              int threads)
{
    unsigned flags = 0;
    if (a->kind == EXT_F32)
        fl_round_sr_bits_float_array_mt(T, dst, PyArray_DATA(a->arr), s->r, a->n,
                                        s->nbits, s->variant, c, &flags, NULL,
                                        threads);
    else
        fl_round_sr_bits_array_mt(T, dst, PyArray_DATA(a->arr), s->r, a->n,
                                  s->nbits, s->variant, c, &flags, NULL, threads);
    return flags;
}

/* ---------------------------------------------------------------------
 * round(x, fmt, rm, seed, offset, saturate, ftz, daz, nan, tininess,
 *       threads, out, codes_fmt, srb) -> (array, flags); element i rounds
 * with stochastic-rounding index offset + i, or (srb, see ext_srb_get)
 * with its random bits rbits[i]
 * ------------------------------------------------------------------- */

PyObject *ext_round(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.round";
    PyObject *x, *fmt, *rm, *seed, *sat, *nan, *tin, *thr, *out, *cfmt, *srb;
    int ftz, daz;
    unsigned long long offset;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOKOppOOOOOO", &x, &fmt, &rm, &seed, &offset,
                          &sat, &ftz, &daz, &nan, &tin, &thr, &out, &cfmt, &srb))
        return NULL;
    fl_format T;
    fl_ctx c;
    int threads;
    if (ext_format(fmt, &T, where) ||
        ext_ctx(&c, rm, seed, sat, ftz, daz, nan, tin, where) ||
        ext_threads(thr, &threads, where))
        return NULL;
    c.sr_index = offset;
    ext_array a;
    if (ext_array_get(&a, x, cfmt, where, "x"))
        return NULL;
    char ts[64], ss[64];
    if (!fl_format_contains(&a.f, &T)) {
        fl_format_spec(&T, ts, sizeof ts);
        fl_format_spec(&a.f, ss, sizeof ss);
        ext_array_release(&a);
        return ext_value_error(where, "%s arrays cannot hold every %s value: round "
                               "a wider array (float32 or float64), or take the "
                               "codes with fplab.encode", ss, ts);
    }
    ext_srb sb;
    if (ext_srb_get(&sb, srb, &c, &T, a.n, where)) {
        ext_array_release(&a);
        return NULL;
    }
    int t = PyArray_TYPE(a.arr);
    PyArrayObject *r = out != Py_None ? check_out(out, &a, t, where) : new_like(&a, t);
    uint64_t *tmp = NULL;
    if (r && sb.r && a.kind != EXT_CODES &&
        !(tmp = malloc((a.n ? a.n : 1) * sizeof *tmp))) {
        Py_CLEAR(r);
        PyErr_NoMemory();
    }
    if (!r) {
        ext_srb_release(&sb);
        ext_array_release(&a);
        return NULL;
    }
    unsigned flags = 0;
    const int nogil = a.n >= EXT_GIL_MIN;
    PyThreadState *ts_ = nogil ? PyEval_SaveThread() : NULL;
    if (tmp) {
        /* the codes, then their values (exact: x's format holds T's) */
        flags = sr_bits_codes(&T, &a, &sb, &c, tmp, threads);
        if (a.kind == EXT_F32)
            for (size_t i = 0; i < a.n; i++)
                ((float *)PyArray_DATA(r))[i] = fl_to_float(&T, tmp[i]);
        else
            for (size_t i = 0; i < a.n; i++)
                ((double *)PyArray_DATA(r))[i] = fl_to_double(&T, tmp[i]);
    } else switch (a.kind) {
    case EXT_F32:
        fl_round_float_array_mt(&T, PyArray_DATA(r), PyArray_DATA(a.arr), a.n, &c,
                                &flags, threads);
        break;
    case EXT_F64:
        fl_round_double_array_mt(&T, PyArray_DATA(r), PyArray_DATA(a.arr), a.n, &c,
                                 &flags, threads);
        break;
    default:
        flags = convert_codes(&a.f, &T, &a.f, PyArray_DATA(a.arr), a.esize,
                              PyArray_DATA(r), a.esize, a.n, &c, sb.r, threads);
        break;
    }
    if (ts_)
        PyEval_RestoreThread(ts_);
    free(tmp);
    ext_srb_release(&sb);
    ext_array_release(&a);
    return Py_BuildValue("(Nk)", r, (unsigned long)(flags & 0x7F));
}

/* ---------------------------------------------------------------------
 * encode(x, fmt, rm, seed, offset, saturate, ftz, daz, nan, tininess,
 *        threads, codes_fmt, srb) -> (codes, flags)
 * ------------------------------------------------------------------- */

typedef struct enc_job {
    const fl_format *T;
    const void *in;
    void *out;
    int eout;
    ext_kind kind;
    fl_ctx ctx;
    unsigned flags;
} enc_job;

static void enc_range(void *v, size_t lo, size_t hi)
{
    enc_job *j = v;
    fl_ctx c = j->ctx;
    unsigned fl = 0;
    for (size_t i = lo; i < hi; i++) {
        c.sr_index = j->ctx.sr_index + i;
        uint64_t r = j->kind == EXT_F32
                         ? fl_from_float(j->T, ((const float *)j->in)[i], &c, &fl)
                         : fl_from_double(j->T, ((const double *)j->in)[i], &c, &fl);
        ext_store(j->out, j->eout, i, r);
    }
    __atomic_fetch_or(&j->flags, fl, __ATOMIC_RELAXED);
}

PyObject *ext_encode(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.encode";
    PyObject *x, *fmt, *rm, *seed, *sat, *nan, *tin, *thr, *cfmt, *srb;
    int ftz, daz;
    unsigned long long offset;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOKOppOOOOO", &x, &fmt, &rm, &seed, &offset,
                          &sat, &ftz, &daz, &nan, &tin, &thr, &cfmt, &srb))
        return NULL;
    fl_format T;
    fl_ctx c;
    int threads;
    if (ext_format(fmt, &T, where) ||
        ext_ctx(&c, rm, seed, sat, ftz, daz, nan, tin, where) ||
        ext_threads(thr, &threads, where))
        return NULL;
    c.sr_index = offset;
    ext_array a;
    if (ext_array_get(&a, x, cfmt, where, "x"))
        return NULL;
    ext_srb sb;
    if (ext_srb_get(&sb, srb, &c, &T, a.n, where)) {
        ext_array_release(&a);
        return NULL;
    }
    int t = ext_code_type(&T);
    PyArrayObject *r = new_like(&a, t);
    uint64_t *tmp = NULL;
    const int direct = t == NPY_UINT64;   /* the codes straight into r */
    if (r && sb.r && a.kind != EXT_CODES && !direct &&
        !(tmp = malloc((a.n ? a.n : 1) * sizeof *tmp))) {
        Py_CLEAR(r);
        PyErr_NoMemory();
    }
    if (!r) {
        ext_srb_release(&sb);
        ext_array_release(&a);
        return NULL;
    }
    unsigned flags = 0;
    const int nogil = a.n >= EXT_GIL_MIN;
    PyThreadState *ts_ = nogil ? PyEval_SaveThread() : NULL;
    if (a.kind == EXT_CODES) {
        flags = convert_codes(&a.f, &T, NULL, PyArray_DATA(a.arr), a.esize,
                              PyArray_DATA(r), (int)PyArray_ITEMSIZE(r), a.n, &c,
                              sb.r, threads);
    } else if (sb.r) {
        uint64_t *dst = direct ? PyArray_DATA(r) : tmp;
        flags = sr_bits_codes(&T, &a, &sb, &c, dst, threads);
        if (!direct)
            for (size_t i = 0; i < a.n; i++)
                ext_store(PyArray_DATA(r), (int)PyArray_ITEMSIZE(r), i, tmp[i]);
    } else {
        enc_job j = {&T, PyArray_DATA(a.arr), PyArray_DATA(r),
                     (int)PyArray_ITEMSIZE(r), a.kind, c, 0};
        ext_parallel(a.n, threads, MIN_PART, enc_range, &j);
        flags = j.flags;
    }
    if (ts_)
        PyEval_RestoreThread(ts_);
    free(tmp);
    ext_srb_release(&sb);
    ext_array_release(&a);
    return Py_BuildValue("(Nk)", r, (unsigned long)(flags & 0x7F));
}

/* ---------------------------------------------------------------------
 * decode(codes, fmt, threads) -> values (float32 when every value of fmt
 * is a binary32 value, else float64)
 * ------------------------------------------------------------------- */

typedef struct dec_job {
    const fl_format *f;
    const void *in;
    int ein;
    void *out;
    int f32;
    uint64_t mask;
    size_t bad;      /* first code wider than the format, or SIZE_MAX */
} dec_job;

static void dec_range(void *v, size_t lo, size_t hi)
{
    dec_job *j = v;
    size_t bad = SIZE_MAX;
    for (size_t i = lo; i < hi; i++) {
        uint64_t u = ext_load(j->in, j->ein, i);
        if (u & ~j->mask) {
            if (bad == SIZE_MAX)
                bad = i;
            u &= j->mask;
        }
        if (j->f32)
            ((float *)j->out)[i] = fl_to_float(j->f, u);
        else
            ((double *)j->out)[i] = fl_to_double(j->f, u);
    }
    if (bad != SIZE_MAX) {
        size_t cur = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
        while (bad < cur &&
               !__atomic_compare_exchange_n(&j->bad, &cur, bad, 0,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    }
}

PyObject *ext_decode(PyObject *self, PyObject *args)
{
    static const char where[] = "fplab.decode";
    PyObject *x, *fmt, *thr;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &x, &fmt, &thr))
        return NULL;
    fl_format T;
    int threads;
    if (ext_format(fmt, &T, where) || ext_threads(thr, &threads, where))
        return NULL;
    ext_array a;
    if (ext_array_get(&a, x, fmt, where, "codes"))
        return NULL;
    if (a.kind != EXT_CODES || !fl_format_same(&a.f, &T)) {
        ext_array_release(&a);
        return ext_type_error(where, "codes are an unsigned integer array "
                              "(uint8/16/32/64 by the format's width)");
    }
    int f32 = fl_format_contains(&fl_binary32, &T);
    PyArrayObject *r = new_like(&a, f32 ? NPY_FLOAT32 : NPY_FLOAT64);
    if (!r) {
        ext_array_release(&a);
        return NULL;
    }
    dec_job j = {&T, PyArray_DATA(a.arr), a.esize, PyArray_DATA(r), f32,
                 T.width >= 64 ? UINT64_MAX : ((uint64_t)1 << T.width) - 1,
                 SIZE_MAX};
    const int nogil = a.n >= EXT_GIL_MIN;
    PyThreadState *ts_ = nogil ? PyEval_SaveThread() : NULL;
    ext_parallel(a.n, threads, MIN_PART, dec_range, &j);
    if (ts_)
        PyEval_RestoreThread(ts_);
    if (j.bad != SIZE_MAX) {
        char ts[64];
        fl_format_spec(&T, ts, sizeof ts);
        ext_value_error(where, "codes[%zu] (flat index) = %#llx has bits above "
                        "%s's %d", j.bad,
                        (unsigned long long)ext_load(PyArray_DATA(a.arr), a.esize,
                                                     j.bad), ts, T.width);
        Py_DECREF(r);
        ext_array_release(&a);
        return NULL;
    }
    ext_array_release(&a);
    return (PyObject *)r;
}

/* ---------------------------------------------------------------------
 * arith(op, fmt, operands, rm, seed, offset, saturate, ftz, daz, nan,
 *       tininess, each, threads, codes_fmt, srb) -> (result, each flags or
 *       None, flags)
 * ------------------------------------------------------------------- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FMA, OP_SQRT };

typedef struct ar_job {
    int op, nops;
    const fl_format *C;           /* the arithmetic's format */
    ext_array *a;                 /* nops operands */
    void *out;
    uint8_t *each;
    const uint64_t *rbits;        /* rm 'srb': element i's random bits */
    fl_ctx ctx;
    unsigned flags;
    size_t bad;                   /* first element not a value of C */
    int bad_op;
} ar_job;

static const unsigned NOT_EXACT = FL_INEXACT | FL_INVALID | FL_OVERFLOW |
                                  FL_DIVBYZERO;

/* Operand element i as a code of C; -1 when it is not a value of C.  A NaN
 * is a value of every format that has one (a signaling NaN arrives quiet:
 * its conversion is what raises invalid). */
static inline int to_c(const ext_array *a, const fl_format *C, size_t i,
                       uint64_t *code)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    int nan;
    const void *p = PyArray_DATA(a->arr);
    switch (a->kind) {
    case EXT_F32: {
        float x = ((const float *)p)[i];
        nan = x != x;
        *code = fl_from_float(C, x, &c, &fl);
        break;
    }
    case EXT_F64: {
        double x = ((const double *)p)[i];
        nan = x != x;
        *code = fl_from_double(C, x, &c, &fl);
        break;
    }
    default: {
        uint64_t u = ext_load(p, a->esize, i);
        if (fl_format_same(&a->f, C)) {
            if (a->f.width < 64 && (u >> a->f.width))
                return -1;
            *code = u;
            return 0;
        }
        nan = fl_is_nan(&a->f, u);
        *code = fl_convert(C, &a->f, u, &c, &fl);
        break;
    }
    }
    if (nan && fl_is_nan(C, *code))
        return 0;
    return (fl & NOT_EXACT) ? -1 : 0;
}

static void ar_range(void *v, size_t lo, size_t hi)
{
    ar_job *j = v;
    fl_ctx c = j->ctx, c0 = FL_CTX_INIT;
    unsigned all = 0, ign = 0;
    const ext_array *o0 = &j->a[0];
    for (size_t i = lo; i < hi; i++) {
        uint64_t x[3] = {0, 0, 0}, r;
        for (int k = 0; k < j->nops; k++)
            if (to_c(&j->a[k], j->C, i, &x[k])) {
                size_t cur = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
                while (i < cur && !__atomic_compare_exchange_n(
                           &j->bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                    ;
                if (j->bad == i)
                    j->bad_op = k;
                goto out;
            }
        unsigned fl = 0;
        c.sr_index = j->ctx.sr_index + i;
        if (j->rbits)
            c.sr_bits = j->rbits[i];
        switch (j->op) {
        case OP_ADD: r = fl_add(j->C, x[0], x[1], &c, &fl); break;
        case OP_SUB: r = fl_sub(j->C, x[0], x[1], &c, &fl); break;
        case OP_MUL: r = fl_mul(j->C, x[0], x[1], &c, &fl); break;
        case OP_DIV: r = fl_div(j->C, x[0], x[1], &c, &fl); break;
        case OP_FMA: r = fl_fma(j->C, x[0], x[1], x[2], &c, &fl); break;
        default: r = fl_sqrt(j->C, x[0], &c, &fl); break;
        }
        all |= fl;
        if (j->each)
            j->each[i] = (uint8_t)(fl & 0x7F);
        switch (o0->kind) {
        case EXT_F32: ((float *)j->out)[i] = fl_to_float(j->C, r); break;
        case EXT_F64: ((double *)j->out)[i] = fl_to_double(j->C, r); break;
        default:
            if (!fl_format_same(&o0->f, j->C))
                r = fl_convert(&o0->f, j->C, r, &c0, &ign);
            ext_store(j->out, o0->esize, i, r);
            break;
        }
    }
out:
    __atomic_fetch_or(&j->flags, all, __ATOMIC_RELAXED);
}

PyObject *ext_arith(PyObject *self, PyObject *args)
{
    PyObject *opname, *fmt, *ops, *rm, *seed, *sat, *nan, *tin, *thr, *cfmt, *srb;
    int ftz, daz, want_each;
    unsigned long long offset;
    (void)self;
    if (!PyArg_ParseTuple(args, "UOO!OOKOppOOpOOO", &opname, &fmt, &PyTuple_Type,
                          &ops, &rm, &seed, &offset, &sat, &ftz, &daz, &nan, &tin,
                          &want_each, &thr, &cfmt, &srb))
        return NULL;
    static const char *names[] = {"add", "sub", "mul", "div", "fma", "sqrt"};
    static const int arity[] = {2, 2, 2, 2, 3, 1};
    const char *on = PyUnicode_AsUTF8(opname);
    int op = -1;
    for (int k = 0; on && k < 6; k++)
        if (!strcmp(on, names[k]))
            op = k;
    if (op < 0)
        return ext_value_error("fplab", "unknown operation");
    char where[32];
    snprintf(where, sizeof where, "fplab.%s", names[op]);
    if (PyTuple_GET_SIZE(ops) != arity[op])
        return ext_type_error(where, "takes %d operand(s)", arity[op]);
    fl_ctx c;
    int threads;
    if (ext_ctx(&c, rm, seed, sat, ftz, daz, nan, tin, where) ||
        ext_threads(thr, &threads, where))
        return NULL;
    c.sr_index = offset;
    ext_array a[3];
    ext_srb sb;
    int got = 0;
    PyObject *res = NULL;
    PyArrayObject *r = NULL, *each = NULL;
    memset(&sb, 0, sizeof sb);
    static const char *opn[] = {"a", "b", "c"};
    for (; got < arity[op]; got++)
        if (ext_array_get(&a[got], PyTuple_GET_ITEM(ops, got), cfmt, where,
                          arity[op] == 1 ? "x" : opn[got]))
            goto done;
    for (int k = 1; k < got; k++) {
        if (PyArray_TYPE(a[k].arr) != PyArray_TYPE(a[0].arr) ||
            !fl_format_same(&a[k].f, &a[0].f)) {
            ext_type_error(where, "the operands hold different dtypes or formats: "
                           "give them in one");
            goto done;
        }
        if (PyArray_NDIM(a[k].arr) != PyArray_NDIM(a[0].arr) ||
            !PyArray_CompareLists(PyArray_DIMS(a[k].arr), PyArray_DIMS(a[0].arr),
                                  PyArray_NDIM(a[0].arr))) {
            ext_value_error(where, "the operands have different shapes");
            goto done;
        }
    }
    fl_format C = a[0].f;
    if (fmt != Py_None && ext_format(fmt, &C, where))
        goto done;
    if (!fl_format_contains(&a[0].f, &C)) {
        char cs[64], ss[64];
        fl_format_spec(&C, cs, sizeof cs);
        fl_format_spec(&a[0].f, ss, sizeof ss);
        ext_value_error(where, "%s arrays cannot hold every %s value: compute on "
                        "float32/float64 arrays or on codes", ss, cs);
        goto done;
    }
    if (ext_srb_get(&sb, srb, &c, &C, a[0].n, where))
        goto done;
    r = new_like(&a[0], PyArray_TYPE(a[0].arr));
    if (!r)
        goto done;
    if (want_each && !(each = new_like(&a[0], NPY_UINT8)))
        goto done;
    ar_job j;
    memset(&j, 0, sizeof j);
    j.op = op;
    j.nops = arity[op];
    j.C = &C;
    j.a = a;
    j.out = PyArray_DATA(r);
    j.each = each ? PyArray_DATA(each) : NULL;
    j.rbits = sb.r;
    j.ctx = c;
    j.bad = SIZE_MAX;
    {
        const int nogil = a[0].n >= EXT_GIL_MIN;
        PyThreadState *ts_ = nogil ? PyEval_SaveThread() : NULL;
        ext_parallel(a[0].n, threads, MIN_PART, ar_range, &j);
        if (ts_)
            PyEval_RestoreThread(ts_);
    }
    if (j.bad != SIZE_MAX) {
        char cs[64];
        fl_format_spec(&C, cs, sizeof cs);
        ext_value_error(where, "%s[%zu] (flat index) is not a %s value: round "
                        "it first (fplab.round)", arity[op] == 1 ? "x"
                        : opn[j.bad_op], j.bad, cs);
        goto done;
    }
    res = Py_BuildValue("(OOk)", r, each ? (PyObject *)each : Py_None,
                        (unsigned long)(j.flags & 0x7F));
done:
    Py_XDECREF(r);
    Py_XDECREF(each);
    ext_srb_release(&sb);
    for (int k = 0; k < got; k++)
        ext_array_release(&a[k]);
    return res;
}

/* ---------------------------------------------------------------------
 * bench_round(src, dst, fmt, reps, inner, threads[, fresh]) -> list of
 * seconds per call (each the mean of `inner` calls): the library's bulk
 * rounding timed in C, the yardstick of the Python API's overhead
 * (bench/bench_python.py); fresh: into a newly malloc'd buffer each call.
 * ------------------------------------------------------------------- */

PyObject *ext_bench_round(PyObject *self, PyObject *args)
{
    PyArrayObject *src, *dst;
    PyObject *fmt;
    int reps, inner, threads, fresh = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!Oiii|p", &PyArray_Type, &src, &PyArray_Type,
                          &dst, &fmt, &reps, &inner, &threads, &fresh))
        return NULL;
    fl_format T;
    if (ext_format(fmt, &T, "bench_round"))
        return NULL;
    if (PyArray_TYPE(src) != NPY_FLOAT32 || PyArray_TYPE(dst) != NPY_FLOAT32 ||
        !PyArray_IS_C_CONTIGUOUS(src) || !PyArray_IS_C_CONTIGUOUS(dst) ||
        PyArray_SIZE(src) != PyArray_SIZE(dst) || reps < 1 || inner < 1)
        return ext_value_error("bench_round", "float32 C-contiguous arrays of "
                               "one size, reps >= 1, inner >= 1");
    PyObject *l = PyList_New(reps);
    if (!l)
        return NULL;
    size_t n = (size_t)PyArray_SIZE(src);
    fl_ctx c = fl_ctx_make(FL_RNE);
    for (int k = 0; k < reps; k++) {
        struct timespec t0, t1;
        unsigned fl = 0;
        Py_BEGIN_ALLOW_THREADS
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int q = 0; q < inner; q++) {
            /* fresh: a new output buffer each call, as a caller that
             * allocates its result does (its pages are touched first here) */
            float *d = fresh ? malloc(n * sizeof *d) : PyArray_DATA(dst);
            if (!d)
                break;
            fl_round_float_array_mt(&T, d, PyArray_DATA(src), n, &c, &fl,
                                    threads);
            if (fresh)
                free(d);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        Py_END_ALLOW_THREADS
        double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        PyList_SET_ITEM(l, k, PyFloat_FromDouble(s / inner));
    }
    return l;
}
