/*
 * amp_flush.c — the flush share of a run (amp_flush.h): amp_range_stats'
 * underflow class, counted per layer over every step.
 */
#include <string.h>
#include "amp_flush.h"

void amp_flush_init(amp_flush *a)
{
    memset(a, 0, sizeof *a);
}

int amp_flush_add(amp_flush *a, const amp_step_view *v, const fl_format *f,
                  float S)
{
    if (v->layers < 1 || v->layers > AMP_FLUSH_MAXL ||
        (a->layers && a->layers != v->layers))
        return -1;
    a->layers = v->layers;
    a->steps++;
    for (int l = 0; l < v->layers; l++) {
        const float *g[AMP_FLUSH_KINDS] = {v->agrad[l], v->wgrad[l]};
        const size_t n[AMP_FLUSH_KINDS] = {v->agrad_n[l], v->wgrad_n[l]};
        for (int k = 0; k < AMP_FLUSH_KINDS; k++) {
            amp_range_stats s;
            memset(&s, 0, sizeof s);
            amp_range_stats_add(&s, f, g[k], n[k], S);
            /* live = total - zero - nonfinite: the classes are disjoint */
            a->live[k][l] += s.total - s.zero_fp32 - s.nonfinite;
            a->flushed[k][l] += s.underflow;
        }
    }
    return 0;
}

/* The sum over the layers of one kind's row of counts (k checked). */
static uint64_t layer_sum(const amp_flush *a,
                          const uint64_t (*counts)[AMP_FLUSH_MAXL], int k)
{
    uint64_t n = 0;
    if (k < 0 || k >= AMP_FLUSH_KINDS)
        return 0;
    for (int l = 0; l < a->layers; l++)
        n += counts[k][l];
    return n;
}

uint64_t amp_flush_live(const amp_flush *a, int k)
{
    return layer_sum(a, a->live, k);
}

uint64_t amp_flush_flushed(const amp_flush *a, int k)
{
    return layer_sum(a, a->flushed, k);
}

double amp_flush_share(const amp_flush *a, int k)
{
    uint64_t live = amp_flush_live(a, k);
    return live ? (double)amp_flush_flushed(a, k) / (double)live : 0.0;
}

double amp_flush_layer_share(const amp_flush *a, int k, int l)
{
    if (k < 0 || k >= AMP_FLUSH_KINDS || l < 0 || l >= a->layers || !a->live[k][l])
        return 0.0;
    return (double)a->flushed[k][l] / (double)a->live[k][l];
}

double amp_flush_part_in_layer(const amp_flush *a, int k, int l)
{
    uint64_t fl = amp_flush_flushed(a, k);
    if (!fl || l < 0 || l >= a->layers)
        return 0.0;
    return (double)a->flushed[k][l] / (double)fl;
}
