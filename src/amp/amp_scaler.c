/*
 * amp_scaler.c — the loss-scaler state machines (see amp_scaler.h for the
 * reference semantics each one follows).
 */
#include <math.h>
#include <string.h>
#include "amp_scaler.h"

void amp_scaler_config_default(amp_scaler_config *c, int kind)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->init_scale = (kind == AMP_SCALER_TORCH || kind == AMP_SCALER_APEX)
                        ? 0x1p16 : 1.0;
    c->growth_factor = 2.0;
    c->backoff_factor = 0.5;
    c->growth_interval = 2000;
    c->max_scale = 0x1p24;
    c->min_scale = 0.0;
}

int amp_scaler_init(amp_scaler *s, const amp_scaler_config *c)
{
    memset(s, 0, sizeof *s);
    if (c->kind < AMP_SCALER_NONE || c->kind > AMP_SCALER_APEX)
        return -1;
    if (!(c->init_scale > 0) || !isfinite(c->init_scale))
        return -1;
    if (c->kind == AMP_SCALER_TORCH) {
        /* torch.amp.GradScaler asserts growth_factor > 1 and
         * backoff_factor < 1 */
        if (!(c->growth_factor > 1) || !(c->backoff_factor > 0) ||
            !(c->backoff_factor < 1) || c->growth_interval < 1)
            return -1;
        /* torch stores the scale in a binary32 tensor: the init rounds. */
        if (!isfinite((float)c->init_scale))
            return -1;
    }
    if (c->kind == AMP_SCALER_APEX) {
        if (c->growth_interval < 1 || !(c->max_scale > 0) ||
            c->min_scale < 0 || c->min_scale > c->max_scale)
            return -1;
    }
    s->cfg = *c;
    if (c->kind == AMP_SCALER_NONE)
        s->cfg.init_scale = 1.0;
    s->scale_f32 = (float)s->cfg.init_scale;
    s->scale_f64 = s->cfg.init_scale;
    return 0;
}

float amp_scaler_scale(const amp_scaler *s)
{
    return s->cfg.kind == AMP_SCALER_TORCH ? s->scale_f32
                                           : (float)s->scale_f64;
}

float amp_scaler_inv_scale(const amp_scaler *s)
{
    double sc = s->cfg.kind == AMP_SCALER_TORCH ? (double)s->scale_f32
                                                : s->scale_f64;
    return (float)(1.0 / sc);
}

/* torch/amp: _amp_update_scale_ (one step of the update kernel). */
static int update_torch(amp_scaler *s, int found_inf)
{
    if (found_inf) {
        s->scale_f32 = s->scale_f32 * (float)s->cfg.backoff_factor;
        s->tracker = 0;
        return 1;
    }
    int32_t t = s->tracker + 1;
    if (t == s->cfg.growth_interval) {
        float grown = s->scale_f32 * (float)s->cfg.growth_factor;
        if (isfinite(grown))
            s->scale_f32 = grown;
        s->tracker = 0;
    } else {
        s->tracker = t;
    }
    return 0;
}

/* apex/amp/scaler.py: LossScaler.update_scale (dynamic). */
static int update_apex(amp_scaler *s, int found_inf)
{
    int skip = 0;
    if (found_inf) {
        skip = 1;
        if (s->cfg.min_scale > 0)
            s->scale_f64 = fmax(s->cfg.min_scale, s->scale_f64 / 2.0);
        else
            s->scale_f64 = s->scale_f64 / 2.0;
        s->tracker = 0;
    } else {
        s->tracker += 1;
    }
    if (s->tracker == s->cfg.growth_interval) {
        s->scale_f64 = fmin(s->cfg.max_scale, s->scale_f64 * 2.0);
        s->tracker = 0;
    }
    return skip;
}

int amp_scaler_update(amp_scaler *s, int found_inf)
{
    int skip = 0;
    switch (s->cfg.kind) {
    case AMP_SCALER_TORCH: skip = update_torch(s, found_inf); break;
    case AMP_SCALER_APEX: skip = update_apex(s, found_inf); break;
    default: break;   /* none, static: never skip, never change */
    }
    s->steps++;
    s->skipped += (uint64_t)skip;
    return skip;
}

static const char *const kind_names[] = {"none", "static", "torch", "apex"};

int amp_scaler_kind_parse(const char *name)
{
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, kind_names[k]))
            return k;
    return -1;
}

const char *amp_scaler_kind_name(int kind)
{
    return (kind >= 0 && kind < 4) ? kind_names[kind] : "?";
}

int amp_any_nonfinite(const float *g, size_t n)
{
    /* Branch-free OR over the exponent field: inf/NaN have it all ones. */
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &g[i], sizeof u);
        bad |= ((u & 0x7F800000u) == 0x7F800000u);
    }
    return bad != 0;
}

void amp_unscale(float *g, size_t n, float inv_scale, int *found_inf)
{
    if (amp_any_nonfinite(g, n))
        *found_inf = 1;
    for (size_t i = 0; i < n; i++)
        g[i] = g[i] * inv_scale;
}
