/*
 * mpfr_oracle.c — correctly rounded reference results from GNU MPFR.
 * See mpfr_oracle.h for the conventions.  Nothing here uses the core's
 * internals: operands are decoded and results encoded from the format
 * descriptor's numbers (ebits, prec, bias, emin, emax, max_bits) alone.
 */
#include "mpfr_oracle.h"

#include <string.h>

static const char *const op_names[FL_MPFR_OP_COUNT] = {
    "add", "sub", "mul", "div", "sqrt", "fma", "rem", "rint", "rint_exact"
};

const char *fl_mpfr_op_name(int op)
{
    return op >= 0 && op < FL_MPFR_OP_COUNT ? op_names[op] : "?";
}

#ifndef FPLAB_HAVE_MPFR

int fl_mpfr_available(void) { return 0; }
int fl_mpfr_arith(fl_mpfr_res *r, int op, const fl_format *f,
                  const uint64_t *ops, const fl_ctx *c)
{ (void)r; (void)op; (void)f; (void)ops; (void)c; return FL_MPFR_ENONE; }
int fl_mpfr_convert(fl_mpfr_res *r, const fl_format *dst,
                    const fl_format *src, uint64_t a, const fl_ctx *c)
{ (void)r; (void)dst; (void)src; (void)a; (void)c; return FL_MPFR_ENONE; }
int fl_mpfr_from_int(fl_mpfr_res *r, const fl_format *f, uint64_t v,
                     int is_signed, const fl_ctx *c)
{ (void)r; (void)f; (void)v; (void)is_signed; (void)c; return FL_MPFR_ENONE; }
int fl_mpfr_to_int(fl_mpfr_res *r, const fl_format *f, uint64_t a,
                   int width, int is_signed, int exact, const fl_ctx *c)
{
    (void)r; (void)f; (void)a; (void)width; (void)is_signed; (void)exact;
    (void)c;
    return FL_MPFR_ENONE;
}
int fl_mpfr_parse(fl_mpfr_res *r, const fl_format *f, const char *s,
                  const fl_ctx *c)
{ (void)r; (void)f; (void)s; (void)c; return FL_MPFR_ENONE; }

#else /* FPLAB_HAVE_MPFR */

#include <stdint.h>   /* before mpfr.h: enables the _uj/_sj functions */
#include <pthread.h>
#include <gmp.h>
#include <mpfr.h>

/* Working precision of the wide, round-to-odd image of an exact result.
 * A value rounded toward zero to W bits with its last bit set when
 * inexact rounds, to any precision <= W - 2, exactly as the exact value
 * does in every mode (the image is never on a rounding boundary unless
 * the exact value is).  W = 64 covers binary64 (p = 53). */
#define W 64

int fl_mpfr_available(void) { return 1; }

/* Serialize the exponent-range juggling only when MPFR keeps it global. */
static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ */
/* Decoding operands.                                                  */

enum { K_ZERO, K_FIN, K_INF, K_QNAN, K_SNAN };

typedef struct operand {
    int kind;
    int sign;
    mpfr_ptr v;    /* exact value for K_ZERO / K_FIN / K_INF */
} operand;

/* The format's numbers, derived here from its parameters (ebits, prec,
 * bias, nan style, signedness, zero) and never read from the core's
 * derived fields. */
typedef struct fmt_info {
    int fb;               /* fraction bits */
    int sbits;            /* 1 signed, 0 unsigned */
    uint64_t eall;        /* all-ones exponent field value */
    uint64_t fmask;       /* fraction mask */
    uint64_t mag_max;     /* largest finite magnitude encoding */
    int64_t emin, emax;   /* exponents of the smallest normal and of the
                             largest finite value */
} fmt_info;

static int fmt_sane(const fl_format *f)
{
    const int st = f ? f->nan_style : -1;
    if (!f || f->prec < 1 || f->prec > 53 || f->ebits < 1 || f->ebits > 11 ||
        st < 0 || st >= FL_NANSTYLE_COUNT ||
        f->width != (f->is_signed ? 1 : 0) + f->ebits + f->prec - 1)
        return 0;
    if (st == FL_NANSTYLE_IEEE && (f->prec < 2 || f->ebits < 2))
        return 0;
    if (!f->is_signed && st == FL_NANSTYLE_FNUZ)
        return 0;
    if (f->min_gap_up && f->has_zero)
        return 0;
    return f->has_zero || (!f->is_signed && !f->subnormals);
}

static fmt_info info_of(const fl_format *f)
{
    fmt_info i;
    uint64_t magall;
    i.fb = f->prec - 1;
    i.sbits = f->is_signed ? 1 : 0;
    i.eall = ((uint64_t)1 << f->ebits) - 1;
    i.fmask = ((uint64_t)1 << i.fb) - 1;
    magall = (i.eall << i.fb) | i.fmask;
    switch (f->nan_style) {
    case FL_NANSTYLE_IEEE:  i.mag_max = ((i.eall - 1) << i.fb) | i.fmask; break;
    case FL_NANSTYLE_FN:    i.mag_max = magall - 1; break;
    case FL_NANSTYLE_P3109:
        /* below the NaN (unsigned: the all-ones code) and the infinity
         * (extended domain: has_inf, the P3109 format's parameter) */
        i.mag_max = magall - (f->is_signed ? 0 : 1) - (f->has_inf ? 1 : 0);
        break;
    default:                i.mag_max = magall; break;   /* FINITE, FNUZ */
    }
    i.emin = (f->has_zero ? 1 : 0) - (int64_t)f->bias;
    i.emax = (int64_t)(i.mag_max >> i.fb) - f->bias;
    return i;
}

static uint64_t sign_bit(const fl_format *f, int sign)
{
    return sign && f->is_signed ? (uint64_t)1 << (f->width - 1) : 0;
}

/* A zero of that sign where the format has one: no -0 in FNUZ, P3109 and
 * unsigned formats. */
static uint64_t zero_bits(const fl_format *f, int sign)
{
    const int negzero = f->is_signed && f->nan_style != FL_NANSTYLE_FNUZ &&
                        f->nan_style != FL_NANSTYLE_P3109;
    return negzero ? sign_bit(f, sign) : 0;
}

static void decode(operand *o, const fl_format *f, uint64_t a, int daz)
{
    const fmt_info fi = info_of(f);
    const int fb = fi.fb;
    const uint64_t frac = a & fi.fmask;
    const uint64_t e = (a >> fb) & fi.eall;
    o->sign = f->is_signed ? (int)((a >> (f->width - 1)) & 1) : 0;
    if (f->nan_style == FL_NANSTYLE_P3109) {
        const uint64_t mag = a & ((fi.eall << fb) | fi.fmask);
        if (!f->is_signed && mag == ((fi.eall << fb) | fi.fmask)) {
            o->kind = K_QNAN;    /* unsigned: the all-ones code */
            return;
        }
        if (f->has_inf && mag == fi.mag_max + 1) {
            o->kind = K_INF;
            mpfr_set_inf(o->v, o->sign ? -1 : 1);
            return;
        }
    } else if (e == fi.eall) {
        if (f->nan_style == FL_NANSTYLE_IEEE) {
            if (frac == 0) {
                o->kind = K_INF;
                mpfr_set_inf(o->v, o->sign ? -1 : 1);
            } else {
                o->kind = (frac >> (fb - 1)) & 1 ? K_QNAN : K_SNAN;
            }
            return;
        }
        if (frac == fi.fmask && f->nan_style == FL_NANSTYLE_FN) {
            o->kind = K_QNAN;    /* the FN format's single NaN pattern */
            return;
        }
    }
    if (e == 0 && frac == 0 && o->sign &&
        (f->nan_style == FL_NANSTYLE_FNUZ || f->nan_style == FL_NANSTYLE_P3109)) {
        o->kind = K_QNAN;        /* 1.0...0: the one NaN */
        return;
    }
    if (e == 0 && f->has_zero && (frac == 0 || daz || !f->subnormals)) {
        o->kind = K_ZERO;
        mpfr_set_zero(o->v, o->sign ? -1 : 1);
        return;
    }
    o->kind = K_FIN;
    if (e == 0 && f->has_zero)   /* subnormal: frac * 2^(emin - fb) */
        mpfr_set_uj_2exp(o->v, frac, fi.emin - fb, MPFR_RNDN);
    else
        mpfr_set_uj_2exp(o->v, frac | ((uint64_t)1 << fb),
                         (intmax_t)e - f->bias - fb, MPFR_RNDN);
    if (o->sign)
        mpfr_neg(o->v, o->v, MPFR_RNDN);
}

static int is_nan_kind(int k) { return k == K_QNAN || k == K_SNAN; }

/* ------------------------------------------------------------------ */
/* Encoding results.                                                   */

static uint64_t nan_bits(const fl_format *f)
{
    const fmt_info fi = info_of(f);
    switch (f->nan_style) {
    case FL_NANSTYLE_FN:
        return (fi.eall << fi.fb) | fi.fmask;
    case FL_NANSTYLE_FNUZ:
        return sign_bit(f, 1);
    case FL_NANSTYLE_P3109:
        return f->is_signed ? sign_bit(f, 1) : (fi.eall << fi.fb) | fi.fmask;
    default:
        return (fi.eall << fi.fb) | ((uint64_t)1 << (fi.fb - 1));
    }
}

static uint64_t max_finite_bits(const fl_format *f)
{
    return info_of(f).mag_max;
}

static uint64_t inf_bits(const fl_format *f, int sign)
{
    const fmt_info fi = info_of(f);
    return sign_bit(f, sign) | (f->nan_style == FL_NANSTYLE_P3109
                                    ? fi.mag_max + 1
                                    : fi.eall << fi.fb);
}

/* A NaN result.  A FINITE format has none: ml_dtypes' stand-in, the sign
 * bit alone for a positive NaN and +0 for a negative one, with invalid;
 * nan_sign is the sign of the NaN being stood in for (x86: the default NaN
 * is negative, a converted NaN keeps its sign; the other presets always
 * give the positive one). */
static void set_nan_signed(fl_mpfr_res *r, const fl_format *f, int nan_sign)
{
    r->ternary = 0;
    if (f->nan_style == FL_NANSTYLE_FINITE) {
        r->bits = nan_sign ? 0 : sign_bit(f, 1);
        r->flags |= FL_INVALID;
        r->is_nan = 0;
        return;
    }
    r->bits = nan_bits(f);
    r->is_nan = 1;
}

/* x86 and SoftFloat's 8086-SSE specialisation propagate NaNs with their
 * sign and make their default NaN negative; ARM, RISC-V and CUDA give
 * their positive default NaN.  Of the rules real kernels show, sign,
 * sign-pos and first keep the sign, sign and default-neg have a negative
 * default NaN (fplab.h). */
static int keeps_nan_sign(const fl_ctx *c)
{
    return c->nan == FL_NANP_X86 || c->nan == FL_NANP_SOFTFLOAT ||
           c->nan == FL_NANP_SIGN || c->nan == FL_NANP_SIGN_POS ||
           c->nan == FL_NANP_FIRST;
}

static int default_nan_negative(const fl_ctx *c)
{
    return c->nan == FL_NANP_X86 || c->nan == FL_NANP_SOFTFLOAT ||
           c->nan == FL_NANP_SIGN || c->nan == FL_NANP_DEFAULT_NEG;
}

/* The NaN of an invalid operation under the context's preset. */
static void set_nan_ctx(fl_mpfr_res *r, const fl_format *f, const fl_ctx *c)
{
    set_nan_signed(r, f, default_nan_negative(c));
}

static int saturating(const fl_format *f, const fl_ctx *c)
{
    return f->saturate || c->saturate;
}

/* The format has infinities: IEEE, and P3109 in its extended domain. */
static int has_infinity(const fl_format *f)
{
    return f->nan_style == FL_NANSTYLE_IEEE ||
           (f->nan_style == FL_NANSTYLE_P3109 && f->has_inf);
}

/* Invalid: a NaN (FINITE: the stand-in) and the invalid flag. */
static void set_invalid(fl_mpfr_res *r, const fl_format *f, const fl_ctx *c)
{
    r->flags |= FL_INVALID;
    set_nan_ctx(r, f, c);
}

/* A negative nonzero value (or -inf) in an unsigned format: invalid; the
 * NaN, or the lowest encoding 0 when saturating (above the value). */
static void set_unsigned_negative(fl_mpfr_res *r, const fl_format *f,
                                  const fl_ctx *c)
{
    if (saturating(f, c)) {
        r->flags |= FL_INVALID;
        r->bits = 0;
        r->ternary = 1;
        r->is_nan = 0;
        return;
    }
    set_invalid(r, f, c);
}

/* An exact zero result of the given sign. */
static void set_zero(fl_mpfr_res *r, const fl_format *f, const fl_ctx *c,
                     int sign)
{
    r->is_nan = 0;
    r->ternary = 0;
    if (f->has_zero) {
        r->bits = zero_bits(f, sign);
        return;
    }
    /* no zero (E8M0): invalid, or the smallest value when saturating */
    if (saturating(f, c)) {
        r->bits = 0;
        r->flags |= FL_UNDERFLOW | FL_INEXACT;
        r->ternary = 1;
        return;
    }
    set_invalid(r, f, c);
}

/* An exact infinity (operand or division by zero) in f. */
static void set_inf(fl_mpfr_res *r, const fl_format *f, const fl_ctx *c,
                    int sign)
{
    r->is_nan = 0;
    if (sign && !f->is_signed) {
        set_unsigned_negative(r, f, c);
    } else if (has_infinity(f) && c->saturate != FL_SAT_FINITE) {
        r->bits = inf_bits(f, sign);
        r->ternary = 0;
    } else if (saturating(f, c) || f->nan_style == FL_NANSTYLE_FINITE) {
        r->bits = sign_bit(f, sign) | max_finite_bits(f);
        r->ternary = sign ? 1 : -1;
    } else {
        set_nan_signed(r, f, sign);
    }
}

/* Stochastic rounding with supplied bits (FL_RSB), transcribed from the
 * RoundAway clauses of P3109's RoundToPrecision (Interim Report v3.1,
 * 4.9.3) and gfloat's StochasticOdd: from the discarded part rest of shift
 * bits (nu = rest / 2^shift), F = floor(nu 2^(N+1)) and whether nu 2^(N+1)
 * is an integer; floor(nu 2^N) = F >> 1, and nu 2^N lies at a half-integer
 * exactly when F is odd and nu 2^(N+1) is an integer. */
static int srb_round_away(uint64_t rest, int64_t shift, const fl_ctx *c)
{
    const int n = c->sr_nbits;
    const unsigned __int128 two_n = (unsigned __int128)1 << n;
    const unsigned __int128 R = n >= 64 ? c->sr_bits
                                        : c->sr_bits & (((uint64_t)1 << n) - 1);
    unsigned __int128 F, fl, rn;
    int whole, half;
    if (shift >= n + 1) {
        const int64_t d = shift - (n + 1);
        if (d >= 64) {          /* rest != 0 lies wholly below the grid */
            F = 0;
            whole = 0;
        } else {
            F = (unsigned __int128)(rest >> d);
            whole = (rest & (((uint64_t)1 << d) - 1)) == 0;
        }
    } else {
        F = (unsigned __int128)rest << (n + 1 - shift);
        whole = 1;
    }
    fl = F >> 1;                       /* floor(nu 2^N) */
    half = (int)(F & 1);               /* the fraction of nu 2^N >= 1/2 */
    switch (c->sr_variant) {
    case FL_SRV_FASTEST:               /* StochasticA */
        return fl + R >= two_n;
    case FL_SRV_FAST:                  /* StochasticB */
        return F + 2 * R + 1 >= 2 * two_n;
    default:                           /* C: RNITE; odd: ties to odd */
        if (!half)
            rn = fl;
        else if (!whole)
            rn = fl + 1;               /* above the half-integer */
        else if (c->sr_variant == FL_SRV_STOCHASTIC_ODD)
            rn = (fl & 1) ? fl : fl + 1;
        else
            rn = (fl & 1) ? fl + 1 : fl;
        return rn + R >= two_n;
    }
}

/* Round the magnitude M * 2^(-shift) (M != 0, bit 63 set or not) to an
 * integer in the context's mode for a value of the given sign.  *dir is
 * +1 when the magnitude was increased, -1 when decreased, 0 when exact.
 * odd: the parity ties-to-even and round-to-odd judge, -1 for the
 * quotient's last bit (P3109 at precision 1: the code's, its exponent). */
static uint64_t round_mag(uint64_t M, int64_t shift, int sign,
                          const fl_ctx *c, int odd, int *dir)
{
    const int rm = c->rm;
    uint64_t rest;
    uint64_t m;
    int half;   /* discarded part vs half an ulp: -1 below, 0 equal, 1 above */
    int up;
    if (shift <= 0) {   /* never happens: precision <= 53 < W */
        *dir = 0;
        return M << -shift;
    }
    if (shift > 64) {
        m = 0;
        rest = M;
        half = -1;   /* M < 2^64 <= 2^(shift-1) */
    } else if (shift == 64) {
        m = 0;
        rest = M;
        half = M > ((uint64_t)1 << 63) ? 1 : M == ((uint64_t)1 << 63) ? 0 : -1;
    } else {
        const uint64_t h = (uint64_t)1 << (shift - 1);
        rest = M & (((uint64_t)1 << shift) - 1);
        m = M >> shift;
        if (rest == 0) {
            *dir = 0;
            return m;
        }
        half = rest > h ? 1 : rest == h ? 0 : -1;
    }
    if (odd < 0)
        odd = (int)(m & 1);
    switch (rm) {
    case FL_RNE: up = half > 0 || (half == 0 && odd); break;
    case FL_RNA: up = half >= 0; break;
    case FL_RTZ: up = 0; break;
    case FL_RUP: up = !sign; break;
    case FL_RDN: up = sign; break;
    case FL_RSB: up = srb_round_away(rest, shift, c); break;
    default:     up = !odd; break;       /* FL_RTO: the odd neighbour */
    }
    *dir = up ? 1 : -1;
    return m + (uint64_t)up;
}

/* P3109 at precision 1 judges ties and round-to-odd by the code's parity,
 * E + bias for 2^E (E >= emin); -1 elsewhere (the quotient's own bit). */
static int code_odd(const fl_format *f, int64_t E)
{
    if (f->prec != 1 || f->nan_style != FL_NANSTYLE_P3109 ||
        E < info_of(f).emin)
        return -1;
    return (int)((E + f->bias) & 1);
}

static void round_signed(fl_mpfr_res *r, const fl_format *f,
                         const fl_ctx *c, int sign, int64_t E, uint64_t M);

/* The rounding proper.  The exact value is (-1)^sign * M * 2^(E - 63),
 * M with bit 63 set and its last bit sticky (round-to-odd image), E the
 * exponent of the leading bit.  Fills bits, flags, ternary, is_nan. */
static void round_to_format(fl_mpfr_res *r, const fl_format *f,
                            const fl_ctx *c, int sign, int64_t E, uint64_t M)
{
    fl_mpfr_res t;
    r->is_nan = 0;
    if (!sign || f->is_signed) {
        round_signed(r, f, c, sign, E, M);
        return;
    }
    if (f->nan_style != FL_NANSTYLE_P3109) {   /* no negative numbers */
        set_unsigned_negative(r, f, c);
        return;
    }
    /* P3109: round, then saturate.  Zero stays zero; a nonzero negative
     * result is below the lowest value 0: 0 when saturating and, without
     * saturation, toward zero and upward (Interim Report v4.0, 4.7.5),
     * else NaN. */
    t = *r;
    round_signed(&t, f, c, 1, E, M);
    if (!t.is_nan && t.bits == 0 && !(t.flags & FL_OVERFLOW)) {
        *r = t;
        return;
    }
    if (saturating(f, c) || c->rm == FL_RTZ || c->rm == FL_RUP) {
        r->flags |= FL_INVALID;
        r->bits = 0;
        r->ternary = 1;
        return;
    }
    set_invalid(r, f, c);
}

static void round_signed(fl_mpfr_res *r, const fl_format *f,
                         const fl_ctx *c, int sign, int64_t E, uint64_t M)
{
    const fmt_info fi = info_of(f);
    const int p = f->prec, fb = fi.fb;
    const int rm = c->rm;
    const int flush = c->ftz || !f->subnormals;
    const uint64_t maxb = fi.mag_max;
    const uint64_t max_m = (maxb & fi.fmask) | ((uint64_t)1 << fb);
    int dir, dir_u, tiny, overflow;
    int64_t Eu;
    uint64_t mu, m;

    r->is_nan = 0;
    /* Unbounded exponent range, precision p. */
    mu = round_mag(M, 64 - p, sign, c, code_odd(f, E), &dir_u);
    Eu = E;
    /* ml_dtypes' E8M0 rule (min_gap_up, formats without zero): round to
     * nearest puts the boundary between 2^emin and the next value at
     * 2^emin itself, so an inexact value of the binade [2^emin,
     * 2^(emin+1)) that rounded down to 2^emin takes the next value. */
    if (f->min_gap_up && !f->has_zero && E == fi.emin && dir_u < 0 &&
        mu == (uint64_t)1 << fb && (rm == FL_RNE || rm == FL_RNA)) {
        mu++;
        dir_u = 1;
    }
    if (mu >> p) {           /* carried into a new binade */
        mu >>= 1;
        Eu++;
    }
    tiny = c->tininess == FL_TINY_BEFORE ? E < fi.emin : Eu < fi.emin;
    overflow = Eu > fi.emax || (Eu == fi.emax && mu > max_m);

    if (overflow) {
        int to_inf;
        r->flags |= FL_OVERFLOW | FL_INEXACT;
        switch (rm) {
        case FL_RNE: case FL_RNA: case FL_RSB: to_inf = 1; break;
        case FL_RUP: to_inf = !sign; break;
        case FL_RDN: to_inf = sign; break;
        /* RTO: IEEE's largest finite; P3109 saturates after rounding to
         * odd, so its OvfInf gives infinity (or the NaN) */
        case FL_RTO: to_inf = f->nan_style == FL_NANSTYLE_P3109; break;
        default:     to_inf = 0; break;     /* RTZ */
        }
        if (to_inf && !saturating(f, c) &&
            f->nan_style != FL_NANSTYLE_FINITE) {
            if (has_infinity(f)) {
                r->bits = inf_bits(f, sign);
                r->ternary = sign ? -1 : 1;
            } else {
                set_nan_signed(r, f, sign);
            }
        } else {
            r->bits = sign_bit(f, sign) | maxb;
            r->ternary = sign ? 1 : -1;
        }
        return;
    }
    if (E < fi.emin && !f->has_zero) {
        /* below the smallest value of a format without zero (E8M0):
         * that smallest value, in every mode */
        r->bits = 0;
        r->flags |= FL_INEXACT | (tiny ? FL_UNDERFLOW : 0);
        r->ternary = 1;
        return;
    }
    if (tiny && flush) {
        r->bits = zero_bits(f, sign);
        r->flags |= FL_UNDERFLOW | FL_INEXACT;
        r->ternary = sign ? 1 : -1;
        return;
    }
    if (E >= fi.emin) {      /* normal range: the unbounded result stands */
        m = mu;
        dir = dir_u;
        r->bits = sign_bit(f, sign) |
                  ((uint64_t)(Eu + f->bias) << fb) | (m & fi.fmask);
    } else {                 /* subnormal range: ulp 2^(emin - fb) */
        int64_t shift = fi.emin - fb - (E - 63);
        m = round_mag(M, shift, sign, c, -1, &dir);
        /* m <= 2^fb; m == 2^fb encodes the smallest normal, as it should */
        r->bits = m == 0 ? zero_bits(f, sign) : sign_bit(f, sign) | m;
    }
    if (dir) {
        r->flags |= FL_INEXACT;
        if (tiny)
            r->flags |= FL_UNDERFLOW;
    }
    r->ternary = sign ? -dir : dir;
}

/* ------------------------------------------------------------------ */
/* Requests: what to evaluate, at any precision and MPFR rounding.     */

typedef struct request {
    int op;                 /* fl_mpfr_op, or one of the R_ below */
    mpfr_ptr x, y, z;
    const char *str;
} request;

enum { R_SET = 100, R_PARSE = 101 };

static int eval(const request *q, mpfr_ptr rop, mpfr_rnd_t rnd)
{
    char *end;
    int t;
    switch (q->op) {
    case FL_MPFR_ADD:  return mpfr_add(rop, q->x, q->y, rnd);
    case FL_MPFR_SUB:  return mpfr_sub(rop, q->x, q->y, rnd);
    case FL_MPFR_MUL:  return mpfr_mul(rop, q->x, q->y, rnd);
    case FL_MPFR_DIV:  return mpfr_div(rop, q->x, q->y, rnd);
    case FL_MPFR_SQRT: return mpfr_sqrt(rop, q->x, rnd);
    case FL_MPFR_FMA:  return mpfr_fma(rop, q->x, q->y, q->z, rnd);
    case FL_MPFR_REM:  return mpfr_remainder(rop, q->x, q->y, rnd);
    case R_SET:        return mpfr_set(rop, q->x, rnd);
    case R_PARSE:
        t = mpfr_strtofr(rop, q->str, &end, 0, rnd);
        return t;
    default:           return 0;
    }
}

/* Encode an MPFR value already rounded to f (precision p, subnormalized)
 * for the cross-check.  Returns 0, or -1 if it is not finite-encodable. */
static int encode_mpfr(uint64_t *out, const fl_format *f, mpfr_srcptr v)
{
    const fmt_info fi = info_of(f);
    const int fb = fi.fb;
    MPFR_DECL_INIT(s, W);
    int sign = mpfr_signbit(v) != 0;
    if (mpfr_nan_p(v))
        return -1;
    if (mpfr_inf_p(v)) {
        *out = inf_bits(f, sign);
        return 0;
    }
    if (mpfr_zero_p(v)) {
        *out = zero_bits(f, sign);
        return 0;
    }
    mpfr_abs(s, v, MPFR_RNDN);
    if (mpfr_get_exp(s) - 1 < fi.emin) {
        mpfr_mul_2si(s, s, -((long)fi.emin - fb), MPFR_RNDN);
        *out = sign_bit(f, sign) | (uint64_t)mpfr_get_uj(s, MPFR_RNDN);
    } else {
        long E = (long)mpfr_get_exp(s) - 1;
        uint64_t m;
        if (E > fi.emax)
            return -1;
        mpfr_mul_2si(s, s, fb - E, MPFR_RNDN);
        m = (uint64_t)mpfr_get_uj(s, MPFR_RNDN);
        *out = sign_bit(f, sign) | ((uint64_t)(E + f->bias) << fb) |
               (m & fi.fmask);
    }
    return 0;
}

static mpfr_rnd_t mpfr_mode(int rm)
{
    switch (rm) {
    case FL_RTZ: return MPFR_RNDZ;
    case FL_RDN: return MPFR_RNDD;
    case FL_RUP: return MPFR_RNDU;
    default:     return MPFR_RNDN;
    }
}

/* The MPFR manual's way (RNE RTZ RDN RUP only): round to p bits, then
 * into f's exponent range (emax + 1, emin - p + 2) and subnormalize.  The
 * result must equal ours wherever MPFR's range models f exactly. */
static int cross_check(fl_mpfr_res *r, const request *q, const fl_format *f,
                       const fl_ctx *c)
{
    const int rm = c->rm;
    const mpfr_rnd_t rnd = mpfr_mode(rm);
    const int tls = mpfr_buildopt_tls_p();
    mpfr_exp_t old_emin, old_emax;
    mpfr_t v;
    uint64_t bits;
    int t, rc;

    if (rm != FL_RNE && rm != FL_RTZ && rm != FL_RDN && rm != FL_RUP)
        return 0;
    if (r->is_nan || saturating(f, c) || !f->subnormals || c->ftz ||
        !f->has_zero || (r->flags & FL_INVALID))
        return 0;
    if (f->nan_style == FL_NANSTYLE_P3109 && f->prec == 1)
        return 0;        /* MPFR's ties at precision 1 go up, P3109's even */
    if (f->nan_style != FL_NANSTYLE_IEEE && (r->flags & FL_OVERFLOW))
        return 0;        /* MPFR's range would include the top binade */
    mpfr_init2(v, f->prec);
    t = eval(q, v, rnd);
    if (!tls)
        pthread_mutex_lock(&range_lock);
    old_emin = mpfr_get_emin();
    old_emax = mpfr_get_emax();
    mpfr_set_emin(info_of(f).emin - f->prec + 2);
    mpfr_set_emax(info_of(f).emax + 1);
    t = mpfr_check_range(v, t, rnd);
    mpfr_subnormalize(v, t, rnd);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    if (!tls)
        pthread_mutex_unlock(&range_lock);
    rc = encode_mpfr(&bits, f, v);
    mpfr_clear(v);
    if (rc != 0 || bits != r->bits) {
        r->check_bits = rc ? ~(uint64_t)0 : bits;
        return FL_MPFR_ESELF;
    }
    return 0;
}

static int finish(fl_mpfr_res *r, const request *q, const fl_format *f,
                  const fl_ctx *c)
{
    MPFR_DECL_INIT(t, W);
    MPFR_DECL_INIT(s, W);
    int tern, sign;
    int64_t E;
    uint64_t M;

    tern = eval(q, t, MPFR_RNDZ);
    if (mpfr_nan_p(t)) {              /* only "nan" strings get here */
        /* MPFR leaves a NaN's sign unspecified: take the string's */
        set_nan_signed(r, f, q->op == R_PARSE && q->str[0] == '-');
        return 0;
    }
    sign = mpfr_signbit(t) != 0;
    if (mpfr_inf_p(t) && tern == 0) {   /* exact infinity */
        set_inf(r, f, c, sign);
        return 0;
    }
    if (mpfr_zero_p(t) && tern == 0) {  /* exact zero: sign by the mode */
        eval(q, t, c->rm == FL_RDN ? MPFR_RNDD : MPFR_RNDN);
        set_zero(r, f, c, mpfr_signbit(t) != 0);
        return 0;
    }
    if (mpfr_inf_p(t)) {          /* beyond MPFR's range: huge */
        E = (int64_t)1 << 40;
        M = ~(uint64_t)0;
    } else if (mpfr_zero_p(t)) {  /* below MPFR's range: tiny */
        E = -((int64_t)1 << 40);
        M = ((uint64_t)1 << 63) | 1;
    } else {
        E = (int64_t)mpfr_get_exp(t) - 1;
        mpfr_abs(s, t, MPFR_RNDN);
        mpfr_mul_2si(s, s, 64 - mpfr_get_exp(t), MPFR_RNDN);
        M = (uint64_t)mpfr_get_uj(s, MPFR_RNDN);
        if (tern != 0)
            M |= 1;
    }
    round_to_format(r, f, c, sign, E, M);
    return cross_check(r, q, f, c);
}

static void res_init(fl_mpfr_res *r)
{
    memset(r, 0, sizeof *r);
}

static int ctx_ok(const fl_ctx *c)
{
    return c && (c->rm <= FL_RTO ||
                 (c->rm == FL_RSB && c->sr_nbits >= 1 && c->sr_nbits <= 64 &&
                  c->sr_variant < FL_SRV_COUNT));
}

/* Whether the integral value v is odd. */
static int odd_integer(mpfr_srcptr v)
{
    MPFR_DECL_INIT(h, 2 * W);
    if (mpfr_zero_p(v))
        return 0;
    mpfr_div_2ui(h, v, 1, MPFR_RNDN);
    return !mpfr_integer_p(h);
}

/* Round the finite nonzero x to an integer in mode rm (RTO: the odd
 * neighbour when inexact).  Returns 1 if the result differs from x. */
static int round_integral(mpfr_ptr out, mpfr_srcptr x, int rm)
{
    MPFR_DECL_INIT(fr, 2 * W);
    int sign = mpfr_signbit(x) != 0, half, up, changed;
    mpfr_trunc(out, x);                       /* exact: out has >= p bits */
    mpfr_sub(fr, x, out, MPFR_RNDN);          /* exact, |fr| < 1 */
    if (mpfr_zero_p(fr))
        return 0;
    changed = 1;
    mpfr_abs(fr, fr, MPFR_RNDN);
    half = mpfr_cmp_ui_2exp(fr, 1, -1);
    switch (rm) {
    case FL_RNE: up = half > 0 || (half == 0 && odd_integer(out)); break;
    case FL_RNA: up = half >= 0; break;
    case FL_RTZ: up = 0; break;
    case FL_RUP: up = !sign; break;
    case FL_RDN: up = sign; break;
    default:     up = !odd_integer(out); break;   /* RTO */
    }
    if (up) {
        if (sign)
            mpfr_sub_ui(out, out, 1, MPFR_RNDN);
        else
            mpfr_add_ui(out, out, 1, MPFR_RNDN);
    }
    if (mpfr_zero_p(out))         /* keep the operand's sign on zero */
        mpfr_set_zero(out, sign ? -1 : 1);
    return changed;
}


/* ------------------------------------------------------------------ */
/* Public entry points.                                                */

static int op_arity(int op)
{
    switch (op) {
    case FL_MPFR_SQRT: case FL_MPFR_RINT: case FL_MPFR_RINT_EXACT: return 1;
    case FL_MPFR_FMA: return 3;
    default: return 2;
    }
}

static int rint_value(fl_mpfr_res *r, const fl_format *f, const fl_ctx *c,
                      const operand *a, int exact)
{
    MPFR_DECL_INIT(out, W);
    request q = { R_SET, out, NULL, NULL, NULL };
    int changed, rc;
    if (a->kind == K_INF) {
        set_inf(r, f, c, a->sign);
        return 0;
    }
    if (a->kind == K_ZERO) {
        set_zero(r, f, c, a->sign);
        return 0;
    }
    changed = round_integral(out, a->v, c->rm);
    /* an integer of <= p bits: exact, unless rounding up the largest
     * finite value of a format whose integers reach past it overflowed */
    rc = finish(r, &q, f, c);
    /* The ternary of round-to-integral compares the result with the
     * operand (as mpfr_rint does): the integer, or what the format made of
     * it (overflow, flush-to-zero of a tiny integer, E8M0's missing zero). */
    if (!r->is_nan) {
        operand res;
        MPFR_DECL_INIT(rv, W);
        res.v = rv;
        decode(&res, f, r->bits, 0);
        r->ternary = mpfr_cmp(rv, a->v) > 0 ? 1
                     : mpfr_cmp(rv, a->v) < 0 ? -1 : 0;
    }
    if (changed && exact)
        r->flags |= FL_INEXACT;
    return rc;
}

int fl_mpfr_arith(fl_mpfr_res *r, int op, const fl_format *f,
                  const uint64_t *ops, const fl_ctx *c)
{
    MPFR_DECL_INIT(v0, W);
    MPFR_DECL_INIT(v1, W);
    MPFR_DECL_INIT(v2, W);
    operand o[3];
    request q;
    int n, i, any_nan = 0, any_snan = 0, prod_invalid, invalid = 0;

    res_init(r);
    if (!fmt_sane(f) || !ctx_ok(c) || op < 0 || op >= FL_MPFR_OP_COUNT ||
        (c->rm == FL_RSB && (op == FL_MPFR_RINT || op == FL_MPFR_RINT_EXACT)))
        return FL_MPFR_EARG;      /* integral rounding with bits: not here */
    n = op_arity(op);
    o[0].v = v0; o[1].v = v1; o[2].v = v2;
    for (i = 0; i < n; i++) {
        decode(&o[i], f, ops[i], c->daz);
        any_nan |= is_nan_kind(o[i].kind);
        any_snan |= o[i].kind == K_SNAN;
    }
    prod_invalid = n >= 2 &&
        ((o[0].kind == K_ZERO && o[1].kind == K_INF) ||
         (o[0].kind == K_INF && o[1].kind == K_ZERO));
    if (any_nan) {
        /* 0 * inf + quiet NaN: invalid on ARM, RISC-V, CUDA and in
         * SoftFloat (which also returns the default NaN, not the addend:
         * any NaN matches here); x86 FMA3 returns the NaN without
         * invalid. */
        if (any_snan || (op == FL_MPFR_FMA && prod_invalid &&
                         c->nan != FL_NANP_X86))
            r->flags |= FL_INVALID;
        set_nan_ctx(r, f, c);
        return 0;
    }
    switch (op) {
    case FL_MPFR_ADD:
        invalid = o[0].kind == K_INF && o[1].kind == K_INF &&
                  o[0].sign != o[1].sign;
        break;
    case FL_MPFR_SUB:
        invalid = o[0].kind == K_INF && o[1].kind == K_INF &&
                  o[0].sign == o[1].sign;
        break;
    case FL_MPFR_MUL:
        invalid = prod_invalid;
        break;
    case FL_MPFR_DIV:
        invalid = (o[0].kind == K_ZERO && o[1].kind == K_ZERO) ||
                  (o[0].kind == K_INF && o[1].kind == K_INF);
        if (!invalid && o[0].kind == K_FIN && o[1].kind == K_ZERO) {
            r->flags |= FL_DIVBYZERO;
            set_inf(r, f, c, o[0].sign ^ o[1].sign);
            return 0;
        }
        break;
    case FL_MPFR_SQRT:
        invalid = o[0].sign && o[0].kind != K_ZERO;
        break;
    case FL_MPFR_FMA:
        invalid = prod_invalid ||
            ((o[0].kind == K_INF || o[1].kind == K_INF) &&
             o[2].kind == K_INF && (o[0].sign ^ o[1].sign) != o[2].sign);
        break;
    case FL_MPFR_REM:
        invalid = o[0].kind == K_INF || o[1].kind == K_ZERO;
        if (!invalid && o[1].kind == K_INF) {   /* rem(x, inf) = x */
            q.op = R_SET; q.x = o[0].v; q.y = q.z = NULL; q.str = NULL;
            return finish(r, &q, f, c);
        }
        break;
    default:   /* rint */
        return rint_value(r, f, c, &o[0], op == FL_MPFR_RINT_EXACT);
    }
    if (invalid) {
        set_invalid(r, f, c);
        return 0;
    }
    q.op = op; q.x = o[0].v; q.y = o[1].v; q.z = o[2].v; q.str = NULL;
    return finish(r, &q, f, c);
}

int fl_mpfr_convert(fl_mpfr_res *r, const fl_format *dst,
                    const fl_format *src, uint64_t a, const fl_ctx *c)
{
    MPFR_DECL_INIT(v, W);
    operand o;
    request q;
    res_init(r);
    if (!fmt_sane(dst) || !fmt_sane(src) || !ctx_ok(c))
        return FL_MPFR_EARG;
    o.v = v;
    decode(&o, src, a, c->daz);
    if (is_nan_kind(o.kind)) {
        if (o.kind == K_SNAN)
            r->flags |= FL_INVALID;
        /* x86 and SoftFloat keep the NaN's sign; the other presets give
         * their default, positive NaN (FINITE: the stand-in, with invalid) */
        set_nan_signed(r, dst, keeps_nan_sign(c) ? o.sign
                                                 : default_nan_negative(c));
        return 0;
    }
    if (o.kind == K_INF) {
        set_inf(r, dst, c, o.sign);
        return 0;
    }
    q.op = R_SET; q.x = v; q.y = q.z = NULL; q.str = NULL;
    return finish(r, &q, dst, c);
}

int fl_mpfr_from_int(fl_mpfr_res *r, const fl_format *f, uint64_t v,
                     int is_signed, const fl_ctx *c)
{
    MPFR_DECL_INIT(x, W);
    request q = { R_SET, x, NULL, NULL, NULL };
    res_init(r);
    if (!fmt_sane(f) || !ctx_ok(c))
        return FL_MPFR_EARG;
    if (is_signed)
        mpfr_set_sj(x, (intmax_t)(int64_t)v, MPFR_RNDN);
    else
        mpfr_set_uj(x, (uintmax_t)v, MPFR_RNDN);
    return finish(r, &q, f, c);
}

/* What a to-integer conversion returns on invalid, per NaN preset. */
static uint64_t int_invalid_value(int preset, int width, int is_signed,
                                  int what /* 0 NaN, 1 +ovf, -1 -ovf */)
{
    const uint64_t umax = width == 64 ? ~(uint64_t)0
                                      : ((uint64_t)1 << width) - 1;
    const uint64_t smax = umax >> 1, smin = smax + 1;   /* zero-extended */
    switch (preset) {
    case FL_NANP_X86:
    case FL_NANP_SOFTFLOAT:   /* SoftFloat 8086-SSE: x86's values */
    case FL_NANP_SIGN:        /* the rules with x86's default NaN */
    case FL_NANP_DEFAULT_NEG:
        return is_signed ? smin : umax;
    case FL_NANP_RISCV:
        if (what == 0)
            return is_signed ? smax : umax;
        break;
    default:   /* ARM, CUDA, sign-pos, first */
        if (what == 0)
            return 0;
        break;
    }
    if (what > 0)
        return is_signed ? smax : umax;
    return is_signed ? smin : 0;
}

int fl_mpfr_to_int(fl_mpfr_res *r, const fl_format *f, uint64_t a,
                   int width, int is_signed, int exact, const fl_ctx *c)
{
    MPFR_DECL_INIT(v, W);
    MPFR_DECL_INIT(out, W);
    MPFR_DECL_INIT(lo, W);
    MPFR_DECL_INIT(hi, W);
    operand o;
    int changed;
    res_init(r);
    if (!fmt_sane(f) || !ctx_ok(c) || c->rm == FL_RSB ||
        (width != 32 && width != 64))
        return FL_MPFR_EARG;
    o.v = v;
    decode(&o, f, a, c->daz);
    if (is_nan_kind(o.kind) || o.kind == K_INF) {
        r->flags = FL_INVALID;
        r->bits = int_invalid_value(c->nan, width, is_signed,
                                    is_nan_kind(o.kind) ? 0 : o.sign ? -1 : 1);
        return 0;
    }
    if (o.kind == K_ZERO)
        return 0;
    changed = round_integral(out, v, c->rm);
    if (is_signed) {
        mpfr_set_si_2exp(lo, -1, width - 1, MPFR_RNDN);
        mpfr_set_ui_2exp(hi, 1, width - 1, MPFR_RNDN);
    } else {
        mpfr_set_ui(lo, 0, MPFR_RNDN);
        mpfr_set_ui_2exp(hi, 1, width, MPFR_RNDN);
    }
    mpfr_sub_ui(hi, hi, 1, MPFR_RNDN);   /* exact at 64 bits */
    if (mpfr_cmp(out, lo) < 0 || mpfr_cmp(out, hi) > 0) {
        r->flags = FL_INVALID;
        r->bits = int_invalid_value(c->nan, width, is_signed,
                                    o.sign ? -1 : 1);
        return 0;
    }
    if (is_signed) {
        int64_t s = (int64_t)mpfr_get_sj(out, MPFR_RNDN);
        r->bits = width == 64 ? (uint64_t)s : (uint64_t)(uint32_t)(int32_t)s;
    } else {
        r->bits = (uint64_t)mpfr_get_uj(out, MPFR_RNDN);
    }
    if (changed) {
        if (exact)
            r->flags |= FL_INEXACT;
        r->ternary = mpfr_cmp(out, v) > 0 ? 1 : -1;
    }
    return 0;
}

/* Whether the exponent written in s (after e/E, or p/P in hex) has more
 * than 15 digits: MPFR reads it into a long, and one beyond that range
 * wraps (found by fuzz_parse: "5e-32401101022302456251" read as huge). */
static int exponent_too_long(const char *s)
{
    const int hex = strstr(s, "0x") != NULL || strstr(s, "0X") != NULL;
    const char *mark = NULL, *p;
    int digits = 0;
    for (p = s; *p; p++)
        if (hex ? (*p == 'p' || *p == 'P') : (*p == 'e' || *p == 'E'))
            mark = p;
    if (mark == NULL)
        return 0;
    p = mark + 1;
    if (*p == '+' || *p == '-')
        p++;
    while (*p == '0')              /* leading zeros do not count */
        p++;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    return digits > 15;
}

int fl_mpfr_parse(fl_mpfr_res *r, const fl_format *f, const char *s,
                  const fl_ctx *c)
{
    MPFR_DECL_INIT(t, W);
    request q = { R_PARSE, NULL, NULL, NULL, s };
    char *end;
    res_init(r);
    if (!fmt_sane(f) || !ctx_ok(c) || !s || exponent_too_long(s))
        return FL_MPFR_EARG;
    mpfr_strtofr(t, s, &end, 0, MPFR_RNDN);
    if (end == s || *end != '\0')
        return FL_MPFR_EARG;
    return finish(r, &q, f, c);
}

#endif /* FPLAB_HAVE_MPFR */
