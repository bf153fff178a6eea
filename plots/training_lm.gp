# plots/training_lm.gp — experiment 10: the character language model (training_common.gp's layout)
# Keep 'names' in step with the experiment's policy list (the lab's audit,
# tests/lab_audit.py, checks that they agree).
STEM = "training_lm"; W = 1300; H = 1000
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
load _d . "training_labels.gp"
SETTING = "lm"
names = "fp32 fp16 fp16-torch bf16"
NC = 3
RIGHT = "scale"
SWEEP = 0
load _d . "training_common.gp"
