#!/usr/bin/env python3
"""`fplab compare` on the formats that are not IEEE's layout, end to end.

usage: compare_layouts.py FPLAB WORKDIR

The codes of each format are written out below as docs/formats.md gives
them (NaN, infinities, the largest finite, the smallest positive, the
zeros): an oracle that shares nothing with the library.  For each format a
kernel output and a reference (uint8 bit patterns in .npy files, planted
pairs among identical filler) go through `fplab compare --out-format F
--json`: every count, the ulp histogram, the largest distance and the
exit status under the default (bit-identical) and --ulp 2.  Then NaN vs
NaN with --nan-payload, with and without a model line that says nan=any
(a .model sidecar), and infinity vs the same infinity.

tests/python/test_compare.py imports `FORMATS` and `planted` from here and
checks fplab.compare the same way.  Every check counted, the count
asserted (testlib).
"""
import json
import os
import subprocess
import sys

# name: width, signed, NaN codes, +inf, -inf, largest finite, smallest
# positive, zero, -0 (None: the format has none)
FORMATS = {
    # IEEE P3109, signed extended: NaN the sign bit alone, +-inf the
    # all-ones magnitudes, no -0
    "p3109:p3": (8, True, [0x80], 0x7f, 0xff, 0x7e, 0x01, 0x00, None),
    "p3109:p1": (8, True, [0x80], 0x7f, 0xff, 0x7e, 0x01, 0x00, None),
    "p3109_k6p3se": (6, True, [0x20], 0x1f, 0x3f, 0x1e, 0x01, 0x00, None),
    # unsigned extended: NaN all ones, +inf just below
    "p3109_k8p3ue": (8, False, [0xff], 0xfe, None, 0xfd, 0x01, 0x00, None),
    # finite domain: no infinity
    "p3109_k8p3sf": (8, True, [0x80], None, None, 0x7f, 0x01, 0x00, None),
    "p3109_k8p5uf": (8, False, [0xff], None, None, 0xfe, 0x01, 0x00, None),
    # fnuz: NaN 0x80, no infinity, no -0
    "float8_e4m3fnuz": (8, True, [0x80], None, None, 0x7f, 0x01, 0x00, None),
    "float8_e5m2fnuz": (8, True, [0x80], None, None, 0x7f, 0x01, 0x00, None),
    # OCP E4M3: no infinity, NaN 0x7f and 0xff
    "float8_e4m3fn": (8, True, [0x7f, 0xff], None, None, 0x7e, 0x01, 0x00, 0x80),
    # unsigned E5M3: NaN 0xff
    "float8_e5m3fnu": (8, False, [0xff], None, None, 0xfe, 0x01, 0x00, None),
    # E8M0: unsigned, no zero (code 0 is 2^-127), NaN 0xff
    "float8_e8m0fnu": (8, False, [0xff], None, None, 0xfe, 0x00, None, None),
    # MX FP6/FP4: no infinity, no NaN
    "float6_e2m3fn": (6, True, [], None, None, 0x1f, 0x01, 0x00, 0x20),
    "float6_e3m2fn": (6, True, [], None, None, 0x1f, 0x01, 0x00, 0x20),
    "float4_e2m1fn": (4, True, [], None, None, 0x07, 0x01, 0x00, 0x08),
    # IEEE layout, for comparison
    "fp8-e5m2": (8, True, [0x7e, 0xfe], 0x7c, 0xfc, 0x7b, 0x01, 0x00, 0x80),
}


def ordinal(fmt, c):
    """A non-NaN code's position: +-magnitude (signed; -0 is 0), or the
    code (unsigned); the infinities one past the largest finite."""
    width, signed, nans, pinf, ninf, mx, mn, zero, nzero = FORMATS[fmt]
    if not signed:
        return c
    s = 1 << (width - 1)
    return -(c & (s - 1)) if c & s else c


def kind(fmt, c):
    width, signed, nans, pinf, ninf, mx, mn, zero, nzero = FORMATS[fmt]
    if c in nans:
        return "nan"
    if c in (pinf, ninf):
        return "inf"
    return "num"


def bucket(d):
    return d if d <= 1 else (d - 1).bit_length() + 1


def planted(fmt):
    """(kernel codes, reference codes, expected counts, histogram as
    {bucket: count}, the largest distance and its flat index, the
    failures under --ulp 2)."""
    width, signed, nans, pinf, ninf, mx, mn, zero, nzero = FORMATS[fmt]
    sign = (1 << (width - 1)) if signed else 0
    pairs = []
    if nans:
        n0 = nans[0]
        pairs += [(n0, n0), (n0, mx), (mn, n0)]
        if len(nans) > 1:
            pairs += [(nans[0], nans[1])]
    if pinf is not None:
        pairs += [(pinf, mx), (pinf, pinf), (mx, pinf)]
    if ninf is not None:
        pairs += [(ninf, pinf), (ninf, ninf), (ninf, mx | sign)]
    if zero is not None:
        pairs += [(mn, zero), (zero, mn + 1)]
    else:
        pairs += [(mn + 1, mn), (mn, mn + 3)]
    if signed:
        pairs += [(mn | sign, mn), (mn | sign, zero), (mx | sign, mx),
                  ((mn + 1) | sign, mn + 1)]
    if nzero is not None:
        pairs += [(zero, nzero), (nzero, mn)]
    if signed and nzero is None and sign in nans:
        # no -0: the sign bit alone is the NaN, not a zero
        pairs += [(zero, sign), (sign, zero)]
    pairs += [(mx, mx - 1), (mx - 3, mx), (mx - 2, mx - 2)]
    filler = mn + 2
    n = 300
    k, r = [filler] * n, [filler] * n
    at = [(37 * (i + 1)) % n for i in range(len(pairs))]
    assert len(set(at)) == len(at)
    for (a, b), i in zip(pairs, at):
        k[i], r[i] = a, b
    c = dict(identical=0, nan_both=0, nan_payload_differs=0, nan_kernel_only=0,
             nan_reference_only=0, inf_disagreements=0, signed_zero=0,
             value_pairs=0, outside_tolerance=0)
    hist, worst, fail2 = {}, (None, None), 0
    for i in range(n):
        a, b = k[i], r[i]
        c["identical"] += a == b
        ka, kb = kind(fmt, a), kind(fmt, b)
        if ka == "nan" or kb == "nan":
            if ka == kb:
                c["nan_both"] += 1
                c["nan_payload_differs"] += a != b
            else:
                c["nan_kernel_only" if ka == "nan" else "nan_reference_only"] += 1
                c["outside_tolerance"] += 1
                fail2 += 1
            continue
        if a != b and "inf" in (ka, kb):
            c["inf_disagreements"] += 1
            c["outside_tolerance"] += 1
            fail2 += 1
            continue
        oa = ordinal(fmt, a) if ka == "num" else (mx + 1) * (-1 if a == ninf else 1)
        ob = ordinal(fmt, b) if kb == "num" else (mx + 1) * (-1 if b == ninf else 1)
        d = abs(oa - ob)
        c["value_pairs"] += 1
        hist[bucket(d)] = hist.get(bucket(d), 0) + 1
        if a != b:
            c["outside_tolerance"] += 1
            c["signed_zero"] += d == 0
        fail2 += d > 2
        if worst[0] is None or d > worst[0]:
            worst = (d, i)
    return k, r, c, hist, worst, fail2


def main():
    import numpy as np
    from testlib import check, finish

    fplab, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)

    def p(name):
        return os.path.join(work, name)

    def run(*args):
        out = p("v.json")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([fplab, "compare"] + [str(a) for a in args] +
                           ["--json", out], capture_output=True, text=True)
        j = None
        if r.returncode in (0, 1):
            with open(out) as fp:
                j = json.load(fp)
        else:
            print(r.stderr, file=sys.stderr)
        return r.returncode, j

    for fmt in FORMATS:
        k, r, c, hist, worst, fail2 = planted(fmt)
        np.save(p("k.npy"), np.array(k, np.uint8))
        np.save(p("r.npy"), np.array(r, np.uint8))
        rc, j = run(p("k.npy"), p("r.npy"), "--out-format", fmt)
        check(rc == 1 and j is not None and j["counts"] == c,
              "%s: counts %s, want %s" % (fmt, j and j["counts"], c))
        got = {} if j is None else {
            bucket(h["lo"]): h["count"] for h in j["ulp_histogram"] if h["count"]}
        check(got == hist, "%s: histogram %s, want %s" % (fmt, got, hist))
        check(j is not None and j["max_ulp"]["ulp"] == worst[0] and
              j["max_ulp"]["flat"] == worst[1],
              "%s: largest distance %s, want %s" % (fmt, j and j["max_ulp"], worst))
        rc, j = run(p("k.npy"), p("r.npy"), "--out-format", fmt, "--ulp", "2")
        check(rc == 1 and j is not None and
              j["counts"]["outside_tolerance"] == fail2,
              "%s --ulp 2: %s failing, want %d" %
              (fmt, j and j["counts"]["outside_tolerance"], fail2))

    # NaN vs NaN, different codes: a match unless --nan-payload; a model
    # line with nan=any makes it a match again (which NaN is not modelled)
    np.save(p("k.npy"), np.array([0x7f, 0x01, 0x7f], np.uint8))
    np.save(p("r.npy"), np.array([0xff, 0x01, 0x7f], np.uint8))
    rc, j = run(p("k.npy"), p("r.npy"), "--out-format", "float8_e4m3fn")
    check(rc == 0 and j["counts"]["nan_both"] == 2 and
          j["counts"]["nan_payload_differs"] == 1, "e4m3fn NaN vs NaN: %d" % rc)
    rc, j = run(p("k.npy"), p("r.npy"), "--out-format", "float8_e4m3fn",
                "--nan-payload")
    check(rc == 1 and j["counts"]["outside_tolerance"] == 1,
          "e4m3fn --nan-payload: %d" % rc)
    with open(p("r.npy.model"), "w") as fp:
        fp.write("reveal fp8 nan=any\n")
    rc, j = run(p("k.npy"), p("r.npy"), "--out-format", "float8_e4m3fn",
                "--nan-payload")
    check(rc == 0 and "nan=any" in j["tolerance"]["text"] and
          j["tolerance"]["nan_payload"] is False,
          "e4m3fn --nan-payload, model nan=any: %d %s" % (rc, j and j["tolerance"]))
    os.remove(p("r.npy.model"))

    # the one NaN of fnuz and P3109 against itself, and +inf vs +inf:
    # bit-identical, within every tolerance
    for fmt, codes in (("float8_e4m3fnuz", [0x80, 0x80]),
                       ("p3109:p3", [0x80, 0x7f, 0xff]),
                       ("p3109_k8p3ue", [0xff, 0xfe])):
        np.save(p("k.npy"), np.array(codes, np.uint8))
        np.save(p("r.npy"), np.array(codes, np.uint8))
        rc, j = run(p("k.npy"), p("r.npy"), "--out-format", fmt,
                    "--nan-payload", "--signed-zero", "--ulp", "0")
        nn = sum(kind(fmt, x) == "nan" for x in codes)
        check(rc == 0 and j["counts"]["identical"] == len(codes) and
              j["counts"]["nan_both"] == nn and
              j["counts"]["value_pairs"] == len(codes) - nn,
              "%s: specials against themselves: %d %s" % (fmt, rc, j and j["counts"]))
    finish("compare_layouts", 4 * len(FORMATS) + 3 + 3)


if __name__ == "__main__":
    main()
