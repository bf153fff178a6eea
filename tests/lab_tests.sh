#!/bin/sh
# lab_tests.sh — end-to-end checks of `fplab hist` and `fplab lab`.
# usage: lab_tests.sh FPLAB WORKDIR (hist|repro|smoke)
# Each mode counts its checks and fails if the count is not the expected
# one, so a check that silently stops running is a failure too.
set -u
FPLAB=$1
W=$2
MODE=$3
rm -rf "$W" && mkdir -p "$W" || exit 2
checks=0
fails=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
expect() { # expect DESCRIPTION COMMAND... : command must succeed
    d=$1; shift
    if "$@"; then ok; else bad "$d"; fi
}
finish() { # finish EXPECTED_COUNT
    echo "lab_tests $MODE: $checks checks, $fails failures"
    if [ "$checks" -ne "$1" ]; then
        echo "FAIL: ran $checks checks, expected $1" >&2
        exit 1
    fi
    [ "$fails" -eq 0 ]
    exit $?
}

case $MODE in
hist)
    # Constructed data: 2^-30 (below fp16's range), 2^-20 (subnormal),
    # 1.0 (normal), 0 (zero, not counted), 0.5, -0.25.
    printf '0x1p-30, 0x1p-20\n1.0 0 0.5\n# a comment\n-0.25\n' > "$W/g.csv"
    "$FPLAB" hist "$W/g.csv" --format binary16 --scales 1,8,1024,65536 \
        --out "$W/o" > "$W/out.txt" 2>&1
    expect "hist exits 0" test $? -eq 0
    # columns: scale underflow subnormal overflow normal (counts of 5 live)
    cat > "$W/want.txt" <<'X'
1 1 1 0 3
8 1 1 0 3
1024 0 1 0 4
65536 0 0 1 4
X
    grep -v '^#' "$W/o/hist_g_scales.dat" > "$W/got.txt"
    expect "range statistics per scale" cmp -s "$W/want.txt" "$W/got.txt"
    expect "best scale is 1024" grep -q '^best scale: 1024 (underflow 0, subnormal 1, overflow 0)' "$W/out.txt"
    expect "5 nonzero finite, 1 zero" grep -q '6 values: 5 nonzero finite, 1 zero' "$W/out.txt"
    expect "power-of-two window" grep -q 'window with neither overflow nor underflow: 2^6 .. 2^15' "$W/out.txt"
    # histogram: at S=1, bins -30, -20, -2, -1, 0 hold one value each
    expect "histogram bin -30" grep -q '^-30 1 0 0 0$' "$W/o/hist_g.dat"
    expect "histogram bin 0" grep -q '^0 1 0 0 0$' "$W/o/hist_g.dat"
    expect "histogram header" grep -q '^# fplab .*log2 histogram' "$W/o/hist_g.dat"
    # bad input: exit 2 and the place named
    printf '1,2\n3,oops\n' > "$W/bad.csv"
    "$FPLAB" hist "$W/bad.csv" --format fp16 > "$W/bad.txt" 2>&1
    expect "bad csv exits 2" test $? -eq 2
    expect "bad csv names file:line:field" grep -q 'bad.csv:2:2: .oops. is not a number' "$W/bad.txt"
    printf 'abc' > "$W/short.raw"
    "$FPLAB" hist "$W/short.raw" --dtype f16 --format fp16 > "$W/raw.txt" 2>&1
    expect "odd raw size exits 2" test $? -eq 2
    "$FPLAB" hist "$W/g.csv" --format fp16 --scales 1,-8 > "$W/sc.txt" 2>&1
    expect "bad scale exits 2" test $? -eq 2
    expect "bad scale named" grep -q "item 2 '-8'" "$W/sc.txt"
    finish 13
    ;;
repro)
    # The same seed reproduces every data byte, whatever the number of
    # threads (run a: 2 threads, run b: 1); another seed changes the random
    # experiments.
    for d in a b; do
        j=2; [ "$d" = b ] && j=1
        "$FPLAB" lab --quick --no-plots --seed 7 --jobs $j --out "$W/$d" > "$W/$d.log" 2>&1
        expect "lab run $d (--jobs $j) exits 0" test $? -eq 0
    done
    "$FPLAB" lab --quick --no-plots --seed 8 --only rounding --out "$W/c" > "$W/c.log" 2>&1
    expect "lab run c exits 0" test $? -eq 0
    n=0
    for f in "$W"/a/*.dat "$W"/a/REPORT.md; do
        n=$((n + 1))
        expect "$(basename "$f") identical" cmp -s "$f" "$W/b/$(basename "$f")"
    done
    expect "40 data files and the report compared" test "$n" -eq 41
    expect "seed in header" grep -q '^# seed: 7$' "$W/a/accum.dat"
    expect "other seed differs" sh -c "! cmp -s '$W/a/rounding_sr.dat' '$W/c/rounding_sr.dat'"
    # 3 runs + n files + 3 checks
    finish $((3 + n + 3))
    ;;
smoke)
    "$FPLAB" lab --quick --out "$W/out" > "$W/log" 2>&1
    rc=$?
    expect "lab --quick exits 0" test $rc -eq 0
    R="$W/out/REPORT.md"
    expect "REPORT.md written" test -s "$R"
    expect "ten sections" grep -q '^## 10\. ' "$R"
    expect "no failed experiment" sh -c "! grep -q 'experiment failed' '$R'"
    figs="atlas rounding_sr gradhist gradhist_underflow lost_ratio lost_run lost_bits lost_bits_run accum training_default training_deep training_tiny training_adam scaling scaling_blocks scaling_train training_accum training_sr training_lm trainlm_flush"
    if grep -q 'gnuplot not found' "$R"; then
        for s in $figs; do
            expect "figure $s noted as skipped" grep -q "Figure $s\* (not drawn" "$R"
        done
    else
        for s in $figs; do
            expect "figure $s.png" test -s "$W/out/$s.png"
            expect "figure $s.svg" test -s "$W/out/$s.svg"
            expect "figure $s in the report" grep -q "($s.png)" "$R"
        done
    fi
    expect "no temporary files left" sh -c "! ls '$W/out' | grep -q '\.tmp'"
    if grep -q 'gnuplot not found' "$R"; then finish $((5 + 20)); else finish $((5 + 60)); fi
    ;;
*)
    echo "unknown mode $MODE" >&2
    exit 2
    ;;
esac
