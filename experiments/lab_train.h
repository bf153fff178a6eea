/*
 * lab_train.h — the training settings the lab's experiments share.
 *
 * DEFAULT: the trainer's defaults (3 layers of 64, ReLU, SGD with momentum,
 *   batch 64, mean loss), on which every policy trains fine;
 * DEEP: 4 layers, init std times 0.25, mean loss over a batch of 256: a
 *   setting in which the gradients are small (deeper net, small init,
 *   large-batch mean) and binary32 still trains (about 96% test accuracy
 *   after 400 steps), so a difference between policies would show.  (6
 *   layers at gain 0.3 did not train in binary32 within 400 steps.)
 * TINY: the default model with loss weight W = 2^-16 and lr 0.05/W (SGD):
 *   the same binary32 training bit for bit (W is a power of two), but every
 *   gradient is 2^16 times smaller, as with the 1/N of a mean over N
 *   accumulated micro-batches; the logit gradients carry W/64 = 2^-22, the
 *   per-token factor of a mean over a 4M-token batch.  (Naive fp16 still
 *   trained like binary32 at W = 2^-14; see exp_training.c's sweep.)
 * ADAM: the default model with Adam at lr 1e-4 (a fine-tuning rate) for
 *   600 steps: updates of about lr or less against weights of about 0.18
 *   (He init, fan-in 64), below bfloat16's half ulp 2^-9|w| for most.
 * Steps: 300 (default, tiny) / 400 (deep) / 600 (adam); --quick: 24.
 */
#ifndef FPLAB_LAB_TRAIN_H
#define FPLAB_LAB_TRAIN_H

#include <stddef.h>
#include "amp.h"
#include "lab.h"
#include "lab_stats.h"

enum { LAB_SETTING_DEFAULT = 0, LAB_SETTING_DEEP = 1, LAB_SETTING_TINY = 2,
       LAB_SETTING_ADAM = 3 };
/* The loss weight of the TINY setting. */
#define LAB_TINY_LOSS_WEIGHT 0x1p-16

/* Fill c for the setting and policy; -1 with err if the policy is unknown
 * or the lab has no data path. */
int lab_train_setting(const lab_ctx *L, amp_train_config *c, int setting,
                      const char *policy, char *err, size_t errlen);
/* "depth=6 width=64 ..." for headers and the report. */
void lab_train_describe(const amp_train_config *c, char *buf, size_t len);
const char *lab_setting_name(int setting);

/* ------------------------------------------------------------------------
 * Runs, comparisons and names shared by the training experiments (6, 8,
 * 9, 10).
 * ---------------------------------------------------------------------- */

/* What a policy does, in words, for a lab policy name ("fp16-torch",
 * "o3-state32", ...): the label the report and the figures use.  The CLI
 * names stay as keys. */
const char *lab_policy_label(const char *name);
/* One row of the "what each policy does" table, from the policy itself:
 * "| label (`name`) | compute | accumulation | weights | master | state |
 * scaling |" with a newline.  Returns buf. */
char *lab_policy_row(const char *name, const amp_policy *p, char *buf,
                     size_t len);
/* The same fields for data files: "name compute accum weights master state
 * scaling" as words without spaces. */
void lab_policy_words(const char *name, const amp_policy *p, char *buf,
                      size_t len);
/* The accumulation of a policy in words without spaces: "binary32",
 * "binary16-sequential", "tc-h100-fp16-acc32", "tc-h100-fp16-acc16". */
const char *lab_accum_word(const amp_accum *a, char *buf, size_t len);

/* One training run and what the lab keeps of it. */
typedef struct lab_run {
    amp_train_config c;
    const amp_dataset *data;
    const char *name;           /* policy name as reported */
    int rc;
    char err[256];
    /* per step */
    float *loss, *scale;
    unsigned char *skip;
    double *lostf, *acc;        /* lostf NaN from the first non-finite loss */
    /* summary */
    long correct, n_test, n_train;
    double loss_final, scale_final;
    int skipped, first_nonfinite;   /* 1-based step, 0 if none */
    uint64_t upd, lost;             /* over the steps before divergence */
    amp_range_stats w, a;           /* over every step and layer (measure) */
    amp_range_stats *wl, *al;       /* per layer, over every step (measure) */
    uint64_t hash;                  /* lab_run_hash */
    uint64_t v_zero1, upd1;         /* step 1: Adam v == 0 with m != 0; updates */
    double max_dw1;                 /* step 1: largest |dw| */
    amp_accum_stats accs;           /* GEMM outputs against binary32
                                       accumulation (when c.policy.accum.stats
                                       points here: lab_run_exec sets it for
                                       accumulations other than binary32) */
} lab_run;

/* lab_parallel's worker over an array of lab_run: runs element i. */
void lab_run_exec(void *arg, size_t i);
void lab_run_free(lab_run *r);
/* FNV-1a (64 bits) over the bit patterns of every step's loss and the
 * count of correct test images: two runs with equal hashes are, with
 * overwhelming probability, bit-identical in every loss value. */
uint64_t lab_run_hash(const float *loss, int steps, long correct);
/* Test accuracy in % of a run. */
double lab_run_acc(const lab_run *r);
/* Lost updates in % of the nonzero updates (before any divergence). */
double lab_run_lost(const lab_run *r);

/* ------------------------------------------------------------------------
 * A family of paired comparisons (lab_stats.h) with Holm's adjustment.
 * ---------------------------------------------------------------------- */

/* The equivalence margin of test accuracy, in percentage points. */
#define LAB_EQUIV_MARGIN 1.0

enum { LAB_V_IDENT = 0, LAB_V_HIGHER = 1, LAB_V_LOWER = 2, LAB_V_EQUIV = 3,
       LAB_V_NOTSHOWN = 4 };
enum { LAB_M_ACC = 0, LAB_M_LOST = 1 };

typedef struct lab_cmp {
    char a_name[64], b_name[64];   /* "setting:policy" keys */
    int metric;                    /* LAB_M_* */
    int n;
    double a[64], b[64];
    uint64_t ha[64], hb[64];
    lab_test t;
    int ident;         /* every pair of runs bit-identical (equal hashes) */
    int dup_of;        /* -1, or an earlier comparison of the same runs */
    int diff_test, equiv_test;   /* in the families (1) or not (0) */
    double p_holm, tost_holm;    /* NaN when not tested */
    int verdict;
} lab_cmp;

typedef struct lab_family {
    lab_cmp *c;
    int n, cap;
    int m_diff, m_equiv;   /* tests in the two families */
} lab_family;

/* Add a comparison of a against b (per seed values and run hashes); the
 * metric LAB_M_ACC is tested for difference and equivalence (margin
 * LAB_EQUIV_MARGIN), LAB_M_LOST for difference only.  Returns its index,
 * or -1 out of memory. */
int lab_family_add(lab_family *F, const char *a_name, const char *b_name,
                   int metric, const double *a, const double *b,
                   const uint64_t *ha, const uint64_t *hb, int n);
/* Holm over the tests made (bit-identical and duplicate comparisons are
 * not tests), and every verdict. */
void lab_family_finish(lab_family *F);
void lab_family_free(lab_family *F);
const lab_cmp *lab_family_get(const lab_family *F, int i);
const char *lab_verdict_word(int v);
/* "lower (-2.23 ± 1.89, Holm p = 0.012)" and the like; for bit-identical
 * "bit-identical". */
void lab_cmp_text(const lab_cmp *c, char *buf, size_t len);
/* The family's comparisons as a data block (header and rows). */
void lab_family_write(const lab_family *F, FILE *fp);
/* The rule, as one paragraph of the report (m tests of each kind). */
void lab_family_say_rule(lab_ctx *L, const lab_family *F, int n_seeds);
/* The pooled sd of the paired differences of the accuracy comparisons
 * that were tested and whose names start with one of the prefixes
 * (NULL-terminated; NULL: all); *count gets how many. */
double lab_family_pooled_sd(const lab_family *F, const char *const *prefixes,
                            int *count);

/* ------------------------------------------------------------------------
 * A set of policies trained on the same seeds, reported as a table with
 * its files (training_<setting>.dat and training_<setting>_seeds.dat, the
 * format plots/training_common.gp draws and tests/lab_audit.py reads).
 * Policy 0 is the reference (binary32).
 * ---------------------------------------------------------------------- */
enum { LAB_PSET_MAX = 16 };

typedef struct lab_pstats {
    double acc[64], lost[64];   /* per seed, in % */
    uint64_t hash[64];
    double acc_m, acc_s, acc_min, acc_max;
    double loss_m, loss_s;      /* NaN when a seed diverged */
    double lost_m, lost_s;      /* per-seed lost-update fractions */
    double wzero, wuf, azero, auf;   /* means of per-seed fractions of all values */
    int diverged, skipped, fnf_min, fnf_max;
    double scale_min, scale_max;
} lab_pstats;

typedef struct lab_pset {
    const char *setting;              /* "default", "accum", ... */
    int npol, seeds;
    const char *names[LAB_PSET_MAX];
    lab_run *runs;                    /* npol * seeds, policy-major */
    lab_pstats st[LAB_PSET_MAX];
    int rep[LAB_PSET_MAX];            /* first policy bit-identical in every seed */
    int cmp[LAB_PSET_MAX];            /* family index of the comparison with
                                         policy 0 (-1: none) */
} lab_pset;

static inline lab_run *lab_pset_run(const lab_pset *ps, int p, int k)
{
    return &ps->runs[(size_t)p * (size_t)ps->seeds + (size_t)k];
}
/* The index of a policy by name; aborts on an unknown name (a bug). */
int lab_pset_index(const lab_pset *ps, const char *name);
/* Statistics and the bit-identical groups. */
void lab_pset_stats(lab_pset *ps);
/* Add each group's accuracy comparison with policy 0 to F; -1 out of memory. */
int lab_pset_compare(lab_pset *ps, lab_family *F);
/* "label (`a`) = label (`b`)" of the group p represents. */
void lab_pset_group_name(const lab_pset *ps, int p, char *buf, size_t len);
/* "a = b = c; d = e" for the groups of more than one policy ("" if none). */
void lab_pset_merged(const lab_pset *ps, char *buf, size_t len);
/* The verdicts against policy 0 grouped: "equivalent to binary32 (±1
 * point): a, b; difference not shown: c; lower than binary32: d". */
void lab_pset_verdicts(const lab_pset *ps, const lab_family *F, char *buf,
                       size_t len);
/* The two files; params describes the setting (lab_train_describe). */
int lab_pset_write(lab_ctx *L, const lab_pset *ps, const lab_family *F,
                   const char *params);
/* The table with its footnote. */
void lab_pset_say_table(lab_ctx *L, const lab_pset *ps, const lab_family *F,
                        const char *params);
/* 2^k for a power of two, else %g. */
void lab_fmt_scale(char *buf, size_t len, double v);
/* Allocate the runs (npol and seeds set); -1 with L->err. */
int lab_pset_alloc(lab_ctx *L, lab_pset *ps);
/* Run them all on L->jobs threads; -1 with L->err naming the failed run. */
int lab_pset_exec(lab_ctx *L, lab_pset *ps);
void lab_pset_free(lab_pset *ps);
/* "What each policy does" for the policies of the sets, in order, each
 * once, after the intro sentence. */
void lab_say_policies(lab_ctx *L, const char *intro, const lab_pset *const *sets,
                      int nsets);
/* The family as a data file <name> (lab_family_write). */
int lab_family_write_file(lab_ctx *L, const char *name, const lab_family *F,
                          int seeds);

#endif
