# plots/training_default.gp — experiment 6: training curves per policy (default setting)
# Keep 'names' in step with exp_training.c's policy list for this setting.
STEM = "training_default"; W = 1300; H = 1000
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
load _d . "training_labels.gp"
SETTING = "default"
names = "fp32 fp16 fp16-static:1024 fp16-torch fp16-torch-i50 o2 o3 bf16"
NC = 4
RIGHT = "scale"
SWEEP = 0
load _d . "training_common.gp"
