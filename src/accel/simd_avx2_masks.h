/*
 * simd_avx2_masks.h — the AVX2 instances' masks (host only, not
 * installed): a mask is a vector of all-ones or zero lanes, the lane
 * comparisons of GCC's vector extensions; included before simd_round.h
 * or simd_narrow.h by each AVX2 instance (fast_simd.c, fast_narrow.c),
 * whose K_(vu) type they compare.  simd_kundef.h undefines them.
 */
#define K_M K_(vu)
#define K_LT(x, y) ((K_(vu))((x) < (y)))
#define K_LE(x, y) ((K_(vu))((x) <= (y)))
#define K_GT(x, y) ((K_(vu))((x) > (y)))
#define K_GE(x, y) ((K_(vu))((x) >= (y)))
#define K_EQ(x, y) ((K_(vu))((x) == (y)))
#define K_NE(x, y) ((K_(vu))((x) != (y)))
#define K_MNOT(m) (~(m))
#define K_ANYM(m) (K_BITS_OF(m) != 0)
