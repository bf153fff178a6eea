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

int amp_policy_parse(amp_policy *p, const char *spec, char *err,
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
                 "fp16-torch fp16-apex o0 o1 o2 o3 bf16 bf16-pure)", spec);
        return -1;
    }
    return 0;
}

static const char *const act_names[] = {"relu", "tanh", "gelu"};
static const char *const opt_names[] = {"sgd", "adam"};

int amp_act_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, act_names[i]))
            return i;
    return -1;
}
const char *amp_act_name(int a) { return (a >= 0 && a < 3) ? act_names[a] : "?"; }

int amp_opt_parse(const char *s)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(s, opt_names[i]))
            return i;
    return -1;
}
const char *amp_opt_name(int o) { return (o >= 0 && o < 2) ? opt_names[o] : "?"; }
