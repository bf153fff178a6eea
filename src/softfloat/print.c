/*
 * print.c — exact decimal, shortest round-trip decimal and C99 hex-float
 * text of a value in any format.
 *
 * All three behave like snprintf: they return the length the whole string
 * needs (without the NUL) and write at most len bytes including the NUL.
 * A finite nonzero value is m * 2^e with m odd; for e < 0 its decimal
 * expansion is m * 5^-e / 10^-e, which the bignum computes exactly.
 */
#include "internals.h"
#include "bignum.h"

/* Significant digits of any exact value: at most 767 (binary64,
 * m < 2^53, e >= -1074: m * 5^1074 < 10^767), 309 for integers. */
#define PRINT_MAX_DIGITS 800

typedef struct out_buf {
    char *buf;
    size_t len;    /* capacity including the NUL */
    size_t pos;    /* characters produced so far (may exceed len) */
} out_buf;

static void put(out_buf *o, char ch)
{
    if (o->pos + 1 < o->len)
        o->buf[o->pos] = ch;
    o->pos++;
}

static void puts_(out_buf *o, const char *s)
{
    while (*s)
        put(o, *s++);
}

static size_t finish(out_buf *o)
{
    if (o->len > 0)
        o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
    return o->pos;
}

/* Decimal exponent with sign and at least two digits ("e+05", "e-324"). */
static void put_exp10(out_buf *o, int32_t e)
{
    char t[12];
    int k = 0;
    uint32_t v = e < 0 ? (uint32_t)-(int64_t)e : (uint32_t)e;
    put(o, 'e');
    put(o, e < 0 ? '-' : '+');
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (k < 2)
        t[k++] = '0';
    while (k)
        put(o, t[--k]);
}

static void put_int(out_buf *o, int64_t v)
{
    char t[24];
    int k = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        put(o, '-');
    do {
        t[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (k)
        put(o, t[--k]);
}

/* Writes "nan", "inf", "-inf" or the signed zero `zero` for non-finite
 * classes and returns 1; returns 0 for a finite nonzero value. */
static int put_special(out_buf *o, const fl_unp *u, const char *zero)
{
    switch (u->cls) {
    case FL_U_QNAN:
    case FL_U_SNAN:
        puts_(o, "nan");
        return 1;
    case FL_U_INF:
        puts_(o, u->sign ? "-inf" : "inf");
        return 1;
    case FL_U_ZERO:
        if (u->sign)
            put(o, '-');
        puts_(o, zero);
        return 1;
    default:
        return 0;
    }
}

/* Exact significant digits of a finite nonzero |value|: value =
 * 0.dig[0..n) * 10^(*dexp + 1), dig[0] != '0', no trailing zeros.
 * Returns n. */
static int exact_digits(const fl_unp *u, char *dig, int32_t *dexp)
{
    fl__bn b;
    const int tz = __builtin_ctzll(u->sig);
    const uint64_t m = u->sig >> tz;              /* odd */
    const int32_t e2 = u->exp - 63 + tz;          /* value = m * 2^e2 */
    int32_t k = 0;                                /* value = N / 10^k */
    int n;

    fl__bn_set_u64(&b, m);
    if (e2 >= 0) {
        fl__bn_shl(&b, e2);
    } else {
        k = -e2;
        fl__bn_mul_pow5(&b, k);
    }
    n = (int)fl__bn_to_dec(&b, dig, PRINT_MAX_DIGITS);
    *dexp = n - 1 - k;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    return n;
}

/* Positional notation of 0.dig[0..n) * 10^(dexp+1), sign already out. */
static void put_positional(out_buf *o, const char *dig, int n, int32_t dexp)
{
    if (dexp < 0) {
        puts_(o, "0.");
        for (int32_t i = -1; i > dexp; i--)
            put(o, '0');
        for (int i = 0; i < n; i++)
            put(o, dig[i]);
        return;
    }
    for (int32_t i = 0; i <= dexp; i++)
        put(o, i < n ? dig[i] : '0');
    if (n > dexp + 1) {
        put(o, '.');
        for (int i = dexp + 1; i < n; i++)
            put(o, dig[i]);
    }
}

/* d[.ddd]e+XX */
static void put_scientific(out_buf *o, const char *dig, int n, int32_t dexp)
{
    put(o, dig[0]);
    if (n > 1) {
        put(o, '.');
        for (int i = 1; i < n; i++)
            put(o, dig[i]);
    }
    put_exp10(o, dexp);
}

size_t fl_print_exact(const fl_format *f, uint64_t a, char *buf, size_t len)
{
    out_buf o = { buf, len, 0 };
    const fl_unp u = fl__unpack(f, a, NULL);
    char dig[PRINT_MAX_DIGITS];
    int32_t dexp;
    int n;

    if (put_special(&o, &u, "0"))
        return finish(&o);
    n = exact_digits(&u, dig, &dexp);
    if (u.sign)
        put(&o, '-');
    put_positional(&o, dig, n, dexp);
    return finish(&o);
}

/* Whether rounding 0.dig[0..n) to nd < n significant digits to nearest,
 * ties to even on the decimal digits, goes up. */
static int nearest_is_up(const char *dig, int n, int nd)
{
    if (dig[nd] != '5')
        return dig[nd] > '5';
    /* a 5: beyond it only nonzero digits remain if nd + 1 < n (dig has no
     * trailing zeros); exactly halfway otherwise */
    return nd + 1 < n || ((dig[nd - 1] - '0') & 1);
}

/* The nd-digit truncation of 0.dig[0..n), plus one unit in its last place
 * when up, into r; returns the digit count after dropping trailing zeros
 * and adjusts *dexp when 9...9 carries into a new leading digit. */
static int cut_digits(const char *dig, int nd, int up, char *r,
                      int32_t *dexp)
{
    for (int i = 0; i < nd; i++)
        r[i] = dig[i];
    if (up) {
        int i = nd - 1;
        while (i >= 0 && r[i] == '9')
            r[i--] = '0';
        if (i < 0) {
            r[0] = '1';
            ++*dexp;
            return 1;
        }
        r[i]++;
    }
    while (nd > 1 && r[nd - 1] == '0')
        nd--;
    return nd;
}

/* Whether 0.r[0..rn) * 10^(rexp+1) parses back to the magnitude mag
 * under RNE without overflow (which a saturating format would hide). */
static int parses_back(const fl_format *f, const char *r, int rn,
                       int32_t rexp, uint64_t mag)
{
    const fl_ctx rne = FL_CTX_INIT;
    char t[PRINT_MAX_DIGITS + 16];
    out_buf ot = { t, sizeof t, 0 };
    unsigned fl = 0;
    uint64_t back;

    put_scientific(&ot, r, rn, rexp);
    finish(&ot);
    return fl_parse(f, t, &rne, &fl, &back) == 0 && back == mag
           && !(fl & FL_OVERFLOW);
}

size_t fl_print_shortest(const fl_format *f, uint64_t a, char *buf,
                         size_t len)
{
    out_buf o = { buf, len, 0 };
    const fl_unp u = fl__unpack(f, a, NULL);
    const uint64_t mag = a & (f->exp_mask | f->frac_mask);
    char dig[PRINT_MAX_DIGITS], r[PRINT_MAX_DIGITS];
    int32_t dexp, rexp = 0;
    int n, rn = 0;

    if (put_special(&o, &u, "0"))
        return finish(&o);
    n = exact_digits(&u, dig, &dexp);

    /* For nd = 1, 2, ...: the exact value lies strictly between the two
     * nd-digit decimals around it (its truncation and the next one).  Take
     * the nearer (ties to even) if it parses back, else the farther one
     * if that does; at nd == n the exact expansion itself always does.
     * The farther one wins only where the rounding interval is lopsided
     * (at a power of two, e.g. binary16 2^-6 = 0.015625 -> 0.01563) or at
     * a decimal tie; there printf's "%.{nd}e" would need more digits. */
    for (int nd = 1; nd <= n; nd++) {
        rexp = dexp;
        if (nd == n) {
            rn = cut_digits(dig, n, 0, r, &rexp);
            break;
        }
        const int up = nearest_is_up(dig, n, nd);
        rn = cut_digits(dig, nd, up, r, &rexp);
        if (parses_back(f, r, rn, rexp, mag))
            break;
        rexp = dexp;
        rn = cut_digits(dig, nd, !up, r, &rexp);
        if (parses_back(f, r, rn, rexp, mag))
            break;
    }
    if (u.sign)
        put(&o, '-');
    if (rexp >= -5 && rexp < 17)
        put_positional(&o, r, rn, rexp);
    else
        put_scientific(&o, r, rn, rexp);
    return finish(&o);
}

size_t fl_print_hex(const fl_format *f, uint64_t a, char *buf, size_t len)
{
    out_buf o = { buf, len, 0 };
    const fl_unp u = fl__unpack(f, a, NULL);
    const int fb = f->prec - 1;                     /* fraction bits */
    const int nib = (fb + 3) / 4;                   /* hex digits of it */
    uint64_t frac;
    int32_t e;
    int lead;

    if (u.cls == FL_U_ZERO) {
        puts_(&o, u.sign ? "-0x0p+0" : "0x0p+0");
        return finish(&o);
    }
    if (put_special(&o, &u, "0"))
        return finish(&o);
    /* The fraction field, left-aligned to whole hex digits. */
    frac = (a & f->frac_mask) << (4 * nib - fb);
    if ((a & f->exp_mask) == 0 && f->has_zero) {
        lead = 0;                                   /* subnormal */
        e = f->emin;
    } else {
        lead = 1;
        e = (int32_t)((a & f->exp_mask) >> fb) - f->bias;
    }
    if (u.sign)
        put(&o, '-');
    puts_(&o, lead ? "0x1" : "0x0");
    if (frac != 0) {
        int last = nib - 1;                         /* trim zero digits */
        while (((frac >> (4 * (nib - 1 - last))) & 0xF) == 0)
            last--;
        put(&o, '.');
        for (int i = 0; i <= last; i++)
            put(&o, "0123456789abcdef"[(frac >> (4 * (nib - 1 - i))) & 0xF]);
    }
    put(&o, 'p');
    if (e >= 0)
        put(&o, '+');
    put_int(&o, e);
    return finish(&o);
}
