/*
 * bignum.h — a small fixed-capacity natural number for the decimal text
 * conversions (parse.c, print.c).  Private to the core, not installed.
 *
 * Limbs are 32 bits, least significant first; d[n-1] != 0 unless n == 0
 * (the number zero).  No allocation: the capacity below covers every
 * number the conversions build for formats with ebits <= 11 and
 * prec <= 53 (binary64 is the extreme in every direction):
 *   - parse, E < 0:  5^k with k <= 1144 (2657 bits) and the numerator
 *     D * 2^s of at most max(2658, 2657 + 64) bits  -> 86 limbs;
 *   - parse, E >= 0: D * 5^E < 10^310 (1030 bits)   -> 33 limbs;
 *   - print: m * 5^k with m < 2^53, k <= 1074        -> 80 limbs.
 * An operation that would exceed the capacity sets ovf and leaves the
 * value meaningless; the callers' bounds make that unreachable.
 */
#ifndef FPLAB_BIGNUM_H
#define FPLAB_BIGNUM_H

#include <stdint.h>
#include <stddef.h>

#define FL__BN_LIMBS 128

typedef struct fl__bn {
    int n;                      /* limbs in use */
    int ovf;                    /* capacity exceeded (a bug if ever set) */
    uint32_t d[FL__BN_LIMBS];
} fl__bn;

void fl__bn_set_u64(fl__bn *a, uint64_t v);
static inline int fl__bn_is_zero(const fl__bn *a) { return a->n == 0; }
/* a = a * m + add */
void fl__bn_mul_add_small(fl__bn *a, uint32_t m, uint32_t add);
/* a = a * 5^k */
void fl__bn_mul_pow5(fl__bn *a, int32_t k);
/* a = a * 2^bits */
void fl__bn_shl(fl__bn *a, int32_t bits);
/* Number of significant bits (0 for zero). */
int32_t fl__bn_bitlen(const fl__bn *a);
/* a = floor(a / d), returns a mod d; d != 0. */
uint32_t fl__bn_div_small(fl__bn *a, uint32_t d);
/* q = floor(a / b); returns 1 if the remainder is nonzero, else 0.
 * b != 0; q must not alias a or b. */
int fl__bn_divmod(fl__bn *q, const fl__bn *a, const fl__bn *b);
/* The leading 64 bits of a (a != 0), leading bit at bit 63, with bit 0
 * ORed with whether any lower bit of a is set (sticky). */
uint64_t fl__bn_top64(const fl__bn *a);
/* Decimal digits of a (no leading zeros, "0" for zero) into buf as ASCII
 * without NUL; returns the count, or 0 if cap is too small.  Destroys a. */
size_t fl__bn_to_dec(fl__bn *a, char *buf, size_t cap);

#endif /* FPLAB_BIGNUM_H */
