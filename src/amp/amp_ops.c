/*
 * amp_ops.c — rounding helpers and the policy-driven matrix product.
 *
 * Exactness arguments used below (inputs are binary32 values):
 *  - a product of two binary32 values is exact in binary64 (48 <= 53 bits,
 *    exponents within [-298, 256]);
 *  - for inputs of at most 12 significant bits (binary16, bfloat16, fp8)
 *    the product is exact in binary32 too whenever |a*b| >= 2^-126, so the
 *    binary32 expression acc + a*b is the single-rounding FMA of hardware;
 *  - a binary64 sum s = x + y plus its two-sum error e gives the exact sum;
 *    forcing the last bit of s odd when e != 0 (round to odd) and then
 *    rounding to a format of precision p <= 51 is a correct single rounding
 *    (round-to-odd needs p + 2 <= 53 bits).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amp_ops.h"

int amp_format_is_f32(const fl_format *f)
{
    return f->ebits == 8 && f->prec == 24 && f->subnormals && f->has_inf &&
           f->nan_style == FL_NANSTYLE_IEEE && !f->saturate &&
           f->bias == 127 && f->is_signed;
}

void amp_round(const fl_format *f, float *x, size_t n, unsigned *flags)
{
    if (amp_format_is_f32(f) || n == 0)
        return;
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    fl_round_float_array(f, x, x, n, &c, &fl);
    if (flags)
        *flags |= fl;
}

/* x + y in binary64, rounded to odd: exact sum's truncation with the last
 * bit ORed with "inexact". */
static inline double add_rto(double x, double y)
{
    double s = x + y;
    if (!isfinite(s))
        return s;
    double yv = s - x;
    double e = (x - (s - yv)) + (y - yv);     /* Knuth two-sum */
    if (e != 0.0) {
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if (!(u & 1)) {
            /* move toward the exact value: away from zero if e has the
             * sign of s, else toward zero (the truncation) */
            if ((e > 0) == (s > 0))
                u += 1;
            else
                u -= 1;
            memcpy(&s, &u, sizeof u);
        }
    }
    return s;
}

/* Round binary64 values (exact or rounded-to-odd) into f as floats, under
 * ctx (NULL: round to nearest even). */
static void round_d_to_f(const fl_format *f, float *dst, double *tmp,
                         size_t n, const fl_ctx *ctx, unsigned *flags)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    fl_round_double_array(f, tmp, tmp, n, ctx ? ctx : &c, &fl);
    for (size_t i = 0; i < n; i++)
        dst[i] = (float)tmp[i];    /* exact: tmp[i] is a value of f */
    if (flags)
        *flags |= fl;
}

void amp_add_round(const fl_format *f, float *dst, const float *x,
                   const float *y, size_t n, unsigned *flags)
{
    amp_add_round_ctx(f, dst, x, y, n, NULL, flags);
}

void amp_add_round_ctx(const fl_format *f, float *dst, const float *x,
                       const float *y, size_t n, const fl_ctx *ctx,
                       unsigned *flags)
{
    if (amp_format_is_f32(f) && (!ctx || ctx->rm == FL_RNE)) {
        for (size_t i = 0; i < n; i++)
            dst[i] = x[i] + y[i];
        return;
    }
    double tmp[256];
    fl_ctx c = ctx ? *ctx : (fl_ctx)FL_CTX_INIT;
    for (size_t i0 = 0; i0 < n; i0 += 256) {
        size_t m = n - i0 < 256 ? n - i0 : 256;
        for (size_t i = 0; i < m; i++)
            tmp[i] = add_rto((double)x[i0 + i], (double)y[i0 + i]);
        c.sr_index = (ctx ? ctx->sr_index : 0) + i0;
        round_d_to_f(f, dst + i0, tmp, m, &c, flags);
    }
}

static const char *const acc_names[AMP_ACC_COUNT] = {
    "low", "fp32", "kahan", "pairwise", "block"};

int amp_accum_parse(const char *name)
{
    for (int k = 0; k < AMP_ACC_COUNT; k++)
        if (!strcmp(name, acc_names[k]))
            return k;
    if (!strcmp(name, "f32") || !strcmp(name, "binary32"))
        return AMP_ACC_F32;
    return -1;
}

const char *amp_accum_name(int kind)
{
    return (kind >= 0 && kind < AMP_ACC_COUNT) ? acc_names[kind] : "?";
}

/* Row m of the product with a binary32 accumulator: acc[n] += a*B[k][n] in
 * increasing k, vectorizable over n (each element's chain is sequential). */
static void row_f32(size_t N, size_t K, const float *Am, size_t a_sk,
                    const float *B, size_t ldb, float *acc)
{
    memset(acc, 0, N * sizeof *acc);
    for (size_t k = 0; k < K; k++) {
        const float a = Am[k * a_sk];
        const float *Bk = B + k * ldb;
        for (size_t n = 0; n < N; n++)
            acc[n] = acc[n] + a * Bk[n];
    }
}

static void row_kahan(size_t N, size_t K, const float *Am, size_t a_sk,
                      const float *B, size_t ldb, float *acc, float *comp)
{
    memset(acc, 0, N * sizeof *acc);
    memset(comp, 0, N * sizeof *comp);
    for (size_t k = 0; k < K; k++) {
        const float a = Am[k * a_sk];
        const float *Bk = B + k * ldb;
        for (size_t n = 0; n < N; n++) {
            float y = a * Bk[n] - comp[n];
            float t = acc[n] + y;
            comp[n] = (t - acc[n]) - y;
            acc[n] = t;
        }
    }
}

/* Pairwise: products p_k (rows of tmp, K x N), then a binary tree over k:
 * at stride w, row i += row i+w for i a multiple of 2w. */
static void row_pairwise(size_t N, size_t K, const float *Am, size_t a_sk,
                         const float *B, size_t ldb, float *acc, float *tmp)
{
    if (K == 0) {
        memset(acc, 0, N * sizeof *acc);
        return;
    }
    for (size_t k = 0; k < K; k++) {
        const float a = Am[k * a_sk];
        const float *Bk = B + k * ldb;
        float *t = tmp + k * N;
        for (size_t n = 0; n < N; n++)
            t[n] = a * Bk[n];
    }
    for (size_t w = 1; w < K; w *= 2)
        for (size_t i = 0; i + w < K; i += 2 * w) {
            float *x = tmp + i * N;
            const float *y = tmp + (i + w) * N;
            for (size_t n = 0; n < N; n++)
                x[n] = x[n] + y[n];
        }
    memcpy(acc, tmp, N * sizeof *acc);
}

/* Accumulator in the output format: acc = round_out(acc + a*b) with one
 * rounding per step (a fused multiply-add in `out`). */
static void row_low(const fl_format *out, size_t N, size_t K,
                    const float *Am, size_t a_sk, const float *B, size_t ldb,
                    const float *bias, float *acc, double *dtmp,
                    unsigned *flags)
{
    memset(acc, 0, N * sizeof *acc);
    for (size_t k = 0; k < K; k++) {
        const double a = Am[k * a_sk];
        const float *Bk = B + k * ldb;
        for (size_t n = 0; n < N; n++)
            dtmp[n] = add_rto((double)acc[n], a * (double)Bk[n]);
        round_d_to_f(out, acc, dtmp, N, NULL, flags);
    }
    if (bias) {
        for (size_t n = 0; n < N; n++)
            dtmp[n] = add_rto((double)acc[n], (double)bias[n]);
        round_d_to_f(out, acc, dtmp, N, NULL, flags);
    }
}

/* The position of a value of f on the line of its finite values: the
 * magnitude's encoding, negated for a negative sign (both zeros at 0), so
 * that the distance of two values is the number of spacings between them. */
static int64_t ordinal(const fl_format *f, float v)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t b = fl_from_float(f, fabsf(v), &c, &fl);
    return v < 0 ? -(int64_t)b : (int64_t)b;
}

/* Row m's outputs Cm (rounded into out) against the binary32-accumulated
 * reference, counted into st; ref is scratch of N floats. */
static void count_row(amp_accum_stats *st, const fl_format *out, size_t N,
                      size_t K, const float *Am, size_t a_sk, const float *B,
                      size_t ldb, const float *bias, const float *Cm,
                      float *ref)
{
    row_f32(N, K, Am, a_sk, B, ldb, ref);
    if (bias)
        for (size_t n = 0; n < N; n++)
            ref[n] = ref[n] + bias[n];
    amp_round(out, ref, N, NULL);
    for (size_t n = 0; n < N; n++) {
        if (!isfinite(ref[n]))
            continue;
        st->outputs++;
        if (!isfinite(Cm[n])) {
            st->nonfinite++;
            st->differ++;
            continue;
        }
        if (Cm[n] == ref[n])
            continue;
        st->differ++;
        st->zero += Cm[n] == 0.0f;
        int64_t d = ordinal(out, Cm[n]) - ordinal(out, ref[n]);
        uint64_t u = (uint64_t)(d < 0 ? -d : d);
        st->ulps += u;
        if (u > st->max_ulps)
            st->max_ulps = u;
    }
}

void amp_gemm(const amp_accum *acc, const fl_format *out, size_t M, size_t N,
              size_t K, const float *A, size_t a_sm, size_t a_sk,
              const float *B, size_t ldb, const float *bias, float *C,
              float *raw, unsigned *flags)
{
    int kind = acc ? acc->kind : AMP_ACC_F32;
    if (kind == AMP_ACC_BLOCK && !(acc && acc->block_dot))
        kind = AMP_ACC_F32;
    float *scratch = NULL;
    double *dtmp = NULL;
    if (kind == AMP_ACC_KAHAN)
        scratch = malloc(N * sizeof *scratch);
    else if (kind == AMP_ACC_PAIRWISE)
        scratch = malloc((K ? K : 1) * N * sizeof *scratch);
    else if (kind == AMP_ACC_LOW)
        dtmp = malloc((N ? N : 1) * sizeof *dtmp);
    if ((kind == AMP_ACC_KAHAN || kind == AMP_ACC_PAIRWISE) && !scratch)
        kind = AMP_ACC_F32;   /* out of memory: degrade, never crash */
    if (kind == AMP_ACC_LOW && !dtmp)
        kind = AMP_ACC_F32;
    amp_accum_stats *st = acc && kind != AMP_ACC_F32 ? acc->stats : NULL;
    float *ref = st ? malloc((N ? N : 1) * sizeof *ref) : NULL;
    if (!ref)
        st = NULL;   /* out of memory: no counts, never a crash */

    for (size_t m = 0; m < M; m++) {
        const float *Am = A + m * a_sm;
        float *Cm = C + m * N;
        switch (kind) {
        case AMP_ACC_LOW:
            row_low(out, N, K, Am, a_sk, B, ldb, bias, Cm, dtmp, flags);
            if (raw)
                memcpy(raw + m * N, Cm, N * sizeof *Cm);
            if (st)
                count_row(st, out, N, K, Am, a_sk, B, ldb, bias, Cm, ref);
            continue;   /* already rounded into out, bias included */
        case AMP_ACC_KAHAN:
            row_kahan(N, K, Am, a_sk, B, ldb, Cm, scratch);
            break;
        case AMP_ACC_PAIRWISE:
            row_pairwise(N, K, Am, a_sk, B, ldb, Cm, scratch);
            break;
        case AMP_ACC_BLOCK:
            /* The seam: the model sees the operands as values of `out`
             * (autocast: matmul inputs and output share the format). */
            for (size_t n = 0; n < N; n++)
                Cm[n] = acc->block_dot(acc->block_model, out, Am, a_sk,
                                       B + n, ldb, K, 0.0f, flags);
            break;
        default:
            row_f32(N, K, Am, a_sk, B, ldb, Cm);
            break;
        }
        if (bias)
            for (size_t n = 0; n < N; n++)
                Cm[n] = Cm[n] + bias[n];
        if (raw)
            memcpy(raw + m * N, Cm, N * sizeof *Cm);
        amp_round(out, Cm, N, flags);
        if (st)
            count_row(st, out, N, K, Am, a_sk, B, ldb, bias, Cm, ref);
    }
    free(scratch);
    free(dtmp);
    free(ref);
}

float amp_dot(const amp_accum *acc, const fl_format *out, const float *a,
              size_t sa, const float *b, size_t sb, size_t n,
              unsigned *flags)
{
    float c;
    amp_gemm(acc, out, 1, 1, n, a, 0, sa, b, sb, NULL, &c, NULL, flags);
    return c;
}
