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

#endif
