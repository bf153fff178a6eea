/*
 * parallel.c — fl_round_float_array_mt / fl_round_double_array_mt and the
 * stochastic rounding with supplied bits: a static contiguous split over
 * POSIX threads (see fplab/parallel.h).
 */
#include <pthread.h>
#include <unistd.h>

#include "fplab/parallel.h"

#define FL__MT_MAX 64
#define FL__MT_MIN_PART ((size_t)1 << 14)

/* Elements [lo, hi) of a job, flags ORed into *flags. */
typedef void fl__part_fn(const void *job, size_t lo, size_t hi,
                         unsigned *flags);

/* One part of the split, with its own flag word. */
typedef struct {
    fl__part_fn *run;
    const void *job;
    size_t lo, hi;
    unsigned flags;
} fl__mt_part;

static void *fl__mt_run(void *arg)
{
    fl__mt_part *p = arg;
    p->run(p->job, p->lo, p->hi, &p->flags);
    return NULL;
}

/* run over [0, n) in nthreads contiguous parts (<= 0: one per online CPU;
 * at most FL__MT_MAX, none smaller than FL__MT_MIN_PART, at least one).
 * Part t is [n t / nt, n (t+1) / nt); a thread that cannot be started
 * runs its part in the caller.  Returns the OR of the parts' flags. */
static unsigned fl__mt_split(size_t n, int nthreads, fl__part_fn *run,
                             const void *job)
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
        part[t].run = run;
        part[t].job = job;
        /* without overflow */
        part[t].lo = n / nt * t + n % nt * t / nt;
        part[t].hi = n / nt * (t + 1) + n % nt * (t + 1) / nt;
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
    return fl;
}

/* Rounding host values: element i has stochastic-rounding index
 * c->sr_index + i wherever it runs. */
typedef struct {
    const fl_format *f;
    const fl_ctx *c;
    void *dst;
    const void *src;
    int dbl;
} fl__round_job;

static void fl__round_part(const void *job, size_t lo, size_t hi,
                           unsigned *flags)
{
    const fl__round_job *j = job;
    fl_ctx ci = *j->c;
    ci.sr_index = j->c->sr_index + (uint64_t)lo;
    if (j->dbl)
        fl_round_double_array(j->f, (double *)j->dst + lo,
                              (const double *)j->src + lo, hi - lo, &ci,
                              flags);
    else
        fl_round_float_array(j->f, (float *)j->dst + lo,
                             (const float *)j->src + lo, hi - lo, &ci,
                             flags);
}

void fl_round_float_array_mt(const fl_format *f, float *dst,
                             const float *src, size_t n, const fl_ctx *c,
                             unsigned *flags, int nthreads)
{
    const fl__round_job j = {f, c, dst, src, 0};
    *flags |= fl__mt_split(n, nthreads, fl__round_part, &j);
}

void fl_round_double_array_mt(const fl_format *f, double *dst,
                              const double *src, size_t n, const fl_ctx *c,
                              unsigned *flags, int nthreads)
{
    const fl__round_job j = {f, c, dst, src, 1};
    *flags |= fl__mt_split(n, nthreads, fl__round_part, &j);
}

/* Stochastic rounding with supplied bits: element i reads rbits[i] (and
 * writes each[i]) wherever it runs. */
typedef struct {
    const fl_format *f;
    const fl_ctx *c;
    uint64_t *dst;
    const void *src;
    const uint64_t *rbits;
    unsigned *each;
    int nbits, variant, dbl;
} fl__srb_job;

static void fl__srb_part(const void *job, size_t lo, size_t hi,
                         unsigned *flags)
{
    const fl__srb_job *j = job;
    unsigned *each = j->each ? j->each + lo : NULL;
    if (j->dbl)
        fl_round_sr_bits_array(j->f, j->dst + lo,
                               (const double *)j->src + lo, j->rbits + lo,
                               hi - lo, j->nbits, j->variant, j->c, flags,
                               each);
    else
        fl_round_sr_bits_float_array(j->f, j->dst + lo,
                                     (const float *)j->src + lo,
                                     j->rbits + lo, hi - lo, j->nbits,
                                     j->variant, j->c, flags, each);
}

void fl_round_sr_bits_array_mt(const fl_format *f, uint64_t *dst,
                               const double *src, const uint64_t *rbits,
                               size_t n, int nbits, int variant,
                               const fl_ctx *c, unsigned *flags,
                               unsigned *each, int nthreads)
{
    const fl__srb_job j = {f, c, dst, src, rbits, each, nbits, variant, 1};
    const unsigned fl = fl__mt_split(n, nthreads, fl__srb_part, &j);
    if (flags)
        *flags |= fl;
}

void fl_round_sr_bits_float_array_mt(const fl_format *f, uint64_t *dst,
                                     const float *src, const uint64_t *rbits,
                                     size_t n, int nbits, int variant,
                                     const fl_ctx *c, unsigned *flags,
                                     unsigned *each, int nthreads)
{
    const fl__srb_job j = {f, c, dst, src, rbits, each, nbits, variant, 0};
    const unsigned fl = fl__mt_split(n, nthreads, fl__srb_part, &j);
    if (flags)
        *flags |= fl;
}
