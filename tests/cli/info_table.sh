#!/usr/bin/env bash
# info_table.sh FPLAB — `fplab info` and `fplab table` against golden files.
# The info goldens were checked by hand (binary16: largest 65504 = 0x7bff,
# smallest subnormal 2^-24; ieee:4:3: largest 240, smallest subnormal
# 1/512 = 0.001953125; E8M0: 2^-127 at code 0x00 .. 2^127 at 0xfe, NaN
# 0xff, in two presets that differ only in rounding above 2^-127 -- so
# float8_e8m0fnu's shortest decimal for 2^-127 is 5e-39: 6e-39 lies in
# (2^-127, 2^-126) and reads back as 2^-126 under ml_dtypes' rule; FP4
# E2M1: 0.5 .. 6, no NaN).  The table goldens come from
# gen_table.py, an independent computation of every value from the
# format's definition (its arguments are in the lines below).
. "$(dirname "$0")/lib.sh"
G=$(dirname "$0")/golden

expect_file 0 "$G/info_fp16.txt"          -- info fp16
expect_file 0 "$G/info_fp16.txt"          -- info binary16
expect_file 0 "$G/info_fp16.txt"          -- info half
expect_file 0 "$G/info_ieee_4_3.txt"      -- info ieee:4:3
expect_file 0 "$G/table_ieee_4_3.txt"     -- table ieee:4:3
expect_file 0 "$G/table_fp8_e5m2.txt"     -- table fp8-e5m2
expect_file 0 "$G/info_float8_e8m0fnu.txt" -- info float8_e8m0fnu
expect_file 0 "$G/info_fp8_e8m0.txt"      -- info e8m0
expect_file 0 "$G/info_float4_e2m1fn.txt" -- info FP4-E2M1
# gen_table.py 2 1 --style finite; 2 3 / 3 2 --style finite
expect_file 0 "$G/table_float4_e2m1fn.txt" -- table float4_e2m1fn
expect_file 0 "$G/table_float6_e2m3fn.txt" -- table float6_e2m3fn
expect_file 0 "$G/table_float6_e3m2fn.txt" -- table fp6-e3m2
# 4 3 --bias 8 --style fnuz; 8 0 --bias 127 --style fn --unsigned --no-zero;
# 5 3 --bias 15 --style fn --unsigned
expect_file 0 "$G/table_float8_e4m3fnuz.txt" -- table float8_e4m3fnuz
expect_file 0 "$G/table_float8_e8m0fnu.txt" -- table float8_e8m0fnu
expect_file 0 "$G/table_float8_e5m3fnu.txt" -- table float8_e5m3fnu
# 5 2 --bias 16 --style p3109; 7 0 --bias 64; 1 6 --bias 1
expect_file 0 "$G/table_p3109_p3.txt"     -- table p3109:p3
expect_file 0 "$G/table_p3109_p1.txt"     -- table P3109:P1
expect_file 0 "$G/table_p3109_p7.txt"     -- table p3109:p7

# key lines, spelled out so a wrong golden cannot hide them
out=$("$FPLAB" info ieee:4:3)
for want in "largest finite      240  (0x1.ep+7, bits 0x77)" \
            "smallest subnormal  0.001953125  (~0.002, 0x0.2p-6, bits 0x01)" \
            "machine epsilon     0.125  (0x1p-3, bits 0x20)" \
            "unit roundoff       0.0625  (0x1p-4, bits 0x18)"; do
    CASES=$((CASES + 1))
    grep -qxF "$want" <<<"$out" || fail "info ieee:4:3 lacks [$want]"
done
out=$("$FPLAB" info fp8-e4m3)
CASES=$((CASES + 1))
grep -qxF "largest finite      448  (~450, 0x1.cp+8, bits 0x7e)" <<<"$out" ||
    fail "info fp8-e4m3: largest finite is not 448"

# table ieee:4:3: a header and 256 lines
n=$("$FPLAB" table ieee:4:3 | wc -l)
CASES=$((CASES + 1))
[ "$n" = 257 ] || fail "table ieee:4:3 has $n lines, want 257"
# E4M3FN: the all-ones exponent is normal except S.1111.111 (NaN); no inf
t=$("$FPLAB" table fp8-e4m3)
for want in "0x7e	0	15	0x6	8	448	normal" \
            "0x7f	0	15	0x7	-	nan	nan" \
            "0xf8	1	15	0x0	8	-256	normal" \
            "0x01	0	0	0x1	-6	0.001953125	subnormal"; do
    CASES=$((CASES + 1))
    grep -qxF "$want" <<<"$t" || fail "table fp8-e4m3 lacks [$want]"
done
CASES=$((CASES + 1))
[ "$(grep -c '	nan$' <<<"$t")" = 2 ] || fail "table fp8-e4m3: want exactly 2 NaN patterns"
CASES=$((CASES + 1))
! grep -q '	inf$' <<<"$t" || fail "table fp8-e4m3 shows an infinity"
# the new encodings, spelled out: fnuz's NaN and its missing -0, E8M0's
# code 0, FP4's 16 lines, P3109's infinities
t=$("$FPLAB" table float8_e4m3fnuz)
for want in "0x80	1	0	0x0	-	nan	nan" \
            "0x7f	0	15	0x7	7	240	normal" \
            "0x01	0	0	0x1	-7	0.0009765625	subnormal"; do
    CASES=$((CASES + 1))
    grep -qxF "$want" <<<"$t" || fail "table float8_e4m3fnuz lacks [$want]"
done
for spec in float8_e8m0fnu e8m0; do
    CASES=$((CASES + 1))
    "$FPLAB" table "$spec" | tail -n +2 | cmp -s - <(tail -n +2 "$G/table_float8_e8m0fnu.txt") ||
        fail "table $spec: the E8M0 presets must list the same codes"
done
CASES=$((CASES + 1))
"$FPLAB" info float8_e8m0fnu | grep -qF "above 2^emin        ml_dtypes' rule: rne and rna round" ||
    fail "info float8_e8m0fnu does not state ml_dtypes' rounding rule"
CASES=$((CASES + 1))
"$FPLAB" info e8m0 | grep -qF "above 2^emin        true nearest" ||
    fail "info e8m0 does not state true nearest"
t=$("$FPLAB" table e8m0)
CASES=$((CASES + 1))
grep -q "^0x00	0	0	0x0	-127	0.0000000000000000000000000000000000000058774717541114375398436826861112283890933277838604376075437585313920862972736358642578125	normal$" <<<"$t" ||
    fail "table e8m0: code 0 is not 2^-127"
CASES=$((CASES + 1))
[ "$("$FPLAB" table fp4-e2m1 | wc -l)" = 17 ] || fail "table fp4-e2m1: want 17 lines"
t=$("$FPLAB" table p3109:p3)
for want in "0x7f	0	31	0x3	-	inf	inf" "0xff	1	31	0x3	-	-inf	inf" \
            "0x7e	0	31	0x2	15	49152	normal"; do
    CASES=$((CASES + 1))
    grep -qxF "$want" <<<"$t" || fail "table p3109:p3 lacks [$want]"
done
# ieee:5:6 (12 bits) is the widest table
n=$("$FPLAB" table ieee:5:6 | wc -l)
CASES=$((CASES + 1))
[ "$n" = 4097 ] || fail "table ieee:5:6 has $n lines, want 4097"

finish 43
