/*
 * parallel.c — fl_round_float_array_mt / fl_round_double_array_mt: a
 * static contiguous split over POSIX threads (see fplab/parallel.h).
 */
#include <pthread.h>
#include <unistd.h>

#include "fplab/parallel.h"

#define FL__MT_MAX 64
#define FL__MT_MIN_PART ((size_t)1 << 14)

typedef struct {
    const fl_format *f;
    const fl_ctx *c;
    void *dst;
    const void *src;
    size_t lo, hi;
    int dbl;
    unsigned flags;    /* this part's own flag word */
} fl__mt_part;

static void *fl__mt_run(void *arg)
{
    fl__mt_part *p = arg;
    fl_ctx ci = *p->c;
    ci.sr_index = p->c->sr_index + (uint64_t)p->lo;
    if (p->dbl)
        fl_round_double_array(p->f, (double *)p->dst + p->lo,
                              (const double *)p->src + p->lo, p->hi - p->lo,
                              &ci, &p->flags);
    else
        fl_round_float_array(p->f, (float *)p->dst + p->lo,
                             (const float *)p->src + p->lo, p->hi - p->lo,
                             &ci, &p->flags);
    return NULL;
}

static void fl__mt(const fl_format *f, void *dst, const void *src, size_t n,
                   const fl_ctx *c, unsigned *flags, int nthreads, int dbl)
{
    fl__mt_part part[FL__MT_MAX];
    pthread_t th[FL__MT_MAX];
    int started[FL__MT_MAX];
    size_t t, nt;
    unsigned fl = 0;

    if (nthreads <= 0) {
        long k = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = k > 0 ? (int)(k < FL__MT_MAX ? k : FL__MT_MAX) : 1;
    }
    nt = (size_t)(nthreads < FL__MT_MAX ? nthreads : FL__MT_MAX);
    if (nt > n / FL__MT_MIN_PART)
        nt = n / FL__MT_MIN_PART;
    if (nt < 1)
        nt = 1;
    for (t = 0; t < nt; t++) {
        part[t].f = f;
        part[t].c = c;
        part[t].dst = dst;
        part[t].src = src;
        /* part t: [n t / nt, n (t+1) / nt), without overflow */
        part[t].lo = n / nt * t + n % nt * t / nt;
        part[t].hi = n / nt * (t + 1) + n % nt * (t + 1) / nt;
        part[t].dbl = dbl;
        part[t].flags = 0;
        started[t] = 0;
    }
    for (t = 1; t < nt; t++)
        started[t] = pthread_create(&th[t], NULL, fl__mt_run, &part[t]) == 0;
    fl__mt_run(&part[0]);
    for (t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            fl__mt_run(&part[t]);
    }
    for (t = 0; t < nt; t++)
        fl |= part[t].flags;
    *flags |= fl;
}

void fl_round_float_array_mt(const fl_format *f, float *dst,
                             const float *src, size_t n, const fl_ctx *c,
                             unsigned *flags, int nthreads)
{
    fl__mt(f, dst, src, n, c, flags, nthreads, 0);
}

void fl_round_double_array_mt(const fl_format *f, double *dst,
                              const double *src, size_t n, const fl_ctx *c,
                              unsigned *flags, int nthreads)
{
    fl__mt(f, dst, src, n, c, flags, nthreads, 1);
}

/* Stochastic rounding with supplied bits: the same contiguous split, each
 * part with its own flag word; element i reads rbits[i] wherever it runs. */
typedef struct {
    const fl_format *f;
    const fl_ctx *c;
    uint64_t *dst;
    const void *src;
    const uint64_t *rbits;
    unsigned *each;
    size_t lo, hi;
    int nbits, variant, dbl;
    unsigned flags;
} fl__srb_part;

static void *fl__srb_run(void *arg)
{
    fl__srb_part *p = arg;
    const size_t k = p->hi - p->lo;
    unsigned *each = p->each ? p->each + p->lo : NULL;
    if (p->dbl)
        fl_round_sr_bits_array(p->f, p->dst + p->lo,
                               (const double *)p->src + p->lo,
                               p->rbits + p->lo, k, p->nbits, p->variant,
                               p->c, &p->flags, each);
    else
        fl_round_sr_bits_float_array(p->f, p->dst + p->lo,
                                     (const float *)p->src + p->lo,
                                     p->rbits + p->lo, k, p->nbits,
                                     p->variant, p->c, &p->flags, each);
    return NULL;
}

static void fl__srb_mt(const fl_format *f, uint64_t *dst, const void *src,
                       const uint64_t *rbits, size_t n, int nbits,
                       int variant, const fl_ctx *c, unsigned *flags,
                       unsigned *each, int nthreads, int dbl)
{
    fl__srb_part part[FL__MT_MAX];
    pthread_t th[FL__MT_MAX];
    int started[FL__MT_MAX];
    size_t t, nt;
    unsigned fl = 0;

    if (nthreads <= 0) {
        long k = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = k > 0 ? (int)(k < FL__MT_MAX ? k : FL__MT_MAX) : 1;
    }
    nt = (size_t)(nthreads < FL__MT_MAX ? nthreads : FL__MT_MAX);
    if (nt > n / FL__MT_MIN_PART)
        nt = n / FL__MT_MIN_PART;
    if (nt < 1)
        nt = 1;
    for (t = 0; t < nt; t++) {
        fl__srb_part q = {f, c, dst, src, rbits, each,
                          n / nt * t + n % nt * t / nt,
                          n / nt * (t + 1) + n % nt * (t + 1) / nt,
                          nbits, variant, dbl, 0};
        part[t] = q;
        started[t] = 0;
    }
    for (t = 1; t < nt; t++)
        started[t] = pthread_create(&th[t], NULL, fl__srb_run, &part[t]) == 0;
    fl__srb_run(&part[0]);
    for (t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            fl__srb_run(&part[t]);
    }
    for (t = 0; t < nt; t++)
        fl |= part[t].flags;
    if (flags)
        *flags |= fl;
}

void fl_round_sr_bits_array_mt(const fl_format *f, uint64_t *dst,
                               const double *src, const uint64_t *rbits,
                               size_t n, int nbits, int variant,
                               const fl_ctx *c, unsigned *flags,
                               unsigned *each, int nthreads)
{
    fl__srb_mt(f, dst, src, rbits, n, nbits, variant, c, flags, each,
               nthreads, 1);
}

void fl_round_sr_bits_float_array_mt(const fl_format *f, uint64_t *dst,
                                     const float *src, const uint64_t *rbits,
                                     size_t n, int nbits, int variant,
                                     const fl_ctx *c, unsigned *flags,
                                     unsigned *each, int nthreads)
{
    fl__srb_mt(f, dst, src, rbits, n, nbits, variant, c, flags, each,
               nthreads, 0);
}
