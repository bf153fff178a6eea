/*
 * bignum.c — fixed-capacity natural numbers for the text conversions.
 *
 * Only what parse.c and print.c need: multiply by a small number, by a
 * power of five and by a power of two, divide by a small number, one long
 * division (Knuth's Algorithm D, TAOCP vol. 2, 4.3.1), leading bits with
 * sticky, and decimal digits.
 */
#include "bignum.h"

static void bn_trim(fl__bn *a)
{
    while (a->n > 0 && a->d[a->n - 1] == 0)
        a->n--;
}

static int clz32(uint32_t x)
{
    /* x != 0 */
    return __builtin_clz(x);
}

void fl__bn_set_u64(fl__bn *a, uint64_t v)
{
    a->ovf = 0;
    a->d[0] = (uint32_t)v;
    a->d[1] = (uint32_t)(v >> 32);
    a->n = 2;
    bn_trim(a);
}

void fl__bn_mul_add_small(fl__bn *a, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    for (int i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->d[i] * m + carry;
        a->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        if (a->n == FL__BN_LIMBS) {
            a->ovf = 1;
            return;
        }
        a->d[a->n++] = (uint32_t)carry;
    }
}

void fl__bn_mul_pow5(fl__bn *a, int32_t k)
{
    /* 5^13 = 1220703125 is the largest power of five below 2^32. */
    static const uint32_t pow5[14] = {
        1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u,
        1953125u, 9765625u, 48828125u, 244140625u, 1220703125u
    };
    while (k >= 13) {
        fl__bn_mul_add_small(a, pow5[13], 0);
        k -= 13;
    }
    if (k > 0)
        fl__bn_mul_add_small(a, pow5[k], 0);
}

void fl__bn_shl(fl__bn *a, int32_t bits)
{
    if (a->n == 0 || bits <= 0)
        return;
    int32_t limbs = bits / 32, sh = bits % 32;
    int32_t n = a->n + limbs + 1;
    if (n > FL__BN_LIMBS) {
        /* the top limb may still fit if the shifted-in part is empty */
        if (n - 1 > FL__BN_LIMBS
            || (sh != 0 && (a->d[a->n - 1] >> (32 - sh)) != 0)) {
            a->ovf = 1;
            return;
        }
        n = FL__BN_LIMBS;
    }
    for (int32_t i = n - 1; i >= 0; i--) {
        int32_t src = i - limbs;       /* limb supplying the high part */
        uint32_t hi = (src >= 0 && src < a->n) ? a->d[src] : 0;
        uint32_t lo = (src - 1 >= 0 && src - 1 < a->n) ? a->d[src - 1] : 0;
        a->d[i] = sh ? (hi << sh) | (lo >> (32 - sh)) : hi;
    }
    a->n = n;
    bn_trim(a);
}

int32_t fl__bn_bitlen(const fl__bn *a)
{
    if (a->n == 0)
        return 0;
    return 32 * a->n - clz32(a->d[a->n - 1]);
}

uint32_t fl__bn_div_small(fl__bn *a, uint32_t d)
{
    uint64_t r = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t t = (r << 32) | a->d[i];
        a->d[i] = (uint32_t)(t / d);
        r = t % d;
    }
    bn_trim(a);
    return (uint32_t)r;
}

int fl__bn_divmod(fl__bn *q, const fl__bn *a, const fl__bn *b)
{
    const int n = b->n, m = a->n;
    q->ovf = a->ovf | b->ovf;
    if (m < n) {
        q->n = 0;
        return m != 0;
    }
    if (n == 1) {
        *q = *a;
        return fl__bn_div_small(q, b->d[0]) != 0;
    }
    /* Normalize so the divisor's top limb has its top bit set; then each
     * estimated quotient limb qhat is at most 2 too large (Knuth, Thm B). */
    const int s = clz32(b->d[n - 1]);
    uint32_t v[FL__BN_LIMBS], u[FL__BN_LIMBS + 1];
    for (int i = n - 1; i > 0; i--)
        v[i] = s ? (b->d[i] << s) | (b->d[i - 1] >> (32 - s)) : b->d[i];
    v[0] = b->d[0] << s;
    u[m] = s ? a->d[m - 1] >> (32 - s) : 0;
    for (int i = m - 1; i > 0; i--)
        u[i] = s ? (a->d[i] << s) | (a->d[i - 1] >> (32 - s)) : a->d[i];
    u[0] = a->d[0] << s;

    for (int j = m - n; j >= 0; j--) {
        /* Estimate from the top two limbs of the current remainder window
         * u[j..j+n] and the top limb of v, refined with v[n-2]. */
        uint64_t num = ((uint64_t)u[j + n] << 32) | u[j + n - 1];
        uint64_t qhat = num / v[n - 1];
        uint64_t rhat = num % v[n - 1];
        while (qhat > 0xFFFFFFFFu
               || qhat * v[n - 2] > ((rhat << 32) | u[j + n - 2])) {
            qhat--;
            rhat += v[n - 1];
            if (rhat > 0xFFFFFFFFu)
                break;
        }
        /* u[j..j+n] -= qhat * v */
        int64_t borrow = 0;
        uint64_t carry = 0;
        for (int i = 0; i < n; i++) {
            uint64_t p = qhat * v[i] + carry;
            carry = p >> 32;
            int64_t t = (int64_t)u[i + j] - (int64_t)(uint32_t)p + borrow;
            u[i + j] = (uint32_t)t;
            borrow = t >> 32;            /* 0 or -1 */
        }
        int64_t t = (int64_t)u[j + n] - (int64_t)carry + borrow;
        u[j + n] = (uint32_t)t;
        if (t < 0) {
            /* qhat was one too large (rare): add v back */
            qhat--;
            uint64_t c = 0;
            for (int i = 0; i < n; i++) {
                uint64_t w = (uint64_t)u[i + j] + v[i] + c;
                u[i + j] = (uint32_t)w;
                c = w >> 32;
            }
            u[j + n] += (uint32_t)c;
        }
        q->d[j] = (uint32_t)qhat;
    }
    q->n = m - n + 1;
    bn_trim(q);
    for (int i = 0; i < n; i++)
        if (u[i] != 0)
            return 1;
    return 0;
}

uint64_t fl__bn_top64(const fl__bn *a)
{
    /* a != 0: gather the top three limbs, then shift the leading bit to
     * bit 95 and keep bits 95..32; everything below is sticky. */
    const int n = a->n;
    uint32_t l2 = a->d[n - 1];
    uint32_t l1 = n >= 2 ? a->d[n - 2] : 0;
    uint32_t l0 = n >= 3 ? a->d[n - 3] : 0;
    unsigned __int128 w = ((unsigned __int128)l2 << 64)
                          | ((unsigned __int128)l1 << 32) | l0;
    const int lz = clz32(l2);
    w <<= lz;
    uint64_t top = (uint64_t)(w >> 32);
    int sticky = (uint32_t)w != 0;
    for (int i = n - 4; i >= 0 && !sticky; i--)
        sticky = a->d[i] != 0;
    return top | (uint64_t)sticky;
}

size_t fl__bn_to_dec(fl__bn *a, char *buf, size_t cap)
{
    /* Peel 9 digits at a time from the bottom, then reverse. */
    size_t k = 0;
    if (a->n == 0) {
        if (cap < 1)
            return 0;
        buf[0] = '0';
        return 1;
    }
    while (a->n > 0) {
        uint32_t r = fl__bn_div_small(a, 1000000000u);
        for (int i = 0; i < 9; i++) {
            if (a->n == 0 && r == 0)
                break;                  /* no leading zeros in the top chunk */
            if (k == cap)
                return 0;
            buf[k++] = (char)('0' + r % 10);
            r /= 10;
        }
    }
    for (size_t i = 0, j = k - 1; i < j; i++, j--) {
        char t = buf[i];
        buf[i] = buf[j];
        buf[j] = t;
    }
    return k;
}
