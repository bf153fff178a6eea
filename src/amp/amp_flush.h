/*
 * amp_flush.h — the lab's one definition of "the share of gradients that
 * flush to zero".
 *
 * A gradient value flushes at scale S into a format f when it is nonzero
 * and finite as computed and g*S rounds (to nearest even) to zero in f:
 * amp_range_stats' underflow class, |g*S| <= half f's smallest subnormal.
 * The flush share of a run is
 *     flushed / live      (live: the nonzero finite values),
 * summed over EVERY step of the run (no sample of steps) and every layer.
 * The values are the ones the trainer's step callback shows
 * (amp_step_view): per layer, the gradient with respect to the layer's
 * output (AMP_FLUSH_AGRAD, "activation gradients") and the weight gradient
 * (AMP_FLUSH_WGRAD), as computed, before rounding into the compute format.
 * In a binary32 run with S = 1 that is the what-if "had every gradient of
 * this run been rounded into f without loss scaling"; in a run that
 * computes in f, with S = 1 (the view's values carry the run's own
 * scale), it is what the run itself flushed.
 * Counts are kept per layer, so that where the flushed values lie can be
 * said.  Across seeds the lab reports each seed's share and their mean
 * (amp_flush_share per run, then the mean of the shares).
 */
#ifndef FPLAB_AMP_FLUSH_H
#define FPLAB_AMP_FLUSH_H

#include <stdint.h>
#include "fplab/fplab.h"
#include "amp_train.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { AMP_FLUSH_AGRAD = 0, AMP_FLUSH_WGRAD = 1, AMP_FLUSH_KINDS = 2,
       AMP_FLUSH_MAXL = 16 };

typedef struct amp_flush {
    int layers;                 /* layers of the steps counted (0: none) */
    uint64_t steps;             /* steps counted */
    uint64_t live[AMP_FLUSH_KINDS][AMP_FLUSH_MAXL];
    uint64_t flushed[AMP_FLUSH_KINDS][AMP_FLUSH_MAXL];
} amp_flush;

void amp_flush_init(amp_flush *a);
/* Count one step's gradients (call it from the step callback at every
 * step) at scale S > 0 into f.  Returns 0, or -1 (nothing counted) when
 * the view has more than AMP_FLUSH_MAXL layers or another number of
 * layers than the steps counted before. */
int amp_flush_add(amp_flush *a, const amp_step_view *v, const fl_format *f,
                  float S);
/* flushed / live of kind k over every layer; 0 when nothing is live. */
double amp_flush_share(const amp_flush *a, int k);
/* flushed / live of kind k in layer l; 0 when nothing is live there. */
double amp_flush_layer_share(const amp_flush *a, int k, int l);
/* The part of kind k's flushed values that lies in layer l (0 when none
 * flushed). */
double amp_flush_part_in_layer(const amp_flush *a, int k, int l);
uint64_t amp_flush_live(const amp_flush *a, int k);
uint64_t amp_flush_flushed(const amp_flush *a, int k);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_FLUSH_H */
