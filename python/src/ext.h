/*
 * ext.h — shared pieces of the CPython extension fplab._fplab.
 *
 * The extension is a thin shell over the C library: it turns numpy arrays
 * into pointers, names into formats and modes, and library errors into
 * Python exceptions (ValueError for a bad value, TypeError for a bad
 * type), and releases the GIL around every loop over elements.  Torch
 * tensors never reach it: fplab/_arrays.py hands over numpy views of
 * their memory.
 */
#ifndef FPLAB_PY_EXT_H
#define FPLAB_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL fplab_ARRAY_API
#ifndef FPLAB_EXT_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stddef.h>
#include <stdint.h>

#include "fplab/fplab.h"

/* Below this many elements a loop keeps the GIL: releasing and taking it
 * back costs more than the work. */
#define EXT_GIL_MIN 4096

/* ---- formats (module.c) ----------------------------------------------- */
typedef struct {
    PyObject_HEAD
    fl_format f;
    char spec[64];          /* preset name or ieee:E:M */
} FormatObject;

extern PyTypeObject ext_format_type;

/* A format from a fplab.Format or a name ("bfloat16", "ieee:4:3", a
 * numpy/torch dtype's name); 0, or -1 with ValueError/TypeError naming
 * `where` (e.g. "fplab.round: fmt"). */
int ext_format(PyObject *o, fl_format *out, const char *where);
/* A new fplab.Format for f. */
PyObject *ext_format_new(const fl_format *f);

/* Names of modes and presets; None gives the default.  0, or -1 with
 * ValueError. */
int ext_rm(PyObject *o, int *rm, const char *where);
int ext_nan(PyObject *o, int *nan, const char *where);
int ext_tininess(PyObject *o, int *t, const char *where);
/* Saturation: False / True (FL_SAT_NONE / FL_SAT_PROPAGATE, any object's
 * truth) or a name fl_sat_parse takes ("none", "propagate", "finite");
 * None: FL_SAT_NONE. */
int ext_sat(PyObject *o, int *sat, const char *where);
/* A context: rm (also "srb": supplied random bits, see ext_srb_get), seed
 * (None: 0; an int 0..2^64-1), saturate (ext_sat), the switches, nan and
 * tininess.  A seed with a mode other than sr is an error. */
int ext_ctx(fl_ctx *c, PyObject *rm, PyObject *seed, PyObject *saturate,
            int ftz, int daz, PyObject *nan, PyObject *tininess,
            const char *where);

/* Stochastic rounding with supplied random bits: element i of an
 * operation rounds with c.rm FL_RSB and c.sr_bits = r[i]. */
typedef struct ext_srb {
    PyArrayObject *bits;    /* uint64, C-contiguous (a new reference), or
                               NULL when the call has no supplied bits */
    const uint64_t *r;      /* its elements */
    int nbits, variant;     /* also in the context */
} ext_srb;
/* spec: None (then c->rm must not be FL_RSB), or the package's tuple
 * (rbits, nbits, variant, sr_hw), which needs c->rm FL_RSB: rbits a
 * C-contiguous uint64 array of n elements (the package has checked its
 * dtype and shape against the operands), nbits an int 1..64 or None,
 * variant (fl_srv_parse's names, '_' for '-') and sr_hw (fl_srhw_parse's
 * presets) names or None.  sr_hw sets the bit count, the variant
 * (fastest), c->nan (cuda) and, where the instruction's .satfinite is
 * mandatory, c->saturate (finite), as `fplab ref --sr-hw` does, and needs
 * T (when not NULL) to be its format.  Every element must fit in nbits
 * bits.  Fills c->sr_nbits and c->sr_variant; 0, or -1 with an exception
 * naming where. */
int ext_srb_get(ext_srb *s, PyObject *spec, fl_ctx *c, const fl_format *T,
                size_t n, const char *where);
void ext_srb_release(ext_srb *s);
/* nthreads from an int (0 or None: every online processor, counted once
 * at import); -1 with ValueError. */
extern int ext_ncpu;
int ext_threads(PyObject *o, int *n, const char *where);

/* ---- arrays (arrays.c) ------------------------------------------------ */
/* How an array holds its elements. */
typedef enum {
    EXT_F32,     /* float32 values */
    EXT_F64,     /* float64 values */
    EXT_CODES    /* bit patterns of a format: float16 (binary16), or an
                    unsigned array of the format named */
} ext_kind;

typedef struct {
    PyArrayObject *arr;     /* C-contiguous, aligned, native byte order
                               (a new reference) */
    ext_kind kind;
    fl_format f;            /* the format of the elements (F32: binary32,
                               F64: binary64, CODES: float16's binary16 or
                               the format named) */
    int esize;              /* bytes per element */
    size_t n;
} ext_array;

/* Take obj (an ndarray, a Python number, a list) as an array of elements:
 * float16/32/64 arrays are values of their own formats (float16 as codes
 * of binary16); an unsigned integer array holds codes of codes_fmt, which
 * must then be given (not None); numbers and lists become float64; any
 * other dtype is a TypeError.  Non-contiguous, misaligned or byte-swapped
 * arrays are copied; others are used in place.  0, or -1 with an
 * exception naming where and what ("fplab.add: b"). */
int ext_array_get(ext_array *a, PyObject *obj, PyObject *codes_fmt,
                  const char *where, const char *what);
void ext_array_release(ext_array *a);

/* Element i of a buffer of esize-byte unsigned codes. */
static inline uint64_t ext_load(const void *p, int esize, size_t i)
{
    switch (esize) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

static inline void ext_store(void *p, int esize, size_t i, uint64_t v)
{
    switch (esize) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v; break;
    }
}

/* numpy type of a format's codes (uint8/16/32/64 by width). */
int ext_code_type(const fl_format *f);
/* The numpy dtype a format's values travel in: float16/32/64 for
 * binary16/32/64, else the codes' unsigned type; *codes says which. */
int ext_natural_type(const fl_format *f, int *codes);

/* Run fn(ctx, lo, hi) over [0, n) on up to nthreads POSIX threads (<= 0:
 * one per online processor), parts of at least min_part elements, in
 * contiguous parts; fn must not touch Python.  A thread that cannot be
 * started has its part run by the caller. */
void ext_parallel(size_t n, int nthreads, size_t min_part,
                  void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx);

/* Raise ValueError(msg) prefixed by where ("fplab.round: ..."); NULL. */
PyObject *ext_value_error(const char *where, const char *fmt, ...);
PyObject *ext_type_error(const char *where, const char *fmt, ...);

/* ---- the functions (ops.c, refmod.c, cmp.c, rev.c, scl.c) ----------- */
PyObject *ext_round(PyObject *self, PyObject *args);
PyObject *ext_encode(PyObject *self, PyObject *args);
PyObject *ext_decode(PyObject *self, PyObject *args);
PyObject *ext_arith(PyObject *self, PyObject *args);
PyObject *ext_bench_round(PyObject *self, PyObject *args);
PyObject *ext_model(PyObject *self, PyObject *args);
PyObject *ext_ref_reduce(PyObject *self, PyObject *args);
PyObject *ext_ref_gemm(PyObject *self, PyObject *args);
PyObject *ext_compare(PyObject *self, PyObject *args);
PyObject *ext_reveal(PyObject *self, PyObject *args);
PyObject *ext_quantize(PyObject *self, PyObject *args);
PyObject *ext_schemes(PyObject *self, PyObject *args);
PyObject *ext_hist(PyObject *self, PyObject *args);

#endif /* FPLAB_PY_EXT_H */
