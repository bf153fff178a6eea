#!/usr/bin/env bash
# calc.sh FPLAB — `fplab calc` on worked examples: bits, exact value, flags.
# Every expected line was worked out by hand from the format's definition.
. "$(dirname "$0")/lib.sh"

# rounding at the halfway point of binary16 (1 + 2^-11 is a tie)
expect 0 "0x3c00 1 inexact"            -- calc fp16 add 1 0x1p-11
expect 0 "0x3c01 1.0009765625 inexact" -- calc fp16 add 1 0x1p-11 --rm rup
expect 0 "0x3c00 1 inexact"            -- calc fp16 add 1 0x1p-11 --rm rtz
expect 0 "0x3c01 1.0009765625 inexact" -- calc fp16 add 1 0x1p-11 --rm rna
expect 0 "0x3c01 1.0009765625 inexact" -- calc fp16 add 1 0x1p-11 --rm rto
expect 0 "0x3c00 1 inexact"            -- calc fp16 add 1 0x1p-11 --rm near_even
expect 0 "0xbc00 -1 inexact"           -- calc fp16 sub -1 0x1p-11 --rm max
expect 0 "0xbc01 -1.0009765625 inexact" -- calc fp16 sub -1 0x1p-11 --rm min
# exact subnormal result: no underflow
expect 0 "0x0200 0.000030517578125 -"  -- calc fp16 mul 0x1p-14 0x1p-1
# 2^-25 is the tie between 0 and 2^-24: rounds to even zero, tiny and inexact
expect 0 "0x0000 0 inexact,underflow"  -- calc fp16 mul 0x1p-24 0.5
# (1+2^-10)(2^-14-2^-24) = 2^-14(1-2^-20): tiny before rounding, not after
expect 0 "0x0400 0.00006103515625 inexact" -- calc fp16 mul bits:0x3c01 bits:0x03ff
expect 0 "0x0400 0.00006103515625 inexact,underflow" -- calc fp16 mul bits:0x3c01 bits:0x03ff --tininess before
expect 0 "0x0000 0 inexact,underflow"  -- calc fp16 mul 0x1p-14 0.5 --ftz
expect 0 "0x0000 0 -"                  -- calc fp16 add bits:0x0001 0 --daz
# overflow, division by zero, invalid
expect 0 "0x7c00 inf inexact,overflow" -- calc fp16 mul 65504 2
expect 0 "0x7bff 65504 inexact,overflow" -- calc fp16 mul 65504 2 --rm rtz
expect 0 "0x7bff 65504 inexact,overflow" -- calc fp16 mul 65504 2 --saturate
expect 0 "0x7c00 inf divbyzero"        -- calc fp16 div 1 0
expect 0 "0xfc00 -inf divbyzero"       -- calc fp16 div 1 -0
expect 0 "0x3555 0.333251953125 inexact" -- calc fp16 div 1 3
expect 0 "0xfe00 nan invalid"          -- calc fp16 sqrt -1
expect 0 "0x7e00 nan invalid"          -- calc fp16 sqrt -1 --nan arm
expect 0 "0x7e00 nan invalid"          -- calc fp16 sqrt -1 --nan riscv
expect 0 "0x7fff nan invalid"          -- calc fp16 sqrt -1 --nan cuda
expect 0 "0x3da8 1.4140625 inexact"    -- calc fp16 sqrt 2
# OCP E4M3FN: no infinity; overflow gives NaN unless saturating
expect 0 "0x7f nan inexact,overflow"   -- calc fp8-e4m3 round 500
expect 0 "0x7e 448 inexact,overflow"   -- calc fp8-e4m3 round 500 --saturate
expect 0 "0x7e 448 -"                  -- calc fp8-e4m3 round 448
expect 0 "0x1d 0.1015625 inexact"      -- calc ieee:4:3 round 0.1
expect 0 "0x77 240 -"                  -- calc ieee:4:3 round 240
expect 0 "0x01 0.001953125 -"          -- calc ieee:4:3 round 0x1p-9
# fma: one rounding ((1+2^-10)(1-2^-11) - 1 = 2^-11 - 2^-21 exactly)
expect 0 "0x0ffe 0.000487804412841796875 -" -- calc fp16 fma 0x1.004p0 0x1.ffcp-1 -1
expect 0 "0xbc00 -1 -"                 -- calc fp16 rem 5 3
expect 0 "0x4000 2 -"                  -- calc fp16 rint 2.5
expect 0 "0x4000 2 inexact"            -- calc fp16 rint-exact 2.5
expect 0 "0x4000 2 inexact"            -- calc fp16 rint 2.5 --exact
expect 0 "0x4200 3 -"                  -- calc fp16 rint 2.5 --rm rna
# minimum/maximum (-0 < +0; NaN wins) and minimumNumber (a number wins)
expect 0 "0x8000 -0 -"                 -- calc fp16 min -0 0
expect 0 "0x0000 0 -"                  -- calc fp16 max -0 0
expect 0 "0x7e00 nan -"                -- calc fp16 minimum nan 1
expect 0 "0x3c00 1 -"                  -- calc fp16 minnum nan 1
expect 0 "0x3c00 1 -"                  -- calc fp16 maximumNumber 1 nan
expect 0 "0x3c00 1 invalid"            -- calc fp16 maxnum snan 1
# predicates and compare: quiet vs signaling
expect 0 "false -"                     -- calc fp16 eq nan nan
expect 0 "false invalid"               -- calc fp16 eq snan 1
expect 0 "false invalid"               -- calc fp16 lt nan 1
expect 0 "false -"                     -- calc fp16 lt_quiet nan 1
expect 0 "false invalid"               -- calc fp16 eq_signaling nan 1
expect 0 "true -"                      -- calc fp16 le -0 0
expect 0 "true -"                      -- calc fp16 gt 2 1
expect 0 "less -"                      -- calc fp16 compare 1 2
expect 0 "unordered -"                 -- calc fp16 compare nan 1
expect 0 "unordered invalid"           -- calc fp16 compare_signaling nan 1
expect 0 "negativeSubnormal"           -- calc fp16 class -0x1p-24
expect 0 "signalingNaN"                -- calc fp16 class snan
expect 0 "negativeZero"                -- calc fp16 class -0
expect 0 "0x7c00 inf -"                -- calc fp16 nextup 65504
expect 0 "0x8001 -0.000000059604644775390625 -" -- calc fp16 nextdown 0
# conversions between formats and to/from integers
expect 0 "0x3c00 1 inexact"            -- calc fp16 convert --from fp32 bits:0x3f800001
expect 0 "0x7e00 nan invalid"          -- calc fp16 convert --from fp32 bits:0x7f800001
expect 0 "0x3f80 1 inexact"            -- calc bf16 convert --from fp32 bits:0x3f808000
expect 0 "0x00000002 2 -"              -- calc fp16 to_i32 2.5
expect 0 "0x00000002 2 inexact"        -- calc fp16 to_i32 2.5 --exact
expect 0 "0x00000003 3 -"              -- calc fp16 to_i32 2.5 --rm rup
expect 0 "0x80000000 -2147483648 invalid" -- calc fp16 to_i32 inf
expect 0 "0xffffffff 4294967295 invalid" -- calc fp16 to_u32 -1
expect 0 "0xffffffffffff0020 -65504 -" -- calc fp16 to_i64 -65504
expect 0 "0x000000000000ffe0 65504 -"  -- calc fp16 to_u64 65504
expect 0 "0x6800 2048 inexact"         -- calc fp16 from_i32 2049
expect 0 "0xbc00 -1 -"                 -- calc fp16 from_i32 -1
expect 0 "0x7c00 inf inexact,overflow" -- calc fp16 from_u64 0x10000
expect 0 "0xfc00 -inf inexact,overflow" -- calc fp16 from_i64 -9223372036854775808
# raw bits, all three spellings
expect 0 "0x4000 2 -"                  -- calc fp16 add bits:0x3c00 bits:0b0011110000000000
expect 0 "0x4000 2 -"                  -- calc fp16 add bits:15360 1
# an inexact operand is rounded (nearest even) with a warning, not an error
expect 0 "0x2e66 0.0999755859375 -"    -- calc fp16 add 0.1 0
expect_err 0 "operand 1 '0.1' is not exact in binary16; rounded to 0x2e66" -- calc fp16 add 0.1 0 --rm rtz
# binary32 and binary64
expect 0 "0x3f800000 1 inexact"        -- calc fp32 add 1 0x1p-24
expect 0 "0x3ff0000000000001 1.0000000000000002220446049250313080847263336181640625 inexact" -- calc fp64 add 1 0x1.8p-53

# stochastic rounding is a pure function of (seed, index)
a=$("$FPLAB" calc fp16 round 0x1.002p0 --rm sr --seed 7 --index 3)
b=$("$FPLAB" calc fp16 round 0x1.002p0 --rm sr --seed 7 --index 3)
CASES=$((CASES + 1))
if [ "$a" != "$b" ] || { [ "$a" != "0x3c00 1 inexact" ] && [ "$a" != "0x3c01 1.0009765625 inexact" ]; }; then
    fail "sr not reproducible or not a neighbour: [$a] [$b]"
fi

# the ML formats (docs/formats.md), worked by hand:
# fnuz: 256 > 240 + 8 overflows to the one NaN 0x80; -0 does not exist
expect 0 "0x80 nan inexact,overflow"   -- calc float8_e4m3fnuz round 256
expect 0 "0x00 0 -"                    -- calc float8_e4m3fnuz round -0
expect 0 "0x00 0 inexact,underflow"    -- calc float8_e4m3fnuz mul -0x1p-10 0.5
# E8M0 (unsigned, 2^(e-127)): 3 lies between 2 and 4 (a tie: up), no zero
expect 0 "0x81 4 inexact"              -- calc e8m0 round 3
expect 0 "0xff nan invalid"            -- calc e8m0 round 0
expect 0 "0xff nan invalid"            -- calc e8m0 sub 1 2
expect 0 "0x00 0.0000000000000000000000000000000000000058774717541114375398436826861112283890933277838604376075437585313920862972736358642578125 inexact,underflow" -- calc e8m0 round 0 --saturate
# 1.125 * 2^-127: OCP's E8M0 (e8m0) gives the nearest, 2^-127; ml_dtypes'
# float8_e8m0fnu 2^-126 in rne and rna (its boundary sits at 2^-127), the
# true neighbour 2^-127 toward zero
E127=0.0000000000000000000000000000000000000058774717541114375398436826861112283890933277838604376075437585313920862972736358642578125
E126=0.000000000000000000000000000000000000011754943508222875079687365372222456778186655567720875215087517062784172594547271728515625
expect 0 "0x00 $E127 inexact"          -- calc e8m0 round 0x1.2p-127
expect 0 "0x01 $E126 inexact"          -- calc float8_e8m0fnu round 0x1.2p-127
expect 0 "0x01 $E126 inexact"          -- calc float8_e8m0fnu round 0x1.2p-127 --rm rna
expect 0 "0x00 $E127 inexact"          -- calc float8_e8m0fnu round 0x1.2p-127 --rm rtz
expect 0 "0x00 $E127 -"                -- calc float8_e8m0fnu round 0x1p-127
# within E8M0 only fma reaches (2^-127, 2^-126): 2^-127 + 2^-254
expect 0 "0x01 $E126 inexact"          -- calc float8_e8m0fnu fma 0x1p-127 0x1p-127 0x1p-127
expect 0 "0x00 $E127 inexact"          -- calc e8m0 fma 0x1p-127 0x1p-127 0x1p-127
# FP4 E2M1 (0 0.5 1 1.5 2 3 4 6): 5 is a tie between 4 and 6 (even: 4);
# 7 rounds to 8 and saturates; NaN becomes ml_dtypes' -0 pattern
expect 0 "0x6 4 inexact"               -- calc fp4-e2m1 round 5
expect 0 "0x7 6 inexact,overflow"      -- calc fp4-e2m1 round 7
expect 0 "0x8 -0 invalid"              -- calc fp4-e2m1 round nan
# P3109 p3: infinities at 0x7f / 0xff, the NaN 0x80
expect 0 "0x7f inf inexact,overflow"   -- calc p3109:p3 round 65536
expect 0 "0x80 nan invalid"            -- calc p3109:p3 sub inf inf
# ml_dtypes' float8_e4m3 has infinities (max 240); OCP's e4m3 does not
expect 0 "0x78 inf inexact,overflow"   -- calc float8_e4m3 round 256
expect 0 "0x7f nan inexact,overflow"   -- calc Float8_E4M3FN round 480

finish 100
