#!/usr/bin/env bash
# quantize_cli.sh — `fplab quantize` and `fplab hist --scaling` end to end:
# a hand-worked MXFP8 E4M3 block (the subnormal case of test_scale.c) as
# text, its summary against a golden file, the bytes of the codes and
# scales files, shapes in the .npy headers, every scheme on a 2-D tensor,
# outputs committed together (a failing run leaves earlier outputs and no
# temporary file), and hist --scaling beside the unchanged loss-scale table.
#
#   quantize_cli.sh FPLAB GOLDEN-DIR
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../cli/lib.sh"
GOLD=$(cd "${2:?usage: $0 FPLAB GOLDEN-DIR}" && pwd)
FPLAB=$(realpath "$FPLAB")
cd "$TMP" || exit 2

# the block: 448 sets X = 1; 2^-9 .. 2^-6 around E4M3's subnormals
printf '448 0x1p-9 0x1p-10 0x1.8p-10 0x1p-7\n0x1.cp-7 0x1p-6 -0x1.000002p-10 0x1p-12\n' > q32.txt
for i in $(seq 23); do echo 0 >> q32.txt; done

expect_file 0 "$GOLD/quantize_e4m3_block.txt" -- quantize --scheme mxfp8-e4m3 q32.txt \
    --dequant-out d.npy --codes-out c.npy --scales-out s.npy --blocks-out b.tsv
# codes: 0x7E 0x01 0x00 0x01 0x04 0x07 0x08 0x81 0x00, then zeros; scale 2^0
CASES=$((CASES + 1))
codes=$(tail -c 32 c.npy | od -An -tx1 | tr -s ' \n' ' ')
[ "$codes" = " 7e 01 00 01 04 07 08 81 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 " ] ||
    fail "codes bytes: [$codes]"
CASES=$((CASES + 1))
[ "$(tail -c 1 s.npy | od -An -tx1 | tr -d ' ')" = 7f ] || fail "scale byte"
# .npy headers: shape (32,) float32 / uint8, scales (1,); sizes = 128 + data
CASES=$((CASES + 1))
head -c 128 d.npy | grep -q "'descr': '<f4', 'fortran_order': False, 'shape': (32,)" &&
    [ "$(stat -c %s d.npy)" = $((128 + 128)) ] || fail "d.npy header or size"
CASES=$((CASES + 1))
head -c 128 c.npy | grep -q "'descr': '|u1'.*'shape': (32,)" &&
    head -c 128 s.npy | grep -q "'shape': (1,)" &&
    [ "$(stat -c %s c.npy)" = 160 ] || fail "c.npy/s.npy header or size"
# the blocks file: one data line, its counts
CASES=$((CASES + 1))
[ "$(grep -v '^#' b.tsv)" = "0 0 0 31 0x7f 1 9 2 5 0 0 1 0.370370358 0.587944686" ] ||
    fail "b.tsv: $(grep -v '^#' b.tsv)"

# rows of 64 from a raw file: --last; every scheme runs and reports
awk 'BEGIN { for (i = 0; i < 256; i++) printf "%.9g\n", (i % 7 - 3) * 2 ^ (i % 23 - 11) }' > r.txt
for sch in mxfp8-e4m3 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4-e2m1 mxint8 nvfp4 \
           fp8-e4m3-tensor fp8-e5m2-tensor mxfp4-e2m1:rceil:rna mxfp8-e4m3:even \
           mxint8:ceil:rtz fp8-e4m3-tensor:nonsat:pow2; do
    "$FPLAB" quantize --scheme "$sch" r.txt --last 64 --dequant-out "o_$sch.npy" \
        --codes-out "oc_$sch.npy" > "sum_$sch" 2> "err_$sch"
    rc=$?
    CASES=$((CASES + 1))
    if [ $rc != 0 ] || ! grep -q "^scheme: $sch$" "sum_$sch" ||
       ! head -c 128 "o_$sch.npy" | grep -q "'shape': (4, 64)"; then
        fail "quantize $sch: rc $rc, $(cat "err_$sch")"
    fi
done
# stochastic rounding: the seed decides, and is printed
"$FPLAB" quantize --scheme mxfp4-e2m1:sr --seed 7 r.txt --last 64 --dequant-out a.npy --codes-out ac.npy > sa
"$FPLAB" quantize --scheme mxfp4-e2m1:sr --seed 7 r.txt --last 64 --dequant-out b.npy --codes-out bc.npy > /dev/null
"$FPLAB" quantize --scheme mxfp4-e2m1:sr --seed 8 r.txt --last 64 --dequant-out e.npy --codes-out ec.npy > /dev/null
CASES=$((CASES + 1))
cmp -s ac.npy bc.npy && ! cmp -s ac.npy ec.npy && grep -q "seed 7" sa || fail "sr seeds"

# outputs are committed together: a run whose blocks file cannot be
# created leaves the good d.npy and c.npy and no temporary file
cp d.npy d.good; cp c.npy c.good
echo x > afile
expect_err 2 "afile/b.tsv" -- quantize --scheme mxfp8-e5m2 q32.txt --dequant-out d.npy \
    --codes-out c.npy --blocks-out afile/b.tsv
CASES=$((CASES + 1))
cmp -s d.npy d.good && cmp -s c.npy c.good && ! compgen -G '*.tmp.*' > /dev/null ||
    fail "a failed run changed d.npy/c.npy or left a temporary file"

# hist --scaling: the loss-scale table is unchanged, the scaling table and
# its data file appear
"$FPLAB" hist q32.txt --format fp8-e4m3 --out h1 > hist_plain
"$FPLAB" hist q32.txt --format fp8-e4m3 --out h2 --scaling mxfp8-e4m3,nvfp4,fp8-e4m3-tensor > hist_sc
CASES=$((CASES + 1))
plain_lines=$(grep -c . hist_plain)
[ "$(head -n $((plain_lines - 1)) hist_sc)" = "$(head -n $((plain_lines - 1)) hist_plain)" ] ||
    fail "hist output before the scaling table changed"
CASES=$((CASES + 1))
grep -q '^mxfp8-e4m3 .* 0.222222   0.555556   0.000000' hist_sc &&
    [ -f h2/hist_q32_scaling.dat ] && [ ! -f h1/hist_q32_scaling.dat ] ||
    fail "hist --scaling table or data file: $(cat hist_sc)"
CASES=$((CASES + 1))
cmp -s h1/hist_q32.dat h2/hist_q32.dat && cmp -s h1/hist_q32_scales.dat h2/hist_q32_scales.dat ||
    fail "hist data files changed by --scaling"

finish 25
