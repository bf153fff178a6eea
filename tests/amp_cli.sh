#!/bin/bash
# fplab train / fplab scaler: exit codes, messages, and byte-for-byte
# reproducibility of --out from the seed.  Counts its checks.
fplab=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checks=0 fails=0
check() {   # check NAME COND...
    local name=$1; shift
    checks=$((checks + 1))
    if ! "$@"; then echo "FAIL: $name"; fails=$((fails + 1)); fi
}
run_rc() { "$@" >"$work/out" 2>"$work/err"; echo $? >"$work/rc"; }
rc() { [ "$(cat "$work/rc")" = "$1" ]; }
err_has() { grep -q -- "$1" "$work/err"; }
out_has() { grep -q -- "$1" "$work/out"; }

# scaler: hand-worked torch sequence, interval 2
printf '0\n0\n1\n0\n' >"$work/flags"
run_rc "$fplab" scaler --policy torch --interval 2 --init-scale 8 "$work/flags"
check scaler_rc rc 0
check scaler_lines diff <(grep -v '^#' "$work/out") <(printf '0 8 0 8\n1 8 0 16\n2 16 1 8\n3 8 0 8\n')
printf '0\n2\n' | run_rc "$fplab" scaler --policy apex
check scaler_bad_rc rc 2
check scaler_bad_msg err_has "line 2: '2' is not an overflow flag"
run_rc "$fplab" scaler --policy nope
check scaler_bad_policy rc 2

# train: reproducible bytes, errors
args=(--data "$data" --depth 2 --width 16 --batch 32 --steps 20 --seed 3 --measure)
run_rc "$fplab" train --policy fp16-torch "${args[@]}" --out "$work/a.dat"
check train_rc rc 0
check train_summary out_has "summary: final loss"
run_rc "$fplab" train --policy fp16-torch "${args[@]}" --out "$work/b.dat"
check train_same_bytes cmp -s "$work/a.dat" "$work/b.dat"
check train_header grep -q '^# seed 3 policy fp16-torch compute binary16' "$work/a.dat"
check train_rows test "$(grep -vc '^#' "$work/a.dat")" = 20
run_rc "$fplab" train --policy fp17 --data "$data"
check train_bad_policy rc 2
check train_bad_policy_msg err_has "unknown policy 'fp17'"
printf '1,2,3\n4,x,0\n' >"$work/bad.csv"
run_rc "$fplab" train --data "$work/bad.csv"
check train_bad_data rc 2
check train_bad_data_msg err_has "bad.csv:2: field 2: 'x' is not a number"
run_rc "$fplab" train --data "$data" --batch 30 --ranks 4
check train_bad_ranks rc 2
# --loss-weight: recorded in the header; with lr/W the same binary32 curve
# (a power of two W multiplies exactly); bad values name the option
lw=(--policy fp32 --data "$data" --depth 2 --width 16 --batch 32 --steps 20 --seed 3)
run_rc "$fplab" train "${lw[@]}" --out "$work/w1.dat"
check lw_ref_rc rc 0
run_rc "$fplab" train "${lw[@]}" --loss-weight 0x1p-12 --lr 204.8 --out "$work/w2.dat"
check lw_rc rc 0
check lw_header grep -q ' loss_weight 0.000244140625 ' "$work/w2.dat"
check lw_same_curve diff <(grep -v '^#' "$work/w1.dat") <(grep -v '^#' "$work/w2.dat")
run_rc "$fplab" train --data "$data" --loss-weight 0
check lw_zero_rc rc 2
check lw_zero_msg err_has "--loss-weight: '0' must be positive"
run_rc "$fplab" train --data "$data" --loss-weight x1
check lw_nan_rc rc 2
check lw_nan_msg err_has "--loss-weight: 'x1' is not a number"

# one name for the growth interval: --growth-interval, with --interval
# (and scaler's --window) the same option
for o in --growth-interval --window; do
    run_rc "$fplab" scaler --policy torch $o 2 --init-scale 8 "$work/flags"
    check "scaler_alias$o" diff <(grep -v '^#' "$work/out") <(printf '0 8 0 8\n1 8 0 16\n2 16 1 8\n3 8 0 8\n')
done
gi=(--data "$data" --depth 2 --width 16 --batch 32 --steps 12 --seed 3)
run_rc "$fplab" train --policy fp16-torch "${gi[@]}" --growth-interval 5 --out "$work/g1.dat"
run_rc "$fplab" train --policy fp16-torch "${gi[@]}" --interval 5 --out "$work/g2.dat"
check train_interval_alias cmp -s "$work/g1.dat" "$work/g2.dat"
# the lab's policy name is a valid --policy: fp16-torch-iN is GradScaler
# with growth interval N
run_rc "$fplab" train --policy fp16-torch-i5 "${gi[@]}" --out "$work/g3.dat"
check train_policy_suffix_rc rc 0
check train_policy_suffix_header grep -q '^# seed 3 policy fp16-torch-i5 .* scaler torch init_scale 65536 interval 5$' "$work/g3.dat"
check train_policy_suffix_same_run diff <(grep -v '^#' "$work/g1.dat") <(grep -v '^#' "$work/g3.dat")
# --dump-grads: the last step's weight gradients as .npy, which hist reads
# (2 layers: 64 x 16 + 16 x 10 = 1184 values), the same bytes again
run_rc "$fplab" train --policy fp32 "${gi[@]}" --dump-grads "$work/g.npy"
check dump_rc rc 0
run_rc "$fplab" hist "$work/g.npy" --format fp16 --out "$work/h"
check dump_read_by_hist out_has "npy f32, shape (1184,), 1184 values"
run_rc "$fplab" train --policy fp32 "${gi[@]}" --dump-grads "$work/g2.npy"
check dump_same_bytes cmp -s "$work/g.npy" "$work/g2.npy"
# and NumPy itself reads it, when there is a python3 with numpy
want=32
py=""
for c in python3 /usr/bin/python3; do
    if command -v "$c" >/dev/null && "$c" -c 'import numpy' 2>/dev/null; then
        py=$c
        break
    fi
done
if [ -n "$py" ]; then
    want=33
    check dump_numpy_loads "$py" -c 'import sys, numpy as np
a = np.load(sys.argv[1])
sys.exit(0 if a.dtype == np.float32 and a.shape == (1184,) and np.isfinite(a).all() and (a != 0).any() else 1)' "$work/g.npy"
else
    echo "note: no python3 with numpy: the .npy was read by fplab's reader only"
fi

echo "amp_cli: $checks checks, $fails failed"
[ "$checks" = "$want" ] && [ "$fails" = 0 ]
