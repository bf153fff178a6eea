/* lab_train.c — training settings, runs, names and comparisons shared by
 * the training experiments (3, 6, 7 use the settings; 6, 8, 9, 10 the rest). */
#include "lab_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amp_tc.h"

const char *lab_setting_name(int setting)
{
    switch (setting) {
    case LAB_SETTING_DEEP: return "deep";
    case LAB_SETTING_TINY: return "tiny";
    case LAB_SETTING_ADAM: return "adam";
    default: return "default";
    }
}

int lab_train_setting(const lab_ctx *L, amp_train_config *c, int setting,
                      const char *policy, char *err, size_t errlen)
{
    amp_train_config_default(c);
    if (!L->data_path) {
        snprintf(err, errlen, "no training data path");
        return -1;
    }
    if (amp_policy_parse(&c->policy, policy, err, errlen))
        return -1;
    c->data_path = L->data_path;
    c->seed = L->seed;
    if (setting == LAB_SETTING_DEEP) {
        c->depth = 4;
        c->init_gain = 0.25;
        c->batch = 256;
        c->steps = 400;
    } else if (setting == LAB_SETTING_TINY) {
        c->loss_weight = LAB_TINY_LOSS_WEIGHT;
        c->lr = 0.05 / LAB_TINY_LOSS_WEIGHT;   /* exact: W is 2^-16 */
    } else if (setting == LAB_SETTING_ADAM) {
        c->optimizer = AMP_OPT_ADAM;
        c->lr = 1e-4;
        c->steps = 600;
    }
    if (L->quick)
        c->steps = 24;
    c->eval_every = L->quick ? 6 : 25;
    return 0;
}

void lab_train_describe(const amp_train_config *c, char *buf, size_t len)
{
    char lw[48] = "";
    if (c->loss_weight != 1.0)   /* only where the setting sets one */
        snprintf(lw, sizeof lw, " loss_weight=%a", c->loss_weight);
    char more[128] = "";   /* only where a setting sets them */
    size_t o = 0;
    if (c->init_std > 0)
        o += (size_t)snprintf(more + o, sizeof more - o, " init_std=%g", c->init_std);
    if (c->micro_batches > 1 && o < sizeof more)
        o += (size_t)snprintf(more + o, sizeof more - o, " micro_batches=%d",
                              c->micro_batches);
    if (c->text_context > 0 && o < sizeof more)
        snprintf(more + o, sizeof more - o, " context=%d", c->text_context);
    snprintf(buf, len, "depth=%d width=%d act=%s optimizer=%s lr=%g batch=%d "
             "loss=%s%s init_gain=%g%s steps=%d data_seed=%llu", c->depth, c->width,
             amp_act_name(c->activation), amp_opt_name(c->optimizer), c->lr,
             c->batch, c->loss_reduction == AMP_LOSS_SUM ? "sum" : "mean", lw,
             c->init_gain, more, c->steps, (unsigned long long)c->seed);
}

/* ---------------------------------------------------------------------- */
/* Policy names and what they do */

static const struct {
    const char *name, *label;
} labels[] = {
    {"fp32", "binary32 throughout"},
    {"fp16", "fp16 autocast, no loss scaling"},
    {"fp16-static:1024", "fp16 autocast, static scale 1024"},
    {"fp16-torch", "fp16 autocast, GradScaler"},
    {"fp16-torch-i50", "fp16 autocast, GradScaler, growth interval 50"},
    {"o2", "fp16 weights, fp32 master copy, dynamic scale"},
    {"o3", "fp16 weights and optimizer state, no master copy, no scaling"},
    {"o3-state32", "fp16 weights, fp32 optimizer state, no master copy, no scaling"},
    {"bf16", "bf16 autocast"},
    {"bf16-pure", "bf16 weights and optimizer state, no master copy"},
    {"bf16-pure-sr", "bf16 weights and optimizer state, no master copy, stochastic rounding"},
    {"fp16-pure", "fp16 weights, fp32 optimizer state, no master copy, no scaling"},
    {"fp16-pure-sr", "fp16 weights, fp32 optimizer state, no master copy, stochastic rounding"},
    {"fp16-acc16", "fp16 autocast, no loss scaling, fp16 sequential accumulation"},
    {"fp16-torch-acc16", "fp16 autocast, GradScaler, fp16 sequential accumulation"},
    {"fp16-torch-tc32", "fp16 autocast, GradScaler, H100 tensor-core blocks, fp32 accumulation"},
    {"fp16-torch-tc16", "fp16 autocast, GradScaler, H100 tensor-core blocks, fp16 accumulation"},
};

const char *lab_policy_label(const char *name)
{
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (!strcmp(labels[i].name, name))
            return labels[i].label;
    return name;
}

const char *lab_accum_word(const amp_accum *a, char *buf, size_t len)
{
    if (a->kind == AMP_ACC_BLOCK) {
        const fl_tc_model *m = a->block_model;
        snprintf(buf, len, "tc-%s-acc%s", m ? m->name : "?",
                 a->block_acc16 ? "16" : "32");
    } else if (a->kind == AMP_ACC_LOW) {
        snprintf(buf, len, "output-format-sequential");
    } else {
        snprintf(buf, len, "binary32%s%s", a->kind == AMP_ACC_F32 ? "" : "-",
                 a->kind == AMP_ACC_F32 ? "" : amp_accum_name(a->kind));
    }
    return buf;
}

static const char *scaling_word(const amp_scaler_config *s)
{
    switch (s->kind) {
    case AMP_SCALER_STATIC: return "static";
    case AMP_SCALER_TORCH: return "GradScaler";
    case AMP_SCALER_APEX: return "apex-dynamic";
    default: return "none";
    }
}

void lab_policy_words(const char *name, const amp_policy *p, char *buf,
                      size_t len)
{
    char acc[64];
    const fl_format *wf = p->master ? &fl_binary32 : p->param;
    const fl_format *st = p->state ? p->state : wf;
    char sc[48];
    if (p->scaler.kind == AMP_SCALER_NONE)
        snprintf(sc, sizeof sc, "none");
    else
        snprintf(sc, sizeof sc, "%s:%g", scaling_word(&p->scaler),
                 p->scaler.init_scale);
    lab_accum_word(&p->accum, acc, sizeof acc);
    snprintf(buf, len, "%s %s %s %s %s %s %s %s", name, p->compute->name, acc,
             p->param->name, p->master ? "binary32" : "none", st->name,
             p->update_rm == FL_RSR ? "stochastic" : "nearest", sc);
}

char *lab_policy_row(const char *name, const amp_policy *p, char *buf,
                     size_t len)
{
    char acc[64], sc[64];
    const amp_accum *a = &p->accum;
    if (a->kind == AMP_ACC_BLOCK) {
        const fl_tc_model *m = a->block_model;
        snprintf(acc, sizeof acc, "%s tensor-core blocks of %d, %s",
                 m ? m->name : "?", m ? m->block : 0,
                 a->block_acc16 ? "binary16 between blocks"
                                : "binary32 between blocks");
    } else if (a->kind == AMP_ACC_LOW) {
        snprintf(acc, sizeof acc, "%s, every partial sum rounded",
                 p->compute->name);
    } else {
        snprintf(acc, sizeof acc, "binary32");
    }
    if (p->scaler.kind == AMP_SCALER_NONE)
        snprintf(sc, sizeof sc, "none");
    else if (p->scaler.kind == AMP_SCALER_STATIC)
        snprintf(sc, sizeof sc, "static %g", p->scaler.init_scale);
    else
        snprintf(sc, sizeof sc, "%s from %g, growth interval %d",
                 scaling_word(&p->scaler), p->scaler.init_scale,
                 (int)p->scaler.growth_interval);
    const fl_format *wf = p->master ? &fl_binary32 : p->param;
    snprintf(buf, len, "| %s (`%s`) | %s | %s | %s%s | %s | %s |\n",
             lab_policy_label(name), name, p->compute->name, acc,
             p->param->name,
             p->master ? ", binary32 master copy"
             : p->update_rm == FL_RSR && !amp_format_is_f32(p->param)
                 ? ", updated with stochastic rounding" : "",
             (p->state ? p->state : wf)->name, sc);
    return buf;
}

/* ---------------------------------------------------------------------- */
/* Runs */

uint64_t lab_run_hash(const float *loss, int steps, long correct)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (int s = 0; s < steps; s++) {
        uint32_t u;
        memcpy(&u, &loss[s], sizeof u);
        for (int b = 0; b < 4; b++)
            h = (h ^ ((u >> (8 * b)) & 0xFF)) * 0x100000001B3ull;
    }
    uint64_t c = (uint64_t)correct;
    for (int b = 0; b < 8; b++)
        h = (h ^ ((c >> (8 * b)) & 0xFF)) * 0x100000001B3ull;
    return h;
}

void lab_run_free(lab_run *r)
{
    free(r->loss);
    free(r->scale);
    free(r->skip);
    free(r->lostf);
    free(r->acc);
    free(r->wl);
    free(r->al);
}

void lab_run_exec(void *arg, size_t i)
{
    lab_run *j = &((lab_run *)arg)[i];
    amp_train_config *c = &j->c;
    int n = c->steps, depth = c->depth > 0 ? c->depth : 1;
    if (c->policy.accum.kind != AMP_ACC_F32)
        c->policy.accum.stats = &j->accs;
    j->loss = calloc((size_t)n + 1, sizeof *j->loss);
    j->scale = calloc((size_t)n + 1, sizeof *j->scale);
    j->skip = calloc((size_t)n + 1, sizeof *j->skip);
    j->lostf = calloc((size_t)n + 1, sizeof *j->lostf);
    j->acc = calloc((size_t)n + 1, sizeof *j->acc);
    j->wl = calloc((size_t)depth, sizeof *j->wl);
    j->al = calloc((size_t)depth, sizeof *j->al);
    amp_layer_record *lr = calloc((size_t)depth, sizeof *lr);
    if (!j->loss || !j->scale || !j->skip || !j->lostf || !j->acc || !j->wl ||
        !j->al || !lr) {
        snprintf(j->err, sizeof j->err, "out of memory");
        j->rc = -1;
        free(lr);
        return;
    }
    amp_trainer *t = amp_trainer_create(c, j->data, j->err, sizeof j->err);
    if (!t) {
        j->rc = -1;
        free(lr);
        return;
    }
    int layers = amp_trainer_layers(t);
    for (int s = 0; s < n; s++) {
        amp_step_record q;
        amp_trainer_step(t, &q, lr);
        j->loss[s] = q.loss;
        j->scale[s] = q.scale_used;
        j->skip[s] = (unsigned char)q.skipped;
        j->acc[s] = q.test_acc;
        j->skipped += q.skipped;
        if (!isfinite(q.loss) && !j->first_nonfinite)
            j->first_nonfinite = s + 1;
        /* a diverged run's updates are not counted: from its first
         * non-finite loss on, w + dw == w compares infinities and NaNs */
        if (j->first_nonfinite) {
            j->lostf[s] = NAN;
        } else {
            j->lostf[s] = q.updates ? (double)q.lost / (double)q.updates : 0.0;
            j->upd += q.updates;
            j->lost += q.lost;
        }
        if (s == 0) {
            j->v_zero1 = q.v_zero;
            j->upd1 = q.updates;
            j->max_dw1 = q.max_dw;
        }
        for (int l = 0; c->measure && l < layers; l++) {
            amp_range_stats_merge(&j->w, &lr[l].wgrad);
            amp_range_stats_merge(&j->a, &lr[l].agrad);
            amp_range_stats_merge(&j->wl[l], &lr[l].wgrad);
            amp_range_stats_merge(&j->al[l], &lr[l].agrad);
        }
        if (s == n - 1)
            j->scale_final = q.scale_after;
    }
    j->n_test = (long)amp_trainer_test_size(t);
    j->n_train = (long)amp_trainer_train_size(t);
    double acc = amp_trainer_test_accuracy(t);
    j->correct = lround(acc * (double)j->n_test);
    j->loss_final = n ? j->loss[n - 1] : NAN;
    j->hash = lab_run_hash(j->loss, n, j->correct);
    amp_trainer_free(t);
    free(lr);
    c->policy.accum.stats = NULL;   /* the copy in c must not point into j */
}

double lab_run_acc(const lab_run *r)
{
    return 100.0 * (double)r->correct / (double)r->n_test;
}

double lab_run_lost(const lab_run *r)
{
    return r->upd ? 100.0 * (double)r->lost / (double)r->upd : 0.0;
}

/* ---------------------------------------------------------------------- */
/* Families of comparisons */

int lab_family_add(lab_family *F, const char *a_name, const char *b_name,
                   int metric, const double *a, const double *b,
                   const uint64_t *ha, const uint64_t *hb, int n)
{
    if (n > 64)
        n = 64;
    if (F->n == F->cap) {
        int nc = F->cap ? 2 * F->cap : 32;
        lab_cmp *p = realloc(F->c, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        F->c = p;
        F->cap = nc;
    }
    lab_cmp *c = &F->c[F->n];
    memset(c, 0, sizeof *c);
    snprintf(c->a_name, sizeof c->a_name, "%s", a_name);
    snprintf(c->b_name, sizeof c->b_name, "%s", b_name);
    c->metric = metric;
    c->n = n;
    memcpy(c->a, a, (size_t)n * sizeof *a);
    memcpy(c->b, b, (size_t)n * sizeof *b);
    memcpy(c->ha, ha, (size_t)n * sizeof *ha);
    memcpy(c->hb, hb, (size_t)n * sizeof *hb);
    lab_test_paired(&c->t, a, b, n, LAB_EQUIV_MARGIN);
    c->ident = !memcmp(ha, hb, (size_t)n * sizeof *ha);
    c->dup_of = -1;
    for (int i = 0; i < F->n && !c->ident; i++) {
        const lab_cmp *o = &F->c[i];
        if (o->metric == metric && o->n == n && o->dup_of < 0 &&
            !memcmp(o->ha, ha, (size_t)n * sizeof *ha) &&
            !memcmp(o->hb, hb, (size_t)n * sizeof *hb)) {
            c->dup_of = i;
            break;
        }
    }
    c->diff_test = !c->ident && c->dup_of < 0;
    c->equiv_test = c->diff_test && metric == LAB_M_ACC;
    c->p_holm = c->tost_holm = NAN;
    return F->n++;
}

void lab_family_finish(lab_family *F)
{
    double *p = malloc((size_t)(F->n ? F->n : 1) * sizeof *p);
    double *q = malloc((size_t)(F->n ? F->n : 1) * sizeof *q);
    int *ix = malloc((size_t)(F->n ? F->n : 1) * sizeof *ix);
    if (!p || !q || !ix) {
        free(p);
        free(q);
        free(ix);
        return;
    }
    for (int kind = 0; kind < 2; kind++) {
        int m = 0;
        for (int i = 0; i < F->n; i++)
            if (kind == 0 ? F->c[i].diff_test : F->c[i].equiv_test) {
                ix[m] = i;
                p[m++] = kind == 0 ? F->c[i].t.p : F->c[i].t.p_tost;
            }
        lab_holm(p, m, q);
        for (int k = 0; k < m; k++) {
            if (kind == 0)
                F->c[ix[k]].p_holm = q[k];
            else
                F->c[ix[k]].tost_holm = q[k];
        }
        if (kind == 0)
            F->m_diff = m;
        else
            F->m_equiv = m;
    }
    for (int i = 0; i < F->n; i++) {
        lab_cmp *c = &F->c[i];
        if (c->ident) {
            c->verdict = LAB_V_IDENT;
        } else if (c->dup_of >= 0) {
            const lab_cmp *o = &F->c[c->dup_of];
            c->p_holm = o->p_holm;
            c->tost_holm = o->tost_holm;
            c->verdict = o->verdict;
        } else if (c->p_holm < 0.05) {
            c->verdict = c->t.mean > 0 ? LAB_V_HIGHER : LAB_V_LOWER;
        } else if (c->equiv_test && c->tost_holm < 0.05) {
            c->verdict = LAB_V_EQUIV;
        } else {
            c->verdict = LAB_V_NOTSHOWN;
        }
    }
    free(p);
    free(q);
    free(ix);
}

void lab_family_free(lab_family *F)
{
    free(F->c);
    memset(F, 0, sizeof *F);
}

const lab_cmp *lab_family_get(const lab_family *F, int i)
{
    return i >= 0 && i < F->n ? &F->c[i] : NULL;
}

const char *lab_verdict_word(int v)
{
    switch (v) {
    case LAB_V_IDENT: return "bit-identical";
    case LAB_V_HIGHER: return "higher";
    case LAB_V_LOWER: return "lower";
    case LAB_V_EQUIV: return "equivalent";
    default: return "not shown";
    }
}

/* p-values: 4 significant digits, "< 1e-6" below */
static void fmt_p(char *buf, size_t len, double p)
{
    if (p < 1e-6)
        snprintf(buf, len, "< 1e-6");
    else
        snprintf(buf, len, "%.4g", p);
}

void lab_cmp_text(const lab_cmp *c, char *buf, size_t len)
{
    char p1[32], p2[32];
    if (c->verdict == LAB_V_IDENT) {
        snprintf(buf, len, "bit-identical");
        return;
    }
    fmt_p(p1, sizeof p1, c->p_holm);
    fmt_p(p2, sizeof p2, c->tost_holm);
    if (c->verdict == LAB_V_HIGHER || c->verdict == LAB_V_LOWER)
        snprintf(buf, len, "%s (%+.2f ± %.2f, Holm p %s)",
                 lab_verdict_word(c->verdict), c->t.mean, c->t.half95, p1);
    else if (c->verdict == LAB_V_EQUIV)
        snprintf(buf, len, "equivalent (%+.2f ± %.2f, TOST Holm p %s)",
                 c->t.mean, c->t.half95, p2);
    else if (c->equiv_test || (c->dup_of >= 0 && c->metric == LAB_M_ACC))
        snprintf(buf, len, "not shown (%+.2f ± %.2f, Holm p %s, TOST Holm p %s)",
                 c->t.mean, c->t.half95, p1, p2);
    else
        snprintf(buf, len, "not shown (%+.2f ± %.2f, Holm p %s)", c->t.mean,
                 c->t.half95, p1);
}

void lab_family_write(const lab_family *F, FILE *fp)
{
    fprintf(fp, "# the comparisons: a against b (keys setting:policy), metric "
                "acc or lost (points), n seeds; mean sd half95 of d = a - b; "
                "p (paired t, two-sided), p_holm (Holm over the %d difference "
                "tests), p_tost (+-%g points), p_tost_holm (Holm over the %d "
                "equivalence tests); ident 1 when every pair of runs is "
                "bit-identical; dup_of the index of an earlier comparison of "
                "the same runs (-1: none); nan: not tested\n"
                "# columns: index a b metric n mean sd half95 p p_holm p_tost "
                "p_tost_holm ident dup_of verdict\n",
            F->m_diff, LAB_EQUIV_MARGIN, F->m_equiv);
    for (int i = 0; i < F->n; i++) {
        const lab_cmp *c = &F->c[i];
        int tested = c->diff_test;
        fprintf(fp, "%d %s %s %s %d %.9g %.9g %.9g %.9g %.9g %.9g %.9g %d %d %s\n", i,
                c->a_name, c->b_name, c->metric == LAB_M_ACC ? "acc" : "lost", c->n,
                c->t.mean, c->t.sd, c->t.half95, tested ? c->t.p : NAN,
                isnan(c->p_holm) ? NAN : c->p_holm,
                c->equiv_test ? c->t.p_tost : NAN,
                isnan(c->tost_holm) ? NAN : c->tost_holm, c->ident, c->dup_of,
                c->verdict == LAB_V_NOTSHOWN ? "not-shown"
                                             : lab_verdict_word(c->verdict));
    }
}

void lab_family_say_rule(lab_ctx *L, const lab_family *F, int n_seeds)
{
    int ident = 0, dup = 0, lost = 0;
    for (int i = 0; i < F->n; i++) {
        ident += F->c[i].ident;
        dup += F->c[i].dup_of >= 0;
        lost += F->c[i].metric == LAB_M_LOST && F->c[i].diff_test;
    }
    char lostc[200] = "";
    if (lost)
        snprintf(lostc, sizeof lostc, " (%d of them compare the percentages of "
                 "updates lost, for a difference only)", lost);
    lab_say(L, "**Rule.**  Two policies are compared seed by seed (the same "
               "seed gives both the same initialisation, split and batches); "
               "d is the per-seed difference of their test accuracies, in "
               "points.  A difference is called (*higher*, *lower*) when the "
               "two-sided paired t-test's p-value, adjusted by Holm's method "
               "over the %d difference tests of this section%s, is below 0.05; "
               "*equivalent* means that two one-sided tests (TOST) place "
               "mean(d) within ±%g point of 0, with the p-value adjusted by "
               "Holm over the %d equivalence tests; otherwise the difference "
               "is *not shown* at %d seeds.  Each verdict shows mean(d) ± the "
               "half-width of its 95%% confidence interval.  Runs bit-identical "
               "in every seed (the same loss at every step and the same "
               "accuracy: equal hashes in the data) are *bit-identical*, merged "
               "and not tested (%d comparisons); a comparison of the same runs "
               "as an earlier one is merged with it (%d).\n\n",
            F->m_diff, lostc, LAB_EQUIV_MARGIN, F->m_equiv, n_seeds, ident, dup);
}

double lab_family_pooled_sd(const lab_family *F, const char *const *prefixes,
                            int *count)
{
    double q = 0.0;
    int k = 0;
    for (int i = 0; i < F->n; i++) {
        const lab_cmp *c = &F->c[i];
        if (!c->equiv_test)
            continue;
        int hit = !prefixes;
        for (int j = 0; prefixes && prefixes[j] && !hit; j++)
            hit = !strncmp(c->a_name, prefixes[j], strlen(prefixes[j]));
        if (!hit)
            continue;
        q += c->t.sd * c->t.sd;
        k++;
    }
    if (count)
        *count = k;
    return k ? sqrt(q / k) : NAN;
}

/* ---------------------------------------------------------------------- */
/* Policy sets */

static double frac64(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* NaN of either sign prints as "nan" (glibc prints a negative one as
 * "-nan", which some readers reject). */
static double pn(double x)
{
    return isnan(x) ? (double)NAN : x;
}

void lab_fmt_scale(char *buf, size_t len, double v)
{
    int e;
    if (v > 0 && frexp(v, &e) == 0.5)
        snprintf(buf, len, "2^%d", e - 1);
    else
        snprintf(buf, len, "%g", v);
}

int lab_pset_index(const lab_pset *ps, const char *name)
{
    for (int p = 0; p < ps->npol; p++)
        if (!strcmp(ps->names[p], name))
            return p;
    abort();
}

static lab_pstats pstats_of(const lab_pset *ps, int p)
{
    const int S = ps->seeds;
    double loss[64];
    lab_pstats r;
    memset(&r, 0, sizeof r);
    r.acc_min = INFINITY;
    r.acc_max = -INFINITY;
    r.scale_min = INFINITY;
    r.scale_max = -INFINITY;
    for (int k = 0; k < S; k++) {
        const lab_run *j = lab_pset_run(ps, p, k);
        r.acc[k] = lab_run_acc(j);
        r.hash[k] = j->hash;
        loss[k] = j->loss_final;
        r.lost[k] = lab_run_lost(j);
        r.acc_min = fmin(r.acc_min, r.acc[k]);
        r.acc_max = fmax(r.acc_max, r.acc[k]);
        r.wzero += 100.0 * frac64(j->w.zero_fp32, j->w.total) / S;
        r.wuf += 100.0 * frac64(j->w.underflow, j->w.total) / S;
        r.azero += 100.0 * frac64(j->a.zero_fp32, j->a.total) / S;
        r.auf += 100.0 * frac64(j->a.underflow, j->a.total) / S;
        r.skipped += j->skipped;
        r.scale_min = fmin(r.scale_min, j->scale_final);
        r.scale_max = fmax(r.scale_max, j->scale_final);
        if (j->first_nonfinite) {
            if (!r.diverged || j->first_nonfinite < r.fnf_min)
                r.fnf_min = j->first_nonfinite;
            if (j->first_nonfinite > r.fnf_max)
                r.fnf_max = j->first_nonfinite;
            r.diverged++;
        }
    }
    lab_mean_sd(r.acc, S, &r.acc_m, &r.acc_s);
    lab_mean_sd(loss, S, &r.loss_m, &r.loss_s);
    lab_mean_sd(r.lost, S, &r.lost_m, &r.lost_s);
    return r;
}

void lab_pset_stats(lab_pset *ps)
{
    for (int p = 0; p < ps->npol; p++) {
        ps->st[p] = pstats_of(ps, p);
        ps->cmp[p] = -1;
        ps->rep[p] = p;
        for (int q = 0; q < p; q++)
            if (ps->rep[q] == q &&
                !memcmp(ps->st[p].hash, ps->st[q].hash,
                        (size_t)ps->seeds * sizeof ps->st[p].hash[0])) {
                ps->rep[p] = q;
                break;
            }
    }
}

int lab_pset_compare(lab_pset *ps, lab_family *F)
{
    char a[96], b[96];
    snprintf(b, sizeof b, "%s:%s", ps->setting, ps->names[0]);
    for (int p = 1; p < ps->npol; p++) {
        ps->cmp[p] = -1;
        if (ps->rep[p] != p)
            continue;
        snprintf(a, sizeof a, "%s:%s", ps->setting, ps->names[p]);
        if ((ps->cmp[p] = lab_family_add(F, a, b, LAB_M_ACC, ps->st[p].acc,
                                         ps->st[0].acc, ps->st[p].hash,
                                         ps->st[0].hash, ps->seeds)) < 0)
            return -1;
    }
    return 0;
}

void lab_pset_group_name(const lab_pset *ps, int p, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int q = p; q < ps->npol; q++)
        if (ps->rep[q] == p && o < len)
            o += (size_t)snprintf(buf + o, len - o, "%s%s (`%s`)", o ? " = " : "",
                                  lab_policy_label(ps->names[q]), ps->names[q]);
}

void lab_pset_merged(const lab_pset *ps, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int p = 0; p < ps->npol; p++) {
        int members = 0;
        for (int q = p; q < ps->npol; q++)
            members += ps->rep[q] == p;
        if (ps->rep[p] != p || members < 2)
            continue;
        for (int q = p; q < ps->npol && o < len; q++)
            if (ps->rep[q] == p)
                o += (size_t)snprintf(buf + o, len - o, "%s%s",
                                      q == p ? (o ? "; " : "") : " = ", ps->names[q]);
    }
}

void lab_pset_verdicts(const lab_pset *ps, const lab_family *F, char *buf,
                       size_t len)
{
    static const int order[5] = {LAB_V_IDENT, LAB_V_EQUIV, LAB_V_NOTSHOWN, LAB_V_LOWER,
                                 LAB_V_HIGHER};
    static const char *const label[5] = {
        "bit-identical to binary32", "equivalent to binary32 (±1 point)",
        "difference not shown", "lower than binary32", "higher than binary32"};
    size_t o = 0;
    buf[0] = 0;
    for (int g = 0; g < 5; g++) {
        int any = 0;
        for (int p = 1; p < ps->npol; p++) {
            const lab_cmp *c = lab_family_get(F, ps->cmp[p]);
            if (!c || c->verdict != order[g])
                continue;
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s%s%s",
                                  any ? ", " : o ? "; " : "", any ? "" : label[g],
                                  any ? "" : ": ", ps->names[p]);
            any = 1;
        }
    }
}

static int pset_write_curves(lab_ctx *L, const lab_pset *ps, const char *params)
{
    const int S = ps->seeds;
    const amp_train_config *c0 = &lab_pset_run(ps, 0, 0)->c;
    char name[96], plist[512] = "policies:";
    for (int p = 0; p < ps->npol; p++) {
        size_t o = strlen(plist);
        snprintf(plist + o, sizeof plist - o, " %s", ps->names[p]);
    }
    snprintf(name, sizeof name, "training_%s.dat", ps->setting);
    FILE *fp = lab_data_begin(L, name, "training curves per precision policy, over "
                              "the seeds", plist, "setting=%s %s seeds=%llu..%llu "
                              "eval_every=%d", ps->setting, params,
                              (unsigned long long)L->seed,
                              (unsigned long long)(L->seed + (uint64_t)S - 1),
                              c0->eval_every);
    if (!fp)
        return -1;
    fprintf(fp, "# one block per policy, in the order above; over the %d seeds\n"
                "# columns: step loss_mean (nan if a seed's loss is non-finite) "
                "loss_min loss_max (over the finite ones) n_finite scale_used "
                "(first seed) skipped (first seed, this step) skipped_so_far (all "
                "seeds) lost_update_fraction_mean (over the seeds whose loss never "
                "turns non-finite; nan when none) acc_mean acc_min acc_max (nan when not evaluated) "
                "ratio_gmean ratio_min ratio_max (this policy's loss over binary32's "
                "in the same seed: geometric mean, smallest, largest over the seeds "
                "where both are finite; nan when none) n_ratio\n", S);
    for (int p = 0; p < ps->npol; p++) {
        fprintf(fp, "%s# policy %s\n", p ? "\n\n" : "", ps->names[p]);
        int skipped = 0;
        for (int st = 0; st < c0->steps; st++) {
            double lsum = 0, lmin = INFINITY, lmax = -INFINITY, lostm = 0;
            double asum = 0, amin = INFINITY, amax = -INFINITY;
            double lr = 0, rmin = INFINITY, rmax = -INFINITY;
            int nf = 0, nl = 0, nr = 0;
            for (int k = 0; k < S; k++) {
                const lab_run *j = lab_pset_run(ps, p, k), *f = lab_pset_run(ps, 0, k);
                double l = j->loss[st], l0 = f->loss[st];
                if (isfinite(l)) {
                    nf++;
                    lsum += l;
                    lmin = fmin(lmin, l);
                    lmax = fmax(lmax, l);
                }
                if (isfinite(l) && isfinite(l0) && l > 0 && l0 > 0) {
                    double r = l / l0;
                    nr++;
                    lr += log(r);
                    rmin = fmin(rmin, r);
                    rmax = fmax(rmax, r);
                }
                if (!j->first_nonfinite) {   /* a diverged run has no lost updates */
                    lostm += j->lostf[st];
                    nl++;
                }
                skipped += j->skip[st];
                asum += j->acc[st];
                amin = fmin(amin, j->acc[st]);
                amax = fmax(amax, j->acc[st]);
            }
            const lab_run *j0 = lab_pset_run(ps, p, 0);
            int eval = isfinite(j0->acc[st]);
            fprintf(fp, "%d %.9g %.9g %.9g %d %.9g %d %d %.6f %.6f %.6f %.6f %.9g %.9g "
                        "%.9g %d\n", st + 1,
                    nf == S ? lsum / S : NAN, nf ? lmin : NAN, nf ? lmax : NAN, nf,
                    (double)j0->scale[st], j0->skip[st], skipped,
                    nl ? lostm / nl : NAN, eval ? asum / S : NAN, eval ? amin : NAN,
                    eval ? amax : NAN, nr ? exp(lr / nr) : NAN, nr ? rmin : NAN,
                    nr ? rmax : NAN, nr);
        }
    }
    return lab_data_end(L, fp);
}

static int pset_write_seeds(lab_ctx *L, const lab_pset *ps, const lab_family *F)
{
    const int S = ps->seeds;
    char name[96], plist[512] = "policies:";
    for (int p = 0; p < ps->npol; p++) {
        size_t o = strlen(plist);
        snprintf(plist + o, sizeof plist - o, " %s", ps->names[p]);
    }
    snprintf(name, sizeof name, "training_%s_seeds.dat", ps->setting);
    FILE *fp = lab_data_begin(L, name, "final results per policy and seed", plist,
                              "setting=%s seeds=%d (%llu..%llu)", ps->setting,
                              S, (unsigned long long)L->seed,
                              (unsigned long long)(L->seed + (uint64_t)S - 1));
    if (!fp)
        return -1;
    fprintf(fp, "# block 0: one row per policy and seed\n"
                "# columns: policy_index policy seed test_correct n_test n_train "
                "final_loss first_nonfinite_step (0: none) skipped_steps final_scale "
                "updates lost_updates (before any non-finite loss) w_total w_zero "
                "w_underflow a_total a_zero a_underflow (gradient counts over every "
                "step and layer; underflow: rounded into the compute format, "
                "binary16 as a what-if for binary32) hash (lab_run_hash: FNV-1a of "
                "every step's loss and the correct count, hex) acc_diff (test "
                "accuracy minus binary32's in the same seed, points) step1_updates "
                "step1_v_zero (Adam: v == 0 while m != 0 after step 1) "
                "step1_max_abs_dw acc_outputs acc_differ acc_ulps acc_max_ulps "
                "acc_nonfinite acc_zero (the products' outputs against binary32 "
                "accumulation rounded once: amp_accum_stats; 0 for binary32 "
                "accumulation)\n");
    for (int p = 0; p < ps->npol; p++)
        for (int k = 0; k < S; k++) {
            const lab_run *j = lab_pset_run(ps, p, k);
            const amp_accum_stats *a = &j->accs;
            fprintf(fp, "%d %s %llu %ld %ld %ld %.9g %d %d %.9g %llu %llu %llu %llu %llu "
                        "%llu %llu %llu %016llx %.9g %llu %llu %.9g %llu %llu %llu %llu "
                        "%llu %llu\n", p, ps->names[p],
                    (unsigned long long)j->c.seed, j->correct, j->n_test, j->n_train,
                    pn(j->loss_final), j->first_nonfinite, j->skipped, j->scale_final,
                    (unsigned long long)j->upd, (unsigned long long)j->lost,
                    (unsigned long long)j->w.total, (unsigned long long)j->w.zero_fp32,
                    (unsigned long long)j->w.underflow, (unsigned long long)j->a.total,
                    (unsigned long long)j->a.zero_fp32, (unsigned long long)j->a.underflow,
                    (unsigned long long)j->hash, ps->st[p].acc[k] - ps->st[0].acc[k],
                    (unsigned long long)j->upd1, (unsigned long long)j->v_zero1,
                    pn(j->max_dw1), (unsigned long long)a->outputs,
                    (unsigned long long)a->differ, (unsigned long long)a->ulps,
                    (unsigned long long)a->max_ulps, (unsigned long long)a->nonfinite,
                    (unsigned long long)a->zero);
        }
    fprintf(fp, "\n\n# block 1: per policy, test accuracy in %% over the seeds\n"
                "# columns: policy_index policy n mean sd min max\n");
    for (int p = 0; p < ps->npol; p++)
        fprintf(fp, "%d %s %d %.6f %.6f %.6f %.6f\n", p, ps->names[p], S,
                ps->st[p].acc_m, ps->st[p].acc_s, ps->st[p].acc_min, ps->st[p].acc_max);
    fprintf(fp, "\n\n# block 2: per policy, its group (the first policy bit-identical "
                "to it in every seed) and its accuracy comparison with binary32 "
                "(the group's; the section's tests file has them all)\n"
                "# columns: policy_index policy group_index d_mean d_half95 verdict\n");
    for (int p = 0; p < ps->npol; p++) {
        const lab_cmp *c = lab_family_get(F, ps->cmp[ps->rep[p]]);
        fprintf(fp, "%d %s %d %.9g %.9g %s\n", p, ps->names[p], ps->rep[p],
                c ? c->t.mean : 0.0, c ? c->t.half95 : 0.0,
                !c ? (ps->rep[p] == 0 ? "reference" : "bit-identical")
                   : c->verdict == LAB_V_NOTSHOWN ? "not-shown"
                                                 : lab_verdict_word(c->verdict));
    }
    fprintf(fp, "\n\n# block 3: what each policy does\n"
                "# columns: policy compute accumulation weights master state "
                "update_rounding loss_scaling\n");
    for (int p = 0; p < ps->npol; p++) {
        char w[256];
        lab_policy_words(ps->names[p], &lab_pset_run(ps, p, 0)->c.policy, w, sizeof w);
        fprintf(fp, "%s\n", w);
    }
    return lab_data_end(L, fp);
}

int lab_pset_write(lab_ctx *L, const lab_pset *ps, const lab_family *F,
                   const char *params)
{
    return pset_write_curves(L, ps, params) || pset_write_seeds(L, ps, F) ? -1 : 0;
}

void lab_pset_say_table(lab_ctx *L, const lab_pset *ps, const lab_family *F,
                        const char *params)
{
    lab_say(L, "**Setting %s** (%s; data_seed is the first of the %d seeds):\n\n"
               "| policy | final loss | test accuracy %% (min–max) | vs binary32 | "
               "skipped steps | final scale | updates lost %% | w-grad zero | "
               "w-grad flushed | a-grad zero | a-grad flushed |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n",
            ps->setting, params, ps->seeds);
    for (int p = 0; p < ps->npol; p++) {
        if (ps->rep[p] != p)
            continue;
        const lab_pstats *x = &ps->st[p];
        char loss[64], scale[80], gname[600];
        lab_pset_group_name(ps, p, gname, sizeof gname);
        if (x->diverged)
            snprintf(loss, sizeof loss, "diverged (%d of %d seeds)", x->diverged,
                     ps->seeds);
        else
            snprintf(loss, sizeof loss, "%.4g ± %.2g", x->loss_m, x->loss_s);
        char s1[32], s2[32];
        lab_fmt_scale(s1, sizeof s1, x->scale_min);
        lab_fmt_scale(s2, sizeof s2, x->scale_max);
        if (x->scale_min == x->scale_max)
            snprintf(scale, sizeof scale, "%s", s1);
        else
            snprintf(scale, sizeof scale, "%s–%s", s1, s2);
        char vs[160] = "-";
        if (p)
            lab_cmp_text(lab_family_get(F, ps->cmp[p]), vs, sizeof vs);
        char lost[48] = "-", wz[24] = "-", wu[24] = "-", az[24] = "-", au[24] = "-";
        /* a diverged policy gets no gradient or update figures; a binary32
         * compute format rounds nothing into binary16: nothing flushes */
        int b32 = amp_format_is_f32(lab_pset_run(ps, p, 0)->c.policy.compute);
        if (!x->diverged) {
            snprintf(lost, sizeof lost, "%.2f ± %.2f", x->lost_m, x->lost_s);
            snprintf(wz, sizeof wz, "%.2f%%", x->wzero);
            snprintf(az, sizeof az, "%.2f%%", x->azero);
            if (!b32) {
                snprintf(wu, sizeof wu, "%.2f%%", x->wuf);
                snprintf(au, sizeof au, "%.2f%%", x->auf);
            }
        }
        lab_say(L, "| %s | %s | %.2f ± %.2f (%.2f–%.2f) | %s | %d | %s | %s | %s | %s | "
                   "%s | %s |\n", gname, loss, x->acc_m, x->acc_s, x->acc_min, x->acc_max,
                vs, x->skipped, scale, lost, wz, wu, az, au);
    }
    lab_say(L, "\n*Final loss, test accuracy, updates lost*: mean ± sample standard "
               "deviation over the %d seeds.  *vs binary32*: the verdict of the rule "
               "above, with mean(d) ± the half-width of its 95%% interval and the "
               "Holm-adjusted p-value that decided it.  Policies joined by = are "
               "bit-identical in every seed and share a row.  *Skipped steps*: summed "
               "over the seeds.  *Zero*: gradient values exactly zero as computed "
               "(where the layer's input is zero for the whole batch, or an upstream "
               "gradient was flushed); *flushed*: nonzero values that become zero "
               "when rounded into the compute format at the scale used (- for a "
               "binary32 compute format, which flushes nothing here); both are "
               "fractions of all gradient values over every step and layer, averaged "
               "over the seeds.  A policy whose loss turned non-finite gets - for "
               "its updates and gradients.\n\n", ps->seeds);
}

int lab_pset_alloc(lab_ctx *L, lab_pset *ps)
{
    ps->runs = calloc((size_t)ps->npol * (size_t)ps->seeds, sizeof *ps->runs);
    if (!ps->runs) {
        snprintf(L->err, sizeof L->err, "%s: out of memory", ps->setting);
        return -1;
    }
    return 0;
}

int lab_pset_exec(lab_ctx *L, lab_pset *ps)
{
    size_t n = (size_t)ps->npol * (size_t)ps->seeds;
    if (lab_parallel(L, n, lab_run_exec, ps->runs))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (ps->runs[i].rc) {
            snprintf(L->err, sizeof L->err, "%s: training %s (seed %llu): %s",
                     ps->setting, ps->runs[i].name,
                     (unsigned long long)ps->runs[i].c.seed, ps->runs[i].err);
            return -1;
        }
    return 0;
}

void lab_pset_free(lab_pset *ps)
{
    size_t n = (size_t)ps->npol * (size_t)ps->seeds;
    for (size_t i = 0; ps->runs && i < n; i++)
        lab_run_free(&ps->runs[i]);
    free(ps->runs);
    ps->runs = NULL;
}

void lab_say_policies(lab_ctx *L, const char *intro, const lab_pset *const *sets,
                      int nsets)
{
    lab_say(L, "%s\n\n| policy | matrix products and activations | products "
               "accumulated in | weights | optimizer state | loss scaling |\n"
               "|---|---|---|---|---|---|\n", intro);
    const char *seen[64];
    int ns = 0;
    for (int s = 0; s < nsets; s++)
        for (int p = 0; p < sets[s]->npol; p++) {
            const char *nm = sets[s]->names[p];
            int dup = 0;
            for (int i = 0; i < ns; i++)
                dup |= !strcmp(seen[i], nm);
            if (dup || ns == 64)
                continue;
            seen[ns++] = nm;
            char row[700];
            lab_say(L, "%s", lab_policy_row(nm, &lab_pset_run(sets[s], p, 0)->c.policy,
                                            row, sizeof row));
        }
    lab_say(L, "\n");
}

int lab_family_write_file(lab_ctx *L, const char *name, const lab_family *F,
                          int seeds)
{
    FILE *fp = lab_data_begin(L, name, "the section's comparisons (Holm families)",
                              "test accuracy in points; lost updates in points",
                              "seeds=%d margin=%g", seeds, LAB_EQUIV_MARGIN);
    if (!fp)
        return -1;
    lab_family_write(F, fp);
    return lab_data_end(L, fp);
}
