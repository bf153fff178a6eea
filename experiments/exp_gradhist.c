/* exp_gradhist.c — experiment 3 (being written). */
#include "lab.h"
int lab_exp_gradhist(lab_ctx *L)
{
    snprintf(L->err, sizeof L->err, "not written yet");
    return -1;
}
