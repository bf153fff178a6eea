/*
 * parallel.h — multi-threaded bulk rounding (POSIX threads).
 *
 * The array is cut into nthreads contiguous parts; part k starts at
 * element lo_k and runs fl_round_*_array with stochastic-rounding index
 * c->sr_index + lo_k, so element i always uses c->sr_index + i.  Each part
 * ORs its flags into a word of its own; the words are OR-ed into *flags at
 * the end.  Values and flags are therefore identical for every nthreads,
 * stochastic rounding included.  No state is shared between the threads
 * besides the (read-only) source and the disjoint parts of dst.
 */
#ifndef FPLAB_PARALLEL_H
#define FPLAB_PARALLEL_H

#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* nthreads <= 0: one thread per online processor.  Small arrays use fewer
 * threads (at least 2^14 elements each).  A thread that cannot be created
 * has its part done by the calling thread. */
void fl_round_float_array_mt(const fl_format *f, float *dst,
                             const float *src, size_t n, const fl_ctx *c,
                             unsigned *flags, int nthreads);
void fl_round_double_array_mt(const fl_format *f, double *dst,
                              const double *src, size_t n, const fl_ctx *c,
                              unsigned *flags, int nthreads);

/* Stochastic rounding with supplied bits (fl_round_sr_bits_array and
 * its binary32 form) over threads, as above: element i always takes
 * rbits[i], so results and flags do not depend on nthreads; each may be
 * NULL. */
void fl_round_sr_bits_array_mt(const fl_format *f, uint64_t *dst,
                               const double *src, const uint64_t *rbits,
                               size_t n, int nbits, int variant,
                               const fl_ctx *c, unsigned *flags,
                               unsigned *each, int nthreads);
void fl_round_sr_bits_float_array_mt(const fl_format *f, uint64_t *dst,
                                     const float *src, const uint64_t *rbits,
                                     size_t n, int nbits, int variant,
                                     const fl_ctx *c, unsigned *flags,
                                     unsigned *each, int nthreads);

#ifdef __cplusplus
}
#endif

#endif /* FPLAB_PARALLEL_H */
