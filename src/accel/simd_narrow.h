/*
 * simd_narrow.h — template of one SIMD kernel rounding binary32 arrays to
 * a narrow format (host only, not installed).  fast_narrow.c includes it
 * once per target with these macros defined:
 *
 *   K_NAME      the kernel's function name
 *   K_SPECIALISE 1: copies for each variant the presets have (else the
 *               plain one and the one reading the options at run time)
 *   K_TARGET    the __attribute__((target)) string
 *   K_W         32-bit lanes per vector (16 or 8)
 *   K_MUL64_EMU 1 where the target has no 64-bit lane multiply (AVX2)
 *   K_M         the mask type; K_LT, K_LE, K_GT, K_GE, K_EQ, K_NE: unsigned
 *               lane comparisons giving a K_M; K_FGT(x, y): binary32 x > y
 *               (ordered); K_BLEND(m, x, y): x where m, else y;
 *               K_MASKZ(m, x): x where m, else 0; K_MAXU, K_MINU;
 *               K_SLLV, K_SRLV: shifts by lane counts (0 for counts above
 *               31); K_MNOT(m); K_ANYM(m); K_BITS_OF(m): bit i = lane i;
 *               K_MZERO: no lane; K_STREAM(p, v): a streaming store;
 *               K_SIGNS(u): the lanes with the sign bit set;
 *               K_SIGNOR(r, u): r with u's sign bit OR-ed in;
 *               K_ACC(acc, m, w): acc |= w in the lanes of m;
 *               K_MANDN(m, k): m and not k; K_OVSEL(x, m, o, d, u): in
 *               the lanes of m, o with d's bits where u has its sign
 *               bit (d is 0 or the sign bit), else x
 *
 * The lane algorithm.  x = (-1)^s * |x|, a = |x| as an integer: within a
 * binade of binary32 the value is a * unit, so rounding to a quantum of
 * 2^sh units happens in place on a (a carry out of the fraction moves into
 * the exponent field, which is the right value).  f's quantum is constant
 * over f's normal range (sh0 = 24 - p) and one binade coarser per binade
 * below 2^emin down to f's subnormal quantum q:
 *
 *   sh = C - min(max(E, 1), Emin),  E = a >> 23,  C = sh0 + Emin
 *
 * (Emin = emin + 127: binary32 subnormals share the unit of E = 1).  Lanes
 * below q ("big" lanes, sh >= 24) round to 0 or q.  Every step mirrors
 * fl__round_pack on the same value; the scalar code is the reference that
 * tests/test_fastpath.c compares with, on every binary32 input.
 *
 *   Nearest even, when every rounding point's M below is a binary32 value
 *   (emax + 1 + sh0 <= 127): r = (|x| + M) - M with M = 2^(j + 23), j the
 *   exponent of the lane's quantum, j = max(e, emin) - p + 1.  |x| < M, so
 *   the sum lies in [M, 2M] whose ulp is 2^j: the host's nearest-even
 *   addition rounds |x| to a multiple of 2^j with ties to an even multiple,
 *   exactly the rounding of the p-bit (or subnormal) quotient; the
 *   subtraction is exact.  In bits M = max(a & 0x7F800000, 2^emin) +
 *   sh0 << 23, the exponent capped at 2^(emax+1): a lane at or above
 *   2^(emax+1) then still rounds to >= 2^(emax+1) (monotonicity of the
 *   two roundings, 2^(emax+1) + M being a binary32), i.e. overflows.  For
 *   p = 1 the quotient is always odd, so a tie goes up; so does 2^j's
 *   nearest even multiple.  This needs the host in round-to-nearest
 *   without FTZ/DAZ (fast.h states the same assumption).
 *
 *   Other modes: trunc = a with the low sh bits cleared, rest = those
 *   bits; the increment is a whole unit 2^sh by mode (RTZ none, RUP / RDN
 *   on inexact lanes of the right sign, RNA rest >= half, RNE rest > half
 *   or a tie with an odd quotient, RTO inexact with an even quotient).
 *   The quotient's last bit is bit sh of the significand (the hidden bit
 *   for sh = 23).
 *
 *   Stochastic rounding: the generic code carries when rest +
 *   (R >> (64 - shift)) >= 2^shift on its normalised 64-bit significand;
 *   scaled to binary32's units that is the carry out of the 64-bit sum
 *   R + X, X = rest << (64 - sh) (sh <= 64) or rest >> (sh - 64) (sh >
 *   64; simd_round.h and fast.h derive the same identity), and rest <<
 *   (64 - sh) keeps exactly the discarded bits.  The kernel adds the high
 *   halves: the carry is certain when they overflow, absent when their sum
 *   is below 2^32 - 1; the sum 2^32 - 1 with sh > 32 (a low half that can
 *   carry in) goes to the scalar code (probability 2^-32 per lane).
 *
 *   Tininess before rounding: |x| < 2^emin.  After rounding, only the
 *   binade just below 2^emin can stop being tiny, when its p-bit rounding
 *   reaches 2^emin: for the deterministic modes that is a threshold per
 *   mode and sign (nearest: 2^emin - 2^(emin-p-1), ties reach; up: above
 *   2^emin - 2^(emin-p)); for SR the p-bit carry with the same random
 *   bits.  Underflow = tiny and inexact; flush-to-zero (context or a
 *   format without subnormals) turns tiny lanes into zeros.
 *
 *   Results beyond f's largest finite value overflow to the precomputed
 *   result of fl__round_pack for that sign (infinity, the format's NaN,
 *   or the largest finite value by mode and saturation).  Formats without
 *   -0 give +0 for every zero; unsigned formats give fl__unsigned_negative
 *   for negative lanes, formats without zero fl__no_zero for zero lanes
 *   and 2^emin for lanes below it.  A format with min_gap_up (ml_dtypes'
 *   E8M0 rounding) moves the nearest modes' boundary in (2^emin, next
 *   value): for E8M0 those are binary32 subnormals, scalar lanes anyway;
 *   where 2^emin >= 2^-126 its lanes go to the scalar code.
 *
 * Flags are the OR over lanes: inexact and FL_TERN_UP/DOWN from comparing
 * the result with the input as binary32 values (a NaN result compares
 * unordered and contributes nothing), underflow from tiny inexact lanes,
 * and the precomputed flag words of overflow, unsigned-negative and
 * no-zero lanes.  Lanes the kernel does not decide go to the scalar entry
 * point fl_round_float with their own SR index: NaN and infinite inputs,
 * binary32 subnormals where f reaches below 2^-126, the rare SR lanes
 * above, and for P3109 at precision 1 in nearest even the ties at or
 * above 2^emin (P3109 breaks them by the code's parity, the quotient's
 * last bit here being always 1).
 */

#define KC2(a, b) a##_##b
#define KC(a, b) KC2(a, b)
#define K_(x) KC(K_NAME, x)

typedef uint32_t K_(vu) __attribute__((vector_size(K_W * 4)));
typedef int32_t K_(vs) __attribute__((vector_size(K_W * 4)));
typedef float K_(vf) __attribute__((vector_size(K_W * 4)));
/* 64-bit lanes for the random bits: half the 32-bit lanes per vector */
typedef uint64_t K_(v64) __attribute__((vector_size(K_W * 4)));

#define K_INL __attribute__((target(K_TARGET), always_inline)) static inline

#include "simd_srfill.h"

/* The OR over lanes of a flag-word accumulator. */
K_INL unsigned K_(hor)(K_(vu) acc)
{
    uint32_t w[K_W];
    unsigned r = 0;
    int l;
    __builtin_memcpy(w, &acc, sizeof w);
    for (l = 0; l < K_W; l++)
        r |= w[l];
    return r;
}

/* The call's constants as vectors, and the flag accumulators: one per
 * flag word, OR-ed lane by lane. */
typedef struct {
    K_(vu) eminb, ecapb, mshift, maxf, qbits, halfqb, bigb, bordlo, vC, vEmin,
        tp, tn, ovb0, ovb1, ovd, negb, zerob, wov0, wov1, wov, wneg, wzero,
        vm0, lsbm, lsb1, podd, gapb;
    K_(vf) qsc1, qsc2;
} K_(cst);
typedef struct { K_(vu) up, dn, uf, ov0, ov1, neg, zero; } K_(acc);

/*
 * Elements [i0, iend) (whole vectors) in mode rm (FL__KM_RNEI: nearest
 * even by the integer path, for formats the float addition cannot serve).
 * var: the steps the format and options need (FL__NV_*).  lvl: which flags still need
 * accumulating: 2 all of them, 1 all but inexact, TERN_UP and TERN_DOWN
 * (set already; what remains is underflow, overflow and the
 * unsigned / no-zero words), 0 none (only lanes for the scalar code).  A
 * flag already in the result cannot change the OR, so skipping it is
 * exact.  rm, var, lvl and stream are constants in each inlined copy; the
 * loop calls nothing: lanes for the scalar code are noted in bidx / bval
 * with their input (dst may be src).  Returns how many were noted.
 * lw (tests only, a constant NULL in the library's copies): each lane's
 * flag words are stored to lw[i] instead of being OR-ed.  tiny: 0 when
 * underflow is set already (the tininess test is skipped, except for a
 * flush).  rb (stochastic rounding): the vectors' random bits, from
 * K_(srfill).
 */
K_INL size_t K_(run)(const fl__npar *P, const K_(cst) *K, float *dst,
                     const float *src, size_t i0, size_t iend, K_(acc) *A,
                     const K_(vu) *rb, uint32_t *bidx, uint32_t *bval,
                     unsigned *lw, const int rm, const int var, const int lvl,
                     const int stream, const int tiny)
{
    const K_(vu) zero = {0}, one = zero + 1, ones = zero - 1;
    const K_(vu) vabs = zero + 0x7FFFFFFFu, vsign = zero + 0x80000000u;
    const K_(vu) vinf = zero + 0x7F800000u, hid = zero + 0x00800000u;
    const K_(vu) v32 = zero + 32;
    const K_(vu) wup = zero + (FL_INEXACT | FL_TERN_UP);
    const K_(vu) wdn = zero + (FL_INEXACT | FL_TERN_DOWN);
    const K_(vu) wuf = zero + FL_UNDERFLOW;
    const int rt = var == FL__NV_RT;
    const int sht = P->sht, after = P->after;
    const int daz = rt ? P->daz : (var & FL__NV_DAZ) != 0;
    const int fz = rt ? P->fz : (var & FL__NV_FZ) != 0;
    const int uns = rt ? P->uns : (var & FL__NV_UNS) != 0;
    const int nozero = rt ? P->nozero : (var & FL__NV_NOZERO) != 0;
    const int nonegz = rt ? P->nonegz : (var & FL__NV_NONEGZ) != 0;
    const int lowsub = rt ? P->lowsub : (var & FL__NV_LOWSUB) != 0;
    const int dir = rm == FL_RUP || rm == FL_RDN;
    size_t i, nb = 0;
    for (i = i0; i < iend; i += K_W) {
        K_(vu) u, a, xin, r, res, rh = zero;
        K_M kneg = K_MZERO, ktiny = K_MZERO, kov, kbad, kamb = K_MZERO,
            kuns = K_MZERO, kz = K_MZERO;
        FL__ACCEL_PREFETCH(src + i, rm == FL_RSR);
        __builtin_memcpy(&u, src + i, sizeof u);
        a = u & vabs;
        if (dir || uns || lvl == 2)
            kneg = K_SIGNS(u);
        if (daz)
            a = K_MASKZ(K_GE(a, hid), a);       /* binary32 subnormals: 0 */
        xin = daz ? K_SIGNOR(a, u) : u;
        if (rm == FL_RSR)   /* the top 32 random bits of each lane */
            rh = rb[(i - i0) / K_W];

        if (rm == FL_RNE) {
            /* nearest even by the host's addition (see the top) */
            const K_(vu) mb = K_MINU(K_MAXU(a & vinf, K->eminb), K->ecapb) + K->mshift;
            r = (K_(vu))(((K_(vf))a + (K_(vf))mb) - (K_(vf))mb);
        } else if (lowsub) {
            /* every lane the kernel keeps is normal in f (2^emin <
             * 2^-126): the constant shift sh0 < 24, no lane below q */
            const K_(vu) mask = K->vm0;
            if (rm == FL_RSR) {
                /* rest << (32 - sh0): the fraction bits of a */
                const K_(vu) xh = a << (32 - P->C + 1);
                r = (a & ~mask) + K_MASKZ(K_LT(rh + xh, xh), mask + one);
            } else {
                switch (rm) {
                case FL__KM_RNEI:   /* the last bit: the hidden bit at 23 */
                    r = (a + (mask >> 1) + ((a >> (P->C - 1)) & K->lsbm) + K->lsb1) & ~mask;
                    break;
                case FL_RNA: r = (a + (mask >> 1) + one) & ~mask; break;
                case FL_RUP: r = (a + K_BLEND(kneg, zero, mask)) & ~mask; break;
                case FL_RDN: r = (a + K_MASKZ(kneg, mask)) & ~mask; break;
                case FL_RTO:
                    /* p = 1: the quotient is always odd, RTO truncates */
                    r = (a & ~mask) |
                        K_MASKZ(K_NE(a & mask, zero), (mask + one) & K->podd);
                    break;
                default: r = a & ~mask; break;      /* RTZ */
                }
            }
        } else {
            const K_(vu) sh = lowsub ? K->vC - one
                                     : K->vC - K_MINU(K_MAXU(a >> 23, one), K->vEmin);
            const K_(vu) mask = K_SLLV(one, sh) - one;  /* all ones: sh > 31 */
            const K_(vu) unit = mask + one;
            const K_(vu) trunc = a & ~mask;
            const K_M kbig = K_LT(a, K->bigb);          /* below q: 0 or q */
            if (rm == FL_RSR) {
                /* xh: the discarded part as a fraction of the unit, its
                 * top 32 bits (floor(rest 2^32 / 2^sh)) */
#ifdef K_CVTU
                /* lanes at or above q (sh <= 23): the low sh bits of a
                 * moved to the top; below q (sh >= 24): a / q 2^32,
                 * exact in binary32 (a power-of-two scaling, the result
                 * below 2^32) and truncated by the conversion */
                K_(vf) y = (K_(vf))a * K->qsc1;
                if (P->qsc2on)
                    y *= K->qsc2;
                const K_(vu) xh = K_BLEND(kbig, K_CVTU(y), K_SLLV(a, v32 - sh));
                const K_(vu) sum = rh + xh;
                const K_M kc = K_LT(sum, xh);
                /* below q the truncation may have dropped a carry: an
                 * all-ones sum goes to the scalar code (sh <= 32 there
                 * too, rarely, which is only slower) */
                kamb = K_EQM(kbig, sum, ones);
#else
                /* the significand with its hidden bit, shifted */
                const K_(vu) m = (a & (hid - one)) | K_MASKZ(K_GE(a, hid), hid);
                const K_(vu) xh = K_SLLV(m, v32 - sh) | K_SRLV(m, sh - v32);
                const K_(vu) sum = rh + xh;
                const K_M kc = K_LT(sum, xh);
                kamb = K_EQ(sum, ones) & K_GT(sh, v32);
#endif
                r = K_BLEND(kbig, K_MASKZ(kc, K->qbits), trunc + K_MASKZ(kc, unit));
            } else {
                /* the quotient's last bit: bit sh of the significand */
                const K_(vu) mh = a | K_MASKZ(K_GE(a, hid), hid);
                const K_(vu) lsb = K_SRLV(mh, sh) & one;
                K_(vu) rin;
                K_M kq;
                switch (rm) {
                case FL__KM_RNEI:
                    rin = (a + (mask >> 1) + lsb) & ~mask;
                    kq = K_GT(a, K->halfqb);
                    break;
                case FL_RNA:
                    rin = (a + (mask >> 1) + one) & ~mask;
                    kq = K_GE(a, K->halfqb);
                    break;
                case FL_RUP:
                    rin = (a + K_BLEND(kneg, zero, mask)) & ~mask;
                    kq = K_MNOT(kneg) & K_NE(a, zero);
                    break;
                case FL_RDN:
                    rin = (a + K_MASKZ(kneg, mask)) & ~mask;
                    kq = kneg & K_NE(a, zero);
                    break;
                case FL_RTO:
                    rin = trunc + K_MASKZ(K_NE(a & mask, zero) & K_EQ(lsb, zero), unit);
                    kq = K_NE(a, zero);
                    break;
                default:        /* RTZ */
                    rin = trunc;
                    kq = K_MZERO;
                    break;
                }
                r = K_BLEND(kbig, K_MASKZ(kq, K->qbits), rin);
            }
        }

        /* Tininess, for the flush and the underflow flag.  a = 0 passes
         * as tiny: it is exact, so it never underflows, and flushing it
         * changes nothing. */
        /* (tiny = 0: underflow is in the flags already; only a flush
         * reads the tiny lanes then) */
        if (!lowsub && (fz || (lvl > 0 && tiny))) {   /* lowsub: none is tiny */
            if (rm == FL_RSR) {
                /* 0 < a < tp (zero is exact: no flag, no flush), so that
                 * the usual vector without tiny lanes skips the rest */
                ktiny = K_LT(a - one, K->tp - one);
                if (after && K_ANYM(ktiny) && K_ANYM(ktiny & K_GE(r, K->eminb))) {
                    /* reached 2^emin: tiny unless the p-bit rounding with
                     * the same random bits carries to 2^emin as well */
                    const K_(vu) inc0 = rh >> (32 - sht);
                    ktiny &= K_MNOT(K_GE(a, K->bordlo) & K_GE(a + inc0, K->eminb));
                }
            } else if (dir) {
                ktiny = K_LT(a, K_BLEND(kneg, K->tn, K->tp));
            } else {
                ktiny = K_LT(a, K->tp);
            }
        }
        if (fz && !lowsub)
            r = K_MASKZ(K_MNOT(ktiny), r);
        if (nozero) {
            kz = K_EQ(a, zero);
            if (!lowsub)
                r = K_BLEND(K_LT(a, K->eminb) & K_MNOT(kz), K->eminb, r);
        }
        if (uns)
            res = r;    /* negative lanes are replaced, -0 becomes +0 */
        else
            res = K_SIGNOR(r, u);
        if (nonegz && !uns)
            res = K_MASKZ(K_NE(res, vsign), res);       /* -0 -> +0 */
        kov = K_GT(r, K->maxf);
        if (dir)
            res = K_BLEND(kov & kneg, K->ovb1,
                          K_BLEND(K_MANDN(kov, kneg), K->ovb0, res));
        else    /* the two results differ at most in the sign bit */
            res = K_OVSEL(res, kov, K->ovb0, K->ovd, u);
        if (uns) {
            kuns = kneg & K_NE(a, zero);
            res = K_BLEND(kuns, K->negb, res);
        }
        if (nozero)
            res = K_BLEND(kz, K->zerob, res);
        kbad = K_GE(a, vinf);
        if (lowsub)
            kbad |= K_LT(a - one, hid - one);   /* 0 < |x| < 2^-126 */
        if (rm == FL_RSR)
            kbad |= kamb;
        if (rt && P->gapb)      /* min_gap_up above 2^-126: scalar code */
            kbad |= K_GT(a, K->eminb) & K_LT(a, K->gapb);
        if ((rt ? P->p1tie : (var & FL__NV_P1TIE) != 0) &&
            (rm == FL_RNE || rm == FL__KM_RNEI))
            /* P3109, p = 1: a tie between 2^e and 2^(e+1), e >= emin */
            kbad |= K_EQ(a & (hid - one), hid >> 1) & K_GE(a, K->eminb);
        if (K_ANYM(kbad)) {
            /* note the lanes for the scalar code; no flags from them */
            const unsigned bad = K_BITS_OF(kbad);
            uint32_t xs[K_W];
            int j;
            __builtin_memcpy(xs, &u, sizeof xs);
            for (j = 0; j < K_W; j++)
                if (bad >> j & 1) {
                    bidx[nb] = (uint32_t)(i - i0) + (uint32_t)j;
                    bval[nb++] = xs[j];
                }
        }
        if (lvl > 0) {
            /* the lanes with their own flag words (or none) drop out */
            const K_M ko = K_MNOT(kbad | kuns | kz);
            K_(vu) w = zero;    /* lw: this vector's words, lane by lane */
#define K_FLAG(acc, m, word)                                                 \
    do {                                                                     \
        if (lw)                                                              \
            K_ACC(w, (m), (word));                                           \
        else                                                                 \
            K_ACC((acc), (m), (word));                                       \
    } while (0)
            if (lvl == 2) {
                /* inexact and the ternary from comparing result and input
                 * as binary32 values (a NaN result is unordered) */
                const K_M kup = K_FGT(res, xin) & ko, kdn = K_FGT(xin, res) & ko;
                K_FLAG(A->up, kup, wup);
                K_FLAG(A->dn, kdn, wdn);
                if (rm != FL_RSR || K_ANYM(ktiny))
                    K_FLAG(A->uf, ktiny & (kup | kdn), wuf);
                K_FLAG(A->ov0, K_MANDN(kov, kneg) & ko, K->wov0);
                K_FLAG(A->ov1, kov & kneg & ko, K->wov1);
            } else {
                /* inexact: the magnitude moved (tiny lanes are finite) */
                if (rm != FL_RSR || K_ANYM(ktiny))
                    K_FLAG(A->uf, ktiny & K_NE(r, a) & ko, wuf);
                K_FLAG(A->ov0, kov & ko, K->wov);
            }
            if (uns)
                K_FLAG(A->neg, K_MANDN(kuns, kbad), K->wneg);
            if (nozero)
                K_FLAG(A->zero, K_MANDN(kz, kbad), K->wzero);
#undef K_FLAG
            if (lw)
                __builtin_memcpy(lw + i, &w, sizeof w);
        }
        if (stream)
            K_STREAM(dst + i, res);
        else
            __builtin_memcpy(dst + i, &res, sizeof res);
    }
    return nb;
}

/*
 * The first n - n % K_W elements in mode rm, variant var.  Before each
 * chunk of FL__NCHUNK elements `need` says which flags can still change
 * the result, and the chunk runs at that level; then the chunk's lanes
 * for the scalar code go to fl_round_float.  Returns the count done.
 * lw (tests): every chunk at level tlvl, each lane's flags stored to lw.
 */
K_INL size_t K_(body)(const fl_format *f, const fl__npar *P,
                      const fl_ctx *c, float *dst, const float *src,
                      size_t n, unsigned *flags, unsigned *lw, int tlvl,
                      const int rm, const int var, const int stream)
{
    const K_(vu) zero = {0};
    const unsigned can = FL_INEXACT | FL_TERN_UP | FL_TERN_DOWN |
                         FL_UNDERFLOW | P->ovfl[0] | P->ovfl[1] |
                         P->negfl | P->zerofl;
    const int fastmode = rm == FL_RNE || rm == FL__KM_RNEI || rm == FL_RSR;
    const uint64_t seed = c->sr_seed;
    K_(cst) K;
    K_(acc) A = { zero, zero, zero, zero, zero, zero, zero };
    K_(v64) zb[2];
    unsigned fl = 0;
    size_t i0, done = n - n % K_W;

    K.eminb = zero + P->eminb;
    K.ecapb = zero + P->ecapb;
    K.mshift = zero + P->mshift;
    K.maxf = zero + P->maxf;
    K.qbits = zero + P->qbits;
    K.halfqb = zero + P->halfqb;
    K.bigb = zero + P->bigb;
    K.bordlo = zero + P->bordlo;
    K.vC = zero + (uint32_t)P->C;
    K.vEmin = zero + (uint32_t)P->Emin;
    K.tp = zero + P->tp;
    K.tn = zero + P->tn;
    K.ovb0 = zero + P->ovb[0];
    K.ovb1 = zero + P->ovb[1];
    K.ovd = K.ovb0 ^ K.ovb1;    /* 0 or the sign bit, but RUP/RDN */
    K.negb = zero + P->negb;
    K.zerob = zero + P->zerob;
    K.gapb = zero + P->gapb;
    K.qsc1 = (K_(vf))zero + P->qsc1;
    K.qsc2 = (K_(vf))zero + P->qsc2;
    K.wov0 = zero + P->ovfl[0];
    K.wov1 = zero + P->ovfl[1];
    K.wov = K.wov0 | K.wov1;
    K.wneg = zero + P->negfl;
    K.wzero = zero + P->zerofl;
    /* lowsub: mask of the sh0 low bits; the quotient's last bit is bit
     * sh0 of a, or for p = 1 the hidden bit, always 1 */
    /* (read only by lowsub formats, where C - 1 = sh0 < 24; other
     * formats' C may exceed 32) */
    K.vm0 = zero + (P->lowsub ? ((uint32_t)1 << (P->C - 1)) - 1 : 0);
    K.lsbm = zero + (uint32_t)(P->C - 1 < 23);
    K.lsb1 = zero + (uint32_t)(P->C - 1 >= 23);
    K.podd = zero - (uint32_t)(P->C - 1 < 23);
    K_(srinit)(zb, seed, c->sr_index);   /* the generator's states */

    for (i0 = 0; i0 < done; i0 += FL__NCHUNK) {
        const size_t iend = done - i0 < FL__NCHUNK ? done : i0 + FL__NCHUNK;
        const unsigned have = fl | K_(hor)(A.up | A.dn | A.uf | A.ov0 | A.ov1 |
                                           A.neg | A.zero);
        const unsigned need = can & ~have;
        uint32_t bidx[FL__NCHUNK], bval[FL__NCHUNK];
        K_(vu) rb[FL__NCHUNK / K_W];
        _Static_assert(FL__NCHUNK <= K_SRBLK, "K_(srfill) fills a chunk");
        size_t nb, b;
        const int tiny = (need & FL_UNDERFLOW) != 0;
        if (rm == FL_RSR)
            K_(srfill)(rb, (iend - i0) / K_W, zb, seed,
                      (const char *)(src + iend));
        if (lw)
            nb = tlvl == 1 && fastmode      /* the only modes with level 1 */
                ? K_(run)(P, &K, dst, src, i0, iend, &A, rb, bidx, bval,
                          lw, rm, var, 1, 0, 1)
                : K_(run)(P, &K, dst, src, i0, iend, &A, rb, bidx, bval,
                          lw, rm, var, 2, 0, 1);
        else if (fastmode && need == 0)
            nb = K_(run)(P, &K, dst, src, i0, iend, &A, rb, bidx, bval,
                         NULL, rm, var, 0, stream, 0);
        else if (fastmode && !(need & (FL_INEXACT | FL_TERN_UP | FL_TERN_DOWN)))
            nb = K_(run)(P, &K, dst, src, i0, iend, &A, rb, bidx, bval,
                         NULL, rm, var, 1, stream, tiny);
        else
            nb = K_(run)(P, &K, dst, src, i0, iend, &A, rb, bidx, bval,
                         NULL, rm, var, 2, stream, tiny);
        for (b = 0; b < nb; b++) {
            fl_ctx ci = *c;
            unsigned fe = 0;
            float v;
            __builtin_memcpy(&v, &bval[b], sizeof v);
            ci.sr_index = c->sr_index + (uint64_t)(i0 + bidx[b]);
            dst[i0 + bidx[b]] = fl_round_float(f, v, &ci, &fe);
            fl |= fe;
            if (lw)
                lw[i0 + bidx[b]] = fe;
        }
    }
    if (stream)
        _mm_sfence();     /* order the streaming stores before returning */
    fl |= K_(hor)(A.up | A.dn | A.uf | A.ov0 | A.ov1 | A.neg | A.zero);
    *flags |= fl;
    return done;
}

__attribute__((target(K_TARGET)))
static size_t K_NAME(const fl_format *f, const fl__npar *P, const fl_ctx *c,
                     float *dst, const float *src, size_t n, unsigned *flags)
{
    const int stream = n * sizeof *dst >= FL__NSTREAM_BYTES &&
                       ((uintptr_t)dst & (K_W * 4 - 1)) == 0;
    const int rm = c->rm == FL_RNE && !P->ftrick ? FL__KM_RNEI : c->rm;
    const int var = P->var;
    /* Specialised copies for nearest even and SR on the variants the
     * formats have (fl__npar_init; AVX2 only the plain one); everything
     * else runs the variant that reads the options at run time. */
#define K_GO(m, v)                                                           \
    return stream ? K_(body)(f, P, c, dst, src, n, flags, NULL, 0, m, v, 1) \
                  : K_(body)(f, P, c, dst, src, n, flags, NULL, 0, m, v, 0)
    if (rm == FL_RNE) {
        switch (var) {
        case FL__NV_PLAIN: K_GO(FL_RNE, FL__NV_PLAIN);
#if K_SPECIALISE
        case FL__NV_NOMZ: K_GO(FL_RNE, FL__NV_NOMZ);
        case FL__NV_UNSV: K_GO(FL_RNE, FL__NV_UNSV);
        case FL__NV_P1: K_GO(FL_RNE, FL__NV_P1);
#endif
        default: K_GO(FL_RNE, FL__NV_RT);
        }
    }
    if (rm == FL__KM_RNEI) {
#if K_SPECIALISE
        if (var == FL__NV_E8M0)
            K_GO(FL__KM_RNEI, FL__NV_E8M0);
#endif
        K_GO(FL__KM_RNEI, FL__NV_RT);
    }
    if (rm == FL_RSR) {
        switch (var) {
        case FL__NV_PLAIN: K_GO(FL_RSR, FL__NV_PLAIN);
#if K_SPECIALISE
        case FL__NV_NOMZ: K_GO(FL_RSR, FL__NV_NOMZ);
        case FL__NV_UNSV: K_GO(FL_RSR, FL__NV_UNSV);
        case FL__NV_E8M0: K_GO(FL_RSR, FL__NV_E8M0);
        /* P3109 at precision 1: its ties matter to nearest even only */
        case FL__NV_P1: K_GO(FL_RSR, FL__NV_NOMZ);
#endif
        default: K_GO(FL_RSR, FL__NV_RT);
        }
    }
    switch (rm) {
    case FL_RTZ: K_GO(FL_RTZ, FL__NV_RT);
    case FL_RDN: K_GO(FL_RDN, FL__NV_RT);
    case FL_RUP: K_GO(FL_RUP, FL__NV_RT);
    case FL_RNA: K_GO(FL_RNA, FL__NV_RT);
    case FL_RTO: K_GO(FL_RTO, FL__NV_RT);
    default: return 0;
    }
#undef K_GO
}

/* Tests: the variant that reads the options at run time, every chunk at
 * level lvl (1 or 2), each lane's flag words stored to lw[i] (the scalar
 * code's flags for the lanes it decides). */
__attribute__((target(K_TARGET)))
static size_t K_(trace)(const fl_format *f, const fl__npar *P,
                        const fl_ctx *c, float *dst, const float *src,
                        size_t n, unsigned *lw, int lvl)
{
    const int rm = c->rm == FL_RNE && !P->ftrick ? FL__KM_RNEI : c->rm;
    unsigned fl = 0;
#define K_GO(m)                                                              \
    case m:                                                                  \
        return K_(body)(f, P, c, dst, src, n, &fl, lw, lvl, m, FL__NV_RT, 0)
    switch (rm) {
    K_GO(FL_RNE);
    K_GO(FL__KM_RNEI);
    K_GO(FL_RTZ);
    K_GO(FL_RDN);
    K_GO(FL_RUP);
    K_GO(FL_RNA);
    K_GO(FL_RTO);
    K_GO(FL_RSR);
    default: return 0;
    }
#undef K_GO
}

#include "simd_kundef.h"
