/*
 * sqrt.c — fl_sqrt: square root with one rounding.
 *
 * Only k = prec + 2 root bits are needed (a round bit, and the sticky
 * bit below it; stochastic rounding with N supplied bits takes N more).  The significand is rescaled to an integer n in
 * [4^(k-1), 4^k) with value = n * 4^s; the shift loses nothing because n
 * keeps at least 2k - 2 > prec bits.  Then r = floor(sqrt(n)) has exactly
 * k bits, sqrt(value) = sqrt(n) * 2^s, and a nonzero remainder n - r^2
 * puts the exact root strictly between r and r + 1, which the sticky bit
 * r | 1 represents.  The integer square root is the classical
 * digit-by-digit method (exact, no floating point) in 64-bit arithmetic
 * when n fits (prec <= 30), refined by one integer Newton step for wider
 * formats.
 */
#include "internals.h"
#ifndef __CUDACC__
#include "hooks.h"   /* the seam: src/accel/hooks.h */
#endif

/* floor(sqrt(n)) for n < 4^k, k <= 32; *rem = n - root^2. */
static FPLAB_HOSTDEV uint64_t isqrt64(uint64_t n, int k, uint64_t *rem)
{
    /* Invariant before the step with bit = 4^j, with t = floor(sqrt(n) /
     * 2^(j+1)) the root bits found so far: res = t * 4^(j+1) and
     * r = n - (t * 2^(j+1))^2 >= 0.  res + bit < 2^(2k) at every step. */
    uint64_t r = n, res = 0, bit = (uint64_t)1 << (2 * k - 2);
    while (bit != 0) {
        /* branch-free: the digit is 1 about half the time, unpredictably */
        const uint64_t t = res + bit;
        const uint64_t take = (uint64_t)0 - (uint64_t)(r >= t);
        r -= t & take;
        res = (res >> 1) + (bit & take);
        bit >>= 2;
    }
    *rem = r;
    return res;
}

/* floor(sqrt(n)) for 4^(k-1) <= n < 4^k, 32 < k <= 55.  The top 32 root
 * bits come from isqrt64 of n >> 2m (m = k - 32), so x0 = (y + 1) * 2^m
 * is above sqrt(n) by at most 2^m.  One integer Newton step
 * x1 = floor((x0 + floor(n / x0)) / 2) never falls below floor(sqrt(n))
 * and overshoots sqrt(n) by at most (x0 - sqrt(n))^2 / (2 x0) <=
 * 2^(2m) / 2^k = 2^(k - 64) < 1, so x1 is floor(sqrt(n)) or one more; the
 * exact square decides. */
static FPLAB_HOSTDEV uint64_t isqrt_wide(fl_u128 n, int k, int *inexact)
{
    const int m = k - 32;
    uint64_t rem, y, x;
    fl_u128 sq;

    y = isqrt64((uint64_t)(n >> (2 * m)), 32, &rem);
    x = (y + 1) << m;                                  /* <= 2^k */
    x = (x + (uint64_t)(n / x)) >> 1;
    sq = (fl_u128)x * x;
    if (sq > n) {
        x--;
        sq = (fl_u128)x * x;
    }
    *inexact = sq != n;
    return x;
}

FPLAB_HOSTDEV uint64_t fl_sqrt(const fl_format *f, uint64_t a,
                               const fl_ctx *c, unsigned *flags)
{
    FL__ACCEL_HOOK(fl__accel_sqrt(f, a, c, flags));
    const fl_unp x = fl__unpack(f, a, c);
    /* root bits, <= 55: a round bit and the sticky below it, and under
     * FL_RSB as many more as there are random bits (their comparison needs
     * the discarded part to N + 1 bits: exact while prec + N <= 53) */
    const int k = c->rm == FL_RSB && f->prec + 2 + c->sr_nbits <= 55
                      ? f->prec + 2 + c->sr_nbits
                  : c->rm == FL_RSB ? 55 : f->prec + 2;
    int32_t top, s;
    uint64_t r;
    int inexact;

    if (fl__is_nan_cls(x.cls)) {
        const uint64_t ops[1] = { a };
        return fl__nan_result(f, c, ops, 1, flags);
    }
    if (x.cls == FL_U_ZERO)
        return fl__pack_zero(f, c, x.sign, flags);               /* sqrt(-0) = -0 */
    if (x.sign)
        return fl__invalid(f, c, flags);               /* negative, -inf */
    if (x.cls == FL_U_INF)
        return fl__pack_inf(f, 0, c, flags);

    /* value = sig * 2^(e - 63).  n = sig * 2^(top - 63) has its leading
     * bit at position top in {2k - 2, 2k - 1}, chosen so that e - top = 2s
     * is even: value = n * 4^s. */
    top = 2 * k - 2 + ((x.exp - (2 * k - 2)) & 1);
    s = (x.exp - top) / 2;                             /* exact: even */
    if (top <= 63) {
        /* sig has at most prec <= top significant bits: exact shift */
        uint64_t rem;
        r = isqrt64(x.sig >> (63 - top), k, &rem);
        inexact = rem != 0;
    } else {
        r = isqrt_wide((fl_u128)x.sig << (top - 63), k, &inexact);
    }
    /* sqrt(value) = r * 2^s = r * 2^((s + 63) - 63) */
    return fl__round_pack(f, c, 0, s + 63, r | (uint64_t)inexact, flags);
}
