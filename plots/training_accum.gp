# plots/training_accum.gp — experiment 8: accumulation in training (training_common.gp's layout)
# Keep 'names' in step with the experiment's policy list (the lab's audit,
# tests/lab_audit.py, checks that they agree).
STEM = "training_accum"; W = 1300; H = 1000
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
load _d . "training_labels.gp"
SETTING = "accum"
names = "fp32 fp16 fp16-acc16 fp16-torch fp16-torch-acc16 fp16-torch-tc32 fp16-torch-tc16"
NC = 3
RIGHT = "scale"
SWEEP = 0
load _d . "training_common.gp"
