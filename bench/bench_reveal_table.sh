#!/usr/bin/env bash
# bench_reveal_table.sh — every row of docs/kernels.md's table "numpy and
# PyTorch on the CPU, revealed": `fplab reveal` on the real kernel, the
# model it writes, its kernel calls and seconds (wall clock, kernel
# included).  Kernels: tests/reveal/kernel_*.py run once per call, or
# (rows marked serve) tests/reveal/serve_*.py started once.
#
#   bench_reveal_table.sh FPLAB PYTHON OUTDIR [ROW...]
# PYTHON: a python3 with numpy and torch (Debian's /usr/bin/python3).
# Writes OUTDIR/table.md (the table) and OUTDIR/ROW.log (each reveal's
# output); prints the table.  ROW: the names below (default all).
# Exit 0, 1 when a reveal did not write its model.
set -u
FPLAB=${1:?usage: $0 FPLAB PYTHON OUTDIR [ROW...]}
PY=${2:?usage: $0 FPLAB PYTHON OUTDIR [ROW...]}
OUT=${3:?usage: $0 FPLAB PYTHON OUTDIR [ROW...]}
shift 3
HERE=$(cd "$(dirname "$0")/../tests/reveal" && pwd)
mkdir -p "$OUT" || exit 2
VAL=${FPLAB_BENCH_VALIDATE:-100000}

# name | what | reveal arguments (op, shape, dtype) | kernel
rows=(
"np-sum-f32|np.sum(x, axis=-1), float32, n = 256|sum --n 256 --dtype float32|-- $PY $HERE/kernel_numpy.py sum float32 {in} {out}"
"np-sum-f16|np.sum(x, axis=-1), float16, n = 256|sum --n 256 --dtype float16|-- $PY $HERE/kernel_numpy.py sum float16 {in} {out}"
"np-dot-f32|np.dot of each pair of rows, float32, n = 256|dot --n 256 --dtype float32|-- $PY $HERE/kernel_numpy.py dot float32 {in} {in2} {out}"
"np-dot-f16|np.dot of each pair of rows, float16, n = 256|dot --n 256 --dtype float16|-- $PY $HERE/kernel_numpy.py dot float16 {in} {in2} {out}"
"np-matmul-f32|np.matmul, float32, 64 x 256 @ 256 x 64|gemm --m 64 --k 256 --n 64 --dtype float32|-- $PY $HERE/kernel_numpy.py matmul float32 {in} {in2} {out}"
"torch-sum-f32|torch.sum(x, dim=-1), float32, n = 256|sum --n 256 --dtype float32|-- $PY $HERE/kernel_torch.py sum float32 {in} {out}"
"torch-sum-f16|torch.sum(x, dim=-1), float16, n = 200|sum --n 200 --dtype float16|-- $PY $HERE/kernel_torch.py sum float16 {in} {out}"
"torch-sum-bf16|torch.sum(x, dim=-1), bfloat16, n = 256|sum --n 256 --dtype bfloat16|-- $PY $HERE/kernel_torch.py sum bfloat16 {in} {out}"
"torch-matmul-f32|torch.matmul, float32, 64 x 256 @ 256 x 64|gemm --m 64 --k 256 --n 64 --dtype float32|-- $PY $HERE/kernel_torch.py matmul float32 {in} {in2} {out}"
"torch-matmul-bf16|torch.matmul, bfloat16, 64 x 256 @ 256 x 64|gemm --m 64 --k 256 --n 64 --dtype bfloat16|-- $PY $HERE/kernel_torch.py matmul bfloat16 {in} {in2} {out}"
"torch-matmul-bf16-small|torch.matmul, bfloat16, 16 x 96 @ 96 x 16|gemm --m 16 --k 96 --n 16 --dtype bfloat16|-- $PY $HERE/kernel_torch.py matmul bfloat16 {in} {in2} {out}"
"torch-matmul-bf16-small-serve|the same, served|gemm --m 16 --k 96 --n 16 --dtype bfloat16|--serve -- $PY $HERE/serve_torch.py"
"torch-sum-f16-serve|torch.sum, float16, n = 200, served|sum --n 200 --dtype float16|--serve -- $PY $HERE/serve_torch.py"
)

want=" $* "
status=0
{
    echo "| kernel | model (keys beyond the defaults) | kernel calls | seconds (in the kernel) |"
    echo "|---|---|---:|---:|"
} > "$OUT/table.md"
for row in "${rows[@]}"; do
    IFS='|' read -r name what args kernel <<< "$row"
    [ $# -gt 0 ] && [[ "$want" != *" $name "* ]] && continue
    # shellcheck disable=SC2086
    "$FPLAB" reveal $args --validate "$VAL" --model-out "$OUT/$name.model" \
        $kernel > "$OUT/$name.log" 2>&1
    rc=$?
    calls=$(sed -n 's/^kernel calls: \([0-9]*\) (\([0-9.]*\) s in the kernel); reveal total \([0-9.]*\) s$/\1/p' "$OUT/$name.log")
    kin=$(sed -n 's/^kernel calls: \([0-9]*\) (\([0-9.]*\) s in the kernel); reveal total \([0-9.]*\) s$/\2/p' "$OUT/$name.log")
    tot=$(sed -n 's/^kernel calls: \([0-9]*\) (\([0-9.]*\) s in the kernel); reveal total \([0-9.]*\) s$/\3/p' "$OUT/$name.log")
    if [ $rc -eq 0 ]; then
        # the keys that differ from the default model line
        model=$(grep -v '^#' "$OUT/$name.model" | tr ' ' '\n' |
                grep -v -x -e 'acc-rm=rne' -e 'products=rounded' -e 'tc=none' \
                    -e 'out-rm=rne' -e 'epilogue=last' -e 'ftz=0' -e 'daz=0' \
                    -e 'saturate=0' -e 'tininess=after' -e 'seed=0' -e 'in=.*' |
                sed 's/^order=tree:.*/order=tree:.../' | tr '\n' ' ' | sed 's/ $//')
        cover=$(sed -n 's/^# order: \(a family\|covers\).*/\1/p' "$OUT/$name.model")
        [ "$cover" = covers ] && model="$model (this length only)"
    else
        model="(no model: exit $rc)"
        status=1
    fi
    echo "| $what | \`$model\` | ${calls:-?} | ${tot:-?} (${kin:-?}) |" >> "$OUT/table.md"
done
cat "$OUT/table.md"
exit $status
