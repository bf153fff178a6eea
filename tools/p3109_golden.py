#!/usr/bin/python3
"""Write the IEEE P3109 golden tables of tests/data from Graphcore's gfloat.

usage: tools/p3109_golden.py GFLOAT_SRC OUTDIR

GFLOAT_SRC is the src/ folder of a gfloat checkout (its package folder
gfloat/ inside).  Only gfloat's scalar modules are loaded (types, round,
decode, encode, formats), straight from their files: gfloat's package
__init__ and its block module import array_api_compat, which the scalar
functions never use, so the block module is given a placeholder.  gfloat is
run here, never imported by the tests: the tables it produces are the test
data (tests/test_p3109.c reads them).

Tables (gzip-compressed text, tab-separated, '#' lines are comments):
  p3109_decode.tsv.gz   FORMAT CODE VALUE       every code of every format
                     with K <= 8, a sample of codes for K = 9..16
  p3109_convert.tsv.gz  FORMAT X R1 .. R12      binary64 inputs of every class
                     (exact values, ties, a binary64 ulp either side,
                     between, beyond the largest, below the smallest, zeros,
                     infinities, NaN); R = the code gfloat's round_float +
                     encode_float give in TowardZero, TowardPositive,
                     TowardNegative, TiesToEven, TiesToAway, ToOdd, first
                     with sat=False, then sat=True; 'x' where gfloat raises
  p3109_sr.tsv.gz       FORMAT X N DOWN UP MC MO MB MA
                     stochastic rounding with N = 1..3 random bits: DOWN /
                     UP the codes of the two results, M* the bit masks over
                     R = 0 .. 2^N - 1 of the R that give UP, for
                     Stochastic, StochasticOdd, StochasticFast,
                     StochasticFastest (sat=False)
VALUE and X are C99 hex floats ("nan", "inf", "-inf" for the specials).
"""
import gzip
import importlib
import math
import os
import sys
import types


def load_gfloat(src):
    pkg = types.ModuleType("gfloat")
    pkg.__path__ = [os.path.join(src, "gfloat")]
    sys.modules["gfloat"] = pkg
    blk = types.ModuleType("gfloat.block")

    class BlockFormatInfo:  # placeholder: formats.py defines MX blocks
        def __init__(self, *a, **k):
            pass

    blk.BlockFormatInfo = BlockFormatInfo
    sys.modules["gfloat.block"] = blk
    mods = {}
    for m in ("types", "round", "decode", "encode", "formats"):
        mods[m] = importlib.import_module("gfloat." + m)
    return mods


def opengz(path):
    """A text file written gzip-compressed, the same bytes on every run."""
    raw = open(path, "wb")
    gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
    return _Closing(gz, raw)


class _Closing:
    def __init__(self, gz, raw):
        self.gz, self.raw = gz, raw

    def write(self, text):
        self.gz.write(text.encode())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.gz.close()
        self.raw.close()


def hexf(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    if v == 0:
        return "-0x0p+0" if math.copysign(1.0, v) < 0 else "0x0p+0"
    return float.hex(v)


def fits_fplab(k, p, signed):
    """fplab holds the formats whose exponent field has 1..11 bits."""
    e = k - p + (0 if signed else 1)
    return 1 <= e <= 11 and (p < k if signed else p <= k)


def formats(G, kmax, kmin=3):
    T, F = G["types"], G["formats"]
    out = []
    for k in range(kmin, kmax + 1):
        for signed in (True, False):
            for p in range(1, k + (0 if signed else 1)):
                if not fits_fplab(k, p, signed):
                    continue
                for ext in (True, False):
                    fi = F.format_info_p3109(
                        k, p,
                        T.Signedness.Signed if signed else T.Signedness.Unsigned,
                        T.Domain.Extended if ext else T.Domain.Finite)
                    out.append(fi)
    return out


def finite_values(G, fi):
    vals = []
    for i in range(2 ** fi.k):
        v = G["decode"].decode_float(fi, i).fval
        if not (math.isnan(v) or math.isinf(v)):
            vals.append(v)
    return sorted(set(vals))


def next_up(x):
    return math.nextafter(x, math.inf)


def next_down(x):
    return math.nextafter(x, -math.inf)


def convert_inputs(G, fi):
    vals = [v for v in finite_values(G, fi) if v >= 0]
    # every code's value; ties and their neighbours at every step for K <= 6,
    # near the ends and at every 4th (K = 7, 8) or 256th value otherwise
    step = 1 if fi.k <= 6 else 4 if fi.k <= 8 else max(1, len(vals) // 24)
    if fi.k > 8:
        vals = sorted(set(vals[:12] + vals[-12:] + vals[::step]))
        step = 1
    xs = set()
    last = len(vals) - 1
    for j, v in enumerate(vals):
        xs.add(v)
        if j == last:
            break
        if j % step and 3 < j < last - 3:
            continue
        w = vals[j + 1]
        m = v + (w - v) / 2
        xs.update((m, next_up(m), next_down(m), v + (w - v) / 4))
    mx, tiny = vals[-1], vals[1]
    ulp_top = mx - vals[-2]
    for y in (mx + ulp_top / 2, mx + ulp_top / 4, mx + ulp_top,
              mx + 3 * ulp_top / 2, 2 * mx, 1e300, 2.0 ** 1023,
              tiny / 2, next_up(tiny / 2), next_down(tiny / 2), tiny / 4,
              tiny / 2 + tiny / 4, 5e-324, 2.0 ** -1022, 0.0,
              # gfloat's TiesToAway: delta = 1/2 - 2^-54 rounds away
              (0.5 - 2.0 ** -54) * tiny):
        xs.add(y)
    xs = sorted(xs)
    out = list(xs)
    # negatives: every input for a signed format, a few for an unsigned one
    neg = xs if fi.is_signed else xs[:: max(1, len(xs) // 8)]
    out += [-x for x in neg]
    out += [math.inf, -math.inf, math.nan]
    return out


def code_of(G, fi, v):
    return G["encode"].encode_float(fi, v)


def write_decode(G, path, fmts_small, fmts_wide):
    with opengz(path + ".tmp") as o:
        o.write(HEADER % ("decode", VERSION))
        o.write("# FORMAT\tCODE\tVALUE\n")
        n = 0
        for fi in fmts_small:
            for i in range(2 ** fi.k):
                o.write("%s\t%x\t%s\n" % (fi.name, i,
                                          hexf(G["decode"].decode_float(fi, i).fval)))
                n += 1
        for fi in fmts_wide:
            top = 2 ** fi.k
            codes = set(range(0, 12)) | set(range(top // 2 - 12, top // 2 + 12))
            codes |= set(range(top - 12, top))
            codes |= set(range(0, top, max(1, top // 41)))
            for i in sorted(c for c in codes if 0 <= c < top):
                o.write("%s\t%x\t%s\n" % (fi.name, i,
                                          hexf(G["decode"].decode_float(fi, i).fval)))
                n += 1
        o.write("# rows %d\n" % n)
    os.replace(path + ".tmp", path)


def write_convert(G, path, fmts):
    T, R = G["types"], G["round"]
    modes = (T.RoundMode.TowardZero, T.RoundMode.TowardPositive,
             T.RoundMode.TowardNegative, T.RoundMode.TiesToEven,
             T.RoundMode.TiesToAway, T.RoundMode.ToOdd)
    with opengz(path + ".tmp") as o:
        o.write(HEADER % ("convert", VERSION))
        o.write("# FORMAT\tX\tRZ RP RN RNE RNA RTO (sat=False), then "
                "the same with sat=True\n")
        n = 0
        for fi in fmts:
            for x in convert_inputs(G, fi):
                cols = []
                for sat in (False, True):
                    for m in modes:
                        try:
                            v = R.round_float(fi, x, m, sat)
                            cols.append("%x" % code_of(G, fi, v))
                        except ValueError:
                            cols.append("x")
                o.write("%s\t%s\t%s\n" % (fi.name, hexf(x), "\t".join(cols)))
                n += 1
        o.write("# rows %d\n" % n)
    os.replace(path + ".tmp", path)


def sr_inputs(G, fi, nmax):
    """Inputs in a few intervals between neighbouring values, at every
    discarded fraction nu = j / 2^(nmax + 2) (and just off some), so that
    every (nu, R) class of N <= nmax bits occurs."""
    vals = [v for v in finite_values(G, fi) if v >= 0]
    picks = {0, len(vals) // 3, len(vals) - 2}
    sub = [j for j in range(len(vals) - 1) if vals[j + 1] - vals[j] ==
           vals[1] - vals[0]]
    if sub:
        picks.add(sub[-1])                  # the last subnormal step
    grid = 2 ** (nmax + 2)
    xs = []
    for j in sorted(picks):
        if j < 0 or j + 1 >= len(vals):
            continue
        v, w = vals[j], vals[j + 1]
        for t in range(1, grid):
            xs.append(v + (w - v) * t / grid)
        xs.append(next_up(v))
        xs.append(next_down(w))
        xs.append(next_down(v + (w - v) / 2))
    mx = vals[-1]
    ulp_top = mx - vals[-2]                 # beyond the largest finite
    xs += [mx + ulp_top * t / 8 for t in range(1, 8)]
    if fi.is_signed:
        xs += [-x for x in xs[:: 3]]
    return xs


def write_sr(G, path, fmts, nmax):
    T, R = G["types"], G["round"]
    variants = (T.RoundMode.Stochastic, T.RoundMode.StochasticOdd,
                T.RoundMode.StochasticFast, T.RoundMode.StochasticFastest)
    with opengz(path + ".tmp") as o:
        o.write(HEADER % ("sr", VERSION))
        o.write("# FORMAT\tX\tN\tDOWN\tUP\tMC\tMO\tMB\tMA\n")
        rows = 0
        for fi in fmts:
            for x in sr_inputs(G, fi, nmax):
                down = code_of(G, fi, R.round_float(fi, x,
                                                    T.RoundMode.TowardZero))
                for n in range(1, nmax + 1):
                    up = None
                    masks = []
                    for var in variants:
                        m = 0
                        for r in range(2 ** n):
                            c = code_of(G, fi, R.round_float(
                                fi, x, var, False, r, n))
                            if c != down:
                                if up is not None and c != up:
                                    raise SystemExit("%s %r: 3 results" %
                                                     (fi.name, x))
                                up = c
                                m |= 1 << r
                        masks.append(m)
                    o.write("%s\t%s\t%d\t%x\t%s\t%s\n" % (
                        fi.name, hexf(x), n, down,
                        "%x" % up if up is not None else "-",
                        "\t".join("%x" % m for m in masks)))
                    rows += 1
        o.write("# rows %d\n" % rows)
    os.replace(path + ".tmp", path)


HEADER = ("# IEEE P3109 golden table (%s), computed by Graphcore's gfloat%s\n"
          "# (scalar round_float / encode_float / decode_float) with\n"
          "# tools/p3109_golden.py GFLOAT_SRC tests/data; tests/test_p3109.c\n"
          "# reads it.  Regenerate: fetch gfloat, run the tool with its src/.\n")


VERSION = ""


def gfloat_version(src):
    """gfloat's version from its pyproject.toml beside src/, if there."""
    try:
        with open(os.path.join(src, "..", "pyproject.toml")) as f:
            for line in f:
                if line.startswith("version"):
                    return " " + line.split("=")[1].split("#")[0].strip().strip('"')
    except OSError:
        pass
    return ""


def main():
    global VERSION
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    VERSION = gfloat_version(sys.argv[1])
    G = load_gfloat(sys.argv[1])
    out = sys.argv[2]
    small = formats(G, 8)
    wide = [fi for fi in formats(G, 16, 9) if fi.precision in (4, 8)
            or fi.precision == fi.k - 1]
    write_decode(G, os.path.join(out, "p3109_decode.tsv.gz"), small, wide)
    conv = small + [fi for fi in wide if fi.k in (10, 16)
                    and fi.precision in (4, 8)]
    write_convert(G, os.path.join(out, "p3109_convert.tsv.gz"), conv)
    k8 = [fi for fi in small if fi.k == 8]
    write_sr(G, os.path.join(out, "p3109_sr.tsv.gz"), k8, 3)


if __name__ == "__main__":
    main()
