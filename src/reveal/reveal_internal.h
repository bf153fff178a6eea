/*
 * reveal_internal.h — the pieces of fl_reveal (not installed): the call
 * machinery, probe rows, the FPRev tree reveal, the accumulator search,
 * the validation inputs.
 */
#ifndef FPLAB_REVEAL_INTERNAL_H
#define FPLAB_REVEAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fplab/reveal.h"

/* The state of one reveal. */
typedef struct rv {
    const fl_reveal_opts *o;
    fl_reveal_kernel kernel;
    void *user;
    fl_reveal_result *res;
    fl_format in, out;
    int have_out;
    size_t T;              /* terms per output element: n (sum, dot), k (gemm) */
    int prod;              /* the terms are products (dot, gemm) */
    double t_start;
    char err[1024];        /* the failure being reported */
    /* gemm with 2-D calls (o->batch 0): after one 3-D call gave what the
     * 2-D call gave, calls carry up to bt_max matrices (call->batch = the
     * count; a lone matrix still goes 2-D) */
    int bt_auto;
    size_t bt_max;
    int bt_off;            /* no batch trial (opts, or 2-D and 3-D differ) */
} rv;

double rv_now(void);
void rv_log(rv *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record a failure: status and message; returns -1. */
int rv_fail(rv *r, fl_reveal_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------------
 * Probe rows: the terms of one output element each.  Sum: a holds x (b
 * unused); dot and gemm: a holds the a_i, b the b_i (a gemm probe is one
 * row of A and one column of B).  T terms per row.
 * ---------------------------------------------------------------------- */
typedef struct rv_rows {
    size_t count, cap, T;
    int prod;
    uint64_t *a, *b;
    uint64_t *out;         /* after rv_run_rows: the kernel's results */
} rv_rows;

int rv_rows_init(rv_rows *s, size_t T, int prod);
void rv_rows_free(rv_rows *s);
/* A new row of +0 terms (b = +1 for products: a then reads as the term);
 * returns its index, or (size_t)-1 when out of memory. */
size_t rv_rows_add(rv_rows *s, const fl_format *in);
static inline uint64_t *rv_row_a(rv_rows *s, size_t r) { return s->a + r * s->T; }
static inline uint64_t *rv_row_b(rv_rows *s, size_t r) { return s->b + r * s->T; }

/* Run every row through the kernel (as many calls as the shape and the
 * per-call budget need); fills s->out.  0, or -1 (failure recorded). */
int rv_run_rows(rv *r, rv_rows *s);

/* One kernel call with the arrays of a whole call (see fl_reveal_call). */
int rv_call(rv *r, size_t batch, size_t rows, size_t ncols, size_t k,
            const uint64_t *a, const uint64_t *b, uint64_t *out);
/* The same, but a failure is only described in why (the batch trial). */
int rv_call_try(rv *r, size_t batch, size_t rows, size_t ncols, size_t k,
                const uint64_t *a, const uint64_t *b, uint64_t *out,
                char *why, size_t whylen);
/* gemm: matrices per call (the fixed batch, the auto batch, or 1), and one
 * call of mats packed matrices (a fixed batch: the caller pads to it). */
size_t rv_gemm_per_call(const rv *r);
int rv_call_gemm(rv *r, size_t mats, const uint64_t *A, const uint64_t *B,
                 uint64_t *C);

/* Rows that fit one call of sum/dot (fixed --rows respected). */
size_t rv_rows_per_call(const rv *r);

/* A value of f: sign * 2^e * (1 + frac / 2^fbits); must be exact (asserts
 * in debug, rounds otherwise). */
uint64_t rv_val(const fl_format *f, int neg, int e, uint64_t frac, int fbits);
uint64_t rv_pow2(const fl_format *f, int e, int neg);

/* ------------------------------------------------------------------------
 * The revealed tree under construction (k-ary, unordered).
 * ---------------------------------------------------------------------- */
typedef struct rv_scale {
    int eM, eu;            /* exponents of the big terms and of u */
    int su;                /* sign of u: +1 or -1 */
    int aM, bM, au, bu;    /* products: exponents of the factors */
} rv_scale;

/* FPRev: the tree of one output element.  0 with *t filled, or -1
 * (failure recorded: UNREVEALED or KERNEL_FAILED), or -2 (nothing
 * recorded): revealed through batched gemm calls, the tree does not
 * count a 2-D call's probes (the kernel sums those otherwise).  *scale:
 * the scale whose probes held. */
int rv_fprev(rv *r, fl_reveal_tree *t, rv_scale *scale);

/* At the current r->T (another length than the tree's): the calibration
 * rows of scale sc and the pair probes (qi[k], qj[k]); *holds = 0 when
 * the scale does not hold at this length (why says how; l not filled),
 * else l[k] = the size of the subtree where qi[k] and qj[k] meet (0: the
 * probe gave no count).  0, or -1 with a failure recorded (the kernel). */
int rv_fprev_at(rv *r, const rv_scale *sc, const size_t *qi, const size_t *qj,
                size_t nq, uint32_t *l, int *holds, char *why, size_t whylen);
/* l[k] = the size of the subtree of t where qi[k] and qj[k] meet. */
int rv_tree_lca_sizes(const fl_reveal_tree *t, const size_t *qi,
                      const size_t *qj, size_t nq, uint32_t *l);

/* Tree helpers (tree.c). */
int rv_tree_from_kid(fl_reveal_tree *t, size_t n, const int64_t *kid,
                     size_t nnodes);
/* Same clusters (leaf sets of inner nodes), ignoring child order. */
int rv_tree_same_shape(const fl_reveal_tree *x, const fl_reveal_tree *y);
/* Leaf-set hashes, for comparing shapes. */
int rv_tree_copy(fl_reveal_tree *dst, const fl_reveal_tree *src);
/* Orient children by smallest leaf (and recompute postorder). */
int rv_tree_canon(fl_reveal_tree *t);
size_t rv_tree_max_arity(const fl_reveal_tree *t);
/* A model's tree for n terms (constant +0 leaves contracted): 0, 1 when
 * the model has none (exact, tc), -1 out of memory.  *has_zero: the
 * order starts from a constant +0. */
int rv_model_tree(const fl_ref_model *m, size_t n, fl_reveal_tree *t,
                  int *has_zero);

/* ------------------------------------------------------------------------
 * The accumulator (search.c) and validation (validate.c).
 * ---------------------------------------------------------------------- */
typedef struct rv_found {
    fl_ref_model model;
    char *notes;           /* the findings, one per line (malloc'd) */
} rv_found;

/* The named orders (families) whose tree for t->n terms has t's shape, by
 * preference; up to max strdup'd specs into out. */
size_t rv_family_orders(const fl_reveal_tree *t, char **out, size_t max);

/* Probe the accumulator over the tree, search the model: 0 with *model
 * (initialised by it), -1 with a failure recorded. */
int rv_search(rv *r, const fl_reveal_tree *t, const rv_scale *sc,
              fl_ref_model *model, fl_ref_model **alts, size_t *nalts);

/* Validation inputs: the kernel's results on chunk after chunk of fresh
 * inputs (kept: only outputs), regenerated to replay a model. */
typedef struct rv_valid {
    size_t cases;          /* output elements validated */
    size_t units, unit;    /* matrices (gemm) or rows, and outputs of each */
    size_t per_call;       /* units per kernel call (replay blocks) */
    uint64_t *kout;        /* the kernel's outputs, unit after unit */
    uint64_t seed;
} rv_valid;

int rv_valid_run(rv *r, rv_valid *v);
/* Fresh units at the current r->T (another length) in one kernel call,
 * replayed with each of the nm models: ok[c] = 1 when model c agrees on
 * every case (nan=any: a NaN with any NaN).  *cases: output elements.
 * 0, or -1 with a failure recorded. */
int rv_valid_check_at(rv *r, const fl_ref_model *ms, size_t nm, int *ok,
                      size_t *cases);
void rv_valid_free(rv_valid *v);
/* The model on every case: agreed count (under nan=any a NaN agrees with
 * any NaN: *nan_only counts those that agree only so; may be NULL); the
 * first disagreement as text (malloc'd into *cx when cx != NULL).
 * max_cases limits the cases replayed (0: all).  -1 on error (message in
 * r->err). */
int rv_valid_replay(rv *r, const rv_valid *v, const fl_ref_model *m,
                    size_t max_cases, size_t *agreed, size_t *replayed,
                    size_t *nan_only, char **cx);

/* Models that travel (lengths.c): the families with the revealed tree's
 * shape that replay at n, checked at other lengths; *model becomes the
 * first that fits them all, else its order the tree at n.  Fills
 * res->tree_lengths, order_travels, travel_note.  0, or -1 with a failure
 * recorded. */
int rv_lengths(rv *r, const rv_valid *v, const fl_reveal_tree *t,
               const rv_scale *sc, fl_ref_model *model);

/* The format of bit patterns as text ("0x3f800000 = 1 (0x1p+0)"). */
void rv_bits_str(const fl_format *f, uint64_t x, char *buf, size_t len);

#endif /* FPLAB_REVEAL_INTERNAL_H */
