# plots/training_adam.gp — experiment 6: training curves per policy (adam setting)
# Keep 'names' in step with exp_training.c's policy list for this setting.
STEM = "training_adam"; W = 1300; H = 1000
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
load _d . "training_labels.gp"
SETTING = "adam"
names = "fp32 fp16 o2 o3 o3-state32 bf16 bf16-pure"
NC = 3
RIGHT = "lost"
SWEEP = 0
load _d . "training_common.gp"
