/*
 * parse.c — correctly rounded decimal and hexadecimal text to any format.
 *
 * Grammar (the whole string, no surrounding whitespace):
 *   [+-] ( "inf" | "infinity" | "nan" | "snan" )            any case
 *   [+-] digits [ "." [digits] ] [ (e|E) [+-] digits ]
 *   [+-] "." digits [ (e|E) [+-] digits ]
 *   [+-] "0" (x|X) hexdigits [ "." [hexdigits] ] [ (p|P) [+-] digits ]
 *   [+-] "0" (x|X) "." hexdigits [ (p|P) [+-] digits ]
 *
 * The value is reduced to  (-1)^sign * sig * 2^(exp - 63)  with a 64-bit
 * sig whose lowest bit is sticky, and rounded once by fl__round_pack, so
 * every rounding mode, subnormals, flush-to-zero, saturation and all flags
 * come from the core's one rounding routine.  Exact inputs give sticky 0
 * and raise nothing.
 */
#include "internals.h"
#include "bignum.h"

/*
 * Significant decimal digits kept; later digits only feed a sticky bit.
 *
 * Why that is exact.  Rounding in any deterministic mode depends only on
 * where the value lies relative to the boundary points of the format: its
 * representable numbers (directed modes, round-to-odd) and the midpoints
 * between neighbours (nearest modes).  Each boundary is M * 2^e with M odd,
 * and for e < 0 its decimal expansion M * 5^-e / 10^-e has exactly
 * digits(M * 5^-e) significant digits.  For binary64, the widest format
 * (ebits <= 11, prec <= 53 bound every fl_format), the longest come from
 * e = -1075 (midpoints below 2^-1021, M < 2^54): M * 5^1075 < 10^767.65, so
 * a boundary has at most 768 significant digits (767 for representable
 * values, e >= -1074, M < 2^53).
 * Let D be the first 800 significant digits of the input, the leading one
 * at 10^dexp, and v the exact value with nonzero digits beyond them:
 * D * 10^(dexp-799) < v < (D + 1) * 10^(dexp-799).  A boundary B strictly
 * inside that interval would lie in [10^dexp, 10^(dexp+1)), so have its
 * leading digit at 10^dexp and, with <= 768 significant digits, be a
 * multiple of 10^(dexp-767) and so of 10^(dexp-799): an integer multiple
 * m * 10^(dexp-799) with D < m < D + 1, impossible.  So v rounds like
 * "D * 10^(dexp-799) plus a little", which is what the sticky bit says.
 * (Stochastic rounding sees a probability off by less than 10^-799.)
 */
#define PARSE_MAX_DIGITS 800

/* Exponents in the text saturate here; anything beyond over/underflows
 * long before, and the clamps below keep every bignum small. */
#define PARSE_EXP_LIMIT 1000000000

/* Extra binary orders of magnitude below the smallest subnormal at which a
 * value is treated as "a nonzero far below everything": fl__round_pack then
 * discards it entirely (shift >= 64) in every mode. */
#define PARSE_TINY_MARGIN 64

static int lower(int ch)
{
    return (ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch;
}

/* Whole remaining string equals word (lowercase), ignoring case. */
static int word_is(const char *p, const char *word)
{
    while (*word) {
        if (lower((unsigned char)*p) != *word)
            return 0;
        p++;
        word++;
    }
    return *p == '\0';
}

static int is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

static int hex_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = lower(ch);
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* Optional sign then at least one decimal digit, to the end of the string.
 * Saturates at +-PARSE_EXP_LIMIT.  Returns 0 or -1 on a syntax error. */
static int parse_exponent(const char *p, int64_t *out)
{
    int neg = 0;
    int64_t v = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!is_digit((unsigned char)*p))
        return -1;
    for (; is_digit((unsigned char)*p); p++) {
        if (v < PARSE_EXP_LIMIT)
            v = v * 10 + (*p - '0');
    }
    if (*p != '\0')
        return -1;
    if (v > PARSE_EXP_LIMIT)
        v = PARSE_EXP_LIMIT;
    *out = neg ? -v : v;
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    /* b > 0 */
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Largest binary exponent passed for a value that certainly overflows, and
 * the smallest for one far below the subnormals. */
static int32_t exp_huge(const fl_format *f)
{
    return f->emax + 64;
}

static int32_t exp_tiny(const fl_format *f)
{
    return f->emin - f->prec - PARSE_TINY_MARGIN;
}

static int finish(const fl_format *f, const fl_ctx *c, int sign,
                  int64_t exp, uint64_t sig, unsigned *flags, uint64_t *out)
{
    /* sig != 0.  Clamp the exponent: a value this far out rounds the same
     * (overflow, or everything discarded with the sticky bit set). */
    if (exp > exp_huge(f)) {
        exp = exp_huge(f);
    } else if (exp < exp_tiny(f)) {
        exp = exp_tiny(f);
        sig |= 1;
    }
    *out = fl__round_pack(f, c, sign, (int32_t)exp, sig, flags);
    return 0;
}

static int parse_hex(const fl_format *f, const char *p, const fl_ctx *c,
                     int sign, unsigned *flags, uint64_t *out)
{
    /* value = mant * 2^bexp (+ sticky below); mant keeps 61..64 bits. */
    uint64_t mant = 0;
    int64_t bexp = 0;
    int sticky = 0, any = 0, point = 0;

    for (;; p++) {
        int v;
        if (*p == '.') {
            if (point)
                return -1;
            point = 1;
            continue;
        }
        v = hex_value((unsigned char)*p);
        if (v < 0)
            break;
        any = 1;
        if (mant == 0 && v == 0) {
            if (point)
                bexp -= 4;
        } else if ((mant >> 60) == 0) {
            mant = mant * 16 + (uint64_t)v;
            if (point)
                bexp -= 4;
        } else {
            sticky |= v != 0;
            if (!point)
                bexp += 4;
        }
    }
    if (!any)
        return -1;
    if (*p == 'p' || *p == 'P') {
        int64_t e;
        if (parse_exponent(p + 1, &e) != 0)
            return -1;
        bexp += e;
    } else if (*p != '\0') {
        return -1;
    }
    if (mant == 0) {
        *out = fl__pack_zero(f, c, sign, flags);
        return 0;
    }
    {
        int lz = fl__clz64(mant);
        /* mant * 2^bexp = (mant << lz) * 2^(bexp - lz) */
        return finish(f, c, sign, bexp - lz + 63,
                      (mant << lz) | (uint64_t)sticky, flags, out);
    }
}

static int parse_dec(const fl_format *f, const char *p, const fl_ctx *c,
                     int sign, unsigned *flags, uint64_t *out)
{
    char dig[PARSE_MAX_DIGITS];
    int n = 0;                 /* significant digits kept in dig */
    int sticky = 0;            /* a nonzero digit beyond the kept ones */
    int64_t ndig = 0;          /* all mantissa digits */
    int64_t before = 0;        /* digits before the point */
    int64_t lead = -1;         /* index of the first nonzero digit */
    int point = 0;
    int64_t e10 = 0;

    for (;; p++) {
        if (*p == '.') {
            if (point)
                return -1;
            point = 1;
            continue;
        }
        if (!is_digit((unsigned char)*p))
            break;
        if (lead < 0 && *p != '0')
            lead = ndig;
        if (lead >= 0) {
            if (n < PARSE_MAX_DIGITS)
                dig[n++] = *p;
            else
                sticky |= *p != '0';
        }
        ndig++;
        if (!point)
            before++;
    }
    if (ndig == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        if (parse_exponent(p + 1, &e10) != 0)
            return -1;
    } else if (*p != '\0') {
        return -1;
    }
    if (lead < 0) {
        *out = fl__pack_zero(f, c, sign, flags);
        return 0;
    }
    while (n > 1 && dig[n - 1] == '0')
        n--;

    /* value = 0.dig[0..n) * 10^(before - lead + e10) (+ sticky), so the
     * leading digit sits at 10^dexp. */
    const int64_t dexp = before - lead - 1 + e10;

    /* Range clamps by decimal magnitude, value in [10^dexp, 10^(dexp+1)).
     * log10(2) < 30103/100000 < log10(2) + 2e-7.
     * Overflow: 10^dexp >= 2^(emax+1) once dexp >= (emax+1)*log10(2),
     * ensured by dexp > ceil((emax+2)*0.30103). */
    if (dexp > floor_div((int64_t)(f->emax + 2) * 30103, 100000) + 1)
        return finish(f, c, sign, exp_huge(f), (uint64_t)1 << 63, flags, out);
    /* Far below: 10^(dexp+1) <= 2^(exp_tiny) once
     * dexp + 1 <= exp_tiny * log10(2), ensured with a digit of slack. */
    if (dexp < floor_div((int64_t)exp_tiny(f) * 30103, 100000) - 2)
        return finish(f, c, sign, exp_tiny(f), ((uint64_t)1 << 63) | 1,
                      flags, out);

    /* D = the n kept digits as an integer; value = D * 10^E. */
    fl__bn num, q;
    fl__bn_set_u64(&num, 0);
    for (int i = 0; i < n;) {
        uint32_t chunk = 0, scale = 1;
        for (int j = 0; j < 9 && i < n; j++, i++) {
            chunk = chunk * 10 + (uint32_t)(dig[i] - '0');
            scale *= 10;
        }
        fl__bn_mul_add_small(&num, scale, chunk);
    }
    const int64_t e = dexp + 1 - n;
    int64_t x;                 /* value = Q * 2^x (+ sticky) */
    if (e >= 0) {
        /* D * 10^e = (D * 5^e) * 2^e exactly; e <= dexp <= 309 for binary64. */
        fl__bn_mul_pow5(&num, (int32_t)e);
        q = num;
        x = e;
    } else {
        /* D / 10^k = (D * 2^s / 5^k) * 2^(-s-k), k = -e; s makes the
         * quotient at least 2^63 (numerator >= 2^(bits(5^k) + 63)), so it
         * carries >= 64 significant bits before the sticky bit. */
        const int32_t k = (int32_t)-e;
        fl__bn den;
        fl__bn_set_u64(&den, 1);
        fl__bn_mul_pow5(&den, k);
        int32_t s = fl__bn_bitlen(&den) + 64 - fl__bn_bitlen(&num);
        if (s < 0)
            s = 0;
        fl__bn_shl(&num, s);
        sticky |= fl__bn_divmod(&q, &num, &den);
        x = -(int64_t)s - k;
    }
    /* q != 0 (D >= 1 and the quotient is at least 2^63 or D * 5^e). */
    return finish(f, c, sign, fl__bn_bitlen(&q) - 1 + x,
                  fl__bn_top64(&q) | (uint64_t)sticky, flags, out);
}

int fl_parse(const fl_format *f, const char *s, const fl_ctx *c,
             unsigned *flags, uint64_t *out)
{
    const fl_ctx dflt = FL_CTX_INIT;
    unsigned fl = 0;
    uint64_t r;
    int sign = 0, rc;
    const char *p = s;

    if (!c)
        c = &dflt;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-';
    const uint64_t sbit = sign ? f->sign_mask : 0;

    if (word_is(p, "inf") || word_is(p, "infinity")) {
        /* An exact infinity: in a format without one, fl__pack_inf gives
         * the largest finite (saturating) or the NaN pattern, as for a
         * conversion of an infinity. */
        r = fl__pack_inf(f, sign, c, &fl);
        rc = 0;
    } else if (word_is(p, "nan") || word_is(p, "snan")) {
        /* IEEE style: the quiet NaN (top fraction bit), or the signaling
         * one with fraction 1 (with prec == 2 that is the quiet bit; such a
         * format has no signaling NaN).  Other styles have one NaN per
         * sign, or one in all (fl__nan_of_sign); a FINITE format has none:
         * ml_dtypes' stand-in, and invalid, as for a converted NaN. */
        if (f->nan_style != FL_NANSTYLE_IEEE) {
            r = fl__nan_of_sign(f, sign);
            if (f->nan_style == FL_NANSTYLE_FINITE)
                fl |= FL_INVALID;
        } else {
            r = sbit | f->exp_mask |
                (p[0] == 's' || p[0] == 'S' ? 1 : (uint64_t)1 << (f->prec - 2));
        }
        rc = 0;
    } else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        rc = parse_hex(f, p + 2, c, sign, &fl, &r);
    } else {
        rc = parse_dec(f, p, c, sign, &fl, &r);
    }
    if (rc != 0)
        return -1;
    *out = r;
    if (flags)
        *flags |= fl;
    return 0;
}
