/*
 * round_sr_bits.c — stochastic rounding with supplied random bits: the
 * binary64 conversion in mode FL_RSB, its array forms.
 *
 * The rounding itself is fl__round_pack's (FL_RSB in round_shift); this
 * file only puts the bits, their width and the variant into a context.  A
 * binary64 operand has 53 significant bits, so the discarded part that
 * the variants compare is exact for every width 1..64 (round.c).
 */
#include "internals.h"

static FPLAB_HOSTDEV int srb_args_ok(int nbits, int variant)
{
    return nbits >= 1 && nbits <= 64 && variant >= 0 &&
           variant < FL_SRV_COUNT;
}

/* c in mode FL_RSB with the supplied bits, their width and the variant. */
static FPLAB_HOSTDEV fl_ctx srb_ctx(const fl_ctx *c, uint64_t rbits,
                                    int nbits, int variant)
{
    fl_ctx k = *c;
    k.rm = FL_RSB;
    k.sr_bits = rbits;
    k.sr_nbits = (uint8_t)nbits;
    k.sr_variant = (uint8_t)variant;
    return k;
}

FPLAB_HOSTDEV uint64_t fl_round_sr_bits(const fl_format *f, double x,
                                        uint64_t rbits, int nbits,
                                        int variant, const fl_ctx *c,
                                        unsigned *flags)
{
    if (!srb_args_ok(nbits, variant))
        return fl__invalid(f, c, flags);
    const fl_ctx k = srb_ctx(c, rbits, nbits, variant);
    return fl_from_double(f, x, &k, flags);
}

/* One element of an array form (a binary32 element when xf is given: its
 * own conversion, so that c->daz reads binary32's subnormals): its flags
 * SET in each[i] (when each is given) and ORed into the caller's word. */
static void srb_one(const fl_format *f, uint64_t *dst, double x,
                    const float *xf, uint64_t rbits, int nbits, int variant,
                    const fl_ctx *c, unsigned *or_flags, unsigned *each)
{
    unsigned fl = 0;
    if (!srb_args_ok(nbits, variant)) {
        *dst = fl__invalid(f, c, &fl);
    } else if (xf) {
        const fl_ctx k = srb_ctx(c, rbits, nbits, variant);
        *dst = fl_from_float(f, *xf, &k, &fl);
    } else {
        *dst = fl_round_sr_bits(f, x, rbits, nbits, variant, c, &fl);
    }
    if (each)
        *each = fl;
    *or_flags |= fl;
}

/* The array forms: element i from xd[i], or from xf[i] when xf is given,
 * with rbits[i]. */
static void srb_array(const fl_format *f, uint64_t *dst, const double *xd,
                      const float *xf, const uint64_t *rbits, size_t n,
                      int nbits, int variant, const fl_ctx *c,
                      unsigned *flags, unsigned *each)
{
    unsigned acc = 0;
    for (size_t i = 0; i < n; i++)
        srb_one(f, dst + i, xf ? 0 : xd[i], xf ? xf + i : NULL, rbits[i],
                nbits, variant, c, &acc, each ? each + i : NULL);
    if (flags)
        *flags |= acc;
}

void fl_round_sr_bits_array(const fl_format *f, uint64_t *dst,
                            const double *src, const uint64_t *rbits,
                            size_t n, int nbits, int variant,
                            const fl_ctx *c, unsigned *flags,
                            unsigned *each)
{
    srb_array(f, dst, src, NULL, rbits, n, nbits, variant, c, flags, each);
}

void fl_round_sr_bits_float_array(const fl_format *f, uint64_t *dst,
                                  const float *src, const uint64_t *rbits,
                                  size_t n, int nbits, int variant,
                                  const fl_ctx *c, unsigned *flags,
                                  unsigned *each)
{
    srb_array(f, dst, NULL, src, rbits, n, nbits, variant, c, flags, each);
}
