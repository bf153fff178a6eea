#!/usr/bin/env bash
# info_table.sh FPLAB — `fplab info` and `fplab table` against golden files.
# The info goldens were checked by hand (binary16: largest 65504 = 0x7bff,
# smallest subnormal 2^-24; ieee:4:3: largest 240, smallest subnormal
# 1/512 = 0.001953125).  The table goldens come from gen_table.py, an
# independent computation of every value from the format's definition.
. "$(dirname "$0")/lib.sh"
G=$(dirname "$0")/golden

expect_file 0 "$G/info_fp16.txt"          -- info fp16
expect_file 0 "$G/info_fp16.txt"          -- info binary16
expect_file 0 "$G/info_fp16.txt"          -- info half
expect_file 0 "$G/info_ieee_4_3.txt"      -- info ieee:4:3
expect_file 0 "$G/table_ieee_4_3.txt"     -- table ieee:4:3
expect_file 0 "$G/table_fp8_e5m2.txt"     -- table fp8-e5m2

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
# ieee:5:6 (12 bits) is the widest table
n=$("$FPLAB" table ieee:5:6 | wc -l)
CASES=$((CASES + 1))
[ "$n" = 4097 ] || fail "table ieee:5:6 has $n lines, want 4097"

finish 19
