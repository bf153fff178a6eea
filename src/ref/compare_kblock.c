/*
 * compare_kblock.c — which K-block of a GEMM's summation a kernel's
 * difference follows (fplab/compare.h, fl_cmp_kblocks).
 *
 * A tiling bug in the K loop (a block skipped, added twice, or taken from
 * the wrong offset) makes the kernel's output differ from the reference by
 * a multiple of one block's partial product, e = c * P_q, at every output
 * element.  Rounding differences are not correlated with any one block.
 * So for each block q the least-squares multiple c_q = sum(e P_q) /
 * sum(P_q^2) and its squared correlation share_q = sum(e P_q)^2 /
 * (sum(e^2) sum(P_q^2)) tell the two apart: share near 1 and c near an
 * integer for a bug, shares near 0 for rounding.  Partial products are
 * summed in binary64; the blocks are independent, so their sums are too.
 */
#include <stdlib.h>

#include "fplab/compare.h"

int fl_cmp_kblocks(fl_cmp_operand_fn a, const void *actx, fl_cmp_operand_fn b,
                   const void *bctx, size_t K, size_t kblock, size_t nsamples,
                   const size_t *sb, const size_t *si, const size_t *sj,
                   const double *e, double *coef, double *share)
{
    if (!kblock || !K)
        return -1;
    size_t nb = K / kblock + (K % kblock != 0);
    double *ep = calloc(nb, sizeof *ep), *pp = calloc(nb, sizeof *pp);
    if (!ep || !pp) {
        free(ep);
        free(pp);
        return -1;
    }
    double ee = 0;
    for (size_t s = 0; s < nsamples; s++) {
        ee += e[s] * e[s];
        for (size_t q = 0; q < nb; q++) {
            size_t k0 = q * kblock, k1 = k0 + kblock < K ? k0 + kblock : K;
            double p = 0;
            for (size_t k = k0; k < k1; k++)
                p += a(actx, sb[s], si[s], k) * b(bctx, sb[s], k, sj[s]);
            ep[q] += e[s] * p;
            pp[q] += p * p;
        }
    }
    for (size_t q = 0; q < nb; q++) {
        coef[q] = pp[q] > 0 ? ep[q] / pp[q] : 0;
        share[q] = pp[q] > 0 && ee > 0 ? ep[q] / pp[q] * (ep[q] / ee) : 0;
    }
    free(ep);
    free(pp);
    return 0;
}
