# plots/training_tiny.gp — experiment 6: training curves per policy (tiny setting)
# Keep 'names' in step with exp_training.c's policy list for this setting.
STEM = "training_tiny"; W = 1300; H = 1000
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
load _d . "training_labels.gp"
SETTING = "tiny"
names = "fp32 fp16 fp16-static:1024 fp16-torch o2 o3 bf16"
NC = 4
RIGHT = "scale"
SWEEP = 1
load _d . "training_common.gp"
