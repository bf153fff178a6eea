/*
 * amp_policy.c — named precision policies (PyTorch autocast, GradScaler,
 * apex opt levels).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp_train.h"

static void set(amp_policy *p, const char *name, const fl_format *compute,
                const fl_format *param, int master, int scaler)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->compute = compute;
    p->param = param;
    p->master = master;
    p->accum.kind = AMP_ACC_F32;
    amp_scaler_config_default(&p->scaler, scaler);
}

static int parse_base(amp_policy *p, const char *spec, char *err,
                      size_t errlen);

/* The fp8 and mx policies (amp_train.h): binary32 everywhere but the GEMM
 * inputs, no loss scaling.  Sources: Transformer Engine's recipes
 * (DelayedScaling: amax_history_len 1024, amax_compute_algo "max", margin
 * 0, Format.HYBRID = E4M3 forward, E5M2 backward; Float8CurrentScaling;
 * MXFP8BlockScaling: E4M3 for every tensor, blocks of 32, E8M0 scales from
 * amax * (1 / 448) rounded up — fplab_scale's rule rceil). */
static int set_gq(amp_policy *p, const char *spec, char *err, size_t errlen)
{
    const fl_format *f = &fl_binary32;
    set(p, spec, f, f, 0, AMP_SCALER_NONE);
    amp_gemm_quant *g = &p->gq;
    const char *fwd, *bwd;
    if (!strcmp(spec, "mxfp8")) {
        g->kind = AMP_GQ_BLOCK;
        fwd = bwd = "mxfp8-e4m3:rceil";
    } else {
        g->kind = strstr(spec, "-delayed") ? AMP_GQ_DELAYED : AMP_GQ_CURRENT;
        fwd = fl_scale_hybrid(0);
        bwd = strstr(spec, "-hybrid") ? fl_scale_hybrid(1) : fl_scale_hybrid(0);
    }
    g->history = 1024;
    g->algo = FL_DS_MAX;
    g->margin = 0.0f;
    char e2[160];
    if (fl_scale_scheme_parse(&g->fwd, fwd, e2, sizeof e2) ||
        fl_scale_scheme_parse(&g->bwd, bwd, e2, sizeof e2)) {
        snprintf(err, errlen, "policy '%s': %s", spec, e2);
        return -1;
    }
    return 0;
}

/* "BASE-iN": a dynamic-scaler policy with growth interval N (1..2^31-1).
 * Returns 0 (parsed), -1 (err filled) or 1 (spec is not of that form). */
static int parse_interval_suffix(amp_policy *p, const char *spec, char *err,
                                 size_t errlen)
{
    const char *dash = strrchr(spec, '-');
    char base[48];
    size_t blen = dash ? (size_t)(dash - spec) : 0;
    if (!dash || dash[1] != 'i' || blen == 0 || blen >= sizeof base ||
        !strncmp(spec, "fp16-static:", 12))
        return 1;                              /* not of that form */
    const char *d = dash + 2;
    long long n = 0;
    if (*d < '0' || *d > '9')
        return 1;
    for (; *d >= '0' && *d <= '9'; d++)
        if ((n = n * 10 + (*d - '0')) > 2147483647LL)
            break;
    if (*d) {
        if (*d >= '0' && *d <= '9')
            snprintf(err, errlen, "policy '%s': growth interval above "
                     "2147483647", spec);
        return *d >= '0' && *d <= '9' ? -1 : 1;
    }
    memcpy(base, spec, blen);
    base[blen] = '\0';
    if (parse_base(p, base, err, errlen))
        return 1;                              /* unknown base: not ours */
    if (p->scaler.kind != AMP_SCALER_TORCH && p->scaler.kind != AMP_SCALER_APEX) {
        snprintf(err, errlen, "policy '%s': -iN sets the growth interval of a "
                 "dynamic loss scaler, and %s has none (fp16-torch fp16-apex "
                 "o1 o2 do)", spec, base);
        return -1;
    }
    if (n < 1) {
        snprintf(err, errlen, "policy '%s': the growth interval must be at "
                 "least 1", spec);
        return -1;
    }
    p->scaler.growth_interval = (int32_t)n;
    snprintf(p->name, sizeof p->name, "%s", spec);
    return 0;
}

int amp_policy_parse(amp_policy *p, const char *spec, char *err,
                     size_t errlen)
{
    int sfx = parse_interval_suffix(p, spec, err, errlen);
    return sfx <= 0 ? sfx : parse_base(p, spec, err, errlen);
}

static int parse_base(amp_policy *p, const char *spec, char *err,
                      size_t errlen)
{
    const fl_format *h = &fl_binary16, *f = &fl_binary32;
    if (!strcmp(spec, "fp32") || !strcmp(spec, "o0"))
        set(p, spec, f, f, 0, AMP_SCALER_NONE);
    else if (!strcmp(spec, "fp16"))
        set(p, spec, h, f, 0, AMP_SCALER_NONE);
    else if (!strcmp(spec, "fp16-torch"))
        set(p, spec, h, f, 0, AMP_SCALER_TORCH);
    else if (!strcmp(spec, "fp16-apex") || !strcmp(spec, "o1"))
        set(p, spec, h, f, 0, AMP_SCALER_APEX);
    else if (!strcmp(spec, "o2"))
        set(p, spec, h, h, 1, AMP_SCALER_APEX);
    else if (!strcmp(spec, "o3"))
        set(p, spec, h, h, 0, AMP_SCALER_NONE);
    else if (!strcmp(spec, "bf16"))
        set(p, spec, &fl_bfloat16, f, 0, AMP_SCALER_NONE);
    else if (!strcmp(spec, "bf16-pure"))
        set(p, spec, &fl_bfloat16, &fl_bfloat16, 0, AMP_SCALER_NONE);
    else if (!strcmp(spec, "fp8-hybrid-delayed") || !strcmp(spec, "fp8-hybrid-current") ||
             !strcmp(spec, "fp8-e4m3-delayed") || !strcmp(spec, "fp8-e4m3-current") ||
             !strcmp(spec, "mxfp8"))
        return set_gq(p, spec, err, errlen);
    else if (!strncmp(spec, "fp16-static:", 12)) {
        char *end;
        double s = strtod(spec + 12, &end);
        if (end == spec + 12 || *end || !(s > 0) || !isfinite((float)s)) {
            snprintf(err, errlen, "policy '%s': the static scale must be a "
                     "positive finite number (e.g. fp16-static:1024)", spec);
            return -1;
        }
        set(p, spec, h, f, 0, AMP_SCALER_STATIC);
        p->scaler.init_scale = s;
    } else {
        snprintf(err, errlen, "unknown policy '%s' (fp32 fp16 fp16-static:S "
                 "fp16-torch fp16-apex o0 o1 o2 o3 bf16 bf16-pure "
                 "fp8-hybrid-delayed fp8-hybrid-current fp8-e4m3-delayed "
                 "fp8-e4m3-current mxfp8; -iN after a dynamic-scaler policy "
                 "sets its growth interval)", spec);
        return -1;
    }
    return 0;
}

static const char *const act_names[] = {"relu", "tanh", "gelu"};
static const char *const opt_names[] = {"sgd", "adam"};

/* The index of s among the n names, or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int amp_act_parse(const char *s)
{
    return name_index(act_names, 3, s);
}
const char *amp_act_name(int a) { return (a >= 0 && a < 3) ? act_names[a] : "?"; }

int amp_opt_parse(const char *s)
{
    return name_index(opt_names, 2, s);
}
const char *amp_opt_name(int o) { return (o >= 0 && o < 2) ? opt_names[o] : "?"; }
