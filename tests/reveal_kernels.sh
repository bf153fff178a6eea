#!/usr/bin/env bash
# reveal_kernels.sh — kernels that stay up, and the model's NaN and in=
# keys end to end:
#  - `fplab reveal --serve`: a server (a shell loop around `fplab ref`, a
#    known model) started once for every call; servers that hang, crash,
#    answer garbage or an error, write no or a wrong output;
#  - `fplab reveal --kernel-lib`: the test library kernel_lib.so (a sum
#    and a GEMM of known models), 2-D-only and batched GEMMs, and kernel
#    functions that fail, hang, crash, state no format or bad bits;
#  - `fplab ref gemm` of uint16 bit patterns reading in=bfloat16 from the
#    model file; `fplab compare` with a reference whose model is nan=any.
# Each bad kernel: the exit status, the message, the model file untouched,
# no temporary file and no process of the kernel left.
#
#   reveal_kernels.sh FPLAB KERNEL_LIB.so WORKDIR
set -u
FPLAB=${1:?usage: $0 FPLAB KERNEL_LIB WORKDIR}
LIB=${2:?usage: $0 FPLAB KERNEL_LIB WORKDIR}
W=${3:?usage: $0 FPLAB KERNEL_LIB WORKDIR}
FPLAB=$(cd "$(dirname "$FPLAB")" && pwd)/$(basename "$FPLAB")
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
NPY=$(cd "$(dirname "$0")/data/npy" && pwd)
rm -rf "$W"
mkdir -p "$W" || exit 2
cd "$W" || exit 2
export TMPDIR="$W/tmp"
mkdir -p "$TMPDIR"

fails=0
cases=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A server: per request line `call I OP DTYPE IN IN2 OUT`, fplab ref in the
# model "$1" (order and options) computes OUT; it logs its start and pid.
cat > server.sh <<'EOF'
#!/usr/bin/env bash
# server.sh FPLAB MODE ORDER...: MODE ok | hang | crash | garbage | error |
# noout | shape | quitcrash
fplab=$1 mode=$2
shift 2
echo $$ >> "$SERVER_PIDS"
echo started >> "$SERVER_STARTS"
while IFS=$'\t' read -r what idx op dtype in in2 out; do
    [ "$what" = quit ] && exit 0
    case $mode in
        hang) sleep "$HANG_SLEEP" ;;
        crash) echo "server: going down" >&2; kill -SEGV $$ ;;
        garbage) echo "hello there"; continue ;;
        error) echo "error the server cannot do $op"; continue ;;
        noout) echo ok; continue ;;
        shape) cp "$in" "$out"; echo ok; continue ;;
    esac
    ins=("$in")
    [ "$in2" != - ] && ins+=("$in2")
    if "$fplab" ref "$op" "${ins[@]}" "$@" --out "$out" > /dev/null 2>> "$SERVER_LOG"; then
        echo ok
    else
        echo "error fplab ref failed"
    fi
done
EOF
chmod +x server.sh
export SERVER_PIDS="$W/server.pids" SERVER_STARTS="$W/server.starts"
export SERVER_LOG="$W/server.log"
# the hanging server's sleep, its length unique to this run (another
# run of this script on the machine has its own)
export HANG_SLEEP="57.$$"

no_leftovers() {   # name: every server pid gone, no temporary files
    local name=$1
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$name: temporary files left: $(ls "$TMPDIR")"
    if [ -f "$SERVER_PIDS" ]; then
        while read -r p; do
            if kill -0 "$p" 2> /dev/null; then
                fail "$name: server process $p is still running"
                kill -9 "$p" 2> /dev/null
            fi
        done < "$SERVER_PIDS"
    fi
    if ps -eo args | grep -qx "sleep $HANG_SLEEP"; then
        fail "$name: a sleep of the server's group survived"
    fi
}

found() {   # name keys... -- reveal args: exit 0, the model has the keys
    local name=$1 f0=$fails
    shift
    local keys=()
    while [ "$1" != "--" ]; do keys+=("$1"); shift; done
    shift
    cases=$((cases + 1))
    rm -f "$SERVER_PIDS" "$SERVER_STARTS" "$name.model"
    "$FPLAB" reveal "$1" --model-out "$name.model" "${@:2}" > "$name.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name: exit $rc"
        tail -5 "$name.log"
        return
    fi
    local line
    line=$(grep -v '^#' "$name.model")
    for k in "${keys[@]}"; do
        case " $line " in
            *" $k "*) ;;
            *) fail "$name: model lacks '$k': $line" ;;
        esac
    done
    no_leftovers "$name"
    [ "$fails" -eq "$f0" ] && echo "ok   $name: $(grep '^kernel calls' "$name.log")"
}

bad() {   # name exit fragment -- reveal args
    local name=$1 want=$2 frag=$3 f0=$fails t0 rc
    shift 3
    cases=$((cases + 1))
    rm -f "$SERVER_PIDS" "$SERVER_STARTS"
    printf 'keep me\n' > keep.model
    t0=$(date +%s)
    "$FPLAB" reveal "$1" --model-out keep.model "${@:2}" > "$name.log" 2>&1
    rc=$?
    [ $rc -eq "$want" ] || { fail "$name: exit $rc, want $want"; tail -5 "$name.log"; }
    grep -q -- "$frag" "$name.log" || { fail "$name: no '$frag' in the output"; tail -4 "$name.log"; }
    [ "$(cat keep.model)" = "keep me" ] || fail "$name: the model file was touched"
    [ $(( $(date +%s) - t0 )) -le 30 ] || fail "$name: took $(( $(date +%s) - t0 )) s"
    sleep 0.2
    no_leftovers "$name"
    [ "$fails" -eq "$f0" ] && echo "ok   $name: exit $rc"
}

S="sum --n 48 --dtype float32 --validate 2000"

# ---- serve ------------------------------------------------------------------
found serve-sum order=lanes:8:halving -- $S --serve -- ./server.sh "$FPLAB" ok --order lanes:8:halving
cases=$((cases + 1))
starts=$(wc -l < "$SERVER_STARTS")
calls=$(sed -n 's/^kernel calls: \([0-9]*\) .*/\1/p' serve-sum.log)
if [ "$starts" -eq 1 ] && [ "$calls" -ge 5 ]; then
    echo "ok   serve-once: one server answered all $calls calls"
else
    fail "serve-once: $starts server starts for $calls calls"
fi
found serve-gemm order=sequential epilogue=init -- gemm --m 8 --n 8 --k 40 \
    --dtype float32 --validate 2000 --serve -- ./server.sh "$FPLAB" ok --epilogue init
grep -q "^batch: a 3-D call of" serve-gemm.log || fail "serve-gemm: no batch trial"
bad serve-hang 2 "did not answer within --timeout 2 s: its process group was killed" \
    $S --timeout 2 --serve -- ./server.sh "$FPLAB" hang
bad serve-crash 2 "killed by signal 11" $S --serve -- ./server.sh "$FPLAB" crash
bad serve-crash-log 2 "server: going down" $S --serve -- ./server.sh "$FPLAB" crash
bad serve-garbage 2 "answered 'hello there', not 'ok' or 'error MESSAGE'" \
    $S --serve -- ./server.sh "$FPLAB" garbage
bad serve-error 2 "the server answered: error the server cannot do sum" \
    $S --serve -- ./server.sh "$FPLAB" error
bad serve-noout 2 "answered ok but wrote no {out} file" \
    $S --serve -- ./server.sh "$FPLAB" noout
bad serve-shape 2 "its output has shape" $S --serve -- ./server.sh "$FPLAB" shape
bad serve-missing 2 "cannot run 'fplab-no-such-server'" $S --serve -- fplab-no-such-server
bad serve-placeholder 2 "takes no {in}" $S --serve -- ./server.sh '{in}'

# ---- kernel-lib ---------------------------------------------------------------
K="--kernel-lib $LIB:reveal_kernel"
found lib-sum order=lanes:4:pairwise -- $S $K --kernel-arg sum
found lib-gemm order=sequential epilogue=init -- gemm --m 8 --n 8 --k 40 \
    --dtype float32 --validate 2000 $K --kernel-arg gemm
grep -q "^batch: a 3-D call of .* gave matrix 0 bit for bit" lib-gemm.log ||
    fail "lib-gemm: the batch trial did not take"
found lib-gemm2d order=sequential -- gemm --m 8 --n 8 --k 40 --dtype float32 \
    --validate 2000 $K --kernel-arg gemm2d
grep -q "takes no batch axis; calls stay 2-D" lib-gemm2d.log ||
    fail "lib-gemm2d: no 2-D fallback reported"
grep -q "at most 20 calls with data" lib-gemm2d.log ||
    fail "lib-gemm2d: validation not limited to 20 calls"
found lib-gemmflip order=sequential -- gemm --m 8 --n 8 --k 40 --dtype float32 \
    --validate 2000 $K --kernel-arg gemmflip
grep -q "otherwise than the 2-D call" lib-gemmflip.log ||
    fail "lib-gemmflip: the batch trial did not see the other order"
bad lib-fail 2 "this kernel fails on purpose" $S $K --kernel-arg fail
bad lib-hang 2 "ran past --timeout 2 s: its process group was killed" \
    $S --timeout 2 $K --kernel-arg hang
# (killed by signal 11; under AddressSanitizer its report ends the worker)
bad lib-crash 2 "the kernel library's worker .* (in the kernel function)" \
    $S $K --kernel-arg crash
bad lib-crash-log 2 "kernel_lib: about to crash" $S $K --kernel-arg crash
bad lib-badfmt 2 "did not state the format of its output" $S $K --kernel-arg badfmt
bad lib-badbits 2 "has bits above the 32 of its format" $S $K --kernel-arg badbits
bad lib-nosym 2 "has no symbol 'no_such_kernel'" $S --kernel-lib "$LIB:no_such_kernel"
bad lib-nofile 2 "cannot read" $S --kernel-lib "$W/none.so:reveal_kernel"
bad lib-spec 2 "is not PATH:SYMBOL" $S --kernel-lib "$LIB"
bad lib-and-cmd 2 "no command after '--'" $S $K -- true

# ---- in= and nan=any --------------------------------------------------------
# bfloat16 bit patterns (uint16) made by fplab itself; the model file's
# in=bfloat16 says what they hold, as --in-format does
cases=$((cases + 1))
printf '# bfloat16 inputs\nin = bfloat16\nacc = binary32\nout = bfloat16\n' > bf.model
if "$FPLAB" ref cast "$NPY/c_f4_2d.npy" --out-format bf16 --out abf.npy > in.log 2>&1 &&
   "$FPLAB" ref gemm abf.npy abf.npy --tb --model bf.model --out x1.npy >> in.log 2>&1 &&
   "$FPLAB" ref gemm abf.npy abf.npy --tb --in-format bf16 --acc binary32 \
       --out-format bf16 --out x2.npy >> in.log 2>&1 && cmp -s x1.npy x2.npy; then
    echo "ok   in=bfloat16: the model file's in= reads uint16 bit patterns"
else
    fail "in=bfloat16: $(tail -2 in.log)"
fi
cases=$((cases + 1))
printf 'in = binary16\n' > h.model
if "$FPLAB" ref sum "$NPY/c_f4_2d.npy" --model h.model --out x3.npy > in2.log 2>&1; then
    fail "in=binary16 with float32 data: exit 0"
elif grep -q "the model says in=binary16 but" in2.log; then
    echo "ok   in=binary16 against float32 data: the model check's message"
else
    fail "in=binary16 against float32 data: $(tail -1 in2.log)"
fi
# two NaNs of other bits (the NaN term first: x86 keeps its payload,
# default-neg gives the negative default NaN)
cases=$((cases + 1))
printf 'nan = any\n' > any.model
"$FPLAB" ref sum "$NPY/special_f2.npy" --order reverse --nan x86 --out r_x86.npy > nan.log 2>&1
"$FPLAB" ref sum "$NPY/special_f2.npy" --order reverse --nan default-neg --out k.npy >> nan.log 2>&1
"$FPLAB" ref sum "$NPY/special_f2.npy" --order reverse --model any.model --out r_any.npy >> nan.log 2>&1
"$FPLAB" compare k.npy r_x86.npy --nan-payload > c1.log 2>&1
rc1=$?
"$FPLAB" compare k.npy r_any.npy --nan-payload > c2.log 2>&1
rc2=$?
if [ $rc1 -eq 1 ] && [ $rc2 -eq 0 ] && grep -q "the model says nan=any" c2.log &&
   grep -q "nan=any" r_any.npy.model; then
    echo "ok   nan=any: compare matches NaN vs NaN of other bits, and says why"
else
    fail "nan=any: compare exits $rc1 and $rc2 (want 1 and 0): $(tail -1 c2.log)"
fi

echo "$cases cases, $fails failures"
[ "$cases" -eq 29 ] || { echo "FAIL: ran $cases cases, expected 29"; exit 1; }
[ "$fails" -eq 0 ]
