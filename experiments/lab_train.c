/* lab_train.c — training settings shared by experiments 3 and 6. */
#include "lab_train.h"

#include <stdio.h>
#include <string.h>

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
    snprintf(buf, len, "depth=%d width=%d act=%s optimizer=%s lr=%g batch=%d "
             "loss=%s%s init_gain=%g steps=%d data_seed=%llu", c->depth, c->width,
             amp_act_name(c->activation), amp_opt_name(c->optimizer), c->lr,
             c->batch, c->loss_reduction == AMP_LOSS_SUM ? "sum" : "mean", lw,
             c->init_gain, c->steps, (unsigned long long)c->seed);
}
