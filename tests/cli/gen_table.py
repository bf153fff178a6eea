#!/usr/bin/env python3
"""Independent reference for `fplab table ieee:E:M`: computes every value of
an IEEE-style format from its definition with exact integer arithmetic and
prints it in fplab's table layout.  Used to produce tests/cli/golden/*.table
(the test itself compares against the stored file and needs no Python).

usage: gen_table.py E M > golden/table_ieee_E_M.txt
"""
import sys


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
    ebits, mbits = int(sys.argv[1]), int(sys.argv[2])
    width = 1 + ebits + mbits
    bias = 2 ** (ebits - 1) - 1
    emin = 1 - bias
    hd = (width + 3) // 4
    fd = max(1, (mbits + 3) // 4)
    print("bits\tsign\texponent\tfraction\tunbiased\tvalue\tclass")
    for a in range(2 ** width):
        s = a >> (width - 1)
        e = (a >> mbits) & (2 ** ebits - 1)
        f = a & (2 ** mbits - 1)
        if e == 2 ** ebits - 1:
            cls, unb = ("inf" if f == 0 else "nan"), "-"
            val = ("-inf" if s else "inf") if f == 0 else "nan"
        elif e == 0:
            cls = "zero" if f == 0 else "subnormal"
            unb = str(emin)
            val = exact_decimal(s, f, emin - mbits)
        else:
            cls, unb = "normal", str(e - bias)
            val = exact_decimal(s, f + 2 ** mbits, e - bias - mbits)
        print(f"0x{a:0{hd}x}\t{s}\t{e}\t0x{f:0{fd}x}\t{unb}\t{val}\t{cls}")


if __name__ == "__main__":
    main()
