#!/usr/bin/env bash
# ref_cli.sh — `fplab ref` from the command line, on the committed .npy
# fixtures (no numpy needed):
#   every operation, .npy / .npz / .safetensors in and out, the model line
#   (sidecar FILE.model, safetensors metadata, stdout, and what `fplab
#   compare` reads back), bfloat16 as uint16 bit patterns, model files with
#   command-line overrides, --exact, thread-count independence, and atomic
#   output: a failing run writes nothing and leaves an earlier good output
#   (and its sidecar) untouched.
#
#   ref_cli.sh FPLAB NPY_FIXTURES WORKDIR
set -u
F=${1:?usage: $0 FPLAB NPY_FIXTURES WORKDIR}
N=${2:?}
W=${3:?}
rm -rf "$W"
mkdir -p "$W" || exit 2
cd "$W" || exit 2
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*"; }

# run WANT_RC ARGS...: fplab ARGS with stdout/stderr in .out/.err
run() {
    local want=$1; shift
    "$F" "$@" > .out 2> .err
    local rc=$?
    if [ "$rc" != "$want" ]; then
        bad "fplab $* -> exit $rc, want $want: $(head -c 400 .err)"
        return 1
    fi
    ok
    return 0
}
has() {   # has FILE TEXT
    if grep -q -F -- "$2" "$1"; then ok; else bad "$1 lacks '$2': $(head -c 400 "$1")"; fi
}
nofile() {   # nofile PATH: no output, sidecar or temp file
    if ls "$1" "$1".model "$1".tmp.* > /dev/null 2>&1; then
        bad "a failed run left $(ls "$1"* 2>/dev/null | tr '\n' ' ')"
    else
        ok
    fi
}
same() {   # same A B: byte-identical files
    if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; fi
}

A=$N/c_f4_2d.npy        # float32 (3, 4)
B=$N/f_f4_2d.npy        # float32 (3, 5), Fortran order
H=$N/c_f2_1d.npy        # float16 (7,)
X3=$N/c_f8_3d.npy       # float64 (2, 3, 4)

# ---- every operation -----------------------------------------------------
run 0 ref sum "$A" --out s.npy && has .out "model: in=binary32 acc=binary32 acc-rm=rne"
has .out "wrote s.npy: binary32 (3,)"
has s.npy.model "in=binary32 acc=binary32 acc-rm=rne products=rounded order=sequential tc=none out=binary32"
run 0 ref sum "$A" --out s.safetensors
run 0 compare s.npy s.safetensors --json v.json
has .out "bit-identical                     3"
has v.json '"model": "in=binary32 acc=binary32 acc-rm=rne products=rounded order=sequential'
run 0 ref sum "$A" --out s.npz --key total
run 0 compare s.npz:total s.npy
run 0 ref dot "$A" "$A" --out d.npy --fma --order pairwise:2
has d.npy.model "products=fused order=pairwise:2"
run 0 ref gemm "$A" "$B" --ta --out g.npy --alpha 2 --threads 2
has .out "wrote g.npy: binary32 (4, 5)"
run 0 ref gemm "$A" "$B" --ta --out g2.npy --c g.npy --beta -1 --epilogue fma
run 0 ref gemm "$X3" "$X3" --tb --out g3.npy
has .out "wrote g3.npy: binary32 (2, 3, 3)"     # acc (default binary32)
run 0 ref gemm "$X3" "$X3" --tb --out g3.npy --acc binary64
has .out "wrote g3.npy: binary64 (2, 3, 3)"
run 0 ref sum "$X3" --out s3.npy --exact
has s3.npy.model "order=exact"
has .out "(2, 3)"
for op in add sub mul div; do
    run 0 ref $op "$A" "$A" --out e.npy --rm rtz && has e.npy.model "acc-rm=rtz"
done
run 0 ref fma "$A" "$A" "$A" --out e.npy
run 0 ref sqrt "$A" --out e.npy --nan arm
has e.npy.model "nan=arm"
run 0 ref add "$H" "$H" --out e.npy --out-format binary32
has .out "wrote e.npy: binary32 (7,)"

# ---- bfloat16 as uint16 bit patterns ---------------------------------------
run 0 ref cast "$A" --out-format bf16 --out b16.npy --rm sr --seed 5
has .out "wrote b16.npy: bfloat16 (3, 4)"
run 2 ref sum b16.npy --out x.npy
has .err "uint16 bit patterns"
nofile x.npy
run 0 ref sum b16.npy --in-format bf16 --out bs.npy --acc bf16
has .out "wrote bs.npy: bfloat16 (3,)"
run 0 ref sum b16.npy --in-format bf16 --out bs.safetensors --acc bf16
run 0 compare bs.npy bs.safetensors --out-format bf16

# ---- the tensor-core model ---------------------------------------------------
run 0 ref cast "$A" --out-format binary16 --out h34.npy
run 0 ref cast "$B" --out-format binary16 --out h35.npy
run 0 ref gemm h34.npy h35.npy --ta --tc h100-fp16 --out tc.npy
has tc.npy.model "tc=h100-fp16(block:16,neab:2,align:trunc,norm:once,rm:rtz)"
run 0 ref dot h34.npy h34.npy --tc "a100-fp16(rm:rne)" --out tcd.npy
has tcd.npy.model "tc=block:8,neab:1,align:trunc,norm:once,rm:rne"

# ---- model files and overrides -------------------------------------------------
printf '# a model\nacc = binary16\norder = tree: (0 + 1) + (2 + 3)\n' > m.txt
run 0 ref sum "$A" --model m.txt --out mt.npy
has mt.npy.model "acc=binary16 acc-rm=rne products=rounded order=tree:(0+1)+(2+3)"
run 0 ref sum "$A" --model m.txt --acc binary32 --out mt.npy
has mt.npy.model "in=binary32 acc=binary32"
has mt.npy.model "order=tree:(0+1)+(2+3)"
# the canonical line of one output is a model file that reproduces it
cp s.npy.model line.txt
run 0 ref sum "$A" --model line.txt --out s_again.npy
same s.npy s_again.npy

# ---- same bits for any thread count (stochastic rounding included) ----------
run 0 ref gemm "$A" "$B" --ta --acc-rm sr --seed 11 --threads 1 --out t1.npy
run 0 ref gemm "$A" "$B" --ta --acc-rm sr --seed 11 --threads 3 --out t3.npy
same t1.npy t3.npy

# ---- failures write nothing, and never destroy an earlier output -----------
cp s.npy keep.npy
cp s.npy.model keep.npy.model
run 2 ref sum "$N/truncated_data.npy" --out s.npy
has .err "truncated_data.npy"
same s.npy keep.npy
same s.npy.model keep.npy.model
run 2 ref add "$A" "$B" --out f1.npy
has .err "has shape (3, 4) but"
nofile f1.npy
run 2 ref gemm "$A" "$A" --out f2.npy
has .err "gives K = 4"
nofile f2.npy
printf 'acc = binary32\nacc_rm = rne\n' > badm.txt
run 2 ref sum "$A" --model badm.txt --out f3.safetensors
has .err "badm.txt:2: unknown key 'acc_rm'"
nofile f3.safetensors
printf 'in = binary16\n' > inm.txt
run 2 ref sum "$A" --model inm.txt --out f4.npz
has .err "the model says in=binary16 but"
nofile f4.npz
run 2 ref sum "$A" --order 'tree:(0+1)+2' --out f5.npy
has .err "3 leaves but each output element has 4 terms"
nofile f5.npy
run 2 ref dot "$A" h34.npy --out f6.npy
has .err "holds binary32 (float32) but"
nofile f6.npy
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
    run 2 ref sum "$A" --out ro/x.npy
    nofile ro/x.npy
fi

echo "ref_cli: $pass checks passed, $fail failed"
[ "$pass" -ge 80 ] || { echo "ref_cli: only $pass checks ran"; exit 1; }
[ "$fail" = 0 ]
