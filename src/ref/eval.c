/*
 * eval.c — the generic evaluator: one output element through the scalar
 * core, one rounding per step of the model, in the order of its plan.
 *
 * Every rounding of element e draws its stochastic-rounding bits from
 * index e*(3n+7) + slot (see fplab/ref.h), so the value of an element
 * does not depend on which thread computes it or when.
 */
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

/* ------------------------------------------------------------------------
 * Products and conversions between formats.
 * ---------------------------------------------------------------------- */

/* a*b with a in fa and b in fb, rounded once into dst.  The significands
 * (at most 53 bits each) multiply exactly into 128 bits; the top 64 with a
 * sticky bit carry at least 63 significant bits >= prec+2, which is what
 * fl__round_pack needs to round as the exact product would. */
uint64_t ref_mul_mixed(const fl_format *dst, const fl_format *fa, uint64_t a,
                       const fl_format *fb, uint64_t b, const fl_ctx *c,
                       unsigned *flags)
{
    fl_unp ua = fl__unpack(fa, a, c), ub = fl__unpack(fb, b, c);
    int s = ua.sign ^ ub.sign;
    if (fl__is_nan_cls(ua.cls) || fl__is_nan_cls(ub.cls)) {
        /* the NaN operands in dst (quieted, payload as the preset keeps
         * it; a signaling one raises invalid there), then the preset's
         * choice between them */
        uint64_t ops[2];
        ops[0] = fl__is_nan_cls(ua.cls) ? fl__nan_convert(dst, fa, a, c, flags)
                                         : 0;
        ops[1] = fl__is_nan_cls(ub.cls) ? fl__nan_convert(dst, fb, b, c, flags)
                                         : 0;
        if (!fl__is_nan_cls(ua.cls))
            return ops[1];
        if (!fl__is_nan_cls(ub.cls))
            return ops[0];
        return fl__nan_result(dst, c, ops, 2, flags);
    }
    if (ua.cls == FL_U_INF || ub.cls == FL_U_INF) {
        if (ua.cls == FL_U_ZERO || ub.cls == FL_U_ZERO)
            return fl__invalid(dst, c, flags);
        return fl__pack_inf(dst, s, c, flags);
    }
    if (ua.cls == FL_U_ZERO || ub.cls == FL_U_ZERO)
        return fl__pack_zero(dst, c, s, flags);
    {
        fl_u128 p = (fl_u128)ua.sig * ub.sig;   /* in [2^126, 2^128) */
        uint64_t sig = (uint64_t)(p >> 64) | ((uint64_t)p != 0);
        /* value = p * 2^(ea+eb-126) = sig * 2^((ea+eb+1) - 63) */
        return fl__round_pack(dst, c, s, ua.exp + ub.exp + 1, sig, flags);
    }
}

/* a (in fa) * b (in fb) rounded into dst, choosing the core's own
 * multiplication whenever dst holds both operands exactly. */
static uint64_t mul2(const fl_format *dst, const fl_format *fa, uint64_t a,
                     const fl_format *fb, uint64_t b, const fl_ctx *c,
                     unsigned *flags)
{
    int sa = fl_format_same(dst, fa), sb = fl_format_same(dst, fb);
    if ((sa || fl_format_contains(dst, fa)) &&
        (sb || fl_format_contains(dst, fb))) {
        if (!sa)
            a = fl_convert(dst, fa, a, c, flags);   /* exact */
        if (!sb)
            b = fl_convert(dst, fb, b, c, flags);
        return fl_mul(dst, a, b, c, flags);
    }
    return ref_mul_mixed(dst, fa, a, fb, b, c, flags);
}

/* The rounded product of two inputs in acc. */
static inline uint64_t prod(const ref_ctx *rc, uint64_t a, uint64_t b,
                            const fl_ctx *c, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    switch (rc->pmode) {
    case REF_P_SAME:
        return fl_mul(&m->acc, a, b, c, flags);
    case REF_P_WIDEN:
        a = fl_convert(&m->acc, &m->in, a, c, flags);   /* exact */
        b = fl_convert(&m->acc, &m->in, b, c, flags);
        return fl_mul(&m->acc, a, b, c, flags);
    default:
        return ref_mul_mixed(&m->acc, &m->in, a, &m->in, b, c, flags);
    }
}

/* fma(a, b, v) with a, b inputs and v in acc (pmode SAME or WIDEN). */
static inline uint64_t pfma(const ref_ctx *rc, uint64_t a, uint64_t b,
                            uint64_t v, const fl_ctx *c, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    if (rc->pmode == REF_P_WIDEN) {
        a = fl_convert(&m->acc, &m->in, a, c, flags);   /* exact */
        b = fl_convert(&m->acc, &m->in, b, c, flags);
    }
    return fl_fma(&m->acc, a, b, v, c, flags);
}

/* ------------------------------------------------------------------------
 * The call context.
 * ---------------------------------------------------------------------- */
static int order_has_arg(int o)
{
    return o == FL_REF_PAIRWISE || o == FL_REF_BLOCKED || o == FL_REF_LANES ||
           o == FL_REF_SPLITK || o == FL_REF_CASCADE || o == FL_REF_TILES;
}

int ref_ctx_init(ref_ctx *rc, const fl_ref_model *m, fl_ref_op op, size_t n,
                 char *err, size_t errlen)
{
    char a[64], b[64];
    memset(rc, 0, sizeof *rc);
    rc->m = m;
    rc->op = op;
    rc->n = n;
    rc->slots = 3 * (uint64_t)n + 7;
    rc->out = m->out_set ? m->out : m->acc;

    if (m->acc_rm < 0 || m->acc_rm >= FL_RM_COUNT || m->out_rm < 0 ||
        m->out_rm >= FL_RM_COUNT || m->nan < 0 || m->nan >= FL_NANP_COUNT ||
        m->order < 0 || m->order >= FL_REF_ORDER_COUNT) {
        ref_set_err(err, errlen, "model: a rounding mode, NaN preset or order "
                    "is out of range");
        return -1;
    }
    if (order_has_arg(m->order) &&
        (m->order_arg == 0 || (m->order == FL_REF_TILES && m->order_arg2 == 0))) {
        ref_set_err(err, errlen, "model: the order's parameter must be >= 1");
        return -1;
    }
    if (m->order == FL_REF_TREE) {
        if (m->tree == NULL) {
            ref_set_err(err, errlen, "model: order=tree without a tree");
            return -1;
        }
        if (m->tree->n != n) {
            ref_set_err(err, errlen,
                        "order=tree has %zu leaves but each output element "
                        "has %zu terms", m->tree->n, n);
            return -1;
        }
    }
    fl_format_spec(&m->in, a, sizeof a);
    fl_format_spec(&m->acc, b, sizeof b);
    if (fl_format_same(&m->acc, &m->in))
        rc->pmode = REF_P_SAME;
    else if (fl_format_contains(&m->acc, &m->in))
        rc->pmode = REF_P_WIDEN;
    else
        rc->pmode = REF_P_MIXED;
    rc->in_is_acc = rc->pmode == REF_P_SAME;
    rc->out_is_acc = fl_format_same(&rc->out, &m->acc);
    if (m->products == FL_REF_PRODUCTS_FUSED && op != FL_REF_OP_SUM &&
        rc->pmode == REF_P_MIXED && m->order != FL_REF_EXACT && !m->tc.on) {
        ref_set_err(err, errlen,
                    "products=fused needs an accumulator that holds every "
                    "input value exactly (in=%s, acc=%s)", a, b);
        return -1;
    }
    if (m->tc.on) {
        if (op == FL_REF_OP_SUM) {
            ref_set_err(err, errlen,
                        "tc models the products of dot and gemm; sum has none");
            return -1;
        }
        if (m->order != FL_REF_SEQUENTIAL && m->order != FL_REF_SPLITK) {
            ref_set_err(err, errlen,
                        "with tc the order is the chain of blocks: sequential "
                        "or splitk:S, not %s",
                        m->order == FL_REF_EXACT ? "exact" : "this order");
            return -1;
        }
        if (m->products == FL_REF_PRODUCTS_FUSED) {
            ref_set_err(err, errlen,
                        "products=fused does not apply with tc (the block "
                        "FMA keeps every product exact): use products=rounded");
            return -1;
        }
        if (m->in.prec > 32) {
            ref_set_err(err, errlen,
                        "tc: inputs of at most 32 significant bits (in=%s)", a);
            return -1;
        }
        if (m->tc.block < 1 || m->tc.block > 64 || m->tc.neab < 0 ||
            m->tc.neab > 30 || m->tc.align < 0 || m->tc.align > 2 ||
            m->tc.norm < 0 || m->tc.norm > 1 || m->tc.rm < 0 ||
            m->tc.rm >= FL_RM_COUNT) {
            ref_set_err(err, errlen, "tc: a parameter is out of range");
            return -1;
        }
        if (m->tc.preset_in && !fl_format_same(m->tc.preset_in, &m->in)) {
            char c[64];
            fl_format_spec(m->tc.preset_in, c, sizeof c);
            ref_set_err(err, errlen,
                        "tc: the preset takes %s inputs but in=%s", c, a);
            return -1;
        }
        rc->tcm.name = NULL;
        rc->tcm.in = &m->in;
        rc->tcm.block = m->tc.block;
        rc->tcm.neab = m->tc.neab;
        rc->tcm.out_rm = m->tc.rm;
        rc->tcm.align = m->tc.align;
        rc->tcm.norm = m->tc.norm;
        rc->tc_part = m->order == FL_REF_SPLITK
                          ? (n + m->order_arg - 1) / m->order_arg : n;
    }

    rc->cacc = fl_ctx_make(m->acc_rm);
    rc->cacc.tininess = (uint8_t)m->tininess;
    rc->cacc.ftz = (uint8_t)m->ftz;
    rc->cacc.daz = (uint8_t)m->daz;
    rc->cacc.saturate = (uint8_t)m->saturate;
    rc->cacc.nan = (uint8_t)m->nan;
    rc->cacc.sr_seed = m->seed;
    rc->cout = rc->cacc;
    rc->cout.rm = (uint8_t)m->out_rm;

    {
        unsigned f = 0;
        fl_ctx c1 = fl_ctx_make(FL_RNE);
        rc->alpha = fl_from_i32(&m->acc, 1, &c1, &f);
        rc->beta = 0;
        rc->alpha_one = 1;
        rc->beta_zero = 1;
    }
    if (!m->tc.on && m->order != FL_REF_EXACT) {
        if (ref_plan_build(&rc->plan, m, n) != 0) {
            ref_set_err(err, errlen, "out of memory building the plan of %zu terms",
                        n);
            return -1;
        }
    }
    return 0;
}

void ref_ctx_free(ref_ctx *rc)
{
    ref_plan_free(&rc->plan);
}

int fl_ref_model_check(const fl_ref_model *m, fl_ref_op op, size_t n,
                       char *err, size_t errlen)
{
    ref_ctx rc;
    if (ref_ctx_init(&rc, m, op, n, err, errlen) != 0)
        return -1;
    ref_ctx_free(&rc);
    return 0;
}

/* ------------------------------------------------------------------------
 * One element.
 * ---------------------------------------------------------------------- */
#define SR(c, base, slot) ((c).sr_index = (base) + (slot))

/* An operand of a plan node: a value in acc, or an unrounded product. */
typedef struct operand {
    int is_prod;
    uint64_t v;      /* value (is_prod == 0) */
    uint64_t a, b;   /* the inputs (is_prod == 1) */
    size_t leaf;     /* its leaf index (slot of its own rounding) */
} operand;

static inline void leaf_operand(const ref_ctx *rc, const ref_terms *t,
                                int64_t r, int fused, fl_ctx *c, uint64_t base,
                                operand *o, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    size_t i = (size_t)r;
    o->leaf = i;
    if (t->b == NULL) {
        uint64_t x = t->a[(ptrdiff_t)i * t->sa];
        o->is_prod = 0;
        if (rc->in_is_acc) {
            o->v = x;
        } else {
            SR(*c, base, i);
            o->v = fl_convert(&m->acc, &m->in, x, c, flags);
        }
        return;
    }
    o->a = t->a[(ptrdiff_t)i * t->sa];
    o->b = t->b[(ptrdiff_t)i * t->sb];
    if (fused) {
        o->is_prod = 1;
        return;
    }
    o->is_prod = 0;
    SR(*c, base, i);
    o->v = prod(rc, o->a, o->b, c, flags);
}

/* Operand r of a plan node: +0 (REF_ZERO), leaf r < n, or the value of
 * node r - n, kept in scratch. */
static inline void node_operand(const ref_ctx *rc, const ref_terms *t,
                                int64_t r, int fused, fl_ctx *c,
                                uint64_t base, const uint64_t *scratch,
                                operand *o, unsigned *flags)
{
    const int64_t n = (int64_t)rc->n;
    if (r == REF_ZERO) {
        o->is_prod = 0;
        o->v = 0;
    } else if (r < n) {
        leaf_operand(rc, t, r, fused, c, base, o, flags);
    } else {
        o->is_prod = 0;
        o->v = scratch[r - n];
    }
}

/* The value of an operand that must be rounded now (its own slot). */
static inline uint64_t operand_value(const ref_ctx *rc, operand *o, fl_ctx *c,
                                     uint64_t base, unsigned *flags)
{
    if (o->is_prod) {
        SR(*c, base, o->leaf);
        o->v = prod(rc, o->a, o->b, c, flags);
        o->is_prod = 0;
    }
    return o->v;
}

/* u + L for epilogue=init: L becomes a value. */
static inline void init_combine(const ref_ctx *rc, operand *o, uint64_t u,
                                fl_ctx *c, uint64_t base, unsigned *flags)
{
    const fl_format *acc = &rc->m->acc;
    if (o->is_prod) {
        SR(*c, base, REF_SLOT_INIT(rc->n));
        o->v = pfma(rc, o->a, o->b, u, c, flags);
        o->is_prod = 0;
        return;
    }
    SR(*c, base, REF_SLOT_INIT(rc->n));
    o->v = fl_add(acc, u, o->v, c, flags);
}

uint64_t ref_eval_acc(const ref_ctx *rc, const ref_terms *t, uint64_t u,
                      uint64_t e, uint64_t *scratch, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    const fl_format *acc = &m->acc;
    const ref_plan *p = &rc->plan;
    const int64_t n = (int64_t)rc->n;
    const int init = m->epilogue == FL_REF_EPI_INIT;
    const int fused = m->products == FL_REF_PRODUCTS_FUSED && t->b != NULL;
    const uint64_t base = e * rc->slots;
    fl_ctx c = rc->cacc;
    operand L, R;

    if (n == 0)
        return init ? u : 0;
    if (p->nnodes == 0) {
        leaf_operand(rc, t, 0, fused, &c, base, &L, flags);
        if (init)
            init_combine(rc, &L, u, &c, base, flags);
        return operand_value(rc, &L, &c, base, flags);
    }
    for (size_t j = 0; j < p->nnodes; j++) {
        int64_t l = p->kid[2 * j], r = p->kid[2 * j + 1];
        uint64_t v;
        node_operand(rc, t, l, fused, &c, base, scratch, &L, flags);
        if ((int64_t)j == p->first_node && init)
            init_combine(rc, &L, u, &c, base, flags);
        node_operand(rc, t, r, fused, &c, base, scratch, &R, flags);
        if (!L.is_prod && !R.is_prod) {
            SR(c, base, (uint64_t)n + j);
            v = fl_add(acc, L.v, R.v, &c, flags);
        } else if (L.is_prod && R.is_prod) {
            /* fma(a_r, b_r, round(a_l*b_l)) */
            uint64_t lv = operand_value(rc, &L, &c, base, flags);
            SR(c, base, (uint64_t)n + j);
            v = pfma(rc, R.a, R.b, lv, &c, flags);
        } else if (R.is_prod) {
            SR(c, base, (uint64_t)n + j);
            v = pfma(rc, R.a, R.b, L.v, &c, flags);
        } else {
            SR(c, base, (uint64_t)n + j);
            v = pfma(rc, L.a, L.b, R.v, &c, flags);
        }
        scratch[j] = v;
    }
    return scratch[p->root - n];
}

uint64_t ref_eval_tc(const ref_ctx *rc, const ref_terms *t, uint64_t u,
                     uint64_t e, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    const size_t n = rc->n, part = rc->tc_part ? rc->tc_part : 1;
    const size_t bs = (size_t)rc->tcm.block;
    const uint64_t base = e * rc->slots;
    uint64_t abuf[64], bbuf[64], total = 0;
    uint64_t blockno = 0, nblocks = 0;
    size_t nparts = n == 0 ? 0 : (n + part - 1) / part;
    fl_ctx cb = rc->cacc, ca = rc->cacc;
    cb.rm = (uint8_t)m->tc.rm;

    if (n == 0)
        return m->epilogue == FL_REF_EPI_INIT ? u : 0;
    /* every part but the last has `part` terms */
    nblocks = (nparts - 1) * ((part + bs - 1) / bs) +
              ((n - (nparts - 1) * part) + bs - 1) / bs;
    for (size_t s = 0; s < nparts; s++) {
        size_t lo = s * part, hi = lo + part < n ? lo + part : n;
        uint64_t c = (s == 0 && m->epilogue == FL_REF_EPI_INIT) ? u : 0;
        for (size_t i = lo; i < hi;) {
            int nb = 0;
            for (; (size_t)nb < bs && i < hi; nb++, i++) {
                abuf[nb] = t->a[(ptrdiff_t)i * t->sa];
                bbuf[nb] = t->b[(ptrdiff_t)i * t->sb];
            }
            SR(cb, base, n + blockno);
            blockno++;
            c = fl_tc_block_fma_ctx(&rc->tcm, &m->acc, abuf, bbuf, nb, c, &cb,
                                    flags);
        }
        if (s == 0) {
            total = c;
        } else {
            SR(ca, base, n + nblocks + s - 1);
            total = fl_add(&m->acc, total, c, &ca, flags);
        }
    }
    return total;
}

uint64_t ref_init_value(const ref_ctx *rc, const uint64_t *cval, uint64_t e,
                        unsigned *flags)
{
    fl_ctx c = rc->cacc;
    if (rc->beta_zero || cval == NULL)
        return 0;
    SR(c, e * rc->slots, REF_SLOT_BETA(rc->n));
    return mul2(&rc->m->acc, &rc->m->acc, rc->beta, &rc->out, *cval, &c,
                flags);
}

uint64_t ref_epilogue(const ref_ctx *rc, uint64_t acc, const uint64_t *cval,
                      uint64_t e, unsigned *flags)
{
    const fl_ref_model *m = rc->m;
    const fl_format *af = &m->acc;
    const uint64_t base = e * rc->slots;
    const size_t n = rc->n;
    fl_ctx c = rc->cacc;
    uint64_t v = acc;
    int with_c = !rc->beta_zero && cval != NULL;

    switch (m->epilogue) {
    case FL_REF_EPI_FMA:
        if (with_c) {
            uint64_t u;
            SR(c, base, REF_SLOT_BETA(n));
            u = mul2(af, af, rc->beta, &rc->out, *cval, &c, flags);
            SR(c, base, REF_SLOT_SUM(n));
            v = fl_fma(af, rc->alpha, v, u, &c, flags);
            break;
        }
        /* beta = 0: alpha*acc, as for init */
        __attribute__((fallthrough));
    case FL_REF_EPI_INIT:
        if (!rc->alpha_one) {
            SR(c, base, REF_SLOT_ALPHA(n));
            v = fl_mul(af, rc->alpha, v, &c, flags);
        }
        break;
    default: /* last */
        if (!rc->alpha_one) {
            SR(c, base, REF_SLOT_ALPHA(n));
            v = fl_mul(af, rc->alpha, v, &c, flags);
        }
        if (with_c) {
            uint64_t u;
            SR(c, base, REF_SLOT_BETA(n));
            u = mul2(af, af, rc->beta, &rc->out, *cval, &c, flags);
            SR(c, base, REF_SLOT_SUM(n));
            v = fl_add(af, v, u, &c, flags);
        }
        break;
    }
    if (!rc->out_is_acc) {
        fl_ctx co = rc->cout;
        SR(co, base, REF_SLOT_OUT(n));
        v = fl_convert(&rc->out, af, v, &co, flags);
    }
    return v;
}
