#!/usr/bin/env bash
# repro.sh — the same seed gives the same bytes, across commands.
#
#   repro.sh FPLAB WORKDIR
#
# (The lab's experiments are compared file by file in tests/lab_tests.sh
# repro, the core's random tests print and replay their seeds.)  Here:
#   - fplab train --out, twice, for a plain and a loss-scaled multi-rank
#     policy: identical files; another seed: a different file;
#   - fplab hist --out, twice: identical histogram files;
#   - fplab verify --random N --seed S with 1 and with 2 threads: the same
#     report once the timing fields are removed;
#   - fplab calc with stochastic rounding: the same (seed, index) gives the
#     same bits, and over 64 indexes both neighbours occur.
set -u
FPLAB=${1:?usage: $0 FPLAB WORKDIR}
W=${2:?usage: $0 FPLAB WORKDIR}
rm -rf "$W"
mkdir -p "$W" || exit 2
checks=0 fails=0
ok()  { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); printf 'FAIL: %s\n' "$*"; }
same()   { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 and $2 differ"; fi; }
differ() { if cmp -s "$1" "$2"; then bad "$3: $1 and $2 are identical"; else ok; fi; }

for p in fp32 fp16-torch; do
    for run in a b; do
        "$FPLAB" train --policy "$p" --ranks 2 --steps 40 --seed 5 \
            --out "$W/train-$p-$run.dat" > "$W/train-$p-$run.log" 2>&1 ||
            bad "train --policy $p run $run failed"
    done
    same "$W/train-$p-a.dat" "$W/train-$p-b.dat" "train --policy $p, same seed"
    same "$W/train-$p-a.log" "$W/train-$p-b.log" "train --policy $p log, same seed"
done
"$FPLAB" train --policy fp16-torch --ranks 2 --steps 40 --seed 6 \
    --out "$W/train-seed6.dat" > /dev/null 2>&1 || bad "train --seed 6 failed"
differ "$W/train-fp16-torch-a.dat" "$W/train-seed6.dat" "train, another seed"

awk 'BEGIN { s = 7; for (i = 0; i < 5000; i++) { s = (s * 1103515245 + 12345) % 2147483648;
      printf "%.9g\n", (s / 2147483648 - 0.5) * 2 ^ (int(s % 60) - 40) } }' > "$W/g.txt"
for run in a b; do
    "$FPLAB" hist "$W/g.txt" --format fp8-e4m3 --scales 1,256,65536 \
        --out "$W/hist-$run" 2>&1 | sed "s#hist-$run/#hist-X/#g" > "$W/hist-$run.log" ||
        bad "hist run $run failed"
done
n=0
for f in "$W"/hist-a/*; do
    n=$((n + 1))
    same "$f" "$W/hist-b/$(basename "$f")" "hist --out $(basename "$f")"
done
if [ "$n" -ge 1 ]; then ok; else bad "hist wrote no files"; fi
same "$W/hist-a.log" "$W/hist-b.log" "hist report"

for t in 1 2; do
    "$FPLAB" verify --format bfloat16 --op fma --rm all --oracle mpfr \
        --random 20000 --seed 11 --threads "$t" 2>&1 |
        sed -e 's/ time=[^ ]*//' -e 's/ rate=[^ ]*//' > "$W/verify-$t.txt"
done
same "$W/verify-1.txt" "$W/verify-2.txt" "verify --threads 1 vs 2"
if grep -q 'cases=20000 mismatches=0' "$W/verify-1.txt"; then ok; else bad "verify report lacks cases=20000"; fi

: > "$W/sr.txt"
for i in $(seq 0 63); do
    a=$("$FPLAB" calc fp16 round 1.0001 --rm sr --seed 42 --index "$i")
    b=$("$FPLAB" calc fp16 round 1.0001 --rm sr --seed 42 --index "$i")
    [ "$a" = "$b" ] || bad "calc sr index $i: '$a' then '$b'"
    echo "${a%% *}" >> "$W/sr.txt"
done
ok
if [ "$(sort -u "$W/sr.txt" | wc -l)" = 2 ]; then ok; else bad "calc sr over 64 indexes gave $(sort -u "$W/sr.txt" | tr '\n' ' ')"; fi

printf 'repro: %d checks, %d failed\n' "$checks" "$fails"
[ "$fails" = 0 ] && [ "$checks" -ge 13 ]
