#!/usr/bin/env bash
# testfloat.sh FPLAB — `fplab testfloat` on hand-worked TestFloat lines
# (tests/cli/testfloat/FUNC.txt), its answer mode and round trip, and the
# options that change what matches.
. "$(dirname "$0")/lib.sh"
D=$(dirname "$0")/testfloat
NFILES=0
NLINES=0

for file in "$D"/*.txt; do
    fn=$(basename "$file" .txt)
    n=$(grep -vc '^#' "$file")
    NFILES=$((NFILES + 1))
    NLINES=$((NLINES + n))
    # checking the worked lines: all match
    STDIN_FILE=$file expect 0 "$n cases, 0 mismatches" -- testfloat "$fn"
    # answering the operands alone reproduces the worked lines exactly
    # (NaN results included: the default softfloat preset gives
    # TestFloat's 8086-SSE NaN)
    nin=$(awk '!/^#/ { print NF - 2; exit }' "$file")
    grep -v '^#' "$file" | cut -d' ' -f1-"$nin" > "$TMP/ops"
    STDIN_FILE=$TMP/ops expect 0 "$(grep -v '^#' "$file")" -- testfloat "$fn"
    # and the answers check clean when fed back (the round trip)
    "$FPLAB" testfloat "$fn" < "$TMP/ops" 2>/dev/null > "$TMP/answered"
    STDIN_FILE=$TMP/answered expect 0 "$n cases, 0 mismatches" -- testfloat "$fn"
done
CASES=$((CASES + 1))
[ "$NFILES" = 16 ] && [ "$NLINES" = 65 ] ||
    fail "want 16 files with 65 worked lines, found $NFILES with $NLINES"

# a wrong expectation is reported with inputs, expected and got; exit 1
printf '3C00 3C00 4000 00\n3C00 3C00 4001 00\n' > "$TMP/bad"
STDIN_FILE=$TMP/bad expect 1 "line 2: f16_add 3C00 3C00: expected 4001 00 (-), got 4000 00 (-)
2 cases, 1 mismatches" -- testfloat f16_add
printf '3C00 3C00 4000 01\n' > "$TMP/bad"
STDIN_FILE=$TMP/bad expect 1 "line 1: f16_add 3C00 3C00: expected 4000 01 (inexact), got 4000 00 (-)
1 cases, 1 mismatches" -- testfloat f16_add

# answer mode: the summary goes to stderr, stdout stays a clean pipe
printf '# comment\n\n3c00 3c00\n' > "$TMP/ops"
STDIN_FILE=$TMP/ops expect_err 0 "f16_add: 1 lines answered" -- testfloat f16_add

# rounding modes in TestFloat's spelling
echo "3C00 1000 3C01 01" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_add --rm max
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_add -rnear_maxMag
STDIN_FILE=$TMP/l expect 1 "line 1: f16_add 3C00 1000: expected 3C01 01 (inexact), got 3C00 01 (inexact)
1 cases, 1 mismatches" -- testfloat f16_add --rm minMag
# tininess before rounding
echo "3C01 03FF 0400 03" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_mul --tininess before
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_mul -tininessbefore
STDIN_FILE=$TMP/l expect 1 "line 1: f16_mul 3C01 03FF: expected 0400 03 (inexact,underflow), got 0400 01 (inexact)
1 cases, 1 mismatches" -- testfloat f16_mul
# --exact for round-to-integral and integer conversions
echo "4100 4000 01" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_roundToInt --exact
STDIN_FILE=$TMP/l expect 1 "line 1: f16_roundToInt 4100: expected 4000 01 (inexact), got 4000 00 (-)
1 cases, 1 mismatches" -- testfloat f16_roundToInt
echo "4100 00000002 01" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_to_i32 -exact
echo "BE00 FFFFFFFF 00" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_to_i32_r_minMag
echo "BE00 FFFFFFFE 00" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_to_i32
# any NaN matches any NaN unless --check-nans
echo "7C00 FC00 7E00 10" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_add
STDIN_FILE=$TMP/l expect 1 "line 1: f16_add 7C00 FC00: expected 7E00 10 (invalid), got FE00 10 (invalid)
1 cases, 1 mismatches" -- testfloat f16_add --check-nans
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_add --check-nans --nan arm
# invalid integer results: TestFloat's tolerance unless --check-inv-ints
echo "7C00 7FFFFFFF 10" > "$TMP/l"
STDIN_FILE=$TMP/l expect 0 "1 cases, 0 mismatches" -- testfloat f16_to_i32
STDIN_FILE=$TMP/l expect 1 "line 1: f16_to_i32 7C00: expected 7FFFFFFF 10 (invalid), got 80000000 10 (invalid)
1 cases, 1 mismatches" -- testfloat f16_to_i32 --check-inv-ints
# 64-bit integers use 16 digits; ui64 of -1 is invalid
printf 'BC00\n5BF8\n' > "$TMP/ops"
STDIN_FILE=$TMP/ops expect 0 "BC00 FFFFFFFFFFFFFFFF 10
5BF8 00000000000000FF 00" -- testfloat f16_to_ui64
printf '8000000000000000\n' > "$TMP/ops"
STDIN_FILE=$TMP/ops expect 0 "8000000000000000 DF000000 00" -- testfloat i64_to_f32
# wider conversions
printf '3FF0000000000001\n7FF0000000000000\n' > "$TMP/ops"
STDIN_FILE=$TMP/ops expect 0 "3FF0000000000001 3C00 01
7FF0000000000000 7C00 00" -- testfloat f64_to_f16
printf '3C00\n' > "$TMP/ops"
STDIN_FILE=$TMP/ops expect 0 "3C00 3FF0000000000000 00" -- testfloat f16_to_f64
STDIN_FILE=$TMP/ops expect 0 "3C00 3C000000 00" -- testfloat bf16_to_f32 -rmin
printf '3F800000 3F800000 3F800000\n' > "$TMP/ops"
STDIN_FILE=$TMP/ops expect 0 "3F800000 3F800000 3F800000 40000000 00" -- testfloat f32_mulAdd

# fma(0, inf, NaN): TestFloat expects SoftFloat's invalid + default NaN
# (the default preset); x86 FMA3 returns the addend without invalid
# (--nan x86).  33 lines each, written by hand (tests/cli/testfloat/nan).
N=$D/nan
for f in f16_mulAdd f16_mulAdd_x86; do
    [ "$(grep -vc '^#' "$N/$f.txt")" = 33 ] || fail "$N/$f.txt: want 33 lines"
done
STDIN_FILE=$N/f16_mulAdd.txt expect 0 "33 cases, 0 mismatches" -- testfloat f16_mulAdd --check-nans
STDIN_FILE=$N/f16_mulAdd.txt expect 0 "33 cases, 0 mismatches" -- testfloat f16_mulAdd --nan softfloat --check-nans
STDIN_FILE=$N/f16_mulAdd_x86.txt expect 0 "33 cases, 0 mismatches" -- testfloat f16_mulAdd --nan x86 --check-nans
# TestFloat's lines under the hardware rule: the 32 quiet-NaN lines differ
# in their flags (the signaling one raises invalid either way)
"$FPLAB" testfloat f16_mulAdd --nan x86 < "$N/f16_mulAdd.txt" > "$TMP/out" 2>&1
rc=$?
CASES=$((CASES + 1))
[ "$rc" = 1 ] && [ "$(grep -c '^line ' "$TMP/out")" = 32 ] &&
    [ "$(tail -1 "$TMP/out")" = "33 cases, 32 mismatches" ] &&
    [ "$(head -1 "$TMP/out")" = "line 6: f16_mulAdd 0000 7C00 7E00: expected FE00 10 (invalid), got 7E00 00 (-)" ] ||
    fail "--nan x86 on TestFloat's fma(0, inf, NaN) lines: rc $rc, $(head -1 "$TMP/out") ... $(tail -1 "$TMP/out")"
# answering the operands: SoftFloat's lines by default, the hardware's under
# --nan x86
grep -v '^#' "$N/f16_mulAdd.txt" | cut -d' ' -f1-3 > "$TMP/ops"
STDIN_FILE=$TMP/ops expect 0 "$(grep -v '^#' "$N/f16_mulAdd.txt")" -- testfloat f16_mulAdd
STDIN_FILE=$TMP/ops expect 0 "$(grep -v '^#' "$N/f16_mulAdd_x86.txt")" -- testfloat f16_mulAdd --nan x86

finish $((16 * 3 + 1 + 25 + 6))
