/*
 * amp_tc.c — the tensor-core model behind the amp_accum seam.
 *
 * Two routes compute the same block FMA (tensorcore.h):
 *  - the generic one encodes every operand and calls fl_tc_block_fma
 *    (any model, any operand);
 *  - a fast one, for the measured variant (truncating alignment, products
 *    normalised once) when the operands are values of the model's input
 *    format of at most 12 bits (binary16, bfloat16), computes in binary64:
 *    a product of two such values is exact (<= 24 significant bits); with
 *    E the largest alignment exponent (floor(log2|a|) + floor(log2|b|) for
 *    a product, floor(log2|c|) for the accumulator) every term is cut
 *    toward zero to a multiple of 2^(E - 23 - neab), which is exact, and
 *    the at most 65 cut terms, each below 2^(E+2), are integers below
 *    2^(27 + neab) in that unit: their sum (< 2^34) is exact in binary64;
 *    the exact block result is then rounded once into the accumulator's
 *    format with the model's rounding, as fl_tc_block_fma rounds it.
 *    A block of exact zeros gives -0 only when every term is -0, as
 *    fl_tc_block_fma does; any non-finite operand takes the generic route.  tests/test_amp_tc.c
 *    checks the two routes bit for bit on random and crafted blocks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amp_tc.h"

/* floor(log2|x|) of a finite nonzero float */
static int ilog2f(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    int e = (int)((u >> 23) & 0xFF);
    return e ? e - 127 : ilogbf(x);
}

static int same_format(const fl_format *a, const fl_format *b)
{
    return a == b || (a->ebits == b->ebits && a->prec == b->prec &&
                      a->bias == b->bias && a->subnormals == b->subnormals &&
                      a->has_inf == b->has_inf && a->nan_style == b->nan_style &&
                      a->saturate == b->saturate && a->is_signed == b->is_signed);
}

int amp_tc_fast_ok(const fl_tc_model *m, const fl_format *in)
{
    return m->align == FL_TC_ALIGN_TRUNC && m->norm == FL_TC_NORM_ONCE &&
           m->in->prec <= 12 && m->in->ebits <= 8 && in && same_format(in, m->in);
}

/* 2^k as a double, |k| <= 1022 */
static double pow2(int k)
{
    uint64_t u = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* x (exact, nonzero, finite) rounded into accf under ctx without the
 * core, for the two cases the fast route meets (flags not wanted):
 * binary32 toward zero with a normal result (drop the 29 low bits of the
 * binary64 significand), binary16 to nearest even (rint in units of the
 * result's spacing; beyond 65504 infinity).  Returns 0, or -1 when the
 * core must round. */
static int round_quick(const fl_format *accf, const fl_ctx *ctx, double x,
                       double *r)
{
    double ax = fabs(x);
    if (accf == &fl_binary32 && ctx->rm == FL_RTZ) {
        if (!(ax >= 0x1p-126 && ax < 0x1p128))
            return -1;
        uint64_t u;
        memcpy(&u, &x, sizeof u);
        u &= ~(((uint64_t)1 << 29) - 1);
        memcpy(r, &u, sizeof u);
        return 0;
    }
    if (accf == &fl_binary16 && ctx->rm == FL_RNE) {
        int e = ilogb(x);
        double ulp = pow2(e < -14 ? -24 : e - 10);
        /* to even by the 1.5 * 2^52 trick: |x / ulp| < 2^13, and binary64
         * arithmetic rounds to nearest even (the default environment) */
        volatile double t = x / ulp + 0x1.8p52;
        double q = (t - 0x1.8p52) * ulp;
        /* a result that rounds to zero keeps the sign of x */
        *r = fabs(q) > 65504.0 ? copysign(INFINITY, x) : copysign(q, x);
        return 0;
    }
    return -1;
}

/* One block: c + sum a[i]*b[i] rounded into accf (binary32 or binary16)
 * under ctx; returns 0 and *out, or -1 when the generic route must run.
 * With flags the result is rounded by the core (its flags are wanted). */
static int fast_block(const fl_tc_model *m, const fl_format *accf,
                      const float *a, size_t sa, const float *b, size_t sb,
                      int n, float c, const fl_ctx *ctx, float *out,
                      unsigned *flags)
{
    double v[65];
    int al[65], nt = 0, emax = INT32_MIN, allneg0 = 1;
    for (int i = 0; i < n; i++) {
        float x = a[(size_t)i * sa], y = b[(size_t)i * sb];
        if (!isfinite(x) || !isfinite(y))
            return -1;
        if (x == 0.0f || y == 0.0f) {
            allneg0 &= signbit(x) != signbit(y);
            continue;
        }
        v[nt] = (double)x * (double)y;        /* exact: <= 24 bits */
        al[nt] = ilog2f(x) + ilog2f(y);
        if (al[nt] > emax)
            emax = al[nt];
        nt++;
    }
    if (!isfinite(c))
        return -1;
    if (c != 0.0f) {
        v[nt] = (double)c;
        al[nt] = ilog2f(c);
        if (al[nt] > emax)
            emax = al[nt];
        nt++;
    }
    if (nt == 0) {
        /* every term an exact zero: -0 only when all are -0 (the sign
         * rule of fl_tc_block_fma) */
        *out = allneg0 && signbit(c) ? -0.0f : 0.0f;
        return 0;
    }
    const int lsb = emax - 23 - m->neab;
    const double down = pow2(-lsb), up = pow2(lsb);
    double sum = 0.0;
    int cut = 0;
    for (int i = 0; i < nt; i++) {
        double q = v[i] * down;               /* exact: a power of two */
        double t = (double)(int64_t)q;        /* toward zero: |q| < 2^31 */
        cut |= t != q;
        sum += t;                              /* exact: integers < 2^34 */
    }
    if (sum == 0.0) {
        if (cut && flags)
            *flags |= FL_INEXACT;
        *out = 0.0f;
        return 0;
    }
    double x = sum * up, r;                   /* exact */
    if (flags || round_quick(accf, ctx, x, &r)) {
        unsigned fl = 0;
        r = fl_round_double(accf, x, ctx, &fl);
        if (flags)
            *flags |= fl | (cut ? FL_INEXACT : 0u);
    }
    *out = (float)r;                           /* exact: a value of accf */
    return 0;
}

/* The blocks of a dot product chained through an accumulator of format
 * accf, by the fast route block by block while it applies. */
static float fast_dot(const fl_tc_model *m, const fl_format *accf,
                      const float *a, size_t sa, const float *b, size_t sb,
                      size_t n, float c, unsigned *flags)
{
    fl_ctx ctx = fl_ctx_make(accf == &fl_binary16 ? FL_RNE : m->out_rm);
    ctx.nan = FL_NANP_CUDA;
    fl_ctx enc = FL_CTX_INIT;
    unsigned fl = 0, *flp = flags ? &fl : NULL;
    for (size_t i = 0; i < n;) {
        int k = m->block < 64 ? m->block : 64;
        if ((size_t)k > n - i)
            k = (int)(n - i);
        float r;
        if (fast_block(m, accf, a + i * sa, sa, b + i * sb, sb, k, c, &ctx, &r,
                       flp)) {
            uint64_t abuf[64], bbuf[64];
            for (int j = 0; j < k; j++) {
                abuf[j] = fl_from_float(m->in, a[(i + (size_t)j) * sa], &enc, &fl);
                bbuf[j] = fl_from_float(m->in, b[(i + (size_t)j) * sb], &enc, &fl);
            }
            uint64_t cb = fl_from_float(accf, c, &enc, &fl);
            uint64_t rb = fl_tc_block_fma_ctx(m, accf, abuf, bbuf, k, cb, &ctx, &fl);
            r = fl_to_float(accf, rb);
        }
        c = r;
        i += (size_t)k;
    }
    if (flags)
        *flags |= fl;
    return c;
}

/* A block FMA into the accumulator's format: fl_tc_block_fma (binary32)
 * or fl_tc_block_fma_f16 (binary16). */
typedef uint64_t block_fma_fn(const fl_tc_model *, const uint64_t *,
                              const uint64_t *, int, uint64_t, unsigned *);

/* The generic route of the two dots below: a and b rounded into m->in,
 * whole blocks of m->block chained through the accumulator of format accf
 * (binary32 or binary16, blk its block FMA), every block's result rounded
 * into it before the next block starts. */
static float generic_dot(const fl_tc_model *m, const fl_format *accf,
                         block_fma_fn *blk, const float *a, size_t sa,
                         const float *b, size_t sb, size_t n, float c,
                         unsigned *flags)
{
    fl_ctx ctx = FL_CTX_INIT;
    uint64_t abuf[64], bbuf[64];
    unsigned fl = 0;    /* flags may be NULL: collect locally */
    uint64_t acc = fl_from_float(accf, c, &ctx, &fl);
    size_t i = 0;
    while (i < n) {
        int k = 0;
        for (; k < m->block && k < 64 && i < n; k++, i++) {
            abuf[k] = fl_from_float(m->in, a[i * sa], &ctx, &fl);
            bbuf[k] = fl_from_float(m->in, b[i * sb], &ctx, &fl);
        }
        acc = blk(m, abuf, bbuf, k, acc, &fl);
    }
    if (flags)
        *flags |= fl;
    return fl_to_float(accf, acc);
}

/* The two dots below, with the accumulator of format accf (blk its block
 * FMA): the fast route where it applies to m and in, else the generic. */
static float block_dot(const fl_tc_model *m, const fl_format *in,
                       const fl_format *accf, block_fma_fn *blk,
                       const float *a, size_t sa, const float *b, size_t sb,
                       size_t n, float c, unsigned *flags)
{
    if (amp_tc_fast_ok(m, in))
        return fast_dot(m, accf, a, sa, b, sb, n, c, flags);
    return generic_dot(m, accf, blk, a, sa, b, sb, n, c, flags);
}

float amp_tc_block_dot(void *model, const fl_format *in, const float *a,
                       size_t sa, const float *b, size_t sb, size_t n,
                       float c, unsigned *flags)
{
    return block_dot(model, in, &fl_binary32, fl_tc_block_fma, a, sa, b, sb,
                     n, c, flags);
}

float amp_tc_block_dot16(void *model, const fl_format *in, const float *a,
                         size_t sa, const float *b, size_t sb, size_t n,
                         float c, unsigned *flags)
{
    return block_dot(model, in, &fl_binary16, fl_tc_block_fma_f16, a, sa, b,
                     sb, n, c, flags);
}

static int set_tc(amp_accum *acc, const char *model_name, int acc16)
{
    const fl_tc_model *m = fl_tc_model_by_name(model_name);
    if (!m)
        return -1;
    acc->kind = AMP_ACC_BLOCK;
    acc->block_dot = acc16 ? amp_tc_block_dot16 : amp_tc_block_dot;
    acc->block_model = (void *)m;
    acc->block_acc16 = acc16;
    return 0;
}

int amp_accum_set_tc(amp_accum *acc, const char *model_name)
{
    return set_tc(acc, model_name, 0);
}

int amp_accum_set_tc16(amp_accum *acc, const char *model_name)
{
    return set_tc(acc, model_name, 1);
}

float amp_tc_block_dot_generic(const fl_tc_model *m, const fl_format *accf,
                               const float *a, size_t sa, const float *b,
                               size_t sb, size_t n, float c, unsigned *flags)
{
    fl_ctx ctx = fl_ctx_make(accf == &fl_binary16 ? FL_RNE : m->out_rm);
    ctx.nan = FL_NANP_CUDA;
    fl_ctx enc = FL_CTX_INIT;
    uint64_t abuf[64], bbuf[64];
    unsigned fl = 0;
    uint64_t acc = fl_from_float(accf, c, &enc, &fl);
    for (size_t i = 0; i < n;) {
        int k = 0;
        for (; k < m->block && k < 64 && i < n; k++, i++) {
            abuf[k] = fl_from_float(m->in, a[i * sa], &enc, &fl);
            bbuf[k] = fl_from_float(m->in, b[i * sb], &enc, &fl);
        }
        acc = fl_tc_block_fma_ctx(m, accf, abuf, bbuf, k, acc, &ctx, &fl);
    }
    if (flags)
        *flags |= fl;
    return fl_to_float(accf, acc);
}
