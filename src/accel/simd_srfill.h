/*
 * simd_srfill.h — part of an instance of simd_round.h or simd_narrow.h
 * (host only, not installed): K_(srfill), the stochastic-rounding bits of
 * a block of vectors, ahead of the rounding loop that reads them.
 *
 * Needs from the includer: K_, K_INL, K_W (32-bit lanes per vector, or
 * 64-bit lanes when K_BITS is 64), K_(vu) (the element lanes), K_(v64)
 * (64-bit lanes, the same vector width) and, for 32-bit elements, K_ODD.
 *
 * Lane l of vector v gets fl_sr_bits(seed, index + v K_W + l) (round.c):
 * all 64 bits for binary64 elements, the top 32 for binary32 elements
 * (those are what the 32-bit kernels' comparisons read).  The states
 * zs[0] and, for 32-bit elements, zs[1] (lanes 0 .. K_W/2 - 1 and K_W/2
 * .. K_W - 1 of a vector) are seed + 0x9E37...15 (index + 1) lane by
 * lane on entry and are advanced past the block.
 *
 * next: the input of the block after this one, prefetched one element
 * vector per vector here, so that memory keeps streaming while this loop
 * (no loads of its own) runs.
 *
 * Two passes, two of the four 64-bit multiplies each, through a buffer
 * that stays in the first-level cache.  In one pass the chain of four
 * (15 cycles each on Intel's AVX-512 cores) filled the scheduler with
 * waiting operations; halving the chain let more of the independent
 * iterations' multiplies overlap (Intel Sapphire Rapids class, 2.07 ->
 * 1.80 cycles an element for the generator alone).  Either pass is the
 * same arithmetic as fl_sr_bits, split after its first xor-shift by 31.
 */

#define K_SRBLK 1024   /* elements per block of random bits, at most */

#if defined(K_BITS) && K_BITS == 64
#define K_SRH 1        /* 64-bit vectors per element vector */
#else
#define K_SRH 2
#endif

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
#if K_SRH == 2
        {
            const K_(vu) rh = __builtin_shufflevector((K_(vu))z[0],
                                                      (K_(vu))z[1], K_ODD);
            rb[v] = rh ^ (rh >> 31);
        }
#else
        rb[v] = (K_(vu))(z[0] ^ (z[0] >> 31));
#endif
    }
}
