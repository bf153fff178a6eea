/*
 * exact.c — order=exact: the correctly rounded sum, dot product and GEMM
 * element through an exact fixed-point accumulator ("superaccumulator",
 * Kulisch).
 *
 * The accumulator is a two's-complement integer of 64-bit limbs whose bit
 * 0 weighs 2^lsb.  Its range covers every term the call can produce:
 *   sum: a value of `in` is an integer of p bits times 2^e with
 *        e >= q - p + 1 (q = emin - p + 1, the subnormal quantum; the
 *        unpacked significand of a subnormal is left-aligned, hence the
 *        extra p - 1), below 2^(emax+1);
 *   dot, gemm: a product is an integer of 2p bits times 2^(ea+eb), below
 *        2^(2 emax + 2);
 * plus 66 bits of headroom for the carries of up to 2^64 terms and the
 * sign.  For binary64 inputs that is 68 limbs.  Every term is added
 * exactly (no rounding anywhere), so the integer IS the exact sum; it is
 * rounded once by fl__round_pack into out (the core's one rounding
 * routine).  GEMM's alpha*S + beta*C is formed exactly in a second
 * accumulator (S times alpha's integer significand, plus beta*C) before
 * that one rounding.
 *
 * Specials: a NaN operand makes the result a NaN (under the x86 preset
 * the first NaN met, quieted, in the order a_0 b_0 a_1 b_1 ... then
 * alpha, beta, C; under the others the default NaN), invalid raised for a
 * signaling NaN; inf*0 and inf-inf give the default NaN with invalid;
 * otherwise an infinity wins.  An exact zero is -0 when every term is -0,
 * +0 when nonzero terms cancelled or when zeros of both signs met (-0
 * under out-rm = rdn in both cases), as IEEE additions would give; with
 * epilogue=init (and no C) the sum starts from +0, a zero term more.
 */
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

struct ref_fx {
    int32_t lsb;
    size_t nl;
    uint64_t *w;
    int32_t lsb2;        /* the alpha*S + beta*C accumulator */
    size_t nl2;
    uint64_t *w2;
};

/* w += (-1)^neg * mag * 2^exp; exp >= lsb and the sum within range. */
static void fx_add(uint64_t *w, size_t nl, int32_t lsb, int neg, fl_u128 mag,
                   int32_t exp)
{
    uint32_t o = (uint32_t)(exp - lsb);
    size_t li = o >> 6;
    unsigned bit = o & 63;
    fl_u128 lo = mag << bit;
    uint64_t part[3];
    part[0] = (uint64_t)lo;
    part[1] = (uint64_t)(lo >> 64);
    part[2] = bit ? (uint64_t)(mag >> (128 - bit)) : 0;
    if (!neg) {
        uint64_t carry = 0;
        for (int k = 0; k < 3; k++) {
            uint64_t s = w[li + k] + part[k];
            uint64_t c1 = s < part[k];
            uint64_t s2 = s + carry;
            carry = c1 | (s2 < s);
            w[li + k] = s2;
        }
        for (size_t k = li + 3; carry && k < nl; k++) {
            w[k] += 1;
            carry = w[k] == 0;
        }
    } else {
        uint64_t borrow = 0;
        for (int k = 0; k < 3; k++) {
            uint64_t d = w[li + k] - part[k];
            uint64_t b1 = w[li + k] < part[k];
            uint64_t d2 = d - borrow;
            borrow = b1 | (d < borrow);
            w[li + k] = d2;
        }
        for (size_t k = li + 3; borrow && k < nl; k++) {
            borrow = w[k] == 0;
            w[k] -= 1;
        }
    }
}

static int fx_negative(const uint64_t *w, size_t nl)
{
    return (int)(w[nl - 1] >> 63);
}

static void fx_negate(uint64_t *w, size_t nl)
{
    uint64_t carry = 1;
    for (size_t k = 0; k < nl; k++) {
        uint64_t v = ~w[k] + carry;
        carry = carry && v == 0;
        w[k] = v;
    }
}

static int fx_is_zero(const uint64_t *w, size_t nl)
{
    for (size_t k = 0; k < nl; k++)
        if (w[k])
            return 0;
    return 1;
}

/* Round the (nonzero) integer to f and clear it. */
static uint64_t fx_round(uint64_t *w, size_t nl, int32_t lsb,
                         const fl_format *f, const fl_ctx *c, unsigned *flags)
{
    int neg = fx_negative(w, nl);
    size_t t;
    int lz;
    uint64_t sig, sticky = 0;
    int32_t e;
    if (neg)
        fx_negate(w, nl);
    t = nl - 1;
    while (w[t] == 0)
        t--;
    lz = fl__clz64(w[t]);
    sig = w[t] << lz;
    if (t > 0) {
        if (lz)
            sig |= w[t - 1] >> (64 - lz);
        sticky = lz ? (w[t - 1] << lz) != 0 : w[t - 1] != 0;
        for (size_t k = 0; k + 1 < t && !sticky; k++)
            sticky = w[k] != 0;
    }
    e = lsb + (int32_t)(t * 64) + (63 - lz);   /* exponent of the top bit */
    memset(w, 0, nl * sizeof *w);
    return fl__round_pack(f, c, neg, e, sig | sticky, flags);
}

/* A finite nonzero value as (integer of p bits) * 2^q. */
static void int_sig(const fl_format *f, const fl_unp *u, uint64_t *sig,
                    int32_t *q)
{
    *sig = u->sig >> (64 - f->prec);
    *q = u->exp - (f->prec - 1);
}

ref_fx *ref_fx_new(const ref_ctx *rc)
{
    const fl_ref_model *m = rc->m;
    const fl_format *in = &m->in;
    ref_fx *x = calloc(1, sizeof *x);
    int32_t q = in->emin - in->prec + 1, top;
    if (x == NULL)
        return NULL;
    if (rc->op == FL_REF_OP_SUM) {
        x->lsb = q - in->prec;
        top = in->emax + 1;
    } else {
        x->lsb = 2 * (q - in->prec);
        top = 2 * (in->emax + 1);
    }
    x->nl = (size_t)((top + 66 - x->lsb) / 64) + 3;
    x->w = calloc(x->nl, sizeof *x->w);
    if (x->w == NULL) {
        free(x);
        return NULL;
    }
    if (!rc->alpha_one || !rc->beta_zero) {
        const fl_format *af = &m->acc, *of = &rc->out;
        fl_ctx c0 = FL_CTX_INIT;
        fl_unp ua = fl__unpack(af, rc->alpha, &c0);
        fl_unp ub = fl__unpack(af, rc->beta, &c0);
        int32_t aq = 0, ae = 0, bq = 0, be = 0, top2;
        int32_t qout = of->emin - of->prec + 1 - of->prec;
        if (ua.cls == FL_U_FINITE) {
            aq = ua.exp - (af->prec - 1);
            ae = ua.exp + 1;
        }
        if (ub.cls == FL_U_FINITE) {
            bq = ub.exp - (af->prec - 1);
            be = ub.exp + 1;
        }
        x->lsb2 = x->lsb + aq;
        if (bq + qout < x->lsb2)
            x->lsb2 = bq + qout;
        top2 = top + 66 + ae;
        if (be + of->emax + 1 + 2 > top2)
            top2 = be + of->emax + 1 + 2;
        x->nl2 = (size_t)((top2 + 2 - x->lsb2) / 64) + 4;
        x->w2 = calloc(x->nl2, sizeof *x->w2);
        if (x->w2 == NULL) {
            free(x->w);
            free(x);
            return NULL;
        }
    }
    return x;
}

void ref_fx_free(ref_fx *x)
{
    if (x) {
        free(x->w);
        free(x->w2);
        free(x);
    }
}

/* Specials and signs met so far. */
typedef struct xstate {
    int nan;                  /* a NaN operand was met */
    const fl_format *nanf;    /* the first one's format and bits */
    uint64_t nanb;
    int snan;                 /* a signaling NaN was met */
    int invalid;              /* inf*0 or inf-inf */
    int pinf, ninf;
    int nonzero;              /* a finite nonzero term was added */
    int negzero, poszero;     /* zero terms of either sign */
} xstate;

static void note_nan(xstate *s, const fl_format *f, uint64_t a,
                     const fl_unp *u)
{
    if (!s->nan) {
        s->nan = 1;
        s->nanf = f;
        s->nanb = a;
    }
    if (u->cls == FL_U_SNAN)
        s->snan = 1;
}

/* A product of a (fa) and b (fb) into the accumulator. */
static void add_product(xstate *s, uint64_t *w, size_t nl, int32_t lsb,
                        const fl_format *fa, uint64_t a, const fl_format *fb,
                        uint64_t b, const fl_ctx *c)
{
    fl_unp ua = fl__unpack(fa, a, c), ub = fl__unpack(fb, b, c);
    int sg = ua.sign ^ ub.sign;
    if (fl__is_nan_cls(ua.cls))
        note_nan(s, fa, a, &ua);
    if (fl__is_nan_cls(ub.cls))
        note_nan(s, fb, b, &ub);
    if (fl__is_nan_cls(ua.cls) || fl__is_nan_cls(ub.cls))
        return;
    if (ua.cls == FL_U_INF || ub.cls == FL_U_INF) {
        if (ua.cls == FL_U_ZERO || ub.cls == FL_U_ZERO)
            s->invalid = 1;
        else if (sg)
            s->ninf = 1;
        else
            s->pinf = 1;
        return;
    }
    if (ua.cls == FL_U_ZERO || ub.cls == FL_U_ZERO) {
        if (sg)
            s->negzero = 1;
        else
            s->poszero = 1;
        return;
    }
    {
        uint64_t ma, mb;
        int32_t qa, qb;
        int_sig(fa, &ua, &ma, &qa);
        int_sig(fb, &ub, &mb, &qb);
        fx_add(w, nl, lsb, sg, (fl_u128)ma * mb, qa + qb);
        s->nonzero = 1;
    }
}

/* The special result, if any (returns 1 and sets *r). */
static int special_result(const xstate *s, const ref_ctx *rc, const fl_ctx *c,
                          uint64_t *r, unsigned *flags)
{
    const fl_format *of = &rc->out;
    if (s->nan) {
        /* the first NaN, converted: x86's payload, or the sign alone
         * (sign, sign-pos); first keeps the payload as x86 */
        if (rc->m->nan == FL_NANP_X86 || rc->m->nan == FL_NANP_FIRST ||
            fl__nan_keep(rc->m->nan) == FL__NAN_KEEP_SIGN) {
            unsigned f = 0;
            *r = fl__nan_convert(of, s->nanf, s->nanb, c, &f);
            *flags |= f;
        } else {
            *r = fl_default_nan(of, rc->m->nan);
        }
        if (s->snan)
            *flags |= FL_INVALID;
        return 1;
    }
    if (s->invalid || (s->pinf && s->ninf)) {
        *r = fl__invalid(of, c, flags);
        return 1;
    }
    if (s->pinf || s->ninf) {
        *r = fl__pack_inf(of, s->ninf, c, flags);
        return 1;
    }
    return 0;
}

/* Sign of an exact zero result. */
static int zero_sign(const xstate *s, int rm)
{
    if (s->nonzero || (s->negzero && s->poszero))
        return rm == FL_RDN;
    return s->negzero;
}

uint64_t ref_exact_element(const ref_ctx *rc, ref_fx *x, const ref_terms *t,
                           const uint64_t *cval, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    const fl_format *in = &m->in, *of = &rc->out, *af = &m->acc;
    const size_t n = rc->n;
    fl_ctx c = rc->cout;
    xstate s;
    uint64_t r;

    memset(&s, 0, sizeof s);
    /* epilogue=init without C: the sum starts from +0, which only shows in
     * the sign of an exact zero (-0 terms alone then give +0, as +0 + -0
     * does; -0 under rdn) */
    if (m->epilogue == FL_REF_EPI_INIT && (rc->beta_zero || cval == NULL))
        s.poszero = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = t->a[(ptrdiff_t)i * t->sa];
        if (t->b != NULL) {
            add_product(&s, x->w, x->nl, x->lsb, in, a, in,
                        t->b[(ptrdiff_t)i * t->sb], &c);
            continue;
        }
        {
            fl_unp u = fl__unpack(in, a, &c);
            uint64_t mg;
            int32_t q;
            switch (u.cls) {
            case FL_U_QNAN:
            case FL_U_SNAN:
                note_nan(&s, in, a, &u);
                break;
            case FL_U_INF:
                if (u.sign)
                    s.ninf = 1;
                else
                    s.pinf = 1;
                break;
            case FL_U_ZERO:
                if (u.sign)
                    s.negzero = 1;
                else
                    s.poszero = 1;
                break;
            default:
                int_sig(in, &u, &mg, &q);
                fx_add(x->w, x->nl, x->lsb, u.sign, mg, q);
                s.nonzero = 1;
                break;
            }
        }
    }

    if (rc->alpha_one && rc->beta_zero) {
        if (special_result(&s, rc, &c, &r, flags)) {
            memset(x->w, 0, x->nl * sizeof *x->w);
            return r;
        }
        if (fx_is_zero(x->w, x->nl))
            return fl__pack_zero(of, &c, zero_sign(&s, m->out_rm), flags);
        return fx_round(x->w, x->nl, x->lsb, of, &c, flags);
    }

    /* D = alpha*S + beta*C, exactly */
    {
        fl_unp ua = fl__unpack(af, rc->alpha, &c);
        int szero = fx_is_zero(x->w, x->nl) && !s.pinf && !s.ninf;
        int ssign = zero_sign(&s, m->out_rm);
        int tzero, tsign = 0, uzero, usign = 0;
        xstate d;
        memset(&d, 0, sizeof d);
        /* specials of S carry over; then alpha */
        d.nan = s.nan;
        d.nanf = s.nanf;
        d.nanb = s.nanb;
        d.snan = s.snan;
        d.invalid = s.invalid;
        if (fl__is_nan_cls(ua.cls))
            note_nan(&d, af, rc->alpha, &ua);
        else if (ua.cls == FL_U_INF) {
            if (szero && !s.nan)
                d.invalid = 1;
            else if (!d.invalid && (s.nonzero || s.pinf || s.ninf)) {
                /* inf times a nonzero S: the sign of S decides */
                int sneg = s.pinf ? 0 : s.ninf ? 1 : fx_negative(x->w, x->nl);
                if (sneg ^ ua.sign)
                    d.ninf = 1;
                else
                    d.pinf = 1;
            }
        } else if (s.pinf || s.ninf) {
            if (ua.cls == FL_U_ZERO)
                d.invalid = 1;
            else if (s.pinf ^ ua.sign)
                d.pinf = 1;
            else
                d.ninf = 1;
            if (s.pinf && s.ninf)
                d.invalid = 1;
        }
        tzero = ua.cls == FL_U_ZERO || szero;
        if (tzero)
            tsign = ua.sign ^ (szero ? ssign : fx_negative(x->w, x->nl));
        /* T = S * alpha_int into w2 */
        if (!tzero && ua.cls == FL_U_FINITE && !s.nan) {
            uint64_t am;
            int32_t aq;
            int neg = fx_negative(x->w, x->nl);
            int_sig(af, &ua, &am, &aq);
            if (neg)
                fx_negate(x->w, x->nl);
            for (size_t k = 0; k < x->nl; k++)
                if (x->w[k])
                    fx_add(x->w2, x->nl2, x->lsb2, neg ^ ua.sign,
                           (fl_u128)x->w[k] * am,
                           x->lsb + (int32_t)(64 * k) + aq);
            d.nonzero = 1;
        }
        memset(x->w, 0, x->nl * sizeof *x->w);
        /* U = beta*C */
        if (!rc->beta_zero && cval != NULL) {
            xstate e;
            memset(&e, 0, sizeof e);
            add_product(&e, x->w2, x->nl2, x->lsb2, af, rc->beta, of, *cval, &c);
            if (e.nan && !d.nan) {
                d.nan = 1;
                d.nanf = e.nanf;
                d.nanb = e.nanb;
            }
            d.snan |= e.snan;
            d.invalid |= e.invalid;
            d.pinf |= e.pinf;
            d.ninf |= e.ninf;
            if (e.nonzero)
                d.nonzero = 1;
            uzero = !e.nonzero;
            usign = e.negzero;
        } else {
            uzero = -1;   /* no beta*C term at all */
        }
        if (special_result(&d, rc, &c, &r, flags)) {
            memset(x->w2, 0, x->nl2 * sizeof *x->w2);
            return r;
        }
        if (!fx_is_zero(x->w2, x->nl2))
            return fx_round(x->w2, x->nl2, x->lsb2, of, &c, flags);
        /* an exact zero: nonzero parts that cancelled, or zeros only */
        if (d.nonzero)
            return fl__pack_zero(of, &c, m->out_rm == FL_RDN, flags);
        if (uzero == -1 || tsign == usign)
            return fl__pack_zero(of, &c, tsign, flags);
        return fl__pack_zero(of, &c, m->out_rm == FL_RDN, flags);
    }
}
