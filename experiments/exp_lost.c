/*
 * exp_lost.c — experiment 4: lost weight updates (swamping).
 *
 *  a. For update ratios r = |dw|/|w| from 2^-30 to 1, many weights
 *     w = m*2^e with m uniform in [1, 2) and e uniform in 0..3 (rounded
 *     into the weight format): the update dw = r*|w| with a random sign,
 *     rounded into the format (as the optimizer of a pure low-precision
 *     model produces it), is added once.
 *     - Round to nearest (binary16, bfloat16, binary32): the update is lost
 *       when w + dw == w.  Theory for precision p: the spacing above w is
 *       2^(e+1-p), so the update is lost when |dw| < 2^(e-p), i.e. when
 *       r < 2^-p/m: every update is lost for r <= 2^-(p+1), none for
 *       r > 2^-p, and for m uniform the lost fraction in between is
 *       2^-p/r - 1 (Micikevicius et al., ICLR 2018: in fp16 an update is
 *       lost when |w| > 2048|dw|, the upper end r = 2^-11 of this edge).
 *     - Stochastic rounding (binary16): an update is lost for sure only
 *       where dw itself rounds to zero in binary16 (r|w| <= 2^-25: every
 *       weight for r <= 2^-29, none for r > 2^-25); the share of such
 *       weights is counted (sr_dw_zero).  Otherwise the exact sum
 *       s = w + dw lies between two neighbours lo <= s <= hi;
 *       SR returns hi with probability (s - lo)/(hi - lo) (round.c adds
 *       uniform random bits to the discarded part), so the update is kept
 *       (w' != w) with probability p_i = min(1, |dw|/gap), gap the spacing
 *       next to w on the update's side.  The expected kept fraction is
 *       mean(p_i); the count of kept updates is a sum of independent
 *       Bernoulli(p_i) draws, so its sampling error (standard deviation of
 *       the measured fraction) is sqrt(sum p_i(1-p_i))/n.  The applied
 *       fraction X_i = (w' - w)/dw has mean exactly 1 (SR is unbiased) and
 *       variance (hi - s)(s - lo)/dw^2.
 *  b. A long run: w = 1 receives the same update dw = -1e-4 many times,
 *     stored directly in binary16 (RNE, SR), in bfloat16, and as a binary32
 *     master weight (read out through binary16).
 *  c. Stochastic rounding with N supplied random bits (FL_RSB, P3109 3.1's
 *     four variants, N = 1..16): the sweep of a on the same weights, the
 *     sum w + dw rounded by fl_round_sr_bits_array with the bits
 *     R_i = fl_sr_bits(seed, i) & (2^N - 1), against full-width SR
 *     (FL_RSR) on the same updates; and the long run of b with its mirror
 *     (|w| growing), repeated with independent bits, rounded by fl_add in
 *     mode FL_RSB.  Counter-based bits make every number independent of
 *     the thread count (the jobs run on L->jobs threads).
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NRN = 3 };
/* z-scores need this many expected kept and lost updates (normal range) */
#define LAB_MIN_COUNT 10
static const char *const rn_name[NRN] = {"binary16", "bfloat16", "binary32"};

static const fl_format *rn_fmt(int s)
{
    return s == 1 ? &fl_bfloat16 : s == 2 ? &fl_binary32 : &fl_binary16;
}

/* One weight of the shared stream, rounded into f: its value as a double. */
typedef struct draw {
    double m;
    int e;
    double sign;
} draw;

static draw next_draw(lab_rng *r)
{
    draw d;
    d.m = 1 + lab_rng_uniform(r);
    d.e = (int)(lab_rng_next(r) % 4);
    d.sign = (lab_rng_next(r) & 1) ? -1 : 1;
    return d;
}

/* Statistics of the stochastic-rounding series at one ratio. */
typedef struct sr_point {
    long n, dw_zero, kept;
    double p_sum, p_var, u_sum;       /* sum p_i, sum p_i(1-p_i), sum |dw|/gap */
    double x_sum, x_var;              /* sum X_i, sum var X_i (dw != 0) */
} sr_point;

static void sr_sample(sr_point *P, const fl_format *f, draw d, double r,
                      fl_ctx *sr, uint64_t index)
{
    fl_ctx rn = FL_CTX_INIT, dn = fl_ctx_make(FL_RDN), upc = fl_ctx_make(FL_RUP);
    unsigned fl = 0;
    uint64_t w = fl_from_double(f, ldexp(d.m, d.e), &rn, &fl);
    double wv = fl_to_double(f, w);
    uint64_t dw = fl_from_double(f, d.sign * r * wv, &rn, &fl);
    double dv = fl_to_double(f, dw);
    sr->sr_index = index;
    uint64_t w2 = fl_add(f, w, dw, sr, &fl);
    P->n++;
    P->kept += w2 != w;
    if (dv == 0) {   /* the update itself underflowed: lost for sure */
        P->dw_zero++;
        return;
    }
    /* s = w + dw is exact in binary64: both are binary16 values in
     * [2^-24, 16), so s needs fewer than 53 bits */
    double s = wv + dv;
    double lo = fl_to_double(f, fl_from_double(f, s, &dn, &fl));
    double hi = fl_to_double(f, fl_from_double(f, s, &upc, &fl));
    double p = 1;
    if (lo != hi) {
        double pup = (s - lo) / (hi - lo);
        if (wv == lo)
            p = pup;
        else if (wv == hi)
            p = 1 - pup;
        P->x_var += (hi - s) * (s - lo) / (dv * dv);
    } else if (s == wv) {
        p = 0;
    }
    uint64_t nb = dv > 0 ? fl_next_up(f, w, &rn, &fl) : fl_next_down(f, w, &rn, &fl);
    double gap = fabs(fl_to_double(f, nb) - wv);
    P->u_sum += fabs(dv) / gap;
    P->p_sum += p;
    P->p_var += p * (1 - p);
    P->x_sum += (fl_to_double(f, w2) - wv) / dv;
}

/* ---- c. stochastic rounding with N supplied random bits ------------------ */

enum { NB_N = 16, NB_V = FL_SRV_COUNT, NB_JOBS = NB_V * NB_N, NB_RUNS = 2 };
/* the sweep's ratios r = 2^k, k = NB_KLO .. NB_KHI */
enum { NB_KLO = -26, NB_KHI = -8, NB_NR = NB_KHI - NB_KLO + 1 };
/* a table row needs this many updates kept in expectation (full width) */
#define NB_MIN_EXPECT 10

/* Direction of an update: every weight is positive here, so dw > 0 makes
 * |w| grow (the rounded magnitude is w or its upper neighbour; discarded
 * fraction nu = u) and dw < 0 makes it shrink (w or its lower neighbour;
 * nu = 1 - u).  The variants round the magnitude, so the two are counted
 * apart. */
static const char *const nb_dir_name[2] = {"grows", "shrinks"};

/* One ratio, one direction, one (variant, N) or full width. */
typedef struct nb_cell {
    long n, kept;               /* updates with dw != 0; kept: w' != w */
    long nlo, klo, nmid, kmid;  /* u < 2^-(N+1); 2^-(N+1) <= u < 2^-N */
    double e, elo, emid;        /* sums of min(1, u): full width's expectation */
    double umin, umax, ukmin;   /* smallest and largest u; smallest u kept */
} nb_cell;

typedef struct nb_sweep {
    size_t off[NB_NR], cnt[NB_NR], total, maxn;
    long dwz[NB_NR];            /* updates with dw == 0 at each ratio */
    uint64_t *w, *dw;           /* binary16 codes */
    double *s;                  /* w + dw, exact in binary64 */
    double *u;                  /* |dw| / gap, gap the spacing next to w on
                                   the update's side */
    signed char *dir;           /* 0 grows, 1 shrinks, -1 dw == 0 */
    uint64_t *rbits;            /* fl_sr_bits(bits_seed, i), unmasked */
    uint64_t full_seed;
    nb_cell *cells;             /* [job][ratio][dir]; job NB_JOBS: full width */
    int failed[NB_JOBS + 1];
} nb_sweep;

static void nb_cell_init(nb_cell *c)
{
    memset(c, 0, sizeof *c);
    c->umin = c->ukmin = INFINITY;
    c->umax = 0;
}

static void nb_sweep_job(void *arg, size_t j)
{
    nb_sweep *S = arg;
    nb_cell *C = S->cells + j * (size_t)NB_NR * 2;
    const fl_format *f = &fl_binary16;
    fl_ctx rn = FL_CTX_INIT, sr = fl_ctx_make(FL_RSR);
    sr.sr_seed = S->full_seed;
    unsigned fl = 0;
    const int full = j == NB_JOBS;
    const int v = full ? 0 : (int)j / NB_N, nb = full ? 0 : (int)j % NB_N + 1;
    /* the class edges 2^-(N+1) and 2^-N (full width: unused) */
    const double lo = ldexp(1, -(nb + 1)), mid = ldexp(1, -nb);
    uint64_t *dst = full ? NULL : malloc(S->maxn * sizeof *dst);
    if (!full && !dst) {
        S->failed[j] = 1;
        return;
    }
    for (int i = 0; i < NB_NR; i++) {
        nb_cell_init(&C[2 * i]);
        nb_cell_init(&C[2 * i + 1]);
        const size_t o = S->off[i];
        if (!full)
            fl_round_sr_bits_array(f, dst, S->s + o, S->rbits + o, S->cnt[i], nb, v, &rn,
                                   &fl, NULL);
        for (size_t t = 0; t < S->cnt[i]; t++) {
            const size_t k = o + t;
            if (S->dir[k] < 0)
                continue;
            nb_cell *c = &C[2 * i + S->dir[k]];
            uint64_t w2;
            if (full) {
                sr.sr_index = k;
                w2 = fl_add(f, S->w[k], S->dw[k], &sr, &fl);
            } else {
                w2 = dst[t];
            }
            const int kept = w2 != S->w[k];
            const double u = S->u[k], p = u < 1 ? u : 1;
            c->n++;
            c->kept += kept;
            c->e += p;
            c->umin = u < c->umin ? u : c->umin;
            c->umax = u > c->umax ? u : c->umax;
            if (kept && u < c->ukmin)
                c->ukmin = u;
            if (u < lo) {
                c->nlo++;
                c->klo += kept;
                c->elo += p;
            } else if (u < mid) {
                c->nmid++;
                c->kmid += kept;
                c->emid += p;
            }
        }
    }
    free(dst);
}

/* "1–7, 9" from a set of N (1 .. NB_N), or "none". */
static void nb_list(char *buf, size_t len, const int *in)
{
    size_t p = 0;
    buf[0] = 0;
    for (int a = 1; a <= NB_N; a++) {
        if (!in[a])
            continue;
        int b = a;
        while (b + 1 <= NB_N && in[b + 1])
            b++;
        p += (size_t)snprintf(buf + p, p < len ? len - p : 0, "%s%d", p ? ", " : "", a);
        if (b > a)
            p += (size_t)snprintf(buf + p, p < len ? len - p : 0, "%s%d",
                                  b > a + 1 ? "–" : ", ", b);
        a = b;
    }
    if (!p)
        snprintf(buf, len, "none");
}

static int lost_bits_sweep(lab_ctx *L)
{
    /* the sample count per ratio: about 24 updates per direction kept in
     * expectation (u averages 1.5 2^10 r) between nmin and nmax */
    const size_t nmin = L->quick ? 512 : 2048, nmax = L->quick ? 4096 : 65536;
    const int kfull = L->quick ? -8 : -5;   /* n = 2^(kfull - k), clamped */
    lab_rng seeds = lab_rng_make(L->seed, "lost_bits");
    nb_sweep *S = calloc(1, sizeof *S);
    if (!S) {
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    const uint64_t bits_seed = lab_rng_next(&seeds);
    S->full_seed = lab_rng_next(&seeds);
    for (int i = 0; i < NB_NR; i++) {
        const int k = NB_KLO + i;
        size_t n = (size_t)1 << (kfull - k > 30 ? 30 : kfull - k < 0 ? 0 : kfull - k);
        n = n < nmin ? nmin : n > nmax ? nmax : n;
        S->off[i] = S->total;
        S->cnt[i] = n;
        S->total += n;
        S->maxn = n > S->maxn ? n : S->maxn;
    }
    S->w = malloc(S->total * sizeof *S->w);
    S->dw = malloc(S->total * sizeof *S->dw);
    S->s = malloc(S->total * sizeof *S->s);
    S->u = malloc(S->total * sizeof *S->u);
    S->dir = malloc(S->total);
    S->rbits = malloc(S->total * sizeof *S->rbits);
    S->cells = malloc((size_t)(NB_JOBS + 1) * NB_NR * 2 * sizeof *S->cells);
    int rc = -1;
    if (!S->w || !S->dw || !S->s || !S->u || !S->dir || !S->rbits || !S->cells) {
        snprintf(L->err, sizeof L->err, "out of memory");
        goto out;
    }
    /* the updates: the first cnt weights of experiment a's stream at each
     * ratio, dw = r|w| with its random sign rounded into binary16 */
    const fl_format *f = &fl_binary16;
    for (int i = 0; i < NB_NR; i++) {
        const double r = ldexp(1, NB_KLO + i);
        lab_rng rr = lab_rng_make(L->seed, "lost");
        for (size_t t = 0; t < S->cnt[i]; t++) {
            const size_t k = S->off[i] + t;
            fl_ctx rn = FL_CTX_INIT;
            unsigned fl = 0;
            draw d = next_draw(&rr);
            uint64_t w = fl_from_double(f, ldexp(d.m, d.e), &rn, &fl);
            double wv = fl_to_double(f, w);
            uint64_t dw = fl_from_double(f, d.sign * r * wv, &rn, &fl);
            double dv = fl_to_double(f, dw);
            S->w[k] = w;
            S->dw[k] = dw;
            /* exact: both are binary16 values in [2^-24, 16) */
            S->s[k] = wv + dv;
            S->rbits[k] = fl_sr_bits(bits_seed, k);
            if (dv == 0) {
                S->dir[k] = -1;
                S->u[k] = 0;
                S->dwz[i]++;
                continue;
            }
            uint64_t nb = dv > 0 ? fl_next_up(f, w, &rn, &fl) : fl_next_down(f, w, &rn, &fl);
            S->dir[k] = dv > 0 ? 0 : 1;
            S->u[k] = fabs(dv) / fabs(fl_to_double(f, nb) - wv);
        }
    }
    if (lab_parallel(L, NB_JOBS + 1, nb_sweep_job, S))
        goto out;
    for (int j = 0; j <= NB_JOBS; j++)
        if (S->failed[j]) {
            snprintf(L->err, sizeof L->err, "out of memory");
            goto out;
        }
    const nb_cell *F = S->cells + (size_t)NB_JOBS * NB_NR * 2;   /* full width */
#define CELL(j, i, d) (&S->cells[((size_t)(j) * NB_NR + (size_t)(i)) * 2 + (size_t)(d)])

    FILE *fp = lab_data_begin(L, "lost_bits.dat",
                        "kept weight updates under stochastic rounding with N supplied "
                        "random bits, per P3109 3.1 variant, against |dw|/|w|",
                        "binary16 (w, dw and w + dw)",
                        "variants=stochastic,stochastic-odd,fast,fastest nbits=1..%d "
                        "ratios=2^%d..2^%d step 2^1 n=2^(%d-k) at r=2^k clamped to "
                        "[%zu,%zu] weights: the first n of experiment a's stream (w=m*2^e "
                        "m=uniform[1,2) e=uniform{0..3}, random sign, dw=r*|w| rounded "
                        "into binary16) rbits_seed=0x%016llx rbits: R_i=fl_sr_bits("
                        "rbits_seed,i)&(2^N-1), i the update's index (ratio's first index "
                        "+ sample), the same R_i for every variant and N; full width: "
                        "FL_RSR sr_seed=0x%016llx sr_index=i",
                        NB_N, NB_KLO, NB_KHI, kfull, nmin, nmax,
                        (unsigned long long)bits_seed, (unsigned long long)S->full_seed);
    if (!fp)
        goto out;
    fprintf(fp, "# u = |dw|/gap, gap the spacing next to w on the update's side; |w| grows "
                "when dw > 0, shrinks when dw < 0 (every w > 0)\n"
                "# one block per variant and nbits (variant-major, nbits 1..%d)\n"
                "# columns: variant nbits ratio n dw_zero, then for the updates that make "
                "|w| grow (6-18) and shrink (19-31): n kept full_kept (full width, the same "
                "updates) full_expected (sum of min(1,u)) u_min u_max u_kept_min (inf: none "
                "kept) n_lo kept_lo expected_lo (u < 2^-(N+1)) n_mid kept_mid expected_mid "
                "(2^-(N+1) <= u < 2^-N)\n", NB_N);
    for (int j = 0; j < NB_JOBS; j++) {
        if (j)
            fprintf(fp, "\n\n");
        for (int i = 0; i < NB_NR; i++) {
            fprintf(fp, "%s %d %.17g %zu %ld", fl_srv_name(j / NB_N), j % NB_N + 1,
                    ldexp(1, NB_KLO + i), S->cnt[i], S->dwz[i]);
            for (int d = 0; d < 2; d++) {
                const nb_cell *c = CELL(j, i, d), *fc = &F[2 * i + d];
                fprintf(fp, " %ld %ld %ld %.9f %.17g %.17g %.17g %ld %ld %.9f %ld %ld %.9f",
                        c->n, c->kept, fc->kept, fc->e, c->umin, c->umax, c->ukmin,
                        c->nlo, c->klo, c->elo, c->nmid, c->kmid, c->emid);
            }
            fprintf(fp, "\n");
        }
    }
    if (lab_data_end(L, fp))
        goto out;

    lab_say(L, "**Stochastic rounding with N supplied random bits (binary16).**  Hardware "
               "rounds with the random bits it is given, and P3109 Release 3.1 defines four "
               "ways to use N of them (stochastic, stochastic-odd, fast, fastest: "
               "docs/formats.md).  The weights and updates of the sweep above (at each ratio "
               "r = 2^k, k = %d .. %d, the first n weights of the same stream: n = %zu for "
               "r >= 2^%d, doubling per halving of r up to %zu), with the sum w + dw rounded "
               "by fl_round_sr_bits_array with N = 1 .. %d random bits R = fl_sr_bits(seed, "
               "i) & (2^N - 1) (i the update's index; the same R for every variant and N), "
               "and by full-width stochastic rounding (as above: as many random bits as the "
               "sum discards) on the same updates.  The variants round the magnitude, so an "
               "update that makes |w| grow (dw > 0; every w here is positive) and one that "
               "makes it shrink (dw < 0) are counted apart: an update of u = |dw|/gap "
               "spacings leaves the discarded fraction ν = u when |w| grows and ν = 1 - u "
               "when it shrinks.  Full width keeps it with probability min(1, u); the sum of "
               "that probability over updates is what full width *expects*.\n\n",
            NB_KLO, NB_KHI, nmin, kfull - (int)round(log2((double)nmin)), nmax, NB_N);

    /* where the kept fraction falls to 0: pooled over N and ratios */
    long tn[NB_V][2][2], tk[NB_V][2][2];
    double te[NB_V][2][2], tuk[NB_V][2];
    int cut[NB_V][2];   /* 0: none lost for sure below 2^-(N+1); 1: all below
                           2^-(N+1) lost, some kept below 2^-N; 2: all below
                           2^-N lost */
    for (int v = 0; v < NB_V; v++)
        for (int d = 0; d < 2; d++) {
            tn[v][d][0] = tn[v][d][1] = tk[v][d][0] = tk[v][d][1] = 0;
            te[v][d][0] = te[v][d][1] = 0;
            tuk[v][d] = INFINITY;
            for (int nb = 1; nb <= NB_N; nb++)
                for (int i = 0; i < NB_NR; i++) {
                    const nb_cell *c = CELL(v * NB_N + nb - 1, i, d);
                    tn[v][d][0] += c->nlo;
                    tk[v][d][0] += c->klo;
                    te[v][d][0] += c->elo;
                    tn[v][d][1] += c->nmid;
                    tk[v][d][1] += c->kmid;
                    te[v][d][1] += c->emid;
                    if (ldexp(c->ukmin, nb) < tuk[v][d])
                        tuk[v][d] = ldexp(c->ukmin, nb);
                }
            cut[v][d] = tk[v][d][0] ? 0 : tk[v][d][1] ? 1 : 2;
        }
    lab_say(L, "Where the kept fraction falls to 0, over N = 1 .. %d and every ratio (an "
               "update counts once per N): the updates below 2^-(N+1) spacings and those "
               "from 2^-(N+1) to 2^-N, how many each variant kept and how many full width "
               "expects; *smallest kept* is the smallest u·2^N of an update the variant "
               "kept:\n\n"
               "| variant | \\|w\\| | u < 2^-(N+1): kept of updates | full width expects | "
               "2^-(N+1) <= u < 2^-N: kept of updates | full width expects | smallest kept "
               "u·2^N |\n|---|---|---|---|---|---|---|\n", NB_N);
    for (int v = 0; v < NB_V; v++)
        for (int d = 0; d < 2; d++) {
            char uk[32];
            if (isinf(tuk[v][d]))
                snprintf(uk, sizeof uk, "–");
            else
                snprintf(uk, sizeof uk, "%.4g", tuk[v][d]);
            lab_say(L, "| %s | %s | %ld of %ld | %.1f | %ld of %ld | %.1f | %s |\n",
                    fl_srv_name(v), nb_dir_name[d], tk[v][d][0], tn[v][d][0], te[v][d][0],
                    tk[v][d][1], tn[v][d][1], te[v][d][1], uk);
        }
    /* the cut-offs, grouped: "fastest (|w| grows)", "stochastic (both)" */
    static const char *const cut_what[3] = {
        "updates of every size are kept by", "every update below 2^-(N+1) spacings is lost by",
        "every update below 2^-N spacings is lost by"};
    lab_say(L, "\nMeasured, with N random bits,");
    for (int q = 2; q >= 0; q--) {
        char lst[512];
        size_t p = 0;
        lst[0] = 0;
        for (int v = 0; v < NB_V; v++) {
            const int g = cut[v][0] == q, s = cut[v][1] == q;
            if (!g && !s)
                continue;
            p += (size_t)snprintf(lst + p, sizeof lst - p, "%s%s (%s)", p ? ", " : "",
                                  fl_srv_name(v), g && s ? "both" : g ? "|w| grows" : "|w| shrinks");
        }
        lab_say(L, "%s %s %s", q == 2 ? "" : ";", cut_what[q], p ? lst : "no variant");
    }
    lab_say(L, ".  ");
    /* the rule and its support: fastest truncates nu 2^N, the others round
     * it to the nearest integer */
    double uk_others = INFINITY;
    for (int v = 0; v < NB_V; v++)
        for (int d = 0; d < 2; d++)
            if (!(v == FL_SRV_FASTEST) && tuk[v][d] < uk_others)
                uk_others = tuk[v][d];
    lab_say(L, "Fastest truncates ν·2^N, so when |w| grows (ν = u) an update with u·2^N "
               "< 1 truncates to 0 and is lost whatever R: kept only if u >= 2^-N (its "
               "smallest kept u·2^N: %.4g); the other three round ν·2^N to the nearest "
               "integer (ties to even, to odd and up), which reaches 1 from u·2^N = 1/2 on "
               "(their smallest kept u·2^N: "
               "%.4g), so they lose only the updates below 2^-(N+1).  Full width expects "
               "%.1f of the updates below 2^-N that fastest lost when |w| grows.  ",
            tuk[FL_SRV_FASTEST][0], uk_others,
            te[FL_SRV_FASTEST][0][0] + te[FL_SRV_FASTEST][0][1]);
    /* fastest, |w| shrinking: nu = 1 - u truncated to N bits is at most
     * 1 - 2^-N for u > 0, so P(kept) = ceil(u 2^N)/2^N: exactly 2^-N for
     * 0 < u <= 2^-N.  z per N over its updates below 2^-(N+1). */
    double zmax = 0;
    int nzn = 0;
    long kfs = 0, nfs = 0;
    for (int nb = 1; nb <= NB_N; nb++) {
        long nn = 0, kk = 0;
        for (int i = 0; i < NB_NR; i++) {
            const nb_cell *c = CELL(FL_SRV_FASTEST * NB_N + nb - 1, i, 1);
            nn += c->nlo;
            kk += c->klo;
        }
        nfs += nn;
        kfs += kk;
        const double p = ldexp(1, -nb), ex = (double)nn * p;
        if (ex < NB_MIN_EXPECT)
            continue;
        nzn++;
        const double z = ((double)kk - ex) / sqrt(ex * (1 - p));
        zmax = fabs(z) > zmax ? fabs(z) : zmax;
    }
    lab_say(L, "When |w| shrinks, fastest keeps updates of every size: ν = 1 - u truncated "
               "to N bits is at most 1 - 2^-N for every u > 0, so an update below 2^-N is "
               "kept with probability 2^-N, whatever its size.  Measured: it kept %ld of its "
               "%ld updates below 2^-(N+1), %.1f times what full width expects, and at each "
               "of the %d N where at least %d of them are kept in expectation, the kept "
               "fraction lies within %.2f binomial sampling errors of 2^-N (largest |z|).  "
               "Those extra steps toward zero are the bias of docs/formats.md's table; the "
               "long run below shows what it does to a weight.\n\n",
            kfs, nfs, te[FL_SRV_FASTEST][1][0] > 0 ? (double)kfs / te[FL_SRV_FASTEST][1][0] : 0.0,
            nzn, NB_MIN_EXPECT, zmax);

    /* how many bits an update of a given size needs: at each ratio, the
     * largest N at which no update was kept (every larger N kept some) */
    lab_say(L, "**How many bits an update needs.**  For each ratio with some u below 1 "
               "where full width expects at least %d kept updates in each direction: the "
               "range of u (|w| grows), full width's expected kept fraction, and for each "
               "variant the largest N at which it kept none of the updates that grow |w| "
               "(it kept some at every larger N; -: it kept some at every N), with the "
               "kept fraction at the next N divided by full width's expectation in "
               "brackets:\n\n"
               "| r | u (\\|w\\| grows) | full width expects | stochastic | stochastic-odd | "
               "fast | fastest | fastest, \\|w\\| shrinks |\n"
               "|---|---|---|---|---|---|---|---|\n", NB_MIN_EXPECT);
    int nrow = 0, agree[NB_V] = {0}, early = 1;
    char miss[512];
    size_t pm = 0;
    miss[0] = 0;
    for (int i = 0; i < NB_NR; i++) {
        const nb_cell *g = &F[2 * i], *s = &F[2 * i + 1];
        if (g->e < NB_MIN_EXPECT || s->e < NB_MIN_EXPECT || !(g->umin < 1))
            continue;
        nrow++;
        const int k = NB_KLO + i;
        lab_say(L, "| 2^%d | %.4g .. %.4g | %.4g |", k, g->umin, g->umax, g->e / (double)g->n);
        for (int v = 0; v <= NB_V; v++) {
            const int vv = v < NB_V ? v : FL_SRV_FASTEST, d = v < NB_V ? 0 : 1;
            int a = NB_N;
            while (a >= 1 && CELL(vv * NB_N + a - 1, i, d)->kept > 0)
                a--;
            const nb_cell *c = a < NB_N ? CELL(vv * NB_N + a, i, d) : NULL;
            if (a >= 1)
                lab_say(L, " %d", a);
            else
                lab_say(L, " -");
            if (c)
                lab_say(L, " (%.2f) |", (double)c->kept / F[2 * i + d].e);
            else
                lab_say(L, " |");
            if (v < NB_V) {
                /* with u in [r 2^10, r 2^11): fastest needs 2^-N <= u, the
                 * others 2^-(N+1) < u */
                int want = v == FL_SRV_FASTEST ? -k - 10 : -k - 11;
                want = want < 1 ? 1 : want;
                if (a + 1 == want) {
                    agree[v]++;
                } else {
                    early &= a + 1 == want - 1 && g->umax >= ldexp(1, k + 11);
                    pm += (size_t)snprintf(miss + pm, pm < sizeof miss ? sizeof miss - pm : 0,
                                           "%s%s at 2^%d (u_max %.4g)", pm ? ", " : "",
                                           fl_srv_name(v), k, g->umax);
                }
            }
        }
        lab_say(L, "\n");
    }
    lab_say(L, "\nSo an update of ratio r (u from r·2^10 to r·2^11 spacings) needs N = "
               "-log2(r) - 10 random bits with fastest and one fewer, -log2(r) - 11 (at least "
               "1), with the others: measured at %d, %d, %d and %d of the %d ratios "
               "(stochastic, stochastic-odd, fast, fastest)%s%s%s.\n\n",
            agree[0], agree[1], agree[2], agree[3], nrow, pm ? "; not at " : "", miss,
            !pm ? "" : early ? ", where dw, rounded in binary16's subnormal range, reaches "
                               "u = r·2^11, the next octave's size, and the variant keeps "
                               "some updates one bit earlier" : "");
    int dsk = NB_KLO - 1;   /* the largest ratio where dw = 0 for some weight */
    for (int i = 0; i < NB_NR; i++)
        if (S->dwz[i] > 0)
            dsk = NB_KLO + i;
    lab_figure(L, "lost_bits", "Binary16 weights, w + dw rounded with N supplied random "
               "bits: the fraction of updates kept against r = |dw|/|w|, one panel per "
               "P3109 variant, for N = 2, 4, 6, 8, 10, 12 (colours; solid: the updates that "
               "make |w| grow), against full-width stochastic rounding's expected fraction "
               "(black).  A curve in the bottom band (one row per N) kept none: where it "
               "rises is where its variant starts keeping updates (the table above gives "
               "that N for every ratio).  Dashed, in the fastest panel: the updates that "
               "make |w| shrink, kept with probability 2^-N however small.  Grey: dw itself "
               "rounds to zero in binary16 for some weights (r <= 2^%d).", dsk);
    rc = 0;
out:
#undef CELL
    free(S->w);
    free(S->dw);
    free(S->s);
    free(S->u);
    free(S->dir);
    free(S->rbits);
    free(S->cells);
    free(S);
    return rc;
}

/* The long run of b and its mirror, with N supplied bits. */
typedef struct nb_runs {
    int steps, reps;
    uint64_t w0[NB_RUNS], dw[NB_RUNS];   /* run 0: |w| shrinks, 1: grows */
    uint64_t bits_seed, full_seed;
    double *end;                         /* [job][run][rep] */
    long *kept;                          /* [job][run]: steps that moved w */
} nb_runs;

static void nb_run_job(void *arg, size_t j)
{
    nb_runs *R = arg;
    const fl_format *f = &fl_binary16;
    const int full = j == NB_JOBS;
    fl_ctx c = fl_ctx_make(full ? FL_RSR : FL_RSB);
    if (full) {
        c.sr_seed = R->full_seed;
    } else {
        c.sr_variant = (uint8_t)(j / NB_N);
        c.sr_nbits = (uint8_t)(j % NB_N + 1);
    }
    const uint64_t mask = full ? 0 : (((uint64_t)1) << c.sr_nbits) - 1;
    unsigned fl = 0;
    for (int run = 0; run < NB_RUNS; run++) {
        long kept = 0;
        for (int k = 0; k < R->reps; k++) {
            uint64_t w = R->w0[run];
            for (int t = 0; t < R->steps; t++) {
                const uint64_t i = ((uint64_t)run * (uint64_t)R->reps + (uint64_t)k) *
                                       (uint64_t)R->steps + (uint64_t)t;
                if (full)
                    c.sr_index = i;
                else
                    c.sr_bits = fl_sr_bits(R->bits_seed, i) & mask;
                const uint64_t w2 = fl_add(f, w, R->dw[run], &c, &fl);
                kept += w2 != w;
                w = w2;
            }
            R->end[(j * NB_RUNS + (size_t)run) * (size_t)R->reps + (size_t)k] = fl_to_double(f, w);
        }
        R->kept[j * NB_RUNS + (size_t)run] = kept;
    }
}

static int lost_bits_run(lab_ctx *L)
{
    nb_runs R;
    R.steps = L->quick ? 2000 : 5000;
    R.reps = L->quick ? 8 : 32;
    lab_rng seeds = lab_rng_make(L->seed, "lost_bits_run");
    R.bits_seed = lab_rng_next(&seeds);
    R.full_seed = lab_rng_next(&seeds);
    const fl_format *f = &fl_binary16;
    fl_ctx rn = FL_CTX_INIT;
    unsigned fl = 0;
    static const double w0v[NB_RUNS] = {1, 0.5}, dwv[NB_RUNS] = {-1e-4, 1e-4};
    double dws[NB_RUNS], exact[NB_RUNS];
    for (int run = 0; run < NB_RUNS; run++) {
        R.w0[run] = fl_from_double(f, w0v[run], &rn, &fl);
        R.dw[run] = fl_from_double(f, dwv[run], &rn, &fl);
        dws[run] = fl_to_double(f, R.dw[run]);
        exact[run] = w0v[run] + R.steps * dws[run];
    }
    /* the spacing in [0.5, 1), by the core: the update in spacings */
    const double gap = 1 - fl_to_double(f, fl_next_down(f, R.w0[0], &rn, &fl));
    const double u = fabs(dws[0]) / gap;
    const size_t nj = NB_JOBS + 1;
    R.end = malloc(nj * NB_RUNS * (size_t)R.reps * sizeof *R.end);
    R.kept = malloc(nj * NB_RUNS * sizeof *R.kept);
    int rc = -1;
    if (!R.end || !R.kept) {
        snprintf(L->err, sizeof L->err, "out of memory");
        goto out;
    }
    if (lab_parallel(L, nj, nb_run_job, &R))
        goto out;
    /* mean and standard error of (end - exact)/|dw| per job and run */
    double dm[NB_JOBS + 1][NB_RUNS], dse[NB_JOBS + 1][NB_RUNS];
    double *tmp = malloc((size_t)R.reps * sizeof *tmp);
    if (!tmp) {
        snprintf(L->err, sizeof L->err, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < nj; j++)
        for (int run = 0; run < NB_RUNS; run++) {
            const double *e = R.end + (j * NB_RUNS + (size_t)run) * (size_t)R.reps;
            double m, sd;
            for (int k = 0; k < R.reps; k++)
                tmp[k] = (e[k] - exact[run]) / fabs(dws[run]);
            lab_mean_sd(tmp, R.reps, &m, &sd);
            dm[j][run] = m;
            dse[j][run] = sd / sqrt((double)R.reps);
        }
    free(tmp);
    FILE *fp = lab_data_begin(L, "lost_bits_run.dat",
                              "a weight receiving many small updates, rounded with N "
                              "supplied random bits per P3109 3.1 variant",
                              "binary16 (w and dw)",
                              "steps=%d runs=%d variants=stochastic,stochastic-odd,fast,"
                              "fastest nbits=1..%d run shrink: w0=1 dw=-1e-4 run grow: "
                              "w0=0.5 dw=1e-4 (dw rounded into binary16, w + dw rounded by "
                              "fl_add in mode FL_RSB) rbits_seed=0x%016llx rbits: "
                              "R=fl_sr_bits(rbits_seed,(run*runs+k)*steps+t)&(2^N-1), run 0 "
                              "shrink 1 grow, k the repetition, t the step, the same R for "
                              "every variant and N; full width: FL_RSR sr_seed=0x%016llx "
                              "sr_index the same",
                              R.steps, R.reps, NB_N, (unsigned long long)R.bits_seed,
                              (unsigned long long)R.full_seed);
    if (!fp)
        goto out;
    fprintf(fp, "# spacing in [0.5, 1): %a, u = |dw|/spacing = %.17g\n"
                "# columns: run variant nbits (full width: full 0) w0 dw exact_end "
                "diff_mean diff_se ((end - exact)/|dw|: mean, standard error over the "
                "runs) kept_mean (steps that moved w, per run) end_1 .. end_%d\n",
            gap, u, R.reps);
    for (int run = 0; run < NB_RUNS; run++)
        for (size_t jj = 0; jj < nj; jj++) {
            const size_t j = jj ? jj - 1 : NB_JOBS;   /* full width first */
            fprintf(fp, "%s %s %d %.17g %.17g %.17g %.9f %.9f %.9g", nb_dir_name[1 - run],
                    j == NB_JOBS ? "full" : fl_srv_name((int)j / NB_N),
                    j == NB_JOBS ? 0 : (int)j % NB_N + 1, w0v[run], dws[run], exact[run],
                    dm[j][run], dse[j][run],
                    (double)R.kept[j * NB_RUNS + (size_t)run] / R.reps);
            for (int k = 0; k < R.reps; k++)
                fprintf(fp, " %.17g", R.end[(j * NB_RUNS + (size_t)run) * (size_t)R.reps + (size_t)k]);
            fprintf(fp, "\n");
        }
    if (lab_data_end(L, fp))
        goto out;

    lab_say(L, "**A weight receiving many small updates, with N random bits.**  Experiment "
               "b's weight, w = 1 receiving %d updates dw = %.9g (-1e-4 in binary16; |w| "
               "shrinks, exact end %.6g), and its mirror, w = 0.5 receiving %d updates dw = "
               "%.9g (|w| grows, exact end %.6g).  Binary16's numbers in [0.5, 1) are 2^%d "
               "apart, so each update is u = %.4f spacings.  Each run is repeated %d times "
               "with independent random bits (R = fl_sr_bits(seed, i) & (2^N - 1), the same "
               "bits for every variant and N), w + dw rounded by fl_add in mode FL_RSB.  The "
               "end value's difference from the exact end, in updates ((w - exact)/|dw|, "
               "mean ± standard error over the runs): full width %.1f ± %.1f when |w| "
               "shrinks and %.1f ± %.1f when it grows; each variant and N:\n\n"
               "| N | shrinks: stochastic | stochastic-odd | fast | fastest | grows: "
               "stochastic | stochastic-odd | fast | fastest |\n"
               "|---|---|---|---|---|---|---|---|---|\n",
            R.steps, dws[0], exact[0], R.steps, dws[1], exact[1], (int)lround(log2(gap)), u,
            R.reps, dm[NB_JOBS][0], dse[NB_JOBS][0], dm[NB_JOBS][1], dse[NB_JOBS][1]);
    for (int nb = 1; nb <= NB_N; nb++) {
        lab_say(L, "| %d |", nb);
        for (int run = 0; run < NB_RUNS; run++)
            for (int v = 0; v < NB_V; v++) {
                const int j = v * NB_N + nb - 1;
                lab_say(L, " %.1f ± %.1f |", dm[j][run], dse[j][run]);
            }
        lab_say(L, "\n");
    }
    /* classes: 0 closer to zero in both runs, 1 farther from zero in both,
     * 2 too far in both directions, 3 too little in both; each difference
     * beyond 2 standard errors */
    static const char *const cls_what[4] = {
        "Closer to zero than the exact end in both runs", "Farther from zero in both",
        "Too far in both directions", "Too little in both"};
    /* one spacing, in updates: no binary16 weight can end closer */
    const double sp = gap / fabs(dws[0]);
    int in[4][NB_V][NB_N + 1];
    memset(in, 0, sizeof in);
    for (int v = 0; v < NB_V; v++)
        for (int nb = 1; nb <= NB_N; nb++) {
            const int j = v * NB_N + nb - 1;
            const int sl = dm[j][0] < -2 * dse[j][0] && dm[j][0] < -sp;
            const int sh = dm[j][0] > 2 * dse[j][0] && dm[j][0] > sp;
            const int gl = dm[j][1] < -2 * dse[j][1] && dm[j][1] < -sp;
            const int gh = dm[j][1] > 2 * dse[j][1] && dm[j][1] > sp;
            if (sl && gl)
                in[0][v][nb] = 1;
            else if (sh && gh)
                in[1][v][nb] = 1;
            else if (sl && gh)
                in[2][v][nb] = 1;
            else if (sh && gl)
                in[3][v][nb] = 1;
        }
    lab_say(L, "\n");
    for (int q = 0; q < 4; q++) {
        if (q == 0)
            lab_say(L, "%s (the shrinking run below its exact end, the growing one below "
                       "its; each by more than 2 standard errors and more than one spacing, "
                       "%.2f updates):", cls_what[q], sp);
        else
            lab_say(L, "%s:", cls_what[q]);
        for (int v = 0; v < NB_V; v++) {
            char lst[128];
            nb_list(lst, sizeof lst, in[q][v]);
            lab_say(L, " %s at %s%s%s", fl_srv_name(v), strcmp(lst, "none") ? "N = " : "",
                    strcmp(lst, "none") ? lst : "no N", v + 1 < NB_V ? ";" : ".  ");
        }
    }
    /* the cause, for fastest: its kept fraction per step against u */
    int fast_n[NB_N + 1], nsup = 0, nlist = 0;
    memset(fast_n, 0, sizeof fast_n);
    for (int nb = 1; nb <= NB_N; nb++) {
        if (!in[0][FL_SRV_FASTEST][nb])
            continue;
        nlist++;
        const int j = FL_SRV_FASTEST * NB_N + nb - 1;
        const double ks = (double)R.kept[j * NB_RUNS] / R.reps / R.steps;
        const double kg = (double)R.kept[j * NB_RUNS + 1] / R.reps / R.steps;
        if (ks > u && kg < u)
            nsup++;
    }
    lab_say(L, "Why fastest ends closer to zero: it keeps an update that shrinks |w| with "
               "probability ceil(u·2^N)/2^N and one that grows it with floor(u·2^N)/2^N, "
               "so it takes more steps toward zero and fewer away from it than u = %.4f "
               "per update; measured, its kept fraction per step is above u in the "
               "shrinking run and below u in the growing one at %d of the %d N listed "
               "for it.\n\n", u, nsup, nlist);
    char fl_list[128];
    nb_list(fl_list, sizeof fl_list, in[0][FL_SRV_FASTEST]);
    lab_figure(L, "lost_bits_run", "The long run with N random bits: the end value minus "
               "the exact end, in updates of 1e-4 (mean over %d runs, bars ±2 standard "
               "errors; symmetric logarithmic axis), against N, per variant; grey band: "
               "full width's mean ±2 standard errors.  Left: w = 1 receiving %d updates "
               "of -1e-4 (|w| shrinks); right: w = 0.5 receiving %d of +1e-4 (|w| grows).  "
               "Below 0 in both panels is closer to zero: fastest at N = %s.",
               R.reps, R.steps, R.steps, fl_list);
    rc = 0;
out:
    free(R.end);
    free(R.kept);
    return rc;
}

int lab_exp_lost(lab_ctx *L)
{
    const int samples = L->quick ? 400 : 4000;
    const int sr_samples = L->quick ? 2000 : 20000;
    const int per_octave = L->quick ? 2 : 4;
    lab_rng rng = lab_rng_make(L->seed, "lost");
    FILE *fp = lab_data_begin(L, "lost_ratio.dat",
                              "lost updates (w + dw == w) vs |dw|/|w|: round to "
                              "nearest, and stochastic rounding's kept fraction",
                              "binary16 bfloat16 binary32 (rne); binary16 (sr)",
                              "samples_rne=%d samples_sr=%d ratios=2^-30..2^0 step "
                              "2^(1/%d) w=m*2^e m=uniform[1,2) e=uniform{0..3} random "
                              "sign dw=r*|w| rounded into the format; the sr series "
                              "uses the first samples_sr weights of the same stream",
                              samples, sr_samples, per_octave);
    if (!fp)
        return -1;
    fprintf(fp, "# precision p: binary16 11 bfloat16 8 binary32 24\n"
                "# columns: ratio lost_binary16 lost_bfloat16 lost_binary32 "
                "(fractions of samples_rne) sr_n sr_dw_zero sr_kept (count of w' != w) "
                "sr_expected_kept (mean p_i) sr_se_kept (sqrt(sum p_i(1-p_i))/n) "
                "sr_mean_ulps (mean |dw|/gap) sr_applied_mean (mean (w'-w)/dw over "
                "dw != 0) sr_applied_se (sqrt(sum var)/count)\n");
    int nr = 30 * per_octave + 1;
    double *lost = calloc((size_t)nr * NRN, sizeof *lost), *ratio = calloc((size_t)nr, sizeof *ratio);
    sr_point *srp = calloc((size_t)nr, sizeof *srp);
    if (!lost || !ratio || !srp) {
        free(lost);
        free(ratio);
        free(srp);
        snprintf(L->err, sizeof L->err, "out of memory");
        return -1;
    }
    fl_ctx sr = fl_ctx_make(FL_RSR);
    sr.sr_seed = L->seed;
    uint64_t sr_index = 0;
    for (int i = 0; i < nr; i++) {
        int k = i - 30 * per_octave;
        double r = exp2((double)k / per_octave);
        ratio[i] = r;
        for (int s = 0; s < NRN; s++) {
            const fl_format *f = rn_fmt(s);
            fl_ctx rn = FL_CTX_INIT;
            long nl = 0;
            lab_rng rr = rng;   /* the same weights for every format */
            for (int t = 0; t < samples; t++) {
                unsigned fl = 0;
                draw d = next_draw(&rr);
                uint64_t w = fl_from_double(f, ldexp(d.m, d.e), &rn, &fl);
                uint64_t dw = fl_from_double(f, d.sign * r * fl_to_double(f, w), &rn, &fl);
                nl += fl_add(f, w, dw, &rn, &fl) == w;
            }
            lost[i * NRN + s] = (double)nl / samples;
        }
        lab_rng rr = rng;
        sr_point *P = &srp[i];
        for (int t = 0; t < sr_samples; t++)
            sr_sample(P, &fl_binary16, next_draw(&rr), r, &sr, sr_index++);
        long nx = P->n - P->dw_zero;
        fprintf(fp, "%.17g %.6f %.6f %.6f %ld %ld %ld %.9g %.9g %.9g %.9g %.9g\n", r,
                lost[i * NRN], lost[i * NRN + 1], lost[i * NRN + 2], P->n, P->dw_zero,
                P->kept, P->p_sum / (double)P->n, sqrt(P->p_var) / (double)P->n,
                P->u_sum / (double)P->n, nx ? P->x_sum / (double)nx : NAN,
                nx ? sqrt(P->x_var) / (double)nx : NAN);
    }
    if (lab_data_end(L, fp))
        goto fail;

    /* a. round to nearest: edges, against theory */
    lab_say(L, "**Round to nearest.**  A weight w = m·2^e (1 <= m < 2) of precision p "
               "has spacing 2^(e+1-p) above it, so an update dw = r·w is lost "
               "(w + dw == w) when |dw| is below half of that, i.e. when "
               "r < 2^-p/m: every update is lost for r <= 2^-(p+1), none for "
               "r > 2^-p, and with m uniform the lost fraction in between is "
               "2^-p/r - 1.  Measured over %d weights per ratio (%d ratios per "
               "octave), *all lost up to* is the largest ratio up to which every "
               "measured ratio lost every update, *none lost from* the smallest "
               "from which none did:\n\n"
               "| weight format | p | all lost up to | theory 2^-(p+1) | none lost from "
               "| theory 2^-p | largest deviation from 2^-p/r - 1 |\n"
               "|---|---|---|---|---|---|---|\n", samples, per_octave);
    double edge_all[NRN], edge_none[NRN];
    for (int s = 0; s < NRN; s++) {
        const fl_format *f = rn_fmt(s);
        int ia = -1, in = nr;
        while (ia + 1 < nr && lost[(ia + 1) * NRN + s] == 1.0)
            ia++;
        while (in - 1 >= 0 && lost[(in - 1) * NRN + s] == 0.0)
            in--;
        double dev = 0;
        for (int i = 0; i < nr; i++) {
            double th = exp2(-f->prec) / ratio[i] - 1;
            th = th < 0 ? 0 : th > 1 ? 1 : th;
            if (fabs(lost[i * NRN + s] - th) > dev)
                dev = fabs(lost[i * NRN + s] - th);
        }
        edge_all[s] = ia >= 0 ? log2(ratio[ia]) : NAN;
        edge_none[s] = in < nr ? log2(ratio[in]) : NAN;
        char ab[32], nb[32];
        if (ia >= 0)
            snprintf(ab, sizeof ab, "2^%.2f", edge_all[s]);
        else
            snprintf(ab, sizeof ab, "not reached");
        if (in < nr)
            snprintf(nb, sizeof nb, "2^%.2f", edge_none[s]);
        else
            snprintf(nb, sizeof nb, "not reached");
        lab_say(L, "| %s | %d | %s | 2^-%d | %s | 2^-%d | %.4f |\n", rn_name[s], f->prec,
                ab, f->prec + 1, nb, f->prec, dev);
    }
    lab_say(L, "\n");

    /* a. stochastic rounding: kept fraction against the update in ulps.
     * z is computed where the normal approximation holds: at least
     * LAB_MIN_COUNT expected kept and expected lost updates; the ratios
     * below that are pooled (a sum of Bernoulli draws stays one). */
    double zmax = 0, xzmax = 0, pool_k = 0, pool_e = 0, pool_v = 0;
    int nz = 0, npool = 0, nexact = 0, exact_ok = 1;
    for (int i = 0; i < nr; i++) {
        const sr_point *P = &srp[i];
        double n = (double)P->n, se = sqrt(P->p_var) / n;
        if (se == 0) {
            nexact++;
            exact_ok &= (double)P->kept == P->p_sum;
            continue;
        }
        if (P->p_sum < LAB_MIN_COUNT || n - P->p_sum < LAB_MIN_COUNT) {
            npool++;
            pool_k += (double)P->kept;
            pool_e += P->p_sum;
            pool_v += P->p_var;
            continue;
        }
        nz++;
        double z = ((double)P->kept / n - P->p_sum / n) / se;
        if (fabs(z) > zmax)
            zmax = fabs(z);
        long nx = P->n - P->dw_zero;
        double xse = sqrt(P->x_var) / (double)nx;
        if (xse > 0 && fabs(P->x_sum / (double)nx - 1) / xse > xzmax)
            xzmax = fabs(P->x_sum / (double)nx - 1) / xse;
    }
    /* where dw itself rounds to zero before the add: every weight, some,
     * none.  |dw| = r|w| rounds to zero iff r|w| <= 2^-25 (half binary16's
     * smallest subnormal; the tie goes to even, 0); with |w| = m 2^e, m in
     * [1, 2), e in 0..3: all for r <= 2^-29, none for r > 2^-25 */
    int iz_all = -1, iz_none = nr;
    while (iz_all + 1 < nr && srp[iz_all + 1].dw_zero == srp[iz_all + 1].n)
        iz_all++;
    while (iz_none - 1 >= 0 && srp[iz_none - 1].dw_zero == 0)
        iz_none--;
    lab_say(L, "**Stochastic rounding (binary16): where an update is lost for sure.**  The "
               "update dw = r·|w| is rounded into binary16 before the add, and rounds to zero "
               "where r·|w| <= 2^-25 (half the smallest subnormal); then w + dw == w with "
               "stochastic rounding as with round to nearest.  With |w| = m·2^e, m in [1, 2) "
               "and e in 0..3, that is every weight for r <= 2^-29 and none for r > 2^-25.  "
               "Measured over the %d weights per ratio: dw = 0 for every weight ",
            sr_samples);
    if (iz_all >= 0)
        lab_say(L, "up to r = 2^%.2f", log2(ratio[iz_all]));
    else
        lab_say(L, "at no ratio");
    lab_say(L, ", for none from r = 2^%.2f; in between", iz_none < nr ? log2(ratio[iz_none]) : NAN);
    for (int i = iz_all + 1; i < iz_none; i++)
        lab_say(L, "%s %.2f%% at 2^%.2f", i > iz_all + 1 ? "," : "",
                100.0 * (double)srp[i].dw_zero / (double)srp[i].n, log2(ratio[i]));
    lab_say(L, ".  Those updates are lost whatever the rounding of the add.\n\n");
    lab_say(L, "**Stochastic rounding (binary16): the updates with dw != 0.**  None of them is "
               "lost for sure: the "
               "sum s = w + dw lies between neighbours lo <= s <= hi and rounds to hi "
               "with probability (s - lo)/(hi - lo), so an update of u = |dw|/gap "
               "spacings (gap: the spacing next to w on the update's side) is kept "
               "(w' != w) with probability p = min(1, u), and a kept update moves w "
               "by a whole spacing.  Expected kept fraction: the mean of p over the "
               "%d weights per ratio (p = 0 where dw = 0); its sampling error is binomial, "
               "sqrt(sum p(1-p))/n for a sum of independent Bernoulli(p) draws; "
               "z = (measured - expected)/error, given where at least %d kept and %d "
               "lost updates are expected (elsewhere the normal approximation does "
               "not hold: -).  The applied fraction (w' - w)/dw, over the updates with "
               "dw != 0, has mean exactly 1 (stochastic rounding is unbiased), with sampling "
               "error sqrt(sum (hi-s)(s-lo)/dw^2)/n.\n\n"
               "| r = \\|dw\\|/\\|w\\| | dw = 0 | mean u (update in spacings) | expected "
               "kept | measured kept | sampling error | z | mean applied fraction ± error |\n"
               "|---|---|---|---|---|---|---|---|\n", sr_samples, LAB_MIN_COUNT,
            LAB_MIN_COUNT);
    for (int i = 0; i < nr; i++) {
        int k = i - 30 * per_octave;
        if (k % (2 * per_octave) || k < -30 * per_octave || k > -8 * per_octave)
            continue;
        const sr_point *P = &srp[i];
        double n = (double)P->n, exp_k = P->p_sum / n, se = sqrt(P->p_var) / n;
        double meas = (double)P->kept / n;
        long nx = P->n - P->dw_zero;
        char z[32];
        if (se > 0 && P->p_sum >= LAB_MIN_COUNT && n - P->p_sum >= LAB_MIN_COUNT)
            snprintf(z, sizeof z, "%.2f", (meas - exp_k) / se);
        else
            snprintf(z, sizeof z, "-");
        char xs[64];
        if (nx)
            snprintf(xs, sizeof xs, "%.3f ± %.3f", P->x_sum / (double)nx,
                     sqrt(P->x_var) / (double)nx);
        else
            snprintf(xs, sizeof xs, "–");
        lab_say(L, "| 2^%d | %.1f%% | %.4g | %.4g | %.4g | %.2g | %s | %s |\n",
                k / per_octave, 100.0 * (double)P->dw_zero / n, P->u_sum / n, exp_k, meas,
                se, z, xs);
    }
    lab_say(L, "\nAt the %d ratios where z is defined, the measured kept fraction lies "
               "within %.2f sampling errors of its expectation (largest |z|) and the "
               "mean applied fraction within %.2f sampling errors of 1.  The %d "
               "ratios with fewer expected counts, pooled: %.0f updates kept against "
               "%.1f expected (sampling error %.1f, z = %.2f).  At the other %d "
               "ratios every weight has p = 0 or p = 1, and the measured count %s "
               "the expected one.\n\n",
            nz, zmax, xzmax, npool, pool_k, pool_e, sqrt(pool_v),
            pool_v > 0 ? (pool_k - pool_e) / sqrt(pool_v) : 0.0, nexact,
            exact_ok ? "equals" : "DIFFERS FROM");
    lab_figure(L, "lost_ratio", "Top: fraction of weight updates lost (w + dw == w) "
               "under round to nearest against r = |dw|/|w|, with the theory "
               "2^-p/r - 1 (black, dashed) and the band 2^-(p+1) <= r <= 2^-p shaded: in "
               "binary16 every update is lost up to r = 2^%.2f and none from "
               "r = 2^%.2f, around Micikevicius et al.'s |w| = 2048|dw| "
               "(r = 2^-11, the band's upper end); bfloat16 2^%.2f and 2^%.2f, "
               "binary32 2^%.2f and 2^%.2f.  Bottom: binary16 with stochastic "
               "rounding, fraction of updates kept, measured (points, bars: ±2 "
               "sampling errors) against the expected mean of min(1, |dw|/gap) "
               "(black line); the largest |z| is %.2f.  Shaded grey: where dw itself "
               "rounds to zero in binary16 before the add, for every weight (dark, up to "
               "r = 2^%.2f) or for some (light, up to 2^%.2f); the dotted line is the "
               "measured share of weights with dw = 0, whose updates are lost for sure.",
               edge_all[0], edge_none[0], edge_all[1], edge_none[1], edge_all[2],
               edge_none[2], zmax, iz_all >= 0 ? log2(ratio[iz_all]) : NAN,
               iz_none - 1 >= 0 ? log2(ratio[iz_none - 1]) : NAN);

    /* b. the long run */
    free(lost);
    free(ratio);
    free(srp);
    lost = ratio = NULL;
    srp = NULL;
    const int steps = L->quick ? 2000 : 5000, every = L->quick ? 20 : 50;
    const double dwv = -1e-4;
    fl_ctx rne = FL_CTX_INIT, srr = fl_ctx_make(FL_RSR);
    srr.sr_seed = L->seed ^ 0x5A5A5A5Aull;
    unsigned fl = 0;
    const fl_format *h = &fl_binary16, *b = &fl_bfloat16, *s32 = &fl_binary32;
    uint64_t wh = fl_from_double(h, 1, &rne, &fl), whs = wh;
    uint64_t wb = fl_from_double(b, 1, &rne, &fl);
    uint64_t wm = fl_from_double(s32, 1, &rne, &fl);
    uint64_t dh = fl_from_double(h, dwv, &rne, &fl), db = fl_from_double(b, dwv, &rne, &fl);
    uint64_t dm = fl_from_double(s32, dwv, &rne, &fl);
    /* the spacing below 1, by the core */
    double gh = 1 - fl_to_double(h, fl_next_down(h, wh, &rne, &fl));
    double gb = 1 - fl_to_double(b, fl_next_down(b, wb, &rne, &fl));
    fp = lab_data_begin(L, "lost_run.dat", "w = 1 updated by dw = -1e-4 repeatedly",
                        "binary16 binary16(sr) bfloat16 binary32(master)",
                        "steps=%d dw=-1e-4 record_every=%d", steps, every);
    if (!fp)
        return -1;
    fprintf(fp, "# dw as stored: binary16 %.9g bfloat16 %.9g binary32 %.9g\n"
                "# spacing below 1: binary16 %a bfloat16 %a\n"
                "# columns: step exact binary16 binary16_sr bfloat16 "
                "binary32_master binary16(master)\n",
            fl_to_double(h, dh), fl_to_double(b, db), fl_to_double(s32, dm), gh, gb);
    for (int t = 0; t <= steps; t++) {
        if (t % every == 0 || t == steps) {
            double mh = lab_round(h, fl_to_double(s32, wm));
            fprintf(fp, "%d %.9g %.9g %.9g %.9g %.9g %.9g\n", t, 1 + t * dwv,
                    fl_to_double(h, wh), fl_to_double(h, whs), fl_to_double(b, wb),
                    fl_to_double(s32, wm), mh);
        }
        if (t == steps)
            break;
        wh = fl_add(h, wh, dh, &rne, &fl);
        srr.sr_index = (uint64_t)t;
        whs = fl_add(h, whs, dh, &srr, &fl);
        wb = fl_add(b, wb, db, &rne, &fl);
        wm = fl_add(s32, wm, dm, &rne, &fl);
    }
    if (lab_data_end(L, fp))
        return -1;
    double exact = 1 + steps * dwv;
    lab_figure(L, "lost_run", "A weight w = 1 receiving %d updates of -1e-4 (exact "
               "end value %.4g).  Below 1 the binary16 numbers are 2^%d apart, so "
               "round to nearest takes a downward update back to 1 unless it "
               "exceeds half that spacing, 2^%d = %.3g: stored in binary16 the "
               "weight ends at %.6g.  bfloat16 (spacing below 1 2^%d, half 2^%d = "
               "%.3g) ends at %.6g.  A binary32 master weight ends at %.6g "
               "(binary16 copy %.6g), and binary16 with stochastic rounding at "
               "%.6g.",
               steps, exact, (int)lround(log2(gh)), (int)lround(log2(gh / 2)), gh / 2,
               fl_to_double(h, wh), (int)lround(log2(gb)), (int)lround(log2(gb / 2)),
               gb / 2, fl_to_double(b, wb), fl_to_double(s32, wm),
               lab_round(h, fl_to_double(s32, wm)), fl_to_double(h, whs));
    if (lost_bits_sweep(L))
        return -1;
    return lost_bits_run(L);
fail:
    free(lost);
    free(ratio);
    free(srp);
    return -1;
}
