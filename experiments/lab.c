/* lab.c — the shared pieces of the experiments (see lab.h). */
#define _GNU_SOURCE 1   /* vasprintf, open_memstream */
#include "lab.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const lab_experiment lab_experiments[] = {
    {"atlas", "Format atlas: spacing and range of the formats", lab_exp_atlas},
    {"rounding", "Rounding lab: modes, stochastic rounding, associativity",
     lab_exp_rounding},
    {"gradhist", "Gradient histograms versus loss scale", lab_exp_gradhist},
    {"lost", "Lost updates: swamping of small weight updates", lab_exp_lost},
    {"accum", "Accumulation: fp16 versus fp32 sums and dot products",
     lab_exp_accum},
    {"training", "Training curves per precision policy", lab_exp_training},
    {"scaling", "Scale granularity: per tensor, per block, and loss scaling",
     lab_exp_scaling},
    {"trainaccum", "Accumulation in training: binary16 against binary32 sums",
     lab_exp_trainaccum},
    {"trainsr", "Stochastic rounding in training: weights without a master copy",
     lab_exp_trainsr},
    {"trainlm", "Loss scaling in a character language model", lab_exp_trainlm},
};
const size_t lab_experiment_count =
    sizeof lab_experiments / sizeof lab_experiments[0];

void lab_ctx_init(lab_ctx *L, uint64_t seed, int quick, const char *data_path)
{
    memset(L, 0, sizeof *L);
    L->seed = seed;
    L->quick = quick;
    L->seeds = quick ? 3 : 5;
    L->jobs = 1;
    L->data_path = data_path;
}

void lab_ctx_free(lab_ctx *L)
{
    for (size_t i = 0; i < L->nfiles; i++) {
        free(L->files[i].name);
        free(L->files[i].data);
    }
    for (size_t i = 0; i < L->nitems; i++) {
        free(L->items[i].text);
        free(L->items[i].stem);
    }
    free(L->files);
    free(L->items);
    if (L->cur_fp)
        fclose(L->cur_fp);
    free(L->cur_buf);
    free(L->cur_name);
    memset(L, 0, sizeof *L);
}

FILE *lab_data_begin(lab_ctx *L, const char *name, const char *title,
                     const char *formats, const char *params_fmt, ...)
{
    if (L->cur_fp) {
        snprintf(L->err, sizeof L->err, "data file %s begun before %s ended",
                 name, L->cur_name);
        return NULL;
    }
    L->cur_buf = NULL;
    L->cur_len = 0;
    L->cur_fp = open_memstream(&L->cur_buf, &L->cur_len);
    L->cur_name = strdup(name);
    if (!L->cur_fp || !L->cur_name) {
        snprintf(L->err, sizeof L->err, "out of memory for %s", name);
        return NULL;
    }
    fprintf(L->cur_fp, "# fplab %s: %s\n# file: %s\n# seed: %llu\n# formats: %s\n",
            FPLAB_VERSION, title, name, (unsigned long long)L->seed, formats);
    fprintf(L->cur_fp, "# params: quick=%d ", L->quick);
    va_list ap;
    va_start(ap, params_fmt);
    vfprintf(L->cur_fp, params_fmt, ap);
    va_end(ap);
    fputc('\n', L->cur_fp);
    return L->cur_fp;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(p, nc * size);
    if (q)
        *cap = nc;
    return q;
}

int lab_data_end(lab_ctx *L, FILE *fp)
{
    if (!fp || fp != L->cur_fp) {
        snprintf(L->err, sizeof L->err, "lab_data_end without a file");
        return -1;
    }
    int bad = ferror(fp);
    fclose(fp);
    L->cur_fp = NULL;
    lab_file *nf = grow(L->files, &L->files_cap, L->nfiles + 1, sizeof *nf);
    if (bad || !nf) {
        snprintf(L->err, sizeof L->err, "cannot build %s in memory", L->cur_name);
        free(L->cur_buf);
        free(L->cur_name);
        L->cur_buf = L->cur_name = NULL;
        return -1;
    }
    L->files = nf;
    L->files[L->nfiles++] = (lab_file){L->cur_name, L->cur_buf, L->cur_len};
    L->cur_name = NULL;
    L->cur_buf = NULL;
    return 0;
}

const lab_file *lab_find_file(const lab_ctx *L, const char *name)
{
    for (size_t i = 0; i < L->nfiles; i++)
        if (!strcmp(L->files[i].name, name))
            return &L->files[i];
    return NULL;
}

static void add_item(lab_ctx *L, int fig, char *text, const char *stem)
{
    lab_item *ni = grow(L->items, &L->items_cap, L->nitems + 1, sizeof *ni);
    if (!ni || !text) {
        free(text);
        return;
    }
    L->items = ni;
    L->items[L->nitems++] = (lab_item){fig, text, stem ? strdup(stem) : NULL};
}

void lab_say(lab_ctx *L, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    add_item(L, 0, s, NULL);
}

void lab_figure(lab_ctx *L, const char *stem, const char *caption_fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, caption_fmt);
    if (vasprintf(&s, caption_fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    add_item(L, 1, s, stem);
}

lab_rng lab_rng_make(uint64_t seed, const char *tag)
{
    /* FNV-1a of the tag, folded into the seed through one splitmix step. */
    uint64_t h = 0xCBF29CE484222325ull;
    for (const char *p = tag; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
    lab_rng r = {seed ^ h};
    (void)lab_rng_next(&r);
    return r;
}

double lab_round(const fl_format *f, double x)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    return fl_to_double(f, fl_from_double(f, x, &c, &fl));
}

void lab_fmt_double(char *buf, size_t len, double x)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, x);
        if (strtod(buf, NULL) == x || isnan(x))
            return;
    }
}

typedef struct lab_pool {
    pthread_mutex_t mu;
    size_t next, n;
    void (*fn)(void *, size_t);
    void *arg;
} lab_pool;

static void *pool_worker(void *p)
{
    lab_pool *P = p;
    for (;;) {
        pthread_mutex_lock(&P->mu);
        size_t i = P->next++;
        pthread_mutex_unlock(&P->mu);
        if (i >= P->n)
            return NULL;
        P->fn(P->arg, i);
    }
}

int lab_parallel(lab_ctx *L, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
    enum { MAXT = 64 };
    lab_pool P = {PTHREAD_MUTEX_INITIALIZER, 0, n, fn, arg};
    pthread_t th[MAXT];
    size_t nt = L->jobs < 1 ? 1 : (size_t)L->jobs;
    if (nt > MAXT)
        nt = MAXT;
    if (nt > n)
        nt = n;
    size_t started = 0;
    int rc = 0;
    /* the calling thread is one of the workers */
    for (; started + 1 < nt; started++)
        if (pthread_create(&th[started], NULL, pool_worker, &P)) {
            snprintf(L->err, sizeof L->err, "cannot start a worker thread");
            rc = -1;
            break;
        }
    pool_worker(&P);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&P.mu);
    return rc;
}

void lab_mean_sd(const double *x, int n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    double m = n > 0 ? s / n : NAN;
    for (int i = 0; i < n; i++)
        q += (x[i] - m) * (x[i] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

double lab_t975(int df)
{
    /* t(0.975, df) for df = 1..30 (standard tables) */
    static const double t[31] = {
        NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
        2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
        2.042};
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t[df];
    /* Cornish-Fisher expansion around z = 1.959964 (error below 1e-4 for
     * df > 30) */
    double z = 1.959963984540054, v = df;
    return z + (z * z * z + z) / (4 * v) +
           (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v) +
           (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * z * z * z - 15 * z) / (384 * v * v * v);
}

int lab_paired(const double *a, const double *b, int n, double *dm, double *half)
{
    double d[64];
    int same = 1;
    if (n > 64)
        n = 64;
    for (int k = 0; k < n; k++) {
        d[k] = a[k] - b[k];
        same &= d[k] == 0;
    }
    double m, sd;
    lab_mean_sd(d, n, &m, &sd);
    *dm = m;
    *half = lab_t975(n - 1) * sd / sqrt((double)n);
    if (same)
        return 2;
    if (m - *half > 0)
        return 1;
    if (m + *half < 0)
        return -1;
    return 0;
}
