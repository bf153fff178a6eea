/*
 * simd_round.h — template of one SIMD bulk-rounding kernel (host only, not
 * installed).  fast_simd.c includes it once per (target, element type)
 * with these macros defined:
 *
 *   K_NAME      the kernel's function name
 *   K_TARGET    the __attribute__((target)) string
 *   K_W         lanes per vector
 *   K_BITS      32 (binary32 arrays) or 64 (binary64 arrays)
 *   K_MUL64_EMU 1 where the target has no 64-bit lane multiply (AVX2)
 *   K_M         the mask type; K_LT, K_LE, K_GT, K_GE, K_EQ, K_NE: unsigned
 *               lane comparisons giving a K_M; K_BLEND(m, x, y): x where
 *               m, else y; K_MAXU, K_MINU; K_MNOT(m); K_ANYM(m): some lane
 *               set; K_BITS_OF(m): the lanes as bits (bit i = lane i);
 *               K_FGT(x, y): the host floating-point x > y (ordered)
 *   K_HW16      optional, binary32 arrays: K_HW16(u, imm) the lanes u
 *               converted to binary16 and back by F16C in mode imm; with
 *               it the includer's FL__F16C_BY_MODE picks imm by mode
 *
 * Lane algorithm (one element, host format H = binary32 or binary64 with
 * FB fraction bits; destination f with p <= 24, ebits <= 8 and every
 * finite value of f a normal-range value of H, see fl__kpar_init):
 *
 *   a = |x| as an integer.  Within a binade of H the value is a * unit;
 *   the quantum of f at that magnitude is 2^sh units, with
 *   sh = FB + 1 - p in f's normal range and one more per binade below it.
 *   For sh <= FB the rounding happens in place on a: add an increment
 *   below 2^sh, clear the low sh bits (a carry moves into the exponent
 *   field, which is the right value).  For sh > FB the value lies below
 *   f's smallest subnormal q (a quantum of 2^sh units): the result is 0 or
 *   q, decided by mode, sign and (for SR) the random bits.
 *
 *   Stochastic rounding: the generic code adds R >> (64 - shift) to the
 *   discarded part of its normalised 64-bit significand; as fast.h shows
 *   for fl__fast_pack, the carry is the same as for
 *   rest + (R >> (64 - sh)) >= 2^sh with rest and sh in H's units (valid
 *   for every sh <= 64, including the generic code's shift >= 64 cases).
 *
 *   Flags, as fl__round_pack raises them: inexact = (rounded != a);
 *   FL_TERN_UP / DOWN from (rounded > a) xor sign; tininess before
 *   rounding is a < 2^emin, after rounding the binade just below 2^emin is
 *   rounded once more at p bits (same mode, same random bits) and is not
 *   tiny when that reaches 2^emin; underflow = tiny and inexact; under
 *   ftz (or a format without subnormals) tiny lanes become signed zeros
 *   with underflow and inexact.
 *
 *   Lanes the kernel does not decide go to the scalar entry point
 *   (fl_round_float / fl_round_double with the element's SR index) and
 *   their flags are OR-ed in: NaN and infinite inputs, results beyond f's
 *   largest finite value (overflow, saturation, FN formats' NaN), and SR
 *   lanes with sh > K_BITS - 1.
 */

#define KC2(a, b) a##_##b
#define KC(a, b) KC2(a, b)
#define K_(x) KC(K_NAME, x)

#if K_BITS == 32
typedef uint32_t K_(ut);
typedef int32_t K_(st);
typedef float K_(ft);
#define K_FB 23
#define K_SPECIAL 0x7F800000u
#define K_SIGN 0x80000000u
#else
typedef uint64_t K_(ut);
typedef int64_t K_(st);
typedef double K_(ft);
#define K_FB 52
#define K_SPECIAL 0x7FF0000000000000ull
#define K_SIGN 0x8000000000000000ull
#endif
#define K_HID ((K_(ut))1 << K_FB)
#define K_VB (K_W * K_BITS / 8)

typedef K_(ut) K_(vu) __attribute__((vector_size(K_VB)));
typedef K_(st) K_(vs) __attribute__((vector_size(K_VB)));
typedef K_(ft) K_(vf) __attribute__((vector_size(K_VB)));
/* 64-bit lanes for the random bits: all lanes (64-bit kernel) or one half
 * of them (32-bit kernel); the same vector width either way. */
typedef uint64_t K_(v64) __attribute__((vector_size(K_VB)));

#define K_INL __attribute__((target(K_TARGET), always_inline)) static inline
/* Store one vector: streaming (non-temporal, dst aligned to the vector)
 * for arrays far larger than the caches, which saves reading dst's lines
 * in; otherwise an ordinary unaligned store. */
#define K_STORE(p, v)                                                        \
    do {                                                                     \
        if (stream)                                                          \
            K_STREAM((void *)(p), (v));                                      \
        else                                                                 \
            __builtin_memcpy((p), &(v), sizeof(v));                          \
    } while (0)

/* The state step of the SR generator (fl_sr_bits' first line). */
#include "simd_srfill.h"

/* Bitwise select: m lanes are all ones or zero. */
K_INL K_(vu) K_(sel)(K_(vu) m, K_(vu) x, K_(vu) y)
{
    return (x & m) | (y & ~m);
}

/*
 * The first n - n % K_W elements; rm is a constant in each inlined copy,
 * so the mode's case analysis leaves the loop.  Returns the count done.
 *
 * Per lane, with E = a >> FB the exponent field of H:
 *   sh = C - min(max(E, 1), Emin),  C = sh0 + Emin
 * (sh0 in f's normal range, one more per binade below; H's subnormals
 * share the unit of E = 1).  The lane is "big" (sh > FB) iff
 * a < ebig << FB with ebig = C - FB; the in-place rounding then runs with
 * sh clamped to FB and its result is replaced.  At sh == FB the quotient's
 * last bit is the leading bit (1 for E >= 1), which bit FB of a (E's last
 * bit) matches unless E = ebig is even: edge_fix.
 *
 * Masks (K_M) are mask registers with AVX-512 and all-ones lanes with
 * AVX2; the K_ macros of fast_simd.c hide the difference.
 */
K_INL size_t K_(body)(const fl_format *f, const fl__kpar *P,
                      const fl_ctx *c, K_(ft) *dst, const K_(ft) *src,
                      size_t n, unsigned *flags, const int rm,
                      const int simple, const int stream)
{
    const K_(vu) one = (K_(vu)){0} + 1, zero = {0};
    const K_(st) ebig = P->sh0 + P->Emin - K_FB;
    const K_(vu) vC = zero + (K_(ut))(P->sh0 + P->Emin);
    const K_(vu) vlo = zero + (K_(ut))(ebig > 1 ? ebig : 1);
    const K_(vu) vEmin = zero + (K_(ut))P->Emin;
    const K_(vu) bigb1 = zero + (ebig > 1 ? ((K_(ut))ebig << K_FB) - 1 : 0);
    const K_(vu) vebig = zero + (K_(ut))ebig;
    const K_(vu) hid = zero + K_HID, special = zero + K_SPECIAL;
    const int edge_fix = !simple && ebig >= 2 && !(ebig & 1);
    const K_(vu) eminb = zero + (K_(ut))P->eminb, eminb1 = eminb - 1;
    const K_(vu) bordlo = zero + (K_(ut))P->bordlo;
    const K_(vu) maxf = zero + (K_(ut))P->maxf;
    const K_(vu) qbits = zero + (K_(ut))P->qbits;
    const K_(vu) ovb0 = zero + (K_(ut))P->ovb[0];
    const K_(vu) ovb1 = zero + (K_(ut))P->ovb[1];
    const int sht = P->sht, sh0c = P->sh0;
    const K_(ut) mask0 = ((K_(ut))1 << sht) - 1;
    /* the common block (every lane zero or normal in f, no overflow) */
    const K_(vu) vm0 = zero + (((K_(ut))1 << sh0c) - 1), hm0 = vm0 >> 1;
    const K_(vu) lsbon = zero + (K_(ut))(sh0c > 0);
    /* simple (a constant): no daz, no ftz, no edge fix, sh0 > 0 */
    const int after = P->after, fz = !simple && P->fz, daz = !simple && P->daz;
    const uint64_t seed = c->sr_seed;
    unsigned fup = 0, fdn = 0, fuf = 0, fl = 0;
    int tryfast = 1, o0 = 0, o1 = 0;
    /* the RNE block (host nearest-even addition for tiny lanes) */
    const int rne_blk = rm == FL_RNE && !P->daz && !P->fz;
    const K_(vf) vMq = (K_(vf)){0} + (K_(ft))P->mq;     /* exact: a power of two */
    /* SR states of the lanes (64-bit halves of a vector: 0 and, for
     * binary32 elements, 1), advanced by one vector per iteration */
    K_(v64) zs[2];
    K_(vu) rb[K_SRBLK / K_W];
    size_t i, done = n - n % K_W;

    K_(srinit)(zs, seed, c->sr_index);

    for (i = 0; i < done; i += K_W) {
        K_(vu) u, x, s, a, a1, negv, E, shc, mask, lsb, r, inc, res, rr = zero;
        K_M tiny, kbig, kneg, kov;
        unsigned bad = 0, skip = 0, gtb, ltb, tb;
        FL__ACCEL_PREFETCH(src + i, rm == FL_RSR);
        __builtin_memcpy(&u, src + i, sizeof u);
        s = u & K_SIGN;
        a = u ^ s;
        negv = (K_(vu))((K_(vs))u >> (K_BITS - 1));
        if (rm == FL_RSR) {
            if (i % K_SRBLK == 0)
                K_(srfill)(rb, (done - i < K_SRBLK ? done - i : K_SRBLK) / K_W,
                           zs, seed, (const char *)(src + i + K_SRBLK));
            rr = rb[i % K_SRBLK / K_W];
        }
        if (tryfast) {
            /* Common block: constant shift sh0 (< FB, so bit sh0 of a is
             * the quotient's last bit); no tininess, daz or ftz effect.
             * The ternary flags come from comparing result and input as
             * host floating-point values (no NaNs here). */
            K_(vu) rc;
            switch (rm) {
            case FL_RNE: rc = (a + hm0 + ((a >> sh0c) & lsbon)) & ~vm0; break;
            case FL_RNA: rc = (a + ((vm0 + 1) >> 1)) & ~vm0; break;
            case FL_RUP: rc = (a + (vm0 & ~negv)) & ~vm0; break;
            case FL_RDN: rc = (a + (vm0 & negv)) & ~vm0; break;
            case FL_RTO: rc = (a & ~vm0) | K_BLEND(K_NE(a & vm0, zero), vm0 + 1, zero); break;
            case FL_RSR: rc = (a + ((rr >> 1) >> ((K_BITS - 1) - sh0c))) & ~vm0; break;
            default: rc = a & ~vm0; break;
            }
            if (!K_ANYM(K_LT(a - 1, eminb1) | K_GT(rc, maxf))) {
                rc |= s;
                if (!(fup && fdn)) {
                    fup |= K_BITS_OF(K_FGT(rc, u));
                    fdn |= K_BITS_OF(K_FGT(u, rc));
                }
                K_STORE(dst + i, rc);
                continue;
            }
        }

        if (rne_blk) {
            /* RNE block, any format: lanes in f's normal range round in
             * place with the constant shift sh0 (as the common block);
             * tiny lanes (below 2^emin, where f's quantum is the constant
             * q) by the host's own nearest-even addition: |x| + Mq is a
             * multiple of q (Mq = q * 2^FB > |x|, so the sum stays in Mq's
             * binade, whose ulp is q), and subtracting Mq is exact.
             * Overflow as in the general path, tininess after rounding as
             * there; NaN/infinite inputs send the block to the general
             * path. */
            const K_(vu) rc = (a + hm0 + ((a >> sh0c) & lsbon)) & ~vm0;
            const K_M tny = K_LT(a - 1, eminb1);
            const K_(vu) rt = (K_(vu))(((K_(vf))a + vMq) - vMq);
            const K_(vu) r2 = K_BLEND(tny, rt, rc);
            K_M tny2 = tny;
            if (after && K_ANYM(tny & K_GE(r2, eminb))) {
                /* reached 2^emin: tiny unless the p-bit rounding (sht
                 * bits, RNE) reaches it too */
                K_(vu) inc0 = zero + (mask0 >> 1);
                if (sht > 0)
                    inc0 += (a >> sht) & one;
                tny2 &= K_MNOT(K_GE(a, bordlo) & K_GE(a + inc0, eminb));
            }
            if (!K_ANYM(K_GE(a, special))) {
                const K_M kov = K_GT(r2, maxf);
                K_(vu) res = r2 | s;
                unsigned g, t, keep = ~0u;
                if (K_ANYM(kov)) {
                    const K_M kn = K_NE(s, zero);
                    o0 |= K_ANYM(kov & K_MNOT(kn));
                    o1 |= K_ANYM(kov & kn);
                    res = K_BLEND(kov, K_BLEND(kn, ovb1, ovb0), res);
                    keep = ~K_BITS_OF(kov);
                }
                g = K_BITS_OF(K_FGT(res, u)) & keep;
                t = K_BITS_OF(K_FGT(u, res)) & keep;
                fup |= g;
                fdn |= t;
                fuf |= K_BITS_OF(tny2) & (g | t);
                tryfast = !K_ANYM(tny);
                K_STORE(dst + i, res);
                continue;
            }
        }
        if (daz)
            a = K_BLEND(K_LT(a, hid), zero, a);
        x = a | s;
        kneg = K_NE(s, zero);
        E = a >> K_FB;
        shc = vC - K_MINU(K_MAXU(E, vlo), vEmin);
        mask = (one << shc) - 1;
        lsb = (a >> shc) & one;
        if (edge_fix)
            lsb ^= K_BLEND(K_EQ(E, vebig), one, zero);
        if (!simple && sh0c == 0)
            lsb = K_BLEND(K_EQ(mask, zero), zero, lsb);
        switch (rm) {
        case FL_RNE: inc = (mask >> 1) + lsb; break;
        case FL_RNA: inc = (mask + 1) >> 1; break;
        case FL_RUP: inc = mask & ~negv; break;
        case FL_RDN: inc = mask & negv; break;
        case FL_RSR: inc = (rr >> 1) >> ((K_BITS - 1) - shc); break;
        default: inc = zero; break;     /* RTZ; RTO below */
        }
        if (rm == FL_RTO)
            r = (a & ~mask) + K_BLEND(K_NE(a & mask, zero), (one - lsb) << shc, zero);
        else
            r = (a + inc) & ~mask;

        a1 = a - 1;
        kbig = K_LT(a1, bigb1);
        if (K_ANYM(kbig)) {
            /* sh > FB: |x| below f's smallest subnormal q, result 0 or q */
            const K_(vu) sh = vC - K_MAXU(E, one);
            const K_(vu) m = (a & (K_HID - 1)) | K_BLEND(K_NE(E, zero), hid, zero);
            const K_M edge = K_EQ(sh, zero + (K_FB + 1));
            K_M k;
            switch (rm) {
            case FL_RNE: k = edge & K_GT(m, hid); break;
            case FL_RNA: k = edge & K_GE(m, hid); break;
            case FL_RUP: k = K_MNOT(kneg); break;
            case FL_RDN: k = kneg; break;
            case FL_RTO: k = K_NE(a, zero); break;
            case FL_RSR: {
                const K_M wide = K_GT(sh, zero + (K_BITS - 1));
                const K_(vu) shs = K_BLEND(wide, zero + (K_BITS - 1), sh);
                k = K_NE((m + ((rr >> 1) >> ((K_BITS - 1) - shs))) >> shs, zero);
                bad |= K_BITS_OF(kbig & wide);
                break;
            }
            default: k = K_EQ(a, a + 1); break;      /* none */
            }
            k &= K_NE(a, zero);
            r = K_BLEND(kbig, K_BLEND(k, qbits, zero), r);
        }

        /* Tininess: before rounding a < 2^emin.  After rounding (same
         * mode and random bits, at p bits, unbounded exponent) a lane can
         * only stop being tiny if its subnormal rounding reached 2^emin:
         * rounding to the coarser quantum goes at least as far. */
        tiny = K_LT(a1, eminb1);
        if (K_ANYM(tiny & K_GE(r, eminb)) && after) {
            K_(vu) inc0;
            switch (rm) {
            case FL_RNE:
                inc0 = zero + (mask0 >> 1);
                if (sht > 0)
                    inc0 += (a >> sht) & one;
                break;
            case FL_RNA: inc0 = zero + ((mask0 + 1) >> 1); break;
            case FL_RUP: inc0 = mask0 & ~negv; break;
            case FL_RDN: inc0 = mask0 & negv; break;
            case FL_RSR: inc0 = (rr >> 1) >> ((K_BITS - 1) - sht); break;
            default: inc0 = zero; break;      /* RTZ, RTO */
            }
            tiny &= K_MNOT(K_GE(a, bordlo) & K_GE(a + inc0, eminb));
        }
        if (fz)
            r = K_BLEND(tiny, zero, r);
        res = r | s;

        kov = K_GT(r, maxf);
        if (K_ANYM(kov)) {
            /* NaN and infinite inputs go to the scalar path (bad); other
             * results beyond the largest finite overflow, with the flags
             * of P->ovfl (skip: no flags from the comparisons below) */
            const K_M sp = K_GE(a, special);
            const K_M ov = kov & K_MNOT(sp);
            o0 |= K_ANYM(ov & K_MNOT(kneg));
            o1 |= K_ANYM(ov & kneg);
            res = K_BLEND(ov, K_BLEND(kneg, ovb1, ovb0), res);
            bad |= K_BITS_OF(sp);
            skip = K_BITS_OF(ov);
        }
        skip |= bad;
        tb = K_BITS_OF(tiny);
        if (!(fup && fdn && fuf)) {
            /* (once all three are set, no lane can change what they say:
             * only whether each is nonzero is read) */
            gtb = K_BITS_OF(K_FGT(res, x)) & ~skip;
            ltb = K_BITS_OF(K_FGT(x, res)) & ~skip;
            fup |= gtb;
            fdn |= ltb;
            fuf |= tb & (gtb | ltb);
        }
        tryfast = tb == 0;
        K_STORE(dst + i, res);
        if (bad) {
            /* the input lanes from u: dst may be src */
            K_(ut) xs[K_W];
            int j;
            __builtin_memcpy(xs, &u, sizeof xs);
            for (j = 0; j < K_W; j++)
                if (bad >> j & 1) {
                    fl_ctx ci = *c;
                    K_(ft) v;
                    __builtin_memcpy(&v, &xs[j], sizeof v);
                    ci.sr_index = c->sr_index + (uint64_t)(i + (size_t)j);
#if K_BITS == 32
                    dst[i + (size_t)j] = fl_round_float(f, v, &ci, &fl);
#else
                    dst[i + (size_t)j] = fl_round_double(f, v, &ci, &fl);
#endif
                }
        }
    }
    if (stream)
        _mm_sfence();     /* order the streaming stores before returning */
    fl |= fl__kflags(fup, fdn, fuf);
    if (o0) fl |= P->ovfl[0];
    if (o1) fl |= P->ovfl[1];
    *flags |= fl;
    return done;
}

__attribute__((target(K_TARGET)))
static size_t K_NAME(const fl_format *f, const fl__kpar *P, const fl_ctx *c,
                     K_(ft) *dst, const K_(ft) *src, size_t n,
                     unsigned *flags);

#ifdef K_HW16
/*
 * binary16 in RNE, RTZ, RDN or RUP without daz / ftz: the host's F16C
 * conversion rounds (subnormals, ties and directed modes as IEEE 754
 * requires), in a loop of its own (inside K_(body), with every path's
 * constants live, this block spilled its input and constants to the
 * stack: binary16 RNE at avx2 in the caches ran at 2.6 G/s against
 * F16C's 9.5).  A vector is taken when no lane overflows or is NaN or
 * infinite and, for tininess after rounding, no tiny lane reached 2^emin;
 * flags as in K_(body)'s common block, plus underflow = tiny and inexact.
 * Any other vector goes to K_NAME alone with this loop off (Q.hw16 = 0),
 * whose general path decides it.  rm is a literal in each copy.
 */
K_INL size_t K_(h16)(const fl_format *f, const fl__kpar *P, const fl_ctx *c,
                     K_(ft) *dst, const K_(ft) *src, size_t n,
                     unsigned *flags, const int rm, const int stream)
{
    const K_(vu) zero = {0}, vabs = zero + (K_SIGN - 1);
    const K_(vu) eminb = zero + (K_(ut))P->eminb, eminb1 = eminb - 1;
    const K_(vu) maxf = zero + (K_(ut))P->maxf;
    const int after = P->after;
    fl__kpar Q = *P;
    unsigned fup = 0, fdn = 0, fuf = 0;
    size_t i, done = n - n % K_W;
    Q.hw16 = 0;
    for (i = 0; i < done; i += K_W) {
        K_(vu) u, y, a, ay;
        K_M tny, no;
        FL__ACCEL_PREFETCH(src + i, 0);
        __builtin_memcpy(&u, src + i, sizeof u);
        FL__F16C_BY_MODE(y, K_HW16, u, rm);
        a = u & vabs;
        ay = y & vabs;
        tny = K_LT(a - 1, eminb1);
        no = K_GT(K_MAXU(a, ay), maxf);
        if (after)
            no |= tny & K_GE(ay, eminb);
        if (K_ANYM(no)) {
            (void)K_NAME(f, &Q, c, dst + i, src + i, K_W, flags);
            continue;
        }
        {
            const unsigned g = K_BITS_OF(K_FGT(y, u)), t = K_BITS_OF(K_FGT(u, y));
            fup |= g;
            fdn |= t;
            fuf |= K_BITS_OF(tny) & (g | t);
        }
        K_STORE(dst + i, y);
    }
    if (stream)
        _mm_sfence();     /* order the streaming stores before returning */
    *flags |= fl__kflags(fup, fdn, fuf);
    return done;
}

/* One copy per mode and store kind, out of line: its own registers. */
__attribute__((target(K_TARGET), noinline))
static size_t K_(h16run)(const fl_format *f, const fl__kpar *P, const fl_ctx *c,
                         K_(ft) *dst, const K_(ft) *src, size_t n,
                         unsigned *flags, const int stream)
{
#define K_H16CASE(m)                                                         \
    case m:                                                                  \
        return stream ? K_(h16)(f, P, c, dst, src, n, flags, m, 1)           \
                      : K_(h16)(f, P, c, dst, src, n, flags, m, 0);
    switch (c->rm) {
    K_H16CASE(FL_RNE)
    K_H16CASE(FL_RTZ)
    K_H16CASE(FL_RDN)
    K_H16CASE(FL_RUP)
    default: return 0;
    }
#undef K_H16CASE
}
#endif

__attribute__((target(K_TARGET)))
static size_t K_NAME(const fl_format *f, const fl__kpar *P, const fl_ctx *c,
                     K_(ft) *dst, const K_(ft) *src, size_t n,
                     unsigned *flags)
{
    const int simple = !P->daz && !P->fz && P->sh0 > 0 &&
                       !((P->sh0 + P->Emin - K_FB) >= 2 &&
                         !((P->sh0 + P->Emin - K_FB) & 1));
    const int stream = n * sizeof *dst >= FL__STREAM_BYTES &&
                       ((uintptr_t)dst & (K_VB - 1)) == 0;
#ifdef K_HW16
    if (simple && P->hw16 &&
        (c->rm == FL_RNE || c->rm == FL_RTZ || c->rm == FL_RDN || c->rm == FL_RUP))
        return K_(h16run)(f, P, c, dst, src, n, flags, stream);
#endif
#define K_CASE(m)                                                            \
    case m:                                                                  \
        if (simple)                                                          \
            return stream ? K_(body)(f, P, c, dst, src, n, flags, m, 1, 1)   \
                          : K_(body)(f, P, c, dst, src, n, flags, m, 1, 0);  \
        return stream ? K_(body)(f, P, c, dst, src, n, flags, m, 0, 1)       \
                      : K_(body)(f, P, c, dst, src, n, flags, m, 0, 0);
    switch (c->rm) {
    K_CASE(FL_RNE)
    K_CASE(FL_RTZ)
    K_CASE(FL_RDN)
    K_CASE(FL_RUP)
    K_CASE(FL_RNA)
    K_CASE(FL_RTO)
    K_CASE(FL_RSR)
    default: return 0;
    }
#undef K_CASE
}

#include "simd_kundef.h"
