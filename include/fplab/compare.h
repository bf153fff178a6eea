/*
 * compare.h — the verdict on a kernel's output: element-wise comparison of
 * two arrays of encodings of one float format (a kernel's output and a
 * reference), with tolerances, ulp-distance histogram, NaN/infinity/signed-
 * zero accounting, the error's structure over a GEMM output (rows, columns,
 * tiles, K-blocks) and relative error against a correctly rounded truth.
 * `fplab compare` is a thin shell over these calls; a C/C++/CUDA host test
 * can call them on its own buffers.
 *
 * Arrays are raw encodings of a format f, one element per `esize` bytes
 * (1, 2, 4 or 8; at least f's width), little-endian host words; bits above
 * f's width are ignored.
 *
 * ULP DISTANCE.  ord(x) = M when x's sign bit is 0 and -M when it is 1,
 * where M is the encoding without its sign bit read as an unsigned integer
 * (an unsigned format: the whole code).  The ulp distance of a and b is
 * |ord(a) - ord(b)|: the number of nextUp steps from the smaller to the
 * larger, i.e. the distance in the format's ordered values.  +0 and -0 both
 * have ord 0 (one point: distance 0); -min_subnormal and +min_subnormal are
 * 2 apart; the largest finite value and infinity are 1 apart.  The same
 * rule serves every layout: IEEE (binary16/32/64, bfloat16, tf32, fp8
 * E5M2, ieee:E:M); E4M3 and the other FN formats (no infinity, the NaN
 * excluded); FNUZ and P3109 (no -0: the sign bit alone is the NaN, so
 * -min and +min are still 2 apart, 0 between them; P3109's infinities one
 * past the largest finite); unsigned formats (E5M3, E8M0 whose code 0 is
 * 2^-127, P3109 unsigned: ord is the code); FP6/FP4.  In a format declared
 * without subnormals the codes with exponent field 0 are zeros, one point:
 * M is counted from the smallest normal.  NaNs have no distance.
 *
 * NaN and infinity are the core's (fl_classify): IEEE's all-ones exponent;
 * FN's all-ones magnitude; FNUZ's and signed P3109's 0x80 (the sign bit
 * alone); P3109's infinities the all-ones magnitude (unsigned: the code
 * below the NaN, the all-ones code) in the extended domain, none in the
 * finite one; FP6/FP4 have neither.
 *
 * CLASSES of an element pair (kernel k, reference r), exactly one each:
 *   NaN both        a match whatever the payloads (unless nan_payload);
 *   NaN kernel/ref  a NaN on one side only: never within any tolerance;
 *   infinity        no NaN, an infinity on one side or both, and k != r
 *                   bit for bit (inf vs finite, +inf vs -inf): never
 *                   within any tolerance;
 *   value           everything else (equal infinities included): has an
 *                   ulp distance, counted in the histogram.
 * Bit-identical pairs are counted over all classes; signed-zero
 * differences (+0 vs -0: the same point, other signs) apart, none in a
 * format without -0.
 *
 * TOLERANCE (an element fails when outside):
 *   EXACT   bit-identical (NaN vs NaN matches unless nan_payload);
 *   ULP     ulp distance <= ulp;
 *   CLOSE   |k - r| <= atol + rtol * |r|, evaluated in binary64 from the
 *           exact values as torch.isclose does on float64 tensors
 *           (torch.testing.assert_close promotes floats to float64 first).
 * Under ULP and CLOSE a -0/+0 difference passes unless zero_sign is set.
 */
#ifndef FPLAB_COMPARE_H
#define FPLAB_COMPARE_H

#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_cmp_tol_kind {
    FL_CMP_TOL_EXACT = 0,
    FL_CMP_TOL_ULP = 1,
    FL_CMP_TOL_CLOSE = 2
} fl_cmp_tol_kind;

typedef struct fl_cmp_tol {
    int kind;             /* fl_cmp_tol_kind */
    uint64_t ulp;         /* FL_CMP_TOL_ULP */
    double rtol, atol;    /* FL_CMP_TOL_CLOSE */
    int nan_payload;      /* NaN matches NaN only bit for bit */
    int zero_sign;        /* +0 vs -0 fails under ULP and CLOSE too */
} fl_cmp_tol;

/* Element classes. */
enum {
    FL_CMP_EL_VALUE = 0,      /* has an ulp distance (identical or not) */
    FL_CMP_EL_NAN_BOTH = 1,
    FL_CMP_EL_NAN_KERNEL = 2,
    FL_CMP_EL_NAN_REF = 3,
    FL_CMP_EL_INF = 4
};

/* Histogram buckets of ulp distances: 0, 1, 2, 3-4, 5-8, 9-16, ...,
 * 2^62+1..2^63, 2^63+1..2^64-1. */
#define FL_CMP_BUCKETS 66

int fl_cmp_bucket(uint64_t d);
/* The distances a bucket holds: [*lo, *hi]. */
void fl_cmp_bucket_range(int b, uint64_t *lo, uint64_t *hi);
/* The same as text into buf (cut to len): "lo", or "lo-hi" when the
 * bucket holds more than one distance ("0", "3-4", "5-8"). */
void fl_cmp_bucket_label(int b, char *buf, size_t len);

int64_t fl_cmp_ord(const fl_format *f, uint64_t a);
/* |ord(a) - ord(b)| for non-NaN a, b. */
uint64_t fl_cmp_ulp_distance(const fl_format *f, uint64_t a, uint64_t b);

typedef struct fl_cmp_elem {
    int cls;              /* FL_CMP_EL_* */
    int fail;             /* outside the tolerance */
    int identical;        /* bit for bit */
    uint64_t ulp;         /* FL_CMP_EL_VALUE: the distance */
} fl_cmp_elem;

/* One pair (the definitions above, element by element). */
fl_cmp_elem fl_cmp_one(const fl_format *f, uint64_t k, uint64_t r,
                       const fl_cmp_tol *tol);

typedef struct fl_cmp_stats {
    uint64_t n;               /* elements */
    uint64_t identical;       /* bit-identical pairs, NaNs included */
    uint64_t nan_both;        /* NaN on both sides (a match) */
    uint64_t nan_payload;     /* ... of which the bits differ */
    uint64_t nan_kernel;      /* NaN in the kernel only */
    uint64_t nan_ref;         /* NaN in the reference only */
    uint64_t inf;             /* infinity disagreements */
    uint64_t zero_sign;       /* +0 vs -0 */
    uint64_t values;          /* pairs with a distance (sum of hist) */
    uint64_t hist[FL_CMP_BUCKETS];
    uint64_t max_ulp;         /* over the value pairs */
    uint64_t max_ulp_index;   /* first index attaining it; UINT64_MAX: none */
    uint64_t fail;            /* elements outside the tolerance */
    uint64_t first_fail;      /* UINT64_MAX: none */
    uint64_t first_nan;       /* first NaN disagreement; UINT64_MAX: none */
    uint64_t first_inf;       /* first infinity disagreement */
} fl_cmp_stats;

/* Compare n elements.  nthreads <= 0: one per online processor (at least
 * 2^18 elements each); the result is the same for every thread count.
 * 0, or -1 when esize or f is unusable. */
int fl_cmp_arrays(fl_cmp_stats *s, const fl_format *f, size_t esize,
                  const void *kernel, const void *ref, size_t n,
                  const fl_cmp_tol *tol, int nthreads);

/* Up to max indices from `from` on: the failing elements, or (fail == 0)
 * the elements that are not bit-identical.  Returns how many were found. */
size_t fl_cmp_list(const fl_format *f, size_t esize, const void *kernel,
                   const void *ref, size_t n, const fl_cmp_tol *tol,
                   int fail, size_t from, uint64_t *idx, size_t max);

/* ------------------------------------------------------------------------
 * Where the differences are, over a GEMM output viewed as batch x rows x
 * cols (C order).  "diff": not bit-identical; "fail": outside tolerance;
 * "max": the largest ulp distance, FL_CMP_MAX_NONFINITE for a NaN or
 * infinity disagreement.
 * ---------------------------------------------------------------------- */
#define FL_CMP_MAX_NONFINITE UINT64_MAX

typedef struct fl_cmp_grid {
    size_t batch, rows, cols;
    uint64_t *row_diff, *row_fail, *row_max;      /* rows */
    uint64_t *col_diff, *col_fail, *col_max;      /* cols */
    uint64_t *batch_diff, *batch_fail;            /* batch */
    /* a map of cells_r x cells_c cells of cell_h x cell_w elements each
     * (the last row/column of cells may be smaller) */
    size_t cell_h, cell_w, cells_r, cells_c;
    uint64_t *cell_diff, *cell_fail, *cell_max, *cell_n;
    /* tiles of tile_h x tile_w (0: none given) */
    size_t tile_h, tile_w, tiles_r, tiles_c;
    uint64_t *tile_diff, *tile_fail, *tile_max;   /* tiles_r x tiles_c */
    uint64_t *pos_diff, *pos_fail;                /* tile_h x tile_w:
                                                     position inside a tile */
} fl_cmp_grid;

/* cell_h/cell_w 0: chosen so the map has at most 16 x 32 cells.  tile_h
 * and tile_w 0: no tiles.  0, or -1 (bad sizes, out of memory). */
int fl_cmp_grid_run(fl_cmp_grid *g, const fl_format *f, size_t esize,
                    const void *kernel, const void *ref, const fl_cmp_tol *tol,
                    size_t batch, size_t rows, size_t cols, size_t cell_h,
                    size_t cell_w, size_t tile_h, size_t tile_w);
void fl_cmp_grid_free(fl_cmp_grid *g);

/* ------------------------------------------------------------------------
 * K-blocks: which block of the summation a difference follows.  For each
 * sampled output (b, i, j) with difference e = kernel - reference (binary64)
 * and each block q of kblock terms, P_q = sum over k in q of
 * A(b, i, k) * B(b, k, j) in binary64.  Per block: coef = sum(e P_q) /
 * sum(P_q^2) (the least-squares multiple of the block in the difference)
 * and share = sum(e P_q)^2 / (sum(e^2) sum(P_q^2)) (the squared
 * correlation: 1 when the difference is exactly c * P_q).  A dropped block
 * shows as coef -1 and share near 1, a block added twice as +1.
 * ---------------------------------------------------------------------- */
typedef double (*fl_cmp_operand_fn)(const void *ctx, size_t b, size_t i,
                                    size_t k);

int fl_cmp_kblocks(fl_cmp_operand_fn a, const void *actx, fl_cmp_operand_fn b,
                   const void *bctx, size_t K, size_t kblock, size_t nsamples,
                   const size_t *sb, const size_t *si, const size_t *sj,
                   const double *e, double *coef, double *share);

/* ------------------------------------------------------------------------
 * Relative error against a truth (the correctly rounded result):
 * |v - t| / |t| in binary64.  Pairs with a NaN or infinity on either side
 * are left out and counted; truth 0 with v == 0 counts as error 0, truth 0
 * with v != 0 is left out and counted.  Percentiles are exact (the k-th
 * smallest, k = ceil(q * count)).
 * ---------------------------------------------------------------------- */
typedef struct fl_cmp_relerr {
    uint64_t count;           /* pairs in the statistics */
    uint64_t exact;           /* ... with v == t */
    uint64_t nonfinite;       /* left out: NaN or infinity on a side */
    uint64_t zero_truth;      /* left out: t == 0, v != 0 */
    double max, mean, median, p90, p99;
    uint64_t max_index;       /* first index of max; UINT64_MAX: none */
} fl_cmp_relerr;

int fl_cmp_relerr_run(fl_cmp_relerr *s, const fl_format *fv, size_t ev,
                      const void *v, const fl_format *ft, size_t et,
                      const void *truth, size_t n);

/* ------------------------------------------------------------------------
 * The verdict as a report: what `fplab compare` prints and writes with
 * --json, computed by the library so that every caller (the CLI, the
 * Python package, a C test) gives the same text and JSON for the same
 * arrays.  The report holds
 *   - a header (names, format, shape, model lines, the tolerance in words);
 *   - the counts (bit-identical, NaN and infinity disagreements, +0 vs
 *     -0, outside tolerance) and the ulp histogram;
 *   - the largest ulp distance and the first NaN and infinity
 *     disagreements, each with its operands when inputs are given;
 *   - the first `show` mismatches;
 *   - with an exact result: relative errors of kernel and reference and a
 *     sentence comparing them;
 *   - with gemm: where the differences are (rows, columns, tiles, a text
 *     map), the K-block fit, and a figure drawn by the caller's hook;
 *   - the verdict.
 *
 * LAYOUT of the inputs relative to the output (for the operands shown at
 * an element):
 *   elementwise  every input has the output's shape (or is 0-d);
 *   reduction    one input of shape out.shape + (K,): a sum along the last
 *                axis;
 *   dot          two such inputs: row-wise dot products;
 *   gemm         A (M, K) or (batch, M, K), B (K, N) or (batch, K, N)
 *                (ta: A stored (K, M); tb: B stored (N, K)), output (M, N)
 *                or (batch, M, N); a third input is C.
 * With gemm asked for (o->gemm, or ta/tb), the GEMM reading is tried first
 * (a square GEMM's inputs also have the output's shape).
 * ---------------------------------------------------------------------- */
#define FL_CMP_MAXDIM 8

/* An array of encodings with its shape and how to name it. */
typedef struct fl_cmp_tensor {
    fl_format f;            /* the format its elements hold */
    size_t esize;           /* bytes per element: 1, 2, 4 or 8 */
    const void *data;       /* n elements in C order, n = prod(shape) */
    int ndim;               /* 0..FL_CMP_MAXDIM */
    size_t shape[FL_CMP_MAXDIM];
    const char *name;       /* shown: a file name, "actual", ... */
    const char *dtype;      /* its container's dtype name ("float16",
                               "bfloat16", "uint16") */
    int holds_bits;         /* 1: not the format's own dtype (bit patterns
                               in an integer container where a float dtype
                               exists): a format mismatch then says that
                               the caller names what the patterns hold */
} fl_cmp_tensor;

/* Elements of a tensor (prod(shape); 1 for 0-d). */
size_t fl_cmp_tensor_size(const fl_cmp_tensor *t);
/* "float32 (3, 4)", or for an unsigned container (dtype "uint...")
 * "uint16 holding bfloat16 (3, 4)". */
void fl_cmp_tensor_describe(const fl_cmp_tensor *t, char *buf, size_t len);

/* A figure of the differences, drawn by the caller (the CLI's gnuplot heat
 * map): g is a grid of at most 256 x 256 cells over the output, title a
 * line naming both arrays.  Returns 0 with the figure's path in png, 1
 * when no figure was made (a warning is the hook's to give: the verdict
 * stands), or -1 on an error (message in err: the report fails). */
typedef int (*fl_cmp_plot_fn)(void *user, const fl_cmp_grid *g,
                              const char *title, char *png, size_t pnglen,
                              char *err, size_t errlen);

typedef struct fl_cmp_report_opts {
    fl_cmp_tol tol;           /* kind, ulp, rtol/atol, nan_payload,
                                 zero_sign */
    int torch_defaults;       /* CLOSE with torch.testing.assert_close's
                                 rtol/atol for the format (overrides
                                 tol.kind, rtol and atol) */
    uint64_t show;            /* list the first `show` mismatches */
    int gemm;                 /* the GEMM view (2-D or 3-D output) */
    size_t tile_h, tile_w;    /* the kernel's output tile (0: none) */
    size_t kblock;            /* K-block fit (needs gemm inputs A, B) */
    int ta, tb;               /* GEMM inputs stored transposed */
    const char *model;        /* the reference's model line, or NULL */
    const char *kernel_model; /* the kernel's model line, or NULL */
    int nthreads;             /* for the scan (<= 0: every core) */
    fl_cmp_plot_fn plot;      /* with gemm: draw the figure (NULL: none) */
    void *plot_user;
} fl_cmp_report_opts;

/* Zero: bit-identical required, nothing extra. */
void fl_cmp_report_opts_init(fl_cmp_report_opts *o);

/* torch.testing.assert_close's default rtol and atol for the dtype that
 * holds f (float16, bfloat16, float32 -- also for tf32 --, float64), and
 * that dtype's description; NULL and 0/0 for formats torch has none for. */
const char *fl_cmp_torch_defaults(const fl_format *f, double *rtol,
                                  double *atol);

typedef struct fl_cmp_report fl_cmp_report;

/* Compare kernel with ref and build the report.  inputs: the kernel's
 * operands (ninputs, may be 0), exact: the correctly rounded result (NULL:
 * none), o: the options (NULL: fl_cmp_report_opts_init's).  Everything is
 * checked before anything is computed: formats and
 * shapes of kernel and ref agree, exact has their shape, gemm needs a 2-D
 * or 3-D output, kblock needs inputs that form a GEMM with it.  Returns 0
 * with *out set (free with fl_cmp_report_free), or -1 with a message in err
 * (*out NULL) that names the arrays by their names. */
int fl_cmp_report_run(fl_cmp_report **out, const fl_cmp_tensor *kernel,
                      const fl_cmp_tensor *ref, const fl_cmp_tensor *inputs,
                      int ninputs, const fl_cmp_tensor *exact,
                      const fl_cmp_report_opts *o, char *err, size_t errlen);
/* The text `fplab compare` prints (lines ending in newlines). */
const char *fl_cmp_report_text(const fl_cmp_report *r);
/* The JSON `fplab compare --json` writes (two-space indent, a final
 * newline); malloc'd, NULL when out of memory. */
char *fl_cmp_report_json(const fl_cmp_report *r);
/* The counts; 1 when every element is within the tolerance. */
const fl_cmp_stats *fl_cmp_report_stats(const fl_cmp_report *r);
int fl_cmp_report_pass(const fl_cmp_report *r);
void fl_cmp_report_free(fl_cmp_report *r);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_COMPARE_H */
