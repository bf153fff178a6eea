/*
 * reveal.h — find the arithmetic model (fplab/ref.h) that reproduces a
 * black-box sum, dot or GEMM kernel bit for bit (part of libfplab).
 *
 * The kernel is a callback: it gets inputs as bit patterns and fills the
 * outputs (`fplab reveal` wraps a command in one; a program can pass its
 * own in-process kernel).  fl_reveal then
 *   1. calls it on fresh random and adversarial inputs, twice on the same
 *      first batch: a kernel whose two answers differ is nondeterministic
 *      and is not modelled;
 *   2. reveals the summation tree of an output element with FPRev's
 *      probes (Xie, Gao, Xue, "Revealing floating-point accumulation
 *      orders in software/hardware implementations", 2024): terms +M and
 *      -M at positions i and j, every other term a tiny u, so that the
 *      result counts the u's outside the subtree where i and j meet;
 *      batched over many pairs per call, adaptively (FPRev's pivot rounds)
 *      when all pairs do not fit.  A node where more than two subtrees
 *      meet at once is a fused multi-term addition (a block FMA);
 *   3. probes the accumulator in the style of Fasi, Higham, Mikaitis and
 *      Pranesh ("Numerical behavior of NVIDIA tensor cores", 2021):
 *      precision, rounding, fused or rounded products, block-FMA
 *      parameters, subnormal flushing, the start value, the output
 *      rounding and the NaN rules, with terms placed where the revealed
 *      tree makes them meet first; each finding is decided by simulating
 *      the candidate models on the probes;
 *   4. builds the model and checks it on the inputs of step 1 (at least
 *      10^5 cases by default): the model is FOUND only when every case
 *      agrees bit for bit; otherwise the closest model and the first
 *      counterexample are reported.
 *
 *   5. checks the order at other lengths (n for sum and dot, k for
 *      gemm): a named order (a family: pairwise:B, lanes, cascade:A,
 *      pairswap:B, ...) is kept only where pair probes and fresh inputs
 *      at n + 1 and a longer length (opts.lengths) agree with it; else
 *      the order is the tree at n, for n alone.
 *
 * Kernel contract (the shapes of one call):
 *   sum   a: x [batch][rows][n] -> out [batch][rows], the sum of each row
 *   dot   a, b: [batch][rows][n] -> out [batch][rows], row-wise dot products
 *   gemm  a: A [batch][m][k], b: B [batch][k][n] -> out: C [batch][m][n],
 *         C = A*B, matrix by matrix
 * All row-major; batch is 1 when the call is 2-D (call->batch == 0).
 * Inputs are in opts.in; the kernel states the format of its output in
 * call->out_format (the same in every call; call->set_out_format sets it
 * by name).  What varies from call to call:
 *   - rows (sum, dot): as many as fit opts.call_elems, unless opts.rows;
 *   - batch (gemm with opts.batch == 0 and opts.batch_trial): the first
 *     call is 2-D (batch 0); the second is 3-D with batch >= 2 matrices.
 *     A kernel that fails it (returns -1, states another format) or gives
 *     another matrix 0 than the 2-D call gets 2-D calls from then on; one
 *     that passes gets 3-D calls of any batch >= 2 (and 2-D calls for a
 *     lone matrix), and one 2-D call of probes checks that 2-D calls sum
 *     as the batched ones do.  With opts.batch = B every call has batch B;
 *   - n (sum, dot) or k (gemm): opts' value, except in step 5, whose calls
 *     have other lengths (opts.lengths; by default n + 1 and a longer
 *     one, and lengths that tell two candidate orders apart).
 * A Python callable bound to this callback therefore receives 2-D or 3-D
 * arrays whose leading and last dimensions change between calls.
 *
 * `fplab reveal --kernel-lib LIB.so:SYMBOL` loads SYMBOL, a function of
 * type fl_reveal_kernel, in a worker process started once: user is the
 * --kernel-arg string (or NULL); call->in points to the input format;
 * a crash or a hang (--timeout) stops only the worker.
 */
#ifndef FPLAB_REVEAL_H
#define FPLAB_REVEAL_H

#include <stddef.h>
#include <stdint.h>
#include "fplab/fplab.h"
#include "fplab/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel call. */
typedef struct fl_reveal_call {
    fl_ref_op op;
    const fl_format *in;   /* format of a and b */
    size_t batch;          /* leading batch dimension; 0: 2-D arrays */
    size_t rows;           /* sum, dot: rows; gemm: m */
    size_t n;              /* sum, dot: terms per row; gemm: columns of B, C */
    size_t k;              /* gemm: the reduced dimension; 0 otherwise */
    const uint64_t *a;     /* sum: x; dot: a; gemm: A */
    const uint64_t *b;     /* dot: b; gemm: B; sum: NULL */
    uint64_t *out;         /* the kernel's results, bit patterns */
    fl_format out_format;  /* set by the kernel */
    size_t index;          /* 0 for the first call, 1 for the next, ... */
    /* Added fields (after the ones above, which keep their places): */
    /* Sets out_format from a name fl_format_parse takes ("binary32",
     * "bfloat16", "fp16", ...): 0, or -1 for an unknown name.  For a
     * kernel that does not link fplab (a library loaded by `fplab reveal
     * --kernel-lib`, a Python callable); the same as
     * fl_reveal_set_out_format. */
    int (*set_out_format)(struct fl_reveal_call *call, const char *name);
} fl_reveal_call;

/* call->out_format = the format named (fl_format_parse's names); 0 or -1. */
int fl_reveal_set_out_format(fl_reveal_call *call, const char *name);

/* Number of output elements and of input elements (per operand) of a call. */
size_t fl_reveal_call_outputs(const fl_reveal_call *c);
size_t fl_reveal_call_inputs(const fl_reveal_call *c, int operand);

/* The kernel: fill call->out and call->out_format.  0, or -1 with a
 * message in err saying what went wrong (it is reported as the kernel's
 * failure; fl_reveal stops). */
typedef int (*fl_reveal_kernel)(void *user, fl_reveal_call *call, char *err,
                                size_t errlen);

typedef struct fl_reveal_opts {
    fl_ref_op op;
    size_t n;              /* sum, dot: terms; gemm: columns of B and C */
    size_t m, k;           /* gemm: A is m x k */
    size_t batch;          /* 0: 2-D calls; B >= 1: 3-D calls with B
                              matrices (gemm) or B blocks of rows (sum, dot) */
    size_t rows;           /* sum, dot: rows per call, 0: as many as fit */
    fl_format in;          /* the input format */
    uint64_t seed;         /* of the random inputs */
    size_t validate;       /* validation cases (rows of sum/dot, output
                              elements of gemm); default 100000 */
    size_t call_elems;     /* input elements per operand and call, at most
                              (default 1 << 24; fewer calls when larger) */
    int nthreads;          /* for the reference (0: every core) */
    /* Progress and findings, one line at a time (no newline); NULL: quiet. */
    void (*log)(void *user, const char *line);
    void *log_user;
    /* Added fields (after the ones above, which keep their places; set by
     * fl_reveal_opts_init): */
    int batch_trial;       /* gemm with batch 0: try one 3-D call (1, the
                              default; 0: every call 2-D), see the contract */
    size_t validate_calls; /* validation calls with data, at most (default
                              20; 0: no limit): fewer cases than `validate`
                              when each call holds few (2-D gemm calls) */
    const size_t *lengths; /* more lengths (sum, dot: n; gemm: k) to reveal */
    size_t nlengths;       /* the tree at, besides n (k); at most 8 */
    int lengths_auto;      /* 1 (default): when no named order has the tree
                              at n, reveal at n+1 and a longer length too
                              (see fl_reveal_result.order_travels) */
} fl_reveal_opts;

void fl_reveal_opts_init(fl_reveal_opts *o);

/* A revealed summation tree: leaves 0..n-1 are the terms; inner nodes
 * n .. n+nnodes-1 are in postorder (children first, the root last).  Node
 * j's children are kids[first[j] .. first[j+1]), ordered by their
 * smallest leaf, except where the kernel fuses a product into one side
 * (then the rounded side comes first, as the model reads it).  A node
 * with more than two children is one fused multi-term addition. */
typedef struct fl_reveal_tree {
    size_t n, nnodes;
    size_t *first;         /* nnodes + 1 offsets into kids */
    size_t *kids;          /* n + nnodes - 1 references */
} fl_reveal_tree;

void fl_reveal_tree_free(fl_reveal_tree *t);
/* Height of node r (leaves 0; a node 1 + its tallest child). */
size_t fl_reveal_tree_height(const fl_reveal_tree *t, size_t r);
/* The tree drawn as indented text, sequential runs of terms folded into
 * one line ("chain"); at most max_lines lines (0: no limit).  malloc'd,
 * NULL when out of memory. */
char *fl_reveal_tree_draw(const fl_reveal_tree *t, size_t max_lines);
/* The expression of order=tree:EXPR (binary trees only; NULL otherwise). */
char *fl_reveal_tree_expr(const fl_reveal_tree *t);

typedef enum fl_reveal_status {
    FL_REVEAL_FOUND = 0,       /* the model replays every validation case */
    FL_REVEAL_MISMATCH,        /* no model found replays every case */
    FL_REVEAL_NONDETERMINISTIC,/* two calls on one input differ */
    FL_REVEAL_UNREVEALED,      /* the probes' assumptions do not hold */
    FL_REVEAL_KERNEL_FAILED,   /* the kernel failed or wrote bad output */
    FL_REVEAL_BAD_OPTIONS
} fl_reveal_status;

typedef struct fl_reveal_result {
    fl_reveal_status status;
    fl_ref_model model;        /* FOUND: the model; MISMATCH: the closest */
    int have_model;
    fl_reveal_tree tree;       /* the revealed tree (have_tree) */
    int have_tree;
    fl_format out;             /* the kernel's output format */
    size_t cases, agreed;      /* validation: cases and bit-identical ones */
    char *counterexample;      /* MISMATCH: the first one, as text (malloc'd) */
    size_t calls;              /* kernel calls */
    double seconds;            /* the whole reveal */
    double kernel_seconds;     /* inside the kernel */
    char message[1024];        /* what happened, when status != FOUND */
    /* Added fields (after the ones above, which keep their places): */
    size_t nan_only;           /* of agreed: cases that agree only as a NaN
                                  against a NaN (model nan=any) */
    size_t valid_calls;        /* kernel calls that made validation cases
                                  (at most opts.validate_calls; the
                                  determinism repeat not counted) */
    size_t batch_max;          /* gemm: matrices per batched call after the
                                  batch trial succeeded; 0: 2-D calls (or a
                                  fixed opts.batch) */
    size_t tree_lengths[9];    /* the lengths whose trees were revealed */
    size_t ntree_lengths;      /* (the first is n, or k for gemm) */
    int order_travels;         /* 1: the model's order is one family that
                                  fits every tree revealed (a named order,
                                  or cascade:...): it computes every length;
                                  0: order=tree:EXPR, n (k) alone */
    char travel_note[512];     /* when 0: why (the trees at the other
                                  lengths, no family fits them) */
} fl_reveal_result;

/* Reveal the kernel.  Returns the status (also in res->status); res must
 * be freed with fl_reveal_result_free whatever the status. */
fl_reveal_status fl_reveal(const fl_reveal_opts *o, fl_reveal_kernel kernel,
                           void *user, fl_reveal_result *res);
void fl_reveal_result_free(fl_reveal_result *res);

/* The closing lines of a reveal's report, composed here once so that
 * `fplab reveal` and fplab.reveal (Python) say the same about the same
 * result.  Each returns malloc'd text, every line ending in '\n' ("" when
 * there is nothing to say), or NULL when out of memory.
 *
 * The outcome: FOUND "model: LINE"; MISMATCH, NONDETERMINISTIC and
 * UNREVEALED "closest model (A of C cases): LINE" when there is one and
 * "first counterexample: ..." when there is one; other statuses "" (their
 * res->message says what went wrong). */
char *fl_reveal_outcome_text(const fl_reveal_result *res);
/* What a FOUND model was checked on ("" for other statuses), three lines:
 *   sum: N terms per output element, DTYPE in, OUT out
 *     (gemm: "gemm: A M x K, B K x N, DTYPE in, OUT out[ (batched calls)]")
 *   validation: A of C cases bit-identical (seed S)
 *     (with nan=any: how many agree only as a NaN against a NaN)
 *   order: the lengths the order covers -- exact (every length), a family
 *     (every length; the lengths checked), or the tree at n (k) only and
 *     why (res->travel_note). */
char *fl_reveal_notes_text(const fl_reveal_opts *o,
                           const fl_reveal_result *res);
/* "kernel calls: N (K s in the kernel); reveal total T s". */
char *fl_reveal_calls_text(const fl_reveal_result *res);
/* The model file of a FOUND result (NULL otherwise): a header naming the
 * kernel (control characters as '?'), the notes as '#' comment lines, then
 * the canonical line -- what `fplab reveal --model-out` writes and
 * `fplab ref --model` reads. */
char *fl_reveal_model_file_text(const fl_reveal_opts *o,
                                const fl_reveal_result *res,
                                const char *kernel);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_REVEAL_H */
