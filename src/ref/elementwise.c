/*
 * elementwise.c — add sub mul div fma sqrt cast over arrays: one call of
 * the core per element, element i with stochastic-rounding index
 * ctx->sr_index + i (so any split gives the same bits), or with its own
 * supplied random bits rbits[i] (FL_RSB).
 */
#include <string.h>

#include "ref_internal.h"

static const char *const eop_names[FL_REF_EOP_COUNT] = {
    "add", "sub", "mul", "div", "fma", "sqrt", "cast",
};

const char *fl_ref_eop_name(fl_ref_eop op)
{
    return (unsigned)op < FL_REF_EOP_COUNT ? eop_names[op] : "?";
}

int fl_ref_eop_parse(const char *s)
{
    for (int i = 0; i < FL_REF_EOP_COUNT; i++)
        if (!strcmp(s, eop_names[i]))
            return i;
    return -1;
}

int fl_ref_eop_arity(fl_ref_eop op)
{
    switch (op) {
    case FL_REF_FMA:
        return 3;
    case FL_REF_SQRT:
    case FL_REF_CAST:
        return 1;
    default:
        return 2;
    }
}

typedef struct ew_job {
    fl_ref_eop op;
    const fl_format *in, *out;
    int widen;
    const uint64_t *a, *b, *c;
    uint64_t *r;
    const uint64_t *rbits;   /* FL_RSB: element i's random bits, or NULL */
    fl_ctx ctx;
} ew_job;

static int ew_range(void *arg, size_t lo, size_t hi, unsigned *flags)
{
    const ew_job *j = arg;
    const fl_format *o = j->out;
    fl_ctx c = j->ctx;
    for (size_t i = lo; i < hi; i++) {
        uint64_t a = j->a[i], b = 0, d = 0, v;
        c.sr_index = j->ctx.sr_index + i;
        if (j->rbits)
            c.sr_bits = j->rbits[i];
        if (j->op == FL_REF_CAST) {
            j->r[i] = fl_convert(o, j->in, a, &c, flags);
            continue;
        }
        if (j->b)
            b = j->b[i];
        if (j->c)
            d = j->c[i];
        if (j->widen) {
            /* out holds every value of in: these conversions are exact */
            a = fl_convert(o, j->in, a, &c, flags);
            if (j->b)
                b = fl_convert(o, j->in, b, &c, flags);
            if (j->c)
                d = fl_convert(o, j->in, d, &c, flags);
        }
        switch (j->op) {
        case FL_REF_ADD: v = fl_add(o, a, b, &c, flags); break;
        case FL_REF_SUB: v = fl_sub(o, a, b, &c, flags); break;
        case FL_REF_MUL: v = fl_mul(o, a, b, &c, flags); break;
        case FL_REF_DIV: v = fl_div(o, a, b, &c, flags); break;
        case FL_REF_FMA: v = fl_fma(o, a, b, d, &c, flags); break;
        default:         v = fl_sqrt(o, a, &c, flags); break;
        }
        j->r[i] = v;
    }
    return 0;
}

static int elementwise(fl_ref_eop op, const fl_format *in,
                       const fl_format *out, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, size_t n,
                       uint64_t *r, const uint64_t *rbits, const fl_ctx *ctx,
                       int nthreads, unsigned *flags, char *err,
                       size_t errlen)
{
    ew_job j;
    unsigned f = 0;
    int ar;
    if ((unsigned)op >= FL_REF_EOP_COUNT) {
        ref_set_err(err, errlen, "unknown element-wise operation");
        return -1;
    }
    ar = fl_ref_eop_arity(op);
    if (a == NULL || (ar >= 2 && b == NULL) || (ar == 3 && c == NULL)) {
        ref_set_err(err, errlen, "%s takes %d operand%s", eop_names[op], ar,
                    ar > 1 ? "s" : "");
        return -1;
    }
    memset(&j, 0, sizeof j);
    j.op = op;
    j.in = in;
    j.out = out;
    j.a = a;
    j.b = ar >= 2 ? b : NULL;
    j.c = ar == 3 ? c : NULL;
    j.r = r;
    j.rbits = rbits;
    j.ctx = *ctx;
    if (op != FL_REF_CAST && !fl_format_same(out, in)) {
        if (!fl_format_contains(out, in)) {
            char si[64], so[64];
            fl_format_spec(in, si, sizeof si);
            fl_format_spec(out, so, sizeof so);
            ref_set_err(err, errlen,
                        "%s: the output format %s does not hold every %s "
                        "value, so the operation would round twice; compute "
                        "in %s and cast", eop_names[op], so, si, si);
            return -1;
        }
        j.widen = 1;
    }
    if (ref_parallel(n, op == FL_REF_CAST ? 20 : 40, nthreads, ew_range, &j,
                     &f) != 0) {
        ref_set_err(err, errlen, "out of memory");
        return -1;
    }
    if (flags)
        *flags |= f & FL_IEEE_FLAGS;
    return 0;
}

int fl_ref_elementwise(fl_ref_eop op, const fl_format *in,
                       const fl_format *out, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, size_t n,
                       uint64_t *r, const fl_ctx *ctx, int nthreads,
                       unsigned *flags, char *err, size_t errlen)
{
    return elementwise(op, in, out, a, b, c, n, r, NULL, ctx, nthreads, flags,
                       err, errlen);
}

int fl_ref_elementwise_sr_bits(fl_ref_eop op, const fl_format *in,
                               const fl_format *out, const uint64_t *a,
                               const uint64_t *b, const uint64_t *c,
                               size_t n, uint64_t *r, const uint64_t *rbits,
                               int nbits, int variant, const fl_ctx *ctx,
                               int nthreads, unsigned *flags, char *err,
                               size_t errlen)
{
    fl_ctx k = *ctx;
    if (nbits < 1 || nbits > 64 || variant < 0 || variant >= FL_SRV_COUNT) {
        ref_set_err(err, errlen, "stochastic rounding with supplied bits "
                    "needs 1..64 bits and a variant 0..3, got %d bits, "
                    "variant %d", nbits, variant);
        return -1;
    }
    if (rbits == NULL) {
        ref_set_err(err, errlen, "no random bits");
        return -1;
    }
    k.rm = FL_RSB;
    k.sr_nbits = (uint8_t)nbits;
    k.sr_variant = (uint8_t)variant;
    return elementwise(op, in, out, a, b, c, n, r, rbits, &k, nthreads, flags,
                       err, errlen);
}
