/*
 * amp_scaler.h — loss scalers as small state machines.
 *
 * A training step with a scaler:
 *     S = amp_scaler_scale(&s);            loss * S, backward
 *     found = any gradient non-finite      (OR-reduced over ranks)
 *     amp_unscale(g, n, amp_scaler_inv_scale(&s), &found) (fp32 grads)
 *     skip = amp_scaler_update(&s, found); optimizer step unless skip
 *
 * Semantics follow the references exactly:
 *  - AMP_SCALER_TORCH (torch.amp.GradScaler): scale is binary32, the growth
 *    tracker int32; inv_scale = (float)(1.0 / (double)scale); on found_inf
 *    scale *= backoff (in binary32) and the tracker resets to 0; otherwise
 *    the tracker counts up and, when it reaches growth_interval, the scale
 *    is multiplied by growth (binary32) and kept only if the result is
 *    finite, and the tracker resets.  No clamp: the scale may go below 1.
 *  - AMP_SCALER_APEX (apex.amp LossScaler, dynamic): scale is a Python
 *    float (binary64); on overflow scale = max(min, scale/2) (min optional),
 *    counter = 0, skip; else counter += 1 and when counter == window,
 *    scale = min(max, 2*scale), counter = 0.
 *  - AMP_SCALER_STATIC: scale S forever, never skips (as apex with a fixed
 *    loss_scale: non-finite gradients reach the optimizer).
 *  - AMP_SCALER_NONE: scale 1, never skips.
 */
#ifndef FPLAB_AMP_SCALER_H
#define FPLAB_AMP_SCALER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum amp_scaler_kind {
    AMP_SCALER_NONE = 0,
    AMP_SCALER_STATIC = 1,
    AMP_SCALER_TORCH = 2,
    AMP_SCALER_APEX = 3
} amp_scaler_kind;

/* Knobs; amp_scaler_config_default fills the reference defaults. */
typedef struct amp_scaler_config {
    int kind;                /* amp_scaler_kind */
    double init_scale;       /* 2^16 (static: S) */
    double growth_factor;    /* torch: 2.0 */
    double backoff_factor;   /* torch: 0.5 */
    int32_t growth_interval; /* torch: 2000; apex: window 2000 */
    double max_scale;        /* apex: 2^24 */
    double min_scale;        /* apex: 0 = no minimum */
} amp_scaler_config;

void amp_scaler_config_default(amp_scaler_config *c, int kind);

typedef struct amp_scaler {
    amp_scaler_config cfg;
    float scale_f32;     /* torch: the binary32 scale tensor */
    double scale_f64;    /* apex / static / none: the scale */
    int32_t tracker;     /* torch growth tracker / apex unskipped counter */
    uint64_t steps;      /* updates seen */
    uint64_t skipped;    /* steps skipped */
} amp_scaler;

/* Returns 0, or -1 if the config is invalid (scale <= 0 or not finite,
 * interval < 1, factors <= 0, max < min ...). */
int amp_scaler_init(amp_scaler *s, const amp_scaler_config *c);
/* The scale multiplying the loss this step (as binary32, the dtype the
 * scaled loss is computed in; apex's binary64 scale converts exactly while
 * it is a power of two in binary32's range). */
float amp_scaler_scale(const amp_scaler *s);
/* Inverse used to unscale: (float)(1.0 / (double)scale). */
float amp_scaler_inv_scale(const amp_scaler *s);
/* Advance the state machine after a step with the given found_inf flag
 * (already OR-reduced over ranks).  Returns 1 if the optimizer step must
 * be skipped, else 0.  NONE and STATIC never skip. */
int amp_scaler_update(amp_scaler *s, int found_inf);
/* "torch", "apex", "static", "none" <-> kind; -1 if unknown. */
int amp_scaler_kind_parse(const char *name);
const char *amp_scaler_kind_name(int kind);

/* 1 if any of g[0..n) is inf or NaN. */
int amp_any_nonfinite(const float *g, size_t n);
/* g[i] *= inv_scale in binary32 (torch's _amp_foreach_non_finite_check_
 * and_unscale_); ORs "any non-finite" (checked on the scaled input) into
 * *found_inf. */
void amp_unscale(float *g, size_t n, float inv_scale, int *found_inf);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_SCALER_H */
