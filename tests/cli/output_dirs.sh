#!/usr/bin/env bash
# output_dirs.sh FPLAB — one rule for every command's outputs: the missing
# directories on the way to what a command writes are created (lab --out,
# hist --out, compare --plot: directories; ref --out, compare --json,
# quantize's outputs, train --out / --dump-grads / --hist-out, reveal
# --model-out: files), and a file in the way is an error naming it.
. "$(dirname "$0")/lib.sh"
N=$(cd "$(dirname "$0")/../data/npy" && pwd)
case $FPLAB in /*) ;; *) FPLAB=$PWD/$FPLAB ;; esac
cd "$TMP" || exit 2

# made NAME PATH -- ARGS...: fplab ARGS exits 0 and PATH then exists
made() {
    local name=$1 path=$2
    shift 3
    CASES=$((CASES + 1))
    if ! "$FPLAB" "$@" > "$TMP/out" 2> "$TMP/err"; then
        fail "$name: fplab $* failed: $(head -c 400 "$TMP/err")"
    elif [ ! -e "$path" ]; then
        fail "$name: fplab $* did not make $path"
    fi
}

made lab lab/a/b/REPORT.md -- lab --quick --only atlas --no-plots --out lab/a/b
made hist hist/a/b/hist_c_f4_2d.dat -- hist "$N/c_f4_2d.npy" --format fp16 --out hist/a/b
made compare-plot cplot/a/b -- compare "$N/c_f4_2d.npy" "$N/c_f4_2d.npy" --plot cplot/a/b
made compare-json cjson/a/b/v.json -- compare "$N/c_f4_2d.npy" "$N/c_f4_2d.npy" --json cjson/a/b/v.json
made ref ref/a/b/s.npy -- ref sum "$N/c_f4_2d.npy" --out ref/a/b/s.npy
made quantize q/a/b/d.npy -- quantize --scheme fp8-e4m3-tensor "$N/c_f4_2d.npy" --dequant-out q/a/b/d.npy --codes-out q/c/c.npy
made quantize-codes q/c/c.npy -- quantize --scheme fp8-e4m3-tensor "$N/c_f4_2d.npy" --dequant-out q/a/b/d.npy --codes-out q/c/c.npy
made train train/a/b/t.dat -- train --steps 2 --width 8 --eval-every 0 --out train/a/b/t.dat --dump-grads train/g/g.npy
made train-dump train/g/g.npy -- train --steps 2 --width 8 --eval-every 0 --out train/a/b/t.dat --dump-grads train/g/g.npy
made reveal rv/a/b/rv.model -- reveal sum --n 4 --dtype float32 --model-out rv/a/b/rv.model -- "$FPLAB" ref sum {in} --out {out}

# a file in the way: exit 2, the message names it
touch afile
expect_err 2 "lab: --out: cannot create directory '$TMP/afile': a file of that name is in the way" -- lab --quick --only atlas --no-plots --out "$TMP/afile/x"
expect_err 2 "ref: --out: cannot create directory 'afile': a file of that name is in the way" -- ref sum "$N/c_f4_2d.npy" --out afile/x/s.npy
CASES=$((CASES + 1))
[ -f afile ] && [ ! -s afile ] || fail "the file in the way was changed"

finish 13
