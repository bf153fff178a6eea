/*
 * compare.c — the element-wise verdict (fplab/compare.h): classes, ulp
 * distances, tolerances, the histogram, the GEMM grid and the relative
 * error against a truth.
 *
 * The scan is built for memory speed.  Blocks of 64 elements are first
 * tested for bit-identity with an OR of XORs (a loop the compiler turns
 * into vector code); an identical block only needs its NaNs counted (also
 * vector code).  Blocks with a difference go element by element.  Threads
 * take contiguous parts and their counts are added in part order, so the
 * result does not depend on the thread count (the first index of the
 * largest distance is the smallest such index whatever the split).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fplab/compare.h"
#include "ref_internal.h"   /* ref_fan_out */

#define NONE UINT64_MAX
#define BLK 64

/* ---------------------------------------------------------------------
 * Buckets and distances.
 * ------------------------------------------------------------------- */

int fl_cmp_bucket(uint64_t d)
{
    /* 0 -> 0, 1 -> 1, then 2^(b-2) < d <= 2^(b-1) -> b */
    return d <= 1 ? (int)d : 65 - __builtin_clzll(d - 1);
}

void fl_cmp_bucket_range(int b, uint64_t *lo, uint64_t *hi)
{
    if (b <= 1) {
        *lo = *hi = (uint64_t)(b < 0 ? 0 : b);
        return;
    }
    if (b > FL_CMP_BUCKETS - 1)
        b = FL_CMP_BUCKETS - 1;
    *lo = ((uint64_t)1 << (b - 2)) + 1;
    *hi = b == 65 ? UINT64_MAX : (uint64_t)1 << (b - 1);
}

void fl_cmp_bucket_label(int b, char *buf, size_t len)
{
    uint64_t lo, hi;
    fl_cmp_bucket_range(b, &lo, &hi);
    if (lo == hi)
        snprintf(buf, len, "%llu", (unsigned long long)lo);
    else
        snprintf(buf, len, "%llu-%llu", (unsigned long long)lo,
                 (unsigned long long)hi);
}

static inline uint64_t wmask_of(const fl_format *f)
{
    return f->width >= 64 ? UINT64_MAX : ((uint64_t)1 << f->width) - 1;
}

/* In a format declared without subnormals the codes with exponent field
 * 0 are zeros (fl_classify reads them so): magnitudes 1..zero_run(f) are
 * the same point as 0.  0 elsewhere. */
static uint64_t zero_run(const fl_format *f)
{
    return fl_is_zero(f, 1) ? f->frac_mask : 0;
}

/* The ordinal of a non-NaN code (masked) whose magnitude is m: the number
 * of values strictly between 0 and it, plus one, signed. */
static inline int64_t ord_of(uint64_t m, int neg, uint64_t zrun)
{
    m = m > zrun ? m - zrun : 0;
    return neg ? -(int64_t)m : (int64_t)m;
}

int64_t fl_cmp_ord(const fl_format *f, uint64_t a)
{
    a &= wmask_of(f);
    return ord_of(a & ~f->sign_mask, (a & f->sign_mask) != 0, zero_run(f));
}

uint64_t fl_cmp_ulp_distance(const fl_format *f, uint64_t a, uint64_t b)
{
    int64_t x = fl_cmp_ord(f, a), y = fl_cmp_ord(f, b);
    /* |x - y| < 2^64: both are within +-(2^63 - 1) */
    return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

/* ---------------------------------------------------------------------
 * A prepared comparison.
 * ------------------------------------------------------------------- */

enum { DEC_TABLE, DEC_F32, DEC_F64, DEC_GENERIC };

/* The special codes, as the core classifies them (fl_classify; read at
 * ctx_init, not from the layout).  Positive encodings increase with their
 * value in every style (next.c), so for a code x (masked to the width) of
 * magnitude m = x & mag:
 *   m <= fin_hi                 a number (a zero, finite), except nan_code;
 *   m == fin_hi + 1, has_inf    an infinity, of x's sign;
 *   m >  nan_above              a NaN (nan_above = fin_hi + has_inf);
 *   x == nan_code, has_nan_code the NaN that is the sign bit alone (FNUZ,
 *                               signed P3109: they have no -0).
 * fin_hi is the descriptor's largest finite magnitude; whether the codes
 * above it and the sign bit alone are infinities or NaNs is asked of
 * fl_is_inf / fl_is_nan.  tests/test_compare_layouts.c checks this reading
 * against fl_classify on every code of every format of up to 16 bits. */
typedef struct cctx {
    const fl_format *f;
    size_t esize;
    uint64_t wmask, sign, mag;   /* width mask, sign bit, magnitude mask */
    uint64_t fin_hi;             /* magnitude > this: infinity or NaN */
    uint64_t nan_above;          /* magnitude > this: NaN */
    uint64_t inf_mag;            /* magnitude of infinity (has_inf) */
    int has_inf;
    uint64_t nan_code;           /* the sign bit alone, when it is a NaN */
    unsigned has_nan_code;
    uint64_t zrun;               /* zero_run(f): 0 unless no subnormals */
    fl_cmp_tol tol;
    int dec;                     /* how to get binary64 values (CLOSE) */
    double *tab;                 /* DEC_TABLE: every encoding's value */
} cctx;

static int is_f32(const fl_format *f)
{
    return f->width == 32 && f->ebits == 8 && f->prec == 24 &&
           f->nan_style == FL_NANSTYLE_IEEE && f->subnormals;
}

static int is_f64(const fl_format *f)
{
    return f->width == 64 && f->ebits == 11 && f->prec == 53 &&
           f->nan_style == FL_NANSTYLE_IEEE && f->subnormals;
}

/* need_values: 1 the values will be needed (relative error), 0 only when
 * the tolerance says so, -1 never a table (one pair: fl_to_double). */
static int ctx_init(cctx *c, const fl_format *f, size_t esize,
                    const fl_cmp_tol *tol, int need_values)
{
    memset(c, 0, sizeof *c);
    if (!f || f->width < 2 || f->width > 64 ||
        (esize != 1 && esize != 2 && esize != 4 && esize != 8) ||
        esize * 8 < f->width)
        return -1;
    c->f = f;
    c->esize = esize;
    c->wmask = wmask_of(f);
    c->sign = f->sign_mask;
    c->mag = c->wmask & ~f->sign_mask;
    c->fin_hi = f->max_bits & c->mag;
    c->has_inf = c->fin_hi < c->mag && fl_is_inf(f, c->fin_hi + 1);
    c->inf_mag = c->has_inf ? c->fin_hi + 1 : 0;
    c->nan_above = c->fin_hi + (uint64_t)c->has_inf;
    c->has_nan_code = c->sign && fl_is_nan(f, c->sign);
    c->nan_code = c->has_nan_code ? c->sign : 0;
    c->zrun = zero_run(f);
    if (tol)
        c->tol = *tol;
    c->dec = DEC_GENERIC;
    if (need_values || c->tol.kind == FL_CMP_TOL_CLOSE) {
        if (is_f32(f)) {
            c->dec = DEC_F32;
        } else if (is_f64(f)) {
            c->dec = DEC_F64;
        } else if (f->width <= 16 && need_values >= 0) {
            size_t m = (size_t)1 << f->width;
            c->tab = malloc(m * sizeof *c->tab);
            if (!c->tab)
                return -1;
            for (size_t i = 0; i < m; i++)
                c->tab[i] = fl_to_double(f, i);
            c->dec = DEC_TABLE;
        }
    }
    return 0;
}

static void ctx_free(cctx *c)
{
    free(c->tab);
    c->tab = NULL;
}

/* The value of a (non-NaN) encoding in binary64: exact for every format
 * that fits (fplab.h, fl_to_double). */
static inline double value(const cctx *c, uint64_t x)
{
    switch (c->dec) {
    case DEC_TABLE: return c->tab[x];
    case DEC_F32: { uint32_t u = (uint32_t)x; float v; memcpy(&v, &u, 4); return v; }
    case DEC_F64: { double v; memcpy(&v, &x, 8); return v; }
    default: return fl_to_double(c->f, x);
    }
}

/* Whether a code (masked to the width) is a NaN, an infinity. */
static inline int is_nan(const cctx *c, uint64_t x)
{
    return (x & c->mag) > c->nan_above || (c->has_nan_code && x == c->nan_code);
}

static inline int is_inf(const cctx *c, uint64_t x)
{
    return c->has_inf && (x & c->mag) == c->inf_mag;
}

/* One pair, both masked to the width. */
static inline fl_cmp_elem classify(const cctx *c, uint64_t x, uint64_t y)
{
    fl_cmp_elem e = {FL_CMP_EL_VALUE, 0, x == y, 0};
    uint64_t mx = x & c->mag, my = y & c->mag;
    int nx = is_nan(c, x), ny = is_nan(c, y);
    if (nx | ny) {
        e.cls = (nx & ny) ? FL_CMP_EL_NAN_BOTH
                          : nx ? FL_CMP_EL_NAN_KERNEL : FL_CMP_EL_NAN_REF;
        e.fail = !(nx & ny) || (c->tol.nan_payload && x != y);
        return e;
    }
    if (e.identical)
        return e;
    if (is_inf(c, x) || is_inf(c, y)) {
        e.cls = FL_CMP_EL_INF;
        e.fail = 1;
        return e;
    }
    int64_t ox = ord_of(mx, (x & c->sign) != 0, c->zrun);
    int64_t oy = ord_of(my, (y & c->sign) != 0, c->zrun);
    e.ulp = ox > oy ? (uint64_t)ox - (uint64_t)oy : (uint64_t)oy - (uint64_t)ox;
    /* different bits, same point, other sign: +0 and -0 (without
     * subnormals also zeros of other codes; same sign: not counted) */
    int zs = e.ulp == 0 && ((x ^ y) & c->sign) != 0;
    switch (c->tol.kind) {
    case FL_CMP_TOL_EXACT:
        e.fail = 1;
        break;
    case FL_CMP_TOL_ULP:
        e.fail = e.ulp > c->tol.ulp || (zs && c->tol.zero_sign);
        break;
    default: {
        double k = value(c, x), r = value(c, y);
        /* torch.isclose on float64: |k - r| <= atol + |rtol * r|, each
         * operation rounded to binary64, no fused multiply-add */
        double err = fabs(k - r), allowed = c->tol.atol + fabs(c->tol.rtol * r);
        e.fail = !(err <= allowed) || (zs && c->tol.zero_sign);
        break;
    }
    }
    return e;
}

fl_cmp_elem fl_cmp_one(const fl_format *f, uint64_t k, uint64_t r,
                       const fl_cmp_tol *tol)
{
    cctx c;
    fl_cmp_elem e = {FL_CMP_EL_VALUE, 1, 0, 0};
    if (ctx_init(&c, f, 8, tol, -1))
        return e;
    e = classify(&c, k & c.wmask, r & c.wmask);
    return e;
}

/* ---------------------------------------------------------------------
 * The scan.
 * ------------------------------------------------------------------- */

static void stats_init(fl_cmp_stats *s)
{
    memset(s, 0, sizeof *s);
    s->max_ulp_index = s->first_fail = s->first_nan = s->first_inf = NONE;
}

/* Account one pair that is not part of an identical block. */
static inline void account(const cctx *c, uint64_t x, uint64_t y, uint64_t i,
                           fl_cmp_stats *s)
{
    fl_cmp_elem e = classify(c, x, y);
    s->identical += (uint64_t)e.identical;
    if (e.fail) {
        s->fail++;
        if (s->first_fail == NONE)
            s->first_fail = i;
    }
    switch (e.cls) {
    case FL_CMP_EL_VALUE:
        s->values++;
        s->hist[fl_cmp_bucket(e.ulp)]++;
        /* +0 vs -0: the same point, other signs (as classify) */
        s->zero_sign += (uint64_t)(e.ulp == 0 && ((x ^ y) & c->sign) != 0);
        if (s->max_ulp_index == NONE || e.ulp > s->max_ulp) {
            s->max_ulp = e.ulp;   /* the first index keeps a tie */
            s->max_ulp_index = i;
        }
        break;
    case FL_CMP_EL_NAN_BOTH:
        s->nan_both++;
        s->nan_payload += (uint64_t)!e.identical;
        break;
    case FL_CMP_EL_NAN_KERNEL:
    case FL_CMP_EL_NAN_REF:
        if (e.cls == FL_CMP_EL_NAN_KERNEL)
            s->nan_kernel++;
        else
            s->nan_ref++;
        if (s->first_nan == NONE)
            s->first_nan = i;
        break;
    default:
        s->inf++;
        if (s->first_inf == NONE)
            s->first_inf = i;
        break;
    }
}

/* Whether the element x of storage type T is a NaN (is_nan as two
 * compares in T, which the compiler vectorises in T's lanes; wm, mag, thr,
 * ncode and nlim of the scan): the code ncode is x ^ ncode == 0, i.e.
 * below nlim = 1 when it is a NaN, and never below nlim = 0. */
#define T_NAN(T, x)                                                         \
    (((T)((x) & mag) > thr) | ((T)(((x) ^ ncode) & wm) < nlim))

/* An identical block [i, i + m): count its NaNs; the rest are value pairs
 * at distance 0. */
#define IDENTICAL_BLOCK(T)                                                  \
    do {                                                                    \
        unsigned nan = 0;                                                   \
        if (nlim)                                                           \
            for (size_t j = 0; j < m; j++)                                  \
                nan += T_NAN(T, k[i + j]);                                  \
        else    /* no NaN code: one compare (the baseline clone's speed) */ \
            for (size_t j = 0; j < m; j++)                                  \
                nan += (T)(k[i + j] & mag) > thr;                           \
        s->identical += m;                                                  \
        s->nan_both += nan;                                                 \
        s->values += m - nan;                                               \
        s->hist[0] += m - nan;                                              \
        if (s->max_ulp_index == NONE && nan < m) {                          \
            size_t j = 0;                                                   \
            while (T_NAN(T, k[i + j]))                                      \
                j++;                                                        \
            s->max_ulp_index = i + j;                                       \
        }                                                                   \
    } while (0)

/* The scan is compiled for AVX-512 and AVX2 besides the baseline and the
 * loader picks one for the CPU (GCC's target_clones); FPLAB_AVX512=OFF
 * leaves AVX-512 out (valgrind stops on it); sanitizer builds take the
 * baseline only (FPLAB_NO_IFUNC: a resolver runs before their runtime). */
#if defined(FPLAB_NO_IFUNC)
#define CMP_CLONES
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(FPLAB_AVX512)
#define CMP_CLONES __attribute__((target_clones("arch=x86-64-v4", \
                                                "arch=x86-64-v3", "default")))
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CMP_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CMP_CLONES
#endif

/* Values for the vector path of CLOSE: binary32 in 4-byte words, binary64
 * in 8-byte words (other layouts take the element path). */
static inline double vval_uint8_t(uint8_t x) { (void)x; return 0; }
static inline double vval_uint16_t(uint16_t x) { (void)x; return 0; }
static inline double vval_uint32_t(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}
static inline double vval_uint64_t(uint64_t x)
{
    double d;
    memcpy(&d, &x, 8);
    return d;
}

/* Whether a block of value pairs (no NaN, no infinity) can take the
 * vector path under this tolerance. */
static int vector_ok(const cctx *c)
{
    if (c->zrun)
        return 0;   /* the vector loop's ordinals are +-magnitude */
    if (c->tol.kind != FL_CMP_TOL_CLOSE)
        return 1;
    return (c->dec == DEC_F32 && c->esize == 4) ||
           (c->dec == DEC_F64 && c->esize == 8);
}

/* CLOSE on binary64 values, as classify() does it. */
static inline unsigned close_fail(double kv, double rv, double rtol, double atol)
{
    double err = kv - rv, al = rtol * rv;
    err = err < 0 ? -err : err;
    al = atol + (al < 0 ? -al : al);
    return (unsigned)!(err <= al);
}

/* The vector loop over a full block: FAIL is an expression of x, y, d, eq
 * and z (the pair, its distance, bit-identity, signed-zero difference). */
#define VLOOP(T, S, U, FAIL)                                                \
    do { for (size_t j = 0; j < BLK; j++) {                                 \
        T x = kb[j] & wm, y = rb[j] & wm;                                   \
        S ox = (S)(x & mag), oy = (S)(y & mag);                             \
        ox = (x & sg) ? -ox : ox;                                           \
        oy = (y & sg) ? -oy : oy;                                           \
        U d = ox > oy ? (U)ox - (U)oy : (U)oy - (U)ox;                      \
        unsigned eq = x == y, z = (d == 0) & !eq;                           \
        h0 += d == 0;                                                       \
        h1 += d == 1;                                                       \
        h2 += d == 2;                                                       \
        h3 += (U)(d - 3) <= 1;                                              \
        h4 += (U)(d - 5) <= 3;                                              \
        h5 += (U)(d - 9) <= 7;                                              \
        big += d > 16;                                                      \
        same += eq;                                                         \
        zs += z;                                                            \
        dmax = d > dmax ? d : dmax;                                         \
        nfail += FAIL;                                                      \
    } } while (0)

/* The scan of one storage width T, with S a signed type wide enough for
 * the ordinals (int32 for 8- and 16-bit words, int64 otherwise) and U its
 * unsigned twin.  Per block of 64 pairs:
 *   1. bit-identical block: count its NaNs (vector code);
 *   2. a NaN or infinity on either side: pair by pair (account);
 *   3. otherwise all are value pairs: distances, buckets 0..5 (distances
 *      up to 16), identical and signed-zero counts, failures and the block
 *      maximum are reductions the compiler vectorises; distances above 16
 *      and the first failure are found again in a scalar pass over the
 *      block, which only runs when there are some. */
#define DEFINE_SCAN(T, S, U)                                                \
    CMP_CLONES static void scan_##T(const cctx *c, const T *k, const T *r, size_t lo,  \
                         size_t hi, fl_cmp_stats *s)                        \
    {                                                                       \
        const T wm = (T)c->wmask, mag = (T)c->mag, sg = (T)c->sign;         \
        /* magnitudes above fhi are NaN or infinity; above thr NaN; the     \
         * code ncode is the NaN when nlim is 1 */                        \
        const T fhi = (T)c->fin_hi, thr = (T)c->nan_above;                  \
        const T ncode = (T)c->nan_code, nlim = (T)c->has_nan_code;          \
        const int vec = vector_ok(c), kind = c->tol.kind;                   \
        const U ulp = c->tol.ulp > (U)-1 ? (U)-1 : (U)c->tol.ulp;          \
        const int zstrict = c->tol.zero_sign;                               \
        const double rtol = c->tol.rtol, atol = c->tol.atol;               \
        for (size_t i = lo; i < hi;) {                                      \
            size_t m = hi - i < BLK ? hi - i : BLK;                         \
            const T *kb = k + i, *rb = r + i;                               \
            T acc = 0, sp = 0;                                              \
            for (size_t j = 0; j < m; j++)                                  \
                acc |= (T)(kb[j] ^ rb[j]);                                  \
            if (!(acc & wm)) {                                              \
                IDENTICAL_BLOCK(T);                                         \
                i += m;                                                     \
                continue;                                                   \
            }                                                               \
            unsigned ndiff = 0;                                             \
            for (size_t j = 0; j < m; j++) {                                \
                sp |= (T)((T)(kb[j] & mag) > fhi) |                         \
                      (T)((T)(rb[j] & mag) > fhi);                          \
                ndiff += (T)((kb[j] ^ rb[j]) & wm) != 0;                    \
            }                                                               \
            if (nlim)   /* the NaN that is the sign bit alone */            \
                for (size_t j = 0; j < m; j++)                              \
                    sp |= (T)((T)((kb[j] ^ ncode) & wm) < nlim) |           \
                          (T)((T)((rb[j] ^ ncode) & wm) < nlim);            \
            if (sp || !vec || m < BLK || s->max_ulp_index == NONE) {        \
                for (size_t j = 0; j < m; j++)                              \
                    account(c, kb[j] & wm, rb[j] & wm, i + j, s);           \
                i += m;                                                     \
                continue;                                                   \
            }                                                               \
            if (ndiff <= BLK / 8) {                                         \
                /* few differences: tally the identical pairs (value pairs, \
                 * no NaN here), the others one by one */                   \
                for (size_t j = 0; j < m; j++) {                            \
                    T x = kb[j] & wm, y = rb[j] & wm;                       \
                    if (x != y)                                             \
                        account(c, x, y, i + j, s);                         \
                }                                                           \
                s->identical += m - ndiff;                                  \
                s->values += m - ndiff;                                     \
                s->hist[0] += m - ndiff;                                    \
                i += m;                                                     \
                continue;                                                   \
            }                                                               \
            unsigned h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0;        \
            unsigned big = 0, same = 0, zs = 0, nfail = 0;                  \
            U dmax = 0;                                                     \
            /* one loop per tolerance kind: no branch inside */             \
            if (kind == FL_CMP_TOL_EXACT)                                   \
                VLOOP(T, S, U, (unsigned)!eq);                              \
            else if (kind == FL_CMP_TOL_ULP)                                \
                VLOOP(T, S, U, (unsigned)(d > ulp) | (z & (unsigned)zstrict)); \
            else                                                            \
                VLOOP(T, S, U, close_fail(vval_##T(x), vval_##T(y), rtol,   \
                                          atol) | (z & (unsigned)zstrict)); \
            s->hist[0] += h0;                                               \
            s->hist[1] += h1;                                               \
            s->hist[2] += h2;                                               \
            s->hist[3] += h3;                                               \
            s->hist[4] += h4;                                               \
            s->hist[5] += h5;                                               \
            s->values += m;                                                 \
            s->identical += same;                                           \
            s->zero_sign += zs;                                             \
            s->fail += nfail;                                               \
            if (big || (nfail && s->first_fail == NONE) ||                  \
                s->max_ulp_index == NONE || dmax > s->max_ulp) {            \
                /* the rare part again, pair by pair, in index order */     \
                for (size_t j = 0; j < m; j++) {                            \
                    fl_cmp_elem e = classify(c, kb[j] & wm, rb[j] & wm);    \
                    if (e.ulp > 16)                                         \
                        s->hist[fl_cmp_bucket(e.ulp)]++;                    \
                    if (e.fail && s->first_fail == NONE)                    \
                        s->first_fail = i + j;                              \
                    if (s->max_ulp_index == NONE || e.ulp > s->max_ulp) {   \
                        s->max_ulp = e.ulp;                                 \
                        s->max_ulp_index = i + j;                           \
                    }                                                       \
                }                                                           \
            }                                                               \
            i += m;                                                         \
        }                                                                   \
    }

DEFINE_SCAN(uint8_t, int32_t, uint32_t)
DEFINE_SCAN(uint16_t, int32_t, uint32_t)
DEFINE_SCAN(uint32_t, int64_t, uint64_t)
DEFINE_SCAN(uint64_t, int64_t, uint64_t)

static void scan(const cctx *c, const void *k, const void *r, size_t lo,
                 size_t hi, fl_cmp_stats *s)
{
    switch (c->esize) {
    case 1: scan_uint8_t(c, k, r, lo, hi, s); break;
    case 2: scan_uint16_t(c, k, r, lo, hi, s); break;
    case 4: scan_uint32_t(c, k, r, lo, hi, s); break;
    default: scan_uint64_t(c, k, r, lo, hi, s); break;
    }
}

/* Add part t (later in index order) into s. */
static void stats_merge(fl_cmp_stats *s, const fl_cmp_stats *t)
{
    s->n += t->n;
    s->identical += t->identical;
    s->nan_both += t->nan_both;
    s->nan_payload += t->nan_payload;
    s->nan_kernel += t->nan_kernel;
    s->nan_ref += t->nan_ref;
    s->inf += t->inf;
    s->zero_sign += t->zero_sign;
    s->values += t->values;
    for (int b = 0; b < FL_CMP_BUCKETS; b++)
        s->hist[b] += t->hist[b];
    if (t->max_ulp_index != NONE &&
        (s->max_ulp_index == NONE || t->max_ulp > s->max_ulp)) {
        s->max_ulp = t->max_ulp;
        s->max_ulp_index = t->max_ulp_index;
    }
    s->fail += t->fail;
    if (s->first_fail == NONE)
        s->first_fail = t->first_fail;
    if (s->first_nan == NONE)
        s->first_nan = t->first_nan;
    if (s->first_inf == NONE)
        s->first_inf = t->first_inf;
}

typedef struct part {
    const cctx *c;
    const void *k, *r;
    size_t lo, hi;
    fl_cmp_stats s;
} part;

static void *part_run(void *v)
{
    part *p = v;
    stats_init(&p->s);
    scan(p->c, p->k, p->r, p->lo, p->hi, &p->s);
    p->s.n = p->hi - p->lo;
    return NULL;
}

int fl_cmp_arrays(fl_cmp_stats *s, const fl_format *f, size_t esize,
                  const void *kernel, const void *ref, size_t n,
                  const fl_cmp_tol *tol, int nthreads)
{
    cctx c;
    stats_init(s);
    if (ctx_init(&c, f, esize, tol, 0))
        return -1;
    if (nthreads <= 0) {
        long np = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = np > 0 ? (int)np : 1;
    }
    if (nthreads > 64)
        nthreads = 64;
    size_t min_part = (size_t)1 << 18;
    if ((size_t)nthreads > n / min_part)
        nthreads = n / min_part > 0 ? (int)(n / min_part) : 1;
    part parts[64];
    for (int t = 0; t < nthreads; t++) {
        parts[t].c = &c;
        parts[t].k = kernel;
        parts[t].r = ref;
        parts[t].lo = n / (size_t)nthreads * (size_t)t;
        parts[t].hi = t == nthreads - 1 ? n : n / (size_t)nthreads * (size_t)(t + 1);
    }
    ref_fan_out(parts, sizeof parts[0], nthreads, part_run);
    for (int t = 0; t < nthreads; t++)
        stats_merge(s, &parts[t].s);
    ctx_free(&c);
    return 0;
}

static inline uint64_t load(const void *p, size_t esize, size_t i)
{
    switch (esize) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
    default: { uint64_t v; memcpy(&v, (const char *)p + 8 * i, 8); return v; }
    }
}

size_t fl_cmp_list(const fl_format *f, size_t esize, const void *kernel,
                   const void *ref, size_t n, const fl_cmp_tol *tol, int fail,
                   size_t from, uint64_t *idx, size_t max)
{
    cctx c;
    size_t got = 0;
    if (ctx_init(&c, f, esize, tol, 0))
        return 0;
    for (size_t i = from; i < n && got < max; i++) {
        fl_cmp_elem e = classify(&c, load(kernel, esize, i) & c.wmask,
                                 load(ref, esize, i) & c.wmask);
        if (fail ? e.fail : !e.identical)
            idx[got++] = i;
    }
    ctx_free(&c);
    return got;
}

/* ---------------------------------------------------------------------
 * The GEMM grid.
 * ------------------------------------------------------------------- */

void fl_cmp_grid_free(fl_cmp_grid *g)
{
    free(g->row_diff);
    free(g->col_diff);
    free(g->batch_diff);
    free(g->cell_diff);
    free(g->tile_diff);
    free(g->pos_diff);
    memset(g, 0, sizeof *g);
}

static size_t cdiv(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

/* One calloc for k arrays of n each; the pointers into it. */
static uint64_t *arrays(size_t n, int k, uint64_t **p0, uint64_t **p1,
                        uint64_t **p2, uint64_t **p3)
{
    size_t total;
    if (__builtin_mul_overflow(n, (size_t)k, &total))
        return NULL;
    uint64_t *a = calloc(total ? total : 1, sizeof *a);
    if (!a)
        return NULL;
    uint64_t **ps[4] = {p0, p1, p2, p3};
    for (int i = 0; i < k; i++)
        *ps[i] = a + (size_t)i * n;
    return a;
}

static inline void upmax(uint64_t *m, uint64_t v)
{
    if (v > *m)
        *m = v;
}

int fl_cmp_grid_run(fl_cmp_grid *g, const fl_format *f, size_t esize,
                    const void *kernel, const void *ref, const fl_cmp_tol *tol,
                    size_t batch, size_t rows, size_t cols, size_t cell_h,
                    size_t cell_w, size_t tile_h, size_t tile_w)
{
    cctx c;
    memset(g, 0, sizeof *g);
    if (!batch || !rows || !cols || (!tile_h) != (!tile_w) ||
        ctx_init(&c, f, esize, tol, 0))
        return -1;
    g->batch = batch;
    g->rows = rows;
    g->cols = cols;
    g->cell_h = cell_h ? cell_h : cdiv(rows, rows < 16 ? rows : 16);
    g->cell_w = cell_w ? cell_w : cdiv(cols, cols < 32 ? cols : 32);
    g->cells_r = cdiv(rows, g->cell_h);
    g->cells_c = cdiv(cols, g->cell_w);
    g->tile_h = tile_h;
    g->tile_w = tile_w;
    uint64_t *unused;
    int bad = !arrays(rows, 3, &g->row_diff, &g->row_fail, &g->row_max, &unused) ||
              !arrays(cols, 3, &g->col_diff, &g->col_fail, &g->col_max, &unused) ||
              !arrays(batch, 2, &g->batch_diff, &g->batch_fail, &unused, &unused) ||
              !arrays(g->cells_r * g->cells_c, 4, &g->cell_diff, &g->cell_fail,
                      &g->cell_max, &g->cell_n);
    if (!bad && tile_h) {
        g->tiles_r = cdiv(rows, tile_h);
        g->tiles_c = cdiv(cols, tile_w);
        bad = !arrays(g->tiles_r * g->tiles_c, 3, &g->tile_diff, &g->tile_fail,
                      &g->tile_max, &unused) ||
              !arrays(tile_h * tile_w, 2, &g->pos_diff, &g->pos_fail, &unused,
                      &unused);
    }
    if (bad) {
        ctx_free(&c);
        fl_cmp_grid_free(g);
        return -1;
    }
    for (size_t cr = 0; cr < g->cells_r; cr++)
        for (size_t cc = 0; cc < g->cells_c; cc++) {
            size_t h = cr + 1 < g->cells_r ? g->cell_h : rows - cr * g->cell_h;
            size_t w = cc + 1 < g->cells_c ? g->cell_w : cols - cc * g->cell_w;
            g->cell_n[cr * g->cells_c + cc] = (uint64_t)(h * w * batch);
        }
    size_t idx = 0;
    for (size_t b = 0; b < batch; b++)
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++, idx++) {
                uint64_t x = load(kernel, esize, idx) & c.wmask;
                uint64_t y = load(ref, esize, idx) & c.wmask;
                if (x == y)
                    continue;   /* identical: adds nothing but cell_n */
                fl_cmp_elem e = classify(&c, x, y);
                uint64_t sev = e.cls == FL_CMP_EL_VALUE ? e.ulp
                             : e.cls == FL_CMP_EL_NAN_BOTH ? 0
                             : FL_CMP_MAX_NONFINITE;
                uint64_t fl = (uint64_t)e.fail;
                g->row_diff[i]++;
                g->row_fail[i] += fl;
                upmax(&g->row_max[i], sev);
                g->col_diff[j]++;
                g->col_fail[j] += fl;
                upmax(&g->col_max[j], sev);
                g->batch_diff[b]++;
                g->batch_fail[b] += fl;
                size_t cell = i / g->cell_h * g->cells_c + j / g->cell_w;
                g->cell_diff[cell]++;
                g->cell_fail[cell] += fl;
                upmax(&g->cell_max[cell], sev);
                if (tile_h) {
                    size_t t = i / tile_h * g->tiles_c + j / tile_w;
                    size_t p = i % tile_h * tile_w + j % tile_w;
                    g->tile_diff[t]++;
                    g->tile_fail[t] += fl;
                    upmax(&g->tile_max[t], sev);
                    g->pos_diff[p]++;
                    g->pos_fail[p] += fl;
                }
            }
    ctx_free(&c);
    return 0;
}

/* ---------------------------------------------------------------------
 * Relative error against the truth.
 * ------------------------------------------------------------------- */

typedef struct rel_in {
    cctx cv, ct;
    const void *v, *t;
    size_t n;
} rel_in;

/* Relative error of element i; -1 when it is left out (*why: 1 nonfinite,
 * 2 zero truth). */
static inline double rel_at(const rel_in *in, size_t i, int *why)
{
    uint64_t x = load(in->v, in->cv.esize, i) & in->cv.wmask;
    uint64_t y = load(in->t, in->ct.esize, i) & in->ct.wmask;
    *why = 0;
    if (is_nan(&in->cv, x) || is_nan(&in->ct, y) || is_inf(&in->cv, x) ||
        is_inf(&in->ct, y)) {
        *why = 1;
        return -1;
    }
    double a = value(&in->cv, x), t = value(&in->ct, y);
    if (t == 0) {
        if (a == 0)
            return 0;
        *why = 2;
        return -1;
    }
    return fabs(a - t) / fabs(t);
}

/* Radix selection over the bit patterns of non-negative doubles (their
 * order is the order of the values): 16 bits per level, four levels.
 * Finds the k-th smallest (1-based) of each of nq requests in at most
 * four passes over the data. */
#define RAD 16
static int select_kth(const rel_in *in, int nq, const uint64_t *k, double *out)
{
    uint64_t prefix[3] = {0}, rank[3];
    uint64_t *h = malloc(3 * ((size_t)1 << RAD) * sizeof *h);
    if (!h)
        return -1;
    for (int q = 0; q < nq; q++)
        rank[q] = k[q];
    for (int level = 0; level < 64 / RAD; level++) {
        int shift = 64 - RAD * (level + 1);
        memset(h, 0, 3 * ((size_t)1 << RAD) * sizeof *h);
        for (size_t i = 0; i < in->n; i++) {
            int why;
            double r = rel_at(in, i, &why);
            if (why)
                continue;
            uint64_t b;
            memcpy(&b, &r, 8);
            for (int q = 0; q < nq; q++)
                if (level == 0 || b >> (shift + RAD) == prefix[q])
                    h[(size_t)q << RAD | (b >> shift & ((1u << RAD) - 1))]++;
        }
        for (int q = 0; q < nq; q++) {
            uint64_t *hq = h + ((size_t)q << RAD), acc = 0;
            size_t d = 0;
            while (d + 1 < ((size_t)1 << RAD) && acc + hq[d] < rank[q])
                acc += hq[d++];
            rank[q] -= acc;
            prefix[q] = prefix[q] << RAD | d;
        }
    }
    for (int q = 0; q < nq; q++)
        memcpy(&out[q], &prefix[q], 8);
    free(h);
    return 0;
}

int fl_cmp_relerr_run(fl_cmp_relerr *s, const fl_format *fv, size_t ev,
                      const void *v, const fl_format *ft, size_t et,
                      const void *truth, size_t n)
{
    rel_in in;
    memset(s, 0, sizeof *s);
    s->max_index = NONE;
    if (ctx_init(&in.cv, fv, ev, NULL, 1))
        return -1;
    if (ctx_init(&in.ct, ft, et, NULL, 1)) {
        ctx_free(&in.cv);
        return -1;
    }
    in.v = v;
    in.t = truth;
    in.n = n;
    /* the mean by a compensated sum (Neumaier), so it does not drift */
    double sum = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        int why;
        double r = rel_at(&in, i, &why);
        if (why) {
            s->nonfinite += why == 1;
            s->zero_truth += why == 2;
            continue;
        }
        s->count++;
        s->exact += r == 0;
        if (s->max_index == NONE || r > s->max) {
            s->max = r;
            s->max_index = i;
        }
        double t = sum + r;
        comp += fabs(sum) >= fabs(r) ? (sum - t) + r : (r - t) + sum;
        sum = t;
    }
    int rc = 0;
    if (s->count) {
        s->mean = (sum + comp) / (double)s->count;
        static const double qs[3] = {0.5, 0.9, 0.99};
        uint64_t k[3];
        double out[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++) {
            double kk = ceil(qs[q] * (double)s->count);
            k[q] = kk < 1 ? 1 : (uint64_t)kk;
        }
        rc = select_kth(&in, 3, k, out);
        s->median = out[0];
        s->p90 = out[1];
        s->p99 = out[2];
    }
    ctx_free(&in.cv);
    ctx_free(&in.ct);
    return rc;
}
