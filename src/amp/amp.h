/* amp.h — the mixed-precision simulator: everything in one include. */
#ifndef FPLAB_AMP_H
#define FPLAB_AMP_H
#include "amp_data.h"
#include "amp_hist.h"
#include "amp_ops.h"
#include "amp_scaler.h"
#include "amp_train.h"
#endif
