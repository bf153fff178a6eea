/*
 * sweep.c — the sweep engine (see sweep.h).
 *
 * Threads: the index range is cut into chunks of FL_SWEEP_CHUNK; thread t of
 * T takes chunks t, t+T, t+2T, ...  Each thread owns its buffers, its result
 * and a progress counter that only it writes; the main thread reads the
 * counters for the progress line and reduces the results at the end.
 */
#define _GNU_SOURCE
#include "sweep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { FL_SWEEP_CHUNK = 4096 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int fl_sweep_space(const fl_orc_job *j, int exhaustive, uint64_t random_n,
                   uint64_t *n, char *err, size_t len)
{
    int bits;
    if (!exhaustive) {
        *n = random_n;
        return 0;
    }
    bits = fl_orc_op_arity(j->op) * j->src->width;
    if (bits > 40) {
        snprintf(err, len, "an exhaustive %s on %s has 2^%d inputs; use "
                 "--random N", fl_orc_op_name(j->op), j->src->name, bits);
        return -1;
    }
    *n = (uint64_t)1 << bits;
    return 0;
}

/* ------------------------------------------------ random inputs
 * A counter-based generator: the k-th word of input `index` is a bijective
 * mix of (seed, index, k), so any index can be produced on its own. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t rnd(uint64_t seed, uint64_t index, unsigned k)
{
    return mix64(mix64(seed ^ 0x9e3779b97f4a7c15ull) + index * 8 + k);
}

/* Pack sign, biased exponent field and fraction into format f. */
static uint64_t pack(const fl_format *f, int sign, uint64_t e, uint64_t frac)
{
    const int fb = f->prec - 1;
    const uint64_t emax_field = ((uint64_t)1 << f->ebits) - 1;
    if (e > emax_field) e = emax_field;
    return (sign ? f->sign_mask : 0) | (e << fb) | (frac & f->frac_mask);
}

/* One operand in format f, biased toward the hard cases.  prev is the
 * previous operand of the same input (or NONE), used to build sums that
 * cancel or tie.  tiebits: for conversions, the number of source fraction
 * bits below the destination's precision (0 otherwise). */
static uint64_t gen_operand(const fl_format *f, const fl_format *dst,
                            uint64_t seed, uint64_t index, unsigned k,
                            int have_prev, uint64_t prev)
{
    const uint64_t r0 = rnd(seed, index, 2 * k);
    const uint64_t r1 = rnd(seed, index, 2 * k + 1);
    const int fb = f->prec - 1;
    const uint64_t emax_field = ((uint64_t)1 << f->ebits) - 1;
    const int sign = (int)(r1 >> 63);
    const unsigned cat = (unsigned)(r0 & 15);
    uint64_t e, frac = r1 & f->frac_mask;

    switch (cat) {
    case 0: case 1: case 2: case 3:                 /* any bit pattern */
        return r1 & (f->sign_mask | f->exp_mask | f->frac_mask);
    case 4: {                                        /* special values */
        static const int pick_n = 10;
        int p = (int)((r0 >> 8) % (uint64_t)pick_n);
        uint64_t v;
        switch (p) {
        case 0: v = 0; break;                                   /* zero */
        case 1: v = f->exp_mask; break;                         /* inf */
        case 2: v = f->exp_mask | (fb > 0 ? (uint64_t)1 << (fb - 1) : 0);
            break;                                   /* qNaN (IEEE style) */
        case 3: v = f->exp_mask | 1; break;                     /* sNaN */
        case 4: v = 1; break;                                   /* min sub */
        case 5: v = f->frac_mask; break;                        /* max sub */
        case 6: v = (uint64_t)1 << fb; break;                   /* min normal */
        case 7: v = f->max_bits; break;                         /* max */
        case 8: v = (uint64_t)f->bias << fb; break;             /* one */
        default: v = ((uint64_t)f->bias << fb) | 1; break;     /* 1 + ulp */
        }
        if ((r0 >> 16) & 1) v ^= (r0 >> 17) & 1;   /* a neighbour */
        /* (the NaN of fnuz/P3109 is 0 with the sign; FN's is max + 1) */
        return (v & (f->exp_mask | f->frac_mask)) | (sign ? f->sign_mask : 0);
    }
    case 5: case 6:                                  /* near overflow */
        e = emax_field - 1 - ((r0 >> 8) % 3);
        if (dst != f && dst->ebits < f->ebits) /* the destination's top */
            e = (uint64_t)(f->bias + dst->emax) - ((r0 >> 8) % 3) + 1;
        return pack(f, sign, e, frac);
    case 7: case 8:                                  /* subnormal boundary */
        e = (r0 >> 8) % 3;
        if (dst != f && dst->ebits < f->ebits)
            e = (uint64_t)(f->bias + dst->emin) - (dst->prec + 1) +
                (r0 >> 8) % (uint64_t)(dst->prec + 3);
        return pack(f, sign, e, frac);
    case 9: case 10: {                               /* short significand */
        int keep = (int)((r0 >> 8) % 4);
        uint64_t low = (keep < fb) ? (((uint64_t)1 << (fb - keep)) - 1) : 0;
        frac &= ~low;
        if ((r0 >> 12) & 1) frac |= low;             /* or all ones below */
        e = (r1 >> fb) & (emax_field - 1);
        return pack(f, sign, e, frac);
    }
    case 11: case 12:                                /* conversion ties */
        if (dst != f && dst->prec < f->prec) {
            int drop = f->prec - dst->prec;          /* bits below dst ulp */
            uint64_t low = ((uint64_t)1 << drop) - 1;
            uint64_t half = (uint64_t)1 << (drop - 1);
            static const int pats = 5;
            uint64_t pat[5];
            pat[0] = half; pat[1] = half - 1; pat[2] = half + 1; pat[3] = 1;
            pat[4] = low;
            frac = (frac & ~low) | pat[(r0 >> 8) % (uint64_t)pats];
            e = (uint64_t)(f->bias + dst->emin) - 2 +
                (r0 >> 16) % (uint64_t)(dst->emax - dst->emin + 4);
            return pack(f, sign, e, frac);
        }
        /* fall through */
    default:                                         /* relative to prev */
        if (!have_prev)
            return r1 & (f->sign_mask | f->exp_mask | f->frac_mask);
        {
            int64_t pe = (int64_t)((prev & f->exp_mask) >> fb);
            static const int shifts[8] = {0, 1, -1, 0, 0, 0, 0, 0};
            int s = (int)((r0 >> 8) & 7);
            int64_t d = s < 3 ? shifts[s]
                        : s == 3 ? f->prec : s == 4 ? f->prec + 1
                        : s == 5 ? -(int64_t)f->prec : s == 6 ? f->prec + 2
                        : -(int64_t)f->prec - 1;
            int64_t ne = pe - d;
            if (ne < 0) ne = 0;
            if (ne > (int64_t)emax_field - 1) ne = (int64_t)emax_field - 1;
            if (s == 0) /* same exponent, nearby fraction: cancellation */
                frac = (prev + ((r0 >> 16) & 3) - 1) & f->frac_mask;
            return pack(f, sign, (uint64_t)ne, frac);
        }
    }
}

void fl_sweep_inputs(const fl_sweep_cfg *cfg, uint64_t index, uint64_t *a,
                     uint64_t *b, uint64_t *c)
{
    const fl_orc_job *j = &cfg->job;
    const int ar = fl_orc_op_arity(j->op);
    const int w = j->src->width;
    *b = 0;
    *c = 0;
    if (cfg->exhaustive) {
        const uint64_t m = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
        if (ar == 1) {
            *a = index & m;
        } else if (ar == 2) {
            *a = (index >> w) & m;
            *b = index & m;
        } else {
            *a = (index >> (2 * w)) & m;
            *b = (index >> w) & m;
            *c = index & m;
        }
        return;
    }
    *a = gen_operand(j->src, j->fmt, cfg->seed, index, 0, 0, 0);
    if (ar >= 2)
        *b = gen_operand(j->src, j->fmt, cfg->seed, index, 1, 1, *a);
    if (ar >= 3) {
        /* the addend relates to the product's exponent as often as not */
        uint64_t prev = *b;
        if (rnd(cfg->seed, index, 7) & 1) {
            const int fb = j->src->prec - 1;
            int64_t ea = (int64_t)((*a & j->src->exp_mask) >> fb);
            int64_t eb = (int64_t)((*b & j->src->exp_mask) >> fb);
            int64_t ep = ea + eb - j->src->bias;
            int64_t top = (int64_t)(j->src->exp_mask >> fb) - 1;
            if (ep < 0) ep = 0;
            if (ep > top) ep = top;
            prev = (*b & ~j->src->exp_mask) | ((uint64_t)ep << fb);
        }
        *c = gen_operand(j->src, j->fmt, cfg->seed, index, 2, 1, prev);
    }
}

/* ------------------------------------------------ threads */
typedef struct sweep_thread {
    const fl_sweep_cfg *cfg;
    int t, nt;
    fl_sweep_result res;
    _Atomic uint64_t done;       /* written by this thread only */
    _Atomic int finished;
    char pad[64];
} sweep_thread;

static void record(fl_sweep_result *r, uint64_t index, uint64_t a,
                   uint64_t b, uint64_t c, uint64_t want, uint64_t got,
                   unsigned wf, unsigned gf)
{
    fl_sweep_rec *x;
    if (r->nrec >= FL_SWEEP_MAXREC)
        return;
    x = &r->rec[r->nrec++];
    x->index = index;
    x->a = a; x->b = b; x->c = c;
    x->want = want; x->got = got;
    x->wflags = wf; x->gflags = gf;
}

/* The exhaustive inputs of a binary op on w-bit operands: index = a:b.
 * Within a run of indices that keeps a (one whole chunk when the chunk
 * divides 2^w), b counts up by one. */
static void pairs_of(uint64_t *restrict A, uint64_t *restrict B, uint64_t i0,
                     size_t n, int w)
{
    const uint64_t m = ((uint64_t)1 << w) - 1;
    size_t i = 0;
    while (i < n) {
        const uint64_t a = ((i0 + i) >> w) & m, b0 = (i0 + i) & m;
        const size_t run = (size_t)(m - b0 + 1) < n - i
                           ? (size_t)(m - b0 + 1) : n - i;
        size_t k = 0, j;
        /* blocks of 8 (a fixed trip count: vector code at -O2) */
        for (; k + 8 <= run; k += 8)
            for (j = 0; j < 8; j++) {
                A[i + k + j] = a;
                B[i + k + j] = b0 + k + j;
            }
        for (; k < run; k++) {
            A[i + k] = a;
            B[i + k] = b0 + k;
        }
        i += run;
    }
}

typedef uint64_t fl__sw_v64 __attribute__((vector_size(16)));
typedef unsigned fl__sw_v32 __attribute__((vector_size(16)));

/* The OR over i < n of (A[i] ^ B[i]) & m, for T the values' (uint64_t,
 * VT its 16-byte vector, L lanes) or the flags' type (unsigned). */
#define FL__SW_DIFF(name, T, VT, L)                                          \
    static T name(const T *restrict A, const T *restrict B, size_t n, T m)  \
    {                                                                        \
        VT d0 = {0}, d1 = {0};                                               \
        T dd = 0;                                                            \
        size_t i;                                                            \
        int l;                                                               \
        for (i = 0; i + 2 * (L) <= n; i += 2 * (L)) {                        \
            VT a0, a1, b0, b1;                                               \
            memcpy(&a0, A + i, 16);                                          \
            memcpy(&a1, A + i + (L), 16);                                    \
            memcpy(&b0, B + i, 16);                                          \
            memcpy(&b1, B + i + (L), 16);                                    \
            d0 |= (a0 ^ b0) & m;                                             \
            d1 |= (a1 ^ b1) & m;                                             \
        }                                                                    \
        for (; i < n; i++)                                                   \
            dd |= (A[i] ^ B[i]) & m;                                         \
        d0 |= d1;                                                            \
        for (l = 0; l < (L); l++)                                            \
            dd |= d0[l];                                                     \
        return dd;                                                           \
    }
FL__SW_DIFF(diff_values, uint64_t, fl__sw_v64, 2)
FL__SW_DIFF(diff_flags, unsigned, fl__sw_v32, 4)
#undef FL__SW_DIFF

/* Nonzero when some element of the chunk may disagree: different bits,
 * different compared flags, or an oracle error.  Branch-free, with two
 * 16-byte vector accumulators each (GCC's vector types: SSE2 registers),
 * so it runs at memory speed; the element-by-element comparison only runs
 * on chunks where this is nonzero. */
static uint64_t chunk_diff(const uint64_t *restrict W,
                           const uint64_t *restrict G,
                           const unsigned *restrict WF,
                           const unsigned *restrict GF, size_t n,
                           unsigned fmask)
{
    /* (WF ^ GF) & fmask, and WF's error bit, which GF never has */
    return diff_values(W, G, n, ~(uint64_t)0) |
           (fmask ? diff_flags(WF, GF, n, fmask | FL_ORC_ERROR) : 0u);
}

static void *sweep_worker(void *arg)
{
    sweep_thread *th = arg;
    const fl_sweep_cfg *cfg = th->cfg;
    const fl_orc_job *j = &cfg->job;
    const fl_oracle *o = cfg->orc;
    const unsigned fmask = cfg->check_flags ? o->flags_reported(j) : 0;
    const int exact_nan = o->nan_preset >= 0 && !cfg->nan_any;
    const int ar = fl_orc_op_arity(j->op);
    const uint64_t span = cfg->hi - cfg->lo;
    const uint64_t nchunks = (span + FL_SWEEP_CHUNK - 1) / FL_SWEEP_CHUNK;
    uint64_t *buf = malloc(sizeof(uint64_t) * FL_SWEEP_CHUNK * 5);
    unsigned *fbuf = malloc(sizeof(unsigned) * FL_SWEEP_CHUNK * 2);
    uint64_t *A = buf, *B = buf + FL_SWEEP_CHUNK, *C = buf + 2 * FL_SWEEP_CHUNK;
    uint64_t *W = buf + 3 * FL_SWEEP_CHUNK, *G = buf + 4 * FL_SWEEP_CHUNK;
    unsigned *WF = fbuf, *GF = fbuf + FL_SWEEP_CHUNK;
    fl_sweep_result *res = &th->res;
    uint64_t k;
    /* Exhaustive binary operations on w-bit operands whose chunks each
     * lie in one run of a fixed a (the chunk divides 2^w and the range
     * starts on a chunk): B is a window of the ramp 0 .. 2^w - 1 and A
     * is refilled only when a changes. */
    const int w = j->src->width;
    const int ramped = cfg->exhaustive && ar == 2 && w <= 16 &&
                       ((uint64_t)1 << w) >= FL_SWEEP_CHUNK &&
                       cfg->lo % FL_SWEEP_CHUNK == 0;
    uint64_t *ramp = ramped ? malloc(sizeof(uint64_t) << w) : NULL;
    uint64_t last_a = ~(uint64_t)0;

    memset(res, 0, sizeof *res);
    if (!buf || !fbuf || (ramped && !ramp)) {
        free(ramp);
        free(buf);
        free(fbuf);
        res->oracle_err = res->mismatches = 1;   /* cannot pass silently */
        atomic_store(&th->finished, 1);
        return NULL;
    }
    if (ramped)
        for (k = 0; k < ((uint64_t)1 << w); k++)
            ramp[k] = k;
    for (k = (uint64_t)th->t; k < nchunks; k += (uint64_t)th->nt) {
        const uint64_t i0 = cfg->lo + k * FL_SWEEP_CHUNK;
        const size_t n = (size_t)((cfg->hi - i0) < FL_SWEEP_CHUNK
                                  ? (cfg->hi - i0) : FL_SWEEP_CHUNK);
        const uint64_t *Bc = B;     /* this chunk's second operands */
        size_t i;
        if (ramped) {
            const uint64_t a = i0 >> w;
            if (a != last_a) {
                for (i = 0; i < FL_SWEEP_CHUNK; i++)
                    A[i] = a;
                last_a = a;
            }
            Bc = ramp + (i0 & (((uint64_t)1 << w) - 1));
        } else if (cfg->exhaustive && ar == 2) {
            /* the common exhaustive case, without a call per input */
            pairs_of(A, B, i0, n, w);
        } else {
            for (i = 0; i < n; i++)
                fl_sweep_inputs(cfg, i0 + i, &A[i], &B[i], &C[i]);
        }
        o->compute(j, n, A, ar >= 2 ? Bc : NULL, ar >= 3 ? C : NULL, W,
                   fmask ? WF : NULL);
        fl_orc_core_compute(j, n, A, Bc, C, G, fmask ? GF : NULL);
        if (cfg->inject_every)
            for (i = 0; i < n; i++)
                if ((i0 + i) % cfg->inject_every == 0)
                    G[i] ^= 1;
        for (i = chunk_diff(W, G, WF, GF, n, fmask) ? 0 : n; i < n; i++) {
            const unsigned wf = fmask ? WF[i] : 0, gf = fmask ? GF[i] : 0;
            int verr, oerr, ferr;
            /* the common case first: same bits, same flags, no error */
            if (W[i] == G[i] && ((wf ^ gf) & fmask) == 0 &&
                !(wf & FL_ORC_ERROR))
                continue;
            verr = !fl_orc_same_value(j->fmt, W[i], G[i], exact_nan);
            oerr = (wf & FL_ORC_ERROR) != 0;
            ferr = ((wf ^ gf) & fmask) != 0;
            if (verr | ferr | oerr) {
                res->mismatches++;
                if (oerr) res->oracle_err++;
                else if (verr) res->value_mm++;
                else res->flag_mm++;
                record(res, i0 + i, A[i], ar >= 2 ? Bc[i] : 0,
                       ar >= 3 ? C[i] : 0, W[i], G[i], wf, gf);
            }
        }
        res->cases += n;
        atomic_store_explicit(&th->done, res->cases, memory_order_relaxed);
    }
    free(ramp);
    free(buf);
    free(fbuf);
    atomic_store(&th->finished, 1);
    return NULL;
}

static int cmp_rec(const void *x, const void *y)
{
    const fl_sweep_rec *a = x, *b = y;
    return a->index < b->index ? -1 : a->index > b->index;
}

void fl_sweep_merge(fl_sweep_result *into, const fl_sweep_result *from)
{
    fl_sweep_rec all[2 * FL_SWEEP_MAXREC];
    uint32_t n = 0, i;
    into->cases += from->cases;
    into->mismatches += from->mismatches;
    into->value_mm += from->value_mm;
    into->flag_mm += from->flag_mm;
    into->oracle_err += from->oracle_err;
    if (from->seconds > into->seconds)
        into->seconds = from->seconds;
    for (i = 0; i < into->nrec; i++) all[n++] = into->rec[i];
    for (i = 0; i < from->nrec; i++) all[n++] = from->rec[i];
    qsort(all, n, sizeof all[0], cmp_rec);
    if (n > FL_SWEEP_MAXREC) n = FL_SWEEP_MAXREC;
    memcpy(into->rec, all, n * sizeof all[0]);
    into->nrec = n;
}

int fl_sweep_run(const fl_sweep_cfg *cfg, fl_sweep_result *res)
{
    const int nt = cfg->threads < 1 ? 1 : cfg->threads;
    sweep_thread *th = calloc((size_t)nt, sizeof *th);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    const double t0 = now_s();
    const uint64_t total = cfg->hi > cfg->lo ? cfg->hi - cfg->lo : 0;
    int t, started = 0, rc = 0;

    memset(res, 0, sizeof *res);
    if (!th || !tid) {
        free(th);
        free(tid);
        return -1;
    }
    for (t = 0; t < nt; t++) {
        th[t].cfg = cfg;
        th[t].t = t;
        th[t].nt = nt;
        if (pthread_create(&tid[t], NULL, sweep_worker, &th[t]) != 0) {
            rc = -1;
            break;
        }
        started++;
    }
    if (cfg->progress && rc == 0) {
        double last = t0;
        for (;;) {
            int all = 1;
            uint64_t done = 0;
            double now;
            for (t = 0; t < started; t++) {
                done += atomic_load_explicit(&th[t].done, memory_order_relaxed);
                all &= atomic_load(&th[t].finished);
            }
            if (all)
                break;
            now = now_s();
            if (now - last >= 0.5) {
                double rate = done / (now - t0);
                double eta = rate > 0 ? (double)(total - done) / rate : 0;
                fprintf(stderr, "\r%s: %llu/%llu (%.1f%%) %.2f M/s ETA %.0f s   ",
                        cfg->label ? cfg->label : "verify",
                        (unsigned long long)done, (unsigned long long)total,
                        total ? 100.0 * (double)done / (double)total : 100.0,
                        rate / 1e6, eta);
                fflush(stderr);
                last = now;
            }
            usleep(100000);
        }
        fprintf(stderr, "\r%*s\r", 78, "");
    }
    for (t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        fl_sweep_merge(res, &th[t].res);
    }
    res->seconds = now_s() - t0;
    free(th);
    free(tid);
    return rc;
}
