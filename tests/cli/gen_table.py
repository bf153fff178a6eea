#!/usr/bin/env python3
"""Independent reference for `fplab table FORMAT`: computes every value of a
format from its definition with exact integer arithmetic and prints it in
fplab's table layout.  Used to produce tests/cli/golden/table_*.txt (the
test itself compares against the stored file and needs no Python).

usage: gen_table.py E M [--bias B] [--style ieee|fn|finite|fnuz|p3109]
                        [--unsigned] [--no-zero] > golden/table_NAME.txt

The styles: ieee (all-ones exponent: infinity or NaN); fn (the all-ones
magnitude is the NaN, no infinity); finite (no NaN, no infinity); fnuz (the
sign bit alone is the NaN, no -0, no infinity); p3109 (the sign bit alone is
the NaN, the all-ones magnitude is infinite).  --unsigned: no sign bit;
--no-zero: the zero exponent field is a normal number (E8M0).  Sources of
the parameters: docs/formats.md.
"""
import argparse


def exact_decimal(neg, m, k):
    """Exact decimal of (-1)^neg * m * 2^k with no exponent notation."""
    if m == 0:
        return "-0" if neg else "0"
    if k >= 0:
        s = str(m << k)
    else:
        digits = str(m * 5 ** (-k)).rjust(-k + 1, "0")
        s = digits[:k] + "." + digits[k:]
        s = s.rstrip("0").rstrip(".")
    return ("-" if neg else "") + s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ebits", type=int)
    ap.add_argument("mbits", type=int)
    ap.add_argument("--bias", type=int)
    ap.add_argument("--style", default="ieee",
                    choices=["ieee", "fn", "finite", "fnuz", "p3109"])
    ap.add_argument("--unsigned", action="store_true")
    ap.add_argument("--no-zero", action="store_true")
    a = ap.parse_args()
    ebits, mbits, style = a.ebits, a.mbits, a.style
    signed = 0 if a.unsigned else 1
    width = signed + ebits + mbits
    bias = a.bias if a.bias is not None else 2 ** (ebits - 1) - 1
    emin = (0 if a.no_zero else 1) - bias
    eall, fall = 2 ** ebits - 1, 2 ** mbits - 1
    hd = (width + 3) // 4
    fd = max(1, (mbits + 3) // 4)
    print("bits\tsign\texponent\tfraction\tunbiased\tvalue\tclass")
    for code in range(2 ** width):
        s = code >> (width - 1) if signed else 0
        e = (code >> mbits) & eall
        f = code & fall
        special = None
        if style == "ieee" and e == eall:
            special = "inf" if f == 0 else "nan"
        elif style == "fn" and e == eall and f == fall:
            special = "nan"
        elif style == "p3109" and e == eall and f == fall:
            special = "inf"
        elif style in ("fnuz", "p3109") and s == 1 and e == 0 and f == 0:
            special = "nan"
        if special == "inf":
            cls, unb, val = "inf", "-", "-inf" if s else "inf"
        elif special == "nan":
            cls, unb, val = "nan", "-", "nan"
        elif e == 0 and not a.no_zero:
            cls = "zero" if f == 0 else "subnormal"
            unb = str(1 - bias)
            val = exact_decimal(s, f, emin - mbits)
        else:
            cls, unb = "normal", str(e - bias)
            val = exact_decimal(s, f + 2 ** mbits, e - bias - mbits)
        print(f"0x{code:0{hd}x}\t{s}\t{e}\t0x{f:0{fd}x}\t{unb}\t{val}\t{cls}")


if __name__ == "__main__":
    main()
