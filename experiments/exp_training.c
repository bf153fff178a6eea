/* exp_training.c — experiment 6 (being written). */
#include "lab.h"
int lab_exp_training(lab_ctx *L)
{
    snprintf(L->err, sizeof L->err, "not written yet");
    return -1;
}
