/*
 * simd_srfill.h — part of an instance of simd_round.h or simd_narrow.h
 * (host only, not installed): K_(srinit) and K_(srfill), the
 * stochastic-rounding bits of a block of vectors, ahead of the rounding
 * loop that reads them.
 *
 * Needs from the includer: K_, K_INL, K_W (32-bit lanes per vector, or
 * 64-bit lanes when K_BITS is 64), K_(vu) (the element lanes), K_(v64)
 * (64-bit lanes, the same vector width) and, where the vector set has no
 * 64-bit lane multiply (AVX2: vpmullq is AVX-512DQ), K_MUL64_EMU 1.
 *
 * Lane l of vector v gets fl_sr_bits(seed, index + v K_W + l) (round.c):
 * all 64 bits for binary64 elements, the top 32 for binary32 elements
 * (those are what the 32-bit kernels' comparisons read).  The generator
 * states (K_(srinit)) are z = seed + 0x9E37...15 (i + 1) of element i,
 * advanced past the block by K_(srfill):
 *   64-bit elements: zs[0] lane l is element l of the vector;
 *   32-bit elements with a 64-bit lane multiply: zs[0] lane l is element
 *     l, zs[1] lane l element K_W/2 + l; one two-source permutation
 *     (vpermt2d) gathers the top halves in element order;
 *   32-bit elements without (K_MUL64_EMU, AVX2, where a two-source
 *     permutation across the 128-bit halves costs three operations):
 *     zs[0] lane l is element 2l, zs[1] lane l element 2l + 1, so that the
 *     top halves interleave into the element order with one shift and one
 *     blend.
 *
 * next: the input of the block after this one, prefetched one element
 * vector per vector here, so that memory keeps streaming while this loop
 * (no loads of its own) runs.
 *
 * The arithmetic is fl_sr_bits' four 64-bit multiplies, run as passes
 * through a buffer that stays in the first-level cache.  With vpmullq,
 * two passes of two multiplies: in one pass the chain of four multiplies (15 cycles each on Intel's
 * AVX-512 cores) filled the scheduler with waiting operations (Intel
 * Sapphire Rapids class, 2.07 -> 1.80 cycles an element for the
 * generator alone).  Without it (K_MUL64_EMU), each multiply is two
 * 32-bit multiplies and four simple operations, and four passes of one
 * multiply are the fastest split (AMD Zen 3, generator alone: 1.22 ns an
 * element as two passes of the compiler's three-multiply emulation, 0.91
 * ns as four passes of this one).
 */

#define K_SRBLK 1024   /* elements per block of random bits, at most */

#if defined(K_BITS) && K_BITS == 64
#define K_SRH 1        /* 64-bit vectors per element vector */
#else
#define K_SRH 2
#endif

#if defined(K_MUL64_EMU) && K_MUL64_EMU
#define K_MUL64_EMU_ON 1
#else
#define K_MUL64_EMU_ON 0
#endif
#if K_SRH == 2 && K_MUL64_EMU_ON
#define K_SR_EO 1      /* 32-bit elements in the even/odd layout */
#else
#define K_SR_EO 0
#endif

/* The top halves of the two 64-bit results of a 32-bit element vector,
 * in element order, xor-shifted by 31 (fl_sr_bits' last line). */
#if K_SR_EO
/* elements 2l (z[0]) and 2l + 1 (z[1]) */
#define SR_OUT(v, z)                                                         \
    do {                                                                     \
        const K_(v64) hi_ = (K_(v64)){0} + (~0ull << 32);                    \
        const K_(vu) rh_ = (K_(vu))((z)[0] >> 32 | ((z)[1] & hi_));          \
        rb[v] = rh_ ^ rh_ >> 31;                                             \
    } while (0)
#elif K_SRH == 2
/* elements l (z[0]) and K_W/2 + l (z[1]) */
#if K_W == 16
#define SR_ODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#else
#define SR_ODD 1, 3, 5, 7, 9, 11, 13, 15
#endif
#define SR_OUT(v, z)                                                         \
    do {                                                                     \
        const K_(vu) rh_ = __builtin_shufflevector((K_(vu))(z)[0],           \
                                                   (K_(vu))(z)[1], SR_ODD);  \
        rb[v] = rh_ ^ rh_ >> 31;                                             \
    } while (0)
#else
#define SR_OUT(v, z) (rb[v] = (K_(vu))((z)[0] ^ (z)[0] >> 31))
#endif

K_INL void K_(srinit)(K_(v64) *zs, uint64_t seed, uint64_t index)
{
    const int n64 = (int)(sizeof zs[0] / 8);
    int l, j;

    for (j = 0; j < K_SRH; j++)
        for (l = 0; l < n64; l++) {
            const int e = K_SR_EO ? K_SRH * l + j : j * n64 + l;
            zs[j][l] = seed + 0x9E3779B97F4A7C15ull * (index + (uint64_t)e + 1);
        }
}

#if K_MUL64_EMU_ON
/* a m mod 2^64 lane by lane for a constant m; ml: its low 32 bits in
 * every lane, msw: its halves swapped.  With a = ah 2^32 + al and
 * m = mh 2^32 + ml, a m = al ml + (al mh + ah ml) 2^32 (mod 2^64); one
 * vpmulld gives both cross products (al mh in the low half of a lane,
 * ah ml in the high half), one vpmuludq gives al ml. */
K_INL K_(v64) K_(mulc)(K_(v64) a, K_(v64) ml, K_(v64) msw)
{
    const K_(v64) hi = (K_(v64)){0} + (~0ull << 32);
    const K_(v64) p = (K_(v64))_mm256_mul_epu32((__m256i)a, (__m256i)ml);
    const K_(v64) t = (K_(v64))_mm256_mullo_epi32((__m256i)a, (__m256i)msw);
    return p + (t << 32) + (t & hi);
}

/* Four passes of one multiply each; h holds the state between them. */
K_INL void K_(srfill)(K_(vu) *rb, size_t nv, K_(v64) *zs, uint64_t seed,
                      const char *next)
{
    const uint64_t m1 = 0xBF58476D1CE4E5B9ull, m2 = 0x94D049BB133111EBull;
    const uint64_t s2 = seed ^ 0xD1B54A32D192ED03ull;
    const uint64_t zstep = 0x9E3779B97F4A7C15ull * (uint64_t)K_W;
    const K_(v64) m1l = (K_(v64)){0} + (m1 & 0xFFFFFFFFu);
    const K_(v64) m1s = (K_(v64)){0} + (m1 >> 32 | m1 << 32);
    const K_(v64) m2l = (K_(v64)){0} + (m2 & 0xFFFFFFFFu);
    const K_(v64) m2s = (K_(v64)){0} + (m2 >> 32 | m2 << 32);
    K_(v64) h[K_SRH * K_SRBLK / K_W];
    size_t v, k;
    int j;

    /* 1: the first round's first multiply */
    for (v = 0; v < nv; v++) {
        __builtin_prefetch(next + v * sizeof(K_(vu)), 0, FL__ACCEL_PREFETCH_L2);
        for (j = 0; j < K_SRH; j++) {
            const K_(v64) z = zs[j];
            zs[j] += zstep;
            h[K_SRH * v + j] = K_(mulc)(z ^ z >> 30, m1l, m1s);
        }
    }
    /* 2: its second multiply and last xor-shift, plus the second seed */
    for (k = 0; k < K_SRH * nv; k++) {
        const K_(v64) z = K_(mulc)(h[k] ^ h[k] >> 27, m2l, m2s);
        h[k] = (z ^ z >> 31) + s2;
    }
    /* 3: the second round's first multiply */
    for (k = 0; k < K_SRH * nv; k++)
        h[k] = K_(mulc)(h[k] ^ h[k] >> 30, m1l, m1s);
    /* 4: its second multiply and the final xor-shift */
    for (v = 0; v < nv; v++) {
        K_(v64) z[K_SRH];
        for (j = 0; j < K_SRH; j++) {
            const K_(v64) y = h[K_SRH * v + j];
            z[j] = K_(mulc)(y ^ y >> 27, m2l, m2s);
        }
        SR_OUT(v, z);
    }
}
#else
/* Two passes of two multiplies each. */
K_INL void K_(srfill)(K_(vu) *rb, size_t nv, K_(v64) *zs, uint64_t seed,
                      const char *next)
{
    const uint64_t m1 = 0xBF58476D1CE4E5B9ull, m2 = 0x94D049BB133111EBull;
    const uint64_t s2 = seed ^ 0xD1B54A32D192ED03ull;
    const uint64_t zstep = 0x9E3779B97F4A7C15ull * (uint64_t)K_W;
    K_(v64) h[K_SRH * K_SRBLK / K_W];
    size_t v;
    int j;

    /* pass 1: the first finalizer round and its last xor-shift */
    for (v = 0; v < nv; v++) {
        __builtin_prefetch(next + v * sizeof(K_(vu)), 0, FL__ACCEL_PREFETCH_L2);
        for (j = 0; j < K_SRH; j++) {
            K_(v64) z = zs[j];
            zs[j] += zstep;
            z = (z ^ (z >> 30)) * m1;
            z = (z ^ (z >> 27)) * m2;
            h[K_SRH * v + j] = z ^ (z >> 31);
        }
    }
    /* pass 2: the seed's second round and the final xor-shift */
    for (v = 0; v < nv; v++) {
        K_(v64) z[K_SRH];
        for (j = 0; j < K_SRH; j++) {
            K_(v64) y = h[K_SRH * v + j] + s2;
            y = (y ^ (y >> 30)) * m1;
            z[j] = (y ^ (y >> 27)) * m2;
        }
        SR_OUT(v, z);
    }
}
#endif

#undef SR_OUT
#undef SR_ODD
#undef K_MUL64_EMU_ON
