#!/usr/bin/env bash
# errors.sh FPLAB — bad usage and bad input: exit 2 with a message that
# names what was wrong and where; --help exits 0.
. "$(dirname "$0")/lib.sh"

expect_err 2 "unknown command 'nosuch'"                 -- nosuch
# calc
expect_err 2 "calc: FORMAT: unknown format 'fp17'"     -- calc fp17 add 1 1
expect_err 2 "format 'ieee:12:3': exponent bits E"      -- calc ieee:12:3 add 1 1
expect_err 2 "calc: unknown operation 'addd'"           -- calc fp16 addd 1 1
expect_err 2 "calc: --rm: unknown rounding mode 'foo'"  -- calc fp16 add 1 1 --rm foo
expect_err 2 "calc: --tininess: 'middle' is not"        -- calc fp16 add 1 1 --tininess middle
expect_err 2 "calc: --nan: unknown preset 'mips'"       -- calc fp16 add 1 1 --nan mips
expect_err 2 "calc: --seed: 'x' is not an unsigned"     -- calc fp16 add 1 1 --seed x
expect_err 2 "calc: option --rm needs a value"          -- calc fp16 add 1 1 --rm
expect_err 2 "calc: unknown option '--bogus'"           -- calc fp16 add 1 1 --bogus
expect_err 2 "calc: operand 2 '1x' is not a number"     -- calc fp16 add 1 1x
expect_err 2 "calc: operand 1 '0x1.g' is not a number"  -- calc fp16 sqrt 0x1.g
expect_err 2 "calc: operand 1 '' is not a number"       -- calc fp16 sqrt ""
expect_err 2 "calc: add takes 2 operands, got 1"        -- calc fp16 add 1
expect_err 2 "calc: sqrt takes 1 operand, got 2"        -- calc fp16 sqrt 1 2
expect_err 2 "calc: fma takes 3 operands, got 2"        -- calc fp16 fma 1 2
expect_err 2 "calc: need FORMAT OP OPERAND"             -- calc fp16
expect_err 2 "operand 2 'bits:0x10000' does not fit in binary16 (16 bits)" -- calc fp16 add 1 bits:0x10000
expect_err 2 "operand 1 'bits:0x100' does not fit in fp8-e4m3 (8 bits)" -- calc fp8-e4m3 sqrt bits:0x100
expect_err 2 "operand 2 'bits:zz': not a bit pattern"   -- calc fp16 add 1 bits:zz
expect_err 2 "operand 1 'bits:0b12': not a bit pattern" -- calc fp16 sqrt bits:0b12
expect_err 2 "calc: convert needs --from"               -- calc fp16 convert 1
expect_err 2 "calc: --from applies to 'convert' only"   -- calc fp16 sqrt 1 --from fp32
expect_err 2 "calc: --exact applies to rint and to_*"   -- calc fp16 add 1 1 --exact
expect_err 2 "operand 1 '3000000000' is out of range for int32" -- calc fp16 from_i32 3000000000
expect_err 2 "operand 1 '-1' is out of range for uint32" -- calc fp16 from_u32 -1
expect_err 2 "operand 1 '1.5' is not an integer"        -- calc fp16 from_i64 1.5
# info and table
expect_err 2 "info: need a FORMAT"                      -- info
expect_err 2 "info: FORMAT: unknown format 'fp17'"      -- info fp17
expect_err 2 "info: one FORMAT only"                    -- info fp16 fp32
expect_err 2 "info: unknown option '--x'"               -- info fp16 --x
expect_err 2 "table: binary16 is 16 bits wide; the table is for formats of at most 12 bits" -- table fp16
expect_err 2 "table: ieee:5:7 is 13 bits wide"          -- table ieee:5:7
expect_err 2 "table: FORMAT: unknown format 'e4m4'"     -- table e4m4
expect_err 2 "info: FORMAT: format 'p3109:p9': the IEEE P3109 8-bit formats are p3109:p1 .. p3109:p7" -- info p3109:p9
expect_err 2 "unknown format 'float8_e4m3fnuzz' (known: binary16," -- info float8_e4m3fnuzz
# testfloat
expect_err 2 "testfloat: need a FUNC"                   -- testfloat
expect_err 2 "testfloat: unknown function 'f16_foo'"    -- testfloat f16_foo
expect_err 2 "testfloat: unknown function 'f16_to_f16'" -- testfloat f16_to_f16
expect_err 2 "testfloat: --rm: unknown rounding mode 'nearer'" -- testfloat f16_add --rm nearer
expect_err 2 "testfloat: unknown option '--bogus'"      -- testfloat f16_add --bogus
bad() {   # bad LINES MESSAGE FUNC
    printf "$1" > "$TMP/in"
    STDIN_FILE=$TMP/in expect_err 2 "$2" -- testfloat "$3"
}
bad '3C00 3C00 4000 00\n3C00 3C0G 4000 00\n' "line 2: field 2: '3C0G' is not a hex number" f16_add
bad '3C00 4000 00\n'         "line 1: f16_add wants 2 operands, optionally followed by result and flags (2 or 4 fields); got 3" f16_add
bad '3C000 3C00\n'           "line 1: field 1: '3C000' has more than 4 hex digits" f16_add
bad '3C00 3C00 4000 XY\n'    "line 1: field 4: 'XY' is not a hex number (flags)" f16_add
bad '3C00 3C00 4000 20\n'    "line 1: field 4: '20' has bits beyond the five flags" f16_add
bad '3C00 3C00 2 00\n'       "line 1: field 3: '2' is not a boolean result" f16_eq
bad '3C00 3C00 40000 00\n'   "line 1: field 3: '40000' has more than 4 hex digits (result of type binary16)" f16_add
bad '1 2 3 4 5 6 7 8 9\n'    "got more than 8" f16_add

# every subcommand answers --help on stdout with exit 0
for cmd in info table calc testfloat; do
    CASES=$((CASES + 1))
    out=$("$FPLAB" $cmd --help 2>&1)
    rc=$?
    [ $rc = 0 ] && [[ "$out" == "usage: fplab $cmd"* ]] ||
        fail "fplab $cmd --help: rc $rc, output starts [${out:0:40}]"
done

finish 53
