# plots/training_sr.gp — experiment 9: stochastic rounding in training (training_common.gp's layout)
# Keep 'names' in step with the experiment's policy list (the lab's audit,
# tests/lab_audit.py, checks that they agree).
STEM = "training_sr"; W = 1300; H = 1000
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
load _d . "training_labels.gp"
SETTING = "sr"
names = "fp32 bf16-pure bf16-pure-sr fp16-pure fp16-pure-sr"
NC = 2
RIGHT = "lost"
SWEEP = 0
load _d . "training_common.gp"
