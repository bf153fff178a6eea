/*
 * ref_internal.h — shared machinery of the reference library (not
 * installed): evaluation plans (the summation tree of one output element
 * as a list of additions), the prepared call context, the generic
 * evaluator, the fast paths and the thread split.
 */
#ifndef FPLAB_REF_INTERNAL_H
#define FPLAB_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internals.h"
#include "fplab/ref.h"
#include "fplab/tensorcore.h"

/* An explicit tree (order=tree): n leaves, n-1 nodes in postorder.  A
 * reference r < n is leaf r, r >= n is node r-n.  kid[2j], kid[2j+1] are
 * the left and right operands of node j. */
struct fl_ref_tree {
    size_t n;
    int64_t *kid;
};

/* Trees (tree.c).  Parse errors name the position ("position 7", or
 * "line 2 column 5" in multi-line text). */
int ref_tree_parse(fl_ref_tree **out, const char *text, char *err,
                   size_t errlen);
void ref_tree_free(fl_ref_tree *t);
fl_ref_tree *ref_tree_copy(const fl_ref_tree *t);
char *ref_tree_print(const fl_ref_tree *t);   /* malloc'd */

/* A plan: the tree of one output element with n terms.  References as in
 * fl_ref_tree, plus REF_ZERO, a constant +0 leaf (numpy's start value). */
#define REF_ZERO ((int64_t)-1)
typedef struct ref_plan {
    size_t n, nnodes, cap;
    int64_t *kid;        /* 2 per node, postorder */
    int64_t root;        /* the result; unused when n == 0 */
    int64_t first_node;  /* node whose left operand is the leftmost leaf,
                            -1 when the root is a leaf */
} ref_plan;

int ref_plan_build(ref_plan *p, const fl_ref_model *m, size_t n);
void ref_plan_free(ref_plan *p);

/* How products are formed in acc from two inputs. */
enum {
    REF_P_SAME = 0,   /* in is acc: fl_mul / fl_fma directly */
    REF_P_WIDEN,      /* acc holds every value of in: exact fl_convert, then
                         fl_mul / fl_fma in acc */
    REF_P_MIXED       /* acc narrower: the exact product rounded once by
                         fl__round_pack (no fused form) */
};

/* Everything a call needs, prepared once. */
typedef struct ref_ctx {
    const fl_ref_model *m;
    fl_ref_op op;
    size_t n;              /* terms per element */
    fl_format out;         /* the output format (acc when not set) */
    uint64_t slots;        /* 3n + 7: stochastic-rounding slots per element */
    fl_ctx cacc, cout;     /* contexts of the steps in acc and of out */
    int pmode;             /* REF_P_* */
    int in_is_acc, out_is_acc;
    ref_plan plan;         /* non-tc, non-exact orders */
    fl_tc_model tcm;       /* tc: the block model (in = &m->in) */
    size_t tc_part;        /* tc splitk: terms per part (n when sequential) */
    /* epilogue (GEMM; sum and dot: alpha = 1, beta = 0) */
    uint64_t alpha, beta;
    int alpha_one, beta_zero;
} ref_ctx;

/* Slot numbers of the epilogue steps (see fplab/ref.h). */
#define REF_SLOT_INIT(n) (3 * (uint64_t)(n) + 2)
#define REF_SLOT_ALPHA(n) (3 * (uint64_t)(n) + 3)
#define REF_SLOT_BETA(n) (3 * (uint64_t)(n) + 4)
#define REF_SLOT_SUM(n) (3 * (uint64_t)(n) + 5)
#define REF_SLOT_OUT(n) (3 * (uint64_t)(n) + 6)

int ref_ctx_init(ref_ctx *rc, const fl_ref_model *m, fl_ref_op op, size_t n,
                 char *err, size_t errlen);
void ref_ctx_free(ref_ctx *rc);

/* The terms of one element: x (sum: b == NULL) or a[i]*b[i]; strides in
 * elements. */
typedef struct ref_terms {
    const uint64_t *a, *b;
    ptrdiff_t sa, sb;
} ref_terms;

/* u of epilogue=init for element e: beta*C (C in out) rounded in acc, or
 * +0 (beta zero or no C). */
uint64_t ref_init_value(const ref_ctx *rc, const uint64_t *cval, uint64_t e,
                        unsigned *flags);
/* The accumulator of element e (before the epilogue), generic path.
 * u: the start value (epilogue=init only).  scratch: nnodes words. */
uint64_t ref_eval_acc(const ref_ctx *rc, const ref_terms *t, uint64_t u,
                      uint64_t e, uint64_t *scratch, unsigned *flags);
/* The tc chain of element e (generic blocks), from u (+0 without init). */
uint64_t ref_eval_tc(const ref_ctx *rc, const ref_terms *t, uint64_t u,
                     uint64_t e, unsigned *flags);
/* alpha/beta/C and the conversion to out.  cval: C's value or NULL. */
uint64_t ref_epilogue(const ref_ctx *rc, uint64_t acc, const uint64_t *cval,
                      uint64_t e, unsigned *flags);

/* Products and conversions in acc (exported for the fast paths). */
uint64_t ref_mul_mixed(const fl_format *dst, const fl_format *fa, uint64_t a,
                       const fl_format *fb, uint64_t b, const fl_ctx *c,
                       unsigned *flags);

/* Exact (order=exact): the correctly rounded element, in out. */
typedef struct ref_fx ref_fx;
ref_fx *ref_fx_new(const ref_ctx *rc);
void ref_fx_free(ref_fx *x);
uint64_t ref_exact_element(const ref_ctx *rc, ref_fx *x, const ref_terms *t,
                           const uint64_t *cval, unsigned *flags);

/* Thread split: fn(arg, lo, hi, &flags) over [0, count) in nthreads
 * contiguous parts; returns -1 when a part reported failure (fn returns
 * nonzero).  work: a rough cost per item, to keep small calls on one
 * thread. */
typedef int (*ref_range_fn)(void *arg, size_t lo, size_t hi,
                            unsigned *flags);
int ref_parallel(size_t count, double work, int nthreads, ref_range_fn fn,
                 void *arg, unsigned *flags);
/* nthreads, or one per online CPU when it is <= 0; at most
 * REF_MAX_THREADS. */
#define REF_MAX_THREADS 256
int ref_nthreads(int nthreads);
/* The fan-out under ref_parallel and fl_cmp_arrays: run(part i) for every
 * i in [0, n), 1 <= n <= REF_MAX_THREADS, parts being n records of size
 * bytes; part 0 in the caller, each other part in a thread of its own, or
 * in the caller after part 0 when its thread cannot be started.  Returns
 * when every part is done. */
void ref_fan_out(void *parts, size_t size, int n, void *(*run)(void *));

/* Fast paths (0: done; 1: not applicable, use the generic path; -1 out
 * of memory).  ref_fast (run.c) is the one choice between them. */
typedef struct ref_fast_job {
    const fl_ref_gemm_shape *s;   /* a GEMM; NULL: rows of dot products */
    const uint64_t *a, *b, *c;    /* A, B, C (GEMM) or the rows' a, b */
    uint64_t *out;                /* D, or one result per row */
    size_t rows;
} ref_fast_job;
int ref_fast(const ref_ctx *rc, const ref_fast_job *j, int nthreads,
             unsigned *flags);
/* Each fast path's two entries: a GEMM, and rows of dot products. */
typedef int ref_fast_gemm_fn(const ref_ctx *rc, const fl_ref_gemm_shape *s,
                             const uint64_t *A, const uint64_t *B,
                             const uint64_t *C, uint64_t *D, int nthreads,
                             unsigned *flags);
typedef int ref_fast_rows_fn(const ref_ctx *rc, const uint64_t *a,
                             const uint64_t *b, size_t rows, uint64_t *out,
                             int nthreads, unsigned *flags);
ref_fast_gemm_fn ref_native_gemm;   /* accel/ref_native.c */
ref_fast_rows_fn ref_native_rows;
int ref_tcfast_applicable(const ref_ctx *rc);   /* accel/ref_tcfast.c */
ref_fast_gemm_fn ref_tcfast_gemm;
ref_fast_rows_fn ref_tcfast_dot;

/* The message, printf-style, into err (nothing when err is NULL or
 * errlen 0; cut to errlen - 1 characters) (err.c). */
void ref_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* FPLAB_REF_INTERNAL_H */
