#!/usr/bin/env bash
# reveal_cli.sh — `fplab reveal` on kernels of known models: `fplab ref`
# itself run as a black-box command with stated models.  reveal must find
# a model with the stated keys, write it, and the model file must replay
# the kernel through `fplab ref --model` on fresh inputs of another seed.
# Then bad kernels: one that fails, one that hangs past --timeout (its
# whole process group killed), wrong shapes and dtypes, no output, a
# nondeterministic one, and a model file that must stay untouched.
#
#   reveal_cli.sh FPLAB NPYDIR WORKDIR [VALIDATE]
# NPYDIR: the committed .npy fixtures (tests/data/npy).  VALIDATE:
# validation cases per reveal (default 5000; the `long` test passes
# 100000).
set -u
FPLAB=${1:?usage: $0 FPLAB NPYDIR WORKDIR [VALIDATE]}
N=${2:?usage: $0 FPLAB NPYDIR WORKDIR [VALIDATE]}
FPLAB=$(cd "$(dirname "$FPLAB")" && pwd)/$(basename "$FPLAB")
N=$(cd "$N" && pwd)
W=${3:?usage: $0 FPLAB NPYDIR WORKDIR [VALIDATE]}
VAL=${4:-5000}
rm -rf "$W"
mkdir -p "$W" || exit 2
cd "$W" || exit 2
export TMPDIR="$W/tmp"
mkdir -p "$TMPDIR"

fails=0
cases=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- ground truth: fplab ref as the kernel --------------------------------
# name | reveal op and shape | dtype | kernel options | keys the model must have
truth() {
    local name=$1 shape=$2 dtype=$3 kopts=$4 keys=$5 ins out f0=$fails
    cases=$((cases + 1))
    set -- $shape
    local op=$1
    if [ "$op" = sum ]; then ins="{in}"; else ins="{in} {in2}"; fi
    local fmt=""
    [ "$dtype" = bfloat16 ] && fmt="--in-format bf16"
    rm -f "$name.model"
    # shellcheck disable=SC2086
    "$FPLAB" reveal $shape --dtype "$dtype" --model-out "$name.model" \
        --validate "$VAL" -- "$FPLAB" ref $op $ins $fmt $kopts --out '{out}' \
        > "$name.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name: exit $rc"
        tail -5 "$name.log"
        return
    fi
    local line
    line=$(grep -v '^#' "$name.model")
    for k in $keys; do
        case " $line " in
            *" $k "*) ;;
            *) fail "$name: model lacks '$k': $line" ;;
        esac
    done
    grep -q "^validation: \([0-9]*\) of \1 cases bit-identical" "$name.log" ||
        fail "$name: no full validation line"
    grep -q "^kernel calls: [0-9]* (" "$name.log" || fail "$name: no call count"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$name: temporary files left: $(ls "$TMPDIR")"
    [ "$fails" -eq "$f0" ] && echo "ok   $name: $(grep '^kernel calls' "$name.log")"
}

truth seq     "sum --n 64"   float32  "--order sequential" \
      "order=sequential acc=binary32 acc-rm=rne epilogue=last"
truth pw8     "sum --n 200"  float32  "--order pairwise:8" "order=pairwise:8"
truth lanes   "sum --n 256"  float32  "--order lanes:16:halving" \
      "order=lanes:16:halving"
truth blocked "sum --n 128"  bfloat16 "--order blocked:32 --out-format bf16" \
      "in=bfloat16 acc=binary32 order=blocked:32 out=bfloat16 out-rm=rne"
truth fp16acc "sum --n 100"  float16  "--acc binary16 --epilogue init" \
      "acc=binary16 epilogue=init out=binary16"
truth fused   "dot --n 96"   float32  "--fma --order lanes:8" \
      "products=fused order=lanes:8:seq"
truth gemmseq "gemm --m 16 --n 16 --k 48 --batch 8" float32 "--epilogue init" \
      "order=sequential epilogue=init products=rounded"
truth h100    "gemm --m 32 --n 32 --k 64 --batch 16" float16 "--tc h100-fp16" \
      "tc=h100-fp16(block:16,neab:2,align:trunc,norm:once,rm:rtz) acc=binary32"
truth exact   "sum --n 50"   float32  "--exact" "order=exact out-rm=rne"

# The written model file is read by `fplab ref --model` and gives the
# kernel's own output on another input (the committed fixture, n = 4).
cases=$((cases + 1))
if "$FPLAB" reveal sum --n 4 --dtype float32 --model-out replay.model \
       --validate 2000 --seed 99 -- "$FPLAB" ref sum '{in}' --order reverse \
       --out '{out}' > replay.log 2>&1 &&
   "$FPLAB" ref sum "$N/c_f4_2d.npy" --model replay.model --out a.npy > /dev/null &&
   "$FPLAB" ref sum "$N/c_f4_2d.npy" --order reverse --out b.npy > /dev/null &&
   cmp -s a.npy b.npy && grep -q ' order=reverse ' replay.model; then
    echo "ok   replay: the model file reproduces the kernel through fplab ref"
else
    fail "replay: $(tail -2 replay.log)"
fi

# ---- bad kernels ------------------------------------------------------------
bad() {
    local name=$1 want=$2 frag=$3
    shift 3
    cases=$((cases + 1))
    printf 'keep me\n' > keep.model
    local t0 rc f0=$fails
    t0=$(date +%s)
    "$FPLAB" reveal "$@" > "$name.log" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        fail "$name: exit $rc, want $want"
        tail -5 "$name.log"
    fi
    grep -q -- "$frag" "$name.log" || { fail "$name: no '$frag' in the output"; tail -3 "$name.log"; }
    [ "$(cat keep.model)" = "keep me" ] || fail "$name: the model file was touched"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$name: temporary files left: $(ls "$TMPDIR")"
    [ $(( $(date +%s) - t0 )) -le 20 ] || fail "$name: took $(( $(date +%s) - t0 )) s"
    [ "$fails" -eq "$f0" ] && echo "ok   $name: exit $rc"
}
S="sum --n 16 --dtype float32 --model-out keep.model --validate 500"
bad fails 2 "the command exited with status 3" $S -- sh -c 'echo broken >&2; exit 3' '{in}' '{out}'
bad fails-stderr 2 "broken" $S -- sh -c 'echo broken >&2; exit 3' '{in}' '{out}'
bad missing 2 "cannot run 'fplab-no-such-kernel'" $S -- fplab-no-such-kernel '{in}' '{out}'
# a hang: the whole process group goes (a background sleep included)
bad hangs 2 "ran past --timeout 1 s: its process group was killed" \
    $S --timeout 1 -- sh -c 'sleep 57.25 & sleep 57.25; : {in} {out}'
sleep 0.3
if ps -eo args | grep -q '^sleep 57.25'; then
    fail "hangs: a sleep of the kernel's group survived"
fi
bad noout 2 "wrote no {out} file" $S -- sh -c 'true' '{in}' '{out}'
bad shape 2 "its output has shape (3, 4), expected" \
    $S -- sh -c 'cp "$0" "$2"' "$N/c_f4_2d.npy" '{in}' '{out}'
bad shape-in 2 "its output has shape" $S -- cp '{in}' '{out}'
bad dtype 2 "its output has dtype int32" \
    $S -- sh -c 'cp "$0" "$2"' "$N/bad_dtype_i4.npy" '{in}' '{out}'
bad garbage 2 "its output:" $S -- sh -c 'echo nonsense > "$1"' '{in}' '{out}'
# nondeterministic: the second call sums in another order
bad nondet 1 "nondeterministic" $S -- sh -c \
    'if [ -e "$0.state" ]; then o=reverse; else o=sequential; : > "$0.state"; fi; exec "$1" ref sum "$2" --order $o --out "$3"' \
    "$W/nd" "$FPLAB" '{in}' '{out}'
rm -f "$W/nd.state"
# usage errors never run the kernel
bad no-out-placeholder 2 "must name its input {in} and its output {out}" $S -- cat '{in}'
bad no-in2 2 "must name {in2} too" dot --n 8 --dtype float32 --model-out keep.model -- cat '{in}' '{out}'
bad no-model-out 2 "need --model-out" sum --n 8 --dtype float32 -- cat '{in}' '{out}'
bad bad-dtype 2 "--dtype: 'float8' is not" sum --n 8 --dtype float8 --model-out keep.model -- cat '{in}' '{out}'
bad gemm-shape 2 "gemm needs --m M and --k K" gemm --n 8 --dtype float32 --model-out keep.model -- cat '{in}' '{in2}' '{out}'
bad too-few 2 "at least 3 terms" sum --n 2 --dtype float32 --model-out keep.model -- cat '{in}' '{out}'

echo "$cases cases, $fails failures"
[ "$cases" -eq 26 ] || { echo "FAIL: ran $cases cases, expected 26"; exit 1; }
[ "$fails" -eq 0 ]
