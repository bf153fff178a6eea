/*
 * sweep.h — the sweep engine of `fplab verify`: compares the core with an
 * oracle over an input space (every input, or a seeded random sample biased
 * toward hard cases), on threads, over any index range (an MPI shard).
 *
 * Every input is a pure function of its index (and the seed), so the
 * result of a sweep does not depend on how the index space is split among
 * threads or processes: counts add up, and the first mismatches (kept in
 * index order) merge into the same list a single process would print.
 */
#ifndef FPLAB_SWEEP_H
#define FPLAB_SWEEP_H

#include <stdint.h>
#include <stddef.h>
#include "oracle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_SWEEP_MAXREC 16

typedef struct fl_sweep_cfg {
    const fl_oracle *orc;
    fl_orc_job job;
    int exhaustive;          /* 1: every input; 0: random_n samples */
    uint64_t random_n;
    uint64_t seed;
    int threads;             /* >= 1 */
    uint64_t lo, hi;         /* index range to cover (a shard), hi <= space */
    int check_flags;         /* compare the flags the oracle reports */
    int progress;            /* progress line with rate and ETA on stderr */
    const char *label;       /* progress line prefix */
    int nan_any;             /* compare NaN results as any NaN */
    uint64_t inject_every;   /* self-test of the engine: when nonzero, the
                                core's result of every index divisible by it
                                is corrupted (last bit flipped) */
} fl_sweep_cfg;

typedef struct fl_sweep_rec {
    uint64_t index, a, b, c;       /* inputs (unused ones 0) */
    uint64_t want, got;            /* oracle, core */
    unsigned wflags, gflags;       /* oracle flags (FL_ORC_ERROR), core */
} fl_sweep_rec;

typedef struct fl_sweep_result {
    uint64_t cases;          /* inputs compared */
    uint64_t mismatches;     /* inputs with any difference */
    uint64_t value_mm;       /* of which the value differs */
    uint64_t flag_mm;        /* of which only the flags differ */
    uint64_t oracle_err;     /* of which the oracle reported an error */
    double seconds;
    uint32_t nrec;           /* first mismatches, by increasing index */
    fl_sweep_rec rec[FL_SWEEP_MAXREC];
} fl_sweep_result;

/* Size of the input space: 2^(arity * operand width) when exhaustive (at
 * most 2^40), else random_n.  -1 with a message when too large. */
int fl_sweep_space(const fl_orc_job *j, int exhaustive, uint64_t random_n,
                   uint64_t *n, char *err, size_t len);

/* Operands of input `index`. */
void fl_sweep_inputs(const fl_sweep_cfg *cfg, uint64_t index, uint64_t *a,
                     uint64_t *b, uint64_t *c);

/* Run [cfg->lo, cfg->hi); res is overwritten.  0, or -1 if threads could
 * not be started. */
int fl_sweep_run(const fl_sweep_cfg *cfg, fl_sweep_result *res);

/* Add `from` into `into`: counts summed, records merged by index. */
void fl_sweep_merge(fl_sweep_result *into, const fl_sweep_result *from);

#ifdef __cplusplus
}
#endif
#endif
