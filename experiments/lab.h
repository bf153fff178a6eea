/*
 * lab.h — the lab's experiments and the pieces they share.
 *
 * An experiment is a pure function of (seed, quick, data path): it writes
 * its data files and its part of the report into memory through a lab_ctx.
 * The caller (fplab lab) then writes every file atomically, runs the plot
 * scripts and renders REPORT.md.  Keeping experiments free of file I/O makes
 * "same seed, same bytes" a property that tests can check directly.
 *
 * Every data file starts with '#' lines: what it holds, the fplab version,
 * the seed, the formats and the parameters; then whitespace-separated
 * columns (gnuplot blocks separated by two blank lines where a file holds
 * several series).
 */
#ifndef FPLAB_LAB_H
#define FPLAB_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default text of the character language model (experiment 10): the
 * GPL, version 3, as Debian's essential package base-files installs it. */
#define LAB_DEFAULT_TEXT "/usr/share/common-licenses/GPL-3"

/* One output file held in memory. */
typedef struct lab_file {
    char *name;     /* file name inside the output directory */
    char *data;
    size_t len;
} lab_file;

/* A piece of the report: text, or a figure made by plots/<stem>.gp. */
typedef struct lab_item {
    int is_figure;
    char *text;     /* markdown text, or the figure's caption */
    char *stem;     /* figure: plot script stem (output stem.png, stem.svg) */
} lab_item;

typedef struct lab_ctx {
    uint64_t seed;
    int quick;
    int seeds;                /* training runs per policy: seeds seed ..
                                 seed + seeds - 1 (default 5, quick 3) */
    int jobs;                 /* worker threads for independent runs (1) */
    const char *data_path;    /* training data (digits CSV), may be NULL */
    const char *text_path;    /* the text of the character language model
                                 (experiment 10), may be NULL */
    lab_file *files;
    size_t nfiles, files_cap;
    lab_item *items;
    size_t nitems, items_cap;
    char err[512];            /* set when an experiment fails */
    /* the data file being written (one at a time) */
    FILE *cur_fp;
    char *cur_buf, *cur_name;
    size_t cur_len;
} lab_ctx;

void lab_ctx_init(lab_ctx *L, uint64_t seed, int quick, const char *data_path);
void lab_ctx_free(lab_ctx *L);

/* Start a data file: returns a stream (in memory) with the '#' header
 * already written: "# fplab VERSION: <title>", "# seed: N", "# formats:
 * ...", "# params: ...", then the caller writes "# columns: ..." and rows.
 * NULL on allocation failure (err set). */
FILE *lab_data_begin(lab_ctx *L, const char *name, const char *title,
                     const char *formats, const char *params_fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Finish the file begun last; 0 or -1 (err set). */
int lab_data_end(lab_ctx *L, FILE *fp);

/* Append markdown to the report (printf-style). */
void lab_say(lab_ctx *L, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A figure from plots/<stem>.gp, with a caption saying what it measures. */
void lab_figure(lab_ctx *L, const char *stem, const char *caption_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Run fn(arg, i) for i = 0 .. n-1 on up to L->jobs threads.  Every call
 * must depend on i alone (and write only its own slot of arg), so the
 * results do not depend on the number of threads or their timing.
 * Returns 0, or -1 with L->err set if threads could not be started (the
 * calls then run on the calling thread). */
int lab_parallel(lab_ctx *L, size_t n, void (*fn)(void *arg, size_t i), void *arg);

/* Mean and sample standard deviation (n - 1 in the denominator; 0 for
 * n < 2) of x[0 .. n-1]. */
void lab_mean_sd(const double *x, int n, double *mean, double *sd);
/* Student's t quantile t(0.975, df) for df >= 1: the half-width factor of
 * a two-sided 95% confidence interval. */
double lab_t975(int df);
/* The lab's rule for calling a difference between two policies measured
 * on the same n seeds (paired): d_k = a_k - b_k, mean dm, and the 95%
 * confidence interval dm ± t(0.975, n-1) sd(d)/sqrt(n) (*half gets its
 * half-width).  Returns +1 (a higher) or -1 (a lower) when the interval
 * excludes 0, 0 when it does not (indistinguishable at n seeds), and 2
 * when every d_k is 0 (identical). */
int lab_paired(const double *a, const double *b, int n, double *dm, double *half);

/* Find a file already produced (NULL if none). */
const lab_file *lab_find_file(const lab_ctx *L, const char *name);

/* A deterministic random stream (splitmix64): a pure function of seed. */
typedef struct lab_rng { uint64_t s; } lab_rng;
static inline uint64_t lab_rng_next(lab_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in [0, 1), 53 random bits. */
static inline double lab_rng_uniform(lab_rng *r)
{
    return (double)(lab_rng_next(r) >> 11) * 0x1p-53;
}
/* A stream for one experiment: seed mixed with a tag so that experiments
 * do not share random numbers. */
lab_rng lab_rng_make(uint64_t seed, const char *tag);

/* Round a double into f (RNE) and return it as a double. */
double lab_round(const fl_format *f, double x);

/* Print a double compactly and reproducibly ("%.17g" style, but the
 * shortest form that reads back). */
void lab_fmt_double(char *buf, size_t len, double x);

/* The experiments, in report order. */
typedef struct lab_experiment {
    const char *id;       /* short name for --only: atlas, rounding, ... */
    const char *title;
    int (*run)(lab_ctx *L);   /* 0, or -1 with L->err set */
} lab_experiment;

extern const lab_experiment lab_experiments[];
extern const size_t lab_experiment_count;

int lab_exp_atlas(lab_ctx *L);
int lab_exp_rounding(lab_ctx *L);
int lab_exp_gradhist(lab_ctx *L);
int lab_exp_lost(lab_ctx *L);
int lab_exp_accum(lab_ctx *L);
int lab_exp_training(lab_ctx *L);
int lab_exp_scaling(lab_ctx *L);
int lab_exp_trainaccum(lab_ctx *L);
int lab_exp_trainsr(lab_ctx *L);
int lab_exp_trainlm(lab_ctx *L);

#ifdef __cplusplus
}
#endif
#endif
