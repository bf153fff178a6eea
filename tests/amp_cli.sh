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

echo "amp_cli: $checks checks, $fails failed"
[ "$checks" = 23 ] && [ "$fails" = 0 ]
